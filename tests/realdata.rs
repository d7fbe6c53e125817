//! The importers on real club exports, checked against the figures the clubs' programs
//! published in the same files.
//!
//! The files live outside the repository (their licences do not allow them inside it):
//! `tests/common/realdata.rs` says where they are looked for, and what a test does
//! without them. Each test imports one file and checks
//! * what the import must produce (pairs, members, table results, conventions), and
//! * that the published figures obey the conventions the importer records for the
//!   program (`src/import/pbn.rs`, `src/import/usebio.rs`): matchpoint scale, board
//!   percentages, bye scores, Neuberg factoring, butler datum, cross-IMP aggregation.
//!   Those conventions are what makes scoring the imported data reproduce the figures.
//!
//! and then scores the imported dataset with the engine (`scoring::score_competition`,
//! with nothing but the conventions the importer recorded) and asserts every published
//! traveller line (both sides), bye line, penalty, butler datum, total, percentage, rank
//! and direction, with the published rounding as the tolerance. Two tests run the binary
//! (`import`, then `score`) and read the written standings back.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use bridgehcp::dataset::{Direction, ScoringMethod};
use bridgehcp::import::published::{LineKind, PublishedLine, PublishedStanding};
use bridgehcp::import::{merge, pbn, usebio, Imported};
use bridgehcp::scoring::conventions::{
    ByeScore, DatumRounding, DatumTrim, ImpAggregate, MpScale, Travellers,
};
use bridgehcp::scoring::{matchpoints, score_competition, BoardScore, ScoredCompetition};

mod common;
use common::{no_realdata, realdata};

