//! `run.json`: what a run read, how it was set, what it did, and what it wrote.
//!
//! A month's published handicaps must be traceable to the exact dataset, factor set
//! and state that produced them, long after the run; and the next run must be able to
//! tell that the folder it continues is whole. So the manifest records content hashes
//! of every input (the dataset's is of its rows, not its files, so re-partitioning
//! changes nothing) and of every file the run wrote, and a continued run checks the
//! files it reads against them. Everything in it except `timings` is the same for two
//! runs on the same inputs, so that the run's files are byte-identical run to run; the
//! timings are kept apart, in their own object, and are the only part that varies.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::pipeline::ranking::RankingGroup;
use crate::pipeline::{AppliedThrough, Mode, Rate, RunOutput, RunSettings};

/// What the command line knows of the inputs: their paths, and the hashes of those the
/// pipeline does not see (a run definition file, the state).
#[derive(Debug, Clone, Default)]
pub struct RunInputs {
    pub data: PathBuf,
    pub factors: Option<PathBuf>,
    /// The previous run's folder and the hash of its state files.
    pub state: Option<(PathBuf, String)>,
    /// The run definition and the SHA-256 of its text.
    pub pipeline: Option<(PathBuf, String)>,
    /// The previous run's carried tables, when a continued run started reading them
    /// ahead (the history's `Prefetch`).
    pub carried: Option<std::sync::Arc<dyn ReadAhead>>,
}

/// Tables of a previous run's folder read (and checked) ahead of the writing. The
/// folder's layout is this module's; who reads ahead, and how, is the history's.
pub trait ReadAhead: std::fmt::Debug + Send + Sync {
    /// The bytes of table `name` of `folder`, when they were read ahead and not yet
    /// taken.
    fn take(&self, folder: &Path, name: &str) -> Option<crate::error::Result<super::CheckedFile>>;
}

/// `run.json`, written by a run and read back by every command that opens its folder.
///
/// The same type goes both ways, so the file cannot say one thing and be read as
/// another. Older versions wrote fewer keys: what a later version added is read with
/// its default (said at each field), and what a continued run cannot do without (the
/// mode, the factor set, the files' hashes) is required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    #[serde(default)]
    pub tool: Tool,
    pub inputs: Inputs,
    #[serde(with = "ModeName")]
    pub mode: Mode,
    #[serde(default)]
    pub until: Option<NaiveDate>,
    #[serde(default)]
    pub strict: bool,
    /// Which result of a competition with table results and published results was
    /// rated. Absent: before the choice existed, when only the recomputed one could be,
    /// which is the published one wherever a run accepted both.
    #[serde(default)]
    pub rate: Rate,
    #[serde(default)]
    pub ranking: Ranking,
    /// The filters of `ranking_published.csv`.
    #[serde(default)]
    pub published: Ranking,
    #[serde(default)]
    pub applied_through: Option<AppliedThrough>,
    /// How the content hashes of `applied.parquet` were taken (absent, 0: before
    /// schemes were numbered).
    #[serde(default)]
    pub ledger_scheme: u32,
    /// `changes.parquet` and `standings.parquet` hold every competition since the start
    /// (a later run carries them on). Absent: they hold the run's own only.
    #[serde(default)]
    pub whole_history: bool,
    /// `non_members.csv` and `unrated.csv` hold every competition since the start, as
    /// `changes.parquet` does. Absent: they hold the run's own only.
    #[serde(default)]
    pub whole_lists: bool,
    /// When a continued run replayed the history from the start: why.
    #[serde(default)]
    pub replayed_from_start: Option<Replayed>,
    #[serde(default)]
    pub counts: Counts,
    /// SHA-256 of every file of the run's folder but this one.
    pub outputs: BTreeMap<String, String>,
    /// Seconds per stage: the only part of the folder that differs between two runs on
    /// the same inputs.
    #[serde(default)]
    pub timings: Timings,
}

/// How `run.json` spells the mode (the pipeline's [`Mode`] knows no file format).
#[derive(Serialize, Deserialize)]
#[serde(remote = "Mode", rename_all = "lowercase")]
enum ModeName {
    Live,
    Frozen,
}

