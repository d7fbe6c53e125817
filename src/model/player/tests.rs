//! One player's update with each option of the factor set, against numbers worked by
//! hand from the formulas of `update` and the factor set's docs.

use super::*;
use crate::model::factors::{Confidence, InactivityDrift, Kalman, Partnership};
use crate::model::FieldKind;

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    match NaiveDate::from_ymd_opt(y, m, d) {
        Some(date) => date,
        None => panic!("bad date {y}-{m}-{d}"),
    }
}

/// 24 boards of a topscore pairs event, all played.
fn pairs_24() -> CompetitionInput {
    CompetitionInput {
        n_boards: 24,
        method: CalcMethod::Topscore,
        kind: FieldKind::Pairs,
        weight_multiplier: 1.0,
        entrants: Vec::new(),
    }
}

/// The share 24 of 24 boards move a handicap in `fsb-2007`: g = (24.6/23)·24/480.
const G: f64 = 24.6 / 23.0 * 24.0 / 480.0;

/// An outcome 10 % over expected from `before`: the level shown is 10·C_b = 20 units
/// below the handicap, so the set's `Δh = −g·20 = −1.069565`.
fn ten_over(before: f64, partner: f64) -> PlayerOutcome {
    let delta = -G * 20.0;
    PlayerOutcome {
        entrant: 0,
        member_id: 7,
        handicap_before: before,
        partner_handicap: Some(partner),
        pair_handicap: (before + partner) / 2.0,
        field_handicap: 30.0,
        expected: 0.0,
        achieved: 10.0,
        n_b: 24,
        n_g: 24,
        delta,
        handicap_after: before + delta,
        updated: true,
    }
}

fn played<'a>(
    input: &'a CompetitionInput,
    outcome: &'a PlayerOutcome,
    on: NaiveDate,
) -> Played<'a> {
    Played {
        date: on,
        input,
        outcome,
        by_method: None,
        partner_is_member: true,
        partner_variance: None,
        again: false,
        boards_before: 1000,
        apply: Apply::Now,
    }
}

#[test]
fn the_set_alone_moves_by_the_seeds_delta() {
    let f = FactorSet::default();
    let input = pairs_24();
    let outcome = ten_over(30.0, 30.0);
    let u = update(
        &f,
        &PlayerState::starting(30.0, None),
        &played(&input, &outcome, date(2026, 3, 5)),
    );
    // −(1/480)·(24.6/23)·2·24·10 = −1.0695652.
    assert!((u.outcome.delta - (-1.069_565_2)).abs() < 1e-7);
    assert!((u.handicap_after - 28.930_434_8).abs() < 1e-7);
    assert_eq!(u.outcome.handicap_after, u.handicap_after);
    assert_eq!(u.state.handicap, u.handicap_after);
    assert_eq!(u.state.handicap_sd, None);
    // Not kept per method: the tracks stay where they were.
    assert_eq!(
        (u.state.handicap_topscore, u.state.handicap_imp),
        (30.0, 30.0)
    );
    assert_eq!(u.by_method, None);
}

/// A substitute who sat for two entrants: live, the second outcome starts from the
/// handicap the first left (30 → 28.930435 → 27.860870); the competition counts once,
/// the boards twice.
#[test]
fn a_substitute_applies_twice_in_turn() {
    let f = FactorSet::default();
    let input = pairs_24();
    let outcome = ten_over(30.0, 30.0);
    let on = date(2026, 3, 5);
    let first = update(
        &f,
        &PlayerState::starting(30.0, None),
        &played(&input, &outcome, on),
    );
    let again = Played {
        again: true,
        ..played(&input, &outcome, on)
    };
    let second = update(&f, &first.state, &again);
    assert!((second.outcome.handicap_before - 28.930_434_8).abs() < 1e-7);
    assert!((second.handicap_after - (30.0 - 2.0 * 1.069_565_2)).abs() < 1e-6);
    assert_eq!((second.state.boards, second.state.competitions), (48, 1));
}

