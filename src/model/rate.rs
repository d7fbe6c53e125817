//! The entry point: one rated competition in, every player's outcome out.
//!
//! The steps are the model's, in order: check the input, settle guests' temporary
//! handicaps (they count in the field), compute each entrant's expected result with its
//! format's formula, and turn the gap `r − r̂` into `Δh` for every player the competition
//! updates. Nothing here reads or keeps state, so the replay decides the order.

use super::error::ModelError;
use super::expected::team_match::TeamSide;
use super::expected::team_pair_across::AcrossPair;
use super::expected::{individual, pairs, pairs_datum, team_match, team_pair_across, Expectation};
use super::factors::FactorSet;
use super::guests::{settle, Settled, SettledUnit};
use super::update::{apply, board_weight, delta, UpdateInput};
use super::{CompetitionInput, EntrantInput, FieldKind, PlayerOutcome, PlayerStatus};

/// Rates one competition: every player's expected and achieved result and handicap change.
/// Entrants come out in input order, players in slot order. Foreign guests and both players
/// of a non-member pair get `updated = false` and `delta = 0`.
pub fn rate_competition(
    f: &FactorSet,
    input: &CompetitionInput,
) -> Result<Vec<PlayerOutcome>, ModelError> {
    check(f, input)?;
    let settled = settle(f, input)?;
    let expectations = field_expectations(f, input, &settled)?;
    let players = input.entrants.iter().map(|e| e.players.len()).sum();
    let mut out = Vec::with_capacity(players);
    for (e, ((entrant, units), exp)) in input
        .entrants
        .iter()
        .zip(settled.entrants())
        .zip(&expectations)
        .enumerate()
    {
        let mut slot = 0;
        for unit in units {
            let players = unit.players();
            for (i, &(h, updated)) in players.iter().enumerate() {
                let member_id = entrant.players.get(slot).map_or(0, |p| p.member_id);
                slot += 1;
                let partner_handicap = match players.len() {
                    2 => players.get(1 - i).map(|p| p.0),
                    _ => None,
                };
                let change = if updated {
                    delta(
                        f,
                        &UpdateInput {
                            method: input.method,
                            kind: input.kind,
                            n_b: input.n_boards,
                            n_g: entrant.boards_played,
                            weight_multiplier: input.weight_multiplier,
                            achieved: entrant.result,
                            expected: exp.expected,
                        },
                    )?
                } else {
                    0.0
                };
                out.push(PlayerOutcome {
                    entrant: e,
                    member_id,
                    handicap_before: h,
                    partner_handicap,
                    pair_handicap: unit.handicap,
                    field_handicap: exp.field,
                    expected: exp.expected,
                    achieved: entrant.result,
                    n_b: input.n_boards,
                    n_g: entrant.boards_played,
                    delta: change,
                    handicap_after: if updated { apply(f, h, change) } else { h },
                    updated,
                });
            }
        }
    }
    Ok(out)
}

