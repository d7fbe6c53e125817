//! `bridgehcp draw`: the next round of a Swiss pairs event, so that a club can run the
//! event with the tool: score round n, draw round n+1.

use std::path::PathBuf;

use clap::Args;

use crate::error::{Error, Result};
use crate::report::sheet::DrawSheet;
use crate::scoring::draw::{next_draw, swiss_competition, DrawTable};
use crate::store::files::write_csv;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp draw --data congress/                    # round 1 (no boards yet) or the next round\n  \
bridgehcp draw --data congress/ --competition swiss-2026-03-07 --seed 17 --csv round.csv\n\n\
Prints the next round's tables of a swiss_pairs competition: round 1 seated at random \
from --seed when the dataset has no board rows for it yet; after round n, round n+1 on \
the single-field Swiss principle from the standings (VPs, then IMPs, then the pair's \
number): the top pair left meets the next pair below it that it has not met, backtracking \
when that would leave the last pairs with a repeat. An odd entry needs a house pair \
(entrants.house), which is drawn like any other pair."
)]
pub struct DrawArgs {
    /// Dataset folder holding the Swiss pairs event (its entrants and the rounds played).
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// The competition to draw (needed when the dataset has more than one swiss_pairs
    /// competition).
    #[arg(long, value_name = "ID")]
    pub competition: Option<String>,
    /// Seed of round 1's random seating.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Also write the tables as CSV (round, table, ns, ew, ns_names, ew_names).
    #[arg(long, value_name = "FILE")]
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

pub fn execute(args: &DrawArgs) -> Result<Drawn> {
    let dataset = crate::store::table::read_dataset(&args.data)?;
    let competition = swiss_competition(&dataset, args.competition.as_deref())?;
    let drawn = next_draw(&dataset, competition, args.seed)?;
    let sheet = DrawSheet::new(&dataset, &competition.competition_id, &drawn);
    if let Some(path) = &args.csv {
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
