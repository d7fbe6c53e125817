//! What a run took into account, competition by competition.
//!
//! A monthly run continues the previous month's state, but the dataset it reads is not
//! append-only: a club corrects a result, a late file arrives for a month already run, a
//! competition is withdrawn. Comparing only dates would apply nothing of it. So every
//! run keeps a ledger (`applied.parquet`): each competition up to the last one it
//! replayed, with a content hash of its rows. The next run builds the same ledger from
//! its dataset; any difference (a hash that changed, a competition gone, one that was
//! not there before) means the state no longer follows from the dataset, and the
//! history is replayed from the start.
//!
//! The hash is SHA-256 of the competition's rows (competition, entrants, results,
//! boards) in the binary encoding of [`crate::dataset::encoding`]: values only, without
//! where a row came from, and the rows of each table sorted, so it does not depend on
//! row order, on how the tables are partitioned or on the file a row was read from:
//! re-importing a month with the same results changes nothing. The encoding is
//! defined value by value and numbered ([`SCHEME`]); a state hashed another way is
//! recognised and replayed from the start once.

use std::collections::HashMap;

use chrono::NaiveDate;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::dataset::encoding;
use crate::dataset::{BoardResult, BoardRow, Competition, Dataset, Entrant, EntrantResult};
use crate::model::FactorSet;
use crate::quarantine::Quarantined;

/// The version of the encoding the hashes are taken of (`ledger_scheme` in `run.json`).
/// A state whose hashes were taken another way cannot be compared hash by hash: its
/// competitions are matched by id, and the history is replayed from the start once.
///
/// * 0: a manifest without `ledger_scheme`, before schemes were numbered;
/// * 1: SHA-256 of the rows' Rust `Debug` text;
/// * 2: SHA-256 of the rows' binary encoding ([`crate::dataset::encoding`]).
pub const SCHEME: u32 = 2;

/// What the hashed bytes of a competition and of a dataset start with.
const COMPETITION_TAG: &[u8] = b"bridgehcp competition 2\n";
const DATASET_TAG: &[u8] = b"bridgehcp dataset 2\n";

/// What became of a competition in the run that recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Rated and replayed onto the handicaps.
    Applied,
    /// Rated, but the field's strength could not be settled (`unrated.csv`).
    Unrated,
    /// Left out for a broken rule (`quarantine.csv`).
    Quarantined,
    /// `rated = false`: scored, not rated.
    NotRated,
}

crate::string_enum!(Status, "ledger status", {
    "applied" => Status::Applied,
    "unrated" => Status::Unrated,
    "quarantined" => Status::Quarantined,
    "not_rated" => Status::NotRated,
});

/// One line of the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub competition_id: String,
    pub date: NaiveDate,
    pub session: i32,
    /// The content hash; `None` for a competition the reader left out, whose rows never
    /// reached the dataset.
    pub sha256: Option<String>,
    pub status: Status,
}

impl Entry {
    /// The replay order (date, session, id).
    pub fn key(&self) -> (NaiveDate, i32, &str) {
        (self.date, self.session, self.competition_id.as_str())
    }
}

/// A content hash as a run holds it until the ledger is written: the 32 bytes of a
/// SHA-256 digest, or, for a hash that is not one in lower-case hex (a ledger or an
/// index written by another tool), the text as it came. A run holds one per
/// competition, and a 64-character `String` each was about 90 bytes of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentHash {
    Sha256([u8; 32]),
    Text(Box<str>),
}

impl ContentHash {
    /// The hash `text` names: its bytes when it is 64 lower-case hex digits (so that
    /// [`ContentHash::text`] gives `text` back), else the text itself.
    pub fn of(text: String) -> Self {
        let nibble = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let mut bytes = [0u8; 32];
        let parsed = text.len() == 64
            && text
                .as_bytes()
                .chunks(2)
                .zip(&mut bytes)
                .all(|(pair, byte)| {
                    match (nibble(pair[0]), pair.get(1).and_then(|&c| nibble(c))) {
                        (Some(high), Some(low)) => {
                            *byte = high << 4 | low;
                            true
                        }
                        _ => false,
                    }
                });
        match parsed {
            true => ContentHash::Sha256(bytes),
            false => ContentHash::Text(text.into_boxed_str()),
        }
    }

    /// The hash as the ledger writes it.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            ContentHash::Sha256(bytes) => std::borrow::Cow::Owned(hex(bytes)),
            ContentHash::Text(text) => std::borrow::Cow::Borrowed(text),
        }
    }
}

/// Lower-case hex of a SHA-256 digest.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(2 * bytes.len());
    for &b in bytes {
        text.push(char::from(DIGITS[usize::from(b >> 4)]));
        text.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    text
}

/// SHA-256 of `bytes`, in hex.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The content hash of a factor set: SHA-256 of its canonical TOML (every key, in
/// declaration order), so that two sets with the same name and other constants differ.
pub fn factor_hash(factors: &FactorSet) -> String {
    // A factor set is plain numbers and strings: serialising it cannot fail, but if it
    // ever did, the debug form still tells the sets apart.
    let text = toml::to_string(factors).unwrap_or_else(|_| format!("{factors:?}"));
    sha256(text.as_bytes())
}

