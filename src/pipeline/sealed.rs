//! Board scores encoded into the output's row groups while the run goes on.
//!
//! A federation's board scores are one row per table result: 17 million rows in ten
//! years, about a gigabyte as plain columns, held until the outputs are written. In
//! `board_scores.parquet` they take a few bytes a row. So once a full row group of rows
//! has arrived in replay order, it is encoded at once (on a thread of its own, beside
//! the scoring) exactly as the output file will hold it, and only the encoded bytes are
//! kept; writing copies them. The encoding itself lives with the output files (this
//! layer knows no file formats): a run is given a [`RowGroupCodec`].
//!
//! Rows are sealed only in replay order: rows that arrive a little early (one large
//! file in month chunks brings a month's competitions club by club) wait, a bounded
//! number, for the places before them (`Arriving`). A competition that is left out
//! after its rows were sealed (found damaged at the end of the reading, or refused by
//! the model) makes the run open the sealed groups again, so the rows and the row-group
//! boundaries are always those of the file written whole. Rows that arrive after the
//! places behind them were sealed cannot be sealed before the whole input is read; when
//! the run is given a [`SpillFiles`], they wait on disk rather than in memory
//! ([`Spill`]).
//!
//! Player changes (`changes.parquet`, one row per player per competition: 5 million
//! rows in ten years) are sealed the same way by the replay, live or frozen, a month at
//! a time: a month's changes are complete, and in replay order, once the month is
//! applied (a frozen month once it closes), and a competition the model refuses has no
//! change rows, so nothing sealed is ever opened again (`replay::SealedChanges`,
//! through the [`ChangeCodec`] a [`Sealer`] carries). A run that carries a previous
//! folder's history keeps its changes as rows. Sealing a frozen run's months as they
//! close rather than encoding every row at the end costs a little more than first
//! touching the held rows did (the kernel clearing their pages was an eighth of the
//! run's time), but the encoding runs beside the replay and the reading, and the rows
//! are never all held.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::error::{Error, Result};
use crate::scoring::{BoardScore, BoardScoreTable, RECORD_BYTES};

use super::replay::ChangeCodec;

/// Encodes board scores as the output file's row groups, and reads them back.
pub trait RowGroupCodec: Send + Sync + std::fmt::Debug {
    /// Rows per row group of the output file (every group but the last is full).
    fn rows_per_group(&self) -> usize;
    /// `rows` (exactly [`rows_per_group`](Self::rows_per_group)) as one row group, in
    /// the bytes of a file holding only it. The rows are the codec's: their columns
    /// may go to the encoder as they are, without a copy.
    fn seal(&self, rows: BoardScoreTable) -> Result<Vec<u8>>;
    /// The rows of a group [`seal`](Self::seal) encoded.
    fn open(&self, bytes: &[u8]) -> Result<BoardScoreTable>;
}

/// Encodes standings lines as `standings.parquet`'s row groups.
pub trait StandingCodec: Send + Sync + std::fmt::Debug {
    /// Lines per row group of the output file (every group but the last is full).
    fn rows_per_group(&self) -> usize;
    /// `lines` (exactly [`rows_per_group`](Self::rows_per_group)), with each line's
    /// handicap tournament result (expected, adjusted) in `handicap`, as one row group:
    /// a job that encodes them into the bytes of a file holding only that group.
    fn seal(
        &self,
        lines: super::prepared::StandingTable,
        handicap: Vec<Option<(f64, f64)>>,
    ) -> Result<super::spill::SealJob>;
}

/// The codecs a run seals its outputs with as it produces them; none keeps the rows.
#[derive(Debug, Clone, Default)]
pub struct Sealer {
    /// `board_scores.parquet`, sealed while the run scores.
    pub board_scores: Option<Arc<dyn RowGroupCodec>>,
    /// `changes.parquet`, sealed while the run replays.
    pub changes: Option<Arc<dyn ChangeCodec>>,
    /// `standings.parquet`, sealed while a run from scratch replays (with the changes).
    pub standings: Option<Arc<dyn StandingCodec>>,
    /// Where board scores that arrive out of replay order are held until they are
    /// written ([`Spill`]); `None` keeps them in memory.
    pub spill: Option<Arc<dyn SpillFiles>>,
    /// Where the row groups encoded as the run goes wait until they are written;
    /// `None` keeps them in memory.
    pub groups: Option<Arc<dyn SpillFiles>>,
}

impl Sealer {
    /// Seals the board scores only.
    pub fn board_scores(codec: Arc<dyn RowGroupCodec>) -> Self {
        Sealer {
            board_scores: Some(codec),
            changes: None,
            standings: None,
            spill: None,
            groups: None,
        }
    }
}

pub use super::spill::{EncodedGroups, SpillFile, SpillFiles};

/// Board scores held in a [`SpillFile`] until they are written, as fixed-width records
/// ([`BoardScoreTable::write_records`]; the names stay in memory), read back by ranges
/// when each row group is gathered.
///
/// When one large file is ordered by club, nothing is in replay order before the whole
/// file is read, so every board score waits for the writing: 17 million rows, a
/// gigabyte held for the whole run. Spilled, they cost disk instead, and the page cache
/// keeps what fits.
#[derive(Debug)]
pub struct Spill {
    file: Box<dyn SpillFile>,
    /// Records written.
    rows: usize,
}

/// Rows gathered in memory before they are written to a [`Spill`].
const SPILL_ROWS: usize = 1 << 16;

