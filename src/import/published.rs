//! What a club export yields: the table results as a [`Dataset`] fragment, and beside
//! them the figures the club's program published from those results.
//!
//! The published figures are kept apart from the dataset on purpose. The dataset is what
//! the pipeline scores; the figures are someone else's arithmetic on the same results, so
//! they are the reference the scoring engine is checked against (`tests/realdata.rs`) and
//! never an input to it.
//!
//! Several files become one dataset with [`merge`], which refuses two fragments that carry
//! the same competition: importing the same export twice must not double a player's games.

use std::collections::BTreeMap;

use crate::dataset::{Dataset, Direction, Member, Origin};
use crate::error::InputError;

/// One imported export: the dataset fragment (one competition) and what was published.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Imported {
    pub dataset: Dataset,
    pub published: Published,
    /// What the officer must be told about the file although it imports: a player or a
    /// pair not imported as printed, with why.
    pub notes: Vec<Note>,
    /// The export's table rows that are not table results of the dataset, each with why
    /// (a bye, a penalty added to another row, a board not played). With the table
    /// results they account for every row the export has.
    pub rows_not_imported: Vec<Note>,
}

/// A row of an export, or a player in it, that is not imported as printed.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub kind: NoteKind,
    pub origin: Origin,
    pub board: Option<u32>,
    pub reason: String,
}

/// What a [`Note`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// A player imported as a non-member although the file gives a number.
    NonMember,
    /// A pair listed without any table result: a phantom, not an entrant.
    Phantom,
    /// A table played by a pair the export does not list: its results count in the
    /// field, the pair is no entrant.
    Unlisted,
    /// A table row that is not a table result (bye, penalty, unplayed board).
    Row,
}

/// The figures a scoring program printed for one competition.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Published {
    pub competition_id: String,
    /// The program that printed the figures, as the file names it (PBN `Generator`,
    /// USEBIO `PROGRAM_NAME`): its rounding is part of what is compared.
    pub program: String,
    /// Per board, per table line, in file order.
    pub lines: Vec<PublishedLine>,
    /// Per entrant, in file order.
    pub standings: Vec<PublishedStanding>,
    /// Butler datum per board, where the program printed one.
    pub datums: Vec<PublishedDatum>,
    /// How many decimals the program printed, for comparing at its precision.
    pub precision: Precision,
}

/// The most decimals a program printed in each kind of figure (`5.6` is 1, `65.08` is
/// 2, `38` is 0): a recomputed figure is rounded to as many before it is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Precision {
    /// Traveller lines' points.
    pub line: u8,
    /// Entrants' totals.
    pub total: u8,
    /// Entrants' percentages.
    pub percent: u8,
}

impl Precision {
    /// Raises `slot` to the decimals of the number written `text`.
    pub fn see(slot: &mut u8, text: &str) {
        let decimals = text
            .trim()
            .split_once('.')
            .map_or(0, |(_, fraction)| fraction.len());
        *slot = (*slot).max(u8::try_from(decimals).unwrap_or(u8::MAX));
    }
}

/// What a published traveller line records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineKind {
    /// A board played at a table (possibly passed out).
    Played,
    /// An artificial score at a table (both sides, or one side, given an adjusted score).
    Artificial,
    /// A pair without opponents on this board (sit-out or bye): only one side is given.
    Bye,
    /// A penalty or compensation line: points added to a pair, not a table result.
    Penalty,
}

/// One published traveller line. Points are in the program's own scale (Ruter's ±
/// matchpoints, Compscore's 2/1 matchpoints, IMPs, butler IMPs).
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedLine {
    pub board: u32,
    pub kind: LineKind,
    pub ns: Option<String>,
    pub ew: Option<String>,
    pub ns_points: Option<f64>,
    pub ew_points: Option<f64>,
    /// Board percentage, where the program prints one (Ruter: whole numbers).
    pub ns_percent: Option<f64>,
    pub ew_percent: Option<f64>,
    pub origin: Origin,
}

/// One entrant's published result.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedStanding {
    pub entrant: String,
    /// Total matchpoints (in the program's scale) or IMPs.
    pub score: f64,
    /// Matchpoint events only.
    pub percent: Option<f64>,
    /// Shared ranks for ties (1, 2, 2, 4); ranked within its direction when `direction`
    /// is set (two winners).
    pub rank: u32,
    pub boards_played: Option<u32>,
    /// Points added to (or, negative, taken from) the total outside the boards.
    pub penalty: Option<f64>,
    pub direction: Option<Direction>,
    pub origin: Origin,
}

