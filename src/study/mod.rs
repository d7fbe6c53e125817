//! Studies: how well factor sets, and the standard ratings, predict results.
//!
//! A handicap is a prediction: before a competition it says who should beat whom by how
//! much. A study replays the same history once per factor set (read and scored once,
//! replayed in parallel), and judges each set only by what it knew before each
//! competition: Pearson's r and the RMSE of expected against achieved percentages, the
//! calibration slope and bias, per period and per year. Baselines (a running average, Elo,
//! Weng-Lin) are run over the same fields in the same order and judged the same way, with
//! their one parameter tuned on the burn-in period only, so the test period is never
//! seen by any tuning. Rank comparisons (against the first set, an external list, or a
//! synthetic federation's hidden skill) show how far the sets agree on who is strong.
//!
//! The figures are computed on the matchpoint fields (pairs and individual events scored
//! by topscore): their unit, percent over 50, is the same in every club and every
//! baseline predicts it directly. IMP events still move the handicaps in the replay;
//! a factor set's expected against achieved IMPs per board is reported beside
//! (`imp_pearson_r`, …), without intervals and without baselines, which have no IMP form.
//!
//! Every test-period figure has a 95 % interval from a bootstrap over sessions, and every
//! track is compared with the best baseline on the same draws (see [`bootstrap`]).

pub mod baselines;
pub mod bootstrap;
pub mod derive;
mod glicko2;
pub mod history;
pub mod html;
pub mod metrics;
pub mod output;
pub mod subgroups;
mod trueskill;

use std::collections::{BTreeMap, HashMap};

use chrono::{Datelike, Months, NaiveDate};
use rayon::prelude::*;

use crate::dataset::{Dataset, MemberId};
use crate::error::{Error, Result};
use crate::model::{CalcMethod, FieldKind};
use std::path::Path;

use crate::pipeline::prepare::{self, PreparedCompetition, Seat};
use crate::pipeline::replay::{self, Mode};
use crate::pipeline::state::{month_index, Registry};
use crate::pipeline::{Progress, RunSettings};
use crate::quarantine::OnError;

use baselines::{Baseline, Field, FieldEntrant};
pub use derive::StudySet;

/// How a study is judged.
#[derive(Debug, Clone, Default)]
pub struct StudyOptions {
    /// Competitions up to and including this day are the burn-in (default: the first
    /// year, up to the day before the first competition's anniversary).
    pub burn_in_until: Option<NaiveDate>,
    /// An external ranking (member id, rating) to compare the final handicaps with.
    pub reference: Option<Vec<(MemberId, f64)>>,
    /// A synthetic federation's hidden skill per member and month.
    pub truth: Option<Truth>,
    /// Also study the whole-history rating refitted before each day
    /// ([`baselines::Baseline::WholeHistory`]).
    pub whole_history: bool,
}

/// Hidden skill on the handicap scale, per member and month (`true_skill.parquet`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Truth {
    /// (member id, month index as in [`month_index`]) → skill.
    pub skill: HashMap<(MemberId, i32), f64>,
}

/// Players with at least this many boards are compared with the hidden skill.
pub const TRUTH_MIN_BOARDS: u64 = 500;
/// Size of the leading group compared between sets.
pub const TOP_K: usize = 100;
/// Largest movers listed per set.
pub const MOVERS: usize = 10;
/// Players whose trajectories the report draws.
pub const TRAJECTORIES: usize = 4;

/// The dataset, scored and prepared once for every set of a study.
#[derive(Debug)]
pub struct StudyData {
    pub registry: Registry,
    /// Rated competitions in replay order, prepared with the first set's class weights.
    pub competitions: Vec<PreparedCompetition>,
    /// The class of each competition (replay order), for sets with other class weights.
    pub classes: Vec<Option<String>>,
    /// Competitions left out because they break a rule of docs/data.md (as a run
    /// lists them in `quarantine.csv`).
    pub quarantined: usize,
    prepared_with: std::collections::BTreeMap<String, f64>,
}

impl StudyData {
    /// Scores and prepares `dataset`, held whole in memory, once. `first` supplies the
    /// class weights, which are the only part of a factor set preparation reads.
    pub fn new(dataset: &Dataset, first: &StudySet) -> Result<StudyData> {
        let registry = Registry::new(&dataset.members);
        let prepared = prepare::prepare(dataset, &registry, &first.factors, &|| {});
        let quarantined = prepared.quarantined.len();
        Ok(StudyData::of(
            &dataset.competitions,
            registry,
            prepared.competitions,
            quarantined,
            first,
        ))
    }

    /// Reads, scores and prepares the dataset in `dir` once, as a run from scratch
    /// does: the board rows a batch at a time, each competition held packed. Memory is
    /// that of a run's reading, whatever the sets.
    pub fn read(dir: &Path, first: &StudySet, progress: &dyn Progress) -> Result<StudyData> {
        // The index vouches for the competitions' hashes, as it does for a run.
        let vouched = crate::store::index::check(dir)?.vouched();
        let (opened, entrants, results) = crate::store::table::open_partitions_compact(
            dir,
            OnError::Strict,
            &crate::store::table::Partitions::All,
            progress,
        )?;
        let (head, mut boards) = (opened.head, opened.boards);
        let settings = RunSettings {
            factors: first.factors.clone(),
            board_scores: false,
            on_error: OnError::Quarantine,
            ..RunSettings::default()
        };
        let rows = crate::pipeline::EntrantRows::compact(entrants, results);
        let (competitions, quarantined) = crate::pipeline::prepare_source(
            &head,
            rows,
            &mut boards,
            &settings,
            vouched,
            progress,
        )?;
        let registry = Registry::new(&head.members);
        Ok(StudyData::of(
            &head.competitions,
            registry,
            competitions,
            quarantined,
            first,
        ))
    }

    /// The prepared competitions packed, with what a study reads of the rest.
    fn of(
        all: &[crate::dataset::Competition],
        registry: Registry,
        mut competitions: Vec<PreparedCompetition>,
        quarantined: usize,
        first: &StudySet,
    ) -> StudyData {
        let class_of: HashMap<&str, Option<&String>> = all
            .iter()
            .map(|c| (c.competition_id.as_str(), c.class.as_ref()))
            .collect();
        let classes = competitions
            .iter()
            .map(|c| {
                class_of
                    .get(c.competition_id.as_str())
                    .and_then(|c| c.cloned())
            })
            .collect();
        // Held packed, as a run holds them while they wait for the replay; the names
        // are for a run's outputs, which a study does not write.
        for c in &mut competitions {
            c.pack();
            c.entrant_names = Default::default();
            c.non_members = Vec::new();
        }
        StudyData {
            registry,
            competitions,
            classes,
            quarantined,
            prepared_with: first.factors.class_weights.clone(),
        }
    }
}

/// One entrant's prediction in a matchpoint field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    pub competition: usize,
    pub entrant: usize,
    pub expected: f64,
    pub achieved: f64,
}

/// What a set or a baseline was, for the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackKind {
    FactorSet,
    Baseline(Baseline),
}

impl TrackKind {
    pub fn label(self) -> &'static str {
        match self {
            TrackKind::FactorSet => "factor_set",
            TrackKind::Baseline(Baseline::WholeHistory) => "method",
            TrackKind::Baseline(_) => "baseline",
        }
    }
}

