//! Why a competition cannot be rated.
//!
//! The model sees plain numbers, not files, so its errors name the entrant (its index in
//! the input, which the caller maps back to a file and row) and the rule broken. The
//! model depends on nothing else in the crate: the pipeline adds the competition
//! ([`crate::error::ReplayError`]), and whoever read a factor set's file names it.

/// A factor set that does not parse, or breaks a rule serde cannot express: the message
/// names the file and the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("factor set {file}: {rule}")]
pub struct FactorSetError {
    /// The file (or other source) the text came from.
    pub file: String,
    pub rule: String,
}

/// A rule of the model that a competition's input breaks.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("a competition needs at least 2 boards to be rated (the board weight (N_B + S)/(N_B − 1) is undefined), found N_B = {n_b}")]
    TooFewBoards { n_b: u32 },
    #[error("a rated competition needs at least 2 entrants, found {found}")]
    TooFewEntrants { found: usize },
    #[error("entrant {entrant}: this format needs {expected} players per entrant, found {found}")]
    PlayerCount {
        entrant: usize,
        expected: usize,
        found: usize,
    },
    #[error("entrant {entrant}: boards played N_G = {n_g} must be between 1 and N_B = {n_b}")]
    BoardsPlayed { entrant: usize, n_g: u32, n_b: u32 },
    #[error("entrant {entrant}: {what} must be a finite number, found {value}")]
    NotFinite {
        entrant: usize,
        what: &'static str,
        value: f64,
    },
    #[error(
        "entrant {entrant}: a pair in a team match scored across the field needs its direction"
    )]
    MissingDirection { entrant: usize },
    #[error("entrant {entrant}: this format needs the opponent the entrant met")]
    MissingOpponent { entrant: usize },
    #[error("entrant {entrant}: opponent {opponent} {rule}")]
    BadOpponent {
        entrant: usize,
        opponent: usize,
        rule: &'static str,
    },
    #[error("member {member_id} plays twice for entrant {entrant}")]
    DuplicatePlayer { member_id: i64, entrant: usize },
    #[error("entrant {entrant}: no guest handicap method of the factor set applies to member {member_id} (methods tried: {tried})")]
    NoGuestHandicap {
        entrant: usize,
        member_id: i64,
        tried: String,
    },
    #[error("the board-weight multiplier must be a finite number ≥ 0, found {value}")]
    BadMultiplier { value: f64 },
    #[error("masterpoints must be a finite number ≥ 0, found {value}")]
    BadMasterpoints { value: f64 },
}

impl ModelError {
    /// The entrant (index in the input) the error is about, when it is about one.
    pub fn entrant(&self) -> Option<usize> {
        match self {
            ModelError::PlayerCount { entrant, .. }
            | ModelError::BoardsPlayed { entrant, .. }
            | ModelError::NotFinite { entrant, .. }
            | ModelError::MissingDirection { entrant }
            | ModelError::MissingOpponent { entrant }
            | ModelError::BadOpponent { entrant, .. }
            | ModelError::NoGuestHandicap { entrant, .. } => Some(*entrant),
            ModelError::DuplicatePlayer { entrant, .. } => Some(*entrant),
            ModelError::TooFewBoards { .. }
            | ModelError::TooFewEntrants { .. }
            | ModelError::BadMultiplier { .. }
            | ModelError::BadMasterpoints { .. } => None,
        }
    }
}
