//! The ratings a handicap has to beat, run over the same fields in the same order.
//!
//! A handicap is only worth its formula if it predicts results better than the obvious
//! alternatives: a player's own recent average, Elo, and the Bayesian ratings with an
//! uncertainty per player (Glicko-2, TrueSkill, Weng-Lin, as used by chess servers and
//! online games), which move a new player further than an established one, as the
//! handicap's Kalman gain does. Each baseline sees exactly the matchpoint fields the
//! handicap model is judged on, predicts every entrant's percentage from the ratings held
//! before the field, then updates. Each has one parameter, tuned on the burn-in period
//! only.
//!
//! The rating systems built for games of two compare each entrant with every other
//! entrant of its field, the better percentage winning (equal ones draw); the expected
//! percentage is the mean of those win probabilities, so its scale is a probability's,
//! not a percentage's: the study's calibrated RMSE and r, which do not depend on the
//! scale, are the figures to compare them by.
//!
//! Conventions, so that the numbers are comparable with the model's: results are in
//! percent over 50; an entrant's strength is the mean of its players' (a pair is the mean
//! of its players, as the model has it); a player outside the member list (a guest, a
//! non-member) counts at the starting rating and is never updated.

use super::glicko2;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating};
use skillratings::trueskill::{
    expected_score_two_teams as trueskill_expected, TrueSkillConfig, TrueSkillRating,
};
use skillratings::weng_lin::{
    expected_score_two_teams, weng_lin_multi_team, WengLinConfig, WengLinRating,
};
use skillratings::{MultiTeamOutcome, Outcomes};

/// One matchpoint field as the baselines see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Position of the competition in replay order.
    pub competition: usize,
    /// The competition's day (days since the common era): fields of one day are played
    /// before anything of that day is known.
    pub day: i32,
    pub entrants: Vec<FieldEntrant>,
    /// Entrant indices compared with each other (two groups in a Mitchell rated per
    /// direction, otherwise one).
    pub groups: Vec<Vec<usize>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FieldEntrant {
    /// Index of the entrant in the competition.
    pub entrant: usize,
    /// Members by dense index; `None` for guests and non-members.
    pub players: Vec<Option<u32>>,
    /// Percent over 50.
    pub achieved: f64,
}

impl FieldEntrant {
    /// Whether the entrant is judged as a prediction: every player is a member. An
    /// entrant with a guest or a non-member still counts in its field (at the starting
    /// rating), but no track is judged on it (see the study's module doc).
    pub fn judged(&self) -> bool {
        !self.players.is_empty() && self.players.iter().all(Option::is_some)
    }
}

/// The baselines of a study.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Baseline {
    /// Exponentially weighted running average of the player's percentages; parameter:
    /// the weight of the newest result.
    RunningAverage,
    /// Elo on the 400-point logistic scale, expectation against every other entrant;
    /// parameter: K, rating points per unit of (score − expectation).
    Elo,
    /// Weng-Lin (Bradley-Terry, full pairing) through the `skillratings` crate, fields
    /// ranked by percentage; parameter: β, the skill-class width.
    WengLin,
    /// Glicko-2 through the `skillratings` crate (τ = 0.5, volatility 0.06): each field a
    /// rating period of games against every other entrant; parameter: the starting
    /// rating deviation, how little a new player's rating is known.
    Glicko2,
    /// TrueSkill (the factor graph of teams of two, fields ranked by percentage; the
    /// `skillratings` crate's expectations, and its update as `study::trueskill`
    /// computes it); parameter: β, the performance spread.
    TrueSkill,
    /// Not a prediction: the upper reference. Each player's percentage smoothed over
    /// all their other sessions, earlier *and later*, with weights halving every
    /// `halflife` sessions away, so it knows what a rating could only learn afterwards;
    /// parameter: the half-life. Never the best baseline the gains are measured against.
    UpperReference,
    /// A whole-history rating refitted before each competition day from every result up
    /// to it (the study's `history` module); parameter: the drift per year. Not one of the
    /// standard ratings the study runs by default, but a method studied beside the
    /// factor sets (`study --whole-history`): never the best baseline either.
    WholeHistory,
}

impl Baseline {
    pub const ALL: [Baseline; 6] = [
        Baseline::RunningAverage,
        Baseline::Elo,
        Baseline::WengLin,
        Baseline::Glicko2,
        Baseline::TrueSkill,
        Baseline::UpperReference,
    ];

    /// Whether the baseline predicts, from what was known before each field; the upper
    /// reference does not, and is never the best baseline.
    pub fn predicts(self) -> bool {
        self != Baseline::UpperReference
    }

    /// Whether the baseline may be the best baseline the gains are measured against:
    /// the standard ratings that predict.
    pub fn is_standard(self) -> bool {
        self.predicts() && self != Baseline::WholeHistory
    }

