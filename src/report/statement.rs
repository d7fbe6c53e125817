//! A player's statement: why the handicap is what it is.
//!
//! A member who asks "why did my handicap change?" needs every rated competition with
//! the numbers that moved it: the pair's and the field's strength, what was expected and
//! what was achieved (in the competition's own unit), and the change. The changes must
//! add up to the difference between the first handicap shown and the current one, or the
//! statement explains nothing; where the cap (52) or the floor cut a change short, the
//! cut is its own column so the sum still holds.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use chrono::{Datelike, NaiveDate};
use polars::prelude::*;

use super::frame::FrameBuilder;
use super::page::{self, headings, Text, STYLE};
use super::run_tables::{ChangeRow, ChangeStatus, MemberRow, RunTables};
use super::svg::{self, Chart, Mark, Series};
use crate::error::{Error, Result};
use crate::pipeline::ranking::published as hundredths;
use maud::{html, Markup, PreEscaped};

/// One competition of a statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub date: NaiveDate,
    pub competition_id: String,
    pub title: Option<String>,
    pub club: Option<String>,
    pub partner: Option<String>,
    /// The partner's member number, when the partner is a member.
    pub partner_id: Option<i64>,
    pub pair_handicap: f64,
    pub field_handicap: f64,
    pub expected: f64,
    pub achieved: f64,
    /// `%` (percentage points above 50) or `IMP/board`.
    pub unit: &'static str,
    /// Boards the player played (N_G) of the competition's (N_B).
    pub boards: i64,
    pub n_b: i64,
    pub handicap_before: f64,
    /// The model's change Δh.
    pub delta: f64,
    /// What the cap or the floor took off Δh (0 almost always).
    pub cut: f64,
    pub handicap_after: f64,
}

/// A member's statement over the competitions of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub member_id: i64,
    pub name: Option<String>,
    pub club: Option<String>,
    /// The handicap before the first competition shown.
    pub start: f64,
    /// The handicap in `handicaps.parquet`.
    pub current: f64,
    /// A foreign guest: each competition used a temporary handicap and nothing was
    /// updated, so the changes do not add up to anything.
    pub foreign: bool,
    pub lines: Vec<Line>,
}

const FOREIGN_NOTE: &str = "A foreign guest: every competition used a temporary handicap and nobody's handicap was updated from it, so the handicaps shown are not a trajectory.";

pub const PERCENT: &str = "% over 50";
pub const IMPS: &str = "IMP/board";

/// The other player of the member's pair in the same entrant, as a member number (when
/// a member) and a name: slots 1+2 and 3+4 are pairs (a team's two pairs), so the partner
/// sits in the slot next to the member's.
fn partner_of(
    names: &FxHashMap<i64, &str>,
    row: &ChangeRow,
    at: &At<'_>,
) -> (Option<i64>, Option<String>) {
    if let Some(slots) = at.slots(&row.entrant) {
        let Some(own) = slots.iter().position(|(id, _)| *id == Some(row.member_id)) else {
            return (None, None);
        };
        let Some((id, printed)) = slots.get(own ^ 1) else {
            return (None, None);
        };
        let name = id
            .and_then(|id| names.get(&id).map(|n| n.to_string()))
            .or_else(|| printed.map(str::to_owned))
            .or_else(|| id.map(|id| format!("#{id}")));
        return (id.filter(|id| *id >= 0), name);
    }
    let rows_of_entrant: Vec<&ChangeRow> = (at.rows.iter())
        .filter(|r| r.entrant == row.entrant)
        .collect();
    let Some(own) = rows_of_entrant
        .iter()
        .position(|r| r.member_id == row.member_id)
    else {
        return (None, None);
    };
    let Some(partner) = rows_of_entrant.get(own ^ 1) else {
        return (None, None);
    };
    let name = match names.get(&partner.member_id) {
        Some(name) => name.to_string(),
        None if partner.member_id < 0 => "non-member".to_string(),
        None => format!("#{}", partner.member_id),
    };
    let id = (partner.member_id >= 0).then_some(partner.member_id);
    (id, Some(name))
}

/// What the cap or the floor took off a change: the handicap after minus the handicap
/// before and the change. Float noise (a change applied exactly) is 0.
fn cut(row: &ChangeRow) -> f64 {
    let cut = (row.handicap_after - row.handicap_before) - row.delta;
    if cut.abs() < 1e-9 {
        0.0
    } else {
        cut
    }
}

