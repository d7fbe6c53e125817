//! Whole-competition tests of `score_competition`.

use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;

use super::*;
use crate::dataset::{BoardResult, Competition, Direction, Entrant, Format, Origin, ScoringMethod};
use crate::error::InputError;

fn competition(format: Format, scoring: ScoringMethod) -> Competition {
    let date = NaiveDate::from_ymd_opt(2024, 3, 5).unwrap_or_default();
    Competition::new("c1", date, format, scoring)
}

fn entrants(names: &[&str]) -> Vec<Entrant> {
    names.iter().map(|n| Entrant::new("c1", *n)).collect()
}

/// A row of board `board` of competition `c1` at which `ns` met `ew`, with nothing
/// played yet.
fn at_table(board: u32, ns: &str, ew: &str) -> BoardResult {
    BoardResult {
        competition_id: "c1".into(),
        board,
        ns: Some(ns.into()),
        ew: Some(ew.into()),
        ..BoardResult::default()
    }
}

fn row(board: u32, ns: &str, ew: &str, contract: &str, declarer: &str, tricks: u8) -> BoardResult {
    BoardResult {
        contract: Some(contract.into()),
        declarer: Some(declarer.into()),
        tricks: Some(tricks),
        ..at_table(board, ns, ew)
    }
}

/// The scoring leaflet's two boards as a Mitchell: N/S pairs 1-8, E/W pairs 11-18. Boards 1 and 8
/// (neither side vulnerable) carry the leaflet's two travellers.
fn seed_001_rows() -> Vec<BoardResult> {
    // (board, N/S, E/W, contract, declarer, tricks)
    let travellers = [
        (1, "1", "11", "3S", "N", 10),
        (1, "2", "13", "4S", "N", 10),
        (1, "3", "15", "4H", "E", 8),
        (1, "4", "17", "3H", "E", 9),
        (1, "5", "18", "3H", "E", 8),
        (1, "6", "12", "3S", "N", 10),
        (1, "7", "14", "3S", "N", 9),
        (1, "8", "16", "4HX", "E", 8),
        (8, "1", "11", "4S", "N", 10),
        (8, "2", "12", "4S", "N", 10),
        (8, "3", "14", "3NT", "N", 10),
        (8, "4", "16", "4S", "N", 10),
        (8, "5", "18", "4S", "N", 10),
        (8, "6", "13", "4S", "N", 10),
        (8, "7", "15", "4S", "N", 10),
        (8, "8", "17", "4S", "N", 10),
    ];
    travellers
        .iter()
        .map(|&(board, ns, ew, c, d, t)| row(board, ns, ew, c, d, t))
        .collect()
}

fn seed_001_entrants() -> Vec<Entrant> {
    entrants(&[
        "1", "2", "3", "4", "5", "6", "7", "8", "11", "12", "13", "14", "15", "16", "17", "18",
    ])
}

fn standing<'a>(scored: &'a ScoredCompetition, entrant: &str) -> &'a Standing {
    scored
        .standings
        .iter()
        .find(|s| s.entrant == entrant)
        .unwrap_or_else(|| panic!("no standing for {entrant}"))
}

/// The scoring leaflet: the board scores reproduce both published tables; N/S totals are board 1 +
/// board 8 = 9+6, 14+6, 4+14, 0+6, 2+6, 9+6, 6+6, 12+6 out of 28, ranked per direction.
#[test]
fn seed_001_mitchell() {
    let scored = score_competition(
        &competition(Format::Pairs, ScoringMethod::Matchpoints),
        &seed_001_entrants(),
        &seed_001_rows(),
    )
    .unwrap();
    let board1: Vec<(f64, f64)> = scored
        .board_scores
        .iter()
        .filter(|b| b.board == 1)
        .map(|b| (b.ns_points, b.ew_points))
        .collect();
    assert_eq!(
        board1,
        vec![
            (9.0, 5.0),
            (14.0, 0.0),
            (4.0, 10.0),
            (0.0, 14.0),
            (2.0, 12.0),
            (9.0, 5.0),
            (6.0, 8.0),
            (12.0, 2.0)
        ]
    );
    assert_eq!(scored.board_scores[3].ns_score, Some(-140));
    let ns_totals = [15.0, 20.0, 18.0, 6.0, 8.0, 15.0, 12.0, 18.0];
    let ns_ranks = [4, 1, 2, 8, 7, 4, 6, 2];
    for (i, (total, rank)) in ns_totals.iter().zip(ns_ranks).enumerate() {
        let s = standing(&scored, &(i + 1).to_string());
        assert!((s.score - total).abs() < 1e-9, "pair {}", i + 1);
        assert_eq!(s.rank, rank, "pair {}", i + 1);
        assert_eq!(s.direction, Some(Direction::NS));
        assert_eq!(s.boards_played, 2);
        assert!((s.percent.unwrap_or(f64::NAN) - 100.0 * total / 28.0).abs() < 1e-9);
    }
    // E/W pair 17 (the leaflet's E/W 7): 14 on board 1 and 8 on board 8: 22 of 28, first E/W.
    let ew7 = standing(&scored, "17");
    assert!((ew7.score - 22.0).abs() < 1e-9);
    assert_eq!((ew7.rank, ew7.direction), (1, Some(Direction::EW)));
    let r2 = scored.results.iter().find(|r| r.entrant == "2").unwrap();
    assert!((r2.score - 100.0 * 20.0 / 28.0).abs() < 1e-9);
}

