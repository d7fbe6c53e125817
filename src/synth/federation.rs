//! The people of the synthetic federation: members with a hidden strength, their clubs,
//! partnerships and teams, foreign guests and non-members.
//!
//! Strength is kept on the handicap scale itself (0 the country's best, 52 a beginner),
//! so that a correct model should recover it, and masterpoints are drawn around it
//! through the inverse of the starting formula `52/(1+0.01·MP)`: a newcomer's starting
//! handicap is then a noisy but fair guess of the truth, as the model assumes.

use std::collections::HashMap;

use crate::dataset::{Member, MemberId, MemberKind};
use crate::scoring::conventions::{
    ByeScore, Conventions, DatumRounding, DatumTrim, ImpAggregate, MpScale,
};

use super::rng::Rng;
use super::SynthConfig;
use crate::model::factors::StartFormula;

const FIRST_NAMES: [&str; 24] = [
    "Anna",
    "Erik",
    "Maria",
    "Lars",
    "Karin",
    "Anders",
    "Eva",
    "Johan",
    "Kerstin",
    "Per",
    "Ingrid",
    "Nils",
    "Birgitta",
    "Olof",
    "Margareta",
    "Gunnar",
    "Elisabeth",
    "Sven",
    "Ulla",
    "Bengt",
    "Astrid",
    "Karl",
    "Sofia",
    "Mats",
];
const LAST_NAMES: [&str; 24] = [
    "Andersson",
    "Johansson",
    "Karlsson",
    "Nilsson",
    "Eriksson",
    "Larsson",
    "Olsson",
    "Persson",
    "Svensson",
    "Gustafsson",
    "Pettersson",
    "Jonsson",
    "Jansson",
    "Hansson",
    "Bengtsson",
    "Lindberg",
    "Lindqvist",
    "Berg",
    "Holm",
    "Sandberg",
    "Lundgren",
    "Ekström",
    "Strand",
    "Wallin",
];
const CLUB_NAMES: [&str; 12] = [
    "Norrsken",
    "Fyrklövern",
    "Sjöstaden",
    "Skogsbrynet",
    "Hamnen",
    "Kungsgatan",
    "Ekbacken",
    "Solvändan",
    "Tornet",
    "Älvdalen",
    "Strandvägen",
    "Lyktan",
];
const DISTRICT_NAMES: [&str; 5] = ["Norra", "Mellersta", "Södra", "Västra", "Östra"];

/// The starting handicap the member list's masterpoints give: `base/(1+c·MP)`
/// (`52/(1+0.01·MP)` in `fsb-2007`).
pub fn start_from_masterpoints(start: &StartFormula, masterpoints: f64) -> f64 {
    start.base / (1.0 + start.c * masterpoints.max(0.0))
}

/// The masterpoints whose starting handicap is `handicap` (0 at `base` and above).
pub fn masterpoints_for(start: &StartFormula, handicap: f64) -> f64 {
    if handicap >= start.base || start.c <= 0.0 {
        return 0.0;
    }
    (1.0 / start.c) * (start.base / handicap.max(0.5) - 1.0)
}

/// A player who may sit at a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Person {
    pub id: MemberId,
    /// True strength on the handicap scale (with drift: the level a newcomer tends to, or
    /// an established player's level at the start).
    pub level: f64,
    /// How the strength moves over time, when the configuration asks for drift.
    pub drift: Option<PersonDrift>,
}

/// One member's career in a drifting federation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PersonDrift {
    /// First month (0-based from the start) the member plays.
    pub joined: u32,
    /// The member plays no more from this month on.
    pub left: Option<u32>,
    /// Strength when joining; a newcomer starts weaker (higher) and improves towards
    /// `level` with the configured time constant.
    pub start_level: f64,
    /// Handicap units lost per month (slow decline of established players).
    pub decline_per_month: f64,
}

