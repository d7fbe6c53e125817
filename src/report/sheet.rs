//! The club scorer's result sheet: standings with names, as the club's program prints
//! them.
//!
//! A club checks a federation's scoring against the sheet its own program printed on the
//! night, so the sheet rounds as that program does: percentages to two decimals (Ruter
//! and Compscore both), totals to one decimal on Ruter's scales (plus/minus matchpoints,
//! summed cross-IMPs), two decimals for everything Compscore prints. A movement with two winners is ranked per direction; a handicap tournament is
//! ranked by the handicap-adjusted result, with the raw result beside it.

use std::collections::HashMap;
use std::fmt::Write as _;

use chrono::NaiveDate;
use polars::prelude::*;

use super::frame::FrameBuilder;
use super::page::{self, escape, escape_bytes_into, STYLE};
use crate::dataset::conventions::{ImpAggregate, MpScale};
use crate::dataset::entrant_table::{CompetitionRows, EntrantTable};
use crate::dataset::{Competition, Dataset, Direction, Entrant, Member, MemberId};
use crate::scoring::draw::Round;
use crate::scoring::swiss::MatchLine;
use crate::scoring::Standing;

/// One line of the sheet: [`SheetLine`] owns its text, [`SheetRow`] borrows it from
/// where it lies (the standing, the competition and the names of its competition). The
/// files are written from rows, so that millions of lines make no string of their own;
/// [`SheetLine::row`] reads an owned line the same way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SheetOf<S, R> {
    pub competition_id: S,
    pub date: NaiveDate,
    pub title: Option<S>,
    pub club: Option<S>,
    pub direction: Option<S>,
    /// The rank the sheet is ordered by: by the handicap-adjusted result in a handicap
    /// tournament, else the standings' rank.
    pub rank: u32,
    /// The rank on the raw result (handicap tournaments; the same as `rank` otherwise).
    pub raw_rank: u32,
    pub entrant: S,
    pub names: S,
    /// Rounded as the club's program prints it.
    pub score: f64,
    pub percent: Option<f64>,
    pub boards_played: u32,
    pub vp: Option<f64>,
    /// Handicap tournaments: the expected result from the playing handicaps and the
    /// result minus it (percentage points, or IMPs per board).
    pub handicap_expected: Option<f64>,
    pub handicap_result: Option<f64>,
    /// Decimals the score is printed with.
    pub score_decimals: usize,
    /// Swiss pairs: the house pair, listed without a place.
    pub house: bool,
    /// Swiss pairs: the pair's matches, by round.
    pub rounds: R,
}

/// A line of the sheet that owns its text.
pub type SheetLine = SheetOf<String, Vec<MatchLine>>;

/// A line of the sheet borrowed from where its text lies.
pub type SheetRow<'a> = SheetOf<&'a str, &'a [MatchLine]>;

impl<S, R> SheetOf<S, R> {
    /// The same line with each text as `text` gives it and the rounds as `rounds` does.
    fn map<'s, T, Q>(
        &'s self,
        text: impl Fn(&'s S) -> T,
        rounds: impl FnOnce(&'s R) -> Q,
    ) -> SheetOf<T, Q> {
        SheetOf {
            competition_id: text(&self.competition_id),
            date: self.date,
            title: self.title.as_ref().map(&text),
            club: self.club.as_ref().map(&text),
            direction: self.direction.as_ref().map(&text),
            rank: self.rank,
            raw_rank: self.raw_rank,
            entrant: text(&self.entrant),
            names: text(&self.names),
            score: self.score,
            percent: self.percent,
            boards_played: self.boards_played,
            vp: self.vp,
            handicap_expected: self.handicap_expected,
            handicap_result: self.handicap_result,
            score_decimals: self.score_decimals,
            house: self.house,
            rounds: rounds(&self.rounds),
        }
    }
}

impl SheetLine {
    /// The line as the files are written from it.
    pub fn row(&self) -> SheetRow<'_> {
        self.map(String::as_str, Vec::as_slice)
    }
}

/// How a direction is printed: its name in the outputs (docs/data.md), without a string per line.
pub fn direction_text(direction: Direction) -> &'static str {
    match direction {
        Direction::NS => "NS",
        Direction::EW => "EW",
    }
}

/// Half away from zero, as scoring programs round.
pub fn round_to(value: f64, decimals: usize) -> f64 {
    let scale = 10f64.powi(decimals as i32);
    let scaled = value * scale;
    // A tiny nudge absorbs binary representation error (62.495 stored as 62.49499…).
    (scaled + scaled.signum() * 1e-9).round() / scale
}

/// How many decimals the competition's program prints its totals (`standings`) with:
/// Ruter (plus-minus matchpoints, summed cross-IMPs) prints whole numbers (`37`) unless
/// a total has a fraction (a board factored for a bye), and then one decimal for every
/// total (`24.0`, `15.2`); other programs print two.
pub fn score_decimals(competition: &Competition, standings: &[Standing]) -> usize {
    let c = &competition.conventions;
    let ruter = if competition.scoring.is_imps() {
        c.imp_aggregate == ImpAggregate::Sum
    } else {
        c.mp_scale == MpScale::PlusMinus
    };
    let whole = |s: &Standing| round_to(s.score, 1).fract() == 0.0;
    match (ruter, standings.iter().all(whole)) {
        (true, true) => 0,
        (true, false) => 1,
        (false, _) => 2,
    }
}