/// The result does not depend on the order of the rows.
#[test]
fn row_order_does_not_matter() {
    let entrants = seed_001_entrants();
    let comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    let rows = seed_001_rows();
    let mut reversed = rows.clone();
    reversed.reverse();
    reversed.swap(0, 7);
    assert_eq!(
        score_competition(&comp, &entrants, &rows).unwrap(),
        score_competition(&comp, &entrants, &reversed).unwrap()
    );
}

fn error_for(mut rows: Vec<BoardResult>, change: impl FnOnce(&mut BoardResult)) -> InputError {
    let file: Arc<Path> = Arc::from(Path::new("boards.csv"));
    for (i, r) in rows.iter_mut().enumerate() {
        r.origin = Origin::new(&file, i + 1);
    }
    if let Some(r) = rows.get_mut(2) {
        change(r);
    }
    score_competition(
        &competition(Format::Pairs, ScoringMethod::Matchpoints),
        &seed_001_entrants(),
        &rows,
    )
    .unwrap_err()
}

#[test]
fn bad_rows_name_file_row_column_and_board() {
    let e = error_for(seed_001_rows(), |r| r.tricks = Some(14));
    assert_eq!(e.location.file.as_deref(), Some(Path::new("boards.csv")));
    assert_eq!((e.location.row, e.location.board), (Some(3), Some(1)));
    assert_eq!(e.location.competition.as_deref(), Some("c1"));
    assert_eq!(e.location.column.as_deref(), Some("tricks"));
    assert!(e.rule.contains("14"), "{}", e.rule);

    let e = error_for(seed_001_rows(), |r| r.ns_score = Some(120));
    assert_eq!(e.location.column.as_deref(), Some("ns_score"));
    assert!(e.rule.contains("100"), "{}", e.rule);
    // A matching score is accepted.
    let rows: Vec<BoardResult> = seed_001_rows();
    let mut ok = rows.clone();
    ok[2].ns_score = Some(100);
    assert!(score_competition(
        &competition(Format::Pairs, ScoringMethod::Matchpoints),
        &seed_001_entrants(),
        &ok
    )
    .is_ok());

    let e = error_for(seed_001_rows(), |r| r.contract = Some("4Y".into()));
    assert_eq!(e.location.column.as_deref(), Some("contract"));
    let e = error_for(seed_001_rows(), |r| r.adjusted = Some("A703".into()));
    assert_eq!(e.location.column.as_deref(), Some("adjusted"));
    let e = error_for(seed_001_rows(), |r| r.ew = Some("99".into()));
    assert_eq!(e.location.column.as_deref(), Some("ew"));
    assert!(e.rule.contains("99"));
    let e = error_for(seed_001_rows(), |r| r.ew = Some("11".into()));
    assert!(e.rule.contains("more than once"), "{}", e.rule);
    let e = error_for(seed_001_rows(), |r| r.ew = Some("3".into()));
    assert!(e.rule.contains("twice"), "{}", e.rule);
    let mut rows = seed_001_rows();
    rows.truncate(9);
    let e = error_for(rows, |_| ());
    assert_eq!(e.location.board, Some(8));
    assert!(e.rule.contains("only one result"), "{}", e.rule);
}

/// Artificial scores on a matchpoint board: the A6040 table gets 0.6·14 = 8.4 and 5.6.
#[test]
fn artificial_score_in_a_competition() {
    let mut rows = seed_001_rows();
    rows[7].contract = None;
    rows[7].adjusted = Some("A6040".into());
    let scored = score_competition(
        &competition(Format::Pairs, ScoringMethod::Matchpoints),
        &seed_001_entrants(),
        &rows,
    )
    .unwrap();
    let b = scored
        .board_scores
        .iter()
        .find(|b| b.board == 1 && b.ns.as_deref() == Some("8"))
        .unwrap();
    assert_eq!(b.ns_score, None);
    assert!((b.ns_points - 8.4).abs() < 1e-9 && (b.ew_points - 5.6).abs() < 1e-9);
    // Pair 2's top among 7 real results is factored to 97/7.
    let b2 = scored
        .board_scores
        .iter()
        .find(|b| b.board == 1 && b.ns.as_deref() == Some("2"))
        .unwrap();
    assert!((b2.ns_points - 97.0 / 7.0).abs() < 1e-9);
}

