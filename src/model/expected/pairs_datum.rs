//! Pairs scored against a datum (butler): `r̂ = (h̄^P_all − h^P)/C_b`.
//!
//! The datum of a board is built from every table's score, the pair's own included, so the
//! pair is compared with a field that contains itself: the mean is over ALL pairs (the
//! proposal's "C_u = 1 with a datum score").

use super::{against_field, Expectation};
use crate::model::error::ModelError;
use crate::model::field::mean;

/// Expected results of the pairs, in input order. `field` is `h̄^P_all`.
///
/// ```
/// use bridgehcp::model::expected::pairs_datum::expected;
/// // Pairs 6, 18, 30: all-pairs mean 18, the first pair r̂ = (18 − 6)/12 = +1 IMP/board.
/// let e = expected(&[6.0, 18.0, 30.0], 12.0).unwrap();
/// assert!((e[0].expected - 1.0).abs() < 1e-12);
/// ```
pub fn expected(pair_handicaps: &[f64], c_b: f64) -> Result<Vec<Expectation>, ModelError> {
    let field = mean(pair_handicaps.iter().copied()).unwrap_or(0.0);
    against_field(pair_handicaps, c_b, |_| field)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand computation, IMPs (C_b = 12), pairs 6, 18, 30, all-pairs mean 18:
    /// r̂ = (18 − 6)/12 = +1, (18 − 18)/12 = 0, (18 − 30)/12 = −1.
    /// (Across the field the same pairs would get ±1.5: the others-mean is 3/2 as far.)
    #[test]
    fn three_pairs_by_hand() {
        let want = [(18.0, 1.0), (18.0, 0.0), (18.0, -1.0)];
        super::super::assert_expectations(expected(&[6.0, 18.0, 30.0], 12.0), &want);
    }
}
