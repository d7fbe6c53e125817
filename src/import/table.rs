//! Reading a dataset folder (the data contract's five tables) into a [`Dataset`].
//!
//! Datasets come from federation exports (one Parquet file per table), from data
//! pipelines (hive-partitioned folders) and from people typing CSV by hand, so every form
//! is read into the same plain structs and held to the same rules. Types are checked per
//! column against the contract; CSV cells and hive partition values are text, so they
//! are parsed instead, with the same messages. Every row keeps its [`Origin`], and every
//! error names the file, the 1-based data row and the column, so a club secretary can go
//! straight to the cell.
//!
//! Tables are read in contract order and each row is checked by
//! [`Validator`](super::validate::Validator) as soon as it is read, so the error returned
//! is always the first in table order, then file order.

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use chrono::NaiveDate;
use polars::prelude::*;

use crate::dataset::date_from_days;
use crate::dataset::{
    BoardResult, Competition, Dataset, Entrant, EntrantResult, Member, MemberKind, Origin,
};
use crate::error::{Error, InputError, Location};
use crate::import::validate::{self, Validator, PLAYER_COLUMNS};
use crate::quarantine::{OnError, Quarantine};
use crate::scoring::conventions::Conventions;

/// The tables of the data contract, in the order they are read and checked.
pub const TABLES: [&str; 5] = ["members", "competitions", "entrants", "results", "boards"];

/// The value hive writers use for a null partition key.
const HIVE_NULL: &str = "__HIVE_DEFAULT_PARTITION__";

/// Reads and checks the dataset in `dir`, stopping at the first broken rule.
///
/// Each table is `NAME.parquet`, `NAME.csv` or a folder `NAME/` of Parquet files (read in
/// sorted path order; `key=value` folders supply a column `key` when the files lack it).
/// `members`, `competitions` and `entrants` are required, and at least one of `results`
/// and `boards`.
pub fn read_dataset(dir: &Path) -> Result<Dataset, Error> {
    Ok(read_dataset_checked(dir, OnError::Strict)?.dataset)
}

/// A members table in a file of its own (`.csv` or `.parquet`), such as a federation's
/// register: at least `member_id`, checked with the same rules as `members`.
pub fn read_members_file(path: &Path) -> Result<Vec<Member>, Error> {
    let is_csv = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let file = SourceFile {
        path: path.to_path_buf(),
        kind: if is_csv {
            FileKind::Csv
        } else {
            FileKind::Parquet
        },
        partition: Vec::new(),
    };
    let mut members = Vec::new();
    read_members(&read_frame(&file)?, &mut Validator::default(), &mut members)?;
    Ok(members)
}

/// A dataset with the competitions that broke a rule taken out, and why.
#[derive(Debug, Default)]
pub struct Checked {
    /// Every row of every competition that passed the checks.
    pub dataset: Dataset,
    /// The competitions taken out, with every reason the row checks found.
    pub quarantine: Quarantine,
}

