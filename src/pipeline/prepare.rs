//! From a dataset to the model's inputs, one competition at a time.
//!
//! This is where the contract's tables meet the model: board-level competitions are
//! scored first (and the reported results, when a club sent both, are checked against the
//! scoring), results are converted to the model's unit, entrants get their players'
//! statuses (member, foreign guest, non-member), and competitions are put in replay
//! order. Scoring is independent per competition, so it runs in parallel; errors are
//! reported for the first failing competition in replay order, so the message does not
//! depend on the thread count.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use chrono::NaiveDate;
use rayon::prelude::*;

use crate::dataset::Origin;
use crate::dataset::{
    BoardResult, Competition, Dataset, Direction, Entrant, EntrantResult, Format, MemberKind,
    ScoringMethod,
};
use crate::error::InputError;
use crate::model::{
    self, CalcMethod, CompetitionInput, EntrantInput, FactorSet, FieldKind, PlayerInput,
    PlayerStatus,
};
use crate::quarantine::Quarantined;
use crate::scoring::conventions::{ByeScore, ImpAggregate};
use crate::scoring::standings::shared_ranks;
use crate::scoring::{self, BoardScore, Standing};

use super::state::Registry;

/// Who sits in a player slot, as far as the replay is concerned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Seat {
    /// A member whose handicap is read and updated (dense index).
    Member(u32),
    /// A listed foreign guest: a temporary handicap, never updated.
    Foreign(Option<f64>),
    /// Not in the member list.
    NonMember,
}

/// A rated competition ready for the model; the handicaps are filled in at replay time.
#[derive(Debug, Clone)]
pub struct PreparedCompetition {
    pub competition_id: String,
    pub date: NaiveDate,
    pub session: i32,
    pub handicap_event: bool,
    /// The model's input with every member's handicap still to be filled in.
    pub input: CompetitionInput,
    /// Per entrant, per player slot: who sits there.
    pub seats: Vec<Vec<Seat>>,
    pub entrant_names: Vec<String>,
    /// The members whose handicaps this competition reads and writes, sorted, unique.
    pub rated_members: Vec<u32>,
    /// A pairs field with fixed directions: N/S and E/W are rated as separate fields.
    pub split_by_direction: bool,
    /// The competition's row, for errors the model raises about it.
    pub origin: Origin,
}

impl PreparedCompetition {
    /// The model's input with the given member handicaps.
    pub fn input_with(&self, handicap_of: impl Fn(u32) -> f64) -> CompetitionInput {
        let mut input = self.input.clone();
        for (entrant, seats) in input.entrants.iter_mut().zip(&self.seats) {
            for (player, seat) in entrant.players.iter_mut().zip(seats) {
                if let Seat::Member(index) = seat {
                    player.status = PlayerStatus::Rated(handicap_of(*index));
                }
            }
        }
        input
    }
}

/// Everything the replay and the reports need from the dataset.
#[derive(Debug, Default)]
pub struct Prepared {
    /// Rated competitions in replay order (date, session, id).
    pub competitions: Vec<PreparedCompetition>,
    /// Standings of every competition, in replay order.
    pub standings: Vec<Standing>,
    /// Board scores of every competition scored from table results, in replay order.
    pub board_scores: Vec<BoardScore>,
    /// Competitions that could not be scored or prepared, in replay order, with the
    /// reason; nothing of them is in the fields above.
    pub quarantined: Vec<Quarantined>,
}

struct Tables<'a> {
    entrants: HashMap<&'a str, Vec<&'a Entrant>>,
    results: HashMap<&'a str, Vec<&'a EntrantResult>>,
    boards: HashMap<&'a str, Vec<&'a BoardResult>>,
}

fn group<'a, T>(rows: &'a [T], key: impl Fn(&'a T) -> &'a str) -> HashMap<&'a str, Vec<&'a T>> {
    let mut map: HashMap<&str, Vec<&T>> = HashMap::default();
    for row in rows {
        map.entry(key(row)).or_default().push(row);
    }
    map
}

