//! The dataset (docs/data.md), as plain Rust values.
//!
//! Polars stays at the edges: `import` turns tables (Parquet, CSV, PBN, USEBIO) into a
//! [`Dataset`], `report` turns results back into tables. Everything in between (scoring,
//! the model, the replay) works on these structs, so it can be tested without files.

use std::path::Path;
use std::sync::Arc;

use chrono::{Datelike, NaiveDate};

use crate::error::Location;

pub mod conventions;
pub mod encoding;
pub mod entrant_table;
pub mod text;
pub mod vp_scale;

pub use vp_scale::VpScaleRef;

use conventions::Conventions;

pub type MemberId = i64;

/// Days from 0001-01-01 (chrono's day 1) to 1970-01-01 (day 0 of Arrow's `date32`, the
/// type of every date column).
const UNIX_EPOCH_FROM_CE: i32 = 719_163;

/// The date `days` after 1970-01-01 (Arrow's `date32`), or why there is none.
///
/// ```
/// use bridgehcp::dataset::{date_from_days, days_from_date};
/// let day = chrono::NaiveDate::from_ymd_opt(1970, 1, 2).unwrap();
/// assert_eq!(date_from_days(1), Ok(day));
/// assert_eq!(days_from_date(day), 1);
/// assert!(date_from_days(i64::MAX).is_err());
/// ```
pub fn date_from_days(days: i64) -> Result<NaiveDate, String> {
    i32::try_from(days)
        .ok()
        .and_then(|d| d.checked_add(UNIX_EPOCH_FROM_CE))
        .and_then(NaiveDate::from_num_days_from_ce_opt)
        .ok_or_else(|| format!("date {days} days from 1970-01-01 is out of range"))
}

/// The days from 1970-01-01 to `date` (Arrow's `date32`).
pub fn days_from_date(date: NaiveDate) -> i32 {
    date.num_days_from_ce() - UNIX_EPOCH_FROM_CE
}

/// Where a row came from, so that a rule broken anywhere downstream (scoring, the model)
/// can still name the file and row. Cheap to clone: the path is shared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    pub file: Option<Arc<Path>>,
    /// 1-based data row (tables) or line (text exports).
    pub row: Option<usize>,
}

impl Origin {
    pub fn new(file: &Arc<Path>, row: usize) -> Self {
        Origin {
            file: Some(Arc::clone(file)),
            row: Some(row),
        }
    }

    /// The location of this row, to which a caller adds column, competition or board.
    pub fn location(&self) -> Location {
        Location {
            file: self.file.as_deref().map(Path::to_path_buf),
            row: self.row,
            ..Location::default()
        }
    }
}

/// A federation member, or a listed foreign guest.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub member_id: MemberId,
    pub name: Option<String>,
    pub club: Option<String>,
    pub district: Option<String>,
    /// Masterpoints when first seen (default 0).
    pub masterpoints: f64,
    /// Overrides the masterpoint formula when given.
    pub start_handicap: Option<f64>,
    pub kind: MemberKind,
    pub origin: Origin,
}

