//! One typed column of a frame, cell by cell: a typed Parquet column or text (CSV
//! cells, hive partition values) parsed into the contract's type, with the same message
//! either way, naming file, row and column.

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use chrono::NaiveDate;
use polars::prelude::*;

use crate::dataset::date_from_days;
use crate::dataset::{Origin, Text};
use crate::error::{InputError, Location};
use crate::import::validate::{self};

use super::locate::Frame;

/// A column's cells: each one's value, and the rules broken by the few that break one.
/// Kept apart, a board file's cells cost their values' size (8 bytes for a number), not
/// that of a value-or-message each (24 or more), and are read without a branch on it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Cells<T> {
    values: Vec<Option<T>>,
    /// (0-based row, rule), in row order.
    broken: Vec<(usize, String)>,
}

impl<T> Default for Cells<T> {
    fn default() -> Self {
        Cells {
            values: Vec::new(),
            broken: Vec::new(),
        }
    }
}

impl<T> FromIterator<Result<Option<T>, String>> for Cells<T> {
    fn from_iter<I: IntoIterator<Item = Result<Option<T>, String>>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut cells = Cells {
            values: Vec::with_capacity(iter.size_hint().0),
            broken: Vec::new(),
        };
        for (row, cell) in iter.enumerate() {
            match cell {
                Ok(value) => cells.values.push(value),
                Err(rule) => {
                    cells.values.push(None);
                    cells.broken.push((row, rule));
                }
            }
        }
        cells
    }
}

impl<T> Cells<T> {
    /// Every cell null.
    fn nulls(rows: usize) -> Self {
        Cells {
            values: std::iter::repeat_with(|| None).take(rows).collect(),
            broken: Vec::new(),
        }
    }

    /// Values taken from a column that cannot hold a broken cell.
    fn of_values(values: Vec<Option<T>>) -> Self {
        Cells {
            values,
            broken: Vec::new(),
        }
    }

    /// Each cell as a value or the rule it breaks, in row order, moved out.
    fn into_results(self) -> impl Iterator<Item = Result<Option<T>, String>> {
        let mut broken = self.broken.into_iter().peekable();
        self.values
            .into_iter()
            .enumerate()
            .map(
                move |(row, value)| match broken.next_if(|(at, _)| *at == row) {
                    Some((_, rule)) => Err(rule),
                    None => Ok(value),
                },
            )
    }

    /// The rule the cell at `row` breaks, if it breaks one.
    fn rule(&self, row: usize) -> Option<&String> {
        if self.broken.is_empty() {
            return None;
        }
        self.broken
            .binary_search_by_key(&row, |(at, _)| *at)
            .ok()
            .map(|at| &self.broken[at].1)
    }

    /// Each cell as a value or the rule it breaks, in row order.
    #[cfg(test)]
    pub(super) fn to_vec(&self) -> Vec<Result<Option<T>, String>>
    where
        T: Clone,
    {
        (0..self.values.len())
            .map(|row| match self.rule(row) {
                Some(rule) => Err(rule.clone()),
                None => Ok(self.values[row].clone()),
            })
            .collect()
    }
}

/// A contract type: how to take it from a typed Parquet column, and from text.
pub(super) trait CellType: Sized + Clone {
    /// The contract's name for the type, for messages.
    const NAME: &'static str;
    /// The Arrow array a column of the type is read from cell by cell, as the row
    /// asks for it ([`NoArrow`] for a type always taken through [`CellType::typed`]).
    type Arrow;
    /// The column's cells, or `None` when its dtype cannot hold this type.
    fn typed(series: &Series) -> Option<Cells<Self>>;
    /// The column's one Arrow array, when its dtype is one read cell by cell.
    fn arrow(series: &Series) -> Option<Self::Arrow>;
    /// The cell at `row` of an array from [`CellType::arrow`]: the same value, or the
    /// same rule broken, as [`CellType::typed`] gives for it. `Ok(None)` past the end.
    fn arrow_cell(arrow: &Self::Arrow, row: usize) -> Result<Option<Self>, String>;
    fn parse(text: &str) -> Result<Self, String>;
}

