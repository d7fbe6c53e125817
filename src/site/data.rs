//! What the site shows, read from a run's folder (each file checked against the hash
//! its `run.json` records) and from the dataset the run read.
//!
//! The site is made later than the run, from the files that were published, the way the
//! statements and the monthly report are: the ranking members see on the front page is
//! `ranking_published.csv` itself, and every number on a member's page is a number of
//! `handicaps.parquet` and `changes.parquet`. Everything is held in sorted maps, so that
//! pages come out in the same order with the same bytes on every run.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{Datelike, NaiveDate};

use crate::dataset::entrant_table::EntrantTable;
use crate::error::{Error, InputError, Location, Result};
use crate::quarantine::OnError;
use crate::report::columns::{f64s, has, i64s, parquet_from_bytes, Frame};
use crate::report::run_folder::{RunFolder, HANDICAPS, RANKING_PUBLISHED, REPORT_HTML, STANDINGS};
use crate::report::run_tables::{
    for_each_slice, int32s, read_text_table, ChangeRow, RunTables, SharedTexts,
};
use crate::report::sheet::EntrantNames;
use crate::report::statement::Index;

/// A line of `ranking_published.csv`, as published (the handicap as its two decimals).
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub rank: String,
    pub member_id: i64,
    pub name: String,
    pub club: String,
    pub district: String,
    pub handicap: String,
    pub boards: String,
}

/// A line of a competition's standings (`standings.parquet`). A whole federation's
/// history has millions of them: the counts are the file's `int32`s, and the five
/// numbers that may be empty are held without an `Option` each (48 bytes less a line).
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// The texts are shared: a few dozen entrant numbers over millions of lines.
    pub entrant: Arc<str>,
    pub direction: Option<Arc<str>>,
    pub rank: Option<i32>,
    pub boards: Option<i32>,
    /// `score`, `percent`, `handicap_expected`, `handicap_result` and `vp`, in
    /// [`StandingNumber`]'s order; the bit of each in `present` says it has a value.
    numbers: [f64; 5],
    present: u8,
}

/// The numbers a standings line may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StandingNumber {
    Score,
    Percent,
    HandicapExpected,
    HandicapResult,
    /// Victory points (team matches, Swiss pairs), where the standings have them.
    Vp,
}

impl Standing {
    /// A line with its entrant, direction, rank and boards, and no numbers yet.
    pub fn new(
        entrant: Arc<str>,
        direction: Option<Arc<str>>,
        rank: Option<i32>,
        boards: Option<i32>,
    ) -> Standing {
        Standing {
            entrant,
            direction,
            rank,
            boards,
            numbers: [0.0; 5],
            present: 0,
        }
    }

    /// The line with `number` set to `value` (or empty).
    pub fn with(mut self, number: StandingNumber, value: Option<f64>) -> Standing {
        let at = number as usize;
        self.numbers[at] = value.unwrap_or(0.0);
        self.present = match value {
            Some(_) => self.present | 1 << at,
            None => self.present & !(1 << at),
        };
        self
    }

    fn get(&self, number: StandingNumber) -> Option<f64> {
        let at = number as usize;
        (self.present & 1 << at != 0).then_some(self.numbers[at])
    }

    pub fn score(&self) -> Option<f64> {
        self.get(StandingNumber::Score)
    }

    pub fn percent(&self) -> Option<f64> {
        self.get(StandingNumber::Percent)
    }

    pub fn handicap_expected(&self) -> Option<f64> {
        self.get(StandingNumber::HandicapExpected)
    }

    pub fn handicap_result(&self) -> Option<f64> {
        self.get(StandingNumber::HandicapResult)
    }

    pub fn vp(&self) -> Option<f64> {
        self.get(StandingNumber::Vp)
    }
}

/// What a competition's page says about it besides its standings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Competition {
    pub date: Option<NaiveDate>,
    pub title: Option<String>,
    pub club: Option<String>,
    pub imps: bool,
    pub standings: Vec<Standing>,
}

