//! The real binary, run in its own temporary folders.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, ok, read, sample};

use std::path::{Path, PathBuf};

/// `bridgehcp run --quiet --data <the sample> --out <out> <extra...>` in `cwd`; it must
/// succeed.
fn run_sample(cwd: &Path, out: &str, extra: &[&str]) -> String {
    let data = sample();
    let mut args = vec![
        "run",
        "--quiet",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    ok(&bridgehcp(&args, cwd))
}

const OUTPUTS: [&str; 6] = [
    "handicaps.parquet",
    "changes.parquet",
    "ranking.csv",
    "ranking.parquet",
    "standings.parquet",
    "board_scores.parquet",
];

#[test]
fn run_on_the_sample_writes_every_output_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let stdout = ok(&bridgehcp(
        &["run", "--data", data.to_str().unwrap(), "--out", "out"],
        dir.path(),
    ));
    assert!(stdout.contains("competitions applied"), "{stdout}");
    for name in OUTPUTS {
        assert!(
            dir.path().join("out").join(name).is_file(),
            "{name} missing"
        );
    }
    let csv = String::from_utf8(read(&dir.path().join("out/ranking.csv"))).unwrap();
    let header = csv.lines().next().unwrap_or_default();
    for column in ["rank", "member_id", "name", "club", "handicap", "boards"] {
        assert!(header.split(',').any(|c| c == column), "{header}");
    }
    // The first line of the ranking is rank 1.
    let first = csv.lines().nth(1).unwrap_or_default();
    assert!(first.starts_with("1,"), "{first}");
}

#[test]
fn outputs_are_the_same_bytes_with_one_thread_or_two() {
    let dir = tempfile::tempdir().unwrap();
    run_sample(dir.path(), "one", &["--threads", "1"]);
    run_sample(dir.path(), "two", &["--threads", "2"]);
    for name in OUTPUTS {
        assert_eq!(
            read(&dir.path().join("one").join(name)),
            read(&dir.path().join("two").join(name)),
            "{name} differs between 1 and 2 threads"
        );
    }
}

#[test]
fn continuing_a_run_equals_one_run_over_both_periods() {
    let dir = tempfile::tempdir().unwrap();
    for mode in ["live", "frozen"] {
        let out = |name: &str| format!("{mode}-{name}");
        // November (the first month), then the rest continued from its state.
        let mode_flag = ["--mode", mode];
        run_sample(
            dir.path(),
            &out("nov"),
            &[&mode_flag[..], &["--until", "2024-11-30"]].concat(),
        );
        run_sample(
            dir.path(),
            &out("rest"),
            &[&mode_flag[..], &["--state", &out("nov")]].concat(),
        );
        run_sample(dir.path(), &out("all"), &mode_flag);
        for file in ["handicaps.parquet", "ranking.csv"] {
            assert_eq!(
                read(&dir.path().join(out("rest")).join(file)),
                read(&dir.path().join(out("all")).join(file)),
                "{mode}: November then the rest must equal one run ({file})"
            );
        }
    }
}

/// A dataset of two pairs sessions in CSV; `c2` uses `scoring` as given.
fn two_sessions(dir: &Path, name: &str, c2_scoring: &str) -> PathBuf {
    let data = dir.join(name);
    std::fs::create_dir(&data).unwrap();
    std::fs::write(
        data.join("members.csv"),
        "member_id,name,masterpoints\n1,Ann,10\n2,Bo,20\n3,Cy,0\n4,Di,5\n",
    )
    .unwrap();
    std::fs::write(
        data.join("competitions.csv"),
        format!("competition_id,date,format,scoring,boards\nc1,2026-01-05,pairs,matchpoints,24\nc2,2026-01-12,pairs,{c2_scoring},24\n"),
    )
    .unwrap();
    std::fs::write(
        data.join("entrants.csv"),
        "competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\nc2,1,1,2\nc2,2,3,4\n",
    )
    .unwrap();
    std::fs::write(
        data.join("results.csv"),
        "competition_id,entrant,boards_played,score\nc1,1,24,55\nc1,2,24,45\nc2,1,24,50\nc2,2,24,50\n",
    )
    .unwrap();
    data
}

