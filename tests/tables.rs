//! Dataset tables end to end: what is written reads back the same in every form the data
//! contract allows, and every broken rule is reported at the right file, row and column.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

use std::path::{Path, PathBuf};

use bridgehcp::dataset::{
    BoardResult, Competition, Dataset, Direction, Entrant, EntrantResult, Format, Member,
    MemberKind, Origin, ScoringMethod,
};
use bridgehcp::error::{Error, InputError};
use bridgehcp::scoring::conventions::{
    ArtificialImps, AveragePlus, ByeScore, Conventions, DatumRounding, DatumTrim, FactoredRounding,
    ImpAggregate, MpScale, TieBreak, Travellers,
};
use bridgehcp::store::files::{write_csv, write_parquet};
use bridgehcp::store::table::read_dataset;
use bridgehcp::store::writer::{dataset_frames, write_dataset};
use chrono::NaiveDate;
use polars::prelude::*;
use proptest::prelude::*;

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("valid calendar date")
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary folder")
}

fn member(id: i64, name: Option<&str>, mp: f64) -> Member {
    Member {
        name: name.map(str::to_owned),
        masterpoints: mp,
        ..Member::new(id)
    }
}

fn entrant(comp: &str, name: &str, players: [Option<i64>; 4]) -> Entrant {
    Entrant {
        players,
        ..Entrant::new(comp, name)
    }
}

fn result(
    comp: &str,
    name: &str,
    played: u32,
    score: f64,
    opponent: Option<&str>,
) -> EntrantResult {
    EntrantResult {
        competition_id: comp.into(),
        entrant: name.into(),
        boards_played: played,
        score,
        opponent: opponent.map(str::to_owned),
        origin: Origin::default(),
    }
}

fn played(
    comp: &str,
    board: u32,
    ns: &str,
    ew: &str,
    contract: &str,
    declarer: &str,
    tricks: u8,
) -> BoardResult {
    BoardResult {
        competition_id: comp.into(),
        board,
        ns: Some(ns.into()),
        ew: Some(ew.into()),
        contract: Some(contract.into()),
        declarer: Some(declarer.into()),
        tricks: Some(tricks),
        ..BoardResult::default()
    }
}