/// The encoding of each row, sorted (the hash does not depend on row order), after the
/// number of rows. The rows are encoded one after another into one buffer and sorted
/// as spans of it: a competition's hundreds of board rows cost one allocation, not
/// one each.
fn hash_rows<T>(hasher: &mut Sha256, rows: &[T], encode: impl Fn(&T, &mut encoding::Encoder)) {
    let mut e = encoding::Encoder::with_capacity(rows.len() * 96);
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(rows.len());
    for row in rows {
        let start = e.len();
        encode(row, &mut e);
        spans.push((start, e.len()));
    }
    hash_spans(hasher, e.as_bytes(), &spans);
}

/// [`hash_rows`] of board rows. The rows read in place from one column set, which is
/// nearly all of them, are encoded a column at a time by the set
/// ([`crate::dataset::BoardColumns::encode_rows`]); the same bytes as row by row.
fn hash_board_rows<R: BoardRow>(hasher: &mut Sha256, rows: &[R]) {
    let mut e = encoding::Encoder::with_capacity(rows.len() * 128);
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(rows.len());
    let mut run: Vec<(u32, u32)> = Vec::new();
    let mut at = 0;
    while let Some(row) = rows.get(at) {
        let Some((columns, ..)) = row.in_columns() else {
            let start = e.len();
            encoding::board_row_into(row, &mut e);
            spans.push((start, e.len()));
            at += 1;
            continue;
        };
        run.clear();
        while let Some((_, place, board)) = rows
            .get(at)
            .and_then(BoardRow::in_columns)
            .filter(|(other, ..)| std::ptr::addr_eq(*other, columns))
        {
            run.push((place, board));
            at += 1;
        }
        columns.encode_rows(&run, &mut e, &mut spans);
    }
    hash_spans(hasher, e.as_bytes(), &spans);
}

/// The rows at `spans` of `bytes`, sorted, after their number (see [`hash_rows`]).
fn hash_spans(hasher: &mut Sha256, bytes: &[u8], spans: &[(usize, usize)]) {
    let span = |&(start, end): &(usize, usize)| &bytes[start..end];
    // A competition's board rows all begin with its id, and most with the board number's
    // upper bytes: the bytes every row shares are skipped, and the next 24 compared as
    // three numbers before the rest. Past the shared part, a pairs board row holds the
    // board number (8 bytes, its low byte first), the N/S pair's presence and length (9)
    // and then the pair's name: 24 bytes tell nearly every two rows of a competition
    // apart, without comparing their bytes one by one. Byte order is unchanged: a row
    // that ends inside those 24 is padded with zeros, which orders it at or before every
    // row it begins, and rows with equal numbers are compared by the rest of their bytes.
    let shared = spans.split_first().map_or(0, |(first, rest)| {
        let first = span(first);
        rest.iter().fold(first.len(), |shared, row| {
            let row = span(row);
            // Nearly every row begins with all of it: one comparison of the whole.
            if row.get(..shared) == Some(&first[..shared]) {
                return shared;
            }
            first[..shared]
                .iter()
                .zip(row)
                .take_while(|(a, b)| a == b)
                .count()
        })
    });
    const KEY: usize = 24;
    let key = |&(start, end): &(usize, usize)| {
        let from = (start + shared).min(end);
        let mut next = [0u8; KEY];
        let take = (end - from).min(KEY);
        next[..take].copy_from_slice(&bytes[from..from + take]);
        let [a, b, c] = [0, 8, 16].map(|at| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&next[at..at + 8]);
            u64::from_be_bytes(word)
        });
        (a, b, c)
    };
    let rest = |&(start, end): &(usize, usize)| &bytes[(start + shared + KEY).min(end)..end];
    let mut keyed: Vec<_> = spans.iter().map(|s| (key(s), *s)).collect();
    // Of two rows with equal numbers whose bytes end inside them, the shorter begins the
    // longer (what follows it there is zeros): the length orders them.
    let order = |(ka, a): &((u64, u64, u64), (usize, usize)),
                 (kb, b): &((u64, u64, u64), (usize, usize))| {
        ka.cmp(kb)
            .then_with(|| rest(a).cmp(rest(b)))
            .then_with(|| (a.1 - a.0).cmp(&(b.1 - b.0)))
    };
    // A file lists a competition's rows board by board (boards below 256, whose first
    // byte orders them), each board's rows in some other order: rows already in order
    // by their first eight bytes are sorted run by run of equal ones, a few rows each,
    // not as a whole. Equal rows are the same bytes, so either way hashes alike.
    if keyed.windows(2).all(|pair| pair[0].0 .0 <= pair[1].0 .0) {
        for run in keyed.chunk_by_mut(|a, b| a.0 .0 == b.0 .0) {
            run.sort_unstable_by(order);
        }
    } else {
        keyed.sort_unstable_by(order);
    }
    hasher.update((keyed.len() as u64).to_le_bytes());
    for (_, row) in &keyed {
        hasher.update(span(row));
    }
}

#[derive(Default)]
struct Rows<'a> {
    entrants: Vec<&'a Entrant>,
    results: Vec<&'a EntrantResult>,
    boards: Vec<&'a BoardResult>,
}

/// The content hash of every competition of `dataset`, by id.
pub fn competition_hashes(dataset: &Dataset) -> HashMap<String, String> {
    let mut rows: HashMap<&str, Rows> = HashMap::new();
    for e in &dataset.entrants {
        rows.entry(&e.competition_id).or_default().entrants.push(e);
    }
    for r in &dataset.results {
        rows.entry(&r.competition_id).or_default().results.push(r);
    }
    for b in &dataset.boards {
        rows.entry(&b.competition_id).or_default().boards.push(b);
    }
    let empty = Rows::default();
    dataset
        .competitions
        .par_iter()
        .map(|c| {
            let own = rows.get(c.competition_id.as_str()).unwrap_or(&empty);
            (
                c.competition_id.clone(),
                competition_hash(c, &own.entrants, &own.results, &own.boards),
            )
        })
        .collect()
}

