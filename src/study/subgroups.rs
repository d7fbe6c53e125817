//! The test period's figures by subgroup of entrants, so that an analyst sees where a
//! set wins and where it loses, not only that it wins on the whole.
//!
//! A set can beat a baseline on the whole while losing on the entrants that matter
//! most to a club (its newcomers, its pick-up pairs), and the figures of the whole
//! hide it. Each matchpoint entrant of the test period is put in one group of each
//! dimension below, from what was known before its competition (the first set's replay
//! of the handicaps, and the sessions counted in replay order), and every set and
//! baseline is judged on each group: the entrants, r, RMSE and the mean bias
//! (achieved − expected: positive when the group does better than predicted).
//!
//! * `newcomer`: a member of the entrant had fewer than [`NEWCOMER_SESSIONS`] rated
//!   sessions behind them;
//! * `partnership`: how many sessions the two members had played together: `new` (none),
//!   `occasional` (fewer than [`REGULAR_SESSIONS`]), `regular`;
//! * `mix`: the gap between the two partners' handicaps, `level` below
//!   [`MIX_UNITS`] units, `strong-weak` from there;
//! * `distance`: how far the pair's handicap lies from its field's, in handicap units,
//!   in bands of [`DISTANCE_BANDS`].
//!
//! Individual entrants count only in `newcomer` and `distance`. An entrant with a guest or
//! a non-member is in no group: no track is judged on it (see the study's module doc).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDate;

use super::bootstrap::Sums;
use super::{judged, MetricRow, Study, StudyData};
use crate::pipeline::prepare::Seat;
use crate::pipeline::replay::Change;

/// Rated sessions below which a member is a newcomer.
pub const NEWCOMER_SESSIONS: u32 = 10;
/// Sessions together from which a partnership is regular.
pub const REGULAR_SESSIONS: u32 = 10;
/// Handicap units between two partners from which a pair is a strong–weak mix.
pub const MIX_UNITS: f64 = 10.0;
/// Upper bounds of the bands of the pair's distance from its field (handicap units);
/// the names of the bands follow, the last one open.
pub const DISTANCE_BANDS: [f64; 3] = [4.0, 8.0, 16.0];
const BAND_NAMES: [&str; 4] = ["0-4", "4-8", "8-16", "16+"];

/// (dimension, group) of one entrant.
type Label = (&'static str, &'static str);

/// Every group an entrant can be put in, in the order of the rows.
const LABELS: [Label; 12] = [
    ("distance", "0-4"),
    ("distance", "16+"),
    ("distance", "4-8"),
    ("distance", "8-16"),
    ("mix", "level"),
    ("mix", "strong-weak"),
    ("newcomer", "no"),
    ("newcomer", "yes"),
    ("partnership", "new"),
    ("partnership", "occasional"),
    ("partnership", "regular"),
    ("partnership", "unknown"),
];

/// A test-period entrant judged by the subgroups, and its groups: bit `i` for
/// `LABELS[i]`.
#[derive(Debug, Clone, Copy)]
struct Labelled {
    competition: u32,
    entrant: u32,
    groups: u16,
}

/// Puts each judged entrant of the test period in its groups while the first set is
/// replayed (the replay that decides which fields are rated), so that the subgroups
/// need no replay of their own; the entrants are judged once every track is made.
#[derive(Debug)]
pub struct Labeller<'a> {
    data: &'a StudyData,
    burn_in_until: NaiveDate,
    counts: Counts,
    labelled: Vec<Labelled>,
}

impl<'a> Labeller<'a> {
    pub fn new(data: &'a StudyData, burn_in_until: NaiveDate) -> Self {
        Labeller {
            data,
            burn_in_until,
            counts: Counts::default(),
            labelled: Vec::new(),
        }
    }

    /// Labels a month of the first set's changes, then counts its sessions.
    pub fn month(&mut self, month: &[Change]) {
        for rows in month.chunk_by(|a, b| a.competition == b.competition) {
            self.label_competition(rows);
            self.counts.add(rows);
        }
    }

