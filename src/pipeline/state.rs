//! Every member's running handicap, kept in dense arrays.
//!
//! Members are indexed densely in member-id order, so that the replay touches plain
//! vectors rather than maps, and so that every output comes out in the same order
//! whatever the input row order was.

use std::collections::HashMap;

use crate::dataset::{Member, MemberId, MemberKind};
use crate::error::InputError;
use crate::model::{update, FactorSet};

pub use crate::model::player::{month_index, PlayerState};

/// A member list's explicit starting handicap must lie on the factor set's scale: at most
/// the cap, and at least the floor (without a floor, at least minus the cap, further
/// below 0 than any player has been).
fn check_start_handicap(factors: &FactorSet, member: &Member, h: f64) -> Result<f64, InputError> {
    let low = factors.floor.unwrap_or(-factors.cap);
    if (low..=factors.cap).contains(&h) {
        Ok(h)
    } else {
        Err(InputError::new(
            member.origin.location().column("start_handicap"),
            format!(
                "start_handicap must be between {low} and the factor set's cap {}, found {h}",
                factors.cap
            ),
        ))
    }
}

/// Dense member indices, in member-id order.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    pub members: Vec<Member>,
    index: HashMap<MemberId, u32>,
}

impl Registry {
    /// Members sorted by id. Ids are unique (the reader checks it).
    pub fn new(members: &[Member]) -> Self {
        let mut members = members.to_vec();
        members.sort_by_key(|m| m.member_id);
        let index = members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.member_id, i as u32))
            .collect();
        Registry { members, index }
    }

    pub fn get(&self, id: MemberId) -> Option<(u32, &Member)> {
        let i = *self.index.get(&id)?;
        Some((i, &self.members[i as usize]))
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The starting state of every member: the explicit starting handicap, or the
    /// masterpoint formula. Foreign guests get a slot too but are never updated.
    pub fn starting_states(&self, factors: &FactorSet) -> Result<Vec<PlayerState>, InputError> {
        self.members
            .iter()
            .map(|m| {
                let h = match m.start_handicap {
                    Some(h) => check_start_handicap(factors, m, h)?,
                    None => {
                        update::start_handicap(&factors.start, m.masterpoints).map_err(|e| {
                            InputError::new(
                                m.origin.location().column("masterpoints"),
                                e.to_string(),
                            )
                        })?
                    }
                };
                let sd = factors.confidence.map(|c| c.start_sd);
                Ok(PlayerState::starting(h, sd))
            })
            .collect()
    }

    pub fn is_foreign(&self, index: u32) -> bool {
        self.members[index as usize].kind == MemberKind::Foreign
    }
}
