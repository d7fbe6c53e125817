//! `report`: the monthly report of a run, compared with the previous month's.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::report::monthly::{self, Report, TextTable};
use crate::report::run_folder::{
    RunFolder, CORRECTIONS, QUARANTINE, RANKING_DIFF, REPORT_HTML, UNRATED,
};
use crate::report::run_tables::{read_import_log, read_text_table, RunTables};
use crate::store::files::{write_atomic, write_csv_rounded};

/// Which run, compared with which, and where the page and the diff go.
#[derive(Debug, Clone)]
pub struct ReportPlan {
    /// The run's output folder.
    pub out_dir: PathBuf,
    /// The previous run's output folder.
    pub previous: Option<PathBuf>,
    /// Ranking lines shown (per group).
    pub top: usize,
    /// Members shown each way among the biggest movers.
    pub movers: usize,
    /// Where to write the page (`None`: the run's folder).
    pub html: Option<PathBuf>,
    /// Where to write the ranking's changes (`None`: the run's folder).
    pub diff: Option<PathBuf>,
    /// The dataset whose import log is shown (`None`: the one the run names).
    pub data: Option<PathBuf>,
    /// The federation's name in the title.
    pub title: String,
}

/// The report written, and where its page and diff are.
#[derive(Debug)]
pub struct Written {
    pub report: Report,
    pub html: PathBuf,
    pub diff: PathBuf,
}

/// Reads the run (and the previous one), writes the page and the ranking diff. Every
/// folder read is held shared: the page and the diff are files added to the run's
/// folder, each written atomically, and no run may replace the folder meanwhile.
pub fn execute(plan: &ReportPlan) -> Result<Written> {
    let mut folders = super::Folders::new().read_run(&plan.out_dir)?;
    if let Some(previous) = &plan.previous {
        folders = folders.read_run(previous)?;
    }
    let _locks = folders.lock()?;
    let folder = RunFolder::open(&plan.out_dir, "--out-dir")?;
    let current = RunTables::read(&folder)?;
    let previous = match &plan.previous {
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
    let log = match plan.data.clone().or_else(|| current.data.clone()) {
        Some(data) => {
            let _lock = super::Folders::new().read_dataset(&data)?.lock()?;
            read_import_log(&data)?
        }
        None => None,
    };
    let report = monthly::build(&current, previous.as_ref(), tables, plan.top, plan.movers)
        .with_import_log(log);
    let html_path = plan
        .html
        .clone()
        .unwrap_or_else(|| plan.out_dir.join(REPORT_HTML));
    let diff_path = plan
        .diff
        .clone()
        .unwrap_or_else(|| plan.out_dir.join(RANKING_DIFF));
    let diff = report
        .ranking_diff()
        .map_err(|e| Error::polars(diff_path.clone(), e))?;
    write_csv_rounded(&diff, &diff_path)?;
    let html = report.to_html(&plan.title);
    write_atomic(&html_path, |out| {
        std::io::Write::write_all(out, html.as_bytes()).map_err(|e| Error::io(&html_path, e))
    })?;
    Ok(Written {
        report,
        html: html_path,
        diff: diff_path,
    })
}
