//! Scoring: table results to competition results, exactly as club programs do it.
//!
//! The handicap model needs each entrant's result in a known unit, and the federation
//! needs to reproduce what its clubs published. So every scoring method is a pure
//! function of the table results and of the competition's recorded [`Conventions`], and
//! [`score_competition`] is the one entry point that picks the method, validates every
//! row (a wrong score must not silently move a matchpoint) and returns rows in a fixed
//! order, whatever the order of the input.
//!
//! Individual events name each seat's entrant (`north`, `south`, `east`, `west`); in
//! [`BoardScore`] the two players of a side are written `"N+S"` (North's entrant, a plus
//! sign, South's), and each player gets the points of the side it sat on.
//!
//! Totals follow the program's conventions as well: a pair that played fewer boards is
//! scaled as its program scales it (`ByeScore`), a board played fewer times may show raw
//! points on its traveller while the totals carry Neuberg's (`Travellers`), and a
//! director's penalty (`ns_penalty`, `ew_penalty` on a table row) is added to the total
//! after scaling, because it is not a board's result and must not be averaged into one.
//!
//! `team_imps` covers two cases. When entrants are teams (format `teams`, or pairs with
//! a `team`), the competition is one match between two teams, scored room against room.
//! When a `pairs` competition has no teams, it is the four- or five-pair movement of seed
//! 003: the standings hold the scoresheet entries (IMPs only for the side that gained a
//! subround, the average rounded down for a sit-out), while the results the handicap
//! model consumes hold each pair's net IMPs over the boards it played.

pub mod butler;
pub mod contract;
/// The conventions are part of the dataset (each competition carries its own); they are
/// re-exported here, where they are applied.
pub use crate::dataset::conventions;
pub mod cross_imps;
pub mod four_five;
pub mod imps;
pub mod matchpoints;
pub mod outcome;
pub mod standings;
pub mod team;
pub mod vp;

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use crate::dataset::{
    BoardResult, Competition, Direction, Entrant, EntrantResult, Format, ScoringMethod,
};
use crate::error::{InputError, Location};

use contract::{parse_contract, Seat};
use conventions::{ByeScore, Conventions, Travellers};
use matchpoints::SidePoints;
use outcome::{parse_adjusted, Outcome};
use standings::{Play, TieBreakInput};

/// One row of `board_scores.parquet`: a table result and both sides' points.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardScore {
    pub competition_id: String,
    pub board: u32,
    /// The N/S entrant (individual events: `"N+S"`).
    pub ns: Option<String>,
    /// The E/W entrant (individual events: `"E+W"`).
    pub ew: Option<String>,
    /// `None` for artificial scores.
    pub ns_score: Option<i32>,
    /// Points on the competition's own scale (matchpoints or IMPs).
    pub ns_points: f64,
    pub ew_points: f64,
    /// Butler only: the board's datum.
    pub datum: Option<f64>,
}

/// One row of `standings.parquet`.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub competition_id: String,
    pub entrant: String,
    /// Total matchpoints (on the competition's scale) or IMPs.
    pub score: f64,
    /// Matchpoint events: the percentage of the points available on the boards played.
    pub percent: Option<f64>,
    pub boards_played: u32,
    /// Shared ranks: 1, 2, 2, 4.
    pub rank: u32,
    /// Set when each direction is ranked on its own (fixed-direction Mitchell).
    pub direction: Option<Direction>,
    /// Team matches: the victory points of the match on the WBF scale for its boards.
    /// They decide a team event's standings; the handicap always uses the IMPs.
    pub vp: Option<f64>,
}

/// Everything scoring produces for one competition.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredCompetition {
    pub board_scores: Vec<BoardScore>,
    pub standings: Vec<Standing>,
    /// What the handicap model consumes: matchpoints → percentage 0-100; IMP scorings →
    /// total IMPs; a team match → one row per team with `opponent` set.
    pub results: Vec<EntrantResult>,
}

