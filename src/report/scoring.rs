//! `bridgehcp score` without the command line: score a dataset, rank its handicap
//! tournaments by the playing handicaps, and write the result sheet.
//!
//! Scoring touches no handicap, but a handicap tournament is ranked by the result
//! minus the one expected from the pairs' playing handicaps, and a start list prints
//! those expectations; both need the members, a factor set and a state. They are
//! gathered here as [`PlayingHandicaps`] so that the command only reads its flags.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use polars::prelude::DataFrame;

use crate::dataset::{Competition, Dataset, Member};
use crate::error::{Error, Result};
use crate::import::table::BoardReader;
use crate::model::{CalcMethod, FactorSet};
use crate::pipeline::score::{score_source, HandicapInputs, Scored};
use crate::pipeline::{replay, InMemory, PlayerState, PreparedCompetition, Registry};
use crate::quarantine::{OnError, Quarantine, Quarantined};
use crate::report::run_folder::load_state;
use crate::report::sheet;

/// The handicaps entrants play off: every member's state, from a state folder or
/// their starting handicaps, with the factor set that reads them.
#[derive(Debug)]
pub struct PlayingHandicaps {
    pub registry: Registry,
    pub factors: FactorSet,
    pub states: Vec<PlayerState>,
}

impl PlayingHandicaps {
    /// The playing handicaps of `members` read with `factors`: from the state folder
    /// `state` names (opened as `run --state` opens it, see
    /// [`crate::report::run_folder::RunFolder::open`]), which
    /// must have been made with the same factor set, or their starting handicaps.
    pub fn read(members: &[Member], factors: FactorSet, state: Option<&Path>) -> Result<Self> {
        let registry = Registry::new(members);
        let states = match state {
            Some(dir) => {
                let previous = load_state(dir)?;
                let sha256 = crate::pipeline::ledger::factor_hash(&factors);
                if previous.record.factors_sha256 != sha256 {
                    return Err(Error::Config(format!(
                        "--state {} was made with factor set `{}`, the playing handicaps are read with `{}`: pass the file of `{}` with --factors",
                        dir.display(),
                        previous.record.factors,
                        factors.name,
                        previous.record.factors,
                    )));
                }
                previous.states_for(&registry, &factors)?
            }
            None => registry.starting_states(&factors)?,
        };
        Ok(PlayingHandicaps {
            registry,
            factors,
            states,
        })
    }
}

/// One entrant's expected result from the playing handicaps.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    pub competition_id: String,
    pub entrant: String,
    /// Percentage points above 50 (matchpoints) or IMPs per board.
    pub expected: f64,
    /// The result minus `expected`, which ranks a handicap tournament.
    pub adjusted: f64,
    /// Whether `expected` is in IMPs per board.
    pub imps: bool,
    /// Whether the competition is a handicap tournament (ranked by `adjusted`).
    pub handicap_event: bool,
}

/// What a scored dataset writes.
#[derive(Debug)]
pub struct ScoreOutcome {
    pub competitions: usize,
    pub standings: usize,
    pub board_scores: usize,
    pub quarantined: usize,
    /// The start list as printed, when asked for.
    pub start_list: Option<String>,
}

/// Scores `dataset` (its board rows from `reader`, or its own), leaves out what breaks
/// a rule (or, strict, stops at the first), and writes the outputs and the result
/// sheet to `out`. `handicaps` ranks the handicap tournaments and, with
/// `start_list`, fills the start list.
pub fn score_and_write(
    mut dataset: Dataset,
    reader: Option<BoardReader>,
    handicaps: Option<&PlayingHandicaps>,
    on_error: OnError,
    start_list: bool,
    out: &Path,
) -> Result<ScoreOutcome> {
    let (scored, quarantined) = score(&mut dataset, reader, handicaps, on_error, start_list)?;
    let expectations = handicaps.map_or_else(Vec::new, |h| {
        expectations(&scored.rated, h, |c| c.handicap_event || start_list)
    });
    let by_entrant: HashMap<(String, String), (f64, f64)> = expectations
        .iter()
        .filter(|e| e.handicap_event)
        .map(|e| {
            let key = (e.competition_id.clone(), e.entrant.clone());
            (key, (e.expected, e.adjusted))
        })
        .collect();
    let lines = sheet::lines(&dataset, &scored.standings, &by_entrant);
    let sheet_frame = sheet::frame(&lines).map_err(|e| Error::polars("standings.csv", e))?;
    let rounds = sheet::rounds_frame(&lines).map_err(|e| Error::polars("rounds.csv", e))?;
    let start = if start_list {
        Some(start_list_of(&dataset, &expectations)?)
    } else {
        None
    };
    crate::report::outputs::write_scored(
        out,
        &scored.standings,
        &scored.board_scores,
        &quarantined,
        &crate::report::outputs::ScoreSheet {
            handicap: &by_entrant,
            standings: &sheet_frame,
            results_html: &sheet::html(&lines),
            start_list: start.as_ref().map(|(_, frame)| frame),
            rounds: rounds.as_ref(),
        },
    )?;
    Ok(ScoreOutcome {
        competitions: dataset.competitions.len(),
        standings: scored.standings.len(),
        board_scores: scored.board_scores.len(),
        quarantined: quarantined.len(),
        start_list: start.map(|(text, _)| text),
    })
}

