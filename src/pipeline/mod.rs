//! Replaying the rated competitions in date order.
//!
//! A run is: read the dataset, score what came as table results, prepare each rated
//! competition for the model, replay them onto the members' handicaps (live or frozen by
//! month), and hand the result to `report`. A run may continue a previous run's state,
//! applying only the competitions after the last one it applied; continuing gives the
//! same handicaps as one run over the whole history.

mod model_input;
pub mod prepare;
pub mod progress;
pub mod ranking;
pub mod replay;
mod reported;
pub mod schedule;
pub mod score;
pub mod state;
pub mod state_io;
pub mod units;

use std::time::{Duration, Instant};

use chrono::NaiveDate;

use crate::dataset::Dataset;
use crate::error::{Error, InputError, Result};
use crate::model::FactorSet;
use crate::quarantine::{OnError, Quarantine, Quarantined};
use ranking::{RankedMember, RankingOptions};

pub use prepare::{Prepared, PreparedCompetition, Seat};
pub use progress::{NoProgress, Progress};
pub use replay::{Mode, ReplayOutput};
pub use state::{PlayerState, Registry};
pub use state_io::{AppliedThrough, PreviousRun};

/// Everything a run needs besides the dataset, checked once.
#[derive(Debug, Clone)]
pub struct RunSettings {
    pub factors: FactorSet,
    pub mode: Mode,
    pub ranking: RankingOptions,
    /// Apply only competitions dated up to and including this day (a month-end run on
    /// a dataset that already holds later competitions).
    pub until: Option<NaiveDate>,
    /// Quarantine competitions that break a rule, or stop at the first (`--strict`).
    pub on_error: OnError,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            factors: FactorSet::default(),
            mode: Mode::Live,
            ranking: RankingOptions::default(),
            until: None,
            on_error: OnError::Quarantine,
        }
    }
}

/// What a run computed; `report::outputs` writes it.
#[derive(Debug)]
pub struct RunOutput {
    pub registry: Registry,
    pub states: Vec<PlayerState>,
    pub prepared: Prepared,
    pub replay: ReplayOutput,
    pub ranking: Vec<RankedMember>,
    pub applied_through: Option<AppliedThrough>,
    /// Competitions left out because they break a rule, in replay order (those with an
    /// unreadable date last); `quarantine.csv`.
    pub quarantined: Vec<Quarantined>,
    pub summary: RunSummary,
}

/// The figures printed at the end of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    pub competitions_applied: usize,
    /// Rated competitions the model could not rate (listed in `unrated.csv`).
    pub competitions_unrated: usize,
    /// Competitions left out because they break a rule (listed in `quarantine.csv`).
    pub competitions_quarantined: usize,
    pub competitions_skipped: usize,
    pub members_moved: usize,
    pub changes: usize,
    pub last_date: Option<NaiveDate>,
    /// Time spent reading the dataset (set by the caller that read it).
    pub reading: Duration,
    /// Time spent scoring and preparing the competitions.
    pub scoring: Duration,
    /// Time spent replaying them onto the handicaps.
    pub replaying: Duration,
    /// Time spent writing the outputs (set by the caller that wrote them).
    pub writing: Duration,
    pub elapsed: Duration,
}

/// Runs the pipeline over `dataset`, continuing `previous` when given.
pub fn run(
    dataset: &Dataset,
    settings: &RunSettings,
    previous: Option<PreviousRun>,
) -> Result<RunOutput> {
    run_with(dataset, Quarantine::default(), settings, previous)
}

/// Runs the pipeline over a dataset the reader checked: `quarantine` holds the
/// competitions it already took out. Competitions that fail in scoring or in the model
/// join them (or, with [`OnError::Strict`], the first such error is returned).
pub fn run_with(
    dataset: &Dataset,
    quarantine: Quarantine,
    settings: &RunSettings,
    previous: Option<PreviousRun>,
) -> Result<RunOutput> {
    run_with_progress(dataset, quarantine, settings, previous, &NoProgress)
}

