//! How one player's handicap moves: the whole update, from the state a competition found
//! to the state it leaves.
//!
//! [`rate_competition`](super::rate_competition) gives each player the proposal's `Δh`, taken
//! with the set's impact. What happens to a player beyond the field lives here, so that
//! the impact, followed from the factor set to the handicap, stays inside the model:
//! a newcomer moves faster ([`Newcomer`](super::factors::Newcomer)), a gain that follows
//! the confidence figure replaces the impact ([`Kalman`](super::factors::Kalman)), a
//! partner pulls ([`Partnership`](super::factors::Partnership)), an inactive member's
//! handicaps drift up ([`InactivityDrift`](super::factors::InactivityDrift)), the
//! per-method handicaps follow their own ratings, and the confidence figure shrinks with
//! the evidence. The replay only orders the competitions and hands the outcomes over.
//!
//! A frozen month sums each member's changes and applies the cap once, at its end
//! ([`FrozenMonth`]); the sums are kept per member in buffers reused month after month,
//! so that the replay allocates nothing per player once the first months have run.

use chrono::{Datelike, NaiveDate};

use super::factors::FactorSet;
use super::update::{self, apply};
use super::{CalcMethod, CompetitionInput, PlayerOutcome};

/// A member's handicap and activity.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerState {
    pub handicap: f64,
    /// Handicap per calculation method, when the factor set keeps them separately.
    pub handicap_topscore: f64,
    pub handicap_imp: f64,
    pub boards: u64,
    pub competitions: u64,
    pub last_played: Option<NaiveDate>,
    /// The month (year·12 + month − 1) whose playing handicap is `playing_handicap`.
    pub playing_month: Option<i32>,
    /// The handicap published at the end of the month before `playing_month`, used to
    /// rate handicap tournaments of that month.
    pub playing_handicap: f64,
    /// The confidence figure (standard deviation of the handicap, in handicap units),
    /// when the factor set publishes one.
    pub handicap_sd: Option<f64>,
    /// With `[familiarity]`: the member partners (dense index) this member has played
    /// with, and the sessions played together, sorted by partner. Empty otherwise.
    pub partners: Vec<(u32, u32)>,
}

/// Months since year 0, so that consecutive months differ by one.
pub fn month_index(date: NaiveDate) -> i32 {
    date.year() * 12 + date.month0() as i32
}

impl PlayerState {
    pub fn starting(handicap: f64, handicap_sd: Option<f64>) -> Self {
        PlayerState {
            handicap,
            handicap_topscore: handicap,
            handicap_imp: handicap,
            boards: 0,
            competitions: 0,
            last_played: None,
            playing_month: None,
            playing_handicap: handicap,
            handicap_sd,
            partners: Vec::new(),
        }
    }

    /// The sessions this member has played with `partner` (a dense index).
    pub fn sessions_with(&self, partner: u32) -> u32 {
        self.partners
            .binary_search_by_key(&partner, |p| p.0)
            .map_or(0, |i| self.partners[i].1)
    }

    /// Counts one more session with `partner`, keeping the list sorted by partner, so
    /// that the counts never depend on the order the sessions were applied in.
    ///
    /// ```
    /// use bridgehcp::model::player::PlayerState;
    /// let mut s = PlayerState::starting(30.0, None);
    /// s.played_with(7);
    /// s.played_with(3);
    /// s.played_with(7);
    /// assert_eq!((s.sessions_with(7), s.sessions_with(3), s.sessions_with(5)), (2, 1, 0));
    /// assert_eq!(s.partners, vec![(3, 1), (7, 2)]);
    /// ```
    pub fn played_with(&mut self, partner: u32) {
        match self.partners.binary_search_by_key(&partner, |p| p.0) {
            Ok(i) => self.partners[i].1 = self.partners[i].1.saturating_add(1),
            Err(i) => self.partners.insert(i, (partner, 1)),
        }
    }

    /// The handicap a competition of `method` reads.
    pub fn handicap_for(&self, method: Option<CalcMethod>) -> f64 {
        match method {
            None => self.handicap,
            Some(CalcMethod::Topscore) => self.handicap_topscore,
            Some(CalcMethod::Imp) => self.handicap_imp,
        }
    }

