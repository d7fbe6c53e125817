//! `score`: a dataset's table results (or club export files, imported on the fly)
//! scored without touching any handicap, with the club's result sheet.

use std::path::{Path, PathBuf};

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::import::batch::{self, Status};
use crate::model::FactorSet;
use crate::quarantine::OnError;
use crate::report::scoring::{score_and_write, PlayingHandicaps, ReadRows};

/// What to score and where to write it.
#[derive(Debug, Clone)]
pub struct ScorePlan {
    /// Club export files to import on the fly (none with `data`).
    pub files: Vec<PathBuf>,
    /// A dataset folder (or one club export file, as if given in `files`).
    pub data: Option<PathBuf>,
    pub out: PathBuf,
    pub strict: bool,
    /// A run's output folder whose playing handicaps rank handicap tournaments.
    pub state: Option<PathBuf>,
    pub start_list: bool,
    /// The factor set of the playing handicaps (`None`: the built-in one).
    pub factors: Option<PathBuf>,
}

/// What `score` did.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreSummary {
    pub competitions: usize,
    pub standings: usize,
    pub board_scores: usize,
    /// Competitions left out because they break a rule.
    pub quarantined: usize,
    /// The start list, when asked for.
    pub start_list: Option<String>,
}

impl ScorePlan {
    /// Where the command reads from, for messages; `None` when it was given nothing.
    pub fn source(&self) -> Option<String> {
        match (&self.data, self.files.first()) {
            (Some(data), _) => Some(data.display().to_string()),
            (None, Some(file)) if self.files.len() == 1 => Some(file.display().to_string()),
            (None, Some(_)) => Some(format!("{} files", self.files.len())),
            (None, None) => None,
        }
    }

    /// The dataset folder read, if any: `--data FILE.pbn` is the club's file, as if
    /// given without the flag.
    fn folder(&self) -> Option<&Path> {
        self.data
            .as_deref()
            .filter(|data| !(self.files.is_empty() && data.is_file()))
    }

    /// The club files imported on the fly.
    fn club_files(&self) -> Vec<PathBuf> {
        match (&self.data, self.files.is_empty()) {
            (Some(file), true) if file.is_file() => vec![file.clone()],
            _ => self.files.clone(),
        }
    }
}

/// The dataset to score: opened from the folder (its board files are then read a file
/// at a time while scoring), or imported from the files given.
fn dataset(plan: &ScorePlan, on_error: OnError) -> Result<(Dataset, Option<ReadRows>)> {
    let files = plan.club_files();
    match (plan.folder(), files.is_empty()) {
        (Some(dir), true) => {
            let (opened, entrants, results) = crate::store::table::open_partitions_compact(
                dir,
                on_error,
                &crate::store::table::Partitions::All,
                &crate::pipeline::NoProgress,
            )?;
            let read = ReadRows {
                boards: opened.boards,
                entrants,
                results,
            };
            Ok((opened.head, Some(read)))
        }
        (None, false) => imported(&files).map(|dataset| (dataset, None)),
        (Some(_), false) => Err(Error::Config(
            "give either export files or --data DIR, not both".into(),
        )),
        (None, true) => Err(Error::Config(
            "nothing to score: give club export files (FILE.pbn, FILE.xml) or --data DIR".into(),
        )),
    }
}

/// Club files imported into a dataset in memory; one that is refused stops the
/// command.
fn imported(files: &[PathBuf]) -> Result<Dataset> {
    let files = batch::expand(files)?;
    let imported = batch::import_batch(Dataset::default(), &files, None, None, false);
    if let Some(refused) = imported.refused().next() {
        return Err(Error::Config(format!(
            "{} cannot be scored: {}",
            refused.file.display(),
            refused.describe()
        )));
    }
    for entry in imported
        .entries
        .iter()
        .filter(|e| e.status != Status::Imported)
    {
        eprintln!("{}: {}", entry.status.as_str(), entry.describe());
    }
    Ok(imported.dataset)
}

/// The playing handicaps (a handicap tournament's, a start list's) need the members, a
/// factor set and, with a state, a previous run's handicaps; scoring does not.
fn playing_handicaps(plan: &ScorePlan, dataset: &Dataset) -> Result<Option<PlayingHandicaps>> {
    let wanted = plan.start_list || dataset.competitions.iter().any(|c| c.handicap_event);
    if !wanted {
        return Ok(None);
    }
    let factors = match &plan.factors {
        Some(path) => crate::import::factors::load(path)?,
        None => FactorSet::default(),
    };
    PlayingHandicaps::read(&dataset.members, factors, plan.state.as_deref()).map(Some)
}

/// Scores the dataset, held to the same rules as `run`: a competition that breaks one is
/// left out and listed in `quarantine.csv`, or when strict stops the command. The
/// dataset and the state are held shared while they are read, the output folder
/// exclusively.
pub fn execute(plan: &ScorePlan) -> Result<ScoreSummary> {
    let on_error = if plan.strict {
        OnError::Strict
    } else {
        OnError::Quarantine
    };
    let mut folders = super::Folders::new();
    if let Some(dir) = plan.folder() {
        folders = folders.read_dataset(dir)?;
    }
    if let Some(state) = &plan.state {
        folders = folders.read_run(state)?;
    }
    let _locks = folders.write_into(&plan.out).lock()?;
    let (dataset, reader) = dataset(plan, on_error)?;
    let handicaps = playing_handicaps(plan, &dataset)?;
    let outcome = score_and_write(
        dataset,
        reader,
        handicaps.as_ref(),
        on_error,
        plan.start_list,
        &plan.out,
    )?;
    Ok(ScoreSummary {
        competitions: outcome.competitions,
        standings: outcome.standings,
        board_scores: outcome.board_scores,
        quarantined: outcome.quarantined,
        start_list: outcome.start_list,
    })
}