/// Every column of every table, with nulls, non-default conventions, an individual event
/// with seats, and names that need quoting in CSV. Board rows are grouped by competition
/// in sorted id order, as a hive folder partitioned by competition reads them back.
fn sample() -> Dataset {
    let mut members = vec![
        Member {
            club: Some("BK Lund, Sweden".into()),
            district: Some("Skåne".into()),
            start_handicap: Some(12.5),
            ..member(101, Some("Anna \"Ace\" Ek"), 120.5)
        },
        member(102, Some("Bo Berg"), 0.0),
        member(103, None, 30.0),
        Member {
            kind: MemberKind::Foreign,
            ..member(104, Some("Dan Dahl"), 3000.0)
        },
    ];
    members.extend((105..=112).map(|id| member(id, Some("Player"), f64::from(id as i32) / 4.0)));

    let mut butler = Competition::new(
        "b-2026-11-05",
        date(2026, 11, 5),
        Format::Teams,
        ScoringMethod::Butler,
    );
    butler.session = 2;
    butler.boards = Some(24);
    butler.rated = false;
    butler.handicap_event = true;
    butler.title = Some("Club teams, round 3".into());
    butler.club = Some("BK Lund".into());
    butler.class = Some("open".into());
    butler.conventions = Conventions {
        mp_scale: MpScale::PlusMinus,
        imp_aggregate: ImpAggregate::Sum,
        datum_trim: DatumTrim::TopAndBottom,
        datum_rounding: DatumRounding::Nearest10,
        bye_score: ByeScore::SessionAverage,
        neuberg: false,
        tie_break: TieBreak::seed_000(true, true),
        travellers: Travellers::Unfactored,
        artificial_imps: ArtificialImps::ThreePer10Percent,
        average_plus: AveragePlus::SessionIfBetter,
        factored_rounding: FactoredRounding::PercentHundredths,
    };
    let pairs = Competition::new(
        "m-2026-11-03",
        date(2026, 11, 3),
        Format::Pairs,
        ScoringMethod::Matchpoints,
    );
    let individual = Competition::new(
        "i-2026-12-31",
        date(2026, 12, 31),
        Format::Individual,
        ScoringMethod::CrossImps,
    );

    let mut ns_pair = entrant("m-2026-11-03", "1", [Some(101), Some(102), None, None]);
    ns_pair.direction = Some(Direction::NS);
    let mut ew_pair = entrant("m-2026-11-03", "2", [Some(103), Some(999_001), None, None]);
    ew_pair.direction = Some(Direction::EW);
    let mut team_a = entrant(
        "b-2026-11-05",
        "Aces",
        [Some(101), Some(102), Some(103), Some(104)],
    );
    team_a.team = Some("Aces".into());
    let team_b = entrant(
        "b-2026-11-05",
        "Kings, Queens",
        [Some(105), Some(106), Some(107), Some(108)],
    );
    let seats: Vec<Entrant> = ["1", "2", "3", "4"]
        .iter()
        .zip([109, 110, 111, 112])
        .map(|(name, id)| entrant("i-2026-12-31", name, [Some(id), None, None, None]))
        .collect();

    let mut adjusted = BoardResult {
        competition_id: "m-2026-11-03".into(),
        board: 3,
        ns: Some("1".into()),
        ew: Some("2".into()),
        adjusted: Some("A6040".into()),
        ..BoardResult::default()
    };
    adjusted.round = Some(2);
    let mut open_room = played("b-2026-11-05", 1, "Aces", "Kings, Queens", "3NTX", "S", 8);
    open_room.ns_score = Some(-200);
    open_room.room = Some("open".into());
    open_room.table = Some(4);
    let individual_board = BoardResult {
        competition_id: "i-2026-12-31".into(),
        board: 1,
        north: Some("1".into()),
        south: Some("3".into()),
        east: Some("2".into()),
        west: Some("4".into()),
        contract: Some("6HXX".into()),
        declarer: Some("E".into()),
        tricks: Some(13),
        ..BoardResult::default()
    };
    let boards = vec![
        open_room,
        played("b-2026-11-05", 2, "Kings, Queens", "Aces", "PASS", "N", 0),
        individual_board,
        played("m-2026-11-03", 1, "1", "2", "4S", "N", 10),
        BoardResult {
            declarer: None,
            tricks: None,
            ..played("m-2026-11-03", 2, "1", "2", "PASS", "N", 0)
        },
        adjusted,
    ];

    Dataset {
        members,
        competitions: vec![pairs, butler, individual],
        entrants: [vec![ns_pair, ew_pair, team_a, team_b], seats].concat(),
        results: vec![
            result("m-2026-11-03", "1", 24, 54.2, None),
            result("m-2026-11-03", "2", 23, 45.8, None),
            result("b-2026-11-05", "Aces", 24, 17.0, Some("Kings, Queens")),
            result("b-2026-11-05", "Kings, Queens", 24, -17.0, Some("Aces")),
        ],
        boards,
    }
}

/// The dataset without row origins, which depend on where it was read from.
fn without_origins(mut dataset: Dataset) -> Dataset {
    dataset
        .members
        .iter_mut()
        .for_each(|r| r.origin = Origin::default());
    dataset
        .competitions
        .iter_mut()
        .for_each(|r| r.origin = Origin::default());
    dataset
        .entrants
        .iter_mut()
        .for_each(|r| r.origin = Origin::default());
    dataset
        .results
        .iter_mut()
        .for_each(|r| r.origin = Origin::default());
    dataset
        .boards
        .iter_mut()
        .for_each(|r| r.origin = Origin::default());
    dataset
}

fn read(dir: &Path) -> Dataset {
    match read_dataset(dir) {
        Ok(dataset) => without_origins(dataset),
        Err(error) => panic!("reading {} failed: {error}", dir.display()),
    }
}

#[test]
fn sample_is_valid() {
    assert_eq!(bridgehcp::import::validate::validate(&sample()), Ok(()));
}

#[test]
fn parquet_round_trip_equals_the_input() {
    let dir = temp();
    write_dataset(&sample(), dir.path()).expect("write");
    assert_eq!(read(dir.path()), sample());
}

#[test]
fn rows_remember_their_file_and_row() {
    let dir = temp();
    write_dataset(&sample(), dir.path()).expect("write");
    let dataset = read_dataset(dir.path()).expect("read");
    let origin = &dataset.boards[4].origin;
    assert_eq!(origin.row, Some(5));
    assert_eq!(
        origin.file.as_deref(),
        Some(dir.path().join("boards.parquet").as_path())
    );
    assert_eq!(dataset.members[0].origin.row, Some(1));
}

