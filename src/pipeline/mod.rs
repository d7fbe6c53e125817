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
pub use crate::scoring::progress;
pub mod ranking;
pub mod replay;
mod reported;
pub mod schedule;
pub mod score;
pub mod sealed;
mod spill;
mod standing_groups;
pub mod state;
pub mod state_io;
mod streaming;
pub mod units;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use chrono::NaiveDate;

use crate::dataset::{Competition, Dataset};
use crate::error::{Error, InputError, Result};
use crate::model::FactorSet;
use crate::quarantine::{OnError, Quarantine, Quarantined};
use ranking::{RankedMember, RankingOptions};

pub use competition::{EntrantRows, Entrants};
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
    /// The ranking the federation publishes (`ranking_published.csv`): its board
    /// minimum also marks the handicaps below it as provisional.
    pub published: RankingOptions,
    /// Encodes the board scores into the output's row groups as they are produced
    /// (none: they are kept as rows until written).
    pub sealer: sealed::Sealer,
}

/// Which result is rated when a competition has both board rows and the results its
/// club's program published (`results`). The two are the same for a session whose
/// figures the importer reproduced; for one reported as `mismatch` they differ, and the
/// officer chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
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

crate::string_enum!(Mode, "mode", { "live" => Mode::Live, "frozen" => Mode::Frozen });