    /// Labels one competition's judged entrants by what was known before it (`counts`
    /// holds the sessions before it).
    fn label_competition(&mut self, rows: &[Change]) {
        let Some(competition) = rows.first().map(|c| c.competition) else {
            return;
        };
        let Some(c) = self.data.competitions.get(competition) else {
            return;
        };
        if c.date <= self.burn_in_until || !judged(c) {
            return;
        }
        for entrant in rows.iter().map(|c| c.entrant).collect::<BTreeSet<_>>() {
            let players: Vec<&Change> = rows.iter().filter(|c| c.entrant == entrant).collect();
            let groups = self
                .counts
                .labels(&players)
                .iter()
                .filter_map(|label| LABELS.iter().position(|l| l == label))
                .fold(0u16, |bits, i| bits | 1 << i);
            if groups == 0 {
                continue;
            }
            let (Ok(competition), Ok(entrant)) = (competition.try_into(), entrant.try_into())
            else {
                continue;
            };
            self.labelled.push(Labelled {
                competition,
                entrant,
                groups,
            });
        }
    }

    /// The subgroup rows of every track of `study`: `subgroup_entrants`,
    /// `subgroup_pearson_r`, `subgroup_rmse` and `subgroup_mean_bias`, period `test`,
    /// with `dimension=group` in `detail`. Each group keeps sums, not its entrants.
    pub fn rows(&self, study: &Study) -> Vec<MetricRow> {
        let mut groups = vec![vec![Sums::default(); study.tracks.len()]; LABELS.len()];
        // Entrants are labelled in replay order, which is the order of the tracks'
        // predictions (by competition, then entrant): each track's are walked once.
        let mut next = vec![0usize; study.tracks.len()];
        for entrant in &self.labelled {
            let key = (entrant.competition as usize, entrant.entrant as usize);
            for (t, track) in study.tracks.iter().enumerate() {
                let predictions = &track.predictions;
                while predictions
                    .get(next[t])
                    .is_some_and(|p| (p.competition, p.entrant) < key)
                {
                    next[t] += 1;
                }
                let Some(p) = predictions
                    .get(next[t])
                    .filter(|p| (p.competition, p.entrant) == key)
                else {
                    continue;
                };
                for (i, sums) in groups.iter_mut().enumerate() {
                    if entrant.groups & 1 << i != 0 {
                        sums[t].add(p.expected, p.achieved);
                    }
                }
            }
        }
        group_rows(study, &groups)
    }
}

/// The rows of every group and track.
fn group_rows(study: &Study, groups: &[Vec<Sums>]) -> Vec<MetricRow> {
    let mut out = Vec::new();
    for (track, k) in study.tracks.iter().zip(0..) {
        for ((dimension, group), sums) in LABELS.iter().zip(groups) {
            let Some(s) = sums.get(k).filter(|s| s.n > 0.0) else {
                continue;
            };
            let detail = format!("{dimension}={group}");
            for (metric, value) in [
                ("subgroup_entrants", Some(s.n)),
                ("subgroup_pearson_r", s.pearson()),
                ("subgroup_rmse", s.rmse()),
                ("subgroup_mean_bias", s.bias()),
            ] {
                if let Some(value) = value {
                    out.push(MetricRow {
                        set: track.name.clone(),
                        hash: track.hash.clone(),
                        kind: track.kind.label(),
                        period: "test".into(),
                        metric: metric.into(),
                        value,
                        detail: Some(detail.clone()),
                        low: None,
                        high: None,
                    });
                }
            }
        }
    }
    out
}

/// Sessions counted in replay order: per member, and per pair of members.
#[derive(Debug, Default)]
struct Counts {
    sessions: HashMap<u32, u32>,
    together: HashMap<(u32, u32), u32>,
}

impl Counts {
    /// The groups of one entrant, from its players' rows and the sessions before.
    fn labels(&self, players: &[&Change]) -> Vec<Label> {
        let members: Vec<u32> = players
            .iter()
            .filter_map(|c| match c.seat {
                Seat::Member(m) => Some(m),
                _ => None,
            })
            .collect();
        let newcomer = members
            .iter()
            .any(|m| self.sessions.get(m).copied().unwrap_or(0) < NEWCOMER_SESSIONS);
        if members.len() < players.len() {
            return Vec::new();
        }
        let mut labels = vec![("newcomer", if newcomer { "yes" } else { "no" })];
        let Some(first) = players.first() else {
            return labels;
        };
        let o = &first.outcome;
        labels.push(("distance", band(o.pair_handicap - o.field_handicap)));
        if players.len() == 2 {
            let partnership = match members.as_slice() {
                [a, b] => match self.together.get(&pair_key(*a, *b)).copied().unwrap_or(0) {
                    0 => "new",
                    n if n < REGULAR_SESSIONS => "occasional",
                    _ => "regular",
                },
                _ => "unknown",
            };
            labels.push(("partnership", partnership));
            if let Some(partner) = o.partner_handicap {
                let mix = (o.handicap_before - partner).abs() >= MIX_UNITS;
                labels.push(("mix", if mix { "strong-weak" } else { "level" }));
            }
        }
        labels
    }

