//! The rows scoring produces: the lines of `board_scores.parquet` and
//! `standings.parquet`, and the results the handicap model reads, in the order clubs
//! number their entrants.

use std::cmp::Ordering;

use crate::dataset::{Competition, Direction, EntrantResult, Text};

/// One row of `board_scores.parquet`: a table result and both sides' points.
///
/// There is one per table result, tens of millions in a federation's ten years, so the
/// names are [`Text`]: short ones (almost all) are held inline, without an allocation.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardScore {
    pub competition_id: Text,
    pub board: u32,
    /// The N/S entrant (individual events: `"N+S"`).
    pub ns: Option<Text>,
    /// The E/W entrant (individual events: `"E+W"`).
    pub ew: Option<Text>,
    /// `None` for artificial scores.
    pub ns_score: Option<i32>,
    /// Points on the competition's own scale (matchpoints or IMPs).
    pub ns_points: f64,
    pub ew_points: f64,
    /// Butler only: the board's datum.
    pub datum: Option<f64>,
}

/// One row of `standings.parquet`: [`Standing`] as scoring builds it, its names owned
/// and with a Swiss pair's rounds, or [`StandingLine`] as a run holds it, its names
/// borrowed from a run's standings table and without rounds (no run output has them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StandingOf<S, R> {
    pub competition_id: S,
    pub entrant: S,
    /// Total matchpoints (on the competition's scale) or IMPs.
    pub score: f64,
    /// Matchpoint events: the percentage of the points available on the boards played.
    pub percent: Option<f64>,
    pub boards_played: u32,
    /// Shared ranks: 1, 2, 2, 4.
    pub rank: u32,
    /// Set when each direction is ranked on its own (fixed-direction Mitchell).
    pub direction: Option<Direction>,
    /// Team matches: the victory points of the match on the WBF scale for its boards.
    /// They decide a team event's standings; the handicap always uses the IMPs. Swiss
    /// pairs: the pair's total victory points over its matches.
    pub vp: Option<f64>,
    /// Swiss pairs: the house pair, shown but unplaced (its `rank` is 0 and is written
    /// empty).
    pub house: bool,
    /// Swiss pairs: the pair's matches, by round.
    pub rounds: R,
}

/// A row of `standings.parquet` as scoring builds it.
pub type Standing = StandingOf<String, Vec<MatchLine>>;

/// A row of `standings.parquet` borrowed, without the Swiss rounds.
pub type StandingLine<'a> = StandingOf<&'a str, ()>;

impl<'a> From<&'a Standing> for StandingLine<'a> {
    fn from(s: &'a Standing) -> Self {
        StandingOf {
            competition_id: &s.competition_id,
            entrant: &s.entrant,
            score: s.score,
            percent: s.percent,
            boards_played: s.boards_played,
            rank: s.rank,
            direction: s.direction,
            vp: s.vp,
            house: s.house,
            rounds: (),
        }
    }
}

/// Everything scoring produces for one competition.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredCompetition {
    pub board_scores: Vec<BoardScore>,
    pub standings: Vec<Standing>,
    /// What the handicap model consumes: matchpoints → percentage 0-100; IMP scorings →
    /// total IMPs; a team match → one row per team with `opponent` set.
    pub results: Vec<EntrantResult>,
}