/// Everything the site is made from.
#[derive(Debug, Default)]
pub struct SiteData {
    pub tables: RunTables,
    pub ranked: Vec<Ranked>,
    /// The confidence figure of each member's handicap, where the run publishes one.
    pub sd: HashMap<i64, f64>,
    pub competitions: BTreeMap<String, Competition>,
    /// The month's report of the run folder, when it has one.
    pub report: Option<String>,
    /// The dataset the titles, clubs and printed names came from, when it was read.
    pub dataset: Option<PathBuf>,
    /// What the clubs' result sheets are made from, when the dataset was read.
    pub sheets: Option<SheetSource>,
    /// The year of the run's last rated competition: the year members' pages show.
    pub year: Option<i32>,
    /// The earlier years each member played a rated competition in, oldest first: each
    /// has a page of its own.
    pub years: HashMap<i64, Vec<i32>>,
}

/// The dataset's rows a club's result sheet is made from: how each competition is
/// scored (the decimals its program prints) and the names its entrants printed.
#[derive(Debug, Default)]
pub struct SheetSource {
    pub competitions: HashMap<String, crate::dataset::Competition>,
    pub members: Vec<crate::dataset::Member>,
    /// Held compactly (millions of rows), shared with the run's tables, which look the
    /// partners' printed names up in it.
    pub entrants: Arc<EntrantTable>,
}

impl SiteData {
    /// The members with a page: those of the published ranking.
    pub fn ranked_ids(&self) -> BTreeSet<i64> {
        self.ranked.iter().map(|r| r.member_id).collect()
    }

    /// The clubs with a page: of the ranked members and of the competitions.
    pub fn clubs(&self) -> BTreeSet<&str> {
        let members = self.ranked.iter().map(|r| r.club.as_str());
        let competitions = self.competitions.values().filter_map(|c| c.club.as_deref());
        members
            .chain(competitions)
            .filter(|c| !c.is_empty())
            .collect()
    }

    /// The lookups the pages share, built once.
    pub fn lookups(&self) -> Lookups<'_> {
        Lookups {
            names: self.tables.names(),
            index: Index::new(&self.tables),
            pages: self.ranked_ids(),
            sheets: self.sheets.as_ref().map(|source| {
                let names = EntrantNames::of_table(&source.members, &source.entrants);
                (source, names)
            }),
        }
    }
}

/// What the pages look up again and again.
pub struct Lookups<'a> {
    /// Member names by number.
    pub names: HashMap<i64, &'a str>,
    /// The change rows by member (the statements) and by competition.
    pub index: Index<'a>,
    /// The members with a page.
    pub pages: BTreeSet<i64>,
    /// The clubs' result sheets' rows, with their entrants' names, when the dataset was
    /// read.
    pub sheets: Option<(&'a SheetSource, EntrantNames<'a>)>,
}

impl<'a> Lookups<'a> {
    /// The change rows of an entrant of a competition (found among the competition's:
    /// a map by competition and entrant would hold millions of keys).
    fn rows<'s>(&'s self, id: &str, entrant: &'s str) -> impl Iterator<Item = &'a ChangeRow> + 's {
        let rows = self.index.competition_rows(id);
        rows.filter(move |r| &*r.entrant == entrant)
    }

    /// The first change row of an entrant of a competition: the pair's handicap, what
    /// was expected of it and what it achieved.
    pub fn first(&self, id: &str, entrant: &str) -> Option<&'a ChangeRow> {
        self.rows(id, entrant).next()
    }

    /// The members of an entrant of a competition who have a change row.
    pub fn players(&self, id: &str, entrant: &str) -> Vec<i64> {
        let members = self.rows(id, entrant).map(|r| r.member_id);
        members.filter(|&m| m >= 0).collect()
    }
}