fn import_pbn(name: &str) -> Imported {
    let path = realdata().join("pbn").join(name);
    pbn::parse(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn import_usebio(name: &str) -> Imported {
    let path = realdata().join("usebio").join(name);
    usebio::parse(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn points(line: &PublishedLine, direction: Direction) -> f64 {
    match direction {
        Direction::NS => line.ns_points,
        Direction::EW => line.ew_points,
    }
    .unwrap_or_else(|| panic!("line {:?} has no {direction} points", line.origin.row))
}

/// Each pair's published lines on one board, with its direction.
fn lines_of<'a>(lines: &'a [PublishedLine], pair: &str) -> Vec<(&'a PublishedLine, Direction)> {
    lines
        .iter()
        .filter_map(|l| {
            if l.ns.as_deref() == Some(pair) {
                Some((l, Direction::NS))
            } else if l.ew.as_deref() == Some(pair) {
                Some((l, Direction::EW))
            } else {
                None
            }
        })
        .collect()
}

/// Shared ranks (1, 2, 2, 4) by score, highest first, within `group`.
fn shared_ranks(standings: &[PublishedStanding], group: impl Fn(&PublishedStanding) -> u8) {
    for s in standings {
        let better = standings
            .iter()
            .filter(|o| group(o) == group(s) && o.score > s.score + 1e-9)
            .count();
        assert_eq!(
            s.rank as usize,
            better + 1,
            "pair {} ranks {} with {}",
            s.entrant,
            s.rank,
            s.score
        );
    }
}

/// How many tables played each board (artificial scores included).
fn tables_per_board(lines: &[PublishedLine]) -> BTreeMap<u32, usize> {
    let mut count = BTreeMap::new();
    for l in lines {
        if matches!(l.kind, LineKind::Played | LineKind::Artificial) {
            *count.entry(l.board).or_insert(0) += 1;
        }
    }
    count
}

fn round_half_up(x: f64) -> f64 {
    (x + 0.5).floor()
}

/// Ruter's ± matchpoints: each board's points and whole-number percentage, each pair's
/// total and 2-decimal percentage, and the ranks.
fn check_ruter_matchpoints(imported: &Imported, boards: u32) {
    let published = &imported.published;
    let tables = tables_per_board(&published.lines);
    let top = |board: u32| tables.get(&board).copied().unwrap_or(0) as f64 - 1.0;
    for l in published
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Played)
    {
        for direction in [Direction::NS, Direction::EW] {
            let mp = points(l, direction);
            assert!(
                mp.abs() <= top(l.board) + 1e-9,
                "line {:?} beyond the top",
                l.origin.row
            );
            let shown = match direction {
                Direction::NS => l.ns_percent,
                Direction::EW => l.ew_percent,
            };
            let expected = round_half_up(50.0 + 50.0 * mp / top(l.board));
            assert_eq!(
                shown,
                Some(expected),
                "percentage on line {:?}",
                l.origin.row
            );
        }
        assert!((points(l, Direction::NS) + points(l, Direction::EW)).abs() < 1e-9);
    }
    for s in &published.standings {
        let full_top = 4.0;
        let percent = s.percent.expect("Ruter prints a percentage");
        let expected = 50.0 + 50.0 * s.score / (f64::from(boards) * full_top);
        // The total is printed to 1 decimal, the percentage from the exact total.
        assert!(
            (expected - percent).abs() < 0.005 + 50.0 * 0.05 / (f64::from(boards) * full_top),
            "pair {}: {percent} % for {}",
            s.entrant,
            s.score
        );
    }
    shared_ranks(&published.standings, |_| 0);
}

#[test]
fn ruter_2015_06_17_matchpoint_howell() {
    if no_realdata() {
        return;
    }
    let imported = import_pbn("spiren_2015-06-17_mp.pbn");
    let d = &imported.dataset;
    let c = &d.competitions[0];
    assert_eq!(c.competition_id, "pbn-2015-06-17-0179-spiren-bk-218");
    assert_eq!(c.scoring, ScoringMethod::Matchpoints);
    assert_eq!(c.boards, Some(21));
    assert_eq!(c.title.as_deref(), Some("Spiren"));
    assert_eq!(c.conventions.mp_scale, MpScale::PlusMinus);
    assert_eq!(c.conventions.imp_aggregate, ImpAggregate::Sum);
    assert_eq!(c.conventions.bye_score, ByeScore::SessionAverage);
    assert_eq!(
        (d.entrants.len(), d.members.len(), d.boards.len()),
        (10, 20, 105)
    );
    assert!(d.entrants.iter().all(|e| e.direction.is_none()), "a Howell");
    let medboe = d
        .members
        .iter()
        .find(|m| m.member_id == 40347)
        .expect("member 40347");
    assert_eq!(medboe.name.as_deref(), Some("Steinar Medbøe"));
    assert_eq!(medboe.club.as_deref(), Some("BK Vest Oslo"));
    // Board 1, table 4: 3D by N, 10 tricks, +130, the top (+4, 100 %).
    let first = &d.boards[0];
    assert_eq!(
        (
            first.board,
            first.contract.as_deref(),
            first.declarer.as_deref()
        ),
        (1, Some("3D"), Some("N"))
    );
    assert_eq!((first.tricks, first.ns_score), (Some(10), Some(130)));

    check_ruter_matchpoints(&imported, 21);
    // Every total is the sum of the pair's board points (all integers here).
    for s in &imported.published.standings {
        let sum: f64 = lines_of(&imported.published.lines, &s.entrant)
            .iter()
            .map(|(l, d)| points(l, *d))
            .sum();
        assert!((sum - s.score).abs() < 1e-9, "pair {}", s.entrant);
        assert_eq!(s.boards_played, Some(21));
    }
    let winners = &imported.published.standings[0];
    assert_eq!((winners.entrant.as_str(), winners.rank), ("5", 1));
    assert!((winners.percent.unwrap_or_default() - 65.48).abs() < 1e-9);
}

#[test]
fn ruter_2016_08_10_byes_adjusted_score_penalty_passed_out() {
    if no_realdata() {
        return;
    }
    let imported = import_pbn("spiren_2016-08-10_mp_bye_adjusted.pbn");
    let d = &imported.dataset;
    let published = &imported.published;
    assert_eq!(d.entrants.len(), 11, "11 pairs; the phantom has no row");
    assert_eq!(d.competitions[0].boards, Some(24));
    let kind_count = |kind| published.lines.iter().filter(|l| l.kind == kind).count();
    assert_eq!(kind_count(LineKind::Bye), 24);
    assert_eq!(kind_count(LineKind::Penalty), 1);
    assert_eq!(kind_count(LineKind::Artificial), 1);
    assert_eq!(
        d.boards.len(),
        kind_count(LineKind::Played) + kind_count(LineKind::Artificial)
    );

    // Board 11, table 2: `A=` for N/S 6, `+0` for E/W 10. The score 0 stays in the other
    // tables' comparisons, so it is imported as a split score: N/S 50 %, E/W the score.
    // The `Pen` row of the same pairs (+4.0 for N/S 6) becomes that row's penalties.
    let split = d
        .boards
        .iter()
        .find(|b| b.board == 11 && b.ns.as_deref() == Some("6"))
        .expect("board 11, pairs 6-10");
    assert_eq!(
        (split.ns_score, split.adjusted.as_deref()),
        (Some(0), Some("A50/S"))
    );
    assert_eq!((split.ns_penalty, split.ew_penalty), (Some(4.0), Some(0.0)));

    // Board 24 was passed out at every table.
    let passed: Vec<_> = d.boards.iter().filter(|b| b.board == 24).collect();
    assert_eq!(passed.len(), 5);
    assert!(passed
        .iter()
        .all(|b| b.contract.as_deref() == Some("PASS") && b.ns_score == Some(0)));

    check_ruter_matchpoints(&imported, 24);

    // Byes: the pair's own average over the boards it played (penalty rows aside), shown
    // to 1 decimal; the total adds the bye boards at that average and the penalty.
    for s in &published.standings {
        let lines = lines_of(&published.lines, &s.entrant);
        let played: Vec<f64> = lines
            .iter()
            .filter(|(l, _)| matches!(l.kind, LineKind::Played | LineKind::Artificial))
            .map(|(l, d)| points(l, *d))
            .collect();
        let average = played.iter().sum::<f64>() / played.len() as f64;
        let byes: Vec<f64> = lines
            .iter()
            .filter(|(l, _)| l.kind == LineKind::Bye)
            .map(|(l, d)| points(l, *d))
            .collect();
        for shown in &byes {
            assert!(
                (shown - average).abs() <= 0.05 + 1e-9,
                "pair {} bye",
                s.entrant
            );
        }
        let penalty: f64 = lines
            .iter()
            .filter(|(l, _)| l.kind == LineKind::Penalty)
            .map(|(l, d)| points(l, *d))
            .sum();
        assert!(
            (penalty - s.penalty.unwrap_or(0.0)).abs() < 1e-9,
            "pair {}",
            s.entrant
        );
        let total = played.iter().sum::<f64>() + average * byes.len() as f64 + penalty;
        assert!(
            (total - s.score).abs() <= 0.05 + 1e-9,
            "pair {} total",
            s.entrant
        );
        let percent = 50.0 + 50.0 * total / (24.0 * 4.0);
        assert!(
            (percent - s.percent.unwrap_or_default()).abs() < 0.005,
            "pair {}: {percent} vs {:?}",
            s.entrant,
            s.percent
        );
    }
    // Pair 12: −27.0 over 21 boards, −27/21 on each of 3 byes: −30.86, 33.93 %.
    let twelve = published
        .standings
        .iter()
        .find(|s| s.entrant == "12")
        .expect("pair 12");
    assert!((twelve.score - -30.9).abs() < 1e-9);
    assert!((twelve.percent.unwrap_or_default() - 33.93).abs() < 1e-9);
}

#[test]
fn ruter_2015_09_03_cross_imps_summed_with_artificial_scores() {
    if no_realdata() {
        return;
    }
    let imported = import_pbn("bridgekam_2015-09-03_crossimp.pbn");
    let d = &imported.dataset;
    let published = &imported.published;
    assert_eq!(d.competitions[0].scoring, ScoringMethod::CrossImps);
    assert_eq!(
        d.competitions[0].conventions.imp_aggregate,
        ImpAggregate::Sum
    );
    assert_eq!((d.entrants.len(), d.boards.len()), (20, 270));
    // `+000` is no federation number: pair 15 has one member.
    let fifteen = d
        .entrants
        .iter()
        .find(|e| e.entrant == "15")
        .expect("pair 15");
    assert_eq!(fifteen.players, [Some(27817), None, None, None]);
    assert_eq!(d.members.len(), 39);

    // Board 2, table 1: A+ / A+, +9 IMPs each side (one per comparison of nine).
    let artificial = d
        .boards
        .iter()
        .find(|b| b.adjusted.is_some())
        .expect("A+ row");
    assert_eq!(
        (artificial.board, artificial.adjusted.as_deref()),
        (2, Some("A6060"))
    );
    assert_eq!(artificial.ns_score, None);
    let line = published
        .lines
        .iter()
        .find(|l| l.kind == LineKind::Artificial)
        .expect("A+ line");
    assert_eq!((line.ns_points, line.ew_points), (Some(9.0), Some(9.0)));

    // Board 1: 480 against 450 ×4, 130, 100, 50 ×2 and −50: 4·1 + 8 + 9 + 2·10 + 11 = 52.
    let top = &published.lines[0];
    assert_eq!((top.board, top.ns_points), (1, Some(52.0)));

    for s in &published.standings {
        let sum: f64 = lines_of(&published.lines, &s.entrant)
            .iter()
            .map(|(l, d)| points(l, *d))
            .sum();
        assert!((sum - s.score).abs() < 1e-9, "pair {}", s.entrant);
        assert_eq!(s.percent, None);
    }
    shared_ranks(&published.standings, |_| 0);
}

/// Compscore's Neuberg: `(s + 1)·N/n − 1` on the 2/1 scale.
fn neuberg(score: f64, results: f64, expected: f64) -> f64 {
    (score + 1.0) * expected / results - 1.0
}

/// Compscore's matchpoint totals: travellers unfactored, boards played fewer times
/// factored by Neuberg in the totals, and a pair that played fewer boards than the most
/// any pair of its direction played scaled up to that number (a board its table missed),
/// while a sit-out that every pair of a direction has is not scaled.
fn check_compscore_matchpoints(imported: &Imported) {
    let published = &imported.published;
    let tables = tables_per_board(&published.lines);
    let most = tables.values().copied().max().unwrap_or(0) as f64;
    let top = 2.0 * (most - 1.0);
    let mut most_played: BTreeMap<Option<Direction>, usize> = BTreeMap::new();
    for s in &published.standings {
        let played = lines_of(&published.lines, &s.entrant).len();
        let entry = most_played.entry(s.direction).or_insert(0);
        *entry = (*entry).max(played);
    }
    for s in &published.standings {
        let direction = s
            .direction
            .expect("two winners: every pair has a direction");
        let lines = lines_of(&published.lines, &s.entrant);
        let factored: f64 = lines
            .iter()
            .map(|(l, d)| {
                let n = tables.get(&l.board).copied().unwrap_or(0) as f64;
                neuberg(points(l, *d), n, most)
            })
            .sum();
        let played = lines.len() as f64;
        let over = most_played.get(&s.direction).copied().unwrap_or(0) as f64;
        let total = factored * over / played;
        // Narrow exception: on board 15 of the 19-table Mitchell (18 results) the sole
        // top (8NS, 34) and bottom (2EW, 0) come out of Neuberg as 35.944 and 0.056, but
        // Compscore's totals say 456.95 and 416.05 (455 + 1.95, 416 + 0.05): 0.006 off
        // Neuberg for these two pairs only, which no rounding of the other 36 explains.
        let tolerance = if published.competition_id == "usebio-2022-07-11-2074-3212"
            && matches!(s.entrant.as_str(), "8NS" | "2EW")
        {
            0.0065
        } else {
            0.005
        };
        assert!(
            (total - s.score).abs() < tolerance + 1e-9,
            "pair {}",
            s.entrant
        );
        let percent = 100.0 * total / (over * top);
        let shown = s.percent.unwrap_or_default();
        assert!(
            (percent - shown).abs() < 0.005 + 1e-9,
            "pair {} {percent}",
            s.entrant
        );
        assert!(lines.iter().all(|(_, d)| *d == direction));
    }
    shared_ranks(&published.standings, |s| match s.direction {
        Some(Direction::NS) => 0,
        Some(Direction::EW) => 1,
        None => 2,
    });
}

#[test]
fn compscore_matchpoint_mitchell_with_a_board_played_once_fewer() {
    if no_realdata() {
        return;
    }
    let imported = import_usebio("mp_pairs_mitchell.xml");
    let d = &imported.dataset;
    let c = &d.competitions[0];
    assert_eq!(c.competition_id, "usebio-2022-07-11-2074-3212");
    assert_eq!(c.boards, Some(27));
    assert_eq!(c.conventions.mp_scale, MpScale::TwoOne);
    // 76 players, one of them the `DIRECTOR` filling in with national number 0: no member.
    assert_eq!(
        (d.entrants.len(), d.members.len(), d.boards.len()),
        (38, 75, 512)
    );
    assert!(
        d.entrants.iter().all(|e| e.direction.is_some()),
        "two winners"
    );
    let tables = tables_per_board(&imported.published.lines);
    assert_eq!(tables.get(&15), Some(&18));
    assert!(tables.iter().all(|(b, n)| *b == 15 || *n == 19));
    // Board 15's travellers are printed unfactored: the top is 34, not 36.
    let board15: Vec<f64> = imported
        .published
        .lines
        .iter()
        .filter(|l| l.board == 15)
        .map(|l| points(l, Direction::NS) + points(l, Direction::EW))
        .collect();
    assert!(board15.iter().all(|sum| (sum - 34.0).abs() < 1e-9));
    check_compscore_matchpoints(&imported);
    // Two winners: 4NS 61.34 % and 5EW 60.78 %.
    let winners: Vec<&str> = imported
        .published
        .standings
        .iter()
        .filter(|s| s.rank == 1)
        .map(|s| s.entrant.as_str())
        .collect();
    assert_eq!(winners, ["4NS", "5EW"]);
}

#[test]
fn compscore_matchpoint_mitchell_with_a_sit_out_every_round() {
    if no_realdata() {
        return;
    }
    let imported = import_usebio("mp_pairs_mitchell_03.xml");
    let d = &imported.dataset;
    assert_eq!(
        d.competitions[0].conventions.bye_score,
        ByeScore::MostInDirection
    );
    assert_eq!(
        d.competitions[0].conventions.travellers,
        Travellers::Unfactored
    );
    assert_eq!((d.entrants.len(), d.boards.len()), (13, 126));
    // N/S pairs sit out 3 of 21 boards and are scored over the 18 they played:
    // 1NS 97 of 180 = 53.89 %.
    check_compscore_matchpoints(&imported);
}

#[test]
fn compscore_cross_imps_are_averaged() {
    if no_realdata() {
        return;
    }
    let imported = import_usebio("cross_imp_howell.xml");
    let d = &imported.dataset;
    let c = &d.competitions[0];
    assert_eq!(c.scoring, ScoringMethod::CrossImps);
    assert_eq!(c.conventions.imp_aggregate, ImpAggregate::Average);
    assert_eq!((d.entrants.len(), d.boards.len()), (9, 108));
    assert!(d.entrants.iter().all(|e| e.direction.is_none()), "a Howell");
    // Four results a board: each line is a sum of IMPs over 3 comparisons, divided by 3.
    for l in &imported.published.lines {
        let thirds = points(l, Direction::NS) * 3.0;
        assert!(
            (thirds - thirds.round()).abs() < 0.02,
            "line {:?}",
            l.origin.row
        );
    }
    for s in &imported.published.standings {
        let lines = lines_of(&imported.published.lines, &s.entrant);
        let sum: f64 = lines.iter().map(|(l, d)| points(l, *d)).sum();
        // Lines are printed to 2 decimals, totals from the exact values.
        assert!(
            (sum - s.score).abs() <= 0.005 * lines.len() as f64,
            "pair {}",
            s.entrant
        );
    }
    shared_ranks(&imported.published.standings, |_| 0);
}

#[test]
fn compscore_butler_datum_drops_one_top_and_bottom_and_rounds_to_10() {
    if no_realdata() {
        return;
    }
    let imported = import_usebio("butler_howell.xml");
    let d = &imported.dataset;
    let c = &d.competitions[0];
    assert_eq!(c.scoring, ScoringMethod::Butler);
    assert_eq!(c.conventions.datum_trim, DatumTrim::TopAndBottom);
    assert_eq!(c.conventions.datum_rounding, DatumRounding::Nearest10);
    assert_eq!((d.entrants.len(), d.boards.len()), (8, 140));
    assert_eq!(imported.published.datums.len(), 35);
    for datum in &imported.published.datums {
        let mut scores: Vec<i32> = d
            .boards
            .iter()
            .filter(|b| b.board == datum.board)
            .filter_map(|b| b.ns_score)
            .collect();
        scores.sort_unstable();
        let kept = &scores[1..scores.len() - 1];
        let mean = f64::from(kept.iter().sum::<i32>()) / kept.len() as f64;
        let rounded = round_half_up((mean / 10.0).abs()) * 10.0 * mean.signum();
        assert!(
            (rounded - datum.datum).abs() < 1e-9,
            "board {}",
            datum.board
        );
    }
    for s in &imported.published.standings {
        let sum: f64 = lines_of(&imported.published.lines, &s.entrant)
            .iter()
            .map(|(l, d)| points(l, *d))
            .sum();
        assert!((sum - s.score).abs() < 1e-9, "pair {}", s.entrant);
    }
    shared_ranks(&imported.published.standings, |_| 0);
}

#[test]
fn every_file_merges_into_one_dataset_and_twice_is_refused() {
    if no_realdata() {
        return;
    }
    let dir = realdata();
    let mut fragments = Vec::new();
    let mut ids = BTreeSet::new();
    for kind in ["pbn", "usebio"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(kind))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .collect();
        files.sort();
        for file in files {
            let imported = match kind {
                "pbn" => pbn::parse(&file),
                _ => usebio::parse(&file),
            }
            .unwrap_or_else(|e| panic!("{e}"));
            assert!(ids.insert(imported.published.competition_id.clone()));
            fragments.push(imported.dataset);
        }
    }
    // 3 PBN and 5 USEBIO files.
    assert_eq!(fragments.len(), 8);
    let merged = merge(fragments.clone()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(merged.competitions.len(), 8);
    let again = fragments[0].clone();
    fragments.push(again);
    let e = merge(fragments).expect_err("the same file twice");
    assert!(e.rule.contains("already imported"), "{}", e.rule);
}

// ---------------------------------------------------------------------------------------
// The engine on the imported data, against every published figure.
// ---------------------------------------------------------------------------------------

/// The printed precision of a program's figures, as tolerances (half the last digit).
#[derive(Clone, Copy)]
struct Printed {
    /// Traveller lines (and bye lines).
    line: f64,
    /// Entrant totals.
    total: f64,
    /// Entrant percentages.
    percent: f64,
}

/// Ruter: lines and totals to 1 decimal, percentages to 2.
const RUTER: Printed = Printed {
    line: 0.05,
    total: 0.05,
    percent: 0.005,
};

/// Compscore: everything to 2 decimals.
const COMPSCORE: Printed = Printed {
    line: 0.005,
    total: 0.005,
    percent: 0.005,
};

const EPS: f64 = 1e-9;

fn score(imported: &Imported) -> ScoredCompetition {
    let d = &imported.dataset;
    let competition = d.competitions.first().expect("one competition");
    score_competition(competition, &d.entrants, &d.boards).unwrap_or_else(|e| panic!("{e}"))
}

fn engine_line<'a>(scored: &'a ScoredCompetition, line: &PublishedLine) -> &'a BoardScore {
    scored
        .board_scores
        .iter()
        .find(|b| {
            b.board == line.board
                && b.ns.as_deref() == line.ns.as_deref()
                && b.ew.as_deref() == line.ew.as_deref()
        })
        .unwrap_or_else(|| {
            panic!(
                "no scored table for line {:?}: board {} {:?}-{:?}",
                line.origin.row, line.board, line.ns, line.ew
            )
        })
}

