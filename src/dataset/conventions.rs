//! The settings in which club scoring programs differ.
//!
//! A federation must reproduce the figures its clubs' programs published, so each
//! competition carries the conventions of the program that scored it. The importers fill
//! them in; a hand-made dataset gets the defaults (`Conventions::default()`).
//! Each field is stored in the `competitions` table as a string column of the same name.

/// Matchpoint scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MpScale {
    /// 2 per result beaten, 1 per tie; top = 2·(n−1). (Compscore, most programs.)
    #[default]
    TwoOne,
    /// Results beaten minus results lost; top = n−1. (Ruter.)
    PlusMinus,
}

/// How IMPs across the field combine a result's comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ImpAggregate {
    /// Mean over the n−1 comparisons (Compscore).
    #[default]
    Average,
    /// Sum over the comparisons (Ruter).
    Sum,
}

/// Which scores a butler datum leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DatumTrim {
    /// The highest and lowest 10 % (0.1·n, 0.5 rounded up), the Swiss pairs regulations.
    #[default]
    TenPercent,
    /// Exactly one top and one bottom score (Compscore).
    TopAndBottom,
    /// Keep every score.
    None,
}

/// Rounding of the butler datum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DatumRounding {
    /// The exact mean.
    #[default]
    None,
    /// To the nearest 10, halves away from zero.
    Nearest10,
}

/// What a pair gets on boards it did not play (a sit-out or bye).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ByeScore {
    /// Scored over the boards played only.
    #[default]
    Skip,
    /// Its own session average on each bye board (Ruter).
    SessionAverage,
    /// Scaled up to the most boards any entrant of its direction played (Compscore): a
    /// pair whose table missed a board is made whole, while a sit-out that every pair of
    /// a direction has changes nothing. Entrants that played both directions (a Howell)
    /// are one group.
    MostInDirection,
}

/// The IMPs an artificial score (`A6040`, Ruter's `A+`, ...) is worth in IMP scorings. An
/// artificial score cannot be compared with a table score, so it is valued by its share:
/// so many IMPs for each 10 % above or below 50 %. Butler and cross-IMPs apply the same
/// value: against the datum once, across the field once per comparison (averaged: once;
/// summed: times the comparisons a full board has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ArtificialImps {
    /// 0 IMPs whatever the share (Compscore's butler).
    #[default]
    Zero,
    /// 1 IMP for each 10 %: `A6040` gives +1 / −1 (Ruter: `A+` on a board with ten
    /// results, summed, is +9).
    OnePer10Percent,
    /// 3 IMPs for each 10 %: average plus +3, average minus −3 (the EBU).
    ThreePer10Percent,
}

impl ArtificialImps {
    /// The IMPs of a side with `percent` of the top, against one comparison.
    ///
    /// ```
    /// use bridgehcp::scoring::conventions::ArtificialImps;
    /// assert_eq!(ArtificialImps::Zero.imps(60), 0.0);
    /// assert_eq!(ArtificialImps::OnePer10Percent.imps(40), -1.0);
    /// assert_eq!(ArtificialImps::ThreePer10Percent.imps(60), 3.0);
    /// ```
    pub fn imps(self, percent: u8) -> f64 {
        let tens = (f64::from(percent) - 50.0) / 10.0;
        match self {
            ArtificialImps::Zero => 0.0,
            ArtificialImps::OnePer10Percent => tens,
            ArtificialImps::ThreePer10Percent => 3.0 * tens,
        }
    }
}

/// What an average-plus artificial score (Ruter's `A+`, 60 % of the top) is worth in
/// matchpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AveragePlus {
    /// Its stated share of the top, whatever the pair scored elsewhere.
    #[default]
    Fixed,
    /// The pair's own percentage on the boards it played, when that is better than the
    /// stated share for an average plus (Ruter: Spiren 2016-05-18, board 16, prints 65
    /// for the `A+` of the pair that made 65 % on its other twenty boards), or worse
    /// than it for an average minus (Ruter prints 34 for the `A-` of a pair that made
    /// 34 % elsewhere, 40 for one above 40 %).
    SessionIfBetter,
}