/// Orders entrant names as clubs number them: `2` before `10`, numbers before names.
pub fn entrant_order(a: &str, b: &str) -> Ordering {
    match (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y).then_with(|| a.cmp(b)),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

#[cfg(test)]
pub(super) fn order_lists(a: &[impl AsRef<str>], b: &[impl AsRef<str>]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = entrant_order(x.as_ref(), y.as_ref());
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

impl Standing {
    /// An unranked standing without percentage, direction or victory points; scoring
    /// fills in what its format has.
    pub fn new(competition_id: &str, entrant: &str, score: f64, boards_played: u32) -> Self {
        Standing {
            competition_id: competition_id.to_string(),
            entrant: entrant.to_string(),
            score,
            percent: None,
            boards_played,
            rank: 0,
            direction: None,
            vp: None,
            house: false,
            rounds: Vec::new(),
        }
    }
}

/// The model's result of `entrant` in `competition`: `score` over `boards_played`
/// boards, against the field (no opponent).
pub(super) fn field_result(
    competition: &Competition,
    entrant: String,
    boards_played: u32,
    score: f64,
) -> EntrantResult {
    EntrantResult {
        competition_id: competition.competition_id.clone(),
        entrant,
        boards_played,
        score,
        opponent: None,
        origin: competition.origin.clone(),
    }
}

/// The model's result of each standing (its score over its boards, against `opponent`),
/// in entrant order.
pub(super) fn results_of(
    competition: &Competition,
    standings: &[Standing],
    opponent: impl Fn(&Standing) -> Option<String>,
) -> Vec<EntrantResult> {
    let results = standings
        .iter()
        .map(|s| EntrantResult {
            competition_id: competition.competition_id.clone(),
            entrant: s.entrant.clone(),
            boards_played: s.boards_played,
            score: s.score,
            opponent: opponent(s),
            origin: competition.origin.clone(),
        })
        .collect();
    sorted_results(results)
}

/// Results in entrant order.
pub(super) fn sorted_results(mut results: Vec<EntrantResult>) -> Vec<EntrantResult> {
    results.sort_by(|a, b| entrant_order(&a.entrant, &b.entrant));
    results
}

/// The largest number [`plain_number`] reads; larger are looked up like other names.
const MAX_NUMBERED: usize = 4095;

/// The number a name writes in digits without a leading zero, so that the number written
/// back is the same name; `None` for any other name and for numbers above
/// [`MAX_NUMBERED`].
#[inline]
pub(super) fn plain_number(name: &str) -> Option<usize> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > 4 || (bytes.len() > 1 && bytes[0] == b'0') {
        return None;
    }
    let mut n = 0usize;
    for &b in bytes {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + usize::from(b - b'0');
    }
    (n <= MAX_NUMBERED).then_some(n)
}

/// How many entrant numbers [`BoardScoreTable::extend`] remembers.
const NUMBERED_SIDES: usize = 128;

/// A number whose name `extend` has not looked up yet in this competition.
const UNSEEN: u32 = u32::MAX;

/// The board scores of many competitions, column by column.
///
/// A federation's board scores are one row per table result (tens of millions in ten
/// years); as [`BoardScore`] rows, each with its own strings, they took about 180 bytes
/// apiece. Here the competition and entrant names are stored once each and referred to
/// by number, so a row takes 64 bytes.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct BoardScoreTable {
    names: Vec<String>,
    name_index: rustc_hash::FxHashMap<String, u32>,
    columns: BoardScoreTableColumns,
}

