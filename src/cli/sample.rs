//! `bridgehcp sample`: the flags of [`crate::job::sample`], and the line it prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::Failed;
use crate::job::sample::{self as job, SamplePlan};
use crate::report::count;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp sample --out data/sample            # the shipped sample\n  \
bridgehcp sample --out /tmp/big --members 50000 --months 60 --by-month\n  \
bridgehcp sample --out /tmp/big-results --members 50000 --months 60 --by-month --board-share 0\n  \
bridgehcp sample --out /tmp/drift --drift --months 36   # skill changes; writes true_skill.parquet"
)]
pub struct SampleArgs {
    /// Dataset folder to write.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Random seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of members; foreign guests (kind = foreign) are added beside them.
    #[arg(long)]
    pub members: Option<usize>,
    /// Number of months of competitions.
    #[arg(long)]
    pub months: Option<u32>,
    /// Skill that changes over time: newcomers improve, established players decline
    /// slowly, members start and stop, partnerships are less regular. Also writes the
    /// hidden skill per member and month to true_skill.parquet.
    #[arg(long)]
    pub drift: bool,
    /// Write one hive partition per month (`boards/month=YYYY-MM/part-0.parquet`, as
    /// `import` does) rather than one file per table. Either way the federation is
    /// generated and written a few months at a time: memory stays that of those months
    /// whatever the length of the history; and either way the competition index
    /// (`competition_index.parquet`) is written with the tables.
    #[arg(long)]
    pub by_month: bool,
    /// Share of events reported as board-level rows rather than results (default 0.6;
    /// 0 gives a federation reported as results only).
    #[arg(long, value_name = "SHARE")]
    pub board_share: Option<f64>,
}

/// Writes the sample and prints what it holds.
pub fn command(args: &SampleArgs) -> Result<ExitCode, Failed> {
    let plan = SamplePlan {
        out: args.out.clone(),
        seed: args.seed,
        members: args.members,
        months: args.months,
        drift: args.drift,
        by_month: args.by_month,
        board_share: args.board_share,
    };
    let summary = job::execute(&plan).map_err(Failed::doing(format!(
        "writing the sample to {} failed",
        args.out.display()
    )))?;
    println!(
        "bridgehcp sample: {} and {} (kind = foreign in members: they play as guests, with a temporary handicap), {} competitions, {} board rows, {} results in {}",
        count(summary.members, "member", "members"),
        count(summary.foreign, "foreign guest", "foreign guests"),
        summary.competitions,
        summary.board_rows,
        summary.results,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