/// The Arrow array of a type that is never read cell by cell.
pub(super) enum NoArrow {}

pub(super) type StrArray = <StringType as PolarsDataType>::Array;
type I32Array = <Int32Type as PolarsDataType>::Array;
type I64Array = <Int64Type as PolarsDataType>::Array;
pub(super) type F64Array = <Float64Type as PolarsDataType>::Array;
type BoolArray = <BooleanType as PolarsDataType>::Array;

/// The series' data as one array: a file read a row group at a time comes in several
/// chunks, joined once here (the array's buffers are shared, not copied) so that a
/// cell is found by its row alone.
fn one_chunk<T: PolarsDataType>(
    series: &Series,
    typed: impl Fn(&Series) -> PolarsResult<&ChunkedArray<T>>,
) -> Option<T::Array>
where
    T::Array: Clone,
{
    let joined;
    let series = if series.n_chunks() == 1 {
        series
    } else {
        joined = series.rechunk();
        &joined
    };
    typed(series).ok()?.downcast_get(0).cloned()
}

/// Whole numbers read cell by cell: int32 as the files hold them, int64 as well.
#[derive(Clone)]
pub(super) enum Ints {
    I32(I32Array),
    I64(I64Array),
}

impl Ints {
    fn of(series: &Series) -> Option<Ints> {
        match series.dtype() {
            DataType::Int32 => one_chunk(series, Series::i32).map(Ints::I32),
            DataType::Int64 => one_chunk(series, Series::i64).map(Ints::I64),
            _ => None,
        }
    }

    #[inline]
    pub(super) fn get(&self, row: usize) -> Option<i64> {
        match self {
            Ints::I32(array) => primitive_i32(array, row).map(i64::from),
            Ints::I64(array) => primitive_i64(array, row),
        }
    }
}

macro_rules! primitive_cell {
    ($name:ident, $array:ty, $native:ty) => {
        /// The value at `row`, or `None` for a null or a row past the end.
        #[inline]
        pub(super) fn $name(array: &$array, row: usize) -> Option<$native> {
            let value = *array.values().get(row)?;
            match array.validity() {
                Some(valid) if !valid.get_bit(row) => None,
                _ => Some(value),
            }
        }
    };
}
primitive_cell!(primitive_i32, I32Array, i32);
primitive_cell!(primitive_i64, I64Array, i64);
primitive_cell!(primitive_f64, F64Array, f64);

/// Clears `kept[row]` for each row whose value in `array` is not null and fails
/// `keeps`: a column's rule checked in one pass over its values, rather than a cell at
/// a time. Rows past the array's end are left alone.
fn mark_primitive<T: polars_arrow::types::NativeType>(
    array: &polars_arrow::array::PrimitiveArray<T>,
    kept: &mut [bool],
    keeps: impl Fn(T) -> bool,
) {
    let values = array.values().as_slice();
    match array.validity().filter(|valid| valid.unset_bits() > 0) {
        None => {
            for (kept, &value) in kept.iter_mut().zip(values) {
                *kept &= keeps(value);
            }
        }
        Some(valid) => {
            for ((kept, &value), valid) in kept.iter_mut().zip(values).zip(valid.iter()) {
                *kept &= !valid || keeps(value);
            }
        }
    }
}

impl Ints {
    /// Clears `kept[row]` for each row whose value is not null and lies outside
    /// `low..=high`.
    pub(super) fn mark_outside(&self, low: i64, high: i64, kept: &mut [bool]) {
        match self {
            Ints::I32(array) => {
                mark_primitive(array, kept, |v| (low..=high).contains(&i64::from(v)))
            }
            Ints::I64(array) => mark_primitive(array, kept, |v| (low..=high).contains(&v)),
        }
    }

    /// Whether the cell at `row` holds a value.
    #[inline]
    pub(super) fn is_valid(&self, row: usize) -> bool {
        match self {
            Ints::I32(array) => cell_valid(array, row),
            Ints::I64(array) => cell_valid(array, row),
        }
    }
}

