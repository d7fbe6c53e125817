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
//!   club exports a session twice) is recognised and kept once.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::dataset::{Competition, Dataset, Member, MemberId};
use crate::error::{InputError, Location};
use crate::import::{pbn, usebio, validate, Imported};

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

/// What became of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// A new competition.
    Imported,
    /// A competition already in the dataset with other results: the new one replaces it.
    Correction,
    /// The same competition with the same results as in the dataset: nothing to do.
    Unchanged,
    /// The same session as another competition (another header, same date and results).
    Duplicate,
    /// The file could not be imported.
    Refused,
    /// A note on an imported file: a number not in the register, or whose name
    /// disagrees with it; the player is imported as a non-member.
    NonMember,
    /// A note on an imported file (no register given): a number with another name
    /// than the dataset already has for it.
    NameConflict,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Imported => "imported",
            Status::Correction => "correction",
            Status::Unchanged => "unchanged",
            Status::Duplicate => "duplicate",
            Status::Refused => "refused",
            Status::NonMember => "non_member",
            Status::NameConflict => "name_conflict",
        }
    }
}

/// One line of the import report.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub file: PathBuf,
    pub status: Status,
    pub competition_id: Option<String>,
    /// Where the reason was found, for refusals.
    pub line: Option<usize>,
    pub board: Option<u32>,
    pub column: Option<String>,
    pub reason: String,
}

impl Entry {
    fn refused(file: &Path, error: &InputError) -> Entry {
        Entry {
            file: file.to_path_buf(),
            status: Status::Refused,
            competition_id: error.location.competition.clone(),
            line: error.location.row,
            board: error.location.board,
            column: error.location.column.clone(),
            reason: error.rule.clone(),
        }
    }

    /// `file, line 618, board 18: reason` as the officer reads it.
    pub fn describe(&self) -> String {
        let mut out = self.file.display().to_string();
        if let Some(line) = self.line {
            let _ = write!(out, ", line {line}");
        }
        if let Some(column) = &self.column {
            let _ = write!(out, ", column `{column}`");
        }
        if let Some(board) = self.board {
            let _ = write!(out, ", board {board}");
        }
        let _ = write!(out, ": {}", self.reason);
        out
    }
}

/// A batch merged into a dataset.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    /// The existing dataset with the batch's competitions added or replaced.
    pub dataset: Dataset,
    /// One entry per file, in the order given.
    pub entries: Vec<Entry>,
    /// Competitions whose rows changed (added, replaced or removed), for the writer.
    pub changed: BTreeSet<String>,
    /// Competitions replaced by a correction, with their date before the correction.
    pub replaced: Vec<Competition>,
}

impl Batch {
    pub fn refused(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.status == Status::Refused)
    }

    pub fn count(&self, status: Status) -> usize {
        self.entries.iter().filter(|e| e.status == status).count()
    }
}

