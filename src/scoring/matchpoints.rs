//! Matchpoints ("topscore"): each result ranked against the others in its direction.
//!
//! Everything is computed on the 2/1 scale first (2 per result beaten, 1 per tie),
//! because Neuberg's formula is stated on that scale; Ruter's plus-minus scale is the same
//! ranking shifted by half a top, so it is derived at the end. Artificial scores are kept
//! out of the ranking and are given their percentage of the (factored) top, which is why
//! a board with an artificial score is factored as if it had been played fewer times.

use crate::scoring::conventions::MpScale;
use crate::scoring::outcome::Outcome;

/// Both sides' points for one table result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SidePoints {
    pub ns: f64,
    pub ew: f64,
}

/// A board scored on a competition's scale.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredBoard {
    /// One entry per outcome, in the order given.
    pub points: Vec<SidePoints>,
    /// Best and worst possible points on this board, for percentages.
    pub top: f64,
    pub bottom: f64,
}

/// N/S matchpoints on the 2/1 scale among `scores` (top 2·(n−1)). E/W gets top − N/S.
///
/// ```
/// use bridgehcp::scoring::matchpoints::two_one;
/// assert_eq!(two_one(&[420, 430, 420]), vec![1.0, 4.0, 1.0]);
/// ```
pub fn two_one(scores: &[i32]) -> Vec<f64> {
    let mut points = Vec::with_capacity(scores.len());
    two_one_into(scores, &mut points);
    points
}

/// [`two_one`], appended to `points`.
fn two_one_into(scores: &[i32], points: &mut Vec<f64>) {
    // Counted in integers: the points are whole, so the sum is exact either way.
    points.extend(scores.iter().map(|&mine| {
        let won: u64 = scores
            .iter()
            .map(|&other| u64::from(mine > other) * 2 + u64::from(mine == other))
            .sum();
        won as f64 - 1.0 // the comparison with itself counted as a tie
    }));
}

/// Neuberg's formula: a score `s` on the 2/1 scale among `n` results, raised to what it
/// would be among `expected` results: `(s + 1)·N/n − 1`.
///
/// ```
/// use bridgehcp::scoring::matchpoints::neuberg;
/// // A top among 7 results (12) where 8 were expected: 13·8/7 − 1.
/// assert!((neuberg(12.0, 7, 8) - (13.0 * 8.0 / 7.0 - 1.0)).abs() < 1e-12);
/// ```
pub fn neuberg(s: f64, n: usize, expected: usize) -> f64 {
    if n == 0 {
        return s;
    }
    (s + 1.0) * expected as f64 / n as f64 - 1.0
}

/// Scores one board. `expected` is the number of results a board normally gets in the
/// competition (Neuberg's N); it is raised to the board's own count when that is larger.
/// With `factor` off, results keep their raw 2/1 points and the top is that of the real
/// results.
pub fn score_board(
    outcomes: &[Outcome],
    expected: usize,
    scale: MpScale,
    factor: bool,
) -> ScoredBoard {
    let mut points = Vec::with_capacity(outcomes.len());
    let (top, bottom) = score_board_into(
        outcomes,
        expected,
        scale,
        factor,
        &mut BoardScratch::default(),
        &mut points,
    );
    ScoredBoard {
        points,
        top,
        bottom,
    }
}

/// The lists one board's scoring fills, kept from board to board so that a
/// competition's boards are scored without allocating.
#[derive(Debug, Default)]
pub(super) struct BoardScratch {
    real: Vec<i32>,
    ns_raw: Vec<f64>,
}

/// [`score_board`] with each outcome's points appended to `points`; gives the top and
/// the bottom.
pub(super) fn score_board_into(
    outcomes: &[Outcome],
    expected: usize,
    scale: MpScale,
    factor: bool,
    scratch: &mut BoardScratch,
    points: &mut Vec<SidePoints>,
) -> (f64, f64) {
    let BoardScratch { real, ns_raw } = scratch;
    real.clear();
    real.extend(outcomes.iter().filter_map(|o| o.score()));
    ns_raw.clear();
    two_one_into(real, ns_raw);
    let n = real.len();
    let big_n = if factor {
        expected.max(outcomes.len())
    } else {
        n
    };
    let top21 = 2.0 * big_n.saturating_sub(1) as f64;
    let raw_top = 2.0 * n.saturating_sub(1) as f64;
    let shift = match scale {
        MpScale::TwoOne => 0.0,
        MpScale::PlusMinus => top21 / 2.0,
    };
    let mut next_real = ns_raw.iter();
    let share = |percent: u8| f64::from(percent) / 100.0 * top21;
    points.extend(outcomes.iter().map(|outcome| {
        let (mut ns, mut ew) = match outcome.score() {
            Some(_) => {
                let ns = next_real.next().copied().unwrap_or(0.0);
                let ew = raw_top - ns;
                if factor {
                    (neuberg(ns, n, big_n), neuberg(ew, n, big_n))
                } else {
                    (ns, ew)
                }
            }
            None => (0.0, 0.0),
        };
        let (ns_share, ew_share) = outcome.artificial_shares();
        if let Some(p) = ns_share {
            ns = share(p);
        }
        if let Some(p) = ew_share {
            ew = share(p);
        }
        SidePoints {
            ns: ns - shift,
            ew: ew - shift,
        }
    }));
    (top21 - shift, -shift)
}

