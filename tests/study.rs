//! `study` through the real binary: intervals, paired gains, the confidence figure's
//! coverage, `--calibrate`, and a real club's imported history.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use std::path::Path;

use polars::prelude::{DataFrame, ParquetReader, SerReader};

mod common;
use common::{bridgehcp, no_realdata, ok, realdata, sample};

/// One row of `study.parquet`.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    set: String,
    period: String,
    metric: String,
    value: f64,
    detail: Option<String>,
    low: Option<f64>,
    high: Option<f64>,
}

fn rows(path: &Path) -> Vec<Row> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let df: DataFrame = ParquetReader::new(file).finish().unwrap();
    let s = |name: &str| df.column(name).unwrap().str().unwrap().clone();
    let f = |name: &str| df.column(name).unwrap().f64().unwrap().clone();
    let (set, period, metric, detail) = (s("set"), s("period"), s("metric"), s("detail"));
    let (value, low, high) = (f("value"), f("ci_low"), f("ci_high"));
    (0..df.height())
        .map(|i| Row {
            set: set.get(i).unwrap().to_string(),
            period: period.get(i).unwrap().to_string(),
            metric: metric.get(i).unwrap().to_string(),
            value: value.get(i).unwrap(),
            detail: detail.get(i).map(str::to_string),
            low: low.get(i),
            high: high.get(i),
        })
        .collect()
}

fn get<'a>(rows: &'a [Row], set: &str, period: &str, metric: &str) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.set == set && r.period == period && r.metric == metric)
}

fn factors(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/factors")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn every_test_figure_has_an_interval_and_every_track_a_paired_gain() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    ok(&bridgehcp(
        &[
            "study",
            "--quiet",
            "--data",
            data.to_str().unwrap(),
            "--factors",
            &factors("fsb-2007.toml"),
            &factors("fsb-2007-kalman.toml"),
            "--calibrate",
            "--out",
            "s",
        ],
        dir.path(),
    ));
    let rows = rows(&dir.path().join("s/study.parquet"));
    let tracks = [
        "fsb-2007",
        "fsb-2007-kalman",
        "running-average",
        "elo",
        "weng-lin",
        "glicko-2",
        "trueskill",
        // Not a prediction (it smooths over later results too), but judged the same way.
        "upper-reference",
    ];
    for set in tracks {
        for metric in [
            "pearson_r",
            "rmse",
            "calibration_slope",
            "mean_bias",
            "rmse_calibrated",
        ] {
            let row = get(&rows, set, "test", metric)
                .unwrap_or_else(|| panic!("{set}: no test {metric}"));
            let (lo, hi) = (row.low.unwrap(), row.high.unwrap());
            assert!(lo < hi, "{set} {metric}: [{lo}, {hi}]");
            assert!(
                lo <= row.value && row.value <= hi,
                "{set} {metric}: {} outside [{lo}, {hi}]",
                row.value
            );
        }
        assert!(get(&rows, set, "test", "sessions").unwrap().value > 10.0);
        // Figures of other periods carry no interval.
        assert_eq!(get(&rows, set, "burn_in", "pearson_r").unwrap().low, None);
    }
    // The best baseline is the one with the highest test r; every other track's gain
    // over it is the difference of the two point figures, with its paired interval.
    // The upper reference is never the best baseline: it knows the future.
    let baselines = [
        "running-average",
        "elo",
        "weng-lin",
        "glicko-2",
        "trueskill",
    ];
    let r = |set: &str| get(&rows, set, "test", "pearson_r").unwrap().value;
    let best = baselines
        .iter()
        .copied()
        .max_by(|a, b| r(a).total_cmp(&r(b)))
        .unwrap();
    for set in tracks.iter().filter(|s| **s != best) {
        let gain = get(&rows, set, "test", "pearson_r_gain_vs_best_baseline")
            .unwrap_or_else(|| panic!("{set}: no gain"));
        assert_eq!(gain.detail.as_deref(), Some(best));
        assert!((gain.value - (r(set) - r(best))).abs() < 1e-9);
        assert!(gain.low.unwrap() < gain.high.unwrap());
        let rmse = |s: &str| get(&rows, s, "test", "rmse").unwrap().value;
        let g = get(&rows, set, "test", "rmse_gain_vs_best_baseline").unwrap();
        assert!((g.value - (rmse(best) - rmse(set))).abs() < 1e-9);
        assert!(get(&rows, set, "test", "rmse_calibrated_gain_vs_best_baseline").is_some());
    }
    assert!(get(&rows, best, "test", "pearson_r_gain_vs_best_baseline").is_none());
    // --calibrate added one set per set, named after its fitted expected_c_b.
    let calibrated: Vec<&str> = rows
        .iter()
        .filter(|r| r.set.contains("+methods.topscore.expected_c_b="))
        .map(|r| r.set.as_str())
        .collect();
    assert!(calibrated.iter().any(|s| s.starts_with("fsb-2007+")));
    assert!(calibrated.iter().any(|s| s.starts_with("fsb-2007-kalman+")));
    // IMP fields are judged for the factor sets, on their own, and not for baselines.
    let imp = get(&rows, "fsb-2007", "test", "imp_pearson_r").unwrap();
    assert!(imp.value > 0.0 && imp.value < 1.0, "{imp:?}");
    assert!(
        get(&rows, "fsb-2007", "test", "imp_entrants")
            .unwrap()
            .value
            > 100.0
    );
    assert!(get(&rows, "elo", "test", "imp_pearson_r").is_none());
    let html = std::fs::read_to_string(dir.path().join("s/study.html")).unwrap();
    assert!(html.contains("judges only matchpoint fields"));
    assert!(html.contains("IMP fields (test period, factor sets only)"));
    assert!(html.contains("Against the best baseline"));

    // The trajectory charts and the movers name the members, as the members table has
    // them, beside their numbers.
    let file = std::fs::File::open(data.join("members.parquet")).unwrap();
    let members: DataFrame = ParquetReader::new(file).finish().unwrap();
    let ids = members.column("member_id").unwrap().i64().unwrap().clone();
    let names = members.column("name").unwrap().str().unwrap().clone();
    let named: Vec<String> = (0..members.height())
        .filter_map(|i| {
            Some(format!(
                "<title>{} ({})</title>",
                names.get(i)?,
                ids.get(i)?
            ))
        })
        .filter(|title| html.contains(title.as_str()))
        .collect();
    assert!(!named.is_empty(), "no trajectory chart names its member");
    assert!(
        !html.contains("<title>Member "),
        "a chart names a member by number only"
    );
    let mover = rows
        .iter()
        .find(|r| r.metric.starts_with("mover_"))
        .and_then(|r| r.detail.clone())
        .unwrap();
    let id: i64 = mover["member ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let name = (0..members.height())
        .find(|&i| ids.get(i) == Some(id))
        .and_then(|i| names.get(i))
        .unwrap();
    assert!(mover.contains(&format!("member {id} ({name}):")), "{mover}");
}