/// Orders entrant names as clubs number them: `2` before `10`, numbers before names.
pub fn entrant_order(a: &str, b: &str) -> Ordering {
    match (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y).then_with(|| a.cmp(b)),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

fn order_lists(a: &[String], b: &[String]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = entrant_order(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// One validated table result.
struct Table<'a> {
    row: &'a BoardResult,
    ns: Vec<String>,
    ew: Vec<String>,
    outcome: Outcome,
}

impl Table<'_> {
    fn location(&self, column: &str) -> Location {
        row_location(self.row, column)
    }
}

fn row_location(row: &BoardResult, column: &str) -> Location {
    let location = row
        .origin
        .location()
        .competition(&row.competition_id)
        .board(row.board);
    if column.is_empty() {
        location
    } else {
        location.column(column)
    }
}

/// The N/S score of a row, checked against its contract when both are given.
fn read_outcome(row: &BoardResult) -> Result<Outcome, InputError> {
    if let Some(code) = row.adjusted.as_deref().filter(|c| !c.trim().is_empty()) {
        return parse_adjusted(code, row.ns_score)
            .map_err(|rule| InputError::new(row_location(row, "adjusted"), rule));
    }
    let Some(text) = row.contract.as_deref().filter(|c| !c.trim().is_empty()) else {
        return row.ns_score.map(Outcome::Score).ok_or_else(|| {
            InputError::new(
                row_location(row, "contract"),
                "the row has no contract, no ns_score and no artificial score",
            )
        });
    };
    let contract = parse_contract(text)
        .map_err(|rule| InputError::new(row_location(row, "contract"), rule))?;
    let computed = match contract {
        None => 0,
        Some(c) => {
            let declarer: Seat = row
                .declarer
                .as_deref()
                .ok_or_else(|| {
                    InputError::new(
                        row_location(row, "declarer"),
                        format!("contract `{text}` has no declarer"),
                    )
                })?
                .parse()
                .map_err(|rule| InputError::new(row_location(row, "declarer"), rule))?;
            let tricks = row.tricks.ok_or_else(|| {
                InputError::new(
                    row_location(row, "tricks"),
                    format!("contract `{text}` has no tricks"),
                )
            })?;
            contract::ns_score(Some(&c), declarer, tricks, row.board)
                .map_err(|rule| InputError::new(row_location(row, "tricks"), rule))?
        }
    };
    match row.ns_score {
        Some(given) if given != computed => Err(InputError::new(
            row_location(row, "ns_score"),
            format!(
                "ns_score {given} does not match contract `{text}` by {} with {} tricks, which scores {computed} for N/S",
                row.declarer.as_deref().unwrap_or("-"),
                row.tricks.map_or("-".to_string(), |t| t.to_string()),
            ),
        )),
        _ => Ok(Outcome::Score(computed)),
    }
}

fn read_table<'a>(
    row: &'a BoardResult,
    format: Format,
    known: &BTreeMap<&str, &Entrant>,
) -> Result<Table<'a>, InputError> {
    let seats: Vec<(&str, &Option<String>)> = if format == Format::Individual {
        vec![
            ("north", &row.north),
            ("south", &row.south),
            ("east", &row.east),
            ("west", &row.west),
        ]
    } else {
        vec![("ns", &row.ns), ("ew", &row.ew)]
    };
    let mut names: Vec<String> = Vec::new();
    for (column, value) in &seats {
        let name = value
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| InputError::new(row_location(row, column), "no entrant at this seat"))?;
        if !known.contains_key(name) {
            return Err(InputError::new(
                row_location(row, column),
                format!("unknown entrant `{name}`: not listed in this competition's entrants"),
            ));
        }
        if names.iter().any(|n| n == name) {
            return Err(InputError::new(
                row_location(row, column),
                format!("entrant `{name}` sits twice at this table"),
            ));
        }
        names.push(name.to_string());
    }
    for (column, penalty) in [
        ("ns_penalty", row.ns_penalty),
        ("ew_penalty", row.ew_penalty),
    ] {
        if penalty.is_some_and(|p| !p.is_finite()) {
            return Err(InputError::new(
                row_location(row, column),
                "a penalty must be a finite number of points",
            ));
        }
    }
    let half = names.len() / 2;
    let ew = names.split_off(half);
    Ok(Table {
        row,
        ns: names,
        ew,
        outcome: read_outcome(row)?,
    })
}

