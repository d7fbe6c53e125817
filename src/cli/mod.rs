//! The command line: flags are parsed and checked once into a plan, handed to the
//! command's job ([`crate::job`]), and what the job returns is printed. Each subcommand
//! lives in its own file; clap and the progress bars live only here.

pub mod draw;
pub mod import;
pub mod index;
pub mod player;
pub mod progress;
pub mod publish;
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
bridgehcp publish --out-dir out/2026-11 --site site/\n  \
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
    /// The federation's static site from a run: the ranking, a page per member, club
    /// and competition, the month's report (rewrites only the pages that changed).
    Publish(publish::PublishArgs),
    /// Generate a synthetic federation dataset (the shipped sample, or larger ones for
    /// benchmarks).
    Sample(sample::SampleArgs),
    /// Compare factor sets and standard ratings (running average, Elo, Weng-Lin, Glicko-2,
    /// TrueSkill) on one history: predictive accuracy, calibration, rank agreement.
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
            Command::Publish(args) => publish::command(args),
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

/// Starts the worker threads, `threads` of them when given (all cores otherwise). The
/// pool is built first, so only a thread that cannot be started fails it: that is
/// memory running out, and ends the command as such.
pub fn threads(threads: Option<usize>) {
    let Some(threads) = threads else {
        return;
    };
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    if built.is_err() {
        crate::memory::thread_not_started();
    }
}

/// The environment variable that asks for the details a bug report needs: the stack
/// trace under an error, and a Parquet reader's own panic text.
pub const VERBOSE_ENV: &str = "BRIDGEHCP_VERBOSE";

/// Whether [`VERBOSE_ENV`] is set (to anything but empty or `0`).
pub fn verbose() -> bool {
    std::env::var_os(VERBOSE_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// An error as a user reads it: its message, then what caused it, laid out as anyhow
/// lays out a chain (`Caused by:`, numbered when there is more than one cause), and no
/// stack trace. A machine or shell that sets `RUST_BACKTRACE` for its own reasons must
/// not bury a message about a file under a trace of the program's internals: the trace
/// is for a bug report, with [`VERBOSE_ENV`].
pub fn error_text(error: &(dyn std::error::Error + 'static)) -> String {
    use std::fmt::Write;
    let mut text = format!("Error: {error}");
    let Some(cause) = error.source() else {
        return text;
    };
    text.push_str("\n\nCaused by:");
    let numbered = cause.source().is_some();
    let mut next = Some(cause);
    let mut n = 0;
    while let Some(cause) = next {
        for (i, line) in cause.to_string().split('\n').enumerate() {
            text.push('\n');
            match (i, numbered) {
                (0, true) => {
                    let _ = write!(text, "{n: >5}: ");
                }
                (_, true) => text.push_str("       "),
                (_, false) => text.push_str("    "),
            }
            text.push_str(line);
        }
        next = cause.source();
        n += 1;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Link(&'static str, Option<Box<Link>>);

    impl std::fmt::Display for Link {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Link {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1
                .as_deref()
                .map(|l| l as &(dyn std::error::Error + 'static))
        }
    }

    /// The chain as anyhow's `{:?}` prints it without a trace: one cause indented,
    /// several numbered, a cause of two lines continued under its first.
    #[test]
    fn an_error_prints_its_chain_as_anyhow_lays_it_out() {
        let alone = Link("run on fed failed", None);
        assert_eq!(error_text(&alone), "Error: run on fed failed");
        let one = Link(
            "run on fed failed",
            Some(Box::new(Link("no such run folder", None))),
        );
        assert_eq!(
            error_text(&one),
            "Error: run on fed failed\n\nCaused by:\n    no such run folder"
        );
        let two = Link(
            "a",
            Some(Box::new(Link(
                "b\nsecond line",
                Some(Box::new(Link("c", None))),
            ))),
        );
        assert_eq!(
            error_text(&two),
            "Error: a\n\nCaused by:\n    0: b\n       second line\n    1: c"
        );
    }
}