    /// Rolls the playing handicap forward when a competition in a new month is reached:
    /// the handicap held before the month's first competition is the one published at
    /// the end of the previous month.
    pub fn enter_month(&mut self, date: NaiveDate) {
        let month = month_index(date);
        if self.playing_month != Some(month) {
            self.playing_month = Some(month);
            self.playing_handicap = self.handicap;
        }
    }

    /// The units the member's handicaps drift upwards before a competition on `date`,
    /// when the factor set asks for it; 0 otherwise.
    pub fn drift_before(&self, f: &FactorSet, date: NaiveDate) -> f64 {
        match (&f.inactivity, self.last_played) {
            (Some(drift), Some(last)) => drift.drift((date - last).num_days()),
            _ => 0.0,
        }
    }

    /// `handicap` after the inactivity drift a competition on `date` ends. The drift is
    /// the member's, so it applies to the combined handicap and to each per-method one
    /// alike.
    ///
    /// With `[inactivity]` of 0.5 a month after 365 days, a member last seen 465 days
    /// earlier (3 months of 30.4375 days past the year) comes back 1.5 higher:
    /// ```
    /// use bridgehcp::model::factors::{FactorSet, InactivityDrift};
    /// use bridgehcp::model::player::PlayerState;
    /// use chrono::{Days, NaiveDate};
    /// let mut f = FactorSet::default();
    /// f.inactivity = Some(InactivityDrift { after_days: 365, per_month: 0.5, max_total: 5.0 });
    /// let mut s = PlayerState::starting(20.0, None);
    /// let back = NaiveDate::from_ymd_opt(2026, 5, 1).unwrap();
    /// s.last_played = back.checked_sub_days(Days::new(465));
    /// assert_eq!(s.drifted(&f, s.handicap, back), 21.5);
    /// assert_eq!(s.drifted(&f, 51.0, back), 52.0); // never past the cap
    /// ```
    pub fn drifted(&self, f: &FactorSet, handicap: f64, date: NaiveDate) -> f64 {
        let added = self.drift_before(f, date);
        if added > 0.0 {
            apply(f, handicap, added)
        } else {
            handicap
        }
    }

    /// The handicap the member brings to a competition on `date`: the current one,
    /// drifted upwards after a long inactive period when the factor set asks for it.
    pub fn opening(&self, f: &FactorSet, date: NaiveDate) -> f64 {
        self.drifted(f, self.handicap, date)
    }
}

/// When a competition's change reaches the handicap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Apply {
    /// At once: the next competition reads the handicap this one left (live mode).
    Now,
    /// At the month's end, summed with the month's other changes (frozen mode): see
    /// [`FrozenMonth`].
    AtMonthEnd,
}

/// One competition as it reached one member.
#[derive(Debug, Clone, Copy)]
pub struct Played<'a> {
    pub date: NaiveDate,
    /// The competition as the model rated it (method, format, boards, class multiplier).
    pub input: &'a CompetitionInput,
    /// The member's outcome from [`rate_competition`](super::rate_competition), with the
    /// set's impact.
    pub outcome: &'a PlayerOutcome,
    /// With `separate_by_method`: the member's outcome rated on the per-method handicaps.
    pub by_method: Option<&'a PlayerOutcome>,
    /// The member's partner at the table is a member too (a partner pulls only then).
    pub partner_is_member: bool,
    /// With `[kalman] pairs`: the variance of the member partner's handicap before the
    /// competition, grown by the drift since they last played; `None` beside a guest, a
    /// non-member or in an individual event.
    pub partner_variance: Option<f64>,
    /// The member already played for another entrant of this competition (a substitute):
    /// the two outcomes apply one after the other.
    pub again: bool,
    /// The member's boards before the competition (the newcomer period reads them).
    pub boards_before: u64,
    pub apply: Apply,
}