    pub fn name(self) -> &'static str {
        match self {
            Baseline::RunningAverage => "running-average",
            Baseline::Elo => "elo",
            Baseline::WengLin => "weng-lin",
            Baseline::Glicko2 => "glicko-2",
            Baseline::TrueSkill => "trueskill",
            Baseline::UpperReference => "upper-reference",
            Baseline::WholeHistory => "whole-history",
        }
    }

    pub fn parameter_name(self) -> &'static str {
        match self {
            Baseline::RunningAverage => "alpha",
            Baseline::Elo => "k",
            Baseline::WengLin => "beta",
            Baseline::Glicko2 => "rd0",
            Baseline::TrueSkill => "beta",
            Baseline::UpperReference => "halflife",
            Baseline::WholeHistory => "drift_per_year",
        }
    }

    /// Whether the tuning judges the expected results after the line of achieved on
    /// expected fitted on the burn-in (see [`tune`]): the baselines added with the
    /// uncertainty-aware ratings, whose expected result is a mean win probability. The
    /// older ones keep the plain RMSE, so their figures stay as they were.
    pub fn tuned_on_the_fitted_line(self) -> bool {
        matches!(self, Baseline::Glicko2 | Baseline::TrueSkill)
    }

    /// The values tried on the burn-in period.
    pub fn grid(self) -> &'static [f64] {
        match self {
            Baseline::RunningAverage => &[0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2, 0.3],
            Baseline::Elo => &[
                4.0, 8.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0, 192.0, 256.0,
            ],
            Baseline::WengLin => &[4.1667, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0],
            Baseline::Glicko2 => &[10.0, 20.0, 30.0, 50.0, 75.0, 100.0, 150.0, 200.0, 350.0],
            Baseline::TrueSkill => &[1.0, 2.0, 4.1667, 8.0, 16.0, 32.0, 64.0, 128.0],
            Baseline::UpperReference => &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0],
            Baseline::WholeHistory => &[2.0, 4.0, 8.0, 16.0, 32.0],
        }
    }
}

/// A baseline's predictions and final ratings.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineRun {
    /// Per field, per entrant of the field: the expected percentage over 50.
    pub expected: Vec<Vec<f64>>,
    /// Per member: the rating turned into the handicap's direction (lower is stronger).
    pub strength: Vec<f64>,
    /// Per member: whether they played in any of the fields.
    pub played: Vec<bool>,
}

trait Rater {
    /// Expected percentage over 50 of each listed entrant against the others of its group.
    fn expect(&self, field: &Field, group: &[usize]) -> Vec<f64>;
    fn update(&mut self, field: &Field, group: &[usize], expected: &[f64]);
    /// Lower is stronger, like a handicap.
    fn strength(&self, member: usize) -> f64;
}

/// Mean of the players' values; outsiders count `default`.
pub(crate) fn entrant_mean(
    players: &[Option<u32>],
    value: impl Fn(usize) -> f64,
    default: f64,
) -> f64 {
    if players.is_empty() {
        return default;
    }
    players
        .iter()
        .map(|p| p.map_or(default, |m| value(m as usize)))
        .sum::<f64>()
        / players.len() as f64
}

struct RunningAverage {
    alpha: f64,
    value: Vec<f64>,
}

impl Rater for RunningAverage {
    fn expect(&self, field: &Field, group: &[usize]) -> Vec<f64> {
        let s: Vec<f64> = group
            .iter()
            .map(|&e| entrant_mean(&field.entrants[e].players, |m| self.value[m], 0.0))
            .collect();
        let mean = s.iter().sum::<f64>() / s.len().max(1) as f64;
        s.iter().map(|v| v - mean).collect()
    }
    fn update(&mut self, field: &Field, group: &[usize], _: &[f64]) {
        for &e in group {
            let entrant = &field.entrants[e];
            for m in entrant.players.iter().flatten() {
                let v = &mut self.value[*m as usize];
                *v += self.alpha * (entrant.achieved - *v);
            }
        }
    }
    fn strength(&self, member: usize) -> f64 {
        -self.value[member]
    }
}

struct Elo {
    k: f64,
    rating: Vec<f64>,
}

impl Rater for Elo {
    fn expect(&self, field: &Field, group: &[usize]) -> Vec<f64> {
        let r: Vec<f64> = group
            .iter()
            .map(|&e| entrant_mean(&field.entrants[e].players, |m| self.rating[m], 0.0))
            .collect();
        let n = r.len();
        (0..n)
            .map(|i| {
                let e: f64 = (0..n)
                    .filter(|&j| j != i)
                    .map(|j| 1.0 / (1.0 + 10f64.powf((r[j] - r[i]) / 400.0)))
                    .sum::<f64>()
                    / (n - 1).max(1) as f64;
                100.0 * (e - 0.5)
            })
            .collect()
    }
    fn update(&mut self, field: &Field, group: &[usize], expected: &[f64]) {
        for (&e, x) in group.iter().zip(expected) {
            let entrant = &field.entrants[e];
            let score = ((entrant.achieved + 50.0) / 100.0).clamp(0.0, 1.0);
            let change = self.k * (score - (x / 100.0 + 0.5));
            for m in entrant.players.iter().flatten() {
                self.rating[*m as usize] += change;
            }
        }
    }
    fn strength(&self, member: usize) -> f64 {
        -self.rating[member]
    }
}