/// Reads and checks the dataset in `dir`. An error in a row that belongs to one
/// competition quarantines that competition (or, with [`OnError::Strict`], is returned);
/// anything else (a missing table or column, a mistyped column, a `members` row, a row
/// without a `competition_id`) is returned as the error.
pub fn read_dataset_checked(dir: &Path, on_error: OnError) -> Result<Checked, Error> {
    let members = locate_table(dir, "members")?;
    let competitions = locate_table(dir, "competitions")?;
    let entrants = locate_table(dir, "entrants")?;
    let results = locate_table(dir, "results")?;
    let boards = locate_table(dir, "boards")?;
    for (name, source) in [
        ("members", &members),
        ("competitions", &competitions),
        ("entrants", &entrants),
    ] {
        if source.is_none() {
            return Err(InputError::new(
                Location::file(dir),
                format!("the required table `{name}` is missing (expected {name}.parquet, {name}.csv or a folder {name}/)"),
            )
            .into());
        }
    }
    if results.is_none() && boards.is_none() {
        return Err(InputError::new(
            Location::file(dir),
            "a dataset needs a `results` or a `boards` table (or both)",
        )
        .into());
    }

    let mut check = Check {
        validator: Validator::default(),
        quarantine: Quarantine::new(on_error),
    };
    let mut dataset = Dataset::default();
    for file in members.iter().flatten() {
        read_members(
            &read_frame(file)?,
            &mut check.validator,
            &mut dataset.members,
        )?;
    }
    for file in competitions.iter().flatten() {
        read_competitions(&read_frame(file)?, &mut check, &mut dataset.competitions)?;
    }
    for file in entrants.iter().flatten() {
        read_entrants(&read_frame(file)?, &mut check, &mut dataset.entrants)?;
    }
    for file in results.iter().flatten() {
        read_results(&read_frame(file)?, &mut check, &mut dataset.results)?;
    }
    for file in boards.iter().flatten() {
        read_boards(&read_frame(file)?, &mut check, &mut dataset.boards)?;
    }
    let Check {
        validator,
        mut quarantine,
    } = check;
    for (id, error) in validator.finish_all() {
        quarantine.add(&id, error)?;
    }
    if !quarantine.is_empty() {
        for competition in &dataset.competitions {
            quarantine.date(
                &competition.competition_id,
                competition.date,
                competition.session,
            );
        }
        let kept = |id: &String| !quarantine.contains(id);
        dataset.competitions.retain(|c| kept(&c.competition_id));
        dataset.entrants.retain(|e| kept(&e.competition_id));
        dataset.results.retain(|r| kept(&r.competition_id));
        dataset.boards.retain(|b| kept(&b.competition_id));
    }
    Ok(Checked {
        dataset,
        quarantine,
    })
}

/// The row rules, and where the competitions that break them are collected.
struct Check {
    validator: Validator,
    quarantine: Quarantine,
}

/// A row that belongs to one competition.
trait CompetitionRow {
    fn competition_id_mut(&mut self) -> &mut String;
}

macro_rules! competition_row {
    ($($ty:ty),*) => {$(
        impl CompetitionRow for $ty {
            fn competition_id_mut(&mut self) -> &mut String {
                &mut self.competition_id
            }
        }
    )*};
}
competition_row!(Competition, Entrant, EntrantResult, BoardResult);

impl Check {
    /// Takes a row of competition `id`, built from its cells (or not), and holds it to
    /// the rules: the row back when it passed, `None` when its competition went to the
    /// quarantine for it. Rows of a competition whose own row is broken, or that is not
    /// listed at all, are not held to the rules that need the competition: its first
    /// such row already named the problem.
    fn row<T: CompetitionRow>(
        &mut self,
        id: String,
        built: Result<T, InputError>,
        rules: impl FnOnce(&mut Validator, &T) -> Result<(), InputError>,
    ) -> Result<Option<T>, InputError> {
        let mut record = match built {
            Ok(record) => record,
            Err(error) => {
                self.quarantine.add(&id, error)?;
                return Ok(None);
            }
        };
        if self.quarantine.contains(&id) && !self.validator.knows_competition(&id) {
            return Ok(None);
        }
        *record.competition_id_mut() = id;
        match rules(&mut self.validator, &record) {
            Ok(()) => Ok(Some(record)),
            Err(error) => {
                self.quarantine.add(record.competition_id_mut(), error)?;
                Ok(None)
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Parquet,
    Csv,
}

/// One file of a table, with the hive partition values of the folders above it.
#[derive(Debug, Clone)]
struct SourceFile {
    path: PathBuf,
    kind: FileKind,
    partition: Vec<(String, Option<String>)>,
}

/// Finds the one form a table is given in, or none.
fn locate_table(dir: &Path, name: &str) -> Result<Option<Vec<SourceFile>>, Error> {
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
        [one] => Ok(Some(vec![SourceFile {
            path: one.to_path_buf(),
            kind: if *one == &csv {
                FileKind::Csv
            } else {
                FileKind::Parquet
            },
            partition: Vec::new(),
        }])),
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
fn partition_files(folder: &Path) -> Result<Vec<SourceFile>, Error> {
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
            SourceFile {
                path,
                kind: FileKind::Parquet,
                partition,
            }
        })
        .collect())
}

/// Hive writers percent-encode characters such as `/`, `=` and space in partition values.
fn percent_decode(text: &str) -> String {
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
struct Frame {
    path: Arc<Path>,
    df: DataFrame,
    text_columns: HashSet<String>,
}

fn read_frame(file: &SourceFile) -> Result<Frame, Error> {
    let path = file.path.as_path();
    let (mut df, mut text_columns) = match file.kind {
        FileKind::Parquet => (read_parquet(path)?, HashSet::new()),
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
    })
}

/// Rows a Parquet file may claim: polars indexes rows with 32 bits, and a corrupt footer
/// claiming more would make it try to reserve memory for them.
const MAX_PARQUET_ROWS: usize = u32::MAX as usize;

/// Reads a Parquet file, after checking that its footer is consistent with the file: a
/// truncated or corrupt file must give an error naming it, never a crash or an attempt
/// to allocate what its damaged sizes claim.
fn read_parquet(path: &Path) -> Result<DataFrame, Error> {
    let handle = File::open(path).map_err(|e| Error::io(path, e))?;
    let length = handle.metadata().map_err(|e| Error::io(path, e))?.len();
    guarded(path, || -> Result<DataFrame, Error> {
        let mut reader = ParquetReader::new(handle);
        let metadata = reader.get_metadata().map_err(|e| Error::polars(path, e))?;
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
                if chunk.compressed_size() < 0
                    || chunk.uncompressed_size() < 0
                    || range.end > length
                {
                    return Err(corrupt(format!(
                        "a column chunk of `{}` lies outside the file's {length} bytes",
                        chunk.descriptor().path_in_schema.join(".")
                    )));
                }
            }
        }
        reader.finish().map_err(|e| Error::polars(path, e))
    })?
}

