//! The dataset's index of its competitions (`competition_index.parquet`).
//!
//! A monthly run continues the previous month's state, and to know that it may, it has
//! to know that no earlier competition changed: without an index that means reading
//! and hashing the whole history, ten years of board rows for one month's news. The
//! writers of the importer's layout (`import`, `sample --by-month`) therefore keep, in
//! the same atomic commit as the data, every competition's content hash (the ledger's,
//! taken by the same reader a run uses) and its month, so that a continued run can
//! compare the index with the state's ledger and read only the months with something
//! new ([`crate::pipeline::ledger::plan_reading`]).
//!
//! A dataset of one file per table (`sample` without `--by-month`, or another tool's)
//! is always read whole, but a run still hashes every competition's rows for the
//! ledger, seconds of a ten-year history. Its index (the same file, listing
//! `boards.parquet` and the others, each competition with its month) gives a run those
//! hashes; it cannot let a continued run read only some months, since one file holds
//! them all. An index is of one layout: a dataset with some tables in month partitions
//! and others in one file has none.
//!
//! The index only speaks for the files it was built from: it records the size and the
//! SHA-256 of every data file's bytes (`competitions`, `entrants`, `results`,
//! `boards`), and a run trusts it only when every file is still there, with those
//! bytes, and no other file has come. Size and modification time would be cheaper, but
//! a copy keeps the time and an edit within the clock's resolution keeps both; hashing
//! the bytes costs a fraction of a second on ten years of a federation (the files are
//! compressed: 55 MB for 17 million board rows) and cannot be fooled by accident. The
//! members table is left out: no competition's hash depends on it, and a run reads it
//! whole anyway.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::pipeline::ledger::{self, Indexed};
use crate::quarantine::OnError;
use crate::store::frame::FrameBuilder;
use crate::store::table::{data_files, open_partitions, DataFile, Partitions};

/// The index's file name, in the dataset folder.
pub const FILE: &str = "competition_index.parquet";

/// A data file as the index recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedFile {
    /// Relative to the dataset folder, with `/` between folders.
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

/// The index: the data files it was built from and the competitions in them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DatasetIndex {
    pub files: Vec<IndexedFile>,
    pub competitions: Vec<Indexed>,
}

impl DatasetIndex {
    /// Whether the index is of a dataset of one file per table, which a run reads
    /// whole whatever the index says (no month can be read alone).
    pub fn single_files(&self) -> bool {
        self.files.iter().any(|f| !f.path.contains('/'))
    }
}

/// The tables whose files the index covers.
fn covered(file: &DataFile) -> bool {
    file.table != "members"
}

fn relative(dir: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(dir).unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// Size and SHA-256 of a file's bytes.
fn file_digest(dir: &Path, path: &Path) -> Result<IndexedFile> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(IndexedFile {
        path: relative(dir, path),
        bytes: bytes.len() as u64,
        sha256: ledger::hex(&Sha256::digest(&bytes)),
    })
}

/// Digests a writer may take over without hashing the file again: those of the files
/// of the dataset version before (`folder`, its index `index`) that are the same file
/// (hard-linked into the next version) and were not modified after that index was
/// written (see [`refresh`]).
struct Linked<'a> {
    folder: &'a Path,
    index: &'a DatasetIndex,
    /// When the previous index was last modified.
    written: std::time::SystemTime,
}

impl Linked<'_> {
    /// The digest of `path` (below `dir`) from the previous index, when it is the very
    /// file the index was built from.
    fn digest(&self, dir: &Path, path: &Path) -> Option<IndexedFile> {
        let relative = relative(dir, path);
        let recorded = self.index.files.iter().find(|f| f.path == relative)?;
        let here = std::fs::metadata(path).ok()?;
        let before = std::fs::metadata(self.folder.join(&relative)).ok()?;
        let same_file = same_file(&here, &before);
        let untouched = here.modified().ok()? <= self.written;
        (same_file && untouched && here.len() == recorded.bytes).then(|| recorded.clone())
    }
}

/// Whether two metadata are of one file (hard links to it).
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Elsewhere a kept file is always hashed again.
#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// How the covered tables of an indexable dataset are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Every table in month partitions (`month=YYYY-MM`), as `import` writes them.
    Months,
    /// Every table in one file beside the index (`boards.parquet`).
    Single,
}

