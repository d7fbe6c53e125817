//! A member's page: the handicap, how it came to be, and with whom.
//!
//! It is the player's statement (the same lines, so the page and `bridgehcp player`
//! never disagree) laid out for a member: the handicap first with its confidence figure
//! where the run publishes one, the chart of its way there with the same numbers in words
//! and in the table for a reader who cannot see the chart, the competitions newest
//! first, and the partners played with most.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Datelike, NaiveDate};
use maud::{html, Markup};

use super::data::{Ranked, SiteData};
use super::links::{self, cols, inline_svg, link, signed, site_page, two};
use crate::report::page::Text;
use crate::report::statement::{trajectory_svg, Line, Statement};

/// A partner's competitions and boards with the member.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Partnership {
    pub competitions: usize,
    pub boards: i64,
}

/// Per partner (member number when a member, and the name shown) the competitions and
/// boards played together.
pub type Tally = BTreeMap<(Option<i64>, String), Partnership>;

/// Adds the partners of `lines` to `tally`.
pub fn add(tally: &mut Tally, lines: &[Line]) {
    for l in lines {
        let Some(name) = &l.partner else { continue };
        let p = tally.entry((l.partner_id, name.clone())).or_default();
        p.competitions += 1;
        p.boards += l.boards;
    }
}

/// The partners played with most, most competitions first (then boards, then name).
fn partners(tally: &Tally) -> Vec<(&(Option<i64>, String), &Partnership)> {
    let mut out: Vec<_> = tally.iter().collect();
    out.sort_by(|a, b| {
        (b.1.competitions, b.1.boards, &a.0 .1, a.0 .0).cmp(&(
            a.1.competitions,
            a.1.boards,
            &b.0 .1,
            b.0 .0,
        ))
    });
    out.truncate(10);
    out
}

/// What a member's page shows of the member's statement: of the whole history only the
/// chart's points, the first handicap, whether a guest, and the partners' tally; the
/// lines only of the run's last year. A page made from this is the same whether it was
/// summed up from every line or from the lines of the year and the site's record of the
/// years before ([`super::history`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// The handicap before the first competition.
    pub start: f64,
    pub foreign: bool,
    /// The date and the handicap after of every competition, in order.
    pub points: Vec<(NaiveDate, f64)>,
    /// The lines of the run's last year (all of them when the run has none).
    pub lines: Vec<Line>,
    /// Over every competition.
    pub partners: Tally,
}

impl Shown {
    /// What the page shows of the whole statement `s` when the run's last year is
    /// `year`, and the partners' tally of the years before it.
    pub fn of(s: Statement, year: Option<i32>) -> (Shown, Tally) {
        let points = s.lines.iter().map(|l| (l.date, l.handicap_after)).collect();
        let (earlier, lines): (Vec<Line>, Vec<Line>) =
            (s.lines.into_iter()).partition(|l| year.is_some_and(|y| l.date.year() < y));
        let mut before = Tally::new();
        add(&mut before, &earlier);
        let mut partners = before.clone();
        add(&mut partners, &lines);
        let shown = Shown {
            start: s.start,
            foreign: s.foreign,
            points,
            lines,
            partners,
        };
        (shown, before)
    }
}

/// The chart's numbers in words: where the handicap started, where it is, and its best.
fn trajectory_words(s: &Shown) -> String {
    let (Some(first), Some(last)) = (s.points.first(), s.points.last()) else {
        return "No rated competition in this run.".to_owned();
    };
    let best = s
        .points
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    let mut words = format!(
        "The handicap went from {:.2} before {} to {:.2} after {}, over {}.",
        s.start,
        first.0,
        last.1,
        last.0,
        crate::report::count(s.points.len(), "rated competition", "rated competitions")
    );
    if let Some(best) = best {
        words.push_str(&format!(
            " Its best (lowest) was {:.2}, after {}.",
            best.1, best.0
        ));
    }
    words
}

/// A competition's row of the member's table, on a page `depth` folders down.
fn line_row(depth: usize, l: &Line, pages: &BTreeSet<i64>) -> Markup {
    let title = l.title.as_deref().unwrap_or(&l.competition_id);
    html! { tr {
        td { (l.date.to_string()) }
        td { (link(depth, &links::competition(&l.competition_id), title)) }
        td { @match (l.partner_id, &l.partner) {
            (Some(id), Some(name)) if pages.contains(&id) => (link(depth, &links::member(id), name)),
            (_, Some(name)) => (Text(name)),
            _ => "",
        } }
        td.n { (two(Some(l.field_handicap))) }
        td.n { (signed(Some(l.expected))) }
        td.n { (signed(Some(l.achieved))) }
        td { (Text(l.unit)) }
        td.n { (signed(Some(l.delta + l.cut))) }
        td.n { (two(Some(l.handicap_after))) }
    } }
}

/// The handicap with its confidence figure, and where the member stands. The rank is
/// left to the ranking's pages: one member's move would otherwise change the page of
/// everyone it passed, and a month would rewrite every page rather than those of the
/// members who played.
fn headline(r: &Ranked, sd: Option<f64>, s: &Shown) -> Markup {
    html! {
        p.big { "Handicap " strong { (Text(&r.handicap)) }
            @if let Some(sd) = sd { " ± " (format!("{sd:.2}")) " (one standard deviation)" } }
        p { "On the published ranking, with "
            (Text(&r.boards)) " rated boards"
            @if !r.club.is_empty() { ", " (link(1, &links::club(&r.club), &r.club)) }
            @if !r.district.is_empty() { ", " (link(1, &links::district(&r.district), &r.district)) }
            "." }
        @if s.foreign { p.note { "A foreign guest: the handicaps shown are temporary ones." } }
    }
}

