//! Reading a dataset folder (the five tables of docs/data.md) into a [`Dataset`].
//!
//! Datasets come from federation exports (one Parquet file per table), from data
//! pipelines (hive-partitioned folders) and from people typing CSV by hand, so every form
//! is read into the same plain structs and held to the same rules. Types are checked per
//! column against the contract; CSV cells and hive partition values are text, so they
//! are parsed instead, with the same messages. Every row keeps its [`Origin`], and every
//! error names the file, the 1-based data row and the column, so a club secretary can go
//! straight to the cell.
//!
//! Tables are read in contract order and each row is checked by
//! [`Validator`](super::validate::Validator) as soon as it is read, so the error returned
//! is always the first in table order, then file order.
//!
//! Locating a table's files and reading them into frames (`locate`), taking typed cells
//! out of a frame (`cells`) and building the contract's rows from them (`rows`) are
//! separate, so a new source form or a new column touches one of them.

use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;

use crate::dataset::entrant_table::{EntrantTable, ResultTable, RowSink};
use crate::dataset::{BoardResult, Competition, Dataset, Entrant, EntrantResult, Member};
use crate::error::{Error, InputError, Location};
use crate::import::validate::Validator;
use crate::quarantine::{OnError, Quarantine};

mod cells;
mod empty_cells;
mod known;
mod locate;
mod rows;
mod stream;

pub(crate) use empty_cells::{read_checked, read_file_checked, read_slice_checked};
pub(crate) use locate::guarded;
use locate::{locate_table, read_frame, FileKind, SourceFile};
use rows::{build_competitions, build_entrants, build_results, check_rows, read_members, Built};
use stream::BoardFiles;
pub use stream::{BoardReader, Opened};

/// The dataset's tables, in the order they are read and checked.
pub const TABLES: [&str; 5] = ["members", "competitions", "entrants", "results", "boards"];

/// Reads and checks the dataset in `dir`, stopping at the first broken rule.
///
/// Each table is `NAME.parquet`, `NAME.csv` or a folder `NAME/` of Parquet files (read in
/// sorted path order; `key=value` folders supply a column `key` when the files lack it).
/// `members`, `competitions` and `entrants` are required, and at least one of `results`
/// and `boards`.
pub fn read_dataset(dir: &Path) -> Result<Dataset, Error> {
    Ok(read_dataset_checked(dir, OnError::Strict)?.dataset)
}

/// A members table in a file of its own (`.csv` or `.parquet`), such as a federation's
/// register: at least `member_id`, checked with the same rules as `members`.
pub fn read_members_file(path: &Path) -> Result<Vec<Member>, Error> {
    let is_csv = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let file = SourceFile::new(
        path.to_path_buf(),
        if is_csv {
            FileKind::Csv
        } else {
            FileKind::Parquet
        },
        Vec::new(),
    );
    let mut members = Vec::new();
    read_members(&read_frame(&file)?, &mut Validator::default(), &mut members)?;
    Ok(members)
}

/// A dataset with the competitions that broke a rule taken out, and why.
#[derive(Debug, Default)]
pub struct Checked {
    /// Every row of every competition that passed the checks.
    pub dataset: Dataset,
    /// The competitions taken out, with every reason the row checks found.
    pub quarantine: Quarantine,
}

/// Opens the dataset in `dir` for a run that reads its board rows file by file: every
/// table but `boards` is read and checked, and each board file's competitions are
/// listed (from its `competition_id` column alone), so that a competition can be
/// handed on as soon as the last file holding its rows has been read. The same rules
/// and errors as [`read_dataset_checked`], which is this followed by reading every
/// board file.
pub fn open_checked(dir: &Path, on_error: OnError) -> Result<Opened, Error> {
    open_checked_with(dir, on_error, &crate::scoring::progress::NoProgress)
}

/// [`open_checked`], reporting each file of `members`, `competitions`, `entrants` and
/// `results` read to `progress` (stage `reading files`).
pub fn open_checked_with(
    dir: &Path,
    on_error: OnError,
    progress: &dyn crate::scoring::progress::Progress,
) -> Result<Opened, Error> {
    open_partitions(dir, on_error, &Partitions::All, progress)
}

/// Which month partitions of a dataset in the importer's layout a reader opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Partitions {
    /// Every file of every table.
    All,
    /// The `entrants`, `results` and `boards` files of these months only (`members`
    /// and `competitions` whole): a continued run whose dataset index vouches for the
    /// competitions of the other months.
    Rows(BTreeSet<String>),
    /// Every table's files of these months only, `members` whole: the dataset index
    /// built a month at a time.
    Months(BTreeSet<String>),
}

impl Partitions {
    fn keeps(&self, table: &str, file: &SourceFile) -> bool {
        let months = match self {
            Partitions::All => return true,
            Partitions::Rows(_) if matches!(table, "members" | "competitions") => return true,
            Partitions::Months(_) if table == "members" => return true,
            Partitions::Rows(months) | Partitions::Months(months) => months,
        };
        month_of_file(file).is_some_and(|month| months.contains(month))
    }
}

/// The `month=` partition value of a file, when it has one.
fn month_of_file(file: &SourceFile) -> Option<&str> {
    file.partition
        .iter()
        .find(|(key, _)| key == "month")
        .and_then(|(_, value)| value.as_deref())
}

/// A data file of a dataset: its table, its path and its `month=` partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFile {
    pub table: &'static str,
    pub path: std::path::PathBuf,
    pub month: Option<String>,
}

