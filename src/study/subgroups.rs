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
//!   `occasional` (fewer than [`REGULAR_SESSIONS`]), `regular`; pairs with a guest or a
//!   non-member are `unknown`;
//! * `mix`: the gap between the two partners' handicaps, `level` below
//!   [`MIX_UNITS`] units, `strong-weak` from there;
//! * `distance`: how far the pair's handicap lies from its field's, in handicap units,
//!   in bands of [`DISTANCE_BANDS`].
//!
//! Individual entrants count only in `newcomer` and `distance`.

use std::collections::{BTreeMap, HashMap};

use super::{judged, metrics, MetricRow, Study, StudyData, StudySet};
use crate::error::Result;
use crate::pipeline::prepare::Seat;
use crate::pipeline::replay::{self, Mode};

/// Rated sessions below which a member is a newcomer.
pub const NEWCOMER_SESSIONS: u32 = 10;
/// Sessions together from which a partnership is regular.
pub const REGULAR_SESSIONS: u32 = 10;
/// Handicap units between two partners from which a pair is a strong–weak mix.
pub const MIX_UNITS: f64 = 10.0;
/// Upper bounds of the bands of the pair's distance from its field (handicap units).
pub const DISTANCE_BANDS: [f64; 3] = [4.0, 8.0, 16.0];

/// The group of each dimension of one entrant: (dimension, group).
type Labels = Vec<(&'static str, String)>;

/// Expected and achieved results of one group's entrants, by (dimension, group).
type Groups = BTreeMap<(&'static str, String), (Vec<f64>, Vec<f64>)>;

/// The subgroup rows of every track of `study`: `subgroup_entrants`,
/// `subgroup_pearson_r`, `subgroup_rmse` and `subgroup_mean_bias`, period `test`,
/// with `dimension=group` in `detail`.
pub fn rows(data: &StudyData, first: &StudySet, study: &Study) -> Result<Vec<MetricRow>> {
    let labels = labels(data, first)?;
    let mut out = Vec::new();
    for track in &study.tracks {
        let mut groups = Groups::new();
        for p in &track.predictions {
            if study.dates[p.competition] <= study.burn_in_until {
                continue;
            }
            for (dimension, group) in labels
                .get(&(p.competition, p.entrant))
                .into_iter()
                .flatten()
            {
                let g = groups.entry((dimension, group.clone())).or_default();
                g.0.push(p.expected);
                g.1.push(p.achieved);
            }
        }
        for ((dimension, group), (x, y)) in &groups {
            let detail = format!("{dimension}={group}");
            for (metric, value) in [
                ("subgroup_entrants", Some(x.len() as f64)),
                ("subgroup_pearson_r", metrics::pearson(x, y)),
                ("subgroup_rmse", metrics::rmse(x, y)),
                ("subgroup_mean_bias", metrics::bias(x, y)),
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
    Ok(out)
}

/// The groups of every judged entrant, by (competition, entrant), from `first`'s
/// replay: the handicaps before the competition, and the sessions counted so far.
fn labels(data: &StudyData, first: &StudySet) -> Result<HashMap<(usize, usize), Labels>> {
    let mut states = data.registry.starting_states(&first.factors)?;
    let out = replay::replay(
        &first.factors,
        Mode::Live,
        &data.competitions,
        &mut states,
        &|_| {},
    );
    let mut sessions: HashMap<u32, u32> = HashMap::new();
    let mut together: HashMap<(u32, u32), u32> = HashMap::new();
    let mut labels = HashMap::new();
    let mut at = 0;
    while at < out.changes.len() {
        let competition = out.changes[at].competition;
        let end = out.changes[at..]
            .iter()
            .position(|c| c.competition != competition)
            .map_or(out.changes.len(), |n| at + n);
        let rows = &out.changes[at..end];
        if data.competitions.get(competition).is_some_and(judged) {
            for entrant in rows
                .iter()
                .map(|c| c.entrant)
                .collect::<std::collections::BTreeSet<_>>()
            {
                let players: Vec<&replay::Change> =
                    rows.iter().filter(|c| c.entrant == entrant).collect();
                labels.insert(
                    (competition, entrant),
                    entrant_labels(&players, &sessions, &together),
                );
            }
        }
        count(rows, &mut sessions, &mut together);
        at = end;
    }
    Ok(labels)
}

/// The groups of one entrant, from its players' rows.
fn entrant_labels(
    players: &[&replay::Change],
    sessions: &HashMap<u32, u32>,
    together: &HashMap<(u32, u32), u32>,
) -> Labels {
    let members: Vec<u32> = players
        .iter()
        .filter_map(|c| match c.seat {
            Seat::Member(m) => Some(m),
            _ => None,
        })
        .collect();
    let newcomer = members
        .iter()
        .any(|m| sessions.get(m).copied().unwrap_or(0) < NEWCOMER_SESSIONS);
    let mut labels: Labels = vec![("newcomer", if newcomer { "yes" } else { "no" }.into())];
    if let Some(first) = players.first() {
        let o = &first.outcome;
        let distance = (o.pair_handicap - o.field_handicap).abs();
        labels.push(("distance", band(distance)));
        if players.len() == 2 {
            let partnership = match members.as_slice() {
                [a, b] => match together.get(&pair_key(*a, *b)).copied().unwrap_or(0) {
                    0 => "new",
                    n if n < REGULAR_SESSIONS => "occasional",
                    _ => "regular",
                },
                _ => "unknown",
            };
            labels.push(("partnership", partnership.into()));
            if let Some(partner) = o.partner_handicap {
                let mix = (o.handicap_before - partner).abs() >= MIX_UNITS;
                labels.push(("mix", if mix { "strong-weak" } else { "level" }.into()));
            }
        }
    }
    labels
}

/// The band of a distance from the field, as `a-b` units (`16+` for the last).
fn band(distance: f64) -> String {
    let mut low = 0.0;
    for high in DISTANCE_BANDS {
        if distance < high {
            return format!("{low}-{high}");
        }
        low = high;
    }
    format!("{low}+")
}

/// A pair of members, in order, so that both orders find the same count.
fn pair_key(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

/// Counts a competition's sessions: one per member, one per pair of members of an
/// entrant of two.
fn count(
    rows: &[replay::Change],
    sessions: &mut HashMap<u32, u32>,
    together: &mut HashMap<(u32, u32), u32>,
) {
    let mut seen = std::collections::BTreeSet::new();
    let mut by_entrant: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for c in rows {
        if let Seat::Member(m) = c.seat {
            if seen.insert(m) {
                *sessions.entry(m).or_default() += 1;
            }
            by_entrant.entry(c.entrant).or_default().push(m);
        }
    }
    for members in by_entrant.values() {
        if let [a, b] = members.as_slice() {
            *together.entry(pair_key(*a, *b)).or_default() += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_bands_by_hand() {
        assert_eq!(band(0.0), "0-4");
        assert_eq!(band(3.99), "0-4");
        assert_eq!(band(4.0), "4-8");
        assert_eq!(band(15.0), "8-16");
        assert_eq!(band(16.0), "16+");
    }

    #[test]
    fn pairs_are_counted_whichever_way_they_sit() {
        assert_eq!(pair_key(7, 3), pair_key(3, 7));
    }
}
