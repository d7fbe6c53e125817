//! The monthly report: one page an officer can read and mail after the month's run.
//!
//! It is built from the run's output folder (and last month's, to show what changed), so
//! it can be made again at any time from the published files. The page is one HTML file
//! with inline SVG: it opens from a mail attachment or a shared drive with no script and
//! no network. The ranking's changes also go to `ranking_diff.csv` for whoever publishes
//! the list.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use chrono::{Datelike, Months, NaiveDate};
use polars::prelude::*;

use super::frame::FrameBuilder;
use super::page::{self, escape, headings, Text, STYLE};
use super::run_tables::{ImportLogRow, MemberRow, RunTables};
use super::svg::{self, Chart, Mark, Series};
use maud::{html, Markup, PreEscaped};

/// A CSV output listed in the report as it is (`quarantine.csv`, `unrated.csv`,
/// `corrections.csv`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextTable {
    pub name: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// A member whose handicap moved in the month.
#[derive(Debug, Clone, PartialEq)]
pub struct Mover {
    pub member_id: i64,
    pub name: String,
    pub club: String,
    pub before: f64,
    pub after: f64,
    pub competitions: usize,
}

/// A handicap as the report prints it: to two decimals, half away from zero, as the
/// ranking publishes it.
fn shown(handicap: f64) -> f64 {
    crate::pipeline::ranking::published(handicap)
}

/// The change between two handicaps as the report prints them: the difference of the
/// printed figures, so that a reader who subtracts the printed before from the printed
/// after gets the printed change (36.06 to 37.00 is +0.94 even when the handicap moved
/// by 0.9302), in every table of the report and in `ranking_diff.csv`.
fn shown_change(before: f64, after: f64) -> f64 {
    shown(shown(after) - shown(before))
}

impl Mover {
    /// The change as printed: the difference of the printed before and after.
    pub fn change(&self) -> f64 {
        shown_change(self.before, self.after)
    }
}

/// A line of the ranking with its change since the previous list.
#[derive(Debug, Clone, PartialEq)]
pub struct RankingChange {
    pub rank: Option<i64>,
    pub group: Option<String>,
    pub member_id: i64,
    pub name: String,
    pub club: String,
    pub handicap: Option<f64>,
    pub previous_rank: Option<i64>,
    pub previous_handicap: Option<f64>,
    /// `new`, `left`, `up`, `down` or `same` (empty without a previous list).
    pub status: &'static str,
}

/// Members, active players and mean handicap of a club.
#[derive(Debug, Clone, PartialEq)]
pub struct ClubLine {
    pub club: String,
    pub members: usize,
    pub active: usize,
    /// Mean handicap of the active players.
    pub mean_handicap: Option<f64>,
}

/// The rated competitions of one month, from the run's changes.
#[derive(Debug, Clone, PartialEq)]
pub struct MonthActivity {
    /// The month's first day.
    pub month: NaiveDate,
    pub competitions: usize,
    /// Distinct numbered players (members and foreign guests).
    pub players: usize,
    /// Boards of the month's competitions (each competition's own count, once).
    pub boards: i64,
}

/// What the report shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Every month of the run's history, oldest first.
    pub activity: Vec<MonthActivity>,
    /// The change over the month of each member who played in it, in member order.
    pub spread: Vec<f64>,
    /// The month's refused and mismatched files from the dataset's import log; `None`
    /// when the dataset has no log.
    pub import_problems: Option<Vec<ImportLogRow>>,
    /// The first day of the month reported (the month of the run's last competition).
    pub month: Option<NaiveDate>,
    pub members: usize,
    pub active: usize,
    /// Handicaps of the members who have played, for the distribution.
    pub handicaps: Vec<f64>,
    pub previous_handicaps: Option<Vec<f64>>,
    /// Biggest changes in the month: handicap down (better) and up (worse), largest first.
    pub improved: Vec<Mover>,
    pub worsened: Vec<Mover>,
    pub new_members: Vec<MemberRow>,
    pub ranking: Vec<RankingChange>,
    pub top: usize,
    pub has_previous: bool,
    pub clubs: Vec<ClubLine>,
    pub tables: Vec<TextTable>,
}

fn month_start(date: NaiveDate) -> NaiveDate {
    date.with_day(1).unwrap_or(date)
}

/// The month's changes per member: first handicap before and last after, in replay order.
fn month_moves(tables: &RunTables, month: NaiveDate) -> Vec<Mover> {
    let names: HashMap<i64, &MemberRow> = tables.members.iter().map(|m| (m.member_id, m)).collect();
    let mut moves: BTreeMap<i64, Mover> = BTreeMap::new();
    for row in tables
        .changes
        .iter()
        .filter(|r| r.member_id >= 0 && month_start(r.date) == month)
    {
        let Some(member) = names.get(&row.member_id) else {
            continue;
        };
        let entry = moves.entry(row.member_id).or_insert_with(|| Mover {
            member_id: row.member_id,
            name: member.name.clone().unwrap_or_default(),
            club: member.club.clone().unwrap_or_default(),
            before: row.handicap_before,
            after: row.handicap_before,
            competitions: 0,
        });
        entry.after += row.handicap_after - row.handicap_before;
        entry.competitions += 1;
    }
    moves.into_values().collect()
}

