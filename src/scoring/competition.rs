//! The entry point: one competition from its board rows to its rows of output.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::ops::Range;

use crate::dataset::{BoardRow, Competition, Entrant, Format, ScoringMethod, Text};
use crate::error::InputError;

use super::conventions::AveragePlus;
use super::dispatch::{score_board, totals, BoardScratch};
use super::outcome::Outcome;
use super::rows::{BoardScore, ScoredCompetition};
use super::tables::{read_table, BoardPoints, Entrants, Table};

/// Scores one competition from its table results. Rows of `entrants` and `boards` that
/// belong to other competitions are ignored.
pub fn score_competition(
    competition: &Competition,
    entrants: &[impl Borrow<Entrant>],
    boards: &[impl BoardRow],
) -> Result<ScoredCompetition, InputError> {
    let id = competition.competition_id.as_str();
    let known = Entrants::new(
        entrants
            .iter()
            .map(Borrow::borrow)
            .filter(|e| e.competition_id == id),
    );
    check_houses(competition, &known)?;
    let tables = read_tables(competition, &known, boards)?;
    let by_board = board_runs(&tables);
    check_seats(competition, &known, &tables, &by_board)?;
    let points = score_boards(competition, &tables, &by_board)?;
    let competition_id = Text::new(id);
    let board_scores: Vec<BoardScore> = tables
        .iter()
        .zip(&points)
        .map(|(t, p)| BoardScore {
            competition_id: competition_id.clone(),
            board: t.row.board,
            ns: (!t.ns_at.is_empty()).then(|| joined(&known, &t.ns_at)),
            ew: (!t.ew_at.is_empty()).then(|| joined(&known, &t.ew_at)),
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

/// Only a Swiss pairs event has a house pair.
fn check_houses(competition: &Competition, known: &Entrants<'_>) -> Result<(), InputError> {
    if competition.scoring == ScoringMethod::SwissPairs {
        return Ok(());
    }
    match known.iter().find(|(_, e)| e.house) {
        Some((_, house)) => Err(InputError::new(
            house
                .origin
                .location()
                .competition(&competition.competition_id)
                .column("house"),
            format!(
                "entrant `{}` is marked as a house pair, which only a swiss_pairs event has",
                house.entrant
            ),
        )),
        None => Ok(()),
    }
}

/// The competition's tables, sorted (see [`sort_tables`]); an error when it has none.
fn read_tables<'a>(
    competition: &Competition,
    known: &Entrants<'_>,
    boards: &'a [impl BoardRow],
) -> Result<Vec<Table<'a>>, InputError> {
    let id = competition.competition_id.as_str();
    // Callers pass a competition's own rows (others are skipped): a bound, kept modest.
    let mut tables: Vec<Table<'_>> = Vec::with_capacity(boards.len().min(1 << 12));
    for row in boards {
        if row.competition_id() == id {
            tables.push(read_table(row, competition.format, known)?);
        }
    }
    if tables.is_empty() {
        return Err(InputError::new(
            competition.origin.location().competition(id),
            "the competition has no board results",
        ));
    }
    one_seat_per_member(competition, known, &tables)?;
    unlisted_only_in_a_field(competition, &tables)?;
    sort_tables(&mut tables, known);
    Ok(tables)
}

/// Each board's tables: a run of the sorted tables.
fn board_runs(tables: &[Table<'_>]) -> Vec<Range<usize>> {
    let mut by_board: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for end in 1..=tables.len() {
        if end == tables.len() || tables[end].row.board != tables[start].row.board {
            by_board.push(start..end);
            start = end;
        }
    }
    by_board
}

/// No entrant plays a board more than once (a team once in each room), and every board
/// has more than one result.
fn check_seats(
    competition: &Competition,
    known: &Entrants<'_>,
    tables: &[Table<'_>],
    by_board: &[Range<usize>],
) -> Result<(), InputError> {
    // A team plays each board once in each direction (two rooms); anyone else once.
    let rooms = competition.format == Format::Teams;
    // Per entrant, the directions it has played the current board in (bit 1 N/S, bit 2
    // E/W; both when directions are not told apart).
    let mut seated: Vec<u8> = vec![0; known.len()];
    for range in by_board {
        for table in &tables[range.clone()] {
            let seats = table
                .ns
                .iter()
                .zip(&table.ns_at)
                .map(|(n, &at)| (n, at, 1u8))
                .chain(
                    table
                        .ew
                        .iter()
                        .zip(&table.ew_at)
                        .map(|(n, &at)| (n, at, 2u8)),
                );
            for (name, at, direction) in seats {
                let bits = if rooms { direction } else { 3 };
                let seen = &mut seated[at as usize];
                if *seen & bits != 0 {
                    return Err(InputError::new(
                        table.location(""),
                        format!("entrant `{name}` plays this board more than once"),
                    ));
                }
                *seen |= bits;
            }
        }
        for table in &tables[range.clone()] {
            for &at in table.ns_at.iter().chain(&table.ew_at) {
                seated[at as usize] = 0;
            }
        }
        if range.len() == 1 {
            let only = &tables[range.start];
            let numbers: Vec<u32> = by_board.iter().map(|r| tables[r.start].row.board).collect();
            return Err(InputError::new(
                only.location(""),
                single_result(competition, only.row.board, &numbers),
            ));
        }
    }
    Ok(())
}

/// Each table's points, board by board, in the tables' order.
fn score_boards(
    competition: &Competition,
    tables: &[Table<'_>],
    by_board: &[Range<usize>],
) -> Result<Vec<BoardPoints>, InputError> {
    let expected = by_board.iter().map(|r| r.len()).max().unwrap_or(0);
    let positions: Vec<usize> = (0..tables.len()).collect();
    let mut points: Vec<BoardPoints> = Vec::with_capacity(tables.len());
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut scratch = BoardScratch::default();
    for range in by_board {
        outcomes.clear();
        outcomes.extend(tables[range.clone()].iter().map(|t| t.outcome));
        score_board(
            competition,
            &positions[range.clone()],
            tables,
            &outcomes,
            expected,
            &mut scratch,
            &mut points,
        )?;
    }
    if competition.scoring == ScoringMethod::Matchpoints
        && competition.conventions.average_plus == AveragePlus::SessionIfBetter
    {
        raise_average_plus(tables, &mut points);
    }
    Ok(points)
}

/// Sorts tables by board, then by their entrants as clubs number them (the ranks of
/// `known` order them as `order_lists` orders their names); tables that compare equal
/// keep their order.
///
/// Every table's order fits in one number when no side has more than two entrants
/// (pairs, teams, individuals) and there are fewer than 65 535 entrants: then the
/// tables are sorted by that number, and moved once, instead of compared field by
/// field and moved at every step. With one entrant a side (pairs, teams), boards
/// numbered below 65 536 and fewer than 65 536 tables, the number and the table's place
/// fit in 64 bits, which sort in half the work of the 128-bit keys the rest need.
fn sort_tables(tables: &mut Vec<Table<'_>>, known: &Entrants<'_>) {
    let Some(order) = narrow_order(tables, known).or_else(|| wide_order(tables, known)) else {
        tables.sort_by(|a, b| {
            a.row
                .board
                .cmp(&b.row.board)
                .then_with(|| known.order_sides(&a.ns_at, &b.ns_at))
                .then_with(|| known.order_sides(&a.ew_at, &b.ew_at))
        });
        return;
    };
    place_in_order(tables, order);
}

/// The tables' places in sorted order, from one 64-bit key each (board, N/S entrant,
/// E/W entrant, place), when every side has at most one entrant and every part fits
/// in 16 bits; `None` otherwise.
fn narrow_order(tables: &[Table<'_>], known: &Entrants<'_>) -> Option<Vec<u32>> {
    const LIMIT: u64 = 0xffff;
    if tables.len() as u64 > LIMIT {
        return None;
    }
    let side = |seats: &[u32]| -> Option<u64> {
        match seats {
            [] => Some(0),
            [one] => Some(u64::from(known.rank(*one)) + 1).filter(|&rank| rank <= LIMIT),
            _ => None,
        }
    };
    let mut keys: Vec<u64> = Vec::with_capacity(tables.len());
    for (at, t) in (0..).zip(tables) {
        let board = Some(u64::from(t.row.board)).filter(|&board| board <= LIMIT)?;
        keys.push(board << 48 | side(&t.ns_at)? << 32 | side(&t.ew_at)? << 16 | at);
    }
    // The place breaks ties, so this is the stable order.
    keys.sort_unstable();
    Some(keys.iter().map(|&key| (key & LIMIT) as u32).collect())
}

/// The tables' places in sorted order, from one 128-bit key each (board, the N/S and
/// E/W entrants, two a side at most) and the place, when every rank fits in 16 bits;
/// `None` otherwise.
fn wide_order(tables: &[Table<'_>], known: &Entrants<'_>) -> Option<Vec<u32>> {
    const ABSENT: u128 = 0;
    let side = |seats: &[u32]| -> Option<u128> {
        let [first, second] = match seats {
            [] => [ABSENT, ABSENT],
            [a] => [u128::from(known.rank(*a)) + 1, ABSENT],
            [a, b] => [
                u128::from(known.rank(*a)) + 1,
                u128::from(known.rank(*b)) + 1,
            ],
            _ => return None,
        };
        (first <= 0xffff && second <= 0xffff).then_some(first << 16 | second)
    };
    let mut keys: Vec<(u128, u32)> = Vec::with_capacity(tables.len());
    for (at, t) in (0..).zip(tables) {
        keys.push((
            u128::from(t.row.board) << 64 | side(&t.ns_at)? << 32 | side(&t.ew_at)?,
            at,
        ));
    }
    // The place breaks ties, so this is the stable order.
    keys.sort_unstable();
    Some(keys.iter().map(|&(_, at)| at).collect())
}

/// Moves the tables so that place `p` holds the table that was at `order[p]`.
fn place_in_order(tables: &mut [Table<'_>], mut order: Vec<u32>) {
    if order
        .iter()
        .enumerate()
        .all(|(at, &from)| at == from as usize)
    {
        return;
    }
    // Each place takes the table from `order[place]`: follow each cycle of that
    // permutation with swaps, marking the places done.
    const DONE: u32 = u32::MAX;
    for start in 0..order.len() {
        let mut place = start;
        loop {
            let from = std::mem::replace(&mut order[place], DONE);
            if from == DONE || from as usize == start {
                break;
            }
            tables.swap(place, from as usize);
            place = from as usize;
        }
    }
}

/// A side's entrants as the board scores name them: `"N+S"` in individual events.
fn joined(known: &Entrants<'_>, seats: &[u32]) -> Text {
    match seats {
        [one] => known.text(*one).clone(),
        _ => {
            let mut text = Text::default();
            for (at, &seat) in seats.iter().enumerate() {
                if at > 0 {
                    text.push('+');
                }
                text.push_str(known.name(seat));
            }
            text
        }
    }
}

/// A table with one side empty (a pair the export does not list) counts in a pairs
/// field; a team match, a four- or five-pair event or a Swiss match needs both sides.
fn unlisted_only_in_a_field(
    competition: &Competition,
    tables: &[Table<'_>],
) -> Result<(), InputError> {
    let field = matches!(
        competition.scoring,
        ScoringMethod::Matchpoints | ScoringMethod::CrossImps | ScoringMethod::Butler
    ) && competition.format == Format::Pairs;
    if let Some(t) = tables
        .iter()
        .find(|t| !field && (t.ns_at.is_empty() || t.ew_at.is_empty()))
    {
        let column = if t.ns_at.is_empty() { "ns" } else { "ew" };
        return Err(InputError::new(
            t.location(column),
            "a table with one side's entrant missing (a pair the export does not list) is only scored in a pairs field (matchpoints, cross_imps or butler)",
        ));
    }
    Ok(())
}

/// A member listed in two entrants that both played the same board would have sat at
/// two tables at once: two different pairs given one number (a scorer's slip), not a
/// substitute. (A substitute who played for two pairs is listed in each for the boards
/// it played there, which do not overlap.) Rated, the member would move twice for one
/// session on results one of which is someone else's, so the competition breaks a
/// rule naming both entrants and the number.
fn one_seat_per_member(
    competition: &Competition,
    known: &Entrants<'_>,
    tables: &[Table<'_>],
) -> Result<(), InputError> {
    let mut listed: Vec<(i64, u32, usize)> = Vec::new();
    for (at, (_, entrant)) in (0u32..).zip(known.iter()) {
        for (slot, player) in entrant.players.iter().enumerate() {
            if let Some(member) = player {
                listed.push((*member, at, slot));
            }
        }
    }
    listed.sort_unstable();
    let what = match competition.format {
        Format::Pairs => "pair",
        Format::Teams => "team",
        Format::Individual => "entrant",
    };
    for pair in listed.windows(2) {
        let [(member, first, _), (other, second, slot)] = pair else {
            continue;
        };
        if member != other || first == second {
            continue;
        }
        let boards = |at: u32| -> std::collections::BTreeSet<u32> {
            tables
                .iter()
                .filter(|t| t.ns_at.contains(&at) || t.ew_at.contains(&at))
                .map(|t| t.row.board)
                .collect()
        };
        let Some(board) = boards(*first)
            .intersection(&boards(*second))
            .next()
            .copied()
        else {
            continue;
        };
        let origin = known
            .iter()
            .nth(*second as usize)
            .map_or(&competition.origin, |(_, e)| &e.origin);
        return Err(InputError::new(
            origin
                .location()
                .competition(&competition.competition_id)
                .column(PLAYER_COLUMNS[slot % 4]),
            format!(
                "member {member} is listed in {what} {} and in {what} {}, and both played board {board}: one player cannot sit at two tables (two {what}s were given the same number; a substitute is listed in each {what} only for the boards it played there)",
                known.name(*first),
                known.name(*second),
            ),
        ));
    }
    Ok(())
}

/// The `entrants` columns of the four players.
const PLAYER_COLUMNS: [&str; 4] = ["player1", "player2", "player3", "player4"];

/// The share of the top an average plus is (Ruter's `A+`).
const AVERAGE_PLUS: u8 = 60;

/// The share of the top an average minus is (Ruter's `A-`).
const AVERAGE_MINUS: u8 = 40;

/// `AveragePlus::SessionIfBetter`: a side given an average plus gets its own percentage
/// on the boards it played (those without an artificial score for it) when that is
/// better than 60 %, of the same board's range; a side given an average minus gets it
/// when that is worse than 40 % (the mirror: an artificial score never makes a pair's
/// session better or worse than it played). Boards with an artificial score for the
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
            let beyond = |fraction: f64| match share {
                Some(AVERAGE_PLUS) => fraction > f64::from(AVERAGE_PLUS) / 100.0,
                Some(AVERAGE_MINUS) => fraction < f64::from(AVERAGE_MINUS) / 100.0,
                _ => false,
            };
            if !matches!(share, Some(AVERAGE_PLUS | AVERAGE_MINUS)) {
                continue;
            }
            let Some(fraction) = percent_of(names) else {
                continue;
            };
            if beyond(fraction) {
                *side = p.bottom + fraction * range;
                *shown = *side;
            }
        }
    }
}

/// The rule a board played at one table only breaks, in the secretary's terms: a board
/// number beyond the competition's boards is most likely mistyped.
fn single_result(competition: &Competition, board: u32, boards: &[u32]) -> String {
    let others: Vec<u32> = boards.iter().copied().filter(|&b| b != board).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::BoardResult;
    use crate::scoring::rows::order_lists;
    use crate::scoring::tables::{Seats, Side, TableRow};

    const NAMES: [&str; 6] = ["10", "2", "a", "03", "B", "1"];

    proptest::proptest! {
        /// The tables' sort by number gives the order of comparing boards and names,
        /// equal tables keeping their order: with one entrant a side at most (`pairs`,
        /// the 64-bit keys, unless a board is numbered past 65 535), with two (the
        /// 128-bit keys), and with sides of three, which take the compared path.
        #[test]
        fn tables_sort_as_boards_and_names_compare(
            pairs in proptest::bool::ANY,
            seated in proptest::collection::vec(
                (proptest::sample::select(vec![1u32, 2, 3, 65_535, 65_536]),
                 proptest::collection::vec(0usize..6, 0..3),
                 proptest::collection::vec(0usize..6, 0..4)),
                0..12,
            ),
        ) {
            let seated: Vec<(u32, Vec<usize>, Vec<usize>)> = seated
                .into_iter()
                .map(|(board, mut ns, mut ew)| {
                    if pairs {
                        ns.truncate(1);
                        ew.truncate(1);
                    }
                    (board, ns, ew)
                })
                .collect();
            let listed: Vec<Entrant> = NAMES.iter().map(|n| Entrant::new("c", *n)).collect();
            let known = Entrants::new(listed.iter());
            let rows: Vec<BoardResult> = (0..)
                .zip(&seated)
                .map(|(at, (board, _, _))| BoardResult {
                    board: *board,
                    table: Some(at),
                    ..BoardResult::default()
                })
                .collect();
            let table = |row: &'static BoardResult, ns: &[usize], ew: &[usize]| {
                let names = |s: &[usize]| -> Side<'static> { s.iter().map(|&i| NAMES[i]).collect() };
                let at = |s: &[usize]| -> Seats {
                    s.iter().filter_map(|&i| known.position(NAMES[i])).collect()
                };
                Table {
                    row: TableRow {
                        board: row.board,
                        round: None,
                        session: None,
                        table: row.table,
                        ns_penalty: None,
                        ew_penalty: None,
                    },
                    source: row,
                    ns: names(ns),
                    ew: names(ew),
                    ns_at: at(ns),
                    ew_at: at(ew),
                    outcome: Outcome::Score(0),
                }
            };
            let rows: &'static [BoardResult] = Vec::leak(rows);
            let mut by_number: Vec<Table<'static>> = rows
                .iter()
                .zip(&seated)
                .map(|(row, (_, ns, ew))| table(row, ns, ew))
                .collect();
            let mut by_name: Vec<Table<'static>> = rows
                .iter()
                .zip(&seated)
                .map(|(row, (_, ns, ew))| table(row, ns, ew))
                .collect();
            sort_tables(&mut by_number, &known);
            by_name.sort_by(|a, b| {
                a.row
                    .board
                    .cmp(&b.row.board)
                    .then_with(|| order_lists(&a.ns, &b.ns))
                    .then_with(|| order_lists(&a.ew, &b.ew))
            });
            let order = |tables: &[Table<'_>]| -> Vec<Option<u32>> {
                tables.iter().map(|t| t.row.table).collect()
            };
            proptest::prop_assert_eq!(order(&by_number), order(&by_name));
        }
    }
}