/// Runs a polars reader on `path`, turning a panic inside it (which a corrupt file can
/// cause) into an error that names the file.
pub(crate) fn guarded<T>(path: &Path, read: impl FnOnce() -> T) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).map_err(|panic| {
        let detail = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no detail".to_owned());
        InputError::new(
            Location::file(path),
            format!("the file is corrupt or not a table this program can read (the reader failed: {detail})"),
        )
        .into()
    })
}

/// Explains a CSV file polars refused, in a secretary's terms: an empty file, or the first
/// row whose number of cells differs from the header's. `None` when neither applies.
fn csv_shape_error(path: &Path) -> Option<Error> {
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

/// Cells per record of CSV text (commas outside double quotes; a quoted cell may hold
/// line breaks). Blank lines are not records.
fn csv_field_counts(bytes: &[u8]) -> Vec<usize> {
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

/// A cell's value, or the rule it breaks.
type Cells<T> = Vec<Result<Option<T>, String>>;

/// A contract type: how to take it from a typed Parquet column, and from text.
trait CellType: Sized + Clone {
    /// The contract's name for the type, for messages.
    const NAME: &'static str;
    /// The column's cells, or `None` when its dtype cannot hold this type.
    fn typed(series: &Series) -> Option<Cells<Self>>;
    fn parse(text: &str) -> Result<Self, String>;
}

fn collect<T, I, F>(iter: I, convert: F) -> Cells<T>
where
    I: Iterator,
    F: Fn(I::Item) -> Result<Option<T>, String>,
{
    iter.map(convert).collect()
}

impl CellType for i64 {
    const NAME: &'static str = "int64";
    fn typed(series: &Series) -> Option<Cells<Self>> {
        match series.dtype() {
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32 => {
                let cast = series.cast(&DataType::Int64).ok()?;
                Some(collect(cast.i64().ok()?.iter(), Ok))
            }
            DataType::UInt64 => Some(collect(series.u64().ok()?.iter(), |value| {
                value
                    .map(|v| i64::try_from(v).map_err(|_| format!("{v} does not fit in int64")))
                    .transpose()
            })),
            _ => None,
        }
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a whole number"))
    }
}

impl CellType for i32 {
    const NAME: &'static str = "int32";
    fn typed(series: &Series) -> Option<Cells<Self>> {
        let wide = i64::typed(series)?;
        Some(
            wide.into_iter()
                .map(|cell| cell.and_then(|value| value.map(narrow_i32).transpose()))
                .collect(),
        )
    }
    fn parse(text: &str) -> Result<Self, String> {
        narrow_i32(i64::parse(text)?)
    }
}

fn narrow_i32(value: i64) -> Result<i32, String> {
    i32::try_from(value).map_err(|_| format!("{value} does not fit in int32"))
}

impl CellType for f64 {
    const NAME: &'static str = "float64";
    fn typed(series: &Series) -> Option<Cells<Self>> {
        if !(series.dtype().is_float() || series.dtype().is_integer()) {
            return None;
        }
        let cast = series.cast(&DataType::Float64).ok()?;
        Some(collect(cast.f64().ok()?.iter(), |value| {
            value.map(validate::finite).transpose()
        }))
    }
    fn parse(text: &str) -> Result<Self, String> {
        let value: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a number"))?;
        validate::finite(value)
    }
}

impl CellType for bool {
    const NAME: &'static str = "bool";
    fn typed(series: &Series) -> Option<Cells<Self>> {
        Some(collect(series.bool().ok()?.iter(), Ok))
    }
    fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(format!(
                "`{text}` is not a boolean (expected true or false)"
            )),
        }
    }
}

