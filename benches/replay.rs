//! Timing of the whole pipeline on a synthetic federation, printed as figures.
//!
//!     cargo bench --bench replay                  # 20 000 members, 36 months
//!     BRIDGEHCP_BENCH_MEMBERS=50000 BRIDGEHCP_BENCH_MONTHS=60 cargo bench --bench replay
//!
//! Prints the size of the history, then the time of each stage for one run with every
//! core and one with a single thread (the outputs are identical; only the time differs).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use std::time::Instant;

/// The same allocator as the binary, so the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use bridgehcp::pipeline::{self, Mode, RunSettings};
use bridgehcp::synth::{generate, SynthConfig};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let config = SynthConfig {
        members: env_or("BRIDGEHCP_BENCH_MEMBERS", 20_000),
        months: env_or("BRIDGEHCP_BENCH_MONTHS", 36),
        ..SynthConfig::default()
    };
    let started = Instant::now();
    let dataset = generate(&config);
    println!(
        "history: {} members, {} competitions, {} entrants, {} results, {} board rows (generated in {:.2} s)",
        dataset.members.len(),
        dataset.competitions.len(),
        dataset.entrants.len(),
        dataset.results.len(),
        dataset.boards.len(),
        started.elapsed().as_secs_f64()
    );
    for mode in [Mode::Live, Mode::Frozen] {
        for threads in [0, 1] {
            let settings = RunSettings {
                mode,
                ..RunSettings::default()
            };
            let mut builder = rayon::ThreadPoolBuilder::new();
            if threads > 0 {
                builder = builder.num_threads(threads);
            }
            let pool = match builder.build() {
                Ok(pool) => pool,
                Err(e) => {
                    eprintln!("cannot build a thread pool: {e}");
                    return;
                }
            };
            let started = Instant::now();
            let output = pool.install(|| pipeline::run(&dataset, &settings, None));
            let elapsed = started.elapsed().as_secs_f64();
            match output {
                Ok(output) => println!(
                    "{:?} mode, {} thread(s): {:.3} s (scoring {:.3} s, replay {:.3} s) for {} competitions, {} player changes ({:.0} changes/s)",
                    mode,
                    pool.current_num_threads(),
                    elapsed,
                    output.summary.scoring.as_secs_f64(),
                    output.summary.replaying.as_secs_f64(),
                    output.summary.competitions_applied,
                    output.summary.changes,
                    output.summary.changes as f64 / elapsed
                ),
                Err(e) => {
                    eprintln!("run failed: {e}");
                    return;
                }
            }
        }
    }
}