struct WengLin {
    config: WengLinConfig,
    rating: Vec<WengLinRating>,
}

impl TeamSystem for WengLin {
    type Rating = WengLinRating;
    fn win_probability(&self, a: &[WengLinRating], b: &[WengLinRating]) -> f64 {
        expected_score_two_teams(a, b, &self.config).0
    }
    fn ranked_update(
        &self,
        ranked: &[(&[WengLinRating], MultiTeamOutcome)],
    ) -> Option<Vec<Vec<WengLinRating>>> {
        Some(weng_lin_multi_team(ranked, &self.config))
    }
    fn ratings(&self) -> &[WengLinRating] {
        &self.rating
    }
    fn ratings_mut(&mut self) -> &mut [WengLinRating] {
        &mut self.rating
    }
    fn strength(&self, member: usize) -> f64 {
        -self.rating[member].rating
    }
}

/// Win (1), draw (½) or loss (0) of every entrant of `group` against every other, by
/// percentage: `outcomes[i][j]` is `i`'s against `j`.
fn pairwise_outcomes(field: &Field, group: &[usize]) -> Vec<Vec<Outcomes>> {
    let achieved: Vec<f64> = group.iter().map(|&e| field.entrants[e].achieved).collect();
    achieved
        .iter()
        .map(|a| {
            achieved
                .iter()
                .map(|b| match a.total_cmp(b) {
                    std::cmp::Ordering::Greater => Outcomes::WIN,
                    std::cmp::Ordering::Less => Outcomes::LOSS,
                    std::cmp::Ordering::Equal => Outcomes::DRAW,
                })
                .collect()
        })
        .collect()
}

/// A rating system of the `skillratings` crate that rates teams: an entrant is the team
/// of its players, a field is ranked by percentage, and each entrant's expectation is its
/// mean win probability against the others of its group.
trait TeamSystem {
    /// A player's rating; its `Default` is the system's start, a guest's rating.
    type Rating: Copy + Default;
    fn win_probability(&self, a: &[Self::Rating], b: &[Self::Rating]) -> f64;
    /// Every team's new ratings, in order; `None` when the system refuses the field.
    fn ranked_update(
        &self,
        ranked: &[(&[Self::Rating], MultiTeamOutcome)],
    ) -> Option<Vec<Vec<Self::Rating>>>;
    fn ratings(&self) -> &[Self::Rating];
    fn ratings_mut(&mut self) -> &mut [Self::Rating];
    fn strength(&self, member: usize) -> f64;
    /// The ratings of an entrant's players.
    fn team(&self, players: &[Option<u32>]) -> Vec<Self::Rating> {
        let rating = |m: u32| self.ratings().get(m as usize).copied();
        players
            .iter()
            .map(|p| p.and_then(rating).unwrap_or_default())
            .collect()
    }
}

impl<T: TeamSystem> Rater for T {
    fn expect(&self, field: &Field, group: &[usize]) -> Vec<f64> {
        let teams = teams(self, field, group);
        mean_win_probability(teams.len(), |i, j| {
            self.win_probability(&teams[i], &teams[j])
        })
    }
    fn update(&mut self, field: &Field, group: &[usize], _: &[f64]) {
        let teams = teams(self, field, group);
        let Some(updated) = self.ranked_update(&ranked_teams(&teams, field, group)) else {
            return;
        };
        let ratings = self.ratings_mut();
        for (&e, new) in group.iter().zip(updated) {
            for (p, r) in field.entrants[e].players.iter().zip(new) {
                if let Some(slot) = p.and_then(|m| ratings.get_mut(m as usize)) {
                    *slot = r;
                }
            }
        }
    }
    fn strength(&self, member: usize) -> f64 {
        TeamSystem::strength(self, member)
    }
}

fn teams<T: TeamSystem>(system: &T, field: &Field, group: &[usize]) -> Vec<Vec<T::Rating>> {
    group
        .iter()
        .map(|&e| system.team(&field.entrants[e].players))
        .collect()
}

/// Each entrant's team beside its place in `group`, by percentage: rank 1 is the best,
/// and equal percentages share a rank.
fn ranked_teams<'a, R>(
    teams: &'a [Vec<R>],
    field: &Field,
    group: &[usize],
) -> Vec<(&'a [R], MultiTeamOutcome)> {
    let achieved: Vec<f64> = group.iter().map(|&e| field.entrants[e].achieved).collect();
    teams
        .iter()
        .zip(&achieved)
        .map(|(t, a)| {
            let better = achieved.iter().filter(|b| *b > a).count();
            (t.as_slice(), MultiTeamOutcome::new(better + 1))
        })
        .collect()
}