impl Member {
    pub fn new(member_id: MemberId) -> Self {
        Member {
            member_id,
            name: None,
            club: None,
            district: None,
            masterpoints: 0.0,
            start_handicap: None,
            kind: MemberKind::Member,
            origin: Origin::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemberKind {
    Member,
    /// A foreign guest: a temporary handicap for each competition, never updated.
    Foreign,
}

/// Who the result owner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Individual,
    Pairs,
    Teams,
}

/// How table results become competition results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScoringMethod {
    Matchpoints,
    CrossImps,
    Butler,
    TeamImps,
    /// Swiss pairs (the Swiss pairs regulations): IMPs against a datum per board, each `round` a match
    /// between the two pairs at a table, converted to victory points.
    SwissPairs,
}

impl ScoringMethod {
    /// True when the competition's result unit is IMPs (per board in the model).
    pub fn is_imps(self) -> bool {
        !matches!(self, ScoringMethod::Matchpoints)
    }
}

/// The line a pair sat in: the model's own type, which the rows use as they are (the
/// model sits below the dataset and must depend on nothing).
pub use crate::model::Direction;

crate::string_enum!(MemberKind, "member kind", { "member" => MemberKind::Member, "foreign" => MemberKind::Foreign });
crate::string_enum!(Format, "format", {
    "individual" => Format::Individual,
    "pairs" => Format::Pairs,
    "teams" => Format::Teams,
});
crate::string_enum!(ScoringMethod, "scoring", {
    "matchpoints" => ScoringMethod::Matchpoints,
    "cross_imps" => ScoringMethod::CrossImps,
    "butler" => ScoringMethod::Butler,
    "team_imps" => ScoringMethod::TeamImps,
    "swiss_pairs" => ScoringMethod::SwissPairs,
});
crate::string_enum!(Direction, "direction", { "NS" => Direction::NS, "EW" => Direction::EW });

/// A rated competition: one session, or one team match.
#[derive(Debug, Clone, PartialEq)]
pub struct Competition {
    pub competition_id: String,
    pub date: NaiveDate,
    pub session: i32,
    pub format: Format,
    pub scoring: ScoringMethod,
    /// N_B. When absent it is derived from the board rows.
    pub boards: Option<u32>,
    pub rated: bool,
    pub handicap_event: bool,
    pub title: Option<String>,
    pub club: Option<String>,
    pub class: Option<String>,
    /// How the club's program scores (matchpoint scale, cross-IMP sum or average, ...).
    pub conventions: Conventions,
    /// A four- or five-pair event's victory-point scale (`competitions.vp_scale`).
    pub vp_scale: Option<VpScaleRef>,
    pub origin: Origin,
}

impl Competition {
    /// The location of the competition's row, naming the competition; a caller adds
    /// the column.
    pub fn location(&self) -> Location {
        self.origin.location().competition(&self.competition_id)
    }

    pub fn new(
        id: impl Into<String>,
        date: NaiveDate,
        format: Format,
        scoring: ScoringMethod,
    ) -> Self {
        Competition {
            competition_id: id.into(),
            date,
            session: 1,
            format,
            scoring,
            boards: None,
            rated: true,
            handicap_event: false,
            title: None,
            club: None,
            class: None,
            conventions: Conventions::default(),
            vp_scale: None,
            origin: Origin::default(),
        }
    }

    /// The replay order: (date, session, competition id).
    pub fn order_key(&self) -> (NaiveDate, i32, &str) {
        (self.date, self.session, self.competition_id.as_str())
    }
}

/// A pair, player or team in a competition.
#[derive(Debug, Clone, PartialEq)]
pub struct Entrant {
    pub competition_id: String,
    pub entrant: String,
    /// player1..player4: a pair uses 1-2, an individual 1, a team 1-4 (1+2 and 3+4 pairs).
    pub players: [Option<MemberId>; 4],
    /// The players' names as the club's export printed them, slot by slot. They are
    /// what identifies a player without a federation number (a guest, an unnumbered
    /// player): such an entrant has a name and no number in the slot.
    pub names: [Option<String>; 4],
    /// The club each player was printed with, slot by slot, when the export names one.
    /// A member's club is decided from these over all their competitions, so that it
    /// does not depend on which file was imported first.
    pub clubs: [Option<String>; 4],
    pub team: Option<String>,
    pub direction: Option<Direction>,
    /// The house pair of a Swiss pairs event (`entrants.house`): a pair the organiser
    /// seats to make an odd entry even. It plays and is scored, and takes no place.
    pub house: bool,
    pub origin: Origin,
}

impl Entrant {
    pub fn new(competition_id: impl Into<String>, entrant: impl Into<String>) -> Self {
        Entrant {
            competition_id: competition_id.into(),
            entrant: entrant.into(),
            players: [None; 4],
            names: [None, None, None, None],
            clubs: [None, None, None, None],
            team: None,
            direction: None,
            house: false,
            origin: Origin::default(),
        }
    }

    /// The listed players, in slot order.
    pub fn player_ids(&self) -> impl Iterator<Item = MemberId> + '_ {
        self.players.iter().flatten().copied()
    }
}

/// An entrant's result as the club reported it (or as the scoring stage computed it).
#[derive(Debug, Clone, PartialEq)]
pub struct EntrantResult {
    pub competition_id: String,
    pub entrant: String,
    /// N_G.
    pub boards_played: u32,
    /// Matchpoints: percentage 0-100. IMP scorings: total IMPs.
    pub score: f64,
    /// Team matches: the other team's entrant. A pair in a team event scored across the
    /// field: the pair it met at the table.
    pub opponent: Option<String>,
    pub origin: Origin,
}

