//! A federation's entrant rows held compactly until their competitions are scored.
//!
//! A run needs every entrant row while it scores (a competition's board rows may
//! arrive in any month's file), but each competition only once. Held as [`Entrant`]
//! structs, the 2.6 M rows of a 30 000-member, ten-year history were a gigabyte: a
//! struct of some 370 bytes with up to ten owned strings each, most of them the same
//! few thousand names, clubs and entrant numbers. Here every text is interned once
//! (the ids are `u32` into one pool), the players and the origin are plain numbers,
//! and each competition's rows are found by a range into one permutation. The numbers
//! are kept in as few bytes as each needs (about 25 bytes an entrant row instead of
//! an 80-byte struct: at 90 000 members the history's 7.7 M entrant rows were 0.6 GB).
//! A competition's rows are made [`Entrant`]s again, exactly as read, only while that
//! competition is hashed or scored.

use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rustc_hash::FxHashMap as HashMap;

use super::{Direction, Entrant, EntrantResult, MemberId, Origin};

/// The id of an absent text or origin.
const NONE: u32 = u32::MAX;

/// A block of rows, locked (a reader that panicked left it as it was).
fn lock<T>(block: &Mutex<T>) -> MutexGuard<'_, T> {
    block.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One entrant row: texts by id into its table's pool. A table keeps it encoded
/// ([`CompactRow::encode`]) and makes it again when its competition is read.
#[derive(Debug, Clone, Copy)]
pub struct EntrantRow {
    competition: u32,
    entrant: u32,
    /// The players' numbers by id into the pool (an `i64` each was a third of a row).
    players: [u32; 4],
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
    /// Makes room for the ids of `competitions` competitions, where the sink keeps
    /// them apart from its rows.
    fn reserve_competitions(&mut self, _competitions: usize) {}
    fn push_row(&mut self, row: T);
    /// [`RowSink::push_row`] from where the row lies: a vector takes it (leaving
    /// `None`), a compact table reads it and leaves it (so that its texts can be used
    /// again for the next row, and it is dropped where it was made).
    fn push_row_from(&mut self, slot: &mut Option<T>) {
        if let Some(row) = slot.take() {
            self.push_row(row);
        }
    }
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

/// A row held compactly: texts as ids into a [`Pool`], turned back into the reader's
/// struct, exactly as read, when its competition is wanted.
pub trait CompactRow: Sized + Copy {
    /// The struct the reader builds and the scoring reads.
    type Full;
    fn pack(full: &Self::Full, pool: &mut Pool) -> Self;
    fn unpack(&self, pool: &Pool) -> Self::Full;
    /// The id of the row's competition in the pool.
    fn competition(&self) -> u32;
    /// Appends the row's numbers but its competition's, each in as few bytes as it
    /// needs: most ids and row numbers fit in one to three bytes, not four or eight.
    fn encode(&self, out: &mut Vec<u8>);
    /// The row [`CompactRow::encode`] wrote at the start of `bytes`, of competition
    /// `competition`.
    fn decode(bytes: &[u8], competition: u32) -> Self;
}

/// The texts and source files a compact table's rows refer to by number.
#[derive(Debug, Default)]
pub struct Pool {
    /// Each text once, shared by the list and the map (one allocation a text).
    texts: Vec<Arc<str>>,
    text_ids: HashMap<Arc<str>, u32>,
    files: Vec<Arc<Path>>,
    /// Each player number once: a federation's rows name its members over and over.
    members: Vec<MemberId>,
    member_ids: HashMap<MemberId, u32>,
    /// The competition of the last row packed: a competition's rows come together.
    last_competition: Option<u32>,
}

impl Pool {
    /// [`Pool::intern`] for a row's competition id.
    fn intern_competition(&mut self, id: &str) -> u32 {
        match self.last_competition {
            Some(last) if self.text(last) == id => last,
            _ => {
                let last = self.intern(id);
                self.last_competition = Some(last);
                last
            }
        }
    }

    fn intern(&mut self, text: &str) -> u32 {
        if self.text_ids.is_empty() && !self.texts.is_empty() {
            // Let go of when the table was grouped ([`Pool::forget_lookups`]).
            self.text_ids = (self.texts.iter().enumerate())
                .map(|(id, text)| (Arc::clone(text), id as u32))
                .collect();
        }
        if let Some(&id) = self.text_ids.get(text) {
            return id;
        }
        let id = self.texts.len() as u32;
        let text: Arc<str> = Arc::from(text);
        self.texts.push(Arc::clone(&text));
        self.text_ids.insert(text, id);
        id
    }

    fn intern_member(&mut self, member: MemberId) -> u32 {
        if let Some(&id) = self.member_ids.get(&member) {
            return id;
        }
        let id = self.members.len() as u32;
        self.members.push(member);
        self.member_ids.insert(member, id);
        id
    }

    /// Lets go of the map from each text to its id, which only packing needs (a
    /// federation's million texts: some fifty megabytes of table); a text packed
    /// later makes it again.
    fn forget_lookups(&mut self) {
        self.text_ids = HashMap::default();
    }

    fn member(&self, id: u32) -> MemberId {
        self.members.get(id as usize).copied().unwrap_or_default()
    }

