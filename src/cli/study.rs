//! `bridgehcp study`: the flags of [`crate::job::study`], and the table it prints.

use std::path::PathBuf;
use std::process::ExitCode;

use chrono::NaiveDate;
use clap::Args;

use super::progress::Bars;
use super::Failed;
use crate::job::study::{self as job, StudyPlan};
use crate::study::{self, Study};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp study --data data/sample --out study/\n  \
bridgehcp study --data fed/ --factors data/factors/fsb-2007.toml my.toml --out study/\n  \
bridgehcp study --data fed/ --sweep impact=240,360,960 --set 'impact=240;cap=60' --out study/\n  \
bridgehcp study --data fed/ --burn-in-until 2025-06-30 --reference published.csv --out study/\n  \
bridgehcp study --data club/ --burn-in-until 2015-12-31 --factors data/factors/fsb-2007.toml \
data/factors/fsb-2007-kalman.toml --calibrate --out study/\n  \
bridgehcp study --data club/ --burn-in-until 2015-12-31 --whole-history --out study/\n\n\
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
    /// Also study the whole-history rating refitted before each competition day from
    /// every result up to it (`whole-history`, kind `method`): a prediction, never the
    /// best baseline.
    #[arg(long)]
    pub whole_history: bool,
    /// Worker threads (default: all cores). The output does not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bars and no summary.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs the study and prints its test-period table unless `--quiet`.
pub fn command(args: &StudyArgs) -> Result<ExitCode, Failed> {
    super::threads(args.threads);
    let plan = StudyPlan {
        data: args.data.clone(),
        factors: args.factors.clone(),
        set: args.set.clone(),
        sweep: args.sweep.clone(),
        out: args.out.clone(),
        burn_in_until: args.burn_in_until,
        reference: args.reference.clone(),
        truth: args.truth.clone(),
        calibrate: args.calibrate,
        whole_history: args.whole_history,
    };
    let progress = !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let study = job::execute(&plan, &Bars::new(progress)).map_err(Failed::doing(format!(
        "study of {} failed",
        args.data.display()
    )))?;
    for warning in &study.warnings {
        eprintln!("warning: {warning}");
    }
    if !args.quiet {
        print_summary(args, &study);
    }
    Ok(ExitCode::SUCCESS)
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
    let best = study
        .rows
        .iter()
        .find(|r| r.metric == study::gain_metric("pearson_r"))
        .and_then(|r| r.detail.as_deref());
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
    if let Some(best) = best {
        println!(
            "best baseline: {best} (the highest r in the test period; each gain is r minus its r, on the same bootstrap draws)"
        );
    }
    println!(
        "outputs: {} and {}",
        args.out.join(study::output::PARQUET).display(),
        args.out.join(study::output::HTML).display()
    );
}
