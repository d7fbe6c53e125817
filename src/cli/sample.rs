//! `bridgehcp sample`: a synthetic federation, for the shipped sample and for benchmarks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::Args;
use rayon::prelude::*;

use crate::dataset::{Dataset, MemberKind};
use crate::error::{Error, Result};
use crate::synth::SynthConfig;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp sample --out data/sample            # the shipped sample\n  \
bridgehcp sample --out /tmp/big --members 50000 --months 60 --by-month\n  \
bridgehcp sample --out /tmp/big-results --members 50000 --months 60 --by-month --board-share 0\n  \
bridgehcp sample --out /tmp/drift --drift --months 36   # skill changes; writes true_skill.parquet"
)]
pub struct SampleArgs {
    /// Dataset folder to write.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Random seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of members; foreign guests (kind = foreign) are added beside them.
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
    /// Write one hive partition per month (`boards/month=YYYY-MM/part-0.parquet`, as
    /// `import` does), generating and writing a month at a time: memory stays that of
    /// one month whatever the length of the history.
    #[arg(long)]
    pub by_month: bool,
    /// Share of events reported as board-level rows rather than results (default 0.6;
    /// 0 gives a federation reported as results only).
    #[arg(long, value_name = "SHARE")]
    pub board_share: Option<f64>,
}

/// What `sample` wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleSummary {
    /// Member rows of kind `member` (`--members`).
    pub members: usize,
    /// Member rows of kind `foreign`: the foreign guests the federation's clubs invite,
    /// added beside `--members`.
    pub foreign: usize,
    pub competitions: usize,
    pub board_rows: usize,
    pub results: usize,
}

impl SampleSummary {
    fn add(&mut self, dataset: &Dataset) {
        self.competitions += dataset.competitions.len();
        self.board_rows += dataset.boards.len();
        self.results += dataset.results.len();
    }
}

fn count_kind(members: &[crate::dataset::Member], kind: MemberKind) -> usize {
    members.iter().filter(|m| m.kind == kind).count()
}

pub fn execute(args: &SampleArgs) -> Result<SampleSummary> {
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
    if let Some(share) = args.board_share {
        if !(0.0..=1.0).contains(&share) {
            return Err(Error::Config(format!(
                "--board-share must be between 0 and 1, not {share}"
            )));
        }
        config.board_level_share = share;
    }
    let summary = if args.by_month {
        write_by_month(&config, &args.out)?
    } else {
        let dataset = crate::synth::generate(&config);
        crate::report::write_dataset(&dataset, &args.out)?;
        let mut summary = SampleSummary {
            members: count_kind(&dataset.members, MemberKind::Member),
            foreign: count_kind(&dataset.members, MemberKind::Foreign),
            ..SampleSummary::default()
        };
        summary.add(&dataset);
        summary
    };
    if args.drift {
        let federation = crate::synth::Federation::new(&config);
        write_true_skill(&federation, &args.out.join("true_skill.parquet"))?;
    }
    Ok(summary)
}

/// Generates and writes the federation a few months at a time (as many as there are
/// worker threads, generated in parallel), so that memory holds those months only.
/// Each month is written as the importer writes one, so the folder has the same bytes
/// as importing the same competitions month by month.
fn write_by_month(config: &SynthConfig, out: &Path) -> Result<SampleSummary> {
    let federation = crate::synth::Federation::new(config);
    let mut summary = SampleSummary {
        members: count_kind(&federation.member_rows, MemberKind::Member),
        foreign: count_kind(&federation.member_rows, MemberKind::Foreign),
        ..SampleSummary::default()
    };
    let batch = rayon::current_num_threads().max(1) as u32;
    let mut first = 0;
    while first < config.months {
        let last = (first + batch).min(config.months);
        let months: Vec<Dataset> = (first..last)
            .into_par_iter()
            .map(|m| crate::synth::month(&federation, m))
            .collect();
        for mut month in months {
            summary.add(&month);
            let names: BTreeSet<String> = month
                .competitions
                .iter()
                .map(crate::report::dataset_writer::month_of)
                .collect();
            month.members = federation.member_rows.clone();
            crate::report::dataset_writer::write_months(
                &month,
                out,
                &names,
                false,
                crate::report::files::Commit::default(),
            )?;
        }
        first = last;
    }
    if summary.competitions == 0 {
        // No month had a competition: still a readable (empty) dataset.
        let members = Dataset {
            members: federation.member_rows.clone(),
            ..Dataset::default()
        };
        crate::report::write_dataset(&members, out)?;
    }
    Ok(summary)
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
