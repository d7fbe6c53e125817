//! Scoring: table results to competition results, exactly as club programs do it.
//!
//! The handicap model needs each entrant's result in a known unit, and the federation
//! needs to reproduce what its clubs published. So every scoring method is a pure
//! function of the table results and of the competition's recorded [`Conventions`], and
//! [`score_competition`] is the one entry point that picks the method, validates every
//! row (a wrong score must not silently move a matchpoint) and returns rows in a fixed
//! order, whatever the order of the input.
//!
//! Individual events name each seat's entrant (`north`, `south`, `east`, `west`); in
//! [`BoardScore`] the two players of a side are written `"N+S"` (North's entrant, a plus
//! sign, South's), and each player gets the points of the side it sat on.
//!
//! Totals follow the program's conventions as well: a pair that played fewer boards is
//! scaled as its program scales it (`ByeScore`), a board played fewer times may show raw
//! points on its traveller while the totals carry Neuberg's (`Travellers`), and a
//! director's penalty (`ns_penalty`, `ew_penalty` on a table row) is added to the total
//! after scaling, because it is not a board's result and must not be averaged into one.
//!
//! `team_imps` covers two cases. When entrants are teams (format `teams`, or pairs with
//! a `team`), the competition is one match between two teams, scored room against room.
//! When a `pairs` competition has no teams, it is the four- or five-pair movement of the
//! four-and-five-pairs sheets (below): the standings hold the scoresheet entries (IMPs only for the side that gained a
//! subround, the average rounded down for a sit-out), while the results the handicap
//! model consumes hold each pair's net IMPs over the boards it played.
//!
//! The tests' worked examples come from published sources, named in them by what they
//! are: *the scoring leaflet* (a club's information sheet on how duplicate is scored,
//! with two travellers as a Mitchell), *the tie-break rules* (a scoring program's
//! tie-break methods for pair contests: in-between meeting, session percentage,
//! standard deviation, topscore), *the Swiss pairs regulations* (Bridge NSW's Swiss
//! Pairs Congresses supplementary regulations, with the ABF's VP tables) and *the
//! four-and-five-pairs sheets* (the manual scoresheets for four and five pairs on two
//! tables).
//!
//! `swiss_pairs` scores each board as butler does (IMPs against a datum), and adds the
//! boards up match by match (`swiss`): each `round` is a match between the two pairs at
//! a table, its margin worth victory points, the standings by total VPs.
//!
//! The entry point (`competition`) reads and checks every table result (`tables`),
//! scores each board by the competition's method and adds the boards up by its format
//! (`dispatch`: `field`, `team`, `four_five`), and returns the rows of `rows`.

pub mod butler;
mod competition;
pub mod contract;
pub mod draw;
/// The conventions are part of the dataset (each competition carries its own); they are
/// re-exported here, where they are applied.
pub use crate::dataset::conventions;
pub mod cross_imps;
mod dispatch;
mod field;
pub mod four_five;
pub mod imps;
pub mod matchpoints;
pub mod outcome;
pub mod progress;
mod rows;
mod source;
pub mod standings;
pub mod swiss;
mod tables;
pub mod team;
pub mod vp;

pub use competition::score_competition;
pub use rows::{
    entrant_order, BoardScore, BoardScoreRecord, BoardScoreTable, BoardScoreTableColumns,
    ScoredCompetition, Standing, StandingLine, StandingOf, RECORD_BYTES,
};
pub use source::{BoardSource, Boards, InMemory};
pub use team::team_match_vps;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod realdata_tests;
