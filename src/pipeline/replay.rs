//! The replay: competitions applied to the members' handicaps in date order.
//!
//! Live mode runs the schedule's levels in order and each level in parallel; frozen mode
//! runs each month in parallel against the month's opening handicaps. Either way the
//! model is evaluated on read-only snapshots and the results are applied in replay order
//! on one thread, so the bytes out never depend on the thread count. How a member's
//! handicap moves is the model's ([`player::update`], and [`FrozenMonth`] for a frozen
//! month's sums): the replay only orders the competitions, finds who sat where, and
//! hands each member's outcome over.

use std::ops::Range;

use rayon::prelude::*;

use crate::dataset::MemberId;

pub use crate::error::ReplayError;
use crate::model::player::{self, Apply, FrozenMonth, Played};
use crate::model::{self, CompetitionInput, Direction, FactorSet, ModelError, PlayerOutcome};

use super::prepared::{PreparedCompetition, Seat};
use super::schedule;
use super::state::{month_index, PlayerState};

/// How handicaps update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Each competition sees the handicaps left by every earlier one.
    #[default]
    Live,
    /// Every competition of a month uses the month's opening handicaps; the changes are
    /// summed and the cap applies at month end.
    Frozen,
}

/// One player's line in `changes.parquet`.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Position of the competition in replay order.
    pub competition: usize,
    pub entrant: usize,
    pub member_id: MemberId,
    pub seat: Seat,
    pub outcome: PlayerOutcome,
    /// The handicap after this competition (frozen mode: before the month's cap and the
    /// other competitions of the month).
    pub handicap_after: f64,
}

/// A player change of a player who is not a member, as `non_members.csv` lists it: a
/// run keeps these of the changes it has sealed (at 90 000 members and ten years,
/// 372 493 of them: 57 MB as whole [`Change`]s, 9 MB as these).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NonMemberChange {
    /// Position of the competition in replay order.
    pub competition: usize,
    pub entrant: usize,
    pub member_id: MemberId,
}

impl NonMemberChange {
    fn of(change: &Change) -> Self {
        NonMemberChange {
            competition: change.competition,
            entrant: change.entrant,
            member_id: change.member_id,
        }
    }
}

/// The handicap-adjusted result of an entrant in a handicap tournament.
#[derive(Debug, Clone, PartialEq)]
pub struct Adjusted {
    pub competition: usize,
    pub entrant: usize,
    /// Achieved minus expected, with the playing handicaps, in the model's unit.
    pub adjusted: f64,
    pub expected: f64,
}

#[derive(Debug, Default)]
pub struct ReplayOutput {
    /// The player changes in replay order, after those sealed (all of them when nothing
    /// is sealed).
    pub changes: Vec<Change>,
    /// The leading player changes, sealed into `changes.parquet`'s row groups
    /// ([`replay_releasing`]).
    pub sealed: SealedChanges,
    pub adjusted: Vec<Adjusted>,
    /// Competitions the model could not rate, with the reason, in replay order.
    pub unrated: Vec<Unrated>,
    /// Competitions whose input breaks a rule of the model (a Mitchell line of one pair,
    /// a format it cannot rate), in replay order: quarantined, nobody moves for them.
    pub failed: Vec<Failed>,
}

impl ReplayOutput {
    /// Every player change, sealed or not.
    pub fn change_count(&self) -> usize {
        self.sealed.rows() + self.changes.len()
    }

    /// The changes of players who are not members, sealed or not, in replay order.
    pub fn non_member_changes(&self) -> impl Iterator<Item = NonMemberChange> + '_ {
        let rest = self.changes.iter().filter(|c| c.seat == Seat::NonMember);
        let rest = rest.map(NonMemberChange::of);
        self.sealed.non_members.iter().copied().chain(rest)
    }
}

/// A competition that breaks a rule of the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Failed {
    pub competition: usize,
    pub error: ModelError,
}

/// Why a competition was not applied.
#[derive(Debug)]
enum NotRated {
    /// The field's strength cannot be settled (listed in `unrated.csv`).
    Unrated(String),
    /// The input breaks a rule of the model (quarantined).
    Failed(ModelError),
}

/// A competition left unrated because the field's strength cannot be settled: some
/// guests' temporary handicaps have no method that applies (for example a team match in
/// which both teams field an unrated pair). Nobody's handicap moves for it, and the run
/// lists it rather than failing the whole federation's month.
#[derive(Debug, Clone, PartialEq)]
pub struct Unrated {
    pub competition: usize,
    pub reason: String,
}