/// The published ranking's filters when a run names none, those of
/// `pipelines/ranking-export.toml`: at least 100 rated boards, active in the last 12
/// months. A handicap on fewer boards is an estimate still settling, as the EBU's NGS
/// withholds a grade under 300 boards.
pub fn published_ranking() -> RankingOptions {
    RankingOptions {
        min_boards: 100,
        active_months: Some(12),
        as_of: None,
        group_by: None,
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
            published: published_ranking(),
            sealer: sealed::Sealer::default(),
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
    /// The ranking the federation publishes ([`RunSettings::published`]).
    pub published: Vec<RankedMember>,
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
    /// The previous run's folder when this run continued it (not replayed from the
    /// start): its `changes.parquet` and `standings.parquet` hold every competition up to
    /// the one it applied last, and this run's outputs carry them ahead of its own rows,
    /// so that every folder answers for the whole history.
    pub carried_from: Option<std::path::PathBuf>,
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
    /// Competitions scored but not rated (`rated = false`, e.g. a club's teams
    /// evening): nobody moves for them.
    pub competitions_not_rated: usize,
    /// Competitions left out because they break a rule (listed in `quarantine.csv`).
    pub competitions_quarantined: usize,
    /// Competitions the previous run already applied, not applied again.
    pub competitions_skipped: usize,
    /// When the dataset's index let the run read the rows of some months only: how
    /// many months it read, of how many.
    pub months_read: Option<(usize, usize)>,
    /// Competitions changed, removed or added late since the previous run (they make
    /// the run replay the history from the start).
    pub competitions_corrected: usize,
    /// When the history was replayed from the start because of them: which they are.
    pub replayed: Option<Difference>,
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
    /// Members on the published ranking (`ranking_published.csv`).
    pub members_published: usize,
    /// Members with fewer rated boards than the published ranking's minimum, who have
    /// played: their handicap is provisional.
    pub members_provisional: usize,
    /// Places taken in rated competitions by players who are not members (no number,
    /// or a number the register does not know): they count in the field, nobody moves.
    pub non_member_places: usize,
    pub last_date: Option<NaiveDate>,
    /// Time spent reading the dataset: its board rows (measured here) and the other
    /// tables (added by the caller that read them).
    pub reading: Duration,
    /// Time spent on the dataset's content hashes (the ledger and the manifest):
    /// hashing the competitions the dataset's index does not vouch for, and (added by
    /// the caller that checked it) checking the index against the data files' bytes.
    pub hashing: Duration,
    /// Time spent scoring and preparing the competitions.
    pub scoring: Duration,
    /// Time spent replaying them onto the handicaps.
    pub replaying: Duration,
    /// Time spent writing the outputs (set by the caller that wrote them).
    pub writing: Duration,
    pub elapsed: Duration,
}

/// The run over a dataset held whole in memory (its own board rows, nothing left out
/// by a reader), continuing `previous` when given: [`run_source`] for tests and
/// studies.
pub fn run(
    dataset: &Dataset,
    settings: &RunSettings,
    previous: Option<PreviousRun>,
) -> Result<RunOutput> {
    let mut boards = InMemory {
        boards: &dataset.boards,
        quarantine: Quarantine::default(),
    };
    let rows = competition::EntrantRows::of(dataset);
    run_source(dataset, rows, &mut boards, settings, previous, &NoProgress)
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
    hashes: &[Option<ledger::ContentHash>],
    reader_quarantined: &[ledger::Entry],
    until: Option<NaiveDate>,
    upto: Key,
    status: impl Fn(&str) -> ledger::Status,
) -> Vec<ledger::Entry> {
    let mut entries: Vec<ledger::Entry> = competitions
        .iter()
        .zip(hashes)
        .filter(|(c, _)| until.is_none_or(|u| c.date <= u) && c.order_key() <= upto)
        .map(|(c, hash)| ledger::Entry {
            competition_id: c.competition_id.clone(),
            date: c.date,
            session: c.session,
            sha256: hash.as_ref().map(|hash| hash.text().into_owned()),
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

/// The run over `head`'s members and competitions, the entrant and result rows `rows`
/// (taken out of `head` or borrowed from it: `head`'s own are not read, nor its board
/// rows) and the board rows `boards` gives, batch by batch. A run from
/// scratch reads them once, hashing and scoring each competition as its rows arrive; a
/// continued run first hashes everything (to compare with the state's ledger), then
/// reads again only what it applies. Either way only one batch of board rows is held.
///
/// The run is these stages, in order: [`Run::read_and_score`] (the passes, with
/// [`Run::reconcile`] against the previous run between them), [`Run::replay`],
/// [`Run::ledger`], and [`Run::finish`] (the ranking and the summary).
pub fn run_source(
    head: &Dataset,
    rows: competition::EntrantRows<'_>,
    boards: &mut dyn BoardSource,
    settings: &RunSettings,
    previous: Option<PreviousRun>,
    progress: &dyn Progress,
) -> Result<RunOutput> {
    let known = ledger::Known::default();
    let run = run_source_known(
        head,
        rows,
        boards,
        settings,
        previous.as_ref(),
        progress,
        &known,
        ledger::Known::default(),
    )?;
    run.ok_or_else(|| Error::Config("a run over every competition found one unread".to_owned()))
}

/// [`run_source`] for a continued run whose caller read the rows of some months only:
/// `known` holds the content hashes (by id) of the competitions whose rows it left
/// unread, which the dataset's index vouches for (see [`ledger::plan_reading`]). Their
/// rows are neither hashed nor checked (the index was built by the same reader, and
/// rows and checks are per competition); the run continues the previous one after
/// them. `None` when the run has to replay from the start after all (a changed member,
/// a state another version wrote): the caller then reads everything and runs again.
///
/// `vouched` holds the content hashes (by id) the index vouches for of competitions
/// whose rows the run does read: they are read, checked and scored as any, but not
/// hashed again (the index's hash was taken by the same reader of the same bytes).
/// They are moved into the run's own list, not copied: at 90 000 members the map and
/// a copy of each hash beside it held about a tenth of a gigabyte.
#[allow(clippy::too_many_arguments)]
pub fn run_source_known(
    head: &Dataset,
    rows: competition::EntrantRows<'_>,
    boards: &mut dyn BoardSource,
    settings: &RunSettings,
    previous: Option<&PreviousRun>,
    progress: &dyn Progress,
    known: &ledger::Known,
    vouched: ledger::Known,
) -> Result<Option<RunOutput>> {
    let started = Instant::now();
    let run = Run::new(head, settings, previous, progress)?;
    let Some(mut scored) = run.read_and_score(rows, boards, known, vouched, true)? else {
        return Ok(None);
    };
    let replayed = match scored.streamed.take() {
        Some((replay, replaying)) => run.replayed(&mut scored, replay, Vec::new(), replaying)?,
        None => run.replay(&mut scored)?,
    };
    let ledger = run.ledger(&scored, &replayed);
    Ok(Some(run.finish(scored, replayed, ledger, started)))
}

/// The competitions of `head` scored and prepared as a run from scratch does (the
/// board rows read batch by batch, each competition's model input held packed), and not
/// replayed: what a study replays once per factor set. The standings and board scores
/// are not kept; the competitions that broke a rule are counted. `vouched` holds the
/// content hashes the dataset's index vouches for, which are not taken again.
pub fn prepare_source(
    head: &Dataset,
    rows: competition::EntrantRows<'_>,
    boards: &mut dyn BoardSource,
    settings: &RunSettings,
    vouched: ledger::Known,
    progress: &dyn Progress,
) -> Result<(Vec<PreparedCompetition>, usize)> {
    let run = Run::new(head, settings, None, progress)?;
    let known = ledger::Known::default();
    let scored = run
        .read_and_score(rows, boards, &known, vouched, false)?
        .ok_or_else(|| Error::Config("a study found a competition it had not read".into()))?;
    let quarantined = scored.quarantine.len();
    Ok((scored.prepared.competitions, quarantined))
}

/// What every stage of a run reads: its inputs and what is set up from them once.
struct Run<'a> {
    head: &'a Dataset,
    settings: &'a RunSettings,
    previous: Option<&'a PreviousRun>,
    progress: &'a dyn Progress,
    registry: Registry,
    /// Each member's state before any competition.
    starting: Vec<PlayerState>,
    factors_sha256: String,
}

/// What the passes found: the competitions this run can see, hashed, and those it
/// applies scored and prepared.
struct ScoredRun<'a> {
    seen: Seen<'a>,
    /// Where the replay starts from.
    start: Start,
    /// Live competitions the previous run already applied.
    skipped: usize,
    prepared: Prepared,
    quarantine: Quarantine,
    /// Competitions in scope that are not rated, and those preparing quarantined.
    not_rated: Vec<&'a str>,
    prepare_quarantined: HashSet<String>,
    reading: Duration,
    hashing: Duration,
    scoring: Duration,
    /// When the months were replayed as they were scored: the replay's output and the
    /// time it took.
    streamed: Option<(ReplayOutput, Duration)>,
}

/// What the second pass over the board rows works with: the index, the reader's
/// quarantine, which places are in scope and the work on each.
type SecondPass<'p, 'i> = (
    &'p competition::Index<'i, 'i>,
    &'p Quarantine,
    &'p (dyn Fn(usize) -> bool + Sync),
    &'p passes::PrepareOne<'p, prepare::OneCompetition>,
);

/// What the first pass over the board rows works with.
struct FirstPass<'i, 'c, 'r> {
    index: &'i competition::Index<'c, 'r>,
    in_scope: &'i (dyn Fn(usize) -> bool + Sync),
    prepare: &'i passes::PrepareOne<'i, prepare::OneCompetition>,
    known: &'i ledger::Known,
}

impl FirstPass<'_, '_, '_> {
    /// The first pass as a pass over the competitions: every one hashed, those in its
    /// scope worked on.
    fn pass(&self) -> passes::Pass<'_, prepare::OneCompetition> {
        passes::Pass {
            index: self.index,
            hash: true,
            in_scope: self.in_scope,
            one: self.prepare,
        }
    }
}

