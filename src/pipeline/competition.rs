//! One competition scored from its own rows: the rows grouped by competition, the
//! per-competition scoring, and the running over every competition in parallel that
//! both `bridgehcp score` and a run use.
//!
//! It sits below the passes, the preparation for the model and the whole-dataset
//! scoring, which all build on it.

use std::borrow::Cow;
use std::ops::Range;

use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::dataset::entrant_table::{
    CompactRow, CompactTable, EntrantRow, EntrantTable, Found, ResultRow, ResultTable,
};
use crate::dataset::{
    BoardBatch, BoardRef, BoardRow, Competition, Dataset, Entrant, EntrantResult,
};
use crate::error::InputError;
use crate::quarantine::Quarantined;
use crate::scoring::{self, BoardScore, Boards, Standing};

use super::prepared::PreparedCompetition;
use super::reported;
use super::Rate;

/// A competition's outcome, whose board scores a pass moves into one compact table.
pub(super) trait WithBoardScores {
    fn take_board_scores(&mut self) -> Vec<BoardScore>;
}

impl WithBoardScores for ScoredOne {
    fn take_board_scores(&mut self) -> Vec<BoardScore> {
        std::mem::take(&mut self.board_scores)
    }
}

/// An outcome as a pass keeps it, in a box of its own (see `passes::Collected`).
pub(super) type Held<T> = Box<Result<T, InputError>>;

/// The rows of one competition.
pub(super) struct Rows<'a> {
    pub entrants: Vec<&'a Entrant>,
    /// The results the club reported, if any.
    pub reported: Vec<&'a EntrantResult>,
    pub boards: &'a [BoardRef<'a>],
}

/// One competition scored.
pub(super) struct ScoredOne {
    /// From board rows, the scoring's results on the program's own scale; else the
    /// reported results.
    pub results: Vec<EntrantResult>,
    pub standings: Vec<Standing>,
    pub board_scores: Vec<BoardScore>,
    /// The model's input, when asked for ([`score_source`]).
    pub rated: Option<PreparedCompetition>,
}

/// A dataset's entrant and reported-result rows. A run needs them only while it scores
/// (a row per entrant of the whole history), so a caller that owns them hands them
/// over, and the run lets them go before the replay.
pub struct EntrantRows<'a> {
    pub entrants: Entrants<'a>,
    pub results: Results<'a>,
}

/// Entrant rows as structs (a dataset's own), or read compactly ([`EntrantTable`]).
pub enum Entrants<'a> {
    Rows(Cow<'a, [Entrant]>),
    Table(Box<EntrantTable>),
}

impl Entrants<'_> {
    /// How many entrant rows there are.
    pub fn len(&self) -> usize {
        match self {
            Entrants::Rows(rows) => rows.len(),
            Entrants::Table(table) => table.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Result rows as structs (a dataset's own), or read compactly ([`ResultTable`]).
pub enum Results<'a> {
    Rows(Cow<'a, [EntrantResult]>),
    Table(Box<ResultTable>),
}

impl<'a> EntrantRows<'a> {
    /// The rows of `dataset`, borrowed.
    pub fn of(dataset: &'a Dataset) -> Self {
        EntrantRows {
            entrants: Entrants::Rows(Cow::Borrowed(&dataset.entrants)),
            results: Results::Rows(Cow::Borrowed(&dataset.results)),
        }
    }

    /// The rows of `dataset`, taken out of it.
    pub fn taken_from(dataset: &mut Dataset) -> EntrantRows<'static> {
        EntrantRows {
            entrants: Entrants::Rows(Cow::Owned(std::mem::take(&mut dataset.entrants))),
            results: Results::Rows(Cow::Owned(std::mem::take(&mut dataset.results))),
        }
    }

    /// The entrant and result rows a reader kept compactly (grouped by competition,
    /// see [`EntrantTable::group`]).
    pub fn compact(entrants: EntrantTable, results: ResultTable) -> EntrantRows<'static> {
        EntrantRows {
            entrants: Entrants::Table(Box::new(entrants)),
            results: Results::Table(Box::new(results)),
        }
    }
}

/// Where a competition's entrant or result rows are found: grouped by id, or in a
/// compact table, each competition found there once, by place in replay order.
enum RowIndex<'r, R: CompactRow> {
    Grouped(HashMap<&'r str, Vec<&'r R::Full>>),
    Table(&'r CompactTable<R>, Vec<Found>),
}

type EntrantIndex<'r> = RowIndex<'r, EntrantRow>;
type ResultIndex<'r> = RowIndex<'r, ResultRow>;

impl<'r, R: CompactRow> RowIndex<'r, R> {
    /// Finds a compact table's competitions `ids` (in the dataset's order) once, kept
    /// in replay order by `in_replay_order`.
    fn find<'i>(
        &mut self,
        ids: impl IntoIterator<Item = &'i str>,
        in_replay_order: impl Fn(Vec<Found>) -> Vec<Found>,
    ) {
        if let RowIndex::Table(table, found) = self {
            *found = in_replay_order(table.find_competitions(ids));
        }
    }

    /// Whether a compact table let go of any rows.
    fn released(&self) -> bool {
        matches!(self, RowIndex::Table(table, _) if table.any_released())
    }

    /// Lets go of a compact table's rows of the competition at place `at` in replay
    /// order ([`CompactTable::release`]).
    fn release(&self, at: usize) {
        if let RowIndex::Table(table, found) = self {
            if let Some(&found) = found.get(at) {
                table.release(found);
            }
        }
    }

    /// The rows of competition `id`, at place `at` in replay order; those of a compact
    /// table are unpacked into `owned`, which they borrow.
    fn rows<'s>(&'s self, at: usize, id: &str, owned: &'s mut Vec<R::Full>) -> Vec<&'s R::Full> {
        match self {
            RowIndex::Grouped(map) => map.get(id).cloned().unwrap_or_default(),
            RowIndex::Table(table, found) => {
                *owned = found
                    .get(at)
                    .map_or_else(Vec::new, |&found| table.found_competition(found));
                owned.iter().collect()
            }
        }
    }
}

