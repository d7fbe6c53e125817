//! Seating plans that clubs actually use, so that board-level samples exercise the
//! scoring engine the way real travellers do: fixed-direction Mitchells with two fields,
//! Howell-style round robins scored as one field, and sit-outs when a pair is missing.
//!
//! A plan only says who sits where with which board set; the caller turns board sets into
//! board numbers and decides the results.

/// One table in one round of a pairs movement. Pairs are numbered from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seating {
    /// 1-based.
    pub round: u32,
    /// 1-based.
    pub table: u32,
    pub ns: usize,
    pub ew: usize,
    /// 0-based board set.
    pub board_set: usize,
}

/// A movement: its seatings and how many board sets are in play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Movement {
    pub pairs: usize,
    pub rounds: u32,
    pub board_sets: usize,
    pub seatings: Vec<Seating>,
}

impl Movement {
    /// Drops every seating of `pair` (a phantom pair whose opponents sit out).
    pub fn without_pair(mut self, pair: usize) -> Self {
        self.seatings.retain(|s| s.ns != pair && s.ew != pair);
        self
    }
}

/// Mitchell for `tables` tables: N/S pair `t` stays at table `t`, E/W pair `t` is the
/// pair numbered `tables + t`. E/W move up one table and the boards down one table each
/// round. With an odd number of tables this runs `tables` rounds and every E/W pair meets
/// every N/S pair and plays every board set once. With an even number E/W skip a table
/// after half the rounds, which only works for `tables − 1` rounds: each E/W pair then
/// misses one N/S pair and one board set, and every board set is still played once per
/// round.
pub fn mitchell(tables: usize) -> Movement {
    let t_n = tables.max(1);
    let rounds = if t_n % 2 == 1 { t_n } else { t_n - 1 }.max(1);
    let half = t_n / 2;
    let mut seatings = Vec::with_capacity(rounds * t_n);
    for r in 0..rounds {
        // Table at which E/W pair e sits in round r: e + r, plus one after the skip.
        let shift = if t_n % 2 == 0 && r >= half { r + 1 } else { r };
        for table in 0..t_n {
            let ew = (table + t_n - shift % t_n) % t_n;
            seatings.push(Seating {
                round: r as u32 + 1,
                table: table as u32 + 1,
                ns: table,
                ew: t_n + ew,
                board_set: (table + r) % t_n,
            });
        }
    }
    Movement {
        pairs: 2 * t_n,
        rounds: rounds as u32,
        board_sets: t_n,
        seatings,
    }
}

/// A complete round robin for an even number of pairs (the circle method): every pair
/// meets every other pair once, over `pairs − 1` rounds, and in each round every table
/// plays the same board set (the club makes copies), so every pair plays every board
/// once and every board is played once at every table. Directions alternate so that each
/// pair sits about as often N/S as E/W, and the field is scored as one.
pub fn round_robin(pairs: usize) -> Movement {
    let n = (pairs + pairs % 2).max(2);
    let m = n - 1;
    let mut seatings = Vec::with_capacity(m * n / 2);
    for r in 0..m {
        // The fixed pair n−1 meets pair r.
        let (a, b) = if r % 2 == 0 { (r, n - 1) } else { (n - 1, r) };
        seatings.push(Seating {
            round: r as u32 + 1,
            table: 1,
            ns: a,
            ew: b,
            board_set: r,
        });
        for k in 1..n / 2 {
            let x = (r + k) % m;
            let y = (r + m - k) % m;
            let (ns, ew) = if k % 2 == 0 { (x, y) } else { (y, x) };
            seatings.push(Seating {
                round: r as u32 + 1,
                table: k as u32 + 1,
                ns,
                ew,
                board_set: r,
            });
        }
    }
    Movement {
        pairs: n,
        rounds: m as u32,
        board_sets: m,
        seatings,
    }
}