/// The players' names of each entrant: the printed names, else the members' names, else
/// the numbers; joined with " – ".
pub fn entrant_names(dataset: &Dataset) -> HashMap<(&str, &str), String> {
    let members = member_names(dataset);
    dataset
        .entrants
        .iter()
        .map(|e| {
            (
                (e.competition_id.as_str(), e.entrant.as_str()),
                names_of(e, &members),
            )
        })
        .collect()
}

/// The members' names by member id; looked up once or twice for every line of the
/// sheet. The names lie side by side in one text, and where the ids are close together
/// (a federation numbers its members) they are found by the id's place in a list: read
/// each from its own allocation through a hash, a federation's tens of thousands of
/// names missed the cache on most lines.
#[derive(Debug, Default)]
struct MemberNames {
    text: String,
    /// Where each name lies in `text`, at its id minus `first` ([`NO_NAME`]: none).
    dense: Vec<(u32, u32)>,
    first: i64,
    /// Where the names of ids too far apart for `dense` lie.
    sparse: rustc_hash::FxHashMap<i64, (u32, u32)>,
}

/// A member without a name in [`MemberNames`].
const NO_NAME: (u32, u32) = (u32::MAX, 0);

impl MemberNames {
    fn get(&self, id: i64) -> Option<&str> {
        let (start, end) = if self.dense.is_empty() {
            *self.sparse.get(&id)?
        } else {
            *self
                .dense
                .get(usize::try_from(id.checked_sub(self.first)?).ok()?)?
        };
        self.text.get(start as usize..end as usize)
    }
}

impl<'a> FromIterator<(i64, &'a str)> for MemberNames {
    /// Of two names for one id the last counts.
    fn from_iter<I: IntoIterator<Item = (i64, &'a str)>>(names: I) -> Self {
        let names: Vec<(i64, &str)> = names.into_iter().collect();
        let mut out = MemberNames::default();
        let length: usize = names.iter().map(|(_, name)| name.len()).sum();
        // Past 4 GiB of names the places would not fit: left to the hash.
        if u32::try_from(length).is_err() {
            return out;
        }
        out.text.reserve(length);
        let (Some(first), Some(last)) = (
            names.iter().map(|&(id, _)| id).min(),
            names.iter().map(|&(id, _)| id).max(),
        ) else {
            return out;
        };
        // Dense when the list is at most a few times the number of names.
        let span = last
            .checked_sub(first)
            .and_then(|span| usize::try_from(span).ok());
        let dense = span.filter(|&span| span < 4 * names.len() + 1024);
        if let Some(span) = dense {
            out.first = first;
            out.dense = vec![NO_NAME; span + 1];
        }
        for (id, name) in names {
            let start = out.text.len() as u32;
            out.text.push_str(name);
            let at = (start, out.text.len() as u32);
            match usize::try_from(id - first)
                .ok()
                .and_then(|slot| out.dense.get_mut(slot))
            {
                Some(slot) => *slot = at,
                None => {
                    out.sparse.insert(id, at);
                }
            }
        }
        out
    }
}

fn member_names(dataset: &Dataset) -> MemberNames {
    names_by_member(&dataset.members)
}

fn names_by_member(members: &[Member]) -> MemberNames {
    members
        .iter()
        .filter_map(|m| m.name.as_deref().map(|n| (m.member_id, n)))
        .collect()
}

/// One entrant's names as [`entrant_names`] gives them.
fn names_of(e: &Entrant, members: &MemberNames) -> String {
    let mut out = String::new();
    push_names(&mut out, e, members);
    out
}

/// [`names_of`], appended to `out`: the sheet writes each line's names where they are
/// read, without a string of their own.
fn push_names(out: &mut String, e: &Entrant, members: &MemberNames) {
    push_players(
        out,
        e.players,
        e.names.each_ref().map(Option::as_deref),
        members,
    );
}

/// [`push_names`] of an entrant's `players` and their printed `names`, slot by slot.
fn push_players(
    out: &mut String,
    players: [Option<MemberId>; 4],
    names: [Option<&str>; 4],
    members: &MemberNames,
) {
    let mut first = true;
    for (id, printed) in players.into_iter().zip(names) {
        let printed = printed.or_else(|| id.and_then(|id| members.get(id)));
        if printed.is_none() && id.is_none() {
            continue;
        }
        if !first {
            out.push_str(" – ");
        }
        first = false;
        match (printed, id) {
            (Some(name), _) => out.push_str(name),
            (None, Some(id)) => {
                out.push('#');
                if id < 0 {
                    out.push('-');
                }
                let mut buffer = [0; 20];
                let digits = digits(&mut buffer, id.unsigned_abs());
                // Only ASCII digits were written.
                out.push_str(std::str::from_utf8(digits).unwrap_or_default());
            }
            (None, None) => {}
        }
    }
}

/// The entrants' names of a dataset looked up a competition at a time: the strings are
/// made only for the lines being written, not for millions of entrants at once. The
/// entrant rows are a dataset's own, or the compact table a whole federation is read
/// into ([`EntrantTable`]), whose rows become structs one competition at a time.
pub struct EntrantNames<'a> {
    members: MemberNames,
    entrants: EntrantRowsOf<'a>,
}

enum EntrantRowsOf<'a> {
    Grouped(HashMap<&'a str, Vec<&'a Entrant>>),
    Table(&'a EntrantTable),
}

