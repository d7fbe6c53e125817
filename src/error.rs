//! Typed errors for the library.
//!
//! Every error that bad input can cause carries a [`Location`]: the file, and where the
//! input allows it the row (or line), the column and the board, so that a club secretary
//! can find the offending cell without reading code. `main` adds context with `anyhow`;
//! the library never panics on input.

use std::fmt;
use std::path::PathBuf;

use crate::model::{FactorSetError, ModelError};

/// Where in the input a problem was found. Every part is optional because not every
/// source has rows (XML) or columns (PBN lines).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    pub file: Option<PathBuf>,
    /// 1-based data row (tables) or line (text files).
    pub row: Option<usize>,
    pub column: Option<String>,
    pub competition: Option<String>,
    pub board: Option<u32>,
}

impl Location {
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Location {
            file: Some(path.into()),
            ..Location::default()
        }
    }
    pub fn row(mut self, row: usize) -> Self {
        self.row = Some(row);
        self
    }
    pub fn column(mut self, column: impl Into<String>) -> Self {
        self.column = Some(column.into());
        self
    }
    pub fn competition(mut self, id: impl Into<String>) -> Self {
        self.competition = Some(id.into());
        self
    }
    pub fn board(mut self, board: u32) -> Self {
        self.board = Some(board);
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if let Some(file) = &self.file {
            parts.push(file.display().to_string());
        }
        if let Some(row) = self.row {
            parts.push(format!("row {row}"));
        }
        if let Some(column) = &self.column {
            parts.push(format!("column `{column}`"));
        }
        if let Some(id) = &self.competition {
            parts.push(format!("competition `{id}`"));
        }
        if let Some(board) = self.board {
            parts.push(format!("board {board}"));
        }
        if parts.is_empty() {
            write!(f, "<input>")
        } else {
            write!(f, "{}", parts.join(", "))
        }
    }
}

/// Input that breaks a rule: what rule, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {rule}")]
pub struct InputError {
    pub location: Location,
    pub rule: String,
}

impl InputError {
    pub fn new(location: Location, rule: impl Into<String>) -> Self {
        InputError {
            location,
            rule: rule.into(),
        }
    }
}

/// The library's error type.
///
/// The underlying cause (an I/O or polars error) is part of the message and is not
/// also exposed as the error's source: `main` prints the whole chain of sources, and
/// the cause would otherwise be printed twice.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{path}: {cause}")]
    Polars {
        path: PathBuf,
        cause: polars::prelude::PolarsError,
    },
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error("{0}")]
    Config(String),
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, cause: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            cause,
        }
    }
    /// A polars error on `path`; when `path` is a Parquet file that is empty or cut
    /// short (the reader's "out of specification: the file must end with PAR1"), the
    /// error says that instead, in the officer's words.
    pub fn polars(path: impl Into<PathBuf>, cause: polars::prelude::PolarsError) -> Self {
        let path = path.into();
        if let Some(rule) = incomplete_parquet(&path, &cause) {
            return Error::Input(InputError::new(Location::file(path), rule));
        }
        Error::Polars { path, cause }
    }
}

/// What is wrong with a Parquet file the reader found out of specification, when it is
/// that the file is empty or does not end with the footer every complete Parquet file
/// ends with (`PAR1`): a copy or a write that stopped part way. `None` otherwise (the
/// reader's own words then stand).
fn incomplete_parquet(
    path: &std::path::Path,
    cause: &polars::prelude::PolarsError,
) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let text = cause.to_string().to_lowercase();
    // Out of specification for want of memory (an allocation polars could not make) is
    // not the file's fault.
    if !text.contains("out of spec") || text.contains("oom") || text.contains("memory") {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    if size == 0 {
        return Some(
            "the file is empty (0 bytes), not a Parquet table: it was written or copied only in part; write or copy it again".to_owned(),
        );
    }
    let mut head = [0u8; 4];
    let starts = file.read_exact(&mut head).is_ok() && &head == b"PAR1";
    let mut tail = [0u8; 4];
    let ends = size >= 8
        && file.seek(SeekFrom::End(-4)).is_ok()
        && file.read_exact(&mut tail).is_ok()
        && &tail == b"PAR1";
    match (starts, ends) {
        (true, false) => Some(format!(
            "the file is cut short: it begins as a Parquet table but its {size} bytes do not end with the footer a complete one ends with (`PAR1`); it was written or copied only in part: write or copy it again"
        )),
        (false, _) => Some(format!(
            "the file is not a Parquet table: its {size} bytes do not begin with `PAR1`, as every Parquet file does"
        )),
        (true, true) => None,
    }
}

