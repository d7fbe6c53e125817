//! Which competitions may be rated at the same time.
//!
//! A competition only reads and writes the handicaps of its own rated players, so two
//! competitions that share no rated player commute. Each competition gets a *level*: one
//! more than the highest level of any earlier competition of any of its players. All
//! competitions of one level are player-disjoint, and every competition sees exactly the
//! handicaps the plain sequential loop would have shown it. Running the levels in order,
//! each level in parallel, is therefore bit-identical to the sequential replay.

/// Groups competitions (given in replay order, each as the dense indices of its rated
/// players) into levels. Returns, per level, the positions of its competitions in replay
/// order.
pub fn levels<P: AsRef<[u32]>>(players_per_competition: &[P]) -> Vec<Vec<usize>> {
    // Per player: one more than the level of its latest competition (0: none yet).
    let players = players_per_competition
        .iter()
        .flat_map(|p| p.as_ref())
        .map(|&p| p as usize + 1)
        .max()
        .unwrap_or(0);
    let mut next_level = vec![0usize; players];
    let mut levels: Vec<Vec<usize>> = Vec::new();
    for (position, players) in players_per_competition.iter().enumerate() {
        let players = players.as_ref();
        let level = players
            .iter()
            .map(|&p| next_level[p as usize])
            .max()
            .unwrap_or(0);
        for &p in players {
            next_level[p as usize] = level + 1;
        }
        if levels.len() <= level {
            levels.resize_with(level + 1, Vec::new);
        }
        levels[level].push(position);
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn disjoint_competitions_share_a_level() {
        // 0: players 1,2; 1: players 3,4; 2: players 2,3 (after both); 3: player 9.
        let comps = vec![vec![1, 2], vec![3, 4], vec![2, 3], vec![9]];
        assert_eq!(levels(&comps), vec![vec![0, 1, 3], vec![2]]);
    }

    #[test]
    fn a_chain_of_shared_players_is_sequential() {
        let comps = vec![vec![1], vec![1], vec![1]];
        assert_eq!(levels(&comps), vec![vec![0], vec![1], vec![2]]);
    }

    proptest! {
        /// Within a level no player appears twice, and every player's competitions keep
        /// their replay order across levels.
        #[test]
        fn levels_are_disjoint_and_ordered(
            comps in prop::collection::vec(prop::collection::btree_set(0u32..30, 1..6), 0..60)
        ) {
            let comps: Vec<Vec<u32>> = comps.into_iter().map(|s| s.into_iter().collect()).collect();
            let lv = levels(&comps);
            let mut level_of = vec![usize::MAX; comps.len()];
            for (l, members) in lv.iter().enumerate() {
                let mut seen = std::collections::HashSet::new();
                for &c in members {
                    level_of[c] = l;
                    for p in &comps[c] {
                        prop_assert!(seen.insert(*p));
                    }
                }
            }
            prop_assert!(level_of.iter().all(|&l| l != usize::MAX));
            for a in 0..comps.len() {
                for b in (a + 1)..comps.len() {
                    if comps[a].iter().any(|p| comps[b].contains(p)) {
                        prop_assert!(level_of[a] < level_of[b]);
                    }
                }
            }
        }
    }
}
