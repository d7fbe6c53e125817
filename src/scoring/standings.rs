//! Ranks and tie-breaks.
//!
//! A rank must be reproducible by hand from the published totals, so entrants with equal
//! totals share a rank (1, 2, 2, 4) unless the competition asks for tie-breaks. The
//! tie-breaks are those of the tie-break rules, in the order the competition's `tie_break` names
//! (the tie-break rules' default order for the earlier names); each one only separates the entrants
//! it can, and whatever it leaves tied goes on to the next.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use crate::dataset::Direction;
use crate::scoring::conventions::{TieBreak, TieBreakMethod as Method};
use crate::scoring::matchpoints::two_one;
use crate::scoring::rows::{entrant_order, Standing};

/// Totals closer than this are equal (they are sums of factored matchpoints).
pub const TIE_TOLERANCE: f64 = 1e-9;

/// One entrant's result on one board, as the tie-breaks need it.
#[derive(Debug, Clone, PartialEq)]
pub struct Play {
    pub board: u32,
    pub entrant: String,
    pub direction: Direction,
    /// The entrant's own score (N/S score, negated for E/W); `None` when artificial.
    pub own_score: Option<i32>,
    pub points: f64,
    pub top: f64,
    pub bottom: f64,
    /// The entrants it played against on this board.
    pub opponents: Vec<String>,
}

/// Shared ranks by descending total: 1, 2, 2, 4. An entrant's rank is one more than the
/// number of totals above its own by more than [`TIE_TOLERANCE`]. The standings and the
/// national ranking (on negated handicaps) both rank with it.
///
/// ```
/// use bridgehcp::scoring::standings::shared_ranks;
/// assert_eq!(shared_ranks(&[50.0, 47.0, 47.0, 40.0]), vec![1, 2, 2, 4]);
/// ```
pub fn shared_ranks(totals: &[f64]) -> Vec<u32> {
    // Sorted once, so a national ranking of many thousands stays O(n log n).
    let mut descending: Vec<f64> = totals.iter().copied().filter(|t| !t.is_nan()).collect();
    descending.sort_by(|a, b| b.total_cmp(a));
    totals
        .iter()
        .map(|&mine| 1 + descending.partition_point(|&t| t > mine + TIE_TOLERANCE) as u32)
        .collect()
}

/// Sample standard deviation of an entrant's board scores, each centred on its board's
/// average (half-way between bottom and top). `None` with fewer than two boards.
pub fn standard_deviation(plays: &[&Play]) -> Option<f64> {
    if plays.len() < 2 {
        return None;
    }
    let squares: f64 = plays
        .iter()
        .map(|p| {
            let centred = p.points - (p.top + p.bottom) / 2.0;
            centred * centred
        })
        .sum();
    Some((squares / (plays.len() - 1) as f64).sqrt())
}

/// The tie-break rules' topscore comparison: on every board, the tied entrants' own scores are
/// matchpointed against each other (2 per score beaten, 1 per tie: top 2 for two, 4 for
/// three), optionally only among scores from the same direction. Returns each entrant's
/// total, in the order of `group`.
pub fn topscore_comparison(group: &[&str], plays: &[Play], same_direction_only: bool) -> Vec<f64> {
    // (board, direction when compared per direction) → (index in group, own score).
    type Key = (u32, Option<Direction>);
    let mut per_board: BTreeMap<Key, Vec<(usize, i32)>> = BTreeMap::new();
    for play in plays {
        let Some(index) = group.iter().position(|g| *g == play.entrant) else {
            continue;
        };
        let Some(score) = play.own_score else {
            continue;
        };
        let direction = same_direction_only.then_some(play.direction);
        per_board
            .entry((play.board, direction))
            .or_default()
            .push((index, score));
    }
    let mut totals = vec![0.0; group.len()];
    for scores in per_board.values() {
        let own: Vec<i32> = scores.iter().map(|&(_, s)| s).collect();
        for (&(index, _), mp) in scores.iter().zip(two_one(&own)) {
            if let Some(total) = totals.get_mut(index) {
                *total += mp;
            }
        }
    }
    totals
}

