//! Invariants of the generated federation: validity of every table, the mix of formats
//! and scorings, determinism, and size.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::play::contract_level;
use super::*;
use crate::dataset::{Format, MemberKind, ScoringMethod};
use crate::scoring::contract::MAX_TRICKS;

/// Every rule docs/data.md puts on a dataset; returns the first
/// violation found.
fn check_valid(ds: &Dataset) -> Result<(), String> {
    let mut member_ids = HashSet::new();
    for m in &ds.members {
        if !member_ids.insert(m.member_id) {
            return Err(format!("member {} twice", m.member_id));
        }
    }
    let mut comps = BTreeMap::new();
    for c in &ds.competitions {
        if comps.insert(c.competition_id.as_str(), c).is_some() {
            return Err(format!("competition {} twice", c.competition_id));
        }
    }
    let mut entrants: BTreeMap<(&str, &str), &crate::dataset::Entrant> = BTreeMap::new();
    let mut players_in: BTreeMap<&str, HashSet<i64>> = BTreeMap::new();
    for e in &ds.entrants {
        let Some(c) = comps.get(e.competition_id.as_str()) else {
            return Err(format!(
                "entrant of unknown competition {}",
                e.competition_id
            ));
        };
        if entrants
            .insert((e.competition_id.as_str(), e.entrant.as_str()), e)
            .is_some()
        {
            return Err(format!(
                "entrant {} twice in {}",
                e.entrant, e.competition_id
            ));
        }
        let slots: Vec<bool> = e.players.iter().map(Option::is_some).collect();
        let expected = match (c.format, c.scoring) {
            (Format::Individual, _) => [true, false, false, false],
            (Format::Teams, ScoringMethod::TeamImps) => [true; 4],
            _ => [true, true, false, false],
        };
        if slots != expected {
            return Err(format!(
                "entrant {} of {}: players {:?}",
                e.entrant, e.competition_id, e.players
            ));
        }
        if c.format == Format::Teams
            && c.scoring != ScoringMethod::TeamImps
            && (e.team.is_none() || e.direction.is_none())
        {
            return Err(format!(
                "pair {} of team event {} lacks team or direction",
                e.entrant, e.competition_id
            ));
        }
        let seen = players_in.entry(e.competition_id.as_str()).or_default();
        for p in e.player_ids() {
            if !seen.insert(p) {
                return Err(format!("player {p} twice in {}", e.competition_id));
            }
        }
    }
    let known = |c: &str, e: Option<&str>| e.is_some_and(|e| entrants.contains_key(&(c, e)));
    let mut with_boards = BTreeSet::new();
    for b in &ds.boards {
        let Some(c) = comps.get(b.competition_id.as_str()) else {
            return Err(format!(
                "board row of unknown competition {}",
                b.competition_id
            ));
        };
        with_boards.insert(b.competition_id.as_str());
        let id = b.competition_id.as_str();
        let seats_ok = if c.format == Format::Individual {
            [&b.north, &b.south, &b.east, &b.west]
                .iter()
                .all(|s| known(id, s.as_deref()))
                && b.ns.is_none()
        } else {
            known(id, b.ns.as_deref()) && known(id, b.ew.as_deref()) && b.ns != b.ew
        };
        if !seats_ok {
            return Err(format!(
                "board {} of {} names unknown entrants",
                b.board, id
            ));
        }
        if b.board < 1 || c.boards.is_some_and(|n| b.board > n) {
            return Err(format!("board {} of {} out of range", b.board, id));
        }
        if b.ns_score.is_some() {
            return Err("ns_score is left to the scoring engine".into());
        }
        match (&b.contract, &b.adjusted) {
            (None, Some(a))
                if ["A6040", "A5050", "A4060", "A6060", "A4040"].contains(&a.as_str()) => {}
            (Some(contract), None) => match contract_level(contract) {
                None => return Err(format!("illegal contract {contract}")),
                Some(None) if b.declarer.is_some() || b.tricks.is_some() => {
                    return Err("passed-out board with declarer or tricks".into())
                }
                Some(None) => {}
                Some(Some(_)) => {
                    if b.tricks.is_none_or(|t| t > MAX_TRICKS) {
                        return Err(format!("tricks {:?}", b.tricks));
                    }
                    if !b
                        .declarer
                        .as_deref()
                        .is_some_and(|d| ["N", "E", "S", "W"].contains(&d))
                    {
                        return Err(format!("declarer {:?}", b.declarer));
                    }
                }
            },
            other => {
                return Err(format!(
                    "board row neither contract nor adjusted: {other:?}"
                ))
            }
        }
    }
    // (competition, board, ns) or individual seats played once per table and board.
    let mut tables = HashSet::new();
    for b in &ds.boards {
        let who = b.ns.clone().or(b.north.clone());
        if !tables.insert((b.competition_id.as_str(), b.board, who, b.room.clone())) {
            return Err(format!(
                "board {} of {} played twice by one table",
                b.board, b.competition_id
            ));
        }
    }
    let mut with_results = BTreeSet::new();
    for r in &ds.results {
        let id = r.competition_id.as_str();
        with_results.insert(id);
        if !entrants.contains_key(&(id, r.entrant.as_str())) {
            return Err(format!("result of unknown entrant {} in {id}", r.entrant));
        }
        if r.opponent.is_some() && !known(id, r.opponent.as_deref()) {
            return Err(format!("result opponent unknown in {id}"));
        }
        if !r.score.is_finite() {
            return Err(format!("score {} in {id}", r.score));
        }
    }
    for id in comps.keys() {
        if with_boards.contains(id) == with_results.contains(id) {
            return Err(format!(
                "competition {id} must have boards or results, not both or neither"
            ));
        }
        if !players_in.contains_key(id) {
            return Err(format!("competition {id} has no entrants"));
        }
    }
    Ok(())
}

