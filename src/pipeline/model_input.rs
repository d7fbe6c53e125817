//! One scored competition as the model's input.
//!
//! The model knows fields, entrants and players, not tables or member numbers: here each
//! entrant gets its players (an unnumbered slot is a non-member under a placeholder id),
//! its result in the model's unit, its opponent in a team event, and each player a seat
//! (member, foreign guest, non-member). Every check that only the model's view needs (a
//! rated competition has at least two boards, a team pair has a direction, ...) is
//! made here, naming the row that breaks it.

use rustc_hash::FxHashMap as HashMap;

use crate::dataset::{
    BoardRef, BoardRow, Competition, Entrant, EntrantResult, Format, MemberKind, ScoringMethod,
};
use crate::error::{InputError, Location};
use crate::model::{
    self, CompetitionInput, EntrantInput, FactorSet, FieldKind, PlayerInput, PlayerStatus,
};

use super::competition::distinct_boards;
use super::prepared::{NonMemberSeat, PreparedCompetition, Seat};
use super::state::Registry;
use super::units::{calc_method, cross_imp_comparisons, model_result};

/// What converting each entrant of one competition reads.
struct Context<'a> {
    competition: &'a Competition,
    kind: FieldKind,
    n_boards: u32,
    /// Entrants in a deterministic order: by entrant name as the club numbered it.
    entrants: Vec<&'a Entrant>,
    position: HashMap<&'a str, usize>,
    result_of: HashMap<&'a str, &'a EntrantResult>,
    /// The pair each pair met at the table, from board rows.
    opponents_at_table: HashMap<&'a str, &'a str>,
    /// What reported summed cross-IMPs are divided by.
    comparisons: f64,
}

/// The model's input for a rated competition, with every member's handicap still to be
/// filled in at replay time.
pub(super) fn build_input(
    competition: &Competition,
    entrants: &[&Entrant],
    results: &[EntrantResult],
    board_rows: &[BoardRef<'_>],
    registry: &Registry,
    factors: &FactorSet,
) -> Result<PreparedCompetition, InputError> {
    let cx = Context::new(competition, entrants, results, board_rows)?;
    let mut inputs = Vec::with_capacity(cx.entrants.len());
    let mut seats = Vec::with_capacity(cx.entrants.len());
    let mut rated_members = Vec::with_capacity(cx.entrants.len() * cx.kind.players_per_entrant());
    let mut non_members = Vec::new();
    for (index, entrant) in cx.entrants.iter().enumerate() {
        let players = cx.players(index, entrant)?;
        let result = cx.result(entrant)?;
        let opponent = cx.opponent(entrant, result)?;
        let against = opponent
            .and_then(|i| cx.entrants.get(i))
            .and_then(|e| cx.result_of.get(e.entrant.as_str()).copied());
        let achieved = model_result(competition, cx.kind, result, against, cx.comparisons)?;
        if cx.kind == FieldKind::TeamPairAcross && entrant.direction.is_none() {
            return Err(InputError::new(
                cx.at(entrant).column("direction"),
                "a pair in a team event scored across the field needs a direction (NS or EW)",
            ));
        }
        let (entrant_seats, player_inputs) = seat_players(&players, registry, &mut rated_members);
        non_members.extend(non_member_seats(index, entrant, &players, &entrant_seats));
        seats.push(entrant_seats);
        inputs.push(EntrantInput {
            players: player_inputs,
            boards_played: result.boards_played,
            result: achieved,
            direction: entrant.direction,
            opponent,
        });
    }
    rated_members.sort_unstable();
    rated_members.dedup();

    Ok(PreparedCompetition {
        competition_id: competition.competition_id.clone(),
        date: competition.date,
        session: competition.session,
        handicap_event: competition.handicap_event,
        split_by_direction: split_by_direction(cx.kind, &inputs),
        input: CompetitionInput {
            n_boards: cx.n_boards,
            method: calc_method(competition.scoring),
            kind: cx.kind,
            weight_multiplier: factors.class_multiplier(competition.class.as_deref()),
            entrants: inputs,
        },
        seats,
        entrant_names: cx.entrants.iter().map(|e| e.entrant.as_str()).collect(),
        rated_members,
        non_members,
        origin: competition.origin.clone(),
        packed: None,
    })
}

/// The entrant's players who are not members, with what the export printed for each.
fn non_member_seats<'e>(
    index: usize,
    entrant: &'e Entrant,
    players: &'e [i64],
    seats: &'e [Seat],
) -> impl Iterator<Item = NonMemberSeat> + 'e {
    players
        .iter()
        .zip(seats)
        .enumerate()
        .filter(|(_, (_, seat))| matches!(seat, Seat::NonMember))
        .map(move |(slot, (&member_id, _))| NonMemberSeat {
            entrant: u32::try_from(index).unwrap_or(u32::MAX),
            member_id,
            printed_number: entrant.players.get(slot).copied().flatten(),
            printed_name: entrant
                .names
                .get(slot)
                .cloned()
                .flatten()
                .filter(|n| !n.trim().is_empty()),
        })
}

