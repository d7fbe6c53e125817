//! Continuing a run month by month, as a federation officer does, with the real binary:
//! corrections and late results replay the history, a state that does not fit is
//! refused, and a run killed while committing its outputs leaves the previous ones.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, kill_at, ok, read, text};

use std::path::{Path, PathBuf};
use std::process::Output;

/// The run fails cleanly (exit 1, no panic) and its message; nothing is written to `out`.
fn refused(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// The files of a run that two runs on the same inputs write byte for byte alike (all
/// but `run.json`, whose `timings` vary, and `corrections.csv`, which only a continued
/// run fills).
const DATA_FILES: [&str; 10] = [
    "applied.parquet",
    "board_scores.parquet",
    "changes.parquet",
    "handicaps.parquet",
    "quarantine.csv",
    "ranking.csv",
    "ranking.parquet",
    "ranking_published.csv",
    "standings.parquet",
    "unrated.csv",
];

/// A competition: id, date, and the percentages of the four pairs (1-2, 3-4, 5-6, 7-8).
type Session = (&'static str, &'static str, [u32; 4]);

/// Monthly pairs sessions of four pairs of a club of eight members.
const HISTORY: [Session; 6] = [
    ("c1", "2026-01-10", [62, 55, 45, 38]),
    ("c2", "2026-02-14", [40, 58, 52, 50]),
    ("c3", "2026-03-14", [57, 43, 61, 39]),
    ("c4", "2026-04-11", [48, 52, 55, 45]),
    ("c5", "2026-05-09", [60, 40, 47, 53]),
    ("c6", "2026-06-13", [51, 49, 44, 56]),
];

/// Writes the club's dataset as CSV tables into `dir/name`.
fn dataset(dir: &Path, name: &str, sessions: &[Session]) -> PathBuf {
    let data = dir.join(name);
    std::fs::create_dir_all(&data).unwrap();
    let mut members = String::from("member_id,name,masterpoints\n");
    for (id, name) in ["Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"]
        .iter()
        .enumerate()
    {
        members.push_str(&format!("{},{name},{}\n", id + 1, 10 * id));
    }
    common::pairs_club(&data, members, sessions);
    data
}

fn run(cwd: &Path, data: &str, out: &str, extra: &[&str]) -> Output {
    let mut args = vec!["run", "--data", data, "--out", out];
    args.extend_from_slice(extra);
    bridgehcp(&args, cwd)
}

/// `(member_id, handicap)` from a run's `handicaps.parquet`, in member-id order.
fn handicaps(folder: &Path) -> Vec<(i64, f64)> {
    use polars::prelude::*;
    let file = std::fs::File::open(folder.join("handicaps.parquet")).unwrap();
    let frame = ParquetReader::new(file).finish().unwrap();
    let ids = frame.column("member_id").unwrap().i64().unwrap().clone();
    let values = frame.column("handicap").unwrap().f64().unwrap().clone();
    ids.iter()
        .zip(values.iter())
        .map(|(id, h)| (id.unwrap(), h.unwrap()))
        .collect()
}

fn assert_same_data_files(a: &Path, b: &Path) {
    for name in DATA_FILES {
        assert_eq!(
            read(&a.join(name)),
            read(&b.join(name)),
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

/// `jun` (continued from `apr` after a correction) must equal a fresh run over the
/// corrected data, and its `corrections.csv` must list what a fresh run up to April
/// (written to `apr_fresh`) moved, with `reason`.
fn assert_equals_fresh_runs(cwd: &Path, mode: &[&str], apr_fresh: &str, reason: &str) {
    ok(&run(cwd, "data", "full", &[mode, &["--quiet"]].concat()));
    assert_same_data_files(&cwd.join("jun"), &cwd.join("full"));
    ok(&run(
        cwd,
        "data",
        apr_fresh,
        &[mode, &["--quiet", "--until", "2026-04-30"]].concat(),
    ));
    check_corrections(
        &cwd.join("jun"),
        &cwd.join("apr"),
        &cwd.join(apr_fresh),
        reason,
    );
}

/// `corrections.csv` as (member_id, before, after, difference, reason) rows.
fn corrections(folder: &Path) -> Vec<Vec<String>> {
    let csv = text(&folder.join("corrections.csv"));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("member_id,name,handicap_before,handicap_after,difference,reason")
    );
    lines
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

/// Checks `corrections.csv` of `continued` against the handicaps the previous state
/// published (`before`) and those a run on the corrected data gives at the same date
/// (`after`): exactly the members whose handicap differs by at least the printed
/// precision (0.005) are listed, with both values to two decimals.
fn check_corrections(continued: &Path, before: &Path, after: &Path, reason: &str) {
    let before = handicaps(before);
    let after = handicaps(after);
    let listed = corrections(continued);
    let printed = |h: f64| (h * 100.0).round() / 100.0;
    let mut expected = Vec::new();
    for (&(id, b), &(same, a)) in before.iter().zip(&after) {
        assert_eq!(id, same);
        if (a - b).abs() >= 0.005 {
            expected.push((id, printed(b), printed(a)));
        }
    }
    assert!(!expected.is_empty(), "the correction moved nobody");
    let found: Vec<(i64, f64, f64)> = listed
        .iter()
        .map(|row| {
            (
                row[0].parse().unwrap(),
                row[2].parse().unwrap(),
                row[3].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(found, expected);
    for row in &listed {
        let (b, a, d): (f64, f64, f64) = (
            row[2].parse().unwrap(),
            row[3].parse().unwrap(),
            row[4].parse().unwrap(),
        );
        // Each value is rounded on its own: the printed difference may be a hundredth
        // off the difference of the printed values.
        assert!((a - b - d).abs() < 0.0100001, "{row:?}");
        assert!(row[5].contains(reason), "{row:?}");
    }
}

/// A club corrects the result of February's session after April was run: the May–June
/// run replays from the start and gives exactly what one run on the corrected data
/// gives, and lists every member whose April handicap the correction changed; in live
/// and in frozen mode.
#[test]
fn a_corrected_competition_replays_the_history() {
    for mode in ["live", "frozen"] {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        let m = ["--mode", mode];
        dataset(cwd, "data", &HISTORY);
        ok(&run(
            cwd,
            "data",
            "apr",
            &[&m[..], &["--quiet", "--until", "2026-04-30"]].concat(),
        ));

        let mut fixed = HISTORY;
        fixed[1].2 = [58, 40, 50, 52];
        dataset(cwd, "data", &fixed);
        let stdout = ok(&run(
            cwd,
            "data",
            "jun",
            &[&m[..], &["--state", "apr"]].concat(),
        ));
        assert!(
            stdout.contains(
                "the dataset no longer matches what the previous run applied (changed: `c2`)"
            ),
            "{stdout}"
        );
        assert!(stdout.contains("6 competitions applied"), "{stdout}");

        assert_equals_fresh_runs(cwd, &m, "apr-fixed", "changed: `c2`");
        let manifest = text(&cwd.join("jun/run.json"));
        assert!(
            manifest.contains("\"changed\": [\n      \"c2\"\n    ]"),
            "{manifest}"
        );
    }
}

/// A session of March 20 reaches the federation after April was run: it is applied in
/// its place in the history, not skipped, and the summary says so.
#[test]
fn a_late_result_replays_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    ok(&run(
        cwd,
        "data",
        "apr",
        &["--quiet", "--until", "2026-04-30"],
    ));

    let mut late = HISTORY.to_vec();
    late.insert(3, ("c3b", "2026-03-20", [35, 65, 50, 50]));
    dataset(cwd, "data", &late);
    let stdout = ok(&run(cwd, "data", "jun", &["--state", "apr"]));
    assert!(stdout.contains("added late: `c3b`"), "{stdout}");
    assert!(stdout.contains("7 competitions applied"), "{stdout}");

    assert_equals_fresh_runs(cwd, &[], "apr-late", "added late: `c3b`");
}

/// A withdrawn competition is a correction too.
#[test]
fn a_removed_competition_replays_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    ok(&run(
        cwd,
        "data",
        "apr",
        &["--quiet", "--until", "2026-04-30"],
    ));
    let mut fewer = HISTORY.to_vec();
    fewer.remove(2);
    dataset(cwd, "data", &fewer);
    let stdout = ok(&run(cwd, "data", "jun", &["--state", "apr"]));
    assert!(stdout.contains("removed: `c3`"), "{stdout}");
    ok(&run(cwd, "data", "full", &["--quiet"]));
    assert_same_data_files(&cwd.join("jun"), &cwd.join("full"));
}

/// Continuing month by month without corrections applies only the new competitions, and
/// gives one run's handicaps and ledger; continuing an unchanged dataset moves nobody
/// and writes the state's handicaps again, byte for byte; the same run twice writes the
/// same bytes, and `run.json` differs only in its timings.
#[test]
fn an_unchanged_dataset_continues_and_reruns_byte_identically() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    ok(&run(
        cwd,
        "data",
        "apr",
        &["--quiet", "--until", "2026-04-30"],
    ));
    let stdout = ok(&run(cwd, "data", "jun", &["--state", "apr"]));
    assert!(
        stdout.contains(
            "2 competitions applied (4 already applied by the previous run and unchanged)"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("replayed"), "{stdout}");
    assert_eq!(corrections(&cwd.join("jun")), Vec::<Vec<String>>::new());
    ok(&run(cwd, "data", "full", &["--quiet"]));
    for name in [
        "handicaps.parquet",
        "ranking.csv",
        "ranking.parquet",
        "applied.parquet",
    ] {
        assert_eq!(
            read(&cwd.join("jun").join(name)),
            read(&cwd.join("full").join(name)),
            "{name}"
        );
    }

    // Nothing new: a no-op.
    let stdout = ok(&run(cwd, "data", "again", &["--state", "jun"]));
    assert!(
        stdout.contains("0 competitions applied (6 already applied by the previous run and unchanged), 0 members moved"),
        "{stdout}"
    );
    for name in [
        "handicaps.parquet",
        "ranking.csv",
        "ranking.parquet",
        "applied.parquet",
    ] {
        assert_eq!(
            read(&cwd.join("again").join(name)),
            read(&cwd.join("jun").join(name)),
            "{name}"
        );
    }

    // The same run twice: the same files.
    ok(&run(cwd, "data", "twice", &["--quiet", "--state", "jun"]));
    assert_same_data_files(&cwd.join("again"), &cwd.join("twice"));
    assert_eq!(
        read(&cwd.join("again/corrections.csv")),
        read(&cwd.join("twice/corrections.csv"))
    );
    let without_timings = |folder: &str| {
        let mut manifest: serde_json::Value =
            serde_json::from_slice(&read(&cwd.join(folder).join("run.json"))).unwrap();
        let timings = manifest
            .as_object_mut()
            .and_then(|m| m.remove("timings"))
            .unwrap();
        assert!(timings["total_s"].as_f64().is_some(), "{timings}");
        manifest
    };
    assert_eq!(without_timings("again"), without_timings("twice"));
}

/// The manifest records the inputs with their hashes, the settings and the counts.
#[test]
fn run_json_records_inputs_settings_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    ok(&run(
        cwd,
        "data",
        "apr",
        &["--quiet", "--until", "2026-04-30"],
    ));
    ok(&run(
        cwd,
        "data",
        "jun",
        &["--quiet", "--state", "apr", "--min-boards", "48"],
    ));
    let m: serde_json::Value = serde_json::from_slice(&read(&cwd.join("jun/run.json"))).unwrap();
    assert_eq!(m["tool"]["name"], "bridgehcp");
    assert_eq!(m["tool"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(m["inputs"]["data"]["path"], "data");
    assert_eq!(m["inputs"]["data"]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(m["inputs"]["factors"]["name"], "fsb-2007");
    assert_eq!(m["inputs"]["state"]["path"], "apr");
    assert_eq!(m["mode"], "live");
    assert_eq!(m["ranking"]["min_boards"], 48);
    assert_eq!(m["applied_through"]["competition_id"], "c6");
    assert_eq!(m["counts"]["competitions_applied"], 2);
    assert_eq!(m["counts"]["competitions_already_applied"], 4);
    assert_eq!(m["counts"]["competitions_corrected"], 0);
    assert_eq!(m["counts"]["members_moved"], 8);
    assert_eq!(m["counts"]["members_new"], 0);
    let outputs = m["outputs"].as_object().unwrap();
    assert_eq!(outputs.len(), 12);
    assert!(outputs.contains_key("ranking_published.csv"));
    assert!(outputs.contains_key("non_members.csv"));
    assert_eq!(m["whole_history"], true);
    assert_eq!(m["published"]["min_boards"], 100);
    assert_eq!(m["published"]["active_months"], 12);
    let handicaps = read(&cwd.join("jun/handicaps.parquet"));
    let hash = outputs["handicaps.parquet"].as_str().unwrap();
    assert_eq!(hash.len(), 64);
    // The dataset's hash is of its rows: the same tables in another file layout (the
    // rows reordered) hash alike.
    let apr: serde_json::Value = serde_json::from_slice(&read(&cwd.join("apr/run.json"))).unwrap();
    assert_eq!(
        apr["inputs"]["data"]["sha256"],
        m["inputs"]["data"]["sha256"]
    );
    assert!(!handicaps.is_empty());
}

fn factor_file(cwd: &Path, impact: &str) -> String {
    let default = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/factors/fsb-2007.toml"),
    )
    .unwrap();
    let changed = default.replace("impact = 480.0", &format!("impact = {impact}"));
    let name = format!("impact-{impact}.toml");
    std::fs::write(cwd.join(&name), changed).unwrap();
    name
}

/// Each way a state does not fit the run is refused with a message naming what differs
/// and how to start afresh, and nothing is written.
#[test]
fn a_state_that_does_not_fit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    ok(&run(
        cwd,
        "data",
        "apr",
        &["--quiet", "--until", "2026-04-30"],
    ));
    let afresh = "run without --state";

    // The same name, other contents.
    let other = factor_file(cwd, "960.0");
    let e = refused(&run(
        cwd,
        "data",
        "x",
        &["--state", "apr", "--factors", &other],
    ));
    assert!(
        e.contains("--state apr was made with factor set `fsb-2007` (sha256 "),
        "{e}"
    );
    assert!(e.contains("(same name, other contents)"), "{e}");
    assert!(e.contains(afresh), "{e}");
    // The same contents from a file is the same set.
    let same = factor_file(cwd, "480.0");
    ok(&run(
        cwd,
        "data",
        "same",
        &["--quiet", "--state", "apr", "--factors", &same],
    ));

    let e = refused(&run(
        cwd,
        "data",
        "x",
        &["--state", "apr", "--mode", "frozen"],
    ));
    assert!(
        e.contains("--state apr was run in live mode, this run is in frozen mode"),
        "{e}"
    );
    assert!(e.contains(afresh), "{e}");

    let e = refused(&run(
        cwd,
        "data",
        "x",
        &["--state", "apr", "--until", "2026-03-31"],
    ));
    assert!(
        e.contains("--until 2026-03-31 is before 2026-04-11, the date of the last competition --state apr applied (`c4`)"),
        "{e}"
    );

    // Another club's history: other ids.
    let mut unrelated: Vec<Session> = HISTORY.to_vec();
    for (session, id) in unrelated
        .iter_mut()
        .zip(["x1", "x2", "x3", "x4", "x5", "x6"])
    {
        session.0 = id;
    }
    dataset(cwd, "other", &unrelated);
    let e = refused(&run(cwd, "other", "x", &["--state", "apr"]));
    assert!(
        e.contains("--state apr was made from another dataset: of the 4 competitions it recorded, 0 are in this dataset (0 of them with other results) and 4 are missing"),
        "{e}"
    );
    assert!(e.contains(afresh), "{e}");

    for (out, relation) in [
        ("apr", "is the same folder as"),
        ("apr/may", "is inside"),
        (".", "contains"),
    ] {
        let e = refused(&run(cwd, "data", out, &["--state", "apr"]));
        assert!(
            e.contains(&format!("--out {out} {relation} --state apr")),
            "{e}"
        );
        assert!(e.contains("write the new run to another folder"), "{e}");
    }
    assert!(!cwd.join("x").exists());
    assert!(!cwd.join("apr/may").exists());

    // A folder whose files are not the ones its manifest records.
    std::fs::create_dir(cwd.join("torn")).unwrap();
    for entry in std::fs::read_dir(cwd.join("apr")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), cwd.join("torn").join(entry.file_name())).unwrap();
    }
    std::fs::copy(
        cwd.join("same/handicaps.parquet"),
        cwd.join("torn/handicaps.parquet"),
    )
    .unwrap();
    std::fs::copy(cwd.join("same/ranking.csv"), cwd.join("torn/ranking.csv")).unwrap();
    assert_ne!(
        read(&cwd.join("same/handicaps.parquet")),
        read(&cwd.join("apr/handicaps.parquet"))
    );
    let e = refused(&run(cwd, "data", "x", &["--state", "torn"]));
    assert!(
        e.contains("--state torn: `handicaps.parquet` is not the file run.json records"),
        "{e}"
    );
    std::fs::write(cwd.join("torn/handicaps.parquet"), b"PAR1").unwrap();
    let e = refused(&run(cwd, "data", "x", &["--state", "torn"]));
    assert!(
        e.contains("--state torn: `handicaps.parquet` is not the file run.json records"),
        "{e}"
    );

    // A folder of an older version, without run.json.
    std::fs::remove_file(cwd.join("torn/run.json")).unwrap();
    std::fs::write(cwd.join("torn/run.toml"), "factors = \"fsb-2007\"\n").unwrap();
    let e = refused(&run(cwd, "data", "x", &["--state", "torn"]));
    assert!(e.contains("the folder has no run.json"), "{e}");

    // A folder holding other files is not replaced.
    std::fs::create_dir(cwd.join("mine")).unwrap();
    std::fs::write(cwd.join("mine/notes.txt"), "keep me").unwrap();
    let e = refused(&run(cwd, "data", "mine", &[]));
    assert!(
        e.contains("the folder holds files that are not outputs of a run (notes.txt)"),
        "{e}"
    );
    assert_eq!(text(&cwd.join("mine/notes.txt")), "keep me");
    assert!(!cwd.join("x").exists());
}

/// Every file of `folder`, by name, with its bytes.
fn snapshot(folder: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                read(&e.path()),
            )
        })
        .collect();
    files.sort();
    files
}

