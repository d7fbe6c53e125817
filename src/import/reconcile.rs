//! Every imported session checked against what its club's program printed.
//!
//! An export carries the program's own figures beside the table results (per board and
//! per pair). The federation rates the session from the table results, so a session
//! whose recomputation differs from what the players saw would move handicaps on figures
//! nobody published, silently. Each file is therefore scored on import and compared, at
//! the precision and with the rounding the program prints: a difference does not refuse
//! the file (the results are the club's), it is reported as a `mismatch` naming the
//! first differing pair and board, both values and, where known, the program's
//! convention that explains it (`docs/club-programs.md`).
//!
//! Comparing the printed text, not a tolerance, is what finds the real differences: a
//! tolerance of half the last digit accepts −2.25 against a printed −2.3 whichever way
//! the program rounds, and misses a program that rounds the other way.

use std::fmt::Write as _;

use crate::dataset::{Competition, Direction, EntrantResult, ScoringMethod};
use crate::import::published::{Imported, LineKind, PublishedLine};
use crate::scoring::conventions::ByeScore;
use crate::scoring::matchpoints::ruter_board_percent;
use crate::scoring::ScoredCompetition;

/// How a program rounds a figure to the decimals it prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// Halves away from zero: −2.25 prints −2.3 (Ruter, board 3 of Spiren 2016-03-09).
    HalfAwayFromZero,
    /// Halves to even: 18.95 prints 19.0 and 12.65 prints 12.6 (Compscore: the 120
    /// factored traveller figures of the Lindfield Mitchell of 28 July 2022, 56 of them
    /// on a half).
    HalfEven,
}

impl Rounding {
    /// The rounding a program uses, by the name the file gives it.
    pub fn of_program(program: &str) -> Rounding {
        if program.to_ascii_lowercase().contains("compscore") {
            Rounding::HalfEven
        } else {
            Rounding::HalfAwayFromZero
        }
    }

    /// `value` as printed with `decimals` decimals, in units of the last digit.
    pub fn units(self, value: f64, decimals: u8) -> i64 {
        let scale = 10f64.powi(i32::from(decimals));
        let scaled = value * scale;
        // A recomputed −2.25 may be −2.2499999999 in floating point: a millionth of the
        // last digit decides a half.
        let units = match self {
            Rounding::HalfAwayFromZero => (scaled.abs() + 0.5 + 1e-6).floor().copysign(scaled),
            Rounding::HalfEven => crate::scoring::matchpoints::half_even(scaled),
        };
        if units.is_finite() && units.abs() < 9e15 {
            units as i64
        } else {
            i64::MAX
        }
    }

    /// `value` as the program prints it.
    pub fn print(self, value: f64, decimals: u8) -> String {
        let units = self.units(value, decimals);
        let scale = 10f64.powi(i32::from(decimals));
        format!("{:.*}", usize::from(decimals), units as f64 / scale)
    }
}

/// The first figures a session's recomputation and its printed results differ in.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// How many printed figures differ.
    pub figures: usize,
    /// The first differing pair total, percentage or rank, in the printed order.
    pub pair: Option<Difference>,
    /// The first differing board figure, in file order.
    pub board: Option<Difference>,
}

/// One figure printed one way and recomputed another.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub entrant: String,
    pub board: Option<u32>,
    /// The line of the export the printed figure is on.
    pub line: Option<usize>,
    /// What the figure is (`total`, `percentage`, `rank`, `N/S points`, ...).
    pub what: String,
    pub printed: String,
    pub recomputed: String,
    /// The program's convention that explains the difference, where it is known.
    pub convention: Option<String>,
}

impl Difference {
    fn describe(&self, program: &str) -> String {
        let mut out = match self.board {
            Some(board) => format!("board {board}, pair {}", self.entrant),
            None => format!("pair {}", self.entrant),
        };
        if let Some(line) = self.line {
            let _ = write!(out, " (line {line})");
        }
        let _ = write!(
            out,
            " {}: {program} printed {}, recomputed {}",
            self.what, self.printed, self.recomputed
        );
        if let Some(convention) = &self.convention {
            let _ = write!(out, " ({convention})");
        }
        out
    }
}

impl Mismatch {
    /// The import report's reason: the first differing pair and board, both values.
    pub fn reason(&self, program: &str) -> String {
        let program = if program.trim().is_empty() {
            "the program"
        } else {
            program.trim()
        };
        let mut out = format!(
            "{} printed figure{} differ{} from the recomputation",
            self.figures,
            if self.figures == 1 { "" } else { "s" },
            if self.figures == 1 { "s" } else { "" }
        );
        if let Some(pair) = &self.pair {
            let _ = write!(out, "; first pair: {}", pair.describe(program));
        }
        if let Some(board) = &self.board {
            let _ = write!(out, "; first board: {}", board.describe(program));
        }
        out
    }

