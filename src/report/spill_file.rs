//! The files a run holds its board scores in while they arrive out of replay order
//! (`pipeline::sealed::Spill`), so that one large `boards.parquet` ordered by club costs
//! disk, not memory, until `board_scores.parquet` is written; and the row groups of
//! `board_scores.parquet` and `changes.parquet` encoded as the run goes, which a
//! federation's whole history of would otherwise wait in memory for the writing.
//!
//! A failed run must leave nothing behind, and two runs at once must not meet. Each file
//! is an unnamed temporary file (`tempfile::tempfile_in`): on Unix it is taken out of its
//! folder the moment it is made, so the open handle alone keeps it and it is gone on
//! every exit, a crash or a kill included; elsewhere the system deletes it on close.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
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

    /// An input/output failure of a spill file in this folder: the file has no name of
    /// its own, so the text names the folder and what the file is for.
    fn failure(&self, error: std::io::Error) -> Error {
        let kind = error.kind();
        Error::io(
            &self.dir,
            std::io::Error::new(
                kind,
                format!("the run's temporary file of board scores or changes: {error}"),
            ),
        )
    }
}

impl SpillFiles for SpillFolder {
    fn create(&self) -> Result<Box<dyn SpillFile>> {
        let file = tempfile::tempfile_in(&self.dir).map_err(|e| self.failure(e))?;
        Ok(Box::new(DiskSpill {
            file: Mutex::new(file),
            folder: self.clone(),
        }))
    }
}

/// One spill file.
#[derive(Debug)]
struct DiskSpill {
    file: Mutex<File>,
    /// Where it was made, for error texts.
    folder: SpillFolder,
}

impl DiskSpill {
    fn locked(&self) -> Result<std::sync::MutexGuard<'_, File>> {
        self.file.lock().map_err(|_| {
            self.folder
                .failure(std::io::Error::other("a thread failed while using it"))
        })
    }
}

impl SpillFile for DiskSpill {
    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        let mut file = self.locked()?;
        file.seek(SeekFrom::End(0))
            .and_then(|_| file.write_all(bytes))
            .map_err(|e| self.folder.failure(e))
    }

    fn read_at(&self, offset: u64, into: &mut [u8]) -> Result<()> {
        let mut file = self.locked()?;
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(into))
            .map_err(|e| self.folder.failure(e))
    }
}

/// Whatever is in the folder: a spill file never shows in it on Unix, and nothing is
/// left of one anywhere once it is dropped.
#[cfg(test)]
pub fn left_in(dir: &std::path::Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
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
        let expected = format!(
            "{}: the run's temporary file of board scores or changes: failed to fill whole buffer",
            dir.path().display()
        );
        assert_eq!(error.as_deref(), Some(expected.as_str()));
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
            error.as_deref().is_some_and(|e| e.starts_with(
                "/nonexistent/bridgehcp-spill: the run's temporary file of board scores or changes: "
            )),
            "{error:?}"
        );
    }
}