/// The entrants of one competition, for their names ([`EntrantNames::competition`]):
/// a dataset's own rows, or the players borrowed from the compact table.
pub struct CompetitionNames<'n> {
    members: &'n MemberNames,
    borrowed: &'n [&'n Entrant],
    table: Option<CompetitionRows<'n>>,
}

impl CompetitionNames<'_> {
    /// The names of `entrant` (empty when it is not an entrant). Of two rows for one
    /// entrant the last counts, as in [`entrant_names`].
    pub fn of(&self, entrant: &str) -> String {
        let mut out = String::new();
        self.push(&mut out, entrant);
        out
    }

    /// [`CompetitionNames::of`], appended to `out`.
    pub fn push(&self, out: &mut String, entrant: &str) {
        if let Some(rows) = self.table {
            if let Some(e) = rows.find(entrant) {
                push_players(out, e.players, e.names, self.members);
            }
        } else if let Some(e) = self.borrowed.iter().rev().find(|e| e.entrant == entrant) {
            push_names(out, e, self.members);
        }
    }
}

impl<'a> EntrantNames<'a> {
    pub fn new(dataset: &'a Dataset) -> Self {
        EntrantNames::of_rows(&dataset.members, &dataset.entrants)
    }

    /// The names of the entrant rows `entrants`, with the names of `members`.
    pub fn of_rows(members: &'a [Member], entrants: &'a [Entrant]) -> Self {
        let mut by_competition: HashMap<&str, Vec<&Entrant>> = HashMap::new();
        for e in entrants {
            by_competition
                .entry(e.competition_id.as_str())
                .or_default()
                .push(e);
        }
        EntrantNames {
            members: names_by_member(members),
            entrants: EntrantRowsOf::Grouped(by_competition),
        }
    }

    /// The names of the entrant rows of `table` (grouped), with the names of `members`.
    pub fn of_table(members: &'a [Member], table: &'a EntrantTable) -> Self {
        EntrantNames {
            members: names_by_member(members),
            entrants: EntrantRowsOf::Table(table),
        }
    }

    /// The entrants of `competition_id`, to look up their names.
    pub fn competition(&self, competition_id: &str) -> CompetitionNames<'_> {
        match &self.entrants {
            EntrantRowsOf::Grouped(by_competition) => {
                self.of_grouped(by_competition, competition_id)
            }
            EntrantRowsOf::Table(table) => {
                self.of_table_rows(table.competition_rows(competition_id))
            }
        }
    }

    /// [`EntrantNames::competition`] of each of `competitions`, in their order, found
    /// together: the compact table finds a federation's competitions in the order it
    /// read them rather than by a lookup each.
    pub fn competitions(&self, competitions: &[Competition]) -> Vec<CompetitionNames<'_>> {
        let ids = competitions.iter().map(|c| c.competition_id.as_str());
        match &self.entrants {
            EntrantRowsOf::Grouped(by_competition) => {
                ids.map(|id| self.of_grouped(by_competition, id)).collect()
            }
            EntrantRowsOf::Table(table) => table
                .competitions_rows(ids)
                .into_iter()
                .map(|rows| self.of_table_rows(rows))
                .collect(),
        }
    }

    fn of_grouped<'n>(
        &'n self,
        by_competition: &'n HashMap<&'a str, Vec<&'a Entrant>>,
        competition_id: &str,
    ) -> CompetitionNames<'n> {
        CompetitionNames {
            members: &self.members,
            borrowed: by_competition
                .get(competition_id)
                .map_or(&[], Vec::as_slice),
            table: None,
        }
    }

    fn of_table_rows<'n>(&'n self, rows: CompetitionRows<'n>) -> CompetitionNames<'n> {
        CompetitionNames {
            members: &self.members,
            borrowed: &[],
            table: Some(rows),
        }
    }

    /// The names of `entrant` in `competition_id` (empty when it is not an entrant).
    /// Of two rows for one entrant the last counts, as in [`entrant_names`].
    pub fn of(&self, competition_id: &str, entrant: &str) -> String {
        self.competition(competition_id).of(entrant)
    }
}

/// Shared ranks (1, 2, 2, 4) of `values`, higher is better.
fn shared_ranks(values: &[f64]) -> Vec<u32> {
    values
        .iter()
        .map(|v| 1 + values.iter().filter(|w| **w > *v + 1e-9).count() as u32)
        .collect()
}

/// The sheet's lines, competition by competition in the standings' order, each
/// competition's lines by direction and rank. `handicap` gives (expected, adjusted) for
/// the entrants of handicap tournaments. The whole sheet at once: the `score` command
/// writes it a competition at a time ([`competition_lines`]).
pub fn lines(
    dataset: &Dataset,
    standings: &[Standing],
    handicap: &rustc_hash::FxHashMap<(&str, &str), (f64, f64)>,
) -> Vec<SheetLine> {
    let competitions: HashMap<&str, &Competition> = dataset
        .competitions
        .iter()
        .map(|c| (c.competition_id.as_str(), c))
        .collect();
    let names = entrant_names(dataset);
    let mut out: Vec<SheetLine> = Vec::with_capacity(standings.len());
    for group in by_competition(standings) {
        let Some(competition) = competitions.get(group[0].competition_id.as_str()) else {
            continue;
        };
        competition_lines(
            competition,
            group,
            |s| {
                names
                    .get(&(s.competition_id.as_str(), s.entrant.as_str()))
                    .cloned()
                    .unwrap_or_default()
            },
            |s| {
                handicap
                    .get(&(s.competition_id.as_str(), s.entrant.as_str()))
                    .copied()
            },
            &mut out,
        );
    }
    out
}