/// Frozen mode: every competition of a month starts from the month's opening handicap and
/// the month's changes are summed, capped and applied at its end. The lines then show
/// the running sum as the handicap after, and what the cap (or anything else between the
/// sum and the handicap the next month opened with) changed goes to the month's last line
/// as its cut, so the changes still add up.
fn month_end_cuts(lines: &mut [Line], current: f64) {
    let month = |l: &Line| (l.date.year(), l.date.month());
    let mut start = 0;
    while start < lines.len() {
        let end = start
            + lines[start..]
                .iter()
                .take_while(|l| month(l) == month(&lines[start]))
                .count();
        let opening = lines[start].handicap_before;
        let closing = lines.get(end).map_or(current, |l| l.handicap_before);
        let mut running = opening;
        for line in &mut lines[start..end] {
            line.handicap_before = running;
            line.cut = 0.0;
            running += line.delta;
            line.handicap_after = running;
        }
        let cut = closing - running;
        if cut.abs() >= 1e-9 {
            if let Some(last) = lines[start..end].last_mut() {
                last.cut = cut;
                last.handicap_after = closing;
            }
        } else if let Some(last) = lines[start..end].last_mut() {
            last.handicap_after = closing;
        }
        start = end;
    }
}

/// The changes of a run looked up by member and by entrant, built once for any number of
/// statements.
pub struct Index<'a> {
    tables: &'a RunTables,
    names: FxHashMap<i64, &'a str>,
    /// Per competition what a line of it needs, found once (a statement's lines each
    /// look their competition up, millions of times in a site).
    by_competition: FxHashMap<&'a str, At<'a>>,
    by_member: FxHashMap<i64, Vec<&'a ChangeRow>>,
    members: FxHashMap<i64, &'a MemberRow>,
}

/// What a statement's line takes of its competition: what the run says of it, its
/// change rows in the file's order (an entrant's are found among them: a map by
/// competition and entrant would hold millions of keys), and its entrant rows in the
/// dataset when it was read compactly.
struct At<'a> {
    info: Option<&'a super::run_tables::CompetitionInfo>,
    rows: Rows<'a>,
    tables: &'a RunTables,
    entrants: Option<crate::dataset::entrant_table::CompetitionRows<'a>>,
}

/// A competition's change rows. A run writes them together, so they are a run of the
/// file's rows (a list of references to each would hold 8 bytes a row, 41 MB over a
/// federation's history); rows that are not together are listed.
enum Rows<'a> {
    Together(&'a [ChangeRow]),
    Apart(Vec<&'a ChangeRow>),
}

impl<'a> Rows<'a> {
    fn iter(&self) -> impl Iterator<Item = &'a ChangeRow> + '_ {
        let (together, apart) = match self {
            Rows::Together(rows) => (Some(rows.iter()), None),
            Rows::Apart(rows) => (None, Some(rows.iter().copied())),
        };
        together
            .into_iter()
            .flatten()
            .chain(apart.into_iter().flatten())
    }
}

/// Where a competition's rows are while the index is built: from `start` to `end` of
/// the file's rows, until one comes apart from them.
struct Span<'a> {
    start: usize,
    end: usize,
    apart: Option<Vec<&'a ChangeRow>>,
}

impl At<'_> {
    /// The players of `entrant` (number and printed name, slot by slot), when the
    /// dataset was read ([`RunTables::slots`]).
    fn slots(&self, entrant: &str) -> Option<super::run_tables::SlotsOf<'_>> {
        if let Some(rows) = self.entrants {
            let e = rows.find(entrant)?;
            return Some([0, 1, 2, 3].map(|i| (e.players[i], e.names[i])));
        }
        let id = &*self.rows.iter().next()?.competition_id;
        self.tables.slots(id, entrant)
    }
}

