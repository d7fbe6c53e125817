//! Writing the site, and only what changed.
//!
//! A new site is put together beside its folder and renamed into place, the way a run
//! folder is. After that a month changes a small part of the pages (the front page,
//! the members who played, their clubs, the month's competitions), and rebuilding the
//! whole tree (a link per kept page, an unlink per page of the old tree) would cost
//! the history every month; so the month's pages replace their predecessors in place,
//! through a journal a killed `publish` leaves for the next one to finish
//! ([`super::journal`]). A page whose bytes are those already published is not written
//! again, and the count of pages written says what the month cost.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{digest, journal};
use crate::error::{Error, Result};
use crate::scoring::progress::Progress;
use crate::store::files::{check_replaceable_as, recover, write_replacing, Commit};

/// The top-level entries of a site folder.
pub const KNOWN: [&str; 8] = [
    "index.html",
    "report.html",
    "members",
    "clubs",
    "competitions",
    "districts",
    digest::MANIFEST,
    journal::JOURNAL,
];

/// What a publication changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// Pages in the new version.
    pub pages: usize,
    /// Pages new or changed, written.
    pub written: usize,
    /// Pages the same as before, kept.
    pub unchanged: usize,
    /// Pages of the previous version no longer in the site.
    pub removed: usize,
    /// Pages made (the others were kept as published because what they are made from
    /// is what the site's record says they were made from).
    pub made: usize,
    /// The pages written beside those they replace, to be renamed into place.
    pub replaced: Vec<String>,
}

/// A page as its maker gives it: the digest of what it is made from (for the pages
/// summed up by one) and its bytes, unless the digest is the one the maker was told is
/// published.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Made {
    pub digest: Option<String>,
    pub bytes: Option<Vec<u8>>,
    /// What the record keeps beside the page's key for the next publication (a member's
    /// earlier years: [`super::history`]).
    pub history: Option<std::sync::Arc<str>>,
}

impl Made {
    /// A page made, without a digest.
    pub fn bytes(bytes: Vec<u8>) -> Self {
        Made {
            digest: None,
            bytes: Some(bytes),
            history: None,
        }
    }
}

/// Pages made at once: enough to keep both cores busy, few enough that a site of
/// millions of lines is never held whole.
pub const BATCH: usize = 512;

/// What became of one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Written,
    Same,
    Kept,
}

/// The pages published in `site` (none when it is new), by relative path, with their
/// sizes, listed by [`list`]; and what the site's record says of them, once given
/// ([`Listed::with_record`]). The files' paths are not held (a line per page): they are
/// the site's folder joined to the relative path.
pub struct Listed {
    sizes: BTreeMap<String, u64>,
    recorded: BTreeMap<String, digest::Recorded>,
}

impl Listed {
    /// The listing with what the site's record says of its pages (read once, with the
    /// rest of the record: [`digest::read`]).
    pub fn with_record(self, recorded: BTreeMap<String, digest::Recorded>) -> Self {
        Listed { recorded, ..self }
    }
}

/// The pages of `site` as they are (after [`settle`]), the hidden files of a
/// publication killed before its journal removed; an error when the folder holds
/// anything but a site.
pub fn list(site: &Path) -> Result<Listed> {
    check_replaceable_as(site, &KNOWN, "a site")?;
    let sizes = existing_pages(site)?;
    Ok(Listed {
        sizes,
        recorded: BTreeMap::new(),
    })
}

