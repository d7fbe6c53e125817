//! A batch of club exports into one dataset, file by file, never stopping at the first
//! bad file.
//!
//! A federation's month is hundreds of files from clubs running different programs and
//! versions. One broken export must not hold the others back, and the officer must get a
//! complete list of what was refused and why, so each file is read, checked with the
//! dataset rules and scored on its own before it joins the batch: a file that would stop
//! the monthly run later (a result the scoring cannot place) is refused here, with its
//! file, line and board, instead of surfacing as a Parquet row weeks later.
//!
//! The batch is merged into what the dataset already holds, competition by competition:
//! * the same competition (same id, same results) again is a no-op, reported;
//! * the same id with other results is a correction: it replaces the earlier version;
//! * the same session under another header (another id, same date and results, as when a
//!   club exports a session twice) is recognised and kept once;
//! * the same session sent again with other results under another serial number or title
//!   (same club, date and session, most players and most table results in common) is a
//!   correction: a club that fixes a score and exports again must not make its members
//!   play the evening twice.
//!
//! What the batch writes must not depend on the order the files were listed in, or on how
//! a month was split into imports: files are taken in date order, and members' names and
//! clubs are decided from the whole dataset afterwards (see [`identity`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::dataset::{Competition, Dataset, Member, MemberId};
use crate::error::{InputError, Location};
use crate::import::published::NoteKind;
use crate::import::reconcile::{self, Mismatch};
use crate::import::{identity, pbn, usebio, validate, Imported};

pub use crate::import::entry::{Entry, Status};
pub use crate::import::identity::Register;

/// The two export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    Pbn,
    Usebio,
}

impl ExportKind {
    /// The format of a file from its content: XML (`<?xml`, `<USEBIO`) is USEBIO,
    /// anything else PBN.
    pub fn detect(bytes: &[u8]) -> ExportKind {
        let start: Vec<u8> = bytes
            .iter()
            .skip_while(|b| b.is_ascii_whitespace() || **b == 0xEF || **b == 0xBB || **b == 0xBF)
            .take(6)
            .copied()
            .collect();
        if start.starts_with(b"<") {
            ExportKind::Usebio
        } else {
            ExportKind::Pbn
        }
    }
}

/// A batch merged into a dataset.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    /// The existing dataset with the batch's competitions added or replaced.
    pub dataset: Dataset,
    /// One entry per file (per competition of a file), in the order the files were taken
    /// (see [`import_batch`]), each followed by its `non_member` notes; the notes on
    /// members' names (`name_differs`, `name_conflict`) come last, once per member.
    pub entries: Vec<Entry>,
    /// Competitions whose rows changed (added, replaced or removed), for the writer.
    pub changed: BTreeSet<String>,
    /// Competitions replaced by a correction, with their date before the correction.
    pub replaced: Vec<Competition>,
    /// Players of replaced competitions: those no competition names any more (a number
    /// the correction fixed) leave `members`.
    orphans: BTreeSet<MemberId>,
}

impl Batch {
    pub fn refused(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.status == Status::Refused)
    }

    pub fn count(&self, status: Status) -> usize {
        self.entries.iter().filter(|e| e.status == status).count()
    }
}

/// Reads one export, checks it with the dataset rules, scores it and compares the scores
/// with what the export printed.
pub fn read_checked(
    path: &Path,
    kind: Option<ExportKind>,
) -> Result<(Imported, Option<Mismatch>), InputError> {
    let bytes = super::published::read_export(path)?;
    check_bytes(path, &bytes, kind)
}

/// When the club's program wrote the export: Ruter's `Created` header
/// (`2015-10-20 21:45:37`), for telling which of two exports of one session is the later.
pub fn export_created(bytes: &[u8]) -> Option<String> {
    bytes
        .split(|&b| b == b'\n')
        .take_while(|line| line.first() == Some(&b'%') || line.iter().all(u8::is_ascii_whitespace))
        .find_map(|line| {
            let line = std::str::from_utf8(line).ok()?;
            let rest = line.split_once("name=Created")?.1;
            let value = rest.split_once("content=\"")?.1.split_once('"')?.0;
            Some(value.trim().to_string())
        })
}

