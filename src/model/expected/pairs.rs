//! Pairs scored across the field (topscore or IMPs): `r̂ = (h̄^P_others − h^P)/C_b`.
//!
//! A pair's result compares it with the other pairs only, so the field is the mean over
//! the OTHER pairs (the proposal's words, "all other players in the field", and the Danish
//! federation's worked example). The proposal's formula writes the mean over all pairs with a
//! dilution factor; the two are the same: `h̄_others − h = P/(P − 1)·(h̄_all − h)`.

use super::{against_field, mean_of_others, Expectation};
use crate::model::error::ModelError;
use crate::model::field::sum;

/// Expected results of the pairs, in input order. `field` is `h̄^P_others`.
///
/// The proposal's 5.1 example: a pair of two 300-MP players (13.0) among pairs of 50-MP
/// players (34.7) is expected to score (34.7 − 13.0)/2 = +10.85 %.
/// ```
/// use bridgehcp::model::expected::pairs::expected;
/// let e = expected(&[13.0, 34.7, 34.7, 34.7], 2.0).unwrap();
/// assert!((e[0].expected - 10.85).abs() < 1e-12);
/// ```
pub fn expected(pair_handicaps: &[f64], c_b: f64) -> Result<Vec<Expectation>, ModelError> {
    let total = sum(pair_handicaps.iter().copied());
    against_field(pair_handicaps, c_b, |h| {
        mean_of_others(total, pair_handicaps.len(), h)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::mean;
    use proptest::prelude::*;

    /// Hand computation, IMPs (C_b = 12), pairs 6, 18, 30:
    /// pair 6:  others (18+30)/2 = 24, r̂ = (24 − 6)/12  = +1.5 IMP/board
    /// pair 18: others (6+30)/2  = 18, r̂ = 0
    /// pair 30: others (6+18)/2  = 12, r̂ = (12 − 30)/12 = −1.5
    #[test]
    fn three_pairs_by_hand() {
        let want = [(24.0, 1.5), (18.0, 0.0), (12.0, -1.5)];
        super::super::assert_expectations(expected(&[6.0, 18.0, 30.0], 12.0), &want);
    }

    proptest! {
        /// The dilution identity (docs/model.md): h̄_others − h = P/(P − 1)·(h̄_all − h).
        #[test]
        fn mean_over_others_is_the_diluted_all_pairs_form(
            hs in proptest::collection::vec(-10.0f64..52.0, 2..30)
        ) {
            let e = expected(&hs, 2.0).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let all = mean(hs.iter().copied()).unwrap_or(f64::NAN);
            let p = hs.len() as f64;
            for (got, h) in e.iter().zip(&hs) {
                let all_form = (p / (p - 1.0)) * (all - h) / 2.0;
                prop_assert!((got.expected - all_form).abs() < 1e-9);
            }
        }

        /// Over a whole field the expected results sum to zero.
        #[test]
        fn expected_results_sum_to_zero(hs in proptest::collection::vec(-10.0f64..52.0, 2..30)) {
            let e = expected(&hs, 12.0).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(sum(e.iter().map(|x| x.expected)).abs() < 1e-9);
        }
    }
}