impl From<FactorSetError> for Error {
    fn from(e: FactorSetError) -> Self {
        Error::Config(e.to_string())
    }
}

/// Error from the model, with the competition it happened in.
#[derive(Debug, thiserror::Error)]
#[error("competition `{competition}`: {cause}")]
pub struct ReplayError {
    pub competition: String,
    /// In the message, not a separate source (see [`Error`]).
    pub cause: ModelError,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Memory that ran out by another road than the allocator, as a panic shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfMemoryPanic {
    /// A worker thread or a pool of them could not be started: the standard library's
    /// text, and those of the thread pools the readers and rayon build on first use
    /// (whose failure would otherwise poison the pool for every later read).
    ThreadNotStarted,
    /// The zstd library could not allocate a compression context while a Parquet page
    /// was read or written (`ZSTD_createCCtx` and `ZSTD_createDCtx` return null only
    /// then).
    NoCompressionContext,
}

/// [`out_of_memory_failure`] of a panic's text, for a panic hook.
pub fn out_of_memory_panic(info: &std::panic::PanicHookInfo<'_>) -> Option<OutOfMemoryPanic> {
    let payload = info.payload();
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .and_then(out_of_memory_failure)
}

/// Which [`OutOfMemoryPanic`] a panic's text is, if any. Either would otherwise be
/// reported as a damaged file: a hook that silences other panics must still let these
/// through.
pub fn out_of_memory_failure(text: &str) -> Option<OutOfMemoryPanic> {
    const THREADS: [&str; 5] = [
        "failed to spawn thread",
        "could not spawn threads",
        "could not create pool",
        "could not create no-op thread pool",
        // rayon's global pool, built on the first parallel call of a command that did
        // not build it (`--threads` builds it first).
        "The global thread pool has not been initialized.",
    ];
    if THREADS.iter().any(|head| text.starts_with(head)) {
        Some(OutOfMemoryPanic::ThreadNotStarted)
    } else if text.starts_with("zstd returned null pointer when creating") {
        Some(OutOfMemoryPanic::NoCompressionContext)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_pools_and_zstd_contexts_that_cannot_start_are_out_of_memory() {
        use OutOfMemoryPanic::*;
        // The standard library's text, and rayon's pools built by polars' readers.
        let texts = [
            "failed to spawn thread: Os { code: 11, kind: WouldBlock }",
            "could not spawn threads: ThreadPoolBuildError { kind: IOError(..) }",
            "could not create pool: ...",
            "The global thread pool has not been initialized.: ThreadPoolBuildError { kind: IOError(Os { code: 11, kind: WouldBlock }) }",
        ];
        for text in texts {
            assert_eq!(
                out_of_memory_failure(text),
                Some(ThreadNotStarted),
                "{text}"
            );
        }
        // zstd-safe's text when a context's allocation fails.
        assert_eq!(
            out_of_memory_failure("zstd returned null pointer when creating new context"),
            Some(NoCompressionContext)
        );
        assert_eq!(
            out_of_memory_failure("index out of bounds: the len is 3"),
            None
        );
        assert_eq!(
            out_of_memory_failure("the pool could not spawn threads"),
            None
        );
    }
}