impl<'a> Index<'a> {
    /// Indexes the changes of `tables`. Each member's rows are counted first and
    /// reserved at once rather than grown by doubling.
    pub fn new(tables: &'a RunTables) -> Self {
        let changes = tables.changes.as_slice();
        let mut spans: FxHashMap<&str, Span> = FxHashMap::default();
        let mut counts: FxHashMap<i64, usize> = FxHashMap::default();
        for (i, row) in changes.iter().enumerate() {
            *counts.entry(row.member_id).or_default() += 1;
            let span = spans.entry(&*row.competition_id).or_insert(Span {
                start: i,
                end: i,
                apart: None,
            });
            match &mut span.apart {
                Some(rows) => rows.push(row),
                None if span.end == i => span.end = i + 1,
                None => {
                    let mut rows: Vec<&ChangeRow> = changes[span.start..span.end].iter().collect();
                    rows.push(row);
                    span.apart = Some(rows);
                }
            }
        }
        let mut by_member: FxHashMap<i64, Vec<&ChangeRow>> = (counts.into_iter())
            .map(|(member, n)| (member, Vec::with_capacity(n)))
            .collect();
        for row in changes {
            if let Some(rows) = by_member.get_mut(&row.member_id) {
                rows.push(row);
            }
        }
        let by_competition = (spans.into_iter())
            .map(|(id, span)| {
                let rows = match span.apart {
                    Some(rows) => Rows::Apart(rows),
                    None => Rows::Together(&changes[span.start..span.end]),
                };
                let at = At {
                    info: tables.competitions.get(id),
                    rows,
                    tables,
                    entrants: (tables.entrant_rows.as_deref()).map(|t| t.competition_rows(id)),
                };
                (id, at)
            })
            .collect();
        Index {
            tables,
            names: tables.names().into_iter().collect(),
            by_competition,
            by_member,
            members: tables.members.iter().map(|m| (m.member_id, m)).collect(),
        }
    }

    /// The change rows of a competition, in the file's order.
    pub fn competition_rows(
        &self,
        competition_id: &str,
    ) -> impl Iterator<Item = &'a ChangeRow> + '_ {
        let at = self.by_competition.get(competition_id);
        at.into_iter().flat_map(|at| at.rows.iter())
    }

    /// The statement of `member_id`; an error when the member is not in
    /// `handicaps.parquet`.
    pub fn statement(&self, member_id: i64) -> Result<Statement> {
        self.statement_of(member_id, None)
    }

    /// The statement of `member_id` with only the lines of `year` (every line when
    /// `None`); its start is the handicap before the first line shown. A frozen run's
    /// month-end cuts are worked out on the whole statement first (a month's closing
    /// handicap is the next month's opening one), so a year's lines are those of the
    /// whole statement.
    pub fn statement_of(&self, member_id: i64, year: Option<i32>) -> Result<Statement> {
        let tables = self.tables;
        let member = self.member(member_id)?;
        let rows = self.rows(member_id);
        let in_year = |date: NaiveDate| year.is_none_or(|y| date.year() == y);
        let lines: Vec<Line> = if tables.frozen {
            let mut all: Vec<Line> = rows.iter().map(|r| self.line(r)).collect();
            month_end_cuts(&mut all, member.handicap);
            all.retain(|l| in_year(l.date));
            all
        } else {
            let kept = rows.iter().filter(|r| in_year(r.date));
            kept.map(|r| self.line(r)).collect()
        };
        Ok(Statement {
            member_id,
            name: member.name.clone(),
            club: member.club.clone(),
            start: lines.first().map_or(member.handicap, |l| l.handicap_before),
            current: member.handicap,
            foreign: rows.iter().any(|r| r.status == ChangeStatus::Foreign),
            lines,
        })
    }

    /// The change rows of `member_id`, in the file's order.
    pub fn rows(&self, member_id: i64) -> &[&'a ChangeRow] {
        let rows = self.by_member.get(&member_id);
        rows.map(Vec::as_slice).unwrap_or_default()
    }

    /// The row of `handicaps.parquet` of `member_id`; an error when it has none.
    pub fn member(&self, member_id: i64) -> Result<&'a MemberRow> {
        let member = self.members.get(&member_id).copied();
        member.ok_or_else(|| {
            Error::Config(format!(
                "member {member_id} is not in {}",
                (self.tables.folder)
                    .join(super::run_folder::HANDICAPS)
                    .display()
            ))
        })
    }

    /// Whether the run is frozen (a month's changes summed and applied at its end).
    pub fn frozen(&self) -> bool {
        self.tables.frozen
    }

    /// A change of the member's, as a line of the statement.
    pub fn line(&self, r: &ChangeRow) -> Line {
        let at = self.by_competition.get(&*r.competition_id);
        let info = at.and_then(|at| at.info);
        let (partner_id, partner) = match at {
            Some(at) => partner_of(&self.names, r, at),
            None => (None, None),
        };
        Line {
            date: r.date,
            competition_id: r.competition_id.to_string(),
            title: info.and_then(|i| i.title.clone()),
            club: info.and_then(|i| i.club.clone()),
            partner,
            partner_id,
            pair_handicap: r.pair_handicap,
            field_handicap: r.field_handicap,
            expected: r.expected,
            achieved: r.achieved,
            unit: if info.is_some_and(|i| i.imps) {
                IMPS
            } else {
                PERCENT
            },
            boards: i64::from(r.n_g),
            n_b: i64::from(r.n_b),
            handicap_before: r.handicap_before,
            delta: r.delta,
            cut: cut(r),
            handicap_after: r.handicap_after,
        }
    }
}

