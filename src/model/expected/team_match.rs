//! A team match rated on its own (a match or a half):
//! `r̂ = ((h^P_f1f2 + h^P_f3f4) − (h^P_own1 + h^P_own2))/C_b`.
//!
//! The result is the team's net IMPs per board, and both of its pairs contribute to it, so
//! the expectation is a sum over the two pairs of each team rather than a mean.

use super::Expectation;
use crate::model::error::ModelError;

/// One team in a match: its two pair handicaps (players 1+2 and 3+4) and the index of the
/// team it played.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TeamSide {
    pub pairs: [f64; 2],
    pub opponent: usize,
}

/// Checks that every team's opponent is another team of the input that played it back.
pub fn check_opponents(opponents: &[Option<usize>]) -> Result<(), ModelError> {
    // A missing opponent is reported before a mismatch it would cause elsewhere.
    if let Some(entrant) = opponents.iter().position(Option::is_none) {
        return Err(ModelError::MissingOpponent { entrant });
    }
    for (entrant, opp) in opponents.iter().enumerate() {
        let opponent = opp.ok_or(ModelError::MissingOpponent { entrant })?;
        let back = opponents.get(opponent).ok_or(ModelError::BadOpponent {
            entrant,
            opponent,
            rule: "is not an entrant of the competition",
        })?;
        if opponent == entrant {
            return Err(ModelError::BadOpponent {
                entrant,
                opponent,
                rule: "is the entrant itself",
            });
        }
        if *back != Some(entrant) {
            return Err(ModelError::BadOpponent {
                entrant,
                opponent,
                rule: "does not name this entrant as its opponent",
            });
        }
    }
    Ok(())
}

/// Expected net IMPs per board of each team, in input order. `field` is the opposing
/// team's handicap `h^L` (the mean of its two pair handicaps, i.e. of its four players).
///
/// ```
/// use bridgehcp::model::expected::team_match::{expected, TeamSide};
/// let teams = [
///     TeamSide { pairs: [10.0, 20.0], opponent: 1 },
///     TeamSide { pairs: [16.0, 30.0], opponent: 0 },
/// ];
/// let e = expected(&teams, 12.0).unwrap();
/// assert!((e[0].expected - 16.0 / 12.0).abs() < 1e-12);
/// ```
pub fn expected(teams: &[TeamSide], c_b: f64) -> Result<Vec<Expectation>, ModelError> {
    if teams.len() < 2 {
        return Err(ModelError::TooFewEntrants { found: teams.len() });
    }
    let opponents: Vec<Option<usize>> = teams.iter().map(|t| Some(t.opponent)).collect();
    check_opponents(&opponents)?;
    teams
        .iter()
        .enumerate()
        .map(|(entrant, team)| {
            let opp = teams.get(team.opponent).ok_or(ModelError::BadOpponent {
                entrant,
                opponent: team.opponent,
                rule: "is not an entrant of the competition",
            })?;
            let theirs = opp.pairs[0] + opp.pairs[1];
            let ours = team.pairs[0] + team.pairs[1];
            Ok(Expectation {
                field: theirs / 2.0,
                expected: (theirs - ours) / c_b,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand computation, IMPs (C_b = 12). Team A: pairs 10 and 20; team B: pairs 16 and 30.
    /// r̂_A = ((16 + 30) − (10 + 20))/12 = 16/12 = +1.3333 IMP/board, r̂_B = −1.3333.
    /// The field of A is B's team handicap (16 + 30)/2 = 23, of B it is 15.
    #[test]
    fn one_match_by_hand() {
        let teams = [
            TeamSide {
                pairs: [10.0, 20.0],
                opponent: 1,
            },
            TeamSide {
                pairs: [16.0, 30.0],
                opponent: 0,
            },
        ];
        let e = match expected(&teams, 12.0) {
            Ok(e) => e,
            Err(err) => panic!("{err}"),
        };
        assert!((e[0].expected - 4.0 / 3.0).abs() < 1e-12);
        assert!((e[1].expected + 4.0 / 3.0).abs() < 1e-12);
        assert!((e[0].field - 23.0).abs() < 1e-12);
        assert!((e[1].field - 15.0).abs() < 1e-12);
    }

    #[test]
    fn opponents_must_be_mutual_and_present() {
        assert_eq!(
            check_opponents(&[Some(1), None]),
            Err(ModelError::MissingOpponent { entrant: 1 })
        );
        assert!(matches!(
            check_opponents(&[Some(5), Some(0)]),
            Err(ModelError::BadOpponent {
                entrant: 0,
                opponent: 5,
                ..
            })
        ));
        assert!(matches!(
            check_opponents(&[Some(0), Some(0)]),
            Err(ModelError::BadOpponent {
                entrant: 0,
                opponent: 0,
                ..
            })
        ));
        assert!(matches!(
            check_opponents(&[Some(1), Some(2), Some(1)]),
            Err(ModelError::BadOpponent {
                entrant: 0,
                opponent: 1,
                ..
            })
        ));
    }
}
