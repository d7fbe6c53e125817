//! Table results that follow the players' strength.
//!
//! Each deal gets a par: the side that should declare, a strain, a level and the number
//! of tricks an average pair takes. At each table the declaring pair takes more tricks
//! the stronger it is than its opponents, plus noise, and weaker pairs stray more often
//! from par (overbid, underbid, wrong strain, a doubled contract, a sacrifice by the
//! other side, a pass-out). Scores are left to the scoring engine: the sample only
//! carries what a Bridgemate records (contract, declarer, tricks).

use super::rng::Rng;
use crate::scoring::contract::Strain;

/// How results depend on strength, in the units of the handicap scale (lower is
/// stronger). Defaults give a spread comparable to club travellers.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayModel {
    /// Extra tricks per handicap unit the declaring pair is stronger than the
    /// defenders (default 0.03: a 20-unit gap is worth 0.6 of a trick).
    pub tricks_per_unit: f64,
    /// Standard deviation of the tricks taken around the expectation (default 0.8).
    pub trick_noise: f64,
    /// Chance that a pair of handicap 20 bids other than par (default 0.15); it grows
    /// by 0.008 per handicap unit, between 0.05 and 0.4.
    pub stray: f64,
    /// Chance that the other side sacrifices over a game or slam (default 0.06).
    pub sacrifice: f64,
    /// Chance that a one-level deal is passed out at a table (default 0.15), and that
    /// any other deal is (default 0.005).
    pub pass_out_low: f64,
    pub pass_out: f64,
    /// Chance of an artificial score instead of a result, in pairs events (default 0.002).
    pub adjusted: f64,
}

impl Default for PlayModel {
    fn default() -> Self {
        PlayModel {
            tricks_per_unit: 0.03,
            trick_noise: 0.8,
            stray: 0.15,
            sacrifice: 0.06,
            pass_out_low: 0.15,
            pass_out: 0.005,
            adjusted: 0.002,
        }
    }
}

/// Seats in the order N, E, S, W.
const SEATS: [&str; 4] = ["N", "E", "S", "W"];

/// The par of one deal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deal {
    pub ns_declares: bool,
    pub strain: Strain,
    /// 1..=7.
    pub level: u8,
    /// Tricks an average declarer takes.
    pub tricks: f64,
    /// The seat (index into N, E, S, W) that usually declares.
    pub seat: usize,
}

/// What one table recorded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableResult {
    pub contract: Option<String>,
    pub declarer: Option<String>,
    pub tricks: Option<u8>,
    pub adjusted: Option<String>,
}

pub fn deal(rng: &mut Rng) -> Deal {
    let (level, strain) = match rng.weighted(&[0.45, 0.45, 0.08, 0.02]) {
        0 => {
            let level = [1, 2, 3][rng.weighted(&[0.3, 0.4, 0.3])];
            (
                level,
                Strain::ALL[rng.weighted(&[0.15, 0.15, 0.25, 0.25, 0.2])],
            )
        }
        1 => [
            (5, Strain::Clubs),
            (5, Strain::Diamonds),
            (4, Strain::Hearts),
            (4, Strain::Spades),
            (3, Strain::NoTrump),
        ][rng.weighted(&[0.075, 0.075, 0.2, 0.2, 0.45])],
        2 => (6, Strain::ALL[rng.weighted(&[0.1, 0.1, 0.25, 0.25, 0.3])]),
        _ => (7, Strain::ALL[rng.weighted(&[0.1, 0.1, 0.25, 0.25, 0.3])]),
    };
    let tricks = (f64::from(level) + 6.0 + rng.uniform(-0.4, 0.9)).min(13.2);
    let ns_declares = rng.chance(0.5);
    let seat = match (ns_declares, rng.chance(0.5)) {
        (true, true) => 0,
        (true, false) => 2,
        (false, true) => 1,
        (false, false) => 3,
    };
    Deal {
        ns_declares,
        strain,
        level,
        tricks,
        seat,
    }
}