/// The statement of `member_id` from a run's tables; an error when the member is not in
/// `handicaps.parquet`.
pub fn statement(tables: &RunTables, member_id: i64) -> Result<Statement> {
    Index::new(tables).statement(member_id)
}

/// A figure in hundredths as printed: half away from zero, as the ranking publishes.
fn cents(value: f64) -> i64 {
    let cents = (value * 100.0).round();
    if cents.is_finite() && cents.abs() < 9e15 {
        cents as i64
    } else {
        0
    }
}

/// Hundredths as the figure they print.
fn from_cents(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// A line's change and cut as printed, in hundredths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Printed {
    pub delta: i64,
    pub cut: i64,
}

/// What a pair or field handicap above 52 is, for the pages where one shows.
pub const OFF_SCALE_NOTE: &str = "A pair or field handicap above 52 comes from a guest or non-member pair whose handicap was estimated from its own result in that competition: the level at which that result was what the field expected of it. A pair that scored far below the field gets an estimate above 52, below a beginner's level. The estimate is left as it is, not cut to 52: cut, it would say the pair was stronger than it played, and a member partnering the guest would move for the guest's result. Nobody's handicap is set from it; members' handicaps stay at or below 52.";

/// How the printed changes are rounded, for the pages' notes.
const ROUNDING_NOTE: &str = "Each delta and cut is printed as the change of the running handicap rounded to two decimals (the rounded running handicap after it less the rounded one before it), so the printed column adds up to the printed movement; one may then differ by 0.01 from its own figure rounded alone. changes.parquet has the unrounded figures.";

impl Statement {
    /// The sum of the changes shown, cuts included.
    pub fn total_change(&self) -> f64 {
        self.lines.iter().map(|l| l.delta + l.cut).sum()
    }

    /// Each line's delta and cut as printed, in hundredths: the running handicap
    /// (the start plus the changes and cuts so far) rounded after each figure, less
    /// the same rounded before it. Rounding each figure alone, the column of a long
    /// statement drifts from the movement printed above it (-13.34 printed against a
    /// move from 52.00 to 38.68); rounded this way the column adds up to the rounded
    /// end less the rounded start, whatever the number of lines.
    pub fn printed(&self) -> Vec<Printed> {
        let mut running = self.start;
        self.lines
            .iter()
            .map(|l| {
                let before = cents(running);
                running += l.delta;
                let delta = cents(running) - before;
                let before_cut = cents(running);
                running += l.cut;
                Printed {
                    delta,
                    cut: cents(running) - before_cut,
                }
            })
            .collect()
    }

    /// A pair or field handicap shown above the scale's 52 (a guest's estimate in it).
    pub fn off_the_scale(&self) -> bool {
        self.lines
            .iter()
            .any(|l| cents(l.field_handicap) > 5200 || cents(l.pair_handicap) > 5200)
    }

    /// The sum of the printed changes and cuts: the rounded end of the running handicap
    /// less the rounded start.
    pub fn printed_total(&self) -> f64 {
        from_cents(self.printed().iter().map(|p| p.delta + p.cut).sum())
    }

    fn heading(&self) -> String {
        format!(
            "{} (member {}){}",
            self.name.as_deref().unwrap_or("?"),
            self.member_id,
            self.club
                .as_deref()
                .map(|c| format!(", {c}"))
                .unwrap_or_default()
        )
    }

    fn summary(&self) -> String {
        format!(
            "handicap {:.2} -> {:.2} ({:+.2}) over {}",
            from_cents(cents(self.start)),
            from_cents(cents(self.current)),
            from_cents(cents(self.current) - cents(self.start)),
            super::count(self.lines.len(), "competition", "competitions")
        )
    }

