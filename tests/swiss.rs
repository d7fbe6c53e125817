//! A Swiss pairs congress through the binary: scored (`score`: standings by VPs, a line
//! per round), drawn round by round (`draw`), and rated (`run`: the handicap moves by the
//! datum IMPs, never the VPs).
//!
//! The event is the six-pair, three-round, 8-board event worked by hand in
//! `src/scoring/swiss.rs`: final VPs 4 38.37, 3 31.45, 2 and 5 30.00 (sharing third),
//! 1 27.48, 6 22.70; datum IMPs 23, 5, 0, 0, −8, −20.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;

use std::path::Path;

use common::{bridgehcp, ok, text};

/// Pair p's players are members 10·p+1 and 10·p+2. Pair 4's start at 14, everyone
/// else at 20.
const MEMBERS: &str = "member_id,name,start_handicap
11,Ann,20
12,Bo,20
21,Cy,20
22,Di,20
31,Ed,20
32,Fa,20
41,Gu,14
42,Ha,14
51,Ia,20
52,Jo,20
61,Ka,20
62,Li,20
";

/// Round r's tables (N/S, E/W) and the N/S scores of its first two boards at each
/// table; the other six boards are flat (1NT by North making 7, 90, everywhere).
/// A round: its three tables and the N/S scores of its two lively boards.
type Round = ([(u32, u32); 3], [[i32; 3]; 2]);

const ROUNDS: [Round; 3] = [
    (
        [(1, 2), (3, 4), (5, 6)],
        [[-100, -100, 110], [620, 170, 170]],
    ),
    (
        [(4, 1), (5, 2), (6, 3)],
        [[100, 100, -620], [1430, 680, 680]],
    ),
    ([(4, 5), (3, 2), (1, 6)], [[-100, -100, 50], [200, 50, 170]]),
];

/// A contract that scores `score` for N/S on `board` (vulnerability by the standard
/// cycle: 1 and 17 none, 2 and 18 N/S, 9 E/W, 10 both).
fn contract(board: u32, score: i32) -> (&'static str, &'static str, u8) {
    match (board, score) {
        (1 | 17, -100) => ("3NT", "N", 7),
        (1, 110) => ("2S", "N", 8),
        (2, 620) => ("4S", "N", 10),
        (2 | 18, 170) => ("3S", "N", 10),
        (9, 100) => ("4H", "E", 9),
        (9, -620) => ("4S", "E", 10),
        (10, 1430) => ("6S", "N", 12),
        (10, 680) => ("4S", "N", 12),
        (17 | 18, 50) => ("4S", "E", 9),
        (18, 200) => ("4S", "E", 6),
        _ => ("1NT", "N", 7),
    }
}

/// The event as a CSV dataset, with the first `rounds` rounds' board rows.
fn write_event(dir: &Path, rounds: usize) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    let write = |name: &str, body: &str| {
        std::fs::write(dir.join(name), body).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    write("members.csv", MEMBERS);
    write(
        "competitions.csv",
        "competition_id,date,format,scoring,boards,title\nsp,2026-03-07,pairs,swiss_pairs,24,Swiss Pairs Congress\n",
    );
    let mut entrants = String::from("competition_id,entrant,player1,player2\n");
    for p in 1..=6 {
        entrants.push_str(&format!("sp,{p},{},{}\n", 10 * p + 1, 10 * p + 2));
    }
    write("entrants.csv", &entrants);
    let mut boards =
        String::from("competition_id,board,ns,ew,contract,declarer,tricks,ns_score,round\n");
    for (r, (tables, scores)) in ROUNDS.iter().enumerate().take(rounds) {
        for k in 0..8u32 {
            let board = 8 * r as u32 + k + 1;
            for (t, (ns, ew)) in tables.iter().enumerate() {
                let score = scores.get(k as usize).map_or(90, |s| s[t]);
                let (bid, declarer, tricks) = contract(board, score);
                boards.push_str(&format!(
                    "sp,{board},{ns},{ew},{bid},{declarer},{tricks},{score},{}\n",
                    r + 1
                ));
            }
        }
    }
    if rounds > 0 {
        write("boards.csv", &boards);
    } else {
        // Before round 1 the event has entrants and no results yet.
        write(
            "results.csv",
            "competition_id,entrant,boards_played,score\n",
        );
    }
}