/// Whether the cell at `row` of `array` holds a value; `false` past its end.
#[inline]
fn cell_valid(array: &dyn polars_arrow::array::Array, row: usize) -> bool {
    row < array.len() && array.is_valid(row)
}

/// Clears `kept[row]` for each row whose float in `array` is not null and is not a
/// finite number within `-bound..=bound`.
pub(super) fn mark_floats_beyond(array: &F64Array, bound: f64, kept: &mut [bool]) {
    // `abs() <= bound` is false for NaN and the infinities too.
    mark_primitive(array, kept, |v| v.abs() <= bound);
}

/// Whether the text cell at `row` holds a value (an empty text is one).
#[inline]
pub(super) fn text_valid(array: &StrArray, row: usize) -> bool {
    cell_valid(array, row)
}

/// The text at `row`, or `None` for a null or a row past the end.
#[inline]
pub(super) fn text_cell(array: &StrArray, row: usize) -> Option<&str> {
    if row < array.len() {
        array.get(row)
    } else {
        None
    }
}

pub(super) fn collect<T, I, F>(iter: I, convert: F) -> Cells<T>
where
    I: Iterator,
    F: Fn(I::Item) -> Result<Option<T>, String>,
{
    iter.map(convert).collect()
}

impl CellType for i64 {
    const NAME: &'static str = "int64";
    type Arrow = Ints;
    fn arrow(series: &Series) -> Option<Ints> {
        Ints::of(series)
    }
    fn arrow_cell(arrow: &Ints, row: usize) -> Result<Option<Self>, String> {
        Ok(arrow.get(row))
    }
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
            .map_err(|_| format!("`{}` is not a whole number", shown(text)))
    }
}

impl CellType for i32 {
    const NAME: &'static str = "int32";
    type Arrow = Ints;
    fn arrow(series: &Series) -> Option<Ints> {
        Ints::of(series)
    }
    fn arrow_cell(arrow: &Ints, row: usize) -> Result<Option<Self>, String> {
        match arrow {
            Ints::I32(array) => Ok(primitive_i32(array, row)),
            Ints::I64(array) => primitive_i64(array, row).map(narrow_i32).transpose(),
        }
    }
    fn typed(series: &Series) -> Option<Cells<Self>> {
        match series.dtype() {
            // Every value fits: taken as they are, without going through int64.
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::UInt8
            | DataType::UInt16 => {
                let cast = series.cast(&DataType::Int32).ok()?;
                Some(Cells::of_values(cast.i32().ok()?.iter().collect()))
            }
            _ => {
                let wide = i64::typed(series)?;
                Some(
                    wide.into_results()
                        .map(|cell| cell.and_then(|value| value.map(narrow_i32).transpose()))
                        .collect(),
                )
            }
        }
    }
    fn parse(text: &str) -> Result<Self, String> {
        narrow_i32(i64::parse(text)?)
    }
}

pub(super) fn narrow_i32(value: i64) -> Result<i32, String> {
    i32::try_from(value).map_err(|_| format!("{value} does not fit in int32"))
}

impl CellType for f64 {
    const NAME: &'static str = "float64";
    type Arrow = F64Array;
    fn arrow(series: &Series) -> Option<F64Array> {
        match series.dtype() {
            DataType::Float64 => one_chunk(series, Series::f64),
            _ => None,
        }
    }
    fn arrow_cell(arrow: &F64Array, row: usize) -> Result<Option<Self>, String> {
        primitive_f64(arrow, row).map(validate::finite).transpose()
    }
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
            .map_err(|_| format!("`{}` is not a number", shown(text)))?;
        validate::finite(value)
    }
}

