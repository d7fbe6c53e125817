//! A federation's entrant rows held compactly until their competitions are scored.
//!
//! A run needs every entrant row while it scores (a competition's board rows may
//! arrive in any month's file), but each competition only once. Held as [`Entrant`]
//! structs, the 2.6 M rows of a 30 000-member, ten-year history were a gigabyte: a
//! struct of some 370 bytes with up to ten owned strings each, most of them the same
//! few thousand names, clubs and entrant numbers. Here every text is interned once
//! (the ids are `u32` into one pool), the players and the origin are plain numbers,
//! and each competition's rows are found by a range into one permutation. A
//! competition's rows are made [`Entrant`]s again, exactly as read, only while that
//! competition is hashed or scored.

use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::{Direction, Entrant, EntrantResult, MemberId, Origin};

/// The id of an absent text or origin.
const NONE: u32 = u32::MAX;

/// One entrant row: texts by id into [`EntrantTable`]'s pool.
#[derive(Debug, Clone, Copy)]
struct Row {
    competition: u32,
    entrant: u32,
    players: [MemberId; 4],
    names: [u32; 4],
    clubs: [u32; 4],
    team: u32,
    file: u32,
    row: u64,
    /// Bit `slot` set: that player slot holds a number.
    present: u8,
    /// 0 none, 1 N/S, 2 E/W.
    direction: u8,
    house: bool,
}

/// What receives a table's rows as a reader checks them: a plain vector, or a compact
/// table ([`EntrantTable`], [`ResultTable`]).
pub trait RowSink<T> {
    /// Makes room for `rows` more, exactly: every row a dataset's files claim, once
    /// (a hint: a damaged footer may claim anything, so nothing fails here).
    fn reserve_exact_rows(&mut self, rows: usize);
    /// Makes room for `rows` more, as a vector grows.
    fn reserve_rows(&mut self, rows: usize);
    fn push_row(&mut self, row: T);
}

impl<T> RowSink<T> for Vec<T> {
    fn reserve_exact_rows(&mut self, rows: usize) {
        let _ = self.try_reserve_exact(rows);
    }

    fn reserve_rows(&mut self, rows: usize) {
        self.reserve(rows);
    }

    fn push_row(&mut self, row: T) {
        self.push(row);
    }
}

/// Entrant rows, compactly, in the order they were read.
#[derive(Debug, Default)]
pub struct EntrantTable {
    rows: Vec<Row>,
    texts: Vec<Box<str>>,
    text_ids: HashMap<Box<str>, u32>,
    files: Vec<Arc<Path>>,
    /// Row positions grouped by competition (in read order within each), once
    /// [`EntrantTable::group`] ran, and each competition's range into it.
    grouped: Vec<u32>,
    ranges: Vec<(u32, u32)>,
}

impl RowSink<Entrant> for EntrantTable {
    fn reserve_exact_rows(&mut self, rows: usize) {
        let _ = self.rows.try_reserve_exact(rows);
    }

    fn reserve_rows(&mut self, rows: usize) {
        self.rows.reserve(rows);
    }

    fn push_row(&mut self, row: Entrant) {
        self.push(&row);
    }
}

impl EntrantTable {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn intern(&mut self, text: &str) -> u32 {
        intern(&mut self.texts, &mut self.text_ids, text)
    }

    fn intern_option(&mut self, text: Option<&str>) -> u32 {
        text.map_or(NONE, |text| self.intern(text))
    }

    /// Adds a row (read order is kept within each competition).
    pub fn push(&mut self, entrant: &Entrant) {
        let mut players = [0; 4];
        let mut present = 0u8;
        for (slot, player) in entrant.players.iter().enumerate() {
            if let Some(id) = player {
                players[slot] = *id;
                present |= 1 << slot;
            }
        }
        let names = [0, 1, 2, 3].map(|slot| self.intern_option(entrant.names[slot].as_deref()));
        let clubs = [0, 1, 2, 3].map(|slot| self.intern_option(entrant.clubs[slot].as_deref()));
        let row = Row {
            competition: self.intern(&entrant.competition_id),
            entrant: self.intern(&entrant.entrant),
            players,
            names,
            clubs,
            team: self.intern_option(entrant.team.as_deref()),
            file: file_id(&mut self.files, entrant.origin.file.as_ref()),
            row: entrant.origin.row.map_or(u64::MAX, |row| row as u64),
            present,
            direction: match entrant.direction {
                None => 0,
                Some(Direction::NS) => 1,
                Some(Direction::EW) => 2,
            },
            house: entrant.house,
        };
        self.rows.push(row);
        self.grouped.clear();
        self.ranges.clear();
    }

    /// Groups the rows by competition, keeping read order within each.
    pub fn group(&mut self) {
        let keys: Vec<u32> = self.rows.iter().map(|row| row.competition).collect();
        (self.grouped, self.ranges) = group_by(&keys, self.texts.len());
        self.rows.shrink_to_fit();
    }