/// The standings of each competition in turn (runs of one `competition_id`).
pub fn by_competition(standings: &[Standing]) -> impl Iterator<Item = &[Standing]> {
    standings.chunk_by(|a, b| a.competition_id == b.competition_id)
}

/// Appends to `out` the sheet's lines of one competition from its `standings`, by
/// direction and rank; `names` gives an entrant's players' names and `handicap` its
/// (expected, adjusted) result in a handicap tournament.
pub fn competition_lines(
    competition: &Competition,
    standings: &[Standing],
    names: impl Fn(&Standing) -> String,
    handicap: impl Fn(&Standing) -> Option<(f64, f64)>,
    out: &mut Vec<SheetLine>,
) {
    let adjusted: Vec<Option<(f64, f64)>> = standings.iter().map(&handicap).collect();
    let decimals = score_decimals(competition, standings);
    out.extend(
        sheet_order(competition, standings, &adjusted)
            .into_iter()
            .map(|(at, rank)| {
                let row = competition_row(
                    competition,
                    &standings[at],
                    (rank, decimals),
                    adjusted[at],
                    "",
                );
                SheetLine {
                    names: names(&standings[at]),
                    ..row.map(|text| (*text).to_owned(), |rounds| rounds.to_vec())
                }
            }),
    );
}

/// The sheet's order of one competition's `standings`, by direction and rank: each
/// standing's index with the rank the sheet gives it (by the handicap-adjusted result
/// in a handicap tournament, `adjusted` holding each standing's (expected, adjusted)).
pub fn sheet_order(
    competition: &Competition,
    standings: &[Standing],
    adjusted: &[Option<(f64, f64)>],
) -> Vec<(usize, u32)> {
    let mut order: Vec<(usize, u32)> = standings.iter().map(|s| s.rank).enumerate().collect();
    let exact: Vec<Option<f64>> = adjusted.iter().map(|a| a.map(|a| a.1)).collect();
    if competition.handicap_event && exact.iter().all(Option::is_some) {
        // Ranked by the adjusted result within each direction (or the whole field).
        let mut keys: Vec<Option<Direction>> = standings.iter().map(|s| s.direction).collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            let members: Vec<usize> = (0..standings.len())
                .filter(|&i| standings[i].direction == key)
                .collect();
            // Ranked on the exact results: two shown alike may still differ.
            let values: Vec<f64> = members
                .iter()
                .map(|&i| exact.get(i).copied().flatten().unwrap_or(f64::NEG_INFINITY))
                .collect();
            for (&i, rank) in members.iter().zip(shared_ranks(&values)) {
                order[i].1 = rank;
            }
        }
    }
    // N/S first, as the programs print a two-winner movement.
    let line = |s: &Standing| s.direction == Some(Direction::EW);
    order.sort_by(|&(a, a_rank), &(b, b_rank)| {
        let (a, b) = (&standings[a], &standings[b]);
        line(a)
            .cmp(&line(b))
            .then(a.house.cmp(&b.house))
            .then(a_rank.cmp(&b_rank))
            .then(a.rank.cmp(&b.rank))
            .then(a.entrant.cmp(&b.entrant))
    });
    order
}

/// The sheet's line of `standing`, of `competition`, placed at `rank` with its score
/// to `decimals` ([`score_decimals`] of its competition), with its (expected, adjusted)
/// handicap result and its players' `names`.
pub fn competition_row<'a>(
    competition: &'a Competition,
    standing: &'a Standing,
    (rank, decimals): (u32, usize),
    adjusted: Option<(f64, f64)>,
    names: &'a str,
) -> SheetRow<'a> {
    let s = standing;
    SheetRow {
        competition_id: &s.competition_id,
        date: competition.date,
        title: competition.title.as_deref(),
        club: competition.club.as_deref(),
        direction: s.direction.map(direction_text),
        rank,
        raw_rank: s.rank,
        entrant: &s.entrant,
        names,
        score: round_to(s.score, decimals),
        percent: s.percent.map(|p| round_to(p, 2)),
        boards_played: s.boards_played,
        vp: s.vp.map(|v| round_to(v, 2)),
        handicap_expected: adjusted.map(|a| round_to(a.0, 2)),
        handicap_result: adjusted.map(|a| round_to(a.1, 2)),
        score_decimals: decimals,
        house: s.house,
        rounds: &s.rounds,
    }
}