/// A club, its scoring program's conventions and its regular partnerships and teams.
#[derive(Debug, Clone)]
pub struct Club {
    pub code: String,
    pub name: String,
    pub district: String,
    pub conventions: Conventions,
    /// Indices into [`Federation::people`].
    pub members: Vec<usize>,
    pub partnerships: Vec<[usize; 2]>,
    /// Each team is two partnerships: players 1+2 and 3+4.
    pub teams: Vec<[usize; 4]>,
    /// Weekdays (0 = Monday) of the club's playing nights.
    pub nights: [u32; 2],
}

/// Everyone who can play, built once from the configuration.
#[derive(Debug, Clone)]
pub struct Federation {
    pub config: SynthConfig,
    pub people: Vec<Person>,
    pub member_rows: Vec<Member>,
    pub clubs: Vec<Club>,
    /// Indices into `people`.
    pub all_members: Vec<usize>,
    pub foreign: Vec<usize>,
    pub non_members: Vec<usize>,
    pub all_partnerships: Vec<[usize; 2]>,
    by_id: HashMap<MemberId, usize>,
}

fn round_to(x: f64, step: f64) -> f64 {
    (x / step).round() * step
}

/// The clubs, named and placed in districts, without members yet.
fn new_clubs(clubs_n: usize, districts_n: usize) -> Vec<Club> {
    (0..clubs_n)
        .map(|c| {
            let district = DISTRICT_NAMES.get(c % districts_n).map_or_else(
                || format!("Distrikt {}", c % districts_n + 1),
                |d| (*d).to_string(),
            );
            let name = match CLUB_NAMES.get(c) {
                Some(n) => format!("BK {n}"),
                None => format!("BK {}", c + 1),
            };
            Club {
                code: format!("K{:02}", c + 1),
                name,
                district,
                conventions: club_conventions(c),
                members: Vec::new(),
                partnerships: Vec::new(),
                teams: Vec::new(),
                nights: [(c % 5) as u32, ((c + 2) % 5) as u32],
            }
        })
        .collect()
}

/// Foreign guests and non-members, with numbers in their own blocks past the members':
/// their indices among `people`.
fn outsiders(
    config: &SynthConfig,
    rng: &mut Rng,
    first_member: i64,
    people: &mut Vec<Person>,
    member_rows: &mut Vec<Member>,
) -> (Vec<usize>, Vec<usize>) {
    let cap = config.factors.cap;
    let block = |after: i64| (after / 100_000 + 1) * 100_000 + 1;
    let first_foreign = block(first_member + config.members as i64);
    let foreign_n = (config.members as f64 * config.foreign_share).ceil() as usize;
    let mut foreign = Vec::new();
    for j in 0..foreign_n {
        let level = (20.0 + 10.0 * rng.normal()).clamp(0.5, cap);
        let id = first_foreign + j as i64;
        foreign.push(people.len());
        people.push(Person {
            id,
            level,
            drift: None,
        });
        let mut member = Member::new(id);
        member.name = Some(random_name(rng));
        member.kind = MemberKind::Foreign;
        member_rows.push(member);
    }
    let first_non_member = block(first_foreign + foreign_n as i64);
    let non_member_n = (config.members as f64 * config.non_member_share).ceil() as usize;
    let mut non_members = Vec::new();
    for j in 0..non_member_n {
        let level = (32.0 + 9.0 * rng.normal()).clamp(0.5, cap);
        non_members.push(people.len());
        people.push(Person {
            id: first_non_member + j as i64,
            level,
            drift: None,
        });
    }
    (foreign, non_members)
}

/// Pairs each club's members at random into partnerships, and partnerships into teams;
/// every club's partnerships, club after club.
fn pair_up(rng: &mut Rng, clubs: &mut [Club]) -> Vec<[usize; 2]> {
    let mut all_partnerships = Vec::new();
    for club in clubs.iter_mut() {
        let mut order = club.members.clone();
        rng.shuffle(&mut order);
        club.partnerships = order.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
        club.teams = club
            .partnerships
            .chunks_exact(2)
            .map(|t| [t[0][0], t[0][1], t[1][0], t[1][1]])
            .collect();
        all_partnerships.extend(club.partnerships.iter().copied());
    }
    all_partnerships
}

