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

pub use manifest::{manifest, Manifest, ReadAhead, RunInputs};
pub use state::load_state;

/// A data file of a run's folder, read and checked against the manifest, with the
/// marks its SHA-256 left (see [`RunFolder::read_checked_marked`]).
#[derive(Debug)]
pub struct CheckedFile {
    pub bytes: Vec<u8>,
    pub marks: crate::store::files::HashMarks,
}

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
pub const RUN_FILES: [&str; 16] = run_files();

/// [`DATA_FILES`] followed by the manifests and what `report` derives.
const fn run_files() -> [&'static str; 16] {
    let mut files = [""; 16];
    let mut at = 0;
    while at < DATA_FILES.len() {
        files[at] = DATA_FILES[at];
        at += 1;
    }
    let more = [MANIFEST, OLD_MANIFEST, REPORT_HTML, RANKING_DIFF];
    let mut next = 0;
    while next < more.len() {
        files[at + next] = more[next];
        next += 1;
    }
    files
}

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
    /// replacing it (see [`crate::store::files::recover`]), then reads its manifest. A
    /// folder an older version wrote, or one with no manifest, is refused.
    pub fn open(path: &Path, flag: &'static str) -> Result<RunFolder> {
        crate::store::files::recover(path)?;
        Self::read(path, flag)
    }

    /// Reads the folder's manifest, without recovering it (a folder this process opened
    /// before).
    pub fn read(path: &Path, flag: &'static str) -> Result<RunFolder> {
        let manifest_path = path.join(MANIFEST);
        if !path.is_dir() {
            return Err(Error::Config(format!(
                "{flag} {}: {}",
                path.display(),
                if path.exists() {
                    "not a folder (a run's output folder was expected)"
                } else {
                    "no such run folder"
                }
            )));
        }
        if !manifest_path.exists() {
            let why = if path.join(OLD_MANIFEST).exists() {
                format!("the folder has no {MANIFEST} (it was written by an older version of bridgehcp, which kept {OLD_MANIFEST})")
            } else {
                format!("the folder holds no {MANIFEST}, so it is not a run's output folder")
            };
            return Err(refusal(path, flag, why));
        }
        let text =
            std::fs::read_to_string(&manifest_path).map_err(|e| Error::io(&manifest_path, e))?;
        let manifest = Manifest::from_json(&text).map_err(|e| {
            Error::Input(InputError::new(
                Location::file(&manifest_path),
                e.to_string(),
            ))
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
        self.read_checked_marked(name).map(|file| file.bytes)
    }

    /// [`RunFolder::read_checked`], with the hash's marks along the bytes: a file that
    /// begins with them is hashed from the last mark it shares, not from its start
    /// (see [`crate::store::files::Hashing::after`]).
    pub fn read_checked_marked(&self, name: &str) -> Result<CheckedFile> {
        let recorded = self.recorded(name)?;
        let path = self.file(name);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let marks = crate::store::files::HashMarks::of(&bytes);
        if marks.digest() != recorded {
            return Err(self.refuse(format!(
                "`{name}` is not the file {MANIFEST} records (its SHA-256 differs): the folder was changed after the run or mixes two runs"
            )));
        }
        Ok(CheckedFile { bytes, marks })
    }

    /// The SHA-256 the manifest records for the data file `name` (hex); a folder whose
    /// manifest records none is refused.
    pub fn recorded(&self, name: &str) -> Result<&str> {
        self.manifest
            .outputs
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| {
                self.refuse(format!(
                    "{MANIFEST} does not record `{name}`, so the folder is not a complete run output"
                ))
            })
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
        self.manifest
            .outputs
            .keys()
            .try_for_each(|name| self.check(name))
    }

    /// Whether the run wrote the whole history into `changes.parquet`,
    /// `standings.parquet`, `non_members.csv` and `unrated.csv` (an older version's
    /// folder holds its own competitions only in some of them).
    pub fn whole_history(&self) -> bool {
        self.manifest.whole_history && self.manifest.whole_lists
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

/// What tells one period's run from another's: the dataset folder it read, the day it
/// stopped at (`--until`) and the run it continued (`--state`). A run may replace a
/// folder holding the same run (a month run again after a late file), not another.
#[derive(Debug, Clone, Copy)]
pub struct SameRun<'a> {
    pub data: &'a Path,
    pub until: Option<chrono::NaiveDate>,
    pub state: Option<&'a Path>,
}

impl SameRun<'_> {
    /// Whether `manifest` records this run (paths compared as the folders they name).
    fn recorded_in(&self, manifest: &Manifest) -> bool {
        let same = |recorded: &str, given: &Path| {
            Path::new(recorded) == given || resolved(Path::new(recorded)) == resolved(given)
        };
        let state = match (&manifest.inputs.state, self.state) {
            (None, None) => true,
            (Some(recorded), Some(given)) => same(&recorded.path, given),
            _ => false,
        };
        state && manifest.until == self.until && same(&manifest.inputs.data.path, self.data)
    }
}

