//! Properties of the whole replay: row order and thread count never change a bit, frozen
//! equals live when a month has one competition, and guests and non-members leave the
//! members' handicaps as the model says.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use bridgehcp::dataset::{
    Competition, Dataset, Entrant, EntrantResult, Format, Member, ScoringMethod,
};
use bridgehcp::pipeline::{self, Mode, Rate, RunOutput, RunSettings};
use bridgehcp::quarantine::OnError;
use bridgehcp::synth::{generate, SynthConfig};
use chrono::NaiveDate;
use proptest::prelude::*;

fn small_federation(seed: u64) -> Dataset {
    let config = SynthConfig {
        seed,
        members: 60,
        months: 3,
        ..SynthConfig::default()
    };
    generate(&config)
}

fn run(dataset: &Dataset, mode: Mode, threads: usize) -> RunOutput {
    let settings = RunSettings {
        mode,
        ..RunSettings::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| pipeline::run(dataset, &settings, None))
        .unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// Every number a run produces, as bits.
fn fingerprint(output: &RunOutput) -> Vec<u64> {
    let mut bits = Vec::new();
    for s in &output.states {
        bits.push(s.handicap.to_bits());
        bits.push(s.boards);
        bits.push(s.competitions);
    }
    for c in &output.replay.changes {
        bits.push(c.member_id as u64);
        bits.push(c.outcome.delta.to_bits());
        bits.push(c.outcome.expected.to_bits());
        bits.push(c.handicap_after.to_bits());
    }
    for s in &output.prepared.standings {
        bits.push(s.score.to_bits());
        bits.push(u64::from(s.rank));
    }
    bits
}

/// A permutation of `rows` drawn from `seed` (a plain LCG, enough to shuffle).
fn shuffle<T>(rows: &mut [T], seed: u64) {
    let mut state = seed | 1;
    for i in (1..rows.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = (state >> 33) as usize % (i + 1);
        rows.swap(i, j);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, .. ProptestConfig::default() })]

    #[test]
    fn row_order_and_thread_count_change_nothing(seed in 0u64..1000, order in 0u64..1000) {
        let dataset = small_federation(seed);
        let reference = fingerprint(&run(&dataset, Mode::Live, 1));
        let mut shuffled = dataset.clone();
        shuffle(&mut shuffled.members, order);
        shuffle(&mut shuffled.competitions, order + 1);
        shuffle(&mut shuffled.entrants, order + 2);
        shuffle(&mut shuffled.results, order + 3);
        shuffle(&mut shuffled.boards, order + 4);
        prop_assert_eq!(&reference, &fingerprint(&run(&shuffled, Mode::Live, 2)));
        prop_assert_eq!(
            fingerprint(&run(&dataset, Mode::Frozen, 1)),
            fingerprint(&run(&shuffled, Mode::Frozen, 2))
        );
    }
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

/// Four members in two pairs, one pairs competition per month.
fn two_pair_months(months: &[(u32, f64)]) -> Dataset {
    let mut dataset = Dataset::default();
    for (id, mp) in [(1, 300.0), (2, 300.0), (3, 50.0), (4, 50.0)] {
        let mut m = Member::new(id);
        m.masterpoints = mp;
        dataset.members.push(m);
    }
    for (i, (month, percent)) in months.iter().enumerate() {
        let id = format!("c{i}");
        let mut c = Competition::new(
            &id,
            date(2026, *month, 10),
            Format::Pairs,
            ScoringMethod::Matchpoints,
        );
        c.boards = Some(24);
        dataset.competitions.push(c);
        for (entrant, players, score) in [("1", [1, 2], *percent), ("2", [3, 4], 100.0 - percent)] {
            let mut e = Entrant::new(&id, entrant);
            e.players = [Some(players[0]), Some(players[1]), None, None];
            dataset.entrants.push(e);
            dataset.results.push(EntrantResult {
                competition_id: id.clone(),
                entrant: entrant.into(),
                boards_played: 24,
                score,
                opponent: None,
                origin: Default::default(),
            });
        }
    }
    dataset
}

