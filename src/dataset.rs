//! The dataset of the data contract, as plain Rust values.
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
    /// Swiss pairs (seed 002): IMPs against a datum per board, each `round` a match
    /// between the two pairs at a table, converted to victory points.
    SwissPairs,
}

impl ScoringMethod {
    /// True when the competition's result unit is IMPs (per board in the model).
    pub fn is_imps(self) -> bool {
        !matches!(self, ScoringMethod::Matchpoints)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    NS,
    EW,
}

impl Direction {
    pub fn opposite(self) -> Direction {
        match self {
            Direction::NS => Direction::EW,
            Direction::EW => Direction::NS,
        }
    }
}

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
    pub origin: Origin,
}

impl Competition {
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
