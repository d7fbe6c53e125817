//! The outputs people read: player statements, the monthly report, the club's result
//! sheet, and the small messages of the command line. The real binary, run in its own
//! temporary folders on the shipped sample.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, no_realdata, ok, realdata, sample, text};

use std::path::Path;

use polars::prelude::SerReader;
use std::process::Output;

fn failed(output: &Output) -> String {
    assert!(
        !output.status.success(),
        "bridgehcp should have failed\nstdout:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8_lossy(&output.stderr).to_string()
}

fn run_sample(cwd: &Path, out: &str, extra: &[&str]) -> String {
    let data = sample();
    let mut args = vec!["run", "--data", data.to_str().unwrap(), "--out", out];
    args.extend_from_slice(extra);
    ok(&bridgehcp(&args, cwd))
}

/// A CSV file as a header and rows of cells (no quoted commas in the files read here).
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let body = text(path);
    let mut lines = body.lines();
    let header = lines
        .next()
        .unwrap_or_default()
        .split(',')
        .map(str::to_owned)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect();
    (header, rows)
}

fn column<'a>(header: &[String], rows: &'a [Vec<String>], name: &str) -> Vec<&'a str> {
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    rows.iter().map(|r| r[i].as_str()).collect()
}

fn numbers(cells: &[&str]) -> Vec<f64> {
    cells
        .iter()
        .map(|c| c.parse::<f64>().unwrap_or_else(|e| panic!("{c}: {e}")))
        .collect()
}

#[test]
fn player_statement_changes_add_up_to_the_handicap_change() {
    let dir = tempfile::tempdir().unwrap();
    run_sample(dir.path(), "out", &["--quiet"]);
    let stdout = ok(&bridgehcp(
        &[
            "player",
            "100119",
            "--out-dir",
            "out",
            "--csv",
            "s.csv",
            "--html",
            "s.html",
        ],
        dir.path(),
    ));
    assert!(
        stdout.contains("Sofia Ekström (member 100119), BK Hamnen"),
        "{stdout}"
    );
    assert!(
        stdout.contains("handicap 17.16 -> 17.18 (+0.02) over 65 competitions"),
        "{stdout}"
    );
    let (header, rows) = csv(&dir.path().join("s.csv"));
    assert_eq!(rows.len(), 65);
    assert_eq!(column(&header, &rows, "date")[0], "2024-11-22");
    assert_eq!(
        column(&header, &rows, "competition_id")[0],
        "K05-20241122-1"
    );
    assert_eq!(column(&header, &rows, "partner")[0], "Kerstin Svensson");
    assert_eq!(column(&header, &rows, "unit")[0], "IMP/board");
    assert_eq!(column(&header, &rows, "unit")[1], "% over 50");
    let delta = numbers(&column(&header, &rows, "delta"));
    let cut = numbers(&column(&header, &rows, "cut"));
    let before = numbers(&column(&header, &rows, "handicap_before"));
    let after = numbers(&column(&header, &rows, "handicap_after"));
    // From changes.parquet: 17.1617161716 before the first competition (-0.2364083951
    // in it), 17.1809921683 after the last, which is the handicap in handicaps.parquet.
    // The CSV, made for people, prints each change as the running handicap rounded to
    // two decimals after it less the same before it (16.93 - 17.16 = -0.23, where the
    // change alone rounds to -0.24), so the 65 printed changes add up to the printed
    // movement, +0.02, exactly.
    assert_eq!((before[0], delta[0], after[64]), (17.16, -0.23, 17.18));
    let total: f64 = delta.iter().chain(&cut).sum();
    assert!((total - 0.02).abs() < 1e-9, "{total}");
    assert!(cut.iter().all(|c| *c == 0.0));
    let html = text(&dir.path().join("s.html"));
    assert!(
        html.contains("<svg") && html.contains("<polyline"),
        "no trajectory"
    );
    assert!(html.contains("Kerstin Svensson"));

    // Member 100041 reaches the cap of 52 on the way: the changes sum to +10.104614,
    // the cap took 7.654838 of them, and the handicap went from 49.523810 to 51.973586.
    ok(&bridgehcp(
        &[
            "player",
            "100041",
            "--out-dir",
            "out",
            "--csv",
            "c.csv",
            "-q",
        ],
        dir.path(),
    ));
    let (header, rows) = csv(&dir.path().join("c.csv"));
    let delta: f64 = numbers(&column(&header, &rows, "delta")).iter().sum();
    let cut: f64 = numbers(&column(&header, &rows, "cut")).iter().sum();
    let before = numbers(&column(&header, &rows, "handicap_before"))[0];
    let after = *numbers(&column(&header, &rows, "handicap_after"))
        .last()
        .unwrap();
    let lines = rows.len() as f64;
    assert!((delta - 10.104_614).abs() <= lines * 0.005, "{delta}");
    assert!((cut + 7.654_838).abs() <= lines * 0.005, "{cut}");
    assert_eq!((before, after), (49.52, 51.97));
    assert!((delta + cut - (after - before)).abs() <= 2.0 * lines * 0.005);
    // The run's run.json names the dataset, so titles come without --data.
    assert!(stdout.contains("BK Hamnen – IMP pairs"), "{stdout}");
}

