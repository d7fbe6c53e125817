//! Butler scoring: IMPs against a datum, the field's typical N/S score.
//!
//! Trimming the extremes keeps one wild result from moving everybody's datum; programs
//! differ in how much they trim and whether they round, so both are settings.
//! Artificial scores are left out of the datum and score the recorded convention's IMPs
//! ([`ArtificialImps`]; Compscore: 0). A split score (one side artificial, see
//! `outcome`) keeps its table score in the datum; only the artificial side is valued by
//! the convention.

use crate::scoring::conventions::{ArtificialImps, DatumRounding, DatumTrim};
use crate::scoring::imps::imps_f64;
use crate::scoring::matchpoints::SidePoints;
use crate::scoring::outcome::Outcome;

/// How many scores to drop at each end: 0.1·n with .5 rounded up (15 → 2), or one top
/// and one bottom when at least three scores remain to average.
pub fn trim_count(n: usize, trim: DatumTrim) -> usize {
    match trim {
        DatumTrim::TenPercent => (n + 5) / 10,
        DatumTrim::TopAndBottom if n >= 3 => 1,
        DatumTrim::TopAndBottom | DatumTrim::None => 0,
    }
}

/// The datum of a board's real N/S scores, `None` when there are none.
///
/// ```
/// use bridgehcp::scoring::butler::datum;
/// use bridgehcp::scoring::conventions::{DatumRounding, DatumTrim};
/// // Drop 600 and −100; the mean of 420, 450, 170 is 346.67, rounded 350.
/// let d = datum(&[420, 450, 170, 600, -100], DatumTrim::TopAndBottom, DatumRounding::Nearest10);
/// assert_eq!(d, Some(350.0));
/// ```
pub fn datum(scores: &[i32], trim: DatumTrim, rounding: DatumRounding) -> Option<f64> {
    let mut sorted = scores.to_vec();
    sorted.sort_unstable();
    let k = trim_count(sorted.len(), trim);
    let kept = sorted.get(k..sorted.len().saturating_sub(k))?;
    if kept.is_empty() {
        return None;
    }
    let sum: i64 = kept.iter().map(|&s| i64::from(s)).sum();
    let count = kept.len() as i64;
    Some(match rounding {
        DatumRounding::None => sum as f64 / count as f64,
        DatumRounding::Nearest10 => {
            // Integer arithmetic, so that an exact half is recognised as one.
            let den = 10 * count;
            let tens = (2 * sum.abs() + den) / (2 * den);
            (sum.signum() * tens * 10) as f64
        }
    })
}

/// Scores one board: the datum, and each result's IMPs against it.
pub fn score_board(
    outcomes: &[Outcome],
    trim: DatumTrim,
    rounding: DatumRounding,
    artificial: ArtificialImps,
) -> (Option<f64>, Vec<SidePoints>) {
    let real: Vec<i32> = outcomes.iter().filter_map(|o| o.score()).collect();
    let datum = datum(&real, trim, rounding);
    let points = outcomes
        .iter()
        .map(|o| {
            let ns = match (o.score(), datum) {
                (Some(s), Some(d)) => f64::from(imps_f64(f64::from(s) - d)),
                _ => 0.0,
            };
            let (ns_share, ew_share) = o.artificial_shares();
            SidePoints {
                ns: ns_share.map_or(ns, |p| artificial.imps(p)),
                ew: ew_share.map_or(-ns, |p| artificial.imps(p)),
            }
        })
        .collect();
    (datum, points)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Swiss pairs regulations: 0.1·n with 0.5 rounded up; 15 scores drop 2 at each end.
    #[test]
    fn seed_002_trim() {
        assert_eq!(trim_count(15, DatumTrim::TenPercent), 2);
        assert_eq!(trim_count(14, DatumTrim::TenPercent), 1);
        assert_eq!(trim_count(25, DatumTrim::TenPercent), 3);
        assert_eq!(trim_count(4, DatumTrim::TenPercent), 0);
        assert_eq!(trim_count(5, DatumTrim::TenPercent), 1);
        assert_eq!(trim_count(8, DatumTrim::TopAndBottom), 1);
    }

    /// 15 scores 10·1 … 10·15 plus two wild ones replacing the ends: dropping two at each
    /// end leaves 30 … 130, mean 80.
    #[test]
    fn ten_percent_datum() {
        let mut scores: Vec<i32> = (1..=15).map(|i| i * 10).collect();
        scores[0] = -2000;
        scores[14] = 2000;
        let d = datum(&scores, DatumTrim::TenPercent, DatumRounding::None);
        assert!((d.unwrap_or(f64::NAN) - 80.0).abs() < 1e-9);
    }

    #[test]
    fn rounding_halves_away_from_zero() {
        let r = |s: &[i32]| datum(s, DatumTrim::None, DatumRounding::Nearest10);
        assert_eq!(r(&[140, 150]), Some(150.0)); // 145
        assert_eq!(r(&[-140, -150]), Some(-150.0)); // −145
        assert_eq!(r(&[100, 120, 120]), Some(110.0)); // 113.3
        assert_eq!(r(&[-100, -110]), Some(-110.0)); // −105
        assert_eq!(r(&[]), None);
    }

    /// Datum 350 (see `datum`'s example): 620 is +270 → 7 IMPs; the artificial score 0.
    #[test]
    fn board_imps() {
        let outcomes = [
            Outcome::Score(420),
            Outcome::Score(450),
            Outcome::Score(170),
            Outcome::Score(600),
            Outcome::Score(-100),
            Outcome::Artificial {
                ns_percent: 60,
                ew_percent: 40,
            },
        ];
        let (d, p) = score_board(
            &outcomes,
            DatumTrim::TopAndBottom,
            DatumRounding::Nearest10,
            ArtificialImps::Zero,
        );
        assert_eq!(d, Some(350.0));
        let ns: Vec<f64> = p.iter().map(|x| x.ns).collect();
        // 70 → 2, 100 → 3, −180 → −5, 250 → 6, −450 → −10, artificial 0.
        assert_eq!(ns, vec![2.0, 3.0, -5.0, 6.0, -10.0, 0.0]);
        assert_eq!(p[3].ew, -6.0);
    }
}
