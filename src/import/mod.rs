//! Reading club scoring programs' exports (and the checks every dataset is held to).

pub mod batch;
mod entry;
pub mod factors;
pub mod identity;
pub mod pbn;
pub mod published;
pub mod reconcile;
pub mod usebio;
pub mod validate;
pub mod vp_scale;

pub use published::{merge, Imported, Published};
