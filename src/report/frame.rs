//! A small builder for output tables, so that each output lists its columns once, by
//! their contract names, in a fixed order.

use chrono::NaiveDate;
use polars::prelude::*;

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

    /// A `date` column (days since 1970-01-01, Arrow date32).
    pub fn date(mut self, name: &str, values: Vec<Option<NaiveDate>>) -> PolarsResult<Self> {
        let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
        let days: Vec<Option<i32>> = values
            .into_iter()
            .map(|d| d.map(|d| (d - epoch).num_days() as i32))
            .collect();
        let series = Series::new(name.into(), days).cast(&DataType::Date)?;
        self.columns.push(Column::from(series));
        Ok(self)
    }

    pub fn build(self) -> PolarsResult<DataFrame> {
        DataFrame::new(self.height, self.columns)
    }
}
