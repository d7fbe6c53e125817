//! Each bad-input rule, as a run meets it: a competition that breaks it is left out whole
//! and listed (or, with `--strict`, stops the run naming file, row, column and rule),
//! and an error that belongs to no one competition stops the run either way.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use std::path::Path;

use bridgehcp::pipeline::{self, RunOutput, RunSettings};
use bridgehcp::quarantine::{OnError, Quarantined};
use bridgehcp::store::table::read_dataset_checked;

const MEMBERS: &str = "member_id,name,masterpoints,start_handicap
1,Ann,10,
2,Bo,20,
3,Cy,0,
4,Di,5,
5,Ed,50,
6,Fa,100,
7,Gu,30,
8,Ha,300,
9,Ia,10,
10,Jo,10,
";
const COMPETITIONS: &str = "competition_id,date,format,scoring,boards
c1,2026-01-05,pairs,matchpoints,4
c2,2026-01-12,pairs,matchpoints,2
c3,2026-01-19,teams,butler,2
";
const ENTRANTS: &str = "competition_id,entrant,player1,player2,team,direction
c1,1,1,2,,
c1,2,3,4,,
c2,1,1,2,,
c2,2,3,4,,
c2,3,5,6,,
c2,4,7,8,,
c3,A1,1,2,A,NS
c3,A2,3,4,A,EW
c3,B1,5,6,B,EW
c3,B2,7,8,B,NS
";
const RESULTS: &str = "competition_id,entrant,boards_played,score
c1,1,4,55
c1,2,4,45
";
const BOARDS: &str = "competition_id,board,ns,ew,contract,declarer,tricks,ns_score,adjusted
c2,1,1,2,3NT,S,9,400,
c2,1,3,4,4S,N,10,420,
c2,2,1,2,2H,E,8,-110,
c2,2,3,4,PASS,,,0,
c3,1,A1,B1,3NT,S,9,400,
c3,1,B2,A2,4S,N,10,420,
c3,2,A1,B1,2H,E,8,-110,
c3,2,B2,A2,PASS,,,0,
";

/// A change to one table's CSV text: `from` replaced by `to` once, or with `from` empty,
/// `to` appended.
struct Edit {
    table: &'static str,
    from: &'static str,
    to: &'static str,
}

fn edit(table: &'static str, from: &'static str, to: &'static str) -> Edit {
    Edit { table, from, to }
}

fn dataset(dir: &Path, edits: &[Edit]) {
    for (name, text) in [
        ("members", MEMBERS),
        ("competitions", COMPETITIONS),
        ("entrants", ENTRANTS),
        ("results", RESULTS),
        ("boards", BOARDS),
    ] {
        let mut text = text.to_string();
        for e in edits.iter().filter(|e| e.table == name) {
            if e.from.is_empty() {
                text.push_str(e.to);
            } else {
                assert!(text.contains(e.from), "`{}` not in {name}", e.from);
                text = text.replacen(e.from, e.to, 1);
            }
        }
        std::fs::write(dir.join(format!("{name}.csv")), text).expect("write");
    }
}

fn run(dir: &Path, on_error: OnError) -> Result<RunOutput, String> {
    let checked = read_dataset_checked(dir, on_error).map_err(|e| e.to_string())?;
    let settings = RunSettings {
        on_error,
        ..RunSettings::default()
    };
    let dataset = &checked.dataset;
    let mut boards = pipeline::InMemory {
        boards: &dataset.boards,
        quarantine: checked.quarantine,
    };
    let rows = pipeline::EntrantRows::of(dataset);
    let progress = &pipeline::NoProgress;
    pipeline::run_source(dataset, rows, &mut boards, &settings, None, progress)
        .map_err(|e| e.to_string())
}

