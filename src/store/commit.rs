//! Moving an imported dataset from one version to the next in one step.
//!
//! The dataset folder that `import` keeps is the federation's only copy of years of
//! results, and `run`, analysts' notebooks and the next `import` read it by path. An
//! import that wrote its month partitions and `members.parquet` one rename at a time
//! could be killed between two of them and leave a folder that is neither the old
//! dataset nor the new one (a month deleted before its replacement was moved in, new
//! players missing from `members` while their competitions are already there). So an
//! import builds the whole next version in a hidden folder beside the dataset, the
//! files it does not change hard-linked from the current version (no copy of the
//! history per import), and exchanges the two folders in one atomic rename
//! ([`crate::store::files::write_replacing`]). Killed at any moment the dataset is the
//! version before or the version after; what the killed process left beside it is
//! cleaned up (or, killed between the two renames of a file system that cannot
//! exchange, moved back) by the next `import` or `run` through [`recover_dataset`],
//! which says what it found.
//!
//! A run reads board files while it scores, long after it opened the dataset, so
//! commands also lock the folder ([`crate::store::lock`]): an import waits for runs
//! reading the current version, and a run waits for an import that is committing.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// Fills `to` (an empty folder) with hard links to every file below `from` whose path
/// relative to `from` is not `skipped`, recreating folders and symbolic links. Where
/// the file system cannot link (another device, no hard links), the file is copied.
/// Hidden temporary entries (`.tmp-…`, `.NAME.tmp-…`) of earlier writers are left out.
pub fn link_tree(from: &Path, to: &Path, skipped: &dyn Fn(&Path) -> bool) -> Result<(), Error> {
    link_below(from, to, Path::new(""), skipped)
}

fn link_below(
    root: &Path,
    to: &Path,
    relative: &Path,
    skipped: &dyn Fn(&Path) -> bool,
) -> Result<(), Error> {
    let here = root.join(relative);
    let entries = std::fs::read_dir(&here).map_err(|e| Error::io(&here, e))?;
    let mut names: Vec<std::ffi::OsString> = Vec::new();
    for entry in entries {
        names.push(entry.map_err(|e| Error::io(&here, e))?.file_name());
    }
    names.sort();
    for name in names {
        let text = name.to_string_lossy();
        if is_temporary(&text) {
            continue;
        }
        let rel = relative.join(&name);
        if skipped(&rel) {
            continue;
        }
        let source = root.join(&rel);
        let target = to.join(&rel);
        let kind = std::fs::symlink_metadata(&source)
            .map_err(|e| Error::io(&source, e))?
            .file_type();
        if kind.is_symlink() {
            copy_symlink(&source, &target)?;
        } else if kind.is_dir() {
            std::fs::create_dir(&target).map_err(|e| Error::io(&target, e))?;
            link_below(root, to, &rel, skipped)?;
        } else if std::fs::hard_link(&source, &target).is_err() {
            std::fs::copy(&source, &target).map_err(|e| Error::io(&target, e))?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn copy_symlink(source: &Path, target: &Path) -> Result<(), Error> {
    let points_to = std::fs::read_link(source).map_err(|e| Error::io(source, e))?;
    std::os::unix::fs::symlink(points_to, target).map_err(|e| Error::io(target, e))
}

#[cfg(not(unix))]
fn copy_symlink(source: &Path, target: &Path) -> Result<(), Error> {
    std::fs::copy(source, target)
        .map(|_| ())
        .map_err(|e| Error::io(target, e))
}

/// The file that marks a version of the dataset as the next one, not yet in place: it
/// is written first into the folder being built, and removed from the dataset folder
/// once that folder has taken the dataset's place. So a leftover holding it never was
/// the dataset, and a dataset folder holding it was switched in by an import killed
/// before it had tidied up.
pub const IN_PROGRESS: &str = ".tmp-import-in-progress";

/// Marks `staging` as the next version being built ([`IN_PROGRESS`]).
pub fn mark_in_progress(staging: &Path) -> Result<(), Error> {
    let marker = staging.join(IN_PROGRESS);
    std::fs::write(&marker, b"").map_err(|e| Error::io(&marker, e))
}

/// Removes the [`IN_PROGRESS`] mark from the dataset folder `dir`, now in place.
pub fn finish_in_progress(dir: &Path) -> Result<(), Error> {
    let marker = dir.join(IN_PROGRESS);
    match std::fs::remove_file(&marker) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(&marker, e)),
    }
}

/// A name a writer uses while it writes: `.tmp-PID-N` (a staging folder inside an
/// output folder) or `.NAME.tmp-PID-N` (a file being written).
fn is_temporary(name: &str) -> bool {
    name.starts_with(".tmp-") || (name.starts_with('.') && name.contains(".tmp-"))
}

/// The process id in a temporary name (`.tmp-4711-0`, `.boards.parquet.tmp-4711-3`).
fn temporary_pid(name: &str) -> Option<u32> {
    let (_, suffix) = name.rsplit_once(".tmp-")?;
    suffix.split('-').next()?.parse().ok()
}

fn running(pid: u32) -> bool {
    pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
}

/// Brings the dataset folder `dir` back to one whole version after a command that was
/// killed while writing it, and says what it found, one line per thing done:
///
/// * the next version being built beside it (`.NAME.staging-PID-N`) by a process that
///   no longer runs is removed: that import did not happen;
/// * the previous version waiting beside it (`.NAME.old-PID-N`) is moved back when the
///   folder itself is missing (killed between the two renames of a file system that
///   cannot exchange folders), or removed when the new version is in place;
/// * hidden temporary files and folders inside it (`.tmp-…`) of writers that no longer
///   run are removed.
pub fn recover_dataset(dir: &Path) -> Result<Vec<String>, Error> {
    let switched = dir.join(IN_PROGRESS).exists();
    let had = dir.exists();
    // Which leftovers beside the folder were being built (marked), read before
    // `recover` removes them.
    let marked = marked_leftovers(dir);
    let mut found = Vec::new();
    for path in crate::store::files::recover(dir)? {
        found.push(recovered_line(dir, &path, had, &marked));
    }
    if switched && dir.exists() {
        finish_in_progress(dir)?;
        if found.is_empty() {
            found.push(format!(
                "{}: the last import was killed just after its new version was in place; the dataset is the one after that import",
                dir.display()
            ));
        }
    }
    remove_stale_temporaries(dir, &mut found)?;
    Ok(found)
}

/// The leftovers beside the dataset folder `dir` (`.NAME.…`) that carry the
/// [`IN_PROGRESS`] mark: versions that were still being built.
fn marked_leftovers(dir: &Path) -> Vec<PathBuf> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Vec::new();
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    std::fs::read_dir(parent)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                .map(|e| e.path())
                .filter(|p| p.join(IN_PROGRESS).exists())
                .collect()
        })
        .unwrap_or_default()
}