    fn intern_option(&mut self, text: Option<&str>) -> u32 {
        text.map_or(NONE, |text| self.intern(text))
    }

    fn text(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", |text| text)
    }

    fn text_option(&self, id: u32) -> Option<String> {
        (id != NONE).then(|| self.text(id).to_owned())
    }

    /// The origin's file by number, and its row (`u64::MAX`: none).
    fn pack_origin(&mut self, origin: &Origin) -> (u32, u64) {
        let file = origin.file.as_ref().map_or(NONE, |file| {
            // Rows come a file at a time: the last file is almost always the one.
            if let Some(at) = self.files.iter().rposition(|f| Arc::ptr_eq(f, file)) {
                return at as u32;
            }
            self.files.push(Arc::clone(file));
            (self.files.len() - 1) as u32
        });
        (file, origin.row.map_or(u64::MAX, |row| row as u64))
    }

    fn unpack_origin(&self, file: u32, row: u64) -> Origin {
        Origin {
            file: self.files.get(file as usize).cloned(),
            row: (row != u64::MAX).then_some(row as usize),
        }
    }
}

/// Rows of one table, compactly, in the order they were read, found per competition.
///
/// Each row is kept encoded ([`CompactRow::encode`]: about 25 bytes an entrant row
/// rather than its 80-byte struct), found by its place through its block's offsets,
/// and its competition by the run of rows it was read in: a federation's history is
/// millions of rows, and a run holds them all while it scores. A run from scratch
/// scores each competition once, month after month, so it releases each competition's
/// rows once scored ([`CompactTable::release`]), and a block of rows is let go of
/// when every competition with a row in it has been released: the rows held are then
/// those of the months still to score, not the whole history's.
#[derive(Debug)]
pub struct CompactTable<R> {
    /// The rows, encoded one after another in read order, [`BLOCK_ROWS`] a block;
    /// `None` once released.
    blocks: Vec<Mutex<Option<Box<Block>>>>,
    /// How many rows were pushed.
    rows: usize,
    /// The rows the files announced and not yet pushed: room made for them, a block
    /// at a time.
    announced: usize,
    /// The runs of rows of one competition, in read order: the competition's pool id
    /// and the place of the run's first row.
    runs: Vec<(u32, u32)>,
    pool: Pool,
    /// Row positions grouped by competition (in read order within each), once
    /// [`CompactTable::group`] ran, and each competition's range into it. Empty when
    /// the rows were read a competition at a time, in the order the competitions were
    /// first read (a dataset in month files, or written by this program): a row's
    /// place is then its position, and a list of every position (four bytes a row)
    /// would say nothing.
    grouped: Vec<u32>,
    ranges: Vec<(u32, u32)>,
    /// Once grouped: the pool ids of the competitions with rows, sorted by their
    /// texts, where a competition is looked up by its id.
    by_text: Vec<u32>,
    /// Per block, once grouped: how many competitions with a row in it are not
    /// released yet.
    pending: Vec<AtomicU32>,
    /// Once grouped, a bit per competition (by pool id): released.
    released: Vec<AtomicU64>,
    _rows: std::marker::PhantomData<R>,
}

/// [`BLOCK_ROWS`] rows of a [`CompactTable`], encoded.
#[derive(Debug, Default)]
struct Block {
    bytes: Vec<u8>,
    /// Where each row starts in `bytes`.
    offsets: Vec<u32>,
}

/// The rows of a block of a [`CompactTable`]: a row's place within its block's
/// bytes fits in 32 bits whatever the table's size, and a block (a megabyte or two)
/// is what a release lets go of.
const BLOCK_ROWS: usize = 1 << 16;

impl<R> Default for CompactTable<R> {
    fn default() -> Self {
        CompactTable {
            blocks: Vec::new(),
            rows: 0,
            announced: 0,
            runs: Vec::new(),
            pool: Pool::default(),
            grouped: Vec::new(),
            ranges: Vec::new(),
            by_text: Vec::new(),
            pending: Vec::new(),
            released: Vec::new(),
            _rows: std::marker::PhantomData,
        }
    }
}

/// Entrant rows, compactly.
pub type EntrantTable = CompactTable<EntrantRow>;

/// Reported-result rows, compactly.
pub type ResultTable = CompactTable<ResultRow>;

impl<R: CompactRow> RowSink<R::Full> for CompactTable<R> {
    fn reserve_exact_rows(&mut self, rows: usize) {
        self.announced = self.announced.saturating_add(rows);
        let _ = self.blocks.try_reserve_exact(rows.div_ceil(BLOCK_ROWS));
    }

    /// Blocks are made with room for their rows: nothing to do.
    fn reserve_rows(&mut self, _rows: usize) {}

    /// Every competition's id is a text of the pool: a federation's quarter of a
    /// million, which a growing map would hash over again each time it doubled.
    fn reserve_competitions(&mut self, competitions: usize) {
        let _ = self.pool.texts.try_reserve(competitions);
        let _ = self.pool.text_ids.try_reserve(competitions);
        let _ = self.runs.try_reserve(competitions);
    }

    fn push_row(&mut self, row: R::Full) {
        self.push(&row);
    }