/// How a score raised by Neuberg's formula is rounded before it joins a total (the
/// percentage keeps the exact score).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FactoredRounding {
    /// Kept exact.
    #[default]
    None,
    /// As a percentage of the board's top to two decimals, then to two decimals of a
    /// matchpoint, halves to even (Compscore: board 15 of the Lindfield Mitchell, played
    /// 18 times for 19, adds 35.95 for the sole top where the formula gives 35.944,
    /// 99.85 % of 36 = 35.946; 0.05 for the sole bottom, 0.15 % = 0.054; and 31.72 for a
    /// 30, 88.12 % = 31.7232; 18.25 % of a top of 18, 3.285, adds 3.28).
    PercentHundredths,
}

/// Which points a traveller line shows for a board played fewer times than the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Travellers {
    /// The factored points that also make up the totals.
    #[default]
    Factored,
    /// The raw points among the results the board got; Neuberg is applied in the totals
    /// only (Compscore).
    Unfactored,
}

/// One of the tie-break rules' tie-break methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TieBreakMethod {
    /// `meeting`: if the tied entrants met, the one that scored more on those boards.
    Meeting,
    /// `session`: the best single session, then the second best, ... (multi-session
    /// events: board rows with two or more `session` numbers).
    Session,
    /// `sd`: the lowest standard deviation of the board scores, tops centred on 0.
    Deviation,
    /// `topscore`: the tied entrants' own scores matchpointed against each other.
    Topscore,
}

/// Whether tied entrants are separated, by which of the tie-break rules' methods and in which order.
///
/// Written in the `tie_break` column as `off`, or as the methods in order separated by
/// commas: `meeting`, `session`, `sd`, and `topscore` or one of its variants
/// `topscore_repeat` (repeat the comparison for a two-way tie left inside a three-way
/// one), `topscore_same_direction` (compare only scores from the same direction) and
/// `topscore_same_direction_repeat`. The earlier names stay valid: `all_scores` is
/// `meeting,session,sd,topscore`, `all_scores_repeat`, `same_direction` and
/// `same_direction_repeat` the same order with the topscore variant of that name.
///
/// ```
/// use bridgehcp::scoring::conventions::{TieBreak, TieBreakMethod};
/// let t: TieBreak = "meeting, sd, topscore_repeat".parse().unwrap();
/// assert_eq!(t.methods().collect::<Vec<_>>(),
///            vec![TieBreakMethod::Meeting, TieBreakMethod::Deviation, TieBreakMethod::Topscore]);
/// assert!(t.repeat_partial && !t.same_direction_only);
/// assert_eq!(t.to_string(), "meeting,sd,topscore_repeat");
/// let legacy: TieBreak = "same_direction".parse().unwrap();
/// assert_eq!(legacy.to_string(), "meeting,session,sd,topscore_same_direction");
/// assert!("meeting,meeting".parse::<TieBreak>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TieBreak {
    /// The methods in order; none: ties are not broken (the Swiss pairs regulations), the default.
    order: [Option<TieBreakMethod>; 4],
    /// Topscore comparison: repeat it for a two-way tie left inside a three-way one.
    pub repeat_partial: bool,
    /// Topscore comparison: only scores from the same direction count.
    pub same_direction_only: bool,
}

const SEED_000_ORDER: [TieBreakMethod; 4] = [
    TieBreakMethod::Meeting,
    TieBreakMethod::Session,
    TieBreakMethod::Deviation,
    TieBreakMethod::Topscore,
];

impl TieBreak {
    /// Ties are not broken.
    pub const OFF: TieBreak = TieBreak {
        order: [None; 4],
        repeat_partial: false,
        same_direction_only: false,
    };

