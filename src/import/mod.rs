//! Reading inputs: dataset tables through polars, and club scoring programs' exports.

pub mod batch;
mod entry;
pub mod factors;
pub mod identity;
pub mod pbn;
pub mod published;
pub mod reconcile;
pub mod table;
pub mod usebio;
pub mod validate;
pub mod vp_scale;

pub use published::{merge, Imported, Published};