/// A butler datum as published.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedDatum {
    pub board: u32,
    pub datum: f64,
    pub origin: Origin,
}

/// Merges several files' fragments into one dataset.
///
/// Competitions must be unique by id; a member listed by several files is kept once, with
/// the first file's name and club (later files only fill in what the first left empty).
/// Rows keep their file order, fragments their argument order, so the result does not
/// depend on anything but the inputs.
pub fn merge(fragments: impl IntoIterator<Item = Dataset>) -> Result<Dataset, InputError> {
    let mut merged = Dataset::default();
    let mut seen: BTreeMap<String, Origin> = BTreeMap::new();
    let mut member_index: BTreeMap<i64, usize> = BTreeMap::new();
    for fragment in fragments {
        for competition in &fragment.competitions {
            if let Some(first) = seen.get(&competition.competition_id) {
                let first_at = first
                    .file
                    .as_deref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "another input".to_string());
                return Err(InputError::new(
                    competition.location(),
                    format!(
                        "competition `{}` is already imported from {first_at}; \
                         each competition may be imported once",
                        competition.competition_id
                    ),
                ));
            }
            seen.insert(
                competition.competition_id.clone(),
                competition.origin.clone(),
            );
        }
        for member in fragment.members {
            match member_index.get(&member.member_id) {
                Some(&at) => {
                    if let Some(existing) = merged.members.get_mut(at) {
                        fill_member(existing, member);
                    }
                }
                None => {
                    member_index.insert(member.member_id, merged.members.len());
                    merged.members.push(member);
                }
            }
        }
        merged.competitions.extend(fragment.competitions);
        merged.entrants.extend(fragment.entrants);
        merged.results.extend(fragment.results);
        merged.boards.extend(fragment.boards);
    }
    Ok(merged)
}

fn fill_member(existing: &mut Member, later: Member) {
    if existing.name.is_none() {
        existing.name = later.name;
    }
    if existing.club.is_none() {
        existing.club = later.club;
    }
    if existing.district.is_none() {
        existing.district = later.district;
    }
}

/// An id-friendly form of a name: lower-case letters and digits, runs of anything else
/// as one `-` (`"0179 Spiren BK"` → `0179-spiren-bk`).
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// An export's text. Club programs write UTF-8 (with or without a byte order mark) or
/// ISO-8859-1 (Ruter: `Bjørnsen` is the byte `0xF8`), and rarely say which. Valid UTF-8
/// is read as UTF-8; anything else as ISO-8859-1, one byte to one character, so no file
/// is refused for its encoding and no name is mangled. (A Latin-1 name is valid UTF-8
/// only in contrived cases: `Ã` followed by a symbol from the upper half.)
pub fn decode_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// An export's bytes as UTF-8 when they are UTF-16 text: a file that starts with a
/// UTF-16 byte order mark (`FF FE` little-endian, `FE FF` big-endian, as a Windows
/// editor's "Unicode" save writes it) is converted, so that it is read as the same
/// file saved as UTF-8; any other file is returned as it is. A UTF-16 file that does
/// not decode (a lone surrogate, an odd number of bytes) is refused as such.
pub fn utf16_to_utf8(path: &std::path::Path, bytes: Vec<u8>) -> Result<Vec<u8>, InputError> {
    let big_endian = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => false,
        Some([0xFE, 0xFF]) => true,
        _ => return Ok(bytes),
    };
    let broken = |why: String| {
        InputError::new(
            crate::error::Location::file(path),
            format!(
                "the file starts with the byte order mark of UTF-16 ({}) but is not UTF-16 text: {why}; save it again as UTF-8",
                if big_endian { "big-endian" } else { "little-endian" }
            ),
        )
    };
    let body = &bytes[2..];
    if body.len() % 2 == 1 {
        return Err(broken(format!(
            "it has an odd number of bytes ({}) after the mark",
            body.len()
        )));
    }
    let units = body.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    });
    let mut text = String::with_capacity(body.len());
    for (at, decoded) in char::decode_utf16(units).enumerate() {
        match decoded {
            Ok(c) => text.push(c),
            Err(e) => {
                return Err(broken(format!(
                    "the unpaired surrogate {:04X} at byte {}",
                    e.unpaired_surrogate(),
                    2 + 2 * at
                )))
            }
        }
    }
    Ok(text.into_bytes())
}