/// The competitions table of a member's page, newest first.
fn lines_table<'l>(
    depth: usize,
    lines: impl DoubleEndedIterator<Item = &'l Line>,
    pages: &BTreeSet<i64>,
) -> Markup {
    html! { div.wide { table {
        caption { "Newest first. Expected and achieved are in the competition's unit; a result better than expected lowers the handicap." }
        thead { (cols(&["date", "competition", "partner", "field", "expected", "achieved", "unit", "change", "handicap after"])) }
        tbody { @for l in lines.rev() { (line_row(depth, l, pages)) } }
    } } }
}

/// The member's page.
pub fn page(data: &SiteData, r: &Ranked, s: &Shown, pages: &BTreeSet<i64>) -> String {
    let heading = format!("{} (member {})", r.name, r.member_id);
    let words = trajectory_words(s);
    let mut earlier: Vec<i32> = s.points.iter().map(|p| p.0.year()).collect();
    earlier.retain(|y| data.year.is_some_and(|current| *y < current));
    earlier.dedup();
    let body = html! {
        (headline(r, data.sd.get(&r.member_id).copied(), s))
        h2 { "Trajectory" }
        figure {
            (inline_svg(&trajectory_svg(s.start, &s.points)))
            figcaption { (Text(&words)) " Every value is in the table below." }
        }
        h2 { "Rated competitions" @if let Some(year) = data.year { " in " (year) } }
        @if !s.lines.is_empty() {
            (lines_table(1, s.lines.iter(), pages))
        } @else {
            p { "None this year." }
        }
        @if !earlier.is_empty() {
            h2 { "Earlier years" }
            p { "Each year's rated competitions on a page of their own: "
                @for (i, y) in earlier.iter().rev().enumerate() {
                    @if i > 0 { ", " }
                    (link(1, &links::member_year(r.member_id, *y), &y.to_string()))
                }
                "." }
        }
        h2 { "Partners played with most" }
        table {
            thead { (cols(&["partner", "competitions", "boards"])) }
            tbody { @for ((id, name), p) in partners(&s.partners) { tr {
                td { @match id {
                    Some(id) if pages.contains(id) => (link(1, &links::member(*id), name)),
                    _ => (Text(name)),
                } }
                td.n { (p.competitions) }
                td.n { (p.boards) }
            } } }
        }
    };
    site_page(1, &heading, &heading, body)
}

/// A member's page of an earlier year (`s` holds that year's lines).
pub fn year_page(r: &Ranked, year: i32, s: &Statement, pages: &BTreeSet<i64>) -> String {
    let heading = format!("{} (member {}) in {year}", r.name, r.member_id);
    let body = html! {
        p { "The rated competitions of " (year) "; the handicap as it is now, its chart and the partners played with most are on "
            (link(2, &links::member(r.member_id), &r.name)) "'s page." }
        (lines_table(2, s.lines.iter(), pages))
    };
    site_page(2, &heading, &heading, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(day: u32, partner: Option<(i64, &str)>, boards: i64, after: f64) -> Line {
        Line {
            date: NaiveDate::from_ymd_opt(2026, 3, day).unwrap_or_default(),
            competition_id: format!("c{day}"),
            title: None,
            club: None,
            partner: partner.map(|p| p.1.to_owned()),
            partner_id: partner.map(|p| p.0),
            pair_handicap: 20.0,
            field_handicap: 21.0,
            expected: 1.0,
            achieved: 2.0,
            unit: crate::report::statement::PERCENT,
            boards,
            n_b: 24,
            handicap_before: after + 0.5,
            delta: -0.5,
            cut: 0.0,
            handicap_after: after,
        }
    }

    #[test]
    fn partners_by_competitions_then_boards_and_the_chart_in_words() {
        let lines = vec![
            line(1, Some((2, "Bo Lund")), 24, 20.5),
            line(8, Some((3, "Cay Berg")), 26, 20.0),
            line(15, Some((2, "Bo Lund")), 20, 20.25),
            line(22, Some((3, "Cay Berg")), 27, 21.0),
            line(29, None, 24, 21.5),
        ];
        let mut tally = Tally::new();
        add(&mut tally, &lines);
        let shown: Vec<(&str, usize, i64)> = partners(&tally)
            .iter()
            .map(|((_, name), p)| (name.as_str(), p.competitions, p.boards))
            .collect();
        // Two competitions each: Cay Berg played more boards (53 against 44).
        assert_eq!(shown, [("Cay Berg", 2, 53), ("Bo Lund", 2, 44)]);
        let statement = Statement {
            member_id: 1,
            name: Some("Anna Berg".into()),
            club: None,
            start: 21.0,
            current: 21.5,
            foreign: false,
            lines,
        };
        // The run's year is 2026: no line of an earlier year, none in the tally before.
        let (shown, before) = Shown::of(statement, Some(2026));
        assert!(before.is_empty());
        assert_eq!((shown.lines.len(), &shown.partners), (5, &tally));
        assert_eq!(
            trajectory_words(&shown),
            "The handicap went from 21.00 before 2026-03-01 to 21.50 after 2026-03-29, over 5 rated competitions. Its best (lowest) was 20.00, after 2026-03-08."
        );
    }
}