fn results_on(scored: &ScoredCompetition, board: u32) -> usize {
    scored
        .board_scores
        .iter()
        .filter(|b| b.board == board)
        .count()
}

/// Every published table line (played or artificial) is a scored table with the same
/// points on both sides, and every scored table is published. Where the program prints a
/// board percentage (Ruter), the engine's points give the same whole number.
fn check_lines(imported: &Imported, scored: &ScoredCompetition, printed: Printed) {
    let tables: Vec<&PublishedLine> = imported
        .published
        .lines
        .iter()
        .filter(|l| matches!(l.kind, LineKind::Played | LineKind::Artificial))
        .collect();
    assert_eq!(tables.len(), scored.board_scores.len(), "tables scored");
    for line in tables {
        let engine = engine_line(scored, line);
        for (direction, mine, percent) in [
            (Direction::NS, engine.ns_points, line.ns_percent),
            (Direction::EW, engine.ew_points, line.ew_percent),
        ] {
            let published = points(line, direction);
            assert!(
                (mine - published).abs() <= printed.line + EPS,
                "line {:?}, board {} {direction}: engine {mine}, published {published}",
                line.origin.row,
                line.board
            );
            if let Some(shown) = percent {
                let results = results_on(scored, line.board);
                assert_eq!(
                    matchpoints::ruter_board_percent(mine, results),
                    Some(shown),
                    "line {:?} {direction} percentage",
                    line.origin.row
                );
            }
        }
    }
}