    fn push_row_from(&mut self, slot: &mut Option<R::Full>) {
        if let Some(row) = slot {
            self.push(row);
        }
    }
}

/// The bytes reserved a row in a new block (untouched, the room costs no memory).
const TYPICAL_ROW_BYTES: usize = 32;

impl<R: CompactRow> CompactTable<R> {
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Adds a row (read order is kept within each competition).
    pub fn push(&mut self, full: &R::Full) {
        let row = R::pack(full, &mut self.pool);
        let at = self.rows;
        if at % BLOCK_ROWS == 0 {
            // Room for the rows announced, a block's at most.
            let rows = self.announced.clamp(1, BLOCK_ROWS);
            self.blocks.push(Mutex::new(Some(Box::new(Block {
                bytes: Vec::with_capacity(rows * TYPICAL_ROW_BYTES),
                offsets: Vec::with_capacity(rows),
            }))));
        }
        self.announced = self.announced.saturating_sub(1);
        let block = self.blocks.last_mut().map(|block| {
            block
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert_with(Box::default)
        });
        if let Some(block) = block {
            block.offsets.push(block.bytes.len() as u32);
            row.encode(&mut block.bytes);
        }
        self.rows += 1;
        let competition = row.competition();
        if self
            .runs
            .last()
            .is_none_or(|&(last, _)| last != competition)
        {
            self.runs.push((competition, at as u32));
        }
        self.grouped.clear();
        self.ranges.clear();
        self.by_text.clear();
        self.pending.clear();
        self.released.clear();
    }

    /// The row at place `at`, of competition `competition` (as grouped).
    fn row(&self, at: u32, competition: u32) -> R {
        self.with_row_bytes(at, |bytes| R::decode(bytes, competition))
    }

    /// `read` of the bytes from the start of the row at place `at` on.
    fn with_row_bytes<T>(&self, at: u32, read: impl FnOnce(&[u8]) -> T) -> T {
        let at = at as usize;
        match self.blocks.get(at / BLOCK_ROWS) {
            Some(block) => read(Self::bytes_in(&lock(block), at)),
            None => read(&[]),
        }
    }

    /// The bytes of `block` from the start of the row at place `at` on.
    fn bytes_in(block: &Option<Box<Block>>, at: usize) -> &[u8] {
        debug_assert!(block.is_some(), "a released row was read again");
        block
            .as_deref()
            .and_then(|block| {
                let start = *block.offsets.get(at % BLOCK_ROWS)?;
                block.bytes.get(start as usize..)
            })
            .unwrap_or_default()
    }

