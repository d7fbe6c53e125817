//! IMPs across the field: every result compared in IMPs with every other real result in
//! its direction.
//!
//! Programs differ only in how the comparisons combine: Compscore averages over them,
//! Ruter sums them. An artificial score cannot be compared, so it is given the recorded
//! convention's IMPs per comparison ([`ArtificialImps`]), over the comparisons a full
//! board would have had; Ruter's one IMP per 10 % reproduces its published `A+` of +9 on
//! a board with ten results. A split score keeps its table score in everyone's
//! comparisons; only its artificial side is replaced by the share.

use crate::scoring::conventions::{ArtificialImps, ImpAggregate};
use crate::scoring::imps::imps;
use crate::scoring::matchpoints::SidePoints;
use crate::scoring::outcome::Outcome;

/// Scores one board. `expected` is the number of results a full board gets.
///
/// ```
/// use bridgehcp::scoring::conventions::{ArtificialImps, ImpAggregate};
/// use bridgehcp::scoring::cross_imps::score_board;
/// use bridgehcp::scoring::outcome::Outcome;
/// let outcomes = [Outcome::Score(620), Outcome::Score(170), Outcome::Score(-100)];
/// let b = score_board(&outcomes, 3, ImpAggregate::Sum, ArtificialImps::Zero);
/// assert_eq!(b[0].ns, 10.0 + 12.0); // 450 → 10, 720 → 12
/// ```
pub fn score_board(
    outcomes: &[Outcome],
    expected: usize,
    aggregate: ImpAggregate,
    artificial: ArtificialImps,
) -> Vec<SidePoints> {
    let real: Vec<i32> = outcomes.iter().filter_map(|o| o.score()).collect();
    let sums = comparison_sums(&real);
    let mut next_sum = sums.iter();
    let comparisons = real.len().saturating_sub(1);
    let full_comparisons = expected.max(outcomes.len()).saturating_sub(1);
    let weight = match aggregate {
        ImpAggregate::Sum => full_comparisons as f64,
        ImpAggregate::Average => 1.0,
    };
    outcomes
        .iter()
        .map(|outcome| {
            let ns = match outcome.score() {
                Some(_) => {
                    let sum = next_sum.next().copied().unwrap_or(0);
                    match aggregate {
                        ImpAggregate::Sum => f64::from(sum),
                        ImpAggregate::Average if comparisons > 0 => {
                            f64::from(sum) / comparisons as f64
                        }
                        ImpAggregate::Average => 0.0,
                    }
                }
                None => 0.0,
            };
            let (ns_share, ew_share) = outcome.artificial_shares();
            SidePoints {
                ns: ns_share.map_or(ns, |p| artificial.imps(p) * weight),
                ew: ew_share.map_or(-ns, |p| artificial.imps(p) * weight),
            }
        })
        .collect()
}