/// Scores every competition and, when `rate` is set, prepares the rated ones for the
/// model. `factors` supplies the class multipliers. A competition that breaks a rule is
/// left out whole and listed in [`Prepared::quarantined`].
pub fn prepare(
    dataset: &Dataset,
    registry: &Registry,
    factors: &FactorSet,
    rate: bool,
    on_competition_done: &(dyn Fn() + Sync),
) -> Prepared {
    let tables = Tables {
        entrants: group(&dataset.entrants, |e| e.competition_id.as_str()),
        results: group(&dataset.results, |r| r.competition_id.as_str()),
        boards: group(&dataset.boards, |b| b.competition_id.as_str()),
    };

    let mut order: Vec<&Competition> = dataset.competitions.iter().collect();
    order.sort_by(|a, b| a.order_key().cmp(&b.order_key()));

    let prepared: Vec<Result<OneCompetition, InputError>> = order
        .par_iter()
        .map(|competition| {
            let out = prepare_one(competition, &tables, registry, factors, rate);
            on_competition_done();
            out
        })
        .collect();

    let mut all = Prepared::default();
    for (competition, one) in order.iter().zip(prepared) {
        let one = match one {
            Ok(one) => one,
            Err(error) => {
                all.quarantined.push(Quarantined {
                    competition_id: competition.competition_id.clone(),
                    date: Some(competition.date),
                    session: Some(competition.session),
                    reasons: vec![error],
                });
                continue;
            }
        };
        all.standings.extend(one.standings);
        all.board_scores.extend(one.board_scores);
        if let Some(competition) = one.rated {
            all.competitions.push(competition);
        }
    }
    all
}

struct OneCompetition {
    standings: Vec<Standing>,
    board_scores: Vec<BoardScore>,
    rated: Option<PreparedCompetition>,
}

fn prepare_one(
    competition: &Competition,
    tables: &Tables<'_>,
    registry: &Registry,
    factors: &FactorSet,
    rate: bool,
) -> Result<OneCompetition, InputError> {
    let id = competition.competition_id.as_str();
    let here = || competition.origin.location().competition(id);
    let entrants: Vec<&Entrant> = tables.entrants.get(id).cloned().unwrap_or_default();
    let reported: Vec<&EntrantResult> = tables.results.get(id).cloned().unwrap_or_default();
    let board_rows: &[&BoardResult] = tables.boards.get(id).map(Vec::as_slice).unwrap_or(&[]);
    if entrants.is_empty() {
        return Err(InputError::new(here(), "competition has no entrants"));
    }

    let mut board_scores = Vec::new();
    let (results, standings): (Vec<EntrantResult>, Vec<Standing>) = if board_rows.is_empty() {
        if reported.is_empty() {
            return Err(InputError::new(
                here(),
                "competition has neither results nor board rows",
            ));
        }
        let results: Vec<EntrantResult> = reported.iter().map(|r| (*r).clone()).collect();
        let standings = standings_from_results(competition, &entrants, &results);
        (results, standings)
    } else {
        let scored = scoring::score_competition(competition, &entrants, board_rows)?;
        check_reported(competition, &reported, &scored.results)?;
        board_scores = scored.board_scores;
        let results = if summed_cross_imps(competition) {
            // The model's unit is IMPs per comparison. Dividing each board by its own
            // number of comparisons is exactly the averaged scale, so the model reads the
            // same boards scored averaged, while the standings keep the program's sums.
            let mut averaged = competition.clone();
            averaged.conventions.imp_aggregate = ImpAggregate::Average;
            scoring::score_competition(&averaged, &entrants, board_rows)?.results
        } else {
            scored.results
        };
        (results, scored.standings)
    };
    check_boards_played(competition, &results, board_rows)?;

    let rated = if rate && competition.rated {
        Some(build_input(
            competition,
            &entrants,
            &results,
            board_rows,
            registry,
            factors,
        )?)
    } else {
        None
    };
    Ok(OneCompetition {
        standings,
        board_scores,
        rated,
    })
}

/// How far a reported figure may be from the pipeline's own scoring: the clubs publish
/// percentages to two decimals and IMPs to at most two decimals.
const REPORTED_TOLERANCE: f64 = 0.005 + 1e-9;

