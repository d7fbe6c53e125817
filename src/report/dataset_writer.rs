//! Writing a [`Dataset`] back out as the data contract's five tables.
//!
//! The importers (PBN, USEBIO) produce datasets that analysts and other tools read with
//! their own Parquet readers, so the column names and types here are exactly the
//! contract's: ids int64, counts int32, dates as Date, plus the scoring conventions of
//! each competition as string columns so that a written dataset scores the same when
//! read back. Reading the files with [`crate::import::table::read_dataset`] gives the
//! same dataset (apart from each row's origin).

use std::path::Path;

use chrono::NaiveDate;
use polars::prelude::*;

use crate::dataset::{Dataset, Origin};
use crate::error::{Error, InputError, Location};
use crate::import::table::TABLES;
use crate::report::files::{write_parquet, write_staged};

/// The five tables as frames, in contract order, named as the contract names them.
pub fn dataset_frames(dataset: &Dataset) -> Result<Vec<(&'static str, DataFrame)>, Error> {
    Ok(vec![
        ("members", members_frame(dataset)?),
        ("competitions", competitions_frame(dataset)?),
        ("entrants", entrants_frame(dataset)?),
        ("results", results_frame(dataset)?),
        ("boards", boards_frame(dataset)?),
    ])
}

/// Writes `dataset` to `dir` as `members.parquet` … `boards.parquet`, all or nothing.
///
/// Refuses when `dir` already holds a table in another form (`NAME.csv` or a folder
/// `NAME/`), which would make the folder ambiguous to read.
pub fn write_dataset(dataset: &Dataset, dir: &Path) -> Result<(), Error> {
    for name in TABLES {
        for other in [dir.join(format!("{name}.csv")), dir.join(name)] {
            if other.exists() {
                return Err(InputError::new(
                    Location::file(&other),
                    format!("cannot write `{name}.parquet` beside another form of table `{name}`"),
                )
                .into());
            }
        }
    }
    let frames = dataset_frames(dataset)?;
    write_staged(dir, |stage| {
        frames.iter().try_for_each(|(name, frame)| {
            write_parquet(frame, &stage.path(&format!("{name}.parquet")))
        })
    })
    .map(|_| ())
}

fn frame(columns: Vec<Column>, table: &str) -> Result<DataFrame, Error> {
    DataFrame::new_infer_height(columns).map_err(|e| Error::polars(table, e))
}

fn strings<'a>(name: &str, values: impl Iterator<Item = Option<&'a str>>) -> Column {
    Column::new(name.into(), values.collect::<Vec<_>>())
}

/// A count stored as int32; a value beyond int32 is an error at the row it came from.
fn int32<'a>(
    name: &str,
    values: impl Iterator<Item = (Option<u32>, &'a Origin)>,
) -> Result<Column, Error> {
    let mut out = Vec::new();
    for (value, origin) in values {
        let narrowed = value
            .map(|v| {
                i32::try_from(v).map_err(|_| {
                    InputError::new(
                        origin.location().column(name),
                        format!("{v} does not fit in int32"),
                    )
                })
            })
            .transpose()?;
        out.push(narrowed);
    }
    Ok(Column::new(name.into(), out))
}

fn date_column(name: &str, dates: impl Iterator<Item = NaiveDate>) -> Column {
    super::frame::date_column(name, dates.map(Some))
}

fn members_frame(dataset: &Dataset) -> Result<DataFrame, Error> {
    let rows = &dataset.members;
    frame(
        vec![
            Column::new(
                "member_id".into(),
                rows.iter().map(|m| m.member_id).collect::<Vec<_>>(),
            ),
            strings("name", rows.iter().map(|m| m.name.as_deref())),
            strings("club", rows.iter().map(|m| m.club.as_deref())),
            strings("district", rows.iter().map(|m| m.district.as_deref())),
            Column::new(
                "masterpoints".into(),
                rows.iter().map(|m| m.masterpoints).collect::<Vec<_>>(),
            ),
            Column::new(
                "start_handicap".into(),
                rows.iter().map(|m| m.start_handicap).collect::<Vec<_>>(),
            ),
            Column::new(
                "kind".into(),
                rows.iter().map(|m| m.kind.to_string()).collect::<Vec<_>>(),
            ),
        ],
        "members",
    )
}

