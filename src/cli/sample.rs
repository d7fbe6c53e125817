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
    /// `import` does) rather than one file per table. Either way the federation is
    /// generated and written a few months at a time: memory stays that of those months
    /// whatever the length of the history; and either way the competition index
    /// (`competition_index.parquet`) is written with the tables.
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
        write_whole(&config, &args.out)?
    };
    if args.drift {
        let federation = crate::synth::Federation::new(&config);
        write_true_skill(&federation, &args.out.join("true_skill.parquet"))?;
    }
    Ok(summary)
}

/// The months generated at once: as many as there are worker threads, generated in
/// parallel, in month order.
fn month_batches(
    federation: &crate::synth::Federation,
    mut each: impl FnMut(Dataset) -> Result<()>,
) -> Result<()> {
    let months = federation.config.months;
    let batch = rayon::current_num_threads().max(1) as u32;
    let mut first = 0;
    while first < months {
        let last = (first + batch).min(months);
        let generated: Vec<Dataset> = (first..last)
            .into_par_iter()
            .map(|m| crate::synth::month(federation, m))
            .collect();
        for month in generated {
            each(month)?;
        }
        first = last;
    }
    Ok(())
}

/// The tables of the single-file layout that grow with the history, in contract order.
const GROWING: [&str; 4] = ["competitions", "entrants", "results", "boards"];

/// Where `entrants` is written without its `house` column until the whole federation
/// has told whether it needs one.
const ENTRANTS_WITHOUT_HOUSE: &str = ".entrants-without-house.parquet";

/// One table's file in the staging folder, written a row group at a time.
struct TableFile {
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

impl TableFile {
    fn create(path: PathBuf) -> Result<Self> {
        let file = std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
        Ok(TableFile {
            path,
            out: std::io::BufWriter::new(file),
        })
    }