#[test]
fn a_frozen_statement_puts_the_month_end_cap_on_the_month_and_still_adds_up() {
    let dir = tempfile::tempdir().unwrap();
    run_sample(dir.path(), "frozen", &["--quiet", "--mode", "frozen"]);
    ok(&bridgehcp(
        &[
            "player",
            "100041",
            "--out-dir",
            "frozen",
            "--csv",
            "f.csv",
            "-q",
        ],
        dir.path(),
    ));
    let (header, rows) = csv(&dir.path().join("f.csv"));
    let delta = numbers(&column(&header, &rows, "delta"));
    let cut = numbers(&column(&header, &rows, "cut"));
    let before = numbers(&column(&header, &rows, "handicap_before"));
    let after = numbers(&column(&header, &rows, "handicap_after"));
    let dates = column(&header, &rows, "date");
    // Each line starts where the one before ended (both printed to two decimals).
    for i in 1..rows.len() {
        assert!((before[i] - after[i - 1]).abs() < 1e-9, "line {i}");
    }
    let total: f64 = delta.iter().chain(&cut).sum();
    let rounding = 2.0 * rows.len() as f64 * 0.005;
    assert!((total - (after[rows.len() - 1] - before[0])).abs() <= rounding);
    // Member 100041 ends 2025-06 at the cap: that month's last line carries the cut.
    let june = (0..rows.len())
        .filter(|&i| dates[i].starts_with("2025-06"))
        .collect::<Vec<_>>();
    let last = *june.last().unwrap();
    assert!(cut[last] < 0.0 && after[last] == 52.0, "{:?}", rows[last]);
    assert!(june[..june.len() - 1].iter().all(|&i| cut[i] == 0.0));
}

#[test]
fn player_statement_from_the_dataset_names_titles_and_clubs() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let stdout = ok(&bridgehcp(
        &["player", "100119", "--data", data.to_str().unwrap()],
        dir.path(),
    ));
    assert!(stdout.contains("BK Hamnen – IMP pairs"), "{stdout}");
    assert!(stdout.contains("over 65 competitions"), "{stdout}");
    let error = failed(&bridgehcp(&["player", "100119"], dir.path()));
    assert!(
        error.contains("--out-dir DIR") && error.contains("--data DIR"),
        "{error}"
    );
}