    /// The rows at `places`, each given to `each`; a block is locked once for its
    /// run of places.
    fn each_at(&self, places: Places<'_>, competition: u32, mut each: impl FnMut(R)) {
        let mut held: Option<(usize, MutexGuard<'_, Option<Box<Block>>>)> = None;
        for at in places.iter() {
            let number = at as usize / BLOCK_ROWS;
            if held.as_ref().is_none_or(|(locked, _)| *locked != number) {
                // One block locked at a time.
                drop(held.take());
                held = self.blocks.get(number).map(|block| (number, lock(block)));
            }
            let bytes = held
                .as_ref()
                .map_or(&[][..], |(_, block)| Self::bytes_in(block, at as usize));
            each(R::decode(bytes, competition));
        }
    }

    /// The blocks the rows at `places` lie in, each once.
    fn blocks_of(places: Places<'_>) -> impl Iterator<Item = usize> + '_ {
        let mut last = None;
        places.iter().filter_map(move |at| {
            let block = at as usize / BLOCK_ROWS;
            (last.replace(block) != Some(block)).then_some(block)
        })
    }

    /// Whether any competition was released ([`CompactTable::release`]).
    pub fn any_released(&self) -> bool {
        self.released
            .iter()
            .any(|flags| flags.load(Ordering::Relaxed) != 0)
    }

    /// How many blocks of rows are still held (not released).
    pub fn blocks_held(&self) -> usize {
        self.blocks
            .iter()
            .filter(|block| lock(block).is_some())
            .count()
    }

    /// Lets go of the rows of a competition [`CompactTable::find_competitions`] found,
    /// which nobody reads again: a block whose competitions are all released is freed.
    /// Releasing a competition twice, or one of a table not grouped, does nothing.
    pub fn release(&self, found: Found) {
        let Some(id) = found.0 else {
            return;
        };
        let bit = 1u64 << (id % 64);
        let Some(flags) = self.released.get(id as usize / 64) else {
            return;
        };
        if flags.fetch_or(bit, Ordering::Relaxed) & bit != 0 {
            return;
        }
        for number in Self::blocks_of(self.grouped_of(Some(id))) {
            let last = self
                .pending
                .get(number)
                .is_some_and(|pending| pending.fetch_sub(1, Ordering::AcqRel) == 1);
            if let (true, Some(block)) = (last, self.blocks.get(number)) {
                let freed = lock(block).take();
                drop(freed);
            }
        }
    }

    /// Groups the rows by competition, keeping read order within each.
    pub fn group(&mut self) {
        let mut keys: Vec<u32> = Vec::with_capacity(self.rows);
        for (at, &(competition, start)) in self.runs.iter().enumerate() {
            let end = self.runs.get(at + 1).map_or(self.rows, |r| r.1 as usize);
            keys.extend(std::iter::repeat_n(competition, end - start as usize));
        }
        (self.grouped, self.ranges) = group_by(&keys, self.pool.texts.len());
        if (self.grouped.iter().enumerate()).all(|(at, &place)| place as usize == at) {
            self.grouped = Vec::new();
        }
        self.runs.shrink_to_fit();
        let mut pending = vec![0u32; self.blocks.len()];
        for id in 0..self.ranges.len() {
            for number in Self::blocks_of(self.grouped_of(Some(id as u32))) {
                if let Some(count) = pending.get_mut(number) {
                    *count += 1;
                }
            }
        }
        self.pending = pending.into_iter().map(AtomicU32::new).collect();
        let mut by_text: Vec<u32> = (self.ranges.iter().enumerate())
            .filter(|(_, &(start, end))| start < end)
            .map(|(id, _)| id as u32)
            .collect();
        by_text.sort_unstable_by(|&a, &b| self.pool.text(a).cmp(self.pool.text(b)));
        self.by_text = by_text;
        self.pool.forget_lookups();
        self.released = (0..self.ranges.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
    }

    /// The rows of competition `competition_id`, in read order, as the reader built
    /// them. [`CompactTable::group`] must have run (else nothing is found).
    pub fn competition(&self, competition_id: &str) -> Vec<R::Full> {
        self.found_competition(Found(self.id_of(competition_id)))
    }

    /// The pool id of the competition `competition_id`: by the texts' map while the
    /// table is packed, by the sorted competitions once grouped.
    fn id_of(&self, competition_id: &str) -> Option<u32> {
        if !self.pool.text_ids.is_empty() {
            return self.pool.text_ids.get(competition_id).copied();
        }
        (self.by_text)
            .binary_search_by(|&id| self.pool.text(id).cmp(competition_id))
            .ok()
            .and_then(|at| self.by_text.get(at).copied())
    }

    /// [`CompactTable::competition`] of a competition [`CompactTable::find_competitions`]
    /// found.
    pub fn found_competition(&self, found: Found) -> Vec<R::Full> {
        let Some(competition) = found.0 else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        self.each_at(self.grouped_of(found.0), competition, |row| {
            rows.push(row.unpack(&self.pool));
        });
        rows
    }

    /// Every row, a competition at a time (in the order the competitions were first
    /// read), each competition's rows in read order, as the reader built them: one row
    /// made at a time, never the whole table. [`CompactTable::group`] must have run.
    pub fn each_row(&self) -> impl Iterator<Item = R::Full> + '_ {
        self.each_grouped_row().map(|row| row.unpack(&self.pool))
    }

    /// Every row still encoded as the table keeps it, in [`CompactTable::each_row`]'s
    /// order: the competitions by pool id (the order they were first read, as a text's
    /// id is its place in the pool), which is the order of `grouped`.
    fn each_grouped_row(&self) -> impl Iterator<Item = R> + '_ {
        self.ranges
            .iter()
            .enumerate()
            .flat_map(move |(competition, &(start, end))| {
                self.places(start, end)
                    .iter()
                    .map(move |at| self.row(at, competition as u32))
            })
    }

    /// The places in `grouped` of the rows of the competition with pool id `id`.
    fn grouped_of(&self, id: Option<u32>) -> Places<'_> {
        id.and_then(|id| self.ranges.get(id as usize))
            .map_or(Places::NONE, |&(start, end)| self.places(start, end))
    }

    /// The places `start..end` of `grouped`.
    fn places(&self, start: u32, end: u32) -> Places<'_> {
        Places {
            grouped: (!self.grouped.is_empty()).then_some(self.grouped.as_slice()),
            start,
            end,
        }
    }

    /// Finds each of `competition_ids`, in their order, for
    /// [`CompactTable::found_competition`]. A federation's competitions table lists its
    /// competitions in the order their entrant and result rows come, so each id is
    /// first compared with the competition read next after the last one found; only
    /// where the two orders part is an id looked up among all of the table's texts (a
    /// quarter of a million lookups in a map of millions of texts, each a miss of the
    /// caches, were a tenth of the writing of the result sheet, and as much of scoring's
    /// unpacking of rows).
    pub fn find_competitions<'i>(
        &self,
        competition_ids: impl IntoIterator<Item = &'i str>,
    ) -> Vec<Found> {
        // The pool's ids of the competitions, in the order they were first read (a
        // text's id is its place in the pool).
        let read: Vec<u32> = self
            .ranges
            .iter()
            .enumerate()
            .filter(|(_, &(start, end))| start < end)
            .map(|(id, _)| id as u32)
            .collect();
        let mut next = 0;
        competition_ids
            .into_iter()
            .map(|competition_id| {
                let id = match read.get(next) {
                    Some(&id) if self.pool.text(id) == competition_id => {
                        next += 1;
                        Some(id)
                    }
                    _ => {
                        let id = self.id_of(competition_id);
                        if let Some(id) = id {
                            next = read.partition_point(|&other| other <= id);
                        }
                        id
                    }
                };
                Found(id)
            })
            .collect()
    }
}

