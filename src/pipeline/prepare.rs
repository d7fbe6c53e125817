//! From a dataset to the model's inputs, one competition at a time.
//!
//! This is where the contract's tables meet the model: every competition is scored
//! (`score`), and each rated one is turned into the model's input (`model_input`, with
//! the results in the model's unit from `units`), in replay order. Competitions are
//! independent, so this runs in parallel; a competition that breaks a rule is left out
//! and listed, at the same place whatever the thread count.

use crate::dataset::{Competition, Dataset};
use crate::error::InputError;
use crate::model::FactorSet;
use crate::quarantine::Quarantined;
use crate::scoring::BoardScore;

use super::competition::{each_competition, failed, score_one, Rows, WithBoardScores};
use super::model_input::build_input;
use super::state::Registry;
use super::units::model_results;

pub use super::prepared::{
    EntrantNames, NonMemberSeat, PreparedCompetition, Seat, StandingLine, StandingTable,
};

/// Everything the replay and the reports need from the dataset.
#[derive(Debug, Default)]
pub struct Prepared {
    /// Rated competitions in replay order (date, session, id).
    pub competitions: Vec<PreparedCompetition>,
    /// Standings of every competition, in replay order, after those sealed.
    pub standings: StandingTable,
    /// The leading standings lines, sealed into `standings.parquet`'s row groups as the
    /// run replayed (none unless it replayed as it read).
    pub standings_sealed: super::spill::EncodedGroups,
    /// Board scores of every competition scored from table results, in replay order.
    pub board_scores: super::sealed::BoardScoreRows,
    /// Competitions that could not be scored or prepared, in replay order, with the
    /// reason; nothing of them is in the fields above.
    pub quarantined: Vec<Quarantined>,
}

/// Scores every competition and prepares the rated ones for the model. `factors`
/// supplies the class multipliers. A competition that breaks a rule is left out whole
/// and listed in [`Prepared::quarantined`].
pub fn prepare(
    dataset: &Dataset,
    registry: &Registry,
    factors: &FactorSet,
    on_competition_done: &(dyn Fn() + Sync),
) -> Prepared {
    let one = |competition: &Competition, rows: &Rows<'_>| {
        let mut one = prepare_one(competition, rows, registry, factors, super::Rate::default())?;
        if let Some(rated) = &mut one.rated {
            rated.unpack();
        }
        Ok(one)
    };
    let (done, quarantined) = each_competition(dataset, one, on_competition_done);
    assemble(done, quarantined)
}

/// The prepared competitions, in replay order, put together.
pub(super) fn assemble(done: Vec<OneCompetition>, quarantined: Vec<Quarantined>) -> Prepared {
    let mut all = Prepared {
        quarantined,
        ..Prepared::default()
    };
    let lines = done.iter().map(|one| one.standings.len()).sum();
    let text = done.iter().map(|one| one.standings.text_len()).sum();
    all.standings.reserve(lines, done.len(), text);
    let rated = done.iter().filter(|one| one.rated.is_some()).count();
    all.competitions.reserve_exact(rated);
    for one in done {
        one.standings.append_to(&mut all.standings);
        all.board_scores.extend(one.board_scores);
        if let Some(competition) = one.rated {
            all.competitions.push(competition);
        }
    }
    all
}

/// The outcomes at `places` (in replay order) put together, each taken out of
/// `outcomes` as it is appended, so that no second list of every competition's outcome
/// is made on the way; those that failed are listed as quarantined.
pub(super) fn assemble_in_place(
    order: &[&Competition],
    outcomes: &mut [Option<super::competition::Held<OneCompetition>>],
    places: &[usize],
) -> Prepared {
    let mut all = Prepared::default();
    let (mut lines, mut competitions, mut text, mut rated) = (0, 0, 0, 0);
    for one in places
        .iter()
        .filter_map(|&at| outcomes.get(at)?.as_deref()?.as_ref().ok())
    {
        lines += one.standings.len();
        competitions += 1;
        text += one.standings.text_len();
        rated += usize::from(one.rated.is_some());
    }
    all.standings.reserve(lines, competitions, text);
    all.competitions.reserve_exact(rated);
    for &at in places {
        let Some(outcome) = outcomes.get_mut(at).and_then(Option::take) else {
            continue;
        };
        match *outcome {
            Ok(one) => {
                one.standings.append_to(&mut all.standings);
                all.board_scores.extend(one.board_scores);
                if let Some(competition) = one.rated {
                    all.competitions.push(competition);
                }
            }
            Err(error) => all.quarantined.push(failed(order[at], error)),
        }
    }
    all
}

