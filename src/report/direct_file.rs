//! A large output file written past the page cache.
//!
//! `score`'s result sheet of a federation is hundreds of megabytes of HTML and CSV,
//! written once and synced before the output folder is committed. Written through the
//! page cache, every byte is first copied into it by the kernel (a second of CPU at
//! full size, about 6 % of the command's) and then written to the disk when the file is
//! synced, at the end, with the cores idle. Written with `O_DIRECT`, whole aligned
//! blocks go from the writer's buffer to the disk: no copy, and nothing left to write
//! at the sync but the tail.
//!
//! A direct write returns only once the disk has the bytes, so the writes are made by
//! a thread of the file's own, a chunk at a time, while the caller (a core of the
//! pool, encoding the next lines) fills the next chunk: its core never waits on the
//! disk.
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
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use crate::error::{Error, Result};

/// The alignment direct writes need, of their buffer, length and file offset: the
/// largest logical block size of common disks.
const BLOCK: usize = 4096;

/// Bytes gathered before a write: large enough that the disk streams, small enough to
/// stay in the caches.
const CHUNK: usize = 4 << 20;

/// Chunks a file has: one being filled, one waiting for the writer, one being written.
const CHUNKS: usize = 3;

/// A buffer of `CHUNK + BLOCK` bytes, of which the `CHUNK` from `start` are aligned to
/// `BLOCK`.
struct Chunk {
    bytes: Vec<u8>,
    start: usize,
}

impl Chunk {
    fn new() -> Self {
        let bytes = vec![0u8; CHUNK + BLOCK];
        let start = bytes.as_ptr().align_offset(BLOCK).min(BLOCK);
        Chunk { bytes, start }
    }

    /// The first `len` bytes of its aligned part.
    fn held(&self, len: usize) -> &[u8] {
        &self.bytes[self.start..self.start + len]
    }
}

/// A file being written, a chunk at a time, past the page cache where it can be.
pub(crate) struct DirectFile {
    path: PathBuf,
    chunk: Chunk,
    /// Bytes gathered in `chunk`.
    held: usize,
    /// Filled chunks to the writer, with how many of their bytes count.
    to_writer: Option<SyncSender<(Chunk, usize)>>,
    /// Written chunks back from the writer.
    written: Receiver<Chunk>,
    writer: Option<JoinHandle<std::io::Result<()>>>,
}

impl DirectFile {
    /// Creates the file at `path`, which must not exist.
    pub(crate) fn create(path: PathBuf) -> Result<Self> {
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let (to_writer, filled) = sync_channel::<(Chunk, usize)>(CHUNKS);
        let (back, written) = sync_channel::<Chunk>(CHUNKS);
        for _ in 1..CHUNKS {
            // Cannot fail: the channel has room for every chunk and its receiver is here.
            let _ = back.send(Chunk::new());
        }
        let writer = std::thread::Builder::new()
            .name("direct-write".into())
            .spawn(move || write_chunks(file, filled, back, true))
            .map_err(|e| Error::io(&path, e))?;
        Ok(DirectFile {
            path,
            chunk: Chunk::new(),
            held: 0,
            to_writer: Some(to_writer),
            written,
            writer: Some(writer),
        })
    }

    /// The file's path, for messages.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `bytes`.
    pub(crate) fn write(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let taken = (CHUNK - self.held).min(bytes.len());
            let at = self.chunk.start + self.held;
            self.chunk.bytes[at..at + taken].copy_from_slice(&bytes[..taken]);
            self.held += taken;
            bytes = &bytes[taken..];
            if self.held == CHUNK {
                self.hand_over()?;
            }
        }
        Ok(())
    }

    /// Gives the chunk to the writer and takes an empty one back.
    fn hand_over(&mut self) -> Result<()> {
        let next = match self.written.recv() {
            Ok(next) => next,
            Err(_) => return Err(self.writer_error()),
        };
        let full = std::mem::replace(&mut self.chunk, next);
        let sent = self
            .to_writer
            .as_ref()
            .is_some_and(|writer| writer.send((full, self.held)).is_ok());
        self.held = 0;
        if sent {
            Ok(())
        } else {
            Err(self.writer_error())
        }
    }

    /// Why the writer stopped: its error, once it has ended.
    fn writer_error(&mut self) -> Error {
        match self.end_writer() {
            Err(error) => error,
            Ok(()) => Error::io(
                &self.path,
                std::io::Error::other("the file's writer stopped unexpectedly"),
            ),
        }
    }

    /// Tells the writer no chunk follows and waits for it to end: its outcome.
    fn end_writer(&mut self) -> Result<()> {
        self.to_writer = None;
        match self.writer.take().map(JoinHandle::join) {
            Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(cause))) => Err(Error::io(&self.path, cause)),
            _ => Err(Error::io(
                &self.path,
                std::io::Error::other("the file's writer stopped unexpectedly"),
            )),
        }
    }

    /// Writes what is held and waits until the file's bytes are on disk.
    pub(crate) fn finish(mut self) -> Result<()> {
        if self.held > 0 {
            self.hand_over()?;
        }
        self.end_writer()
    }
}

/// The writer: writes each chunk as it comes (`direct`ly when asked and the file
/// system can), hands it back, and syncs the file once the last has come.
fn write_chunks(
    mut file: File,
    filled: Receiver<(Chunk, usize)>,
    back: SyncSender<Chunk>,
    direct: bool,
) -> std::io::Result<()> {
    let mut direct = direct && set_direct(&file, true);
    for (chunk, len) in filled {
        let bytes = chunk.held(len);
        let blocks = len - len % BLOCK;
        let mut done = 0;
        if direct && blocks > 0 {
            match write_whole_blocks(&mut file, &bytes[..blocks]) {
                Ok(()) => done = blocks,
                Err(written) => {
                    // The file system refused a direct write: the rest of the file goes
                    // through the page cache, from the first byte not written.
                    done = written;
                    direct = set_direct(&file, false);
                }
            }
        }
        if done < len {
            // A tail that fills no block (the last chunk's) goes through the cache.
            if direct {
                direct = set_direct(&file, false);
            }
            file.write_all(&bytes[done..])?;
        }
        // The file ends with the last chunk, and then none is waited for.
        let _ = back.send(chunk);
    }
    file.sync_all()
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
    match fcntl_setfl(file, wanted) {
        Ok(()) => on,
        // Not turned off: writes stay direct, and only whole blocks may be written.
        Err(_) => flags.contains(OFlags::DIRECT),
    }
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

    /// Where the file system has no direct writes, every chunk goes through the page
    /// cache, with the same bytes.
    #[test]
    fn without_direct_writes_the_chunks_go_through_the_cache_alike() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cached.bin");
        let file = File::create(&path).unwrap();
        let (to_writer, filled) = sync_channel(CHUNKS);
        let (back, _written) = sync_channel(CHUNKS);
        let bytes = pattern(CHUNK + 10);
        let mut first = Chunk::new();
        let at = first.start;
        first.bytes[at..at + CHUNK].copy_from_slice(&bytes[..CHUNK]);
        let mut tail = Chunk::new();
        let at = tail.start;
        tail.bytes[at..at + 10].copy_from_slice(&bytes[CHUNK..]);
        to_writer.send((first, CHUNK)).unwrap();
        to_writer.send((tail, 10)).unwrap();
        drop(to_writer);
        write_chunks(file, filled, back, false).unwrap();
        assert!(std::fs::read(&path).unwrap() == bytes);
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
