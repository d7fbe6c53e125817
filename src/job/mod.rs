//! One entry per command: the whole protocol of `run`, `score`, `import`, `study`,
//! `player`, `report`, `draw`, `index` and `sample`.
//!
//! A command is more than its work. It must name the folders it reads and replaces,
//! bring each back to one whole version if a killed command left it half replaced, hold
//! them locked while it uses them (shared to read, exclusive to replace), read what its
//! plan says, work, write its outputs in one atomic step, and say what it did. Written
//! by hand in each command, that protocol was skipped in some of them; here every job
//! states it in one place, through [`Folders`], before it opens a file. Each job takes a
//! plan already checked (the command line builds it from the flags) and returns a
//! summary the command line prints, so a test can run a job in-process and look at the
//! numbers rather than at printed text.

pub mod draw;
pub mod hooks;
pub mod import;
pub mod index;
pub mod player;
pub mod publish;
pub mod report;
pub mod run;
pub mod sample;
pub mod score;
pub mod study;

use std::path::Path;

use crate::error::Result;
use crate::store::lock::{Access, Locks};

/// The folders a job uses, each recovered as it is named, then locked together.
#[derive(Debug, Default)]
pub struct Folders<'a> {
    uses: Vec<(&'a Path, Access)>,
}

impl<'a> Folders<'a> {
    pub fn new() -> Self {
        Folders::default()
    }

    /// A dataset the job reads. What a killed import left is cleaned up first, and what
    /// was found is said on standard error.
    pub fn read_dataset(self, dir: &'a Path) -> Result<Self> {
        recover_dataset(dir)?;
        Ok(self.with(dir, Access::Shared))
    }

    /// A dataset the job replaces (an import, a new index).
    pub fn replace_dataset(self, dir: &'a Path) -> Result<Self> {
        recover_dataset(dir)?;
        Ok(self.with(dir, Access::Exclusive))
    }

    /// A run's output folder the job reads. A run killed while replacing it is undone
    /// or completed first.
    pub fn read_run(self, dir: &'a Path) -> Result<Self> {
        crate::store::files::recover(dir)?;
        Ok(self.with(dir, Access::Shared))
    }

    /// A run's output folder the job replaces whole. A run killed while replacing it is
    /// undone or completed first.
    pub fn replace_run(self, dir: &'a Path) -> Result<Self> {
        crate::store::files::recover(dir)?;
        Ok(self.with(dir, Access::Exclusive))
    }

    /// A folder the job writes files into, each file replaced atomically (a score's or
    /// a study's outputs, a run's report page).
    pub fn write_into(self, dir: &'a Path) -> Self {
        self.with(dir, Access::Exclusive)
    }

    fn with(mut self, dir: &'a Path, access: Access) -> Self {
        self.uses.push((dir, access));
        self
    }

    /// Locks every folder named, in one order; they stay locked while the value lives.
    pub fn lock(self) -> Result<Locks> {
        Locks::take(&self.uses)
    }
}

fn recover_dataset(dir: &Path) -> Result<()> {
    let named = crate::store::commit::named_folder(dir);
    for found in crate::store::commit::recover_dataset(&named)? {
        eprintln!("{found}");
    }
    Ok(())
}
