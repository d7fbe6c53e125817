//! Factor sets: every constant of the handicap model, in a versioned TOML file.
//!
//! The federation will want to try other impacts, caps or relation factors (the proposal's own
//! check-up in 6.1 and its successor discussion ask for exactly that), and an analyst must be
//! able to do so without touching code. So no model constant lives in the code: the default
//! set `fsb-2007` is the file `data/factors/fsb-2007.toml`, embedded in the binary, and
//! [`FactorSet::from_toml_str`] parses a copy an analyst changed (the caller reads the
//! file: the model does no I/O). Unknown keys are rejected and
//! required keys have no fallback, so a typo in a factor file is an error naming the key,
//! never a silent default.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::FactorSetError;
use super::{CalcMethod, FieldKind};

/// The default factor set, as shipped.
pub const FSB_2007_TOML: &str = include_str!("../../data/factors/fsb-2007.toml");

/// Every constant of the handicap model. See `docs/model.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactorSet {
    /// Name of the set, recorded with the outputs (`fsb-2007`).
    pub name: String,
    /// `I`, the impact: a board moves a handicap `1/I` of the way to the level shown (480).
    pub impact: f64,
    /// Highest handicap; a result that would go above it sets the handicap to it (52).
    pub cap: f64,
    /// Optional lowest handicap. Default: none, handicaps can go below 0.
    pub floor: Option<f64>,
    /// Starting handicap from masterpoints (52 / (1 + 0.01·MP)).
    pub start: StartFormula,
    /// `S` and `C_b` per calculation method.
    pub methods: MethodFactors,
    /// `C_k` and `C_u` per format.
    pub formats: FormatFactors,
    /// Guest handicap methods in the order they are tried (`["c", "b"]`).
    pub guest_methods: Vec<GuestMethod>,
    /// Board-weight multiplier per competition class; a class not listed counts 1.0
    /// (empty by default: every competition counts the same).
    pub class_weights: BTreeMap<String, f64>,
    /// Keep separate topscore and IMP handicaps beside the combined one (false).
    pub separate_by_method: bool,
    /// Optional upward drift after a long inactive period (none by default).
    pub inactivity: Option<InactivityDrift>,
    /// Optional faster impact while a player has few boards behind them (none by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newcomer: Option<Newcomer>,
    /// Optional confidence figure published with each handicap (none by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    /// Optional gain that follows the confidence figure, as a Kalman filter's (none by
    /// default; needs `[confidence]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kalman: Option<Kalman>,
    /// Optional pull of partners' handicaps toward each other (none by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partnership: Option<Partnership>,
    /// Optional term of the expected result for how long a pair has played together
    /// (none by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub familiarity: Option<Familiarity>,
}

/// How long two partners have played together, in their expected result.
///
/// Two handicaps say what two players are worth apart; a pair that meets for the first
/// time loses boards to misunderstandings a regular partnership does not (the English
/// grading scheme finds pick-up partnerships about 2 % below regular ones). The term
/// adds `offset(n)` handicap units to the pair handicap of two members who have played
/// `n` earlier sessions together, where the expected result is taken, for the pair and
/// in every other pair's field alike (see [`Familiarity::offset`]); the handicaps
/// themselves, and how far a result moves them, are what they were. A new pair is
/// expected below what its two handicaps say, a settled one at or above; a pair with a
/// guest or a non-member, whose history is not known, gets no term.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Familiarity {
    /// Handicap units added to the pair handicap of a pair's first session together
    /// (positive: expected worse).
    pub new_pair: f64,
    /// The units a long-settled pair's handicap tends to (negative: expected better).
    pub settled_pair: f64,
    /// Sessions together at which a pair is halfway from `new_pair` to `settled_pair`.
    pub half_sessions: f64,
}

impl Familiarity {
    /// The units added to the pair handicap of a pair that played `sessions` earlier
    /// sessions together: `new + (settled − new)·n/(n + half)`.
    ///
    /// ```
    /// use bridgehcp::model::factors::Familiarity;
    /// let f = Familiarity { new_pair: 4.0, settled_pair: -2.0, half_sessions: 10.0 };
    /// assert_eq!(f.offset(0), 4.0);
    /// assert_eq!(f.offset(10), 1.0); // halfway: 4 + (−6)·10/20
    /// assert_eq!(f.offset(30), -0.5); // 4 − 6·30/40
    /// ```
    pub fn offset(&self, sessions: u32) -> f64 {
        let n = f64::from(sessions);
        self.new_pair + (self.settled_pair - self.new_pair) * n / (n + self.half_sessions)
    }
}

