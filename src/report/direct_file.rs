//! A large output file written past the page cache.
//!
//! `score`'s result sheet of a federation is hundreds of megabytes of HTML and CSV,
//! written once and synced before the output folder is committed. Written through the
//! page cache, every byte is first copied into it by the kernel (a second of CPU at
//! full size, a tenth of the command's) and then written to the disk when the file is
//! synced, at the end, with the cores idle. Written with `O_DIRECT`, whole aligned
//! blocks go from the writer's buffer to the disk: no copy, and nothing left to write
//! at the sync but the tail.
//!
//! `O_DIRECT` is asked for after the file is created, so a file system without it
//! (tmpfs before Linux 6.6, some network and FUSE file systems) is written through the
//! page cache as before; so is the tail that does not fill a block, and the rest of
//! the file after any direct write the file system refuses. The bytes on disk are the
//! same either way. Elsewhere than on Linux, the file is always written through the
//! page cache.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The alignment direct writes need, of their buffer, length and file offset: the
/// largest logical block size of common disks.
const BLOCK: usize = 4096;

/// Bytes gathered before a write: large enough that the disk streams, small enough to
/// stay in the caches.
const CHUNK: usize = 4 << 20;

/// A file being written, a chunk at a time, past the page cache where it can be.
pub(crate) struct DirectFile {
    path: PathBuf,
    file: File,
    /// `CHUNK + BLOCK` bytes, of which the `CHUNK` from `start` are aligned to `BLOCK`.
    buffer: Vec<u8>,
    start: usize,
    /// Bytes gathered at `buffer[start..]`.
    held: usize,
    /// Whether writes still go past the page cache.
    direct: bool,
}

impl DirectFile {
    /// Creates the file at `path`, which must not exist.
    pub(crate) fn create(path: PathBuf) -> Result<Self> {
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let direct = set_direct(&file, true);
        let buffer = vec![0u8; CHUNK + BLOCK];
        let start = buffer.as_ptr().align_offset(BLOCK).min(BLOCK);
        Ok(DirectFile {
            path,
            file,
            buffer,
            start,
            held: 0,
            direct,
        })
    }

    /// Appends `bytes`.
    pub(crate) fn write(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let room = CHUNK - self.held;
            let taken = room.min(bytes.len());
            let at = self.start + self.held;
            self.buffer[at..at + taken].copy_from_slice(&bytes[..taken]);
            self.held += taken;
            bytes = &bytes[taken..];
            if self.held == CHUNK {
                self.flush_held()?;
            }
        }
        Ok(())
    }

    /// Writes the bytes gathered: the whole blocks directly when it can, the rest
    /// through the page cache.
    fn flush_held(&mut self) -> Result<()> {
        let blocks = self.held - self.held % BLOCK;
        let mut done = 0;
        if self.direct && blocks > 0 {
            let aligned = &self.buffer[self.start..self.start + blocks];
            match write_whole_blocks(&mut self.file, aligned) {
                Ok(()) => done = blocks,
                Err(written) => {
                    // The file system refused a direct write: the rest of the file goes
                    // through the page cache, from the first byte not written.
                    done = written;
                    self.direct = false;
                    set_direct(&self.file, false);
                }
            }
        }
        if done < self.held {
            if self.direct {
                // A tail that fills no block is written only at the end.
                set_direct(&self.file, false);
                self.direct = false;
            }
            let rest = &self.buffer[self.start + done..self.start + self.held];
            self.file
                .write_all(rest)
                .map_err(|e| Error::io(&self.path, e))?;
        }
        self.held = 0;
        Ok(())
    }

    /// The file's path, for messages.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Writes what is held and waits until the file's bytes are on disk.
    pub(crate) fn finish(mut self) -> Result<()> {
        self.flush_held()?;
        self.file.sync_all().map_err(|e| Error::io(&self.path, e))
    }
}

/// Writes `blocks` (aligned, a whole number of blocks) at the file's offset, which is
/// a whole number of blocks too; on a refusal, how many bytes were written (whole
/// blocks: what the file holds so far is exactly what was written).
fn write_whole_blocks(file: &mut File, blocks: &[u8]) -> std::result::Result<(), usize> {
    let mut written = 0;
    while written < blocks.len() {
        match file.write(&blocks[written..]) {
            Ok(0) => return Err(written),
            // A short write leaves the offset unaligned for the next direct write: the
            // rest goes through the page cache.
            Ok(n) if n % BLOCK != 0 => return Err(written + n),
            Ok(n) => written += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Err(written),
        }
    }
    Ok(())
}

/// Turns direct writes on or off for `file`; whether they are on afterwards.
#[cfg(target_os = "linux")]
fn set_direct(file: &File, on: bool) -> bool {
    use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
    let Ok(flags) = fcntl_getfl(file) else {
        return false;
    };
    let wanted = if on {
        flags | OFlags::DIRECT
    } else {
        flags.difference(OFlags::DIRECT)
    };
    fcntl_setfl(file, wanted).is_ok() && on
}

#[cfg(not(target_os = "linux"))]
fn set_direct(_file: &File, _on: bool) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes whose every position is told apart from its neighbours.
    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    fn written(pieces: &[usize]) -> (Vec<u8>, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        let total: usize = pieces.iter().sum();
        let bytes = pattern(total);
        let mut file = DirectFile::create(path.clone()).unwrap();
        let mut at = 0;
        for &piece in pieces {
            file.write(&bytes[at..at + piece]).unwrap();
            at += piece;
        }
        file.finish().unwrap();
        (bytes, std::fs::read(&path).unwrap())
    }

    #[test]
    fn a_file_of_several_chunks_and_a_tail_holds_every_byte_in_order() {
        // Two and a half chunks, a block and 5 bytes (10 489 861), in pieces that
        // straddle chunk and block bounds.
        let pieces = [1, 4095, CHUNK - 4096 + 3, CHUNK, CHUNK / 2 + 2, 0, 4096];
        let (expected, read) = written(&pieces);
        assert_eq!(read.len(), 10_489_861);
        assert_eq!(read.len(), expected.len());
        assert!(read == expected);
    }

    #[test]
    fn small_and_empty_files_are_written_whole() {
        let (expected, read) = written(&[3]);
        assert_eq!(read, expected);
        let (_, read) = written(&[]);
        assert!(read.is_empty());
        let (expected, read) = written(&[BLOCK]);
        assert_eq!(read.len(), BLOCK);
        assert!(read == expected);
    }

    #[test]
    fn an_existing_file_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("there.csv");
        std::fs::write(&path, b"kept").unwrap();
        assert!(DirectFile::create(path.clone()).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"kept");
    }
}