    /// The statement as a table for the terminal.
    pub fn to_text(&self) -> String {
        let header = [
            "date",
            "competition",
            "club",
            "partner",
            "pair",
            "field",
            "expected",
            "achieved",
            "unit",
            "boards",
            "delta",
            "cut",
            "after",
        ];
        let rows: Vec<Vec<String>> = self
            .lines
            .iter()
            .zip(self.printed())
            .map(|(l, p)| {
                vec![
                    l.date.to_string(),
                    l.title.clone().unwrap_or_else(|| l.competition_id.clone()),
                    l.club.clone().unwrap_or_default(),
                    l.partner.clone().unwrap_or_default(),
                    format!("{:.2}", l.pair_handicap),
                    format!("{:.2}", l.field_handicap),
                    format!("{:+.2}", l.expected),
                    format!("{:+.2}", l.achieved),
                    l.unit.to_string(),
                    format!("{}/{}", l.boards, l.n_b),
                    format!("{:+.2}", from_cents(p.delta)),
                    if l.cut == 0.0 && p.cut == 0 {
                        String::new()
                    } else {
                        format!("{:+.2}", from_cents(p.cut))
                    },
                    format!("{:.2}", l.handicap_after),
                ]
            })
            .collect();
        let mut out = format!("{}\n{}\n\n", self.heading(), self.summary());
        out.push_str(&aligned(&header, rows));
        if self.foreign {
            out.push_str(FOREIGN_NOTE);
            out.push('\n');
        }
        if self.off_the_scale() {
            out.push_str(OFF_SCALE_NOTE);
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "\nexpected and achieved: percentage points above 50 % (matchpoints) or IMPs per board; \
boards: played/in the competition; delta: the change the competition made; cut: what the \
cap or floor took off it (in a frozen run, at the month's end, on the month's last line); \
the deltas and cuts add up to {:+.2}. {ROUNDING_NOTE}",
            self.printed_total()
        );
        out
    }

    /// The statement as a table (`--csv`), numbers to two decimals as people read them.
    pub fn to_frame(&self) -> PolarsResult<DataFrame> {
        let l = &self.lines;
        let printed = self.printed();
        FrameBuilder::new(l.len())
            .date("date", l.iter().map(|l| Some(l.date)).collect())?
            .map("competition_id", l, |l| l.competition_id.clone())
            .map("title", l, |l| l.title.clone())
            .map("club", l, |l| l.club.clone())
            .map("partner", l, |l| l.partner.clone())
            .map("pair_handicap", l, |l| hundredths(l.pair_handicap))
            .map("field_handicap", l, |l| hundredths(l.field_handicap))
            .map("expected", l, |l| hundredths(l.expected))
            .map("achieved", l, |l| hundredths(l.achieved))
            .map("unit", l, |l| l.unit)
            .map("boards", l, |l| l.boards)
            .map("n_b", l, |l| l.n_b)
            .map("handicap_before", l, |l| hundredths(l.handicap_before))
            .map("delta", &printed, |p| from_cents(p.delta))
            .map("cut", &printed, |p| from_cents(p.cut))
            .map("handicap_after", l, |l| hundredths(l.handicap_after))
            .build()
    }

    /// The handicap after each competition, as an SVG chart over time.
    pub fn trajectory_svg(&self) -> String {
        let before = self.lines.first().map_or(self.start, |l| l.handicap_before);
        let after: Vec<(NaiveDate, f64)> = self
            .lines
            .iter()
            .map(|l| (l.date, l.handicap_after))
            .collect();
        trajectory_svg(before, &after)
    }
}