impl CellType for NaiveDate {
    const NAME: &'static str = "date";
    /// Date columns, and (as pandas writes dates) naive timestamps at midnight.
    fn typed(series: &Series) -> Option<Cells<Self>> {
        match series.dtype() {
            DataType::Date => Some(collect(series.date().ok()?.physical().iter(), |days| {
                days.map(|d| date_from_days(i64::from(d))).transpose()
            })),
            DataType::Datetime(unit, None) => {
                let per_day: i64 = match unit {
                    TimeUnit::Nanoseconds => 86_400_000_000_000,
                    TimeUnit::Microseconds => 86_400_000_000,
                    TimeUnit::Milliseconds => 86_400_000,
                };
                let stamps = series.datetime().ok()?.physical().clone();
                Some(collect(stamps.iter(), |stamp| {
                    stamp
                        .map(|t| {
                            if t.rem_euclid(per_day) == 0 {
                                date_from_days(t.div_euclid(per_day))
                            } else {
                                Err("expected a calendar date, found a timestamp with a time of day"
                                    .to_owned())
                            }
                        })
                        .transpose()
                }))
            }
            _ => None,
        }
    }
    fn parse(text: &str) -> Result<Self, String> {
        NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
            .map_err(|_| format!("unparseable date `{text}` (expected YYYY-MM-DD)"))
    }
}

impl CellType for String {
    const NAME: &'static str = "string";
    fn typed(series: &Series) -> Option<Cells<Self>> {
        Some(collect(series.str().ok()?.iter(), |value| {
            Ok(value.map(str::to_owned))
        }))
    }
    fn parse(text: &str) -> Result<Self, String> {
        Ok(text.to_owned())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    Required,
    Optional,
}

/// One column of a frame, typed; an absent optional column reads as all nulls.
struct Col<T> {
    path: Arc<Path>,
    name: &'static str,
    cells: Option<Cells<T>>,
}

impl<T: Clone> Col<T> {
    fn location(&self, row: usize) -> Location {
        Location::file(self.path.to_path_buf())
            .row(row + 1)
            .column(self.name)
    }

    /// The value at 0-based `row`, or `None` for a null or absent column. Each row is
    /// read once, so the value is moved out rather than copied.
    fn get(&mut self, row: usize) -> Result<Option<T>, InputError> {
        match self.cells.as_mut().and_then(|cells| cells.get_mut(row)) {
            None => Ok(None),
            Some(Ok(value)) => Ok(value.take()),
            Some(Err(rule)) => {
                let rule = rule.clone();
                Err(InputError::new(self.location(row), rule))
            }
        }
    }

    /// The value at 0-based `row`, which must not be null.
    fn required(&mut self, row: usize) -> Result<T, InputError> {
        self.get(row)?.ok_or_else(|| {
            InputError::new(
                self.location(row),
                format!("`{}` is required but the cell is empty", self.name),
            )
        })
    }

