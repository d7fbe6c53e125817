//! Locks on the folders commands read and replace.
//!
//! A dataset is replaced whole by an import, and a run's output folder whole by the next
//! run written to it. Both are read by path, file after file, long after a command
//! opened them: a run reads board files while it scores, and a continued run reads its
//! state's history while it writes its own. A reader that took one file of a folder
//! before it was replaced and another after would mix two versions (a state's ledger
//! from one run, its history from the next). So every command holds the folders it
//! reads shared and those it replaces exclusively, for as long as it uses them.
//!
//! The lock is taken on the folder itself, so no lock file is left behind; since a
//! writer puts a new folder in the old one's place, the lock is taken again until the
//! folder locked is the one the path names. A command that needs several folders takes
//! their locks in one order (by resolved path), so that two commands never each hold
//! what the other waits for.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// How a command uses a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    /// It reads the folder: others may read it too, nobody may replace it meanwhile.
    Shared,
    /// It replaces the folder (or its files): nobody else may read or write it.
    Exclusive,
}

/// A lock on one folder, held for as long as the value lives.
#[derive(Debug)]
pub struct FolderLock {
    _folder: Option<std::fs::File>,
}

impl FolderLock {
    /// Shared: several readers at once; waits while a writer replaces the folder.
    pub fn shared(dir: &Path) -> Result<FolderLock, Error> {
        FolderLock::take(dir, Access::Shared)
    }

    /// Exclusive: waits until no other command reads or writes `dir`.
    pub fn exclusive(dir: &Path) -> Result<FolderLock, Error> {
        FolderLock::take(dir, Access::Exclusive)
    }

    #[cfg(unix)]
    pub fn take(dir: &Path, access: Access) -> Result<FolderLock, Error> {
        use rustix::fs::{flock, FlockOperation};
        use std::os::unix::fs::MetadataExt;
        let exclusive = access == Access::Exclusive;
        let (now, wait) = if exclusive {
            (
                FlockOperation::NonBlockingLockExclusive,
                FlockOperation::LockExclusive,
            )
        } else {
            (
                FlockOperation::NonBlockingLockShared,
                FlockOperation::LockShared,
            )
        };
        loop {
            let folder = match std::fs::File::open(dir) {
                Ok(folder) if folder.metadata().is_ok_and(|m| m.is_dir()) => folder,
                // Nothing to lock yet (a new folder), or not a folder.
                _ => return Ok(FolderLock { _folder: None }),
            };
            if flock(&folder, now).is_err() {
                eprintln!(
                    "bridgehcp: waiting for another bridgehcp command that is {} {}",
                    if exclusive { "using" } else { "replacing" },
                    dir.display()
                );
                flock(&folder, wait).map_err(|e| Error::io(dir, std::io::Error::from(e)))?;
            }
            let locked = folder.metadata().map_err(|e| Error::io(dir, e))?;
            let named = std::fs::metadata(dir);
            if named.is_ok_and(|m| m.dev() == locked.dev() && m.ino() == locked.ino()) {
                return Ok(FolderLock {
                    _folder: Some(folder),
                });
            }
            // A writer replaced the folder while this waited: lock the new one.
        }
    }

    #[cfg(not(unix))]
    pub fn take(_: &Path, _: Access) -> Result<FolderLock, Error> {
        Ok(FolderLock { _folder: None })
    }
}

/// The locks of one command, taken together in a fixed order and released together.
#[derive(Debug, Default)]
pub struct Locks {
    _held: Vec<FolderLock>,
}

impl Locks {
    /// Takes a lock on every folder, in the order of their resolved paths; a folder
    /// named twice is locked once, exclusively if either use replaces it.
    pub fn take(folders: &[(&Path, Access)]) -> Result<Locks, Error> {
        let mut wanted: Vec<(PathBuf, &Path, Access)> = folders
            .iter()
            .map(|&(dir, access)| (resolved(dir), dir, access))
            .collect();
        wanted.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)));
        wanted.dedup_by(|later, first| later.0 == first.0);
        let mut held = Vec::with_capacity(wanted.len());
        for (_, dir, access) in wanted {
            held.push(FolderLock::take(dir, access)?);
        }
        Ok(Locks { _held: held })
    }
}

/// `dir` as one spelling of the folder it names, so that two spellings sort together.
fn resolved(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir)
        .unwrap_or_else(|_| std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_writer_waits_for_a_reader_and_locks_the_folder_in_place() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let fed = dir.path().join("fed");
        std::fs::create_dir(&fed).unwrap_or_else(|e| panic!("{e}"));
        let reader = FolderLock::shared(&fed).unwrap_or_else(|e| panic!("{e}"));
        let (done, finished) = std::sync::mpsc::channel();
        let path = fed.clone();
        let writer = std::thread::spawn(move || {
            let lock = FolderLock::exclusive(&path);
            let _ = done.send(());
            lock.map(|_| ()).map_err(|e| e.to_string())
        });
        let waited = finished.recv_timeout(std::time::Duration::from_millis(300));
        assert!(waited.is_err(), "the writer did not wait for the reader");
        drop(reader);
        assert!(finished
            .recv_timeout(std::time::Duration::from_secs(10))
            .is_ok());
        assert_eq!(writer.join().ok(), Some(Ok(())));
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_named_twice_is_locked_once_exclusively() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let a = dir.path().join("a");
        std::fs::create_dir(&a).unwrap_or_else(|e| panic!("{e}"));
        let other = a.join("..").join("a");
        let locks = Locks::take(&[(&a, Access::Shared), (&other, Access::Exclusive)])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(locks._held.len(), 1);
        // Held exclusively: another shared lock must wait.
        let (done, finished) = std::sync::mpsc::channel();
        let path = a.clone();
        let reader = std::thread::spawn(move || {
            let lock = FolderLock::shared(&path).map(|_| ());
            let _ = done.send(());
            lock.map_err(|e| e.to_string())
        });
        let waited = finished.recv_timeout(std::time::Duration::from_millis(300));
        assert!(waited.is_err(), "the reader did not wait for the writer");
        drop(locks);
        assert!(finished
            .recv_timeout(std::time::Duration::from_secs(10))
            .is_ok());
        assert_eq!(reader.join().ok(), Some(Ok(())));
    }
}
