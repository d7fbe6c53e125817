//! Prints what the default synthetic sample holds: competitions by format, scoring and
//! whether they carry board rows, the table sizes, and how many boards were passed out,
//! doubled or given an artificial score.
//!
//!     cargo run --example sample_summary

use std::collections::{BTreeMap, HashSet};

use bridgehcp::synth::{generate, SynthConfig};

fn main() {
    let ds = generate(&SynthConfig::default());
    let with_boards: HashSet<&str> = ds
        .boards
        .iter()
        .map(|b| b.competition_id.as_str())
        .collect();
    let mut kinds: BTreeMap<(String, String, bool), usize> = BTreeMap::new();
    for c in &ds.competitions {
        *kinds
            .entry((
                c.format.to_string(),
                c.scoring.to_string(),
                with_boards.contains(c.competition_id.as_str()),
            ))
            .or_default() += 1;
    }
    for ((format, scoring, boards), n) in kinds {
        let rows = if boards { "board rows" } else { "results only" };
        println!("{format} {scoring} ({rows}): {n}");
    }
    println!(
        "members {} competitions {} entrants {} results {} boards {}",
        ds.members.len(),
        ds.competitions.len(),
        ds.entrants.len(),
        ds.results.len(),
        ds.boards.len()
    );
    let passes = ds
        .boards
        .iter()
        .filter(|b| b.contract.as_deref() == Some("PASS"))
        .count();
    let doubled = ds
        .boards
        .iter()
        .filter(|b| b.contract.as_deref().is_some_and(|c| c.ends_with('X')))
        .count();
    println!(
        "passed out {passes}, doubled {doubled}, adjusted {}",
        ds.boards.iter().filter(|b| b.adjusted.is_some()).count()
    );
}