impl CellType for bool {
    const NAME: &'static str = "bool";
    type Arrow = BoolArray;
    fn arrow(series: &Series) -> Option<BoolArray> {
        match series.dtype() {
            DataType::Boolean => one_chunk(series, Series::bool),
            _ => None,
        }
    }
    fn arrow_cell(arrow: &BoolArray, row: usize) -> Result<Option<Self>, String> {
        Ok(if row < arrow.len() {
            arrow.get(row)
        } else {
            None
        })
    }
    fn typed(series: &Series) -> Option<Cells<Self>> {
        Some(collect(series.bool().ok()?.iter(), Ok))
    }
    fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(format!(
                "`{}` is not a boolean (expected true or false)",
                shown(text)
            )),
        }
    }
}

impl CellType for NaiveDate {
    const NAME: &'static str = "date";
    type Arrow = NoArrow;
    fn arrow(_: &Series) -> Option<NoArrow> {
        None
    }
    fn arrow_cell(arrow: &NoArrow, _: usize) -> Result<Option<Self>, String> {
        match *arrow {}
    }
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
            .map_err(|_| format!("unparseable date `{}` (expected YYYY-MM-DD)", shown(text)))
    }
}

impl CellType for String {
    const NAME: &'static str = "string";
    type Arrow = StrArray;
    fn arrow(series: &Series) -> Option<StrArray> {
        match series.dtype() {
            DataType::String => one_chunk(series, Series::str),
            _ => None,
        }
    }
    fn arrow_cell(arrow: &StrArray, row: usize) -> Result<Option<Self>, String> {
        Ok(text_cell(arrow, row).map(str::to_owned))
    }
    fn typed(series: &Series) -> Option<Cells<Self>> {
        Some(collect(series.str().ok()?.iter(), |value| {
            Ok(value.map(str::to_owned))
        }))
    }
    fn parse(text: &str) -> Result<Self, String> {
        Ok(text.to_owned())
    }
}

