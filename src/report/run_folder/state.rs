//! A previous run's folder read as the state a run continues from.
//!
//! The replay continues from the members' states a previous run left
//! ([`PreviousRun`]); reading them back from its `handicaps.parquet` and
//! `applied.parquet` is done here, at the edge, so that the pipeline itself touches no
//! files. Both are read through [`RunFolder::read_checked`], so a folder that mixes two
//! runs, or was edited, is refused rather than continued. Handicaps are stored as
//! float64, so nothing is lost between runs.

use std::collections::HashMap;
use std::path::Path;

use polars::prelude::*;

use crate::dataset::date_from_days;
use crate::error::{Error, InputError, Location, Result};
use crate::pipeline::ledger::{sha256, Entry, Status};
use crate::pipeline::state::{month_index, PlayerState};
use crate::pipeline::state_io::{PreviousRun, RunRecord};
use crate::store::table::guarded;

use super::{RunFolder, APPLIED, HANDICAPS};

fn column<'a>(df: &'a DataFrame, name: &str, file: &Path) -> Result<&'a Column> {
    df.column(name).map_err(|_| {
        Error::Input(InputError::new(
            Location::file(file).column(name),
            "required column is missing",
        ))
    })
}

/// The column `name` of `df` as the type `as_type` reads, or an error naming the file
/// and the column.
fn typed<'a, T>(
    df: &'a DataFrame,
    name: &'static str,
    file: &Path,
    as_type: impl FnOnce(&'a Column) -> PolarsResult<T>,
) -> Result<T> {
    as_type(column(df, name, file)?).map_err(|e| wrong_type(file, name, e))
}

fn wrong_type(file: &Path, name: &str, e: PolarsError) -> Error {
    Error::Input(InputError::new(
        Location::file(file).column(name),
        format!("wrong type: {e}"),
    ))
}

fn read_frame(path: &Path, bytes: Vec<u8>) -> Result<DataFrame> {
    guarded(path, || crate::store::table::read_checked(path, &bytes))?
}

/// Opens the state folder `--state` names (see [`RunFolder::open`]) and reads the
/// members' states, the ledger and the settings a continued run needs from it.
pub fn load_state(folder: &Path) -> Result<PreviousRun> {
    load(&RunFolder::open(folder, "--state")?)
}

/// Reads `handicaps.parquet` and `applied.parquet` from a previous run's output
/// folder, checking that the files are the ones the manifest recorded.
pub fn load(run: &RunFolder) -> Result<PreviousRun> {
    let manifest = run.manifest();
    let record = RunRecord {
        rate: manifest.rate,
        factors: manifest.inputs.factors.name.clone(),
        factors_sha256: manifest.inputs.factors.sha256.clone(),
        mode: manifest.mode,
        applied_through: manifest.applied_through.clone(),
        ledger_scheme: manifest.ledger_scheme,
    };
    let folder = run.path();
    let handicaps_bytes = run.read_checked(HANDICAPS)?;
    let ledger_bytes = run.read_checked(APPLIED)?;
    // Both files were just found to have the SHA-256 the manifest records: the state's
    // hash is built from those, not from hashing the bytes a second time.
    let state_sha256 = {
        let mut both = run.recorded(HANDICAPS)?.to_owned();
        both.push_str(run.recorded(APPLIED)?);
        sha256(both.as_bytes())
    };
    let ledger_path = run.file(APPLIED);
    let ledger = read_ledger(&ledger_path, read_frame(&ledger_path, ledger_bytes)?)?;

    let path = run.file(HANDICAPS);
    let (states, starts) = read_states(&path, read_frame(&path, handicaps_bytes)?)?;
    Ok(
        PreviousRun::new(folder.to_path_buf(), record, ledger, state_sha256, states)
            .with_starts(starts)
            .with_partial_history(!run.whole_history()),
    )
}

/// The members' states (and the handicaps they started from, where recorded) from
/// `handicaps.parquet`.
type States = (HashMap<i64, PlayerState>, HashMap<i64, f64>);

fn read_states(path: &Path, df: DataFrame) -> Result<States> {
    let path = path.to_path_buf();
    let ids = typed(&df, "member_id", &path, Column::i64)?;
    let handicap = typed(&df, "handicap", &path, Column::f64)?;
    let topscore = typed(&df, "handicap_topscore", &path, Column::f64)?;
    let imp = typed(&df, "handicap_imp", &path, Column::f64)?;
    let boards = typed(&df, "boards", &path, Column::i64)?;
    let competitions = typed(&df, "competitions", &path, Column::i64)?;
    let last = typed(&df, "last_played", &path, Column::date)?;
    let playing = typed(&df, "playing_handicap", &path, Column::f64)?;
    let playing_month = typed(&df, "playing_month", &path, Column::date)?;

    // Absent from the folders of older versions: then starts are not compared.
    let starting = match df.column("starting_handicap") {
        Ok(column) => Some(
            column
                .f64()
                .map_err(|e| wrong_type(&path, "starting_handicap", e))?,
        ),
        Err(_) => None,
    };
    let mut starts = HashMap::new();

    // Absent in runs whose factor set publishes no confidence figure.
    let sd = match df.column("handicap_sd") {
        Ok(c) => Some(c.f64().map_err(|e| wrong_type(&path, "handicap_sd", e))?),
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
            partners: Vec::new(),
        };
        states.insert(id, state);
        if let Some(start) = starting.and_then(|s| s.get(row)) {
            starts.insert(id, start);
        }
    }
    Ok((states, starts))
}

/// `applied.parquet`: the competitions the previous run took into account.
fn read_ledger(path: &Path, df: DataFrame) -> Result<Vec<Entry>> {
    let wrong = |name: &'static str| {
        move |e: PolarsError| {
            Error::Input(InputError::new(
                Location::file(path).column(name),
                format!("wrong type: {e}"),
            ))
        }
    };
    let ids = column(&df, "competition_id", path)?
        .str()
        .map_err(wrong("competition_id"))?;
    let dates = column(&df, "date", path)?.date().map_err(wrong("date"))?;
    let sessions = column(&df, "session", path)?
        .i32()
        .map_err(wrong("session"))?;
    let hashes = column(&df, "sha256", path)?
        .str()
        .map_err(wrong("sha256"))?;
    let statuses = column(&df, "status", path)?
        .str()
        .map_err(wrong("status"))?;
    let mut entries = Vec::with_capacity(df.height());
    for row in 0..df.height() {
        let at = |name: &str| Location::file(path).row(row + 1).column(name);
        let missing = |name: &str| Error::Input(InputError::new(at(name), "value is missing"));
        let date = dates
            .physical()
            .get(row)
            .and_then(|d| date_from_days(i64::from(d)).ok())
            .ok_or_else(|| missing("date"))?;
        let status = statuses
            .get(row)
            .ok_or_else(|| missing("status"))?
            .parse::<Status>()
            .map_err(|e| Error::Input(InputError::new(at("status"), e)))?;
        entries.push(Entry {
            competition_id: ids
                .get(row)
                .ok_or_else(|| missing("competition_id"))?
                .to_owned(),
            date,
            session: sessions.get(row).ok_or_else(|| missing("session"))?,
            sha256: hashes.get(row).map(str::to_owned),
            status,
        });
    }
    Ok(entries)
}