impl Manifest {
    /// The manifest as `run.json` holds it: pretty-printed, with a final newline.
    pub fn to_json(&self) -> serde_json::Result<String> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        Ok(text)
    }

    /// Reads `run.json`'s text.
    pub fn from_json(text: &str) -> serde_json::Result<Manifest> {
        serde_json::from_str(text)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    #[serde(default)]
    pub data: Input,
    pub factors: FactorsInput,
    #[serde(default)]
    pub state: Option<Input>,
    #[serde(default)]
    pub pipeline: Option<Input>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub path: String,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactorsInput {
    pub name: String,
    /// The file it was read from; `None` for the built-in set.
    #[serde(default)]
    pub path: Option<String>,
    /// SHA-256 of the set's canonical TOML (every key, whatever the file's layout).
    pub sha256: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    pub min_boards: u64,
    pub active_months: Option<u32>,
    pub as_of: Option<NaiveDate>,
    pub by: Option<RankingGroup>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Replayed {
    /// The state's hashes were taken by another version: every competition was taken
    /// as possibly changed.
    pub other_ledger_scheme: bool,
    /// The state's changes and standings were its own month's only.
    pub partial_history: bool,
    pub changed: Vec<String>,
    pub added_late: Vec<String>,
    pub removed: Vec<String>,
    pub members_with_another_start: Vec<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    pub competitions_applied: usize,
    pub competitions_unrated: usize,
    pub competitions_not_rated: usize,
    pub competitions_quarantined: usize,
    pub competitions_already_applied: usize,
    pub competitions_corrected: usize,
    pub members_moved: usize,
    pub members_corrected: usize,
    /// Of `members_corrected`, those moved by less than the printed precision, not
    /// listed in `corrections.csv`.
    pub members_corrected_below_print: usize,
    pub members_new: usize,
    pub non_members_seen: usize,
    pub changes: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Timings {
    pub reading_s: f64,
    pub hashing_s: f64,
    pub scoring_s: f64,
    pub replaying_s: f64,
    pub writing_s: f64,
    pub total_s: f64,
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// The manifest of a run whose other files hash to `outputs`.
pub fn manifest(
    output: &RunOutput,
    settings: &RunSettings,
    inputs: &RunInputs,
    outputs: BTreeMap<String, String>,
) -> Manifest {
    let s = &output.summary;
    let seconds = |d: std::time::Duration| (d.as_secs_f64() * 1000.0).round() / 1000.0;
    Manifest {
        tool: Tool::default(),
        inputs: inputs_of(output, settings, inputs),
        mode: settings.mode,
        until: settings.until,
        strict: settings.on_error == crate::quarantine::OnError::Strict,
        rate: settings.rate,
        ranking: Ranking {
            min_boards: settings.ranking.min_boards,
            active_months: settings.ranking.active_months,
            as_of: settings.ranking.as_of,
            by: settings.ranking.group_by,
        },
        published: Ranking {
            min_boards: settings.published.min_boards,
            active_months: settings.published.active_months,
            as_of: settings.published.as_of,
            by: None,
        },
        applied_through: output.applied_through.clone(),
        ledger_scheme: crate::pipeline::ledger::SCHEME,
        whole_history: true,
        whole_lists: true,
        replayed_from_start: output.replayed.as_ref().map(|d| Replayed {
            other_ledger_scheme: d.other_scheme.is_some(),
            partial_history: d.partial_history,
            changed: d.changed.clone(),
            added_late: d.late.clone(),
            removed: d.removed.clone(),
            members_with_another_start: d.members.clone(),
        }),
        counts: counts_of(output),
        outputs,
        timings: Timings {
            reading_s: seconds(s.reading),
            hashing_s: seconds(s.hashing),
            scoring_s: seconds(s.scoring),
            replaying_s: seconds(s.replaying),
            writing_s: seconds(s.writing),
            total_s: seconds(s.elapsed),
        },
    }
}

/// The run's inputs: paths and hashes.
fn inputs_of(output: &RunOutput, settings: &RunSettings, inputs: &RunInputs) -> Inputs {
    Inputs {
        data: Input {
            path: display(&inputs.data),
            sha256: output.dataset_sha256.clone(),
        },
        factors: FactorsInput {
            name: settings.factors.name.clone(),
            path: inputs.factors.as_deref().map(display),
            sha256: output.factors_sha256.clone(),
        },
        state: inputs.state.as_ref().map(|(path, hash)| Input {
            path: display(path),
            sha256: hash.clone(),
        }),
        pipeline: inputs.pipeline.as_ref().map(|(path, hash)| Input {
            path: display(path),
            sha256: hash.clone(),
        }),
    }
}

/// What the run did, counted.
fn counts_of(output: &RunOutput) -> Counts {
    let s = &output.summary;
    Counts {
        competitions_applied: s.competitions_applied,
        competitions_unrated: s.competitions_unrated,
        competitions_not_rated: s.competitions_not_rated,
        competitions_quarantined: s.competitions_quarantined,
        competitions_already_applied: s.competitions_skipped,
        competitions_corrected: s.competitions_corrected,
        members_moved: s.members_moved,
        members_corrected: s.members_corrected,
        members_corrected_below_print: output
            .corrections
            .iter()
            .filter(|c| !correction_shows(c))
            .count(),
        members_new: s.members_new,
        non_members_seen: s.non_members_seen,
        changes: s.changes,
    }
}

/// Whether a correction shows in print: handicaps are printed to two decimals, so a
/// member the state did not know, or one moved by at least half a hundredth, is listed;
/// smaller corrections are counted in `run.json` but not listed.
pub fn correction_shows(c: &crate::pipeline::Correction) -> bool {
    c.before.is_none_or(|b| (c.after - b).abs() >= 0.005)
}
