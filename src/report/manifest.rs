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
use serde::Serialize;

use crate::pipeline::ranking::RankingGroup;
use crate::pipeline::{AppliedThrough, Mode, RunOutput, RunSettings};

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
}

#[derive(Debug, Serialize)]
pub struct Manifest {
    pub tool: Tool,
    pub inputs: Inputs,
    pub mode: &'static str,
    pub until: Option<NaiveDate>,
    pub strict: bool,
    /// Which result of a competition with table results and published results was
    /// rated: `published` or `recomputed`.
    pub rate: &'static str,
    pub ranking: Ranking,
    /// The filters of `ranking_published.csv`.
    pub published: Ranking,
    pub applied_through: Option<AppliedThrough>,
    /// How the content hashes of `applied.parquet` were taken.
    pub ledger_scheme: u32,
    /// `changes.parquet` and `standings.parquet` hold every competition since the start
    /// (a later run carries them on).
    pub whole_history: bool,
    /// When a continued run replayed the history from the start: why.
    pub replayed_from_start: Option<Replayed>,
    pub counts: Counts,
    /// SHA-256 of every file of the run's folder but this one.
    pub outputs: BTreeMap<String, String>,
    /// Seconds per stage: the only part of the folder that differs between two runs on
    /// the same inputs.
    pub timings: Timings,
}

#[derive(Debug, Serialize)]
pub struct Tool {
    pub name: &'static str,
    pub version: &'static str,
}

#[derive(Debug, Serialize)]
pub struct Inputs {
    pub data: Input,
    pub factors: FactorsInput,
    pub state: Option<Input>,
    pub pipeline: Option<Input>,
}

#[derive(Debug, Serialize)]
pub struct Input {
    pub path: String,
    pub sha256: String,
}

#[derive(Debug, Serialize)]
pub struct FactorsInput {
    pub name: String,
    /// The file it was read from; `None` for the built-in set.
    pub path: Option<String>,
    /// SHA-256 of the set's canonical TOML (every key, whatever the file's layout).
    pub sha256: String,
}

#[derive(Debug, Serialize)]
pub struct Ranking {
    pub min_boards: u64,
    pub active_months: Option<u32>,
    pub as_of: Option<NaiveDate>,
    pub by: Option<&'static str>,
}

#[derive(Debug, Serialize)]
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

#[derive(Debug, Serialize)]
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

#[derive(Debug, Serialize)]
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
        tool: Tool {
            name: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
        },
        inputs: Inputs {
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
        },
        mode: match settings.mode {
            Mode::Live => "live",
            Mode::Frozen => "frozen",
        },
        until: settings.until,
        strict: settings.on_error == crate::quarantine::OnError::Strict,
        rate: settings.rate.as_str(),
        ranking: Ranking {
            min_boards: settings.ranking.min_boards,
            active_months: settings.ranking.active_months,
            as_of: settings.ranking.as_of,
            by: settings.ranking.group_by.map(|g| match g {
                RankingGroup::Club => "club",
                RankingGroup::District => "district",
            }),
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
        replayed_from_start: output.replayed.as_ref().map(|d| Replayed {
            other_ledger_scheme: d.other_scheme.is_some(),
            partial_history: d.partial_history,
            changed: d.changed.clone(),
            added_late: d.late.clone(),
            removed: d.removed.clone(),
            members_with_another_start: d.members.clone(),
        }),
        counts: Counts {
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
        },
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

/// Whether a correction shows in print: handicaps are printed to two decimals, so a
/// member the state did not know, or one moved by at least half a hundredth, is listed;
/// smaller corrections are counted in `run.json` but not listed.
pub fn correction_shows(c: &crate::pipeline::Correction) -> bool {
    c.before.is_none_or(|b| (c.after - b).abs() >= 0.005)
}