    /// The rows of competition `competition_id`, in read order, as the reader built
    /// them. [`EntrantTable::group`] must have run (else nothing is found).
    pub fn competition(&self, competition_id: &str) -> Vec<Entrant> {
        let Some(&(start, end)) = self.competition_range(competition_id) else {
            return Vec::new();
        };
        self.grouped[start as usize..end as usize]
            .iter()
            .map(|&at| self.entrant(&self.rows[at as usize]))
            .collect()
    }

    fn competition_range(&self, competition_id: &str) -> Option<&(u32, u32)> {
        let id = self.text_ids.get(competition_id)?;
        self.ranges.get(*id as usize)
    }

    fn text(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", |text| text)
    }

    fn text_option(&self, id: u32) -> Option<String> {
        (id != NONE).then(|| self.text(id).to_owned())
    }

    fn entrant(&self, row: &Row) -> Entrant {
        Entrant {
            competition_id: self.text(row.competition).to_owned(),
            entrant: self.text(row.entrant).to_owned(),
            players: [0, 1, 2, 3]
                .map(|slot| (row.present & (1 << slot) != 0).then_some(row.players[slot])),
            names: row.names.map(|id| self.text_option(id)),
            clubs: row.clubs.map(|id| self.text_option(id)),
            team: self.text_option(row.team),
            direction: match row.direction {
                1 => Some(Direction::NS),
                2 => Some(Direction::EW),
                _ => None,
            },
            house: row.house,
            origin: Origin {
                file: self.files.get(row.file as usize).cloned(),
                row: (row.row != u64::MAX).then_some(row.row as usize),
            },
        }
    }
}

/// One result row: texts by id into [`ResultTable`]'s pool.
#[derive(Debug, Clone, Copy)]
struct ResultRow {
    competition: u32,
    entrant: u32,
    opponent: u32,
    boards_played: u32,
    score: f64,
    file: u32,
    row: u64,
}

/// Reported-result rows, compactly, in the order they were read (see
/// [`EntrantTable`], whose texts they share the scheme of).
#[derive(Debug, Default)]
pub struct ResultTable {
    rows: Vec<ResultRow>,
    texts: Vec<Box<str>>,
    text_ids: HashMap<Box<str>, u32>,
    files: Vec<Arc<Path>>,
    grouped: Vec<u32>,
    ranges: Vec<(u32, u32)>,
}

impl RowSink<EntrantResult> for ResultTable {
    fn reserve_exact_rows(&mut self, rows: usize) {
        let _ = self.rows.try_reserve_exact(rows);
    }

    fn reserve_rows(&mut self, rows: usize) {
        self.rows.reserve(rows);
    }

    fn push_row(&mut self, row: EntrantResult) {
        self.push(&row);
    }
}

impl ResultTable {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds a row (read order is kept within each competition).
    pub fn push(&mut self, result: &EntrantResult) {
        let row = ResultRow {
            competition: intern(&mut self.texts, &mut self.text_ids, &result.competition_id),
            entrant: intern(&mut self.texts, &mut self.text_ids, &result.entrant),
            opponent: result.opponent.as_deref().map_or(NONE, |text| {
                intern(&mut self.texts, &mut self.text_ids, text)
            }),
            boards_played: result.boards_played,
            score: result.score,
            file: file_id(&mut self.files, result.origin.file.as_ref()),
            row: result.origin.row.map_or(u64::MAX, |row| row as u64),
        };
        self.rows.push(row);
        self.grouped.clear();
        self.ranges.clear();
    }

    /// Groups the rows by competition, keeping read order within each.
    pub fn group(&mut self) {
        let keys: Vec<u32> = self.rows.iter().map(|row| row.competition).collect();
        (self.grouped, self.ranges) = group_by(&keys, self.texts.len());
        self.rows.shrink_to_fit();
    }

    /// The rows of competition `competition_id`, in read order, as the reader built
    /// them. [`ResultTable::group`] must have run (else nothing is found).
    pub fn competition(&self, competition_id: &str) -> Vec<EntrantResult> {
        let Some(&(start, end)) = self
            .text_ids
            .get(competition_id)
            .and_then(|id| self.ranges.get(*id as usize))
        else {
            return Vec::new();
        };
        let text = |id: u32| self.texts.get(id as usize).map_or("", |text| text);
        self.grouped[start as usize..end as usize]
            .iter()
            .map(|&at| {
                let row = &self.rows[at as usize];
                EntrantResult {
                    competition_id: text(row.competition).to_owned(),
                    entrant: text(row.entrant).to_owned(),
                    boards_played: row.boards_played,
                    score: row.score,
                    opponent: (row.opponent != NONE).then(|| text(row.opponent).to_owned()),
                    origin: Origin {
                        file: self.files.get(row.file as usize).cloned(),
                        row: (row.row != u64::MAX).then_some(row.row as usize),
                    },
                }
            })
            .collect()
    }
}

fn intern(texts: &mut Vec<Box<str>>, ids: &mut HashMap<Box<str>, u32>, text: &str) -> u32 {
    if let Some(&id) = ids.get(text) {
        return id;
    }
    let id = texts.len() as u32;
    texts.push(text.into());
    ids.insert(text.into(), id);
    id
}