#[test]
fn strict_names_the_file_row_and_column_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    two_sessions(dir.path(), "bad", "topscore");
    let output = bridgehcp(
        &[
            "run", "--quiet", "--strict", "--data", "bad", "--out", "out",
        ],
        dir.path(),
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("competitions.csv"), "{stderr}");
    assert!(stderr.contains("row 2"), "{stderr}");
    assert!(stderr.contains("scoring"), "{stderr}");
    assert!(stderr.contains("topscore"), "{stderr}");
    assert!(
        !dir.path().join("out").exists(),
        "a failed run wrote output"
    );
}

/// Without `--strict` the broken competition is left out whole: the run succeeds, lists
/// it with its reason, and every handicap is what a run without it gives.
#[test]
fn a_broken_competition_is_quarantined_and_moves_nobody() {
    let dir = tempfile::tempdir().unwrap();
    two_sessions(dir.path(), "bad", "topscore");
    let clean = two_sessions(dir.path(), "clean", "matchpoints");
    for table in ["competitions.csv", "entrants.csv", "results.csv"] {
        let text = std::fs::read_to_string(clean.join(table)).unwrap();
        let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("c2,")).collect();
        std::fs::write(clean.join(table), kept.join("\n") + "\n").unwrap();
    }
    let stdout = ok(&bridgehcp(
        &["run", "--data", "bad", "--out", "out"],
        dir.path(),
    ));
    assert!(stdout.contains("1 competition applied"), "{stdout}");
    assert!(
        stdout.contains("1 left out because it breaks a rule (see quarantine.csv)"),
        "{stdout}"
    );
    let listed = String::from_utf8(read(&dir.path().join("out/quarantine.csv"))).unwrap();
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines[0], "competition_id,date,file,row,column,board,rule");
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(lines[1].starts_with("c2,,"), "{listed}");
    assert!(
        lines[1].contains("competitions.csv,2,scoring,,"),
        "{listed}"
    );
    assert!(lines[1].contains("unknown scoring `topscore`"), "{listed}");

    ok(&bridgehcp(
        &["run", "--quiet", "--data", "clean", "--out", "expected"],
        dir.path(),
    ));
    for name in ["handicaps.parquet", "changes.parquet", "ranking.csv"] {
        assert_eq!(
            read(&dir.path().join("out").join(name)),
            read(&dir.path().join("expected").join(name)),
            "{name} differs from a run without the quarantined competition"
        );
    }
}

#[test]
fn help_shows_examples() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--help"][..],
        &["run", "--help"],
        &["score", "--help"],
        &["import", "--help"],
    ] {
        let stdout = ok(&bridgehcp(args, dir.path()));
        assert!(stdout.contains("Examples:"), "{args:?}: {stdout}");
    }
}

#[test]
fn every_run_definition_in_pipelines_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut definitions: Vec<PathBuf> = std::fs::read_dir(root.join("pipelines"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    definitions.sort();
    assert!(definitions.len() >= 2);
    for definition in definitions {
        let out = dir.path().join(definition.file_stem().unwrap());
        let stdout = ok(&bridgehcp(
            &[
                "run",
                "--pipeline",
                definition.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            root,
        ));
        assert!(stdout.contains("competitions applied"), "{stdout}");
        assert!(out.join("ranking.csv").is_file());
    }
}

#[test]
fn an_alternative_factor_set_changes_the_handicaps_and_a_typo_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let data = data.to_str().unwrap();
    let default = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/factors/fsb-2007.toml"),
    )
    .unwrap();
    let slower = default
        .replace("name = \"fsb-2007\"", "name = \"slow-960\"")
        .replace("impact = 480.0", "impact = 960.0");
    assert_ne!(slower, default);
    std::fs::write(dir.path().join("slow.toml"), slower).unwrap();
    run_sample(dir.path(), "base", &[]);
    run_sample(dir.path(), "slow", &["--factors", "slow.toml"]);
    // Δh = −(1/I)·W·C_u·C_k·C_b·N_G·(r − r̂): doubling the impact I halves every change
    // of the first competition, which both runs rate from the same starting handicaps.
    let base = first_competition_deltas(&dir.path().join("base/changes.parquet"));
    let slow = first_competition_deltas(&dir.path().join("slow/changes.parquet"));
    assert_eq!(base.len(), slow.len());
    assert!(base.iter().any(|(_, d)| d.abs() > 1e-6), "{base:?}");
    for ((member, b), (same, s)) in base.iter().zip(&slow) {
        assert_eq!(member, same);
        assert!((s - b / 2.0).abs() < 1e-12, "member {member}: {s} vs {b}/2");
    }
    let manifest = String::from_utf8(read(&dir.path().join("slow/run.json"))).unwrap();
    assert!(manifest.contains("\"name\": \"slow-960\""), "{manifest}");

    let typo = default.replace("impact = 480.0", "impakt = 480.0");
    std::fs::write(dir.path().join("typo.toml"), typo).unwrap();
    let output = bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            data,
            "--out",
            "typo",
            "--factors",
            "typo.toml",
        ],
        dir.path(),
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("typo.toml") && stderr.contains("impakt"),
        "{stderr}"
    );
}

