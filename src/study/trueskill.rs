//! TrueSkill's update of a ranked field (Herbrich, Minka and Graepel 2006), by message
//! passing on the factor graph of the field's players, their performances, the teams'
//! performances and the differences between neighbours in the ranking.
//!
//! The `skillratings` crate rates the same field, and the study's TrueSkill baseline
//! was first run through it; but its graph holds every variable behind a shared,
//! reference-counted cell with a hash map of the messages sent to it, and building and
//! walking that graph was most of a study's time at a federation's size (the baseline
//! is tuned on eight values of its parameter before it is run). Here the graph is a
//! handful of flat arrays, one slot per message, and the schedule is the crate's,
//! operation for operation and in the same order, so that the ratings are the same to
//! the bit: a property test holds the two side by side on random fields.
//!
//! A variable and the messages its factors sent it are Gaussians in natural
//! parameters (precision `pi`, precision-adjusted mean `tau`), so that multiplying and
//! dividing them is adding and subtracting.

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI, PI, SQRT_2};

use skillratings::trueskill::{TrueSkillConfig, TrueSkillRating};
use skillratings::MultiTeamOutcome;

/// The schedule stops once no truncation moved its variable by more than this.
const MIN_DELTA: f64 = 0.0001;
/// Passes of the schedule over the differences at most.
const MAX_PASSES: usize = 10;
/// A normal probability below which the truncation's moments are taken by their limit.
const TINY_PROBABILITY: f64 = 2.222_758_749e-162;

/// A Gaussian in natural parameters.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Gaussian {
    pi: f64,
    tau: f64,
}

impl Gaussian {
    fn from_mean_sd(mean: f64, sd: f64) -> Gaussian {
        let pi = sd.powi(-2);
        Gaussian { pi, tau: pi * mean }
    }

    fn mean(self) -> f64 {
        if self.pi == 0.0 {
            0.0
        } else {
            self.tau / self.pi
        }
    }

    fn sd(self) -> f64 {
        if self.pi == 0.0 {
            f64::INFINITY
        } else {
            self.pi.recip().sqrt()
        }
    }

    /// The product of two densities.
    fn times(self, other: Gaussian) -> Gaussian {
        Gaussian {
            pi: self.pi + other.pi,
            tau: self.tau + other.tau,
        }
    }

    /// The quotient of two densities: a variable without one factor's message.
    fn without(self, other: Gaussian) -> Gaussian {
        Gaussian {
            pi: self.pi - other.pi,
            tau: self.tau - other.tau,
        }
    }
}

/// Sets `variable` to `value` and says how far it moved.
fn set(variable: &mut Gaussian, value: Gaussian) -> f64 {
    let pi_moved = (variable.pi - value.pi).abs();
    let moved = if pi_moved.is_infinite() {
        0.0
    } else {
        (variable.tau - value.tau).abs().max(pi_moved.sqrt())
    };
    *variable = value;
    moved
}

/// A factor sends `variable` a new message (replacing its last one, held in `slot`).
fn send_message(variable: &mut Gaussian, slot: &mut Gaussian, message: Gaussian) -> f64 {
    let old = std::mem::replace(slot, message);
    let value = variable.without(old).times(message);
    set(variable, value)
}

/// A factor sets `variable` to `value`; its message is what that takes.
fn send_value(variable: &mut Gaussian, slot: &mut Gaussian, value: Gaussian) -> f64 {
    *slot = value.times(*slot).without(*variable);
    set(variable, value)
}

/// The message of a sum factor to one of its variables, from the others (each as it
/// is without this factor's message, with its coefficient).
fn sum_message(others: impl IntoIterator<Item = (Gaussian, f64)>) -> Gaussian {
    let mut pi_inv = 0.0_f64;
    let mut mean = 0.0;
    for (other, coefficient) in others {
        mean += coefficient * other.mean();
        if pi_inv.is_infinite() {
            continue;
        }
        if other.pi == 0.0 {
            pi_inv = f64::INFINITY;
        } else {
            pi_inv += coefficient.powi(2) / other.pi;
        }
    }
    let pi = pi_inv.recip();
    Gaussian { pi, tau: pi * mean }
}

