//! Hostile files, as the real binary meets them: each one ends the command cleanly
//! (exit 1, no panic, no abort) with a message that names the file. The files are made
//! here, small, from the shipped sample.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, csv_dataset};

use std::path::{Path, PathBuf};
use std::process::Output;

use polars::prelude::*;

/// The command failed cleanly and its message names `file`; returns the message.
fn refused_naming(output: &Output, file: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(
        output.status.code(),
        Some(1),
        "expected a clean failure\nstdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("overflow"), "{stderr}");
    assert!(
        stderr.contains(file),
        "the message does not name {file}:\n{stderr}"
    );
    stderr
}

/// A copy of the sample dataset in `dir/data`.
fn sample_copy(dir: &Path) -> PathBuf {
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    for entry in std::fs::read_dir(sample).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), data.join(entry.file_name())).unwrap();
    }
    data
}

fn run_data(dir: &Path) -> Output {
    bridgehcp(&["run", "--quiet", "--data", "data", "--out", "out"], dir)
}

#[test]
fn a_truncated_parquet_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample_copy(dir.path());
    let path = data.join("boards.parquet");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    refused_naming(&run_data(dir.path()), "boards.parquet");
    assert!(!dir.path().join("out").exists());
}

/// Bytes overwritten in the middle of the data, the footer intact: the reader must not
/// panic or allocate what the damaged lengths claim.
#[test]
fn a_byte_corrupted_parquet_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample_copy(dir.path());
    let path = data.join("entrants.parquet");
    let mut bytes = std::fs::read(&path).unwrap();
    let footer = u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap());
    let data_end = bytes.len() - 8 - footer as usize;
    for byte in &mut bytes[4..data_end] {
        *byte = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    refused_naming(&run_data(dir.path()), "entrants.parquet");
}

/// `results.score` written as a list of numbers instead of a number.
#[test]
fn a_list_column_where_a_number_belongs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample_copy(dir.path());
    let path = data.join("results.parquet");
    let mut frame = ParquetReader::new(std::fs::File::open(&path).unwrap())
        .finish()
        .unwrap();
    let height = frame.height();
    let lists: Vec<Series> = (0..height)
        .map(|i| Series::new("".into(), [i as f64, 50.0]))
        .collect();
    let score = Series::new("score".into(), lists);
    frame.with_column(score.into_column()).unwrap();
    let file = std::fs::File::create(&path).unwrap();
    ParquetWriter::new(file).finish(&mut frame).unwrap();
    let message = refused_naming(&run_data(dir.path()), "results.parquet");
    assert!(message.contains("score"), "{message}");
}

/// A 10 MB cell where a number belongs.
#[test]
fn a_ten_megabyte_csv_cell_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut members = b"member_id,name,masterpoints\n1,Ann,".to_vec();
    members.extend(std::iter::repeat_n(b'9', 10 * 1024 * 1024));
    members.extend_from_slice(b"x\n2,Bo,1\n3,Cy,0\n4,Di,5\n");
    csv_dataset(dir.path(), &members);
    let message = refused_naming(&run_data(dir.path()), "members.csv");
    // The cell is quoted cut short, not 10 MB of it.
    assert!(
        message.contains("… (10485761 characters)` is not a number"),
        "{message}"
    );
    assert!(
        !message.contains(&"9".repeat(1000)),
        "the whole cell is in the message"
    );
}

#[test]
fn invalid_utf8_in_a_csv_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    csv_dataset(
        dir.path(),
        b"member_id,name,masterpoints\n1,An\xff\xfen,10\n2,Bo,1\n3,Cy,0\n4,Di,5\n",
    );
    refused_naming(&run_data(dir.path()), "members.csv");
}

fn import(dir: &Path, file: &str, content: &[u8]) -> Output {
    std::fs::write(dir.join(file), content).unwrap();
    bridgehcp(&["import", "auto", file, "--out", "fed"], dir)
}