#[test]
fn parquet_columns_have_the_contract_names_and_types() {
    let dir = temp();
    write_dataset(&sample(), dir.path()).expect("write");
    let schema = |table: &str| -> Vec<(String, DataType)> {
        let file = std::fs::File::open(dir.path().join(format!("{table}.parquet"))).expect("open");
        let df = ParquetReader::new(file).finish().expect("parquet");
        df.columns()
            .iter()
            .map(|c| (c.name().to_string(), c.dtype().clone()))
            .collect()
    };
    use DataType::{Boolean, Date, Float64, Int32, Int64, String as Str};
    let expect = |pairs: &[(&str, DataType)]| -> Vec<(String, DataType)> {
        pairs
            .iter()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect()
    };
    assert_eq!(
        schema("members"),
        expect(&[
            ("member_id", Int64),
            ("name", Str),
            ("club", Str),
            ("district", Str),
            ("masterpoints", Float64),
            ("start_handicap", Float64),
            ("kind", Str),
        ])
    );
    assert_eq!(
        schema("competitions"),
        expect(&[
            ("competition_id", Str),
            ("date", Date),
            ("session", Int32),
            ("format", Str),
            ("scoring", Str),
            ("boards", Int32),
            ("rated", Boolean),
            ("handicap_event", Boolean),
            ("title", Str),
            ("club", Str),
            ("class", Str),
            ("mp_scale", Str),
            ("imp_aggregate", Str),
            ("datum_trim", Str),
            ("datum_rounding", Str),
            ("bye_score", Str),
            ("tie_break", Str),
            ("travellers", Str),
            ("artificial_imps", Str),
            ("average_plus", Str),
            ("factored_rounding", Str),
            ("neuberg", Boolean),
            ("source_file", Str),
            ("source_line", Int64),
        ])
    );
    assert_eq!(
        schema("entrants"),
        expect(&[
            ("competition_id", Str),
            ("entrant", Str),
            ("player1", Int64),
            ("player2", Int64),
            ("player3", Int64),
            ("player4", Int64),
            ("team", Str),
            ("player1_name", Str),
            ("player2_name", Str),
            ("player3_name", Str),
            ("player4_name", Str),
            ("player1_club", Str),
            ("player2_club", Str),
            ("player3_club", Str),
            ("player4_club", Str),
            ("direction", Str),
            ("source_file", Str),
            ("source_line", Int64),
        ])
    );
    assert_eq!(
        schema("results"),
        expect(&[
            ("competition_id", Str),
            ("entrant", Str),
            ("boards_played", Int32),
            ("score", Float64),
            ("opponent", Str),
        ])
    );
    assert_eq!(
        schema("boards"),
        expect(&[
            ("competition_id", Str),
            ("board", Int32),
            ("ns", Str),
            ("ew", Str),
            ("contract", Str),
            ("declarer", Str),
            ("tricks", Int32),
            ("ns_score", Int32),
            ("adjusted", Str),
            ("north", Str),
            ("south", Str),
            ("east", Str),
            ("west", Str),
            ("round", Int32),
            ("session", Int32),
            ("table", Int32),
            ("room", Str),
            ("ns_penalty", Float64),
            ("ew_penalty", Float64),
            ("source_file", Str),
            ("source_line", Int64),
        ])
    );
}

#[test]
fn writing_twice_gives_identical_bytes() {
    let (a, b) = (temp(), temp());
    write_dataset(&sample(), a.path()).expect("write a");
    write_dataset(&sample(), b.path()).expect("write b");
    for table in ["members", "competitions", "entrants", "results", "boards"] {
        let name = format!("{table}.parquet");
        let bytes_a = std::fs::read(a.path().join(&name)).expect("read a");
        let bytes_b = std::fs::read(b.path().join(&name)).expect("read b");
        assert_eq!(bytes_a, bytes_b, "{name} differs between two writes");
    }
}

#[test]
fn writing_leaves_exactly_the_five_tables() {
    let dir = temp();
    write_dataset(&sample(), dir.path()).expect("write");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "boards.parquet",
            "competitions.parquet",
            "entrants.parquet",
            "members.parquet",
            "results.parquet"
        ]
    );
}

#[test]
fn writing_beside_a_csv_table_is_refused() {
    let dir = temp();
    std::fs::write(dir.path().join("boards.csv"), "competition_id,board\n").expect("write");
    let error = write_dataset(&sample(), dir.path()).expect_err("ambiguous folder");
    assert!(error.to_string().contains("boards.csv"), "{error}");
    assert!(!dir.path().join("members.parquet").exists());
}

#[test]
fn csv_copy_reads_equal() {
    let dir = temp();
    for (name, frame) in dataset_frames(&sample()).expect("frames") {
        write_csv(&frame, &dir.path().join(format!("{name}.csv"))).expect("csv");
    }
    assert_eq!(read(dir.path()), sample());
}