/// Names in `dir` that a commit leaves behind (`.out.staging-…`, `.out.old-…`).
fn leftovers(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// A run killed while committing its outputs (after staging them; after swapping the
/// folders; between the two renames of a file system that cannot swap) leaves the
/// previous outputs byte-identical, or restored by the next run; the next run succeeds
/// and removes what the killed one left.
#[test]
fn a_run_killed_while_committing_leaves_the_previous_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    for (point, rename) in [
        ("staged", "exchange"),
        ("swapped", "exchange"),
        ("staged", "two"),
        ("between-renames", "two"),
    ] {
        let _ = std::fs::remove_dir_all(cwd.join("out"));
        let _ = std::fs::remove_dir_all(cwd.join("next"));
        ok(&run(
            cwd,
            "data",
            "out",
            &["--quiet", "--until", "2026-04-30"],
        ));
        let before = snapshot(&cwd.join("out"));
        // Another run (no --until) than the folder holds: replaced with --replace.
        kill_at(
            cwd,
            &[
                "run",
                "--quiet",
                "--data",
                "data",
                "--out",
                "out",
                "--replace",
            ],
            point,
            rename,
        );
        assert!(!leftovers(cwd).is_empty(), "{point}: nothing to clean up");
        if point == "between-renames" {
            // The old folder waits beside the missing one; the next run that needs it
            // puts it back before reading it.
            assert!(!cwd.join("out").exists());
            ok(&run(cwd, "data", "next", &["--quiet", "--state", "out"]));
        }
        if point == "swapped" {
            // Past the swap the new folder is complete and in place (the next run
            // continues it); only the old one is left over.
            assert_ne!(snapshot(&cwd.join("out")), before, "{point}");
        } else {
            assert_eq!(snapshot(&cwd.join("out")), before, "{point} ({rename})");
        }
        ok(&run(cwd, "data", "next2", &["--quiet", "--state", "out"]));
        ok(&run(cwd, "data", "out", &["--quiet", "--replace"]));
        assert_eq!(leftovers(cwd), Vec::<String>::new(), "{point} ({rename})");
        let _ = std::fs::remove_dir_all(cwd.join("next2"));
    }
}

