//! The files `bridgehcp score` writes, the club's result sheet among them.
//!
//! A federation's years hold a quarter of a million competitions: their result sheet
//! is hundreds of megabytes of HTML and CSV. Built whole, the sheet's lines, its frame
//! and the page would each be held at once, several times the standings they come
//! from. So the sheet is written a batch of whole competitions at a time, in the
//! standings' (replay) order, and only one batch of lines is ever held. The bytes are
//! those the whole sheet written at once would have ([`sheet::lines`], [`sheet::frame`],
//! [`sheet::html`]); a test holds the two to the same bytes.
//!
//! Everything goes into a staged folder ([`write_staged`]): the output folder appears
//! whole or not at all, as for every other command.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::direct_file::DirectFile;
use super::files::{write_csv, write_parquet_parts, write_staged, StagedFolder};
use super::frame::FrameBuilder;
use super::outputs::{quarantine, standings_frame, write_board_scores};
use super::sheet::{self, CompetitionNames, EntrantNames, SheetRow};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::pipeline::score::StandingRows;
use crate::pipeline::sealed::BoardScoreRows;
use crate::quarantine::Quarantined;
use crate::scoring::Standing;

/// Handicap tournaments: (expected, adjusted) per (competition, entrant). Looked up for
/// every line of the sheet, so with a hash quicker than the default's.
pub type HandicapResults<'a> = rustc_hash::FxHashMap<(&'a str, &'a str), (f64, f64)>;

/// The club's result sheet `score` writes beside its tables.
pub struct ScoreSheet<'a> {
    /// The competitions the standings are of (titles, clubs).
    pub dataset: &'a Dataset,
    /// The players' names of their entrants.
    pub names: &'a EntrantNames<'a>,
    /// Handicap tournaments: (expected, adjusted) per (competition, entrant).
    pub handicap: &'a HandicapResults<'a>,
    /// `start_list.csv`, when asked for.
    pub start_list: Option<&'a DataFrame>,
}

/// Sheet lines written per batch: a batch ends at the first competition boundary past
/// this many lines, so that a batch holds whole competitions.
const LINES_PER_BATCH: usize = 1 << 15;

/// Bytes a line's names take, about: two players' names and the dash between them.
const NAMES_BYTES: usize = 40;

/// Writes the outputs of `bridgehcp score` to `out`, all or nothing: the standings
/// (`standings_rows`, in replay order) and board scores, the quarantine, and the result
/// sheet.
pub fn write_scored(
    out: &Path,
    standings_rows: &StandingRows,
    boards: &BoardScoreRows,
    quarantined: &[Quarantined],
    sheet: &ScoreSheet,
) -> Result<Vec<PathBuf>> {
    let quarantine = quarantine(quarantined).map_err(|e| Error::polars("quarantine.csv", e))?;
    let tournaments = handicap_tournaments(sheet.handicap);
    let standings_part = |range: std::ops::Range<usize>| {
        let rows = standings_rows.rows(range);
        let handicap = handicap_of(&rows, sheet.handicap, &tournaments);
        standings_frame(FrameBuilder::new(rows.len()), &rows, &handicap)
    };
    write_staged(out, |staged| {
        // The tables and the sheet are independent files: each is encoded on a core of
        // its own, and the bytes do not depend on which finishes first.
        let (tables, pages) = rayon::join(
            || -> Result<()> {
                write_parquet_parts(
                    &staged.path("standings.parquet"),
                    standings_rows.len(),
                    standings_part,
                )?;
                write_board_scores(&staged.path(super::run_folder::BOARD_SCORES), boards)?;
                write_csv(&quarantine, &staged.path("quarantine.csv"))?;
                if let Some(list) = sheet.start_list {
                    write_csv(list, &staged.path("start_list.csv"))?;
                }
                Ok(())
            },
            || write_sheet(staged, sheet, standings_rows, LINES_PER_BATCH),
        );
        tables?;
        pages
    })
}