/// Scores `dataset`, preparing for the model the competitions that need playing
/// handicaps; the competitions left out are removed from `dataset` and returned in
/// replay order.
fn score(
    dataset: &mut Dataset,
    reader: Option<BoardReader>,
    handicaps: Option<&PlayingHandicaps>,
    on_error: OnError,
    start_list: bool,
) -> Result<(Scored, Vec<Quarantined>)> {
    let wanted = |c: &Competition| c.handicap_event || start_list;
    let inputs = handicaps.map(|h| HandicapInputs {
        registry: &h.registry,
        factors: &h.factors,
        wanted: &wanted,
    });
    let sealer = crate::report::outputs::board_score_sealer();
    let (mut scored, mut quarantine) = match reader {
        Some(mut reader) => score_source(dataset, &mut reader, inputs.as_ref(), &sealer, &|_| {})?,
        None => {
            let mut in_memory = InMemory {
                boards: &dataset.boards,
                quarantine: Quarantine::default(),
            };
            score_source(dataset, &mut in_memory, inputs.as_ref(), &sealer, &|_| {})?
        }
    };
    if !quarantine.is_empty() {
        let kept = |id: &String| !quarantine.contains(id);
        dataset.competitions.retain(|c| kept(&c.competition_id));
        dataset.entrants.retain(|e| kept(&e.competition_id));
        dataset.results.retain(|r| kept(&r.competition_id));
    }
    if let Some(error) = on_error.first_error(&scored.quarantined) {
        return Err(error.into());
    }
    quarantine.extend(std::mem::take(&mut scored.quarantined));
    Ok((scored, quarantine.into_sorted()))
}

/// Each entrant's expected result in the rated competitions `wanted` accepts, in
/// competition then entrant order. A competition whose field the model cannot rate
/// has none.
pub fn expectations(
    rated: &[PreparedCompetition],
    handicaps: &PlayingHandicaps,
    wanted: impl Fn(&PreparedCompetition) -> bool,
) -> Vec<Expectation> {
    let mut out = Vec::new();
    for competition in rated.iter().filter(|c| wanted(c)) {
        let results = replay::handicap_results(&handicaps.factors, competition, &handicaps.states);
        let Ok(results) = results else {
            continue;
        };
        let imps = competition.input.method == CalcMethod::Imp;
        for (entrant, expected, adjusted) in results {
            let Some(name) = competition.entrant_names.get(entrant) else {
                continue;
            };
            out.push(Expectation {
                competition_id: competition.competition_id.clone(),
                entrant: name.clone(),
                expected,
                adjusted,
                imps,
                handicap_event: competition.handicap_event,
            });
        }
    }
    out
}

/// The start list as printed (`competition  entrant  expected  names`) and as
/// `start_list.csv`.
fn start_list_of(dataset: &Dataset, expectations: &[Expectation]) -> Result<(String, DataFrame)> {
    let names = sheet::entrant_names(dataset);
    let who = |e: &Expectation| {
        let key = (e.competition_id.as_str(), e.entrant.as_str());
        names.get(&key).cloned().unwrap_or_default()
    };
    let mut text = String::from("competition  entrant  expected  names\n");
    for e in expectations {
        let shown = if e.imps {
            format!("{:+.2} IMP/board", e.expected)
        } else {
            format!("{:.2} %", 50.0 + e.expected)
        };
        let _ = writeln!(
            text,
            "{}  {}  {shown}  {}",
            e.competition_id,
            e.entrant,
            who(e)
        );
    }
    let frame = crate::report::frame::FrameBuilder::new(expectations.len())
        .map("competition_id", expectations, |e| e.competition_id.clone())
        .map("entrant", expectations, |e| e.entrant.clone())
        .map("names", expectations, who)
        .map("expected_percent", expectations, |e| {
            (!e.imps).then(|| sheet::round_to(50.0 + e.expected, 2))
        })
        .map("expected_imps_per_board", expectations, |e| {
            e.imps.then(|| sheet::round_to(e.expected, 2))
        })
        .build()
        .map_err(|e| Error::polars("start_list.csv", e))?;
    Ok((text, frame))
}