/// Every file the reader would open for the dataset's tables, in table
/// order, then path order.
pub fn data_files(dir: &Path) -> Result<Vec<DataFile>, Error> {
    let mut found = Vec::new();
    for table in TABLES {
        for file in locate_table(dir, table)?.unwrap_or_default() {
            found.push(DataFile {
                table,
                month: month_of_file(&file).map(str::to_owned),
                path: file.path,
            });
        }
    }
    Ok(found)
}

/// [`open_checked_with`] reading only the files `partitions` keeps.
pub fn open_partitions(
    dir: &Path,
    on_error: OnError,
    partitions: &Partitions,
    progress: &dyn crate::scoring::progress::Progress,
) -> Result<Opened, Error> {
    open_into(dir, on_error, partitions, progress, None, true)
}

/// [`open_partitions`] with the entrant and result rows read into compact tables
/// (grouped by competition) instead of the head's `entrants` and `results`, which
/// stay empty: a run over a whole federation holds millions of them while it scores.
pub fn open_partitions_compact(
    dir: &Path,
    on_error: OnError,
    partitions: &Partitions,
    progress: &dyn crate::scoring::progress::Progress,
) -> Result<(Opened, EntrantTable, ResultTable), Error> {
    let mut tables = (EntrantTable::default(), ResultTable::default());
    let opened = open_into(dir, on_error, partitions, progress, Some(&mut tables), true)?;
    let (mut entrants, mut results) = tables;
    entrants.group();
    results.group();
    Ok((opened, entrants, results))
}

/// The dataset's members, competitions and entrant rows (compactly), its result rows
/// neither read nor checked: what a publication shows of a dataset whose run checked
/// them. At a federation's size they are a million rows decoded for nothing.
pub fn open_entrants_compact(
    dir: &Path,
    on_error: OnError,
    progress: &dyn crate::scoring::progress::Progress,
) -> Result<(Opened, EntrantTable), Error> {
    let mut tables = (EntrantTable::default(), ResultTable::default());
    let all = &Partitions::All;
    let opened = open_into(dir, on_error, all, progress, Some(&mut tables), false)?;
    let (mut entrants, _) = tables;
    entrants.group();
    Ok((opened, entrants))
}

fn open_into(
    dir: &Path,
    on_error: OnError,
    partitions: &Partitions,
    progress: &dyn crate::scoring::progress::Progress,
    tables: Option<&mut (EntrantTable, ResultTable)>,
    // Whether the result rows are read and checked (a publication shows none).
    read_results: bool,
) -> Result<Opened, Error> {
    let only = |table: &str| -> Result<Option<Vec<SourceFile>>, Error> {
        Ok(locate_table(dir, table)?.map(|files| {
            files
                .into_iter()
                .filter(|file| partitions.keeps(table, file))
                .collect()
        }))
    };
    let members = only("members")?;
    let competitions = only("competitions")?;
    let entrants = only("entrants")?;
    let results = only("results")?;
    let boards = only("boards")?;
    for (name, source) in [
        ("members", &members),
        ("competitions", &competitions),
        ("entrants", &entrants),
    ] {
        if source.is_none() {
            return Err(InputError::new(
                Location::file(dir),
                format!("the required table `{name}` is missing (expected {name}.parquet, {name}.csv or a folder {name}/)"),
            )
            .into());
        }
    }
    if results.is_none() && boards.is_none() {
        return Err(InputError::new(
            Location::file(dir),
            "a dataset needs a `results` or a `boards` table (or both)",
        )
        .into());
    }

    let mut check = Check {
        validator: Validator::default(),
        quarantine: Quarantine::new(on_error),
    };
    let mut head = Dataset::default();
    // The board files' competition ids are listed on a thread of their own while the
    // other tables are read; an error in the head is still the one reported first.
    std::thread::scope(|scope| {
        let boards = scope.spawn(move || BoardFiles::scan(boards.unwrap_or_default()));
        let results = if read_results { &results } else { &None };
        read_head(
            [&members, &competitions, &entrants, results],
            &mut check,
            &mut head,
            progress,
            tables,
        )?;
        read_vp_scales(dir, &mut head, &mut check)?;
        let files = boards.join().unwrap_or_else(|_| Err(reader_stopped()))?;
        Ok(Opened {
            head,
            boards: BoardReader::new(check, files),
        })
    })
}

