//! A small builder for output tables, so that each output lists its columns once, by
//! their contract names, in a fixed order.

use chrono::NaiveDate;
use polars::prelude::*;

use crate::dataset::days_from_date;

/// A `date` column (days since 1970-01-01, Arrow date32) from optional dates.
pub fn date_column(name: &str, dates: impl IntoIterator<Item = Option<NaiveDate>>) -> Column {
    let days = dates.into_iter().map(|date| date.map(days_from_date));
    Int32Chunked::from_iter_options(name.into(), days)
        .into_date()
        .into_column()
}

/// Columns of one output table, added in order.
#[derive(Default)]
pub struct FrameBuilder {
    height: usize,
    columns: Vec<Column>,
}

impl FrameBuilder {
    pub fn new(height: usize) -> Self {
        FrameBuilder {
            height,
            columns: Vec::new(),
        }
    }

    /// A column of any type polars builds from a vector (`i64`, `f64`, `Option<f64>`,
    /// `String`, `Option<String>`, `bool`, ...).
    pub fn column<T, P>(mut self, name: &str, values: T) -> Self
    where
        Series: NamedFrom<T, P>,
        P: ?Sized,
    {
        self.columns
            .push(Column::from(Series::new(name.into(), values)));
        self
    }

    /// A column with one value per row of `rows`.
    pub fn map<R, T>(self, name: &str, rows: &[R], value: impl Fn(&R) -> T) -> Self
    where
        Series: NamedFrom<Vec<T>, [T]>,
    {
        self.column(name, rows.iter().map(value).collect::<Vec<T>>())
    }

    /// A `date` column (days since 1970-01-01, Arrow date32).
    pub fn date(mut self, name: &str, values: Vec<Option<NaiveDate>>) -> PolarsResult<Self> {
        self.columns.push(date_column(name, values));
        Ok(self)
    }

    pub fn build(self) -> PolarsResult<DataFrame> {
        DataFrame::new(self.height, self.columns)
    }
}
