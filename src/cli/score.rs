//! `bridgehcp score`: score a dataset's table results (or club export files, imported on
//! the fly) without touching any handicap, and print the club's result sheet.

use std::path::PathBuf;

use clap::Args;

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::import::batch::{self, Status};
use crate::model::FactorSet;
use crate::quarantine::OnError;
use crate::report::scoring::{score_and_write, PlayingHandicaps, ReadRows};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp score --data fed/ --out scored/\n  \
bridgehcp score --data fed/ --out scored/ --strict     # fail on the first broken rule\n  \
bridgehcp score tuesday.pbn --out tuesday/              # a club file, imported on the fly\n  \
bridgehcp score handicap-cup.xml --out cup/ --state out/2026-10 --start-list\n\n\
Writes standings.parquet, board_scores.parquet and quarantine.csv, and the result sheet: \
standings.csv and results.html, with the players' names, totals and percentages rounded \
as the club's program prints them, ranked per direction when the movement has two \
winners, and for a Swiss pairs event rounds.csv (a line per round for each pair). A \
handicap tournament is ranked by the handicap result (the result minus the \
one expected from the pairs' playing handicaps), the raw result beside it. The playing \
handicaps come from --state (a run's output folder); without it every member has the \
starting handicap."
)]
pub struct ScoreArgs {
    /// Club export files (PBN or USEBIO, told apart by content) to score without a
    /// dataset: they are imported into a temporary one first.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Dataset folder (or one club export file, as if given as FILE).
    #[arg(long, value_name = "DIR|FILE")]
    pub data: Option<PathBuf>,
    /// Output folder for standings.parquet, board_scores.parquet, quarantine.csv,
    /// standings.csv and results.html.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Stop at the first error instead of leaving the competition out (quarantine.csv).
    #[arg(long)]
    pub strict: bool,
    /// A run's output folder whose playing handicaps rank handicap tournaments and fill
    /// the start list.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Print each entrant's expected result from the playing handicaps (percentage for
    /// matchpoints, IMPs per board otherwise) and write it to start_list.csv.
    #[arg(long)]
    pub start_list: bool,
    /// The factor set of the playing handicaps (the one the --state run used; default:
    /// the built-in fsb-2007).
    #[arg(long, value_name = "FILE")]
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

impl ScoreArgs {
    /// Where the command reads from, for messages; `None` when it was given nothing.
    pub fn source(&self) -> Option<String> {
        match (&self.data, self.files.first()) {
            (Some(data), _) => Some(data.display().to_string()),
            (None, Some(file)) if self.files.len() == 1 => Some(file.display().to_string()),
            (None, Some(_)) => Some(format!("{} files", self.files.len())),
            (None, None) => None,
        }
    }
}

/// The dataset to score: opened from `--data` (its board files are then read a file at
/// a time while scoring), or imported from the files given.
fn dataset(args: &ScoreArgs, on_error: OnError) -> Result<(Dataset, Option<ReadRows>)> {
    // `--data FILE.pbn` is the club's file, as if given without the flag.
    if let (Some(file), true) = (&args.data, args.files.is_empty()) {
        if file.is_file() {
            let files = ScoreArgs {
                files: vec![file.clone()],
                data: None,
                out: args.out.clone(),
                strict: args.strict,
                state: args.state.clone(),
                start_list: args.start_list,
                factors: args.factors.clone(),
            };
            return dataset(&files, on_error);
        }
    }
    match (&args.data, args.files.is_empty()) {
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
        (None, false) => {
            let files = batch::expand(&args.files)?;
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
            Ok((imported.dataset, None))
        }
        (Some(_), false) => Err(Error::Config(
            "give either export files or --data DIR, not both".into(),
        )),
        (None, true) => Err(Error::Config(
            "nothing to score: give club export files (FILE.pbn, FILE.xml) or --data DIR".into(),
        )),
    }
}

/// The playing handicaps (a handicap tournament's, a start list's) need the members, a
/// factor set and, with `--state`, a previous run's handicaps; scoring does not.
fn playing_handicaps(args: &ScoreArgs, dataset: &Dataset) -> Result<Option<PlayingHandicaps>> {
    let wanted = args.start_list || dataset.competitions.iter().any(|c| c.handicap_event);
    if !wanted {
        return Ok(None);
    }
    let factors = match &args.factors {
        Some(path) => crate::import::factors::load(path)?,
        None => FactorSet::default(),
    };
    PlayingHandicaps::read(&dataset.members, factors, args.state.as_deref()).map(Some)
}

/// Scores the dataset, held to the same rules as `run`: a competition that breaks one is
/// left out and listed in `quarantine.csv`, or with `--strict` stops the command.
pub fn execute(args: &ScoreArgs) -> Result<ScoreSummary> {
    let on_error = if args.strict {
        OnError::Strict
    } else {
        OnError::Quarantine
    };
    let (dataset, reader) = dataset(args, on_error)?;
    let handicaps = playing_handicaps(args, &dataset)?;
    let outcome = score_and_write(
        dataset,
        reader,
        handicaps.as_ref(),
        on_error,
        args.start_list,
        &args.out,
    )?;
    Ok(ScoreSummary {
        competitions: outcome.competitions,
        standings: outcome.standings,
        board_scores: outcome.board_scores,
        quarantined: outcome.quarantined,
        start_list: outcome.start_list,
    })
}
