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
    pub standings: StandingRows,
    /// Board scores of every competition scored from table results, in replay order.
    pub board_scores: super::sealed::BoardScoreRows,
    /// Rated competitions prepared for the model, in replay order, when asked for
    /// ([`score_source`]).
    pub rated: Vec<PreparedCompetition>,
    /// Competitions that could not be scored, in replay order, with the reason; nothing
    /// of them is in the fields above.
    pub quarantined: Vec<Quarantined>,
}

/// The standings of many competitions, in replay order, held as the scorer made them: a
/// run of rows per competition. A federation's standings are millions of rows; gathered
/// into one vector at the end of scoring, they would be held twice at the command's
/// peak (the runs and the vector, about 0.3 GB each at full size), as the runs' memory,
/// freed a few kilobytes at a time among longer-lived rows, mostly stays with the process.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StandingRows {
    runs: Vec<Vec<Standing>>,
    /// Where each run begins among all the rows.
    starts: Vec<usize>,
    len: usize,
}

impl StandingRows {
    /// Appends a competition's standings (an empty run is not kept).
    pub fn push(&mut self, run: Vec<Standing>) {
        if run.is_empty() {
            return;
        }
        self.starts.push(self.len);
        self.len += run.len();
        self.runs.push(run);
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Standing> {
        self.runs.iter().flatten()
    }

    /// The runs, in order: each one competition's rows, as pushed.
    pub fn runs(&self) -> impl Iterator<Item = &[Standing]> {
        self.runs.iter().map(Vec::as_slice)
    }

    /// The rows at `range` of all of them (clamped to the rows there are), in order.
    pub fn rows(&self, range: std::ops::Range<usize>) -> Vec<&Standing> {
        let end = range.end.min(self.len);
        let mut rows = Vec::with_capacity(end.saturating_sub(range.start));
        // The last run beginning at or before the range's first row holds it.
        let first = self.starts.partition_point(|&start| start <= range.start);
        let mut at = first.saturating_sub(1);
        while let (Some(run), Some(&start)) = (self.runs.get(at), self.starts.get(at)) {
            if start >= end {
                break;
            }
            let from = range.start.saturating_sub(start).min(run.len());
            let to = (end - start).min(run.len());
            rows.extend(&run[from..to]);
            at += 1;
        }
        rows
    }
}

impl FromIterator<Vec<Standing>> for StandingRows {
    fn from_iter<I: IntoIterator<Item = Vec<Standing>>>(runs: I) -> Self {
        let mut rows = StandingRows::default();
        for run in runs {
            rows.push(run);
        }
        rows
    }
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
        scored.standings.push(one.standings);
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
    for one in done {
        scored.standings.push(one.standings);
        scored.rated.extend(one.rated);
    }
    Ok((scored, quarantine))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(competition: &str, entrants: &[&str]) -> Vec<Standing> {
        entrants
            .iter()
            .map(|entrant| Standing::new(competition, entrant, 0.0, 24))
            .collect()
    }

    fn entrants(rows: &[&Standing]) -> Vec<String> {
        rows.iter()
            .map(|s| format!("{}/{}", s.competition_id, s.entrant))
            .collect()
    }

    /// Three competitions of 3, 0 and 2 rows: 5 rows, rows 0-2 in the first run and
    /// 3-4 in the last (the empty one is not kept).
    fn three() -> StandingRows {
        [
            run("a", &["1", "2", "3"]),
            run("b", &[]),
            run("c", &["1", "2"]),
        ]
        .into_iter()
        .collect()
    }

    #[test]
    fn runs_are_kept_in_order_and_an_empty_one_is_left_out() {
        let rows = three();
        assert_eq!(rows.len(), 5);
        assert_eq!(
            rows.runs().map(<[Standing]>::len).collect::<Vec<_>>(),
            [3, 2]
        );
        let all: Vec<&Standing> = rows.iter().collect();
        assert_eq!(entrants(&all), ["a/1", "a/2", "a/3", "c/1", "c/2"]);
    }

    #[test]
    fn a_range_of_rows_spans_the_runs_it_crosses() {
        let rows = three();
        assert_eq!(
            entrants(&rows.rows(0..5)),
            ["a/1", "a/2", "a/3", "c/1", "c/2"]
        );
        assert_eq!(entrants(&rows.rows(2..4)), ["a/3", "c/1"]);
        assert_eq!(entrants(&rows.rows(3..5)), ["c/1", "c/2"]);
        assert_eq!(entrants(&rows.rows(1..2)), ["a/2"]);
        assert_eq!(entrants(&rows.rows(4..9)), ["c/2"]);
        assert!(rows.rows(5..9).is_empty());
        assert!(rows.rows(2..2).is_empty());
        assert!(StandingRows::default().rows(0..3).is_empty());
    }
}
