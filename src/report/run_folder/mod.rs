//! A run's output folder as the other commands meet it.
//!
//! A month's folder outlives the run that wrote it: the next month's run continues
//! from it (`run --state`), `score --state` ranks a handicap tournament by its playing
//! handicaps, and `player` and `report` print from it. Each of them must see the same
//! folder the same way, whatever happened to it since: a run killed while replacing it
//! leaves a staging or old folder beside it that must be put right first, a folder an
//! older version wrote (`run.toml`) cannot be read as this version's, and a file
//! edited or copied in from another run must be refused rather than believed. So the
//! folder's file names, its manifest (`run.json`, one type that is both written and
//! read), the recovery after a killed run and the check of every file against the
//! hashes the manifest records all live here, and every command opens a folder through
//! [`RunFolder::open`].

pub mod manifest;
pub mod state;

use std::path::{Path, PathBuf};

use crate::error::{Error, InputError, Location, Result};
use crate::pipeline::ledger::sha256;

pub use manifest::{manifest, Manifest, RunInputs};
pub use state::load_state;

/// The manifest: what the run read, how it was set, what it wrote.
pub const MANIFEST: &str = "run.json";
/// The manifest older versions wrote instead of [`MANIFEST`].
pub const OLD_MANIFEST: &str = "run.toml";
pub const APPLIED: &str = "applied.parquet";
pub const BOARD_SCORES: &str = "board_scores.parquet";
pub const CHANGES: &str = "changes.parquet";
pub const CORRECTIONS: &str = "corrections.csv";
pub const HANDICAPS: &str = "handicaps.parquet";
pub const NON_MEMBERS: &str = "non_members.csv";
pub const QUARANTINE: &str = "quarantine.csv";
pub const RANKING_CSV: &str = "ranking.csv";
pub const RANKING: &str = "ranking.parquet";
pub const RANKING_PUBLISHED: &str = "ranking_published.csv";
pub const STANDINGS: &str = "standings.parquet";
pub const UNRATED: &str = "unrated.csv";
/// What `bridgehcp report` writes into a run's folder by default.
pub const REPORT_HTML: &str = "report.html";
pub const RANKING_DIFF: &str = "ranking_diff.csv";

/// The data files of a run, each recorded with its SHA-256 in [`MANIFEST`]
/// (`board_scores.parquet` only when the run wrote it).
pub const DATA_FILES: [&str; 12] = [
    APPLIED,
    BOARD_SCORES,
    CHANGES,
    CORRECTIONS,
    HANDICAPS,
    NON_MEMBERS,
    QUARANTINE,
    RANKING_CSV,
    RANKING,
    RANKING_PUBLISHED,
    STANDINGS,
    UNRATED,
];

/// Every file a run's folder may hold: the data files, the manifest (or an older
/// version's), and what `report` derives from the run by default, stale once the run is
/// replaced. A folder holding anything else is not replaced.
pub const RUN_FILES: [&str; 16] = [
    APPLIED,
    BOARD_SCORES,
    CHANGES,
    CORRECTIONS,
    HANDICAPS,
    NON_MEMBERS,
    QUARANTINE,
    RANKING_CSV,
    RANKING,
    RANKING_PUBLISHED,
    STANDINGS,
    UNRATED,
    MANIFEST,
    OLD_MANIFEST,
    REPORT_HTML,
    RANKING_DIFF,
];

/// A run's output folder, recovered and with its manifest read.
#[derive(Debug, Clone)]
pub struct RunFolder {
    path: PathBuf,
    /// The option that named the folder (`--state`, `--out-dir`, ...), for messages.
    flag: &'static str,
    manifest: Manifest,
}

impl RunFolder {
    /// Opens the folder `flag` named: first puts it right after a run killed while
    /// replacing it (see [`crate::report::files::recover`]), then reads its manifest. A
    /// folder an older version wrote, or one with no manifest, is refused.
    pub fn open(path: &Path, flag: &'static str) -> Result<RunFolder> {
        crate::report::files::recover(path)?;
        Self::read(path, flag)
    }