/// The mean of each entrant's win probabilities against the others, as percent over 50.
fn mean_win_probability(n: usize, p: impl Fn(usize, usize) -> f64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let e: f64 =
                (0..n).filter(|&j| j != i).map(|j| p(i, j)).sum::<f64>() / (n - 1).max(1) as f64;
            100.0 * (e - 0.5)
        })
        .collect()
}

/// Glicko-2. An entrant is the mean of its players' ratings (the deviation of that mean,
/// the mean volatility); each player's own update takes the entrant's rating with the
/// player's own deviation, so a new player moves further than the partner of many
/// evenings, and both move by the entrant's results.
struct Glicko2 {
    config: Glicko2Config,
    start: Glicko2Rating,
    rating: Vec<Glicko2Rating>,
}

impl Glicko2 {
    fn player(&self, p: &Option<u32>) -> Glicko2Rating {
        p.and_then(|m| self.rating.get(m as usize).copied())
            .unwrap_or(self.start)
    }

    fn entrant(&self, players: &[Option<u32>]) -> Glicko2Rating {
        if players.is_empty() {
            return self.start;
        }
        let n = players.len() as f64;
        let ratings: Vec<Glicko2Rating> = players.iter().map(|p| self.player(p)).collect();
        Glicko2Rating {
            rating: ratings.iter().map(|r| r.rating).sum::<f64>() / n,
            deviation: ratings
                .iter()
                .map(|r| r.deviation.powi(2))
                .sum::<f64>()
                .sqrt()
                / n,
            volatility: ratings.iter().map(|r| r.volatility).sum::<f64>() / n,
        }
    }
}

impl Rater for Glicko2 {
    fn expect(&self, field: &Field, group: &[usize]) -> Vec<f64> {
        let r: Vec<Glicko2Rating> = group
            .iter()
            .map(|&e| self.entrant(&field.entrants[e].players))
            .collect();
        mean_win_probability(r.len(), |i, j| {
            skillratings::glicko2::expected_score(&r[i], &r[j]).0
        })
    }
    fn update(&mut self, field: &Field, group: &[usize], _: &[f64]) {
        let r: Vec<Glicko2Rating> = group
            .iter()
            .map(|&e| self.entrant(&field.entrants[e].players))
            .collect();
        let outcomes = pairwise_outcomes(field, group);
        let opponents: Vec<glicko2::Opponent> = r.iter().map(glicko2::Opponent::of).collect();
        let mut new = Vec::new();
        for (i, &e) in group.iter().enumerate() {
            let games: Vec<(glicko2::Opponent, Outcomes)> = (0..r.len())
                .filter(|&j| j != i)
                .map(|j| (opponents[j], outcomes[i][j]))
                .collect();
            // The entrant's period, shared by its players: each carries the entrant's
            // rating in, with their own deviation and volatility.
            let period = glicko2::Period::new(r[i].rating, &games);
            for p in field.entrants[e].players.iter().flatten() {
                let own = self.player(&Some(*p));
                let me = Glicko2Rating {
                    rating: r[i].rating,
                    ..own
                };
                let after = glicko2::rate(&me, period.as_ref(), &self.config);
                new.push((
                    *p as usize,
                    Glicko2Rating {
                        rating: own.rating + (after.rating - r[i].rating),
                        ..after
                    },
                ));
            }
        }
        for (m, rating) in new {
            if let Some(slot) = self.rating.get_mut(m) {
                *slot = rating;
            }
        }
    }
    fn strength(&self, member: usize) -> f64 {
        -self.player(&Some(member as u32)).rating
    }
}

/// TrueSkill: teams of the entrant's players, each field one match of many teams ranked
/// by percentage.
struct TrueSkill {
    config: TrueSkillConfig,
    rating: Vec<TrueSkillRating>,
}

impl TeamSystem for TrueSkill {
    type Rating = TrueSkillRating;
    fn win_probability(&self, a: &[TrueSkillRating], b: &[TrueSkillRating]) -> f64 {
        trueskill_expected(a, b, &self.config).0
    }
    fn ranked_update(
        &self,
        ranked: &[(&[TrueSkillRating], MultiTeamOutcome)],
    ) -> Option<Vec<Vec<TrueSkillRating>>> {
        Some(super::trueskill::rate(ranked, &self.config))
    }
    fn ratings(&self) -> &[TrueSkillRating] {
        &self.rating
    }
    fn ratings_mut(&mut self) -> &mut [TrueSkillRating] {
        &mut self.rating
    }
    fn strength(&self, member: usize) -> f64 {
        -self.rating.get(member).map_or(25.0, |r| r.rating)
    }
}

