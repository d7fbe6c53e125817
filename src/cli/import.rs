//! `bridgehcp import`: club scoring programs' exports to a dataset.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use polars::prelude::{Column, DataFrame};

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::import::batch::{self, Batch, ExportKind, Status};
use crate::store::import_log::{self, LogRow};

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

/// What an import did.
#[derive(Debug, Clone)]
pub struct ImportSummary {
    pub batch: Batch,
    pub files: usize,
    /// False when nothing was written (refusals without `--keep-going`, or no change).
    pub written: bool,
}

pub fn execute(args: &ImportArgs) -> Result<ImportSummary> {
    if args.out.join(crate::report::run_folder::MANIFEST).exists() {
        return Err(Error::Config(format!(
            "{} is a run's output folder (it holds run.json), not a dataset: import into the \
             dataset folder that `run --data` reads",
            args.out.display()
        )));
    }
    let files = batch::expand(&args.files)?;
    let kind = match args.format {
        ExportFormat::Pbn => Some(ExportKind::Pbn),
        ExportFormat::Usebio => Some(ExportKind::Usebio),
        ExportFormat::Auto => None,
    };
    refuse_working_folder(&args.out)?;
    let out = crate::store::commit::named_folder(&args.out);
    for found in crate::store::commit::recover_dataset(&out)? {
        eprintln!("{found}");
    }
    let _lock = crate::store::commit::DatasetLock::exclusive(&out)?;
    // Read first: a log that cannot be read stops the import before anything changes.
    let (log, note) = import_log::read_noting(&out)?;
    if let Some(note) = note {
        eprintln!("{note}");
    }
    let existing = existing_dataset(&out)?;
    if log.is_empty() && !existing.competitions.is_empty() {
        eprintln!(
            "import log: {} holds a dataset but neither {} nor {}: a new log starts at batch 1",
            out.display(),
            import_log::PARQUET,
            import_log::CSV
        );
    }
    let register = match &args.members {
        Some(path) => Some(batch::Register::new(
            &crate::store::table::read_members_file(path)?,
        )),
        None => None,
    };
    let batch = batch::import_batch(existing, &files, kind, register.as_ref(), args.strict);
    for entry in &batch.entries {
        if entry.status != Status::Imported {
            let line = format!("{}: {}", entry.status.as_str(), entry.describe());
            eprintln!("{}", crate::dataset::text::neutralise(&line, false));
        }
    }
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let refused = batch.count(Status::Refused);
    let outcome = if refused > 0 && !args.keep_going {
        Err(Error::Config(format!(
            "{refused} of {} refused (listed above and in {}); nothing was imported. \
             Fix or remove them, or pass --keep-going to import the rest",
            crate::report::count(files.len(), "file", "files"),
            args.out.join(REPORT).display()
        )))
    } else {
        write(&batch, &out, &log)
    };
    let written = matches!(outcome, Ok(true));
    if !written {
        // The dataset is as it was: the report and the log say so on their own.
        let rows = import_log::rows_of(&batch.entries, 0, "", false);
        crate::store::files::write_csv(&report_frame(&rows)?, &args.out.join(REPORT))?;
        import_log::write(
            &args.out,
            &import_log::with_batch(log, &batch.entries, false),
        )?;
    }
    outcome?;
    Ok(ImportSummary {
        files: files.len(),
        batch,
        written,
    })
}

/// The report of the last import, beside the dataset.
const REPORT: &str = "import-report.csv";

/// Writes the months the batch changed, and with them, in the same version of the
/// folder, the import's report and the log `log` with the batch added: the dataset
/// and its log change together or not at all. False when there was nothing to write.
fn write(batch: &Batch, out: &std::path::Path, log: &[LogRow]) -> Result<bool> {
    crate::import::validate::validate(&batch.dataset)?;
    let mut months: std::collections::BTreeSet<String> = batch
        .dataset
        .competitions
        .iter()
        .filter(|c| batch.changed.contains(&c.competition_id))
        .map(crate::store::writer::month_of)
        .collect();
    months.extend(batch.replaced.iter().map(crate::store::writer::month_of));
    let legacy = crate::store::writer::has_single_file_tables(out);
    let written = !batch.dataset.competitions.is_empty() && (!months.is_empty() || legacy);
    if written {
        let logged = import_log::with_batch(log.to_vec(), &batch.entries, true);
        let report = report_frame(&import_log::rows_of(&batch.entries, 0, "", true))?;
        let write_beside = |staging: &std::path::Path| -> Result<()> {
            crate::store::files::write_csv(&report, &staging.join(REPORT))?;
            import_log::write(staging, &logged)
        };
        let beside = crate::store::writer::Beside {
            names: &[REPORT, import_log::PARQUET, import_log::CSV],
            write: &write_beside,
        };
        crate::store::writer::write_months_with(
            &batch.dataset,
            out,
            &months,
            legacy,
            crate::cli::run::test_commit(),
            Some(&beside),
        )?;
    }
    Ok(written)
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
        crate::store::table::read_dataset(dir)
    } else {
        Ok(Dataset::default())
    }
}

/// `import-report.csv`: one row per file (per competition of a file), and one per note.
fn report_frame(rows: &[LogRow]) -> Result<DataFrame> {
    let text = |name: &str, value: &dyn Fn(&LogRow) -> Option<String>| {
        Column::new(name.into(), rows.iter().map(value).collect::<Vec<_>>())
    };
    DataFrame::new_infer_height(vec![
        text("file", &|r| Some(r.file.clone())),
        text("status", &|r| Some(r.status.clone())),
        text("competition_id", &|r| r.competition_id.clone()),
        Column::new(
            "line".into(),
            rows.iter().map(|r| r.line).collect::<Vec<_>>(),
        ),
        Column::new(
            "board".into(),
            rows.iter()
                .map(|r| r.board.and_then(|b| u32::try_from(b).ok()))
                .collect::<Vec<_>>(),
        ),
        text("column", &|r| r.column.clone()),
        text("reason", &|r| Some(r.reason.clone())),
    ])
    .map_err(|err| Error::polars("import-report.csv", err))
}