/// A short text cell of a board row (an id, an entrant, a contract), held inline up to
/// 24 bytes: a federation's history has tens of millions of board rows, and a heap
/// allocation for each of their ten text cells cost more than reading and scoring them.
pub type Text = compact_str::CompactString;

/// One board at one table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoardResult {
    pub competition_id: Text,
    pub board: u32,
    pub ns: Option<Text>,
    pub ew: Option<Text>,
    /// `4S`, `3NTX`, `6HXX`, `PASS`; absent for artificial scores.
    pub contract: Option<Text>,
    /// `N`, `E`, `S`, `W`.
    pub declarer: Option<Text>,
    pub tricks: Option<u8>,
    pub ns_score: Option<i32>,
    /// `A6040`, `A5050`, ... (N/S share first); `A=/S`-style split codes give one side
    /// an artificial score while `ns_score` stays in the comparisons for the other.
    pub adjusted: Option<Text>,
    /// Individual events: each seat's entrant, in place of ns/ew.
    pub north: Option<Text>,
    pub south: Option<Text>,
    pub east: Option<Text>,
    pub west: Option<Text>,
    pub round: Option<u32>,
    /// The session of a competition scored over several sessions (a multi-session
    /// event); the `session` tie-break compares the entrants' session results.
    pub session: Option<u32>,
    pub table: Option<u32>,
    pub room: Option<Text>,
    /// Points a director added to (negative: took from) each side's total on this
    /// board, on the competition's scale, outside the comparisons (Ruter's `Pen` rows).
    pub ns_penalty: Option<f64>,
    pub ew_penalty: Option<f64>,
    pub origin: Origin,
}

/// Every table of a dataset.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dataset {
    pub members: Vec<Member>,
    pub competitions: Vec<Competition>,
    pub entrants: Vec<Entrant>,
    pub results: Vec<EntrantResult>,
    pub boards: Vec<BoardResult>,
}

/// Every cell of a board row but its origin, read at once: what reads most of a row
/// (the checks, the ledger's encoding, the scorer) looks into its columns once.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoardCells<'a> {
    pub competition_id: &'a str,
    pub board: u32,
    pub ns: Option<&'a str>,
    pub ew: Option<&'a str>,
    pub contract: Option<&'a str>,
    pub declarer: Option<&'a str>,
    pub tricks: Option<u8>,
    pub ns_score: Option<i32>,
    pub adjusted: Option<&'a str>,
    pub north: Option<&'a str>,
    pub south: Option<&'a str>,
    pub east: Option<&'a str>,
    pub west: Option<&'a str>,
    pub round: Option<u32>,
    pub session: Option<u32>,
    pub table: Option<u32>,
    pub room: Option<&'a str>,
    pub ns_penalty: Option<f64>,
    pub ew_penalty: Option<f64>,
}

/// The cells of a board row as the consumers read them (the checks, the ledger's hash,
/// the scorer, the model's input), whether the row is a [`BoardResult`] of its own or
/// a place in a board file's columns ([`BoardRef::Columns`]): most of a federation's
/// rows are read from Parquet and never need a struct of their own, which cost more to
/// build, move and drop than reading them did.
pub trait BoardRow {
    fn competition_id(&self) -> &str;
    fn board(&self) -> u32;
    fn ns(&self) -> Option<&str>;
    fn ew(&self) -> Option<&str>;
    fn contract(&self) -> Option<&str>;
    fn declarer(&self) -> Option<&str>;
    fn tricks(&self) -> Option<u8>;
    fn ns_score(&self) -> Option<i32>;
    fn adjusted(&self) -> Option<&str>;
    fn north(&self) -> Option<&str>;
    fn south(&self) -> Option<&str>;
    fn east(&self) -> Option<&str>;
    fn west(&self) -> Option<&str>;
    fn round(&self) -> Option<u32>;
    fn session(&self) -> Option<u32>;
    fn table(&self) -> Option<u32>;
    fn room(&self) -> Option<&str>;
    fn ns_penalty(&self) -> Option<f64>;
    fn ew_penalty(&self) -> Option<f64>;
    /// Where the row came from; built when asked (an error names it).
    fn origin(&self) -> Origin;

    /// The column set the row is read from in place, its place there and its board
    /// number; `None` for a row of its own.
    #[inline]
    fn in_columns(&self) -> Option<(&dyn BoardColumns, u32, u32)> {
        None
    }