    /// Names this column's cell at `row` in a rule broken by its value.
    fn check<U>(&self, row: usize, checked: Result<U, String>) -> Result<U, InputError> {
        checked.map_err(|rule| InputError::new(self.location(row), rule))
    }
}

impl Col<i32> {
    /// A count (board number, boards played, round, table), which cannot be negative.
    fn count(&mut self, row: usize) -> Result<Option<u32>, InputError> {
        let value = self.get(row)?;
        self.check(
            row,
            value
                .map(|v| validate::non_negative(self.name, i64::from(v)))
                .transpose(),
        )
    }

    fn required_count(&mut self, row: usize) -> Result<u32, InputError> {
        let value = self.required(row)?;
        self.check(row, validate::non_negative(self.name, i64::from(value)))
    }
}

impl Col<String> {
    /// The value at `row` parsed as one of the contract's names (`pairs`, `NS`, ...).
    fn parsed<E: FromStr<Err = String>>(&mut self, row: usize) -> Result<Option<E>, InputError> {
        let value = self.get(row)?;
        self.check(row, value.map(|text| text.parse()).transpose())
    }

    fn required_parsed<E: FromStr<Err = String>>(&mut self, row: usize) -> Result<E, InputError> {
        let value = self.required(row)?;
        self.check(row, value.parse())
    }
}

impl Frame {
    fn height(&self) -> usize {
        self.df.height()
    }

    fn origin(&self, row: usize) -> Origin {
        Origin::new(&self.path, row + 1)
    }

    /// The optional `source_file` and `source_line` columns of an imported dataset.
    fn sources(&self) -> Result<Sources, InputError> {
        Ok(Sources {
            file: self.col::<String>("source_file", Presence::Optional)?,
            line: self.col::<i64>("source_line", Presence::Optional)?,
        })
    }