/// Every published total, percentage, rank and direction, entrant by entrant.
/// `exceptions` names entrants whose total is off by more than the printed rounding,
/// with the tolerance their test explains.
fn check_standings(
    imported: &Imported,
    scored: &ScoredCompetition,
    printed: Printed,
    exceptions: &[(&str, f64)],
) {
    let published = &imported.published.standings;
    assert_eq!(published.len(), scored.standings.len(), "entrants ranked");
    for p in published {
        let mine = scored
            .standings
            .iter()
            .find(|s| s.entrant == p.entrant)
            .unwrap_or_else(|| panic!("entrant {} not scored", p.entrant));
        let tolerance = exceptions
            .iter()
            .find(|(name, _)| *name == p.entrant)
            .map_or(printed.total, |(_, t)| *t);
        assert!(
            (mine.score - p.score).abs() <= tolerance + EPS,
            "entrant {}: engine {}, published {}",
            p.entrant,
            mine.score,
            p.score
        );
        match (p.percent, mine.percent) {
            (Some(shown), Some(engine)) => assert!(
                (engine - shown).abs() <= printed.percent + EPS,
                "entrant {}: engine {engine} %, published {shown} %",
                p.entrant
            ),
            (None, _) => {}
            (Some(shown), None) => {
                panic!("entrant {}: no percentage, published {shown}", p.entrant)
            }
        }
        assert_eq!(mine.rank, p.rank, "entrant {} rank", p.entrant);
        if p.direction.is_some() {
            assert_eq!(mine.direction, p.direction, "entrant {}", p.entrant);
        }
        if let Some(boards) = p.boards_played {
            // Ruter prints the session's boards for everyone (byes included).
            assert!(mine.boards_played <= boards, "entrant {}", p.entrant);
        }
    }
}

