//! Carrying the history of a continued run into its own folder.
//!
//! An officer keeps one folder per month and publishes the last one; the analysts, the
//! player statement and the report read whichever folder they are given. So a continued
//! run's `changes.parquet` and `standings.parquet` hold every competition since the
//! start, as one run over the same data would: the previous folder's rows first, then
//! the month's. The replay still touches only the month; the previous rows are copied,
//! not recomputed, and their full row groups are copied as they are, page by page
//! (only the last, partial one is decoded and written again with the month's rows), so
//! the file has the bytes of one run's and writing it costs a month, not the history.
//! The lists of non-members and of unrated competitions (`non_members.csv`,
//! `unrated.csv`) are carried the same way: the previous file's lines, then the
//! month's. Each folder is whole on its own, so deleting an earlier month's
//! folder loses nothing. The previous rows are taken only from files whose SHA-256 is
//! the one the previous run's `run.json` recorded, so a folder changed by hand cannot
//! slip rows into the history.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::JoinHandle;

use polars::prelude::*;

use super::run_folder::{CheckedFile, RunFolder};
use crate::error::{Error, Result};

/// How to start afresh, the end of every refusal.
const AFRESH: &str = "run without --state to write the whole history afresh";

/// The rows of the carried file `bytes` from `from` on, decoded (the rows its copied
/// row groups leave), without those of a competition `new` scores again.
pub fn tail(path: &Path, bytes: &[u8], from: usize, new: &DataFrame) -> Result<DataFrame> {
    let total = polars_rows(path, bytes)?;
    let rows = crate::store::table::read_slice_checked(path, bytes, from..total.max(from))?;
    without_rescored(rows, new).map_err(|e| Error::polars(path, e))
}

fn polars_rows(path: &Path, bytes: &[u8]) -> Result<usize> {
    ParquetReader::new(std::io::Cursor::new(bytes))
        .num_rows()
        .map_err(|e| Error::polars(path, e))
}

/// How many leading rows of the carried file `bytes` come before the first row of a
/// competition `new` scores again (all of them when there is none): the rows that may
/// be copied as they are. Reads the `competition_id` column only.
pub fn leading_rows(path: &Path, bytes: &[u8], new: &DataFrame) -> Result<usize> {
    let ids = ids(new).map_err(|e| Error::polars(path, e))?;
    if ids.is_empty() {
        return polars_rows(path, bytes);
    }
    let carried = ParquetReader::new(std::io::Cursor::new(bytes))
        .with_columns(Some(vec!["competition_id".into()]))
        .finish()
        .map_err(|e| Error::polars(path, e))?;
    let column = carried
        .column("competition_id")
        .and_then(|c| c.str().cloned())
        .map_err(|e| Error::polars(path, e))?;
    let first = column
        .iter()
        .position(|id| id.is_some_and(|id| ids.contains(id)));
    Ok(first.unwrap_or(carried.height()))
}

fn ids(new: &DataFrame) -> PolarsResult<std::collections::HashSet<String>> {
    Ok(new
        .column("competition_id")?
        .str()?
        .iter()
        .flatten()
        .map(str::to_owned)
        .collect())
}

/// The lines of a carried CSV list `bytes` (its header first) without those of a
/// competition in `rescored` (which the run lists again), for the run's own rows to
/// follow. The previous file must have the header `header` this version writes:
/// another's columns are refused rather than mixed with the month's.
pub fn carried_csv(
    path: &Path,
    bytes: &[u8],
    header: &str,
    rescored: &std::collections::HashSet<&str>,
) -> Result<Vec<u8>> {
    let refuse = |why: &str| Error::Config(format!("--state {}: {why}; {AFRESH}", path.display()));
    let text = std::str::from_utf8(bytes).map_err(|_| refuse("the file is not UTF-8 text"))?;
    let mut lines = text.split_inclusive('\n');
    if lines.next() != Some(header) {
        return Err(refuse(&format!(
            "the file's columns are not the ones this version writes ({})",
            header.trim_end()
        )));
    }
    let column = header
        .trim_end()
        .split(',')
        .position(|name| name == "competition_id")
        .ok_or_else(|| refuse("the list has no competition_id column"))?;
    let mut kept = header.as_bytes().to_vec();
    for line in lines {
        let id = csv_field(line.trim_end_matches(['\n', '\r']), column);
        if !id.is_some_and(|id| rescored.contains(id.as_str())) {
            kept.extend_from_slice(line.as_bytes());
        }
    }
    Ok(kept)
}