impl Federation {
    pub fn new(config: &SynthConfig) -> Federation {
        let cap = config.factors.cap;
        let mut rng = Rng::derive(config.seed, &[0]);
        // Careers draw from their own stream, so a federation without drift is the same
        // with or without this code.
        let mut drift_rng = Rng::derive(config.seed, &[7]);
        let clubs_n = config.clubs.max(1);
        let districts_n = config.districts.max(1);
        let mut clubs = new_clubs(clubs_n, districts_n);
        // Clubs differ in size: weight 1/(1 + c/4).
        let club_weights: Vec<f64> = (0..clubs_n).map(|c| 1.0 / (1.0 + c as f64 / 4.0)).collect();

        let mut people = Vec::new();
        let mut member_rows = Vec::new();
        let mut all_members = Vec::new();
        let first_member = 100_001i64;
        for i in 0..config.members {
            let level = (24.0 + 11.0 * rng.normal()).clamp(0.5, cap);
            let c = rng.weighted(&club_weights);
            let id = first_member + i as i64;
            let idx = people.len();
            let drift = config
                .drift
                .as_ref()
                .map(|d| d.career(&mut drift_rng, level, config.months, cap));
            people.push(Person { id, level, drift });
            all_members.push(idx);
            clubs[c].members.push(idx);
            // Masterpoints reflect the strength when the member first appears.
            let known = drift.map_or(level, |d| d.start_level);
            let start_guess = (known + 3.0 * rng.normal()).clamp(1.0, cap);
            let mut member = Member::new(id);
            member.name = Some(random_name(&mut rng));
            member.club = Some(clubs[c].name.clone());
            member.district = Some(clubs[c].district.clone());
            member.masterpoints = masterpoints_for(&config.factors.start, start_guess).round();
            if rng.chance(config.start_handicap_share) {
                member.start_handicap =
                    Some(round_to((level + 2.0 * rng.normal()).clamp(0.0, cap), 0.1));
            }
            member_rows.push(member);
        }
        let (foreign, non_members) = outsiders(
            config,
            &mut rng,
            first_member,
            &mut people,
            &mut member_rows,
        );

        let all_partnerships = pair_up(&mut rng, &mut clubs);
        let by_id = people.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
        Federation {
            config: config.clone(),
            people,
            member_rows,
            clubs,
            all_members,
            foreign,
            non_members,
            all_partnerships,
            by_id,
        }
    }

    /// The hidden strength of any player id the federation generated (members, foreign
    /// guests and non-members), on the handicap scale.
    pub fn true_handicap(&self, id: MemberId) -> Option<f64> {
        self.by_id
            .get(&id)
            .and_then(|&i| self.people.get(i))
            .map(|p| p.level)
    }

    pub fn level(&self, person: usize) -> f64 {
        self.people.get(person).map_or(26.0, |p| p.level)
    }

    /// The strength of a person in month `month` (0-based from the start): the fixed
    /// level without drift; with drift, a newcomer's improvement curve
    /// `level + (start − level)·exp(−(month − joined)/τ)` plus the slow decline.
    pub fn level_at(&self, person: usize, month: u32) -> f64 {
        let Some(p) = self.people.get(person) else {
            return 26.0;
        };
        match (&p.drift, &self.config.drift) {
            (Some(d), Some(cfg)) => {
                let since = f64::from(month.saturating_sub(d.joined));
                let curve = (d.start_level - p.level) * (-since / cfg.improvement_months).exp();
                (p.level + curve + d.decline_per_month * f64::from(month))
                    .clamp(0.5, self.config.factors.cap)
            }
            _ => p.level,
        }
    }

    /// Whether a person plays in month `month` (always, without drift).
    pub fn active(&self, person: usize, month: u32) -> bool {
        match self.people.get(person).and_then(|p| p.drift) {
            Some(d) => month >= d.joined && d.left.is_none_or(|l| month < l),
            None => true,
        }
    }

