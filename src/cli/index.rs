//! `bridgehcp index`: the competition index of a dataset that has none, or whose index
//! no longer matches its files (another tool wrote or changed them).

use std::path::PathBuf;

use clap::Args;

use crate::error::{Error, Result};

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  bridgehcp index fed/\n\n\
DIR's tables (all but `members`) must be either all in month partitions, as `import` \
writes them, or all one file each, as `sample` writes them without --by-month. \
`import` and `sample` keep DIR/competition_index.parquet up to date themselves; a \
dataset written or changed by other tools needs this command once (and again after \
each such change). With the index, a run takes each competition's content hash from \
it instead of hashing the competition's rows, and a continued run (`run --state`) on \
month partitions reads only the months with something new. Months whose files the \
current index vouches for are taken from it, the others are read and hashed; a \
dataset of one file per table is read and hashed whole.")]
pub struct IndexArgs {
    /// The dataset folder (month partitions, as `import` writes them, or one file per
    /// table, as `sample` writes them).
    #[arg(value_name = "DIR")]
    pub data: PathBuf,
}

/// Rebuilds the index of `args.data`; the number of competitions it lists.
pub fn execute(args: &IndexArgs) -> Result<usize> {
    if args.data.join("run.json").exists() {
        return Err(Error::Config(format!(
            "{} is a run's output folder (it holds run.json), not a dataset",
            args.data.display()
        )));
    }
    check_dataset(&args.data)?;
    for found in crate::store::commit::recover_dataset(&args.data)? {
        eprintln!("{found}");
    }
    let _lock = crate::store::commit::DatasetLock::exclusive(&args.data)?;
    crate::store::index::reindex(&args.data)
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
