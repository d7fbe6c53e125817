//! Temporary handicaps for players the model cannot update: foreign guests and
//! non-member pairs (seed 5.3 and 5.4).
//!
//! Such players still sit in the field, so their strength must enter the field means, or
//! every member who met them would be judged against a wrong field. The seed offers three
//! ways to settle a guest's handicap, tried in the factor set's order: (a) the reported
//! level, (b) the partner's handicap, (c) an estimate from the pair's own performance.
//!
//! (c) in the seed is written for pairs: `h^P_est = h̃^P − C_b·(r + P_n·r̄/(P_N − P_n))`,
//! the handicap at which each estimated pair's expected result equals its achieved result
//! once the field mean includes the estimated pairs. It is exact for the all-pairs mean
//! (against a datum) and a close approximation for the others-mean of a pairs field. The
//! seed asks for "the corresponding estimation" in individual and team events; this crate
//! uses:
//! * **individual:** the same formula with `2·C_b`, because an individual's expected result
//!   is `(h̄ − h)/(2·C_b)`; the unit is a player, `h̃` the mean of the rated players;
//! * **pair in a team match across the field:** the pairs formula over all pairs of the
//!   field (both directions), since the result compares the pair with the whole field;
//! * **team match on its own:** the only field is the opposing team, so the unknown pair
//!   handicap is solved from the match: `h^P_own1 + h^P_own2 = H_opp − C_b·r`, shared
//!   equally between the team's estimated pairs. It needs every player of the opposing
//!   team to be rated. As the seed remarks for (c) in general, this makes that match's gap
//!   zero for both teams.
//!
//! A non-member pair always tries (c) first, as the seed prescribes, then the factor set's
//! other methods ((a) never applies: a non-member has no reported level). When (c) finds
//! no rated entrant to estimate against and no later method applies, the competition
//! cannot be rated and [`ModelError::NoGuestHandicap`] says so.

use super::error::ModelError;
use super::factors::{FactorSet, GuestMethod};
use super::field::{mean, sum};
use super::{CompetitionInput, FieldKind, PlayerStatus};

/// Method (c): `h_est = h̃ − rate·(r + n·r̄/(N − n))`, with `rate = C_b` for pairs and
/// `2·C_b` in individual events. `None` when every unit is estimated (`N ≤ n`).
///
/// The value makes the estimated units' expected results equal their achieved ones for the
/// all-entrants mean. Seed 5.3 with one guest pair among four (C_b = 2): rated pairs
/// average 20, the guest pair scored +5 %: `20 − 2·(5 + 1·5/3) = 6.667`.
/// ```
/// use bridgehcp::model::guests::performance_estimate;
/// let h = performance_estimate(20.0, 2.0, 5.0, 1, 5.0, 4).unwrap();
/// assert!((h - (20.0 - 2.0 * (5.0 + 5.0 / 3.0))).abs() < 1e-12);
/// ```
pub fn performance_estimate(
    known_mean: f64,
    rate: f64,
    result: f64,
    n_estimated: usize,
    mean_estimated_result: f64,
    n_total: usize,
) -> Option<f64> {
    if n_total <= n_estimated {
        return None;
    }
    let known = (n_total - n_estimated) as f64;
    Some(known_mean - rate * (result + n_estimated as f64 * mean_estimated_result / known))
}

