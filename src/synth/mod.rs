//! A synthetic federation: members with a hidden strength, clubs running every kind of
//! competition a dataset can hold, reported as board-level rows or as results.
//!
//! Why synthetic: real club exports are few, carry licences the repository cannot hold,
//! and never say how strong the players really are. A seeded generator gives the sample
//! that ships in `data/sample/`, datasets of any size for benchmarks, and a ground truth
//! ([`Federation::true_handicap`]) against which the handicap model can be judged.
//!
//! Everything follows from [`SynthConfig`]: the same configuration gives the same
//! [`Dataset`], whatever the thread count, because every club's month draws from its own
//! stream derived from the seed (see [`rng::Rng::derive`]).
//!
//! ```
//! use bridgehcp::synth::{generate, SynthConfig};
//! let config = SynthConfig { members: 40, clubs: 2, months: 2, ..SynthConfig::default() };
//! let a = generate(&config);
//! assert_eq!(a, generate(&config));
//! assert_eq!(a.members.iter().filter(|m| m.kind == bridgehcp::dataset::MemberKind::Member).count(), 40);
//! ```

pub mod events;
pub mod federation;
pub mod movements;
pub mod play;
pub mod rng;

use crate::model::FactorSet;
use chrono::{Datelike, Months, NaiveDate};
use rayon::prelude::*;

use crate::dataset::Dataset;

pub use federation::Federation;
pub use play::PlayModel;

/// Relative weights of the kinds of event a club runs (they need not sum to 1).
#[derive(Debug, Clone, PartialEq)]
pub struct EventMix {
    /// Pairs evenings scored by matchpoints, the bulk of club play (default 0.66).
    pub pairs_matchpoints: f64,
    /// Pairs scored by IMPs across the field (default 0.10).
    pub pairs_cross_imps: f64,
    /// Pairs scored against a butler datum (default 0.08).
    pub pairs_butler: f64,
    /// Individual events, matchpoints (default 0.06).
    pub individual: f64,
    /// A round-robin team day, one competition per match, team IMPs (default 0.05).
    pub team_matches: f64,
    /// A team event whose pairs are scored by IMPs across the field, one competition
    /// per round (default 0.05).
    pub team_cross_imps: f64,
    /// A one-day Swiss pairs congress (the Swiss pairs regulations): seven 8-board matches, or six of nine
    /// boards for a small entry, drawn round by round, a house pair when the entry is
    /// odd (default 0.02). The shipped sample in `data/sample` was generated before
    /// this kind existed and has none; a federation generated now has them.
    pub swiss_pairs: f64,
}

impl Default for EventMix {
    fn default() -> Self {
        EventMix {
            pairs_matchpoints: 0.66,
            pairs_cross_imps: 0.10,
            pairs_butler: 0.08,
            individual: 0.06,
            team_matches: 0.05,
            team_cross_imps: 0.05,
            swiss_pairs: 0.02,
        }
    }
}

impl EventMix {
    fn weights(&self) -> [f64; 7] {
        [
            self.pairs_matchpoints,
            self.pairs_cross_imps,
            self.pairs_butler,
            self.individual,
            self.team_matches,
            self.team_cross_imps,
            self.swiss_pairs,
        ]
    }
}

/// What to generate. The defaults give the shipped sample: a few hundred members over
/// two years, about a megabyte as Parquet.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthConfig {
    /// Seed of every random choice (default 2026).
    pub seed: u64,
    /// Federation members (default 300). Foreign guests come on top.
    pub members: usize,
    /// Clubs (default 8); members join them unevenly, the first clubs being larger.
    pub clubs: usize,
    /// Districts the clubs are spread over (default 3).
    pub districts: usize,
    /// First day of the period (default 2024-11-01).
    pub start: NaiveDate,
    /// Length of the period in months (default 24).
    pub months: u32,
    /// Sessions a member plays per month on average (default 1.5); sets how many
    /// competitions each club runs.
    pub sessions_per_member: f64,
    pub mix: EventMix,
    /// Share of events reported as board-level rows rather than results (default 0.6).
    pub board_level_share: f64,
    /// Foreign guests in the member list, as a share of members (default 0.02).
    pub foreign_share: f64,
    /// Distinct non-members (ids absent from the member list), as a share of members
    /// (default 0.05).
    pub non_member_share: f64,
    /// Chance that a seat in a partnership or team is taken by someone else: a
    /// non-member, a foreign guest or a member of any club (default 0.06).
    pub substitute_rate: f64,
    /// Share of members with an explicit starting handicap (default 0.03).
    pub start_handicap_share: f64,
    /// Share of pairs events that are handicap tournaments (default 0.1).
    pub handicap_event_share: f64,
    /// Share of competitions that are not rated (default 0.03).
    pub unrated_share: f64,
    /// Share of competitions with a class (default 0.1; team leagues get one more often).
    pub class_share: f64,
    /// Share of pairs events played over two sessions on the same date (default 0.15).
    pub double_session_share: f64,
    pub play: PlayModel,
    /// The handicap model's constants the synthetic play follows: the 0–52 scale, the
    /// starting formula and `C_b` (default: the built-in `fsb-2007` set).
    pub factors: FactorSet,
    /// Skill that changes over time (none by default: the shipped sample's players keep
    /// their strength).
    pub drift: Option<Drift>,
}

