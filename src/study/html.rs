//! `study.html`: the study as one self-contained page (tables and inline SVG charts).

use std::collections::BTreeMap;
use std::fmt::Write;

use chrono::{Datelike, NaiveDate};

use crate::report::svg::{self, escape, Chart, Mark, Series, PALETTE};

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

/// Renders the page. Same study, same bytes.
pub fn render(study: &Study) -> String {
    let mut h = String::new();
    let sets = study
        .tracks
        .iter()
        .filter(|t| t.kind == TrackKind::FactorSet)
        .count();
    let _ = write!(
        h,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>bridgehcp study</title><style>body{{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}}table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}td:first-child,th:first-child{{text-align:left}}figure{{margin:1em 0}}.note{{color:#555;font-size:90%}}</style></head><body><h1>Study of {sets} factor set{}</h1>"#,
        if sets == 1 { "" } else { "s" }
    );
    let first_date = study.dates.first().copied().unwrap_or_default();
    let last_date = study.dates.last().copied().unwrap_or_default();
    let _ = write!(
        h,
        r#"<p>Competitions {first_date} to {last_date}; burn-in up to {} (baselines tuned there), test period after it. Figures are for matchpoint fields (percent over 50), from the handicaps each entrant held before the competition. IMP fields move the handicaps in the replay; the comparison with the baselines judges only matchpoint fields, and a factor set's IMP fields are shown on their own below (IMPs per board, without intervals: the baselines have no IMP form). Intervals in brackets are 95 % intervals from a bootstrap over the test period's sessions ({} replicates, fixed seed).</p>"#,
        study.burn_in_until,
        super::bootstrap::REPLICATES
    );

    for warning in &study.warnings {
        let _ = write!(
            h,
            r#"<p class="note"><b>Warning:</b> {}</p>"#,
            escape(warning)
        );
    }

    // The summary table.
    let truth = study.rows.iter().any(|r| r.metric == "spearman_vs_truth");
    let reference = study
        .rows
        .iter()
        .any(|r| r.metric == "spearman_vs_reference");
    h.push_str("<h2>Test period</h2><table><tr><th>set</th><th>kind</th><th>hash / parameter</th><th>sessions</th><th>entrants</th><th>Pearson r</th><th>RMSE</th><th>calibrated RMSE</th><th>slope</th><th>bias</th><th>r burn-in</th><th>ρ vs first</th><th>top-100 shared</th>");
    if reference {
        h.push_str("<th>ρ vs reference</th>");
    }
    if truth {
        h.push_str("<th>ρ vs true skill</th><th>mean |error| vs true skill</th>");
    }
    h.push_str("</tr>");
    for t in &study.tracks {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            escape(&t.name),
            t.kind.label(),
            escape(&t.hash),
            cell(value(study, t, "test", "sessions"), 0),
            cell(value(study, t, "test", "entrants"), 0),
            ci_cell(study, t, "pearson_r", 3),
            ci_cell(study, t, "rmse", 2),
            ci_cell(study, t, "rmse_calibrated", 2),
            ci_cell(study, t, "calibration_slope", 2),
            ci_cell(study, t, "mean_bias", 2),
            cell(value(study, t, "burn_in", "pearson_r"), 3),
            cell(value(study, t, "all", "spearman_vs_first"), 3),
            cell(value(study, t, "all", "top100_overlap_vs_first"), 0),
        );
        if reference {
            let _ = write!(
                h,
                "<td>{}</td>",
                cell(value(study, t, "all", "spearman_vs_reference"), 3)
            );
        }
        if truth {
            let _ = write!(
                h,
                "<td>{}</td><td>{}</td>",
                cell(value(study, t, "all", "spearman_vs_truth"), 3),
                cell(value(study, t, "all", "mean_abs_error_vs_truth"), 2)
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</table><p class=\"note\">Pearson r and RMSE: expected against achieved percentage per entrant. Calibrated RMSE: the same after mapping each prediction by the line of achieved on expected fitted on the burn-in (so a set whose predictions are only too flat or too steep is not penalised for it). Slope: achieved on expected (1 is calibrated). Bias: mean of achieved − expected. ρ: Spearman's rank correlation of the final handicaps (baselines: ratings, turned so that lower is stronger). Every figure is also in study.parquet.</p>");

    // Paired comparison with the best baseline.
    let best = study
        .rows
        .iter()
        .find(|r| r.metric == super::gain_metric("pearson_r"))
        .and_then(|r| r.detail.clone());
    if let Some(best) = best {
        let _ = write!(
            h,
            "<h2>Against the best baseline ({})</h2><table><tr><th>set</th><th>kind</th><th>gain in r</th><th>gain in RMSE</th><th>gain in calibrated RMSE</th></tr>",
            escape(&best)
        );
        for t in &study.tracks {
            if row(study, t, "test", &super::gain_metric("pearson_r")).is_none() {
                continue;
            }
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&t.name),
                t.kind.label(),
                ci_cell(study, t, &super::gain_metric("pearson_r"), 3),
                ci_cell(study, t, &super::gain_metric("rmse"), 3),
                ci_cell(study, t, &super::gain_metric("rmse_calibrated"), 3),
            );
        }
        h.push_str("</table><p class=\"note\">The baseline with the highest r in the test period, compared on the same bootstrap draws of sessions (a paired bootstrap). A gain is positive when the set does better: r minus the baseline's r, the baseline's RMSE minus the set's. A difference is real at the 95 % level when its whole interval lies above 0 (or below).</p>");
    }

    // IMP fields, factor sets only.
    let imp: Vec<&Track> = study
        .tracks
        .iter()
        .filter(|t| row(study, t, "test", "imp_entrants").is_some())
        .collect();
    if !imp.is_empty() {
        h.push_str("<h2>IMP fields (test period, factor sets only)</h2><table><tr><th>set</th><th>entrants</th><th>Pearson r</th><th>RMSE (IMPs per board)</th><th>slope</th><th>bias</th></tr>");
        for t in imp {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&t.name),
                cell(value(study, t, "test", "imp_entrants"), 0),
                cell(value(study, t, "test", "imp_pearson_r"), 3),
                cell(value(study, t, "test", "imp_rmse"), 3),
                cell(value(study, t, "test", "imp_calibration_slope"), 2),
                cell(value(study, t, "test", "imp_mean_bias"), 3),
            );
        }
        h.push_str("</table><p class=\"note\">Expected against achieved IMPs per board of every entrant of a rated IMP field: pairs across the field or against a datum, and teams (a team's net IMPs per board).</p>");
    }

    // The confidence figure against the hidden skill.
    let coverage: Vec<&Track> = study
        .tracks
        .iter()
        .filter(|t| row(study, t, "all", "handicap_sd_within_1sd").is_some())
        .collect();
    if !coverage.is_empty() {
        h.push_str("<h2>Confidence figure</h2><table><tr><th>set</th><th>within 1 sd</th><th>within 2 sd</th><th>mean handicap_sd</th></tr>");
        for t in coverage {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&t.name),
                cell(
                    value(study, t, "all", "handicap_sd_within_1sd").map(|v| 100.0 * v),
                    1
                ),
                cell(
                    value(study, t, "all", "handicap_sd_within_2sd").map(|v| 100.0 * v),
                    1
                ),
                cell(value(study, t, "all", "handicap_sd_mean"), 2),
            );
        }
        h.push_str("</table><p class=\"note\">Share (%) of the members with at least 500 boards whose final handicap lies within one and two handicap_sd of their hidden skill in the last month. A normal spread gives 68 % and 95 %.</p>");
    }

    // Expected against achieved.
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
    let _ = write!(
        h,
        "<h2>Calibration</h2><figure>{}<figcaption class=\"note\">Grey: entrants of the first set. Lines: mean achieved in ten equal-count bins of the expected result; on the dashed diagonal a set is calibrated.</figcaption></figure>",
        svg::render(&chart)
    );

    // Distribution per set.
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
    let _ = write!(
        h,
        "<h2>Distribution</h2><figure>{}<figcaption class=\"note\">Members who played, in bins of 2 handicap units.</figcaption></figure>",
        svg::render(&chart)
    );

    // r per year.
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
    let _ = write!(
        h,
        "<h2>Accuracy per year</h2><figure>{}</figure>",
        svg::render(&chart)
    );

    // Trajectories.
    h.push_str("<h2>Trajectories</h2><p class=\"note\">The members with the most boards: handicap after each competition, per factor set");
    if !study.trajectory_truth.is_empty() {
        h.push_str("; dashed, the hidden skill of the synthetic federation");
    }
    h.push_str(".</p>");
    for (k, &member) in study.trajectory_members.iter().enumerate() {
        let id = study
            .member_ids
            .get(member as usize)
            .copied()
            .unwrap_or_default();
        let title = match study.member_names.get(member as usize).cloned().flatten() {
            Some(name) => format!("{name} ({id})"),
            None => format!("Member {id}"),
        };
        let mut chart = Chart::new(title, "date", "handicap");
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
        h.push_str(&svg::render(&chart));
    }

    // Largest movers.
    let movers: Vec<_> = study
        .rows
        .iter()
        .filter(|r| r.metric.starts_with("mover_"))
        .collect();
    if !movers.is_empty() {
        let first = study
            .tracks
            .first()
            .map(|t| t.name.as_str())
            .unwrap_or_default();
        let _ = write!(
            h,
            "<h2>Largest movers against {}</h2><table><tr><th>set</th><th>change</th><th>member</th></tr>",
            escape(first)
        );
        for r in movers {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{:+.2}</td><td>{}</td></tr>",
                escape(&r.set),
                r.value,
                escape(r.detail.as_deref().unwrap_or_default())
            );
        }
        h.push_str("</table>");
    }
    h.push_str("</body></html>\n");
    h
}
