//! The front page: the published ranking as members read it, with the clubs and
//! districts to narrow it to.
//!
//! The page is whole without JavaScript: the ranking is one table, and each club and
//! district has a page of its own with its part of it. A small script of the page's own
//! (no library, nothing fetched) shows a filter by club, district and name, and sorts
//! the table by a column when its heading is pressed.

use std::collections::BTreeSet;

use maud::{html, Markup, PreEscaped};

use super::data::{Ranked, SiteData};
use super::links::{self, link, site_page};
use crate::report::page::Text;

/// Filters the ranking's rows by the form's club, district and name, and sorts the table
/// by a heading pressed (numbers by value). The filter may be given in the address too
/// (`index.html?club=BK%20Syd&name=berg`), so that a club can link to its part of the
/// ranking.
const SCRIPT: &str = r#"(function(){var f=document.getElementById('filter');if(!f)return;f.hidden=false;
var t=document.getElementById('ranking'),b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);
var c=document.getElementById('f-club'),d=document.getElementById('f-district'),q=document.getElementById('f-name'),n=document.getElementById('f-count');
function apply(){var cv=c.value,dv=d.value,qv=q.value.trim().toLowerCase(),k=0;
rows.forEach(function(r){var ok=(!cv||r.getAttribute('data-club')===cv)&&(!dv||r.getAttribute('data-district')===dv)&&(!qv||r.getAttribute('data-name').indexOf(qv)>=0);r.hidden=!ok;if(ok)k++;});
n.textContent=k+' of '+rows.length+' shown';}
c.addEventListener('change',apply);d.addEventListener('change',apply);q.addEventListener('input',apply);
f.addEventListener('submit',function(e){e.preventDefault();apply();});
var heads=t.tHead.rows[0].cells;
Array.prototype.forEach.call(heads,function(th,i){var btn=document.createElement('button');btn.type='button';btn.textContent=th.textContent;th.textContent='';th.appendChild(btn);
btn.addEventListener('click',function(){var num=th.getAttribute('data-sort')==='n',dir=th.getAttribute('aria-sort')==='ascending'?-1:1;
rows.sort(function(a,b){var x=a.cells[i].textContent,y=b.cells[i].textContent;return dir*(num?parseFloat(x)-parseFloat(y):x.localeCompare(y));});
Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort');});th.setAttribute('aria-sort',dir>0?'ascending':'descending');
rows.forEach(function(r){b.appendChild(r);});});});
var p=new URLSearchParams(location.search);if(p.has('club'))c.value=p.get('club');if(p.has('district'))d.value=p.get('district');if(p.has('name'))q.value=p.get('name');apply();})();"#;

/// The ranking's table, its rows linking to the members and their clubs, from a page
/// `depth` folders down.
pub fn ranking_table(depth: usize, rows: &[&Ranked]) -> Markup {
    html! {
        div.wide { table #ranking {
            caption { "The published ranking: the lower the handicap, the better the player." }
            thead { tr {
                th scope="col" data-sort="n" { "rank" }
                th scope="col" { "name" }
                th scope="col" { "club" }
                th scope="col" { "district" }
                th scope="col" data-sort="n" { "handicap" }
                th scope="col" data-sort="n" { "boards" }
            } }
            tbody { @for r in rows {
                tr data-club=(Text(&r.club)) data-district=(Text(&r.district)) data-name=(Text(&r.name.to_lowercase())) {
                    td.n { (Text(&r.rank)) }
                    td { (link(depth, &links::member(r.member_id), &r.name)) }
                    td { @if !r.club.is_empty() { (link(depth, &links::club(&r.club), &r.club)) } }
                    td { @if !r.district.is_empty() { (link(depth, &links::district(&r.district), &r.district)) } }
                    td.n { (Text(&r.handicap)) }
                    td.n { (Text(&r.boards)) }
                }
            } }
        } }
    }
}

/// The filter form, hidden until the script shows it (it does nothing without it).
fn filter(clubs: &BTreeSet<&str>, districts: &BTreeSet<&str>) -> Markup {
    html! {
        form #filter hidden role="search" aria-label="filter the ranking" {
            label { "Club " select #f-club { option value="" { "all" } @for c in clubs { option value=(Text(c)) { (Text(c)) } } } }
            label { "District " select #f-district { option value="" { "all" } @for d in districts { option value=(Text(d)) { (Text(d)) } } } }
            label { "Name " input #f-name type="search" autocomplete="off"; }
            output #f-count aria-live="polite" {}
        }
    }
}

/// The front page, `index.html`.
pub fn page(data: &SiteData, title: &str) -> String {
    let rows: Vec<&Ranked> = data.ranked.iter().collect();
    let clubs: BTreeSet<&str> = data.clubs();
    let ranked_clubs = super::of_ranked(data, |r| &r.club);
    let districts = super::of_ranked(data, |r| &r.district);
    let last = data.competitions.values().filter_map(|c| c.date).max();
    let body = html! {
        p { (rows.len()) " members ranked"
            @if let Some(last) = last { ", rated competitions up to " (last.to_string()) } "." }
        @if data.report.is_some() { p { (link(0, links::REPORT, "The month's report")) } }
        (filter(&ranked_clubs, &districts))
        h2 { "Ranking" }
        (ranking_table(0, &rows))
        h2 { "Clubs" }
        ul { @for c in &clubs { li { (link(0, &links::club(c), c)) } } }
        h2 { "Districts" }
        ul { @for d in &districts { li { (link(0, &links::district(d), d)) } } }
        script { (PreEscaped(SCRIPT)) }
    };
    site_page(0, title, title, body)
}

/// A district's page: its part of the ranking.
pub fn district_page(data: &SiteData, title: &str, district: &str) -> String {
    let rows: Vec<&Ranked> = data
        .ranked
        .iter()
        .filter(|r| r.district == district)
        .collect();
    let heading = format!("{district}: ranking");
    let body = html! {
        p { (rows.len()) " members of the district on the published ranking of " (Text(title)) "." }
        (ranking_table(1, &rows))
    };
    site_page(1, &heading, &heading, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(rank: &str, id: i64, name: &str, club: &str, district: &str) -> Ranked {
        Ranked {
            rank: rank.into(),
            member_id: id,
            name: name.into(),
            club: club.into(),
            district: district.into(),
            handicap: "12.50".into(),
            boards: "140".into(),
        }
    }

    #[test]
    fn names_are_escaped_wherever_the_front_page_places_them() {
        let data = SiteData {
            ranked: vec![
                ranked("1", 7, "Åsa <b>O'Ek</b>", "BK \"Syd\"", "Södra"),
                ranked("2=", 9, "Bo Lund", "BK \"Syd\"", ""),
            ],
            ..SiteData::default()
        };
        let page = page(&data, "R&D ranking");
        assert!(page.contains("<title>R&amp;D ranking</title>"));
        assert!(page.contains("<a href=\"members/7.html\">Åsa &lt;b&gt;O&#39;Ek&lt;/b&gt;</a>"));
        assert!(page.contains("data-name=\"åsa &lt;b&gt;o&#39;ek&lt;/b&gt;\""));
        assert!(page.contains("<a href=\"clubs/bk-syd.html\">BK &quot;Syd&quot;</a>"));
        assert!(page.contains("<option value=\"BK &quot;Syd&quot;\">"));
        assert!(!page.contains("<b>"));
        // One district, listed once; the member without one has no district link.
        assert_eq!(page.matches("href=\"districts/sodra.html\"").count(), 2);
        assert!(page.contains("2 members ranked."));
    }
}
