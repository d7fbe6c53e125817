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

use super::bootstrap::Sums;
use super::{judged, MetricRow, Study, StudyData, StudySet};
use crate::error::Result;
use crate::pipeline::prepare::Seat;
use crate::pipeline::replay::{self, Change, Mode};

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

/// The subgroup rows of every track of `study`: `subgroup_entrants`,
/// `subgroup_pearson_r`, `subgroup_rmse` and `subgroup_mean_bias`, period `test`,
/// with `dimension=group` in `detail`. Each group keeps sums, not its entrants, so the
/// memory is the counts of sessions, whatever the length of the history.
pub fn rows(data: &StudyData, first: &StudySet, study: &Study) -> Result<Vec<MetricRow>> {
    let mut states = data.registry.starting_states(&first.factors)?;
    let mut groups: BTreeMap<Label, Vec<Sums>> = BTreeMap::new();
    let mut counts = Counts::default();
    let mut visit = |month: &[Change]| {
        for rows in month.chunk_by(|a, b| a.competition == b.competition) {
            judge_competition(data, study, &counts, rows, &mut groups);
            counts.add(rows);
        }
    };
    replay::replay_visiting(
        &first.factors,
        Mode::Live,
        &data.competitions,
        &mut states,
        &mut visit,
    );
    Ok(group_rows(study, &groups))
}

/// Adds one competition's judged entrants to the sums of their groups, each labelled by
/// what was known before the competition (`counts` holds the sessions before it).
fn judge_competition(
    data: &StudyData,
    study: &Study,
    counts: &Counts,
    rows: &[Change],
    groups: &mut BTreeMap<Label, Vec<Sums>>,
) {
    let Some(competition) = rows.first().map(|c| c.competition) else {
        return;
    };
    let tested = study
        .dates
        .get(competition)
        .is_some_and(|d| *d > study.burn_in_until);
    if !tested || !data.competitions.get(competition).is_some_and(judged) {
        return;
    }
    let tracks = study.tracks.len();
    for entrant in rows.iter().map(|c| c.entrant).collect::<BTreeSet<_>>() {
        let players: Vec<&Change> = rows.iter().filter(|c| c.entrant == entrant).collect();
        let labels = counts.labels(&players);
        if labels.is_empty() {
            continue;
        }
        // Each track's prediction is found once for all the entrant's groups: a search
        // among millions of predictions per group and track was a quarter of a study.
        let key = (competition, entrant);
        let predicted: Vec<Option<(f64, f64)>> = study
            .tracks
            .iter()
            .map(|track| {
                let at = track
                    .predictions
                    .binary_search_by_key(&key, |p| (p.competition, p.entrant));
                at.ok()
                    .and_then(|i| track.predictions.get(i))
                    .map(|p| (p.expected, p.achieved))
            })
            .collect();
        for label in labels {
            let sums = groups
                .entry(label)
                .or_insert_with(|| vec![Sums::default(); tracks]);
            for (found, s) in predicted.iter().zip(sums.iter_mut()) {
                if let Some((expected, achieved)) = found {
                    s.add(*expected, *achieved);
                }
            }
        }
    }
}

/// The rows of every group and track.
fn group_rows(study: &Study, groups: &BTreeMap<Label, Vec<Sums>>) -> Vec<MetricRow> {
    let mut out = Vec::new();
    for (track, k) in study.tracks.iter().zip(0..) {
        for ((dimension, group), sums) in groups {
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