impl<'a> Context<'a> {
    fn new(
        competition: &'a Competition,
        entrants: &[&'a Entrant],
        results: &'a [EntrantResult],
        board_rows: &'a [BoardRef<'_>],
    ) -> Result<Self, InputError> {
        let kind = field_kind(competition)?;
        let n_boards = board_count(competition, board_rows)?;
        // The pairs of a team match scored across the field are checked to meet one
        // opponent each; the opponents met are those the check found.
        let met = if kind == FieldKind::TeamPairAcross {
            Some(one_opponent_per_pair(competition, board_rows)?)
        } else {
            None
        };
        let mut entrants: Vec<&Entrant> = entrants.to_vec();
        entrants.sort_by(|a, b| a.entrant.cmp(&b.entrant));
        let result_of: HashMap<&str, &EntrantResult> =
            results.iter().map(|r| (r.entrant.as_str(), r)).collect();
        let comparisons =
            cross_imp_comparisons(competition, !board_rows.is_empty(), entrants.len(), kind);
        // Only team events look for an opponent, and the table is asked only for
        // entrants whose result names none (a scored team match names every one): other
        // fields skip building the maps.
        let teams = matches!(kind, FieldKind::TeamMatch | FieldKind::TeamPairAcross);
        let position = if teams {
            entrants
                .iter()
                .enumerate()
                .map(|(i, e)| (e.entrant.as_str(), i))
                .collect()
        } else {
            HashMap::default()
        };
        let unnamed = || {
            entrants.iter().any(|e| {
                result_of
                    .get(e.entrant.as_str())
                    .is_some_and(|r| r.opponent.is_none())
            })
        };
        let opponents_at_table = match met {
            Some(met) => met,
            None if teams && unnamed() => table_opponents(board_rows),
            None => HashMap::default(),
        };
        Ok(Context {
            competition,
            kind,
            n_boards,
            entrants,
            position,
            result_of,
            opponents_at_table,
            comparisons,
        })
    }

    fn id(&self) -> &str {
        &self.competition.competition_id
    }

    /// The entrant's row.
    fn at(&self, entrant: &Entrant) -> Location {
        entrant.origin.location().competition(self.id())
    }

    /// The entrant's result row.
    fn at_result(&self, result: &EntrantResult) -> Location {
        result.origin.location().competition(self.id())
    }

    /// The member ids of the entrant's players, as many as the field's entrants have. A
    /// slot left empty in a pair or team is a player the club could not identify (exports
    /// write no number for non-members): a non-member, under a negative placeholder id
    /// unique within the competition (`index` is the entrant's position).
    /// Up to four ids held inline: one list per entrant, built and dropped at once.
    fn players(
        &self,
        index: usize,
        entrant: &Entrant,
    ) -> Result<smallvec::SmallVec<[i64; 4]>, InputError> {
        let needed = self.kind.players_per_entrant();
        if let Some(extra) = entrant.players[needed..].iter().position(Option::is_some) {
            return Err(InputError::new(
                self.at(entrant).column(format!("player{}", needed + extra + 1)),
                format!(
                    "entrant `{}` lists more than {} players, the number a {} entrant in this competition has",
                    entrant.entrant, needed, self.competition.format
                ),
            ));
        }
        // A pair of two unnumbered players (guests) still counts in the field, known by
        // the names its export printed.
        if entrant.players[..needed].iter().all(Option::is_none)
            && entrant.names[..needed].iter().all(Option::is_none)
        {
            return Err(InputError::new(
                self.at(entrant).column("player1"),
                format!("entrant `{}` has no players", entrant.entrant),
            ));
        }
        Ok(entrant.players[..needed]
            .iter()
            .enumerate()
            .map(|(slot, id)| id.unwrap_or(-((index * 4 + slot + 1) as i64)))
            .collect())
    }