/// One set's (or baseline's) replay, reduced to what the metrics and the report need.
#[derive(Debug, Clone)]
pub struct Track {
    pub name: String,
    pub hash: String,
    pub kind: TrackKind,
    /// The tuned parameter of a baseline.
    pub parameter: Option<f64>,
    /// Matchpoint entrants, in replay order.
    pub predictions: Vec<Prediction>,
    /// Entrants of IMP fields (IMPs per board), in replay order: factor sets only, the
    /// baselines have no IMP form.
    pub imp_predictions: Vec<Prediction>,
    /// Final handicap (baselines: rating turned so that lower is stronger) of every
    /// member who played, by dense index.
    pub final_value: Vec<Option<f64>>,
    /// The final confidence figure (`handicap_sd`) of every member who played, when the
    /// set publishes one.
    pub final_sd: Vec<Option<f64>>,
    /// Per tracked member (see [`Study::tracked`]): value at the end of each month.
    pub monthly: BTreeMap<i32, Vec<Option<f64>>>,
    /// Trajectories of [`Study::trajectory_members`]: (date, handicap after).
    pub trajectories: Vec<Vec<(NaiveDate, f64)>>,
}

/// One row of `study.parquet`.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    pub set: String,
    pub hash: String,
    pub kind: &'static str,
    /// `test`, `burn_in`, a year (`2025`), or `all`.
    pub period: String,
    pub metric: String,
    pub value: f64,
    pub detail: Option<String>,
    /// The 95 % interval of `value` from the bootstrap over sessions (test-period
    /// prediction figures and the comparisons with the best baseline; `None` elsewhere).
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// A finished study.
#[derive(Debug)]
pub struct Study {
    pub burn_in_until: NaiveDate,
    pub tracks: Vec<Track>,
    pub rows: Vec<MetricRow>,
    /// Competition dates in replay order.
    pub dates: Vec<NaiveDate>,
    /// Member ids by dense index.
    pub member_ids: Vec<MemberId>,
    /// Members' names by dense index, for the charts a reader scans by name.
    pub member_names: Vec<Option<String>>,
    pub trajectory_members: Vec<u32>,
    /// Hidden skill of the trajectory members per month, when known.
    pub trajectory_truth: Vec<Vec<(NaiveDate, f64)>>,
    /// What the reader must know before reading the figures (a test period too short
    /// to give intervals).
    pub warnings: Vec<String>,
}

/// Matchpoint fields are the ones judged: pairs or individual, topscore.
fn judged(c: &PreparedCompetition) -> bool {
    c.input.method == CalcMethod::Topscore
        && matches!(c.input.kind, FieldKind::Pairs | FieldKind::Individual)
}

/// Whether an entrant is judged as a prediction: every player of it holds a handicap of
/// their own before the competition. A guest's or a non-member's temporary handicap is
/// estimated from the entrant's own result (docs/model.md, method (c)), so a factor set
/// expects such an entrant to score exactly what it scored: right for rating its member
/// partner (who moves by 0), but no prediction. Such an entrant still counts in its
/// field, for every track, and is left out of every track's judged predictions, so that
/// sets and baselines are judged on the same entrants.
fn judged_entrant(c: &PreparedCompetition, entrant: usize) -> bool {
    c.entrant_summary(entrant).is_some_and(|(_, _, seats)| {
        seats > 0 && (0..seats).all(|slot| matches!(c.seat(entrant, slot), Seat::Member(_)))
    })
}

/// The groups of entrants compared with each other.
fn groups(c: &PreparedCompetition) -> Vec<Vec<usize>> {
    let entrants = c.entrant_count();
    if !c.split_by_direction {
        return vec![(0..entrants).collect()];
    }
    let mut ns = Vec::new();
    let mut ew = Vec::new();
    for i in 0..entrants {
        match c.entrant_summary(i).and_then(|e| e.1) {
            Some(crate::model::Direction::EW) => ew.push(i),
            _ => ns.push(i),
        }
    }
    [ns, ew].into_iter().filter(|g| g.len() > 1).collect()
}

fn default_burn_in(first: NaiveDate) -> NaiveDate {
    first
        .checked_add_months(Months::new(12))
        .and_then(|d| d.pred_opt())
        .unwrap_or(first)
}

/// Runs a study of `sets` (the first is the reference set) with the baselines.
pub fn run(
    data: &StudyData,
    sets: &[StudySet],
    options: &StudyOptions,
    on_done: &(dyn Fn(&str) + Sync),
) -> Result<Study> {
    let first = sets
        .first()
        .ok_or_else(|| Error::Config("a study needs at least one factor set".into()))?;
    let burn_in_until = check_burn_in(data, options.burn_in_until)?;
    let dates: Vec<NaiveDate> = data.competitions.iter().map(|c| c.date).collect();

    let FirstReplay {
        track: first_track,
        rated,
        tracked,
        trajectory_members,
        labeller,
    } = replay_first(data, first, options, burn_in_until)?;

    let fields = judged_fields(data, &rated);

    let ctx = Context {
        data,
        rated: &rated,
        tracked: &tracked,
        trajectory_members: &trajectory_members,
        fields: &fields,
        burn_in_until,
    };
    let mut baselines = Baseline::ALL.to_vec();
    if options.whole_history {
        baselines.push(Baseline::WholeHistory);
    }
    on_done(first.name());
    let mut tracks = vec![first_track];
    tracks.extend(all_tracks(&ctx, &sets[1..], &baselines, on_done)?);

    let member_ids: Vec<MemberId> = data.registry.members.iter().map(|m| m.member_id).collect();
    let member_names: Vec<Option<String>> = data
        .registry
        .members
        .iter()
        .map(|m| m.name.clone())
        .collect();
    let trajectory_truth = match &options.truth {
        Some(truth) => trajectory_members
            .iter()
            .map(|&m| skill_series(truth, member_ids[m as usize]))
            .collect(),
        None => Vec::new(),
    };
    let mut study = Study {
        burn_in_until,
        tracks,
        rows: Vec::new(),
        dates,
        member_ids,
        member_names,
        trajectory_members,
        trajectory_truth,
        warnings: Vec::new(),
    };
    let mut rows = metric_rows(&study, &tracked, options);
    let (intervals, subgroup_rows) = rayon::join(
        || interval_rows(&study, &mut rows),
        || labeller.rows(&study),
    );
    study
        .warnings
        .extend(interval_warning(most_sessions(&intervals)));
    rows.extend(intervals);
    rows.extend(subgroup_rows);
    study.rows = rows;
    Ok(study)
}

/// What the first set's replay decides for the rest of a study.
struct FirstReplay<'a> {
    track: Track,
    rated: Vec<bool>,
    tracked: Vec<u32>,
    trajectory_members: Vec<u32>,
    labeller: subgroups::Labeller<'a>,
}

/// The first set's replay decides which fields were rated, who is tracked, and whose
/// trajectories are drawn; the other sets and the baselines follow it. It is judged as
/// it goes, every member's month-ends and trajectory kept until the tracked and drawn
/// ones are known, so that the first set is replayed once.
fn replay_first<'a>(
    data: &'a StudyData,
    first: &StudySet,
    options: &StudyOptions,
    burn_in_until: NaiveDate,
) -> Result<FirstReplay<'a>> {
    let mut rated = vec![false; data.competitions.len()];
    let labeller = subgroups::Labeller::new(data, burn_in_until);
    let every_member: Vec<u32> = (0..data.registry.len() as u32).collect();
    let every_field = vec![true; data.competitions.len()];
    let probe_ctx = Context {
        data,
        rated: &every_field,
        tracked: &every_member,
        trajectory_members: &every_member,
        fields: &[],
        burn_in_until,
    };
    let judged = Judged::new(&probe_ctx, starting_handicaps(data, first)?);
    let (probe, judged, labeller) = probe_first(data, first, &mut rated, judged, labeller)?;
    let tracked = tracked_against_truth(data, options, &probe.boards);
    let trajectory_members = most_boards(&probe.boards, TRAJECTORIES);
    let track = judged_track(first, judged.keeping(&tracked, &trajectory_members), &probe);
    Ok(FirstReplay {
        track,
        rated,
        tracked,
        trajectory_members,
        labeller,
    })
}