/// Board rows' text cells, inline up to 24 bytes (no allocation per cell).
impl CellType for Text {
    const NAME: &'static str = "string";
    type Arrow = StrArray;
    fn arrow(series: &Series) -> Option<StrArray> {
        String::arrow(series)
    }
    #[inline]
    fn arrow_cell(arrow: &StrArray, row: usize) -> Result<Option<Self>, String> {
        Ok(text_cell(arrow, row).map(Text::from))
    }
    fn typed(series: &Series) -> Option<Cells<Self>> {
        Some(collect(series.str().ok()?.iter(), |value| {
            Ok(value.map(Text::from))
        }))
    }
    fn parse(text: &str) -> Result<Self, String> {
        Ok(Text::from(text))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Presence {
    Required,
    Optional,
}

/// Where a column's values are: taken out of the frame whole (text parsed, a dtype
/// widened), or left in the frame's Arrow array and read as each row asks. The second
/// is how board, entrant and result files are read: no copy of a column is made, and
/// a text cell becomes a value (inline up to 24 bytes for [`Text`]) once, in its row.
pub(super) enum Source<T: CellType> {
    Cells(Cells<T>),
    Arrow(T::Arrow),
}

/// One column of a frame, typed; an absent optional column reads as all nulls.
pub(super) struct Col<T: CellType> {
    pub(super) path: Arc<Path>,
    pub(super) name: &'static str,
    pub(super) cells: Option<Source<T>>,
    /// The file's row of the frame's first (see [`Frame::first_row`]).
    pub(super) first_row: usize,
}

impl<T: CellType> Col<T> {
    pub(super) fn location(&self, row: usize) -> Location {
        Location::file(self.path.to_path_buf())
            .row(self.first_row + row + 1)
            .column(self.name)
    }

    /// The value at 0-based `row`, or `None` for a null or absent column. Each row is
    /// read once, so the value is moved out rather than copied.
    #[inline]
    pub(super) fn get(&mut self, row: usize) -> Result<Option<T>, InputError> {
        let cells = match self.cells.as_mut() {
            None => return Ok(None),
            Some(Source::Arrow(arrow)) => {
                return T::arrow_cell(arrow, row)
                    .map_err(|rule| InputError::new(self.location(row), rule));
            }
            Some(Source::Cells(cells)) => cells,
        };
        if let Some(rule) = cells.rule(row) {
            let rule = rule.clone();
            return Err(InputError::new(self.location(row), rule));
        }
        Ok(cells.values.get_mut(row).and_then(Option::take))
    }

    /// The value at 0-based `row`, which must not be null.
    pub(super) fn required(&mut self, row: usize) -> Result<T, InputError> {
        self.get(row)?.ok_or_else(|| {
            InputError::new(
                self.location(row),
                format!("`{}` is required but the cell is empty", self.name),
            )
        })
    }

    /// The column's Arrow array, to be read outside [`Col::get`] by a caller that
    /// resolves its columns once per frame: `Some(None)` for an absent column, `None`
    /// when its cells were taken out of the frame (text parsed, a dtype widened).
    pub(super) fn arrow_array(&self) -> Option<Option<T::Arrow>>
    where
        T::Arrow: Clone,
    {
        match &self.cells {
            None => Some(None),
            Some(Source::Arrow(arrow)) => Some(Some(arrow.clone())),
            Some(Source::Cells(_)) => None,
        }
    }

    /// Names this column's cell at `row` in a rule broken by its value.
    pub(super) fn check<U>(&self, row: usize, checked: Result<U, String>) -> Result<U, InputError> {
        checked.map_err(|rule| InputError::new(self.location(row), rule))
    }
}

impl Col<i32> {
    /// A count (board number, boards played, round, table), which cannot be negative.
    pub(super) fn count(&mut self, row: usize) -> Result<Option<u32>, InputError> {
        let value = self.get(row)?;
        self.check(
            row,
            value
                .map(|v| validate::non_negative(self.name, i64::from(v)))
                .transpose(),
        )
    }

    pub(super) fn required_count(&mut self, row: usize) -> Result<u32, InputError> {
        let value = self.required(row)?;
        self.check(row, validate::non_negative(self.name, i64::from(value)))
    }
}

impl Col<Text> {
    /// The text at `row`, borrowed, given to `read`; `None` for a null, absent or
    /// broken cell.
    pub(super) fn peek<R>(&self, row: usize, read: impl FnOnce(&str) -> R) -> Option<R> {
        match self.cells.as_ref()? {
            Source::Arrow(arrow) => text_cell(arrow, row).map(read),
            Source::Cells(cells) => {
                if cells.rule(row).is_some() {
                    return None;
                }
                cells.values.get(row)?.as_deref().map(read)
            }
        }
    }
}

impl Col<String> {
    /// The value at `row` parsed as one of the contract's names (`pairs`, `NS`, ...).
    /// A typed text column's cell is parsed where it lies, not copied first: a
    /// federation's competitions name a dozen conventions a row, its entrants a
    /// direction.
    pub(super) fn parsed<E: FromStr<Err = String>>(
        &mut self,
        row: usize,
    ) -> Result<Option<E>, InputError> {
        if let Some(Source::Arrow(arrow)) = &self.cells {
            let parsed = text_cell(arrow, row).map(str::parse).transpose();
            return self.check(row, parsed);
        }
        let value = self.get(row)?;
        self.check(row, value.map(|text| text.parse()).transpose())
    }

    pub(super) fn required_parsed<E: FromStr<Err = String>>(
        &mut self,
        row: usize,
    ) -> Result<E, InputError> {
        if let Some(Source::Arrow(arrow)) = &self.cells {
            if let Some(text) = text_cell(arrow, row) {
                return self.check(row, text.parse());
            }
        }
        let value = self.required(row)?;
        self.check(row, value.parse())
    }
}

impl Frame {
    pub(super) fn height(&self) -> usize {
        self.df.height()
    }

    pub(super) fn origin(&self, row: usize) -> Origin {
        Origin::new(&self.path, self.first_row + row + 1)
    }

    /// The optional `source_file` and `source_line` columns of an imported dataset.
    pub(super) fn sources(&self) -> Result<Sources, InputError> {
        Ok(Sources {
            file: self.col::<String>("source_file", Presence::Optional)?,
            line: self.col::<i64>("source_line", Presence::Optional)?,
        })
    }

    pub(super) fn col<T: CellType>(
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
                    first_row: self.first_row,
                }),
                Presence::Required => Err(InputError::new(
                    location(),
                    format!("the required column `{name}` is missing"),
                )),
            };
        };
        let series = column.as_materialized_series();
        let text = self.text_columns.contains(name) && series.dtype() == &DataType::String;
        let arrow = if text { None } else { T::arrow(series) };
        let cells = if let Some(arrow) = arrow {
            // An optional column without a value (the seats of a pairs event, the
            // penalties) reads as absent: every cell is empty either way.
            if presence == Presence::Optional && series.null_count() == series.len() {
                return Ok(Col {
                    path: Arc::clone(&self.path),
                    name,
                    cells: None,
                    first_row: self.first_row,
                });
            }
            Some(Source::Arrow(arrow))
        } else if series.dtype() == &DataType::Null {
            Some(Source::Cells(Cells::nulls(series.len())))
        } else if text {
            series.str().ok().map(|texts| {
                Source::Cells(collect(texts.iter(), |text| match text {
                    None => Ok(None),
                    Some(t) if t.trim().is_empty() => Ok(None),
                    Some(t) => T::parse(t).map(Some),
                }))
            })
        } else {
            T::typed(series).map(Source::Cells)
        };
        match cells {
            Some(cells) => Ok(Col {
                path: Arc::clone(&self.path),
                name,
                cells: Some(cells),
                first_row: self.first_row,
            }),
            None => Err(InputError::new(
                location(),
                format!(
                    "column `{name}` holds {}, but it must hold one {} per row; write it as a plain column of that type",
                    plain_type(series.dtype()),
                    T::NAME
                ),
            )),
        }
    }
}