/// The message of a performance's noise (variance `variance`) to the other side.
fn noise_message(from: Gaussian, variance: f64) -> Gaussian {
    let a = variance.mul_add(from.pi, 1.0).recip();
    Gaussian {
        pi: a * from.pi,
        tau: a * from.tau,
    }
}

/// The graph of one field, teams sorted by rank; player `j` of the flattened teams.
struct Graph {
    /// Team `t`'s players are `bounds[t]..bounds[t + 1]`.
    bounds: Vec<usize>,
    skill: Vec<Gaussian>,
    skill_from_prior: Vec<Gaussian>,
    skill_from_noise: Vec<Gaussian>,
    performance: Vec<Gaussian>,
    performance_from_noise: Vec<Gaussian>,
    performance_from_team: Vec<Gaussian>,
    team: Vec<Gaussian>,
    team_from_sum: Vec<Gaussian>,
    /// From the difference with the team ranked above (team `t` is its second term).
    team_from_above: Vec<Gaussian>,
    /// From the difference with the team ranked below (team `t` is its first term).
    team_from_below: Vec<Gaussian>,
    difference: Vec<Gaussian>,
    difference_from_sum: Vec<Gaussian>,
    difference_from_truncation: Vec<Gaussian>,
}

impl Graph {
    fn new(bounds: Vec<usize>) -> Graph {
        let (players, teams) = (bounds[bounds.len() - 1], bounds.len() - 1);
        let zeros = |n: usize| vec![Gaussian::default(); n];
        Graph {
            skill: zeros(players),
            skill_from_prior: zeros(players),
            skill_from_noise: zeros(players),
            performance: zeros(players),
            performance_from_noise: zeros(players),
            performance_from_team: zeros(players),
            team: zeros(teams),
            team_from_sum: zeros(teams),
            team_from_above: zeros(teams),
            team_from_below: zeros(teams),
            difference: zeros(teams - 1),
            difference_from_sum: zeros(teams - 1),
            difference_from_truncation: zeros(teams - 1),
            bounds,
        }
    }

    /// The team's performance from its players' (weights of 1).
    fn team_down(&mut self, t: usize) {
        let players = self.bounds[t]..self.bounds[t + 1];
        let message = sum_message(players.map(|j| {
            (
                self.performance[j].without(self.performance_from_team[j]),
                1.0,
            )
        }));
        send_message(&mut self.team[t], &mut self.team_from_sum[t], message);
    }

    /// Player `x`'s performance from its team's and its team-mates'.
    fn team_up(&mut self, t: usize, x: usize) {
        let players = self.bounds[t]..self.bounds[t + 1];
        let message = sum_message(players.map(|j| {
            if j == x {
                (self.team[t].without(self.team_from_sum[t]), 1.0)
            } else {
                (
                    self.performance[j].without(self.performance_from_team[j]),
                    -1.0,
                )
            }
        }));
        send_message(
            &mut self.performance[x],
            &mut self.performance_from_team[x],
            message,
        );
    }

    /// The difference of teams `k` and `k + 1`.
    fn difference_down(&mut self, k: usize) {
        let message = sum_message([
            (self.team[k].without(self.team_from_below[k]), 1.0),
            (self.team[k + 1].without(self.team_from_above[k + 1]), -1.0),
        ]);
        send_message(
            &mut self.difference[k],
            &mut self.difference_from_sum[k],
            message,
        );
    }

    /// Team `k`'s performance from the difference and team `k + 1`'s.
    fn difference_up_to_first(&mut self, k: usize) {
        let message = sum_message([
            (self.difference[k].without(self.difference_from_sum[k]), 1.0),
            (self.team[k + 1].without(self.team_from_above[k + 1]), 1.0),
        ]);
        send_message(&mut self.team[k], &mut self.team_from_below[k], message);
    }

    /// Team `k + 1`'s performance from team `k`'s and the difference.
    fn difference_up_to_second(&mut self, k: usize) {
        let message = sum_message([
            (self.team[k].without(self.team_from_below[k]), 1.0),
            (
                self.difference[k].without(self.difference_from_sum[k]),
                -1.0,
            ),
        ]);
        send_message(
            &mut self.team[k + 1],
            &mut self.team_from_above[k + 1],
            message,
        );
    }