fn default_dataset() -> &'static Dataset {
    static DS: std::sync::OnceLock<Dataset> = std::sync::OnceLock::new();
    DS.get_or_init(|| generate(&SynthConfig::default()))
}

#[test]
fn default_federation_is_valid() {
    check_valid(default_dataset()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn same_config_same_dataset_other_seed_differs() {
    let config = SynthConfig {
        members: 80,
        months: 4,
        ..SynthConfig::default()
    };
    let a = generate(&config);
    let b = generate(&config);
    assert_eq!(a, b);
    let c = generate(&SynthConfig {
        seed: 2027,
        ..config
    });
    assert_ne!(a.members, c.members);
    assert_ne!(a.boards, c.boards);
}

#[test]
fn thread_count_does_not_matter() {
    let config = SynthConfig {
        members: 80,
        months: 6,
        ..SynthConfig::default()
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map(|pool| pool.install(|| generate(&config)));
    let three = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .map(|pool| pool.install(|| generate(&config)));
    assert_eq!(one.ok(), three.ok());
}

#[test]
fn every_format_and_scoring_is_present() {
    let ds = default_dataset();
    let with_boards: HashSet<&str> = ds
        .boards
        .iter()
        .map(|b| b.competition_id.as_str())
        .collect();
    let kinds: BTreeSet<(Format, ScoringMethod, bool)> = ds
        .competitions
        .iter()
        .map(|c| {
            (
                c.format,
                c.scoring,
                with_boards.contains(c.competition_id.as_str()),
            )
        })
        .collect();
    for (f, s) in [
        (Format::Pairs, ScoringMethod::Matchpoints),
        (Format::Pairs, ScoringMethod::CrossImps),
        (Format::Pairs, ScoringMethod::Butler),
        (Format::Individual, ScoringMethod::Matchpoints),
        (Format::Teams, ScoringMethod::TeamImps),
        (Format::Teams, ScoringMethod::CrossImps),
    ] {
        for board_level in [true, false] {
            assert!(
                kinds.contains(&(f, s, board_level)),
                "{f} {s} board-level {board_level} missing"
            );
        }
    }
    let comps = &ds.competitions;
    assert!(comps.iter().any(|c| c.handicap_event));
    assert!(comps.iter().any(|c| !c.rated));
    assert!(comps.iter().any(|c| c.class.is_some()));
    let mut dates: BTreeMap<(Option<&str>, chrono::NaiveDate), BTreeSet<i32>> = BTreeMap::new();
    for c in comps {
        dates
            .entry((c.club.as_deref(), c.date))
            .or_default()
            .insert(c.session);
    }
    assert!(
        dates.values().any(|s| s.len() >= 2),
        "several sessions on one date"
    );
    let members: HashSet<i64> = ds.members.iter().map(|m| m.member_id).collect();
    let foreign: HashSet<i64> = ds
        .members
        .iter()
        .filter(|m| m.kind == MemberKind::Foreign)
        .map(|m| m.member_id)
        .collect();
    let players: Vec<i64> = ds.entrants.iter().flat_map(|e| e.player_ids()).collect();
    assert!(
        players.iter().any(|p| !members.contains(p)),
        "non-members play"
    );
    assert!(
        players.iter().any(|p| foreign.contains(p)),
        "foreign guests play"
    );
    assert!(ds.members.iter().any(|m| m.start_handicap.is_some()));
    assert!(ds
        .boards
        .iter()
        .any(|b| b.contract.as_deref() == Some("PASS")));
    assert!(ds
        .boards
        .iter()
        .any(|b| b.contract.as_deref().is_some_and(|c| c.ends_with('X'))));
    assert!(ds.boards.iter().any(|b| b.adjusted.is_some()));
    assert!(
        ds.entrants
            .iter()
            .any(|e| e.direction.is_some() && e.team.is_none()),
        "a Mitchell"
    );
}

#[test]
fn matchpoints_dominate_and_board_level_share_matches() {
    let ds = default_dataset();
    let events = |f: fn(&crate::dataset::Competition) -> bool| {
        ds.competitions.iter().filter(|c| f(c)).count()
    };
    let pairs_mp = events(|c| c.format == Format::Pairs && c.scoring == ScoringMethod::Matchpoints);
    let pairs = events(|c| c.format == Format::Pairs);
    assert!(
        pairs_mp * 2 > pairs,
        "most pairs events are matchpoints: {pairs_mp} of {pairs}"
    );
    // Events (a team day counts once) are board-level with probability 0.6; competitions
    // of one event share the kind, so count by (club, date).
    let with_boards: HashSet<&str> = ds
        .boards
        .iter()
        .map(|b| b.competition_id.as_str())
        .collect();
    let share = ds
        .competitions
        .iter()
        .filter(|c| with_boards.contains(c.competition_id.as_str()))
        .count() as f64
        / ds.competitions.len() as f64;
    assert!((share - 0.6).abs() < 0.1, "board-level share {share}");
}

#[test]
fn reported_results_balance_over_the_field() {
    let ds = default_dataset();
    let comps: BTreeMap<&str, &crate::dataset::Competition> = ds
        .competitions
        .iter()
        .map(|c| (c.competition_id.as_str(), c))
        .collect();
    let mut by_comp: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for r in &ds.results {
        by_comp
            .entry(r.competition_id.as_str())
            .or_default()
            .push(r.score);
    }
    let mut checked = 0;
    for (id, scores) in by_comp {
        let Some(c) = comps.get(id) else { continue };
        let n = scores.len() as f64;
        let mean = scores.iter().sum::<f64>() / n;
        match (c.format, c.scoring) {
            (_, ScoringMethod::Matchpoints) => {
                // Rounded to 2 decimals: the mean is within half a hundredth of 50.
                assert!((mean - 50.0).abs() <= 0.005 + 1e-9, "{id}: mean {mean}");
                assert!(scores
                    .iter()
                    .all(|s| (5.0 - 1e-9..=95.0 + 1e-9).contains(s)));
                checked += 1;
            }
            (_, ScoringMethod::CrossImps) => {
                // Rounded to a tenth (sum) or a hundredth (average).
                assert!(mean.abs() <= 0.05 + 1e-9, "{id}: mean {mean}");
                checked += 1;
            }
            (_, ScoringMethod::Butler | ScoringMethod::SwissPairs) => {
                assert!(mean.abs() <= 0.5 + 1e-9, "{id}: mean {mean}")
            }
            (_, ScoringMethod::TeamImps) => {
                assert!(scores.iter().all(|s| *s >= 0.0 && s.fract() == 0.0))
            }
        }
    }
    assert!(checked > 20);
}

#[test]
fn stronger_pairs_score_better_in_reported_results() {
    let config = SynthConfig {
        board_level_share: 0.0,
        ..SynthConfig::default()
    };
    let fed = Federation::new(&config);
    let ds = generate(&config);
    let entrants: BTreeMap<(&str, &str), &crate::dataset::Entrant> = ds
        .entrants
        .iter()
        .map(|e| ((e.competition_id.as_str(), e.entrant.as_str()), e))
        .collect();
    let pairs_mp: HashSet<&str> = ds
        .competitions
        .iter()
        .filter(|c| c.format == Format::Pairs && c.scoring == ScoringMethod::Matchpoints)
        .map(|c| c.competition_id.as_str())
        .collect();
    let points: Vec<(f64, f64)> = ds
        .results
        .iter()
        .filter(|r| pairs_mp.contains(r.competition_id.as_str()))
        .filter_map(|r| {
            let e = entrants.get(&(r.competition_id.as_str(), r.entrant.as_str()))?;
            let lv: Vec<f64> = e
                .player_ids()
                .filter_map(|p| fed.true_handicap(p))
                .collect();
            (lv.len() == 2).then(|| ((lv[0] + lv[1]) / 2.0, r.score))
        })
        .collect();
    let n = points.len() as f64;
    let (mx, my) = (
        points.iter().map(|p| p.0).sum::<f64>() / n,
        points.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let slope = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum::<f64>()
        / points.iter().map(|(x, _)| (x - mx).powi(2)).sum::<f64>();
    // The model's 0.5 % per handicap unit, diluted a little by the field mean moving with
    // the pair (the others' mean excludes the pair itself).
    assert!((-0.6..-0.4).contains(&slope), "slope {slope} % per unit");
}

#[test]
fn default_fits_the_size_budget() {
    let ds = default_dataset();
    let rows = ds.members.len()
        + ds.competitions.len()
        + ds.entrants.len()
        + ds.results.len()
        + ds.boards.len();
    // About 30 bytes a row as Parquet; the brief asks for well under 5 MB.
    assert!(rows * 30 < 3_000_000, "{rows} rows");
    assert!(ds.boards.len() > 10_000, "{} board rows", ds.boards.len());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    #[test]
    fn small_federations_are_valid(seed in proptest::prelude::any::<u64>(), members in 0usize..90, clubs in 1usize..5, months in 1u32..4) {
        let config = SynthConfig { seed, members, clubs, months, ..SynthConfig::default() };
        let ds = generate(&config);
        proptest::prop_assert_eq!(check_valid(&ds), Ok(()));
    }
}

/// Swiss pairs congresses: seven 8-board or six 9-board rounds, every round a match
/// between the two pairs at each table, nobody meeting anyone twice, a house pair
/// exactly when the entry is odd, and every board-level congress scoring cleanly.
#[test]
fn swiss_congresses_are_drawn_and_score() {
    let config = SynthConfig {
        members: 200,
        clubs: 3,
        months: 4,
        mix: EventMix {
            swiss_pairs: 0.5,
            ..EventMix::default()
        },
        ..SynthConfig::default()
    };
    let ds = generate(&config);
    assert_eq!(check_valid(&ds), Ok(()));
    let swiss: Vec<&crate::dataset::Competition> = ds
        .competitions
        .iter()
        .filter(|c| c.scoring == ScoringMethod::SwissPairs)
        .collect();
    let mut with_boards = 0;
    let mut houses = 0;
    for c in &swiss {
        let id = c.competition_id.as_str();
        let entrants: Vec<&crate::dataset::Entrant> = ds
            .entrants
            .iter()
            .filter(|e| e.competition_id == id)
            .collect();
        let house = entrants.iter().filter(|e| e.house).count();
        assert_eq!(house, entrants.len() % 2, "{id}: one house pair when odd");
        houses += house;
        let rows: Vec<&crate::dataset::BoardResult> = ds
            .boards
            .iter()
            .filter(|b| b.competition_id == id)
            .collect();
        if rows.is_empty() {
            continue;
        }
        with_boards += 1;
        let per_round = if entrants.len() < 12 { 9 } else { 8 };
        let mut met: BTreeSet<(String, String)> = BTreeSet::new();
        let mut tables: BTreeSet<(u32, String, String)> = BTreeSet::new();
        for b in &rows {
            let (ns, ew) = (
                b.ns.as_deref().unwrap_or_default().to_string(),
                b.ew.as_deref().unwrap_or_default().to_string(),
            );
            let round = b.round.unwrap_or(0);
            assert_eq!(
                (b.board - 1) / per_round + 1,
                round,
                "{id}: board {}",
                b.board
            );
            tables.insert((round, ns, ew));
        }
        for (round, ns, ew) in &tables {
            let pair = if ns < ew {
                (ns.clone(), ew.clone())
            } else {
                (ew.clone(), ns.clone())
            };
            assert!(
                met.insert(pair),
                "{id}: {ns} and {ew} meet again in round {round}"
            );
        }
        let scored = crate::scoring::score_competition(c, &entrants, &rows)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(scored.standings.iter().all(|s| s.vp.is_some()));
        assert_eq!(
            scored.standings.iter().filter(|s| s.house).count(),
            house,
            "{id}"
        );
    }
    assert!(with_boards >= 3, "{with_boards} congresses with board rows");
    assert!(houses >= 1, "no odd entry among {} congresses", swiss.len());
}
