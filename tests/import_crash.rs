//! `bridgehcp import` killed while it adds real club files to an existing dataset: at
//! every named point of its commit, and (where `strace` is installed) at every rename
//! it makes. The dataset afterwards is byte for byte the version before the import or
//! the version after it, `run` accepts it, and importing the same files again gives the
//! version after it (new players included in `members`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, kill_at, no_realdata, realdata};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bridgekam(name: &str) -> PathBuf {
    realdata().join("pbn-bridgekam").join(name)
}

/// The dataset before: one evening in November 2015.
const BEFORE: [&str; 1] = ["bridgekam_2015-11-12.pbn"];
/// The batch: two more November evenings (the month's partitions are replaced) and one
/// in December (new partitions), with players the dataset does not know yet.
const BATCH: [&str; 3] = [
    "bridgekam_2015-11-19.pbn",
    "bridgekam_2015-11-26.pbn",
    "bridgekam_2015-12-03.pbn",
];

fn import_args(files: &[&str], out: &Path) -> Vec<String> {
    let mut args = vec!["import".to_string(), "pbn".to_string()];
    args.extend(files.iter().map(|f| bridgekam(f).display().to_string()));
    args.push("--out".into());
    args.push(out.display().to_string());
    args
}

fn import(files: &[&str], out: &Path, cwd: &Path) -> Output {
    let args = import_args(files, out);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    bridgehcp(&refs, cwd)
}

fn succeeded(output: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(
        output.status.success(),
        "{what} failed\nstdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    stderr
}

/// Every table file below `dir` (`.parquet`), by relative path, with its bytes. The
/// import log is left out: it is the one file that records the history of imports
/// (batch numbers and times), and it is written after the switch.
fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "parquet")
                && !path.ends_with("import_log.parquet")
            {
                let relative = path.strip_prefix(root).unwrap().display().to_string();
                out.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Hidden entries beside the dataset and inside it: what a killed writer leaves.
fn leftovers(cwd: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for dir in [cwd.to_path_buf(), cwd.join("fed")] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            names.extend(
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with('.')),
            );
        }
    }
    names.sort();
    names
}

/// The member ids in `members.parquet`.
fn member_count(dir: &Path) -> usize {
    use polars::prelude::*;
    let file = std::fs::File::open(dir.join("members.parquet")).unwrap();
    ParquetReader::new(file).finish().unwrap().height()
}

/// A fresh dataset `fed/` in `cwd` holding [`BEFORE`].
fn fresh(cwd: &Path) {
    let _ = std::fs::remove_dir_all(cwd.join("fed"));
    succeeded(&import(&BEFORE, Path::new("fed"), cwd), "import before");
}

/// `run` reads the dataset; returns its stderr (what it recovered).
fn run_accepts(cwd: &Path) -> String {
    let _ = std::fs::remove_dir_all(cwd.join("out"));
    succeeded(
        &bridgehcp(&["run", "--quiet", "--data", "fed", "--out", "out"], cwd),
        "run",
    )
}

struct Versions {
    before: BTreeMap<String, Vec<u8>>,
    after: BTreeMap<String, Vec<u8>>,
}

fn versions(cwd: &Path) -> Versions {
    fresh(cwd);
    let before = tables(&cwd.join("fed"));
    succeeded(&import(&BATCH, Path::new("fed"), cwd), "import batch");
    let after = tables(&cwd.join("fed"));
    assert_eq!(
        before
            .keys()
            .filter(|k| k.contains("month=2015-11"))
            .count(),
        4,
        "competitions, entrants, results (the printed percentages) and boards"
    );
    assert_eq!(
        after.keys().filter(|k| k.contains("month=2015-12")).count(),
        4,
        "the batch adds December: {:?}",
        after.keys()
    );
    assert_ne!(before["members.parquet"], after["members.parquet"]);
    Versions { before, after }
}