/// A dataset's competitions in replay order, with each one's entrants and reported
/// results, so that a competition's rows can be put together whenever its board rows
/// arrive (all at once, or a file at a time).
pub(super) struct Index<'c, 'r> {
    /// Every competition, in replay order (date, session, id).
    pub order: Vec<&'c Competition>,
    position: HashMap<&'c str, usize>,
    entrants: EntrantIndex<'r>,
    results: ResultIndex<'r>,
}

impl<'a> Index<'a, 'a> {
    /// The index of a dataset's own rows.
    pub fn of(dataset: &'a Dataset) -> Self {
        Index::build(
            &dataset.competitions,
            RowIndex::Grouped(group(&dataset.entrants, |e| e.competition_id.as_str())),
            RowIndex::Grouped(group(&dataset.results, |r| r.competition_id.as_str())),
        )
    }
}

impl<'c, 'r> Index<'c, 'r> {
    pub fn new(
        competitions: &'c [Competition],
        entrants: &'r Entrants<'_>,
        results: &'r Results<'_>,
    ) -> Self {
        let entrants = match entrants {
            Entrants::Rows(rows) => RowIndex::Grouped(group(rows, |e| e.competition_id.as_str())),
            Entrants::Table(table) => RowIndex::Table(table, Vec::new()),
        };
        let results = match results {
            Results::Rows(rows) => RowIndex::Grouped(group(rows, |r| r.competition_id.as_str())),
            Results::Table(table) => RowIndex::Table(table, Vec::new()),
        };
        Index::build(competitions, entrants, results)
    }

    fn build(
        competitions: &'c [Competition],
        mut entrants: EntrantIndex<'r>,
        mut results: ResultIndex<'r>,
    ) -> Self {
        let mut places: Vec<usize> = (0..competitions.len()).collect();
        places.sort_by(|&a, &b| {
            competitions[a]
                .order_key()
                .cmp(&competitions[b].order_key())
        });
        let order: Vec<&Competition> = places.iter().map(|&at| &competitions[at]).collect();
        let position = order
            .iter()
            .enumerate()
            .map(|(at, c)| (c.competition_id.as_str(), at))
            .collect();
        // A compact table's competitions are found once, in the dataset's order (the
        // order of their rows), and kept by place in replay order.
        let ids = || competitions.iter().map(|c| c.competition_id.as_str());
        let in_replay_order =
            |found: Vec<Found>| -> Vec<Found> { places.iter().map(|&at| found[at]).collect() };
        entrants.find(ids(), in_replay_order);
        results.find(ids(), in_replay_order);
        Index {
            order,
            position,
            entrants,
            results,
        }
    }