/// The layout of `files` (the covered data files of `dir`), or why no index can be
/// built for it.
fn layout(dir: &Path, files: &[DataFile]) -> std::result::Result<Layout, String> {
    let single = |f: &&DataFile| f.month.is_none() && !relative(dir, &f.path).contains('/');
    if let Some(file) = files.iter().find(|f| f.month.is_none() && !single(f)) {
        return Err(format!(
            "{} is neither in a month partition (month=YYYY-MM) nor its table's one file",
            relative(dir, &file.path)
        ));
    }
    let monthly = files.iter().find(|f| f.month.is_some());
    match (monthly, files.iter().find(single)) {
        (Some(monthly), Some(single)) => Err(format!(
            "{} is in month partitions but {} is one file: an index needs every table in month partitions, or every table in one file",
            relative(dir, &monthly.path),
            relative(dir, &single.path)
        )),
        (None, Some(_)) => Ok(Layout::Single),
        _ => Ok(Layout::Months),
    }
}

/// The data files of an indexable dataset, with their digests, and their layout.
type Digests = (Layout, Vec<(DataFile, IndexedFile)>);

/// The covered data files of `dir` with their digests, or why the layout has no index
/// (some tables in month partitions and others in one file).
fn digests(dir: &Path) -> Result<std::result::Result<Digests, String>> {
    digests_reusing(dir, None)
}

/// [`digests`], taking over `linked`'s digests of the files it vouches for.
fn digests_reusing(
    dir: &Path,
    linked: Option<&Linked<'_>>,
) -> Result<std::result::Result<Digests, String>> {
    let files: Vec<DataFile> = data_files(dir)?.into_iter().filter(covered).collect();
    let layout = match layout(dir, &files) {
        Ok(layout) => layout,
        Err(why) => return Ok(Err(why)),
    };
    let digests: Vec<Result<IndexedFile>> = files
        .par_iter()
        .map(
            |file| match linked.and_then(|l| l.digest(dir, &file.path)) {
                Some(digest) => Ok(digest),
                None => file_digest(dir, &file.path),
            },
        )
        .collect();
    let digests = digests.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(Ok((layout, files.into_iter().zip(digests).collect())))
}

/// The layout of the covered tables of `dir`, when an index can be built for it.
fn disk_layout(dir: &Path) -> Result<Option<Layout>> {
    let files: Vec<DataFile> = data_files(dir)?.into_iter().filter(covered).collect();
    Ok(layout(dir, &files).ok())
}

/// Why the index of `dir` cannot be used, or the index, checked against the files.
pub fn load_checked(dir: &Path) -> Result<std::result::Result<DatasetIndex, String>> {
    let path = dir.join(FILE);
    if !path.exists() {
        return Ok(Err(format!("the dataset has no {FILE}")));
    }
    let index = match read(&path) {
        Ok(index) => index,
        Err(error) => return Ok(Err(format!("{FILE} cannot be read ({error})"))),
    };
    let on_disk = match digests(dir)? {
        Ok((_, on_disk)) => on_disk,
        Err(why) => return Ok(Err(why)),
    };
    let recorded: HashMap<&str, &IndexedFile> =
        index.files.iter().map(|f| (f.path.as_str(), f)).collect();
    if recorded.len() != on_disk.len() {
        return Ok(Err(format!(
            "{FILE} lists {} data files, the dataset holds {}",
            recorded.len(),
            on_disk.len()
        )));
    }
    for (_, digest) in &on_disk {
        if recorded.get(digest.path.as_str()) != Some(&digest) {
            return Ok(Err(format!(
                "{} is not the file {FILE} was built from",
                digest.path
            )));
        }
    }
    Ok(Ok(index))
}

/// Builds the index of `dir`, taking each month's competitions from `previous` when
/// that month's files are the ones it was built from, and hashing the month's rows
/// (read and checked as a run reads them) otherwise.
///
/// A dataset of one file per table is read whole, as a run reads it, and every
/// competition hashed (unless `previous` was built from the very same files).
pub fn build(dir: &Path, previous: Option<&DatasetIndex>) -> Result<DatasetIndex> {
    build_reusing(dir, previous, None)?
        .map_err(|why| Error::Config(format!("no index can be built: {why}")))
}