#[test]
fn a_generated_federation_runs_and_the_same_seed_gives_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a", "b"] {
        let stdout = ok(&bridgehcp(
            &[
                "sample",
                "--out",
                name,
                "--members",
                "80",
                "--months",
                "2",
                "--seed",
                "7",
            ],
            dir.path(),
        ));
        assert!(stdout.contains("members"), "{stdout}");
    }
    for table in ["members", "competitions", "entrants", "results", "boards"] {
        let file = format!("{table}.parquet");
        assert_eq!(
            read(&dir.path().join("a").join(&file)),
            read(&dir.path().join("b").join(&file)),
            "{file}"
        );
    }
    let stdout = ok(&bridgehcp(
        &["run", "--data", "a", "--out", "out"],
        dir.path(),
    ));
    assert!(stdout.contains("competitions applied"), "{stdout}");
}

/// `(member_id, delta)` of the rows of the first competition in a `changes.parquet`.
fn first_competition_deltas(path: &Path) -> Vec<(i64, f64)> {
    use polars::prelude::{ParquetReader, SerReader};
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let frame = ParquetReader::new(file)
        .finish()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let column = |name: &str| {
        frame
            .column(name)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .as_materialized_series()
            .clone()
    };
    let (competition, member, delta) = (
        column("competition_id"),
        column("member_id"),
        column("delta"),
    );
    let competition = competition.str().unwrap();
    let member = member.i64().unwrap();
    let delta = delta.f64().unwrap();
    let first = competition.get(0).unwrap_or_default();
    (0..frame.height())
        .take_while(|&i| competition.get(i) == Some(first))
        .map(|i| (member.get(i).unwrap_or(0), delta.get(i).unwrap_or(f64::NAN)))
        .collect()
}

/// Every file below `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

/// Names that a spreadsheet would run as formulas are written as text; numbers and
/// ordinary names are left alone; a competition id or entrant name that looks like a
/// path never becomes one.
#[test]
fn csv_outputs_neutralise_formulas_and_ids_never_become_paths() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(
        data.join("members.csv"),
        "member_id,name,club,masterpoints\n1,\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",@club,10\n2,-5,+46,20\n3,Anna-Lena,BK Syd,0\n4,Di,BK Syd,5\n",
    )
    .unwrap();
    let id = "\"../../escape\u{7}/..\"";
    std::fs::write(
        data.join("competitions.csv"),
        format!(
            "competition_id,date,format,scoring,boards\n{id},2026-01-05,pairs,matchpoints,24\n"
        ),
    )
    .unwrap();
    std::fs::write(
        data.join("entrants.csv"),
        format!("competition_id,entrant,player1,player2\n{id},../1,1,2\n{id},/etc/2,3,4\n"),
    )
    .unwrap();
    std::fs::write(
        data.join("results.csv"),
        format!("competition_id,entrant,boards_played,score\n{id},../1,24,55\n{id},/etc/2,24,45\n"),
    )
    .unwrap();
    let before = tree(dir.path());
    ok(&bridgehcp(
        &["run", "--quiet", "--data", "data", "--out", "out"],
        dir.path(),
    ));
    let ranking = String::from_utf8(read(&dir.path().join("out/ranking.csv"))).unwrap();
    assert!(
        ranking.contains(",\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",'@club,"),
        "{ranking}"
    );
    assert!(ranking.contains(",-5,+46,"), "{ranking}");
    assert!(ranking.contains(",Anna-Lena,BK Syd,"), "{ranking}");
    // The handicap column stays a plain number.
    for line in ranking.lines().skip(1) {
        let handicap = line.rsplit(',').nth(1).unwrap_or_default();
        assert!(handicap.parse::<f64>().is_ok(), "{line}");
    }
    let mut expected = before;
    expected.extend(
        [
            "applied.parquet",
            "board_scores.parquet",
            "changes.parquet",
            "corrections.csv",
            "handicaps.parquet",
            "non_members.csv",
            "quarantine.csv",
            "ranking.csv",
            "ranking.parquet",
            "ranking_published.csv",
            "run.json",
            "standings.parquet",
            "unrated.csv",
        ]
        .map(|f| format!("out/{f}")),
    );
    expected.sort();
    let after = tree(dir.path());
    assert_eq!(after, expected);
}

