//! The dataset's import log: every file of every import, kept.
//!
//! `import-report.csv` answers "what did this import do"; the officer's month also asks
//! "what was refused or corrected since the last run", across several imports, and a
//! federation has to be able to show later when a competition entered its dataset. So
//! each import appends its report lines to `import_log.parquet` (and the same rows to
//! `import_log.csv` for a spreadsheet) with a batch number and the time, and never
//! rewrites earlier batches. It is the one file of a dataset folder that depends on the
//! history of imports rather than on the competitions held: byte-for-byte comparisons of
//! datasets leave it out.

use std::path::Path;

use polars::prelude::{Column, DataFrame};

use crate::error::{Error, Result};
use crate::import::batch::{Entry, Status};
use crate::store::columns;

/// The log's Parquet file in a dataset folder.
pub const PARQUET: &str = "import_log.parquet";
/// The same rows as CSV.
pub const CSV: &str = "import_log.csv";

/// One row of the log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRow {
    pub batch: i64,
    /// UTC, RFC 3339 to the second: `2026-11-24T07:05:42Z`.
    pub imported_at: String,
    pub file: String,
    pub status: String,
    pub competition_id: Option<String>,
    /// `YYYY-MM` of the session's date (a refused file: its header's); empty when not
    /// even that can be read.
    pub month: Option<String>,
    pub line: Option<i64>,
    pub board: Option<i64>,
    pub column: Option<String>,
    pub reason: String,
}

/// The report lines as written to the log. When the batch wrote nothing, a line that
/// says `imported` or `correction` would be false: it becomes `not_written`.
pub fn rows_of(entries: &[Entry], batch: i64, imported_at: &str, written: bool) -> Vec<LogRow> {
    entries
        .iter()
        .map(|e| {
            let (status, reason) = match e.status {
                Status::Imported | Status::Correction if !written => (
                    Status::NotWritten,
                    format!(
                        "would be {}; the batch wrote nothing{}",
                        e.status.as_str(),
                        if e.reason.is_empty() {
                            String::new()
                        } else {
                            format!(" ({})", e.reason)
                        }
                    ),
                ),
                status => (status, e.reason.clone()),
            };
            LogRow {
                batch,
                imported_at: imported_at.to_string(),
                file: e.file.display().to_string(),
                status: status.as_str().to_string(),
                competition_id: e.competition_id.clone(),
                month: e.month.clone(),
                line: e.line.and_then(|l| i64::try_from(l).ok()),
                board: e.board.map(i64::from),
                column: e.column.clone(),
                reason,
            }
        })
        .collect()
}

/// The log already in `dir` (empty when there is none); see [`read_noting`].
pub fn read(dir: &Path) -> Result<Vec<LogRow>> {
    read_noting(dir).map(|(rows, _)| rows)
}

/// The log already in `dir`, from `import_log.parquet`; rebuilt from `import_log.csv`
/// when the Parquet file is missing or cannot be read, with a note that says so. Empty
/// only when neither file is there: a log is never started again from nothing while a
/// part of it survives, since the next import would write its batch 1 over the
/// history. When neither file can be read, the log is refused, naming both, before
/// the import writes anything.
pub fn read_noting(dir: &Path) -> Result<(Vec<LogRow>, Option<String>)> {
    let (parquet, csv) = (dir.join(PARQUET), dir.join(CSV));
    let why = if parquet.exists() {
        match read_parquet_log(&parquet) {
            Ok(rows) => return Ok((rows, None)),
            Err(e) => format!("cannot be read ({e})"),
        }
    } else if csv.exists() {
        "is missing".to_owned()
    } else {
        return Ok((Vec::new(), None));
    };
    let rebuilt = if csv.exists() {
        read_csv_log(&csv)
    } else {
        Err(Error::Config("is missing".to_owned()))
    };
    match rebuilt {
        Ok(rows) => {
            let note = format!(
                "import log: {} {why}; rebuilt from {} ({} lines, batches 1 to {})",
                parquet.display(),
                csv.display(),
                rows.len(),
                next_batch(&rows) - 1
            );
            Ok((rows, Some(note)))
        }
        Err(e) => Err(Error::Config(format!(
            "the import log cannot be read: {} {why}, and {} {}; the log keeps every import's lines and is not started again from nothing: restore either file (from a backup), or move both aside to start a new log. Nothing was imported",
            parquet.display(),
            csv.display(),
            match e {
                Error::Config(missing) if missing == "is missing" => missing,
                e => format!("cannot be read ({e})"),
            }
        ))),
    }
}

