//! A competition's page: the standings, and what each pair was expected to score.
//!
//! Beside each entrant's own result it shows the handicap view of it: the pair's
//! handicap, the result expected of it in this field and the result it achieved (from
//! `changes.parquet`, in the competition's unit), and, in a handicap tournament, the
//! expected and handicap-adjusted results by which it ranked.

use maud::{html, Markup};

use super::data::{Competition, Lookups, SiteData, Standing};
use super::links::{self, cols, link, signed, site_page, two};
use crate::report::page::Text;

/// The players of an entrant, each linked to their page where they have one.
fn players(data: &SiteData, look: &Lookups, id: &str, entrant: &str) -> Markup {
    let slots = data
        .tables
        .entrants
        .get(&(id.to_owned(), entrant.to_owned()));
    let name_of = |m: i64| look.names.get(&m).map(|n| n.to_string());
    let shown: Vec<(Option<i64>, String)> = match slots {
        Some(slots) => slots
            .iter()
            .filter_map(|(member, printed)| {
                let name = member
                    .and_then(name_of)
                    .or_else(|| printed.clone())
                    .or_else(|| member.map(|m| format!("#{m}")))?;
                Some((*member, name))
            })
            .collect(),
        None => look
            .players
            .get(&(id, entrant))
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|&m| (Some(m), name_of(m).unwrap_or_else(|| format!("#{m}"))))
            .collect(),
    };
    html! { @for (i, (member, name)) in shown.iter().enumerate() {
        @if i > 0 { " – " }
        @match member {
            Some(m) if look.pages.contains(m) => (link(1, &links::member(*m), name)),
            _ => (Text(name)),
        }
    } }
}

/// A line of the standings.
fn row(data: &SiteData, look: &Lookups, id: &str, s: &Standing, handicap_event: bool) -> Markup {
    let change = look.first.get(&(id, s.entrant.as_str()));
    html! { tr {
        td.n { (s.rank.map(|r| r.to_string()).unwrap_or_else(|| "–".to_owned())) }
        td { (Text(&s.entrant)) @if let Some(d) = &s.direction { " " (Text(d)) } }
        td { (players(data, look, id, &s.entrant)) }
        td.n { (two(s.score)) }
        td.n { (two(s.percent)) }
        td.n { (two(change.map(|c| c.pair_handicap))) }
        td.n { (signed(change.map(|c| c.expected))) }
        td.n { (signed(change.map(|c| c.achieved))) }
        @if handicap_event {
            td.n { (two(s.handicap_expected)) }
            td.n { (two(s.handicap_result)) }
        }
    } }
}

/// The competition's page.
pub fn page(data: &SiteData, look: &Lookups, id: &str, c: &Competition) -> String {
    let title = c.title.clone().unwrap_or_else(|| id.to_owned());
    let handicap_event = c.standings.iter().any(|s| s.handicap_result.is_some());
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
    let body = html! {
        p { (c.date.map(|d| d.to_string()).unwrap_or_default())
            @if let Some(club) = &c.club { ", " (link(1, &links::club(club), club)) }
            ", competition " (Text(id)) "." }
        h2 { "Standings" }
        div.wide { table {
            caption { "Expected and achieved: the model's view of each pair's result, in " (unit) "." }
            thead { (cols(&headings)) }
            tbody { @for s in &c.standings {
                (row(data, look, id, s, handicap_event))
            } }
        } }
    };
    site_page(1, &title, &title, body)
}
