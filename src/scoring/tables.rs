//! One table result read from a board row and checked: the seats name entrants of the
//! competition, each at most once, and the score agrees with the contract.

use std::collections::BTreeMap;

use smallvec::SmallVec;

use crate::dataset::{BoardResult, Entrant, Format, Text};
use crate::error::{InputError, Location};

use super::contract::{self, parse_contract, Seat};
use super::matchpoints::SidePoints;
use super::outcome::{parse_adjusted, Outcome};

/// Points and bounds of each table, in table order.
pub(super) struct BoardPoints {
    /// What counts in the totals.
    pub side: SidePoints,
    /// What the traveller shows (unfactored under `Travellers::Unfactored`).
    pub shown: SidePoints,
    /// What the totals add, where the program rounds a factored score before adding it
    /// (`FactoredRounding`); percentages keep `side`.
    pub counted: Option<SidePoints>,
    pub top: f64,
    pub bottom: f64,
    pub datum: Option<f64>,
}

/// The entrants on one side of a table: one (pairs, teams) or two (individual
/// events), borrowed from the board row, so reading a table allocates nothing.
pub(super) type Side<'a> = SmallVec<[&'a str; 2]>;

/// One validated table result.
pub(super) struct Table<'a> {
    pub row: &'a BoardResult,
    pub ns: Side<'a>,
    pub ew: Side<'a>,
    pub outcome: Outcome,
}

impl Table<'_> {
    pub fn location(&self, column: &str) -> Location {
        row_location(self.row, column)
    }
}

fn row_location(row: &BoardResult, column: &str) -> Location {
    let location = row
        .origin
        .location()
        .competition(row.competition_id.as_str())
        .board(row.board);
    if column.is_empty() {
        location
    } else {
        location.column(column)
    }
}

/// The N/S score of a row, checked against its contract when both are given.
fn read_outcome(row: &BoardResult) -> Result<Outcome, InputError> {
    if let Some(code) = row.adjusted.as_deref().filter(|c| !c.trim().is_empty()) {
        return parse_adjusted(code, row.ns_score)
            .map_err(|rule| InputError::new(row_location(row, "adjusted"), rule));
    }
    let Some(text) = row.contract.as_deref().filter(|c| !c.trim().is_empty()) else {
        return row.ns_score.map(Outcome::Score).ok_or_else(|| {
            InputError::new(
                row_location(row, "contract"),
                "the row has no contract, no ns_score and no artificial score",
            )
        });
    };
    let contract = parse_contract(text)
        .map_err(|rule| InputError::new(row_location(row, "contract"), rule))?;
    let computed = match contract {
        None => 0,
        Some(c) => {
            let declarer: Seat = row
                .declarer
                .as_deref()
                .ok_or_else(|| {
                    InputError::new(
                        row_location(row, "declarer"),
                        format!("contract `{text}` has no declarer"),
                    )
                })?
                .parse()
                .map_err(|rule| InputError::new(row_location(row, "declarer"), rule))?;
            let tricks = row.tricks.ok_or_else(|| {
                InputError::new(
                    row_location(row, "tricks"),
                    format!("contract `{text}` has no tricks"),
                )
            })?;
            contract::ns_score(Some(&c), declarer, tricks, row.board)
                .map_err(|rule| InputError::new(row_location(row, "tricks"), rule))?
        }
    };
    match row.ns_score {
        Some(given) if given != computed => Err(InputError::new(
            row_location(row, "ns_score"),
            format!(
                "ns_score {given} does not match contract `{text}` by {} with {} tricks, which scores {computed} for N/S",
                row.declarer.as_deref().unwrap_or("-"),
                row.tricks.map_or("-".to_string(), |t| t.to_string()),
            ),
        )),
        _ => Ok(Outcome::Score(computed)),
    }
}

pub(super) fn read_table<'a>(
    row: &'a BoardResult,
    format: Format,
    known: &BTreeMap<&str, &Entrant>,
) -> Result<Table<'a>, InputError> {
    let individual = [
        ("north", &row.north),
        ("south", &row.south),
        ("east", &row.east),
        ("west", &row.west),
    ];
    let pairs = [("ns", &row.ns), ("ew", &row.ew)];
    let seats: &[(&str, &Option<Text>)] = if format == Format::Individual {
        &individual
    } else {
        &pairs
    };
    let mut names: SmallVec<[&'a str; 4]> = SmallVec::new();
    for &(column, value) in seats {
        let name = value
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| InputError::new(row_location(row, column), "no entrant at this seat"))?;
        if !known.contains_key(name) {
            return Err(InputError::new(
                row_location(row, column),
                format!("unknown entrant `{name}`: not listed in this competition's entrants"),
            ));
        }
        if names.contains(&name) {
            return Err(InputError::new(
                row_location(row, column),
                format!("entrant `{name}` sits twice at this table"),
            ));
        }
        names.push(name);
    }
    for (column, penalty) in [
        ("ns_penalty", row.ns_penalty),
        ("ew_penalty", row.ew_penalty),
    ] {
        if penalty.is_some_and(|p| !p.is_finite()) {
            return Err(InputError::new(
                row_location(row, column),
                "a penalty must be a finite number of points",
            ));
        }
    }
    let (ns, ew) = names.split_at(names.len() / 2);
    Ok(Table {
        row,
        ns: Side::from_slice(ns),
        ew: Side::from_slice(ew),
        outcome: read_outcome(row)?,
    })
}
