//! `study.html`: the study as one self-contained page (tables and inline SVG charts).

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate};

use maud::{html, Markup, PreEscaped};

use crate::report::page::{self, headings, Text};
use crate::report::svg::{self, Chart, Mark, Series, PALETTE};

use super::{MetricRow, Study, Track, TrackKind};

fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

fn value(study: &Study, track: &Track, period: &str, metric: &str) -> Option<f64> {
    study
        .rows
        .iter()
        .find(|r| {
            r.set == track.name && r.hash == track.hash && r.period == period && r.metric == metric
        })
        .map(|r| r.value)
}

fn row<'a>(study: &'a Study, track: &Track, period: &str, metric: &str) -> Option<&'a MetricRow> {
    study.rows.iter().find(|r| {
        r.set == track.name && r.hash == track.hash && r.period == period && r.metric == metric
    })
}

/// `value [low, high]`, or the value alone without an interval.
fn ci_cell(study: &Study, track: &Track, metric: &str, digits: usize) -> String {
    match row(study, track, "test", metric) {
        Some(r) => match (r.low, r.high) {
            (Some(lo), Some(hi)) => format!("{:.digits$} [{lo:.digits$}, {hi:.digits$}]", r.value),
            _ => format!("{:.digits$}", r.value),
        },
        None => "–".into(),
    }
}

fn cell(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(v) => format!("{v:.digits$}"),
        None => "–".into(),
    }
}

/// Years as fractional x values (2025.5 is the start of July 2025).
fn year_fraction(d: NaiveDate) -> f64 {
    f64::from(d.year()) + f64::from(d.ordinal0()) / 365.25
}

fn year_ticks(from: NaiveDate, to: NaiveDate) -> Vec<(f64, String)> {
    (from.year()..=to.year() + 1)
        .map(|y| (f64::from(y), y.to_string()))
        .collect()
}

/// Ten bins of equal count by expected result: (mean expected, mean achieved).
fn calibration(track: &Track, study: &Study) -> Vec<(f64, f64)> {
    let mut p: Vec<(f64, f64)> = track
        .predictions
        .iter()
        .filter(|p| study.dates[p.competition] > study.burn_in_until)
        .map(|p| (p.expected, p.achieved))
        .collect();
    if p.len() < 10 {
        return Vec::new();
    }
    p.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let n = p.len();
    (0..10)
        .map(|b| {
            let part = &p[b * n / 10..(b + 1) * n / 10];
            let k = part.len().max(1) as f64;
            (
                part.iter().map(|x| x.0).sum::<f64>() / k,
                part.iter().map(|x| x.1).sum::<f64>() / k,
            )
        })
        .collect()
}

