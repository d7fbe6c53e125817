//! The confidence figure of `fsb-2007-plus`, the gain of `fsb-2007-kalman` that follows
//! it, the partnership pull and the familiarity term, through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use std::path::Path;

use polars::prelude::{ParquetReader, SerReader};

mod common;
use common::{bridgehcp, ok, sample};

fn plus_factors() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/factors/fsb-2007-plus.toml")
        .display()
        .to_string()
}

fn kalman_factors() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/factors/fsb-2007-kalman.toml")
        .display()
        .to_string()
}

/// `(member_id, handicap)` from a run's `handicaps.parquet`.
fn handicaps(out: &Path) -> Vec<(i64, f64)> {
    let path = out.join("handicaps.parquet");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let frame = ParquetReader::new(file)
        .finish()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ids = frame.column("member_id").unwrap().i64().unwrap().clone();
    let h = frame.column("handicap").unwrap().f64().unwrap().clone();
    (0..frame.height())
        .map(|i| (ids.get(i).unwrap(), h.get(i).unwrap()))
        .collect()
}

/// `(member_id, handicap_sd)` from a run's `handicaps.parquet`.
fn confidence(out: &Path) -> Vec<(i64, Option<f64>)> {
    let path = out.join("handicaps.parquet");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let frame = ParquetReader::new(file)
        .finish()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ids = frame.column("member_id").unwrap().i64().unwrap().clone();
    let sd = frame.column("handicap_sd").unwrap().f64().unwrap().clone();
    (0..frame.height())
        .map(|i| (ids.get(i).unwrap(), sd.get(i)))
        .collect()
}

fn run(dir: &Path, factors: Option<&str>) -> std::path::PathBuf {
    let out = dir.join(if factors.is_some() { "plus" } else { "fsb" });
    let mut args = vec!["run", "--quiet", "--data", "data", "--out"];
    let out_arg = out.display().to_string();
    args.push(&out_arg);
    if let Some(f) = factors {
        args.extend_from_slice(&["--factors", f]);
    }
    ok(&bridgehcp(&args, dir));
    out
}

/// One 24-board pairs session: Ann (10 MP) and Bo (20) score 55 % against Cy (0) and
/// Di (5); Ed (0) does not play.
fn one_session(dir: &Path) {
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(
        data.join("members.csv"),
        "member_id,name,masterpoints\n1,Ann,10\n2,Bo,20\n3,Cy,0\n4,Di,5\n5,Ed,0\n",
    )
    .unwrap();
    std::fs::write(
        data.join("competitions.csv"),
        "competition_id,date,format,scoring,boards\nc1,2026-01-05,pairs,matchpoints,24\n",
    )
    .unwrap();
    std::fs::write(
        data.join("entrants.csv"),
        "competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\n",
    )
    .unwrap();
    std::fs::write(
        data.join("results.csv"),
        "competition_id,entrant,boards_played,score\nc1,1,24,55\nc1,2,24,45\n",
    )
    .unwrap();
}

#[test]
fn the_kalman_gain_moves_a_new_player_by_the_filters_share() {
    let dir = tempfile::tempdir().unwrap();
    one_session(dir.path());
    let out = dir.path().join("kalman");
    ok(&bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            "data",
            "--factors",
            &kalman_factors(),
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    ));
    // By hand: starting handicaps 52/1.1 = 47.272727, 52/1.2 = 43.333333, 52 and
    // 52/1.05 = 49.523810; pairs 45.303030 and 50.761905, so Ann and Bo are expected
    // (50.761905 − 45.303030)/2 = +2.729437 % and score +5. Nobody has played: P = 20²
    // = 400, R = 100²/24 = 416.666667, K = 400/816.666667 = 0.489796; each handicap
    // moves K·C_b·(r − r̂) = 0.489796·2·2.270563 = 2.224225, and the figure becomes
    // √((1 − K)·P) = √(400·416.666667/816.666667) = 100/7 = 14.285714.
    let k: f64 = 400.0 / (400.0 + 10_000.0 / 24.0);
    assert!((k - 0.489_796).abs() < 1e-6);
    let step = k * 2.0 * (5.0 - 2.729_437);
    assert!((step - 2.224_225).abs() < 1e-5, "{step}");
    let got = handicaps(&out);
    let want = [
        (1, 47.272_727 - 2.224_225),
        (2, 43.333_333 - 2.224_225),
        (3, 52.0), // 52 + 2.22 stops at the cap
        (4, 49.523_810 + 2.224_225),
        (5, 52.0),
    ];
    for ((id, h), (want_id, want_h)) in got.iter().zip(want) {
        assert_eq!(*id, want_id);
        assert!((h - want_h).abs() < 1e-5, "member {id}: {h} vs {want_h}");
    }
    let figures = confidence(&out);
    for (id, sd) in &figures[..4] {
        let sd = sd.unwrap_or_else(|| panic!("member {id} has no figure"));
        assert!((sd - 100.0 / 7.0).abs() < 1e-9, "member {id}: {sd}");
    }
    assert_eq!(figures[4], (5, Some(20.0)));
}

