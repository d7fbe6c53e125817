//! Inputs that used to pass in silence, or stop with a message nobody could act on:
//! each now breaks a named rule or is listed, and each test asserts the message.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, text};

use std::path::Path;
use std::process::Output;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).to_string()
}

/// A dataset of CSV tables in `dir/data`; `None` keeps the default table.
fn dataset(
    dir: &Path,
    members: Option<&str>,
    competitions: Option<&str>,
    entrants: Option<&str>,
    results: Option<&str>,
) {
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let write = |name: &str, given: Option<&str>, default: &str| {
        std::fs::write(data.join(name), given.unwrap_or(default)).unwrap();
    };
    write(
        "members.csv",
        members,
        "member_id,name,masterpoints\n1,Ann,10\n2,Bo,1\n3,Cy,0\n4,Di,5\n",
    );
    write(
        "competitions.csv",
        competitions,
        "competition_id,date,format,scoring,boards\nc1,2026-01-05,pairs,matchpoints,24\n",
    );
    write(
        "entrants.csv",
        entrants,
        "competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\n",
    );
    write(
        "results.csv",
        results,
        "competition_id,entrant,boards_played,score\nc1,1,24,55\nc1,2,24,45\n",
    );
}

fn run(dir: &Path) -> Output {
    bridgehcp(&["run", "--quiet", "--data", "data", "--out", "out"], dir)
}

/// A matchpoint field in which every pair scored 0 % is impossible (a field's
/// percentages average 50): the competition is quarantined, and as it is the only one,
/// the run exits 2 saying every competition was quarantined.
#[test]
fn an_all_zero_matchpoint_field_is_quarantined_and_a_run_with_nothing_left_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    dataset(
        dir.path(),
        None,
        None,
        None,
        Some("competition_id,entrant,boards_played,score\nc1,1,24,0\nc1,2,24,0\n"),
    );
    let output = run(dir.path());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("error: every competition (1) was quarantined, so nobody's handicap moved; the reasons are in out/quarantine.csv (exit code 2)"),
        "{message}"
    );
    let quarantine = text(&dir.path().join("out/quarantine.csv"));
    assert!(
        quarantine.contains("c1,2026-01-05,")
            && quarantine.contains("results.csv,1,score,")
            && quarantine.contains(
                "every one of the 2 entrants scored 0 %: that is impossible in a matchpoint field"
            ),
        "{quarantine}"
    );
}

/// Percentages averaging 75 % cannot be a matchpoint field; the other competition is
/// rated, so the run succeeds and lists the broken one.
#[test]
fn matchpoint_percentages_that_do_not_average_50_are_quarantined() {
    let dir = tempfile::tempdir().unwrap();
    dataset(
        dir.path(),
        None,
        Some("competition_id,date,format,scoring,boards\nc1,2026-01-05,pairs,matchpoints,24\nc2,2026-01-12,pairs,matchpoints,24\n"),
        Some("competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\nc2,1,1,2\nc2,2,3,4\n"),
        Some("competition_id,entrant,boards_played,score\nc1,1,24,55\nc1,2,24,45\nc2,1,24,80\nc2,2,24,70\n"),
    );
    let output = run(dir.path());
    assert!(output.status.success(), "{}", stderr(&output));
    let quarantine = text(&dir.path().join("out/quarantine.csv"));
    assert!(
        quarantine.contains("c2,2026-01-12,")
            && quarantine.contains("the 2 entrants' percentages average 75.00 %, but a matchpoint field's average 50 %")
            && !quarantine.contains("c1,"),
        "{quarantine}"
    );
}

/// A misspelt optional column is not ignored: the message names the column meant.
#[test]
fn a_misspelt_column_names_the_column_meant() {
    let dir = tempfile::tempdir().unwrap();
    dataset(
        dir.path(),
        Some(
            "member_id,name,masterpoints,start_handicp\n1,Ann,10,20\n2,Bo,1,30\n3,Cy,0,\n4,Di,5,\n",
        ),
        None,
        None,
        None,
    );
    let output = run(dir.path());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("data/members.csv, column `start_handicp`: `start_handicp` is not a column of `members`; did you mean `start_handicap`?"),
        "{message}"
    );
}

