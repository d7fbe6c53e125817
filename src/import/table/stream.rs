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
                for row in 0..frame.height() {
                    // A row's id is compared with the row before's (its rows are
                    // together) before it is looked up.
                    let Some(id) = ids.peek(row, |id| match &last {
                        Some(before) if before.as_str() == id => None,
                        _ => Some(Text::from(id)),
                    }) else {
                        continue;
                    };
                    let Some(id) = id else { continue };
                    let interned = match scanned.index.get(id.as_str()) {
                        Some(&interned) => interned,
                        None => {
                            let interned = scanned.ids.len() as u32;
                            scanned.index.insert(id.to_string(), interned);
                            scanned.ids.push(id.to_string());
                            scanned.last_piece.push(at);
                            interned
                        }
                    };
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
    /// just been read, once per piece (the rows of one competition together, in file
    /// and row order; competitions quarantined by a row left out). The first pass reads
    /// every piece and checks every row; later passes read only the pieces holding a
    /// wanted competition, and leave the quarantine as the first pass made it. `each`
    /// may take the rows.
    pub fn read_boards(
        &mut self,
        wanted: &(dyn Fn(&str) -> bool + Sync),
        each: &mut dyn FnMut(&mut Vec<BoardResult>) -> Result<(), Error>,
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
        each: &mut dyn FnMut(&mut Vec<BoardResult>) -> Result<(), Error>,
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
                let done = batch.and_then(|mut rows: Vec<BoardResult>| {
                    let done = each(&mut rows);
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
    send: &std::sync::mpsc::SyncSender<Result<Vec<BoardResult>, Error>>,
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
    // An emptied batch to build rows in, when one has come back.
    let reuse = || {
        emptied
            .try_iter()
            .find(|rows: &Vec<BoardResult>| rows.capacity() > 0)
            .unwrap_or_default()
    };
    std::thread::scope(|scope| {
        let mut next = to_read.first().map(|&at| {
            let rows = reuse();
            scope.spawn(move || build(at, rows))
        });
        let mut pending: HashMap<u32, Vec<BoardResult>> = HashMap::default();
        for (place, &at) in to_read.iter().enumerate() {
            let built = match next.take().map(|reading| reading.join()) {
                Some(Ok(built)) => built,
                _ => Err(reader_stopped()),
            };
            next = to_read.get(place + 1).map(|&following| {
                let rows = reuse();
                scope.spawn(move || build(following, rows))
            });
            let rows = match built.and_then(|built| check_boards(built, check)) {
                Ok(rows) => rows,
                Err(error) => {
                    let _ = send.send(Err(error));
                    return;
                }
            };
            let complete = complete_competitions(boards, check, wanted, at, rows, &mut pending);
            if !complete.is_empty() && send.send(Ok(complete)).is_err() {
                return;
            }
        }
    });
}

/// The rows of the competitions whose last piece is `at`, with those carried over from
/// earlier pieces; the rows of competitions that continue in later pieces wait in
/// `pending`. Rows of unwanted or quarantined competitions are dropped.
///
/// A competition's rows are together in a file, so its id is looked up once for each
/// run of rows that share it. In the importer's layout every competition is whole in
/// its piece and the piece's rows are already in the order handed on: they are handed
/// on as they are, without being moved.
fn complete_competitions(
    boards: &BoardFiles,
    check: &Check,
    wanted: &[bool],
    at: usize,
    mut rows: Vec<BoardResult>,
    pending: &mut HashMap<u32, Vec<BoardResult>>,
) -> Vec<BoardResult> {
    /// Where a run of rows goes.
    #[derive(Clone, Copy, PartialEq)]
    enum To {
        Drop,
        Wait(u32),
        Complete(u32),
    }
    let quarantine = &check.quarantine;
    // Each run of rows of one competition: its first row and where it goes.
    let mut runs: Vec<(usize, To)> = Vec::new();
    for row in 0..rows.len() {
        if row > 0 && rows[row].competition_id == rows[row - 1].competition_id {
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
        runs.push((row, to));
    }
    let carried: Vec<u32> = boards.piece_ids[at]
        .iter()
        .copied()
        .filter(|&id| boards.last_piece[id as usize] == at && pending.contains_key(&id))
        .collect();
    let in_order = runs.windows(2).all(|pair| match (pair[0].1, pair[1].1) {
        (To::Complete(first), To::Complete(second)) => first < second,
        _ => false,
    });
    let all_complete = runs.iter().all(|(_, to)| matches!(to, To::Complete(_)));
    if carried.is_empty() && all_complete && in_order {
        return rows;
    }

    let mut complete: Vec<(u32, BoardResult)> = Vec::with_capacity(rows.len());
    for id in carried {
        for row in pending.remove(&id).unwrap_or_default() {
            if !quarantine.contains(&row.competition_id) {
                complete.push((id, row));
            }
        }
    }
    let mut ends = runs.iter().skip(1).map(|(start, _)| *start);
    let mut rows = rows.drain(..);
    for &(start, to) in &runs {
        let end = ends.next().unwrap_or(start + rows.len());
        let run = rows.by_ref().take(end - start);
        match to {
            To::Drop => run.for_each(drop),
            To::Wait(id) => pending.entry(id).or_default().extend(run),
            To::Complete(id) => complete.extend(run.map(|row| (id, row))),
        }
    }
    // One competition's rows together: those carried over from earlier pieces come
    // first, so a stable sort by competition keeps file and row order.
    complete.sort_by_key(|(id, _)| *id);
    complete.into_iter().map(|(_, row)| row).collect()
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
        BoardReader::read_boards(self, wanted, &mut |rows| each(rows))
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

    use super::{complete_competitions, BoardFiles, Piece};
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
        assert_eq!(complete.as_ptr(), before);
        assert_eq!(
            boards(&complete),
            [("a", 1), ("a", 2), ("b", 1), ("c", 1)].map(|(id, b)| (id.to_owned(), b))
        );
    }

    #[test]
    fn a_competition_over_two_pieces_waits_and_comes_whole_in_row_order() {
        let files = two_pieces();
        let check = check();
        let mut pending = HashMap::default();
        let first = vec![row("a", 1), row("b", 1), row("b", 2)];
        let complete = complete_competitions(&files, &check, &[true; 3], 0, first, &mut pending);
        assert_eq!(boards(&complete), vec![("a".to_owned(), 1)]);
        assert_eq!(pending.get(&1).map(Vec::len), Some(2));
        // The second piece lists `c` before the rest of `b`: `b` (listed first) comes
        // first, its earlier rows before its later ones.
        let second = vec![row("c", 1), row("b", 3)];
        let complete = complete_competitions(&files, &check, &[true; 3], 1, second, &mut pending);
        assert_eq!(
            boards(&complete),
            [("b", 1), ("b", 2), ("b", 3), ("c", 1)].map(|(id, b)| (id.to_owned(), b))
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
        assert_eq!(boards(&complete), vec![("b".to_owned(), 1)]);
    }
}
