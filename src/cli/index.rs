//! `bridgehcp index`: the competition index of a dataset that has none, or whose index
//! no longer matches its files (another tool wrote or changed them).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::Failed;

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

/// Rebuilds the index and prints how many competitions it lists.
pub fn command(args: &IndexArgs) -> Result<ExitCode, Failed> {
    let competitions = crate::job::index::execute(&args.data).map_err(Failed::doing(format!(
        "indexing {} failed",
        args.data.display()
    )))?;
    println!(
        "bridgehcp index: {} in {}",
        crate::report::count(competitions, "competition", "competitions"),
        args.data.join(crate::store::index::FILE).display()
    );
    Ok(ExitCode::SUCCESS)
}
