//! PBN 2.x result exports (Portable Bridge Notation), as written by Ruter and similar
//! club programs.
//!
//! A result export is a PBN file whose games carry, besides the deal, a `[ScoreTable]`
//! (one row per table that played the board) and, once, a `[TotalScoreTable]` (one row
//! per pair, with the players' federation numbers). Both tables declare their columns in
//! the tag value (`Table\1R;Round\1R;PairId_NS\2R;...`), and programs add, drop and reorder
//! columns between versions, so rows are read by the declared names, never by position.
//!
//! # Ruter's conventions, as its files show them
//!
//! Each claim below was checked against the numbers in the three Ruter exports of
//! the real club files' `pbn/` (see `tests/realdata.rs`, which asserts every figure):
//!
//! * **Encoding.** The files are ISO-8859-1 (`Bjørnsen` is the byte `0xF8`); other
//!   programs write UTF-8. A file that is valid UTF-8 is read as such, anything else as
//!   Latin-1, one byte to one character (`published::decode_text`).
//! * **Matchpoints on the ± scale.** `MP_NS` is pairs beaten minus pairs lost: with five
//!   tables the top is +4 and the bottom −4 (`mp_scale = plus_minus`). The board
//!   percentage is `50 + 50·MP/top`, printed as a whole number with halves rounded up
//!   (−3 of 4 prints 13, +3 of 4 prints 88). The pair percentage is the same formula over
//!   the pair's total and `boards × top`, to 2 decimals.
//! * **Byes.** A pair without opponents gets a row with the other pair id `-` and score
//!   `Bye`; its matchpoints are its own average over the boards it played
//!   (`bye_score = session_average`: pair 12 of 2016-08-10 totals −27.0 over 21 boards and
//!   gets −27/21 = −1.29 on each of its 3 bye boards, total −30.86, 33.93 %). Bye rows
//!   are not table results; they appear only in the published figures.
//! * **Cross-IMPs are summed** (`imp_aggregate = sum`): 480 against nine other results
//!   on board 1 of 2015-09-03 gives 52 IMPs, the sum of the nine comparisons.
//! * **Artificial scores** are written `A+`, `A=`, `A-` (60, 50 and 40 % of the top) in
//!   the score columns and become `adjusted = A6060`, `A5050`, ... A table with an
//!   artificial score stays out of the other tables' comparisons (board 2 of 2015-09-03:
//!   the nine real results are compared among themselves only). In that cross-IMP file
//!   an `A+`/`A+` table gets +9 IMPs on each side, one IMP per comparison the pair would
//!   have had; a single instance cannot tell this from a fixed +9.
//! * **A one-sided artificial score** (`A=` for N/S, `+0` for E/W) keeps the table's
//!   score (here 0) in the field's comparisons: every other N/S pair lost one matchpoint
//!   to it, E/W got the bottom, N/S the average. It is imported as a split score,
//!   `adjusted = A50/S` with `ns_score = 0` (see `scoring::outcome`).
//! * **Assigned scores.** `800>a` in a score column (board 18 of Bridgekameratene
//!   2015-09-24) is a table score the director overruled with assigned percentages: the
//!   800 leaves the comparisons (the other eight results are factored to nine: the top
//!   gets 7.9, not 7), and each side gets the percentage printed in its `Percentage_`
//!   column (60 and 60: +1.6 each of a top of 8). They become `adjusted = A6060`; `+N`
//!   in both score columns with N other than 0 is read the same way (none seen).
//! * **A shared `+0`.** `"+0"` in both score columns with contract `-` is a table score
//!   of 0 for both sides, ranked with the board's other scores: beside −200, −100, −50
//!   and +100 it gets +2 of ±4, 75 %, as Ruter prints it (not an assigned score: left
//!   out, the four others would be factored to −3.8, −1.2, 1.2 and 3.8).
//! * **A played row with an unlisted pair** (`-` on one side, a contract and a score)
//!   counts in the board's field, and the listed pair gets its points; the unlisted
//!   pair is reported (`NoteKind::Unlisted`), not imported.
//! * **A cut-short export** (a board with fewer rows than `TableCount`, fewer boards
//!   than `BoardCount`) is refused: Ruter writes a row for every table on every board.
//! * **Penalty rows** have `Pen` in both score columns and move the pairs' totals (the
//!   `ScorePenalty` column repeats the amount) without counting towards the session
//!   average of a bye. Their points become the `ns_penalty` and `ew_penalty` of the
//!   same pairs' table result on that board.
//! * **Passed-out boards** have contract `Pass` and score 0.
//! * **Pairs without a federation number** show `+000` as the number, and guests get a
//!   club-local number with a plus sign (`+57`): such a player is a non-member and gets
//!   no member row, however often the number recurs.
//! * **Phantoms and unnamed pairs.** A pair printed `+ - +` (no names, no numbers) that
//!   has table results is a pair of non-members, not a phantom (pair 14 of Spiren
//!   2015-12-09, `PhantomCount 0`, ranked 14th). A phantom is a listed pair with no
//!   table result; Ruter usually lists none and writes `-` for the opponent of a bye.
//! * **A number typed twice** in one pair keeps the first player; the second is an
//!   unknown non-member with the printed name, and a note says so.
//!
//! Whatever the importer does not import as printed is in [`Imported::notes`] (for the
//! import report), and every `[ScoreTable]` row that is not a table result is in
//! [`Imported::rows_not_imported`] with why, so rows can be counted against the file.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;

use crate::dataset::{
    BoardResult, Competition, Dataset, Direction, Entrant, Format, Member, Origin, ScoringMethod,
    Text,
};
use crate::error::{InputError, Location};
use crate::import::published::{
    slug, ExportSource, Imported, LineKind, Note, NoteKind, Precision, Published, PublishedLine,
    PublishedStanding,
};
use crate::scoring::contract::{normalize_contract, MAX_TRICKS};
use crate::scoring::conventions::Conventions;
use crate::scoring::outcome::artificial_code;

/// Reads a PBN result export.
pub fn parse(path: impl AsRef<Path>) -> Result<Imported, InputError> {
    super::published::parse_file(path.as_ref(), parse_bytes)
}

/// Reads a PBN result export already in memory; `path` names it in errors and origins.
pub fn parse_bytes(path: &Path, bytes: &[u8]) -> Result<Imported, InputError> {
    let source = ExportSource::decode(path, bytes, "a PBN")?;
    let raw = read_lines(&source.file, &source.text)?;
    build(&source.file, raw)
}

/// A table row, by declared column name.
struct Row {
    origin: Origin,
    board: Option<u32>,
    fields: HashMap<String, String>,
}

#[derive(Default)]
struct Raw {
    /// `% <META name=... content="...">` headers, with the line they are on.
    meta: BTreeMap<String, (String, Origin)>,
    /// First value of each game tag in the file (Event, Date, Scoring, Competition, ...).
    tags: BTreeMap<String, (String, Origin)>,
    score_rows: Vec<Row>,
    total_rows: Vec<Row>,
    total_seen: bool,
}

enum Table {
    None,
    Score(Vec<String>),
    Total(Vec<String>),
    /// A table this importer has no use for (OptimumResultTable, ...).
    Other,
}

fn err(origin: &Origin, rule: impl Into<String>) -> InputError {
    InputError::new(origin.location(), rule)
}

/// The longest line accepted. PBN lines are a tag or one table row (a few hundred
/// characters); a longer one is not PBN, and the limit keeps a hostile file from making
/// the tokenizer hold a huge row.
const MAX_LINE: usize = 64 * 1024;

fn read_lines(file: &Arc<Path>, text: &str) -> Result<Raw, InputError> {
    let mut lines = Lines {
        raw: Raw::default(),
        table: Table::None,
        board: None,
        in_comment: false,
    };
    for (index, line) in text.split('\n').enumerate() {
        let origin = Origin::new(file, index + 1);
        if line.len() > MAX_LINE {
            return Err(err(
                &origin,
                format!(
                    "the line is {} characters long; a PBN line holds at most {MAX_LINE}",
                    line.len()
                ),
            ));
        }
        lines.line(line.trim_end_matches('\r').trim(), origin)?;
    }
    Ok(lines.raw)
}

/// The file read so far, with where the reading is: in which table, under which
/// board, inside a `{ ... }` comment or not.
struct Lines {
    raw: Raw,
    table: Table,
    board: Option<u32>,
    in_comment: bool,
}

impl Lines {
    /// One line, trimmed: a comment, a `%` header, a blank line ending a table, a tag,
    /// or a row of the current table.
    fn line(&mut self, trimmed: &str, origin: Origin) -> Result<(), InputError> {
        if self.in_comment {
            self.in_comment = !trimmed.contains('}');
            return Ok(());
        }
        if trimmed.starts_with('{') {
            self.in_comment = !trimmed.contains('}');
            return Ok(());
        }
        if trimmed.starts_with(';') {
            return Ok(());
        }
        if let Some(rest) = trimmed.strip_prefix('%') {
            if let Some((name, content)) = parse_meta(rest, &origin)? {
                self.raw.meta.entry(name).or_insert((content, origin));
            }
            return Ok(());
        }
        if trimmed.is_empty() {
            self.table = Table::None;
            return Ok(());
        }
        if trimmed.starts_with('[') {
            return self.tag(trimmed, origin);
        }
        self.table_row(trimmed, origin)
    }