impl BoardScoreTable {
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Makes room for `rows` more rows.
    pub fn reserve(&mut self, rows: usize) {
        self.columns.reserve(rows);
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&at) = self.name_index.get(name) {
            return at;
        }
        let at = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.name_index.insert(name.to_owned(), at);
        at
    }

    /// Appends rows, in their order.
    pub fn extend(&mut self, rows: impl IntoIterator<Item = BoardScore>) {
        // A competition's rows come together: its name is looked up once. Entrants are
        // mostly numbered `1`, `2`, ...: each such name is looked up in the table's
        // index once per call and then found by its number.
        let mut last: Option<u32> = None;
        let mut numbered = [UNSEEN; NUMBERED_SIDES];
        for row in rows {
            let competition = match last {
                Some(at) if same_text(&self.names[at as usize], &row.competition_id) => at,
                _ => self.intern(&row.competition_id),
            };
            last = Some(competition);
            let mut side = |name: &str| -> u32 {
                match plain_number(name).filter(|&n| n < NUMBERED_SIDES) {
                    Some(n) => {
                        if numbered[n] == UNSEEN {
                            numbered[n] = self.intern(name);
                        }
                        numbered[n]
                    }
                    None => self.intern(name),
                }
            };
            let ns = row.ns.as_deref().map(&mut side);
            let ew = row.ew.as_deref().map(&mut side);
            self.columns.push(BoardScoreRecord {
                competition,
                board: row.board,
                ns,
                ew,
                ns_score: row.ns_score,
                ns_points: row.ns_points,
                ew_points: row.ew_points,
                datum: row.datum,
            });
        }
    }

    /// Keeps the rows of the competitions `keep` accepts, in order.
    pub fn retain_competitions(&mut self, keep: impl Fn(&str) -> bool) {
        let kept: Vec<bool> = self.names.iter().map(|name| keep(name)).collect();
        let competitions = self.columns.competition.iter();
        let mask: Vec<bool> = competitions.map(|&at| kept[at as usize]).collect();
        self.columns.retain(&mask);
    }

    /// The rows in `ranges`, in that order.
    pub fn reordered(&self, ranges: &[std::ops::Range<usize>]) -> BoardScoreTable {
        let mut table = BoardScoreTable::default();
        for range in ranges {
            table.extend(range.clone().filter_map(|at| self.get(at)));
        }
        table
    }

    /// Takes the first `rows` rows out, as a table of their own holding only the names
    /// they use.
    pub fn split_front(&mut self, rows: usize) -> BoardScoreTable {
        let rows = rows.min(self.len());
        let mut front = BoardScoreTable::default();
        // Each row names up to three names: they are renamed through a list by number,
        // as a map looked up three times a row cost more than the rest of the split.
        let mut renamed: Vec<u32> = vec![UNSEEN; self.names.len()];
        let mut rename = |front: &mut BoardScoreTable, at: u32| -> u32 {
            match renamed.get(at as usize) {
                Some(&seen) if seen != UNSEEN => seen,
                _ => {
                    let name = self.names.get(at as usize).map_or("", String::as_str);
                    let new = front.intern(name);
                    if let Some(slot) = renamed.get_mut(at as usize) {
                        *slot = new;
                    }
                    new
                }
            }
        };
        front.columns.competition = self.columns.competition[..rows]
            .iter()
            .map(|&at| rename(&mut front, at))
            .collect();
        front.columns.ns = self.columns.ns[..rows]
            .iter()
            .map(|at| at.map(|at| rename(&mut front, at)))
            .collect();
        front.columns.ew = self.columns.ew[..rows]
            .iter()
            .map(|at| at.map(|at| rename(&mut front, at)))
            .collect();
        front.columns.board = self.columns.board.drain(..rows).collect();
        front.columns.ns_score = self.columns.ns_score.drain(..rows).collect();
        front.columns.ns_points = self.columns.ns_points.drain(..rows).collect();
        front.columns.ew_points = self.columns.ew_points.drain(..rows).collect();
        front.columns.datum = self.columns.datum.drain(..rows).collect();
        self.columns.competition.drain(..rows);
        self.columns.ns.drain(..rows);
        self.columns.ew.drain(..rows);
        front
    }

    /// Appends the rows of `other`, in their order.
    pub fn append(&mut self, other: &BoardScoreTable) {
        let renamed: Vec<u32> = other.names.iter().map(|name| self.intern(name)).collect();
        let rename = |at: u32| renamed[at as usize];
        self.columns
            .competition
            .extend(other.columns.competition.iter().map(|&at| rename(at)));
        self.columns
            .ns
            .extend(other.columns.ns.iter().map(|at| at.map(rename)));
        self.columns
            .ew
            .extend(other.columns.ew.iter().map(|at| at.map(rename)));
        self.columns.board.extend_from_slice(&other.columns.board);
        self.columns
            .ns_score
            .extend_from_slice(&other.columns.ns_score);
        self.columns
            .ns_points
            .extend_from_slice(&other.columns.ns_points);
        self.columns
            .ew_points
            .extend_from_slice(&other.columns.ew_points);
        self.columns.datum.extend_from_slice(&other.columns.datum);
    }

    /// Takes every row out as its columns, leaving the names (which the columns number).
    pub fn take_columns(&mut self) -> BoardScoreTableColumns {
        std::mem::take(&mut self.columns)
    }

    /// The competitions with rows in the table, each once, in the order they first
    /// appear.
    pub fn competition_names(&self) -> Vec<String> {
        let mut seen = vec![false; self.names.len()];
        let mut names = Vec::new();
        for &at in &self.columns.competition {
            if !std::mem::replace(&mut seen[at as usize], true) {
                names.push(self.names[at as usize].clone());
            }
        }
        names
    }

    /// Row `at`, as a [`BoardScore`].
    pub fn get(&self, at: usize) -> Option<BoardScore> {
        let name = |index: u32| Text::new(&self.names[index as usize]);
        let r = self.columns.record(at)?;
        Some(BoardScore {
            competition_id: name(r.competition),
            board: r.board,
            ns: r.ns.map(name),
            ew: r.ew.map(name),
            ns_score: r.ns_score,
            ns_points: r.ns_points,
            ew_points: r.ew_points,
            datum: r.datum,
        })
    }

    /// Every row, as [`BoardScore`]s.
    pub fn rows(&self) -> impl Iterator<Item = BoardScore> + '_ {
        (0..self.len()).filter_map(|at| self.get(at))
    }

    /// The competition of each row in `range`.
    pub fn competition_ids(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = &str> {
        self.columns.competition[range]
            .iter()
            .map(|&at| self.names[at as usize].as_str())
    }

    /// Every name the table numbers (competitions and entrants), by number.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The competition of each row in `range`, by its number in [`Self::names`].
    pub fn competition_numbers(&self, range: std::ops::Range<usize>) -> &[u32] {
        &self.columns.competition[range]
    }

    /// [`Self::sides`], by number in [`Self::names`].
    pub fn side_numbers(&self, range: std::ops::Range<usize>, ew: bool) -> &[Option<u32>] {
        if ew {
            &self.columns.ew[range]
        } else {
            &self.columns.ns[range]
        }
    }

    pub fn boards(&self, range: std::ops::Range<usize>) -> &[u32] {
        &self.columns.board[range]
    }

    /// The N/S (`ew`: false) or E/W (`ew`: true) entrant of each row in `range`.
    pub fn sides(
        &self,
        range: std::ops::Range<usize>,
        ew: bool,
    ) -> impl Iterator<Item = Option<&str>> {
        let side = if ew {
            &self.columns.ew
        } else {
            &self.columns.ns
        };
        side[range]
            .iter()
            .map(|at| at.map(|at| self.names[at as usize].as_str()))
    }

    pub fn ns_scores(&self, range: std::ops::Range<usize>) -> &[Option<i32>] {
        &self.columns.ns_score[range]
    }

    pub fn points(&self, range: std::ops::Range<usize>, ew: bool) -> &[f64] {
        if ew {
            &self.columns.ew_points[range]
        } else {
            &self.columns.ns_points[range]
        }
    }

    pub fn datums(&self, range: std::ops::Range<usize>) -> &[Option<f64>] {
        &self.columns.datum[range]
    }
}

