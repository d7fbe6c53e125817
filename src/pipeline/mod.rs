//! Replaying the rated competitions in date order.
//!
//! A run is: read the dataset, score what came as table results, prepare each rated
//! competition for the model, replay them onto the members' handicaps (live or frozen by
//! month), and hand the result to `report`. A run may continue a previous run's state,
//! applying only the competitions after the last one it applied; continuing gives the
//! same handicaps as one run over the whole history. When the dataset no longer
//! matches what the previous run took into account (a corrected or withdrawn
//! competition, a late result), continuing would be wrong, so the history is replayed
//! from the start and the members whose handicap that corrects are listed.

mod competition;
pub mod ledger;
mod model_input;
pub mod passes;
pub mod prepare;
mod prepared;
pub mod progress;
pub mod ranking;
pub mod replay;
mod reported;
pub mod schedule;
pub mod score;
pub mod state;
pub mod state_io;
pub mod units;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use chrono::NaiveDate;

use crate::dataset::{BoardResult, Competition, Dataset};
use crate::error::{Error, InputError, Result};
use crate::model::FactorSet;
use crate::quarantine::{OnError, Quarantine, Quarantined};
use ranking::{RankedMember, RankingOptions};

pub use competition::EntrantRows;
pub use ledger::Difference;
use passes::Collected;
pub use passes::{BoardSource, InMemory};
pub use prepare::{Prepared, PreparedCompetition, Seat};
pub use progress::{NoProgress, Progress};
pub use replay::{Mode, ReplayOutput};
pub use state::{PlayerState, Registry};
pub use state_io::{AppliedThrough, PreviousRun, RunRecord};

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
    /// Keep every table result's board score for `board_scores.parquet` (the largest
    /// output; a monthly run rarely needs it).
    pub board_scores: bool,
    /// Which result of a competition with both board rows and reported results is rated.
    pub rate: Rate,
}

/// Which result is rated when a competition has both board rows and the results its
/// club's program published (`results`). The two are the same for a session whose
/// figures the importer reproduced; for one reported as `mismatch` they differ, and the
/// officer chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rate {
    /// The published result: the club's official one, the one its players saw.
    #[default]
    Published,
    /// The result recomputed from the board rows with the competition's conventions.
    Recomputed,
}

impl Rate {
    pub fn as_str(self) -> &'static str {
        match self {
            Rate::Published => "published",
            Rate::Recomputed => "recomputed",
        }
    }
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            factors: FactorSet::default(),
            mode: Mode::Live,
            ranking: RankingOptions::default(),
            until: None,
            on_error: OnError::Quarantine,
            board_scores: true,
            rate: Rate::default(),
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
    /// Every competition up to `applied_through`, with its content hash and what became
    /// of it: `applied.parquet`, which the next run compares with its dataset.
    pub ledger: Vec<ledger::Entry>,
    /// When a continued run found competitions changed, removed or added late: what
    /// it found. The history was then replayed from the start.
    pub replayed: Option<Difference>,
    /// Members whose handicap at the previous run's last competition differs after the
    /// replay from the start, in member-id order: `corrections.csv`.
    pub corrections: Vec<Correction>,
    /// Content hashes of the dataset and the factor set, for the run's manifest.
    pub dataset_sha256: String,
    pub factors_sha256: String,
    /// Each member's starting handicap, in registry order: `handicaps.parquet` keeps it
    /// so that the next run can tell a changed members row.
    pub starting: Vec<f64>,
    pub summary: RunSummary,
}

/// A member whose handicap a replay from the start corrected.
#[derive(Debug, Clone, PartialEq)]
pub struct Correction {
    /// Index into the registry.
    pub member_index: usize,
    /// What the previous run's state said (`None`: the state did not know the member,
    /// who started from the starting handicap).
    pub before: Option<f64>,
    /// The handicap after the same competitions, replayed from the corrected dataset.
    pub after: f64,
}

/// The figures printed at the end of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    pub competitions_applied: usize,
    /// Rated competitions the model could not rate (listed in `unrated.csv`).
    pub competitions_unrated: usize,
    /// Competitions left out because they break a rule (listed in `quarantine.csv`).
    pub competitions_quarantined: usize,
    /// Competitions the previous run already applied, not applied again.
    pub competitions_skipped: usize,
    /// Competitions changed, removed or added late since the previous run (they make
    /// the run replay the history from the start).
    pub competitions_corrected: usize,
    /// When the history was replayed from the start because of them: which they are.
    pub replayed: Option<String>,
    pub members_moved: usize,
    /// Members whose handicap the replay from the start corrected (`corrections.csv`).
    pub members_corrected: usize,
    /// Members the previous run did not know (every member, in a run from scratch).
    pub members_new: usize,
    /// Distinct players without a member row seen in the rated competitions.
    pub non_members_seen: usize,
    pub changes: usize,
    /// Members on the ranking list (all groups together).
    pub members_ranked: usize,
    /// Places taken in rated competitions by players who are not members (no number,
    /// or a number the register does not know): they count in the field, nobody moves.
    pub non_member_places: usize,
    pub last_date: Option<NaiveDate>,
    /// Time spent reading the dataset: its board rows (measured here) and the other
    /// tables (added by the caller that read them).
    pub reading: Duration,
    /// Time spent hashing the dataset's competitions (the ledger and the manifest).
    pub hashing: Duration,
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