/// What one competition did to one member.
#[derive(Debug, Clone, PartialEq)]
pub struct Updated {
    /// The member's state after the competition. With [`Apply::AtMonthEnd`] the
    /// handicaps are still the month's opening ones (the activity and the confidence
    /// figure have moved).
    pub state: PlayerState,
    /// The outcome with the member's own `Δh` (newcomer scale or Kalman gain, partner's
    /// pull) and the handicap before it.
    pub outcome: PlayerOutcome,
    /// The handicap after this competition alone.
    pub handicap_after: f64,
    /// The per-method handicap's change and its method, with `separate_by_method`.
    pub by_method: Option<(CalcMethod, f64)>,
    /// The per-method handicaps the competition found, drifted like the handicap.
    pub opening_topscore: f64,
    pub opening_imp: f64,
}

/// A member's whole update for one competition: the player's state, the competition's
/// outcome and the factor set give the new state.
///
/// With the default set, 10 % over expected in all 24 boards of a topscore pairs event
/// is the proposal's `Δh = −(1/480)·(24.6/23)·2·24·10 = −1.069565`: a member at 30 goes to
/// 28.930435. With a newcomer period (impact 120 at 0 boards, 480 at 200) a member with
/// 100 boards behind them has an impact of 300 and moves 480/300 = 1.6 times as far,
/// −1.711304:
/// ```
/// use bridgehcp::model::factors::{FactorSet, Newcomer};
/// use bridgehcp::model::player::{update, Apply, Played, PlayerState};
/// use bridgehcp::model::{CalcMethod, CompetitionInput, FieldKind, PlayerOutcome};
/// let input = CompetitionInput {
///     n_boards: 24, method: CalcMethod::Topscore, kind: FieldKind::Pairs,
///     weight_multiplier: 1.0, entrants: Vec::new(),
/// };
/// let delta = -(24.6 / 23.0) * 2.0 * 24.0 * 10.0 / 480.0;
/// let outcome = PlayerOutcome {
///     entrant: 0, member_id: 1, handicap_before: 30.0, partner_handicap: Some(30.0),
///     pair_handicap: 30.0, field_handicap: 30.0, expected: 0.0, achieved: 10.0,
///     n_b: 24, n_g: 24, delta, handicap_after: 30.0 + delta, updated: true,
/// };
/// let date = chrono::NaiveDate::from_ymd_opt(2026, 3, 5).unwrap();
/// let played = |boards_before| Played {
///     date, input: &input, outcome: &outcome, by_method: None, partner_is_member: true,
///     partner_variance: None,
///     again: false, boards_before, apply: Apply::Now,
/// };
/// let mut f = FactorSet::default();
/// let u = update(&f, &PlayerState::starting(30.0, None), &played(0));
/// assert!((u.handicap_after - 28.930435).abs() < 1e-6);
/// assert_eq!(u.state.handicap, u.handicap_after);
/// assert_eq!((u.state.boards, u.state.competitions, u.state.last_played), (24, 1, Some(date)));
/// f.newcomer = Some(Newcomer { boards: 200, impact: 120.0 });
/// let u = update(&f, &PlayerState::starting(30.0, None), &played(100));
/// assert!((u.outcome.delta - (-1.711304)).abs() < 1e-6);
/// ```
pub fn update(f: &FactorSet, state: &PlayerState, played: &Played<'_>) -> Updated {
    let mut state = state.clone();
    let mut outcome = played.outcome.clone();
    let date = played.date;
    state.enter_month(date);
    if played.again && played.apply == Apply::Now {
        outcome.handicap_before = state.handicap;
    }
    let (scale, kalman_sd) = gain(f, &state, played, played.boards_before);
    let pull = partner_pull(f, played, &outcome);
    if scale != 1.0 || played.again || pull != 0.0 {
        outcome.delta *= scale;
        // Only a pull is added: adding 0 would turn a change of −0 into +0.
        if pull != 0.0 {
            outcome.delta += pull;
        }
        outcome.handicap_after = apply(f, outcome.handicap_before, outcome.delta);
    }
    let handicap_after = apply(f, outcome.handicap_before, outcome.delta);
    // Both per-method handicaps drift after a gap, the one not played too.
    let (opening_topscore, opening_imp) = if f.separate_by_method {
        (
            state.drifted(f, state.handicap_topscore, date),
            state.drifted(f, state.handicap_imp, date),
        )
    } else {
        (state.handicap_topscore, state.handicap_imp)
    };
    let method = played.input.method;
    let by_method = played.by_method.map(|o| (method, o.delta * scale));
    if played.apply == Apply::Now {
        state.handicap = handicap_after;
        state.handicap_topscore = opening_topscore;
        state.handicap_imp = opening_imp;
        if let Some((method, delta)) = by_method {
            let track = match method {
                CalcMethod::Topscore => &mut state.handicap_topscore,
                CalcMethod::Imp => &mut state.handicap_imp,
            };
            *track = apply(f, *track, delta);
        }
    }
    state.handicap_sd = match kalman_sd {
        Some(sd) => Some(sd),
        None => next_sd(f, &state, played.input, &outcome, scale),
    };
    state.boards += u64::from(outcome.n_g);
    if !played.again {
        state.competitions += 1;
    }
    state.last_played = Some(date);
    Updated {
        state,
        outcome,
        handicap_after,
        by_method,
        opening_topscore,
        opening_imp,
    }
}