/// The upper reference: every player's results smoothed over their whole history, the
/// session itself left out. The weight of a session `d` sessions away is `w^d`,
/// `w = 2^(−1/halflife)`; [`PRIOR_WEIGHT`] sessions at 0 (percent over 50) pull a
/// player with few sessions toward the middle. Two passes (forward and backward sums)
/// make it linear in the sessions.
struct Smoother {
    /// Per competition: where its field's entrants start in `value` (none without a
    /// field). Held by position, not in a map: at a federation's size the fit's maps
    /// of every entrant and player were most of the baseline's time.
    first: Vec<Option<usize>>,
    /// Per entrant of every field, in order: the mean smoothed value of its players.
    value: Vec<f64>,
    /// Per member: the smoothed value over all their sessions.
    last: Vec<f64>,
}

/// Sessions at 0 added to every player's smoothed value.
pub const PRIOR_WEIGHT: f64 = 1.0;

impl Smoother {
    /// Predicts 0 for everyone.
    fn none(members: usize) -> Smoother {
        Smoother {
            first: Vec::new(),
            value: Vec::new(),
            last: vec![0.0; members],
        }
    }

    fn fit(halflife: f64, fields: &[Field], members: usize) -> Smoother {
        let w = 0.5f64.powf(1.0 / halflife.max(f64::MIN_POSITIVE));
        // Every player's seat of every field, in order: seat `seats[f] + k` is the
        // field's `k`-th, counting each entrant's players in turn.
        let mut seats = Vec::with_capacity(fields.len() + 1);
        seats.push(0);
        for field in fields {
            let n: usize = field.entrants.iter().map(|e| e.players.len()).sum();
            seats.push(seats[seats.len() - 1] + n);
        }
        // Per member: (seat, achieved) in field order.
        let mut sessions: Vec<Vec<(usize, f64)>> = vec![Vec::new(); members];
        for (field, &start) in fields.iter().zip(&seats) {
            let mut seat = start;
            for entrant in &field.entrants {
                for p in &entrant.players {
                    if let Some(list) = p.and_then(|m| sessions.get_mut(m as usize)) {
                        list.push((seat, entrant.achieved));
                    }
                    seat += 1;
                }
            }
        }
        let mut own = vec![0.0; seats[seats.len() - 1]];
        let mut last = vec![0.0; members];
        for (m, list) in sessions.iter().enumerate() {
            let n = list.len();
            // fwd[k]: weighted sums of the sessions before k; bwd[k]: after k.
            let (mut fwd, mut bwd) = (vec![(0.0, 0.0); n], vec![(0.0, 0.0); n]);
            for k in 1..n {
                let (s, c) = fwd[k - 1];
                fwd[k] = (w * (s + list[k - 1].1), w * (c + 1.0));
            }
            for k in (0..n.saturating_sub(1)).rev() {
                let (s, c) = bwd[k + 1];
                bwd[k] = (w * (s + list[k + 1].1), w * (c + 1.0));
            }
            for (k, &(seat, _)) in list.iter().enumerate() {
                let sum = fwd[k].0 + bwd[k].0;
                let weight = fwd[k].1 + bwd[k].1 + PRIOR_WEIGHT;
                own[seat] = sum / weight;
            }
            if let Some(k) = n.checked_sub(1) {
                let (s, c) = fwd[k];
                last[m] = (s + list[k].1) / (c + 1.0 + PRIOR_WEIGHT);
            }
        }
        let competitions = fields.iter().map(|f| f.competition + 1).max().unwrap_or(0);
        let mut first = vec![None; competitions];
        let mut value = Vec::with_capacity(fields.iter().map(|f| f.entrants.len()).sum());
        for (field, &start) in fields.iter().zip(&seats) {
            first[field.competition] = Some(value.len());
            let mut seat = start;
            for entrant in &field.entrants {
                let players = &entrant.players;
                // A member seated twice in one entrant counts its last seat.
                let own_value = |m: usize| {
                    players
                        .iter()
                        .rposition(|p| *p == Some(m as u32))
                        .map_or(0.0, |k| own[seat + k])
                };
                value.push(entrant_mean(players, own_value, 0.0));
                seat += players.len();
            }
        }
        Smoother { first, value, last }
    }
}

impl Rater for Smoother {
    fn expect(&self, field: &Field, group: &[usize]) -> Vec<f64> {
        let start = self.first.get(field.competition).copied().flatten();
        let s: Vec<f64> = group
            .iter()
            .map(|&e| {
                start
                    .and_then(|start| self.value.get(start + e))
                    .copied()
                    .unwrap_or(0.0)
            })
            .collect();
        let mean = s.iter().sum::<f64>() / s.len().max(1) as f64;
        s.iter().map(|v| v - mean).collect()
    }
    fn update(&mut self, _: &Field, _: &[usize], _: &[f64]) {}
    fn strength(&self, member: usize) -> f64 {
        -self.last.get(member).copied().unwrap_or(0.0)
    }
}