/// Writes `frame` split by the values of `key` into `dir/KEY=VALUE/part-0.parquet`,
/// keeping or dropping the key column in the files.
fn write_partitioned(frame: &DataFrame, key: &str, dir: &Path, keep_key: bool) {
    let values = frame
        .column(key)
        .expect("key")
        .str()
        .expect("string key")
        .clone();
    let mut distinct: Vec<String> = values.iter().flatten().map(str::to_owned).collect();
    distinct.sort();
    distinct.dedup();
    for value in distinct {
        let mask = values.equal(value.as_str());
        let mut part = frame.filter(&mask).expect("filter");
        if !keep_key {
            part = part.drop(key).expect("drop key");
        }
        let encoded = value.replace(',', "%2C").replace(' ', "%20");
        let folder = dir.join(format!("{key}={encoded}"));
        std::fs::create_dir_all(&folder).expect("folder");
        write_parquet(&part, &folder.join("part-0.parquet")).expect("part");
    }
}

#[test]
fn hive_partitioned_folders_read_equal() {
    let dir = temp();
    for (name, frame) in dataset_frames(&sample()).expect("frames") {
        match name {
            // The partition key supplies the column the files lack.
            "boards" => {
                write_partitioned(&frame, "competition_id", &dir.path().join("boards"), false)
            }
            // The files keep the key column; the partition key is then ignored.
            "results" => write_partitioned(&frame, "opponent", &dir.path().join("results"), true),
            // Any folder layout works; files are read in sorted path order.
            "members" => {
                let folder = dir.path().join("members").join("year=2026");
                std::fs::create_dir_all(&folder).expect("folder");
                write_parquet(&frame.slice(0, 5), &folder.join("part-0.parquet")).expect("part");
                write_parquet(&frame.slice(5, 100), &folder.join("part-1.parquet")).expect("part");
                std::fs::write(folder.join("_SUCCESS"), "").expect("marker");
            }
            _ => write_parquet(&frame, &dir.path().join(format!("{name}.parquet"))).expect("write"),
        }
    }
    let mut expected = sample();
    // Results with no opponent have no partition; the rest come in opponent order.
    expected.results = vec![expected.results[3].clone(), expected.results[2].clone()];
    let dataset = read_dataset(dir.path()).expect("read");
    let partition_row = &dataset.members[6].origin;
    assert_eq!(partition_row.row, Some(2));
    assert!(partition_row
        .file
        .as_deref()
        .is_some_and(|file| file.ends_with("members/year=2026/part-1.parquet")));
    assert_eq!(without_origins(dataset), expected);
}

// ---------------------------------------------------------------------------------
// Validation: a small valid CSV dataset, broken one cell at a time.

const MEMBERS: &str = "member_id,name,club,masterpoints,kind
101,Anna,Lund,120.5,member
102,Bo,Lund,,member
103,Cecilia,,30,
104,Dan,Malmo,0,foreign
";
const COMPETITIONS: &str = "competition_id,date,format,scoring,boards
c1,2026-11-03,pairs,matchpoints,24
";
const ENTRANTS: &str = "competition_id,entrant,player1,player2,direction
c1,1,101,102,NS
c1,2,103,104,EW
";
const RESULTS: &str = "competition_id,entrant,boards_played,score
c1,1,24,54.2
c1,2,24,45.8
";
const BOARDS: &str = "competition_id,board,ns,ew,contract,declarer,tricks
c1,1,1,2,4S,N,10
c1,2,1,2,PASS,,
";

fn write_tables(dir: &Path, tables: &[(&str, &str)]) {
    for (name, text) in tables {
        std::fs::write(dir.join(format!("{name}.csv")), text).expect("write csv");
    }
}

/// The base dataset with `table` replaced by the result of `edit` on its CSV text.
fn with_edit(table: &str, edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let dir = temp();
    let tables: Vec<(&str, String)> = [
        ("members", MEMBERS),
        ("competitions", COMPETITIONS),
        ("entrants", ENTRANTS),
        ("results", RESULTS),
        ("boards", BOARDS),
    ]
    .iter()
    .map(|(name, text)| {
        (
            *name,
            if *name == table {
                edit(text)
            } else {
                text.to_string()
            },
        )
    })
    .collect();
    let borrowed: Vec<(&str, &str)> = tables.iter().map(|(n, t)| (*n, t.as_str())).collect();
    write_tables(dir.path(), &borrowed);
    dir
}

