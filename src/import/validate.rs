//! The rules a dataset must meet before anything is scored or rated.
//!
//! They live apart from the table reader so that every way into a [`Dataset`] (Parquet,
//! CSV, the PBN and USEBIO importers, a test building structs by hand) is held to the same
//! rules and gets the same messages. The [`Validator`] sees rows one at a time, in the
//! dataset's table order (docs/data.md), so the reader can stop at the first broken rule while
//! still reading: the error reported is always the first one in table order, then file
//! order, whatever the thread count.

use rustc_hash::FxHashMap as HashMap;

use crate::dataset::text::{check_text, MAX_NAME_CHARS, MAX_TEXT_CHARS};
use crate::dataset::{
    BoardCells, BoardRow, Competition, Dataset, Entrant, EntrantResult, Member, MemberId, Origin,
    ScoringMethod,
};
use crate::error::{InputError, Location};

pub use crate::scoring::contract::MAX_TRICKS;

/// Seats a declarer can sit in.
pub const DECLARERS: [&str; 4] = ["N", "E", "S", "W"];

/// The columns of a board row's seats, in the order [`BoardRow::seats`] gives them and
/// the checks name them.
const BOARD_SEAT_COLUMNS: [&str; 6] = ["ns", "ew", "north", "south", "east", "west"];

/// The player columns of `entrants`, in slot order.
pub const PLAYER_COLUMNS: [&str; 4] = ["player1", "player2", "player3", "player4"];

/// The printed-name columns of `entrants`, in slot order.
pub const NAME_COLUMNS: [&str; 4] = [
    "player1_name",
    "player2_name",
    "player3_name",
    "player4_name",
];

/// The seat columns of `boards` in individual events.
pub const SEAT_COLUMNS: [&str; 4] = ["north", "south", "east", "west"];

/// Tricks as stored, or the rule it breaks.
///
/// ```
/// use bridgehcp::import::validate::tricks_in_range;
/// assert_eq!(tricks_in_range(13), Ok(13));
/// assert_eq!(tricks_in_range(0), Ok(0));
/// assert_eq!(
///     tricks_in_range(14),
///     Err("tricks must be between 0 and 13, found 14".to_string())
/// );
/// ```
pub fn tricks_in_range(value: i64) -> Result<u8, String> {
    match u8::try_from(value) {
        Ok(tricks) if tricks <= MAX_TRICKS => Ok(tricks),
        _ => Err(format!(
            "tricks must be between 0 and {MAX_TRICKS}, found {value}"
        )),
    }
}

/// A count (boards played, board number, round, table) as stored, or the rule it breaks.
pub fn non_negative(column: &str, value: i64) -> Result<u32, String> {
    u32::try_from(value).map_err(|_| format!("`{column}` must not be negative, found {value}"))
}

/// Plausibility limits: values a club's program could write but no real competition
/// has. A value outside them is a broken export or a typing slip, and taken as it is it
/// would move handicaps by absurd amounts (a team score of 1e300 gives a handicap of
/// about −2.4e297), so it breaks a rule like any other. Each limit is far outside what
/// real play produces, so that no genuine result is refused.
pub mod limits {
    use chrono::NaiveDate;

    /// Competition dates: from 1950 (before any handicap system) to 2099.
    pub const EARLIEST_DATE: NaiveDate = match NaiveDate::from_ymd_opt(1950, 1, 1) {
        Some(date) => date,
        None => NaiveDate::MIN,
    };
    pub const LATEST_DATE: NaiveDate = match NaiveDate::from_ymd_opt(2099, 12, 31) {
        Some(date) => date,
        None => NaiveDate::MAX,
    };
    /// Sessions of one day's event are numbered 1 to 99.
    pub const MAX_SESSION: i32 = 99;
    /// Boards of one competition (a session, a match), and boards played by an entrant.
    pub const MAX_BOARDS: u32 = 256;
    /// Board numbers (a later session may number its boards on from the first).
    pub const MAX_BOARD_NUMBER: u32 = 9_999;
    /// Round and table numbers.
    pub const MAX_ROUND_OR_TABLE: u32 = 9_999;
    /// A table score: 13 undertricks redoubled and vulnerable score 7600, the most any
    /// deal can.
    pub const MAX_TABLE_SCORE: i32 = 7_600;
    /// A director's penalty on one board, in the competition's own points.
    pub const MAX_PENALTY: f64 = 100.0;
    /// IMPs per board and comparison: the IMP scale ends at 24.
    pub const MAX_IMPS_PER_BOARD: f64 = 24.0;
    /// Masterpoints of one member.
    pub const MAX_MASTERPOINTS: f64 = 1_000_000.0;
    /// How far the mean percentage of a matchpoint field (weighted by boards played)
    /// may be from 50. Every board's matchpoints are shared out in full, so a complete
    /// field averages exactly 50 %; adjusted scores (60/40), a sit-out and Neuberg's
    /// factoring move it by a point or two, a broken export by far more.
    pub const MATCHPOINT_MEAN_TOLERANCE: f64 = 5.0;
}

/// A value as a message shows it: huge floats in exponent form, not 300 digits.
trait Shown {
    fn shown(&self) -> String;
}

impl Shown for f64 {
    fn shown(&self) -> String {
        if self.abs() >= 1e9 {
            format!("{self:e}")
        } else {
            self.to_string()
        }
    }
}