/// Rates a competition. A pairs event with fixed directions and two winners (a
/// Mitchell) is two fields: an N/S pair's percentage or IMPs only compare it with the
/// other N/S pairs, so its expected result is taken against them alone, and likewise
/// for E/W. Otherwise the N/S pairs of a Mitchell whose N/S line is the stronger would
/// all be expected to beat an average their own line defines, and all lose handicap.
fn rate(
    factors: &FactorSet,
    competition: &PreparedCompetition,
    input: &CompetitionInput,
    sessions: &[Option<u32>],
) -> Result<Vec<PlayerOutcome>, ModelError> {
    if !competition.split_by_direction {
        return model::rate::rate_competition_with(factors, input, sessions);
    }
    let mut outcomes = Vec::with_capacity(input.entrants.len() * 2);
    for direction in [Direction::NS, Direction::EW] {
        let positions: Vec<usize> = input
            .entrants
            .iter()
            .enumerate()
            .filter(|(_, e)| e.direction == Some(direction))
            .map(|(i, _)| i)
            .collect();
        // The field's numbers and this direction's entrants: not a copy of every
        // entrant only to replace them.
        let half = CompetitionInput {
            n_boards: input.n_boards,
            method: input.method,
            kind: input.kind,
            weight_multiplier: input.weight_multiplier,
            entrants: positions
                .iter()
                .map(|&i| input.entrants[i].clone())
                .collect(),
        };
        let half_sessions: Vec<Option<u32>> = positions
            .iter()
            .map(|&i| sessions.get(i).copied().flatten())
            .collect();
        for mut outcome in model::rate::rate_competition_with(factors, &half, &half_sessions)? {
            outcome.entrant = positions[outcome.entrant];
            outcomes.push(outcome);
        }
    }
    // Entrants in input order, players in slot order, as the model returns them.
    outcomes.sort_by_key(|o| o.entrant);
    Ok(outcomes)
}

/// Each entrant's expected result from the members' playing handicaps (the handicap
/// published for the competition's month, else the current one) and its result minus
/// that: `(entrant, expected, adjusted)` in entrant order. This ranks a handicap
/// tournament, and is the expected result a start list prints.
pub fn handicap_results(
    factors: &FactorSet,
    competition: &PreparedCompetition,
    states: &[PlayerState],
) -> Result<Vec<(usize, f64, f64)>, ModelError> {
    let month = month_index(competition.date);
    let input = competition.input_with(|m| {
        let s = &states[m as usize];
        if s.playing_month == Some(month) {
            s.playing_handicap
        } else {
            s.handicap
        }
    });
    let sessions = partnership_sessions(factors, competition, states);
    let playing = rate(factors, competition, &input, &sessions)?;
    let mut seen = vec![false; competition.entrant_count()];
    let mut out = Vec::with_capacity(seen.len());
    for o in &playing {
        if !seen[o.entrant] {
            seen[o.entrant] = true;
            out.push((o.entrant, o.expected, o.achieved - o.expected));
        }
    }
    Ok(out)
}

/// With `[familiarity]`: for each entrant of two members, the sessions they played
/// together before this one (from the first member's counts: both keep the same);
/// otherwise empty, and the model adds no term.
fn partnership_sessions(
    factors: &FactorSet,
    competition: &PreparedCompetition,
    states: &[PlayerState],
) -> Vec<Option<u32>> {
    if factors.familiarity.is_none() {
        return Vec::new();
    }
    (0..competition.entrant_count())
        .map(|e| match (competition.seat(e, 0), competition.seat(e, 1)) {
            (Seat::Member(a), Seat::Member(b)) => {
                Some(states.get(a as usize).map_or(0, |s| s.sessions_with(b)))
            }
            _ => None,
        })
        .collect()
}

/// A competition evaluated on a snapshot, not yet applied.
struct Evaluated {
    outcomes: Vec<PlayerOutcome>,
    /// Per calculation method, when handicaps are kept separately too.
    by_method: Option<Vec<PlayerOutcome>>,
    adjusted: Vec<(usize, f64, f64)>,
}

/// Rates a competition on a snapshot. `scratch` is the thread's input buffer.
fn evaluate(
    factors: &FactorSet,
    competition: &PreparedCompetition,
    states: &[PlayerState],
    scratch: &mut Option<CompetitionInput>,
) -> Result<Evaluated, ModelError> {
    let opening = |m: u32| states[m as usize].opening(factors, competition.date);
    let input = match scratch {
        Some(input) => {
            competition.input_into(input, opening);
            input
        }
        None => scratch.insert(competition.input_with(opening)),
    };
    let sessions = partnership_sessions(factors, competition, states);
    let outcomes = rate(factors, competition, input, &sessions)?;
    let by_method = if factors.separate_by_method {
        let method = Some(competition.input.method);
        let input = competition.input_with(|m| {
            let state = &states[m as usize];
            state.drifted(factors, state.handicap_for(method), competition.date)
        });
        Some(rate(factors, competition, &input, &sessions)?)
    } else {
        None
    };
    let mut adjusted = Vec::new();
    if competition.handicap_event {
        for (entrant, expected, result) in handicap_results(factors, competition, states)? {
            adjusted.push((entrant, result, expected));
        }
    }
    Ok(Evaluated {
        outcomes,
        by_method,
        adjusted,
    })
}

/// Applies evaluated competitions in replay order: each member's outcome goes to the
/// model's [`player::update`], in frozen mode into the month's sums.
struct Recorder<'a> {
    factors: &'a FactorSet,
    states: &'a mut [PlayerState],
    /// Frozen mode: the month's changes, applied when it closes.
    month: Option<FrozenMonth>,
    out: ReplayOutput,
    /// The members applied so far in the current competition, with their boards before it.
    seen: Seen,
    /// Live mode: the rows of the month being applied, in the order the levels applied
    /// them, before they join [`ReplayOutput::changes`] in replay order.
    month_rows: Vec<Change>,
    /// Frozen mode: the competitions rated at once while the ones before them apply.
    chunk: usize,
    /// Frozen mode: the month's opening states, which its competitions are rated on;
    /// kept from month to month rather than allocated (and first touched) anew.
    opening: Vec<PlayerState>,
}

