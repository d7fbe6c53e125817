//! `bridgehcp import`: the flags of [`crate::job::import`], and the line it prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::Failed;
use crate::import::batch::{ExportKind, Status};
use crate::job::import::{self as job, ImportPlan};
use crate::report::count;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// PBN 2.x (Ruter and other programs), ISO-8859-1 or UTF-8.
    Pbn,
    /// USEBIO 1.2 XML (Compscore and other programs).
    Usebio,
    /// Each file by its content: XML is USEBIO, anything else PBN.
    Auto,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp import pbn results/*.pbn --out fed/\n  \
bridgehcp import usebio monday.xml tuesday.xml --out club/\n  \
bridgehcp import auto incoming/2026-11/ --out fed/ --keep-going\n  \
bridgehcp import auto incoming/2026-11/ --out fed/ --members register.csv\n\n\
Into an existing dataset folder the files are added: one partition per month \
(competitions/month=2026-11/...), a competition imported again unchanged is skipped, \
one with other results replaces the earlier version (a correction), and the same \
session under another header is kept once; the same session sent again with other \
results replaces the earlier one. The files are taken in date order, whatever the order \
given. Every file's fate is listed in DIR/import-report.csv, and every import's rows are \
appended to DIR/import_log.parquet and DIR/import_log.csv. A run's output folder (with \
run.json) is refused."
)]
pub struct ImportArgs {
    /// The exports' format.
    #[arg(value_enum)]
    pub format: ExportFormat,
    /// Export files, or folders (every .pbn and .xml file below them).
    #[arg(required = true, value_name = "FILE", value_parser = existing_path)]
    pub files: Vec<PathBuf>,
    /// Dataset folder to write, or to add to when it already holds a dataset.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write what imported even when some files were refused (and exit 0); the refused
    /// files are still listed. Without it a batch with a refused file writes nothing
    /// but the report and fails.
    #[arg(long)]
    pub keep_going: bool,
    /// The federation's register of members (CSV or Parquet with `member_id`, `name`,
    /// optionally `club` and `district`): a number in it is that member, with the
    /// register's name, club and district (another printed name is reported as
    /// `name_differs`); a number not in it is reported and imported as a non-member.
    #[arg(long, value_name = "REGISTER", value_parser = existing_path)]
    pub members: Option<PathBuf>,
    /// Refuse a file whose recomputed results differ from the figures its program
    /// printed (status `mismatch`), instead of importing it with the difference reported.
    #[arg(long)]
    pub strict: bool,
}

/// A path given to `import` that must exist: a mistyped folder (`incoming/2018-13/`)
/// is a usage error before anything is read or written, not a refused file the
/// dataset's log would keep and the month's report list.
fn existing_path(text: &str) -> std::result::Result<PathBuf, String> {
    let path = PathBuf::from(text);
    if path.exists() {
        Ok(path)
    } else {
        Err("no such file or folder (nothing was written)".to_owned())
    }
}

impl ImportArgs {
    pub fn plan(&self) -> ImportPlan {
        ImportPlan {
            kind: match self.format {
                ExportFormat::Pbn => Some(ExportKind::Pbn),
                ExportFormat::Usebio => Some(ExportKind::Usebio),
                ExportFormat::Auto => None,
            },
            files: self.files.clone(),
            out: self.out.clone(),
            keep_going: self.keep_going,
            members: self.members.clone(),
            strict: self.strict,
        }
    }
}

/// Imports and prints a line counting every file's fate.
pub fn command(args: &ImportArgs) -> Result<ExitCode, Failed> {
    let summary = job::execute(&args.plan()).map_err(Failed::doing("import failed"))?;
    let b = &summary.batch;
    println!(
        "bridgehcp import: {}: {} imported, {}, {} unchanged, {}, {} refused; {} mismatched (imported, but not what their program printed: see import-report.csv); {}",
        files_and_competitions(summary.files, b),
        b.count(Status::Imported),
        count(b.count(Status::Correction), "correction", "corrections"),
        b.count(Status::Unchanged),
        count(b.count(Status::Duplicate), "duplicate", "duplicates"),
        b.count(Status::Refused),
        b.count(Status::Mismatch),
        if summary.written {
            format!("dataset in {}", args.out.display())
        } else {
            "nothing to write".to_string()
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// `3 files`, or `2 files, 3 competitions` when a file held more than one competition:
/// the counts that follow add up to the last figure.
fn files_and_competitions(files: usize, batch: &crate::import::batch::Batch) -> String {
    let outcomes = batch
        .entries
        .iter()
        .filter(|e| e.status.is_outcome())
        .count();
    let files_text = count(files, "file", "files");
    if outcomes == files {
        files_text
    } else {
        format!(
            "{files_text}, {}",
            count(outcomes, "competition", "competitions")
        )
    }
}
