//! The federation's static site, made from a run's folder.
//!
//! Members and clubs read their handicaps on a website, not in Parquet files: this makes
//! one from the files a run published, a page per ranked member, club, district and
//! competition, with the ranking on the front page and the month's report beside it.
//! The site needs no server and names no address outside itself, so it reads from its
//! folder, from a shared drive or from any static host. It is made from the same page
//! skeleton, escaper and charts as the other pages, and the same run always gives the
//! same bytes, so publishing a month over the last one writes only the pages whose
//! content changed, in place ([`journal`]); and since the site records
//! what each member's and competition's page was made from ([`digest`], [`key`]), it
//! makes only those whose inputs changed, a member's from the year's lines and the
//! record's tally of the earlier years' partners ([`history`]). A member's page lists
//! the competitions of the run's last year and links to a page per earlier year
//! (`members/ID/YEAR.html`): an earlier year's lines no longer change, so a month
//! rewrites a member's current year and not ten years of history.

pub mod club;
pub mod competition;
pub mod data;
pub mod digest;
pub mod front;
pub mod history;
pub mod journal;
pub mod key;
pub mod links;
pub mod member;
pub mod write;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::Result;
use crate::scoring::progress::Progress;

pub use write::{Made, Written};

/// What `publish` made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub site: PathBuf,
    pub members: usize,
    pub clubs: usize,
    pub competitions: usize,
    pub report: bool,
    /// The dataset the titles, clubs and names came from (none found: identifiers only).
    pub dataset: Option<PathBuf>,
    pub written: Written,
}