type Key<'a> = (NaiveDate, i32, &'a str);

fn through_key(through: &AppliedThrough) -> Key<'_> {
    (
        through.date,
        through.session,
        through.competition_id.as_str(),
    )
}

/// The ledger entries of the competitions this run can see (the dataset's up to
/// `until`, and those the reader left out) up to `upto` in replay order, with `status`
/// giving each one's status by id.
fn view(
    competitions: &[&Competition],
    hashes: &HashMap<String, String>,
    reader_quarantined: &[ledger::Entry],
    until: Option<NaiveDate>,
    upto: Key,
    status: impl Fn(&str) -> ledger::Status,
) -> Vec<ledger::Entry> {
    let mut entries: Vec<ledger::Entry> = competitions
        .iter()
        .filter(|c| until.is_none_or(|u| c.date <= u) && c.order_key() <= upto)
        .map(|c| ledger::Entry {
            competition_id: c.competition_id.clone(),
            date: c.date,
            session: c.session,
            sha256: hashes.get(&c.competition_id).cloned(),
            status: status(&c.competition_id),
        })
        .chain(
            reader_quarantined
                .iter()
                .filter(|e| e.key() <= upto)
                .cloned(),
        )
        .collect();
    entries.sort_by(|a, b| a.key().cmp(&b.key()));
    entries
}

/// [`run_with`], reporting the scoring and the replay to `progress`.
pub fn run_with_progress(
    dataset: &Dataset,
    quarantine: Quarantine,
    settings: &RunSettings,
    previous: Option<PreviousRun>,
    progress: &dyn Progress,
) -> Result<RunOutput> {
    let mut boards = InMemory {
        boards: &dataset.boards,
        quarantine,
    };
    let rows = competition::EntrantRows::of(dataset);
    run_source(dataset, rows, &mut boards, settings, previous, progress)
}