    /// The ranking's evidence on difference `k`: truncated above the draw margin for a
    /// win, within it for a draw. Says how far the difference moved.
    fn truncate(&mut self, k: usize, draw: bool, margin: f64) -> f64 {
        let from = self.difference[k].without(self.difference_from_truncation[k]);
        let c = from.pi.sqrt();
        let (difference, margin) = (from.tau, margin * from.pi);
        let (v, w) = if draw {
            (v_draw(difference, margin, c), w_draw(difference, margin, c))
        } else {
            (win_v(difference, margin, c), win_w(difference, margin, c))
        };
        let denominator = 1.0 - w;
        let pi = from.pi / denominator;
        let tau = c.mul_add(v, from.tau) / denominator;
        send_value(
            &mut self.difference[k],
            &mut self.difference_from_truncation[k],
            Gaussian { pi, tau },
        )
    }
}

impl Graph {
    /// From the players' ratings (widened by the dynamics) down to the teams'
    /// performances.
    fn down(&mut self, ratings: &[&TrueSkillRating], dynamics: f64, variance: f64) {
        for (j, rating) in ratings.iter().enumerate() {
            let prior = Gaussian::from_mean_sd(rating.rating, rating.uncertainty);
            let widened = Gaussian::from_mean_sd(prior.mean(), prior.sd().hypot(dynamics));
            send_value(&mut self.skill[j], &mut self.skill_from_prior[j], widened);
        }
        for j in 0..ratings.len() {
            let message = noise_message(self.skill[j].without(self.skill_from_noise[j]), variance);
            send_message(
                &mut self.performance[j],
                &mut self.performance_from_noise[j],
                message,
            );
        }
        for t in 0..self.team.len() {
            self.team_down(t);
        }
    }

    /// The ranking's evidence passed along the chain of differences, down and back up,
    /// until no difference moves by more than [`MIN_DELTA`] (at most [`MAX_PASSES`]).
    fn rank(&mut self, draws: &[bool], margins: &[f64]) {
        let differences = self.difference.len();
        for _ in 0..MAX_PASSES {
            let mut moved = 0.0_f64;
            if differences == 1 {
                self.difference_down(0);
                moved = self.truncate(0, draws[0], margins[0]);
            } else {
                for k in 0..differences - 1 {
                    self.difference_down(k);
                    moved = moved.max(self.truncate(k, draws[k], margins[k]));
                    self.difference_up_to_second(k);
                }
                for k in (1..differences).rev() {
                    self.difference_down(k);
                    moved = moved.max(self.truncate(k, draws[k], margins[k]));
                    self.difference_up_to_first(k);
                }
            }
            if moved <= MIN_DELTA {
                break;
            }
        }
    }

    /// From the differences back up to the players' skills.
    fn up(&mut self, variance: f64) {
        let differences = self.difference.len();
        self.difference_up_to_first(0);
        self.difference_up_to_second(differences - 1);
        for t in 0..self.team.len() {
            for x in self.bounds[t]..self.bounds[t + 1] {
                self.team_up(t, x);
            }
        }
        for j in 0..self.skill.len() {
            let message = noise_message(
                self.performance[j].without(self.performance_from_noise[j]),
                variance,
            );
            send_message(&mut self.skill[j], &mut self.skill_from_noise[j], message);
        }
    }
}

/// The teams' new ratings, in the order given; each team is its players' ratings and
/// its rank (1 the best, equal ranks a draw). A field of fewer than two teams, or with
/// a team of no players, is returned as it came.
pub fn rate(
    teams: &[(&[TrueSkillRating], MultiTeamOutcome)],
    config: &TrueSkillConfig,
) -> Vec<Vec<TrueSkillRating>> {
    if teams.len() < 2 || teams.iter().any(|(team, _)| team.is_empty()) {
        return teams.iter().map(|(team, _)| team.to_vec()).collect();
    }
    let mut order: Vec<usize> = (0..teams.len()).collect();
    order.sort_by_key(|&t| teams[t].1);
    let mut bounds = vec![0];
    for &t in &order {
        bounds.push(bounds[bounds.len() - 1] + teams[t].0.len());
    }
    let ratings: Vec<&TrueSkillRating> = order.iter().flat_map(|&t| teams[t].0).collect();
    let mut g = Graph::new(bounds);
    let variance = config.beta.powi(2);
    g.down(&ratings, config.dynamics_factor, variance);
    let draws: Vec<bool> = order
        .windows(2)
        .map(|w| teams[w[0]].1 == teams[w[1]].1)
        .collect();
    let margins: Vec<f64> = order
        .windows(2)
        .map(|w| {
            let players = [w[0], w[1]].iter().map(|&t| teams[t].0.len() as f64).sum();
            draw_margin(config.draw_probability, config.beta, players)
        })
        .collect();
    g.rank(&draws, &margins);
    g.up(variance);

    let mut rated: Vec<Vec<TrueSkillRating>> = vec![Vec::new(); teams.len()];
    for (i, &t) in order.iter().enumerate() {
        rated[t] = g.skill[g.bounds[i]..g.bounds[i + 1]]
            .iter()
            .map(|s| TrueSkillRating {
                rating: s.mean(),
                uncertainty: s.sd(),
            })
            .collect();
    }
    rated
}

