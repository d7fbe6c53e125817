//! `bridgehcp import` on batches of real club exports (read in place from
//! `shared/realdata`) and on small broken files written here: every file read, refusals
//! listed, month partitions appended, unchanged, duplicate and corrected competitions
//! recognised.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{import_auto as import, no_realdata, ok, realdata};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use bridgehcp::store::table::read_dataset;

fn bridgekam(name: &str) -> PathBuf {
    realdata().join("pbn-bridgekam").join(name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// Every file below `dir`, by relative path, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path
                    .strip_prefix(root)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                out.insert(
                    relative,
                    std::fs::read(&path).unwrap_or_else(|e| panic!("{e}")),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The import log is the one file of a dataset that depends on the history of imports
/// (batch numbers and times), so byte comparisons of datasets leave it out, and the
/// report, which is the last batch's.
fn is_log(relative: &str) -> bool {
    matches!(
        relative,
        "import_log.parquet" | "import_log.csv" | "import-report.csv"
    )
}

/// The dataset's files without the log and the report.
fn dataset_bytes(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = files(dir);
    all.retain(|k, _| !is_log(k));
    all
}

/// A small Ruter-style export with one row broken as `row` says.
fn small_pbn(row: &str) -> String {
    format!(
        "% PBN 2.0\n\
         % <META  name=Generator   content=\"Ruter i Norge\">\n\
         % <META  name=Arranger    content=\"0001 Test BK\">\n\
         % <META  name=ContestDate content=\"2015-09-30\">\n\
         % <META  name=ScoringType content=\"MatchPoints;MP1\">\n\
         [Event \"Test\"]\n\
         [Board \"1\"]\n\
         [TotalScoreTable \"Rank\\2R;PairId\\2R;TotalScoreMP\\3R;TotalPercentage\\5R;Names\\20L;MemberID1\\7R;MemberID2\\7R\"]\n\
         1 1 0 50.00 \"A - B\" \"11\" \"12\"\n\
         1 2 0 50.00 \"C - D\" \"13\" \"14\"\n\
         1 3 0 50.00 \"E - F\" \"15\" \"16\"\n\
         1 4 0 50.00 \"G - H\" \"17\" \"18\"\n\
         [ScoreTable \"PairId_NS\\2R;PairId_EW\\2R;Contract\\3L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\6R;MP_NS\\2R;MP_EW\\2R\"]\n\
         {row}\n\
         3 4 3NT S 9 \"400\" - 0 0\n\
         [Board \"2\"]\n\
         [ScoreTable \"PairId_NS\\2R;PairId_EW\\2R;Contract\\3L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\6R;MP_NS\\2R;MP_EW\\2R\"]\n\
         1 2 3NT S 9 \"600\" - 0 0\n\
         3 4 3NT S 8 \"-100\" - 0 0\n"
    )
}

/// A broken file stops the batch: nothing but the report is written, the refusal names
/// file, line, column and board on stderr and in `import-report.csv`. With
/// `--keep-going` the good files are written and the exit is 0.
#[test]
fn a_refused_file_is_listed_and_keep_going_imports_the_rest() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let bad = dir.path().join("bad.pbn");
    std::fs::write(&bad, small_pbn("1 2 4S N 14 \"420\" - 0 0")).unwrap_or_else(|e| panic!("{e}"));
    let good = bridgekam("bridgekam_2015-09-10.pbn");
    let compscore = realdata().join("usebio").join("butler_howell.xml");
    let out = dir.path().join("fed");

    let output = import(&[&good, &bad, &compscore], &out, &[]);
    assert!(!output.status.success(), "a refused file fails the batch");
    let stderr = text(&output.stderr);
    let expected = format!(
        "refused: {}, line 14, column `Result`, board 1: 14 tricks: there are 13 tricks in a deal",
        bad.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(stderr.contains("1 of 3 files refused"), "{stderr}");
    let written: Vec<String> = files(&out).into_keys().collect();
    assert_eq!(
        written,
        ["import-report.csv", "import_log.csv", "import_log.parquet"],
        "only the report and the log"
    );
    let report = text(&std::fs::read(out.join("import-report.csv")).unwrap_or_default());
    assert!(
        report.contains(&format!(
            "{},refused,,14,1,Result,14 tricks: there are 13 tricks in a deal",
            bad.display()
        )),
        "{report}"
    );
    // The good files were not written, and neither the report nor the log says otherwise.
    assert!(
        report.contains(&format!(
            "{},not_written,pbn-2015-09-10-0128-bridgekameratene-263,,,,would be imported; the batch wrote nothing",
            good.display()
        )),
        "{report}"
    );
    assert!(!report.contains(",imported,"), "{report}");
    let log = text(&std::fs::read(out.join("import_log.csv")).unwrap_or_default());
    assert!(
        log.starts_with(
            "batch,imported_at,file,status,competition_id,month,line,board,column,reason\n"
        ),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            ",{},not_written,pbn-2015-09-10-0128-bridgekameratene-263,2015-09,,,,",
            good.display()
        )),
        "{log}"
    );
    // A refused file is still listed under the month its header gives.
    assert!(
        log.contains(&format!(
            ",{},refused,,2015-09,14,1,Result,14 tricks: there are 13 tricks in a deal",
            bad.display()
        )),
        "{log}"
    );

    let stdout = ok(&import(&[&good, &bad, &compscore], &out, &["--keep-going"]));
    assert!(
        stdout.contains("3 files: 2 imported, 0 corrections, 0 unchanged, 0 duplicates, 1 refused"),
        "{stdout}"
    );
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dataset.competitions.len(), 2);
    // The log kept the first batch and added the second: three rows each.
    let log = text(&std::fs::read(out.join("import_log.csv")).unwrap_or_default());
    let batches: Vec<&str> = log
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .collect();
    assert_eq!(batches, ["1", "1", "1", "2", "2", "2"], "{log}");
    // The batch number, then the time in UTC.
    assert!(
        log.lines()
            .any(|l| l.starts_with("2,20") && l.contains("Z,")),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            ",{},imported,pbn-2015-09-10-0128-bridgekameratene-263,2015-09,,,,",
            good.display()
        )),
        "{log}"
    );
    // Rows name the export they came from, not a Parquet row.
    let row = dataset
        .boards
        .iter()
        .find(|b| b.competition_id.starts_with("pbn-"))
        .expect("a PBN row");
    assert_eq!(row.origin.file.as_deref(), Some(good.as_path()));
    assert!(row.origin.row.is_some_and(|line| line > 40));
}