/// The content hash of one competition, from its rows (in any order): SHA-256 of
/// the tag `bridgehcp competition 2` and a newline, the competition row, then the
/// entrants, the results and the boards, each table as its number of rows (8 bytes
/// little-endian) and its rows' encodings in byte order.
pub fn competition_hash(
    competition: &Competition,
    entrants: &[&Entrant],
    results: &[&EntrantResult],
    boards: &[impl BoardRow],
) -> String {
    let mut hasher = Sha256::new();
    hasher.update(COMPETITION_TAG);
    hasher.update(encoding::competition(competition));
    hash_rows(&mut hasher, entrants, |row, e| {
        encoding::entrant_into(row, e)
    });
    hash_rows(&mut hasher, results, |row, e| encoding::result_into(row, e));
    hash_board_rows(&mut hasher, boards);
    hex(&hasher.finalize())
}

/// The content hash of a whole dataset: its members and every competition's hash,
/// independent of row order and file layout.
pub fn dataset_hash(dataset: &Dataset, hashes: &HashMap<String, String>) -> String {
    members_and_competitions_hash(&dataset.members, hashes)
}

/// [`dataset_hash`] from the members and the competitions' hashes: SHA-256 of the tag
/// `bridgehcp dataset 2` and a newline, the members as a table (as in
/// [`competition_hash`]), then the number of competitions and, by id, each one's id
/// and hash as two strings.
pub fn members_and_competitions_hash(
    members: &[crate::dataset::Member],
    hashes: &HashMap<String, String>,
) -> String {
    let pairs = hashes
        .iter()
        .map(|(id, hash)| (id.as_str(), hash.as_str()))
        .collect();
    members_and_hashes(members, pairs)
}

/// A competition's hash as [`members_and_hashes`] takes it: its text, or a
/// [`ContentHash`] written as its text one at a time (not all at once beside the run).
pub trait AsHash {
    fn as_hash(&self) -> std::borrow::Cow<'_, str>;
}

impl AsHash for &str {
    fn as_hash(&self) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed(self)
    }
}

impl AsHash for &ContentHash {
    fn as_hash(&self) -> std::borrow::Cow<'_, str> {
        self.text()
    }
}

/// [`members_and_competitions_hash`] from (id, hash) pairs in any order; of two pairs
/// with one id, the later one counts (as when they are collected into a map).
pub fn members_and_hashes<H: AsHash>(
    members: &[crate::dataset::Member],
    mut pairs: Vec<(&str, H)>,
) -> String {
    let mut hasher = Sha256::new();
    hasher.update(DATASET_TAG);
    let members: Vec<&crate::dataset::Member> = members.iter().collect();
    hash_rows(&mut hasher, &members, |row, e| {
        encoding::member_into(row, e)
    });
    // A stable sort keeps pairs of one id in their order: the last of each run counts.
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let last = |at: &usize| pairs.get(at + 1).is_none_or(|next| next.0 != pairs[*at].0);
    let kept: Vec<usize> = (0..pairs.len()).filter(last).collect();
    let mut e = encoding::Encoder::with_capacity(kept.len() * 96 + 8);
    e.int(kept.len() as i64);
    for at in kept {
        let (id, hash) = &pairs[at];
        e.str(id).str(&hash.as_hash());
    }
    hasher.update(e.into_bytes());
    hex(&hasher.finalize())
}

/// How the ledger of this run's dataset differs from the previous run's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Difference {
    /// In both, with other rows (or another date or session).
    pub changed: Vec<String>,
    /// In the previous ledger, no longer in the dataset.
    pub removed: Vec<String>,
    /// In the dataset, dated before the previous run's last competition, and not in its
    /// ledger: a late result.
    pub late: Vec<String>,
    /// Previous entries found unchanged.
    pub unchanged: usize,
    /// The previous ledger's hashes were taken by another version of the program
    /// (the [`SCHEME`] given, not this one): competitions were matched by id, date and
    /// session only.
    pub other_scheme: Option<u32>,
    /// The state's `changes.parquet` and `standings.parquet`, or its `non_members.csv`
    /// and `unrated.csv`, hold its own competitions only (written by a version that did
    /// not carry them), so the outputs can
    /// only hold the whole history after a replay from the start.
    pub partial_history: bool,
    /// Members whose starting handicap changed (their masterpoints or
    /// `start_handicap` in the members table).
    pub members: Vec<i64>,
}