/// Reads members, competitions, entrants and results (the `files` of each, in that
/// order) into `head`, or the entrants and results into `tables` when given.
///
/// The rules need the rows before (a result needs its entrant, an entrant its
/// competition), so rows are checked on one thread in table and file order. Building
/// a row from its cells needs nothing but its frame, so a second thread decodes and
/// builds the competitions', entrants' and results' files ahead of the checks, a few
/// parts at most: a federation's history is 120 months of entrant files, and reading
/// them took a core while the other idled. What the builder meets (a broken file, a
/// missing column, a row without a competition id) waits its turn, so the error
/// reported is the same first one.
fn read_head(
    [members, competitions, entrants, results]: [&Option<Vec<SourceFile>>; 4],
    check: &mut Check,
    head: &mut Dataset,
    progress: &dyn crate::scoring::progress::Progress,
    tables: Option<&mut (EntrantTable, ResultTable)>,
) -> Result<(), Error> {
    let files = [members, competitions, entrants, results]
        .iter()
        .map(|t| t.iter().flatten().count() as u64)
        .sum();
    progress.start("reading files", files);
    // A damaged footer may claim more rows than memory holds: the vector then grows
    // as the rows come, and the reader reports the file.
    let (sink, result_sink): (&mut dyn RowSink<Entrant>, &mut dyn RowSink<EntrantResult>) =
        match tables {
            Some((entrants, results)) => (entrants, results),
            None => (&mut head.entrants, &mut head.results),
        };
    std::thread::scope(|scope| {
        // Made here, so that a check that fails drops the receiver and the builder,
        // its next part refused, ends before the scope waits for it.
        let (parts, built) = std::sync::mpsc::sync_channel(BUILT_AHEAD);
        // Checked parts go back to the builder, which drops them: their rows' texts
        // were made on its thread, and are freed there rather than on this one.
        let (spent, to_drop) = std::sync::mpsc::channel();
        let builder =
            scope.spawn(move || build_head([competitions, entrants, results], parts, to_drop));
        for file in members.iter().flatten() {
            read_members(&read_frame(file)?, &mut check.validator, &mut head.members)?;
            progress.advance(1);
        }
        let mut reserved = (false, false, false);
        for part in built.iter() {
            let mut part = part?;
            match &mut part {
                Part::Competitions(rows) => {
                    if !std::mem::replace(&mut reserved.2, true) {
                        let claimed = rows_of(competitions.iter().flatten());
                        check.validator.reserve_competitions(claimed);
                    }
                    check_rows(rows, check, Validator::competition, &mut head.competitions)?
                }
                Part::Entrants(rows) => {
                    if !std::mem::replace(&mut reserved.0, true) {
                        sink.reserve_exact_rows(rows_of(entrants.iter().flatten()));
                        sink.reserve_competitions(head.competitions.len());
                    }
                    check_rows(rows, check, Validator::entrant, sink)?
                }
                Part::Results(rows) => {
                    if !std::mem::replace(&mut reserved.1, true) {
                        result_sink.reserve_exact_rows(rows_of(results.iter().flatten()));
                        result_sink.reserve_competitions(head.competitions.len());
                    }
                    check_rows(rows, check, Validator::result, result_sink)?
                }
                Part::FileRead => progress.advance(1),
            }
            // A builder that has ended drops nothing more: the part is dropped here.
            let _ = spent.send(part);
        }
        drop(spent);
        drop(built);
        // The builder ends by closing the channel; one that stopped early panicked.
        builder.join().map_err(|_| reader_stopped())?;
        progress.finish();
        Ok(())
    })
}

/// How many built parts may wait for the checks: a batch of parts built at once
/// ([`PARTS_AT_ONCE`]), so that the next batch is built while the checks take this
/// one; few enough that only a few parts' rows are held.
const BUILT_AHEAD: usize = PARTS_AT_ONCE;

/// A part of a head table's file, built, or the end of a file.
enum Part {
    Competitions(Built<Competition>),
    Entrants(Built<Entrant>),
    Results(Built<EntrantResult>),
    FileRead,
}

impl Part {
    fn stops(&self) -> bool {
        match self {
            Part::Competitions(rows) => rows.stops(),
            Part::Entrants(rows) => rows.stops(),
            Part::Results(rows) => rows.stops(),
            Part::FileRead => false,
        }
    }
}

/// Builds one table's part from rows of its frame.
type BuildPart = fn(&locate::Frame, std::ops::Range<usize>) -> Result<Part, Error>;

/// The most rows in one built part: a row group of a federation's one
/// `entrants.parquet` holds a quarter of a million, which built as `Entrant`s, a few
/// parts at a time, would be a gigabyte. A part of a few thousand rows (a megabyte or
/// two of `Entrant`s) is still in the caches when the checks read it and when the
/// builder drops it.
const BUILT_ROWS: usize = 4_096;

/// The parts built at once, in parallel: enough for both cores of the pool while the
/// checks take the parts before, few enough that the parts waiting stay a few
/// megabytes.
const PARTS_AT_ONCE: usize = 4;

/// Builds the rows of the competitions', entrants' and results' `files`, in that
/// order, a row group at a time, and sends them on; stops at the first error (sent
/// on too), or when the checks stopped listening.
fn build_head(
    [competitions, entrants, results]: [&Option<Vec<SourceFile>>; 3],
    parts: std::sync::mpsc::SyncSender<Result<Part, Error>>,
    spent: std::sync::mpsc::Receiver<Part>,
) {
    build_parts([competitions, entrants, results], &parts, &spent);
    // The last parts come back once checked (or the checks stopped).
    drop(parts);
    spent.iter().for_each(drop);
}

/// [`build_head`]'s parts, each built after dropping the parts checked meanwhile.
fn build_parts(
    [competitions, entrants, results]: [&Option<Vec<SourceFile>>; 3],
    parts: &std::sync::mpsc::SyncSender<Result<Part, Error>>,
    spent: &std::sync::mpsc::Receiver<Part>,
) {
    let tables: [(_, BuildPart); 3] = [
        (competitions, |frame, rows| {
            build_competitions(frame, rows).map(Part::Competitions)
        }),
        (entrants, |frame, rows| {
            build_entrants(frame, rows).map(Part::Entrants)
        }),
        (results, |frame, rows| {
            build_results(frame, rows).map(Part::Results)
        }),
    ];
    for (files, build) in tables {
        for file in files.iter().flatten() {
            let mut stopped = false;
            let read = by_row_group(file, |frame| {
                // At least one part, empty for an empty frame: its columns are
                // checked all the same. A few parts are built at once on the pool, so
                // that building keeps pace with the checks on the other core; they are
                // sent on in row order, and nothing after a part that fails or stops.
                let mut start = 0;
                loop {
                    spent.try_iter().for_each(drop);
                    let mut ranges = Vec::with_capacity(PARTS_AT_ONCE);
                    while ranges.len() < PARTS_AT_ONCE {
                        let end = frame.height().min(start + BUILT_ROWS);
                        ranges.push(start..end);
                        start = end;
                        if end == frame.height() {
                            break;
                        }
                    }
                    let whole = |rows: &std::ops::Range<usize>| {
                        rows.start == 0 && rows.end == frame.height()
                    };
                    let built: Vec<Result<Part, Error>> = ranges
                        .par_iter()
                        .map(|rows| {
                            if whole(rows) {
                                build(frame, rows.clone())
                            } else {
                                build(&frame.rows(rows.clone()), 0..rows.len())
                            }
                        })
                        .collect();
                    for part in built {
                        let part = part?;
                        let stops = part.stops();
                        parts.send(Ok(part)).map_err(|_| reader_stopped())?;
                        if stops {
                            // Nothing after the row without a competition id is read:
                            // the checks report it when they come to it.
                            stopped = true;
                            return Err(reader_stopped());
                        }
                    }
                    if start == frame.height() {
                        return Ok(());
                    }
                }
            });
            let more = match read {
                _ if stopped => false,
                Ok(()) => parts.send(Ok(Part::FileRead)).is_ok(),
                Err(error) => {
                    let _ = parts.send(Err(error));
                    false
                }
            };
            if !more {
                return;
            }
        }
    }
}

