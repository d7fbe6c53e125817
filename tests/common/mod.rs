//! What every binary-level test file needs: the real binary run in a folder, the shipped
//! sample, the real club files, and reading what a run wrote.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// `shared/realdata`, beside the repository (found by walking up from the crate).
pub fn realdata() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .map(|dir| dir.join("shared").join("realdata"))
        .find(|dir| dir.is_dir())
        .unwrap_or_else(|| panic!("no shared/realdata above {}", manifest.display()))
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
