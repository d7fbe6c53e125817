//! Writing a [`Dataset`] back out as the dataset's five tables (docs/data.md).
//!
//! The importers (PBN, USEBIO) produce datasets that analysts and other tools read with
//! their own Parquet readers, so the column names and types here are exactly the
//! contract's: ids int64, counts int32, dates as Date, plus the scoring conventions of
//! each competition as string columns so that a written dataset scores the same when
//! read back. Reading the files with [`crate::store::table::read_dataset`] gives the
//! same dataset (apart from each row's origin).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use chrono::NaiveDate;
use polars::prelude::*;

use crate::dataset::{Competition, Dataset, Origin};
use crate::error::{Error, InputError, Location};
use crate::store::commit::{finish_in_progress, link_tree, mark_in_progress};
use crate::store::files::{write_parquet, write_replacing, write_staged, Commit};
use crate::store::table::TABLES;

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
    refuse_other_forms(dir)?;
    let frames = dataset_frames(dataset)?;
    write_staged(dir, |stage| {
        frames.iter().try_for_each(|(name, frame)| {
            write_parquet(frame, &stage.path(&format!("{name}.parquet")))
        })
    })
    .map(|_| ())
}

/// Refuses a folder that holds a table as `NAME.csv` or as a folder `NAME/`, beside
/// which writing `NAME.parquet` would make the folder ambiguous to read.
pub fn refuse_other_forms(dir: &Path) -> Result<(), Error> {
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
    Ok(())
}

/// The month partition a competition's rows are written to: `2015-09`.
pub fn month_of(competition: &Competition) -> String {
    competition.date.format("%Y-%m").to_string()
}

/// The tables written as folders of month partitions, in contract order.
const PARTITIONED: [&str; 4] = ["competitions", "entrants", "results", "boards"];

/// Writes `dataset` to `dir` as a dataset that grows month by month: `members.parquet`,
/// and `competitions/`, `entrants/`, `results/` and `boards/` with one hive partition
/// `month=YYYY-MM/part-0.parquet` per month of competition dates.
///
/// Only the partitions of `months` are written (or removed, when the month has no rows
/// left); the others are left as they are, so a monthly import touches one folder per
/// table, not the whole history. Rows are sorted (competitions by date, session and id,
/// their rows in that order, members by number), so the same content gives the same
/// bytes however it arrived: one import of five years, or sixty monthly ones.
///
/// A table in another form (`boards.parquet`, `boards.csv`) from an earlier layout is
/// rewritten as partitions (`all_months` must then be true) and left out of the new
/// version. The next version of the whole folder is built beside it (unchanged files
/// hard-linked) and takes its place in one step ([`crate::store::commit`]), so
/// a process killed at any point leaves the version before or the version after, never
/// a mix; `commit.at` is called at `members-written` (the next version half built) and
/// at the points of [`write_replacing`].
pub fn write_months(
    dataset: &Dataset,
    dir: &Path,
    months: &BTreeSet<String>,
    all_months: bool,
    commit: Commit,
) -> Result<(), Error> {
    write_months_with(dataset, dir, months, all_months, commit, None)
}

/// Files written into the next version of a dataset with its tables, so that they
/// change with the tables or not at all (an import's log): their names, at the top of
/// the folder (not linked from the version before), and how they are written into the
/// folder being built.
pub struct Beside<'a> {
    pub names: &'a [&'a str],
    pub write: &'a dyn Fn(&Path) -> Result<(), Error>,
}