/// A state whose hashes were taken by another version of the program (here: a manifest
/// without `ledger_scheme`) is matched by competition id and replayed from the start
/// once; nothing changed, so nobody is corrected.
#[test]
fn a_state_hashed_by_another_version_is_replayed_once() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    ok(&run(
        cwd,
        "data",
        "apr",
        &["--quiet", "--until", "2026-04-30"],
    ));
    let manifest = text(&cwd.join("apr/run.json"));
    let older: String = manifest
        .lines()
        .filter(|l| !l.contains("\"ledger_scheme\""))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(older, manifest);
    std::fs::write(cwd.join("apr/run.json"), older).unwrap();
    let stdout = ok(&run(cwd, "data", "jun", &["--state", "apr"]));
    assert!(
        stdout.contains(
            "(the state's content hashes were taken by another version of bridgehcp, \
             with ledger scheme 0 (this version's is 2))"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("correcting 0 members' handicaps"),
        "{stdout}"
    );
    assert_eq!(corrections(&cwd.join("jun")), Vec::<Vec<String>>::new());
    ok(&run(cwd, "data", "full", &["--quiet"]));
    assert_same_data_files(&cwd.join("jun"), &cwd.join("full"));
    // Continued from the new state, the next run is an ordinary one again.
    let stdout = ok(&run(cwd, "data", "again", &["--state", "jun"]));
    assert!(
        stdout.contains("0 competitions applied (6 already applied"),
        "{stdout}"
    );
}

