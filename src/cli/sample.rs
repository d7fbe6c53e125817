//! `bridgehcp sample`: a synthetic federation, for the shipped sample and for benchmarks.

use std::path::PathBuf;

use clap::Args;

use crate::error::Result;
use crate::synth::SynthConfig;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp sample --out data/sample            # the shipped sample\n  \
bridgehcp sample --out /tmp/big --members 50000 --months 60\n  \
bridgehcp sample --out /tmp/drift --drift --months 36   # skill changes; writes true_skill.parquet"
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
    /// Skill that changes over time: newcomers improve, established players decline
    /// slowly, members start and stop, partnerships are less regular. Also writes the
    /// hidden skill per member and month to true_skill.parquet.
    #[arg(long)]
    pub drift: bool,
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
    if args.drift {
        config.drift = Some(crate::synth::Drift::default());
    }
    let dataset = crate::synth::generate(&config);
    crate::report::write_dataset(&dataset, &args.out)?;
    if args.drift {
        let federation = crate::synth::Federation::new(&config);
        write_true_skill(&federation, &args.out.join("true_skill.parquet"))?;
    }
    Ok(dataset)
}

/// `true_skill.parquet`: member_id, month (its first day), skill on the handicap scale.
fn write_true_skill(federation: &crate::synth::Federation, path: &std::path::Path) -> Result<()> {
    use crate::error::Error;
    use crate::report::frame::FrameBuilder;
    let rows = federation.true_skill();
    let start = federation.config.start;
    let months: Vec<Option<chrono::NaiveDate>> = rows
        .iter()
        .map(|(_, m, _)| start.checked_add_months(chrono::Months::new(*m)))
        .collect();
    let df = FrameBuilder::new(rows.len())
        .map("member_id", &rows, |r| r.0)
        .date("month", months)
        .and_then(|b| b.map("skill", &rows, |r| r.2).build())
        .map_err(|e| Error::polars(path, e))?;
    crate::report::files::write_parquet(&df, path)
}
