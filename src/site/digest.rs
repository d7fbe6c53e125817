//! The site's record of what its pages were made from, and the digest that sums it up.
//!
//! A month changes a small part of a federation's pages, but finding which by making
//! every page and comparing its bytes costs what making the whole site costs. So each
//! member's and competition's page is recorded with a key of what it is made from
//! ([`super::key`]: the page's own inputs, summed up by a [`Feed`] of framed values),
//! with its size; beside them the record keeps each competition's key and each member's
//! attributes, the inputs pages share. A page whose key is the one recorded, none of
//! whose shared inputs moved, and whose file still has the size recorded, is kept as
//! published without being made again.
//!
//! The record is trusted only for the program that wrote it ([`MAKER`]: a different
//! version of the templates makes different bytes from the same values), and only
//! after one kept page of each kind, made again, is found to be the bytes published.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use sha2::{Digest as _, Sha256};

use crate::error::{Error, Result};

/// The site's record of its pages and what they were made from, at its root.
pub const MANIFEST: &str = "site-manifest.tsv";

/// The program and template version whose pages the record describes.
pub const MAKER: &str = concat!("bridgehcp ", env!("CARGO_PKG_VERSION"), " site 4");

/// The first line of the record.
fn header() -> String {
    format!("# {MAKER}: the digest of what each page is made from\n")
}

/// A page's values fed in turn; every value is framed (its kind and length), so that
/// two different sequences never feed the same bytes.
pub struct Feed(Sha256);

impl Default for Feed {
    fn default() -> Self {
        Feed(Sha256::new())
    }
}

impl Feed {
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.0.update(b"s");
        self.0.update((s.len() as u64).to_le_bytes());
        self.0.update(s.as_bytes());
        self
    }

    pub fn opt_str(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            Some(s) => self.str(s),
            None => self.none(),
        }
    }

    pub fn int(&mut self, v: i64) -> &mut Self {
        self.0.update(b"i");
        self.0.update(v.to_le_bytes());
        self
    }

    pub fn opt_int(&mut self, v: Option<i64>) -> &mut Self {
        match v {
            Some(v) => self.int(v),
            None => self.none(),
        }
    }

    /// A number by its bits: any change a page could show changes the digest.
    pub fn num(&mut self, v: f64) -> &mut Self {
        self.0.update(b"f");
        self.0.update(v.to_bits().to_le_bytes());
        self
    }

    pub fn opt_num(&mut self, v: Option<f64>) -> &mut Self {
        match v {
            Some(v) => self.num(v),
            None => self.none(),
        }
    }

    pub fn flag(&mut self, v: bool) -> &mut Self {
        self.0.update(if v { b"T" } else { b"F" });
        self
    }

    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.0.update(b"b");
        self.0.update((v.len() as u64).to_le_bytes());
        self.0.update(v);
        self
    }

    fn none(&mut self) -> &mut Self {
        self.0.update(b"n");
        self
    }

    /// The digest, as 32 hexadecimal digits (128 bits).
    pub fn finish(self) -> String {
        let sum = self.0.finalize();
        let mut out = String::with_capacity(32);
        for b in &sum[..16] {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }
}

/// A page as the record holds it: the key of what it was made from, and its size
/// (a page changed by hand since is made again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub digest: String,
    pub size: u64,
    /// What else the record keeps of the page (a member's earlier years:
    /// [`super::history`]), without a tab or a line break.
    pub history: Option<Arc<str>>,
}

/// What a site's record holds: its pages, and what they were made from that other
/// pages share ([`super::key`]): each competition's key and each member's attributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub pages: BTreeMap<String, Recorded>,
    pub competitions: HashMap<String, String>,
    pub members: BTreeMap<i64, String>,
}

/// The mark of a competition's key in the record (a digest never starts with `=`).
const COMPETITION: &str = "=c";
/// The mark of a member's attributes.
const MEMBER: &str = "=m";