/// [`build`], taking the digests of the files `linked` vouches for from it; why the
/// layout has no index, when it has none.
fn build_reusing(
    dir: &Path,
    previous: Option<&DatasetIndex>,
    linked: Option<&Linked<'_>>,
) -> Result<std::result::Result<DatasetIndex, String>> {
    let (layout, on_disk) = match digests_reusing(dir, linked)? {
        Ok(digests) => digests,
        Err(why) => return Ok(Err(why)),
    };
    if layout == Layout::Single {
        let files: Vec<IndexedFile> = on_disk.into_iter().map(|(_, digest)| digest).collect();
        let unchanged = previous.filter(|p| same_files(&p.files, &files));
        let competitions = match unchanged {
            Some(previous) => previous.competitions.clone(),
            None => whole_competitions(dir)?,
        };
        return Ok(Ok(DatasetIndex {
            files,
            competitions,
        }));
    }
    let mut months: BTreeMap<String, Vec<&IndexedFile>> = BTreeMap::new();
    for (file, digest) in &on_disk {
        months
            .entry(file.month.clone().unwrap_or_default())
            .or_default()
            .push(digest);
    }
    let previous_files: HashMap<&str, &IndexedFile> = previous
        .iter()
        .flat_map(|p| &p.files)
        .map(|f| (f.path.as_str(), f))
        .collect();
    let month_prefix =
        |month: &str, path: &str| path.split('/').nth(1) == Some(&*format!("month={month}"));
    let mut previous_months: HashMap<&str, Vec<&Indexed>> = HashMap::new();
    for c in previous.iter().flat_map(|p| &p.competitions) {
        previous_months.entry(c.month.as_str()).or_default().push(c);
    }
    let mut competitions = Vec::new();
    for (month, files) in &months {
        let same_files = files
            .iter()
            .all(|f| previous_files.get(f.path.as_str()) == Some(f))
            && previous_files
                .keys()
                .filter(|path| month_prefix(month, path))
                .count()
                == files.len();
        if same_files && previous.is_some() {
            let kept = previous_months.get(month.as_str()).into_iter().flatten();
            competitions.extend(kept.map(|c| (*c).clone()));
        } else {
            competitions.extend(month_competitions(dir, month)?);
        }
    }
    Ok(Ok(DatasetIndex {
        files: on_disk.into_iter().map(|(_, digest)| digest).collect(),
        competitions,
    }))
}

/// Whether two lists hold the same files (in any order).
fn same_files(a: &[IndexedFile], b: &[IndexedFile]) -> bool {
    fn sorted(files: &[IndexedFile]) -> Vec<(&str, u64, &str)> {
        let mut listed: Vec<(&str, u64, &str)> = files
            .iter()
            .map(|f| (f.path.as_str(), f.bytes, f.sha256.as_str()))
            .collect();
        listed.sort_unstable();
        listed
    }
    sorted(a) == sorted(b)
}

/// Every competition of a dataset of one file per table, read and hashed as a run
/// reads and hashes them (the board rows a batch at a time, never all at once), each
/// listed in the month of its date, by month and id.
fn whole_competitions(dir: &Path) -> Result<Vec<Indexed>> {
    let progress = crate::scoring::progress::NoProgress;
    let (opened, entrants, results) = crate::store::table::open_partitions_compact(
        dir,
        OnError::Quarantine,
        &Partitions::All,
        &progress,
    )?;
    let (head, mut reader) = (opened.head, opened.boards);
    let rows = crate::pipeline::EntrantRows::compact(entrants, results);
    let hashed = crate::pipeline::passes::content_hashes(&head, rows, &mut reader)?;
    let mut competitions: Vec<Indexed> = hashed
        .into_iter()
        .map(|(c, hashed)| Indexed {
            competition_id: c.competition_id.clone(),
            // The month partition the importer would write its rows to.
            month: c.date.format("%Y-%m").to_string(),
            date: c.date,
            session: c.session,
            sha256: hashed.sha256,
            entrants: hashed.entrants,
            results: hashed.results,
            boards: hashed.boards,
        })
        .collect();
    competitions.sort_by(|a, b| (&a.month, &a.competition_id).cmp(&(&b.month, &b.competition_id)));
    Ok(competitions)
}

