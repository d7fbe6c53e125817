//! A run's output folder read back as plain rows: the changes, the members' handicaps,
//! the ranking and what the competitions were (title, club, result unit).
//!
//! Statements and reports are built from these rows, so they can be made at any later
//! time from the published files, and tested on hand-made rows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::NaiveDate;
use polars::prelude::DataFrame;

use super::columns::{
    dates, f64s, has, i64s, parquet_from_bytes, read_csv_text, read_parquet, strs, texts,
};
use super::run_folder::{RunFolder, CHANGES, HANDICAPS, RANKING, STANDINGS};
use crate::dataset::entrant_table::EntrantTable;
use crate::dataset::Dataset;
use crate::error::{Error, InputError, Location, Result};
use crate::pipeline::Mode;

/// One row of `changes.parquet`. Its texts are shared: a federation's millions of rows
/// name a few hundred thousand competitions and a few dozen entrant numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeRow {
    pub competition_id: Arc<str>,
    pub date: NaiveDate,
    pub member_id: i64,
    pub entrant: Arc<str>,
    pub handicap_before: f64,
    /// The partner's handicap where `has_partner` ([`ChangeRow::partner_handicap`]):
    /// an `Option`'s tag would cost 8 bytes a row, the flag sits beside the status.
    pub(crate) partner: f64,
    pub(crate) has_partner: bool,
    pub pair_handicap: f64,
    pub field_handicap: f64,
    pub expected: f64,
    pub achieved: f64,
    /// Boards counted (the file's `int32`s, held as such).
    pub n_b: i32,
    pub n_g: i32,
    pub delta: f64,
    pub handicap_after: f64,
    pub status: ChangeStatus,
}

impl ChangeRow {
    /// The partner's handicap (none in individual events).
    pub fn partner_handicap(&self) -> Option<f64> {
        self.has_partner.then_some(self.partner)
    }

    pub fn set_partner_handicap(&mut self, handicap: Option<f64>) {
        self.partner = handicap.unwrap_or(0.0);
        self.has_partner = handicap.is_some();
    }
}

/// What a change row's player was to the federation (`status` of `changes.parquet`).
/// Held as a byte: a federation's history has millions of rows and three statuses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ChangeStatus {
    /// The file has no `status` column, or the cell is empty.
    #[default]
    Unstated,
    Member,
    Foreign,
    NonMember,
}

impl ChangeStatus {
    /// The text of the file (empty when unstated).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeStatus::Unstated => "",
            ChangeStatus::Member => "member",
            ChangeStatus::Foreign => "foreign",
            ChangeStatus::NonMember => "non_member",
        }
    }

    fn parse(text: &str) -> Option<ChangeStatus> {
        [
            ChangeStatus::Unstated,
            ChangeStatus::Member,
            ChangeStatus::Foreign,
            ChangeStatus::NonMember,
        ]
        .into_iter()
        .find(|status| status.as_str() == text)
    }
}

/// One row of `handicaps.parquet`.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberRow {
    pub member_id: i64,
    pub name: Option<String>,
    pub club: Option<String>,
    pub handicap: f64,
    pub boards: i64,
    pub competitions: i64,
    pub last_played: Option<NaiveDate>,
}

/// One row of `ranking.parquet`.
#[derive(Debug, Clone, PartialEq)]
pub struct RankingRow {
    pub rank: i64,
    pub group: Option<String>,
    pub member_id: i64,
    pub name: Option<String>,
    pub club: Option<String>,
    pub handicap: f64,
    pub boards: i64,
}

/// What a statement says about a competition besides the player's own numbers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompetitionInfo {
    pub title: Option<String>,
    pub club: Option<String>,
    /// The model's result unit is IMPs per board (else percentage points above 50).
    pub imps: bool,
}

/// An entrant's players, slot by slot: the member number and the name printed.
pub type Slots = [(Option<i64>, Option<String>); 4];

/// [`Slots`], borrowed.
pub type SlotsOf<'a> = [(Option<i64>, Option<&'a str>); 4];