#[test]
fn score_writes_standings_by_vps_and_a_line_per_round() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    write_event(&dir.path().join("event"), 3);
    ok(&bridgehcp(
        &["score", "--data", "event", "--out", "scored"],
        dir.path(),
    ));
    let sheet = text(&dir.path().join("scored/standings.csv"));
    let lines: Vec<Vec<&str>> = sheet.lines().map(|l| l.split(',').collect()).collect();
    let header = &lines[0];
    let col = |name: &str| {
        header
            .iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("no {name} in {header:?}"))
    };
    let (rank, entrant, score, vp) = (col("rank"), col("entrant"), col("score"), col("vp"));
    let got: Vec<(&str, &str, f64, f64)> = lines[1..]
        .iter()
        .map(|l| {
            (
                l[rank],
                l[entrant],
                l[score].parse().unwrap_or(f64::NAN),
                l[vp].parse().unwrap_or(f64::NAN),
            )
        })
        .collect();
    let want = [
        ("1", "4", 23.0, 38.37),
        ("2", "3", 5.0, 31.45),
        ("3", "2", 0.0, 30.0),
        ("3", "5", 0.0, 30.0),
        ("5", "1", -8.0, 27.48),
        ("6", "6", -20.0, 22.7),
    ];
    assert_eq!(got.len(), want.len(), "{sheet}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            g.0 == w.0 && g.1 == w.1 && (g.2 - w.2).abs() < 1e-9 && (g.3 - w.3).abs() < 1e-9,
            "{sheet}"
        );
    }
    // rounds.csv: pair 1's three matches with its running total.
    let rounds = text(&dir.path().join("scored/rounds.csv"));
    assert!(
        rounds.starts_with(
            "competition_id,entrant,names,round,opponent,boards,imps,margin,vp,total_vp\n"
        ),
        "{rounds}"
    );
    for line in [
        "sp,1,Ann – Bo,1,2,8,5.0,5,11.95,11.95",
        "sp,1,Ann – Bo,2,4,8,-17.0,-17,3.97,15.92",
        "sp,1,Ann – Bo,3,6,8,4.0,4,11.56,27.48",
    ] {
        assert!(rounds.lines().any(|l| l == line), "{line} not in\n{rounds}");
    }
    assert_eq!(rounds.lines().count(), 1 + 6 * 3);
    let html = text(&dir.path().join("scored/results.html"));
    assert!(html.contains("<h3>Matches</h3>"), "{html}");
}

#[test]
fn draw_gives_round_one_from_the_seed_and_the_next_round_from_the_standings() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    write_event(&dir.path().join("before"), 0);
    let first = ok(&bridgehcp(
        &["draw", "--data", "before", "--seed", "5", "--csv", "r1.csv"],
        dir.path(),
    ));
    assert!(first.starts_with("sp, round 1\n"), "{first}");
    let again = ok(&bridgehcp(
        &["draw", "--data", "before", "--seed", "5"],
        dir.path(),
    ));
    assert_eq!(first, again);
    let csv = text(&dir.path().join("r1.csv"));
    assert!(
        csv.starts_with("round,table,ns,ew,ns_names,ew_names\n"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 4);

    // After rounds 1 and 2 the standings are 4 (28.37), 3 (23.40), 5 (20.00), 2 (18.05),
    // 1 (15.92), 6 (14.26). 4 has met 3 and 1, so it meets 5; 3 has met 4 and 6, so it
    // meets 2; 1 and 6 are left, and have not met: the hand-made event's round 3.
    write_event(&dir.path().join("after2"), 2);
    ok(&bridgehcp(
        &["draw", "--data", "after2", "--csv", "r3.csv"],
        dir.path(),
    ));
    let csv = text(&dir.path().join("r3.csv"));
    assert_eq!(
        csv,
        "round,table,ns,ew,ns_names,ew_names\n3,1,4,5,Gu – Ha,Ia – Jo\n3,2,3,2,Ed – Fa,Cy – Di\n3,3,1,6,Ann – Bo,Ka – Li\n"
    );

    // Five pairs without a house pair cannot be drawn.
    let odd = dir.path().join("odd");
    write_event(&odd, 0);
    let entrants = text(&odd.join("entrants.csv"));
    let five: String = entrants.lines().take(6).map(|l| format!("{l}\n")).collect();
    std::fs::write(odd.join("entrants.csv"), five).unwrap_or_else(|e| panic!("{e}"));
    let out = bridgehcp(&["draw", "--data", "odd"], dir.path());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("house pair"), "{stderr}");
}