fn check_reported(
    competition: &Competition,
    reported: &[&EntrantResult],
    scored: &[EntrantResult],
) -> Result<(), InputError> {
    let scored: HashMap<&str, &EntrantResult> =
        scored.iter().map(|r| (r.entrant.as_str(), r)).collect();
    for row in reported {
        let at = || {
            row.origin
                .location()
                .competition(&competition.competition_id)
        };
        let Some(ours) = scored.get(row.entrant.as_str()) else {
            return Err(InputError::new(
                at().column("entrant"),
                format!("entrant `{}` has a result but no board rows", row.entrant),
            ));
        };
        if (ours.score - row.score).abs() > REPORTED_TOLERANCE {
            return Err(InputError::new(
                at().column("score"),
                format!(
                    "reported score {} for entrant `{}` does not match the board rows, which score {:.2}",
                    row.score, row.entrant, ours.score
                ),
            ));
        }
        if ours.boards_played != row.boards_played {
            return Err(InputError::new(
                at().column("boards_played"),
                format!(
                    "reported boards_played {} for entrant `{}` does not match the board rows ({})",
                    row.boards_played, row.entrant, ours.boards_played
                ),
            ));
        }
    }
    Ok(())
}

/// An entrant cannot play more boards than the competition has; `score` and `run` hold
/// every competition to it, rated or not.
fn check_boards_played(
    competition: &Competition,
    results: &[EntrantResult],
    board_rows: &[&BoardResult],
) -> Result<(), InputError> {
    let n_boards = match competition.boards {
        Some(n) => n,
        None if board_rows.is_empty() => return Ok(()),
        None => board_rows
            .iter()
            .map(|b| b.board)
            .collect::<HashSet<_>>()
            .len() as u32,
    };
    match results.iter().find(|r| r.boards_played > n_boards) {
        Some(result) => Err(InputError::new(
            result
                .origin
                .location()
                .competition(&competition.competition_id)
                .column("boards_played"),
            format!(
                "boards_played {} of entrant `{}` is more than the competition's {n_boards} boards",
                result.boards_played, result.entrant
            ),
        )),
        None => Ok(()),
    }
}

fn field_kind(competition: &Competition) -> Result<FieldKind, InputError> {
    use ScoringMethod::*;
    Ok(match (competition.format, competition.scoring) {
        (Format::Individual, Matchpoints | CrossImps) => FieldKind::Individual,
        (Format::Pairs, Matchpoints | CrossImps) => FieldKind::Pairs,
        (Format::Pairs | Format::Individual, Butler) => {
            if competition.format == Format::Individual {
                FieldKind::Individual
            } else {
                FieldKind::PairsDatum
            }
        }
        (Format::Teams, TeamImps) => FieldKind::TeamMatch,
        (Format::Teams, Matchpoints | CrossImps | Butler) => FieldKind::TeamPairAcross,
        (format, TeamImps) => {
            return Err(InputError::new(
                competition
                    .origin
                    .location()
                    .column("scoring")
                    .competition(&competition.competition_id),
                format!("scoring `team_imps` needs format `teams`, not `{format}`"),
            ))
        }
    })
}

/// The number of boards of the competition: as stated, or the distinct boards played.
fn board_count(competition: &Competition, board_rows: &[&BoardResult]) -> Result<u32, InputError> {
    let n = match competition.boards {
        Some(n) => n,
        None => board_rows
            .iter()
            .map(|b| b.board)
            .collect::<HashSet<_>>()
            .len() as u32,
    };
    if n < 2 {
        return Err(InputError::new(
            competition
                .origin
                .location()
                .column("boards")
                .competition(&competition.competition_id),
            format!("a rated competition needs at least 2 boards, it has {n}"),
        ));
    }
    Ok(n)
}