    /// True when the reader has already found, column by column, that the row keeps
    /// every rule a board row is held to on its own ([`crate::import::validate::Validator::board`]
    /// then checks only what needs the other tables: its competition and its seats).
    /// `false` says nothing: the row is checked cell by cell.
    #[inline]
    fn keeps_row_rules(&self) -> bool {
        false
    }

    /// The seats' cells: `ns`, `ew`, `north`, `south`, `east`, `west`, in that order.
    #[inline]
    fn seats(&self) -> [Option<&str>; 6] {
        [
            self.ns(),
            self.ew(),
            self.north(),
            self.south(),
            self.east(),
            self.west(),
        ]
    }

    /// The cells a table is scored from ([`BoardColumns::scoring_cells`]); a row of its
    /// own gives them all.
    #[inline]
    fn scoring_cells(&self, _individual: bool) -> BoardCells<'_> {
        self.cells()
    }

    /// Every cell but the origin, at once.
    #[inline]
    fn cells(&self) -> BoardCells<'_> {
        BoardCells {
            competition_id: self.competition_id(),
            board: self.board(),
            ns: self.ns(),
            ew: self.ew(),
            contract: self.contract(),
            declarer: self.declarer(),
            tricks: self.tricks(),
            ns_score: self.ns_score(),
            adjusted: self.adjusted(),
            north: self.north(),
            south: self.south(),
            east: self.east(),
            west: self.west(),
            round: self.round(),
            session: self.session(),
            table: self.table(),
            room: self.room(),
            ns_penalty: self.ns_penalty(),
            ew_penalty: self.ew_penalty(),
        }
    }

    /// The row as a struct of its own, cell for cell.
    fn to_result(&self) -> BoardResult {
        let c = self.cells();
        let text = |cell: Option<&str>| cell.map(Text::from);
        BoardResult {
            competition_id: Text::from(c.competition_id),
            board: c.board,
            ns: text(c.ns),
            ew: text(c.ew),
            contract: text(c.contract),
            declarer: text(c.declarer),
            tricks: c.tricks,
            ns_score: c.ns_score,
            adjusted: text(c.adjusted),
            north: text(c.north),
            south: text(c.south),
            east: text(c.east),
            west: text(c.west),
            round: c.round,
            session: c.session,
            table: c.table,
            room: text(c.room),
            ns_penalty: c.ns_penalty,
            ew_penalty: c.ew_penalty,
            origin: self.origin(),
        }
    }
}

impl BoardRow for BoardResult {
    fn competition_id(&self) -> &str {
        &self.competition_id
    }
    fn board(&self) -> u32 {
        self.board
    }
    fn ns(&self) -> Option<&str> {
        self.ns.as_deref()
    }
    fn ew(&self) -> Option<&str> {
        self.ew.as_deref()
    }
    fn contract(&self) -> Option<&str> {
        self.contract.as_deref()
    }
    fn declarer(&self) -> Option<&str> {
        self.declarer.as_deref()
    }
    fn tricks(&self) -> Option<u8> {
        self.tricks
    }
    fn ns_score(&self) -> Option<i32> {
        self.ns_score
    }
    fn adjusted(&self) -> Option<&str> {
        self.adjusted.as_deref()
    }
    fn north(&self) -> Option<&str> {
        self.north.as_deref()
    }
    fn south(&self) -> Option<&str> {
        self.south.as_deref()
    }
    fn east(&self) -> Option<&str> {
        self.east.as_deref()
    }
    fn west(&self) -> Option<&str> {
        self.west.as_deref()
    }
    fn round(&self) -> Option<u32> {
        self.round
    }
    fn session(&self) -> Option<u32> {
        self.session
    }
    fn table(&self) -> Option<u32> {
        self.table
    }
    fn room(&self) -> Option<&str> {
        self.room.as_deref()
    }
    fn ns_penalty(&self) -> Option<f64> {
        self.ns_penalty
    }
    fn ew_penalty(&self) -> Option<f64> {
        self.ew_penalty
    }
    fn origin(&self) -> Origin {
        self.origin.clone()
    }
    fn to_result(&self) -> BoardResult {
        self.clone()
    }
}