/// The run over `head`'s members and competitions, the entrant and result rows `rows`
/// (taken out of `head` or borrowed from it: `head`'s own are not read, nor its board
/// rows) and the board rows `boards` gives, batch by batch. A run from
/// scratch reads them once, hashing and scoring each competition as its rows arrive; a
/// continued run first hashes everything (to compare with the state's ledger), then
/// reads again only what it applies. Either way only one batch of board rows is held.
pub fn run_source(
    head: &Dataset,
    rows: competition::EntrantRows<'_>,
    boards: &mut dyn BoardSource,
    settings: &RunSettings,
    previous: Option<PreviousRun>,
    progress: &dyn Progress,
) -> Result<RunOutput> {
    let started = Instant::now();
    let strict = settings.on_error == OnError::Strict;
    let registry = Registry::new(&head.members);
    let factors_sha256 = ledger::factor_hash(&settings.factors);
    if let Some(previous) = &previous {
        previous.check(settings, &factors_sha256)?;
    }
    let starting = registry.starting_states(&settings.factors)?;
    let index = competition::Index::new(&head.competitions, &rows.entrants, &rows.results);
    let until_ok = |at: usize| settings.until.is_none_or(|u| index.order[at].date <= u);
    let prepare = |at: usize, rows: &[&BoardResult]| {
        let mut one = prepare::prepare_one(
            index.order[at],
            &index.rows(at, rows),
            &registry,
            &settings.factors,
            settings.rate,
        )?;
        if !settings.board_scores {
            one.board_scores = Vec::new();
        }
        Ok(one)
    };

    // The first pass hashes every competition; without a state to compare with, it
    // also scores and prepares what this run applies.
    let one_pass = previous.is_none();
    let first_scope = |at: usize| one_pass && until_ok(at);
    let mut collected = Collected::new(index.order.len());
    if one_pass && settings.board_scores {
        collected.reserve_board_scores(boards.rows_hint());
    }
    progress.start(
        if one_pass { "scoring" } else { "hashing" },
        index.order.len() as u64,
    );
    collected.read(boards, &index, true, &first_scope, &prepare, &|n| {
        progress.advance(n)
    })?;
    let mut quarantine = boards.finish(head)?;
    if let Some(until) = settings.until {
        quarantine.retain(|q| q.date.is_none_or(|date| date <= until));
    }
    collected.rest(&index, &quarantine, true, &first_scope, &prepare);
    progress.finish();

    let live: Vec<usize> = (0..index.order.len())
        .filter(|&at| !quarantine.contains(&index.order[at].competition_id))
        .collect();
    let live_competitions: Vec<&Competition> = live.iter().map(|&at| index.order[at]).collect();
    let hashes: HashMap<String, String> = live
        .iter()
        .filter_map(|&at| {
            let hash = collected.hashes[at].clone()?;
            Some((index.order[at].competition_id.clone(), hash))
        })
        .collect();
    let dataset_sha256 = ledger::members_and_competitions_hash(&head.members, &hashes);
    let reader_quarantined: Vec<ledger::Entry> = {
        let items: Vec<Quarantined> = quarantine.iter().cloned().collect();
        ledger::quarantined_entries(&items)
    };

    // Continue the previous run's state, or, when the dataset no longer matches what it
    // took into account, replay from the start and list what that corrected.
    let mut replayed = None;
    let (mut states, through) = match &previous {
        Some(previous) => {
            let current = match &previous.applied_through {
                Some(through) => view(
                    &live_competitions,
                    &hashes,
                    &reader_quarantined,
                    settings.until,
                    through_key(through),
                    |_| ledger::Status::Applied,
                ),
                None => Vec::new(),
            };
            let mut difference =
                ledger::compare_scheme(&previous.ledger, &current, previous.record.ledger_scheme);
            previous.check_same_dataset(&difference)?;
            difference.members = previous.changed_starts(&registry, &starting);
            if difference.is_empty() {
                let states = previous.states_for(&registry, &settings.factors)?;
                (states, previous.applied_through.clone())
            } else {
                replayed = Some(difference);
                (starting.clone(), None)
            }
        }
        None => (starting.clone(), None),
    };
    // The handicaps the run starts from, as the previous state said (members it did
    // not know: their starting handicap).
    let before: Vec<f64> = match &previous {
        Some(previous) if replayed.is_some() => previous
            .states_for(&registry, &settings.factors)?
            .iter()
            .map(|s| s.handicap)
            .collect(),
        _ => states.iter().map(|s| s.handicap).collect(),
    };

    // Only competitions after the previous run's last one, and up to `until`.
    let after_through = |at: usize| {
        through
            .as_ref()
            .is_none_or(|t| t.is_before(index.order[at]))
    };
    let skipped = live.iter().filter(|&&at| !after_through(at)).count();
    let in_scope = |at: usize| until_ok(at) && after_through(at);
    let scope: Vec<usize> = live.iter().copied().filter(|&at| in_scope(at)).collect();
    if !one_pass {
        collected.next_pass();
        progress.start("scoring", scope.len() as u64);
        collected.read(boards, &index, false, &in_scope, &prepare, &|n| {
            progress.advance(n)
        })?;
        collected.rest(&index, &quarantine, false, &in_scope, &prepare);
        progress.finish();
    }
    let scope_competitions: Vec<&Competition> = scope.iter().map(|&at| index.order[at]).collect();
    let outcomes = collected.take_outcomes(&index, &scope)?;
    let (done, prepare_failed) = competition::split_outcomes(&scope_competitions, outcomes);
    let mut prepared = prepare::assemble(done, prepare_failed);
    prepared.board_scores = collected.board_scores(&scope);
    let hashing = collected.hashing;
    let board_reading = collected.reading;
    let collected_scoring = collected.scoring;
    drop(collected);
    // Scoring is done: the entrant and result rows can go before the replay.
    drop(index);
    drop(rows);
    if strict {
        if let Some(error) = prepared.quarantined.first().and_then(|q| q.reasons.first()) {
            return Err(error.clone().into());
        }
    }
    let prepare_quarantined: HashSet<String> = prepared
        .quarantined
        .iter()
        .map(|q| q.competition_id.clone())
        .collect();
    quarantine.extend(std::mem::take(&mut prepared.quarantined));

    // The previous run's last competition splits the replay: what came up to it (all
    // of it again when replaying from the start) and what is new.
    let boundary = previous.as_ref().and_then(|p| p.applied_through.clone());
    let split = match (&boundary, replayed.is_some()) {
        (Some(b), true) => prepared
            .competitions
            .iter()
            .take_while(|c| (c.date, c.session, c.competition_id.as_str()) <= through_key(b))
            .count(),
        _ => 0,
    };
    if let (Some(boundary), Mode::Frozen, Some(first)) =
        (&boundary, settings.mode, prepared.competitions.get(split))
    {
        if state::month_index(first.date) == state::month_index(boundary.date) {
            return Err(Error::Config(format!(
                "frozen mode continues month by month, but competition `{}` ({}) is in the month the previous run ended in ({})",
                first.competition_id, first.date, boundary.date
            )));
        }
    }

    progress.start("replaying", prepared.competitions.len() as u64);
    let replay_started = Instant::now();
    let advance = |n| progress.advance(n);
    let mut corrections = Vec::new();
    let replay = if let Some(previous) = previous.as_ref().filter(|_| replayed.is_some()) {
        let (old, new) = prepared.competitions.split_at(split);
        let first = replay::replay(&settings.factors, settings.mode, old, &mut states, &advance);
        for (i, (member, state)) in registry.members.iter().zip(&states).enumerate() {
            let known = previous.handicap_of(member.member_id);
            if known.unwrap_or(before[i]).to_bits() != state.handicap.to_bits() {
                corrections.push(Correction {
                    member_index: i,
                    before: known,
                    after: state.handicap,
                });
            }
        }
        let second = replay::replay(&settings.factors, settings.mode, new, &mut states, &advance);
        replay::join(first, second, split)
    } else {
        replay::replay(
            &settings.factors,
            settings.mode,
            &prepared.competitions,
            &mut states,
            &advance,
        )
    };
    progress.finish();
    if let Some(failed) = replay.failed.first().filter(|_| strict) {
        return Err(replay::ReplayError {
            competition: prepared.competitions[failed.competition]
                .competition_id
                .clone(),
            cause: failed.error.clone(),
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

    // The ledger: every competition up to the last one replayed, with what became of
    // it (this run's verdict, or the previous run's for what it already took).
    let mut status: HashMap<&str, ledger::Status> = HashMap::new();
    if let Some(previous) = &previous {
        for entry in &previous.ledger {
            status.insert(&entry.competition_id, entry.status);
        }
    }
    for c in &scope_competitions {
        if !c.rated {
            status.insert(&c.competition_id, ledger::Status::NotRated);
        } else if prepare_quarantined.contains(&c.competition_id) {
            status.insert(&c.competition_id, ledger::Status::Quarantined);
        }
    }
    for c in &prepared.competitions {
        status.insert(&c.competition_id, ledger::Status::Applied);
    }
    for u in &replay.unrated {
        status.insert(
            &prepared.competitions[u.competition].competition_id,
            ledger::Status::Unrated,
        );
    }
    for f in &replay.failed {
        status.insert(
            &prepared.competitions[f.competition].competition_id,
            ledger::Status::Quarantined,
        );
    }
    let ledger = match &applied_through {
        Some(through) => view(
            &live_competitions,
            &hashes,
            &reader_quarantined,
            settings.until,
            through_key(through),
            |id| status.get(id).copied().unwrap_or(ledger::Status::Applied),
        ),
        None => Vec::new(),
    };

    let last_date = applied_through.as_ref().map(|a| a.date);
    let ranking = ranking::rank(&registry.members, &states, &settings.ranking, last_date);
    let members_moved = before
        .iter()
        .zip(&states)
        .filter(|(b, s)| b.to_bits() != s.handicap.to_bits())
        .count();
    let members_new = registry
        .members
        .iter()
        .filter(|m| !previous.as_ref().is_some_and(|p| p.knows(m.member_id)))
        .count();
    let non_members_seen = replay
        .changes
        .iter()
        .filter(|c| c.seat == Seat::NonMember)
        .map(|c| c.member_id)
        .collect::<HashSet<_>>()
        .len();
    let quarantined = quarantine.into_sorted();
    let summary = RunSummary {
        competitions_applied: prepared.competitions.len()
            - replay.unrated.len()
            - replay.failed.len(),
        competitions_unrated: replay.unrated.len(),
        competitions_quarantined: quarantined.len(),
        competitions_skipped: skipped,
        competitions_corrected: replayed.as_ref().map_or(0, Difference::count),
        replayed: replayed.as_ref().map(Difference::describe),
        members_moved,
        members_corrected: corrections.len(),
        members_new,
        non_members_seen,
        changes: replay.changes.len(),
        members_ranked: ranking.len(),
        non_member_places: replay
            .changes
            .iter()
            .filter(|c| c.seat == Seat::NonMember)
            .count(),
        last_date,
        reading: board_reading,
        hashing,
        scoring: collected_scoring,
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
        ledger,
        replayed,
        corrections,
        dataset_sha256,
        factors_sha256,
        starting: starting.iter().map(|s| s.handicap).collect(),
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
        .retain_competitions(|id| !ids.contains(id));
}
