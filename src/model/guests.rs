//! Temporary handicaps for players the model cannot update: foreign guests and
//! non-member pairs (the proposal's 5.3 and 5.4).
//!
//! Such players still sit in the field, so their strength must enter the field means, or
//! every member who met them would be judged against a wrong field. The proposal offers three
//! ways to settle a guest's handicap, tried in the factor set's order: (a) the reported
//! level, (b) the partner's handicap, (c) an estimate from the pair's own performance.
//!
//! (c) is the closed form of docs/model.md: the pair handicaps at which every estimated pair's
//! expected result, by the format's own formula, equals its achieved result. So a member
//! partnering a guest does not move for that competition (the proposal: "close to nil or
//! nil"), and the estimated pairs' handicaps enter the other entrants' field means. With
//! `P_N` units, the `P_n` estimated ones, `S` the sum of the settled units' handicaps and
//! `R` the estimated units' summed results:
//! * **across the field** (the "others" mean): `X = (P_n·S − (P_N−1)·C_b·R)/(P_N − P_n)`
//!   for the estimated units together, and `x_i = (S + X − (P_N−1)·C_b·r_i)/P_N` each;
//! * **against a datum** (the all-units mean): `X = (P_n·S − P_N·C_b·R)/(P_N − P_n)` and
//!   `x_i = (S + X)/P_N − C_b·r_i`.
//!
//! The proposal asks for "the corresponding estimation" in individual and team events; this
//! crate uses:
//! * **individual:** the across-the-field form with `2·C_b`, because an individual's
//!   expected result is `(h̄_others − h)/(2·C_b)`; the unit is a player;
//! * **pair in a team match across the field:** that format's expectation also depends on
//!   the table opponents and the directions, so its own linear equations are solved
//!   exactly (see `team_pairs_across_estimates`); when both pairs of a table are
//!   estimated only their difference is known, and the across-the-field form over all
//!   pairs of the field stands in;
//! * **team match on its own:** the only field is the opposing team, so the unknown pair
//!   handicap is solved from the match: `h^P_own1 + h^P_own2 = H_opp − C_b·r`, shared
//!   equally between the team's estimated pairs. It needs every player of the opposing
//!   team to be rated. As the proposal remarks for (c) in general, this makes that match's gap
//!   zero for both teams.
//!
//! A non-member pair always tries (c) first, as the proposal prescribes, then the factor set's
//! other methods ((a) never applies: a non-member has no reported level). When (c) finds
//! no rated entrant to estimate against and no later method applies, the competition
//! cannot be rated and [`ModelError::NoGuestHandicap`] says so.

use super::error::ModelError;
use super::expected::team_pair_across::{self, AcrossPair};
use super::factors::{FactorSet, GuestMethod};
use super::field::{mean, sum};
use super::{CompetitionInput, FieldKind, PlayerStatus};

/// Which field mean the estimated units are judged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldMean {
    /// The mean of the other units (pairs and individuals across the field).
    Others,
    /// The mean of all units, the unit's own included (against a datum).
    All,
}

/// Method (c): the handicap of each estimated unit, in the order of `results`, such that
/// its expected result `(field − x_i)/rate` equals its achieved `r_i` exactly once the
/// estimates are in the field. `settled_sum` is `S`, the sum of the other units'
/// handicaps; `n_total` is `P_N`; `rate` is `C_b` (`2·C_b` in individual events).
/// `None` when every unit is estimated.
///
/// Four pairs, topscore (C_b = 2), one guest pair that scored +5 % among pairs whose
/// handicaps sum to 60: `X = (1·60 − 3·2·5)/3 = 10`, `x = (60 + 10 − 3·2·5)/4 = 10`.
/// Check: the others' mean is 60/3 = 20, `(20 − 10)/2 = +5` = its result.
/// ```
/// use bridgehcp::model::guests::{performance_estimates, FieldMean};
/// let x = performance_estimates(60.0, 4, &[5.0], 2.0, FieldMean::Others).unwrap();
/// assert!((x[0] - 10.0).abs() < 1e-12);
/// ```
pub fn performance_estimates(
    settled_sum: f64,
    n_total: usize,
    results: &[f64],
    rate: f64,
    field: FieldMean,
) -> Option<Vec<f64>> {
    let n_est = results.len();
    if n_total <= n_est {
        return None;
    }
    let p_total = n_total as f64;
    let p_est = n_est as f64;
    let r_sum = sum(results.iter().copied());
    // The divisor of the field mean: the others (P_N − 1) or all units (P_N).
    let k = match field {
        FieldMean::Others => p_total - 1.0,
        FieldMean::All => p_total,
    };
    let x_sum = (p_est * settled_sum - k * rate * r_sum) / (p_total - p_est);
    Some(
        results
            .iter()
            .map(|r| match field {
                FieldMean::Others => (settled_sum + x_sum - k * rate * r) / p_total,
                FieldMean::All => (settled_sum + x_sum) / p_total - rate * r,
            })
            .collect(),
    )
}