/// Ruter's bye lines: the pair's own average over the tables it played, from the engine's
/// points, to 1 decimal, and its board percentage.
fn check_bye_lines(imported: &Imported, scored: &ScoredCompetition) {
    for line in imported
        .published
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Bye)
    {
        let (pair, direction) = match (&line.ns, &line.ew) {
            (Some(ns), None) => (ns, Direction::NS),
            (None, Some(ew)) => (ew, Direction::EW),
            _ => panic!("bye line {:?} with two pairs", line.origin.row),
        };
        let mine: Vec<f64> = scored
            .board_scores
            .iter()
            .filter_map(|b| {
                if b.ns.as_deref() == Some(pair.as_str()) {
                    Some(b.ns_points)
                } else if b.ew.as_deref() == Some(pair.as_str()) {
                    Some(b.ew_points)
                } else {
                    None
                }
            })
            .collect();
        let average = mine.iter().sum::<f64>() / mine.len() as f64;
        let published = points(line, direction);
        assert!(
            (average - published).abs() <= RUTER.line + EPS,
            "bye line {:?}: pair {pair} averages {average}, published {published}",
            line.origin.row
        );
        let shown = match direction {
            Direction::NS => line.ns_percent,
            Direction::EW => line.ew_percent,
        };
        // 50 + 50·average/top with the board's top, rounded half up.
        assert_eq!(
            matchpoints::ruter_board_percent(average, results_on(scored, line.board)),
            shown,
            "bye line {:?}",
            line.origin.row
        );
    }
}

#[test]
fn engine_reproduces_ruter_2015_06_17_matchpoints() {
    if no_realdata() {
        return;
    }
    let imported = import_pbn("spiren_2015-06-17_mp.pbn");
    let scored = score(&imported);
    check_lines(&imported, &scored, RUTER);
    check_standings(&imported, &scored, RUTER, &[]);
    // Pair 5 wins with 65.48 %: +26 over 21 boards with a top of 4 each.
    let winner = &scored.standings[0];
    assert_eq!((winner.entrant.as_str(), winner.rank), ("5", 1));
    assert!((winner.score - 26.0).abs() < EPS);
    assert!((winner.percent.unwrap_or_default() - (50.0 + 50.0 * 26.0 / 84.0)).abs() < EPS);
}

#[test]
fn engine_reproduces_ruter_2016_08_10_byes_split_score_and_penalty() {
    if no_realdata() {
        return;
    }
    let imported = import_pbn("spiren_2016-08-10_mp_bye_adjusted.pbn");
    let scored = score(&imported);
    check_lines(&imported, &scored, RUTER);
    check_bye_lines(&imported, &scored);
    check_standings(&imported, &scored, RUTER, &[]);
    // The penalty line (+4.0 for N/S 6, 0.0 for E/W 10) is in the table row it belongs
    // to and in pair 6's total: 0.0 on the boards and byes, +4.0, 52.08 %.
    let penalty = imported
        .published
        .lines
        .iter()
        .find(|l| l.kind == LineKind::Penalty)
        .expect("the Pen line");
    let row = imported
        .dataset
        .boards
        .iter()
        .find(|b| {
            b.board == penalty.board
                && b.ns.as_deref() == penalty.ns.as_deref()
                && b.ew.as_deref() == penalty.ew.as_deref()
        })
        .expect("its table");
    assert_eq!(
        (row.ns_penalty, row.ew_penalty),
        (penalty.ns_points, penalty.ew_points)
    );
    let six = scored
        .standings
        .iter()
        .find(|s| s.entrant == "6")
        .expect("pair 6");
    assert!((six.score - 4.0).abs() < 0.05);
    assert!((six.percent.unwrap_or_default() - 52.08).abs() < 0.005);
    // Board 11: the split table. N/S 6 gets A= (0.0, 50 %), E/W 10 the bottom for its 0.
    let split = scored
        .board_scores
        .iter()
        .find(|b| b.board == 11 && b.ns.as_deref() == Some("6"))
        .expect("board 11, 6-10");
    assert_eq!(split.ns_score, Some(0));
    assert!(split.ns_points.abs() < EPS && (split.ew_points + 4.0).abs() < EPS);
    // Pair 12: −27.0 over 21 boards, −27/21 on each of 3 byes: −30.86, 33.93 %.
    let twelve = scored
        .standings
        .iter()
        .find(|s| s.entrant == "12")
        .expect("pair 12");
    assert!((twelve.score - (-27.0 * 24.0 / 21.0)).abs() < EPS);
    assert_eq!(twelve.boards_played, 21);
}