fn file_id(files: &mut Vec<Arc<Path>>, file: Option<&Arc<Path>>) -> u32 {
    let Some(file) = file else { return NONE };
    // Rows come a file at a time: the last file is almost always the one.
    if let Some(at) = files.iter().rposition(|f| Arc::ptr_eq(f, file)) {
        return at as u32;
    }
    files.push(Arc::clone(file));
    (files.len() - 1) as u32
}

/// Positions `0..keys.len()` grouped by key (of `0..n`), each group in position order,
/// and each key's range into them.
fn group_by(keys: &[u32], n: usize) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut counts = vec![0u32; n + 1];
    for &key in keys {
        counts[key as usize + 1] += 1;
    }
    for at in 1..counts.len() {
        counts[at] += counts[at - 1];
    }
    let ranges = (0..n).map(|id| (counts[id], counts[id + 1])).collect();
    let mut next: Vec<u32> = counts[..n].to_vec();
    let mut grouped = vec![0; keys.len()];
    for (at, &key) in keys.iter().enumerate() {
        let slot = &mut next[key as usize];
        grouped[*slot as usize] = at as u32;
        *slot += 1;
    }
    (grouped, ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entrant(competition: &str, name: &str, row: usize, file: &Arc<Path>) -> Entrant {
        Entrant {
            origin: Origin::new(file, row),
            ..Entrant::new(competition, name)
        }
    }

    /// Rows of two competitions read interleaved, over two files, come back per
    /// competition in read order, every field as it was read: numbers present and
    /// absent (a slot holding member 0 is not an empty slot), names, clubs, a team, a
    /// direction, the house flag, and an origin without a file or a row.
    #[test]
    fn a_competition_gets_back_its_rows_as_read() {
        let one: Arc<Path> = Arc::from(Path::new("entrants/month=2026-01/part-0.parquet"));
        let two: Arc<Path> = Arc::from(Path::new("entrants/month=2026-02/part-0.parquet"));
        let mut a1 = entrant("a", "1", 1, &one);
        a1.players = [Some(0), None, Some(17), None];
        a1.names = [Some("Ann".into()), None, Some("Bo".into()), None];
        a1.clubs = [Some("BK Lyx".into()), Some(String::new()), None, None];
        a1.direction = Some(Direction::NS);
        let mut b1 = entrant("b", "1", 2, &one);
        b1.team = Some("Lag 1".into());
        b1.house = true;
        b1.direction = Some(Direction::EW);
        let mut a2 = entrant("a", "10", 3, &one);
        a2.names = [Some("Bo".into()), Some("Ann".into()), None, None];
        let mut a3 = entrant("a", "2", 1, &two);
        a3.origin = Origin::default();
        let rows = [a1.clone(), b1.clone(), a2.clone(), a3.clone()];

        let mut table = EntrantTable::default();
        for row in &rows {
            table.push_row(row.clone());
        }
        table.group();
        assert_eq!(table.len(), 4);
        assert_eq!(table.competition("a"), vec![a1, a2, a3]);
        assert_eq!(table.competition("b"), vec![b1]);
        assert_eq!(table.competition("c"), Vec::<Entrant>::new());
        // An entrant named like a competition is not one.
        assert_eq!(table.competition("1"), Vec::<Entrant>::new());
    }

    /// Ungrouped rows are found nowhere rather than half-grouped.
    #[test]
    fn rows_pushed_after_grouping_wait_for_the_next_grouping() {
        let file: Arc<Path> = Arc::from(Path::new("entrants.parquet"));
        let mut table = EntrantTable::default();
        table.push(&entrant("a", "1", 1, &file));
        table.group();
        table.push(&entrant("a", "2", 2, &file));
        assert!(table.competition("a").is_empty());
        table.group();
        assert_eq!(table.competition("a").len(), 2);
    }

    /// Result rows of two competitions read interleaved come back per competition in
    /// read order: score, boards played, an opponent present and absent, the origin.
    #[test]
    fn a_competition_gets_back_its_results_as_read() {
        let file: Arc<Path> = Arc::from(Path::new("results/month=2026-01/part-0.parquet"));
        let result = |competition: &str, entrant: &str, score: f64, row: usize| EntrantResult {
            competition_id: competition.into(),
            entrant: entrant.into(),
            boards_played: 24,
            score,
            opponent: None,
            origin: Origin::new(&file, row),
        };
        let mut a1 = result("a", "1", 57.25, 1);
        a1.opponent = Some("2".into());
        let b1 = result("b", "1", -3.0, 2);
        let mut a2 = result("a", "2", 42.75, 3);
        a2.origin = Origin::default();
        a2.boards_played = 22;
        let mut table = ResultTable::default();
        for row in [&a1, &b1, &a2] {
            table.push_row(row.clone());
        }
        table.group();
        assert_eq!(table.len(), 3);
        assert_eq!(table.competition("a"), vec![a1, a2]);
        assert_eq!(table.competition("b"), vec![b1]);
        assert!(table.competition("2").is_empty());
    }
}