/// The handicap moves by the datum IMPs with the `pairs_datum` factors of fsb-2007
/// (C_b 12, S 0.1, C_k = C_u = 1, I 480). N_B = N_G = 24, so W = (24 + 0.1)/23 and
/// Δh = −(1/480)·W·12·24·(r − r̂) = −0.6·(24.1/23)·(r − r̂).
/// * The field's mean pair handicap is (5·20 + 14)/6 = 19.
/// * Pair 4 (14): r̂ = (19 − 14)/12 = 0.416667, r = 23/24 = 0.958333, r − r̂ = 13/24:
///   Δh = −0.6·24.1·13/(23·24) = −0.340543 for each player.
/// * Pair 6 (20): r̂ = −1/12, r = −20/24, r − r̂ = −0.75: Δh = +0.6·24.1·0.75/23 =
///   +0.471522.
/// * Pairs 2 and 5 share third on VPs with 0 IMPs: r − r̂ = 1/12, Δh = −0.052391. The
///   VPs play no part: pair 3 has more VPs than either but its own Δh follows its 5
///   IMPs: r − r̂ = 5/24 + 1/12 = 7/24, Δh = −0.183370.
#[test]
fn run_moves_handicaps_by_the_datum_imps() {
    use polars::prelude::{ParquetReader, SerReader};
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    write_event(&dir.path().join("event"), 3);
    ok(&bridgehcp(
        &["run", "--data", "event", "--out", "out", "--quiet"],
        dir.path(),
    ));
    let path = dir.path().join("out/changes.parquet");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let frame = ParquetReader::new(file)
        .finish()
        .unwrap_or_else(|e| panic!("{e}"));
    let column = |name: &str| {
        frame
            .column(name)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .as_materialized_series()
            .clone()
    };
    let (member, delta, expected, achieved) = (
        column("member_id"),
        column("delta"),
        column("expected"),
        column("achieved"),
    );
    let (member, delta, expected, achieved) = (
        member.i64().unwrap_or_else(|e| panic!("{e}")),
        delta.f64().unwrap_or_else(|e| panic!("{e}")),
        expected.f64().unwrap_or_else(|e| panic!("{e}")),
        achieved.f64().unwrap_or_else(|e| panic!("{e}")),
    );
    let row = |id: i64| {
        (0..frame.height())
            .find(|&i| member.get(i) == Some(id))
            .unwrap_or_else(|| panic!("no change for member {id}"))
    };
    let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-6);
    for (id, want_delta) in [
        (41, -0.340543),
        (42, -0.340543),
        (61, 0.471522),
        (21, -0.052391),
        (51, -0.052391),
        (31, -0.183370),
    ] {
        assert!(
            close(delta.get(row(id)), want_delta),
            "member {id}: {:?}",
            delta.get(row(id))
        );
    }
    assert!(close(expected.get(row(41)), 5.0 / 12.0));
    assert!(close(achieved.get(row(41)), 23.0 / 24.0));
    assert_eq!(frame.height(), 12);
}