/// Seven monthly imports give the same files as one import of the whole season, and a
/// month imported again changes nothing.
#[test]
fn appending_month_by_month_equals_importing_everything_at_once() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut all: Vec<PathBuf> = std::fs::read_dir(realdata().join("pbn-bridgekam"))
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.path())
        .collect();
    all.sort();
    assert_eq!(all.len(), 21);
    let at_once = dir.path().join("at-once");
    let refs: Vec<&Path> = all.iter().map(PathBuf::as_path).collect();
    let stdout = ok(&import(&refs, &at_once, &[]));
    assert!(stdout.contains("21 files: 21 imported"), "{stdout}");

    // By the month in the file name; the two undated files (April 2016) come last.
    let mut months: BTreeMap<String, Vec<&Path>> = BTreeMap::new();
    for file in &all {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let month = name
            .strip_prefix("bridgekam_")
            .and_then(|n| n.get(..7))
            .filter(|m| m.starts_with("20"))
            .unwrap_or("2016-99")
            .to_string();
        months.entry(month).or_default().push(file);
    }
    assert_eq!(months.len(), 7);
    let monthly = dir.path().join("monthly");
    for files in months.values() {
        ok(&import(files, &monthly, &[]));
    }
    let (a, b) = (files(&at_once), files(&monthly));
    let parquet = |m: &BTreeMap<String, Vec<u8>>| {
        m.iter()
            .filter(|(k, _)| k.ends_with(".parquet") && !is_log(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<BTreeMap<_, _>>()
    };
    assert_eq!(
        parquet(&a).len(),
        1 + 4 * 6 + 1,
        "members, 4 tables x 6 months (results: the printed percentages) and the competition index"
    );
    assert!(parquet(&a) == parquet(&b), "the same bytes");

    let again = months.values().next().cloned().unwrap_or_default();
    let stdout = ok(&import(&again, &monthly, &[]));
    assert!(
        stdout.contains("0 imported")
            && stdout.contains("unchanged")
            && stdout.contains("nothing to write"),
        "{stdout}"
    );
    assert!(parquet(&files(&monthly)) == parquet(&a));
    // Eight imports into `monthly`, each kept in its log.
    let log = text(&std::fs::read(monthly.join("import_log.csv")).unwrap_or_default());
    let last = log.lines().last().and_then(|l| l.split(',').next());
    assert_eq!(last, Some("8"), "{log}");
}

/// The same session exported under another header is imported once; the same
/// competition with other results replaces the earlier version.
#[test]
fn duplicates_under_another_header_and_corrections() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let original = bridgekam("bridgekam_2015-09-24.pbn");
    let out = dir.path().join("fed");
    ok(&import(&[&original], &out, &[]));

    let bytes = std::fs::read(&original).unwrap_or_else(|e| panic!("{e}"));
    let replace = |from: &str, to: &str| -> Vec<u8> {
        let text: String = bytes.iter().map(|&b| char::from(b)).collect();
        assert!(text.contains(from), "{from}");
        text.replace(from, to)
            .chars()
            .map(|c| c as u32 as u8)
            .collect()
    };
    // Another serial number and title: another competition id, the same results.
    let renamed = dir.path().join("renamed.pbn");
    std::fs::write(&renamed, replace("content=\"272\">", "content=\"9272\">"))
        .unwrap_or_else(|e| panic!("{e}"));
    let output = import(&[&renamed], &out, &[]);
    let stdout = ok(&output);
    assert!(stdout.contains("1 duplicate,"), "{stdout}");
    assert!(
        text(&output.stderr).contains("the same session (date and results) as competition `pbn-2015-09-24-0176-sinsen-bk-272`"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(
        read_dataset(&out).map(|d| d.competitions.len()).ok(),
        Some(1)
    );

    // The same header with a member number corrected.
    let corrected = dir.path().join("corrected.pbn");
    std::fs::write(&corrected, replace("\"33860\"", "\"33861\"")).unwrap_or_else(|e| panic!("{e}"));
    let output = import(&[&corrected], &out, &[]);
    let stdout = ok(&output);
    assert!(stdout.contains("1 correction,"), "{stdout}");
    assert!(
        text(&output.stderr).contains("correction: "),
        "{}",
        text(&output.stderr)
    );
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dataset.competitions.len(), 1);
    assert_eq!(dataset.entrants.len(), 18);
    assert!(dataset.entrants.iter().any(|e| e.players[0] == Some(33861)));
    assert!(!dataset.entrants.iter().any(|e| e.players[0] == Some(33860)));
}

/// `--members`: a number the register knows is that member whatever the file prints
/// (`KNUT  skinnemoen`, `Rolf Andreas Morck`); a spelling that is still another name
/// is reported as `name_differs`, and the player stays the member. A number outside the
/// register is a non-member; the pair keeps its printed names and is rated by the run.
/// The register's club and district are the members'.
#[test]
fn the_register_decides_who_is_a_member() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let register = dir.path().join("register.csv");
    std::fs::write(
        &register,
        "member_id,name,club,district\n33860,\"Grebstad, Sissel\",Pass BK,Oslo\n\
         18367,Rolf A. Morck,,\n1198,H. Løkken,Sinsen BK,Oslo\n\
         150,KNUT  skinnemoen,,\n17936,Someone Else,,\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let file = bridgekam("bridgekam_2015-09-24.pbn");
    let out = dir.path().join("fed");
    let mut output = import(
        &[&file],
        &out,
        &["--members", register.to_str().unwrap_or_default()],
    );
    let stderr = text(&output.stderr);
    ok(&output);
    assert!(
        stderr.contains(&format!(
            "name_differs: {}, line 66: number 17936 is `Someone Else` in the register but \
             `Fredd Kristiansen` in the file: kept as member 17936 (`Someone Else`)",
            file.display()
        )),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("name_differs").count(),
        1,
        "folded names agree: {stderr}"
    );
    assert!(
        stderr.contains(
            "number 2281 (Tommy Sandsmark) is not in the register: imported as a non-member"
        ),
        "{stderr}"
    );
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    let mut members: Vec<i64> = dataset.members.iter().map(|m| m.member_id).collect();
    members.sort_unstable();
    assert_eq!(
        members,
        [150, 1198, 17936, 18367, 33860],
        "every registered number, and only those"
    );
    let member = |id: i64| {
        dataset
            .members
            .iter()
            .find(|m| m.member_id == id)
            .unwrap_or_else(|| panic!("member {id}"))
    };
    assert_eq!(member(150).name.as_deref(), Some("KNUT  skinnemoen"));
    assert_eq!(member(33860).club.as_deref(), Some("Pass BK"));
    assert_eq!(member(33860).district.as_deref(), Some("Oslo"));
    // No club in the register: the club the file prints for the player.
    assert_eq!(member(18367).club.as_deref(), Some("Sinsen BK"));
    let pair = dataset
        .entrants
        .iter()
        .find(|e| e.entrant == "1")
        .expect("pair 1");
    assert_eq!(pair.players, [None, Some(17936), None, None]);
    assert_eq!(
        pair.names[..2],
        [
            Some("Tommy Sandsmark".to_string()),
            Some("Fredd Kristiansen".to_string())
        ]
    );

    // The run takes the pair (one non-member, one member).
    output = Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .args(["run", "--quiet", "--data"])
        .arg(&out)
        .arg("--out")
        .arg(dir.path().join("run"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    ok(&output);

    // A run's output folder is not a dataset: importing into it is refused, and nothing
    // is written there.
    let run = dir.path().join("run");
    let before = files(&run);
    let output = import(&[&file], &run, &[]);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr)
            .contains("is a run's output folder (it holds run.json), not a dataset"),
        "{}",
        text(&output.stderr)
    );
    assert!(files(&run) == before, "the run's folder is untouched");

    // Two more sessions with 17936 printed as `Fredd Kristiansen`: one line for the
    // member and spelling, not one per file.
    let later = [
        bridgekam("bridgekam_2015-11-26.pbn"),
        bridgekam("bridgekam_2015-12-10.pbn"),
    ];
    let output = import(
        &[&later[0], &later[1]],
        &out,
        &["--members", register.to_str().unwrap_or_default()],
    );
    let stderr = text(&output.stderr);
    ok(&output);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("name_differs"))
        .collect();
    assert_eq!(
        lines,
        [format!(
            "name_differs: {}, line 67: number 17936 is `Someone Else` in the register but \
             `Fredd Kristiansen` in the file (2 times in this batch): kept as member 17936 \
             (`Someone Else`)",
            later[0].display()
        )],
        "{stderr}"
    );
}