/// A column type as a reader of the message knows it, not as polars prints it.
fn plain_type(dtype: &DataType) -> String {
    match dtype {
        DataType::List(_) => "a list of values in each cell".to_string(),
        DataType::String => "text".to_string(),
        DataType::Boolean => "true/false values".to_string(),
        DataType::Date => "dates".to_string(),
        DataType::Datetime(_, _) => "timestamps".to_string(),
        d if d.is_integer() => format!("whole numbers ({d})"),
        d if d.is_float() => format!("decimal numbers ({d})"),
        // Without polars' struct support a struct column has no variant of its own.
        d if d.to_string().starts_with("struct") => {
            "a group of fields in each cell (a struct)".to_string()
        }
        d => format!("values of type {d}"),
    }
}

/// Where an imported row came from: a row with a `source_file` is named by that file
/// and line in errors (and written back with them), not by its Parquet row.
pub(super) struct Sources {
    pub(super) file: Col<String>,
    pub(super) line: Col<i64>,
}

impl Sources {
    pub(super) fn origin(&mut self, frame: &Frame, row: usize) -> Result<Origin, InputError> {
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

/// A cell as an error message quotes it: whole when short, else its first 40 characters
/// and its length, so that a 10 MB cell does not become a 10 MB message.
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => std::borrow::Cow::Owned(format!(
            "{}… ({} characters)",
            &text[..end],
            text.chars().count()
        )),
    }
}

#[cfg(test)]
mod shown_tests {
    #[test]
    fn a_long_cell_is_cut_in_messages() {
        assert_eq!(super::shown("12x"), "12x");
        let long = "9".repeat(100);
        assert_eq!(
            super::shown(&long),
            format!("{}… (100 characters)", "9".repeat(40))
        );
    }
}

#[cfg(test)]
mod arrow_tests {
    use std::collections::HashSet;
    use std::path::Path;
    use std::sync::Arc;

    use polars::prelude::*;

    use super::Presence::{Optional, Required};
    use super::{Col, Source};
    use crate::dataset::Text;
    use crate::store::table::locate::Frame;