    fn col<T: CellType>(
        &self,
        name: &'static str,
        presence: Presence,
    ) -> Result<Col<T>, InputError> {
        let location = || Location::file(self.path.to_path_buf()).column(name);
        let Ok(column) = self.df.column(name) else {
            return match presence {
                Presence::Optional => Ok(Col {
                    path: Arc::clone(&self.path),
                    name,
                    cells: None,
                }),
                Presence::Required => Err(InputError::new(
                    location(),
                    format!("the required column `{name}` is missing"),
                )),
            };
        };
        let series = column.as_materialized_series();
        let cells = if series.dtype() == &DataType::Null {
            Some(vec![Ok(None); series.len()])
        } else if self.text_columns.contains(name) && series.dtype() == &DataType::String {
            series.str().ok().map(|texts| {
                collect(texts.iter(), |text| match text {
                    None => Ok(None),
                    Some(t) if t.trim().is_empty() => Ok(None),
                    Some(t) => T::parse(t).map(Some),
                })
            })
        } else {
            T::typed(series)
        };
        match cells {
            Some(cells) => Ok(Col {
                path: Arc::clone(&self.path),
                name,
                cells: Some(cells),
            }),
            None => Err(InputError::new(
                location(),
                format!(
                    "column `{name}` has type {}, expected {}",
                    series.dtype(),
                    T::NAME
                ),
            )),
        }
    }
}

use Presence::{Optional, Required};

/// Where an imported row came from: a row with a `source_file` is named by that file
/// and line in errors (and written back with them), not by its Parquet row.
struct Sources {
    file: Col<String>,
    line: Col<i64>,
}

impl Sources {
    fn origin(&mut self, frame: &Frame, row: usize) -> Result<Origin, InputError> {
        let Some(file) = self.file.get(row)? else {
            return Ok(frame.origin(row));
        };
        let file: Arc<Path> = Arc::from(Path::new(&file));
        Ok(Origin {
            file: Some(file),
            row: self.line.get(row)?.and_then(|l| usize::try_from(l).ok()),
        })
    }
}

fn read_members(
    frame: &Frame,
    validator: &mut Validator,
    out: &mut Vec<Member>,
) -> Result<(), Error> {
    let mut member_id = frame.col::<i64>("member_id", Required)?;
    let mut name = frame.col::<String>("name", Optional)?;
    let mut club = frame.col::<String>("club", Optional)?;
    let mut district = frame.col::<String>("district", Optional)?;
    let mut masterpoints = frame.col::<f64>("masterpoints", Optional)?;
    let mut start_handicap = frame.col::<f64>("start_handicap", Optional)?;
    let mut kind = frame.col::<String>("kind", Optional)?;
    out.reserve(frame.height());
    for row in 0..frame.height() {
        let member = Member {
            member_id: member_id.required(row)?,
            name: name.get(row)?,
            club: club.get(row)?,
            district: district.get(row)?,
            masterpoints: masterpoints.get(row)?.unwrap_or(0.0),
            start_handicap: start_handicap.get(row)?,
            kind: kind.parsed(row)?.unwrap_or(MemberKind::Member),
            origin: frame.origin(row),
        };
        validator.member(&member)?;
        out.push(member);
    }
    Ok(())
}

fn read_competitions(
    frame: &Frame,
    check: &mut Check,
    out: &mut Vec<Competition>,
) -> Result<(), Error> {
    let mut id = frame.col::<String>("competition_id", Required)?;
    let mut date = frame.col::<NaiveDate>("date", Required)?;
    let mut session = frame.col::<i32>("session", Optional)?;
    let mut format = frame.col::<String>("format", Required)?;
    let mut scoring = frame.col::<String>("scoring", Required)?;
    let mut boards = frame.col::<i32>("boards", Optional)?;
    let mut rated = frame.col::<bool>("rated", Optional)?;
    let mut handicap_event = frame.col::<bool>("handicap_event", Optional)?;
    let mut title = frame.col::<String>("title", Optional)?;
    let mut club = frame.col::<String>("club", Optional)?;
    let mut class = frame.col::<String>("class", Optional)?;
    let mut mp_scale = frame.col::<String>("mp_scale", Optional)?;
    let mut imp_aggregate = frame.col::<String>("imp_aggregate", Optional)?;
    let mut datum_trim = frame.col::<String>("datum_trim", Optional)?;
    let mut datum_rounding = frame.col::<String>("datum_rounding", Optional)?;
    let mut bye_score = frame.col::<String>("bye_score", Optional)?;
    let mut neuberg = frame.col::<bool>("neuberg", Optional)?;
    let mut tie_break = frame.col::<String>("tie_break", Optional)?;
    let mut travellers = frame.col::<String>("travellers", Optional)?;
    let mut artificial_imps = frame.col::<String>("artificial_imps", Optional)?;
    let defaults = Conventions::default();
    let mut sources = frame.sources()?;
    out.reserve(frame.height());
    for row in 0..frame.height() {
        let competition_id = id.required(row)?;
        let mut built = || -> Result<Competition, InputError> {
            Ok(Competition {
                competition_id: String::new(),
                date: date.required(row)?,
                format: format.required_parsed(row)?,
                scoring: scoring.required_parsed(row)?,
                session: session.get(row)?.unwrap_or(1),
                boards: boards.count(row)?,
                rated: rated.get(row)?.unwrap_or(true),
                handicap_event: handicap_event.get(row)?.unwrap_or(false),
                title: title.get(row)?,
                club: club.get(row)?,
                class: class.get(row)?,
                conventions: Conventions {
                    mp_scale: mp_scale.parsed(row)?.unwrap_or(defaults.mp_scale),
                    imp_aggregate: imp_aggregate.parsed(row)?.unwrap_or(defaults.imp_aggregate),
                    datum_trim: datum_trim.parsed(row)?.unwrap_or(defaults.datum_trim),
                    datum_rounding: datum_rounding
                        .parsed(row)?
                        .unwrap_or(defaults.datum_rounding),
                    bye_score: bye_score.parsed(row)?.unwrap_or(defaults.bye_score),
                    neuberg: neuberg.get(row)?.unwrap_or(defaults.neuberg),
                    tie_break: tie_break.parsed(row)?.unwrap_or(defaults.tie_break),
                    travellers: travellers.parsed(row)?.unwrap_or(defaults.travellers),
                    artificial_imps: artificial_imps
                        .parsed(row)?
                        .unwrap_or(defaults.artificial_imps),
                },
                origin: sources.origin(frame, row)?,
            })
        };
        let built = built();
        out.extend(check.row(competition_id, built, Validator::competition)?);
    }
    Ok(())
}

fn read_entrants(frame: &Frame, check: &mut Check, out: &mut Vec<Entrant>) -> Result<(), Error> {
    let mut competition_id = frame.col::<String>("competition_id", Required)?;
    let mut entrant = frame.col::<String>("entrant", Required)?;
    let [p1, p2, p3, p4] = PLAYER_COLUMNS;
    let mut players = [
        frame.col::<i64>(p1, Optional)?,
        frame.col::<i64>(p2, Optional)?,
        frame.col::<i64>(p3, Optional)?,
        frame.col::<i64>(p4, Optional)?,
    ];
    let mut names = [
        frame.col::<String>("player1_name", Optional)?,
        frame.col::<String>("player2_name", Optional)?,
        frame.col::<String>("player3_name", Optional)?,
        frame.col::<String>("player4_name", Optional)?,
    ];
    let mut team = frame.col::<String>("team", Optional)?;
    let mut direction = frame.col::<String>("direction", Optional)?;
    let mut sources = frame.sources()?;
    out.reserve(frame.height());
    for row in 0..frame.height() {
        let competition_id = competition_id.required(row)?;
        let mut built = || -> Result<Entrant, InputError> {
            let entrant_name = entrant.required(row)?;
            let mut slots = [None; 4];
            for (slot, column) in slots.iter_mut().zip(&mut players) {
                *slot = column.get(row)?;
            }
            let mut printed: [Option<String>; 4] = [None, None, None, None];
            for (slot, column) in printed.iter_mut().zip(&mut names) {
                *slot = column.get(row)?;
            }
            Ok(Entrant {
                competition_id: String::new(),
                entrant: entrant_name,
                players: slots,
                names: printed,
                team: team.get(row)?,
                direction: direction.parsed(row)?,
                origin: sources.origin(frame, row)?,
            })
        };
        let built = built();
        out.extend(check.row(competition_id, built, Validator::entrant)?);
    }
    Ok(())
}

fn read_results(
    frame: &Frame,
    check: &mut Check,
    out: &mut Vec<EntrantResult>,
) -> Result<(), Error> {
    let mut competition_id = frame.col::<String>("competition_id", Required)?;
    let mut entrant = frame.col::<String>("entrant", Required)?;
    let mut boards_played = frame.col::<i32>("boards_played", Required)?;
    let mut score = frame.col::<f64>("score", Required)?;
    let mut opponent = frame.col::<String>("opponent", Optional)?;
    out.reserve(frame.height());
    for row in 0..frame.height() {
        let competition_id = competition_id.required(row)?;
        let mut built = || -> Result<EntrantResult, InputError> {
            Ok(EntrantResult {
                competition_id: String::new(),
                entrant: entrant.required(row)?,
                boards_played: boards_played.required_count(row)?,
                score: score.required(row)?,
                opponent: opponent.get(row)?,
                origin: frame.origin(row),
            })
        };
        let built = built();
        out.extend(check.row(competition_id, built, Validator::result)?);
    }
    Ok(())
}

fn read_boards(frame: &Frame, check: &mut Check, out: &mut Vec<BoardResult>) -> Result<(), Error> {
    let mut competition_id = frame.col::<String>("competition_id", Required)?;
    let mut board = frame.col::<i32>("board", Required)?;
    let mut ns = frame.col::<String>("ns", Optional)?;
    let mut ew = frame.col::<String>("ew", Optional)?;
    let mut contract = frame.col::<String>("contract", Optional)?;
    let mut declarer = frame.col::<String>("declarer", Optional)?;
    // Read wide so that an absurd value is reported as such, not as an int32 overflow.
    let mut tricks = frame.col::<i64>("tricks", Optional)?;
    let mut ns_score = frame.col::<i32>("ns_score", Optional)?;
    let mut adjusted = frame.col::<String>("adjusted", Optional)?;
    let mut north = frame.col::<String>("north", Optional)?;
    let mut south = frame.col::<String>("south", Optional)?;
    let mut east = frame.col::<String>("east", Optional)?;
    let mut west = frame.col::<String>("west", Optional)?;
    let mut round = frame.col::<i32>("round", Optional)?;
    let mut session = frame.col::<i32>("session", Optional)?;
    let mut table = frame.col::<i32>("table", Optional)?;
    let mut room = frame.col::<String>("room", Optional)?;
    let mut ns_penalty = frame.col::<f64>("ns_penalty", Optional)?;
    let mut ew_penalty = frame.col::<f64>("ew_penalty", Optional)?;
    let mut sources = frame.sources()?;
    out.reserve(frame.height());
    for row in 0..frame.height() {
        let competition_id = competition_id.required(row)?;
        let mut built = || -> Result<BoardResult, InputError> {
            let tricks_taken = tricks.get(row)?;
            Ok(BoardResult {
                competition_id: String::new(),
                board: board.required_count(row)?,
                ns: ns.get(row)?,
                ew: ew.get(row)?,
                contract: contract.get(row)?,
                declarer: declarer.get(row)?,
                tricks: tricks
                    .check(row, tricks_taken.map(validate::tricks_in_range).transpose())?,
                ns_score: ns_score.get(row)?,
                adjusted: adjusted.get(row)?,
                north: north.get(row)?,
                south: south.get(row)?,
                east: east.get(row)?,
                west: west.get(row)?,
                round: round.count(row)?,
                session: session.count(row)?,
                table: table.count(row)?,
                room: room.get(row)?,
                ns_penalty: ns_penalty.get(row)?,
                ew_penalty: ew_penalty.get(row)?,
                origin: sources.origin(frame, row)?,
            })
        };
        let built = built();
        out.extend(check.row(competition_id, built, Validator::board)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_records_are_counted_outside_quotes() {
        let text = b"a,b,c\r\n1,\"x,\ny\",3\n\n4,5\n";
        assert_eq!(csv_field_counts(text), vec![3, 3, 2]);
    }

    #[test]
    fn percent_decoding_restores_hive_values() {
        assert_eq!(percent_decode("Club%20Cup%2F2026"), "Club Cup/2026");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("a%zzb"), "a%zzb");
    }

    #[test]
    fn text_cells_parse_like_the_contract_types() {
        assert_eq!(i64::parse(" 42 "), Ok(42));
        assert!(i64::parse("4.5").is_err());
        assert_eq!(i32::parse("2147483647"), Ok(i32::MAX));
        assert!(i32::parse("2147483648").is_err());
        assert!(f64::parse("NaN").is_err());
        assert!(f64::parse("inf").is_err());
        assert!((f64::parse("54.2").unwrap_or_default() - 54.2).abs() < 1e-12);
        assert_eq!(bool::parse("True"), Ok(true));
        assert!(bool::parse("yes").is_err());
        assert_eq!(
            NaiveDate::parse("2026-11-03"),
            Ok(NaiveDate::from_ymd_opt(2026, 11, 3).unwrap_or_default())
        );
        assert!(NaiveDate::parse("03/11/2026").is_err());
    }

    #[test]
    fn midnight_timestamps_are_dates_and_other_times_are_not() {
        let day = 86_400_000_i64;
        let series = Int64Chunked::from_iter_options(
            "d".into(),
            [Some(0), Some(20_000 * day), Some(day + 1), None].into_iter(),
        )
        .into_datetime(TimeUnit::Milliseconds, None)
        .into_series();
        let cells = NaiveDate::typed(&series).unwrap_or_default();
        assert_eq!(cells.len(), 4);
        assert_eq!(cells[0], Ok(NaiveDate::from_ymd_opt(1970, 1, 1)));
        assert_eq!(cells[1], Ok(NaiveDate::from_ymd_opt(2024, 10, 4)));
        assert!(cells[2].as_ref().is_err_and(|e| e.contains("time of day")));
        assert_eq!(cells[3], Ok(None));
    }

    #[test]
    fn arrow_day_zero_is_1970_01_01() {
        let series =
            Int32Chunked::from_iter_options("d".into(), [Some(0), Some(20_000)].into_iter())
                .into_date()
                .into_series();
        let cells = NaiveDate::typed(&series).unwrap_or_default();
        assert_eq!(
            cells,
            vec![
                Ok(NaiveDate::from_ymd_opt(1970, 1, 1)),
                Ok(NaiveDate::from_ymd_opt(2024, 10, 4)),
            ]
        );
    }
}