/// Without a register, the latest spelling of a number is kept (by competition date,
/// not by the order the files came in), and the other spellings are listed once per
/// member.
#[test]
fn without_a_register_the_latest_spelling_wins() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let first = dir.path().join("first.pbn");
    std::fs::write(&first, small_pbn("1 2 3NT S 9 \"400\" - 0 0"))
        .unwrap_or_else(|e| panic!("{e}"));
    let second = dir.path().join("second.pbn");
    std::fs::write(
        &second,
        small_pbn("1 2 3NT S 10 \"430\" - 0 0")
            .replace("2015-09-30", "2015-10-07")
            .replace("\"A - B\"", "\"Anne - B\""),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let third = dir.path().join("third.pbn");
    std::fs::write(
        &third,
        small_pbn("1 2 3NT S 11 \"460\" - 0 0")
            .replace("2015-09-30", "2015-09-16")
            .replace("\"A - B\"", "\"A. - B\""),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("fed");
    let output = import(&[&second, &first, &third], &out, &[]);
    ok(&output);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "name_conflict: {}, line 9: number 11 is `Anne` in its latest competition, also \
             printed as `A` (once, last 2015-09-30 in `pbn-2015-09-30-0001-test-bk`), \
             `A.` (once, last 2015-09-16 in `pbn-2015-09-16-0001-test-bk`): kept as `Anne`",
            second.display()
        )),
        "{stderr}"
    );
    assert_eq!(stderr.matches("name_conflict").count(), 1, "{stderr}");
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    let eleven = dataset.members.iter().find(|m| m.member_id == 11);
    assert_eq!(eleven.and_then(|m| m.name.as_deref()), Some("Anne"));

    // The earliest file alone, then the rest: the same members.
    let split = dir.path().join("split");
    ok(&import(&[&third], &split, &[]));
    ok(&import(&[&first, &second], &split, &[]));
    assert!(dataset_bytes(&split) == dataset_bytes(&out));
}

