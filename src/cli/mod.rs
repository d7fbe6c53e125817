//! The command line: flags are parsed and checked once into settings, then handed to the
//! library. Each subcommand lives in its own file.

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

use clap::{Parser, Subcommand};

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
