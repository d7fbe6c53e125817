//! `bridgehcp player`: the flags of [`crate::job::player`], and the statement it prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::Failed;
use crate::job::player::{self as job, PlayerPlan};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp player 1042 --out-dir out/2026-11\n  \
bridgehcp player 1042 --out-dir out/2026-11 --data fed/ --html anna.html --csv anna.csv\n  \
bridgehcp player 1042 --data fed/ --state out/2026-10     # replays in memory, writes nothing\n\n\
Every rated competition of the run: date, title, club, partner, the pair's and the field's \
handicaps, expected and achieved (percentage points above 50 for matchpoints, IMPs per \
board for IMP scoring), boards played, the change and the handicap after. The changes add \
up to the difference between the first handicap shown and the current one; a change the \
cap (52) or the floor cut short shows the cut in its own column."
)]
pub struct PlayerArgs {
    /// The member's federation number.
    pub member_id: i64,
    /// A run's output folder (changes.parquet, handicaps.parquet, ...).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// The dataset: adds competition titles, clubs and the partners' printed names
    /// (default: the dataset the run's run.json names, when it is still there).
    /// Without --out-dir, the run is replayed in memory from it.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// With --data and no --out-dir: continue from a previous run's output folder.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Also write the statement as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write the statement as a self-contained HTML page with a trajectory plot.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Do not print the statement.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Builds the statement, prints it unless `--quiet`, and writes the files asked for.
pub fn command(args: &PlayerArgs) -> Result<ExitCode, Failed> {
    let plan = PlayerPlan {
        member_id: args.member_id,
        out_dir: args.out_dir.clone(),
        data: args.data.clone(),
        state: args.state.clone(),
        csv: args.csv.clone(),
        html: args.html.clone(),
    };
    let statement = job::execute(&plan).map_err(Failed::doing(format!(
        "statement of member {} failed",
        args.member_id
    )))?;
    if !args.quiet {
        print!(
            "{}",
            crate::dataset::text::neutralise(&statement.to_text(), true)
        );
    }
    Ok(ExitCode::SUCCESS)
}
