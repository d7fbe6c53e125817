//! The values of flags, spelled for the command line, and the library's types they
//! stand for.

use clap::ValueEnum;

use crate::pipeline::ranking::RankingGroup;
use crate::pipeline::{Mode, Rate};

/// `--rate`: the pipeline's [`Rate`], spelled for the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum RateArg {
    /// The results the club's program published.
    #[default]
    Published,
    /// The results recomputed from the table results.
    Recomputed,
}

impl From<RateArg> for Rate {
    fn from(rate: RateArg) -> Rate {
        match rate {
            RateArg::Published => Rate::Published,
            RateArg::Recomputed => Rate::Recomputed,
        }
    }
}

/// `--mode`: the pipeline's [`Mode`], spelled for the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Each competition sees the handicaps left by every earlier one.
    Live,
    /// Every competition of a month uses the month's opening handicaps; the changes are
    /// summed and the cap applies at month end.
    Frozen,
}

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Mode {
        match mode {
            ModeArg::Live => Mode::Live,
            ModeArg::Frozen => Mode::Frozen,
        }
    }
}

/// `--ranking-by`: the pipeline's [`RankingGroup`], spelled for the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RankingGroupArg {
    Club,
    District,
}

impl From<RankingGroupArg> for RankingGroup {
    fn from(group: RankingGroupArg) -> RankingGroup {
        match group {
            RankingGroupArg::Club => RankingGroup::Club,
            RankingGroupArg::District => RankingGroup::District,
        }
    }
}
