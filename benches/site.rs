//! What making a site's pages costs, kind by kind, without the file system.
//!
//!     cargo bench --bench site -- RUN_FOLDER [DATASET]
//!
//! `publish` spends its time reading the run, finding what changed, making the pages and
//! writing them; the last is the kernel's and moves with the file system's state (a
//! folder of half a million files deleted minutes before doubles it). This reads the
//! run folder as `publish` does, then makes every page in memory: first in the site's
//! order, a batch at a time on every core as `publish` makes them, then one kind after
//! the other, and prints the time and the bytes of each kind: the figures a change to
//! the pages' making is judged by. Without a folder it makes the shipped
//! sample's site (a run of `data/sample` in a temporary folder).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark fails loudly by design

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bridgehcp::site::{self, digest::Record, Page};
use rayon::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let (run, data) = match args.first() {
        Some(run) => (PathBuf::from(run), args.get(1).map(PathBuf::from)),
        None => (sample_run(scratch.path()), None),
    };
    let started = Instant::now();
    let data = site::data::read(&run, data.as_deref()).expect("the run folder is read");
    let read = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let pages = site::pages(&data).expect("the pages are listed");
    let maker = site::Maker::new(&data, "National handicap ranking", &Record::default());
    let keys = started.elapsed().as_secs_f64();
    println!("{}: {} pages", run.display(), pages.len());
    println!("{:<32} {:>9.2} s", "reading the run", read);
    println!("{:<32} {:>9.2} s", "listing and keys", keys);
    let started = Instant::now();
    let mut bytes = 0;
    for batch in pages.chunks(site::write::BATCH) {
        bytes += batch
            .par_iter()
            .map(|(_, page)| made_bytes(&maker, page))
            .sum::<usize>();
    }
    println!(
        "{:<32} {:>9.2} s  {:>8} pages  {:>9.1} MB",
        "making them in the site's order",
        started.elapsed().as_secs_f64(),
        pages.len(),
        bytes as f64 / 1e6
    );
    let mut kinds: BTreeMap<&str, Vec<&Page>> = BTreeMap::new();
    for (_, page) in &pages {
        kinds.entry(kind(page)).or_default().push(page);
    }
    let mut total = 0.0;
    for (kind, pages) in &kinds {
        let started = Instant::now();
        let bytes: usize = pages.par_iter().map(|page| made_bytes(&maker, page)).sum();
        let seconds = started.elapsed().as_secs_f64();
        total += seconds;
        println!(
            "{:<32} {:>9.2} s  {:>8} pages  {:>9.1} MB  {:>7.1} us a page",
            format!("making {kind}"),
            seconds,
            pages.len(),
            bytes as f64 / 1e6,
            seconds * 1e6 / pages.len().max(1) as f64
        );
    }
    println!("{:<32} {:>9.2} s", "making every page", total);
}

/// The bytes of `page`, made.
fn made_bytes(maker: &site::Maker, page: &Page) -> usize {
    let made = maker.make(page, None).expect("the page is made");
    made.bytes.map_or(0, |b| b.len())
}

/// The kind of a page, as the figures are grouped.
fn kind(page: &Page) -> &'static str {
    match page {
        Page::Front => "the front page",
        Page::Report(_) => "the report",
        Page::Member(_) => "members' pages",
        Page::MemberYear(..) => "members' earlier years",
        Page::Competition(..) => "competitions' pages",
        Page::Club(_) => "clubs' pages",
        Page::District(_) => "districts' pages",
    }
}

/// The shipped sample run into `dir`, as `cargo run --release` runs it.
fn sample_run(dir: &Path) -> PathBuf {
    let out = dir.join("out");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .args(["run", "--quiet", "--data"])
        .arg(&sample)
        .arg("--out")
        .arg(&out)
        .status()
        .expect("bridgehcp runs");
    assert!(status.success(), "the sample's run failed");
    out
}