/// The points each tied entrant scored on boards against the others of the group;
/// `None` unless every two of them met.
fn in_between_meeting(group: &[&str], plays: &[Play]) -> Option<Vec<f64>> {
    let mut met: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut totals = vec![0.0; group.len()];
    for play in plays {
        let Some(i) = group.iter().position(|g| *g == play.entrant) else {
            continue;
        };
        for opponent in &play.opponents {
            if let Some(j) = group.iter().position(|g| g == opponent) {
                met.insert((i.min(j), i.max(j)));
                if let Some(total) = totals.get_mut(i) {
                    *total += play.points;
                }
            }
        }
    }
    let pairs = group.len() * group.len().saturating_sub(1) / 2;
    (met.len() == pairs && pairs > 0).then_some(totals)
}

/// Everything the tie-breaks look at.
pub struct TieBreakInput<'a> {
    pub plays: &'a [Play],
    /// Each entrant's session percentages (multi-session events); empty otherwise.
    pub sessions: &'a BTreeMap<String, Vec<f64>>,
    /// The methods and their order (see [`TieBreak`]); `off` breaks no tie.
    pub config: TieBreak,
}

/// Ranks by descending total and, with `tie_breaks`, separates tied entrants. Returns the
/// rank of each entrant, in the order given; entrants still tied share a rank.
pub fn rank(entrants: &[(&str, f64)], tie_breaks: Option<&TieBreakInput<'_>>) -> Vec<u32> {
    let totals: Vec<f64> = entrants.iter().map(|(_, t)| *t).collect();
    let shared = shared_ranks(&totals);
    let Some(input) = tie_breaks else {
        return shared;
    };
    let methods: Vec<Method> = input.config.methods().collect();
    let mut ranks = shared.clone();
    let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (index, &r) in shared.iter().enumerate() {
        groups.entry(r).or_default().push(index);
    }
    for (first_rank, group) in groups {
        if group.len() < 2 {
            continue;
        }
        let mut next = first_rank;
        for sub in separate(&group, 0, &methods, entrants, input) {
            for &index in &sub {
                if let Some(r) = ranks.get_mut(index) {
                    *r = next;
                }
            }
            next += sub.len() as u32;
        }
    }
    ranks
}

/// Orders a tied group into subgroups, best first, with `methods[from..]`.
fn separate(
    group: &[usize],
    from: usize,
    methods: &[Method],
    entrants: &[(&str, f64)],
    input: &TieBreakInput<'_>,
) -> Vec<Vec<usize>> {
    let Some(&method) = methods.get(from) else {
        return vec![group.to_vec()];
    };
    let names: Vec<&str> = group
        .iter()
        .filter_map(|&i| entrants.get(i).map(|e| e.0))
        .collect();
    let keys: Option<Vec<Vec<f64>>> = match method {
        Method::Meeting => in_between_meeting(&names, input.plays)
            .map(|totals| totals.into_iter().map(|t| vec![t]).collect()),
        Method::Session => {
            let lists: Option<Vec<Vec<f64>>> = names
                .iter()
                .map(|n| {
                    input.sessions.get(*n).filter(|s| s.len() > 1).map(|s| {
                        let mut s = s.clone();
                        s.sort_by(|a, b| b.total_cmp(a));
                        s
                    })
                })
                .collect();
            lists
        }
        Method::Deviation => names
            .iter()
            .map(|n| {
                let own: Vec<&Play> = input.plays.iter().filter(|p| p.entrant == *n).collect();
                standard_deviation(&own).map(|sd| vec![-sd])
            })
            .collect(),
        Method::Topscore => Some(
            topscore_comparison(&names, input.plays, input.config.same_direction_only)
                .into_iter()
                .map(|t| vec![t])
                .collect(),
        ),
    };
    let Some(keys) = keys else {
        return separate(group, from + 1, methods, entrants, input);
    };
    let mut order: Vec<(usize, &Vec<f64>)> = group.iter().copied().zip(keys.iter()).collect();
    order.sort_by(|a, b| compare_keys(b.1, a.1));
    let mut subgroups: Vec<Vec<usize>> = Vec::new();
    let mut last: Option<&Vec<f64>> = None;
    for (index, key) in order {
        match (last, subgroups.last_mut()) {
            (Some(prev), Some(sub)) if compare_keys(prev, key) == Ordering::Equal => {
                sub.push(index)
            }
            _ => subgroups.push(vec![index]),
        }
        last = Some(key);
    }
    if subgroups.len() == 1 {
        return separate(group, from + 1, methods, entrants, input);
    }
    subgroups
        .into_iter()
        .flat_map(|sub| {
            if sub.len() < 2 {
                vec![sub]
            } else if method == Method::Topscore && input.config.repeat_partial {
                separate(&sub, from, methods, entrants, input)
            } else {
                separate(&sub, from + 1, methods, entrants, input)
            }
        })
        .collect()
}

