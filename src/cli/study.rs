//! `bridgehcp study`: compare factor sets and the standard ratings on one history.

use std::path::PathBuf;

use chrono::NaiveDate;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::error::{Error, Result};
use crate::model::FactorSet;
use crate::study::{self, derive, Study, StudyData, StudyOptions, StudySet};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp study --data data/sample --out study/\n  \
bridgehcp study --data fed/ --factors data/factors/fsb-2007.toml my.toml --out study/\n  \
bridgehcp study --data fed/ --sweep impact=240,360,960 --set 'impact=240;cap=60' --out study/\n  \
bridgehcp study --data fed/ --burn-in-until 2025-06-30 --reference published.csv --out study/\n  \
bridgehcp study --data club/ --burn-in-until 2015-12-31 --factors data/factors/fsb-2007.toml \
data/factors/fsb-2007-kalman.toml --calibrate --out study/\n\n\
The first factor set (default: the built-in fsb-2007) is the one the others are compared \
with; --set and --sweep derive sets from it. Writes study.parquet (one row per set, period \
and metric; test figures with 95 % bootstrap intervals over sessions in ci_low and ci_high, \
and every track's paired gain over the best baseline) and study.html. Only matchpoint fields \
are compared with the baselines; a set's IMP fields are judged on their own. A dataset holding true_skill.parquet (a synthetic federation, \
see `bridgehcp sample --drift`) is also judged against the hidden skill."
)]
pub struct StudyArgs {
    /// Dataset folder.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// Factor sets in TOML; the first is the reference (default: the built-in fsb-2007).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub factors: Vec<PathBuf>,
    /// A set derived from the first: KEY=VALUE, several separated by `;`.
    #[arg(long = "set", value_name = "KEY=VALUE[;KEY=VALUE]")]
    pub set: Vec<String>,
    /// One set derived from the first per value: KEY=V1,V2,...
    #[arg(long, value_name = "KEY=V1,V2,...")]
    pub sweep: Vec<String>,
    /// Output folder.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Last day of the burn-in period (default: one year after the first competition).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub burn_in_until: Option<NaiveDate>,
    /// External ranking to compare with (CSV or Parquet: member_id, rating).
    #[arg(long, value_name = "FILE")]
    pub reference: Option<PathBuf>,
    /// Hidden skill per member and month (default: DATA/true_skill.parquet if present).
    #[arg(long, value_name = "FILE")]
    pub truth: Option<PathBuf>,
    /// Add, for each set, the set whose expected results are rescaled by its calibration
    /// slope on the burn-in (`methods.topscore.expected_c_b`): the test period stays unseen.
    #[arg(long)]
    pub calibrate: bool,
    /// Worker threads (default: all cores). The output does not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bars and no summary.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The sets of the study, in order: files, then `--set`, then `--sweep`.
pub fn sets(args: &StudyArgs) -> Result<Vec<StudySet>> {
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

/// Reads, scores and replays; writes study.parquet and study.html.
pub fn execute(args: &StudyArgs) -> Result<Study> {
    let sets = sets(args)?;
    let progress = !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let spinner = if progress {
        let s = ProgressBar::new_spinner();
        s.set_message(format!("reading and scoring {}", args.data.display()));
        s.enable_steady_tick(std::time::Duration::from_millis(120));
        s
    } else {
        ProgressBar::hidden()
    };
    let dataset = crate::import::table::read_dataset(&args.data)?;
    let data = StudyData::new(&dataset, &sets[0])?;
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
    spinner.finish_and_clear();
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
    };
    let bar = if progress {
        let b = ProgressBar::new((sets.len() + study::baselines::Baseline::ALL.len()) as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{msg:>12} [{bar:40.cyan/blue}] {pos}/{len} ({elapsed})")
        {
            b.set_style(style.progress_chars("=> "));
        }
        b.set_message("replaying");
        b
    } else {
        ProgressBar::hidden()
    };
    let result = study::run(&data, &sets, &options, &|_| bar.inc(1))?;
    bar.finish_and_clear();
    for warning in &result.warnings {
        eprintln!("warning: {warning}");
    }
    study::output::write_study(&args.out, &result)?;
    Ok(result)
}

/// The test-period table printed at the end.
pub fn print_summary(args: &StudyArgs, study: &Study) {
    println!(
        "bridgehcp study: burn-in up to {}; test period after it (matchpoint fields only; \
         95 % intervals from a bootstrap over sessions)",
        study.burn_in_until
    );
    println!(
        "{:<40} {:>8} {:>22} {:>20} {:>20} {:>18} {:>22}",
        "set", "entrants", "r", "RMSE", "calibrated RMSE", "slope", "r gain vs best baseline"
    );
    for t in &study.tracks {
        let row = |m: &str| {
            study.rows.iter().find(|r| {
                r.set == t.name && r.hash == t.hash && r.period == "test" && r.metric == m
            })
        };
        let f = |m: &str, d: usize| match row(m) {
            Some(r) => match (r.low, r.high) {
                (Some(lo), Some(hi)) => format!("{:.d$} [{lo:.d$}, {hi:.d$}]", r.value),
                _ => format!("{:.d$}", r.value),
            },
            None => "–".to_string(),
        };
        println!(
            "{:<40} {:>8} {:>22} {:>20} {:>20} {:>18} {:>22}",
            t.name,
            row("entrants").map_or("–".to_string(), |r| format!("{:.0}", r.value)),
            f("pearson_r", 3),
            f("rmse", 2),
            f("rmse_calibrated", 2),
            f("calibration_slope", 2),
            f(&study::gain_metric("pearson_r"), 3),
        );
    }
    println!(
        "outputs: {} and {}",
        args.out.join("study.parquet").display(),
        args.out.join("study.html").display()
    );
}
