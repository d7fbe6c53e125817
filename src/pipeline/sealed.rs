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
//! Rows are sealed only while they arrive in replay order, and a competition that is
//! left out after its rows were sealed (found damaged at the end of the reading, or
//! refused by the model) makes the run open the sealed groups again, so the rows and
//! the row-group boundaries are always those of the file written whole.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::error::{Error, Result};
use crate::scoring::{BoardScore, BoardScoreTable};

/// Encodes board scores as the output file's row groups, and reads them back.
pub trait RowGroupCodec: Send + Sync + std::fmt::Debug {
    /// Rows per row group of the output file (every group but the last is full).
    fn rows_per_group(&self) -> usize;
    /// `rows` (exactly [`rows_per_group`](Self::rows_per_group)) as one row group, in
    /// the bytes of a file holding only it.
    fn seal(&self, rows: &BoardScoreTable) -> Result<Vec<u8>>;
    /// The rows of a group [`seal`](Self::seal) encoded.
    fn open(&self, bytes: &[u8]) -> Result<BoardScoreTable>;
}

/// The codec a run seals its board scores with; none keeps them as rows.
#[derive(Debug, Clone, Default)]
pub struct Sealer(pub Option<Arc<dyn RowGroupCodec>>);

/// One encoded row group.
#[derive(Debug)]
pub struct SealedGroup {
    pub rows: usize,
    /// The bytes of a file holding only this group.
    pub bytes: Vec<u8>,
    /// The competitions with rows in it.
    competitions: Vec<String>,
}

/// A run's board scores in replay order: leading row groups already encoded, and the
/// rows after them.
#[derive(Debug, Default)]
pub struct BoardScoreRows {
    pub sealed: Vec<SealedGroup>,
    pub rest: BoardScoreTable,
    codec: Option<Arc<dyn RowGroupCodec>>,
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
    pub fn len(&self) -> usize {
        self.sealed_rows() + self.rest.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn sealed_rows(&self) -> usize {
        self.sealed.iter().map(|g| g.rows).sum()
    }

    /// Appends rows after every other.
    pub fn extend(&mut self, rows: impl IntoIterator<Item = BoardScore>) {
        self.rest.extend(rows);
    }

    /// Decodes the sealed groups back into rows, ahead of the others.
    pub fn unseal(&mut self) -> Result<()> {
        if self.sealed.is_empty() {
            return Ok(());
        }
        let codec = self.codec.clone().ok_or_else(|| {
            Error::Config("board scores were sealed without a codec to open them".into())
        })?;
        let mut table = BoardScoreTable::default();
        table.reserve(self.len());
        for group in std::mem::take(&mut self.sealed) {
            table.append(&codec.open(&group.bytes)?);
        }
        table.append(&self.rest);
        self.rest = table;
        Ok(())
    }

    /// Keeps the rows of the competitions `keep` accepts, in order.
    pub fn retain_competitions(&mut self, keep: impl Fn(&str) -> bool) -> Result<()> {
        let touches_sealed = self
            .sealed
            .iter()
            .any(|g| g.competitions.iter().any(|c| !keep(c)));
        if touches_sealed {
            self.unseal()?;
        }
        self.rest.retain_competitions(keep);
        Ok(())
    }
}

/// A row group being encoded.
struct InFlight {
    rows: usize,
    competitions: Vec<String>,
    job: JoinHandle<Result<Vec<u8>>>,
}

/// Seals board scores as they arrive, by place in replay order.
#[derive(Default)]
pub(super) struct Sealing {
    codec: Option<Arc<dyn RowGroupCodec>>,
    sealed: Vec<SealedGroup>,
    in_flight: VecDeque<InFlight>,
    /// Rows sealed or being sealed; the rows after them are the table's.
    rows: usize,
    /// The last place whose rows arrived; `None` once rows came out of order.
    last: Option<Option<usize>>,
}

/// Groups encoded at once, at most; the scoring waits for the oldest beyond that.
const IN_FLIGHT: usize = 2;

impl Sealing {
    pub fn new(sealer: &Sealer) -> Self {
        Sealing {
            codec: sealer.0.clone(),
            last: Some(None),
            ..Sealing::default()
        }
    }