/// Where the replay starts, once the previous run's ledger is compared with the
/// dataset.
struct Start {
    states: Vec<PlayerState>,
    /// The previous run's last competition, when the run continues after it.
    through: Option<AppliedThrough>,
    /// What differed, when the history is replayed from the start instead.
    replayed: Option<Difference>,
    /// The handicaps the run starts from, as the previous state said (members it did
    /// not know: their starting handicap).
    before: Vec<f64>,
}

/// The replay's result with what it corrected.
struct Replayed {
    replay: ReplayOutput,
    corrections: Vec<Correction>,
    applied_through: Option<AppliedThrough>,
    replaying: Duration,
}

impl<'a> Run<'a> {
    fn new(
        head: &'a Dataset,
        settings: &'a RunSettings,
        previous: Option<&'a PreviousRun>,
        progress: &'a dyn Progress,
    ) -> Result<Self> {
        let registry = Registry::new(&head.members);
        let factors_sha256 = ledger::factor_hash(&settings.factors);
        if let Some(previous) = previous {
            previous.check(settings, &factors_sha256)?;
        }
        let starting = registry.starting_states(&settings.factors)?;
        Ok(Run {
            head,
            settings,
            previous,
            progress,
            registry,
            starting,
            factors_sha256,
        })
    }

    fn strict(&self) -> bool {
        self.settings.on_error == OnError::Strict
    }

    fn until_ok(&self, competition: &Competition) -> bool {
        self.settings.until.is_none_or(|u| competition.date <= u)
    }

    /// Scores and prepares the competition at `at` from its rows.
    fn prepare(
        &self,
        index: &competition::Index<'_, '_>,
        at: usize,
        rows: &competition::Rows<'_>,
    ) -> std::result::Result<prepare::OneCompetition, InputError> {
        let mut one = prepare::prepare_one(
            index.order[at],
            rows,
            &self.registry,
            &self.settings.factors,
            self.settings.rate,
        )?;
        if !self.settings.board_scores {
            one.board_scores = Vec::new();
        }
        Ok(one)
    }