/// The site's record; empty when the site has none, or one of another program's.
pub fn read(site: &Path) -> Result<Record> {
    let path = site.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Record::default()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let Some(rest) = text.strip_prefix(&header()) else {
        return Ok(Record::default());
    };
    let mut record = Record::default();
    for line in rest.lines() {
        let mut cells = line.splitn(3, '\t');
        let (Some(first), Some(second), Some(third)) = (cells.next(), cells.next(), cells.next())
        else {
            continue;
        };
        match first {
            COMPETITION => {
                (record.competitions).insert(third.to_owned(), second.to_owned());
            }
            MEMBER => {
                if let Ok(id) = third.parse() {
                    record.members.insert(id, second.to_owned());
                }
            }
            digest => {
                let Ok(size) = second.parse() else { continue };
                let (page, history) = match third.split_once('\t') {
                    Some((page, history)) => (page, Some(history)),
                    None => (third, None),
                };
                let recorded = Recorded {
                    digest: digest.to_owned(),
                    size,
                    history: history.map(Arc::from),
                };
                record.pages.insert(page.to_owned(), recorded);
            }
        }
    }
    Ok(record)
}

/// Writes the record of `pages` (by path) and of `shared` (its competitions and
/// members) to `path`, a line at a time (a line per page: not held whole).
pub fn write(path: &Path, pages: &BTreeMap<String, Recorded>, shared: &Record) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
    write_lines(&mut out, pages, shared)
        .and_then(|()| out.flush())
        .map_err(|e| Error::io(path, e))
}

fn write_lines(
    out: &mut impl std::io::Write,
    pages: &BTreeMap<String, Recorded>,
    shared: &Record,
) -> std::io::Result<()> {
    out.write_all(header().as_bytes())?;
    for (page, r) in pages {
        write!(out, "{}\t{}\t{page}", r.digest, r.size)?;
        if let Some(h) = &r.history {
            write!(out, "\t{h}")?;
        }
        out.write_all(b"\n")?;
    }
    let competitions: BTreeMap<&String, &String> = shared.competitions.iter().collect();
    for (id, key) in competitions {
        writeln!(out, "{COMPETITION}\t{key}\t{id}")?;
    }
    for (id, key) in &shared.members {
        writeln!(out, "{MEMBER}\t{key}\t{id}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framed_values_never_run_together() {
        let mut a = Feed::default();
        a.str("ab").str("c");
        let mut b = Feed::default();
        b.str("a").str("bc");
        assert_ne!(a.finish(), b.finish());
        let mut c = Feed::default();
        c.opt_num(None).num(0.0);
        let mut d = Feed::default();
        d.num(0.0).opt_num(None);
        assert_ne!(c.finish(), d.finish());
        // SHA-256 of nothing, its first 128 bits.
        assert_eq!(Feed::default().finish(), "e3b0c44298fc1c149afbf4c8996fb924");
    }

    #[test]
    fn the_record_reads_back_and_another_programs_is_ignored() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let recorded = |digest: &str, size| Recorded {
            digest: digest.to_owned(),
            size,
            history: None,
        };
        let mut member = recorded("00ff", 12);
        member.history = Some(Arc::from("2026;2025:ab12;7,3,72,Bo Lund"));
        let digests: BTreeMap<String, Recorded> = [
            ("members/1.html".to_owned(), member),
            ("competitions/c 1.html".to_owned(), recorded("abcd", 0)),
        ]
        .into();
        let record = Record {
            pages: digests,
            competitions: [("K07 1".to_owned(), "77aa".to_owned())].into(),
            members: [(100083, "0b0b".to_owned())].into(),
        };
        let path = dir.path().join(MANIFEST);
        write(&path, &record.pages, &record)?;
        assert_eq!(read(dir.path())?, record);
        std::fs::write(
            &path,
            "# bridgehcp 0.0.0 site 0: …\n00ff\t12\tmembers/1.html\n",
        )
        .map_err(|e| Error::io(&path, e))?;
        assert_eq!(read(dir.path())?, Record::default());
        Ok(())
    }
}