#[test]
fn the_confidence_figure_is_judged_against_the_hidden_skill() {
    let dir = tempfile::tempdir().unwrap();
    ok(&bridgehcp(
        &[
            "sample", "--out", "fed", "--drift", "--months", "24", "--seed", "3",
        ],
        dir.path(),
    ));
    ok(&bridgehcp(
        &[
            "study",
            "--quiet",
            "--data",
            "fed",
            "--factors",
            &factors("fsb-2007.toml"),
            &factors("fsb-2007-plus.toml"),
            "--out",
            "s",
        ],
        dir.path(),
    ));
    let rows = rows(&dir.path().join("s/study.parquet"));
    let one = get(&rows, "fsb-2007-plus", "all", "handicap_sd_within_1sd").unwrap();
    let two = get(&rows, "fsb-2007-plus", "all", "handicap_sd_within_2sd").unwrap();
    assert!(one.value > 0.0 && one.value <= two.value && two.value <= 1.0);
    assert!(one
        .detail
        .as_deref()
        .unwrap()
        .contains("members with at least 500 boards"));
    assert!(
        get(&rows, "fsb-2007-plus", "all", "handicap_sd_mean")
            .unwrap()
            .value
            > 0.0
    );
    // A set without a confidence figure has no coverage.
    assert!(get(&rows, "fsb-2007", "all", "handicap_sd_within_1sd").is_none());
}

