//! `bridgehcp score`: score a dataset's table results without touching any handicap.

use std::path::PathBuf;

use clap::Args;

use crate::error::Result;
use crate::pipeline::score::score;
use crate::quarantine::OnError;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp score --data fed/ --out scored/\n  \
bridgehcp score --data fed/ --out scored/ --strict     # fail on the first broken rule\n  \
bridgehcp import usebio club.xml --out club/ && bridgehcp score --data club/ --out club-scored/"
)]
pub struct ScoreArgs {
    /// Dataset folder.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// Output folder for standings.parquet, board_scores.parquet and quarantine.csv.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Stop at the first error instead of leaving the competition out (quarantine.csv).
    #[arg(long)]
    pub strict: bool,
}

/// What `score` did.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreSummary {
    pub competitions: usize,
    pub standings: usize,
    pub board_scores: usize,
    /// Competitions left out because they break a rule.
    pub quarantined: usize,
}

/// Scores the dataset, held to the same rules as `run`: a competition that breaks one is
/// left out and listed in `quarantine.csv`, or with `--strict` stops the command.
pub fn execute(args: &ScoreArgs) -> Result<ScoreSummary> {
    let on_error = if args.strict {
        OnError::Strict
    } else {
        OnError::Quarantine
    };
    let checked = crate::import::table::read_dataset_checked(&args.data, on_error)?;
    let dataset = &checked.dataset;
    let mut quarantine = checked.quarantine;
    let mut scored = score(dataset, &|| {});
    if let Some(error) = scored
        .quarantined
        .first()
        .and_then(|q| q.reasons.first())
        .filter(|_| on_error == OnError::Strict)
    {
        return Err(error.clone().into());
    }
    quarantine.extend(std::mem::take(&mut scored.quarantined));
    let quarantined = quarantine.into_sorted();
    crate::report::outputs::write_scored(
        &args.out,
        &scored.standings,
        &scored.board_scores,
        &quarantined,
    )?;
    Ok(ScoreSummary {
        competitions: dataset.competitions.len(),
        standings: scored.standings.len(),
        board_scores: scored.board_scores.len(),
        quarantined: quarantined.len(),
    })
}
