//! Board rows a file at a time, handed on competition by competition.
//!
//! Board rows are nearly all of a federation's history (tens of millions in ten years)
//! and nothing needs more than one competition's rows at once: scoring and the ledger's
//! content hash are per competition. So the board files are read one after another and
//! each competition is handed on, and its rows dropped, as soon as the last file that
//! holds any of them has been read. Which file that is comes from a first look at each
//! file's `competition_id` column alone. In the importer's layout (one hive partition
//! per month) every competition is whole in one file, so at most one file's rows are in
//! memory; a single `boards.parquet` is handed on whole, as before.
//!
//! The first pass over the files also holds every row to the rules, exactly as reading
//! the whole table did: the quarantine is only final after it ([`BoardReader::finish`]).
//! A later pass (a continued run that first hashes everything, then scores what is
//! new) reads only the files that hold a competition it wants.

use rustc_hash::FxHashMap as HashMap;

use crate::dataset::{BoardResult, Dataset};
use crate::error::Error;
use crate::quarantine::{OnError, Quarantine};

use super::cells::Presence::Required;
use super::locate::{read_frame, read_frame_columns, SourceFile};
use super::rows::{build_boards, check_boards};
use super::Check;

/// The board files of a dataset and the competitions each one holds.
#[derive(Debug, Default)]
pub(super) struct BoardFiles {
    files: Vec<SourceFile>,
    /// Every competition id found in a board file, interned: `index[id]` is its place.
    ids: Vec<String>,
    index: HashMap<String, u32>,
    /// Per file, the competitions it holds (interned, each once).
    file_ids: Vec<Vec<u32>>,
    /// Per competition, the last file that holds a row of it.
    last_file: Vec<usize>,
    /// Rows in all the files.
    rows: usize,
}

