//! Swiss pairs (the Swiss pairs regulations): a congress of short matches between two pairs, each board
//! scored in IMPs against the datum of every table that played it, each match's margin
//! turned into victory points, the standings by total VPs.
//!
//! A pair's result on a board is measured against the whole field (the datum), not only
//! against the pair it met, so that every table's boards count in one comparison; the
//! match then only decides how that result is shared out as VPs. The handicap reads the
//! IMPs, never the VPs (the handicap always uses the IMPs), so this module feeds
//! the model the same per-board datum IMPs a butler event does; the VPs, the rounds and
//! the places are for the result sheet.
//!
//! The board rows say which match a table belongs to (`round`); the two pairs at the
//! table are the match's two pairs. A pair meets one opponent per round. The Swiss pairs regulations' ties
//! are not broken: pairs with equal VPs share the place whatever their IMPs. The house
//! pair (`entrants.house`) is scored and listed, and takes no place.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use crate::dataset::{Competition, Entrant, EntrantResult, Format};
use crate::error::InputError;

use super::rows::{entrant_order, results_of, Standing};
use super::standings::shared_ranks;
use super::tables::{BoardPoints, Table};
use super::vp::{self, VpScale};

pub use super::rows::MatchLine;

/// The VP scale for a match of `boards` boards: the Swiss pairs regulations' ABF tables for 8 and 9
/// boards, the WBF continuous scale (rounded half up, then smoothed: `vp::wbf_scale`) for any other length.
pub fn match_scale(boards: u32) -> Result<Cow<'static, VpScale>, InputError> {
    Ok(match vp::abf_swiss_pairs(boards)? {
        Some(scale) => Cow::Borrowed(scale),
        None => vp::wbf_scale_shared(boards),
    })
}

/// A match's IMP margin to the first pair: its datum IMPs less its opponents', halved,
/// rounded half away from zero. At a table every board gives the two sides the same
/// IMPs with opposite signs, so this is the pair's own net datum IMPs, which is how
/// the margin is defined; only an artificial score valued alike for both sides (`A6060`)
/// makes the halving matter, and then it keeps the two pairs' margins opposite.
///
/// ```
/// use bridgehcp::scoring::swiss::match_margin;
/// assert_eq!(match_margin(7.0, -7.0), 7);
/// assert_eq!(match_margin(3.0, -2.0), 3); // 2.5 → 3
/// assert_eq!(match_margin(-2.0, 3.0), -3);
/// ```
pub fn match_margin(own: f64, opponents: f64) -> i32 {
    ((own - opponents) / 2.0).round() as i32
}

#[derive(Default)]
struct Match<'a> {
    opponent: Option<(&'a str, u32)>,
    imps: f64,
    boards: BTreeSet<u32>,
}