/// A team match, two boards in two rooms: board 2 scores 620 (given as ns_score) against
/// −100; board 1 is a flat 4S (420). Team A was N/S in room 1: 720 → 12 IMPs.
#[test]
fn team_match() {
    let mut rows = vec![
        BoardResult {
            ns_score: Some(620),
            contract: None,
            ..row(2, "A", "B", "", "", 0)
        },
        BoardResult {
            ns_score: Some(-100),
            contract: None,
            ..row(2, "B", "A", "", "", 0)
        },
        row(1, "A", "B", "4S", "N", 10),
        row(1, "B", "A", "4S", "S", 10),
    ];
    rows[0].declarer = None;
    rows[1].declarer = None;
    let scored = score_competition(
        &competition(Format::Teams, ScoringMethod::TeamImps),
        &entrants(&["A", "B"]),
        &rows,
    )
    .unwrap();
    let a = standing(&scored, "A");
    assert!((a.score - 12.0).abs() < 1e-9 && a.rank == 1 && a.boards_played == 2);
    let b = standing(&scored, "B");
    assert!((b.score + 12.0).abs() < 1e-9 && b.rank == 2);
    // WBF scale, 2 boards, margin 12: B = 15·√2 = 21.213, τ^(36/21.213) = 0.44190,
    // 10 + 10·(1 − 0.44190)/(1 − τ³ = 0.76393) = 17.306 → 17.31; the loser 2.69.
    let (vp_a, vp_b) = (a.vp.unwrap(), b.vp.unwrap());
    assert!((vp_a - 17.31).abs() < 0.011, "{vp_a}");
    assert!((vp_a + vp_b - 20.0).abs() < 1e-9);
    let ra = scored.results.iter().find(|r| r.entrant == "A").unwrap();
    assert_eq!(ra.opponent.as_deref(), Some("B"));
    // Rooms must swap the teams.
    rows[3] = row(1, "A", "B", "4S", "N", 10);
    assert!(score_competition(
        &competition(Format::Teams, ScoringMethod::TeamImps),
        &entrants(&["A", "B"]),
        &rows
    )
    .is_err());
}

/// A table score of round 1 ([`scored_row`]).
fn round_one(board: u32, ns: &str, ew: &str, score: i32) -> BoardResult {
    BoardResult {
        round: Some(1),
        ..scored_row(board, ns, ew, score)
    }
}

/// Seed 003's round of five pairs: pairs 1-2 at table 1 and 3-4 at table 2 over boards
/// 1 and 2, pair 5 out.
fn seed_003_five_pairs_rows() -> Vec<BoardResult> {
    vec![
        round_one(1, "1", "2", -420),
        round_one(1, "3", "4", -450),
        round_one(2, "1", "2", 170),
        round_one(2, "3", "4", 620),
    ]
}

/// The model's result of `entrant`.
fn result_of(scored: &ScoredCompetition, entrant: &str) -> Option<f64> {
    let result = scored.results.iter().find(|r| r.entrant == entrant);
    result.map(|r| r.score)
}

/// The four-and-five-pairs sheets with five pairs: subround 1 (boards 1-2) pairs 1-2 at table 1, 3-4 at table
/// 2, pair 5 out. Table 1's N/S scores −420 and 170 against table 2's −450 and 620:
/// differences +30 (1 IMP) and −450 (−10 IMPs): −9 for pair 1 and pair 4, +9 for pairs 2
/// and 3. Entries: 2 and 3 get 9, pair 5 gets (9+9)/4 = 4.5 → 4.
#[test]
fn seed_003_five_pairs() {
    let rows = seed_003_five_pairs_rows();
    let scored = score_competition(
        &competition(Format::Pairs, ScoringMethod::TeamImps),
        &entrants(&["1", "2", "3", "4", "5"]),
        &rows,
    )
    .unwrap();
    let score = |e| standing(&scored, e).score;
    assert_eq!(
        [score("1"), score("2"), score("3"), score("4"), score("5")],
        [0.0, 9.0, 9.0, 0.0, 4.0]
    );
    assert_eq!(standing(&scored, "5").boards_played, 0);
    let net = |e| result_of(&scored, e);
    assert_eq!(net("1"), Some(-9.0));
    assert_eq!(net("3"), Some(9.0));
}

/// Butler with Compscore's conventions: five results 420, 450, 170, 600, −100: datum 350.
#[test]
fn butler_competition() {
    let mut comp = competition(Format::Pairs, ScoringMethod::Butler);
    comp.conventions.datum_trim = conventions::DatumTrim::TopAndBottom;
    comp.conventions.datum_rounding = conventions::DatumRounding::Nearest10;
    let scores = [420, 450, 170, 600, -100];
    let rows: Vec<BoardResult> = scores
        .iter()
        .enumerate()
        .map(|(i, &s)| BoardResult {
            competition_id: "c1".into(),
            board: 1,
            ns: Some(format!("{}", i + 1).into()),
            ew: Some(format!("{}", i + 11).into()),
            ns_score: Some(s),
            ..BoardResult::default()
        })
        .collect();
    let scored = score_competition(
        &comp,
        &entrants(&["1", "2", "3", "4", "5", "11", "12", "13", "14", "15"]),
        &rows,
    )
    .unwrap();
    assert!(scored.board_scores.iter().all(|b| b.datum == Some(350.0)));
    assert_eq!(standing(&scored, "4").score, 6.0);
    assert_eq!(standing(&scored, "15").score, 10.0);
    assert_eq!(standing(&scored, "15").percent, None);
}