macro_rules! shown_as_display {
    ($($ty:ty),*) => {$(
        impl Shown for $ty {
            fn shown(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
shown_as_display!(i32, u32, chrono::NaiveDate);

/// The rule a value outside `[low, high]` breaks.
fn within<T: PartialOrd + Shown>(column: &str, value: T, low: T, high: T) -> Result<(), String> {
    if value < low || value > high {
        Err(format!(
            "`{column}` must be between {} and {}, found {}",
            low.shown(),
            high.shown(),
            value.shown()
        ))
    } else {
        Ok(())
    }
}

/// The largest plausible IMP total for an entrant: 24 IMPs a board against each of the
/// other entrants (summed cross-IMPs compare with every other table).
pub fn max_imp_total(boards_played: u32, entrants: usize) -> f64 {
    limits::MAX_IMPS_PER_BOARD
        * f64::from(boards_played.max(1))
        * entrants.saturating_sub(1).max(1) as f64
}

/// The rule a non-finite number breaks, if it is one.
pub fn finite(value: f64) -> Result<f64, String> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(format!("`{value}` is not a finite number"))
    }
}

/// Checks a whole in-memory dataset, tables in contract order, rows in order.
pub fn validate(dataset: &Dataset) -> Result<(), InputError> {
    let mut validator = Validator::default();
    dataset
        .members
        .iter()
        .try_for_each(|m| validator.member(m))?;
    dataset
        .competitions
        .iter()
        .try_for_each(|c| validator.competition(c))?;
    dataset
        .entrants
        .iter()
        .try_for_each(|e| validator.entrant(e))?;
    dataset
        .results
        .iter()
        .try_for_each(|r| validator.result(r))?;
    dataset.boards.iter().try_for_each(|b| validator.board(b))?;
    validator.finish()
}

/// What later tables need to know about a competition.
#[derive(Debug, Clone)]
struct CompetitionFacts {
    boards: Option<u32>,
    origin: Origin,
    /// Its number: its place in `competition_order`.
    at: usize,
}

/// Checks rows one at a time. Feed it members, competitions, entrants, results, boards in
/// that order (later tables refer to earlier ones), then call [`Validator::finish`].
#[derive(Debug, Default)]
pub struct Validator {
    members: HashMap<MemberId, Origin>,
    /// Competition ids by number.
    competition_order: Vec<String>,
    competitions: HashMap<String, CompetitionFacts>,
    /// The entrants each competition lists, by competition number.
    entrants: Listings,
    /// By competition number: whether board rows came for it.
    competitions_with_boards: Vec<bool>,
    /// Per matchpoint competition (by number), its `results` percentages summed.
    percentages: HashMap<usize, Percentages>,
    /// Per team match (`team_imps`, by number), the teams its `results` rows list, in
    /// order.
    match_teams: HashMap<usize, Vec<String>>,
    /// The competition of the last board row that passed: known, and already among
    /// those with board rows. A competition's rows come together, so the rows after
    /// its first skip both lookups.
    board_competition: Option<String>,
    /// The number of `board_competition`.
    board_at: usize,
    /// By competition number: its scoring and boards, which result rows need.
    competition_kinds: Vec<(ScoringMethod, Option<u32>)>,
    /// The number of the competition of the last entrant row that found its
    /// competition, and the same for results ([`Validator::number_of`]).
    entrant_at: Option<usize>,
    result_at: Option<usize>,
}

/// The entrants listed per competition, compactly: a federation's history lists
/// millions of entrants, and board rows are checked against them until the last board
/// row has been read. Names are interned (the same few texts, "1" to "12", name the
/// entrants of most competitions, and those are found by their number without hashing)
/// and a competition is known by its number in `competitions`.
///
/// A competition's entrant rows come together, so the one whose rows are arriving is
/// kept open on its own, a short list searched where it lies, and is sorted into one
/// run of `listed` when the next competition's rows begin: a repeated entrant is found
/// without touching any other competition, and the board rows of a competition search
/// its run alone. A competition whose rows come back after another's (a file in some
/// other order, or entrant rows after the rows that refer to them) is taken into a map
/// until the listings are settled again, so no order of rows costs more than a map.
#[derive(Debug, Default)]
struct Listings {
    /// Entrant names, interned.
    names: HashMap<Box<str>, u32>,
    /// Per [`small_number`] `n`, the name that writes it, or [`NOT_LISTED`].
    by_number: Vec<u32>,
    /// The competition whose entrant rows are arriving, and its entrants as listed:
    /// (name, row as in `listed`).
    open: Option<usize>,
    open_rows: Vec<(u32, u32)>,
    /// Name -> place in `open_rows`, once the open competition lists more than
    /// [`OPEN_SCANNED`] entrants.
    open_places: HashMap<u32, u32>,
    /// Per competition: `listed[spans[c].0..spans[c].1]` are its entrants, sorted by
    /// name; [`MAPPED`] while they are in `mapped`.
    spans: Vec<(usize, usize)>,
    /// Each closed competition's entrants, with the row each was listed at;
    /// [`FAR_ROW`] when that is kept in `far_rows`.
    listed: Vec<(u32, u32)>,
    /// (competition, name) -> row, for the competitions listed again after another's
    /// rows, until the listings are settled.
    mapped: HashMap<(usize, u32), u32>,
    /// The rows that are unknown or do not fit a `u32`.
    far_rows: HashMap<(usize, u32), Option<usize>>,
    /// Per name, the number it writes ([`small_number`]), or [`NOT_NUMBERED`].
    numbers: Vec<u16>,
    /// The competition `numbered` was taken from, while the listings stay as they were.
    numbered_of: Option<usize>,
    /// Whether that competition lists the entrant written as the number `n`, at `[n]`.
    numbered: Vec<bool>,
}

/// A name that is not a [`small_number`].
const NOT_NUMBERED: u16 = u16::MAX;

/// A number no listed name writes, in [`Listings::by_number`].
const NOT_LISTED: u32 = u32::MAX;

/// The open competition's entrants are searched in a list up to this many; a larger
/// competition (a congress's field) is searched by map.
const OPEN_SCANNED: usize = 32;

/// The span of a competition whose entrants are in [`Listings::mapped`].
const MAPPED: (usize, usize) = (usize::MAX, usize::MAX);

/// The number a name writes in at most three digits, without a leading zero (so no two
/// names write the same number): the names clubs give their pairs and teams, which a
/// competition's board rows repeat on every row.
fn small_number(name: &str) -> Option<u16> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > 3 || (bytes.len() > 1 && bytes[0] == b'0') {
        return None;
    }
    bytes.iter().try_fold(0u16, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + u16::from(b - b'0'))
    })
}

/// A listed row kept in [`Listings::far_rows`].
const FAR_ROW: u32 = u32::MAX;

impl Listings {
    /// The name's number, when an entrant of that name was listed.
    fn name(&self, entrant: &str) -> Option<u32> {
        match small_number(entrant) {
            Some(n) => self
                .by_number
                .get(usize::from(n))
                .copied()
                .filter(|&name| name != NOT_LISTED),
            None => self.names.get(entrant).copied(),
        }
    }

    /// The settled entrants of competition `at`, sorted by name.
    fn settled(&self, at: usize) -> &[(u32, u32)] {
        match self.spans.get(at) {
            Some(&(start, end)) => self.listed.get(start..end).unwrap_or_default(),
            None => &[],
        }
    }

    /// Where the entrant named `name` was listed in competition `at`: `None` when it
    /// was not, else its row when known.
    fn row_of_name(&self, at: usize, name: u32) -> Option<Option<usize>> {
        let row = if self.open == Some(at) {
            let place = if self.open_places.is_empty() {
                self.open_rows.iter().position(|&(n, _)| n == name)?
            } else {
                *self.open_places.get(&name)? as usize
            };
            self.open_rows.get(place)?.1
        } else if self.spans.get(at) == Some(&MAPPED) {
            *self.mapped.get(&(at, name))?
        } else {
            let settled = self.settled(at);
            let found = settled.binary_search_by_key(&name, |&(n, _)| n).ok()?;
            settled.get(found)?.1
        };
        Some(match row {
            FAR_ROW => self.far_rows.get(&(at, name)).copied().flatten(),
            row => Some(row as usize),
        })
    }

    /// Where `entrant` was listed in competition `at`: `None` when it was not, else
    /// its row when known.
    #[cfg(test)]
    fn row_of(&self, at: usize, entrant: &str) -> Option<Option<usize>> {
        self.row_of_name(at, self.name(entrant)?)
    }

    /// True when competition `at` lists `entrant` (settled listings only).
    fn lists(&self, at: usize, entrant: &str) -> bool {
        self.name(entrant).is_some_and(|name| {
            self.settled(at)
                .binary_search_by_key(&name, |&(n, _)| n)
                .is_ok()
        })
    }

    /// [`Listings::lists`] for a board row's seat: a numbered entrant is looked up in
    /// flags taken once from the competition's listings, as the rows of one competition
    /// come together and name the same few entrants on every row.
    fn lists_seat(&mut self, at: usize, entrant: &str) -> bool {
        let Some(number) = small_number(entrant) else {
            return self.lists(at, entrant);
        };
        if self.numbered_of != Some(at) {
            let mut numbered = std::mem::take(&mut self.numbered);
            numbered.clear();
            for &(name, _) in self.settled(at) {
                let listed = self.numbers.get(name as usize).copied();
                if let Some(n) = listed.filter(|&n| n != NOT_NUMBERED).map(usize::from) {
                    if numbered.len() <= n {
                        numbered.resize(n + 1, false);
                    }
                    numbered[n] = true;
                }
            }
            self.numbered = numbered;
            self.numbered_of = Some(at);
        }
        self.numbered
            .get(usize::from(number))
            .copied()
            .unwrap_or(false)
    }

    /// How many entrants competition `at` lists (settled listings only).
    fn count(&self, at: usize) -> usize {
        self.settled(at).len()
    }

    /// Lists `entrant` in competition `at`, at `row`; the caller has checked it is not
    /// listed there yet.
    #[cfg(test)]
    fn add(&mut self, at: usize, entrant: &str, row: Option<usize>) -> Result<(), String> {
        self.add_named(at, self.name(entrant), entrant, row)
    }