/// A run as its manifest records it, for a message: `fed up to 2017-11-30, continued
/// from out/2017-10`.
fn describe(data: &str, until: Option<chrono::NaiveDate>, state: Option<&str>) -> String {
    format!(
        "{data} {}, {}",
        until.map_or_else(|| "with no --until".to_owned(), |d| format!("up to {d}")),
        state.map_or_else(
            || "from the start".to_owned(),
            |s| format!("continued from {s}")
        )
    )
}

/// Refuses to replace the run folder `out` when it holds another run than `run` (see
/// [`SameRun`]), saying what it holds, unless `replace` (`--replace`) says to. A folder
/// that does not exist, or is empty, is no one's. One of a run's files whose `run.json`
/// is missing or unreadable cannot be told apart, so it too is replaced only with
/// `replace`.
pub fn check_replacing(out: &Path, run: &SameRun<'_>, replace: bool) -> Result<()> {
    if replace {
        return Ok(());
    }
    let names: Vec<String> = match std::fs::read_dir(out) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with(".tmp-"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io(out, e)),
    };
    // Empty, or holding other files than a run's, which the commit refuses itself,
    // naming them.
    if names.is_empty() || names.iter().any(|n| !RUN_FILES.contains(&n.as_str())) {
        return Ok(());
    }
    let manifest = std::fs::read_to_string(out.join(MANIFEST))
        .ok()
        .and_then(|text| Manifest::from_json(&text).ok());
    let holds = match &manifest {
        Some(m) if run.recorded_in(m) => return Ok(()),
        Some(m) => format!(
            "another run ({}; applied through {})",
            describe(
                &m.inputs.data.path,
                m.until,
                m.inputs.state.as_ref().map(|s| s.path.as_str())
            ),
            m.applied_through
                .as_ref()
                .map_or_else(|| "no competition".to_owned(), |a| a.date.to_string())
        ),
        None => format!(
            "a run's files but no readable {MANIFEST}, so whether it is this run cannot be told"
        ),
    };
    Err(Error::Config(format!(
        "--out {}: the folder holds {holds}; this run is of {}. A run replaces its output folder whole (a report.html or ranking_diff.csv in it goes too): write this run to its own folder (one per month, e.g. --state out/2026-10 --out out/2026-11), or pass --replace to replace that one",
        out.display(),
        describe(
            &run.data.display().to_string(),
            run.until,
            run.state.map(|s| s.display().to_string()).as_deref()
        )
    )))
}