impl<T: BoardRow + ?Sized> BoardRow for &T {
    fn competition_id(&self) -> &str {
        (**self).competition_id()
    }
    fn board(&self) -> u32 {
        (**self).board()
    }
    fn ns(&self) -> Option<&str> {
        (**self).ns()
    }
    fn ew(&self) -> Option<&str> {
        (**self).ew()
    }
    fn contract(&self) -> Option<&str> {
        (**self).contract()
    }
    fn declarer(&self) -> Option<&str> {
        (**self).declarer()
    }
    fn tricks(&self) -> Option<u8> {
        (**self).tricks()
    }
    fn ns_score(&self) -> Option<i32> {
        (**self).ns_score()
    }
    fn adjusted(&self) -> Option<&str> {
        (**self).adjusted()
    }
    fn north(&self) -> Option<&str> {
        (**self).north()
    }
    fn south(&self) -> Option<&str> {
        (**self).south()
    }
    fn east(&self) -> Option<&str> {
        (**self).east()
    }
    fn west(&self) -> Option<&str> {
        (**self).west()
    }
    fn round(&self) -> Option<u32> {
        (**self).round()
    }
    fn session(&self) -> Option<u32> {
        (**self).session()
    }
    fn table(&self) -> Option<u32> {
        (**self).table()
    }
    fn room(&self) -> Option<&str> {
        (**self).room()
    }
    fn ns_penalty(&self) -> Option<f64> {
        (**self).ns_penalty()
    }
    fn ew_penalty(&self) -> Option<f64> {
        (**self).ew_penalty()
    }
    fn origin(&self) -> Origin {
        (**self).origin()
    }
    fn in_columns(&self) -> Option<(&dyn BoardColumns, u32, u32)> {
        (**self).in_columns()
    }
    fn keeps_row_rules(&self) -> bool {
        (**self).keeps_row_rules()
    }
    fn seats(&self) -> [Option<&str>; 6] {
        (**self).seats()
    }
    fn scoring_cells(&self, individual: bool) -> BoardCells<'_> {
        (**self).scoring_cells(individual)
    }
    fn cells(&self) -> BoardCells<'_> {
        (**self).cells()
    }
    fn to_result(&self) -> BoardResult {
        (**self).to_result()
    }
}

/// A text cell of a board row, as [`BoardColumns`] are asked for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardText {
    Ns,
    Ew,
    Contract,
    Declarer,
    Adjusted,
    North,
    South,
    East,
    West,
    Room,
}

/// The cells of a number of a board file's rows (a row group's, a file's), read in
/// place: the reader resolves the columns once and hands on places in them. Only rows
/// whose every cell keeps the rules of its type are handed on this way; the rest are
/// built as [`BoardResult`]s, which name the broken cell.
pub trait BoardColumns: Send + Sync + std::fmt::Debug {
    fn competition_id(&self, row: u32) -> &str;
    fn text(&self, cell: BoardText, row: u32) -> Option<&str>;
    fn tricks(&self, row: u32) -> Option<u8>;
    fn ns_score(&self, row: u32) -> Option<i32>;
    fn round(&self, row: u32) -> Option<u32>;
    fn session(&self, row: u32) -> Option<u32>;
    fn table(&self, row: u32) -> Option<u32>;
    fn ns_penalty(&self, row: u32) -> Option<f64>;
    fn ew_penalty(&self, row: u32) -> Option<f64>;
    fn origin(&self, row: u32) -> Origin;

    /// [`BoardRow::keeps_row_rules`] for the row at `row`.
    #[inline]
    fn keeps_row_rules(&self, _row: u32) -> bool {
        false
    }

    /// [`BoardRow::seats`] for the row at `row`: one call where reading cell by cell
    /// makes one each.
    #[inline(always)]
    fn seats(&self, row: u32) -> [Option<&str>; 6] {
        [
            self.text(BoardText::Ns, row),
            self.text(BoardText::Ew, row),
            self.text(BoardText::North, row),
            self.text(BoardText::South, row),
            self.text(BoardText::East, row),
            self.text(BoardText::West, row),
        ]
    }