/// The places of a competition's rows: `start..end` of the table's grouped positions,
/// or, when the table keeps none (its rows already grouped), the positions themselves.
#[derive(Debug, Clone, Copy)]
struct Places<'t> {
    grouped: Option<&'t [u32]>,
    start: u32,
    end: u32,
}

impl<'t> Places<'t> {
    const NONE: Places<'static> = Places {
        grouped: None,
        start: 0,
        end: 0,
    };

    /// The rows' positions, in read order.
    fn iter(self) -> impl DoubleEndedIterator<Item = u32> + 't {
        (self.start..self.end).filter_map(move |at| match self.grouped {
            Some(grouped) => grouped.get(at as usize).copied(),
            None => Some(at),
        })
    }
}

/// A competition as [`CompactTable::find_competitions`] found it (or did not) among a
/// table's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found(Option<u32>);

impl CompactRow for EntrantRow {
    type Full = Entrant;

    fn pack(entrant: &Entrant, pool: &mut Pool) -> EntrantRow {
        let mut players = [0; 4];
        let mut present = 0u8;
        for (slot, player) in entrant.players.iter().enumerate() {
            if let Some(id) = player {
                players[slot] = pool.intern_member(*id);
                present |= 1 << slot;
            }
        }
        let names = [0, 1, 2, 3].map(|slot| pool.intern_option(entrant.names[slot].as_deref()));
        let clubs = [0, 1, 2, 3].map(|slot| pool.intern_option(entrant.clubs[slot].as_deref()));
        let (file, row) = pool.pack_origin(&entrant.origin);
        EntrantRow {
            competition: pool.intern_competition(&entrant.competition_id),
            entrant: pool.intern(&entrant.entrant),
            players,
            names,
            clubs,
            team: pool.intern_option(entrant.team.as_deref()),
            file,
            row,
            present,
            direction: match entrant.direction {
                None => 0,
                Some(Direction::NS) => 1,
                Some(Direction::EW) => 2,
            },
            house: entrant.house,
        }
    }

    fn unpack(&self, pool: &Pool) -> Entrant {
        Entrant {
            competition_id: pool.text(self.competition).to_owned(),
            entrant: pool.text(self.entrant).to_owned(),
            players: [0, 1, 2, 3].map(|slot| {
                (self.present & (1 << slot) != 0).then(|| pool.member(self.players[slot]))
            }),
            names: self.names.map(|id| pool.text_option(id)),
            clubs: self.clubs.map(|id| pool.text_option(id)),
            team: pool.text_option(self.team),
            direction: match self.direction {
                1 => Some(Direction::NS),
                2 => Some(Direction::EW),
                _ => None,
            },
            house: self.house,
            origin: pool.unpack_origin(self.file, self.row),
        }
    }

    fn competition(&self) -> u32 {
        self.competition
    }

    fn encode(&self, out: &mut Vec<u8>) {
        write_number(out, u64::from(self.entrant));
        out.push(self.present | (self.direction << 4) | (u8::from(self.house) << 6));
        for (slot, &player) in self.players.iter().enumerate() {
            if self.present & (1 << slot) != 0 {
                write_number(out, u64::from(player));
            }
        }
        for id in self
            .names
            .iter()
            .chain(&self.clubs)
            .chain([&self.team, &self.file])
        {
            write_id(out, *id);
        }
        write_number(out, self.row.wrapping_add(1));
    }

    fn decode(bytes: &[u8], competition: u32) -> EntrantRow {
        let mut read = Read::new(bytes);
        let entrant = read.number() as u32;
        let flags = read.byte();
        let present = flags & 0x0f;
        let players = [0, 1, 2, 3].map(|slot| {
            if present & (1 << slot) != 0 {
                read.number() as u32
            } else {
                0
            }
        });
        let names = [(); 4].map(|()| read.id());
        let clubs = [(); 4].map(|()| read.id());
        let team = read.id();
        let file = read.id();
        EntrantRow {
            competition,
            entrant,
            players,
            names,
            clubs,
            team,
            file,
            row: read.number().wrapping_sub(1),
            present,
            direction: (flags >> 4) & 0x03,
            house: flags & 0x40 != 0,
        }
    }
}

/// Writes `value` seven bits a byte, the low bits first, the high bit of each byte
/// but the last set.
fn write_number(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Writes a pool id that may be [`NONE`] (written as 0, every other id one more).
fn write_id(out: &mut Vec<u8>, id: u32) {
    write_number(out, u64::from(id.wrapping_add(1)));
}

/// Reads what [`write_number`] and [`write_id`] wrote, in order. The bytes are the
/// table's own: past their end it reads zeros rather than failing.
struct Read<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Read<'b> {
    fn new(bytes: &'b [u8]) -> Self {
        Read { bytes, at: 0 }
    }

    fn byte(&mut self) -> u8 {
        let byte = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte
    }

    fn number(&mut self) -> u64 {
        let mut value = 0u64;
        let mut shift = 0;
        loop {
            let byte = self.byte();
            value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                return value;
            }
            shift += 7;
        }
    }

    fn id(&mut self) -> u32 {
        (self.number() as u32).wrapping_sub(1)
    }

    fn eight(&mut self) -> [u8; 8] {
        [(); 8].map(|()| self.byte())
    }
}

