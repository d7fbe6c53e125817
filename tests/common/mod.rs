//! What every binary-level test file needs: the real binary run in a folder, the shipped
//! sample, the real club files (`realdata.rs`), and reading what a run wrote.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod realdata;
#[allow(unused_imports)] // the files that read no real club files
pub use realdata::{no_realdata, realdata};

/// `bridgehcp ARGS` run in `cwd`, as a user runs it: without the backtrace variables a
/// developer's shell may set, so that messages read as a user reads them.
pub fn bridgehcp(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .unwrap_or_else(|e| panic!("cannot start bridgehcp: {e}"))
}

/// The shipped sample federation.
pub fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample")
}

/// The command succeeded; its standard output.
pub fn ok(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "bridgehcp failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn text(path: &Path) -> String {
    String::from_utf8(read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A small dataset of CSV tables in `dir/data` (one matchpoint competition of two
/// pairs, members 1 to 4) whose `members.csv` is `members`.
pub fn csv_dataset(dir: &Path, members: &[u8]) {
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("members.csv"), members).unwrap();
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

/// `bridgehcp import auto FILES --out OUT EXTRA…`, run as a user runs it.
pub fn import_auto(files: &[&Path], out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .arg("import")
        .arg("auto")
        .args(files)
        .arg("--out")
        .arg(out)
        .args(extra)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .unwrap_or_else(|e| panic!("cannot start bridgehcp: {e}"))
}

/// Starts `bridgehcp ARGS` in `cwd` stopping at `point` of its commit (with the rename
/// `rename` for the swap: `exchange` or `two`), and kills it (SIGKILL) there.
pub fn kill_at<S: AsRef<std::ffi::OsStr>>(cwd: &Path, args: &[S], point: &str, rename: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .args(args)
        .current_dir(cwd)
        .env("BRIDGEHCP_TEST_PAUSE_AT", point)
        .env("BRIDGEHCP_TEST_RENAME", rename)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut seen = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        let reached = line.contains(&format!("paused at {point}"));
        seen.push(line);
        if reached {
            break;
        }
    }
    assert!(
        seen.last().is_some_and(|l| l.contains("paused at")),
        "the command did not reach {point}: {seen:?}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Writes a club of pair sessions as CSV tables into `data`: `members` is the whole
/// members table, each session is (id, date, the four pairs' percentages), pair `p`
/// being members `2p + 1` and `2p + 2`, 24 boards each.
pub fn pairs_club<S: AsRef<str>>(data: &Path, members: String, sessions: &[(S, S, [u32; 4])]) {
    let mut competitions = String::from("competition_id,date,format,scoring,boards\n");
    let mut entrants = String::from("competition_id,entrant,player1,player2\n");
    let mut results = String::from("competition_id,entrant,boards_played,score\n");
    for (id, date, scores) in sessions {
        let (id, date) = (id.as_ref(), date.as_ref());
        competitions.push_str(&format!("{id},{date},pairs,matchpoints,24\n"));
        for (pair, score) in scores.iter().enumerate() {
            let (a, b) = (2 * pair + 1, 2 * pair + 2);
            entrants.push_str(&format!("{id},{},{a},{b}\n", pair + 1));
            results.push_str(&format!("{id},{},24,{score}\n", pair + 1));
        }
    }
    for (table, content) in [
        ("members.csv", members),
        ("competitions.csv", competitions),
        ("entrants.csv", entrants),
        ("results.csv", results),
    ] {
        std::fs::write(data.join(table), content).unwrap();
    }
}