/// A state written when the ledger hashed the rows' `Debug` text (ledger scheme 1):
/// its `applied.parquet` holds hashes this version never computes. It is recognised by
/// the manifest's `ledger_scheme`, matched by competition id, and the first run on it
/// replays the history from the start, saying why; nothing changed, so nobody is
/// corrected and the outputs are those of a run from the start.
#[test]
fn a_state_hashed_with_ledger_scheme_1_replays_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    ok(&run(
        cwd,
        "data",
        "apr",
        &["--quiet", "--until", "2026-04-30"],
    ));
    let manifest = text(&cwd.join("apr/run.json"));
    let older = manifest.replace("\"ledger_scheme\": 2,", "\"ledger_scheme\": 1,");
    assert_ne!(older, manifest);
    std::fs::write(cwd.join("apr/run.json"), older).unwrap();
    let stdout = ok(&run(cwd, "data", "jun", &["--state", "apr"]));
    assert!(
        stdout.contains(
            "the previous run's state cannot be continued as it is \
             (the state's content hashes were taken by another version of bridgehcp, \
             with ledger scheme 1 (this version's is 2)), \
             so the whole history was replayed from the start, correcting 0 members' handicaps"
        ),
        "{stdout}"
    );
    assert_eq!(corrections(&cwd.join("jun")), Vec::<Vec<String>>::new());
    ok(&run(cwd, "data", "full", &["--quiet"]));
    assert_same_data_files(&cwd.join("jun"), &cwd.join("full"));
    assert!(text(&cwd.join("jun/run.json")).contains("\"ledger_scheme\": 2,"));
}