impl<'a> Recorder<'a> {
    fn new(factors: &'a FactorSet, states: &'a mut [PlayerState], mode: Mode) -> Self {
        let month = (mode == Mode::Frozen).then(|| FrozenMonth::new(states.len()));
        Recorder {
            factors,
            states,
            month,
            out: ReplayOutput::default(),
            seen: Seen::default(),
            month_rows: Vec::new(),
            chunk: FROZEN_CHUNK,
            opening: Vec::new(),
        }
    }

    /// Applies an evaluated competition, or lists why it could not be.
    fn record(
        &mut self,
        position: usize,
        competition: &PreparedCompetition,
        evaluated: Result<Evaluated, NotRated>,
    ) {
        let evaluated = match evaluated {
            Ok(evaluated) => evaluated,
            Err(NotRated::Unrated(reason)) => {
                self.out.unrated.push(Unrated {
                    competition: position,
                    reason,
                });
                return;
            }
            Err(NotRated::Failed(error)) => {
                self.out.failed.push(Failed {
                    competition: position,
                    error,
                });
                return;
            }
        };
        self.seen.next_competition();
        let prior = self.pair_variances(competition);
        for (i, outcome) in evaluated.outcomes.into_iter().enumerate() {
            let slot = slot_of(competition, &outcome);
            let seat = seat_at(competition, outcome.entrant, slot);
            let by_method = evaluated.by_method.as_ref().and_then(|b| b.get(i));
            let (outcome, handicap_after) = match seat {
                Seat::Member(m) if outcome.updated => {
                    let partner = match seat_at(competition, outcome.entrant, slot ^ 1) {
                        Seat::Member(p) if competition.input.kind.players_per_entrant() > 1 => {
                            Some(p)
                        }
                        _ => None,
                    };
                    let variance = partner.and_then(|p| {
                        prior
                            .binary_search_by_key(&p, |v| v.0)
                            .ok()
                            .map(|at| prior[at].1)
                    });
                    self.apply(m, competition, &outcome, by_method, (partner, variance))
                }
                _ => {
                    let before = outcome.handicap_before;
                    (outcome, before)
                }
            };
            self.out.changes.push(Change {
                competition: position,
                entrant: outcome.entrant,
                member_id: outcome.member_id,
                seat,
                outcome,
                handicap_after,
            });
        }
        for (entrant, adjusted, expected) in evaluated.adjusted {
            self.out.adjusted.push(Adjusted {
                competition: position,
                entrant,
                adjusted,
                expected,
            });
        }
    }

    /// One member's outcome through the model's update. A substitute who played for two
    /// entrants has one outcome per entrant, each from the handicaps before the
    /// competition (every expectation of a field is taken at once); they apply one after
    /// the other in entrant order, and the newcomer scale is the one of the boards
    /// before the competition.
    fn apply(
        &mut self,
        member: u32,
        competition: &PreparedCompetition,
        outcome: &PlayerOutcome,
        by_method: Option<&PlayerOutcome>,
        (partner, partner_variance): (Option<u32>, Option<f64>),
    ) -> (PlayerOutcome, f64) {
        let Some(state) = self.states.get_mut(member as usize) else {
            return (outcome.clone(), outcome.handicap_before);
        };
        let seen = self.seen.again(member, state.boards);
        let played = Played {
            date: competition.date,
            input: &competition.input,
            outcome,
            by_method,
            partner_is_member: partner.is_some(),
            partner_variance,
            again: seen.is_some(),
            boards_before: seen.unwrap_or(state.boards),
            apply: match self.month {
                Some(_) => Apply::AtMonthEnd,
                None => Apply::Now,
            },
        };
        let updated = player::update(self.factors, state, &played);
        if let Some(month) = self.month.as_mut() {
            month.add(member, &updated);
        }
        *state = updated.state;
        if let (Some(_), Some(p)) = (self.factors.familiarity, partner) {
            state.played_with(p);
        }
        (updated.outcome, updated.handicap_after)
    }

    /// With `[kalman] pairs`: the variance of each rated member's handicap before the
    /// competition (grown by the drift), sorted by member, read before any of them is
    /// applied, so that both partners see each other as they came; empty otherwise.
    fn pair_variances(&self, competition: &PreparedCompetition) -> Vec<(u32, f64)> {
        let Some(kalman) = self.factors.kalman.filter(|k| k.pairs) else {
            return Vec::new();
        };
        let mut out: Vec<(u32, f64)> = competition
            .rated_members
            .iter()
            .filter_map(|&m| {
                let s = self.states.get(m as usize)?;
                let days = s
                    .last_played
                    .map_or(0, |last| (competition.date - last).num_days());
                let sd = s.handicap_sd?;
                Some((m, model::update::prior_variance(&kalman, sd, days as f64)))
            })
            .collect();
        out.sort_by_key(|v| v.0);
        out.dedup_by_key(|v| v.0);
        out
    }

    /// The output, each list in replay order (the changes already are, month by month).
    fn finish(self) -> ReplayOutput {
        let mut out = self.out;
        out.adjusted.sort_by_key(|a| a.competition);
        out.unrated.sort_by_key(|u| u.competition);
        out.failed.sort_by_key(|f| f.competition);
        out
    }

