//! Files that hold what a run has produced until its outputs are written.
//!
//! The pipeline makes and reads no file itself: the output layer hands it these, and
//! the board scores (`sealed`), the player changes (`replay`) and the standings
//! (`standing_groups`) keep bytes in them.

use crate::error::Result;

/// Bytes held outside memory until the outputs are written: a file, made by the
/// output layer (this layer touches no files). Appends and reads may come from
/// different threads.
pub trait SpillFile: Send + Sync + std::fmt::Debug {
    /// Writes `bytes` after every other.
    fn append(&mut self, bytes: &[u8]) -> Result<()>;
    /// Fills `into` with the bytes written from `offset` on.
    fn read_at(&self, offset: u64, into: &mut [u8]) -> Result<()>;
}

/// Makes the [`SpillFile`]s of a run; each is gone when dropped, and none is left
/// behind when the run fails.
pub trait SpillFiles: Send + Sync + std::fmt::Debug {
    fn create(&self) -> Result<Box<dyn SpillFile>>;
}

/// A row group's encoding, handed to a thread of its own.
pub type SealJob = Box<dyn FnOnce() -> Result<Vec<u8>> + Send>;

/// Row groups encoded at once, at most; whoever seals waits for the oldest beyond that.
const IN_FLIGHT: usize = 2;

/// One encoded row group of an output file.
#[derive(Debug)]
pub struct EncodedGroup {
    pub rows: usize,
    /// The bytes of a file holding only this group; empty when they were moved to the
    /// spill file.
    bytes: Vec<u8>,
    /// Where the bytes are in the spill file, when they were moved there: (offset,
    /// length).
    spilled: Option<(u64, usize)>,
}

/// The leading row groups of one output file, encoded while the run goes on (each on a
/// thread of its own, a bounded number at once), in order, and kept in a [`SpillFile`]
/// when one is given, else in memory, until the file is written.
#[derive(Debug, Default)]
pub struct EncodedGroups {
    pub groups: Vec<EncodedGroup>,
    in_flight: std::collections::VecDeque<(usize, std::thread::JoinHandle<Result<Vec<u8>>>)>,
    /// Where the encoded groups go until they are written, when given.
    spill: Option<Box<dyn SpillFile>>,
    /// The bytes written to `spill`.
    spilled: u64,
    /// The file's name, for the error when an encoding fails.
    name: &'static str,
}

impl EncodedGroups {
    /// Groups of the file `name` kept in `file` (in memory when `None`).
    pub fn new(name: &'static str, file: Option<Box<dyn SpillFile>>) -> Self {
        EncodedGroups {
            spill: file,
            name,
            ..EncodedGroups::default()
        }
    }

    /// Rows sealed or being sealed.
    pub fn rows(&self) -> usize {
        let done: usize = self.groups.iter().map(|g| g.rows).sum();
        done + self.in_flight.iter().map(|(rows, _)| rows).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty() && self.in_flight.is_empty()
    }

    /// Starts encoding a group of `rows` rows with `job`, after the groups before it.
    pub fn push(&mut self, rows: usize, job: SealJob) -> Result<()> {
        self.in_flight.push_back((rows, std::thread::spawn(job)));
        while self.in_flight.len() > IN_FLIGHT {
            self.finish_oldest()?;
        }
        Ok(())
    }

    fn finish_oldest(&mut self) -> Result<()> {
        if let Some((rows, job)) = self.in_flight.pop_front() {
            let bytes = job.join().map_err(|_| {
                crate::error::Error::Config(format!("encoding a row group of {} failed", self.name))
            })??;
            let (bytes, spilled) = match self.spill.as_mut() {
                Some(file) => {
                    file.append(&bytes)?;
                    let at = self.spilled;
                    self.spilled += bytes.len() as u64;
                    (Vec::new(), Some((at, bytes.len())))
                }
                None => (bytes, None),
            };
            self.groups.push(EncodedGroup {
                rows,
                bytes,
                spilled,
            });
        }
        Ok(())
    }

    /// Waits for the groups still being encoded.
    pub fn finish(&mut self) -> Result<()> {
        while !self.in_flight.is_empty() {
            self.finish_oldest()?;
        }
        Ok(())
    }

    /// Every group's bytes, in order, each read back from the spill file (where they
    /// were moved there) only when the iterator comes to it: an output file copies
    /// its groups one at a time, and a federation's `changes.parquet` is more than
    /// half a gigabyte of them.
    pub fn bytes(&self) -> impl Iterator<Item = Result<std::borrow::Cow<'_, [u8]>>> + '_ {
        self.groups
            .iter()
            .map(|group| match (group.spilled, &self.spill) {
                (Some((offset, len)), Some(file)) => {
                    let mut bytes = vec![0; len];
                    file.read_at(offset, &mut bytes)?;
                    Ok(std::borrow::Cow::Owned(bytes))
                }
                _ => Ok(std::borrow::Cow::Borrowed(group.bytes.as_slice())),
            })
    }
}
