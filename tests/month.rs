//! The federation officer's month, end to end, on a real club's files: 2015 in one run,
//! then every month of 2016 continued from the month before, as the README's routine
//! does it. The December folder must answer for the whole history as one run over the
//! same data does, and its published ranking must keep to the publication rules.

mod common;

use std::path::Path;

use common::{bridgehcp, ok, read, realdata, text};

/// The last day of each month of 2016.
const MONTH_ENDS: [&str; 12] = [
    "2016-01-31",
    "2016-02-29",
    "2016-03-31",
    "2016-04-30",
    "2016-05-31",
    "2016-06-30",
    "2016-07-31",
    "2016-08-31",
    "2016-09-30",
    "2016-10-31",
    "2016-11-30",
    "2016-12-31",
];

/// `(member_id, competitions, boards)` of every member who played, from a run's
/// `handicaps.parquet`.
fn played(folder: &Path) -> Vec<(i64, i64, i64)> {
    use polars::prelude::*;
    let file = std::fs::File::open(folder.join("handicaps.parquet")).unwrap();
    let frame = ParquetReader::new(file).finish().unwrap();
    let column = |name: &str| frame.column(name).unwrap().i64().unwrap().clone();
    let (ids, competitions, boards) = (
        column("member_id"),
        column("competitions"),
        column("boards"),
    );
    ids.iter()
        .zip(competitions.iter())
        .zip(boards.iter())
        .map(|((id, c), b)| (id.unwrap(), c.unwrap(), b.unwrap()))
        .filter(|(_, c, _)| *c > 0)
        .collect()
}

fn rows(folder: &Path, name: &str) -> usize {
    use polars::prelude::*;
    let file = std::fs::File::open(folder.join(name)).unwrap();
    ParquetReader::new(file).finish().unwrap().height()
}

#[test]
fn every_month_folder_answers_for_the_whole_history() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let clubs = realdata().join("pbn-spiren");
    let clubs = clubs.to_str().unwrap();
    // One file breaks a rule (a row with neither pair): the routine takes in the rest.
    ok(&bridgehcp(
        &["import", "auto", clubs, "--out", "fed", "--keep-going"],
        cwd,
    ));

    // 2015 in one run, then each month of 2016 continued from the month before.
    let run = |out: &str, until: &str, state: Option<&str>| {
        let mut args = vec!["run", "--data", "fed", "--out", out, "--until", until];
        if let Some(state) = state {
            args.extend(["--state", state]);
        }
        ok(&bridgehcp(&args, cwd))
    };
    run("2015", "2015-12-31", None);
    let mut previous = "2015".to_string();
    for end in MONTH_ENDS {
        let month = end[..7].to_string();
        let stdout = run(&month, end, Some(&previous));
        assert!(
            !stdout.contains("replayed from the start"),
            "{month}: {stdout}"
        );
        previous = month;
    }
    // April 2016 had no club evening: its folder still holds everything up to March.
    assert_eq!(
        rows(&cwd.join("2016-04"), "changes.parquet"),
        rows(&cwd.join("2016-03"), "changes.parquet")
    );
    // The same data in one run.
    run("one", "2016-12-31", None);
    let (december, one) = (cwd.join("2016-12"), cwd.join("one"));

    // `changes` and the standings have the same rows, to the byte, as one run.
    let changes = rows(&one, "changes.parquet");
    assert!(changes > 1000, "{changes} changes");
    assert!(rows(&cwd.join("2015"), "changes.parquet") < changes / 2);
    for name in [
        "changes.parquet",
        "standings.parquet",
        "handicaps.parquet",
        "ranking.csv",
        "ranking_published.csv",
    ] {
        assert!(
            read(&december.join(name)) == read(&one.join(name)),
            "{name} of the December folder differs from one run's"
        );
    }

    // The member who played most: the December folder's statement is one run's, and it
    // counts every competition since June 2015.
    let members = played(&one);
    let &(member, competitions, _) = members.iter().max_by_key(|(id, c, _)| (*c, -id)).unwrap();
    let member = member.to_string();
    let statement = |folder: &str| ok(&bridgehcp(&["player", &member, "--out-dir", folder], cwd));
    let from_december = statement("2016-12");
    assert_eq!(from_december, statement("one"));
    assert!(
        from_december.contains(&format!("over {competitions} competitions")),
        "{from_december}"
    );
    assert!(from_december.contains("2015-06-"), "{from_december}");

    // The earlier folders are not needed any more: December stands alone.
    for end in &MONTH_ENDS[..11] {
        std::fs::remove_dir_all(cwd.join(&end[..7])).unwrap();
    }
    std::fs::remove_dir_all(cwd.join("2015")).unwrap();
    assert_eq!(statement("2016-12"), from_december);
    ok(&bridgehcp(&["report", "--out-dir", "2016-12"], cwd));

    // The published ranking: nobody under 100 boards or idle for 12 months; ties
    // marked `3=`; the ranking of every player (ranking.csv) is longer.
    let published = text(&december.join("ranking_published.csv"));
    let mut lines = published.lines();
    assert_eq!(
        lines.next(),
        Some("rank,member_id,name,club,district,handicap,boards")
    );
    let lines: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(!lines.is_empty());
    let boards = |id: &str| {
        members
            .iter()
            .find(|m| m.0.to_string() == id)
            .map(|m| m.2)
            .unwrap()
    };
    for line in &lines {
        let printed: i64 = line[6].parse().unwrap();
        assert!(printed >= 100, "{line:?}");
        assert_eq!(printed, boards(line[1]));
    }
    assert!(members.iter().any(|m| m.2 < 100), "someone is provisional");
    let ranked = text(&december.join("ranking.csv")).lines().count() - 1;
    assert!(
        ranked > lines.len(),
        "{ranked} ranked, {} published",
        lines.len()
    );
    for pair in lines.windows(2) {
        let (a, b) = (pair[0][0], pair[1][0]);
        if pair[0][5] == pair[1][5] {
            assert!(a.ends_with('=') && a == b, "{pair:?}");
        } else {
            assert_ne!(a, b, "{pair:?}");
        }
    }
}