/// The competitions a run applied (rated and not left out), by id.
fn applied(output: &RunOutput) -> Vec<String> {
    let failed: Vec<usize> = output.replay.failed.iter().map(|f| f.competition).collect();
    output
        .prepared
        .competitions
        .iter()
        .enumerate()
        .filter(|(i, _)| !failed.contains(i))
        .map(|(_, c)| c.competition_id.clone())
        .collect()
}

#[test]
fn the_base_dataset_applies_every_competition() {
    let dir = tempfile::tempdir().expect("temp");
    dataset(dir.path(), &[]);
    let output = run(dir.path(), OnError::Quarantine).unwrap_or_else(|e| panic!("{e}"));
    assert!(output.quarantined.is_empty(), "{:?}", output.quarantined);
    assert_eq!(applied(&output), ["c1", "c2", "c3"]);
}

/// Where the rule is found and what it says.
struct Expect {
    competition: &'static str,
    file: &'static str,
    column: &'static str,
    rule: &'static str,
}

/// The edits quarantine exactly `expect.competition`, with a reason at the expected
/// file and column; nothing of it reaches the outputs, the other competitions are
/// applied; and `--strict` stops at the same rule.
#[track_caller]
fn quarantines(edits: &[Edit], expect: Expect) {
    let dir = tempfile::tempdir().expect("temp");
    dataset(dir.path(), edits);
    let output = run(dir.path(), OnError::Quarantine).unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<&str> = output
        .quarantined
        .iter()
        .map(|q| q.competition_id.as_str())
        .collect();
    assert_eq!(ids, [expect.competition], "{:?}", output.quarantined);
    let listed: &Quarantined = &output.quarantined[0];
    let reason = listed
        .reasons
        .iter()
        .find(|r| r.rule.contains(expect.rule))
        .unwrap_or_else(|| panic!("no reason `{}` in {:?}", expect.rule, listed.reasons));
    let file = reason.location.file.as_deref().and_then(Path::file_name);
    assert_eq!(file.and_then(|f| f.to_str()), Some(expect.file), "{reason}");
    assert_eq!(
        reason.location.column.as_deref(),
        Some(expect.column),
        "{reason}"
    );
    assert_eq!(output.summary.competitions_quarantined, 1);
    let others: Vec<&str> = ["c1", "c2", "c3"]
        .into_iter()
        .filter(|c| *c != expect.competition)
        .collect();
    assert_eq!(
        applied(&output),
        others,
        "the other competitions are applied"
    );
    assert!(!output
        .prepared
        .standings
        .iter()
        .any(|s| s.competition_id == expect.competition));
    assert!(matches!(
        output
            .prepared
            .board_scores
            .competitions()
            .map(|ids| ids.contains(&expect.competition)),
        Ok(false)
    ));
    assert!(!output.replay.changes.iter().any(|c| {
        output.prepared.competitions[c.competition].competition_id == expect.competition
    }));

    let strict = run(dir.path(), OnError::Strict).err().unwrap_or_default();
    assert!(
        strict.contains(expect.file)
            && strict.contains(&format!("column `{}`", expect.column))
            && strict.contains(expect.rule),
        "--strict gave: {strict}"
    );
}

/// The edits stop the run even without `--strict`, naming the file and rule.
#[track_caller]
fn stops(edits: &[Edit], file: &str, rule: &str) {
    let dir = tempfile::tempdir().expect("temp");
    dataset(dir.path(), edits);
    let error = run(dir.path(), OnError::Quarantine)
        .err()
        .unwrap_or_default();
    assert!(
        error.contains(file) && error.contains(rule),
        "expected `{file}` and `{rule}`, got: {error}"
    );
}

#[test]
fn a_missing_column_stops_the_run() {
    stops(
        &[edit(
            "results",
            "boards_played,score",
            "boards_played,points",
        )],
        "results.csv",
        "the required column `score` is missing",
    );
}

