//! The entry point: one competition from its board rows to its rows of output.

use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};

use crate::dataset::{BoardResult, Competition, Direction, Entrant, Format, ScoringMethod};
use crate::error::InputError;

use super::conventions::AveragePlus;
use super::dispatch::{score_board, totals};
use super::outcome::Outcome;
use super::rows::{order_lists, BoardScore, ScoredCompetition};
use super::tables::{read_table, BoardPoints, Table};

/// Scores one competition from its table results. Rows of `entrants` and `boards` that
/// belong to other competitions are ignored.
pub fn score_competition(
    competition: &Competition,
    entrants: &[impl Borrow<Entrant>],
    boards: &[impl Borrow<BoardResult>],
) -> Result<ScoredCompetition, InputError> {
    let id = competition.competition_id.as_str();
    let conventions = competition.conventions;
    let competition_location = || competition.origin.location().competition(id);
    let known: BTreeMap<&str, &Entrant> = entrants
        .iter()
        .map(Borrow::borrow)
        .filter(|e| e.competition_id == id)
        .map(|e| (e.entrant.trim(), e))
        .collect();
    if competition.scoring != ScoringMethod::SwissPairs {
        if let Some(house) = known.values().find(|e| e.house) {
            return Err(InputError::new(
                house.origin.location().competition(id).column("house"),
                format!(
                    "entrant `{}` is marked as a house pair, which only a swiss_pairs event has",
                    house.entrant
                ),
            ));
        }
    }
    let mut tables: Vec<Table<'_>> = boards
        .iter()
        .map(Borrow::borrow)
        .filter(|b| b.competition_id == id)
        .map(|row| read_table(row, competition.format, &known))
        .collect::<Result<_, _>>()?;
    if tables.is_empty() {
        return Err(InputError::new(
            competition_location(),
            "the competition has no board results",
        ));
    }
    tables.sort_by(|a, b| {
        a.row
            .board
            .cmp(&b.row.board)
            .then_with(|| order_lists(&a.ns, &b.ns))
            .then_with(|| order_lists(&a.ew, &b.ew))
    });
    let mut by_board: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (index, table) in tables.iter().enumerate() {
        by_board.entry(table.row.board).or_default().push(index);
    }
    for indices in by_board.values() {
        // A team plays each board once in each direction (two rooms); anyone else once.
        let rooms = competition.format == Format::Teams;
        let mut seen: BTreeSet<(&str, Option<Direction>)> = BTreeSet::new();
        for &i in indices {
            let table = &tables[i];
            let seats = table
                .ns
                .iter()
                .map(|n| (n, Direction::NS))
                .chain(table.ew.iter().map(|n| (n, Direction::EW)));
            for (name, direction) in seats {
                if !seen.insert((name, rooms.then_some(direction))) {
                    return Err(InputError::new(
                        table.location(""),
                        format!("entrant `{name}` plays this board more than once"),
                    ));
                }
            }
        }
        if let [only] = indices[..] {
            return Err(InputError::new(
                tables[only].location(""),
                single_result(competition, tables[only].row.board, &by_board),
            ));
        }
    }
    let expected = by_board.values().map(Vec::len).max().unwrap_or(0);
    let mut points: Vec<BoardPoints> = Vec::with_capacity(tables.len());
    for indices in by_board.values() {
        let outcomes: Vec<Outcome> = indices.iter().map(|&i| tables[i].outcome).collect();
        points.extend(score_board(
            competition,
            &conventions,
            indices,
            &tables,
            &outcomes,
            expected,
        )?);
    }
    if competition.scoring == ScoringMethod::Matchpoints
        && conventions.average_plus == AveragePlus::SessionIfBetter
    {
        raise_average_plus(&tables, &mut points);
    }

    let board_scores: Vec<BoardScore> = tables
        .iter()
        .zip(&points)
        .map(|(t, p)| BoardScore {
            competition_id: id.to_string(),
            board: t.row.board,
            ns: Some(t.ns.join("+")),
            ew: Some(t.ew.join("+")),
            ns_score: t.outcome.score(),
            ns_points: p.shown.ns,
            ew_points: p.shown.ew,
            datum: p.datum,
        })
        .collect();

    let (standings, results) = totals(competition, &known, &tables, &points)?;
    Ok(ScoredCompetition {
        board_scores,
        standings,
        results,
    })
}

/// The share of the top an average plus is (Ruter's `A+`).
const AVERAGE_PLUS: u8 = 60;

/// `AveragePlus::SessionIfBetter`: a side given an average plus gets its own percentage
/// on the boards it played (those without an artificial score for it) when that is
/// better than 60 %, of the same board's range. Boards with an artificial score for the
/// side are left out of its percentage, so the value does not depend on itself.
fn raise_average_plus(tables: &[Table<'_>], points: &mut [BoardPoints]) {
    #[derive(Default)]
    struct Own {
        points: f64,
        range: f64,
        bottom: f64,
    }
    let mut own: BTreeMap<&str, Own> = BTreeMap::new();
    for (table, p) in tables.iter().zip(points.iter()) {
        let (ns_share, ew_share) = table.outcome.artificial_shares();
        for (names, share, value) in [
            (&table.ns, ns_share, p.side.ns),
            (&table.ew, ew_share, p.side.ew),
        ] {
            if share.is_some() {
                continue;
            }
            for name in names {
                let entry = own.entry(*name).or_default();
                entry.points += value;
                entry.bottom += p.bottom;
                entry.range += p.top - p.bottom;
            }
        }
    }
    let percent_of = |names: &[&str]| -> Option<f64> {
        let [name] = names else {
            return None;
        };
        let o = own.get(name)?;
        (o.range > 0.0).then(|| (o.points - o.bottom) / o.range)
    };
    for (table, p) in tables.iter().zip(points.iter_mut()) {
        let (ns_share, ew_share) = table.outcome.artificial_shares();
        let range = p.top - p.bottom;
        for (names, share, side, shown) in [
            (&table.ns, ns_share, &mut p.side.ns, &mut p.shown.ns),
            (&table.ew, ew_share, &mut p.side.ew, &mut p.shown.ew),
        ] {
            if share != Some(AVERAGE_PLUS) {
                continue;
            }
            let Some(fraction) = percent_of(names) else {
                continue;
            };
            if fraction > f64::from(AVERAGE_PLUS) / 100.0 {
                *side = p.bottom + fraction * range;
                *shown = *side;
            }
        }
    }
}

/// The rule a board played at one table only breaks, in the secretary's terms: a board
/// number beyond the competition's boards is most likely mistyped.
fn single_result(
    competition: &Competition,
    board: u32,
    by_board: &BTreeMap<u32, Vec<usize>>,
) -> String {
    let others: Vec<u32> = by_board.keys().copied().filter(|&b| b != board).collect();
    let range = match (others.first(), others.last()) {
        (Some(lo), Some(hi)) => format!(" (the others are numbered {lo} to {hi})"),
        _ => String::new(),
    };
    match competition.boards {
        Some(boards) if board > boards => format!(
            "board {board} has only one result, so there is nothing to compare it with; the competition has {boards} boards{range}, so board {board} is most likely a mistyped board number"
        ),
        _ => format!(
            "board {board} has only one result, so there is nothing to compare it with{range}; check the board number of this row"
        ),
    }
}
