//! Scoring a whole dataset, competition by competition: what `bridgehcp score` runs on its
//! own and what a run does before it prepares anything for the model.
//!
//! Scoring needs neither the members nor a factor set, so it is a path of its own; a run
//! takes the same path and goes on from each scored competition to the model's input.
//! Competitions are independent, so they are scored in parallel, and every outcome is
//! collected in replay order (date, session, id): a competition that breaks a rule is
//! quarantined at the same place whatever the thread count.

use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::dataset::{BoardResult, Competition, Dataset, Entrant, EntrantResult};
use crate::error::InputError;
use crate::quarantine::Quarantined;
use crate::scoring::{self, BoardScore, Standing};

use super::reported;

/// The standings and board scores of a dataset.
#[derive(Debug, Default)]
pub struct Scored {
    /// Standings of every competition, in replay order.
    pub standings: Vec<Standing>,
    /// Board scores of every competition scored from table results, in replay order.
    pub board_scores: Vec<BoardScore>,
    /// Competitions that could not be scored, in replay order, with the reason; nothing
    /// of them is in the fields above.
    pub quarantined: Vec<Quarantined>,
}

/// Scores every competition of `dataset`; `on_competition_done` is called once per
/// competition (progress).
pub fn score(dataset: &Dataset, on_competition_done: &(dyn Fn() + Sync)) -> Scored {
    let (done, quarantined) = each_competition(dataset, score_one, on_competition_done);
    let mut scored = Scored {
        quarantined,
        ..Scored::default()
    };
    for one in done {
        scored.standings.extend(one.standings);
        scored.board_scores.extend(one.board_scores);
    }
    scored
}

/// The rows of one competition.
pub(super) struct Rows<'a> {
    pub entrants: Vec<&'a Entrant>,
    /// The results the club reported, if any.
    pub reported: Vec<&'a EntrantResult>,
    pub boards: &'a [&'a BoardResult],
}

/// One competition scored.
pub(super) struct ScoredOne {
    /// From board rows, the scoring's results on the program's own scale; else the
    /// reported results.
    pub results: Vec<EntrantResult>,
    pub standings: Vec<Standing>,
    pub board_scores: Vec<BoardScore>,
}

/// Runs `one` on every competition in replay order, in parallel. Returns what succeeded
/// and the competitions that failed (with the error), both in replay order.
pub(super) fn each_competition<T: Send>(
    dataset: &Dataset,
    one: impl Fn(&Competition, &Rows<'_>) -> Result<T, InputError> + Sync,
    on_competition_done: &(dyn Fn() + Sync),
) -> (Vec<T>, Vec<Quarantined>) {
    let entrants = group(&dataset.entrants, |e| e.competition_id.as_str());
    let results = group(&dataset.results, |r| r.competition_id.as_str());
    let boards = group(&dataset.boards, |b| b.competition_id.as_str());

    let mut order: Vec<&Competition> = dataset.competitions.iter().collect();
    order.sort_by(|a, b| a.order_key().cmp(&b.order_key()));

    let outcomes: Vec<Result<T, InputError>> = order
        .par_iter()
        .map(|competition| {
            let id = competition.competition_id.as_str();
            let rows = Rows {
                entrants: entrants.get(id).cloned().unwrap_or_default(),
                reported: results.get(id).cloned().unwrap_or_default(),
                boards: boards.get(id).map(Vec::as_slice).unwrap_or(&[]),
            };
            let out = one(competition, &rows);
            on_competition_done();
            out
        })
        .collect();

    let mut done = Vec::with_capacity(outcomes.len());
    let mut quarantined = Vec::new();
    for (competition, outcome) in order.iter().zip(outcomes) {
        match outcome {
            Ok(one) => done.push(one),
            Err(error) => quarantined.push(Quarantined {
                competition_id: competition.competition_id.clone(),
                date: Some(competition.date),
                session: Some(competition.session),
                reasons: vec![error],
            }),
        }
    }
    (done, quarantined)
}

fn group<'a, T>(rows: &'a [T], key: impl Fn(&'a T) -> &'a str) -> HashMap<&'a str, Vec<&'a T>> {
    let mut map: HashMap<&str, Vec<&T>> = HashMap::default();
    for row in rows {
        map.entry(key(row)).or_default().push(row);
    }
    map
}

/// Scores one competition: from its board rows when it has any (checking the results a
/// club reported beside them), else from the reported results.
pub(super) fn score_one(
    competition: &Competition,
    rows: &Rows<'_>,
) -> Result<ScoredOne, InputError> {
    let here = || {
        competition
            .origin
            .location()
            .competition(&competition.competition_id)
    };
    if rows.entrants.is_empty() {
        return Err(InputError::new(here(), "competition has no entrants"));
    }
    let scored = if rows.boards.is_empty() {
        if rows.reported.is_empty() {
            return Err(InputError::new(
                here(),
                "competition has neither results nor board rows",
            ));
        }
        let results: Vec<EntrantResult> = rows.reported.iter().map(|r| (*r).clone()).collect();
        let standings = reported::standings_from_results(competition, &rows.entrants, &results);
        ScoredOne {
            results,
            standings,
            board_scores: Vec::new(),
        }
    } else {
        let scored = scoring::score_competition(competition, &rows.entrants, rows.boards)?;
        reported::check_reported(competition, &rows.reported, &scored.results)?;
        ScoredOne {
            results: scored.results,
            standings: scored.standings,
            board_scores: scored.board_scores,
        }
    };
    check_boards_played(competition, &scored.results, rows.boards)?;
    Ok(scored)
}

/// An entrant cannot play more boards than the competition has; `score` and `run` hold
/// every competition to it, rated or not.
fn check_boards_played(
    competition: &Competition,
    results: &[EntrantResult],
    board_rows: &[&BoardResult],
) -> Result<(), InputError> {
    let n_boards = match competition.boards {
        Some(n) => n,
        None if board_rows.is_empty() => return Ok(()),
        None => distinct_boards(board_rows),
    };
    match results.iter().find(|r| r.boards_played > n_boards) {
        Some(result) => Err(InputError::new(
            result
                .origin
                .location()
                .competition(&competition.competition_id)
                .column("boards_played"),
            format!(
                "boards_played {} of entrant `{}` is more than the competition's {n_boards} boards",
                result.boards_played, result.entrant
            ),
        )),
        None => Ok(()),
    }
}

/// The number of distinct boards the rows hold.
pub(super) fn distinct_boards(board_rows: &[&BoardResult]) -> u32 {
    board_rows
        .iter()
        .map(|b| b.board)
        .collect::<HashSet<_>>()
        .len() as u32
}