/// Reads the run in `run` and the dataset (`data`, or the one its `run.json` names when
/// it is still there). The run's history, its other files and the dataset are read on
/// both cores: none needs another.
pub fn read(run: &Path, data: Option<&Path>) -> Result<SiteData> {
    let folder = RunFolder::open(run, "--out-dir")?;
    let named = &folder.manifest().inputs.data.path;
    let dir: Option<PathBuf> = match data {
        Some(dir) => Some(dir.to_path_buf()),
        None => (!named.is_empty())
            .then(|| PathBuf::from(named))
            .filter(|d| d.is_dir()),
    };
    // Threads of their own, not the pool's: the readers use the pool themselves.
    let (tables, dataset, own) = std::thread::scope(|scope| {
        let dataset = scope.spawn(|| dir.as_deref().map(read_dataset).transpose());
        let own = scope.spawn(|| Own::read(&folder));
        let tables = RunTables::read(&folder);
        (tables, joined(dataset), joined(own))
    });
    let (mut tables, dataset, own) = (tables?, dataset?, own?);
    let Some((mut head, entrants)) = dataset else {
        return Ok(base(own, tables));
    };
    tables = tables.with_dataset(&head);
    tables.entrant_rows = Some(Arc::clone(&entrants));
    let dates: HashMap<&str, NaiveDate> = (head.competitions.iter())
        .map(|c| (c.competition_id.as_str(), c.date))
        .collect();
    let mut site = base(own, tables);
    for (id, c) in &mut site.competitions {
        c.date = dates.get(id.as_str()).copied().or(c.date);
    }
    site.dataset = dir;
    site.sheets = Some(SheetSource {
        competitions: std::mem::take(&mut head.competitions)
            .into_iter()
            .map(|c| (c.competition_id.clone(), c))
            .collect(),
        members: std::mem::take(&mut head.members),
        entrants,
    });
    Ok(site)
}

/// What a reading thread returned; its panic carried on.
pub(crate) fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    match handle.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// The dataset's tables but its results and boards, its entrant rows compactly (read
/// for their names; the results are not shown).
fn read_dataset(dir: &Path) -> Result<(crate::dataset::Dataset, Arc<EntrantTable>)> {
    let (opened, entrants) = crate::store::table::open_entrants_compact(
        dir,
        OnError::Quarantine,
        &crate::scoring::progress::NoProgress,
    )?;
    Ok((opened.head, Arc::new(entrants)))
}

/// What the site takes from the run folder's own files besides the run's tables.
struct Own {
    ranked: Vec<Ranked>,
    sd: HashMap<i64, f64>,
    competitions: BTreeMap<String, Competition>,
    report: Option<String>,
}

impl Own {
    fn read(folder: &RunFolder) -> Result<Own> {
        let ranked = read_ranked(folder)?;
        let sd = read_sd(folder)?;
        let competitions = read_standings(folder)?;
        let report = if folder.manifest().outputs.contains_key(REPORT_HTML) {
            Some(String::from_utf8_lossy(&folder.read_checked(REPORT_HTML)?).into_owned())
        } else {
            let path = folder.file(REPORT_HTML);
            match std::fs::read(&path) {
                Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(Error::io(path, e)),
            }
        };
        Ok(Own {
            ranked,
            sd,
            competitions,
            report,
        })
    }
}

/// The site's data from the run folder's own files.
fn base(own: Own, tables: RunTables) -> SiteData {
    let Own {
        ranked,
        sd,
        mut competitions,
        report,
    } = own;
    // The years and the competitions' dates each read every change row: side by side.
    let ((year, years), ()) = rayon::join(
        || years(&tables),
        || dates_from_changes(&mut competitions, &tables.changes),
    );
    for (id, c) in &mut competitions {
        if let Some(info) = tables.competitions.get(id) {
            c.title = info.title.clone();
            c.club = info.club.clone();
            c.imps = info.imps;
        }
    }
    SiteData {
        tables,
        ranked,
        sd,
        competitions,
        report,
        dataset: None,
        sheets: None,
        year,
        years,
    }
}

