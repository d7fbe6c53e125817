//! A competition's page: the standings, and what each pair was expected to score.
//!
//! Beside each entrant's own result it shows the handicap view of it: the pair's
//! handicap, the result expected of it in this field and the result it achieved (from
//! `changes.parquet`, in the competition's unit), and, in a handicap tournament, the
//! expected and handicap-adjusted results by which it ranked. Below them, where the
//! dataset was read, the club's own result sheet: the lines `bridgehcp score` prints in
//! `results.html`, so that the club finds the sheet it printed on the night.

use std::collections::HashMap;

use maud::{html, Markup, PreEscaped};

use super::data::{Competition, Lookups, SiteData, Standing};
use super::links::{self, cols, link, signed, site_page, two};
use crate::dataset::Direction;
use crate::report::page::Text;
use crate::report::sheet;
use crate::scoring;

/// A player of an entrant as the page shows them: the member number (when known), the
/// name, and whether the member has a page to link to.
type Player = (Option<i64>, String, bool);

/// The players of an entrant.
fn players(data: &SiteData, look: &Lookups, id: &str, entrant: &str) -> Vec<Player> {
    let slots = data.tables.slots(id, entrant);
    let name_of = |m: i64| look.names.get(&m).map(|n| n.to_string());
    let shown: Vec<(Option<i64>, String)> = match slots {
        Some(slots) => slots
            .iter()
            .filter_map(|(member, printed)| {
                let name = member
                    .and_then(name_of)
                    .or_else(|| printed.map(str::to_owned))
                    .or_else(|| member.map(|m| format!("#{m}")))?;
                Some((*member, name))
            })
            .collect(),
        None => (look.players(id, entrant).into_iter())
            .map(|m| (Some(m), name_of(m).unwrap_or_else(|| format!("#{m}"))))
            .collect(),
    };
    shown
        .into_iter()
        .map(|(member, name)| {
            let page = member.is_some_and(|m| look.pages.contains(&m));
            (member, name, page)
        })
        .collect()
}

/// The players, each linked to their page where they have one.
fn players_cell(shown: &[Player]) -> Markup {
    html! { @for (i, (member, name, page)) in shown.iter().enumerate() {
        @if i > 0 { " – " }
        @match member {
            Some(m) if *page => (link(1, &links::member(*m), name)),
            _ => (Text(name)),
        }
    } }
}

/// The club's own result sheet of the competition, as `bridgehcp score` prints it in
/// `results.html` (the same lines, rounding and names), when the dataset says how the
/// competition was scored: its tables, with headings a level below the page's and each
/// column's heading marked as one for screen readers.
fn club_sheet(look: &Lookups, id: &str, c: &Competition) -> Option<String> {
    let (source, names) = look.sheets.as_ref()?;
    let competition = source.competitions.get(id)?;
    let standings: Vec<scoring::Standing> = c
        .standings
        .iter()
        .map(|s| {
            Some(scoring::Standing {
                competition_id: id.to_owned(),
                entrant: s.entrant.to_string(),
                score: s.score()?,
                percent: s.percent(),
                boards_played: u32::try_from(s.boards.unwrap_or(0)).ok()?,
                rank: s.rank.map_or(Some(0), |r| u32::try_from(r).ok())?,
                direction: match s.direction.as_deref() {
                    Some("NS") => Some(Direction::NS),
                    Some("EW") => Some(Direction::EW),
                    _ => None,
                },
                vp: s.vp(),
                house: s.rank.is_none(),
                rounds: Vec::new(),
            })
        })
        .collect::<Option<_>>()?;
    if standings.is_empty() {
        return None;
    }
    let adjusted: HashMap<&str, (f64, f64)> = c
        .standings
        .iter()
        .filter(|_| competition.handicap_event)
        .filter_map(|s| Some((&*s.entrant, (s.handicap_expected()?, s.handicap_result()?))))
        .collect();
    let names = names.competition(id);
    let mut lines = Vec::new();
    sheet::competition_lines(
        competition,
        &standings,
        |s| names.of(&s.entrant),
        |s| adjusted.get(&*s.entrant).copied(),
        &mut lines,
    );
    let rows: Vec<sheet::SheetRow> = lines.iter().map(sheet::SheetLine::row).collect();
    let mut h = Vec::new();
    sheet::html_tables(&mut h, &rows);
    let text = String::from_utf8(h).ok()?;
    Some(
        text.replace("<th>", "<th scope=\"col\">")
            .replace("<h2>", "<h3>")
            .replace("</h2>", "</h3>")
            .replace("<h3>Matches</h3>", "<h4>Matches</h4>"),
    )
}

/// A line of the standings.
fn row(look: &Lookups, id: &str, s: &Standing, shown: &[Player], handicap_event: bool) -> Markup {
    let change = look.first(id, &s.entrant);
    html! { tr {
        td.n { (s.rank.map(|r| r.to_string()).unwrap_or_else(|| "–".to_owned())) }
        td { (Text(&s.entrant)) @if let Some(d) = &s.direction { " " (Text(d)) } }
        td { (players_cell(shown)) }
        td.n { (two(s.score())) }
        td.n { (two(s.percent())) }
        td.n { (two(change.map(|c| c.pair_handicap))) }
        td.n { (signed(change.map(|c| c.expected))) }
        td.n { (signed(change.map(|c| c.achieved))) }
        @if handicap_event {
            td.n { (two(s.handicap_expected())) }
            td.n { (two(s.handicap_result())) }
        }
    } }
}

/// What a competition's page shows besides the run's standings: each entrant's
/// players.
struct Parts {
    players: Vec<Vec<Player>>,
}

impl Parts {
    fn of(data: &SiteData, look: &Lookups, id: &str, c: &Competition) -> Self {
        Parts {
            players: c
                .standings
                .iter()
                .map(|s| players(data, look, id, &s.entrant))
                .collect(),
        }
    }
}

/// The competition's page.
pub fn page(data: &SiteData, look: &Lookups, id: &str, c: &Competition) -> String {
    let parts = Parts::of(data, look, id, c);
    let title = c.title.clone().unwrap_or_else(|| id.to_owned());
    let handicap_event = c.standings.iter().any(|s| s.handicap_result().is_some());
    let unit = if c.imps {
        "IMPs per board"
    } else {
        "percentage points above 50"
    };
    let mut headings = vec![
        "rank",
        "entrant",
        "players",
        "score",
        "%",
        "pair handicap",
        "expected",
        "achieved",
    ];
    if handicap_event {
        headings.extend(["handicap expected", "handicap result"]);
    }
    let sheet = club_sheet(look, id, c);
    let body = html! {
        p { (c.date.map(|d| d.to_string()).unwrap_or_default())
            @if let Some(club) = &c.club { ", " (link(1, &links::club(club), club)) }
            ", competition " (Text(id)) "." }
        h2 { "Standings" }
        div.wide { table {
            caption { "Expected and achieved: the model's view of each pair's result, in " (unit) "." }
            thead { (cols(&headings)) }
            tbody { @for (s, shown) in c.standings.iter().zip(&parts.players) {
                (row(look, id, s, shown, handicap_event))
            } }
        } }
        @if let Some(sheet) = &sheet {
            h2 { "The club's result sheet" }
            p { "As the club's scoring program prints it: its ranks, rounding and names. A handicap tournament's handicap results are those of the federation's handicaps in this run." }
            div.wide { (PreEscaped(sheet)) }
        }
    };
    site_page(1, &title, &title, body)
}