/// The competitions `handicap` has results of: the handicap tournaments.
fn handicap_tournaments<'a>(handicap: &HandicapResults<'a>) -> FxHashSet<&'a str> {
    handicap
        .keys()
        .map(|&(competition, _)| competition)
        .collect()
}

/// (expected, adjusted) of each of `rows` from `handicap`. Millions of lines are of
/// other competitions than handicap tournaments (`tournaments`): a competition's lines
/// come together, and are looked up only when it is one.
fn handicap_of(
    rows: &[&Standing],
    handicap: &HandicapResults<'_>,
    tournaments: &FxHashSet<&str>,
) -> Vec<Option<(f64, f64)>> {
    let mut of = Vec::with_capacity(rows.len());
    for competition in rows.chunk_by(|a, b| a.competition_id == b.competition_id) {
        let id = competition[0].competition_id.as_str();
        if tournaments.contains(id) {
            of.extend(
                competition
                    .iter()
                    .map(|s| handicap.get(&(id, s.entrant.as_str())).copied()),
            );
        } else {
            of.resize(of.len() + competition.len(), None);
        }
    }
    of
}

/// Writes `standings.csv`, `results.html` and (with a Swiss pairs event) `rounds.csv`
/// into `staged`, a batch of competitions at a time: a batch ends at the first
/// competition boundary past `batch` lines. A few batches are encoded in parallel and
/// written in order, so the bytes do not depend on the thread count.
pub(crate) fn write_sheet(
    staged: &StagedFolder,
    sheet: &ScoreSheet,
    standings: &StandingRows,
    batch: usize,
) -> Result<()> {
    let listed = &sheet.dataset.competitions;
    // Each competition's entrants are found once, beside the map that finds the
    // competitions themselves.
    let (competitions, names) = rayon::join(
        || -> rustc_hash::FxHashMap<&str, usize> {
            listed
                .iter()
                .enumerate()
                .map(|(at, c)| (c.competition_id.as_str(), at))
                .collect()
        },
        || sheet.names.competitions(listed),
    );
    let batches = cut_batches(standings, &competitions, batch);
    let encode = |groups: &Vec<(usize, &[Standing])>, encoded: Encoded| {
        encode_batch(sheet, &names, groups, encoded)
    };
    let mut files = SheetFiles::create(staged)?;
    let in_flight = 2 * rayon::current_num_threads().max(1);
    // The bytes of one group of batches are handed to the files' writers while the next
    // group is encoded: a core copying them would otherwise leave the other idle. Two groups are held at most, and their buffers go round: a group is encoded
    // into the buffers of the group written before the last, so that the megabytes of
    // each batch are neither grown again nor faulted in again from the kernel.
    let mut encoded: Vec<Encoded> = Vec::new();
    let mut spare: Vec<Encoded> = Vec::new();
    for chunk in batches.chunks(in_flight) {
        spare.resize_with(chunk.len(), Encoded::default);
        let buffers = std::mem::take(&mut spare);
        let (written, next) = rayon::join(
            || files.write(&encoded),
            || {
                chunk
                    .par_iter()
                    .zip(buffers)
                    .map(|(groups, buffer)| encode(groups, buffer))
                    .collect::<PolarsResult<Vec<Encoded>>>()
            },
        );
        written?;
        let next = next.map_err(|e| Error::polars(files.standings.path(), e))?;
        spare = std::mem::replace(&mut encoded, next);
        spare.iter_mut().for_each(Encoded::clear);
    }
    files.write(&encoded)?;
    files.finish()
}

