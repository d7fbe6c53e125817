//! Replaying each month as soon as it is scored.
//!
//! A run from scratch scores the history a month's board file at a time, and the
//! replay takes the history a month at a time too: holding every competition's model
//! input from its scoring to the end of the reading (the whole history of them, the
//! largest thing a run held) is needed only when the replay waits for the reading.
//! So the competitions are taken from the pass in replay order as soon as every one
//! before them is scored, and each month is replayed (and its inputs let go of) once
//! the first competition of the next month is taken. Competitions without board rows
//! (scored from their reported results) are scored a batch at a time when the replay
//! reaches them, and the months the batch before completed are replayed meanwhile: the
//! replay applies each competition on one thread, and the scoring takes the other core.
//! A frozen run replays this way too: its month is rated on the month's opening
//! handicaps once the month is complete.
//!
//! Which competitions the replay takes is final only when the reading ends: a rule
//! that needs every table may still leave one out then. The months are replayed on
//! what is known so far, and the places taken are compared with the run's at the end;
//! should they differ (a competition left out after it was replayed), the run reads
//! the board rows again and replays from the start, as it did before, so the outputs
//! are the same either way. Competitions whose rows come out of replay order (one
//! large file ordered by club, a competition the reader left out) hold the replay back
//! until they come, or until the reading ends.

use std::time::{Duration, Instant};

use crate::dataset::Competition;
use crate::error::{InputError, Result};
use crate::quarantine::Quarantine;

use super::competition::failed;
use super::passes::{Collected, Pass};
use super::prepare::{OneCompetition, Prepared, PreparedCompetition};
use super::replay::{Releasing, ReplayOutput};
use super::standing_groups::StandingGroups;
use super::state::month_index;

/// Competitions scored from their reported results at once, at most, when the
/// replay reaches them: a month's worth, in parallel.
const WITHOUT_ROWS_AT_ONCE: usize = 4_096;

/// The replay of a run from scratch, fed from the first pass as it goes.
pub(super) struct Streaming<'s> {
    releasing: Releasing<'s>,
    /// What the replay and the outputs take, put together in replay order as the
    /// competitions are taken (board scores apart: the pass keeps those).
    prepared: Prepared,
    /// The places (in replay order) taken so far, in order.
    taken: Vec<usize>,
    /// The next place to take.
    frontier: usize,
    /// Where the month not yet replayed starts among the prepared competitions.
    month_start: usize,
    /// Where the months complete but not yet replayed end among the prepared
    /// competitions (`month_start` when there are none): they are replayed beside the
    /// next competitions' scoring, or before `advance` returns.
    complete: usize,
    /// By place: whether the board files hold rows of the competition.
    has_rows: Vec<bool>,
    /// By place: whether the reading's end leaves the competition out whatever its
    /// board rows (a row of `entrants` or `results`, or its percentages, broke a rule).
    left_out: Vec<bool>,
    /// The standings sealed into row groups as their months are replayed, when the run
    /// seals them.
    standings: Option<StandingGroups<'s>>,
    replaying: Duration,
}

/// What a run from scratch replayed while it read: the prepared competitions, the
/// replay's output, and the time it took.
pub(super) struct Streamed {
    pub prepared: Prepared,
    pub replay: ReplayOutput,
    pub replaying: Duration,
}

impl<'s> Streaming<'s> {
    /// A replay through `releasing` of competitions of which `has_rows` says (by
    /// place) which have board rows and `left_out` which the reading's end leaves
    /// out; room is made for `lines` standings lines and
    /// `rated` competitions, bounds of what comes (with `standings`, the lines sealed
    /// as they are final, room for the lines they hold at most).
    pub fn new(
        releasing: Releasing<'s>,
        (has_rows, left_out): (Vec<bool>, Vec<bool>),
        (lines, rated): (usize, usize),
        standings: Option<StandingGroups<'s>>,
    ) -> Self {
        let mut prepared = Prepared::default();
        match &standings {
            Some(groups) => prepared.standings.reserve(lines.min(groups.room()), 0, 0),
            None => prepared.standings.reserve(lines, has_rows.len(), 0),
        }
        prepared.competitions.reserve_exact(rated);
        Streaming {
            releasing,
            prepared,
            taken: Vec::new(),
            frontier: 0,
            month_start: 0,
            complete: 0,
            has_rows,
            left_out,
            standings,
            replaying: Duration::ZERO,
        }
    }