/// The matches of a round-robin team event: for each round, the pairs of team indices
/// that meet. With an odd number of teams one team has a bye each round.
pub fn team_rounds(teams: usize) -> Vec<Vec<(usize, usize)>> {
    if teams < 2 {
        return Vec::new();
    }
    round_robin(teams)
        .seatings
        .chunks(teams.div_ceil(2))
        .map(|round| {
            round
                .iter()
                .filter(|s| s.ns < teams && s.ew < teams)
                .map(|s| (s.ns.min(s.ew), s.ns.max(s.ew)))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The board sets played in round `r`.
    fn board_sets(m: &Movement, r: u32) -> BTreeSet<usize> {
        let seatings = m.seatings.iter().filter(|s| s.round == r);
        seatings.map(|s| s.board_set).collect()
    }

    /// The checks every movement must pass: no pair twice in a round, no pair playing a
    /// board set twice, no two tables with the same set in a round unless the movement
    /// shares sets, and each pair of opponents meets at most once.
    fn check_common(m: &Movement) {
        let mut set_by_pair: BTreeSet<(usize, usize)> = BTreeSet::new();
        let mut met: BTreeSet<(usize, usize)> = BTreeSet::new();
        for r in 1..=m.rounds {
            let mut seated = BTreeSet::new();
            for s in m.seatings.iter().filter(|s| s.round == r) {
                assert!(seated.insert(s.ns), "pair {} twice in round {r}", s.ns);
                assert!(seated.insert(s.ew), "pair {} twice in round {r}", s.ew);
                assert!(s.board_set < m.board_sets);
                assert!(set_by_pair.insert((s.ns, s.board_set)));
                assert!(set_by_pair.insert((s.ew, s.board_set)));
                assert!(met.insert((s.ns.min(s.ew), s.ns.max(s.ew))));
            }
        }
    }

    #[test]
    fn odd_mitchell_meets_everyone_and_plays_every_set() {
        for tables in [3, 5, 7, 9, 13] {
            let m = mitchell(tables);
            check_common(&m);
            assert_eq!(m.rounds as usize, tables);
            for ew in tables..2 * tables {
                let opponents: BTreeSet<usize> = m
                    .seatings
                    .iter()
                    .filter(|s| s.ew == ew)
                    .map(|s| s.ns)
                    .collect();
                assert_eq!(opponents.len(), tables);
            }
            // N/S always N/S, E/W always E/W.
            assert!(m.seatings.iter().all(|s| s.ns < tables && s.ew >= tables));
        }
    }

    #[test]
    fn skip_mitchell_plays_each_set_once_per_round() {
        for tables in [4, 6, 8, 10, 14] {
            let m = mitchell(tables);
            check_common(&m);
            assert_eq!(m.rounds as usize, tables - 1);
            for r in 1..=m.rounds {
                let sets = board_sets(&m, r);
                assert_eq!(sets.len(), tables, "round {r}");
            }
        }
    }

    /// Hand-checked 3-table Mitchell, round 2: E/W pair 4 (index 3) has moved up from
    /// table 1 to table 2, and table 2 plays board set 3 (index 2), which table 3 played
    /// in round 1 (boards move down).
    #[test]
    fn three_table_mitchell_by_hand() {
        let m = mitchell(3);
        let r2: Vec<(u32, usize, usize, usize)> = m
            .seatings
            .iter()
            .filter(|s| s.round == 2)
            .map(|s| (s.table, s.ns, s.ew, s.board_set))
            .collect();
        assert_eq!(r2, vec![(1, 0, 5, 1), (2, 1, 3, 2), (3, 2, 4, 0)]);
    }

    #[test]
    fn round_robin_is_complete() {
        for pairs in [4, 6, 8, 10, 12, 14] {
            let m = round_robin(pairs);
            check_common(&m);
            let met: BTreeSet<(usize, usize)> = m
                .seatings
                .iter()
                .map(|s| (s.ns.min(s.ew), s.ns.max(s.ew)))
                .collect();
            assert_eq!(met.len(), pairs * (pairs - 1) / 2);
            for r in 1..=m.rounds {
                let sets = board_sets(&m, r);
                assert_eq!(sets.len(), 1, "every table plays the same set");
            }
            // Directions are balanced within one seat per pair.
            for p in 0..pairs {
                let ns = m.seatings.iter().filter(|s| s.ns == p).count() as i64;
                let ew = m.seatings.iter().filter(|s| s.ew == p).count() as i64;
                assert!(
                    (ns - ew).abs() <= pairs as i64 / 2,
                    "pair {p}: {ns} vs {ew}"
                );
            }
        }
    }

    #[test]
    fn odd_round_robin_gets_a_phantom() {
        let m = round_robin(7).without_pair(7);
        check_common(&m);
        assert_eq!(m.rounds, 7);
        for p in 0..7 {
            assert_eq!(
                m.seatings.iter().filter(|s| s.ns == p || s.ew == p).count(),
                6
            );
        }
    }

    #[test]
    fn team_rounds_pair_every_team_once() {
        for teams in [2, 3, 4, 5, 6] {
            let rounds = team_rounds(teams);
            let all: Vec<(usize, usize)> = rounds.iter().flatten().copied().collect();
            let unique: BTreeSet<(usize, usize)> = all.iter().copied().collect();
            assert_eq!(all.len(), teams * (teams - 1) / 2);
            assert_eq!(unique.len(), all.len());
        }
    }
}
