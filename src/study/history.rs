//! A whole-history rating refitted online: before each competition day every player's
//! level is re-estimated from all results up to that day, jointly, and the last estimate
//! predicts the day's fields.
//!
//! A rating that moves one result at a time judges each result against the levels held
//! on the day: a newcomer's first evenings, and their partners' and opponents' results on
//! those evenings, are judged against a level that was not yet known. A whole-history
//! rating (Coulom's WHR, TrueSkill Through Time) judges every past result again with what
//! is known now. Run on the history up to each day, and never beyond it, it is a
//! prediction like any other rating, one that keeps re-reading the past.
//!
//! The model is linear and Gaussian, in the unit of the results (percent over 50), so
//! the fit is a least-squares problem solved exactly block by block:
//! * a player has one level per day they played; an entrant's strength is the mean of
//!   its players' levels (a guest or a non-member has a level of its own for the
//!   session, drawn around 0, the field's middle, as a newcomer's is);
//! * in a group of `G` entrants each entrant's achieved result, less the group's mean,
//!   is its strength less the group's mean strength, plus a session's noise of
//!   [`Constants::session_sd`];
//! * a player's first level is drawn around 0 with [`Constants::start_sd`]; between two
//!   days `d` days apart the level moves with a variance `drift_per_year² · d/365.25`.
//!
//! The fit takes each player's levels in turn, all others held, and solves that
//! player's tridiagonal system (the chain of their days) exactly, as WHR does; sweeps
//! over every player converge to the joint estimate. Each day starts from the previous
//! day's estimate (a new day's level starts at the player's last), so a few sweeps a
//! day suffice. The cost of a day is `sweeps` passes over every result so far, so the
//! whole run is quadratic in the length of the history: a second for a club's two
//! years, a minute or more (in a debug build) for a federation of 1500 members over
//! three years. Refitting once a month instead would cut it by the number of competition
//! days in a month, at the price of predictions that ignore the month so far.

use super::baselines::{
    entrant_mean, fitted_line, judged_pairs, Baseline, BaselineRun, Field, FieldHook,
};

/// The constants of the fit, in percent over 50.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Constants {
    /// Spread of a new player's level around the field's middle.
    pub start_sd: f64,
    /// Standard deviation of a player's change in level over a year.
    pub drift_per_year: f64,
    /// Spread of an entrant's session result around its strength.
    pub session_sd: f64,
    /// Sweeps over every player after each day's results are added.
    pub sweeps: usize,
    /// A guest's or a non-member's level is a level of its own, fitted with the day's
    /// results (else it is held at 0).
    pub guests_free: bool,
}

impl Default for Constants {
    fn default() -> Self {
        Constants {
            start_sd: 4.0,
            drift_per_year: 8.0,
            session_sd: 8.0,
            sweeps: 3,
            guests_free: true,
        }
    }
}

/// The start spreads tried on the burn-in (the session's noise stays at its default:
/// only the ratios of the three spreads matter to the expected results' order).
pub const START_SD_GRID: [f64; 4] = [2.0, 4.0, 8.0, 12.0];

/// The start spread and drift with the lowest RMSE over the judged entrants of
/// `fields` (the burn-in) after the line of achieved on expected fitted on them, the
/// first on a tie, as Glicko-2 and TrueSkill are tuned. The raw RMSE would favour a
/// fast drift on a short burn-in, whose first months are all newcomers.
pub fn tune(fields: &[Field], members: usize) -> Constants {
    let mut best = (f64::INFINITY, Constants::default());
    for start_sd in START_SD_GRID {
        for &drift_per_year in Baseline::WholeHistory.grid() {
            let c = Constants {
                start_sd,
                drift_per_year,
                ..Constants::default()
            };
            let run = run(c, fields, members, &mut |_, _| {});
            let pairs = judged_pairs(fields, &run.expected);
            let Some((a, b)) = fitted_line(&pairs) else {
                continue;
            };
            let sum: f64 = pairs.iter().map(|(x, y)| (y - a - b * x).powi(2)).sum();
            let rmse = (sum / pairs.len() as f64).sqrt();
            if rmse < best.0 {
                best = (rmse, c);
            }
        }
    }
    best.1
}

/// One entrant's result in the fit.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Seats of the entrant: its strength is the mean of that many levels.
    seats: f64,
    group: usize,
    /// Achieved less the group's mean achieved.
    achieved: f64,
    /// The entrant's strength under the current levels.
    strength: f64,
}

/// A group's size and mean strength under the current levels.
#[derive(Debug, Clone, Copy)]
struct Group {
    size: f64,
    mean: f64,
}