/// The result at one table. `ns_level` and `ew_level` are the sides' handicaps (a pair's
/// mean); `allow_adjusted` lets the table get an artificial score instead.
pub fn play(
    rng: &mut Rng,
    model: &PlayModel,
    deal: &Deal,
    ns_level: f64,
    ew_level: f64,
    allow_adjusted: bool,
) -> TableResult {
    if let Some(result) = not_played(rng, model, deal, allow_adjusted) {
        return result;
    }

    let mut seat = deal.seat;
    let mut level = deal.level;
    let mut strain = deal.strain;
    let mut expected = deal.tricks;
    let mut doubled = 0u8;
    let sacrifice = deal.level >= 4 && rng.chance(model.sacrifice);
    if sacrifice {
        // The other side outbids par and is doubled; it takes what the par side leaves
        // it, less the tricks a misfit costs.
        seat = (seat + 1 + 2 * rng.below(2)) % 4;
        strain = Strain::ALL[rng.below(4)];
        level = if strain > deal.strain {
            deal.level
        } else {
            deal.level + 1
        }
        .min(7);
        expected = (13.0 - deal.tricks - 1.5).max(0.0);
        doubled = 1;
    }
    let declarer_ns = seat % 2 == 0;
    let (declarer_level, defender_level) = if declarer_ns {
        (ns_level, ew_level)
    } else {
        (ew_level, ns_level)
    };

    if !sacrifice {
        stray(
            rng,
            model,
            declarer_level,
            &mut level,
            &mut strain,
            &mut expected,
        );
        if f64::from(level) + 6.0 > expected + 0.5 && rng.chance(0.25) {
            doubled = 1;
        }
    }
    if doubled == 1 && rng.chance(0.05) {
        doubled = 2;
    }
    if rng.chance(0.2) {
        seat = (seat + 2) % 4;
    }

    let taken = expected
        + model.tricks_per_unit * (defender_level - declarer_level)
        + model.trick_noise * rng.normal();
    let tricks = taken.round().clamp(0.0, 13.0) as u8;
    let level = level.clamp(1, 7);
    let contract = format!(
        "{level}{}{}",
        strain.code(),
        ["", "X", "XX"][usize::from(doubled.min(2))]
    );
    TableResult {
        contract: Some(contract),
        declarer: Some(SEATS[seat % 4].to_string()),
        tricks: Some(tricks),
        adjusted: None,
    }
}

/// An artificial score (where allowed) or a passed-out board, or `None` when the board
/// is played.
fn not_played(
    rng: &mut Rng,
    model: &PlayModel,
    deal: &Deal,
    allow_adjusted: bool,
) -> Option<TableResult> {
    if allow_adjusted && rng.chance(model.adjusted) {
        let adjusted = ["A6040", "A5050", "A4060", "A6060", "A4040"]
            [rng.weighted(&[0.3, 0.3, 0.3, 0.05, 0.05])];
        return Some(TableResult {
            adjusted: Some(adjusted.to_string()),
            ..TableResult::default()
        });
    }
    let pass_chance = if deal.level <= 1 {
        model.pass_out_low
    } else {
        model.pass_out
    };
    if rng.chance(pass_chance) {
        return Some(TableResult {
            contract: Some("PASS".to_string()),
            ..TableResult::default()
        });
    }
    None
}

/// A declarer who strays from par: a level too high or too low, or another strain
/// (which costs tricks), more often the weaker the declarer.
fn stray(
    rng: &mut Rng,
    model: &PlayModel,
    declarer_level: f64,
    level: &mut u8,
    strain: &mut Strain,
    expected: &mut f64,
) {
    let stray = (model.stray + 0.008 * (declarer_level - 20.0)).clamp(0.05, 0.4);
    if rng.chance(stray) {
        match rng.weighted(&[0.4, 0.35, 0.25]) {
            0 => *level = (*level + 1).min(7),
            1 => *level = level.saturating_sub(1).max(1),
            _ => {
                let other = Strain::ALL[rng.below(5)];
                if other != *strain {
                    if other < *strain && *level < 7 && other != Strain::NoTrump {
                        *level += 1;
                    }
                    *strain = other;
                    *expected -= 0.7;
                }
            }
        }
    }
}

