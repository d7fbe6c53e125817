//! The settings in which club scoring programs differ.
//!
//! A federation must reproduce the figures its clubs' programs published, so each
//! competition carries the conventions of the program that scored it. The importers fill
//! them in; a hand-made dataset gets the defaults named in `spec/scoring.md`.
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
    /// The highest and lowest 10 % (0.1·n, 0.5 rounded up), seed 002.
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

/// Whether tied entrants are separated, and by which variant of seed 000's tie-breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TieBreak {
    /// Ties are not broken: tied entrants share a rank (seed 002).
    #[default]
    Off,
    /// Seed 000's methods in default order, topscore comparison over every score.
    AllScores,
    /// As `AllScores`, repeating the topscore comparison for a two-way tie left inside a
    /// three-way one.
    AllScoresRepeat,
    /// Seed 000's methods, topscore comparison only among scores from the same direction.
    SameDirection,
    /// As `SameDirection`, with the repeat.
    SameDirectionRepeat,
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
crate::string_enum!(TieBreak, "tie_break", {
    "off" => TieBreak::Off,
    "all_scores" => TieBreak::AllScores,
    "all_scores_repeat" => TieBreak::AllScoresRepeat,
    "same_direction" => TieBreak::SameDirection,
    "same_direction_repeat" => TieBreak::SameDirectionRepeat,
});