/// The shipped sample was generated before Swiss pairs congresses joined the event mix.
/// With their weight at 0 the generator still gives exactly that sample: the only
/// change a congress makes to a generated federation is the congresses themselves and
/// the draws they consume.
#[test]
fn without_congresses_the_generator_gives_the_shipped_sample() {
    use bridgehcp::dataset::{Dataset, Origin};
    use bridgehcp::synth::{generate, EventMix, SynthConfig};
    fn strip(mut d: Dataset) -> Dataset {
        d.members
            .iter_mut()
            .for_each(|r| r.origin = Origin::default());
        d.competitions
            .iter_mut()
            .for_each(|r| r.origin = Origin::default());
        d.entrants
            .iter_mut()
            .for_each(|r| r.origin = Origin::default());
        d.results
            .iter_mut()
            .for_each(|r| r.origin = Origin::default());
        d.boards
            .iter_mut()
            .for_each(|r| r.origin = Origin::default());
        d
    }
    let shipped =
        bridgehcp::store::table::read_dataset(&common::sample()).unwrap_or_else(|e| panic!("{e}"));
    let generated = generate(&SynthConfig {
        mix: EventMix {
            swiss_pairs: 0.0,
            ..EventMix::default()
        },
        ..SynthConfig::default()
    });
    let (shipped, generated) = (strip(shipped), strip(generated));
    assert_eq!(shipped.competitions.len(), generated.competitions.len());
    assert!(shipped.competitions == generated.competitions);
    assert!(shipped.entrants == generated.entrants);
    assert!(shipped.results == generated.results);
    assert!(shipped.boards == generated.boards);
    assert!(shipped.members == generated.members);
}

/// Rewrites the event's `boards.csv` line by line (the header kept): `edit` gets a row's
/// cells and returns them changed, or `None` to drop the row.
fn edit_boards(dir: &Path, edit: impl Fn(Vec<String>) -> Option<Vec<String>>, header: &str) {
    let path = dir.join("boards.csv");
    let body = text(&path);
    let mut out = format!("{header}\n");
    for line in body.lines().skip(1) {
        let cells: Vec<String> = line.split(',').map(str::to_string).collect();
        if let Some(cells) = edit(cells) {
            out.push_str(&cells.join(","));
            out.push('\n');
        }
    }
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{e}"));
}

/// After a round with a table's rows missing, or one that repeats an earlier meeting,
/// `draw` refuses, naming the round and the tables, instead of drawing the next round.
#[test]
fn draw_refuses_after_a_broken_round() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    const HEADER: &str = "competition_id,board,ns,ew,contract,declarer,tricks,ns_score,round";

    // Round 2's third table (6 v 3) lost; the rows carry their table numbers.
    let missing = dir.path().join("missing");
    write_event(&missing, 2);
    edit_boards(
        &missing,
        |mut cells| {
            let round: usize = cells[8].parse().unwrap();
            let pairs = (cells[2].parse().unwrap(), cells[3].parse().unwrap());
            let table = ROUNDS[round - 1]
                .0
                .iter()
                .position(|t| *t == pairs)
                .unwrap()
                + 1;
            cells.push(table.to_string());
            (!(round == 2 && table == 3)).then_some(cells)
        },
        &format!("{HEADER},table"),
    );
    let out = bridgehcp(&["draw", "--data", "missing"], dir.path());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "competition `sp`: round 2 is incomplete: pair 3 has no table in it (the round has 2 of the 3 tables its 6 pairs need: table 1 (4 v 1), table 2 (5 v 2)); enter the missing table's rows before drawing round 3"
        ),
        "{stderr}"
    );

    // Round 2 seats 2 v 1 and 5 v 4 where 4 v 1 and 5 v 2 played: 1 and 2 met in round 1.
    let repeat = dir.path().join("repeat");
    write_event(&repeat, 2);
    edit_boards(
        &repeat,
        |mut cells| {
            if cells[8] == "2" {
                match (cells[2].as_str(), cells[3].as_str()) {
                    ("4", "1") => cells[2] = "2".into(),
                    ("5", "2") => cells[3] = "4".into(),
                    _ => {}
                }
            }
            Some(cells)
        },
        HEADER,
    );
    let out = bridgehcp(&["draw", "--data", "repeat"], dir.path());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "competition `sp`: round 2, the table of 2 v 1: pairs 2 and 1 meet again (they met in round 1, the table of 1 v 2); correct the round's rows before drawing round 3"
        ),
        "{stderr}"
    );
}
