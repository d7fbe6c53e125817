//! Writing the outputs of the data contract.

pub mod columns;
pub mod dataset_commit;
pub mod dataset_index;
pub mod dataset_writer;
pub(crate) mod direct_file;
pub mod files;
pub mod frame;
pub mod history;
pub mod import_log;
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

pub use dataset_writer::write_dataset;

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