    /// Reads the folder's manifest, without recovering it (a folder this process opened
    /// before).
    pub fn read(path: &Path, flag: &'static str) -> Result<RunFolder> {
        let manifest_path = path.join(MANIFEST);
        if !manifest_path.exists() && path.join(OLD_MANIFEST).exists() {
            return Err(refusal(
                path,
                flag,
                format!("the folder has no {MANIFEST} (it was written by an older version of bridgehcp, which kept {OLD_MANIFEST})"),
            ));
        }
        let text =
            std::fs::read_to_string(&manifest_path).map_err(|e| Error::io(&manifest_path, e))?;
        let manifest = Manifest::from_json(&text).map_err(|e| {
            Error::Input(InputError::new(Location::file(&manifest_path), e.to_string()))
        })?;
        Ok(RunFolder {
            path: path.to_path_buf(),
            flag,
            manifest,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The path of the folder's file `name`.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The bytes of the data file `name`, checked against the SHA-256 the manifest
    /// records: a folder whose files do not match it (half written, changed by hand, or
    /// mixing two runs) is refused.
    pub fn read_checked(&self, name: &str) -> Result<Vec<u8>> {
        let recorded = self.manifest.outputs.get(name).ok_or_else(|| {
            self.refuse(format!(
                "{MANIFEST} does not record `{name}`, so the folder is not a complete run output"
            ))
        })?;
        let path = self.file(name);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        if &sha256(&bytes) != recorded {
            return Err(self.refuse(format!(
                "`{name}` is not the file {MANIFEST} records (its SHA-256 differs): the folder was changed after the run or mixes two runs"
            )));
        }
        Ok(bytes)
    }

    /// Checks the file `name` against the hash the manifest records, when it records
    /// one (a run of an older version wrote fewer files), a block at a time.
    pub fn check(&self, name: &str) -> Result<()> {
        match self.manifest.outputs.get(name) {
            Some(recorded) if &sha256_file(&self.file(name))? != recorded => {
                Err(self.refuse(format!(
                    "`{name}` is not the file {MANIFEST} records (its SHA-256 differs): the folder was changed after the run or mixes two runs"
                )))
            }
            _ => Ok(()),
        }
    }

    /// Checks every file the manifest records, a block at a time.
    pub fn verify(&self) -> Result<()> {
        self.manifest.outputs.keys().try_for_each(|name| self.check(name))
    }

    /// Whether the run wrote the whole history into `changes.parquet` and
    /// `standings.parquet` (an older version's folder holds its own competitions only).
    pub fn whole_history(&self) -> bool {
        self.manifest.whole_history
    }

    /// The refusal of this folder, saying why and what to do instead.
    pub fn refuse(&self, why: String) -> Error {
        refusal(&self.path, self.flag, why)
    }
}

fn refusal(path: &Path, flag: &str, why: String) -> Error {
    let instead = if flag == "--state" {
        "continue from a complete run's output folder, or run without --state to start afresh"
    } else {
        "give a complete run's output folder (run the month again to write one)"
    };
    Error::Config(format!("{flag} {}: {why}; {instead}", path.display()))
}

/// SHA-256 of a file's bytes, in hex, read a block at a time.
pub fn sha256_file(path: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut block = vec![0u8; 1 << 20];
    loop {
        let read = file.read(&mut block).map_err(|e| Error::io(path, e))?;
        if read == 0 {
            break;
        }
        hasher.update(&block[..read]);
    }
    Ok(crate::pipeline::ledger::hex(&hasher.finalize()))
}

/// A path made absolute without requiring it to exist (its nearest existing ancestor
/// is resolved, so that `out/../x` and symbolic links compare as the folders they are).
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
    let mut out = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_path_buf());
    for name in rest.iter().rev() {
        out.push(name);
    }
    out
}

/// Refuses an output folder that is the state folder, inside it, or holds it: the run
/// replaces its output folder, which must not take the state it continues with it.
pub fn check_out_and_state(out: &Path, state: &Path) -> Result<()> {
    let (o, s) = (resolved(out), resolved(state));
    if o.starts_with(&s) || s.starts_with(&o) {
        return Err(Error::Config(format!(
            "--out {} {} --state {}: the run replaces its output folder and would lose the state it continues from; write the new run to another folder (one per month, e.g. --state out/2026-10 --out out/2026-11)",
            out.display(),
            if o == s {
                "is the same folder as"
            } else if o.starts_with(&s) {
                "is inside"
            } else {
                "contains"
            },
            state.display()
        )));
    }
    Ok(())
}