/// The month (`YYYY-MM`) of the session an export is dated, read from its header alone
/// (PBN `ContestDate` or `[Date]`, USEBIO `<DATE>` DD/MM/YYYY), so that a refused file
/// can still be listed under its month.
pub fn export_month(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(64 * 1024)];
    let text: String = head.iter().map(|&b| char::from(b)).collect();
    let after = |key: &str| text.split_once(key).map(|(_, rest)| rest);
    let month = |year: &str, month: &str| {
        let ok = year.len() == 4
            && month.len() == 2
            && year
                .bytes()
                .chain(month.bytes())
                .all(|b| b.is_ascii_digit());
        ok.then(|| format!("{year}-{month}"))
    };
    if let Some(rest) = after("name=ContestDate").and_then(|r| r.split_once("content=\"")) {
        let date = rest.1.get(..10)?;
        return month(date.get(..4)?, date.get(5..7)?);
    }
    if let Some(rest) = after("[Date \"") {
        let date = rest.get(..10)?;
        return month(date.get(..4)?, date.get(5..7)?);
    }
    let date = after("<DATE>")?.trim_start().get(..10)?;
    month(date.get(6..10)?, date.get(3..5)?)
}

fn check_bytes(
    path: &Path,
    bytes: &[u8],
    kind: Option<ExportKind>,
) -> Result<(Imported, Option<Mismatch>), InputError> {
    let blank = |b: &u8| b.is_ascii_whitespace() || matches!(b, 0xEF | 0xBB | 0xBF);
    if bytes.iter().all(blank) {
        return Err(InputError::new(
            Location::file(path),
            "the file is empty: there is nothing to import (was the export interrupted?)",
        ));
    }
    let detected = ExportKind::detect(bytes);
    let expected = match kind.unwrap_or(detected) {
        ExportKind::Pbn => "a PBN",
        ExportKind::Usebio => "a USEBIO XML",
    };
    super::published::check_text(path, bytes, expected)?;
    match (kind, detected) {
        (Some(ExportKind::Usebio), ExportKind::Pbn) => {
            return Err(InputError::new(
                Location::file(path),
                "imported as USEBIO, but the file looks like PBN (it does not start with `<`); use `import pbn` or `import auto`",
            ))
        }
        (Some(ExportKind::Pbn), ExportKind::Usebio) => {
            return Err(InputError::new(
                Location::file(path),
                "imported as PBN, but the file looks like USEBIO XML (it starts with `<`); use `import usebio` or `import auto`",
            ))
        }
        _ => {}
    }
    let kind = kind.unwrap_or(detected);
    let mut imported = match kind {
        ExportKind::Pbn => pbn::parse_bytes(path, bytes)?,
        ExportKind::Usebio => usebio::parse_bytes(path, bytes)?,
    };
    validate::validate(&imported.dataset)?;
    let d = &imported.dataset;
    let mut mismatch = None;
    let mut published = Vec::new();
    for competition in &d.competitions {
        let scored = crate::scoring::score_competition(competition, &d.entrants, &d.boards)?;
        mismatch = mismatch.or_else(|| reconcile::reconcile(&imported, &scored));
        published.extend(reconcile::published_results(
            &imported,
            competition,
            &scored,
        ));
    }
    imported.dataset.results.extend(published);
    Ok((imported, mismatch))
}

