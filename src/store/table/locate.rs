//! Where a table is: one Parquet or CSV file, or a folder of Parquet files with hive
//! partitions; and each file read into a frame, guarded against readers that panic on
//! a broken file.

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use polars::prelude::*;

use super::empty_cells::{check_empty_cells_of, range_of_file, GroupsRead};
use crate::error::{Error, InputError, Location};
use polars_parquet::parquet::metadata::FileMetadata;

/// The value hive writers use for a null partition key.
pub(super) const HIVE_NULL: &str = "__HIVE_DEFAULT_PARTITION__";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileKind {
    Parquet,
    Csv,
}

/// One file of a table, with the hive partition values of the folders above it.
#[derive(Debug, Clone)]
pub(super) struct SourceFile {
    pub(super) path: PathBuf,
    pub(super) kind: FileKind,
    pub(super) partition: Vec<(String, Option<String>)>,
    /// A Parquet file's footer, read and checked once for every piece of the file.
    pub(super) footer: Footer,
}

/// The footer of a Parquet file once read: a file read a row group at a time would
/// otherwise parse and check its whole footer (every row group's metadata) for each
/// row group, and a file of many small row groups would cost the square of their
/// number (1,344 row groups of 7 rows: 29 s for 9,407 rows).
#[derive(Debug, Clone, Default)]
pub(super) struct Footer(Arc<std::sync::OnceLock<Arc<ReadFooter>>>);

/// A footer read and checked, with the file row each row group starts at.
#[derive(Debug)]
struct ReadFooter {
    metadata: Arc<FileMetadata>,
    /// `starts[g]`: the first row of row group `g`; one more entry, the file's rows.
    starts: Vec<usize>,
}

impl SourceFile {
    pub(super) fn new(
        path: PathBuf,
        kind: FileKind,
        partition: Vec<(String, Option<String>)>,
    ) -> Self {
        SourceFile {
            path,
            kind,
            partition,
            footer: Footer::default(),
        }
    }

    /// The file's footer, read and checked against the file's length the first time.
    fn footer(&self) -> Result<Arc<ReadFooter>, Error> {
        if let Some(footer) = self.footer.0.get() {
            return Ok(Arc::clone(footer));
        }
        let path = self.path.as_path();
        let handle = File::open(path).map_err(|e| Error::io(path, e))?;
        let length = handle.metadata().map_err(|e| Error::io(path, e))?.len();
        let metadata = guarded(path, || -> Result<Arc<FileMetadata>, Error> {
            let mut reader = ParquetReader::new(handle);
            let metadata = reader.get_metadata().map_err(|e| Error::polars(path, e))?;
            check_footer(path, metadata, length)?;
            Ok(Arc::clone(metadata))
        })??;
        let mut starts = Vec::with_capacity(metadata.row_groups.len() + 1);
        let mut row = 0usize;
        starts.push(row);
        for group in &metadata.row_groups {
            row = row.saturating_add(group.num_rows());
            starts.push(row);
        }
        let read = Arc::new(ReadFooter { metadata, starts });
        Ok(Arc::clone(self.footer.0.get_or_init(|| read)))
    }
}

impl ReadFooter {
    /// The row groups that hold `rows` (rows of the file), as a metadata of those
    /// alone, with where they lie in the file: found by the groups' first rows, so a
    /// piece costs its own row groups.
    fn holding(&self, rows: &std::ops::Range<usize>) -> (FileMetadata, GroupsRead) {
        let m = &self.metadata;
        let groups = m.row_groups.len();
        // The group whose rows include `rows.start`, up to the one holding the last.
        let first = self
            .starts
            .partition_point(|&s| s <= rows.start)
            .saturating_sub(1);
        let last = self.starts.partition_point(|&s| s < rows.end).min(groups);
        let kept: Vec<_> = m.row_groups.get(first..last).unwrap_or_default().to_vec();
        let part = FileMetadata {
            version: m.version,
            num_rows: kept.iter().map(|g| g.num_rows()).sum(),
            max_row_group_height: m.max_row_group_height,
            created_by: m.created_by.clone(),
            row_groups: kept,
            key_value_metadata: m.key_value_metadata.clone(),
            schema_descr: m.schema_descr.clone(),
            column_orders: m.column_orders.clone(),
            footer_buf: m.footer_buf.clone(),
        };
        let at = GroupsRead {
            first,
            first_row: self.starts.get(first).copied().unwrap_or(0),
            in_file: groups,
        };
        (part, at)
    }
}