    /// The cells of the row at `row` (whose board number is `board`) that a table is
    /// scored from: the seats of an `individual` event or of a pair or team, the
    /// result's cells, the counts and the penalties. The competition id, the room and
    /// the other kind of seats are left empty: the scorer, which reads every row of a
    /// federation, does not read them (the checks have, and an error reads the row).
    #[inline(always)]
    fn scoring_cells(&self, row: u32, board: u32, individual: bool) -> BoardCells<'_> {
        let pair = |cell| (!individual).then(|| self.text(cell, row)).flatten();
        let seat = |cell| individual.then(|| self.text(cell, row)).flatten();
        BoardCells {
            competition_id: "",
            board,
            ns: pair(BoardText::Ns),
            ew: pair(BoardText::Ew),
            contract: self.text(BoardText::Contract, row),
            declarer: self.text(BoardText::Declarer, row),
            tricks: self.tricks(row),
            ns_score: self.ns_score(row),
            adjusted: self.text(BoardText::Adjusted, row),
            north: seat(BoardText::North),
            south: seat(BoardText::South),
            east: seat(BoardText::East),
            west: seat(BoardText::West),
            round: self.round(row),
            session: self.session(row),
            table: self.table(row),
            room: None,
            ns_penalty: self.ns_penalty(row),
            ew_penalty: self.ew_penalty(row),
        }
    }

    /// Every cell of the row at `row` (whose board number is `board`) but its origin:
    /// one call where reading cell by cell makes one each. The scoring cells with an
    /// individual event's seats, and the rest: each cell read once.
    #[inline(always)]
    fn cells(&self, row: u32, board: u32) -> BoardCells<'_> {
        BoardCells {
            competition_id: self.competition_id(row),
            ns: self.text(BoardText::Ns, row),
            ew: self.text(BoardText::Ew, row),
            room: self.text(BoardText::Room, row),
            ..self.scoring_cells(row, board, true)
        }
    }

    /// Appends the ledger's encoding ([`encoding::board_into`]) of the rows at `rows`
    /// (each row's place and board number) to `e`, each row's (start, end) to `places`.
    fn encode_rows(
        &self,
        rows: &[(u32, u32)],
        e: &mut encoding::Encoder,
        places: &mut Vec<(usize, usize)>,
    ) {
        for &(row, board) in rows {
            let start = e.len();
            encoding::board_cells_into(&self.cells(row, board), e);
            places.push((start, e.len()));
        }
    }
}

/// One board row: a struct of its own, or a place in a board file's columns with its
/// board number already read (every consumer reads it, most more than once).
#[derive(Debug, Clone, Copy)]
pub enum BoardRef<'a> {
    Row(&'a BoardResult),
    Columns {
        columns: &'a dyn BoardColumns,
        row: u32,
        board: u32,
    },
}

macro_rules! board_ref_cell {
    ($($name:ident: $ty:ty),* $(,)?) => {$(
        #[inline]
        fn $name(&self) -> $ty {
            match self {
                BoardRef::Row(row) => row.$name(),
                BoardRef::Columns { columns, row, .. } => columns.$name(*row),
            }
        }
    )*};
}

macro_rules! board_ref_text {
    ($($name:ident: $cell:ident),* $(,)?) => {$(
        #[inline]
        fn $name(&self) -> Option<&str> {
            match self {
                BoardRef::Row(row) => row.$name.as_deref(),
                BoardRef::Columns { columns, row, .. } => columns.text(BoardText::$cell, *row),
            }
        }
    )*};
}

impl BoardRow for BoardRef<'_> {
    #[inline]
    fn competition_id(&self) -> &str {
        match self {
            BoardRef::Row(row) => &row.competition_id,
            BoardRef::Columns { columns, row, .. } => columns.competition_id(*row),
        }
    }
    #[inline]
    fn board(&self) -> u32 {
        match self {
            BoardRef::Row(row) => row.board,
            BoardRef::Columns { board, .. } => *board,
        }
    }
    board_ref_text!(ns: Ns, ew: Ew, contract: Contract, declarer: Declarer, adjusted: Adjusted,
        north: North, south: South, east: East, west: West, room: Room);
    #[inline]
    fn cells(&self) -> BoardCells<'_> {
        match self {
            BoardRef::Row(row) => row.cells(),
            BoardRef::Columns {
                columns,
                row,
                board,
            } => columns.cells(*row, *board),
        }
    }
    #[inline]
    fn scoring_cells(&self, individual: bool) -> BoardCells<'_> {
        match self {
            BoardRef::Row(row) => row.scoring_cells(individual),
            BoardRef::Columns {
                columns,
                row,
                board,
            } => columns.scoring_cells(*row, *board, individual),
        }
    }
    #[inline]
    fn keeps_row_rules(&self) -> bool {
        match self {
            BoardRef::Row(_) => false,
            BoardRef::Columns { columns, row, .. } => columns.keeps_row_rules(*row),
        }
    }
    #[inline]
    fn seats(&self) -> [Option<&str>; 6] {
        match self {
            BoardRef::Row(row) => row.seats(),
            BoardRef::Columns { columns, row, .. } => columns.seats(*row),
        }
    }
    #[inline]
    fn in_columns(&self) -> Option<(&dyn BoardColumns, u32, u32)> {
        match self {
            BoardRef::Row(_) => None,
            BoardRef::Columns {
                columns,
                row,
                board,
            } => Some((*columns, *row, *board)),
        }
    }
    board_ref_cell!(tricks: Option<u8>, ns_score: Option<i32>, round: Option<u32>,
        session: Option<u32>, table: Option<u32>, ns_penalty: Option<f64>,
        ew_penalty: Option<f64>, origin: Origin);
}

