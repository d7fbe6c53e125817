//! Matchpoints, cross-IMPs and butler: every entrant's total against the field, scaled
//! for the boards it missed as its program scales them, ranked (per direction in a
//! Mitchell) with the competition's tie-breaks.

use std::collections::{BTreeMap, BTreeSet};

use crate::dataset::{Competition, Direction, EntrantResult, Format, ScoringMethod};

use super::conventions::ByeScore;
use super::matchpoints;
use super::rows::{field_result, Standing};
use super::standings::{assign_ranks_placed, Play, TieBreakInput};
use super::tables::{BoardPoints, Entrants, Table};

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

/// One entrant's totals against the field, kept by position in [`Entrants`].
#[derive(Default, Clone, Copy)]
pub(super) struct FieldTally {
    pub points: f64,
    counted: f64,
    penalty: f64,
    top: f64,
    bottom: f64,
    /// Distinct boards played. The tables come sorted by board, so an entrant's boards
    /// arrive in order and a new one is one that differs from the last.
    pub boards: usize,
    last_board: Option<u32>,
    /// Bit 1: played N/S; bit 2: played E/W.
    directions: u8,
}

impl FieldTally {
    const BOTH: [(u8, Direction); 2] = [(1, Direction::NS), (2, Direction::EW)];

    /// Whether it sat at any table.
    pub fn seated(&self) -> bool {
        self.directions != 0
    }

    /// The direction it played in, when only one (as the first of a set of directions).
    fn first_direction(&self) -> Option<Direction> {
        Self::BOTH
            .iter()
            .find(|(bit, _)| self.directions & bit != 0)
            .map(|&(_, direction)| direction)
    }

    fn direction_count(&self) -> u32 {
        self.directions.count_ones()
    }
}

/// Every entrant's totals, by position in [`Entrants`], for tables sorted by board (as
/// [`super::competition::score_competition`] sorts them): positions instead of names
/// keep the per-table work to indexing a vector.
pub(super) fn field_tally(
    entrants: usize,
    tables: &[Table<'_>],
    points: &[BoardPoints],
) -> Vec<FieldTally> {
    let mut tallies = vec![FieldTally::default(); entrants];
    for (t, p) in tables.iter().zip(points) {
        for (seats, direction, value, counted, penalty) in [
            (
                &t.ns_at,
                1u8,
                p.side.ns,
                p.counted.map_or(p.side.ns, |c| c.ns),
                t.row.ns_penalty,
            ),
            (
                &t.ew_at,
                2u8,
                p.side.ew,
                p.counted.map_or(p.side.ew, |c| c.ew),
                t.row.ew_penalty,
            ),
        ] {
            for &at in seats {
                let Some(entry) = tallies.get_mut(at as usize) else {
                    continue;
                };
                entry.points += value;
                entry.counted += counted;
                entry.penalty += penalty.unwrap_or(0.0);
                entry.top += p.top;
                entry.bottom += p.bottom;
                if entry.last_board != Some(t.row.board) {
                    entry.boards += 1;
                    entry.last_board = Some(t.row.board);
                }
                entry.directions |= direction;
            }
        }
    }
    tallies
}

/// Matchpoints, cross-IMPs and butler: every entrant against the field.
pub(super) fn field_standings(
    competition: &Competition,
    known: &Entrants<'_>,
    tables: &[Table<'_>],
    points: &[BoardPoints],
) -> (Vec<Standing>, Vec<EntrantResult>) {
    let all = field_tally(known.len(), tables, points);
    // The entrants that sat at a table, by position (names in byte order).
    let tallies: Vec<(u32, &FieldTally)> = (0..).zip(&all).filter(|(_, t)| t.seated()).collect();
    let is_mp = competition.scoring == ScoringMethod::Matchpoints;
    let mut standings = scaled_standings(competition, known, &tallies);
    // Each row's entrant is known by position: its place in entrant order sorts the
    // rows and the results without comparing names.
    let places: Vec<u32> = tallies.iter().map(|&(at, _)| known.rank(at)).collect();
    let before = rank_field(competition, tables, points, &mut standings, &places);

    // Results in entrant order.
    let mut ordered: Vec<(u32, u32, &Standing)> = before
        .iter()
        .zip(&standings)
        .filter_map(|(&i, s)| Some((*places.get(i)?, tallies.get(i)?.0, s)))
        .collect();
    ordered.sort_by_key(|&(place, _, _)| place);
    let results = ordered
        .into_iter()
        .map(|(_, at, s)| {
            let score = if is_mp {
                s.percent.unwrap_or(50.0)
            } else {
                all.get(at as usize).map_or(0.0, |t| t.points)
            };
            field_result(competition, s.entrant.clone(), s.boards_played, score)
        })
        .collect();
    (standings, results)
}

/// Each seated entrant's standing, its score scaled to the boards its bye rule counts,
/// not yet ranked.
fn scaled_standings(
    competition: &Competition,
    known: &Entrants<'_>,
    tallies: &[(u32, &FieldTally)],
) -> Vec<Standing> {
    let id = &competition.competition_id;
    let full = tallies.iter().map(|(_, t)| t.boards).max().unwrap_or(0);
    let directions = tallies.iter().fold(0u8, |bits, (_, t)| bits | t.directions);
    let fixed = competition.format != Format::Individual
        && tallies.iter().all(|(_, t)| t.direction_count() == 1)
        && directions == 3;
    let is_mp = competition.scoring == ScoringMethod::Matchpoints;
    let group = |t: &FieldTally| match t.direction_count() {
        1 => t.first_direction(),
        _ => None,
    };
    let mut most_in_group: BTreeMap<Option<Direction>, usize> = BTreeMap::new();
    for (_, t) in tallies {
        let most = most_in_group.entry(group(t)).or_insert(0);
        *most = (*most).max(t.boards);
    }
    tallies
        .iter()
        .map(|&(at, t)| {
            let name = known.name(at);
            let played = t.boards;
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
                standing.direction = t.first_direction();
            }
            standing
        })
        .collect()
}

/// Ranks and orders the standings, breaking ties as the competition's conventions say;
/// returns each row's index before the ordering.
fn rank_field(
    competition: &Competition,
    tables: &[Table<'_>],
    points: &[BoardPoints],
    standings: &mut Vec<Standing>,
    places: &[u32],
) -> Vec<usize> {
    let is_mp = competition.scoring == ScoringMethod::Matchpoints;
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
    let key: &dyn Fn(&Standing) -> f64 = if unequal {
        &rate_of_play
    } else {
        &|s: &Standing| s.score
    };
    assign_ranks_placed(standings, key, tie_input.as_ref(), places)
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