/// Method (c) for pairs of a team event scored across the field: the estimated pairs'
/// handicaps at which each one's expected result by that format's formula equals its
/// achieved result. The formula is linear in the handicaps, so the system is built from
/// the formula itself (its value at 0 and its change per unit of each estimate) and
/// solved exactly. `None` when it has no single solution, as when both pairs of a table
/// are estimated (only their difference is known then); the caller falls back on the
/// across-the-field form.
fn team_pairs_across_estimates(
    input: &CompetitionInput,
    settling: &[Vec<Settling>],
    estimated: &[usize],
    divisor: f64,
) -> Option<Vec<f64>> {
    let base: Vec<AcrossPair> = input
        .entrants
        .iter()
        .zip(settling)
        .map(|(e, row)| {
            let handicap = match row.first() {
                Some(Settling::Done(hs)) => mean(hs.iter().copied()).unwrap_or(0.0),
                _ => 0.0,
            };
            Some(AcrossPair {
                handicap,
                direction: e.direction?,
                opponent: e.opponent?,
            })
        })
        .collect::<Option<_>>()?;
    let expected_at = |pairs: &[AcrossPair]| -> Option<Vec<f64>> {
        let all = team_pair_across::expected(pairs, divisor).ok()?;
        Some(
            estimated
                .iter()
                .filter_map(|&e| all.get(e).map(|x| x.expected))
                .collect(),
        )
    };
    let at_zero = expected_at(&base)?;
    let n = estimated.len();
    // matrix[i] = [∂r̂_i/∂x_1 … ∂r̂_i/∂x_n | r_i − r̂_i(0)]
    let mut matrix: Vec<Vec<f64>> = estimated
        .iter()
        .zip(&at_zero)
        .map(|(&e, r0)| {
            let mut row = vec![0.0; n + 1];
            row[n] = input.entrants.get(e).map_or(0.0, |en| en.result) - r0;
            row
        })
        .collect();
    for (j, &e) in estimated.iter().enumerate() {
        let mut moved = base.clone();
        moved.get_mut(e)?.handicap = 1.0;
        for (row, (r1, r0)) in matrix
            .iter_mut()
            .zip(expected_at(&moved)?.iter().zip(&at_zero))
        {
            row[j] = r1 - r0;
        }
    }
    solve(matrix)
}

/// Gaussian elimination with partial pivoting on an augmented `n × (n + 1)` matrix.
/// `None` when the matrix is singular (to rounding).
fn solve(mut m: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let n = m.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        let (done, rest) = m.split_at_mut(col + 1);
        let pivot_row = &done[col];
        for row in rest.iter_mut() {
            let factor = row[col] / pivot_row[col];
            for (value, p) in row.iter_mut().zip(pivot_row).skip(col) {
                *value -= factor * p;
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| m[row][k] * x[k]).sum();
        x[row] = (m[row][n] - tail) / m[row][row];
    }
    Some(x)
}

/// A pair (or the player, in individual events) with its handicaps settled. A unit
/// holds one or two players, kept in place rather than in a vector of their own: a
/// replay settles every unit of every competition it rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SettledUnit {
    /// Pair handicap (the player's, in individual events).
    pub handicap: f64,
    /// Per player, in slot order: the handicap (temporary for guests) and whether the
    /// competition updates it. Only the first `len` are the unit's.
    players: [(f64, bool); 2],
    len: u8,
}

impl SettledUnit {
    /// A unit of the first two of `players` (a unit never has more: see
    /// [`slot_groups`]).
    fn new(handicap: f64, players: impl IntoIterator<Item = (f64, bool)>) -> Self {
        let mut unit = SettledUnit {
            handicap,
            players: [(0.0, false); 2],
            len: 0,
        };
        for (slot, player) in unit.players.iter_mut().zip(players) {
            *slot = player;
            unit.len += 1;
        }
        unit
    }