/// A reading thread that ended without its result (it panicked).
fn reader_stopped() -> Error {
    Error::Config("the table reader stopped unexpectedly".to_owned())
}

/// Reads `file` a row group at a time when it has several (one `entrants.parquet` of
/// a whole federation), else whole, and gives each part's frame to `each` in row
/// order. Only one row group's columns are then in memory beside the rows built from
/// them; errors still name the file's row.
fn by_row_group(
    file: &SourceFile,
    mut each: impl FnMut(&locate::Frame) -> Result<(), Error>,
) -> Result<(), Error> {
    match locate::row_groups(file)? {
        Some(groups) if groups.len() > 1 => {
            // The next row group is decoded on a thread of its own while this one's rows
            // are built and checked; its error, if any, is reported when its turn comes.
            let mut slices = groups.iter().scan(0, |start, &rows| {
                let slice = *start..*start + rows;
                *start += rows;
                Some(slice)
            });
            let read = |slice| locate::read_frame_columns(file, None, Some(slice));
            std::thread::scope(|scope| {
                let mut next = slices.next().map(|slice| scope.spawn(move || read(slice)));
                while let Some(reading) = next.take() {
                    let frame = reading.join().unwrap_or_else(|_| Err(reader_stopped()))?;
                    next = slices.next().map(|slice| scope.spawn(move || read(slice)));
                    each(&frame)?;
                }
                Ok(())
            })
        }
        _ => each(&read_frame(file)?),
    }
}

/// The rows the Parquet footers of `files` claim (a CSV file, or one whose footer is
/// broken, counts none: reading it reports what is wrong, in table order). Millions of
/// entrant rows are then written once into memory reserved for them all, rather than
/// copied each time the table outgrows its vector.
fn rows_of<'a>(files: impl Iterator<Item = &'a SourceFile>) -> usize {
    files
        .filter_map(|file| locate::row_groups(file).ok().flatten())
        .map(|groups| groups.iter().sum::<usize>())
        .fold(0, usize::saturating_add)
}

/// Reads and checks the dataset in `dir`, every table whole in memory. An error in a
/// row that belongs to one competition quarantines that competition (or, with
/// [`OnError::Strict`], is returned); anything else (a missing table or column, a
/// mistyped column, a `members` row, a row without a `competition_id`) is returned as
/// the error.
pub fn read_dataset_checked(dir: &Path, on_error: OnError) -> Result<Checked, Error> {
    let Opened {
        head: mut dataset,
        boards: mut reader,
    } = open_checked(dir, on_error)?;
    reader.read_boards(&|_| true, &mut |rows| {
        dataset.boards.append(rows);
        Ok(())
    })?;
    let quarantine = reader.finish(&dataset)?;
    if !quarantine.is_empty() {
        let kept = |id: &str| !quarantine.contains(id);
        dataset.competitions.retain(|c| kept(&c.competition_id));
        dataset.entrants.retain(|e| kept(&e.competition_id));
        dataset.results.retain(|r| kept(&r.competition_id));
        dataset.boards.retain(|b| kept(&b.competition_id));
    }
    Ok(Checked {
        dataset,
        quarantine,
    })
}

/// Reads the VP scale each competition's `vp_scale` names (see
/// [`crate::import::vp_scale::resolve`]); a scale that cannot be read, or
/// one given to anything but a `team_imps` pairs event, quarantines its competition.
fn read_vp_scales(dir: &Path, head: &mut Dataset, check: &mut Check) -> Result<(), InputError> {
    for competition in &mut head.competitions {
        let Some(scale) = competition.vp_scale.as_mut() else {
            continue;
        };
        let id = competition.competition_id.as_str();
        let here = || {
            competition
                .origin
                .location()
                .competition(id)
                .column("vp_scale")
        };
        let four_five = competition.scoring == crate::dataset::ScoringMethod::TeamImps
            && competition.format == crate::dataset::Format::Pairs;
        let read = if four_five {
            crate::import::vp_scale::resolve(dir, &scale.name).map_err(|mut e| {
                e.location.competition = Some(id.to_string());
                if e.location.row.is_none() {
                    e.location = here();
                }
                e
            })
        } else {
            Err(InputError::new(
                here(),
                format!(
                    "vp_scale `{}` is for a four- or five-pair event (scoring `team_imps`, format `pairs`); this competition is {} {}",
                    scale.name, competition.format, competition.scoring
                ),
            ))
        };
        match read {
            Ok(table) => scale.table = Some(table),
            Err(error) => check.broken(id, error)?,
        }
    }
    Ok(())
}

