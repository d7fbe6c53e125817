//! The federation officer's month, end to end, on a real club's files: 2015 in one run,
//! then every month of 2016 continued from the month before, as the README's routine
//! does it. The December folder must answer for the whole history as one run over the
//! same data does, and its published ranking must keep to the publication rules.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;

use std::path::Path;

use common::{bridgehcp, no_realdata, ok, read, realdata, text};

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
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let clubs = realdata().join("pbn-spiren");
    let clubs = clubs.to_str().unwrap();
    // `--keep-going`, as the routine runs it: whatever a file breaks, the rest is taken in.
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
        "non_members.csv",
        "unrated.csv",
    ] {
        assert!(
            read(&december.join(name)) == read(&one.join(name)),
            "{name} of the December folder differs from one run's"
        );
    }
    // The lists answer for the whole history too: before, December's held December's
    // lines only.
    let lines = |folder: &str| {
        text(&cwd.join(folder).join("non_members.csv"))
            .lines()
            .count()
    };
    assert!(
        lines("2015") > 1 && lines("2015") < lines("2016-12"),
        "non_members.csv: {} lines in 2015, {} in December",
        lines("2015"),
        lines("2016-12")
    );

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

    // The import log the importer keeps beside the dataset: the report lists the
    // month's refused and mismatched files, not those of another month.
    write_import_log(&cwd.join("fed/import_log.parquet"));
    ok(&bridgehcp(&["report", "--out-dir", "2016-12"], cwd));
    let report = text(&december.join("report.html"));
    assert!(
        report.contains("Refused and mismatched files of 2016-12 (2)"),
        "{report}"
    );
    assert!(report.contains(">2016-12-21.pbn<") && report.contains(">2016-12-14.pbn<"));
    assert!(!report.contains("2016-11-30.pbn"));
    // Activity over the months: April 2016 had no club evening.
    assert!(
        report.contains(
            "<tr><td>2016-04</td><td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">0</td></tr>"
        ),
        "{report}"
    );
    assert!(report.contains("Spread of the changes in 2016-12"));

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

/// An import log as the importer writes it: December has a refused file and a mismatch;
/// November a refused file; the rest imported.
fn write_import_log(path: &Path) {
    use polars::prelude::*;
    let mut log = df!(
        "batch" => [1i64, 2, 2, 2],
        "imported_at" => ["2016-12-01T09:00:00Z", "2017-01-02T09:00:00Z", "2017-01-02T09:00:00Z", "2017-01-02T09:00:00Z"],
        "file" => ["incoming/2016-11-30.pbn", "incoming/2016-12-14.pbn", "incoming/2016-12-21.pbn", "incoming/2016-12-07.pbn"],
        "status" => ["refused", "mismatch", "refused", "imported"],
        "competition_id" => [None, Some("pbn-2016-12-14"), None, Some("pbn-2016-12-07")],
        "month" => ["2016-11", "2016-12", "2016-12", "2016-12"],
        "line" => [Some(606i64), Some(88), Some(12), None],
        "board" => [Some(19i64), Some(4), None, None],
        "column" => [Some("PairId_NS"), Some("Score"), Some("Contract"), None],
        "reason" => [Some("a row with neither pair"), Some("pair 3: published 54.17 %, scored 54.71 %"), Some("`5Z` is not a contract"), None],
    )
    .unwrap();
    ParquetWriter::new(std::fs::File::create(path).unwrap())
        .finish(&mut log)
        .unwrap();
}

/// A club of four members with a rated evening and a teams evening that is not rated.
fn club(dir: &Path) {
    let data = dir.join("club");
    std::fs::create_dir(&data).unwrap();
    let tables = [
        ("members.csv", "member_id,name,masterpoints\n1,Ann,10\n2,Bo,20\n3,Cy,0\n4,Di,5\n"),
        (
            "competitions.csv",
            "competition_id,date,format,scoring,boards,rated\nc1,2026-01-05,pairs,matchpoints,24,true\nc2,2026-01-12,pairs,matchpoints,24,false\n",
        ),
        (
            "entrants.csv",
            "competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\nc2,1,1,2\nc2,2,3,4\n",
        ),
        (
            "results.csv",
            "competition_id,entrant,boards_played,score\nc1,1,24,55\nc1,2,24,45\nc2,1,24,50\nc2,2,24,50\n",
        ),
    ];
    for (name, content) in tables {
        std::fs::write(data.join(name), content).unwrap();
    }
}