/// A name conflict is reported by the import that brings it, once: before, the same
/// `name_conflict` of member 11 was printed again at every monthly import. A later
/// import that brings another spelling reports the conflict again, with it.
#[test]
fn a_name_conflict_is_reported_once_by_the_import_that_brings_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let month = |date: &str, names: &str| {
        let file = dir.path().join(format!("{date}.pbn"));
        std::fs::write(
            &file,
            small_pbn("1 2 3NT S 9 \"400\" - 0 0")
                .replace("2015-09-30", date)
                .replace("\"A - B\"", names),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        file
    };
    let out = dir.path().join("fed");
    let conflicts = |file: &Path| {
        let output = import(&[file], &out, &[]);
        ok(&output);
        text(&output.stderr)
            .lines()
            .filter(|l| l.starts_with("name_conflict"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert!(conflicts(&month("2015-09-30", "\"Anne Berg - B\"")).is_empty());
    let october = month("2015-10-07", "\"Beate Dahl - B\"");
    assert_eq!(
        conflicts(&october),
        [format!(
            "name_conflict: {}, line 9: number 11 is `Beate Dahl` in its latest competition, also \
             printed as `Anne Berg` (once, last 2015-09-30 in `pbn-2015-09-30-0001-test-bk`): kept as \
             `Beate Dahl`",
            october.display()
        )]
    );
    // November and December under the name kept: nothing new to report.
    assert!(conflicts(&month("2015-11-04", "\"Beate Dahl - B\"")).is_empty());
    assert!(
        conflicts(&month("2015-12-02", "\"B. Dahl - B\"")).is_empty(),
        "`B. Dahl` may be Beate Dahl"
    );
    let january = month("2016-01-06", "\"Carin Lund - B\"");
    let reported = conflicts(&january);
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert!(
        reported[0].contains("number 11 is `Carin Lund`"),
        "{reported:?}"
    );
    // The log keeps the two reports.
    let log = std::fs::read_to_string(out.join("import_log.csv")).unwrap_or_default();
    assert_eq!(log.matches(",name_conflict,").count(), 2, "{log}");
}

/// `import` gives the same dataset whatever the order of its files and however they are
/// split into batches. Member 14358 played for BK Norrøna on 2015-10-29 and is printed
/// under TopBridge BC on 2016-04-21: once each in the last twelve months, so the latest
/// club, in every order.
#[test]
fn import_does_not_depend_on_file_order() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let a = bridgekam("bridgekam_2015-10-29.pbn");
    let b = bridgekam("bridgekam_2016-04-21.pbn");
    let c = bridgekam("bridgekam_2015-09-24.pbn");
    let d = bridgekam("bridgekam_2016-03-10.pbn");
    let orders: [&[&[&Path]]; 5] = [
        &[&[&a, &b, &c, &d]],
        &[&[&d, &c, &b, &a]],
        &[&[&b], &[&a], &[&d, &c]],
        &[&[&a], &[&b], &[&c], &[&d]],
        &[&[&c, &b], &[&d, &a]],
    ];
    let mut first: Option<BTreeMap<String, Vec<u8>>> = None;
    for (n, batches) in orders.iter().enumerate() {
        let out = dir.path().join(format!("order-{n}"));
        for files in *batches {
            ok(&import(files, &out, &[]));
        }
        let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
        let member = dataset.members.iter().find(|m| m.member_id == 14358);
        assert_eq!(
            member.and_then(|m| m.club.as_deref()),
            Some("TopBridge BC"),
            "order {n}"
        );
        let bytes = dataset_bytes(&out);
        assert!(bytes.contains_key("members.parquet"));
        match &first {
            None => first = Some(bytes),
            Some(expected) => assert!(*expected == bytes, "order {n} wrote other bytes"),
        }
    }

    // The whole folder (21 sessions, two clubs): listed backwards, and dealt into three
    // interleaved batches, against the folder at once.
    let mut all: Vec<PathBuf> = std::fs::read_dir(realdata().join("pbn-bridgekam"))
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.path())
        .collect();
    all.sort();
    let at_once = dir.path().join("all-at-once");
    ok(&import(&[&realdata().join("pbn-bridgekam")], &at_once, &[]));
    let backwards = dir.path().join("all-backwards");
    let reversed: Vec<&Path> = all.iter().rev().map(PathBuf::as_path).collect();
    ok(&import(&reversed, &backwards, &[]));
    let dealt = dir.path().join("all-dealt");
    for hand in 0..3 {
        let batch: Vec<&Path> = reversed
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 3 == hand)
            .map(|(_, p)| *p)
            .collect();
        ok(&import(&batch, &dealt, &[]));
    }
    let expected = dataset_bytes(&at_once);
    assert!(expected.len() > 10);
    assert!(dataset_bytes(&backwards) == expected, "backwards");
    assert!(dataset_bytes(&dealt) == expected, "in three batches");
}

