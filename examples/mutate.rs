//! A mutation fuzzer on stable Rust for the three readers a hostile file reaches: the PBN
//! importer, the USEBIO importer and the dataset reader (Parquet and CSV tables).
//!
//! The `fuzz/` folder holds the same targets for cargo-fuzz (libFuzzer, nightly). This
//! harness needs neither: it mutates seed files (byte flips, interesting integers,
//! truncation, deleted, repeated and inserted ranges, very long lines, deep nesting) and
//! feeds each mutant to the reader. Inputs run in a child process so that an abort (a
//! stack overflow, a failed huge allocation) or a hang is caught too; every mutant is a
//! function of (seed, index), so the parent rebuilds a crashing input and saves it.
//!
//! ```sh
//! nice -n 19 cargo run --release --example mutate -- pbn 600
//! nice -n 19 cargo run --release --example mutate -- usebio 600
//! nice -n 19 cargo run --release --example mutate -- dataset 600
//! ```
//!
//! prints the inputs tried, how many were read, refused with an error, caught as a panic
//! inside polars (reported as an error naming the file), and any panic, abort or hang,
//! whose input is saved under `target/fuzz-artifacts/TARGET/`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bridgehcp::import::{pbn, usebio};
use bridgehcp::quarantine::OnError;
use bridgehcp::store::table;

/// Inputs per child process; a fresh child also bounds any slow leak.
const PER_CHILD: u64 = 2_000;
/// An input taking longer than this is a hang.
const HANG: Duration = Duration::from_secs(20);

#[derive(Clone, Copy, PartialEq)]
enum Target {
    Pbn,
    Usebio,
    Dataset,
}

impl Target {
    fn parse(name: &str) -> Option<Target> {
        match name {
            "pbn" => Some(Target::Pbn),
            "usebio" => Some(Target::Usebio),
            "dataset" => Some(Target::Dataset),
            _ => None,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Target::Pbn => "pbn",
            Target::Usebio => "usebio",
            Target::Dataset => "dataset",
        }
    }
}

/// splitmix64: small, fast, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

// The real club files, found by the same rule as the tests' (`BRIDGEHCP_REALDATA`, else
// `shared/realdata` above the crate); without them the pool is empty and `parent` says so.
#[path = "../tests/common/realdata.rs"]
mod located;

fn realdata() -> PathBuf {
    located::locate().unwrap_or_default()
}

fn files_in(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == extension))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// A seed: the table it stands for (dataset target) and its bytes.
struct Seed {
    table: &'static str,
    csv: bool,
    bytes: Vec<u8>,
}

const CSV_TABLES: [(&str, &str); 5] = [
    (
        "members",
        "member_id,name,masterpoints,start_handicap\n1,Ann,10,\n2,Bo,20,30.5\n3,Cy,0,\n4,Di,5,\n",
    ),
    (
        "competitions",
        "competition_id,date,format,scoring,boards,session\nc1,2026-01-05,pairs,matchpoints,2,1\nc2,2026-01-12,teams,team_imps,2,1\n",
    ),
    (
        "entrants",
        "competition_id,entrant,player1,player2,player3,player4\nc1,1,1,2,,\nc1,2,3,4,,\nc2,A,1,2,3,4\nc2,B,5,6,7,8\n",
    ),
    (
        "results",
        "competition_id,entrant,boards_played,score,opponent\nc1,1,2,55,\nc1,2,2,45,\n",
    ),
    (
        "boards",
        "competition_id,board,ns,ew,contract,declarer,tricks,ns_score,adjusted,room\nc2,1,A,B,4S,N,10,420,,open\nc2,1,B,A,3NT,S,9,400,,closed\nc2,2,A,B,PASS,,,0,,open\nc2,2,B,A,,,,,A5050,closed\n",
    ),
];

fn seeds(target: Target) -> Vec<Seed> {
    let read = |path: &Path| std::fs::read(path).unwrap_or_default();
    match target {
        Target::Pbn => [realdata().join("pbn"), realdata().join("pbn-bridgekam")]
            .iter()
            .flat_map(|dir| files_in(dir, "pbn"))
            .map(|p| Seed {
                table: "",
                csv: false,
                bytes: read(&p),
            })
            .collect(),
        Target::Usebio => files_in(&realdata().join("usebio"), "xml")
            .iter()
            .map(|p| Seed {
                table: "",
                csv: false,
                bytes: read(p),
            })
            .collect(),
        Target::Dataset => {
            let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
            let mut all: Vec<Seed> = table::TABLES
                .iter()
                .map(|t| Seed {
                    table: t,
                    csv: false,
                    bytes: read(&sample.join(format!("{t}.parquet"))),
                })
                .collect();
            all.extend(CSV_TABLES.iter().map(|(t, text)| Seed {
                table: t,
                csv: true,
                bytes: text.as_bytes().to_vec(),
            }));
            all
        }
    }
}