/// The competitions of one month partition, read and checked as a run reads them.
fn month_competitions(dir: &Path, month: &str) -> Result<Vec<Indexed>> {
    let only = Partitions::Months(BTreeSet::from([month.to_owned()]));
    let progress = crate::scoring::progress::NoProgress;
    let opened = open_partitions(dir, OnError::Quarantine, &only, &progress)?;
    let (mut dataset, mut reader) = (opened.head, opened.boards);
    reader.read_boards(&|_| true, &mut |rows| {
        dataset.boards.append(rows);
        Ok(())
    })?;
    let quarantine = reader.finish(&dataset)?;
    let counts = row_counts(&dataset);
    let kept = |id: &str| !quarantine.contains(id);
    dataset.competitions.retain(|c| kept(&c.competition_id));
    dataset.entrants.retain(|e| kept(&e.competition_id));
    dataset.results.retain(|r| kept(&r.competition_id));
    dataset.boards.retain(|b| kept(&b.competition_id));
    let hashes = ledger::competition_hashes(&dataset);
    let listed: BTreeSet<&str> = dataset
        .competitions
        .iter()
        .map(|c| c.competition_id.as_str())
        .collect();
    let first_day = chrono::NaiveDate::parse_from_str(&format!("{month}-01"), "%Y-%m-%d")
        .map_err(|_| Error::Config(format!("month partition `{month}` is not YYYY-MM")))?;
    let count = |id: &str| counts.get(id).copied().unwrap_or_default();
    let mut rows: Vec<Indexed> = dataset
        .competitions
        .iter()
        .map(|c| {
            let (entrants, results, boards) = count(&c.competition_id);
            Indexed {
                competition_id: c.competition_id.clone(),
                month: month.to_owned(),
                date: c.date,
                session: c.session,
                sha256: hashes.get(&c.competition_id).cloned(),
                entrants,
                results,
                boards,
            }
        })
        .collect();
    // What the reader left out, and rows whose competition is not listed in this month
    // (listed in another, or nowhere): no hash, so that a run reads the month.
    let mut stray: BTreeSet<String> = quarantine
        .iter()
        .map(|q| q.competition_id.clone())
        .collect();
    stray.extend(
        counts
            .keys()
            .filter(|id| !listed.contains(id.as_str()))
            .cloned(),
    );
    for id in stray {
        if listed.contains(id.as_str()) {
            continue;
        }
        let (entrants, results, boards) = count(&id);
        let date = quarantine
            .iter()
            .find(|q| q.competition_id == id)
            .and_then(|q| q.date)
            .unwrap_or(first_day);
        rows.push(Indexed {
            competition_id: id,
            month: month.to_owned(),
            date,
            session: 0,
            sha256: None,
            entrants,
            results,
            boards,
        });
    }
    rows.sort_by(|a, b| a.competition_id.cmp(&b.competition_id));
    Ok(rows)
}

/// Rows per competition id in each table (entrants, results, boards).
fn row_counts(dataset: &Dataset) -> HashMap<String, (u64, u64, u64)> {
    let mut counts: HashMap<String, (u64, u64, u64)> = HashMap::new();
    for c in &dataset.competitions {
        counts.entry(c.competition_id.clone()).or_default();
    }
    for e in &dataset.entrants {
        counts.entry(e.competition_id.clone()).or_default().0 += 1;
    }
    for r in &dataset.results {
        counts.entry(r.competition_id.clone()).or_default().1 += 1;
    }
    for b in &dataset.boards {
        counts.entry(b.competition_id.to_string()).or_default().2 += 1;
    }
    counts
}

