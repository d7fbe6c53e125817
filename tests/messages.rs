//! Messages as a user meets them: each names what the user typed or gave, in the
//! user's terms, and nothing else (no stack trace, no reader's jargon, no screenful of
//! replacement characters).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, sample};

use std::path::Path;
use std::process::{Command, Output};

/// The command failed with exit code 1; its standard error.
fn failed(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(1),
        "expected exit 1\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stderr).to_string()
}

/// `bridgehcp ARGS` in `cwd` with the environment `env` added.
fn with_env(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .env_remove("BRIDGEHCP_VERBOSE")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// `--state` naming a folder that does not exist says so, naming the option.
#[test]
fn a_state_folder_that_does_not_exist_is_named_with_its_option() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let error = failed(&bridgehcp(
        &[
            "run",
            "--data",
            data.to_str().unwrap(),
            "--state",
            "./no-such-run",
        ],
        dir.path(),
    ));
    assert_eq!(
        error,
        format!(
            "Error: run on {} failed\n\nCaused by:\n    --state ./no-such-run: no such run folder\n",
            data.display()
        )
    );
    // A folder that is not a run's says that instead.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let error = failed(&bridgehcp(
        &["run", "--data", data.to_str().unwrap(), "--state", "empty"],
        dir.path(),
    ));
    assert!(
        error.contains("--state empty: the folder holds no run.json, so it is not a run's output folder; continue from a complete run's output folder, or run without --state to start afresh"),
        "{error}"
    );
}

/// `RUST_BACKTRACE=1` in the environment adds no stack trace under a user's error;
/// `BRIDGEHCP_VERBOSE=1` does.
#[test]
fn a_user_error_prints_no_stack_trace_whatever_rust_backtrace_says() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["run", "--state", "./no-such-run"];
    let plain = failed(&with_env(&args, dir.path(), &[]));
    for env in [
        [("RUST_BACKTRACE", "1")],
        [("RUST_BACKTRACE", "full")],
        [("RUST_LIB_BACKTRACE", "1")],
    ] {
        let error = failed(&with_env(&args, dir.path(), &env));
        assert_eq!(error, plain, "{env:?}");
        assert!(!error.contains("backtrace"), "{error}");
    }
    assert!(
        plain.ends_with("Caused by:\n    --state ./no-such-run: no such run folder\n"),
        "{plain}"
    );
    let verbose = failed(&with_env(&args, dir.path(), &[("BRIDGEHCP_VERBOSE", "1")]));
    assert!(verbose.starts_with(plain.trim_end()), "{verbose}");
    assert!(verbose.contains("\n\nStack backtrace:\n"), "{verbose}");
}

/// Every file below `dir` but the import's report and log, by relative path.
fn dataset_files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                walk(root, &path, out);
            } else if !relative.starts_with("import") {
                out.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// A USEBIO file saved as UTF-16 (a Windows editor's "Unicode") is read as the same
/// file in UTF-8: before, it was taken for PBN ("it does not start with `<`").
#[test]
fn a_utf16_usebio_file_is_read_as_its_utf8_twin() {
    if common::no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let original = common::realdata().join("usebio/mp_pairs_mitchell_03.xml");
    let text = std::fs::read_to_string(&original).unwrap();
    let utf16 = |bom: [u8; 2], big_endian: bool| {
        let mut bytes = bom.to_vec();
        for unit in text.encode_utf16() {
            bytes.extend(if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            });
        }
        bytes
    };
    // Each import in a folder of its own, the file at the same relative path (the
    // dataset records where each row came from).
    let import = |name: &str, format: &str, bytes: &[u8]| {
        let folder = dir.path().join(name);
        std::fs::create_dir_all(folder.join("in")).unwrap();
        std::fs::write(folder.join("in/event.xml"), bytes).unwrap();
        common::ok(&bridgehcp(
            &["import", format, "in/event.xml", "--out", "fed"],
            &folder,
        ));
        dataset_files(&folder.join("fed"))
    };
    let expected = import("utf8", "auto", text.as_bytes());
    assert!(
        expected.keys().any(|k| k.starts_with("boards")),
        "{expected:?}"
    );
    for (name, bom, big_endian) in [("le", [0xFF, 0xFE], false), ("be", [0xFE, 0xFF], true)] {
        for format in ["usebio", "auto"] {
            let got = import(&format!("{name}-{format}"), format, &utf16(bom, big_endian));
            assert!(got == expected, "{name} {format}");
        }
    }

    // A UTF-16 file cut in the middle of a character says so.
    let odd = dir.path().join("odd.xml");
    std::fs::write(&odd, [0xFF, 0xFE, b'<', 0, b'?']).unwrap();
    let error = failed(&bridgehcp(
        &["import", "auto", odd.to_str().unwrap(), "--out", "odd"],
        dir.path(),
    ));
    assert!(
        error.contains(&format!(
            "refused: {}: the file starts with the byte order mark of UTF-16 (little-endian) but is not UTF-16 text: it has an odd number of bytes (3) after the mark; save it again as UTF-8",
            odd.display()
        )),
        "{error}"
    );
}