#[test]
fn monthly_report_lists_the_largest_moves_and_the_ranking_changes() {
    let dir = tempfile::tempdir().unwrap();
    run_sample(dir.path(), "sep", &["--quiet", "--until", "2026-09-30"]);
    run_sample(dir.path(), "oct", &["--quiet"]);
    let stdout = ok(&bridgehcp(
        &["report", "--out-dir", "oct", "--previous", "sep"],
        dir.path(),
    ));
    assert!(
        stdout.contains("306 members, 300 ranked, 0 new"),
        "{stdout}"
    );
    let html = text(&dir.path().join("oct/report.html"));
    // October 2026, from changes.parquet: Gunnar Karlsson (100213) moved most down
    // (-5.748177), Astrid Lindberg (100049) and Karl Gustafsson (100069) most up
    // (+3.877543 each; the lower number first).
    let improved = html.find("Improved most").unwrap();
    let worsened = html.find("Worsened most").unwrap();
    let first_down = html[improved..]
        .find("<td class=\"n\">100213</td>")
        .unwrap();
    assert!(html[improved..].contains("<td>Gunnar Karlsson</td>"));
    assert!(
        html[improved + first_down..].starts_with("<td class=\"n\">100213</td><td>Gunnar Karlsson")
    );
    assert!(
        html.contains("<td class=\"n\">-5.75</td>"),
        "Δ of the biggest improver"
    );
    let up = &html[worsened..];
    let first_up = up.find("<td class=\"n\">100049</td>").unwrap();
    let second_up = up.find("<td class=\"n\">100069</td>").unwrap();
    assert!(first_up < second_up);
    assert!(up.contains("<td class=\"n\">+3.88</td>"));
    for section in [
        "Handicap distribution",
        "New members (0)",
        "Ranking: top 20",
        "quarantine.csv",
        "unrated.csv",
        "Clubs",
    ] {
        assert!(html.contains(section), "{section} missing");
    }
    assert!(html.matches("<svg").count() >= 2);

    let (header, rows) = csv(&dir.path().join("oct/ranking_diff.csv"));
    assert_eq!(rows.len(), 300);
    // Rank 1 stays Margareta Svensson (100083): -6.63 in September, -6.87 in October.
    assert_eq!(
        rows[0][..5],
        ["1", "100083", "Margareta Svensson", "BK Ekbacken", "-6.87"]
    );
    assert_eq!(column(&header, &rows, "previous_handicap")[0], "-6.63");
    assert_eq!(column(&header, &rows, "handicap_change")[0], "-0.24");
    let rank = column(&header, &rows, "rank");
    let previous = column(&header, &rows, "previous_rank");
    let change = column(&header, &rows, "rank_change");
    let status = column(&header, &rows, "status");
    for i in 0..rows.len() {
        let (r, p, c): (i64, i64, i64) = (
            rank[i].parse().unwrap(),
            previous[i].parse().unwrap(),
            change[i].parse().unwrap(),
        );
        assert_eq!(c, p - r, "row {i}");
        let expected = match c {
            c if c > 0 => "up",
            c if c < 0 => "down",
            _ => "same",
        };
        assert_eq!(status[i], expected, "row {i}");
    }
}

#[test]
fn run_summary_names_the_dataset_the_ranked_and_the_outputs_and_warns_on_an_empty_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let output = bridgehcp(
        &["run", "--data", data.to_str().unwrap(), "--out", "out"],
        dir.path(),
    );
    let stdout = ok(&output);
    assert!(
        stdout.contains(&format!("bridgehcp run on {}:", data.display())),
        "{stdout}"
    );
    assert!(stdout.contains("300 members ranked"), "{stdout}");
    assert!(
        stdout.contains("463 places in rated competitions taken by non-members"),
        "{stdout}"
    );
    assert!(stdout.contains("outputs in out"), "{stdout}");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("warning"));

    let output = bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            data.to_str().unwrap(),
            "--out",
            "empty",
            "--min-boards",
            "100000",
        ],
        dir.path(),
    );
    ok(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .contains("warning: the ranking is empty: no member has at least 100000 rated boards"),
        "{stderr}"
    );
    assert_eq!(
        text(&dir.path().join("empty/ranking.csv")).lines().count(),
        1
    );
}

