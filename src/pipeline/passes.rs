//! Hashing and preparing competitions as their board rows arrive.
//!
//! A federation's board rows do not fit in memory all at once, and need not: each
//! competition is hashed for the ledger and scored from its own rows only. So a run
//! takes the rows from a [`BoardSource`] in batches of whole competitions (a month's
//! file at a time when read from disk), hashes and prepares each batch in parallel,
//! keeps what the replay and the outputs need, and lets the rows go. Outcomes are kept
//! by place in replay order, so what a run produces does not depend on the batches,
//! their order or the thread count.

use std::ops::Range;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::dataset::{BoardBatch, BoardRef};
use crate::error::{Error, InputError, Result};
use crate::quarantine::Quarantine;

pub use crate::scoring::{BoardSource, Boards, InMemory};

use super::competition::{Held, Index, Rows, WithBoardScores};
use super::ledger;
use super::prepare::{assemble_in_place, OneCompetition, Prepared};
use super::sealed::{Arriving, BoardScoreRows, Sealer};

/// What a pass runs on a competition in scope: its place in replay order and its rows
/// (the same the hash was just taken of), to its outcome.
pub(super) type PrepareOne<'a, T> =
    dyn Fn(usize, &Rows<'_>) -> std::result::Result<T, InputError> + Sync + 'a;

/// What one competition's task did: its place, its hash and outcome (each when asked
/// for), the time spent hashing and the time spent in all.
type Done<T> = (
    usize,
    Option<String>,
    Option<std::result::Result<T, InputError>>,
    Duration,
    Duration,
);

/// Outcomes of competitions, with their places.
type Outcomes<T> = Vec<(usize, std::result::Result<T, InputError>)>;

/// What a pass keeps, per competition in replay order.
pub(super) struct Collected<T> {
    /// The board scores of every outcome, by place.
    board_scores: Arriving,
    /// Content hashes (when the pass hashes).
    pub hashes: Vec<Option<ledger::ContentHash>>,
    /// Outcomes of the competitions in scope, each in a box of its own: a slot is
    /// then a pointer, where an outcome held in place is a few hundred bytes, and a
    /// run that takes each outcome as soon as it is kept (replaying as it reads) would
    /// hold a slot of that size for every competition of the history.
    pub(super) outcomes: Vec<Option<Held<T>>>,
    /// Competitions whose board rows this pass has seen.
    seen: Vec<bool>,
    /// Outcomes of the batch last worked on, kept while the next is worked on.
    waiting: Outcomes<T>,
    /// The batch last read, grouped: worked on while the next is grouped.
    pending: Option<Pending>,
    pub reading: Duration,
    pub hashing: Duration,
    pub scoring: Duration,
}

impl<T: Send + WithBoardScores> Collected<T> {
    /// Keeps what a pass produces for `competitions` places; board scores are sealed
    /// into row groups as they arrive with `sealer`'s codec, if any.
    pub fn new(competitions: usize, sealer: &Sealer) -> Self {
        Collected {
            board_scores: Arriving::new(competitions, sealer),
            hashes: vec![None; competitions],
            outcomes: (0..competitions).map(|_| None).collect(),
            seen: vec![false; competitions],
            waiting: Vec::new(),
            pending: None,
            reading: Duration::ZERO,
            hashing: Duration::ZERO,
            scoring: Duration::ZERO,
        }
    }

    /// Hashes (when `hash`: those without a hash yet) and runs `one` on (when
    /// `in_scope`) every competition of one batch of board rows, in parallel.
    ///
    /// A competition is hashed and prepared in one task, one after the other: a month's
    /// rows are tens of megabytes, more than the processor's caches hold, so hashing the
    /// whole batch before preparing it read every row from memory twice, where one
    /// competition's rows (a few hundred kilobytes) are still in the cache when the
    /// scorer reads them after the hash; and a compactly held competition's entrants are
    /// unpacked into structs once for the two. The wall time of the two is shared out
    /// in proportion to the time the tasks spent in each.
    ///
    /// The outcomes of the batch worked on before are kept (their board scores appended
    /// and sealed) beside the next tasks rather than before them: keeping is one thread's work,
    /// and the cores would otherwise wait for it between batches. Outcomes are kept by
    /// place, so when they are kept does not change what is kept;
    /// [`Collected::keep_waiting`] keeps the last batch's.
    ///
    /// A reader's batch (rows where they lie, in their column sets) is grouped beside
    /// the work on the batch before it, in the pool, and worked on with the next one
    /// ([`Collected::flush`] works on the last): grouping a batch is one thread's work
    /// too, and the cores waited for it before every batch. Its competitions' rows are
    /// put together by their own tasks.
    fn batch(&mut self, pass: &Pass<'_, T>, rows: Boards<'_>) -> Result<usize> {
        let batch = match rows {
            Boards::Batch(batch) => batch,
            Boards::Rows(_) => {
                self.flush(pass)?;
                return self.batch_of_rows(pass, rows);
            }
        };
        let started = Instant::now();
        let pending = self.pending.take();
        let waiting = std::mem::take(&mut self.waiting);
        let (board_scores, outcomes, hashes) =
            (&mut self.board_scores, &mut self.outcomes, &self.hashes);
        let (done, (kept, next)) = rayon::join(
            || {
                pending
                    .as_ref()
                    .map_or_else(Vec::new, |pending| pending.work(pass, hashes))
            },
            || {
                let kept = keep_into(board_scores, outcomes, waiting);
                let next = Pending {
                    batch: batch.clone(),
                    runs: pass.index.runs(batch),
                };
                (kept, next)
            },
        );
        kept?;
        for (at, _) in &next.runs {
            self.seen[*at] = true;
        }
        let handled = next.runs.len();
        self.pending = Some(next);
        self.waiting = self.take_hashes(done, started);
        Ok(handled)
    }

    /// Works on the batch read last, beside the keeping of the outcomes before it.
    fn flush(&mut self, pass: &Pass<'_, T>) -> Result<()> {
        let Some(pending) = self.pending.take() else {
            return Ok(());
        };
        let started = Instant::now();
        let waiting = std::mem::take(&mut self.waiting);
        let (board_scores, outcomes, hashes) =
            (&mut self.board_scores, &mut self.outcomes, &self.hashes);
        let (done, kept) = rayon::join(
            || pending.work(pass, hashes),
            || keep_into(board_scores, outcomes, waiting),
        );
        kept?;
        self.waiting = self.take_hashes(done, started);
        Ok(())
    }

    /// [`Collected::batch`] for rows held as structs (a dataset in memory): grouped,
    /// then worked on at once.
    fn batch_of_rows(&mut self, pass: &Pass<'_, T>, rows: Boards<'_>) -> Result<usize> {
        let groups = pass.index.group(rows);
        for (at, _) in &groups {
            self.seen[*at] = true;
        }
        let started = Instant::now();
        // What each task does is settled before the keeping starts: the hashes the
        // batch before took are in, and the tasks read nothing the keeping writes.
        let tasks: Vec<(usize, &[BoardRef<'_>], Task)> = groups
            .iter()
            .filter_map(|(at, boards)| {
                Some((*at, boards.as_slice(), pass.task(*at, &self.hashes)?))
            })
            .collect();
        let waiting = std::mem::take(&mut self.waiting);
        let (board_scores, outcomes) = (&mut self.board_scores, &mut self.outcomes);
        let (done, kept) = rayon::join(
            || {
                tasks
                    .par_iter()
                    .map(|&(at, boards, task)| pass.work_on(at, boards, task))
                    .collect::<Vec<Done<T>>>()
            },
            || keep_into(board_scores, outcomes, waiting),
        );
        kept?;
        self.waiting = self.take_hashes(done, started);
        Ok(groups.len())
    }

    /// Keeps the outcomes of the last batch read (see [`Collected::batch`]), counted
    /// as scoring.
    fn keep_waiting(&mut self) -> Result<()> {
        let started = Instant::now();
        let waiting = std::mem::take(&mut self.waiting);
        let kept = self.keep(waiting);
        self.scoring += started.elapsed();
        kept
    }

    /// Keeps what the tasks of a batch did (begun at `started`): the hashes, and the
    /// outcomes with [`Collected::keep`]. The wall time is shared out between hashing
    /// and scoring in proportion to the time the tasks spent in each.
    fn take_done(&mut self, done: Vec<Done<T>>, started: Instant) -> Result<()> {
        let outcomes = self.take_hashes(done, started);
        self.keep(outcomes)
    }

    /// Keeps the hashes the tasks of a batch took (begun at `started`), and returns
    /// their outcomes by place. The wall time is shared out between hashing and
    /// scoring in proportion to the time the tasks spent in each.
    fn take_hashes(&mut self, done: Vec<Done<T>>, started: Instant) -> Outcomes<T> {
        let (mut hashing, mut working) = (Duration::ZERO, Duration::ZERO);
        let mut outcomes = Vec::with_capacity(done.len());
        for (at, hashed, outcome, spent_hashing, spent) in done {
            if let Some(hash) = hashed {
                self.hashes[at] = Some(ledger::ContentHash::of(hash));
            }
            if let Some(outcome) = outcome {
                outcomes.push((at, outcome));
            }
            hashing += spent_hashing;
            working += spent;
        }
        let elapsed = started.elapsed();
        let share = if working.is_zero() {
            0.0
        } else {
            hashing.as_secs_f64() / working.as_secs_f64()
        };
        let hashed = elapsed.mul_f64(share.clamp(0.0, 1.0));
        self.hashing += hashed;
        self.scoring += elapsed.saturating_sub(hashed);
        outcomes
    }

    /// Reads every batch of `source`, hashing (when `hash`) and running `one` on the
    /// competitions in scope; `done` is told how many competitions each batch held.
    #[allow(clippy::too_many_arguments)]
    pub fn read(
        &mut self,
        source: &mut dyn BoardSource,
        index: &Index<'_, '_>,
        hash: bool,
        in_scope: &(dyn Fn(usize) -> bool + Sync),
        one: &PrepareOne<'_, T>,
        done: &(dyn Fn(u64) + Sync),
    ) -> Result<()> {
        let pass = Pass {
            index,
            hash,
            in_scope,
            one,
        };
        self.read_then(source, &pass, done, &mut |_| Ok(Duration::ZERO))
    }

    /// [`Collected::read`], calling `after` after each batch (and once more when the
    /// last outcomes are kept), with what has been kept so far; the time it takes is
    /// not counted as reading.
    pub fn read_then(
        &mut self,
        source: &mut dyn BoardSource,
        pass: &Pass<'_, T>,
        done: &(dyn Fn(u64) + Sync),
        after: &mut dyn FnMut(&mut Self) -> Result<Duration>,
    ) -> Result<()> {
        let Pass {
            index,
            hash,
            in_scope,
            ..
        } = *pass;
        let started = Instant::now();
        let mut spent_after = Duration::ZERO;
        let (hashing, scoring) = (self.hashing, self.scoring);
        let wanted = |id: &str| hash || index.position(id).is_some_and(in_scope);
        let source_has_rows = |at: usize| source.has_rows(&index.order[at].competition_id);
        self.board_scores
            .expect(|at| in_scope(at) && source_has_rows(at));
        source.read_boards(&wanted, &mut |rows| {
            let handled = self.batch(pass, rows)?;
            done(handled as u64);
            spent_after += after(self)?;
            Ok(())
        })?;
        self.flush(pass)?;
        self.keep_waiting()?;
        // A competition whose rows did not come (left out by the reader) has none to
        // come: those scored from their reported results have no board scores.
        for at in (0..self.seen.len()).filter(|&at| !self.seen[at]) {
            self.board_scores.settle(at);
        }
        spent_after += after(self)?;
        let spent = (self.hashing - hashing) + (self.scoring - scoring) + spent_after;
        self.reading += started.elapsed().saturating_sub(spent);
        Ok(())
    }

    /// Takes the outcome kept for the place `at`, if any.
    pub fn take_outcome(&mut self, at: usize) -> Option<std::result::Result<T, InputError>> {
        self.outcomes
            .get_mut(at)
            .and_then(Option::take)
            .map(|held| *held)
    }

    /// Whether this pass has seen the board rows of the place `at` (or scored it
    /// without).
    pub fn was_seen(&self, at: usize) -> bool {
        self.seen.get(at).copied().unwrap_or(false)
    }

    /// Hashes (those without a hash yet) and runs `one` on the competitions at
    /// `places`, which have no board rows, in parallel, while the board rows are still
    /// being read: they count as seen.
    pub fn score_now(
        &mut self,
        index: &Index<'_, '_>,
        places: &[usize],
        one: &PrepareOne<'_, T>,
    ) -> Result<()> {
        let started = Instant::now();
        let hashes = &self.hashes;
        let done: Vec<Done<T>> = places
            .par_iter()
            .map(|&at| work_on(index, at, &[], hashes[at].is_none(), true, one))
            .collect();
        for &at in places {
            if let Some(seen) = self.seen.get_mut(at) {
                *seen = true;
            }
        }
        self.take_done(done, started)
    }

    /// Hashes (when `hash`) and runs `one` on the competitions no board rows came for
    /// (scored from their reported results), leaving out those `quarantine` holds.
    pub fn rest(
        &mut self,
        index: &Index<'_, '_>,
        quarantine: &Quarantine,
        hash: bool,
        in_scope: &(dyn Fn(usize) -> bool + Sync),
        one: &PrepareOne<'_, T>,
    ) -> Result<()> {
        let rest: Vec<usize> = (0..index.order.len())
            .filter(|&at| !self.seen[at] && !quarantine.contains(&index.order[at].competition_id))
            .collect();
        let started = Instant::now();
        let hashes = &self.hashes;
        let to_hash = |at: usize| hash && hashes[at].is_none();
        let done: Vec<Done<T>> = rest
            .par_iter()
            .filter(|&&at| to_hash(at) || in_scope(at))
            .map(|&at| work_on(index, at, &[], to_hash(at), in_scope(at), one))
            .collect();
        self.take_done(done, started)
    }

    /// Takes the hashes of competitions whose rows are not read (by id), as if their
    /// rows had been seen.
    pub fn know(&mut self, index: &Index<'_, '_>, known: &ledger::Known) {
        for (at, competition) in index.order.iter().enumerate() {
            if let Some(hash) = known.get(&competition.competition_id) {
                self.hashes[at] = Some(ledger::ContentHash::of(hash.clone()));
                self.seen[at] = true;
            }
        }
    }

    /// Takes the hashes of competitions whose rows are read but need no hashing (by
    /// id): the dataset's index, checked against the files' bytes, holds the hash the
    /// same reader took of the same rows.
    pub fn vouch(&mut self, index: &Index<'_, '_>, mut vouched: ledger::Known) {
        if vouched.is_empty() {
            return;
        }
        for (at, competition) in index.order.iter().enumerate() {
            if self.hashes[at].is_none() {
                if let Some(hash) = vouched.remove(&competition.competition_id) {
                    self.hashes[at] = Some(ledger::ContentHash::of(hash));
                }
            }
        }
    }

    /// Keeps outcomes, and seals the board scores that fill a row group.
    fn keep(&mut self, outcomes: Outcomes<T>) -> Result<()> {
        keep_into(&mut self.board_scores, &mut self.outcomes, outcomes)
    }

    /// The outcomes of the competitions at `places`, in that order; an error names a
    /// competition whose board rows never arrived.
    pub fn take_outcomes(
        &mut self,
        index: &Index<'_, '_>,
        places: &[usize],
    ) -> Result<Vec<std::result::Result<T, InputError>>> {
        places
            .iter()
            .map(|&at| {
                self.outcomes[at]
                    .take()
                    .map(|held| *held)
                    .ok_or_else(|| never_scored(index, at))
            })
            .collect()
    }

    /// The board scores of the competitions at `places`, in that order.
    pub fn board_scores(&mut self, places: &[usize]) -> Result<BoardScoreRows> {
        self.board_scores.finish(places)
    }

    /// Makes room for `rows` board scores (when they are not sealed as they come).
    pub fn reserve_board_scores(&mut self, rows: usize) {
        self.board_scores.reserve(rows);
    }

    /// A fresh start for a second pass that scores again what the first one scored:
    /// nothing of the first is kept but the time it took.
    pub fn again(&self, sealer: &Sealer) -> Self {
        let mut fresh = Collected::new(self.outcomes.len(), sealer);
        (fresh.reading, fresh.hashing, fresh.scoring) = (self.reading, self.hashing, self.scoring);
        fresh
    }

    /// Starts a new pass over the board rows (a continued run's second).
    pub fn next_pass(&mut self) {
        self.seen.iter_mut().for_each(|seen| *seen = false);
    }
}

impl Collected<OneCompetition> {
    /// The competitions at `places` (in replay order) scored and prepared, put together
    /// as the replay and the outputs take them ([`Prepared`], board scores apart: see
    /// [`Collected::board_scores`]); an error names a competition whose board rows never
    /// arrived. The outcomes are let go as they are put together.
    pub fn assemble(&mut self, index: &Index<'_, '_>, places: &[usize]) -> Result<Prepared> {
        if let Some(&at) = places.iter().find(|&&at| self.outcomes[at].is_none()) {
            return Err(never_scored(index, at));
        }
        let mut outcomes = std::mem::take(&mut self.outcomes);
        Ok(assemble_in_place(&index.order, &mut outcomes, places))
    }
}

/// What a pass does with each batch of board rows: the index of the competitions,
/// whether their contents are hashed, which competitions are worked on, and the work.
pub(super) struct Pass<'p, T> {
    pub index: &'p Index<'p, 'p>,
    pub hash: bool,
    pub in_scope: &'p (dyn Fn(usize) -> bool + Sync),
    pub one: &'p PrepareOne<'p, T>,
}

/// What a pass does with one competition: (hash it, work on it).
type Task = (bool, bool);

impl<T> Pass<'_, T> {
    /// The task of the competition at `at`, given the hashes taken so far: it is hashed
    /// when the pass hashes and it has no hash yet, worked on when in scope; `None`
    /// when neither.
    fn task(&self, at: usize, hashes: &[Option<ledger::ContentHash>]) -> Option<Task> {
        let to_hash = self.hash && hashes.get(at).is_some_and(Option::is_none);
        let scoped = (self.in_scope)(at);
        (to_hash || scoped).then_some((to_hash, scoped))
    }

    /// Does `task` on the competition at `at` with its `boards` ([`work_on`]).
    fn work_on(&self, at: usize, boards: &[BoardRef<'_>], (to_hash, scoped): Task) -> Done<T> {
        work_on(self.index, at, boards, to_hash, scoped, self.one)
    }
}

/// A batch of board rows grouped by competition, not yet worked on.
struct Pending {
    batch: BoardBatch,
    /// Per competition in the batch, in replay order: its place and the runs of the
    /// batch's slots holding its rows ([`Index::runs`]).
    runs: Vec<(usize, Vec<Range<usize>>)>,
}

impl Pending {
    /// Hashes (when `hash`: those without a hash in `hashes`) and runs `one` on (when
    /// `in_scope`) each competition of the batch, in parallel, each task putting its
    /// competition's rows together first.
    fn work<T: Send>(
        &self,
        pass: &Pass<'_, T>,
        hashes: &[Option<ledger::ContentHash>],
    ) -> Vec<Done<T>> {
        self.runs
            .par_iter()
            .filter_map(|(at, runs)| {
                pass.task(*at, hashes).map(|task| {
                    let boards: Vec<BoardRef<'_>> = runs
                        .iter()
                        .flat_map(|run| self.batch.slots.get(run.clone()).unwrap_or_default())
                        .map(|slot| self.batch.row(slot))
                        .collect();
                    pass.work_on(*at, &boards, task)
                })
            })
            .collect()
    }
}

/// Keeps `kept` outcomes by place in `outcomes`, their board scores in
/// `board_scores`, and seals the board scores that fill a row group.
fn keep_into<T: WithBoardScores>(
    board_scores: &mut Arriving,
    outcomes: &mut [Option<Held<T>>],
    kept: Outcomes<T>,
) -> Result<()> {
    for (at, mut outcome) in kept {
        match &mut outcome {
            Ok(one) => board_scores.push(at, one.take_board_scores()),
            Err(_) => board_scores.settle(at),
        }
        outcomes[at] = Some(Box::new(outcome));
    }
    board_scores.seal_full()
}

fn never_scored(index: &Index<'_, '_>, at: usize) -> Error {
    Error::Config(format!(
        "competition `{}` was never scored: its board rows did not arrive",
        index.order[at].competition_id
    ))
}

/// Hashes (when `hash`) and runs `one` on (when `in_scope`) the competition at `at`,
/// from one unpacking of its rows: a compactly held competition's entrants are built
/// as structs once for both.
fn work_on<T>(
    index: &Index<'_, '_>,
    at: usize,
    boards: &[BoardRef<'_>],
    hash: bool,
    in_scope: bool,
    one: &PrepareOne<'_, T>,
) -> Done<T> {
    let task = Instant::now();
    index.with_rows(at, boards, |rows| {
        let hashed = hash.then(|| {
            ledger::competition_hash(index.order[at], &rows.entrants, &rows.reported, boards)
        });
        // Putting the rows together counts as hashing only when they are hashed.
        let hashing = if hash { task.elapsed() } else { Duration::ZERO };
        let outcome = in_scope.then(|| one(at, rows));
        (at, hashed, outcome, hashing, task.elapsed())
    })
}

/// A competition's content hash and its rows, as a run's first pass finds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hashed {
    /// `None` for a competition the reader left out: a run hashes no such rows.
    pub sha256: Option<String>,
    pub entrants: u64,
    pub results: u64,
    pub boards: u64,
}

/// Every competition of `head` (in replay order) with the content hash a run's first
/// pass takes of its rows, the board rows coming from `boards` a batch at a time, as
/// they come in a run: the index of a dataset that a run always reads whole
/// ([`crate::store::index`]) is the run's own hashing, done once.
pub fn content_hashes<'c>(
    head: &'c crate::dataset::Dataset,
    rows: super::EntrantRows<'_>,
    boards: &mut dyn BoardSource,
) -> Result<Vec<(&'c crate::dataset::Competition, Hashed)>> {
    let index = Index::new(&head.competitions, &rows.entrants, &rows.results);
    let hash_one = |at: usize, boards: &[BoardRef<'_>]| {
        index.with_rows(at, boards, |rows| Hashed {
            sha256: Some(ledger::competition_hash(
                index.order[at],
                &rows.entrants,
                &rows.reported,
                boards,
            )),
            entrants: rows.entrants.len() as u64,
            results: rows.reported.len() as u64,
            boards: boards.len() as u64,
        })
    };
    let mut found: Vec<Option<Hashed>> = vec![None; index.order.len()];
    boards.read_boards(&|_| true, &mut |batch| {
        let groups = index.group(batch);
        let hashed: Vec<(usize, Hashed)> = groups
            .par_iter()
            .filter(|(at, _)| found[*at].is_none())
            .map(|(at, rows)| (*at, hash_one(*at, rows)))
            .collect();
        for (at, hashed) in hashed {
            found[at] = Some(hashed);
        }
        Ok(())
    })?;
    let quarantine = boards.finish(head)?;
    boards.release();
    let rest: Vec<usize> = (0..found.len()).filter(|&at| found[at].is_none()).collect();
    for (at, hashed) in rest
        .par_iter()
        .map(|&at| (at, hash_one(at, &[])))
        .collect::<Vec<_>>()
    {
        found[at] = Some(hashed);
    }
    Ok(index
        .order
        .iter()
        .zip(found)
        .map(|(&competition, hashed)| {
            let mut hashed = hashed.unwrap_or(Hashed {
                sha256: None,
                entrants: 0,
                results: 0,
                boards: 0,
            });
            if quarantine.contains(&competition.competition_id) {
                hashed.sha256 = None;
            }
            (competition, hashed)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{BoardResult, BoardRow, Dataset};
    use crate::pipeline::competition::tests::{batch_of, board, march_pairs};
    use crate::scoring::BoardScore;

    /// An outcome holding one board score per board row, named by its board.
    struct Boarded(Vec<BoardScore>);

    impl WithBoardScores for Boarded {
        fn take_board_scores(&mut self) -> Vec<BoardScore> {
            std::mem::take(&mut self.0)
        }
    }

    /// Hands on each slice of rows as a batch of its own: as plain rows, or (`reader`)
    /// as a reader's batch, in a column set.
    struct Batches {
        rows: Vec<Vec<BoardResult>>,
        reader: bool,
    }

    impl BoardSource for Batches {
        fn read_boards(
            &mut self,
            _wanted: &(dyn Fn(&str) -> bool + Sync),
            each: &mut dyn FnMut(Boards<'_>) -> Result<()>,
        ) -> Result<()> {
            self.rows.iter().try_for_each(|rows| {
                if self.reader {
                    each(Boards::Batch(&batch_of(rows.clone())))
                } else {
                    each(Boards::Rows(rows))
                }
            })
        }

        fn finish(&mut self, _head: &Dataset) -> Result<Quarantine> {
            Ok(Quarantine::new(crate::quarantine::OnError::Quarantine))
        }
    }

    /// The competitions each batch held, and the board scores by (competition, board).
    type KeptByAPass = (Vec<u64>, Vec<(String, u32)>);

    /// The competitions each batch of `source` held, and the board scores of all of
    /// them by (competition, board), as a pass keeps them: one board score per row.
    fn kept_by_a_pass(source: &mut dyn BoardSource) -> Result<KeptByAPass> {
        // Replay order: `a`, `b`, `c`, `d` (no board rows).
        let dataset = march_pairs(&[("a", 1), ("b", 2), ("c", 3), ("d", 4)]);
        let index = Index::of(&dataset);
        let mut collected: Collected<Boarded> = Collected::new(4, &Sealer::default());
        let one = |_at: usize, rows: &Rows<'_>| {
            let scores = rows
                .boards
                .iter()
                .map(|row| BoardScore {
                    competition_id: row.competition_id().into(),
                    board: row.board(),
                    ns: None,
                    ew: None,
                    ns_score: None,
                    ns_points: 0.0,
                    ew_points: 0.0,
                    datum: None,
                })
                .collect();
            Ok(Boarded(scores))
        };
        let in_scope = |_: usize| true;
        let counts = std::sync::Mutex::new(Vec::new());
        let done = |handled: u64| {
            if let Ok(mut counts) = counts.lock() {
                counts.push(handled);
            }
        };
        collected.read(source, &index, false, &in_scope, &one, &done)?;
        let kept: Vec<usize> = collected
            .outcomes
            .iter()
            .enumerate()
            .filter_map(|(at, outcome)| outcome.as_ref().map(|_| at))
            .collect();
        assert_eq!(kept, vec![0, 1, 2]);
        let rows = collected.board_scores(&[0, 1, 2])?;
        let boards = rows
            .rest_table()
            .rows()
            .map(|row| (row.competition_id.to_string(), row.board))
            .collect();
        Ok((counts.into_inner().unwrap_or_default(), boards))
    }

    #[test]
    fn a_readers_batches_are_each_worked_on_with_the_next_and_all_kept_by_place() -> Result<()> {
        // The batches come out of replay order; `c`, the last, is worked on after the
        // reading, and `x` is no competition of the dataset.
        let mut source = Batches {
            rows: vec![
                vec![board("b", 1), board("x", 9), board("b", 2)],
                vec![board("a", 3)],
                vec![board("c", 4), board("c", 5), board("c", 6)],
            ],
            reader: true,
        };
        let (counts, boards) = kept_by_a_pass(&mut source)?;
        assert_eq!(counts, vec![1, 1, 1]);
        assert_eq!(boards, kept_in_replay_order());
        Ok(())
    }

    /// The board rows of both tests' batches (`x` aside), kept by place: in replay
    /// order, each competition's in the order they came.
    fn kept_in_replay_order() -> Vec<(String, u32)> {
        [("a", 3), ("b", 1), ("b", 2), ("c", 4), ("c", 5), ("c", 6)]
            .iter()
            .map(|&(id, board)| (id.to_owned(), board))
            .collect()
    }

    #[test]
    fn every_batch_is_kept_by_place_the_last_one_too() -> Result<()> {
        // The batches come out of replay order; `c`, the last, is kept after the
        // reading.
        let mut source = Batches {
            rows: vec![
                vec![board("b", 1), board("b", 2)],
                vec![board("a", 3)],
                vec![board("c", 4), board("c", 5), board("c", 6)],
            ],
            reader: false,
        };
        let (_, boards) = kept_by_a_pass(&mut source)?;
        assert_eq!(boards, kept_in_replay_order());
        Ok(())
    }
}