/// A binary file named `.pbn` is refused as not a PBN text file, in one short line:
/// before, its message quoted a line of 6 000 replacement characters.
#[test]
fn a_binary_file_named_pbn_is_not_a_pbn_text_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("photo.pbn");
    let bytes: Vec<u8> = (0..6000u32).map(|i| (i * 7 % 256) as u8).collect();
    std::fs::write(&file, &bytes).unwrap();
    let error = failed(&bridgehcp(
        &["import", "auto", file.to_str().unwrap(), "--out", "fed"],
        dir.path(),
    ));
    let line = format!(
        "refused: {}: the file is not a PBN text file: it holds binary data (a NUL byte at byte 1); was another file given in its place?",
        file.display()
    );
    assert_eq!(error.lines().next(), Some(line.as_str()), "{error}");
    assert!(!error.contains('\u{FFFD}'), "{error}");
    assert!(error.len() < 1000, "{error}");
    // Control characters without a NUL, as in a file of another program's format.
    let controls: Vec<u8> = b"[Event \"x\"]\n"
        .iter()
        .copied()
        .chain((1..=200u8).map(|i| i % 8 + 1))
        .collect();
    std::fs::write(&file, &controls).unwrap();
    let error = failed(&bridgehcp(
        &["import", "pbn", file.to_str().unwrap(), "--out", "fed"],
        dir.path(),
    ));
    assert!(
        error.contains("the file is not a PBN text file: it holds binary data (200 control characters in its first 212 bytes)"),
        "{error}"
    );
}

/// A copy of the shipped sample in `dir/data`.
fn sample_copy(dir: &Path) -> std::path::PathBuf {
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    for entry in std::fs::read_dir(sample()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), data.join(entry.file_name())).unwrap();
    }
    data
}

/// An empty or cut-short Parquet file is called that: before, the reader's words
/// ("File out of specification: The file must end with PAR1") stood.
#[test]
fn an_empty_or_cut_short_parquet_file_is_called_so() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample_copy(dir.path());
    let boards = data.join("boards.parquet");
    let bytes = std::fs::read(&boards).unwrap();
    let run = || {
        failed(&bridgehcp(
            &["run", "--quiet", "--data", "data", "--out", "out"],
            dir.path(),
        ))
    };

    std::fs::write(&boards, b"").unwrap();
    let error = run();
    assert!(
        error.ends_with("Caused by:\n    data/boards.parquet: the file is empty (0 bytes), not a Parquet table: it was written or copied only in part; write or copy it again\n"),
        "{error}"
    );
    assert!(!error.contains("out of specification"), "{error}");

    let half = bytes.len() / 2;
    std::fs::write(&boards, &bytes[..half]).unwrap();
    let error = run();
    assert!(
        error.contains(&format!(
            "data/boards.parquet: the file is cut short: it begins as a Parquet table but its {half} bytes do not end with the footer a complete one ends with (`PAR1`); it was written or copied only in part: write or copy it again"
        )),
        "{error}"
    );
    assert!(!error.contains("out of specification"), "{error}");
    assert!(!dir.path().join("out").exists());
}
