//! `bridgehcp score` without the command line: score a dataset, rank its handicap
//! tournaments by the playing handicaps, and write the result sheet.
//!
//! Scoring touches no handicap, but a handicap tournament is ranked by the result
//! minus the one expected from the pairs' playing handicaps, and a start list prints
//! those expectations; both need the members, a factor set and a state. They are
//! gathered here as [`PlayingHandicaps`] so that the command only reads its flags.

use std::fmt::Write as _;
use std::path::Path;

use polars::prelude::DataFrame;
use rayon::prelude::*;

use crate::dataset::entrant_table::{EntrantTable, ResultTable};
use crate::dataset::{Competition, Dataset, Member};
use crate::error::{Error, Result};
use crate::model::{CalcMethod, FactorSet};
use crate::pipeline::score::{score_source, HandicapInputs, Scored};
use crate::pipeline::{
    replay, EntrantRows, Entrants, InMemory, PlayerState, PreparedCompetition, Registry,
};
use crate::quarantine::{OnError, Quarantine, Quarantined};
use crate::report::result_sheet::{write_scored, HandicapResults, ScoreSheet};
use crate::report::run_folder::load_state;
use crate::report::sheet::{self, EntrantNames};
use crate::store::table::BoardReader;

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

/// A dataset's board rows read from its files, with its entrant and result rows read
/// compactly (its head's own stay empty): how `score --data` holds a federation.
pub struct ReadRows {
    pub boards: BoardReader,
    pub entrants: EntrantTable,
    pub results: ResultTable,
}

/// Scores `dataset` (its rows from `read`, or its own), leaves out what breaks
/// a rule (or, strict, stops at the first), and writes the outputs and the result
/// sheet to `out`. `handicaps` ranks the handicap tournaments and, with
/// `start_list`, fills the start list.
pub fn score_and_write(
    mut dataset: Dataset,
    read: Option<ReadRows>,
    handicaps: Option<&PlayingHandicaps>,
    on_error: OnError,
    start_list: bool,
    out: &Path,
) -> Result<ScoreOutcome> {
    let (reader, rows) = match read {
        Some(read) => (
            Some(read.boards),
            EntrantRows::compact(read.entrants, read.results),
        ),
        None => (None, EntrantRows::taken_from(&mut dataset)),
    };
    let (scored, quarantined) =
        score(&mut dataset, &rows, reader, handicaps, on_error, start_list)?;
    let names = match &rows.entrants {
        Entrants::Rows(entrants) => EntrantNames::of_rows(&dataset.members, entrants),
        Entrants::Table(table) => EntrantNames::of_table(&dataset.members, table),
    };
    let expectations = handicaps.map_or_else(Vec::new, |h| {
        expectations(&scored.rated, h, |c| c.handicap_event || start_list)
    });
    let by_entrant: HandicapResults<'_> = expectations
        .iter()
        .filter(|e| e.handicap_event)
        .map(|e| {
            let key = (e.competition_id.as_str(), e.entrant.as_str());
            (key, (e.expected, e.adjusted))
        })
        .collect();
    let start = if start_list {
        Some(start_list_of(&names, &expectations)?)
    } else {
        None
    };
    write_scored(
        out,
        &scored.standings,
        &scored.board_scores,
        &quarantined,
        &ScoreSheet {
            dataset: &dataset,
            names: &names,
            handicap: &by_entrant,
            start_list: start.as_ref().map(|(_, frame)| frame),
        },
    )?;
    let outcome = ScoreOutcome {
        competitions: dataset.competitions.len(),
        standings: scored.standings.len(),
        board_scores: scored.board_scores.len(),
        quarantined: quarantined.len(),
        start_list: start.map(|(text, _)| text),
    };
    drop((names, by_entrant));
    free_aside((scored, rows, dataset, expectations, quarantined));
    Ok(outcome)
}