/// The bytes of one row as [`BoardScoreTable::write_records`] writes it.
pub const RECORD_BYTES: usize = 45;

/// Which of a record's optional cells are set.
const HAS_NS: u8 = 1;
const HAS_EW: u8 = 2;
const HAS_SCORE: u8 = 4;
const HAS_DATUM: u8 = 8;

/// One row as a record holds it: names by their number in the table that wrote it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoardScoreRecord {
    pub competition: u32,
    pub board: u32,
    pub ns: Option<u32>,
    pub ew: Option<u32>,
    pub ns_score: Option<i32>,
    pub ns_points: f64,
    pub ew_points: f64,
    pub datum: Option<f64>,
}

impl BoardScoreRecord {
    /// The record `bytes` holds (the first [`RECORD_BYTES`] of them); `None` when they
    /// are fewer.
    pub fn read(bytes: &[u8]) -> Option<BoardScoreRecord> {
        let bytes: &[u8; RECORD_BYTES] = bytes.get(..RECORD_BYTES)?.try_into().ok()?;
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let float = |at: usize| {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(&bytes[at..at + 8]);
            f64::from_le_bytes(eight)
        };
        let flags = bytes[0];
        let set = |flag: u8| flags & flag != 0;
        Some(BoardScoreRecord {
            competition: word(1),
            board: word(5),
            ns: set(HAS_NS).then(|| word(9)),
            ew: set(HAS_EW).then(|| word(13)),
            ns_score: set(HAS_SCORE).then(|| word(17) as i32),
            ns_points: float(21),
            ew_points: float(29),
            datum: set(HAS_DATUM).then(|| float(37)),
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        let flags = [
            (self.ns.is_some(), HAS_NS),
            (self.ew.is_some(), HAS_EW),
            (self.ns_score.is_some(), HAS_SCORE),
            (self.datum.is_some(), HAS_DATUM),
        ]
        .iter()
        .filter(|(set, _)| *set)
        .fold(0u8, |flags, (_, flag)| flags | flag);
        out.push(flags);
        out.extend_from_slice(&self.competition.to_le_bytes());
        out.extend_from_slice(&self.board.to_le_bytes());
        out.extend_from_slice(&self.ns.unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&self.ew.unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&self.ns_score.unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&self.ns_points.to_le_bytes());
        out.extend_from_slice(&self.ew_points.to_le_bytes());
        out.extend_from_slice(&self.datum.unwrap_or(0.0).to_le_bytes());
    }
}

/// Rows kept as records, to be held on disk rather than in memory: the names stay in
/// the table, which is all a record needs to be read back as a row.
impl BoardScoreTable {
    /// Appends the rows `range` to `out` as records of [`RECORD_BYTES`] each.
    pub fn write_records(&self, range: std::ops::Range<usize>, out: &mut Vec<u8>) {
        out.reserve(range.len() * RECORD_BYTES);
        for at in range {
            if let Some(record) = self.columns.record(at) {
                record.write(out);
            }
        }
    }

    /// Drops every row and its room, keeping the names the written records refer to.
    pub fn clear_rows(&mut self) {
        self.columns = BoardScoreTableColumns::default();
    }

    /// Appends the rows of `records` (written by this table's
    /// [`write_records`](Self::write_records)); a trailing part shorter than a record is
    /// ignored.
    pub fn push_records(&mut self, records: &[u8]) {
        let rows = records.len() / RECORD_BYTES;
        self.reserve(rows);
        for record in records.chunks_exact(RECORD_BYTES) {
            if let Some(r) = BoardScoreRecord::read(record) {
                self.columns.push(r);
            }
        }
    }

    /// The name numbered `at` in this table (a record's competition or side); empty for
    /// a number the table never gave.
    pub fn name(&self, at: u32) -> &str {
        self.names.get(at as usize).map_or("", String::as_str)
    }
}

/// A [`BoardScoreTable`]'s rows as its columns, names by their number in the table.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct BoardScoreTableColumns {
    pub competition: Vec<u32>,
    pub board: Vec<u32>,
    pub ns: Vec<Option<u32>>,
    pub ew: Vec<Option<u32>>,
    pub ns_score: Vec<Option<i32>>,
    pub ns_points: Vec<f64>,
    pub ew_points: Vec<f64>,
    pub datum: Vec<Option<f64>>,
}

impl BoardScoreTableColumns {
    /// Empty columns with room for `rows` rows.
    pub fn with_capacity(rows: usize) -> Self {
        let mut columns = BoardScoreTableColumns::default();
        columns.reserve(rows);
        columns
    }