/// Replays the first set, marking the rated fields, while a thread of its own judges
/// its changes and labels the subgroups a month behind: the replay is the one part of
/// a study nothing else can run beside, and the judging was a third of its time.
fn probe_first<'j, 'l>(
    data: &StudyData,
    first: &StudySet,
    rated: &mut [bool],
    mut judged: Judged<'j>,
    mut labeller: subgroups::Labeller<'l>,
) -> Result<(SetReplay, Judged<'j>, subgroups::Labeller<'l>)> {
    std::thread::scope(|scope| {
        let (months, received) = std::sync::mpsc::sync_channel::<Vec<replay::Change>>(2);
        let judging = scope.spawn(move || {
            for month in received {
                for change in &month {
                    judged.change(change);
                }
                labeller.month(&month);
            }
            (judged, labeller)
        });
        let probe = replay_set(data, first, usize::MAX, &mut |changes| {
            for c in changes {
                rated[c.competition] = true;
            }
            // Fails only once the judging has stopped, by a panic resumed below.
            let _ = months.send(changes.to_vec());
        });
        drop(months);
        let (judged, labeller) = judging
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok((probe?, judged, labeller))
    })
}

/// The members judged against the hidden skill, when the study has it: those with
/// enough boards in the first set's replay, guests from abroad left out.
fn tracked_against_truth(data: &StudyData, options: &StudyOptions, boards: &[u64]) -> Vec<u32> {
    if options.truth.is_none() {
        return Vec::new();
    }
    (0..data.registry.len() as u32)
        .filter(|&m| boards[m as usize] >= TRUTH_MIN_BOARDS && !data.registry.is_foreign(m))
        .collect()
}

/// The most test sessions any track's interval was drawn from.
fn most_sessions(intervals: &[MetricRow]) -> usize {
    intervals
        .iter()
        .filter(|r| r.metric == "sessions")
        .map(|r| r.value as usize)
        .max()
        .unwrap_or(0)
}

/// The `n` members with the most boards, most first (by index among equals).
fn most_boards(boards: &[u64], n: usize) -> Vec<u32> {
    let mut by_boards: Vec<u32> = (0..boards.len() as u32).collect();
    by_boards.sort_by(|a, b| boards[*b as usize].cmp(&boards[*a as usize]).then(a.cmp(b)));
    by_boards.truncate(n);
    by_boards
}

/// The fields the study judges: each rated, judged competition's entrants, with their
/// members and achieved results.
fn judged_fields(data: &StudyData, rated: &[bool]) -> Vec<Field> {
    data.competitions
        .iter()
        .enumerate()
        .filter(|(i, c)| rated[*i] && judged(c))
        .map(|(i, c)| Field {
            competition: i,
            day: c.date.num_days_from_ce(),
            entrants: (0..c.entrant_count())
                .filter_map(|e| {
                    let (achieved, _, seats) = c.entrant_summary(e)?;
                    Some(FieldEntrant {
                        entrant: e,
                        players: (0..seats)
                            .map(|slot| match c.seat(e, slot) {
                                Seat::Member(m) => Some(m),
                                _ => None,
                            })
                            .collect(),
                        achieved,
                    })
                })
                .collect(),
            groups: groups(c),
        })
        .collect()
}

/// The track of every set and baseline, replayed in parallel, in that order.
fn all_tracks(
    ctx: &Context,
    sets: &[StudySet],
    baselines: &[Baseline],
    on_done: &(dyn Fn(&str) + Sync),
) -> Result<Vec<Track>> {
    enum Job<'a> {
        Set(&'a StudySet),
        Baseline(Baseline),
    }
    let jobs: Vec<Job> = sets
        .iter()
        .map(Job::Set)
        .chain(baselines.iter().copied().map(Job::Baseline))
        .collect();
    let tracks: Vec<Result<Track>> = jobs
        .par_iter()
        .map(|job| {
            let track = match job {
                Job::Set(set) => model_track(ctx, set),
                Job::Baseline(b) => Ok(baseline_track(ctx, *b)),
            };
            on_done(match job {
                Job::Set(set) => set.name(),
                Job::Baseline(b) => b.name(),
            });
            track
        })
        .collect();
    tracks.into_iter().collect()
}

/// A member's hidden skill month by month, as (month's first day, skill).
fn skill_series(truth: &Truth, id: MemberId) -> Vec<(NaiveDate, f64)> {
    let mut series: Vec<(NaiveDate, f64)> = truth
        .skill
        .iter()
        .filter(|((mid, _), _)| *mid == id)
        .filter_map(|((_, month), s)| Some((month_start(*month)?, *s)))
        .collect();
    series.sort_by_key(|p| p.0);
    series
}

/// Test-period sessions below which a bootstrap over sessions gives no interval worth
/// reading: it can only resample the few sessions there are, so its 95 % interval is too
/// narrow (and with one session it is the figure itself).
pub const MIN_INTERVAL_SESSIONS: usize = 10;

/// The last day of the burn-in (`burn_in_until`, or the default), refused when it
/// leaves no matchpoint session for the test period: the study would otherwise judge
/// every set on nothing and still exit as if it had.
pub fn check_burn_in(data: &StudyData, burn_in_until: Option<NaiveDate>) -> Result<NaiveDate> {
    let (Some(first), Some(last)) = (data.competitions.first(), data.competitions.last()) else {
        return Err(Error::Config(
            "the dataset has no rated competition to study".into(),
        ));
    };
    let until = burn_in_until.unwrap_or_else(|| default_burn_in(first.date));
    let judged: Vec<NaiveDate> = data
        .competitions
        .iter()
        .filter(|c| judged(c))
        .map(|c| c.date)
        .collect();
    if judged.iter().any(|d| *d > until) {
        return Ok(until);
    }
    let how = match burn_in_until {
        Some(day) => format!("--burn-in-until {day}"),
        None => format!(
            "the default burn-in (up to {until}, a year after the first competition; set another with --burn-in-until)"
        ),
    };
    let latest = judged.iter().max().copied();
    Err(Error::Config(format!(
        "{how} leaves no competition to test on: the burn-in takes all {} of the dataset ({} to {}), and a study judges the sets on the matchpoint sessions after it{}",
        crate::report::count(judged.len(), "matchpoint session", "matchpoint sessions"),
        first.date,
        last.date,
        match latest {
            Some(latest) => format!(
                "; choose a day before {latest}, the last matchpoint session"
            ),
            None => String::new(),
        }
    )))
}

/// Why the test period's intervals are missing or rough, when they are.
fn interval_warning(sessions: usize) -> Option<String> {
    match sessions {
        0 | 1 => Some(format!(
            "the test period holds {}: a bootstrap over sessions gives no interval from it, so no figure has one; move --burn-in-until earlier",
            crate::report::count(sessions, "matchpoint session", "matchpoint sessions")
        )),
        n if n < MIN_INTERVAL_SESSIONS => Some(format!(
            "the test period holds only {n} matchpoint sessions: a bootstrap over so few gives intervals too narrow to trust (at least {MIN_INTERVAL_SESSIONS} are needed); move --burn-in-until earlier"
        )),
        _ => None,
    }
}