    /// Frozen mode: closes the month, applying its summed changes.
    fn close_month(&mut self) {
        if let Some(month) = self.month.as_mut() {
            month.close(self.factors, self.states);
        }
    }
}

/// The members applied so far in the current competition, with their boards before it:
/// a substitute who played for two entrants is applied twice, the second time as
/// `again` and on the newcomer scale of the boards before the competition. Kept per
/// member and marked with the competition's stamp, so that finding one is an index,
/// not a search of the competition's players, and a new competition clears nothing.
#[derive(Debug, Default)]
struct Seen {
    /// Per member (dense index): the stamp of the competition it was last applied in
    /// (0: none) and its boards before that competition.
    last: Vec<(u64, u64)>,
    /// The current competition's stamp: one more per competition.
    stamp: u64,
}

impl Seen {
    /// Starts a competition: nobody has been applied in it yet.
    fn next_competition(&mut self) {
        self.stamp += 1;
    }

    /// `member`'s boards before the current competition when it was already applied in
    /// it; otherwise `None`, and `boards` are remembered as its boards before it.
    fn again(&mut self, member: u32, boards: u64) -> Option<u64> {
        let at = member as usize;
        if self.last.len() <= at {
            self.last.resize(at + 1, (0, 0));
        }
        let last = &mut self.last[at];
        if last.0 == self.stamp {
            return Some(last.1);
        }
        *last = (self.stamp, boards);
        None
    }
}

/// Who sits in a slot of an entrant.
fn seat_at(competition: &PreparedCompetition, entrant: usize, slot: usize) -> Seat {
    competition.seat(entrant, slot)
}

/// The slot of an outcome's player within its entrant.
fn slot_of(competition: &PreparedCompetition, outcome: &PlayerOutcome) -> usize {
    competition
        .slot_of(outcome.entrant, outcome.member_id)
        .unwrap_or(0)
}

/// Evaluates the competitions at `positions` in parallel on the same read-only snapshot.
/// A competition that cannot be rated comes back as the reason, in `positions` order.
fn evaluate_all(
    factors: &FactorSet,
    competitions: &[PreparedCompetition],
    positions: &[usize],
    snapshot: &[PlayerState],
) -> Vec<Result<Evaluated, NotRated>> {
    let not_rated = |error: ModelError| match error {
        ModelError::NoGuestHandicap { .. } => NotRated::Unrated(error.to_string()),
        other => NotRated::Failed(other),
    };
    positions
        .par_iter()
        .map_init(
            || None,
            |scratch, &position| {
                evaluate(factors, &competitions[position], snapshot, scratch).map_err(not_rated)
            },
        )
        .collect()
}

/// One replay's output from two consecutive ones: `second` replayed the competitions
/// after the first `offset`.
pub fn join(mut first: ReplayOutput, second: ReplayOutput, offset: usize) -> ReplayOutput {
    first
        .changes
        .extend(second.changes.into_iter().map(|mut c| {
            c.competition += offset;
            c
        }));
    first
        .adjusted
        .extend(second.adjusted.into_iter().map(|mut a| {
            a.competition += offset;
            a
        }));
    first
        .unrated
        .extend(second.unrated.into_iter().map(|mut u| {
            u.competition += offset;
            u
        }));
    first.failed.extend(second.failed.into_iter().map(|mut f| {
        f.competition += offset;
        f
    }));
    first
}

/// Replays `competitions` (in replay order) onto `states`. A competition the model
/// cannot rate moves nobody and is listed in [`ReplayOutput::unrated`] or
/// [`ReplayOutput::failed`].
pub fn replay(
    factors: &FactorSet,
    mode: Mode,
    competitions: &[PreparedCompetition],
    states: &mut [PlayerState],
    on_applied: &(dyn Fn(u64) + Sync),
) -> ReplayOutput {
    replay_chunked(
        factors,
        mode,
        competitions,
        states,
        on_applied,
        FROZEN_CHUNK,
    )
}

/// [`replay`] rating a frozen month `chunk` competitions at a time.
pub(crate) fn replay_chunked(
    factors: &FactorSet,
    mode: Mode,
    competitions: &[PreparedCompetition],
    states: &mut [PlayerState],
    on_applied: &(dyn Fn(u64) + Sync),
    chunk: usize,
) -> ReplayOutput {
    // Competitions packed for the wait are read packed, as [`replay_releasing`] reads
    // them.
    let mut recorder = Recorder::new(factors, states, mode);
    recorder.chunk = chunk;
    recorder.out.changes.reserve(player_slots(competitions));
    for window in months(competitions) {
        let month = &competitions[window.clone()];
        replay_window(&mut recorder, mode, month, window.start, on_applied);
    }
    recorder.finish()
}

