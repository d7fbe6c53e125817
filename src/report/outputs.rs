//! The tables a run writes, with the contract's column names and types.
//!
//! Each function turns the run's plain results into one polars `DataFrame`; writing is
//! done all at once by [`write_run`] so that a failing run leaves no half output.

use std::collections::HashMap;

use chrono::NaiveDate;
use polars::prelude::*;

use crate::dataset::Direction;
use crate::pipeline::prepare::Seat;
use crate::pipeline::state::PlayerState;
use crate::pipeline::{RunOutput, RunSettings};
use crate::scoring::{BoardScore, Standing};

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::files::{write_csv, write_parquet, write_staged};
use super::frame::FrameBuilder;

fn first_of_month(month: Option<i32>) -> Option<NaiveDate> {
    let month = month?;
    NaiveDate::from_ymd_opt(month.div_euclid(12), month.rem_euclid(12) as u32 + 1, 1)
}

/// `handicaps.parquet`: one row per member, in member-id order. It also carries what a
/// later run needs to continue this one.
pub fn handicaps(output: &RunOutput) -> PolarsResult<DataFrame> {
    let members = &output.registry.members;
    let states: &[PlayerState] = &output.states;
    FrameBuilder::new(members.len())
        .column(
            "member_id",
            members.iter().map(|m| m.member_id).collect::<Vec<i64>>(),
        )
        .column(
            "name",
            members.iter().map(|m| m.name.clone()).collect::<Vec<_>>(),
        )
        .column(
            "club",
            members.iter().map(|m| m.club.clone()).collect::<Vec<_>>(),
        )
        .column(
            "district",
            members
                .iter()
                .map(|m| m.district.clone())
                .collect::<Vec<_>>(),
        )
        .column(
            "kind",
            members
                .iter()
                .map(|m| m.kind.to_string())
                .collect::<Vec<_>>(),
        )
        .column(
            "handicap",
            states.iter().map(|s| s.handicap).collect::<Vec<f64>>(),
        )
        .column(
            "handicap_topscore",
            states
                .iter()
                .map(|s| s.handicap_topscore)
                .collect::<Vec<f64>>(),
        )
        .column(
            "handicap_imp",
            states.iter().map(|s| s.handicap_imp).collect::<Vec<f64>>(),
        )
        .column(
            "boards",
            states.iter().map(|s| s.boards as i64).collect::<Vec<i64>>(),
        )
        .column(
            "competitions",
            states
                .iter()
                .map(|s| s.competitions as i64)
                .collect::<Vec<i64>>(),
        )
        .date(
            "last_played",
            states.iter().map(|s| s.last_played).collect(),
        )?
        .column(
            "playing_handicap",
            states
                .iter()
                .map(|s| s.playing_handicap)
                .collect::<Vec<f64>>(),
        )
        .date(
            "playing_month",
            states
                .iter()
                .map(|s| first_of_month(s.playing_month))
                .collect(),
        )?
        .build()
}

fn status_name(seat: Seat) -> &'static str {
    match seat {
        Seat::Member(_) => "member",
        Seat::Foreign(_) => "foreign",
        Seat::NonMember => "non_member",
    }
}

/// `changes.parquet`: one row per player in a rated competition, in replay order.
pub fn changes(output: &RunOutput) -> PolarsResult<DataFrame> {
    let comps = &output.prepared.competitions;
    let rows = &output.replay.changes;
    let comp = |i: usize| &comps[rows[i].competition];
    let n = rows.len();
    FrameBuilder::new(n)
        .column(
            "competition_id",
            (0..n)
                .map(|i| comp(i).competition_id.clone())
                .collect::<Vec<String>>(),
        )
        .date("date", (0..n).map(|i| Some(comp(i).date)).collect())?
        .column(
            "member_id",
            rows.iter().map(|c| c.member_id).collect::<Vec<i64>>(),
        )
        .column(
            "entrant",
            rows.iter()
                .map(|c| {
                    comps[c.competition]
                        .entrant_names
                        .get(c.entrant)
                        .cloned()
                        .unwrap_or_default()
                })
                .collect::<Vec<String>>(),
        )
        .column(
            "status",
            rows.iter()
                .map(|c| status_name(c.seat))
                .collect::<Vec<&str>>(),
        )
        .column(
            "handicap_before",
            rows.iter()
                .map(|c| c.outcome.handicap_before)
                .collect::<Vec<f64>>(),
        )
        .column(
            "partner_handicap",
            rows.iter()
                .map(|c| c.outcome.partner_handicap)
                .collect::<Vec<Option<f64>>>(),
        )
        .column(
            "pair_handicap",
            rows.iter()
                .map(|c| c.outcome.pair_handicap)
                .collect::<Vec<f64>>(),
        )
        .column(
            "field_handicap",
            rows.iter()
                .map(|c| c.outcome.field_handicap)
                .collect::<Vec<f64>>(),
        )
        .column(
            "expected",
            rows.iter()
                .map(|c| c.outcome.expected)
                .collect::<Vec<f64>>(),
        )
        .column(
            "achieved",
            rows.iter()
                .map(|c| c.outcome.achieved)
                .collect::<Vec<f64>>(),
        )
        .column(
            "n_b",
            rows.iter()
                .map(|c| c.outcome.n_b as i32)
                .collect::<Vec<i32>>(),
        )
        .column(
            "n_g",
            rows.iter()
                .map(|c| c.outcome.n_g as i32)
                .collect::<Vec<i32>>(),
        )
        .column(
            "delta",
            rows.iter().map(|c| c.outcome.delta).collect::<Vec<f64>>(),
        )
        .column(
            "handicap_after",
            rows.iter().map(|c| c.handicap_after).collect::<Vec<f64>>(),
        )
        .column(
            "updated",
            rows.iter()
                .map(|c| c.outcome.updated)
                .collect::<Vec<bool>>(),
        )
        .build()
}