#[allow(clippy::too_many_arguments)]
fn build_input(
    competition: &Competition,
    entrants: &[&Entrant],
    results: &[EntrantResult],
    board_rows: &[&BoardResult],
    registry: &Registry,
    factors: &FactorSet,
) -> Result<PreparedCompetition, InputError> {
    let id = competition.competition_id.as_str();
    let kind = field_kind(competition)?;
    let n_boards = board_count(competition, board_rows)?;
    let method = calc_method(competition.scoring);

    // Entrants in a deterministic order: by entrant name as the club numbered it.
    let mut entrants: Vec<&Entrant> = entrants.to_vec();
    entrants.sort_by(|a, b| a.entrant.cmp(&b.entrant));
    let position: HashMap<&str, usize> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| (e.entrant.as_str(), i))
        .collect();
    let result_of: HashMap<&str, &EntrantResult> =
        results.iter().map(|r| (r.entrant.as_str(), r)).collect();
    let comparisons =
        cross_imp_comparisons(competition, !board_rows.is_empty(), entrants.len(), kind);
    let opponents_at_table = table_opponents(board_rows);
    if kind == FieldKind::TeamPairAcross {
        one_opponent_per_pair(competition, board_rows)?;
    }

    let mut inputs = Vec::with_capacity(entrants.len());
    let mut seats = Vec::with_capacity(entrants.len());
    let mut rated_members = Vec::new();
    for entrant in &entrants {
        let at = || entrant.origin.location().competition(id);
        // A slot left empty in a pair or team is a player the club could not identify
        // (exports write no number for non-members): a non-member, under a negative
        // placeholder id unique within the competition.
        let needed = kind.players_per_entrant();
        if let Some(extra) = entrant.players[needed..].iter().position(Option::is_some) {
            return Err(InputError::new(
                at().column(format!("player{}", needed + extra + 1)),
                format!(
                    "entrant `{}` lists more than {} players, the number a {} entrant in this competition has",
                    entrant.entrant, needed, competition.format
                ),
            ));
        }
        // A pair of two unnumbered players (guests) still counts in the field, known by
        // the names its export printed.
        if entrant.players[..needed].iter().all(Option::is_none)
            && entrant.names[..needed].iter().all(Option::is_none)
        {
            return Err(InputError::new(
                at().column("player1"),
                format!("entrant `{}` has no players", entrant.entrant),
            ));
        }
        let players: Vec<i64> = entrant.players[..needed]
            .iter()
            .enumerate()
            .map(|(slot, id)| id.unwrap_or(-((inputs.len() * 4 + slot + 1) as i64)))
            .collect();
        let Some(result) = result_of.get(entrant.entrant.as_str()) else {
            return Err(InputError::new(
                at().column("entrant"),
                format!("entrant `{}` has no result", entrant.entrant),
            ));
        };
        let at_result = || result.origin.location().competition(id);
        if result.boards_played == 0 || result.boards_played > n_boards {
            return Err(InputError::new(
                at_result().column("boards_played"),
                format!(
                    "boards_played {} must be between 1 and the competition's {} boards",
                    result.boards_played, n_boards
                ),
            ));
        }
        let opponent = match kind {
            FieldKind::TeamMatch | FieldKind::TeamPairAcross => {
                let name = result
                    .opponent
                    .as_deref()
                    .or_else(|| opponents_at_table.get(entrant.entrant.as_str()).copied());
                let Some(name) = name else {
                    return Err(InputError::new(
                        at_result().column("opponent"),
                        format!("entrant `{}` needs an opponent", entrant.entrant),
                    ));
                };
                let Some(&index) = position.get(name) else {
                    return Err(InputError::new(
                        at_result().column("opponent"),
                        format!("opponent `{name}` is not an entrant of this competition"),
                    ));
                };
                Some(index)
            }
            _ => None,
        };
        // A team match's scores are net margins or IMPs won; the model wants the margin.
        let mut achieved = model_result(competition, result, comparisons);
        if kind == FieldKind::TeamMatch {
            let against = opponent
                .and_then(|i| entrants.get(i))
                .and_then(|e| result_of.get(e.entrant.as_str()));
            if let Some(against) = against {
                let Some(margin) = scoring::team::net_margin(result.score, against.score) else {
                    return Err(InputError::new(
                        at_result().column("score"),
                        format!(
                            "team match scores {} and {} are neither net margins (adding up to 0) nor IMPs won (both at least 0)",
                            result.score, against.score
                        ),
                    ));
                };
                achieved = margin / f64::from(result.boards_played);
            }
        }
        if !achieved.is_finite() {
            return Err(InputError::new(
                at_result().column("score"),
                "score must be a finite number",
            ));
        }
        if kind == FieldKind::TeamPairAcross && entrant.direction.is_none() {
            return Err(InputError::new(
                at().column("direction"),
                "a pair in a team event scored across the field needs a direction (NS or EW)",
            ));
        }

        let mut entrant_seats = Vec::with_capacity(players.len());
        let mut player_inputs = Vec::with_capacity(players.len());
        for &member_id in &players {
            let (seat, status) = match registry.get(member_id) {
                Some((_, member)) if member.kind == MemberKind::Foreign => (
                    Seat::Foreign(member.start_handicap),
                    PlayerStatus::Foreign {
                        reported_level: member.start_handicap,
                    },
                ),
                Some((index, _)) => {
                    rated_members.push(index);
                    (Seat::Member(index), PlayerStatus::Rated(f64::NAN))
                }
                None => (Seat::NonMember, PlayerStatus::NonMember),
            };
            entrant_seats.push(seat);
            player_inputs.push(PlayerInput { member_id, status });
        }
        seats.push(entrant_seats);
        inputs.push(EntrantInput {
            players: player_inputs,
            boards_played: result.boards_played,
            result: achieved,
            direction: entrant.direction.map(model_direction),
            opponent,
        });
    }
    rated_members.sort_unstable();
    rated_members.dedup();

    let weight_multiplier = factors.class_multiplier(competition.class.as_deref());
    // The scoring ranks a fixed-direction pairs field per direction (two winners); the
    // model then compares each pair with its own line.
    let split_by_direction = matches!(kind, FieldKind::Pairs | FieldKind::PairsDatum)
        && inputs.iter().all(|e| e.direction.is_some())
        && inputs
            .iter()
            .any(|e| e.direction == Some(model::Direction::NS))
        && inputs
            .iter()
            .any(|e| e.direction == Some(model::Direction::EW));
    Ok(PreparedCompetition {
        competition_id: competition.competition_id.clone(),
        date: competition.date,
        session: competition.session,
        handicap_event: competition.handicap_event,
        input: CompetitionInput {
            n_boards,
            method,
            kind,
            weight_multiplier,
            entrants: inputs,
        },
        seats,
        entrant_names: entrants.iter().map(|e| e.entrant.clone()).collect(),
        rated_members,
        split_by_direction,
        origin: competition.origin.clone(),
    })
}

