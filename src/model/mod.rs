//! The handicap model of `docs/model.md` (the Swedish federation's "Project 52"
//! proposal), as pure functions over a [`FactorSet`].
//!
//! The model is kept free of files and member lists so that every worked number of the
//! seed can be checked against it directly, and so that the replay can run it in any
//! order of competitions it likes. The pipeline builds one [`CompetitionInput`] per rated
//! competition from the handicaps it holds and hands each member's [`PlayerOutcome`]
//! back to [`player::update`], which owns everything that moves a handicap.
//!
//! * [`factors`]: the constants (the `fsb-2007` set and its options);
//! * [`update`]: board weight, starting handicap, `Δh` and the cap;
//! * [`player`]: one player's whole update (newcomer, gain, drift, per-method
//!   handicaps, confidence) and the frozen month;
//! * [`expected`]: the expected result of each format;
//! * [`guests`]: temporary handicaps of foreign guests and non-member pairs;
//! * [`rate`]: [`rate_competition`], the entry point, and [`handicap_adjusted`].

pub mod error;
pub mod expected;
pub mod factors;
pub mod field;
pub mod guests;
pub mod player;
pub mod rate;
pub mod update;

pub use error::{FactorSetError, ModelError};
pub use factors::FactorSet;
pub use rate::{expected_results, handicap_adjusted, rate_competition};

/// How a competition's results are calculated: sets `S`, `C_b` and the result unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CalcMethod {
    /// Matchpoints (and topscore across the field): `r` in percent over 50.
    Topscore,
    /// IMPs across the field, against a datum, or a team's IMPs: `r` in IMPs per board.
    Imp,
}

/// The line a pair sat in. Defined here, at the bottom, so that the model depends on
/// nothing else in the crate; the dataset's rows use it as it is.
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

/// Who owns a result and what it is compared against: one row of the model's table of formats (docs/model.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    Individual,
    /// Pairs, topscore or IMPs across the field.
    Pairs,
    /// Pairs scored against a datum (butler).
    PairsDatum,
    /// A team match rated on its own (each team an entrant of 4 players).
    TeamMatch,
    /// A pair in a team match whose boards are scored across the field.
    TeamPairAcross,
}

impl FieldKind {
    /// Players per entrant: 1, 2, or 4 (a team: pairs 1+2 and 3+4).
    pub fn players_per_entrant(self) -> usize {
        match self {
            FieldKind::Individual => 1,
            FieldKind::Pairs | FieldKind::PairsDatum | FieldKind::TeamPairAcross => 2,
            FieldKind::TeamMatch => 4,
        }
    }
}

/// One rated competition as the model sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct CompetitionInput {
    /// `N_B`, boards in the competition (in a team match: in that match).
    pub n_boards: u32,
    pub method: CalcMethod,
    pub kind: FieldKind,
    /// Class multiplier of the board weight, 1.0 by default
    /// (see [`FactorSet::class_multiplier`]).
    pub weight_multiplier: f64,
    pub entrants: Vec<EntrantInput>,
}

/// One entrant: a player, a pair or a team.
#[derive(Debug, Clone, PartialEq)]
pub struct EntrantInput {
    /// 1 (individual), 2 (pair), 4 (team: pairs 1+2 and 3+4).
    pub players: Vec<PlayerInput>,
    /// `N_G`, boards the entrant played.
    pub boards_played: u32,
    /// `r` in the model unit: percent over 50, or IMPs per board. TeamMatch: the team's net
    /// IMPs per board.
    pub result: f64,
    /// TeamPairAcross: the direction the pair sat.
    pub direction: Option<Direction>,
    /// TeamMatch: the other team; TeamPairAcross: the pair met at the table.
    pub opponent: Option<usize>,
}

/// A player and what the model knows about their handicap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayerInput {
    pub member_id: i64,
    pub status: PlayerStatus,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlayerStatus {
    /// A member with a handicap (the one before this competition).
    Rated(f64),
    /// A listed foreign guest: a temporary handicap, never updated.
    Foreign { reported_level: Option<f64> },
    /// Not in the member list: the whole pair becomes a non-member pair.
    NonMember,
}

/// What one competition did to one player.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerOutcome {
    /// Index of the entrant in the input.
    pub entrant: usize,
    pub member_id: i64,
    /// The handicap before; the temporary handicap for guests and non-members.
    pub handicap_before: f64,
    /// The partner's handicap (pair slots; `None` in individual events).
    pub partner_handicap: Option<f64>,
    /// The handicap of the pair the player sat in (the player's own in individual events).
    pub pair_handicap: f64,
    /// What the expected result compared against (see [`expected`]).
    pub field_handicap: f64,
    /// `r̂` of the entrant.
    pub expected: f64,
    /// `r` of the entrant.
    pub achieved: f64,
    pub n_b: u32,
    pub n_g: u32,
    /// `Δh`; 0 for players who are not updated.
    pub delta: f64,
    /// The handicap after (capped, floored); `handicap_before` when not updated.
    pub handicap_after: f64,
    /// False for foreign guests and for both players of a non-member pair.
    pub updated: bool,
}