fn input_error(dir: &Path) -> InputError {
    match read_dataset(dir) {
        Err(Error::Input(error)) => error,
        Err(other) => panic!("expected an input error, got {other}"),
        Ok(_) => panic!("expected an input error, the dataset was accepted"),
    }
}

/// Asserts that the error names `file` (file name), 1-based `row`, `column`, and a rule
/// containing `rule`.
#[track_caller]
fn assert_error(error: &InputError, file: &str, row: Option<usize>, column: &str, rule: &str) {
    let named = error.location.file.as_deref().and_then(Path::file_name);
    assert_eq!(named.and_then(|n| n.to_str()), Some(file), "{error}");
    assert_eq!(error.location.row, row, "{error}");
    assert_eq!(error.location.column.as_deref(), Some(column), "{error}");
    assert!(
        error.rule.contains(rule),
        "rule `{}` lacks `{rule}`",
        error.rule
    );
    let message = error.to_string();
    assert!(
        message.contains(file) && message.contains(&format!("column `{column}`")),
        "{message}"
    );
    if let Some(row) = row {
        assert!(message.contains(&format!("row {row}")), "{message}");
    }
}

#[track_caller]
fn check(table: &str, from: &str, to: &str, file_row: usize, column: &str, rule: &str) {
    let dir = with_edit(table, |text| {
        assert!(text.contains(from), "`{from}` not in {table}");
        text.replacen(from, to, 1)
    });
    assert_error(
        &input_error(dir.path()),
        &format!("{table}.csv"),
        Some(file_row),
        column,
        rule,
    );
}

#[test]
fn the_base_csv_dataset_is_valid() {
    let dir = with_edit("none", str::to_owned);
    let dataset = read_dataset(dir.path()).expect("valid");
    assert_eq!(dataset.members.len(), 4);
    assert_eq!(dataset.members[1].masterpoints, 0.0);
    assert_eq!(dataset.members[2].club, None);
    assert_eq!(dataset.members[2].kind, MemberKind::Member);
    assert_eq!(dataset.members[3].kind, MemberKind::Foreign);
    assert_eq!(dataset.competitions[0].session, 1);
    assert!(dataset.competitions[0].rated);
    assert!(!dataset.competitions[0].handicap_event);
    assert_eq!(dataset.competitions[0].conventions, Conventions::default());
    assert_eq!(dataset.boards[1].declarer, None);
    assert!((dataset.results[0].score - 54.2).abs() < 1e-12);
}

#[test]
fn unknown_format_scoring_kind_direction() {
    check(
        "competitions",
        "pairs",
        "duo",
        1,
        "format",
        "unknown format `duo`",
    );
    check(
        "competitions",
        "matchpoints",
        "topscore",
        1,
        "scoring",
        "unknown scoring `topscore`",
    );
    check(
        "members",
        "Dan,Malmo,0,foreign",
        "Dan,Malmo,0,guest",
        4,
        "kind",
        "unknown member kind `guest`",
    );
    check(
        "entrants",
        "104,EW",
        "104,E",
        2,
        "direction",
        "unknown direction `E`",
    );
}

#[test]
fn unknown_conventions_are_rejected() {
    let dir = with_edit("competitions", |_| {
        "competition_id,date,format,scoring,boards,mp_scale\nc1,2026-11-03,pairs,matchpoints,24,ruter\n".into()
    });
    assert_error(
        &input_error(dir.path()),
        "competitions.csv",
        Some(1),
        "mp_scale",
        "unknown mp_scale `ruter`",
    );
}

#[test]
fn fewer_than_two_boards() {
    check(
        "competitions",
        "matchpoints,24",
        "matchpoints,1",
        1,
        "boards",
        "at least 2 boards, found 1",
    );
}

#[test]
fn a_competition_needs_a_board_count_or_board_rows() {
    let dir = with_edit("competitions", |text| {
        text.replace("matchpoints,24", "matchpoints,")
    });
    std::fs::remove_file(dir.path().join("boards.csv")).expect("remove");
    assert_error(
        &input_error(dir.path()),
        "competitions.csv",
        Some(1),
        "boards",
        "number of boards is missing",
    );
}

#[test]
fn duplicate_ids() {
    check(
        "members",
        "104,Dan",
        "101,Dan",
        4,
        "member_id",
        "member_id 101 appears twice, first (row 1)",
    );
    let dir = with_edit("competitions", |text| {
        format!("{text}c1,2026-11-04,pairs,matchpoints,24\n")
    });
    assert_error(
        &input_error(dir.path()),
        "competitions.csv",
        Some(2),
        "competition_id",
        "`c1` appears twice",
    );
}

