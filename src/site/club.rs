//! A club's page: its members on the ranking and the competitions it ran.
//!
//! A club's members are those the published ranking lists with the club (the club the
//! run decided for each member); its competitions are those the dataset records it as
//! organising, newest first.

use maud::html;

use super::data::{Ranked, SiteData};
use super::front::ranking_table;
use super::links::{self, cols, link, site_page};

/// The club's page.
pub fn page(data: &SiteData, club: &str) -> String {
    let members: Vec<&Ranked> = data.ranked.iter().filter(|r| r.club == club).collect();
    let mut competitions: Vec<(&String, &super::data::Competition)> = data
        .competitions
        .iter()
        .filter(|(_, c)| c.club.as_deref() == Some(club))
        .collect();
    competitions.sort_by(|a, b| (b.1.date, a.0).cmp(&(a.1.date, b.0)));
    let body = html! {
        p { (members.len()) " members on the published ranking, "
            (crate::report::count(competitions.len(), "competition", "competitions")) " in this run." }
        h2 { "Members" }
        (ranking_table(1, &members))
        h2 { "Competitions" }
        @if competitions.is_empty() { p { "None in this run's dataset." } }
        @else { div.wide { table {
            thead { (cols(&["date", "competition", "entrants"])) }
            tbody { @for (id, c) in &competitions { tr {
                td { (c.date.map(|d| d.to_string()).unwrap_or_default()) }
                td { (link(1, &links::competition(id), c.title.as_deref().unwrap_or(id))) }
                td.n { (c.standings.len()) }
            } } }
        } } }
    };
    let heading = club.to_owned();
    site_page(1, &heading, &heading, body)
}