    /// Per player, in slot order: the handicap and whether the competition updates it.
    pub fn players(&self) -> &[(f64, bool)] {
        &self.players[..usize::from(self.len)]
    }
}

/// Every unit of a competition, entrant after entrant, in one vector: each entrant has
/// the same number of units (one, or two in a team match).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settled {
    units: Vec<SettledUnit>,
    per_entrant: usize,
}

impl Settled {
    /// The units of each entrant, in input order.
    pub fn entrants(&self) -> std::slice::ChunksExact<'_, SettledUnit> {
        self.units.chunks_exact(self.per_entrant.max(1))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Known,
    Guest,
    NonMember,
}

#[derive(Debug, Clone, PartialEq)]
enum Settling {
    Done(Vec<f64>),
    Estimate,
}

fn slot_groups(kind: FieldKind) -> &'static [&'static [usize]] {
    match kind {
        FieldKind::Individual => &[&[0]],
        FieldKind::Pairs | FieldKind::PairsDatum | FieldKind::TeamPairAcross => &[&[0, 1]],
        FieldKind::TeamMatch => &[&[0, 1], &[2, 3]],
    }
}

/// Settles every unit's handicap. The input must already be checked (player counts,
/// finite numbers, opponents).
pub(crate) fn settle(f: &FactorSet, input: &CompetitionInput) -> Result<Settled, ModelError> {
    let groups = slot_groups(input.kind);
    if let Some(settled) = all_rated(input, groups) {
        return Ok(settled);
    }
    let units = classify(input, groups);
    let any_known = units.iter().flatten().any(|(_, c)| *c == Class::Known);
    let performance_possible = |entrant: usize| -> bool {
        match input.kind {
            FieldKind::TeamMatch => input
                .entrants
                .get(entrant)
                .and_then(|e| e.opponent)
                .and_then(|o| units.get(o))
                .is_some_and(|opp| opp.iter().all(|(_, c)| *c == Class::Known)),
            _ => any_known,
        }
    };

    // Methods (a) and (b), and which units (c) estimates.
    let mut settling: Vec<Vec<Settling>> = Vec::with_capacity(units.len());
    for (e, per_entrant) in units.iter().enumerate() {
        let mut row = Vec::with_capacity(per_entrant.len());
        for (u, (statuses, class)) in per_entrant.iter().enumerate() {
            let unit = UnitAt {
                input,
                groups,
                entrant: e,
                unit: u,
            };
            row.push(unit.settling(f, statuses, *class, performance_possible(e))?);
        }
        settling.push(row);
    }

    let estimates = estimate(f, input, &settling);
    Ok(assemble(groups, &units, &settling, &estimates))
}

/// Each entrant's units: their players' statuses, and the unit's class.
type Units = Vec<Vec<(Vec<PlayerStatus>, Class)>>;

fn classify(input: &CompetitionInput, groups: &[&[usize]]) -> Units {
    let mut units: Units = Vec::with_capacity(input.entrants.len());
    for entrant in &input.entrants {
        let mut per_entrant = Vec::with_capacity(groups.len());
        for group in groups {
            let statuses: Vec<PlayerStatus> = group
                .iter()
                .filter_map(|&slot| entrant.players.get(slot).map(|p| p.status))
                .collect();
            let class = if statuses
                .iter()
                .any(|s| matches!(s, PlayerStatus::NonMember))
            {
                Class::NonMember
            } else if statuses.iter().all(|s| matches!(s, PlayerStatus::Rated(_))) {
                Class::Known
            } else {
                Class::Guest
            };
            per_entrant.push((statuses, class));
        }
        units.push(per_entrant);
    }
    units
}

/// The rated handicaps of a unit's players, `None` for the others.
fn rated_of(statuses: &[PlayerStatus]) -> Vec<Option<f64>> {
    statuses
        .iter()
        .map(|s| match s {
            PlayerStatus::Rated(h) => Some(*h),
            _ => None,
        })
        .collect()
}

/// A unit of an entrant, where an error must name it.
struct UnitAt<'a> {
    input: &'a CompetitionInput,
    groups: &'a [&'a [usize]],
    entrant: usize,
    unit: usize,
}

