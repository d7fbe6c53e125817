//! Continuing a previous run.
//!
//! The monthly run keeps its output folder; the next month's run reads the members'
//! handicaps and counters from its `handicaps.parquet` and the last competition it applied
//! from its `run.toml`, and applies only what came after. Handicaps are stored as
//! float64, so nothing is lost between runs and January-then-February equals
//! January–February in one run, to the bit.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use polars::prelude::*;
use serde::{Deserialize, Serialize};

use crate::dataset::{Competition, MemberId};
use crate::error::{Error, InputError, Location, Result};
use crate::model::FactorSet;

use super::prepare::PreparedCompetition;
use super::state::{month_index, PlayerState, Registry};

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

fn column<'a>(df: &'a DataFrame, name: &str, file: &Path) -> Result<&'a Column> {
    df.column(name).map_err(|_| {
        Error::Input(InputError::new(
            Location::file(file).column(name),
            "required column is missing",
        ))
    })
}

impl PreviousRun {
    /// Reads `handicaps.parquet` and `run.toml` from a previous run's output folder.
    pub fn load(folder: &Path) -> Result<PreviousRun> {
        let record_path = folder.join("run.toml");
        let text = std::fs::read_to_string(&record_path).map_err(|e| Error::io(&record_path, e))?;
        let record: RunRecord = toml::from_str(&text).map_err(|e| {
            Error::Input(InputError::new(Location::file(&record_path), e.to_string()))
        })?;

        let path = folder.join("handicaps.parquet");
        let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
        let df = ParquetReader::new(file)
            .finish()
            .map_err(|e| Error::polars(&path, e))?;
        let wrong = |name: &'static str| {
            let path = path.clone();
            move |e: PolarsError| {
                Error::Input(InputError::new(
                    Location::file(&path).column(name),
                    format!("wrong type: {e}"),
                ))
            }
        };
        let ids = column(&df, "member_id", &path)?
            .i64()
            .map_err(wrong("member_id"))?;
        let handicap = column(&df, "handicap", &path)?
            .f64()
            .map_err(wrong("handicap"))?;
        let topscore = column(&df, "handicap_topscore", &path)?
            .f64()
            .map_err(wrong("handicap_topscore"))?;
        let imp = column(&df, "handicap_imp", &path)?
            .f64()
            .map_err(wrong("handicap_imp"))?;
        let boards = column(&df, "boards", &path)?
            .i64()
            .map_err(wrong("boards"))?;
        let competitions = column(&df, "competitions", &path)?
            .i64()
            .map_err(wrong("competitions"))?;
        let last = column(&df, "last_played", &path)?
            .date()
            .map_err(wrong("last_played"))?;
        let playing = column(&df, "playing_handicap", &path)?
            .f64()
            .map_err(wrong("playing_handicap"))?;
        let playing_month = column(&df, "playing_month", &path)?
            .date()
            .map_err(wrong("playing_month"))?;

        let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
        let to_date = |days: Option<i32>| {
            days.and_then(|d| epoch.checked_add_signed(chrono::Duration::days(i64::from(d))))
        };
        let mut states = HashMap::with_capacity(df.height());
        for row in 0..df.height() {
            let bad = |name: &str| {
                Error::Input(InputError::new(
                    Location::file(&path).row(row + 1).column(name),
                    "value is missing or not finite",
                ))
            };
            let id = ids.get(row).ok_or_else(|| bad("member_id"))?;
            let h = handicap
                .get(row)
                .filter(|h| h.is_finite())
                .ok_or_else(|| bad("handicap"))?;
            let state = PlayerState {
                handicap: h,
                handicap_topscore: topscore.get(row).unwrap_or(h),
                handicap_imp: imp.get(row).unwrap_or(h),
                boards: boards.get(row).unwrap_or(0).max(0) as u64,
                competitions: competitions.get(row).unwrap_or(0).max(0) as u64,
                last_played: to_date(last.physical().get(row)),
                playing_month: to_date(playing_month.physical().get(row)).map(month_index),
                playing_handicap: playing.get(row).unwrap_or(h),
            };
            states.insert(id, state);
        }
        Ok(PreviousRun {
            folder: folder.to_path_buf(),
            applied_through: record.applied_through.clone(),
            record,
            states,
        })
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