/// A competition's content without its id, title or origins: two exports of the same
/// session under different headers have the same fingerprint.
pub fn fingerprint(dataset: &Dataset, competition: &Competition) -> String {
    let id = competition.competition_id.as_str();
    let mut entrants: Vec<String> = dataset
        .entrants
        .iter()
        .filter(|e| e.competition_id == id)
        .map(|e| {
            format!(
                "{}|{:?}|{:?}|{:?}",
                e.entrant, e.players, e.team, e.direction
            )
        })
        .collect();
    entrants.sort();
    let mut boards: Vec<String> = dataset
        .boards
        .iter()
        .filter(|b| b.competition_id == id)
        .map(|b| {
            format!(
                "{}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
                b.board,
                b.ns,
                b.ew,
                b.contract,
                b.declarer,
                b.tricks,
                b.ns_score,
                b.adjusted,
                [&b.north, &b.south, &b.east, &b.west],
                b.round,
                b.table,
                b.room,
                b.ns_penalty,
                b.ew_penalty
            )
        })
        .collect();
    boards.sort();
    let mut results: Vec<String> = dataset
        .results
        .iter()
        .filter(|r| r.competition_id == id)
        .map(|r| {
            format!(
                "{}|{}|{}|{:?}",
                r.entrant, r.boards_played, r.score, r.opponent
            )
        })
        .collect();
    results.sort();
    format!(
        "{}|{}|{:?}|{:?}\n{}\n{}\n{}",
        competition.date,
        competition.session,
        competition.format,
        competition.scoring,
        entrants.join("\n"),
        boards.join("\n"),
        results.join("\n")
    )
}

/// The players of a competition, for telling a session sent again from another section
/// of the same evening: numbers, and the folded printed names of unnumbered players.
fn players_of(dataset: &Dataset, id: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entrant in dataset.entrants.iter().filter(|e| e.competition_id == id) {
        for slot in 0..4 {
            match (entrant.players[slot], &entrant.names[slot]) {
                (Some(number), _) => {
                    out.insert(format!("#{number}"));
                }
                (None, Some(name)) if !name.trim().is_empty() => {
                    out.insert(identity::fold(name).join(" "));
                }
                _ => {}
            }
        }
    }
    out
}

/// The table results of a competition as a multiset, without pair numbers (a re-export
/// may number the pairs anew): board, contract, declarer, tricks, score, adjustment.
fn table_results(dataset: &Dataset, id: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for b in dataset.boards.iter().filter(|b| b.competition_id == id) {
        let key = format!(
            "{}|{:?}|{:?}|{:?}|{:?}|{:?}",
            b.board, b.contract, b.declarer, b.tricks, b.ns_score, b.adjusted
        );
        *out.entry(key).or_insert(0) += 1;
    }
    out
}

/// How a competition matched an earlier one as the same session.
struct SameSession {
    other: String,
    players: (usize, usize),
    /// Table results in common, of the larger of the two; `None` without board rows.
    results: Option<(usize, usize)>,
}

/// More than half of the larger of two collections in common.
fn most_in_common(common: usize, a: usize, b: usize) -> bool {
    common * 2 > a.max(b)
}

/// A competition already in `dataset` that `competition` is the same session of: the
/// same club, date and session, more than half of the players of the larger of the two
/// in common and, where both have board rows, more than half of the table results
/// (board, contract, declarer, tricks, score). Two sections of one evening share the
/// club, date and session but not their players; two sessions of one day (the club's
/// programs leave the session number at 1) may share most players, but not the deals,
/// so not the results. The best match (most players in common, then the smallest id)
/// wins.
fn same_session(
    dataset: &Dataset,
    fragment: &Dataset,
    competition: &Competition,
) -> Option<SameSession> {
    let club = competition.club.as_deref()?;
    let players = players_of(fragment, &competition.competition_id);
    let results = table_results(fragment, &competition.competition_id);
    let total = |m: &BTreeMap<String, usize>| m.values().sum::<usize>();
    dataset
        .competitions
        .iter()
        .filter(|c| {
            c.competition_id != competition.competition_id
                && c.club.as_deref() == Some(club)
                && c.date == competition.date
                && c.session == competition.session
                && c.format == competition.format
        })
        .filter_map(|c| {
            let earlier = players_of(dataset, &c.competition_id);
            let common = earlier.intersection(&players).count();
            if !most_in_common(common, earlier.len(), players.len()) {
                return None;
            }
            let earlier_results = table_results(dataset, &c.competition_id);
            let results = if earlier_results.is_empty() || results.is_empty() {
                None
            } else {
                let shared = earlier_results
                    .iter()
                    .map(|(key, n)| (*n).min(results.get(key).copied().unwrap_or(0)))
                    .sum::<usize>();
                let larger = total(&earlier_results).max(total(&results));
                if !most_in_common(shared, larger, 0) {
                    return None;
                }
                Some((shared, larger))
            };
            Some(SameSession {
                other: c.competition_id.clone(),
                players: (common, earlier.len().max(players.len())),
                results,
            })
        })
        .max_by(|a, b| {
            a.players
                .0
                .cmp(&b.players.0)
                .then_with(|| b.other.cmp(&a.other))
        })
}

