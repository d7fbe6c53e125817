//! A pair in a team match whose boards are scored across the field (IMPs or topscore):
//! `r̂ = ((h^P_opp + h̄^P_same_dir) − (h^P + h̄^P_opp_dir))/C_b`.
//!
//! Across the field the pair is compared with every pair that sat in its direction (itself
//! included), but it played only its opponents at the table. So the expectation has two
//! parts: how strong the pair is against its own direction, and how weak its table
//! opponents are against the average opponent of that direction.
//!
//! Teams scored butler use the same formula, and there it is exact: each board's datum
//! is the mean N/S score of every table of the event, the pair's own included, so the
//! pair's expected IMPs against it are its edge over its direction's mean (itself
//! included) plus its opponents' deficit against the opposite direction's mean.

use super::Expectation;
use crate::model::error::ModelError;
use crate::model::field::mean;
use crate::model::Direction;

/// One pair: its handicap, the direction it sat and the pair it met at the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AcrossPair {
    pub handicap: f64,
    pub direction: Direction,
    pub opponent: usize,
}

/// Checks that every pair met another pair of the input, in the other direction, that met
/// it back.
pub fn check_opponents(pairs: &[(Option<Direction>, Option<usize>)]) -> Result<(), ModelError> {
    // Missing parts are reported before the mismatches they would cause elsewhere.
    for (entrant, (dir, opp)) in pairs.iter().enumerate() {
        if dir.is_none() {
            return Err(ModelError::MissingDirection { entrant });
        }
        if opp.is_none() {
            return Err(ModelError::MissingOpponent { entrant });
        }
    }
    for (entrant, (dir, opp)) in pairs.iter().enumerate() {
        let dir = dir.ok_or(ModelError::MissingDirection { entrant })?;
        let opponent = opp.ok_or(ModelError::MissingOpponent { entrant })?;
        let (their_dir, their_opp) = pairs.get(opponent).ok_or(ModelError::BadOpponent {
            entrant,
            opponent,
            rule: "is not an entrant of the competition",
        })?;
        if *their_opp != Some(entrant) {
            return Err(ModelError::BadOpponent {
                entrant,
                opponent,
                rule: "does not name this pair as its opponent at the table",
            });
        }
        if *their_dir != Some(dir.opposite()) {
            return Err(ModelError::BadOpponent {
                entrant,
                opponent,
                rule: "did not sit in the opposite direction",
            });
        }
    }
    Ok(())
}

/// Expected results of the pairs, in input order. `field` is
/// `h^P_opp + h̄^P_same_dir − h̄^P_opp_dir`, so that `r̂ = (field − h^P)/C_b` as for pairs.
///
/// ```
/// use bridgehcp::model::Direction::{EW, NS};
/// use bridgehcp::model::expected::team_pair_across::{expected, AcrossPair};
/// let p = |handicap, direction, opponent| AcrossPair { handicap, direction, opponent };
/// let pairs = [p(10.0, NS, 2), p(20.0, NS, 3), p(30.0, EW, 0), p(16.0, EW, 1)];
/// let e = expected(&pairs, 2.0).unwrap();
/// assert!((e[0].expected - 6.0).abs() < 1e-12);
/// ```
pub fn expected(pairs: &[AcrossPair], c_b: f64) -> Result<Vec<Expectation>, ModelError> {
    if pairs.len() < 2 {
        return Err(ModelError::TooFewEntrants { found: pairs.len() });
    }
    let shape: Vec<(Option<Direction>, Option<usize>)> = pairs
        .iter()
        .map(|p| (Some(p.direction), Some(p.opponent)))
        .collect();
    check_opponents(&shape)?;
    let direction_mean = |d: Direction| {
        mean(
            pairs
                .iter()
                .filter(|p| p.direction == d)
                .map(|p| p.handicap),
        )
        .unwrap_or(0.0)
    };
    let ns = direction_mean(Direction::NS);
    let ew = direction_mean(Direction::EW);
    pairs
        .iter()
        .enumerate()
        .map(|(entrant, p)| {
            let opp = pairs.get(p.opponent).ok_or(ModelError::BadOpponent {
                entrant,
                opponent: p.opponent,
                rule: "is not an entrant of the competition",
            })?;
            let (same, other) = match p.direction {
                Direction::NS => (ns, ew),
                Direction::EW => (ew, ns),
            };
            let field = opp.handicap + same - other;
            Ok(Expectation {
                field,
                expected: (field - p.handicap) / c_b,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Direction::{EW, NS};

    /// Hand computation, topscore (C_b = 2). Team A: pair A1 (10) NS at table 1, pair A2
    /// (16) EW at table 2. Team B: B1 (20) NS at table 2, B2 (30) EW at table 1.
    /// h̄_NS = (10 + 20)/2 = 15, h̄_EW = (30 + 16)/2 = 23.
    /// A1: ((30 + 15) − (10 + 23))/2 = +6;  B1: ((16 + 15) − (20 + 23))/2 = −6;
    /// B2: ((10 + 23) − (30 + 15))/2 = −6;  A2: ((20 + 23) − (16 + 15))/2 = +6.
    #[test]
    fn two_tables_by_hand() {
        let p = |handicap, direction, opponent| AcrossPair {
            handicap,
            direction,
            opponent,
        };
        let pairs = [
            p(10.0, NS, 2),
            p(20.0, NS, 3),
            p(30.0, EW, 0),
            p(16.0, EW, 1),
        ];
        let e = match expected(&pairs, 2.0) {
            Ok(e) => e,
            Err(err) => panic!("{err}"),
        };
        for (got, r) in e.iter().zip([6.0, -6.0, -6.0, 6.0]) {
            assert!((got.expected - r).abs() < 1e-12, "{got:?} vs {r}");
        }
        // A1's field: 30 + 15 − 23 = 22.
        assert!((e[0].field - 22.0).abs() < 1e-12);
    }

    proptest::proptest! {
        /// Each table pairs one NS with one EW pair, so the expected results of a complete
        /// field sum to zero: Σ h_opp = Σ h, and the direction terms cancel.
        #[test]
        fn expected_results_sum_to_zero(
            hs in proptest::collection::vec((-10.0f64..52.0, -10.0f64..52.0), 1..12)
        ) {
            let n = hs.len();
            let mut pairs = Vec::new();
            for (i, (ns, _)) in hs.iter().enumerate() {
                pairs.push(AcrossPair { handicap: *ns, direction: NS, opponent: n + i });
            }
            for (i, (_, ew)) in hs.iter().enumerate() {
                pairs.push(AcrossPair { handicap: *ew, direction: EW, opponent: i });
            }
            let e = expected(&pairs, 12.0)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            let total = crate::model::field::sum(e.iter().map(|x| x.expected));
            proptest::prop_assert!(total.abs() < 1e-9);
        }
    }

    #[test]
    fn opponents_must_sit_the_other_way() {
        let shape = [(Some(NS), Some(1)), (Some(NS), Some(0))];
        assert!(matches!(
            check_opponents(&shape),
            Err(ModelError::BadOpponent {
                entrant: 0,
                opponent: 1,
                ..
            })
        ));
        let shape = [(None, Some(1)), (Some(EW), Some(0))];
        assert_eq!(
            check_opponents(&shape),
            Err(ModelError::MissingDirection { entrant: 0 })
        );
    }
}