/// The first day of a month index.
pub fn month_start(month: i32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(month.div_euclid(12), month.rem_euclid(12) as u32 + 1, 1)
}

struct Context<'a> {
    data: &'a StudyData,
    rated: &'a [bool],
    tracked: &'a [u32],
    trajectory_members: &'a [u32],
    fields: &'a [Field],
    burn_in_until: NaiveDate,
}

/// What a set's replay leaves besides the changes it hands over month by month.
struct SetReplay {
    final_handicap: Vec<f64>,
    final_sd: Vec<Option<f64>>,
    boards: Vec<u64>,
    played: Vec<bool>,
}

/// Replays `set` over the competitions up to `upto` (replay order), handing each
/// month's changes to `visit` as it completes.
fn replay_set(
    data: &StudyData,
    set: &StudySet,
    upto: usize,
    visit: &mut dyn FnMut(&[replay::Change]),
) -> Result<SetReplay> {
    let mut states = data.registry.starting_states(&set.factors)?;
    let upto = upto.min(data.competitions.len());
    let reweighted;
    let competitions = if set.factors.class_weights == data.prepared_with {
        &data.competitions[..upto]
    } else {
        let mut c = data.competitions[..upto].to_vec();
        for (c, class) in c.iter_mut().zip(&data.classes) {
            c.input.weight_multiplier = set.factors.class_multiplier(class.as_deref());
        }
        reweighted = c;
        &reweighted
    };
    replay::replay_visiting(&set.factors, Mode::Live, competitions, &mut states, visit);
    Ok(SetReplay {
        final_handicap: states.iter().map(|s| s.handicap).collect(),
        final_sd: states.iter().map(|s| s.handicap_sd).collect(),
        boards: states.iter().map(|s| s.boards).collect(),
        played: states.iter().map(|s| s.competitions > 0).collect(),
    })
}

/// Month-end snapshots of the tracked members, taken whenever a competition opens a
/// new month (the snapshot is the month before's end).
struct Snapshots<'a> {
    tracked: &'a [u32],
    month: Option<i32>,
    out: BTreeMap<i32, Vec<Option<f64>>>,
}

impl<'a> Snapshots<'a> {
    fn new(tracked: &'a [u32]) -> Self {
        Snapshots {
            tracked,
            month: None,
            out: BTreeMap::new(),
        }
    }
    fn advance(&mut self, date: NaiveDate, value: &dyn Fn(usize) -> Option<f64>) {
        let month = month_index(date);
        if let Some(previous) = self.month {
            if previous != month {
                self.take(previous, value);
            }
        }
        self.month = Some(month);
    }
    fn take(&mut self, month: i32, value: &dyn Fn(usize) -> Option<f64>) {
        if self.tracked.is_empty() {
            return;
        }
        let row = self.tracked.iter().map(|&m| value(m as usize)).collect();
        self.out.insert(month, row);
    }
    fn finish(mut self, value: &dyn Fn(usize) -> Option<f64>) -> BTreeMap<i32, Vec<Option<f64>>> {
        if let Some(month) = self.month {
            self.take(month, value);
        }
        self.out
    }
}

/// What a set's replay is judged on, gathered change by change as the months complete.
struct Judged<'a> {
    ctx: &'a Context<'a>,
    predictions: Vec<Prediction>,
    imp_predictions: Vec<Prediction>,
    last_entrant: Option<(usize, usize)>,
    last_competition: Option<usize>,
    current: Vec<f64>,
    seen: Vec<bool>,
    snapshots: Snapshots<'a>,
    /// Per member: its place among the trajectories drawn, if it is drawn.
    traj_index: Vec<Option<usize>>,
    trajectories: Vec<Vec<(NaiveDate, f64)>>,
}

impl<'a> Judged<'a> {
    fn new(ctx: &'a Context<'a>, starting: Vec<f64>) -> Self {
        let seen = vec![false; starting.len()];
        Judged {
            ctx,
            predictions: Vec::new(),
            imp_predictions: Vec::new(),
            last_entrant: None,
            last_competition: None,
            current: starting,
            seen,
            snapshots: Snapshots::new(ctx.tracked),
            traj_index: {
                let mut index = vec![None; ctx.data.registry.len()];
                for (i, &m) in ctx.trajectory_members.iter().enumerate() {
                    if let Some(slot) = index.get_mut(m as usize) {
                        *slot = Some(i);
                    }
                }
                index
            },
            trajectories: vec![Vec::new(); ctx.trajectory_members.len()],
        }
    }

    fn change(&mut self, change: &replay::Change) {
        let c = &self.ctx.data.competitions[change.competition];
        if self.last_competition != Some(change.competition) {
            let (seen, current) = (&self.seen, &self.current);
            self.snapshots
                .advance(c.date, &|m| seen[m].then_some(current[m]));
            self.last_competition = Some(change.competition);
        }
        let imp = c.input.method == CalcMethod::Imp;
        if (judged(c) || imp)
            && self.ctx.rated[change.competition]
            && judged_entrant(c, change.entrant)
        {
            let key = (change.competition, change.entrant);
            if self.last_entrant != Some(key) {
                let p = Prediction {
                    competition: change.competition,
                    entrant: change.entrant,
                    expected: change.outcome.expected,
                    achieved: change.outcome.achieved,
                };
                if imp {
                    self.imp_predictions.push(p);
                } else {
                    self.predictions.push(p);
                }
                self.last_entrant = Some(key);
            }
        }
        if let (Seat::Member(m), true) = (change.seat, change.outcome.updated) {
            self.current[m as usize] = change.handicap_after;
            self.seen[m as usize] = true;
            if let Some(&Some(t)) = self.traj_index.get(m as usize) {
                self.trajectories[t].push((c.date, change.handicap_after));
            }
        }
    }
}

/// The handicaps the members start `set`'s replay with.
fn starting_handicaps(data: &StudyData, set: &StudySet) -> Result<Vec<f64>> {
    Ok(data
        .registry
        .starting_states(&set.factors)?
        .iter()
        .map(|s| s.handicap)
        .collect())
}

fn model_track(ctx: &Context, set: &StudySet) -> Result<Track> {
    let mut judged = Judged::new(ctx, starting_handicaps(ctx.data, set)?);
    let r = replay_set(ctx.data, set, usize::MAX, &mut |changes| {
        for change in changes {
            judged.change(change);
        }
    })?;
    Ok(judged_track(set, judged.kept(), &r))
}

/// What a set's judging keeps for its track.
struct Kept {
    predictions: Vec<Prediction>,
    imp_predictions: Vec<Prediction>,
    monthly: BTreeMap<i32, Vec<Option<f64>>>,
    trajectories: Vec<Vec<(NaiveDate, f64)>>,
}