    fn sync(mut self) -> Result<()> {
        use std::io::Write;
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        self.out
            .get_ref()
            .sync_all()
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// Appends a month's frames to the growing tables' writers. `entrants` goes to both
/// forms of its table: with the `house` column (all false for a month without a house
/// pair) and without it, since only the whole history tells which one is kept.
fn push_month<W: std::io::Write>(
    frames: Vec<(&'static str, polars::prelude::DataFrame)>,
    writers: &mut [crate::store::files::GroupWriter<W>],
    paths: &[PathBuf],
    plain_entrants: &mut crate::store::files::GroupWriter<W>,
) -> Result<()> {
    use polars::prelude::Column;
    for (name, mut frame) in frames {
        let Some(at) = GROWING.iter().position(|table| *table == name) else {
            continue; // members, written once before the months
        };
        let (writer, path) = (&mut writers[at], &paths[at]);
        let polars = |e| Error::polars(path, e);
        if name == "entrants" {
            let plain = frame.drop("house").unwrap_or_else(|_| frame.clone());
            plain_entrants.push(plain).map_err(polars)?;
            if frame.column("house").is_err() {
                let none = vec![false; frame.height()];
                frame
                    .with_column(Column::new("house".into(), none))
                    .map_err(polars)?;
            }
        }
        writer.push(frame).map_err(polars)?;
    }
    Ok(())
}

/// Generates the federation a few months at a time and appends each month's rows to
/// the one file per table, written a row group at a time, so that memory holds those
/// months and a row group per table whatever the length of the history (a whole
/// federation of 30 000 members over ten years is some 17 million board rows, over
/// 12 GB as rows in memory). The files have the bytes of the federation generated
/// whole and written with [`crate::store::write_dataset`]: the whole federation's
/// rows are the months' rows in month order, and a Parquet file's row groups are
/// encoded each on its own.
///
/// The competition index (`competition_index.parquet`, which spares a run hashing
/// every competition's rows) is written in the same commit, built from the files as
/// written: read back a row group at a time, as a run reads them.
///
/// One thing no month can tell is whether `entrants` has a `house` column, which is
/// written only when some entrant of the whole federation is a house pair. So entrants
/// are written both with and without it, and the file not needed is dropped at the
/// end (entrants are a small table: encoding it twice costs little).
fn write_whole(config: &SynthConfig, out: &Path) -> Result<SampleSummary> {
    use crate::store::files::GroupWriter;
    use crate::store::writer::{dataset_frames, refuse_other_forms};
    use polars::prelude::DataFrame;
    refuse_other_forms(out)?;
    let federation = crate::synth::Federation::new(config);
    let mut summary = SampleSummary {
        members: count_kind(&federation.member_rows, MemberKind::Member),
        foreign: count_kind(&federation.member_rows, MemberKind::Foreign),
        ..SampleSummary::default()
    };
    let members = Dataset {
        members: federation.member_rows.clone(),
        ..Dataset::default()
    };
    // The frames of no rows, whose columns a table that receives none is written with.
    let empty = dataset_frames(&Dataset::default())?;
    crate::store::files::write_staged(out, |stage| {
        let (_, members) = dataset_frames(&members)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::Config("the members table has no frame".to_owned()))?;
        crate::store::files::write_parquet(&members, &stage.path("members.parquet"))?;
        let mut files = Vec::new();
        for name in GROWING {
            files.push(TableFile::create(stage.path(&format!("{name}.parquet")))?);
        }
        let mut without_house = TableFile::create(stage.path(ENTRANTS_WITHOUT_HOUSE))?;
        let mut house = false;
        let paths: Vec<PathBuf> = files.iter().map(|f| f.path.clone()).collect();
        let plain = without_house.path.clone();
        {
            let mut writers: Vec<GroupWriter<&mut std::io::BufWriter<std::fs::File>>> = files
                .iter_mut()
                .map(|f| GroupWriter::new(&mut f.out))
                .collect();
            let mut plain_entrants = GroupWriter::new(&mut without_house.out);
            month_batches(&federation, |month| {
                summary.add(&month);
                house |= month.entrants.iter().any(|e| e.house);
                push_month(
                    dataset_frames(&month)?,
                    &mut writers,
                    &paths,
                    &mut plain_entrants,
                )
            })?;
            let empty_frame = |name: &str| -> DataFrame {
                empty
                    .iter()
                    .find(|(table, _)| *table == name)
                    .map(|(_, frame)| frame.clone())
                    .unwrap_or_default()
            };
            for ((name, writer), path) in GROWING.iter().zip(writers).zip(&paths) {
                writer
                    .finish(|| Ok(empty_frame(name)))
                    .map_err(|e| Error::polars(path, e))?;
            }
            plain_entrants
                .finish(|| Ok(empty_frame("entrants")))
                .map_err(|e| Error::polars(&plain, e))?;
        }
        for file in files {
            file.sync()?;
        }
        without_house.sync()?;
        if house {
            std::fs::remove_file(&plain).map_err(|e| Error::io(&plain, e))?;
        } else {
            let entrants = stage.path("entrants.parquet");
            std::fs::rename(&plain, &entrants).map_err(|e| Error::io(&entrants, e))?;
        }
        // The index is built from the files as written, read back as a run reads them.
        let index = crate::store::index::build(stage.staging(), None)?;
        crate::store::index::write(stage.staging(), &index)
    })?;
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
    month_batches(&federation, |mut month| {
        summary.add(&month);
        let names: BTreeSet<String> = month
            .competitions
            .iter()
            .map(crate::store::writer::month_of)
            .collect();
        month.members = federation.member_rows.clone();
        crate::store::writer::write_months(
            &month,
            out,
            &names,
            false,
            crate::store::files::Commit::default(),
        )
    })?;
    if summary.competitions == 0 {
        // No month had a competition: still a readable (empty) dataset.
        let members = Dataset {
            members: federation.member_rows.clone(),
            ..Dataset::default()
        };
        crate::store::write_dataset(&members, out)?;
    }
    Ok(summary)
}

/// `true_skill.parquet`: member_id, month (its first day), skill on the handicap scale.
fn write_true_skill(federation: &crate::synth::Federation, path: &std::path::Path) -> Result<()> {
    use crate::error::Error;
    use crate::store::frame::FrameBuilder;
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
    crate::store::files::write_parquet(&df, path)
}