impl UnitAt<'_> {
    /// How the unit's handicap is settled: known, by the first of the factor set's
    /// methods that applies, or left to the estimate of method (c).
    fn settling(
        &self,
        f: &FactorSet,
        statuses: &[PlayerStatus],
        class: Class,
        performance_possible: bool,
    ) -> Result<Settling, ModelError> {
        let rated = rated_of(statuses);
        if class == Class::Known {
            return Ok(Settling::Done(
                rated.iter().map(|h| h.unwrap_or(0.0)).collect(),
            ));
        }
        let order: Vec<GuestMethod> = match class {
            Class::NonMember => std::iter::once(GuestMethod::Performance)
                .chain(
                    f.guest_methods
                        .iter()
                        .copied()
                        .filter(|m| *m != GuestMethod::Performance),
                )
                .collect(),
            _ => f.guest_methods.clone(),
        };
        let chosen = order.iter().find_map(|method| match method {
            GuestMethod::ReportedLevel => statuses
                .iter()
                .map(|s| match s {
                    PlayerStatus::Rated(h) => Some(*h),
                    PlayerStatus::Foreign { reported_level } => *reported_level,
                    PlayerStatus::NonMember => None,
                })
                .collect::<Option<Vec<f64>>>()
                .map(Settling::Done),
            GuestMethod::Partner => match rated.as_slice() {
                [Some(h), None] | [None, Some(h)] => Some(Settling::Done(vec![*h, *h])),
                _ => None,
            },
            GuestMethod::Performance => performance_possible.then_some(Settling::Estimate),
        });
        chosen.ok_or_else(|| self.no_handicap(&rated, &order))
    }

    /// The error for a unit no method settles, naming its first unrated player.
    fn no_handicap(&self, rated: &[Option<f64>], tried: &[GuestMethod]) -> ModelError {
        let slot = self
            .groups
            .get(self.unit)
            .and_then(|g| g.iter().zip(rated).find(|(_, h)| h.is_none()))
            .map(|(slot, _)| *slot)
            .unwrap_or(0);
        let member_id = self
            .input
            .entrants
            .get(self.entrant)
            .and_then(|en| en.players.get(slot))
            .map_or(0, |p| p.member_id);
        let tried: Vec<&str> = tried
            .iter()
            .map(|m| match m {
                GuestMethod::ReportedLevel => "a",
                GuestMethod::Partner => "b",
                GuestMethod::Performance => "c",
            })
            .collect();
        ModelError::NoGuestHandicap {
            entrant: self.entrant,
            member_id,
            tried: tried.join(", "),
        }
    }
}

/// Unit handicaps and each player's (temporary) handicap, entrant after entrant.
fn assemble(
    groups: &[&[usize]],
    units: &Units,
    settling: &[Vec<Settling>],
    estimates: &[Vec<Option<f64>>],
) -> Settled {
    let mut out = Vec::with_capacity(units.len() * groups.len());
    for (e, (row, per_entrant)) in settling.iter().zip(units).enumerate() {
        for (u, (s, (statuses, class))) in row.iter().zip(per_entrant).enumerate() {
            let updated = |st: &PlayerStatus| {
                *class != Class::NonMember && matches!(st, PlayerStatus::Rated(_))
            };
            let unit = match s {
                Settling::Done(hs) => SettledUnit::new(
                    mean(hs.iter().copied()).unwrap_or(0.0),
                    hs.iter().zip(statuses).map(|(h, st)| (*h, updated(st))),
                ),
                Settling::Estimate => {
                    let est = estimates
                        .get(e)
                        .and_then(|r| r.get(u))
                        .copied()
                        .flatten()
                        .unwrap_or(0.0);
                    let rated: Vec<f64> = rated_of(statuses).into_iter().flatten().collect();
                    // An unrated player's temporary handicap keeps the pair's mean at the
                    // estimate: 2·est − the rated partner's, or the estimate itself.
                    let temporary = match (statuses.len(), rated.as_slice()) {
                        (2, [partner]) => 2.0 * est - partner,
                        _ => est,
                    };
                    SettledUnit::new(
                        est,
                        statuses.iter().map(|st| match st {
                            PlayerStatus::Rated(h) => (*h, updated(st)),
                            _ => (temporary, false),
                        }),
                    )
                }
            };
            out.push(unit);
        }
    }
    Settled {
        units: out,
        per_entrant: groups.len(),
    }
}

