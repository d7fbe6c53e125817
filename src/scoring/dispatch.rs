//! The two choices that depend on the competition: how a board is scored (by scoring
//! method, with the competition's conventions) and how boards add up to standings (by
//! format: one team match, the four- or five-pair movement, or a field).

use crate::dataset::{Competition, EntrantResult, Format, ScoringMethod};
use crate::error::{InputError, Location};

use super::conventions::{Conventions, FactoredRounding, Travellers};
use super::matchpoints::SidePoints;
use super::outcome::Outcome;
use super::rows::Standing;
use super::tables::{BoardPoints, Entrants, Table};
use super::{butler, cross_imps, field, four_five, matchpoints, swiss, team};

/// Standings and the model's results from the scored tables, by format.
pub(super) fn totals(
    competition: &Competition,
    known: &Entrants<'_>,
    tables: &[Table<'_>],
    points: &[BoardPoints],
) -> Result<(Vec<Standing>, Vec<EntrantResult>), InputError> {
    let teams = competition.format == Format::Teams || known.iter().any(|(_, e)| e.team.is_some());
    if let Some(scale) = &competition.vp_scale {
        let four_five = competition.scoring == ScoringMethod::TeamImps && !teams;
        let rule = if !four_five {
            Some(format!(
                "vp_scale `{}` is for a four- or five-pair event (scoring `team_imps`, pairs, no teams)",
                scale.name
            ))
        } else if scale.table.is_none() {
            Some(format!("vp_scale `{}` has not been read", scale.name))
        } else {
            None
        };
        if let Some(rule) = rule {
            return Err(InputError::new(
                competition.location().column("vp_scale"),
                rule,
            ));
        }
    }
    Ok(match (competition.scoring, teams) {
        (ScoringMethod::TeamImps, true) => {
            team::team_standings(competition, &known.map(), tables, points)?
        }
        (ScoringMethod::TeamImps, false) => {
            four_five::four_five_standings(competition, known, tables, points)
        }
        (ScoringMethod::SwissPairs, _) => {
            swiss::swiss_standings(competition, &known.map(), tables, points)?
        }
        _ => field::field_standings(competition, known, tables, points),
    })
}

/// What scoring one board needs besides its tables, kept from board to board so that
/// a competition's boards are scored without allocating.
#[derive(Debug, Default)]
pub(super) struct BoardScratch {
    board: matchpoints::BoardScratch,
    sides: Vec<SidePoints>,
}

/// Scores one board, appending each table's points to `out`.
pub(super) fn score_board(
    competition: &Competition,
    indices: &[usize],
    tables: &[Table<'_>],
    outcomes: &[Outcome],
    expected: usize,
    scratch: &mut BoardScratch,
    out: &mut Vec<BoardPoints>,
) -> Result<(), InputError> {
    let conventions = &competition.conventions;
    match competition.scoring {
        ScoringMethod::Matchpoints => {
            matchpoint_board(conventions, outcomes, expected, scratch, out);
        }
        ScoringMethod::CrossImps => out.extend(
            cross_imps::score_board(
                outcomes,
                expected,
                conventions.imp_aggregate,
                conventions.artificial_imps,
            )
            .into_iter()
            .map(plain),
        ),
        ScoringMethod::Butler | ScoringMethod::SwissPairs => {
            let (datum, sides) = butler::score_board(
                outcomes,
                conventions.datum_trim,
                conventions.datum_rounding,
                conventions.artificial_imps,
            );
            out.extend(sides.into_iter().map(|side| BoardPoints {
                datum,
                ..plain(side)
            }));
        }
        ScoringMethod::TeamImps => team_board(indices, tables, out)?,
    }
    Ok(())
}

/// A table's points as scored, shown and counted alike, with no range and no datum.
fn plain(side: SidePoints) -> BoardPoints {
    BoardPoints {
        side,
        shown: side,
        counted: None,
        top: 0.0,
        bottom: 0.0,
        datum: None,
    }
}

/// A matchpoint board: the points, those the traveller shows, and the points counted
/// where a factored board rounds them.
fn matchpoint_board(
    conventions: &Conventions,
    outcomes: &[Outcome],
    expected: usize,
    scratch: &mut BoardScratch,
    out: &mut Vec<BoardPoints>,
) {
    scratch.sides.clear();
    let (top, bottom) = matchpoints::score_board_into(
        outcomes,
        expected,
        conventions.mp_scale,
        conventions.neuberg,
        &mut scratch.board,
        &mut scratch.sides,
    );
    let real = outcomes.iter().filter(|o| o.score().is_some()).count();
    let factored = conventions.neuberg && real < expected.max(outcomes.len());
    let range = top - bottom;
    let rounds = factored
        && range > 0.0
        && conventions.factored_rounding == FactoredRounding::PercentHundredths;
    // To a hundredth of a percent of the board's range, then to a hundredth of a
    // matchpoint, halves to even as Compscore rounds (18.25 % of 18 is 3.285,
    // which it adds as 3.28).
    let round = |points: f64| {
        let percent = matchpoints::half_even((points - bottom) / range * 1e4) / 1e2;
        matchpoints::half_even((bottom + percent / 100.0 * range) * 1e2) / 1e2
    };
    // Compscore prints a board played fewer times unfactored, but one with an
    // artificial score factored: five results around an `A5050` on a board of
    // six show 0.2, 2.6, 5.0, 7.4, 9.8 and 5.0 (half the full top of 10).
    let artificial = outcomes
        .iter()
        .any(|o| o.artificial_shares() != (None, None));
    let unfactored = match conventions.travellers {
        Travellers::Unfactored if artificial => None,
        Travellers::Factored => None,
        Travellers::Unfactored => {
            Some(matchpoints::score_board(outcomes, expected, conventions.mp_scale, false).points)
        }
    };
    out.extend(scratch.sides.iter().enumerate().map(|(at, &side)| {
        BoardPoints {
            side,
            shown: unfactored
                .as_ref()
                .and_then(|points| points.get(at).copied())
                .unwrap_or(side),
            counted: rounds.then(|| SidePoints {
                ns: round(side.ns),
                ew: round(side.ew),
            }),
            top,
            bottom,
            datum: None,
        }
    }));
}

/// A team match's board: the two rooms' results against each other.
fn team_board(
    indices: &[usize],
    tables: &[Table<'_>],
    out: &mut Vec<BoardPoints>,
) -> Result<(), InputError> {
    let [first, second] = indices else {
        let table = indices.first().map(|&i| &tables[i]);
        return Err(InputError::new(
            table.map_or_else(Location::default, |t| t.location("")),
            format!(
                "a team_imps board needs exactly two results (one per room or table), found {}",
                indices.len()
            ),
        ));
    };
    for (this, other) in [(first, second), (second, first)] {
        let (Outcome::Score(a), Outcome::Score(b)) =
            (tables[*this].outcome, tables[*other].outcome)
        else {
            return Err(InputError::new(
                tables[*this].location("adjusted"),
                "artificial scores are not supported in team_imps scoring",
            ));
        };
        let ns = f64::from(team::board_imps(a, b));
        out.push(plain(SidePoints { ns, ew: -ns }));
    }
    Ok(())
}