/// `ranking.csv` / `ranking.parquet`.
pub fn ranking(output: &RunOutput) -> PolarsResult<DataFrame> {
    let members = &output.registry.members;
    let lines = &output.ranking;
    let member = |i: usize| &members[lines[i].member_index];
    let n = lines.len();
    let mut frame = FrameBuilder::new(n).column(
        "rank",
        lines.iter().map(|l| l.rank as i32).collect::<Vec<i32>>(),
    );
    if lines.iter().any(|l| l.group.is_some()) {
        frame = frame.column(
            "group",
            lines
                .iter()
                .map(|l| l.group.clone())
                .collect::<Vec<Option<String>>>(),
        );
    }
    frame
        .column(
            "member_id",
            (0..n).map(|i| member(i).member_id).collect::<Vec<i64>>(),
        )
        .column(
            "name",
            (0..n).map(|i| member(i).name.clone()).collect::<Vec<_>>(),
        )
        .column(
            "club",
            (0..n).map(|i| member(i).club.clone()).collect::<Vec<_>>(),
        )
        .column(
            "district",
            (0..n)
                .map(|i| member(i).district.clone())
                .collect::<Vec<_>>(),
        )
        .column(
            "handicap",
            lines.iter().map(|l| l.handicap).collect::<Vec<f64>>(),
        )
        .column(
            "boards",
            lines.iter().map(|l| l.boards as i64).collect::<Vec<i64>>(),
        )
        .build()
}

fn direction_name(direction: Option<Direction>) -> Option<String> {
    direction.map(|d| d.to_string())
}

/// `standings.parquet`, with the handicap-adjusted result of handicap tournaments.
pub fn standings(output: &RunOutput) -> PolarsResult<DataFrame> {
    let rows: &[Standing] = &output.prepared.standings;
    let comps = &output.prepared.competitions;
    let mut adjusted: HashMap<(&str, &str), (f64, f64)> = HashMap::new();
    for a in &output.replay.adjusted {
        let c = &comps[a.competition];
        if let Some(name) = c.entrant_names.get(a.entrant) {
            adjusted.insert(
                (c.competition_id.as_str(), name.as_str()),
                (a.expected, a.adjusted),
            );
        }
    }
    let lookup = |s: &Standing| {
        adjusted
            .get(&(s.competition_id.as_str(), s.entrant.as_str()))
            .copied()
    };
    standings_frame(FrameBuilder::new(rows.len()), rows, lookup)
}

/// The standings columns, with the handicap tournament columns from `handicap` (expected,
/// adjusted) where it knows the entrant.
fn standings_frame(
    frame: FrameBuilder,
    rows: &[Standing],
    handicap: impl Fn(&Standing) -> Option<(f64, f64)>,
) -> PolarsResult<DataFrame> {
    frame
        .column(
            "competition_id",
            rows.iter().map(|s| s.competition_id.clone()).collect::<Vec<String>>(),
        )
        .column("entrant", rows.iter().map(|s| s.entrant.clone()).collect::<Vec<String>>())
        .column("score", rows.iter().map(|s| s.score).collect::<Vec<f64>>())
        .column("percent", rows.iter().map(|s| s.percent).collect::<Vec<Option<f64>>>())
        .column(
            "boards_played",
            rows.iter().map(|s| s.boards_played as i32).collect::<Vec<i32>>(),
        )
        .column("rank", rows.iter().map(|s| s.rank as i32).collect::<Vec<i32>>())
        .column(
            "direction",
            rows.iter().map(|s| direction_name(s.direction)).collect::<Vec<_>>(),
        )
        .column(
            "handicap_expected",
            rows.iter().map(|s| handicap(s).map(|a| a.0)).collect::<Vec<Option<f64>>>(),
        )
        .column(
            "handicap_result",
            rows.iter().map(|s| handicap(s).map(|a| a.1)).collect::<Vec<Option<f64>>>(),
        )
        .build()
}