/// An entrant row's number and players, borrowed from its table: what a line of the
/// result sheet prints of it. Millions of lines are printed, and an [`Entrant`] made
/// for each (a dozen strings) was most of the cost of looking their names up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntrantPlayers<'a> {
    pub entrant: &'a str,
    pub players: [Option<MemberId>; 4],
    pub names: [Option<&'a str>; 4],
}

/// The entrant rows of one competition in an [`EntrantTable`], in read order, found
/// once: the result sheet looks a competition's entrants up a line at a time.
#[derive(Debug, Clone, Copy)]
pub struct CompetitionRows<'t> {
    table: &'t EntrantTable,
    /// Positions of the rows in the table.
    at: Places<'t>,
    /// The competition's id in the table's pool.
    competition: u32,
}

impl<'t> CompetitionRows<'t> {
    fn players_of(self, row: &EntrantRow) -> EntrantPlayers<'t> {
        let pool = &self.table.pool;
        EntrantPlayers {
            entrant: pool.text(row.entrant),
            players: [0, 1, 2, 3].map(|slot| {
                (row.present & (1 << slot) != 0).then(|| pool.member(row.players[slot]))
            }),
            names: row.names.map(|id| (id != NONE).then(|| pool.text(id))),
        }
    }

    fn rows(self) -> impl DoubleEndedIterator<Item = EntrantRow> + 't {
        let table = self.table;
        let competition = self.competition;
        self.at.iter().map(move |at| table.row(at, competition))
    }

    /// The number and players of each row, in read order.
    pub fn players(self) -> impl Iterator<Item = EntrantPlayers<'t>> {
        self.rows().map(move |row| self.players_of(&row))
    }

    /// The number and players of the last row of `entrant` (of two rows for one
    /// entrant the last counts). Only the rows' numbers are compared (each the first
    /// thing a row's bytes hold): a competition's numbers are the same few texts in
    /// every competition, and its players' texts are read for the one row found.
    pub fn find(self, entrant: &str) -> Option<EntrantPlayers<'t>> {
        let table = self.table;
        let pool = &table.pool;
        self.at
            .iter()
            .rev()
            .find(|&at| {
                let number = table.with_row_bytes(at, |bytes| Read::new(bytes).number());
                pool.text(number as u32) == entrant
            })
            .map(|at| self.players_of(&table.row(at, self.competition)))
    }
}

impl EntrantTable {
    /// The competition and players of every row, as [`CompactTable::each_row`] orders
    /// them, without making the rows structs.
    pub fn each_players(&self) -> impl Iterator<Item = (&str, [Option<MemberId>; 4])> + '_ {
        self.each_grouped_row().map(|row| {
            let players = [0, 1, 2, 3].map(|slot| {
                (row.present & (1 << slot) != 0).then(|| self.pool.member(row.players[slot]))
            });
            (self.pool.text(row.competition), players)
        })
    }

    /// The rows of `competition_id`, found by its text.
    /// [`CompactTable::group`] must have run (else nothing is found).
    pub fn competition_rows(&self, competition_id: &str) -> CompetitionRows<'_> {
        let id = self.id_of(competition_id);
        self.rows_of_id(id)
    }

    fn rows_of_id(&self, id: Option<u32>) -> CompetitionRows<'_> {
        CompetitionRows {
            table: self,
            at: self.grouped_of(id),
            competition: id.unwrap_or(NONE),
        }
    }

    /// [`EntrantTable::competition_rows`] of each of `competition_ids`, in their order
    /// (found as [`CompactTable::find_competitions`] finds them).
    pub fn competitions_rows<'i>(
        &self,
        competition_ids: impl IntoIterator<Item = &'i str>,
    ) -> Vec<CompetitionRows<'_>> {
        self.find_competitions(competition_ids)
            .into_iter()
            .map(|found| self.rows_of_id(found.0))
            .collect()
    }

    /// The number and players of each entrant row of `competition_id`, in read order:
    /// [`CompactTable::competition`] without making the rows structs.
    /// [`CompactTable::group`] must have run (else nothing is found).
    pub fn competition_players(
        &self,
        competition_id: &str,
    ) -> impl Iterator<Item = EntrantPlayers<'_>> {
        self.competition_rows(competition_id).players()
    }
}

/// One result row: texts by id into its table's pool.
#[derive(Debug, Clone, Copy)]
pub struct ResultRow {
    competition: u32,
    entrant: u32,
    opponent: u32,
    boards_played: u32,
    score: f64,
    file: u32,
    row: u64,
}

impl CompactRow for ResultRow {
    type Full = EntrantResult;

    fn pack(result: &EntrantResult, pool: &mut Pool) -> ResultRow {
        let (file, row) = pool.pack_origin(&result.origin);
        ResultRow {
            competition: pool.intern_competition(&result.competition_id),
            entrant: pool.intern(&result.entrant),
            opponent: pool.intern_option(result.opponent.as_deref()),
            boards_played: result.boards_played,
            score: result.score,
            file,
            row,
        }
    }

