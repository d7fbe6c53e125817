//! Datasets split into many files: the layouts a large federation (and a distributed
//! engine writing its tables) uses must give the same outputs as one file per table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bridgehcp::dataset::Dataset;
use bridgehcp::import::table::read_dataset;
use bridgehcp::report::dataset_writer::{dataset_frames, month_of};
use bridgehcp::report::files::write_parquet;

fn bridgehcp(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("cannot start bridgehcp: {e}"))
}

fn ok(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "bridgehcp failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const OUTPUTS: [&str; 8] = [
    "handicaps.parquet",
    "changes.parquet",
    "ranking.csv",
    "ranking.parquet",
    "standings.parquet",
    "board_scores.parquet",
    "unrated.csv",
    "quarantine.csv",
];

fn assert_same_outputs(a: &Path, b: &Path, names: &[&str]) {
    for name in names {
        assert!(
            read(&a.join(name)) == read(&b.join(name)),
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

/// Writes `dataset` with every table but `members` split into hive partitions by month
/// and club (`boards/month=2025-01/club=C3/part-0.parquet`), as a distributed engine
/// partitioning by both keys would. Returns the number of files per table.
fn write_by_month_and_club(dataset: &Dataset, dir: &Path) -> usize {
    let mut parts: BTreeMap<(String, String), Dataset> = BTreeMap::new();
    let mut key_of = BTreeMap::new();
    for competition in &dataset.competitions {
        let key = (
            month_of(competition),
            competition.club.clone().unwrap_or_default(),
        );
        key_of.insert(competition.competition_id.clone(), key.clone());
        parts
            .entry(key)
            .or_default()
            .competitions
            .push(competition.clone());
    }
    let key = |id: &str| key_of[id].clone();
    for entrant in &dataset.entrants {
        let part = parts.get_mut(&key(&entrant.competition_id)).unwrap();
        part.entrants.push(entrant.clone());
    }
    for result in &dataset.results {
        let part = parts.get_mut(&key(&result.competition_id)).unwrap();
        part.results.push(result.clone());
    }
    for board in &dataset.boards {
        let part = parts.get_mut(&key(&board.competition_id)).unwrap();
        part.boards.push(board.clone());
    }
    let members = Dataset {
        members: dataset.members.clone(),
        ..Dataset::default()
    };
    let frames = dataset_frames(&members).unwrap();
    std::fs::create_dir_all(dir).unwrap();
    write_parquet(&frames[0].1, &dir.join("members.parquet")).unwrap();
    for ((month, club), part) in &parts {
        for (table, frame) in dataset_frames(part).unwrap().into_iter().skip(1) {
            if frame.height() == 0 {
                continue;
            }
            let folder = dir
                .join(table)
                .join(format!("month={month}"))
                .join(format!("club={club}"));
            std::fs::create_dir_all(&folder).unwrap();
            write_parquet(&frame, &folder.join("part-0.parquet")).unwrap();
        }
    }
    parts.len()
}

/// The shipped sample split into one partition per month and club (about a hundred
/// files per table) scores and runs to the same bytes as the sample's single files.
#[test]
fn a_dataset_in_many_hive_partitions_gives_the_same_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = read_dataset(&sample()).unwrap();
    let split = dir.path().join("split");
    let partitions = write_by_month_and_club(&dataset, &split);
    assert!(partitions > 100, "{partitions} partitions");
    let data = sample();
    let data = data.to_str().unwrap();
    for (input, out) in [(data, "whole"), ("split", "parts")] {
        ok(&bridgehcp(
            &["run", "--quiet", "--data", input, "--out", out],
            dir.path(),
        ));
        ok(&bridgehcp(
            &["score", "--data", input, "--out", &format!("{out}-scored")],
            dir.path(),
        ));
    }
    assert_same_outputs(
        &dir.path().join("whole"),
        &dir.path().join("parts"),
        &OUTPUTS,
    );
    assert_same_outputs(
        &dir.path().join("whole-scored"),
        &dir.path().join("parts-scored"),
        &[
            "standings.parquet",
            "board_scores.parquet",
            "quarantine.csv",
        ],
    );
}

/// `sample --by-month` writes the importer's layout a month at a time; the federation
/// is the same as the one written whole, and runs to the same bytes.
#[test]
fn a_federation_written_month_by_month_is_the_same_federation() {
    let dir = tempfile::tempdir().unwrap();
    let common = ["--members", "150", "--months", "4", "--seed", "11"];
    let mut whole = vec!["sample", "--out", "whole"];
    whole.extend(common);
    let mut by_month = vec!["sample", "--out", "months", "--by-month"];
    by_month.extend(common);
    let a = ok(&bridgehcp(&whole, dir.path()));
    let b = ok(&bridgehcp(&by_month, dir.path()));
    // The same counts are printed (apart from the folder).
    assert_eq!(a.replace("whole", "months"), b);
    let months: Vec<String> = std::fs::read_dir(dir.path().join("months/boards"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(months.len(), 4, "{months:?}");
    assert!(months
        .iter()
        .all(|m| m.starts_with("month=2024-") || m.starts_with("month=2025-")));
    for (data, out) in [("whole", "out-whole"), ("months", "out-months")] {
        ok(&bridgehcp(
            &[
                "run", "--quiet", "--data", data, "--out", out, "--mode", "frozen",
            ],
            dir.path(),
        ));
    }
    assert_same_outputs(
        &dir.path().join("out-whole"),
        &dir.path().join("out-months"),
        &OUTPUTS,
    );
}

/// `--no-board-scores` leaves out `board_scores.parquet` (and removes an earlier run's)
/// and changes nothing else.
#[test]
fn no_board_scores_leaves_out_only_the_board_scores() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let data = data.to_str().unwrap();
    ok(&bridgehcp(
        &["run", "--quiet", "--data", data, "--out", "full"],
        dir.path(),
    ));
    std::fs::create_dir_all(dir.path().join("lean")).unwrap();
    std::fs::copy(
        dir.path().join("full/board_scores.parquet"),
        dir.path().join("lean/board_scores.parquet"),
    )
    .unwrap();
    ok(&bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            data,
            "--out",
            "lean",
            "--no-board-scores",
        ],
        dir.path(),
    ));
    assert!(!dir.path().join("lean/board_scores.parquet").exists());
    let others: Vec<&str> = OUTPUTS
        .iter()
        .copied()
        .filter(|name| *name != "board_scores.parquet")
        .collect();
    assert_same_outputs(&dir.path().join("full"), &dir.path().join("lean"), &others);
}
