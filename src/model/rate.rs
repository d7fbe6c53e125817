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