#[test]
fn a_usebio_file_nested_140000_deep_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut xml = b"<?xml version=\"1.0\"?>\n<USEBIO Version=\"1.2\">".to_vec();
    for _ in 0..140_000 {
        xml.extend_from_slice(b"<EVENT>");
    }
    let message = refused_naming(&import(dir.path(), "deep.xml", &xml), "deep.xml");
    assert!(message.contains("nested more than 64 deep"), "{message}");
}

#[test]
fn invalid_utf8_in_a_usebio_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let xml = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<USEBIO Version=\"1.2\"><CLUB><CLUB_NAME>Bad \xff\xfe name</CLUB_NAME></CLUB></USEBIO>\n";
    refused_naming(&import(dir.path(), "bad.xml", xml), "bad.xml");
}

/// PBN is read as Latin-1, in which every byte is a character: bytes that are not
/// UTF-8 are letters (Ruter writes `Å` as the byte 0xC5), not an error.
#[test]
fn invalid_utf8_in_a_pbn_file_is_read_as_latin1() {
    let dir = tempfile::tempdir().unwrap();
    let mut pbn = Vec::new();
    pbn.extend_from_slice(
        b"% PBN 2.0\n\
          % <META  name=Generator   content=\"Ruter i Norge\">\n\
          % <META  name=Arranger    content=\"0001 Test BK\">\n\
          % <META  name=ContestDate content=\"2015-09-30\">\n\
          % <META  name=ScoringType content=\"MatchPoints;MP1\">\n\
          [Event \"Test\"]\n\
          [Board \"1\"]\n\
          [TotalScoreTable \"Rank\\2R;PairId\\2R;TotalScoreMP\\3R;TotalPercentage\\5R;Names\\20L;MemberID1\\7R;MemberID2\\7R\"]\n\
          1 1 0 50.00 \"\xc5sa - B\" \"11\" \"12\"\n\
          1 2 0 50.00 \"C - D\" \"13\" \"14\"\n\
          1 3 0 50.00 \"E - F\" \"15\" \"16\"\n\
          1 4 0 50.00 \"G - H\" \"17\" \"18\"\n\
          [ScoreTable \"PairId_NS\\2R;PairId_EW\\2R;Contract\\3L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\6R;MP_NS\\2R;MP_EW\\2R\"]\n\
          1 2 3NT S 9 \"400\" - 0 0\n\
          3 4 3NT S 9 \"400\" - 0 0\n\
          [Board \"2\"]\n\
          [ScoreTable \"PairId_NS\\2R;PairId_EW\\2R;Contract\\3L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\6R;MP_NS\\2R;MP_EW\\2R\"]\n\
          1 2 3NT S 9 \"600\" - 0 0\n\
          3 4 3NT S 8 \"-100\" - 0 0\n",
    );
    let output = import(dir.path(), "latin.pbn", &pbn);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let members =
        ParquetReader::new(std::fs::File::open(dir.path().join("fed/members.parquet")).unwrap())
            .finish()
            .unwrap();
    let names: Vec<Option<&str>> = members
        .column("name")
        .unwrap()
        .str()
        .unwrap()
        .iter()
        .collect();
    assert!(names.contains(&Some("Åsa")), "{names:?}");
}

#[test]
fn a_100_kilobyte_pbn_line_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut pbn = b"% PBN 2.0\n[Event \"".to_vec();
    pbn.extend(std::iter::repeat_n(b'x', 100 * 1024));
    pbn.extend_from_slice(b"\"]\n[Board \"1\"]\n");
    let message = refused_naming(&import(dir.path(), "long.pbn", &pbn), "long.pbn");
    assert!(
        message.contains("a PBN line holds at most 65536"),
        "{message}"
    );
}

/// An export larger than any club's (a sparse file: no disk is written).
#[test]
fn a_huge_export_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.pbn");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(200 * 1024 * 1024).unwrap();
    drop(file);
    let output = bridgehcp(&["import", "pbn", "huge.pbn", "--out", "fed"], dir.path());
    let message = refused_naming(&output, "huge.pbn");
    assert!(message.contains("an export may have"), "{message}");
}