/// Partners pulled toward each other, as the EBU's NGS does for regular partnerships.
///
/// Both players of a pair get the same change, so two partners who always play together
/// keep whatever gap their starting handicaps made, though nothing in their results
/// tells them apart. Each time two members play together, each moves a share
/// `min(1, pull_per_board·N_G)/2` of their gap toward the other (see
/// [`crate::model::update::partnership_pull`]): the pair's handicap, and so its expected
/// result, stays the same, the gap of a pair who nearly always play together closes
/// geometrically, and an occasional partnership barely moves.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Partnership {
    /// The share of the partners' gap closed per board played together (0 < … ≤ 1).
    pub pull_per_board: f64,
}

/// A gain that follows the handicap's uncertainty, as Glicko's and a Kalman filter's do.
///
/// The proposal's update moves every handicap the same share of the way to the level shown,
/// whatever is known about the player. A Kalman filter weighs the two by their
/// variances instead: the handicap's (`handicap_sd`², grown by the skill's drift since
/// the player last played) against the level shown's (`board_sd`² over the boards of
/// evidence). A new or returning player, whose handicap says little, moves further; an
/// established one, whose handicap is a long average, moves less. The gain replaces
/// the set's share `g` and the newcomer period, and `handicap_sd` becomes the filter's
/// own (see [`crate::model::update::kalman_step`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kalman {
    /// The standard deviation of a player's change in level over a year, in handicap
    /// units: the process noise. 0 is a player whose level never changes.
    pub drift_per_year: f64,
    /// Optional (false when absent): take a pair's result as evidence about the pair,
    /// the mean of two uncertain handicaps, rather than about each player alone. The
    /// result is then shared between the partners by their variances: a new player
    /// beside an established partner takes most of it (see
    /// [`crate::model::update::kalman_pair_step`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pairs: bool,
    /// Optional (0 when absent): the standard deviation of a player's change in level
    /// from one session to the next, in handicap units, added to the variance before
    /// every result as `drift_per_year` adds it per day away. It counts the player's
    /// own sessions, not the calendar, as TrueSkill's dynamics do: a member who plays
    /// every week keeps a gain of the same size as with a yearly drift, and one who
    /// comes back after months does not take a single evening for their level.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub drift_per_session: f64,
    /// Optional (none when absent): the farthest, in handicap units, that the level
    /// shown by one result may lie from the handicap; a result that shows a level
    /// farther away moves the handicap as one at this distance would. A single evening
    /// far from a player's level then cannot carry a new player, whose gain is large,
    /// far from it, as TrueSkill's bounded update does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_shown: Option<f64>,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// A confidence figure for each handicap, as Glicko's rating deviation: the standard
/// deviation of the handicap as an estimate of the player's level, in handicap units.
/// A handicap is a running average of the levels a player showed, so its uncertainty
/// follows from the same weights that move it (see [`crate::model::update::next_sd`]):
/// it starts at `start_sd`, shrinks as boards are played and levels off where the
/// impact's averaging window leaves it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Confidence {
    /// The spread of the starting handicap around the player's level.
    pub start_sd: f64,
    /// The spread of the level shown on one board around the player's level.
    pub board_sd: f64,
}

/// A newcomer period, as EBU NGS and Elo's provisional ratings have: a player with few
/// boards behind them has a starting handicap that says little, so each board moves it
/// further. The impact rises linearly from `impact` at 0 boards to the set's impact at
/// `boards`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Newcomer {
    /// Boards behind a player at which the newcomer period ends.
    pub boards: u32,
    /// The impact at 0 boards (below the set's impact: faster).
    pub impact: f64,
}

impl FactorSet {
    /// The impact for a player with `boards` boards behind them: the set's impact, or
    /// during the newcomer period the linear blend towards it.
    ///
    /// ```
    /// use bridgehcp::model::factors::{FactorSet, Newcomer};
    /// let mut f = FactorSet::default();
    /// assert_eq!(f.impact_for(0), 480.0);
    /// f.newcomer = Some(Newcomer { boards: 200, impact: 120.0 });
    /// assert_eq!(f.impact_for(0), 120.0);
    /// assert_eq!(f.impact_for(100), 300.0);
    /// assert_eq!(f.impact_for(200), 480.0);
    /// assert_eq!(f.impact_for(5000), 480.0);
    /// ```
    pub fn impact_for(&self, boards: u64) -> f64 {
        match self.newcomer {
            Some(n) if boards < u64::from(n.boards) => {
                let t = boards as f64 / f64::from(n.boards);
                n.impact + (self.impact - n.impact) * t
            }
            _ => self.impact,
        }
    }