    /// The entrant's result, which must cover between 1 and all of the boards.
    fn result(&self, entrant: &Entrant) -> Result<&'a EntrantResult, InputError> {
        let Some(&result) = self.result_of.get(entrant.entrant.as_str()) else {
            return Err(InputError::new(
                self.at(entrant).column("entrant"),
                format!("entrant `{}` has no result", entrant.entrant),
            ));
        };
        if result.boards_played == 0 || result.boards_played > self.n_boards {
            return Err(InputError::new(
                self.at_result(result).column("boards_played"),
                format!(
                    "boards_played {} must be between 1 and the competition's {} boards",
                    result.boards_played, self.n_boards
                ),
            ));
        }
        Ok(result)
    }

    /// In a team event, the position of the entrant's opponent: the one its result names,
    /// else the one it met at the table.
    fn opponent(
        &self,
        entrant: &Entrant,
        result: &EntrantResult,
    ) -> Result<Option<usize>, InputError> {
        if !matches!(self.kind, FieldKind::TeamMatch | FieldKind::TeamPairAcross) {
            return Ok(None);
        }
        let name = result.opponent.as_deref().or_else(|| {
            self.opponents_at_table
                .get(entrant.entrant.as_str())
                .copied()
        });
        let Some(name) = name else {
            return Err(InputError::new(
                self.at_result(result).column("opponent"),
                format!("entrant `{}` needs an opponent", entrant.entrant),
            ));
        };
        match self.position.get(name) {
            Some(&index) => Ok(Some(index)),
            None => Err(InputError::new(
                self.at_result(result).column("opponent"),
                format!("opponent `{name}` is not an entrant of this competition"),
            )),
        }
    }
}

/// Who sits in each slot, and the model's view of each player; members are added to
/// `rated_members`.
fn seat_players(
    players: &[i64],
    registry: &Registry,
    rated_members: &mut Vec<u32>,
) -> (Vec<Seat>, Vec<PlayerInput>) {
    // Sized once: one pair of short lists per entrant of every rated competition.
    let mut seats = Vec::with_capacity(players.len());
    let mut inputs = Vec::with_capacity(players.len());
    for &member_id in players {
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
        seats.push(seat);
        inputs.push(PlayerInput { member_id, status });
    }
    (seats, inputs)
}

/// The scoring ranks a fixed-direction pairs field per direction (two winners); the
/// model then compares each pair with its own line.
fn split_by_direction(kind: FieldKind, inputs: &[EntrantInput]) -> bool {
    matches!(kind, FieldKind::Pairs | FieldKind::PairsDatum)
        && inputs.iter().all(|e| e.direction.is_some())
        && inputs
            .iter()
            .any(|e| e.direction == Some(model::Direction::NS))
        && inputs
            .iter()
            .any(|e| e.direction == Some(model::Direction::EW))
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
        // Every board of a Swiss pairs event is scored against the datum of all its
        // tables, the pair's own included: the handicap sees a butler pairs field, and
        // the matches and VPs (which only share the datum IMPs out) play no part.
        (Format::Pairs, SwissPairs) => FieldKind::PairsDatum,
        (format @ (Format::Individual | Format::Teams), SwissPairs) => {
            return Err(InputError::new(
                competition
                    .origin
                    .location()
                    .column("format")
                    .competition(&competition.competition_id),
                format!("scoring `swiss_pairs` needs format `pairs`, not `{format}`"),
            ))
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
fn board_count(competition: &Competition, board_rows: &[BoardRef<'_>]) -> Result<u32, InputError> {
    let n = competition
        .boards
        .unwrap_or_else(|| distinct_boards(board_rows));
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

/// In a team match scored across the field, a pair meets one pair of the other team at
/// its table for the whole match; board rows that seat it against two are a broken
/// export, and taking either opponent would rate the pair against the wrong one.
/// Gives the pair each pair met, as [`table_opponents`] does.
fn one_opponent_per_pair<'a>(
    competition: &Competition,
    board_rows: &'a [BoardRef<'_>],
) -> Result<HashMap<&'a str, &'a str>, InputError> {
    let mut met: HashMap<&str, (&str, u32)> = HashMap::default();
    for row in board_rows {
        let (Some(ns), Some(ew)) = (row.ns(), row.ew()) else {
            continue;
        };
        for (pair, opponent, column) in [(ns, ew, "ew"), (ew, ns, "ns")] {
            let (first, first_board) = *met.entry(pair).or_insert((opponent, row.board()));
            if first != opponent {
                return Err(InputError::new(
                    row.origin()
                        .location()
                        .competition(&competition.competition_id)
                        .board(row.board())
                        .column(column),
                    format!(
                        "pair `{pair}` meets `{opponent}` here but met `{first}` on board {first_board}: a pair meets one opponent in a team match",
                    ),
                ));
            }
        }
    }
    Ok(met
        .into_iter()
        .map(|(pair, (opponent, _))| (pair, opponent))
        .collect())
}

/// The pair each pair met at the table, from board rows (ns against ew).
fn table_opponents<'a>(board_rows: &'a [BoardRef<'_>]) -> HashMap<&'a str, &'a str> {
    let mut met: HashMap<&str, &str> = HashMap::default();
    for row in board_rows {
        if let (Some(ns), Some(ew)) = (row.ns(), row.ew()) {
            met.entry(ns).or_insert(ew);
            met.entry(ew).or_insert(ns);
        }
    }
    met
}