    /// A game tag: `[Board]` sets the board, `[ScoreTable]` and `[TotalScoreTable]`
    /// start a table whose rows follow.
    fn tag(&mut self, trimmed: &str, origin: Origin) -> Result<(), InputError> {
        let (name, value) = parse_tag(trimmed, &origin)?;
        self.table = Table::None;
        match name.as_str() {
            "Event" => self.board = None,
            "Board" => {
                self.board = Some(value.trim().parse::<u32>().map_err(|_| {
                    err(
                        &origin,
                        format!("[Board] tag value `{value}` is not a board number"),
                    )
                })?);
            }
            "ScoreTable" => {
                if self.board.is_none() {
                    return Err(err(&origin, "[ScoreTable] before any [Board] tag"));
                }
                self.table = Table::Score(column_names(&value, &origin)?);
            }
            "TotalScoreTable" => {
                if self.raw.total_seen {
                    return Err(err(&origin, "a second [TotalScoreTable]"));
                }
                self.raw.total_seen = true;
                self.table = Table::Total(column_names(&value, &origin)?);
            }
            tag if tag.ends_with("Table") => self.table = Table::Other,
            _ => {}
        }
        self.raw.tags.entry(name).or_insert((value, origin));
        Ok(())
    }

    /// A row of the current table, its fields named by the table tag's columns.
    fn table_row(&mut self, trimmed: &str, origin: Origin) -> Result<(), InputError> {
        let board = self.board;
        let (columns, target, what) = match &self.table {
            Table::None => {
                return Err(err(
                    &origin,
                    format!("line `{trimmed}` is neither a tag nor a row of a table"),
                ))
            }
            Table::Other => return Ok(()),
            Table::Score(columns) => (columns, &mut self.raw.score_rows, "ScoreTable"),
            Table::Total(columns) => (columns, &mut self.raw.total_rows, "TotalScoreTable"),
        };
        let tokens = tokenize(trimmed).map_err(|rule| {
            let mut location = origin.location();
            location.board = board;
            InputError::new(location, format!("{what} row: {rule}"))
        })?;
        if tokens.len() != columns.len() {
            let mut location = origin.location();
            location.board = board;
            return Err(InputError::new(
                location,
                format!(
                    "{what} row has {} fields but the tag declares {} columns ({})",
                    tokens.len(),
                    columns.len(),
                    columns.join(";")
                ),
            ));
        }
        target.push(Row {
            origin,
            board: if what == "ScoreTable" { board } else { None },
            fields: columns.iter().cloned().zip(tokens).collect(),
        });
        Ok(())
    }
}

/// `<META  name=Generator  content="Ruter i Norge">`; other `%` lines are comments.
fn parse_meta(rest: &str, origin: &Origin) -> Result<Option<(String, String)>, InputError> {
    let rest = rest.trim();
    let Some(body) = rest.strip_prefix("<META") else {
        return Ok(None);
    };
    let broken = || err(origin, format!("unparseable META header `{rest}`"));
    let body = body.trim().strip_suffix('>').ok_or_else(broken)?;
    let name_start = body.find("name=").ok_or_else(broken)? + "name=".len();
    let name: String = body[name_start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let content_start = body.find("content=\"").ok_or_else(broken)? + "content=\"".len();
    let content = body[content_start..].strip_suffix('"').ok_or_else(broken)?;
    if name.is_empty() {
        return Err(broken());
    }
    Ok(Some((
        name.trim_matches('"').to_string(),
        content.to_string(),
    )))
}

/// `[Name "value"]`, with `\"` and `\\` escapes in the value.
fn parse_tag(line: &str, origin: &Origin) -> Result<(String, String), InputError> {
    let broken = || {
        err(
            origin,
            format!("unparseable tag `{line}`: expected [Name \"value\"]"),
        )
    };
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(broken)?;
    let (name, value) = inner.split_once(char::is_whitespace).ok_or_else(broken)?;
    let value = value.trim();
    let quoted = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .ok_or_else(broken)?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(broken());
    }
    let mut out = String::with_capacity(quoted.len());
    let mut chars = quoted.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if next == '"' || next == '\\' {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    Ok((name.to_string(), out))
}

/// `Table\1R;Round\1R;...`: the names before each width and alignment.
fn column_names(value: &str, origin: &Origin) -> Result<Vec<String>, InputError> {
    let mut names = Vec::new();
    for spec in value.split(';') {
        let name = spec.split('\\').next().unwrap_or_default().trim();
        if name.is_empty() {
            return Err(err(
                origin,
                format!("table column declaration `{value}` has an empty column name"),
            ));
        }
        if names.iter().any(|n| n == name) {
            return Err(err(origin, format!("table declares column `{name}` twice")));
        }
        names.push(name.to_string());
    }
    Ok(names)
}

/// Splits a table row on whitespace; a quoted string is one field (without its quotes).
fn tokenize(line: &str) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '"' {
            chars.next();
            let mut token = String::new();
            let mut closed = false;
            for c in chars.by_ref() {
                if c == '"' {
                    closed = true;
                    break;
                }
                token.push(c);
            }
            if !closed {
                return Err("unterminated quoted field".to_string());
            }
            tokens.push(token);
        } else {
            let mut token = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                token.push(c);
                chars.next();
            }
            tokens.push(token);
        }
    }
    Ok(tokens)
}

impl Row {
    fn location(&self, column: &str) -> Location {
        let mut location = self.origin.location().column(column);
        location.board = self.board;
        location
    }

    fn error(&self, column: &str, rule: impl Into<String>) -> InputError {
        InputError::new(self.location(column), rule)
    }

    /// A field the table must have.
    fn get(&self, column: &str) -> Result<&str, InputError> {
        self.fields
            .get(column)
            .map(String::as_str)
            .ok_or_else(|| self.error(column, format!("the table has no `{column}` column")))
    }

    /// A field that may be missing from the table, or `-`.
    fn optional(&self, column: &str) -> Option<&str> {
        self.fields
            .get(column)
            .map(|s| s.trim())
            .filter(|s| !s.is_empty() && *s != "-")
    }

    fn optional_f64(&self, column: &str) -> Result<Option<f64>, InputError> {
        self.optional(column)
            .map(|v| {
                v.parse::<f64>()
                    .map_err(|_| self.error(column, format!("`{v}` is not a number")))
            })
            .transpose()
    }

    fn first_f64(&self, columns: &[&str]) -> Result<Option<f64>, InputError> {
        for column in columns {
            if self.fields.contains_key(*column) {
                return self.optional_f64(column);
            }
        }
        Ok(None)
    }
}

fn build(file: &Arc<Path>, raw: Raw) -> Result<Imported, InputError> {
    let competition = read_competition(file, &raw)?;
    check_complete(&raw, &competition)?;
    if raw.total_rows.is_empty() {
        return Err(err(
            &competition.origin,
            "no [TotalScoreTable] rows: the export lists no pairs and no member numbers",
        ));
    }
    let mut builder = Builder {
        competition_id: competition.competition_id.clone(),
        dataset: Dataset::default(),
        published: Published {
            competition_id: competition.competition_id.clone(),
            program: raw
                .meta
                .get("Generator")
                .map(|(v, _)| v.trim().to_string())
                .unwrap_or_default(),
            ..Published::default()
        },
        member_ids: BTreeSet::new(),
        pair_ids: BTreeSet::new(),
        with_results: pairs_with_results(&raw.score_rows),
        phantoms: BTreeSet::new(),
        seats: BTreeMap::new(),
        notes: Vec::new(),
        rows_not_imported: Vec::new(),
        unlisted: BTreeSet::new(),
    };
    for row in &raw.total_rows {
        builder.total_row(row)?;
    }
    let mut penalties: Vec<(&Row, PublishedLine)> = Vec::new();
    for row in &raw.score_rows {
        if let Some(line) = builder.score_row(row)? {
            penalties.push((row, line));
        }
    }
    for (row, line) in penalties {
        attach_penalty(row, &line, &mut builder.dataset.boards)?;
    }
    builder.fix_directions();
    builder.dataset.competitions.push(competition);
    Ok(Imported {
        dataset: builder.dataset,
        published: builder.published,
        notes: builder.notes,
        rows_not_imported: builder.rows_not_imported,
    })
}

