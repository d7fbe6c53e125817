//! `bridgehcp report`: the flags of [`crate::job::report`], and the line it prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::Failed;
use crate::job::report::{self as job, ReportPlan};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp report --out-dir out/2026-11 --previous out/2026-10\n  \
bridgehcp report --out-dir out --top 50 --html /tmp/report.html\n\n\
Writes report.html (activity over the months, handicap distribution, the spread of the \
month's changes, the month's refused and mismatched files from the dataset's import log, \
the month's biggest movers, new members, the ranking's top N with the change since --previous, quarantined and unrated competitions and \
corrections, and per club: members, active players and mean handicap) and \
ranking_diff.csv (every ranking line with its previous rank and handicap) into the run's \
folder. The month is the month of the run's last competition; active players played in \
the 12 months up to its end."
)]
pub struct ReportArgs {
    /// The run's output folder.
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
    /// The previous run's output folder (last month), for the changes since then.
    #[arg(long, value_name = "DIR")]
    pub previous: Option<PathBuf>,
    /// Ranking lines shown (per group when ranked by club or district).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
    /// Members shown each way among the biggest movers.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub movers: usize,
    /// Where to write the page (default: OUT_DIR/report.html).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Where to write the ranking's changes (default: OUT_DIR/ranking_diff.csv).
    #[arg(long, value_name = "FILE")]
    pub diff: Option<PathBuf>,
    /// The dataset whose import_log.parquet lists the month's refused and mismatched
    /// files (default: the dataset the run's run.json names; no section without a log).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// The federation's name in the title.
    #[arg(long, value_name = "TEXT", default_value = "Handicap report")]
    pub title: String,
}

/// Writes the report and prints a line on it.
pub fn command(args: &ReportArgs) -> Result<ExitCode, Failed> {
    let plan = ReportPlan {
        out_dir: args.out_dir.clone(),
        previous: args.previous.clone(),
        top: args.top,
        movers: args.movers,
        html: args.html.clone(),
        diff: args.diff.clone(),
        data: args.data.clone(),
        title: args.title.clone(),
    };
    let written = job::execute(&plan).map_err(Failed::doing(format!(
        "report on {} failed",
        args.out_dir.display()
    )))?;
    let report = &written.report;
    println!(
        "bridgehcp report: {} members, {} ranked, {} new; {} and {}",
        report.members,
        report.ranking.iter().filter(|r| r.rank.is_some()).count(),
        report.new_members.len(),
        written.html.display(),
        written.diff.display()
    );
    Ok(ExitCode::SUCCESS)
}