#[test]
fn frozen_equals_live_when_each_month_has_one_competition() {
    let dataset = two_pair_months(&[(1, 62.0), (2, 55.0), (3, 41.5)]);
    let live = run(&dataset, Mode::Live, 1);
    let frozen = run(&dataset, Mode::Frozen, 1);
    for (l, f) in live.states.iter().zip(&frozen.states) {
        assert_eq!(l.handicap.to_bits(), f.handicap.to_bits());
    }
    // Something did move: in January the 300-MP pair (13.0 against 34.67) was expected
    // (34.667 - 13.0)/2 = 10.833 % over 50 and scored 12 %, so
    // delta = -(1/480)·(24.6/23)·1·1·2·24·(12 - 10.833) = -0.124783.
    let first = &live.replay.changes[0];
    assert_eq!(first.member_id, 1);
    assert!((first.outcome.delta - (-0.124_782_608_695_652)).abs() < 1e-12);
}

#[test]
fn frozen_month_sums_changes_from_the_opening_handicaps() {
    // Two competitions in January: frozen uses the opening handicaps for both.
    let dataset = two_pair_months(&[(1, 62.0), (1, 62.0)]);
    let live = run(&dataset, Mode::Live, 1);
    let frozen = run(&dataset, Mode::Frozen, 1);
    let first_delta = frozen.replay.changes[0].outcome.delta;
    let second_delta = frozen.replay.changes[4].outcome.delta;
    assert_eq!(frozen.replay.changes[4].member_id, 1);
    assert_eq!(first_delta.to_bits(), second_delta.to_bits());
    let opening = 52.0 / (1.0 + 0.01 * 300.0);
    assert!((frozen.states[0].handicap - (opening + 2.0 * first_delta)).abs() < 1e-12);
    // Live: the second competition saw a better handicap, so it moves less.
    assert!(live.states[0].handicap > frozen.states[0].handicap);
}

/// The replay finds the skill the synthetic federation was generated from: with every
/// member started at the same handicap (no masterpoint information at all), two years of
/// play order the members who played at least 300 boards much as their hidden true level.
/// (Measured: r = 0.75. Clubs rarely meet, so differences between clubs are only partly
/// identifiable from the results; a scrambled history would give r near 0.)
#[test]
fn replay_recovers_the_hidden_skill_of_the_synthetic_federation() {
    let config = SynthConfig::default();
    let federation = bridgehcp::synth::federation::Federation::new(&config);
    let mut dataset = generate(&config);
    for member in &mut dataset.members {
        member.start_handicap = Some(30.0);
    }
    let output = run(&dataset, Mode::Live, 2);
    let mut truth = Vec::new();
    let mut end = Vec::new();
    for (member, state) in output.registry.members.iter().zip(&output.states) {
        if let (Some(t), true) = (
            federation.true_handicap(member.member_id),
            state.boards >= 300,
        ) {
            truth.push(t);
            end.push(state.handicap);
        }
    }
    let r = correlation(&truth, &end);
    eprintln!(
        "members {}, correlation with the true level {r:.3}",
        truth.len()
    );
    assert!(truth.len() > 100);
    assert!(r > 0.7, "correlation with the true level {r}");
}

fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    sxy / (sxx * syy).sqrt()
}