/// The rows of `import_log.parquet`.
fn read_parquet_log(path: &Path) -> Result<Vec<LogRow>> {
    let df = crate::store::table::guarded(path, || columns::read_parquet(path))??;
    log_rows(&df, path)
}

/// The rows of `import_log.csv`, as [`write_csv`](crate::store::files::write_csv) wrote
/// them: a text cell it marked with `'` so that a spreadsheet would not run it as a
/// formula is read without the mark.
fn read_csv_log(path: &Path) -> Result<Vec<LogRow>> {
    use polars::prelude::{DataType, IntoColumn, NamedFrom, Series};
    let text = columns::read_csv_text(path)?;
    let mut read = Vec::with_capacity(text.width());
    for column in text.columns() {
        let values = column
            .str()
            .map_err(|e| Error::polars(path, e))?
            .iter()
            .map(|cell| cell.map(unmarked))
            .collect::<Vec<_>>();
        let series = Series::new(column.name().clone(), values);
        let series = match column.name().as_str() {
            "batch" | "line" | "board" => series
                .strict_cast(&DataType::Int64)
                .map_err(|e| Error::polars(path, e))?,
            _ => series,
        };
        read.push(series.into_column());
    }
    let df = DataFrame::new_infer_height(read).map_err(|e| Error::polars(path, e))?;
    log_rows(&df, path)
}

/// A CSV cell without the `'` that marks text a spreadsheet would take for a formula.
fn unmarked(cell: &str) -> String {
    match cell.strip_prefix('\'') {
        Some(rest) if crate::store::files::neutralise_formula(rest) != rest => rest.to_owned(),
        _ => cell.to_owned(),
    }
}

/// The log's rows from its frame (read from either file).
fn log_rows(df: &DataFrame, path: &Path) -> Result<Vec<LogRow>> {
    let batch = columns::i64s(df, path, "batch")?;
    let imported_at = columns::strs(df, path, "imported_at")?;
    let file = columns::strs(df, path, "file")?;
    let status = columns::strs(df, path, "status")?;
    let competition_id = columns::strs(df, path, "competition_id")?;
    let month = columns::strs(df, path, "month")?;
    let line = columns::i64s(df, path, "line")?;
    let board = columns::i64s(df, path, "board")?;
    let column = columns::strs(df, path, "column")?;
    let reason = columns::strs(df, path, "reason")?;
    let mut rows = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let text = |values: &[Option<String>]| values.get(i).cloned().flatten();
        rows.push(LogRow {
            batch: batch.get(i).copied().flatten().unwrap_or(0),
            imported_at: text(&imported_at).unwrap_or_default(),
            file: text(&file).unwrap_or_default(),
            status: text(&status).unwrap_or_default(),
            competition_id: text(&competition_id),
            month: text(&month),
            line: line.get(i).copied().flatten(),
            board: board.get(i).copied().flatten(),
            column: text(&column),
            reason: text(&reason).unwrap_or_default(),
        });
    }
    Ok(rows)
}

/// The number the next batch gets: one more than the log's largest, 1 for the first.
pub fn next_batch(rows: &[LogRow]) -> i64 {
    rows.iter().map(|r| r.batch).max().unwrap_or(0) + 1
}

/// The current time as the log writes it.
pub fn now_utc() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    i64::try_from(seconds)
        .ok()
        .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

