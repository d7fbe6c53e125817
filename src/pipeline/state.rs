//! Every member's running handicap, kept in dense arrays.
//!
//! Members are indexed densely in member-id order, so that the replay touches plain
//! vectors rather than maps, and so that every output comes out in the same order
//! whatever the input row order was.

use std::collections::HashMap;

use chrono::{Datelike, NaiveDate};

use crate::dataset::{Member, MemberId, MemberKind};
use crate::error::InputError;
use crate::model::{update, CalcMethod, FactorSet};

/// A member's handicap and activity.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerState {
    pub handicap: f64,
    /// Handicap per calculation method, when the factor set keeps them separately.
    pub handicap_topscore: f64,
    pub handicap_imp: f64,
    pub boards: u64,
    pub competitions: u64,
    pub last_played: Option<NaiveDate>,
    /// The month (year·12 + month − 1) whose playing handicap is `playing_handicap`.
    pub playing_month: Option<i32>,
    /// The handicap published at the end of the month before `playing_month`, used to
    /// rate handicap tournaments of that month.
    pub playing_handicap: f64,
    /// The confidence figure (standard deviation of the handicap, in handicap units),
    /// when the factor set publishes one.
    pub handicap_sd: Option<f64>,
}

impl PlayerState {
    pub fn starting(handicap: f64, handicap_sd: Option<f64>) -> Self {
        PlayerState {
            handicap,
            handicap_topscore: handicap,
            handicap_imp: handicap,
            boards: 0,
            competitions: 0,
            last_played: None,
            playing_month: None,
            playing_handicap: handicap,
            handicap_sd,
        }
    }

    /// The handicap a competition of `method` reads.
    pub fn handicap_for(&self, method: Option<CalcMethod>) -> f64 {
        match method {
            None => self.handicap,
            Some(CalcMethod::Topscore) => self.handicap_topscore,
            Some(CalcMethod::Imp) => self.handicap_imp,
        }
    }

    /// Rolls the playing handicap forward when a competition in a new month is reached:
    /// the handicap held before the month's first competition is the one published at
    /// the end of the previous month.
    pub fn enter_month(&mut self, date: NaiveDate) {
        let month = month_index(date);
        if self.playing_month != Some(month) {
            self.playing_month = Some(month);
            self.playing_handicap = self.handicap;
        }
    }
}

/// Months since year 0, so that consecutive months differ by one.
pub fn month_index(date: NaiveDate) -> i32 {
    date.year() * 12 + date.month0() as i32
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playing_handicap_is_the_one_held_before_the_month() {
        let mut s = PlayerState::starting(30.0, None);
        let jan = NaiveDate::from_ymd_opt(2026, 1, 10).unwrap();
        s.enter_month(jan);
        s.handicap = 29.0;
        s.enter_month(NaiveDate::from_ymd_opt(2026, 1, 20).unwrap());
        assert_eq!(s.playing_handicap, 30.0);
        s.enter_month(NaiveDate::from_ymd_opt(2026, 2, 1).unwrap());
        assert_eq!(s.playing_handicap, 29.0);
    }

    #[test]
    fn months_are_consecutive_across_years() {
        let dec = NaiveDate::from_ymd_opt(2025, 12, 31).unwrap();
        let jan = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        assert_eq!(month_index(jan) - month_index(dec), 1);
    }
}