    fn unpack(&self, pool: &Pool) -> EntrantResult {
        EntrantResult {
            competition_id: pool.text(self.competition).to_owned(),
            entrant: pool.text(self.entrant).to_owned(),
            boards_played: self.boards_played,
            score: self.score,
            opponent: pool.text_option(self.opponent),
            origin: pool.unpack_origin(self.file, self.row),
        }
    }

    fn competition(&self) -> u32 {
        self.competition
    }

    fn encode(&self, out: &mut Vec<u8>) {
        write_number(out, u64::from(self.entrant));
        write_id(out, self.opponent);
        write_number(out, u64::from(self.boards_played));
        out.extend_from_slice(&self.score.to_bits().to_le_bytes());
        write_id(out, self.file);
        write_number(out, self.row.wrapping_add(1));
    }

    fn decode(bytes: &[u8], competition: u32) -> ResultRow {
        let mut read = Read::new(bytes);
        ResultRow {
            competition,
            entrant: read.number() as u32,
            opponent: read.id(),
            boards_played: read.number() as u32,
            score: f64::from_bits(u64::from_le_bytes(read.eight())),
            file: read.id(),
            row: read.number().wrapping_sub(1),
        }
    }
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

    /// A typical entrant row of a pairs event (two players, their names and one club
    /// each, a file and a row number in the thousands) is held in 26 bytes rather
    /// than its 80-byte struct: 2 for the number (200), 1 for the flags, 3 and 3 for
    /// the players and the names (ids past 16 383), 2 and 1 for the clubs, 1 for each
    /// absent name and club (four), 1 for the team (absent), 1 for the file, 2 for the
    /// row: 2 + 1 + 6 + 6 + 3 + 4 + 1 + 1 + 2 = 26.
    #[test]
    fn a_pairs_entrant_row_is_held_in_26_bytes() {
        let row = EntrantRow {
            competition: 7,
            entrant: 200,
            players: [20_000, 30_000, 0, 0],
            names: [40_000, 50_000, NONE, NONE],
            clubs: [300, 5, NONE, NONE],
            team: NONE,
            file: 0,
            row: 9_000,
            present: 0b0011,
            direction: 2,
            house: true,
        };
        let mut bytes = Vec::new();
        row.encode(&mut bytes);
        assert_eq!(bytes.len(), 26);
        let back = EntrantRow::decode(&bytes, 7);
        assert_eq!(format!("{back:?}"), format!("{row:?}"));
    }

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

    /// Every row, a competition at a time in the order the competitions were first
    /// read, each competition's rows in read order; and the same rows' competitions and
    /// players without the rows.
    #[test]
    fn every_row_comes_back_a_competition_at_a_time() {
        let file: Arc<Path> = Arc::from(Path::new("entrants.parquet"));
        let mut b1 = entrant("b", "1", 1, &file);
        b1.players = [Some(5), Some(6), None, None];
        let mut a1 = entrant("a", "1", 2, &file);
        a1.players = [Some(7), None, Some(0), None];
        let b2 = entrant("b", "2", 3, &file);
        let a2 = entrant("a", "2", 4, &file);
        let mut table = EntrantTable::default();
        for row in [&b1, &a1, &b2, &a2] {
            table.push(row);
        }
        table.group();
        let rows: Vec<Entrant> = table.each_row().collect();
        assert_eq!(rows, [b1.clone(), b2.clone(), a1.clone(), a2.clone()]);
        let players: Vec<(&str, [Option<MemberId>; 4])> = table.each_players().collect();
        let expected = [("b", b1), ("b", b2), ("a", a1), ("a", a2)].map(|(c, e)| (c, e.players));
        assert_eq!(players, expected);
        assert_eq!(players[0].1, [Some(5), Some(6), None, None]);
        assert_eq!(players[2].1, [Some(7), None, Some(0), None]);
    }

    /// The borrowed players of a competition are its rows' numbers, member ids (a
    /// member 0 kept apart from an empty slot) and printed names, in read order.
    #[test]
    fn a_competitions_players_are_read_without_the_rows() {
        let file: Arc<Path> = Arc::from(Path::new("entrants.parquet"));
        let mut a1 = entrant("a", "7", 1, &file);
        a1.players = [Some(0), None, Some(17), None];
        a1.names = [Some("Åsa".into()), None, Some(String::new()), None];
        let b1 = entrant("b", "1", 2, &file);
        let a2 = entrant("a", "3", 3, &file);
        let mut table = EntrantTable::default();
        for row in [&a1, &b1, &a2] {
            table.push(row);
        }
        table.group();
        let players: Vec<EntrantPlayers<'_>> = table.competition_players("a").collect();
        assert_eq!(
            players,
            [
                EntrantPlayers {
                    entrant: "7",
                    players: [Some(0), None, Some(17), None],
                    names: [Some("Åsa"), None, Some(""), None],
                },
                EntrantPlayers {
                    entrant: "3",
                    players: [None; 4],
                    names: [None; 4],
                },
            ]
        );
        assert_eq!(table.competition_players("c").count(), 0);
        assert_eq!(table.competition_players("7").count(), 0);
    }