/// The `n` largest moves in one direction (`sign` −1: handicap down, +1: up), largest
/// first; ties by member number.
pub fn biggest(moves: &[Mover], sign: f64, n: usize) -> Vec<Mover> {
    let mut chosen: Vec<Mover> = moves
        .iter()
        .filter(|m| m.change() * sign > 0.0)
        .cloned()
        .collect();
    chosen.sort_by(|a, b| {
        b.change()
            .abs()
            .total_cmp(&a.change().abs())
            .then(a.member_id.cmp(&b.member_id))
    });
    chosen.truncate(n);
    chosen
}

fn ranking_changes(current: &RunTables, previous: Option<&RunTables>) -> Vec<RankingChange> {
    let before: HashMap<(Option<&str>, i64), (i64, f64)> = previous
        .map(|p| {
            p.ranking
                .iter()
                .map(|r| ((r.group.as_deref(), r.member_id), (r.rank, r.handicap)))
                .collect()
        })
        .unwrap_or_default();
    let mut lines: Vec<RankingChange> = current
        .ranking
        .iter()
        .map(|r| {
            let old = before.get(&(r.group.as_deref(), r.member_id));
            let status = match (previous, old) {
                (None, _) => "",
                (Some(_), None) => "new",
                (Some(_), Some((rank, _))) if *rank > r.rank => "up",
                (Some(_), Some((rank, _))) if *rank < r.rank => "down",
                (Some(_), Some(_)) => "same",
            };
            RankingChange {
                rank: Some(r.rank),
                group: r.group.clone(),
                member_id: r.member_id,
                name: r.name.clone().unwrap_or_default(),
                club: r.club.clone().unwrap_or_default(),
                handicap: Some(r.handicap),
                previous_rank: old.map(|o| o.0),
                previous_handicap: old.map(|o| o.1),
                status,
            }
        })
        .collect();
    if let Some(previous) = previous {
        let now: HashSet<(Option<&str>, i64)> = current
            .ranking
            .iter()
            .map(|r| (r.group.as_deref(), r.member_id))
            .collect();
        lines.extend(
            previous
                .ranking
                .iter()
                .filter(|r| !now.contains(&(r.group.as_deref(), r.member_id)))
                .map(|r| RankingChange {
                    rank: None,
                    group: r.group.clone(),
                    member_id: r.member_id,
                    name: r.name.clone().unwrap_or_default(),
                    club: r.club.clone().unwrap_or_default(),
                    handicap: None,
                    previous_rank: Some(r.rank),
                    previous_handicap: Some(r.handicap),
                    status: "left",
                }),
        );
    }
    lines
}

/// Members who played in the twelve months up to the end of `month`.
fn is_active(member: &MemberRow, month: Option<NaiveDate>) -> bool {
    match (member.last_played, month) {
        (Some(last), Some(month)) => {
            let end = month + Months::new(1);
            let start = end - Months::new(12);
            last >= start && last < end
        }
        (Some(_), None) => true,
        (None, _) => false,
    }
}

fn clubs(members: &[MemberRow], month: Option<NaiveDate>) -> Vec<ClubLine> {
    let mut by_club: BTreeMap<String, (usize, usize, f64)> = BTreeMap::new();
    for m in members {
        let club = m.club.clone().unwrap_or_else(|| "(no club)".into());
        let line = by_club.entry(club).or_default();
        line.0 += 1;
        if is_active(m, month) {
            line.1 += 1;
            line.2 += m.handicap;
        }
    }
    by_club
        .into_iter()
        .map(|(club, (members, active, sum))| ClubLine {
            club,
            members,
            active,
            mean_handicap: (active > 0).then(|| sum / active as f64),
        })
        .collect()
}

/// Competitions, players and boards per month, from the changes (rated competitions).
pub fn activity(tables: &RunTables) -> Vec<MonthActivity> {
    type Month<'a> = (HashMap<&'a str, i64>, HashSet<i64>);
    let mut months: BTreeMap<NaiveDate, Month> = BTreeMap::new();
    for row in &tables.changes {
        let (competitions, players) = months.entry(month_start(row.date)).or_default();
        let boards = competitions.entry(&*row.competition_id).or_default();
        *boards = (*boards).max(i64::from(row.n_b));
        if row.member_id >= 0 {
            players.insert(row.member_id);
        }
    }
    let mut out: Vec<MonthActivity> = Vec::with_capacity(months.len());
    for (month, (competitions, players)) in months {
        // A month without a rated competition shows as a zero, not as a gap.
        while let Some(next) = out
            .last()
            .map(|a| a.month + Months::new(1))
            .filter(|next| *next < month)
        {
            out.push(MonthActivity {
                month: next,
                competitions: 0,
                players: 0,
                boards: 0,
            });
        }
        out.push(MonthActivity {
            month,
            competitions: competitions.len(),
            players: players.len(),
            boards: competitions.values().sum(),
        });
    }
    out
}

/// Value below which a share `q` of `sorted` lies (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let at = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[at - 1])
}

