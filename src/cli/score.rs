//! `bridgehcp score`: score a dataset's table results without touching any handicap.

use std::path::PathBuf;

use clap::Args;

use crate::error::Result;
use crate::model::FactorSet;
use crate::pipeline::{prepare, Registry};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp score --data fed/ --out scored/\n  \
bridgehcp import usebio club.xml --out club/ && bridgehcp score --data club/ --out club-scored/"
)]
pub struct ScoreArgs {
    /// Dataset folder.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// Output folder for standings.parquet and board_scores.parquet.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// What `score` did.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreSummary {
    pub competitions: usize,
    pub standings: usize,
    pub board_scores: usize,
}

pub fn execute(args: &ScoreArgs) -> Result<ScoreSummary> {
    let dataset = crate::import::table::read_dataset(&args.data)?;
    let registry = Registry::new(&dataset.members);
    let scored = prepare::prepare(&dataset, &registry, &FactorSet::default(), false, &|| {})?;
    crate::report::outputs::write_scored(&args.out, &scored.standings, &scored.board_scores)?;
    Ok(ScoreSummary {
        competitions: dataset.competitions.len(),
        standings: scored.standings.len(),
        board_scores: scored.board_scores.len(),
    })
}