impl Difference {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
            && self.removed.is_empty()
            && self.late.is_empty()
            && self.other_scheme.is_none()
            && !self.partial_history
            && self.members.is_empty()
    }

    /// Whether the state was written by another version (its hashes or its history),
    /// rather than the dataset having changed since.
    pub fn from_another_version(&self) -> bool {
        self.other_scheme.is_some() || self.partial_history
    }

    /// Competitions that triggered a replay.
    pub fn count(&self) -> usize {
        self.changed.len() + self.removed.len() + self.late.len()
    }

    /// `competition c7 changed, c9 arrived late`, with at most a few ids per kind.
    pub fn describe(&self) -> String {
        let list = |ids: &[String]| {
            let shown: Vec<String> = ids.iter().take(5).map(|id| format!("`{id}`")).collect();
            let more = if ids.len() > 5 {
                format!(" and {} more", ids.len() - 5)
            } else {
                String::new()
            };
            format!("{}{more}", shown.join(", "))
        };
        let mut parts = Vec::new();
        if let Some(scheme) = self.other_scheme {
            parts.push(format!(
                "the state's content hashes were taken by another version of bridgehcp, \
                 with ledger scheme {scheme} (this version's is {SCHEME})"
            ));
        }
        if self.partial_history {
            parts.push(
                "the state's changes and standings, or its lists of non-members and unrated competitions, hold its own month only, as an older version of bridgehcp wrote them".to_owned(),
            );
        }
        if !self.changed.is_empty() {
            parts.push(format!("changed: {}", list(&self.changed)));
        }
        if !self.late.is_empty() {
            parts.push(format!("added late: {}", list(&self.late)));
        }
        if !self.removed.is_empty() {
            parts.push(format!("removed: {}", list(&self.removed)));
        }
        if !self.members.is_empty() {
            let ids: Vec<String> = self.members.iter().map(|m| m.to_string()).collect();
            parts.push(format!("starting handicap changed: member {}", list(&ids)));
        }
        parts.join("; ")
    }
}

/// Compares the previous ledger with `current`, the same ledger built from this run's
/// dataset for the competitions up to the previous run's last one; `scheme` is the
/// [`SCHEME`] the previous ledger's hashes were taken with.
pub fn compare_scheme(previous: &[Entry], current: &[Entry], scheme: u32) -> Difference {
    if scheme == SCHEME {
        return compare(previous, current);
    }
    let strip = |entries: &[Entry]| -> Vec<Entry> {
        entries
            .iter()
            .map(|e| Entry {
                sha256: None,
                ..e.clone()
            })
            .collect()
    };
    Difference {
        other_scheme: Some(scheme),
        ..compare(&strip(previous), &strip(current))
    }
}

/// [`compare_scheme`] for ledgers of this version.
pub fn compare(previous: &[Entry], current: &[Entry]) -> Difference {
    let now: rustc_hash::FxHashMap<&str, &Entry> = current
        .iter()
        .map(|e| (e.competition_id.as_str(), e))
        .collect();
    let before: rustc_hash::FxHashSet<&str> =
        previous.iter().map(|e| e.competition_id.as_str()).collect();
    let mut difference = Difference::default();
    for old in previous {
        match now.get(old.competition_id.as_str()) {
            None => difference.removed.push(old.competition_id.clone()),
            Some(new)
                if new.sha256 != old.sha256
                    || new.date != old.date
                    || new.session != old.session =>
            {
                difference.changed.push(old.competition_id.clone())
            }
            Some(_) => difference.unchanged += 1,
        }
    }
    for new in current {
        if !before.contains(new.competition_id.as_str()) {
            difference.late.push(new.competition_id.clone());
        }
    }
    difference
}

/// A competition as the dataset's index lists it (`competition_index.parquet`, kept by
/// the writers beside the data): enough to compare with a ledger without reading the
/// competition's rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Indexed {
    pub competition_id: String,
    /// The month partition (`2026-01`) its rows are in; in a dataset of one file per
    /// table, the month of its date.
    pub month: String,
    pub date: NaiveDate,
    pub session: i32,
    /// The content hash (this version's [`SCHEME`]); `None` when the reader leaves the
    /// competition out, or when rows of it lie in another month's files.
    pub sha256: Option<String>,
    /// Its rows in each table.
    pub entrants: u64,
    pub results: u64,
    pub boards: u64,
}

impl Indexed {
    fn key(&self) -> (NaiveDate, i32, &str) {
        (self.date, self.session, self.competition_id.as_str())
    }
}

/// Content hashes by competition id, of the competitions whose rows a run leaves
/// unread.
pub type Known = rustc_hash::FxHashMap<String, String>;

/// What a continued run reads, from the dataset's index and the previous run's ledger.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadPlan {
    /// The rows of these months only: the competitions of the other months are as the
    /// previous run took them, with these hashes (by id).
    Months {
        months: std::collections::BTreeSet<String>,
        known: Known,
    },
    /// Everything, for the reason given: the index cannot tell what the rows would.
    Whole(String),
}