/// [`rate_competition`] with the factor set's familiarity term
/// ([`Familiarity`](super::factors::Familiarity)): `sessions[e]` is how many sessions the
/// two members of pair entrant `e` have played together before this one (`None`: not a
/// pair of two members, or not known). The term is added to both members' handicaps
/// where the expectation is taken, so that it enters the pair handicap, every other
/// pair's field and the guests' estimates alike; the outcomes then give back the
/// handicaps the members hold, and the change is applied to them. Without the term, or
/// with no count, this is [`rate_competition`].
///
/// Two pairs of members at 20, the first new (+4 units), the second settled (−2 units):
/// the first is expected `(18 − 24)/2 = −3 %`, the second +3 %, and neither handicap
/// changes before the update:
/// ```
/// use bridgehcp::model::factors::{Familiarity, FactorSet};
/// use bridgehcp::model::rate::rate_competition_with;
/// use bridgehcp::model::{CalcMethod, CompetitionInput, EntrantInput, FieldKind, PlayerInput, PlayerStatus};
/// let mut f = FactorSet::default();
/// f.familiarity = Some(Familiarity { new_pair: 4.0, settled_pair: -2.0, half_sessions: 0.001 });
/// let pair = |a: i64, result: f64| EntrantInput {
///     players: vec![PlayerInput { member_id: a, status: PlayerStatus::Rated(20.0) },
///                   PlayerInput { member_id: a + 1, status: PlayerStatus::Rated(20.0) }],
///     boards_played: 24, result, direction: None, opponent: None,
/// };
/// let input = CompetitionInput { n_boards: 24, method: CalcMethod::Topscore, kind: FieldKind::Pairs,
///     weight_multiplier: 1.0, entrants: vec![pair(1, 0.0), pair(3, 0.0)] };
/// let out = rate_competition_with(&f, &input, &[Some(0), Some(1_000_000)]).unwrap();
/// assert!((out[0].expected - -2.99999).abs() < 1e-4);
/// assert!((out[2].expected - 2.99999).abs() < 1e-4);
/// assert_eq!((out[0].handicap_before, out[0].pair_handicap), (20.0, 20.0));
/// ```
pub fn rate_competition_with(
    f: &FactorSet,
    input: &CompetitionInput,
    sessions: &[Option<u32>],
) -> Result<Vec<PlayerOutcome>, ModelError> {
    let offsets = familiarity_offsets(f, input, sessions);
    if offsets.iter().all(|o| *o == 0.0) {
        return rate_competition(f, input);
    }
    let mut shifted = input.clone();
    for (entrant, o) in shifted.entrants.iter_mut().zip(&offsets) {
        for p in &mut entrant.players {
            if let PlayerStatus::Rated(h) = &mut p.status {
                *h += o;
            }
        }
    }
    let mut out = rate_competition(f, &shifted)?;
    for outcome in &mut out {
        let o = offsets.get(outcome.entrant).copied().unwrap_or(0.0);
        if o == 0.0 {
            continue;
        }
        outcome.handicap_before -= o;
        outcome.pair_handicap -= o;
        outcome.partner_handicap = outcome.partner_handicap.map(|h| h - o);
        outcome.handicap_after = if outcome.updated {
            apply(f, outcome.handicap_before, outcome.delta)
        } else {
            outcome.handicap_before
        };
    }
    Ok(out)
}

/// [`expected_results`] with the familiarity term (see [`rate_competition_with`]).
pub fn expected_results_with(
    f: &FactorSet,
    input: &CompetitionInput,
    sessions: &[Option<u32>],
) -> Result<Vec<f64>, ModelError> {
    let mut seen = vec![false; input.entrants.len()];
    let mut out = vec![0.0; input.entrants.len()];
    for o in rate_competition_with(f, input, sessions)? {
        if let (Some(s), Some(x)) = (seen.get_mut(o.entrant), out.get_mut(o.entrant)) {
            if !*s {
                *s = true;
                *x = o.expected;
            }
        }
    }
    Ok(out)
}

/// The familiarity term of each entrant, in handicap units: for a pair entrant of two
/// rated members with a count, the factor set's offset; 0 elsewhere.
fn familiarity_offsets(
    f: &FactorSet,
    input: &CompetitionInput,
    sessions: &[Option<u32>],
) -> Vec<f64> {
    let Some(fam) = f.familiarity else {
        return Vec::new();
    };
    input
        .entrants
        .iter()
        .enumerate()
        .map(|(e, entrant)| {
            let members = entrant.players.len() == 2
                && entrant
                    .players
                    .iter()
                    .all(|p| matches!(p.status, PlayerStatus::Rated(_)));
            match sessions.get(e).copied().flatten() {
                Some(n) if members && input.kind != FieldKind::TeamMatch => fam.offset(n),
                _ => 0.0,
            }
        })
        .collect()
}

/// The expected result `r̂` of every entrant, in input order, from the handicaps in the
/// input (for a handicap tournament: the published playing handicaps).
pub fn expected_results(f: &FactorSet, input: &CompetitionInput) -> Result<Vec<f64>, ModelError> {
    check(f, input)?;
    let settled = settle(f, input)?;
    Ok(field_expectations(f, input, &settled)?
        .iter()
        .map(|e| e.expected)
        .collect())
}

/// The handicap-adjusted result `r − r̂` of every entrant, in input order. Reports show it
/// beside the raw result; the handicap update always uses the raw result.
///
/// The proposal's popular example (9): a pair of 28 and 14 (pair handicap 21) in a competition
/// whose other pairs average 26 is "charged 40 % of the difference", i.e. −2 %. That is the
/// proposal's popular rate of 0.4 % per unit (`C_b = 2.5`); see the tests of this module.
pub fn handicap_adjusted(f: &FactorSet, input: &CompetitionInput) -> Result<Vec<f64>, ModelError> {
    let expected = expected_results(f, input)?;
    Ok(input
        .entrants
        .iter()
        .zip(expected)
        .map(|(e, x)| e.result - x)
        .collect())
}