/// Refuses an export cut short. Ruter writes a row for every table of the movement on
/// every board (a bye, a board not played and an artificial score included; a penalty
/// is a row more), so each board holds `TableCount` rows, and the file `BoardCount`
/// boards: every one of the 85 Ruter files seen does. A board with fewer rows, or fewer
/// boards than the header says, is an export that stopped early (the last lines of
/// the file lost): rated, its boards would be scored on the results that happen to be
/// left, so it is refused, naming the board and how many results are missing.
fn check_complete(raw: &Raw, competition: &Competition) -> Result<(), InputError> {
    let mut rows: BTreeMap<u32, (usize, &Row)> = BTreeMap::new();
    for row in &raw.score_rows {
        let Some(board) = row.board else { continue };
        let penalty = ["Score_NS", "Score_EW"]
            .iter()
            .any(|c| row.fields.get(*c).is_some_and(|t| is_penalty(t.trim())));
        if penalty {
            continue;
        }
        let entry = rows.entry(board).or_insert((0, row));
        entry.0 += 1;
        entry.1 = row;
    }
    let declared = raw
        .meta
        .get("TableCount")
        .and_then(|(text, _)| text.trim().parse::<usize>().ok());
    let most = rows.values().map(|(count, _)| *count).max().unwrap_or(0);
    let ruter = raw
        .meta
        .get("Generator")
        .is_some_and(|(name, _)| name.to_ascii_lowercase().contains("ruter"));
    // Without `TableCount`, only Ruter is known to write a row for every table.
    let (expected, source) = match declared {
        Some(tables) => (tables, format!("TableCount {tables}")),
        None if ruter => (most, "as many as its fullest board".to_string()),
        None => (0, String::new()),
    };
    for (board, (count, last)) in &rows {
        if *count < expected {
            let mut location = last.origin.location();
            location.board = Some(*board);
            return Err(InputError::new(
                location,
                format!(
                    "board {board} holds {count} results where the movement has {expected} tables ({source}): {} result{} missing; the export is incomplete (cut short?) and is not imported",
                    expected - count,
                    if expected - count == 1 { " is" } else { "s are" }
                ),
            ));
        }
    }
    if let Some(boards) = competition.boards {
        if (rows.len() as u64) < u64::from(boards) && !rows.is_empty() {
            return Err(err(
                &competition.origin,
                format!(
                    "the export holds results for {} boards where BoardCount says {boards}: the export is incomplete (cut short?) and is not imported",
                    rows.len()
                ),
            ));
        }
    }
    Ok(())
}

/// The pairs that have a table result: a row with both pairs that is neither a bye nor
/// empty. A listed pair outside this set played nothing, which is what a phantom is
/// (Ruter lists a phantom, if at all, as a pair whose only rows are byes). A pair
/// printed without names (`+ - +`) that played is a real pair of non-members: in
/// Spiren's 2015-12-09 pair 14 played all 21 boards and Ruter ranked it 14th, and in
/// 2015-11-11 pair 11 played 18 boards and sat out 3, the file's one phantom being the
/// empty opponent (`-`) of its bye rows.
fn pairs_with_results(rows: &[Row]) -> BTreeSet<String> {
    let pair = |row: &Row, column: &str| {
        row.fields
            .get(column)
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty() && t != "-")
    };
    let mut played = BTreeSet::new();
    for row in rows {
        let score = |column: &str| row.fields.get(column).map_or("", |t| t.trim());
        let (score_ns, score_ew) = (score("Score_NS"), score("Score_EW"));
        let bye = |t: &str| t.eq_ignore_ascii_case("bye");
        let blank = |t: &str| t.is_empty() || t == "-";
        if bye(score_ns) || bye(score_ew) || (blank(score_ns) && blank(score_ew)) {
            continue;
        }
        // A played row against a pair the file does not list still has a result for
        // the listed one.
        played.extend(pair(row, "PairId_NS"));
        played.extend(pair(row, "PairId_EW"));
    }
    played
}

impl Raw {
    /// A `% <META>` header's value, if not blank, with its line.
    fn meta(&self, name: &str) -> Option<(&str, &Origin)> {
        self.meta
            .get(name)
            .map(|(v, o)| (v.trim(), o))
            .filter(|(v, _)| !v.is_empty())
    }

    /// A game tag's first value, if not blank, with its line.
    fn tag(&self, name: &str) -> Option<(&str, &Origin)> {
        self.tags
            .get(name)
            .map(|(v, o)| (v.trim(), o))
            .filter(|(v, _)| !v.is_empty())
    }
}

/// The competition row, from the headers (`% <META ...>`) and the game tags.
fn read_competition(file: &Arc<Path>, raw: &Raw) -> Result<Competition, InputError> {
    let file_origin = Origin::new(file, 1);
    let scoring = read_scoring(raw, &file_origin)?;
    let date = read_date(raw, &file_origin)?;
    if let Some((kind, origin)) = raw.tag("Competition") {
        if !kind.eq_ignore_ascii_case("pairs") {
            return Err(err(
                origin,
                format!("[Competition \"{kind}\"]: only pairs events can be imported from PBN"),
            ));
        }
    }

    let title = raw
        .meta("ContestName")
        .or_else(|| raw.tag("Event"))
        .map(|(v, _)| v.to_string());
    let club = raw
        .meta("Arranger")
        .or_else(|| raw.meta("Licencee"))
        .map(|(v, _)| v.to_string());
    let serial = raw.meta("SerialNumber").map(|(v, _)| v.to_string());
    let mut id_parts = vec![date.format("%Y-%m-%d").to_string()];
    id_parts.extend(club.as_deref().or(title.as_deref()).map(slug));
    id_parts.extend(serial.as_deref().map(slug));
    let competition_id = format!("pbn-{}", id_parts.join("-"));

    let generator = raw.meta("Generator").map(|(v, _)| v).unwrap_or_default();
    let boards = match raw.meta("BoardCount") {
        Some((text, origin)) => Some(text.parse::<u32>().map_err(|_| {
            err(
                origin,
                format!("BoardCount `{text}` is not a number of boards"),
            )
        })?),
        None => None,
    };

    let mut competition = Competition::new(&competition_id, date, Format::Pairs, scoring);
    competition.boards = boards;
    competition.title = title;
    competition.club = club;
    competition.conventions = Conventions::of_program(generator);
    competition.origin = file_origin;
    Ok(competition)
}

/// The scoring, from the `ScoringType` header or the `[Scoring]` tag; a Swiss pairs
/// event is refused by name.
fn read_scoring(raw: &Raw, file_origin: &Origin) -> Result<ScoringMethod, InputError> {
    let (scoring_text, scoring_origin) = raw
        .meta("ScoringType")
        .or_else(|| raw.tag("Scoring"))
        .ok_or_else(|| err(file_origin, "no ScoringType header and no [Scoring] tag"))?;
    let swiss = |text: &str| {
        let lower = text.to_ascii_lowercase();
        ["swiss", "monrad", "vp"].iter().any(|word| {
            lower
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w == *word)
        })
    };
    // No PBN export of a Swiss pairs event has been seen to check a reading against
    // (its matches and victory points are not in the PBN standard's tags), so one is
    // refused by name rather than read as a plain pairs event.
    if let Some((text, origin)) = [Some((scoring_text, scoring_origin)), raw.tag("Competition")]
        .into_iter()
        .flatten()
        .find(|(text, _)| swiss(text))
    {
        return Err(err(
            origin,
            format!(
                "`{text}` is a Swiss pairs event, which cannot be imported from PBN: give it as a dataset with scoring `swiss_pairs` (each board row with its `round`)"
            ),
        ));
    }
    scoring_method(scoring_text)
        .ok_or_else(|| err(scoring_origin, format!("unknown scoring `{scoring_text}`")))
}

/// The session's date: the `ContestDate` header (YYYY-MM-DD), else the `[Date]` or
/// `[EventDate]` tag (YYYY.MM.DD).
fn read_date(raw: &Raw, file_origin: &Origin) -> Result<NaiveDate, InputError> {
    match raw.meta("ContestDate") {
        Some((text, origin)) => NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map_err(|_| err(origin, format!("ContestDate `{text}` is not YYYY-MM-DD"))),
        None => {
            let (text, origin) = raw
                .tag("Date")
                .or_else(|| raw.tag("EventDate"))
                .ok_or_else(|| err(file_origin, "no ContestDate header and no [Date] tag"))?;
            NaiveDate::parse_from_str(text, "%Y.%m.%d")
                .map_err(|_| err(origin, format!("[Date] `{text}` is not YYYY.MM.DD")))
        }
    }
}

/// What the tables of one file add up to, row by row.
struct Builder {
    competition_id: String,
    dataset: Dataset,
    published: Published,
    member_ids: BTreeSet<i64>,
    pair_ids: BTreeSet<String>,
    /// The pairs with a table result (`pairs_with_results`).
    with_results: BTreeSet<String>,
    /// Phantom pairs: a table against one is a bye for the real pair.
    phantoms: BTreeSet<String>,
    /// The directions each pair sat in.
    seats: BTreeMap<String, BTreeSet<Direction>>,
    notes: Vec<Note>,
    rows_not_imported: Vec<Note>,
    /// The unlisted pairs already reported: (table, round, side).
    unlisted: BTreeSet<(Option<u32>, Option<u32>, &'static str)>,
}

impl Builder {
    /// A `[TotalScoreTable]` row: an entrant, its numbered players as members, and the
    /// published standing.
    fn total_row(&mut self, row: &Row) -> Result<(), InputError> {
        let pair = row.get("PairId")?.trim().to_string();
        if pair.is_empty() || pair == "-" {
            return Err(row.error("PairId", "a pair without a pair number"));
        }
        if !self.pair_ids.insert(pair.clone()) {
            return Err(row.error("PairId", format!("pair `{pair}` is listed twice")));
        }
        if !self.with_results.contains(&pair) {
            // A phantom fills an odd table; its opponents sit out (see `score_row`).
            self.notes.push(Note {
                kind: NoteKind::Phantom,
                origin: row.origin.clone(),
                board: None,
                reason: format!(
                    "pair {pair} (`{}`) has no table result: a phantom, not imported",
                    row.optional("Names").unwrap_or("-")
                ),
            });
            self.phantoms.insert(pair);
            return Ok(());
        }
        let entrant = self.entrant(row, &pair)?;
        self.dataset.entrants.push(entrant);
        let precision = &mut self.published.precision;
        for column in ["TotalScoreMP", "TotalScoreIMP", "TotalScore"] {
            if let Some(text) = row.optional(column) {
                Precision::see(&mut precision.total, text);
            }
        }
        if let Some(text) = row.optional("TotalPercentage") {
            Precision::see(&mut precision.percent, text);
        }
        let standing = published_standing(row, pair)?;
        self.published.standings.push(standing);
        Ok(())
    }

