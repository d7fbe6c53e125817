//! Reading inputs: dataset tables through polars, and club scoring programs' exports.

pub mod table;
pub mod validate;
