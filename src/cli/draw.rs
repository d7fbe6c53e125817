//! `bridgehcp draw`: the flags of [`crate::job::draw`], and the tables it prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::Failed;
use crate::job::draw::{self as job, DrawPlan};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp draw --data congress/                    # round 1 (no boards yet) or the next round\n  \
bridgehcp draw --data congress/ --competition swiss-2026-03-07 --seed 17 --csv round.csv\n\n\
Prints the next round's tables of a swiss_pairs competition: round 1 seated at random \
from --seed when the dataset has no board rows for it yet; after round n, round n+1 on \
the single-field Swiss principle from the standings (VPs, then IMPs, then the pair's \
number): the top pair left meets the next pair below it that it has not met, backtracking \
when that would leave the last pairs with a repeat. An odd entry needs a house pair \
(entrants.house), which is drawn like any other pair."
)]
pub struct DrawArgs {
    /// Dataset folder holding the Swiss pairs event (its entrants and the rounds played).
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// The competition to draw (needed when the dataset has more than one swiss_pairs
    /// competition).
    #[arg(long, value_name = "ID")]
    pub competition: Option<String>,
    /// Seed of round 1's random seating.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Also write the tables as CSV (round, table, ns, ew, ns_names, ew_names).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
}

/// Draws and prints the round's tables.
pub fn command(args: &DrawArgs) -> Result<ExitCode, Failed> {
    let plan = DrawPlan {
        data: args.data.clone(),
        competition: args.competition.clone(),
        seed: args.seed,
        csv: args.csv.clone(),
    };
    let drawn = job::execute(&plan).map_err(Failed::doing(format!(
        "drawing from {} failed",
        args.data.display()
    )))?;
    print!("{}", drawn.text);
    Ok(ExitCode::SUCCESS)
}
