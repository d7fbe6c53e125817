//! Writing the outputs of the data contract.

pub mod frame;
pub mod outputs;
pub mod ranking;
