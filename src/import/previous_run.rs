//! Reading a previous run's output folder, to continue it.
//!
//! The replay continues from the members' states a previous run left
//! ([`PreviousRun`]); reading them back from its `run.toml` and `handicaps.parquet` is
//! done here, at the edge, so that the pipeline itself touches no files. Handicaps are
//! stored as float64, so nothing is lost between runs.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use super::table::date_from_days;
use crate::error::{Error, InputError, Location, Result};
use crate::pipeline::state::{month_index, PlayerState};
use crate::pipeline::state_io::{PreviousRun, RunRecord};

fn column<'a>(df: &'a DataFrame, name: &str, file: &Path) -> Result<&'a Column> {
    df.column(name).map_err(|_| {
        Error::Input(InputError::new(
            Location::file(file).column(name),
            "required column is missing",
        ))
    })
}

/// Reads `handicaps.parquet` and `run.toml` from a previous run's output folder.
pub fn load(folder: &Path) -> Result<PreviousRun> {
    let record_path = folder.join("run.toml");
    let text = std::fs::read_to_string(&record_path).map_err(|e| Error::io(&record_path, e))?;
    let record: RunRecord = toml::from_str(&text)
        .map_err(|e| Error::Input(InputError::new(Location::file(&record_path), e.to_string())))?;

    let path = folder.join("handicaps.parquet");
    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    let df = ParquetReader::new(file)
        .finish()
        .map_err(|e| Error::polars(&path, e))?;
    let wrong = |name: &'static str| {
        let path = path.clone();
        move |e: PolarsError| {
            Error::Input(InputError::new(
                Location::file(&path).column(name),
                format!("wrong type: {e}"),
            ))
        }
    };
    let ids = column(&df, "member_id", &path)?
        .i64()
        .map_err(wrong("member_id"))?;
    let handicap = column(&df, "handicap", &path)?
        .f64()
        .map_err(wrong("handicap"))?;
    let topscore = column(&df, "handicap_topscore", &path)?
        .f64()
        .map_err(wrong("handicap_topscore"))?;
    let imp = column(&df, "handicap_imp", &path)?
        .f64()
        .map_err(wrong("handicap_imp"))?;
    let boards = column(&df, "boards", &path)?
        .i64()
        .map_err(wrong("boards"))?;
    let competitions = column(&df, "competitions", &path)?
        .i64()
        .map_err(wrong("competitions"))?;
    let last = column(&df, "last_played", &path)?
        .date()
        .map_err(wrong("last_played"))?;
    let playing = column(&df, "playing_handicap", &path)?
        .f64()
        .map_err(wrong("playing_handicap"))?;
    let playing_month = column(&df, "playing_month", &path)?
        .date()
        .map_err(wrong("playing_month"))?;

    // Absent in runs whose factor set publishes no confidence figure.
    let sd = match df.column("handicap_sd") {
        Ok(c) => Some(c.f64().map_err(wrong("handicap_sd"))?),
        Err(_) => None,
    };
    let to_date = |days: Option<i32>| days.and_then(|d| date_from_days(i64::from(d)).ok());
    let mut states = HashMap::with_capacity(df.height());
    for row in 0..df.height() {
        let bad = |name: &str| {
            Error::Input(InputError::new(
                Location::file(&path).row(row + 1).column(name),
                "value is missing or not finite",
            ))
        };
        let id = ids.get(row).ok_or_else(|| bad("member_id"))?;
        let h = handicap
            .get(row)
            .filter(|h| h.is_finite())
            .ok_or_else(|| bad("handicap"))?;
        let state = PlayerState {
            handicap: h,
            handicap_topscore: topscore.get(row).unwrap_or(h),
            handicap_imp: imp.get(row).unwrap_or(h),
            boards: boards.get(row).unwrap_or(0).max(0) as u64,
            competitions: competitions.get(row).unwrap_or(0).max(0) as u64,
            last_played: to_date(last.physical().get(row)),
            playing_month: to_date(playing_month.physical().get(row)).map(month_index),
            playing_handicap: playing.get(row).unwrap_or(h),
            handicap_sd: sd.and_then(|sd| sd.get(row)).filter(|sd| sd.is_finite()),
        };
        states.insert(id, state);
    }
    Ok(PreviousRun::new(folder.to_path_buf(), record, states))
}