/// A board row a reader hands on: its place in one of a batch's column sets, with the
/// two cells every consumer reads often, its board number and its competition (as a
/// number the reader gave the id, so that rows are grouped by comparing numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardSlot {
    /// Which of the batch's [`BoardBatch::sets`] holds the row.
    pub set: u32,
    pub row: u32,
    pub board: u32,
    /// The competition, numbered by the reader: equal numbers, equal ids.
    pub competition: u32,
}

/// Board rows of whole competitions as a reader hands them on: places in column sets
/// (a row group's columns, the few rows built as structs), not rows of their own.
#[derive(Debug, Default, Clone)]
pub struct BoardBatch {
    pub sets: Vec<Arc<dyn BoardColumns>>,
    /// The rows, each in one of `sets`.
    pub slots: Vec<BoardSlot>,
}

impl BoardBatch {
    /// The row at `slot`, which must name one of the batch's sets.
    #[inline]
    pub fn row(&self, slot: &BoardSlot) -> BoardRef<'_> {
        BoardRef::Columns {
            columns: &*self.sets[slot.set as usize],
            row: slot.row,
            board: slot.board,
        }
    }

    /// Every row, in order.
    pub fn rows(&self) -> impl Iterator<Item = BoardRef<'_>> + '_ {
        self.slots.iter().map(|slot| self.row(slot))
    }
}

/// Board rows built as structs (from a text file, or a row read through its columns),
/// as a column set.
#[derive(Debug, Default)]
pub struct OwnedBoards(pub Vec<BoardResult>);

impl OwnedBoards {
    fn at(&self, row: u32) -> Option<&BoardResult> {
        self.0.get(row as usize)
    }
}

impl BoardColumns for OwnedBoards {
    fn competition_id(&self, row: u32) -> &str {
        self.at(row).map_or("", |r| r.competition_id.as_str())
    }
    fn text(&self, cell: BoardText, row: u32) -> Option<&str> {
        let r = self.at(row)?;
        match cell {
            BoardText::Ns => r.ns.as_deref(),
            BoardText::Ew => r.ew.as_deref(),
            BoardText::Contract => r.contract.as_deref(),
            BoardText::Declarer => r.declarer.as_deref(),
            BoardText::Adjusted => r.adjusted.as_deref(),
            BoardText::North => r.north.as_deref(),
            BoardText::South => r.south.as_deref(),
            BoardText::East => r.east.as_deref(),
            BoardText::West => r.west.as_deref(),
            BoardText::Room => r.room.as_deref(),
        }
    }
    fn tricks(&self, row: u32) -> Option<u8> {
        self.at(row)?.tricks
    }
    fn ns_score(&self, row: u32) -> Option<i32> {
        self.at(row)?.ns_score
    }
    fn round(&self, row: u32) -> Option<u32> {
        self.at(row)?.round
    }
    fn session(&self, row: u32) -> Option<u32> {
        self.at(row)?.session
    }
    fn table(&self, row: u32) -> Option<u32> {
        self.at(row)?.table
    }
    fn ns_penalty(&self, row: u32) -> Option<f64> {
        self.at(row)?.ns_penalty
    }
    fn ew_penalty(&self, row: u32) -> Option<f64> {
        self.at(row)?.ew_penalty
    }
    fn origin(&self, row: u32) -> Origin {
        self.at(row).map(|r| r.origin.clone()).unwrap_or_default()
    }
}
