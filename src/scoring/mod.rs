//! Scoring: table results to competition results, exactly as club programs do it.

pub mod conventions;