/// A page of the site, to be made when it is written.
#[derive(Debug, Clone, Copy)]
pub enum Page<'a> {
    Front,
    Report(&'a str),
    Member(&'a data::Ranked),
    /// A member's rated competitions of an earlier year.
    MemberYear(&'a data::Ranked, i32),
    Competition(&'a str, &'a data::Competition),
    Club(&'a str),
    District(&'a str),
}

/// The clubs or the districts (as `field` reads them) of the ranked members, each
/// once, sorted, without the empty name.
fn of_ranked(data: &data::SiteData, field: fn(&data::Ranked) -> &String) -> BTreeSet<&str> {
    let names = data.ranked.iter().map(|r| field(r).as_str());
    names.filter(|name| !name.is_empty()).collect()
}

impl Page<'_> {
    /// What the page is of, in words, for an error.
    pub fn what(&self) -> String {
        match self {
            Page::Front => "the front page".to_owned(),
            Page::Report(_) => "the month's report".to_owned(),
            Page::Member(r) => format!("member {} ({})", r.member_id, r.name),
            Page::MemberYear(r, year) => format!("member {} ({}) in {year}", r.member_id, r.name),
            Page::Competition(id, _) => format!("competition `{id}`"),
            Page::Club(c) => format!("club `{c}`"),
            Page::District(d) => format!("district `{d}`"),
        }
    }
}

/// Every page of the site with its path from the site's root, sorted by path; an error
/// when two would share an address.
pub fn pages(data: &data::SiteData) -> Result<Vec<(String, Page<'_>)>> {
    let mut pages: BTreeMap<String, Page> = BTreeMap::new();
    pages.insert("index.html".into(), Page::Front);
    if let Some(report) = &data.report {
        pages.insert(links::REPORT.into(), Page::Report(report));
    }
    let districts = of_ranked(data, |r| &r.district);
    let members = data.ranked.iter().flat_map(|r| {
        let years = data.years.get(&r.member_id).map(Vec::as_slice);
        let years = years.unwrap_or_default().iter();
        let pages = years.map(|&y| (links::member_year(r.member_id, y), Page::MemberYear(r, y)));
        std::iter::once((links::member(r.member_id), Page::Member(r))).chain(pages)
    });
    let competitions = data
        .competitions
        .iter()
        .map(|(id, c)| (links::competition(id), Page::Competition(id, c)));
    let clubs = data
        .clubs()
        .into_iter()
        .map(|c| (links::club(c), Page::Club(c)));
    let districts = districts
        .into_iter()
        .map(|d| (links::district(d), Page::District(d)));
    for (path, page) in members.chain(competitions).chain(clubs).chain(districts) {
        if let Some(first) = pages.insert(path.clone(), page) {
            return Err(crate::error::Error::Config(format!(
                "{} and {} would both have the address {path} on the site: their names differ only in what an address cannot hold (letters outside a-z, spaces, punctuation); rename one in the dataset",
                first.what(),
                page.what()
            )));
        }
    }
    Ok(pages.into_iter().collect())
}

/// What makes the pages: the run's data, what is looked up again and again, and the
/// keys that say which pages could have changed ([`key`]).
pub struct Maker<'a> {
    data: &'a data::SiteData,
    look: data::Lookups<'a>,
    keys: key::Keys<'a>,
    title: &'a str,
    /// Per member the record's text of the earlier years ([`history`]).
    earlier: rustc_hash::FxHashMap<i64, Arc<str>>,
}

/// A page summed up by a key: kept as published (its bytes left out) when its key is
/// the one recorded (`known`) and nothing it shows of other pages' has moved, else made.
fn keyed(
    known: Option<&str>,
    (key, touched): (String, bool),
    make: impl FnOnce() -> Result<String>,
) -> Result<Made> {
    let bytes = match known == Some(key.as_str()) && !touched {
        true => None,
        false => Some(make()?.into_bytes()),
    };
    Ok(Made {
        digest: Some(key),
        bytes,
        history: None,
    })
}

/// The record's text of each member's earlier years, by member.
fn histories(record: &digest::Record) -> rustc_hash::FxHashMap<i64, Arc<str>> {
    let member = |path: &str| {
        let id = path.strip_prefix("members/")?.strip_suffix(".html")?;
        id.parse::<i64>().ok()
    };
    (record.pages.iter())
        .filter_map(|(path, r)| Some((member(path)?, r.history.clone()?)))
        .collect()
}

impl<'a> Maker<'a> {
    /// The maker of `data`'s pages, for a site whose record is `record`.
    pub fn new(data: &'a data::SiteData, title: &'a str, record: &digest::Record) -> Self {
        // The keys and the indexes read the same rows for different ends: both cores.
        let (look, keys) = rayon::join(|| data.lookups(), || key::Keys::new(data, record));
        Maker {
            data,
            look,
            keys,
            title,
            earlier: histories(record),
        }
    }

    /// A member's page, and the record's text of the member's earlier years. The page
    /// is made from the year's lines and the record's tally of the earlier years where
    /// the record is trusted (`known` is given) and the tally holds ([`history`]), else
    /// from the whole statement.
    fn member_page(&self, r: &data::Ranked, known: Option<&str>) -> Result<Made> {
        let data = self.data;
        let (key, touched) = self.keys.member(r, data.sd.get(&r.member_id).copied());
        let years = data.years.get(&r.member_id).map(Vec::as_slice);
        let years = years.unwrap_or_default();
        let recorded = known
            .filter(|_| !self.look.index.frozen())
            .and_then(|_| self.earlier.get(&r.member_id))
            .and_then(|text| Some((text, history::Earlier::parse(text)?)))
            .filter(|(_, e)| e.holds(&self.keys, r, data.year, years));
        if known == Some(key.as_str()) && !touched {
            return Ok(Made {
                digest: Some(key),
                bytes: None,
                history: recorded.map(|(text, _)| Arc::clone(text)),
            });
        }
        let (shown, history) = match recorded {
            Some((text, earlier)) => (earlier.shown(&self.look.index, r)?, Some(Arc::clone(text))),
            None => {
                let statement = self.look.index.statement(r.member_id)?;
                let (shown, before) = member::Shown::of(statement, data.year);
                let history = match (data.year, self.look.index.frozen()) {
                    (Some(year), false) => {
                        let earlier = history::Earlier::now(&self.keys, r, year, years, before);
                        Some(Arc::from(earlier.text()))
                    }
                    _ => None,
                };
                (shown, history)
            }
        };
        let page = member::page(data, r, &shown, &self.look.pages);
        Ok(Made {
            digest: Some(key),
            bytes: Some(page.into_bytes()),
            history,
        })
    }

    /// What the site's record keeps besides its pages.
    pub fn record(&self) -> digest::Record {
        self.keys.record()
    }

    /// `page`: its bytes, and for a member's or a competition's page its key (its bytes
    /// left out when the key is `known` and nothing the page shows of others' moved).
    pub fn make(&self, page: &Page, known: Option<&str>) -> Result<Made> {
        let (data, title, pages) = (self.data, self.title, &self.look.pages);
        let page = match *page {
            Page::Front => front::page(data, title),
            Page::Report(report) => report.replace(" xmlns=\"http://www.w3.org/2000/svg\"", ""),
            Page::Member(r) => return self.member_page(r, known),
            Page::MemberYear(r, year) => {
                return keyed(known, self.keys.member_year(r, year), || {
                    let statement = self.look.index.statement_of(r.member_id, Some(year))?;
                    Ok(member::year_page(r, year, &statement, pages))
                });
            }
            Page::Competition(id, c) => {
                return keyed(known, self.keys.competition(id), || {
                    Ok(competition::page(data, &self.look, id, c))
                });
            }
            Page::Club(c) => club::page(data, c),
            Page::District(d) => front::district_page(data, title, d),
        };
        Ok(Made::bytes(page.into_bytes()))
    }
}

/// Makes the site of the run in `run` (with the dataset in `data`, or the one its
/// `run.json` names) and writes it as the whole of `site`, writing only the pages that
/// changed. `progress` hears of each stage, and of the pages as they are made.
pub fn publish(
    run: &Path,
    data: Option<&Path>,
    site: &Path,
    title: &str,
    commit: crate::store::files::Commit,
    progress: &dyn Progress,
) -> Result<Summary> {
    progress.spin("reading the run and the dataset".into());
    // The site is listed and its record read while the run's folder is, on a thread of
    // its own: the listing is mostly the kernel's work, which the reading leaves room
    // for. A publication killed after its journal is finished first: the record read is
    // then the one its pages were made with.
    let (data, site_now) = std::thread::scope(|scope| {
        let site_now = scope.spawn(|| {
            write::settle(site)?;
            let listed = write::list(site)?;
            digest::read(site).map(|record| (listed, record))
        });
        (data::read(run, data), data::joined(site_now))
    });
    let data = data?;
    let (listed, mut published) = site_now?;
    progress.spin("finding the pages whose content changed".into());
    let pages = pages(&data)?;
    let maker = Maker::new(&data, title, &published);
    let listed = listed.with_record(std::mem::take(&mut published.pages));
    let record = maker.record();
    let make = |page: &Page, known: Option<&str>| maker.make(page, known);
    let written = write::write_site(site, listed, &pages, commit, &record, make, progress)?;
    progress.finish();
    let summary = Summary {
        site: site.to_path_buf(),
        members: data.ranked.len(),
        clubs: data.clubs().len(),
        competitions: data.competitions.len(),
        report: data.report.is_some(),
        dataset: data.dataset.clone(),
        written,
    };
    drop((pages, maker));
    let_go(data);
    Ok(summary)
}

/// Lets go of the site's data on a thread of its own: millions of rows, each with
/// texts shared by count, take a few tenths of a second to free, which the finished
/// publication need not wait for (a process that exits frees them at once). Where
/// no thread can start, they are freed here.
fn let_go(data: data::SiteData) {
    let _ = std::thread::Builder::new()
        .name("let-go".into())
        .spawn(move || drop(data));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_competitions_at_one_address_are_an_error_naming_both() {
        let mut data = data::SiteData::default();
        for id in ["K07 1", "K07-1", "K08-1"] {
            data.competitions
                .insert(id.to_owned(), data::Competition::default());
        }
        let Err(e) = pages(&data) else {
            panic!("`K07 1` and `K07-1` share an address")
        };
        assert_eq!(
            e.to_string(),
            "competition `K07 1` and competition `K07-1` would both have the address competitions/K07-1.html on the site: their names differ only in what an address cannot hold (letters outside a-z, spaces, punctuation); rename one in the dataset"
        );
        data.competitions.remove("K07 1");
        let paths: Vec<String> = pages(&data)
            .map(|p| p.into_iter().map(|p| p.0).collect())
            .unwrap_or_default();
        assert_eq!(
            paths,
            [
                "competitions/K07-1.html",
                "competitions/K08-1.html",
                "index.html"
            ]
        );
    }
}