/// The rules the input must keep before any handicap is computed.
fn check(f: &FactorSet, input: &CompetitionInput) -> Result<(), ModelError> {
    let n_b = input.n_boards;
    if board_weight(n_b, f.method(input.method).s).is_none() {
        return Err(ModelError::TooFewBoards { n_b });
    }
    let m = input.weight_multiplier;
    if !(m.is_finite() && m >= 0.0) {
        return Err(ModelError::BadMultiplier { value: m });
    }
    if input.entrants.len() < 2 {
        return Err(ModelError::TooFewEntrants {
            found: input.entrants.len(),
        });
    }
    let per_entrant = input.kind.players_per_entrant();
    for (entrant, en) in input.entrants.iter().enumerate() {
        check_entrant(entrant, en, per_entrant, n_b)?;
    }
    match input.kind {
        FieldKind::TeamMatch => {
            let opponents: Vec<Option<usize>> = input.entrants.iter().map(|e| e.opponent).collect();
            team_match::check_opponents(&opponents)
        }
        FieldKind::TeamPairAcross => {
            let shape: Vec<_> = input
                .entrants
                .iter()
                .map(|e| (e.direction, e.opponent))
                .collect();
            team_pair_across::check_opponents(&shape)
        }
        _ => Ok(()),
    }
}

/// The rules one entrant must keep: its number of players, its boards, a finite result,
/// finite handicaps and no member twice.
fn check_entrant(
    entrant: usize,
    en: &EntrantInput,
    per_entrant: usize,
    n_b: u32,
) -> Result<(), ModelError> {
    if en.players.len() != per_entrant {
        return Err(ModelError::PlayerCount {
            entrant,
            expected: per_entrant,
            found: en.players.len(),
        });
    }
    if en.boards_played == 0 || en.boards_played > n_b {
        return Err(ModelError::BoardsPlayed {
            entrant,
            n_g: en.boards_played,
            n_b,
        });
    }
    if !en.result.is_finite() {
        return Err(ModelError::NotFinite {
            entrant,
            what: "the result",
            value: en.result,
        });
    }
    // A substitute may play for two entrants (each result is its own); one member
    // twice in one entrant is not a pair or a team. An entrant has at most four
    // players here (counted above), so the earlier slots are searched, not a set.
    for (slot, p) in en.players.iter().enumerate() {
        let (what, value) = match p.status {
            PlayerStatus::Rated(h) => ("a handicap", h),
            PlayerStatus::Foreign {
                reported_level: Some(h),
            } => ("a reported level", h),
            _ => ("", 0.0),
        };
        if !value.is_finite() {
            return Err(ModelError::NotFinite {
                entrant,
                what,
                value,
            });
        }
        if en.players[..slot]
            .iter()
            .any(|q| q.member_id == p.member_id)
        {
            return Err(ModelError::DuplicatePlayer {
                member_id: p.member_id,
                entrant,
            });
        }
    }
    Ok(())
}

/// Each entrant's expectation by its format's formula.
fn field_expectations(
    f: &FactorSet,
    input: &CompetitionInput,
    settled: &Settled,
) -> Result<Vec<Expectation>, ModelError> {
    // C_b times the format's result scale: the handicap units one result unit stands for.
    let divisor = f.expected_divisor(input.method, input.kind);
    let unit = |units: &[SettledUnit], i: usize| units.get(i).map_or(0.0, |u| u.handicap);
    let first: Vec<f64> = settled.entrants().map(|u| unit(u, 0)).collect();
    match input.kind {
        FieldKind::Individual => individual::expected(&first, divisor),
        FieldKind::Pairs => pairs::expected(&first, divisor),
        FieldKind::PairsDatum => pairs_datum::expected(&first, divisor),
        FieldKind::TeamMatch => {
            let teams: Vec<TeamSide> = settled
                .entrants()
                .zip(&input.entrants)
                .map(|(u, e)| TeamSide {
                    pairs: [unit(u, 0), unit(u, 1)],
                    opponent: e.opponent.unwrap_or(usize::MAX),
                })
                .collect();
            team_match::expected(&teams, divisor)
        }
        FieldKind::TeamPairAcross => {
            let mut pairs_across = Vec::new();
            for (entrant, (h, e)) in first.iter().zip(&input.entrants).enumerate() {
                pairs_across.push(AcrossPair {
                    handicap: *h,
                    direction: e
                        .direction
                        .ok_or(ModelError::MissingDirection { entrant })?,
                    opponent: e.opponent.ok_or(ModelError::MissingOpponent { entrant })?,
                });
            }
            team_pair_across::expected(&pairs_across, divisor)
        }
    }
}

#[cfg(test)]
mod tests;
