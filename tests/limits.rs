//! The limits a command meets as messages, not crashes or silence: memory that runs out,
//! names with control characters or of absurd length, a Parquet file that makes the
//! reader panic. Each test runs the real binary and asserts what it says.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, csv_dataset};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Whether the C library itself ended the process for want of memory: glibc aborts
/// when it cannot allocate the record of a thread-local's destructor (a `calloc` inside
/// `__cxa_thread_atexit_impl`), before any allocator of the program's sees a failure, so
/// no program can report it. Where that happens depends on where the limit falls among
/// the threads' first uses of thread-locals, so the test passes over it; the other
/// limits still have to end in the program's own message.
fn glibc_gave_up(message: &str) -> bool {
    message.starts_with("Fatal glibc error: failed to register TLS destructor: out of memory")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).to_string()
}

/// A copy of the sample dataset in `dir/data`.
fn sample_copy(dir: &Path) -> PathBuf {
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    for entry in std::fs::read_dir(sample).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), data.join(entry.file_name())).unwrap();
    }
    data
}

fn run_data(dir: &Path) -> Output {
    bridgehcp(&["run", "--quiet", "--data", "data", "--out", "out"], dir)
}

/// Under an address-space limit too small for the run, the run stops with exit 3 and a
/// message saying what happened and what to try (the limit: under it, a worker thread
/// that cannot be started or an allocation a reader reports it could not make stops the
/// run the same way), not `memory allocation of N bytes
/// failed` and SIGABRT (exit 134). Where exactly memory runs out depends on how the
/// allocator reserves it, so several limits are tried: each either succeeds or stops
/// this way, and at least one stops.
#[cfg(target_os = "linux")]
#[test]
fn a_run_out_of_memory_stops_with_a_message_and_exit_3() {
    let has_prlimit = Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_prlimit {
        eprintln!("prlimit is not installed: the out-of-memory test is not run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    sample_copy(dir.path());
    let mut stopped = 0;
    for (megabytes, threads) in [
        (120u64, "1"),
        (150, "1"),
        (180, "1"),
        (200, "1"),
        (220, "2"),
        (230, "1"),
        (350, "2"),
    ] {
        let _ = std::fs::remove_dir_all(dir.path().join("out"));
        let output = Command::new("prlimit")
            .arg(format!("--as={}", megabytes * 1024 * 1024))
            .arg(env!("CARGO_BIN_EXE_bridgehcp"))
            .args([
                "run",
                "--quiet",
                "--threads",
                threads,
                "--data",
                "data",
                "--out",
                "out",
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let message = stderr(&output);
        if output.status.success() || glibc_gave_up(&message) {
            continue;
        }
        assert_eq!(output.status.code(), Some(3), "{megabytes} MB: {message}");
        // The limit is what stopped the run, and the message says so: the run's own
        // flags would not have helped a run of the sample.
        assert!(
            (message.starts_with("bridgehcp: out of memory (an allocation of ")
                || message.starts_with(
                    "bridgehcp: out of memory (a worker thread could not be started).\n"
                )
                || message.starts_with(
                    "bridgehcp: out of memory (a reader or writer could not make its compression context).\n"
                )
                || message.contains("\nbridgehcp: out of memory (the reader or writer above could not allocate).\n"))
                && message.contains("Nothing was written")
                && message.contains(&format!(
                    "\nThis process may use at most {} bytes of address space (ulimit -v, RLIMIT_AS)",
                    megabytes * 1024 * 1024
                ))
                && message.contains("raise it (`ulimit -v unlimited`)"),
            "{megabytes} MB: {message}"
        );
        // Under such a limit neither fewer threads nor leaving out the board scores
        // reliably helps (where the sample's run stops depends on where the allocator's
        // arenas and the threads' stacks fall, not on the flags): only the limit is named.
        // Every limit ends in a completed run or this message (or in glibc's own abort,
        // [`glibc_gave_up`]): never in a signal of the program's (a stack with no room
        // to grow) or a damaged-file error (a reader's thread pool that could not start).
        assert!(
            !message.contains("--threads") && !message.contains("--no-board-scores"),
            "{message}"
        );
        assert!(!message.contains("memory allocation of"), "{message}");
        assert!(!dir.path().join("out").exists(), "nothing half-written");
        stopped += 1;
    }
    assert!(stopped > 0, "no limit made the run run out of memory");
}

/// An import out of memory suggests nothing an import does not have: before, it
/// suggested `--threads` and `--no-board-scores`, which are `run`'s.
#[cfg(target_os = "linux")]
#[test]
fn an_import_out_of_memory_suggests_only_what_helps_it() {
    if common::no_realdata() {
        return;
    }
    if !Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("prlimit is not installed: the out-of-memory test is not run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = common::realdata().join("pbn/spiren_2015-06-17_mp.pbn");
    let mut stopped = 0;
    for megabytes in [60u64, 90, 120] {
        let output = Command::new("prlimit")
            .arg(format!("--as={}", megabytes * 1024 * 1024))
            .arg(env!("CARGO_BIN_EXE_bridgehcp"))
            .args(["import", "auto", file.to_str().unwrap(), "--out", "fed"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let message = stderr(&output);
        if output.status.code() != Some(3) {
            continue;
        }
        assert!(message.starts_with("bridgehcp: out of memory"), "{message}");
        assert!(
            !message.contains("--threads") && !message.contains("--no-board-scores"),
            "{megabytes} MB: {message}"
        );
        assert!(message.contains("ulimit -v"), "{message}");
        stopped += 1;
    }
    assert!(stopped > 0, "no limit made the import run out of memory");
}

/// ESC, RLO, BEL and NUL in a member's name stop the run at the row, naming the
/// character; nothing reaches `ranking.csv`, the HTML or the terminal.
#[test]
fn control_characters_in_a_member_name_are_refused_at_the_row() {
    for (character, shown) in [
        ("\u{1b}[2J", "U+001B ESC"),
        ("\u{202E}", "U+202E RLO"),
        ("\u{7}", "U+0007 BEL"),
        ("\u{0}", "U+0000 NUL"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let members =
            format!("member_id,name,masterpoints\n1,Ann,10\n2,Bo{character}b,1\n3,Cy,0\n4,Di,5\n");
        csv_dataset(dir.path(), members.as_bytes());
        let output = run_data(dir.path());
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{message}");
        assert!(
            message.contains("members.csv")
                && message.contains("row 2")
                && message.contains("column `name`")
                && message.contains(&format!("holds {shown} at character 3")),
            "{shown}: {message}"
        );
        assert!(!message.contains('\u{1b}'), "the message itself is safe");
        assert!(!dir.path().join("out").exists());
    }
}

/// A 10 MB member name is refused; the message does not repeat it.
#[test]
fn a_ten_megabyte_member_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut members = b"member_id,name,masterpoints\n1,".to_vec();
    members.extend(std::iter::repeat_n(b'a', 10 * 1024 * 1024));
    members.extend_from_slice(b",10\n2,Bo,1\n3,Cy,0\n4,Di,5\n");
    csv_dataset(dir.path(), &members);
    let output = run_data(dir.path());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        message.contains("members.csv")
            && message.contains("column `name`")
            && message.contains("is longer than 200 characters (10485760 bytes)"),
        "{message}"
    );
    assert!(
        !message.contains(&"a".repeat(300)),
        "the name is not repeated"
    );
}

/// A club file whose printed name holds ESC is refused at the door, naming file and
/// column.
#[test]
fn an_export_with_an_escape_in_a_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pbn = "% PBN 2.0\n\
         % <META  name=Generator   content=\"Ruter i Norge\">\n\
         % <META  name=ContestDate content=\"2015-09-30\">\n\
         % <META  name=ScoringType content=\"MatchPoints;MP1\">\n\
         [Event \"Test\"]\n\
         [Board \"1\"]\n\
         [TotalScoreTable \"Rank\\2R;PairId\\2R;TotalScoreMP\\3R;TotalPercentage\\5R;Names\\20L;MemberID1\\7R;MemberID2\\7R\"]\n\
         1 1 0 50.00 \"A\u{1b}[31m - B\" \"11\" \"12\"\n\
         1 2 0 50.00 \"C - D\" \"13\" \"14\"\n\
         1 3 0 50.00 \"E - F\" \"15\" \"16\"\n\
         1 4 0 50.00 \"G - H\" \"17\" \"18\"\n\
         [ScoreTable \"PairId_NS\\2R;PairId_EW\\2R;Contract\\3L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\6R;MP_NS\\2R;MP_EW\\2R\"]\n\
         1 2 3NT S 9 \"400\" - 0 0\n\
         3 4 3NT S 9 \"400\" - 0 0\n\
         [Board \"2\"]\n\
         [ScoreTable \"PairId_NS\\2R;PairId_EW\\2R;Contract\\3L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\6R;MP_NS\\2R;MP_EW\\2R\"]\n\
         1 2 3NT S 9 \"600\" - 0 0\n\
         3 4 3NT S 8 \"-100\" - 0 0\n";
    std::fs::write(dir.path().join("club.pbn"), pbn).unwrap();
    let output = bridgehcp(&["import", "pbn", "club.pbn", "--out", "fed"], dir.path());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("club.pbn") && message.contains("holds U+001B ESC"),
        "{message}"
    );
    assert!(!message.contains('\u{1b}'), "{message:?}");
}

/// A Parquet file damaged so that its `district` column decodes to other empty cells
/// gives one message naming the file: one byte of the sample's `members.parquet` data
/// (offset 2512) set to 0xFF breaks the column's definition levels. polars' debug
/// build asserts on them and panics inside its reader, whose `thread '…' panicked at`
/// text is shown only with `BRIDGEHCP_VERBOSE=1`; its release build decodes no empty
/// cell where the footer counts 6, which the footer check refuses.
#[test]
fn a_damaged_parquet_file_prints_one_clean_message() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample_copy(dir.path());
    let path = data.join("members.parquet");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[2512] = 0xFF;
    std::fs::write(&path, &bytes).unwrap();
    let quiet = run_data(dir.path());
    let message = stderr(&quiet);
    assert_eq!(quiet.status.code(), Some(1), "{message}");
    let panicked = "members.parquet: the file is corrupt or not a table this program can read (the reader failed";
    let counted = "members.parquet, column `district`: the Parquet file is corrupt: in row group 1 of 1 (rows 1–306) the column decodes to 0 empty cells where the file's footer counts 6";
    assert!(
        message.contains(panicked) || message.contains(counted),
        "{message}"
    );
    assert!(!message.contains("panicked"), "{message}");
    assert!(!dir.path().join("out").exists());
    if message.contains(panicked) {
        let verbose = Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
            .args(["run", "--quiet", "--data", "data", "--out", "out"])
            .current_dir(dir.path())
            .env("BRIDGEHCP_VERBOSE", "1")
            .output()
            .unwrap();
        assert!(
            stderr(&verbose).contains("panicked"),
            "{}",
            stderr(&verbose)
        );
    }
}

/// One byte of the sample's `members.parquet` or `boards.parquet` set to 0xFF, at
/// offsets spread over each file: every run either ends normally or stops with a
/// message (exit 1, or 3 for a size that asks for more memory than a machine has),
/// never with a panic or polars' panic text.
#[test]
fn single_damaged_bytes_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample_copy(dir.path());
    for (name, stride) in [("members.parquet", 307), ("boards.parquet", 12007)] {
        let path = data.join(name);
        let good = std::fs::read(&path).unwrap();
        for offset in (0..good.len()).step_by(stride) {
            let mut bytes = good.clone();
            bytes[offset] = 0xFF;
            std::fs::write(&path, &bytes).unwrap();
            let _ = std::fs::remove_dir_all(dir.path().join("out"));
            let output = run_data(dir.path());
            let message = stderr(&output);
            assert!(
                matches!(output.status.code(), Some(0 | 1 | 3)),
                "{name} at {offset}: {message}"
            );
            assert!(
                !message.contains("panicked"),
                "{name} at {offset}: {message}"
            );
        }
        std::fs::write(&path, &good).unwrap();
    }
}

/// A Parquet file whose sizes are damaged so that the reader asks for 2^61 bytes (found
/// by the dataset fuzzer: two bytes of the sample's `members.parquet` changed) stops
/// with exit code 3 and says the input is the likely cause, not the machine.
#[test]
fn a_damaged_size_in_a_parquet_file_is_named_as_damage_not_a_small_machine() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample_copy(dir.path());
    let path = data.join("members.parquet");
    let mut bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        (bytes[2465], bytes[2553]),
        (0xE4, 0x59),
        "the sample changed"
    );
    bytes[2465] = 0xFF;
    bytes[2553] = 0x79;
    std::fs::write(&path, &bytes).unwrap();
    let output = run_data(dir.path());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{message}");
    assert!(
        message.starts_with("bridgehcp: out of memory (an allocation of 2305843009213693"),
        "{message}"
    );
    assert!(
        message.contains("No machine has that much memory: the size was most likely read from a damaged input file"),
        "{message}"
    );
    assert!(!message.contains("Try: fewer worker threads"), "{message}");
    assert!(!dir.path().join("out").exists());
}