/// A session sent again under another serial number and title, with a result corrected:
/// the same club, date, session and players, so it replaces the earlier import as a
/// correction naming the earlier file, within one batch as across two.
#[test]
fn a_session_sent_again_under_another_serial_number_is_a_correction() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let original = bridgekam("bridgekam_2015-09-24.pbn");
    let resent = dir.path().join("resent.pbn");
    std::fs::write(
        &resent,
        latin1_replace(
            &original,
            &[
                ("content=\"272\">", "content=\"9272\">"),
                ("content=\"Sinsen\">", "content=\"Sinsen (rettet)\">"),
                ("\"33860\"", "\"33861\""),
                (
                    "content=\"2015-10-20 21:45:37\"",
                    "content=\"2015-10-21 09:12:00\"",
                ),
            ],
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("fed");
    ok(&import(&[&original], &out, &[]));
    let output = import(&[&resent], &out, &[]);
    let stdout = ok(&output);
    assert!(stdout.contains("1 correction,"), "{stdout}");
    assert!(
        text(&output.stderr).contains(&format!(
            "correction: {}: the same session as competition \
             `pbn-2015-09-24-0176-sinsen-bk-272` from {} (club, date and session; 35 of 36 \
             players and 243 of 243 table results in common), sent again under another serial \
             number or title: replaces it",
            resent.display(),
            original.display()
        )),
        "{}",
        text(&output.stderr)
    );
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<&str> = dataset
        .competitions
        .iter()
        .map(|c| c.competition_id.as_str())
        .collect();
    assert_eq!(ids, ["pbn-2015-09-24-0176-sinsen-bk-9272"]);
    assert!(dataset.entrants.iter().any(|e| e.players[0] == Some(33861)));
    assert!(!dataset.members.iter().any(|m| m.member_id == 33860));

    // Both in one batch: the same dataset.
    let once = dir.path().join("once");
    let output = import(&[&resent, &original], &once, &[]);
    let stdout = ok(&output);
    assert!(
        stdout.contains("2 files: 1 imported, 1 correction,"),
        "{stdout}"
    );
    let (x, y) = (dataset_bytes(&once), dataset_bytes(&out));
    let differing: Vec<&String> = x.keys().filter(|k| x.get(*k) != y.get(*k)).collect();
    assert!(x.len() == y.len() && differing.is_empty(), "{differing:?}");
}

/// Two sections of one evening: the same club, date and session, other players. Both
/// are kept.
#[test]
fn two_sections_of_one_evening_stay_two_competitions() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let a = bridgekam("bridgekam_2015-09-24.pbn");
    let b = dir.path().join("section-b.pbn");
    std::fs::write(
        &b,
        latin1_replace(
            &realdata().join("pbn-spiren").join("2015-09-02.pbn"),
            &[
                ("content=\"0179 Spiren BK\">", "content=\"0176 Sinsen BK\">"),
                ("content=\"2015-09-02\">", "content=\"2015-09-24\">"),
                ("content=\"Spirenk\">", "content=\"Sinsen B\">"),
            ],
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("fed");
    let stdout = ok(&import(&[&a, &b], &out, &[]));
    assert!(
        stdout.contains("2 files: 2 imported, 0 corrections"),
        "{stdout}"
    );
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dataset.competitions.len(), 2);
    assert!(
        dataset
            .competitions
            .iter()
            .all(|c| c.club.as_deref() == Some("0176 Sinsen BK")
                && c.date.to_string() == "2015-09-24")
    );
}

/// Two sessions of one day at one club, exported separately: the programs number both
/// session 1, and 19 of the 30 players are the same (bridgekam's 2015-10-15 and
/// 2015-10-22 regulars), but the deals and so the results differ. Both are kept.
#[test]
fn two_sessions_of_one_day_with_the_same_players_stay_two_competitions() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let afternoon = bridgekam("bridgekam_2015-10-15.pbn");
    let evening = dir.path().join("evening.pbn");
    std::fs::write(
        &evening,
        latin1_replace(
            &bridgekam("bridgekam_2015-10-22.pbn"),
            &[
                ("content=\"2015-10-22\">", "content=\"2015-10-15\">"),
                ("content=\"286\">", "content=\"283\">"),
            ],
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("fed");
    let stdout = ok(&import(&[&afternoon, &evening], &out, &[]));
    assert!(
        stdout.contains("2 files: 2 imported, 0 corrections"),
        "{stdout}"
    );
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dataset.competitions.len(), 2);
}

/// A file's text (ISO-8859-1, byte for character) with each `(from, to)` replaced.
fn latin1_replace(file: &Path, replacements: &[(&str, &str)]) -> Vec<u8> {
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{e}"));
    let mut text: String = bytes.iter().map(|&b| char::from(b)).collect();
    for (from, to) in replacements {
        assert!(text.contains(from), "{}: no {from}", file.display());
        text = text.replace(from, to);
    }
    text.chars().map(|c| c as u32 as u8).collect()
}

/// A register spelt the way a federation's register spells names: turned round
/// (`Surname, Given`), in capitals, with full stops removed or added after initials,
/// hyphens as spaces. Each number's name is the one of its latest file.
fn register_spelling(id: i64, name: &str) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    match id % 4 {
        0 => name.replace('.', ""),
        1 => name.to_uppercase().replace('-', " "),
        2 => match words.split_last() {
            Some((last, given)) if !given.is_empty() => format!("{last}, {}", given.join(" ")),
            _ => name.to_string(),
        },
        _ => words
            .iter()
            .map(|w| {
                if w.chars().count() == 1 {
                    format!("{w}.")
                } else {
                    w.to_lowercase()
                }
            })
            .collect::<Vec<_>>()
            .join("  "),
    }
}