#[test]
fn a_column_of_the_wrong_type_stops_the_run() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().expect("temp");
    dataset(dir.path(), &[]);
    std::fs::remove_file(dir.path().join("results.csv")).expect("remove");
    let mut frame = df!(
        "competition_id" => ["c1", "c1"],
        "entrant" => ["1", "2"],
        "boards_played" => [4i32, 4],
        "score" => ["55", "45"],
    )
    .expect("frame");
    let file = std::fs::File::create(dir.path().join("results.parquet")).expect("create");
    ParquetWriter::new(file).finish(&mut frame).expect("write");
    let error = run(dir.path(), OnError::Quarantine)
        .err()
        .unwrap_or_default();
    assert!(
        error.contains("results.parquet")
            && error.contains("column `score` holds text, but it must hold one float64 per row"),
        "{error}"
    );
}

#[test]
fn an_unreadable_number_nan_or_infinity_quarantines() {
    for (to, rule) in [
        ("c1,1,4,sixty", "`sixty` is not a number"),
        ("c1,1,4,NaN", "`NaN` is not a finite number"),
        ("c1,1,4,inf", "`inf` is not a finite number"),
    ] {
        quarantines(
            &[edit("results", "c1,1,4,55", to)],
            Expect {
                competition: "c1",
                file: "results.csv",
                column: "score",
                rule,
            },
        );
    }
}

#[test]
fn an_unparseable_date_quarantines() {
    quarantines(
        &[edit("competitions", "c2,2026-01-12", "c2,2026-13-01")],
        Expect {
            competition: "c2",
            file: "competitions.csv",
            column: "date",
            rule: "unparseable date `2026-13-01` (expected YYYY-MM-DD)",
        },
    );
}

#[test]
fn an_unknown_format_or_scoring_quarantines() {
    quarantines(
        &[edit(
            "competitions",
            "c2,2026-01-12,pairs",
            "c2,2026-01-12,pair",
        )],
        Expect {
            competition: "c2",
            file: "competitions.csv",
            column: "format",
            rule: "unknown format `pair`",
        },
    );
    quarantines(
        &[edit(
            "competitions",
            "pairs,matchpoints,2",
            "pairs,topscore,2",
        )],
        Expect {
            competition: "c2",
            file: "competitions.csv",
            column: "scoring",
            rule: "unknown scoring `topscore`",
        },
    );
}

#[test]
fn an_unknown_member_kind_stops_the_run() {
    stops(
        &[
            edit("members", "start_handicap\n", "start_handicap,kind\n"),
            edit("members", "1,Ann,10,\n", "1,Ann,10,,guest\n"),
        ],
        "members.csv",
        "unknown member kind `guest`",
    );
}

#[test]
fn a_duplicate_competition_id_quarantines_both_rows() {
    quarantines(
        &[edit(
            "competitions",
            "",
            "c2,2026-01-26,pairs,matchpoints,2\n",
        )],
        Expect {
            competition: "c2",
            file: "competitions.csv",
            column: "competition_id",
            rule: "competition_id `c2` appears twice, first (row 2)",
        },
    );
}

#[test]
fn a_duplicate_member_id_stops_the_run() {
    stops(
        &[edit("members", "", "1,Again,0,\n")],
        "members.csv",
        "member_id 1 appears twice, first (row 1)",
    );
}

#[test]
fn a_player_twice_or_an_entrant_without_players_quarantines() {
    quarantines(
        &[edit("entrants", "c2,1,1,2,,", "c2,1,1,1,,")],
        Expect {
            competition: "c2",
            file: "entrants.csv",
            column: "player2",
            rule: "player 1 appears twice in competition `c2`",
        },
    );
    quarantines(
        &[edit("entrants", "c2,4,7,8,,", "c2,4,,,,")],
        Expect {
            competition: "c2",
            file: "entrants.csv",
            column: "player1",
            rule: "an entrant needs at least one player",
        },
    );
}

#[test]
fn a_result_for_an_unknown_entrant_quarantines() {
    quarantines(
        &[edit("results", "c1,2,4,45", "c1,9,4,45")],
        Expect {
            competition: "c1",
            file: "results.csv",
            column: "entrant",
            rule: "no entrant `9` in competition `c1`",
        },
    );
}