/// Refuses bytes that are not text: a club's export is text (PBN, or USEBIO XML), and
/// a binary file given in its place (a spreadsheet, an archive, a picture named `.pbn`)
/// would otherwise be read as Latin-1 and quoted back as a line of thousands of
/// replacement characters. A NUL byte, or more than one C0 control character (other
/// than tab, line feed, form feed, carriage return and the DOS end-of-file mark) in
/// twenty of the first 4 KiB, is binary. `what` names the format expected
/// (`a PBN`, `a USEBIO XML`).
pub fn check_text(path: &std::path::Path, bytes: &[u8], what: &str) -> Result<(), InputError> {
    let head = &bytes[..bytes.len().min(4096)];
    let control = |b: &&u8| **b < 0x20 && !matches!(**b, b'\t' | b'\n' | 0x0C | b'\r' | 0x1A);
    let nul = bytes.iter().position(|&b| b == 0);
    let controls = head.iter().filter(control).count();
    if nul.is_none() && controls * 20 <= head.len() {
        return Ok(());
    }
    let evidence = match nul {
        Some(at) => format!("a NUL byte at byte {}", at + 1),
        None => format!(
            "{controls} control characters in its first {} bytes",
            head.len()
        ),
    };
    Err(InputError::new(
        crate::error::Location::file(path),
        format!("the file is not {what} text file: it holds binary data ({evidence}); was another file given in its place?"),
    ))
}

/// An export decoded for a reader: its text, and the file every row's origin names.
pub struct ExportSource {
    pub file: std::sync::Arc<std::path::Path>,
    pub text: String,
}

impl ExportSource {
    /// The source of an export already in memory, for the reader of `what` (`a PBN`,
    /// `a USEBIO XML`); `path` names it in errors and origins. See [`export_text`].
    pub fn decode(path: &std::path::Path, bytes: &[u8], what: &str) -> Result<Self, InputError> {
        let file = std::sync::Arc::from(path);
        let text = export_text(path, bytes, what)?;
        Ok(ExportSource { file, text })
    }
}

/// Reads an export from disk ([`read_export`]) and parses its bytes with `parse_bytes`.
pub fn parse_file(
    path: &std::path::Path,
    parse_bytes: fn(&std::path::Path, &[u8]) -> Result<Imported, InputError>,
) -> Result<Imported, InputError> {
    parse_bytes(path, &read_export(path)?)
}

/// An export's text, for the importer of `what` (`a PBN`, `a USEBIO XML`): UTF-16
/// converted ([`utf16_to_utf8`]), binary refused ([`check_text`]), then decoded as
/// [`decode_text`] does.
pub fn export_text(path: &std::path::Path, bytes: &[u8], what: &str) -> Result<String, InputError> {
    if matches!(bytes.get(..2), Some([0xFF, 0xFE] | [0xFE, 0xFF])) {
        let converted = utf16_to_utf8(path, bytes.to_vec())?;
        return export_text(path, &converted, what);
    }
    check_text(path, bytes, what)?;
    Ok(decode_text(bytes))
}

/// The largest export file read: a club's PBN or USEBIO export of one event is well
/// under a megabyte, so a file this large is not one, and reading it whole would only
/// exhaust memory.
pub const MAX_EXPORT_BYTES: u64 = 64 * 1024 * 1024;