impl Report {
    /// Adds the month's refused and mismatched files from the dataset's import log:
    /// the rows of the report's month, and the rows of the latest batch that could not
    /// be dated (a file refused before its date was read).
    pub fn with_import_log(mut self, log: Option<Vec<ImportLogRow>>) -> Report {
        let month = self.month.map(|m| m.format("%Y-%m").to_string());
        self.import_problems = log.map(|rows| {
            let batch_key = |b: &str| (b.parse::<i64>().unwrap_or(i64::MIN), b.to_owned());
            let last = rows.iter().map(|r| batch_key(&r.batch)).max();
            rows.into_iter()
                .filter(|r| r.status == "refused" || r.status == "mismatch")
                .filter(|r| {
                    if r.month.is_empty() {
                        last.as_ref() == Some(&batch_key(&r.batch))
                    } else {
                        month.as_deref() == Some(r.month.as_str())
                    }
                })
                .collect()
        });
        self
    }
}

/// Builds the report of the run in `current`, compared with `previous` when given.
pub fn build(
    current: &RunTables,
    previous: Option<&RunTables>,
    tables: Vec<TextTable>,
    top: usize,
    movers: usize,
) -> Report {
    let month = current
        .changes
        .iter()
        .map(|c| c.date)
        .max()
        .map(month_start);
    let moves = month.map(|m| month_moves(current, m)).unwrap_or_default();
    let new_members: Vec<MemberRow> = match previous {
        Some(p) => {
            let known: HashSet<i64> = p.members.iter().map(|m| m.member_id).collect();
            current
                .members
                .iter()
                .filter(|m| !known.contains(&m.member_id))
                .cloned()
                .collect()
        }
        None => {
            let mut first: HashMap<i64, NaiveDate> = HashMap::new();
            for c in &current.changes {
                let date = first.entry(c.member_id).or_insert(c.date);
                *date = (*date).min(c.date);
            }
            current
                .members
                .iter()
                .filter(|m| {
                    first
                        .get(&m.member_id)
                        .is_some_and(|d| Some(month_start(*d)) == month)
                })
                .cloned()
                .collect()
        }
    };
    let played = |members: &[MemberRow]| -> Vec<f64> {
        members
            .iter()
            .filter(|m| m.competitions > 0)
            .map(|m| m.handicap)
            .collect()
    };
    Report {
        activity: activity(current),
        spread: moves.iter().map(Mover::change).collect(),
        import_problems: None,
        month,
        members: current.members.len(),
        active: current
            .members
            .iter()
            .filter(|m| is_active(m, month))
            .count(),
        handicaps: played(&current.members),
        previous_handicaps: previous.map(|p| played(&p.members)),
        improved: biggest(&moves, -1.0, movers),
        worsened: biggest(&moves, 1.0, movers),
        new_members,
        ranking: ranking_changes(current, previous),
        top,
        has_previous: previous.is_some(),
        clubs: clubs(&current.members, month),
        tables,
    }
}

/// Counts per 2-point bin, as (bin start, count): the 0–52 scale, widened to take in
/// handicaps below 0 (a factor set without a floor) or above 52.
fn histogram(values: &[f64]) -> Vec<(f64, f64)> {
    let finite = || values.iter().copied().filter(|v| v.is_finite());
    let low = finite().fold(0.0f64, f64::min);
    let high = finite().fold(52.0f64, f64::max);
    let first = (low / 2.0).floor() as i64;
    let last = ((high / 2.0).floor() as i64).max(first);
    // 52 itself belongs to the last bin of the scale, 50–52.
    let last = if high <= 52.0 { 25 } else { last };
    let mut counts = vec![0usize; (last - first + 1) as usize];
    for v in finite() {
        let bin = ((v / 2.0).floor() as i64).clamp(first, last);
        counts[(bin - first) as usize] += 1;
    }
    counts
        .iter()
        .enumerate()
        .map(|(i, c)| ((first + i as i64) as f64 * 2.0, *c as f64))
        .collect()
}

