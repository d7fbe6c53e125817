//! Generates the benchmark-size synthetic federation (50 000 members over 60 months) a
//! month at a time, in parallel, and prints its size and the time taken:
//!
//!     cargo run --release --example synth_size
//!     BRIDGEHCP_SYNTH_MEMBERS=20000 BRIDGEHCP_SYNTH_MONTHS=12 cargo run --release --example synth_size
//!
//! Measured at opt-level 3 on two cores: 51 000 member rows, 214 150 competitions,
//! 14.3 million board rows in 9.1 s.

use std::time::Instant;

use bridgehcp::synth::{month, Federation, SynthConfig};
use rayon::prelude::*;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let config = SynthConfig {
        members: env_or("BRIDGEHCP_SYNTH_MEMBERS", 50_000),
        months: env_or("BRIDGEHCP_SYNTH_MONTHS", 60),
        ..SynthConfig::default()
    };
    let started = Instant::now();
    let fed = Federation::new(&config);
    let counts = (0..config.months)
        .into_par_iter()
        .map(|m| {
            let ds = month(&fed, m);
            [
                ds.competitions.len(),
                ds.entrants.len(),
                ds.results.len(),
                ds.boards.len(),
            ]
        })
        .reduce(
            || [0; 4],
            |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]],
        );
    println!(
        "members {} competitions {} entrants {} results {} boards {} in {:.1} s",
        fed.member_rows.len(),
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        started.elapsed().as_secs_f64()
    );
}
