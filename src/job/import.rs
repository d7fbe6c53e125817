//! `import`: club scoring programs' exports added to a dataset, as its next version.

use std::path::PathBuf;

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::import::batch::{self, Batch, ExportKind, Status};
use crate::store::import_log::{self, LogRow};

/// What to import, and into which dataset.
#[derive(Debug, Clone)]
pub struct ImportPlan {
    /// The exports' format (`None`: each file by its content).
    pub kind: Option<ExportKind>,
    /// Export files, or folders (every .pbn and .xml file below them).
    pub files: Vec<PathBuf>,
    /// The dataset folder written, or added to.
    pub out: PathBuf,
    /// Write what imported even when some files were refused.
    pub keep_going: bool,
    /// The federation's register of members.
    pub members: Option<PathBuf>,
    /// Refuse a file whose recomputed results differ from its program's.
    pub strict: bool,
}

/// What an import did.
#[derive(Debug, Clone)]
pub struct ImportSummary {
    pub batch: Batch,
    pub files: usize,
    /// False when nothing was written (refusals without `--keep-going`, or no change).
    pub written: bool,
}

/// Imports the files into the dataset at `plan.out`, held exclusively (after a killed
/// import is recovered), and writes the next version in one step; every file's fate
/// goes to `import-report.csv` and the dataset's import log, written or not.
pub fn execute(plan: &ImportPlan) -> Result<ImportSummary> {
    if plan.out.join(crate::report::run_folder::MANIFEST).exists() {
        return Err(Error::Config(format!(
            "{} is a run's output folder (it holds run.json), not a dataset: import into the \
             dataset folder that `run --data` reads",
            plan.out.display()
        )));
    }
    let files = batch::expand(&plan.files)?;
    let kind = plan.kind;
    refuse_working_folder(&plan.out)?;
    let out = crate::store::commit::named_folder(&plan.out);
    let _lock = super::Folders::new().replace_dataset(&out)?.lock()?;
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
    let register = match &plan.members {
        Some(path) => Some(batch::Register::new(
            &crate::store::table::read_members_file(path)?,
        )),
        None => None,
    };
    let batch = batch::import_batch(existing, &files, kind, register.as_ref(), plan.strict);
    for entry in &batch.entries {
        if entry.status != Status::Imported {
            let line = format!("{}: {}", entry.status.as_str(), entry.describe());
            eprintln!("{}", crate::dataset::text::neutralise(&line, false));
        }
    }
    std::fs::create_dir_all(&plan.out).map_err(|e| Error::io(&plan.out, e))?;
    let refused = batch.count(Status::Refused);
    let outcome = if refused > 0 && !plan.keep_going {
        Err(Error::Config(format!(
            "{refused} of {} refused (listed above and in {}); nothing was imported. \
             Fix or remove them, or pass --keep-going to import the rest",
            crate::report::count(files.len(), "file", "files"),
            plan.out.join(REPORT).display()
        )))
    } else {
        write(&batch, &out, &log)
    };
    let written = matches!(outcome, Ok(true));
    if !written {
        // The dataset is as it was: the report and the log say so on their own.
        let rows = import_log::rows_of(&batch.entries, 0, "", false);
        crate::store::files::write_csv(&import_log::report_frame(&rows)?, &plan.out.join(REPORT))?;
        import_log::write(
            &plan.out,
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
        let report = import_log::report_frame(&import_log::rows_of(&batch.entries, 0, "", true))?;
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
            super::hooks::test_commit(),
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