/// Every Spiren BK session of 2015-2016 with a register built from the files' own names
/// and numbers, spelt as a register would: no number becomes a non-member, and every
/// `name_differs` line is a real difference of name. The counts per status are printed
/// (`cargo test --test import spiren -- --nocapture`).
#[test]
fn with_a_register_of_the_files_own_names_no_member_is_lost() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let folder = realdata().join("pbn-spiren");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pbn"))
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 61);
    // Number -> (date, name) of its latest printing.
    let mut latest: BTreeMap<i64, (chrono::NaiveDate, String)> = BTreeMap::new();
    for path in &paths {
        let Ok((imported, _)) = bridgehcp::import::batch::read_checked(path, None) else {
            continue;
        };
        let d = &imported.dataset;
        let Some(date) = d.competitions.first().map(|c| c.date) else {
            continue;
        };
        for entrant in &d.entrants {
            for (id, name) in entrant.players.iter().zip(&entrant.names) {
                if let (Some(id), Some(name)) = (id, name) {
                    let slot = latest.entry(*id).or_insert((date, name.clone()));
                    if date >= slot.0 {
                        *slot = (date, name.clone());
                    }
                }
            }
        }
    }
    assert!(latest.len() > 100, "{} numbers", latest.len());
    let mut csv = String::from("member_id,name\n");
    for (id, (_, name)) in &latest {
        csv.push_str(&format!("{id},\"{}\"\n", register_spelling(*id, name)));
    }
    let register = dir.path().join("register.csv");
    std::fs::write(&register, csv).unwrap_or_else(|e| panic!("{e}"));

    let out = dir.path().join("fed");
    let output = import(
        &[&folder],
        &out,
        &[
            "--members",
            register.to_str().unwrap_or_default(),
            "--keep-going",
        ],
    );
    let stdout = ok(&output);
    let report = text(&std::fs::read(out.join("import-report.csv")).unwrap_or_default());
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for line in report.lines().skip(1) {
        let status = line.split(',').nth(1).unwrap_or_default().to_string();
        *counts.entry(status).or_default() += 1;
    }
    println!("{stdout}counts per status over pbn-spiren/: {counts:?}");
    for line in report.lines().filter(|l| !l.contains(",imported,")) {
        println!("{line}");
    }
    // The only non-members are the two pairs printed without names or numbers
    // (`+ - +`, 2015-11-11 pair 11 and 2015-12-09 pair 14): no numbered player is one.
    let non_members: Vec<&str> = report
        .lines()
        .filter(|l| l.contains(",non_member,"))
        .collect();
    assert_eq!(non_members.len(), 2, "{report}");
    for line in &non_members {
        assert!(line.contains("printed without names or numbers"), "{line}");
    }
    assert!(
        counts.get("imported").is_some_and(|&n| n > 50),
        "{counts:?}"
    );

    // Every number of every imported session is a member with the register's name.
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    let members: BTreeMap<i64, Option<&str>> = dataset
        .members
        .iter()
        .map(|m| (m.member_id, m.name.as_deref()))
        .collect();
    let printed: std::collections::BTreeSet<i64> = dataset
        .entrants
        .iter()
        .flat_map(|e| e.players.iter().flatten().copied())
        .collect();
    assert!(!printed.is_empty());
    // Printed `Harry O. Kinn` and `Harry O Kinn`; one of them is the register's.
    assert!(printed.contains(&9866) && members.contains_key(&9866));
    for id in &printed {
        let expected = latest.get(id).map(|(_, name)| register_spelling(*id, name));
        assert_eq!(
            members.get(id).copied().flatten(),
            expected.as_deref(),
            "number {id}"
        );
    }
    // A name_differs line names two spellings that are not the same person's.
    for line in report.lines().filter(|l| l.contains(",name_differs,")) {
        assert!(line.contains("in the register but"), "{line}");
    }
}