/// A real club's history, imported as a federation receives it, studied with the first
/// year as burn-in: everyone starts at 52 (the import knows no masterpoints).
#[test]
fn a_real_club_history_is_studied_after_its_burn_in() {
    if no_realdata() {
        return;
    }
    let dir = imported_club();
    let stdout = ok(&bridgehcp(
        &[
            "study",
            "--data",
            "club",
            "--burn-in-until",
            "2015-12-31",
            "--factors",
            &factors("fsb-2007.toml"),
            &factors("fsb-2007-kalman.toml"),
            "--out",
            "s",
        ],
        dir.path(),
    ));
    let rows = rows(&dir.path().join("s/study.parquet"));
    for set in ["fsb-2007", "fsb-2007-kalman", "running-average"] {
        // 2016's sessions, every one judged.
        let sessions = get(&rows, set, "test", "sessions").unwrap().value;
        assert!(sessions >= 40.0, "{set}: {sessions}");
        assert_eq!(
            get(&rows, set, "test", "entrants").unwrap().value,
            get(&rows, set, "2016", "entrants").unwrap().value
        );
        let r = get(&rows, set, "test", "pearson_r").unwrap();
        assert!(r.value > 0.3 && r.low.unwrap() > 0.2, "{set}: {r:?}");
    }
    // The terminal names the baseline the gains are against, as study.parquet does.
    let best = get(&rows, "fsb-2007", "test", "pearson_r_gain_vs_best_baseline")
        .and_then(|r| r.detail.clone())
        .unwrap();
    assert!(
        stdout.contains(&format!(
            "\nbest baseline: {best} (the highest r in the test period; each gain is r minus its r, on the same bootstrap draws)\n"
        )),
        "{stdout}"
    );
    // The club plays matchpoints only: the page promises no IMP section.
    assert!(get(&rows, "fsb-2007", "test", "imp_entrants").is_none());
    let html = std::fs::read_to_string(dir.path().join("s/study.html")).unwrap();
    assert!(!html.contains("IMP fields (test period"));
    assert!(!html.contains("shown on their own below"));
    assert!(html.contains("The test period holds no rated IMP field"));
    // Trajectories put the better (lower) handicaps at the top, as a statement does:
    // the y axis's tick labels grow downwards.
    let charts = html.split("<h2>Trajectories</h2>").nth(1).unwrap();
    let chart = charts.split("</svg>").next().unwrap();
    let ticks: Vec<(f64, f64)> = chart
        .split("<text x=\"56.0\" y=\"")
        .skip(1)
        .filter_map(|rest| {
            let (y, rest) = rest.split_once('"')?;
            let label = rest.split_once('>')?.1.split_once('<')?.0;
            Some((label.parse().ok()?, y.parse().ok()?))
        })
        .collect();
    assert!(ticks.len() >= 3, "{chart}");
    assert!(
        ticks.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1),
        "{ticks:?}"
    );
}