/// The printed names of an entrant's players, by competition and entrant (from the
/// dataset); looked up by the two texts without making a key of them.
pub type EntrantNames = rustc_hash::FxHashMap<String, rustc_hash::FxHashMap<String, Slots>>;

/// A run's outputs, read back.
#[derive(Debug, Clone, Default)]
pub struct RunTables {
    pub folder: PathBuf,
    pub changes: Vec<ChangeRow>,
    pub members: Vec<MemberRow>,
    pub ranking: Vec<RankingRow>,
    pub competitions: HashMap<String, CompetitionInfo>,
    /// Empty unless the dataset was read too.
    pub entrants: EntrantNames,
    /// The dataset's entrant rows held compactly, when the dataset was read that way
    /// (then looked up here rather than in `entrants`).
    pub entrant_rows: Option<Arc<EntrantTable>>,
    /// The dataset the run read, as its `run.json` records it.
    pub data: Option<PathBuf>,
    /// The run replayed in frozen mode: `handicap_after` in `changes.parquet` is each
    /// row's own effect on the month's opening handicap.
    pub frozen: bool,
}

fn required<T>(value: Option<T>, path: &Path, name: &str, row: usize) -> Result<T> {
    value.ok_or_else(|| {
        Error::Input(InputError::new(
            Location::file(path).row(row + 1).column(name),
            "the cell is empty",
        ))
    })
}

/// Reads `changes.parquet`.
pub fn read_changes(path: &Path) -> Result<Vec<ChangeRow>> {
    changes_from_frame(&read_parquet(path)?, path)
}

/// The rows of a `changes` table (`path` names it in errors). The rows are made from
/// the texts and the key columns first and their numbers set a column at a time, so
/// that only one column is held twice while they are read; each text is kept once.
pub fn changes_from_frame(df: &DataFrame, path: &Path) -> Result<Vec<ChangeRow>> {
    let mut rows = Vec::with_capacity(df.height());
    push_changes(df, path, 0, &mut SharedTexts::default(), &mut rows)?;
    Ok(rows)
}

/// The rows of `changes.parquet` held in `bytes`, decoded a slice of row groups at a
/// time: the decoded columns of a whole federation's history would weigh more than
/// its rows.
pub fn changes_from_bytes(path: &Path, bytes: &[u8]) -> Result<Vec<ChangeRow>> {
    changes_in_slices(path, bytes, SLICE_ROWS)
}

/// [`changes_from_bytes`] with slices of about `slice_rows` rows.
fn changes_in_slices(path: &Path, bytes: &[u8], slice_rows: usize) -> Result<Vec<ChangeRow>> {
    use polars::prelude::{ParquetReader, SerReader};
    let mut rows = Vec::new();
    let mut texts = SharedTexts::default();
    let total = ParquetReader::new(std::io::Cursor::new(bytes))
        .num_rows()
        .map_err(|e| Error::polars(path, e))?;
    rows.reserve_exact(total);
    slices(path, bytes, slice_rows, |df, first| {
        push_changes(df, path, first, &mut texts, &mut rows)
    })?;
    Ok(rows)
}

/// Rows of a Parquet file read at once: a row group of a run's files (`changes.parquet`
/// at a federation's size: 5.1 million rows in row groups of 257 000), whose decoded
/// columns are held beside the rows made from them.
const SLICE_ROWS: usize = 1 << 18;

/// Calls `each` on the rows of the Parquet file in `bytes` a slice of whole row groups
/// (of about [`SLICE_ROWS`] rows) at a time, with the slice's first row.
pub fn for_each_slice(
    path: &Path,
    bytes: &[u8],
    each: impl FnMut(&DataFrame, usize) -> Result<()>,
) -> Result<()> {
    slices(path, bytes, SLICE_ROWS, each)
}

