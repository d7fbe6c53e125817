//! The national ranking: members ordered by handicap, best (lowest) first.
//!
//! The ranking is published with handicaps to two decimals, and members who show the
//! same published handicap share a rank (1, 2, 2, 4), so nobody is placed ahead of
//! someone on a difference that the list does not show.

use std::collections::BTreeMap;

use chrono::{Months, NaiveDate};

use super::state::PlayerState;
use crate::dataset::{Member, MemberKind};
use crate::scoring::standings::shared_ranks;

/// Which members the ranking lists, and how it groups them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankingOptions {
    /// Minimum rated boards played in the whole history (default 1: anyone who played).
    pub min_boards: u64,
    /// Only members who played in the last this many months before `as_of` (default: no
    /// activity requirement).
    pub active_months: Option<u32>,
    /// The reference date for activity; default: the last competition date of the run.
    pub as_of: Option<NaiveDate>,
    /// Rank within each club or district instead of nationally.
    pub group_by: Option<RankingGroup>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RankingGroup {
    Club,
    District,
}

/// One line of the ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedMember {
    pub rank: u32,
    /// The club or district ranked within, when grouped.
    pub group: Option<String>,
    pub member_index: usize,
    /// The handicap as published (two decimals).
    pub handicap: f64,
    pub boards: u64,
}

/// Rounds half away from zero to two decimals, as the ranking publishes.
pub fn published(handicap: f64) -> f64 {
    (handicap * 100.0).round() / 100.0
}

/// Ranks members. `members` and `states` are parallel (dense order).
pub fn rank(
    members: &[Member],
    states: &[PlayerState],
    options: &RankingOptions,
    last_date: Option<NaiveDate>,
) -> Vec<RankedMember> {
    let min_boards = options.min_boards.max(1);
    let as_of = options.as_of.or(last_date);
    let active_since = match (options.active_months, as_of) {
        (Some(months), Some(as_of)) => as_of.checked_sub_months(Months::new(months)),
        _ => None,
    };
    let mut groups: BTreeMap<Option<String>, Vec<RankedMember>> = BTreeMap::new();
    for (index, (member, state)) in members.iter().zip(states).enumerate() {
        if member.kind != MemberKind::Member || state.boards < min_boards {
            continue;
        }
        if options.active_months.is_some() {
            match (state.last_played, active_since) {
                (Some(last), Some(since)) if last > since => {}
                _ => continue,
            }
        }
        let group = match options.group_by {
            None => None,
            Some(RankingGroup::Club) => Some(member.club.clone().unwrap_or_default()),
            Some(RankingGroup::District) => Some(member.district.clone().unwrap_or_default()),
        };
        groups.entry(group.clone()).or_default().push(RankedMember {
            rank: 0,
            group,
            member_index: index,
            handicap: published(state.handicap),
            boards: state.boards,
        });
    }
    let mut out = Vec::new();
    for (_, mut list) in groups {
        list.sort_by(|a, b| {
            a.handicap
                .total_cmp(&b.handicap)
                .then(b.boards.cmp(&a.boards))
                .then(a.member_index.cmp(&b.member_index))
        });
        // Lowest handicap first: the shared ranks of the negated published handicaps.
        let negated: Vec<f64> = list.iter().map(|line| -line.handicap).collect();
        for (line, rank) in list.iter_mut().zip(shared_ranks(&negated)) {
            line.rank = rank;
        }
        out.extend(list);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: i64, club: &str) -> Member {
        let mut m = Member::new(id);
        m.club = Some(club.to_string());
        m
    }

    /// Members 1, 2, ... of the `clubs` in turn.
    fn members(clubs: &[&str]) -> Vec<Member> {
        (1..)
            .zip(clubs)
            .map(|(id, club)| member(id, club))
            .collect()
    }

    fn state(h: f64, boards: u64, last: Option<(i32, u32, u32)>) -> PlayerState {
        let mut s = PlayerState::starting(h, None);
        s.boards = boards;
        s.last_played = last.and_then(|(y, m, d)| NaiveDate::from_ymd_opt(y, m, d));
        s
    }

    #[test]
    fn ties_share_a_rank_and_the_next_rank_skips() {
        let members = members(&["A", "A", "A", "A"]);
        let states = vec![
            state(10.0, 24, None),
            state(12.004, 24, None),
            state(11.996, 24, None),
            state(20.0, 24, None),
        ];
        let ranked = rank(&members, &states, &RankingOptions::default(), None);
        let ranks: Vec<(usize, u32)> = ranked.iter().map(|r| (r.member_index, r.rank)).collect();
        // 12.004 and 11.996 both publish as 12.00: ranks 1, 2, 2, 4.
        assert_eq!(ranks, vec![(0, 1), (1, 2), (2, 2), (3, 4)]);
    }

    /// 36 members ahead, then 48.834 and 48.833: both publish as 48.83 and share rank
    /// 37 (`37=` in the published list), the one with more boards first; the next
    /// member is 39.
    #[test]
    fn ranks_are_shared_on_the_published_handicap() {
        let members: Vec<Member> = (1..=39).map(|id| member(id, "A")).collect();
        let mut states: Vec<PlayerState> = (0..36)
            .map(|i| state(10.0 + f64::from(i), 24, None))
            .collect();
        states.push(state(48.833, 24, None));
        states.push(state(48.834, 48, None));
        states.push(state(48.84, 24, None));
        let ranked = rank(&members, &states, &RankingOptions::default(), None);
        let tail: Vec<(usize, u32, f64)> = ranked[36..]
            .iter()
            .map(|r| (r.member_index, r.rank, r.handicap))
            .collect();
        assert_eq!(
            tail,
            vec![(37, 37, 48.83), (36, 37, 48.83), (38, 39, 48.84)]
        );
    }

    #[test]
    fn minimum_boards_activity_and_groups() {
        let members = members(&["A", "B", "B", "A"]);
        let states = vec![
            state(10.0, 24, Some((2026, 10, 1))),
            state(5.0, 10, Some((2026, 10, 1))),
            state(8.0, 30, Some((2025, 1, 1))),
            state(0.0, 0, None),
        ];
        let options = RankingOptions {
            min_boards: 20,
            ..RankingOptions::default()
        };
        let ranked = rank(&members, &states, &options, None);
        assert_eq!(
            ranked.iter().map(|r| r.member_index).collect::<Vec<_>>(),
            vec![2, 0]
        );
        let options = RankingOptions {
            active_months: Some(12),
            group_by: Some(RankingGroup::Club),
            ..RankingOptions::default()
        };
        let last = NaiveDate::from_ymd_opt(2026, 11, 1);
        let ranked = rank(&members, &states, &options, last);
        let lines: Vec<(Option<&str>, usize, u32)> = ranked
            .iter()
            .map(|r| (r.group.as_deref(), r.member_index, r.rank))
            .collect();
        assert_eq!(lines, vec![(Some("A"), 0, 1), (Some("B"), 1, 1)]);
    }
}