#[test]
fn the_partnership_pull_closes_a_share_of_each_pairs_gap() {
    let dir = tempfile::tempdir().unwrap();
    one_session(dir.path());
    let default = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/factors/fsb-2007.toml"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pull.toml"),
        format!("{default}\n[partnership]\npull_per_board = 0.005\n"),
    )
    .unwrap();
    let out = dir.path().join("pull");
    ok(&bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            "data",
            "--factors",
            "pull.toml",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    ));
    // By hand: fsb-2007 moves Ann and Bo by −(24.6/23)·2·24·(5 − 2.729437)/480 =
    // −0.242851 (Cy and Di by +0.242851). The pull closes p = 0.005·24 = 0.12 of each
    // pair's gap, 0.06 each: 0.06·(47.272727 − 43.333333) = 0.236364 and
    // 0.06·(52 − 49.523810) = 0.148571. Each pair's mean moves by the seed's change alone.
    let got = handicaps(&out);
    let want = [
        (1, 47.272_727 - 0.242_851 - 0.236_364),
        (2, 43.333_333 - 0.242_851 + 0.236_364),
        (3, 52.0), // 52 + 0.242851 − 0.148571 stops at the cap
        (4, 49.523_810 + 0.242_851 + 0.148_571),
        (5, 52.0),
    ];
    for ((id, h), (want_id, want_h)) in got.iter().zip(want) {
        assert_eq!(*id, want_id);
        assert!((h - want_h).abs() < 1e-5, "member {id}: {h} vs {want_h}");
    }
}

#[test]
fn one_session_shrinks_the_confidence_figure_by_the_share_it_moved() {
    let dir = tempfile::tempdir().unwrap();
    one_session(dir.path());
    let plus = run(dir.path(), Some(&plus_factors()));
    // By hand: a newcomer's impact at 0 boards is 180, so 24 of 24 boards of a pairs
    // event move the handicap g = W·N_G/180 = (24.6/23)·24/180 of the way, and the
    // figure becomes √((1 − g)²·10² + g²·140²/24).
    let g: f64 = 24.6 / 23.0 * 24.0 / 180.0;
    let expected = ((1.0 - g) * (1.0 - g) * 100.0 + g * g * 19600.0 / 24.0).sqrt();
    assert!((expected - 9.493_194).abs() < 1e-6, "{expected}");
    let figures = confidence(&plus);
    assert_eq!(figures.len(), 5);
    for (id, sd) in &figures[..4] {
        let sd = sd.unwrap_or_else(|| panic!("member {id} has no figure"));
        assert!((sd - expected).abs() < 1e-12, "member {id}: {sd}");
    }
    // Ed did not play: his figure is still the starting one.
    assert_eq!(figures[4], (5, Some(10.0)));

    // The default set publishes none.
    let fsb = run(dir.path(), None);
    assert!(confidence(&fsb).iter().all(|(_, sd)| sd.is_none()));
}

#[test]
fn on_the_sample_the_figure_lies_between_its_floor_and_its_start() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(sample(), dir.path().join("data")).unwrap();
    let plus = run(dir.path(), Some(&plus_factors()));
    // Every board moves a handicap at most 1/180 … 1/360 of the way with a board weight
    // above 1, so the figure never falls below board_sd/√(2·impact) = 140/√720.
    let floor = 140.0 / 720f64.sqrt();
    let figures = confidence(&plus);
    assert!(!figures.is_empty());
    for (id, sd) in figures {
        let sd = sd.unwrap_or_else(|| panic!("member {id} has no figure"));
        assert!(sd > floor && sd <= 10.0, "member {id}: {sd}");
    }
}

#[test]
fn a_continued_run_carries_the_figure_over_exactly() {
    // The Kalman gain reads the figure and the last day played: both must carry over.
    for factors in [plus_factors(), kalman_factors()] {
        continued_run_matches_one_run(&factors);
    }
}

fn continued_run_matches_one_run(factors: &str) {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample();
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            "--quiet",
            "--data",
            sample.to_str().unwrap(),
            "--factors",
            factors,
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        ok(&bridgehcp(&args, dir.path()));
    };
    run("nov", &["--until", "2024-11-30"]);
    run("rest", &["--state", "nov"]);
    run("all", &[]);
    let (rest, all) = (
        confidence(&dir.path().join("rest")),
        confidence(&dir.path().join("all")),
    );
    assert_eq!(rest, all);
    assert_eq!(
        handicaps(&dir.path().join("rest")),
        handicaps(&dir.path().join("all"))
    );
    // Not trivially equal: November's players have a smaller figure than the start's.
    let nov = confidence(&dir.path().join("nov"));
    assert!(nov.iter().any(|(_, sd)| sd.is_some_and(|sd| sd < 10.0)));
    assert!(nov.iter().zip(&all).any(|(n, a)| n != a));
}