/// [`for_each_slice`] with slices of about `slice_rows` rows.
fn slices(
    path: &Path,
    bytes: &[u8],
    slice_rows: usize,
    mut each: impl FnMut(&DataFrame, usize) -> Result<()>,
) -> Result<()> {
    let metadata = polars_parquet::read::read_metadata(&mut std::io::Cursor::new(bytes))
        .map_err(|e| Error::polars(path, e))?;
    let mut start = 0;
    let mut end = 0;
    let groups = metadata.row_groups.iter().map(|g| g.num_rows());
    for rows in groups.chain(std::iter::once(usize::MAX)) {
        if end > start && (rows == usize::MAX || end - start + rows > slice_rows) {
            let df = crate::store::table::read_slice_checked(path, bytes, start..end)?;
            each(&df, start)?;
            start = end;
        }
        end = end.saturating_add(rows);
    }
    if start == 0 {
        let df = crate::store::table::read_checked(path, bytes)?;
        each(&df, 0)?;
    }
    Ok(())
}

/// Appends the rows of a slice of a `changes` table (its first row `first` of the
/// file, `path` naming it in errors) to `rows`.
fn push_changes(
    df: &DataFrame,
    path: &Path,
    first: usize,
    texts: &mut SharedTexts,
    all: &mut Vec<ChangeRow>,
) -> Result<()> {
    let ids = texts.column(df, path, "competition_id")?;
    let entrants = texts.column(df, path, "entrant")?;
    let status = statuses(df, path, first)?;
    let (date, member) = (dates(df, path, "date")?, i64s(df, path, "member_id")?);
    let empty: Arc<str> = Arc::from("");
    // The rows go straight into `all` (a slice's rows made apart and then moved would
    // be a second copy of them while the file is read); an error leaves the read.
    let start = all.len();
    let made = (ids.into_iter().zip(entrants))
        .zip(date.into_iter().zip(member))
        .enumerate()
        .map(
            |(i, ((id, entrant), (date, member)))| -> Result<ChangeRow> {
                Ok(ChangeRow {
                    competition_id: required(id, path, "competition_id", first + i)?,
                    date: required(date, path, "date", first + i)?,
                    member_id: required(member, path, "member_id", first + i)?,
                    entrant: entrant.unwrap_or_else(|| Arc::clone(&empty)),
                    handicap_before: 0.0,
                    partner: 0.0,
                    has_partner: false,
                    pair_handicap: 0.0,
                    field_handicap: 0.0,
                    expected: 0.0,
                    achieved: 0.0,
                    n_b: 0,
                    n_g: 0,
                    delta: 0.0,
                    handicap_after: 0.0,
                    status: status.get(i).copied().unwrap_or_default(),
                })
            },
        );
    for row in made {
        all.push(row?);
    }
    let rows = &mut all[start..];
    type Field = fn(&mut ChangeRow) -> &mut f64;
    let numbers: [(&str, Field); 7] = [
        ("handicap_before", |r| &mut r.handicap_before),
        ("pair_handicap", |r| &mut r.pair_handicap),
        ("field_handicap", |r| &mut r.field_handicap),
        ("expected", |r| &mut r.expected),
        ("achieved", |r| &mut r.achieved),
        ("delta", |r| &mut r.delta),
        ("handicap_after", |r| &mut r.handicap_after),
    ];
    for (name, field) in numbers {
        let values = f64s(df, path, name)?;
        for (i, (row, value)) in rows.iter_mut().zip(values).enumerate() {
            *field(row) = required(value, path, name, first + i)?;
        }
    }
    let partner = f64s(df, path, "partner_handicap")?;
    for (row, value) in rows.iter_mut().zip(partner) {
        row.set_partner_handicap(value);
    }
    for name in ["n_b", "n_g"] {
        let values = int32s(df, path, name, first)?;
        for (i, (row, value)) in rows.iter_mut().zip(values).enumerate() {
            let value = required(value, path, name, first + i)?;
            match name {
                "n_b" => row.n_b = value,
                _ => row.n_g = value,
            }
        }
    }
    Ok(())
}

/// An integer column of a slice of a run's file (its first row `first` of the file),
/// each value within the `int32` the run writes.
pub(crate) fn int32s(
    df: &DataFrame,
    path: &Path,
    name: &str,
    first: usize,
) -> Result<Vec<Option<i32>>> {
    (i64s(df, path, name)?.into_iter().enumerate())
        .map(|(i, value)| {
            let within = |v: i64| {
                i32::try_from(v).map_err(|_| {
                    Error::Input(InputError::new(
                        Location::file(path).row(first + i + 1).column(name),
                        format!("{v} is beyond the int32 the run writes"),
                    ))
                })
            };
            value.map(within).transpose()
        })
        .collect()
}