/// The pages (relative path and what `make` makes them from) as the whole of `site`,
/// replacing what was there. `make` is given the digest the site records for the page,
/// when the record is trusted, and may then leave the bytes out. Pages are made and
/// written a batch at a time: into a new folder that takes the site's place when there
/// is no site yet, else each beside the page it replaces and renamed over it once all
/// are written ([`journal`]). `commit.at` is called at `written` (the new pages beside
/// the old) and `replacing` (the first page renamed), for the tests. `progress` hears of
/// each batch of pages made and of the renames.
pub fn write_site<P, F>(
    site: &Path,
    mut listed: Listed,
    pages: &[(String, P)],
    commit: Commit,
    shared: &digest::Record,
    make: F,
    progress: &dyn Progress,
) -> Result<Written>
where
    P: Sync,
    F: Fn(&P, Option<&str>) -> Result<Made> + Sync,
{
    if listed.sizes.is_empty() {
        let mut written = Written::default();
        write_replacing(
            site,
            Commit {
                at: &|_| {},
                ..commit
            },
            |staging| {
                written = write_pages(staging, staging, pages, &listed, shared, &make, progress)?;
                progress.spin("waiting for the pages to reach the disk".into());
                journal::flush(staging)
            },
        )?;
        return Ok(written);
    }
    let recorded = std::mem::take(&mut listed.recorded);
    listed.recorded = trusted(site, recorded, pages, &listed.sizes, &make)?;
    let made = write_pages(site, site, pages, &listed, shared, &make, progress);
    let old = listed.sizes;
    if made.is_err() {
        // Nothing of the month is in place: its hidden files go with it.
        let _ = existing_pages(site);
    }
    let mut written = made?;
    let new: BTreeSet<&str> = pages.iter().map(|p| p.0.as_str()).collect();
    let removed: Vec<String> = old
        .keys()
        .filter(|p| !new.contains(p.as_str()))
        .cloned()
        .collect();
    written.removed = removed.len();
    let mut replaced = std::mem::take(&mut written.replaced);
    let manifest = journal::beside(site, digest::MANIFEST);
    if replaced.is_empty()
        && removed.is_empty()
        && same_files(&site.join(digest::MANIFEST), &manifest)
    {
        let hidden = journal::beside(site, digest::MANIFEST);
        std::fs::remove_file(&hidden).map_err(|e| Error::io(&hidden, e))?;
        return Ok(written);
    }
    replaced.push(digest::MANIFEST.to_owned());
    progress.spin("waiting for the pages to reach the disk".into());
    journal::flush(site)?;
    (commit.at)("written");
    journal::write(site, &journal::Steps { replaced, removed })?;
    progress.spin("putting the new pages in place".into());
    journal::finish(site, commit.at)?;
    Ok(written)
}

/// Finishes what a `publish` killed in `site` left: a new site half put in place, or a
/// month's journal.
pub fn settle(site: &Path) -> Result<()> {
    recover(site)?;
    journal::finish(site, &|_| {})?;
    Ok(())
}

/// Makes the pages, a batch at a time, and writes those new or changed: into `to` at
/// their paths when `to` is a new folder, else beside the published page in `site`
/// (their paths then listed in [`Written::replaced`]); and the record of digests the
/// same way.
fn write_pages<P, F>(
    site: &Path,
    to: &Path,
    pages: &[(String, P)],
    listed: &Listed,
    shared: &digest::Record,
    make: &F,
    progress: &dyn Progress,
) -> Result<Written>
where
    P: Sync,
    F: Fn(&P, Option<&str>) -> Result<Made> + Sync,
{
    let (old, recorded) = (&listed.sizes, &listed.recorded);
    let in_place = site == to && !old.is_empty();
    let mut written = Written {
        pages: pages.len(),
        ..Written::default()
    };
    let mut digests: BTreeMap<String, digest::Recorded> = BTreeMap::new();
    make_folders(to, pages)?;
    progress.start("pages", pages.len() as u64);
    for batch in pages.chunks(BATCH) {
        let fates: Vec<(Fate, Option<digest::Recorded>)> = batch
            .par_iter()
            .map(|(relative, page)| {
                let known = recorded.get(relative).map(|r| r.digest.as_str());
                let at = Place {
                    to: match in_place {
                        true => journal::beside(site, relative),
                        false => to.join(relative),
                    },
                    at: (site, relative),
                    old: old.get(relative).copied(),
                };
                at.page(known, &|known| make(page, known))
            })
            .collect::<Result<_>>()?;
        progress.advance(batch.len() as u64);
        for ((relative, _), (fate, digest)) in batch.iter().zip(fates) {
            match fate {
                Fate::Written => written.written += 1,
                Fate::Same | Fate::Kept => written.unchanged += 1,
            }
            if fate == Fate::Written && in_place {
                written.replaced.push(relative.clone());
            }
            if fate != Fate::Kept {
                written.made += 1;
            }
            if let Some(digest) = digest {
                digests.insert(relative.clone(), digest);
            }
        }
    }
    let manifest = match in_place {
        true => journal::beside(site, digest::MANIFEST),
        false => to.join(digest::MANIFEST),
    };
    progress.spin("recording what each page is made from".into());
    digest::write(&manifest, &digests, shared)?;
    Ok(written)
}

/// Where a page goes: the file its new bytes are written to, and the published file
/// (with its size) it replaces.
struct Place<'a> {
    to: PathBuf,
    /// The site's folder and the page's path in it.
    at: (&'a Path, &'a str),
    old: Option<u64>,
}