/// Gives each competition without a date the date of its first change row. A
/// competition's rows come together and share their id's text: the competition is looked
/// up once per run of rows, not once per row (millions of lookups among a quarter of a
/// million ids).
fn dates_from_changes(competitions: &mut BTreeMap<String, Competition>, changes: &[ChangeRow]) {
    let mut last: Option<&Arc<str>> = None;
    for row in changes {
        if last.is_some_and(|id| Arc::ptr_eq(id, &row.competition_id)) {
            continue;
        }
        last = Some(&row.competition_id);
        if let Some(c) = competitions.get_mut(&*row.competition_id) {
            c.date = c.date.or(Some(row.date));
        }
    }
}

/// The year of the last change row, and per member the earlier years of their change
/// rows, oldest first.
fn years(tables: &RunTables) -> (Option<i32>, HashMap<i64, Vec<i32>>) {
    let year = tables.changes.iter().map(|r| r.date.year()).max();
    let mut years: HashMap<i64, BTreeSet<i32>> = HashMap::new();
    for row in &tables.changes {
        if Some(row.date.year()) < year {
            years
                .entry(row.member_id)
                .or_default()
                .insert(row.date.year());
        }
    }
    let years = years
        .into_iter()
        .map(|(id, set)| (id, set.into_iter().collect()))
        .collect();
    (year, years)
}

/// `ranking_published.csv`, line by line.
fn read_ranked(folder: &RunFolder) -> Result<Vec<Ranked>> {
    folder.check(RANKING_PUBLISHED)?;
    let path = folder.file(RANKING_PUBLISHED);
    let Some((header, rows)) = read_text_table(&path)? else {
        return Err(Error::Config(format!(
            "{}: the run folder has no published ranking",
            path.display()
        )));
    };
    let at = |name: &str| header.iter().position(|h| h == name);
    let cell =
        |row: &[String], i: Option<usize>| i.and_then(|i| row.get(i)).cloned().unwrap_or_default();
    let id_at = at("member_id");
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let id = cell(row, id_at);
            let member_id = id.trim().parse::<i64>().map_err(|_| {
                Error::Input(InputError::new(
                    Location::file(&path).row(i + 2).column("member_id"),
                    format!("`{id}` is not a member number"),
                ))
            })?;
            Ok(Ranked {
                rank: cell(row, at("rank")),
                member_id,
                name: cell(row, at("name")),
                club: cell(row, at("club")),
                district: cell(row, at("district")),
                handicap: cell(row, at("handicap")),
                boards: cell(row, at("boards")),
            })
        })
        .collect()
}

/// `handicap_sd` of `handicaps.parquet`, where it has a value.
fn read_sd(folder: &RunFolder) -> Result<HashMap<i64, f64>> {
    let path = folder.file(HANDICAPS);
    let df = parquet_from_bytes(&path, folder.read_checked(HANDICAPS)?)?;
    if !has(&df, "handicap_sd") {
        return Ok(HashMap::new());
    }
    let ids = i64s(&df, &path, "member_id")?;
    let sd = f64s(&df, &path, "handicap_sd")?;
    Ok(ids
        .into_iter()
        .zip(sd)
        .filter_map(|(id, sd)| Some((id?, sd?)))
        .collect())
}

/// `standings.parquet`, by competition (empty when the run wrote none).
fn read_standings(folder: &RunFolder) -> Result<BTreeMap<String, Competition>> {
    let mut out: BTreeMap<String, Competition> = BTreeMap::new();
    if !folder.manifest().outputs.contains_key(STANDINGS) {
        return Ok(out);
    }
    let path = folder.file(STANDINGS);
    let mut texts = SharedTexts::default();
    let bytes = folder.read_checked(STANDINGS)?;
    for_each_slice(&path, &bytes, |df, first| {
        push_standings(df, &path, first, &mut texts, &mut out)
    })?;
    // Each competition's lines were reserved exactly (`push_standings`): nothing to trim.
    for c in out.values_mut() {
        c.standings.sort_by(|a, b| {
            (&a.direction, a.rank.is_none(), a.rank, &a.entrant).cmp(&(
                &b.direction,
                b.rank.is_none(),
                b.rank,
                &b.entrant,
            ))
        });
    }
    Ok(out)
}