/// Writes an output folder whole, as a run's is written: first puts right what a
/// command killed while replacing it left ([`crate::store::files::recover`]), refuses a
/// folder holding anything but `files` (the names the folder may hold), then has
/// `write` fill a staging folder that takes the folder's place in one step
/// ([`crate::store::files::write_replacing`]). Killed at any point, the command leaves
/// the previous folder whole, never a mix of old and new files. `what` names the
/// command's output in messages (`a study`).
pub fn write_whole(
    out: &Path,
    files: &[&str],
    what: &str,
    commit: crate::store::files::Commit<'_>,
    write: impl FnOnce(&Path) -> Result<()>,
) -> Result<()> {
    crate::store::files::recover(out)?;
    crate::store::files::check_replaceable_as(out, files, what)?;
    crate::store::files::write_replacing(out, commit, write)
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

#[cfg(test)]
mod tests {
    use super::manifest::*;
    use super::*;
    use crate::pipeline::ledger::sha256;
    use crate::pipeline::ranking::RankingGroup;
    use crate::pipeline::{AppliedThrough, Mode, Rate};
    use chrono::NaiveDate;
    use std::collections::BTreeMap;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    /// A manifest with no field at its default.
    fn example() -> Manifest {
        Manifest {
            tool: Tool::default(),
            inputs: Inputs {
                data: Input {
                    path: "fed".into(),
                    sha256: "d1".into(),
                },
                factors: FactorsInput {
                    name: "fsb-2007".into(),
                    path: Some("f.toml".into()),
                    sha256: "f1".into(),
                },
                state: Some(Input {
                    path: "out/2026-10".into(),
                    sha256: "s1".into(),
                }),
                pipeline: None,
            },
            mode: Mode::Frozen,
            until: Some(date(2026, 11, 30)),
            strict: true,
            rate: Rate::Recomputed,
            ranking: Ranking {
                min_boards: 40,
                active_months: Some(6),
                as_of: Some(date(2026, 11, 30)),
                by: Some(RankingGroup::District),
            },
            published: Ranking {
                min_boards: 100,
                active_months: Some(12),
                as_of: None,
                by: None,
            },
            applied_through: Some(AppliedThrough {
                date: date(2026, 11, 28),
                session: 2,
                competition_id: "K05-20261128-2".into(),
            }),
            ledger_scheme: 2,
            whole_history: true,
            whole_lists: true,
            replayed_from_start: Some(Replayed {
                other_ledger_scheme: false,
                partial_history: false,
                changed: vec!["c2".into()],
                added_late: vec![],
                removed: vec!["c4".into()],
                members_with_another_start: vec![7],
            }),
            counts: Counts {
                competitions_applied: 3,
                changes: 24,
                ..Counts::default()
            },
            outputs: BTreeMap::from([(HANDICAPS.to_owned(), "h1".to_owned())]),
            timings: Timings {
                total_s: 0.261,
                ..Timings::default()
            },
        }
    }

    /// Written and read back, a manifest is the one written; and it spells its
    /// settings as `run.json` always has (the pipeline's enums in lower case, the
    /// keys in the order docs/data.md lists them).
    #[test]
    fn a_manifest_reads_back_as_written() {
        let manifest = example();
        let text = manifest.to_json().unwrap();
        assert_eq!(Manifest::from_json(&text).unwrap(), manifest);
        assert!(text.ends_with("}\n"));
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let order = [
            "\"mode\": \"frozen\",",
            "\"until\": \"2026-11-30\",",
            "\"strict\": true,",
            "\"rate\": \"recomputed\",",
            "\"by\": \"district\"",
            "\"ledger_scheme\": 2,",
            "\"whole_history\": true,",
            "\"handicaps.parquet\": \"h1\"",
            "\"total_s\": 0.261",
        ];
        let mut at = 0;
        for line in order {
            let found = lines[at..].iter().position(|l| *l == line);
            assert!(found.is_some(), "`{line}` not after line {at} in\n{text}");
            at += found.unwrap_or(0) + 1;
        }
    }

    /// A manifest of an older version, with only what a continued run needs, reads
    /// with the documented defaults: the published results rated, ledger scheme 0
    /// (hashes taken by another version), and not the whole history.
    #[test]
    fn an_older_manifest_reads_with_the_documented_defaults() {
        let text = r#"{"inputs": {"factors": {"name": "fsb-2007", "sha256": "f1"}},
            "mode": "live", "outputs": {"handicaps.parquet": "h1"}}"#;
        let manifest = Manifest::from_json(text).unwrap();
        assert_eq!(manifest.mode, Mode::Live);
        assert_eq!(manifest.rate, Rate::Published);
        assert_eq!(manifest.ledger_scheme, 0);
        assert!(!manifest.whole_history);
        assert_eq!(manifest.applied_through, None);
        assert_eq!(manifest.inputs.data.path, "");
    }

    fn folder_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in files {
            std::fs::write(dir.path().join(name), content).unwrap();
        }
        dir
    }

    /// A folder an older version wrote (`run.toml`, no `run.json`) is refused with the
    /// message docs/data.md documents, naming the option that gave it.
    #[test]
    fn an_old_run_toml_folder_gets_the_documented_message() {
        let dir = folder_with(&[(OLD_MANIFEST, "mode = \"frozen\"\n")]);
        let e = RunFolder::open(dir.path(), "--out-dir")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "--out-dir {}: the folder has no run.json (it was written by an older version of bridgehcp, which kept run.toml); give a complete run's output folder (run the month again to write one)",
                dir.path().display()
            )
        );
    }

    /// An unknown mode is an error naming `run.json` and the values it may take.
    #[test]
    fn an_unknown_mode_names_the_file() {
        let json = r#"{"inputs": {"factors": {"name": "x", "sha256": "f"}}, "mode": "weekly", "outputs": {}}"#;
        let dir = folder_with(&[(MANIFEST, json)]);
        let e = RunFolder::open(dir.path(), "--state")
            .unwrap_err()
            .to_string();
        assert!(e.contains("run.json"), "{e}");
        assert!(
            e.contains("unknown variant `weekly`, expected `live` or `frozen`"),
            "{e}"
        );
    }

    /// A file is read only when its SHA-256 is the one `run.json` records
    /// (SHA-256 of "x\n", as `printf 'x\n' | sha256sum` prints it); one the manifest
    /// does not record is not read either.
    #[test]
    fn a_file_other_than_the_recorded_one_is_refused() {
        let recorded = "73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac";
        assert_eq!(sha256(b"x\n"), recorded);
        let json = format!(
            r#"{{"inputs": {{"factors": {{"name": "x", "sha256": "f"}}}}, "mode": "live", "outputs": {{"a.csv": "{recorded}"}}}}"#
        );
        let dir = folder_with(&[(MANIFEST, &json), ("a.csv", "x\n"), ("b.csv", "x\n")]);
        let folder = RunFolder::open(dir.path(), "--state").unwrap();
        assert_eq!(folder.read_checked("a.csv").unwrap(), b"x\n");
        folder.verify().unwrap();
        let e = folder.read_checked("b.csv").unwrap_err().to_string();
        assert!(e.contains("run.json does not record `b.csv`"), "{e}");
        std::fs::write(dir.path().join("a.csv"), "y\n").unwrap();
        for e in [
            folder.read_checked("a.csv").unwrap_err(),
            folder.check("a.csv").unwrap_err(),
            folder.verify().unwrap_err(),
        ] {
            let e = e.to_string();
            assert!(
                e.contains("`a.csv` is not the file run.json records (its SHA-256 differs)"),
                "{e}"
            );
            assert!(e.contains("run without --state to start afresh"), "{e}");
        }
    }
}
