//! Four or five pairs on two tables (the four-and-five-pairs sheets).
//!
//! With only two tables there is no field to compare with, so the two tables form a
//! small team match: table 1's N/S score minus table 2's, in IMPs, counts for table 1's
//! N/S pair and table 2's E/W pair, and against the other two. The scoresheet enters a
//! subround's total under the pairs that gained it and nothing under the others. With
//! five pairs the fifth pair sits out each subround and is given the average of the four
//! playing pairs' entries, rounded down.

use std::collections::{BTreeMap, BTreeSet};

use crate::dataset::{Competition, EntrantResult};
use crate::scoring::field::field_tally;
use crate::scoring::rows::{sorted_results, Standing};
use crate::scoring::standings::assign_ranks;
use crate::scoring::tables::{BoardPoints, Entrants, Table};

/// A pair's entries for one subround: `playing` holds each playing pair's net IMPs over
/// the subround (positive for the side that gained); the result is what the scoresheet
/// enters under every pair, sit-outs included.
///
/// ```
/// use bridgehcp::scoring::four_five::subround_entries;
/// let e = subround_entries(&[("1", 3), ("2", 3), ("3", -3), ("4", -3)], &["5"]);
/// assert_eq!(e, vec![("1".to_string(), 3), ("2".to_string(), 3), ("3".to_string(), 0),
///                    ("4".to_string(), 0), ("5".to_string(), 1)]);
/// ```
pub fn subround_entries(playing: &[(&str, i32)], sitting_out: &[&str]) -> Vec<(String, i32)> {
    let mut entries: Vec<(String, i32)> = playing
        .iter()
        .map(|&(pair, net)| (pair.to_string(), net.max(0)))
        .collect();
    let total: i32 = entries.iter().map(|(_, e)| e).sum();
    let count = i32::try_from(entries.len()).unwrap_or(i32::MAX).max(1);
    let average = total.div_euclid(count);
    entries.extend(sitting_out.iter().map(|&pair| (pair.to_string(), average)));
    entries
}

/// The four-and-five-pairs sheets' four or five pairs on two tables.
pub(super) fn four_five_standings(
    competition: &Competition,
    known: &Entrants<'_>,
    tables: &[Table<'_>],
    points: &[BoardPoints],
) -> (Vec<Standing>, Vec<EntrantResult>) {
    let id = &competition.competition_id;
    // The tables come sorted by board, as the positional tally needs.
    let tallies = field_tally(known.len(), tables, points);
    // Names in byte order, as a map of names would list them.
    let names: Vec<&str> = known.iter().map(|(name, _)| name).collect();
    // A subround: the boards a fixed set of four pairs played (within one round).
    let mut subrounds: BTreeMap<(Option<u32>, Vec<String>), BTreeMap<String, f64>> =
        BTreeMap::new();
    let mut board_pairs: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for t in tables {
        board_pairs
            .entry(t.row.board)
            .or_default()
            .extend(t.ns.iter().chain(&t.ew).map(|name| name.to_string()));
    }
    for (t, p) in tables.iter().zip(points) {
        let players: Vec<String> = board_pairs
            .get(&t.row.board)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        let sub = subrounds.entry((t.row.round, players)).or_default();
        for name in &t.ns {
            *sub.entry(name.to_string()).or_default() += p.side.ns;
        }
        for name in &t.ew {
            *sub.entry(name.to_string()).or_default() += p.side.ew;
        }
    }
    let mut entries: BTreeMap<String, f64> = names.iter().map(|k| (k.to_string(), 0.0)).collect();
    for net in subrounds.values() {
        let playing: Vec<(&str, i32)> = net
            .iter()
            .map(|(n, v)| (n.as_str(), v.round() as i32))
            .collect();
        let sitting_out: Vec<&str> = names
            .iter()
            .copied()
            .filter(|k| !net.contains_key(*k))
            .collect();
        for (name, entry) in subround_entries(&playing, &sitting_out) {
            *entries.entry(name).or_default() += f64::from(entry);
        }
    }
    let mut standings: Vec<Standing> = entries
        .iter()
        .map(|(name, score)| {
            let boards = known
                .position(name)
                .and_then(|at| tallies.get(at as usize))
                .map_or(0, |t| t.boards as u32);
            Standing::new(id, name, *score, boards)
        })
        .collect();
    assign_ranks(&mut standings, None);
    // The entrants that sat at a table, in byte order of their names.
    let results = (0..)
        .zip(&tallies)
        .filter(|(_, t)| t.seated())
        .map(|(at, t)| EntrantResult {
            competition_id: id.clone(),
            entrant: known.name(at).to_string(),
            boards_played: t.boards as u32,
            score: t.points,
            opponent: None,
            origin: competition.origin.clone(),
        })
        .collect();
    (standings, sorted_results(results))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four-and-five-pairs sheets: four pairs, a round's total of −3 IMPs at table 1 N/S: pairs 1 and 2 each
    /// receive 3 IMPs, pairs 3 and 4 nothing.
    #[test]
    fn seed_003_four_pairs() {
        let e = subround_entries(&[("3", -3), ("4", -3), ("1", 3), ("2", 3)], &[]);
        assert_eq!(
            e,
            vec![
                ("3".to_string(), 0),
                ("4".to_string(), 0),
                ("1".to_string(), 3),
                ("2".to_string(), 3)
            ]
        );
    }

    /// The four-and-five-pairs sheets, five pairs: the sit-out gets the average entry rounded down, here
    /// (5 + 5 + 0 + 0)/4 = 2.5 → 2, and (0·4)/4 = 0 for a flat subround.
    #[test]
    fn seed_003_sit_out_average() {
        let e = subround_entries(&[("1", 5), ("2", -5), ("3", 5), ("4", -5)], &["5"]);
        assert_eq!(e.last(), Some(&("5".to_string(), 2)));
        let flat = subround_entries(&[("1", 0), ("2", 0), ("3", 0), ("4", 0)], &["5"]);
        assert_eq!(flat.last(), Some(&("5".to_string(), 0)));
    }
}
