//! Reading a run's own output tables back, for the statements and reports built on them.
//!
//! The player statement and the monthly report are made from a run's output folder, not
//! from the run in memory: an officer makes them later, from the files that were
//! published. Columns are read by name and converted to plain vectors here, so the code
//! that builds a statement or a report sees no polars; a missing column or one of an
//! unusable type is an error naming the file and the column.

use std::path::Path;

use chrono::NaiveDate;
use polars::prelude::*;

use crate::dataset::date_from_days;
use crate::error::{Error, InputError, Location, Result};

/// A table as the readers here take it (a slice of a file, or the whole of one).
pub type Frame = DataFrame;

/// Reads the Parquet file at `path`.
pub fn read_parquet(path: &Path) -> Result<DataFrame> {
    crate::store::table::read_file_checked(path)
}

/// Reads a Parquet file's `bytes` (`path` names it in errors).
pub fn parquet_from_bytes(path: &Path, bytes: Vec<u8>) -> Result<DataFrame> {
    crate::store::table::guarded(path, || crate::store::table::read_checked(path, &bytes))?
}

/// Reads the CSV file at `path` (header row, every column as text).
pub fn read_csv_text(path: &Path) -> Result<DataFrame> {
    CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(0))
        .try_into_reader_with_file_path(Some(path.to_path_buf()))
        .and_then(|reader| reader.finish())
        .map_err(|e| Error::polars(path, e))
}

fn problem(path: &Path, name: &str, rule: impl Into<String>) -> Error {
    Error::Input(InputError::new(
        Location::file(path).column(name),
        rule.into(),
    ))
}

fn column<'a>(df: &'a DataFrame, path: &Path, name: &str) -> Result<&'a Column> {
    df.column(name)
        .map_err(|_| problem(path, name, "required column is missing"))
}

/// Whether `df` has a column called `name`.
pub fn has(df: &DataFrame, name: &str) -> bool {
    df.column(name).is_ok()
}

/// A numeric column as float64 values.
pub fn f64s(df: &DataFrame, path: &Path, name: &str) -> Result<Vec<Option<f64>>> {
    let cast = column(df, path, name)?
        .cast(&DataType::Float64)
        .map_err(|e| problem(path, name, format!("not a number column: {e}")))?;
    let values = cast
        .f64()
        .map_err(|e| problem(path, name, format!("not a number column: {e}")))?;
    Ok(values.iter().collect())
}

/// An integer column as int64 values.
pub fn i64s(df: &DataFrame, path: &Path, name: &str) -> Result<Vec<Option<i64>>> {
    let source = column(df, path, name)?;
    if !source.dtype().is_integer() {
        return Err(problem(
            path,
            name,
            format!("expected integers, found {}", source.dtype()),
        ));
    }
    let cast = source
        .cast(&DataType::Int64)
        .map_err(|e| problem(path, name, e.to_string()))?;
    let values = cast.i64().map_err(|e| problem(path, name, e.to_string()))?;
    Ok(values.iter().collect())
}

/// A text column.
pub fn strs(df: &DataFrame, path: &Path, name: &str) -> Result<Vec<Option<String>>> {
    let values = texts(df, path, name)?;
    Ok(values.iter().map(|v| v.map(str::to_owned)).collect())
}

/// A text column as polars holds it, for reading without a copy of each text.
pub fn texts<'a>(df: &'a DataFrame, path: &Path, name: &str) -> Result<&'a StringChunked> {
    column(df, path, name)?
        .str()
        .map_err(|e| problem(path, name, format!("not a text column: {e}")))
}

/// A `date` column.
pub fn dates(df: &DataFrame, path: &Path, name: &str) -> Result<Vec<Option<NaiveDate>>> {
    let source = column(df, path, name)?;
    let days = match source.dtype() {
        DataType::Date => source
            .cast(&DataType::Int32)
            .map_err(|e| problem(path, name, e.to_string()))?,
        DataType::String => {
            return strs(df, path, name)?
                .into_iter()
                .map(|text| {
                    text.filter(|t| !t.is_empty())
                        .map(|t| {
                            NaiveDate::parse_from_str(&t, "%Y-%m-%d").map_err(|_| {
                                problem(path, name, format!("`{t}` is not a date (YYYY-MM-DD)"))
                            })
                        })
                        .transpose()
                })
                .collect();
        }
        other => {
            return Err(problem(
                path,
                name,
                format!("expected a date column, found {other}"),
            ))
        }
    };
    let days = days.i32().map_err(|e| problem(path, name, e.to_string()))?;
    days.iter()
        .map(|d| {
            d.map(|d| date_from_days(i64::from(d)).map_err(|e| problem(path, name, e)))
                .transpose()
        })
        .collect()
}