    /// Stage 1: the passes over the board rows. The first hashes every competition
    /// (and, without a state to compare with, also scores what this run applies); the
    /// run is reconciled with the previous one; a continued run then reads again what
    /// it applies. The entrant and result rows go when this returns. With
    /// `replay_as_read`, a live run from scratch replays each month as soon as it is
    /// scored ([`streaming`]).
    fn read_and_score(
        &self,
        rows: competition::EntrantRows<'_>,
        boards: &mut dyn BoardSource,
        known: &ledger::Known,
        vouched: ledger::Known,
        replay_as_read: bool,
    ) -> Result<Option<ScoredRun<'a>>> {
        let index = competition::Index::new(&self.head.competitions, &rows.entrants, &rows.results);
        let prepare = |at: usize, rows: &competition::Rows<'_>| self.prepare(&index, at, rows);
        let one_pass = self.previous.is_none();
        let first_scope = |at: usize| one_pass && self.until_ok(index.order[at]);
        let mut collected = Collected::new(index.order.len(), &self.settings.sealer);
        // The competitions whose rows the index vouches for are taken as hashed.
        collected.vouch(&index, vouched);
        if one_pass && self.settings.board_scores {
            collected.reserve_board_scores(boards.rows_hint());
        }
        let first = FirstPass {
            index: &index,
            in_scope: &first_scope,
            prepare: &prepare,
            known,
        };
        let mut states = self.starting.clone();
        let mut stream = match replay_as_read && self.replays_as_read() {
            true => Some(self.streaming(&mut states, &first, &*boards, rows.entrants.len())?),
            false => None,
        };
        let mut quarantine =
            self.first_pass(&mut collected, boards, &first, one_pass, stream.as_mut())?;
        if let Some(stream) = &mut stream {
            stream.advance(&mut collected, &first.pass(), Some(&quarantine))?;
        }
        let seen = Seen::of(self.head, &index, &mut collected, &quarantine);
        let mut start = self.reconcile(&seen)?;
        if !known.is_empty() && start.replayed.is_some() {
            return Ok(None);
        }
        let after_through = |at: usize| {
            let through = start.through.as_ref();
            through.is_none_or(|t| t.is_before(index.order[at]))
        };
        let in_scope = |at: usize| self.until_ok(index.order[at]) && after_through(at);
        let skipped = seen.live.iter().filter(|&&at| !after_through(at)).count();
        let scope: Vec<usize> = seen
            .live
            .iter()
            .copied()
            .filter(|&at| in_scope(at))
            .collect();
        let second: SecondPass<'_, '_> = (&index, &quarantine, &in_scope, &prepare);
        let (mut prepared, streamed) =
            self.applied(stream, &mut collected, boards, second, &scope)?;
        if streamed.is_some() {
            start.states = states;
        }
        prepared.board_scores = collected.board_scores(&scope)?;
        let prepare_quarantined = self.take_prepare_failures(&mut prepared, &mut quarantine)?;
        let not_rated = scope.iter().map(|&at| index.order[at]).filter(|c| !c.rated);
        Ok(Some(ScoredRun {
            seen: Seen {
                live: Vec::new(),
                ..seen
            },
            start,
            skipped,
            prepared,
            quarantine,
            not_rated: not_rated.map(|c| c.competition_id.as_str()).collect(),
            prepare_quarantined,
            reading: collected.reading,
            hashing: collected.hashing,
            scoring: collected.scoring,
            streamed,
        }))
    }

    /// The competitions at `scope` (in replay order) scored and put together: as the
    /// months replayed as read took them when they are these, else scored (again) in
    /// a second pass (a continued run's, or a run from scratch whose reading left out
    /// a competition it had replayed) and put together for the replay. The replay's
    /// output comes with them when the months were replayed as read.
    fn applied(
        &self,
        stream: Option<streaming::Streaming<'_>>,
        collected: &mut Collected<prepare::OneCompetition>,
        boards: &mut dyn BoardSource,
        second: SecondPass<'_, '_>,
        scope: &[usize],
    ) -> Result<(Prepared, Option<(ReplayOutput, Duration)>)> {
        let one_pass = self.previous.is_none();
        let attempted = stream.is_some();
        let stream = stream.filter(|stream| stream.took(scope));
        if !one_pass || (attempted && stream.is_none()) {
            if one_pass && second.0.rows_released() {
                // The months replayed let go of their rows: scoring them again would
                // read none. Competitions the reading's end leaves out are passed over
                // as they come, so this is not expected.
                return Err(Error::Config(
                    "the replay fed as the rows came took a competition the reading left out, and the rows to score it again were let go of".to_owned(),
                ));
            }
            if one_pass {
                *collected = collected.again(&self.settings.sealer);
            } else {
                collected.next_pass();
            }
            self.second_pass(collected, boards, second, scope.len())?;
        }
        // No pass follows: the checks' own copy of every entrant goes before the
        // outcomes are put together.
        boards.release();
        match stream {
            Some(stream) => {
                let streamed = stream.finish()?;
                let replay = (streamed.replay, streamed.replaying);
                Ok((streamed.prepared, Some(replay)))
            }
            None => Ok((collected.assemble(second.0, scope)?, None)),
        }
    }

    /// Whether a run replays each month as soon as it is scored: a run from scratch
    /// whose changes are sealed as they come, live or frozen (a frozen month is
    /// complete, and rated on its opening handicaps, once the next month's first
    /// competition is taken); a continued run compares with its state first.
    fn replays_as_read(&self) -> bool {
        self.previous.is_none() && self.settings.sealer.changes.is_some()
    }

    /// The replay fed from the first pass ([`streaming::Streaming`]), onto `states`.
    fn streaming<'s>(
        &'s self,
        states: &'s mut [PlayerState],
        first: &FirstPass<'_, '_, '_>,
        boards: &dyn BoardSource,
        lines: usize,
    ) -> Result<streaming::Streaming<'s>> {
        let changes = self.settings.sealer.changes.as_deref();
        let (factors, mode) = (&self.settings.factors, self.settings.mode);
        let mut releasing = replay::Releasing::new(factors, mode, states, changes, usize::MAX);
        if let Some(files) = &self.settings.sealer.groups {
            releasing.spill_changes(files.create()?);
        }
        let order = &first.index.order;
        let has_rows = order
            .iter()
            .map(|c| boards.has_rows(&c.competition_id))
            .collect();
        // Taken and replayed, such a competition would send the run back to score
        // everything again without it, and its rows are let go of once taken.
        let left_out = order
            .iter()
            .map(|c| boards.left_out_at_the_end(&c.competition_id))
            .collect();
        let rated = (0..order.len())
            .filter(|&at| order[at].rated && (first.in_scope)(at))
            .count();
        let standings = match &self.settings.sealer.standings {
            Some(codec) => {
                let file = self.settings.sealer.groups.as_ref();
                let file = file.map(|files| files.create()).transpose()?;
                let groups = spill::EncodedGroups::new("standings.parquet", file);
                Some(standing_groups::StandingGroups::new(codec.as_ref(), groups))
            }
            None => None,
        };
        let sizes = (lines, rated);
        Ok(streaming::Streaming::new(
            releasing,
            (has_rows, left_out),
            sizes,
            standings,
        ))
    }

    /// The pass that scores what the run applies after the first pass hashed
    /// everything: a continued run's, or a run from scratch whose months replayed as
    /// read were not the ones it applies.
    fn second_pass(
        &self,
        collected: &mut Collected<prepare::OneCompetition>,
        boards: &mut dyn BoardSource,
        (index, quarantine, in_scope, prepare): SecondPass<'_, '_>,
        scope: usize,
    ) -> Result<()> {
        let advance = |n| self.progress.advance(n);
        self.progress.start("scoring", scope as u64);
        collected.read(boards, index, false, in_scope, prepare, &advance)?;
        collected.rest(index, quarantine, false, in_scope, prepare)?;
        self.progress.finish();
        Ok(())
    }

    /// The first pass: every competition's rows read and hashed (and, in a run from
    /// scratch, scored and prepared), and what the reader left out; the competitions
    /// whose rows the dataset's index vouches for are taken as seen.
    fn first_pass(
        &self,
        collected: &mut Collected<prepare::OneCompetition>,
        boards: &mut dyn BoardSource,
        first: &FirstPass<'_, '_, '_>,
        one_pass: bool,
        mut stream: Option<&mut streaming::Streaming<'_>>,
    ) -> Result<Quarantine> {
        let label = if one_pass { "scoring" } else { "hashing" };
        self.progress.start(label, first.index.order.len() as u64);
        let advance = |n| self.progress.advance(n);
        let pass = first.pass();
        let mut replay = |collected: &mut Collected<prepare::OneCompetition>| {
            let started = Instant::now();
            if let Some(stream) = stream.as_deref_mut() {
                stream.advance(collected, &pass, None)?;
            }
            Ok(started.elapsed())
        };
        collected.read_then(boards, &pass, &advance, &mut replay)?;
        let mut quarantine = boards.finish(self.head)?;
        if let Some(until) = self.settings.until {
            quarantine.retain(|q| q.date.is_none_or(|date| date <= until));
        }
        if !first.known.is_empty() {
            // Rules that need every table fail for a competition whose rows were not
            // read; its hash, from the same reader, says it passed them.
            quarantine.retain(|q| !first.known.contains_key(&q.competition_id));
            collected.know(first.index, first.known);
        }
        collected.rest(
            first.index,
            &quarantine,
            true,
            first.in_scope,
            first.prepare,
        )?;
        self.progress.finish();
        Ok(quarantine)
    }

    /// Moves the competitions that failed in scoring or preparing into the
    /// quarantine, or, strict, stops at the first one.
    fn take_prepare_failures(
        &self,
        prepared: &mut Prepared,
        quarantine: &mut Quarantine,
    ) -> Result<HashSet<String>> {
        if let Some(error) = self.settings.on_error.first_error(&prepared.quarantined) {
            return Err(error.into());
        }
        let ids = prepared
            .quarantined
            .iter()
            .map(|q| q.competition_id.clone())
            .collect();
        quarantine.extend(std::mem::take(&mut prepared.quarantined));
        Ok(ids)
    }

    /// Stage 2 (between the passes): continue the previous run's state, or, when the
    /// dataset no longer matches what it took into account, start from the members'
    /// starting states and replay everything.
    fn reconcile(&self, seen: &Seen<'a>) -> Result<Start> {
        let fresh = |replayed| Start {
            states: self.starting.clone(),
            through: None,
            replayed,
            before: self.starting.iter().map(|s| s.handicap).collect(),
        };
        let Some(previous) = self.previous else {
            return Ok(fresh(None));
        };
        let current = match &previous.applied_through {
            Some(through) => seen.view(self.settings.until, through_key(through), |_| {
                ledger::Status::Applied
            }),
            None => Vec::new(),
        };
        let scheme = previous.record.ledger_scheme;
        let mut difference = ledger::compare_scheme(&previous.ledger, &current, scheme);
        previous.check_same_dataset(&difference)?;
        difference.members = previous.changed_starts(&self.registry, &self.starting);
        difference.partial_history = previous.partial_history;
        let known = previous.states_for(&self.registry, &self.settings.factors)?;
        let before = known.iter().map(|s| s.handicap).collect();
        if difference.is_empty() {
            let through = previous.applied_through.clone();
            return Ok(Start {
                states: known,
                through,
                replayed: None,
                before,
            });
        }
        Ok(Start {
            before,
            ..fresh(Some(difference))
        })
    }
}