    /// The entrant of a total row; its numbered players join the members once.
    fn entrant(&mut self, row: &Row, pair: &str) -> Result<Entrant, InputError> {
        let names = split_pair(row.optional("Names"));
        let clubs = split_pair(row.optional("Club"));
        let mut entrant = Entrant::new(&self.competition_id, pair);
        entrant.origin = row.origin.clone();
        for (slot, name) in entrant.names.iter_mut().zip(names.iter().take(2)) {
            slot.clone_from(name);
        }
        for (slot, club) in entrant.clubs.iter_mut().take(2).enumerate() {
            *club = clubs
                .get(slot)
                .cloned()
                .flatten()
                .or_else(|| clubs.first().cloned().flatten());
        }
        for (slot, column) in ["MemberID1", "MemberID2"].into_iter().enumerate() {
            let Some(id) = member_id(row, column)? else {
                continue;
            };
            if slot > 0 && entrant.players[0] == Some(id) {
                // A scorer typed the partner's number twice: the first player keeps it,
                // the second is a player nobody can identify.
                self.notes.push(Note {
                    kind: NoteKind::NonMember,
                    origin: row.origin.clone(),
                    board: None,
                    reason: format!(
                        "number {id} is given for both players of pair {pair} (`{}`): \
                         the first keeps it, the second (`{}`) is imported as an unknown \
                         non-member",
                        names.first().cloned().flatten().unwrap_or_default(),
                        names.get(1).cloned().flatten().unwrap_or_default()
                    ),
                });
                continue;
            }
            if let Some(player) = entrant.players.get_mut(slot) {
                *player = Some(id);
            }
            if self.member_ids.insert(id) {
                let mut member = Member::new(id);
                member.name = names.get(slot).cloned().flatten();
                member.club = entrant.clubs.get(slot).cloned().flatten();
                member.origin = row.origin.clone();
                self.dataset.members.push(member);
            }
        }
        if entrant.players.iter().all(Option::is_none) && entrant.names.iter().all(Option::is_none)
        {
            // A pair that played, printed without names or numbers (`+ - +`).
            entrant.names[0] = Some(format!("unnamed pair {pair}"));
            self.notes.push(Note {
                kind: NoteKind::NonMember,
                origin: row.origin.clone(),
                board: None,
                reason: format!(
                    "pair {pair} is printed without names or numbers (`{}`) but played: \
                     imported as a pair of non-members",
                    row.optional("Names").unwrap_or("-")
                ),
            });
        }
        Ok(entrant)
    }

    /// A `[ScoreTable]` row: a table result, a bye, or a director's penalty. A penalty's
    /// line is returned, to be added to its table once every table is read.
    fn score_row(&mut self, row: &Row) -> Result<Option<PublishedLine>, InputError> {
        let board = row
            .board
            .ok_or_else(|| row.error("Board", "row outside a board"))?;
        // A table against the phantom is a bye for the real pair.
        let real = |pair: Option<String>| pair.filter(|p| !self.phantoms.contains(p));
        let ns = real(pair_field(row, "PairId_NS", &self.pair_ids)?);
        let ew = real(pair_field(row, "PairId_EW", &self.pair_ids)?);
        let score_ns = row.get("Score_NS")?.trim();
        let score_ew = row.get("Score_EW")?.trim();
        let mut line = self.printed_line(row, board, &ns, &ew)?;
        if is_penalty(score_ns) || is_penalty(score_ew) {
            return Ok(Some(self.penalty_row(row, line)));
        }
        for (pair, direction) in [(&ns, Direction::NS), (&ew, Direction::EW)] {
            if let Some(pair) = pair {
                self.seats
                    .entry(pair.clone())
                    .or_default()
                    .insert(direction);
            }
        }
        let bye = |t: &str| t.eq_ignore_ascii_case("bye");
        // `-` for a pair (not a listed phantom) beside a played result.
        let unlisted = |column: &str| row.optional(column).is_none();
        let one_unlisted = (ns.is_none() && unlisted("PairId_NS") && ew.is_some())
            || (ew.is_none() && unlisted("PairId_EW") && ns.is_some());
        let blank = |t: &str| t.is_empty() || t == "-";
        let played = !blank(score_ns) || !blank(score_ew);
        if one_unlisted && played && !bye(score_ns) && !bye(score_ew) {
            return self.unlisted_pair_row(row, board, score_ns, score_ew, line);
        }
        let (Some(ns), Some(ew)) = (ns, ew) else {
            self.bye_row(row, line)?;
            return Ok(None);
        };
        let result = BoardResult {
            competition_id: self.competition_id.as_str().into(),
            board,
            ns: Some(ns.into()),
            ew: Some(ew.into()),
            round: optional_u32(row, "Round")?,
            table: optional_u32(row, "Table")?,
            origin: row.origin.clone(),
            ..BoardResult::default()
        };
        match table_result(row, score_ns, score_ew, &mut line, result)? {
            Some(result) => {
                self.dataset.boards.push(result);
                self.published.lines.push(line);
            }
            None => self.row_not_imported(
                row,
                "the board was not played at this table (no contract, no score)".to_string(),
            ),
        }
        Ok(None)
    }

    /// What the program printed on a `[ScoreTable]` row: each side's points and
    /// percentage, the precision of the points seen.
    fn printed_line(
        &mut self,
        row: &Row,
        board: u32,
        ns: &Option<String>,
        ew: &Option<String>,
    ) -> Result<PublishedLine, InputError> {
        let line = PublishedLine {
            board,
            kind: LineKind::Played,
            ns: ns.clone(),
            ew: ew.clone(),
            ns_points: row.first_f64(&["MP_NS", "IMP_NS"])?,
            ew_points: row.first_f64(&["MP_EW", "IMP_EW"])?,
            ns_percent: row.optional_f64("Percentage_NS")?,
            ew_percent: row.optional_f64("Percentage_EW")?,
            origin: row.origin.clone(),
        };
        for column in ["MP_NS", "MP_EW", "IMP_NS", "IMP_EW"] {
            if let Some(text) = row.optional(column) {
                Precision::see(&mut self.published.precision.line, text);
            }
        }
        Ok(line)
    }

    /// A director's penalty row: published, reported as not imported, and returned to
    /// be added to its table's result.
    fn penalty_row(&mut self, row: &Row, mut line: PublishedLine) -> PublishedLine {
        line.kind = LineKind::Penalty;
        self.published.lines.push(line.clone());
        self.row_not_imported(
            row,
            format!(
                "a penalty row: its points are added to the result of pairs {} and {} on board {}",
                line.ns.as_deref().unwrap_or("-"),
                line.ew.as_deref().unwrap_or("-"),
                line.board
            ),
        );
        line
    }

    /// A row with one pair only: a bye, scored by the competition's bye rule.
    fn bye_row(&mut self, row: &Row, mut line: PublishedLine) -> Result<(), InputError> {
        if line.ns.is_none() && line.ew.is_none() {
            return Err(row.error("PairId_NS", "a row with neither pair"));
        }
        line.kind = LineKind::Bye;
        let pair = line.ns.as_deref().or(line.ew.as_deref()).unwrap_or("-");
        self.row_not_imported(
            row,
            format!("a bye for pair {pair}: scored by the competition's bye rule"),
        );
        self.published.lines.push(line);
        Ok(())
    }

    /// A table played by a pair the `[TotalScoreTable]` does not list (`-` on one side,
    /// a contract and a score): Ruter counts it in the board's field and gives the
    /// listed side its points, so it is a table result with one side empty. Its pair is
    /// reported once per table and round; it is no phantom, since it played.
    fn unlisted_pair_row(
        &mut self,
        row: &Row,
        board: u32,
        score_ns: &str,
        score_ew: &str,
        mut line: PublishedLine,
    ) -> Result<Option<PublishedLine>, InputError> {
        let result = BoardResult {
            competition_id: self.competition_id.as_str().into(),
            board,
            ns: line.ns.as_deref().map(Into::into),
            ew: line.ew.as_deref().map(Into::into),
            round: optional_u32(row, "Round")?,
            table: optional_u32(row, "Table")?,
            origin: row.origin.clone(),
            ..BoardResult::default()
        };
        let Some(result) = table_result(row, score_ns, score_ew, &mut line, result)? else {
            self.row_not_imported(
                row,
                "the board was not played at this table (no contract, no score)".to_string(),
            );
            return Ok(None);
        };
        let (side, listed) = match (&line.ns, &line.ew) {
            (None, Some(ew)) => ("N/S", ew.as_str()),
            (Some(ns), _) => ("E/W", ns.as_str()),
            (None, None) => ("N/S", "-"),
        };
        let key = (result.table, result.round, side);
        if self.unlisted.insert(key) {
            self.notes.push(Note {
                kind: NoteKind::Unlisted,
                origin: row.origin.clone(),
                board: Some(board),
                reason: format!(
                    "the {side} pair at table {} in round {} (against pair {listed}) is not \
                     listed in the [TotalScoreTable] but played: its results count in the \
                     boards' fields, and the pair is not imported",
                    result.table.map_or("-".to_string(), |t| t.to_string()),
                    result.round.map_or("-".to_string(), |r| r.to_string()),
                ),
            });
        }
        self.dataset.boards.push(result);
        self.published.lines.push(line);
        Ok(None)
    }

