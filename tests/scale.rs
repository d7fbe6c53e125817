//! Datasets split into many files: the layouts a large federation (and a distributed
//! engine writing its tables) uses must give the same outputs as one file per table.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bridgehcp::dataset::Dataset;
use bridgehcp::store::files::write_parquet;
use bridgehcp::store::table::read_dataset;
use bridgehcp::store::writer::{dataset_frames, month_of};

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
    // An earlier run of the same data in `lean`, with its board scores.
    std::fs::create_dir_all(dir.path().join("lean")).unwrap();
    for name in ["board_scores.parquet", "run.json"] {
        std::fs::copy(
            dir.path().join("full").join(name),
            dir.path().join("lean").join(name),
        )
        .unwrap();
    }
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

/// Writes `dataset` as single files, but its board rows dealt round-robin over `files`
/// files (`boards/deal=K/part-0.parquet`): every competition's rows are spread over
/// several files, so none is whole before the last of them is read.
fn write_with_boards_dealt(dataset: &Dataset, dir: &Path, files: usize) {
    let head = Dataset {
        boards: Vec::new(),
        ..dataset.clone()
    };
    std::fs::create_dir_all(dir).unwrap();
    for (table, frame) in dataset_frames(&head).unwrap() {
        if table == "boards" {
            continue;
        }
        write_parquet(&frame, &dir.join(format!("{table}.parquet"))).unwrap();
    }
    for deal in 0..files {
        let part = Dataset {
            boards: dataset
                .boards
                .iter()
                .skip(deal)
                .step_by(files)
                .cloned()
                .collect(),
            ..Dataset::default()
        };
        let frames = dataset_frames(&part).unwrap();
        let (_, boards) = frames.iter().find(|(t, _)| *t == "boards").unwrap();
        let folder = dir.join("boards").join(format!("deal={deal}"));
        std::fs::create_dir_all(&folder).unwrap();
        write_parquet(boards, &folder.join("part-0.parquet")).unwrap();
    }
}

/// A run reads board rows a file at a time and scores a competition when the last
/// file holding its rows has been read: competitions spread over three files give the
/// same bytes as the single file, from scratch and continued.
#[test]
fn competitions_spread_over_several_board_files_give_the_same_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = read_dataset(&sample()).unwrap();
    write_with_boards_dealt(&dataset, &dir.path().join("dealt"), 3);
    let data = sample();
    let data = data.to_str().unwrap();
    for (input, out) in [(data, "whole"), ("dealt", "dealt-out")] {
        ok(&bridgehcp(
            &["run", "--quiet", "--data", input, "--out", out],
            dir.path(),
        ));
        let until = format!("{out}-june");
        ok(&bridgehcp(
            &[
                "run",
                "--quiet",
                "--data",
                input,
                "--until",
                "2026-06-30",
                "--out",
                &until,
            ],
            dir.path(),
        ));
        ok(&bridgehcp(
            &[
                "run",
                "--quiet",
                "--data",
                input,
                "--state",
                &until,
                "--out",
                &format!("{out}-continued"),
            ],
            dir.path(),
        ));
    }
    for (a, b) in [
        ("whole", "dealt-out"),
        ("whole-continued", "dealt-out-continued"),
    ] {
        assert_same_outputs(&dir.path().join(a), &dir.path().join(b), &OUTPUTS);
    }
    assert_same_outputs(
        &dir.path().join("whole"),
        &dir.path().join("dealt-out"),
        &["applied.parquet"],
    );
}

/// Each competition's number of board rows.
fn rows_per_competition(dataset: &Dataset) -> BTreeMap<String, usize> {
    let mut rows_of: BTreeMap<String, usize> = BTreeMap::new();
    for row in &dataset.boards {
        *rows_of.entry(row.competition_id.to_string()).or_default() += 1;
    }
    rows_of
}

