//! A rated competition as the replay takes it: the model's input with each seat's
//! member still to be filled in. Plain data that the scoring, the preparation and the
//! replay all pass along, so it sits below them.

use chrono::NaiveDate;

use crate::dataset::Origin;
use crate::model::{CompetitionInput, PlayerStatus};

/// Who sits in a player slot, as far as the replay is concerned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Seat {
    /// A member whose handicap is read and updated (dense index).
    Member(u32),
    /// A listed foreign guest: a temporary handicap, never updated.
    Foreign(Option<f64>),
    /// Not in the member list.
    NonMember,
}

/// A rated competition ready for the model; the handicaps are filled in at replay time.
#[derive(Debug, Clone)]
pub struct PreparedCompetition {
    pub competition_id: String,
    pub date: NaiveDate,
    pub session: i32,
    pub handicap_event: bool,
    /// The model's input with every member's handicap still to be filled in.
    pub input: CompetitionInput,
    /// Per entrant, per player slot: who sits there.
    pub seats: Vec<Vec<Seat>>,
    pub entrant_names: Vec<String>,
    /// The members whose handicaps this competition reads and writes, sorted, unique.
    pub rated_members: Vec<u32>,
    /// A pairs field with fixed directions: N/S and E/W are rated as separate fields.
    pub split_by_direction: bool,
    /// The competition's row, for errors the model raises about it.
    pub origin: Origin,
}

impl PreparedCompetition {
    /// The model's input with the given member handicaps.
    pub fn input_with(&self, handicap_of: impl Fn(u32) -> f64) -> CompetitionInput {
        let mut input = self.input.clone();
        self.fill_handicaps(&mut input, handicap_of);
        input
    }

    /// [`Self::input_with`] written into `input`, reusing its buffers: the replay keeps
    /// one per thread, so that a competition costs no allocation for its input.
    pub fn input_into(&self, input: &mut CompetitionInput, handicap_of: impl Fn(u32) -> f64) {
        let source = &self.input;
        input.n_boards = source.n_boards;
        input.method = source.method;
        input.kind = source.kind;
        input.weight_multiplier = source.weight_multiplier;
        input.entrants.truncate(source.entrants.len());
        for (i, from) in source.entrants.iter().enumerate() {
            match input.entrants.get_mut(i) {
                Some(to) => {
                    to.players.clear();
                    to.players.extend_from_slice(&from.players);
                    to.boards_played = from.boards_played;
                    to.result = from.result;
                    to.direction = from.direction;
                    to.opponent = from.opponent;
                }
                None => input.entrants.push(from.clone()),
            }
        }
        self.fill_handicaps(input, handicap_of);
    }

    fn fill_handicaps(&self, input: &mut CompetitionInput, handicap_of: impl Fn(u32) -> f64) {
        for (entrant, seats) in input.entrants.iter_mut().zip(&self.seats) {
            for (player, seat) in entrant.players.iter_mut().zip(seats) {
                if let Seat::Member(index) = seat {
                    player.status = PlayerStatus::Rated(handicap_of(*index));
                }
            }
        }
    }
}