/// Points and bounds of each table, in table order.
struct BoardPoints {
    /// What counts in the totals.
    side: SidePoints,
    /// What the traveller shows (unfactored under `Travellers::Unfactored`).
    shown: SidePoints,
    top: f64,
    bottom: f64,
    datum: Option<f64>,
}

/// Per-entrant totals.
#[derive(Default)]
struct Tally {
    points: f64,
    /// Director's penalties and compensations, outside the comparisons.
    penalty: f64,
    top: f64,
    bottom: f64,
    boards: BTreeSet<u32>,
    directions: BTreeSet<Direction>,
}

/// Scores one competition from its table results. Rows of `entrants` and `boards` that
/// belong to other competitions are ignored.
pub fn score_competition(
    competition: &Competition,
    entrants: &[impl Borrow<Entrant>],
    boards: &[impl Borrow<BoardResult>],
) -> Result<ScoredCompetition, InputError> {
    let id = competition.competition_id.as_str();
    let conventions = competition.conventions;
    let competition_location = || competition.origin.location().competition(id);
    let known: BTreeMap<&str, &Entrant> = entrants
        .iter()
        .map(Borrow::borrow)
        .filter(|e| e.competition_id == id)
        .map(|e| (e.entrant.trim(), e))
        .collect();
    let mut tables: Vec<Table<'_>> = boards
        .iter()
        .map(Borrow::borrow)
        .filter(|b| b.competition_id == id)
        .map(|row| read_table(row, competition.format, &known))
        .collect::<Result<_, _>>()?;
    if tables.is_empty() {
        return Err(InputError::new(
            competition_location(),
            "the competition has no board results",
        ));
    }
    tables.sort_by(|a, b| {
        a.row
            .board
            .cmp(&b.row.board)
            .then_with(|| order_lists(&a.ns, &b.ns))
            .then_with(|| order_lists(&a.ew, &b.ew))
    });
    let mut by_board: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (index, table) in tables.iter().enumerate() {
        by_board.entry(table.row.board).or_default().push(index);
    }
    for indices in by_board.values() {
        // A team plays each board once in each direction (two rooms); anyone else once.
        let rooms = competition.format == Format::Teams;
        let mut seen: BTreeSet<(&str, Option<Direction>)> = BTreeSet::new();
        for &i in indices {
            let table = &tables[i];
            let seats = table
                .ns
                .iter()
                .map(|n| (n, Direction::NS))
                .chain(table.ew.iter().map(|n| (n, Direction::EW)));
            for (name, direction) in seats {
                if !seen.insert((name, rooms.then_some(direction))) {
                    return Err(InputError::new(
                        table.location(""),
                        format!("entrant `{name}` plays this board more than once"),
                    ));
                }
            }
        }
        if let [only] = indices[..] {
            return Err(InputError::new(
                tables[only].location(""),
                "the board has only one result, so there is nothing to compare it with",
            ));
        }
    }
    let expected = by_board.values().map(Vec::len).max().unwrap_or(0);
    let mut points: Vec<BoardPoints> = Vec::with_capacity(tables.len());
    for indices in by_board.values() {
        let outcomes: Vec<Outcome> = indices.iter().map(|&i| tables[i].outcome).collect();
        points.extend(score_board(
            competition,
            &conventions,
            indices,
            &tables,
            &outcomes,
            expected,
        )?);
    }

    let board_scores: Vec<BoardScore> = tables
        .iter()
        .zip(&points)
        .map(|(t, p)| BoardScore {
            competition_id: id.to_string(),
            board: t.row.board,
            ns: Some(t.ns.join("+")),
            ew: Some(t.ew.join("+")),
            ns_score: t.outcome.score(),
            ns_points: p.shown.ns,
            ew_points: p.shown.ew,
            datum: p.datum,
        })
        .collect();

    let teams = competition.format == Format::Teams || known.values().any(|e| e.team.is_some());
    let (standings, results) = match (competition.scoring, teams) {
        (ScoringMethod::TeamImps, true) => team_standings(competition, &known, &tables, &points)?,
        (ScoringMethod::TeamImps, false) => {
            four_five_standings(competition, &known, &tables, &points)
        }
        _ => field_standings(competition, &tables, &points),
    };
    Ok(ScoredCompetition {
        board_scores,
        standings,
        results,
    })
}