/// The bytes of an export file, or an error naming it.
pub fn read_export(path: &std::path::Path) -> Result<Vec<u8>, InputError> {
    let cannot = |e: std::io::Error| {
        InputError::new(
            crate::error::Location::file(path),
            format!("cannot read the file: {e}"),
        )
    };
    let size = std::fs::metadata(path).map_err(cannot)?.len();
    if size > MAX_EXPORT_BYTES {
        return Err(InputError::new(
            crate::error::Location::file(path),
            format!(
                "the file has {size} bytes, more than the {MAX_EXPORT_BYTES} an export may have"
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(cannot)?;
    utf16_to_utf8(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Competition, Format, ScoringMethod};
    use chrono::NaiveDate;
    use std::path::Path;
    use std::sync::Arc;

    fn fragment(id: &str, file: &str, member: i64, name: Option<&str>) -> Dataset {
        let path: Arc<Path> = Arc::from(Path::new(file));
        let date = NaiveDate::from_ymd_opt(2024, 1, 2).unwrap_or_default();
        let mut competition = Competition::new(id, date, Format::Pairs, ScoringMethod::Matchpoints);
        competition.origin = Origin::new(&path, 1);
        let mut m = Member::new(member);
        m.name = name.map(str::to_string);
        Dataset {
            members: vec![m],
            competitions: vec![competition],
            ..Dataset::default()
        }
    }

    /// UTF-16 text, either byte order, becomes its UTF-8 bytes; a lone surrogate or an
    /// odd byte is refused as such; any other file is left as it is.
    #[test]
    fn utf16_text_becomes_utf8_and_broken_utf16_is_named() {
        let path = Path::new("x.xml");
        let le = [0xFF, 0xFE, b'<', 0, 0xE5, 0, b'>', 0];
        assert_eq!(utf16_to_utf8(path, le.to_vec()).unwrap(), "<å>".as_bytes());
        let be = [0xFE, 0xFF, 0, b'<', 0xD8, 0x3D, 0xDE, 0x00];
        assert_eq!(utf16_to_utf8(path, be.to_vec()).unwrap(), "<😀".as_bytes());
        let lone = [0xFF, 0xFE, b'<', 0, 0x00, 0xD8, b'>', 0];
        assert_eq!(
            utf16_to_utf8(path, lone.to_vec()).unwrap_err().rule,
            "the file starts with the byte order mark of UTF-16 (little-endian) but is not UTF-16 text: the unpaired surrogate D800 at byte 4; save it again as UTF-8"
        );
        assert_eq!(utf16_to_utf8(path, b"<x/>".to_vec()).unwrap(), b"<x/>");
        assert_eq!(export_text(path, &le, "a USEBIO XML").unwrap(), "<å>");
    }

    /// Text with tabs, form feeds, CRLF and the DOS end mark passes; a NUL byte or a run
    /// of control characters is binary.
    #[test]
    fn binary_bytes_are_not_text() {
        let path = Path::new("x.pbn");
        check_text(path, b"[Event \"x\"]\r\n\t\x0c\x1a", "a PBN").unwrap();
        assert_eq!(
            check_text(path, b"[Ev\0ent", "a PBN").unwrap_err().rule,
            "the file is not a PBN text file: it holds binary data (a NUL byte at byte 4); was another file given in its place?"
        );
        let mostly_text: Vec<u8> = [b"a".repeat(19), vec![1]].concat();
        check_text(path, &mostly_text, "a PBN").unwrap();
        let controls: Vec<u8> = [b"a".repeat(18), vec![1, 2]].concat();
        assert!(check_text(path, &controls, "a PBN").is_err());
    }

    #[test]
    fn utf8_and_latin1_decode_to_the_same_names() {
        assert_eq!(decode_text("Bjørnsen".as_bytes()), "Bjørnsen");
        assert_eq!(decode_text(b"Bj\xF8rnsen"), "Bjørnsen");
        assert_eq!(decode_text(b"\xEF\xBB\xBF\xC3\x85se"), "Åse");
        assert_eq!(decode_text(b"M\xFCller \xC5se"), "Müller Åse");
    }

    #[test]
    fn merge_keeps_order_and_dedupes_members() {
        let merged = merge([
            fragment("a", "a.pbn", 7, None),
            fragment("b", "b.pbn", 7, Some("Kari")),
        ]);
        let merged = merged.expect("distinct ids merge");
        assert_eq!(merged.competitions.len(), 2);
        assert_eq!(merged.competitions[0].competition_id, "a");
        assert_eq!(merged.members.len(), 1);
        assert_eq!(merged.members[0].name.as_deref(), Some("Kari"));
    }

    #[test]
    fn merge_rejects_a_competition_imported_twice() {
        let err = merge([
            fragment("x", "first.pbn", 1, None),
            fragment("x", "second.pbn", 2, None),
        ])
        .expect_err("duplicate id");
        assert_eq!(err.location.competition.as_deref(), Some("x"));
        assert_eq!(err.location.file.as_deref(), Some(Path::new("second.pbn")));
        assert!(err.rule.contains("first.pbn"), "{}", err.rule);
    }
}