/// An individual: each player scores its side's matchpoints; sides are written N+S.
#[test]
fn individual_event() {
    let mk = |n: &str, s: &str, e: &str, w: &str, score| BoardResult {
        competition_id: "c1".into(),
        board: 1,
        north: Some(n.into()),
        south: Some(s.into()),
        east: Some(e.into()),
        west: Some(w.into()),
        ns_score: Some(score),
        ..BoardResult::default()
    };
    let rows = vec![mk("1", "2", "3", "4", 420), mk("5", "6", "7", "8", 450)];
    let scored = score_competition(
        &competition(Format::Individual, ScoringMethod::Matchpoints),
        &entrants(&["1", "2", "3", "4", "5", "6", "7", "8"]),
        &rows,
    )
    .unwrap();
    assert_eq!(scored.board_scores[0].ns.as_deref(), Some("1+2"));
    assert_eq!(standing(&scored, "3").score, 2.0);
    assert_eq!(standing(&scored, "6").score, 2.0);
    assert_eq!(standing(&scored, "1").score, 0.0);
    assert_eq!(standing(&scored, "3").rank, 1);
    assert_eq!(standing(&scored, "3").direction, None);
}

/// The default `bye_score = skip`: pairs 1 and 11 miss board 8 of the scoring leaflet, so totals
/// are not comparable and each line is ranked by percentage. Board 8 is played 7 times;
/// Neuberg makes the raw 12 of 430 (pair 3) (12 + 1)·8/7 − 1 = 97/7 and the raw 5 of
/// each 420 (5 + 1)·8/7 − 1 = 41/7, top 14 per board. N/S:
/// pair 2: 14 + 41/7 = 19.857 of 28 = 70.92 %; pair 1: 9 of 14 = 64.29 %;
/// pairs 3 (4 + 97/7) and 8 (12 + 41/7): 17.857 of 28 = 63.78 %; pair 6: 9 + 41/7 =
/// 53.06 %; 7: 42.35 %; 5: 28.06 %; 4: 20.92 %. By total pair 1's 9 would be fifth.
#[test]
fn missed_boards_rank_by_percentage() {
    let comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    let mut rows = seed_001_rows();
    rows.remove(8);
    let scored = score_competition(&comp, &seed_001_entrants(), &rows).unwrap();
    let one = standing(&scored, "1");
    assert!((one.score - 9.0).abs() < 1e-9);
    assert!((one.percent.unwrap_or(f64::NAN) - 100.0 * 9.0 / 14.0).abs() < 1e-9);
    let ranks: Vec<(&str, u32)> = ["2", "1", "3", "8", "6", "7", "5", "4"]
        .iter()
        .map(|n| (*n, standing(&scored, n).rank))
        .collect();
    assert_eq!(
        ranks,
        vec![
            ("2", 1),
            ("1", 2),
            ("3", 3),
            ("8", 3),
            ("6", 5),
            ("7", 6),
            ("5", 7),
            ("4", 8)
        ]
    );
    let three = standing(&scored, "3");
    assert!((three.percent.unwrap_or(f64::NAN) - 100.0 * (4.0 + 97.0 / 7.0) / 28.0).abs() < 1e-9);
}

/// IMPs under `skip`: the average per board decides. Averaged cross-IMPs, A-C N/S and
/// D-F E/W; board 1 at three tables (A-D 420, B-E 170, C-F −100), board 2 at two (A-E
/// 620, B-F 170). Board 1: A 250 → 6 and 520 → 11, 17/2 = 8.5; B −6 and 270 → 7, 0.5;
/// C −9. Board 2: A 450 → 10, B −10. N/S totals A 18.5, B −9.5, C −9 over 2, 2, 1 boards:
/// per board 9.25, −4.75, −9, so B is second, where by total C (−9) would beat B (−9.5).
/// E/W likewise: F 9 + 10 = 19 → 9.5, E −0.5 − 10 = −10.5 → −5.25, D −8.5 over one board.
#[test]
fn missed_boards_rank_by_imps_per_board() {
    let comp = competition(Format::Pairs, ScoringMethod::CrossImps);
    let rows: Vec<BoardResult> = [
        (1, "A", "D", 420),
        (1, "B", "E", 170),
        (1, "C", "F", -100),
        (2, "A", "E", 620),
        (2, "B", "F", 170),
    ]
    .iter()
    .map(|&(board, ns, ew, score)| BoardResult {
        competition_id: "c1".into(),
        board,
        ns: Some(ns.into()),
        ew: Some(ew.into()),
        ns_score: Some(score),
        ..BoardResult::default()
    })
    .collect();
    let scored =
        score_competition(&comp, &entrants(&["A", "B", "C", "D", "E", "F"]), &rows).unwrap();
    for (name, total, rank) in [
        ("A", 18.5, 1),
        ("B", -9.5, 2),
        ("C", -9.0, 3),
        ("F", 19.0, 1),
        ("E", -10.5, 2),
        ("D", -8.5, 3),
    ] {
        let s = standing(&scored, name);
        assert!((s.score - total).abs() < 1e-9, "{name}: {}", s.score);
        assert_eq!(s.rank, rank, "{name}");
    }
}