/// The common case, a field of rated members only: each unit's handicap is the mean of
/// its players' handicaps and every player is updated, as [`settle`] would settle them,
/// without building what guests need: one vector for the whole field. `None` as soon
/// as a slot holds anyone else.
fn all_rated(input: &CompetitionInput, groups: &[&[usize]]) -> Option<Settled> {
    let mut out = Vec::with_capacity(input.entrants.len() * groups.len());
    for entrant in &input.entrants {
        for group in groups {
            let mut handicaps = [0.0; 2];
            let mut n = 0;
            for player in group.iter().filter_map(|&slot| entrant.players.get(slot)) {
                let PlayerStatus::Rated(h) = player.status else {
                    return None;
                };
                if let Some(slot) = handicaps.get_mut(n) {
                    *slot = h;
                    n += 1;
                }
            }
            let players = handicaps[..n].iter().map(|&h| (h, true));
            let unit = SettledUnit::new(0.0, players);
            let handicap = match n {
                0 => 0.0,
                // The same value as `mean`, without its copy.
                _ => super::field::sum_mut(&mut handicaps[..n]) / n as f64,
            };
            out.push(SettledUnit { handicap, ..unit });
        }
    }
    Some(Settled {
        units: out,
        per_entrant: groups.len(),
    })
}

/// Method (c) for every unit marked for it: `estimates[entrant][unit]`.
fn estimate(
    f: &FactorSet,
    input: &CompetitionInput,
    settling: &[Vec<Settling>],
) -> Vec<Vec<Option<f64>>> {
    let divisor = f.expected_divisor(input.method, input.kind);
    let done_mean = |s: &Settling| match s {
        Settling::Done(hs) => mean(hs.iter().copied()),
        Settling::Estimate => None,
    };
    let mut out: Vec<Vec<Option<f64>>> = settling
        .iter()
        .map(|row| row.iter().map(|_| None).collect())
        .collect();
    match input.kind {
        FieldKind::TeamMatch => {
            for (e, row) in settling.iter().enumerate() {
                let n_est = row.iter().filter(|s| **s == Settling::Estimate).count();
                if n_est == 0 {
                    continue;
                }
                let entrant = input.entrants.get(e);
                let opponent_sum = entrant
                    .and_then(|en| en.opponent)
                    .and_then(|o| settling.get(o))
                    .map(|opp| sum(opp.iter().filter_map(done_mean)))
                    .unwrap_or(0.0);
                let result = entrant.map_or(0.0, |en| en.result);
                let own_known = sum(row.iter().filter_map(done_mean));
                let each = (opponent_sum - divisor * result - own_known) / n_est as f64;
                if let Some(out_row) = out.get_mut(e) {
                    for (slot, s) in out_row.iter_mut().zip(row) {
                        if *s == Settling::Estimate {
                            *slot = Some(each);
                        }
                    }
                }
            }
        }
        kind => {
            let rate = f.expected_divisor(input.method, kind);
            let n_total = settling.len();
            let estimated: Vec<usize> = settling
                .iter()
                .enumerate()
                .filter(|(_, row)| row.contains(&Settling::Estimate))
                .map(|(e, _)| e)
                .collect();
            if estimated.is_empty() {
                return out;
            }
            let settled_sum = sum(settling.iter().flatten().filter_map(done_mean));
            let result_of = |e: usize| input.entrants.get(e).map_or(0.0, |en| en.result);
            let results: Vec<f64> = estimated.iter().map(|&e| result_of(e)).collect();
            let field = if kind == FieldKind::PairsDatum {
                FieldMean::All
            } else {
                FieldMean::Others
            };
            let exact_across = if kind == FieldKind::TeamPairAcross {
                team_pairs_across_estimates(input, settling, &estimated, divisor)
            } else {
                None
            };
            let estimates = match exact_across {
                Some(exact) => exact,
                None => performance_estimates(settled_sum, n_total, &results, rate, field)
                    .unwrap_or_default(),
            };
            for (&e, est) in estimated.iter().zip(estimates) {
                if let Some(slot) = out.get_mut(e).and_then(|r| r.first_mut()) {
                    *slot = Some(est);
                }
            }
        }
    }
    out
}