/// The competitions the first pass saw: those left in, their hashes, and what the
/// reader left out.
struct Seen<'a> {
    /// Places (in replay order) of the competitions no reader or check left out.
    live: Vec<usize>,
    competitions: Vec<&'a Competition>,
    /// The content hash of each of `competitions`, in their order.
    hashes: Vec<Option<ledger::ContentHash>>,
    dataset_sha256: String,
    reader_quarantined: Vec<ledger::Entry>,
}

impl<'a> Seen<'a> {
    fn of(
        head: &Dataset,
        index: &competition::Index<'a, '_>,
        collected: &mut Collected<prepare::OneCompetition>,
        quarantine: &Quarantine,
    ) -> Self {
        let live: Vec<usize> = (0..index.order.len())
            .filter(|&at| !quarantine.contains(&index.order[at].competition_id))
            .collect();
        // The hashes are taken out: the passes after this one do not hash.
        let hashes: Vec<Option<ledger::ContentHash>> =
            live.iter().map(|&at| collected.hashes[at].take()).collect();
        let competitions: Vec<&Competition> = live.iter().map(|&at| index.order[at]).collect();
        let pairs = competitions
            .iter()
            .zip(&hashes)
            .filter_map(|(c, hash)| Some((c.competition_id.as_str(), hash.as_ref()?)));
        let items: Vec<Quarantined> = quarantine.iter().cloned().collect();
        Seen {
            dataset_sha256: ledger::members_and_hashes(&head.members, pairs.collect()),
            competitions,
            live,
            hashes,
            reader_quarantined: ledger::quarantined_entries(&items),
        }
    }