    /// [`Listings::add`] given the name's number when it has one ([`Listings::name`]).
    fn add_named(
        &mut self,
        at: usize,
        name: Option<u32>,
        entrant: &str,
        row: Option<usize>,
    ) -> Result<(), String> {
        self.numbered_of = None;
        let name = match name {
            Some(name) => name,
            None => self.intern(entrant)?,
        };
        let kept = match row.and_then(|row| u32::try_from(row).ok()) {
            Some(row) if row != FAR_ROW => row,
            _ => {
                self.far_rows.insert((at, name), row);
                FAR_ROW
            }
        };
        if self.open != Some(at) {
            self.close();
            if self.settled(at).is_empty() && self.spans.get(at) != Some(&MAPPED) {
                self.open = Some(at);
            } else {
                self.map(at);
                self.mapped.insert((at, name), kept);
                return Ok(());
            }
        }
        let place = self.open_rows.len();
        self.open_rows.push((name, kept));
        if !self.open_places.is_empty() {
            self.open_places.insert(name, place as u32);
        } else if self.open_rows.len() > OPEN_SCANNED {
            let places = self.open_rows.iter().enumerate();
            self.open_places = places.map(|(p, &(n, _))| (n, p as u32)).collect();
        }
        Ok(())
    }

    /// A new name's number.
    fn intern(&mut self, entrant: &str) -> Result<u32, String> {
        let name = u32::try_from(self.names.len())
            .ok()
            .filter(|&name| name != NOT_LISTED)
            .ok_or_else(|| format!("more than {} distinct entrant names", u32::MAX - 1))?;
        self.names.insert(entrant.into(), name);
        let number = small_number(entrant);
        self.numbers.push(number.unwrap_or(NOT_NUMBERED));
        if let Some(n) = number.map(usize::from) {
            if self.by_number.len() <= n {
                self.by_number.resize(n + 1, NOT_LISTED);
            }
            self.by_number[n] = name;
        }
        Ok(name)
    }

    /// Sorts the open competition's entrants into its run of `listed`.
    fn close(&mut self) {
        let Some(at) = self.open.take() else {
            return;
        };
        self.open_rows.sort_unstable_by_key(|&(name, _)| name);
        let start = self.listed.len();
        self.listed.append(&mut self.open_rows);
        if self.spans.len() <= at {
            self.spans.resize(at + 1, (0, 0));
        }
        self.spans[at] = (start, self.listed.len());
        self.open_places.clear();
    }

    /// Takes competition `at`'s run, if any, into the map.
    fn map(&mut self, at: usize) {
        if self.spans.len() <= at {
            self.spans.resize(at + 1, (0, 0));
        }
        if self.spans[at] == MAPPED {
            return;
        }
        let (start, end) = self.spans[at];
        for &(name, row) in self.listed.get(start..end).unwrap_or_default() {
            self.mapped.insert((at, name), row);
        }
        self.spans[at] = MAPPED;
    }

    /// Closes the open competition, and sorts the mapped ones into runs of their own.
    fn settle(&mut self) {
        if self.open.is_none() && self.mapped.is_empty() {
            return;
        }
        self.numbered_of = None;
        self.close();
        let mut mapped: Vec<_> = std::mem::take(&mut self.mapped).into_iter().collect();
        mapped.sort_unstable_by_key(|&((at, name), _)| (at, name));
        for run in mapped.chunk_by(|((a, _), _), ((b, _), _)| a == b) {
            let Some(&((at, _), _)) = run.first() else {
                continue;
            };
            let start = self.listed.len();
            self.listed
                .extend(run.iter().map(|&((_, name), row)| (name, row)));
            if let Some(span) = self.spans.get_mut(at) {
                *span = (start, self.listed.len());
            }
        }
    }
}

/// The `results` percentages of one matchpoint competition, summed.
#[derive(Debug, Clone)]
struct Percentages {
    /// Σ score × boards_played, and Σ boards_played.
    weighted: f64,
    boards: f64,
    /// Σ score and the rows, for rows without boards played.
    plain: f64,
    rows: usize,
    highest: f64,
    first: Origin,
}

impl Percentages {
    /// The rule a field with these percentages breaks, or `None`.
    fn broken(&self) -> Option<String> {
        if self.rows < 2 {
            return None;
        }
        if self.highest <= 0.0 {
            return Some(format!(
                "every one of the {} entrants scored 0 %: that is impossible in a matchpoint field, whose percentages average 50 % (every board's matchpoints are shared out); the `score` column is not the entrants' percentages",
                self.rows
            ));
        }
        let mean = if self.boards > 0.0 {
            self.weighted / self.boards
        } else {
            self.plain / self.rows as f64
        };
        ((mean - 50.0).abs() > limits::MATCHPOINT_MEAN_TOLERANCE).then(|| {
            format!(
                "the {} entrants' percentages average {mean:.2} %, but a matchpoint field's average 50 % (every board's matchpoints are shared out; at most {} points off for adjusted scores and sit-outs); the `score` column is not the entrants' percentages, or entrants are missing",
                self.rows,
                limits::MATCHPOINT_MEAN_TOLERANCE
            )
        })
    }
}

/// A board row's cells each within their range: declarer, tricks, board number,
/// round and table, N/S score and penalties.
fn cell_ranges(c: &BoardCells, located: &dyn Fn(&str) -> Location) -> Result<(), InputError> {
    if let Some(declarer) = c.declarer {
        if !DECLARERS.contains(&declarer) {
            return Err(InputError::new(
                located("declarer"),
                format!("declarer must be one of N, E, S, W, found `{declarer}`"),
            ));
        }
    }
    if let Some(tricks) = c.tricks {
        tricks_in_range(i64::from(tricks))
            .map_err(|rule| InputError::new(located("tricks"), rule))?;
    }
    within("board", c.board, 1, limits::MAX_BOARD_NUMBER)
        .map_err(|rule| InputError::new(located("board"), rule))?;
    for (column, value) in [("round", c.round), ("table", c.table)] {
        if let Some(value) = value {
            within(column, value, 0, limits::MAX_ROUND_OR_TABLE)
                .map_err(|rule| InputError::new(located(column), rule))?;
        }
    }
    if let Some(score) = c.ns_score {
        within(
            "ns_score",
            score,
            -limits::MAX_TABLE_SCORE,
            limits::MAX_TABLE_SCORE,
        )
        .map_err(|rule| InputError::new(located("ns_score"), rule))?;
    }
    for (column, value) in [("ns_penalty", c.ns_penalty), ("ew_penalty", c.ew_penalty)] {
        if let Some(value) = value {
            finite(value).map_err(|rule| InputError::new(located(column), rule))?;
            within(column, value, -limits::MAX_PENALTY, limits::MAX_PENALTY)
                .map_err(|rule| InputError::new(located(column), rule))?;
        }
    }
    Ok(())
}