/// The standings of a slice of `standings.parquet` (its first row `first` of the
/// file), into `out` by competition.
fn push_standings(
    df: &Frame,
    path: &Path,
    first: usize,
    texts: &mut SharedTexts,
    out: &mut BTreeMap<String, Competition>,
) -> Result<()> {
    let optional = |name: &str| -> Result<Vec<Option<f64>>> {
        if has(df, name) {
            f64s(df, path, name)
        } else {
            Ok(vec![None; df.height()])
        }
    };
    let ids = texts.column(df, path, "competition_id")?;
    let entrants = texts.column(df, path, "entrant")?;
    let ranks = int32s(df, path, "rank", first)?;
    let boards = int32s(df, path, "boards_played", first)?;
    let direction = if has(df, "direction") {
        texts.column(df, path, "direction")?
    } else {
        vec![None; df.height()]
    };
    let numbers = [
        (StandingNumber::Score, optional("score")?),
        (StandingNumber::Percent, optional("percent")?),
        (
            StandingNumber::HandicapExpected,
            optional("handicap_expected")?,
        ),
        (StandingNumber::HandicapResult, optional("handicap_result")?),
        (StandingNumber::Vp, optional("vp")?),
    ];
    let empty: Arc<str> = Arc::from("");
    let mut last: Option<(Arc<str>, &mut Competition)> = None;
    // How many lines of the slice from `i` on are of the competition of line `i`: its
    // lines are reserved at once rather than grown by doubling (61 MB less at a new
    // site's peak, 30 000 members × 120 months).
    let run_from = |i: usize| {
        let same = |other: &&Option<Arc<str>>| match (&ids[i], other) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        ids[i..].iter().take_while(same).count()
    };
    for (i, entrant) in entrants.into_iter().enumerate() {
        let Some(id) = ids[i].clone() else { continue };
        let entrant = entrant.unwrap_or_else(|| Arc::clone(&empty));
        let line = Standing::new(entrant, direction[i].clone(), ranks[i], boards[i]);
        let standing =
            (numbers.iter()).fold(line, |line, (number, values)| line.with(*number, values[i]));
        // A competition's lines come together: its entry is looked up once.
        match &mut last {
            Some((at, c)) if Arc::ptr_eq(at, &id) => c.standings.push(standing),
            _ => {
                let c = out.entry(id.to_string()).or_default();
                c.standings.reserve_exact(run_from(i));
                c.standings.push(standing);
                last = Some((id, c));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each number keeps its own value or its emptiness, whatever the others hold: a
    /// zero is a value, not an empty cell.
    #[test]
    fn a_standing_line_keeps_each_number_or_its_emptiness() {
        let line = Standing::new(Arc::from("3"), Some(Arc::from("NS")), Some(2), Some(24))
            .with(StandingNumber::Score, Some(0.0))
            .with(StandingNumber::Percent, Some(57.25))
            .with(StandingNumber::HandicapExpected, None)
            .with(StandingNumber::HandicapResult, Some(-1.5))
            .with(StandingNumber::Vp, Some(12.0))
            .with(StandingNumber::Vp, None);
        assert_eq!(line.score(), Some(0.0));
        assert_eq!(line.percent(), Some(57.25));
        assert_eq!(line.handicap_expected(), None);
        assert_eq!(line.handicap_result(), Some(-1.5));
        assert_eq!(line.vp(), None);
        assert_eq!((line.rank, line.boards), (Some(2), Some(24)));
    }

    /// A standings line is 96 bytes (144 with an `Option` for each number and `int64`
    /// counts: 0.37 GB over a federation's 2.6 million lines).
    #[test]
    fn a_standing_line_is_held_in_96_bytes() {
        assert_eq!(std::mem::size_of::<Standing>(), 96);
    }
}
