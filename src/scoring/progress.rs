//! Progress of a long run, reported to whoever wants to show it.
//!
//! The pipeline is a library: it must not decide how (or whether) progress is drawn, and
//! it must not pull a terminal crate into every program that replays a history. So it
//! reports stages and steps through [`Progress`]; the command line draws bars from them.
//! It sits below the pipeline and the readers, which both report through it.

/// Receives the progress of a run. Every method does nothing by default.
pub trait Progress: Sync {
    /// A stage (`scoring`, `replaying`) of `total` steps begins.
    fn start(&self, _stage: &'static str, _total: u64) {}
    /// A stage whose length is not known in advance (checking a dataset, writing a
    /// folder) begins, named in full.
    fn spin(&self, _message: String) {}
    /// `n` more steps of the current stage are done (called from worker threads).
    fn advance(&self, _n: u64) {}
    /// The current stage is done.
    fn finish(&self) {}
}

/// Progress that nobody watches.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