    pub fn enabled(&self) -> bool {
        self.codec.is_some()
    }

    /// Rows before those the table holds.
    pub fn offset(&self) -> usize {
        self.rows
    }

    /// Notes that rows of the competition at `at` arrived.
    pub fn arrived(&mut self, at: usize) {
        if let Some(last) = self.last {
            self.last = (last.is_none_or(|l| l < at)).then_some(Some(at));
        }
    }

    /// Seals the full row groups at the front of `table` while the rows arrived in
    /// order.
    pub fn seal_full(&mut self, table: &mut BoardScoreTable) -> Result<()> {
        let Some(codec) = self.codec.clone() else {
            return Ok(());
        };
        let group = codec.rows_per_group().max(1);
        while self.last.is_some() && table.len() >= group {
            let front = table.split_front(group);
            let competitions = front.competition_names();
            let encoder = Arc::clone(&codec);
            let job = std::thread::spawn(move || encoder.seal(&front));
            self.in_flight.push_back(InFlight {
                rows: group,
                competitions,
                job,
            });
            self.rows += group;
            while self.in_flight.len() > IN_FLIGHT {
                self.finish_oldest()?;
            }
        }
        Ok(())
    }

    fn finish_oldest(&mut self) -> Result<()> {
        if let Some(done) = self.in_flight.pop_front() {
            let bytes = done.job.join().map_err(|_| {
                Error::Config("encoding a row group of board_scores.parquet failed".into())
            })??;
            self.sealed.push(SealedGroup {
                rows: done.rows,
                bytes,
                competitions: done.competitions,
            });
        }
        Ok(())
    }

    /// The board scores of `ranges` (rows numbered from the first sealed one), in that
    /// order, with `table` holding the rows after the sealed ones.
    pub fn finish(
        &mut self,
        table: BoardScoreTable,
        ranges: &[Range<usize>],
    ) -> Result<BoardScoreRows> {
        while !self.in_flight.is_empty() {
            self.finish_oldest()?;
        }
        let sealed_rows = self.rows;
        let total = sealed_rows + table.len();
        // The leading ranges that cover the sealed rows, one after the other.
        let mut end = 0;
        let mut covered = 0;
        while end < sealed_rows && covered < ranges.len() && ranges[covered].start == end {
            end = ranges[covered].end;
            covered += 1;
        }
        let mut rows = BoardScoreRows {
            sealed: std::mem::take(&mut self.sealed),
            rest: BoardScoreTable::default(),
            codec: self.codec.clone(),
        };
        if end < sealed_rows {
            // Something sealed is left out, or came out of order: start from the rows.
            rows.rest = table;
            rows.unseal()?;
            rows.rest = ordered(std::mem::take(&mut rows.rest), ranges, 0);
            return Ok(rows);
        }
        let mut rest: Vec<Range<usize>> = Vec::with_capacity(ranges.len() - covered + 1);
        if end > sealed_rows {
            rest.push(sealed_rows..end);
        }
        rest.extend(ranges[covered..].iter().cloned());
        debug_assert!(rest.iter().all(|r| r.start >= sealed_rows && r.end <= total));
        rows.rest = ordered(table, &rest, sealed_rows);
        Ok(rows)
    }
}

/// The rows `ranges` (numbered from `offset`) of `table`, in that order; the table
/// itself when that is all of it, in order.
fn ordered(table: BoardScoreTable, ranges: &[Range<usize>], offset: usize) -> BoardScoreTable {
    let shifted: Vec<Range<usize>> = ranges
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| r.start - offset..r.end - offset)
        .collect();
    let in_order = shifted.windows(2).all(|w| w[0].end == w[1].start)
        && shifted.first().is_none_or(|r| r.start == 0)
        && shifted.last().map_or(0, |r| r.end) == table.len();
    if in_order {
        table
    } else {
        table.reordered(&shifted)
    }
}