impl Place<'_> {
    /// Makes the page: the published file kept when the maker left its bytes out (what
    /// it is made from is unchanged) or made the same bytes, else the bytes written.
    fn page(
        &self,
        known: Option<&str>,
        make: &dyn Fn(Option<&str>) -> Result<Made>,
    ) -> Result<(Fate, Option<digest::Recorded>)> {
        let made = make(known)?;
        let record = |size: u64| {
            made.digest.clone().map(|digest| digest::Recorded {
                digest,
                size,
                history: made.history.clone(),
            })
        };
        let bytes = match (&made.bytes, self.old) {
            (Some(bytes), _) => bytes,
            (None, Some(size)) => return Ok((Fate::Kept, record(size))),
            // Nothing published to keep: made after all.
            (None, None) => &make(None)?.bytes.unwrap_or_default(),
        };
        let same = match self.old {
            Some(size) => {
                let old = self.at.0.join(self.at.1);
                size == bytes.len() as u64 && same_bytes(&old, bytes)?
            }
            None => false,
        };
        if same {
            return Ok((Fate::Same, record(bytes.len() as u64)));
        }
        std::fs::write(&self.to, bytes).map_err(|e| Error::io(&self.to, e))?;
        Ok((Fate::Written, record(bytes.len() as u64)))
    }
}