/// A member's masterpoints corrected in the members table change the handicap the
/// member started from: the history is replayed, as for a corrected competition.
#[test]
fn a_changed_starting_handicap_replays_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let data = dataset(cwd, "data", &HISTORY);
    ok(&run(
        cwd,
        "data",
        "apr",
        &["--quiet", "--until", "2026-04-30"],
    ));
    let members = text(&data.join("members.csv"));
    let changed = members.replace("\n3,Cy,20\n", "\n3,Cy,400\n");
    assert_ne!(changed, members);
    std::fs::write(data.join("members.csv"), changed).unwrap();
    let stdout = ok(&run(cwd, "data", "jun", &["--state", "apr"]));
    assert!(
        stdout.contains("(starting handicap changed: member `3`)"),
        "{stdout}"
    );
    assert_equals_fresh_runs(cwd, &[], "apr-changed", "starting handicap changed");
}

/// Corrections to most of a short history keep the competitions' ids: still the same
/// dataset, replayed, not refused.
#[test]
fn correcting_most_competitions_is_not_another_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    ok(&run(
        cwd,
        "data",
        "feb",
        &["--quiet", "--until", "2026-02-28"],
    ));
    let mut fixed = HISTORY;
    fixed[0].2 = [55, 62, 38, 45];
    fixed[1].2 = [58, 40, 50, 52];
    dataset(cwd, "data", &fixed);
    let stdout = ok(&run(cwd, "data", "jun", &["--state", "feb"]));
    assert!(stdout.contains("(changed: `c1`, `c2`)"), "{stdout}");
    ok(&run(cwd, "data", "full", &["--quiet"]));
    assert_same_data_files(&cwd.join("jun"), &cwd.join("full"));
}