    /// The ledger entries up to `upto` ([`view`]).
    fn view(
        &self,
        until: Option<NaiveDate>,
        upto: Key,
        status: impl Fn(&str) -> ledger::Status,
    ) -> Vec<ledger::Entry> {
        view(
            &self.competitions,
            &self.hashes,
            &self.reader_quarantined,
            until,
            upto,
            status,
        )
    }
}

impl<'a> Run<'a> {
    /// Stage 3: the replay onto the handicaps. Replaying from the start, it stops at
    /// the previous run's last competition to compare with what the state said
    /// (`corrections.csv`), then goes on. Competitions the model refuses join the
    /// quarantine (or, strict, stop the run).
    fn replay(&self, scored: &mut ScoredRun<'a>) -> Result<Replayed> {
        let split = self.split(&scored.prepared, scored.start.replayed.is_some())?;
        self.progress
            .start("replaying", scored.prepared.competitions.len() as u64);
        let started = Instant::now();
        let advance = |n| self.progress.advance(n);
        let (factors, mode) = (&self.settings.factors, self.settings.mode);
        let states = &mut scored.start.states;
        let mut corrections = Vec::new();
        let replay = match self.previous.filter(|_| scored.start.replayed.is_some()) {
            Some(previous) => {
                let (old, new) = scored.prepared.competitions.split_at_mut(split);
                let first = replay::replay_releasing(factors, mode, old, states, None, &advance)?;
                corrections = self.corrections(previous, &scored.start.before, states);
                let second = replay::replay_releasing(factors, mode, new, states, None, &advance)?;
                replay::join(first, second, split)
            }
            None => {
                // A run that carries the previous folder's changes writes its own whole.
                let changes = self.settings.sealer.changes.as_deref();
                let changes = changes.filter(|_| self.previous.is_none());
                let competitions = &mut scored.prepared.competitions;
                replay::replay_releasing(factors, mode, competitions, states, changes, &advance)?
            }
        };
        self.progress.finish();
        self.replayed(scored, replay, corrections, started.elapsed())
    }