fn compare_keys(a: &[f64], b: &[f64]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        if (x - y).abs() > TIE_TOLERANCE {
            return x.total_cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// Ranks within each direction group (or all together) by total and sorts the rows.
pub(super) fn assign_ranks(standings: &mut [Standing], tie_input: Option<&TieBreakInput<'_>>) {
    assign_ranks_by(standings, &|s: &Standing| s.score, tie_input);
}

/// Ranks within each direction group (or all together) by `key` and sorts the rows.
pub(super) fn assign_ranks_by(
    standings: &mut [Standing],
    key: &dyn Fn(&Standing) -> f64,
    tie_input: Option<&TieBreakInput<'_>>,
) {
    rank_by(standings, key, tie_input);
    standings.sort_by(|a, b| {
        a.direction
            .cmp(&b.direction)
            .then(a.rank.cmp(&b.rank))
            .then_with(|| entrant_order(&a.entrant, &b.entrant))
    });
}

/// [`assign_ranks_by`] for standings whose entrants' places in entrant order are known
/// (`places[i]` for `standings[i]`, all distinct): the rows sort on the places rather
/// than parsing both names at every comparison, into the same order. Returns where each
/// sorted row was before the sort.
pub(super) fn assign_ranks_placed(
    standings: &mut Vec<Standing>,
    key: &dyn Fn(&Standing) -> f64,
    tie_input: Option<&TieBreakInput<'_>>,
    places: &[u32],
) -> Vec<usize> {
    rank_by(standings, key, tie_input);
    // The keys are sorted, not the rows; each row then moves once. The row's index
    // last keeps the sort stable should two places be equal.
    let mut keys: Vec<(Option<Direction>, u32, u32, usize)> = standings
        .iter()
        .zip(places)
        .enumerate()
        .map(|(i, (s, &place))| (s.direction, s.rank, place, i))
        .collect();
    keys.sort_unstable();
    let mut rows: Vec<Option<Standing>> = standings.drain(..).map(Some).collect();
    let before: Vec<usize> = keys.iter().map(|k| k.3).collect();
    standings.extend(
        before
            .iter()
            .filter_map(|&i| rows.get_mut(i).and_then(Option::take)),
    );
    before
}

/// Sets each row's rank within its direction group (or all together) by `key`.
fn rank_by(
    standings: &mut [Standing],
    key: &dyn Fn(&Standing) -> f64,
    tie_input: Option<&TieBreakInput<'_>>,
) {
    let mut groups: BTreeMap<Option<Direction>, Vec<usize>> = BTreeMap::new();
    for (i, s) in standings.iter().enumerate() {
        groups.entry(s.direction).or_default().push(i);
    }
    for indices in groups.values() {
        let entries: Vec<(&str, f64)> = indices
            .iter()
            .map(|&i| (standings[i].entrant.as_str(), key(&standings[i])))
            .collect();
        let ranks = rank(&entries, tie_input);
        let ranks: Vec<(usize, u32)> = indices.iter().copied().zip(ranks).collect();
        for (i, r) in ranks {
            standings[i].rank = r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-checked: totals given in any order; two within the tolerance tie, the next
    /// rank skips the tied places; order of the input is kept.
    #[test]
    fn shared_ranks_skip_after_ties_in_any_order() {
        assert_eq!(
            shared_ranks(&[40.0, 47.0, 50.0, 47.0 + 1e-12, 12.5]),
            vec![4, 2, 1, 2, 5]
        );
        assert_eq!(shared_ranks(&[3.0, 3.0, 3.0]), vec![1, 1, 1]);
        assert_eq!(shared_ranks(&[]), Vec::<u32>::new());
        // Handicaps ranked lowest first, as the national ranking does: 10.00, 12.00,
        // 12.00, 20.00 → 1, 2, 2, 4.
        assert_eq!(
            shared_ranks(&[-12.0, -10.0, -20.0, -12.0]),
            vec![2, 1, 4, 2]
        );
    }

    fn play(board: u32, entrant: &str, own: i32) -> Play {
        Play {
            board,
            entrant: entrant.to_string(),
            direction: Direction::NS,
            own_score: Some(own),
            points: 0.0,
            top: 2.0,
            bottom: 0.0,
            opponents: Vec::new(),
        }
    }

    fn topscore_only(repeat: bool) -> TieBreak {
        TieBreak::new(&[Method::Topscore], repeat, false).unwrap_or_default()
    }

    /// The tie-break rules' example, built as 24 boards: on board 1 A scores 620 and B and C 170
    /// (A 4, B 1, C 1); on 23 boards all three score 420 (2 each). A 50, B 47, C 47.
    #[test]
    fn seed_000_three_way_tie() {
        let mut plays = vec![play(1, "A", 620), play(1, "B", 170), play(1, "C", 170)];
        for board in 2..=24 {
            for e in ["A", "B", "C"] {
                plays.push(play(board, e, 420));
            }
        }
        assert_eq!(
            topscore_comparison(&["A", "B", "C"], &plays, false),
            vec![50.0, 47.0, 47.0]
        );
        let sessions = BTreeMap::new();
        let entrants = [("B", 60.0), ("A", 60.0), ("C", 60.0), ("D", 70.0)];
        for repeat in [false, true] {
            let input = TieBreakInput {
                plays: &plays,
                sessions: &sessions,
                config: topscore_only(repeat),
            };
            // A wins the tie-break; B and C stay tied (repeating cannot split them: every
            // board between B and C is a tie).
            assert_eq!(rank(&entrants, Some(&input)), vec![3, 2, 3, 1]);
        }
        assert_eq!(rank(&entrants, None), vec![2, 2, 2, 1]);
    }

    /// A 3-way comparison A 10, B 4, C 4 where B beats C 4-2 head to head: only the
    /// repeat setting separates B and C. Boards (A, B, C): (400, 100, 600), then twice
    /// (600, 400, 100).
    #[test]
    fn repeat_for_a_partial_tie() {
        let mut plays = vec![play(1, "A", 400), play(1, "B", 100), play(1, "C", 600)];
        for board in 2..=3 {
            plays.extend([
                play(board, "A", 600),
                play(board, "B", 400),
                play(board, "C", 100),
            ]);
        }
        assert_eq!(
            topscore_comparison(&["A", "B", "C"], &plays, false),
            vec![10.0, 4.0, 4.0]
        );
        assert_eq!(
            topscore_comparison(&["B", "C"], &plays, false),
            vec![4.0, 2.0]
        );
        let sessions = BTreeMap::new();
        let entrants = [("A", 1.0), ("B", 1.0), ("C", 1.0)];
        let no_repeat = TieBreakInput {
            plays: &plays,
            sessions: &sessions,
            config: topscore_only(false),
        };
        assert_eq!(rank(&entrants, Some(&no_repeat)), vec![1, 2, 2]);
        let repeat = TieBreakInput {
            plays: &plays,
            sessions: &sessions,
            config: topscore_only(true),
        };
        assert_eq!(rank(&entrants, Some(&repeat)), vec![1, 2, 3]);
    }

    /// Same direction only: scores from different directions are not compared.
    #[test]
    fn same_direction_setting() {
        let mut b = play(1, "B", 100);
        b.direction = Direction::EW;
        let plays = vec![play(1, "A", 400), b];
        assert_eq!(
            topscore_comparison(&["A", "B"], &plays, false),
            vec![2.0, 0.0]
        );
        assert_eq!(
            topscore_comparison(&["A", "B"], &plays, true),
            vec![0.0, 0.0]
        );
    }

    /// Standard deviation with tops centred on 0: scores 10, 4, 7 on top 14 centre to
    /// 3, −3, 0: sqrt((9 + 9 + 0)/2) = 3.
    #[test]
    fn deviation() {
        let mk = |points: f64| Play {
            points,
            top: 14.0,
            ..play(1, "A", 0)
        };
        let plays = [mk(10.0), mk(4.0), mk(7.0)];
        let refs: Vec<&Play> = plays.iter().collect();
        assert!((standard_deviation(&refs).unwrap_or(f64::NAN) - 3.0).abs() < 1e-12);
        assert_eq!(standard_deviation(&refs[..1]), None);
    }

    /// In-between meeting decides first: A scored 9 and B 5 on the board where they met;
    /// then the steadier pair wins a tie left by a pair that did not meet.
    #[test]
    fn in_between_then_deviation() {
        let mut a = play(1, "A", 170);
        a.points = 9.0;
        a.top = 14.0;
        a.opponents = vec!["B".into()];
        let mut b = play(1, "B", -170);
        b.points = 5.0;
        b.top = 14.0;
        b.opponents = vec!["A".into()];
        let plays = vec![a, b];
        let sessions = BTreeMap::new();
        let input = TieBreakInput {
            plays: &plays,
            sessions: &sessions,
            config: TieBreak::seed_000(false, false),
        };
        assert_eq!(rank(&[("B", 55.0), ("A", 55.0)], Some(&input)), vec![2, 1]);
    }

    #[test]
    fn session_percentages() {
        let sessions: BTreeMap<String, Vec<f64>> = [
            ("A".to_string(), vec![55.0, 61.0]),
            ("B".to_string(), vec![61.0, 57.0]),
        ]
        .into_iter()
        .collect();
        let input = TieBreakInput {
            plays: &[],
            sessions: &sessions,
            config: TieBreak::seed_000(false, false),
        };
        // Best sessions tie at 61; second best 57 beats 55.
        assert_eq!(
            rank(&[("A", 116.0), ("B", 118.0 - 2.0)], Some(&input)),
            vec![2, 1]
        );
    }

    /// Two entrants tie on 60, two on 50: each tie is listed in entrant order (`02`
    /// before `2`, numbers by value before names, names by bytes), whatever order the
    /// rows came in.
    #[test]
    fn rows_sorted_by_their_places_list_ties_in_entrant_order() {
        let names = ["10", "2", "B", "A", "02"];
        let scores = [50.0, 60.0, 50.0, 40.0, 60.0];
        let rows = || -> Vec<Standing> {
            names
                .iter()
                .zip(scores)
                .map(|(name, score)| Standing::new("c", name, score, 24))
                .collect()
        };
        // Entrant order: 02, 2, 10, A, B.
        let places = [2, 1, 4, 3, 0];
        let mut placed = rows();
        let before = assign_ranks_placed(&mut placed, &|s: &Standing| s.score, None, &places);
        let listed: Vec<(&str, u32)> = placed
            .iter()
            .map(|s| (s.entrant.as_str(), s.rank))
            .collect();
        assert_eq!(listed, [("02", 1), ("2", 1), ("10", 3), ("B", 3), ("A", 5)]);
        assert_eq!(before, [4, 1, 0, 2, 3]);
        let mut by_name = rows();
        assign_ranks(&mut by_name, None);
        assert_eq!(placed, by_name);
    }

    proptest::proptest! {
        /// Sorting on the entrants' places gives the rows that comparing their names gave,
        /// per direction and with ties.
        #[test]
        fn rows_sorted_by_place_are_rows_sorted_by_name(
            picks in proptest::collection::btree_map(0usize..12, (0u8..3, 0i32..4), 0..12),
        ) {
            let pool = ["1", "2", "10", "02", "010", "A", "a", "B", "1a", " 7", "Z9", "99"];
            let direction = |d: u8| match d {
                0 => None,
                1 => Some(Direction::NS),
                _ => Some(Direction::EW),
            };
            let rows: Vec<Standing> = picks
                .iter()
                .rev()
                .map(|(&name, &(d, score))| {
                    let mut s = Standing::new("c", pool[name].trim(), f64::from(score), 24);
                    s.direction = direction(d);
                    s
                })
                .collect();
            let mut sorted: Vec<&str> = rows.iter().map(|s| s.entrant.as_str()).collect();
            sorted.sort_by(|a, b| entrant_order(a, b));
            let places: Vec<u32> = rows
                .iter()
                .map(|s| sorted.iter().position(|n| *n == s.entrant).unwrap_or(0) as u32)
                .collect();
            let mut placed = rows.clone();
            let before = assign_ranks_placed(&mut placed, &|s: &Standing| s.score, None, &places);
            let mut by_name = rows.clone();
            assign_ranks(&mut by_name, None);
            for (s, &i) in placed.iter().zip(&before) {
                proptest::prop_assert_eq!(&s.entrant, &rows[i].entrant);
            }
            proptest::prop_assert_eq!(placed, by_name);
        }

        #[test]
        fn ranks_are_shared_and_consistent(t in proptest::collection::vec(0i32..5, 1..10)) {
            let totals: Vec<f64> = t.iter().map(|&x| f64::from(x)).collect();
            let r = shared_ranks(&totals);
            for i in 0..t.len() {
                for j in 0..t.len() {
                    proptest::prop_assert_eq!(t[i] > t[j], r[i] < r[j]);
                }
            }
        }
    }
}
