//! `index`: the competition index of a dataset other tools wrote or changed.

use std::path::Path;

use crate::error::{Error, Result};

/// Rebuilds the index of the dataset `data`, held exclusively (after a killed import is
/// recovered); the number of competitions it lists.
pub fn execute(data: &Path) -> Result<usize> {
    if data.join("run.json").exists() {
        return Err(Error::Config(format!(
            "{} is a run's output folder (it holds run.json), not a dataset",
            data.display()
        )));
    }
    check_dataset(data)?;
    let _lock = super::Folders::new().replace_dataset(data)?.lock()?;
    crate::store::index::reindex(data)
}

/// The tables every dataset has (the data contract's required ones).
const REQUIRED: [&str; 3] = ["members", "competitions", "entrants"];

/// Refuses a folder that is not a dataset: `index` writes into the folder it is given,
/// and a mistyped or wrong path (a home folder, `/etc`) must not get a
/// `competition_index.parquet` of nothing.
fn check_dataset(dir: &std::path::Path) -> Result<()> {
    if !dir.is_dir() {
        return Err(Error::Config(format!(
            "{}: no such dataset folder",
            dir.display()
        )));
    }
    let missing: Vec<&str> = REQUIRED
        .into_iter()
        .filter(|table| {
            [
                format!("{table}.parquet"),
                format!("{table}.csv"),
                (*table).to_owned(),
            ]
            .iter()
            .all(|name| !dir.join(name).exists())
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::Config(format!(
        "{} is not a dataset folder: it holds no {} table ({}), as every dataset does; nothing was written. Give the folder `import` or `sample` wrote",
        dir.display(),
        missing
            .iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", "),
        missing
            .iter()
            .map(|t| format!("{t}.parquet, {t}.csv or a folder {t}/"))
            .collect::<Vec<_>>()
            .join("; ")
    )))
}
