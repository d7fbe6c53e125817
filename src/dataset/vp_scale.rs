//! A four- or five-pair event's victory-point scale (`competitions.vp_scale`).
//!
//! The four-and-five-pairs sheets convert each round's IMPs by "the table at the bottom
//! of the scoresheet", which their description does not reprint: the scale is data, read from a file the competition
//! names, and kept with the competition so that scoring needs no files.

use std::path::Path;
use std::sync::Arc;

use crate::error::{InputError, Location};

/// The `vp_scale` of a competition: the name its row gives, and the scale once read
/// (the dataset reader reads it from the dataset folder or `data/vp/`).
#[derive(Debug, Clone, PartialEq)]
pub struct VpScaleRef {
    pub name: String,
    pub table: Option<Arc<RoundScale>>,
}

impl VpScaleRef {
    /// A scale named but not yet read.
    pub fn named(name: impl Into<String>) -> VpScaleRef {
        VpScaleRef {
            name: name.into(),
            table: None,
        }
    }
}

/// A four- or five-pair event's victory-point scale: for each IMP margin from 0 up, the
/// VPs of the pairs with the IMPs (`winner`) and of the others (`loser`); a margin
/// beyond the last row takes the last row. Unlike a match scale the two need not add to
/// a fixed total (the four-and-five-pairs sheets: 3 IMPs give 10 and 4).
#[derive(Debug, Clone, PartialEq)]
pub struct RoundScale {
    rows: Vec<(f64, f64)>,
}

impl RoundScale {
    /// The scale from its rows, `(winner, loser)` for margin 0, 1, 2, ...
    pub fn new(rows: Vec<(f64, f64)>) -> Result<RoundScale, String> {
        if rows.is_empty() {
            return Err("a VP scale needs at least the row for margin 0".to_string());
        }
        for (margin, &(winner, loser)) in rows.iter().enumerate() {
            if !(winner.is_finite() && loser.is_finite() && loser >= 0.0 && winner >= loser) {
                return Err(format!(
                    "margin {margin}: the winner's VPs ({winner}) must be finite and at least the loser's ({loser}), which must not be negative"
                ));
            }
        }
        Ok(RoundScale { rows })
    }

    /// The rows, `(winner, loser)` for margin 0, 1, 2, ...
    pub fn rows(&self) -> &[(f64, f64)] {
        &self.rows
    }

    /// The VPs of the side with the IMPs and of the other side for an IMP `margin`. A
    /// flat subround (margin 0) gives both sides the mean of the first row.
    ///
    /// ```
    /// use bridgehcp::dataset::vp_scale::RoundScale;
    /// let scale = RoundScale::new(vec![(7.0, 7.0), (8.0, 6.0), (9.0, 5.0), (10.0, 4.0)]).unwrap();
    /// assert_eq!(scale.vp(3), (10.0, 4.0));
    /// assert_eq!(scale.vp(40), (10.0, 4.0));
    /// assert_eq!(scale.vp(0), (7.0, 7.0));
    /// ```
    pub fn vp(&self, margin: u32) -> (f64, f64) {
        let at = (margin as usize).min(self.rows.len().saturating_sub(1));
        let (winner, loser) = self.rows.get(at).copied().unwrap_or((0.0, 0.0));
        if margin == 0 {
            let mean = (winner + loser) / 2.0;
            (mean, mean)
        } else {
            (winner, loser)
        }
    }

    /// Parses a scale file: `#` comments, the header `imps,winner,loser`, then one row
    /// per margin from 0 up, none skipped. Errors name `file`, the row and the column.
    pub fn parse(file: &Path, text: &str) -> Result<RoundScale, InputError> {
        let mut rows: Vec<(f64, f64)> = Vec::new();
        let mut header = false;
        for (index, line) in text.lines().enumerate() {
            let here = |column: &str| Location::file(file).row(index + 1).column(column);
            let line = line.trim().trim_start_matches('\u{feff}');
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if !header {
                if fields != ["imps", "winner", "loser"] {
                    return Err(InputError::new(
                        Location::file(file).row(index + 1),
                        "expected the header `imps,winner,loser`",
                    ));
                }
                header = true;
                continue;
            }
            let [imps, winner, loser] = fields[..] else {
                return Err(InputError::new(
                    Location::file(file).row(index + 1),
                    format!(
                        "expected 3 fields (imps,winner,loser), found {}",
                        fields.len()
                    ),
                ));
            };
            if imps.parse::<usize>().ok() != Some(rows.len()) {
                return Err(InputError::new(
                    here("imps"),
                    format!(
                        "`{imps}`: the rows give every IMP margin from 0 up, so this one is {}",
                        rows.len()
                    ),
                ));
            }
            let number = |text: &str, column: &str| {
                text.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        InputError::new(here(column), format!("`{text}` is not a number of VPs"))
                    })
            };
            rows.push((number(winner, "winner")?, number(loser, "loser")?));
        }
        let at = rows.len();
        RoundScale::new(rows)
            .map_err(|rule| InputError::new(Location::file(file).row(at.max(1)), rule))
    }
}