/// How players' skill and habits change in a drifting federation.
#[derive(Debug, Clone, PartialEq)]
pub struct Drift {
    /// Share of members who are newcomers (default 0.35): they join in a random month of
    /// the first three quarters of the period, weaker than the level they grow into.
    pub newcomer_share: f64,
    /// How much weaker a newcomer starts, in handicap units (default 14, drawn between
    /// half and one and a half times it).
    pub newcomer_gap: f64,
    /// Time constant of the improvement curve in months (default 10).
    pub improvement_months: f64,
    /// Decline of established players in units per year, drawn between 0 and twice this
    /// per player (default 0.8).
    pub decline_per_year: f64,
    /// Share of members who stop playing in a random month after the first quarter
    /// (default 0.15).
    pub stop_share: f64,
    /// Chance that a partnership plays together on a given evening (default 0.7); the
    /// others are shuffled among the evening's irregular pairs.
    pub regular_partner: f64,
}

impl Default for Drift {
    fn default() -> Self {
        Drift {
            newcomer_share: 0.35,
            newcomer_gap: 14.0,
            improvement_months: 10.0,
            decline_per_year: 0.8,
            stop_share: 0.15,
            regular_partner: 0.7,
        }
    }
}

impl Drift {
    /// Draws one member's career around their `level`; no level is weaker than `cap`,
    /// the factor set's weakest handicap.
    pub fn career(
        &self,
        rng: &mut rng::Rng,
        level: f64,
        months: u32,
        cap: f64,
    ) -> federation::PersonDrift {
        let span = f64::from(months.max(1));
        let newcomer = rng.chance(self.newcomer_share);
        let joined = if newcomer {
            (rng.unit() * span * 0.75).floor() as u32
        } else {
            0
        };
        let start_level = if newcomer {
            (level + self.newcomer_gap * rng.uniform(0.5, 1.5)).min(cap)
        } else {
            level
        };
        let decline_per_month = if newcomer {
            0.0
        } else {
            self.decline_per_year * rng.uniform(0.0, 2.0) / 12.0
        };
        let left = rng
            .chance(self.stop_share)
            .then(|| (span * rng.uniform(0.25, 1.0)).floor() as u32)
            .map(|l| l.max(joined + 1));
        federation::PersonDrift {
            joined,
            left,
            start_level,
            decline_per_month,
        }
    }
}

impl Default for SynthConfig {
    fn default() -> Self {
        SynthConfig {
            seed: 2026,
            members: 300,
            clubs: 8,
            districts: 3,
            start: NaiveDate::from_ymd_opt(2024, 11, 1).unwrap_or_default(),
            months: 24,
            sessions_per_member: 1.5,
            mix: EventMix::default(),
            board_level_share: 0.6,
            foreign_share: 0.02,
            non_member_share: 0.05,
            substitute_rate: 0.06,
            start_handicap_share: 0.03,
            handicap_event_share: 0.1,
            unrated_share: 0.03,
            class_share: 0.1,
            double_session_share: 0.15,
            play: PlayModel::default(),
            drift: None,
            factors: FactorSet::default(),
        }
    }
}

/// The whole federation as one dataset. The benchmark size (50 000 members over 60
/// months) holds about 14 million board rows, several gigabytes as structs; there, use
/// [`Federation::new`] and [`month`] to produce and write it a month at a time.
pub fn generate(config: &SynthConfig) -> Dataset {
    let fed = Federation::new(config);
    let months: Vec<Dataset> = (0..config.months)
        .into_par_iter()
        .map(|m| month(&fed, m))
        .collect();
    let mut out = Dataset {
        members: fed.member_rows.clone(),
        ..Dataset::default()
    };
    for m in months {
        out.competitions.extend(m.competitions);
        out.entrants.extend(m.entrants);
        out.results.extend(m.results);
        out.boards.extend(m.boards);
    }
    out
}

/// The competitions of month `index` (0-based from `config.start`), without members.
pub fn month(fed: &Federation, index: u32) -> Dataset {
    let config = &fed.config;
    let mut out = Dataset::default();
    let (Some(from), Some(to)) = (
        config.start.checked_add_months(Months::new(index)),
        config.start.checked_add_months(Months::new(index + 1)),
    ) else {
        return out;
    };
    for (c, club) in fed.clubs.iter().enumerate() {
        let dates: Vec<NaiveDate> = from
            .iter_days()
            .take_while(|d| *d < to)
            .filter(|d| club.nights.contains(&d.weekday().num_days_from_monday()))
            .collect();
        let mut rng = rng::Rng::derive(config.seed, &[1, c as u64, u64::from(index)]);
        let players = match config.drift {
            Some(_) => club
                .members
                .iter()
                .filter(|&&p| fed.active(p, index))
                .count(),
            None => club.members.len(),
        };
        let budget = rng.round_random(players as f64 * config.sessions_per_member);
        let part = events::MonthBuilder::new(fed, club, rng, dates, index).run(budget);
        out.competitions.extend(part.competitions);
        out.entrants.extend(part.entrants);
        out.results.extend(part.results);
        out.boards.extend(part.boards);
    }
    out
}

#[cfg(test)]
mod tests;