/// Integers that break readers: zero, all ones, sign bits, sizes near 2^31, 2^32, 2^61.
const INTERESTING: [u64; 10] = [
    0,
    1,
    0x7F,
    0xFF,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    1 << 32,
    1 << 61,
    u64::MAX,
];

fn mutate(rng: &mut Rng, target: Target, seed: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(10) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = INTERESTING[rng.below(4)] as u8;
            }
            2 if len >= 8 => {
                let width = [1usize, 2, 4, 8][rng.below(4)];
                let i = rng.below(len - width + 1);
                let value = INTERESTING[rng.below(INTERESTING.len())].to_le_bytes();
                data[i..i + width].copy_from_slice(&value[..width]);
            }
            3 => data.truncate(rng.below(len + 1)),
            4 if len > 0 => {
                let from = rng.below(len);
                let to = (from + 1 + rng.below(64)).min(len);
                data.drain(from..to);
            }
            5 if len > 0 => {
                let from = rng.below(len);
                let to = (from + 1 + rng.below(256)).min(len);
                let copy = data[from..to].to_vec();
                let at = rng.below(len + 1);
                data.splice(at..at, copy);
            }
            6 => {
                let at = rng.below(len + 1);
                let junk: Vec<u8> = (0..1 + rng.below(32)).map(|_| rng.next() as u8).collect();
                data.splice(at..at, junk);
            }
            7 if target != Target::Dataset || rng.below(4) == 0 => {
                // A very long line (10 MB once in a while).
                let at = rng.below(len + 1);
                let n = if rng.below(8) == 0 { 10 << 20 } else { 70_000 };
                data.splice(at..at, std::iter::repeat_n(b'7', n));
            }
            8 if target == Target::Usebio => {
                // Deep nesting.
                let at = rng.below(len + 1);
                let depth = [100, 10_000, 150_000][rng.below(3)];
                let mut nest = b"<X>".repeat(depth);
                nest.extend(b"</X>".repeat(depth));
                data.splice(at..at, nest);
            }
            9 if len > 0 => {
                // Invalid UTF-8.
                let i = rng.below(len);
                data[i] = [0xC3, 0xFF, 0x80, 0xED][rng.below(4)];
            }
            _ => {}
        }
    }
    data
}

/// The mutant number `index` of the run seeded `seed`, and the seed file it came from.
fn input(target: Target, pool: &[Seed], seed: u64, index: u64) -> (usize, Vec<u8>) {
    let mut rng = Rng(seed.wrapping_mul(0x1000_0001).wrapping_add(index));
    let which = rng.below(pool.len());
    (which, mutate(&mut rng, target, &pool[which].bytes))
}

#[derive(Debug, PartialEq)]
enum Outcome {
    Read,
    Refused,
    /// A panic inside polars, caught and reported as an error naming the file.
    CaughtPanic,
}

/// Writes the pristine dataset once; each input replaces one table's file.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new(pool: &[Seed]) -> Scratch {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("no temporary folder: {e}"));
        for form in ["parquet", "csv"] {
            let folder = dir.path().join(form);
            std::fs::create_dir(&folder).unwrap_or_else(|e| panic!("{e}"));
            for seed in pool.iter().filter(|s| s.csv == (form == "csv")) {
                std::fs::write(folder.join(format!("{}.{form}", seed.table)), &seed.bytes)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        }
        Scratch { dir }
    }

    fn run(&self, seed: &Seed, bytes: &[u8]) -> Result<Outcome, String> {
        let form = if seed.csv { "csv" } else { "parquet" };
        let folder = self.dir.path().join(form);
        let file = folder.join(format!("{}.{form}", seed.table));
        std::fs::write(&file, bytes).map_err(|e| e.to_string())?;
        let outcome = table::read_dataset_checked(&folder, OnError::Quarantine);
        std::fs::write(&file, &seed.bytes).map_err(|e| e.to_string())?;
        Ok(match outcome {
            Ok(_) => Outcome::Read,
            Err(e) if e.to_string().contains("the reader failed") => Outcome::CaughtPanic,
            Err(_) => Outcome::Refused,
        })
    }
}

