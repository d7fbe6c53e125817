//! Files that hold what a run has produced until its outputs are written.
//!
//! The pipeline makes and reads no file itself: the output layer hands it these, and
//! both the board scores (`sealed`) and the player changes (`replay`) keep bytes in
//! them.

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