/// [`replay`] handing each month's player changes to `visit`, in replay order, as the
/// month completes, and keeping none of them: a study judges each prediction as it is
/// made, and a history's changes (one per player slot) would outweigh everything else
/// it holds. The handicap-event results are not kept either; the returned output holds
/// the unrated and failed competitions only.
pub fn replay_visiting(
    factors: &FactorSet,
    mode: Mode,
    competitions: &[PreparedCompetition],
    states: &mut [PlayerState],
    visit: &mut dyn FnMut(&[Change]),
) -> ReplayOutput {
    let mut recorder = Recorder::new(factors, states, mode);
    for window in months(competitions) {
        let month = &competitions[window.clone()];
        replay_window(&mut recorder, mode, month, window.start, &|_| {});
        visit(&recorder.out.changes);
        recorder.out.changes.clear();
        recorder.out.adjusted.clear();
    }
    recorder.finish()
}

/// [`replay`] for a run that writes what it replays. Each month's competitions are read
/// packed ([`PreparedCompetition::pack`]), and let go of their model input once it is
/// applied (the outputs need only their names),
/// and with `changes` the player changes are sealed into `changes.parquet`'s row groups
/// as the months complete (a frozen month's rows are final once it closes), so that
/// neither is held to the end.
pub fn replay_releasing(
    factors: &FactorSet,
    mode: Mode,
    competitions: &mut [PreparedCompetition],
    states: &mut [PlayerState],
    changes: Option<&dyn ChangeCodec>,
    on_applied: &(dyn Fn(u64) + Sync),
) -> Result<ReplayOutput, crate::error::Error> {
    let slots = player_slots(competitions);
    let mut releasing = Releasing::new(factors, mode, states, changes, slots);
    for window in months(competitions) {
        releasing.month(competitions, window, on_applied)?;
    }
    releasing.finish(competitions)
}

/// [`replay_releasing`] a month at a time, for a caller that has the months one after
/// the other (a run that replays each month as soon as it is scored): the months
/// given to [`Releasing::month`] in order, each a range of the same list, are replayed
/// exactly as [`replay_releasing`] replays the whole list.
pub struct Releasing<'a> {
    recorder: Recorder<'a>,
    mode: Mode,
    changes: Option<&'a dyn ChangeCodec>,
    /// The month replayed last: let go of while the next one replays.
    before: Option<Range<usize>>,
}

impl<'a> Releasing<'a> {
    /// A replay onto `states` of competitions with `slots` player slots in all (a
    /// bound: the room made for the changes).
    pub fn new(
        factors: &'a FactorSet,
        mode: Mode,
        states: &'a mut [PlayerState],
        changes: Option<&'a dyn ChangeCodec>,
        slots: usize,
    ) -> Self {
        let mut recorder = Recorder::new(factors, states, mode);
        match changes {
            None => recorder.out.changes.reserve(slots),
            // Room for the first group and a month after it (see `SealedChanges::seal_full`).
            Some(codec) => recorder
                .out
                .changes
                .reserve(slots.min(codec.rows_per_group().saturating_mul(2))),
        }
        Releasing {
            recorder,
            mode,
            changes,
            before: None,
        }
    }

    /// Replays the competitions `window` of `competitions` (one month, after the
    /// months replayed before), lets go of the month before's model inputs, and seals
    /// the changes that fill a row group.
    pub fn month(
        &mut self,
        competitions: &mut [PreparedCompetition],
        window: Range<usize>,
        on_applied: &(dyn Fn(u64) + Sync),
    ) -> Result<(), crate::error::Error> {
        // While the month replays, the one before is let go of, on the other core when
        // it has nothing else to do.
        let (done, rest) = competitions.split_at_mut(window.start);
        let month = rest.get(..window.len()).unwrap_or_default();
        let before = self.before.take().and_then(|p| done.get_mut(p));
        let (recorder, mode) = (&mut self.recorder, self.mode);
        rayon::join(
            || replay_window(recorder, mode, month, window.start, on_applied),
            || {
                for competition in before.into_iter().flatten() {
                    competition.release();
                }
            },
        );
        if let Some(codec) = self.changes {
            let out = &mut self.recorder.out;
            out.sealed
                .seal_full(codec, &mut out.changes, competitions)?;
        }
        self.before = Some(window);
        Ok(())
    }

    /// What the months replayed so far gave: their handicap tournaments' adjusted
    /// results and the competitions the model refused, in the order they were met.
    pub fn so_far(&self) -> (&[Adjusted], &[Failed]) {
        (&self.recorder.out.adjusted, &self.recorder.out.failed)
    }

    /// Keeps the sealed changes' encoded groups in `file` until they are written
    /// ([`SealedChanges::spilling`]).
    pub fn spill_changes(&mut self, file: Box<dyn super::spill::SpillFile>) {
        self.recorder.out.sealed = SealedChanges::spilling(file);
    }

    /// The replay's output, once the last month is replayed; the last month's model
    /// inputs are let go of.
    pub fn finish(
        mut self,
        competitions: &mut [PreparedCompetition],
    ) -> Result<ReplayOutput, crate::error::Error> {
        if let Some(last) = self.before.take() {
            for competition in competitions.get_mut(last).into_iter().flatten() {
                competition.release();
            }
        }
        self.recorder.out.sealed.finish()?;
        Ok(self.recorder.finish())
    }
}

/// The ranges of `competitions` (in replay order) that fall in one month each.
fn months(competitions: &[PreparedCompetition]) -> Vec<Range<usize>> {
    let mut windows = Vec::new();
    let mut start = 0;
    while start < competitions.len() {
        let month = month_index(competitions[start].date);
        let end = competitions[start..]
            .iter()
            .position(|c| month_index(c.date) != month)
            .map_or(competitions.len(), |n| start + n);
        windows.push(start..end);
        start = end;
    }
    windows
}