/// Field `at` of a CSV line (quoted fields unquoted, `""` as `"`).
fn csv_field(line: &str, at: usize) -> Option<String> {
    let mut field = String::new();
    let (mut index, mut quoted, mut chars) = (0, false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => {
                if index == at {
                    return Some(field);
                }
                index += 1;
                field.clear();
            }
            c => field.push(c),
        }
    }
    (index == at).then_some(field)
}

/// The bytes of the table `name` of the previous run's folder, checked against its
/// `run.json` (see [`RunFolder::read_checked_marked`]).
pub fn carried_bytes(folder: &Path, name: &str) -> Result<CheckedFile> {
    RunFolder::read(folder, "--state")?.read_checked_marked(name)
}

/// The carried tables of a previous run's folder, read and checked against its
/// `run.json` on threads of their own from the moment a continued run knows it reads
/// only the new months.
///
/// A month's run spends most of its time before the writing on one core (planning,
/// reading the month, scoring it), while the other waits; reading the 200 MB of the
/// history and taking its SHA-256 then costs the run nothing. The check is the one
/// [`carried_bytes`] makes, on the same bytes that are then copied: a file edited since
/// the previous run is refused as before, only earlier.
pub struct Prefetch {
    folder: PathBuf,
    tables: Mutex<Vec<(String, Reading)>>,
}

/// A table being read and checked, on its own thread.
type Reading = JoinHandle<Result<CheckedFile>>;

impl std::fmt::Debug for Prefetch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prefetch")
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

impl super::run_folder::ReadAhead for Prefetch {
    fn take(&self, folder: &Path, name: &str) -> Option<Result<CheckedFile>> {
        self.take_table(folder, name)
    }
}

impl Prefetch {
    /// Starts reading the tables `names` of `folder`, each on a thread of its own.
    pub fn start(folder: &Path, names: &[&str]) -> Prefetch {
        let tables = names
            .iter()
            .map(|&name| {
                let (from, table) = (folder.to_path_buf(), name.to_owned());
                let handle = std::thread::spawn(move || carried_bytes(&from, &table));
                (name.to_owned(), handle)
            })
            .collect();
        Prefetch {
            folder: folder.to_path_buf(),
            tables: Mutex::new(tables),
        }
    }

    /// The bytes of `name` read ahead from `folder`, when they were and not yet taken.
    fn take_table(&self, folder: &Path, name: &str) -> Option<Result<CheckedFile>> {
        if self.folder != folder {
            return None;
        }
        let mut tables = self.tables.lock().ok()?;
        let at = tables.iter().position(|(table, _)| table == name)?;
        let (_, handle) = tables.swap_remove(at);
        Some(handle.join().unwrap_or_else(|_| {
            Err(Error::Config(format!(
                "--state {}: reading `{name}` stopped unexpectedly",
                folder.display()
            )))
        }))
    }
}

/// [`carried_bytes`], taken from `prefetch` when it read them ahead.
pub fn carried_bytes_from(
    prefetch: Option<&dyn super::run_folder::ReadAhead>,
    folder: &Path,
    name: &str,
) -> Result<CheckedFile> {
    match prefetch.and_then(|p| p.take(folder, name)) {
        Some(bytes) => bytes,
        None => carried_bytes(folder, name),
    }
}

/// `carried` followed by `new`: the two must have the same columns, as two runs of this
/// version write them.
pub fn append(folder: &Path, name: &str, carried: DataFrame, new: &DataFrame) -> Result<DataFrame> {
    let same = carried.schema() == new.schema();
    if !same {
        let names = |df: &DataFrame| {
            df.schema()
                .iter()
                .map(|(n, t)| format!("{n}: {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(Error::Config(format!(
            "--state {}: its `{name}` has the columns ({}), this version writes ({}); {AFRESH}",
            folder.display(),
            names(&carried),
            names(new)
        )));
    }
    let mut all = carried;
    all.vstack_mut(new)
        .map_err(|e| Error::polars(folder.join(name), e))?;
    all.rechunk_mut();
    Ok(all)
}