/// Finds the one form a table is given in, or none.
pub(super) fn locate_table(dir: &Path, name: &str) -> Result<Option<Vec<SourceFile>>, Error> {
    if !dir.is_dir() {
        return Err(Error::io(
            dir,
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "dataset folder does not exist or is not a folder",
            ),
        ));
    }
    let parquet = dir.join(format!("{name}.parquet"));
    let csv = dir.join(format!("{name}.csv"));
    let folder = dir.join(name);
    let forms: Vec<&PathBuf> = [&parquet, &csv, &folder]
        .into_iter()
        .filter(|path| path.exists())
        .collect();
    match forms.as_slice() {
        [] => Ok(None),
        [one] if *one == &folder => {
            if !folder.is_dir() {
                return Err(InputError::new(
                    Location::file(&folder),
                    format!(
                        "`{name}` must be a folder of Parquet files, a .parquet or a .csv file"
                    ),
                )
                .into());
            }
            let files = partition_files(&folder)?;
            if files.is_empty() {
                return Err(InputError::new(
                    Location::file(&folder),
                    format!("the folder of table `{name}` holds no .parquet files"),
                )
                .into());
            }
            Ok(Some(files))
        }
        [one] => Ok(Some(vec![SourceFile::new(
            one.to_path_buf(),
            if *one == &csv {
                FileKind::Csv
            } else {
                FileKind::Parquet
            },
            Vec::new(),
        )])),
        several => {
            let names: Vec<String> = several
                .iter()
                .filter_map(|path| path.file_name())
                .map(|file| file.to_string_lossy().into_owned())
                .collect();
            Err(InputError::new(
                Location::file(dir),
                format!(
                    "table `{name}` is given in more than one form ({}); keep one",
                    names.join(", ")
                ),
            )
            .into())
        }
    }
}

/// Every `.parquet` file below `folder`, in sorted path order. Hidden and `_`-prefixed
/// entries (`.tmp-…`, `_SUCCESS`) are writers' bookkeeping and are skipped.
pub(super) fn partition_files(folder: &Path) -> Result<Vec<SourceFile>, Error> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries = std::fs::read_dir(&current).map_err(|e| Error::io(&current, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&current, e))?;
            let path = entry.path();
            let file_name = entry.file_name().to_string_lossy().into_owned();
            if file_name.starts_with('.') || file_name.starts_with('_') {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else if file_name.ends_with(".parquet") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found
        .into_iter()
        .map(|path| {
            let partition = path
                .strip_prefix(folder)
                .ok()
                .and_then(Path::parent)
                .map(|parents| {
                    parents
                        .components()
                        .filter_map(|part| {
                            let text = part.as_os_str().to_string_lossy();
                            let (key, value) = text.split_once('=')?;
                            let value = percent_decode(value);
                            let value = (value != HIVE_NULL).then_some(value);
                            Some((percent_decode(key), value))
                        })
                        .collect()
                })
                .unwrap_or_default();
            SourceFile::new(path, FileKind::Parquet, partition)
        })
        .collect())
}