/// Each real result's IMPs summed over its comparisons with every real result (itself
/// giving 0). A comparison gives one side what it takes from the other (the scale is
/// symmetric), so each pair of results is looked up once.
fn comparison_sums(real: &[i32]) -> Vec<i32> {
    let mut sums = vec![0; real.len()];
    for (i, &mine) in real.iter().enumerate() {
        for (j, &other) in real.iter().enumerate().skip(i + 1) {
            let won = imps(mine - other);
            sums[i] += won;
            sums[j] -= won;
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 620, 170 and −100: 620 wins 10 (450) and 12 (720); 170 loses 10 and wins 7 (270);
    /// −100 loses 12 and 7.
    #[test]
    fn each_comparison_is_won_by_one_side_and_lost_by_the_other() {
        assert_eq!(comparison_sums(&[620, 170, -100]), [22, -3, -19]);
        assert_eq!(comparison_sums(&[420]), [0]);
        assert_eq!(comparison_sums(&[]), Vec::<i32>::new());
    }

    proptest::proptest! {
        /// Each pair looked up once gives the sums of every result against every other.
        #[test]
        fn pairs_looked_up_once_sum_as_every_comparison(
            real in proptest::collection::vec(-7600i32..=7600, 0..20),
        ) {
            let every: Vec<i32> = real
                .iter()
                .map(|&mine| real.iter().map(|&other| imps(mine - other)).sum())
                .collect();
            proptest::prop_assert_eq!(comparison_sums(&real), every);
        }
    }

    /// Summed, with one `A+`/`A+` among four results: 140 gets 3 (vs 50: 90) + 6 (vs
    /// −100: 240) = 9 over the real results only; under Ruter's one IMP per 10 % the A+
    /// gets +1 for each of the 3 comparisons of a full board, on each side (as Ruter
    /// publishes; see the real-data test of every board of a Ruter file in
    /// `realdata_tests`).
    #[test]
    fn sum_with_artificial() {
        let outcomes = [
            Outcome::Score(140),
            Outcome::Score(50),
            Outcome::Score(-100),
            Outcome::Artificial {
                ns_percent: 60,
                ew_percent: 60,
            },
        ];
        let board = score_board(
            &outcomes,
            4,
            ImpAggregate::Sum,
            ArtificialImps::OnePer10Percent,
        );
        // 50: −3 (vs 140: −90) + 4 (vs −100: 150) = 1; −100: −6 − 4 = −10.
        let ns: Vec<f64> = board.iter().map(|p| p.ns).collect();
        assert_eq!(ns, vec![9.0, 1.0, -10.0, 3.0]);
        assert!((board[0].ew + 9.0).abs() < 1e-9);
        assert!((board[3].ns - 3.0).abs() < 1e-9 && (board[3].ew - 3.0).abs() < 1e-9);
    }

    /// Averaging divides by the n−1 comparisons: 620 vs 170 (10) and vs −100 (12) → 11.
    #[test]
    fn average() {
        let outcomes = [
            Outcome::Score(620),
            Outcome::Score(170),
            Outcome::Score(-100),
        ];
        let board = score_board(&outcomes, 3, ImpAggregate::Average, ArtificialImps::Zero);
        assert!((board[0].ns - 11.0).abs() < 1e-9);
        // 170: −10 and +7 (270 → 7): −1.5.
        assert!((board[1].ns + 1.5).abs() < 1e-9);
    }

    /// One convention, the same in cross-IMPs and butler. A6040 among 620, 170, −100:
    /// averaged cross-IMPs give N/S 0, +1 or +3 per comparison under `zero`,
    /// `one_per_10_percent` and `three_per_10_percent`, E/W 0, −1, −3; summed, times the
    /// 3 comparisons of a full board of four results: +3 and +9. Butler gives the same
    /// per-board value as averaged cross-IMPs: 0, +1, +3.
    #[test]
    fn artificial_score_follows_the_convention() {
        use crate::scoring::butler;
        use crate::scoring::conventions::{DatumRounding, DatumTrim};
        let outcomes = [
            Outcome::Score(620),
            Outcome::Score(170),
            Outcome::Score(-100),
            Outcome::Artificial {
                ns_percent: 60,
                ew_percent: 40,
            },
        ];
        for (convention, per_comparison) in [
            (ArtificialImps::Zero, 0.0),
            (ArtificialImps::OnePer10Percent, 1.0),
            (ArtificialImps::ThreePer10Percent, 3.0),
        ] {
            let averaged = score_board(&outcomes, 4, ImpAggregate::Average, convention);
            assert_eq!(averaged[3].ns, per_comparison);
            assert_eq!(averaged[3].ew, -per_comparison);
            let summed = score_board(&outcomes, 4, ImpAggregate::Sum, convention);
            assert_eq!(summed[3].ns, 3.0 * per_comparison);
            let (_, datum) =
                butler::score_board(&outcomes, DatumTrim::None, DatumRounding::None, convention);
            assert_eq!(datum[3].ns, per_comparison);
            assert_eq!(datum[3].ew, -per_comparison);
        }
    }
}