/// The row rules, and where the competitions that break them are collected.
#[derive(Debug)]
struct Check {
    validator: Validator,
    quarantine: Quarantine,
}

/// A row that belongs to one competition.
trait CompetitionRow {
    /// How the row holds its competition's id.
    type Id: AsRef<str>;
    fn competition_id_mut(&mut self) -> &mut Self::Id;
}

macro_rules! competition_row {
    ($id:ty: $($ty:ty),*) => {$(
        impl CompetitionRow for $ty {
            type Id = $id;
            fn competition_id_mut(&mut self) -> &mut $id {
                &mut self.competition_id
            }
        }
    )*};
}
competition_row!(String: Competition, Entrant, EntrantResult);
competition_row!(crate::dataset::Text: BoardResult);

impl Check {
    /// A row of competition `id` whose cells broke a rule: the competition goes to the
    /// quarantine for it (or, strict, the error is returned).
    fn broken(&mut self, id: &str, error: InputError) -> Result<(), InputError> {
        self.quarantine.add(id, error)
    }

    /// Whether a built row of competition `id` is held to the rules. Rows of a
    /// competition whose own row is broken, or that is not listed at all, are not held
    /// to the rules that need the competition: its first such row already named the
    /// problem.
    fn admits(&self, id: &str) -> bool {
        !self.quarantine.contains(id) || self.validator.knows_competition(id)
    }
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use polars::prelude::*;

    use super::cells::*;
    use super::locate::*;

    mod head {
        use std::path::Path;

        use polars::prelude::*;

        use super::super::rows::{
            build_competitions, build_entrants, build_results, check_rows, read_members,
        };
        use super::super::*;
        use crate::scoring::progress::NoProgress;

        /// Writes `frame` as the Parquet file `path`, in row groups of `group` rows.
        fn parquet(path: &Path, mut frame: DataFrame, group: usize) {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let file = std::fs::File::create(path).unwrap();
            ParquetWriter::new(file)
                .with_row_group_size(Some(group))
                .finish(&mut frame)
                .unwrap();
        }

        /// An entrant row: competition, entrant, player1, player2.
        type Row<'a> = (Option<&'a str>, &'a str, i64, i64);

        /// Entrant rows of the pairs `spec` names (`competition/entrant`, by spaces):
        /// entrant `e` of competition `cN` is players 4(N − 1) + 2e − 1 and the next
        /// (`c1/1`: 1 and 2; `c3/2`: 11 and 12).
        fn pairs(spec: &str) -> Vec<Row<'_>> {
            let number = |text: &str| text.trim_start_matches('c').parse::<i64>().unwrap();
            let mut out = Vec::new();
            for named in spec.split_whitespace() {
                let (c, e) = named.split_once('/').unwrap();
                let first = 4 * (number(c) - 1) + 2 * number(e) - 1;
                out.push((Some(c), e, first, first + 1));
            }
            out
        }

        /// Entrant rows.
        fn entrants(rows: &[Row]) -> DataFrame {
            df!(
                "competition_id" => rows.iter().map(|r| r.0).collect::<Vec<_>>(),
                "entrant" => rows.iter().map(|r| r.1).collect::<Vec<_>>(),
                "player1" => rows.iter().map(|r| r.2).collect::<Vec<_>>(),
                "player2" => rows.iter().map(|r| r.3).collect::<Vec<_>>(),
            )
            .unwrap()
        }

        /// A dataset of three competitions, a month apart, with two pairs each; the
        /// entrants are written by `write` into `dir/entrants…`.
        fn dataset(dir: &Path, write: impl FnOnce(&Path)) {
            let members: String = (1..=12).map(|id| format!("{id}\n")).collect();
            std::fs::write(dir.join("members.csv"), format!("member_id\n{members}")).unwrap();
            std::fs::write(
                dir.join("competitions.csv"),
                "competition_id,date,format,scoring,boards\n\
                 c1,2026-01-05,pairs,matchpoints,24\n\
                 c2,2026-02-02,pairs,matchpoints,24\n\
                 c3,2026-03-02,pairs,matchpoints,24\n",
            )
            .unwrap();
            let results: String = ["c1", "c2", "c3"]
                .iter()
                .map(|c| format!("{c},1,24,55\n{c},2,24,45\n"))
                .collect();
            std::fs::write(
                dir.join("results.csv"),
                format!("competition_id,entrant,boards_played,score\n{results}"),
            )
            .unwrap();
            write(dir);
        }

        /// The entrants of `dataset` a month a file, each file's rows given.
        fn months(dir: &Path, files: [&[Row]; 3]) {
            for (month, rows) in ["2026-01", "2026-02", "2026-03"].iter().zip(files) {
                let path = dir.join(format!("entrants/month={month}/part-0.parquet"));
                parquet(&path, entrants(rows), 1 << 20);
            }
        }

        /// The head tables read as they were before a second thread built them: each
        /// file, each row group, built and checked in turn on this thread.
        fn read_on_one_thread(dir: &Path) -> Result<Dataset, Error> {
            let mut check = Check {
                validator: Validator::default(),
                quarantine: Quarantine::new(OnError::Strict),
            };
            let mut head = Dataset::default();
            for file in locate_table(dir, "members")?.unwrap_or_default() {
                read_members(&read_frame(&file)?, &mut check.validator, &mut head.members)?;
            }
            let check = &mut check;
            read_table(
                dir,
                "competitions",
                check,
                build_competitions,
                Validator::competition,
                &mut head.competitions,
            )?;
            read_table(
                dir,
                "entrants",
                check,
                build_entrants,
                Validator::entrant,
                &mut head.entrants,
            )?;
            read_table(
                dir,
                "results",
                check,
                build_results,
                Validator::result,
                &mut head.results,
            )?;
            Ok(head)
        }