    /// The hidden skill of every member in every month they play: (member id, month
    /// index from the start, skill). Written as `true_skill.parquet` by `sample --drift`.
    pub fn true_skill(&self) -> Vec<(MemberId, u32, f64)> {
        let mut out = Vec::new();
        for &m in &self.all_members {
            for month in 0..self.config.months {
                if self.active(m, month) {
                    out.push((self.id(m), month, self.level_at(m, month)));
                }
            }
        }
        out
    }

    pub fn id(&self, person: usize) -> MemberId {
        self.people.get(person).map_or(0, |p| p.id)
    }
}

fn random_name(rng: &mut Rng) -> String {
    let first = FIRST_NAMES[rng.below(FIRST_NAMES.len())];
    let last = LAST_NAMES[rng.below(LAST_NAMES.len())];
    format!("{first} {last}")
}

/// Clubs run different programs: every third club scores like Ruter, every third like
/// Compscore, the rest with the defaults (`Conventions::default()`).
fn club_conventions(club: usize) -> Conventions {
    match club % 3 {
        1 => Conventions {
            mp_scale: MpScale::PlusMinus,
            imp_aggregate: ImpAggregate::Sum,
            bye_score: ByeScore::SessionAverage,
            ..Conventions::default()
        },
        2 => Conventions {
            datum_trim: DatumTrim::TopAndBottom,
            datum_rounding: DatumRounding::Nearest10,
            ..Conventions::default()
        },
        _ => Conventions::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The masterpoint table of `docs/model.md`: MP 0 → 52.0, 10 → 47.3,
    /// 30 → 40.0, 50 → 34.7, 100 → 26.0, 300 → 13.0, 1000 → 4.7, 3000 → 1.68.
    #[test]
    fn masterpoints_invert_the_starting_formula() {
        let fsb = crate::model::FactorSet::default().start;
        let table = [
            (0.0, 52.0),
            (10.0, 47.3),
            (30.0, 40.0),
            (50.0, 34.7),
            (100.0, 26.0),
            (300.0, 13.0),
            (1000.0, 4.7),
            (3000.0, 1.68),
        ];
        for (mp, h) in table {
            assert!(
                (start_from_masterpoints(&fsb, mp) - h).abs() < 0.05,
                "MP {mp}"
            );
            let back = masterpoints_for(&fsb, start_from_masterpoints(&fsb, mp));
            assert!((back - mp).abs() < 1e-9, "MP {mp} → {back}");
        }
        assert!((masterpoints_for(&fsb, 13.0) - 300.0).abs() < 1e-9);
        assert!((masterpoints_for(&fsb, 26.0) - 100.0).abs() < 1e-9);
        assert!(masterpoints_for(&fsb, 60.0).abs() < 1e-12);
    }

    #[test]
    fn starting_handicaps_follow_strength() {
        let fed = Federation::new(&SynthConfig::default());
        let fsb = fed.config.factors.start;
        let pairs: Vec<(f64, f64)> = fed
            .member_rows
            .iter()
            .filter(|m| m.kind == MemberKind::Member)
            .filter_map(|m| {
                Some((
                    fed.true_handicap(m.member_id)?,
                    start_from_masterpoints(&fsb, m.masterpoints),
                ))
            })
            .collect();
        let n = pairs.len() as f64;
        let mean_abs_gap = pairs.iter().map(|(t, h)| (t - h).abs()).sum::<f64>() / n;
        // Noise of 3 units (mean absolute 2.4) plus rounding of masterpoints to whole
        // points and the clamps at 1 and 52.
        assert!(mean_abs_gap < 3.5, "mean |truth − start| {mean_abs_gap}");
        let (mt, mh) = (
            pairs.iter().map(|p| p.0).sum::<f64>() / n,
            pairs.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let cov = pairs.iter().map(|(t, h)| (t - mt) * (h - mh)).sum::<f64>();
        let vt = pairs.iter().map(|(t, _)| (t - mt).powi(2)).sum::<f64>();
        let vh = pairs.iter().map(|(_, h)| (h - mh).powi(2)).sum::<f64>();
        let corr = cov / (vt * vh).sqrt();
        assert!(corr > 0.9, "correlation {corr}");
    }
}