/// The chart of a statement's handicaps after each competition (`after`: date and
/// handicap, in order), drawn from the handicap `before` the first: what a statement's
/// chart needs of its lines, so that a chart can be drawn without making them.
pub fn trajectory_svg(before: f64, after: &[(NaiveDate, f64)]) -> String {
    let day = |d: NaiveDate| f64::from(d.num_days_from_ce());
    let mut points: Vec<(f64, f64)> = Vec::with_capacity(after.len() + 1);
    if let Some(first) = after.first() {
        points.push((day(first.0) - 1.0, before));
    }
    points.extend(after.iter().map(|&(date, h)| (day(date), h)));
    let mut chart = Chart::new(
        "Handicap after each competition (better, lower, at the top)",
        "date",
        "handicap",
    );
    chart.width = 760.0;
    chart.y_inverted = true;
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
    if lo.is_finite() {
        // The scale starts at 0, but a handicap the model took below it is drawn too.
        let bottom = if lo < 0.0 {
            (lo - 1.0).floor()
        } else {
            (lo - 1.0).floor().max(0.0)
        };
        chart.y_range = Some((bottom, (hi + 1.0).ceil().min(53.0)));
    }
    if let (Some(first), Some(last)) = (after.first(), after.last()) {
        chart.x_ticks = Some(month_ticks(first.0, last.0));
    }
    chart.series.push(Series::new(
        "handicap",
        svg::PALETTE[0],
        Mark::LinePoints,
        points,
    ));
    svg::render(&chart)
}

impl Statement {
    /// The statement as a self-contained HTML page (`--html`).
    pub fn to_html(&self) -> String {
        let heading = self.heading();
        let body = html! {
            p { (Text(&self.summary())) }
            (PreEscaped(self.trajectory_svg()))
            table {
                thead { tr { (headings(&[
                    "date", "competition", "club", "partner", "pair hcp", "field hcp",
                    "expected", "achieved", "unit", "boards", "delta", "cut", "after",
                ])) } }
                tbody { @for (l, p) in self.lines.iter().zip(self.printed()) { (html_line(l, &p)) } }
                tfoot { tr {
                    td colspan="10" { "sum of the changes" }
                    td.n colspan="2" { (format!("{:+.2}", self.printed_total())) }
                    td.n { (format!("{:.2}", self.current)) }
                } }
            }
            @if self.foreign { p.note { (Text(FOREIGN_NOTE)) } }
            p.note {
                "Expected and achieved are in the competition's unit: percentage points above 50"
                (PreEscaped("&nbsp;"))
                "% for matchpoints, IMPs per board for IMP scoring. A result better than expected lowers the handicap (0 is the best, 52 a beginner). Boards: played / in the competition. Cut: what the cap or the floor took off the change (in a frozen run, at the month's end, on the month's last line). "
                (ROUNDING_NOTE)
                @if self.off_the_scale() { " " (OFF_SCALE_NOTE) }
            }
        };
        page::page(&heading, STYLE, &heading, body)
    }
}

/// The header and the rows as text columns, a line each: the numbers (pair to after,
/// but the unit) aligned on the right, the rest on the left.
fn aligned(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let numeric = |i: usize| (4..=12).contains(&i) && i != 8;
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if numeric(i) {
                    format!("{c:>w$}", w = widths[i])
                } else {
                    format!("{c:<w$}", w = widths[i])
                }
            })
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let mut out = line(header.iter().map(|h| h.to_string()).collect());
    out.push('\n');
    for row in rows {
        out.push_str(&line(row));
        out.push('\n');
    }
    out
}

/// A competition's row of the statement's table.
fn html_line(l: &Line, p: &Printed) -> Markup {
    html! {
        tr {
            td { (l.date.to_string()) }
            td { (Text(l.title.as_deref().unwrap_or(&l.competition_id))) }
            td { (Text(l.club.as_deref().unwrap_or(""))) }
            td { (Text(l.partner.as_deref().unwrap_or(""))) }
            td.n { (format!("{:.2}", l.pair_handicap)) }
            td.n { (format!("{:.2}", l.field_handicap)) }
            td.n { (format!("{:+.2}", l.expected)) }
            td.n { (format!("{:+.2}", l.achieved)) }
            td { (Text(l.unit)) }
            td.n { (l.boards) "/" (l.n_b) }
            td.n { (format!("{:+.2}", from_cents(p.delta))) }
            td.n { @if l.cut != 0.0 || p.cut != 0 { (format!("{:+.2}", from_cents(p.cut))) } }
            td.n { (format!("{:.2}", l.handicap_after)) }
        }
    }
}