/// One file of a batch, read and checked, with what orders it in the batch.
struct ReadFile {
    date: Option<NaiveDate>,
    created: Option<String>,
    file: PathBuf,
    /// From the header, for a file that is refused.
    month: Option<String>,
    imported: Result<(Imported, Option<Mismatch>), InputError>,
}

/// Imports `files` into `existing`. The files are read first and then taken in the
/// order of their competition's date, the time the program wrote them (`Created`) and
/// their path, whatever the order given, so that the batch's outcome (which of two
/// exports of one session is the later one, and so everything written) does not depend
/// on how the files were listed. Members' names and clubs are then decided from the
/// whole dataset (see [`identity::resolve_members`]).
pub fn import_batch(
    existing: Dataset,
    files: &[PathBuf],
    kind: Option<ExportKind>,
    register: Option<&Register>,
    strict: bool,
) -> Batch {
    let (files, repeats) = first_of_each(files);
    let read = read_files(files, kind);
    let mut merge = Merge::new(existing, register, strict);
    for file in read {
        merge.take_file(file);
    }
    let repeated = repeated_entries(&merge.batch.entries, &repeats);
    merge.batch.entries.extend(repeated);
    merge.finish()
}

/// Reads and checks every file (each given once: see [`first_of_each`]), in the order
/// the batch takes them: competition date, `Created` time, path.
fn read_files(files: Vec<PathBuf>, kind: Option<ExportKind>) -> Vec<ReadFile> {
    let mut read: Vec<ReadFile> = files
        .into_iter()
        .map(|file| {
            let bytes = super::published::read_export(&file);
            let created = bytes.as_deref().ok().and_then(export_created);
            let month = bytes.as_deref().ok().and_then(export_month);
            let imported = bytes.and_then(|bytes| check_bytes(&file, &bytes, kind));
            let date = imported
                .as_ref()
                .ok()
                .and_then(|(i, _)| i.dataset.competitions.iter().map(|c| c.date).min());
            ReadFile {
                date,
                created,
                file,
                month,
                imported,
            }
        })
        .collect();
    read.sort_by(|a, b| (&a.date, &a.created, &a.file).cmp(&(&b.date, &b.created, &b.file)));
    read
}

/// The batch being merged, with what tells a competition already seen: its content's
/// fingerprint and the file of this batch it came from.
struct Merge<'r> {
    batch: Batch,
    register: Option<&'r Register>,
    strict: bool,
    /// Fingerprint -> competition id (the first one with that content).
    by_print: BTreeMap<String, String>,
    /// Competition id -> fingerprint.
    prints: BTreeMap<String, String>,
    /// Competitions of this batch, by the file they came from.
    from_batch: BTreeMap<String, PathBuf>,
    /// Printed names that differ from the register's, for the notes at the end.
    differs: Vec<identity::NameDiffers>,
}

/// One competition of a file being merged, with the rows and notes that go with it.
struct Incoming<'a> {
    file: &'a PathBuf,
    fragment: &'a Dataset,
    competition: &'a Competition,
    id: String,
    month: String,
    print: String,
}