    /// Counts a competition's sessions: one per member, one per pair of members of an
    /// entrant of two.
    fn add(&mut self, rows: &[Change]) {
        let mut seen = BTreeSet::new();
        let mut by_entrant: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        for c in rows {
            if let Seat::Member(m) = c.seat {
                if seen.insert(m) {
                    *self.sessions.entry(m).or_default() += 1;
                }
                by_entrant.entry(c.entrant).or_default().push(m);
            }
        }
        for members in by_entrant.values() {
            if let [a, b] = members.as_slice() {
                *self.together.entry(pair_key(*a, *b)).or_default() += 1;
            }
        }
    }
}

/// The band of a distance from the field, in handicap units either way.
fn band(distance: f64) -> &'static str {
    let d = distance.abs();
    DISTANCE_BANDS
        .iter()
        .position(|high| d < *high)
        .map_or(BAND_NAMES[DISTANCE_BANDS.len()], |i| BAND_NAMES[i])
}

/// A pair of members, in order, so that both orders find the same count.
fn pair_key(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_bands_by_hand() {
        assert_eq!(band(0.0), "0-4");
        assert_eq!(band(-3.99), "0-4");
        assert_eq!(band(4.0), "4-8");
        assert_eq!(band(-15.0), "8-16");
        assert_eq!(band(16.0), "16+");
    }

    /// The rows come out group by group in the order of the names, as they always have.
    #[test]
    fn groups_are_listed_in_order_of_their_names() {
        let mut sorted = LABELS;
        sorted.sort();
        assert_eq!(sorted, LABELS);
    }

    #[test]
    fn pairs_are_counted_whichever_way_they_sit() {
        assert_eq!(pair_key(7, 3), pair_key(3, 7));
    }

    fn change(entrant: usize, member: u32, handicap: f64, partner: f64) -> Change {
        Change {
            competition: 0,
            entrant,
            member_id: i64::from(member),
            seat: Seat::Member(member),
            outcome: crate::model::PlayerOutcome {
                entrant,
                member_id: i64::from(member),
                handicap_before: handicap,
                partner_handicap: Some(partner),
                pair_handicap: (handicap + partner) / 2.0,
                field_handicap: 30.0,
                expected: 0.0,
                achieved: 0.0,
                n_b: 24,
                n_g: 24,
                delta: 0.0,
                handicap_after: handicap,
                updated: true,
            },
            handicap_after: handicap,
        }
    }

    /// Members 1 and 2 (at 10 and 24: 14 apart, pair 17, 13 from a field at 30) play
    /// together ten times; then they are a regular, strong–weak pair of old hands, 8–16
    /// from the field, and 1 with a new partner 3 is a new pair with a newcomer.
    #[test]
    fn groups_by_hand() {
        let mut counts = Counts::default();
        let pair = [change(0, 1, 10.0, 24.0), change(0, 2, 24.0, 10.0)];
        for _ in 0..REGULAR_SESSIONS {
            counts.add(&pair);
        }
        let players: Vec<&Change> = pair.iter().collect();
        assert_eq!(
            counts.labels(&players),
            vec![
                ("newcomer", "no"),
                ("distance", "8-16"),
                ("partnership", "regular"),
                ("mix", "strong-weak"),
            ]
        );
        let new = [change(1, 1, 10.0, 12.0), change(1, 3, 12.0, 10.0)];
        let players: Vec<&Change> = new.iter().collect();
        assert_eq!(
            counts.labels(&players),
            vec![
                ("newcomer", "yes"),
                ("distance", "16+"),
                ("partnership", "new"),
                ("mix", "level"),
            ]
        );
    }
}