/// Frozen: the handicap waits for the month's end, where the two changes of −1.069565
/// are summed (−2.139130) and applied to the opening 30 once; a change that would pass
/// the cap alone is cancelled by the month's other change before the cap applies.
#[test]
fn a_frozen_month_sums_before_the_cap() {
    let f = FactorSet::default();
    let input = pairs_24();
    let outcome = ten_over(30.0, 30.0);
    let on = date(2026, 3, 5);
    let frozen = |again| Played {
        again,
        apply: Apply::AtMonthEnd,
        ..played(&input, &outcome, on)
    };
    let mut states = vec![
        PlayerState::starting(30.0, None),
        PlayerState::starting(51.5, None),
    ];
    let mut month = FrozenMonth::new(2);
    let first = update(&f, &states[0], &frozen(false));
    assert_eq!(first.state.handicap, 30.0);
    states[0] = first.state.clone();
    month.add(0, &first);
    let second = update(&f, &states[0], &frozen(true));
    // The second outcome is taken from the month's opening handicap too.
    assert_eq!(second.outcome.handicap_before, 30.0);
    states[0] = second.state.clone();
    month.add(0, &second);
    month.add_delta(1, 51.5, 1.0);
    month.add_delta(1, 51.5, -1.0);
    month.close(&f, &mut states);
    assert!((states[0].handicap - (30.0 - 2.139_130_4)).abs() < 1e-7);
    assert_eq!(states[1].handicap, 51.5);
    // Closed, the buffers start the next month empty.
    month.add_delta(1, 51.5, 1.0);
    month.close(&f, &mut states);
    assert_eq!(states[1].handicap, 52.0);
}

/// A confidence figure starting at 10, with 140 per board of evidence.
const CONFIDENCE: Confidence = Confidence {
    start_sd: 10.0,
    board_sd: 140.0,
};

/// A member of 30 with the figure 10 who scored ten over the expected result beside a
/// partner of 30 ([`ten_over`]), on 5 March 2026, under `f`.
fn ten_over_with_figure(f: &FactorSet) -> Updated {
    let (input, outcome) = (pairs_24(), ten_over(30.0, 30.0));
    let start = PlayerState::starting(30.0, Some(10.0));
    update(f, &start, &played(&input, &outcome, date(2026, 3, 5)))
}

/// `[kalman]` with sd 10, never played, no drift, 140 per board over 24 boards:
/// P = 100, R = 19600/24, K = 100/916.667 = 0.109091 (see `kalman_step`). The level
/// shown is 20 below the handicap, so the member moves −K·20 = −2.181818 instead of the
/// set's −g·20, and the figure becomes √((1 − K)·100) = 9.438798.
#[test]
fn the_kalman_gain_replaces_the_impact() {
    let f = FactorSet {
        kalman: Some(Kalman {
            drift_per_year: 0.0,
            pairs: false,
            drift_per_session: 0.0,
            max_shown: None,
        }),
        confidence: Some(CONFIDENCE),
        ..FactorSet::default()
    };
    let u = ten_over_with_figure(&f);
    assert!(
        (u.outcome.delta - (-2.181_818)).abs() < 1e-6,
        "{}",
        u.outcome.delta
    );
    assert!((u.handicap_after - 27.818_182).abs() < 1e-6);
    assert!((u.state.handicap_sd.unwrap_or(f64::NAN) - 9.438_798).abs() < 1e-6);
}

/// `[kalman] drift_per_session` 4, no drift per year, sd 10, 140 per board over 24
/// boards: P = 100 + 16 = 116 whether the member last played a week or a year ago,
/// R = 19600/24, K = 116/932.667 = 0.124375, so the member moves −K·20 = −2.487491 and
/// the figure becomes √((1 − K)·116) = 10.078321. A drift of 4 a year instead gives the
/// same step only to the member back after a year, and a week's absence almost nothing
/// (P = 100.307, K = 0.109389).
#[test]
fn the_drift_per_session_grows_the_variance_by_sessions_not_by_days() {
    let per_session = |drift_per_year: f64, drift_per_session: f64| FactorSet {
        kalman: Some(Kalman {
            drift_per_year,
            pairs: false,
            drift_per_session,
            max_shown: None,
        }),
        confidence: Some(CONFIDENCE),
        ..FactorSet::default()
    };
    let (input, outcome) = (pairs_24(), ten_over(30.0, 30.0));
    let on = date(2026, 3, 5);
    let after = |f: &FactorSet, days: u64| {
        let mut start = PlayerState::starting(30.0, Some(10.0));
        start.last_played = on.checked_sub_days(chrono::Days::new(days));
        update(f, &start, &played(&input, &outcome, on))
    };
    for days in [7, 365] {
        let u = after(&per_session(0.0, 4.0), days);
        assert!(
            (u.outcome.delta - (-2.487_491)).abs() < 1e-6,
            "{days}: {}",
            u.outcome.delta
        );
        assert!((u.state.handicap_sd.unwrap_or(f64::NAN) - 10.078_321).abs() < 1e-6);
    }
    // 365 days of a yearly drift of 4: P = 100 + 16·365/365.25 = 115.989.
    let yearly = after(&per_session(4.0, 0.0), 365);
    assert!(
        (yearly.outcome.delta - (-2.487_3)).abs() < 1e-3,
        "{}",
        yearly.outcome.delta
    );
    let week = after(&per_session(4.0, 0.0), 7);
    assert!(
        (week.outcome.delta - (-2.187_7)).abs() < 1e-3,
        "{}",
        week.outcome.delta
    );
}