#[test]
fn engine_reproduces_ruter_2015_09_03_summed_cross_imps() {
    if no_realdata() {
        return;
    }
    let imported = import_pbn("bridgekam_2015-09-03_crossimp.pbn");
    let scored = score(&imported);
    check_lines(&imported, &scored, RUTER);
    check_standings(&imported, &scored, RUTER, &[]);
    // Board 1: 480 against the other nine results, 52 IMPs; board 2's A+/A+: +9 each side.
    let top = engine_line(&scored, &imported.published.lines[0]);
    assert!((top.ns_points - 52.0).abs() < EPS);
    let artificial = scored
        .board_scores
        .iter()
        .find(|b| b.ns_score.is_none())
        .expect("A+ table");
    assert_eq!(artificial.board, 2);
    assert!((artificial.ns_points - 9.0).abs() < EPS && (artificial.ew_points - 9.0).abs() < EPS);
}

#[test]
fn engine_reproduces_compscore_mitchell_with_a_board_played_once_fewer() {
    if no_realdata() {
        return;
    }
    let imported = import_usebio("mp_pairs_mitchell.xml");
    let scored = score(&imported);
    // Board 15 was played 18 times: the travellers show the unfactored points (top 34).
    check_lines(&imported, &scored, COMPSCORE);
    // On board 15 (18 results where 19 were due) the sole top (8NS, 34) and bottom (2EW,
    // 0) come out of Neuberg as 35.944 and 0.056; Compscore's totals add 35.95 and 0.05
    // (`factored_rounding = percent_hundredths`: 99.85 % and 0.15 % of 36, to two
    // decimals), while its percentages keep the exact scores.
    check_standings(&imported, &scored, COMPSCORE, &[]);
    for (pair, total, percent) in [("8NS", 456.95, 47.01), ("2EW", 416.05, 42.80)] {
        let s = scored
            .standings
            .iter()
            .find(|s| s.entrant == pair)
            .expect("pair scored");
        assert!((s.score - total).abs() < 1e-9, "{pair}: {}", s.score);
        assert!(
            (s.percent.unwrap_or_default() - percent).abs() < 0.005,
            "{pair}"
        );
    }
    // 13NS: 505 + 4.28 in the total, but 52.39 % from 505 + 4.2778 (52.3949), where
    // the rounded total would give 52.3951 and print 52.40.
    let thirteen = scored
        .standings
        .iter()
        .find(|s| s.entrant == "13NS")
        .expect("13NS");
    assert!((thirteen.score - 509.28).abs() < 1e-9, "{}", thirteen.score);
    assert!((thirteen.percent.unwrap_or_default() - 52.3949).abs() < 1e-4);
    // 1NS: 441 on the travellers, 442.22 with board 15 factored.
    let one = scored
        .standings
        .iter()
        .find(|s| s.entrant == "1NS")
        .expect("1NS");
    assert!((one.score - 442.22).abs() < 0.005);
    // 9EW missed board 15: 555 (factored) over 26 boards scaled to 27.
    let nine = scored
        .standings
        .iter()
        .find(|s| s.entrant == "9EW")
        .expect("9EW");
    assert_eq!(nine.boards_played, 26);
    assert!((nine.score - 576.35).abs() < 0.005);
    let winners: Vec<&str> = scored
        .standings
        .iter()
        .filter(|s| s.rank == 1)
        .map(|s| s.entrant.as_str())
        .collect();
    assert_eq!(winners, ["4NS", "5EW"]);
}

#[test]
fn engine_reproduces_compscore_mitchell_with_a_sit_out_every_round() {
    if no_realdata() {
        return;
    }
    let imported = import_usebio("mp_pairs_mitchell_03.xml");
    let scored = score(&imported);
    check_lines(&imported, &scored, COMPSCORE);
    check_standings(&imported, &scored, COMPSCORE, &[]);
    // N/S pairs sit out 3 of 21 boards and are not scaled: 1NS 97 of 180 = 53.89 %.
    let one = scored
        .standings
        .iter()
        .find(|s| s.entrant == "1NS")
        .expect("1NS");
    assert_eq!(one.boards_played, 18);
    assert!((one.score - 97.0).abs() < EPS);
    assert!((one.percent.unwrap_or_default() - 9700.0 / 180.0).abs() < EPS);
}

#[test]
fn engine_reproduces_compscore_averaged_cross_imps() {
    if no_realdata() {
        return;
    }
    let imported = import_usebio("cross_imp_howell.xml");
    let scored = score(&imported);
    check_lines(&imported, &scored, COMPSCORE);
    check_standings(&imported, &scored, COMPSCORE, &[]);
}

