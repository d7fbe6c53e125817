//! The federation's dataset on disk, and the tables every folder is made of.
//!
//! A dataset is read by every command and replaced by imports, so one module owns how it
//! lies on disk: reading its tables ([`table`]), replacing it by whole versions and
//! recovering after a killed import ([`commit`]), the index a continued run reads by
//! month ([`index`]), the writer ([`writer`]) and the log of every file an import took in
//! or refused ([`import_log`]). The atomic writing of any table or folder ([`files`]),
//! and reading a table's columns back ([`columns`], [`frame`]), live here too, so that
//! the run outputs above use the same writers without the dataset depending on them.

pub mod columns;
pub mod commit;
pub mod files;
pub mod frame;
pub mod import_log;
pub mod index;
pub mod table;
pub mod writer;

pub use writer::write_dataset;