#[test]
fn players_and_entrants() {
    // A substitute: member 101 plays for entrants 1 and 2 of one session.
    let dir = with_edit("entrants", |text| {
        text.replacen("c1,2,103,104", "c1,2,101,104", 1)
    });
    let dataset = read_dataset(dir.path()).expect("a player in two entrants is read");
    let listing_101: Vec<&str> = dataset
        .entrants
        .iter()
        .filter(|e| e.players.contains(&Some(101)))
        .map(|e| e.entrant.as_str())
        .collect();
    assert_eq!(listing_101, vec!["1", "2"]);
    check(
        "entrants",
        "c1,2,103,104",
        "c1,2,103,103",
        2,
        "player2",
        "player 103 appears twice in competition `c1`, both times in entrant `2`",
    );
    check(
        "entrants",
        "c1,2,103,104",
        "c1,2,,",
        2,
        "player1",
        "needs at least one player",
    );
    check(
        "entrants",
        "c1,2,103",
        "c1,1,103",
        2,
        "entrant",
        "entrant `1` appears twice",
    );
    check(
        "entrants",
        "c1,2,103",
        "c9,2,103",
        2,
        "competition_id",
        "unknown competition `c9`",
    );
}

#[test]
fn results_and_boards_must_name_known_entrants() {
    check(
        "results",
        "c1,2,24",
        "c1,7,24",
        2,
        "entrant",
        "no entrant `7` in competition `c1`",
    );
    check(
        "results",
        "c1,2,24",
        "c2,2,24",
        2,
        "competition_id",
        "unknown competition `c2`",
    );
    check("boards", "c1,1,1,2", "c1,1,9,2", 1, "ns", "no entrant `9`");
    check("boards", "c1,2,1,2", "c1,2,1,8", 2, "ew", "no entrant `8`");
    check(
        "boards",
        "c1,2,1,2",
        "cX,2,1,2",
        2,
        "competition_id",
        "unknown competition `cX`",
    );
}

#[test]
fn matchpoint_percentages_lie_in_0_to_100() {
    check(
        "results",
        "45.8",
        "100.5",
        2,
        "score",
        "percentage between 0 and 100, found 100.5",
    );
    check("results", "54.2", "-0.1", 1, "score", "found -0.1");
}

#[test]
fn non_finite_numbers() {
    check("results", "54.2", "NaN", 1, "score", "not a finite number");
    check(
        "members",
        "120.5",
        "inf",
        1,
        "masterpoints",
        "not a finite number",
    );
    check(
        "results",
        "54.2",
        "fifty",
        1,
        "score",
        "`fifty` is not a number",
    );
}

#[test]
fn dates_must_be_iso() {
    check(
        "competitions",
        "2026-11-03",
        "03/11/2026",
        1,
        "date",
        "unparseable date `03/11/2026` (expected YYYY-MM-DD)",
    );
    check(
        "competitions",
        "2026-11-03",
        "2026-02-30",
        1,
        "date",
        "unparseable date",
    );
}

#[test]
fn required_cells_and_columns() {
    check(
        "members",
        "103,Cecilia",
        ",Cecilia",
        3,
        "member_id",
        "`member_id` is required",
    );
    check(
        "results",
        "c1,2,24",
        "c1,2,",
        2,
        "boards_played",
        "`boards_played` is required",
    );
    let dir = with_edit("competitions", |_| {
        "competition_id,date,format,boards\nc1,2026-11-03,pairs,24\n".into()
    });
    assert_error(
        &input_error(dir.path()),
        "competitions.csv",
        None,
        "scoring",
        "required column `scoring` is missing",
    );
}

#[test]
fn counts_tricks_and_declarers() {
    check(
        "results",
        "c1,2,24",
        "c1,2,-1",
        2,
        "boards_played",
        "must not be negative, found -1",
    );
    check(
        "boards",
        "4S,N,10",
        "4S,N,14",
        1,
        "tricks",
        "between 0 and 13, found 14",
    );
    check(
        "boards",
        "4S,N,10",
        "4S,N,-1",
        1,
        "tricks",
        "between 0 and 13, found -1",
    );
    check(
        "boards",
        "4S,N,10",
        "4S,X,10",
        1,
        "declarer",
        "one of N, E, S, W, found `X`",
    );
    check(
        "boards",
        "4S,N,10",
        "4S,,10",
        1,
        "declarer",
        "needs a declarer",
    );
    check(
        "boards",
        "c1,2,1,2,PASS",
        "c1,2,1,2,",
        2,
        "contract",
        "needs a `contract` or an `adjusted` score",
    );
    check(
        "members",
        "101,Anna,Lund,120.5",
        "101,Anna,Lund,-5",
        1,
        "masterpoints",
        "must not be negative",
    );
}