/// A mistyped folder is a usage error before anything is written: before, it added a
/// refused batch to the log (and the month's report listed "2018-13 refused"), and
/// with a new `--out` created a folder holding only a log.
#[test]
fn a_path_that_does_not_exist_is_a_usage_error_and_writes_nothing() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fed");
    ok(&import(
        &[&bridgekam("bridgekam_2015-09-10.pbn")],
        &out,
        &[],
    ));
    let before = files(&out);
    let typo = dir.path().join("incoming/2018-13/");
    let output = import(&[&typo], &out, &[]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: invalid value '{}' for '<FILE>...': no such file or folder (nothing was written)",
            typo.display()
        )),
        "{stderr}"
    );
    assert!(files(&out) == before, "the dataset folder changed");
    let new = dir.path().join("new");
    assert_eq!(import(&[&typo], &new, &[]).status.code(), Some(2));
    assert!(!new.exists());
    // So is a register that does not exist.
    let output = import(
        &[&bridgekam("bridgekam_2015-09-17.pbn")],
        &out,
        &["--members", "no-register.csv"],
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(files(&out) == before, "the dataset folder changed");
}

/// The import log is rebuilt from whichever of its two files survives: before, with
/// `import_log.parquet` deleted, the next import wrote its batch as batch 1 over
/// `import_log.csv`, and the earlier batches were gone.
#[test]
fn the_import_log_is_rebuilt_from_the_file_that_survives() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c");
    let files = [
        bridgekam("bridgekam_2015-09-10.pbn"),
        bridgekam("bridgekam_2015-09-17.pbn"),
        bridgekam("bridgekam_2015-09-24.pbn"),
    ];
    ok(&import(&[&files[0]], &out, &[]));
    ok(&import(&[&files[1]], &out, &[]));
    let csv = std::fs::read_to_string(out.join("import_log.csv")).unwrap();
    std::fs::remove_file(out.join("import_log.parquet")).unwrap();
    let output = import(&[&files[2]], &out, &[]);
    ok(&output);
    assert!(
        text(&output.stderr).contains(&format!(
            "import log: {} is missing; rebuilt from {} (2 lines, batches 1 to 2)",
            out.join("import_log.parquet").display(),
            out.join("import_log.csv").display()
        )),
        "{}",
        text(&output.stderr)
    );
    let after = std::fs::read_to_string(out.join("import_log.csv")).unwrap();
    assert!(
        after.starts_with(&csv),
        "earlier batches rewritten:\n{after}"
    );
    assert_eq!(after.lines().count(), 4, "{after}");
    let batches: Vec<i64> = bridgehcp::store::import_log::read(&out)
        .unwrap()
        .iter()
        .map(|r| r.batch)
        .collect();
    assert_eq!(batches, [1, 2, 3]);

    // The CSV deleted instead: the Parquet file is the log, and the CSV comes back.
    std::fs::remove_file(out.join("import_log.csv")).unwrap();
    ok(&import(&[&files[2]], &out, &[]));
    let again = std::fs::read_to_string(out.join("import_log.csv")).unwrap();
    assert!(again.starts_with(&after), "{again}");

    // Both deleted: nothing is left to rebuild from, and the import says so.
    std::fs::remove_file(out.join("import_log.csv")).unwrap();
    std::fs::remove_file(out.join("import_log.parquet")).unwrap();
    let output = import(&[&files[2]], &out, &[]);
    ok(&output);
    assert!(
        text(&output.stderr).contains(&format!(
            "import log: {} holds a dataset but neither import_log.parquet nor import_log.csv: a new log starts at batch 1",
            out.display()
        )),
        "{}",
        text(&output.stderr)
    );
}