/// [`write_months`], with `beside` written into the same version.
pub fn write_months_with(
    dataset: &Dataset,
    dir: &Path,
    months: &BTreeSet<String>,
    all_months: bool,
    commit: Commit,
    beside: Option<&Beside<'_>>,
) -> Result<(), Error> {
    let mut competitions: Vec<&Competition> = dataset.competitions.iter().collect();
    competitions.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    let position: HashMap<&str, usize> = competitions
        .iter()
        .enumerate()
        .map(|(i, c)| (c.competition_id.as_str(), i))
        .collect();
    let month_index: HashMap<&str, String> = competitions
        .iter()
        .map(|c| (c.competition_id.as_str(), month_of(c)))
        .collect();
    let mut wanted: BTreeSet<String> = months.clone();
    if all_months {
        wanted.extend(month_index.values().cloned());
    }
    let in_month = |id: &str, month: &str| month_index.get(id).is_some_and(|m| m == month);
    let order = |id: &str| position.get(id).copied().unwrap_or(usize::MAX);

    let mut members = dataset.members.clone();
    members.sort_by_key(|m| m.member_id);
    let members_only = Dataset {
        members,
        ..Dataset::default()
    };

    let rewritten = |relative: &Path| -> bool {
        let mut parts = relative.iter().map(|p| p.to_string_lossy());
        let (Some(first), second) = (parts.next(), parts.next()) else {
            return false;
        };
        let single_file = PARTITIONED
            .iter()
            .any(|t| first == format!("{t}.parquet") || first == format!("{t}.csv"));
        match second {
            None if beside.is_some_and(|b| b.names.contains(&first.as_ref())) => true,
            None => {
                first == "members.parquet"
                    || (all_months && (single_file || first == "members.csv" || first == "members"))
            }
            Some(folder) => {
                PARTITIONED.contains(&first.as_ref())
                    && folder
                        .strip_prefix("month=")
                        .is_some_and(|m| wanted.contains(m))
                    && parts.next().is_none()
            }
        }
    };
    let members_frame = members_frame(&members_only)?;
    write_replacing(dir, commit, |staging| {
        mark_in_progress(staging)?;
        if dir.is_dir() {
            link_tree(dir, staging, &rewritten)?;
        }
        write_parquet(&members_frame, &staging.join("members.parquet"))?;
        (commit.at)("members-written");
        write_partitions(dataset, staging, &wanted, &competitions, &in_month, &order)?;
        if let Some(beside) = beside {
            (beside.write)(staging)?;
        }
        crate::store::index::refresh(staging, dir)
    })?;
    finish_in_progress(dir)
}

/// Writes the month partitions of `wanted` below `staging`.
fn write_partitions(
    dataset: &Dataset,
    staging: &Path,
    wanted: &BTreeSet<String>,
    competitions: &[&Competition],
    in_month: &dyn Fn(&str, &str) -> bool,
    order: &dyn Fn(&str) -> usize,
) -> Result<(), Error> {
    for month in wanted {
        let mut part = Dataset {
            competitions: competitions
                .iter()
                .filter(|c| in_month(&c.competition_id, month))
                .map(|c| (*c).clone())
                .collect(),
            entrants: dataset
                .entrants
                .iter()
                .filter(|e| in_month(&e.competition_id, month))
                .cloned()
                .collect(),
            results: dataset
                .results
                .iter()
                .filter(|r| in_month(&r.competition_id, month))
                .cloned()
                .collect(),
            boards: dataset
                .boards
                .iter()
                .filter(|b| in_month(&b.competition_id, month))
                .cloned()
                .collect(),
            members: Vec::new(),
        };
        part.entrants.sort_by_key(|e| order(&e.competition_id));
        part.results.sort_by_key(|r| order(&r.competition_id));
        part.boards.sort_by_key(|b| order(&b.competition_id));
        let frames = [
            (
                "competitions",
                part.competitions.len(),
                competitions_frame(&part)?,
            ),
            ("entrants", part.entrants.len(), entrants_frame(&part)?),
            ("results", part.results.len(), results_frame(&part)?),
            ("boards", part.boards.len(), boards_frame(&part)?),
        ];
        for (table, rows, frame) in frames {
            if rows > 0 {
                let folder = staging.join(table).join(format!("month={month}"));
                std::fs::create_dir_all(&folder).map_err(|e| Error::io(&folder, e))?;
                write_parquet(&frame, &folder.join("part-0.parquet"))?;
            }
        }
    }
    Ok(())
}