    /// The board of the first differing board figure.
    pub fn first_board(&self) -> Option<u32> {
        self.board.as_ref().and_then(|d| d.board)
    }

    /// The export line of the first difference (a board's when there is one).
    pub fn first_line(&self) -> Option<usize> {
        self.board
            .as_ref()
            .and_then(|d| d.line)
            .or_else(|| self.pair.as_ref().and_then(|d| d.line))
    }
}

/// Compares `scored` (the engine on `imported`'s table results) with the figures the
/// export printed. `None` when every printed figure is reproduced.
pub fn reconcile(imported: &Imported, scored: &ScoredCompetition) -> Option<Mismatch> {
    let published = &imported.published;
    let mut comparison = Comparison {
        scored,
        rounding: Rounding::of_program(&published.program),
        ruter: published.program.to_ascii_lowercase().contains("ruter"),
        line_decimals: published.precision.line,
        neuberg: imported
            .dataset
            .competitions
            .first()
            .is_some_and(|c| c.conventions.neuberg),
        differences: Vec::new(),
    };
    comparison.standings(imported);
    let bye_average = imported
        .dataset
        .competitions
        .first()
        .is_some_and(|c| c.conventions.bye_score == ByeScore::SessionAverage);
    for line in &published.lines {
        match line.kind {
            LineKind::Played | LineKind::Artificial => comparison.played_line(line),
            LineKind::Bye if bye_average => comparison.bye_line(line),
            LineKind::Bye | LineKind::Penalty => {}
        }
    }
    let mut differences = comparison.differences;
    if differences.is_empty() {
        return None;
    }
    for difference in &mut differences {
        difference.convention = explain(imported, difference);
    }
    Some(Mismatch {
        figures: differences.len(),
        pair: differences.iter().find(|d| d.board.is_none()).cloned(),
        board: differences.iter().find(|d| d.board.is_some()).cloned(),
    })
}

/// The printed figures of one export compared with its recomputation, with the
/// differences found so far.
struct Comparison<'a> {
    scored: &'a ScoredCompetition,
    rounding: Rounding,
    /// Ruter prints a whole-number board percentage beside each side's points.
    ruter: bool,
    /// How many decimals the program printed on travellers.
    line_decimals: u8,
    /// Boards played fewer times are factored with Neuberg's formula.
    neuberg: bool,
    differences: Vec<Difference>,
}

/// Where a printed figure is and what it is.
struct Figure<'a> {
    entrant: &'a str,
    board: Option<u32>,
    line: Option<usize>,
    what: &'a str,
}