/// A board row has a contract or an adjusted score, and a bid contract its declarer
/// and tricks.
fn contract_complete(c: &BoardCells, located: &dyn Fn(&str) -> Location) -> Result<(), InputError> {
    match (c.contract, c.adjusted) {
        (None, None) => Err(InputError::new(
            located("contract"),
            "a board row needs a `contract` or an `adjusted` score",
        )),
        (Some(contract), None) if !contract.trim().eq_ignore_ascii_case("PASS") => {
            if c.declarer.is_none() {
                return Err(InputError::new(
                    located("declarer"),
                    format!("contract `{contract}` needs a declarer"),
                ));
            }
            if c.tricks.is_none() {
                return Err(InputError::new(
                    located("tricks"),
                    format!("contract `{contract}` needs the tricks taken"),
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn at(origin: &Origin, column: &str) -> Location {
    origin.location().column(column)
}

/// The text cells `(column, value, limit)` of a row, held to [`check_text`].
fn texts<'a>(
    cells: impl IntoIterator<Item = (&'a str, Option<&'a str>, usize)>,
    located: impl Fn(&str) -> Location,
) -> Result<(), InputError> {
    for (column, value, limit) in cells {
        if let Some(rule) = value.and_then(|v| check_text(v, limit)) {
            return Err(InputError::new(located(column), format!("the cell {rule}")));
        }
    }
    Ok(())
}

fn unknown_competition(id: &str, origin: &Origin) -> InputError {
    InputError::new(
        at(origin, "competition_id").competition(id),
        format!("unknown competition `{id}` (not in `competitions`)"),
    )
}

fn unknown_entrant(competition: &str, entrant: &str, origin: &Origin, column: &str) -> InputError {
    InputError::new(
        at(origin, column).competition(competition),
        format!("no entrant `{entrant}` in competition `{competition}` (not in `entrants`)"),
    )
}

fn row_text(origin: &Origin) -> String {
    origin
        .row
        .map(|row| format!(" (row {row})"))
        .unwrap_or_default()
}

impl Validator {
    pub fn member(&mut self, member: &Member) -> Result<(), InputError> {
        let origin = &member.origin;
        if let Some(first) = self.members.get(&member.member_id) {
            return Err(InputError::new(
                at(origin, "member_id"),
                format!(
                    "member_id {} appears twice, first{}",
                    member.member_id,
                    row_text(first)
                ),
            ));
        }
        texts(
            [
                ("name", member.name.as_deref(), MAX_NAME_CHARS),
                ("club", member.club.as_deref(), MAX_TEXT_CHARS),
                ("district", member.district.as_deref(), MAX_TEXT_CHARS),
            ],
            |column| at(origin, column),
        )?;
        finite(member.masterpoints)
            .map_err(|rule| InputError::new(at(origin, "masterpoints"), rule))?;
        if member.masterpoints < 0.0 {
            return Err(InputError::new(
                at(origin, "masterpoints"),
                format!(
                    "masterpoints must not be negative, found {}",
                    member.masterpoints
                ),
            ));
        }
        within(
            "masterpoints",
            member.masterpoints,
            0.0,
            limits::MAX_MASTERPOINTS,
        )
        .map_err(|rule| InputError::new(at(origin, "masterpoints"), rule))?;
        if let Some(start) = member.start_handicap {
            finite(start).map_err(|rule| InputError::new(at(origin, "start_handicap"), rule))?;
        }
        self.members.insert(member.member_id, origin.clone());
        Ok(())
    }

    /// Makes room for `competitions` more (a hint: a damaged footer may claim
    /// anything, so nothing fails here): a federation's quarter of a million ids are
    /// then hashed once, not again each time the map doubled.
    pub fn reserve_competitions(&mut self, competitions: usize) {
        let _ = self.competitions.try_reserve(competitions);
        let _ = self.competition_order.try_reserve(competitions);
    }

    pub fn competition(&mut self, competition: &Competition) -> Result<(), InputError> {
        self.board_competition = None;
        let origin = &competition.origin;
        let id = &competition.competition_id;
        let located = |column: &str| at(origin, column).competition(id.as_str());
        if id.trim().is_empty() {
            return Err(InputError::new(
                at(origin, "competition_id"),
                "competition_id must not be empty",
            ));
        }
        if let Some(first) = self.competitions.get(id) {
            return Err(InputError::new(
                located("competition_id"),
                format!(
                    "competition_id `{id}` appears twice, first{}",
                    row_text(&first.origin)
                ),
            ));
        }
        texts(
            [
                ("title", competition.title.as_deref(), MAX_TEXT_CHARS),
                ("club", competition.club.as_deref(), MAX_TEXT_CHARS),
                ("class", competition.class.as_deref(), MAX_TEXT_CHARS),
            ],
            located,
        )?;
        if let Some(boards) = competition.boards {
            if boards < 2 {
                return Err(InputError::new(
                    located("boards"),
                    format!("a rated competition needs at least 2 boards, found {boards}"),
                ));
            }
            within("boards", boards, 2, limits::MAX_BOARDS)
                .map_err(|rule| InputError::new(located("boards"), rule))?;
        }
        within(
            "date",
            competition.date,
            limits::EARLIEST_DATE,
            limits::LATEST_DATE,
        )
        .map_err(|rule| InputError::new(located("date"), rule))?;
        within("session", competition.session, 1, limits::MAX_SESSION)
            .map_err(|rule| InputError::new(located("session"), rule))?;
        let number = self.competition_order.len();
        self.competition_order.push(id.clone());
        self.competitions_with_boards.push(false);
        self.competition_kinds
            .push((competition.scoring, competition.boards));
        self.competitions.insert(
            id.clone(),
            CompetitionFacts {
                boards: competition.boards,
                origin: origin.clone(),
                at: number,
            },
        );
        Ok(())
    }

    /// The number of the known competition `id`. A table's rows come a competition at
    /// a time, mostly in the competitions' order, so the competition of the row before
    /// (`last`) and the one after it are tried first, each by one comparison of ids,
    /// and the map of every competition (whose probes miss the caches at a
    /// federation's size) only for a competition met out of that order. A
    /// competition, once known, keeps its number.
    fn number_of(&self, id: &str, last: Option<usize>) -> Option<usize> {
        if let Some(last) = last {
            for number in [last, last + 1] {
                if self
                    .competition_order
                    .get(number)
                    .is_some_and(|known| known == id)
                {
                    return Some(number);
                }
            }
        }
        self.competitions.get(id).map(|facts| facts.at)
    }

    /// Checks that competition number `number` (`competition`) lists `entrant`.
    fn known_entrant(
        &self,
        number: usize,
        competition: &str,
        entrant: &str,
        origin: &Origin,
        column: &str,
    ) -> Result<(), InputError> {
        if self.entrants.lists(number, entrant) {
            Ok(())
        } else {
            Err(unknown_entrant(competition, entrant, origin, column))
        }
    }

    pub fn entrant(&mut self, entrant: &Entrant) -> Result<(), InputError> {
        let origin = &entrant.origin;
        let competition = entrant.competition_id.as_str();
        let number = match self.number_of(competition, self.entrant_at) {
            Some(number) => number,
            None => return Err(unknown_competition(competition, origin)),
        };
        self.entrant_at = Some(number);
        let located = |column: &str| at(origin, column).competition(competition);
        if entrant.entrant.trim().is_empty() {
            return Err(InputError::new(
                located("entrant"),
                "entrant must not be empty",
            ));
        }
        texts(
            [
                ("entrant", Some(entrant.entrant.as_str()), MAX_TEXT_CHARS),
                ("team", entrant.team.as_deref(), MAX_TEXT_CHARS),
            ]
            .into_iter()
            .chain(
                NAME_COLUMNS
                    .iter()
                    .zip(&entrant.names)
                    .map(|(column, name)| (*column, name.as_deref(), MAX_NAME_CHARS)),
            ),
            located,
        )?;
        let name = self.entrants.name(&entrant.entrant);
        if let Some(first) = name.and_then(|name| self.entrants.row_of_name(number, name)) {
            return Err(InputError::new(
                located("entrant"),
                format!(
                    "entrant `{}` appears twice in competition `{competition}`, first{}",
                    entrant.entrant,
                    row_text(&Origin {
                        file: None,
                        row: first
                    })
                ),
            ));
        }
        if entrant.players.iter().all(Option::is_none) && entrant.names.iter().all(Option::is_none)
        {
            return Err(InputError::new(
                located("player1"),
                "an entrant needs at least one player (player1 to player4 and their names are all empty)",
            ));
        }
        // A substitute may play for two entrants of one session (each entrant is rated
        // for the boards it played); one player twice in one entrant is a broken row.
        for (slot, (player, column)) in entrant.players.iter().zip(PLAYER_COLUMNS).enumerate() {
            let Some(player) = player else { continue };
            if entrant.players[..slot].contains(&Some(*player)) {
                return Err(InputError::new(
                    located(column),
                    format!(
                        "player {player} appears twice in competition `{competition}`, both times in entrant `{}`",
                        entrant.entrant
                    ),
                ));
            }
        }
        self.entrants
            .add_named(number, name, &entrant.entrant, origin.row)
            .map_err(|rule| InputError::new(located("entrant"), rule))?;
        // A board row checked before it took its competition's entrants as they were.
        self.board_competition = None;
        Ok(())
    }

    pub fn result(&mut self, result: &EntrantResult) -> Result<(), InputError> {
        let origin = &result.origin;
        let competition = result.competition_id.as_str();
        self.entrants.settle();
        let number = self.number_of(competition, self.result_at);
        let Some((number, &(scoring, boards))) =
            number.and_then(|n| Some((n, self.competition_kinds.get(n)?)))
        else {
            return Err(unknown_competition(competition, origin));
        };
        self.result_at = Some(number);
        self.known_entrant(number, competition, &result.entrant, origin, "entrant")?;
        let located = |column: &str| at(origin, column).competition(competition);
        finite(result.score).map_err(|rule| InputError::new(located("score"), rule))?;
        if scoring == ScoringMethod::Matchpoints && !(0.0..=100.0).contains(&result.score) {
            return Err(InputError::new(
                located("score"),
                format!(
                    "a matchpoint score is a percentage between 0 and 100, found {}",
                    result.score
                ),
            ));
        }
        if let Some(opponent) = &result.opponent {
            self.known_entrant(number, competition, opponent, origin, "opponent")?;
        }
        if scoring == ScoringMethod::TeamImps {
            self.match_team(number, result, &located)?;
        }
        if scoring == ScoringMethod::Matchpoints {
            self.add_percentage(number, result);
        }
        let boards = boards.unwrap_or(limits::MAX_BOARDS);
        if result.boards_played > boards {
            return Err(InputError::new(
                located("boards_played"),
                format!(
                    "boards_played {} is more than the competition's {boards} boards",
                    result.boards_played
                ),
            ));
        }
        if scoring.is_imps() {
            let entrants = self.entrants.count(number);
            let limit = max_imp_total(result.boards_played, entrants);
            if result.score.abs() > limit {
                return Err(InputError::new(
                    located("score"),
                    format!(
                        "an IMP score of {} is not plausible: {} boards against {} other entrants allow at most {limit} (24 IMPs a board and comparison)",
                        result.score.shown(),
                        result.boards_played.max(1),
                        entrants.saturating_sub(1).max(1)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A team_imps competition is one match: a third team is refused.
    fn match_team(
        &mut self,
        number: usize,
        result: &EntrantResult,
        located: &dyn Fn(&str) -> Location,
    ) -> Result<(), InputError> {
        let teams = self.match_teams.entry(number).or_default();
        if !teams.contains(&result.entrant) {
            if let [first, second] = &teams[..] {
                return Err(InputError::new(
                    located("entrant"),
                    format!(
                        "a team_imps competition is one match between two teams, but this row adds a third team `{}` to `{first}` and `{second}`; give each match its own competition_id",
                        result.entrant
                    ),
                ));
            }
            teams.push(result.entrant.clone());
        }
        Ok(())
    }

    /// A matchpoint result's percentage into its competition's sums.
    fn add_percentage(&mut self, number: usize, result: &EntrantResult) {
        let sums = self
            .percentages
            .entry(number)
            .or_insert_with(|| Percentages {
                weighted: 0.0,
                boards: 0.0,
                plain: 0.0,
                rows: 0,
                highest: 0.0,
                first: result.origin.clone(),
            });
        sums.weighted += result.score * f64::from(result.boards_played);
        sums.boards += f64::from(result.boards_played);
        sums.plain += result.score;
        sums.rows += 1;
        sums.highest = sums.highest.max(result.score);
    }

    pub fn board<R: BoardRow>(&mut self, board: &R) -> Result<(), InputError> {
        let competition = board.competition_id();
        let same_competition = self.board_competition.as_deref() == Some(competition);
        let number = if same_competition {
            self.board_at
        } else {
            self.entrants.settle();
            match self.competitions.get(competition) {
                Some(facts) => facts.at,
                None => return Err(unknown_competition(competition, &board.origin())),
            }
        };
        if board.keeps_row_rules() {
            // The reader found the row's own rules kept (each column checked at once):
            // only its seats need the competition's entrants.
            self.seats_listed(number, competition, board, &board.seats())?;
        } else {
            self.board_row_rules(number, board)?;
        }
        // Rows come a competition at a time: its id is copied once, not per row.
        if !same_competition {
            if let Some(with_boards) = self.competitions_with_boards.get_mut(number) {
                *with_boards = true;
            }
            self.board_competition = Some(competition.to_owned());
            self.board_at = number;
        }
        Ok(())
    }

    /// The seats of a board row of competition `number` name its entrants, checked in
    /// the order `ns`, `ew`, `north`, `south`, `east`, `west`.
    fn seats_listed<R: BoardRow>(
        &mut self,
        number: usize,
        competition: &str,
        board: &R,
        seats: &[Option<&str>; 6],
    ) -> Result<(), InputError> {
        for (column, named) in BOARD_SEAT_COLUMNS.iter().zip(seats) {
            if let Some(entrant) = named {
                if !self.entrants.lists_seat(number, entrant) {
                    let mut error = unknown_entrant(competition, entrant, &board.origin(), column);
                    error.location.board = Some(board.board());
                    return Err(error);
                }
            }
        }
        Ok(())
    }

    /// Every rule of a board row of competition `number`, cell by cell, in the order
    /// its errors are reported; its seats among them.
    fn board_row_rules<R: BoardRow>(&mut self, number: usize, board: &R) -> Result<(), InputError> {
        let c = board.cells();
        let competition = c.competition_id;
        let number_on_board = c.board;
        let located = |column: &str| {
            at(&board.origin(), column)
                .competition(competition)
                .board(number_on_board)
        };
        if number_on_board < 1 {
            return Err(InputError::new(
                located("board"),
                "board numbers start at 1, found 0",
            ));
        }
        let pair_sides = [("ns", c.ns), ("ew", c.ew)];
        let seats = [
            ("north", c.north),
            ("south", c.south),
            ("east", c.east),
            ("west", c.west),
        ];
        // One pair side may be empty: a table played by a pair the export does not
        // list, which counts in the board's field (scoring refuses it anywhere else).
        let has_pairs = pair_sides.iter().any(|(_, side)| side.is_some());
        let has_seats = seats.iter().all(|(_, seat)| seat.is_some());
        if !has_pairs && !has_seats {
            let missing = pair_sides
                .iter()
                .find(|(_, side)| side.is_none())
                .map_or("ns", |(column, _)| *column);
            return Err(InputError::new(
                located(missing),
                "a board row needs `ns` and `ew`, or (individual events) `north`, `south`, `east` and `west`",
            ));
        }
        self.seats_listed(
            number,
            competition,
            board,
            &[c.ns, c.ew, c.north, c.south, c.east, c.west],
        )?;
        cell_ranges(&c, &located)?;
        contract_complete(&c, &located)
    }

    /// True when a row of `competitions` with this id passed the rules.
    pub fn knows_competition(&self, id: &str) -> bool {
        self.competitions.contains_key(id)
    }

    /// Rules that need every table: a competition must have a board count, given or
    /// derivable from its board rows. The first broken one.
    pub fn finish(self) -> Result<(), InputError> {
        match self.finish_all().into_iter().next() {
            Some((_, error)) => Err(error),
            None => Ok(()),
        }
    }

    /// Every rule that needs every table, broken, with the competition that broke it.
    /// Whether [`Validator::finish_all`] will leave competition `id` out for its
    /// `results` percentages: final once the `results` rows are checked, before any
    /// board row.
    pub fn percentages_broken(&self, id: &str) -> bool {
        self.number_of(id, None)
            .and_then(|number| self.percentages.get(&number))
            .is_some_and(|sums| sums.broken().is_some())
    }

    pub fn finish_all(&self) -> Vec<(String, InputError)> {
        let mut broken = Vec::new();
        for (number, id) in self.competition_order.iter().enumerate() {
            let Some(facts) = self.competitions.get(id) else {
                continue;
            };
            let with_boards = self.competitions_with_boards.get(number).copied();
            if facts.boards.is_none() && with_boards != Some(true) {
                broken.push((
                    id.clone(),
                    InputError::new(
                        at(&facts.origin, "boards").competition(id.as_str()),
                        "the number of boards is missing and there are no board rows to count",
                    ),
                ));
            }
            if let Some(sums) = self.percentages.get(&number) {
                if let Some(rule) = sums.broken() {
                    broken.push((
                        id.clone(),
                        InputError::new(at(&sums.first, "score").competition(id.as_str()), rule),
                    ));
                }
            }
        }
        broken
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{BoardResult, Format, ScoringMethod};
    use chrono::NaiveDate;
    use proptest::prelude::*;
    use std::path::Path;
    use std::sync::Arc;

    fn at_row(row: usize) -> Origin {
        Origin::new(&Arc::from(Path::new("members.parquet")), row)
    }

    fn small() -> Dataset {
        let date = NaiveDate::from_ymd_opt(2026, 11, 3).unwrap_or_default();
        let mut competition = Competition::new("c1", date, Format::Pairs, ScoringMethod::Butler);
        competition.boards = Some(2);
        let mut north_south = Entrant::new("c1", "1");
        north_south.players = [Some(1), Some(2), None, None];
        let mut east_west = Entrant::new("c1", "2");
        east_west.players = [Some(3), Some(4), None, None];
        Dataset {
            members: (1..=4).map(Member::new).collect(),
            competitions: vec![competition],
            entrants: vec![north_south, east_west],
            results: Vec::new(),
            boards: vec![BoardResult {
                competition_id: "c1".into(),
                board: 1,
                ns: Some("1".into()),
                ew: Some("2".into()),
                contract: Some("3NT".into()),
                declarer: Some("S".into()),
                tricks: Some(9),
                ..BoardResult::default()
            }],
        }
    }

    #[test]
    fn a_consistent_dataset_passes() {
        assert_eq!(validate(&small()), Ok(()));
    }

    #[test]
    fn in_memory_rows_break_the_same_rules_as_files() {
        let mut dataset = small();
        dataset.boards[0].tricks = Some(14);
        let error = validate(&dataset)
            .err()
            .unwrap_or_else(|| InputError::new(Location::default(), ""));
        assert_eq!(error.rule, "tricks must be between 0 and 13, found 14");
        assert_eq!(error.location.column.as_deref(), Some("tricks"));
        assert_eq!(error.location.competition.as_deref(), Some("c1"));
        assert_eq!(error.location.board, Some(1));

        let mut dataset = small();
        dataset.competitions[0].boards = Some(8);
        dataset.results.push(EntrantResult {
            competition_id: "c1".into(),
            entrant: "1".into(),
            boards_played: 8,
            score: 130.0,
            opponent: None,
            origin: Origin::default(),
        });
        assert_eq!(validate(&dataset), Ok(()), "IMP totals are not percentages");
    }

    fn rule_of(dataset: &Dataset) -> (String, Option<String>) {
        validate(dataset).err().map_or_else(
            || ("passes".to_string(), None),
            |e| (e.rule, e.location.column),
        )
    }

    /// 24 IMPs a board against each other entrant is the most a result can hold: with
    /// 2 entrants and 8 boards, 192. Above that a total is a broken export.
    #[test]
    fn imp_totals_beyond_24_a_board_and_comparison_are_implausible() {
        let mut dataset = small();
        dataset.competitions[0].boards = Some(8);
        let result = |score| EntrantResult {
            competition_id: "c1".into(),
            entrant: "1".into(),
            boards_played: 8,
            score,
            opponent: None,
            origin: Origin::default(),
        };
        dataset.results = vec![result(-192.0)];
        assert_eq!(rule_of(&dataset).0, "passes");
        dataset.results = vec![result(1e300)];
        let (rule, column) = rule_of(&dataset);
        assert!(
            rule.starts_with("an IMP score of 1e300 is not plausible"),
            "{rule}"
        );
        assert!(rule.contains("at most 192"), "{rule}");
        assert_eq!(column.as_deref(), Some("score"));
    }

    #[test]
    fn boards_played_beyond_the_competitions_boards_is_refused() {
        let mut dataset = small();
        dataset.competitions[0].boards = Some(22);
        dataset.results.push(EntrantResult {
            competition_id: "c1".into(),
            entrant: "1".into(),
            boards_played: 500,
            score: 10.0,
            opponent: None,
            origin: Origin::default(),
        });
        assert_eq!(
            rule_of(&dataset),
            (
                "boards_played 500 is more than the competition's 22 boards".to_string(),
                Some("boards_played".to_string())
            )
        );
    }

    /// Each plausibility limit, just inside and just outside.
    #[test]
    fn values_outside_the_plausibility_limits_break_a_rule() {
        fn day(y: i32, m: u32, d: u32) -> NaiveDate {
            NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default()
        }
        type Change = Box<dyn Fn(&mut Dataset)>;
        let cases: Vec<(Change, &str, &str)> = vec![
            (
                Box::new(|d| d.competitions[0].date = day(1, 1, 1)),
                "date",
                "`date` must be between 1950-01-01 and 2099-12-31, found 0001-01-01",
            ),
            (
                Box::new(|d| d.competitions[0].date = day(2100, 1, 1)),
                "date",
                "`date` must be between 1950-01-01 and 2099-12-31, found 2100-01-01",
            ),
            (
                Box::new(|d| d.competitions[0].session = -3),
                "session",
                "`session` must be between 1 and 99, found -3",
            ),
            (
                Box::new(|d| d.competitions[0].boards = Some(257)),
                "boards",
                "`boards` must be between 2 and 256, found 257",
            ),
            (
                Box::new(|d| d.members[0].masterpoints = 2e6),
                "masterpoints",
                "`masterpoints` must be between 0 and 1000000, found 2000000",
            ),
            (
                Box::new(|d| d.boards[0].ns_score = Some(7610)),
                "ns_score",
                "`ns_score` must be between -7600 and 7600, found 7610",
            ),
            (
                Box::new(|d| d.boards[0].ns_penalty = Some(-101.0)),
                "ns_penalty",
                "`ns_penalty` must be between -100 and 100, found -101",
            ),
            (
                Box::new(|d| d.boards[0].board = 10_000),
                "board",
                "`board` must be between 1 and 9999, found 10000",
            ),
            (
                Box::new(|d| d.boards[0].table = Some(10_000)),
                "table",
                "`table` must be between 0 and 9999, found 10000",
            ),
        ];
        for (change, column, rule) in cases {
            let mut dataset = small();
            change(&mut dataset);
            assert_eq!(
                rule_of(&dataset),
                (rule.to_string(), Some(column.to_string()))
            );
        }
        let mut edge = small();
        edge.competitions[0].date = day(2099, 12, 31);
        edge.competitions[0].session = 99;
        edge.competitions[0].boards = Some(256);
        edge.boards[0].ns_score = Some(-7600);
        edge.boards[0].ns_penalty = Some(100.0);
        assert_eq!(rule_of(&edge).0, "passes");
    }

    #[test]
    fn a_board_count_may_come_from_board_rows_only() {
        let mut dataset = small();
        dataset.competitions[0].boards = None;
        assert_eq!(validate(&dataset), Ok(()));
        dataset.boards.clear();
        let error = validate(&dataset).err().map(|e| e.location.column);
        assert_eq!(error, Some(Some("boards".to_string())));
    }

    /// An entrant of `competition` listed at `row` of entrants.parquet.
    fn listed(competition: &str, entrant: &str, row: Option<usize>, player: MemberId) -> Entrant {
        let mut listed = Entrant::new(competition, entrant);
        listed.players = [Some(player), None, None, None];
        listed.origin = Origin {
            file: Some(Arc::from(Path::new("entrants.parquet"))),
            row,
        };
        listed
    }

    fn two_competitions() -> Validator {
        let mut validator = Validator::default();
        let date = NaiveDate::from_ymd_opt(2026, 11, 3).unwrap_or_default();
        for id in ["c1", "c2"] {
            let mut competition = Competition::new(id, date, Format::Pairs, ScoringMethod::Butler);
            competition.boards = Some(2);
            assert_eq!(validator.competition(&competition), Ok(()));
        }
        validator
    }

    /// A repeated entrant names the row of its first listing, in its own competition
    /// only, whatever came between and however large the row number.
    #[test]
    fn a_repeated_entrant_names_the_row_it_was_first_listed_at() {
        let mut validator = two_competitions();
        let rows = [
            listed("c1", "1", Some(3), 1),
            listed("c2", "1", Some(4), 2),
            listed("c1", "2", Some(5_000_000_000), 3),
            listed("c2", "7", None, 4),
        ];
        for row in &rows {
            assert_eq!(validator.entrant(row), Ok(()));
        }
        let rule = |validator: &mut Validator, again: Entrant| {
            validator.entrant(&again).err().map(|error| error.rule)
        };
        assert_eq!(
            rule(&mut validator, listed("c1", "1", Some(9), 5)).as_deref(),
            Some("entrant `1` appears twice in competition `c1`, first (row 3)")
        );
        assert_eq!(
            rule(&mut validator, listed("c1", "2", Some(10), 5)).as_deref(),
            Some("entrant `2` appears twice in competition `c1`, first (row 5000000000)")
        );
        assert_eq!(
            rule(&mut validator, listed("c2", "7", Some(11), 5)).as_deref(),
            Some("entrant `7` appears twice in competition `c2`, first")
        );
        assert_eq!(rule(&mut validator, listed("c2", "2", Some(12), 5)), None);
    }

    /// A board row's numbered seat is found in the flags where the name's lookup finds
    /// it, and nowhere else, including after an entrant is listed late.
    #[test]
    fn a_seat_is_found_by_number_exactly_where_it_is_found_by_name() {
        assert_eq!(small_number("0"), Some(0));
        assert_eq!(small_number("7"), Some(7));
        assert_eq!(small_number("999"), Some(999));
        for name in ["", "07", "00", "1000", "+1", "1 ", " 1", "T1", "\u{661}"] {
            assert_eq!(small_number(name), None, "{name:?}");
        }
        let mut listings = Listings::default();
        for (at, name) in [
            (0, "1"),
            (0, "07"),
            (0, "T1"),
            (0, "12"),
            (1, "2"),
            (1, "7"),
        ] {
            assert_eq!(listings.add(at, name, Some(1)), Ok(()));
        }
        listings.settle();
        let asked = ["1", "2", "7", "07", "12", "T1", "0", "999", "3"];
        let by_seat = |listings: &mut Listings, at: usize| -> Vec<bool> {
            asked.iter().map(|n| listings.lists_seat(at, n)).collect()
        };
        let by_name = |listings: &Listings, at: usize| -> Vec<bool> {
            asked.iter().map(|n| listings.lists(at, n)).collect()
        };
        let first = [true, false, false, true, true, true, false, false, false];
        let second = [false, true, true, false, false, false, false, false, false];
        assert_eq!(by_name(&listings, 0), first);
        assert_eq!(by_seat(&mut listings, 0), first);
        assert_eq!(by_seat(&mut listings, 1), second);
        assert_eq!(by_seat(&mut listings, 2), [false; 9]);
        // An entrant listed later counts once the listings are settled again.
        assert_eq!(listings.add(0, "3", Some(9)), Ok(()));
        listings.settle();
        let mut later = first;
        later[8] = true;
        assert_eq!(by_seat(&mut listings, 0), later);
        assert_eq!(by_name(&listings, 0), later);
    }

    /// A competition of more entrants than are searched in a list, listed in the
    /// order a congress's file gives them (names that are numbers and names that are
    /// not), finds each at its own row, and its repeats name the first row, before and
    /// after the next competition's rows begin and after the listings are settled.
    #[test]
    fn a_large_competition_finds_each_entrant_at_the_row_it_was_listed() {
        let mut listings = Listings::default();
        let names: Vec<String> = (1..=40)
            .map(|n| {
                if n % 3 == 0 {
                    format!("T{n}")
                } else {
                    n.to_string()
                }
            })
            .collect();
        for (row, name) in names.iter().enumerate() {
            assert_eq!(listings.add(0, name, Some(row + 10)), Ok(()));
        }
        let rows = |listings: &Listings| -> Vec<Option<Option<usize>>> {
            ["1", "T3", "32", "T33", "34", "40", "T40", "41", "3"]
                .iter()
                .map(|name| listings.row_of(0, name))
                .collect()
        };
        let expected = [
            Some(Some(10)),
            Some(Some(12)),
            Some(Some(41)),
            Some(Some(42)),
            Some(Some(43)),
            Some(Some(49)),
            None,
            None,
            None,
        ];
        assert_eq!(rows(&listings), expected);
        assert_eq!(listings.add(1, "1", Some(50)), Ok(()));
        assert_eq!(rows(&listings), expected);
        assert_eq!(listings.row_of(1, "1"), Some(Some(50)));
        assert_eq!(listings.row_of(1, "2"), None);
        listings.settle();
        assert_eq!(rows(&listings), expected);
        assert_eq!((listings.count(0), listings.count(1)), (40, 1));
        assert!(listings.lists(0, "T39") && !listings.lists(0, "39"));
        assert!(listings.lists_seat(0, "40") && !listings.lists_seat(0, "41"));
    }

    /// Listings kept per competition as they arrive find exactly what one map of
    /// (competition, name) -> first row finds, whatever order the rows come in: a
    /// competition's rows together, interleaved with another's, or coming back after
    /// the listings were settled; with rows beyond `u32` and rows unknown.
    #[test]
    fn listings_in_any_order_find_what_one_map_finds() {
        use std::collections::BTreeMap;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let step = (0usize..5, 0u16..60, 0u8..20, any::<bool>());
        let steps = proptest::collection::vec(step, 0..300);
        let checked = runner.run(&steps, |steps| {
            let mut listings = Listings::default();
            let mut model: BTreeMap<(usize, String), Option<usize>> = BTreeMap::new();
            // Long runs of one competition, as files give them, and now and then a
            // jump back to an earlier one.
            let mut at = 0;
            for (row, (jump, name, kind, settle)) in steps.into_iter().enumerate() {
                if jump == 0 {
                    at = (at + 3) % 7;
                }
                let name = if name % 4 == 0 {
                    format!("p{name}")
                } else {
                    name.to_string()
                };
                let row = match kind {
                    0 => None,
                    1 => Some(usize::MAX - row),
                    _ => Some(row),
                };
                let found = listings.row_of(at, &name);
                let listed = model.get(&(at, name.clone())).copied();
                prop_assert_eq!(found, listed);
                if found.is_none() {
                    prop_assert_eq!(listings.add(at, &name, row), Ok(()));
                    model.insert((at, name), row);
                }
                if settle && kind == 7 {
                    listings.settle();
                    for c in 0..8 {
                        let names: Vec<&String> = model
                            .keys()
                            .filter(|(m, _)| *m == c)
                            .map(|(_, n)| n)
                            .collect();
                        prop_assert_eq!(listings.count(c), names.len());
                        for name in names {
                            prop_assert!(listings.lists(c, name));
                        }
                    }
                }
            }
            listings.settle();
            for ((c, name), row) in &model {
                prop_assert_eq!(listings.row_of(*c, name), Some(*row));
                prop_assert!(listings.lists(*c, name));
                prop_assert!(listings.lists_seat(*c, name));
            }
            for c in 0..8 {
                let count = model.keys().filter(|(m, _)| *m == c).count();
                prop_assert_eq!(listings.count(c), count);
                prop_assert!(!listings.lists(c, "61") && !listings.lists_seat(c, "61"));
            }
            Ok(())
        });
        if let Err(failed) = checked {
            panic!("{failed}");
        }
    }

    /// Results and board rows find the entrants their competition listed, and no
    /// other; an entrant row after them (a dataset built by hand) is still taken and
    /// still checked against the earlier ones.
    #[test]
    fn later_rows_find_exactly_the_entrants_their_competition_listed() {
        let mut validator = two_competitions();
        for row in [
            listed("c1", "1", Some(1), 1),
            listed("c1", "2", Some(2), 2),
            listed("c2", "3", Some(3), 3),
        ] {
            assert_eq!(validator.entrant(&row), Ok(()));
        }
        let result = |entrant: &str| EntrantResult {
            competition_id: "c1".into(),
            entrant: entrant.into(),
            boards_played: 2,
            score: 4.0,
            opponent: None,
            origin: Origin::default(),
        };
        assert_eq!(validator.result(&result("2")), Ok(()));
        assert_eq!(
            validator
                .result(&result("3"))
                .err()
                .map(|e| e.rule)
                .as_deref(),
            Some("no entrant `3` in competition `c1` (not in `entrants`)")
        );
        // 24 IMPs a board against the one other entrant of c1: at most 48.
        assert_eq!(
            validator.result(&result_scored(49.0)).err().map(|e| e.rule).as_deref(),
            Some("an IMP score of 49 is not plausible: 2 boards against 1 other entrants allow at most 48 (24 IMPs a board and comparison)")
        );
        let board = |ns: &str, ew: &str| BoardResult {
            competition_id: "c2".into(),
            board: 1,
            ns: Some(ns.into()),
            ew: Some(ew.into()),
            contract: Some("3NT".into()),
            declarer: Some("S".into()),
            tricks: Some(9),
            ..BoardResult::default()
        };
        assert_eq!(
            validator
                .board(&board("3", "1"))
                .err()
                .map(|e| e.rule)
                .as_deref(),
            Some("no entrant `1` in competition `c2` (not in `entrants`)")
        );
        assert_eq!(
            validator
                .entrant(&listed("c1", "2", Some(4), 4))
                .err()
                .map(|e| e.rule)
                .as_deref(),
            Some("entrant `2` appears twice in competition `c1`, first (row 2)")
        );
        assert_eq!(validator.entrant(&listed("c2", "1", Some(5), 5)), Ok(()));
        assert_eq!(validator.board(&board("3", "1")), Ok(()));
        assert_eq!(validator.result(&result("1")), Ok(()));
    }

    /// Entrant and result rows find their competition in any order of competitions
    /// (in the competitions' order, back to an earlier one, ahead past one), each with
    /// its own scoring and boards; an unknown competition between them is named, and
    /// the rows after it find theirs as before.
    #[test]
    fn rows_find_their_competition_in_any_order_and_name_an_unknown_one() {
        let mut validator = Validator::default();
        let date = NaiveDate::from_ymd_opt(2026, 11, 3).unwrap_or_default();
        for (id, scoring, boards) in [
            ("c1", ScoringMethod::Butler, 2),
            ("c2", ScoringMethod::Matchpoints, 24),
            ("c3", ScoringMethod::Butler, 30),
        ] {
            let mut competition = Competition::new(id, date, Format::Pairs, scoring);
            competition.boards = Some(boards);
            assert_eq!(validator.competition(&competition), Ok(()));
        }
        let rule = |error: Result<(), InputError>| error.err().map(|e| e.rule);
        for (row, (competition, entrant)) in [
            ("c1", "1"),
            ("c1", "2"),
            ("c2", "1"),
            ("c2", "2"),
            ("c3", "1"),
            ("c1", "3"),
            ("c3", "2"),
        ]
        .into_iter()
        .enumerate()
        {
            let listed = listed(competition, entrant, Some(row + 1), row as MemberId + 1);
            assert_eq!(
                validator.entrant(&listed),
                Ok(()),
                "{competition} {entrant}"
            );
        }
        let unknown = validator.entrant(&listed("c9", "1", Some(8), 9));
        let location = unknown.as_ref().err().map(|e| e.location.column.clone());
        assert_eq!(location, Some(Some("competition_id".to_string())));
        assert_eq!(
            rule(unknown).as_deref(),
            Some("unknown competition `c9` (not in `competitions`)")
        );
        assert_eq!(validator.entrant(&listed("c2", "3", Some(9), 10)), Ok(()));
        let result = |competition: &str, boards_played: u32, score: f64| EntrantResult {
            competition_id: competition.into(),
            boards_played,
            score,
            ..result_scored(0.0)
        };
        assert_eq!(validator.result(&result("c3", 30, 12.0)), Ok(()));
        assert_eq!(
            rule(validator.result(&result("c3", 31, 12.0))).as_deref(),
            Some("boards_played 31 is more than the competition's 30 boards")
        );
        // c1's two boards against its two other entrants: at most 96 IMPs.
        assert_eq!(
            rule(validator.result(&result("c1", 2, 97.0))).as_deref(),
            Some("an IMP score of 97 is not plausible: 2 boards against 2 other entrants allow at most 96 (24 IMPs a board and comparison)")
        );
        assert_eq!(
            rule(validator.result(&result("c2", 24, 150.0))).as_deref(),
            Some("a matchpoint score is a percentage between 0 and 100, found 150")
        );
        assert_eq!(
            rule(validator.result(&result("c9", 2, 1.0))).as_deref(),
            Some("unknown competition `c9` (not in `competitions`)")
        );
        assert_eq!(validator.result(&result("c2", 24, 50.0)), Ok(()));
        assert_eq!(validator.result(&result("c1", 2, 96.0)), Ok(()));
    }

    fn result_scored(score: f64) -> EntrantResult {
        EntrantResult {
            competition_id: "c1".into(),
            entrant: "1".into(),
            boards_played: 2,
            score,
            opponent: None,
            origin: Origin::default(),
        }
    }

    proptest! {
        /// The duplicate reported is the first repeated id, at its second row, naming
        /// the row of its first appearance.
        #[test]
        fn the_first_duplicate_member_is_reported_at_its_second_row(
            ids in prop::collection::vec(0i64..20, 1..30)
        ) {
            let members: Vec<Member> = ids
                .iter()
                .enumerate()
                .map(|(i, id)| Member { origin: at_row(i + 1), ..Member::new(*id) })
                .collect();
            let dataset = Dataset { members, ..Dataset::default() };
            let repeat = (0..ids.len()).find(|&i| ids[..i].contains(&ids[i]));
            match (validate(&dataset), repeat) {
                (Ok(()), None) => {}
                (Err(error), Some(i)) => {
                    let first = ids.iter().position(|id| *id == ids[i]).map_or(0, |p| p + 1);
                    prop_assert_eq!(error.location.row, Some(i + 1));
                    prop_assert_eq!(
                        error.rule,
                        format!("member_id {} appears twice, first (row {first})", ids[i])
                    );
                }
                (outcome, expected) => prop_assert!(false, "{outcome:?} vs {expected:?}"),
            }
        }
    }
}