    fn row_not_imported(&mut self, row: &Row, reason: String) {
        self.rows_not_imported.push(Note {
            kind: NoteKind::Row,
            origin: row.origin.clone(),
            board: row.board,
            reason,
        });
    }

    /// A pair that sat in one direction all session, as every pair of a Mitchell does,
    /// gets that direction (and is ranked in its line).
    fn fix_directions(&mut self) {
        let seats = &self.seats;
        if seats.is_empty() || !seats.values().all(|s| s.len() == 1) {
            return;
        }
        let direction_of = |pair: &str| seats.get(pair).and_then(|s| s.iter().next().copied());
        for entrant in &mut self.dataset.entrants {
            entrant.direction = direction_of(&entrant.entrant);
        }
        for standing in &mut self.published.standings {
            standing.direction = direction_of(&standing.entrant);
        }
    }
}

/// The published standing of a total row.
fn published_standing(row: &Row, pair: String) -> Result<PublishedStanding, InputError> {
    let rank_text = row.get("Rank")?.trim();
    let rank = rank_text
        .parse::<u32>()
        .map_err(|_| row.error("Rank", format!("`{rank_text}` is not a rank")))?;
    let score = row
        .first_f64(&["TotalScoreMP", "TotalScoreIMP", "TotalScore"])?
        .ok_or_else(|| {
            row.error(
                "TotalScoreMP",
                "no total score (TotalScoreMP or TotalScoreIMP)",
            )
        })?;
    let boards_played = match row.optional("NrBoards") {
        Some(v) => Some(
            v.parse::<u32>()
                .map_err(|_| row.error("NrBoards", format!("`{v}` is not a board count")))?,
        ),
        None => None,
    };
    Ok(PublishedStanding {
        entrant: pair,
        score,
        percent: row.optional_f64("TotalPercentage")?,
        rank,
        boards_played,
        penalty: row.optional_f64("ScorePenalty")?,
        direction: None,
        origin: row.origin.clone(),
    })
}

/// The result of a table with both pairs, from its score columns (artificial scores,
/// assigned percentages, a contract or a score alone); `line` gets the kind. `None` for
/// a board written into the movement but never played: no result, no line.
fn table_result(
    row: &Row,
    score_ns: &str,
    score_ew: &str,
    line: &mut PublishedLine,
    mut result: BoardResult,
) -> Result<Option<BoardResult>, InputError> {
    if is_shared_zero(score_ns, score_ew) {
        // `+0` on both sides: the table's score is 0 for both, ranked with the others.
        result.ns_score = Some(0);
        return Ok(Some(result));
    }
    if is_assigned(score_ns, score_ew) {
        // A table score overruled by assigned percentages (`800>a`, `+0`/`+0`): the
        // score leaves the comparisons, each side gets the percentage printed for it.
        line.kind = LineKind::Artificial;
        let ns_share = assigned_share(row, score_ns, score_ew, "Percentage_NS", line.ns_percent)?;
        let ew_share = assigned_share(row, score_ns, score_ew, "Percentage_EW", line.ew_percent)?;
        result.adjusted = Some(artificial_code(ns_share, ew_share).into());
        return Ok(Some(result));
    }
    let ns_mark = artificial_share(score_ns);
    let ew_mark = artificial_share(score_ew);
    match (ns_mark, ew_mark) {
        (Some(ns_share), Some(ew_share)) => {
            line.kind = LineKind::Artificial;
            result.adjusted = Some(artificial_code(ns_share, ew_share).into());
        }
        (Some(_), None) | (None, Some(_)) => {
            // One side artificial, the table's score still in the comparisons.
            line.kind = LineKind::Artificial;
            let side = |share: Option<u8>| share.map_or("S".to_string(), |p| format!("A{p}"));
            result.adjusted = Some(format!("{}/{}", side(ns_mark), side(ew_mark)).into());
            result.ns_score = Some(table_score(row, score_ns, score_ew, true)?);
        }
        (None, None) => {
            let contract = row.get("Contract")?.trim();
            let blank = |t: &str| t.is_empty() || t == "-";
            if blank(contract) && blank(score_ns) && blank(score_ew) {
                return Ok(None);
            }
            if blank(contract) {
                // `-` with a score: the score alone (0 for a board passed out).
                result.ns_score = Some(table_score(row, score_ns, score_ew, false)?);
                if result.ns_score == Some(0) {
                    result.contract = Some("PASS".into());
                }
                return Ok(Some(result));
            }
            if contract.eq_ignore_ascii_case("pass") || contract.eq_ignore_ascii_case("ap") {
                result.contract = Some("PASS".into());
            } else {
                result.contract = Some(Text::from(normalize_contract(contract).ok_or_else(
                    || row.error("Contract", format!("unparseable contract `{contract}`")),
                )?));
                result.declarer = Some(Text::from(declarer(row)?));
                result.tricks = Some(tricks(row)?);
            }
            result.ns_score = Some(table_score(row, score_ns, score_ew, false)?);
        }
    }
    Ok(Some(result))
}

/// The percentage assigned to one side (`column`), a whole number from 0 to 100.
fn assigned_share(
    row: &Row,
    score_ns: &str,
    score_ew: &str,
    column: &str,
    percent: Option<f64>,
) -> Result<u8, InputError> {
    let p = percent.ok_or_else(|| {
        row.error(
            column,
            format!(
                "assigned score `{score_ns}`/`{score_ew}` needs each side's \
                 percentage, and `{column}` is empty or missing"
            ),
        )
    })?;
    if (0.0..=100.0).contains(&p) && p.fract() == 0.0 {
        Ok(p as u8)
    } else {
        Err(row.error(
            column,
            format!("assigned percentage `{p}` is not a whole number from 0 to 100"),
        ))
    }
}

fn scoring_method(text: &str) -> Option<ScoringMethod> {
    let parts: Vec<String> = text
        .split(';')
        .map(|p| p.trim().to_ascii_lowercase())
        .collect();
    let has = |word: &str| parts.iter().any(|p| p == word);
    if has("butler") {
        Some(ScoringMethod::Butler)
    } else if has("cross") || has("crossimps") {
        Some(ScoringMethod::CrossImps)
    } else if has("matchpoints") || has("mp") {
        Some(ScoringMethod::Matchpoints)
    } else {
        None
    }
}

/// `"Kari Hovden - Ragnar Waldahl"`: one part per player; a single part is shared.
fn split_pair(text: Option<&str>) -> Vec<Option<String>> {
    match text {
        None => Vec::new(),
        Some(text) => text
            .split(" - ")
            .map(|p| {
                Some(p.trim().to_string())
                    .filter(|p| !p.is_empty() && p != "+000" && !is_placeholder(p))
            })
            .collect(),
    }
}

/// A name Ruter prints for a player it has no name for (`+`, `-`).
fn is_placeholder(name: &str) -> bool {
    name.chars().all(|c| matches!(c, '+' | '-' | ' '))
}

/// A federation number, or `None` for a player without one: empty, `-`, `+` (a
/// phantom), `+000` (unnumbered), or a Ruter guest number such as `+57`, which numbers
/// a guest within the club and is never a federation member.
fn member_id(row: &Row, column: &str) -> Result<Option<i64>, InputError> {
    let Some(text) = row.optional(column) else {
        return Ok(None);
    };
    if let Some(guest) = text.strip_prefix('+') {
        if guest.chars().all(|c| c.is_ascii_digit()) {
            return Ok(None);
        }
    }
    match text.parse::<i64>() {
        Ok(id) if id > 0 => Ok(Some(id)),
        _ => Err(row.error(
            column,
            format!("`{text}` is not a federation number (a positive whole number)"),
        )),
    }
}

fn pair_field(
    row: &Row,
    column: &str,
    pairs: &BTreeSet<String>,
) -> Result<Option<String>, InputError> {
    let text = row.get(column)?.trim();
    if text.is_empty() || text == "-" {
        return Ok(None);
    }
    if !pairs.contains(text) {
        return Err(row.error(
            column,
            format!("pair `{text}` is not listed in the [TotalScoreTable]"),
        ));
    }
    Ok(Some(text.to_string()))
}

fn optional_u32(row: &Row, column: &str) -> Result<Option<u32>, InputError> {
    row.optional(column)
        .map(|v| {
            v.parse::<u32>()
                .map_err(|_| row.error(column, format!("`{v}` is not a whole number")))
        })
        .transpose()
}

/// A `Pen` row moves the totals of the two pairs of a table result on the same board:
/// its points become that row's `ns_penalty` and `ew_penalty`.
fn attach_penalty(
    row: &Row,
    line: &PublishedLine,
    boards: &mut [BoardResult],
) -> Result<(), InputError> {
    let target = boards
        .iter_mut()
        .find(|b| {
            b.board == line.board
                && b.ns.as_deref() == line.ns.as_deref()
                && b.ew.as_deref() == line.ew.as_deref()
        })
        .ok_or_else(|| {
            row.error(
                "Score_NS",
                format!(
                    "a penalty row for pairs {} and {} on board {}, who have no table result on it",
                    line.ns.as_deref().unwrap_or("-"),
                    line.ew.as_deref().unwrap_or("-"),
                    line.board
                ),
            )
        })?;
    let add = |total: Option<f64>, amount: Option<f64>| match (total, amount) {
        (Some(t), Some(a)) => Some(t + a),
        (t, a) => t.or(a),
    };
    target.ns_penalty = add(target.ns_penalty, line.ns_points);
    target.ew_penalty = add(target.ew_penalty, line.ew_points);
    Ok(())
}

fn is_penalty(score: &str) -> bool {
    score.eq_ignore_ascii_case("pen")
}

/// Ruter's `+0` in both score columns: a table score of 0 that both sides share. Ruter
/// ranks it among the board's other scores (beside −200, −100, −50 and +100 it gets +2
/// of ±4, 75 %, and the others −4, −2, 0, +4).
fn is_shared_zero(score_ns: &str, score_ew: &str) -> bool {
    score_ns == "+0" && score_ew == "+0"
}

/// Ruter's assigned scores: a table score with `>a` after it in either column (`800>a`:
/// the score stood at the table, the director assigned percentages), or `+N` in both
/// score columns with N other than 0. (`A=` beside `+0` is a split score, and `+0`
/// beside `+0` a score of 0, not this.)
fn is_assigned(score_ns: &str, score_ew: &str) -> bool {
    let overruled = |score: &str| {
        let lower = score.to_ascii_lowercase();
        lower
            .strip_suffix(">a")
            .is_some_and(|n| n.parse::<i32>().is_ok())
    };
    let plus = |score: &str| {
        score
            .strip_prefix('+')
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    overruled(score_ns) || overruled(score_ew) || (plus(score_ns) && plus(score_ew))
}

/// Ruter's `A+`, `A=`, `A-` (and `A60`-style shares) as a percentage of the top.
fn artificial_share(score: &str) -> Option<u8> {
    let rest = score.strip_prefix('A')?;
    match rest {
        "+" => Some(60),
        "=" => Some(50),
        "-" => Some(40),
        digits if !digits.is_empty() && digits.len() <= 3 => {
            digits.parse::<u8>().ok().filter(|&p| p <= 100)
        }
        _ => None,
    }
}

/// The N/S score from the two score columns: exactly one carries the score (an
/// artificial mark in the other is allowed when `one_side_artificial`).
fn table_score(
    row: &Row,
    score_ns: &str,
    score_ew: &str,
    one_side_artificial: bool,
) -> Result<i32, InputError> {
    let number = |text: &str| -> Option<i32> { text.parse::<i32>().ok() };
    let empty = |text: &str| text.is_empty() || text == "-";
    let ns_is_other = empty(score_ns) || (one_side_artificial && score_ns.starts_with('A'));
    let ew_is_other = empty(score_ew) || (one_side_artificial && score_ew.starts_with('A'));
    match (number(score_ns), number(score_ew)) {
        (Some(ns), None) if ew_is_other => Ok(ns),
        (None, Some(ew)) if ns_is_other => Ok(-ew),
        (Some(ns), Some(ew)) if ns == -ew => Ok(ns),
        _ => Err(row.error(
            "Score_NS",
            format!(
                "scores `{score_ns}` (N/S) and `{score_ew}` (E/W): expected one score, \
                 the other column `-`"
            ),
        )),
    }
}

fn declarer(row: &Row) -> Result<String, InputError> {
    let text = row.get("Declarer")?.trim();
    match text.to_ascii_uppercase().as_str() {
        seat @ ("N" | "E" | "S" | "W") => Ok(seat.to_string()),
        _ => Err(row.error("Declarer", format!("declarer `{text}` is not N, E, S or W"))),
    }
}

fn tricks(row: &Row) -> Result<u8, InputError> {
    let text = row.get("Result")?.trim();
    match text.parse::<u8>() {
        Ok(t) if t <= MAX_TRICKS => Ok(t),
        Ok(t) => Err(row.error(
            "Result",
            format!("{t} tricks: there are {MAX_TRICKS} tricks in a deal"),
        )),
        Err(_) => Err(row.error("Result", format!("`{text}` is not a number of tricks"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::conventions::{ByeScore, MpScale};

    fn header(scoring: &str) -> String {
        format!(
            "% PBN 2.0\n\
             % <META  name=Generator   content=\"Ruter i Norge\">\n\
             % <META  name=Arranger    content=\"0001 Test BK\">\n\
             % <META  name=ContestDate content=\"2020-01-31\">\n\
             % <META  name=ScoringType content=\"{scoring}\">\n\
             % <META  name=BoardCount  content=\"1\">\n\
             [Event \"Test\"]\n\
             [Board \"1\"]\n\
             [Competition \"Pairs\"]\n\
             [TotalScoreTable \"Rank\\2R;PairId\\2R;TotalScoreMP\\3R;TotalPercentage\\5R;Names\\20L;MemberID1\\7R;MemberID2\\7R\"]\n\
              1 1  1 62.50 \"Åse Ø - B\" \"11\" \"12\"\n\
              2 2 -1 37.50 \"C - D\" \"13\" \"+000\"\n\
             [ScoreTable \"PairId_EW\\2R;PairId_NS\\2R;Contract\\3L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\6R;MP_NS\\2R;MP_EW\\2R\"]\n"
        )
    }

    fn parse_text(text: &str) -> Result<Imported, InputError> {
        let bytes: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
        parse_bytes(Path::new("test.pbn"), &bytes)
    }

    #[test]
    fn reads_rows_by_declared_column_names_not_position() {
        // PairId_EW is declared first here, unlike Ruter's order.
        let text = header("MatchPoints;MP1") + "2 1 4SX N 10 \"790\" - 1 -1\n";
        let imported = parse_text(&text).expect("valid file");
        let board = &imported.dataset.boards[0];
        assert_eq!(board.ns.as_deref(), Some("1"));
        assert_eq!(board.ew.as_deref(), Some("2"));
        assert_eq!(board.contract.as_deref(), Some("4SX"));
        assert_eq!(board.tricks, Some(10));
        assert_eq!(board.ns_score, Some(790));
        assert_eq!(board.origin.row, Some(14));
        let line = &imported.published.lines[0];
        assert!((line.ns_points.unwrap_or(f64::NAN) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn decodes_latin1_names_and_skips_placeholder_member_numbers() {
        let text = header("MatchPoints;MP1") + "2 1 PASS - - \"0\" - 0 0\n";
        let imported = parse_text(&text).expect("valid file");
        let members = &imported.dataset.members;
        assert_eq!(members.len(), 3, "+000 is no member");
        assert_eq!(members[0].name.as_deref(), Some("Åse Ø"));
        assert_eq!(
            imported.dataset.entrants[1].players,
            [Some(13), None, None, None]
        );
        let c = &imported.dataset.competitions[0];
        assert_eq!(c.conventions.mp_scale, MpScale::PlusMinus);
        assert_eq!(c.conventions.bye_score, ByeScore::SessionAverage);
        assert_eq!(c.boards, Some(1));
        assert_eq!(imported.dataset.boards[0].contract.as_deref(), Some("PASS"));
        // Each pair sat in one direction only: a fixed-direction movement.
        assert_eq!(imported.dataset.entrants[0].direction, Some(Direction::NS));
        assert_eq!(
            imported.published.standings[1].direction,
            Some(Direction::EW)
        );
    }

    #[test]
    fn a_row_with_the_wrong_number_of_fields_names_line_and_board() {
        let text = header("MatchPoints;MP1") + "2 1 4S N 10 \"420\" - 1\n";
        let e = parse_text(&text).expect_err("8 fields for 9 columns");
        assert_eq!(e.location.row, Some(14));
        assert_eq!(e.location.board, Some(1));
        assert!(e.rule.contains("8 fields"), "{}", e.rule);
    }

    #[test]
    fn more_than_13_tricks_is_an_error() {
        let text = header("MatchPoints;MP1") + "2 1 4S N 14 \"420\" - 1 -1\n";
        let e = parse_text(&text).expect_err("14 tricks");
        assert_eq!(e.location.column.as_deref(), Some("Result"));
        assert_eq!(e.location.board, Some(1));
        assert!(e.rule.contains("13 tricks"), "{}", e.rule);
    }

    #[test]
    fn unparseable_tag_and_contract_are_errors() {
        let text = header("MatchPoints;MP1").replace("[Event \"Test\"]", "[Event Test]");
        let e = parse_text(&text).expect_err("unquoted tag value");
        assert_eq!(e.location.row, Some(7));
        assert!(e.rule.contains("unparseable tag"), "{}", e.rule);

        let text = header("MatchPoints;MP1") + "2 1 8S N 10 \"420\" - 1 -1\n";
        let e = parse_text(&text).expect_err("level 8");
        assert_eq!(e.location.column.as_deref(), Some("Contract"));
    }

    #[test]
    fn unknown_pairs_scoring_and_unterminated_quotes_are_errors() {
        let text = header("MatchPoints;MP1") + "9 1 4S N 10 \"420\" - 1 -1\n";
        let e = parse_text(&text).expect_err("pair 9 not listed");
        assert_eq!(e.location.column.as_deref(), Some("PairId_EW"));

        let e = parse_text(&header("Rubber")).expect_err("unknown scoring");
        assert_eq!(e.location.row, Some(5));

        for swiss in ["IMP;Butler;VP", "Swiss;IMP", "Monrad"] {
            let e = parse_text(&header(swiss)).expect_err("a Swiss pairs event");
            assert!(
                e.rule.contains("Swiss pairs") && e.rule.contains(swiss),
                "{}",
                e.rule
            );
        }

        let text = header("MatchPoints;MP1") + "2 1 4S N 10 \"420 - 1 -1\n";
        let e = parse_text(&text).expect_err("unterminated quote");
        assert!(e.rule.contains("unterminated"), "{}", e.rule);
    }

    #[test]
    fn artificial_bye_and_penalty_rows() {
        let text = header("IMP;Cross")
            + "2 1 - - - \"A+\" \"A=\" 9 0\n\
               - 1 - - - \"Bye\" \"Bye\" -1.3 -\n\
               2 1 - - - \"Pen\" \"Pen\" 4.0 0.0\n";
        let imported = parse_text(&text).expect("valid file");
        assert_eq!(imported.dataset.boards.len(), 1);
        assert_eq!(
            imported.dataset.boards[0].adjusted.as_deref(),
            Some("A6050")
        );
        assert_eq!(imported.dataset.boards[0].ns_score, None);
        // The `Pen` row's points move the totals of the A+ table's pairs.
        assert_eq!(
            (
                imported.dataset.boards[0].ns_penalty,
                imported.dataset.boards[0].ew_penalty
            ),
            (Some(4.0), Some(0.0))
        );
        let kinds: Vec<LineKind> = imported.published.lines.iter().map(|l| l.kind).collect();
        assert_eq!(
            kinds,
            [LineKind::Artificial, LineKind::Bye, LineKind::Penalty]
        );
        assert_eq!(
            imported.dataset.competitions[0].scoring,
            ScoringMethod::CrossImps
        );
    }

    fn with_percentages(row: &str) -> String {
        header("MatchPoints;MP1").replace(
            "MP_EW\\2R\"]",
            "MP_EW\\2R;Percentage_NS\\3R;Percentage_EW\\3R\"]",
        ) + row
    }

    #[test]
    fn assigned_scores_take_each_sides_printed_percentage() {
        // Ruter's `800>a` (board 18 of Bridgekameratene 2015-09-24): 60 % each side.
        let text = with_percentages("2 1 6DX N 9 - \"800>a\" 0.0 0.0 60 60\n");
        let imported = parse_text(&text).expect("valid file");
        let board = &imported.dataset.boards[0];
        assert_eq!(board.adjusted.as_deref(), Some("A6060"));
        assert_eq!((board.ns_score, board.contract.as_deref()), (None, None));
        assert_eq!(imported.published.lines[0].kind, LineKind::Artificial);

        // `+5` in both columns with a 75/25 split in the percentage columns.
        let text = with_percentages("2 1 - - - \"+5\" \"+5\" 0.5 -0.5 75 25\n");
        let imported = parse_text(&text).expect("valid file");
        assert_eq!(
            imported.dataset.boards[0].adjusted.as_deref(),
            Some("A7525")
        );

        // Any per-side percentage written as A and the share.
        let text = with_percentages("2 1 - - - \"A60\" \"A50\" 0.1 0.0 60 50\n");
        let imported = parse_text(&text).expect("valid file");
        assert_eq!(
            imported.dataset.boards[0].adjusted.as_deref(),
            Some("A6050")
        );

        // `A=` beside `+0` stays a split score: E/W keep the table's 0.
        let text = with_percentages("2 1 - - - \"A=\" \"+0\" 0.0 -1.0 50 0\n");
        let imported = parse_text(&text).expect("valid file");
        let board = &imported.dataset.boards[0];
        assert_eq!(
            (board.adjusted.as_deref(), board.ns_score),
            (Some("A50/S"), Some(0))
        );

        // Without a percentage the share is unknown: an error naming the column.
        let text = header("MatchPoints;MP1") + "2 1 6DX N 9 - \"800>a\" 0 0\n";
        let e = parse_text(&text).expect_err("no percentage columns");
        assert_eq!(e.location.column.as_deref(), Some("Percentage_NS"));
        assert_eq!(e.location.board, Some(1));
        let text = with_percentages("2 1 6DX N 9 - \"800>a\" 0 0 60 62.5\n");
        let e = parse_text(&text).expect_err("a fractional share");
        assert!(e.rule.contains("whole number"), "{}", e.rule);
    }

    #[test]
    fn guests_phantoms_and_unplayed_boards() {
        // Pair 2 is a phantom (`+`/`-`), pair 3 a member with a Ruter guest number.
        let text = header("MatchPoints;MP1").replace(
            "2 2 -1 37.50 \"C - D\" \"13\" \"+000\"\n",
            "2 2 -1 37.50 \"+ - -\" \"+\" \"-\"\n3 3 0 50.00 \"E - F\" \"+57\" \"14\"\n",
        ) + "2 1 - - - \"Bye\" \"Bye\" - 0\n\
               3 1 - - - - - 0 0\n\
               3 1 - - - \"0\" - 0 0\n\
               3 1 - - - - \"50\" 0 0\n";
        let imported = parse_text(&text).expect("valid file");
        let d = &imported.dataset;
        let entrants: Vec<&str> = d.entrants.iter().map(|e| e.entrant.as_str()).collect();
        assert_eq!(entrants, ["1", "3"], "the phantom is no entrant");
        assert_eq!(d.entrants[1].players, [None, Some(14), None, None]);
        // The guest keeps the name the export printed.
        assert_eq!(
            d.entrants[1].names[..2],
            [Some("E".to_string()), Some("F".to_string())]
        );
        let ids: Vec<i64> = d.members.iter().map(|m| m.member_id).collect();
        assert_eq!(ids, [11, 12, 14], "+57 is a guest, never member 57");
        let standings: Vec<&str> = imported
            .published
            .standings
            .iter()
            .map(|s| s.entrant.as_str())
            .collect();
        assert_eq!(standings, ["1", "3"]);
        // The phantom's table is a bye for pair 1 (N/S); the unplayed row is dropped; a
        // `-` contract with 0 is passed out, with a score it is the score alone.
        let kinds: Vec<LineKind> = imported.published.lines.iter().map(|l| l.kind).collect();
        assert_eq!(kinds, [LineKind::Bye, LineKind::Played, LineKind::Played]);
        assert_eq!(imported.published.lines[0].ns.as_deref(), Some("1"));
        let rows: Vec<(Option<&str>, Option<i32>)> = d
            .boards
            .iter()
            .map(|b| (b.contract.as_deref(), b.ns_score))
            .collect();
        assert_eq!(rows, [(Some("PASS"), Some(0)), (None, Some(-50))]);
    }

    #[test]
    fn a_number_typed_twice_keeps_the_first_player() {
        let text = header("MatchPoints;MP1").replace("\"13\" \"+000\"", "\"13\" \"13\"")
            + "2 1 PASS - - \"0\" - 0 0\n";
        let imported = parse_text(&text).expect("the session imports");
        let pair = &imported.dataset.entrants[1];
        assert_eq!(pair.players, [Some(13), None, None, None]);
        // The second player keeps the printed name, as a non-member.
        assert_eq!(
            pair.names[..2],
            [Some("C".to_string()), Some("D".to_string())]
        );
        assert_eq!(imported.notes.len(), 1);
        let note = &imported.notes[0];
        assert_eq!(
            (note.kind, note.origin.row),
            (NoteKind::NonMember, Some(12))
        );
        assert!(
            note.reason
                .contains("number 13 is given for both players of pair 2 (`C`)"),
            "{}",
            note.reason
        );
        let ids: Vec<i64> = imported
            .dataset
            .members
            .iter()
            .map(|m| m.member_id)
            .collect();
        assert_eq!(ids, [11, 12, 13]);
    }

    #[test]
    fn an_unnamed_pair_that_played_is_an_entrant_and_one_without_results_a_phantom() {
        let text = header("MatchPoints;MP1").replace(
            "2 2 -1 37.50 \"C - D\" \"13\" \"+000\"\n",
            "2 2 -1 37.50 \"+ - +\" \"+\" \"+\"\n3 3 0 0.00 \"E - F\" \"14\" \"15\"\n",
        ) + "2 1 PASS - - \"0\" - 0 0\n";
        let imported = parse_text(&text).expect("valid file");
        let d = &imported.dataset;
        let entrants: Vec<&str> = d.entrants.iter().map(|e| e.entrant.as_str()).collect();
        assert_eq!(entrants, ["1", "2"], "pair 3 has no table result");
        assert_eq!(d.entrants[1].players, [None; 4]);
        assert_eq!(d.entrants[1].names[0].as_deref(), Some("unnamed pair 2"));
        assert_eq!(d.entrants[1].names[1], None);
        let kinds: Vec<(NoteKind, Option<usize>)> = imported
            .notes
            .iter()
            .map(|n| (n.kind, n.origin.row))
            .collect();
        assert_eq!(
            kinds,
            [
                (NoteKind::NonMember, Some(12)),
                (NoteKind::Phantom, Some(13))
            ]
        );
        assert!(imported.notes[1]
            .reason
            .contains("pair 3 (`E - F`) has no table result"));
    }

    /// A Ruter export of one board on five tables (±4), pairs 1-5 N/S against 6-10 E/W,
    /// with `rows` as its `[ScoreTable]` and `totals` as its `[TotalScoreTable]` rows.
    fn five_tables(totals: &str, rows: &str) -> String {
        format!(
            "% PBN 2.0\n\
             % <META  name=Generator   content=\"Ruter i Norge\">\n\
             % <META  name=Arranger    content=\"0001 Test BK\">\n\
             % <META  name=ContestDate content=\"2020-01-31\">\n\
             % <META  name=ScoringType content=\"MatchPoints;MP1\">\n\
             % <META  name=BoardCount  content=\"1\">\n\
             [Event \"Test\"]\n\
             [Board \"1\"]\n\
             [TotalScoreTable \"Rank\\2R;PairId\\2R;TotalScoreMP\\3R;TotalPercentage\\5R;Names\\20L;MemberID1\\7R;MemberID2\\7R\"]\n\
             {totals}\
             [ScoreTable \"Table\\2R;Round\\1R;PairId_NS\\2R;PairId_EW\\2R;Contract\\3L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\6R;MP_NS\\2R;MP_EW\\2R;Percentage_NS\\3R;Percentage_EW\\3R\"]\n\
             {rows}"
        )
    }

    /// The file's recomputation against its printed figures.
    fn reconciled(imported: &Imported) -> Option<String> {
        let d = &imported.dataset;
        let scored = crate::scoring::score_competition(&d.competitions[0], &d.entrants, &d.boards)
            .expect("scores");
        crate::import::reconcile::reconcile(imported, &scored)
            .map(|m| m.reason(&imported.published.program))
    }

    /// Ruter's `"+0"` in both score columns, contract `-`: a table score of 0 ranked
    /// among the board's others (−200, −100, −50, +100), +2 of ±4 and 75 %, as printed;
    /// the others −4, −2, 0, +4. Left out as an assigned score, the four others would
    /// be factored to −3.8, −1.2, 1.2 and 3.8.
    #[test]
    fn a_shared_plus_zero_is_a_table_score_of_zero() {
        let totals = " 2  1  2  75.00 \"A - B\" \"11\" \"12\"\n\
                      5  2 -4   0.00 \"C - D\" \"13\" \"14\"\n\
                      4  3 -2  25.00 \"E - F\" \"15\" \"16\"\n\
                      3  4  0  50.00 \"G - H\" \"17\" \"18\"\n\
                      1  5  4 100.00 \"I - J\" \"19\" \"20\"\n\
                      4  6 -2  25.00 \"K - L\" \"21\" \"22\"\n\
                      1  7  4 100.00 \"M - N\" \"23\" \"24\"\n\
                      2  8  2  75.00 \"O - P\" \"25\" \"26\"\n\
                      3  9  0  50.00 \"Q - R\" \"27\" \"28\"\n\
                      5 10 -4   0.00 \"S - T\" \"29\" \"30\"\n";
        let rows = "1 3 1  6 -  - - \"+0\"  \"+0\"  2 -2  75  25\n\
                    2 3 2  7 -  - -    -  \"200\" -4  4   0 100\n\
                    3 3 3  8 -  - -    -  \"100\" -2  2  25  75\n\
                    4 3 4  9 -  - -    -   \"50\"  0  0  50  50\n\
                    5 3 5 10 -  - - \"100\"    -  4 -4 100   0\n";
        let imported = parse_text(&five_tables(totals, rows)).expect("valid file");
        let zero = &imported.dataset.boards[0];
        assert_eq!((zero.ns_score, zero.adjusted.as_deref()), (Some(0), None));
        assert_eq!(imported.published.lines[0].kind, LineKind::Played);
        assert_eq!(reconciled(&imported), None);
    }

    /// A played row whose N/S pair Ruter prints `-` (not listed): eleven results on the
    /// board (±10), of which this `90` is one. Ruter counts it in the field (150 and 150
    /// share +9.0, 90 and 90 share −1.0) and gives E/W pair 22 its +1.0, 55 %; the
    /// unlisted pair is reported, not imported.
    #[test]
    fn a_played_row_with_an_unlisted_pair_counts_in_the_field() {
        // N/S scores 150, 150, 120, 110, 100, 90, 80, 70, 60, 50 and the unlisted 90.
        let ns_scores = [150, 150, 120, 110, 100, 90, 80, 70, 60, 50];
        let ns_points = [9.0, 9.0, 6.0, 4.0, 2.0, -1.0, -4.0, -6.0, -8.0, -10.0];
        let ns_ranks = [1, 1, 3, 4, 5, 6, 7, 8, 9, 10];
        // E/W pairs 12-21 and 22: 10, 8, 6, 4, 1 (twice with 22), ... in that order.
        let ew_ranks = [10, 10, 9, 8, 7, 5, 4, 3, 2, 1];
        let mut totals = String::new();
        let mut rows = String::new();
        let percent = |points: f64| 50.0 + 50.0 * points / 10.0;
        for (at, (score, points)) in ns_scores.iter().zip(ns_points).enumerate() {
            let table = at + 1;
            let (ns, ew) = (table, table + 11);
            for (pair, mp, rank) in [(ns, points, ns_ranks[at]), (ew, -points, ew_ranks[at])] {
                totals += &format!(
                    "{rank} {pair} {mp:.1} {:.2} \"A{pair} - B{pair}\" \"{}\" \"{}\"\n",
                    percent(mp),
                    100 + 2 * pair,
                    101 + 2 * pair
                );
            }
            rows += &format!(
                "{table} 1 {ns} {ew} - - - \"{score}\" - {points:.1} {:.1} {} {}\n",
                -points,
                percent(points),
                percent(-points)
            );
        }
        totals += "5 22 1.0 55.00 \"V - W\" \"90\" \"91\"\n";
        rows += "11 1  - 22 2D S 8 \"90\" - - 1.0 - 55\n";
        let text = five_tables(&totals, &rows);
        let imported = parse_text(&text).expect("valid file");
        let d = &imported.dataset;
        assert_eq!(d.boards.len(), 11);
        let unlisted = &d.boards[10];
        assert_eq!(
            (unlisted.ns.as_deref(), unlisted.ew.as_deref()),
            (None, Some("22"))
        );
        assert_eq!(imported.notes.len(), 1);
        assert_eq!(imported.notes[0].kind, NoteKind::Unlisted);
        assert!(
            imported.notes[0]
                .reason
                .contains("the N/S pair at table 11 in round 1 (against pair 22) is not listed"),
            "{}",
            imported.notes[0].reason
        );
        let scored = crate::scoring::score_competition(&d.competitions[0], &d.entrants, &d.boards)
            .expect("scores");
        let table = scored
            .board_scores
            .iter()
            .find(|b| b.ew.as_deref() == Some("22"))
            .expect("pair 22's table");
        assert_eq!(table.ns, None);
        assert!((table.ew_points - 1.0).abs() < 1e-9);
        let top = scored
            .board_scores
            .iter()
            .find(|b| b.ns.as_deref() == Some("1"));
        assert!(top.is_some_and(|b| (b.ns_points - 9.0).abs() < 1e-9));
        assert_eq!(reconciled(&imported), None);
    }

    #[test]
    fn utf8_files_read_as_utf8() {
        let text = header("MatchPoints;MP1") + "2 1 PASS - - \"0\" - 0 0\n";
        let imported =
            parse_bytes(Path::new("utf8.pbn"), text.as_bytes()).expect("valid UTF-8 file");
        assert_eq!(imported.dataset.members[0].name.as_deref(), Some("Åse Ø"));
    }

    #[test]
    fn contracts_normalize() {
        assert_eq!(normalize_contract("1N").as_deref(), Some("1NT"));
        assert_eq!(normalize_contract("6NTXX").as_deref(), Some("6NTXX"));
        assert_eq!(normalize_contract("5cx").as_deref(), Some("5CX"));
        assert_eq!(normalize_contract("0S"), None);
        assert_eq!(normalize_contract("3SXXX"), None);
        assert_eq!(normalize_contract(""), None);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
            let _ = parse_bytes(Path::new("fuzz.pbn"), &bytes);
        }
    }

    proptest::proptest! {
        #[test]
        fn damaged_rows_give_errors_not_panics(cut in 0usize..60, junk in "[ -~]{0,12}") {
            let mut text = header("MatchPoints;MP1") + "2 1 4SX N 10 \"790\" - 1 -1\n";
            let mut at = text.len().saturating_sub(cut);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert_str(at, &junk);
            let lines = text.lines().count();
            match parse_text(&text) {
                // Harmless junk (blanks, text inside a name) keeps the one table row; junk
                // that makes the row a comment (`%`, `;`, `{`) or a tag (`[`) leaves none.
                Ok(imported) => {
                    let row = text
                        .lines()
                        .skip_while(|l| !l.starts_with("[ScoreTable"))
                        .nth(1)
                        .unwrap_or_default()
                        .trim_start();
                    let boards = imported.dataset.boards.len();
                    let structural = row.starts_with(['%', ';', '{', '[']);
                    proptest::prop_assert!(
                        boards == 1 || (structural && boards == 0),
                        "{} board rows from\n{}",
                        boards,
                        text
                    );
                }
                // Otherwise the error names the file, a line of it, and a rule.
                Err(e) => {
                    proptest::prop_assert_eq!(
                        e.location.file.as_deref(),
                        Some(Path::new("test.pbn"))
                    );
                    let row = e.location.row.unwrap_or(0);
                    proptest::prop_assert!((1..=lines).contains(&row), "{}", e);
                    proptest::prop_assert!(!e.rule.trim().is_empty(), "{}", e);
                }
            }
            if junk.is_empty() {
                proptest::prop_assert!(parse_text(&text).is_ok());
            }
        }
    }
}
