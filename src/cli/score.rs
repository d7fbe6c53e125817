//! `bridgehcp score`: the flags of [`crate::job::score`], and the line it prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::Failed;
use crate::job::score::{self as job, ScorePlan};
use crate::report::count;

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

impl ScoreArgs {
    pub fn plan(&self) -> ScorePlan {
        ScorePlan {
            files: self.files.clone(),
            data: self.data.clone(),
            out: self.out.clone(),
            strict: self.strict,
            state: self.state.clone(),
            start_list: self.start_list,
            factors: self.factors.clone(),
        }
    }
}

/// Scores and prints the start list (when asked for) and a line on what was written.
pub fn command(args: &ScoreArgs) -> Result<ExitCode, Failed> {
    let plan = args.plan();
    let summary = job::execute(&plan).map_err(|error| Failed {
        doing: plan
            .source()
            .map(|source| format!("scoring {source} failed")),
        error: Box::new(error),
    })?;
    if let Some(list) = &summary.start_list {
        print!("{list}");
    }
    let quarantined = match summary.quarantined {
        0 => String::new(),
        1 => ", 1 competition left out because it breaks a rule (see quarantine.csv)".into(),
        n => format!(", {n} competitions left out because they break a rule (see quarantine.csv)"),
    };
    println!(
        "bridgehcp score: {}, {}, {}{quarantined}; outputs in {}",
        count(summary.competitions, "competition", "competitions"),
        count(summary.standings, "standings row", "standings rows"),
        count(summary.board_scores, "board score", "board scores"),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