    /// A frame of `columns` as a Parquet file gives them, its first row the file's
    /// row `first_row` (0-based).
    fn frame_of(columns: Vec<Column>, first_row: usize) -> Frame {
        let height = columns.first().map_or(0, Column::len);
        let df = DataFrame::new(height, columns).unwrap_or_default();
        Frame {
            path: Arc::from(Path::new("boards.parquet")),
            df,
            text_columns: HashSet::new(),
            first_row,
        }
    }

    fn is_arrow<T: super::CellType>(col: &Col<T>) -> bool {
        matches!(col.cells, Some(Source::Arrow(_)))
    }

    /// A part of a frame reads the cells of its own rows, and names them by their
    /// file's row: here the file's rows 11 to 14 (1-based), of which the part holds
    /// 13 and 14; an empty optional cell there is empty, a parsed one parsed.
    #[test]
    fn a_part_of_a_frame_reads_its_rows_and_names_the_files_rows() {
        let frame = frame_of(
            vec![
                Column::new("board".into(), [Some(1_i32), Some(2), None, Some(4)]),
                Column::new(
                    "direction".into(),
                    [Some("NS"), None, Some("EW"), Some("XY")],
                ),
            ],
            10,
        );
        let part = frame.rows(2..4);
        assert_eq!(part.height(), 2);
        let mut board = part
            .col::<i32>("board", Required)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut direction = part
            .col::<String>("direction", Optional)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(board.get(1).map_err(|e| e.to_string()), Ok(Some(4)));
        assert_eq!(
            board.required(0).map_err(|e| e.to_string()),
            Err(
                "boards.parquet, row 13, column `board`: `board` is required but the cell is empty"
                    .to_owned()
            )
        );
        assert_eq!(
            direction
                .parsed::<crate::dataset::Direction>(0)
                .map_err(|e| e.to_string()),
            Ok(Some(crate::dataset::Direction::EW))
        );
        let broken = direction
            .parsed::<crate::dataset::Direction>(1)
            .map_err(|e| e.location.row);
        assert_eq!(broken, Err(Some(14)));
    }

    #[test]
    fn typed_columns_are_read_from_their_arrays_cell_by_cell() {
        let long = "a pair name longer than twenty-four bytes";
        let frame = frame_of(
            vec![
                Column::new("board".into(), [Some(1_i32), None, Some(3)]),
                Column::new("tricks".into(), [Some(9_i64), Some(13), None]),
                Column::new("ns".into(), [Some("12"), None, Some(long)]),
                Column::new("rated".into(), [None, Some(true), Some(false)]),
                Column::new("score".into(), [Some(54.5_f64), None, Some(-1.25)]),
            ],
            0,
        );
        let mut board = frame
            .col::<i32>("board", Required)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut tricks = frame
            .col::<i64>("tricks", Optional)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut ns = frame
            .col::<Text>("ns", Optional)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut names = frame
            .col::<String>("ns", Optional)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut rated = frame
            .col::<bool>("rated", Optional)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut score = frame
            .col::<f64>("score", Optional)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(is_arrow(&board) && is_arrow(&tricks) && is_arrow(&ns));
        assert!(is_arrow(&names) && is_arrow(&rated) && is_arrow(&score));
        let cells: Vec<_> = (0..3)
            .map(|row| {
                (
                    board.get(row).ok().flatten(),
                    tricks.get(row).ok().flatten(),
                    ns.get(row).ok().flatten(),
                    names.get(row).ok().flatten(),
                    rated.get(row).ok().flatten(),
                    score.get(row).ok().flatten(),
                )
            })
            .collect();
        assert_eq!(
            cells,
            vec![
                (
                    Some(1),
                    Some(9),
                    Some(Text::from("12")),
                    Some("12".to_owned()),
                    None,
                    Some(54.5)
                ),
                (None, Some(13), None, None, Some(true), None),
                (
                    Some(3),
                    None,
                    Some(Text::from(long)),
                    Some(long.to_owned()),
                    Some(false),
                    Some(-1.25)
                ),
            ]
        );
        // An optional column with no value at all reads as an absent one.
        let empty = Column::new("room".into(), [None::<&str>, None, None]);
        let with_empty = frame_of(vec![empty], 0);
        let mut room = with_empty
            .col::<Text>("room", Optional)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(room.cells.is_none());
        assert_eq!(room.get(1).ok().flatten(), None);
        // A row past the frame's end reads as empty, never as a panic.
        assert_eq!(board.get(3).ok().flatten(), None);
        assert_eq!(ns.get(7).ok().flatten(), None);
    }

