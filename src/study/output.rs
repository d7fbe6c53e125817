//! The files of a study: `study.parquet` out, the reference list and the hidden skill in.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use crate::dataset::MemberId;
use crate::error::{Error, InputError, Location, Result};
use crate::store::files::{write_parquet, Commit};
use crate::store::frame::FrameBuilder;

use super::{MetricRow, Study, Truth};

/// `study.parquet`: one row per set (or baseline), period and metric; `ci_low` and
/// `ci_high` hold the 95 % bootstrap interval where the study computes one.
pub fn rows_frame(rows: &[MetricRow]) -> PolarsResult<DataFrame> {
    FrameBuilder::new(rows.len())
        .map("set", rows, |r| r.set.clone())
        .map("set_hash", rows, |r| r.hash.clone())
        .map("kind", rows, |r| r.kind.to_string())
        .map("period", rows, |r| r.period.clone())
        .map("metric", rows, |r| r.metric.clone())
        .map("value", rows, |r| r.value)
        .map("detail", rows, |r| r.detail.clone())
        .map("ci_low", rows, |r| r.low)
        .map("ci_high", rows, |r| r.high)
        .build()
}

/// The files of a study's folder.
pub const FILES: [&str; 2] = [PARQUET, HTML];
pub const PARQUET: &str = "study.parquet";
pub const HTML: &str = "study.html";

/// Writes `study.parquet` and `study.html` as the folder `out`, whole: the two always
/// belong to the same study, whenever the command is stopped (see
/// [`crate::report::run_folder::write_whole`]).
pub fn write_study(out: &Path, study: &Study, commit: Commit<'_>) -> Result<()> {
    let df = rows_frame(&study.rows).map_err(|e| Error::polars(out.join(PARQUET), e))?;
    let text = super::html::render(study);
    crate::report::run_folder::write_whole(out, &FILES, "a study", commit, |staged| {
        write_parquet(&df, &staged.join(PARQUET))?;
        let html = staged.join(HTML);
        std::fs::write(&html, text.as_bytes()).map_err(|e| Error::io(&html, e))
    })
}

/// Reads a table (Parquet or CSV by extension) with the named columns cast to the types
/// asked for; every null or uncastable cell is an error naming file, row and column.
fn read_columns(path: &Path, columns: &[(&str, DataType)]) -> Result<DataFrame> {
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let df = if is_csv {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        CsvReadOptions::default()
            .with_has_header(true)
            .into_reader_with_file_handle(file)
            .finish()
            .map_err(|e| Error::polars(path, e))?
    } else {
        crate::store::table::read_file_checked(path)?
    };
    let mut out = Vec::new();
    for (name, dtype) in columns {
        let column = df.column(name).map_err(|_| {
            InputError::new(
                Location::file(path),
                format!(
                    "the column `{name}` is missing (found: {})",
                    df.get_column_names()
                        .iter()
                        .map(|c| c.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        let cast = column.cast(dtype).map_err(|e| Error::polars(path, e))?;
        // A cell that was present but could not be cast became null: report the first.
        for row in 0..cast.len() {
            let null = cast.get(row).map(|v| v.is_null()).unwrap_or(true);
            if null {
                let was = column.get(row).map(|v| v.to_string()).unwrap_or_default();
                return Err(InputError::new(
                    Location::file(path).row(row + 1).column(*name),
                    format!("expected {dtype}, found `{was}`"),
                )
                .into());
            }
        }
        out.push(cast);
    }
    DataFrame::new(df.height(), out).map_err(|e| Error::polars(path, e))
}

/// An external ranking: columns `member_id` and `rating`.
pub fn read_reference(path: &Path) -> Result<Vec<(MemberId, f64)>> {
    let df = read_columns(
        path,
        &[
            ("member_id", DataType::Int64),
            ("rating", DataType::Float64),
        ],
    )?;
    let ids = df
        .column("member_id")
        .and_then(|c| c.i64().cloned())
        .map_err(|e| Error::polars(path, e))?;
    let ratings = df
        .column("rating")
        .and_then(|c| c.f64().cloned())
        .map_err(|e| Error::polars(path, e))?;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(df.height());
    for (row, (id, r)) in ids.iter().zip(ratings.iter()).enumerate() {
        if let (Some(id), Some(r)) = (id, r) {
            if !r.is_finite() {
                return Err(InputError::new(
                    Location::file(path).row(row + 1).column("rating"),
                    format!("a rating must be a finite number, found {r}"),
                )
                .into());
            }
            if !seen.insert(id) {
                return Err(InputError::new(
                    Location::file(path).row(row + 1).column("member_id"),
                    format!("member {id} is listed twice"),
                )
                .into());
            }
            out.push((id, r));
        }
    }
    Ok(out)
}

/// The hidden skill a synthetic federation writes: `member_id`, `month` (a date, the
/// month's first day) and `skill`.
pub fn read_truth(path: &Path) -> Result<Truth> {
    let df = read_columns(
        path,
        &[
            ("member_id", DataType::Int64),
            ("month", DataType::Date),
            ("skill", DataType::Float64),
        ],
    )?;
    let col = |name: &str| df.column(name).map_err(|e| Error::polars(path, e));
    let ids = col("member_id")?
        .i64()
        .cloned()
        .map_err(|e| Error::polars(path, e))?;
    let days = col("month")?
        .cast(&DataType::Int32)
        .and_then(|c| c.i32().cloned())
        .map_err(|e| Error::polars(path, e))?;
    let skill = col("skill")?
        .f64()
        .cloned()
        .map_err(|e| Error::polars(path, e))?;
    let mut truth = Truth::default();
    for ((id, d), s) in ids.iter().zip(days.iter()).zip(skill.iter()) {
        if let (Some(id), Some(d), Some(s)) = (id, d, s) {
            let date = crate::dataset::date_from_days(i64::from(d)).map_err(|rule| {
                Error::Input(InputError::new(Location::file(path).column("month"), rule))
            })?;
            truth
                .skill
                .insert((id, crate::pipeline::state::month_index(date)), s);
        }
    }
    Ok(truth)
}
