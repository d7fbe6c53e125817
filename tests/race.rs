//! A continued run and a run replacing the folder it continues from, at the same time,
//! with the real binary: whichever comes second waits for the first, and the continued
//! run reads one version of its state, never the ledger of one run with the history of
//! the next (which duplicated change rows).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, ok, read};

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// The files a continued run writes byte for byte as a fresh run over the same data
/// (`run.json` records timings, `corrections.csv` is a continued run's own).
const DATA_FILES: [&str; 6] = [
    "applied.parquet",
    "changes.parquet",
    "handicaps.parquet",
    "ranking.csv",
    "standings.parquet",
    "quarantine.csv",
];

/// Six monthly sessions of four pairs, members 1 to 8, as CSV tables in `dir/data`.
fn dataset(dir: &Path) {
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    let mut members = String::from("member_id,name\n");
    for id in 1..=8 {
        members.push_str(&format!("{id},Member {id}\n"));
    }
    let scores = [[62, 55, 45, 38], [40, 58, 52, 50], [57, 43, 61, 39]];
    let sessions: Vec<(String, String, [u32; 4])> = (1..=6)
        .map(|month| {
            let id = format!("c{month}");
            (id, format!("2026-0{month}-10"), scores[month % 3])
        })
        .collect();
    common::pairs_club(&data, members, &sessions);
}

/// A `bridgehcp` process whose standard error is read line by line as it comes.
struct Running {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

/// Starts `bridgehcp ARGS` in `cwd`; with `pause`, it stops at that point of its commit
/// until the file `resume` exists.
fn start(cwd: &Path, args: &[&str], pause: Option<(&str, &Path)>) -> Running {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bridgehcp"));
    command
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some((point, resume)) = pause {
        command
            .env("BRIDGEHCP_TEST_PAUSE_AT", point)
            .env("BRIDGEHCP_TEST_RESUME_WHEN", resume);
    }
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (send, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    Running {
        child,
        lines,
        seen: Vec::new(),
    }
}

impl Running {
    /// Waits (a minute at most) for a line of standard error holding `text`.
    fn wait_for(&mut self, text: &str) {
        while !self.seen.iter().any(|line| line.contains(text)) {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => self.seen.push(line),
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("no line with `{text}` on stderr; saw {:?}", self.seen);
                }
            }
        }
    }

    /// Waits for the end; the standard output of a success.
    fn succeeded(mut self) -> String {
        let mut stdout = String::new();
        std::io::Read::read_to_string(&mut self.child.stdout.take().unwrap(), &mut stdout).unwrap();
        let status = self.child.wait().unwrap();
        self.seen.extend(self.lines.try_iter());
        assert!(status.success(), "{status}: {stdout}\n{:?}", self.seen);
        stdout
    }
}

fn assert_same_data_files(a: &Path, b: &Path) {
    for name in DATA_FILES {
        assert_eq!(read(&a.join(name)), read(&b.join(name)), "{name}");
    }
}

/// A run replacing `state` has staged its new outputs and is held there; a run that
/// continues from `state` starts meanwhile. It waits for the replacement, then
/// continues from the new version as a whole.
#[test]
fn a_continued_run_waits_for_the_run_replacing_its_state() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd);
    let until = |month: &str| format!("2026-{month}-28");
    let (feb, apr) = (until("02"), until("04"));
    ok(&bridgehcp(
        &[
            "run", "-q", "--data", "data", "--out", "state", "--until", &feb,
        ],
        cwd,
    ));
    let resume = cwd.join("resume");
    let replace = [
        "run",
        "-q",
        "--data",
        "data",
        "--out",
        "state",
        "--until",
        &apr,
        "--replace",
    ];
    let mut writer = start(cwd, &replace, Some(("staged", &resume)));
    writer.wait_for("paused at staged");
    let continued = ["run", "--data", "data", "--state", "state", "--out", "jun"];
    let mut reader = start(cwd, &continued, None);
    reader.wait_for("waiting for another bridgehcp command that is replacing state");
    std::fs::write(&resume, "").unwrap();
    writer.succeeded();
    let stdout = reader.succeeded();
    // The state it continued from is the new one: four competitions already applied.
    assert!(
        stdout.contains("2 competitions applied (4 already applied by the previous run"),
        "{stdout}"
    );
    ok(&bridgehcp(
        &["run", "-q", "--data", "data", "--out", "full"],
        cwd,
    ));
    assert_same_data_files(&cwd.join("jun"), &cwd.join("full"));
}

/// A continued run is held at its own commit, its state still locked; a run that
/// replaces that state starts meanwhile, and waits until the continued run is done.
#[test]
fn a_run_replacing_a_state_waits_for_the_run_continuing_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd);
    let feb = "2026-02-28";
    ok(&bridgehcp(
        &[
            "run", "-q", "--data", "data", "--out", "state", "--until", feb,
        ],
        cwd,
    ));
    let resume = cwd.join("resume");
    let continued = ["run", "--data", "data", "--state", "state", "--out", "jun"];
    let mut reader = start(cwd, &continued, Some(("staged", &resume)));
    reader.wait_for("paused at staged");
    let replace = ["run", "-q", "--data", "data", "--out", "state", "--replace"];
    let mut writer = start(cwd, &replace, None);
    writer.wait_for("waiting for another bridgehcp command that is using state");
    std::fs::write(&resume, "").unwrap();
    let stdout = reader.succeeded();
    writer.succeeded();
    // It continued from the state as it was when it started: two competitions applied.
    assert!(
        stdout.contains("4 competitions applied (2 already applied by the previous run"),
        "{stdout}"
    );
    ok(&bridgehcp(
        &["run", "-q", "--data", "data", "--out", "full"],
        cwd,
    ));
    assert_same_data_files(&cwd.join("jun"), &cwd.join("full"));
    // The replaced state is the whole history now, as a fresh run writes it.
    assert_same_data_files(&cwd.join("state"), &cwd.join("full"));
}