/// The `status` column of a slice of `changes.parquet` (its first row `first` of the
/// file), empty when the file has none.
fn statuses(df: &DataFrame, path: &Path, first: usize) -> Result<Vec<ChangeStatus>> {
    if !has(df, "status") {
        return Ok(Vec::new());
    }
    (texts(df, path, "status")?.iter().enumerate())
        .map(|(i, text)| {
            let text = text.unwrap_or_default();
            ChangeStatus::parse(text).ok_or_else(|| {
                Error::Input(InputError::new(
                    Location::file(path).row(first + i + 1).column("status"),
                    format!("`{text}` is not a status (member, foreign or non_member)"),
                ))
            })
        })
        .collect()
}

/// Texts read from a file's columns, each distinct text held once.
#[derive(Default)]
pub struct SharedTexts(rustc_hash::FxHashMap<Box<str>, Arc<str>>);

impl SharedTexts {
    /// The column `name` of `df`, its texts shared.
    pub fn column(
        &mut self,
        df: &DataFrame,
        path: &Path,
        name: &str,
    ) -> Result<Vec<Option<Arc<str>>>> {
        let values = df
            .column(name)
            .map_err(|_| missing_column(path, name))?
            .str()
            .map_err(|e| {
                Error::Input(InputError::new(
                    Location::file(path).column(name),
                    format!("not a text column: {e}"),
                ))
            })?;
        // A column repeats its last text more often than not (a competition's rows come
        // together, most statuses are the same): that one is not looked up again.
        let mut last: Option<(&str, Arc<str>)> = None;
        let mut out = Vec::with_capacity(values.len());
        for text in values.iter() {
            out.push(text.map(|text| match &last {
                Some((was, shared)) if *was == text => Arc::clone(shared),
                _ => {
                    let shared = self.share(text);
                    last = Some((text, Arc::clone(&shared)));
                    shared
                }
            }));
        }
        Ok(out)
    }

    fn share(&mut self, text: &str) -> Arc<str> {
        if let Some(shared) = self.0.get(text) {
            return Arc::clone(shared);
        }
        let shared: Arc<str> = Arc::from(text);
        self.0.insert(Box::from(text), Arc::clone(&shared));
        shared
    }
}

fn missing_column(path: &Path, name: &str) -> Error {
    Error::Input(InputError::new(
        Location::file(path).column(name),
        "required column is missing",
    ))
}

/// Reads `handicaps.parquet`.
pub fn read_members(path: &Path) -> Result<Vec<MemberRow>> {
    members_from_frame(&read_parquet(path)?, path)
}

/// The rows of a `handicaps` table (`path` names it in errors).
pub fn members_from_frame(df: &DataFrame, path: &Path) -> Result<Vec<MemberRow>> {
    let ids = i64s(df, path, "member_id")?;
    let names = strs(df, path, "name")?;
    let clubs = strs(df, path, "club")?;
    let handicap = f64s(df, path, "handicap")?;
    let boards = i64s(df, path, "boards")?;
    let competitions = i64s(df, path, "competitions")?;
    let last = dates(df, path, "last_played")?;
    (0..df.height())
        .map(|i| {
            Ok(MemberRow {
                member_id: required(ids[i], path, "member_id", i)?,
                name: names[i].clone(),
                club: clubs[i].clone(),
                handicap: required(handicap[i], path, "handicap", i)?,
                boards: boards[i].unwrap_or(0),
                competitions: competitions[i].unwrap_or(0),
                last_played: last[i],
            })
        })
        .collect()
}

/// Reads `ranking.parquet`.
pub fn read_ranking(path: &Path) -> Result<Vec<RankingRow>> {
    ranking_from_frame(&read_parquet(path)?, path)
}