    /// What a change computed with the set's impact is multiplied by for a player with
    /// `boards` boards behind them (1 outside the newcomer period).
    pub fn newcomer_scale(&self, boards: u64) -> f64 {
        self.impact / self.impact_for(boards)
    }
}

/// `H0 = base / (1 + c·MP)`: 52 and 0.01 in `fsb-2007`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartFormula {
    pub base: f64,
    pub c: f64,
}

/// The factors that depend on how a competition is calculated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodFactor {
    /// `S`, the distribution term of the board weight `(N_B + S)/(N_B − 1)`.
    pub s: f64,
    /// `C_b`, handicap units per result unit.
    pub c_b: f64,
    /// Optional `C_b` of the expected result alone: `r̂ = (field − h)/(result_scale ·
    /// expected_c_b)`, while the update keeps `c_b`. Absent: `c_b`. Below `c_b` the
    /// expected results spread further (the fix when a study's calibration slope says they
    /// are too flat; `bridgehcp study --calibrate` fits it on the burn-in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_c_b: Option<f64>,
}

/// Topscore 0.6 / 2.0, IMP 0.1 / 12.0 in `fsb-2007`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodFactors {
    pub topscore: MethodFactor,
    pub imp: MethodFactor,
}

/// The factors that depend on the format (who owns a result).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormatFactor {
    /// `C_k`, scale factor for the size of the result owner.
    pub c_k: f64,
    /// `C_u`, dilution factor.
    pub c_u: f64,
    /// Result units per `C_b` in this format's expected result `r̂ = (…)/(scale·C_b)`:
    /// 2 for individual events in `fsb-2007` (a player's share of a pair's result),
    /// 1 elsewhere. Optional, 1 when absent.
    #[serde(default = "one")]
    pub result_scale: f64,
}

fn one() -> f64 {
    1.0
}

/// `fsb-2007`: individual 2/1, pairs 1/1, pairs against a datum 1/1, team match 1/2 / 1/2,
/// pair in a team match scored across the field 1 / 1/2 (each `C_k` / `C_u`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormatFactors {
    pub individual: FormatFactor,
    pub pairs: FormatFactor,
    pub pairs_datum: FormatFactor,
    pub team_match: FormatFactor,
    pub team_pair_across: FormatFactor,
}

/// How a foreign guest (or a non-member pair) gets its temporary handicap (the proposal's 5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GuestMethod {
    /// (a) the reported level of play.
    #[serde(rename = "a")]
    ReportedLevel,
    /// (b) the partner's handicap.
    #[serde(rename = "b")]
    Partner,
    /// (c) an estimate from the pair's own performance in the competition.
    #[serde(rename = "c")]
    Performance,
}

/// Upward drift of an inactive player's handicap (off by default).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InactivityDrift {
    /// Days without a rated competition before the drift starts.
    pub after_days: u32,
    /// Handicap units added per completed month (365.25/12 days) after that.
    pub per_month: f64,
    /// The drift never adds more than this in total.
    pub max_total: f64,
}

/// Length of the month the inactivity drift counts in, in days.
const DAYS_PER_MONTH: f64 = 365.25 / 12.0;

impl InactivityDrift {
    /// The handicap units added after `days_inactive` days without a rated competition.
    ///
    /// ```
    /// use bridgehcp::model::factors::InactivityDrift;
    /// let d = InactivityDrift { after_days: 365, per_month: 0.5, max_total: 5.0 };
    /// assert_eq!(d.drift(365), 0.0);
    /// // 100 days past the start is 3 completed months of 30.4375 days.
    /// assert!((d.drift(465) - 1.5).abs() < 1e-12);
    /// assert!((d.drift(10_000) - 5.0).abs() < 1e-12);
    /// ```
    pub fn drift(&self, days_inactive: i64) -> f64 {
        let past = days_inactive - i64::from(self.after_days);
        if past <= 0 {
            return 0.0;
        }
        let months = (past as f64 / DAYS_PER_MONTH).floor();
        (months * self.per_month).min(self.max_total)
    }
}

impl Default for FactorSet {
    /// The `fsb-2007` set, parsed from the embedded `data/factors/fsb-2007.toml`.
    fn default() -> Self {
        match FactorSet::from_toml_str(FSB_2007_TOML, "data/factors/fsb-2007.toml") {
            Ok(set) => set,
            // The embedded file is fixed at build time and parsed by a unit test, so this
            // arm is unreachable for any input; it cannot be reached by a user's data.
            Err(e) => panic!("the embedded factor set does not parse: {e}"),
        }
    }
}