    /// Takes the outcomes the pass has for the places from the frontier on, in order,
    /// up to the first one still to come, and replays the months they complete.
    /// `quarantine` is the reader's, once the reading is over (`None` while it goes
    /// on): then the competitions it holds are passed over; before, a competition
    /// without board rows is scored from its reported results when the frontier
    /// reaches it (one without a board count, which the reading's end leaves out, is
    /// passed over).
    pub fn advance(
        &mut self,
        collected: &mut Collected<OneCompetition>,
        pass: &Pass<'_, OneCompetition>,
        quarantine: Option<&Quarantine>,
    ) -> Result<()> {
        let order = &pass.index.order;
        while let Some(&competition) = order.get(self.frontier) {
            let at = self.frontier;
            if !(pass.in_scope)(at) {
                // Competitions after `--until` come last in replay order.
                self.frontier = order.len();
                break;
            }
            let left_out = self.left_out.get(at).copied().unwrap_or(false);
            if left_out || quarantine.is_some_and(|q| q.contains(&competition.competition_id)) {
                self.frontier += 1;
                continue;
            }
            if let Some(outcome) = collected.take_outcome(at) {
                self.take(competition, outcome)?;
                pass.index.release_rows(at);
                self.taken.push(at);
                self.frontier += 1;
                continue;
            }
            if quarantine.is_some() || self.has_rows[at] || collected.was_seen(at) {
                break;
            }
            if competition.boards.is_none() {
                self.frontier += 1;
                continue;
            }
            let places = self.without_rows(collected, pass, at);
            // The months already complete are replayed while the next competitions
            // are scored: neither waits for the other, and the replay's one-thread
            // parts leave a core to the scoring.
            let (scored, replayed) = rayon::join(
                || collected.score_now(pass.index, &places, pass.one),
                || self.replay_complete(),
            );
            scored?;
            replayed?;
        }
        self.replay_complete()
    }

    /// The places from `at` on, up to [`WITHOUT_ROWS_AT_ONCE`], of competitions in
    /// scope without board rows, not yet scored and with a board count.
    fn without_rows(
        &self,
        collected: &Collected<OneCompetition>,
        pass: &Pass<'_, OneCompetition>,
        at: usize,
    ) -> Vec<usize> {
        let order = &pass.index.order;
        (at..order.len())
            .take_while(|&p| {
                (pass.in_scope)(p)
                    && !self.has_rows[p]
                    && !collected.was_seen(p)
                    && order[p].boards.is_some()
            })
            .take(WITHOUT_ROWS_AT_ONCE)
            .collect()
    }

    /// Puts one competition's outcome with the others, as [`super::prepare`] puts them
    /// together, replaying the month before when it is the first of a month.
    fn take(
        &mut self,
        competition: &Competition,
        outcome: std::result::Result<OneCompetition, InputError>,
    ) -> Result<()> {
        match outcome {
            Ok(one) => {
                if let (Some(groups), Some(_)) = (&mut self.standings, &one.rated) {
                    groups.rated_taken(&self.prepared.standings);
                }
                one.standings.append_to(&mut self.prepared.standings);
                self.prepared.board_scores.extend(one.board_scores);
                if let Some(rated) = one.rated {
                    self.push_rated(rated);
                }
            }
            Err(error) => self.prepared.quarantined.push(failed(competition, error)),
        }
        Ok(())
    }

    /// Puts a rated competition after the others; the first of a month completes the
    /// month before (replayed by [`Streaming::replay_complete`]).
    fn push_rated(&mut self, rated: PreparedCompetition) {
        let competitions = &self.prepared.competitions;
        let last = competitions.last();
        if last.is_some_and(|last| month_index(last.date) != month_index(rated.date)) {
            self.complete = competitions.len();
        }
        self.prepared.competitions.push(rated);
    }

    /// Replays the months complete and not yet replayed, one after the other.
    fn replay_complete(&mut self) -> Result<()> {
        while self.month_start < self.complete {
            let waiting = self
                .prepared
                .competitions
                .get(self.month_start..self.complete);
            let Some((first, rest)) = waiting.and_then(<[_]>::split_first) else {
                break;
            };
            let month = month_index(first.date);
            let others = rest.iter().take_while(|c| month_index(c.date) == month);
            let end = self.month_start + 1 + others.count();
            self.replay_month(end)?;
        }
        Ok(())
    }

    /// Replays the month not yet replayed, which ends at `end`.
    fn replay_month(&mut self, end: usize) -> Result<()> {
        let started = Instant::now();
        let competitions = &mut self.prepared.competitions;
        let window = self.month_start..end;
        self.releasing.month(competitions, window, &|_| {})?;
        if let Some(groups) = &mut self.standings {
            let table = &mut self.prepared.standings;
            let so_far = self.releasing.so_far();
            groups.replayed(table, end - self.month_start, so_far, competitions)?;
        }
        self.month_start = end;
        self.replaying += started.elapsed();
        Ok(())
    }

    /// Whether the places taken are `scope`, the run's competitions in replay order.
    pub fn took(&self, scope: &[usize]) -> bool {
        self.taken == scope
    }

    /// Replays the last month and hands over what was replayed.
    pub fn finish(mut self) -> Result<Streamed> {
        self.replay_complete()?;
        let end = self.prepared.competitions.len();
        if self.month_start < end {
            self.replay_month(end)?;
        }
        let started = Instant::now();
        let replay = self.releasing.finish(&mut self.prepared.competitions)?;
        if let Some(groups) = self.standings.take() {
            self.prepared.standings_sealed = groups.finish()?;
        }
        Ok(Streamed {
            prepared: self.prepared,
            replay,
            replaying: self.replaying + started.elapsed(),
        })
    }
}
