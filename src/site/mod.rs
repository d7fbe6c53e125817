//! The federation's static site, made from a run's folder.
//!
//! Members and clubs read their handicaps on a website, not in Parquet files: this makes
//! one from the files a run published, a page per ranked member, club, district and
//! competition, with the ranking on the front page and the month's report beside it.
//! The site needs no server and names no address outside itself, so it reads from its
//! folder, from a shared drive or from any static host. It is made from the same page
//! skeleton, escaper and charts as the other pages, written as a whole the way a run
//! folder is, and the same run always gives the same bytes, so publishing a month over
//! the last one writes only the pages whose content changed.

pub mod club;
pub mod competition;
pub mod data;
pub mod front;
pub mod links;
pub mod member;
pub mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::Result;
use crate::report::statement::Index;

pub use write::Written;

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

/// Every page of the site, by its path from the site's root.
pub fn build(data: &data::SiteData, title: &str) -> Result<BTreeMap<String, Vec<u8>>> {
    let look = data.lookups();
    let index = Index::new(&data.tables);
    let mut pages: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    pages.insert("index.html".into(), front::page(data, title).into_bytes());
    if let Some(report) = &data.report {
        let report = report.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "");
        pages.insert(links::REPORT.into(), report.into_bytes());
    }
    let members: Vec<(String, Vec<u8>)> = data
        .ranked
        .par_iter()
        .map(|r| {
            let statement = index.statement(r.member_id)?;
            let page = member::page(data, r, &statement, &look.pages);
            Ok((links::member(r.member_id), page.into_bytes()))
        })
        .collect::<Result<_>>()?;
    let competitions: Vec<(String, Vec<u8>)> = data
        .competitions
        .par_iter()
        .map(|(id, c)| {
            let page = competition::page(data, &look, id, c);
            (links::competition(id), page.into_bytes())
        })
        .collect();
    let clubs = data
        .clubs()
        .into_iter()
        .map(|c| (links::club(c), club::page(data, c).into_bytes()));
    let districts: std::collections::BTreeSet<&str> = data
        .ranked
        .iter()
        .map(|r| r.district.as_str())
        .filter(|d| !d.is_empty())
        .collect();
    let districts = districts.into_iter().map(|d| {
        (
            links::district(d),
            front::district_page(data, title, d).into_bytes(),
        )
    });
    for (path, page) in members
        .into_iter()
        .chain(competitions)
        .chain(clubs)
        .chain(districts)
    {
        if pages.insert(path.clone(), page).is_some() {
            return Err(crate::error::Error::Config(format!(
                "two pages of the site would have the address {path}: two clubs, districts or competitions whose names differ only in letters an address cannot hold"
            )));
        }
    }
    Ok(pages)
}

/// Makes the site of the run in `run` (with the dataset in `data`, or the one its
/// `run.json` names) and writes it as the whole of `site`, writing only the pages that
/// changed.
pub fn publish(run: &Path, data: Option<&Path>, site: &Path, title: &str) -> Result<Summary> {
    let data = data::read(run, data)?;
    let pages = build(&data, title)?;
    let written = write::write_site(site, &pages)?;
    Ok(Summary {
        site: site.to_path_buf(),
        members: data.ranked.len(),
        clubs: data.clubs().len(),
        competitions: data.competitions.len(),
        report: data.report.is_some(),
        dataset: data.dataset.clone(),
        written,
    })
}