/// Every month's folder holds the whole history, live or frozen: April's state
/// continued to June has one run's changes and standings, to the byte, and April's
/// folder can go once June is written.
#[test]
fn a_continued_folder_holds_the_whole_history_in_either_mode() {
    for mode in ["live", "frozen"] {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        dataset(cwd, "data", &HISTORY);
        let mode = ["--mode", mode, "--quiet"];
        ok(&run(
            cwd,
            "data",
            "apr",
            &[&mode[..], &["--until", "2026-04-30"]].concat(),
        ));
        ok(&run(
            cwd,
            "data",
            "jun",
            &[&mode[..], &["--state", "apr"]].concat(),
        ));
        std::fs::remove_dir_all(cwd.join("apr")).unwrap();
        ok(&run(cwd, "data", "full", &mode));
        for name in ["changes.parquet", "standings.parquet"] {
            assert_eq!(
                read(&cwd.join("jun").join(name)),
                read(&cwd.join("full").join(name)),
                "{name} ({mode:?})"
            );
        }
    }
}

/// The four commands that open a run's folder, each with `folder` as the folder it
/// opens: `run --state`, `score --state`, `player --out-dir` and `report --out-dir`.
fn openers(folder: &str) -> [Vec<&str>; 4] {
    [
        vec![
            "run", "--quiet", "--data", "data", "--out", "next", "--state", folder,
        ],
        vec![
            "score",
            "--data",
            "data",
            "--out",
            "scored",
            "--state",
            folder,
            "--start-list",
        ],
        vec!["player", "1", "--quiet", "--out-dir", folder],
        vec![
            "report",
            "--out-dir",
            folder,
            "--html",
            "r.html",
            "--diff",
            "r.csv",
        ],
    ]
}

