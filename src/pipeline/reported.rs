//! Results a club reported as totals, beside or instead of board rows.
//!
//! A competition may come as reported results only (no board rows): its standings are
//! then ranked from those totals, the same way scoring ranks its own. When a club sent
//! both (an importer writes what the program published beside the board rows), they
//! must be results of the same entrants over the same boards; their scores may differ
//! (a program's convention the federation does not reproduce), and which of the two is
//! rated is the run's setting (`Rate`): by default the published one, the club's
//! official result. The importer reports such a session as `mismatch`.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use crate::dataset::{Competition, Direction, Entrant, EntrantResult, Format, ScoringMethod};
use crate::error::InputError;
use crate::scoring::conventions::ByeScore;
use crate::scoring::standings::shared_ranks;
use crate::scoring::{self, Standing};

/// How far a reported figure may be from the pipeline's own scoring and still be the
/// same result: the clubs publish percentages to two decimals and IMPs to at most two.
const REPORTED_TOLERANCE: f64 = 0.005 + 1e-9;

/// Whether any reported score differs from the board rows' beyond the published
/// precision. When none does, the two are one result, and the exact one is rated
/// whichever the run chose.
pub(super) fn differs(reported: &[&EntrantResult], scored: &[EntrantResult]) -> bool {
    let scored: HashMap<&str, f64> = scored
        .iter()
        .map(|r| (r.entrant.as_str(), r.score))
        .collect();
    reported.iter().any(|row| {
        scored
            .get(row.entrant.as_str())
            .is_none_or(|ours| (ours - row.score).abs() > REPORTED_TOLERANCE)
    })
}

pub(super) fn check_reported(
    competition: &Competition,
    reported: &[&EntrantResult],
    scored: &[EntrantResult],
) -> Result<(), InputError> {
    let scored: HashMap<&str, &EntrantResult> =
        scored.iter().map(|r| (r.entrant.as_str(), r)).collect();
    for row in reported {
        let at = || {
            row.origin
                .location()
                .competition(&competition.competition_id)
        };
        let Some(ours) = scored.get(row.entrant.as_str()) else {
            return Err(InputError::new(
                at().column("entrant"),
                format!("entrant `{}` has a result but no board rows", row.entrant),
            ));
        };
        if ours.boards_played != row.boards_played {
            return Err(InputError::new(
                at().column("boards_played"),
                format!(
                    "reported boards_played {} for entrant `{}` does not match the board rows ({})",
                    row.boards_played, row.entrant, ours.boards_played
                ),
            ));
        }
    }
    Ok(())
}

/// Standings of a competition reported as results only: ranked by score with shared
/// ranks, per direction when every entrant sat in a fixed direction (a Mitchell with
/// two winners), else all together. Ordered by direction, rank, then entrant.
pub fn standings_from_results(
    competition: &Competition,
    entrants: &[&Entrant],
    results: &[EntrantResult],
) -> Vec<Standing> {
    let direction_of: HashMap<&str, Option<Direction>> = entrants
        .iter()
        .map(|e| (e.entrant.as_str(), e.direction))
        .collect();
    let fixed_directions = competition.format == Format::Pairs
        && !results.is_empty()
        && results.iter().all(|r| {
            direction_of
                .get(r.entrant.as_str())
                .copied()
                .flatten()
                .is_some()
        });
    // A Swiss pairs event's house pair takes no place: it is listed after the others.
    let house: Vec<&str> = entrants
        .iter()
        .filter(|e| e.house && competition.scoring == ScoringMethod::SwissPairs)
        .map(|e| e.entrant.as_str())
        .collect();
    let (placed, unplaced): (Vec<&EntrantResult>, Vec<&EntrantResult>) = results
        .iter()
        .partition(|r| !house.contains(&r.entrant.as_str()));
    let mut standings = standings_of(competition, &direction_of, fixed_directions, &placed);
    for r in unplaced {
        let mut s = Standing::new(
            &competition.competition_id,
            &r.entrant,
            r.score,
            r.boards_played,
        );
        s.house = true;
        standings.push(s);
    }
    standings
}