/// The player slots of `competitions`: one change each, at most.
fn player_slots(competitions: &[PreparedCompetition]) -> usize {
    competitions
        .iter()
        .map(PreparedCompetition::player_slots)
        .sum()
}

/// Competitions of a frozen month evaluated at once while the ones before them are
/// applied.
const FROZEN_CHUNK: usize = 128;

/// Applies the competitions of one month (`month`, at `offset` in replay order), and
/// leaves their changes in replay order after the earlier months'. Live mode runs the
/// month's schedule levels in order, each in parallel; the levels of a month only order
/// competitions of that month, and every competition still sees the handicaps the plain
/// sequential loop would have shown it. Frozen mode rates the whole month on its
/// opening handicaps and closes it: a copy of the opening handicaps lets the month's
/// later competitions be rated while the earlier ones are applied.
fn replay_window(
    recorder: &mut Recorder<'_>,
    mode: Mode,
    month: &[PreparedCompetition],
    offset: usize,
    on_applied: &(dyn Fn(u64) + Sync),
) {
    let factors = recorder.factors;
    let slots = month.iter().map(PreparedCompetition::player_slots).sum();
    match mode {
        Mode::Live => {
            let players: Vec<&[u32]> = month.iter().map(|c| c.rated_members.as_slice()).collect();
            // The month's rows are recorded level by level into their own buffer, each
            // competition's rows together: `blocks` says where, by place in the month.
            let mut rows = std::mem::take(&mut recorder.month_rows);
            rows.clear();
            rows.reserve(slots);
            std::mem::swap(&mut rows, &mut recorder.out.changes);
            let mut blocks: Vec<Range<usize>> = vec![0..0; month.len()];
            for level in schedule::levels(&players) {
                let evaluated = evaluate_all(factors, month, &level, recorder.states);
                for (&at, evaluated) in level.iter().zip(evaluated) {
                    let start = recorder.out.changes.len();
                    recorder.record(offset + at, &month[at], evaluated);
                    blocks[at] = start..recorder.out.changes.len();
                }
                on_applied(level.len() as u64);
            }
            std::mem::swap(&mut rows, &mut recorder.out.changes);
            in_replay_order(&mut recorder.out.changes, &rows, &blocks);
            recorder.month_rows = rows;
        }
        Mode::Frozen => {
            recorder.out.changes.reserve(slots);
            let mut opening = std::mem::take(&mut recorder.opening);
            opening_of(&mut opening, recorder.states);
            let positions: Vec<usize> = (0..month.len()).collect();
            let mut chunks = positions.chunks(recorder.chunk.max(1));
            let mut ready = chunks
                .next()
                .map(|chunk| (chunk, evaluate_all(factors, month, chunk, &opening)));
            while let Some((chunk, evaluated)) = ready.take() {
                let apply = |recorder: &mut Recorder<'_>| {
                    for (&at, evaluated) in chunk.iter().zip(evaluated) {
                        recorder.record(offset + at, &month[at], evaluated);
                    }
                    on_applied(chunk.len() as u64);
                };
                match chunks.next() {
                    Some(next) => {
                        let rate = || (next, evaluate_all(factors, month, next, &opening));
                        let (rated, ()) = rayon::join(rate, || apply(recorder));
                        ready = Some(rated);
                    }
                    None => apply(recorder),
                }
            }
            recorder.close_month();
            recorder.opening = opening;
        }
    }
}

/// Makes `opening` a copy of `states`, reusing what it holds.
fn opening_of(opening: &mut Vec<PlayerState>, states: &[PlayerState]) {
    opening.truncate(states.len());
    let kept = opening.len();
    opening.clone_from_slice(&states[..kept]);
    opening.extend_from_slice(&states[kept..]);
}

/// Appends a month's rows to `changes` in replay order: `rows` holds each competition's
/// rows together, at `blocks[place in the month]`, in the order the levels applied them.
/// What a stable sort of the month's rows by competition gave, with each row moved once.
fn in_replay_order(changes: &mut Vec<Change>, rows: &[Change], blocks: &[Range<usize>]) {
    changes.reserve(rows.len());
    for block in blocks {
        changes.extend_from_slice(&rows[block.clone()]);
    }
}

/// Encodes player changes as the row groups of `changes.parquet`. A change row names
/// its competition and entrant by place, so the codec reads them from the competitions.
pub trait ChangeCodec: Send + Sync + std::fmt::Debug {
    /// Rows per row group of the output file (every group but the last is full).
    fn rows_per_group(&self) -> usize;
    /// `rows` (exactly [`rows_per_group`](Self::rows_per_group)) of `competitions`'
    /// changes as one row group: a job that builds the group's columns and encodes them
    /// into the bytes of a file holding only that group, so that the replay goes on while
    /// it runs.
    fn seal(
        &self,
        rows: Vec<Change>,
        competitions: &[PreparedCompetition],
    ) -> crate::error::Result<SealJob>;
}

pub use super::spill::SealJob;

/// The player changes a replay sealed into row groups, in replay order, ahead of the
/// rows it still holds ([`ReplayOutput::changes`]).
#[derive(Debug)]
pub struct SealedChanges {
    pub groups: super::spill::EncodedGroups,
    /// The sealed rows of players who are not members: `non_members.csv` lists them.
    pub non_members: Vec<NonMemberChange>,
}

