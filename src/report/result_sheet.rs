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

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;

use super::files::{write_csv, write_parquet_parts, write_staged, StagedFolder};
use super::frame::FrameBuilder;
use super::outputs::{quarantine, standings_frame, write_board_scores};
use super::sheet::{self, EntrantNames, SheetLine};
use crate::dataset::{Competition, Dataset};
use crate::error::{Error, Result};
use crate::pipeline::sealed::BoardScoreRows;
use crate::quarantine::Quarantined;
use crate::scoring::Standing;

/// Handicap tournaments: (expected, adjusted) per (competition, entrant).
pub type HandicapResults<'a> = HashMap<(&'a str, &'a str), (f64, f64)>;

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

/// Writes the outputs of `bridgehcp score` to `out`, all or nothing: the standings
/// (`standings_rows`, in replay order) and board scores, the quarantine, and the result
/// sheet.
pub fn write_scored(
    out: &Path,
    standings_rows: &[Standing],
    boards: &BoardScoreRows,
    quarantined: &[Quarantined],
    sheet: &ScoreSheet,
) -> Result<Vec<PathBuf>> {
    let quarantine = quarantine(quarantined).map_err(|e| Error::polars("quarantine.csv", e))?;
    let handicap = |s: &Standing| {
        sheet
            .handicap
            .get(&(s.competition_id.as_str(), s.entrant.as_str()))
            .copied()
    };
    let standings_part = |range: std::ops::Range<usize>| {
        let rows = &standings_rows[range];
        standings_frame(FrameBuilder::new(rows.len()), rows, handicap)
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

/// Writes `standings.csv`, `results.html` and (with a Swiss pairs event) `rounds.csv`
/// into `staged`, a batch of competitions at a time: a batch ends at the first
/// competition boundary past `batch` lines. A few batches are encoded in parallel and
/// written in order, so the bytes do not depend on the thread count.
pub(crate) fn write_sheet(
    staged: &StagedFolder,
    sheet: &ScoreSheet,
    standings: &[Standing],
    batch: usize,
) -> Result<()> {
    let competitions: HashMap<&str, &Competition> = sheet
        .dataset
        .competitions
        .iter()
        .map(|c| (c.competition_id.as_str(), c))
        .collect();
    // Each competition's standings (a line each), cut into batches of whole competitions.
    let mut batches: Vec<Vec<(&Competition, &[Standing])>> = Vec::new();
    let mut current = Vec::new();
    let mut lines = 0;
    for group in sheet::by_competition(standings) {
        let Some(competition) = competitions.get(group[0].competition_id.as_str()) else {
            continue;
        };
        current.push((*competition, group));
        lines += group.len();
        if lines >= batch {
            batches.push(std::mem::take(&mut current));
            lines = 0;
        }
    }
    batches.push(current);
    let encode = |groups: &Vec<(&Competition, &[Standing])>| {
        let mut lines = Vec::with_capacity(groups.iter().map(|(_, g)| g.len()).sum());
        for (competition, group) in groups {
            let names = sheet.names.competition(&competition.competition_id);
            sheet::competition_lines(
                competition,
                group,
                |s| names.of(&s.entrant),
                |s| {
                    sheet
                        .handicap
                        .get(&(s.competition_id.as_str(), s.entrant.as_str()))
                        .copied()
                },
                &mut lines,
            );
        }
        Encoded::of(&lines)
    };
    let mut files = SheetFiles::create(staged)?;
    let in_flight = 2 * rayon::current_num_threads().max(1);
    for chunk in batches.chunks(in_flight) {
        let encoded: Vec<PolarsResult<Encoded>> = chunk.par_iter().map(encode).collect();
        for one in encoded {
            files.write(one.map_err(|e| Error::polars(&files.standings.path, e))?)?;
        }
    }
    files.finish()
}

/// A batch of the sheet's lines as the bytes each file gets.
struct Encoded {
    standings: Vec<u8>,
    rounds: Option<Vec<u8>>,
    html: String,
}

impl Encoded {
    fn of(lines: &[SheetLine]) -> PolarsResult<Self> {
        let standings = csv_bytes(&sheet::frame(lines)?, false)?;
        let rounds = if lines.iter().any(|l| !l.rounds.is_empty()) {
            Some(csv_bytes(&sheet::rounds_rows(lines)?, false)?)
        } else {
            None
        };
        let mut html = String::new();
        sheet::html_tables(&mut html, lines);
        Ok(Encoded {
            standings,
            rounds,
            html,
        })
    }
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
    standings: SheetFile,
    html: SheetFile,
    /// Created with the first round of a Swiss pairs event.
    rounds: Option<SheetFile>,
    rounds_path: PathBuf,
}

struct SheetFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl SheetFile {
    /// Creates the file at `path`, starting with `start`.
    fn create(path: PathBuf, start: &[u8]) -> Result<Self> {
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let mut file = SheetFile {
            out: BufWriter::with_capacity(1 << 20, file),
            path,
        };
        file.write(start)?;
        Ok(file)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))
    }

    fn finish(mut self) -> Result<()> {
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        self.out
            .get_ref()
            .sync_all()
            .map_err(|e| Error::io(&self.path, e))
    }
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
            standings: SheetFile::create(path, &standings_header)?,
            html: SheetFile::create(staged.path("results.html"), sheet::html_start().as_bytes())?,
            rounds: None,
            rounds_path: staged.path("rounds.csv"),
        })
    }

    /// Appends a batch of whole competitions to each file.
    fn write(&mut self, batch: Encoded) -> Result<()> {
        self.standings.write(&batch.standings)?;
        if let Some(rounds) = &batch.rounds {
            let file = match &mut self.rounds {
                Some(file) => file,
                None => {
                    let path = &self.rounds_path;
                    let start = sheet::rounds_rows(&[])
                        .and_then(|f| csv_bytes(&f, true))
                        .map_err(|e| Error::polars(path, e))?;
                    self.rounds.insert(SheetFile::create(path.clone(), &start)?)
                }
            };
            file.write(rounds)?;
        }
        self.html.write(batch.html.as_bytes())
    }

    fn finish(mut self) -> Result<()> {
        self.html.write(sheet::HTML_END.as_bytes())?;
        self.html.finish()?;
        self.standings.finish()?;
        match self.rounds {
            Some(rounds) => rounds.finish(),
            None => Ok(()),
        }
    }
}