/// Hive writers percent-encode characters such as `/`, `=` and space in partition values.
pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let decoded = match (bytes.get(i), bytes.get(i + 1), bytes.get(i + 2)) {
            (Some(b'%'), Some(&high), Some(&low)) => {
                let hex = [high, low];
                std::str::from_utf8(&hex)
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
            }
            _ => None,
        };
        match decoded {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.extend(bytes.get(i));
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One file's rows, and which of its columns are text to be parsed (CSV cells, hive
/// partition values) rather than typed Parquet columns.
pub(super) struct Frame {
    pub(super) path: Arc<Path>,
    pub(super) df: DataFrame,
    pub(super) text_columns: HashSet<String>,
    /// The file's row (0-based) that is the frame's first: errors name rows of the
    /// file, also when only some of its rows were read.
    pub(super) first_row: usize,
}

impl Frame {
    /// Rows `rows` of the frame as a frame of their own, the columns' buffers shared:
    /// a part built from it takes its columns (dates converted, text parsed) for its
    /// own rows, not for the whole frame's again. Its rows keep their file's numbers.
    pub(super) fn rows(&self, rows: std::ops::Range<usize>) -> Frame {
        Frame {
            path: Arc::clone(&self.path),
            df: self.df.slice(rows.start as i64, rows.len()),
            text_columns: self.text_columns.clone(),
            first_row: self.first_row + rows.start,
        }
    }
}

pub(super) fn read_frame(file: &SourceFile) -> Result<Frame, Error> {
    read_frame_columns(file, None, None)
}

/// [`read_frame`] with only `columns` (those of them the file has) when given, and only
/// the file's `rows` when given; a CSV file is read whole.
pub(super) fn read_frame_columns(
    file: &SourceFile,
    columns: Option<&[&str]>,
    rows: Option<std::ops::Range<usize>>,
) -> Result<Frame, Error> {
    let path = file.path.as_path();
    let first_row = match file.kind {
        FileKind::Parquet => rows.as_ref().map_or(0, |rows| rows.start),
        FileKind::Csv => 0,
    };
    let (mut df, mut text_columns) = match file.kind {
        FileKind::Parquet => (read_parquet_rows(file, columns, rows)?, HashSet::new()),
        FileKind::Csv => {
            let df = guarded(path, || {
                CsvReadOptions::default()
                    .with_has_header(true)
                    .with_infer_schema_length(Some(0))
                    .try_into_reader_with_file_path(Some(path.to_path_buf()))
                    .and_then(|reader| reader.finish())
            })?
            .map_err(|e| csv_shape_error(path).unwrap_or_else(|| Error::polars(path, e)))?;
            let text = df
                .get_column_names()
                .into_iter()
                .map(|name| name.to_string())
                .collect();
            (df, text)
        }
    };
    for (key, value) in &file.partition {
        if columns.is_some_and(|wanted| !wanted.contains(&key.as_str())) {
            continue;
        }
        if df
            .get_column_names()
            .iter()
            .any(|name| name.as_str() == key)
        {
            continue;
        }
        let values = vec![value.as_deref(); df.height()];
        df.with_column(Column::new(key.as_str().into(), values))
            .map_err(|e| Error::polars(path, e))?;
        text_columns.insert(key.clone());
    }
    Ok(Frame {
        path: Arc::from(path),
        df,
        text_columns,
        first_row,
    })
}

/// The rows of each row group of a Parquet file, in order, after the checks on its
/// footer (read once for the file); `None` for a CSV file, which is read whole.
pub(super) fn row_groups(file: &SourceFile) -> Result<Option<Vec<usize>>, Error> {
    if file.kind == FileKind::Csv {
        return Ok(None);
    }
    let footer = file.footer()?;
    Ok(Some(
        footer
            .metadata
            .row_groups
            .iter()
            .map(|g| g.num_rows())
            .collect(),
    ))
}

/// Refuses a footer that disagrees with itself or with the file's `length`: a damaged
/// size would make the reader allocate what it claims or read beyond the file.
fn check_footer(
    path: &Path,
    metadata: &polars_parquet::parquet::metadata::FileMetadata,
    length: u64,
) -> Result<(), Error> {
    let claimed: usize = metadata
        .row_groups
        .iter()
        .map(|group| group.num_rows())
        .fold(0, usize::saturating_add);
    let corrupt = |what: String| {
        Error::from(InputError::new(
            Location::file(path),
            format!("the Parquet file is corrupt: {what}"),
        ))
    };
    if metadata.num_rows > MAX_PARQUET_ROWS || claimed != metadata.num_rows {
        return Err(corrupt(format!(
            "its footer claims {} rows, its row groups {claimed}",
            metadata.num_rows
        )));
    }
    for group in &metadata.row_groups {
        for chunk in group.parquet_columns() {
            let range = chunk.byte_range();
            if chunk.compressed_size() < 0 || chunk.uncompressed_size() < 0 || range.end > length {
                return Err(corrupt(format!(
                    "a column chunk of `{}` lies outside the file's {length} bytes",
                    chunk.descriptor().path_in_schema.join(".")
                )));
            }
        }
    }
    Ok(())
}

/// Rows a Parquet file may claim: polars indexes rows with 32 bits, and a corrupt footer
/// claiming more would make it try to reserve memory for them.
pub(super) const MAX_PARQUET_ROWS: usize = u32::MAX as usize;

/// Reads a Parquet file, after checking that its footer is consistent with the file: a
/// truncated or corrupt file must give an error naming it, never a crash or an attempt
/// to allocate what its damaged sizes claim.
/// Only `columns` (those of them the file has) are read when given, and only the file's
/// `rows` (the reader decodes only the row groups that hold them).
fn read_parquet_rows(
    file: &SourceFile,
    columns: Option<&[&str]>,
    rows: Option<std::ops::Range<usize>>,
) -> Result<DataFrame, Error> {
    let path = file.path.as_path();
    let footer = file.footer()?;
    let handle = File::open(path).map_err(|e| Error::io(path, e))?;
    guarded(path, || -> Result<DataFrame, Error> {
        let mut reader = ParquetReader::new(handle);
        let first_row = rows.as_ref().map_or(0, |rows| rows.start);
        // The reader is given the footer read once, and for some rows only the row
        // groups that hold them: it then reads no more of the footer than it decodes.
        let (metadata, groups) = match &rows {
            Some(rows) => {
                let (part, groups) = footer.holding(rows);
                let part = Arc::new(part);
                reader.set_metadata(Arc::clone(&part));
                let offset = rows.start.saturating_sub(groups.first_row);
                reader = reader.with_slice(Some((offset, rows.len())));
                (part, groups)
            }
            None => {
                reader.set_metadata(Arc::clone(&footer.metadata));
                let groups = GroupsRead {
                    first: 0,
                    first_row: 0,
                    in_file: footer.metadata.row_groups.len(),
                };
                (Arc::clone(&footer.metadata), groups)
            }
        };
        let schema = reader.schema().map_err(|e| Error::polars(path, e))?;
        for (name, field) in schema.iter() {
            if columns.is_some_and(|wanted| !wanted.contains(&name.as_str())) {
                continue;
            }
            if let ArrowDataType::Struct(fields) = &field.dtype {
                let names: Vec<String> = fields
                    .iter()
                    .take(5)
                    .map(|f| format!("`{}`", f.name))
                    .collect();
                return Err(InputError::new(
                    Location::file(path).column(name.as_str()),
                    format!(
                        "column `{name}` holds a group of {} fields in each cell (a struct: {}{}); no table of the dataset has such a column: write each value as a plain column",
                        fields.len(),
                        names.join(", "),
                        if fields.len() > 5 { ", …" } else { "" }
                    ),
                )
                .into());
            }
        }
        if let Some(columns) = columns {
            let present: Vec<String> = columns
                .iter()
                .filter(|name| schema.contains(name))
                .map(|name| (*name).to_owned())
                .collect();
            reader = reader.with_columns(Some(present));
        }
        let frame = reader.finish().map_err(|e| Error::polars(path, e))?;
        check_empty_cells_of(path, &metadata, groups, &frame, first_row, &mut |range| {
            range_of_file(path, range)
        })?;
        Ok(frame)
    })?
}

/// Runs a polars reader on `path`, turning a panic inside it (which a corrupt file can
/// cause) into an error that names the file. The panic's own text (`thread 'polars-0'
/// panicked at …`) is not printed: the error says the same in the user's terms
/// ([`quiet_reader_panics`]).
pub(crate) fn guarded<T>(path: &Path, read: impl FnOnce() -> T) -> Result<T, Error> {
    quiet_reader_panics();
    let reading = Reading::start();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    drop(reading);
    outcome.map_err(|panic| {
        let detail = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no detail".to_owned())
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        InputError::new(
            Location::file(path),
            format!("the file is corrupt or not a table this program can read (the reader failed: {detail})"),
        )
        .into()
    })
}

/// How many readers run inside [`guarded`] now, in any thread.
static READING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

thread_local! {
    /// True while this thread runs a reader inside [`guarded`].
    static GUARDED_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks a guarded read for the panic hook, for as long as it lives.
struct Reading {
    was: bool,
}

impl Reading {
    fn start() -> Reading {
        READING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Reading {
            was: GUARDED_HERE.with(|here| here.replace(true)),
        }
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        GUARDED_HERE.with(|here| here.set(self.was));
        READING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The environment variable that keeps polars' panic text (for a bug report).
pub const VERBOSE_ENV: &str = "BRIDGEHCP_VERBOSE";

/// Installs (once) a panic hook that stays silent about a panic raised while a reader
/// runs inside [`guarded`], on the guarded thread itself or on one of polars' worker
/// threads (`polars-N`), since [`guarded`] turns it into one clean error naming the
/// file. Any other panic, and every panic when `BRIDGEHCP_VERBOSE` is set, is printed
/// by the hook that was there before.
pub fn quiet_reader_panics() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let verbose = std::env::var_os(VERBOSE_ENV).is_some_and(|v| !v.is_empty() && v != "0");
            let in_reader = READING.load(std::sync::atomic::Ordering::SeqCst) > 0
                && (GUARDED_HERE.with(std::cell::Cell::get)
                    || std::thread::current()
                        .name()
                        .is_some_and(|name| name.starts_with("polars")));
            if verbose || !in_reader || crate::error::out_of_memory_panic(info).is_some() {
                previous(info);
            }
        }));
    });
}