impl BoardFiles {
    /// Lists the competitions of every file, reading only its `competition_id` column
    /// (from the file, or from a hive partition folder). A file without the column is
    /// listed as holding nothing; reading it then reports the missing column.
    pub(super) fn scan(files: Vec<SourceFile>) -> Result<Self, Error> {
        let mut scanned = BoardFiles {
            file_ids: Vec::with_capacity(files.len()),
            ..BoardFiles::default()
        };
        for (at, file) in files.iter().enumerate() {
            let frame = read_frame_columns(file, Some(&["competition_id"]))?;
            scanned.rows += frame.height();
            let mut here = Vec::new();
            if frame.df.column("competition_id").is_ok() {
                let mut ids = frame.col::<String>("competition_id", Required)?;
                let mut last: Option<u32> = None;
                for row in 0..frame.height() {
                    let Ok(id) = ids.required(row) else { continue };
                    let interned = match scanned.index.get(id.as_str()) {
                        Some(&interned) => interned,
                        None => {
                            let interned = scanned.ids.len() as u32;
                            scanned.index.insert(id.clone(), interned);
                            scanned.ids.push(id);
                            scanned.last_file.push(at);
                            interned
                        }
                    };
                    if last != Some(interned) {
                        here.push(interned);
                        last = Some(interned);
                    }
                    scanned.last_file[interned as usize] = at;
                }
            }
            here.sort_unstable();
            here.dedup();
            scanned.file_ids.push(here);
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

/// The board files of an opened dataset, read a file at a time.
#[derive(Debug)]
pub struct BoardReader {
    check: Check,
    files: BoardFiles,
    /// Set once a pass has read every board file: the quarantine is then final.
    finished: bool,
}

impl BoardReader {
    pub(super) fn new(check: Check, files: BoardFiles) -> Self {
        BoardReader {
            check,
            files,
            finished: false,
        }
    }

    /// How many board files the dataset has.
    pub fn files(&self) -> usize {
        self.files.len()
    }

    /// Reads the board files in order and calls `each` with the rows of every
    /// competition `wanted` accepts whose last file has just been read, once per file
    /// (the rows of one competition together, in file and row order; competitions
    /// quarantined by a row left out). The first pass reads every file and checks every
    /// row; later passes read only the files holding a wanted competition, and leave
    /// the quarantine as the first pass made it. `each` may take the rows.
    pub fn read_boards(
        &mut self,
        wanted: &(dyn Fn(&str) -> bool + Sync),
        each: &mut dyn FnMut(&mut Vec<BoardResult>) -> Result<(), Error>,
    ) -> Result<(), Error> {
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

    /// One pass. The files are read and their rows checked on a thread of their own
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
            let reader = scope.spawn(move || produce(files, check, first, wanted, &send));
            let mut outcome = Ok(());
            for batch in batches.iter() {
                let done = batch.and_then(|mut rows: Vec<BoardResult>| each(&mut rows));
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

/// Reads the board files in order and sends, after each, the rows of the competitions
/// whose last file it was; an error is sent as the last message. Stops when the
/// receiver is gone. Each file's rows are built from its cells on a thread of their
/// own while the file before is checked (the checks keep the quarantine, so they run
/// in file order).
fn produce(
    boards: &BoardFiles,
    check: &mut Check,
    first: bool,
    wanted: &[bool],
    send: &std::sync::mpsc::SyncSender<Result<Vec<BoardResult>, Error>>,
) {
    let to_read: Vec<usize> = (0..boards.files.len())
        .filter(|&at| first || boards.file_ids[at].iter().any(|&id| wanted[id as usize]))
        .collect();
    let build = |at: usize| read_frame(&boards.files[at]).and_then(|frame| build_boards(&frame));
    std::thread::scope(|scope| {
        let mut next = to_read.first().map(|&at| scope.spawn(move || build(at)));
        let mut pending: HashMap<u32, Vec<BoardResult>> = HashMap::default();
        for (place, &at) in to_read.iter().enumerate() {
            let built = match next.take().map(|reading| reading.join()) {
                Some(Ok(built)) => built,
                _ => Err(reader_stopped()),
            };
            next = to_read
                .get(place + 1)
                .map(|&following| scope.spawn(move || build(following)));
            let mut rows = Vec::new();
            if let Err(error) = built.and_then(|built| check_boards(built, check, &mut rows)) {
                let _ = send.send(Err(error));
                return;
            }
            let complete = complete_competitions(boards, check, wanted, at, rows, &mut pending);
            if !complete.is_empty() && send.send(Ok(complete)).is_err() {
                return;
            }
        }
    });
}

/// The rows of the competitions whose last file is `at`, with those carried over from
/// earlier files; the rows of competitions that continue in later files wait in
/// `pending`. Rows of unwanted or quarantined competitions are dropped.
fn complete_competitions(
    boards: &BoardFiles,
    check: &Check,
    wanted: &[bool],
    at: usize,
    rows: Vec<BoardResult>,
    pending: &mut HashMap<u32, Vec<BoardResult>>,
) -> Vec<BoardResult> {
    let mut complete: Vec<BoardResult> = Vec::with_capacity(rows.len());
    for &id in &boards.file_ids[at] {
        if boards.last_file[id as usize] == at {
            if let Some(earlier) = pending.remove(&id) {
                complete.extend(earlier);
            }
        }
    }
    for row in rows {
        let Some(&id) = boards.index.get(row.competition_id.as_str()) else {
            continue;
        };
        if !wanted[id as usize] {
            continue;
        }
        if boards.last_file[id as usize] == at {
            complete.push(row);
        } else {
            pending.entry(id).or_default().push(row);
        }
    }
    let quarantine = &check.quarantine;
    complete.retain(|row| !quarantine.contains(&row.competition_id));
    // One competition's rows together: those carried over from earlier files come
    // first, so a stable sort by competition keeps file and row order.
    complete.sort_by_cached_key(|row| boards.index.get(row.competition_id.as_str()).copied());
    complete
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
}
