//! Matchpoints, cross-IMPs and butler: every entrant's total against the field, scaled
//! for the boards it missed as its program scales them, ranked (per direction in a
//! Mitchell) with the competition's tie-breaks.

use std::collections::{BTreeMap, BTreeSet};

use crate::dataset::{Competition, Direction, EntrantResult, Format, ScoringMethod};

use super::conventions::ByeScore;
use super::matchpoints;
use super::rows::{sorted_results, Standing};
use super::standings::{assign_ranks, assign_ranks_by, Play, TieBreakInput};
use super::tables::{BoardPoints, Table};

/// Per-entrant totals.
#[derive(Default)]
pub(super) struct Tally {
    pub points: f64,
    /// What the total adds: `points`, or the program's rounding of them.
    counted: f64,
    /// Director's penalties and compensations, outside the comparisons.
    penalty: f64,
    top: f64,
    bottom: f64,
    pub boards: BTreeSet<u32>,
    directions: BTreeSet<Direction>,
}

pub(super) fn tally(tables: &[Table<'_>], points: &[BoardPoints]) -> BTreeMap<String, Tally> {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for (t, p) in tables.iter().zip(points) {
        for (names, direction, value, counted, penalty) in [
            (
                &t.ns,
                Direction::NS,
                p.side.ns,
                p.counted.map_or(p.side.ns, |c| c.ns),
                t.row.ns_penalty,
            ),
            (
                &t.ew,
                Direction::EW,
                p.side.ew,
                p.counted.map_or(p.side.ew, |c| c.ew),
                t.row.ew_penalty,
            ),
        ] {
            for name in names {
                // A name is copied once per entrant, not once per table it sat at.
                if !tallies.contains_key(*name) {
                    tallies.insert(name.to_string(), Tally::default());
                }
                let Some(entry) = tallies.get_mut(*name) else {
                    continue;
                };
                entry.points += value;
                entry.counted += counted;
                entry.penalty += penalty.unwrap_or(0.0);
                entry.top += p.top;
                entry.bottom += p.bottom;
                entry.boards.insert(t.row.board);
                entry.directions.insert(direction);
            }
        }
    }
    tallies
}

