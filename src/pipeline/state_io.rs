//! Continuing a previous run.
//!
//! The monthly run keeps its output folder; the next month's run reads the members'
//! handicaps and counters from its `handicaps.parquet` and the last competition it applied
//! from its `run.toml`, and applies only what came after. Reading those files is the
//! edge's job (`import::previous_run`); this module holds what the replay needs of them. Handicaps are stored as
//! float64, so nothing is lost between runs and January-then-February equals
//! January–February in one run, to the bit.

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::dataset::{Competition, MemberId};
use crate::error::{Error, Result};
use crate::model::FactorSet;

use super::prepare::PreparedCompetition;
use super::state::{PlayerState, Registry};

/// The last competition a run applied, in replay order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedThrough {
    pub date: NaiveDate,
    pub session: i32,
    pub competition_id: String,
}

impl AppliedThrough {
    pub fn of(competition: &PreparedCompetition) -> Self {
        AppliedThrough {
            date: competition.date,
            session: competition.session,
            competition_id: competition.competition_id.clone(),
        }
    }

    /// True when `competition` comes after this one in replay order.
    pub fn is_before(&self, competition: &Competition) -> bool {
        (self.date, self.session, self.competition_id.as_str()) < competition.order_key()
    }
}

/// `run.toml`: what a run did, so that the next run can continue it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    pub factors: String,
    pub mode: String,
    pub competitions_applied: usize,
    pub applied_through: Option<AppliedThrough>,
}

/// A previous run's state.
#[derive(Debug, Clone)]
pub struct PreviousRun {
    pub folder: PathBuf,
    pub record: RunRecord,
    pub applied_through: Option<AppliedThrough>,
    states: HashMap<MemberId, PlayerState>,
}

impl PreviousRun {
    /// A previous run's record and the members' states it left, read from `folder` by
    /// the caller (see `import::previous_run`).
    pub fn new(
        folder: PathBuf,
        record: RunRecord,
        states: HashMap<MemberId, PlayerState>,
    ) -> PreviousRun {
        PreviousRun {
            folder,
            applied_through: record.applied_through.clone(),
            record,
            states,
        }
    }

    /// The state of every member of `registry`: as left by the previous run, or the
    /// starting state for members it did not know.
    pub fn states_for(&self, registry: &Registry, factors: &FactorSet) -> Result<Vec<PlayerState>> {
        if self.record.factors != factors.name {
            return Err(Error::Config(format!(
                "{}: the previous run used factor set `{}`, this run uses `{}`",
                self.folder.join("run.toml").display(),
                self.record.factors,
                factors.name
            )));
        }
        let mut states = registry.starting_states(factors)?;
        for (member, state) in registry.members.iter().zip(states.iter_mut()) {
            if let Some(previous) = self.states.get(&member.member_id) {
                *state = previous.clone();
            }
        }
        Ok(states)
    }
}