/// Ruter's bye: a pair that sat out a board gets its own average for it.
#[test]
fn bye_session_average() {
    let mut comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    comp.conventions.bye_score = conventions::ByeScore::SessionAverage;
    let mut rows = seed_001_rows();
    rows.remove(8); // N/S 1 and E/W 11 miss board 8
    let scored = score_competition(&comp, &seed_001_entrants(), &rows).unwrap();
    let s = standing(&scored, "1");
    assert_eq!(s.boards_played, 1);
    assert!((s.score - 18.0).abs() < 1e-9); // 9 on board 1, twice
    assert!((s.percent.unwrap_or(f64::NAN) - 100.0 * 9.0 / 14.0).abs() < 1e-9);
}

/// Compscore's scaling and travellers, on the scoring leaflet with pairs 1 and 11 missing board 8
/// (played 7 times where 8 were due): the travellers of board 8 show the raw points
/// among 7 (430 is a top of 12) while the totals carry Neuberg's (12 + 1)·8/7 − 1 = 97/7;
/// pair 1 (9 on board 1) is scaled to the 2 boards the other N/S pairs played, 18.
#[test]
fn most_in_direction_and_unfactored_travellers() {
    let mut comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    comp.conventions.bye_score = conventions::ByeScore::MostInDirection;
    comp.conventions.travellers = conventions::Travellers::Unfactored;
    let mut rows = seed_001_rows();
    rows.remove(8);
    let scored = score_competition(&comp, &seed_001_entrants(), &rows).unwrap();
    let top = scored
        .board_scores
        .iter()
        .find(|b| b.board == 8 && b.ns.as_deref() == Some("3"))
        .unwrap();
    assert!((top.ns_points - 12.0).abs() < 1e-9 && top.ew_points.abs() < 1e-9);
    let three = standing(&scored, "3");
    assert!((three.score - (4.0 + 97.0 / 7.0)).abs() < 1e-9);
    let one = standing(&scored, "1");
    assert_eq!(one.boards_played, 1);
    assert!((one.score - 18.0).abs() < 1e-9);
    assert!((one.percent.unwrap_or(f64::NAN) - 100.0 * 9.0 / 14.0).abs() < 1e-9);
    // E/W 11: 5 on board 1, scaled to 2 boards.
    assert!((standing(&scored, "11").score - 10.0).abs() < 1e-9);
}

/// A penalty moves the total and the percentage, not the board's points: pair 1 has
/// 9 + 6 = 15 of 28 on the scoring leaflet, plus 2 = 17, 60.71 %.
#[test]
fn penalties_move_totals() {
    let comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    let mut rows = seed_001_rows();
    rows[0].ns_penalty = Some(2.0);
    rows[0].ew_penalty = Some(-1.0);
    let scored = score_competition(&comp, &seed_001_entrants(), &rows).unwrap();
    assert!((scored.board_scores[0].ns_points - 9.0).abs() < 1e-9);
    let one = standing(&scored, "1");
    assert!((one.score - 17.0).abs() < 1e-9);
    assert!((one.percent.unwrap_or(f64::NAN) - 100.0 * 17.0 / 28.0).abs() < 1e-9);
    // E/W 11: 5 + 8 = 13, minus 1.
    assert!((standing(&scored, "11").score - 12.0).abs() < 1e-9);

    rows[0].ns_penalty = Some(f64::NAN);
    let e = score_competition(&comp, &seed_001_entrants(), &rows).unwrap_err();
    assert_eq!(e.location.column.as_deref(), Some("ns_penalty"));
}

/// A split code needs the score it keeps; the error names the `adjusted` column.
#[test]
fn split_score_without_a_score_is_an_error() {
    let comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    let mut rows = seed_001_rows();
    rows[0].contract = None;
    rows[0].adjusted = Some("A=/S".into());
    let e = score_competition(&comp, &seed_001_entrants(), &rows).unwrap_err();
    assert_eq!(e.location.column.as_deref(), Some("adjusted"));
    assert!(e.rule.contains("no ns_score"), "{}", e.rule);
    // With the score it keeps, N/S 1 gets half the top (7) and E/W 11 what 170 earns (5).
    rows[0].ns_score = Some(170);
    let scored = score_competition(&comp, &seed_001_entrants(), &rows).unwrap();
    let split = &scored.board_scores[0];
    assert!((split.ns_points - 7.0).abs() < 1e-9 && (split.ew_points - 5.0).abs() < 1e-9);
}