#[test]
fn ranking_by_district_without_districts_is_an_error() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = realdata().join("pbn/spiren_2015-06-17_mp.pbn");
    ok(&bridgehcp(
        &["import", "pbn", file.to_str().unwrap(), "--out", "club"],
        dir.path(),
    ));
    let error = failed(&bridgehcp(
        &[
            "run",
            "--data",
            "club",
            "--out",
            "out",
            "--ranking-by",
            "district",
        ],
        dir.path(),
    ));
    assert!(
        error.contains("--ranking-by district: no member of club has a district"),
        "{error}"
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn importing_with_the_wrong_format_names_the_right_one() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pbn = realdata().join("pbn/spiren_2015-06-17_mp.pbn");
    let xml = realdata().join("usebio/butler_howell.xml");
    let error = failed(&bridgehcp(
        &["import", "usebio", pbn.to_str().unwrap(), "--out", "a"],
        dir.path(),
    ));
    assert!(error.contains("the file looks like PBN"), "{error}");
    let error = failed(&bridgehcp(
        &["import", "pbn", xml.to_str().unwrap(), "--out", "b"],
        dir.path(),
    ));
    assert!(error.contains("the file looks like USEBIO XML"), "{error}");
}

#[test]
fn an_error_prints_its_cause_once_and_names_the_factor_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    let error = failed(&bridgehcp(
        &[
            "run",
            "--data",
            data.to_str().unwrap(),
            "--state",
            "no-such-run",
            "--out",
            "out",
        ],
        dir.path(),
    ));
    assert!(
        error.ends_with("Caused by:\n    --state no-such-run: no such run folder\n"),
        "{error}"
    );

    let error = failed(&bridgehcp(
        &["run", "--factors", "nosuch.toml", "--out", "out"],
        dir.path(),
    ));
    assert!(
        error.contains("cannot read the factor set file nosuch.toml (--factors)"),
        "{error}"
    );
    assert_eq!(
        error.matches("No such file or directory").count(),
        1,
        "{error}"
    );
}

#[test]
fn a_pipeline_run_outside_the_repository_says_how_to_point_it_at_data() {
    let dir = tempfile::tempdir().unwrap();
    let monthly = Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines/monthly.toml");
    let error = failed(&bridgehcp(
        &["run", "--pipeline", monthly.to_str().unwrap()],
        dir.path(),
    ));
    assert!(
        error.contains("`data/sample` does not exist") && error.contains("pass --data DIR"),
        "{error}"
    );
    let data = sample();
    let stdout = ok(&bridgehcp(
        &[
            "run",
            "--pipeline",
            monthly.to_str().unwrap(),
            "--data",
            data.to_str().unwrap(),
            "--out",
            "monthly",
        ],
        dir.path(),
    ));
    assert!(stdout.contains("competitions applied"), "{stdout}");
    assert!(dir.path().join("monthly/ranking.csv").is_file());
}

/// The rows of `standings.csv` for one competition (and direction), as (rank, entrant,
/// names, score, percent).
fn sheet(path: &Path, direction: &str) -> Vec<(String, String, String, String, String)> {
    let (header, rows) = csv(path);
    let pick = |name: &str| column(&header, &rows, name);
    let (dir, rank, entrant, names, score, percent) = (
        pick("direction"),
        pick("rank"),
        pick("entrant"),
        pick("names"),
        pick("score"),
        pick("percent"),
    );
    (0..rows.len())
        .filter(|&i| dir[i] == direction)
        .map(|i| {
            (
                rank[i].to_string(),
                entrant[i].to_string(),
                names[i].to_string(),
                score[i].to_string(),
                percent[i].to_string(),
            )
        })
        .collect()
}

