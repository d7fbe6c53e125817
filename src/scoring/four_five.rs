//! Four or five pairs on two tables (the four-and-five-pairs sheets).
//!
//! With only two tables there is no field to compare with, so the two tables form a
//! small team match: table 1's N/S score minus table 2's, in IMPs, counts for table 1's
//! N/S pair and table 2's E/W pair, and against the other two. The scoresheet enters a
//! subround's total under the pairs that gained it and nothing under the others. With
//! five pairs the fifth pair sits out each subround and is given the average of the four
//! playing pairs' entries, rounded down.
//!
//! With victory points (a competition's `vp_scale`) the procedure is the same on
//! converted entries: a subround's IMP total becomes the scale's `winner` VPs for the
//! pairs with the IMPs and its `loser` VPs for the other two, and the sit-out gets the
//! average of the four VP entries, rounded down to a whole VP as the IMP average is.
//! The seed says the VP procedure is the IMP one "except that the imp total … is first
//! converted", so the sit-out rule applies to the entries, which are then VPs; converting
//! the average IMP entry instead would give a VP figure for a margin no table played.
//! Standings are by total VPs; the handicap still uses the IMPs.

use std::collections::{BTreeMap, BTreeSet};

pub use crate::dataset::vp_scale::RoundScale;
use crate::dataset::{Competition, EntrantResult};
use crate::scoring::field::{field_tally, FieldTally};
use crate::scoring::rows::{field_result, sorted_results, Standing};
use crate::scoring::standings::{assign_ranks, assign_ranks_by};
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

/// The VP entries of one subround from its IMP entries (`subround_entries`): the pairs
/// with the IMPs get the scale's winner VPs for the margin, the other playing pairs its
/// loser VPs, and each pair sitting out the average of the playing pairs' VP entries,
/// rounded down to a whole VP.
///
/// ```
/// use bridgehcp::scoring::four_five::{vp_entries, RoundScale};
/// let scale = RoundScale::new(vec![(7.0, 7.0), (8.0, 6.0), (9.0, 5.0), (10.0, 4.0)]).unwrap();
/// let e = vp_entries(&scale, &[("1", 3), ("2", 3), ("3", -3), ("4", -3)], &["5"]);
/// assert_eq!(e, vec![("1".to_string(), 10.0), ("2".to_string(), 10.0), ("3".to_string(), 4.0),
///                    ("4".to_string(), 4.0), ("5".to_string(), 7.0)]);
/// ```
pub fn vp_entries(
    scale: &RoundScale,
    playing: &[(&str, i32)],
    sitting_out: &[&str],
) -> Vec<(String, f64)> {
    let margin = playing
        .iter()
        .map(|(_, net)| net.unsigned_abs())
        .max()
        .unwrap_or(0);
    let (winner, loser) = scale.vp(margin);
    let mut entries: Vec<(String, f64)> = playing
        .iter()
        .map(|&(pair, net)| {
            (
                pair.to_string(),
                if net > 0 {
                    winner
                } else if net < 0 {
                    loser
                } else {
                    winner
                },
            )
        })
        .collect();
    let total: f64 = entries.iter().map(|(_, e)| e).sum();
    let average = (total / entries.len().max(1) as f64 + 1e-9).floor();
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
    let subrounds = subround_nets(tables, points);
    let scale = competition
        .vp_scale
        .as_ref()
        .and_then(|s| s.table.as_deref());
    let (entries, vps) = sheet_totals(&subrounds, &names, scale);
    let standings = ranked_standings(id, known, &tallies, &entries, &vps, scale);
    // The entrants that sat at a table, in byte order of their names.
    let results = (0..)
        .zip(&tallies)
        .filter(|(_, t)| t.seated())
        .map(|(at, t)| {
            let entrant = known.name(at).to_string();
            field_result(competition, entrant, t.boards as u32, t.points)
        })
        .collect();
    (standings, sorted_results(results))
}

/// Each subround's net IMPs per playing pair, keyed by its round and its four pairs.
type Subrounds = BTreeMap<(Option<u32>, Vec<String>), BTreeMap<String, f64>>;

/// The subrounds (the boards a fixed set of four pairs played, within one round), each
/// with the IMPs every playing pair gained on them.
fn subround_nets(tables: &[Table<'_>], points: &[BoardPoints]) -> Subrounds {
    let mut subrounds: Subrounds = BTreeMap::new();
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
    subrounds
}

/// Every pair's total of the scoresheet's entries over the subrounds (every pair of
/// `names`, from zero), and its total VP entries when there is a `scale`.
fn sheet_totals(
    subrounds: &Subrounds,
    names: &[&str],
    scale: Option<&RoundScale>,
) -> (BTreeMap<String, f64>, BTreeMap<String, f64>) {
    let mut entries: BTreeMap<String, f64> = names.iter().map(|k| (k.to_string(), 0.0)).collect();
    let mut vps: BTreeMap<String, f64> = BTreeMap::new();
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
        if let Some(scale) = scale {
            for (name, vp) in vp_entries(scale, &playing, &sitting_out) {
                *vps.entry(name).or_default() += vp;
            }
        }
    }
    (entries, vps)
}

/// The standings of the totals, ranked by VPs when there is a `scale`, else by the
/// IMP entries; a pair's boards are those its tally counted.
fn ranked_standings(
    id: &str,
    known: &Entrants<'_>,
    tallies: &[FieldTally],
    entries: &BTreeMap<String, f64>,
    vps: &BTreeMap<String, f64>,
    scale: Option<&RoundScale>,
) -> Vec<Standing> {
    let mut standings: Vec<Standing> = entries
        .iter()
        .map(|(name, score)| {
            let boards = known
                .position(name)
                .and_then(|at| tallies.get(at as usize))
                .map_or(0, |t| t.boards as u32);
            let mut standing = Standing::new(id, name, *score, boards);
            if scale.is_some() {
                standing.vp = Some(vps.get(name).copied().unwrap_or(0.0));
            }
            standing
        })
        .collect();
    if scale.is_some() {
        assign_ranks_by(&mut standings, &|s: &Standing| s.vp.unwrap_or(0.0), None);
    } else {
        assign_ranks(&mut standings, None);
    }
    standings
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