/// `tie_break` names the methods and their order, and the session method works on a
/// multi-session event (board rows naming two sessions). N/S A, B, E against E/W C, D,
/// F; boards 1-2 are session 1, boards 3-4 session 2. N/S scores (A, B, E) and
/// matchpoints (top 4):
/// board 1: 420, 400, 100 → 4, 2, 0; board 2: 420, 400, 600 → 2, 0, 4;
/// board 3: 420, 420, 100 → 3, 3, 0; board 4: 100, 420, 400 → 0, 4, 2.
/// A and B tie on 9. Sessions (top 8 each): A 6/8 = 75 % and 3/8 = 37.5 %, B 2/8 = 25 %
/// and 7/8 = 87.5 %: B's best session is better, so `session` puts B first. The topscore
/// comparison of A and B alone: A beats B on boards 1 and 2, ties on 3, loses 4: A 5, B 3,
/// so `topscore` puts A first.
#[test]
fn tie_break_order_and_session_percentage() {
    let mut rows = Vec::new();
    for (board, session, scores) in [
        (1, 1, [420, 400, 100]),
        (2, 1, [420, 400, 600]),
        (3, 2, [420, 420, 100]),
        (4, 2, [100, 420, 400]),
    ] {
        for ((ns, ew), score) in [("A", "C"), ("B", "D"), ("E", "F")].iter().zip(scores) {
            rows.push(BoardResult {
                competition_id: "c1".into(),
                board,
                ns: Some((*ns).into()),
                ew: Some((*ew).into()),
                ns_score: Some(score),
                session: Some(session),
                ..BoardResult::default()
            });
        }
    }
    let names = entrants(&["A", "B", "C", "D", "E", "F"]);
    let ranks = |tie_break: &str| {
        let mut comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
        comp.conventions.tie_break = tie_break.parse().unwrap();
        let scored = score_competition(&comp, &names, &rows).unwrap();
        assert_eq!(standing(&scored, "A").score, 9.0);
        assert_eq!(standing(&scored, "B").score, 9.0);
        (standing(&scored, "A").rank, standing(&scored, "B").rank)
    };
    assert_eq!(ranks("off"), (1, 1));
    assert_eq!(ranks("session,topscore"), (2, 1));
    assert_eq!(ranks("topscore,session"), (1, 2));
    // The earlier names keep the tie-break rules' order: meeting (A and B never met), then session.
    assert_eq!(ranks("all_scores"), (2, 1));
    // Without session rows the session method passes and topscore decides.
    let one_session: Vec<BoardResult> = rows
        .iter()
        .cloned()
        .map(|r| BoardResult { session: None, ..r })
        .collect();
    let mut comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    comp.conventions.tie_break = "session,topscore".parse().unwrap();
    let scored = score_competition(&comp, &names, &one_session).unwrap();
    assert_eq!(standing(&scored, "A").rank, 1);
    assert_eq!(standing(&scored, "B").rank, 2);
}

/// A table score alone (no contract), as imported exports give it.
fn scored_row(board: u32, ns: &str, ew: &str, score: i32) -> BoardResult {
    BoardResult {
        ns_score: Some(score),
        ..at_table(board, ns, ew)
    }
}