/// Explains a CSV file polars refused, in a secretary's terms: an empty file, or the first
/// row whose number of cells differs from the header's. `None` when neither applies.
pub(super) fn csv_shape_error(path: &Path) -> Option<Error> {
    let bytes = std::fs::read(path).ok()?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Some(
            InputError::new(
                Location::file(path),
                "the file is empty (a CSV table needs at least its header line)",
            )
            .into(),
        );
    }
    if let Err(invalid) = std::str::from_utf8(bytes) {
        return Some(not_utf8(path, bytes, invalid.valid_up_to()).into());
    }
    let counts = csv_field_counts(bytes);
    let (header, rows) = counts.split_first()?;
    rows.iter()
        .position(|fields| fields != header)
        .and_then(|index| {
            let found = rows.get(index)?;
            Some(
                InputError::new(
                    Location::file(path).row(index + 1),
                    format!("the row has {found} cells but the header has {header}"),
                )
                .into(),
            )
        })
}

/// The first byte of a CSV file that is not UTF-8, at `at`: its row (data rows count
/// from 1, the header is not a row) and what the file most likely is.
fn not_utf8(path: &Path, bytes: &[u8], at: usize) -> InputError {
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count();
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&bytes[start..at]).chars().count() + 1;
    let byte = bytes.get(at).copied().unwrap_or(0);
    let rule = format!(
        "byte 0x{byte:02X} at character {column} is not UTF-8; the file looks like Latin-1 or Windows-1252 (å, ä, ö as one byte each): save it as UTF-8 (CSV UTF-8 in a spreadsheet)"
    );
    if line == 0 {
        InputError::new(Location::file(path), format!("the header line: {rule}"))
    } else {
        InputError::new(Location::file(path).row(line), rule)
    }
}

/// Cells per record of CSV text (commas outside double quotes; a quoted cell may hold
/// line breaks). Blank lines are not records.
pub(super) fn csv_field_counts(bytes: &[u8]) -> Vec<usize> {
    let mut counts = Vec::new();
    let mut fields = 1;
    let mut in_quotes = false;
    let mut blank = true;
    for &byte in bytes {
        match byte {
            b'"' => {
                in_quotes = !in_quotes;
                blank = false;
            }
            b',' if !in_quotes => {
                fields += 1;
                blank = false;
            }
            b'\n' if !in_quotes => {
                if !blank {
                    counts.push(fields);
                }
                fields = 1;
                blank = true;
            }
            b'\r' => {}
            _ => blank = false,
        }
    }
    if !blank {
        counts.push(fields);
    }
    counts
}
