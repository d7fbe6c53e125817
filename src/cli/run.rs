//! `bridgehcp run`: the flags of the monthly handicap run, checked into a plan for
//! [`crate::job::run`], and what it prints.

use std::path::PathBuf;
use std::process::ExitCode;

use chrono::NaiveDate;
use clap::Args;

use super::progress::Bars;
use super::values::{ModeArg, RankingGroupArg, RateArg};
use super::Failed;
use crate::error::Result;
use crate::job::run::{self as job, RunDefinition, RunPlan};
use crate::model::FactorSet;
use crate::pipeline::ranking::RankingOptions;
use crate::pipeline::{self, RunSettings};
use crate::quarantine::OnError;

#[derive(Debug, Args, Default)]
#[command(
    after_help = "Examples:\n  bridgehcp run                                  # the sample federation, into ./out\n  \
bridgehcp run --pipeline pipelines/monthly.toml\n  \
bridgehcp run --data fed/ --out 2026-11/ --state 2026-10/\n  \
bridgehcp run --data fed/ --out whatif/ --factors my-factors.toml --mode frozen\n  \
bridgehcp run --data fed/ --out ranking/ --min-boards 100 --active-months 12 --ranking-by district\n  \
bridgehcp run --data fed/ --out check/ --strict        # fail on the first broken rule"
)]
pub struct RunArgs {
    /// Dataset folder (default: the sample federation in data/sample).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Output folder (default: ./out).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Factor set in TOML (default: the built-in fsb-2007 set).
    #[arg(long, value_name = "FILE")]
    pub factors: Option<PathBuf>,
    /// live: each competition sees the previous ones; frozen: a month uses its opening
    /// handicaps.
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Continue from a previous run's output folder, applying only later competitions.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// A run definition (see pipelines/); flags given here override it.
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    /// Ranking: minimum rated boards played.
    #[arg(long, value_name = "N")]
    pub min_boards: Option<u64>,
    /// Ranking: only members active in the last N months.
    #[arg(long, value_name = "N")]
    pub active_months: Option<u32>,
    /// Ranking: reference date for activity (default: the last competition's date).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub as_of: Option<NaiveDate>,
    /// Ranking: rank within each club or district.
    #[arg(long, value_enum)]
    pub ranking_by: Option<RankingGroupArg>,
    /// Published ranking (ranking_published.csv): minimum rated boards; members below
    /// it are marked provisional in handicaps.parquet (default 100).
    #[arg(long, value_name = "N")]
    pub publish_min_boards: Option<u64>,
    /// Published ranking: only members active in the last N months (default 12).
    #[arg(long, value_name = "N")]
    pub publish_active_months: Option<u32>,
    /// Apply only competitions dated up to this day (e.g. the month's last day).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub until: Option<NaiveDate>,
    /// Worker threads (default: all cores). The output does not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bars and no summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Stop at the first error instead of leaving the competition out (quarantine.csv).
    #[arg(long)]
    pub strict: bool,
    /// Do not write board_scores.parquet (the largest output); the others are unchanged.
    #[arg(long)]
    pub no_board_scores: bool,
    /// Replace --out even when it holds another run (another dataset folder, --until or
    /// --state). Without it such a folder is refused; one holding the same run is
    /// replaced (a month run again).
    #[arg(long)]
    pub replace: bool,
    /// Which result is rated when a competition has both table results and the results
    /// its club's program published: the published one (the club's official result) or
    /// the one recomputed from the table results. They differ only for sessions the
    /// import reported as `mismatch`. Recorded in run.json.
    #[arg(long, value_enum, default_value_t = RateArg::Published)]
    pub rate: RateArg,
}

impl RunArgs {
    /// The published ranking's filters: the flags, else the definition's
    /// `[published]`, else [`pipeline::published_ranking`].
    fn published(&self, definition: &RunDefinition) -> RankingOptions {
        let defaults = pipeline::published_ranking();
        RankingOptions {
            min_boards: self
                .publish_min_boards
                .or(definition.published.min_boards)
                .unwrap_or(defaults.min_boards),
            active_months: self
                .publish_active_months
                .or(definition.published.active_months)
                .or(defaults.active_months),
            as_of: self.as_of.or(definition.ranking.as_of),
            group_by: None,
        }
    }

    pub fn plan(&self) -> Result<RunPlan> {
        let definition_path = self.pipeline.clone();
        let (definition, pipeline) = match &definition_path {
            Some(path) => {
                let (definition, hash) = RunDefinition::load_hashed(path)?;
                (definition, Some((path.clone(), hash)))
            }
            None => (RunDefinition::default(), None),
        };
        let file = definition_path.unwrap_or_default();
        let mode = match self.mode {
            Some(mode) => mode.into(),
            None => job::definition_mode(&file, definition.mode.as_deref())?,
        };
        let group_by = match self.ranking_by {
            Some(g) => Some(g.into()),
            None => job::definition_group(&file, definition.ranking.by.as_deref())?,
        };
        if self.data.is_none() {
            job::missing_from_definition(&file, "data", "--data DIR", definition.data.as_deref())?;
        }
        if self.factors.is_none() {
            job::missing_from_definition(
                &file,
                "factors",
                "--factors FILE",
                definition.factors.as_deref(),
            )?;
        }
        let published = self.published(&definition);
        let factors_path = self.factors.clone().or(definition.factors);
        let factors = match &factors_path {
            Some(path) => crate::import::factors::load(path)?,
            None => FactorSet::default(),
        };
        Ok(RunPlan {
            data: self
                .data
                .clone()
                .or(definition.data)
                .unwrap_or_else(job::sample_data),
            out: self
                .out
                .clone()
                .or(definition.out)
                .unwrap_or_else(|| PathBuf::from("out")),
            state: self.state.clone().or(definition.state),
            threads: self.threads,
            quiet: self.quiet,
            replace: self.replace,
            factors: factors_path,
            pipeline,
            settings: RunSettings {
                factors,
                mode,
                ranking: RankingOptions {
                    min_boards: self
                        .min_boards
                        .or(definition.ranking.min_boards)
                        .unwrap_or(1),
                    active_months: self.active_months.or(definition.ranking.active_months),
                    as_of: self.as_of.or(definition.ranking.as_of),
                    group_by,
                },
                published,
                sealer: crate::report::outputs::board_score_sealer(),
                until: self.until,
                on_error: if self.strict || definition.strict.unwrap_or(false) {
                    OnError::Strict
                } else {
                    OnError::Quarantine
                },
                board_scores: !self.no_board_scores,
                rate: self.rate.into(),
            },
        })
    }
}

/// Runs the plan and prints what the run did; exit code 2 when every competition was
/// quarantined.
pub fn command(args: &RunArgs) -> std::result::Result<ExitCode, Failed> {
    let plan = args.plan().map_err(Failed::doing("invalid run settings"))?;
    super::threads(plan.threads);
    let summary = job::execute(&plan, &Bars::new(!plan.quiet)).map_err(Failed::doing(format!(
        "run on {} failed",
        plan.data.display()
    )))?;
    if !plan.quiet {
        println!("{}", job::summary_text(&plan, &summary));
        if let Some(note) = job::non_members_note(&plan, &summary) {
            println!("{note}");
        }
    }
    if let Some(warning) = job::empty_ranking_warning(&plan, &summary) {
        eprintln!("{warning}");
    }
    if let Some(error) = job::all_quarantined_error(&plan, &summary) {
        eprintln!("{error}");
        return Ok(ExitCode::from(job::ALL_QUARANTINED_EXIT));
    }
    Ok(ExitCode::SUCCESS)
}