/// The months a continued run has to read, when the index vouches for every other
/// one: every competition of the previous ledger is in the index with the same hash,
/// date and session, every indexed competition up to `through` (and `until`) is in the
/// ledger, and every competition of a month left unread has a hash of its own rows
/// alone. Anything else (a change, a late or removed competition, a competition the
/// reader leaves out, rows in another month's files) needs the whole dataset: the
/// rows alone tell then what the run has to do.
pub fn plan_reading(
    index: &[Indexed],
    previous: &[Entry],
    scheme: u32,
    through: Option<(NaiveDate, i32, &str)>,
    until: Option<NaiveDate>,
) -> ReadPlan {
    let whole = |why: String| ReadPlan::Whole(why);
    if scheme != SCHEME {
        return whole(format!("the state's ledger has scheme {scheme}"));
    }
    let Some(through) = through else {
        return whole("the state applied no competition".to_owned());
    };
    // Rows by position: the ledger's entries mark the rows they found, so that what
    // the ledger lacks is a flag, not a second set of ids.
    let mut by_id: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    by_id.reserve(index.len());
    for (at, row) in index.iter().enumerate() {
        if by_id.insert(row.competition_id.as_str(), at).is_some() {
            return whole(format!(
                "competition `{}` is listed in more than one month",
                row.competition_id
            ));
        }
    }
    let mut in_ledger = vec![false; index.len()];
    for entry in previous {
        let found = by_id.get(entry.competition_id.as_str()).copied();
        let same = found.is_some_and(|at| {
            let row = &index[at];
            row.sha256.is_some()
                && row.sha256 == entry.sha256
                && row.date == entry.date
                && row.session == entry.session
        });
        match found {
            Some(at) if same => in_ledger[at] = true,
            _ => {
                return whole(format!(
                    "competition `{}` is not in the index as the state took it",
                    entry.competition_id
                ))
            }
        }
    }
    drop(by_id);
    let until_ok = |row: &Indexed| until.is_none_or(|u| row.date <= u);
    let mut months = std::collections::BTreeSet::new();
    for (row, &in_ledger) in index.iter().zip(&in_ledger) {
        if row.key() <= through {
            if until_ok(row) && !in_ledger {
                return whole(format!(
                    "competition `{}` is new but dated before the state's last one",
                    row.competition_id
                ));
            }
        } else if until_ok(row) && !months.contains(&row.month) {
            months.insert(row.month.clone());
        }
    }
    let mut known = Known::default();
    known.reserve(index.len());
    for row in index.iter().filter(|row| !months.contains(&row.month)) {
        match &row.sha256 {
            Some(hash) => {
                known.insert(row.competition_id.clone(), hash.clone());
            }
            None => {
                return whole(format!(
                    "competition `{}` of month {} is left out by the reader or has rows in another month",
                    row.competition_id, row.month
                ))
            }
        }
    }
    ReadPlan::Months { months, known }
}