/// The rows of a `ranking` table (`path` names it in errors).
pub fn ranking_from_frame(df: &DataFrame, path: &Path) -> Result<Vec<RankingRow>> {
    let rank = i64s(df, path, "rank")?;
    let group = if has(df, "group") {
        strs(df, path, "group")?
    } else {
        vec![None; df.height()]
    };
    let ids = i64s(df, path, "member_id")?;
    let names = strs(df, path, "name")?;
    let clubs = strs(df, path, "club")?;
    let handicap = f64s(df, path, "handicap")?;
    let boards = i64s(df, path, "boards")?;
    (0..df.height())
        .map(|i| {
            Ok(RankingRow {
                rank: required(rank[i], path, "rank", i)?,
                group: group[i].clone(),
                member_id: required(ids[i], path, "member_id", i)?,
                name: names[i].clone(),
                club: clubs[i].clone(),
                handicap: required(handicap[i], path, "handicap", i)?,
                boards: boards[i].unwrap_or(0),
            })
        })
        .collect()
}

/// The result unit of each competition from `standings.parquet`: a matchpoint event
/// has percentages, an IMP event none.
pub fn read_units(path: &Path) -> Result<HashMap<String, CompetitionInfo>> {
    units_from_frame(&read_parquet(path)?, path)
}

/// [`read_units`] on a `standings` table (`path` names it in errors).
pub fn units_from_frame(df: &DataFrame, path: &Path) -> Result<HashMap<String, CompetitionInfo>> {
    let mut out: HashMap<String, CompetitionInfo> = HashMap::new();
    units_into(df, path, &mut out)?;
    Ok(out)
}

/// [`read_units`] on a `standings` file held in `bytes`, a slice at a time.
fn units_from_bytes(path: &Path, bytes: &[u8]) -> Result<HashMap<String, CompetitionInfo>> {
    let mut out: HashMap<String, CompetitionInfo> = HashMap::new();
    for_each_slice(path, bytes, |df, _| units_into(df, path, &mut out))?;
    Ok(out)
}

/// The units of the competitions of a slice of a `standings` table, into `out`.
fn units_into(
    df: &DataFrame,
    path: &Path,
    out: &mut HashMap<String, CompetitionInfo>,
) -> Result<()> {
    let ids = strs(df, path, "competition_id")?;
    let percent = f64s(df, path, "percent")?;
    for (id, percent) in ids.into_iter().zip(percent) {
        if let Some(id) = id {
            let info = out.entry(id).or_insert(CompetitionInfo {
                imps: true,
                ..CompetitionInfo::default()
            });
            info.imps &= percent.is_none();
        }
    }
    Ok(())
}

/// A CSV file's header and rows, every cell as text.
pub type TextRows = (Vec<String>, Vec<Vec<String>>);

/// Rows of a CSV output (`quarantine.csv`, `unrated.csv`, `corrections.csv`) as text,
/// with the header; `None` when the file does not exist.
pub fn read_text_table(path: &Path) -> Result<Option<TextRows>> {
    if !path.exists() {
        return Ok(None);
    }
    let df = read_csv_text(path)?;
    let header: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    let mut columns = Vec::with_capacity(header.len());
    for name in &header {
        columns.push(strs(&df, path, name)?);
    }
    let rows = (0..df.height())
        .map(|i| {
            columns
                .iter()
                .map(|c| c[i].clone().unwrap_or_default())
                .collect()
        })
        .collect();
    Ok(Some((header, rows)))
}

/// One row of a dataset's `import_log.parquet` (every file every import took in or
/// refused), as text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportLogRow {
    pub batch: String,
    pub imported_at: String,
    pub file: String,
    pub status: String,
    pub competition_id: String,
    /// `YYYY-MM` of the competition, empty when the file could not be read that far.
    pub month: String,
    pub line: String,
    pub board: String,
    pub column: String,
    pub reason: String,
}