/// [`run_with`], reporting the scoring and the replay to `progress`.
pub fn run_with_progress(
    dataset: &Dataset,
    mut quarantine: Quarantine,
    settings: &RunSettings,
    previous: Option<PreviousRun>,
    progress: &dyn Progress,
) -> Result<RunOutput> {
    let started = Instant::now();
    let strict = settings.on_error == OnError::Strict;
    if let Some(until) = settings.until {
        quarantine.retain(|q| q.date.is_none_or(|date| date <= until));
    }
    let registry = Registry::new(&dataset.members);
    let (mut states, through) = match previous {
        Some(previous) => {
            let states = previous.states_for(&registry, &settings.factors)?;
            (states, previous.applied_through)
        }
        None => (registry.starting_states(&settings.factors)?, None),
    };

    // Only competitions after the previous run's last one, and up to `until`.
    let selected;
    let (dataset, skipped) = if through.is_some() || settings.until.is_some() {
        let mut d = dataset.clone();
        let before = d.competitions.len();
        if let Some(through) = &through {
            d.competitions.retain(|c| through.is_before(c));
        }
        let skipped = before - d.competitions.len();
        if let Some(until) = settings.until {
            d.competitions.retain(|c| c.date <= until);
        }
        selected = d;
        (&selected, skipped)
    } else {
        (dataset, 0)
    };

    progress.start("scoring", dataset.competitions.len() as u64);
    let scoring_started = Instant::now();
    let mut prepared = prepare::prepare(dataset, &registry, &settings.factors, &|| {
        progress.advance(1)
    });
    progress.finish();
    if strict {
        if let Some(error) = prepared.quarantined.first().and_then(|q| q.reasons.first()) {
            return Err(error.clone().into());
        }
    }
    quarantine.extend(std::mem::take(&mut prepared.quarantined));

    if let (Some(through), Mode::Frozen, Some(first)) =
        (&through, settings.mode, prepared.competitions.first())
    {
        if state::month_index(first.date) == state::month_index(through.date) {
            return Err(Error::Config(format!(
                "frozen mode continues month by month, but competition `{}` ({}) is in the month the previous run ended in ({})",
                first.competition_id, first.date, through.date
            )));
        }
    }

    progress.start("replaying", prepared.competitions.len() as u64);
    let scoring = scoring_started.elapsed();
    let replay_started = Instant::now();
    let before: Vec<f64> = states.iter().map(|s| s.handicap).collect();
    let replay = replay::replay(
        &settings.factors,
        settings.mode,
        &prepared.competitions,
        &mut states,
        &|n| progress.advance(n),
    );
    progress.finish();
    if let Some(failed) = replay.failed.first().filter(|_| strict) {
        return Err(replay::ReplayError {
            competition: prepared.competitions[failed.competition]
                .competition_id
                .clone(),
            source: failed.error.clone(),
        }
        .into());
    }
    quarantine.extend(
        replay
            .failed
            .iter()
            .map(|f| failed_competition(&prepared, f)),
    );
    leave_out_failed(&mut prepared, &replay.failed);
    let replaying = replay_started.elapsed();

    let applied_through = prepared
        .competitions
        .last()
        .map(AppliedThrough::of)
        .or(through);
    let last_date = applied_through.as_ref().map(|a| a.date);
    let ranking = ranking::rank(&registry.members, &states, &settings.ranking, last_date);
    let members_moved = before
        .iter()
        .zip(&states)
        .filter(|(b, s)| b.to_bits() != s.handicap.to_bits())
        .count();
    let quarantined = quarantine.into_sorted();
    let summary = RunSummary {
        competitions_applied: prepared.competitions.len()
            - replay.unrated.len()
            - replay.failed.len(),
        competitions_unrated: replay.unrated.len(),
        competitions_quarantined: quarantined.len(),
        competitions_skipped: skipped,
        members_moved,
        changes: replay.changes.len(),
        last_date,
        reading: Duration::ZERO,
        scoring,
        replaying,
        writing: Duration::ZERO,
        elapsed: started.elapsed(),
    };
    Ok(RunOutput {
        registry,
        states,
        prepared,
        replay,
        ranking,
        applied_through,
        quarantined,
        summary,
    })
}

/// A competition the model refused, as a quarantine entry naming its row and, when the
/// model's rule is about one entrant, that entrant.
fn failed_competition(prepared: &Prepared, failed: &replay::Failed) -> Quarantined {
    let competition = &prepared.competitions[failed.competition];
    let mut rule = failed.error.to_string();
    if let Some(name) = failed
        .error
        .entrant()
        .and_then(|i| competition.entrant_names.get(i))
    {
        rule = format!(
            "{rule} (entrant {} is `{name}`)",
            failed.error.entrant().unwrap_or(0)
        );
    }
    let location = competition
        .origin
        .location()
        .competition(&competition.competition_id);
    Quarantined {
        competition_id: competition.competition_id.clone(),
        date: Some(competition.date),
        session: Some(competition.session),
        reasons: vec![InputError::new(location, rule)],
    }
}

/// Takes the standings and board scores of competitions the model refused out of the
/// outputs: a quarantined competition is left out whole.
fn leave_out_failed(prepared: &mut Prepared, failed: &[replay::Failed]) {
    if failed.is_empty() {
        return;
    }
    let ids: std::collections::HashSet<String> = failed
        .iter()
        .map(|f| prepared.competitions[f.competition].competition_id.clone())
        .collect();
    prepared
        .standings
        .retain(|s| !ids.contains(s.competition_id.as_str()));
    prepared
        .board_scores
        .retain(|b| !ids.contains(b.competition_id.as_str()));
}