/// The performance difference within which a field of `players` draws, for a draw
/// probability between two teams.
fn draw_margin(draw_probability: f64, beta: f64, players: f64) -> f64 {
    standard_normal_quantile(f64::midpoint(draw_probability, 1.0)) * players.sqrt() * beta
}

/// The complementary error function by the Chebyshev fit of Numerical Recipes (`erfcc`,
/// fractional error below 1.2e-7), the approximation TrueSkill's implementations use.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = (1.0 + z / 2.0).recip();
    const C: [f64; 9] = [
        0.170_872_77,
        -0.822_152_23,
        1.488_515_87,
        -1.135_203_98,
        0.278_868_07,
        -0.186_288_06,
        0.096_784_18,
        0.374_091_96,
        1.000_023_68,
    ];
    let mut p = C[0];
    for c in &C[1..] {
        p = t.mul_add(p, *c);
    }
    let r = t * t.mul_add(p, (-z).mul_add(z, -1.265_512_23)).exp();
    if x < 0.0 {
        2.0 - r
    } else {
        r
    }
}

/// The inverse of [`erfc`]: a rational first guess refined by two Newton steps.
fn inverse_erfc(y: f64) -> f64 {
    if y >= 2.0 {
        return -100.0;
    }
    if y <= 0.0 {
        return 100.0;
    }
    let lower = y < 1.0;
    let y = if lower { y } else { 2.0 - y };
    let t = (-2.0 * (y / 2.0).ln()).sqrt();
    let mut x = -FRAC_1_SQRT_2
        * (t.mul_add(0.27061, 2.30753) / t.mul_add(t.mul_add(0.04481, 0.99229), 1.0) - t);
    for _ in 0..2 {
        let error = erfc(x) - y;
        x += error / FRAC_2_SQRT_PI.mul_add((-(x.powi(2))).exp(), -x * error);
    }
    if lower {
        x
    } else {
        -x
    }
}

fn standard_normal_quantile(p: f64) -> f64 {
    SQRT_2.mul_add(-inverse_erfc(2.0 * p), 0.0)
}

fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / SQRT_2)
}

fn normal_pdf(x: f64) -> f64 {
    (2.0 * PI).sqrt().recip() * (-(x.powi(2) / 2.0)).exp()
}

/// The mean shift of a difference truncated to a win (above the margin).
fn win_v(difference: f64, margin: f64, c: f64) -> f64 {
    let (d, m) = (difference / c, margin / c);
    let norm = normal_cdf(d - m);
    if norm < TINY_PROBABILITY {
        -d + m
    } else {
        normal_pdf(d - m) / norm
    }
}

/// The variance factor of a difference truncated to a win.
fn win_w(difference: f64, margin: f64, c: f64) -> f64 {
    let (d, m) = (difference / c, margin / c);
    let norm = normal_cdf(d - m);
    if norm < TINY_PROBABILITY {
        return if d < 0.0 { 1.0 } else { 0.0 };
    }
    let v = win_v(difference, margin, c);
    v * (v + d - m)
}

/// The mean shift of a difference truncated to a draw (within the margin).
fn v_draw(difference: f64, margin: f64, c: f64) -> f64 {
    let (d, m) = (difference / c, margin / c);
    let a = d.abs();
    let norm = normal_cdf(m - a) - normal_cdf(-m - a);
    if norm < TINY_PROBABILITY {
        return if d < 0.0 { -d - m } else { -d + m };
    }
    let x = normal_pdf(-m - a) - normal_pdf(m - a);
    if d < 0.0 {
        -x / norm
    } else {
        x / norm
    }
}