fn failed(output: &std::process::Output) -> String {
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn what_a_user_reads_is_plain_english() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    club(cwd);
    // One rated competition, one scored but not rated: the summary says both.
    let stdout = ok(&bridgehcp(&["run", "--data", "club", "--out", "out"], cwd));
    assert!(
        stdout.contains("1 competition applied (1 scored but marked not rated (`rated` false)), 3 members moved, 4 player changes"),
        "{stdout}"
    );
    assert!(
        stdout.contains("3 members moved, 4 player changes"),
        "{stdout}"
    );
    assert!(
        stdout.contains("0 on the published ranking (ranking_published.csv: at least 100 rated boards, active in the last 12 months); 4 handicaps provisional (fewer boards); 0 places in rated competitions"),
        "{stdout}"
    );
    // One competition in the statement.
    let statement = ok(&bridgehcp(&["player", "1", "--out-dir", "out"], cwd));
    assert!(statement.contains(" over 1 competition\n"), "{statement}");
    // Every member is below the board minimum: provisional, still with a handicap.
    let handicaps = {
        use polars::prelude::*;
        let file = std::fs::File::open(cwd.join("out/handicaps.parquet")).unwrap();
        ParquetReader::new(file).finish().unwrap()
    };
    let provisional = handicaps.column("provisional").unwrap().bool().unwrap();
    assert_eq!(provisional.iter().collect::<Vec<_>>(), [Some(true); 4]);
    assert_eq!(
        text(&cwd.join("out/ranking_published.csv")),
        "rank,member_id,name,club,district,handicap,boards\n"
    );
    // With a minimum of 24 boards the four are published.
    ok(&bridgehcp(
        &[
            "run",
            "--data",
            "club",
            "--out",
            "low",
            "--publish-min-boards",
            "24",
        ],
        cwd,
    ));
    let published = text(&cwd.join("low/ranking_published.csv"));
    assert_eq!(published.lines().count(), 5, "{published}");

    // `score` with nothing to score says so, not "scoring nothing failed".
    let stderr = failed(&bridgehcp(&["score", "--out", "x"], cwd));
    assert_eq!(
        stderr.trim(),
        "Error: nothing to score: give club export files (FILE.pbn, FILE.xml) or --data DIR"
    );
}

#[test]
fn a_club_file_scores_with_or_without_data_and_an_empty_one_is_refused() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let file = realdata().join("pbn-spiren/2016-12-14.pbn");
    let file = file.to_str().unwrap();
    let plain = ok(&bridgehcp(&["score", file, "--out", "a"], cwd));
    let flagged = ok(&bridgehcp(&["score", "--data", file, "--out", "b"], cwd));
    assert!(plain.contains("bridgehcp score: 1 competition,"), "{plain}");
    assert_eq!(
        plain.replace("; outputs in a", ""),
        flagged.replace("; outputs in b", "")
    );
    assert_eq!(
        read(&cwd.join("a/standings.csv")),
        read(&cwd.join("b/standings.csv"))
    );
    // One file imported: "1 file".
    let stdout = ok(&bridgehcp(&["import", "auto", file, "--out", "fed"], cwd));
    assert!(
        stdout.contains("bridgehcp import: 1 file: 1 imported, 0 corrections"),
        "{stdout}"
    );

    // An empty export (or one of blank lines) is refused as empty, by `import` and `score`.
    std::fs::write(cwd.join("empty.pbn"), "").unwrap();
    std::fs::write(cwd.join("blank.pbn"), "\r\n\n  \n").unwrap();
    let stderr = failed(&bridgehcp(
        &["import", "auto", "empty.pbn", "blank.pbn", "--out", "fed2"],
        cwd,
    ));
    assert!(
        stderr.contains("refused: empty.pbn: the file is empty"),
        "{stderr}"
    );
    assert!(
        stderr.contains("refused: blank.pbn: the file is empty"),
        "{stderr}"
    );
    assert!(stderr.contains("2 of 2 files refused"), "{stderr}");
    let stderr = failed(&bridgehcp(&["score", "empty.pbn", "--out", "c"], cwd));
    assert!(stderr.contains("the file is empty"), "{stderr}");
}

#[test]
fn sample_names_the_foreign_guests_it_adds() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = ok(&bridgehcp(
        &["sample", "--out", "s", "--members", "100", "--months", "1"],
        dir.path(),
    ));
    assert!(
        stdout.contains(
            "bridgehcp sample: 100 members and 2 foreign guests (kind = foreign in members"
        ),
        "{stdout}"
    );
}

