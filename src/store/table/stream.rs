//! Board rows a piece at a time, handed on competition by competition.
//!
//! Board rows are nearly all of a federation's history (tens of millions in ten years)
//! and nothing needs more than one competition's rows at once: scoring and the ledger's
//! content hash are per competition. So the board files are read one piece after
//! another (a row group of a Parquet file of several, else a whole file) and each
//! competition is handed on, and its rows dropped, as soon as the last piece that holds
//! any of them has been read. Which piece that is comes from a first look at each
//! piece's `competition_id` column alone. In the importer's layout (one hive partition
//! per month) every competition is whole in one file, so at most one file's rows are in
//! memory; one large `boards.parquet` (17 million rows at 30 000 members over ten
//! years) streams the same way, a row group at a time, since a competition's rows are
//! together and it waits only for the row group that holds its last.
//!
//! The first pass over the pieces also holds every row to the rules, exactly as reading
//! the whole table did, naming the row of the file: the quarantine is only final after
//! it ([`BoardReader::finish`]). A later pass (a continued run that first hashes
//! everything, then scores what is new) reads only the pieces that hold a competition
//! it wants.
//!
//! Polars' own reader does the row groups: given a row slice it decodes only the groups
//! that hold it, behind the same footer checks and panic guard as a whole file, so no
//! second Parquet reader is needed.

use rustc_hash::FxHashMap as HashMap;

use std::sync::Arc;

use crate::dataset::{BoardBatch, BoardColumns, BoardResult, BoardRow, BoardSlot, Dataset, Text};
use crate::error::Error;
use crate::quarantine::{OnError, Quarantine};

use super::cells::Presence::Required;
use std::ops::Range;

use super::locate::{read_frame_columns, row_groups, SourceFile};
use super::rows::{build_boards, check_boards, CheckedBoards};
use super::Check;

/// What takes each batch of a pass.
type TakeBatch<'a> = dyn FnMut(&BoardBatch) -> Result<(), Error> + 'a;

/// The board files of a dataset, in pieces, and the competitions each piece holds.
#[derive(Debug, Default)]
pub(super) struct BoardFiles {
    files: Vec<SourceFile>,
    /// The parts of the files read one at a time, in file and row order.
    pieces: Vec<Piece>,
    /// Every competition id found in a board file, interned: `index[id]` is its place.
    ids: Vec<String>,
    index: HashMap<String, u32>,
    /// Per piece, the competitions it holds (interned, each once).
    piece_ids: Vec<Vec<u32>>,
    /// Per competition, the last piece that holds a row of it.
    last_piece: Vec<usize>,
    /// Per competition, its rows in all the files: room for those that wait for a
    /// later piece is made once.
    sizes: Vec<usize>,
    /// Rows in all the files.
    rows: usize,
}

/// What is read at once: a row group of a Parquet file of several, or a whole file.
#[derive(Debug, Clone)]
struct Piece {
    /// Place of the file in [`BoardFiles::files`].
    file: usize,
    /// The file's rows, when it is read a row group at a time.
    rows: Option<Range<usize>>,
}