/// The folders the pages go in, made once.
fn make_folders<P>(staging: &Path, pages: &[(String, P)]) -> Result<()> {
    let folders: BTreeSet<&str> = pages
        .iter()
        .filter_map(|(relative, _)| relative.rsplit_once('/').map(|(folder, _)| folder))
        .collect();
    for folder in folders {
        let path = staging.join(folder);
        std::fs::create_dir_all(&path).map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}

/// The site's record of digests, kept only if it can be trusted: for each kind of
/// page summed up by a digest (its top folder and its depth: a member's page and a
/// member's earlier year are two kinds), the first page whose digest is the one recorded is made
/// again and must be the bytes published (else the templates changed, or a page was
/// changed by hand, and nothing of the record is used). Only pages still in the site,
/// at the size recorded, are kept in it, and not the pages checked.
fn trusted<P, F>(
    site: &Path,
    mut recorded: BTreeMap<String, digest::Recorded>,
    pages: &[(String, P)],
    old: &BTreeMap<String, u64>,
    make: &F,
) -> Result<BTreeMap<String, digest::Recorded>>
where
    F: Fn(&P, Option<&str>) -> Result<Made>,
{
    recorded.retain(|page, r| old.get(page) == Some(&r.size));
    let mut checked: BTreeSet<(&str, usize)> = BTreeSet::new();
    let mut spot = Vec::new();
    for (relative, page) in pages {
        let Some(folder) = relative.split_once('/').map(|(f, _)| f) else {
            continue;
        };
        let folder = (folder, relative.matches('/').count());
        let (Some(known), true) = (recorded.get(relative), old.contains_key(relative)) else {
            continue;
        };
        if checked.contains(&folder) {
            continue;
        }
        let made = make(page, None)?;
        if made.digest.as_ref() != Some(&known.digest) {
            continue;
        }
        if !same_bytes(&site.join(relative), &made.bytes.unwrap_or_default())? {
            return Ok(BTreeMap::new());
        }
        checked.insert(folder);
        spot.push(relative.clone());
    }
    // The pages checked were made: they are counted so (and made again when written).
    for relative in spot {
        recorded.remove(&relative);
    }
    Ok(recorded)
}

/// The pages of the site now in `site`, by relative path (`/`-separated), with their
/// sizes. The hidden files of a publication killed before its journal was written are
/// removed on the way.
fn existing_pages(site: &Path) -> Result<BTreeMap<String, u64>> {
    let mut out = BTreeMap::new();
    if !site.is_dir() {
        return Ok(out);
    }
    remove_hidden(site)?;
    let pages = KNOWN
        .into_iter()
        .filter(|n| *n != digest::MANIFEST && *n != journal::JOURNAL);
    for name in pages {
        let path = site.join(name);
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_file() {
            out.insert(name.to_owned(), meta.len());
            continue;
        }
        list_folder(&path, name, true, &mut out)?;
    }
    Ok(out)
}

/// The pages in the folder at `path` (`relative` from the site's root) into `out`, and
/// with `nested` those of its folders (a member's earlier years), removing hidden files.
/// A site is hundreds of thousands of files: their sizes are read, and the nested
/// folders listed, on every core; an error is the first in the folder's order.
fn list_folder(
    path: &Path,
    relative: &str,
    nested: bool,
    out: &mut BTreeMap<String, u64>,
) -> Result<()> {
    let (mut files, mut folders) = (Vec::new(), Vec::new());
    let entries = std::fs::read_dir(path).map_err(|e| Error::io(path, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(path, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().map_err(|e| Error::io(entry.path(), e))?;
        if journal::is_hidden(&name) {
            let hidden = entry.path();
            std::fs::remove_file(&hidden).map_err(|e| Error::io(&hidden, e))?;
        } else if kind.is_file() {
            files.push((name, entry.file_name()));
        } else if kind.is_dir() && nested {
            folders.push((name, entry.file_name()));
        }
    }
    let sizes: Vec<Result<u64>> = files
        .par_iter()
        .map(|(_, entry)| {
            let file = path.join(entry);
            // As the folder's entry has it: a link is not followed.
            let meta = std::fs::symlink_metadata(&file).map_err(|e| Error::io(&file, e))?;
            Ok(meta.len())
        })
        .collect();
    for ((name, _), size) in files.iter().zip(sizes) {
        out.insert(format!("{relative}/{name}"), size?);
    }
    let listed: Vec<Result<BTreeMap<String, u64>>> = folders
        .par_iter()
        .map(|(name, entry)| {
            let mut pages = BTreeMap::new();
            let inner = format!("{relative}/{name}");
            list_folder(&path.join(entry), &inner, false, &mut pages).map(|()| pages)
        })
        .collect();
    for pages in listed {
        out.extend(pages?);
    }
    Ok(())
}

/// Removes the hidden files at the root of `site`.
fn remove_hidden(site: &Path) -> Result<()> {
    let entries = std::fs::read_dir(site).map_err(|e| Error::io(site, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(site, e))?;
        if journal::is_hidden(&entry.file_name().to_string_lossy()) {
            let hidden = entry.path();
            std::fs::remove_file(&hidden).map_err(|e| Error::io(&hidden, e))?;
        }
    }
    Ok(())
}

/// Whether the files at `a` and `b` hold the same bytes (false when one cannot be
/// read), compared a block at a time: a record is a line per page.
fn same_files(a: &Path, b: &Path) -> bool {
    use std::io::Read as _;
    let (Ok(fa), Ok(fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let (mut ra, mut rb) = (std::io::BufReader::new(fa), std::io::BufReader::new(fb));
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let Ok(na) = ra.read(&mut ba) else {
            return false;
        };
        if na == 0 {
            return matches!(rb.read(&mut bb[..1]), Ok(0));
        }
        if rb.read_exact(&mut bb[..na]).is_err() || ba[..na] != bb[..na] {
            return false;
        }
    }
}

/// Whether the file at `path` holds exactly `bytes` (its size read first).
fn same_bytes(path: &Path, bytes: &[u8]) -> Result<bool> {
    let size = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .len();
    if size != bytes.len() as u64 {
        return Ok(false);
    }
    Ok(std::fs::read(path).map_err(|e| Error::io(path, e))? == bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(list: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        list.iter()
            .map(|(p, b)| (p.to_string(), b.as_bytes().to_vec()))
            .collect()
    }

    fn write(site: &Path, pages: &[(String, Vec<u8>)]) -> Result<Written> {
        let shared = digest::Record::default();
        settle(site)?;
        write_site(
            site,
            list(site)?.with_record(digest::read(site)?.pages),
            pages,
            Commit::default(),
            &shared,
            |bytes, _| Ok(Made::bytes(bytes.clone())),
            &crate::scoring::progress::NoProgress,
        )
    }

    #[test]
    fn only_changed_pages_are_written() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let site = dir.path().join("site");
        let first = pages(&[
            ("index.html", "a"),
            ("members/1.html", "m1"),
            ("members/2.html", "m2"),
        ]);
        let w = write(&site, &first)?;
        assert_eq!((w.pages, w.written, w.unchanged, w.removed), (3, 3, 0, 0));
        let second = pages(&[
            ("index.html", "b"),
            ("members/1.html", "m1"),
            ("clubs/x.html", "x"),
        ]);
        let w = write(&site, &second)?;
        assert_eq!((w.pages, w.written, w.unchanged, w.removed), (3, 2, 1, 1));
        assert!(!site.join("members/2.html").exists());
        assert_eq!(
            std::fs::read_to_string(site.join("index.html"))
                .ok()
                .as_deref(),
            Some("b")
        );
        assert_eq!(
            std::fs::read_to_string(site.join("members/1.html"))
                .ok()
                .as_deref(),
            Some("m1")
        );
        let w = write(&site, &second)?;
        assert_eq!((w.written, w.unchanged, w.removed), (0, 3, 0));
        Ok(())
    }

    #[test]
    fn a_folder_with_other_files_is_not_replaced() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        std::fs::write(dir.path().join("thesis.docx"), "x").map_err(|e| Error::io("x", e))?;
        let site = dir.path().to_path_buf();
        assert!(list(&site).is_err());
        assert!(site.join("thesis.docx").exists());
        Ok(())
    }
}
