//! `study`: factor sets and the standard ratings compared on one history.

use std::path::PathBuf;

use chrono::NaiveDate;

use crate::error::{Error, Result};
use crate::model::FactorSet;
use crate::pipeline::Progress;
use crate::study::{self, derive, Study, StudyData, StudyOptions, StudySet};

/// What to compare, on which history, and where to write the outcome.
#[derive(Debug, Clone)]
pub struct StudyPlan {
    /// The dataset.
    pub data: PathBuf,
    /// Factor sets in TOML; the first is the reference (none: the built-in one).
    pub factors: Vec<PathBuf>,
    /// Sets derived from the first: KEY=VALUE, several separated by `;`.
    pub set: Vec<String>,
    /// One set derived from the first per value: KEY=V1,V2,...
    pub sweep: Vec<String>,
    /// The output folder.
    pub out: PathBuf,
    /// Last day of the burn-in period.
    pub burn_in_until: Option<NaiveDate>,
    /// An external ranking to compare with.
    pub reference: Option<PathBuf>,
    /// Hidden skill per member and month.
    pub truth: Option<PathBuf>,
    /// Add each set's calibrated twin.
    pub calibrate: bool,
    /// Also study the whole-history rating refitted before each day.
    pub whole_history: bool,
}

/// The sets of the study, in order: files, then `--set`, then `--sweep`.
pub fn sets(args: &StudyPlan) -> Result<Vec<StudySet>> {
    let mut sets = Vec::new();
    if args.factors.is_empty() {
        sets.push(StudySet::new(FactorSet::default())?);
    }
    for path in &args.factors {
        sets.push(StudySet::new(crate::import::factors::load(path)?)?);
    }
    let base = sets[0].clone();
    for text in &args.set {
        sets.push(derive::derive(&base, &derive::parse_set(text)?)?);
    }
    for text in &args.sweep {
        for overrides in derive::parse_sweep(text)? {
            sets.push(derive::derive(&base, &overrides)?);
        }
    }
    for (i, s) in sets.iter().enumerate() {
        if let Some(j) = sets[..i].iter().position(|t| t.hash == s.hash) {
            return Err(Error::Config(format!(
                "factor sets {} (`{}`) and {} (`{}`) have the same constants (hash {}); a study compares different sets",
                j + 1,
                sets[j].name(),
                i + 1,
                s.name(),
                s.hash
            )));
        }
    }
    Ok(sets)
}

/// Reads, scores and replays; writes study.parquet and study.html. The dataset is held
/// shared while it is read, the output folder exclusively while it is written.
pub fn execute(args: &StudyPlan, progress: &dyn Progress) -> Result<Study> {
    let sets = sets(args)?;
    progress.spin(format!("reading and scoring {}", args.data.display()));
    let locks = super::Folders::new().read_dataset(&args.data)?.lock()?;
    let data = StudyData::read(&args.data, &sets[0], progress)?;
    drop(locks);
    study::check_burn_in(&data, args.burn_in_until)?;
    let mut sets = sets;
    if args.calibrate {
        let mut calibrated = Vec::new();
        for set in &sets {
            if let Some((_, derived)) = study::calibrate(&data, set, args.burn_in_until)? {
                if !sets
                    .iter()
                    .chain(&calibrated)
                    .any(|s: &StudySet| s.hash == derived.hash)
                {
                    calibrated.push(derived);
                }
            }
        }
        sets.extend(calibrated);
    }
    progress.finish();
    let reference = match &args.reference {
        Some(path) => Some(study::output::read_reference(path)?),
        None => None,
    };
    let truth_path = args
        .truth
        .clone()
        .or_else(|| Some(args.data.join("true_skill.parquet")).filter(|p| p.exists()));
    let truth = match &truth_path {
        Some(path) => Some(study::output::read_truth(path)?),
        None => None,
    };
    let options = StudyOptions {
        burn_in_until: args.burn_in_until,
        reference,
        truth,
        whole_history: args.whole_history,
    };
    let tracks =
        sets.len() + study::baselines::Baseline::ALL.len() + usize::from(args.whole_history);
    progress.start("replaying", tracks as u64);
    let result = study::run(&data, &sets, &options, &|_| progress.advance(1))?;
    progress.finish();
    let _lock = super::Folders::new().write_into(&args.out).lock()?;
    study::output::write_study(&args.out, &result, super::hooks::test_commit())?;
    Ok(result)
}