#[test]
fn the_first_error_is_in_contract_table_order_then_row_order() {
    let dir = with_edit("boards", |text| text.replace("4S,N,10", "4S,N,14"));
    let members = MEMBERS
        .replace("103,Cecilia,,30,", "103,Cecilia,,30,alien")
        .replace("104,Dan", "101,Dan");
    write_tables(dir.path(), &[("members", &members)]);
    // Row 3 (unknown kind) comes before row 4 (duplicate id) and before any board error.
    assert_error(
        &input_error(dir.path()),
        "members.csv",
        Some(3),
        "kind",
        "unknown member kind `alien`",
    );
}

#[test]
fn a_table_in_two_forms_is_an_error() {
    let dir = with_edit("none", str::to_owned);
    let frames = dataset_frames(&sample()).expect("frames");
    write_parquet(&frames[0].1, &dir.path().join("members.parquet")).expect("parquet");
    let error = input_error(dir.path());
    assert!(
        error
            .rule
            .contains("more than one form (members.parquet, members.csv)"),
        "{error}"
    );
}

#[test]
fn results_or_boards_must_be_present() {
    let dir = with_edit("none", str::to_owned);
    std::fs::remove_file(dir.path().join("results.csv")).expect("remove");
    std::fs::remove_file(dir.path().join("boards.csv")).expect("remove");
    let error = input_error(dir.path());
    assert!(
        error.rule.contains("needs a `results` or a `boards` table"),
        "{error}"
    );
    std::fs::remove_file(dir.path().join("entrants.csv")).expect("remove");
    let error = input_error(dir.path());
    assert!(
        error.rule.contains("required table `entrants` is missing"),
        "{error}"
    );
}

fn parquet_members(dir: &Path, columns: Vec<Column>) -> PathBuf {
    let frame = DataFrame::new_infer_height(columns).expect("frame");
    let path = dir.join("members.parquet");
    std::fs::remove_file(dir.join("members.csv")).expect("remove csv");
    write_parquet(&frame, &path).expect("parquet");
    path
}

#[test]
fn parquet_column_types_are_checked() {
    let dir = with_edit("none", str::to_owned);
    parquet_members(
        dir.path(),
        vec![Column::new(
            "member_id".into(),
            ["101", "102", "103", "104"],
        )],
    );
    assert_error(
        &input_error(dir.path()),
        "members.parquet",
        None,
        "member_id",
        "holds text, but it must hold one int64 per row",
    );
}

#[test]
fn int32_widens_to_int64_and_int64_narrows_to_int32_when_it_fits() {
    let dir = with_edit("none", str::to_owned);
    parquet_members(
        dir.path(),
        vec![Column::new("member_id".into(), [101i32, 102, 103, 104])],
    );
    let dataset = read_dataset(dir.path()).expect("int32 ids are fine");
    assert_eq!(dataset.members[3].member_id, 104);

    let results = DataFrame::new_infer_height(vec![
        Column::new("competition_id".into(), ["c1", "c1"]),
        Column::new("entrant".into(), ["1", "2"]),
        Column::new("boards_played".into(), [24i64, 3_000_000_000]),
        Column::new("score".into(), [54.2f64, f64::NAN]),
    ])
    .expect("frame");
    std::fs::remove_file(dir.path().join("results.csv")).expect("remove");
    write_parquet(&results, &dir.path().join("results.parquet")).expect("parquet");
    assert_error(
        &input_error(dir.path()),
        "results.parquet",
        Some(2),
        "boards_played",
        "3000000000 does not fit in int32",
    );
}

#[test]
fn parquet_nan_is_named_at_its_row() {
    let dir = with_edit("none", str::to_owned);
    let results = DataFrame::new_infer_height(vec![
        Column::new("competition_id".into(), ["c1", "c1"]),
        Column::new("entrant".into(), ["1", "2"]),
        Column::new("boards_played".into(), [24i32, 24]),
        Column::new("score".into(), [54.2f64, f64::INFINITY]),
    ])
    .expect("frame");
    std::fs::remove_file(dir.path().join("results.csv")).expect("remove");
    write_parquet(&results, &dir.path().join("results.parquet")).expect("parquet");
    assert_error(
        &input_error(dir.path()),
        "results.parquet",
        Some(2),
        "score",
        "`inf` is not a finite number",
    );
}

