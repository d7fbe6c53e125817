//! `bridgehcp score`: score a dataset's table results (or club export files, imported on
//! the fly) without touching any handicap, and print the club's result sheet.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::import::batch::{self, Status};
use crate::import::table::BoardReader;
use crate::model::FactorSet;
use crate::pipeline::score::{score_source, HandicapInputs};
use crate::pipeline::{replay, InMemory, Registry};
use crate::quarantine::{OnError, Quarantine};
use crate::report::sheet;

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
    /// Dataset folder.
    #[arg(long, value_name = "DIR")]
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
    /// Where the command reads from, for messages.
    pub fn source(&self) -> String {
        match (&self.data, self.files.first()) {
            (Some(data), _) => data.display().to_string(),
            (None, Some(file)) if self.files.len() == 1 => file.display().to_string(),
            (None, Some(_)) => format!("{} files", self.files.len()),
            (None, None) => "nothing".into(),
        }
    }
}

/// The dataset to score: opened from `--data` (its board files are then read a file at
/// a time while scoring), or imported from the files given.
fn dataset(args: &ScoreArgs, on_error: OnError) -> Result<(Dataset, Option<BoardReader>)> {
    match (&args.data, args.files.is_empty()) {
        (Some(dir), true) => {
            let opened = crate::import::table::open_checked(dir, on_error)?;
            Ok((opened.head, Some(opened.boards)))
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
fn playing_handicaps(
    args: &ScoreArgs,
    dataset: &Dataset,
) -> Result<Option<(Registry, FactorSet, Vec<crate::pipeline::PlayerState>)>> {
    let wanted = args.start_list || dataset.competitions.iter().any(|c| c.handicap_event);
    if !wanted {
        return Ok(None);
    }
    let registry = Registry::new(&dataset.members);
    let factors = match &args.factors {
        Some(path) => crate::import::factors::load(path)?,
        None => FactorSet::default(),
    };
    let states = match &args.state {
        Some(dir) => {
            let previous = crate::report::previous_run::load(dir)?;
            let sha256 = crate::pipeline::ledger::factor_hash(&factors);
            if previous.record.factors_sha256 != sha256 {
                return Err(Error::Config(format!(
                    "--state {} was made with factor set `{}`, the playing handicaps are read with `{}`: pass the file of `{}` with --factors",
                    dir.display(),
                    previous.record.factors,
                    factors.name,
                    previous.record.factors,
                )));
            }
            previous.states_for(&registry, &factors)?
        }
        None => registry.starting_states(&factors)?,
    };
    Ok(Some((registry, factors, states)))
}

/// Scores the dataset, held to the same rules as `run`: a competition that breaks one is
/// left out and listed in `quarantine.csv`, or with `--strict` stops the command.
pub fn execute(args: &ScoreArgs) -> Result<ScoreSummary> {
    let on_error = if args.strict {
        OnError::Strict
    } else {
        OnError::Quarantine
    };
    let (mut dataset, reader) = dataset(args, on_error)?;
    let handicaps = playing_handicaps(args, &dataset)?;
    let start_list = args.start_list;
    let wanted = |c: &crate::dataset::Competition| c.handicap_event || start_list;
    let inputs = handicaps
        .as_ref()
        .map(|(registry, factors, _)| HandicapInputs {
            registry,
            factors,
            wanted: &wanted,
        });
    let (mut scored, mut quarantine) = match reader {
        Some(mut reader) => score_source(&dataset, &mut reader, inputs.as_ref(), &|_| {})?,
        None => {
            let mut in_memory = InMemory {
                boards: &dataset.boards,
                quarantine: Quarantine::default(),
            };
            score_source(&dataset, &mut in_memory, inputs.as_ref(), &|_| {})?
        }
    };
    if !quarantine.is_empty() {
        let kept = |id: &String| !quarantine.contains(id);
        dataset.competitions.retain(|c| kept(&c.competition_id));
        dataset.entrants.retain(|e| kept(&e.competition_id));
        dataset.results.retain(|r| kept(&r.competition_id));
    }
    let dataset = &dataset;
    if let Some(error) = scored
        .quarantined
        .first()
        .and_then(|q| q.reasons.first())
        .filter(|_| on_error == OnError::Strict)
    {
        return Err(error.clone().into());
    }
    quarantine.extend(std::mem::take(&mut scored.quarantined));
    let quarantined = quarantine.into_sorted();

    // Expected results from the playing handicaps: handicap tournaments and start lists.
    let mut expected: HashMap<(String, String), (f64, f64)> = HashMap::new();
    let mut start_lines: Vec<(String, String, f64, bool)> = Vec::new();
    if let Some((_, factors, states)) = &handicaps {
        for competition in &scored.rated {
            if !(competition.handicap_event || args.start_list) {
                continue;
            }
            let Ok(results) = replay::handicap_results(factors, competition, states) else {
                continue;
            };
            let imps = competition.input.method == crate::model::CalcMethod::Imp;
            for (entrant, exp, adjusted) in results {
                let Some(name) = competition.entrant_names.get(entrant) else {
                    continue;
                };
                let key = (competition.competition_id.clone(), name.clone());
                if competition.handicap_event {
                    expected.insert(key.clone(), (exp, adjusted));
                }
                if args.start_list {
                    start_lines.push((key.0, key.1, exp, imps));
                }
            }
        }
    }
    let lines = sheet::lines(dataset, &scored.standings, &expected);
    let sheet_frame = sheet::frame(&lines).map_err(|e| Error::polars("standings.csv", e))?;
    let sheet_html = sheet::html(&lines);
    let rounds = sheet::rounds_frame(&lines).map_err(|e| Error::polars("rounds.csv", e))?;
    let mut start_list = None;
    let mut start_frame = None;
    if args.start_list {
        let names = sheet::entrant_names(dataset);
        let mut text = String::from("competition  entrant  expected  names\n");
        let mut rows = Vec::new();
        for (id, entrant, exp, imps) in &start_lines {
            let shown = if *imps {
                format!("{exp:+.2} IMP/board")
            } else {
                format!("{:.2} %", 50.0 + exp)
            };
            let who = names
                .get(&(id.as_str(), entrant.as_str()))
                .cloned()
                .unwrap_or_default();
            let _ = writeln!(text, "{id}  {entrant}  {shown}  {who}");
            rows.push((id.clone(), entrant.clone(), who, *exp, *imps));
        }
        start_frame = Some(
            crate::report::frame::FrameBuilder::new(rows.len())
                .map("competition_id", &rows, |r| r.0.clone())
                .map("entrant", &rows, |r| r.1.clone())
                .map("names", &rows, |r| r.2.clone())
                .map("expected_percent", &rows, |r| {
                    (!r.4).then(|| sheet::round_to(50.0 + r.3, 2))
                })
                .map("expected_imps_per_board", &rows, |r| {
                    r.4.then(|| sheet::round_to(r.3, 2))
                })
                .build()
                .map_err(|e| Error::polars("start_list.csv", e))?,
        );
        start_list = Some(text);
    }
    crate::report::outputs::write_scored(
        &args.out,
        &scored.standings,
        &scored.board_scores,
        &quarantined,
        &crate::report::outputs::ScoreSheet {
            handicap: &expected,
            standings: &sheet_frame,
            results_html: &sheet_html,
            start_list: start_frame.as_ref(),
            rounds: rounds.as_ref(),
        },
    )?;
    Ok(ScoreSummary {
        competitions: dataset.competitions.len(),
        standings: scored.standings.len(),
        board_scores: scored.board_scores.len(),
        quarantined: quarantined.len(),
        start_list,
    })
}