#[test]
fn engine_reproduces_compscore_butler_with_every_datum() {
    if no_realdata() {
        return;
    }
    let imported = import_usebio("butler_howell.xml");
    let scored = score(&imported);
    check_lines(&imported, &scored, COMPSCORE);
    check_standings(&imported, &scored, COMPSCORE, &[]);
    assert_eq!(imported.published.datums.len(), 35);
    for datum in &imported.published.datums {
        let rows: Vec<&BoardScore> = scored
            .board_scores
            .iter()
            .filter(|b| b.board == datum.board)
            .collect();
        assert!(!rows.is_empty(), "board {}", datum.board);
        for row in rows {
            assert_eq!(row.datum, Some(datum.datum), "board {}", datum.board);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The binary: `import`, then `score`, then the written standings.
// ---------------------------------------------------------------------------------------

/// One row of the written `standings.parquet`.
struct Written {
    entrant: String,
    score: f64,
    percent: Option<f64>,
    rank: i32,
    direction: Option<String>,
}

/// Runs `bridgehcp import <format> <file> --out <dataset>` and `bridgehcp score --data
/// <dataset> --out <scored>`, and reads `standings.parquet` back. The dataset goes through Parquet on the
/// way, so the conventions, split score and penalty columns must survive the round trip.
fn import_and_score(format: &str, file: &Path) -> Vec<Written> {
    use polars::prelude::{ParquetReader, SerReader};
    let dataset = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let scored = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let run = |args: &[&std::ffi::OsStr]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run bridgehcp: {e}"));
        assert!(
            output.status.success(),
            "bridgehcp {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    run(&[
        "import".as_ref(),
        format.as_ref(),
        file.as_os_str(),
        "--out".as_ref(),
        dataset.path().as_os_str(),
    ]);
    run(&[
        "score".as_ref(),
        "--data".as_ref(),
        dataset.path().as_os_str(),
        "--out".as_ref(),
        scored.path().as_os_str(),
    ]);
    let path = scored.path().join("standings.parquet");
    let reader = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let frame = ParquetReader::new(reader)
        .finish()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let column = |name: &str| {
        frame
            .column(name)
            .unwrap_or_else(|e| panic!("standings.parquet: {e}"))
            .as_materialized_series()
            .clone()
    };
    let (entrant, score, percent, rank, direction) = (
        column("entrant"),
        column("score"),
        column("percent"),
        column("rank"),
        column("direction"),
    );
    let fail = |e: polars::prelude::PolarsError| -> ! { panic!("standings.parquet: {e}") };
    let entrant = entrant.str().unwrap_or_else(|e| fail(e));
    let score = score.f64().unwrap_or_else(|e| fail(e));
    let percent = percent.f64().unwrap_or_else(|e| fail(e));
    let rank = rank.i32().unwrap_or_else(|e| fail(e));
    let direction = direction.str().unwrap_or_else(|e| fail(e));
    (0..frame.height())
        .map(|i| Written {
            entrant: entrant.get(i).unwrap_or_default().to_string(),
            score: score.get(i).unwrap_or(f64::NAN),
            percent: percent.get(i),
            rank: rank.get(i).unwrap_or(0),
            direction: direction.get(i).map(str::to_string),
        })
        .collect()
}

fn row_of<'a>(rows: &'a [Written], entrant: &str) -> &'a Written {
    rows.iter()
        .find(|r| r.entrant == entrant)
        .unwrap_or_else(|| panic!("entrant {entrant} not in standings.parquet"))
}

#[test]
fn binary_imports_and_scores_a_ruter_file_to_its_published_standings() {
    if no_realdata() {
        return;
    }
    let file = realdata()
        .join("pbn")
        .join("spiren_2016-08-10_mp_bye_adjusted.pbn");
    let rows = import_and_score("pbn", &file);
    assert_eq!(rows.len(), 11);
    // Published: 1. pair 8, 25.0, 63.02 %; pair 6 with its +4.0 penalty, 4.0, 52.08 %, 5th;
    // pair 12 with three byes, −30.9, 33.93 %, 11th.
    for (entrant, total, percent, rank) in [
        ("8", 25.0, 63.02, 1),
        ("6", 4.0, 52.08, 5),
        ("12", -30.9, 33.93, 11),
    ] {
        let row = row_of(&rows, entrant);
        assert!(
            (row.score - total).abs() <= RUTER.total + EPS,
            "pair {entrant}: {}",
            row.score
        );
        let shown = row
            .percent
            .unwrap_or_else(|| panic!("pair {entrant} has no percentage"));
        assert!(
            (shown - percent).abs() <= RUTER.percent + EPS,
            "pair {entrant}: {shown}"
        );
        assert_eq!(row.rank, rank, "pair {entrant}");
    }
}

#[test]
fn binary_imports_and_scores_a_compscore_file_to_its_published_standings() {
    if no_realdata() {
        return;
    }
    let file = realdata().join("usebio").join("mp_pairs_mitchell.xml");
    let rows = import_and_score("usebio", &file);
    assert_eq!(rows.len(), 38);
    // Published: 4NS 61.34 % and 5EW 60.78 % win their directions; 1NS 442.22 (board 15
    // factored in the total); 9EW, whose table missed board 15, 576.35.
    let winner = row_of(&rows, "4NS");
    assert_eq!((winner.rank, winner.direction.as_deref()), (1, Some("NS")));
    assert!((winner.percent.unwrap_or_default() - 61.34).abs() <= COMPSCORE.percent + EPS);
    let winner = row_of(&rows, "5EW");
    assert_eq!((winner.rank, winner.direction.as_deref()), (1, Some("EW")));
    assert!((winner.percent.unwrap_or_default() - 60.78).abs() <= COMPSCORE.percent + EPS);
    assert!((row_of(&rows, "1NS").score - 442.22).abs() <= COMPSCORE.total + EPS);
    assert!((row_of(&rows, "9EW").score - 576.35).abs() <= COMPSCORE.total + EPS);
}

