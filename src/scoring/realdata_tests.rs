//! Checks against figures published by Ruter (Norway) in real club files.
//!
//! The files are read where they lie, outside the repository (never copied): where they
//! are looked for, and what the tests do without them, is `tests/common/realdata.rs`. Only
//! the `ScoreTable` sections are read, with a minimal reader: importing is not this
//! module's job.

use std::path::PathBuf;

use super::conventions::{ArtificialImps, ImpAggregate, MpScale};
use super::outcome::{parse_artificial, Outcome};
use super::{cross_imps, matchpoints};

// The one rule for finding the real club files, shared with the binary-level tests.
#[path = "../../tests/common/realdata.rs"]
mod located;
use located::no_realdata;

fn realdata(relative: &str) -> PathBuf {
    located::realdata().join(relative)
}

/// Each board's rows: (outcome, published N/S points), bye rows left out.
fn score_tables(relative: &str, points_column: &str) -> Vec<(u32, Vec<(Outcome, f64)>)> {
    let path = realdata(relative);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text: String = bytes.iter().map(|&b| b as char).collect(); // ISO-8859-1
    let mut boards = Vec::new();
    let mut board = 0;
    let mut columns: Option<Vec<String>> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("[Board \"") {
            board = rest.trim_end_matches("\"]").parse().unwrap_or(0);
        }
        if let Some(rest) = line.strip_prefix("[ScoreTable \"") {
            columns = Some(
                rest.trim_end_matches("\"]")
                    .split(';')
                    .map(|c| c.split('\\').next().unwrap_or("").to_string())
                    .collect(),
            );
            boards.push((board, Vec::new()));
            continue;
        }
        if line.starts_with('[') || line.trim().is_empty() {
            columns = None;
            continue;
        }
        let Some(cols) = &columns else { continue };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let field = |name: &str| {
            cols.iter()
                .position(|c| c == name)
                .and_then(|i| tokens.get(i))
                .map(|t| t.trim_matches('"'))
                .unwrap_or_else(|| panic!("{relative} board {board}: no {name} in `{line}`"))
        };
        let (ns, ew) = (field("Score_NS"), field("Score_EW"));
        if ns == "Bye" {
            continue;
        }
        let outcome = if ns.starts_with('A') {
            parse_artificial(&format!("{ns}/{ew}")).unwrap_or_else(|e| panic!("{e}"))
        } else if let Ok(s) = ns.parse::<i32>() {
            Outcome::Score(s)
        } else {
            Outcome::Score(
                -ew.parse::<i32>()
                    .unwrap_or_else(|_| panic!("score in `{line}`")),
            )
        };
        let published: f64 = field(points_column)
            .parse()
            .unwrap_or_else(|_| panic!("points in `{line}`"));
        if let Some(last) = boards.last_mut() {
            last.1.push((outcome, published));
        }
    }
    boards
}

/// Ruter, spiren 2015-06-17: 10-pair Howell, 21 boards of 5 results, plus-minus scale.
/// Every published MP_NS is reproduced.
#[test]
fn ruter_matchpoints_every_board() {
    if no_realdata() {
        return;
    }
    let boards = score_tables("pbn/spiren_2015-06-17_mp.pbn", "MP_NS");
    assert_eq!(boards.len(), 21);
    for (board, rows) in boards {
        let outcomes: Vec<Outcome> = rows.iter().map(|r| r.0).collect();
        let scored = matchpoints::score_board(&outcomes, 5, MpScale::PlusMinus, true);
        for ((_, published), mine) in rows.iter().zip(&scored.points) {
            assert!(
                (mine.ns - published).abs() < 1e-9,
                "board {board}: {} vs {published}",
                mine.ns
            );
        }
    }
}

/// Ruter, bridgekam 2015-09-03: 20 pairs, 27 boards, cross-IMPs summed, one `A+`/`A+`.
/// Every published IMP_NS is reproduced.
#[test]
fn ruter_cross_imps_every_board() {
    if no_realdata() {
        return;
    }
    let boards = score_tables("pbn/bridgekam_2015-09-03_crossimp.pbn", "IMP_NS");
    assert_eq!(boards.len(), 27);
    let expected = boards.iter().map(|b| b.1.len()).max().unwrap_or(0);
    for (board, rows) in boards {
        let outcomes: Vec<Outcome> = rows.iter().map(|r| r.0).collect();
        let scored = cross_imps::score_board(
            &outcomes,
            expected,
            ImpAggregate::Sum,
            ArtificialImps::OnePer10Percent,
        );
        for ((_, published), mine) in rows.iter().zip(&scored) {
            assert!(
                (mine.ns - published).abs() < 1e-9,
                "board {board}: {} vs {published}",
                mine.ns
            );
        }
    }
}