/// What recovering the leftover `path` of the dataset folder `dir` meant: the version
/// before moved back (the folder was missing, `had` says whether it was there), an
/// unfinished version removed (it is among `marked`), or a previous version removed.
fn recovered_line(dir: &Path, path: &Path, had: bool, marked: &[PathBuf]) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let restored = !had && dir.exists() && name.contains(".old-");
    let unfinished = marked.iter().any(|m| m.file_name() == path.file_name());
    if restored {
        format!(
            "{}: an import was killed while replacing the dataset; the version before it was moved back from {}",
            dir.display(),
            path.display()
        )
    } else if unfinished {
        format!(
            "{}: an import was killed before its new version was in place; the dataset is as it was before that import (import its files again), and the unfinished version {} was removed",
            dir.display(),
            path.display()
        )
    } else {
        format!(
            "{}: an import was killed just after its new version was in place; the dataset is the one after that import, and the previous version it left in {} was removed",
            dir.display(),
            path.display()
        )
    }
}

/// Removes the hidden temporary files and folders inside `dir` of writers that no
/// longer run, in name order, saying so in `found`.
fn remove_stale_temporaries(dir: &Path, found: &mut Vec<String>) -> Result<(), Error> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut stale: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            is_temporary(&name) && temporary_pid(&name).is_some_and(|pid| !running(pid))
        })
        .map(|e| e.path())
        .collect();
    stale.sort();
    for path in stale {
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| Error::io(&path, e))?;
        found.push(format!(
            "{}: removed {}, left by a writer that was killed (it was never part of the dataset)",
            dir.display(),
            path.display()
        ));
    }
    Ok(())
}

/// `dir` as a path whose last part names the folder (`.` and `..` are resolved), as
/// the atomic switch, which works on the folder's entry in its parent, needs.
pub fn named_folder(dir: &Path) -> PathBuf {
    let unnamed = dir
        .file_name()
        .is_none_or(|n| n == std::ffi::OsStr::new(".") || n == std::ffi::OsStr::new(".."));
    if unnamed {
        if let Ok(full) = std::fs::canonicalize(dir) {
            return full;
        }
    }
    dir.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn linking_shares_the_files_and_leaves_out_skipped_and_temporary_ones() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let from = dir.path().join("fed");
        write(&from.join("members.parquet"), "m");
        write(&from.join("boards/month=2015-09/part-0.parquet"), "b9");
        write(&from.join("boards/month=2015-10/part-0.parquet"), "b10");
        write(&from.join(".tmp-1-0/members.parquet"), "half");
        write(&from.join("notes.txt"), "keep");
        let to = dir.path().join("next");
        std::fs::create_dir(&to).unwrap_or_else(|e| panic!("{e}"));
        let skip = |p: &Path| p == Path::new("boards/month=2015-10");
        link_tree(&from, &to, &skip).unwrap_or_else(|e| panic!("{e}"));
        assert!(to.join("boards/month=2015-09/part-0.parquet").is_file());
        assert!(!to.join("boards/month=2015-10").exists());
        assert!(!to.join(".tmp-1-0").exists());
        assert_eq!(
            std::fs::read_to_string(to.join("notes.txt"))
                .ok()
                .as_deref(),
            Some("keep")
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let inode = |p: &Path| std::fs::metadata(p).map(|m| m.ino()).unwrap_or(0);
            assert_eq!(
                inode(&from.join("members.parquet")),
                inode(&to.join("members.parquet"))
            );
        }
    }

    #[test]
    fn temporary_names_carry_the_writer_pid() {
        assert_eq!(temporary_pid(".tmp-4711-0"), Some(4711));
        assert_eq!(temporary_pid(".members.parquet.tmp-4711-3"), Some(4711));
        assert_eq!(temporary_pid("members.parquet"), None);
        assert!(is_temporary(".tmp-12-0"));
        assert!(!is_temporary("month=2015-09"));
    }
}