        /// Builds and checks each row group of each file of `table` in turn into `out`.
        fn read_table<T: CompetitionRow<Id = String>>(
            dir: &Path,
            table: &str,
            check: &mut Check,
            build: fn(&locate::Frame, std::ops::Range<usize>) -> Result<Built<T>, Error>,
            rules: fn(&mut Validator, &T) -> Result<(), InputError>,
            out: &mut dyn RowSink<T>,
        ) -> Result<(), Error> {
            for file in locate_table(dir, table)?.unwrap_or_default() {
                by_row_group(&file, |frame| {
                    let mut rows = build(frame, 0..frame.height())?;
                    check_rows(&mut rows, check, rules, out)
                })?;
            }
            Ok(())
        }

        /// Reads `dir` both ways (whole and compact) and checks them against the read
        /// on one thread; gives the head read.
        fn read_both_ways(dir: &Path) -> Dataset {
            let one = read_on_one_thread(dir).unwrap();
            let two = open_checked(dir, OnError::Strict).unwrap().head;
            assert_eq!(two, one);
            let (opened, entrants, results) =
                open_partitions_compact(dir, OnError::Strict, &Partitions::All, &NoProgress)
                    .unwrap();
            assert!(opened.head.entrants.is_empty() && opened.head.results.is_empty());
            assert_eq!(opened.head.competitions, one.competitions);
            assert_eq!(entrants.len(), one.entrants.len());
            assert_eq!(results.len(), one.results.len());
            for id in ["c1", "c2", "c3"] {
                let of = |e: &&Entrant| e.competition_id == id;
                let listed: Vec<Entrant> = one.entrants.iter().filter(of).cloned().collect();
                assert_eq!(entrants.competition(id), listed);
                let reported: Vec<EntrantResult> = one
                    .results
                    .iter()
                    .filter(|r| r.competition_id == id)
                    .cloned()
                    .collect();
                assert_eq!(results.competition(id), reported);
            }
            two
        }

        /// Where each entrant row came from: competition, entrant, the file's month
        /// (or the file's name) and its row.
        fn origins(head: &Dataset) -> Vec<(String, String, String, usize)> {
            head.entrants
                .iter()
                .map(|e| {
                    let file = e.origin.file.as_deref().unwrap_or(Path::new(""));
                    let parent = file.parent().and_then(Path::file_name);
                    let place = match parent.and_then(|p| p.to_str()) {
                        Some(month) if month.starts_with("month=") => month.to_owned(),
                        _ => file.file_name().unwrap().to_string_lossy().into_owned(),
                    };
                    (
                        e.competition_id.clone(),
                        e.entrant.clone(),
                        place,
                        e.origin.row.unwrap(),
                    )
                })
                .collect()
        }

        /// Where each row of `files` (each a file's name or month and its rows) was
        /// written: competition, entrant, the file's name or month, and its row there,
        /// in file and row order, as [`origins`] gives them.
        fn as_written(files: &[(&str, &[Row])]) -> Vec<(String, String, String, usize)> {
            let mut out = Vec::new();
            for &(place, rows) in files {
                for (at, &(c, e, _, _)) in rows.iter().enumerate() {
                    out.push((c.unwrap_or("").into(), e.into(), place.into(), at + 1));
                }
            }
            out
        }