/// Each entrant's result in every session of a multi-session event (board rows naming
/// two or more `session`s), in session order: the percentage for matchpoints, the points
/// per board otherwise. Empty for a single session, so the `session` tie-break passes.
fn session_results(
    tables: &[Table<'_>],
    points: &[BoardPoints],
    is_mp: bool,
) -> BTreeMap<String, Vec<f64>> {
    let numbers: BTreeSet<Option<u32>> = tables.iter().map(|t| t.row.session).collect();
    if numbers.len() < 2 {
        return BTreeMap::new();
    }
    #[derive(Default)]
    struct SessionSum {
        points: f64,
        bottom: f64,
        top: f64,
        boards: u32,
    }
    let mut sums: BTreeMap<(&str, Option<u32>), SessionSum> = BTreeMap::new();
    for (t, p) in tables.iter().zip(points) {
        for (names, value) in [(&t.ns, p.side.ns), (&t.ew, p.side.ew)] {
            for name in names {
                let entry = sums.entry((*name, t.row.session)).or_default();
                entry.points += value;
                entry.bottom += p.bottom;
                entry.top += p.top;
                entry.boards += 1;
            }
        }
    }
    let mut out: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for ((name, _), sum) in sums {
        let result = if is_mp {
            matchpoints::percent(sum.points, sum.bottom, sum.top).unwrap_or(50.0)
        } else {
            sum.points / f64::from(sum.boards.max(1))
        };
        out.entry(name.to_string()).or_default().push(result);
    }
    out
}

/// Matchpoints, cross-IMPs and butler: every entrant against the field.
pub(super) fn field_standings(
    competition: &Competition,
    tables: &[Table<'_>],
    points: &[BoardPoints],
) -> (Vec<Standing>, Vec<EntrantResult>) {
    let id = &competition.competition_id;
    let tallies = tally(tables, points);
    let full = tallies.values().map(|t| t.boards.len()).max().unwrap_or(0);
    let fixed = competition.format != Format::Individual
        && tallies.values().all(|t| t.directions.len() == 1)
        && tallies
            .values()
            .flat_map(|t| t.directions.iter())
            .collect::<BTreeSet<_>>()
            .len()
            == 2;
    let is_mp = competition.scoring == ScoringMethod::Matchpoints;
    let group = |t: &Tally| match (t.directions.first(), t.directions.len()) {
        (Some(&direction), 1) => Some(direction),
        _ => None,
    };
    let mut most_in_group: BTreeMap<Option<Direction>, usize> = BTreeMap::new();
    for t in tallies.values() {
        let most = most_in_group.entry(group(t)).or_insert(0);
        *most = (*most).max(t.boards.len());
    }
    let mut standings: Vec<Standing> = tallies
        .iter()
        .map(|(name, t)| {
            let played = t.boards.len();
            let scaled_to = match competition.conventions.bye_score {
                ByeScore::Skip => played,
                // Every pair of a Howell with an odd number of pairs sits out once, so
                // the most boards played can fall short of the session's boards.
                ByeScore::SessionAverage => {
                    competition.boards.map_or(full, |b| full.max(b as usize))
                }
                ByeScore::MostInDirection => {
                    most_in_group.get(&group(t)).copied().unwrap_or(played)
                }
            };
            let factor = if played > 0 {
                scaled_to as f64 / played as f64
            } else {
                1.0
            };
            let score = t.counted * factor + t.penalty;
            let mut standing = Standing::new(id, name, score, played as u32);
            if is_mp {
                let exact = t.points * factor + t.penalty;
                standing.percent = matchpoints::percent(exact, t.bottom * factor, t.top * factor);
            }
            if fixed {
                standing.direction = t.directions.first().copied();
            }
            standing
        })
        .collect();

    // The plays and the session results only break ties: a competition that breaks
    // none (the default) does not build them.
    let tie_break = competition.conventions.tie_break;
    let plays: Vec<Play> = if tie_break.is_off() {
        Vec::new()
    } else {
        plays(tables, points)
    };
    let sessions = if tie_break.is_off() {
        BTreeMap::new()
    } else {
        session_results(tables, points, is_mp)
    };
    let tie_input = (!tie_break.is_off()).then(|| TieBreakInput {
        plays: &plays,
        sessions: &sessions,
        config: tie_break,
    });
    // Scored over the boards played only (`skip`), totals of pairs that played different
    // numbers of boards cannot be compared: rank by percentage (matchpoints) or by the
    // average per board (IMPs) instead.
    let unequal = competition.conventions.bye_score == ByeScore::Skip
        && standings
            .windows(2)
            .any(|w| w[0].boards_played != w[1].boards_played);
    if unequal {
        assign_ranks_by(&mut standings, &rate_of_play, tie_input.as_ref());
    } else {
        assign_ranks(&mut standings, tie_input.as_ref());
    }

    let results = standings
        .iter()
        .map(|s| EntrantResult {
            competition_id: id.clone(),
            entrant: s.entrant.clone(),
            boards_played: s.boards_played,
            score: if is_mp {
                s.percent.unwrap_or(50.0)
            } else {
                tallies.get(&s.entrant).map_or(0.0, |t| t.points)
            },
            opponent: None,
            origin: competition.origin.clone(),
        })
        .collect();
    (standings, sorted_results(results))
}

/// Every entrant's play of every board, for the tie-breaks.
fn plays(tables: &[Table<'_>], points: &[BoardPoints]) -> Vec<Play> {
    let owned = |names: &[&str]| names.iter().map(|name| name.to_string()).collect();
    tables
        .iter()
        .zip(points)
        .flat_map(|(t, p)| {
            let ns_score = t.outcome.score();
            let ns = t.ns.iter().map(move |name| Play {
                board: t.row.board,
                entrant: name.to_string(),
                direction: Direction::NS,
                own_score: ns_score,
                points: p.side.ns,
                top: p.top,
                bottom: p.bottom,
                opponents: owned(&t.ew),
            });
            let ew = t.ew.iter().map(move |name| Play {
                board: t.row.board,
                entrant: name.to_string(),
                direction: Direction::EW,
                own_score: ns_score.map(|s| -s),
                points: p.side.ew,
                top: p.top,
                bottom: p.bottom,
                opponents: owned(&t.ns),
            });
            ns.chain(ew)
        })
        .collect()
}

/// A standing's percentage, or its score per board played when it has none.
fn rate_of_play(s: &Standing) -> f64 {
    s.percent
        .unwrap_or_else(|| s.score / f64::from(s.boards_played.max(1)))
}