/// Reading a dataset reports a count of files: one stage of as many steps as the
/// `members`, `competitions`, `entrants` and `results` files (a month's partitions each
/// count), each advanced once.
#[test]
fn reading_a_dataset_counts_its_files() {
    if no_realdata() {
        return;
    }
    use bridgehcp::pipeline::Progress;
    use std::sync::Mutex;
    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);
    impl Progress for Recorder {
        fn start(&self, stage: &'static str, total: u64) {
            self.0.lock().unwrap().push(format!("{stage} {total}"));
        }
        fn advance(&self, n: u64) {
            self.0.lock().unwrap().push(format!("+{n}"));
        }
        fn finish(&self) {
            self.0.lock().unwrap().push("done".into());
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let clubs = realdata().join("pbn-spiren");
    ok(&bridgehcp(
        &[
            "import",
            "auto",
            clubs.to_str().unwrap(),
            "--out",
            "fed",
            "--keep-going",
        ],
        dir.path(),
    ));
    // members.parquet and one partition per month of competitions, entrants and results
    // (the printed percentages; the table results are read later, competition by
    // competition): 17 months of club evenings (June 2015 to December 2016 but July 2015
    // and April 2016).
    let recorder = Recorder::default();
    bridgehcp::store::table::open_checked_with(
        &dir.path().join("fed"),
        bridgehcp::quarantine::OnError::Quarantine,
        &recorder,
    )
    .unwrap();
    let events = recorder.0.into_inner().unwrap();
    let files = 1 + 3 * 17;
    assert_eq!(
        events.first().map(String::as_str),
        Some(format!("reading files {files}").as_str())
    );
    assert_eq!(events.iter().filter(|e| *e == "+1").count(), files);
    assert_eq!(events.last().map(String::as_str), Some("done"));
}

/// A state written before folders carried the whole history holds its own month's
/// changes only: continuing it replays the history once, so that the new folder is
/// whole again.
#[test]
fn a_state_without_the_whole_history_is_replayed_once() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    club(cwd);
    ok(&bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            "club",
            "--out",
            "jan",
            "--until",
            "2026-01-05",
        ],
        cwd,
    ));
    let manifest = cwd.join("jan/run.json");
    let whole = text(&manifest);
    // A version that carried changes and standings but not the lists of non-members
    // and unrated competitions: replayed as well.
    let lists = whole.replace("  \"whole_lists\": true,\n", "");
    assert!(!lists.contains("whole_lists") && lists.contains("whole_history"));
    std::fs::write(&manifest, lists).unwrap();
    let stdout = ok(&bridgehcp(
        &["run", "--data", "club", "--state", "jan", "--out", "lists"],
        cwd,
    ));
    assert!(
        stdout.contains("so the whole history was replayed from the start"),
        "{stdout}"
    );
    let older = whole
        .replace("  \"whole_history\": true,\n", "")
        .replace("  \"whole_lists\": true,\n", "");
    assert!(!older.contains("whole_history"));
    std::fs::write(&manifest, older).unwrap();
    let stdout = ok(&bridgehcp(
        &["run", "--data", "club", "--state", "jan", "--out", "next"],
        cwd,
    ));
    assert!(
        stdout.contains("the previous run's state cannot be continued as it is (the state's changes and standings, or its lists of non-members and unrated competitions, hold its own month only, as an older version of bridgehcp wrote them), so the whole history was replayed from the start"),
        "{stdout}"
    );
    ok(&bridgehcp(
        &["run", "--quiet", "--data", "club", "--out", "one"],
        cwd,
    ));
    for name in ["changes.parquet", "standings.parquet", "handicaps.parquet"] {
        assert!(
            read(&cwd.join("next").join(name)) == read(&cwd.join("one").join(name)),
            "{name}"
        );
    }
    // The new folder is whole: the next run continues it.
    let stdout = ok(&bridgehcp(
        &["run", "--data", "club", "--state", "next", "--out", "again"],
        cwd,
    ));
    assert!(!stdout.contains("replayed"), "{stdout}");
}

/// A competition scored but not rated after the last rated one is scored again by the
/// next run (the state's last applied competition is the rated one): the carried
/// standings keep it once.
#[test]
fn a_trailing_unrated_competition_is_carried_once() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    club(cwd);
    ok(&bridgehcp(
        &[
            "run",
            "--quiet",
            "--data",
            "club",
            "--out",
            "jan",
            "--until",
            "2026-01-31",
        ],
        cwd,
    ));
    ok(&bridgehcp(
        &[
            "run", "--quiet", "--data", "club", "--state", "jan", "--out", "next",
        ],
        cwd,
    ));
    ok(&bridgehcp(
        &["run", "--quiet", "--data", "club", "--out", "one"],
        cwd,
    ));
    for name in ["changes.parquet", "standings.parquet"] {
        assert!(
            read(&cwd.join("next").join(name)) == read(&cwd.join("one").join(name)),
            "{name}"
        );
    }
    use polars::prelude::*;
    let file = std::fs::File::open(cwd.join("next/standings.parquet")).unwrap();
    let standings = ParquetReader::new(file).finish().unwrap();
    // Two competitions of two pairs each.
    assert_eq!(standings.height(), 4);
}