impl BoardFiles {
    /// Lists the competitions of every piece, reading only its `competition_id` column
    /// (from the file, or from a hive partition folder). A Parquet file of several row
    /// groups (one large `boards.parquet`) is cut into one piece per row group, so that
    /// it streams as the month partitions do. A file without the column is listed as
    /// holding nothing; reading it then reports the missing column.
    pub(super) fn scan(files: Vec<SourceFile>) -> Result<Self, Error> {
        let mut scanned = BoardFiles::default();
        for (at, file) in files.iter().enumerate() {
            match row_groups(file)? {
                Some(groups) if groups.len() > 1 => {
                    let mut start = 0;
                    for rows in groups {
                        scanned.pieces.push(Piece {
                            file: at,
                            rows: Some(start..start + rows),
                        });
                        start += rows;
                    }
                }
                _ => scanned.pieces.push(Piece {
                    file: at,
                    rows: None,
                }),
            }
        }
        scanned.piece_ids = Vec::with_capacity(scanned.pieces.len());
        for (at, piece) in scanned.pieces.iter().enumerate() {
            let frame = read_frame_columns(
                &files[piece.file],
                Some(&["competition_id"]),
                piece.rows.clone(),
            )?;
            scanned.rows += frame.height();
            let mut here = Vec::new();
            if frame.df.column("competition_id").is_ok() {
                let ids = frame.col::<Text>("competition_id", Required)?;
                let mut last: Option<Text> = None;
                let mut current: Option<u32> = None;
                for row in 0..frame.height() {
                    // A row's id is compared with the row before's (its rows are
                    // together) before it is looked up.
                    let Some(id) = ids.peek(row, |id| match &last {
                        Some(before) if before.as_str() == id => None,
                        _ => Some(Text::from(id)),
                    }) else {
                        continue;
                    };
                    let Some(id) = id else {
                        if let Some(current) = current {
                            scanned.sizes[current as usize] += 1;
                        }
                        continue;
                    };
                    let interned = match scanned.index.get(id.as_str()) {
                        Some(&interned) => interned,
                        None => {
                            let interned = scanned.ids.len() as u32;
                            scanned.index.insert(id.to_string(), interned);
                            scanned.ids.push(id.to_string());
                            scanned.last_piece.push(at);
                            scanned.sizes.push(0);
                            interned
                        }
                    };
                    scanned.sizes[interned as usize] += 1;
                    current = Some(interned);
                    here.push(interned);
                    scanned.last_piece[interned as usize] = at;
                    last = Some(id);
                }
            }
            here.sort_unstable();
            here.dedup();
            scanned.piece_ids.push(here);
        }
        scanned.files = files;
        Ok(scanned)
    }

    /// How many board files there are.
    pub(super) fn len(&self) -> usize {
        self.files.len()
    }
}

/// A dataset opened for a run: every table but `boards` read and checked, and the
/// board files listed, to be read by [`BoardReader::read_boards`].
#[derive(Debug)]
pub struct Opened {
    /// Members, competitions, entrants and results (no board rows). It still holds the
    /// competitions a board row or a rule that needs every table quarantines: the
    /// quarantine [`BoardReader::finish`] returns lists them.
    pub head: Dataset,
    pub boards: BoardReader,
}

/// The board files of an opened dataset, read a piece at a time.
#[derive(Debug)]
pub struct BoardReader {
    check: Check,
    files: BoardFiles,
    /// Set once a pass has read every piece: the quarantine is then final.
    finished: bool,
    /// Set when the caller said no pass follows, and the checks' state went.
    released: bool,
}

impl BoardReader {
    pub(super) fn new(check: Check, files: BoardFiles) -> Self {
        BoardReader {
            check,
            files,
            finished: false,
            released: false,
        }
    }

    /// How many board files the dataset has.
    pub fn files(&self) -> usize {
        self.files.len()
    }

