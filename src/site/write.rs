//! Writing the site as a whole, and only what changed.
//!
//! A site is replaced the way a run folder is: the new version is put together beside
//! the old one and takes its place in one step, so a reader (or a host syncing the
//! folder) never sees half of one month and half of the next. A month changes a small
//! part of the pages (the front page, the members who played, their clubs, the month's
//! competitions), so a page whose bytes are those already published is not written
//! again: the new version links to the old file (a copy where the file system cannot
//! link), and the count of pages written says what the month cost.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::store::files::{check_replaceable_as, recover, write_replacing, Commit};

/// The top-level entries of a site folder.
pub const KNOWN: [&str; 6] = [
    "index.html",
    "report.html",
    "members",
    "clubs",
    "competitions",
    "districts",
];

/// What a publication changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    /// Pages in the new version.
    pub pages: usize,
    /// Pages new or changed, written.
    pub written: usize,
    /// Pages the same as before, kept.
    pub unchanged: usize,
    /// Pages of the previous version no longer in the site.
    pub removed: usize,
}

/// Pages made at once: enough to keep both cores busy, few enough that a site of
/// millions of lines is never held whole.
const BATCH: usize = 512;

/// The pages (relative path and what `make` makes its bytes from) as the whole of
/// `site`, replacing what was there. Pages are made and written a batch at a time.
pub fn write_site<P, F>(site: &Path, pages: &[(String, P)], make: F) -> Result<Written>
where
    P: Sync,
    F: Fn(&P) -> Result<Vec<u8>> + Sync,
{
    recover(site)?;
    check_replaceable_as(site, &KNOWN, "a site")?;
    let old = existing_pages(site)?;
    let new: std::collections::BTreeSet<&str> = pages.iter().map(|p| p.0.as_str()).collect();
    let mut written = Written {
        pages: pages.len(),
        removed: old.keys().filter(|p| !new.contains(p.as_str())).count(),
        ..Written::default()
    };
    write_replacing(site, Commit::default(), |staging| {
        for batch in pages.chunks(BATCH) {
            let wrote: Vec<bool> = batch
                .par_iter()
                .map(|(relative, page)| {
                    let bytes = make(page)?;
                    place(site, staging, relative, &bytes, old.get(relative))
                })
                .collect::<Result<_>>()?;
            let count = wrote.iter().filter(|w| **w).count();
            written.written += count;
            written.unchanged += wrote.len() - count;
        }
        flush(staging)
    })?;
    Ok(written)
}

/// Puts a page into the staged version: the published file kept when it holds the same
/// bytes, else the bytes written. True when written.
fn place(
    site: &Path,
    staging: &Path,
    relative: &str,
    bytes: &[u8],
    old: Option<&PathBuf>,
) -> Result<bool> {
    let to = staging.join(relative);
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    let same = match old {
        Some(from) => same_bytes(from, bytes)?,
        None => false,
    };
    if same && keep(&site.join(relative), &to).is_ok() {
        return Ok(false);
    }
    std::fs::write(&to, bytes).map_err(|e| Error::io(&to, e))?;
    Ok(true)
}

/// The pages of the site now in `site`, by relative path (`/`-separated).
fn existing_pages(site: &Path) -> Result<BTreeMap<String, PathBuf>> {
    let mut out = BTreeMap::new();
    if !site.is_dir() {
        return Ok(out);
    }
    for name in KNOWN {
        let path = site.join(name);
        if path.is_file() {
            out.insert(name.to_owned(), path);
        } else if path.is_dir() {
            let entries = std::fs::read_dir(&path).map_err(|e| Error::io(&path, e))?;
            for entry in entries {
                let entry = entry.map_err(|e| Error::io(&path, e))?;
                let file = entry.file_name().to_string_lossy().into_owned();
                if entry.path().is_file() {
                    out.insert(format!("{name}/{file}"), entry.path());
                }
            }
        }
    }
    Ok(out)
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

/// The published file `from` kept in the new version at `to`: linked, or copied.
fn keep(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::hard_link(from, to).or_else(|_| std::fs::copy(from, to).map(|_| ()))
}

/// Flushes the new pages to disk before the version holding them takes the site's
/// place: one flush of the file system, not one per page (a month writes thousands).
fn flush(staging: &Path) -> Result<()> {
    let folder = std::fs::File::open(staging).map_err(|e| Error::io(staging, e))?;
    sync(&folder).map_err(|e| Error::io(staging, e))
}

#[cfg(target_os = "linux")]
fn sync(folder: &std::fs::File) -> std::io::Result<()> {
    rustix::fs::syncfs(folder).map_err(std::io::Error::from)
}

#[cfg(not(target_os = "linux"))]
fn sync(folder: &std::fs::File) -> std::io::Result<()> {
    folder.sync_all()
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
        write_site(site, pages, |bytes| Ok(bytes.clone()))
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
        assert!(write(&site, &pages(&[("index.html", "a")])).is_err());
        assert!(site.join("thesis.docx").exists());
        Ok(())
    }
}