fn signed(v: Option<i64>) -> String {
    match v {
        Some(v) if v > 0 => format!("+{v}"),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

impl RankingChange {
    /// Places gained since the previous list (positive: moved up).
    pub fn rank_change(&self) -> Option<i64> {
        Some(self.previous_rank? - self.rank?)
    }
    /// The change as printed: the difference of the printed handicaps.
    pub fn handicap_change(&self) -> Option<f64> {
        Some(shown_change(self.previous_handicap?, self.handicap?))
    }
}

impl Report {
    /// `ranking_diff.csv`.
    pub fn ranking_diff(&self) -> PolarsResult<DataFrame> {
        let r = &self.ranking;
        let mut frame = FrameBuilder::new(r.len()).map("rank", r, |l| l.rank);
        if r.iter().any(|l| l.group.is_some()) {
            frame = frame.map("group", r, |l| l.group.clone());
        }
        frame
            .map("member_id", r, |l| l.member_id)
            .map("name", r, |l| l.name.clone())
            .map("club", r, |l| l.club.clone())
            .map("handicap", r, |l| l.handicap.map(shown))
            .map("previous_rank", r, |l| l.previous_rank)
            .map("rank_change", r, |l| l.rank_change())
            .map("previous_handicap", r, |l| l.previous_handicap.map(shown))
            .map("handicap_change", r, |l| l.handicap_change())
            .map("status", r, |l| l.status)
            .build()
    }

    fn distribution_svg(&self) -> String {
        let mut chart = Chart::new(
            "Handicaps of the members who have played",
            "handicap (0 best, 52 beginner)",
            "members",
        );
        chart.width = 760.0;
        let current = histogram(&self.handicaps);
        let previous = self.previous_handicaps.as_deref().map(histogram);
        let start = current
            .iter()
            .chain(previous.iter().flatten())
            .map(|p| p.0)
            .fold(0.0f64, f64::min);
        let end = current
            .iter()
            .chain(previous.iter().flatten())
            .map(|p| p.0 + 2.0)
            .fold(52.0f64, f64::max);
        chart.x_range = Some((start, end));
        let top = current.iter().map(|p| p.1).fold(1.0, f64::max);
        let mut series = vec![Series::new(
            "this run",
            svg::PALETTE[0],
            Mark::Steps { bin_milli: 2000 },
            current,
        )];
        if let Some(previous) = previous {
            let top_prev = previous.iter().map(|p| p.1).fold(top, f64::max);
            chart.y_range = Some((0.0, top_prev * 1.1));
            series.push(
                Series::new(
                    "previous run",
                    svg::PALETTE[1],
                    Mark::Steps { bin_milli: 2000 },
                    previous,
                )
                .dashed(),
            );
        } else {
            chart.y_range = Some((0.0, top * 1.1));
        }
        chart.series = series;
        svg::render(&chart)
    }

    fn activity_svg(&self) -> String {
        let months = |d: NaiveDate| f64::from(d.year() * 12 + d.month0() as i32);
        let mut chart = Chart::new(
            "Rated competitions and players per month",
            "month",
            "per month",
        );
        chart.width = 760.0;
        chart.height = 300.0;
        if let (Some(first), Some(last)) = (self.activity.first(), self.activity.last()) {
            let ticks = super::statement::month_ticks(first.month, last.month);
            chart.x_ticks = Some(
                ticks
                    .into_iter()
                    .filter_map(|(_, label)| {
                        let date =
                            NaiveDate::parse_from_str(&format!("{label}-01"), "%Y-%m-%d").ok()?;
                        Some((months(date), label))
                    })
                    .collect(),
            );
            chart.x_range = Some((months(first.month) - 0.5, months(last.month) + 0.5));
        }
        let top = self
            .activity
            .iter()
            .map(|a| a.players.max(a.competitions) as f64)
            .fold(1.0, f64::max);
        chart.y_range = Some((0.0, top * 1.1));
        let series = |f: fn(&MonthActivity) -> usize| -> Vec<(f64, f64)> {
            self.activity
                .iter()
                .map(|a| (months(a.month), f(a) as f64))
                .collect()
        };
        chart.series.push(Series::new(
            "players",
            svg::PALETTE[0],
            Mark::LinePoints,
            series(|a| a.players),
        ));
        chart.series.push(Series::new(
            "competitions",
            svg::PALETTE[1],
            Mark::LinePoints,
            series(|a| a.competitions),
        ));
        svg::render(&chart)
    }

    fn activity_table(&self) -> Markup {
        let shown = self.activity.len().saturating_sub(13);
        html! {
            table {
                tr { (headings(&["month", "competitions", "players", "boards"])) }
                @for a in self.activity.iter().skip(shown).rev() {
                    tr {
                        td { (a.month.format("%Y-%m").to_string()) }
                        td.n { (a.competitions) }
                        td.n { (a.players) }
                        td.n { (a.boards) }
                    }
                }
            }
            @if shown > 0 {
                p.note { "The last 13 months; the chart shows all " (self.activity.len()) "." }
            }
        }
    }

    /// Counts of the month's changes per half point, better (down) on the left.
    fn spread_svg(&self) -> String {
        let mut chart = Chart::new(
            "How much the members who played moved this month",
            "change of handicap over the month (negative: better)",
            "members",
        );
        chart.width = 760.0;
        chart.height = 280.0;
        let bin = 0.5;
        let mut counts: BTreeMap<i64, usize> = BTreeMap::new();
        for c in self.spread.iter().filter(|c| c.is_finite()) {
            *counts.entry((c / bin).floor() as i64).or_default() += 1;
        }
        let (Some(&low), Some(&high)) = (counts.keys().next(), counts.keys().next_back()) else {
            return String::new();
        };
        // An empty bin each side closes the outline at zero.
        let points: Vec<(f64, f64)> = (low - 1..=high + 1)
            .map(|b| {
                (
                    b as f64 * bin,
                    counts.get(&b).copied().unwrap_or_default() as f64,
                )
            })
            .collect();
        let top = points.iter().map(|p| p.1).fold(1.0, f64::max);
        chart.x_range = Some(((low - 1) as f64 * bin, (high + 2) as f64 * bin));
        chart.y_range = Some((0.0, top * 1.1));
        chart.series.push(Series::new(
            "members",
            svg::PALETTE[0],
            Mark::Steps { bin_milli: 500 },
            points,
        ));
        svg::render(&chart)
    }

    fn spread_note(&self) -> Markup {
        let mut sorted: Vec<f64> = self
            .spread
            .iter()
            .copied()
            .filter(|c| c.is_finite())
            .collect();
        sorted.sort_by(f64::total_cmp);
        let (Some(median), Some(p10), Some(p90)) = (
            quantile(&sorted, 0.5),
            quantile(&sorted, 0.1),
            quantile(&sorted, 0.9),
        ) else {
            return html! { p { "Nobody played a rated competition this month." } };
        };
        let better = sorted.iter().filter(|c| **c < 0.0).count();
        let worse = sorted.iter().filter(|c| **c > 0.0).count();
        let note = format!(
            "{} played: {better} better (down), {worse} worse (up), {} unchanged. Median change {median:+.2}; the middle 80 % moved between {p10:+.2} and {p90:+.2}; the extremes were {:+.2} and {:+.2}.",
            super::count(sorted.len(), "member", "members"),
            sorted.len() - better - worse,
            sorted[0],
            sorted[sorted.len() - 1]
        );
        html! { p { (note) } }
    }

    fn import_section(&self, month: &str) -> Markup {
        let Some(rows) = &self.import_problems else {
            return html! {};
        };
        html! {
            h2 { "Refused and mismatched files of " (month) " (" (rows.len()) ")" }
            @if rows.is_empty() {
                p { "none: every file of the month imported as its club published it." }
            } @else {
                table {
                    tr { (headings(&[
                        "file", "status", "competition", "line", "board", "column", "reason",
                    ])) }
                    @for r in rows { (import_row(r)) }
                }
                p.note { "From the dataset's import_log.parquet: refused files were not imported; a mismatch is a club's published result that differs from the one scored from its table results." }
            }
        }
    }

    fn movers_svg(&self) -> String {
        let bars: Vec<&Mover> = self.improved.iter().chain(&self.worsened).collect();
        let (w, row, left) = (760.0, 18.0, 230.0);
        let h = 30.0 + row * bars.len() as f64;
        let max = bars
            .iter()
            .map(|m| m.change().abs())
            .fold(0.0f64, f64::max)
            .max(0.1);
        let mid = left + (w - left - 80.0) / 2.0;
        let scale = (w - left - 100.0) / 2.0 / max;
        let mut s = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="11" role="img"><title>Biggest changes of the month</title><text x="4" y="14" font-size="13" font-weight="bold">Biggest changes of the month (handicap points)</text>"#
        );
        let _ = write!(
            s,
            r##"<line x1="{mid:.1}" x2="{mid:.1}" y1="20" y2="{:.1}" stroke="#999"/>"##,
            h - 4.0
        );
        for (i, m) in bars.iter().enumerate() {
            let y = 24.0 + row * i as f64;
            let d = m.change();
            let len = d.abs() * scale;
            let (x, color) = if d < 0.0 {
                (mid - len, svg::PALETTE[2])
            } else {
                (mid, svg::PALETTE[1])
            };
            let _ = write!(
                s,
                r#"<text x="4" y="{:.1}">{}</text><rect x="{x:.1}" y="{y:.1}" width="{len:.1}" height="{:.1}" fill="{color}"/><text x="{:.1}" y="{:.1}" text-anchor="{}">{:+.2}</text>"#,
                y + 11.0,
                escape(&format!("{} ({})", m.name, m.member_id)),
                row - 5.0,
                if d < 0.0 { x - 4.0 } else { x + len + 4.0 },
                y + 11.0,
                if d < 0.0 { "end" } else { "start" },
                d
            );
        }
        s.push_str("</svg>");
        s
    }

    fn movers_table(title: &str, movers: &[Mover]) -> Markup {
        html! {
            h3 { (Text(title)) }
            @if movers.is_empty() {
                p { "none" }
            } @else {
                table {
                    tr { (headings(&[
                        "member", "name", "club", "competitions", "before", "after", "change",
                    ])) }
                    @for m in movers {
                        tr {
                            td.n { (m.member_id) }
                            td { (Text(&m.name)) }
                            td { (Text(&m.club)) }
                            td.n { (m.competitions) }
                            td.n { (format!("{:.2}", shown(m.before))) }
                            td.n { (format!("{:.2}", shown(m.after))) }
                            td.n { (format!("{:+.2}", m.change())) }
                        }
                    }
                }
            }
        }
    }

    /// The report as one self-contained HTML page.
    pub fn to_html(&self, title: &str) -> String {
        let month = self
            .month
            .map(|m| m.format("%Y-%m").to_string())
            .unwrap_or_else(|| "no competitions".into());
        let body = html! {
            p {
                (self.members) " members, " (self.active)
                " active (played in the 12 months up to the end of " (month) ")."
            }
            h2 { "Activity over the months" }
            (PreEscaped(self.activity_svg()))
            (self.activity_table())
            h2 { "Handicap distribution" }
            (PreEscaped(self.distribution_svg()))
            h2 { "Spread of the changes in " (month) }
            (self.spread_note())
            (PreEscaped(self.spread_svg()))
            (self.import_section(&month))
            (self.movers_section(&month))
            (self.new_members_section())
            (self.ranking_section())
            (self.tables_section())
            (self.clubs_section())
        };
        page::page(
            &format!("{title} {month}"),
            STYLE,
            &format!("{title} — {month}"),
            body,
        )
    }

    fn movers_section(&self, month: &str) -> Markup {
        html! {
            h2 { "Biggest movers in " (month) }
            @if !self.improved.is_empty() || !self.worsened.is_empty() {
                (PreEscaped(self.movers_svg()))
            }
            (Self::movers_table("Improved most (handicap down)", &self.improved))
            (Self::movers_table("Worsened most (handicap up)", &self.worsened))
        }
    }

    fn new_members_section(&self) -> Markup {
        html! {
            h2 { "New members (" (self.new_members.len()) ")" }
            @if self.new_members.is_empty() {
                p { "none" }
            } @else {
                table {
                    tr { (headings(&["member", "name", "club", "handicap", "competitions"])) }
                    @for m in &self.new_members {
                        tr {
                            td.n { (m.member_id) }
                            td { (Text(m.name.as_deref().unwrap_or(""))) }
                            td { (Text(m.club.as_deref().unwrap_or(""))) }
                            td.n { (format!("{:.2}", m.handicap)) }
                            td.n { (m.competitions) }
                        }
                    }
                }
            }
        }
    }

    /// The top of the ranking (of each group), with the changes since the previous list.
    fn ranking_section(&self) -> Markup {
        let grouped = self.ranking.iter().any(|r| r.group.is_some());
        let mut shown: HashMap<Option<&str>, usize> = HashMap::new();
        let lines = self
            .ranking
            .iter()
            .filter(|r| r.rank.is_some())
            .filter(|r| {
                let count = shown.entry(r.group.as_deref()).or_default();
                *count += 1;
                *count <= self.top
            });
        html! {
            h2 { "Ranking: top " (self.top) }
            table {
                tr {
                    th { "rank" }
                    @if grouped { th { "group" } }
                    (headings(&["member", "name", "club", "handicap"]))
                    @if self.has_previous {
                        (headings(&["previous rank", "places", "handicap change"]))
                    }
                }
                @for r in lines { (self.ranking_line(r, grouped)) }
            }
            @if self.has_previous {
                p.note {
                    "places: positions gained since the previous ranking. "
                    (self.ranking.iter().filter(|r| r.status == "left").count())
                    " members left the ranking; ranking_diff.csv has every line."
                }
            }
        }
    }

    fn ranking_line(&self, r: &RankingChange, grouped: bool) -> Markup {
        html! {
            tr {
                td.n { (signed(r.rank).trim_start_matches('+')) }
                @if grouped { td { (Text(r.group.as_deref().unwrap_or(""))) } }
                td.n { (r.member_id) }
                td { (Text(&r.name)) }
                td { (Text(&r.club)) }
                td.n { (format!("{:.2}", r.handicap.unwrap_or(f64::NAN))) }
                @if self.has_previous {
                    td.n {
                        @match r.previous_rank {
                            Some(p) => { (p) }
                            None => { "new" }
                        }
                    }
                    td.n { (signed(r.rank_change())) }
                    td.n {
                        @if let Some(c) = r.handicap_change() { (format!("{c:+.2}")) }
                    }
                }
            }
        }
    }

    /// The CSV outputs listed as they are, 50 rows of each at most.
    fn tables_section(&self) -> Markup {
        html! {
            h2 { "Quarantined and unrated competitions, corrections" }
            @for table in &self.tables {
                h3 { (Text(&table.name)) " (" (table.rows.len()) " rows)" }
                @if table.rows.is_empty() {
                    p { "none" }
                } @else {
                    table {
                        tr { @for c in &table.header { th { (Text(c)) } } }
                        @for row in table.rows.iter().take(50) {
                            tr { @for c in row { td { (Text(c)) } } }
                        }
                    }
                    @if table.rows.len() > 50 {
                        p.note {
                            "… and " (table.rows.len() - 50) " more rows in "
                            (Text(&table.name)) "."
                        }
                    }
                }
            }
        }
    }

    fn clubs_section(&self) -> Markup {
        html! {
            h2 { "Clubs" }
            table {
                tr { (headings(&[
                    "club", "members", "active players", "mean handicap of active players",
                ])) }
                @for c in &self.clubs {
                    tr {
                        td { (Text(&c.club)) }
                        td.n { (c.members) }
                        td.n { (c.active) }
                        td.n {
                            @if let Some(m) = c.mean_handicap { (format!("{m:.2}")) }
                        }
                    }
                }
            }
        }
    }
}

/// A refused or mismatched file's line: its name, with the whole path on hover.
fn import_row(r: &ImportLogRow) -> Markup {
    let file = std::path::Path::new(&r.file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| r.file.clone());
    html! {
        tr {
            td title=(Text(&r.file)) { (Text(&file)) }
            td { (Text(&r.status)) }
            td { (Text(&r.competition_id)) }
            td.n { (Text(&r.line)) }
            td.n { (Text(&r.board)) }
            td { (Text(&r.column)) }
            td { (Text(&r.reason)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::run_tables::{ChangeRow, ChangeStatus, RankingRow};

    fn mover(id: i64, before: f64, after: f64) -> Mover {
        Mover {
            member_id: id,
            name: format!("m{id}"),
            club: String::new(),
            before,
            after,
            competitions: 1,
        }
    }

    #[test]
    fn biggest_movers_are_the_largest_changes_each_way() {
        let moves = vec![
            mover(1, 30.0, 29.0),
            mover(2, 30.0, 27.5),
            mover(3, 30.0, 30.25),
            mover(4, 30.0, 31.5),
            mover(5, 30.0, 28.0),
            mover(6, 30.0, 30.0),
        ];
        let down: Vec<i64> = biggest(&moves, -1.0, 2)
            .iter()
            .map(|m| m.member_id)
            .collect();
        let up: Vec<i64> = biggest(&moves, 1.0, 5)
            .iter()
            .map(|m| m.member_id)
            .collect();
        assert_eq!(down, [2, 5]);
        assert_eq!(up, [4, 3]);
    }

    fn member(id: i64, handicap: f64, last: Option<NaiveDate>) -> MemberRow {
        MemberRow {
            member_id: id,
            name: Some(format!("m{id}")),
            club: Some(if id < 3 { "A" } else { "B" }.into()),
            handicap,
            boards: 24,
            competitions: i64::from(last.is_some()),
            last_played: last,
        }
    }

    fn ranked(rank: i64, id: i64, handicap: f64) -> RankingRow {
        RankingRow {
            rank,
            group: None,
            member_id: id,
            name: Some(format!("m{id}")),
            club: None,
            handicap,
            boards: 24,
        }
    }

    #[test]
    fn new_members_ranking_changes_and_clubs_against_the_previous_run() {
        let day = |m: u32, d: u32| NaiveDate::from_ymd_opt(2026, m, d);
        let previous = RunTables {
            members: vec![member(1, 20.0, day(9, 3)), member(2, 30.0, day(9, 3))],
            ranking: vec![ranked(1, 1, 20.0), ranked(2, 2, 30.0)],
            ..RunTables::default()
        };
        let current = RunTables {
            members: vec![
                member(1, 21.0, day(10, 5)),
                member(2, 30.0, day(9, 3)),
                member(3, 10.0, day(10, 5)),
                member(4, 52.0, None),
            ],
            ranking: vec![ranked(1, 3, 10.0), ranked(2, 1, 21.0)],
            changes: vec![crate::report::run_tables::ChangeRow {
                competition_id: "c".into(),
                date: day(10, 5).unwrap_or_default(),
                member_id: 1,
                entrant: "1".into(),
                handicap_before: 20.0,
                partner: 0.0,
                has_partner: false,
                pair_handicap: 20.0,
                field_handicap: 20.0,
                expected: 0.0,
                achieved: -2.0,
                n_b: 24,
                n_g: 24,
                delta: 1.0,
                handicap_after: 21.0,
                status: ChangeStatus::Member,
            }],
            ..RunTables::default()
        };
        let report = build(&current, Some(&previous), Vec::new(), 20, 10);
        assert_eq!(report.month, day(10, 1));
        let new: Vec<i64> = report.new_members.iter().map(|m| m.member_id).collect();
        assert_eq!(new, [3, 4]);
        let lines: Vec<(Option<i64>, i64, Option<i64>, &str)> = report
            .ranking
            .iter()
            .map(|r| (r.rank, r.member_id, r.rank_change(), r.status))
            .collect();
        assert_eq!(
            lines,
            [
                (Some(1), 3, None, "new"),
                (Some(2), 1, Some(-1), "down"),
                (None, 2, None, "left"),
            ]
        );
        assert_eq!(report.ranking[1].handicap_change(), Some(1.0));
        assert_eq!(report.worsened.len(), 1);
        assert_eq!(report.worsened[0].change(), 1.0);
        assert!(report.improved.is_empty());
        // Club A: members 1 and 2, both active (played within 12 months), mean 25.5;
        // club B: 3 active at 10.0, 4 never played.
        assert_eq!(
            report.clubs,
            [
                ClubLine {
                    club: "A".into(),
                    members: 2,
                    active: 2,
                    mean_handicap: Some(25.5)
                },
                ClubLine {
                    club: "B".into(),
                    members: 2,
                    active: 1,
                    mean_handicap: Some(10.0)
                },
            ]
        );
        let diff = report.ranking_diff().map_err(|e| e.to_string());
        assert_eq!(diff.map(|d| d.height()), Ok(3));
    }

    /// A member who moved from 36.064 to 36.996 in the month (by 0.932): the movers
    /// table prints before 36.06 and after 37.00, so its change is +0.94, the figure
    /// the ranking's table and `ranking_diff.csv` give from the published 36.06 and 37.00.
    #[test]
    fn every_table_gives_the_change_of_the_printed_handicaps() {
        let day = |m: u32, d: u32| NaiveDate::from_ymd_opt(2026, m, d);
        let previous = RunTables {
            members: vec![member(1, 36.064, day(9, 3))],
            ranking: vec![ranked(1, 1, 36.06)],
            ..RunTables::default()
        };
        let mut row = change_row("c", day(10, 5).unwrap_or_default(), 1, 24, 0.932);
        row.handicap_before = 36.064;
        row.handicap_after = 36.996;
        let current = RunTables {
            members: vec![member(1, 36.996, day(10, 5))],
            ranking: vec![ranked(1, 1, 37.0)],
            changes: vec![row],
            ..RunTables::default()
        };
        let report = build(&current, Some(&previous), Vec::new(), 20, 10);
        let html = report.to_html("t");
        assert!(
            html.contains("<td class=\"n\">1</td><td class=\"n\">36.06</td><td class=\"n\">37.00</td><td class=\"n\">+0.94</td>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<td class=\"n\">37.00</td><td class=\"n\">1</td><td class=\"n\">0</td><td class=\"n\">+0.94</td>"
            ),
            "{html}"
        );
        assert_eq!(report.spread, [0.94]);
        assert!(html.contains("the extremes were +0.94 and +0.94"), "{html}");
        let diff = report.ranking_diff().map_err(|e| e.to_string());
        let change = diff.and_then(|d| {
            d.column("handicap_change")
                .and_then(|c| c.f64().map(|c| c.get(0)))
                .map_err(|e| e.to_string())
        });
        assert_eq!(change, Ok(Some(0.94)));
    }

    fn change_row(id: &str, date: NaiveDate, member: i64, n_b: i32, delta: f64) -> ChangeRow {
        ChangeRow {
            competition_id: id.into(),
            date,
            member_id: member,
            entrant: "1".into(),
            handicap_before: 30.0,
            partner: 0.0,
            has_partner: false,
            pair_handicap: 30.0,
            field_handicap: 30.0,
            expected: 0.0,
            achieved: 0.0,
            n_b,
            n_g: n_b,
            delta,
            handicap_after: 30.0 + delta,
            status: ChangeStatus::Member,
        }
    }

    #[test]
    fn activity_counts_competitions_players_and_boards_per_month() {
        let day = |m: u32, d: u32| NaiveDate::from_ymd_opt(2016, m, d).unwrap_or_default();
        // January: two competitions (24 and 27 boards), players 1, 2, 3 and a non-member
        // placeholder (-1, not counted); February: nothing; March: one of 26 boards.
        let tables = RunTables {
            changes: vec![
                change_row("a", day(1, 6), 1, 24, -0.5),
                change_row("a", day(1, 6), 2, 24, 0.5),
                change_row("a", day(1, 6), -1, 24, 0.0),
                change_row("b", day(1, 13), 1, 27, -1.0),
                change_row("b", day(1, 13), 3, 27, 1.25),
                change_row("c", day(3, 2), 2, 26, 0.25),
            ],
            ..RunTables::default()
        };
        let counts: Vec<(String, usize, usize, i64)> = activity(&tables)
            .iter()
            .map(|a| {
                (
                    a.month.format("%Y-%m").to_string(),
                    a.competitions,
                    a.players,
                    a.boards,
                )
            })
            .collect();
        assert_eq!(
            counts,
            [
                ("2016-01".to_string(), 2, 3, 51),
                ("2016-02".to_string(), 0, 0, 0),
                ("2016-03".to_string(), 1, 1, 26),
            ]
        );
    }

    #[test]
    fn the_spread_and_the_import_log_are_the_months() {
        let day = |d: u32| NaiveDate::from_ymd_opt(2016, 3, d).unwrap_or_default();
        // March: member 1 moves -0.5 then -1.0 (-1.5 in all), 2 moves +1.25, 3 +0.25.
        let tables = RunTables {
            changes: vec![
                change_row("a", day(2), 1, 24, -0.5),
                change_row("a", day(2), 2, 24, 1.25),
                change_row("b", day(9), 1, 24, -1.0),
                change_row("b", day(9), 3, 24, 0.25),
            ],
            members: (1..=3).map(|id| member(id, 30.0, Some(day(9)))).collect(),
            ..RunTables::default()
        };
        let log = |batch: &str, file: &str, status: &str, month: &str| ImportLogRow {
            batch: batch.into(),
            file: format!("incoming/{file}"),
            status: status.into(),
            month: month.into(),
            reason: "a row with neither pair".into(),
            ..ImportLogRow::default()
        };
        let report = build(&tables, None, Vec::new(), 20, 10).with_import_log(Some(vec![
            log("1", "feb.pbn", "refused", "2016-02"),
            log("2", "mar-ok.pbn", "imported", "2016-03"),
            log("2", "mar-bad.pbn", "refused", "2016-03"),
            log("2", "mar-diff.pbn", "mismatch", "2016-03"),
            log("1", "undated-old.pbn", "refused", ""),
            log("2", "empty.pbn", "refused", ""),
        ]));
        assert_eq!(report.spread, [-1.5, 1.25, 0.25]);
        let files: Vec<&str> = report
            .import_problems
            .iter()
            .flatten()
            .map(|r| r.file.as_str())
            .collect();
        assert_eq!(
            files,
            [
                "incoming/mar-bad.pbn",
                "incoming/mar-diff.pbn",
                "incoming/empty.pbn"
            ]
        );
        let html = report.to_html("Federation");
        assert!(
            html.contains(
                "3 members played: 1 better (down), 2 worse (up), 0 unchanged. Median change +0.25"
            ),
            "{html}"
        );
        assert!(html.contains("the extremes were -1.50 and +1.25"), "{html}");
        assert!(html.contains("Refused and mismatched files of 2016-03 (3)"));
        assert!(html.contains(">mar-diff.pbn<") && !html.contains("feb.pbn"));
        // Without a log the section is left out.
        let without = build(&tables, None, Vec::new(), 20, 10).to_html("Federation");
        assert!(!without.contains("Refused and mismatched"));
    }

    #[test]
    fn histogram_widens_for_handicaps_below_zero() {
        let h = histogram(&[-6.87, -0.5, 3.0]);
        assert_eq!(h[0], (-8.0, 1.0));
        assert_eq!(h[3], (-2.0, 1.0));
        assert_eq!(h[5], (2.0, 1.0));
        assert_eq!(h.last(), Some(&(50.0, 0.0)));
    }

    #[test]
    fn histogram_bins_by_two_points_and_keeps_52_in_the_last_bin() {
        let h = histogram(&[0.0, 1.9, 2.0, 51.0, 52.0]);
        assert_eq!(h[0], (0.0, 2.0));
        assert_eq!(h[1], (2.0, 1.0));
        assert_eq!(h[25], (50.0, 2.0));
        assert_eq!(h.len(), 26);
    }
}