/// A percentage of the points available: `(points − bottom) / (top − bottom)`, summed
/// over the boards a pair played (`None` when it played none).
pub fn percent(points: f64, bottom: f64, top: f64) -> Option<f64> {
    let range = top - bottom;
    (range > 0.0).then(|| 100.0 * (points - bottom) / range)
}

/// `x` rounded to a whole number with halves to even (Compscore's rounding: 189.5 is
/// 190, 126.5 is 126). A value within a millionth of a half counts as the half, since
/// a figure such as 18.95 is not exact in binary.
///
/// ```
/// use bridgehcp::scoring::matchpoints::half_even;
/// assert_eq!(half_even(189.5), 190.0);
/// assert_eq!(half_even(126.5), 126.0);
/// assert_eq!(half_even(18.95 * 10.0), 190.0);
/// assert_eq!(half_even(-2.5), -2.0);
/// assert_eq!(half_even(2.4), 2.0);
/// ```
pub fn half_even(x: f64) -> f64 {
    let floor = x.floor();
    let fraction = x - floor;
    if (fraction - 0.5).abs() < 1e-6 {
        if floor.rem_euclid(2.0) == 0.0 {
            floor
        } else {
            floor + 1.0
        }
    } else {
        x.round()
    }
}

/// Ruter's board percentage: `50 + 50·MP/(n−1)` on the plus-minus scale, rounded half up
/// to a whole number.
pub fn ruter_board_percent(points: f64, results: usize) -> Option<f64> {
    let comparisons = results.checked_sub(1).filter(|&c| c > 0)? as f64;
    Some((50.0 + 50.0 * points / comparisons + 0.5 + 1e-9).floor())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(s: &[i32]) -> Vec<Outcome> {
        s.iter().map(|&x| Outcome::Score(x)).collect()
    }

    fn assert_points(board: &ScoredBoard, ns: &[f64], ew: &[f64]) {
        for (i, p) in board.points.iter().enumerate() {
            assert!(
                (p.ns - ns[i]).abs() < 1e-9,
                "N/S {i}: {} vs {}",
                p.ns,
                ns[i]
            );
            assert!(
                (p.ew - ew[i]).abs() < 1e-9,
                "E/W {i}: {} vs {}",
                p.ew,
                ew[i]
            );
        }
    }

    /// The scoring leaflet, first board: N/S pairs 1-8 score 170, 420, 100, -140, 50, 170, 140, 300.
    #[test]
    fn seed_001_first_board() {
        let board = score_board(
            &scores(&[170, 420, 100, -140, 50, 170, 140, 300]),
            8,
            MpScale::TwoOne,
            true,
        );
        assert_points(
            &board,
            &[9.0, 14.0, 4.0, 0.0, 2.0, 9.0, 6.0, 12.0],
            &[5.0, 0.0, 10.0, 14.0, 12.0, 5.0, 8.0, 2.0],
        );
        assert!((board.top - 14.0).abs() < 1e-12);
    }

    /// The scoring leaflet, second board: seven 4S making (420) and one 3NT making 10 (430).
    #[test]
    fn seed_001_second_board() {
        let board = score_board(
            &scores(&[420, 420, 430, 420, 420, 420, 420, 420]),
            8,
            MpScale::TwoOne,
            true,
        );
        assert_points(
            &board,
            &[6.0, 6.0, 14.0, 6.0, 6.0, 6.0, 6.0, 6.0],
            &[8.0, 8.0, 0.0, 8.0, 8.0, 8.0, 8.0, 8.0],
        );
    }

    /// Ruter's scale is beaten minus lost: the scoring leaflet's board gives 9 − 7 = +2 for pair 1
    /// (4 beaten, 1 tie, 2 lost), +7 for the top, −7 for the bottom.
    #[test]
    fn plus_minus_scale() {
        let board = score_board(
            &scores(&[170, 420, 100, -140, 50, 170, 140, 300]),
            8,
            MpScale::PlusMinus,
            true,
        );
        assert_points(
            &board,
            &[2.0, 7.0, -3.0, -7.0, -5.0, 2.0, -1.0, 5.0],
            &[-2.0, -7.0, 3.0, 7.0, 5.0, -2.0, 1.0, -5.0],
        );
        assert!((board.top - 7.0).abs() < 1e-12 && (board.bottom + 7.0).abs() < 1e-12);
        // Ruter's board percentage for the +2: 50 + 50·2/7 = 64.29 → 64.
        assert_eq!(ruter_board_percent(2.0, 8), Some(64.0));
        assert_eq!(ruter_board_percent(-3.0, 8), Some(29.0)); // 28.57
        assert_eq!(ruter_board_percent(1.0, 5), Some(63.0)); // 62.5 rounds up
    }

    /// A board played 7 times where 8 was normal: the seven results are factored by
    /// (s + 1)·8/7 − 1 and the top becomes 14.
    #[test]
    fn neuberg_for_fewer_plays() {
        let board = score_board(
            &scores(&[170, 420, 100, -140, 50, 170, 140]),
            8,
            MpScale::TwoOne,
            true,
        );
        // Among 7: 170 beats 100, -140, 50, 140 and ties 170 → 9. (9+1)·8/7 − 1 = 10.428571.
        assert!((board.points[0].ns - 73.0 / 7.0).abs() < 1e-9);
        // 420 is a top among 7 (12): 13·8/7 − 1 = 97/7 = 13.857.
        assert!((board.points[1].ns - 97.0 / 7.0).abs() < 1e-9);
        // -140 is a bottom (0): 8/7 − 1 = 1/7.
        assert!((board.points[3].ns - 1.0 / 7.0).abs() < 1e-9);
        assert!((board.top - 14.0).abs() < 1e-12);
    }

    /// An artificial A6040 among 8: N/S gets 0.6·14 = 8.4, E/W 0.4·14 = 5.6; the seven real
    /// results are factored from 7 to 8.
    #[test]
    fn artificial_scores_take_their_share() {
        let mut outcomes = scores(&[170, 420, 100, -140, 50, 170, 140]);
        outcomes.push(Outcome::Artificial {
            ns_percent: 60,
            ew_percent: 40,
        });
        let board = score_board(&outcomes, 8, MpScale::TwoOne, true);
        assert!((board.points[7].ns - 8.4).abs() < 1e-9);
        assert!((board.points[7].ew - 5.6).abs() < 1e-9);
        assert!((board.points[1].ns - 97.0 / 7.0).abs() < 1e-9);
        // Ruter A+ on its scale: 60 % of the way from −7 to +7 is +1.4.
        let ruter = score_board(&outcomes, 8, MpScale::PlusMinus, true);
        assert!((ruter.points[7].ns - 1.4).abs() < 1e-9);
    }

    /// Ruter, board 11 of 2016-08-10: E/W scores 510, 1010, 1020, 1520 and, at the table
    /// of pairs 6 and 10, 0 with `A=` for N/S. The 0 stays in the comparisons (E/W 10 is
    /// the bottom, −4, and each other E/W pair beat it), while N/S 6 gets half the top,
    /// 0 on the ± scale. Published: N/S +2, 0, −2, −4 (E/W the opposite), and 0 / −4.
    #[test]
    fn split_score_keeps_the_other_side_in_the_comparisons() {
        let outcomes = [
            Outcome::Score(-510),
            Outcome::Score(-1010),
            Outcome::Score(-1020),
            Outcome::Score(-1520),
            Outcome::Split {
                score: 0,
                ns_percent: Some(50),
                ew_percent: None,
            },
        ];
        let board = score_board(&outcomes, 5, MpScale::PlusMinus, true);
        assert_points(
            &board,
            &[2.0, 0.0, -2.0, -4.0, 0.0],
            &[-2.0, 0.0, 2.0, 4.0, -4.0],
        );
    }

    #[test]
    fn percentages() {
        assert_eq!(
            percent(9.0, 0.0, 14.0).map(|p| (p * 1e6).round()),
            Some(64_285_714.0)
        );
        assert_eq!(percent(0.0, -7.0, 7.0), Some(50.0));
        assert_eq!(percent(1.0, 0.0, 0.0), None);
    }

    proptest::proptest! {
        /// Points counted in integers are, to the bit, the 2/1/0 points summed as reals.
        #[test]
        fn points_counted_whole_are_the_points_summed(
            s in proptest::collection::vec(-30i32..30, 0..40),
        ) {
            let summed: Vec<u64> = s
                .iter()
                .map(|&mine| {
                    let points: f64 = s
                        .iter()
                        .map(|&other| match mine.cmp(&other) {
                            std::cmp::Ordering::Greater => 2.0,
                            std::cmp::Ordering::Equal => 1.0,
                            std::cmp::Ordering::Less => 0.0,
                        })
                        .sum();
                    (points - 1.0).to_bits()
                })
                .collect();
            let counted: Vec<u64> = two_one(&s).into_iter().map(f64::to_bits).collect();
            proptest::prop_assert_eq!(counted, summed);
        }

        /// N/S and E/W points on a board always add up to the top, with or without
        /// factoring, and stay within [bottom, top].
        #[test]
        fn sides_share_the_top(s in proptest::collection::vec(-20i32..20, 2..12), extra in 0usize..3) {
            let outcomes: Vec<Outcome> = s.iter().map(|&x| Outcome::Score(x * 10)).collect();
            let board = score_board(&outcomes, s.len() + extra, MpScale::TwoOne, true);
            for p in &board.points {
                proptest::prop_assert!((p.ns + p.ew - board.top).abs() < 1e-9);
                proptest::prop_assert!(p.ns >= board.bottom - 1e-9 && p.ns <= board.top + 1e-9);
            }
            let total: f64 = board.points.iter().map(|p| p.ns).sum();
            // Neuberg keeps the board's average at half the top.
            proptest::prop_assert!((total / s.len() as f64 - board.top / 2.0).abs() < 1e-9);
        }
    }
}