#[test]
fn errors_in_partitions_name_the_partition_file() {
    let dir = with_edit("none", str::to_owned);
    std::fs::remove_file(dir.path().join("boards.csv")).expect("remove");
    let boards = DataFrame::new_infer_height(vec![
        Column::new("board".into(), [1i32, 2]),
        Column::new("ns".into(), ["1", "1"]),
        Column::new("ew".into(), ["2", "2"]),
        Column::new("contract".into(), ["4S", "3N"]),
        Column::new("declarer".into(), ["N", "Q"]),
        Column::new("tricks".into(), [10i32, 9]),
    ])
    .expect("frame");
    let folder = dir.path().join("boards").join("competition_id=c1");
    std::fs::create_dir_all(&folder).expect("folder");
    write_parquet(&boards, &folder.join("part-0.parquet")).expect("parquet");
    let error = input_error(dir.path());
    assert_error(&error, "part-0.parquet", Some(2), "declarer", "found `Q`");
    assert_eq!(error.location.competition.as_deref(), Some("c1"));
    assert_eq!(error.location.board, Some(2));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Any member list survives Parquet and CSV unchanged: text with quotes, commas,
    /// and non-ASCII letters (a line break is a control character, which no name may
    /// hold), and any finite float.
    #[test]
    fn members_round_trip_through_parquet_and_csv(
        rows in prop::collection::vec(
            (
                "[A-Za-zÅÄÖåäö][A-Za-zÅÄÖåäö ,\"']{0,11}",
                0.0f64..1.0e6,
                prop::option::of(-10.0f64..52.0),
                any::<bool>(),
            ),
            1..12,
        )
    ) {
        let mut dataset = sample();
        dataset.members = rows
            .iter()
            .enumerate()
            .map(|(i, (name, mp, start, foreign))| Member {
                name: Some(name.clone()),
                masterpoints: *mp,
                start_handicap: *start,
                kind: if *foreign { MemberKind::Foreign } else { MemberKind::Member },
                ..Member::new(1_000_000 + i as i64)
            })
            .collect();
        let parquet = temp();
        write_dataset(&dataset, parquet.path()).expect("write");
        prop_assert_eq!(&read(parquet.path()), &dataset);

        let csv = temp();
        for (name, frame) in dataset_frames(&dataset).expect("frames") {
            write_csv(&frame, &csv.path().join(format!("{name}.csv"))).expect("csv");
        }
        prop_assert_eq!(&read(csv.path()), &dataset);
    }
}

/// Leaves the sample dataset, flat and hive-partitioned, in `target/tmp/readers` for
/// `python3 tests/readers.py target/tmp/readers` (pyarrow, DuckDB and polars).
#[test]
fn sample_tables_are_left_for_external_readers() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let _ = std::fs::remove_dir_all(&root);
    let flat = root.join("flat");
    write_dataset(&sample(), &flat).expect("write");
    assert_eq!(read(&flat), sample());

    let hive = root.join("hive");
    for (name, frame) in dataset_frames(&sample()).expect("frames") {
        if name == "boards" {
            write_partitioned(&frame, "competition_id", &hive.join("boards"), false);
        } else {
            std::fs::create_dir_all(&hive).expect("folder");
            write_parquet(&frame, &hive.join(format!("{name}.parquet"))).expect("write");
        }
    }
    assert_eq!(read(&hive), sample());
}

#[test]
fn csv_from_spreadsheets_with_bom_and_crlf_reads() {
    let dir = with_edit("members", |text| {
        format!("\u{feff}{}", text.replace('\n', "\r\n"))
    });
    let dataset = read_dataset(dir.path()).expect("BOM and CRLF are fine");
    assert_eq!(dataset.members.len(), 4);
    assert_eq!(dataset.members[3].kind, MemberKind::Foreign);
    assert_eq!(dataset.members[0].member_id, 101);
}

#[test]
fn ragged_and_empty_csv_files_are_named_precisely() {
    let dir = with_edit("members", |text| {
        text.replace("102,Bo,Lund,,member", "102,Bo,Lund,,member,extra")
    });
    let error = input_error(dir.path());
    assert!(
        error
            .location
            .file
            .as_deref()
            .is_some_and(|f| f.ends_with("members.csv")),
        "{error}"
    );
    assert_eq!(error.location.row, Some(2), "{error}");
    assert_eq!(error.rule, "the row has 6 cells but the header has 5");

    let dir = with_edit("results", |_| String::new());
    let error = input_error(dir.path());
    assert!(
        error
            .location
            .file
            .as_deref()
            .is_some_and(|f| f.ends_with("results.csv")),
        "{error}"
    );
    assert!(error.rule.contains("the file is empty"), "{error}");
}