impl Judged<'_> {
    fn kept(self) -> Kept {
        let Judged {
            predictions,
            imp_predictions,
            current,
            seen,
            snapshots,
            trajectories,
            ..
        } = self;
        let monthly = snapshots.finish(&|m| seen[m].then_some(current[m]));
        Kept {
            predictions,
            imp_predictions,
            monthly,
            trajectories,
        }
    }

    /// [`Judged::kept`] of a judging that kept every member's month-ends and
    /// trajectory: only those of `tracked` and `drawn`, in their order.
    fn keeping(self, tracked: &[u32], drawn: &[u32]) -> Kept {
        let mut kept = self.kept();
        kept.monthly = if tracked.is_empty() {
            BTreeMap::new()
        } else {
            kept.monthly
                .into_iter()
                .map(|(month, row)| {
                    let row = tracked
                        .iter()
                        .map(|&m| row.get(m as usize).copied().flatten());
                    (month, row.collect())
                })
                .collect()
        };
        kept.trajectories = drawn
            .iter()
            .map(|&m| {
                kept.trajectories
                    .get_mut(m as usize)
                    .map(std::mem::take)
                    .unwrap_or_default()
            })
            .collect();
        kept
    }
}

fn judged_track(set: &StudySet, kept: Kept, r: &SetReplay) -> Track {
    let Kept {
        mut predictions,
        mut imp_predictions,
        monthly,
        trajectories,
    } = kept;
    // Changes of one competition can come in any entrant order; predictions are sorted
    // so that the tables do not depend on it.
    for p in [&mut predictions, &mut imp_predictions] {
        p.sort_by_key(|p| (p.competition, p.entrant));
        p.dedup_by_key(|p| (p.competition, p.entrant));
    }
    Track {
        name: set.name().to_string(),
        hash: set.hash.clone(),
        kind: TrackKind::FactorSet,
        parameter: None,
        predictions,
        imp_predictions,
        final_value: r
            .final_handicap
            .iter()
            .zip(&r.played)
            .map(|(h, p)| p.then_some(*h))
            .collect(),
        final_sd: r
            .final_sd
            .iter()
            .zip(&r.played)
            .map(|(sd, p)| sd.filter(|_| *p))
            .collect(),
        monthly,
        trajectories,
    }
}

fn baseline_track(ctx: &Context, baseline: Baseline) -> Track {
    let comps = &ctx.data.competitions;
    let members = ctx.data.registry.len();
    // Fields are in replay order, which is date order: the burn-in is a prefix.
    let burn_in = ctx
        .fields
        .partition_point(|f| comps[f.competition].date <= ctx.burn_in_until);
    let mut snapshots = Snapshots::new(ctx.tracked);
    let mut played = vec![false; members];
    let mut hook = |field: &Field, strength: &dyn Fn(usize) -> f64| {
        snapshots.advance(comps[field.competition].date, &|m| {
            played[m].then(|| strength(m))
        });
        for e in &field.entrants {
            for m in e.players.iter().flatten() {
                played[*m as usize] = true;
            }
        }
    };
    let (parameter, hash, run) = if baseline == Baseline::WholeHistory {
        let c = history::tune(&ctx.fields[..burn_in], members);
        let hash = format!(
            "{}={};start_sd={}",
            baseline.parameter_name(),
            c.drift_per_year,
            c.start_sd
        );
        let run = history::run(c, ctx.fields, members, &mut hook);
        (c.drift_per_year, hash, run)
    } else {
        let parameter = baselines::tune(baseline, &ctx.fields[..burn_in], members);
        let hash = format!("{}={parameter}", baseline.parameter_name());
        let run = baselines::run(baseline, parameter, ctx.fields, members, &mut hook);
        (parameter, hash, run)
    };
    let monthly = snapshots.finish(&|m| run.played[m].then_some(run.strength[m]));
    let mut predictions = Vec::new();
    for (field, expected) in ctx.fields.iter().zip(&run.expected) {
        for (entrant, x) in field.entrants.iter().zip(expected) {
            if !entrant.judged() {
                continue;
            }
            predictions.push(Prediction {
                competition: field.competition,
                entrant: entrant.entrant,
                expected: *x,
                achieved: entrant.achieved,
            });
        }
    }
    Track {
        name: baseline.name().to_string(),
        hash,
        kind: TrackKind::Baseline(baseline),
        parameter: Some(parameter),
        predictions,
        imp_predictions: Vec::new(),
        final_value: run
            .strength
            .iter()
            .zip(&run.played)
            .map(|(s, p)| p.then_some(*s))
            .collect(),
        final_sd: Vec::new(),
        monthly,
        trajectories: Vec::new(),
    }
}

/// Adds a row: track, period, metric, value (skipped when undefined), detail.
type Push<'a> = dyn FnMut(&Track, &str, &str, Option<f64>, Option<String>) + 'a;

/// The prediction figures of one slice of predictions; `prefix` is `imp_` for IMP fields.
fn prediction_rows(
    track: &Track,
    period: &str,
    preds: &[&Prediction],
    prefix: &str,
    push: &mut Push,
) {
    let x: Vec<f64> = preds.iter().map(|p| p.expected).collect();
    let y: Vec<f64> = preds.iter().map(|p| p.achieved).collect();
    let name = |m: &str| format!("{prefix}{m}");
    push(track, period, &name("entrants"), Some(x.len() as f64), None);
    push(
        track,
        period,
        &name("pearson_r"),
        metrics::pearson(&x, &y),
        None,
    );
    push(track, period, &name("rmse"), metrics::rmse(&x, &y), None);
    push(
        track,
        period,
        &name("calibration_slope"),
        metrics::slope(&x, &y),
        None,
    );
    push(
        track,
        period,
        &name("mean_bias"),
        metrics::bias(&x, &y),
        None,
    );
}

/// Members (dense indices) with a value in both.
fn common(a: &[Option<f64>], b: &[Option<f64>]) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
    let mut idx = Vec::new();
    let (mut va, mut vb) = (Vec::new(), Vec::new());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if let (Some(x), Some(y)) = (x, y) {
            idx.push(i);
            va.push(*x);
            vb.push(*y);
        }
    }
    (idx, va, vb)
}

fn metric_rows(study: &Study, tracked: &[u32], options: &StudyOptions) -> Vec<MetricRow> {
    let mut rows = Vec::new();
    let mut push =
        |track: &Track, period: &str, metric: &str, value: Option<f64>, detail: Option<String>| {
            if let Some(value) = value {
                rows.push(MetricRow {
                    set: track.name.clone(),
                    hash: track.hash.clone(),
                    kind: track.kind.label(),
                    period: period.to_string(),
                    metric: metric.to_string(),
                    value,
                    detail,
                    low: None,
                    high: None,
                });
            }
        };
    let first = &study.tracks[0];
    let reference: Option<HashMap<MemberId, f64>> = options
        .reference
        .as_ref()
        .map(|r| r.iter().copied().collect());
    for track in &study.tracks {
        period_rows(study, track, &mut push);
        final_rows(track, &mut push);
        first_rows(study, track, first, &mut push);
        if let Some(reference) = &reference {
            reference_rows(study, track, reference, &mut push);
        }
        if let Some(truth) = &options.truth {
            truth_rows(study, track, tracked, truth, &mut push);
        }
    }
    rows
}