    /// Reads the board files in order, a piece (row group or file) at a time, and calls
    /// `each` with the rows of every competition `wanted` accepts whose last piece has
    /// just been read, in a batch or a few per piece (the rows of one competition
    /// together in one batch, in file and row order; competitions quarantined by a row
    /// left out). The first pass reads every piece and checks every row; later passes
    /// read only the pieces holding a wanted competition, and leave the quarantine as
    /// the first pass made it. `each` may take the rows, built as structs.
    pub fn read_boards(
        &mut self,
        wanted: &(dyn Fn(&str) -> bool + Sync),
        each: &mut dyn FnMut(&mut Vec<BoardResult>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.read_batches(wanted, &mut |batch| {
            let mut rows: Vec<BoardResult> = batch.rows().map(|row| row.to_result()).collect();
            each(&mut rows)
        })
    }

    /// [`BoardReader::read_boards`], with each batch's rows where they lie, in their
    /// files' columns.
    fn read_batches(
        &mut self,
        wanted: &(dyn Fn(&str) -> bool + Sync),
        each: &mut TakeBatch<'_>,
    ) -> Result<(), Error> {
        if self.released {
            return Err(Error::Config(
                "the board rows were read again after their checks were let go".to_owned(),
            ));
        }
        let first = !self.finished;
        let wanted_ids: Vec<bool> = self.files.ids.iter().map(|id| wanted(id)).collect();
        // A later pass checks the rows again (they are read again), but what it finds
        // was found and recorded by the first.
        let kept = if first {
            None
        } else {
            Some(std::mem::replace(
                &mut self.check.quarantine,
                Quarantine::new(OnError::Quarantine),
            ))
        };
        let outcome = self.pass(first, &wanted_ids, each);
        if let Some(kept) = kept {
            self.check.quarantine = kept;
        }
        outcome
    }

    /// One pass. The pieces are read and their rows checked on a thread of their own
    /// while `each` works on the batch before (hashing and scoring it in parallel), so
    /// reading overlaps the work on what was read. A checked batch is handed over
    /// when `each` is ready for it (a batch is a piece's decoded columns, some 50 MB
    /// at a federation's size), and the next piece is built after: the batch worked
    /// on and the next one, being built or waiting, are all that is held.
    fn pass(
        &mut self,
        first: bool,
        wanted: &[bool],
        each: &mut TakeBatch<'_>,
    ) -> Result<(), Error> {
        let (files, check) = (&self.files, &mut self.check);
        let outcome = std::thread::scope(|scope| {
            let (send, batches) = std::sync::mpsc::sync_channel(0);
            let reader = scope.spawn(move || produce(files, check, first, wanted, &send));
            let mut outcome = Ok(());
            for batch in batches.iter() {
                if let Err(error) = batch.and_then(|batch| each(&batch)) {
                    outcome = Err(error);
                    break;
                }
            }
            // A reader waiting to hand on another batch stops when nobody takes it.
            drop(batches);
            match reader.join() {
                Ok(()) => outcome,
                Err(_) => Err(reader_stopped()),
            }
        });
        if first && outcome.is_ok() {
            self.finished = true;
        }
        outcome
    }

    /// Applies the rules that need every table (a competition without a board count
    /// needs board rows) and returns the quarantine, dated from `head`'s competitions.
    /// Call it after the first [`BoardReader::read_boards`].
    pub fn finish(&mut self, head: &Dataset) -> Result<Quarantine, Error> {
        for (id, error) in self.check.validator.finish_all() {
            self.check.quarantine.add(&id, error)?;
        }
        let mut quarantine = self.check.quarantine.clone();
        if !quarantine.is_empty() {
            for competition in &head.competitions {
                quarantine.date(
                    &competition.competition_id,
                    competition.date,
                    competition.session,
                );
            }
        }
        Ok(quarantine)
    }
}

/// Reads the pieces in order and sends, after each, the rows of the competitions whose
/// last piece it was; an error is sent as the last message. Stops when the receiver is
/// gone. Each piece's rows are built from its cells on a thread of their own (the
/// checks keep the quarantine, so they run in file and row order, on this one).
fn produce(
    boards: &BoardFiles,
    check: &mut Check,
    first: bool,
    wanted: &[bool],
    send: &std::sync::mpsc::SyncSender<Result<BoardBatch, Error>>,
) {
    let to_read: Vec<usize> = (0..boards.pieces.len())
        .filter(|&at| first || boards.piece_ids[at].iter().any(|&id| wanted[id as usize]))
        .collect();
    let build = |at: usize| {
        let piece = &boards.pieces[at];
        read_frame_columns(&boards.files[piece.file], None, piece.rows.clone()).and_then(|frame| {
            build_boards(&frame, &mut |id| {
                boards.index.get(id).copied().unwrap_or(UNLISTED)
            })
        })
    };
    std::thread::scope(|scope| {
        let mut next = to_read.first().map(|&at| scope.spawn(move || build(at)));
        let mut waiting = Waiting::default();
        for (place, &at) in to_read.iter().enumerate() {
            let built = match next.take().map(|reading| reading.join()) {
                Some(Ok(built)) => built,
                _ => Err(reader_stopped()),
            };
            let rows = match built.and_then(|built| check_boards(built, check)) {
                Ok(rows) => rows,
                Err(error) => {
                    let _ = send.send(Err(error));
                    return;
                }
            };
            let batch = complete_competitions(boards, check, wanted, at, rows, &mut waiting);
            let handed_on = batch.slots.is_empty() || send.send(Ok(batch)).is_ok();
            // The next piece is built once this one is taken, while it is worked on:
            // a piece built ahead would wait beside it, and building and checking a
            // piece take a fraction of the time its hashing and scoring take.
            next = to_read
                .get(place + 1)
                .filter(|_| handed_on)
                .map(|&following| scope.spawn(move || build(following)));
            if !handed_on {
                return;
            }
        }
    });
}

/// The number of a competition id no board file listed (none: every id is listed when
/// the files are scanned).
const UNLISTED: u32 = u32::MAX;

/// The rows of competitions that go on into a later piece, and the column sets they
/// are read from. A set is named by the piece that read it: piece `at`'s set `s` is
/// `2 * at + s` ([`super::rows::COLUMNS`], [`super::rows::OWNED`]).
#[derive(Debug, Default)]
struct Waiting {
    rows: HashMap<u32, Vec<BoardSlot>>,
    sets: HashMap<u32, Arc<dyn BoardColumns>>,
}

/// Where a run of one competition's rows goes.
#[derive(Clone, Copy, PartialEq)]
enum To {
    Drop,
    Wait(u32),
    Complete(u32),
}

/// A part of what is handed on, of one competition.
#[derive(Clone, PartialEq, Debug)]
enum Part {
    /// Its rows from earlier pieces, waiting.
    Carried,
    /// Rows of this piece.
    Rows(Range<usize>),
}

/// The rows of the competitions whose last piece is `at`, with those carried over from
/// earlier pieces, in one batch of whole competitions; the rows of competitions that
/// continue in later pieces wait. Rows of unwanted or quarantined competitions are
/// dropped.
///
/// What is handed on is the order of a stable sort by the competitions' numbers (their
/// place among the scanned ids), carried rows before the piece's rows of the same
/// competition, so one competition's rows keep file and row order. The readers that
/// keep every row (the whole dataset in memory) append the batches in this order; the
/// passes that hash and score group them by competition. A row is a place in a column
/// set, a few bytes, so it is moved rather than left where it lies.
fn complete_competitions(
    boards: &BoardFiles,
    check: &Check,
    wanted: &[bool],
    at: usize,
    piece: CheckedBoards,
    waiting: &mut Waiting,
) -> BoardBatch {
    let CheckedBoards { sets, slots } = piece;
    let base = 2 * at as u32;
    for (set, columns) in (base..).zip(sets) {
        waiting.sets.insert(set, columns);
    }
    let runs = route_runs(boards, check, wanted, at, &slots);
    let parts = parts_to_hand_on(boards, check, at, &runs, waiting);
    let batch = hand_on_parts(&parts, &slots, base, waiting);
    hold_waiting_runs(boards, &runs, &slots, base, waiting);
    waiting.drop_unread_sets();
    batch
}

/// Each run of rows of one competition in `slots`, and where it goes: dropped (not
/// listed, not wanted, or quarantined), waiting for a later piece, or complete.
fn route_runs(
    boards: &BoardFiles,
    check: &Check,
    wanted: &[bool],
    at: usize,
    slots: &[BoardSlot],
) -> Vec<(Range<usize>, To)> {
    let quarantine = &check.quarantine;
    let listed = |number: u32| boards.ids.get(number as usize);
    let mut runs: Vec<(Range<usize>, To)> = Vec::new();
    for row in 0..slots.len() {
        let number = slots[row].competition;
        if row > 0 && number == slots[row - 1].competition {
            if let Some((run, _)) = runs.last_mut() {
                run.end = row + 1;
            }
            continue;
        }
        let to = match listed(number) {
            None => To::Drop,
            Some(_) if !wanted.get(number as usize).copied().unwrap_or(false) => To::Drop,
            Some(_) if boards.last_piece[number as usize] != at => To::Wait(number),
            Some(id) if quarantine.contains(id) => To::Drop,
            Some(_) => To::Complete(number),
        };
        runs.push((row..row + 1, to));
    }
    runs
}

/// The parts handed on after piece `at`, in the order handed on: the carried rows of
/// the competitions that end here (a quarantined one's are dropped from `waiting`) and
/// the piece's complete runs, carried rows first, so that a stable sort by competition
/// gives the order.
fn parts_to_hand_on(
    boards: &BoardFiles,
    check: &Check,
    at: usize,
    runs: &[(Range<usize>, To)],
    waiting: &mut Waiting,
) -> Vec<(u32, Part)> {
    let quarantine = &check.quarantine;
    let mut parts: Vec<(u32, Part)> = Vec::new();
    for &id in &boards.piece_ids[at] {
        if boards.last_piece[id as usize] != at || !waiting.rows.contains_key(&id) {
            continue;
        }
        // A competition's rows all share its id: one look settles them all.
        let quarantined = boards
            .ids
            .get(id as usize)
            .is_some_and(|id| quarantine.contains(id));
        if quarantined {
            waiting.rows.remove(&id);
        } else {
            parts.push((id, Part::Carried));
        }
    }
    for (run, to) in runs {
        if let To::Complete(id) = to {
            parts.push((*id, Part::Rows(run.clone())));
        }
    }
    parts.sort_by_key(|(id, _)| *id);
    parts
}

/// The batch of `parts`: the carried rows taken out of `waiting`, the piece's rows
/// (whose sets are named from `base`), each renumbered to the batch's own few sets.
fn hand_on_parts(
    parts: &[(u32, Part)],
    slots: &[BoardSlot],
    base: u32,
    waiting: &mut Waiting,
) -> BoardBatch {
    let mut batch = BoardBatch::default();
    // The batch's sets by the name `waiting` gives them: a batch reads from a few.
    let mut named: Vec<u32> = Vec::new();
    let sets = &waiting.sets;
    let mut hand_on = |slot: BoardSlot, batch: &mut BoardBatch| {
        let set = match named.iter().position(|&name| name == slot.set) {
            Some(place) => place,
            None => {
                let Some(columns) = sets.get(&slot.set) else {
                    return;
                };
                named.push(slot.set);
                batch.sets.push(Arc::clone(columns));
                named.len() - 1
            }
        };
        batch.slots.push(BoardSlot {
            set: set as u32,
            ..slot
        });
    };
    let size: usize = parts
        .iter()
        .map(|(id, part)| match part {
            Part::Carried => waiting.rows.get(id).map_or(0, Vec::len),
            Part::Rows(rows) => rows.len(),
        })
        .sum();
    batch.slots.reserve_exact(size);
    for (id, part) in parts {
        match part {
            Part::Carried => {
                for slot in waiting.rows.remove(id).unwrap_or_default() {
                    hand_on(slot, &mut batch);
                }
            }
            Part::Rows(range) => {
                for slot in &slots[range.clone()] {
                    let set = base + slot.set;
                    hand_on(BoardSlot { set, ..*slot }, &mut batch);
                }
            }
        }
    }
    batch
}

/// Puts the piece's runs of competitions that go on into later pieces in `waiting`,
/// their sets named from `base`.
fn hold_waiting_runs(
    boards: &BoardFiles,
    runs: &[(Range<usize>, To)],
    slots: &[BoardSlot],
    base: u32,
    waiting: &mut Waiting,
) {
    for (run, to) in runs {
        if let To::Wait(id) = to {
            let rows = waiting.rows.entry(*id).or_insert_with(|| {
                Vec::with_capacity(boards.sizes.get(*id as usize).copied().unwrap_or(0))
            });
            rows.extend(slots[run.clone()].iter().map(|slot| BoardSlot {
                set: base + slot.set,
                ..*slot
            }));
        }
    }
}

impl Waiting {
    /// Drops the sets no waiting row reads from (a batch holds its own).
    fn drop_unread_sets(&mut self) {
        let mut kept: Vec<u32> = self
            .rows
            .values()
            .flat_map(|rows| rows.iter().map(|slot| slot.set))
            .collect();
        kept.sort_unstable();
        kept.dedup();
        self.sets.retain(|set, _| kept.binary_search(set).is_ok());
    }
}

/// A reading thread that ended without its result (it panicked).
fn reader_stopped() -> Error {
    Error::Config("the board reader stopped unexpectedly".to_owned())
}

impl crate::scoring::BoardSource for BoardReader {
    fn read_boards(
        &mut self,
        wanted: &(dyn Fn(&str) -> bool + Sync),
        each: &mut dyn FnMut(crate::scoring::Boards<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        BoardReader::read_batches(self, wanted, &mut |batch| {
            each(crate::scoring::Boards::Batch(batch))
        })
    }

    fn finish(&mut self, head: &Dataset) -> Result<Quarantine, Error> {
        BoardReader::finish(self, head)
    }

    fn rows_hint(&self) -> usize {
        self.files.rows
    }

    /// Every id with a row in a board file was listed before any row was read.
    fn has_rows(&self, competition_id: &str) -> bool {
        self.files.index.contains_key(competition_id)
    }

    fn left_out_at_the_end(&self, competition_id: &str) -> bool {
        // Left out already for a row of the head tables, or for its percentages, which
        // the end of the reading judges from `results` alone.
        self.check.quarantine.contains(competition_id)
            || self.check.validator.percentages_broken(competition_id)
    }

    fn release(&mut self) {
        self.check.validator = crate::import::validate::Validator::default();
        self.released = true;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{complete_competitions, BoardFiles, Piece, Waiting, UNLISTED};
    use crate::dataset::{BoardBatch, BoardResult, BoardRow, BoardSlot, OwnedBoards, Text};
    use crate::error::{InputError, Location};
    use crate::import::validate::Validator;
    use crate::quarantine::{OnError, Quarantine};
    use crate::store::table::rows::{CheckedBoards, OWNED};
    use crate::store::table::Check;

    /// Board files of two pieces: `a` whole in the first, `b` in both, `c` whole in
    /// the second.
    fn two_pieces() -> BoardFiles {
        let ids: Vec<String> = ["a", "b", "c"].map(str::to_owned).to_vec();
        BoardFiles {
            files: Vec::new(),
            pieces: vec![
                Piece {
                    file: 0,
                    rows: Some(0..3),
                },
                Piece {
                    file: 0,
                    rows: Some(3..6),
                },
            ],
            index: ids.iter().cloned().zip(0..).collect(),
            ids,
            piece_ids: vec![vec![0, 1], vec![1, 2]],
            last_piece: vec![0, 1, 1],
            sizes: vec![1, 3, 1],
            rows: 6,
        }
    }

    fn row(id: &str, board: u32) -> BoardResult {
        BoardResult {
            competition_id: Text::from(id),
            board,
            ..BoardResult::default()
        }
    }

    /// A piece's rows as its checks hand them on, numbered as `files` numbers them.
    fn piece(files: &BoardFiles, rows: Vec<BoardResult>) -> CheckedBoards {
        let slots = (0..)
            .zip(&rows)
            .map(|(at, row)| BoardSlot {
                set: OWNED,
                row: at,
                board: row.board,
                competition: files
                    .index
                    .get(row.competition_id.as_str())
                    .copied()
                    .unwrap_or(UNLISTED),
            })
            .collect();
        CheckedBoards {
            sets: [
                Arc::new(OwnedBoards::default()),
                Arc::new(OwnedBoards(rows)),
            ],
            slots,
        }
    }

    fn check() -> Check {
        Check {
            validator: Validator::default(),
            quarantine: Quarantine::new(OnError::Quarantine),
        }
    }

    /// The rows handed on, in order.
    fn handed_on(batch: &BoardBatch) -> Vec<(String, u32)> {
        batch
            .rows()
            .map(|r| (r.competition_id().to_owned(), r.board()))
            .collect()
    }

    fn rows_of(rows: &[(&str, u32)]) -> Vec<(String, u32)> {
        rows.iter().map(|&(id, b)| (id.to_owned(), b)).collect()
    }

    #[test]
    fn the_reader_knows_which_competitions_have_board_rows() {
        use crate::scoring::BoardSource;
        let reader = super::BoardReader::new(check(), two_pieces());
        assert!(reader.has_rows("a") && reader.has_rows("c"));
        assert!(!reader.has_rows("x"));
    }

    #[test]
    fn competitions_whole_and_in_order_are_handed_on_in_their_order() {
        let files = BoardFiles {
            piece_ids: vec![vec![0, 1, 2]],
            last_piece: vec![0, 0, 0],
            ..two_pieces()
        };
        let rows = vec![row("a", 1), row("a", 2), row("b", 1), row("c", 1)];
        let mut waiting = Waiting::default();
        let rows = piece(&files, rows);
        let batch = complete_competitions(&files, &check(), &[true; 3], 0, rows, &mut waiting);
        assert_eq!(
            handed_on(&batch),
            rows_of(&[("a", 1), ("a", 2), ("b", 1), ("c", 1)])
        );
        // Only the set the rows are in comes along; nothing waits.
        assert_eq!(batch.sets.len(), 1);
        assert!(waiting.rows.is_empty() && waiting.sets.is_empty());
    }

    #[test]
    fn a_competition_over_two_pieces_waits_and_comes_whole_in_row_order() {
        let files = two_pieces();
        let check = check();
        let mut waiting = Waiting::default();
        let first = piece(&files, vec![row("a", 1), row("b", 1), row("b", 2)]);
        let batch = complete_competitions(&files, &check, &[true; 3], 0, first, &mut waiting);
        assert_eq!(handed_on(&batch), rows_of(&[("a", 1)]));
        assert_eq!(waiting.rows.get(&1).map(Vec::len), Some(2));
        // The first piece's rows (set 1 of piece 0) are kept for `b`.
        assert_eq!(waiting.sets.keys().copied().collect::<Vec<_>>(), [OWNED]);
        // The second piece lists `c` before the rest of `b`: `b` (listed first) comes
        // first, its earlier rows before its later ones.
        let second = piece(&files, vec![row("c", 1), row("b", 3)]);
        let batch = complete_competitions(&files, &check, &[true; 3], 1, second, &mut waiting);
        assert_eq!(
            handed_on(&batch),
            rows_of(&[("b", 1), ("b", 2), ("b", 3), ("c", 1)])
        );
        // `b` is read from both pieces' rows.
        assert_eq!(batch.sets.len(), 2);
        assert!(waiting.rows.is_empty() && waiting.sets.is_empty());
    }

    #[test]
    fn unwanted_and_quarantined_competitions_are_left_out() {
        let files = BoardFiles {
            piece_ids: vec![vec![0, 1, 2]],
            last_piece: vec![0, 0, 0],
            ..two_pieces()
        };
        let mut check = check();
        let broken = InputError::new(Location::file("boards.parquet").row(2), "broken");
        check
            .quarantine
            .add("c", broken)
            .unwrap_or_else(|e| panic!("{e}"));
        let rows = piece(
            &files,
            vec![row("a", 1), row("b", 1), row("c", 1), row("x", 1)],
        );
        let mut waiting = Waiting::default();
        let wanted = [false, true, true];
        let batch = complete_competitions(&files, &check, &wanted, 0, rows, &mut waiting);
        assert_eq!(handed_on(&batch), rows_of(&[("b", 1)]));
    }

    /// Three pieces of one file, its competitions numbered `a`..`f`: `b` begins in
    /// the first piece, `a` comes after `c` in the second (so it is handed on first),
    /// `d` is quarantined and `f` goes on into the third.
    #[test]
    fn a_piece_hands_on_in_competition_order_with_what_waited() {
        let ids: Vec<String> = ["a", "b", "c", "d", "e", "f"].map(str::to_owned).to_vec();
        let files = BoardFiles {
            files: Vec::new(),
            pieces: (0..3)
                .map(|at| Piece {
                    file: 0,
                    rows: Some(at * 9..at * 9 + 9),
                })
                .collect(),
            index: ids.iter().cloned().zip(0..).collect(),
            ids,
            piece_ids: vec![vec![1], vec![0, 1, 2, 3, 4, 5], vec![5]],
            last_piece: vec![1, 1, 1, 1, 1, 2],
            sizes: vec![2, 3, 1, 1, 2, 3],
            rows: 27,
        };
        let mut check = check();
        let broken = InputError::new(Location::file("boards.parquet").row(16), "broken");
        check
            .quarantine
            .add("d", broken)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut waiting = Waiting::default();
        let first = piece(&files, vec![row("b", 1), row("b", 2)]);
        let batch = complete_competitions(&files, &check, &[true; 6], 0, first, &mut waiting);
        assert!(batch.slots.is_empty());
        let rows = piece(
            &files,
            vec![
                row("b", 3),
                row("e", 1),
                row("e", 2),
                row("c", 1),
                row("a", 1),
                row("a", 2),
                row("d", 1),
                row("f", 1),
                row("f", 2),
            ],
        );
        let batch = complete_competitions(&files, &check, &[true; 6], 1, rows, &mut waiting);
        // In the order of a stable sort by competition, `b`'s carried rows before
        // its row of this piece; `d` left out.
        assert_eq!(
            handed_on(&batch),
            rows_of(&[
                ("a", 1),
                ("a", 2),
                ("b", 1),
                ("b", 2),
                ("b", 3),
                ("c", 1),
                ("e", 1),
                ("e", 2)
            ])
        );
        // `f` waits, with room made for all three of its rows, reading from the
        // second piece's rows only (piece 1's set 1 is set 3).
        assert_eq!(waiting.rows.len(), 1);
        let f = waiting
            .rows
            .get(&5)
            .map(|rows| (rows.len(), rows.capacity()));
        assert_eq!(f, Some((2, 3)));
        assert_eq!(waiting.sets.keys().copied().collect::<Vec<_>>(), [3]);
        let last = piece(&files, vec![row("f", 3)]);
        let batch = complete_competitions(&files, &check, &[true; 6], 2, last, &mut waiting);
        assert_eq!(handed_on(&batch), rows_of(&[("f", 1), ("f", 2), ("f", 3)]));
        assert!(waiting.rows.is_empty() && waiting.sets.is_empty());
    }
}
