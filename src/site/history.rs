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
use crate::report::run_tables::ChangeStatus;
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
            start: rows
                .first()
                .map_or(member.handicap, |row| row.handicap_before),
            foreign: rows.iter().any(|row| row.status == ChangeStatus::Foreign),
            points: rows
                .iter()
                .map(|row| (row.date, row.handicap_after))
                .collect(),
            lines,
            partners,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::run_tables::{ChangeRow, MemberRow};
    use crate::site::data::SiteData;
    use crate::site::digest::Record;
    use chrono::NaiveDate;

    /// Member `member` of entrant `entrant` in competition `id` on `date`, its handicap
    /// moving by `delta` from `before`, `boards` played.
    fn row(id: &str, date: (i32, u32), member: i64, entrant: &str, before: f64) -> ChangeRow {
        ChangeRow {
            competition_id: id.into(),
            date: NaiveDate::from_ymd_opt(date.0, date.1, 10).unwrap_or_default(),
            member_id: member,
            entrant: entrant.into(),
            handicap_before: before,
            partner: 0.0,
            has_partner: false,
            pair_handicap: 20.0,
            field_handicap: 21.0,
            expected: 0.5,
            achieved: 1.0,
            n_b: 24,
            n_g: 20 + date.1 as i32,
            delta: -0.25,
            handicap_after: before - 0.25,
            status: ChangeStatus::Member,
        }
    }

    fn ranked(member_id: i64) -> Ranked {
        Ranked {
            rank: member_id.to_string(),
            member_id,
            name: format!("Player {member_id}"),
            club: String::new(),
            district: String::new(),
            handicap: "20.00".to_owned(),
            boards: "100".to_owned(),
        }
    }

    /// Member 1 played with 2 in March and May 2025 and with a non-member in 2025,
    /// with 3 in March 2026 (the run's last year) and with 2 again in April 2026.
    fn data() -> SiteData {
        let mut data = SiteData {
            ranked: (1..=3).map(ranked).collect(),
            year: Some(2026),
            years: [(1, vec![2025]), (2, vec![2025])].into(),
            ..SiteData::default()
        };
        data.tables.changes = vec![
            row("a", (2025, 3), 1, "1", 30.0),
            row("a", (2025, 3), 2, "1", 28.0),
            row("b", (2025, 5), 1, "2", 29.75),
            row("b", (2025, 5), 2, "2", 27.75),
            row("c", (2025, 9), 1, "4", 29.5),
            row("c", (2025, 9), -1, "4", 26.0),
            row("d", (2026, 3), 3, "1", 24.0),
            row("d", (2026, 3), 1, "1", 29.25),
            row("e", (2026, 4), 1, "3", 29.0),
            row("e", (2026, 4), 2, "3", 27.5),
        ];
        data.tables.members = [(1, 28.75), (2, 27.25), (3, 23.75)]
            .map(|(member_id, handicap)| MemberRow {
                member_id,
                name: Some(format!("Player {member_id}")),
                club: None,
                handicap,
                boards: 100,
                competitions: 3,
                last_played: None,
            })
            .into();
        data
    }

    /// The record's tally of member 1's earlier years is the tally of the whole
    /// statement's 2025 lines, reads back from its text, and with the year's lines
    /// gives what the whole statement gives: the same page.
    #[test]
    fn the_recorded_earlier_years_are_those_of_the_whole_history() -> Result<()> {
        let data = data();
        let keys = Keys::new(&data, &Record::default());
        let index = Index::new(&data.tables);
        let r = ranked(1);
        let (whole, before) = Shown::of(index.statement(1)?, Some(2026));
        let earlier = Earlier::now(&keys, &r, 2026, &[2025], before);
        let tally: Vec<(Option<i64>, &str, usize, i64)> = (earlier.partners.iter())
            .map(|((id, name), p)| (*id, name.as_str(), p.competitions, p.boards))
            .collect();
        // 2025: twice with member 2 (23 and 25 boards), once with a non-member (29).
        assert_eq!(
            tally,
            [(None, "non-member", 1, 29), (Some(2), "Player 2", 2, 48)]
        );
        let text = earlier.text();
        let key = keys.member_year(&r, 2025).0;
        assert_eq!(
            text,
            format!("2026;2025:{key};,1,29,non-member|2,2,48,Player 2")
        );
        let read = Earlier::parse(&text);
        assert_eq!(read.as_ref(), Some(&earlier));
        // Against no record every competition is new: the tally is not used.
        assert!(!earlier.holds(&keys, &r, Some(2026), &[2025]));
        let shown = earlier.shown(&index, &r)?;
        assert_eq!(shown, whole);
        // Over all five competitions: 3 with member 2 (48 + 24 boards), 1 with 3.
        let partners: Vec<(Option<i64>, usize, i64)> = (shown.partners.iter())
            .map(|((id, _), p)| (*id, p.competitions, p.boards))
            .collect();
        assert_eq!(
            partners,
            [(None, 1, 29), (Some(2), 3, 72), (Some(3), 1, 23)]
        );
        assert_eq!(
            (shown.lines.len(), shown.points.len(), shown.start),
            (2, 5, 30.0)
        );
        Ok(())
    }

    /// The tally is not used for another last year, other earlier years, or when a
    /// line of an earlier year moved since the record.
    #[test]
    fn the_recorded_tally_holds_only_while_its_years_are_unchanged() -> Result<()> {
        let before = data();
        let record = Keys::new(&before, &Record::default()).record();
        let r = ranked(1);
        let keys = Keys::new(&before, &record);
        let (_, tally) = Shown::of(Index::new(&before.tables).statement(1)?, Some(2026));
        let earlier = Earlier::now(&keys, &r, 2026, &[2025], tally);
        assert!(earlier.holds(&keys, &r, Some(2026), &[2025]));
        assert!(!earlier.holds(&keys, &r, Some(2027), &[2025]));
        assert!(!earlier.holds(&keys, &r, Some(2026), &[2024, 2025]));
        // Member 2's boards of May 2025 corrected: competition b is touched.
        let mut corrected = data();
        corrected.tables.changes[3].n_g = 18;
        let keys = Keys::new(&corrected, &record);
        assert!(!earlier.holds(&keys, &r, Some(2026), &[2025]));
        // Member 2 renamed: the partner's name of 2025 moved.
        let mut renamed = data();
        renamed.tables.members[1].name = Some("Bo Lund".to_owned());
        let keys = Keys::new(&renamed, &record);
        assert!(!earlier.holds(&keys, &r, Some(2026), &[2025]));
        // A new competition of 2026 with member 2: the 2025 tally still holds.
        let mut month = data();
        month
            .tables
            .changes
            .push(row("f", (2026, 5), 1, "2", 28.75));
        month
            .tables
            .changes
            .push(row("f", (2026, 5), 2, "2", 27.25));
        let keys = Keys::new(&month, &record);
        assert!(earlier.holds(&keys, &r, Some(2026), &[2025]));
        Ok(())
    }

    #[test]
    fn names_with_the_separators_read_back() {
        let mut partners = Tally::new();
        let odd = "A|b%c\td;e,f".to_owned();
        partners.insert((None, odd.clone()), Partnership::default());
        let earlier = Earlier {
            year: 2026,
            years: vec![],
            partners,
        };
        let text = earlier.text();
        assert!(!text.contains('\t') && text.matches('|').count() == 0);
        assert_eq!(Earlier::parse(&text), Some(earlier));
        assert_eq!(Earlier::parse("2026;2025;"), None);
        assert_eq!(unescape(&escape(&odd)).as_deref(), Some(odd.as_str()));
    }
}