/// Player numbers that are not in `members` are listed with competition and entrant
/// in `non_members.csv`, and the run's summary says so.
#[test]
fn player_numbers_missing_from_members_are_listed_with_competition_and_entrant() {
    let dir = tempfile::tempdir().unwrap();
    dataset(
        dir.path(),
        None,
        None,
        Some("competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,99\n"),
        None,
    );
    let output = bridgehcp(&["run", "--data", "data", "--out", "out"], dir.path());
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("1 player numbers are not in `members` and were rated as non-members")
            && stdout.contains("out/non_members.csv"),
        "{stdout}"
    );
    assert_eq!(
        text(&dir.path().join("out/non_members.csv")),
        "member_id,name,competition_id,date,entrant,reason\n\
         99,,c1,2026-01-05,2,number 99 is not in `members`: rated as a non-member\n"
    );
}

/// Three different players printed without a number, at the same seat of three
/// evenings, were all listed as member −6 (the run's placeholder for the second
/// entrant's second player) under "the player number is not in `members`". Each now
/// has an id of their own, the same on every line of theirs (Eva Ek plays twice, once
/// spelt `EVA  EK`), their name, and a reason saying no number was printed.
#[test]
fn unnumbered_players_are_listed_by_name_with_an_id_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let days = ["2026-01-05", "2026-01-12", "2026-01-19", "2026-01-26"];
    let guests = ["Eva Ek", "Olle Ås", "Per Berg", "EVA  EK"];
    let mut competitions = String::from("competition_id,date,format,scoring,boards\n");
    let mut entrants = String::from("competition_id,entrant,player1,player2,player2_name\n");
    let mut results = String::from("competition_id,entrant,boards_played,score\n");
    for (i, (day, guest)) in days.iter().zip(guests).enumerate() {
        competitions.push_str(&format!("c{i},{day},pairs,matchpoints,24\n"));
        entrants.push_str(&format!("c{i},1,1,2,\nc{i},2,3,,{guest}\n"));
        results.push_str(&format!("c{i},1,24,55\nc{i},2,24,45\n"));
    }
    dataset(
        dir.path(),
        None,
        Some(&competitions),
        Some(&entrants),
        Some(&results),
    );
    let output = bridgehcp(&["run", "--data", "data", "--out", "out"], dir.path());
    assert!(output.status.success(), "{}", stderr(&output));
    let listed = text(&dir.path().join("out/non_members.csv"));
    let lines: Vec<Vec<&str>> = listed.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        lines[0],
        [
            "member_id",
            "name",
            "competition_id",
            "date",
            "entrant",
            "reason"
        ]
    );
    assert_eq!(lines.len(), 5, "{listed}");
    let ids: Vec<i64> = lines[1..].iter().map(|l| l[0].parse().unwrap()).collect();
    // Eva Ek (c0 and c3) once, Olle Ås and Per Berg each their own.
    assert_eq!(ids[0], ids[3], "{listed}");
    assert!(
        ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2],
        "{listed}"
    );
    assert!(ids.iter().all(|id| *id < -(1 << 32)), "{listed}");
    let names: Vec<&str> = lines[1..].iter().map(|l| l[1]).collect();
    assert_eq!(names, guests);
    assert!(
        listed.contains("printed as `Olle Ås` without a player number: rated as a non-member, listed under an id made from the name"),
        "{listed}"
    );
}