    /// Competitions asked for together are found whether or not they are asked in
    /// the order they were read: in order, out of it, twice, or not read at all (nor
    /// mistaken for an entrant's text that is spelt alike).
    #[test]
    fn competitions_are_found_together_in_any_order() {
        let file: Arc<Path> = Arc::from(Path::new("entrants.parquet"));
        let mut table = EntrantTable::default();
        for (competition, number) in [("a", "1"), ("a", "2"), ("b", "a"), ("c", "1")] {
            table.push(&entrant(competition, number, 1, &file));
        }
        table.group();
        fn entrants(rows: CompetitionRows<'_>) -> Vec<&str> {
            rows.players().map(|p| p.entrant).collect()
        }
        let found = table.competitions_rows(["a", "b", "c"]);
        assert_eq!(
            found.into_iter().map(entrants).collect::<Vec<_>>(),
            [vec!["1", "2"], vec!["a"], vec!["1"]]
        );
        let found = table.competitions_rows(["c", "x", "1", "a", "b", "a", "c"]);
        assert_eq!(
            found.into_iter().map(entrants).collect::<Vec<_>>(),
            [
                vec!["1"],
                vec![],
                vec![],
                vec!["1", "2"],
                vec!["a"],
                vec!["1", "2"],
                vec!["1"]
            ]
        );
    }

    /// Result rows are found as entrant rows are: in the order read, out of it, twice
    /// or not at all, each competition with its rows as `competition` gives them.
    #[test]
    fn result_rows_are_found_together_in_any_order() {
        let file: Arc<Path> = Arc::from(Path::new("results.parquet"));
        let mut table = ResultTable::default();
        for (row, (competition, entrant)) in [("a", "1"), ("b", "1"), ("a", "2"), ("c", "a")]
            .into_iter()
            .enumerate()
        {
            table.push_row(EntrantResult {
                competition_id: competition.into(),
                entrant: entrant.into(),
                boards_played: 24,
                score: row as f64,
                opponent: None,
                origin: Origin::new(&file, row + 1),
            });
        }
        table.group();
        let entrants = |found: Found| -> Vec<String> {
            table
                .found_competition(found)
                .into_iter()
                .map(|r| format!("{}{}@{}", r.competition_id, r.entrant, r.score))
                .collect()
        };
        let found = table.find_competitions(["a", "b", "c", "a", "x", "1", "b"]);
        assert_eq!(
            found.into_iter().map(entrants).collect::<Vec<_>>(),
            [
                vec!["a1@0", "a2@2"],
                vec!["b1@1"],
                vec!["ca@3"],
                vec!["a1@0", "a2@2"],
                vec![],
                vec![],
                vec!["b1@1"],
            ]
        );
        assert_eq!(table.competition("c").len(), 1);
    }

    /// An entrant is found by its number; of two rows for one number the last is.
    #[test]
    fn an_entrant_is_found_by_its_number_the_last_row_counting() {
        let file: Arc<Path> = Arc::from(Path::new("entrants.parquet"));
        let mut first = entrant("a", "1", 1, &file);
        first.players = [Some(5), None, None, None];
        let mut second = entrant("a", "2", 2, &file);
        second.players = [Some(6), None, None, None];
        let mut again = entrant("a", "1", 3, &file);
        again.players = [Some(7), None, None, None];
        let mut table = EntrantTable::default();
        for row in [&first, &second, &again] {
            table.push(row);
        }
        table.group();
        let rows = table.competition_rows("a");
        let players = |entrant: &str| rows.find(entrant).map(|p| p.players[0]);
        assert_eq!(players("1"), Some(Some(7)));
        assert_eq!(players("2"), Some(Some(6)));
        assert_eq!(players("3"), None);
        assert_eq!(players("a"), None);
        assert_eq!(table.competition_rows("b").find("1"), None);
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

    /// A block is let go of once every competition with a row in it is released, and
    /// not before: `b`'s rows straddle the first two blocks, `c`'s lie in the second.
    #[test]
    fn a_block_is_freed_when_its_last_competition_is_released() {
        let file: Arc<Path> = Arc::from(Path::new("entrants.parquet"));
        let mut table = EntrantTable::default();
        for (competition, rows) in [("a", 60_000), ("b", 10_000), ("c", 5_000)] {
            for row in 0..rows {
                table.push(&entrant(competition, &row.to_string(), row, &file));
            }
        }
        table.group();
        assert_eq!((table.len(), table.blocks_held()), (75_000, 2));
        let [a, b, c] = <[Found; 3]>::try_from(table.find_competitions(["a", "b", "c"]))
            .unwrap_or_else(|found| panic!("three competitions, found {found:?}"));
        table.release(a);
        assert_eq!(table.blocks_held(), 2);
        assert_eq!(table.found_competition(b).len(), 10_000);
        assert_eq!(table.found_competition(b)[9_999].entrant, "9999");
        table.release(b);
        assert_eq!(table.blocks_held(), 1);
        let last = table.found_competition(c);
        assert_eq!((last.len(), last[4_999].origin.row), (5_000, Some(4_999)));
        // Released twice, `b` does not take `c`'s share of the second block.
        table.release(b);
        assert_eq!(table.blocks_held(), 1);
        table.release(c);
        assert_eq!(table.blocks_held(), 0);
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