/// Frees `spent` on a thread of its own. A federation's standings, board scores and
/// rows are millions of allocations, whose freeing took most of a second after the
/// last file was written: the outcome need not wait for it, and a process that ends
/// first hands the memory back whole. Should no thread start, `spent` is freed here.
fn free_aside<T: Send + 'static>(spent: T) {
    let _ = std::thread::Builder::new()
        .name("free".into())
        .spawn(move || drop(spent));
}

/// Scores `dataset`, preparing for the model the competitions that need playing
/// handicaps; the competitions left out are removed from `dataset` and returned in
/// replay order.
fn score(
    dataset: &mut Dataset,
    rows: &EntrantRows<'_>,
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
        Some(mut reader) => score_source(
            dataset,
            rows,
            &mut reader,
            inputs.as_ref(),
            &sealer,
            &|_| {},
        )?,
        None => {
            let mut in_memory = InMemory {
                boards: &dataset.boards,
                quarantine: Quarantine::default(),
            };
            score_source(
                dataset,
                rows,
                &mut in_memory,
                inputs.as_ref(),
                &sealer,
                &|_| {},
            )?
        }
    };
    if !quarantine.is_empty() {
        let kept = |id: &String| !quarantine.contains(id);
        // The sheet is written from the standings, which hold none of these; only the
        // count of competitions scored needs them gone.
        dataset.competitions.retain(|c| kept(&c.competition_id));
    }
    if let Some(error) = on_error.first_error(&scored.quarantined) {
        return Err(error.into());
    }
    quarantine.extend(std::mem::take(&mut scored.quarantined));
    Ok((scored, quarantine.into_sorted()))
}

/// Each entrant's expected result in the rated competitions `wanted` accepts, in
/// competition then entrant order. A competition whose field the model cannot rate
/// has none. The competitions are rated in parallel (a federation's handicap
/// tournaments are tens of thousands, and the sheet waits for them) and kept in order.
pub fn expectations(
    rated: &[PreparedCompetition],
    handicaps: &PlayingHandicaps,
    wanted: impl Fn(&PreparedCompetition) -> bool + Sync,
) -> Vec<Expectation> {
    let of_competition = |competition: &PreparedCompetition| -> Vec<Expectation> {
        let results = replay::handicap_results(&handicaps.factors, competition, &handicaps.states);
        let Ok(results) = results else {
            return Vec::new();
        };
        let imps = competition.input.method == CalcMethod::Imp;
        results
            .into_iter()
            .filter_map(|(entrant, expected, adjusted)| {
                let name = competition.entrant_names.get(entrant)?;
                Some(Expectation {
                    competition_id: competition.competition_id.clone(),
                    entrant: name.to_owned(),
                    expected,
                    adjusted,
                    imps,
                    handicap_event: competition.handicap_event,
                })
            })
            .collect()
    };
    let each: Vec<Vec<Expectation>> = rated
        .par_iter()
        .filter(|c| wanted(c))
        .map(of_competition)
        .collect();
    let mut out = Vec::with_capacity(each.iter().map(Vec::len).sum());
    for one in each {
        out.extend(one);
    }
    out
}