/// `standings.csv`: each figure printed as the result sheet prints it (the score with
/// its program's decimals, percentages, victory points and handicap results with two),
/// so that the file and the page show one figure the same way.
pub fn frame(lines: &[SheetLine]) -> PolarsResult<DataFrame> {
    FrameBuilder::new(lines.len())
        .column(
            "competition_id",
            lines
                .iter()
                .map(|l| l.competition_id.as_str())
                .collect::<Vec<_>>(),
        )
        .date("date", lines.iter().map(|l| Some(l.date)).collect())?
        .column(
            "title",
            lines.iter().map(|l| l.title.as_deref()).collect::<Vec<_>>(),
        )
        .column(
            "club",
            lines.iter().map(|l| l.club.as_deref()).collect::<Vec<_>>(),
        )
        .column(
            "direction",
            lines
                .iter()
                .map(|l| l.direction.as_deref())
                .collect::<Vec<_>>(),
        )
        .map("rank", lines, |l| (!l.house).then_some(l.rank as i32))
        .column(
            "entrant",
            lines.iter().map(|l| l.entrant.as_str()).collect::<Vec<_>>(),
        )
        .column(
            "names",
            lines.iter().map(|l| l.names.as_str()).collect::<Vec<_>>(),
        )
        .map("score", lines, |l| fixed(Some(l.score), l.score_decimals))
        .map("percent", lines, |l| fixed(l.percent, FIGURE_DECIMALS))
        .map("boards_played", lines, |l| l.boards_played as i32)
        .map("vp", lines, |l| fixed(l.vp, FIGURE_DECIMALS))
        .map("raw_rank", lines, |l| {
            (!l.house).then_some(l.raw_rank as i32)
        })
        .map("handicap_expected", lines, |l| {
            fixed(l.handicap_expected, FIGURE_DECIMALS)
        })
        .map("handicap_result", lines, |l| {
            fixed(l.handicap_result, FIGURE_DECIMALS)
        })
        .build()
}

/// `rounds.csv`: a line per round for each pair of a Swiss pairs event, in the sheet's
/// order, with the VPs the pair has after the round; `None` when no competition has
/// rounds.
pub fn rounds_frame(lines: &[SheetLine]) -> PolarsResult<Option<DataFrame>> {
    if lines.iter().all(|l| l.rounds.is_empty()) {
        return Ok(None);
    }
    let rows: Vec<SheetRow<'_>> = lines.iter().map(SheetLine::row).collect();
    rounds_rows(&rows).map(Some)
}

/// The lines of `rounds.csv` for `lines` (none when no line has rounds).
pub fn rounds_rows(lines: &[SheetRow<'_>]) -> PolarsResult<DataFrame> {
    struct Row<'a> {
        line: &'a SheetRow<'a>,
        round: &'a MatchLine,
        total: f64,
    }
    let mut rows: Vec<Row<'_>> = Vec::new();
    for line in lines {
        let mut hundredths = 0i64;
        for round in line.rounds {
            hundredths += (round.vp * 100.0).round() as i64;
            rows.push(Row {
                line,
                round,
                total: hundredths as f64 / 100.0,
            });
        }
    }
    FrameBuilder::new(rows.len())
        .column(
            "competition_id",
            rows.iter()
                .map(|r| r.line.competition_id)
                .collect::<Vec<_>>(),
        )
        .column(
            "entrant",
            rows.iter().map(|r| r.line.entrant).collect::<Vec<_>>(),
        )
        .column(
            "names",
            rows.iter().map(|r| r.line.names).collect::<Vec<_>>(),
        )
        .map("round", &rows, |r| r.round.round as i32)
        .column(
            "opponent",
            rows.iter()
                .map(|r| r.round.opponent.as_str())
                .collect::<Vec<_>>(),
        )
        .map("boards", &rows, |r| r.round.boards as i32)
        .map("imps", &rows, |r| r.round.imps)
        .map("margin", &rows, |r| r.round.margin)
        .map("vp", &rows, |r| r.round.vp)
        .map("total_vp", &rows, |r| r.total)
        .build()
}

fn cell(value: Option<f64>, decimals: usize) -> String {
    let mut out = Vec::new();
    push_cell(&mut out, value, decimals);
    text_of(out)
}

/// Bytes this module wrote as text: always UTF-8, as they were appended from `str`s.
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Decimals every file prints a standing's percentage, victory points and handicap
/// results with (its score has its program's, [`score_decimals`]).
pub const FIGURE_DECIMALS: usize = 2;

/// `value` as [`push_cell`] prints it, as text.
pub fn fixed(value: Option<f64>, decimals: usize) -> Option<String> {
    value.map(|v| {
        let mut out = Vec::new();
        push_cell(&mut out, Some(v), decimals);
        String::from_utf8(out).unwrap_or_default()
    })
}

/// Appends `value` printed with `decimals` decimals, or nothing, to `out`: the text is
/// always what `{:.decimals$}` prints.
pub(crate) fn push_cell(out: &mut Vec<u8>, value: Option<f64>, decimals: usize) {
    let Some(v) = value else {
        return;
    };
    // The page prints millions of numbers already rounded to their decimals: those
    // are printed from their digits as integers. A value further than 1e-6 of a
    // unit from its rounding, or too large for that to be exact, is left to the
    // formatter.
    if decimals <= 3 && v.is_finite() && v.abs() < 1e9 {
        let scale = 10u64.pow(decimals as u32);
        let scaled = v * scale as f64;
        let units = scaled.round();
        if (scaled - units).abs() < 1e-6 {
            let units = units.abs() as u64;
            if v.is_sign_negative() {
                out.push(b'-');
            }
            push_uint(out, units / scale);
            if decimals > 0 {
                out.push(b'.');
                // The fraction's digits, leading zeros included.
                let mut fraction = units % scale;
                let mut digits = [b'0'; 3];
                for at in (0..decimals).rev() {
                    digits[at] = b'0' + (fraction % 10) as u8;
                    fraction /= 10;
                }
                // Copies of a known length: a copy of any length is a call to
                // `memcpy` for every cell.
                match decimals {
                    1 => out.push(digits[0]),
                    2 => out.extend_from_slice(&[digits[0], digits[1]]),
                    _ => out.extend_from_slice(&digits),
                }
            }
            return;
        }
    }
    let _ = std::io::Write::write_fmt(out, format_args!("{v:.decimals$}"));
}