/// `score` holds results to the same rules as `run`: 500 boards played of 24 leaves the
/// competition out (and is an error with --strict).
#[test]
fn score_applies_the_same_result_checks_as_run() {
    let dir = tempfile::tempdir().unwrap();
    let data = two_sessions(dir.path(), "data", "matchpoints");
    let results = std::fs::read_to_string(data.join("results.csv")).unwrap();
    std::fs::write(
        data.join("results.csv"),
        results.replacen("c2,1,24,50", "c2,1,500,50", 1),
    )
    .unwrap();
    let stdout = ok(&bridgehcp(
        &["score", "--data", "data", "--out", "scored"],
        dir.path(),
    ));
    assert!(
        stdout.contains("1 competition left out because it breaks a rule"),
        "{stdout}"
    );
    let listed = String::from_utf8(read(&dir.path().join("scored/quarantine.csv"))).unwrap();
    assert!(
        listed.contains("c2,2026-01-12,")
            && listed.contains("results.csv,3,boards_played,,boards_played 500 is more than the competition's 24 boards"),
        "{listed}"
    );
    let output = bridgehcp(
        &["score", "--strict", "--data", "data", "--out", "strict"],
        dir.path(),
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("results.csv, row 3, column `boards_played`"),
        "{stderr}"
    );
    assert!(!dir.path().join("strict").exists());
}