/// Writes `index` to `dir/competition_index.parquet` (atomically): a row per data
/// file (`kind` = `file`: `path`, `bytes`, `sha256` of its bytes), then a row per
/// competition (`kind` = `competition`: `competition_id`, `month`, `date`, `session`,
/// `sha256` its content hash, `entrants`, `results`, `boards` its rows), each with the
/// `ledger_scheme` of the hashes.
pub fn write(dir: &Path, index: &DatasetIndex) -> Result<()> {
    let path = dir.join(FILE);
    let (files, comps) = (&index.files, &index.competitions);
    let height = files.len() + comps.len();
    let kind: Vec<&str> = files
        .iter()
        .map(|_| "file")
        .chain(comps.iter().map(|_| "competition"))
        .collect();
    let text = |file: &dyn Fn(&IndexedFile) -> Option<String>,
                comp: &dyn Fn(&Indexed) -> Option<String>| {
        files
            .iter()
            .map(file)
            .chain(comps.iter().map(comp))
            .collect::<Vec<Option<String>>>()
    };
    let int = |file: &dyn Fn(&IndexedFile) -> Option<i64>,
               comp: &dyn Fn(&Indexed) -> Option<i64>| {
        files
            .iter()
            .map(file)
            .chain(comps.iter().map(comp))
            .collect::<Vec<Option<i64>>>()
    };
    let frame = FrameBuilder::new(height)
        .column("kind", kind)
        .column("path", text(&|f| Some(f.path.clone()), &|_| None))
        .column("bytes", int(&|f| Some(f.bytes as i64), &|_| None))
        .column(
            "sha256",
            text(&|f| Some(f.sha256.clone()), &|c| c.sha256.clone()),
        )
        .column(
            "competition_id",
            text(&|_| None, &|c| Some(c.competition_id.clone())),
        )
        .column("month", text(&|_| None, &|c| Some(c.month.clone())))
        .date(
            "date",
            files
                .iter()
                .map(|_| None)
                .chain(comps.iter().map(|c| Some(c.date)))
                .collect(),
        )
        .map_err(|e| Error::polars(&path, e))?
        .column("session", int(&|_| None, &|c| Some(i64::from(c.session))))
        .column("entrants", int(&|_| None, &|c| Some(c.entrants as i64)))
        .column("results", int(&|_| None, &|c| Some(c.results as i64)))
        .column("boards", int(&|_| None, &|c| Some(c.boards as i64)))
        .column("ledger_scheme", vec![i64::from(ledger::SCHEME); height])
        .build()
        .map_err(|e| Error::polars(&path, e))?;
    crate::store::files::write_parquet(&frame, &path)
}

/// Reads an index file; an error says what is wrong with it.
fn read(path: &Path) -> std::result::Result<DatasetIndex, String> {
    use crate::store::columns::{dates, i64s, read_parquet, strs};
    // A damaged file must not stop the run: the index is then not used.
    let df = crate::store::table::guarded(path, || read_parquet(path))
        .and_then(|read| read)
        .map_err(|e| e.to_string())?;
    let text = |name: &str| strs(&df, path, name).map_err(|e| e.to_string());
    let int = |name: &str| i64s(&df, path, name).map_err(|e| e.to_string());
    let kind = text("kind")?;
    // Each cell is taken out of its column once: no copy of a quarter of a million ids.
    let (mut path_col, mut sha, mut id, mut month) = (
        text("path")?,
        text("sha256")?,
        text("competition_id")?,
        text("month")?,
    );
    let (bytes_col, session, entrants, results, boards, scheme) = (
        int("bytes")?,
        int("session")?,
        int("entrants")?,
        int("results")?,
        int("boards")?,
        int("ledger_scheme")?,
    );
    let days = dates(&df, path, "date").map_err(|e| e.to_string())?;
    let mut index = DatasetIndex::default();
    let missing = |row: usize, what: &str| format!("row {} has no {what}", row + 1);
    for row in 0..df.height() {
        if scheme[row] != Some(i64::from(ledger::SCHEME)) {
            return Err(format!("row {} has another ledger_scheme", row + 1));
        }
        let count = |values: &[Option<i64>], what: &str| {
            values[row]
                .and_then(|v| u64::try_from(v).ok())
                .ok_or_else(|| missing(row, what))
        };
        match kind[row].as_deref() {
            Some("file") => index.files.push(IndexedFile {
                path: path_col[row].take().ok_or_else(|| missing(row, "path"))?,
                bytes: count(&bytes_col, "bytes")?,
                sha256: sha[row].take().ok_or_else(|| missing(row, "sha256"))?,
            }),
            Some("competition") => index.competitions.push(Indexed {
                competition_id: id[row]
                    .take()
                    .ok_or_else(|| missing(row, "competition_id"))?,
                month: month[row].take().ok_or_else(|| missing(row, "month"))?,
                date: days[row].ok_or_else(|| missing(row, "date"))?,
                session: session[row]
                    .and_then(|s| i32::try_from(s).ok())
                    .ok_or_else(|| missing(row, "session"))?,
                sha256: sha[row].take(),
                entrants: count(&entrants, "entrants")?,
                results: count(&results, "results")?,
                boards: count(&boards, "boards")?,
            }),
            _ => return Err(format!("row {} has an unknown kind", row + 1)),
        }
    }
    Ok(index)
}