/// A baseline's tuned parameter, and the prediction figures of the test period, the
/// burn-in and each year.
fn period_rows(study: &Study, track: &Track, push: &mut Push) {
    if let Some(p) = track.parameter {
        if let TrackKind::Baseline(b) = track.kind {
            push(
                track,
                "burn_in",
                b.parameter_name(),
                Some(p),
                Some("tuned on the burn-in period".into()),
            );
        }
    }
    let date = |p: &Prediction| study.dates[p.competition];
    let test: Vec<&Prediction> = track
        .predictions
        .iter()
        .filter(|p| date(p) > study.burn_in_until)
        .collect();
    let burn: Vec<&Prediction> = track
        .predictions
        .iter()
        .filter(|p| date(p) <= study.burn_in_until)
        .collect();
    prediction_rows(track, "test", &test, "", push);
    prediction_rows(track, "burn_in", &burn, "", push);
    if !track.imp_predictions.is_empty() {
        let (test, burn): (Vec<&Prediction>, Vec<&Prediction>) = track
            .imp_predictions
            .iter()
            .partition(|p| date(p) > study.burn_in_until);
        prediction_rows(track, "test", &test, "imp_", push);
        prediction_rows(track, "burn_in", &burn, "imp_", push);
    }
    let mut years: BTreeMap<i32, Vec<&Prediction>> = BTreeMap::new();
    for p in &track.predictions {
        years.entry(date(p).year()).or_default().push(p);
    }
    for (year, preds) in &years {
        prediction_rows(track, &year.to_string(), preds, "", push);
    }
}

/// The members rated at the end, and a factor set's spread of final handicaps.
fn final_rows(track: &Track, push: &mut Push) {
    let finals: Vec<f64> = track.final_value.iter().flatten().copied().collect();
    push(
        track,
        "all",
        "members_rated",
        Some(finals.len() as f64),
        None,
    );
    if track.kind == TrackKind::FactorSet {
        for (name, q) in [
            ("q05", 0.05),
            ("q25", 0.25),
            ("q50", 0.5),
            ("q75", 0.75),
            ("q95", 0.95),
        ] {
            push(
                track,
                "all",
                &format!("handicap_{name}"),
                metrics::quantile(&finals, q),
                None,
            );
        }
        push(track, "all", "handicap_mean", metrics::mean(&finals), None);
    }
}

/// The final handicaps against the first set's: rank correlation, shared top, and the
/// members who moved most.
fn first_rows(study: &Study, track: &Track, first: &Track, push: &mut Push) {
    let (idx, a, b) = common(&track.final_value, &first.final_value);
    push(
        track,
        "all",
        "spearman_vs_first",
        metrics::spearman(&a, &b),
        Some(first.name.clone()),
    );
    push(
        track,
        "all",
        &format!("top{TOP_K}_overlap_vs_first"),
        Some(metrics::top_k_overlap(&a, &b, TOP_K) as f64),
        Some(first.name.clone()),
    );
    if track.kind != TrackKind::FactorSet || first.kind != TrackKind::FactorSet {
        return;
    }
    let mut moves: Vec<(usize, f64, f64)> = idx
        .iter()
        .zip(a.iter().zip(&b))
        .map(|(&i, (x, y))| (i, *x, *y))
        .collect();
    moves.sort_by(|p, q| {
        (q.1 - q.2)
            .abs()
            .total_cmp(&(p.1 - p.2).abs())
            .then(p.0.cmp(&q.0))
    });
    for (rank, (i, x, y)) in moves.iter().take(MOVERS).enumerate() {
        if (x - y).abs() > 0.0 {
            push(
                track,
                "all",
                &format!("mover_{:02}", rank + 1),
                Some(x - y),
                Some(format!(
                    "member {}{}: {:.2} in {}, {:.2} here",
                    study.member_ids[*i],
                    study
                        .member_names
                        .get(*i)
                        .cloned()
                        .flatten()
                        .map_or_else(String::new, |name| format!(" ({name})")),
                    y,
                    first.name,
                    x
                )),
            );
        }
    }
}

/// The final handicaps against a reference list's.
fn reference_rows(
    study: &Study,
    track: &Track,
    reference: &HashMap<MemberId, f64>,
    push: &mut Push,
) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (i, v) in track.final_value.iter().enumerate() {
        if let (Some(v), Some(r)) = (v, reference.get(&study.member_ids[i])) {
            a.push(*v);
            b.push(*r);
        }
    }
    push(
        track,
        "all",
        "reference_members",
        Some(a.len() as f64),
        None,
    );
    push(
        track,
        "all",
        "spearman_vs_reference",
        metrics::spearman(&a, &b),
        None,
    );
}

fn truth_rows(study: &Study, track: &Track, tracked: &[u32], truth: &Truth, push: &mut Push) {
    let burn_month = month_index(study.burn_in_until);
    let detail = Some(format!("members with at least {TRUTH_MIN_BOARDS} boards"));
    push(
        track,
        "all",
        "truth_members",
        Some(tracked.len() as f64),
        detail.clone(),
    );
    let is_model = track.kind == TrackKind::FactorSet;
    let (mut rhos, mut errors) = (Vec::new(), Vec::new());
    let mut last = None;
    for (month, values) in &track.monthly {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (&m, v) in tracked.iter().zip(values) {
            let id = study.member_ids[m as usize];
            if let (Some(v), Some(t)) = (v, truth.skill.get(&(id, *month))) {
                a.push(*v);
                b.push(*t);
            }
        }
        if *month > burn_month {
            if let Some(r) = metrics::spearman(&a, &b) {
                rhos.push(r);
            }
            if is_model {
                errors.extend(a.iter().zip(&b).map(|(x, y)| (x - y).abs()));
            }
        }
        last = Some((a, b));
    }
    if let Some((a, b)) = last {
        push(
            track,
            "all",
            "spearman_vs_truth",
            metrics::spearman(&a, &b),
            detail.clone(),
        );
        if is_model {
            let err: Vec<f64> = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).collect();
            push(
                track,
                "all",
                "mean_abs_error_vs_truth",
                metrics::mean(&err),
                detail.clone(),
            );
        }
    }
    push(
        track,
        "test",
        "spearman_vs_truth_monthly",
        metrics::mean(&rhos),
        detail.clone(),
    );
    coverage_rows(study, track, tracked, truth, push);
    if is_model {
        push(
            track,
            "test",
            "mean_abs_error_vs_truth_monthly",
            metrics::mean(&errors),
            detail,
        );
    }
}

/// The confidence figure against the hidden skill: the final handicap and sd of each
/// tracked member, the skill of the last month.
fn coverage_rows(study: &Study, track: &Track, tracked: &[u32], truth: &Truth, push: &mut Push) {
    let Some(month) = track.monthly.keys().next_back() else {
        return;
    };
    let items: Vec<(f64, f64, f64)> = tracked
        .iter()
        .filter_map(|&m| {
            let h = track.final_value.get(m as usize).copied().flatten()?;
            let sd = track.final_sd.get(m as usize).copied().flatten()?;
            let t = truth.skill.get(&(study.member_ids[m as usize], *month))?;
            Some((h, *t, sd))
        })
        .collect();
    if let Some((one, two)) = bootstrap::coverage(&items) {
        let detail = Some(format!(
            "{} members with at least {TRUTH_MIN_BOARDS} boards: final handicap against the hidden skill of the last month",
            items.len()
        ));
        push(
            track,
            "all",
            "handicap_sd_within_1sd",
            Some(one),
            detail.clone(),
        );
        push(
            track,
            "all",
            "handicap_sd_within_2sd",
            Some(two),
            detail.clone(),
        );
        let sds: Vec<f64> = items.iter().map(|i| i.2).collect();
        push(
            track,
            "all",
            "handicap_sd_mean",
            metrics::mean(&sds),
            detail,
        );
    }
}

/// The name of the test period's comparison of a figure with the best baseline.
pub fn gain_metric(metric: &str) -> String {
    format!("{metric}_gain_vs_best_baseline")
}