/// `study` on the sample: three factor sets and two sweeps in one command.
#[test]
fn study_compares_three_sets_and_two_sweeps_on_the_sample() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let default = std::fs::read_to_string(root.join("data/factors/fsb-2007.toml")).unwrap();
    std::fs::write(
        dir.path().join("fast.toml"),
        default
            .replace("name = \"fsb-2007\"", "name = \"fast\"")
            .replace("impact = 480.0", "impact = 200.0"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("flat.toml"),
        default
            .replace("name = \"fsb-2007\"", "name = \"flat-start\"")
            .replace("c = 0.01", "c = 0.0"),
    )
    .unwrap();
    let data = sample();
    let base = root.join("data/factors/fsb-2007.toml");
    let study = |out: &str, threads: &str| {
        ok(&bridgehcp(
            &[
                "study",
                "--quiet",
                "--threads",
                threads,
                "--data",
                data.to_str().unwrap(),
                "--factors",
                base.to_str().unwrap(),
                "fast.toml",
                "flat.toml",
                "--sweep",
                "impact=240,960",
                "--sweep",
                "methods.topscore.c_b=2.5",
                "--out",
                out,
            ],
            dir.path(),
        ))
    };
    study("one", "1");
    study("two", "2");
    assert_eq!(
        read(&dir.path().join("one/study.parquet")),
        read(&dir.path().join("two/study.parquet")),
        "the table depends on the thread count"
    );
    let file = std::fs::File::open(dir.path().join("one/study.parquet")).unwrap();
    let df = ParquetReader::new(file).finish().unwrap();
    let sets = df.column("set").unwrap().str().unwrap();
    let metric = df.column("metric").unwrap().str().unwrap();
    let period = df.column("period").unwrap().str().unwrap();
    let value = df.column("value").unwrap().f64().unwrap();
    let get = |set: &str, p: &str, m: &str| -> Option<f64> {
        (0..df.height()).find_map(|i| {
            (sets.get(i) == Some(set) && period.get(i) == Some(p) && metric.get(i) == Some(m))
                .then(|| value.get(i).unwrap())
        })
    };
    let expected_sets = [
        "fsb-2007",
        "fast",
        "flat-start",
        "fsb-2007+impact=240",
        "fsb-2007+impact=960",
        "fsb-2007+methods.topscore.c_b=2.5",
        "running-average",
        "elo",
        "weng-lin",
        "glicko-2",
        "trueskill",
        "upper-reference",
    ];
    for set in expected_sets {
        let r = get(set, "test", "pearson_r").unwrap_or_else(|| panic!("no r for {set}"));
        assert!(r > 0.0 && r < 1.0, "{set}: r = {r}");
        assert!(get(set, "test", "rmse").is_some(), "{set}");
        assert!(get(set, "burn_in", "pearson_r").is_some(), "{set}");
        assert!(get(set, "2025", "pearson_r").is_some(), "{set}");
    }
    // The first set against itself: identical rankings.
    assert_eq!(get("fsb-2007", "all", "spearman_vs_first"), Some(1.0));
    // Every set is judged on the same entrants.
    let n = get("fsb-2007", "test", "entrants").unwrap();
    for set in expected_sets {
        assert_eq!(get(set, "test", "entrants"), Some(n), "{set}");
    }
    // Baselines were tuned on the burn-in period, on their grid.
    let k = get("elo", "burn_in", "k").unwrap();
    assert!([4.0, 8.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0, 192.0, 256.0].contains(&k));
    let html = std::fs::read_to_string(dir.path().join("one/study.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("fsb-2007+impact=240"));
    assert!(
        !html.contains("<script"),
        "the report must be self-contained"
    );

    // A key that is not in a factor set is an error naming it.
    let output = bridgehcp(
        &[
            "study",
            "--data",
            data.to_str().unwrap(),
            "--sweep",
            "impakt=1,2",
            "--out",
            "bad",
        ],
        dir.path(),
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("impakt"), "{stderr}");
}

/// `run --out` replaces a folder holding the same run (the same dataset folder,
/// `--until` and `--state`: a month run again) and refuses one holding another, saying
/// what it holds, unless `--replace`: before, an officer's `--out out/2017-11` for
/// January replaced November's folder, its report.html and ranking_diff.csv with it.
#[test]
fn run_replaces_only_a_folder_holding_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let data = data.to_str().unwrap();
    run_sample(dir.path(), "nov", &["--until", "2026-09-30"]);
    std::fs::write(dir.path().join("nov/report.html"), "September's report").unwrap();
    let before = read(&dir.path().join("nov/run.json"));
    let output = bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            data,
            "--out",
            "nov",
            "--until",
            "2026-10-31",
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "--out nov: the folder holds another run ({data} up to 2026-09-30, from the start; applied through 2026-09-"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "); this run is of {data} up to 2026-10-31, from the start. A run replaces its output folder whole (a report.html or ranking_diff.csv in it goes too): write this run to its own folder (one per month, e.g. --state out/2026-10 --out out/2026-11), or pass --replace to replace that one"
        )),
        "{stderr}"
    );
    assert_eq!(read(&dir.path().join("nov/run.json")), before);
    assert_eq!(
        read(&dir.path().join("nov/report.html")),
        b"September's report"
    );
    // Continued from another folder is another run too.
    run_sample(dir.path(), "aug", &["--until", "2026-08-31"]);
    let output = bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            data,
            "--out",
            "nov",
            "--until",
            "2026-09-30",
            "--state",
            "aug",
        ],
        dir.path(),
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("this run is of"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The same run again replaces its folder (a late file); --replace replaces another.
    run_sample(dir.path(), "nov", &["--until", "2026-09-30"]);
    assert!(!dir.path().join("nov/report.html").exists());
    run_sample(dir.path(), "nov", &["--until", "2026-10-31", "--replace"]);
    let manifest = String::from_utf8(read(&dir.path().join("nov/run.json"))).unwrap();
    assert!(manifest.contains("\"until\": \"2026-10-31\""), "{manifest}");
}

/// `bridgehcp` with no arguments runs the sample into ./out, and again: the same run
/// replaces its folder.
#[test]
fn the_default_run_can_be_run_twice() {
    let dir = tempfile::tempdir().unwrap();
    ok(&bridgehcp(&[], dir.path()));
    ok(&bridgehcp(&[], dir.path()));
    assert!(dir.path().join("out/run.json").is_file());
}