/// A pair (or the player, in individual events) with its handicaps settled.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SettledUnit {
    /// Pair handicap (the player's, in individual events).
    pub handicap: f64,
    /// Per player, in slot order: the handicap (temporary for guests) and whether the
    /// competition updates it.
    pub players: Vec<(f64, bool)>,
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
pub(crate) fn settle(
    f: &FactorSet,
    input: &CompetitionInput,
) -> Result<Vec<Vec<SettledUnit>>, ModelError> {
    let groups = slot_groups(input.kind);
    // Each unit's players' statuses, and its class.
    let mut units: Vec<Vec<(Vec<PlayerStatus>, Class)>> = Vec::new();
    for entrant in &input.entrants {
        let mut per_entrant = Vec::new();
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
    let mut settling: Vec<Vec<Settling>> = Vec::new();
    for (e, per_entrant) in units.iter().enumerate() {
        let mut row = Vec::new();
        for (u, (statuses, class)) in per_entrant.iter().enumerate() {
            let rated: Vec<Option<f64>> = statuses
                .iter()
                .map(|s| match s {
                    PlayerStatus::Rated(h) => Some(*h),
                    _ => None,
                })
                .collect();
            if *class == Class::Known {
                row.push(Settling::Done(
                    rated.iter().map(|h| h.unwrap_or(0.0)).collect(),
                ));
                continue;
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
            let mut chosen = None;
            for method in &order {
                chosen = match method {
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
                    GuestMethod::Performance => {
                        performance_possible(e).then_some(Settling::Estimate)
                    }
                };
                if chosen.is_some() {
                    break;
                }
            }
            match chosen {
                Some(s) => row.push(s),
                None => {
                    let slot = groups
                        .get(u)
                        .and_then(|g| g.iter().zip(&rated).find(|(_, h)| h.is_none()))
                        .map(|(slot, _)| *slot)
                        .unwrap_or(0);
                    let member_id = input
                        .entrants
                        .get(e)
                        .and_then(|en| en.players.get(slot))
                        .map_or(0, |p| p.member_id);
                    let tried: Vec<&str> = order
                        .iter()
                        .map(|m| match m {
                            GuestMethod::ReportedLevel => "a",
                            GuestMethod::Partner => "b",
                            GuestMethod::Performance => "c",
                        })
                        .collect();
                    return Err(ModelError::NoGuestHandicap {
                        entrant: e,
                        member_id,
                        tried: tried.join(", "),
                    });
                }
            }
        }
        settling.push(row);
    }

    let estimates = estimate(f, input, &settling);

    // Assemble: unit handicaps and each player's (temporary) handicap.
    let mut out = Vec::new();
    for (e, (row, per_entrant)) in settling.iter().zip(&units).enumerate() {
        let mut settled_row = Vec::new();
        for (u, (s, (statuses, class))) in row.iter().zip(per_entrant).enumerate() {
            let updated = |st: &PlayerStatus| {
                *class != Class::NonMember && matches!(st, PlayerStatus::Rated(_))
            };
            let unit = match s {
                Settling::Done(hs) => SettledUnit {
                    handicap: mean(hs.iter().copied()).unwrap_or(0.0),
                    players: hs
                        .iter()
                        .zip(statuses)
                        .map(|(h, st)| (*h, updated(st)))
                        .collect(),
                },
                Settling::Estimate => {
                    let est = estimates
                        .get(e)
                        .and_then(|r| r.get(u))
                        .copied()
                        .flatten()
                        .unwrap_or(0.0);
                    let rated: Vec<f64> = statuses
                        .iter()
                        .filter_map(|st| match st {
                            PlayerStatus::Rated(h) => Some(*h),
                            _ => None,
                        })
                        .collect();
                    // An unrated player's temporary handicap keeps the pair's mean at the
                    // estimate: 2·est − the rated partner's, or the estimate itself.
                    let temporary = match (statuses.len(), rated.as_slice()) {
                        (2, [partner]) => 2.0 * est - partner,
                        _ => est,
                    };
                    SettledUnit {
                        handicap: est,
                        players: statuses
                            .iter()
                            .map(|st| match st {
                                PlayerStatus::Rated(h) => (*h, updated(st)),
                                _ => (temporary, false),
                            })
                            .collect(),
                    }
                }
            };
            settled_row.push(unit);
        }
        out.push(settled_row);
    }
    Ok(out)
}

/// Method (c) for every unit marked for it: `estimates[entrant][unit]`.
fn estimate(
    f: &FactorSet,
    input: &CompetitionInput,
    settling: &[Vec<Settling>],
) -> Vec<Vec<Option<f64>>> {
    let c_b = f.method(input.method).c_b;
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
                let each = (opponent_sum - c_b * result - own_known) / n_est as f64;
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
            let known_mean = mean(settling.iter().flatten().filter_map(done_mean)).unwrap_or(0.0);
            let result_of = |e: usize| input.entrants.get(e).map_or(0.0, |en| en.result);
            let mean_result = mean(estimated.iter().map(|&e| result_of(e))).unwrap_or(0.0);
            for &e in &estimated {
                let est = performance_estimate(
                    known_mean,
                    rate,
                    result_of(e),
                    estimated.len(),
                    mean_result,
                    n_total,
                );
                if let Some(slot) = out.get_mut(e).and_then(|r| r.first_mut()) {
                    *slot = est;
                }
            }
        }
    }
    out
}