/// A handicap tournament shows achieved minus expected with the playing handicaps: the
/// handicaps published at the end of the previous month, not the live ones.
#[test]
fn handicap_tournaments_use_the_playing_handicaps_of_the_month() {
    // January: pair 1 (13.0) against pair 2 (34.667) scores 62 %; both players of pair 1
    // move by -0.124783 to 12.875217, pair 2 to 34.791449.
    // A second January event and a February event, both handicap tournaments, 55 %.
    let mut dataset = two_pair_months(&[(1, 62.0), (1, 55.0), (2, 55.0)]);
    dataset.competitions[1].handicap_event = true;
    dataset.competitions[2].handicap_event = true;
    let output = run(&dataset, Mode::Live, 1);
    // Entrant 0 is pair "1".
    let adjusted = |competition: &str| {
        output
            .replay
            .adjusted
            .iter()
            .find(|a| {
                output.prepared.competitions[a.competition].competition_id == competition
                    && a.entrant == 0
            })
            .map(|a| a.adjusted)
            .unwrap()
    };
    let opening = 52.0 / 4.0;
    let field = 52.0 / 1.5;
    // In January the playing handicaps are the opening ones: 5 - (34.667 - 13.0)/2.
    assert!((adjusted("c1") - (5.0 - (field - opening) / 2.0)).abs() < 1e-9);
    // In February they are January's closing ones, after both January events:
    // c0 moves pair 1 by d0 = -(1/480)(24.6/23)(2)(24)(12 - 10.833333) = -0.124783;
    // c1 (live) expects (34.791449 - 12.875217)/2 = 10.958116 and sees 5, so
    // d1 = -(1/480)(24.6/23)(2)(24)(5 - 10.958116) = +0.637259; pair 1 ends January at
    // 13.512477, pair 2 at 34.154190, and February's adjusted result is
    // 5 - (34.154190 - 13.512477)/2 = -5.320857.
    let rate = (1.0 / 480.0) * (24.6 / 23.0) * 2.0 * 24.0;
    let d0 = -rate * (12.0 - (field - opening) / 2.0);
    let d1 = -rate * (5.0 - ((field - d0) - (opening + d0)) / 2.0);
    let expected_feb = ((field - d0 - d1) - (opening + d0 + d1)) / 2.0;
    assert!((adjusted("c2") - (5.0 - expected_feb)).abs() < 1e-9);
    assert!((adjusted("c2") - (-5.320857)).abs() < 1e-6);
}

/// In a two-winner Mitchell each line is its own field: two strong N/S pairs (13.0) who
/// split the N/S matchpoints 50/50 against a weak E/W line (34.667) did exactly as
/// expected, and nobody moves. Rated as one field they would all have been expected to
/// score +10.83 % and lost about a unit each.
#[test]
fn a_mitchell_rates_each_line_against_its_own_line() {
    use bridgehcp::dataset::Direction;
    let mut dataset = Dataset::default();
    for id in 1..=8 {
        let mut m = Member::new(id);
        m.masterpoints = if id <= 4 { 300.0 } else { 50.0 };
        dataset.members.push(m);
    }
    let mut c = Competition::new(
        "m1",
        date(2026, 3, 4),
        Format::Pairs,
        ScoringMethod::Matchpoints,
    );
    c.boards = Some(24);
    dataset.competitions.push(c);
    for (entrant, players, direction) in [
        ("1", [1, 2], Direction::NS),
        ("2", [3, 4], Direction::NS),
        ("3", [5, 6], Direction::EW),
        ("4", [7, 8], Direction::EW),
    ] {
        let mut e = Entrant::new("m1", entrant);
        e.players = [Some(players[0]), Some(players[1]), None, None];
        e.direction = Some(direction);
        dataset.entrants.push(e);
        dataset.results.push(EntrantResult {
            competition_id: "m1".into(),
            entrant: entrant.into(),
            boards_played: 24,
            score: 50.0,
            opponent: None,
            origin: Default::default(),
        });
    }
    let output = run(&dataset, Mode::Live, 1);
    for change in &output.replay.changes {
        assert_eq!(change.outcome.expected, 0.0, "{change:?}");
        assert_eq!(change.outcome.delta, 0.0, "{change:?}");
    }
    // Both lines are ranked on their own.
    let ranks: Vec<(String, u32)> = output
        .prepared
        .standings
        .iter()
        .map(|s| (s.entrant.to_owned(), s.rank))
        .collect();
    assert_eq!(
        ranks,
        vec![
            ("1".into(), 1),
            ("2".into(), 1),
            ("3".into(), 1),
            ("4".into(), 1)
        ]
    );
}