/// Reads one export, checks it with the dataset rules and scores it.
pub fn read_checked(path: &Path, kind: Option<ExportKind>) -> Result<Imported, InputError> {
    let bytes = super::published::read_export(path)?;
    let blank = |b: &u8| b.is_ascii_whitespace() || matches!(b, 0xEF | 0xBB | 0xBF);
    if bytes.iter().all(blank) {
        return Err(InputError::new(
            Location::file(path),
            "the file is empty: there is nothing to import (was the export interrupted?)",
        ));
    }
    let detected = ExportKind::detect(&bytes);
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
    let imported = match kind {
        ExportKind::Pbn => pbn::parse_bytes(path, &bytes)?,
        ExportKind::Usebio => usebio::parse_bytes(path, &bytes)?,
    };
    validate::validate(&imported.dataset)?;
    let d = &imported.dataset;
    for competition in &d.competitions {
        crate::scoring::score_competition(competition, &d.entrants, &d.boards)?;
    }
    Ok(imported)
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

/// Imports `files` into `existing`, file by file, in the order given.
pub fn import_batch(
    existing: Dataset,
    files: &[PathBuf],
    kind: Option<ExportKind>,
    register: Option<&Register>,
) -> Batch {
    let mut batch = Batch {
        dataset: existing,
        ..Batch::default()
    };
    // Fingerprint -> competition id, and id -> (fingerprint, file of this batch).
    let mut by_print: BTreeMap<String, String> = BTreeMap::new();
    let mut prints: BTreeMap<String, String> = BTreeMap::new();
    for competition in &batch.dataset.competitions {
        let print = fingerprint(&batch.dataset, competition);
        by_print
            .entry(print.clone())
            .or_insert_with(|| competition.competition_id.clone());
        prints.insert(competition.competition_id.clone(), print);
    }
    let mut from_batch: BTreeMap<String, PathBuf> = BTreeMap::new();
    for file in files {
        let imported = match read_checked(file, kind) {
            Ok(imported) => imported,
            Err(error) => {
                batch.entries.push(Entry::refused(file, &error));
                continue;
            }
        };
        let mut fragment = imported.dataset;
        let notes = match register {
            Some(register) => register.apply(&mut fragment, file),
            None => name_conflicts(&batch.dataset, &fragment, file),
        };
        let mut notes = Some(notes);
        for competition in &fragment.competitions {
            let id = competition.competition_id.clone();
            let print = fingerprint(&fragment, competition);
            let entry = |status: Status, reason: String| Entry {
                file: file.clone(),
                status,
                competition_id: Some(id.clone()),
                line: None,
                board: None,
                column: None,
                reason,
            };
            if let Some(earlier) = from_batch.get(&id) {
                let (status, reason) = if prints.get(&id) == Some(&print) {
                    (
                        Status::Duplicate,
                        format!(
                            "the same competition as {}: imported once",
                            earlier.display()
                        ),
                    )
                } else {
                    (
                        Status::Refused,
                        format!(
                            "competition `{id}` is also in {} with other results; import one of them",
                            earlier.display()
                        ),
                    )
                };
                batch.entries.push(entry(status, reason));
                continue;
            }
            let status = match prints.get(&id) {
                Some(old) if *old == print => {
                    batch.entries.push(entry(
                        Status::Unchanged,
                        "already in the dataset with the same results: nothing to do".into(),
                    ));
                    continue;
                }
                Some(_) => Status::Correction,
                None => match by_print.get(&print) {
                    Some(other) => {
                        batch.entries.push(entry(
                            Status::Duplicate,
                            format!(
                                "the same session (date and results) as competition `{other}`, \
                                 exported under another header: imported once"
                            ),
                        ));
                        continue;
                    }
                    None => Status::Imported,
                },
            };
            let reason = if status == Status::Correction {
                remove_competition(&mut batch, &id);
                "replaces the earlier version of this competition (other results)".to_string()
            } else {
                String::new()
            };
            by_print.entry(print.clone()).or_insert_with(|| id.clone());
            prints.insert(id.clone(), print);
            from_batch.insert(id.clone(), file.clone());
            batch.changed.insert(id.clone());
            add_competition(&mut batch.dataset, &fragment, &id);
            batch.entries.push(entry(status, reason));
            batch.entries.extend(notes.take().unwrap_or_default());
        }
    }
    batch
}

/// A federation's register of members: number and name.
#[derive(Debug, Clone, Default)]
pub struct Register {
    names: BTreeMap<MemberId, Option<String>>,
}

impl Register {
    pub fn new(members: &[Member]) -> Register {
        Register {
            names: members
                .iter()
                .map(|m| (m.member_id, m.name.clone()))
                .collect(),
        }
    }

    /// Holds every number of `fragment` to the register: a number the register does not
    /// know, or whose name there disagrees with the file's, is reported and imported as
    /// a non-member (the slot keeps the printed name, no member row is written). Known
    /// members take the register's name.
    fn apply(&self, fragment: &mut Dataset, file: &Path) -> Vec<Entry> {
        let printed: BTreeMap<MemberId, Option<String>> = fragment
            .members
            .iter()
            .map(|m| (m.member_id, m.name.clone()))
            .collect();
        let mut notes = Vec::new();
        for entrant in &mut fragment.entrants {
            for slot in 0..4 {
                let Some(id) = entrant.players[slot] else {
                    continue;
                };
                let name = entrant.names[slot]
                    .clone()
                    .or_else(|| printed.get(&id).cloned().flatten());
                let reason = match self.names.get(&id) {
                    None => Some(format!(
                        "number {id} ({}) is not in the register: imported as a non-member",
                        name.as_deref().unwrap_or("no name")
                    )),
                    Some(Some(known)) => match &name {
                        Some(name) if !same_name(name, known) => Some(format!(
                            "number {id} is `{known}` in the register but `{name}` in the file: \
                             imported as a non-member"
                        )),
                        _ => None,
                    },
                    Some(None) => None,
                };
                if let Some(reason) = reason {
                    entrant.players[slot] = None;
                    entrant.names[slot] = Some(name.unwrap_or_else(|| format!("#{id}")));
                    notes.push(Entry {
                        file: file.to_path_buf(),
                        status: Status::NonMember,
                        competition_id: Some(entrant.competition_id.clone()),
                        line: entrant.origin.row,
                        board: None,
                        column: None,
                        reason,
                    });
                }
            }
        }
        let used: BTreeSet<MemberId> = fragment
            .entrants
            .iter()
            .flat_map(|e| e.player_ids())
            .collect();
        fragment.members.retain(|m| used.contains(&m.member_id));
        for member in &mut fragment.members {
            if let Some(Some(name)) = self.names.get(&member.member_id) {
                member.name = Some(name.clone());
            }
        }
        notes
    }
}

/// Names compared as people write them: case and spacing do not matter.
fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    };
    norm(a) == norm(b)
}

/// Without a register: numbers whose name in `fragment` differs from the dataset's.
fn name_conflicts(dataset: &Dataset, fragment: &Dataset, file: &Path) -> Vec<Entry> {
    let known: BTreeMap<MemberId, &Member> =
        dataset.members.iter().map(|m| (m.member_id, m)).collect();
    let competition_id = fragment
        .competitions
        .first()
        .map(|c| c.competition_id.clone());
    fragment
        .members
        .iter()
        .filter_map(|m| {
            let earlier = known.get(&m.member_id)?;
            let (Some(name), Some(first)) = (&m.name, &earlier.name) else {
                return None;
            };
            if same_name(name, first) {
                return None;
            }
            let source = earlier
                .origin
                .file
                .as_deref()
                .map_or_else(|| "the dataset".to_string(), |p| p.display().to_string());
            Some(Entry {
                file: file.to_path_buf(),
                status: Status::NameConflict,
                competition_id: competition_id.clone(),
                line: m.origin.row,
                board: None,
                column: None,
                reason: format!(
                    "number {} is `{name}` here but `{first}` in {source}: kept as `{first}`",
                    m.member_id
                ),
            })
        })
        .collect()
}

fn remove_competition(batch: &mut Batch, id: &str) {
    let d = &mut batch.dataset;
    if let Some(old) = d.competitions.iter().find(|c| c.competition_id == id) {
        batch.replaced.push(old.clone());
    }
    d.competitions.retain(|c| c.competition_id != id);
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