fn score_board(
    competition: &Competition,
    conventions: &Conventions,
    indices: &[usize],
    tables: &[Table<'_>],
    outcomes: &[Outcome],
    expected: usize,
) -> Result<Vec<BoardPoints>, InputError> {
    let plain = |side: SidePoints| BoardPoints {
        side,
        shown: side,
        top: 0.0,
        bottom: 0.0,
        datum: None,
    };
    Ok(match competition.scoring {
        ScoringMethod::Matchpoints => {
            let board = matchpoints::score_board(
                outcomes,
                expected,
                conventions.mp_scale,
                conventions.neuberg,
            );
            let shown = match conventions.travellers {
                Travellers::Factored => board.points.clone(),
                Travellers::Unfactored => {
                    matchpoints::score_board(outcomes, expected, conventions.mp_scale, false).points
                }
            };
            board
                .points
                .into_iter()
                .zip(shown)
                .map(|(side, shown)| BoardPoints {
                    side,
                    shown,
                    top: board.top,
                    bottom: board.bottom,
                    datum: None,
                })
                .collect()
        }
        ScoringMethod::CrossImps => cross_imps::score_board(
            outcomes,
            expected,
            conventions.imp_aggregate,
            conventions.artificial_imps,
        )
        .into_iter()
        .map(plain)
        .collect(),
        ScoringMethod::Butler => {
            let (datum, sides) = butler::score_board(
                outcomes,
                conventions.datum_trim,
                conventions.datum_rounding,
                conventions.artificial_imps,
            );
            sides
                .into_iter()
                .map(|side| BoardPoints {
                    datum,
                    ..plain(side)
                })
                .collect()
        }
        ScoringMethod::TeamImps => {
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
            let mut sides = Vec::with_capacity(2);
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
                sides.push(plain(SidePoints { ns, ew: -ns }));
            }
            sides
        }
    })
}