#[test]
fn fewer_than_two_boards_or_more_played_than_there_are_quarantines() {
    quarantines(
        &[edit(
            "competitions",
            "pairs,matchpoints,2",
            "pairs,matchpoints,1",
        )],
        Expect {
            competition: "c2",
            file: "competitions.csv",
            column: "boards",
            rule: "a rated competition needs at least 2 boards, found 1",
        },
    );
    quarantines(
        &[edit("results", "c1,1,4,55", "c1,1,500,55")],
        Expect {
            competition: "c1",
            file: "results.csv",
            column: "boards_played",
            rule: "boards_played 500 is more than the competition's 4 boards",
        },
    );
}

#[test]
fn a_percentage_outside_0_to_100_quarantines() {
    quarantines(
        &[edit("results", "c1,1,4,55", "c1,1,4,155")],
        Expect {
            competition: "c1",
            file: "results.csv",
            column: "score",
            rule: "a matchpoint score is a percentage between 0 and 100, found 155",
        },
    );
}

#[test]
fn tricks_outside_0_to_13_quarantine() {
    quarantines(
        &[edit("boards", "3NT,S,9,400", "3NT,S,14,400")],
        Expect {
            competition: "c2",
            file: "boards.csv",
            column: "tricks",
            rule: "tricks must be between 0 and 13, found 14",
        },
    );
}

#[test]
fn a_contract_that_does_not_parse_or_disagrees_with_ns_score_quarantines() {
    quarantines(
        &[edit(
            "boards",
            "c2,1,1,2,3NT,S,9,400",
            "c2,1,1,2,8NT,S,9,400",
        )],
        Expect {
            competition: "c2",
            file: "boards.csv",
            column: "contract",
            rule: "8NT",
        },
    );
    quarantines(
        &[edit("boards", "c2,1,1,2,3NT,S,9,400", "c2,1,1,2,3NT,S,9,430")],
        Expect {
            competition: "c2",
            file: "boards.csv",
            column: "ns_score",
            rule: "ns_score 430 does not match contract `3NT` by S with 9 tricks, which scores 400 for N/S",
        },
    );
}

#[test]
fn an_unknown_artificial_score_code_quarantines() {
    quarantines(
        &[edit("boards", "c2,2,3,4,PASS,,,0,", "c2,2,3,4,,,,,A99")],
        Expect {
            competition: "c2",
            file: "boards.csv",
            column: "adjusted",
            rule: "A99",
        },
    );
}

#[test]
fn a_start_handicap_above_the_cap_or_negative_masterpoints_stop_the_run() {
    stops(
        &[edit("members", "2,Bo,20,", "2,Bo,20,60")],
        "members.csv",
        "start_handicap must be between -52 and the factor set's cap 52, found 60",
    );
    stops(
        &[edit("members", "2,Bo,20,", "2,Bo,-5,")],
        "members.csv",
        "masterpoints must not be negative, found -5",
    );
}

#[test]
fn a_pair_that_met_two_opponents_in_a_team_match_quarantines() {
    quarantines(
        &[
            edit("entrants", "", "c3,B3,9,10,B,EW\n"),
            edit("boards", "c3,2,A1,B1", "c3,2,A1,B3"),
        ],
        Expect {
            competition: "c3",
            file: "boards.csv",
            column: "ew",
            rule: "pair `A1` meets `B3` here but met `B1` on board 1",
        },
    );
}

#[test]
fn a_format_the_model_cannot_rate_quarantines() {
    quarantines(
        &[edit(
            "competitions",
            "c1,2026-01-05,pairs,matchpoints",
            "c1,2026-01-05,pairs,team_imps",
        )],
        Expect {
            competition: "c1",
            file: "competitions.csv",
            column: "scoring",
            rule: "scoring `team_imps` needs format `teams`, not `pairs`",
        },
    );
}

