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

use crate::dataset::{BoardResult, Dataset, Text};
use crate::error::Error;
use crate::quarantine::{OnError, Quarantine};

use super::cells::Presence::Required;
use std::ops::Range;

use super::locate::{read_frame_columns, row_groups, SourceFile};
use super::rows::{build_boards, check_boards};
use super::Check;

/// What takes each batch of a pass: its buffer and where its rows begin (`rows[from..]`).
type TakeBatch<'a> = dyn FnMut(&mut Vec<BoardResult>, usize) -> Result<(), Error> + 'a;

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
    /// the first pass made it. `each` may take the rows.
    pub fn read_boards(
        &mut self,
        wanted: &(dyn Fn(&str) -> bool + Sync),
        each: &mut dyn FnMut(&mut Vec<BoardResult>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.read_batches(wanted, &mut |rows, from| {
            rows.drain(..from);
            each(rows)
        })
    }

    /// [`BoardReader::read_boards`], with each batch's rows as `rows[from..]`: what
    /// only looks at the rows takes them where they lie.
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
    /// reading overlaps the work on what was read; at most two batches wait.
    fn pass(
        &mut self,
        first: bool,
        wanted: &[bool],
        each: &mut TakeBatch<'_>,
    ) -> Result<(), Error> {
        let (files, check) = (&self.files, &mut self.check);
        let outcome = std::thread::scope(|scope| {
            let (send, batches) = std::sync::mpsc::sync_channel(1);
            // Emptied batches go back to the reader, which builds the next rows in them:
            // a month's rows are tens of megabytes, and memory written again costs less
            // than fresh pages.
            let (give_back, emptied) = std::sync::mpsc::channel();
            let reader = scope.spawn(move || produce(files, check, first, wanted, &send, &emptied));
            let mut outcome = Ok(());
            for batch in batches.iter() {
                let done = batch.and_then(|Batch { mut rows, from }| {
                    let done = each(&mut rows, from);
                    rows.clear();
                    // The reader may have stopped; the batch is then dropped here.
                    let _ = give_back.send(rows);
                    done
                });
                if let Err(error) = done {
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
/// gone. Each piece's rows are built from its cells on a thread of their own while the
/// piece before is checked (the checks keep the quarantine, so they run in file and
/// row order).
fn produce(
    boards: &BoardFiles,
    check: &mut Check,
    first: bool,
    wanted: &[bool],
    send: &std::sync::mpsc::SyncSender<Result<Batch, Error>>,
    emptied: &std::sync::mpsc::Receiver<Vec<BoardResult>>,
) {
    let to_read: Vec<usize> = (0..boards.pieces.len())
        .filter(|&at| first || boards.piece_ids[at].iter().any(|&id| wanted[id as usize]))
        .collect();
    let build = |at: usize, rows: Vec<BoardResult>| {
        let piece = &boards.pieces[at];
        read_frame_columns(&boards.files[piece.file], None, piece.rows.clone())
            .and_then(|frame| build_boards(&frame, rows))
    };
    // An emptied batch to build piece `at`'s rows in, when one large enough has come
    // back (those that held a competition carried over are small, and go).
    let reuse = |at: usize| {
        let wanted = boards.pieces[at].rows.as_ref().map_or(1, |rows| rows.len());
        emptied
            .try_iter()
            .find(|rows: &Vec<BoardResult>| rows.capacity() >= wanted)
            .unwrap_or_default()
    };
    std::thread::scope(|scope| {
        let mut next = to_read.first().map(|&at| {
            let rows = reuse(at);
            scope.spawn(move || build(at, rows))
        });
        let mut pending: HashMap<u32, Vec<BoardResult>> = HashMap::default();
        for (place, &at) in to_read.iter().enumerate() {
            let built = match next.take().map(|reading| reading.join()) {
                Some(Ok(built)) => built,
                _ => Err(reader_stopped()),
            };
            next = to_read.get(place + 1).map(|&following| {
                let rows = reuse(following);
                scope.spawn(move || build(following, rows))
            });
            let rows = match built.and_then(|built| check_boards(built, check)) {
                Ok(rows) => rows,
                Err(error) => {
                    let _ = send.send(Err(error));
                    return;
                }
            };
            for batch in complete_competitions(boards, check, wanted, at, rows, &mut pending) {
                if batch.from < batch.rows.len() && send.send(Ok(batch)).is_err() {
                    return;
                }
            }
        }
    });
}

/// Rows handed on at once: `rows[from..]`, whole competitions. The rows before `from`
/// were moved elsewhere (or dropped) and are left as defaults, so that the rest need
/// not move down.
#[derive(Debug, Default)]
struct Batch {
    rows: Vec<BoardResult>,
    from: usize,
}

impl Batch {
    fn whole(rows: Vec<BoardResult>) -> Self {
        Batch { rows, from: 0 }
    }
}

/// The rows of the competitions whose last piece is `at`, with those carried over from
/// earlier pieces, in batches of whole competitions; the rows of competitions that
/// continue in later pieces wait in `pending`. Rows of unwanted or quarantined
/// competitions are dropped.
///
/// What is handed on is the order of a stable sort by interned id, carried rows before
/// the piece's rows of the same competition, so one competition's rows keep file and
/// row order. The readers that keep every row (the whole dataset in memory) append the
/// batches in this order; the passes that hash and score group them by competition.
///
/// Rows are costly to move (a `BoardResult` is hundreds of bytes) and nearly all of a
/// piece's rows are already in that order, so the order is worked out over runs of
/// rows, not rows, and the longest stretch of the piece that needs no moving is handed
/// on where it lies, in the piece's own buffer. Only the rest (in one large file: the
/// competition that began in the piece before and the one that goes on into the next)
/// is moved, each row once, into room made for it beforehand.
fn complete_competitions(
    boards: &BoardFiles,
    check: &Check,
    wanted: &[bool],
    at: usize,
    mut rows: Vec<BoardResult>,
    pending: &mut HashMap<u32, Vec<BoardResult>>,
) -> Vec<Batch> {
    /// Where a run of rows goes.
    #[derive(Clone, Copy, PartialEq)]
    enum To {
        Drop,
        Wait(u32),
        Complete(u32),
    }
    /// A part of what is handed on, of one competition.
    #[derive(Clone, PartialEq, Debug)]
    enum Part {
        /// Its rows from earlier pieces, waiting in `pending`.
        Carried,
        /// Rows of this piece.
        Rows(Range<usize>),
    }
    let quarantine = &check.quarantine;
    // Each run of rows of one competition, and where it goes.
    let mut runs: Vec<(Range<usize>, To)> = Vec::new();
    for row in 0..rows.len() {
        if row > 0 && rows[row].competition_id == rows[row - 1].competition_id {
            if let Some((run, _)) = runs.last_mut() {
                run.end = row + 1;
            }
            continue;
        }
        let id = &rows[row].competition_id;
        let to = match boards.index.get(id.as_str()) {
            None => To::Drop,
            Some(&interned) if !wanted[interned as usize] => To::Drop,
            Some(&interned) if boards.last_piece[interned as usize] != at => To::Wait(interned),
            Some(_) if quarantine.contains(id) => To::Drop,
            Some(&interned) => To::Complete(interned),
        };
        runs.push((row..row + 1, to));
    }
    // The parts handed on, carried rows first: a stable sort by competition then
    // gives the order handed on.
    let mut parts: Vec<(u32, Part)> = Vec::new();
    for &id in &boards.piece_ids[at] {
        if boards.last_piece[id as usize] != at {
            continue;
        }
        let Some(carried) = pending.remove(&id) else {
            continue;
        };
        // A competition's rows all share its id: one look settles them all.
        let left_out = carried
            .first()
            .is_some_and(|row| quarantine.contains(&row.competition_id));
        if !left_out {
            pending.insert(id, carried);
            parts.push((id, Part::Carried));
        }
    }
    for (run, to) in &runs {
        if let To::Complete(id) = to {
            parts.push((*id, Part::Rows(run.clone())));
        }
    }
    parts.sort_by_key(|(id, _)| *id);

    // The longest stretch of whole competitions whose rows lie one after another in
    // the piece, in the order handed on: it stays where it is.
    let mut best: Option<(Range<usize>, Range<usize>)> = None; // parts, rows
    let mut stretch: Option<(Range<usize>, Range<usize>)> = None;
    let mut first = 0;
    while first < parts.len() {
        let id = parts[first].0;
        let mut last = first + 1;
        while last < parts.len() && parts[last].0 == id {
            last += 1;
        }
        // This competition's rows, when they are one stretch of the piece.
        let mut span: Option<Range<usize>> = None;
        for (_, part) in &parts[first..last] {
            span = match (span, part) {
                (None, Part::Rows(rows)) => Some(rows.clone()),
                (Some(before), Part::Rows(rows)) if before.end == rows.start => {
                    Some(before.start..rows.end)
                }
                _ => None,
            };
            if span.is_none() {
                break;
            }
        }
        stretch = match (stretch, span) {
            (Some((kept, rows)), Some(span)) if rows.end == span.start => {
                Some((kept.start..last, rows.start..span.end))
            }
            (_, Some(span)) => Some((first..last, span)),
            (_, None) => None,
        };
        if let Some((_, rows)) = &stretch {
            if best
                .as_ref()
                .is_none_or(|(_, most)| rows.len() > most.len())
            {
                best = stretch.clone();
            }
        }
        first = last;
    }
    let (stays, window) = best.unwrap_or((0..0, 0..0));
    if window == (0..rows.len()) {
        return vec![Batch::whole(rows)];
    }

    // Rows outside the stretch move once: to the batch before it, the batch after it,
    // or `pending`; those of dropped runs stay and go with the buffer.
    let mut assemble = |parts: &[(u32, Part)], rows: &mut Vec<BoardResult>| -> Option<Batch> {
        let size: usize = parts
            .iter()
            .map(|(id, part)| match part {
                Part::Carried => pending.get(id).map_or(0, Vec::len),
                Part::Rows(rows) => rows.len(),
            })
            .sum();
        if size == 0 {
            return None;
        }
        let mut batch: Vec<BoardResult> = Vec::new();
        for (id, part) in parts {
            match part {
                Part::Carried => {
                    let carried = pending.remove(id).unwrap_or_default();
                    if batch.is_empty() {
                        batch = carried;
                        batch.reserve_exact(size - batch.len());
                    } else {
                        batch.extend(carried);
                    }
                }
                Part::Rows(range) => {
                    if batch.capacity() == 0 {
                        batch.reserve_exact(size);
                    }
                    batch.extend(rows[range.clone()].iter_mut().map(std::mem::take));
                }
            }
        }
        Some(Batch::whole(batch))
    };
    let before = assemble(&parts[..stays.start], &mut rows);
    let after = assemble(&parts[stays.end..], &mut rows);
    for (run, to) in &runs {
        if let To::Wait(id) = to {
            let waiting = pending.entry(*id).or_insert_with(|| {
                Vec::with_capacity(boards.sizes.get(*id as usize).copied().unwrap_or(0))
            });
            waiting.extend(rows[run.clone()].iter_mut().map(std::mem::take));
        }
    }
    rows.truncate(window.end);
    let mut batches: Vec<Batch> = before.into_iter().collect();
    if !window.is_empty() {
        batches.push(Batch {
            rows,
            from: window.start,
        });
    }
    batches.extend(after);
    batches
}

/// A reading thread that ended without its result (it panicked).
fn reader_stopped() -> Error {
    Error::Config("the board reader stopped unexpectedly".to_owned())
}

impl crate::scoring::BoardSource for BoardReader {
    fn read_boards(
        &mut self,
        wanted: &(dyn Fn(&str) -> bool + Sync),
        each: &mut dyn FnMut(&[BoardResult]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        BoardReader::read_batches(self, wanted, &mut |rows, from| {
            each(rows.get(from..).unwrap_or_default())
        })
    }

    fn finish(&mut self, head: &Dataset) -> Result<Quarantine, Error> {
        BoardReader::finish(self, head)
    }

    fn rows_hint(&self) -> usize {
        self.files.rows
    }

    fn release(&mut self) {
        self.check.validator = crate::import::validate::Validator::default();
        self.released = true;
    }
}

#[cfg(test)]
mod tests {
    use rustc_hash::FxHashMap as HashMap;

    use super::{complete_competitions, Batch, BoardFiles, Piece};
    use crate::dataset::{BoardResult, Text};
    use crate::error::{InputError, Location};
    use crate::import::table::Check;
    use crate::import::validate::Validator;
    use crate::quarantine::{OnError, Quarantine};

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

    fn check() -> Check {
        Check {
            validator: Validator::default(),
            quarantine: Quarantine::new(OnError::Quarantine),
        }
    }

    fn boards(rows: &[BoardResult]) -> Vec<(String, u32)> {
        rows.iter()
            .map(|r| (r.competition_id.to_string(), r.board))
            .collect()
    }

    /// The rows handed on, batch by batch.
    fn batches(batches: &[Batch]) -> Vec<Vec<(String, u32)>> {
        batches
            .iter()
            .map(|batch| boards(&batch.rows[batch.from..]))
            .collect()
    }

    fn rows_of(rows: &[(&str, u32)]) -> Vec<(String, u32)> {
        rows.iter().map(|&(id, b)| (id.to_owned(), b)).collect()
    }

    #[test]
    fn competitions_whole_and_in_order_are_handed_on_without_a_move() {
        let files = BoardFiles {
            piece_ids: vec![vec![0, 1, 2]],
            last_piece: vec![0, 0, 0],
            ..two_pieces()
        };
        let rows = vec![row("a", 1), row("a", 2), row("b", 1), row("c", 1)];
        let before = rows.as_ptr();
        let mut pending = HashMap::default();
        let complete = complete_competitions(&files, &check(), &[true; 3], 0, rows, &mut pending);
        assert_eq!(complete.len(), 1);
        assert_eq!(complete[0].rows.as_ptr(), before);
        assert_eq!(
            batches(&complete),
            [rows_of(&[("a", 1), ("a", 2), ("b", 1), ("c", 1)])]
        );
    }

    #[test]
    fn a_competition_over_two_pieces_waits_and_comes_whole_in_row_order() {
        let files = two_pieces();
        let check = check();
        let mut pending = HashMap::default();
        let first = vec![row("a", 1), row("b", 1), row("b", 2)];
        let complete = complete_competitions(&files, &check, &[true; 3], 0, first, &mut pending);
        assert_eq!(batches(&complete), [rows_of(&[("a", 1)])]);
        assert_eq!(pending.get(&1).map(Vec::len), Some(2));
        // The second piece lists `c` before the rest of `b`: `b` (listed first) comes
        // first, its earlier rows before its later ones.
        let second = vec![row("c", 1), row("b", 3)];
        let complete = complete_competitions(&files, &check, &[true; 3], 1, second, &mut pending);
        assert_eq!(
            batches(&complete),
            [
                rows_of(&[("b", 1), ("b", 2), ("b", 3)]),
                rows_of(&[("c", 1)])
            ]
        );
        assert!(pending.is_empty());
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
        let rows = vec![row("a", 1), row("b", 1), row("c", 1), row("x", 1)];
        let mut pending = HashMap::default();
        let wanted = [false, true, true];
        let complete = complete_competitions(&files, &check, &wanted, 0, rows, &mut pending);
        assert_eq!(batches(&complete), [rows_of(&[("b", 1)])]);
    }

    /// The middle piece of three in one file, its competitions interned `a`..`f`:
    /// `b` began in the piece before, `a` comes after `c` in the file (so it is
    /// handed on first), `d` is quarantined and `f` goes on into the next piece.
    #[test]
    fn a_piece_hands_on_in_competition_order_moving_only_what_is_out_of_place() {
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
        let mut pending = HashMap::default();
        pending.insert(1, vec![row("b", 1), row("b", 2)]);
        let rows = vec![
            row("b", 3),
            row("e", 1),
            row("e", 2),
            row("c", 1),
            row("a", 1),
            row("a", 2),
            row("d", 1),
            row("f", 1),
            row("f", 2),
        ];
        let buffer = rows.as_ptr();
        let complete = complete_competitions(&files, &check, &[true; 6], 1, rows, &mut pending);
        // In the order of a stable sort by competition, `b`'s carried rows before
        // its row of this piece; `d` left out.
        assert_eq!(
            batches(&complete),
            [
                rows_of(&[("a", 1), ("a", 2)]),
                rows_of(&[("b", 1), ("b", 2), ("b", 3), ("c", 1), ("e", 1), ("e", 2)]),
            ]
        );
        // `a`, the longest stretch already in place, is handed on in the piece's own
        // buffer, where it lies.
        assert_eq!(complete[0].rows.as_ptr(), buffer);
        assert_eq!((complete[0].from, complete[0].rows.len()), (4, 6));
        // `f` waits, with room made for all three of its rows.
        assert_eq!(pending.len(), 1);
        let waiting = pending.get(&5).map(|rows| (boards(rows), rows.capacity()));
        assert_eq!(waiting, Some((rows_of(&[("f", 1), ("f", 2)]), 3)));
    }
}