    /// `methods` in that order; `None` when a method is named twice.
    pub fn new(
        methods: &[TieBreakMethod],
        repeat_partial: bool,
        same_direction_only: bool,
    ) -> Option<TieBreak> {
        let mut order = [None; 4];
        for (i, m) in methods.iter().enumerate() {
            if methods[..i].contains(m) {
                return None;
            }
            *order.get_mut(i)? = Some(*m);
        }
        Some(TieBreak {
            order,
            repeat_partial,
            same_direction_only,
        })
    }

    /// The tie-break rules' methods in its default order.
    pub fn seed_000(repeat_partial: bool, same_direction_only: bool) -> TieBreak {
        TieBreak::new(&SEED_000_ORDER, repeat_partial, same_direction_only).unwrap_or_default()
    }

    /// The methods, in the order they are tried.
    pub fn methods(&self) -> impl Iterator<Item = TieBreakMethod> + '_ {
        self.order.iter().flatten().copied()
    }

    pub fn is_off(&self) -> bool {
        self.order.iter().all(Option::is_none)
    }
}

const TIE_BREAK_NAMES: &str = "meeting, session, sd, topscore, topscore_repeat, \
topscore_same_direction, topscore_same_direction_repeat";

impl std::str::FromStr for TieBreak {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let text = s.trim();
        match text {
            "off" => return Ok(TieBreak::OFF),
            "all_scores" => return Ok(TieBreak::seed_000(false, false)),
            "all_scores_repeat" => return Ok(TieBreak::seed_000(true, false)),
            "same_direction" => return Ok(TieBreak::seed_000(false, true)),
            "same_direction_repeat" => return Ok(TieBreak::seed_000(true, true)),
            _ => {}
        }
        let mut methods = Vec::new();
        let (mut repeat, mut same_direction) = (false, false);
        for item in text.split(',').map(str::trim) {
            let method = match item {
                "meeting" => TieBreakMethod::Meeting,
                "session" => TieBreakMethod::Session,
                "sd" => TieBreakMethod::Deviation,
                "topscore" | "topscore_repeat" | "topscore_same_direction"
                | "topscore_same_direction_repeat" => {
                    repeat = item.ends_with("_repeat");
                    same_direction = item.contains("same_direction");
                    TieBreakMethod::Topscore
                }
                other => {
                    return Err(format!(
                        "unknown tie_break method `{other}` in `{text}` (expected `off`, or methods in order separated by commas: {TIE_BREAK_NAMES}; or one of all_scores, all_scores_repeat, same_direction, same_direction_repeat)"
                    ))
                }
            };
            if methods.contains(&method) {
                return Err(format!(
                    "tie_break `{text}` names the method `{item}` twice"
                ));
            }
            methods.push(method);
        }
        TieBreak::new(&methods, repeat, same_direction)
            .ok_or_else(|| format!("tie_break `{text}` names a method twice"))
    }
}

impl std::fmt::Display for TieBreak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_off() {
            return f.write_str("off");
        }
        let names: Vec<&str> = self
            .methods()
            .map(|m| match m {
                TieBreakMethod::Meeting => "meeting",
                TieBreakMethod::Session => "session",
                TieBreakMethod::Deviation => "sd",
                TieBreakMethod::Topscore => match (self.same_direction_only, self.repeat_partial) {
                    (false, false) => "topscore",
                    (false, true) => "topscore_repeat",
                    (true, false) => "topscore_same_direction",
                    (true, true) => "topscore_same_direction_repeat",
                },
            })
            .collect();
        f.write_str(&names.join(","))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Conventions {
    pub mp_scale: MpScale,
    pub imp_aggregate: ImpAggregate,
    pub datum_trim: DatumTrim,
    pub datum_rounding: DatumRounding,
    pub bye_score: ByeScore,
    /// Neuberg factoring for unequal plays and artificial scores (default on).
    pub neuberg: bool,
    /// Tie-breaks in the standings (default off).
    pub tie_break: TieBreak,
    /// Points shown on the travellers (default factored).
    pub travellers: Travellers,
    /// The IMP value of an artificial score in butler and cross-IMPs (default 0).
    pub artificial_imps: ArtificialImps,
    /// The matchpoint value of an average plus (default its fixed share).
    pub average_plus: AveragePlus,
    /// The rounding of a factored matchpoint score (default none).
    pub factored_rounding: FactoredRounding,
}