/// Reads every board row from `reader`, asserting that each competition is handed on
/// whole (all of `rows_of`'s rows in one batch) and once; returns the number of batches.
fn read_whole_competitions(
    reader: &mut bridgehcp::store::table::BoardReader,
    rows_of: &BTreeMap<String, usize>,
) -> usize {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut batches = 0;
    reader
        .read_boards(&|_| true, &mut |rows| {
            batches += 1;
            let mut here: BTreeMap<String, usize> = BTreeMap::new();
            for row in rows.iter() {
                *here.entry(row.competition_id.to_string()).or_default() += 1;
            }
            for (id, count) in here {
                assert_eq!(count, rows_of[&id], "{id}: every row in one batch");
                assert!(seen.insert(id.clone(), count).is_none(), "{id} twice");
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(&seen, rows_of);
    batches
}

/// Each batch the board reader hands on holds whole competitions, each once; and a
/// second pass reads only the files that hold a competition it wants, so a continued
/// run reads the new month's boards, not the whole history, a second time.
#[test]
fn the_board_reader_hands_on_whole_competitions_and_skips_files_it_does_not_need() {
    use bridgehcp::quarantine::OnError;
    use bridgehcp::store::table::{open_checked, Opened};
    let dir = tempfile::tempdir().unwrap();
    let dataset = read_dataset(&sample()).unwrap();
    let dealt = dir.path().join("dealt");
    write_with_boards_dealt(&dataset, &dealt, 3);
    let rows_of = rows_per_competition(&dataset);

    let Opened {
        head,
        boards: mut reader,
    } = open_checked(&dealt, OnError::Strict).unwrap();
    assert_eq!(reader.files(), 3);
    assert!(head.boards.is_empty());
    let batches = read_whole_competitions(&mut reader, &rows_of);
    // Every competition of the sample has rows in the last of the three files.
    assert_eq!(batches, 1);
    assert!(reader.finish(&head).unwrap().is_empty());

    // The month layout: a second pass that wants one competition reads its month's
    // file only. The other files are made unreadable after the first pass; the second
    // pass does not notice.
    let months = dir.path().join("months");
    let partitions = write_by_month_and_club(&dataset, &months);
    assert!(partitions > 100);
    let Opened {
        head,
        boards: mut reader,
    } = open_checked(&months, OnError::Strict).unwrap();
    reader.read_boards(&|_| true, &mut |_| Ok(())).unwrap();
    reader.finish(&head).unwrap();
    let wanted = dataset.boards[0].competition_id.to_string();
    let wanted_file = {
        let c = dataset
            .competitions
            .iter()
            .find(|c| c.competition_id == wanted)
            .unwrap();
        months
            .join("boards")
            .join(format!("month={}", month_of(c)))
            .join(format!("club={}", c.club.clone().unwrap_or_default()))
            .join("part-0.parquet")
    };
    for entry in walk(&months.join("boards")) {
        if entry != wanted_file {
            std::fs::write(&entry, b"not parquet").unwrap();
        }
    }
    let mut got = 0;
    reader
        .read_boards(&|id| id == wanted, &mut |rows| {
            assert!(rows.iter().all(|r| r.competition_id == wanted));
            got += rows.len();
            Ok(())
        })
        .unwrap();
    assert_eq!(got, rows_of[&wanted]);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Rewrites `dir/boards.parquet` with `rows` rows per row group; returns the row
/// groups and how many competitions have rows on both sides of a row-group border.
fn rewrite_boards_in_row_groups(dir: &Path, rows: usize) -> (usize, usize) {
    use bridgehcp::store::files::{write_parquet_with, ParquetSettings};
    use polars::prelude::{ParquetReader, SerReader};
    let path = dir.join("boards.parquet");
    let frame = ParquetReader::new(std::fs::File::open(&path).unwrap())
        .finish()
        .unwrap();
    let settings = ParquetSettings {
        row_group_size: Some(rows),
        ..ParquetSettings::default()
    };
    write_parquet_with(&frame, &path, &settings).unwrap();
    let groups = ParquetReader::new(std::fs::File::open(&path).unwrap())
        .get_metadata()
        .unwrap()
        .row_groups
        .len();
    let ids = frame
        .column("competition_id")
        .unwrap()
        .str()
        .unwrap()
        .clone();
    let spanning = (rows..frame.height())
        .step_by(rows)
        .filter(|&border| ids.get(border - 1) == ids.get(border))
        .count();
    (groups, spanning)
}

/// One `boards.parquet` is read a row group at a time, each competition handed on when
/// its last row group has been read: a federation whose board file has row groups of
/// 200 rows, competitions running over their borders, gives the bytes of the same
/// federation in the importer's month layout, live, frozen and continued.
#[test]
fn one_board_file_in_small_row_groups_gives_the_bytes_of_the_month_layout() {
    let dir = tempfile::tempdir().unwrap();
    let common = ["--members", "150", "--months", "4", "--seed", "11"];
    let mut whole = vec!["sample", "--out", "whole"];
    whole.extend(common);
    let mut by_month = vec!["sample", "--out", "months", "--by-month"];
    by_month.extend(common);
    ok(&bridgehcp(&whole, dir.path()));
    ok(&bridgehcp(&by_month, dir.path()));
    let (groups, spanning) = rewrite_boards_in_row_groups(&dir.path().join("whole"), 200);
    assert!(groups > 20, "{groups} row groups");
    assert!(spanning > 10, "{spanning} competitions over a border");
    for (data, out) in [("whole", "out-whole"), ("months", "out-months")] {
        for (mode, name) in [
            ("live", out.to_owned()),
            ("frozen", format!("{out}-frozen")),
        ] {
            ok(&bridgehcp(
                &[
                    "run", "--quiet", "--data", data, "--out", &name, "--mode", mode,
                ],
                dir.path(),
            ));
        }
        let until = format!("{out}-until");
        ok(&bridgehcp(
            &[
                "run",
                "--quiet",
                "--data",
                data,
                "--until",
                "2025-01-31",
                "--out",
                &until,
            ],
            dir.path(),
        ));
        ok(&bridgehcp(
            &[
                "run",
                "--quiet",
                "--data",
                data,
                "--state",
                &until,
                "--out",
                &format!("{out}-continued"),
            ],
            dir.path(),
        ));
    }
    for suffix in ["", "-frozen", "-continued"] {
        assert_same_outputs(
            &dir.path().join(format!("out-whole{suffix}")),
            &dir.path().join(format!("out-months{suffix}")),
            &OUTPUTS,
        );
    }
}

/// The reader of one `boards.parquet` in row groups hands on each competition whole
/// and once, in several batches (not the whole file at the end); and a row that breaks
/// a rule in a later row group is named by its row in the file, as when the file is
/// read whole: in quarantine, and as the error of a strict run.
#[test]
fn one_board_file_streams_by_row_group_and_names_the_rows_of_the_file() {
    use bridgehcp::quarantine::OnError;
    use bridgehcp::store::files::{write_parquet_with, ParquetSettings};
    use bridgehcp::store::table::{open_checked, Opened};
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    ok(&bridgehcp(
        &[
            "sample",
            "--out",
            "data",
            "--members",
            "60",
            "--months",
            "2",
            "--seed",
            "5",
        ],
        dir.path(),
    ));
    let (groups, spanning) = rewrite_boards_in_row_groups(&data, 100);
    assert!(groups > 7 && spanning > 4, "{groups} groups, {spanning}");
    let dataset = read_dataset(&data).unwrap();
    let rows_of = rows_per_competition(&dataset);
    let Opened {
        head,
        boards: mut reader,
    } = open_checked(&data, OnError::Strict).unwrap();
    assert_eq!(reader.files(), 1);
    let batches = read_whole_competitions(&mut reader, &rows_of);
    assert!(batches > 2, "{batches} batches");
    assert!(reader.finish(&head).unwrap().is_empty());

    // Row 701 of the file (0-based 700, in the eighth row group) gets board 0.
    use polars::prelude::{ChunkSet, IntoColumn, ParquetReader, SerReader};
    let path = data.join("boards.parquet");
    let mut frame = ParquetReader::new(std::fs::File::open(&path).unwrap())
        .finish()
        .unwrap();
    let broken_id = frame
        .column("competition_id")
        .unwrap()
        .str()
        .unwrap()
        .get(700)
        .unwrap()
        .to_owned();
    let board = frame
        .column("board")
        .unwrap()
        .i32()
        .unwrap()
        .scatter_single(vec![700], Some(0))
        .unwrap();
    frame.with_column(board.into_column()).unwrap();
    let settings = ParquetSettings {
        row_group_size: Some(100),
        ..ParquetSettings::default()
    };
    write_parquet_with(&frame, &path, &settings).unwrap();

    let Opened {
        head,
        boards: mut reader,
    } = open_checked(&data, OnError::Quarantine).unwrap();
    let mut handed_on = Vec::new();
    reader
        .read_boards(&|_| true, &mut |rows| {
            handed_on.extend(rows.iter().map(|r| r.competition_id.to_string()));
            Ok(())
        })
        .unwrap();
    assert!(!handed_on.contains(&broken_id));
    let quarantine = reader.finish(&head).unwrap();
    let left_out: Vec<_> = quarantine.iter().collect();
    assert_eq!(left_out.len(), 1);
    assert_eq!(left_out[0].competition_id, broken_id);
    let reason = left_out[0].reasons[0].to_string();
    assert!(
        reason.contains("boards.parquet, row 701, column `board`"),
        "{reason}"
    );

    let Opened {
        boards: mut reader, ..
    } = open_checked(&data, OnError::Strict).unwrap();
    let error = reader
        .read_boards(&|_| true, &mut |_| Ok(()))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("boards.parquet, row 701, column `board`"),
        "{error}"
    );
}

/// `sample` without `--by-month` generates a few months at a time and writes each table
/// a row group at a time; its files have the bytes of the federation generated whole
/// and written at once, with entrants' `house` column (a Swiss congress with an odd
/// entry, somewhere in the history) and without it. Beside them, the competition
/// index, and no other file.
#[test]
fn sample_written_as_it_is_generated_has_the_bytes_of_the_federation_written_whole() {
    use bridgehcp::store::write_dataset;
    use bridgehcp::synth::{generate, SynthConfig};
    use polars::prelude::{ParquetReader, SerReader};
    let dir = tempfile::tempdir().unwrap();
    for (seed, house) in [(3u64, false), (1, true)] {
        let streamed = format!("streamed-{seed}");
        ok(&bridgehcp(
            &[
                "sample",
                "--out",
                &streamed,
                "--members",
                "200",
                "--months",
                "4",
                "--seed",
                &seed.to_string(),
            ],
            dir.path(),
        ));
        let config = SynthConfig {
            members: 200,
            months: 4,
            seed,
            ..SynthConfig::default()
        };
        let whole = dir.path().join(format!("whole-{seed}"));
        write_dataset(&generate(&config), &whole).unwrap();
        let entrants = ParquetReader::new(
            std::fs::File::open(dir.path().join(&streamed).join("entrants.parquet")).unwrap(),
        )
        .schema()
        .unwrap();
        assert_eq!(entrants.contains("house"), house, "seed {seed}");
        for table in ["members", "competitions", "entrants", "results", "boards"] {
            let name = format!("{table}.parquet");
            assert!(
                read(&dir.path().join(&streamed).join(&name)) == read(&whole.join(&name)),
                "seed {seed}: {name} differs"
            );
        }
        let mut written: Vec<String> = std::fs::read_dir(dir.path().join(&streamed))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        written.sort();
        assert_eq!(
            written,
            [
                "boards.parquet",
                "competition_index.parquet",
                "competitions.parquet",
                "entrants.parquet",
                "members.parquet",
                "results.parquet"
            ]
        );
    }
}