/// The start list as printed (`competition  entrant  expected  names`) and as
/// `start_list.csv`.
fn start_list_of(
    names: &EntrantNames<'_>,
    expectations: &[Expectation],
) -> Result<(String, DataFrame)> {
    let who = |e: &Expectation| names.of(&e.competition_id, &e.entrant);
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
    let frame = crate::store::frame::FrameBuilder::new(expectations.len())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::result_sheet::write_sheet;
    use crate::store::files::{write_csv, StagedFolder};
    use crate::synth::{generate, EventMix, SynthConfig};

    /// The sheet written a few competitions at a time has the bytes of the sheet built
    /// whole (its lines, its frame, its page), on a federation with Swiss pairs events,
    /// handicap tournaments and two-winner movements among its competitions; with the
    /// names from the dataset's entrant rows or from the compact table `score --data`
    /// reads them into.
    #[test]
    fn the_sheet_written_in_batches_is_the_sheet_written_whole() -> Result<()> {
        let dataset = generate(&SynthConfig {
            members: 120,
            months: 4,
            handicap_event_share: 0.5,
            mix: EventMix {
                swiss_pairs: 0.2,
                ..EventMix::default()
            },
            ..SynthConfig::default()
        });
        let handicaps = PlayingHandicaps::read(&dataset.members, FactorSet::default(), None)?;
        let rows = EntrantRows::of(&dataset);
        let mut scored_dataset = dataset.clone();
        let (scored, _) = score(
            &mut scored_dataset,
            &rows,
            None,
            Some(&handicaps),
            OnError::Quarantine,
            false,
        )?;
        let expected = expectations(&scored.rated, &handicaps, |c| c.handicap_event);
        let by_entrant: HandicapResults<'_> = expected
            .iter()
            .map(|e| {
                let key = (e.competition_id.as_str(), e.entrant.as_str());
                (key, (e.expected, e.adjusted))
            })
            .collect();

        let standings: Vec<_> = scored.standings.iter().cloned().collect();
        let whole = sheet::lines(&dataset, &standings, &by_entrant);
        // What makes the sheet hard to write in pieces is there, and spans many batches.
        let competitions = sheet::by_competition(&standings).count();
        assert!(competitions >= 20, "{competitions} competitions");
        assert!(
            whole.iter().any(|l| !l.rounds.is_empty()),
            "a Swiss pairs event"
        );
        assert!(
            whole.iter().any(|l| l.handicap_result.is_some()),
            "a handicap tournament ranked by the handicap result"
        );
        assert!(whole.iter().any(|l| l.rank != l.raw_rank), "ranks moved");
        assert!(
            whole.iter().any(|l| l.direction.as_deref() == Some("EW")),
            "a two-winner movement"
        );

        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let whole_dir = dir.path().join("whole");
        std::fs::create_dir(&whole_dir).map_err(|e| Error::io(&whole_dir, e))?;
        write_csv(
            &sheet::frame(&whole).map_err(|e| Error::polars("standings.csv", e))?,
            &whole_dir.join("standings.csv"),
        )?;
        let rounds = sheet::rounds_frame(&whole).map_err(|e| Error::polars("rounds.csv", e))?;
        if let Some(rounds) = rounds {
            write_csv(&rounds, &whole_dir.join("rounds.csv"))?;
        }
        let page = whole_dir.join("results.html");
        std::fs::write(&page, sheet::html(&whole)).map_err(|e| Error::io(&page, e))?;

        let mut table = EntrantTable::default();
        for entrant in &dataset.entrants {
            table.push(entrant);
        }
        table.group();
        let (own, compact) = (
            EntrantNames::new(&dataset),
            EntrantNames::of_table(&dataset.members, &table),
        );
        // One line a batch (a competition each), two, a few competitions, and more lines
        // than the sheet holds (all at once).
        let batches = [
            (1, &own),
            (2, &compact),
            (25, &own),
            (usize::MAX, &own),
            (25, &compact),
        ];
        for (batch, names) in batches {
            let sheet = ScoreSheet {
                dataset: &dataset,
                names,
                handicap: &by_entrant,
                start_list: None,
            };
            let kind = if std::ptr::eq(names, &own) {
                "own"
            } else {
                "compact"
            };
            let out = dir.path().join(format!("batch-{batch}-{kind}"));
            let staged = StagedFolder::new(&out)?;
            write_sheet(&staged, &sheet, &scored.standings, batch)?;
            staged.commit()?;
            for name in ["standings.csv", "rounds.csv", "results.html"] {
                let read = |path: std::path::PathBuf| {
                    std::fs::read(&path).map_err(|e| Error::io(&path, e))
                };
                let (a, b) = (read(whole_dir.join(name))?, read(out.join(name))?);
                assert!(a.len() > 1000, "{name}: {} bytes", a.len());
                assert!(
                    a == b,
                    "{name} ({kind} names) in batches of {batch} lines differs"
                );
            }
        }
        Ok(())
    }
}