fn frame(rows: &[LogRow]) -> Result<DataFrame> {
    let text = |name: &str, value: &dyn Fn(&LogRow) -> Option<String>| {
        Column::new(name.into(), rows.iter().map(value).collect::<Vec<_>>())
    };
    let int = |name: &str, value: &dyn Fn(&LogRow) -> Option<i64>| {
        Column::new(name.into(), rows.iter().map(value).collect::<Vec<_>>())
    };
    DataFrame::new_infer_height(vec![
        int("batch", &|r| Some(r.batch)),
        text("imported_at", &|r| Some(r.imported_at.clone())),
        text("file", &|r| Some(r.file.clone())),
        text("status", &|r| Some(r.status.clone())),
        text("competition_id", &|r| r.competition_id.clone()),
        text("month", &|r| r.month.clone()),
        int("line", &|r| r.line),
        int("board", &|r| r.board),
        text("column", &|r| r.column.clone()),
        text("reason", &|r| Some(r.reason.clone())),
    ])
    .map_err(|e| Error::polars(PARQUET, e))
}

/// `rows` (the log so far) followed by `entries` as the next batch, stamped now.
pub fn with_batch(mut rows: Vec<LogRow>, entries: &[Entry], written: bool) -> Vec<LogRow> {
    let batch = next_batch(&rows);
    rows.extend(rows_of(entries, batch, &now_utc(), written));
    rows
}

/// Writes the log `rows` as the two files of `dir`.
pub fn write(dir: &Path, rows: &[LogRow]) -> Result<()> {
    let df = frame(rows)?;
    crate::store::files::write_parquet(&df, &dir.join(PARQUET))?;
    crate::store::files::write_csv(&df, &dir.join(CSV))
}

/// Appends `entries` to the log in `dir` as a new batch; returns its number.
pub fn append(dir: &Path, entries: &[Entry], written: bool) -> Result<i64> {
    let rows = read(dir)?;
    let batch = next_batch(&rows);
    write(dir, &with_batch(rows, entries, written))?;
    Ok(batch)
}

/// `import-report.csv`: one row per file (per competition of a file), and one per note.
pub fn report_frame(rows: &[LogRow]) -> Result<DataFrame> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(status: Status) -> Entry {
        Entry {
            file: "a.pbn".into(),
            status,
            competition_id: Some("pbn-1".into()),
            month: Some("2015-10".into()),
            line: None,
            board: None,
            column: None,
            reason: String::new(),
        }
    }

    #[test]
    fn a_batch_that_wrote_nothing_says_so() {
        let entries = [entry(Status::Imported), entry(Status::Refused)];
        let rows = rows_of(&entries, 3, "2026-11-24T07:05:42Z", false);
        assert_eq!(rows[0].status, "not_written");
        assert_eq!(rows[0].reason, "would be imported; the batch wrote nothing");
        assert_eq!(rows[1].status, "refused");
        let rows = rows_of(&entries, 3, "t", true);
        assert_eq!(rows[0].status, "imported");
        assert_eq!(next_batch(&rows), 4);
        assert_eq!(next_batch(&[]), 1);
    }

    #[test]
    fn appended_batches_are_kept() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let first = append(dir.path(), &[entry(Status::Imported)], true);
        let second = append(dir.path(), &[entry(Status::Unchanged)], true);
        assert_eq!((first.ok(), second.ok()), (Some(1), Some(2)));
        let rows = read(dir.path()).unwrap_or_default();
        let kept: Vec<(i64, &str)> = rows.iter().map(|r| (r.batch, r.status.as_str())).collect();
        assert_eq!(kept, [(1, "imported"), (2, "unchanged")]);
        assert_eq!(rows[0].month.as_deref(), Some("2015-10"));
        assert_eq!(rows[0].imported_at.len(), "2026-11-24T07:05:42Z".len());
        let csv = std::fs::read_to_string(dir.path().join(CSV)).unwrap_or_default();
        assert!(
            csv.starts_with(
                "batch,imported_at,file,status,competition_id,month,line,board,column,reason\n1,"
            ),
            "{csv}"
        );
    }
}