/// The variance factor of a difference truncated to a draw.
fn w_draw(difference: f64, margin: f64, c: f64) -> f64 {
    let (d, m) = (difference / c, margin / c);
    let a = d.abs();
    let norm = normal_cdf(m - a) - normal_cdf(-m - a);
    if norm < TINY_PROBABILITY {
        return 1.0;
    }
    let v = v_draw(difference, margin, c);
    let (p1, p2) = (normal_pdf(m - a), normal_pdf(-m - a));
    v.mul_add(v, (m - a).mul_add(p1, -(-m - a) * p2) / norm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::trueskill::trueskill_multi_team;

    fn bits(teams: &[Vec<TrueSkillRating>]) -> Vec<Vec<(u64, u64)>> {
        teams
            .iter()
            .map(|t| {
                t.iter()
                    .map(|r| (r.rating.to_bits(), r.uncertainty.to_bits()))
                    .collect()
            })
            .collect()
    }

    fn crate_rate(
        teams: &[(&[TrueSkillRating], MultiTeamOutcome)],
        config: &TrueSkillConfig,
    ) -> Vec<Vec<TrueSkillRating>> {
        trueskill_multi_team(teams, config, None).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Two new players, one game: the figures of the TrueSkill documentation's first
    /// example (`rate_1vs1`: 29.396 and 20.604, both σ 7.171), and a draw leaves the
    /// means where they were.
    #[test]
    fn one_against_one_as_published() {
        let new = [TrueSkillRating::new()];
        let config = TrueSkillConfig::new();
        let won = [
            (&new[..], MultiTeamOutcome::new(1)),
            (&new[..], MultiTeamOutcome::new(2)),
        ];
        let rated = rate(&won, &config);
        assert!((rated[0][0].rating - 29.396).abs() < 5e-4);
        assert!((rated[1][0].rating - 20.604).abs() < 5e-4);
        assert!((rated[0][0].uncertainty - 7.171).abs() < 5e-4);
        assert!((rated[1][0].uncertainty - 7.171).abs() < 5e-4);
        assert_eq!(bits(&rated), bits(&crate_rate(&won, &config)));
        let drawn = [
            (&new[..], MultiTeamOutcome::new(1)),
            (&new[..], MultiTeamOutcome::new(1)),
        ];
        let rated = rate(&drawn, &config);
        assert!((rated[0][0].rating - 25.0).abs() < 1e-9);
        assert!(rated[0][0].uncertainty < 25.0 / 3.0);
    }

    #[test]
    fn fewer_than_two_teams_are_left_as_they_came() {
        let one = [TrueSkillRating::new()];
        let rated = rate(
            &[(&one[..], MultiTeamOutcome::new(1))],
            &TrueSkillConfig::new(),
        );
        assert_eq!(rated, vec![one.to_vec()]);
    }

    proptest::proptest! {
        /// Any field of teams of one to three players, any ranks with ties, any
        /// ratings and parameter: the ratings of the crate's factor graph, to the bit.
        #[test]
        fn the_crates_ratings_to_the_bit(
            teams in proptest::collection::vec(
                (
                    proptest::collection::vec((0.0f64..50.0, 0.5f64..9.0), 1..4),
                    1usize..6,
                ),
                2..12,
            ),
            beta in 1.0f64..130.0,
            draw_probability in 0.0f64..0.5,
        ) {
            let config = TrueSkillConfig {
                beta,
                draw_probability,
                ..TrueSkillConfig::new()
            };
            let ratings: Vec<Vec<TrueSkillRating>> = teams
                .iter()
                .map(|(players, _)| {
                    players
                        .iter()
                        .map(|&(rating, uncertainty)| TrueSkillRating { rating, uncertainty })
                        .collect()
                })
                .collect();
            let ranked: Vec<(&[TrueSkillRating], MultiTeamOutcome)> = ratings
                .iter()
                .zip(&teams)
                .map(|(r, (_, rank))| (r.as_slice(), MultiTeamOutcome::new(*rank)))
                .collect();
            proptest::prop_assert_eq!(
                bits(&rate(&ranked, &config)),
                bits(&crate_rate(&ranked, &config))
            );
        }
    }
}
