//! The replay: competitions applied to the members' handicaps in date order.
//!
//! Live mode runs the schedule's levels in order and each level in parallel; frozen mode
//! runs each month in parallel against the month's opening handicaps. Either way the
//! model is evaluated on read-only snapshots and the results are applied in replay order
//! on one thread, so the bytes out never depend on the thread count.

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::dataset::MemberId;
use chrono::NaiveDate;

pub use crate::error::ReplayError;
use crate::model::update::{apply, apply_period};
use crate::model::{self, CompetitionInput, Direction, FactorSet, ModelError, PlayerOutcome};

use super::prepare::{PreparedCompetition, Seat};
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
    pub changes: Vec<Change>,
    pub adjusted: Vec<Adjusted>,
    /// Competitions the model could not rate, with the reason, in replay order.
    pub unrated: Vec<Unrated>,
    /// Competitions whose input breaks a rule of the model (a Mitchell line of one pair,
    /// a format it cannot rate), in replay order: quarantined, nobody moves for them.
    pub failed: Vec<Failed>,
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

/// The units an inactive member's handicaps drift upwards before a competition on
/// `date`, when the factor set asks for it; 0 otherwise.
fn drift_before(factors: &FactorSet, state: &PlayerState, date: NaiveDate) -> f64 {
    match (&factors.inactivity, state.last_played) {
        (Some(drift), Some(last)) => drift.drift((date - last).num_days()),
        _ => 0.0,
    }
}

/// `handicap` after the inactivity drift a competition on `date` ends. The drift is the
/// member's, so it applies to the combined handicap and to each per-method one alike.
fn drifted(factors: &FactorSet, state: &PlayerState, handicap: f64, date: NaiveDate) -> f64 {
    let added = drift_before(factors, state, date);
    if added > 0.0 {
        apply(factors, handicap, added)
    } else {
        handicap
    }
}

/// The handicap a member brings to a competition on `date`: the current one, drifted
/// upwards after a long inactive period when the factor set asks for it.
fn opening_handicap(factors: &FactorSet, state: &PlayerState, date: NaiveDate) -> f64 {
    drifted(factors, state, state.handicap, date)
}

/// Per member, in frozen mode: the handicap the month opened with and the month's changes.
type PeriodChanges = Vec<Option<MemberPeriod>>;