fn child(target: Target, seed: u64, start: u64, count: u64) {
    std::panic::set_hook(Box::new(|_| {}));
    let pool = seeds(target);
    let scratch = (target == Target::Dataset).then(|| Scratch::new(&pool));
    let path = Path::new("fuzz-input");
    let mut out = std::io::stdout().lock();
    for index in start..start + count {
        let (which, bytes) = input(target, &pool, seed, index);
        let _ = writeln!(out, "start {index}");
        let _ = out.flush();
        let result = std::panic::catch_unwind(|| match target {
            Target::Pbn => Ok(match pbn::parse_bytes(path, &bytes) {
                Ok(_) => Outcome::Read,
                Err(_) => Outcome::Refused,
            }),
            Target::Usebio => Ok(match usebio::parse_bytes(path, &bytes) {
                Ok(_) => Outcome::Read,
                Err(_) => Outcome::Refused,
            }),
            Target::Dataset => match &scratch {
                Some(scratch) => scratch.run(&pool[which], &bytes),
                None => Err("no scratch folder".into()),
            },
        });
        let line = match result {
            Ok(Ok(outcome)) => format!("{outcome:?}"),
            Ok(Err(io)) => format!("Io {io}"),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                format!("Panic {}", message.replace('\n', " "))
            }
        };
        let _ = writeln!(out, "done {index} {line}");
        let _ = out.flush();
    }
}

#[derive(Default)]
struct Tally {
    tried: u64,
    read: u64,
    refused: u64,
    caught: u64,
    crashes: Vec<String>,
}

fn save(target: Target, pool: &[Seed], seed: u64, index: u64, what: &str) -> String {
    let (which, bytes) = input(target, pool, seed, index);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/fuzz-artifacts")
        .join(target.name());
    let _ = std::fs::create_dir_all(&dir);
    let name = dir.join(format!("{what}-{seed}-{index}"));
    let _ = std::fs::write(&name, bytes);
    format!(
        "{what} on input {index} of seed {seed} (from seed file {which}, table `{}`), saved as {}",
        pool[which].table,
        name.display()
    )
}

fn parent(target: Target, seconds: u64, first_seed: u64) {
    let pool = seeds(target);
    if pool.is_empty() {
        eprintln!(
            "no seed files for {}: {}",
            target.name(),
            located::locate()
                .err()
                .unwrap_or_else(|| "their folder has none".to_string())
        );
        std::process::exit(2);
    }
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let mut tally = Tally::default();
    let mut seed = first_seed;
    let mut start = 0;
    while Instant::now() < deadline {
        let mut process = Command::new(&exe)
            .args([
                "--child",
                target.name(),
                &seed.to_string(),
                &start.to_string(),
                &PER_CHILD.to_string(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the child: {e}"));
        let Some(stdout) = process.stdout.take() else {
            break;
        };
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut current: Option<u64> = None;
        let mut last_done = start;
        loop {
            match lines.recv_timeout(HANG) {
                Ok(line) => {
                    let mut parts = line.splitn(3, ' ');
                    let (kind, index, rest) = (
                        parts.next().unwrap_or(""),
                        parts.next().and_then(|i| i.parse().ok()).unwrap_or(0),
                        parts.next().unwrap_or(""),
                    );
                    if kind == "start" {
                        current = Some(index);
                        continue;
                    }
                    current = None;
                    last_done = index + 1;
                    tally.tried += 1;
                    match rest {
                        "Read" => tally.read += 1,
                        "Refused" => tally.refused += 1,
                        "CaughtPanic" => tally.caught += 1,
                        other => {
                            let what = save(target, &pool, seed, index, "panic");
                            tally.crashes.push(format!("{what}: {other}"));
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = process.kill();
                    if let Some(index) = current {
                        tally.tried += 1;
                        tally.crashes.push(save(target, &pool, seed, index, "hang"));
                        last_done = index + 1;
                    }
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = process.wait();
                    if let Some(index) = current {
                        tally.tried += 1;
                        let what = save(target, &pool, seed, index, "abort");
                        tally.crashes.push(format!("{what}: {status:?}"));
                        last_done = index + 1;
                    }
                    break;
                }
            }
            if Instant::now() >= deadline {
                let _ = process.kill();
                break;
            }
        }
        let _ = process.wait();
        start = last_done;
        if start >= PER_CHILD * 1_000 {
            seed += 1;
            start = 0;
        }
    }
    println!(
        "{}: {} inputs in {seconds} s: {} read, {} refused with an error, {} polars panics caught and reported, {} crashes",
        target.name(),
        tally.tried,
        tally.read,
        tally.refused,
        tally.caught,
        tally.crashes.len()
    );
    for crash in &tally.crashes {
        println!("  {crash}");
    }
    if !tally.crashes.is_empty() {
        std::process::exit(1);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: mutate pbn|usebio|dataset SECONDS [SEED]";
    if args.first().map(String::as_str) == Some("--child") {
        let target = args.get(1).and_then(|t| Target::parse(t));
        let number = |i: usize| args.get(i).and_then(|n| n.parse::<u64>().ok());
        if let (Some(target), Some(seed), Some(start), Some(count)) =
            (target, number(2), number(3), number(4))
        {
            child(target, seed, start, count);
        }
        return;
    }
    let target = args.first().and_then(|t| Target::parse(t));
    let seconds = args.get(1).and_then(|s| s.parse().ok());
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    match (target, seconds) {
        (Some(target), Some(seconds)) => parent(target, seconds, seed),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
