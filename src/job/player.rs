//! `player`: one member's statement, from a run's outputs or replayed from a dataset.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::pipeline::{self, RunSettings};
use crate::quarantine::OnError;
use crate::report::run_folder::{load_state, RunFolder};
use crate::report::run_tables::RunTables;
use crate::report::statement::{statement, Statement};
use crate::store::files::{write_atomic, write_csv_rounded};

/// Whose statement, from what, and which files to write.
#[derive(Debug, Clone)]
pub struct PlayerPlan {
    pub member_id: i64,
    /// A run's output folder.
    pub out_dir: Option<PathBuf>,
    /// The dataset: titles, clubs and names; without `out_dir`, replayed in memory.
    pub data: Option<PathBuf>,
    /// With `data` and no `out_dir`: the run continued from.
    pub state: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// The tables the statement is made from, with every folder named held shared.
fn tables(plan: &PlayerPlan) -> Result<RunTables> {
    let mut folders = super::Folders::new();
    for (dir, run) in [
        (&plan.out_dir, true),
        (&plan.data, false),
        (&plan.state, true),
    ] {
        if let Some(dir) = dir {
            folders = if run {
                folders.read_run(dir)?
            } else {
                folders.read_dataset(dir)?
            };
        }
    }
    let _locks = folders.lock()?;
    let opened = match &plan.data {
        Some(dir) => Some(crate::store::table::open_checked(dir, OnError::Quarantine)?),
        None => None,
    };
    let tables = match (&plan.out_dir, opened) {
        (Some(out), opened) => {
            let tables = RunTables::read(&RunFolder::open(out, "--out-dir")?)?;
            match opened {
                Some(opened) => return Ok(tables.with_dataset(&opened.head)),
                None => tables,
            }
        }
        (None, Some(mut opened)) => {
            let previous = plan.state.as_deref().map(load_state).transpose()?;
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
    recorded_dataset(tables)
}

/// The dataset the run recorded in run.json, when it is still there, adds titles and
/// clubs.
fn recorded_dataset(tables: RunTables) -> Result<RunTables> {
    let Some(dir) = tables.data.clone().filter(|d| d.is_dir()) else {
        return Ok(tables);
    };
    let _lock = super::Folders::new().read_dataset(&dir)?.lock()?;
    match crate::store::table::read_dataset(&dir) {
        Ok(dataset) => Ok(tables.with_dataset(&dataset)),
        Err(_) => Ok(tables),
    }
}

/// Builds the statement and writes the files asked for.
pub fn execute(plan: &PlayerPlan) -> Result<Statement> {
    let tables = tables(plan)?;
    let statement = statement(&tables, plan.member_id)?;
    if let Some(path) = &plan.csv {
        let frame = statement
            .to_frame()
            .map_err(|e| Error::polars(path.clone(), e))?;
        write_csv_rounded(&frame, path)?;
    }
    if let Some(path) = &plan.html {
        let html = statement.to_html();
        write_atomic(path, |out| {
            std::io::Write::write_all(out, html.as_bytes()).map_err(|e| Error::io(path, e))
        })?;
    }
    Ok(statement)
}