/// The bootstrap over the test period's sessions: sets `low` and `high` of the test
/// rows of every figure in [`bootstrap::FIGURES`], and returns the new rows:
/// `rmse_calibrated` (the predictions recalibrated by the line fitted on the burn-in),
/// `sessions`, and each track's paired gains over the best baseline (the baseline with
/// the highest r in the test period): r − r(baseline), RMSE(baseline) − RMSE and the same
/// for the calibrated RMSE, so that a positive gain is always better.
fn interval_rows(study: &Study, rows: &mut [MetricRow]) -> Vec<MetricRow> {
    let per_track = track_sessions(study);
    let tracks: Vec<bootstrap::TrackSessions> = per_track.iter().map(|t| t.0.clone()).collect();
    // Every track has a slot for each session.
    let sessions = tracks.first().map_or(0, |t| t.raw.len());
    let replicates =
        bootstrap::replicates(&tracks, sessions, bootstrap::REPLICATES, bootstrap::SEED);
    let mut out = Vec::new();
    for (k, t) in study.tracks.iter().enumerate() {
        out.push(test_row(
            t,
            "sessions".into(),
            t.predictions
                .iter()
                .filter(|p| in_test(study, p))
                .map(|p| p.competition)
                .collect::<std::collections::BTreeSet<_>>()
                .len() as f64,
            Some("test-period sessions, the unit of the bootstrap".into()),
        ));
        for (f, (metric, figure, calibrated)) in bootstrap::FIGURES.iter().enumerate() {
            let ci = interval(sessions, &bootstrap::values(&replicates, k, f));
            if *calibrated {
                if !per_track[k].1 {
                    continue;
                }
                if let Some(v) = figure(&pooled(&per_track[k].0, true)) {
                    let mut row = test_row(
                        t,
                        (*metric).to_string(),
                        v,
                        Some("predictions mapped by the line of achieved on expected fitted on the burn-in".into()),
                    );
                    (row.low, row.high) = (ci.map(|c| c.0), ci.map(|c| c.1));
                    out.push(row);
                }
            } else if let Some(row) = rows.iter_mut().find(|r| {
                r.set == t.name && r.hash == t.hash && r.period == "test" && r.metric == *metric
            }) {
                (row.low, row.high) = (ci.map(|c| c.0), ci.map(|c| c.1));
            }
        }
    }
    out.extend(gain_rows(study, &per_track, &replicates));
    out
}

/// A 95 % interval of a figure's replicates over `sessions` test-period sessions; none
/// from a single session, every resample of which is that session.
fn interval(sessions: usize, values: &[f64]) -> Option<(f64, f64)> {
    if sessions < 2 {
        None
    } else {
        bootstrap::interval(values)
    }
}

fn in_test(study: &Study, p: &Prediction) -> bool {
    study.dates[p.competition] > study.burn_in_until
}

/// Each track's sums per test-period session (the sessions of every track, in order),
/// and whether its burn-in has a line to recalibrate by.
fn track_sessions(study: &Study) -> Vec<(bootstrap::TrackSessions, bool)> {
    let test = |p: &Prediction| in_test(study, p);
    let mut sessions: Vec<usize> = study
        .tracks
        .iter()
        .flat_map(|t| {
            t.predictions
                .iter()
                .filter(|p| test(p))
                .map(|p| p.competition)
        })
        .collect();
    sessions.sort_unstable();
    sessions.dedup();
    let position: HashMap<usize, usize> =
        sessions.iter().enumerate().map(|(i, &c)| (c, i)).collect();
    study
        .tracks
        .iter()
        .map(|t| {
            let burn = bootstrap::Sums::of(
                t.predictions
                    .iter()
                    .filter(|p| !test(p))
                    .map(|p| (p.expected, p.achieved)),
            );
            let line = burn.line();
            let mut s = bootstrap::TrackSessions {
                raw: vec![bootstrap::Sums::default(); sessions.len()],
                calibrated: vec![bootstrap::Sums::default(); sessions.len()],
            };
            for p in t.predictions.iter().filter(|p| test(p)) {
                if let Some(&i) = position.get(&p.competition) {
                    s.raw[i].add(p.expected, p.achieved);
                    if let Some((a, b)) = line {
                        s.calibrated[i].add(a + b * p.expected, p.achieved);
                    }
                }
            }
            (s, line.is_some())
        })
        .collect()
}

/// A row of the test period.
fn test_row(t: &Track, metric: String, value: f64, detail: Option<String>) -> MetricRow {
    MetricRow {
        set: t.name.clone(),
        hash: t.hash.clone(),
        kind: t.kind.label(),
        period: "test".into(),
        metric,
        value,
        detail,
        low: None,
        high: None,
    }
}

/// The sums of every session, as predicted or as recalibrated.
fn pooled(s: &bootstrap::TrackSessions, calibrated: bool) -> bootstrap::Sums {
    let mut total = bootstrap::Sums::default();
    for x in if calibrated { &s.calibrated } else { &s.raw } {
        total.add_times(x, 1.0);
    }
    total
}

/// Each track's paired gains over the best baseline: the highest r over the whole test
/// period.
fn gain_rows(
    study: &Study,
    per_track: &[(bootstrap::TrackSessions, bool)],
    replicates: &[Vec<bootstrap::Figures>],
) -> Vec<MetricRow> {
    let mut out = Vec::new();
    let best = study
        .tracks
        .iter()
        .enumerate()
        .filter(|(_, t)| matches!(t.kind, TrackKind::Baseline(b) if b.is_standard()))
        .filter_map(|(k, _)| Some((k, pooled(&per_track[k].0, false).pearson()?)))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    let Some((b, _)) = best else {
        return out;
    };
    let base = &per_track[b].0;
    let detail = Some(study.tracks[b].name.clone());
    for (k, t) in study.tracks.iter().enumerate() {
        if k == b {
            continue;
        }
        let own = &per_track[k].0;
        // (metric, sign): sign −1 turns an error into a gain.
        for (metric, sign) in [
            ("pearson_r", 1.0),
            ("rmse", -1.0),
            ("rmse_calibrated", -1.0),
        ] {
            let Some(f) = bootstrap::FIGURES.iter().position(|x| x.0 == metric) else {
                continue;
            };
            let (_, figure, calibrated) = bootstrap::FIGURES[f];
            if calibrated && !(per_track[k].1 && per_track[b].1) {
                continue;
            }
            let (Some(x), Some(y)) = (
                figure(&pooled(own, calibrated)),
                figure(&pooled(base, calibrated)),
            ) else {
                continue;
            };
            let diffs: Vec<f64> = bootstrap::paired_differences(replicates, k, b, f)
                .into_iter()
                .map(|d| sign * d)
                .collect();
            let ci = interval(per_track[k].0.raw.len(), &diffs);
            let mut row = test_row(t, gain_metric(metric), sign * (x - y), detail.clone());
            (row.low, row.high) = (ci.map(|c| c.0), ci.map(|c| c.1));
            out.push(row);
        }
    }
    out
}