/// The conventions, split scores and penalties the importers record survive a round trip
/// through the dataset's Parquet tables, so scoring the written dataset gives the same
/// figures as scoring the import.
#[test]
fn imports_round_trip_through_the_dataset_tables() {
    if no_realdata() {
        return;
    }
    let files = [
        ("pbn", "spiren_2016-08-10_mp_bye_adjusted.pbn"),
        ("usebio", "mp_pairs_mitchell.xml"),
    ];
    let imported: Vec<Imported> = files
        .iter()
        .map(|(kind, name)| match *kind {
            "pbn" => import_pbn(name),
            _ => import_usebio(name),
        })
        .collect();
    let merged =
        merge(imported.iter().map(|i| i.dataset.clone())).unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    bridgehcp::store::write_dataset(&merged, dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let back = bridgehcp::store::table::read_dataset(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    for (mine, theirs) in merged.competitions.iter().zip(&back.competitions) {
        assert_eq!(
            mine.conventions, theirs.conventions,
            "{}",
            mine.competition_id
        );
    }
    let split = back
        .boards
        .iter()
        .find(|b| b.adjusted.as_deref() == Some("A50/S"))
        .expect("the split score");
    assert_eq!(
        (split.ns_score, split.ns_penalty, split.ew_penalty),
        (Some(0), Some(4.0), Some(0.0))
    );
    for one in &imported {
        let id = &one.published.competition_id;
        let competition = back
            .competitions
            .iter()
            .find(|c| &c.competition_id == id)
            .expect("competition read back");
        let again = score_competition(competition, &back.entrants, &back.boards)
            .unwrap_or_else(|e| panic!("{e}"));
        let first = score(one);
        assert_eq!(first.standings, again.standings, "{id}");
        assert_eq!(first.board_scores, again.board_scores, "{id}");
    }
}

/// The seven real competitions go through the whole handicap pipeline: every one is
/// rated, pairs whose club export left a player unnumbered are non-member pairs that
/// nobody's handicap moves for, and the standings are the engine's own (checked against
/// the published figures above).
#[test]
fn the_handicap_pipeline_rates_every_real_competition() {
    if no_realdata() {
        return;
    }
    let dir = realdata();
    let mut fragments = Vec::new();
    for (kind, name) in [
        ("pbn", "spiren_2015-06-17_mp.pbn"),
        ("pbn", "spiren_2016-08-10_mp_bye_adjusted.pbn"),
        ("pbn", "bridgekam_2015-09-03_crossimp.pbn"),
        ("usebio", "mp_pairs_mitchell.xml"),
        ("usebio", "mp_pairs_mitchell_03.xml"),
        ("usebio", "butler_howell.xml"),
        ("usebio", "cross_imp_howell.xml"),
    ] {
        let file = dir.join(kind).join(name);
        let imported = match kind {
            "pbn" => pbn::parse(&file),
            _ => usebio::parse(&file),
        }
        .unwrap_or_else(|e| panic!("{e}"));
        fragments.push(imported.dataset);
    }
    let dataset = merge(fragments).unwrap_or_else(|e| panic!("{e}"));
    let output = bridgehcp::pipeline::run(&dataset, &Default::default(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.summary.competitions_applied, 7);
    assert_eq!(output.summary.competitions_unrated, 0);
    let unidentified: Vec<_> = output
        .replay
        .changes
        .iter()
        .filter(|c| c.member_id < 0)
        .collect();
    assert!(!unidentified.is_empty());
    for change in &output.replay.changes {
        let partner_unidentified = unidentified
            .iter()
            .any(|u| u.competition == change.competition && u.entrant == change.entrant);
        if partner_unidentified {
            assert!(!change.outcome.updated, "{change:?}");
            assert_eq!(change.outcome.delta, 0.0);
        }
    }
    assert!(!output.ranking.is_empty());
}

// ---------------------------------------------------------------------------------------
// A club's season: the 21 Bridgekameratene sessions of `pbn-bridgekam`.
// ---------------------------------------------------------------------------------------

fn bridgekam_files() -> Vec<PathBuf> {
    let dir = realdata().join("pbn-bridgekam");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pbn"))
        .collect();
    files.sort();
    files
}

/// Every session imports, and the engine reproduces every published traveller line (MP
/// and whole-number %), bye line, pair total, percentage and rank, to Ruter's printed
/// precision.
#[test]
fn engine_reproduces_every_bridgekam_session() {
    if no_realdata() {
        return;
    }
    let files = bridgekam_files();
    assert_eq!(files.len(), 21);
    let mut ids = BTreeSet::new();
    let mut lines = 0;
    for file in &files {
        eprintln!("{}", file.display());
        let imported = pbn::parse(file).unwrap_or_else(|e| panic!("{e}"));
        let c = &imported.dataset.competitions[0];
        assert_eq!(c.scoring, ScoringMethod::Matchpoints, "{}", file.display());
        assert_eq!(c.conventions.mp_scale, MpScale::PlusMinus);
        assert!(ids.insert(c.competition_id.clone()), "{}", c.competition_id);
        let scored = score(&imported);
        check_lines(&imported, &scored, RUTER);
        check_bye_lines(&imported, &scored);
        check_standings(&imported, &scored, RUTER, &[]);
        lines += imported.published.lines.len();
    }
    assert_eq!(ids.len(), 21, "21 distinct sessions");
    assert!(lines > 3000, "{lines} published lines checked");
}

/// Board 18 of 2015-09-24: `800>a`. The table's 800 stood, but the director assigned
/// 60 % to each side (+1.6 of a top of 8, printed 60 and 60); the other eight results
/// are compared among themselves and factored to nine (the top gets 7.9, not 7).
#[test]
fn ruter_assigned_score_800_a_is_sixty_percent_each_and_out_of_the_comparisons() {
    if no_realdata() {
        return;
    }
    let path = realdata()
        .join("pbn-bridgekam")
        .join("bridgekam_2015-09-24.pbn");
    let imported = pbn::parse(&path).unwrap_or_else(|e| panic!("{e}"));
    let row = imported
        .dataset
        .boards
        .iter()
        .find(|b| b.board == 18 && b.ns.as_deref() == Some("1"))
        .expect("board 18, pair 1 N/S");
    assert_eq!(row.adjusted.as_deref(), Some("A6060"));
    assert_eq!((row.ns_score, row.origin.row), (None, Some(618)));
    let scored = score(&imported);
    let line = |ns: &str| {
        scored
            .board_scores
            .iter()
            .find(|b| b.board == 18 && b.ns.as_deref() == Some(ns))
            .unwrap_or_else(|| panic!("board 18, N/S {ns}"))
    };
    let assigned = line("1");
    assert!((assigned.ns_points - 1.6).abs() < EPS && (assigned.ew_points - 1.6).abs() < EPS);
    // 800 beats the other seven: 14 of 14 on the 2/1 scale, (14+1)·9/8 − 1 = 15.875,
    // 7.875 on Ruter's ± scale, printed 7.9.
    assert!((line("6").ns_points - 7.875).abs() < EPS);
    assert_eq!(matchpoints::ruter_board_percent(7.875, 9), Some(99.0));
}