/// Ledger entries for the competitions the reader left out (those with a date).
pub fn quarantined_entries(quarantined: &[Quarantined]) -> Vec<Entry> {
    quarantined
        .iter()
        .filter_map(|q| {
            Some(Entry {
                competition_id: q.competition_id.clone(),
                date: q.date?,
                session: q.session.unwrap_or(1),
                sha256: None,
                status: Status::Quarantined,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{BoardRef, Format, Origin, OwnedBoards, ScoringMethod};
    use std::path::Path;
    use std::sync::Arc;

    fn date(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 1, d).unwrap_or_default()
    }

    fn dataset() -> Dataset {
        let mut d = Dataset::default();
        for id in ["c1", "c2"] {
            d.competitions.push(Competition::new(
                id,
                date(5),
                Format::Pairs,
                ScoringMethod::Matchpoints,
            ));
            for (entrant, score) in [("1", 60.0), ("2", 40.0)] {
                d.results.push(EntrantResult {
                    competition_id: id.into(),
                    entrant: entrant.into(),
                    boards_played: 24,
                    score,
                    opponent: None,
                    origin: Origin::default(),
                });
            }
        }
        d
    }

    #[test]
    fn the_hash_ignores_row_order_and_origin_but_not_values() {
        let d = dataset();
        let hashes = competition_hashes(&d);
        assert_eq!(hashes.len(), 2);
        assert_eq!(hashes["c1"].len(), 64);
        // Same rows, other id: other hash (the id is content).
        assert_ne!(hashes["c1"], hashes["c2"]);

        let mut moved = d.clone();
        moved.results.reverse();
        let file: Arc<Path> = Arc::from(Path::new("results/month=2026-01/part-0.parquet"));
        moved.results[0].origin = Origin::new(&file, 7);
        assert_eq!(competition_hashes(&moved), hashes);
        assert_eq!(dataset_hash(&moved, &hashes), dataset_hash(&d, &hashes));

        let mut changed = d.clone();
        changed.results[0].score = 61.0;
        let other = competition_hashes(&changed);
        assert_ne!(other["c1"], hashes["c1"]);
        assert_eq!(other["c2"], hashes["c2"]);
    }

    /// The hash is SHA-256 of bytes laid out as documented: the tag, the competition
    /// row, and each table as a count and its sorted rows.
    #[test]
    fn the_hash_is_taken_of_the_documented_bytes() {
        let d = dataset();
        let c = &d.competitions[0];
        let results: Vec<&EntrantResult> = d
            .results
            .iter()
            .filter(|r| r.competition_id == "c1")
            .collect();
        let mut rows: Vec<Vec<u8>> = results.iter().map(|r| encoding::result(r)).collect();
        rows.sort();
        let mut bytes = b"bridgehcp competition 2\n".to_vec();
        bytes.extend(encoding::competition(c));
        bytes.extend(0u64.to_le_bytes()); // no entrants
        bytes.extend(2u64.to_le_bytes());
        for row in rows {
            bytes.extend(row);
        }
        bytes.extend(0u64.to_le_bytes()); // no boards
        assert_eq!(competition_hashes(&d)["c1"], sha256(&bytes));

        // A printed club decides nothing; a house pair does.
        let plain = Entrant::new("c1", "1");
        let mut club = plain.clone();
        club.clubs[0] = Some("Spiren BK".into());
        let mut house = plain.clone();
        house.house = true;
        let hash = |e: &Entrant| competition_hash(c, &[e], &[], &[] as &[&BoardResult]);
        assert_eq!(hash(&club), hash(&plain));
        assert_ne!(hash(&house), hash(&plain));
    }

    /// The board rows, encoded into one buffer, are hashed as the documented list:
    /// their count, then each row's bytes in byte order, whatever order they came in
    /// (a shorter row before a longer one it begins, as `Vec<u8>` orders them).
    #[test]
    fn board_rows_are_hashed_as_their_sorted_encodings() {
        let d = dataset();
        let c = &d.competitions[0];
        let row = |board: u32, ns: &str, contract: Option<&str>| BoardResult {
            competition_id: "c1".into(),
            board,
            ns: Some(ns.into()),
            ew: Some("2".into()),
            contract: contract.map(Into::into),
            ..BoardResult::default()
        };
        let rows = [
            row(2, "1", Some("4S")),
            row(1, "1", Some("3NTX")),
            row(1, "1", None),
            row(1, "10", Some("3NT")),
        ];
        let mut encoded: Vec<Vec<u8>> = rows.iter().map(encoding::board).collect();
        encoded.sort();
        // Byte order is not row order: board 1's rows first, the one without a
        // contract (its flag byte 0) before those with one.
        assert_eq!(encoded[0], encoding::board(&rows[2]));
        assert_eq!(encoded[3], encoding::board(&rows[0]));
        let mut bytes = b"bridgehcp competition 2\n".to_vec();
        bytes.extend(encoding::competition(c));
        bytes.extend(0u64.to_le_bytes()); // no entrants
        bytes.extend(0u64.to_le_bytes()); // no results
        bytes.extend(4u64.to_le_bytes());
        for row in &encoded {
            bytes.extend(row);
        }
        let expected = sha256(&bytes);
        let forward: Vec<&BoardResult> = rows.iter().collect();
        let backward: Vec<&BoardResult> = rows.iter().rev().collect();
        assert_eq!(competition_hash(c, &[], &[], &forward), expected);
        assert_eq!(competition_hash(c, &[], &[], &backward), expected);
    }

    /// A worked competition's hash, pinned: the hashes are kept in `applied.parquet` and
    /// compared by later runs, so however the rows are encoded and sorted, the value of
    /// a competition with entrants, results and board rows (nulls, a penalty, rows that
    /// share their first cells and a row that begins another) must not move. The value
    /// was taken when the rows were read cell by cell and sorted as whole encodings.
    #[test]
    fn a_worked_competitions_hash_keeps_its_value() {
        let d = dataset();
        let c = &d.competitions[0];
        let mut entrant = Entrant::new("c1", "1");
        entrant.players[0] = Some(101);
        entrant.players[1] = Some(102);
        let other = Entrant::new("c1", "10");
        let results: Vec<&EntrantResult> = d
            .results
            .iter()
            .filter(|r| r.competition_id == "c1")
            .collect();
        let row = |board: u32, ns: &str, ew: Option<&str>, contract: Option<&str>| BoardResult {
            competition_id: "c1".into(),
            board,
            ns: Some(ns.into()),
            ew: ew.map(Into::into),
            contract: contract.map(Into::into),
            declarer: contract.map(|_| "N".into()),
            tricks: contract.map(|_| 9),
            ns_score: contract.map(|_| 400),
            ..BoardResult::default()
        };
        let mut penalised = row(2, "10", Some("1"), Some("3NT"));
        penalised.ns_penalty = Some(-0.5);
        penalised.room = Some("open".into());
        let rows = [
            row(2, "1", Some("10"), Some("3NT")),
            row(1, "1", Some("10"), None),
            row(1, "1", Some("10"), Some("3NT")),
            row(1, "10", None, Some("3NTX")),
            penalised,
            row(12, "1", Some("10"), Some("4S")),
        ];
        let boards: Vec<&BoardResult> = rows.iter().collect();
        let expected = "f72affbd9df3deb18ecaaa08b201e0dbb45c38b922201603d89340ea5900a74c";
        assert_eq!(
            competition_hash(c, &[&entrant, &other], &results, &boards),
            expected
        );
        let backward: Vec<&BoardResult> = rows.iter().rev().collect();
        assert_eq!(
            competition_hash(c, &[&other, &entrant], &results, &backward),
            expected
        );
        // The same rows read in place from two column sets, a set's rows encoded a run at
        // a time, with a row held as a struct between them.
        let first = OwnedBoards(rows[..3].to_vec());
        let second = OwnedBoards(rows[3..].to_vec());
        fn place(set: &OwnedBoards, row: u32) -> BoardRef<'_> {
            BoardRef::Columns {
                columns: set,
                row,
                board: set.0[row as usize].board,
            }
        }
        let in_place = [
            place(&second, 2),
            place(&first, 0),
            place(&first, 1),
            BoardRef::Row(&rows[2]),
            place(&second, 0),
            place(&second, 1),
        ];
        assert_eq!(
            competition_hash(c, &[&entrant, &other], &results, &in_place),
            expected
        );
    }

    /// Rows sorted by what follows their shared bytes, 24 bytes at a time, are hashed in
    /// the order whole encodings sort in: rows that begin other rows, rows that end
    /// inside the compared bytes (also where the longer one goes on with zeros), equal
    /// rows and a row that is all the shared part.
    #[test]
    fn rows_are_hashed_in_the_order_of_their_whole_bytes() {
        let rows: Vec<Vec<bool>> = [
            "1101",
            "11000",
            "110",
            "1100",
            "1101000000000",
            "11000000000000000000000000000",
            "1100000000000000000000000000",
            "110000000000000000000000000001",
            "110000000000000000000000000000",
            "110000000000000000000000001",
            "11",
            "110100000001",
            "110100000000",
            "1101000000001",
            "11010000000011",
            "1110",
            "1101",
            "110000000000000001",
        ]
        .iter()
        .map(|r| r.bytes().map(|b| b == b'1').collect())
        .collect();
        let smallest = rows
            .iter()
            .map(|r| r.iter().map(|&b| u8::from(b)).collect::<Vec<u8>>())
            .min();
        assert_eq!(smallest, Some(vec![1, 1]));
        let sorted = byte_order_hash(&rows);
        assert_eq!(hashed_rows(&rows), sorted);
        let mut reversed = rows.clone();
        reversed.reverse();
        assert_eq!(hashed_rows(&reversed), sorted);
    }

    /// Rows of flags as [`hash_rows`] hashes them.
    fn hashed_rows(rows: &[Vec<bool>]) -> String {
        let mut hasher = Sha256::new();
        hash_rows(&mut hasher, rows, |row, e| {
            for &bit in row {
                e.flag(bit);
            }
        });
        hex(&hasher.finalize())
    }

    /// What [`hash_rows`] must give for rows of flags: their number, then their bytes
    /// in byte order (a flag is one byte, 0 or 1).
    fn byte_order_hash(rows: &[Vec<bool>]) -> String {
        let mut sorted: Vec<Vec<u8>> = rows
            .iter()
            .map(|r| r.iter().map(|&b| u8::from(b)).collect())
            .collect();
        sorted.sort();
        let mut whole = Sha256::new();
        whole.update((rows.len() as u64).to_le_bytes());
        for row in &sorted {
            whole.update(row);
        }
        hex(&whole.finalize())
    }

    proptest::proptest! {
        /// Rows of any bytes (flags, so that rows share long runs of them) are hashed
        /// in the order their whole bytes sort in, whether they come in no order or in
        /// order by their first bytes (sorted then run by run).
        #[test]
        fn rows_of_any_bytes_are_hashed_in_byte_order(
            mut rows in proptest::collection::vec(
                proptest::collection::vec(proptest::bool::weighted(0.3), 0..40),
                0..60,
            ),
            in_order_of_first in proptest::bool::ANY,
        ) {
            if in_order_of_first {
                rows.sort_by(|a, b| a.iter().take(8).cmp(b.iter().take(8)));
            }
            proptest::prop_assert_eq!(hashed_rows(&rows), byte_order_hash(&rows));
        }
    }

    #[test]
    fn sha256_of_abc_is_the_published_one() {
        // FIPS 180-2, appendix B.1.
        assert_eq!(
            sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    /// A hash in lower-case hex is held as its 32 bytes and written back as it came;
    /// any other text (upper case, short, not hex) is held as the text.
    #[test]
    fn content_hash_keeps_its_text() {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let held = ContentHash::of(abc.to_owned());
        let ContentHash::Sha256(bytes) = &held else {
            panic!("{held:?} is not a digest");
        };
        assert_eq!(bytes[..3], [0xba, 0x78, 0x16]);
        assert_eq!(bytes[31], 0xad);
        assert_eq!(held.text(), abc);
        for text in [
            abc.to_uppercase(),
            "ha".to_owned(),
            format!("{}g", &abc[..63]),
        ] {
            let held = ContentHash::of(text.clone());
            assert_eq!(held, ContentHash::Text(text.clone().into_boxed_str()));
            assert_eq!(held.text(), text);
        }
    }

    fn entry(id: &str, day: u32, hash: &str) -> Entry {
        Entry {
            competition_id: id.into(),
            date: date(day),
            session: 1,
            sha256: Some(hash.into()),
            status: Status::Applied,
        }
    }

    #[test]
    fn compare_names_changed_removed_and_late_competitions() {
        let previous = [entry("a", 1, "x"), entry("b", 2, "y"), entry("c", 3, "z")];
        let same = compare(&previous, &previous);
        assert!(same.is_empty());
        assert_eq!(same.unchanged, 3);

        let current = [entry("a", 1, "x"), entry("b", 2, "Y"), entry("l", 2, "w")];
        let d = compare(&previous, &current);
        assert_eq!(d.changed, ["b"]);
        assert_eq!(d.removed, ["c"]);
        assert_eq!(d.late, ["l"]);
        assert_eq!(d.unchanged, 1);
        assert_eq!(d.describe(), "changed: `b`; added late: `l`; removed: `c`");

        // A competition moved to another date is a change.
        let moved = [entry("a", 4, "x"), entry("b", 2, "y"), entry("c", 3, "z")];
        assert_eq!(compare(&previous, &moved).changed, ["a"]);

        // Hashes of another scheme: matched by id, and a replay all the same.
        let rehashed = [entry("a", 1, "X"), entry("b", 2, "Y"), entry("c", 3, "Z")];
        let d = compare_scheme(&previous, &rehashed, 1);
        assert_eq!((d.unchanged, d.changed.len(), d.is_empty()), (3, 0, false));
        assert_eq!(
            d.describe(),
            "the state's content hashes were taken by another version of bridgehcp, \
             with ledger scheme 1 (this version's is 2)"
        );
        assert!(compare_scheme(&previous, &previous, SCHEME).is_empty());
    }

    fn indexed(id: &str, month: u32, day: u32, hash: Option<&str>) -> Indexed {
        Indexed {
            competition_id: id.into(),
            month: format!("2026-{month:02}"),
            date: NaiveDate::from_ymd_opt(2026, month, day).unwrap_or_default(),
            session: 1,
            sha256: hash.map(str::to_owned),
            entrants: 4,
            results: 4,
            boards: 0,
        }
    }

    fn ledger_of(rows: &[Indexed]) -> Vec<Entry> {
        rows.iter()
            .map(|r| Entry {
                competition_id: r.competition_id.clone(),
                date: r.date,
                session: r.session,
                sha256: r.sha256.clone(),
                status: Status::Applied,
            })
            .collect()
    }

    /// Three months: January and February applied by the previous run, March new.
    fn three_months() -> Vec<Indexed> {
        vec![
            indexed("a", 1, 10, Some("ha")),
            indexed("b", 2, 14, Some("hb")),
            indexed("c", 3, 14, Some("hc")),
            indexed("d", 3, 28, Some("hd")),
        ]
    }

    fn months(plan: &ReadPlan) -> Vec<String> {
        match plan {
            ReadPlan::Months { months, .. } => months.iter().cloned().collect(),
            ReadPlan::Whole(why) => vec![format!("whole: {why}")],
        }
    }

    #[test]
    fn an_unchanged_history_is_read_from_the_months_with_news_only() {
        let index = three_months();
        let previous = ledger_of(&index[..2]);
        let through = (index[1].date, 1, "b");
        let plan = plan_reading(&index, &previous, SCHEME, Some(through), None);
        assert_eq!(months(&plan), ["2026-03"]);
        let ReadPlan::Months { known, .. } = plan else {
            return;
        };
        assert_eq!(known.len(), 2);
        assert_eq!(known["a"], "ha");
        assert_eq!(known["b"], "hb");

        // Up to 14 March: March is read (c is new); d is after `until`.
        let until = NaiveDate::from_ymd_opt(2026, 3, 14);
        let plan = plan_reading(&index, &previous, SCHEME, Some(through), until);
        assert_eq!(months(&plan), ["2026-03"]);
        // Up to February: nothing new, nothing read; every hash from the index.
        let until = NaiveDate::from_ymd_opt(2026, 2, 28);
        let plan = plan_reading(&index, &previous, SCHEME, Some(through), until);
        assert_eq!(months(&plan), Vec::<String>::new());
    }

    #[test]
    fn anything_the_index_cannot_vouch_for_needs_the_whole_dataset() {
        let index = three_months();
        let previous = ledger_of(&index[..2]);
        let through = Some((index[1].date, 1, "b"));
        let whole = |index: &[Indexed], previous: &[Entry], scheme| {
            matches!(
                plan_reading(index, previous, scheme, through, None),
                ReadPlan::Whole(_)
            )
        };
        assert!(!whole(&index, &previous, SCHEME));
        // A corrected competition of January.
        let mut changed = index.clone();
        changed[0].sha256 = Some("ha2".into());
        assert!(whole(&changed, &previous, SCHEME));
        // One moved to another day.
        let mut moved = index.clone();
        moved[0].date = NaiveDate::from_ymd_opt(2026, 1, 11).unwrap_or_default();
        assert!(whole(&moved, &previous, SCHEME));
        // Withdrawn.
        assert!(whole(&index[1..], &previous, SCHEME));
        // Added late, in February.
        let mut late = index.clone();
        late.push(indexed("l", 2, 1, Some("hl")));
        assert!(whole(&late, &previous, SCHEME));
        // Left out by the reader in a month not read.
        let mut left_out = index.clone();
        left_out.push(indexed("q", 1, 20, None));
        let mut previous_q = previous.clone();
        previous_q.push(ledger_of(&left_out[4..])[0].clone());
        assert!(whole(&left_out, &previous_q, SCHEME));
        // Listed in two months.
        let mut twice = index.clone();
        twice.push(indexed("a", 3, 1, None));
        assert!(whole(&twice, &previous, SCHEME));
        // Hashes of another scheme, or nothing applied before.
        assert!(whole(&index, &previous, 1));
        assert!(matches!(
            plan_reading(&index, &[], SCHEME, None, None),
            ReadPlan::Whole(_)
        ));
        // A competition without a hash in a month that is read is the reader's to
        // judge.
        let mut new_left_out = index.clone();
        new_left_out.push(indexed("r", 3, 20, None));
        assert_eq!(
            months(&plan_reading(
                &new_left_out,
                &previous,
                SCHEME,
                through,
                None
            )),
            ["2026-03"]
        );
    }

    #[test]
    fn the_factor_hash_tells_sets_of_one_name_apart() {
        let base = FactorSet::default();
        let mut other = base.clone();
        other.impact *= 2.0;
        assert_eq!(factor_hash(&base), factor_hash(&base.clone()));
        assert_ne!(factor_hash(&base), factor_hash(&other));
    }

    /// A replay is put down to another version by what the state was, not by the words
    /// of its description: a changed competition whose id reads like the message is
    /// still a changed dataset.
    #[test]
    fn another_version_is_told_by_the_state_not_the_text() {
        let changed = Difference {
            changed: vec!["version of bridgehcp".into()],
            ..Difference::default()
        };
        assert!(changed.describe().contains("version of bridgehcp"));
        assert!(!changed.from_another_version());
        let hashed = Difference {
            other_scheme: Some(1),
            ..Difference::default()
        };
        assert!(hashed.from_another_version());
        let partial = Difference {
            partial_history: true,
            ..Difference::default()
        };
        assert!(partial.from_another_version());
    }
}