        /// The files [`months`] writes, each with its month.
        fn in_months<'a>(files: [&'a [Row<'a>]; 3]) -> [(&'static str, &'a [Row<'a>]); 3] {
            let [first, second, third] = files;
            [
                ("month=2026-01", first),
                ("month=2026-02", second),
                ("month=2026-03", third),
            ]
        }

        /// The error reading `dir` gives, the same on one thread and on two.
        fn error_both_ways(dir: &Path) -> String {
            let one = read_on_one_thread(dir).unwrap_err().to_string();
            let two = open_checked(dir, OnError::Strict)
                .err()
                .unwrap()
                .to_string();
            assert_eq!(two, one);
            two
        }

        /// Writes into a new folder `dir` the entrants of [`pairs`] `each_month` names,
        /// a month a file, reads it both ways and checks each row's origin; gives the
        /// head read.
        fn read_by_month(dir: &Path, each_month: [&str; 3]) -> Dataset {
            std::fs::create_dir(dir).unwrap();
            let [first, second, third] = each_month.map(pairs);
            let files: [&[Row]; 3] = [&first, &second, &third];
            dataset(dir, |dir| months(dir, files));
            let head = read_both_ways(dir);
            assert_eq!(origins(&head), as_written(&in_months(files)));
            head
        }

        fn origin(c: &str, e: &str, place: &str, row: usize) -> (String, String, String, usize) {
            (c.into(), e.into(), place.into(), row)
        }

        /// The same entrants, a month a file in competition order, in one file of three
        /// row groups in another order, and spread over the months with a competition
        /// in two files: the rows read on two threads are those read on one, in file
        /// and row order, with each row's file and row.
        #[test]
        fn the_head_read_on_two_threads_is_the_head_read_on_one_in_any_file_order() {
            let dir = tempfile::tempdir().unwrap();
            let months = ["c1/1 c1/2", "c2/1 c2/2", "c3/1 c3/2"];
            let head = read_by_month(&dir.path().join("by_month"), months);
            assert_eq!(head.entrants[5].players, [Some(11), Some(12), None, None]);
            assert_eq!(head.results.len(), 6);

            let one_file = dir.path().join("one_file");
            std::fs::create_dir(&one_file).unwrap();
            let rows = pairs("c3/2 c1/1 c2/2 c3/1 c1/2 c2/1");
            dataset(&one_file, |dir| {
                parquet(&dir.join("entrants.parquet"), entrants(&rows), 2);
            });
            let file = &locate_table(&one_file, "entrants").unwrap().unwrap()[0];
            assert_eq!(locate::row_groups(file).unwrap(), Some(vec![2, 2, 2]));
            let head = read_both_ways(&one_file);
            assert_eq!(origins(&head), as_written(&[("entrants.parquet", &rows)]));

            let months = ["c3/2 c2/1", "c1/2 c1/1 c3/1", "c2/2"];
            read_by_month(&dir.path().join("spread"), months);
        }

        /// Entrant rows whose competitions take turns in one file (a competition's
        /// rows coming back after another's), and results in the same turns, are read
        /// as in competition order; a repeat in a competition that came back names
        /// its first row, and a result naming an entrant its competition did not list
        /// is refused, after results of other competitions came between.
        #[test]
        fn entrants_of_competitions_taking_turns_are_read_and_checked_as_in_order() {
            let rows = pairs("c1/1 c2/1 c1/2 c3/1 c2/2 c3/2");
            let write = |rows: &[Row], results: Option<&str>| {
                let dir = tempfile::tempdir().unwrap();
                dataset(dir.path(), |dir| {
                    parquet(&dir.join("entrants.parquet"), entrants(rows), 2);
                    if let Some(results) = results {
                        std::fs::write(
                            dir.join("results.csv"),
                            format!("competition_id,entrant,boards_played,score\n{results}"),
                        )
                        .unwrap();
                    }
                });
                dir
            };
            let turns = "c2,2,24,45\nc1,1,24,55\nc2,1,24,55\nc3,1,24,55\nc1,2,24,45\nc3,2,24,45\n";
            let dir = write(&rows, Some(turns));
            let head = read_both_ways(dir.path());
            let f = "entrants.parquet";
            assert_eq!(origins(&head), as_written(&[(f, &rows)]));
            let reported: Vec<(&str, &str)> = head
                .results
                .iter()
                .map(|r| (r.competition_id.as_str(), r.entrant.as_str()))
                .collect();
            assert_eq!(
                reported,
                [
                    ("c2", "2"),
                    ("c1", "1"),
                    ("c2", "1"),
                    ("c3", "1"),
                    ("c1", "2"),
                    ("c3", "2")
                ]
            );

            let mut repeated = rows.clone();
            repeated.push((Some("c2"), "3", 1, 12));
            repeated.push((Some("c1"), "2", 5, 9));
            let repeated = write(&repeated, None);
            let unknown = write(&rows, Some(&format!("{turns}c1,3,24,50\n")));
            let cases = [
                (
                    repeated.path().join(f),
                    "row 8, column `entrant`, competition `c1`: entrant `2` appears twice in competition `c1`, first (row 3)",
                ),
                (
                    unknown.path().join("results.csv"),
                    "row 7, column `entrant`, competition `c1`: no entrant `3` in competition `c1` (not in `entrants`)",
                ),
            ];
            for (dir, (path, rule)) in [&repeated, &unknown].into_iter().zip(cases) {
                let error = error_both_ways(dir.path());
                assert_eq!(error, format!("{}, {rule}", path.display()));
            }
        }

        /// A file of more rows than one built part holds, in two row groups, is
        /// read as on one thread; a row without a competition id stops it where it
        /// stands, after an earlier part's broken row is reported first.
        #[test]
        fn a_file_of_more_rows_than_a_part_is_read_as_on_one_thread() {
            let names: Vec<String> = (1..=40_000).map(|n| n.to_string()).collect();
            let mut rows: Vec<Row> = names
                .iter()
                .map(|n| (Some("c1"), n.as_str(), 1, 2))
                .collect();
            for (c, first) in [("c2", 5), ("c3", 9)] {
                rows.push((Some(c), "1", first, first + 1));
                rows.push((Some(c), "2", first + 2, first + 3));
            }
            let write = |rows: &[Row]| {
                let dir = tempfile::tempdir().unwrap();
                dataset(dir.path(), |dir| {
                    parquet(&dir.join("entrants.parquet"), entrants(rows), 20_000)
                });
                dir
            };
            let dir = write(&rows);
            let file = &locate_table(dir.path(), "entrants").unwrap().unwrap()[0];
            assert_eq!(
                locate::row_groups(file).unwrap(),
                Some(vec![20_002, 20_002])
            );
            let head = read_both_ways(dir.path());
            let origins = origins(&head);
            assert_eq!(origins.len(), 40_004);
            let f = "entrants.parquet";
            for (at, entrant) in [(16_383, "16384"), (16_384, "16385"), (29_999, "30000")] {
                assert_eq!(origins[at], origin("c1", entrant, f, at + 1));
            }
            assert_eq!(origins[30_000], origin("c1", "30001", f, 30_001));
            assert_eq!(origins[40_003], origin("c3", "2", f, 40_004));

            rows[19_999].0 = None;
            let stopped = write(&rows);
            let path = stopped.path().join(f);
            let empty = format!(
                "{}, row 20000, column `competition_id`: `competition_id` is required but the cell is empty",
                path.display()
            );
            rows[17_999].1 = "1";
            let repeated = write(&rows);
            let path = repeated.path().join(f);
            let twice = format!(
                "{}, row 18000, column `entrant`, competition `c1`: entrant `1` appears twice in competition `c1`, first (row 1)",
                path.display()
            );
            for (dir, expected) in [(&stopped, empty), (&repeated, twice)] {
                assert_eq!(error_both_ways(dir.path()), expected);
            }
        }

        /// The first broken row is reported, though the builder has read on to a later
        /// file that breaks a rule too (March's lacks the `entrant` column) and the
        /// results after it name an entrant nobody listed.
        #[test]
        fn an_error_in_the_second_partition_is_reported_before_any_later_one() {
            let march_broken = |dir: &Path| {
                let path = dir.join("entrants/month=2026-03/part-0.parquet");
                let rows = entrants(&[(Some("c3"), "1", 9, 10)]);
                parquet(&path, rows.drop("entrant").unwrap(), 1 << 20);
                let results = std::fs::read_to_string(dir.join("results.csv")).unwrap();
                std::fs::write(dir.join("results.csv"), format!("{results}c1,7,24,50\n")).unwrap();
            };
            let january: &[_] = &[(Some("c1"), "1", 1, 2), (Some("c1"), "2", 3, 4)];
            let cases: [(&[Row], &str); 3] = [
                (
                    &[(Some("c2"), "1", 5, 6), (Some("c9"), "2", 7, 8)],
                    "row 2, column `competition_id`, competition `c9`: unknown competition `c9` (not in `competitions`)",
                ),
                (
                    &[(Some("c2"), "1", 5, 6), (None, "2", 7, 8)],
                    "row 2, column `competition_id`: `competition_id` is required but the cell is empty",
                ),
                (
                    &[(Some("c2"), "1", 5, 6), (Some("c2"), "1", 7, 8), (None, "2", 7, 8)],
                    "row 2, column `entrant`, competition `c2`: entrant `1` appears twice in competition `c2`, first (row 1)",
                ),
            ];
            for (february, rule) in cases {
                let dir = tempfile::tempdir().unwrap();
                dataset(dir.path(), |dir| {
                    months(dir, [january, february, &[]]);
                    march_broken(dir);
                });
                let february = dir.path().join("entrants/month=2026-02/part-0.parquet");
                let expected = format!("{}, {rule}", february.display());
                let two = error_both_ways(dir.path());
                let compact = open_partitions_compact(
                    dir.path(),
                    OnError::Strict,
                    &Partitions::All,
                    &NoProgress,
                )
                .err()
                .unwrap()
                .to_string();
                assert_eq!(compact, two);
                assert_eq!(two, expected);
                // Left out, February's broken competition lets the reading go on to
                // March's file, whose missing column stops it.
                if rule.contains("unknown competition") {
                    let march = dir.path().join("entrants/month=2026-03/part-0.parquet");
                    let left_out = open_checked(dir.path(), OnError::Quarantine)
                        .err()
                        .unwrap()
                        .to_string();
                    assert_eq!(
                        left_out,
                        format!(
                            "{}, column `entrant`: the required column `entrant` is missing",
                            march.display()
                        )
                    );
                }
            }
        }
    }

    #[test]
    fn csv_records_are_counted_outside_quotes() {
        let text = b"a,b,c\r\n1,\"x,\ny\",3\n\n4,5\n";
        assert_eq!(csv_field_counts(text), vec![3, 3, 2]);
    }

    #[test]
    fn percent_decoding_restores_hive_values() {
        assert_eq!(percent_decode("Club%20Cup%2F2026"), "Club Cup/2026");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("a%zzb"), "a%zzb");
    }

    #[test]
    fn text_cells_parse_like_the_contract_types() {
        assert_eq!(i64::parse(" 42 "), Ok(42));
        assert!(i64::parse("4.5").is_err());
        assert_eq!(i32::parse("2147483647"), Ok(i32::MAX));
        assert!(i32::parse("2147483648").is_err());
        assert!(f64::parse("NaN").is_err());
        assert!(f64::parse("inf").is_err());
        assert!((f64::parse("54.2").unwrap_or_default() - 54.2).abs() < 1e-12);
        assert_eq!(bool::parse("True"), Ok(true));
        assert!(bool::parse("yes").is_err());
        assert_eq!(
            NaiveDate::parse("2026-11-03"),
            Ok(NaiveDate::from_ymd_opt(2026, 11, 3).unwrap_or_default())
        );
        assert!(NaiveDate::parse("03/11/2026").is_err());
    }

    #[test]
    fn midnight_timestamps_are_dates_and_other_times_are_not() {
        let day = 86_400_000_i64;
        let series = Int64Chunked::from_iter_options(
            "d".into(),
            [Some(0), Some(20_000 * day), Some(day + 1), None].into_iter(),
        )
        .into_datetime(TimeUnit::Milliseconds, None)
        .into_series();
        let cells = NaiveDate::typed(&series).unwrap_or_default().to_vec();
        assert_eq!(cells.len(), 4);
        assert_eq!(cells[0], Ok(NaiveDate::from_ymd_opt(1970, 1, 1)));
        assert_eq!(cells[1], Ok(NaiveDate::from_ymd_opt(2024, 10, 4)));
        assert!(cells[2].as_ref().is_err_and(|e| e.contains("time of day")));
        assert_eq!(cells[3], Ok(None));
    }

    #[test]
    fn arrow_day_zero_is_1970_01_01() {
        let series =
            Int32Chunked::from_iter_options("d".into(), [Some(0), Some(20_000)].into_iter())
                .into_date()
                .into_series();
        let cells = NaiveDate::typed(&series).unwrap_or_default().to_vec();
        assert_eq!(
            cells,
            vec![
                Ok(NaiveDate::from_ymd_opt(1970, 1, 1)),
                Ok(NaiveDate::from_ymd_opt(2024, 10, 4)),
            ]
        );
    }
}
