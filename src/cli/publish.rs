//! `bridgehcp publish`: the federation's static site, from a run's folder.

use std::path::PathBuf;

use clap::Args;

use std::process::ExitCode;

use super::progress::Bars;
use super::Failed;
use crate::job::publish::{self as job, PublishPlan};
use crate::site::Summary;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp publish --out-dir out/2026-11 --site site/\n  \
bridgehcp publish --out-dir out/2026-11 --data fed/ --site site/ --title \"Handicaps of the federation\"\n\n\
Writes a static site into --site: the published ranking on index.html (filters by club, \
district and name where JavaScript runs; club and district pages where it does not), \
members/ID.html for every member of ranking_published.csv (handicap, trajectory, every \
rated competition, partners), clubs/NAME.html, districts/NAME.html, competitions/ID.html \
(standings with each pair's expected and achieved result) and report.html when the run \
folder holds the month's report (`bridgehcp report` first). The site names no outside \
address and reads from its folder or any static host. A new site is written whole and \
renamed into place; over a site, only the pages whose bytes changed are written, each \
beside its page and renamed over it once all are written (site-journal.tsv lists them, so \
that a publish stopped midway is finished by the next), and the count of pages written is \
printed (a bar shows the pages as they are made, on a terminal; --quiet shows neither). The \
site records in site-manifest.tsv a digest of what each member's and competition's page is \
made from, so that publishing the next month makes only the pages whose content changed."
)]
pub struct PublishArgs {
    /// The run's output folder (handicaps.parquet, changes.parquet, ranking_published.csv, ...).
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
    /// The dataset: competition titles and clubs, and the players' printed names
    /// (default: the dataset the run's run.json names, when it is still there).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// The site's folder: created, or replaced if it holds a site already.
    #[arg(long, value_name = "DIR")]
    pub site: PathBuf,
    /// The federation's name on the front page.
    #[arg(long, value_name = "TEXT", default_value = "National handicap ranking")]
    pub title: String,
    /// No progress bars and no summary.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Makes the site, writes it and prints what was written unless `--quiet`.
pub fn command(args: &PublishArgs) -> Result<ExitCode, Failed> {
    let plan = PublishPlan {
        out_dir: args.out_dir.clone(),
        data: args.data.clone(),
        site: args.site.clone(),
        title: args.title.clone(),
    };
    let progress = !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let summary = job::execute(&plan, &Bars::new(progress)).map_err(Failed::doing(format!(
        "publishing {} failed",
        args.out_dir.display()
    )))?;
    if !args.quiet {
        println!("{}", summary_line(&summary));
    }
    Ok(ExitCode::SUCCESS)
}

/// The line printed after a publication.
pub fn summary_line(s: &Summary) -> String {
    let w = &s.written;
    format!(
        "bridgehcp publish: {} ({} members, {}, {}{}); {} written, {} unchanged, {} removed; {} made, {} kept without being made (what they show has not changed); site in {}",
        crate::report::count(w.pages, "page", "pages"),
        s.members,
        crate::report::count(s.clubs, "club", "clubs"),
        crate::report::count(s.competitions, "competition", "competitions"),
        if s.report { ", the month's report" } else { "" },
        w.written,
        w.unchanged,
        w.removed,
        w.made,
        w.pages - w.made,
        s.site.display()
    ) + match &s.dataset {
        Some(_) => "",
        None => "\n  the run's dataset was not found: competitions are shown by their identifier and clubs without their competitions (give --data DIR)",
    }
}