/// The index of `dir` rebuilt, reusing the months of its current index whose files
/// have not changed, and written beside the data; the number of competitions indexed.
pub fn reindex(dir: &Path) -> Result<usize> {
    let path = dir.join(FILE);
    let previous = if path.exists() {
        read(&path).ok()
    } else {
        None
    };
    let index = build(dir, previous.as_ref())?;
    write(dir, &index)?;
    Ok(index.competitions.len())
}

/// Brings the index of `staging` (the next version of a dataset, being written) up to
/// date with its files, reusing the months of `previous`'s index (the version before)
/// whose files it still has; a layout that cannot be indexed gets no index.
///
/// The files the next version keeps are hard links to the version before's. Hashing
/// them again would make a writer that adds a month at a time (`sample --by-month`)
/// hash the whole history every month; so a kept file's digest is taken from the
/// previous index when it is the same file (device and inode) and was not modified
/// after that index was written (the writer writes the index after the data, in the
/// same commit). A file edited in place since, or copied over, is hashed again.
pub fn refresh(staging: &Path, previous: &Path) -> Result<()> {
    let path = previous.join(FILE);
    let before = if path.exists() {
        read(&path).ok()
    } else {
        None
    };
    let written = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    let linked = before.as_ref().zip(written).map(|(index, written)| Linked {
        folder: previous,
        index,
        written,
    });
    match build_reusing(staging, before.as_ref(), linked.as_ref())? {
        Ok(index) => write(staging, &index),
        Err(_) => {
            let stale = staging.join(FILE);
            if stale.exists() {
                std::fs::remove_file(&stale).map_err(|e| Error::io(&stale, e))?;
            }
            Ok(())
        }
    }
}

/// The dataset's index as a run finds it: checked against the data files once, and
/// used twice: by a continued run to choose the months it reads ([`reading_plan`]),
/// and by every run for the hashes of the competitions whose rows it reads
/// ([`Checked::vouched`]).
#[derive(Debug, Clone)]
pub struct Checked {
    /// The index, or why it cannot be used.
    pub index: std::result::Result<DatasetIndex, String>,
    /// How the covered tables are stored, when an index can be built for them (else
    /// there is nothing to tell the user).
    layout: Option<Layout>,
    /// Whether the index file exists (to tell a stale index from none).
    present: bool,
    /// Time spent checking it (hashing the data files' bytes).
    pub took: std::time::Duration,
}

/// Loads the index of `dir` and checks it against the data files ([`load_checked`]).
pub fn check(dir: &Path) -> Result<Checked> {
    let started = std::time::Instant::now();
    let index = load_checked(dir)?;
    let layout = match &index {
        Ok(index) if index.single_files() => Some(Layout::Single),
        Ok(_) => Some(Layout::Months),
        Err(_) => disk_layout(dir)?,
    };
    Ok(Checked {
        index,
        layout,
        present: dir.join(FILE).exists(),
        took: started.elapsed(),
    })
}

impl Checked {
    /// The content hashes the index vouches for, by id: those of the competitions it
    /// lists once, with a hash. A competition listed in two months (its rows spread
    /// over both) or without a hash (the reader left it out) is hashed by the run.
    pub fn vouched(&self) -> ledger::Known {
        self.vouched_in(None)
    }

    /// [`Checked::vouched`] for the competitions of `months` only (all when `None`):
    /// a run that reads some months needs no more.
    pub fn vouched_in(&self, months: Option<&BTreeSet<String>>) -> ledger::Known {
        let Ok(index) = &self.index else {
            return ledger::Known::default();
        };
        let mut listed: rustc_hash::FxHashMap<&str, Option<&String>> =
            rustc_hash::FxHashMap::default();
        // A competition listed in a month read and in one not read is listed twice:
        // every listing counts, so that it is not vouched for.
        let in_months: Option<rustc_hash::FxHashSet<&str>> = months.map(|months| {
            index
                .competitions
                .iter()
                .filter(|c| months.contains(&c.month))
                .map(|c| c.competition_id.as_str())
                .collect()
        });
        let counted = |c: &&Indexed| {
            in_months
                .as_ref()
                .is_none_or(|ids| ids.contains(c.competition_id.as_str()))
        };
        for c in index.competitions.iter().filter(counted) {
            listed
                .entry(c.competition_id.as_str())
                .and_modify(|hash| *hash = None)
                .or_insert(c.sha256.as_ref());
        }
        listed
            .into_iter()
            .filter_map(|(id, hash)| Some((id.to_owned(), hash?.clone())))
            .collect()
    }

