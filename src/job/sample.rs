//! `sample`: a synthetic federation, for the shipped sample and for benchmarks.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::synth::SynthConfig;

pub use crate::store::sample::SampleSummary;

/// The federation to generate and where to write it (`None`: the generator's default).
#[derive(Debug, Clone, Default)]
pub struct SamplePlan {
    pub out: PathBuf,
    pub seed: Option<u64>,
    pub members: Option<usize>,
    pub months: Option<u32>,
    /// Skill that changes over time (also writes `true_skill.parquet`).
    pub drift: bool,
    /// One partition per month rather than one file per table.
    pub by_month: bool,
    /// Share of events reported as board-level rows.
    pub board_share: Option<f64>,
}

/// Generates the federation and writes it to `plan.out`, held exclusively (after a
/// killed writer is recovered).
pub fn execute(plan: &SamplePlan) -> Result<SampleSummary> {
    let mut config = SynthConfig::default();
    if let Some(seed) = plan.seed {
        config.seed = seed;
    }
    if let Some(members) = plan.members {
        config.members = members;
    }
    if let Some(months) = plan.months {
        config.months = months;
    }
    if plan.drift {
        config.drift = Some(crate::synth::Drift::default());
    }
    if let Some(share) = plan.board_share {
        if !(0.0..=1.0).contains(&share) {
            return Err(Error::Config(format!(
                "--board-share must be between 0 and 1, not {share}"
            )));
        }
        config.board_level_share = share;
    }
    let _lock = super::Folders::new().replace_dataset(&plan.out)?.lock()?;
    crate::store::sample::write(&config, &plan.out, plan.by_month)
}