/// A player's chain: one level per day played, with the entries of each day.
#[derive(Debug, Clone, Default)]
struct Chain {
    days: Vec<i32>,
    level: Vec<f64>,
    entries: Vec<Vec<usize>>,
}

impl Chain {
    fn last(&self) -> f64 {
        self.level.last().copied().unwrap_or(0.0)
    }
}

/// The whole history so far, and its current fit.
pub struct Fit {
    constants: Constants,
    /// Members hold the first chains; a guest's seat adds one after them.
    members: usize,
    entries: Vec<Entry>,
    groups: Vec<Group>,
    chains: Vec<Chain>,
}

impl Fit {
    pub fn new(constants: Constants, members: usize) -> Fit {
        Fit {
            constants,
            members,
            entries: Vec::new(),
            groups: Vec::new(),
            chains: vec![Chain::default(); members],
        }
    }

    /// The current estimate of a member's level (0 before they played).
    pub fn level(&self, member: usize) -> f64 {
        self.member(member).map_or(0.0, Chain::last)
    }

    fn member(&self, member: usize) -> Option<&Chain> {
        self.chains[..self.members.min(self.chains.len())].get(member)
    }

    /// Whether a member has played in the fields added so far.
    pub fn played(&self, member: usize) -> bool {
        self.member(member).is_some_and(|c| !c.days.is_empty())
    }

    /// Expected percentage over 50 of every entrant of `field` from the current levels
    /// (0 for an entrant in no group).
    pub fn expect(&self, field: &Field) -> Vec<f64> {
        let mut expected = vec![0.0; field.entrants.len()];
        for group in &field.groups {
            let s: Vec<f64> = group
                .iter()
                .map(|&e| entrant_mean(&field.entrants[e].players, |m| self.level(m), 0.0))
                .collect();
            let mean = s.iter().sum::<f64>() / s.len().max(1) as f64;
            for (&e, v) in group.iter().zip(&s) {
                expected[e] = v - mean;
            }
        }
        expected
    }

    /// Adds a field played on `day`; a member's first result of a day opens a new level
    /// there, starting at their last.
    pub fn add(&mut self, field: &Field, day: i32) {
        for members in field.groups.iter().filter(|g| g.len() > 1) {
            let size = members.len() as f64;
            let mean_achieved = members
                .iter()
                .map(|&e| field.entrants[e].achieved)
                .sum::<f64>()
                / size;
            let group = self.groups.len();
            let mut total = 0.0;
            for &e in members {
                let entrant = &field.entrants[e];
                let id = self.entries.len();
                for p in &entrant.players {
                    let m = match p {
                        Some(m) if (*m as usize) < self.members => *m as usize,
                        Some(_) => continue,
                        None if self.constants.guests_free => {
                            self.chains.push(Chain::default());
                            self.chains.len() - 1
                        }
                        None => continue,
                    };
                    let Some(chain) = self.chains.get_mut(m) else {
                        continue;
                    };
                    if chain.days.last() != Some(&day) {
                        let last = chain.last();
                        chain.days.push(day);
                        chain.level.push(last);
                        chain.entries.push(Vec::new());
                    }
                    if let Some(list) = chain.entries.last_mut() {
                        list.push(id);
                    }
                }
                let strength = entrant_mean(&entrant.players, |m| self.level(m), 0.0);
                total += strength;
                self.entries.push(Entry {
                    seats: entrant.players.len().max(1) as f64,
                    group,
                    achieved: entrant.achieved - mean_achieved,
                    strength,
                });
            }
            self.groups.push(Group {
                size,
                mean: total / size,
            });
        }
    }

    /// `sweeps` passes over every player, in member order.
    pub fn refit(&mut self) {
        for _ in 0..self.constants.sweeps {
            for m in 0..self.chains.len() {
                self.solve(m);
            }
        }
    }