/// True when `dir` holds one of the partitioned tables in a single-file form.
pub fn has_single_file_tables(dir: &Path) -> bool {
    PARTITIONED.iter().any(|table| {
        dir.join(format!("{table}.parquet")).exists() || dir.join(format!("{table}.csv")).exists()
    })
}

/// `source_file`: the export a row was imported from, so that an error found when the
/// dataset is scored names the club's file rather than a Parquet row.
fn source_file<'a>(origins: impl Iterator<Item = &'a Origin>) -> Column {
    Column::new(
        "source_file".into(),
        origins
            .map(|o| o.file.as_deref().map(|p| p.display().to_string()))
            .collect::<Vec<_>>(),
    )
}

/// `source_line`: the line of the export (PBN row, USEBIO element) the row came from.
fn source_line<'a>(origins: impl Iterator<Item = &'a Origin>) -> Column {
    Column::new(
        "source_line".into(),
        origins
            .map(|o| {
                o.file
                    .as_ref()
                    .and(o.row)
                    .and_then(|r| i64::try_from(r).ok())
            })
            .collect::<Vec<_>>(),
    )
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
            text("average_plus", &|c| c.conventions.average_plus.to_string()),
            text("factored_rounding", &|c| {
                c.conventions.factored_rounding.to_string()
            }),
            Column::new(
                "neuberg".into(),
                rows.iter()
                    .map(|c| c.conventions.neuberg)
                    .collect::<Vec<_>>(),
            ),
            source_file(rows.iter().map(|c| &c.origin)),
            source_line(rows.iter().map(|c| &c.origin)),
        ]
        .into_iter()
        .chain(vp_scale_column(rows))
        .collect(),
        "competitions",
    )
}

/// `vp_scale` (a four- or five-pair event's VP scale), written only when some
/// competition has one, so that a dataset without one is written as it always was.
fn vp_scale_column(rows: &[crate::dataset::Competition]) -> Option<Column> {
    rows.iter().any(|c| c.vp_scale.is_some()).then(|| {
        strings(
            "vp_scale",
            rows.iter()
                .map(|c| c.vp_scale.as_ref().map(|s| s.name.as_str())),
        )
    })
}

/// `house` (a Swiss pairs event's house pair), written only when some entrant is one,
/// so that a dataset without a house pair is written as it always was.
fn house_column(rows: &[crate::dataset::Entrant]) -> Option<Column> {
    rows.iter().any(|e| e.house).then(|| {
        Column::new(
            "house".into(),
            rows.iter().map(|e| e.house).collect::<Vec<_>>(),
        )
    })
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
            strings("player1_name", rows.iter().map(|e| e.names[0].as_deref())),
            strings("player2_name", rows.iter().map(|e| e.names[1].as_deref())),
            strings("player3_name", rows.iter().map(|e| e.names[2].as_deref())),
            strings("player4_name", rows.iter().map(|e| e.names[3].as_deref())),
            strings("player1_club", rows.iter().map(|e| e.clubs[0].as_deref())),
            strings("player2_club", rows.iter().map(|e| e.clubs[1].as_deref())),
            strings("player3_club", rows.iter().map(|e| e.clubs[2].as_deref())),
            strings("player4_club", rows.iter().map(|e| e.clubs[3].as_deref())),
            Column::new(
                "direction".into(),
                rows.iter()
                    .map(|e| e.direction.map(|d| d.to_string()))
                    .collect::<Vec<_>>(),
            ),
            source_file(rows.iter().map(|e| &e.origin)),
            source_line(rows.iter().map(|e| &e.origin)),
        ]
        .into_iter()
        .chain(house_column(rows))
        .collect(),
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
            source_file(rows.iter().map(|b| &b.origin)),
            source_line(rows.iter().map(|b| &b.origin)),
        ],
        "boards",
    )
}