/// A team match reported as IMPs won (45–33) rates the same as one reported as net
/// margins (+12/−12): the model sees 12 IMPs over 8 boards either way.
#[test]
fn team_matches_reported_as_imps_won_or_as_margins_rate_the_same() {
    let build = |a: f64, b: f64| {
        let mut dataset = Dataset::default();
        for id in 1..=8 {
            dataset.members.push(Member::new(id));
        }
        let mut c = Competition::new(
            "t1",
            date(2026, 5, 5),
            Format::Teams,
            ScoringMethod::TeamImps,
        );
        c.boards = Some(8);
        dataset.competitions.push(c);
        for (team, players, score, opponent) in
            [("A", [1, 2, 3, 4], a, "B"), ("B", [5, 6, 7, 8], b, "A")]
        {
            let mut e = Entrant::new("t1", team);
            e.players = [
                Some(players[0]),
                Some(players[1]),
                Some(players[2]),
                Some(players[3]),
            ];
            dataset.entrants.push(e);
            dataset.results.push(EntrantResult {
                competition_id: "t1".into(),
                entrant: team.into(),
                boards_played: 8,
                score,
                opponent: Some(opponent.into()),
                origin: Default::default(),
            });
        }
        dataset
    };
    let won = run(&build(45.0, 33.0), Mode::Live, 1);
    let net = run(&build(12.0, -12.0), Mode::Live, 1);
    assert_eq!(fingerprint(&won)[..8 * 3], fingerprint(&net)[..8 * 3]);
    // Equal teams (all 52.0): expected 0, achieved 12/8 = 1.5 IMPs a board; team A's
    // players move by −(1/480)·(8.1/7)·½·½·12·8·1.5 = −0.086786.
    let first = &won.replay.changes[0];
    assert!((first.outcome.achieved - 1.5).abs() < 1e-12);
    assert!(
        (first.outcome.delta - (-(1.0 / 480.0) * (8.1 / 7.0) * 0.25 * 12.0 * 8.0 * 1.5)).abs()
            < 1e-12
    );
    // Scores that are neither are an error naming the column: the match is left out,
    // or with --strict the run stops.
    let output = pipeline::run(&build(-3.0, 5.0), &RunSettings::default(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(output.replay.changes.is_empty());
    assert_eq!(output.summary.competitions_quarantined, 1);
    let reason = &output.quarantined[0].reasons[0];
    assert_eq!(reason.location.column.as_deref(), Some("score"));
    assert!(reason.rule.contains("net margins"), "{}", reason.rule);
    let strict = RunSettings {
        on_error: OnError::Strict,
        ..RunSettings::default()
    };
    let error = pipeline::run(&build(-3.0, 5.0), &strict, None)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        error.contains("score") && error.contains("net margins"),
        "{error}"
    );
}

/// When a club sends both table results and its own totals, the board rows are scored
/// and the totals are held to them: they must name the same entrants and boards played
/// (a wrong count is an error naming the results row and column). Totals that differ
/// are the officer's choice (`Rate`): by default the published one is rated, with
/// `Rate::Recomputed` the board rows' own; totals that agree rate the same either way.
#[test]
fn reported_results_are_checked_against_the_board_rows() {
    let mut dataset = small_federation(11);
    let competition = dataset
        .competitions
        .iter()
        .find(|c| {
            c.rated
                && c.scoring == ScoringMethod::Matchpoints
                && c.format == Format::Pairs
                && dataset
                    .boards
                    .iter()
                    .any(|b| b.competition_id == c.competition_id)
        })
        .cloned()
        .unwrap();
    let entrants: Vec<&Entrant> = dataset
        .entrants
        .iter()
        .filter(|e| e.competition_id == competition.competition_id)
        .collect();
    let boards: Vec<_> = dataset
        .boards
        .iter()
        .filter(|b| b.competition_id == competition.competition_id)
        .collect();
    let scored = bridgehcp::scoring::score_competition(&competition, &entrants, &boards).unwrap();
    let mut reported = scored.results.clone();
    for (row, result) in reported.iter_mut().enumerate() {
        result.origin = bridgehcp::dataset::Origin::new(
            &std::sync::Arc::from(std::path::Path::new("results.csv")),
            row + 1,
        );
    }
    dataset.results.extend(reported.iter().cloned());
    let rated = |dataset: &Dataset, rate: Rate| {
        let settings = RunSettings {
            rate,
            ..RunSettings::default()
        };
        let output =
            pipeline::run(dataset, &settings, None).unwrap_or_else(|e| panic!("run failed: {e}"));
        assert!(output.quarantined.is_empty());
        output
            .states
            .iter()
            .map(|s| s.handicap)
            .collect::<Vec<f64>>()
    };
    // Totals that agree: one result, whichever is chosen.
    let agreed = rated(&dataset, Rate::Published);
    assert_eq!(agreed, rated(&dataset, Rate::Recomputed));

    let wrong = dataset
        .results
        .iter_mut()
        .find(|r| r.competition_id == competition.competition_id)
        .unwrap();
    wrong.score += 1.0;
    let published = rated(&dataset, Rate::Published);
    let recomputed = rated(&dataset, Rate::Recomputed);
    assert_ne!(
        published, recomputed,
        "a different published total rates differently"
    );
    assert_eq!(
        recomputed, agreed,
        "the recomputed result ignores the published one"
    );
    assert_eq!(
        rated(&dataset, RunSettings::default().rate),
        published,
        "the default is the published result"
    );

    let wrong = dataset
        .results
        .iter_mut()
        .find(|r| r.competition_id == competition.competition_id)
        .unwrap();
    wrong.boards_played += 1;
    let strict = RunSettings {
        on_error: OnError::Strict,
        ..RunSettings::default()
    };
    let error = pipeline::run(&dataset, &strict, None)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        error.contains("results.csv, row 1, column `boards_played`"),
        "{error}"
    );
    assert!(error.contains("does not match the board rows"), "{error}");
}