    /// The place of competition `id` in replay order.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.position.get(id).copied()
    }

    /// Board rows by competition: (place in replay order, rows in their order), in
    /// replay order. Rows of a competition the index does not hold are left out.
    pub fn group<'b>(&self, boards: Boards<'b>) -> Vec<(usize, Vec<BoardRef<'b>>)> {
        let mut by_place: HashMap<usize, Vec<BoardRef<'b>>> = HashMap::default();
        // A competition's rows come together: each run of one id is looked up once.
        match boards {
            Boards::Rows(rows) => {
                let mut rest = rows;
                while let Some(first) = rest.first() {
                    let id = &first.competition_id;
                    let run = rest
                        .iter()
                        .position(|row| row.competition_id != *id)
                        .unwrap_or(rest.len());
                    let (here, after) = rest.split_at(run);
                    if let Some(at) = self.position(id) {
                        by_place
                            .entry(at)
                            .or_default()
                            .extend(here.iter().map(BoardRef::Row));
                    }
                    rest = after;
                }
            }
            Boards::Batch(batch) => {
                // The reader numbered the competitions: runs are found by number.
                let mut rest = &batch.slots[..];
                while let Some(first) = rest.first() {
                    let run = rest
                        .iter()
                        .position(|slot| slot.competition != first.competition)
                        .unwrap_or(rest.len());
                    let (here, after) = rest.split_at(run);
                    if let Some(at) = self.position(batch.row(first).competition_id()) {
                        by_place
                            .entry(at)
                            .or_default()
                            .extend(here.iter().map(|slot| batch.row(slot)));
                    }
                    rest = after;
                }
            }
        }
        let mut grouped: Vec<(usize, Vec<BoardRef<'b>>)> = by_place.into_iter().collect();
        grouped.sort_unstable_by_key(|(at, _)| *at);
        grouped
    }

    /// A batch's rows by competition, as places among its slots: (place in replay
    /// order, the runs of slots holding its rows, in their order), in replay order.
    /// Rows of a competition the index does not hold are left out. It is
    /// [`Index::group`] without the rows themselves: what is found borrows nothing, so
    /// it may be kept while the batch before is worked on, and each competition's rows
    /// are put together by its own task.
    pub fn runs(&self, batch: &BoardBatch) -> Vec<(usize, Vec<Range<usize>>)> {
        let mut found: Vec<(usize, Range<usize>)> = Vec::new();
        let mut start = 0;
        while let Some(first) = batch.slots.get(start) {
            let run = batch.slots[start..]
                .iter()
                .position(|slot| slot.competition != first.competition)
                .unwrap_or(batch.slots.len() - start);
            if let Some(at) = self.position(batch.row(first).competition_id()) {
                found.push((at, start..start + run));
            }
            start += run;
        }
        // Stable: the runs of one competition keep their order.
        found.sort_by_key(|(at, _)| *at);
        let mut runs: Vec<(usize, Vec<Range<usize>>)> = Vec::with_capacity(found.len());
        for (at, range) in found {
            match runs.last_mut() {
                Some((last, ranges)) if *last == at => ranges.push(range),
                _ => runs.push((at, vec![range])),
            }
        }
        runs
    }

    /// Whether any competition's entrant or result rows were let go of.
    pub fn rows_released(&self) -> bool {
        self.entrants.released() || self.results.released()
    }

    /// Lets go of the entrant and result rows of the competition at `at`, which a run
    /// from scratch has hashed and scored and reads no more: held compactly, the rows
    /// of the months scored are freed as the reading goes on.
    pub fn release_rows(&self, at: usize) {
        self.entrants.release(at);
        self.results.release(at);
    }

    /// Runs `f` on the rows of the competition at `at`, with the given board rows. A
    /// compactly held competition's entrant rows exist as structs only during the call.
    pub fn with_rows<T>(
        &self,
        at: usize,
        boards: &[BoardRef<'_>],
        f: impl FnOnce(&Rows<'_>) -> T,
    ) -> T {
        let id = self.order[at].competition_id.as_str();
        let (mut owned_entrants, mut owned_results) = (Vec::new(), Vec::new());
        let entrants = self.entrants.rows(at, id, &mut owned_entrants);
        let reported = self.results.rows(at, id, &mut owned_results);
        f(&Rows {
            entrants,
            reported,
            boards,
        })
    }
}

/// Runs `one` on every competition in replay order, in parallel. Returns what succeeded
/// and the competitions that failed (with the error), both in replay order.
pub(super) fn each_competition<T: Send>(
    dataset: &Dataset,
    one: impl Fn(&Competition, &Rows<'_>) -> Result<T, InputError> + Sync,
    on_competition_done: &(dyn Fn() + Sync),
) -> (Vec<T>, Vec<Quarantined>) {
    let index = Index::of(dataset);
    let mut boards: Vec<Vec<BoardRef<'_>>> = vec![Vec::new(); index.order.len()];
    for (at, rows) in index.group(Boards::Rows(&dataset.boards)) {
        boards[at] = rows;
    }
    let outcomes: Vec<Result<T, InputError>> = index
        .order
        .par_iter()
        .zip(&boards)
        .enumerate()
        .map(|(at, (competition, boards))| {
            let out = index.with_rows(at, boards, |rows| one(competition, rows));
            on_competition_done();
            out
        })
        .collect();
    split_outcomes(&index.order, outcomes)
}

/// Outcomes in replay order, split into what succeeded and what is quarantined.
pub(super) fn split_outcomes<T>(
    order: &[&Competition],
    outcomes: impl IntoIterator<Item = Result<T, InputError>>,
) -> (Vec<T>, Vec<Quarantined>) {
    let mut done = Vec::new();
    let mut quarantined = Vec::new();
    for (competition, outcome) in order.iter().zip(outcomes) {
        match outcome {
            Ok(one) => done.push(one),
            Err(error) => quarantined.push(failed(competition, error)),
        }
    }
    (done, quarantined)
}

/// A competition that failed in scoring or preparing, as the quarantine lists it.
pub(super) fn failed(competition: &Competition, error: InputError) -> Quarantined {
    Quarantined {
        competition_id: competition.competition_id.clone(),
        date: Some(competition.date),
        session: Some(competition.session),
        reasons: vec![error],
    }
}

fn group<'a, T>(rows: &'a [T], key: impl Fn(&'a T) -> &'a str) -> HashMap<&'a str, Vec<&'a T>> {
    let mut map: HashMap<&str, Vec<&T>> = HashMap::default();
    for row in rows {
        map.entry(key(row)).or_default().push(row);
    }
    map
}

/// Scores one competition: from its board rows when it has any, else from the reported
/// results. With both, the reported results must name the same entrants and boards
/// played, and `rate` says which result counts: the reported one (with standings ranked
/// from it, the board scores still scored) or the board rows' own.
pub(super) fn score_one(
    competition: &Competition,
    rows: &Rows<'_>,
    rate: Rate,
) -> Result<ScoredOne, InputError> {
    let here = || competition.location();
    if rows.entrants.is_empty() {
        return Err(InputError::new(here(), "competition has no entrants"));
    }
    let scored = if rows.boards.is_empty() {
        if rows.reported.is_empty() {
            return Err(InputError::new(
                here(),
                "competition has neither results nor board rows",
            ));
        }
        let results: Vec<EntrantResult> = rows.reported.iter().map(|r| (*r).clone()).collect();
        let standings = reported::standings_from_results(competition, &rows.entrants, &results);
        ScoredOne {
            results,
            standings,
            board_scores: Vec::new(),
            rated: None,
        }
    } else {
        let scored = scoring::score_competition(competition, &rows.entrants, rows.boards)?;
        reported::check_reported(competition, &rows.reported, &scored.results)?;
        if rate == Rate::Published && reported::differs(&rows.reported, &scored.results) {
            let results: Vec<EntrantResult> = rows.reported.iter().map(|r| (*r).clone()).collect();
            let standings = reported::standings_from_results(competition, &rows.entrants, &results);
            ScoredOne {
                results,
                standings,
                board_scores: scored.board_scores,
                rated: None,
            }
        } else {
            ScoredOne {
                results: scored.results,
                standings: scored.standings,
                board_scores: scored.board_scores,
                rated: None,
            }
        }
    };
    check_boards_played(competition, &scored.results, rows.boards)?;
    Ok(scored)
}

/// An entrant cannot play more boards than the competition has; `score` and `run` hold
/// every competition to it, rated or not.
fn check_boards_played(
    competition: &Competition,
    results: &[EntrantResult],
    board_rows: &[BoardRef<'_>],
) -> Result<(), InputError> {
    let n_boards = match competition.boards {
        Some(n) => n,
        None if board_rows.is_empty() => return Ok(()),
        None => distinct_boards(board_rows),
    };
    match results.iter().find(|r| r.boards_played > n_boards) {
        Some(result) => Err(InputError::new(
            result
                .origin
                .location()
                .competition(&competition.competition_id)
                .column("boards_played"),
            format!(
                "boards_played {} of entrant `{}` is more than the competition's {n_boards} boards",
                result.boards_played, result.entrant
            ),
        )),
        None => Ok(()),
    }
}

/// The number of distinct boards the rows hold.
pub(super) fn distinct_boards(board_rows: &[impl BoardRow]) -> u32 {
    board_rows
        .iter()
        .map(BoardRow::board)
        .collect::<HashSet<_>>()
        .len() as u32
}

#[cfg(test)]
pub(super) mod tests {
    use chrono::NaiveDate;

    use super::*;
    use crate::dataset::{BoardResult, Format, ScoringMethod};

    /// A board row of competition `id` with nothing but its number.
    pub(in crate::pipeline) fn board(id: &str, number: u32) -> BoardResult {
        BoardResult {
            competition_id: id.into(),
            board: number,
            ..BoardResult::default()
        }
    }

    /// A dataset of pairs matchpoint competitions, each an id and its day of March 2026.
    pub(in crate::pipeline) fn march_pairs(competitions: &[(&str, u32)]) -> Dataset {
        let mut dataset = Dataset::default();
        for &(id, day) in competitions {
            dataset.competitions.push(Competition::new(
                id,
                NaiveDate::from_ymd_opt(2026, 3, day).unwrap_or_default(),
                Format::Pairs,
                ScoringMethod::Matchpoints,
            ));
        }
        dataset
    }

    /// Board rows of competitions `a`, `b`, `c` of [`march_pairs`] and `x` (not among
    /// them) taking turns: `a` comes in two runs, `x` is not in the index, `c` is one row.
    fn taking_turns() -> Vec<BoardResult> {
        vec![
            board("a", 1),
            board("a", 2),
            board("b", 1),
            board("x", 1),
            board("x", 2),
            board("a", 3),
            board("b", 2),
            board("c", 7),
        ]
    }

    #[test]
    fn rows_are_grouped_by_competition_in_replay_order_each_in_file_order() {
        // Replay order: `b` (1 March), `a` (2 March), `c` (2 March, a later id).
        let dataset = march_pairs(&[("a", 2), ("b", 1), ("c", 2)]);
        let index = Index::of(&dataset);
        let rows = taking_turns();
        let grouped: Vec<(usize, Vec<(String, u32)>)> = index
            .group(Boards::Rows(&rows))
            .into_iter()
            .map(|(at, rows)| {
                let rows = rows
                    .iter()
                    .map(|r| (r.competition_id().to_string(), r.board()))
                    .collect();
                (at, rows)
            })
            .collect();
        let named = |id: &str, boards: &[u32]| -> Vec<(String, u32)> {
            boards.iter().map(|&b| (id.to_owned(), b)).collect()
        };
        assert_eq!(
            grouped,
            vec![
                (0, named("b", &[1, 2])),
                (1, named("a", &[1, 2, 3])),
                (2, named("c", &[7])),
            ]
        );
        assert!(index.group(Boards::Rows(&[])).is_empty());
    }

    /// A reader's batch of `rows` in one column set, each row numbered by its id's
    /// first letter (equal ids, equal numbers).
    pub(in crate::pipeline) fn batch_of(rows: Vec<BoardResult>) -> BoardBatch {
        let slots = (0..)
            .zip(&rows)
            .map(|(at, row)| crate::dataset::BoardSlot {
                set: 0,
                row: at,
                board: row.board,
                competition: row
                    .competition_id
                    .as_bytes()
                    .first()
                    .copied()
                    .map_or(0, u32::from),
            })
            .collect();
        BoardBatch {
            sets: vec![std::sync::Arc::new(crate::dataset::OwnedBoards(rows))],
            slots,
        }
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init)] // a competition's runs: here, one
    fn a_batch_is_cut_into_each_competitions_runs_of_slots_in_replay_order() {
        // Replay order: `b` (1 March), `a` (2 March), `c` (2 March, a later id).
        let dataset = march_pairs(&[("a", 2), ("b", 1), ("c", 2)]);
        let index = Index::of(&dataset);
        // Slots 0-1 `a`, 2 `b`, 3-4 `x` (not in the index), 5 `a` again, 6 `b`, 7 `c`.
        let batch = batch_of(taking_turns());
        assert_eq!(
            index.runs(&batch),
            vec![
                (0, vec![2..3, 6..7]),
                (1, vec![0..2, 5..6]),
                (2, vec![7..8]),
            ]
        );
        assert!(index.runs(&BoardBatch::default()).is_empty());
    }
}
