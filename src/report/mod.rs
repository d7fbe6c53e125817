//! Writing the outputs of the data contract.

pub mod dataset_writer;
pub mod files;