/// The import log of the dataset in `data`, when it has one. Every column is read as
/// text (a number or a timestamp as it prints); a column the log lacks is empty.
pub fn read_import_log(data: &Path) -> Result<Option<Vec<ImportLogRow>>> {
    let path = data.join("import_log.parquet");
    if !path.is_file() {
        return Ok(None);
    }
    let df = read_parquet(&path)?;
    let text = |name: &str| -> Vec<String> {
        df.column(name)
            .ok()
            .and_then(|c| c.cast(&polars::prelude::DataType::String).ok())
            .and_then(|c| {
                c.str()
                    .ok()
                    .map(|v| v.iter().map(|v| v.unwrap_or_default().to_owned()).collect())
            })
            .unwrap_or_else(|| vec![String::new(); df.height()])
    };
    if !has(&df, "status") {
        return Err(Error::Input(InputError::new(
            Location::file(&path).column("status"),
            "required column is missing",
        )));
    }
    let [batch, imported_at, file, status, competition_id, month, line, board, column, reason] = [
        "batch",
        "imported_at",
        "file",
        "status",
        "competition_id",
        "month",
        "line",
        "board",
        "column",
        "reason",
    ]
    .map(text);
    Ok(Some(
        (0..df.height())
            .map(|i| ImportLogRow {
                batch: batch[i].clone(),
                imported_at: imported_at[i].clone(),
                file: file[i].clone(),
                status: status[i].clone(),
                competition_id: competition_id[i].clone(),
                month: month[i].clone(),
                line: line[i].clone(),
                board: board[i].clone(),
                column: column[i].clone(),
                reason: reason[i].clone(),
            })
            .collect(),
    ))
}

impl RunTables {
    /// Reads the changes, handicaps, ranking and standings a run wrote to its folder,
    /// each checked against the hash its manifest records.
    pub fn read(run: &RunFolder) -> Result<RunTables> {
        let frame = |name: &str| parquet_from_bytes(&run.file(name), run.read_checked(name)?);
        let manifest = run.manifest();
        let data = &manifest.inputs.data.path;
        let changes = changes_from_bytes(&run.file(CHANGES), &run.read_checked(CHANGES)?)?;
        Ok(RunTables {
            folder: run.path().to_path_buf(),
            changes,
            members: members_from_frame(&frame(HANDICAPS)?, &run.file(HANDICAPS))?,
            ranking: ranking_from_frame(&frame(RANKING)?, &run.file(RANKING))?,
            competitions: if manifest.outputs.contains_key(STANDINGS) {
                units_from_bytes(&run.file(STANDINGS), &run.read_checked(STANDINGS)?)?
            } else {
                HashMap::new()
            },
            entrants: EntrantNames::default(),
            entrant_rows: None,
            data: (!data.is_empty()).then(|| PathBuf::from(data)),
            frozen: manifest.mode == Mode::Frozen,
        })
    }

    /// The tables of a run held in memory (`bridgehcp player --data`), as if read back
    /// from `folder`.
    pub fn from_run(folder: &Path, output: &crate::pipeline::RunOutput) -> Result<RunTables> {
        use super::outputs;
        let frame = |name: &str, f: polars::prelude::PolarsResult<DataFrame>| {
            f.map_err(|e| Error::polars(folder.join(name), e))
        };
        let changes = frame(CHANGES, outputs::changes(output))?;
        let members = frame(HANDICAPS, outputs::handicaps(output, 0))?;
        let ranking = frame(RANKING, outputs::ranking(output))?;
        let standings = frame(STANDINGS, outputs::standings(output))?;
        Ok(RunTables {
            folder: folder.to_path_buf(),
            changes: changes_from_frame(&changes, &folder.join(CHANGES))?,
            members: members_from_frame(&members, &folder.join(HANDICAPS))?,
            ranking: ranking_from_frame(&ranking, &folder.join(RANKING))?,
            competitions: units_from_frame(&standings, &folder.join(STANDINGS))?,
            entrants: EntrantNames::default(),
            entrant_rows: None,
            data: None,
            frozen: false,
        })
    }