    /// Solves one player's chain exactly, every other level held, and moves the
    /// strengths of the entrants they played in.
    fn solve(&mut self, m: usize) {
        let Some(chain) = self.chains.get(m) else {
            return;
        };
        let n = chain.days.len();
        if n == 0 {
            return;
        }
        let c = self.constants;
        let noise = 1.0 / c.session_sd.powi(2).max(f64::MIN_POSITIVE);
        // Precision of the step between day t−1 and t, for t ≥ 1.
        let step = |t: usize| {
            let days = f64::from(chain.days[t] - chain.days[t - 1]).max(1.0);
            1.0 / (c.drift_per_year.powi(2) * days / 365.25).max(1e-12)
        };
        let mut diag = vec![0.0; n];
        let mut rhs = vec![0.0; n];
        for t in 0..n {
            // Gradient and curvature of the day's results in the player's level.
            let (mut g, mut h) = (0.0, 0.0);
            for &id in &chain.entries[t] {
                let e = self.entries[id];
                let group = self.groups[e.group];
                g += (e.achieved - e.strength + group.mean) / e.seats;
                h += (group.size - 1.0) / (group.size * e.seats * e.seats);
            }
            diag[t] = noise * h;
            rhs[t] = noise * (g + h * chain.level[t]);
        }
        diag[0] += 1.0 / c.start_sd.powi(2).max(1e-12);
        let off: Vec<f64> = (1..n).map(step).collect();
        for (t, p) in off.iter().enumerate() {
            diag[t] += p;
            diag[t + 1] += p;
        }
        let solved = tridiagonal(&diag, &off, &rhs);
        let moves: Vec<(usize, f64)> = solved
            .iter()
            .zip(&chain.level)
            .enumerate()
            .map(|(t, (new, old))| (t, new - old))
            .filter(|(_, d)| *d != 0.0)
            .collect();
        for (t, d) in moves {
            let ids = self.chains[m].entries[t].clone();
            for id in ids {
                let e = &mut self.entries[id];
                e.strength += d / e.seats;
                let group = &mut self.groups[e.group];
                group.mean += d / (e.seats * group.size);
            }
        }
        self.chains[m].level = solved;
    }
}

/// Solves the symmetric tridiagonal system with diagonal `diag` and off-diagonal
/// `−off` (the chain's precisions), right-hand side `rhs` (Thomas algorithm; the matrix
/// is diagonally dominant, so no pivoting is needed).
fn tridiagonal(diag: &[f64], off: &[f64], rhs: &[f64]) -> Vec<f64> {
    let n = diag.len();
    let mut c = vec![0.0; n];
    let mut d = vec![0.0; n];
    for t in 0..n {
        let below = if t > 0 { off[t - 1] } else { 0.0 };
        let prev_c = if t > 0 { c[t - 1] } else { 0.0 };
        let prev_d = if t > 0 { d[t - 1] } else { 0.0 };
        let denom = diag[t] - below * prev_c;
        c[t] = if t + 1 < n { off[t] / denom } else { 0.0 };
        d[t] = (rhs[t] + below * prev_d) / denom;
    }
    let mut x = vec![0.0; n];
    for t in (0..n).rev() {
        x[t] = d[t] + if t + 1 < n { c[t] * x[t + 1] } else { 0.0 };
    }
    x
}