/// What one player's update reads of a competition and an outcome.
fn update_input(input: &CompetitionInput, outcome: &PlayerOutcome) -> update::UpdateInput {
    update::UpdateInput {
        method: input.method,
        kind: input.kind,
        n_b: input.n_boards,
        n_g: outcome.n_g,
        weight_multiplier: input.weight_multiplier,
        achieved: outcome.achieved,
        expected: outcome.expected,
    }
}

/// The confidence figure after a competition that moved the handicap `scale` times the
/// set's share, when the set keeps one (see [`update::next_sd`]).
fn next_sd(
    f: &FactorSet,
    state: &PlayerState,
    input: &CompetitionInput,
    outcome: &PlayerOutcome,
    scale: f64,
) -> Option<f64> {
    let (Some(confidence), Some(sd)) = (f.confidence, state.handicap_sd) else {
        return state.handicap_sd;
    };
    let u = update_input(input, outcome);
    // A competition the model rated has at least 2 boards, so the share exists.
    match update::move_share(f, &u) {
        Ok(share) => Some(update::next_sd(
            sd,
            (share * scale).min(1.0),
            update::evidence_boards(f, &u),
            confidence.board_sd,
        )),
        Err(_) => Some(sd),
    }
}

/// What the model's `Δh` is multiplied by for one player, and the confidence figure the
/// gain leaves when it sets one: the newcomer period's scale, or with `[kalman]` the
/// filter's gain over the share the set would have moved (see [`update::kalman_step`]).
fn gain(
    f: &FactorSet,
    state: &PlayerState,
    played: &Played<'_>,
    boards_before: u64,
) -> (f64, Option<f64>) {
    let (Some(kalman), Some(confidence), Some(sd)) = (f.kalman, f.confidence, state.handicap_sd)
    else {
        return (f.newcomer_scale(boards_before), None);
    };
    let u = update_input(played.input, played.outcome);
    let share = match update::move_share(f, &u) {
        Ok(share) if share > 0.0 => share,
        _ => return (1.0, None),
    };
    let days = state
        .last_played
        .map_or(0, |last| (played.date - last).num_days());
    let evidence = update::evidence_boards(f, &u);
    let (k, sd_after) = match played.partner_variance.filter(|_| kalman.pairs) {
        Some(partner) => update::kalman_pair_step(
            update::prior_variance(&kalman, sd, days as f64),
            partner,
            evidence,
            confidence.board_sd,
        ),
        None => update::kalman_step(
            session_sd(kalman, sd),
            days as f64,
            evidence,
            confidence.board_sd,
            kalman.drift_per_year,
        ),
    };
    let mut scale = k / share;
    if let Some(max) = kalman.max_shown {
        // The set's change moved `share` of the way to the level shown.
        let distance = played.outcome.delta.abs() / share;
        if distance > max {
            scale *= max / distance;
        }
    }
    (scale, Some(sd_after))
}

/// The figure `sd` grown by the set's drift per session, when it has one: the `sd` a
/// Kalman step starts from before the drift of the days away is added.
fn session_sd(kalman: crate::model::factors::Kalman, sd: f64) -> f64 {
    if kalman.drift_per_session > 0.0 {
        (sd * sd + kalman.drift_per_session * kalman.drift_per_session).sqrt()
    } else {
        sd
    }
}

