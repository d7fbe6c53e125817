//! `bridgehcp import`: club scoring programs' exports to a dataset.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use polars::prelude::{Column, DataFrame};

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::import::batch::{self, Batch, ExportKind, Status};

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
session under another header is kept once. Every file's fate is listed in \
DIR/import-report.csv."
)]
pub struct ImportArgs {
    /// The exports' format.
    #[arg(value_enum)]
    pub format: ExportFormat,
    /// Export files, or folders (every .pbn and .xml file below them).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Dataset folder to write, or to add to when it already holds a dataset.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write what imported even when some files were refused (and exit 0); the refused
    /// files are still listed. Without it a batch with a refused file writes nothing
    /// but the report and fails.
    #[arg(long)]
    pub keep_going: bool,
    /// The federation's register of members (CSV or Parquet with `member_id` and
    /// `name`): a number not in it, or whose name disagrees, is reported and imported as
    /// a non-member.
    #[arg(long, value_name = "REGISTER")]
    pub members: Option<PathBuf>,
}

/// What an import did.
#[derive(Debug, Clone)]
pub struct ImportSummary {
    pub batch: Batch,
    pub files: usize,
    /// False when nothing was written (refusals without `--keep-going`, or no change).
    pub written: bool,
}

pub fn execute(args: &ImportArgs) -> Result<ImportSummary> {
    let files = batch::expand(&args.files)?;
    let kind = match args.format {
        ExportFormat::Pbn => Some(ExportKind::Pbn),
        ExportFormat::Usebio => Some(ExportKind::Usebio),
        ExportFormat::Auto => None,
    };
    refuse_working_folder(&args.out)?;
    let out = crate::report::dataset_commit::named_folder(&args.out);
    for found in crate::report::dataset_commit::recover_dataset(&out)? {
        eprintln!("{found}");
    }
    let _lock = crate::report::dataset_commit::DatasetLock::exclusive(&out)?;
    let existing = existing_dataset(&out)?;
    let register = match &args.members {
        Some(path) => Some(batch::Register::new(
            &crate::import::table::read_members_file(path)?,
        )),
        None => None,
    };
    let batch = batch::import_batch(existing, &files, kind, register.as_ref());
    for entry in &batch.entries {
        if entry.status != Status::Imported {
            let line = format!("{}: {}", entry.status.as_str(), entry.describe());
            eprintln!("{}", crate::dataset::text::neutralise(&line, false));
        }
    }
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    crate::report::files::write_csv(&report_frame(&batch)?, &args.out.join("import-report.csv"))?;
    let refused = batch.count(Status::Refused);
    if refused > 0 && !args.keep_going {
        return Err(Error::Config(format!(
            "{refused} of {} files refused (listed above and in {}); nothing was imported. \
             Fix or remove them, or pass --keep-going to import the rest",
            files.len(),
            args.out.join("import-report.csv").display()
        )));
    }
    crate::import::validate::validate(&batch.dataset)?;
    let mut months: std::collections::BTreeSet<String> = batch
        .dataset
        .competitions
        .iter()
        .filter(|c| batch.changed.contains(&c.competition_id))
        .map(crate::report::dataset_writer::month_of)
        .collect();
    months.extend(
        batch
            .replaced
            .iter()
            .map(crate::report::dataset_writer::month_of),
    );
    let legacy = crate::report::dataset_writer::has_single_file_tables(&args.out);
    let written = !batch.dataset.competitions.is_empty() && (!months.is_empty() || legacy);
    if written {
        crate::report::dataset_writer::write_months(
            &batch.dataset,
            &out,
            &months,
            legacy,
            crate::cli::run::test_commit(),
        )?;
    }
    Ok(ImportSummary {
        files: files.len(),
        batch,
        written,
    })
}

/// An import puts the next version of the dataset folder in the folder's place, so a
/// shell working inside it would be left in the removed previous version (empty, its
/// files gone from view). Refused, with the command to use instead.
fn refuse_working_folder(out: &std::path::Path) -> Result<()> {
    let (Ok(here), Ok(full)) = (std::env::current_dir(), std::fs::canonicalize(out)) else {
        return Ok(());
    };
    if !here.starts_with(&full) {
        return Ok(());
    }
    let name = full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| full.display().to_string());
    Err(Error::Config(format!(
        "--out {}: the command runs inside the dataset folder, which an import replaces by its next version in one step (so that a killed import never leaves half of one); run it from outside, e.g. `cd {} && bridgehcp import ... --out {name}`",
        out.display(),
        full.parent().map_or_else(|| "/".into(), |p| p.display().to_string())
    )))
}

/// The dataset already in `dir`, or an empty one when `dir` holds none.
fn existing_dataset(dir: &std::path::Path) -> Result<Dataset> {
    let has_members = ["members.parquet", "members.csv", "members"]
        .iter()
        .any(|name| dir.join(name).exists());
    if has_members {
        crate::import::table::read_dataset(dir)
    } else {
        Ok(Dataset::default())
    }
}

/// `import-report.csv`: one row per file (per competition of a file).
fn report_frame(batch: &Batch) -> Result<DataFrame> {
    let e = &batch.entries;
    let text = |values: Vec<Option<String>>, name: &str| Column::new(name.into(), values);
    DataFrame::new_infer_height(vec![
        text(
            e.iter()
                .map(|x| Some(x.file.display().to_string()))
                .collect(),
            "file",
        ),
        text(
            e.iter()
                .map(|x| Some(x.status.as_str().to_string()))
                .collect(),
            "status",
        ),
        text(
            e.iter().map(|x| x.competition_id.clone()).collect(),
            "competition_id",
        ),
        Column::new(
            "line".into(),
            e.iter()
                .map(|x| x.line.and_then(|l| i64::try_from(l).ok()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "board".into(),
            e.iter().map(|x| x.board).collect::<Vec<_>>(),
        ),
        text(e.iter().map(|x| x.column.clone()).collect(), "column"),
        text(e.iter().map(|x| Some(x.reason.clone())).collect(), "reason"),
    ])
    .map_err(|err| Error::polars("import-report.csv", err))
}
