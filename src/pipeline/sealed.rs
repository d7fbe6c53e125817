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
//!
//! Player changes (`changes.parquet`, one row per player per competition: 5 million
//! rows in ten years) are sealed the same way by a live replay, a month at a time: a
//! month's changes are complete, and in replay order, once the month is applied, and a
//! competition the model refuses has no change rows, so nothing sealed is ever opened
//! again (`replay::SealedChanges`, through the [`ChangeCodec`] a [`Sealer`] carries). A
//! run that carries a previous folder's history keeps its changes as rows, and so does
//! a frozen run: its months are rated in parallel, so encoding beside them would take
//! the replay's cores, and its rows are encoded on both cores when it writes.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::error::{Error, Result};
use crate::scoring::{BoardScore, BoardScoreTable};

use super::replay::ChangeCodec;

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

/// The codecs a run seals its outputs with as it produces them; none keeps the rows.
#[derive(Debug, Clone, Default)]
pub struct Sealer {
    /// `board_scores.parquet`, sealed while the run scores.
    pub board_scores: Option<Arc<dyn RowGroupCodec>>,
    /// `changes.parquet`, sealed while the run replays.
    pub changes: Option<Arc<dyn ChangeCodec>>,
}

impl Sealer {
    /// Seals the board scores only.
    pub fn board_scores(codec: Arc<dyn RowGroupCodec>) -> Self {
        Sealer {
            board_scores: Some(codec),
            changes: None,
        }
    }
}

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
///
/// Rows that arrived out of replay order (a single file ordered by club, say) are not
/// copied into order: that copy was a second table of every row, made only to be
/// encoded once. They are kept as they arrived with their order beside them
/// ([`BoardScoreRows::parts`]), and each row group is gathered from them as it is
/// encoded.
#[derive(Debug, Default)]
pub struct BoardScoreRows {
    pub sealed: Vec<SealedGroup>,
    rest: BoardScoreTable,
    /// The rows of `rest` in replay order, when that is not all of `rest` as it is.
    order: Option<Vec<Range<usize>>>,
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
        self.sealed_rows() + self.rest_len()
    }

    /// How many rows follow the sealed groups.
    pub fn rest_len(&self) -> usize {
        match &self.order {
            Some(order) => order.iter().map(ExactSizeIterator::len).sum(),
            None => self.rest.len(),
        }
    }

    /// The table the rows after the sealed groups are taken from ([`Self::parts`]).
    pub fn rest_table(&self) -> &BoardScoreTable {
        &self.rest
    }

    /// Where the rows `range` after the sealed groups (numbered from the first of
    /// them, in replay order) are in [`Self::rest_table`], in order.
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

    /// The rows after the sealed groups copied into replay order, for what changes
    /// them.
    fn settle(&mut self) {
        if let Some(order) = self.order.take() {
            self.rest = self.rest.reordered(&order);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn sealed_rows(&self) -> usize {
        self.sealed.iter().map(|g| g.rows).sum()
    }

    /// The competitions with rows, sealed or not, in order (a competition whose rows
    /// straddle two groups is named twice).
    pub fn competitions(&self) -> impl Iterator<Item = &str> {
        let sealed = self.sealed.iter().flat_map(|g| g.competitions.iter());
        let rest = self
            .parts(0..self.rest_len())
            .into_iter()
            .flat_map(|part| self.rest.competition_ids(part));
        sealed.map(String::as_str).chain(rest)
    }

    /// Appends rows after every other.
    pub fn extend(&mut self, rows: impl IntoIterator<Item = BoardScore>) {
        let start = self.rest.len();
        self.rest.extend(rows);
        if let Some(order) = &mut self.order {
            order.push(start..self.rest.len());
        }
    }

    /// Decodes the sealed groups back into rows, ahead of the others.
    pub fn unseal(&mut self) -> Result<()> {
        self.settle();
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
        self.settle();
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

/// Board scores as they arrive, competition by competition, kept by place in replay
/// order; full row groups are sealed while the places arrive in order.
pub(super) struct Arriving {
    codec: Option<Arc<dyn RowGroupCodec>>,
    /// Rows after the sealed ones, in the order they arrived.
    table: BoardScoreTable,
    /// Where each place's rows are, numbered from the first sealed row.
    places: Vec<Option<Range<usize>>>,
    sealed: Vec<SealedGroup>,
    in_flight: VecDeque<InFlight>,
    /// Rows sealed or being sealed.
    sealed_rows: usize,
    /// The last place whose rows arrived; `None` once rows came out of order.
    last: Option<Option<usize>>,
}

/// Groups encoded at once, at most; the scoring waits for the oldest beyond that.
const IN_FLIGHT: usize = 2;

impl Arriving {
    pub fn new(places: usize, sealer: &Sealer) -> Self {
        Arriving {
            codec: sealer.board_scores.clone(),
            table: BoardScoreTable::default(),
            places: vec![None; places],
            sealed: Vec::new(),
            in_flight: VecDeque::new(),
            sealed_rows: 0,
            last: Some(None),
        }
    }

    /// Makes room for `rows` rows, when they are not sealed as they come.
    pub fn reserve(&mut self, rows: usize) {
        if self.codec.is_none() {
            self.table.reserve(rows);
        }
    }

    /// Keeps the rows of the competition at `at`.
    pub fn push(&mut self, at: usize, rows: Vec<BoardScore>) {
        let start = self.sealed_rows + self.table.len();
        self.table.extend(rows);
        let end = self.sealed_rows + self.table.len();
        if end > start {
            if let Some(last) = self.last {
                self.last = last.is_none_or(|l| l < at).then_some(Some(at));
            }
        }
        if let Some(place) = self.places.get_mut(at) {
            *place = Some(start..end);
        }
    }

    /// Seals the full row groups at the front of the rows, while they arrived in order.
    pub fn seal_full(&mut self) -> Result<()> {
        let Some(codec) = self.codec.clone() else {
            return Ok(());
        };
        let group = codec.rows_per_group().max(1);
        while self.last.is_some() && self.table.len() >= group {
            let front = self.table.split_front(group);
            let competitions = front.competition_names();
            let encoder = Arc::clone(&codec);
            let job = std::thread::spawn(move || encoder.seal(&front));
            self.in_flight.push_back(InFlight {
                rows: group,
                competitions,
                job,
            });
            self.sealed_rows += group;
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

    /// The board scores of the competitions at `places`, in that order.
    pub fn finish(&mut self, places: &[usize]) -> Result<BoardScoreRows> {
        while !self.in_flight.is_empty() {
            self.finish_oldest()?;
        }
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
            codec: self.codec.clone(),
        };
        if end < sealed_rows {
            // Something sealed is left out, or came out of order: start from the rows.
            rows.unseal()?;
            rows.order = order(rows.rest.len(), &ranges, 0);
            return Ok(rows);
        }
        let mut rest: Vec<Range<usize>> = Vec::with_capacity(ranges.len() - covered + 1);
        if end > sealed_rows {
            rest.push(sealed_rows..end);
        }
        rest.extend(ranges[covered..].iter().cloned());
        rows.order = order(rows.rest.len(), &rest, sealed_rows);
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
        for &at in arrival {
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
        fn seal(&self, rows: &BoardScoreTable) -> Result<Vec<u8>> {
            let mut groups = self
                .groups
                .lock()
                .map_err(|e| Error::Config(e.to_string()))?;
            groups.push(rows.clone());
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
    fn arrive(group: usize, batches: &[&[usize]]) -> (Arriving, Arc<Aside>) {
        let codec = Arc::new(Aside {
            rows: group,
            ..Aside::default()
        });
        let sealer = Sealer::board_scores(codec.clone() as Arc<dyn RowGroupCodec>);
        let mut arriving = Arriving::new(8, &sealer);
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

    /// The rows after the sealed groups as they are written: gathered from their
    /// parts, in pieces of `piece` rows.
    fn gathered(rows: &BoardScoreRows, piece: usize) -> Vec<BoardScore> {
        let mut out = Vec::new();
        let mut start = 0;
        while start < rows.rest_len() {
            let end = (start + piece).min(rows.rest_len());
            for part in rows.parts(start..end) {
                out.extend(part.filter_map(|at| rows.rest_table().get(at)));
            }
            start = end;
        }
        out
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
        for piece in [1, 4, 5, 36] {
            assert_eq!(gathered(&rows, piece), rows_of(&all), "pieces of {piece}");
        }
        let competitions: Vec<&str> = rows.competitions().take(4).collect();
        assert_eq!(competitions, ["c0", "c1", "c1", "c2"]);
        assert_eq!(all_rows(rows)?, rows_of(&all));
        Ok(())
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
}