impl FactorSet {
    /// Parses and checks a factor set; `source` names the file in error messages.
    pub fn from_toml_str(text: &str, source: &str) -> Result<FactorSet, FactorSetError> {
        let error = |rule: String| FactorSetError {
            file: source.to_string(),
            rule,
        };
        let set: FactorSet = toml::from_str(text).map_err(|e| error(e.to_string()))?;
        set.validate().map_err(error)?;
        Ok(set)
    }

    /// The checks serde cannot express. Each message names the offending key.
    fn validate(&self) -> Result<(), String> {
        self.validate_scales()?;
        self.validate_guests()?;
        self.validate_options()
    }

    /// The impact, cap, floor, start, methods and formats.
    fn validate_scales(&self) -> Result<(), String> {
        positive("impact", self.impact)?;
        finite("cap", self.cap)?;
        if let Some(floor) = self.floor {
            finite("floor", floor)?;
            if floor >= self.cap {
                return Err(format!(
                    "key `floor` ({floor}) must be below `cap` ({})",
                    self.cap
                ));
            }
        }
        positive("start.base", self.start.base)?;
        if !(self.start.c.is_finite() && self.start.c >= 0.0) {
            return Err(format!(
                "key `start.c` must be a finite number ≥ 0, found {}",
                self.start.c
            ));
        }
        for (name, m) in [
            ("topscore", self.methods.topscore),
            ("imp", self.methods.imp),
        ] {
            // S > −2 keeps the board weight (N_B + S)/(N_B − 1) positive for every N_B ≥ 2.
            if !(m.s.is_finite() && m.s > -2.0) {
                return Err(format!(
                    "key `methods.{name}.s` must be a finite number above −2, found {}",
                    m.s
                ));
            }
            positive(&format!("methods.{name}.c_b"), m.c_b)?;
            if let Some(c) = m.expected_c_b {
                positive(&format!("methods.{name}.expected_c_b"), c)?;
            }
        }
        let formats = [
            ("individual", self.formats.individual),
            ("pairs", self.formats.pairs),
            ("pairs_datum", self.formats.pairs_datum),
            ("team_match", self.formats.team_match),
            ("team_pair_across", self.formats.team_pair_across),
        ];
        for (name, f) in formats {
            positive(&format!("formats.{name}.c_k"), f.c_k)?;
            positive(&format!("formats.{name}.c_u"), f.c_u)?;
            positive(&format!("formats.{name}.result_scale"), f.result_scale)?;
        }
        Ok(())
    }

    /// The guest methods and the class weights.
    fn validate_guests(&self) -> Result<(), String> {
        if self.guest_methods.is_empty() {
            return Err("key `guest_methods` must name at least one method".into());
        }
        for (i, m) in self.guest_methods.iter().enumerate() {
            if self.guest_methods[..i].contains(m) {
                return Err(format!("key `guest_methods` names method {m:?} twice"));
            }
        }
        for (class, w) in &self.class_weights {
            positive(&format!("class_weights.{class}"), *w)?;
        }
        Ok(())
    }

    /// The optional tables: newcomer, confidence, kalman, partnership, inactivity.
    fn validate_options(&self) -> Result<(), String> {
        if let Some(n) = self.newcomer {
            positive("newcomer.impact", n.impact)?;
            if n.boards == 0 {
                return Err("key `newcomer.boards` must be at least 1".into());
            }
        }
        if let Some(c) = self.confidence {
            positive("confidence.start_sd", c.start_sd)?;
            positive("confidence.board_sd", c.board_sd)?;
        }
        if let Some(k) = self.kalman {
            if !(k.drift_per_year.is_finite() && k.drift_per_year >= 0.0) {
                return Err(format!(
                    "key `kalman.drift_per_year` must be a finite number ≥ 0, found {}",
                    k.drift_per_year
                ));
            }
            if !(k.drift_per_session.is_finite() && k.drift_per_session >= 0.0) {
                return Err(format!(
                    "key `kalman.drift_per_session` must be a finite number ≥ 0, found {}",
                    k.drift_per_session
                ));
            }
            if let Some(max) = k.max_shown {
                positive("kalman.max_shown", max)?;
            }
            if self.confidence.is_none() {
                return Err(
                    "key `kalman` needs a `[confidence]` table: the gain follows its figure".into(),
                );
            }
            if self.newcomer.is_some() {
                return Err(
                    "keys `kalman` and `newcomer` both set the gain of a new player; \
                     keep one"
                        .into(),
                );
            }
        }
        if let Some(p) = self.partnership {
            if !(p.pull_per_board.is_finite() && p.pull_per_board > 0.0 && p.pull_per_board <= 1.0)
            {
                return Err(format!(
                    "key `partnership.pull_per_board` must be above 0 and at most 1, found {}",
                    p.pull_per_board
                ));
            }
        }
        if let Some(fam) = self.familiarity {
            finite("familiarity.new_pair", fam.new_pair)?;
            finite("familiarity.settled_pair", fam.settled_pair)?;
            positive("familiarity.half_sessions", fam.half_sessions)?;
        }
        if let Some(d) = self.inactivity {
            finite("inactivity.per_month", d.per_month)?;
            if !(d.max_total.is_finite() && d.max_total >= 0.0) {
                return Err(format!(
                    "key `inactivity.max_total` must be a finite number ≥ 0, found {}",
                    d.max_total
                ));
            }
        }
        Ok(())
    }

