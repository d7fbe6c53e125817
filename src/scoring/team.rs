//! Team-match IMPs: the same board in two rooms, with the teams' seats swapped.
//!
//! A team's result on a board is what its two pairs scored together, so the only
//! comparison is between the rooms: the IMPs of the difference of the N/S scores. A
//! team match's standings are the two teams' net IMPs and the victory points they give.

use std::collections::{BTreeMap, BTreeSet};

use crate::dataset::{Competition, Entrant, EntrantResult};
use crate::error::InputError;
use crate::scoring::imps::imps;
use crate::scoring::rows::{results_of, Standing};
use crate::scoring::standings::assign_ranks;
use crate::scoring::tables::{BoardPoints, Table};
use crate::scoring::vp;

/// IMPs on one board to the team that sat N/S in the first room (and E/W in the other).
///
/// ```
/// use bridgehcp::scoring::team::board_imps;
/// // 4S made, 420, in one room; 4S one down, −50, in the other: 470 → 10 IMPs.
/// assert_eq!(board_imps(420, -50), 10);
/// assert_eq!(board_imps(-50, 420), -10);
/// ```
pub fn board_imps(first_room_ns: i32, second_room_ns: i32) -> i32 {
    imps(first_room_ns - second_room_ns)
}

/// Net IMPs of a match to the team N/S in the first room, from each board's two N/S scores.
pub fn match_imps(boards: &[(i32, i32)]) -> i32 {
    boards.iter().map(|&(a, b)| board_imps(a, b)).sum()
}

/// A team's net margin in a match from the two teams' reported `score`s.
///
/// Clubs report a team match either as net margins (+12 and −12, as the scoring stage
/// writes it) or as the IMPs each team won (45 and 33). The two readings cannot be
/// confused: IMPs won are never negative, so two scores that add up to zero are margins
/// (or a 0–0 draw, the same either way), and two non-negative scores are IMPs won.
/// Anything else (−3 and 5) fits neither and is `None`.
///
/// ```
/// use bridgehcp::scoring::team::net_margin;
/// assert_eq!(net_margin(12.0, -12.0), Some(12.0));
/// assert_eq!(net_margin(45.0, 33.0), Some(12.0));
/// assert_eq!(net_margin(0.0, 0.0), Some(0.0));
/// assert_eq!(net_margin(-3.0, 5.0), None);
/// ```
pub fn net_margin(own: f64, other: f64) -> Option<f64> {
    if (own + other).abs() < 1e-9 {
        Some(own)
    } else if own >= 0.0 && other >= 0.0 {
        Some(own - other)
    } else {
        None
    }
}

/// One team match: both rooms of every board, the teams' seats swapped.
pub(super) fn team_standings<'s, 'k: 's, 't: 's>(
    competition: &Competition,
    known: &BTreeMap<&'k str, &'k Entrant>,
    tables: &'s [Table<'t>],
    points: &[BoardPoints],
) -> Result<(Vec<Standing>, Vec<EntrantResult>), InputError> {
    let id = &competition.competition_id;
    // Teams are named by borrowing: the entrants' rows and the tables outlive the tally.
    let team_of = |name: &'s str| -> &'s str {
        known
            .get(name)
            .copied()
            .and_then(|e: &'k Entrant| e.team.as_deref())
            .unwrap_or(name)
    };
    let mut imps: BTreeMap<&str, (f64, BTreeSet<u32>)> = BTreeMap::new();
    let mut opponents: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut rooms: BTreeMap<u32, Vec<(&str, &str)>> = BTreeMap::new();
    for (t, p) in tables.iter().zip(points) {
        let ns_team = t.ns.first().map_or("", |n| team_of(n));
        let ew_team = t.ew.first().map_or("", |n| team_of(n));
        if ns_team == ew_team {
            return Err(InputError::new(
                t.location("ew"),
                format!("team `{ns_team}` sits on both sides of this table"),
            ));
        }
        let entry = imps.entry(ns_team).or_default();
        entry.0 += p.side.ns;
        entry.1.insert(t.row.board);
        imps.entry(ew_team).or_default().1.insert(t.row.board);
        opponents.entry(ns_team).or_default().insert(ew_team);
        opponents.entry(ew_team).or_default().insert(ns_team);
        rooms
            .entry(t.row.board)
            .or_default()
            .push((ns_team, ew_team));
    }
    check_match(competition, tables, &rooms, &opponents)?;
    let mut standings: Vec<Standing> = imps
        .iter()
        .map(|(team, (score, boards))| Standing::new(id, team, *score, boards.len() as u32))
        .collect();
    assign_ranks(&mut standings, None);
    let boards = competition
        .boards
        .unwrap_or_else(|| standings.iter().map(|s| s.boards_played).max().unwrap_or(0));
    team_match_vps(&mut standings, boards);
    let results = results_of(competition, &standings, |s| {
        opponents
            .get(s.entrant.as_str())
            .and_then(|m| m.first().map(|o| o.to_string()))
    });
    Ok((standings, results))
}

/// The two rooms of a board seat the same two teams, swapped, and every team meets one
/// other team.
fn check_match(
    competition: &Competition,
    tables: &[Table<'_>],
    rooms: &BTreeMap<u32, Vec<(&str, &str)>>,
    opponents: &BTreeMap<&str, BTreeSet<&str>>,
) -> Result<(), InputError> {
    for t in tables {
        if let Some([(a_ns, a_ew), (b_ns, b_ew)]) = rooms.get(&t.row.board).map(Vec::as_slice) {
            if a_ns != b_ew || a_ew != b_ns {
                return Err(InputError::new(
                    t.location(""),
                    format!("the two rooms must seat the same two teams swapped: `{a_ns}`-`{a_ew}` and `{b_ns}`-`{b_ew}`"),
                ));
            }
        }
    }
    for (team, met) in opponents {
        if met.len() > 1 {
            return Err(InputError::new(
                competition.location(),
                format!(
                    "a team_imps competition is one match, but team `{team}` met {}",
                    met.iter().copied().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Victory points of a team match (two standings) on the WBF continuous scale for
/// `boards` boards. Anything but exactly two teams, or scores that are neither margins
/// nor IMPs won (see [`net_margin`]), has no VPs.
pub fn team_match_vps(standings: &mut [Standing], boards: u32) {
    if let [a, b] = standings {
        if let Some(margin) = net_margin(a.score, b.score) {
            let (vp_a, vp_b) = vp::wbf_scale_shared(boards).vp(margin.round() as i32);
            a.vp = Some(vp_a);
            b.vp = Some(vp_b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3NT vulnerable made (600) against 3NT one down (−100): 700 → 12; a flat 420: 0;
    /// 1NT +90 against 2S by E/W made (−110): 200 → 5.
    #[test]
    fn match_total() {
        assert_eq!(match_imps(&[(600, -100), (420, 420), (90, -110)]), 17);
        assert_eq!(match_imps(&[(-100, 600), (420, 420), (-110, 90)]), -17);
    }
}