#[test]
fn score_reads_the_playing_handicaps_with_the_factor_set_of_their_run() {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample();
    let sample = sample.to_str().unwrap();
    let factors = plus_factors();
    let bridgehcp = |args: &[&str]| bridgehcp(args, dir.path());
    let nov = bridgehcp(&[
        "run",
        "--quiet",
        "--data",
        sample,
        "--factors",
        &factors,
        "--until",
        "2024-11-30",
        "--out",
        "nov",
    ]);
    assert!(
        nov.status.success(),
        "{}",
        String::from_utf8_lossy(&nov.stderr)
    );
    // The built-in set is not the one November ran with: refused, naming both.
    let refused = bridgehcp(&[
        "score",
        "--data",
        sample,
        "--state",
        "nov",
        "--out",
        "a",
        "--start-list",
    ]);
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(message.contains("fsb-2007-plus"), "{message}");
    let scored = bridgehcp(&[
        "score",
        "--data",
        sample,
        "--state",
        "nov",
        "--factors",
        &factors,
        "--out",
        "b",
        "--start-list",
    ]);
    assert!(
        scored.status.success(),
        "{}",
        String::from_utf8_lossy(&scored.stderr)
    );
    assert!(dir.path().join("b/start_list.csv").is_file());
}

/// `(competition_id, member_id, expected)` of every row of a run's `changes.parquet`.
fn expected_rows(out: &Path) -> Vec<(String, i64, f64)> {
    let path = out.join("changes.parquet");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let frame = ParquetReader::new(file)
        .finish()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let comp = frame
        .column("competition_id")
        .unwrap()
        .str()
        .unwrap()
        .clone();
    let ids = frame.column("member_id").unwrap().i64().unwrap().clone();
    let x = frame.column("expected").unwrap().f64().unwrap().clone();
    (0..frame.height())
        .map(|i| {
            (
                comp.get(i).unwrap().to_string(),
                ids.get(i).unwrap(),
                x.get(i).unwrap(),
            )
        })
        .collect()
}

/// The familiarity term: Ann and Bo play two sessions together; Cy partners Di in the
/// first and Ed in the second. With `new_pair` 4, `settled_pair` −2 and `half_sessions`
/// 1, both pairs of the first session are new (4 units each: nothing changes), and in
/// the second Ann and Bo have one session behind them, `4 − 6·1/2 = 1` unit, against
/// Cy and Ed's 4: Ann and Bo are expected (4 − 1)/2 = 1.5 % more than without the term,
/// Cy and Ed 1.5 % less.
#[test]
fn a_pairs_sessions_together_enter_its_expected_result() {
    let dir = tempfile::tempdir().unwrap();
    one_session(dir.path());
    let data = dir.path().join("data");
    std::fs::write(
        data.join("competitions.csv"),
        "competition_id,date,format,scoring,boards\nc1,2026-01-05,pairs,matchpoints,24\nc2,2026-01-12,pairs,matchpoints,24\n",
    )
    .unwrap();
    std::fs::write(
        data.join("entrants.csv"),
        "competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\nc2,1,1,2\nc2,2,3,5\n",
    )
    .unwrap();
    std::fs::write(
        data.join("results.csv"),
        "competition_id,entrant,boards_played,score\nc1,1,24,55\nc1,2,24,45\nc2,1,24,52\nc2,2,24,48\n",
    )
    .unwrap();
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/factors/fsb-2007.toml"),
    )
    .unwrap();
    let familiar = dir.path().join("familiar.toml");
    std::fs::write(
        &familiar,
        format!(
            "{base}\n[familiarity]\nnew_pair = 4.0\nsettled_pair = -2.0\nhalf_sessions = 1.0\n"
        ),
    )
    .unwrap();
    let without = expected_rows(&run(dir.path(), None));
    let with = expected_rows(&run(dir.path(), Some(familiar.to_str().unwrap())));
    assert_eq!(without.len(), 8);
    for ((comp, id, x), (comp_w, id_w, x_w)) in without.iter().zip(&with) {
        assert_eq!((comp, id), (comp_w, id_w));
        let shift = match (comp.as_str(), id) {
            ("c1", _) => 0.0,
            ("c2", 1 | 2) => 1.5,
            _ => -1.5,
        };
        assert!((x_w - x - shift).abs() < 1e-9, "{comp} {id}: {x} → {x_w}");
    }
}