/// The burn-in slope of achieved on expected of `set`'s matchpoint predictions, and the
/// set derived from it whose expected results are rescaled by that slope: the topscore
/// `expected_c_b` divided by it (`methods.topscore.expected_c_b`, to three decimals).
/// `None` when the burn-in has no slope to fit. Only the burn-in is read, so the test
/// period stays unseen.
pub fn calibrate(
    data: &StudyData,
    set: &StudySet,
    burn_in_until: Option<NaiveDate>,
) -> Result<Option<(f64, StudySet)>> {
    let Some(first_date) = data.competitions.first().map(|c| c.date) else {
        return Ok(None);
    };
    let until = burn_in_until.unwrap_or_else(|| default_burn_in(first_date));
    // Competitions are in date order: the burn-in is a prefix, and only it is replayed.
    let upto = data.competitions.partition_point(|c| c.date <= until);
    let mut seen = std::collections::BTreeSet::new();
    let mut sums = bootstrap::Sums::default();
    replay_set(data, set, upto, &mut |changes| {
        for change in changes {
            let c = &data.competitions[change.competition];
            if c.date <= until && judged(c) && seen.insert((change.competition, change.entrant)) {
                sums.add(change.outcome.expected, change.outcome.achieved);
            }
        }
    })?;
    let Some(slope) = sums.slope().filter(|s| *s > 0.0) else {
        return Ok(None);
    };
    let m = set.factors.methods.topscore;
    let scaled = (m.expected_c_b.unwrap_or(m.c_b) / slope * 1000.0).round() / 1000.0;
    if !scaled.is_finite() || scaled <= 0.0 {
        return Ok(None);
    }
    let derived = derive::derive(
        set,
        &[(
            "methods.topscore.expected_c_b".to_string(),
            format!("{scaled:?}"),
        )],
    )?;
    Ok(Some((slope, derived)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FactorSet;
    use crate::pipeline::NoProgress;

    fn sample() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample")
    }

    fn first() -> StudySet {
        StudySet::new(FactorSet::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The sample read batch by batch as a run reads it gives the competitions the
    /// dataset held whole gives, in the same order, and the same study, row for row.
    #[test]
    fn reading_as_a_run_gives_the_study_of_the_dataset_held_whole() {
        let set = first();
        let dataset =
            crate::store::table::read_dataset(&sample()).unwrap_or_else(|e| panic!("{e}"));
        let whole = StudyData::new(&dataset, &set).unwrap_or_else(|e| panic!("{e}"));
        let read = StudyData::read(&sample(), &set, &NoProgress).unwrap_or_else(|e| panic!("{e}"));
        let ids = |d: &StudyData| -> Vec<String> {
            d.competitions
                .iter()
                .map(|c| c.competition_id.clone())
                .collect()
        };
        assert_eq!(ids(&whole), ids(&read));
        assert_eq!(whole.classes, read.classes);
        assert!(read.competitions.iter().all(|c| c.packed.is_some()));
        let options = StudyOptions::default();
        let sets = [set.clone()];
        let a = run(&whole, &sets, &options, &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        let b = run(&read, &sets, &options, &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        assert!(a.rows.len() > 100, "{}", a.rows.len());
        assert_eq!(a.rows, b.rows);
    }

    /// The changes handed over month by month are the ones a replay keeps, in the same
    /// order, and leave the same handicaps; a replay of the burn-in prefix hands over
    /// the leading changes of the whole.
    #[test]
    fn changes_handed_over_by_month_are_the_kept_ones() {
        let set = first();
        let data = StudyData::read(&sample(), &set, &NoProgress).unwrap_or_else(|e| panic!("{e}"));
        let mut kept_states = data
            .registry
            .starting_states(&set.factors)
            .unwrap_or_else(|e| panic!("{e}"));
        let kept = replay::replay(
            &set.factors,
            Mode::Live,
            &data.competitions,
            &mut kept_states,
            &|_| {},
        );
        let mut handed = Vec::new();
        let mut months = 0;
        let r = replay_set(&data, &set, usize::MAX, &mut |changes| {
            handed.extend_from_slice(changes);
            months += 1;
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(kept.changes.len() > 1000, "{}", kept.changes.len());
        assert_eq!(handed, kept.changes);
        let handicaps: Vec<f64> = kept_states.iter().map(|s| s.handicap).collect();
        assert_eq!(r.final_handicap, handicaps);
        let distinct: std::collections::BTreeSet<i32> = data
            .competitions
            .iter()
            .map(|c| month_index(c.date))
            .collect();
        assert_eq!(months, distinct.len());
        let half = data.competitions.len() / 2;
        let mut prefix = Vec::new();
        replay_set(&data, &set, half, &mut |changes| {
            prefix.extend_from_slice(changes)
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let leading = kept.changes.iter().take_while(|c| c.competition < half);
        assert!(prefix.iter().eq(leading));
    }

    /// Two sessions of four pairs, each scored 60, 55, 45 and 40 %; pair 4 is member 7
    /// with a player not in the member list. Method (c) gives that pair the handicap at
    /// which it is expected what it scored (member 7's change shows expected = achieved
    /// = 40 − 50 = −10), so it is no prediction: in the second session, the test, every
    /// track is judged on pairs 1-3 only, three entrants, and none on pair 4.
    #[test]
    fn an_entrant_with_a_non_member_is_judged_by_no_track() {
        use crate::dataset::{Competition, Entrant, EntrantResult, Format, Member, ScoringMethod};
        let day = |m| NaiveDate::from_ymd_opt(2025, m, 5).unwrap_or_default();
        let mut d = Dataset {
            members: (1..=7).map(Member::new).collect(),
            ..Default::default()
        };
        let pairs = [
            (1, Some(2), 60.0),
            (3, Some(4), 55.0),
            (5, Some(6), 45.0),
            (7, None, 40.0),
        ];
        for (id, month) in [("c1", 1), ("c2", 3)] {
            let mut c = Competition::new(id, day(month), Format::Pairs, ScoringMethod::Matchpoints);
            c.boards = Some(24);
            d.competitions.push(c);
            for (k, (a, b, score)) in pairs.iter().enumerate() {
                let mut e = Entrant::new(id, (k + 1).to_string());
                e.players[0] = Some(*a);
                e.players[1] = Some(b.unwrap_or(99));
                d.entrants.push(e);
                d.results.push(EntrantResult {
                    competition_id: id.into(),
                    entrant: (k + 1).to_string(),
                    boards_played: 24,
                    score: *score,
                    opponent: None,
                    origin: Default::default(),
                });
            }
        }
        let set = first();
        let data = StudyData::new(&d, &set).unwrap_or_else(|e| panic!("{e}"));
        let mut guest = Vec::new();
        replay_set(&data, &set, usize::MAX, &mut |changes| {
            guest.extend(
                changes
                    .iter()
                    .filter(|c| c.member_id == 7)
                    .map(|c| c.outcome.clone()),
            );
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(guest.len(), 2);
        for o in &guest {
            assert!((o.achieved - -10.0).abs() < 1e-9 && (o.expected - o.achieved).abs() < 1e-9);
        }
        let options = StudyOptions {
            burn_in_until: Some(day(2)),
            ..Default::default()
        };
        let study = run(&data, &[set], &options, &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        let pair_4 = data.competitions[1].entrant_count() - 1;
        assert!(!judged_entrant(&data.competitions[1], pair_4));
        assert_eq!(study.tracks.len(), 1 + Baseline::ALL.len());
        for t in &study.tracks {
            let test: Vec<usize> = t
                .predictions
                .iter()
                .filter(|p| p.competition == 1)
                .map(|p| p.entrant)
                .collect();
            assert_eq!(test.len(), 3, "{}", t.name);
            assert!(!test.contains(&pair_4), "{}", t.name);
            let entrants = study
                .rows
                .iter()
                .find(|r| r.set == t.name && r.period == "test" && r.metric == "entrants");
            assert_eq!(entrants.map(|r| r.value), Some(3.0), "{}", t.name);
        }
    }
}
