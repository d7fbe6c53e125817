//! Where a run's board rows come from, as a trait the readers implement.
//!
//! The readers (files a month at a time) and the pipeline (which hashes and scores
//! competitions as their rows arrive) meet here, below both, so that neither has to
//! know the other: the pipeline touches no files and the readers know nothing of runs.

use crate::dataset::{BoardBatch, BoardResult, Dataset};
use crate::error::Result;
use crate::quarantine::Quarantine;

/// A batch of board rows: structs of their own (a dataset in memory), or places in a
/// board file's columns as a reader hands them on.
#[derive(Debug, Clone, Copy)]
pub enum Boards<'a> {
    Rows(&'a [BoardResult]),
    Batch(&'a BoardBatch),
}

/// Where a run's board rows come from: all at once from memory, or a file at a time.
pub trait BoardSource {
    /// Calls `each` with the board rows of whole competitions, batch by batch, until
    /// every competition `wanted` accepts has had its rows (a competition's rows all
    /// in one batch). Rows of other competitions may come along; they are ignored. May
    /// be called more than once; the first call reads everything and checks every row.
    fn read_boards(
        &mut self,
        wanted: &(dyn Fn(&str) -> bool + Sync),
        each: &mut dyn FnMut(Boards<'_>) -> Result<()>,
    ) -> Result<()>;

    /// How many board rows there are (all of them, wanted or not), when known
    /// beforehand: room is made for their board scores.
    fn rows_hint(&self) -> usize {
        0
    }

    /// Whether board rows of the competition `competition_id` may come. `false` only
    /// when the source knows it holds none, so that whoever waits for a competition's
    /// rows in order need not wait for these: a source that cannot tell says `true`.
    fn has_rows(&self, _competition_id: &str) -> bool {
        true
    }

    /// Whether the competition `competition_id` will be left out when the reading
    /// ends, whatever its board rows hold (a row of the tables read before them broke
    /// a rule): a replay fed as the rows come passes over it rather than replaying it
    /// and being replayed again without it.
    fn left_out_at_the_end(&self, _competition_id: &str) -> bool {
        false
    }

    /// The competitions the rows' checks left out, final once the first
    /// [`BoardSource::read_boards`] is done, dated from `head`.
    fn finish(&mut self, head: &Dataset) -> Result<Quarantine>;

    /// No pass follows: what the rows' checks keep (every entrant of the history, to
    /// check the board rows against) may go. A pass after this is an error.
    fn release(&mut self) {}
}

/// A dataset already in memory, with the competitions its reader left out.
pub struct InMemory<'a> {
    pub boards: &'a [BoardResult],
    pub quarantine: Quarantine,
}

impl BoardSource for InMemory<'_> {
    fn read_boards(
        &mut self,
        _wanted: &(dyn Fn(&str) -> bool + Sync),
        each: &mut dyn FnMut(Boards<'_>) -> Result<()>,
    ) -> Result<()> {
        each(Boards::Rows(self.boards))
    }

    fn finish(&mut self, _head: &Dataset) -> Result<Quarantine> {
        Ok(self.quarantine.clone())
    }

    fn rows_hint(&self) -> usize {
        self.boards.len()
    }
}
