//! Per-stage micro-benchmarks: what one table result, one board and one competition
//! cost in each stage of a run.
//!
//!     cargo bench --bench stages
//!
//! Contract scoring per table result, matchpoints and cross-IMPs per board, a whole
//! competition scored from its board rows, and the model's update per competition (a
//! 12-pair field). The figures say where a run's time would go if reading were free;
//! `benches/scale.sh` measures whole runs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use bridgehcp::dataset::conventions::{ArtificialImps, ImpAggregate, MpScale};
use bridgehcp::model::{
    rate_competition, CalcMethod, CompetitionInput, EntrantInput, FactorSet, FieldKind,
    PlayerInput, PlayerStatus,
};
use bridgehcp::scoring::contract::{ns_score, parse_contract, Seat};
use bridgehcp::scoring::outcome::Outcome;
use bridgehcp::scoring::{cross_imps, matchpoints, score_competition};
use bridgehcp::synth::{generate, SynthConfig};
use divan::black_box;

fn main() {
    divan::main();
}

/// Table results as a club reports them: contract, declarer, tricks, board.
const TABLES: [(&str, Seat, u8, u32); 8] = [
    ("4S", Seat::North, 10, 1),
    ("3NT", Seat::East, 8, 2),
    ("2HX", Seat::South, 7, 3),
    ("6D", Seat::West, 12, 4),
    ("1NT", Seat::North, 7, 5),
    ("5CXX", Seat::East, 11, 6),
    ("PASS", Seat::North, 0, 7),
    ("4H", Seat::South, 9, 8),
];

#[divan::bench]
fn contract_score_per_table_result() -> i32 {
    let mut total = 0;
    for (text, declarer, tricks, board) in black_box(TABLES) {
        let contract = parse_contract(text).ok().flatten();
        total += ns_score(contract.as_ref(), declarer, tricks, board).unwrap_or(0);
    }
    total
}

/// A board played at 12 tables.
fn board_results() -> Vec<Outcome> {
    [620, 650, 170, -100, 620, 600, -200, 140, 620, 680, 170, -50]
        .into_iter()
        .map(Outcome::Score)
        .collect()
}

#[divan::bench]
fn matchpoints_per_board(bencher: divan::Bencher) {
    let outcomes = board_results();
    bencher.bench(|| matchpoints::score_board(black_box(&outcomes), 12, MpScale::TwoOne, true));
}

#[divan::bench]
fn cross_imps_per_board(bencher: divan::Bencher) {
    let outcomes = board_results();
    bencher.bench(|| {
        cross_imps::score_board(
            black_box(&outcomes),
            12,
            ImpAggregate::Average,
            ArtificialImps::Zero,
        )
    });
}

/// Every competition of a small synthetic federation, scored from its board rows.
#[divan::bench(sample_count = 10)]
fn competitions_scored_from_board_rows(bencher: divan::Bencher) {
    let dataset = generate(&SynthConfig {
        members: 300,
        months: 2,
        ..SynthConfig::default()
    });
    let competitions: Vec<_> = dataset
        .competitions
        .iter()
        .map(|c| {
            let entrants: Vec<_> = dataset
                .entrants
                .iter()
                .filter(|e| e.competition_id == c.competition_id)
                .collect();
            let boards: Vec<_> = dataset
                .boards
                .iter()
                .filter(|b| b.competition_id == c.competition_id)
                .collect();
            (c, entrants, boards)
        })
        .filter(|(_, _, boards)| !boards.is_empty())
        .collect();
    bencher
        .counter(divan::counter::ItemsCount::new(competitions.len()))
        .bench(|| {
            competitions
                .iter()
                .filter(|(c, entrants, boards)| score_competition(c, entrants, boards).is_ok())
                .count()
        });
}

/// The model's update for one 12-pair matchpoint field: expected results, achieved
/// results, every player's delta.
#[divan::bench]
fn model_update_per_competition(bencher: divan::Bencher) {
    let factors = FactorSet::default();
    let entrants: Vec<EntrantInput> = (0..12)
        .map(|i| {
            let id = 2 * i as i64 + 1;
            let handicap = 10.0 + 2.5 * f64::from(i);
            let player = |member_id| PlayerInput {
                member_id,
                status: PlayerStatus::Rated(handicap),
            };
            EntrantInput {
                players: vec![player(id), player(id + 1)],
                boards_played: 24,
                result: 8.0 - 1.3 * f64::from(i),
                direction: None,
                opponent: None,
            }
        })
        .collect();
    let input = CompetitionInput {
        n_boards: 24,
        method: CalcMethod::Topscore,
        kind: FieldKind::Pairs,
        weight_multiplier: 1.0,
        entrants,
    };
    bencher.bench(|| rate_competition(&factors, black_box(&input)).map(|o| o.len()));
}