/// `[kalman] max_shown` 10, with the constants of [`the_kalman_gain_replaces_the_impact`]
/// (K = 0.109091): the level shown 20 below the handicap moves the member as one 10
/// below would, −K·10 = −1.090909 instead of −2.181818, and the figure is the filter's
/// all the same (9.438798). A result 5 below (2.5 % over expected) is within the bound:
/// −K·5 = −0.545455.
#[test]
fn a_result_beyond_max_shown_moves_the_handicap_as_one_at_the_bound() {
    let f = FactorSet {
        kalman: Some(Kalman {
            drift_per_year: 0.0,
            pairs: false,
            drift_per_session: 0.0,
            max_shown: Some(10.0),
        }),
        confidence: Some(CONFIDENCE),
        ..FactorSet::default()
    };
    let u = ten_over_with_figure(&f);
    assert!(
        (u.outcome.delta - (-1.090_909)).abs() < 1e-6,
        "{}",
        u.outcome.delta
    );
    assert!((u.handicap_after - 28.909_091).abs() < 1e-6);
    assert!((u.state.handicap_sd.unwrap_or(f64::NAN) - 9.438_798).abs() < 1e-6);
    let input = pairs_24();
    let mut near = ten_over(30.0, 30.0);
    near.delta /= 4.0;
    near.achieved = 2.5;
    let start = PlayerState::starting(30.0, Some(10.0));
    let u = update(&f, &start, &played(&input, &near, date(2026, 3, 5)));
    assert!(
        (u.outcome.delta - (-0.545_455)).abs() < 1e-6,
        "{}",
        u.outcome.delta
    );
}

/// `[kalman] pairs`: a new member (sd 20, P = 400) beside an established partner
/// (variance 25), 100 per board over 24 boards: `S = 425/4 + 10000/24 = 522.917`,
/// `K = 200/522.917 = 0.382470` (see `kalman_pair_step`); the level shown is 20 below,
/// so the member moves −7.649402, and the figure becomes √(400 − 200²/522.917) =
/// 17.986. Without a partner's variance (a guest beside) the gain is the player's own:
/// `K = 400/(400 + 416.667) = 0.489796`, −9.795918.
#[test]
fn the_pair_kalman_gain_shares_the_result_by_the_partners_variances() {
    let f = FactorSet {
        kalman: Some(Kalman {
            drift_per_year: 0.0,
            pairs: true,
            drift_per_session: 0.0,
            max_shown: None,
        }),
        confidence: Some(Confidence {
            start_sd: 20.0,
            board_sd: 100.0,
        }),
        ..FactorSet::default()
    };
    let input = pairs_24();
    let outcome = ten_over(30.0, 30.0);
    let start = PlayerState::starting(30.0, Some(20.0));
    let with_partner = Played {
        partner_variance: Some(25.0),
        ..played(&input, &outcome, date(2026, 3, 5))
    };
    let u = update(&f, &start, &with_partner);
    assert!(
        (u.outcome.delta - (-7.649_402)).abs() < 1e-5,
        "{}",
        u.outcome.delta
    );
    let sd = u.state.handicap_sd.unwrap_or(f64::NAN);
    assert!(
        (sd - (400.0 - 40_000.0 / 522.916_667f64).sqrt()).abs() < 1e-5,
        "{sd}"
    );
    let alone = update(&f, &start, &played(&input, &outcome, date(2026, 3, 5)));
    assert!(
        (alone.outcome.delta - (-9.795_918)).abs() < 1e-5,
        "{}",
        alone.outcome.delta
    );
}