    pub fn len(&self) -> usize {
        self.board.len()
    }

    pub fn is_empty(&self) -> bool {
        self.board.is_empty()
    }

    /// Makes room for `rows` more rows.
    pub fn reserve(&mut self, rows: usize) {
        self.competition.reserve(rows);
        self.board.reserve(rows);
        self.ns.reserve(rows);
        self.ew.reserve(rows);
        self.ns_score.reserve(rows);
        self.ns_points.reserve(rows);
        self.ew_points.reserve(rows);
        self.datum.reserve(rows);
    }

    /// Appends a row.
    #[inline]
    pub fn push(&mut self, r: BoardScoreRecord) {
        self.competition.push(r.competition);
        self.board.push(r.board);
        self.ns.push(r.ns);
        self.ew.push(r.ew);
        self.ns_score.push(r.ns_score);
        self.ns_points.push(r.ns_points);
        self.ew_points.push(r.ew_points);
        self.datum.push(r.datum);
    }

    /// Keeps the rows `mask` marks, in order.
    fn retain(&mut self, mask: &[bool]) {
        fn filter<T>(column: &mut Vec<T>, mask: &[bool]) {
            let mut row = 0;
            column.retain(|_| {
                row += 1;
                mask[row - 1]
            });
        }
        filter(&mut self.competition, mask);
        filter(&mut self.board, mask);
        filter(&mut self.ns, mask);
        filter(&mut self.ew, mask);
        filter(&mut self.ns_score, mask);
        filter(&mut self.ns_points, mask);
        filter(&mut self.ew_points, mask);
        filter(&mut self.datum, mask);
    }