/// `board_scores.parquet`.
pub fn board_scores(rows: &[BoardScore]) -> PolarsResult<DataFrame> {
    FrameBuilder::new(rows.len())
        .column(
            "competition_id",
            rows.iter()
                .map(|s| s.competition_id.clone())
                .collect::<Vec<String>>(),
        )
        .column(
            "board",
            rows.iter().map(|s| s.board as i32).collect::<Vec<i32>>(),
        )
        .column(
            "ns",
            rows.iter()
                .map(|s| s.ns.clone())
                .collect::<Vec<Option<String>>>(),
        )
        .column(
            "ew",
            rows.iter()
                .map(|s| s.ew.clone())
                .collect::<Vec<Option<String>>>(),
        )
        .column(
            "ns_score",
            rows.iter()
                .map(|s| s.ns_score)
                .collect::<Vec<Option<i32>>>(),
        )
        .column(
            "ns_points",
            rows.iter().map(|s| s.ns_points).collect::<Vec<f64>>(),
        )
        .column(
            "ew_points",
            rows.iter().map(|s| s.ew_points).collect::<Vec<f64>>(),
        )
        .column(
            "datum",
            rows.iter().map(|s| s.datum).collect::<Vec<Option<f64>>>(),
        )
        .build()
}

/// `run.toml`.
pub fn run_record(
    output: &RunOutput,
    settings: &RunSettings,
) -> crate::pipeline::state_io::RunRecord {
    crate::pipeline::state_io::RunRecord {
        factors: settings.factors.name.clone(),
        mode: match settings.mode {
            crate::pipeline::Mode::Live => "live".into(),
            crate::pipeline::Mode::Frozen => "frozen".into(),
        },
        competitions_applied: output.summary.competitions_applied,
        applied_through: output.applied_through.clone(),
    }
}

fn frame_error(name: &str) -> impl Fn(PolarsError) -> Error + '_ {
    move |e| Error::polars(name, e)
}

/// Writes every output of a run into `out`, all or nothing.
pub fn write_run(out: &Path, output: &RunOutput, settings: &RunSettings) -> Result<Vec<PathBuf>> {
    let handicaps = handicaps(output).map_err(frame_error("handicaps.parquet"))?;
    let changes = changes(output).map_err(frame_error("changes.parquet"))?;
    let ranking = ranking(output).map_err(frame_error("ranking.parquet"))?;
    let standings = standings(output).map_err(frame_error("standings.parquet"))?;
    let boards =
        board_scores(&output.prepared.board_scores).map_err(frame_error("board_scores.parquet"))?;
    let record = toml::to_string(&run_record(output, settings))
        .map_err(|e| Error::Config(format!("run.toml: {e}")))?;
    write_staged(out, |staged| {
        write_parquet(&handicaps, &staged.path("handicaps.parquet"))?;
        write_parquet(&changes, &staged.path("changes.parquet"))?;
        write_parquet(&ranking, &staged.path("ranking.parquet"))?;
        write_csv(&ranking, &staged.path("ranking.csv"))?;
        write_parquet(&standings, &staged.path("standings.parquet"))?;
        write_parquet(&boards, &staged.path("board_scores.parquet"))?;
        let path = staged.path("run.toml");
        std::fs::write(&path, record.as_bytes()).map_err(|e| Error::io(&path, e))
    })
}

/// Writes the outputs of `bridgehcp score`, all or nothing.
pub fn write_scored(out: &Path, standings_rows: &[Standing], boards: &[BoardScore]) -> Result<Vec<PathBuf>> {
    let standings = FrameBuilder::new(standings_rows.len());
    let standings = standings_frame(standings, standings_rows, |_| None)
        .map_err(frame_error("standings.parquet"))?;
    let boards = board_scores(boards).map_err(frame_error("board_scores.parquet"))?;
    write_staged(out, |staged| {
        write_parquet(&standings, &staged.path("standings.parquet"))?;
        write_parquet(&boards, &staged.path("board_scores.parquet"))
    })
}
