//! `bridgehcp report`: the monthly report of a run, compared with the previous month's.

use std::path::PathBuf;

use clap::Args;

use crate::error::{Error, Result};
use crate::report::monthly::{self, Report, TextTable};
use crate::report::run_folder::{
    RunFolder, CORRECTIONS, QUARANTINE, RANKING_DIFF, REPORT_HTML, UNRATED,
};
use crate::report::run_tables::{read_import_log, read_text_table, RunTables};
use crate::store::files::{write_atomic, write_csv_rounded};

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

/// Reads the run (and the previous one), writes the page and the ranking diff.
pub fn execute(args: &ReportArgs) -> Result<(Report, PathBuf, PathBuf)> {
    let folder = RunFolder::open(&args.out_dir, "--out-dir")?;
    let current = RunTables::read(&folder)?;
    let previous = match &args.previous {
        Some(dir) => Some(RunTables::read(&RunFolder::open(dir, "--previous")?)?),
        None => None,
    };
    let mut tables = Vec::new();
    for name in [QUARANTINE, UNRATED, CORRECTIONS] {
        folder.check(name)?;
        match read_text_table(&folder.file(name))? {
            Some((header, rows)) => tables.push(TextTable {
                name: name.to_string(),
                header,
                rows,
            }),
            None if name == CORRECTIONS => {}
            None => tables.push(TextTable {
                name: format!("{name} (not in the folder)"),
                ..TextTable::default()
            }),
        }
    }
    let log = match args.data.clone().or_else(|| current.data.clone()) {
        Some(data) => read_import_log(&data)?,
        None => None,
    };
    let report = monthly::build(&current, previous.as_ref(), tables, args.top, args.movers)
        .with_import_log(log);
    let html_path = args
        .html
        .clone()
        .unwrap_or_else(|| args.out_dir.join(REPORT_HTML));
    let diff_path = args
        .diff
        .clone()
        .unwrap_or_else(|| args.out_dir.join(RANKING_DIFF));
    let diff = report
        .ranking_diff()
        .map_err(|e| Error::polars(diff_path.clone(), e))?;
    write_csv_rounded(&diff, &diff_path)?;
    let html = report.to_html(&args.title);
    write_atomic(&html_path, |out| {
        std::io::Write::write_all(out, html.as_bytes()).map_err(|e| Error::io(&html_path, e))
    })?;
    Ok((report, html_path, diff_path))
}
