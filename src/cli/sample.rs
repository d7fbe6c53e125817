//! `bridgehcp sample`: a synthetic federation, for the shipped sample and for benchmarks.

use std::path::PathBuf;

use clap::Args;

use crate::error::Result;
use crate::synth::SynthConfig;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp sample --out data/sample            # the shipped sample\n  \
bridgehcp sample --out /tmp/big --members 50000 --months 60"
)]
pub struct SampleArgs {
    /// Dataset folder to write.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Random seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of members.
    #[arg(long)]
    pub members: Option<usize>,
    /// Number of months of competitions.
    #[arg(long)]
    pub months: Option<u32>,
}

pub fn execute(args: &SampleArgs) -> Result<crate::dataset::Dataset> {
    let mut config = SynthConfig::default();
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(members) = args.members {
        config.members = members;
    }
    if let Some(months) = args.months {
        config.months = months;
    }
    let dataset = crate::synth::generate(&config);
    crate::report::write_dataset(&dataset, &args.out)?;
    Ok(dataset)
}