/// The model's calculation method: matchpoints are topscore; cross-IMPs, butler and team
/// IMPs are IMP events.
pub fn calc_method(scoring: ScoringMethod) -> CalcMethod {
    if scoring.is_imps() {
        CalcMethod::Imp
    } else {
        CalcMethod::Topscore
    }
}

/// The dataset's direction as the model's.
pub fn model_direction(direction: Direction) -> model::Direction {
    match direction {
        Direction::NS => model::Direction::NS,
        Direction::EW => model::Direction::EW,
    }
}

/// The result in the model's unit: percentage points over 50 for matchpoints, IMPs per
/// board for the IMP scorings (per comparison, for cross-IMPs).
fn model_result(competition: &Competition, result: &EntrantResult, comparisons: f64) -> f64 {
    let per_board = result.score / f64::from(result.boards_played);
    match competition.scoring {
        ScoringMethod::Matchpoints => result.score - 50.0,
        ScoringMethod::CrossImps => per_board / comparisons,
        ScoringMethod::Butler | ScoringMethod::TeamImps => per_board,
    }
}

fn summed_cross_imps(competition: &Competition) -> bool {
    competition.scoring == ScoringMethod::CrossImps
        && competition.conventions.imp_aggregate == ImpAggregate::Sum
}

/// What reported summed cross-IMPs are divided by to reach IMPs per comparison. From board
/// rows the results are already scored averaged (see `prepare_one`), board by board, so
/// nothing is left to divide; from reported totals alone the comparisons per board are
/// not known, and a full field is assumed: one table fewer than the field.
fn cross_imp_comparisons(
    competition: &Competition,
    from_board_rows: bool,
    entrants: usize,
    kind: FieldKind,
) -> f64 {
    if from_board_rows || !summed_cross_imps(competition) {
        return 1.0;
    }
    let per_table = if kind == FieldKind::Individual { 4 } else { 2 };
    ((entrants / per_table) as f64 - 1.0).max(1.0)
}

