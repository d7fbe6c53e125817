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
    let _lock = super::Folders::new().replace_dataset(data)?.lock()?;
    crate::store::index::reindex(data)
}