    /// `S` and `C_b` of a calculation method.
    pub fn method(&self, method: CalcMethod) -> MethodFactor {
        match method {
            CalcMethod::Topscore => self.methods.topscore,
            CalcMethod::Imp => self.methods.imp,
        }
    }

    /// `C_k` and `C_u` of a format.
    pub fn format(&self, kind: FieldKind) -> FormatFactor {
        match kind {
            FieldKind::Individual => self.formats.individual,
            FieldKind::Pairs => self.formats.pairs,
            FieldKind::PairsDatum => self.formats.pairs_datum,
            FieldKind::TeamMatch => self.formats.team_match,
            FieldKind::TeamPairAcross => self.formats.team_pair_across,
        }
    }

    /// The divisor of a format's expected result: `result_scale·C_b` (`2·C_b` for
    /// individual events in `fsb-2007`).
    pub fn expected_divisor(&self, method: CalcMethod, kind: FieldKind) -> f64 {
        let m = self.method(method);
        m.expected_c_b.unwrap_or(m.c_b) * self.format(kind).result_scale
    }

    /// The board-weight multiplier of a competition class: the listed factor, else 1.0.
    pub fn class_multiplier(&self, class: Option<&str>) -> f64 {
        class
            .and_then(|c| self.class_weights.get(c))
            .copied()
            .unwrap_or(1.0)
    }
}

/// `Ok` for a finite number above 0, else the rule broken, naming `key`.
fn positive(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "key `{key}` must be a finite number above 0, found {v}"
        ))
    }
}

