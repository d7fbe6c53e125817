//! Points where the binary-level tests stop a command, to kill it there or to let
//! another command run into it.
//!
//! `BRIDGEHCP_TEST_PAUSE_AT=<point>` stops the process at that point of a folder's
//! commit (`staged`, `swapped`, `between-renames`, and for an import
//! `members-written`); it then sleeps until killed, or with
//! `BRIDGEHCP_TEST_RESUME_WHEN=<file>` only until that file exists. `BRIDGEHCP_TEST_RENAME=two`
//! forces the two-rename commit. All of them exist only in builds for the tests
//! (feature `test-hooks`); otherwise the commit is the plain one.

use crate::store::files::Commit;

/// The commit of an output or dataset folder, with the tests' stops when built for
/// them.
pub fn test_commit() -> Commit<'static> {
    Commit {
        exchange: exchange_allowed(),
        at: &pause_at,
    }
}

#[cfg(feature = "test-hooks")]
fn pause_at(point: &str) {
    if !std::env::var("BRIDGEHCP_TEST_PAUSE_AT").is_ok_and(|p| p == point) {
        return;
    }
    eprintln!("bridgehcp: paused at {point}");
    let resume = std::env::var_os("BRIDGEHCP_TEST_RESUME_WHEN").map(std::path::PathBuf::from);
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(600) {
        if resume.as_ref().is_some_and(|file| file.exists()) {
            eprintln!("bridgehcp: resumed at {point}");
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(not(feature = "test-hooks"))]
fn pause_at(_point: &str) {}

/// Whether the commit may exchange the folders in one rename (see [`pause_at`]).
fn exchange_allowed() -> bool {
    #[cfg(feature = "test-hooks")]
    if std::env::var("BRIDGEHCP_TEST_RENAME").is_ok_and(|v| v == "two") {
        return false;
    }
    true
}