    #[test]
    fn a_broken_cell_names_the_files_row_and_column_as_before() {
        // Rows 101 to 103 of the file: the frame starts at its 0-based row 100.
        let frame = frame_of(
            vec![
                Column::new(
                    "ns_score".into(),
                    [Some(420_i64), Some(3_000_000_000), None],
                ),
                Column::new("ns_penalty".into(), [Some(0.5_f64), Some(f64::NAN), None]),
                Column::new("board".into(), [Some(-2_i32), Some(4), None]),
            ],
            100,
        );
        let mut ns_score = frame
            .col::<i32>("ns_score", Optional)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(is_arrow(&ns_score));
        assert_eq!(ns_score.get(0).ok().flatten(), Some(420));
        let wide = ns_score.get(1).err().unwrap_or_else(|| panic!("no error"));
        assert_eq!(wide.location.row, Some(102));
        assert_eq!(wide.location.column.as_deref(), Some("ns_score"));
        assert_eq!(wide.rule, "3000000000 does not fit in int32");
        let mut penalty = frame
            .col::<f64>("ns_penalty", Optional)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(penalty.get(0).ok().flatten(), Some(0.5));
        let nan = penalty.get(1).err().unwrap_or_else(|| panic!("no error"));
        assert_eq!(
            (nan.location.row, nan.location.column.as_deref()),
            (Some(102), Some("ns_penalty"))
        );
        let mut board = frame
            .col::<i32>("board", Required)
            .unwrap_or_else(|e| panic!("{e}"));
        let negative = board
            .required_count(0)
            .err()
            .unwrap_or_else(|| panic!("no error"));
        assert_eq!(negative.location.row, Some(101));
        let empty = board
            .required(2)
            .err()
            .unwrap_or_else(|| panic!("no error"));
        assert_eq!(empty.location.row, Some(103));
        assert_eq!(empty.rule, "`board` is required but the cell is empty");
    }

    #[test]
    fn a_column_in_several_chunks_is_read_by_the_files_row() {
        // A file read a row group at a time gives each group's rows as a chunk.
        let mut first = Series::new("competition_id".into(), ["c1", "c1"]);
        let second = Series::new("competition_id".into(), [Some("c2"), None, Some("c3")]);
        first.append(&second).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.n_chunks(), 2);
        let frame = frame_of(vec![first.into()], 0);
        let ids = frame
            .col::<Text>("competition_id", Required)
            .unwrap_or_else(|e| panic!("{e}"));
        let read: Vec<Option<String>> = (0..5).map(|row| ids.peek(row, str::to_owned)).collect();
        assert_eq!(
            read,
            vec![
                Some("c1".to_owned()),
                Some("c1".to_owned()),
                Some("c2".to_owned()),
                None,
                Some("c3".to_owned()),
            ]
        );
    }
}

/// A column whose every cell may be null (by its validity, when it has one).
pub(super) trait AllNull {
    fn all_null(&self) -> bool;
}

impl AllNull for polars_arrow::array::Utf8ViewArray {
    fn all_null(&self) -> bool {
        polars_arrow::array::Array::null_count(self) == self.len()
    }
}

impl AllNull for polars_arrow::array::PrimitiveArray<f64> {
    fn all_null(&self) -> bool {
        polars_arrow::array::Array::null_count(self) == self.len()
    }
}

impl AllNull for Ints {
    fn all_null(&self) -> bool {
        match self {
            Ints::I32(array) => polars_arrow::array::Array::null_count(array) == array.len(),
            Ints::I64(array) => polars_arrow::array::Array::null_count(array) == array.len(),
        }
    }
}