/// A Mitchell whose E/W line has one pair: the model cannot rate a line of one, so the
/// session is left out, by the replay, with the model's rule.
#[test]
fn a_mitchell_line_of_one_pair_quarantines() {
    let dir = tempfile::tempdir().expect("temp");
    dataset(
        dir.path(),
        &[
            edit("competitions", "", "c4,2026-01-26,pairs,matchpoints,4\n"),
            edit(
                "entrants",
                "",
                "c4,1,1,2,,NS\nc4,2,3,4,,NS\nc4,3,5,6,,NS\nc4,4,7,8,,EW\n",
            ),
            edit(
                "results",
                "",
                "c4,1,4,55\nc4,2,4,45\nc4,3,4,50\nc4,4,4,50\n",
            ),
        ],
    );
    let output = run(dir.path(), OnError::Quarantine).unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<&str> = output
        .quarantined
        .iter()
        .map(|q| q.competition_id.as_str())
        .collect();
    assert_eq!(ids, ["c4"]);
    let reason = &output.quarantined[0].reasons[0];
    assert!(
        reason
            .rule
            .contains("a rated competition needs at least 2 entrants, found 1"),
        "{reason}"
    );
    assert_eq!(applied(&output), ["c1", "c2", "c3"]);
    assert!(!output
        .prepared
        .standings
        .iter()
        .any(|s| s.competition_id == "c4"));
    let strict = run(dir.path(), OnError::Strict).err().unwrap_or_default();
    assert!(
        strict.contains("competition `c4`") && strict.contains("at least 2 entrants"),
        "{strict}"
    );
}

/// A row naming a competition that is not listed is quarantined under that id; the
/// listed competitions are applied.
#[test]
fn rows_of_an_unlisted_competition_quarantine_that_id() {
    let dir = tempfile::tempdir().expect("temp");
    dataset(dir.path(), &[edit("results", "", "c9,1,4,50\nc9,2,4,50\n")]);
    let output = run(dir.path(), OnError::Quarantine).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.quarantined.len(), 1);
    assert_eq!(output.quarantined[0].competition_id, "c9");
    assert_eq!(output.quarantined[0].date, None);
    assert_eq!(
        output.quarantined[0].reasons.len(),
        1,
        "one reason, not one per row"
    );
    assert!(output.quarantined[0].reasons[0]
        .rule
        .contains("unknown competition `c9`"));
    assert_eq!(applied(&output), ["c1", "c2", "c3"]);
}

/// Every reason of a competition is listed, not only the first.
#[test]
fn every_reason_of_a_competition_is_listed() {
    let dir = tempfile::tempdir().expect("temp");
    dataset(
        dir.path(),
        &[
            edit("boards", "3NT,S,9,400", "3NT,S,14,400"),
            edit("boards", "c2,2,1,2,2H,E,8", "c2,2,1,2,2H,Q,8"),
        ],
    );
    let output = run(dir.path(), OnError::Quarantine).unwrap_or_else(|e| panic!("{e}"));
    let rules: Vec<(Option<usize>, Option<&str>)> = output.quarantined[0]
        .reasons
        .iter()
        .map(|r| (r.location.row, r.location.column.as_deref()))
        .collect();
    assert_eq!(
        rules,
        [(Some(1), Some("tricks")), (Some(3), Some("declarer"))]
    );
}

