//! Replacing a month's pages in place, finished by the next `publish` if killed.
//!
//! A site holds hundreds of thousands of pages and a month changes a few percent of
//! them, so a month's publication replaces those pages where they are rather than
//! building a new site beside the old one: building it costs a link per kept page and
//! removing the old one an unlink per page, whatever the month changed. Each new page
//! is first written beside the page it replaces under a hidden name
//! (`.tmp-new-NAME`), then flushed; only then is the journal
//! ([`JOURNAL`]) written, in one atomic rename: the list of pages to be renamed into
//! place (`+`) and removed (`-`), the site's record last. The journal is the moment the
//! month is decided. A `publish` killed before it leaves the previous site whole with
//! hidden files beside it, which the next one removes; killed after it, the next one
//! (before anything else) carries out what the journal lists, each step of which can
//! be done twice without harm (a page already renamed has no hidden file left). The
//! record of digests is replaced last, so at no point does it describe a page that is
//! not yet in place.
//!
//! The price is that a reader may see the month's pages arrive over the seconds the
//! renames take, each page whole (a rename within a folder is atomic), rather than
//! the whole month in one step.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The journal of a publication being put in place, at the site's root.
pub const JOURNAL: &str = "site-journal.tsv";

/// The prefix of a new page written beside the page it replaces.
const NEW: &str = ".tmp-new-";

/// The first line of a journal.
const HEADER: &str = "# bridgehcp site journal: pages renamed into place (+) and removed (-)\n";

/// Where the new version of the page at `relative` is written before it is renamed
/// into place: beside it, hidden.
pub fn beside(site: &Path, relative: &str) -> PathBuf {
    let (folder, name) = relative.rsplit_once('/').unwrap_or(("", relative));
    site.join(folder).join(format!("{NEW}{name}"))
}

/// Whether a file name is one of a publication's hidden files.
pub fn is_hidden(name: &str) -> bool {
    name.starts_with(".tmp-")
}

/// What a journal lists: the pages (relative paths) to rename into place, in order,
/// then those to remove.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Steps {
    pub replaced: Vec<String>,
    pub removed: Vec<String>,
}

impl Steps {
    fn text(&self) -> String {
        let mut out = HEADER.to_owned();
        for page in &self.replaced {
            out.push_str(&format!("+\t{page}\n"));
        }
        for page in &self.removed {
            out.push_str(&format!("-\t{page}\n"));
        }
        out
    }

    /// The steps a journal's text lists; `None` for a text that is not a journal.
    fn parse(text: &str) -> Option<Steps> {
        let rest = text.strip_prefix(HEADER)?;
        let mut steps = Steps::default();
        for line in rest.lines() {
            match line.split_once('\t')? {
                ("+", page) => steps.replaced.push(page.to_owned()),
                ("-", page) => steps.removed.push(page.to_owned()),
                _ => return None,
            }
        }
        Some(steps)
    }
}

/// Writes the journal of `steps` into `site` in one atomic rename, flushed: from here
/// on the publication is finished by whichever `publish` comes next.
pub fn write(site: &Path, steps: &Steps) -> Result<()> {
    let path = site.join(JOURNAL);
    let hidden = site.join(format!("{NEW}{JOURNAL}"));
    let file = std::fs::File::create(&hidden).map_err(|e| Error::io(&hidden, e))?;
    std::io::Write::write_all(&mut &file, steps.text().as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io(&hidden, e))?;
    std::fs::rename(&hidden, &path).map_err(|e| Error::io(&path, e))?;
    sync_dir(site);
    Ok(())
}

/// Carries out the journal in `site`, if there is one, and removes it: the pages it
/// lists renamed into place and removed. `at` is called after the first rename (a test
/// stops the process there). The count of steps carried out, `None` without a journal.
pub fn finish(site: &Path, at: &dyn Fn(&str)) -> Result<Option<usize>> {
    let path = site.join(JOURNAL);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let steps = Steps::parse(&text).ok_or_else(|| {
        Error::Config(format!(
            "{}: not a journal of this program's; a publication into the site was interrupted and cannot be finished: publish into a new folder",
            path.display()
        ))
    })?;
    let mut done = 0;
    for page in &steps.replaced {
        let new = beside(site, page);
        match std::fs::rename(&new, site.join(page)) {
            Ok(()) => done += 1,
            // Renamed already, by the publication the journal was written by.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&new, e)),
        }
        if done == 1 {
            at("replacing");
        }
    }
    for page in &steps.removed {
        let old = site.join(page);
        match std::fs::remove_file(&old) {
            Ok(()) => done += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&old, e)),
        }
    }
    for folder in steps.removed.iter().filter_map(|p| p.rsplit_once('/')) {
        // A folder the month emptied goes, as a fresh site would not have it.
        let _ = std::fs::remove_dir(site.join(folder.0));
    }
    flush(site)?;
    std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
    sync_dir(site);
    Ok(Some(done))
}

/// Flushes a folder's entries (not every file system can).
fn sync_dir(folder: &Path) {
    if let Ok(dir) = std::fs::File::open(folder) {
        let _ = dir.sync_all();
    }
}

/// Flushes the pages written in `folder` to disk before they are put in place (or,
/// after the renames, the renames): one flush of the file system, not one per page (a
/// month writes thousands).
pub fn flush(folder: &Path) -> Result<()> {
    let file = std::fs::File::open(folder).map_err(|e| Error::io(folder, e))?;
    sync(&file).map_err(|e| Error::io(folder, e))
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

    #[test]
    fn a_journal_reads_back_and_is_finished_once_and_again_without_harm() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let site = dir.path();
        let put = |path: PathBuf, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap_or(site))
                .and_then(|()| std::fs::write(&path, text))
                .map_err(|e| Error::io(&path, e))
        };
        put(site.join("members/1.html"), "old 1")?;
        put(site.join("members/2.html"), "old 2")?;
        put(beside(site, "members/1.html"), "new 1")?;
        put(beside(site, "index.html"), "front")?;
        assert_eq!(beside(site, "index.html"), site.join(".tmp-new-index.html"));
        let steps = Steps {
            replaced: vec!["index.html".into(), "members/1.html".into()],
            removed: vec!["members/2.html".into()],
        };
        assert_eq!(Steps::parse(&steps.text()), Some(steps.clone()));
        write(site, &steps)?;
        let read = |p: &str| std::fs::read_to_string(site.join(p)).ok();
        // Killed after the first rename: finished by the next publication.
        std::fs::rename(beside(site, "index.html"), site.join("index.html"))
            .map_err(|e| Error::io("rename", e))?;
        assert_eq!(finish(site, &|_| {})?, Some(2));
        assert_eq!(read("index.html").as_deref(), Some("front"));
        assert_eq!(read("members/1.html").as_deref(), Some("new 1"));
        assert!(!site.join("members/2.html").exists());
        assert!(!site.join(JOURNAL).exists());
        assert_eq!(finish(site, &|_| {})?, None);
        Ok(())
    }
}