    /// The competitions of the months a continued run leaves unread, as the index lists
    /// them. A run reads the `competitions` rows of the months it reads only: of the
    /// others it needs no more than the index holds, the id, date and session that
    /// place a competition in replay order and in the ledger, since it neither scores
    /// nor replays them (their rows were checked by the reader that built the index,
    /// and the index by the files' digests). Their format and scoring, which only
    /// scoring reads, are left at [`Competition::new`]'s.
    pub fn unread(&self, months: &BTreeSet<String>) -> Vec<crate::dataset::Competition> {
        use crate::dataset::{Competition, Format, ScoringMethod};
        let Ok(index) = &self.index else {
            return Vec::new();
        };
        index
            .competitions
            .iter()
            .filter(|c| !months.contains(&c.month))
            .map(|c| {
                let mut competition = Competition::new(
                    c.competition_id.clone(),
                    c.date,
                    Format::Pairs,
                    ScoringMethod::Matchpoints,
                );
                competition.session = c.session;
                competition
            })
            .collect()
    }

    /// The note for a user whose index exists but cannot be used (a stale or damaged
    /// file), saying what the run does instead; `None` when it is used or absent.
    pub fn stale_note(&self, dir: &Path) -> Option<String> {
        let why = self.index.as_ref().err()?;
        (self.present && self.layout.is_some()).then(|| {
            format!(
                "note: {why}, so every competition's rows are hashed for the ledger; `bridgehcp index {}` writes the index again",
                dir.display()
            )
        })
    }
}

/// What a continued run reads ([`reading_plan`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// The rows of these months, with the hashes of the competitions of the others.
    Months {
        months: BTreeSet<String>,
        known: ledger::Known,
        /// The months the index lists.
        all_months: usize,
    },
    /// Everything; with a note for the user when the index is missing or stale (not
    /// when the dataset changed: the run says what changed).
    Whole(Option<String>),
}

