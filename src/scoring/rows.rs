//! The rows scoring produces: the lines of `board_scores.parquet` and
//! `standings.parquet`, and the results the handicap model reads, in the order clubs
//! number their entrants.

use std::cmp::Ordering;

use crate::dataset::{Direction, EntrantResult};

/// One row of `board_scores.parquet`: a table result and both sides' points.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardScore {
    pub competition_id: String,
    pub board: u32,
    /// The N/S entrant (individual events: `"N+S"`).
    pub ns: Option<String>,
    /// The E/W entrant (individual events: `"E+W"`).
    pub ew: Option<String>,
    /// `None` for artificial scores.
    pub ns_score: Option<i32>,
    /// Points on the competition's own scale (matchpoints or IMPs).
    pub ns_points: f64,
    pub ew_points: f64,
    /// Butler only: the board's datum.
    pub datum: Option<f64>,
}

/// One row of `standings.parquet`.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub competition_id: String,
    pub entrant: String,
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
    /// They decide a team event's standings; the handicap always uses the IMPs.
    pub vp: Option<f64>,
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

pub(super) fn order_lists(a: &[String], b: &[String]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = entrant_order(x, y);
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
        }
    }
}

/// Results in entrant order.
pub(super) fn sorted_results(mut results: Vec<EntrantResult>) -> Vec<EntrantResult> {
    results.sort_by(|a, b| entrant_order(&a.entrant, &b.entrant));
    results
}