    /// Adds what only the dataset knows: competition titles and clubs, and the names
    /// printed for each entrant's players.
    pub fn with_dataset(mut self, dataset: &Dataset) -> Self {
        for c in &dataset.competitions {
            let info = self
                .competitions
                .entry(c.competition_id.clone())
                .or_default();
            info.title = c.title.clone();
            info.club = c.club.clone();
            info.imps = c.scoring.is_imps();
        }
        for e in &dataset.entrants {
            let mut slots: [(Option<i64>, Option<String>); 4] = Default::default();
            for (slot, (id, name)) in slots.iter_mut().zip(e.players.iter().zip(&e.names)) {
                *slot = (*id, name.clone());
            }
            self.entrants
                .entry(e.competition_id.clone())
                .or_default()
                .insert(e.entrant.clone(), slots);
        }
        self
    }

    /// The players of `entrant` of `competition_id` (number and printed name, slot by
    /// slot), when the dataset was read.
    pub fn slots(&self, competition_id: &str, entrant: &str) -> Option<SlotsOf<'_>> {
        if let Some(table) = &self.entrant_rows {
            let e = table.competition_rows(competition_id).find(entrant)?;
            return Some([0, 1, 2, 3].map(|i| (e.players[i], e.names[i])));
        }
        let slots = self.entrants.get(competition_id)?.get(entrant)?;
        Some([0, 1, 2, 3].map(|i| (slots[i].0, slots[i].1.as_deref())))
    }

    /// Member names by id.
    pub fn names(&self) -> HashMap<i64, &str> {
        self.members
            .iter()
            .filter_map(|m| m.name.as_deref().map(|n| (m.member_id, n)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::*;

    /// Five change rows in row groups of two; `before` is the fifth row's
    /// `handicap_before`.
    fn file(before: Option<f64>) -> Vec<u8> {
        let ids = ["K1", "K1", "K2", "K2", "K1"];
        let mut frame = df!(
            "competition_id" => ids,
            "date" => ["2034-10-01", "2034-10-01", "2034-10-02", "2034-10-02", "2034-10-01"],
            "member_id" => [11_i64, 12, 13, 14, 15],
            "entrant" => ["1", "1", "2", "2", "3"],
            "status" => ["member", "member", "member", "foreign", "member"],
            "handicap_before" => [Some(20.0), Some(21.0), Some(22.0), Some(23.0), before],
            "partner_handicap" => [Some(21.0), Some(20.0), None, Some(22.0), None],
            "pair_handicap" => [20.5, 20.5, 22.5, 22.5, 24.0],
            "field_handicap" => [21.0, 21.0, 21.0, 21.0, 21.0],
            "expected" => [0.5, 0.5, -1.5, -1.5, 2.0],
            "achieved" => [1.5, 1.5, -0.5, -0.5, 1.0],
            "n_b" => [24_i64, 24, 26, 26, 24],
            "n_g" => [24_i64, 24, 26, 26, 20],
            "delta" => [-0.25, -0.25, 0.125, 0.0, 0.5],
            "handicap_after" => [19.75, 20.75, 22.125, 23.0, 25.5],
        )
        .unwrap_or_default();
        let mut out = Vec::new();
        ParquetWriter::new(&mut out)
            .with_row_group_size(Some(2))
            .finish(&mut frame)
            .map(|_| out)
            .unwrap_or_default()
    }

    /// The fourth row's `status` is not one of the three, or its `n_b` not an `int32`.
    #[test]
    fn a_status_or_a_count_out_of_range_is_refused_with_its_row() -> Result<()> {
        let path = Path::new("changes.parquet");
        let whole = crate::store::table::read_checked(path, &file(Some(24.0)))?;
        let refused = |column: Series| -> Result<String> {
            let mut df = whole.clone();
            df.with_column(column.into())
                .map_err(|e| Error::polars(path, e))?;
            Ok(changes_from_frame(&df, path)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default())
        };
        let status = ["member", "member", "member", "guest", "member"];
        assert_eq!(
            refused(Series::new("status".into(), status))?,
            "changes.parquet, row 4, column `status`: `guest` is not a status (member, foreign or non_member)"
        );
        let n_b = [24_i64, 24, 26, 1 << 40, 24];
        assert_eq!(
            refused(Series::new("n_b".into(), n_b))?,
            "changes.parquet, row 4, column `n_b`: 1099511627776 is beyond the int32 the run writes"
        );
        Ok(())
    }

    /// A change row is 120 bytes: the texts shared, the status a byte, the counts
    /// `int32` as in the file, the partner's handicap flagged rather than an `Option`
    /// (152 bytes before, 0.8 GB over 5.2 million rows).
    #[test]
    fn a_change_row_is_held_in_120_bytes() {
        assert_eq!(std::mem::size_of::<ChangeRow>(), 120);
    }

    /// A row's competition, member, status, partner's handicap, handicap before, boards.
    type Shown<'r> = (&'r str, i64, &'r str, Option<f64>, f64, i32);

    #[test]
    fn changes_read_a_slice_at_a_time_are_the_rows_read_whole() -> Result<()> {
        let path = Path::new("changes.parquet");
        let bytes = file(Some(24.0));
        let whole = changes_from_frame(&crate::store::table::read_checked(path, &bytes)?, path)?;
        // Slices of one row group each (three), and of two (two slices).
        for slice_rows in [1, 4] {
            assert_eq!(changes_in_slices(path, &bytes, slice_rows)?, whole);
        }
        let rows = changes_in_slices(path, &bytes, 1)?;
        let shown: Vec<Shown> = rows
            .iter()
            .map(|r| {
                (
                    &*r.competition_id,
                    r.member_id,
                    r.status.as_str(),
                    r.partner_handicap(),
                    r.handicap_before,
                    r.n_g,
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("K1", 11, "member", Some(21.0), 20.0, 24),
                ("K1", 12, "member", Some(20.0), 21.0, 24),
                ("K2", 13, "member", None, 22.0, 26),
                ("K2", 14, "foreign", Some(22.0), 23.0, 26),
                ("K1", 15, "member", None, 24.0, 20),
            ]
        );
        // One text per distinct value, across the slices.
        assert!(Arc::ptr_eq(
            &rows[0].competition_id,
            &rows[4].competition_id
        ));
        Ok(())
    }

    /// The players of an entrant looked up in the compact table are those of the
    /// dataset's map: the last row of an entrant counts, and an entrant or a
    /// competition not in the dataset has none.
    #[test]
    fn an_entrants_players_are_the_same_from_the_compact_table() {
        use crate::dataset::{entrant_table::EntrantTable, Entrant};
        let mut first = Entrant::new("K1", "1");
        first.players = [Some(11), Some(12), None, None];
        first.names = [Some("Ann".into()), None, None, None];
        let mut again = Entrant::new("K1", "1");
        again.players = [Some(11), Some(13), None, None];
        again.names = [None, Some("Bo".into()), None, None];
        let mut other = Entrant::new("K2", "1");
        other.players = [Some(-4), None, None, None];
        let dataset = Dataset {
            entrants: vec![first, other, again],
            ..Dataset::default()
        };
        let map = RunTables::default().with_dataset(&dataset);
        let mut table = EntrantTable::default();
        for e in &dataset.entrants {
            table.push(e);
        }
        table.group();
        let compact = RunTables {
            entrant_rows: Some(Arc::new(table)),
            ..RunTables::default()
        };
        for (competition, entrant) in [("K1", "1"), ("K2", "1"), ("K1", "2"), ("K3", "1")] {
            assert_eq!(
                compact.slots(competition, entrant),
                map.slots(competition, entrant)
            );
        }
        assert_eq!(
            compact.slots("K1", "1"),
            Some([
                (Some(11), None),
                (Some(13), Some("Bo")),
                (None, None),
                (None, None)
            ])
        );
        assert_eq!(compact.slots("K3", "1"), None);
    }

    #[test]
    fn an_empty_cell_in_a_later_slice_names_its_row_in_the_file() {
        let path = Path::new("changes.parquet");
        let Err(e) = changes_in_slices(path, &file(None), 1) else {
            panic!("the fifth row has no handicap_before")
        };
        assert_eq!(
            e.to_string(),
            changes_from_frame(
                &crate::store::table::read_checked(path, &file(None)).unwrap_or_default(),
                path
            )
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
        );
        assert!(e.to_string().contains("row 5"), "{e}");
    }
}