/// Every command that opens a run's folder first puts it right after a run killed
/// between the two renames of its commit (the folder missing, the old one waiting
/// beside it), as `run --state` always did: the folder is back byte for byte and
/// nothing is left over. And each refuses the same folders with the same reason: one
/// whose `handicaps.parquet` is not the file `run.json` records, and one an older
/// version wrote (`run.toml`, no `run.json`).
#[test]
fn every_command_recovers_and_refuses_a_folder_alike() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    dataset(cwd, "data", &HISTORY);
    for command in openers("out") {
        let _ = std::fs::remove_dir_all(cwd.join("out"));
        ok(&run(
            cwd,
            "data",
            "out",
            &["--quiet", "--until", "2026-04-30"],
        ));
        let before = snapshot(&cwd.join("out"));
        let kill = [
            "run",
            "--quiet",
            "--data",
            "data",
            "--out",
            "out",
            "--replace",
        ];
        kill_at(cwd, &kill, "between-renames", "two");
        assert!(!cwd.join("out").exists(), "{command:?}");
        ok(&bridgehcp(&command, cwd));
        assert_eq!(snapshot(&cwd.join("out")), before, "{command:?}");
        assert_eq!(leftovers(cwd), Vec::<String>::new(), "{command:?}");
    }

    // A folder whose handicaps are another run's.
    for written in ["next", "scored"] {
        std::fs::remove_dir_all(cwd.join(written)).unwrap();
    }
    ok(&run(
        cwd,
        "data",
        "out",
        &["--quiet", "--until", "2026-04-30"],
    ));
    ok(&run(cwd, "data", "other", &["--quiet"]));
    std::fs::copy(
        cwd.join("other/handicaps.parquet"),
        cwd.join("out/handicaps.parquet"),
    )
    .unwrap();
    for (command, flag) in
        openers("out")
            .into_iter()
            .zip(["--state", "--state", "--out-dir", "--out-dir"])
    {
        let e = refused(&bridgehcp(&command, cwd));
        assert!(
            e.contains(&format!(
                "{flag} out: `handicaps.parquet` is not the file run.json records (its SHA-256 differs)"
            )),
            "{command:?}: {e}"
        );
    }

    // A folder an older version wrote.
    std::fs::remove_file(cwd.join("out/run.json")).unwrap();
    std::fs::write(cwd.join("out/run.toml"), "mode = \"frozen\"\n").unwrap();
    for (command, flag) in
        openers("out")
            .into_iter()
            .zip(["--state", "--state", "--out-dir", "--out-dir"])
    {
        let e = refused(&bridgehcp(&command, cwd));
        assert!(
            e.contains(&format!(
                "{flag} out: the folder has no run.json (it was written by an older version of bridgehcp, which kept run.toml)"
            )),
            "{command:?}: {e}"
        );
    }
    assert!(!cwd.join("next").exists() && !cwd.join("scored").exists());
}