/// Checks a contract string in the dataset's notation: `PASS`, or level 1–7, strain, and
/// optionally `X` or `XX`, written exactly in the contract's notation. Returns the level
/// when a contract was bid.
pub fn contract_level(contract: &str) -> Option<Option<u8>> {
    if contract == "PASS" {
        return Some(None);
    }
    let parsed = crate::scoring::contract::parse_contract(contract).ok()??;
    (parsed.to_string() == contract).then_some(Some(parsed.level))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::contract::MAX_TRICKS;

    #[test]
    fn contract_strings_are_checked() {
        assert_eq!(contract_level("4S"), Some(Some(4)));
        assert_eq!(contract_level("3NTX"), Some(Some(3)));
        assert_eq!(contract_level("6HXX"), Some(Some(6)));
        assert_eq!(contract_level("PASS"), Some(None));
        assert_eq!(contract_level("8S"), None);
        assert_eq!(contract_level("0C"), None);
        assert_eq!(contract_level("4SXXX"), None);
        assert_eq!(contract_level("4"), None);
    }

    #[test]
    fn every_result_is_legal() {
        let mut rng = Rng::new(11);
        let model = PlayModel::default();
        for _ in 0..20_000 {
            let d = deal(&mut rng);
            assert!((1..=7).contains(&d.level));
            let ns = rng.uniform(-5.0, 55.0);
            let ew = rng.uniform(-5.0, 55.0);
            let r = play(&mut rng, &model, &d, ns, ew, true);
            if r.adjusted.is_some() {
                assert!(r.contract.is_none() && r.declarer.is_none() && r.tricks.is_none());
                continue;
            }
            let contract = r.contract.expect("a table result has a contract");
            match contract_level(&contract).expect("legal contract") {
                None => assert!(r.declarer.is_none() && r.tricks.is_none()),
                Some(_) => {
                    assert!(r.tricks.is_some_and(|t| t <= MAX_TRICKS));
                    assert!(r.declarer.as_deref().is_some_and(|s| SEATS.contains(&s)));
                }
            }
        }
    }

    #[test]
    fn par_side_declares_most_tables() {
        let mut rng = Rng::new(5);
        let model = PlayModel::default();
        let (mut same, mut bid) = (0u32, 0u32);
        for _ in 0..5_000 {
            let d = deal(&mut rng);
            for _ in 0..8 {
                let r = play(&mut rng, &model, &d, 25.0, 25.0, false);
                if let Some(seat) = r.declarer {
                    bid += 1;
                    let ns = seat == "N" || seat == "S";
                    same += u32::from(ns == d.ns_declares);
                }
            }
        }
        let share = f64::from(same) / f64::from(bid);
        // Only sacrifices (6 % of game and slam deals, about 3 % overall) switch sides.
        assert!(share > 0.95 && share < 0.995, "share {share}");
    }

    #[test]
    fn stronger_declarers_take_more_tricks() {
        let model = PlayModel::default();
        let mean_tricks = |declarer: f64, defender: f64| {
            let mut rng = Rng::new(99);
            let mut total = 0.0;
            let mut n = 0.0;
            for _ in 0..20_000 {
                let mut d = deal(&mut rng);
                d.ns_declares = true;
                d.seat = 0;
                let r = play(
                    &mut rng,
                    &PlayModel {
                        sacrifice: 0.0,
                        ..model.clone()
                    },
                    &d,
                    declarer,
                    defender,
                    false,
                );
                if let Some(t) = r.tricks {
                    total += f64::from(t) - d.tricks;
                    n += 1.0;
                }
            }
            total / n
        };
        let strong = mean_tricks(10.0, 30.0);
        let weak = mean_tricks(30.0, 10.0);
        // Expected gap: 2 · 20 units · 0.03 = 1.2 tricks, less the weak side's extra
        // strays into worse strains (0.7 tricks on a quarter of the strays).
        let gap = strong - weak;
        assert!(gap > 1.0 && gap < 1.5, "gap {gap}");
    }
}
