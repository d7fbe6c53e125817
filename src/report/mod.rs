//! Writing a run's outputs, under the fixed names of docs/data.md.

pub(crate) mod direct_file;
pub mod history;
pub mod monthly;
pub mod outputs;
pub mod page;
pub mod result_sheet;
pub mod run_folder;
pub mod run_tables;
pub mod scoring;
pub mod sheet;
pub mod spill_file;
pub mod statement;
pub mod svg;

/// Tables are read, written and replaced on disk by the store; the outputs use the same
/// writers under these names.
pub use crate::store::{columns, files, frame};

/// The ranking is computed by the pipeline; report only writes it. Re-exported under its
/// old path.
pub use crate::pipeline::ranking;

/// `n` with the noun that goes with it: "1 competition", "2 competitions".
pub fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}