/// The decimal digits of `n`, as `{}` prints it, at the end of `buffer`.
fn digits(buffer: &mut [u8; 20], mut n: u64) -> &[u8] {
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buffer[at..]
}

/// Appends the decimal digits of `n` to `out`, as `{}` prints it.
pub fn push_uint(out: &mut Vec<u8>, n: u64) {
    // Ranks, boards and most numbers are a digit or two.
    if n < 10 {
        out.push(b'0' + n as u8);
    } else if n < 100 {
        out.extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]);
    } else {
        out.extend_from_slice(digits(&mut [0; 20], n));
    }
}

/// Appends `date` as `YYYY-MM-DD`, as its `Display` and `%Y-%m-%d` print it.
pub fn push_date(out: &mut Vec<u8>, date: NaiveDate) {
    use chrono::Datelike as _;
    let year = date.year();
    if !(0..=9999).contains(&year) {
        // A signed year of five digits or more: left to the formatter.
        let _ = std::io::Write::write_fmt(out, format_args!("{date}"));
        return;
    }
    let two = |n: u32| [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8];
    let year = year as u32;
    let [y1, y2] = two(year / 100);
    let [y3, y4] = two(year % 100);
    let [m1, m2] = two(date.month());
    let [d1, d2] = two(date.day());
    out.extend_from_slice(&[y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2]);
}

/// `results.html`: one table per competition (per direction with two winners).
pub fn html(lines: &[SheetLine]) -> String {
    let mut h = html_start().into_bytes();
    let rows: Vec<SheetRow<'_>> = lines.iter().map(SheetLine::row).collect();
    html_tables(&mut h, &rows);
    h.extend_from_slice(HTML_END.as_bytes());
    text_of(h)
}

/// The start of `results.html`, before the first competition's table.
pub fn html_start() -> String {
    page::start("Results", STYLE, "Results")
}

/// The end of `results.html`, after the last competition's table.
pub const HTML_END: &str = page::END;

/// Bytes a line of the page takes, about: its cells' markup, numbers and names.
const HTML_LINE_BYTES: usize = 160;

