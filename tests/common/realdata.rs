//! Where the real club files are, for the tests that check the importers and the scoring
//! against what the clubs' programs published.
//!
//! The files cannot live in the repository (their licences do not allow it), so a fresh
//! clone has none. The folder is `BRIDGEHCP_REALDATA` when that variable is set (set and
//! empty, or naming no folder, means "none": the way to see the skip on a machine that
//! has the files), else `shared/realdata` in the first folder above the crate that has
//! one. Without a folder the tests that need it say why once per test binary, name
//! themselves, and pass without checking anything; `BRIDGEHCP_REQUIRE_REALDATA=1` (set
//! by CI) makes the absence fail them instead.
//!
//! This one file serves the library's unit tests, the binary-level tests and the
//! examples (each includes it by path), so the rule is written once.
#![allow(dead_code)] // each includer uses only some of it

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

/// The variable naming the folder of real club files.
pub const FOLDER_VARIABLE: &str = "BRIDGEHCP_REALDATA";
/// The variable under which a missing folder fails the tests instead of skipping them.
pub const REQUIRE_VARIABLE: &str = "BRIDGEHCP_REQUIRE_REALDATA";

/// The folder of real club files, or why there is none.
pub fn locate() -> Result<PathBuf, String> {
    match std::env::var_os(FOLDER_VARIABLE) {
        Some(value) => {
            let dir = PathBuf::from(&value);
            if value.is_empty() {
                Err(format!("{FOLDER_VARIABLE} is set and empty"))
            } else if dir.is_dir() {
                Ok(dir)
            } else {
                Err(format!(
                    "{FOLDER_VARIABLE}={} is not a folder",
                    dir.display()
                ))
            }
        }
        None => {
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            manifest
                .ancestors()
                .map(|dir| dir.join("shared").join("realdata"))
                .find(|dir| dir.is_dir())
                .ok_or_else(|| {
                    format!(
                        "{FOLDER_VARIABLE} is unset and no folder above {} has shared/realdata",
                        manifest.display()
                    )
                })
        }
    }
}

fn located() -> &'static Result<PathBuf, String> {
    static LOCATED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    LOCATED.get_or_init(locate)
}

fn required() -> bool {
    std::env::var_os(REQUIRE_VARIABLE).is_some_and(|v| v == "1")
}

/// True when there are no real club files and the calling test should return at once
/// (it has said so on standard error). Panics instead when `BRIDGEHCP_REQUIRE_REALDATA=1`.
///
/// Written straight to standard error, not with `eprintln!`, so that the test harness,
/// which captures a passing test's output, does not hide it.
pub fn no_realdata() -> bool {
    let Err(why) = located() else {
        return false;
    };
    if required() {
        panic!(
            "the real club files are required ({REQUIRE_VARIABLE}=1) but missing: {why}; \
             set {FOLDER_VARIABLE} to their folder"
        );
    }
    static SAID: Once = Once::new();
    let mut stderr = std::io::stderr().lock();
    SAID.call_once(|| {
        let _ = writeln!(
            stderr,
            "real-data tests skipped (they pass without checking): {why}. \
             Set {FOLDER_VARIABLE} to the folder of real club files to run them, \
             or {REQUIRE_VARIABLE}=1 to make their absence fail."
        );
    });
    let name = std::thread::current()
        .name()
        .unwrap_or("a real-data test")
        .to_string();
    let _ = writeln!(stderr, "    skipped: {name}");
    true
}

/// The folder of real club files. A test calls [`no_realdata`] first; reaching this
/// without a folder is a test that forgot to, and fails saying so.
pub fn realdata() -> PathBuf {
    match located() {
        Ok(dir) => dir.clone(),
        Err(why) => panic!(
            "no real club files ({why}): this test must begin with \
             `if no_realdata() {{ return; }}`"
        ),
    }
}