fn run_with(dataset: &Dataset, factors: bridgehcp::model::FactorSet) -> RunOutput {
    let settings = RunSettings {
        factors,
        ..RunSettings::default()
    };
    pipeline::run(dataset, &settings, None).unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// The factor set's options reach the replay: a class weight doubles a competition's
/// changes, separate per-method handicaps move only the method played, and an inactive
/// member drifts upwards before the competition that ends the gap.
#[test]
fn factor_set_options_reach_the_replay() {
    let base = two_pair_months(&[(1, 62.0)]);
    let plain = run_with(&base, Default::default());
    let plain_delta = plain.replay.changes[0].outcome.delta;

    let mut final_class = base.clone();
    final_class.competitions[0].class = Some("final".into());
    let mut weighted = bridgehcp::model::FactorSet::default();
    weighted.class_weights.insert("final".into(), 2.0);
    let doubled = run_with(&final_class, weighted);
    assert!((doubled.replay.changes[0].outcome.delta - 2.0 * plain_delta).abs() < 1e-12);

    let separate = bridgehcp::model::FactorSet {
        separate_by_method: true,
        ..Default::default()
    };
    let tracks = run_with(&base, separate);
    let state = &tracks.states[0];
    assert_eq!(state.handicap.to_bits(), state.handicap_topscore.to_bits());
    assert_eq!(state.handicap_imp, 13.0);
    assert!(state.handicap < 13.0);

    // Played in January 2026 and again in May 2027: 484 days, 119 past the 365-day
    // threshold, is 3 completed months of 30.4375 days: +1.5 before the May event.
    let mut gap = two_pair_months(&[(1, 50.0)]);
    let mut later = two_pair_months(&[(5, 50.0)]);
    later.competitions[0].competition_id = "late".into();
    later.competitions[0].date = date(2027, 5, 10);
    for e in &mut later.entrants {
        e.competition_id = "late".into();
    }
    for r in &mut later.results {
        r.competition_id = "late".into();
    }
    gap.competitions.extend(later.competitions);
    gap.entrants.extend(later.entrants);
    gap.results.extend(later.results);
    let drifting = bridgehcp::model::FactorSet {
        inactivity: Some(bridgehcp::model::factors::InactivityDrift {
            after_days: 365,
            per_month: 0.5,
            max_total: 5.0,
        }),
        ..Default::default()
    };
    let drifted = run_with(&gap, drifting);
    let late = drifted
        .replay
        .changes
        .iter()
        .find(|c| {
            drifted.prepared.competitions[c.competition].competition_id == "late"
                && c.member_id == 1
        })
        .unwrap();
    let after_january = drifted
        .replay
        .changes
        .iter()
        .find(|c| c.competition == 0 && c.member_id == 1)
        .unwrap()
        .handicap_after;
    assert!((late.outcome.handicap_before - (after_january + 1.5)).abs() < 1e-12);
}

/// Frozen mode sums a month's changes and caps once at month end, for the per-method
/// handicaps as for the combined one. A beginner pair at the cap (52) first does worse
/// than expected (+0.588, held at 52 if capped at once) and then better (−1.551):
/// summed, the month ends at 52 + 0.588 − 1.551 = 51.037, not at 50.449.
#[test]
fn frozen_months_cap_once_for_every_handicap() {
    let mut dataset = two_pair_months(&[(1, 75.0), (1, 55.0)]);
    for member in &mut dataset.members {
        if member.member_id >= 3 {
            member.masterpoints = 0.0;
        }
    }
    let factors = bridgehcp::model::FactorSet {
        separate_by_method: true,
        ..Default::default()
    };
    let settings = RunSettings {
        factors,
        mode: Mode::Frozen,
        ..RunSettings::default()
    };
    let output = pipeline::run(&dataset, &settings, None).unwrap();
    let beginner = &output.states[2];
    let rate = (1.0 / 480.0) * (24.6 / 23.0) * 2.0 * 24.0;
    let expected = -(52.0 - 13.0) / 2.0;
    let d1 = -rate * (-25.0 - expected);
    let d2 = -rate * (-5.0 - expected);
    assert!((beginner.handicap - (52.0 + d1 + d2)).abs() < 1e-12);
    assert!((beginner.handicap - 51.037).abs() < 1e-3);
    assert_eq!(
        beginner.handicap_topscore.to_bits(),
        beginner.handicap.to_bits()
    );
    assert_eq!(beginner.handicap_imp, 52.0);
}

/// Summed cross-IMPs (Ruter) reach the model divided board by board by that board's own
/// number of comparisons. Six pairs, A-C N/S and D-F E/W; board 1 is played at three
/// tables (A-D 420, B-E 170, C-F −100), board 2 at two (A-E 620, B-F 170).
/// Board 1, A: 420 − 170 = 250 → 6 IMPs, 420 + 100 = 520 → 11, summed 17 over 2
/// comparisons = 8.5. B: −6 + 7 (270) = 1 → 0.5. Board 2, A: 450 → 10 over 1 comparison.
/// So A's model result is (8.5 + 10)/2 = 9.25 IMPs per board and B's (0.5 − 10)/2 = −4.75,
/// where dividing the sums (27 and −9 over 2 boards) by the mean comparisons 1.5 would
/// give 9.0 and −3.0.
#[test]
fn summed_cross_imps_are_divided_per_board() {
    use bridgehcp::dataset::BoardResult;
    use bridgehcp::scoring::conventions::ImpAggregate;
    let mut dataset = Dataset::default();
    for id in 1..=12 {
        dataset.members.push(Member::new(id));
    }
    let mut c = Competition::new(
        "x",
        date(2026, 1, 10),
        Format::Pairs,
        ScoringMethod::CrossImps,
    );
    c.conventions.imp_aggregate = ImpAggregate::Sum;
    dataset.competitions.push(c);
    for (i, name) in ["A", "B", "C", "D", "E", "F"].iter().enumerate() {
        let mut e = Entrant::new("x", *name);
        let first = 2 * i as i64 + 1;
        e.players = [Some(first), Some(first + 1), None, None];
        dataset.entrants.push(e);
    }
    for (board, ns, ew, score) in [
        (1, "A", "D", 420),
        (1, "B", "E", 170),
        (1, "C", "F", -100),
        (2, "A", "E", 620),
        (2, "B", "F", 170),
    ] {
        dataset.boards.push(BoardResult {
            competition_id: "x".into(),
            board,
            ns: Some(ns.into()),
            ew: Some(ew.into()),
            ns_score: Some(score),
            ..BoardResult::default()
        });
    }
    let output = run(&dataset, Mode::Live, 1);
    let achieved = |member: i64| {
        output
            .replay
            .changes
            .iter()
            .find(|c| c.member_id == member)
            .map(|c| c.outcome.achieved)
            .unwrap_or(f64::NAN)
    };
    assert!((achieved(1) - 9.25).abs() < 1e-12, "{}", achieved(1));
    assert!((achieved(3) - (-4.75)).abs() < 1e-12, "{}", achieved(3));
    // The standings keep the program's sums: A 17 + 10 = 27.
    let a = output
        .prepared
        .standings
        .iter()
        .find(|s| s.entrant == "A")
        .map_or(f64::NAN, |s| s.score);
    assert!((a - 27.0).abs() < 1e-12);
}

/// The inactivity drift is the member's: it applies to the per-method handicaps as to the
/// combined one, in live and in frozen mode, and to the method not played too. Member 1
/// (13.0) plays topscore in January 2026 and May 2027: 484 days, 3 completed months past
/// the 365-day threshold, +1.5 before May. Its IMP handicap, never played, ends at
/// 13 + 1.5 = 14.5; its topscore handicap follows the combined one bit for bit.
#[test]
fn inactivity_drift_reaches_the_per_method_handicaps() {
    let mut gap = two_pair_months(&[(1, 50.0)]);
    let mut later = two_pair_months(&[(5, 50.0)]);
    later.competitions[0].competition_id = "late".into();
    later.competitions[0].date = date(2027, 5, 10);
    for e in &mut later.entrants {
        e.competition_id = "late".into();
    }
    for r in &mut later.results {
        r.competition_id = "late".into();
    }
    gap.competitions.extend(later.competitions);
    gap.entrants.extend(later.entrants);
    gap.results.extend(later.results);
    let factors = bridgehcp::model::FactorSet {
        separate_by_method: true,
        inactivity: Some(bridgehcp::model::factors::InactivityDrift {
            after_days: 365,
            per_month: 0.5,
            max_total: 5.0,
        }),
        ..Default::default()
    };
    for mode in [Mode::Live, Mode::Frozen] {
        let settings = RunSettings {
            factors: factors.clone(),
            mode,
            ..RunSettings::default()
        };
        let output = pipeline::run(&gap, &settings, None).unwrap();
        let state = &output.states[0];
        assert!((state.handicap_imp - 14.5).abs() < 1e-12, "{mode:?}");
        assert_eq!(
            state.handicap_topscore.to_bits(),
            state.handicap.to_bits(),
            "{mode:?}"
        );
        // January: expected (34.667 − 13)/2 = 10.833, scored 0: Δ = +(24.6/23)·0.1·10.833
        // = 1.158696; May opens at 13 + 1.158696 + 1.5.
        let late = output
            .replay
            .changes
            .iter()
            .find(|c| c.competition == 1 && c.member_id == 1)
            .unwrap();
        let january = (24.6 / 23.0) * 0.1 * (52.0 / 1.5 - 13.0) / 2.0;
        assert!((late.outcome.handicap_before - (13.0 + january + 1.5)).abs() < 1e-12);
    }
}

/// A substitute (member 5) plays for pair 1 all 24 boards and for pair 2 the last 12, in
/// one session. Every member starts at 52/(1 + 0.01·300) = 13, so every pair's expected
/// result is 0 and each gap is its own: Δ = −(1/480)·(24.6/23)·1·1·2·N_G·(r − 0).
/// Pair 1 scored 60 % (r = +10, N_G = 24): Δ = −1.069565; pair 2 scored 46 % (r = −4,
/// N_G = 12): Δ = +0.213913. Both changes are taken against the handicaps before the
/// session and applied in entrant order: member 5 goes 13 → 11.930435 → 12.144348, with
/// 36 boards and one competition behind it; member 1 (pair 1) ends at 11.930435.
#[test]
fn a_substitute_who_plays_for_two_pairs_moves_for_each() {
    let mut dataset = Dataset::default();
    for id in 1..=8 {
        let mut m = Member::new(id);
        m.masterpoints = 300.0;
        dataset.members.push(m);
    }
    let mut c = Competition::new(
        "c1",
        date(2026, 3, 5),
        Format::Pairs,
        ScoringMethod::Matchpoints,
    );
    c.boards = Some(24);
    dataset.competitions.push(c);
    for (entrant, players, boards_played, score) in [
        ("1", [1, 5], 24, 60.0),
        ("2", [2, 5], 12, 46.0),
        ("3", [3, 4], 24, 50.0),
        ("4", [6, 7], 24, 44.0),
    ] {
        let mut e = Entrant::new("c1", entrant);
        e.players = [Some(players[0]), Some(players[1]), None, None];
        dataset.entrants.push(e);
        dataset.results.push(EntrantResult {
            competition_id: "c1".into(),
            entrant: entrant.into(),
            boards_played,
            score,
            opponent: None,
            origin: Default::default(),
        });
    }
    let w = 24.6 / 23.0;
    let delta = |n_g: f64, r: f64| -(1.0 / 480.0) * w * 2.0 * n_g * r;
    for mode in [Mode::Live, Mode::Frozen] {
        let out = run(&dataset, mode, 1);
        assert!(out.quarantined.is_empty(), "{:?}", out.quarantined);
        let rows: Vec<_> = out
            .replay
            .changes
            .iter()
            .filter(|c| c.member_id == 5)
            .collect();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].entrant, rows[1].entrant), (0, 1));
        assert!((rows[0].outcome.delta - delta(24.0, 10.0)).abs() < 1e-12);
        assert!((rows[0].outcome.delta - -1.069_565_217_391).abs() < 1e-9);
        assert!((rows[1].outcome.delta - delta(12.0, -4.0)).abs() < 1e-12);
        assert!((rows[1].outcome.delta - 0.213_913_043_478).abs() < 1e-9);
        let index = |id: i64| {
            out.registry
                .members
                .iter()
                .position(|m| m.member_id == id)
                .unwrap()
        };
        let five = &out.states[index(5)];
        assert!(
            (five.handicap - 12.144_347_826_087).abs() < 1e-9,
            "{mode:?}"
        );
        assert_eq!((five.boards, five.competitions), (36, 1));
        assert!((out.states[index(1)].handicap - 11.930_434_782_609).abs() < 1e-9);
        if mode == Mode::Live {
            assert!((rows[1].outcome.handicap_before - 11.930_434_782_609).abs() < 1e-9);
            assert!((rows[1].handicap_after - 12.144_347_826_087).abs() < 1e-9);
        }
    }
}
