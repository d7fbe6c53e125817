//! Writing the outputs of the data contract.

pub mod dataset_writer;
pub mod files;
pub mod frame;
pub mod outputs;
pub mod ranking;
pub mod svg;

pub use dataset_writer::write_dataset;
