//! Four or five pairs on two tables (seed 003).
//!
//! With only two tables there is no field to compare with, so the two tables form a
//! small team match: table 1's N/S score minus table 2's, in IMPs, counts for table 1's
//! N/S pair and table 2's E/W pair, and against the other two. The scoresheet enters a
//! subround's total under the pairs that gained it and nothing under the others. With
//! five pairs the fifth pair sits out each subround and is given the average of the four
//! playing pairs' entries, rounded down.

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 003: four pairs, a round's total of −3 IMPs at table 1 N/S: pairs 1 and 2 each
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

    /// Seed 003, five pairs: the sit-out gets the average entry rounded down, here
    /// (5 + 5 + 0 + 0)/4 = 2.5 → 2, and (0·4)/4 = 0 for a flat subround.
    #[test]
    fn seed_003_sit_out_average() {
        let e = subround_entries(&[("1", 5), ("2", -5), ("3", 5), ("4", -5)], &["5"]);
        assert_eq!(e.last(), Some(&("5".to_string(), 2)));
        let flat = subround_entries(&[("1", 0), ("2", 0), ("3", 0), ("4", 0)], &["5"]);
        assert_eq!(flat.last(), Some(&("5".to_string(), 0)));
    }
}