/// One competition scored and prepared, as a pass keeps it until the replay: its
/// standings already compact, built on the thread that scored it.
pub(super) struct OneCompetition {
    pub standings: HeldStandings,
    pub board_scores: Vec<BoardScore>,
    pub rated: Option<PreparedCompetition>,
}

impl WithBoardScores for OneCompetition {
    fn take_board_scores(&mut self) -> Vec<BoardScore> {
        std::mem::take(&mut self.board_scores)
    }
}

/// A rated competition's model input, from its rows and the results scoring gave.
pub(super) fn rated_input(
    competition: &Competition,
    rows: &Rows<'_>,
    results: Vec<crate::dataset::EntrantResult>,
    registry: &Registry,
    factors: &FactorSet,
) -> Result<PreparedCompetition, InputError> {
    let results = model_results(competition, &rows.entrants, rows.boards, results)?;
    build_input(
        competition,
        &rows.entrants,
        &results,
        rows.boards,
        registry,
        factors,
    )
}

/// One competition scored and, when rated, prepared, its model input packed for the
/// wait until the replay ([`PreparedCompetition::pack`]).
pub(super) fn prepare_one(
    competition: &Competition,
    rows: &Rows<'_>,
    registry: &Registry,
    factors: &FactorSet,
    rate: super::Rate,
) -> Result<OneCompetition, InputError> {
    let scored = score_one(competition, rows, rate)?;
    let rated = if competition.rated {
        let mut rated = rated_input(competition, rows, scored.results, registry, factors)?;
        rated.pack();
        Some(rated)
    } else {
        None
    };
    Ok(OneCompetition {
        standings: HeldStandings::new(scored.standings.iter().map(StandingLine::from)),
        board_scores: scored.board_scores,
        rated,
    })
}

/// One competition's standings as a pass holds them until the replay. A run holds
/// every competition's at once, so each is two allocations of exactly its size (the
/// lines, and the entrants' names one after the other) rather than a column each.
#[derive(Debug, Default)]
pub(super) struct HeldStandings {
    /// The competition id of every line.
    competition_id: Box<str>,
    /// Per line, its own competition id, only when the lines do not all share one.
    competition_ids: Option<Box<[Box<str>]>>,
    lines: Box<[HeldLine]>,
    names: Box<str>,
}

/// One line, 40 bytes: the optional numbers are a value and a bit in `flags` rather
/// than an `Option<f64>` each (16 bytes), since a run holds every line of the history.
#[derive(Debug, Clone, Copy)]
struct HeldLine {
    score: f64,
    /// The percentage when `flags` has [`PERCENT`], else 0.
    percent: f64,
    /// The victory points when `flags` has [`VP`], else 0.
    vp: f64,
    boards_played: u32,
    rank: u32,
    /// Where the entrant's name ends in `names`.
    name_end: u32,
    direction: Option<crate::dataset::Direction>,
    /// [`PERCENT`], [`VP`] and [`HOUSE`].
    flags: u8,
}

const PERCENT: u8 = 1;
const VP: u8 = 2;
const HOUSE: u8 = 4;