impl Comparison<'_> {
    /// Notes a difference when `recomputed` does not print as `printed` at `decimals`.
    fn compare(&mut self, figure: Figure, printed: f64, recomputed: Option<f64>, decimals: u8) {
        let rounding = self.rounding;
        let same = recomputed
            .is_some_and(|r| rounding.units(r, decimals) == rounding.units(printed, decimals));
        if !same {
            self.differences.push(Difference {
                entrant: figure.entrant.to_string(),
                board: figure.board,
                line: figure.line,
                what: figure.what.to_string(),
                printed: rounding.print(printed, decimals),
                recomputed: recomputed
                    .map_or_else(|| "nothing".to_string(), |r| rounding.print(r, decimals)),
                convention: None,
            });
        }
    }

    /// Each pair's printed total, percentage and rank.
    fn standings(&mut self, imported: &Imported) {
        let precision = imported.published.precision;
        for standing in &imported.published.standings {
            let mine = self
                .scored
                .standings
                .iter()
                .find(|s| s.entrant == standing.entrant);
            let figure = |what| Figure {
                entrant: standing.entrant.as_str(),
                board: None,
                line: standing.origin.row,
                what,
            };
            self.compare(
                figure("total"),
                standing.score,
                mine.map(|m| m.score),
                precision.total,
            );
            if let Some(percent) = standing.percent {
                self.compare(
                    figure("percentage"),
                    percent,
                    mine.and_then(|m| m.percent),
                    precision.percent,
                );
            }
            self.compare(
                figure("rank"),
                f64::from(standing.rank),
                mine.map(|m| f64::from(m.rank)),
                0,
            );
        }
    }

    /// How many results a board has, where the program prints board percentages.
    fn results_for_percent(&self, board: u32) -> Option<usize> {
        self.ruter
            .then(|| board_results(self.scored, self.neuberg)(board))
    }

    /// A played (or artificially scored) traveller line: both sides' figures.
    fn played_line(&mut self, line: &PublishedLine) {
        let mine = self.scored.board_scores.iter().find(|b| {
            b.board == line.board
                && b.ns.as_deref() == line.ns.as_deref()
                && b.ew.as_deref() == line.ew.as_deref()
        });
        let results = self.results_for_percent(line.board);
        for (direction, points) in [
            (Direction::NS, mine.map(|m| m.ns_points)),
            (Direction::EW, mine.map(|m| m.ew_points)),
        ] {
            let pair = side(line, direction).unwrap_or("-");
            self.side_figures(line, direction, pair, points, results);
        }
    }

    /// A bye line valued at the pair's own average over the tables it played, as Ruter
    /// prints it.
    fn bye_line(&mut self, line: &PublishedLine) {
        for direction in [Direction::NS, Direction::EW] {
            let Some(pair) = side(line, direction) else {
                continue;
            };
            let mine: Vec<f64> = self
                .scored
                .board_scores
                .iter()
                .filter_map(|b| {
                    if b.ns.as_deref() == Some(pair) {
                        Some(b.ns_points)
                    } else if b.ew.as_deref() == Some(pair) {
                        Some(b.ew_points)
                    } else {
                        None
                    }
                })
                .collect();
            let average = (!mine.is_empty()).then(|| mine.iter().sum::<f64>() / mine.len() as f64);
            let results = self.results_for_percent(line.board);
            self.side_figures(line, direction, pair, average, results);
        }
    }

    /// One side's points on a line and, where the program prints one (Ruter, with the
    /// board's number of results), its whole-number board percentage.
    fn side_figures(
        &mut self,
        line: &PublishedLine,
        direction: Direction,
        pair: &str,
        points: Option<f64>,
        results: Option<usize>,
    ) {
        let (printed, percent) = match direction {
            Direction::NS => (line.ns_points, line.ns_percent),
            Direction::EW => (line.ew_points, line.ew_percent),
        };
        let points_what = format!("{direction} points");
        let percent_what = format!("{direction} percentage");
        let figure = |what| Figure {
            entrant: pair,
            board: Some(line.board),
            line: line.origin.row,
            what,
        };
        if let Some(printed) = printed {
            self.compare(figure(&points_what), printed, points, self.line_decimals);
        }
        if let (Some(shown), Some(results)) = (percent, results) {
            let mine = points.and_then(|p| ruter_board_percent(p, results));
            self.compare(figure(&percent_what), shown, mine, 0);
        }
    }
}

/// The published result of each entrant of a matchpoint competition, as `results` rows
/// beside the board rows: the percentage the program printed, over the boards the pair
/// played at a table. A run rates them by default (`--rate published`) where they
/// differ from the recomputation. IMP scorings write none: a program's printed IMP
/// total includes its bye scores and penalties, which the model's IMP result does not,
/// so the two are not the same unit.
pub fn published_results(
    imported: &Imported,
    competition: &Competition,
    scored: &ScoredCompetition,
) -> Vec<EntrantResult> {
    if competition.scoring != ScoringMethod::Matchpoints {
        return Vec::new();
    }
    let published = &imported.published;
    published
        .standings
        .iter()
        .filter_map(|p| {
            let percent = p.percent?;
            let mine = scored.standings.iter().find(|s| s.entrant == p.entrant)?;
            Some(EntrantResult {
                competition_id: competition.competition_id.clone(),
                entrant: p.entrant.clone(),
                boards_played: mine.boards_played,
                score: percent,
                opponent: None,
                origin: p.origin.clone(),
            })
        })
        .collect()
}

/// The number of results a board's points are on the scale of, for its board
/// percentage: the board's own count, or, where boards played fewer times are factored
/// with Neuberg's formula, the count they are factored to (the most any board of the
/// session got, as the scoring takes it). A board factored from 8 results to 9 has
/// points up to 8 on the plus-minus scale: over the 7 comparisons of its own 8
/// results a top would be 50 + 50·8/7 = 107 %, over the 8 of the 9 it is 100 %.
fn board_results(scored: &ScoredCompetition, neuberg: bool) -> impl Fn(u32) -> usize + '_ {
    let mut counts: std::collections::BTreeMap<u32, usize> = std::collections::BTreeMap::new();
    for b in &scored.board_scores {
        *counts.entry(b.board).or_default() += 1;
    }
    let most = counts.values().copied().max().unwrap_or(0);
    move |board| {
        let own = counts.get(&board).copied().unwrap_or(0);
        if neuberg {
            own.max(most)
        } else {
            own
        }
    }
}