impl Spill {
    pub fn new(file: Box<dyn SpillFile>) -> Self {
        Spill { file, rows: 0 }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes the rows of `table` after the others and drops them from it (its names
    /// stay).
    pub fn take(&mut self, table: &mut BoardScoreTable) -> Result<()> {
        if table.is_empty() {
            return Ok(());
        }
        let mut records = Vec::new();
        table.write_records(0..table.len(), &mut records);
        self.file.append(&records)?;
        self.rows += table.len();
        table.clear_rows();
        Ok(())
    }

    /// The records of the rows `parts`, one part after the other.
    pub fn read(&self, parts: &[Range<usize>]) -> Result<Vec<u8>> {
        let height: usize = parts.iter().map(ExactSizeIterator::len).sum();
        let mut records = vec![0u8; height * RECORD_BYTES];
        let mut at = 0;
        for part in parts.iter().filter(|p| !p.is_empty()) {
            if part.end > self.rows {
                return Err(Error::Config(format!(
                    "board scores {}..{} were asked of the {} held on disk",
                    part.start, part.end, self.rows
                )));
            }
            let bytes = part.len() * RECORD_BYTES;
            self.file.read_at(
                (part.start * RECORD_BYTES) as u64,
                &mut records[at..at + bytes],
            )?;
            at += bytes;
        }
        Ok(records)
    }
}

/// One encoded row group.
#[derive(Debug)]
pub struct SealedGroup {
    pub rows: usize,
    /// The bytes of a file holding only this group; empty when they are in the
    /// groups' spill file ([`BoardScoreRows::group_bytes`]).
    bytes: Vec<u8>,
    /// Where the bytes are in the groups' spill file, when there: (offset, length).
    spilled: Option<(u64, usize)>,
    /// The competitions with rows in it.
    competitions: Vec<String>,
}

/// A run's board scores in replay order: leading row groups already encoded, and the
/// rows after them.
///
/// Rows that arrived out of replay order (a single file ordered by club, say) are not
/// copied into order: that copy was a second table of every row, made only to be
/// encoded once. They are kept as they arrived with their order beside them
/// ([`BoardScoreRows::parts`]), and each row group is gathered from them as it is
/// encoded. When the run was given somewhere to spill them, they are kept on disk
/// ([`Spill`]): the first [`Spill::rows`] stored rows there, any after them in memory.
#[derive(Debug, Default)]
pub struct BoardScoreRows {
    pub sealed: Vec<SealedGroup>,
    /// The names of every row after the sealed groups, and those of them not spilled.
    rest: BoardScoreTable,
    /// The rows after the sealed groups in replay order, numbered as stored (spilled
    /// first), when that is not all of them as they are.
    order: Option<Vec<Range<usize>>>,
    spill: Option<Spill>,
    codec: Option<Arc<dyn RowGroupCodec>>,
    /// Where the sealed groups' bytes are kept until they are written, when the run
    /// has somewhere to spill.
    groups: Option<GroupSpill>,
}

/// Encoded row groups kept in a [`SpillFile`] until they are written: a run holds a
/// whole history of them, a few bytes a row.
#[derive(Debug)]
struct GroupSpill {
    file: Box<dyn SpillFile>,
    /// The bytes written.
    written: u64,
}

impl GroupSpill {
    /// Moves `bytes` to the file: where they are.
    fn keep(&mut self, bytes: &[u8]) -> Result<(u64, usize)> {
        self.file.append(bytes)?;
        let at = self.written;
        self.written += bytes.len() as u64;
        Ok((at, bytes.len()))
    }
}

impl From<BoardScoreTable> for BoardScoreRows {
    fn from(rest: BoardScoreTable) -> Self {
        BoardScoreRows {
            rest,
            ..BoardScoreRows::default()
        }
    }
}

impl BoardScoreRows {
    /// The bytes of a sealed group, read back from the spill file when they are there.
    pub fn group_bytes<'g>(&self, group: &'g SealedGroup) -> Result<std::borrow::Cow<'g, [u8]>> {
        match (group.spilled, &self.groups) {
            (Some((offset, len)), Some(spill)) => {
                let mut bytes = vec![0; len];
                spill.file.read_at(offset, &mut bytes)?;
                Ok(std::borrow::Cow::Owned(bytes))
            }
            _ => Ok(std::borrow::Cow::Borrowed(group.bytes.as_slice())),
        }
    }

    /// Every sealed group's bytes, in order ([`Self::group_bytes`]), each read when
    /// the iterator comes to it.
    pub fn sealed_bytes(&self) -> impl Iterator<Item = Result<std::borrow::Cow<'_, [u8]>>> + '_ {
        self.sealed.iter().map(|g| self.group_bytes(g))
    }

    pub fn len(&self) -> usize {
        self.sealed_rows() + self.rest_len()
    }

    /// How many rows follow the sealed groups.
    pub fn rest_len(&self) -> usize {
        match &self.order {
            Some(order) => order.iter().map(ExactSizeIterator::len).sum(),
            None => self.stored(),
        }
    }

    /// Rows after the sealed groups, spilled or in memory, kept or not.
    fn stored(&self) -> usize {
        self.spilled() + self.rest.len()
    }

    fn spilled(&self) -> usize {
        self.spill.as_ref().map_or(0, Spill::rows)
    }

    /// The table the rows after the sealed groups are taken from ([`Self::parts`]) when
    /// none is spilled, and the names of the records [`Self::records`] gives when some
    /// are.
    pub fn rest_table(&self) -> &BoardScoreTable {
        &self.rest
    }

    /// Where the rows `range` after the sealed groups (numbered from the first of
    /// them, in replay order) are stored, in order.
    pub fn parts(&self, range: Range<usize>) -> Vec<Range<usize>> {
        let Some(order) = &self.order else {
            return vec![range];
        };
        let mut parts = Vec::new();
        let mut first = 0;
        for part in order {
            let last = first + part.len();
            let (from, to) = (range.start.max(first), range.end.min(last));
            if from < to {
                parts.push(part.start + (from - first)..part.start + (to - first));
            }
            if last >= range.end {
                break;
            }
            first = last;
        }
        parts
    }

    /// The rows `range` after the sealed groups (as [`Self::parts`] numbers them) as
    /// records of [`Self::rest_table`] ([`BoardScoreTable::write_records`]), when some
    /// rows are spilled; `None` when every row is in [`Self::rest_table`].
    pub fn records(&self, range: Range<usize>) -> Option<Result<Vec<u8>>> {
        let spill = self.spill.as_ref()?;
        Some(self.stored_records(spill, &self.parts(range)))
    }

    /// The records of the stored rows `parts`, from the spill and the table.
    fn stored_records(&self, spill: &Spill, parts: &[Range<usize>]) -> Result<Vec<u8>> {
        let spilled = spill.rows();
        let on_disk: Vec<Range<usize>> = parts
            .iter()
            .map(|p| p.start.min(spilled)..p.end.min(spilled))
            .collect();
        let disk = spill.read(&on_disk)?;
        let mut records = Vec::with_capacity(disk.len());
        let mut at = 0;
        for (part, read) in parts.iter().zip(&on_disk) {
            let bytes = read.len() * RECORD_BYTES;
            records.extend_from_slice(&disk[at..at + bytes]);
            at += bytes;
            let in_memory = part.start.max(spilled) - spilled..part.end.max(spilled) - spilled;
            if !in_memory.is_empty() {
                self.rest.write_records(in_memory, &mut records);
            }
        }
        Ok(records)
    }

    /// The spilled rows taken back into memory, ahead of the others, for what changes
    /// the rows (a competition left out).
    fn unspill(&mut self) -> Result<()> {
        let Some(spill) = self.spill.take() else {
            return Ok(());
        };
        let stored = spill.rows() + self.rest.len();
        let records = self.stored_records(&spill, std::slice::from_ref(&(0..stored)))?;
        self.rest.clear_rows();
        self.rest.push_records(&records);
        Ok(())
    }