/// `Ok` for a finite number, else the rule broken, naming `key`.
fn finite(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(format!("key `{key}` must be a finite number, found {v}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A factor set shipped in `data/factors/`, by its name, read as a run reads it.
    macro_rules! shipped {
        ($name:literal) => {
            FactorSet::from_toml_str(
                include_str!(concat!("../../data/factors/", $name, ".toml")),
                concat!($name, ".toml"),
            )
            .unwrap()
        };
    }

    fn config_message(r: Result<FactorSet, FactorSetError>) -> String {
        match r {
            Err(e) => e.to_string(),
            other => panic!("expected a factor set error, got {other:?}"),
        }
    }

    #[test]
    fn embedded_set_has_the_documented_values() {
        let f = FactorSet::default();
        assert_eq!(f.name, "fsb-2007");
        assert_eq!(f.impact, 480.0);
        assert_eq!(f.cap, 52.0);
        assert_eq!(f.floor, None);
        assert_eq!(
            f.start,
            StartFormula {
                base: 52.0,
                c: 0.01
            }
        );
        let mf = |s, c_b| MethodFactor {
            s,
            c_b,
            expected_c_b: None,
        };
        assert_eq!(f.methods.topscore, mf(0.6, 2.0));
        assert_eq!(f.methods.imp, mf(0.1, 12.0));
        assert_eq!(f.kalman, None);
        assert_eq!(f.partnership, None);
        assert_eq!(f.familiarity, None);
        let ff = |c_k, c_u| FormatFactor {
            c_k,
            c_u,
            result_scale: 1.0,
        };
        assert_eq!(
            f.formats.individual,
            FormatFactor {
                result_scale: 2.0,
                ..ff(2.0, 1.0)
            }
        );
        assert_eq!(f.formats.pairs, ff(1.0, 1.0));
        assert_eq!(f.formats.pairs_datum, ff(1.0, 1.0));
        assert_eq!(f.formats.team_match, ff(0.5, 0.5));
        assert_eq!(f.formats.team_pair_across, ff(1.0, 0.5));
        assert_eq!(
            f.guest_methods,
            vec![GuestMethod::Performance, GuestMethod::Partner]
        );
        assert!(f.class_weights.is_empty());
        assert!(!f.separate_by_method);
        assert_eq!(f.inactivity, None);
        assert_eq!(f.newcomer, None);
        assert_eq!(f.newcomer_scale(0), 1.0);
        assert_eq!(f.class_multiplier(Some("final")), 1.0);
    }

    #[test]
    fn the_plus_set_is_fsb_2007_with_its_three_options() {
        let plus = shipped!("fsb-2007-plus");
        assert_eq!(plus.name, "fsb-2007-plus");
        assert_eq!(plus.impact, 360.0);
        assert_eq!(
            plus.newcomer,
            Some(Newcomer {
                boards: 600,
                impact: 180.0
            })
        );
        assert_eq!(
            plus.confidence,
            Some(Confidence {
                start_sd: 10.0,
                board_sd: 140.0
            })
        );
        let fsb = FactorSet::default();
        assert_eq!(
            FactorSet {
                name: fsb.name.clone(),
                impact: fsb.impact,
                newcomer: None,
                confidence: None,
                kalman: None,
                partnership: None,
                familiarity: None,
                ..plus
            },
            fsb
        );
    }

    /// The club set is the Kalman sd set with a start 8 below the cap, a start_sd of 15
    /// and a drift of 30 units a year, as its comments say; nothing else differs.
    #[test]
    fn the_kalman_club_set_differs_from_the_sd_set_in_its_start_and_drift_only() {
        let sd = shipped!("fsb-2007-kalman-sd");
        let club = shipped!("fsb-2007-kalman-club");
        assert_eq!(club.name, "fsb-2007-kalman-club");
        assert_eq!(
            club.start,
            StartFormula {
                base: 44.0,
                c: 0.01
            }
        );
        assert_eq!(
            club.confidence,
            Some(Confidence {
                start_sd: 15.0,
                board_sd: 140.0
            })
        );
        assert_eq!(
            club.kalman.map(|k| (k.drift_per_year, k.pairs)),
            Some((30.0, false))
        );
        assert_eq!(
            FactorSet {
                name: sd.name.clone(),
                start: sd.start,
                confidence: sd.confidence,
                kalman: sd.kalman,
                ..club
            },
            sd
        );
    }

    /// The robust set is the club set with a bound of 10 units on the level shown, a
    /// board_sd of 100 and a start_sd of 20, as its comments say; nothing else differs.
    #[test]
    fn the_kalman_robust_set_is_the_club_set_bounded_with_a_larger_gain() {
        let club = shipped!("fsb-2007-kalman-club");
        let robust = shipped!("fsb-2007-kalman-robust");
        assert_eq!(robust.name, "fsb-2007-kalman-robust");
        assert_eq!(
            robust.confidence,
            Some(Confidence {
                start_sd: 20.0,
                board_sd: 100.0
            })
        );
        assert_eq!(
            robust.kalman,
            Some(Kalman {
                drift_per_year: 30.0,
                pairs: false,
                drift_per_session: 0.0,
                max_shown: Some(10.0)
            })
        );
        assert_eq!(
            FactorSet {
                name: club.name.clone(),
                confidence: club.confidence,
                kalman: club.kalman,
                ..robust
            },
            club
        );
        let msg = config_message(FactorSet::from_toml_str(
            &include_str!("../../data/factors/fsb-2007-kalman-robust.toml")
                .replace("max_shown = 10.0", "max_shown = 0.0"),
            "x.toml",
        ));
        assert!(msg.contains("kalman.max_shown"), "{msg}");
    }

    #[test]
    fn the_kalman_sd_set_is_the_kalman_set_with_board_sd_140() {
        let kalman = shipped!("fsb-2007-kalman");
        let sd = shipped!("fsb-2007-kalman-sd");
        assert_eq!(sd.name, "fsb-2007-kalman-sd");
        assert_eq!(
            sd.confidence,
            Some(Confidence {
                start_sd: 20.0,
                board_sd: 140.0
            })
        );
        assert_eq!(
            FactorSet {
                name: kalman.name.clone(),
                confidence: kalman.confidence,
                ..sd
            },
            kalman
        );
    }

    /// The expected result's own C_b: with 1.5 for topscore, a pair 3 units better
    /// than the field expects 3/1.5 = 2 % rather than 3/2 = 1.5 %; individual events keep
    /// their result scale (2·1.5 = 3); the update's C_b stays 2.
    #[test]
    fn expected_c_b_sets_the_divisor_only() {
        let text = FSB_2007_TOML.replace("c_b = 2.0", "c_b = 2.0\nexpected_c_b = 1.5");
        let f = FactorSet::from_toml_str(&text, "x.toml").unwrap_or_default();
        assert_eq!(f.methods.topscore.expected_c_b, Some(1.5));
        assert_eq!(
            f.expected_divisor(CalcMethod::Topscore, FieldKind::Pairs),
            1.5
        );
        assert_eq!(
            f.expected_divisor(CalcMethod::Topscore, FieldKind::Individual),
            3.0
        );
        assert_eq!(f.expected_divisor(CalcMethod::Imp, FieldKind::Pairs), 12.0);
        assert_eq!(f.methods.topscore.c_b, 2.0);
        let e = crate::model::expected::pairs::expected(&[10.0, 13.0], 1.5).unwrap_or_default();
        assert!((e[0].expected - 2.0).abs() < 1e-12);
        let bad = FSB_2007_TOML.replace("c_b = 2.0", "c_b = 2.0\nexpected_c_b = 0.0");
        let msg = config_message(FactorSet::from_toml_str(&bad, "x.toml"));
        assert!(msg.contains("methods.topscore.expected_c_b"), "{msg}");
    }

    #[test]
    fn kalman_needs_a_confidence_figure_and_no_newcomer_period() {
        let with = |extra: &str| format!("{FSB_2007_TOML}\n{extra}");
        let ok = with(
            "[confidence]\nstart_sd = 10.0\nboard_sd = 140.0\n[kalman]\ndrift_per_year = 2.0\n",
        );
        let f = FactorSet::from_toml_str(&ok, "x.toml").unwrap_or_default();
        assert_eq!(
            f.kalman,
            Some(Kalman {
                drift_per_year: 2.0,
                pairs: false,
                drift_per_session: 0.0,
                max_shown: None
            })
        );
        // Absent, the per-session drift is left out of the canonical form, so the
        // hash of a set that does not use it is what it was before the key existed.
        assert!(!toml::to_string(&f)
            .unwrap_or_default()
            .contains("drift_per_session"));
        let per_session = with(
            "[confidence]\nstart_sd = 10.0\nboard_sd = 140.0\n[kalman]\ndrift_per_year = 0.0\ndrift_per_session = 4.0\n",
        );
        let f = FactorSet::from_toml_str(&per_session, "x.toml").unwrap_or_default();
        assert_eq!(f.kalman.map(|k| k.drift_per_session), Some(4.0));
        let msg = config_message(FactorSet::from_toml_str(
            &with("[confidence]\nstart_sd = 10.0\nboard_sd = 140.0\n[kalman]\ndrift_per_year = 2.0\ndrift_per_session = -1.0\n"),
            "x.toml",
        ));
        assert!(msg.contains("kalman.drift_per_session"), "{msg}");
        let pairs = with(
            "[confidence]\nstart_sd = 10.0\nboard_sd = 140.0\n[kalman]\ndrift_per_year = 2.0\npairs = true\n",
        );
        let f = FactorSet::from_toml_str(&pairs, "x.toml").unwrap_or_default();
        assert!(f.kalman.is_some_and(|k| k.pairs));
        let msg = config_message(FactorSet::from_toml_str(
            &with("[kalman]\ndrift_per_year = 2.0\n"),
            "x.toml",
        ));
        assert!(
            msg.contains("kalman") && msg.contains("confidence"),
            "{msg}"
        );
        let msg = config_message(FactorSet::from_toml_str(
            &with("[confidence]\nstart_sd = 10.0\nboard_sd = 140.0\n[kalman]\ndrift_per_year = -1.0\n"),
            "x.toml",
        ));
        assert!(msg.contains("kalman.drift_per_year"), "{msg}");
        let msg = config_message(FactorSet::from_toml_str(
            &with("[confidence]\nstart_sd = 10.0\nboard_sd = 140.0\n[newcomer]\nboards = 300\nimpact = 120.0\n[kalman]\ndrift_per_year = 2.0\n"),
            "x.toml",
        ));
        assert!(msg.contains("newcomer"), "{msg}");
    }

    #[test]
    fn partnership_pull_parses_and_is_checked() {
        let text = format!("{FSB_2007_TOML}\n[partnership]\npull_per_board = 0.005\n");
        let f = FactorSet::from_toml_str(&text, "x.toml").unwrap_or_default();
        assert_eq!(
            f.partnership,
            Some(Partnership {
                pull_per_board: 0.005
            })
        );
        let bad = format!("{FSB_2007_TOML}\n[partnership]\npull_per_board = 1.5\n");
        let msg = config_message(FactorSet::from_toml_str(&bad, "x.toml"));
        assert!(msg.contains("partnership.pull_per_board"), "{msg}");
    }

    #[test]
    fn familiarity_parses_and_is_checked() {
        let text = format!(
            "{FSB_2007_TOML}\n[familiarity]\nnew_pair = 3.0\nsettled_pair = -1.0\nhalf_sessions = 8.0\n"
        );
        let f = FactorSet::from_toml_str(&text, "x.toml").unwrap_or_default();
        assert_eq!(
            f.familiarity,
            Some(Familiarity {
                new_pair: 3.0,
                settled_pair: -1.0,
                half_sessions: 8.0
            })
        );
        let bad = text.replace("half_sessions = 8.0", "half_sessions = 0.0");
        let msg = config_message(FactorSet::from_toml_str(&bad, "x.toml"));
        assert!(msg.contains("familiarity.half_sessions"), "{msg}");
        let missing = text.replace("settled_pair = -1.0\n", "");
        let msg = config_message(FactorSet::from_toml_str(&missing, "x.toml"));
        assert!(msg.contains("settled_pair"), "{msg}");
    }

    #[test]
    fn unknown_key_is_an_error_naming_the_key_and_file() {
        let text = FSB_2007_TOML.replace("impact = 480.0", "impact = 480.0\nimpakt = 1.0");
        let msg = config_message(FactorSet::from_toml_str(&text, "my-set.toml"));
        assert!(msg.contains("impakt"), "{msg}");
        assert!(msg.contains("my-set.toml"), "{msg}");
    }

    #[test]
    fn unknown_nested_key_is_an_error_naming_the_key() {
        let text = FSB_2007_TOML.replace("c_b = 12.0", "c_b = 12.0\ncb = 3.0");
        let msg = config_message(FactorSet::from_toml_str(&text, "x.toml"));
        assert!(msg.contains("`cb`"), "{msg}");
    }

    #[test]
    fn missing_key_is_an_error_naming_the_key_and_file() {
        let text = FSB_2007_TOML.replace("cap = 52.0", "");
        let msg = config_message(FactorSet::from_toml_str(&text, "my-set.toml"));
        assert!(msg.contains("missing field `cap`"), "{msg}");
        assert!(msg.contains("my-set.toml"), "{msg}");

        let text = FSB_2007_TOML.replace("s = 0.6\n", "");
        let msg = config_message(FactorSet::from_toml_str(&text, "my-set.toml"));
        assert!(msg.contains("missing field `s`"), "{msg}");
    }

    #[test]
    fn invalid_values_name_the_key() {
        let text = FSB_2007_TOML.replace("c_b = 2.0", "c_b = 0.0");
        let msg = config_message(FactorSet::from_toml_str(&text, "x.toml"));
        assert!(msg.contains("methods.topscore.c_b"), "{msg}");

        let text = FSB_2007_TOML.replace(r#"["c", "b"]"#, r#"["c", "c"]"#);
        let msg = config_message(FactorSet::from_toml_str(&text, "x.toml"));
        assert!(msg.contains("guest_methods"), "{msg}");

        let text = FSB_2007_TOML.replace(r#"["c", "b"]"#, r#"["d"]"#);
        let msg = config_message(FactorSet::from_toml_str(&text, "x.toml"));
        assert!(msg.contains("`d`"), "{msg}");
    }

    #[test]
    fn options_parse_when_given() {
        let text = FSB_2007_TOML
            .replace("# floor = 0.0", "floor = -10.0")
            .replace(
                "[class_weights]",
                "[class_weights]\nchampionship-final = 2.0",
            )
            .replace("# [inactivity]", "[inactivity]")
            .replace("# after_days", "after_days")
            .replace("# per_month", "per_month")
            .replace("# max_total", "max_total");
        let f = match FactorSet::from_toml_str(&text, "x.toml") {
            Ok(f) => f,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(f.floor, Some(-10.0));
        assert_eq!(f.class_multiplier(Some("championship-final")), 2.0);
        assert_eq!(f.class_multiplier(None), 1.0);
        assert_eq!(
            f.inactivity,
            Some(InactivityDrift {
                after_days: 365,
                per_month: 0.5,
                max_total: 5.0
            })
        );
    }
}