impl Default for Conventions {
    fn default() -> Self {
        Conventions {
            mp_scale: MpScale::default(),
            imp_aggregate: ImpAggregate::default(),
            datum_trim: DatumTrim::default(),
            datum_rounding: DatumRounding::default(),
            bye_score: ByeScore::default(),
            neuberg: true,
            tie_break: TieBreak::default(),
            travellers: Travellers::default(),
            artificial_imps: ArtificialImps::default(),
            average_plus: AveragePlus::default(),
            factored_rounding: FactoredRounding::default(),
        }
    }
}

impl Conventions {
    /// The conventions of the club program an export names (PBN's `Generator` header,
    /// USEBIO's `PROGRAM_NAME`), whatever the format it wrote: Ruter's and Compscore's
    /// are known (see `docs/club-programs.md`), any other program gets the defaults.
    ///
    /// ```
    /// use bridgehcp::dataset::conventions::{Conventions, MpScale};
    /// assert_eq!(Conventions::of_program("Ruter 1.9").mp_scale, MpScale::PlusMinus);
    /// assert_eq!(Conventions::of_program("EBUScore"), Conventions::default());
    /// ```
    pub fn of_program(name: &str) -> Conventions {
        let name = name.to_ascii_lowercase();
        if name.contains("ruter") {
            Conventions {
                mp_scale: MpScale::PlusMinus,
                imp_aggregate: ImpAggregate::Sum,
                bye_score: ByeScore::SessionAverage,
                artificial_imps: ArtificialImps::OnePer10Percent,
                average_plus: AveragePlus::SessionIfBetter,
                ..Conventions::default()
            }
        } else if name.contains("compscore") {
            Conventions {
                mp_scale: MpScale::TwoOne,
                imp_aggregate: ImpAggregate::Average,
                datum_trim: DatumTrim::TopAndBottom,
                datum_rounding: DatumRounding::Nearest10,
                bye_score: ByeScore::MostInDirection,
                neuberg: true,
                travellers: Travellers::Unfactored,
                artificial_imps: ArtificialImps::Zero,
                factored_rounding: FactoredRounding::PercentHundredths,
                ..Conventions::default()
            }
        } else {
            Conventions::default()
        }
    }
}

crate::string_enum!(MpScale, "mp_scale", { "two_one" => MpScale::TwoOne, "plus_minus" => MpScale::PlusMinus });
crate::string_enum!(ImpAggregate, "imp_aggregate", { "average" => ImpAggregate::Average, "sum" => ImpAggregate::Sum });
crate::string_enum!(DatumTrim, "datum_trim", {
    "ten_percent" => DatumTrim::TenPercent,
    "top_and_bottom" => DatumTrim::TopAndBottom,
    "none" => DatumTrim::None,
});
crate::string_enum!(DatumRounding, "datum_rounding", { "none" => DatumRounding::None, "nearest_10" => DatumRounding::Nearest10 });
crate::string_enum!(ByeScore, "bye_score", {
    "skip" => ByeScore::Skip,
    "session_average" => ByeScore::SessionAverage,
    "most_in_direction" => ByeScore::MostInDirection,
});
crate::string_enum!(Travellers, "travellers", { "factored" => Travellers::Factored, "unfactored" => Travellers::Unfactored });
crate::string_enum!(ArtificialImps, "artificial_imps", {
    "zero" => ArtificialImps::Zero,
    "one_per_10_percent" => ArtificialImps::OnePer10Percent,
    "three_per_10_percent" => ArtificialImps::ThreePer10Percent,
});
crate::string_enum!(FactoredRounding, "factored_rounding", {
    "none" => FactoredRounding::None,
    "percent_hundredths" => FactoredRounding::PercentHundredths,
});
crate::string_enum!(AveragePlus, "average_plus", {
    "fixed" => AveragePlus::Fixed,
    "session_if_better" => AveragePlus::SessionIfBetter,
});