/// Seed 003 on victory points from a dataset: `competitions.vp_scale` names a CSV in the
/// dataset folder (`imps,winner,loser`, where 3 IMPs give 10 and 4), or a scale of
/// `data/vp/` by name. Four pairs lose a round by 3 IMPs: pairs 1 and 2 take 10 VPs,
/// pairs 3 and 4 take 4, and the standings go by VPs. A scale that breaks the form, or
/// one on a matchpoint competition, quarantines its competition, naming the rule.
#[test]
fn four_pairs_on_a_vp_scale_named_by_the_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("members.csv"), MEMBERS).unwrap();
    std::fs::write(
        d.join("competitions.csv"),
        "competition_id,date,format,scoring,boards,vp_scale\n\
         v1,2026-01-05,pairs,team_imps,2,scales/seed003.csv\n\
         v2,2026-01-12,pairs,team_imps,2,abf_swiss_pairs_8_boards\n\
         v3,2026-01-19,pairs,team_imps,2,scales/broken.csv\n\
         v4,2026-01-26,pairs,matchpoints,2,scales/seed003.csv\n",
    )
    .unwrap();
    std::fs::create_dir(d.join("scales")).unwrap();
    std::fs::write(
        d.join("scales/seed003.csv"),
        "imps,winner,loser\n0,7,7\n1,8,6\n2,9,5\n3,10,4\n",
    )
    .unwrap();
    std::fs::write(
        d.join("scales/broken.csv"),
        "imps,winner,loser\n0,7,7\n2,9,5\n",
    )
    .unwrap();
    let mut entrants = String::from("competition_id,entrant,player1,player2\n");
    let mut boards = String::from("competition_id,board,round,ns,ew,contract,declarer,tricks\n");
    for id in ["v1", "v2", "v3", "v4"] {
        for (pair, a, b) in [(1, 1, 2), (2, 3, 4), (3, 5, 6), (4, 7, 8)] {
            entrants += &format!("{id},{pair},{a},{b}\n");
        }
        // Table 1: 3 N/S v 1 E/W, 4S by E one down, +50; table 2: 2 N/S v 4 E/W, 3S by
        // N made, +140. Board 2 is passed out at both: 90 on board 1 is 3 IMPs to pairs 1
        // and 2.
        boards += &format!(
            "{id},1,1,3,1,4S,E,9\n{id},1,1,2,4,3S,N,9\n{id},2,1,3,1,PASS,,\n{id},2,1,2,4,PASS,,\n"
        );
    }
    std::fs::write(d.join("entrants.csv"), entrants).unwrap();
    std::fs::write(d.join("boards.csv"), boards).unwrap();

    let checked = read_dataset_checked(d, OnError::Quarantine).unwrap();
    let left_out: Vec<(&str, &str)> = checked
        .quarantine
        .iter()
        .map(|q| (q.competition_id.as_str(), q.reasons[0].rule.as_str()))
        .collect();
    assert_eq!(left_out.len(), 2, "{left_out:?}");
    assert_eq!(left_out[0].0, "v3");
    assert!(
        left_out[0]
            .1
            .contains("the rows give every IMP margin from 0 up, so this one is 1"),
        "{}",
        left_out[0].1
    );
    assert_eq!(left_out[1].0, "v4");
    assert!(
        left_out[1].1.contains("four- or five-pair event"),
        "{}",
        left_out[1].1
    );

    let dataset = &checked.dataset;
    let scored = |id: &str| {
        let competition = dataset
            .competitions
            .iter()
            .find(|c| c.competition_id == id)
            .unwrap();
        bridgehcp::scoring::score_competition(competition, &dataset.entrants, &dataset.boards)
            .unwrap()
    };
    let seed = scored("v1");
    let vps: Vec<(String, Option<f64>, f64, u32)> = seed
        .standings
        .iter()
        .map(|s| (s.entrant.clone(), s.vp, s.score, s.rank))
        .collect();
    assert_eq!(
        vps,
        [
            ("1".to_string(), Some(10.0), 3.0, 1),
            ("2".to_string(), Some(10.0), 3.0, 1),
            ("3".to_string(), Some(4.0), 0.0, 3),
            ("4".to_string(), Some(4.0), 0.0, 3),
        ]
    );
    // The ABF 8-board scale gives a 3-IMP win 11.17 and 8.83 (seed 002, table 1).
    let abf = scored("v2");
    assert_eq!(abf.standings[0].vp, Some(11.17));
    assert_eq!(abf.standings[3].vp, Some(8.83));
}