fn competitions_frame(dataset: &Dataset) -> Result<DataFrame, Error> {
    let rows = &dataset.competitions;
    let text = |name: &str, value: &dyn Fn(&crate::dataset::Competition) -> String| {
        Column::new(name.into(), rows.iter().map(value).collect::<Vec<_>>())
    };
    frame(
        vec![
            strings(
                "competition_id",
                rows.iter().map(|c| Some(c.competition_id.as_str())),
            ),
            date_column("date", rows.iter().map(|c| c.date)),
            Column::new(
                "session".into(),
                rows.iter().map(|c| c.session).collect::<Vec<_>>(),
            ),
            text("format", &|c| c.format.to_string()),
            text("scoring", &|c| c.scoring.to_string()),
            int32("boards", rows.iter().map(|c| (c.boards, &c.origin)))?,
            Column::new(
                "rated".into(),
                rows.iter().map(|c| c.rated).collect::<Vec<_>>(),
            ),
            Column::new(
                "handicap_event".into(),
                rows.iter().map(|c| c.handicap_event).collect::<Vec<_>>(),
            ),
            strings("title", rows.iter().map(|c| c.title.as_deref())),
            strings("club", rows.iter().map(|c| c.club.as_deref())),
            strings("class", rows.iter().map(|c| c.class.as_deref())),
            text("mp_scale", &|c| c.conventions.mp_scale.to_string()),
            text("imp_aggregate", &|c| {
                c.conventions.imp_aggregate.to_string()
            }),
            text("datum_trim", &|c| c.conventions.datum_trim.to_string()),
            text("datum_rounding", &|c| {
                c.conventions.datum_rounding.to_string()
            }),
            text("bye_score", &|c| c.conventions.bye_score.to_string()),
            text("tie_break", &|c| c.conventions.tie_break.to_string()),
            text("travellers", &|c| c.conventions.travellers.to_string()),
            text("artificial_imps", &|c| {
                c.conventions.artificial_imps.to_string()
            }),
            Column::new(
                "neuberg".into(),
                rows.iter()
                    .map(|c| c.conventions.neuberg)
                    .collect::<Vec<_>>(),
            ),
        ],
        "competitions",
    )
}

fn entrants_frame(dataset: &Dataset) -> Result<DataFrame, Error> {
    let rows = &dataset.entrants;
    let player = |slot: usize, name: &str| {
        Column::new(
            name.into(),
            rows.iter()
                .map(|e| e.players.get(slot).copied().flatten())
                .collect::<Vec<_>>(),
        )
    };
    frame(
        vec![
            strings(
                "competition_id",
                rows.iter().map(|e| Some(e.competition_id.as_str())),
            ),
            strings("entrant", rows.iter().map(|e| Some(e.entrant.as_str()))),
            player(0, "player1"),
            player(1, "player2"),
            player(2, "player3"),
            player(3, "player4"),
            strings("team", rows.iter().map(|e| e.team.as_deref())),
            Column::new(
                "direction".into(),
                rows.iter()
                    .map(|e| e.direction.map(|d| d.to_string()))
                    .collect::<Vec<_>>(),
            ),
        ],
        "entrants",
    )
}

fn results_frame(dataset: &Dataset) -> Result<DataFrame, Error> {
    let rows = &dataset.results;
    frame(
        vec![
            strings(
                "competition_id",
                rows.iter().map(|r| Some(r.competition_id.as_str())),
            ),
            strings("entrant", rows.iter().map(|r| Some(r.entrant.as_str()))),
            int32(
                "boards_played",
                rows.iter().map(|r| (Some(r.boards_played), &r.origin)),
            )?,
            Column::new(
                "score".into(),
                rows.iter().map(|r| r.score).collect::<Vec<_>>(),
            ),
            strings("opponent", rows.iter().map(|r| r.opponent.as_deref())),
        ],
        "results",
    )
}

fn boards_frame(dataset: &Dataset) -> Result<DataFrame, Error> {
    let rows = &dataset.boards;
    frame(
        vec![
            strings(
                "competition_id",
                rows.iter().map(|b| Some(b.competition_id.as_str())),
            ),
            int32("board", rows.iter().map(|b| (Some(b.board), &b.origin)))?,
            strings("ns", rows.iter().map(|b| b.ns.as_deref())),
            strings("ew", rows.iter().map(|b| b.ew.as_deref())),
            strings("contract", rows.iter().map(|b| b.contract.as_deref())),
            strings("declarer", rows.iter().map(|b| b.declarer.as_deref())),
            Column::new(
                "tricks".into(),
                rows.iter()
                    .map(|b| b.tricks.map(i32::from))
                    .collect::<Vec<_>>(),
            ),
            Column::new(
                "ns_score".into(),
                rows.iter().map(|b| b.ns_score).collect::<Vec<_>>(),
            ),
            strings("adjusted", rows.iter().map(|b| b.adjusted.as_deref())),
            strings("north", rows.iter().map(|b| b.north.as_deref())),
            strings("south", rows.iter().map(|b| b.south.as_deref())),
            strings("east", rows.iter().map(|b| b.east.as_deref())),
            strings("west", rows.iter().map(|b| b.west.as_deref())),
            int32("round", rows.iter().map(|b| (b.round, &b.origin)))?,
            int32("session", rows.iter().map(|b| (b.session, &b.origin)))?,
            int32("table", rows.iter().map(|b| (b.table, &b.origin)))?,
            strings("room", rows.iter().map(|b| b.room.as_deref())),
            Column::new(
                "ns_penalty".into(),
                rows.iter().map(|b| b.ns_penalty).collect::<Vec<_>>(),
            ),
            Column::new(
                "ew_penalty".into(),
                rows.iter().map(|b| b.ew_penalty).collect::<Vec<_>>(),
            ),
        ],
        "boards",
    )
}