fn rater(baseline: Baseline, parameter: f64, members: usize) -> Box<dyn Rater> {
    match baseline {
        Baseline::RunningAverage => Box::new(RunningAverage {
            alpha: parameter,
            value: vec![0.0; members],
        }),
        Baseline::Elo => Box::new(Elo {
            k: parameter,
            rating: vec![0.0; members],
        }),
        Baseline::WengLin => Box::new(WengLin {
            config: WengLinConfig {
                beta: parameter,
                ..WengLinConfig::new()
            },
            rating: vec![WengLinRating::new(); members],
        }),
        Baseline::Glicko2 => {
            let start = Glicko2Rating {
                deviation: parameter,
                ..Glicko2Rating::new()
            };
            Box::new(Glicko2 {
                config: Glicko2Config::new(),
                start,
                rating: vec![start; members],
            })
        }
        // Fitted on the fields by [`run`]; with none it predicts 0 for everyone. The
        // whole-history rating is run by `history::run`, never through here.
        Baseline::UpperReference | Baseline::WholeHistory => Box::new(Smoother::none(members)),
        Baseline::TrueSkill => Box::new(TrueSkill {
            config: TrueSkillConfig {
                beta: parameter,
                ..TrueSkillConfig::new()
            },
            rating: vec![TrueSkillRating::new(); members],
        }),
    }
}

/// Called before each field with the field and the current strengths.
pub type FieldHook<'a> = dyn FnMut(&Field, &dyn Fn(usize) -> f64) + 'a;

/// Runs a baseline over `fields` in order. `on_field` is called before each field with
/// the field and the current strengths, so the caller can take month-end snapshots.
pub fn run(
    baseline: Baseline,
    parameter: f64,
    fields: &[Field],
    members: usize,
    on_field: &mut FieldHook,
) -> BaselineRun {
    let mut r = match baseline {
        Baseline::UpperReference => Box::new(Smoother::fit(parameter, fields, members)),
        _ => rater(baseline, parameter, members),
    };
    let mut played = vec![false; members];
    let mut expected_all = Vec::with_capacity(fields.len());
    for field in fields {
        on_field(field, &|m| r.strength(m));
        let mut expected = vec![0.0; field.entrants.len()];
        let mut per_group = Vec::with_capacity(field.groups.len());
        for group in &field.groups {
            let x = r.expect(field, group);
            for (&e, v) in group.iter().zip(&x) {
                expected[e] = *v;
            }
            per_group.push(x);
        }
        for (group, x) in field.groups.iter().zip(&per_group) {
            r.update(field, group, x);
        }
        for entrant in &field.entrants {
            for m in entrant.players.iter().flatten() {
                played[*m as usize] = true;
            }
        }
        expected_all.push(expected);
    }
    BaselineRun {
        expected: expected_all,
        strength: (0..members).map(|m| r.strength(m)).collect(),
        played,
    }
}

/// The grid value with the lowest RMSE over the judged entrants of `fields` (the
/// burn-in period), the first one on a tie. A baseline whose expected result is a mean win probability
/// ([`Baseline::tuned_on_the_fitted_line`]) is judged after the line of achieved on
/// expected fitted on the same fields: its raw RMSE would reward the flattest
/// predictions, whatever they tell apart.
pub fn tune(baseline: Baseline, fields: &[Field], members: usize) -> f64 {
    use rayon::prelude::*;
    // The values are tried in parallel, each on its own ratings, and the best is taken
    // in the grid's order: a baseline's tuning is most of its time, and one baseline's
    // grid left on one core kept the study waiting for it.
    let rmses: Vec<f64> = baseline
        .grid()
        .par_iter()
        .map(|&p| burn_in_rmse(baseline, p, fields, members))
        .collect();
    let mut best = (f64::INFINITY, baseline.grid()[0]);
    for (&p, &rmse) in baseline.grid().iter().zip(&rmses) {
        if rmse < best.0 {
            best = (rmse, p);
        }
    }
    best.1
}

/// The RMSE [`tune`] judges the value `p` by.
fn burn_in_rmse(baseline: Baseline, p: f64, fields: &[Field], members: usize) -> f64 {
    let run = run(baseline, p, fields, members, &mut |_, _| {});
    let pairs = judged_pairs(fields, &run.expected);
    let line = if baseline.tuned_on_the_fitted_line() {
        fitted_line(&pairs)
    } else {
        Some((0.0, 1.0))
    };
    match line {
        Some((a, b)) if !pairs.is_empty() => (pairs
            .iter()
            .map(|(x, y)| (y - a - b * x).powi(2))
            .sum::<f64>()
            / pairs.len() as f64)
            .sqrt(),
        _ => f64::INFINITY,
    }
}