    /// Row `at`; `None` past the last.
    pub fn record(&self, at: usize) -> Option<BoardScoreRecord> {
        Some(BoardScoreRecord {
            competition: *self.competition.get(at)?,
            board: self.board[at],
            ns: self.ns[at],
            ew: self.ew[at],
            ns_score: self.ns_score[at],
            ns_points: self.ns_points[at],
            ew_points: self.ew_points[at],
            datum: self.datum[at],
        })
    }
}

/// Whether two names are the same, compared in place: a competition's rows all name
/// it, and the call [`str::eq`] makes for each was a cost of its own.
#[inline]
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| -> u64 {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(&bytes[at..at + 8]);
        u64::from_ne_bytes(eight)
    };
    if a.len() < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let last = a.len() - 8;
    let mut at = 0;
    while at < last {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, last) == word(b, last)
}

impl FromIterator<BoardScore> for BoardScoreTable {
    fn from_iter<I: IntoIterator<Item = BoardScore>>(rows: I) -> Self {
        let mut table = BoardScoreTable::default();
        table.extend(rows);
        table
    }
}

/// One pair's match in one round, as the result sheet prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchLine {
    pub round: u32,
    pub opponent: String,
    /// Boards of the match; they choose the VP scale.
    pub boards: u32,
    /// The pair's datum IMPs over the match's boards.
    pub imps: f64,
    /// The IMP margin the VPs are read for (see [`match_margin`](super::swiss::match_margin)).
    pub margin: i32,
    pub vp: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(competition: &str, board: u32, ns: Option<&str>, ew: Option<&str>) -> BoardScore {
        BoardScore {
            competition_id: Text::new(competition),
            board,
            ns: ns.map(Text::new),
            ew: ew.map(Text::new),
            ns_score: Some(i32::try_from(board).unwrap_or(0) * 10),
            ns_points: f64::from(board),
            ew_points: -f64::from(board),
            datum: None,
        }
    }

    #[test]
    fn numbered_and_named_entrants_come_back_as_written() {
        // `12` and `012` are different entrants; `127` is the last number remembered,
        // `128` the first looked up by name; a competition may be named like an entrant.
        let rows = vec![
            row("c1", 1, Some("12"), Some("012")),
            row("c1", 1, Some("127"), Some("128")),
            row("c1", 2, Some("0"), None),
            row("12", 1, Some("12"), Some("B")),
            row("c2", 1, Some("+1"), Some("1")),
            row("c1", 3, Some("12"), Some("1")),
        ];
        let table: BoardScoreTable = rows.iter().cloned().collect();
        assert_eq!(table.rows().collect::<Vec<_>>(), rows);
        let sides: Vec<Option<&str>> = table.sides(0..6, false).collect();
        assert_eq!(
            sides,
            [
                Some("12"),
                Some("127"),
                Some("0"),
                Some("12"),
                Some("+1"),
                Some("12")
            ]
        );
        assert_eq!(table.competition_names(), ["c1", "12", "c2"]);
    }

    #[test]
    fn names_are_the_same_only_byte_for_byte() {
        assert!(same_text("K01-20241125-1", "K01-20241125-1"));
        // Differing in the last byte, in the first, or in a byte of the middle word.
        assert!(!same_text("K01-20241125-1", "K01-20241125-2"));
        assert!(!same_text("K01-20241125-1", "L01-20241125-1"));
        assert!(!same_text("K01-20241125-1-M1", "K01-20241225-1-M1"));
        assert!(!same_text("K01-20241125-1", "K01-20241125-1-M1"));
        assert!(same_text("12345678", "12345678"));
        assert!(!same_text("12345678", "12345679"));
        assert!(same_text("c1", "c1"));
        assert!(!same_text("c1", "c2"));
        assert!(same_text("", ""));
        assert!(!same_text("", "a"));
    }

    #[test]
    fn columns_taken_out_number_the_names_the_table_keeps() {
        let mut table: BoardScoreTable = [
            row("c1", 1, Some("1"), Some("2")),
            row("c1", 2, Some("2"), None),
        ]
        .into_iter()
        .collect();
        let columns = table.take_columns();
        assert!(table.is_empty());
        assert_eq!(table.names(), ["c1", "1", "2"]);
        assert_eq!(columns.competition, [0, 0]);
        assert_eq!(columns.board, [1, 2]);
        assert_eq!(columns.ns, [Some(1), Some(2)]);
        assert_eq!(columns.ew, [Some(2), None]);
        assert_eq!(columns.ns_score, [Some(10), Some(20)]);
        assert_eq!(columns.ns_points, [1.0, 2.0]);
        assert_eq!(columns.ew_points, [-1.0, -2.0]);
        assert_eq!(columns.datum, [None, None]);
    }

    #[test]
    fn a_split_front_holds_its_rows_and_only_their_names() {
        let rows = [
            row("c1", 1, Some("1"), Some("2")),
            row("c1", 2, Some("2"), None),
            row("c2", 1, Some("B"), Some("1")),
            row("c3", 1, Some("A"), Some("C")),
        ];
        let mut table: BoardScoreTable = rows.iter().cloned().collect();
        let front = table.split_front(3);
        assert_eq!(front.rows().collect::<Vec<_>>(), rows[..3]);
        // Competitions are named first, then the sides, in the order they come.
        assert_eq!(front.names, ["c1", "c2", "1", "2", "B"]);
        assert_eq!(table.rows().collect::<Vec<_>>(), rows[3..]);
        // Asking for more rows than there are takes them all.
        let rest = table.split_front(9);
        assert_eq!(rest.rows().collect::<Vec<_>>(), rows[3..]);
        assert!(table.is_empty());
    }

    proptest::proptest! {
        /// However the rows are cut into calls to `extend`, the table gives back the rows
        /// it was given, and the same as a table extended row by row.
        #[test]
        fn rows_come_back_however_they_are_appended(
            picked in proptest::collection::vec(
                (0usize..3, 1u32..5, proptest::option::of("(0|[1-9][0-9]{0,3}|0[0-9]|[ab])"),
                 proptest::option::of("(0|[1-9][0-9]{0,3}|0[0-9]|[ab])")),
                0..40,
            ),
            cuts in proptest::collection::vec(0usize..40, 0..4),
        ) {
            let rows: Vec<BoardScore> = picked
                .iter()
                .map(|(c, board, ns, ew)| row(["c", "7", "x"][*c], *board, ns.as_deref(), ew.as_deref()))
                .collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(rows.len())).collect();
            cuts.push(0);
            cuts.push(rows.len());
            cuts.sort_unstable();
            let mut in_parts = BoardScoreTable::default();
            for part in cuts.windows(2) {
                in_parts.extend(rows[part[0]..part[1]].iter().cloned());
            }
            let mut one_by_one = BoardScoreTable::default();
            for r in &rows {
                one_by_one.extend([r.clone()]);
            }
            proptest::prop_assert_eq!(in_parts.rows().collect::<Vec<_>>(), rows.clone());
            proptest::prop_assert_eq!(in_parts, one_by_one);
        }
    }
}