/// In a team match scored across the field, a pair meets one pair of the other team at
/// its table for the whole match; board rows that seat it against two are a broken
/// export, and taking either opponent would rate the pair against the wrong one.
fn one_opponent_per_pair(
    competition: &Competition,
    board_rows: &[&BoardResult],
) -> Result<(), InputError> {
    let mut met: HashMap<&str, (&str, &BoardResult)> = HashMap::default();
    for row in board_rows {
        let (Some(ns), Some(ew)) = (row.ns.as_deref(), row.ew.as_deref()) else {
            continue;
        };
        for (pair, opponent, column) in [(ns, ew, "ew"), (ew, ns, "ns")] {
            let (first, first_row) = *met.entry(pair).or_insert((opponent, row));
            if first != opponent {
                return Err(InputError::new(
                    row.origin
                        .location()
                        .competition(&competition.competition_id)
                        .board(row.board)
                        .column(column),
                    format!(
                        "pair `{pair}` meets `{opponent}` here but met `{first}` on board {}: a pair meets one opponent in a team match",
                        first_row.board
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The pair each pair met at the table, from board rows (ns against ew).
fn table_opponents<'a>(board_rows: &[&'a BoardResult]) -> HashMap<&'a str, &'a str> {
    let mut met: HashMap<&str, &str> = HashMap::default();
    for row in board_rows {
        if let (Some(ns), Some(ew)) = (row.ns.as_deref(), row.ew.as_deref()) {
            met.entry(ns).or_insert(ew);
            met.entry(ew).or_insert(ns);
        }
    }
    met
}

/// Standings of a competition reported as results only: ranked by score with shared
/// ranks, per direction when every entrant sat in a fixed direction (a Mitchell with
/// two winners), else all together. Ordered by direction, rank, then entrant.
pub fn standings_from_results(
    competition: &Competition,
    entrants: &[&Entrant],
    results: &[EntrantResult],
) -> Vec<Standing> {
    let direction_of: HashMap<&str, Option<Direction>> = entrants
        .iter()
        .map(|e| (e.entrant.as_str(), e.direction))
        .collect();
    let fixed_directions = competition.format == Format::Pairs
        && !results.is_empty()
        && results.iter().all(|r| {
            direction_of
                .get(r.entrant.as_str())
                .copied()
                .flatten()
                .is_some()
        });
    let mut groups: BTreeMap<Option<Direction>, Vec<&EntrantResult>> = BTreeMap::new();
    for result in results {
        let direction = if fixed_directions {
            direction_of.get(result.entrant.as_str()).copied().flatten()
        } else {
            None
        };
        groups.entry(direction).or_default().push(result);
    }
    let mut standings = Vec::with_capacity(results.len());
    for (direction, mut group) in groups {
        group.sort_by(|a, b| scoring::entrant_order(&a.entrant, &b.entrant));
        // Matchpoint scores are percentages already; IMP totals over different numbers
        // of boards are compared per board when the byes are skipped (as in scoring).
        let per_board = competition.scoring != ScoringMethod::Matchpoints
            && competition.conventions.bye_score == ByeScore::Skip
            && group
                .windows(2)
                .any(|w| w[0].boards_played != w[1].boards_played);
        let totals: Vec<f64> = group
            .iter()
            .map(|r| {
                if per_board {
                    r.score / f64::from(r.boards_played.max(1))
                } else {
                    r.score
                }
            })
            .collect();
        let ranks = shared_ranks(&totals);
        let mut rows: Vec<Standing> = group
            .iter()
            .zip(ranks)
            .map(|(r, rank)| Standing {
                competition_id: competition.competition_id.clone(),
                entrant: r.entrant.clone(),
                score: r.score,
                percent: (competition.scoring == ScoringMethod::Matchpoints).then_some(r.score),
                boards_played: r.boards_played,
                rank,
                direction,
                vp: None,
            })
            .collect();
        rows.sort_by(|a, b| {
            a.rank
                .cmp(&b.rank)
                .then_with(|| scoring::entrant_order(&a.entrant, &b.entrant))
        });
        standings.extend(rows);
    }
    if competition.scoring == ScoringMethod::TeamImps {
        let boards = competition
            .boards
            .unwrap_or_else(|| results.iter().map(|r| r.boards_played).max().unwrap_or(0));
        scoring::team_match_vps(&mut standings, boards);
    }
    standings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scoring_methods_map_to_calculation_methods() {
        assert_eq!(
            calc_method(ScoringMethod::Matchpoints),
            CalcMethod::Topscore
        );
        for s in [
            ScoringMethod::CrossImps,
            ScoringMethod::Butler,
            ScoringMethod::TeamImps,
        ] {
            assert_eq!(calc_method(s), CalcMethod::Imp);
        }
        assert_eq!(FieldKind::TeamMatch.players_per_entrant(), 4);
        assert_eq!(FieldKind::Individual.players_per_entrant(), 1);
        assert_eq!(FieldKind::PairsDatum.players_per_entrant(), 2);
        assert_eq!(model_direction(Direction::EW), model::Direction::EW);
    }
}
