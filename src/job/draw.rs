//! `draw`: the next round of a Swiss pairs event, so that a club can run the event with
//! the tool: score round n, draw round n+1.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::report::sheet::DrawSheet;
use crate::scoring::draw::{next_draw, swiss_competition, DrawTable};
use crate::store::files::write_csv;

/// Which event to draw, from what seed, and where to write the tables.
#[derive(Debug, Clone)]
pub struct DrawPlan {
    /// The dataset holding the event.
    pub data: PathBuf,
    /// The competition (needed when the dataset has several Swiss pairs events).
    pub competition: Option<String>,
    /// Seed of round 1's random seating.
    pub seed: u64,
    /// Where to write the tables as CSV, if anywhere.
    pub csv: Option<PathBuf>,
}

/// The round drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    pub competition_id: String,
    pub round: u32,
    pub tables: Vec<DrawTable>,
    /// The tables as the command prints them.
    pub text: String,
}

/// Draws the next round from the dataset, held shared while it is read.
pub fn execute(plan: &DrawPlan) -> Result<Drawn> {
    let locks = super::Folders::new().read_dataset(&plan.data)?.lock()?;
    let dataset = crate::store::table::read_dataset(&plan.data)?;
    drop(locks);
    let competition = swiss_competition(&dataset, plan.competition.as_deref())?;
    let drawn = next_draw(&dataset, competition, plan.seed)?;
    let sheet = DrawSheet::new(&dataset, &competition.competition_id, &drawn);
    if let Some(path) = &plan.csv {
        let frame = sheet.frame().map_err(|e| Error::polars(path, e))?;
        write_csv(&frame, path)?;
    }
    Ok(Drawn {
        competition_id: competition.competition_id.clone(),
        round: drawn.round,
        text: sheet.text(),
        tables: drawn.tables,
    })
}