/// A log that cannot be read stops the import before the dataset changes: before, with
/// `import_log.parquet` cut to 300 bytes, the dataset took the file, the import failed,
/// and importing again said `unchanged`, so the batch never reached the log.
#[test]
fn an_unreadable_import_log_stops_the_import_before_anything_changes() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c");
    ok(&import(
        &[&bridgekam("bridgekam_2015-09-10.pbn")],
        &out,
        &[],
    ));
    let log = out.join("import_log.parquet");
    let bytes = std::fs::read(&log).unwrap();
    std::fs::write(&log, &bytes[..300]).unwrap();
    std::fs::remove_file(out.join("import_log.csv")).unwrap();
    let before = files(&out);
    let second = bridgekam("bridgekam_2015-09-17.pbn");
    let output = import(&[&second], &out, &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "the import log cannot be read: {} cannot be read ({}: the file is cut short: it begins as a Parquet table but its 300 bytes do not end with the footer a complete one ends with (`PAR1`); it was written or copied only in part: write or copy it again), and {} is missing; the log keeps every import's lines and is not started again from nothing: restore either file (from a backup), or move both aside to start a new log. Nothing was imported",
            log.display(),
            log.display(),
            out.join("import_log.csv").display()
        )),
        "{stderr}"
    );
    assert!(files(&out) == before, "the dataset folder changed");
    // Mended, the import takes the file, and the log has both batches.
    std::fs::write(&log, &bytes).unwrap();
    let output = import(&[&second], &out, &[]);
    ok(&output);
    let rows = bridgehcp::store::import_log::read(&out).unwrap();
    let kept: Vec<(i64, &str)> = rows.iter().map(|r| (r.batch, r.status.as_str())).collect();
    assert_eq!(kept, [(1, "imported"), (2, "imported")]);
}
/// A file given twice and a renamed copy of it: every file given has its line in
/// `import-report.csv`, and the summary's counts add up to the files given.
#[test]
fn every_file_given_has_its_line_and_the_counts_add_up() {
    if no_realdata() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let a = dir.path().join("A.pbn");
    let renamed = dir.path().join("renamed.pbn");
    std::fs::copy(bridgekam("bridgekam_2015-09-24.pbn"), &a).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(&a, &renamed).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("fed");
    let stdout = ok(&import(&[&a, &a, &renamed], &out, &[]));
    assert!(
        stdout
            .contains("3 files: 1 imported, 0 corrections, 0 unchanged, 2 duplicates, 0 refused;"),
        "{stdout}"
    );
    let report =
        std::fs::read_to_string(out.join("import-report.csv")).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<(String, String)> = report
        .lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<&str> = l.splitn(3, ',').collect();
            (
                Path::new(cells[0])
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                cells[1].to_string(),
            )
        })
        .filter(|(_, status)| {
            matches!(
                status.as_str(),
                "imported" | "correction" | "unchanged" | "duplicate" | "refused"
            )
        })
        .collect();
    let line = |file: &str, status: &str| (file.to_string(), status.to_string());
    assert_eq!(
        lines,
        [
            line("A.pbn", "imported"),
            line("renamed.pbn", "duplicate"),
            line("A.pbn", "duplicate"),
        ],
        "{report}"
    );
    assert!(
        report.contains("the file is given more than once: read once"),
        "{report}"
    );
}
