//! Continuing a previous run.
//!
//! The monthly run keeps its output folder; the next month's run reads the members'
//! handicaps and counters from its `handicaps.parquet`, the competitions it took into
//! account from its `applied.parquet` and its settings from `run.json`, and applies
//! only what came after. Reading those files is the edge's job
//! (`report::run_folder`); this module holds what the replay needs of them and the
//! checks that keep a run from continuing a state it does not follow from (another
//! factor set, mode or dataset). Handicaps are stored as
//! float64, so nothing is lost between runs and January-then-February equals
//! January–February in one run, to the bit.

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::dataset::{Competition, MemberId};
use crate::error::{Error, Result};
use crate::model::FactorSet;

use super::ledger::{Difference, Entry};
use super::prepare::PreparedCompetition;
use super::replay::Mode;
use super::state::{PlayerState, Registry};
use super::RunSettings;

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

/// What a continued run needs of the previous run's manifest (`run.json`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The factor set's name and content hash ([`super::ledger::factor_hash`]).
    pub factors: String,
    pub factors_sha256: String,
    pub mode: Mode,
    /// Which result the run rated (`--rate`).
    pub rate: super::Rate,
    pub applied_through: Option<AppliedThrough>,
    /// How the ledger's hashes were taken ([`super::ledger::SCHEME`]).
    pub ledger_scheme: u32,
}

/// A previous run's state.
#[derive(Debug, Clone)]
pub struct PreviousRun {
    pub folder: PathBuf,
    pub record: RunRecord,
    pub applied_through: Option<AppliedThrough>,
    /// Every competition up to the last one it replayed, with its content hash.
    pub ledger: Vec<Entry>,
    /// A hash of the state's own files, recorded in this run's manifest.
    pub sha256: String,
    states: HashMap<MemberId, PlayerState>,
    /// The handicap each member started from (`handicaps.parquet`'s
    /// `starting_handicap`), to tell a changed members row.
    starts: HashMap<MemberId, f64>,
    /// The state's changes and standings cover its own run only, not the whole history
    /// (an older version wrote it): continuing it would leave the history incomplete.
    pub partial_history: bool,
}

/// How to start afresh, the end of every refusal to continue.
const AFRESH: &str =
    "to start afresh, run without --state (every competition is replayed from the start)";

impl PreviousRun {
    /// A previous run's record, ledger and the members' states it left, read from
    /// `folder` by the caller (see `report::run_folder`).
    pub fn new(
        folder: PathBuf,
        record: RunRecord,
        ledger: Vec<Entry>,
        sha256: String,
        states: HashMap<MemberId, PlayerState>,
    ) -> PreviousRun {
        PreviousRun {
            folder,
            applied_through: record.applied_through.clone(),
            record,
            ledger,
            sha256,
            states,
            starts: HashMap::new(),
            partial_history: false,
        }
    }

    /// Marks a state whose changes and standings are not the whole history.
    pub fn with_partial_history(mut self, partial: bool) -> PreviousRun {
        self.partial_history = partial;
        self
    }

    /// The starting handicaps the previous run recorded.
    pub fn with_starts(mut self, starts: HashMap<MemberId, f64>) -> PreviousRun {
        self.starts = starts;
        self
    }

    /// Members of `registry` whose starting handicap (from `starting`, in registry
    /// order) differs from the one the previous run started them from: their
    /// masterpoints or `start_handicap` were changed in the members table.
    pub fn changed_starts(&self, registry: &Registry, starting: &[PlayerState]) -> Vec<MemberId> {
        registry
            .members
            .iter()
            .zip(starting)
            .filter(|(m, s)| {
                self.starts
                    .get(&m.member_id)
                    .is_some_and(|h| h.to_bits() != s.handicap.to_bits())
            })
            .map(|(m, _)| m.member_id)
            .collect()
    }

    /// Refuses to continue with another factor set (by content, not only by name),
    /// another mode, or up to a date before the one the state reached.
    pub fn check(&self, settings: &RunSettings, factors_sha256: &str) -> Result<()> {
        let folder = self.folder.display();
        let record = &self.record;
        if record.factors_sha256 != factors_sha256 {
            let same_name = if record.factors == settings.factors.name {
                " (same name, other contents)"
            } else {
                ""
            };
            return Err(Error::Config(format!(
                "--state {folder} was made with factor set `{}` (sha256 {}), this run uses `{}` (sha256 {}){same_name}: a continued run must use the same factor set; {AFRESH}",
                record.factors,
                short(&record.factors_sha256),
                settings.factors.name,
                short(factors_sha256),
            )));
        }
        if settings.factors.familiarity.is_some() {
            // The state's files keep each member's handicap and counters, not how many
            // sessions each pair has played together, which the set's expected results
            // read: continuing would start every pair as new.
            return Err(Error::Config(format!(
                "factor set `{}` has a [familiarity] term, which needs every pair's sessions together since the first competition; the state in --state {folder} does not keep them: {AFRESH}",
                settings.factors.name,
            )));
        }
        if record.mode != settings.mode {
            return Err(Error::Config(format!(
                "--state {folder} was run in {} mode, this run is in {} mode: a continued run must use the same mode; {AFRESH}",
                record.mode,
                settings.mode,
            )));
        }
        if record.rate != settings.rate {
            return Err(Error::Config(format!(
                "--state {folder} rated the {} results, this run rates the {} ones (--rate): a continued run must rate the same; {AFRESH}",
                record.rate.as_str(),
                settings.rate.as_str(),
            )));
        }
        if let (Some(until), Some(through)) = (settings.until, &self.applied_through) {
            if until < through.date {
                return Err(Error::Config(format!(
                    "--until {until} is before {}, the date of the last competition --state {folder} applied (`{}`): a continued run cannot go back; {AFRESH}",
                    through.date, through.competition_id,
                )));
            }
        }
        Ok(())
    }

    /// Refuses a dataset that is not the one the state was made from: fewer than half
    /// of the competitions the state recorded are in it (by id; a corrected competition
    /// keeps its id, another federation's history shares none).
    pub fn check_same_dataset(&self, difference: &Difference) -> Result<()> {
        let recorded = self.ledger.len();
        let found = difference.unchanged + difference.changed.len();
        if recorded > 0 && found * 2 < recorded {
            return Err(Error::Config(format!(
                "--state {} was made from another dataset: of the {recorded} competitions it recorded, {found} are in this dataset ({} of them with other results) and {} are missing; {AFRESH}",
                self.folder.display(),
                difference.changed.len(),
                difference.removed.len(),
            )));
        }
        Ok(())
    }

    /// The handicap the previous run left for `member`, if it knew the member.
    pub fn handicap_of(&self, member: MemberId) -> Option<f64> {
        self.states.get(&member).map(|s| s.handicap)
    }

    /// Whether the previous run knew `member`.
    pub fn knows(&self, member: MemberId) -> bool {
        self.states.contains_key(&member)
    }

    /// The state of every member of `registry`: as left by the previous run, or the
    /// starting state for members it did not know.
    pub fn states_for(&self, registry: &Registry, factors: &FactorSet) -> Result<Vec<PlayerState>> {
        let mut states = registry.starting_states(factors)?;
        for (member, state) in registry.members.iter().zip(states.iter_mut()) {
            if let Some(previous) = self.states.get(&member.member_id) {
                *state = previous.clone();
            }
        }
        Ok(states)
    }
}

/// The first 12 hex digits of a hash, enough to tell two apart in a message.
fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}