/// `--whole-history` adds the whole-history rating refitted before each day as a
/// method beside the baselines: tuned on the burn-in, judged on the test period and
/// compared with the best baseline, never the best baseline itself, and every other
/// track's figures as without it.
#[test]
fn the_whole_history_rating_is_studied_beside_the_baselines() {
    if no_realdata() {
        return;
    }
    let dir = imported_club();
    let study = |out: &str, extra: &[&str]| {
        let set = factors("fsb-2007-kalman-club.toml");
        let mut args = vec![
            "study",
            "--quiet",
            "--data",
            "club",
            "--burn-in-until",
            "2015-12-31",
            "--factors",
            &set,
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        ok(&bridgehcp(&args, dir.path()));
        rows(&dir.path().join(out).join("study.parquet"))
    };
    let plain = study("plain", &[]);
    let with = study("with", &["--whole-history"]);
    let kept: Vec<&Row> = with.iter().filter(|r| r.set != "whole-history").collect();
    assert_eq!(kept, plain.iter().collect::<Vec<_>>());
    let r = get(&with, "whole-history", "test", "pearson_r").unwrap();
    assert!((r.value - 0.464).abs() < 5e-4, "{r:?}");
    let gain = get(
        &with,
        "whole-history",
        "test",
        "pearson_r_gain_vs_best_baseline",
    )
    .unwrap();
    assert_eq!(gain.detail.as_deref(), Some("trueskill"));
    assert!((gain.value - -0.046).abs() < 5e-4, "{gain:?}");
    // Its tuned drift (start spread 2, drift 4 a year, chosen on 2015).
    let drift = get(&with, "whole-history", "burn_in", "drift_per_year").unwrap();
    assert_eq!(drift.value, 4.0);
}

/// The club sets on the real club's 2016, as the analyst's guide reports them: the
/// bounded update of `fsb-2007-kalman-robust` puts it ahead of `fsb-2007-kalman-club`
/// (r 0.513 against 0.504) and 0.003 ahead of TrueSkill (0.510), the best baseline, with
/// a slope of 1.09; the paired interval of that gain straddles 0.
#[test]
fn the_robust_club_set_leads_the_club_set_on_the_real_club() {
    if no_realdata() {
        return;
    }
    let dir = imported_club();
    ok(&bridgehcp(
        &[
            "study",
            "--data",
            "club",
            "--burn-in-until",
            "2015-12-31",
            "--factors",
            &factors("fsb-2007-kalman-club.toml"),
            &factors("fsb-2007-kalman-robust.toml"),
            "--out",
            "s",
        ],
        dir.path(),
    ));
    let rows = rows(&dir.path().join("s/study.parquet"));
    let value = |set: &str, metric: &str| get(&rows, set, "test", metric).unwrap().value;
    for (set, r) in [
        ("fsb-2007-kalman-club", 0.504),
        ("fsb-2007-kalman-robust", 0.513),
        ("trueskill", 0.510),
    ] {
        assert!((value(set, "pearson_r") - r).abs() < 5e-4, "{set}");
    }
    assert!((value("fsb-2007-kalman-robust", "calibration_slope") - 1.09).abs() < 5e-3);
    let gain = get(
        &rows,
        "fsb-2007-kalman-robust",
        "test",
        "pearson_r_gain_vs_best_baseline",
    )
    .unwrap();
    assert_eq!(gain.detail.as_deref(), Some("trueskill"));
    assert!((gain.value - 0.003).abs() < 5e-4, "{gain:?}");
    assert!(
        gain.low.unwrap() < 0.0 && gain.high.unwrap() > 0.0,
        "{gain:?}"
    );
}

/// A study killed while replacing its folder leaves the previous study whole: before,
/// killed between its two renames, `study.parquet` was new, `study.html` old, and a
/// `.study.html.tmp-*` file stayed for good. The next study puts the folder right.
#[test]
fn a_study_killed_while_replacing_its_folder_leaves_the_previous_one() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let args = |sweep: &str| -> Vec<String> {
        let mut args: Vec<String> = ["study", "--quiet", "--data", data.to_str().unwrap()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if !sweep.is_empty() {
            args.extend(["--sweep".to_string(), sweep.to_string()]);
        }
        args.extend(["--out".to_string(), "s".to_string()]);
        args
    };
    let first = args("");
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    ok(&bridgehcp(&first, dir.path()));
    let read = |name: &str| std::fs::read(dir.path().join("s").join(name)).unwrap();
    let before = (read("study.parquet"), read("study.html"));
    for (point, rename) in [("staged", "exchange"), ("between-renames", "two")] {
        common::kill_at(dir.path(), args("impact=240").as_slice(), point, rename);
        // The next study recovers the folder first; the same study writes the same bytes.
        ok(&bridgehcp(&first, dir.path()));
        assert!(
            (read("study.parquet"), read("study.html")) == before,
            "killed at {point}"
        );
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["s"], "killed at {point}");
        let inside: std::collections::BTreeSet<String> = std::fs::read_dir(dir.path().join("s"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            inside,
            ["study.html", "study.parquet"].map(String::from).into()
        );
    }
    // A folder holding other files is not replaced.
    std::fs::write(dir.path().join("s/notes.txt"), "keep").unwrap();
    let output = bridgehcp(&first, dir.path());
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("s: the folder holds files that are not outputs of a study (notes.txt)"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `--burn-in-until 2099-01-01` took every competition into the burn-in and still
/// exited 0 with 0 entrants judged: it is refused, with what the burn-in leaves and the
/// day to choose before, and nothing is written. A burn-in that leaves the test period
/// five sessions, or one, is run with a warning in the terminal and on the page, and
/// with one session no figure gets an interval (every resample is that session).
#[test]
fn a_burn_in_that_leaves_no_test_period_is_refused_and_a_short_one_warned() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let data = data.to_str().unwrap();
    let study = |burn_in: &str, out: &str| {
        bridgehcp(
            &[
                "study",
                "--quiet",
                "--data",
                data,
                "--burn-in-until",
                burn_in,
                "--out",
                out,
            ],
            dir.path(),
        )
    };
    let refused = study("2099-01-01", "none");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(
            "--burn-in-until 2099-01-01 leaves no competition to test on: the burn-in takes all 348 matchpoint sessions of the dataset (2024-11-01 to 2026-10-30), and a study judges the sets on the matchpoint sessions after it; choose a day before 2026-10-30, the last matchpoint session"
        ),
        "{stderr}"
    );
    assert!(!dir.path().join("none").exists());

    let short = study("2026-10-25", "short");
    let stderr = String::from_utf8_lossy(&short.stderr);
    let warning = "the test period holds only 5 matchpoint sessions: a bootstrap over so few gives intervals too narrow to trust (at least 10 are needed)";
    assert!(short.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("warning: {warning}")), "{stderr}");
    let html = std::fs::read_to_string(dir.path().join("short/study.html")).unwrap();
    assert!(html.contains(warning));

    let one = study("2026-10-29", "one");
    let stderr = String::from_utf8_lossy(&one.stderr);
    assert!(
        stderr.contains("warning: the test period holds 1 matchpoint session: a bootstrap over sessions gives no interval from it"),
        "{stderr}"
    );
    let rows = rows(&dir.path().join("one/study.parquet"));
    let r = get(&rows, "fsb-2007", "test", "pearson_r").unwrap();
    assert_eq!((r.low, r.high), (None, None));
    assert_eq!(
        get(&rows, "fsb-2007", "test", "sessions").unwrap().value,
        1.0
    );
}

/// A temporary folder holding the real club's files imported into `club/`, as a
/// federation receives them (the import knows no masterpoints: everyone starts alike).
fn imported_club() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let club = realdata().join("pbn-spiren");
    ok(&bridgehcp(
        &[
            "import",
            "auto",
            club.to_str().unwrap(),
            "--out",
            "club",
            "--keep-going",
        ],
        dir.path(),
    ));
    dir
}