/// A member's month in frozen mode: the opening handicap and the changes to sum, for the
/// combined handicap and for each per-method handicap.
#[derive(Debug, Clone, Default)]
struct MemberPeriod {
    opening: f64,
    /// The per-method handicaps the month opened with, drifted like `opening`.
    opening_topscore: f64,
    opening_imp: f64,
    deltas: Vec<f64>,
    topscore: Vec<f64>,
    imp: Vec<f64>,
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
) -> Result<Vec<PlayerOutcome>, ModelError> {
    if !competition.split_by_direction {
        return model::rate_competition(factors, input);
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
        let half = CompetitionInput {
            entrants: positions
                .iter()
                .map(|&i| input.entrants[i].clone())
                .collect(),
            ..input.clone()
        };
        for mut outcome in model::rate_competition(factors, &half)? {
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
    let playing = rate(factors, competition, &input)?;
    let mut seen = vec![false; competition.input.entrants.len()];
    let mut out = Vec::with_capacity(seen.len());
    for o in &playing {
        if !seen[o.entrant] {
            seen[o.entrant] = true;
            out.push((o.entrant, o.expected, o.achieved - o.expected));
        }
    }
    Ok(out)
}

/// A competition evaluated on a snapshot, not yet applied.
struct Evaluated {
    outcomes: Vec<PlayerOutcome>,
    /// Per calculation method, when handicaps are kept separately too.
    by_method: Option<Vec<PlayerOutcome>>,
    adjusted: Vec<(usize, f64, f64)>,
}

fn evaluate(
    factors: &FactorSet,
    competition: &PreparedCompetition,
    states: &[PlayerState],
    opening: impl Fn(u32) -> f64,
) -> Result<Evaluated, ModelError> {
    let input = competition.input_with(opening);
    let outcomes = rate(factors, competition, &input)?;
    let by_method = if factors.separate_by_method {
        let method = Some(competition.input.method);
        let input = competition.input_with(|m| {
            let state = &states[m as usize];
            drifted(factors, state, state.handicap_for(method), competition.date)
        });
        Some(rate(factors, competition, &input)?)
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

/// Applies an evaluated competition. In frozen mode `opening` holds each member's
/// month-opening handicap and the deltas are only accumulated.
fn record(
    factors: &FactorSet,
    position: usize,
    competition: &PreparedCompetition,
    evaluated: Result<Evaluated, NotRated>,
    states: &mut [PlayerState],
    frozen_sums: Option<&mut PeriodChanges>,
    out: &mut ReplayOutput,
) {
    let evaluated = match evaluated {
        Ok(evaluated) => evaluated,
        Err(NotRated::Unrated(reason)) => {
            out.unrated.push(Unrated {
                competition: position,
                reason,
            });
            return;
        }
        Err(NotRated::Failed(error)) => {
            out.failed.push(Failed {
                competition: position,
                error,
            });
            return;
        }
    };
    let method = competition.input.method;
    let mut frozen_sums = frozen_sums;
    // A substitute who played for two entrants has one outcome per entrant, each from the
    // handicaps before the competition (every expectation of a field is taken at once).
    // They apply one after the other in entrant order, the second from the handicap the
    // first left; the newcomer scale is the one of the boards before the competition.
    let mut boards_before: BTreeMap<u32, u64> = BTreeMap::new();
    for (i, mut outcome) in evaluated.outcomes.into_iter().enumerate() {
        let seat = competition
            .seats
            .get(outcome.entrant)
            .and_then(|s| s.get(slot_of(competition, &outcome)))
            .copied()
            .unwrap_or(Seat::NonMember);
        let mut handicap_after = outcome.handicap_before;
        if let (Seat::Member(m), true) = (seat, outcome.updated) {
            let state = &mut states[m as usize];
            state.enter_month(competition.date);
            let repeated = boards_before.contains_key(&m);
            let before = *boards_before.entry(m).or_insert(state.boards);
            if repeated && frozen_sums.is_none() {
                outcome.handicap_before = state.handicap;
            }
            // The model computes Δh with the set's impact; a newcomer moves faster, and
            // with `[kalman]` the gain follows the confidence figure.
            let (scale, kalman_sd) = gain(factors, state, competition, &outcome, before);
            let pull = pull_toward_partner(factors, competition, &outcome);
            if scale != 1.0 || repeated || pull != 0.0 {
                outcome.delta *= scale;
                // Only a pull is added: adding 0 would turn a change of −0 into +0.
                if pull != 0.0 {
                    outcome.delta += pull;
                }
                outcome.handicap_after = apply(factors, outcome.handicap_before, outcome.delta);
            }
            handicap_after = apply(factors, outcome.handicap_before, outcome.delta);
            // Both per-method handicaps drift after a gap, the one not played too.
            let (topscore, imp) = if factors.separate_by_method {
                (
                    drifted(factors, state, state.handicap_topscore, competition.date),
                    drifted(factors, state, state.handicap_imp, competition.date),
                )
            } else {
                (state.handicap_topscore, state.handicap_imp)
            };
            let method_delta = evaluated
                .by_method
                .as_ref()
                .and_then(|by_method| by_method.get(i))
                .map(|o| o.delta * scale);
            match frozen_sums.as_deref_mut() {
                Some(sums) => {
                    let period = sums[m as usize].get_or_insert_with(|| MemberPeriod {
                        opening: outcome.handicap_before,
                        opening_topscore: topscore,
                        opening_imp: imp,
                        ..MemberPeriod::default()
                    });
                    period.deltas.push(outcome.delta);
                    if let Some(delta) = method_delta {
                        match method {
                            model::CalcMethod::Topscore => period.topscore.push(delta),
                            model::CalcMethod::Imp => period.imp.push(delta),
                        }
                    }
                }
                None => {
                    state.handicap = handicap_after;
                    state.handicap_topscore = topscore;
                    state.handicap_imp = imp;
                    if let Some(delta) = method_delta {
                        let track = match method {
                            model::CalcMethod::Topscore => &mut state.handicap_topscore,
                            model::CalcMethod::Imp => &mut state.handicap_imp,
                        };
                        *track = apply(factors, *track, delta);
                    }
                }
            }
            if kalman_sd.is_some() {
                state.handicap_sd = kalman_sd;
            } else if let (Some(confidence), Some(sd)) = (factors.confidence, state.handicap_sd) {
                let update = update_input(competition, &outcome);
                // A competition the model rated has at least 2 boards, so the share exists.
                if let Ok(share) = model::update::move_share(factors, &update) {
                    state.handicap_sd = Some(model::update::next_sd(
                        sd,
                        (share * scale).min(1.0),
                        model::update::evidence_boards(factors, &update),
                        confidence.board_sd,
                    ));
                }
            }
            state.boards += u64::from(outcome.n_g);
            if !repeated {
                state.competitions += 1;
            }
            state.last_played = Some(competition.date);
        }
        out.changes.push(Change {
            competition: position,
            entrant: outcome.entrant,
            member_id: outcome.member_id,
            seat,
            outcome,
            handicap_after,
        });
    }
    for (entrant, adjusted, expected) in evaluated.adjusted {
        out.adjusted.push(Adjusted {
            competition: position,
            entrant,
            adjusted,
            expected,
        });
    }
}

/// What one player's update reads of a competition and an outcome.
fn update_input(
    competition: &PreparedCompetition,
    outcome: &PlayerOutcome,
) -> model::update::UpdateInput {
    let input = &competition.input;
    model::update::UpdateInput {
        method: input.method,
        kind: input.kind,
        n_b: input.n_boards,
        n_g: outcome.n_g,
        weight_multiplier: input.weight_multiplier,
        achieved: outcome.achieved,
        expected: outcome.expected,
    }
}

/// What the model's `Δh` is multiplied by for one player, and the confidence figure the
/// gain leaves when it sets one: the newcomer period's scale, or with `[kalman]` the
/// filter's gain over the share the set would have moved (see
/// [`model::update::kalman_step`]).
fn gain(
    factors: &FactorSet,
    state: &PlayerState,
    competition: &PreparedCompetition,
    outcome: &PlayerOutcome,
    boards_before: u64,
) -> (f64, Option<f64>) {
    let (Some(kalman), Some(confidence), Some(sd)) =
        (factors.kalman, factors.confidence, state.handicap_sd)
    else {
        return (factors.newcomer_scale(boards_before), None);
    };
    let update = update_input(competition, outcome);
    let share = match model::update::move_share(factors, &update) {
        Ok(share) if share > 0.0 => share,
        _ => return (1.0, None),
    };
    let days = state
        .last_played
        .map_or(0, |last| (competition.date - last).num_days());
    let (k, sd_after) = model::update::kalman_step(
        sd,
        days as f64,
        model::update::evidence_boards(factors, &update),
        confidence.board_sd,
        kalman.drift_per_year,
    );
    (k / share, Some(sd_after))
}

/// With `[partnership]`, the pull of a member toward the member partner they sat with
/// (see [`model::update::partnership_pull`]); 0 otherwise, and beside a guest or a
/// non-member.
fn pull_toward_partner(
    factors: &FactorSet,
    competition: &PreparedCompetition,
    outcome: &PlayerOutcome,
) -> f64 {
    let (Some(partnership), Some(partner)) = (factors.partnership, outcome.partner_handicap) else {
        return 0.0;
    };
    // Pairs sit in slots 0+1 (and 2+3 in a team).
    let partner_slot = slot_of(competition, outcome) ^ 1;
    let partner_is_member = competition
        .seats
        .get(outcome.entrant)
        .and_then(|s| s.get(partner_slot))
        .is_some_and(|s| matches!(s, Seat::Member(_)));
    if !partner_is_member {
        return 0.0;
    }
    model::update::partnership_pull(
        partnership.pull_per_board,
        outcome.n_g,
        outcome.handicap_before,
        partner,
    )
}

/// The slot of an outcome's player within its entrant.
fn slot_of(competition: &PreparedCompetition, outcome: &PlayerOutcome) -> usize {
    competition
        .input
        .entrants
        .get(outcome.entrant)
        .and_then(|e| {
            e.players
                .iter()
                .position(|p| p.member_id == outcome.member_id)
        })
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
    positions
        .par_iter()
        .map(|&position| {
            let competition = &competitions[position];
            evaluate(factors, competition, snapshot, |m| {
                opening_handicap(factors, &snapshot[m as usize], competition.date)
            })
            .map_err(|error| match error {
                ModelError::NoGuestHandicap { .. } => NotRated::Unrated(error.to_string()),
                other => NotRated::Failed(other),
            })
        })
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
    match mode {
        Mode::Live => replay_live(factors, competitions, states, on_applied),
        Mode::Frozen => replay_frozen(factors, competitions, states, on_applied),
    }
}

/// The player slots of `competitions`: one change each, at most.
fn player_slots(competitions: &[PreparedCompetition]) -> usize {
    competitions
        .iter()
        .map(|c| c.seats.iter().map(Vec::len).sum::<usize>())
        .sum()
}

fn replay_live(
    factors: &FactorSet,
    competitions: &[PreparedCompetition],
    states: &mut [PlayerState],
    on_applied: &(dyn Fn(u64) + Sync),
) -> ReplayOutput {
    let players: Vec<Vec<u32>> = competitions
        .iter()
        .map(|c| c.rated_members.clone())
        .collect();
    let mut out = ReplayOutput::default();
    out.changes.reserve(player_slots(competitions));
    let mut pending: Vec<Option<Result<Evaluated, NotRated>>> = Vec::new();
    pending.resize_with(competitions.len(), || None);
    for level in schedule::levels(&players) {
        for (position, evaluated) in
            level
                .iter()
                .zip(evaluate_all(factors, competitions, &level, states))
        {
            pending[*position] = Some(evaluated);
        }
        for &position in &level {
            if let Some(evaluated) = pending[position].take() {
                record(
                    factors,
                    position,
                    &competitions[position],
                    evaluated,
                    states,
                    None,
                    &mut out,
                );
            }
        }
        on_applied(level.len() as u64);
    }
    out.changes.sort_by_key(|c| c.competition);
    out.adjusted.sort_by_key(|a| a.competition);
    out.unrated.sort_by_key(|u| u.competition);
    out.failed.sort_by_key(|f| f.competition);
    out
}

fn replay_frozen(
    factors: &FactorSet,
    competitions: &[PreparedCompetition],
    states: &mut [PlayerState],
    on_applied: &(dyn Fn(u64) + Sync),
) -> ReplayOutput {
    let mut out = ReplayOutput::default();
    out.changes.reserve(player_slots(competitions));
    let mut start = 0;
    while start < competitions.len() {
        let month = month_index(competitions[start].date);
        let end = competitions[start..]
            .iter()
            .position(|c| month_index(c.date) != month)
            .map_or(competitions.len(), |n| start + n);
        let positions: Vec<usize> = (start..end).collect();
        let evaluated = evaluate_all(factors, competitions, &positions, states);
        let mut sums: PeriodChanges = vec![None; states.len()];
        for (position, evaluated) in positions.iter().zip(evaluated) {
            record(
                factors,
                *position,
                &competitions[*position],
                evaluated,
                states,
                Some(&mut sums),
                &mut out,
            );
        }
        for (state, period) in states.iter_mut().zip(&sums) {
            if let Some(period) = period {
                state.handicap = apply_period(factors, period.opening, &period.deltas);
                if factors.separate_by_method {
                    state.handicap_topscore =
                        apply_period(factors, period.opening_topscore, &period.topscore);
                    state.handicap_imp = apply_period(factors, period.opening_imp, &period.imp);
                }
            }
        }
        on_applied(positions.len() as u64);
        start = end;
    }
    out
}
