//! The files a run holds its board scores in while they arrive out of replay order
//! (`pipeline::sealed::Spill`), so that one large `boards.parquet` ordered by club costs
//! disk, not memory, until `board_scores.parquet` is written.
//!
//! A failed run must leave nothing behind, and two runs at once must not meet. So each
//! file is made under a name nobody else can take (`create_new`, with the process id
//! and a counter), and on Unix taken out of its folder as soon as it is open: the open
//! handle alone keeps it, and it is gone on every exit, a crash or a kill included.
//! Where that is refused (and elsewhere), it is removed when the run drops it, which
//! every error path does.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::pipeline::sealed::{SpillFile, SpillFiles};

/// Makes spill files in one folder.
#[derive(Debug, Clone)]
pub struct SpillFolder {
    dir: PathBuf,
}

impl SpillFolder {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SpillFolder { dir: dir.into() }
    }

    /// The system's folder for temporary files (`TMPDIR` on Unix).
    pub fn temporary() -> Self {
        SpillFolder::new(std::env::temp_dir())
    }
}

/// Spill files made by this process, for their names.
static MADE: AtomicU64 = AtomicU64::new(0);

impl SpillFiles for SpillFolder {
    fn create(&self) -> Result<Box<dyn SpillFile>> {
        let mut taken = None;
        for _ in 0..64 {
            let name = format!(
                ".bridgehcp-board-scores-{}-{}.spill",
                std::process::id(),
                MADE.fetch_add(1, Ordering::Relaxed)
            );
            let path = self.dir.join(name);
            match std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => {
                    let removal = if cfg!(unix) && std::fs::remove_file(&path).is_ok() {
                        None
                    } else {
                        Some(Removal(path.clone()))
                    };
                    return Ok(Box::new(DiskSpill {
                        file: Mutex::new(file),
                        _removal: removal,
                        path,
                    }));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => taken = Some(e),
                Err(e) => return Err(Error::io(path, e)),
            }
        }
        Err(Error::io(
            &self.dir,
            taken.unwrap_or_else(|| std::io::Error::other("no free name for a spill file")),
        ))
    }
}

/// Removes a spill file from its folder when dropped.
#[derive(Debug)]
struct Removal(PathBuf);

impl Drop for Removal {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// One spill file.
#[derive(Debug)]
struct DiskSpill {
    file: Mutex<File>,
    /// Declared after `file`, so the file is closed before it is removed (some systems
    /// refuse to remove an open file).
    _removal: Option<Removal>,
    /// Where it was made, for error texts.
    path: PathBuf,
}

impl DiskSpill {
    fn locked(&self) -> Result<std::sync::MutexGuard<'_, File>> {
        self.file.lock().map_err(|_| {
            Error::io(
                &self.path,
                std::io::Error::other("a thread failed while using this file"),
            )
        })
    }
}

impl SpillFile for DiskSpill {
    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        let mut file = self.locked()?;
        file.seek(SeekFrom::End(0))
            .and_then(|_| file.write_all(bytes))
            .map_err(|e| Error::io(&self.path, e))
    }

    fn read_at(&self, offset: u64, into: &mut [u8]) -> Result<()> {
        let mut file = self.locked()?;
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(into))
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// The folder's spill files, made by this process, that are still in it.
#[cfg(test)]
pub fn left_in(dir: &std::path::Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(".bridgehcp-board-scores-"))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spill_file_reads_back_what_was_written_and_leaves_nothing() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let folder = SpillFolder::new(dir.path());
        let mut one = folder.create()?;
        let mut two = folder.create()?;
        one.append(b"abcdef")?;
        two.append(b"XYZ")?;
        one.append(b"gh")?;
        let mut got = [0u8; 4];
        one.read_at(3, &mut got)?;
        assert_eq!(&got, b"defg");
        let mut got = [0u8; 3];
        two.read_at(0, &mut got)?;
        assert_eq!(&got, b"XYZ");
        // Reading past the end is an error naming the file's folder, not a short read.
        let mut past = [0u8; 4];
        let error = one.read_at(6, &mut past).err().map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.starts_with(&format!(
                "{}/.bridgehcp-board-scores-",
                dir.path().display()
            ))),
            "{error:?}"
        );
        // Open, and already out of the folder on Unix; gone from it once dropped anywhere.
        if cfg!(unix) {
            assert_eq!(left_in(dir.path()), Vec::<PathBuf>::new());
        }
        drop(one);
        drop(two);
        assert_eq!(left_in(dir.path()), Vec::<PathBuf>::new());
        Ok(())
    }

    #[test]
    fn a_folder_that_cannot_hold_files_is_an_error_naming_it() {
        let error = SpillFolder::new("/nonexistent/bridgehcp-spill")
            .create()
            .err()
            .map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(
                |e| e.starts_with("/nonexistent/bridgehcp-spill/.bridgehcp-board-scores-")
            ),
            "{error:?}"
        );
    }
}
