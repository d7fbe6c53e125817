//! Scoring a whole dataset, competition by competition: what `bridgehcp score` runs on its
//! own and what a run does before it prepares anything for the model.
//!
//! Scoring needs neither the members nor a factor set, so it is a path of its own; a run
//! takes the same path and goes on from each scored competition to the model's input.
//! Competitions are independent, so they are scored in parallel, and every outcome is
//! collected in replay order (date, session, id): a competition that breaks a rule is
//! quarantined at the same place whatever the thread count.

use crate::dataset::{Competition, Dataset};
use crate::quarantine::Quarantined;
use crate::scoring::Standing;

use super::competition::{each_competition, score_one, split_outcomes, EntrantRows, Index, Rows};
use super::passes::{BoardSource, Collected};
use super::prepare::PreparedCompetition;
use super::state::Registry;
use super::Rate;
use crate::model::FactorSet;

/// The standings and board scores of a dataset.
#[derive(Debug, Default)]
pub struct Scored {
    /// Standings of every competition, in replay order.
    pub standings: Vec<Standing>,
    /// Board scores of every competition scored from table results, in replay order.
    pub board_scores: super::sealed::BoardScoreRows,
    /// Rated competitions prepared for the model, in replay order, when asked for
    /// ([`score_source`]).
    pub rated: Vec<PreparedCompetition>,
    /// Competitions that could not be scored, in replay order, with the reason; nothing
    /// of them is in the fields above.
    pub quarantined: Vec<Quarantined>,
}

/// Scores every competition of `dataset`; `on_competition_done` is called once per
/// competition (progress).
pub fn score(dataset: &Dataset, on_competition_done: &(dyn Fn() + Sync)) -> Scored {
    let one =
        |competition: &Competition, rows: &Rows<'_>| score_one(competition, rows, Rate::Recomputed);
    let (done, quarantined) = each_competition(dataset, one, on_competition_done);
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

/// What scoring needs to prepare some rated competitions for the model as well, for
/// their playing handicaps (handicap tournaments, start lists).
pub struct HandicapInputs<'a> {
    pub registry: &'a Registry,
    pub factors: &'a FactorSet,
    /// The competitions to prepare (rated ones only are).
    pub wanted: &'a (dyn Fn(&Competition) -> bool + Sync),
}

/// Scores every competition of `head` with its entrant and result rows from `rows` (a
/// whole federation's held compactly, or the dataset's own) and its board rows from
/// `boards`, a batch at a time (only one batch of board rows is held), and prepares the
/// rated competitions `handicaps` wants for the model ([`Scored::rated`]; one that
/// cannot be prepared is left out of it, and scored all the same). Returns the scores
/// and the competitions the reader's checks left out (those scoring left out are in
/// [`Scored::quarantined`]); `done` is told how many competitions each batch held.
pub fn score_source(
    head: &Dataset,
    rows: &EntrantRows<'_>,
    boards: &mut dyn BoardSource,
    handicaps: Option<&HandicapInputs<'_>>,
    sealer: &super::sealed::Sealer,
    done: &(dyn Fn(u64) + Sync),
) -> crate::error::Result<(Scored, crate::quarantine::Quarantine)> {
    let index = Index::new(&head.competitions, &rows.entrants, &rows.results);
    let mut collected = Collected::new(index.order.len(), sealer);
    collected.reserve_board_scores(boards.rows_hint());
    let one = |at: usize, rows: &Rows<'_>| {
        let competition = index.order[at];
        let mut scored = score_one(competition, rows, Rate::Recomputed)?;
        let results = std::mem::take(&mut scored.results);
        scored.rated = handicaps
            .filter(|h| competition.rated && (h.wanted)(competition))
            .and_then(|h| {
                super::prepare::rated_input(competition, rows, results, h.registry, h.factors).ok()
            });
        Ok(scored)
    };
    let everything = |_: usize| true;
    collected.read(boards, &index, false, &everything, &one, done)?;
    let quarantine = boards.finish(head)?;
    collected.rest(&index, &quarantine, false, &everything, &one)?;
    // One pass: the checks' copy of every entrant may go before the outputs are made.
    boards.release();
    let live: Vec<usize> = (0..index.order.len())
        .filter(|&at| !quarantine.contains(&index.order[at].competition_id))
        .collect();
    let order: Vec<&Competition> = live.iter().map(|&at| index.order[at]).collect();
    let outcomes = collected.take_outcomes(&index, &live)?;
    let (done, quarantined) = split_outcomes(&order, outcomes);
    let mut scored = Scored {
        quarantined,
        board_scores: collected.board_scores(&live)?,
        ..Scored::default()
    };
    // A federation's standings are millions of rows: grown by doubling, the vector
    // would hold its old and new buffers at once at the run's peak.
    scored
        .standings
        .reserve_exact(done.iter().map(|one| one.standings.len()).sum());
    for one in done {
        scored.standings.extend(one.standings);
        scored.rated.extend(one.rated);
    }
    Ok((scored, quarantine))
}