/// Each competition's standings (a line each, with the competition's place in the
/// dataset), cut into batches of whole competitions of at least `batch` lines.
fn cut_batches<'s>(
    standings: &'s StandingRows,
    competitions: &rustc_hash::FxHashMap<&str, usize>,
    batch: usize,
) -> Vec<Vec<(usize, &'s [Standing])>> {
    let mut batches: Vec<Vec<(usize, &[Standing])>> = Vec::new();
    let mut current = Vec::new();
    let mut lines = 0;
    for group in standings.runs().flat_map(sheet::by_competition) {
        let Some(&at) = competitions.get(group[0].competition_id.as_str()) else {
            continue;
        };
        current.push((at, group));
        lines += group.len();
        if lines >= batch {
            batches.push(std::mem::take(&mut current));
            lines = 0;
        }
    }
    batches.push(current);
    batches
}

/// Encodes a batch's competitions into `encoded`: each competition's lines in the
/// sheet's order, with their names.
fn encode_batch(
    sheet: &ScoreSheet,
    names: &[CompetitionNames<'_>],
    groups: &[(usize, &[Standing])],
    mut encoded: Encoded,
) -> PolarsResult<Encoded> {
    let listed = &sheet.dataset.competitions;
    for &(at, group) in groups {
        let (Some(competition), Some(names)) = (listed.get(at), names.get(at)) else {
            continue;
        };
        // Only a handicap tournament's entrants have handicap results: the lines of
        // every other competition are not looked up (a hash of two texts each).
        let adjusted: Vec<Option<(f64, f64)>> = if competition.handicap_event {
            group
                .iter()
                .map(|s| {
                    sheet
                        .handicap
                        .get(&(s.competition_id.as_str(), s.entrant.as_str()))
                        .copied()
                })
                .collect()
        } else {
            vec![None; group.len()]
        };
        let order = sheet::sheet_order(competition, group, &adjusted);
        let decimals = sheet::score_decimals(competition, group);
        // Every line's names in one string, then the lines borrowing them; room for
        // a pair's two names is made at once rather than by doubling from nothing.
        let mut text = String::with_capacity(order.len() * NAMES_BYTES);
        let mut ends = Vec::with_capacity(order.len());
        for &(at, _) in &order {
            names.push(&mut text, &group[at].entrant);
            ends.push(text.len());
        }
        let mut start = 0;
        let rows: Vec<SheetRow<'_>> = order
            .iter()
            .zip(&ends)
            .map(|(&(at, rank), &end)| {
                let names = &text[start..end];
                start = end;
                sheet::competition_row(
                    competition,
                    &group[at],
                    (rank, decimals),
                    adjusted[at],
                    names,
                )
            })
            .collect();
        encoded.push(&rows)?;
    }
    Ok(encoded)
}

/// A batch of the sheet's lines as the bytes each file gets.
#[derive(Default)]
struct Encoded {
    standings: Vec<u8>,
    rounds: Option<Vec<u8>>,
    html: Vec<u8>,
}

impl Encoded {
    /// Empties the buffers for another batch, keeping their room.
    fn clear(&mut self) {
        self.standings.clear();
        self.html.clear();
        // A batch without rounds has none: `rounds.csv` is made for the first that has.
        self.rounds = None;
    }

    /// Appends the lines of one competition, in the sheet's order.
    fn push(&mut self, rows: &[SheetRow<'_>]) -> PolarsResult<()> {
        standings_csv(&mut self.standings, rows);
        if rows.iter().any(|l| !l.rounds.is_empty()) {
            // Swiss pairs events are few: their rounds go through the frame writer.
            let bytes = csv_bytes(&sheet::rounds_rows(rows)?, false)?;
            self.rounds.get_or_insert_with(Vec::new).extend(bytes);
        }
        sheet::html_tables(&mut self.html, rows);
        Ok(())
    }
}

/// Appends the lines of `standings.csv` for `rows`, all of one competition, as
/// [`csv_bytes`] writes [`sheet::frame`] of them: the same columns, numbers, quoting and
/// neutralised text, without a frame or a string per cell. A test holds the two to the
/// same bytes.
fn standings_csv(out: &mut Vec<u8>, rows: &[SheetRow<'_>]) {
    let Some(first) = rows.first() else {
        return;
    };
    // The competition's cells are the same on each of its lines.
    let mut prefix = Vec::new();
    csv_text(&mut prefix, Some(first.competition_id));
    prefix.push(b',');
    sheet::push_date(&mut prefix, first.date);
    prefix.push(b',');
    csv_text(&mut prefix, first.title);
    prefix.push(b',');
    csv_text(&mut prefix, first.club);
    prefix.push(b',');
    out.reserve(rows.len() * (prefix.len() + CSV_LINE_BYTES));
    let float = |out: &mut Vec<u8>, value: Option<f64>| {
        sheet::push_cell(out, value, sheet::FIGURE_DECIMALS);
    };
    let int = |out: &mut Vec<u8>, value: Option<i32>| {
        if let Some(v) = value {
            if v < 0 {
                out.push(b'-');
            }
            sheet::push_uint(out, v.unsigned_abs().into());
        }
    };
    for l in rows {
        out.extend_from_slice(&prefix);
        csv_text(out, l.direction);
        out.push(b',');
        int(out, (!l.house).then_some(l.rank as i32));
        out.push(b',');
        csv_text(out, Some(l.entrant));
        out.push(b',');
        csv_text(out, Some(l.names));
        out.push(b',');
        sheet::push_cell(out, Some(l.score), l.score_decimals);
        out.push(b',');
        float(out, l.percent);
        out.push(b',');
        int(out, Some(l.boards_played as i32));
        out.push(b',');
        float(out, l.vp);
        out.push(b',');
        int(out, (!l.house).then_some(l.raw_rank as i32));
        out.push(b',');
        float(out, l.handicap_expected);
        out.push(b',');
        float(out, l.handicap_result);
        out.push(b'\n');
    }
}

/// Bytes a line of `standings.csv` takes after its competition's cells, about.
const CSV_LINE_BYTES: usize = 80;

/// The bytes a text cell may have to change for: the CSV's separators and quote, and
/// what may start an unsafe character.
const CSV_MAY_CHANGE: [bool; 256] = crate::dataset::text::bytes_to_look_at(b",\"");

/// A text cell as polars' CSV writer writes it (quoted only where needed, an empty
/// text as `""`, nothing for a null) after [`super::files::neutralise_cell`].
fn csv_text(out: &mut Vec<u8>, cell: Option<&str>) {
    let Some(text) = cell else {
        return;
    };
    // Nearly every cell is written as it is: not empty, not a formula's start, and no
    // byte that may need quoting or replacing (a lead byte of a safe character such as
    // `–` is checked on the spot).
    let bytes = text.as_bytes();
    let plain = match bytes.first() {
        None | Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r') => false,
        Some(_) => !bytes.iter().enumerate().any(|(at, &b)| {
            CSV_MAY_CHANGE[b as usize]
                && (matches!(b, b',' | b'"')
                    || crate::dataset::text::unsafe_width(
                        bytes.get(at..).unwrap_or_default(),
                        false,
                    ) > 0)
        }),
    };
    if plain {
        out.extend_from_slice(bytes);
        return;
    }
    let shown = super::files::neutralise_cell(text);
    if shown.is_empty() {
        out.extend_from_slice(b"\"\"");
        return;
    }
    let bytes = shown.as_bytes();
    if !bytes
        .iter()
        .any(|b| matches!(b, b',' | b'\n' | b'\r' | b'"'))
    {
        out.extend_from_slice(bytes);
        return;
    }
    out.push(b'"');
    for &b in bytes {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// `frame` as CSV (with its header when `header`), as [`super::files::write_csv`]
/// writes a whole frame.
fn csv_bytes(frame: &DataFrame, header: bool) -> PolarsResult<Vec<u8>> {
    let mut frame = super::files::neutralise_text(frame)?;
    let mut bytes = Vec::new();
    CsvWriter::new(&mut bytes)
        .include_header(header)
        .with_date_format(Some("%Y-%m-%d".into()))
        .n_threads(1)
        .finish(&mut frame)?;
    Ok(bytes)
}

/// The result sheet's files being written.
struct SheetFiles {
    standings: DirectFile,
    html: DirectFile,
    /// Created with the first round of a Swiss pairs event.
    rounds: Option<DirectFile>,
    rounds_path: PathBuf,
}

/// Creates the sheet's file at `path`, starting with `start`.
fn sheet_file(path: PathBuf, start: &[u8]) -> Result<DirectFile> {
    let mut file = DirectFile::create(path)?;
    file.write(start)?;
    Ok(file)
}

impl SheetFiles {
    fn create(staged: &StagedFolder) -> Result<Self> {
        let header = |path: &Path, frame: PolarsResult<DataFrame>| {
            frame
                .and_then(|f| csv_bytes(&f, true))
                .map_err(|e| Error::polars(path, e))
        };
        let path = staged.path("standings.csv");
        let standings_header = header(&path, sheet::frame(&[]))?;
        Ok(SheetFiles {
            standings: sheet_file(path, &standings_header)?,
            html: sheet_file(staged.path("results.html"), sheet::html_start().as_bytes())?,
            rounds: None,
            rounds_path: staged.path("rounds.csv"),
        })
    }

    /// Appends batches of whole competitions, in order, to each file: `standings.csv`
    /// on one core, the page and the rounds on another.
    fn write(&mut self, batches: &[Encoded]) -> Result<()> {
        let SheetFiles {
            standings,
            html,
            rounds,
            rounds_path,
        } = self;
        let (lines, pages) = rayon::join(
            || {
                batches
                    .iter()
                    .try_for_each(|batch| standings.write(&batch.standings))
            },
            || -> Result<()> {
                for batch in batches {
                    if let Some(bytes) = &batch.rounds {
                        let file = match rounds {
                            Some(file) => file,
                            None => {
                                let start = sheet::rounds_rows(&[])
                                    .and_then(|f| csv_bytes(&f, true))
                                    .map_err(|e| Error::polars(&*rounds_path, e))?;
                                rounds.insert(sheet_file(rounds_path.clone(), &start)?)
                            }
                        };
                        file.write(bytes)?;
                    }
                    html.write(&batch.html)?;
                }
                Ok(())
            },
        );
        lines?;
        pages
    }

    /// Ends the files and waits for their bytes to be on disk: both at once, so that
    /// each file's tail and sync do not wait for the other's.
    fn finish(mut self) -> Result<()> {
        self.html.write(sheet::HTML_END.as_bytes())?;
        let (html, standings) = rayon::join(|| self.html.finish(), || self.standings.finish());
        html?;
        standings?;
        match self.rounds {
            Some(rounds) => rounds.finish(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::swiss::MatchLine;
    use chrono::NaiveDate;
    use proptest::prelude::*;

    fn line(competition_id: &str, entrant: &str, names: &str) -> sheet::SheetLine {
        sheet::SheetLine {
            competition_id: competition_id.into(),
            date: NaiveDate::from_ymd_opt(2026, 3, 9).unwrap_or_default(),
            title: Some("BK Hamnen – \"måndag\", par".into()),
            club: None,
            direction: None,
            rank: 1,
            raw_rank: 1,
            entrant: entrant.into(),
            names: names.into(),
            score: 38.0,
            percent: None,
            boards_played: 28,
            vp: None,
            handicap_expected: None,
            handicap_result: None,
            score_decimals: 1,
            house: false,
            rounds: Vec::new(),
        }
    }

    fn standing(competition_id: &str, entrant: &str) -> Standing {
        Standing {
            competition_id: competition_id.into(),
            entrant: entrant.into(),
            score: 0.0,
            percent: None,
            boards_played: 0,
            rank: 1,
            direction: None,
            vp: None,
            house: false,
            rounds: Vec::new(),
        }
    }

    /// Worked by hand: the handicap tournament's entrants get their results (an entrant
    /// it has none for, nothing), and the same entrant numbers of another competition
    /// get nothing, before and after it.
    #[test]
    fn handicap_results_are_those_of_the_rows_tournament() {
        let rows = [
            standing("A", "1"),
            standing("A", "2"),
            standing("H", "1"),
            standing("H", "3"),
            standing("H", "2"),
            standing("B", "2"),
        ];
        let rows: Vec<&Standing> = rows.iter().collect();
        let mut handicap = HandicapResults::default();
        handicap.insert(("H", "1"), (48.5, 3.25));
        handicap.insert(("H", "2"), (51.0, -1.5));
        let tournaments = handicap_tournaments(&handicap);
        assert_eq!(
            handicap_of(&rows, &handicap, &tournaments),
            [
                None,
                None,
                Some((48.5, 3.25)),
                None,
                Some((51.0, -1.5)),
                None
            ]
        );
    }

    /// The lines written by hand, a competition at a time, against the frame writer.
    fn both(lines: &[sheet::SheetLine]) -> (String, String) {
        let frame = sheet::frame(lines).and_then(|f| csv_bytes(&f, false));
        let polars = String::from_utf8(frame.unwrap_or_default()).unwrap_or_default();
        let mut by_hand = Vec::new();
        let rows: Vec<SheetRow<'_>> = lines.iter().map(sheet::SheetLine::row).collect();
        for group in rows.chunk_by(|a, b| a.competition_id == b.competition_id) {
            standings_csv(&mut by_hand, group);
        }
        (String::from_utf8(by_hand).unwrap_or_default(), polars)
    }

    #[test]
    fn standings_written_by_hand_are_the_frame_writers_bytes() {
        let mut a = line("K05-20260309-1", "7", "Åsa Ödman – #300371");
        a.direction = Some("EW".into());
        a.percent = Some(62.5);
        a.vp = Some(-0.0);
        a.handicap_expected = Some(-3.25);
        a.handicap_result = Some(1e16);
        a.club = Some(String::new());
        let mut house = line("K05-20260309-1", "", "=HYPERLINK(\"x\")");
        house.house = true;
        house.score = -7.0;
        house.club = Some(String::new());
        house.direction = None;
        let mut b = line("=1+2", "-5", "Bo\u{1b}Ek,\nAnn\r");
        b.title = None;
        b.club = Some("Klubb \"Öst\"".into());
        b.score = 0.1 + 0.2;
        b.rank = 12;
        b.raw_rank = 3;
        b.score_decimals = 0;
        b.percent = Some(55.9);
        let lines = [a, house, b];
        let (by_hand, polars) = both(&lines);
        assert_eq!(by_hand, polars);
        // Worked by hand: the title quoted for its comma and quotes, an empty club or
        // entrant as "" and a missing title as nothing, a score with its program's
        // decimals (37 where the club printed whole totals), the other figures with
        // two (55.90 as the page shows it), control characters as U+FFFD, a formula
        // neutralised and a number left alone.
        let title = "\"BK Hamnen – \"\"måndag\"\", par\"";
        assert_eq!(
            by_hand.lines().collect::<Vec<_>>(),
            [
                format!("K05-20260309-1,2026-03-09,{title},\"\",EW,1,7,Åsa Ödman – #300371,38.0,62.50,28,-0.00,1,-3.25,10000000000000000.00"),
                format!("K05-20260309-1,2026-03-09,{title},\"\",,,\"\",\"'=HYPERLINK(\"\"x\"\")\",-7.0,,28,,,,"),
                "'=1+2,2026-03-09,,\"Klubb \"\"Öst\"\"\",,12,-5,\"Bo\u{FFFD}Ek,\u{FFFD}Ann\u{FFFD}\",0,55.90,28,,3,,".to_string(),
            ]
        );
    }

    /// A date cell is the `%Y-%m-%d` polars' writer is given, for years of four digits
    /// and beyond them (a sign, then at least four digits).
    #[test]
    fn dates_are_written_as_the_csv_writers_format_writes_them() {
        for (year, written) in [
            (2026, "2026-03-09"),
            (0, "0000-03-09"),
            (-1, "-0001-03-09"),
            (10_000, "+10000-03-09"),
        ] {
            let date = NaiveDate::from_ymd_opt(year, 3, 9).unwrap_or_default();
            let mut out = Vec::new();
            sheet::push_date(&mut out, date);
            assert_eq!(String::from_utf8(out).unwrap_or_default(), written);
            assert_eq!(date.format("%Y-%m-%d").to_string(), written);
        }
    }

    /// Worked by hand: text cells written as they are (non-ASCII, `–` and `©` whose
    /// first bytes start unsafe characters too, HTML's marked-up characters) and the
    /// ones changed (quoted, replaced, neutralised, empty, null).
    #[test]
    fn text_cells_are_written_as_they_are_unless_they_must_change() {
        let cases = [
            (Some("Åsa Ödman – Bo Ek"), "Åsa Ödman – Bo Ek"),
            (Some("© <b>&'x'"), "© <b>&'x'"),
            (
                Some("\u{61B}\u{620}\u{2010}\u{206A}"),
                "\u{61B}\u{620}\u{2010}\u{206A}",
            ),
            (Some("Bo, \"Ek\""), "\"Bo, \"\"Ek\"\"\""),
            (
                Some("a\u{85}b\u{202E}c\u{61C}"),
                "a\u{FFFD}b\u{FFFD}c\u{FFFD}",
            ),
            // A line break is replaced before quoting is decided.
            (Some("Ann\nBo"), "Ann\u{FFFD}Bo"),
            (Some("-5"), "-5"),
            (Some("+46 8"), "'+46 8"),
            (Some("x,\u{1b}"), "\"x,\u{FFFD}\""),
            (Some(""), "\"\""),
            (None, ""),
        ];
        for (cell, written) in cases {
            let mut out = Vec::new();
            csv_text(&mut out, cell);
            assert_eq!(
                String::from_utf8(out).unwrap_or_default(),
                written,
                "{cell:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn any_cells_are_written_as_the_frame_writer_writes_them(
            cells in proptest::collection::vec(
                (
                    "[a-c,\"'=+@\\-\t\r\n Å–\u{1b}\u{202E}0-9]{0,6}",
                    any::<f64>(),
                    any::<i32>(),
                    any::<bool>(),
                ),
                1..12,
            ),
        ) {
            let lines: Vec<sheet::SheetLine> = cells
                .iter()
                .enumerate()
                .map(|(i, (text, value, whole, house))| {
                    let mut l = line(&format!("c{}", i / 3), text, text);
                    // A competition's title is the one of its first line's text.
                    let (first, titled, ..) = &cells[i - i % 3];
                    l.title = titled.is_sign_negative().then(|| first.clone());
                    l.club = Some(first.clone());
                    l.direction = (!house).then(|| text.clone());
                    l.score = *value;
                    l.percent = house.then_some(*value / 7.0);
                    l.handicap_result = Some(f64::from(*whole) / 100.0);
                    l.rank = whole.unsigned_abs();
                    l.boards_played = whole.unsigned_abs() / 2;
                    l.house = *house;
                    l.rounds = vec![MatchLine {
                        round: 1,
                        opponent: text.clone(),
                        boards: 3,
                        imps: *value,
                        margin: *whole,
                        vp: 10.0,
                    }];
                    l
                })
                .collect();
            let (by_hand, polars) = both(&lines);
            prop_assert_eq!(by_hand, polars);
        }
    }
}