/// Runs the online fit over `fields` in order: each day's fields are predicted from the
/// fit of every earlier day, then added and the fit refreshed. `on_field` is called
/// before each field with the current levels turned so that lower is stronger.
pub fn run(
    constants: Constants,
    fields: &[Field],
    members: usize,
    on_field: &mut FieldHook,
) -> BaselineRun {
    let mut fit = Fit::new(constants, members);
    let mut expected = Vec::with_capacity(fields.len());
    for day in fields.chunk_by(|a, b| a.day == b.day) {
        for field in day {
            on_field(field, &|m| -fit.level(m));
            expected.push(fit.expect(field));
        }
        for field in day {
            fit.add(field, field.day);
        }
        fit.refit();
    }
    BaselineRun {
        expected,
        strength: (0..members).map(|m| -fit.level(m)).collect(),
        played: (0..members).map(|m| fit.played(m)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::baselines::FieldEntrant;

    /// A field of players who each play alone (one seat), on `day`.
    fn singles(day: i32, results: &[(u32, f64)]) -> Field {
        Field {
            competition: 0,
            day,
            entrants: results
                .iter()
                .enumerate()
                .map(|(i, &(m, r))| FieldEntrant {
                    entrant: i,
                    players: vec![Some(m)],
                    achieved: r,
                })
                .collect(),
            groups: vec![(0..results.len()).collect()],
        }
    }

    /// Start sd 4 and session sd 8, so a result counts 16/64 = ¼ of a start; no drift
    /// to speak of, and sweeps enough to converge.
    fn still() -> Constants {
        Constants {
            start_sd: 4.0,
            drift_per_year: 1e-6,
            session_sd: 8.0,
            sweeps: 200,
            guests_free: true,
        }
    }

    /// Two players, +5 and −5. By symmetry the levels are `x` and `−x`, the expected
    /// result `x`: minimise `2(5 − x)²/64 + 2x²/16`, so `x = 5/(1 + 4) = 1`.
    #[test]
    fn one_field_by_hand() {
        let f = singles(1, &[(0, 5.0), (1, -5.0)]);
        let run = run(
            still(),
            &[f.clone(), singles(2, &[(0, 0.0), (1, 0.0)])],
            2,
            &mut |_, _| {},
        );
        assert_eq!(run.expected[0], vec![0.0, 0.0]);
        assert!(
            (run.expected[1][0] - 1.0).abs() < 1e-9,
            "{:?}",
            run.expected
        );
        assert!((run.expected[1][1] + 1.0).abs() < 1e-9);
    }

    /// A beats B by 10 on day 1; B beats newcomer C by 10 on day 2. Before day 2, B is
    /// at −1 (as above) and C at 0, so B is expected −0.5. After day 2 the history is
    /// read again: B's win offsets B's loss, so B is at 0, and A's win was over an
    /// average player. The levels `a`, 0, `−a` minimise `2(5 − a/2)²/64 + 2a²/16`:
    /// `a = 5/4.5 = 10/9`, and A is expected `(a − (−a))/2 = 10/9` against C, where a
    /// rating that judged day 1 only against what was known then keeps A at 1.
    #[test]
    fn three_players_are_read_again() {
        let fields = [
            singles(1, &[(0, 5.0), (1, -5.0)]),
            singles(8, &[(1, 5.0), (2, -5.0)]),
            singles(15, &[(0, 0.0), (2, 0.0)]),
        ];
        let run = run(still(), &fields, 3, &mut |_, _| {});
        assert!(
            (run.expected[1][0] + 0.5).abs() < 1e-9,
            "{:?}",
            run.expected
        );
        assert!((run.expected[1][1] - 0.5).abs() < 1e-9);
        assert!(
            (run.expected[2][0] - 10.0 / 9.0).abs() < 1e-6,
            "{:?}",
            run.expected
        );
        assert!((run.expected[2][1] + 10.0 / 9.0).abs() < 1e-6);
        assert!(run.strength[1].abs() < 1e-6);
    }

    /// Two fields of one day are both predicted from the fit of the days before.
    #[test]
    fn a_days_fields_know_nothing_of_each_other() {
        let fields = [
            singles(1, &[(0, 5.0), (1, -5.0)]),
            singles(1, &[(0, 0.0), (1, 0.0)]),
        ];
        let run = run(still(), &fields, 2, &mut |_, _| {});
        assert_eq!(run.expected, vec![vec![0.0, 0.0], vec![0.0, 0.0]]);
    }

    /// One player alone in a field of two beside a guest: with the guest held at 0 the player's level is fitted from
    /// `(5 − x/2)² + (−5 + x/2)² = 2(5 − x/2)²` over 64, prior `x²/16`:
    /// `x = 10/9`; a free guest takes half the result: `x = 1`.
    #[test]
    fn a_guest_is_held_or_fitted() {
        let f = Field {
            competition: 0,
            day: 1,
            entrants: vec![
                FieldEntrant {
                    entrant: 0,
                    players: vec![Some(0)],
                    achieved: 5.0,
                },
                FieldEntrant {
                    entrant: 1,
                    players: vec![None],
                    achieved: -5.0,
                },
            ],
            groups: vec![vec![0, 1]],
        };
        let held = run(
            Constants {
                guests_free: false,
                ..still()
            },
            std::slice::from_ref(&f),
            1,
            &mut |_, _| {},
        );
        assert!(
            (held.strength[0] + 10.0 / 9.0).abs() < 1e-9,
            "{:?}",
            held.strength
        );
        let free = run(still(), &[f], 1, &mut |_, _| {});
        assert!((free.strength[0] + 1.0).abs() < 1e-9, "{:?}", free.strength);
    }

    /// The chain's system by hand: diagonal 2, 3, 2 and off-diagonal −1, right-hand side
    /// 1, 1, 1: (1, 1, 1) solves it (2 − 1, −1 + 3 − 1, −1 + 2).
    #[test]
    fn tridiagonal_by_hand() {
        let x = tridiagonal(&[2.0, 3.0, 2.0], &[1.0, 1.0], &[1.0, 1.0, 1.0]);
        for v in x {
            assert!((v - 1.0).abs() < 1e-12);
        }
        // 4x − y = 2, −x + 4y = 7: x = 1, y = 2.
        let x = tridiagonal(&[4.0, 4.0], &[1.0], &[2.0, 7.0]);
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
    }
}