#[test]
fn score_prints_a_club_file_as_its_program_did() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Ruter, Spiren 2016-08-10: "1 8 ... 25.0 63.02 Frank Isaksen - Torleif Lundgreen",
    // "2 9 ... 20.6 60.71 Leif-Erik Hoel Stabell - Mads Vilhelm Lindsjørn".
    let ruter = realdata().join("pbn/spiren_2016-08-10_mp_bye_adjusted.pbn");
    let stdout = ok(&bridgehcp(
        &["score", ruter.to_str().unwrap(), "--out", "ruter"],
        dir.path(),
    ));
    assert!(stdout.contains("1 competition,"), "{stdout}");
    let rows = sheet(&dir.path().join("ruter/standings.csv"), "");
    assert_eq!(
        rows[0],
        (
            "1".into(),
            "8".into(),
            "Frank Isaksen – Torleif Lundgreen".into(),
            "25.0".into(),
            "63.02".into()
        )
    );
    assert_eq!((rows[1].3.as_str(), rows[1].4.as_str()), ("20.6", "60.71"));
    assert!(dir.path().join("ruter/results.html").is_file());
    assert!(dir.path().join("ruter/standings.parquet").is_file());

    // Compscore, a Mitchell with two winners: 5EW won E/W with 590.78 (60.78 %).
    let compscore = realdata().join("usebio/mp_pairs_mitchell.xml");
    ok(&bridgehcp(
        &["score", compscore.to_str().unwrap(), "--out", "mitchell"],
        dir.path(),
    ));
    let ew = sheet(&dir.path().join("mitchell/standings.csv"), "EW");
    let ns = sheet(&dir.path().join("mitchell/standings.csv"), "NS");
    assert_eq!(ew.len() + ns.len(), 38);
    assert_eq!(
        ew[0],
        (
            "1".into(),
            "5EW".into(),
            "MIKE CLAREY – PENNY CLAREY".into(),
            "590.78".into(),
            "60.78".into()
        )
    );
    assert_eq!(ns[0].0, "1");
    let html = text(&dir.path().join("mitchell/results.html"));
    let (ns_at, ew_at) = (html.find("(NS)</h2>"), html.find("(EW)</h2>"));
    assert!(ns_at.is_some() && ns_at < ew_at, "N/S first: {html}");
    assert!(html.contains("<td class=n>590.78</td><td class=n>60.78</td>"));

    let error = failed(&bridgehcp(&["score", "--out", "nothing"], dir.path()));
    assert!(error.contains("nothing to score"), "{error}");
}

#[test]
fn a_handicap_tournament_is_ranked_by_the_adjusted_result_with_the_raw_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    // November's month-end run gives the playing handicaps of December.
    run_sample(dir.path(), "nov", &["--quiet", "--until", "2024-11-30"]);
    let stdout = ok(&bridgehcp(
        &[
            "score",
            "--data",
            data.to_str().unwrap(),
            "--state",
            "nov",
            "--out",
            "sheet",
            "--start-list",
        ],
        dir.path(),
    ));
    let (header, rows) = csv(&dir.path().join("sheet/standings.csv"));
    let pick = |name: &str| column(&header, &rows, name);
    let (id, rank, raw, entrant, result, expected) = (
        pick("competition_id"),
        pick("rank"),
        pick("raw_rank"),
        pick("entrant"),
        pick("handicap_result"),
        pick("handicap_expected"),
    );
    let cup: Vec<usize> = (0..rows.len())
        .filter(|&i| id[i] == "K02-20241203-1")
        .collect();
    // The run's standings.parquet for this competition: pair 9 (74.25 IMPs, expected
    // +0.50, result +2.25) first on both; pair 7 second on IMPs (73.125) but expected
    // +2.71, result 0.00, fourth; pairs 4 and 2 both show -0.74 (-0.737 and -0.743).
    let line = |i: usize| (rank[i], raw[i], entrant[i], expected[i], result[i]);
    let lines: Vec<_> = cup.iter().map(|&i| line(i)).collect();
    assert_eq!(lines[0], ("1", "1", "9", "0.50", "2.25"));
    assert_eq!(lines[1], ("2", "3", "6", "0.22", "1.28"));
    assert_eq!(lines[3], ("4", "2", "7", "2.71", "0.00"));
    assert_eq!(lines[6], ("7", "7", "4", "-0.26", "-0.74"));
    assert_eq!(lines[7], ("8", "8", "2", "-1.26", "-0.74"));
    let html = text(&dir.path().join("sheet/results.html"));
    assert!(html.contains("<th>handicap result</th><th>raw rank</th>"));
    // standings.parquet carries the same, unrounded, as a run's does: pair 9 +2.247745.
    let path = dir.path().join("sheet/standings.parquet");
    let frame = polars::prelude::ParquetReader::new(std::fs::File::open(&path).unwrap())
        .finish()
        .unwrap();
    let ids = frame
        .column("competition_id")
        .unwrap()
        .str()
        .unwrap()
        .clone();
    let entrants = frame.column("entrant").unwrap().str().unwrap().clone();
    let results = frame
        .column("handicap_result")
        .unwrap()
        .f64()
        .unwrap()
        .clone();
    let nine = (0..frame.height())
        .find(|&i| ids.get(i) == Some("K02-20241203-1") && entrants.get(i) == Some("9"))
        .unwrap();
    assert!((results.get(nine).unwrap() - 2.247_745).abs() < 1e-6);
    // The start list: every entrant of every rated competition with its expected result.
    assert!(
        stdout.contains("K02-20241203-1  9  +0.50 IMP/board  Elisabeth Lindqvist – Erik Larsson"),
        "{stdout}"
    );
    let (header, rows) = csv(&dir.path().join("sheet/start_list.csv"));
    assert!(header.contains(&"expected_percent".to_string()));
    assert!(rows.len() > 7000, "{}", rows.len());
}

