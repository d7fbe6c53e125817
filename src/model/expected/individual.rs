//! Individual events: `r̂ = (h̄_others − h)/(2·C_b)`.
//!
//! The player's partners change every round and average out to the field, so the pair the
//! player sits in is, on average, half as far from the field as the player alone: hence
//! the 2, which the factor set holds as `formats.individual.result_scale`. (`C_k = 2` in
//! the update gives back the full rate.)

use super::{against_field, mean_of_others, Expectation};
use crate::model::error::ModelError;
use crate::model::field::sum;

/// Expected results of the players of an individual event, in input order. `field` is the
/// mean handicap of the other players.
///
/// ```
/// use bridgehcp::model::expected::individual::expected;
/// // Players 10, 20, 30: the first sees others at 25, r̂ = (25 − 10)/(2·2) = +3.75 %.
/// let e = expected(&[10.0, 20.0, 30.0], 2.0 * 2.0).unwrap();
/// assert!((e[0].expected - 3.75).abs() < 1e-12);
/// ```
///
/// `divisor` is `2·C_b` in `fsb-2007` ([`crate::model::FactorSet::expected_divisor`]).
pub fn expected(handicaps: &[f64], divisor: f64) -> Result<Vec<Expectation>, ModelError> {
    let total = sum(handicaps.iter().copied());
    against_field(handicaps, divisor, |h| {
        mean_of_others(total, handicaps.len(), h)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand computation, topscore (C_b = 2), players 0, 12, 24, 36 (mean 18):
    /// player 0:  others (12+24+36)/3 = 24, r̂ = (24 − 0)/4  = +6
    /// player 12: others (0+24+36)/3  = 20, r̂ = (20 − 12)/4 = +2
    /// player 24: others (0+12+36)/3  = 16, r̂ = (16 − 24)/4 = −2
    /// player 36: others (0+12+24)/3  = 12, r̂ = (12 − 36)/4 = −6
    #[test]
    fn four_players_by_hand() {
        let want = [(24.0, 6.0), (20.0, 2.0), (16.0, -2.0), (12.0, -6.0)];
        super::super::assert_expectations(expected(&[0.0, 12.0, 24.0, 36.0], 2.0 * 2.0), &want);
    }

    #[test]
    fn one_player_is_not_a_field() {
        assert_eq!(
            expected(&[3.0], 2.0 * 2.0),
            Err(ModelError::TooFewEntrants { found: 1 })
        );
    }
}
