//! bridgehcp: scores bridge competitions from table results and keeps every member's
//! handicap on the Swedish federation's 0–52 scale by replaying the rated competitions
//! in date order.
//!
//! The stages are separate modules, each usable on its own (ARCHITECTURE.md draws the
//! map and the rules between them):
//! * [`model`] is the handicap maths (pure functions over a factor set);
//! * [`scoring`] turns table results into competition results (pure functions);
//! * [`import`] converts club exports (PBN, USEBIO) into [`dataset::Dataset`] rows;
//! * [`pipeline`] replays the history, live or by frozen periods, in parallel;
//! * [`store`] owns the federation's dataset on disk: its tables, versions, locks,
//!   index and import log;
//! * [`report`] writes a run's outputs (docs/data.md) and the pages made from them;
//! * [`study`] compares factor sets and standard ratings on one history;
//! * [`job`] is one entry per command, owning its locks, recovery, work and atomic
//!   write;
//! * [`cli`] parses flags into a job's plan and prints what the job returns;
//! * [`memory`] turns memory running out into a message and an exit code.

/// Implements `FromStr` and `Display` for a fieldless enum from a fixed list of names, so
/// that the fixed names of docs/data.md live in exactly one place.
#[macro_export]
macro_rules! string_enum {
    ($ty:ident, $what:literal, { $($text:literal => $variant:expr),+ $(,)? }) => {
        impl ::std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s.trim() {
                    $($text => Ok($variant),)+
                    other => Err(format!(
                        concat!("unknown ", $what, " `{}` (expected one of: {})"),
                        other,
                        [$($text),+].join(", ")
                    )),
                }
            }
        }
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                $(if *self == $variant { return f.write_str($text); })+
                Ok(())
            }
        }
    };
}

#[cfg(test)]
mod architecture;
pub mod cli;
pub mod dataset;
pub mod error;
pub mod import;
pub mod job;
pub mod memory;
pub mod model;
pub mod pipeline;
pub mod quarantine;
pub mod report;
pub mod scoring;
pub mod site;
pub mod store;
pub mod study;
pub mod synth;

pub use error::{Error, InputError, Location, Result};
