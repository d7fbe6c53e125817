//! What a member's page shows of the years before the run's last, kept in the site's
//! record so that a month need not make the member's whole statement again.
//!
//! A member who played this month has a new page, and the page shows the whole
//! history: the chart and its words from the first competition, and the partners played
//! with most, counted over every year. The chart's points and the words are read from
//! the change rows at little cost; the partners are not: each line's partner is found
//! among its competition's entrants and named, and most of a month's making went into
//! naming the partners of years that did not change. So the record keeps, beside each
//! member's page, the partners' tally of the years before the run's last year, with the
//! year it was counted for and the key of each earlier year's page ([`super::key`]).
//!
//! The tally is used instead of the lines of those years only when every one of them is
//! what it was counted from: the record is trusted and the run is not frozen (a frozen
//! run's last line of a month takes the next month's opening handicap); the run's last
//! year is the one counted for (in January the year before becomes an earlier year);
//! and the member's earlier years are the ones counted, each with the key of its page
//! recorded and not touched. An earlier year's page shows each of its lines' partner
//! (number and name) and boards, and its key and touch say that none of them moved
//! ([`super::key`] makes that argument value by value), so the tally of those lines is
//! the one recorded. Otherwise the page is made from the whole statement and the tally
//! counted again.

use chrono::Datelike;

use super::data::Ranked;
use super::key::Keys;
use super::member::{add, Partnership, Shown, Tally};
use crate::error::Result;
use crate::report::statement::Index;

/// The partners' tally of a member's years before `year`, and the key of each of those
/// years' pages.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Earlier {
    pub year: i32,
    pub years: Vec<(i32, String)>,
    pub partners: Tally,
}

/// A name with the separators of the record's text escaped.
fn escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '%' => out.push_str("%25"),
            '|' => out.push_str("%7C"),
            '\t' => out.push_str("%09"),
            '\n' => out.push_str("%0A"),
            '\r' => out.push_str("%0D"),
            c => out.push(c),
        }
    }
    out
}

/// A name as [`escape`] wrote it.
fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3)?;
        out.push(char::from(u8::from_str_radix(code, 16).ok()?));
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    Some(out)
}

impl Earlier {
    /// As the record's text: `YEAR;Y1:KEY1,Y2:KEY2;ID,COMPETITIONS,BOARDS,NAME|…` (no tab
    /// nor line break).
    pub fn text(&self) -> String {
        let years: Vec<String> = (self.years.iter())
            .map(|(y, key)| format!("{y}:{key}"))
            .collect();
        let partners: Vec<String> = (self.partners.iter())
            .map(|((id, name), p)| {
                let id = id.map(|id| id.to_string()).unwrap_or_default();
                format!("{id},{},{},{}", p.competitions, p.boards, escape(name))
            })
            .collect();
        format!("{};{};{}", self.year, years.join(","), partners.join("|"))
    }

    /// From the record's text; `None` when it is not one [`Earlier::text`] wrote.
    pub fn parse(text: &str) -> Option<Earlier> {
        let mut parts = text.splitn(3, ';');
        let (year, years, partners) = (parts.next()?, parts.next()?, parts.next()?);
        let mut out = Earlier {
            year: year.parse().ok()?,
            ..Earlier::default()
        };
        for item in years.split(',').filter(|s| !s.is_empty()) {
            let (y, key) = item.split_once(':')?;
            out.years.push((y.parse().ok()?, key.to_owned()));
        }
        for item in partners.split('|').filter(|s| !s.is_empty()) {
            let mut cells = item.splitn(4, ',');
            let id = cells.next()?;
            let id = (!id.is_empty()).then(|| id.parse()).transpose().ok()?;
            let p = Partnership {
                competitions: cells.next()?.parse().ok()?,
                boards: cells.next()?.parse().ok()?,
            };
            out.partners.insert((id, unescape(cells.next()?)?), p);
        }
        Some(out)
    }

    /// The earlier years of `r` as the record would hold them now, with `partners`.
    pub fn now(keys: &Keys, r: &Ranked, year: i32, years: &[i32], partners: Tally) -> Self {
        let years = years.iter().map(|&y| (y, keys.member_year(r, y).0));
        Earlier {
            year,
            years: years.collect(),
            partners,
        }
    }

    /// Whether the tally is still that of `r`'s earlier years: counted for the run's
    /// last `year`, over the member's earlier `years`, each year's page untouched with
    /// its key as recorded.
    pub fn holds(&self, keys: &Keys, r: &Ranked, year: Option<i32>, years: &[i32]) -> bool {
        Some(self.year) == year
            && self.years.len() == years.len()
            && self.years.iter().zip(years).all(|((y, key), &now)| {
                let (now_key, touched) = keys.member_year(r, now);
                *y == now && !touched && *key == now_key
            })
    }

    /// What `r`'s page shows, from the change rows and this tally of the earlier years:
    /// the lines only of the last year. The run must not be frozen.
    pub fn shown(self, index: &Index, r: &Ranked) -> Result<Shown> {
        let member = index.member(r.member_id)?;
        let rows = index.rows(r.member_id);
        let lines: Vec<_> = (rows.iter())
            .filter(|row| row.date.year() >= self.year)
            .map(|row| index.line(row))
            .collect();
        let mut partners = self.partners;
        add(&mut partners, &lines);
        Ok(Shown {
            start: rows.first().map_or(member.handicap, |row| row.handicap_before),
            foreign: rows.iter().any(|row| &*row.status == "foreign"),
            points: rows.iter().map(|row| (row.date, row.handicap_after)).collect(),
            lines,
            partners,
        })
    }
}