    /// What follows the replay (`replay`, which took `replaying`): the competitions
    /// the model refused join the quarantine (or, strict, stop the run).
    fn replayed(
        &self,
        scored: &mut ScoredRun<'a>,
        replay: ReplayOutput,
        corrections: Vec<Correction>,
        replaying: Duration,
    ) -> Result<Replayed> {
        let prepared = &scored.prepared;
        if let Some(failed) = replay.failed.first().filter(|_| self.strict()) {
            return Err(replay::ReplayError {
                competition: prepared.competitions[failed.competition]
                    .competition_id
                    .clone(),
                cause: failed.error.clone(),
            }
            .into());
        }
        let failed = replay
            .failed
            .iter()
            .map(|f| failed_competition(prepared, f));
        scored.quarantine.extend(failed.collect::<Vec<_>>());
        leave_out_failed(&mut scored.prepared, &replay.failed)?;
        let applied_through = scored
            .prepared
            .competitions
            .last()
            .map(AppliedThrough::of)
            .or(scored.start.through.clone());
        Ok(Replayed {
            replay,
            corrections,
            applied_through,
            replaying,
        })
    }

    /// Where the previous run's last competition splits the prepared ones when the
    /// history is replayed from the start (what came up to it, and what is new), and
    /// the check that a frozen run continues in a later month.
    fn split(&self, prepared: &Prepared, from_start: bool) -> Result<usize> {
        let boundary = self.previous.and_then(|p| p.applied_through.as_ref());
        let split = match (boundary, from_start) {
            (Some(b), true) => prepared
                .competitions
                .iter()
                .take_while(|c| (c.date, c.session, c.competition_id.as_str()) <= through_key(b))
                .count(),
            _ => 0,
        };
        if let (Some(boundary), Mode::Frozen, Some(first)) = (
            boundary,
            self.settings.mode,
            prepared.competitions.get(split),
        ) {
            if state::month_index(first.date) == state::month_index(boundary.date) {
                return Err(Error::Config(format!(
                    "frozen mode continues month by month, but competition `{}` ({}) is in the month the previous run ended in ({})",
                    first.competition_id, first.date, boundary.date
                )));
            }
        }
        Ok(split)
    }

    /// The members whose handicap at the previous run's last competition differs
    /// from what its state said.
    fn corrections(
        &self,
        previous: &PreviousRun,
        before: &[f64],
        states: &[PlayerState],
    ) -> Vec<Correction> {
        let members = self.registry.members.iter().zip(states).enumerate();
        members
            .filter_map(|(i, (member, state))| {
                let known = previous.handicap_of(member.member_id);
                let differs = known.unwrap_or(before[i]).to_bits() != state.handicap.to_bits();
                differs.then_some(Correction {
                    member_index: i,
                    before: known,
                    after: state.handicap,
                })
            })
            .collect()
    }

    /// Stage 4: the ledger, every competition up to the last one replayed with what
    /// became of it (this run's verdict, or the previous run's for what it already
    /// took).
    fn ledger(&self, scored: &ScoredRun<'a>, replayed: &Replayed) -> Vec<ledger::Entry> {
        let Some(through) = &replayed.applied_through else {
            return Vec::new();
        };
        let mut status: rustc_hash::FxHashMap<&str, ledger::Status> =
            rustc_hash::FxHashMap::default();
        for entry in self.previous.iter().flat_map(|p| &p.ledger) {
            status.insert(&entry.competition_id, entry.status);
        }
        for id in &scored.prepare_quarantined {
            status.insert(id, ledger::Status::Quarantined);
        }
        for id in &scored.not_rated {
            status.insert(id, ledger::Status::NotRated);
        }
        let competitions = &scored.prepared.competitions;
        for c in competitions {
            status.insert(&c.competition_id, ledger::Status::Applied);
        }
        let replay = &replayed.replay;
        for u in &replay.unrated {
            status.insert(
                &competitions[u.competition].competition_id,
                ledger::Status::Unrated,
            );
        }
        for f in &replay.failed {
            status.insert(
                &competitions[f.competition].competition_id,
                ledger::Status::Quarantined,
            );
        }
        scored
            .seen
            .view(self.settings.until, through_key(through), |id| {
                status.get(id).copied().unwrap_or(ledger::Status::Applied)
            })
    }