/// Standings and the model's results of a Swiss pairs event.
pub(super) fn swiss_standings(
    competition: &Competition,
    known: &BTreeMap<&str, &Entrant>,
    tables: &[Table<'_>],
    points: &[BoardPoints],
) -> Result<(Vec<Standing>, Vec<EntrantResult>), InputError> {
    let id = &competition.competition_id;
    check_event(competition, known)?;
    let matches = matches_of(tables, points)?;
    let totals = totals_of(&matches)?;
    let mut standings: Vec<Standing> = totals
        .into_iter()
        .map(|(pair, t)| {
            let mut s = Standing::new(id, pair, t.imps, t.boards);
            s.vp = Some(t.vp_hundredths as f64 / 100.0);
            s.house = known.get(pair).is_some_and(|e| e.house);
            s.rounds = t.rounds;
            s
        })
        .collect();
    place(&mut standings);
    let results = results_of(competition, &standings, |_| None);
    Ok((standings, results))
}

/// A Swiss pairs event is of pairs, with one house pair at most.
fn check_event(
    competition: &Competition,
    known: &BTreeMap<&str, &Entrant>,
) -> Result<(), InputError> {
    let id = &competition.competition_id;
    if competition.format != Format::Pairs {
        return Err(InputError::new(
            competition
                .origin
                .location()
                .competition(id)
                .column("format"),
            format!(
                "scoring `swiss_pairs` needs format `pairs`, not `{}`",
                competition.format
            ),
        ));
    }
    let houses: Vec<&&Entrant> = known.values().filter(|e| e.house).collect();
    if let [_, second, ..] = houses[..] {
        return Err(InputError::new(
            second.origin.location().competition(id).column("house"),
            format!(
                "a Swiss pairs event has at most one house pair; `{}` and `{}` are both marked",
                houses[0].entrant, second.entrant
            ),
        ));
    }
    Ok(())
}

/// (pair, round) → the match: its opponent (with the first board that named it), its
/// datum IMPs and its boards.
fn matches_of<'a>(
    tables: &[Table<'a>],
    points: &[BoardPoints],
) -> Result<BTreeMap<(&'a str, u32), Match<'a>>, InputError> {
    let mut matches: BTreeMap<(&str, u32), Match<'_>> = BTreeMap::new();
    for (t, p) in tables.iter().zip(points) {
        let Some(round) = t.row.round else {
            return Err(InputError::new(
                t.location("round"),
                "a swiss_pairs board row needs its `round`: the match the two pairs at the table play",
            ));
        };
        let (Some(ns), Some(ew)) = (t.ns.first(), t.ew.first()) else {
            continue;
        };
        for (pair, opponent, value, column) in
            [(*ns, *ew, p.side.ns, "ew"), (*ew, *ns, p.side.ew, "ns")]
        {
            let entry = matches.entry((pair, round)).or_default();
            match entry.opponent {
                Some((first, board)) if first != opponent => {
                    return Err(InputError::new(
                        t.location(column),
                        format!(
                            "pair `{pair}` meets `{opponent}` in round {round} but met `{first}` there on board {board}: a Swiss pairs round is one match"
                        ),
                    ))
                }
                Some(_) => {}
                None => entry.opponent = Some((opponent, t.row.board)),
            }
            entry.imps += value;
            entry.boards.insert(t.row.board);
        }
    }
    Ok(matches)
}

/// A pair's IMPs, VPs, boards and matches over the event.
struct Total {
    imps: f64,
    /// Hundredths of a VP, so that the sum is exact.
    vp_hundredths: i64,
    boards: u32,
    rounds: Vec<MatchLine>,
}

/// Each pair's total, its matches turned into VPs on the scale of their length.
fn totals_of<'a>(
    matches: &BTreeMap<(&'a str, u32), Match<'a>>,
) -> Result<BTreeMap<&'a str, Total>, InputError> {
    // Scales by match length, built once each.
    let mut scales: BTreeMap<u32, Cow<'static, VpScale>> = BTreeMap::new();
    let mut totals: BTreeMap<&str, Total> = BTreeMap::new();
    for (&(pair, round), m) in matches {
        let Some((opponent, _)) = m.opponent else {
            continue;
        };
        let opponents = matches.get(&(opponent, round)).map_or(0.0, |o| o.imps);
        let boards = m.boards.len() as u32;
        let scale = match scales.entry(boards) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => e.insert(match_scale(boards)?),
        };
        let margin = match_margin(m.imps, opponents);
        let (vp, _) = scale.vp(margin);
        let total = totals.entry(pair).or_insert(Total {
            imps: 0.0,
            vp_hundredths: 0,
            boards: 0,
            rounds: Vec::new(),
        });
        total.imps += m.imps;
        total.vp_hundredths += (vp * 100.0).round() as i64;
        total.boards += boards;
        total.rounds.push(MatchLine {
            round,
            opponent: opponent.to_string(),
            boards,
            imps: m.imps,
            margin,
            vp,
        });
    }
    Ok(totals)
}