    /// The rows after the sealed groups copied into replay order, for what changes
    /// them.
    fn settle(&mut self) -> Result<()> {
        self.unspill()?;
        if let Some(order) = self.order.take() {
            self.rest = self.rest.reordered(&order);
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn sealed_rows(&self) -> usize {
        self.sealed.iter().map(|g| g.rows).sum()
    }

    /// The competitions with rows, sealed or not, in order (a competition whose rows
    /// straddle two groups is named twice).
    pub fn competitions(&self) -> Result<Vec<&str>> {
        let mut names: Vec<&str> = self
            .sealed
            .iter()
            .flat_map(|g| g.competitions.iter().map(String::as_str))
            .collect();
        let parts = self.parts(0..self.rest_len());
        match &self.spill {
            Some(spill) => {
                let records = self.stored_records(spill, &parts)?;
                for record in records.chunks_exact(RECORD_BYTES) {
                    if let Some(r) = crate::scoring::BoardScoreRecord::read(record) {
                        names.push(self.rest.name(r.competition));
                    }
                }
            }
            None => {
                for part in parts {
                    names.extend(self.rest.competition_ids(part));
                }
            }
        }
        Ok(names)
    }

    /// Appends rows after every other.
    pub fn extend(&mut self, rows: impl IntoIterator<Item = BoardScore>) {
        let start = self.stored();
        self.rest.extend(rows);
        let end = self.stored();
        if let Some(order) = &mut self.order {
            order.push(start..end);
        }
    }

    /// Decodes the sealed groups back into rows, ahead of the others.
    pub fn unseal(&mut self) -> Result<()> {
        self.settle()?;
        if self.sealed.is_empty() {
            return Ok(());
        }
        let codec = self.codec.clone().ok_or_else(|| {
            Error::Config("board scores were sealed without a codec to open them".into())
        })?;
        let mut table = BoardScoreTable::default();
        table.reserve(self.len());
        for group in std::mem::take(&mut self.sealed) {
            table.append(&codec.open(&self.group_bytes(&group)?)?);
        }
        table.append(&self.rest);
        self.rest = table;
        Ok(())
    }

    /// Decodes the sealed groups into rows after the stored ones, spilled if the others
    /// are (the order is the caller's to set).
    fn reopen_sealed(&mut self) -> Result<()> {
        if self.sealed.is_empty() {
            return Ok(());
        }
        let codec = self.codec.clone().ok_or_else(|| {
            Error::Config("board scores were sealed without a codec to open them".into())
        })?;
        for group in std::mem::take(&mut self.sealed) {
            let opened = codec.open(&self.group_bytes(&group)?)?;
            self.rest.append(&opened);
            if let Some(spill) = &mut self.spill {
                spill.take(&mut self.rest)?;
            }
        }
        Ok(())
    }

    /// Keeps the rows of the competitions `keep` accepts, in order.
    pub fn retain_competitions(&mut self, keep: impl Fn(&str) -> bool) -> Result<()> {
        let touches_sealed = self
            .sealed
            .iter()
            .any(|g| g.competitions.iter().any(|c| !keep(c)));
        if self.spill.is_some() {
            return self.retain_spilled(touches_sealed, keep);
        }
        if touches_sealed {
            self.unseal()?;
        }
        self.settle()?;
        self.rest.retain_competitions(keep);
        Ok(())
    }

    /// [`Self::retain_competitions`] with rows spilled: they stay where they are, and
    /// the rows left out leave the order (read back a piece at a time for their
    /// competition).
    fn retain_spilled(&mut self, touches_sealed: bool, keep: impl Fn(&str) -> bool) -> Result<()> {
        let mut replay = self.parts(0..self.rest_len());
        if touches_sealed {
            // The sealed rows, opened again after the stored ones, lead the order.
            let at = self.stored();
            let sealed = self.sealed_rows();
            self.reopen_sealed()?;
            replay.insert(0, at..at + sealed);
        }
        let mut kept_names: rustc_hash::FxHashMap<u32, bool> = Default::default();
        let mut kept: Vec<Range<usize>> = Vec::new();
        for part in replay {
            let mut from = part.start;
            while from < part.end {
                let to = part.end.min(from + SPILL_ROWS);
                let records = match &self.spill {
                    Some(spill) => self.stored_records(spill, std::slice::from_ref(&(from..to)))?,
                    None => Vec::new(),
                };
                for (row, record) in (from..to).zip(records.chunks_exact(RECORD_BYTES)) {
                    let Some(r) = crate::scoring::BoardScoreRecord::read(record) else {
                        continue;
                    };
                    let name = self.rest.name(r.competition);
                    if *kept_names
                        .entry(r.competition)
                        .or_insert_with(|| keep(name))
                    {
                        match kept.last_mut() {
                            Some(last) if last.end == row => last.end = row + 1,
                            _ => kept.push(row..row + 1),
                        }
                    }
                }
                from = to;
            }
        }
        self.order = order(self.stored(), &kept, 0);
        Ok(())
    }
}

/// A row group being encoded: its bytes and the competitions with rows in it.
struct InFlight {
    rows: usize,
    job: JoinHandle<Result<(Vec<u8>, Vec<String>)>>,
}

/// Board scores as they arrive, competition by competition, kept by place in replay
/// order; full row groups are sealed as soon as every place before them is settled.
///
/// A file's competitions may arrive a little out of replay order (one large file in
/// month chunks, clubs within a month, brings a month's competitions club by club).
/// Rows that arrive ahead of the first place still missing (the frontier) are held
/// aside, and move into the table, in replay order, once the places before them are
/// settled: arrived, out of the pass's scope, or known to have no rows. So a run that
/// reads such a file seals its rows a month behind the reading instead of keeping them
/// all for the writing. What is held is bounded ([`HOLD_ROWS`]): past that, the place
/// at the frontier is taken not to come (its competition may have been left out by
/// the reader), and if it comes after all, the rows are out of order: from then on
/// they are kept as they arrive, spilled when the run can ([`Spill`]), and the sealed
/// rows are opened again if the place belongs before them ([`Arriving::finish`]).
pub(super) struct Arriving {
    codec: Option<Arc<dyn RowGroupCodec>>,
    /// Rows after the sealed ones: in replay order while `in_order`, then as they
    /// arrived; `chunks` follow them.
    table: BoardScoreTable,
    /// Rows after `table`, as each competition's scoring gave them: appending them to
    /// `table` as they came (numbering their names), then taking a row group's out of
    /// it, was one thread's work beside the scoring. They are put into a table only
    /// when a row group of them is sealed (on the thread that encodes it), or when
    /// they are needed as one table.
    chunks: VecDeque<Vec<BoardScore>>,
    /// Rows in `chunks`.
    chunk_rows: usize,
    /// Where each place's rows are, numbered from the first sealed row.
    places: Vec<Option<Range<usize>>>,
    sealed: Vec<SealedGroup>,
    in_flight: VecDeque<InFlight>,
    /// Rows sealed or being sealed.
    sealed_rows: usize,
    /// Every place before it is settled, with its rows (if any) in `table` or sealed.
    frontier: usize,
    /// Places whose rows may still come in this pass (in its scope, and the source may
    /// hold rows of them).
    expected: Vec<bool>,
    /// Rows that arrived ahead of the frontier, by place.
    held: std::collections::BTreeMap<usize, Vec<BoardScore>>,
    held_rows: usize,
    /// Rows held before the frontier is taken to have moved on.
    hold_rows: usize,
    /// Unset once rows came after the frontier had passed their place.
    in_order: bool,
    /// Where rows go once they come out of order, if anywhere.
    spill_files: Option<Arc<dyn SpillFiles>>,
    /// The rows after the sealed ones that are on disk (before those of `table`).
    spill: Option<Spill>,
    /// Rows held in `table` before they are spilled.
    spill_rows: usize,
    /// Where the sealed groups' bytes go (made on first use), if anywhere.
    group_files: Option<Arc<dyn SpillFiles>>,
    groups: Option<GroupSpill>,
}

/// Groups encoded at once, at most; the scoring waits for the oldest beyond that.
const IN_FLIGHT: usize = 2;

/// Rows held ahead of the frontier, at most: a month of a large federation's board
/// scores is about 150 000 rows, and this many take about 100 MB.
const HOLD_ROWS: usize = 1 << 19;

impl Arriving {
    pub fn new(places: usize, sealer: &Sealer) -> Self {
        Arriving {
            codec: sealer.board_scores.clone(),
            table: BoardScoreTable::default(),
            chunks: VecDeque::new(),
            chunk_rows: 0,
            places: vec![None; places],
            sealed: Vec::new(),
            in_flight: VecDeque::new(),
            sealed_rows: 0,
            frontier: 0,
            expected: vec![true; places],
            held: Default::default(),
            held_rows: 0,
            hold_rows: HOLD_ROWS,
            in_order: true,
            spill_files: sealer.spill.clone(),
            spill: None,
            spill_rows: SPILL_ROWS,
            group_files: sealer.groups.clone(),
            groups: None,
        }
    }

    /// Rows numbered from the first sealed one, up to the first in `table`.
    fn before_table(&self) -> usize {
        self.sealed_rows + self.spill.as_ref().map_or(0, Spill::rows)
    }

    /// Makes room for `rows` rows, when they are not sealed as they come.
    pub fn reserve(&mut self, rows: usize) {
        if self.codec.is_none() && self.spill_files.is_none() {
            self.table.reserve(rows);
        }
    }

    /// Starts a pass in which the rows of the places `expected` accepts may come; the
    /// others are settled. Before any rows came, the frontier starts again from the
    /// first place (a pass that scored nothing settled them all).
    pub fn expect(&mut self, expected: impl Fn(usize) -> bool) {
        if self.held.is_empty() && self.places.iter().all(Option::is_none) {
            self.frontier = 0;
        }
        for (at, place) in self.expected.iter_mut().enumerate() {
            *place = expected(at);
        }
        self.advance();
    }

    /// Settles the place `at`: no rows of it are to come (any more) in this pass.
    pub fn settle(&mut self, at: usize) {
        if let Some(expected) = self.expected.get_mut(at) {
            *expected = false;
        }
        if at == self.frontier {
            self.advance();
        }
    }

    /// Rows after the sealed and spilled ones, in `table` and `chunks`.
    fn stored(&self) -> usize {
        self.table.len() + self.chunk_rows
    }

    /// Keeps the rows of the competition at `at`.
    pub fn push(&mut self, at: usize, rows: Vec<BoardScore>) {
        if !rows.is_empty() && self.in_order {
            if at > self.frontier {
                self.hold(at, rows);
                return;
            }
            if at < self.frontier {
                self.out_of_order();
            }
        }
        self.append(at, rows);
        if at == self.frontier {
            self.advance();
        }
    }

    /// Appends the rows of the place `at` after the others (to `chunks`).
    fn append(&mut self, at: usize, rows: Vec<BoardScore>) {
        let start = self.before_table() + self.stored();
        let end = start + rows.len();
        if !rows.is_empty() {
            self.chunk_rows += rows.len();
            self.chunks.push_back(rows);
        }
        if let Some(place) = self.places.get_mut(at) {
            *place = Some(start..end);
        }
    }

    /// Moves the rows of `chunks` into `table`, for what takes them as one table.
    fn flatten(&mut self) {
        for chunk in std::mem::take(&mut self.chunks) {
            self.table.extend(chunk);
        }
        self.chunk_rows = 0;
    }

    /// Takes the first `rows` stored rows out (all there are, when fewer): those of
    /// `table`, as a table, and the chunks after them.
    fn take_front(&mut self, rows: usize) -> (BoardScoreTable, Vec<Vec<BoardScore>>) {
        let mut parts = Vec::new();
        let front = if self.table.is_empty() {
            BoardScoreTable::default()
        } else {
            self.table.split_front(rows)
        };
        let mut wanted = rows - front.len();
        while wanted > 0 {
            let Some(mut chunk) = self.chunks.pop_front() else {
                break;
            };
            if chunk.len() > wanted {
                let rest = chunk.split_off(wanted);
                self.chunks.push_front(rest);
                self.chunk_rows -= wanted;
                parts.push(chunk);
                break;
            }
            self.chunk_rows -= chunk.len();
            wanted -= chunk.len();
            parts.push(chunk);
        }
        (front, parts)
    }

    /// Holds rows that came ahead of the frontier; past [`Self::hold_rows`], the
    /// frontier moves on without the places it waits for.
    fn hold(&mut self, at: usize, rows: Vec<BoardScore>) {
        self.held_rows += rows.len();
        if let Some(before) = self.held.insert(at, rows) {
            // The same place twice: the later rows are its rows, as in the table.
            self.held_rows -= before.len();
        }
        while self.in_order && self.held_rows > self.hold_rows {
            self.frontier += 1;
            self.advance();
        }
    }

    /// Moves the frontier over the places settled, their held rows into the table.
    fn advance(&mut self) {
        while self.frontier < self.places.len() {
            let at = self.frontier;
            if let Some(rows) = self.held.remove(&at) {
                self.held_rows -= rows.len();
                self.append(at, rows);
            } else if self.places[at].is_none() && self.expected[at] {
                return;
            }
            self.frontier += 1;
        }
    }

    /// Rows came after the frontier passed their place: from now on rows are kept as
    /// they arrive, the held ones first.
    fn out_of_order(&mut self) {
        self.in_order = false;
        for (at, rows) in std::mem::take(&mut self.held) {
            self.append(at, rows);
        }
        self.held_rows = 0;
    }

    /// Seals the full row groups at the front of the rows, while they arrived in order;
    /// once they come out of order, spills them (when the run has somewhere to).
    pub fn seal_full(&mut self) -> Result<()> {
        if !self.in_order {
            self.flatten();
            if self.table.len() >= self.spill_rows {
                self.spill_table()?;
            }
        }
        let Some(codec) = self.codec.clone() else {
            self.flatten();
            return Ok(());
        };
        let group = codec.rows_per_group().max(1);
        while self.in_order && self.stored() >= group {
            let (mut front, parts) = self.take_front(group);
            let encoder = Arc::clone(&codec);
            let job = std::thread::spawn(move || {
                front.reserve(group - front.len());
                for part in parts {
                    front.extend(part);
                }
                let competitions = front.competition_names();
                encoder.seal(front).map(|bytes| (bytes, competitions))
            });
            self.in_flight.push_back(InFlight { rows: group, job });
            self.sealed_rows += group;
            while self.in_flight.len() > IN_FLIGHT {
                self.finish_oldest()?;
            }
        }
        Ok(())
    }

    /// Moves the rows of `table` to the spill (made on first use), if the run has one.
    fn spill_table(&mut self) -> Result<()> {
        let Some(files) = &self.spill_files else {
            return Ok(());
        };
        let spill = match &mut self.spill {
            Some(spill) => spill,
            None => self.spill.insert(Spill::new(files.create()?)),
        };
        spill.take(&mut self.table)
    }

    fn finish_oldest(&mut self) -> Result<()> {
        if let Some(done) = self.in_flight.pop_front() {
            let (bytes, competitions) = done.job.join().map_err(|_| {
                Error::Config("encoding a row group of board_scores.parquet failed".into())
            })??;
            let spilled = match (&self.group_files, &mut self.groups) {
                (Some(_), Some(groups)) => Some(groups.keep(&bytes)?),
                (Some(files), None) => {
                    let file = files.create()?;
                    let groups = self.groups.insert(GroupSpill { file, written: 0 });
                    Some(groups.keep(&bytes)?)
                }
                (None, _) => None,
            };
            let bytes = if spilled.is_some() { Vec::new() } else { bytes };
            self.sealed.push(SealedGroup {
                rows: done.rows,
                bytes,
                spilled,
                competitions,
            });
        }
        Ok(())
    }

    /// The board scores of the competitions at `places`, in that order.
    pub fn finish(&mut self, places: &[usize]) -> Result<BoardScoreRows> {
        while !self.in_flight.is_empty() {
            self.finish_oldest()?;
        }
        // What still waits for a place that never came follows, in replay order.
        for (at, rows) in std::mem::take(&mut self.held) {
            self.append(at, rows);
        }
        self.held_rows = 0;
        self.flatten();
        let ranges: Vec<Range<usize>> = places
            .iter()
            .filter_map(|&at| self.places.get(at).cloned().flatten())
            .filter(|rows| !rows.is_empty())
            .collect();
        let table = std::mem::take(&mut self.table);
        let sealed_rows = self.sealed_rows;
        // The leading ranges that cover the sealed rows, one after the other.
        let mut end = 0;
        let mut covered = 0;
        while end < sealed_rows && covered < ranges.len() && ranges[covered].start == end {
            end = ranges[covered].end;
            covered += 1;
        }
        let mut rows = BoardScoreRows {
            sealed: std::mem::take(&mut self.sealed),
            rest: table,
            order: None,
            spill: self.spill.take(),
            codec: self.codec.clone(),
            groups: self.groups.take(),
        };
        if end < sealed_rows && rows.spill.is_some() {
            // Something sealed is left out, or came out of order: the sealed rows are
            // opened again after the stored ones (spilled too), and gathered from there.
            let at = rows.stored();
            rows.reopen_sealed()?;
            let mapped: Vec<Range<usize>> = ranges
                .iter()
                .flat_map(|r| {
                    let sealed = r.start.min(sealed_rows)..r.end.min(sealed_rows);
                    let after = r.start.max(sealed_rows)..r.end.max(sealed_rows);
                    [
                        sealed.start + at..sealed.end + at,
                        after.start - sealed_rows..after.end - sealed_rows,
                    ]
                })
                .collect();
            rows.order = order(rows.stored(), &mapped, 0);
            return Ok(rows);
        }
        if end < sealed_rows {
            // Something sealed is left out, or came out of order: start from the rows.
            rows.unseal()?;
            rows.order = order(rows.stored(), &ranges, 0);
            return Ok(rows);
        }
        let mut rest: Vec<Range<usize>> = Vec::with_capacity(ranges.len() - covered + 1);
        if end > sealed_rows {
            rest.push(sealed_rows..end);
        }
        rest.extend(ranges[covered..].iter().cloned());
        rows.order = order(rows.stored(), &rest, sealed_rows);
        Ok(rows)
    }
}

/// The rows `ranges` (numbered from `offset`) of a table of `rows` rows, in that order,
/// as ranges into the table (adjacent ones joined); `None` when that is every row of
/// it, in order.
fn order(rows: usize, ranges: &[Range<usize>], offset: usize) -> Option<Vec<Range<usize>>> {
    let mut joined: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges.iter().filter(|r| !r.is_empty()) {
        let range = range.start - offset..range.end - offset;
        match joined.last_mut() {
            Some(last) if last.end == range.start => last.end = range.end,
            _ => joined.push(range),
        }
    }
    let in_order = match joined.as_slice() {
        [] => rows == 0,
        [only] => *only == (0..rows),
        _ => false,
    };
    (!in_order).then_some(joined)
}

/// Sealing for the tests of the codecs.
#[cfg(test)]
pub mod tests_support {
    use super::*;

    /// The board scores of `competitions` (by place) arriving a competition at a time,
    /// sealed with `codec`, for the `places` kept.
    pub fn seal_all(
        codec: Arc<dyn RowGroupCodec>,
        competitions: &[Vec<BoardScore>],
        places: &[usize],
    ) -> Result<BoardScoreRows> {
        let arrival: Vec<usize> = (0..competitions.len()).collect();
        seal_arriving(codec, competitions, &arrival, places)
    }

    /// [`seal_all`] with the competitions arriving in the order `arrival` gives.
    pub fn seal_arriving(
        codec: Arc<dyn RowGroupCodec>,
        competitions: &[Vec<BoardScore>],
        arrival: &[usize],
        places: &[usize],
    ) -> Result<BoardScoreRows> {
        let mut arriving = Arriving::new(competitions.len(), &Sealer::board_scores(codec));
        arriving.hold_rows = 0;
        for &at in arrival {
            arriving.push(at, competitions[at].clone());
            arriving.seal_full()?;
        }
        arriving.finish(places)
    }

    /// [`seal_arriving`] with the rows that come out of order spilled to `spill`,
    /// `spill_rows` at a time; `stop` ends the run with an error after that many
    /// competitions arrived.
    pub fn spill_arriving(
        codec: Arc<dyn RowGroupCodec>,
        spill: Arc<dyn SpillFiles>,
        spill_rows: usize,
        competitions: &[Vec<BoardScore>],
        arrival: (&[usize], Option<usize>),
        places: &[usize],
    ) -> Result<BoardScoreRows> {
        let rows = (spill_rows, 0);
        hold_arriving(codec, spill, rows, competitions, arrival, places)
    }

    /// [`spill_arriving`] with up to `hold_rows` rows held ahead of a place still
    /// missing (`rows`: `(spill_rows, hold_rows)`).
    pub fn hold_arriving(
        codec: Arc<dyn RowGroupCodec>,
        spill: Arc<dyn SpillFiles>,
        (spill_rows, hold_rows): (usize, usize),
        competitions: &[Vec<BoardScore>],
        (arrival, stop): (&[usize], Option<usize>),
        places: &[usize],
    ) -> Result<BoardScoreRows> {
        let sealer = Sealer {
            spill: Some(spill),
            ..Sealer::board_scores(codec)
        };
        let mut arriving = Arriving::new(competitions.len(), &sealer);
        arriving.spill_rows = spill_rows;
        arriving.hold_rows = hold_rows;
        for (n, &at) in arrival.iter().enumerate() {
            if stop == Some(n) {
                return Err(Error::Config(format!("stopped after {n} competitions")));
            }
            arriving.push(at, competitions[at].clone());
            arriving.seal_full()?;
        }
        arriving.finish(places)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Seals a group by keeping it aside and handing out its number as the bytes.
    #[derive(Debug, Default)]
    struct Aside {
        rows: usize,
        groups: Mutex<Vec<BoardScoreTable>>,
    }

    impl RowGroupCodec for Aside {
        fn rows_per_group(&self) -> usize {
            self.rows
        }
        fn seal(&self, rows: BoardScoreTable) -> Result<Vec<u8>> {
            let mut groups = self
                .groups
                .lock()
                .map_err(|e| Error::Config(e.to_string()))?;
            groups.push(rows);
            Ok((groups.len() - 1).to_le_bytes().to_vec())
        }
        fn open(&self, bytes: &[u8]) -> Result<BoardScoreTable> {
            let at = usize::from_le_bytes(bytes.try_into().map_err(|_| Error::Config("".into()))?);
            let groups = self
                .groups
                .lock()
                .map_err(|e| Error::Config(e.to_string()))?;
            groups.get(at).cloned().ok_or(Error::Config("".into()))
        }
    }

    /// `boards` board scores of competition `at`.
    fn competition(at: usize, boards: u32) -> Vec<BoardScore> {
        (1..=boards)
            .map(|board| BoardScore {
                competition_id: format!("c{at}").into(),
                board,
                ns: Some(format!("{}", board % 3 + 1).into()),
                ew: (board % 4 != 0).then(|| "E".into()),
                ns_score: (board % 5 != 0).then_some(board as i32 * 10),
                ns_points: f64::from(board) / 2.0,
                ew_points: 4.0 - f64::from(board) / 2.0,
                datum: None,
            })
            .collect()
    }

    /// Rows of competitions 0..8 (competition `at` has `at` + 1 boards: rows 0..1,
    /// 1..3, 3..6, 6..10, 10..15, 15..21, 21..28, 28..36), arriving in `batches`, sealed
    /// `group` rows a group.
    /// No rows are held ahead of a place missing: rows out of order stay so.
    fn arrive(group: usize, batches: &[&[usize]]) -> (Arriving, Arc<Aside>) {
        arrive_holding(group, 0, batches)
    }

    /// [`arrive`] with up to `hold` rows held ahead of a place still missing.
    fn arrive_holding(group: usize, hold: usize, batches: &[&[usize]]) -> (Arriving, Arc<Aside>) {
        let codec = Arc::new(Aside {
            rows: group,
            ..Aside::default()
        });
        let sealer = Sealer::board_scores(codec.clone() as Arc<dyn RowGroupCodec>);
        let mut arriving = Arriving::new(8, &sealer);
        arriving.hold_rows = hold;
        for batch in batches {
            for &at in *batch {
                arriving.push(at, competition(at, at as u32 + 1));
            }
            assert!(arriving.seal_full().is_ok());
        }
        (arriving, codec)
    }

    fn rows_of(places: &[usize]) -> Vec<BoardScore> {
        places
            .iter()
            .flat_map(|&at| competition(at, at as u32 + 1))
            .collect()
    }

    fn all_rows(mut rows: BoardScoreRows) -> Result<Vec<BoardScore>> {
        rows.unseal()?;
        Ok(rows.rest.rows().collect())
    }

    /// The eight competitions' 36 rows come back in replay order, gathered in pieces
    /// of any size and taken whole.
    fn every_row_in_replay_order(rows: BoardScoreRows, all: &[usize]) -> Result<()> {
        for piece in [1, 4, 5, 36] {
            assert_eq!(gathered(&rows, piece), rows_of(all), "pieces of {piece}");
        }
        assert_eq!(rows.competitions()?[..4], ["c0", "c1", "c1", "c2"]);
        assert_eq!(all_rows(rows)?, rows_of(all));
        Ok(())
    }

    /// The rows after the sealed groups as they are written: gathered from their
    /// parts, in pieces of `piece` rows.
    fn gathered(rows: &BoardScoreRows, piece: usize) -> Vec<BoardScore> {
        let mut out = Vec::new();
        let mut start = 0;
        while start < rows.rest_len() {
            let end = (start + piece).min(rows.rest_len());
            match rows.records(start..end) {
                Some(records) => {
                    let records = records.unwrap_or_default();
                    assert_eq!(records.len(), (end - start) * RECORD_BYTES);
                    let mut table = rows.rest_table().clone();
                    table.clear_rows();
                    table.push_records(&records);
                    out.extend(table.rows());
                }
                None => {
                    for part in rows.parts(start..end) {
                        out.extend(part.filter_map(|at| rows.rest_table().get(at)));
                    }
                }
            }
            start = end;
        }
        out
    }

    /// A spill file in memory, whose bytes the test can see.
    #[derive(Debug, Default, Clone)]
    struct Held(Arc<Mutex<Vec<u8>>>);

    impl SpillFile for Held {
        fn append(&mut self, bytes: &[u8]) -> Result<()> {
            let mut held = self.0.lock().map_err(|e| Error::Config(e.to_string()))?;
            held.extend_from_slice(bytes);
            Ok(())
        }
        fn read_at(&self, offset: u64, into: &mut [u8]) -> Result<()> {
            let held = self.0.lock().map_err(|e| Error::Config(e.to_string()))?;
            let from = offset as usize;
            let bytes = held
                .get(from..from + into.len())
                .ok_or_else(|| Error::Config("read past the end".into()))?;
            into.copy_from_slice(bytes);
            Ok(())
        }
    }

    impl SpillFiles for Held {
        fn create(&self) -> Result<Box<dyn SpillFile>> {
            Ok(Box::new(self.clone()))
        }
    }

    /// [`arrive`] with rows out of order spilled to a [`Held`] file `spill_rows` at a
    /// time.
    fn arrive_spilling(
        group: usize,
        spill_rows: usize,
        batches: &[&[usize]],
    ) -> (Arriving, Arc<Aside>, Held) {
        arrive_spilling_holding(group, (spill_rows, 0), batches)
    }

    /// [`arrive_spilling`] with up to `hold` rows held ahead of a place still missing.
    fn arrive_spilling_holding(
        group: usize,
        (spill_rows, hold): (usize, usize),
        batches: &[&[usize]],
    ) -> (Arriving, Arc<Aside>, Held) {
        let codec = Arc::new(Aside {
            rows: group,
            ..Aside::default()
        });
        let held = Held::default();
        let sealer = Sealer {
            spill: Some(Arc::new(held.clone())),
            ..Sealer::board_scores(codec.clone() as Arc<dyn RowGroupCodec>)
        };
        let mut arriving = Arriving::new(8, &sealer);
        arriving.spill_rows = spill_rows;
        arriving.hold_rows = hold;
        for batch in batches {
            for &at in *batch {
                arriving.push(at, competition(at, at as u32 + 1));
            }
            assert!(arriving.seal_full().is_ok());
        }
        (arriving, codec, held)
    }

    fn held_bytes(held: &Held) -> usize {
        held.0.lock().map(|h| h.len()).unwrap_or(0)
    }

    #[test]
    fn rows_in_replay_order_are_sealed_a_full_group_at_a_time() -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        let (mut arriving, _) = arrive(5, &[&[0, 1, 2], &[3], &[4, 5], &[6, 7]]);
        let rows = arriving.finish(&all)?;
        // 36 rows: seven full groups of 5 sealed, one row left.
        assert_eq!(rows.sealed.len(), 7);
        assert!(rows.sealed.iter().all(|g| g.rows == 5));
        assert_eq!(rows.rest_len(), 1);
        assert_eq!(rows.len(), 36);
        assert_eq!(all_rows(rows)?, rows_of(&all));
        Ok(())
    }

    #[test]
    fn a_competition_left_out_after_its_rows_were_sealed_opens_them_again() -> Result<()> {
        let (mut arriving, _) = arrive(5, &[&[0, 1, 2, 3], &[4, 5, 6, 7]]);
        let kept = [0, 1, 3, 4, 5, 6, 7];
        let rows = arriving.finish(&kept)?;
        assert!(rows.sealed.is_empty());
        assert_eq!(rows.len(), 33);
        assert_eq!(all_rows(rows)?, rows_of(&kept));
        Ok(())
    }

    #[test]
    fn a_competition_left_out_after_the_sealed_rows_keeps_them_sealed() -> Result<()> {
        // Rows 0..10 (competitions 0-3) fill a group of 10; competition 4 is after it.
        let (mut arriving, _) = arrive(10, &[&[0, 1, 2, 3], &[4]]);
        let rows = arriving.finish(&[0, 1, 2, 3])?;
        assert_eq!(rows.sealed.len(), 1);
        // Competition 4's rows stay in the table, out of the rows written.
        assert_eq!(rows.rest_len(), 0);
        assert!(gathered(&rows, 10).is_empty());
        assert_eq!(all_rows(rows)?, rows_of(&[0, 1, 2, 3]));
        // Competition 5 (rows 15..21) ends in the second group (10..20): opened again.
        let (mut arriving, _) = arrive(10, &[&[0, 1, 2, 3], &[4, 5]]);
        let rows = arriving.finish(&[0, 1, 2, 3, 4])?;
        assert!(rows.sealed.is_empty());
        assert_eq!(all_rows(rows)?, rows_of(&[0, 1, 2, 3, 4]));
        Ok(())
    }

    #[test]
    fn rows_out_of_replay_order_stop_the_sealing_and_come_out_in_order() -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        let (mut arriving, codec) = arrive(5, &[&[2, 3, 4], &[0, 1], &[5, 6, 7]]);
        let rows = arriving.finish(&all)?;
        // 3 + 4 + 5 = 12 rows in order: two groups sealed; then competition 0 came late,
        // and nothing more was sealed.
        assert_eq!(codec.groups.lock().map(|g| g.len()).ok(), Some(2));
        assert!(rows.sealed.is_empty());
        // Kept as they arrived, with their order beside them: gathered in pieces of
        // any size, they come out in replay order.
        assert_eq!(rows.rest_len(), 36);
        // Arrived: 2-4 (rows 0..12), 0-1 (12..15), 5-7 (15..36).
        assert_eq!(rows.parts(0..36), [12..15, 0..12, 15..36]);
        assert_eq!(rows.parts(2..4), [14..15, 0..1]);
        assert_eq!(rows.parts(30..36), vec![30..36]);
        every_row_in_replay_order(rows, &all)
    }

    #[test]
    fn rows_out_of_order_with_one_left_out_are_gathered_without_it() -> Result<()> {
        let (mut arriving, _) = arrive(100, &[&[4, 5, 6, 7], &[0, 1, 2, 3]]);
        let kept = [0, 1, 3, 4, 5, 6, 7];
        let mut rows = arriving.finish(&kept)?;
        // Competitions 4-7 arrived first (rows 0..26), then 0-3 (26..36); 2 is out.
        assert_eq!(rows.rest_len(), 33);
        assert_eq!(rows.parts(0..33), [26..29, 32..36, 0..26]);
        assert_eq!(gathered(&rows, 7), rows_of(&kept));
        // Rows added later come after every other; leaving one out copies them in order.
        rows.extend(competition(9, 2));
        assert_eq!(rows.len(), 35);
        rows.retain_competitions(|id| id != "c4")?;
        let mut expected = rows_of(&[0, 1, 3, 5, 6, 7]);
        expected.extend(competition(9, 2));
        assert_eq!(gathered(&rows, 35), expected);
        assert_eq!(all_rows(rows)?, expected);
        Ok(())
    }

    #[test]
    fn leaving_out_a_competition_opens_only_what_it_needs() -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        let (mut arriving, _) = arrive(5, &[&all]);
        let mut rows = arriving.finish(&all)?;
        // Competition 7 has rows 28..36: the last sealed group (30..35) holds some.
        rows.retain_competitions(|id| id != "c7")?;
        assert!(rows.sealed.is_empty());
        assert_eq!(all_rows(rows)?, rows_of(&all[..7]));

        let (mut arriving, _) = arrive(5, &[&all]);
        let mut rows = arriving.finish(&all)?;
        rows.retain_competitions(|id| id != "c9")?;
        assert_eq!(rows.sealed.len(), 7);
        assert_eq!(all_rows(rows)?, rows_of(&all));
        Ok(())
    }