/// Each judged entrant's (expected, achieved), field by field: what a method tuned on
/// the burn-in is scored on.
pub(crate) fn judged_pairs(fields: &[Field], expected: &[Vec<f64>]) -> Vec<(f64, f64)> {
    fields
        .iter()
        .zip(expected)
        .flat_map(|(field, expected)| {
            field
                .entrants
                .iter()
                .zip(expected)
                .filter(|(entrant, _)| entrant.judged())
                .map(|(entrant, x)| (*x, entrant.achieved))
        })
        .collect()
}

/// Intercept and slope of the least-squares line of `y` on `x`; none without spread.
pub(crate) fn fitted_line(pairs: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = pairs.len() as f64;
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx.is_nan() || sxx <= 0.0 {
        return None;
    }
    let b = sxy / sxx;
    Some((my - b * mx, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(results: &[(u32, u32, f64)]) -> Field {
        Field {
            competition: 0,
            day: 0,
            entrants: results
                .iter()
                .enumerate()
                .map(|(i, &(a, b, r))| FieldEntrant {
                    entrant: i,
                    players: vec![Some(a), Some(b)],
                    achieved: r,
                })
                .collect(),
            groups: vec![(0..results.len()).collect()],
        }
    }

    /// Running average with α = 0.5: after pair (0,1) scores +10 and (2,3) −10, players
    /// hold +5 and −5; next time the pairs are expected +5 and −5 around a mean of 0.
    #[test]
    fn running_average_by_hand() {
        let f = field(&[(0, 1, 10.0), (2, 3, -10.0)]);
        let run = run(
            Baseline::RunningAverage,
            0.5,
            &[f.clone(), f],
            4,
            &mut |_, _| {},
        );
        assert_eq!(run.expected[0], vec![0.0, 0.0]);
        assert_eq!(run.expected[1], vec![5.0, -5.0]);
        // Second update: 5 + 0.5·(10 − 5) = 7.5.
        assert_eq!(run.strength, vec![-7.5, -7.5, 7.5, 7.5]);
    }

    /// Elo with K = 40: equal ratings expect 50 %, a 60 % score gains 40·0.1 = 4 points;
    /// then 4 points up, the pair expects 1/(1 + 10^(−8/400)) = 0.511511 → +1.1511 %.
    #[test]
    fn elo_by_hand() {
        let f = field(&[(0, 1, 10.0), (2, 3, -10.0)]);
        let run = run(Baseline::Elo, 40.0, &[f.clone(), f], 4, &mut |_, _| {});
        assert_eq!(run.expected[0], vec![0.0, 0.0]);
        let e = 1.0 / (1.0 + 10f64.powf(-8.0 / 400.0));
        assert!((e - 0.511511).abs() < 1e-6);
        assert!((run.expected[1][0] - 100.0 * (e - 0.5)).abs() < 1e-9);
        assert!((run.expected[1][1] + 100.0 * (e - 0.5)).abs() < 1e-9);
    }

    /// Weng-Lin moves the winners up and the losers down, and ties leave equal pairs level.
    #[test]
    fn weng_lin_orders_winners_first() {
        let f = field(&[(0, 1, 10.0), (2, 3, -10.0), (4, 5, 0.0)]);
        let run = run(
            Baseline::WengLin,
            4.1667,
            &[f.clone(), f],
            6,
            &mut |_, _| {},
        );
        assert!(run.expected[1][0] > run.expected[1][2]);
        assert!(run.expected[1][2] > run.expected[1][1]);
        assert!(run.strength[0] < run.strength[4] && run.strength[4] < run.strength[2]);
        assert_eq!(run.strength[0], run.strength[1]);
    }

    /// Glickman's worked example ("Example of the Glicko-2 system", 2013): a player at
    /// 1500 (RD 200, volatility 0.06) beats a 1400 (RD 30) and loses to a 1550 (RD 100)
    /// and a 1700 (RD 300); with τ = 0.5 the new rating is 1464.06, RD 151.52, volatility
    /// 0.05999. Here the four are individual entrants of one field, the player scoring
    /// between the first opponent and the other two.
    #[test]
    fn glicko2_reproduces_glickmans_example() {
        let start = Glicko2Rating::new();
        let mut g = Glicko2 {
            config: Glicko2Config::new(),
            start,
            rating: vec![
                Glicko2Rating {
                    rating: 1500.0,
                    deviation: 200.0,
                    volatility: 0.06,
                },
                Glicko2Rating {
                    rating: 1400.0,
                    deviation: 30.0,
                    volatility: 0.06,
                },
                Glicko2Rating {
                    rating: 1550.0,
                    deviation: 100.0,
                    volatility: 0.06,
                },
                Glicko2Rating {
                    rating: 1700.0,
                    deviation: 300.0,
                    volatility: 0.06,
                },
            ],
        };
        let f = Field {
            competition: 0,
            day: 0,
            entrants: [0.0, -10.0, 10.0, 20.0]
                .iter()
                .enumerate()
                .map(|(i, &r)| FieldEntrant {
                    entrant: i,
                    players: vec![Some(i as u32)],
                    achieved: r,
                })
                .collect(),
            groups: vec![vec![0, 1, 2, 3]],
        };
        g.update(&f, &[0, 1, 2, 3], &[]);
        let p = g.rating[0];
        assert!((p.rating - 1464.06).abs() < 0.01, "{p:?}");
        assert!((p.deviation - 151.52).abs() < 0.01, "{p:?}");
        assert!((p.volatility - 0.05999).abs() < 0.00001, "{p:?}");
    }

    /// TrueSkill's textbook case: two new players (μ 25, σ 25/3, β 25/6, draw
    /// probability 0.1, dynamics 25/300); the winner goes to μ 29.396, σ 7.171, the
    /// loser to 20.604 (the values of Microsoft's and the `trueskill` package's 1 vs 1).
    #[test]
    fn trueskill_reproduces_the_one_against_one_case() {
        let f = Field {
            competition: 0,
            day: 0,
            entrants: [5.0, -5.0]
                .iter()
                .enumerate()
                .map(|(i, &r)| FieldEntrant {
                    entrant: i,
                    players: vec![Some(i as u32)],
                    achieved: r,
                })
                .collect(),
            groups: vec![vec![0, 1]],
        };
        let run = run(Baseline::TrueSkill, 25.0 / 6.0, &[f], 2, &mut |_, _| {});
        // Equal players: 50 % each (the crate's normal distribution is an approximation).
        assert!(run.expected[0].iter().all(|x| x.abs() < 1e-5));
        assert!(
            (run.strength[0] + 29.396).abs() < 0.001,
            "{:?}",
            run.strength
        );
        assert!(
            (run.strength[1] + 20.604).abs() < 0.001,
            "{:?}",
            run.strength
        );
    }

    /// A pair of a new and a settled player: the same result moves the new one (RD 350)
    /// further than the settled one (RD 50), both in the direction of the result.
    #[test]
    fn glicko2_moves_a_new_partner_further() {
        let f = field(&[(0, 1, 10.0), (2, 3, -10.0)]);
        let start = Glicko2Rating::new();
        let mut g = Glicko2 {
            config: Glicko2Config::new(),
            start,
            rating: vec![start; 4],
        };
        g.rating[1].deviation = 50.0;
        g.update(&f, &[0, 1], &[]);
        let up0 = g.rating[0].rating - 1500.0;
        let up1 = g.rating[1].rating - 1500.0;
        assert!(up0 > up1 && up1 > 0.0, "{up0} {up1}");
        assert!(g.rating[2].rating < 1500.0);
    }

    /// The upper reference with a half-life of one session (w = ½) and pair (0,1)
    /// scoring +10, 0, −10 in three fields: the first field sees the later two,
    /// (½·0 + ¼·(−10))/(½ + ¼ + 1) = −1.428571; the second (½·10 + ½·(−10))/2 = 0; the
    /// third +1.428571. The final value takes every session up to the last one:
    /// (¼·10 + ½·0 − 10)/(¼ + ½ + 1 + 1) = −2.727273, strength +2.727273.
    #[test]
    fn the_upper_reference_smooths_both_ways_by_hand() {
        let fields: Vec<Field> = [10.0, 0.0, -10.0]
            .iter()
            .enumerate()
            .map(|(i, &a)| Field {
                competition: i,
                ..field(&[(0, 1, a), (2, 3, -a)])
            })
            .collect();
        let run = run(Baseline::UpperReference, 1.0, &fields, 4, &mut |_, _| {});
        let x = 2.5 / 1.75;
        assert!((run.expected[0][0] + x).abs() < 1e-12, "{:?}", run.expected);
        assert!(run.expected[1][0].abs() < 1e-12);
        assert!((run.expected[2][0] - x).abs() < 1e-12);
        assert!((run.strength[0] - 7.5 / 2.75).abs() < 1e-12);
        assert!(!Baseline::UpperReference.predicts() && Baseline::TrueSkill.predicts());
    }

    #[test]
    fn tuning_picks_from_the_grid() {
        let fields: Vec<Field> = (0..20)
            .map(|_| field(&[(0, 1, 8.0), (2, 3, -8.0), (4, 5, 0.0)]))
            .collect();
        let p = tune(Baseline::RunningAverage, &fields, 6);
        assert!(Baseline::RunningAverage.grid().contains(&p));
        // A stable field is predicted best by the largest weight on the latest result.
        assert_eq!(p, 0.3);
    }
}