impl Incoming<'_> {
    /// The import report's line for this competition.
    fn entry(&self, status: Status, reason: String) -> Entry {
        Entry {
            file: self.file.clone(),
            status,
            competition_id: Some(self.id.clone()),
            month: Some(self.month.clone()),
            line: None,
            board: None,
            column: None,
            reason,
        }
    }
}

impl<'r> Merge<'r> {
    fn new(existing: Dataset, register: Option<&'r Register>, strict: bool) -> Merge<'r> {
        let mut by_print: BTreeMap<String, String> = BTreeMap::new();
        let mut prints: BTreeMap<String, String> = BTreeMap::new();
        for competition in &existing.competitions {
            let print = fingerprint(&existing, competition);
            by_print
                .entry(print.clone())
                .or_insert_with(|| competition.competition_id.clone());
            prints.insert(competition.competition_id.clone(), print);
        }
        Merge {
            batch: Batch {
                dataset: existing,
                ..Batch::default()
            },
            register,
            strict,
            by_print,
            prints,
            from_batch: BTreeMap::new(),
            differs: Vec::new(),
        }
    }

    /// Merges one file: refused as a whole if it could not be read or checked (or
    /// mismatched under `--strict`), else competition by competition.
    fn take_file(&mut self, read: ReadFile) {
        let ReadFile {
            file,
            imported,
            month,
            ..
        } = read;
        let file = &file;
        let (imported, mismatch) = match imported {
            Ok(checked) => checked,
            Err(error) => {
                let mut entry = Entry::refused(file, &error);
                entry.month = month;
                self.batch.entries.push(entry);
                return;
            }
        };
        let mismatch = mismatch.map(|m| mismatch_entry(file, &imported, &m));
        if let (true, Some(entry)) = (self.strict, &mismatch) {
            self.batch.entries.push(Entry {
                status: Status::Refused,
                reason: format!("refused under --strict: {}", entry.reason),
                ..entry.clone()
            });
            return;
        }
        let mut notes = file_notes(file, &imported);
        let mut fragment = imported.dataset;
        if let Some(register) = self.register {
            let (register_notes, names) = register.apply(&mut fragment, file);
            self.differs.extend(names);
            notes.extend(register_notes);
        }
        for competition in &fragment.competitions {
            let incoming = Incoming {
                file,
                fragment: &fragment,
                competition,
                id: competition.competition_id.clone(),
                month: competition.date.format("%Y-%m").to_string(),
                print: fingerprint(&fragment, competition),
            };
            for note in &mut notes {
                if note.competition_id.as_deref() == Some(incoming.id.as_str()) {
                    note.month = Some(incoming.month.clone());
                }
            }
            if let Some((status, reason)) = self.classify(&incoming) {
                self.add(&incoming);
                self.batch.entries.push(incoming.entry(status, reason));
                self.batch.entries.extend(mismatch.clone());
                self.batch.entries.append(&mut notes);
            }
        }
    }

    /// What a competition is to the batch: `None` when it is not added (a duplicate,
    /// unchanged, or refused, with its line already reported), else the status and
    /// reason of its line, an earlier version it corrects being removed.
    fn classify(&mut self, incoming: &Incoming) -> Option<(Status, String)> {
        let id = &incoming.id;
        if let Some(earlier) = self.from_batch.get(id) {
            let entry = twice_in_batch(incoming, earlier, self.prints.get(id));
            self.batch.entries.push(entry);
            return None;
        }
        match self.prints.get(id) {
            Some(old) if *old == incoming.print => {
                self.batch.entries.push(incoming.entry(
                    Status::Unchanged,
                    "already in the dataset with the same results: nothing to do".into(),
                ));
                None
            }
            Some(_) => {
                remove_competition(&mut self.batch, id);
                Some((
                    Status::Correction,
                    "replaces the earlier version of this competition (other results)".to_string(),
                ))
            }
            None => match self.by_print.get(&incoming.print) {
                Some(other) => {
                    let entry = incoming.entry(
                        Status::Duplicate,
                        format!(
                            "the same session (date and results) as competition `{other}`, \
                             exported under another header: imported once"
                        ),
                    );
                    self.batch.entries.push(entry);
                    None
                }
                None => Some(
                    match same_session(&self.batch.dataset, incoming.fragment, incoming.competition)
                    {
                        Some(same) => self.replace_same_session(same),
                        None => (Status::Imported, String::new()),
                    },
                ),
            },
        }
    }

    /// Removes the earlier competition a session sent again replaces; the status and
    /// reason of the correction.
    fn replace_same_session(&mut self, same: SameSession) -> (Status, String) {
        let SameSession {
            other,
            players: (common, larger),
            results,
        } = same;
        let source = self
            .batch
            .dataset
            .competitions
            .iter()
            .find(|c| c.competition_id == other)
            .and_then(|c| c.origin.file.as_deref())
            .map_or_else(|| "the dataset".to_string(), |p| p.display().to_string());
        remove_competition(&mut self.batch, &other);
        self.prints.remove(&other);
        self.by_print.retain(|_, v| *v != other);
        self.from_batch.remove(&other);
        self.batch.changed.insert(other.clone());
        (
            Status::Correction,
            format!(
                "the same session as competition `{other}` from {source} \
                 (club, date and session; {common} of {larger} players{} in \
                 common), sent again under another serial number or title: \
                 replaces it",
                results.map_or_else(String::new, |(shared, of)| format!(
                    " and {shared} of {of} table results"
                ))
            ),
        )
    }

    /// Adds a competition to the dataset and to what tells it when seen again.
    fn add(&mut self, incoming: &Incoming) {
        let id = &incoming.id;
        self.by_print
            .entry(incoming.print.clone())
            .or_insert_with(|| id.clone());
        self.prints.insert(id.clone(), incoming.print.clone());
        self.from_batch.insert(id.clone(), incoming.file.clone());
        self.batch.changed.insert(id.clone());
        add_competition(&mut self.batch.dataset, incoming.fragment, id);
    }

    /// After the last file: members no competition names any more leave, members'
    /// names and clubs are decided, the notes on names are added and every line gets
    /// its month.
    fn finish(self) -> Batch {
        let Merge {
            mut batch,
            register,
            from_batch,
            differs,
            ..
        } = self;
        drop_orphans(&mut batch);
        identity::resolve_members(&mut batch.dataset, register);
        match register {
            Some(_) => batch.entries.extend(name_differs(&differs, &from_batch)),
            None => batch
                .entries
                .extend(identity::spelling_notes(&batch.dataset, &from_batch)),
        }
        fill_months(&mut batch);
        batch
    }
}

/// The line of a competition whose id an earlier file of the batch already brought: a
/// duplicate with the same results, else refused.
fn twice_in_batch(incoming: &Incoming, earlier: &Path, print: Option<&String>) -> Entry {
    let id = &incoming.id;
    if print == Some(&incoming.print) {
        incoming.entry(
            Status::Duplicate,
            format!(
                "the same competition as {}: imported once",
                earlier.display()
            ),
        )
    } else {
        incoming.entry(
            Status::Refused,
            format!(
                "competition `{id}` is also in {} with other results; import one of them",
                earlier.display()
            ),
        )
    }
}

/// Players of replaced competitions that no competition names any more leave `members`.
fn drop_orphans(batch: &mut Batch) {
    let playing: BTreeSet<MemberId> = batch
        .dataset
        .entrants
        .iter()
        .flat_map(|e| e.player_ids())
        .collect();
    let orphans = std::mem::take(&mut batch.orphans);
    batch
        .dataset
        .members
        .retain(|m| !orphans.contains(&m.member_id) || playing.contains(&m.member_id));
}

/// Every line naming a competition without a month gets the competition's.
fn fill_months(batch: &mut Batch) {
    let months: BTreeMap<&str, String> = batch
        .dataset
        .competitions
        .iter()
        .map(|c| {
            (
                c.competition_id.as_str(),
                c.date.format("%Y-%m").to_string(),
            )
        })
        .collect();
    for entry in &mut batch.entries {
        if entry.month.is_none() {
            entry.month = entry
                .competition_id
                .as_deref()
                .and_then(|id| months.get(id).cloned());
        }
    }
}

/// The files to read, each once and in path order, and each file given again (the
/// same path, or another path to the same file) with the one read in its place.
fn first_of_each(files: &[PathBuf]) -> (Vec<PathBuf>, Vec<(PathBuf, PathBuf)>) {
    let mut seen: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    let mut firsts = Vec::new();
    let mut repeats = Vec::new();
    for file in files {
        let key = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
        match seen.get(&key) {
            Some(first) => repeats.push((file.clone(), first.clone())),
            None => {
                seen.insert(key, file.clone());
                firsts.push(file.clone());
            }
        }
    }
    firsts.sort();
    (firsts, repeats)
}

/// A `duplicate` line for each file given again, so that every file given has its
/// line: the competition (and month) of the file read in its place.
fn repeated_entries(entries: &[Entry], repeats: &[(PathBuf, PathBuf)]) -> Vec<Entry> {
    repeats
        .iter()
        .map(|(file, first)| {
            let read = entries
                .iter()
                .find(|e| &e.file == first && e.status.is_outcome());
            Entry {
                file: file.clone(),
                status: Status::Duplicate,
                competition_id: read.and_then(|e| e.competition_id.clone()),
                month: read.and_then(|e| e.month.clone()),
                line: None,
                board: None,
                column: None,
                reason: if file == first {
                    "the file is given more than once: read once".to_string()
                } else {
                    format!(
                        "the same file as {} (given under two paths): read once",
                        first.display()
                    )
                },
            }
        })
        .collect()
}

/// The import report's `mismatch` row of a file whose recomputation differs from what
/// its program printed.
fn mismatch_entry(file: &Path, imported: &Imported, mismatch: &Mismatch) -> Entry {
    Entry {
        file: file.to_path_buf(),
        status: Status::Mismatch,
        competition_id: imported
            .dataset
            .competitions
            .first()
            .map(|c| c.competition_id.clone()),
        month: None,
        line: mismatch.first_line(),
        board: mismatch.first_board(),
        column: None,
        reason: mismatch.reason(&imported.published.program),
    }
}

/// The importer's notes on a file it imports: players and pairs not imported as printed.
fn file_notes(file: &Path, imported: &Imported) -> Vec<Entry> {
    let competition_id = imported
        .dataset
        .competitions
        .first()
        .map(|c| c.competition_id.clone());
    imported
        .notes
        .iter()
        .filter_map(|note| {
            let status = match note.kind {
                NoteKind::NonMember => Status::NonMember,
                NoteKind::Phantom => Status::Phantom,
                NoteKind::Unlisted => Status::Unlisted,
                NoteKind::Row => return None,
            };
            Some(Entry {
                file: file.to_path_buf(),
                status,
                competition_id: competition_id.clone(),
                month: None,
                line: note.origin.row,
                board: note.board,
                column: None,
                reason: note.reason.clone(),
            })
        })
        .collect()
}

/// One `name_differs` line per member and printed spelling of the competitions kept,
/// on the first file (in path order) that prints it.
fn name_differs(differs: &[identity::NameDiffers], kept: &BTreeMap<String, PathBuf>) -> Vec<Entry> {
    let mut seen: BTreeMap<(MemberId, String), (&identity::NameDiffers, usize)> = BTreeMap::new();
    for d in differs
        .iter()
        .filter(|d| kept.contains_key(&d.competition_id))
    {
        let key = (d.member_id, identity::fold(&d.printed).join(" "));
        seen.entry(key).or_insert((d, 0)).1 += 1;
    }
    seen.into_values()
        .map(|(d, times)| {
            let more = if times > 1 {
                format!(" ({times} times in this batch)")
            } else {
                String::new()
            };
            Entry {
                file: d.file.clone(),
                status: Status::NameDiffers,
                competition_id: Some(d.competition_id.clone()),
                month: None,
                line: d.line,
                board: None,
                column: None,
                reason: format!(
                    "number {} is `{}` in the register but `{}` in the file{more}: kept as member {} (`{}`)",
                    d.member_id, d.registered, d.printed, d.member_id, d.registered
                ),
            }
        })
        .collect()
}

fn remove_competition(batch: &mut Batch, id: &str) {
    let d = &mut batch.dataset;
    if let Some(old) = d.competitions.iter().find(|c| c.competition_id == id) {
        batch.replaced.push(old.clone());
    }
    d.competitions.retain(|c| c.competition_id != id);
    batch.orphans.extend(
        d.entrants
            .iter()
            .filter(|e| e.competition_id == id)
            .flat_map(|e| e.player_ids()),
    );
    d.entrants.retain(|e| e.competition_id != id);
    d.results.retain(|r| r.competition_id != id);
    d.boards.retain(|b| b.competition_id != id);
}

/// Adds one competition of `fragment` with its rows; members the dataset does not know
/// are added, known ones keep what the dataset says about them.
fn add_competition(dataset: &mut Dataset, fragment: &Dataset, id: &str) {
    let known: BTreeSet<MemberId> = dataset.members.iter().map(|m| m.member_id).collect();
    let players: BTreeSet<MemberId> = fragment
        .entrants
        .iter()
        .filter(|e| e.competition_id == id)
        .flat_map(|e| e.player_ids())
        .collect();
    let new_members: Vec<Member> = fragment
        .members
        .iter()
        .filter(|m| players.contains(&m.member_id) && !known.contains(&m.member_id))
        .cloned()
        .collect();
    dataset.members.extend(new_members);
    dataset.competitions.extend(
        fragment
            .competitions
            .iter()
            .filter(|c| c.competition_id == id)
            .cloned(),
    );
    dataset.entrants.extend(
        fragment
            .entrants
            .iter()
            .filter(|e| e.competition_id == id)
            .cloned(),
    );
    dataset.results.extend(
        fragment
            .results
            .iter()
            .filter(|r| r.competition_id == id)
            .cloned(),
    );
    dataset.boards.extend(
        fragment
            .boards
            .iter()
            .filter(|b| b.competition_id == id)
            .cloned(),
    );
}

/// Files given on the command line: a folder stands for every `.pbn` and `.xml` file
/// below it, in sorted path order.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            collect(path, &mut found)?;
            found.sort();
            out.extend(found);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), InputError> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        InputError::new(
            crate::error::Location::file(dir),
            format!("cannot list the folder: {e}"),
        )
    })?;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "pbn" | "xml"))
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header fields a refused file is still dated by, as the real files write them.
    #[test]
    fn an_export_is_dated_and_timed_by_its_header() {
        let ruter = b"% PBN 2.0\n% <META  name=Created                    content=\"2015-10-20 21:45:37\">\n\
% <META  name=ContestDate                content=\"2015-09-24\">\n[Event \"x\"]\n";
        assert_eq!(export_month(ruter).as_deref(), Some("2015-09"));
        assert_eq!(
            export_created(ruter).as_deref(),
            Some("2015-10-20 21:45:37")
        );
        assert_eq!(
            export_month(b"[Date \"2016.04.21\"]\n").as_deref(),
            Some("2016-04")
        );
        let usebio = b"<?xml version=\"1.0\"?><EVENT><DATE>09/03/2026</DATE></EVENT>";
        assert_eq!(export_month(usebio).as_deref(), Some("2026-03"));
        assert_eq!(export_created(usebio), None);
        assert_eq!(export_month(b"[Date \"2016\"]"), None);
        assert_eq!(export_month(b"<DATE>1/3/2026</DATE>"), None);
    }
}