/// With `[partnership]`, the pull of a member toward the member partner they sat with
/// (see [`update::partnership_pull`]); 0 otherwise, and beside a guest or a non-member.
fn partner_pull(f: &FactorSet, played: &Played<'_>, outcome: &PlayerOutcome) -> f64 {
    match (f.partnership, outcome.partner_handicap) {
        (Some(partnership), Some(partner)) if played.partner_is_member => update::partnership_pull(
            partnership.pull_per_board,
            outcome.n_g,
            outcome.handicap_before,
            partner,
        ),
        _ => 0.0,
    }
}

/// One member's frozen month: the handicaps it opened with and the changes to sum.
#[derive(Debug, Clone, Default)]
struct MemberMonth {
    open: bool,
    opening: f64,
    opening_topscore: f64,
    opening_imp: f64,
    deltas: Vec<f64>,
    topscore: Vec<f64>,
    imp: Vec<f64>,
}

/// The changes of a frozen month, per member (by index), until the month closes.
#[derive(Debug, Clone, Default)]
pub struct FrozenMonth {
    members: Vec<MemberMonth>,
    /// The members with changes this month, in the order first seen.
    touched: Vec<u32>,
}

impl FrozenMonth {
    pub fn new(members: usize) -> Self {
        FrozenMonth {
            members: vec![MemberMonth::default(); members],
            touched: Vec::new(),
        }
    }

    /// Adds a member's change to the month; the first one of the month sets the
    /// handicaps the month opened with.
    pub fn add(&mut self, member: u32, updated: &Updated) {
        let Some(month) = self.members.get_mut(member as usize) else {
            return;
        };
        if !month.open {
            month.open = true;
            month.opening = updated.outcome.handicap_before;
            month.opening_topscore = updated.opening_topscore;
            month.opening_imp = updated.opening_imp;
            self.touched.push(member);
        }
        month.deltas.push(updated.outcome.delta);
        match updated.by_method {
            Some((CalcMethod::Topscore, delta)) => month.topscore.push(delta),
            Some((CalcMethod::Imp, delta)) => month.imp.push(delta),
            None => {}
        }
    }

    /// Closes the month: each member's changes are summed and the cap (and floor)
    /// applies once (see [`update::apply_period`]). The buffers are kept for the next
    /// month.
    ///
    /// From 51.5, +1 and −1 in the same month cancel before the cap applies:
    /// ```
    /// use bridgehcp::model::factors::FactorSet;
    /// use bridgehcp::model::player::{FrozenMonth, PlayerState};
    /// let f = FactorSet::default();
    /// let mut states = vec![PlayerState::starting(51.5, None)];
    /// let mut month = FrozenMonth::new(1);
    /// month.add_delta(0, 51.5, 1.0);
    /// month.add_delta(0, 51.5, -1.0);
    /// month.close(&f, &mut states);
    /// assert_eq!(states[0].handicap, 51.5);
    /// ```
    pub fn close(&mut self, f: &FactorSet, states: &mut [PlayerState]) {
        for member in self.touched.drain(..) {
            let (Some(month), Some(state)) = (
                self.members.get_mut(member as usize),
                states.get_mut(member as usize),
            ) else {
                continue;
            };
            state.handicap = update::apply_period_mut(f, month.opening, &mut month.deltas);
            if f.separate_by_method {
                state.handicap_topscore =
                    update::apply_period_mut(f, month.opening_topscore, &mut month.topscore);
                state.handicap_imp = update::apply_period_mut(f, month.opening_imp, &mut month.imp);
            }
            month.open = false;
            month.deltas.clear();
            month.topscore.clear();
            month.imp.clear();
        }
    }

    /// Adds a bare change to the combined handicap (the month opening at `opening` if it
    /// is the member's first).
    pub fn add_delta(&mut self, member: u32, opening: f64, delta: f64) {
        let Some(month) = self.members.get_mut(member as usize) else {
            return;
        };
        if !month.open {
            month.open = true;
            month.opening = opening;
            month.opening_topscore = opening;
            month.opening_imp = opening;
            self.touched.push(member);
        }
        month.deltas.push(delta);
    }
}

#[cfg(test)]
mod tests;