    #[test]
    fn rows_out_of_order_are_spilled_and_gathered_back_in_replay_order() -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        let (mut arriving, codec, held) = arrive_spilling(5, 4, &[&[2, 3, 4], &[0, 1], &[5, 6, 7]]);
        // Competitions 2-4 (12 rows) came in order: two groups of 5 sealed. Then 0 came
        // late: the 2 rows left and 0-1's 3 were spilled, then 5-7's 21.
        assert_eq!(held_bytes(&held), 26 * RECORD_BYTES);
        let rows = arriving.finish(&all)?;
        assert_eq!(codec.groups.lock().map(|g| g.len()).ok(), Some(2));
        // The sealed groups do not start the replay order: they are opened again after
        // the spilled rows (26..36), and every row is gathered from the file.
        assert!(rows.sealed.is_empty());
        assert_eq!(held_bytes(&held), 36 * RECORD_BYTES);
        assert_eq!(rows.rest_len(), 36);
        assert_eq!(rows.parts(0..36), [2..5, 26..36, 0..2, 5..26]);
        every_row_in_replay_order(rows, &all)
    }

    #[test]
    fn spilled_rows_with_one_left_out_are_gathered_without_it() -> Result<()> {
        let (mut arriving, _, _) = arrive_spilling(5, 4, &[&[2, 3, 4], &[0, 1], &[5, 6, 7]]);
        let kept = [0, 1, 3, 4, 5, 6, 7];
        let mut rows = arriving.finish(&kept)?;
        // As above, without competition 2's rows (26..29).
        assert_eq!(rows.parts(0..33), [2..5, 29..36, 0..2, 5..26]);
        assert_eq!(gathered(&rows, 7), rows_of(&kept));
        // Rows added later follow the spilled ones, in memory.
        rows.extend(competition(9, 2));
        assert_eq!(rows.parts(33..35), vec![36..38]);
        let mut expected = rows_of(&kept);
        expected.extend(competition(9, 2));
        assert_eq!(gathered(&rows, 10), expected);
        // Leaving one out keeps the rows where they are: competition 4 (rows 7..12,
        // now 33..36 and 0..2) leaves the order.
        rows.retain_competitions(|id| id != "c4")?;
        let mut expected = rows_of(&[0, 1, 3, 5, 6, 7]);
        expected.extend(competition(9, 2));
        assert_eq!(rows.parts(0..30), [2..5, 29..33, 5..26, 36..38]);
        assert_eq!(gathered(&rows, 4), expected);
        assert_eq!(all_rows(rows)?, expected);
        Ok(())
    }

    #[test]
    fn leaving_out_a_sealed_competition_of_spilled_rows_opens_the_groups_onto_the_file(
    ) -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        let (mut arriving, _, held) = arrive_spilling(10, 1, &[&[0, 1, 2, 3], &[5], &[4], &[6, 7]]);
        let mut rows = arriving.finish(&all)?;
        assert_eq!(rows.sealed.len(), 1);
        // Competition 1 (rows 1..3) is in the sealed group: it is opened again after
        // the 26 spilled rows (26..36), and leads the order without competition 1.
        rows.retain_competitions(|id| id != "c1")?;
        assert!(rows.sealed.is_empty());
        assert_eq!(held_bytes(&held), 36 * RECORD_BYTES);
        assert_eq!(rows.parts(0..34), [26..27, 29..36, 6..11, 0..6, 11..26]);
        let kept = [0, 2, 3, 4, 5, 6, 7];
        assert_eq!(gathered(&rows, 5), rows_of(&kept));
        assert_eq!(all_rows(rows)?, rows_of(&kept));
        Ok(())
    }

    #[test]
    fn spilled_rows_after_sealed_groups_in_order_keep_them_sealed() -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        // 0-3 fill a group of 10; then 5 (rows 10..16) before 4 (16..21), 6 and 7.
        let (mut arriving, _, held) = arrive_spilling(10, 1, &[&[0, 1, 2, 3], &[5], &[4], &[6, 7]]);
        let rows = arriving.finish(&all)?;
        assert_eq!(rows.sealed.len(), 1);
        assert_eq!(held_bytes(&held), 26 * RECORD_BYTES);
        assert_eq!(rows.rest_len(), 26);
        assert_eq!(rows.parts(0..26), [6..11, 0..6, 11..26]);
        assert_eq!(gathered(&rows, 3), rows_of(&all[4..]));
        assert_eq!(all_rows(rows)?, rows_of(&all));
        Ok(())
    }

    #[test]
    fn without_a_codec_nothing_is_sealed() -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        let mut arriving = Arriving::new(8, &Sealer::default());
        for &at in all.iter().rev() {
            arriving.push(at, competition(at, at as u32 + 1));
        }
        arriving.seal_full()?;
        let rows = arriving.finish(&all)?;
        assert!(rows.sealed.is_empty());
        assert_eq!(gathered(&rows, 36), rows_of(&all));
        Ok(())
    }

    /// The sealed groups, opened, in order.
    fn sealed_groups(codec: &Aside, rows: &BoardScoreRows) -> Vec<Vec<BoardScore>> {
        rows.sealed
            .iter()
            .filter_map(|g| codec.open(&rows.group_bytes(g).ok()?).ok())
            .map(|g| g.rows().collect())
            .collect()
    }

    /// The sealed groups of the eight competitions arriving in order.
    fn sealed_in_order(group: usize) -> Result<Vec<Vec<BoardScore>>> {
        let all: Vec<usize> = (0..8).collect();
        let (mut arriving, codec) = arrive_holding(group, 0, &[&all]);
        Ok(sealed_groups(&codec, &arriving.finish(&all)?))
    }

    #[test]
    fn places_a_little_out_of_order_are_held_and_sealed_in_replay_order() -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        // Up to 15 rows held: competitions 2-4 (12 rows) and 1 wait for 0, and 6-7 (15
        // rows) for 5.
        let (mut arriving, codec) = arrive_holding(5, 15, &[&[2, 3, 4], &[1, 0], &[6, 7, 5]]);
        assert_eq!(arriving.held_rows, 0);
        let rows = arriving.finish(&all)?;
        // 36 rows: seven full groups, the same as in order, and one row left.
        assert_eq!(rows.sealed.len(), 7);
        assert_eq!(rows.rest_len(), 1);
        assert_eq!(sealed_groups(&codec, &rows), sealed_in_order(5)?);
        assert_eq!(all_rows(rows)?, rows_of(&all));
        Ok(())
    }

    #[test]
    fn a_place_without_rows_does_not_stall_the_sealing() -> Result<()> {
        let (mut arriving, _codec) = arrive_holding(5, HOLD_ROWS, &[]);
        // Competition 2 has no rows in the source; 1 is out of the pass's scope; 4 is
        // left out when it is scored.
        arriving.expect(|at| at != 2 && at != 1);
        for at in [0, 3, 5, 6, 7] {
            arriving.push(at, competition(at, at as u32 + 1));
            arriving.seal_full()?;
        }
        // 5, 6 and 7 wait for 4 until it is settled.
        assert_eq!(arriving.held_rows, 21);
        arriving.settle(4);
        arriving.seal_full()?;
        assert_eq!(arriving.held_rows, 0);
        let kept = [0, 3, 5, 6, 7];
        let rows = arriving.finish(&kept)?;
        // 1 + 4 + 21 = 26 rows: five groups sealed, one row left.
        assert_eq!(rows.sealed.len(), 5);
        assert_eq!(rows.rest_len(), 1);
        assert_eq!(all_rows(rows)?, rows_of(&kept));
        Ok(())
    }

    #[test]
    fn a_pass_that_expects_nothing_leaves_the_next_to_start_from_the_first_place() -> Result<()> {
        let (mut arriving, _codec) = arrive_holding(5, HOLD_ROWS, &[]);
        arriving.expect(|_| false);
        arriving.expect(|at| at >= 4);
        for at in [5, 4, 7, 6] {
            arriving.push(at, competition(at, at as u32 + 1));
            arriving.seal_full()?;
        }
        // Competitions 4-7: 26 rows, five groups sealed in order.
        let rows = arriving.finish(&[4, 5, 6, 7])?;
        assert_eq!(rows.sealed.len(), 5);
        assert_eq!(all_rows(rows)?, rows_of(&[4, 5, 6, 7]));
        Ok(())
    }

    #[test]
    fn a_place_later_than_the_rows_held_allow_is_gathered_from_the_spill() -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        // Up to 10 rows are held for competition 0: 1-3 (9 rows) wait, 4 (5 more)
        // passes the bound and the frontier moves on without 0. When 0 comes after
        // all, the rows are out of order and every later one is spilled.
        let (mut arriving, _, held) =
            arrive_spilling_holding(5, (1, 10), &[&[1, 2, 3], &[4, 5], &[0], &[6, 7]]);
        // Rows 1-5 (20 rows) sealed in four groups; 0's and 6-7's rows spilled.
        assert_eq!(arriving.sealed_rows, 20);
        assert_eq!(held_bytes(&held), 16 * RECORD_BYTES);
        let rows = arriving.finish(&all)?;
        // Competition 0 belongs before the sealed rows: they are opened again.
        assert!(rows.sealed.is_empty());
        every_row_in_replay_order(rows, &all)?;
        // Without competition 0, the sealed groups start the order and stay sealed.
        let (mut arriving, _, _) =
            arrive_spilling_holding(5, (1, 10), &[&[1, 2, 3], &[4, 5], &[0], &[6, 7]]);
        let kept = &all[1..];
        let rows = arriving.finish(kept)?;
        assert_eq!(rows.sealed.len(), 4);
        assert_eq!(gathered(&rows, 3), rows_of(&all[6..]));
        assert_eq!(all_rows(rows)?, rows_of(kept));
        Ok(())
    }

    #[test]
    fn a_competition_left_out_after_held_rows_were_sealed_opens_them_again() -> Result<()> {
        let all: Vec<usize> = (0..8).collect();
        let (mut arriving, _) = arrive_holding(5, 36, &[&[1, 3, 2], &[0], &[7, 6, 5, 4]]);
        assert_eq!(arriving.sealed_rows, 35);
        let kept = [0, 1, 3, 4, 5, 6, 7];
        let rows = arriving.finish(&kept)?;
        assert!(rows.sealed.is_empty());
        assert_eq!(all_rows(rows)?, rows_of(&kept));
        // Left out once the rows are taken: the same.
        let (mut arriving, _) = arrive_holding(5, 36, &[&[1, 3, 2], &[0], &[7, 6, 5, 4]]);
        let mut rows = arriving.finish(&all)?;
        rows.retain_competitions(|id| id != "c2")?;
        assert!(rows.sealed.is_empty());
        assert_eq!(all_rows(rows)?, rows_of(&kept));
        Ok(())
    }

    mod arrival_order {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Whatever order the places arrive in and however many rows may be held, the
            /// rows come out in replay order; when the rows held are not bounded below
            /// what arrives, the sealed groups are those of the places in order.
            #[test]
            fn sealing_does_not_depend_on_the_order_of_arrival(
                arrival in Just((0..8).collect::<Vec<usize>>()).prop_shuffle(),
                group in 1usize..12,
                hold in 0usize..40,
                cut in 1usize..8,
            ) {
                let all: Vec<usize> = (0..8).collect();
                let batches: Vec<&[usize]> = arrival.chunks(cut).collect();
                let (mut arriving, codec) = arrive_holding(group, hold, &batches);
                let rows = arriving.finish(&all)?;
                prop_assert_eq!(gathered(&rows, group), {
                    let sealed: usize = rows.sealed.iter().map(|g| g.rows).sum();
                    rows_of(&all)[sealed..].to_vec()
                });
                if hold >= 36 {
                    prop_assert_eq!(sealed_groups(&codec, &rows), sealed_in_order(group)?);
                }
                prop_assert_eq!(all_rows(rows)?, rows_of(&all));
            }
        }
    }
}