/// Tick labels at month starts between two dates (every few months for long spans).
pub fn month_ticks(first: NaiveDate, last: NaiveDate) -> Vec<(f64, String)> {
    let months = |d: NaiveDate| d.year() * 12 + d.month0() as i32;
    let (a, b) = (months(first), months(last) + 1);
    let step = ((b - a) / 8).max(1);
    (a..=b)
        .step_by(step as usize)
        .filter_map(|m| {
            let date = NaiveDate::from_ymd_opt(m.div_euclid(12), m.rem_euclid(12) as u32 + 1, 1)?;
            Some((
                f64::from(date.num_days_from_ce()),
                date.format("%Y-%m").to_string(),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::run_tables::{CompetitionInfo, MemberRow};

    fn change(
        id: &str,
        day: u32,
        member: i64,
        entrant: &str,
        before: f64,
        delta: f64,
    ) -> ChangeRow {
        ChangeRow {
            competition_id: id.into(),
            date: NaiveDate::from_ymd_opt(2026, 3, day).unwrap_or_default(),
            member_id: member,
            entrant: entrant.into(),
            handicap_before: before,
            partner: 0.0,
            has_partner: false,
            pair_handicap: 20.0,
            field_handicap: 21.0,
            expected: 1.5,
            achieved: 3.0,
            n_b: 24,
            n_g: 24,
            delta,
            handicap_after: (before + delta).min(52.0),
            status: ChangeStatus::Member,
        }
    }

    fn member(id: i64, name: &str, handicap: f64) -> MemberRow {
        MemberRow {
            member_id: id,
            name: Some(name.into()),
            club: Some("BK Syd".into()),
            handicap,
            boards: 48,
            competitions: 2,
            last_played: None,
        }
    }

    /// 52.00 to 38.68 in five competitions: four changes of −2.2151 and one of
    /// −4.4596. Rounded one by one they print −2.22 four times and −4.46, which add up
    /// to −13.34 against the −13.32 printed above them; rounded as the running
    /// handicap (49.78, 47.57, 45.35, 43.14, 38.68) they print −2.22, −2.21, −2.22,
    /// −2.21 and −4.46, which add up to −13.32.
    #[test]
    fn the_printed_changes_add_up_to_the_printed_movement() -> Result<()> {
        let deltas = [-2.2151, -2.2151, -2.2151, -2.2151, -4.4596];
        let mut before = 52.0;
        let mut changes = Vec::new();
        for (day, delta) in (1..).zip(deltas) {
            changes.push(change("c", day, 1, "1", before, delta));
            before += delta;
        }
        let tables = RunTables {
            changes,
            members: vec![member(1, "Anna Berg", before)],
            ..RunTables::default()
        };
        let s = statement(&tables, 1)?;
        let printed: Vec<i64> = s.printed().iter().map(|p| p.delta).collect();
        assert_eq!(printed, [-222, -221, -222, -221, -446]);
        assert!(s.printed().iter().all(|p| p.cut == 0));
        let text = s.to_text();
        assert!(
            text.contains("handicap 52.00 -> 38.68 (-13.32) over 5 competitions"),
            "{text}"
        );
        assert!(
            text.contains("the deltas and cuts add up to -13.32."),
            "{text}"
        );
        let html = s.to_html();
        for cell in ["-2.22", "-2.21", "-4.46"] {
            assert!(
                html.contains(&format!("<td class=\"n\">{cell}</td>")),
                "{html}"
            );
        }
        assert!(
            html.contains(
                "sum of the changes</td><td class=\"n\" colspan=\"2\">-13.32</td><td class=\"n\">38.68</td>"
            ),
            "{html}"
        );
        assert!(html.contains("the printed column adds up to the printed movement"));
        let frame = s.to_frame().map_err(|e| Error::polars("statement", e))?;
        let column: Vec<Option<f64>> = frame
            .column("delta")
            .and_then(|c| c.f64().map(|c| (0..c.len()).map(|i| c.get(i)).collect()))
            .map_err(|e| Error::polars("statement", e))?;
        assert_eq!(
            column,
            [
                Some(-2.22),
                Some(-2.21),
                Some(-2.22),
                Some(-2.21),
                Some(-4.46)
            ]
        );
        Ok(())
    }

    /// A competition's rows are found whether the file has them together or apart
    /// (K1's third row comes after K2's), in the file's order, and a member's rows
    /// are all of the member's.
    #[test]
    fn a_competitions_rows_are_found_together_or_apart() {
        let tables = RunTables {
            changes: vec![
                change("K1", 1, 1, "1", 30.0, 0.5),
                change("K1", 1, 2, "1", 31.0, 0.5),
                change("K2", 2, 3, "1", 32.0, 0.5),
                change("K2", 2, 1, "2", 30.5, 0.5),
                change("K1", 1, 4, "2", 33.0, 0.5),
            ],
            ..RunTables::default()
        };
        let index = Index::new(&tables);
        let members =
            |id: &str| -> Vec<i64> { index.competition_rows(id).map(|r| r.member_id).collect() };
        assert_eq!(members("K1"), [1, 2, 4]);
        assert_eq!(members("K2"), [3, 1]);
        assert_eq!(members("K3"), Vec::<i64>::new());
        let befores: Vec<f64> = index.rows(1).iter().map(|r| r.handicap_before).collect();
        assert_eq!(befores, [30.0, 30.5]);
    }

    /// A field handicap above 52 (a guest pair's estimate in it) is explained on the
    /// page and in the terminal; a statement without one carries no such note.
    #[test]
    fn a_field_above_the_scale_is_explained() -> Result<()> {
        let mut row = change("c", 1, 1, "1", 40.0, 0.5);
        row.field_handicap = 53.37;
        let tables = RunTables {
            changes: vec![row.clone()],
            members: vec![member(1, "Anna Berg", 40.5)],
            ..RunTables::default()
        };
        let s = statement(&tables, 1)?;
        assert!(s.to_html().contains("<td class=\"n\">53.37</td>"));
        assert!(s
            .to_html()
            .contains("A pair or field handicap above 52 comes from a guest"));
        assert!(s
            .to_text()
            .contains("A pair or field handicap above 52 comes from a guest"));
        row.field_handicap = 52.0;
        let plain = statement(
            &RunTables {
                changes: vec![row],
                ..tables
            },
            1,
        )?;
        assert!(!plain.to_html().contains("above 52 comes from"));
        Ok(())
    }

    #[test]
    fn changes_and_cuts_add_up_and_partners_are_named() -> Result<()> {
        // Member 1 at 51.5 gains 1.0 (cut to 52 by the cap: cut -0.5), then loses 2.25.
        let tables = RunTables {
            changes: vec![
                change("a", 1, 1, "1", 51.5, 1.0),
                change("a", 1, 2, "1", 30.0, 1.0),
                change("b", 8, -1, "4", 26.0, 0.0),
                change("b", 8, 1, "4", 52.0, -2.25),
            ],
            members: vec![member(1, "Anna Berg", 49.75), member(2, "Bo Lund", 31.0)],
            competitions: [(
                "b".to_string(),
                CompetitionInfo {
                    title: Some("Tuesday pairs".into()),
                    club: Some("BK Syd".into()),
                    imps: true,
                },
            )]
            .into_iter()
            .collect(),
            ..RunTables::default()
        };
        let s = statement(&tables, 1)?;
        let frozen = statement(
            &RunTables {
                frozen: true,
                ..tables.clone()
            },
            1,
        )?;
        // Read as a frozen run: March opens at 51.5, the running sum goes 52.5, 50.25,
        // and the handicap after March is 49.75: the -0.5 between them is the month's
        // cut, on its last line.
        assert_eq!(frozen.lines[0].handicap_after, 52.5);
        assert_eq!(frozen.lines[1].handicap_before, 52.5);
        assert_eq!(frozen.lines[1].cut, -0.5);
        assert_eq!(frozen.total_change(), -1.75);
        assert_eq!(s.lines.len(), 2);
        assert_eq!(s.start, 51.5);
        assert_eq!(s.current, 49.75);
        assert_eq!(s.lines[0].cut, -0.5);
        assert_eq!(s.lines[0].partner.as_deref(), Some("Bo Lund"));
        assert_eq!(s.lines[0].unit, PERCENT);
        assert_eq!(s.lines[1].partner.as_deref(), Some("non-member"));
        assert_eq!(s.lines[1].title.as_deref(), Some("Tuesday pairs"));
        assert_eq!(s.lines[1].unit, IMPS);
        assert_eq!(s.total_change(), -1.75);
        assert_eq!(s.current - s.start, s.total_change());
        let text = s.to_text();
        assert!(
            text.contains("handicap 51.50 -> 49.75 (-1.75) over 2 competitions"),
            "{text}"
        );
        let html = s.to_html();
        assert!(html.contains("<svg") && html.contains("Tuesday pairs"));
        assert!(statement(&tables, 7).is_err());
        Ok(())
    }
}