/// Board 999 in a 32-board event: the message says it is most likely mistyped.
#[test]
fn a_board_number_beyond_the_events_boards_is_called_mistyped() {
    let dir = tempfile::tempdir().unwrap();
    dataset(
        dir.path(),
        Some("member_id,name,masterpoints\n1,Ann,10\n2,Bo,1\n3,Cy,0\n4,Di,5\n5,Ed,1\n6,Fay,2\n7,Gus,3\n8,Hal,4\n"),
        Some("competition_id,date,format,scoring,boards\nc1,2026-01-05,pairs,matchpoints,32\n"),
        Some("competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\nc1,3,5,6\nc1,4,7,8\n"),
        None,
    );
    let data = dir.path().join("data");
    std::fs::remove_file(data.join("results.csv")).unwrap();
    std::fs::write(
        data.join("boards.csv"),
        "competition_id,board,ns,ew,contract,declarer,tricks,ns_score\n\
         c1,1,1,2,3NT,S,9,400\nc1,1,3,4,3NT,S,10,430\nc1,2,1,2,2S,N,8,110\nc1,2,3,4,2S,N,9,140\nc1,999,1,2,4H,S,10,620\n",
    )
    .unwrap();
    let output = run(dir.path());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let quarantine = text(&dir.path().join("out/quarantine.csv"));
    assert!(
        quarantine.contains("board 999 has only one result, so there is nothing to compare it with; the competition has 32 boards (the others are numbered 1 to 2), so board 999 is most likely a mistyped board number"),
        "{quarantine}"
    );
}

/// A Latin-1 `members.csv` names the row and the byte, and says what to do.
#[test]
fn a_latin1_members_file_names_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    dataset(dir.path(), None, None, None, None);
    std::fs::write(
        data.join("members.csv"),
        b"member_id,name,masterpoints\n1,Ann,10\n2,Bo,1\n3,\xc5sa \xd6berg,0\n4,Di,5\n",
    )
    .unwrap();
    let output = run(dir.path());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("data/members.csv, row 3: byte 0xC5 at character 3 is not UTF-8; the file looks like Latin-1 or Windows-1252"),
        "{message}"
    );
}

/// An empty `members` table is one message saying the register is empty, not one line
/// per guest.
#[test]
fn an_empty_members_table_says_the_register_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    dataset(
        dir.path(),
        Some("member_id,name,masterpoints\n"),
        None,
        None,
        None,
    );
    let output = run(dir.path());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("the `members` table is empty: the federation's register has no members, so none of the 1 competitions' players can be given a handicap"),
        "{message}"
    );
    assert!(!message.contains("no guest handicap method"), "{message}");
}

/// A Parquet column of structs (here `score` as `{percent, points}`, written by
/// pyarrow: `tests/fixtures/results_struct_score.parquet`) is named with its fields in
/// the user's terms, not polars' internal type.
#[test]
fn a_struct_column_is_named_in_plain_terms() {
    let dir = tempfile::tempdir().unwrap();
    dataset(dir.path(), None, None, None, None);
    let data = dir.path().join("data");
    std::fs::remove_file(data.join("results.csv")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results_struct_score.parquet"),
        data.join("results.parquet"),
    )
    .unwrap();
    let output = run(dir.path());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("data/results.parquet, column `score`: column `score` holds a group of 2 fields in each cell (a struct: `percent`, `points`)"),
        "{message}"
    );
    assert!(!message.contains("Field {"), "{message}");
}

/// A third team in a team match is named with the two teams already in it, at its
/// `results` row, not by internal indices at the `competitions` row.
#[test]
fn a_third_team_in_a_team_match_is_named_at_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut members = String::from("member_id,name,masterpoints\n");
    for id in 1..=12 {
        members.push_str(&format!("{id},P{id},1\n"));
    }
    dataset(
        dir.path(),
        Some(&members),
        Some("competition_id,date,format,scoring,boards\nm1,2026-01-05,teams,team_imps,2\n"),
        Some("competition_id,entrant,player1,player2,player3,player4\nm1,A,1,2,3,4\nm1,B,5,6,7,8\nm1,C,9,10,11,12\n"),
        Some("competition_id,entrant,boards_played,score,opponent\nm1,A,2,10,B\nm1,B,2,-10,A\nm1,C,2,5,A\n"),
    );
    let output = run(dir.path());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let quarantine = text(&dir.path().join("out/quarantine.csv"));
    assert!(
        quarantine.contains("m1,2026-01-05,data/results.csv,3,entrant,,\"a team_imps competition is one match between two teams, but this row adds a third team `C` to `A` and `B`"),
        "{quarantine}"
    );
    assert!(!quarantine.contains("opponent 0"), "{quarantine}");
}
