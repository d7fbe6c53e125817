//! The expected result `r̂` of each format, from the handicaps in the field.
//!
//! One module per row of the model's table of formats (docs/model.md), because the formats differ exactly here: who
//! the result is compared against (the other entrants, a datum that contains the entrant,
//! the team at the table, or the table plus both directions of a field). Every function
//! takes handicaps that are already settled (guests included) and returns, per entrant,
//! the expected result and the field handicap it was compared against.

pub mod individual;
pub mod pairs;
pub mod pairs_datum;
pub mod team_match;
pub mod team_pair_across;

use crate::model::error::ModelError;

/// An entrant's expected result and what it was compared against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expectation {
    /// The handicap of the field as this format sees it (see each module).
    pub field: f64,
    /// `r̂`, in the result unit of the calculation method.
    pub expected: f64,
}

/// Each entrant's expectation against the field `field_of` gives it from its own
/// handicap `h`: `r̂ = (field − h)/divisor`, in input order. Needs two entrants.
fn against_field(
    handicaps: &[f64],
    divisor: f64,
    field_of: impl Fn(f64) -> f64,
) -> Result<Vec<Expectation>, ModelError> {
    if handicaps.len() < 2 {
        return Err(ModelError::TooFewEntrants {
            found: handicaps.len(),
        });
    }
    Ok(handicaps
        .iter()
        .map(|&h| {
            let field = field_of(h);
            Expectation {
                field,
                expected: (field - h) / divisor,
            }
        })
        .collect())
}

/// The mean of all values but the one at `own`: `(Σ − h_own)/(P − 1)`.
/// Needs at least two values; the callers check.
fn mean_of_others(total: f64, count: usize, own: f64) -> f64 {
    (total - own) / (count as f64 - 1.0)
}

/// Asserts that `got` holds the (field, expected result) pairs `want`, in order.
#[cfg(test)]
fn assert_expectations(got: Result<Vec<Expectation>, ModelError>, want: &[(f64, f64)]) {
    let got = got.unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(got.len(), want.len());
    for (got, &(field, r)) in got.iter().zip(want) {
        assert!((got.field - field).abs() < 1e-12, "{got:?} vs {field}");
        assert!((got.expected - r).abs() < 1e-12, "{got:?} vs {r}");
    }
}