/// After a kill: the dataset is one of the two versions (`run` first, which recovers
/// one left between two renames), `run` accepts it, the same import again gives the
/// version after, and nothing is left behind.
fn check_after_kill(cwd: &Path, v: &Versions, what: &str) -> bool {
    let recovered = run_accepts(cwd);
    let now = tables(&cwd.join("fed"));
    let is_before = now == v.before;
    assert!(
        is_before || now == v.after,
        "{what}: the dataset is neither the version before nor the one after: {:?}",
        now.keys()
    );
    // The log changed with the dataset, or not at all: it holds the batch exactly when
    // the dataset does.
    let log = bridgehcp::store::import_log::read(&cwd.join("fed")).unwrap();
    let imported = log.iter().filter(|r| r.status == "imported").count();
    assert_eq!(
        imported,
        if is_before {
            BEFORE.len()
        } else {
            BEFORE.len() + BATCH.len()
        },
        "{what}: the log's imported lines"
    );
    if is_before {
        // The import did not happen: its files are imported again, new players and all.
        succeeded(&import(&BATCH, Path::new("fed"), cwd), what);
    } else {
        let stdout =
            String::from_utf8_lossy(&import(&BATCH, Path::new("fed"), cwd).stdout).to_string();
        assert!(stdout.contains("3 unchanged"), "{what}: {stdout}");
    }
    assert!(
        tables(&cwd.join("fed")) == v.after,
        "{what}: the import again"
    );
    assert!(member_count(&cwd.join("fed")) > 0);
    assert_eq!(leftovers(cwd), Vec::<String>::new(), "{what}: {recovered}");
    is_before
}

#[test]
fn an_import_killed_at_each_point_of_its_commit_leaves_one_whole_version() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let v = versions(cwd);
    for (point, rename, expect_before) in [
        ("members-written", "exchange", true),
        ("staged", "exchange", true),
        ("swapped", "exchange", false),
        ("staged", "two", true),
        ("between-renames", "two", true),
    ] {
        fresh(cwd);
        kill_at(cwd, &import_args(&BATCH, Path::new("fed")), point, rename);
        assert!(
            !leftovers(cwd).is_empty(),
            "{point}: the kill left nothing to clean up"
        );
        if point == "between-renames" {
            assert!(!cwd.join("fed").exists(), "the old version waits beside");
            let stderr = run_accepts(cwd);
            assert!(
                stderr.contains("was moved back from"),
                "run says what it found: {stderr}"
            );
        }
        if point == "members-written" {
            let stderr = run_accepts(cwd);
            assert!(
                stderr.contains("an import was killed before its new version was in place; the dataset is as it was before that import"),
                "run says what it found: {stderr}"
            );
        }
        let was_before = check_after_kill(cwd, &v, &format!("{point} ({rename})"));
        assert_eq!(was_before, expect_before, "{point} ({rename})");
    }
}

/// A kill as a user's machine would deal it: `strace` kills the import at its n-th rename, for every n
/// until the import completes. Skipped where `strace` is not installed.
#[test]
fn an_import_killed_at_every_rename_leaves_one_whole_version() {
    if no_realdata() {
        return;
    }
    let has_strace = Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_strace {
        eprintln!("strace is not installed: the kill at every rename is not run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let v = versions(cwd);
    // strace counts each system call on its own: every rename of one kind, then of the
    // other (`renameat2` is the exchange of the two folders; the kill comes before the
    // call), then the first removals of the previous version, after the exchange.
    let mut outcomes = (0, 0);
    for (call, most) in [
        ("rename", 200),
        ("renameat", 200),
        ("renameat2", 200),
        ("unlinkat", 2),
    ] {
        for n in 1..=most {
            fresh(cwd);
            let output = Command::new("strace")
                .args(["-f", "-o", "/dev/null", "-e"])
                .arg(format!("trace={call}"))
                .arg("-e")
                .arg(format!("inject={call}:signal=SIGKILL:when={n}"))
                .arg(env!("CARGO_BIN_EXE_bridgehcp"))
                .args(import_args(&BATCH, Path::new("fed")))
                .current_dir(cwd)
                .output()
                .unwrap();
            if output.status.success() {
                assert!(tables(&cwd.join("fed")) == v.after);
                break;
            }
            if check_after_kill(cwd, &v, &format!("killed at {call} {n}")) {
                outcomes.0 += 1;
            } else {
                outcomes.1 += 1;
            }
        }
    }
    // Before the exchange the import had not happened; after it, it had: the kills at
    // the two removals of the previous version. The import report and the log are
    // written into the new version before the exchange, so they change with it.
    assert!(outcomes.0 >= 9 && outcomes.1 == 2, "{outcomes:?}");
}

/// Run from inside the dataset folder, an import would leave the shell in the removed
/// previous version; it is refused, saying how to run it.
#[test]
fn an_import_from_inside_the_dataset_folder_is_refused() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    fresh(cwd);
    let before = tables(&cwd.join("fed"));
    let output = import(&BATCH, Path::new("."), &cwd.join("fed"));
    let message = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("--out .: the command runs inside the dataset folder")
            && message.contains("--out fed`"),
        "{message}"
    );
    assert!(tables(&cwd.join("fed")) == before);
}
