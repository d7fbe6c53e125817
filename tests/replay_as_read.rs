//! A run from scratch, live or frozen, replays each month as soon as it is scored. A rule that needs
//! every table can still leave out a competition once the reading ends, after its month
//! was replayed: the run then scores again and replays from the start, and its outputs
//! are those of the dataset without that competition, byte for byte.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use std::path::Path;
use std::process::Command;

const MEMBERS: &str = "member_id,name\n1,Ann\n2,Bo\n3,Cy\n4,Di\n5,Ed\n6,Fa\n7,Gu\n8,Ha\n";

/// Three monthly matchpoint sessions of four pairs over two boards; `c1`, the first,
/// also has the results its club reported, whose percentages average 70 %: only the
/// end of the reading finds that (the rule needs every result row of the field).
const COMPETITIONS: &str = "competition_id,date,format,scoring,boards
c1,2026-01-05,pairs,matchpoints,2
c2,2026-02-02,pairs,matchpoints,2
c3,2026-03-02,pairs,matchpoints,2
";

fn entrants(id: &str) -> String {
    (1..=4)
        .map(|e| format!("{id},{e},{},{}\n", 2 * e - 1, 2 * e))
        .collect()
}

fn boards(id: &str) -> String {
    format!(
        "{id},1,1,2,3NT,S,9,400\n{id},1,3,4,4S,N,10,420\n\
         {id},2,1,2,2H,E,8,-110\n{id},2,3,4,PASS,,,0\n"
    )
}

/// The dataset, with `c1` or without it.
fn dataset(dir: &Path, with_c1: bool) {
    let ids: &[&str] = if with_c1 {
        &["c1", "c2", "c3"]
    } else {
        &["c2", "c3"]
    };
    let competitions: String = COMPETITIONS
        .lines()
        .filter(|l| with_c1 || !l.starts_with("c1,"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut results = String::from("competition_id,entrant,boards_played,score\n");
    if with_c1 {
        results.push_str("c1,1,2,70\nc1,2,2,70\nc1,3,2,70\nc1,4,2,70\n");
    }
    let tables = [
        ("members", MEMBERS.to_owned()),
        ("competitions", competitions),
        (
            "entrants",
            format!(
                "competition_id,entrant,player1,player2\n{}",
                ids.iter().map(|id| entrants(id)).collect::<String>()
            ),
        ),
        ("results", results),
        (
            "boards",
            format!(
                "competition_id,board,ns,ew,contract,declarer,tricks,ns_score\n{}",
                ids.iter().map(|id| boards(id)).collect::<String>()
            ),
        ),
    ];
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in tables {
        std::fs::write(dir.join(format!("{name}.csv")), text).unwrap();
    }
}

fn run(data: &Path, out: &Path, mode: &str) {
    let status = Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .args(["run", "--quiet", "--mode", mode, "--data"])
        .arg(data)
        .arg("--out")
        .arg(out)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_competition_left_out_after_its_month_replayed_is_left_out_of_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let (with, without) = (dir.path().join("with"), dir.path().join("without"));
    dataset(&with, true);
    dataset(&without, false);
    for mode in ["live", "frozen"] {
        let (out_with, out_without) = (format!("{mode}-with"), format!("{mode}-without"));
        run(&with, &dir.path().join(&out_with), mode);
        run(&without, &dir.path().join(&out_without), mode);
        let quarantine =
            std::fs::read_to_string(dir.path().join(&out_with).join("quarantine.csv")).unwrap();
        assert!(quarantine.contains("c1"), "{mode}: {quarantine}");
        assert!(
            quarantine.contains("average 70.00 %"),
            "{mode}: {quarantine}"
        );
        for name in [
            "handicaps.parquet",
            "changes.parquet",
            "standings.parquet",
            "board_scores.parquet",
            "ranking.csv",
        ] {
            let read = |folder: &str| std::fs::read(dir.path().join(folder).join(name)).unwrap();
            assert!(
                read(&out_with) == read(&out_without),
                "{mode}: {name} differs from the run without c1"
            );
        }
    }
}