/// The rows of `carried` whose `competition_id` is not one of `new`'s: a competition the
/// previous run scored but did not rate after its last rated one is scored again.
pub fn without_rescored(carried: DataFrame, new: &DataFrame) -> PolarsResult<DataFrame> {
    let ids: std::collections::HashSet<&str> = new
        .column("competition_id")?
        .str()?
        .iter()
        .flatten()
        .collect();
    if ids.is_empty() {
        return Ok(carried);
    }
    let keep: BooleanChunked = carried
        .column("competition_id")?
        .str()?
        .iter()
        .map(|id| Some(!id.is_some_and(|id| ids.contains(id))))
        .collect();
    carried.filter(&keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A carried list keeps its header and every line but a rescored competition's,
    /// whose id is read in its column, quotes and all.
    #[test]
    fn a_carried_list_drops_the_rescored_competitions_lines() {
        let header = "member_id,competition_id,entrant\n";
        let bytes = b"member_id,competition_id,entrant\n7,c1,\"A, B\"\n8,\"c,2\",x\n9,c3,\"say \"\"hi\"\"\"\n";
        let rescored = std::collections::HashSet::from(["c,2"]);
        let kept = carried_csv(Path::new("jan/non_members.csv"), bytes, header, &rescored).unwrap();
        assert_eq!(
            String::from_utf8(kept).unwrap(),
            "member_id,competition_id,entrant\n7,c1,\"A, B\"\n9,c3,\"say \"\"hi\"\"\"\n"
        );
        let error = carried_csv(
            Path::new("jan/non_members.csv"),
            bytes,
            "a,competition_id\n",
            &rescored,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            error,
            "--state jan/non_members.csv: the file's columns are not the ones this version writes (a,competition_id); run without --state to write the whole history afresh"
        );
        assert_eq!(csv_field("a,\"b,c\",d", 1).as_deref(), Some("b,c"));
        assert_eq!(csv_field("a,b", 2), None);
    }

    #[test]
    fn a_rescored_competition_is_kept_once() {
        let carried = df!("competition_id" => ["a", "a", "b"], "rank" => [1, 2, 1]).unwrap();
        let new = df!("competition_id" => ["b", "c"], "rank" => [1, 1]).unwrap();
        let kept = without_rescored(carried, &new).unwrap();
        assert_eq!(kept.height(), 2);
        let all = append(Path::new("prev"), "standings.parquet", kept, &new).unwrap();
        let ids: Vec<Option<&str>> = all
            .column("competition_id")
            .unwrap()
            .str()
            .unwrap()
            .iter()
            .collect();
        assert_eq!(ids, [Some("a"), Some("a"), Some("b"), Some("c")]);
    }

    /// A table read ahead is checked as one read at the writing: the recorded bytes come
    /// back (SHA-256 of "x\n", as `printf 'x\n' | sha256sum` prints it), a file edited
    /// after the run is refused naming it, and a table not read ahead, or asked of
    /// another folder, is read then.
    #[test]
    fn a_table_read_ahead_is_checked_as_at_the_writing() {
        let recorded = "73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac";
        let json = format!(
            r#"{{"inputs": {{"factors": {{"name": "x", "sha256": "f"}}}}, "mode": "live", "outputs": {{"changes.parquet": "{recorded}", "standings.parquet": "{recorded}"}}}}"#
        );
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("run.json", &json);
        write("changes.parquet", "x\n");
        write("standings.parquet", "y\n");
        let ahead = Prefetch::start(dir.path(), &["changes.parquet", "standings.parquet"]);
        let changes = carried_bytes_from(Some(&ahead), dir.path(), "changes.parquet");
        assert_eq!(changes.unwrap().bytes, b"x\n");
        let error = carried_bytes_from(Some(&ahead), dir.path(), "standings.parquet")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(
                "`standings.parquet` is not the file run.json records (its SHA-256 differs)"
            ),
            "{error}"
        );
        // Taken once: asked again, the file is read again (now mended).
        write("standings.parquet", "x\n");
        let again = carried_bytes_from(Some(&ahead), dir.path(), "standings.parquet");
        assert_eq!(again.unwrap().bytes, b"x\n");
        // Edited after the reading ahead began: the bytes checked are the bytes used,
        // and what is read later is checked again.
        let other = tempfile::tempdir().unwrap();
        let ahead = Prefetch::start(other.path(), &["changes.parquet"]);
        write("changes.parquet", "z\n");
        let error = carried_bytes_from(Some(&ahead), dir.path(), "changes.parquet")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`changes.parquet` is not the file run.json records"),
            "{error}"
        );
        // The other folder's table was never there: its error stays with it.
        let missing = carried_bytes_from(Some(&ahead), other.path(), "changes.parquet");
        assert!(missing.is_err());
    }

    #[test]
    fn other_columns_are_refused() {
        let carried = df!("competition_id" => ["a"]).unwrap();
        let new = df!("competition_id" => ["b"], "rank" => [1]).unwrap();
        let error = append(Path::new("prev"), "changes.parquet", carried, &new)
            .unwrap_err()
            .to_string();
        assert!(error.contains("run without --state"), "{error}");
    }
}