/// One format per figure: Spiren 2015-06-17, whose totals Ruter printed whole ("26
/// 65.48", "0 50.00"), gives `26` and `0` in `standings.csv` and on the page (not
/// `26.0`), and its percentages with two decimals in both (`50.00`, not `50.0`).
#[test]
fn the_sheet_and_its_csv_print_each_figure_as_the_club_did() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ruter = realdata().join("pbn/spiren_2015-06-17_mp.pbn");
    ok(&bridgehcp(
        &["score", ruter.to_str().unwrap(), "--out", "ruter"],
        dir.path(),
    ));
    let rows = sheet(&dir.path().join("ruter/standings.csv"), "");
    let figures: Vec<(&str, &str, &str)> = rows
        .iter()
        .take(4)
        .map(|r| (r.1.as_str(), r.3.as_str(), r.4.as_str()))
        .collect();
    assert_eq!(
        figures,
        [
            ("5", "26", "65.48"),
            ("1", "22", "63.10"),
            ("2", "20", "61.90"),
            ("3", "0", "50.00")
        ]
    );
    let html = text(&dir.path().join("ruter/results.html"));
    for (score, percent) in [("26", "65.48"), ("22", "63.10"), ("0", "50.00")] {
        assert!(
            html.contains(&format!(
                "<td class=n>{score}</td><td class=n>{percent}</td>"
            )),
            "{score} {percent}"
        );
    }
}

/// Members whose handicaps print alike to two decimals (37.004 and 37.003 before the
/// competition, each moved by a twentieth of a thousandth by a 50 % result against
/// each other) share the rank, marked `=` in the published list; `ranking.csv` prints
/// the handicaps with two decimals, as the published list does (37.00, not 37.0).
#[test]
fn ranks_are_shared_on_the_printed_handicap_and_printed_with_two_decimals() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let write = |name: &str, body: &str| std::fs::write(data.join(name), body).unwrap();
    write(
        "members.csv",
        "member_id,name,start_handicap\n1,Ann,37.004\n2,Bo,37.004\n3,Cy,37.003\n4,Di,37.003\n",
    );
    write(
        "competitions.csv",
        "competition_id,date,format,scoring,boards\nc1,2026-01-05,pairs,matchpoints,24\n",
    );
    write(
        "entrants.csv",
        "competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\n",
    );
    write(
        "results.csv",
        "competition_id,entrant,boards_played,score\nc1,1,24,50\nc1,2,24,50\n",
    );
    ok(&bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            "data",
            "--out",
            "out",
            "--publish-min-boards",
            "1",
        ],
        dir.path(),
    ));
    let ranking = text(&dir.path().join("out/ranking.csv"));
    assert_eq!(
        ranking,
        "rank,member_id,name,club,district,handicap,boards\n\
         1,1,Ann,,,37.00,24\n1,2,Bo,,,37.00,24\n1,3,Cy,,,37.00,24\n1,4,Di,,,37.00,24\n"
    );
    let published = text(&dir.path().join("out/ranking_published.csv"));
    assert!(published.contains("\n1=,1,Ann,"), "{published}");
    assert!(published.contains("\n1=,4,Di,"), "{published}");
}