impl HeldLine {
    fn new(line: &StandingLine<'_>, name_end: usize) -> Self {
        let flags = u8::from(line.percent.is_some()) * PERCENT
            + u8::from(line.vp.is_some()) * VP
            + u8::from(line.house) * HOUSE;
        HeldLine {
            score: line.score,
            percent: line.percent.unwrap_or(0.0),
            vp: line.vp.unwrap_or(0.0),
            boards_played: line.boards_played,
            rank: line.rank,
            name_end: u32::try_from(name_end).unwrap_or(u32::MAX),
            direction: line.direction,
            flags,
        }
    }

    fn percent(&self) -> Option<f64> {
        (self.flags & PERCENT != 0).then_some(self.percent)
    }

    fn vp(&self) -> Option<f64> {
        (self.flags & VP != 0).then_some(self.vp)
    }

    fn house(&self) -> bool {
        self.flags & HOUSE != 0
    }
}

impl HeldStandings {
    pub fn new<'a>(lines: impl ExactSizeIterator<Item = StandingLine<'a>> + Clone) -> Self {
        let first_id = lines.clone().next().map_or("", |line| line.competition_id);
        let shared = lines.clone().all(|line| line.competition_id == first_id);
        let mut names = String::with_capacity(lines.clone().map(|l| l.entrant.len()).sum());
        let mut held = Vec::with_capacity(lines.len());
        for line in lines.clone() {
            names.push_str(line.entrant);
            held.push(HeldLine::new(&line, names.len()));
        }
        HeldStandings {
            competition_id: first_id.into(),
            competition_ids: (!shared).then(|| lines.map(|l| l.competition_id.into()).collect()),
            lines: held.into_boxed_slice(),
            names: names.into_boxed_str(),
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// The bytes of the entrants' names.
    pub fn text_len(&self) -> usize {
        self.names.len()
    }

    /// Appends the lines, in order, after `table`'s.
    pub fn append_to(&self, table: &mut StandingTable) {
        let mut start = 0;
        for (i, line) in self.lines.iter().enumerate() {
            let end = line.name_end as usize;
            let competition_id = match &self.competition_ids {
                Some(ids) => ids.get(i).map_or("", |id| id),
                None => &self.competition_id,
            };
            table.push(StandingLine {
                competition_id,
                entrant: self.names.get(start..end).unwrap_or_default(),
                score: line.score,
                percent: line.percent(),
                boards_played: line.boards_played,
                rank: line.rank,
                direction: line.direction,
                vp: line.vp(),
                house: line.house(),
                rounds: (),
            });
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Direction;

    fn line<'a>(competition_id: &'a str, entrant: &'a str, rank: u32) -> StandingLine<'a> {
        StandingLine {
            competition_id,
            entrant,
            score: 61.25 - f64::from(rank),
            percent: (rank != 2).then_some(55.5),
            boards_played: 24 - rank,
            rank,
            direction: (rank == 3).then_some(Direction::EW),
            vp: (rank == 1).then_some(14.87),
            house: rank == 4,
            rounds: (),
        }
    }

    /// A held line is 40 bytes: a run holds one per entrant of the history.
    #[test]
    fn a_held_line_is_forty_bytes() {
        assert_eq!(std::mem::size_of::<HeldLine>(), 40);
    }

    /// Held and appended, a competition's lines are those it was given, field for
    /// field and in order: names of any length (an empty one too), and a line of
    /// another competition keeping its own id.
    #[test]
    fn held_standings_give_back_their_lines_as_given() {
        for lines in [
            vec![
                line("c7", "12", 1),
                line("c7", "", 2),
                line("c7", "Östra BK lag 3", 3),
                line("c7", "3", 4),
            ],
            vec![line("c7", "1", 1), line("c8", "2", 2)],
            vec![],
        ] {
            let held = HeldStandings::new(lines.iter().copied());
            assert_eq!(held.len(), lines.len());
            let text: usize = lines.iter().map(|l| l.entrant.len()).sum();
            assert_eq!(held.text_len(), text);
            let mut table = StandingTable::default();
            table.push(line("c1", "before", 1));
            held.append_to(&mut table);
            let back: Vec<StandingLine<'_>> = table.iter().skip(1).collect();
            assert_eq!(back, lines);
        }
    }
}