/// Appends the tables of `lines` to `h` (UTF-8, as the page's bytes): one per
/// competition (per direction with two winners). `lines` must hold whole competitions,
/// so that the page can be written a batch of competitions at a time.
pub fn html_tables(h: &mut Vec<u8>, lines: &[SheetRow<'_>]) {
    h.reserve(lines.len() * HTML_LINE_BYTES);
    let mut start = 0;
    while start < lines.len() {
        let first = &lines[start];
        let end = start
            + lines[start..]
                .iter()
                .take_while(|l| {
                    l.competition_id == first.competition_id && l.direction == first.direction
                })
                .count();
        let group = &lines[start..end];
        let columns = Columns {
            handicap: group.iter().any(|l| l.handicap_result.is_some()),
            percent: group.iter().any(|l| l.percent.is_some()),
            vp: group.iter().any(|l| l.vp.is_some()),
        };
        table_heading(h, first);
        columns.header(h);
        for l in group {
            columns.row(h, l);
        }
        h.extend_from_slice(b"</table>");
        if group.iter().any(|l| !l.rounds.is_empty()) {
            rounds_table(h, group);
        }
        if columns.handicap {
            h.extend_from_slice(b"<p class=note>A handicap tournament: ranked by the handicap result (the result minus the result expected from the pair's playing handicap; percentage points for matchpoints, IMPs per board for IMPs). Raw rank: the rank on the score alone.</p>");
        }
        start = end;
    }
}

/// A table's heading: date, title, club and direction.
fn table_heading(h: &mut Vec<u8>, first: &SheetRow<'_>) {
    h.extend_from_slice(b"<h2>");
    push_date(h, first.date);
    h.extend_from_slice(" — ".as_bytes());
    escape_bytes_into(h, first.title.unwrap_or(first.competition_id));
    if let Some(club) = first.club {
        h.extend_from_slice(b", ");
        escape_bytes_into(h, club);
    }
    if let Some(direction) = first.direction {
        h.extend_from_slice(b" (");
        h.extend_from_slice(direction.as_bytes());
        h.push(b')');
    }
    h.extend_from_slice(b"</h2>");
}

/// The columns a competition's table shows beside rank, pair, names, score and boards.
struct Columns {
    handicap: bool,
    percent: bool,
    vp: bool,
}

impl Columns {
    fn header(&self, h: &mut Vec<u8>) {
        h.extend_from_slice(b"<table><tr><th>rank</th><th>pair</th><th>names</th><th>score</th>");
        if self.percent {
            h.extend_from_slice(b"<th>%</th>");
        }
        if self.vp {
            h.extend_from_slice(b"<th>VP</th>");
        }
        h.extend_from_slice(b"<th>boards</th>");
        if self.handicap {
            h.extend_from_slice(
                b"<th>expected (hcp)</th><th>handicap result</th><th>raw rank</th>",
            );
        }
        h.extend_from_slice(b"</tr>");
    }

    fn row(&self, h: &mut Vec<u8>, l: &SheetRow<'_>) {
        h.extend_from_slice(b"<tr><td class=n>");
        if l.house {
            h.extend_from_slice(b"house");
        } else {
            push_uint(h, l.rank.into());
        }
        h.extend_from_slice(b"</td><td>");
        escape_bytes_into(h, l.entrant);
        h.extend_from_slice(b"</td><td>");
        escape_bytes_into(h, l.names);
        h.extend_from_slice(b"</td><td class=n>");
        push_cell(h, Some(l.score), l.score_decimals);
        h.extend_from_slice(b"</td>");
        if self.percent {
            h.extend_from_slice(b"<td class=n>");
            push_cell(h, l.percent, 2);
            h.extend_from_slice(b"</td>");
        }
        if self.vp {
            h.extend_from_slice(b"<td class=n>");
            push_cell(h, l.vp, 2);
            h.extend_from_slice(b"</td>");
        }
        h.extend_from_slice(b"<td class=n>");
        push_uint(h, l.boards_played.into());
        h.extend_from_slice(b"</td>");
        if self.handicap {
            let offset = if self.percent { 50.0 } else { 0.0 };
            h.extend_from_slice(b"<td class=n>");
            push_cell(h, l.handicap_expected.map(|e| e + offset), 2);
            h.extend_from_slice(b"</td><td class=n>");
            push_cell(h, l.handicap_result, 2);
            h.extend_from_slice(b"</td><td class=n>");
            push_uint(h, l.raw_rank.into());
            h.extend_from_slice(b"</td>");
        }
        h.extend_from_slice(b"</tr>");
    }
}

/// A Swiss pairs event's matches: a line per round for each pair, with its VPs so far.
fn rounds_table(h: &mut Vec<u8>, group: &[SheetRow<'_>]) {
    h.extend_from_slice(b"<h3>Matches</h3><table><tr><th>pair</th><th>round</th><th>opponent</th><th>boards</th><th>IMPs</th><th>margin</th><th>VP</th><th>total VP</th></tr>");
    for l in group {
        let mut hundredths = 0i64;
        for r in l.rounds {
            hundredths += (r.vp * 100.0).round() as i64;
            let _ = std::io::Write::write_fmt(
                h,
                format_args!(
                    "<tr><td>{}</td><td class=n>{}</td><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{:+}</td><td class=n>{:.2}</td><td class=n>{:.2}</td></tr>",
                    escape(l.entrant),
                    r.round,
                    escape(&r.opponent),
                    r.boards,
                    cell(Some(r.imps), 0),
                    r.margin,
                    r.vp,
                    hundredths as f64 / 100.0
                ),
            );
        }
    }
    h.extend_from_slice(b"</table>");
    if group.iter().any(|l| l.house) {
        h.extend_from_slice(b"<p class=note>The house pair makes an odd entry even: it plays and is scored, and takes no place.</p>");
    }
}

/// A Swiss pairs round as the director reads it out: each table with the pairs' VPs
/// so far and their players' names.
pub struct DrawSheet<'a> {
    competition_id: &'a str,
    drawn: &'a Round,
    names: HashMap<(&'a str, &'a str), String>,
}

impl<'a> DrawSheet<'a> {
    pub fn new(dataset: &'a Dataset, competition_id: &'a str, drawn: &'a Round) -> Self {
        DrawSheet {
            competition_id,
            drawn,
            names: entrant_names(dataset),
        }
    }

    fn who(&self, pair: &str) -> String {
        self.names
            .get(&(self.competition_id, pair))
            .cloned()
            .unwrap_or_default()
    }

    fn vp_of(&self, pair: &str) -> String {
        self.drawn
            .standings
            .iter()
            .find(|e| e.entrant == pair)
            .map(|e| format!(" ({:.2} VP)", e.vp))
            .unwrap_or_default()
    }

    /// The round as printed: `table  N/S  E/W`, each pair with its VPs and names.
    pub fn text(&self) -> String {
        let mut text = format!(
            "{}, round {}\ntable  N/S  E/W\n",
            self.competition_id, self.drawn.round
        );
        for t in &self.drawn.tables {
            let _ = writeln!(
                text,
                "{}  {}{} {}  v  {}{} {}",
                t.table,
                t.ns,
                self.vp_of(&t.ns),
                self.who(&t.ns),
                t.ew,
                self.vp_of(&t.ew),
                self.who(&t.ew)
            );
        }
        text
    }

    /// The round as CSV: round, table, ns, ew, ns_names, ew_names.
    pub fn frame(&self) -> PolarsResult<DataFrame> {
        let tables = &self.drawn.tables;
        let round = self.drawn.round as i32;
        FrameBuilder::new(tables.len())
            .map("round", tables, |_| round)
            .map("table", tables, |t| t.table as i32)
            .map("ns", tables, |t| t.ns.clone())
            .map("ew", tables, |t| t.ew.clone())
            .map("ns_names", tables, |t| self.who(&t.ns))
            .map("ew_names", tables, |t| self.who(&t.ew))
            .build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(round_to(62.495, 2), 62.5);
        assert_eq!(round_to(-2.5, 0), -3.0);
        assert_eq!(round_to(20.55, 1), 20.6);
        assert_eq!(round_to(65.476_19, 2), 65.48);
    }

    #[test]
    fn names_are_printed_then_members_then_numbers() {
        let members: MemberNames = [(7, "Åsa Ödman"), (8, "Bo Ek")].into_iter().collect();
        let mut e = Entrant::new("c1", "3");
        e.players = [Some(7), Some(9), None, Some(8)];
        e.names = [None, None, Some("Guest".into()), Some("B. Ek".into())];
        // Slot 1 the member's name, 2 a number not in the list, 3 a printed guest, 4
        // the printed name before the member's.
        assert_eq!(names_of(&e, &members), "Åsa Ödman – #9 – Guest – B. Ek");
        e.players = [None, Some(8), None, None];
        e.names = [Some(String::new()), None, None, None];
        assert_eq!(names_of(&e, &members), " – Bo Ek");
    }

    #[test]
    fn cells_print_as_the_formatter_prints() {
        assert_eq!(cell(Some(62.5), 2), "62.50");
        assert_eq!(cell(Some(-0.0), 2), "-0.00");
        assert_eq!(cell(Some(-3.0), 0), "-3");
        assert_eq!(cell(Some(20.55), 1), "20.6");
        assert_eq!(cell(None, 2), "");
        let mut values = vec![0.0, -0.0, 0.005, -0.005, 1e-12, -1e-12, 2.675, 1e9, 1e15];
        values.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.125, 0.375]);
        for k in -200_000..200_000i64 {
            let v = k as f64 / 1000.0;
            values.extend([v, round_to(v, 2), round_to(v, 1), round_to(v, 2) + 50.0]);
        }
        for v in values {
            for decimals in 0..=3 {
                let expected = format!("{v:.decimals$}");
                assert_eq!(cell(Some(v), decimals), expected, "{v:e} to {decimals}");
            }
        }
    }

    /// Members' names are found by id whether the ids lie close together or far
    /// apart; of two names for one id the last counts, and an id without a name (or
    /// outside the ids listed) has none.
    #[test]
    fn members_names_are_found_by_id() {
        let close: MemberNames = [(7, "Åsa"), (8, "Bo Ek"), (10, ""), (7, "Åsa Ödman")]
            .into_iter()
            .collect();
        let far: MemberNames = [
            (-5, "Cy"),
            (7, "Åsa"),
            (4_000_000_000, "Bo Ek"),
            (7, "Åsa Ödman"),
        ]
        .into_iter()
        .collect();
        assert!(!close.dense.is_empty());
        assert!(far.dense.is_empty());
        assert_eq!(close.get(7), Some("Åsa Ödman"));
        assert_eq!(close.get(8), Some("Bo Ek"));
        assert_eq!(close.get(10), Some(""));
        for id in [6, 9, 11, 1 << 40, i64::MIN, i64::MAX] {
            assert_eq!(close.get(id), None, "{id}");
        }
        assert_eq!(far.get(-5), Some("Cy"));
        assert_eq!(far.get(7), Some("Åsa Ödman"));
        assert_eq!(far.get(4_000_000_000), Some("Bo Ek"));
        assert_eq!(far.get(8), None);
        assert_eq!(MemberNames::from_iter([]).get(0), None);
    }

    /// Every competition's names found together are those found one by one, from a
    /// dataset's rows and from the compact table alike, for competitions listed in
    /// another order than their entrants were read and for one without entrants.
    #[test]
    fn competitions_names_together_are_those_one_by_one() {
        let members = [(1, "Ann"), (2, "Bo"), (3, "Cy")].map(|(id, name)| Member {
            name: Some(name.into()),
            ..Member::new(id)
        });
        let mut entrants = Vec::new();
        for (competition, entrant, players) in [
            ("a", "1", [Some(1), Some(2), None, None]),
            ("a", "2", [Some(3), Some(9), None, None]),
            ("b", "1", [Some(2), None, None, None]),
            ("a", "1", [Some(3), None, None, None]),
        ] {
            let mut e = Entrant::new(competition, entrant);
            e.players = players;
            entrants.push(e);
        }
        let mut table = EntrantTable::default();
        for e in &entrants {
            table.push(e);
        }
        table.group();
        let date = NaiveDate::from_ymd_opt(2026, 1, 5).unwrap_or_default();
        let competitions = ["b", "c", "a"].map(|id| {
            Competition::new(
                id,
                date,
                crate::dataset::Format::Pairs,
                crate::dataset::ScoringMethod::Matchpoints,
            )
        });
        for names in [
            EntrantNames::of_rows(&members, &entrants),
            EntrantNames::of_table(&members, &table),
        ] {
            let together: Vec<[String; 3]> = names
                .competitions(&competitions)
                .iter()
                .map(|c| ["1", "2", "3"].map(|e| c.of(e)))
                .collect();
            assert_eq!(
                together,
                [
                    ["Bo".to_string(), String::new(), String::new()],
                    [String::new(), String::new(), String::new()],
                    ["Cy".to_string(), "Cy – #9".to_string(), String::new()],
                ]
            );
            for (c, expected) in competitions.iter().zip(&together) {
                let one = names.competition(&c.competition_id);
                assert_eq!(&["1", "2", "3"].map(|e| one.of(e)), expected);
            }
        }
    }

    #[test]
    fn ranks_are_shared() {
        assert_eq!(shared_ranks(&[3.0, 5.0, 3.0, -1.0]), [2, 1, 2, 4]);
    }
}
