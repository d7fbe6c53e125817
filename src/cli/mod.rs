//! The command line: flags are parsed and checked once into a plan, handed to the
//! command's job ([`crate::job`]), and what the job returns is printed. Each subcommand
//! lives in its own file; clap and the progress bars live only here.

pub mod draw;
pub mod import;
pub mod index;
pub mod memory;
pub mod player;
pub mod progress;
pub mod report;
pub mod run;
pub mod sample;
pub mod score;
pub mod study;
pub mod values;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::Error;

#[derive(Debug, Parser)]
#[command(
    name = "bridgehcp",
    version,
    about = "Scores bridge competitions and keeps every member's handicap (0 best, 52 beginner)",
    long_about = "Scores bridge competitions from table results and replays every rated \
competition in date order to keep each member's handicap on the Swedish federation's 0-52 \
scale, then writes the national ranking.\n\nWith no subcommand, runs the handicap pipeline \
on the sample federation shipped in data/sample and writes to ./out.",
    after_help = "Examples:\n  bridgehcp run --pipeline pipelines/monthly.toml\n  \
bridgehcp run --data fed/ --out out/ --mode frozen\n  bridgehcp score --data fed/ --out scored/\n  \
bridgehcp import pbn club/*.pbn --out fed/\n  \
bridgehcp draw --data congress/ --seed 17\n  \
bridgehcp player 1042 --out-dir out/ --html anna.html\n  \
bridgehcp report --out-dir out/2026-11 --previous out/2026-10\n  \
bridgehcp study --data fed/ --sweep impact=240,960 --out study/"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the handicap pipeline over a dataset and write handicaps, changes, ranking
    /// and standings.
    Run(run::RunArgs),
    /// Score the board-level results of a dataset (standings and board scores).
    Score(score::ScoreArgs),
    /// The next round's tables of a Swiss pairs event (round 1 at random from a seed,
    /// then the single-field Swiss principle).
    Draw(draw::DrawArgs),
    /// Convert club scoring programs' exports (PBN, USEBIO) into a dataset.
    Import(import::ImportArgs),
    /// Write the competition index of a dataset other tools wrote, so that a continued
    /// run reads only the months with something new.
    Index(index::IndexArgs),
    /// One member's statement: every rated competition with the numbers that moved the
    /// handicap (terminal table, CSV, HTML with a trajectory plot).
    Player(player::PlayerArgs),
    /// The monthly report of a run (one HTML page) and the ranking's changes since the
    /// previous run (ranking_diff.csv).
    Report(report::ReportArgs),
    /// Generate a synthetic federation dataset (the shipped sample, or larger ones for
    /// benchmarks).
    Sample(sample::SampleArgs),
    /// Compare factor sets and standard ratings (running average, Elo, Weng-Lin) on one
    /// history: predictive accuracy, calibration, rank agreement.
    Study(study::StudyArgs),
}

impl Command {
    /// Runs the command and prints what it did; the exit code, or what failed.
    pub fn execute(&self) -> Result<ExitCode, Failed> {
        match self {
            Command::Run(args) => run::command(args),
            Command::Score(args) => score::command(args),
            Command::Draw(args) => draw::command(args),
            Command::Import(args) => import::command(args),
            Command::Index(args) => index::command(args),
            Command::Player(args) => player::command(args),
            Command::Report(args) => report::command(args),
            Command::Sample(args) => sample::command(args),
            Command::Study(args) => study::command(args),
        }
    }
}

/// A command that failed: the error, and what the command was doing (printed above
/// the error, as its context).
#[derive(Debug)]
pub struct Failed {
    pub doing: Option<String>,
    pub error: Box<Error>,
}

impl Failed {
    /// Turns an error into a failure while doing `what`.
    pub fn doing(what: impl Into<String>) -> impl FnOnce(Error) -> Failed {
        let what = what.into();
        move |error| Failed {
            doing: Some(what),
            error: Box::new(error),
        }
    }
}

/// Starts the worker threads, `threads` of them when given (all cores otherwise).
pub fn threads(threads: Option<usize>) -> Result<(), Failed> {
    let Some(threads) = threads else {
        return Ok(());
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| Failed {
            doing: Some("cannot start the worker threads".into()),
            error: Box::new(Error::Config(e.to_string())),
        })
}