fn tally(tables: &[Table<'_>], points: &[BoardPoints]) -> BTreeMap<String, Tally> {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for (t, p) in tables.iter().zip(points) {
        for (names, direction, value, penalty) in [
            (&t.ns, Direction::NS, p.side.ns, t.row.ns_penalty),
            (&t.ew, Direction::EW, p.side.ew, t.row.ew_penalty),
        ] {
            for name in names {
                let entry = tallies.entry(name.clone()).or_default();
                entry.points += value;
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
                let entry = sums.entry((name.as_str(), t.row.session)).or_default();
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
fn field_standings(
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
            let score = t.points * factor + t.penalty;
            Standing {
                competition_id: id.clone(),
                entrant: name.clone(),
                score,
                percent: if is_mp {
                    matchpoints::percent(score, t.bottom * factor, t.top * factor)
                } else {
                    None
                },
                boards_played: played as u32,
                rank: 0,
                direction: if fixed {
                    t.directions.first().copied()
                } else {
                    None
                },
                vp: None,
            }
        })
        .collect();

    let plays: Vec<Play> = tables
        .iter()
        .zip(points)
        .flat_map(|(t, p)| {
            let ns_score = t.outcome.score();
            let ns = t.ns.iter().map(move |name| Play {
                board: t.row.board,
                entrant: name.clone(),
                direction: Direction::NS,
                own_score: ns_score,
                points: p.side.ns,
                top: p.top,
                bottom: p.bottom,
                opponents: t.ew.clone(),
            });
            let ew = t.ew.iter().map(move |name| Play {
                board: t.row.board,
                entrant: name.clone(),
                direction: Direction::EW,
                own_score: ns_score.map(|s| -s),
                points: p.side.ew,
                top: p.top,
                bottom: p.bottom,
                opponents: t.ns.clone(),
            });
            ns.chain(ew)
        })
        .collect();
    let sessions = session_results(tables, points, is_mp);
    let tie_break = competition.conventions.tie_break;
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

/// A standing's percentage, or its score per board played when it has none.
fn rate_of_play(s: &Standing) -> f64 {
    s.percent
        .unwrap_or_else(|| s.score / f64::from(s.boards_played.max(1)))
}

/// Ranks within each direction group (or all together) by total and sorts the rows.
fn assign_ranks(standings: &mut [Standing], tie_input: Option<&TieBreakInput<'_>>) {
    assign_ranks_by(standings, &|s: &Standing| s.score, tie_input);
}

/// Ranks within each direction group (or all together) by `key` and sorts the rows.
fn assign_ranks_by(
    standings: &mut [Standing],
    key: &dyn Fn(&Standing) -> f64,
    tie_input: Option<&TieBreakInput<'_>>,
) {
    let mut groups: BTreeMap<Option<Direction>, Vec<usize>> = BTreeMap::new();
    for (i, s) in standings.iter().enumerate() {
        groups.entry(s.direction).or_default().push(i);
    }
    for indices in groups.values() {
        let entries: Vec<(&str, f64)> = indices
            .iter()
            .map(|&i| (standings[i].entrant.as_str(), key(&standings[i])))
            .collect();
        let ranks = standings::rank(&entries, tie_input);
        let ranks: Vec<(usize, u32)> = indices.iter().copied().zip(ranks).collect();
        for (i, r) in ranks {
            standings[i].rank = r;
        }
    }
    standings.sort_by(|a, b| {
        a.direction
            .cmp(&b.direction)
            .then(a.rank.cmp(&b.rank))
            .then_with(|| entrant_order(&a.entrant, &b.entrant))
    });
}

fn sorted_results(mut results: Vec<EntrantResult>) -> Vec<EntrantResult> {
    results.sort_by(|a, b| entrant_order(&a.entrant, &b.entrant));
    results
}

/// One team match: both rooms of every board, the teams' seats swapped.
fn team_standings(
    competition: &Competition,
    known: &BTreeMap<&str, &Entrant>,
    tables: &[Table<'_>],
    points: &[BoardPoints],
) -> Result<(Vec<Standing>, Vec<EntrantResult>), InputError> {
    let id = &competition.competition_id;
    let team_of = |name: &str| -> String {
        known
            .get(name)
            .and_then(|e| e.team.clone())
            .unwrap_or_else(|| name.to_string())
    };
    let mut imps: BTreeMap<String, (f64, BTreeSet<u32>)> = BTreeMap::new();
    let mut opponents: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut rooms: BTreeMap<u32, Vec<(String, String)>> = BTreeMap::new();
    for (t, p) in tables.iter().zip(points) {
        let ns_team = t.ns.first().map(|n| team_of(n)).unwrap_or_default();
        let ew_team = t.ew.first().map(|n| team_of(n)).unwrap_or_default();
        if ns_team == ew_team {
            return Err(InputError::new(
                t.location("ew"),
                format!("team `{ns_team}` sits on both sides of this table"),
            ));
        }
        let entry = imps.entry(ns_team.clone()).or_default();
        entry.0 += p.side.ns;
        entry.1.insert(t.row.board);
        imps.entry(ew_team.clone())
            .or_default()
            .1
            .insert(t.row.board);
        opponents
            .entry(ns_team.clone())
            .or_default()
            .insert(ew_team.clone());
        opponents
            .entry(ew_team.clone())
            .or_default()
            .insert(ns_team.clone());
        rooms
            .entry(t.row.board)
            .or_default()
            .push((ns_team, ew_team));
    }
    for (t, _) in tables.iter().zip(points) {
        if let Some([(a_ns, a_ew), (b_ns, b_ew)]) = rooms.get(&t.row.board).map(Vec::as_slice) {
            if a_ns != b_ew || a_ew != b_ns {
                return Err(InputError::new(
                    t.location(""),
                    format!("the two rooms must seat the same two teams swapped: `{a_ns}`-`{a_ew}` and `{b_ns}`-`{b_ew}`"),
                ));
            }
        }
    }
    for (team, met) in &opponents {
        if met.len() > 1 {
            return Err(InputError::new(
                competition.origin.location().competition(id),
                format!(
                    "a team_imps competition is one match, but team `{team}` met {}",
                    met.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    let mut standings: Vec<Standing> = imps
        .iter()
        .map(|(team, (score, boards))| Standing {
            competition_id: id.clone(),
            entrant: team.clone(),
            score: *score,
            percent: None,
            boards_played: boards.len() as u32,
            rank: 0,
            direction: None,
            vp: None,
        })
        .collect();
    assign_ranks(&mut standings, None);
    let boards = competition
        .boards
        .unwrap_or_else(|| standings.iter().map(|s| s.boards_played).max().unwrap_or(0));
    team_match_vps(&mut standings, boards);
    let results = standings
        .iter()
        .map(|s| EntrantResult {
            competition_id: id.clone(),
            entrant: s.entrant.clone(),
            boards_played: s.boards_played,
            score: s.score,
            opponent: opponents.get(&s.entrant).and_then(|m| m.first().cloned()),
            origin: competition.origin.clone(),
        })
        .collect();
    Ok((standings, sorted_results(results)))
}

/// Victory points of a team match (two standings) on the WBF continuous scale for
/// `boards` boards. Anything but exactly two teams, or scores that are neither margins
/// nor IMPs won (see [`team::net_margin`]), has no VPs.
pub fn team_match_vps(standings: &mut [Standing], boards: u32) {
    if let [a, b] = standings {
        if let Some(margin) = team::net_margin(a.score, b.score) {
            let (vp_a, vp_b) = vp::wbf_scale(boards).vp(margin.round() as i32);
            a.vp = Some(vp_a);
            b.vp = Some(vp_b);
        }
    }
}

/// Seed 003's four or five pairs on two tables.
fn four_five_standings(
    competition: &Competition,
    known: &BTreeMap<&str, &Entrant>,
    tables: &[Table<'_>],
    points: &[BoardPoints],
) -> (Vec<Standing>, Vec<EntrantResult>) {
    let id = &competition.competition_id;
    let tallies = tally(tables, points);
    // A subround: the boards a fixed set of four pairs played (within one round).
    let mut subrounds: BTreeMap<(Option<u32>, Vec<String>), BTreeMap<String, f64>> =
        BTreeMap::new();
    let mut board_pairs: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for t in tables {
        board_pairs
            .entry(t.row.board)
            .or_default()
            .extend(t.ns.iter().chain(&t.ew).cloned());
    }
    for (t, p) in tables.iter().zip(points) {
        let players: Vec<String> = board_pairs
            .get(&t.row.board)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        let sub = subrounds.entry((t.row.round, players)).or_default();
        for name in &t.ns {
            *sub.entry(name.clone()).or_default() += p.side.ns;
        }
        for name in &t.ew {
            *sub.entry(name.clone()).or_default() += p.side.ew;
        }
    }
    let mut entries: BTreeMap<String, f64> = known.keys().map(|k| (k.to_string(), 0.0)).collect();
    for net in subrounds.values() {
        let playing: Vec<(&str, i32)> = net
            .iter()
            .map(|(n, v)| (n.as_str(), v.round() as i32))
            .collect();
        let sitting_out: Vec<&str> = known
            .keys()
            .copied()
            .filter(|k| !net.contains_key(*k))
            .collect();
        for (name, entry) in four_five::subround_entries(&playing, &sitting_out) {
            *entries.entry(name).or_default() += f64::from(entry);
        }
    }
    let mut standings: Vec<Standing> = entries
        .iter()
        .map(|(name, score)| Standing {
            competition_id: id.clone(),
            entrant: name.clone(),
            score: *score,
            percent: None,
            boards_played: tallies.get(name).map_or(0, |t| t.boards.len() as u32),
            rank: 0,
            direction: None,
            vp: None,
        })
        .collect();
    assign_ranks(&mut standings, None);
    let results = tallies
        .iter()
        .map(|(name, t)| EntrantResult {
            competition_id: id.clone(),
            entrant: name.clone(),
            boards_played: t.boards.len() as u32,
            score: t.points,
            opponent: None,
            origin: competition.origin.clone(),
        })
        .collect();
    (standings, sorted_results(results))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod realdata_tests;