/// The study page's look.
const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}figure{margin:1em 0}.note{color:#555;font-size:90%}";

/// Renders the page. Same study, same bytes.
pub fn render(study: &Study) -> String {
    let sets = study
        .tracks
        .iter()
        .filter(|t| t.kind == TrackKind::FactorSet)
        .count();
    let heading = format!(
        "Study of {sets} factor set{}",
        if sets == 1 { "" } else { "s" }
    );
    let body = html! {
        (introduction(study))
        @for warning in &study.warnings {
            p.note { b { "Warning:" } " " (Text(warning)) }
        }
        (summary_table(study))
        (baseline_table(study))
        (imp_table(study))
        (confidence_table(study))
        (calibration_figure(study))
        (distribution_figure(study))
        (years_figure(study))
        (trajectories(study))
        (movers_table(study))
    };
    page::page("bridgehcp study", STYLE, &heading, body)
}

fn introduction(study: &Study) -> Markup {
    let (first, last) = period(study);
    html! {
        p {
            "Competitions " (first.to_string()) " to " (last.to_string()) "; burn-in up to "
            (study.burn_in_until.to_string())
            " (baselines tuned there), test period after it. Figures are for matchpoint fields (percent over 50), from the handicaps each entrant held before the competition. "
            @if study.rows.iter().any(|r| r.metric == "imp_entrants") {
                "IMP fields move the handicaps in the replay; the comparison with the baselines judges only matchpoint fields, and a factor set's IMP fields are shown on their own below (IMPs per board, without intervals: the baselines have no IMP form)."
            } @else {
                "The test period holds no rated IMP field, so the figures are the matchpoint fields' alone."
            }
            " Intervals in brackets are 95 % intervals from a bootstrap over the test period's sessions ("
            (super::bootstrap::REPLICATES) " replicates, fixed seed)."
        }
    }
}

/// The first and the last competition's dates.
fn period(study: &Study) -> (NaiveDate, NaiveDate) {
    (
        study.dates.first().copied().unwrap_or_default(),
        study.dates.last().copied().unwrap_or_default(),
    )
}

/// Every track's figures over the test period.
fn summary_table(study: &Study) -> Markup {
    let truth = study.rows.iter().any(|r| r.metric == "spearman_vs_truth");
    let reference = study
        .rows
        .iter()
        .any(|r| r.metric == "spearman_vs_reference");
    html! {
        h2 { "Test period" }
        table {
            tr {
                (headings(&[
                    "set", "kind", "hash / parameter", "sessions", "entrants", "Pearson r",
                    "RMSE", "calibrated RMSE", "slope", "bias", "r burn-in", "ρ vs first",
                    "top-100 shared",
                ]))
                @if reference { th { "ρ vs reference" } }
                @if truth { th { "ρ vs true skill" } th { "mean |error| vs true skill" } }
            }
            @for t in &study.tracks {
                tr {
                    td { (Text(&t.name)) }
                    td { (Text(t.kind.label())) }
                    td { (Text(&t.hash)) }
                    td { (cell(value(study, t, "test", "sessions"), 0)) }
                    td { (cell(value(study, t, "test", "entrants"), 0)) }
                    td { (ci_cell(study, t, "pearson_r", 3)) }
                    td { (ci_cell(study, t, "rmse", 2)) }
                    td { (ci_cell(study, t, "rmse_calibrated", 2)) }
                    td { (ci_cell(study, t, "calibration_slope", 2)) }
                    td { (ci_cell(study, t, "mean_bias", 2)) }
                    td { (cell(value(study, t, "burn_in", "pearson_r"), 3)) }
                    td { (cell(value(study, t, "all", "spearman_vs_first"), 3)) }
                    td { (cell(value(study, t, "all", "top100_overlap_vs_first"), 0)) }
                    @if reference {
                        td { (cell(value(study, t, "all", "spearman_vs_reference"), 3)) }
                    }
                    @if truth {
                        td { (cell(value(study, t, "all", "spearman_vs_truth"), 3)) }
                        td { (cell(value(study, t, "all", "mean_abs_error_vs_truth"), 2)) }
                    }
                }
            }
        }
        p.note { "Pearson r and RMSE: expected against achieved percentage per entrant. Calibrated RMSE: the same after mapping each prediction by the line of achieved on expected fitted on the burn-in (so a set whose predictions are only too flat or too steep is not penalised for it). Slope: achieved on expected (1 is calibrated). Bias: mean of achieved − expected. ρ: Spearman's rank correlation of the final handicaps (baselines: ratings, turned so that lower is stronger). Every figure is also in study.parquet." }
    }
}

/// Paired comparison with the best baseline.
fn baseline_table(study: &Study) -> Markup {
    let best = study
        .rows
        .iter()
        .find(|r| r.metric == super::gain_metric("pearson_r"))
        .and_then(|r| r.detail.as_deref());
    let Some(best) = best else {
        return html! {};
    };
    let gain = |metric: &str| super::gain_metric(metric);
    html! {
        h2 { "Against the best baseline (" (Text(best)) ")" }
        table {
            tr { (headings(&[
                "set", "kind", "gain in r", "gain in RMSE", "gain in calibrated RMSE",
            ])) }
            @for t in study.tracks.iter().filter(|t| row(study, t, "test", &gain("pearson_r")).is_some()) {
                tr {
                    td { (Text(&t.name)) }
                    td { (Text(t.kind.label())) }
                    td { (ci_cell(study, t, &gain("pearson_r"), 3)) }
                    td { (ci_cell(study, t, &gain("rmse"), 3)) }
                    td { (ci_cell(study, t, &gain("rmse_calibrated"), 3)) }
                }
            }
        }
        p.note { "The baseline with the highest r in the test period, compared on the same bootstrap draws of sessions (a paired bootstrap). A gain is positive when the set does better: r minus the baseline's r, the baseline's RMSE minus the set's. A difference is real at the 95 % level when its whole interval lies above 0 (or below)." }
    }
}

/// IMP fields, factor sets only.
fn imp_table(study: &Study) -> Markup {
    let imp: Vec<&Track> = study
        .tracks
        .iter()
        .filter(|t| row(study, t, "test", "imp_entrants").is_some())
        .collect();
    if imp.is_empty() {
        return html! {};
    }
    html! {
        h2 { "IMP fields (test period, factor sets only)" }
        table {
            tr { (headings(&[
                "set", "entrants", "Pearson r", "RMSE (IMPs per board)", "slope", "bias",
            ])) }
            @for t in imp {
                tr {
                    td { (Text(&t.name)) }
                    td { (cell(value(study, t, "test", "imp_entrants"), 0)) }
                    td { (cell(value(study, t, "test", "imp_pearson_r"), 3)) }
                    td { (cell(value(study, t, "test", "imp_rmse"), 3)) }
                    td { (cell(value(study, t, "test", "imp_calibration_slope"), 2)) }
                    td { (cell(value(study, t, "test", "imp_mean_bias"), 3)) }
                }
            }
        }
        p.note { "Expected against achieved IMPs per board of every entrant of a rated IMP field: pairs across the field or against a datum, and teams (a team's net IMPs per board)." }
    }
}

/// The confidence figure against the hidden skill.
fn confidence_table(study: &Study) -> Markup {
    let coverage: Vec<&Track> = study
        .tracks
        .iter()
        .filter(|t| row(study, t, "all", "handicap_sd_within_1sd").is_some())
        .collect();
    if coverage.is_empty() {
        return html! {};
    }
    let percent =
        |t: &Track, metric: &str| cell(value(study, t, "all", metric).map(|v| 100.0 * v), 1);
    html! {
        h2 { "Confidence figure" }
        table {
            tr { (headings(&["set", "within 1 sd", "within 2 sd", "mean handicap_sd"])) }
            @for t in coverage {
                tr {
                    td { (Text(&t.name)) }
                    td { (percent(t, "handicap_sd_within_1sd")) }
                    td { (percent(t, "handicap_sd_within_2sd")) }
                    td { (cell(value(study, t, "all", "handicap_sd_mean"), 2)) }
                }
            }
        }
        p.note { "Share (%) of the members with at least 500 boards whose final handicap lies within one and two handicap_sd of their hidden skill in the last month. A normal spread gives 68 % and 95 %." }
    }
}

/// Expected against achieved.
fn calibration_figure(study: &Study) -> Markup {
    let mut chart = Chart::new(
        "Expected against achieved (test period)",
        "expected % over 50",
        "achieved % over 50",
    );
    chart.diagonal = true;
    if let Some(first) = study.tracks.first() {
        let test: Vec<(f64, f64)> = first
            .predictions
            .iter()
            .filter(|p| study.dates[p.competition] > study.burn_in_until)
            .map(|p| (p.expected, p.achieved))
            .collect();
        let step = test.len().div_ceil(1500).max(1);
        let points: Vec<(f64, f64)> = test.into_iter().step_by(step).collect();
        chart.series.push(Series::new(
            format!("{} (entrants)", first.name),
            "#999999",
            Mark::Points,
            points,
        ));
    }
    for (i, t) in study.tracks.iter().enumerate() {
        chart.series.push(Series::new(
            t.name.clone(),
            color(i),
            Mark::LinePoints,
            calibration(t, study),
        ));
    }
    html! {
        h2 { "Calibration" }
        figure {
            (PreEscaped(svg::render(&chart)))
            figcaption.note { "Grey: entrants of the first set. Lines: mean achieved in ten equal-count bins of the expected result; on the dashed diagonal a set is calibrated." }
        }
    }
}

/// Distribution per set.
fn distribution_figure(study: &Study) -> Markup {
    let mut chart = Chart::new("Final handicaps", "handicap", "share of members (%)");
    for (i, t) in study.tracks.iter().enumerate() {
        if t.kind != TrackKind::FactorSet {
            continue;
        }
        let values: Vec<f64> = t.final_value.iter().flatten().copied().collect();
        let mut bins: BTreeMap<i64, usize> = BTreeMap::new();
        for v in &values {
            *bins.entry((v / 2.0).floor() as i64).or_default() += 1;
        }
        let n = values.len().max(1) as f64;
        let points = bins
            .into_iter()
            .map(|(b, c)| (b as f64 * 2.0, 100.0 * c as f64 / n))
            .collect();
        chart.series.push(Series::new(
            t.name.clone(),
            color(i),
            Mark::Steps { bin_milli: 2000 },
            points,
        ));
    }
    html! {
        h2 { "Distribution" }
        figure {
            (PreEscaped(svg::render(&chart)))
            figcaption.note { "Members who played, in bins of 2 handicap units." }
        }
    }
}

/// r per year.
fn years_figure(study: &Study) -> Markup {
    let mut chart = Chart::new("Pearson r per year", "year", "r");
    let mut years = Vec::new();
    for (i, t) in study.tracks.iter().enumerate() {
        let points: Vec<(f64, f64)> = study
            .rows
            .iter()
            .filter(|r| r.set == t.name && r.hash == t.hash && r.metric == "pearson_r")
            .filter_map(|r| Some((r.period.parse::<i32>().ok()?, r.value)))
            .map(|(y, v)| {
                years.push(y);
                (f64::from(y), v)
            })
            .collect();
        chart.series.push(Series::new(
            t.name.clone(),
            color(i),
            Mark::LinePoints,
            points,
        ));
    }
    years.sort_unstable();
    years.dedup();
    chart.x_ticks = Some(
        years
            .iter()
            .map(|y| (f64::from(*y), y.to_string()))
            .collect(),
    );
    if let (Some(a), Some(b)) = (years.first(), years.last()) {
        chart.x_range = Some((f64::from(*a) - 0.5, f64::from(*b) + 0.5));
    }
    html! {
        h2 { "Accuracy per year" }
        figure { (PreEscaped(svg::render(&chart))) }
    }
}

/// The members with the most boards: a chart each.
fn trajectories(study: &Study) -> Markup {
    html! {
        h2 { "Trajectories" }
        p.note {
            "The members with the most boards: handicap after each competition, per factor set, the better (lower) handicaps at the top as on a member's statement"
            @if !study.trajectory_truth.is_empty() {
                "; dashed, the hidden skill of the synthetic federation"
            }
            "."
        }
        @for (k, &member) in study.trajectory_members.iter().enumerate() {
            (PreEscaped(svg::render(&trajectory_chart(study, k, member))))
        }
    }
}

fn trajectory_chart(study: &Study, k: usize, member: u32) -> Chart {
    let id = study
        .member_ids
        .get(member as usize)
        .copied()
        .unwrap_or_default();
    let title = match study.member_names.get(member as usize).cloned().flatten() {
        Some(name) => format!("{name} ({id})"),
        None => format!("Member {id}"),
    };
    let (first_date, last_date) = period(study);
    let mut chart = Chart::new(title, "date", "handicap");
    chart.y_inverted = true;
    chart.height = 280.0;
    chart.x_ticks = Some(year_ticks(first_date, last_date));
    for (i, t) in study.tracks.iter().enumerate() {
        if let Some(series) = t.trajectories.get(k) {
            let points = series
                .iter()
                .map(|(d, v)| (year_fraction(*d), *v))
                .collect();
            chart
                .series
                .push(Series::new(t.name.clone(), color(i), Mark::Line, points));
        }
    }
    if let Some(truth) = study.trajectory_truth.get(k) {
        let points = truth.iter().map(|(d, v)| (year_fraction(*d), *v)).collect();
        chart
            .series
            .push(Series::new("true skill", "#000000", Mark::Line, points).dashed());
    }
    chart
}

/// Largest movers.
fn movers_table(study: &Study) -> Markup {
    let movers: Vec<_> = study
        .rows
        .iter()
        .filter(|r| r.metric.starts_with("mover_"))
        .collect();
    if movers.is_empty() {
        return html! {};
    }
    let first = study
        .tracks
        .first()
        .map(|t| t.name.as_str())
        .unwrap_or_default();
    html! {
        h2 { "Largest movers against " (Text(first)) }
        table {
            tr { (headings(&["set", "change", "member"])) }
            @for r in movers {
                tr {
                    td { (Text(&r.set)) }
                    td { (format!("{:+.2}", r.value)) }
                    td { (Text(r.detail.as_deref().unwrap_or_default())) }
                }
            }
        }
    }
}
