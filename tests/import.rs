//! `bridgehcp import` on batches of real club exports (read in place from
//! `shared/realdata`) and on small broken files written here: every file read, refusals
//! listed, month partitions appended, unchanged, duplicate and corrected competitions
//! recognised.

mod common;
use common::realdata;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bridgehcp::import::table::read_dataset;

fn bridgekam(name: &str) -> PathBuf {
    realdata().join("pbn-bridgekam").join(name)
}

fn import(args: &[&Path], out: &Path, extra: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bridgehcp"));
    command.arg("import").arg("auto");
    command.args(args).arg("--out").arg(out).args(extra);
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot start bridgehcp: {e}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

fn ok(output: &Output) -> String {
    assert!(
        output.status.success(),
        "import failed\nstdout:\n{}\nstderr:\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
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
    assert_eq!(written, ["import-report.csv"], "only the report");
    let report = text(&std::fs::read(out.join("import-report.csv")).unwrap_or_default());
    assert!(
        report.contains(&format!(
            "{},refused,,14,1,Result,14 tricks: there are 13 tricks in a deal",
            bad.display()
        )),
        "{report}"
    );

    let stdout = ok(&import(&[&good, &bad, &compscore], &out, &["--keep-going"]));
    assert!(
        stdout.contains("3 files: 2 imported, 0 corrections, 0 unchanged, 0 duplicates, 1 refused"),
        "{stdout}"
    );
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dataset.competitions.len(), 2);
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
            .filter(|(k, _)| k.ends_with(".parquet"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<BTreeMap<_, _>>()
    };
    assert_eq!(
        parquet(&a).len(),
        1 + 3 * 6,
        "members and 3 tables x 6 months"
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
}

/// The same session exported under another header is imported once; the same
/// competition with other results replaces the earlier version.
#[test]
fn duplicates_under_another_header_and_corrections() {
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

/// `--members`: numbers outside the register, or with another name there, are reported
/// and imported as non-members; the pair keeps its printed names and is still rated
/// as a pair of non-members by the run.
#[test]
fn the_register_decides_who_is_a_member() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let register = dir.path().join("register.csv");
    std::fs::write(
        &register,
        "member_id,name\n33860,Sissel Grebstad\n18367,Rolf Andreas Mørck\n1198,Harry Løkken\n\
         150,KNUT  skinnemoen\n17936,Someone Else\n",
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
            "non_member: {}, line 66: number 17936 is `Someone Else` in the register but \
             `Fredd Kristiansen` in the file: imported as a non-member",
            file.display()
        )),
        "{stderr}"
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
        [150, 1198, 18367, 33860],
        "only registered numbers"
    );
    let knut = dataset.members.iter().find(|m| m.member_id == 150);
    assert_eq!(
        knut.and_then(|m| m.name.as_deref()),
        Some("KNUT  skinnemoen")
    );
    let three = dataset
        .entrants
        .iter()
        .find(|e| e.entrant == "1")
        .expect("pair 1");
    assert_eq!(three.players, [None, None, None, None]);
    assert_eq!(
        three.names[..2],
        [
            Some("Tommy Sandsmark".to_string()),
            Some("Fredd Kristiansen".to_string())
        ]
    );

    // The run takes pairs without numbers as non-members.
    output = Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .args(["run", "--quiet", "--data"])
        .arg(&out)
        .arg("--out")
        .arg(dir.path().join("run"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    ok(&output);
}

/// Without a register, a number printed with another name than the dataset's is
/// reported, and the first name is kept.
#[test]
fn without_a_register_conflicting_names_are_reported() {
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
    let out = dir.path().join("fed");
    let output = import(&[&first, &second], &out, &[]);
    ok(&output);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "name_conflict: {}, line 9: number 11 is `Anne` here but `A` in {}: kept as `A`",
            second.display(),
            first.display()
        )),
        "{stderr}"
    );
    let dataset = read_dataset(&out).unwrap_or_else(|e| panic!("{e}"));
    let eleven = dataset.members.iter().find(|m| m.member_id == 11);
    assert_eq!(eleven.and_then(|m| m.name.as_deref()), Some("A"));
}