impl Default for SealedChanges {
    fn default() -> Self {
        SealedChanges {
            groups: super::spill::EncodedGroups::new("changes.parquet", None),
            non_members: Vec::new(),
        }
    }
}

impl SealedChanges {
    /// Rows sealed or being sealed.
    pub fn rows(&self) -> usize {
        self.groups.rows()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Sealed changes whose encoded groups are kept in `file` rather than in memory
    /// until they are written: a run that replays while it reads would otherwise hold
    /// them beside everything the reading holds.
    pub fn spilling(file: Box<dyn super::spill::SpillFile>) -> Self {
        SealedChanges {
            groups: super::spill::EncodedGroups::new("changes.parquet", Some(file)),
            non_members: Vec::new(),
        }
    }

    /// Every group's bytes, in order, each read back from the spill file (where they
    /// were moved there) when the iterator comes to it.
    pub fn bytes(
        &self,
    ) -> impl Iterator<Item = crate::error::Result<std::borrow::Cow<'_, [u8]>>> + '_ {
        self.groups.bytes()
    }

    /// Seals the full row groups at the front of `rows` (in replay order, every row
    /// before them already sealed), taking them out of it.
    pub fn seal_full(
        &mut self,
        codec: &dyn ChangeCodec,
        rows: &mut Vec<Change>,
        competitions: &[PreparedCompetition],
    ) -> crate::error::Result<()> {
        let group = codec.rows_per_group().max(1);
        let sealed = rows.len() / group * group;
        if sealed == 0 {
            return Ok(());
        }
        // The rows left over move to a vector with room for a group more, so that the
        // months after them append without growing it a doubling at a time; the full
        // groups go to their jobs, the last one in the old vector.
        let mut rest = Vec::with_capacity(group.saturating_mul(2));
        rest.extend(rows.drain(sealed..));
        let mut full = std::mem::replace(rows, rest);
        let mut fronts = Vec::with_capacity(sealed / group);
        while full.len() > group {
            fronts.push(full.split_off(full.len() - group));
        }
        fronts.push(full);
        for front in fronts.into_iter().rev() {
            let non_members = front.iter().filter(|c| c.seat == Seat::NonMember);
            self.non_members
                .extend(non_members.map(NonMemberChange::of));
            let job = codec.seal(front, competitions)?;
            self.groups.push(group, job)?;
        }
        Ok(())
    }

    /// Waits for the groups still being encoded.
    pub fn finish(&mut self) -> crate::error::Result<()> {
        self.groups.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A change row told apart by its competition and its place among that
    /// competition's rows.
    fn change(competition: usize, row: usize) -> Change {
        Change {
            competition,
            entrant: row,
            member_id: (competition * 100 + row) as i64,
            seat: Seat::Member(row as u32),
            outcome: PlayerOutcome {
                entrant: row,
                member_id: (competition * 100 + row) as i64,
                handicap_before: 20.0,
                partner_handicap: None,
                pair_handicap: 20.0,
                field_handicap: 20.0,
                expected: 0.0,
                achieved: 0.0,
                n_b: 24,
                n_g: 24,
                delta: 0.0,
                handicap_after: 20.0,
                updated: true,
            },
            handicap_after: 20.0,
        }
    }

    /// The order the month's rows had before: recorded level by level, then stably
    /// sorted by competition.
    fn sorted(mut changes: Vec<Change>, rows: &[Change]) -> Vec<Change> {
        let first = changes.len();
        changes.extend_from_slice(rows);
        changes[first..].sort_by_key(|c| c.competition);
        changes
    }

    /// Three competitions of a month in two levels: 0 and 2 (player-disjoint), then 1.
    /// Recorded as 0 (2 rows), 2 (1 row), 1 (3 rows), they join the earlier month's one
    /// row as 0, 0, 1, 1, 1, 2, each competition's rows in the order recorded.
    #[test]
    fn a_month_applied_by_level_joins_the_changes_in_replay_order() {
        let earlier = vec![change(9, 0)];
        let rows = vec![
            change(10, 0),
            change(10, 1),
            change(12, 0),
            change(11, 0),
            change(11, 1),
            change(11, 2),
        ];
        let blocks = [0..2, 3..6, 2..3];
        let mut changes = earlier.clone();
        in_replay_order(&mut changes, &rows, &blocks);
        let order: Vec<(usize, usize)> =
            changes.iter().map(|c| (c.competition, c.entrant)).collect();
        assert_eq!(
            order,
            [(9, 0), (10, 0), (10, 1), (11, 0), (11, 1), (11, 2), (12, 0)]
        );
        assert_eq!(changes, sorted(earlier, &rows));
    }

    /// A member applied twice in one competition (a substitute for two entrants) is found
    /// again with its boards before the competition; in the next competition it is new.
    #[test]
    fn a_member_is_seen_again_only_within_its_competition() {
        let mut seen = Seen::default();
        seen.next_competition();
        assert_eq!(seen.again(5, 10), None);
        assert_eq!(seen.again(7, 3), None);
        assert_eq!(seen.again(5, 22), Some(10));
        assert_eq!(seen.again(5, 40), Some(10));
        seen.next_competition();
        assert_eq!(seen.again(5, 36), None);
        assert_eq!(seen.again(7, 3), None);
        assert_eq!(seen.again(5, 48), Some(36));
        seen.next_competition();
        assert_eq!(seen.again(29_999, 0), None);
        assert_eq!(seen.again(29_999, 1), Some(0));
    }

    /// A codec whose "bytes" are the competition numbers of the group's rows.
    #[derive(Debug)]
    struct Numbers(usize);

    impl ChangeCodec for Numbers {
        fn rows_per_group(&self) -> usize {
            self.0
        }

        fn seal(
            &self,
            rows: Vec<Change>,
            _: &[PreparedCompetition],
        ) -> crate::error::Result<SealJob> {
            Ok(Box::new(move || {
                Ok(rows.iter().map(|c| c.competition as u8).collect())
            }))
        }
    }

    /// A month's opening states copied into the buffer the month before left: three
    /// states over a buffer of two (one added) and then one (two dropped), each time
    /// the states exactly, partners included.
    #[test]
    fn the_opening_buffer_becomes_a_copy_of_the_states() {
        let mut states: Vec<PlayerState> = [40.0, 30.5, 12.25]
            .iter()
            .map(|&h| PlayerState::starting(h, None))
            .collect();
        states[1].partners.push((2, 7));
        let mut opening = vec![PlayerState::starting(52.0, None); 2];
        opening_of(&mut opening, &states);
        assert_eq!(opening, states);
        opening_of(&mut opening, &states[2..]);
        assert_eq!(opening.len(), 1);
        assert_eq!(opening[0].handicap, 12.25);
        assert!(opening[0].partners.is_empty());
    }

    /// Ten rows (competitions 0–9, 3 and 7 of non-members) in groups of three: three full
    /// groups in order, 0–2, 3–5, 6–8, the non-members' rows 3 and 7 kept, and row 9
    /// left with room for a group more; two more rows then make the fourth group 9–11.
    #[test]
    fn full_groups_are_sealed_in_order_and_the_rest_kept_with_room() {
        let mut rows: Vec<Change> = (0..10).map(|c| change(c, 0)).collect();
        for at in [3, 7] {
            rows[at].seat = Seat::NonMember;
        }
        let mut sealed = SealedChanges::default();
        let codec = Numbers(3);
        sealed
            .seal_full(&codec, &mut rows, &[])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rows, [change(9, 0)]);
        assert!(rows.capacity() >= 6, "{}", rows.capacity());
        let non_members: Vec<usize> = sealed.non_members.iter().map(|c| c.competition).collect();
        assert_eq!(non_members, [3, 7]);
        assert_eq!(sealed.rows(), 9);
        rows.extend([change(10, 0), change(11, 0)]);
        sealed
            .seal_full(&codec, &mut rows, &[])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(rows.is_empty());
        sealed.finish().unwrap_or_else(|e| panic!("{e}"));
        let bytes: Vec<_> = sealed
            .bytes()
            .collect::<crate::error::Result<_>>()
            .unwrap_or_else(|e| panic!("{e}"));
        let groups: Vec<(usize, Vec<u8>)> = (sealed.groups.groups.iter())
            .zip(bytes)
            .map(|(g, b)| (g.rows, b.to_vec()))
            .collect();
        assert_eq!(
            groups,
            [
                (3, vec![0, 1, 2]),
                (3, vec![3, 4, 5]),
                (3, vec![6, 7, 8]),
                (3, vec![9, 10, 11])
            ]
        );
    }

    proptest! {
        /// Whatever the levels' order, the month's rows come out as the stable sort by
        /// competition gave them.
        #[test]
        fn rows_gathered_by_competition_are_the_stably_sorted_rows(
            counts in prop::collection::vec(0usize..5, 0..40),
            seed in any::<u64>(),
        ) {
            // The competitions recorded in a shuffled order, each one's rows together.
            let mut order: Vec<usize> = (0..counts.len()).collect();
            let mut x = seed | 1;
            for i in (1..order.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                order.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let mut rows = Vec::new();
            let mut blocks = vec![0..0; counts.len()];
            for &at in &order {
                let start = rows.len();
                rows.extend((0..counts[at]).map(|row| change(100 + at, row)));
                blocks[at] = start..rows.len();
            }
            let earlier = vec![change(1, 0), change(2, 0)];
            let mut changes = earlier.clone();
            in_replay_order(&mut changes, &rows, &blocks);
            prop_assert_eq!(changes, sorted(earlier, &rows));
        }

        /// The per-member marks answer as the list of the competition's members searched
        /// one by one did.
        #[test]
        fn seen_answers_as_the_searched_list(
            competitions in prop::collection::vec(
                prop::collection::vec((0u32..12, 0u64..100), 0..10), 0..20),
        ) {
            let mut seen = Seen::default();
            for members in &competitions {
                seen.next_competition();
                let mut list: Vec<(u32, u64)> = Vec::new();
                for &(member, boards) in members {
                    let expected = list.iter().find(|(m, _)| *m == member).map(|s| s.1);
                    if expected.is_none() {
                        list.push((member, boards));
                    }
                    prop_assert_eq!(seen.again(member, boards), expected);
                }
            }
        }
    }
}