    /// Stage 5: the ranking, the summary and the run's output.
    fn finish(
        self,
        scored: ScoredRun<'a>,
        replayed: Replayed,
        ledger: Vec<ledger::Entry>,
        started: Instant,
    ) -> RunOutput {
        let last_date = replayed.applied_through.as_ref().map(|a| a.date);
        let states = scored.start.states;
        let ranking = ranking::rank(
            &self.registry.members,
            &states,
            &self.settings.ranking,
            last_date,
        );
        let published = ranking::rank(
            &self.registry.members,
            &states,
            &self.settings.published,
            last_date,
        );
        let quarantined = scored.quarantine.into_sorted();
        let difference = scored.start.replayed;
        let carried_from = self
            .previous
            .filter(|_| difference.is_none())
            .map(|p| p.folder.clone());
        let replay = replayed.replay;
        let summary = RunSummary {
            competitions_applied: scored.prepared.competitions.len()
                - replay.unrated.len()
                - replay.failed.len(),
            competitions_unrated: replay.unrated.len(),
            competitions_not_rated: scored.not_rated.len(),
            competitions_quarantined: quarantined.len(),
            competitions_skipped: scored.skipped,
            months_read: None,
            competitions_corrected: difference.as_ref().map_or(0, Difference::count),
            replayed: difference.clone(),
            members_moved: moved(&scored.start.before, &states),
            members_corrected: replayed.corrections.len(),
            members_new: self.members_new(),
            non_members_seen: non_members(&replay).collect::<HashSet<_>>().len(),
            changes: replay.change_count(),
            members_ranked: ranking.len(),
            members_published: published.len(),
            members_provisional: self.members_provisional(&states),
            non_member_places: non_members(&replay).count(),
            last_date,
            reading: scored.reading,
            hashing: scored.hashing,
            scoring: scored.scoring,
            replaying: replayed.replaying,
            writing: Duration::ZERO,
            elapsed: started.elapsed(),
        };
        RunOutput {
            registry: self.registry,
            states,
            prepared: scored.prepared,
            replay,
            ranking,
            published,
            applied_through: replayed.applied_through,
            quarantined,
            ledger,
            replayed: difference,
            corrections: replayed.corrections,
            carried_from,
            dataset_sha256: scored.seen.dataset_sha256,
            factors_sha256: self.factors_sha256,
            starting: self.starting.iter().map(|s| s.handicap).collect(),
            summary,
        }
    }

    /// Members with fewer rated boards than the published ranking's minimum, who have
    /// played: their handicap is provisional.
    fn members_provisional(&self, states: &[PlayerState]) -> usize {
        let min = self.settings.published.min_boards;
        let members = self.registry.members.iter().zip(states);
        members
            .filter(|(m, s)| {
                m.kind == crate::dataset::MemberKind::Member && s.boards > 0 && s.boards < min
            })
            .count()
    }

    /// Members the previous run did not know (every member, in a run from scratch).
    fn members_new(&self) -> usize {
        let known = |id| self.previous.is_some_and(|p| p.knows(id));
        self.registry
            .members
            .iter()
            .filter(|m| !known(m.member_id))
            .count()
    }
}

/// How many members' handicaps differ between `before` and `states`.
fn moved(before: &[f64], states: &[PlayerState]) -> usize {
    let differs = |(b, s): (&f64, &PlayerState)| b.to_bits() != s.handicap.to_bits();
    before
        .iter()
        .zip(states)
        .filter(|&pair| differs(pair))
        .count()
}

/// The ids of the non-members in the replay's changes, one per place they took.
fn non_members(replay: &ReplayOutput) -> impl Iterator<Item = i64> + '_ {
    replay.non_member_changes().map(|c| c.member_id)
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
fn leave_out_failed(prepared: &mut Prepared, failed: &[replay::Failed]) -> Result<()> {
    if failed.is_empty() {
        return Ok(());
    }
    let ids: std::collections::HashSet<String> = failed
        .iter()
        .map(|f| prepared.competitions[f.competition].competition_id.clone())
        .collect();
    prepared
        .standings
        .retain_competitions(|id| !ids.contains(id));
    prepared
        .board_scores
        .retain_competitions(|id| !ids.contains(id))
}