/// What a run continuing `previous` on the dataset in `dir` reads, with its index
/// `checked`: only the months the index shows something new in, when the index matches
/// the data files and the previous run's ledger; everything otherwise.
pub fn reading_plan(
    dir: &Path,
    checked: &Checked,
    previous: &crate::pipeline::PreviousRun,
    until: Option<chrono::NaiveDate>,
) -> Reading {
    let index = match &checked.index {
        Ok(index) => index,
        // Tables in a mix of layouts cannot have an index, and one file per table
        // is read whole with an index or without: nothing to say, unless an index
        // is there and stale.
        Err(_) if checked.layout.is_none() => return Reading::Whole(None),
        Err(_) if checked.layout == Some(Layout::Single) && !checked.present => {
            return Reading::Whole(None)
        }
        Err(why) => {
            return Reading::Whole(Some(format!(
                "note: {why}, so every competition is read and hashed to compare with the state; `bridgehcp index {}` writes the index",
                dir.display()
            )))
        }
    };
    if index.single_files() {
        // One file holds every month: the run reads it whole, and takes the hashes
        // the index vouches for ([`Checked::vouched`]).
        return Reading::Whole(None);
    }
    let through = previous
        .applied_through
        .as_ref()
        .map(|t| (t.date, t.session, t.competition_id.as_str()));
    let plan = ledger::plan_reading(
        &index.competitions,
        &previous.ledger,
        previous.record.ledger_scheme,
        through,
        until,
    );
    match plan {
        ledger::ReadPlan::Months { months, known } => Reading::Months {
            months,
            known,
            all_months: index
                .competitions
                .iter()
                .map(|c| c.month.as_str())
                .collect::<BTreeSet<_>>()
                .len(),
        },
        ledger::ReadPlan::Whole(_) => Reading::Whole(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(id: &str, month: &str, hash: Option<&str>) -> Indexed {
        Indexed {
            competition_id: id.into(),
            month: month.into(),
            date: chrono::NaiveDate::from_ymd_opt(2026, 1, 5).unwrap_or_default(),
            session: 1,
            sha256: hash.map(str::to_owned),
            entrants: 4,
            results: 4,
            boards: 0,
        }
    }

    fn data_file(table: &'static str, path: &str, month: Option<&str>) -> DataFile {
        DataFile {
            table,
            path: Path::new("/fed").join(path),
            month: month.map(str::to_owned),
        }
    }

    /// An index is of one layout: every table in month partitions, or every table in
    /// one file beside the index; anything else has none, and says why.
    #[test]
    fn an_index_needs_one_layout() {
        let dir = Path::new("/fed");
        let months = [
            data_file(
                "competitions",
                "competitions/month=2026-01/part-0.parquet",
                Some("2026-01"),
            ),
            data_file(
                "boards",
                "boards/month=2026-01/part-0.parquet",
                Some("2026-01"),
            ),
        ];
        assert_eq!(layout(dir, &months), Ok(Layout::Months));
        let single = [
            data_file("competitions", "competitions.parquet", None),
            data_file("boards", "boards.parquet", None),
        ];
        assert_eq!(layout(dir, &single), Ok(Layout::Single));
        assert_eq!(layout(dir, &[]), Ok(Layout::Months));
        let mixed = [months[0].clone(), single[1].clone()];
        assert_eq!(
            layout(dir, &mixed),
            Err("competitions/month=2026-01/part-0.parquet is in month partitions but boards.parquet is one file: an index needs every table in month partitions, or every table in one file".to_owned())
        );
        let unpartitioned = [data_file("boards", "boards/part-0.parquet", None)];
        assert_eq!(
            layout(dir, &unpartitioned),
            Err("boards/part-0.parquet is neither in a month partition (month=YYYY-MM) nor its table's one file".to_owned())
        );
        let file = |path: &str| IndexedFile {
            path: path.into(),
            bytes: 1,
            sha256: "00".into(),
        };
        let index = |paths: &[&str]| DatasetIndex {
            files: paths.iter().map(|p| file(p)).collect(),
            competitions: Vec::new(),
        };
        assert!(index(&["boards.parquet"]).single_files());
        assert!(!index(&["boards/month=2026-01/part-0.parquet"]).single_files());
    }

    /// Only a competition listed once, with a hash, is vouched for: one whose rows lie
    /// in two months (listed in both) or that the reader left out is hashed by the run.
    #[test]
    fn the_index_vouches_for_competitions_listed_once_with_a_hash() {
        let checked = Checked {
            index: Ok(DatasetIndex {
                files: Vec::new(),
                competitions: vec![
                    listed("a", "2026-01", Some("ha")),
                    listed("b", "2026-01", Some("hb")),
                    listed("b", "2026-02", None),
                    listed("c", "2026-01", None),
                    listed("d", "2026-02", Some("hd")),
                    listed("d", "2026-03", Some("hd")),
                ],
            }),
            layout: Some(Layout::Months),
            present: true,
            took: std::time::Duration::ZERO,
        };
        let vouched = checked.vouched();
        assert_eq!(vouched.len(), 1);
        assert_eq!(vouched.get("a").map(String::as_str), Some("ha"));
        assert_eq!(checked.stale_note(Path::new("fed")), None);
        // The months a run reads: their competitions, listed once in the whole index.
        let march = BTreeSet::from(["2026-03".to_owned()]);
        assert!(checked.vouched_in(Some(&march)).is_empty());
        let january = BTreeSet::from(["2026-01".to_owned()]);
        let vouched = checked.vouched_in(Some(&january));
        assert_eq!(vouched.keys().collect::<Vec<_>>(), ["a"]);

        let stale = Checked {
            index: Err("boards/month=2026-01/part-0.parquet is not the file".into()),
            ..checked.clone()
        };
        assert!(stale.vouched().is_empty());
        assert_eq!(
            stale.stale_note(Path::new("fed")).as_deref(),
            Some("note: boards/month=2026-01/part-0.parquet is not the file, so every competition's rows are hashed for the ledger; `bridgehcp index fed` writes the index again")
        );
        // No index file, or a layout that cannot have one: nothing to say.
        let absent = Checked {
            present: false,
            ..stale.clone()
        };
        assert_eq!(absent.stale_note(Path::new("fed")), None);
        let mixed = Checked {
            layout: None,
            ..stale
        };
        assert_eq!(mixed.stale_note(Path::new("fed")), None);
    }
}