/// The placed entrants' standings of [`standings_from_results`].
fn standings_of(
    competition: &Competition,
    direction_of: &HashMap<&str, Option<Direction>>,
    fixed_directions: bool,
    results: &[&EntrantResult],
) -> Vec<Standing> {
    let mut groups: BTreeMap<Option<Direction>, Vec<&EntrantResult>> = BTreeMap::new();
    for &result in results {
        let direction = if fixed_directions {
            direction_of.get(result.entrant.as_str()).copied().flatten()
        } else {
            None
        };
        groups.entry(direction).or_default().push(result);
    }
    let mut standings = Vec::with_capacity(results.len());
    for (direction, mut group) in groups {
        group.sort_by(|a, b| scoring::entrant_order(&a.entrant, &b.entrant));
        // Matchpoint scores are percentages already; IMP totals over different numbers
        // of boards are compared per board when the byes are skipped (as in scoring).
        let per_board = competition.scoring != ScoringMethod::Matchpoints
            && competition.conventions.bye_score == ByeScore::Skip
            && group
                .windows(2)
                .any(|w| w[0].boards_played != w[1].boards_played);
        let totals: Vec<f64> = group
            .iter()
            .map(|r| {
                if per_board {
                    r.score / f64::from(r.boards_played.max(1))
                } else {
                    r.score
                }
            })
            .collect();
        let ranks = shared_ranks(&totals);
        let mut rows: Vec<Standing> = group
            .iter()
            .zip(ranks)
            .map(|(r, rank)| Standing {
                percent: (competition.scoring == ScoringMethod::Matchpoints).then_some(r.score),
                rank,
                direction,
                ..Standing::new(
                    &competition.competition_id,
                    &r.entrant,
                    r.score,
                    r.boards_played,
                )
            })
            .collect();
        rows.sort_by(|a, b| {
            a.rank
                .cmp(&b.rank)
                .then_with(|| scoring::entrant_order(&a.entrant, &b.entrant))
        });
        standings.extend(rows);
    }
    if competition.scoring == ScoringMethod::TeamImps {
        let boards = competition
            .boards
            .unwrap_or_else(|| results.iter().map(|r| r.boards_played).max().unwrap_or(0));
        scoring::team_match_vps(&mut standings, boards);
    }
    standings
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;

    /// A Swiss pairs event reported as IMP totals only: ranked by IMPs (no match is
    /// known, so no VPs), the house pair listed last without a place.
    #[test]
    fn reported_swiss_pairs_leave_the_house_pair_unplaced() {
        let date = NaiveDate::from_ymd_opt(2026, 3, 7).unwrap_or_default();
        let competition = Competition::new("sp", date, Format::Pairs, ScoringMethod::SwissPairs);
        let mut entrants: Vec<Entrant> =
            (1..=4).map(|p| Entrant::new("sp", p.to_string())).collect();
        entrants[0].house = true;
        let refs: Vec<&Entrant> = entrants.iter().collect();
        let results: Vec<EntrantResult> = [(1, 30.0), (2, 12.0), (3, -2.0), (4, -40.0)]
            .iter()
            .map(|&(p, score)| EntrantResult {
                competition_id: "sp".into(),
                entrant: p.to_string(),
                boards_played: 56,
                score,
                opponent: None,
                origin: Default::default(),
            })
            .collect();
        let standings = standings_from_results(&competition, &refs, &results);
        let got: Vec<(&str, u32, bool)> = standings
            .iter()
            .map(|s| (s.entrant.as_str(), s.rank, s.house))
            .collect();
        assert_eq!(
            got,
            vec![
                ("2", 1, false),
                ("3", 2, false),
                ("4", 3, false),
                ("1", 0, true)
            ]
        );
    }
}