/// The pair on one side of a line.
fn side(line: &PublishedLine, direction: Direction) -> Option<&str> {
    match direction {
        Direction::NS => line.ns.as_deref(),
        Direction::EW => line.ew.as_deref(),
    }
}

/// The known convention behind a difference, if any.
fn explain(imported: &Imported, difference: &Difference) -> Option<String> {
    let line = difference.line?;
    let published = imported
        .published
        .lines
        .iter()
        .find(|l| l.origin.row == Some(line))?;
    let conventions = imported.dataset.competitions.first()?.conventions;
    (published.kind == LineKind::Artificial).then(|| {
        format!(
            "an artificial score valued by `average_plus = {}`: the program values it \
             otherwise",
            conventions.average_plus
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A board of 8 results in a session of 9 (a pair had a bye on it), factored to 9
    /// with Neuberg's formula: points on the plus-minus scale up to 8. A pair with 7.8
    /// there is at 50 + 50·7.8/8 = 98.75, which Ruter prints 99; over the board's own
    /// 7 comparisons it was recomputed as 105.7, printed 106, a percentage above 100.
    #[test]
    fn a_factored_boards_percentage_is_over_the_count_it_is_factored_to() {
        let score = |board: u32, table: usize| crate::scoring::BoardScore {
            competition_id: "c".into(),
            board,
            ns: Some(format!("{table}").as_str().into()),
            ew: Some(format!("{}", table + 10).as_str().into()),
            ns_score: Some(100),
            ns_points: 0.0,
            ew_points: 0.0,
            datum: None,
        };
        let scored = ScoredCompetition {
            board_scores: (0..9)
                .map(|t| score(1, t))
                .chain((0..8).map(|t| score(2, t)))
                .collect(),
            standings: Vec::new(),
            results: Vec::new(),
        };
        let factored = board_results(&scored, true);
        let own = board_results(&scored, false);
        assert_eq!((factored(1), factored(2), own(2)), (9, 9, 8));
        assert_eq!(ruter_board_percent(7.8, factored(2)), Some(99.0));
        assert_eq!(ruter_board_percent(7.8, own(2)), Some(106.0));
        // The top of a factored board is 100 %, no more.
        assert_eq!(ruter_board_percent(8.0, factored(2)), Some(100.0));
    }

    #[test]
    fn halves_round_away_from_zero_as_ruter_prints_them() {
        let r = Rounding::HalfAwayFromZero;
        // Board 3 of Spiren 2016-03-09: 1460 among eight results factored to nine is
        // (5 + 1)·9/8 − 1 − 8 = −2.25 for N/S, printed −2.3; E/W +2.25, printed 2.3.
        assert_eq!(r.print(-2.25, 1), "-2.3");
        assert_eq!(r.print(2.25, 1), "2.3");
        assert_eq!(r.print(5.625, 1), "5.6");
        assert_eq!(r.print(65.0, 2), "65.00");
        assert_eq!(r.print(1.5, 0), "2");
        assert_eq!(r.units(-2.25, 1), r.units(-2.3, 1));
        assert_ne!(r.units(-2.2, 1), r.units(-2.3, 1));
        // Floating point just below the half still rounds as the exact value does.
        assert_eq!(r.units(-2.249_999_999_9, 1), -23);
        assert_eq!(r.units(f64::NAN, 1), i64::MAX);
    }

    /// Compscore's factored travellers (Lindfield, 28 July 2022, board 1): 18.95 prints
    /// 19.0, 12.65 prints 12.6, 10.55 prints 10.6, 0.05 prints 0.0.
    #[test]
    fn compscore_rounds_halves_to_even() {
        let r = Rounding::of_program("Compscore3");
        assert_eq!(r, Rounding::HalfEven);
        for (value, printed) in [
            (18.95, "19.0"),
            (12.65, "12.6"),
            (10.55, "10.6"),
            (0.05, "0.0"),
        ] {
            assert_eq!(r.print(value, 1), printed);
        }
        assert_eq!(r.print(68.425, 2), "68.42");
        assert_eq!(
            Rounding::of_program("Ruter i Norge").print(12.65, 1),
            "12.7"
        );
    }
}
