//! `bridgehcp player`: one member's statement, from a run's outputs or from the dataset.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::error::{Error, Result};
use crate::pipeline::{self, RunSettings};
use crate::quarantine::OnError;
use crate::report::run_folder::{load_state, RunFolder};
use crate::report::run_tables::RunTables;
use crate::report::statement::{statement, Statement};
use crate::store::files::{write_atomic, write_csv_rounded};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp player 1042 --out-dir out/2026-11\n  \
bridgehcp player 1042 --out-dir out/2026-11 --data fed/ --html anna.html --csv anna.csv\n  \
bridgehcp player 1042 --data fed/ --state out/2026-10     # replays in memory, writes nothing\n\n\
Every rated competition of the run: date, title, club, partner, the pair's and the field's \
handicaps, expected and achieved (percentage points above 50 for matchpoints, IMPs per \
board for IMP scoring), boards played, the change and the handicap after. The changes add \
up to the difference between the first handicap shown and the current one; a change the \
cap (52) or the floor cut short shows the cut in its own column."
)]
pub struct PlayerArgs {
    /// The member's federation number.
    pub member_id: i64,
    /// A run's output folder (changes.parquet, handicaps.parquet, ...).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// The dataset: adds competition titles, clubs and the partners' printed names
    /// (default: the dataset the run's run.json names, when it is still there).
    /// Without --out-dir, the run is replayed in memory from it.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// With --data and no --out-dir: continue from a previous run's output folder.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Also write the statement as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write the statement as a self-contained HTML page with a trajectory plot.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Do not print the statement.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The tables the statement is made from.
fn tables(args: &PlayerArgs) -> Result<RunTables> {
    let opened = match &args.data {
        Some(dir) => Some(crate::store::table::open_checked(dir, OnError::Quarantine)?),
        None => None,
    };
    let tables = match (&args.out_dir, opened) {
        (Some(out), opened) => {
            let tables = RunTables::read(&RunFolder::open(out, "--out-dir")?)?;
            match opened {
                Some(opened) => return Ok(tables.with_dataset(&opened.head)),
                None => tables,
            }
        }
        (None, Some(mut opened)) => {
            let previous = args.state.as_deref().map(load_state).transpose()?;
            let head = &opened.head;
            let output = pipeline::run_source(
                head,
                pipeline::EntrantRows::of(head),
                &mut opened.boards,
                &RunSettings::default(),
                previous,
                &pipeline::NoProgress,
            )?;
            let tables = RunTables::from_run(Path::new("(in memory)"), &output)?;
            return Ok(tables.with_dataset(head));
        }
        (None, None) => {
            return Err(Error::Config(
                "give a run's output folder (--out-dir DIR) or a dataset (--data DIR)".into(),
            ))
        }
    };
    // The dataset the run recorded in run.json, when it is still there: titles and clubs.
    match tables.data.clone().filter(|d| d.is_dir()) {
        Some(dir) => match crate::store::table::read_dataset(&dir) {
            Ok(dataset) => Ok(tables.with_dataset(&dataset)),
            Err(_) => Ok(tables),
        },
        None => Ok(tables),
    }
}

/// Builds the statement, prints it unless `--quiet`, and writes the files asked for.
pub fn execute(args: &PlayerArgs) -> Result<Statement> {
    let tables = tables(args)?;
    let statement = statement(&tables, args.member_id)?;
    if let Some(path) = &args.csv {
        let frame = statement
            .to_frame()
            .map_err(|e| Error::polars(path.clone(), e))?;
        write_csv_rounded(&frame, path)?;
    }
    if let Some(path) = &args.html {
        let html = statement.to_html();
        write_atomic(path, |out| {
            std::io::Write::write_all(out, html.as_bytes()).map_err(|e| Error::io(path, e))
        })?;
    }
    if !args.quiet {
        print!(
            "{}",
            crate::dataset::text::neutralise(&statement.to_text(), true)
        );
    }
    Ok(statement)
}