/// Ruter's `A-` is 40 % or the pair's own percentage when that is lower, the mirror of
/// its `A+`. Five tables (±4): on board 1 pairs 1 and 6 get `A-`/`A-`; on boards 2-8
/// pair 1 (N/S, always against 6) makes −4, −4, −4, −2, 0, +2 and +3 (a tie on top),
/// 19 of 56, 33.93 %: its `A-` is −4 + 8·19/56 = −1.29, which Ruter prints as 34 %,
/// while pair 6 (37 of 56, 66 %) keeps 40 % (−0.8).
#[test]
fn ruter_gives_an_average_minus_the_pairs_own_percentage_when_worse() {
    let mut comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    comp.conventions = conventions::Conventions::of_program("Ruter i Norge");
    let mut rows = vec![BoardResult {
        adjusted: Some("A-".into()),
        ..scored_row(1, "1", "6", 0)
    }];
    rows[0].ns_score = None;
    for (ns, ew, score) in [
        ("2", "7", 100),
        ("3", "8", 110),
        ("4", "9", 120),
        ("5", "10", 130),
    ] {
        rows.push(scored_row(1, ns, ew, score));
    }
    for (board, own) in (2..).zip([-100, -100, -100, 105, 115, 125, 130]) {
        rows.push(scored_row(board, "1", "6", own));
        for (ns, ew, score) in [
            ("2", "7", 100),
            ("3", "8", 110),
            ("4", "9", 120),
            ("5", "10", 130),
        ] {
            rows.push(scored_row(board, ns, ew, score));
        }
    }
    let names = entrants(&["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
    let scored = score_competition(&comp, &names, &rows).unwrap();
    let artificial = &scored.board_scores[0];
    assert_eq!((artificial.ns.as_deref(), artificial.board), (Some("1"), 1));
    assert!((artificial.ns_points - (-4.0 + 8.0 * 19.0 / 56.0)).abs() < 1e-9);
    assert!((artificial.ew_points + 0.8).abs() < 1e-9);
    let percent = |points: f64| matchpoints::ruter_board_percent(points, 5);
    assert_eq!(percent(artificial.ns_points), Some(34.0));
    assert_eq!(percent(artificial.ew_points), Some(40.0));
    let one = standing(&scored, "1");
    assert!((one.percent.unwrap_or(f64::NAN) - 100.0 * 19.0 / 56.0).abs() < 1e-9);

    // At a fixed 40 % pair 1 would be printed 40 on board 1.
    comp.conventions.average_plus = conventions::AveragePlus::Fixed;
    let fixed = score_competition(&comp, &names, &rows).unwrap();
    assert!((fixed.board_scores[0].ns_points + 0.8).abs() < 1e-9);
}

/// Compscore factors the results around an artificial score on its travellers too:
/// five real results and an `A5050` on a board of six (top 10) print 0.2, 2.6, 5.0, 7.4
/// and 9.8 (Neuberg's (s + 1)·6/5 − 1) and 5.0 for each side of the `A5050`, where raw
/// points among the five would be 0, 2, 4, 6, 8 and 4.0.
#[test]
fn compscore_travellers_are_factored_around_an_artificial_score() {
    let mut comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    comp.conventions = conventions::Conventions::of_program("Compscore3");
    let mut rows: Vec<BoardResult> = (1..=5)
        .map(|t| scored_row(1, &t.to_string(), &(t + 10).to_string(), 100 * t))
        .collect();
    rows.push(BoardResult {
        adjusted: Some("A5050".into()),
        ns_score: None,
        ..scored_row(1, "6", "16", 0)
    });
    for row in rows.clone() {
        rows.push(BoardResult { board: 2, ..row });
    }
    let names = entrants(&[
        "1", "2", "3", "4", "5", "6", "11", "12", "13", "14", "15", "16",
    ]);
    let scored = score_competition(&comp, &names, &rows).unwrap();
    let shown: Vec<(f64, f64)> = scored
        .board_scores
        .iter()
        .filter(|b| b.board == 1)
        .map(|b| (b.ns_points, b.ew_points))
        .collect();
    let printed = [
        (0.2, 9.8),
        (2.6, 7.4),
        (5.0, 5.0),
        (7.4, 2.6),
        (9.8, 0.2),
        (5.0, 5.0),
    ];
    assert_eq!(shown.len(), printed.len());
    for ((ns, ew), (want_ns, want_ew)) in shown.iter().zip(printed) {
        assert!(
            (ns - want_ns).abs() < 1e-9 && (ew - want_ew).abs() < 1e-9,
            "{shown:?}"
        );
    }
    assert!((standing(&scored, "5").score - 19.6).abs() < 1e-9);
}

/// Compscore rounds a factored score to a hundredth of a percent of the board's top and
/// then to a hundredth of a matchpoint, halves to even. Ten tables (top 18), two boards
/// played 7 times: pair 1's raw 2 and 4 become 3.2857 and 6.1429, that is 18.25 % and
/// 34.13 % of 18, 3.285 and 6.1434, added as 3.28 and 6.14; with 18, 18, 18 and 5 on
/// four full boards the total is 68.42, as Compscore prints it, where halves away
/// from zero (3.29) would give 68.43.
#[test]
fn compscore_rounds_factored_halves_to_even() {
    let mut comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    comp.conventions = conventions::Conventions::of_program("Compscore3");
    let mut rows = Vec::new();
    // N/S pair p meets E/W pair 100 + p; pair 1's score on each board, then the others'.
    let mut board = |number: u32, tables: i32, own: i32, others: &dyn Fn(i32) -> i32| {
        rows.push(scored_row(number, "1", "101", own));
        for p in 2..=tables {
            rows.push(scored_row(
                number,
                &p.to_string(),
                &(100 + p).to_string(),
                others(p),
            ));
        }
    };
    // Boards 1 and 2, 7 tables: pair 1 beats one other pair (raw 2), then two (raw 4).
    board(1, 7, 25, &|p| 10 * p);
    board(2, 7, 35, &|p| 10 * p);
    // Boards 3 to 5, 10 tables: the top (18). Board 6: beats two, ties one (5).
    for number in 3..=5 {
        board(number, 10, 1000, &|p| 10 * p);
    }
    board(6, 10, 40, &|p| 10 * p);
    let mut names: Vec<String> = (1..=10).map(|p| p.to_string()).collect();
    names.extend((101..=110).map(|p| p.to_string()));
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let scored = score_competition(&comp, &entrants(&names), &rows).unwrap();
    let one = standing(&scored, "1");
    assert!((one.score - 68.42).abs() < 1e-9, "{}", one.score);
    // 3.285 to hundredths: 3.28 with halves to even, 3.29 away from zero (68.43).
    assert_eq!(matchpoints::half_even(3.285 * 100.0), 328.0);
    let away = (3.285f64 * 100.0 + 0.5 + 1e-6).floor() / 100.0;
    assert!((18.0 * 3.0 + 5.0 + away + 6.14 - 68.43).abs() < 1e-9);
}

/// One member number in two pairs that both played a board: not a substitute (who is
/// listed in each pair for the boards it played there), so the competition breaks a
/// rule naming both entrants and the number.
#[test]
fn one_member_in_two_pairs_that_played_the_same_board_is_refused() {
    let comp = competition(Format::Pairs, ScoringMethod::Matchpoints);
    let mut names = seed_001_entrants();
    names[1].players = [Some(40430), Some(36223), None, None];
    names[6].players = [Some(40430), Some(5), None, None];
    let e = score_competition(&comp, &names, &seed_001_rows()).unwrap_err();
    assert_eq!(e.location.column.as_deref(), Some("player1"));
    assert!(
        e.rule
            .contains("member 40430 is listed in pair 2 and in pair 7, and both played board 1"),
        "{}",
        e.rule
    );
    // Pairs that share a member but no board (a substitute) are scored.
    let rows: Vec<BoardResult> = seed_001_rows()
        .into_iter()
        .filter(|r| !(r.board == 8 && r.ns.as_deref() == Some("7")))
        .filter(|r| !(r.board == 1 && r.ns.as_deref() == Some("2")))
        .collect();
    assert!(score_competition(&comp, &names, &rows).is_ok());
}

/// A victory-point scale whose 3-IMP row is seed 003's (10 and 4); the other rows only
/// fill the table.
fn seed_003_scale() -> crate::dataset::VpScaleRef {
    let text = "# IMPs of a round, VPs of the pairs with them and of the others\n\
                imps,winner,loser\n0,7,7\n1,8,6\n2,9,5\n3,10,4\n4,11,3\n";
    let scale = four_five::RoundScale::parse(Path::new("vp.csv"), text).unwrap();
    crate::dataset::VpScaleRef {
        name: "vp.csv".to_string(),
        table: Some(Arc::new(scale)),
    }
}

/// Seed 003's example: four pairs, the round's total −3 IMPs at table 1 N/S. With IMPs
/// pairs 1 and 2 receive 3 and pairs 3 and 4 nothing; with victory points on a scale
/// where 3 IMPs give 10 and 4, pairs 1 and 2 receive 10 VPs and pairs 3 and 4 get 4.
/// Standings go by VPs; the model's results keep the IMPs.
#[test]
fn seed_003_four_pairs_on_victory_points() {
    let mk = round_one;
    // Table 1: 3 N/S v 1 E/W; table 2: 2 N/S v 4 E/W. Pairs 1 and 2 are the side of
    // table 2's N/S and table 1's E/W: 140 at table 2 against 50 at table 1 is 90, 3 IMPs.
    let rows = vec![mk(1, "3", "1", 50), mk(1, "2", "4", 140)];
    let mut comp = competition(Format::Pairs, ScoringMethod::TeamImps);
    comp.vp_scale = Some(seed_003_scale());
    let names = entrants(&["1", "2", "3", "4"]);
    let scored = score_competition(&comp, &names, &rows).unwrap();
    let got = |e| {
        let s = standing(&scored, e);
        (s.score, s.vp, s.rank)
    };
    assert_eq!(got("1"), (3.0, Some(10.0), 1));
    assert_eq!(got("2"), (3.0, Some(10.0), 1));
    assert_eq!(got("3"), (0.0, Some(4.0), 3));
    assert_eq!(got("4"), (0.0, Some(4.0), 3));
    let net = |e| result_of(&scored, e);
    assert_eq!((net("1"), net("3")), (Some(3.0), Some(-3.0)));

    // Without the scale the same round is scored in IMPs only.
    comp.vp_scale = None;
    let imps = score_competition(&comp, &names, &rows).unwrap();
    assert_eq!(standing(&imps, "1").vp, None);
}

/// Five pairs on victory points: the round of `seed_003_five_pairs` (9 IMPs to pairs 2
/// and 3) is beyond the scale's last row (4 IMPs: 11 and 3), which it takes; the pair
/// sitting out gets the average of the four VP entries rounded down, (11 + 11 + 3 + 3)/4
/// = 7, as it would get the average IMP entry rounded down (4) without the scale.
#[test]
fn seed_003_five_pairs_on_victory_points() {
    let rows = seed_003_five_pairs_rows();
    let mut comp = competition(Format::Pairs, ScoringMethod::TeamImps);
    comp.vp_scale = Some(seed_003_scale());
    let scored = score_competition(&comp, &entrants(&["1", "2", "3", "4", "5"]), &rows).unwrap();
    let vp = |e| standing(&scored, e).vp;
    assert_eq!(
        [vp("1"), vp("2"), vp("3"), vp("4"), vp("5")],
        [Some(3.0), Some(11.0), Some(11.0), Some(3.0), Some(7.0)]
    );
    assert_eq!(standing(&scored, "5").score, 4.0);
    assert_eq!(standing(&scored, "5").rank, 3);

    // A scale on anything but a four- or five-pair event breaks a rule.
    let mut field = competition(Format::Pairs, ScoringMethod::Matchpoints);
    field.vp_scale = Some(seed_003_scale());
    let e = score_competition(&field, &seed_001_entrants(), &seed_001_rows()).unwrap_err();
    assert_eq!(e.location.column.as_deref(), Some("vp_scale"));
}