/// Ranks the placed pairs by VPs (equal VPs share the place) and orders them by place,
/// the house pair after them.
fn place(standings: &mut [Standing]) {
    let placed: Vec<usize> = (0..standings.len())
        .filter(|&i| !standings[i].house)
        .collect();
    let vps: Vec<f64> = placed
        .iter()
        .map(|&i| standings[i].vp.unwrap_or(0.0))
        .collect();
    for (&i, rank) in placed.iter().zip(shared_ranks(&vps)) {
        standings[i].rank = rank;
    }
    standings.sort_by(|a, b| {
        a.house
            .cmp(&b.house)
            .then(a.rank.cmp(&b.rank))
            .then_with(|| entrant_order(&a.entrant, &b.entrant))
    });
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;
    use crate::dataset::{BoardResult, ScoringMethod};
    use crate::scoring::{score_competition, ScoredCompetition};

    fn event() -> Competition {
        let date = NaiveDate::from_ymd_opt(2026, 3, 7).unwrap_or_default();
        Competition::new("swiss", date, Format::Pairs, ScoringMethod::SwissPairs)
    }

    fn pairs(n: u32) -> Vec<Entrant> {
        (1..=n)
            .map(|p| Entrant::new("swiss", p.to_string()))
            .collect()
    }

    /// Board rows of one round: `tables` seats (N/S, E/W), `boards` the round's board
    /// numbers, `scores[b][t]` the N/S score at table t on the round's b-th board (a
    /// board left out of `scores` is flat: 420 at every table).
    fn round(
        number: u32,
        tables: &[(u32, u32)],
        boards: std::ops::RangeInclusive<u32>,
        scores: &[&[i32]],
    ) -> Vec<BoardResult> {
        let mut rows = Vec::new();
        for (b, board) in boards.enumerate() {
            for (t, &(ns, ew)) in tables.iter().enumerate() {
                let score = scores.get(b).map_or(420, |s| s[t]);
                rows.push(BoardResult {
                    competition_id: "swiss".into(),
                    board,
                    ns: Some(ns.to_string().into()),
                    ew: Some(ew.to_string().into()),
                    ns_score: Some(score),
                    round: Some(number),
                    table: Some(t as u32 + 1),
                    ..BoardResult::default()
                });
            }
        }
        rows
    }

    /// Each standing's entrant, rank and victory points, and what `more` reads of it.
    fn vp_table<T>(
        scored: &ScoredCompetition,
        more: impl Fn(&Standing) -> T,
    ) -> Vec<(&str, u32, f64, T)> {
        let vp = |s: &Standing| s.vp.unwrap_or(f64::NAN);
        let standings = scored.standings.iter();
        standings
            .map(|s| (s.entrant.as_str(), s.rank, vp(s), more(s)))
            .collect()
    }

    fn standing<'a>(scored: &'a ScoredCompetition, pair: &str) -> &'a Standing {
        match scored.standings.iter().find(|s| s.entrant == pair) {
            Some(s) => s,
            None => panic!("no standing for pair {pair}"),
        }
    }

    fn board_points(scored: &ScoredCompetition, board: u32) -> Vec<(f64, f64)> {
        scored
            .board_scores
            .iter()
            .filter(|b| b.board == board)
            .map(|b| (b.ns_points, b.datum.unwrap_or(f64::NAN)))
            .collect()
    }

    /// Six pairs, three 8-board rounds (boards 1-8, 9-16, 17-24), three tables a board,
    /// worked by hand. With three scores the trim is 0.1·3 = 0.3, rounded to 0: the
    /// datum is the mean of all three. Boards not listed are flat (0 IMPs everywhere).
    ///
    /// Round 1, tables 1-2, 3-4, 5-6 (N/S first):
    /// * board 1: −100, −100, 110 → datum −30; −70 → −2, −70 → −2, +140 → +4;
    /// * board 2: 620, 170, 170 → datum 320; +300 → +7, −150 → −4, −150 → −4.
    /// * Margins: 1-2 +5 (VP 11.95–8.05), 3-4 −6 (7.66–12.34), 5-6 0 (10–10).
    ///
    /// Round 2 (the Swiss draw: 4 v 1, then 5 v 2 since 5 and 6 have met, 6 v 3):
    /// * board 9: 100, 100, −620 → datum −140; +240 → +6, +6, −480 → −10;
    /// * board 10: 1430, 680, 680 → datum 930; +500 → +11, −250 → −6, −6.
    /// * Margins: 4-1 +17 (16.03–3.97), 5-2 0 (10–10), 6-3 −16 (4.26–15.74).
    ///
    /// Round 3 (4 v 5 since 4 and 3 have met, 3 v 2, 1 v 6):
    /// * board 17: −100, −100, 50 → datum −50; −50 → −2, −2, +100 → +3;
    /// * board 18: 200, 50, 170 → datum 140; +60 → +2, −90 → −3, +30 → +1.
    /// * Margins: 4-5 0 (10–10), 3-2 −5 (8.05–11.95), 1-6 +4 (11.56–8.44).
    ///
    /// Totals (VP; IMPs): 1: 11.95 + 3.97 + 11.56 = 27.48 (5 − 17 + 4 = −8);
    /// 2: 8.05 + 10 + 11.95 = 30.00 (0); 3: 7.66 + 15.74 + 8.05 = 31.45 (5);
    /// 4: 12.34 + 16.03 + 10 = 38.37 (23); 5: 30.00 (0); 6: 10 + 4.26 + 8.44 = 22.70
    /// (−20). Places: 4, 3, then 2 and 5 share third, 1 fifth, 6 sixth.
    fn eight_board_event() -> Vec<BoardResult> {
        let mut rows = round(
            1,
            &[(1, 2), (3, 4), (5, 6)],
            1..=8,
            &[&[-100, -100, 110], &[620, 170, 170]],
        );
        rows.extend(round(
            2,
            &[(4, 1), (5, 2), (6, 3)],
            9..=16,
            &[&[100, 100, -620], &[1430, 680, 680]],
        ));
        rows.extend(round(
            3,
            &[(4, 5), (3, 2), (1, 6)],
            17..=24,
            &[&[-100, -100, 50], &[200, 50, 170]],
        ));
        rows
    }

    #[test]
    fn six_pairs_three_eight_board_rounds() {
        let scored = score_competition(&event(), &pairs(6), &eight_board_event())
            .unwrap_or_else(|e| panic!("{e}"));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // Datums and board IMPs (N/S), by the N/S pair's number (round 3: 1, 3, 4).
        for (board, want) in [
            (1, [(-2.0, -30.0), (-2.0, -30.0), (4.0, -30.0)]),
            (2, [(7.0, 320.0), (-4.0, 320.0), (-4.0, 320.0)]),
            (9, [(6.0, -140.0), (6.0, -140.0), (-10.0, -140.0)]),
            (10, [(11.0, 930.0), (-6.0, 930.0), (-6.0, 930.0)]),
            (17, [(3.0, -50.0), (-2.0, -50.0), (-2.0, -50.0)]),
            (18, [(1.0, 140.0), (-3.0, 140.0), (2.0, 140.0)]),
            (5, [(0.0, 420.0), (0.0, 420.0), (0.0, 420.0)]),
        ] {
            let got = board_points(&scored, board);
            assert_eq!(got.len(), 3, "board {board}");
            for ((points, datum), (want_points, want_datum)) in got.iter().zip(want) {
                assert!(close(*points, want_points), "board {board}: {got:?}");
                assert!(close(*datum, want_datum), "board {board}: {got:?}");
            }
        }
        // Each pair's matches: (round, opponent, IMPs, margin, VPs).
        let matches = |pair: &str| -> Vec<(u32, String, f64, i32, f64)> {
            standing(&scored, pair)
                .rounds
                .iter()
                .map(|m| (m.round, m.opponent.clone(), m.imps, m.margin, m.vp))
                .collect()
        };
        let m = |round: u32, opponent: &str, imps: f64, vp: f64| {
            (round, opponent.to_string(), imps, imps as i32, vp)
        };
        let want = [
            (
                "1",
                [
                    m(1, "2", 5.0, 11.95),
                    m(2, "4", -17.0, 3.97),
                    m(3, "6", 4.0, 11.56),
                ],
            ),
            (
                "2",
                [
                    m(1, "1", -5.0, 8.05),
                    m(2, "5", 0.0, 10.0),
                    m(3, "3", 5.0, 11.95),
                ],
            ),
            (
                "3",
                [
                    m(1, "4", -6.0, 7.66),
                    m(2, "6", 16.0, 15.74),
                    m(3, "2", -5.0, 8.05),
                ],
            ),
            (
                "4",
                [
                    m(1, "3", 6.0, 12.34),
                    m(2, "1", 17.0, 16.03),
                    m(3, "5", 0.0, 10.0),
                ],
            ),
            (
                "6",
                [
                    m(1, "5", 0.0, 10.0),
                    m(2, "3", -16.0, 4.26),
                    m(3, "1", -4.0, 8.44),
                ],
            ),
        ];
        for (pair, rounds) in want {
            assert_eq!(matches(pair), rounds, "pair {pair}");
        }
        assert!(standing(&scored, "1").rounds.iter().all(|m| m.boards == 8));
        // Standings: by VPs, the tie between 2 and 5 shared, IMPs beside.
        let table = vp_table(&scored, |s| s.score);
        let want = [
            ("4", 1, 38.37, 23.0),
            ("3", 2, 31.45, 5.0),
            ("2", 3, 30.0, 0.0),
            ("5", 3, 30.0, 0.0),
            ("1", 5, 27.48, -8.0),
            ("6", 6, 22.70, -20.0),
        ];
        assert_eq!(table.len(), want.len());
        for (got, want) in table.iter().zip(want) {
            assert_eq!((got.0, got.1), (want.0, want.1), "{table:?}");
            assert!(close(got.2, want.2) && close(got.3, want.3), "{table:?}");
        }
        assert!(scored
            .standings
            .iter()
            .all(|s| s.boards_played == 24 && !s.house));
        // The model reads the datum IMPs: pair 4's 23 over its 24 boards.
        let four = scored.results.iter().find(|r| r.entrant == "4");
        assert_eq!(four.map(|r| (r.score, r.boards_played)), Some((23.0, 24)));
    }

    /// Ten entries (nine pairs and the house pair, 10), one 9-board match on five
    /// tables: 1-2, 3-4, 5-6, 7-8, 9-10. Five scores trim 0.1·5 = 0.5, rounded up to 1,
    /// at each end.
    /// * Board 1: 620, 170, 170, 140, −110; without −110 and 620 the datum is
    ///   (170 + 170 + 140)/3 = 160 (the untrimmed mean would be 198): +460 → +10,
    ///   +10 → 0, 0, −20 → −1, −270 → −7.
    /// * Board 2: 900 at table 1, 680 elsewhere → datum 680; +220 → +6.
    /// * Margins and Table 2's VPs: 1-2 +16 → 15.50–4.50 (a margin the regulations' table
    ///   does not print: from 15 (15.25) to 18 (16.00) it rises a quarter per IMP),
    ///   3-4 and 5-6 0 → 10–10, 7-8 −1 → 9.64–10.36, 9-10 −7 → 7.48–12.52. (Table 1
    ///   would give 15.74, 10.39 and 12.73.)
    /// * Places: 1 (15.50), 8 (10.36), then 3, 4, 5, 6 share third (10.00), 7 seventh
    ///   (9.64), 9 eighth (7.48), 2 ninth (4.50); the house pair 10 has 12.52 and no
    ///   place.
    #[test]
    fn nine_board_match_uses_table_2_and_the_house_pair_takes_no_place() {
        let mut entrants = pairs(10);
        entrants[9].house = true;
        let rows = round(
            1,
            &[(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)],
            1..=9,
            &[&[620, 170, 170, 140, -110], &[900, 680, 680, 680, 680]],
        );
        let scored =
            score_competition(&event(), &entrants, &rows).unwrap_or_else(|e| panic!("{e}"));
        let board1: Vec<(f64, f64)> = board_points(&scored, 1);
        let want = [10.0, 0.0, 0.0, -1.0, -7.0];
        for ((points, datum), want) in board1.iter().zip(want) {
            assert!(
                (points - want).abs() < 1e-9 && (datum - 160.0).abs() < 1e-9,
                "{board1:?}"
            );
        }
        let got = vp_table(&scored, |s| s.house);
        let want = [
            ("1", 1, 15.50, false),
            ("8", 2, 10.36, false),
            ("3", 3, 10.0, false),
            ("4", 3, 10.0, false),
            ("5", 3, 10.0, false),
            ("6", 3, 10.0, false),
            ("7", 7, 9.64, false),
            ("9", 8, 7.48, false),
            ("2", 9, 4.50, false),
            ("10", 0, 12.52, true),
        ];
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!(
                g.0 == w.0 && g.1 == w.1 && (g.2 - w.2).abs() < 1e-9 && g.3 == w.3,
                "{got:?}"
            );
        }
        assert_eq!(standing(&scored, "1").rounds[0].margin, 16);
        assert_eq!(standing(&scored, "1").rounds[0].boards, 9);
    }

    /// A 10-board match has no ABF table: the WBF continuous scale for N = 10. By hand:
    /// B = 15·√10 = 47.4342; margin 5: 3M/B = 0.316228, τ^0.316228 =
    /// e^(−0.4812118·0.316228) = e^(−0.152173) = 0.858840; (1 − 0.858840)/0.763932 =
    /// 0.184781; VP = 10 + 1.84781 = 11.848 → 11.85, the loser 8.15.
    /// Four pairs on two tables: board 1 300/100 (datum 200, ±100 → ±3), board 2
    /// 170/110 (datum 140, ±30 → ±1), board 3 −50/−110 (datum −80, ±30 → ±1), boards
    /// 4-10 flat: pair 1 (N/S at table 1) wins by 5, pair 3 loses by 5.
    #[test]
    fn ten_board_match_uses_the_wbf_scale() {
        let rows = round(
            1,
            &[(1, 2), (3, 4)],
            1..=10,
            &[&[300, 100], &[170, 110], &[-50, -110]],
        );
        let scored =
            score_competition(&event(), &pairs(4), &rows).unwrap_or_else(|e| panic!("{e}"));
        let vp = |pair: &str| standing(&scored, pair).vp.unwrap_or(f64::NAN);
        assert!((vp("1") - 11.85).abs() < 1e-9, "{}", vp("1"));
        assert!((vp("2") - 8.15).abs() < 1e-9);
        assert!((vp("3") - 8.15).abs() < 1e-9);
        assert!((vp("4") - 11.85).abs() < 1e-9);
        assert_eq!(standing(&scored, "1").rounds[0].margin, 5);
        assert_eq!(standing(&scored, "1").rank, 1);
        assert_eq!(standing(&scored, "4").rank, 1);
        assert_eq!(standing(&scored, "2").rank, 3);
        // The scale choice by length: 8 and 9 boards the regulations' tables, else the WBF's.
        let five = |boards: u32| match match_scale(boards) {
            Ok(scale) => scale.vp(5).0,
            Err(e) => panic!("{e}"),
        };
        assert_eq!((five(8), five(9), five(10)), (11.95, 11.80, 11.85));
    }

    #[test]
    fn broken_swiss_rows_are_refused_with_their_place() {
        let mut rows = eight_board_event();
        rows[4].round = None;
        let err = score_competition(&event(), &pairs(6), &rows).unwrap_err();
        assert_eq!(err.location.column.as_deref(), Some("round"));
        assert!(err.rule.contains("needs its `round`"), "{}", err.rule);

        // Pair 1 sits against pair 3 on board 2 of round 1, where it met 2 on board 1.
        let mut rows = eight_board_event();
        for row in rows.iter_mut().filter(|r| r.board == 2) {
            let (ns, ew) = match row.ns.as_deref() {
                Some("1") => ("1", "4"),
                Some("3") => ("3", "2"),
                _ => continue,
            };
            row.ns = Some(ns.into());
            row.ew = Some(ew.into());
        }
        let err = score_competition(&event(), &pairs(6), &rows).unwrap_err();
        assert!(err.rule.contains("one match"), "{}", err.rule);
        assert_eq!(err.location.board, Some(2));

        let mut entrants = pairs(6);
        entrants[0].house = true;
        entrants[1].house = true;
        let err = score_competition(&event(), &entrants, &eight_board_event()).unwrap_err();
        assert_eq!(err.location.column.as_deref(), Some("house"));

        let mut butler = event();
        butler.scoring = ScoringMethod::Butler;
        let mut entrants = pairs(6);
        entrants[5].house = true;
        let err = score_competition(&butler, &entrants, &eight_board_event()).unwrap_err();
        assert!(err.rule.contains("house pair"), "{}", err.rule);

        let mut teams = event();
        teams.format = Format::Individual;
        assert!(score_competition(&teams, &pairs(6), &eight_board_event()).is_err());
    }
}