/// `[confidence]` without `[kalman]`: the set's share g = 0.053478 over 24 boards of
/// evidence at 140 per board: √((1 − g)²·100 + g²·19600/24) = √(89.590 + 2.336) =
/// 9.587802. The handicap moves by the set's Δh.
#[test]
fn the_confidence_figure_follows_the_evidence() {
    let f = FactorSet {
        confidence: Some(CONFIDENCE),
        ..FactorSet::default()
    };
    let u = ten_over_with_figure(&f);
    assert!((u.state.handicap_sd.unwrap_or(f64::NAN) - 9.587_802).abs() < 1e-6);
    assert!((u.outcome.delta - (-1.069_565_2)).abs() < 1e-7);
}

/// `[partnership]` at 0.005 per board: beside a member partner at 20, a member at 30
/// over 24 boards is also pulled −0.06·10 = −0.6 (see `partnership_pull`), so moves
/// −1.669565; beside a guest, only the set's −1.069565.
#[test]
fn a_member_partner_pulls() {
    let f = FactorSet {
        partnership: Some(Partnership {
            pull_per_board: 0.005,
        }),
        ..FactorSet::default()
    };
    let input = pairs_24();
    let outcome = ten_over(30.0, 20.0);
    let on = date(2026, 3, 5);
    let start = PlayerState::starting(30.0, None);
    let u = update(&f, &start, &played(&input, &outcome, on));
    assert!((u.outcome.delta - (-1.669_565_2)).abs() < 1e-7);
    assert!((u.handicap_after - 28.330_434_8).abs() < 1e-7);
    let beside_guest = Played {
        partner_is_member: false,
        ..played(&input, &outcome, on)
    };
    let u = update(&f, &start, &beside_guest);
    assert!((u.outcome.delta - (-1.069_565_2)).abs() < 1e-7);
}

/// Per method with `[inactivity]` (0.5 a month after 365 days, at most 5): a member last
/// seen 465 days before comes back with both per-method handicaps 1.5 higher (3 months
/// of 30.4375 days past the year). The topscore track (24 at first, 25.5 drifted) then
/// moves by its own rating's change, −1.0; the IMP one keeps the drift alone.
#[test]
fn per_method_handicaps_drift_and_follow_their_own_rating() {
    let f = FactorSet {
        separate_by_method: true,
        inactivity: Some(InactivityDrift {
            after_days: 365,
            per_month: 0.5,
            max_total: 5.0,
        }),
        ..FactorSet::default()
    };
    let input = pairs_24();
    // The combined handicap's outcome was rated on the drifted 31.5.
    let outcome = ten_over(31.5, 31.5);
    let mut own = ten_over(25.5, 25.5);
    own.delta = -1.0;
    let on = date(2026, 5, 1);
    let mut start = PlayerState::starting(30.0, None);
    start.handicap_topscore = 24.0;
    start.handicap_imp = 40.0;
    start.last_played = on.checked_sub_days(chrono::Days::new(465));
    let per_method = Played {
        by_method: Some(&own),
        ..played(&input, &outcome, on)
    };
    let u = update(&f, &start, &per_method);
    assert_eq!((u.opening_topscore, u.opening_imp), (25.5, 41.5));
    assert_eq!(u.by_method, Some((CalcMethod::Topscore, -1.0)));
    assert_eq!(u.state.handicap_topscore, 24.5);
    assert_eq!(u.state.handicap_imp, 41.5);
    assert!((u.state.handicap - (31.5 - 1.069_565_2)).abs() < 1e-7);
    // Back a week later, no drift: the opening is the handicap as left.
    let week = Played {
        date: date(2026, 5, 8),
        ..per_method
    };
    let next = update(&f, &u.state, &week);
    assert_eq!((next.opening_topscore, next.opening_imp), (24.5, 41.5));
}

#[test]
fn playing_handicap_is_the_one_held_before_the_month() {
    let mut s = PlayerState::starting(30.0, None);
    s.enter_month(date(2026, 1, 10));
    s.handicap = 29.0;
    s.enter_month(date(2026, 1, 20));
    assert_eq!(s.playing_handicap, 30.0);
    s.enter_month(date(2026, 2, 1));
    assert_eq!(s.playing_handicap, 29.0);
}

#[test]
fn months_are_consecutive_across_years() {
    assert_eq!(
        month_index(date(2026, 1, 1)) - month_index(date(2025, 12, 31)),
        1
    );
}
