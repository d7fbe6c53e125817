//! Writing tables to disk so that no reader ever sees half a run.
//!
//! Analysts open the outputs with pyarrow, DuckDB and polars while a nightly run may be
//! rewriting them, and a failed run must not leave a mix of old and new files. So every
//! file is written beside its destination under a hidden temporary name and renamed into
//! place (a rename within one folder is atomic), and a whole output folder can be staged
//! in a hidden subfolder whose files are moved into place only once all of them were
//! written. A run's output folder is replaced whole ([`write_replacing`]): staged beside
//! it and exchanged with it in one step, because a continued run reads several of its
//! files and must never see them from two different runs. Parquet is written with zstd and column statistics, single-threaded
//! serialisation and fixed row groups, so the same frame gives the same bytes on every
//! machine.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use polars::prelude::*;

use crate::error::Error;

/// How Parquet files are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParquetSettings {
    /// Default zstd at its default level: read by pyarrow, DuckDB, polars and Spark.
    pub compression: ParquetCompression,
    /// Default true: min, max and null counts per column chunk, so readers can skip data.
    pub statistics: bool,
    /// Rows per row group. Default `None`: polars' 512² rows.
    pub row_group_size: Option<usize>,
}

impl Default for ParquetSettings {
    fn default() -> Self {
        ParquetSettings {
            compression: ParquetCompression::Zstd(None),
            statistics: true,
            row_group_size: None,
        }
    }
}

/// Distinguishes temporary names made by one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn temp_suffix() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// A writer that takes the SHA-256 of every byte passed through it, so that a file's
/// digest for `run.json` costs no second read of the file.
///
/// A continued run's largest file begins with the previous run's file, whose row
/// groups it copies as they are, and whose SHA-256 was taken when it was read
/// ([`HashMarks`]). Given those bytes ([`Hashing::after`]), the writer only compares
/// what is written with them while they agree, and takes up the hash from the nearest
/// mark at the first byte that differs: the digest is still that of every byte
/// written, at the cost of a comparison rather than a second hash of the history.
pub struct Hashing<'a, W: Write> {
    inner: W,
    hasher: sha2::Sha256,
    ahead: Option<Ahead<'a>>,
}

/// The bytes a file is expected to begin with, and how many of them it did so far.
struct Ahead<'a> {
    bytes: &'a [u8],
    marks: &'a HashMarks,
    matched: usize,
}

impl<W: Write> Hashing<'_, W> {
    pub fn new(inner: W) -> Self {
        use sha2::Digest;
        Hashing {
            inner,
            hasher: sha2::Sha256::new(),
            ahead: None,
        }
    }

    /// The SHA-256, in hex, of the bytes written so far.
    pub fn digest(&self) -> String {
        use sha2::Digest;
        let hasher = match &self.ahead {
            Some(ahead) => ahead.marks.state_at(ahead.bytes, ahead.matched),
            None => self.hasher.clone(),
        };
        crate::pipeline::ledger::hex(&hasher.finalize())
    }

    fn take(&mut self, written: &[u8]) {
        use sha2::Digest;
        let Some(ahead) = &mut self.ahead else {
            self.hasher.update(written);
            return;
        };
        let same = common_length(&ahead.bytes[ahead.matched..], written);
        ahead.matched += same;
        if same < written.len() {
            self.hasher = ahead.marks.state_at(ahead.bytes, ahead.matched);
            self.ahead = None;
            self.hasher.update(&written[same..]);
        }
    }
}

impl<'a, W: Write> Hashing<'a, W> {
    /// A writer whose file is expected to begin with `bytes`, hashed into `marks`.
    /// Marks of other bytes give a wrong digest: they are taken with the bytes
    /// ([`HashMarks::of`]).
    pub fn after(inner: W, bytes: &'a [u8], marks: &'a HashMarks) -> Self {
        let mut hashing = Hashing::new(inner);
        hashing.ahead = Some(Ahead {
            bytes,
            marks,
            matched: 0,
        });
        hashing
    }
}

/// How many leading bytes `a` and `b` have in common, compared a block at a time.
fn common_length(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let length = a.len().min(b.len());
    let mut at = 0;
    while at < length {
        let end = (at + BLOCK).min(length);
        if a[at..end] != b[at..end] {
            return at
                + a[at..end]
                    .iter()
                    .zip(&b[at..end])
                    .take_while(|(x, y)| x == y)
                    .count();
        }
        at = end;
    }
    length
}

/// The SHA-256 of a file's bytes, with the hash's state kept every [`HashMarks::STRIDE`]
/// bytes, so that the digest of any leading part of the file costs at most one stride
/// of hashing ([`Hashing::after`]).
#[derive(Clone)]
pub struct HashMarks {
    /// The state after `i * STRIDE` bytes, for every `i` up to the file's length.
    states: Vec<sha2::Sha256>,
    digest: String,
}

impl std::fmt::Debug for HashMarks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HashMarks")
            .field("marks", &self.states.len())
            .field("digest", &self.digest)
            .finish()
    }
}

impl HashMarks {
    /// Bytes between two kept states: a hundred bytes of state a mebibyte.
    pub const STRIDE: usize = 1 << 20;

    /// Hashes `bytes`, keeping the marks.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        let mut states = Vec::with_capacity(bytes.len() / Self::STRIDE + 1);
        states.push(hasher.clone());
        for block in bytes.chunks(Self::STRIDE) {
            hasher.update(block);
            if block.len() == Self::STRIDE {
                states.push(hasher.clone());
            }
        }
        HashMarks {
            states,
            digest: crate::pipeline::ledger::hex(&hasher.finalize()),
        }
    }

    /// The SHA-256 (hex) of all the bytes.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// The hash's state after the first `at` of `bytes` (the bytes the marks were
    /// taken of).
    fn state_at(&self, bytes: &[u8], at: usize) -> sha2::Sha256 {
        use sha2::Digest;
        let mark = (at / Self::STRIDE).min(self.states.len().saturating_sub(1));
        let mut hasher = match self.states.get(mark) {
            Some(state) => state.clone(),
            None => sha2::Sha256::new(),
        };
        let from = if self.states.is_empty() {
            0
        } else {
            mark * Self::STRIDE
        };
        hasher.update(&bytes[from..at]);
        hasher
    }
}

impl<W: Write> Write for Hashing<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.take(&buf[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// [`write_atomic`], returning the SHA-256 (hex) of the bytes the file holds.
pub fn write_atomic_hashed<F>(path: &Path, write: F) -> Result<String, Error>
where
    F: FnOnce(&mut Hashing<'_, &mut BufWriter<File>>) -> Result<(), Error>,
{
    write_atomic_hashed_after(path, None, write)
}

/// [`write_atomic_hashed`] of a file expected to begin with `ahead`'s bytes, whose
/// hash marks spare hashing them again (see [`Hashing::after`]).
pub fn write_atomic_hashed_after<F>(
    path: &Path,
    ahead: Option<(&[u8], &HashMarks)>,
    write: F,
) -> Result<String, Error>
where
    F: FnOnce(&mut Hashing<'_, &mut BufWriter<File>>) -> Result<(), Error>,
{
    let mut digest = String::new();
    write_atomic(path, |out| {
        let mut hashing = match ahead {
            Some((bytes, marks)) => Hashing::after(out, bytes, marks),
            None => Hashing::new(out),
        };
        write(&mut hashing)?;
        digest = hashing.digest();
        Ok(())
    })?;
    Ok(digest)
}

/// Writes `path` through `write`, atomically: the bytes go to a hidden file in the same
/// folder, which replaces `path` only when `write` and the flush succeeded.
pub fn write_atomic<F>(path: &Path, write: F) -> Result<(), Error>
where
    F: FnOnce(&mut BufWriter<File>) -> Result<(), Error>,
{
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::Config(format!("{}: not a file path", path.display())))?;
    let temp = folder.join(format!(".{name}.tmp-{}", temp_suffix()));
    let file = File::options()
        .write(true)
        .create_new(true)
        .open(&temp)
        .map_err(|e| Error::io(&temp, e))?;
    let mut writer = BufWriter::new(file);
    let written = write(&mut writer).and_then(|()| {
        writer.flush().map_err(|e| Error::io(&temp, e))?;
        writer.get_ref().sync_all().map_err(|e| Error::io(&temp, e))
    });
    drop(writer);
    match written {
        Ok(()) => std::fs::rename(&temp, path).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            Error::io(path, e)
        }),
        Err(error) => {
            let _ = std::fs::remove_file(&temp);
            Err(error)
        }
    }
}

/// Writes `df` to `path` as Parquet with the default [`ParquetSettings`], atomically.
pub fn write_parquet(df: &DataFrame, path: &Path) -> Result<(), Error> {
    write_parquet_with(df, path, &ParquetSettings::default())
}

/// [`write_parquet`], returning the SHA-256 (hex) of the file's bytes, taken as they
/// are written.
pub fn write_parquet_hashed(df: &DataFrame, path: &Path) -> Result<String, Error> {
    write_atomic_hashed(path, |out| {
        write_plain_parquet(out, df, &ParquetSettings::default())
            .map_err(|e| Error::polars(path, e))
    })
}

/// Writes `df` to `path` as Parquet, atomically.
pub fn write_parquet_with(
    df: &DataFrame,
    path: &Path,
    settings: &ParquetSettings,
) -> Result<(), Error> {
    write_atomic(path, |out| {
        write_plain_parquet(out, df, settings).map_err(|e| Error::polars(path, e))
    })
}

/// Rows per row group of every Parquet file written (polars' default, 512²).
pub const ROW_GROUP_ROWS: usize = 512 * 512;

/// Writes a table of `height` rows to `path` as Parquet, atomically, building it one
/// row group at a time with `part` (the rows of a range), so that a table of tens of
/// millions of rows never exists as one frame. The bytes are those [`write_parquet`]
/// writes for the whole frame.
pub fn write_parquet_parts(
    path: &Path,
    height: usize,
    part: impl Fn(std::ops::Range<usize>) -> PolarsResult<DataFrame> + Sync,
) -> Result<(), Error> {
    write_atomic(path, |out| {
        write_plain_parquet_parts(out, height, &part, &ParquetSettings::default())
            .map_err(|e| Error::polars(path, e))
    })
}

/// A Parquet file this version wrote, whose leading row groups are copied into a new
/// file as they are (page by page, not decoded): the history a continued run carries.
pub struct CarriedGroups<'a> {
    /// The file's bytes.
    pub bytes: &'a [u8],
    pub metadata: polars_parquet::parquet::metadata::FileMetadata,
    /// How many of its leading row groups to copy.
    pub groups: usize,
    /// The same bytes, owned and shared, when the caller has them so: the pages are
    /// read from them without a copy of the whole file.
    shared: Option<polars_buffer::Buffer<u8>>,
}

impl<'a> CarriedGroups<'a> {
    /// The leading row groups of `bytes` that are full (`rows_per_group` rows, as the
    /// writer makes every group but the last) and within its first `keep` rows; the
    /// rows after them up to `keep` are for the new file to encode again with its own,
    /// so that it has the bytes of a file written whole.
    pub fn full(bytes: &'a [u8], rows_per_group: usize, keep: usize) -> PolarsResult<Self> {
        let metadata = polars_parquet::read::read_metadata(&mut std::io::Cursor::new(bytes))?;
        let groups = metadata
            .row_groups
            .iter()
            .take_while(|g| g.num_rows() == rows_per_group)
            .count()
            .min(keep / rows_per_group.max(1));
        Ok(CarriedGroups {
            bytes,
            metadata,
            groups,
            shared: None,
        })
    }

    /// Every row group of `bytes`.
    pub fn all(bytes: &'a [u8]) -> PolarsResult<Self> {
        let metadata = polars_parquet::read::read_metadata(&mut std::io::Cursor::new(bytes))?;
        let groups = metadata.row_groups.len();
        Ok(CarriedGroups {
            bytes,
            metadata,
            groups,
            shared: None,
        })
    }

    /// [`CarriedGroups::full`] of bytes held in a shared buffer, whose pages are read
    /// from it as they are (the copy of a carried history is then not copied again).
    pub fn full_shared(
        bytes: &'a polars_buffer::Buffer<u8>,
        rows_per_group: usize,
        keep: usize,
    ) -> PolarsResult<Self> {
        let mut groups = Self::full(bytes, rows_per_group, keep)?;
        groups.shared = Some(bytes.clone());
        Ok(groups)
    }

    /// Rows in the copied groups.
    pub fn rows(&self) -> usize {
        self.metadata
            .row_groups
            .iter()
            .take(self.groups)
            .map(|g| g.num_rows())
            .sum()
    }
}

/// The compressed pages of one column chunk, read from the carried file's bytes.
struct RawPages {
    reader: polars_parquet::read::PageReader,
    current: Option<polars_parquet::write::CompressedPage>,
}

impl polars_parquet::write::FallibleStreamingIterator for RawPages {
    type Item = polars_parquet::write::CompressedPage;
    type Error = PolarsError;

    fn advance(&mut self) -> PolarsResult<()> {
        self.current = self
            .reader
            .next()
            .transpose()
            .map_err(|e| PolarsError::ComputeError(e.to_string().into()))?;
        // A page read back does not know its rows, which the writer needs; in a flat
        // column (every column this program writes) they are its values, nulls included.
        if let Some(polars_parquet::write::CompressedPage::Data(page)) = &mut self.current {
            if page.num_rows.is_none() {
                let values = match page.header() {
                    polars_parquet::read::DataPageHeader::V1(h) => i64::from(h.num_values),
                    polars_parquet::read::DataPageHeader::V2(h) => i64::from(h.num_rows),
                };
                page.num_rows = Some(values.max(0) as usize);
            }
        }
        Ok(())
    }

    fn get(&self) -> Option<&Self::Item> {
        self.current.as_ref()
    }
}

/// Copies `carried`'s leading row groups into `writer`, page by page.
fn copy_groups<W: Write>(
    writer: &mut polars_parquet::write::FileWriter<W>,
    carried: &CarriedGroups,
) -> PolarsResult<()> {
    use polars_parquet::write::{DynIter, DynStreamingIterator};
    let buffer: polars_buffer::Buffer<u8> = match &carried.shared {
        Some(shared) => shared.clone(),
        None => carried.bytes.to_vec().into(),
    };
    for group in carried.metadata.row_groups.iter().take(carried.groups) {
        let mut columns = Vec::new();
        for column in group.parquet_columns() {
            let mut cursor = std::io::Cursor::new(buffer.clone());
            std::io::Seek::seek(
                &mut cursor,
                std::io::SeekFrom::Start(column.byte_range().start),
            )
            .map_err(|e| PolarsError::ComputeError(e.to_string().into()))?;
            let reader =
                polars_parquet::read::PageReader::new(cursor, column, Vec::new(), usize::MAX);
            columns.push(Ok(DynStreamingIterator::new(RawPages {
                reader,
                current: None,
            })));
        }
        writer.write(group.num_rows() as u64, DynIter::new(columns.into_iter()))?;
    }
    Ok(())
}

fn write_plain_parquet_parts<W: Write>(
    out: W,
    height: usize,
    part: &(dyn Fn(std::ops::Range<usize>) -> PolarsResult<DataFrame> + Sync),
    settings: &ParquetSettings,
) -> PolarsResult<()> {
    write_plain_parquet_carrying(out, &[], height, part, settings)
}

/// [`write_parquet_parts`] after the row groups of `carried`: `part` gives the rows
/// that follow them.
pub fn write_parquet_carrying(
    path: &Path,
    carried: &[CarriedGroups],
    height: usize,
    part: impl Fn(std::ops::Range<usize>) -> PolarsResult<DataFrame> + Sync,
) -> Result<(), Error> {
    write_atomic(path, |out| {
        write_plain_parquet_carrying(out, carried, height, &part, &ParquetSettings::default())
            .map_err(|e| Error::polars(path, e))
    })
}

/// [`write_parquet_carrying`], returning the SHA-256 (hex) of the file's bytes, taken
/// as they are written. `ahead`: the carried file's bytes and their hash marks, when
/// the copied groups come first (the common leading bytes are then compared, not
/// hashed again).
pub fn write_parquet_carrying_hashed(
    path: &Path,
    carried: &[CarriedGroups],
    ahead: Option<(&[u8], &HashMarks)>,
    height: usize,
    part: impl Fn(std::ops::Range<usize>) -> PolarsResult<DataFrame> + Sync,
) -> Result<String, Error> {
    write_atomic_hashed_after(path, ahead, |out| {
        write_plain_parquet_carrying(out, carried, height, &part, &ParquetSettings::default())
            .map_err(|e| Error::polars(path, e))
    })
}

/// Writes `carried`'s row groups, then the `height` rows `part` gives, to `out`.
pub fn write_parquet_to<W: Write>(
    out: W,
    carried: &[CarriedGroups],
    height: usize,
    settings: &ParquetSettings,
    part: &(dyn Fn(std::ops::Range<usize>) -> PolarsResult<DataFrame> + Sync),
) -> PolarsResult<()> {
    write_plain_parquet_carrying(out, carried, height, part, settings)
}

/// Files of whole row groups, each read when its turn comes: a run's sealed groups,
/// copied into an output one file at a time rather than all read back first.
pub type GroupFiles<'a> = dyn Iterator<Item = PolarsResult<std::borrow::Cow<'a, [u8]>>> + 'a;

/// Writes every row group of each of `leading`'s files, then the `height` rows whose
/// row groups' bytes `encode` gives (as [`encode_row_group`] gives them), in a file
/// of `schema`'s fields.
pub fn write_encoded_parquet_to<W: Write>(
    out: W,
    leading: &mut GroupFiles<'_>,
    height: usize,
    settings: &ParquetSettings,
    schema: ArrowSchema,
    encode: &(dyn Fn(std::ops::Range<usize>) -> PolarsResult<Vec<u8>> + Sync),
) -> PolarsResult<()> {
    write_groups_carrying(out, (&[], leading), height, schema, encode, settings)
}

/// The page size a column chunk is written with: as large as polars-parquet allows,
/// so that a row group's column is one page. polars-parquet 0.55 gives every page of a
/// chunk split into pages the null count of the whole chunk, so a footer summing them
/// counted twice (or more) the empty cells there are, which readers skipping row groups
/// by their statistics trust.
const ONE_PAGE: usize = (1 << 31) - (1 << 25);

/// The writer's options for `settings`.
fn write_options(settings: &ParquetSettings) -> polars_parquet::write::WriteOptions {
    polars_parquet::write::WriteOptions {
        statistics: if settings.statistics {
            StatisticsOptions::default()
        } else {
            StatisticsOptions::empty()
        },
        version: polars_parquet::write::Version::V1,
        compression: settings.compression.into(),
        data_page_size: Some(ONE_PAGE),
    }
}

fn arrow_schema(frame: &DataFrame) -> ArrowSchema {
    frame
        .columns()
        .iter()
        .map(|c| c.field().to_arrow(CompatLevel::oldest()))
        .collect()
}

/// [`encode_row_group`] of `height` rows given as Arrow arrays of `schema`'s fields
/// (an [`arrow_schema`]), which may also be dictionaries of those fields' values: a
/// dictionary is written as the encoder writes the dictionary it builds of a column.
pub fn encode_arrays(
    schema: &ArrowSchema,
    height: usize,
    arrays: Vec<Box<dyn polars_arrow::array::Array>>,
    settings: &ParquetSettings,
) -> PolarsResult<Vec<u8>> {
    let batch = polars_arrow::record_batch::RecordBatchT::try_new(
        height,
        std::sync::Arc::new(schema.clone()),
        arrays,
    )?;
    encode_batches(schema, std::iter::once(Ok(batch)), settings)
}

/// The Arrow fields `frame`'s columns are written as.
pub fn arrow_fields(frame: &DataFrame) -> ArrowSchema {
    arrow_schema(frame)
}

/// Encodes `frame` as one row group, in the bytes of a file holding only it: the row
/// group of a larger file, encoded on its own, whose pages [`copy_groups`] moves into
/// that file as they are.
pub fn encode_row_group(frame: &DataFrame, settings: &ParquetSettings) -> PolarsResult<Vec<u8>> {
    let schema = arrow_schema(frame);
    let mut frame = frame.clone();
    frame.rechunk_mut();
    let batches = frame
        .iter_chunks(CompatLevel::oldest(), false)
        .map(with_text_dictionaries);
    encode_batches(&schema, batches, settings)
}

type Batch = polars_arrow::record_batch::RecordBatchT<Box<dyn polars_arrow::array::Array>>;

/// `batch` with each text column that the encoder would write as a dictionary given
/// as that dictionary ([`text_dictionary`]): the same bytes, without the encoder's
/// estimate of the column's distinct values and its cast.
fn with_text_dictionaries(batch: Batch) -> PolarsResult<Batch> {
    let height = batch.len();
    let (schema, arrays) = batch.into_schema_and_arrays();
    let arrays = arrays
        .into_iter()
        .map(|array| text_dictionary(array.as_ref()).unwrap_or(array))
        .collect();
    Batch::try_new(height, schema, arrays)
}

/// A text column as the dictionary the Parquet encoder builds of it: its distinct
/// values in the order they first appear, each row a number into them, an empty cell
/// a null. `None` for a column that is not text, or whose values the encoder might
/// keep plain.
///
/// The encoder keeps a column of more than 128 rows plain when its estimate of the
/// distinct values (HyperLogLog, within a few percent) is above 3/4 of the rows. A
/// dictionary is given only when the exact count (an empty cell counted as a value) is
/// at most half the rows, where the estimate cannot cross that line; otherwise the
/// column is left to the encoder, which decides as it always did.
fn text_dictionary(
    array: &dyn polars_arrow::array::Array,
) -> Option<Box<dyn polars_arrow::array::Array>> {
    let text = array
        .as_any()
        .downcast_ref::<polars_arrow::array::Utf8Array<i64>>()?;
    let mut dictionary = TextDictionary::with_capacity(text.len());
    for value in text.iter() {
        dictionary.push(value);
        if !dictionary.may_be_dictionary(text.len()) {
            return None;
        }
    }
    dictionary.into_dictionary()
}

/// A text column built as the dictionary the Parquet encoder builds of it (see
/// [`text_dictionary`]): its distinct values in the order they first appear and each
/// row's number into them, so that a table's text cells are hashed once, not built as
/// strings, copied and hashed again by the encoder.
pub struct TextDictionary<'a> {
    first: rustc_hash::FxHashMap<&'a str, u32>,
    values: Vec<&'a str>,
    keys: Vec<u32>,
    valid: Option<polars_arrow::bitmap::MutableBitmap>,
    last: Option<(&'a str, u32)>,
}

impl<'a> TextDictionary<'a> {
    pub fn with_capacity(height: usize) -> Self {
        TextDictionary {
            first: rustc_hash::FxHashMap::default(),
            values: Vec::new(),
            keys: Vec::with_capacity(height),
            valid: None,
            last: None,
        }
    }

    /// Appends a row: a value, or an empty cell.
    pub fn push(&mut self, value: Option<&'a str>) {
        let Some(value) = value else {
            let rows = self.keys.len();
            self.valid
                .get_or_insert_with(|| {
                    let mut bits = polars_arrow::bitmap::MutableBitmap::with_capacity(rows + 1);
                    bits.extend_constant(rows, true);
                    bits
                })
                .push(false);
            self.keys.push(0);
            return;
        };
        let key = match self.last {
            Some((seen, key)) if seen == value => key,
            _ => {
                let next = self.values.len() as u32;
                let key = *self.first.entry(value).or_insert(next);
                if key == next {
                    self.values.push(value);
                }
                self.last = Some((value, key));
                key
            }
        };
        if let Some(bits) = &mut self.valid {
            bits.push(true);
        }
        self.keys.push(key);
    }

    /// The distinct values so far, an empty cell counted as one.
    fn distinct(&self) -> usize {
        self.values.len() + usize::from(self.valid.is_some())
    }

    /// Whether a column of `height` rows with these values may still be written as a
    /// dictionary for sure: more than 128 rows with over half of them distinct may not.
    fn may_be_dictionary(&self, height: usize) -> bool {
        height <= 128 || 2 * self.distinct() <= height
    }

    /// The column, as the dictionary when the encoder is sure to write one (`Ok`),
    /// otherwise as plain text for the encoder to decide (`Err`).
    fn dictionary_or_plain(
        self,
    ) -> Result<Box<dyn polars_arrow::array::Array>, Box<dyn polars_arrow::array::Array>> {
        use polars_arrow::array::{DictionaryArray, PrimitiveArray, Utf8Array};
        use polars_arrow::datatypes::{ArrowDataType, IntegerType};
        let height = self.keys.len();
        let dictionary = self.may_be_dictionary(height);
        let valid: Option<polars_arrow::bitmap::Bitmap> = self.valid.map(Into::into);
        let keys = PrimitiveArray::<u32>::from_vec(self.keys).with_validity(valid);
        let values = Utf8Array::<i64>::from_slice(&self.values);
        if dictionary {
            let dtype = ArrowDataType::Dictionary(
                IntegerType::UInt32,
                Box::new(ArrowDataType::LargeUtf8),
                false,
            );
            if let Ok(array) = DictionaryArray::try_new(dtype, keys.clone(), values.clone().boxed())
            {
                return Ok(array.boxed());
            }
        }
        let cells = keys.iter().map(|key| {
            key.map(|&key| {
                let at = key as usize;
                if at < values.len() {
                    values.value(at)
                } else {
                    ""
                }
            })
        });
        Err(cells.collect::<Utf8Array<i64>>().boxed())
    }

    fn into_dictionary(self) -> Option<Box<dyn polars_arrow::array::Array>> {
        self.dictionary_or_plain().ok()
    }

    /// The column, as the dictionary when the encoder is sure to write one, otherwise
    /// as plain text for the encoder to decide.
    pub fn finish(self) -> Box<dyn polars_arrow::array::Array> {
        self.dictionary_or_plain().unwrap_or_else(|plain| plain)
    }
}

/// The encoding of each column of `schema`, as polars-parquet's writer picks it.
fn column_encodings(schema: &ArrowSchema) -> Vec<Vec<polars_parquet::write::Encoding>> {
    let encoding = |field: &polars_arrow::datatypes::Field| {
        polars_parquet::write::get_dtype_encoding(&field.dtype)
    };
    schema.iter_values().map(encoding).collect()
}

/// The file of one row group holding `batches`, written by polars-parquet's own writer.
fn encode_batches(
    schema: &ArrowSchema,
    batches: impl Iterator<
        Item = PolarsResult<
            polars_arrow::record_batch::RecordBatchT<Box<dyn polars_arrow::array::Array>>,
        >,
    >,
    settings: &ParquetSettings,
) -> PolarsResult<Vec<u8>> {
    use polars_parquet::write::{FileWriter, RowGroupIterator};
    let options = write_options(settings);
    let encodings = column_encodings(schema);
    let mut out = Vec::new();
    let mut writer = FileWriter::try_new(&mut out, schema.clone(), options)?;
    for encoded in RowGroupIterator::try_new(batches, schema, options, encodings.into())? {
        // u64::MAX: the encoder counts the rows of the group itself.
        writer.write(u64::MAX, encoded?)?;
    }
    writer.end(None)?;
    Ok(out)
}

/// Writes `carried`'s row groups, then the `height` rows `part` gives, a row group at a
/// time. The groups are encoded in parallel, each on its own, and written in order, so
/// the bytes are those of the table encoded in one go, whatever the thread count; at
/// most a few groups are held at once.
fn write_plain_parquet_carrying<W: Write>(
    out: W,
    carried: &[CarriedGroups],
    height: usize,
    part: &(dyn Fn(std::ops::Range<usize>) -> PolarsResult<DataFrame> + Sync),
    settings: &ParquetSettings,
) -> PolarsResult<()> {
    let schema = arrow_schema(&part(0..0)?);
    let encode = |range: std::ops::Range<usize>| encode_row_group(&part(range)?, settings);
    let leading = &mut std::iter::empty();
    write_groups_carrying(out, (carried, leading), height, schema, &encode, settings)
}

/// [`write_plain_parquet_carrying`], with each row group's bytes from `encode`, after
/// `carried`'s groups and then every group of the files `leading` gives.
fn write_groups_carrying<W: Write>(
    out: W,
    (carried, leading): (&[CarriedGroups], &mut GroupFiles<'_>),
    height: usize,
    schema: ArrowSchema,
    encode: &(dyn Fn(std::ops::Range<usize>) -> PolarsResult<Vec<u8>> + Sync),
    settings: &ParquetSettings,
) -> PolarsResult<()> {
    use polars_parquet::write::FileWriter;
    use rayon::prelude::*;
    let rows = settings.row_group_size.unwrap_or(ROW_GROUP_ROWS).max(1);
    let mut writer = FileWriter::try_new(out, schema, write_options(settings))?;
    for groups in carried {
        copy_groups(&mut writer, groups)?;
    }
    for file in leading {
        copy_groups(&mut writer, &CarriedGroups::all(&file?)?)?;
    }
    let ranges: Vec<std::ops::Range<usize>> = (0..height)
        .step_by(rows)
        .map(|start| start..(start + rows).min(height))
        .collect();
    let window = 2 * rayon::current_num_threads().max(1);
    for ranges in ranges.chunks(window) {
        let encoded: Vec<Vec<u8>> = ranges
            .par_iter()
            .map(|range| encode(range.clone()))
            .collect::<PolarsResult<_>>()?;
        for bytes in &encoded {
            copy_groups(&mut writer, &CarriedGroups::all(bytes)?)?;
        }
    }
    writer.end(None)?;
    Ok(())
}

/// A Parquet file written as its rows are produced, when their number is not known
/// beforehand: rows are buffered until they fill a row group of [`ROW_GROUP_ROWS`],
/// which is then encoded and written, so that at most one group waits in memory. The
/// bytes are those [`write_parquet`] writes for all the rows as one frame, since every
/// group but the last is full and each group is encoded on its own. The schema is that
/// of the first frame pushed; a file that receives no rows gets the schema of
/// [`GroupWriter::finish`]'s `empty` frame and no row group, as [`write_parquet`] does.
pub struct GroupWriter<W: Write> {
    out: Option<W>,
    writer: Option<GroupEncoder<W>>,
    pending: Option<DataFrame>,
}

struct GroupEncoder<W: Write> {
    writer: polars_parquet::write::FileWriter<W>,
    schema: ArrowSchema,
    options: polars_parquet::write::WriteOptions,
    encodings: Vec<Vec<polars_parquet::write::Encoding>>,
}

impl<W: Write> GroupEncoder<W> {
    fn try_new(out: W, first: &DataFrame) -> PolarsResult<Self> {
        use polars_parquet::write::{get_dtype_encoding, FileWriter, Version, WriteOptions};
        let settings = ParquetSettings::default();
        let schema: ArrowSchema = first
            .columns()
            .iter()
            .map(|c| c.field().to_arrow(CompatLevel::oldest()))
            .collect();
        let options = WriteOptions {
            statistics: StatisticsOptions::default(),
            version: Version::V1,
            compression: settings.compression.into(),
            data_page_size: Some(ONE_PAGE),
        };
        let encodings = schema
            .iter_values()
            .map(|field| get_dtype_encoding(&field.dtype))
            .collect();
        Ok(GroupEncoder {
            writer: FileWriter::try_new(out, schema.clone(), options)?,
            schema,
            options,
            encodings,
        })
    }

    fn group(&mut self, mut frame: DataFrame) -> PolarsResult<()> {
        frame.rechunk_mut();
        let batches = frame
            .iter_chunks(CompatLevel::oldest(), false)
            .map(with_text_dictionaries);
        let groups = polars_parquet::write::RowGroupIterator::try_new(
            batches,
            &self.schema,
            self.options,
            self.encodings.clone().into(),
        )?;
        for encoded in groups {
            // u64::MAX: the encoder counts the rows of the group itself.
            self.writer.write(u64::MAX, encoded?)?;
        }
        Ok(())
    }
}

impl<W: Write> GroupWriter<W> {
    pub fn new(out: W) -> Self {
        GroupWriter {
            out: Some(out),
            writer: None,
            pending: None,
        }
    }

    /// Appends `rows` (the columns of the first frame, in its order and types), and
    /// writes every row group they complete.
    pub fn push(&mut self, rows: DataFrame) -> PolarsResult<()> {
        let mut pending = match self.pending.take() {
            Some(mut pending) => {
                pending.vstack_mut_owned(rows)?;
                pending
            }
            None => rows,
        };
        while pending.height() >= ROW_GROUP_ROWS {
            let group = pending.slice(0, ROW_GROUP_ROWS);
            pending = pending.slice(ROW_GROUP_ROWS as i64, pending.height() - ROW_GROUP_ROWS);
            self.encoder(&group)?.group(group)?;
        }
        self.pending = Some(pending);
        Ok(())
    }

    fn encoder(&mut self, first: &DataFrame) -> PolarsResult<&mut GroupEncoder<W>> {
        if self.writer.is_none() {
            let out = self
                .out
                .take()
                .ok_or_else(|| polars_err!(ComputeError: "the Parquet writer has no output"))?;
            self.writer = Some(GroupEncoder::try_new(out, first)?);
        }
        self.writer
            .as_mut()
            .ok_or_else(|| polars_err!(ComputeError: "the Parquet writer has no output"))
    }

    /// Writes the last, partial row group and the footer. `empty` gives the schema of a file that received no rows.
    pub fn finish(mut self, empty: impl FnOnce() -> PolarsResult<DataFrame>) -> PolarsResult<()> {
        let last = match self.pending.take() {
            Some(last) => last,
            None => empty()?,
        };
        let height = last.height();
        let encoder = self.encoder(&last)?;
        if height > 0 {
            encoder.group(last)?;
        }
        encoder.writer.end(None)?;
        Ok(())
    }
}

/// Encodes `df` as Parquet at polars' oldest Arrow compatibility level: text is stored as
/// `large_string` and binary as `large_binary`. polars' own writer always uses the
/// newest level, whose `string_view` columns pyarrow cannot sort, filter, join or write
/// as CSV; every reader handles the plain types. Row groups hold `row_group_size` rows.
fn write_plain_parquet<W: Write>(
    out: W,
    df: &DataFrame,
    settings: &ParquetSettings,
) -> PolarsResult<()> {
    let mut frame = df.clone();
    frame.rechunk_mut();
    let part = |rows: std::ops::Range<usize>| Ok(frame.slice(rows.start as i64, rows.len()));
    write_plain_parquet_parts(out, frame.height(), &part, settings)
}

/// The characters that make a spreadsheet read a cell as a formula (`=`, `+`, `-`, `@`),
/// or that some spreadsheets strip before doing so (tab, carriage return).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A text cell as it is safe to open in a spreadsheet: one that would be read as a
/// formula (a member named `=HYPERLINK(…)`) gets a leading `'`, which spreadsheets show
/// as text. A cell that is just a number (`-3`, `+46`) is left alone: it is harmless, and
/// changing it would change the data. Numeric columns are never touched.
///
/// ```
/// use bridgehcp::store::files::neutralise_formula;
/// assert_eq!(neutralise_formula("=1+1"), "'=1+1");
/// assert_eq!(neutralise_formula("@SUM(A1)"), "'@SUM(A1)");
/// assert_eq!(neutralise_formula("-2+3"), "'-2+3");
/// assert_eq!(neutralise_formula("-3.5"), "-3.5");
/// assert_eq!(neutralise_formula("Anna-Lena"), "Anna-Lena");
/// ```
pub fn neutralise_formula(cell: &str) -> std::borrow::Cow<'_, str> {
    let risky = cell.starts_with(FORMULA_STARTS) && cell.trim().parse::<f64>().is_err();
    if risky {
        std::borrow::Cow::Owned(format!("'{cell}"))
    } else {
        std::borrow::Cow::Borrowed(cell)
    }
}

/// A text cell as the CSV files show it: control and bidirectional-override characters
/// as U+FFFD, then [`neutralise_formula`].
pub(crate) fn neutralise_cell(text: &str) -> std::borrow::Cow<'_, str> {
    match crate::dataset::text::neutralise(text, false) {
        std::borrow::Cow::Borrowed(shown) => neutralise_formula(shown),
        std::borrow::Cow::Owned(shown) => {
            std::borrow::Cow::Owned(neutralise_formula(&shown).into_owned())
        }
    }
}

/// `df` with every text cell passed through [`neutralise_formula`], its control and
/// bidirectional-override characters shown as U+FFFD. Most columns have nothing to
/// change: they are kept as they are.
pub(crate) fn neutralise_text(df: &DataFrame) -> PolarsResult<DataFrame> {
    let mut frame = df.clone();
    let text: Vec<PlSmallStr> = frame
        .columns()
        .iter()
        .filter(|c| c.dtype() == &DataType::String)
        .map(|c| c.name().clone())
        .collect();
    for name in text {
        let column = frame.column(name.as_str())?.str()?.clone();
        let unchanged = |text: &str| matches!(neutralise_cell(text), std::borrow::Cow::Borrowed(_));
        if column.iter().flatten().all(unchanged) {
            continue;
        }
        let safe = StringChunked::from_iter_options(
            name.clone(),
            column
                .iter()
                .map(|cell| cell.map(|text| neutralise_cell(text).into_owned())),
        );
        frame.with_column(safe.into_column())?;
    }
    Ok(frame)
}

/// Writes `df` to `path` as CSV (header, comma, dates as `YYYY-MM-DD`, nulls as empty
/// cells), atomically. Text cells that a spreadsheet would run as a formula are
/// neutralised ([`neutralise_formula`]).
pub fn write_csv(df: &DataFrame, path: &Path) -> Result<(), Error> {
    let mut frame = neutralise_text(df).map_err(|e| Error::polars(path, e))?;
    write_atomic(path, |out| {
        csv_to(out, &mut frame, None).map_err(|e| Error::polars(path, e))
    })
}

/// [`write_csv`] with every float column printed to two decimals, as people read
/// handicaps (`47.20`); the Parquet outputs keep full precision.
pub fn write_csv_rounded(df: &DataFrame, path: &Path) -> Result<(), Error> {
    let mut frame = neutralise_text(df).map_err(|e| Error::polars(path, e))?;
    write_atomic(path, |out| {
        csv_to(out, &mut frame, Some(2)).map_err(|e| Error::polars(path, e))
    })
}

/// [`write_csv`], or [`write_csv_rounded`] when `rounded`, returning the SHA-256 (hex)
/// of the file's bytes, taken as they are written.
pub fn write_csv_hashed(df: &DataFrame, path: &Path, rounded: bool) -> Result<String, Error> {
    let mut frame = neutralise_text(df).map_err(|e| Error::polars(path, e))?;
    let precision = rounded.then_some(2);
    write_atomic_hashed(path, |out| {
        csv_to(out, &mut frame, precision).map_err(|e| Error::polars(path, e))
    })
}

/// [`write_csv_hashed`] (not rounded) of a file whose first lines are `before` (a
/// header and rows another run wrote): the frame's rows follow them, without a header
/// of their own.
pub fn write_csv_after_hashed(df: &DataFrame, path: &Path, before: &[u8]) -> Result<String, Error> {
    let mut frame = neutralise_text(df).map_err(|e| Error::polars(path, e))?;
    write_atomic_hashed(path, |out| {
        out.write_all(before).map_err(|e| Error::io(path, e))?;
        CsvWriter::new(out)
            .include_header(false)
            .with_date_format(Some("%Y-%m-%d".into()))
            .n_threads(1)
            .finish(&mut frame)
            .map_err(|e| Error::polars(path, e))
    })
}

/// The header line [`write_csv`] writes for `df` (its column names need no quotes).
pub fn csv_header(df: &DataFrame) -> String {
    let names: Vec<&str> = df.get_column_names().iter().map(|n| n.as_str()).collect();
    format!("{}\n", names.join(","))
}

fn csv_to<W: Write>(out: W, frame: &mut DataFrame, precision: Option<usize>) -> PolarsResult<()> {
    CsvWriter::new(out)
        .include_header(true)
        .with_date_format(Some("%Y-%m-%d".into()))
        .with_float_precision(precision)
        .n_threads(1)
        .finish(frame)
}

/// An output folder being written: files go to a hidden staging folder inside it and are
/// moved into place by [`StagedFolder::commit`]. Dropped without a commit, the staging
/// folder is removed and the output folder is left as it was.
#[derive(Debug)]
pub struct StagedFolder {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
}

impl StagedFolder {
    /// Creates `target` if needed and an empty `target/.tmp-…/` to write into.
    pub fn new(target: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(target).map_err(|e| Error::io(target, e))?;
        let staging = target.join(format!(".tmp-{}", temp_suffix()));
        std::fs::create_dir(&staging).map_err(|e| Error::io(&staging, e))?;
        Ok(StagedFolder {
            target: target.to_path_buf(),
            staging,
            committed: false,
        })
    }

    /// Where to write the output named `name` (a file or a folder of partitions).
    pub fn path(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// The folder being written (what [`StagedFolder::path`] joins names to).
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// The folder the outputs end up in.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Moves every staged entry into the output folder (replacing what was there under
    /// the same name) in sorted name order, and removes the staging folder. Returns the
    /// final paths.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, Error> {
        let mut names = Vec::new();
        let entries = std::fs::read_dir(&self.staging).map_err(|e| Error::io(&self.staging, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&self.staging, e))?;
            names.push(entry.file_name());
        }
        names.sort();
        let mut moved = Vec::with_capacity(names.len());
        for name in names {
            let from = self.staging.join(&name);
            let to = self.target.join(&name);
            if to.is_dir() && from.is_dir() {
                std::fs::remove_dir_all(&to).map_err(|e| Error::io(&to, e))?;
            }
            std::fs::rename(&from, &to).map_err(|e| Error::io(&to, e))?;
            moved.push(to);
        }
        std::fs::remove_dir(&self.staging).map_err(|e| Error::io(&self.staging, e))?;
        self.committed = true;
        Ok(moved)
    }
    /// Moves staged partition folders into place one by one: each `(relative, staged)`
    /// replaces the folder of the same relative path (removed when nothing was staged
    /// for it); `files` are staged top-level files moved the same way. Other folders of
    /// the target are left alone.
    pub fn commit_partitions(
        mut self,
        partitions: &[(String, bool)],
        files: &[&str],
    ) -> Result<(), Error> {
        for (relative, staged) in partitions {
            let to = self.target.join(relative);
            if to.is_dir() {
                std::fs::remove_dir_all(&to).map_err(|e| Error::io(&to, e))?;
            }
            if *staged {
                let from = self.staging.join(relative);
                if let Some(parent) = to.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                }
                std::fs::rename(&from, &to).map_err(|e| Error::io(&to, e))?;
            }
        }
        for name in files {
            let from = self.staging.join(name);
            let to = self.target.join(name);
            std::fs::rename(&from, &to).map_err(|e| Error::io(&to, e))?;
        }
        std::fs::remove_dir_all(&self.staging).map_err(|e| Error::io(&self.staging, e))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for StagedFolder {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Runs `write` against a [`StagedFolder`] for `target` and commits only if it succeeded.
pub fn write_staged<F>(target: &Path, write: F) -> Result<Vec<PathBuf>, Error>
where
    F: FnOnce(&StagedFolder) -> Result<(), Error>,
{
    let staged = StagedFolder::new(target)?;
    write(&staged)?;
    staged.commit()
}

/// How [`write_replacing`] moves a staged folder into place.
#[derive(Clone, Copy)]
pub struct Commit<'a> {
    /// Swap the two folders in one step (Linux `renameat2` with `RENAME_EXCHANGE`)
    /// when the file system allows it; otherwise, or when false, two renames.
    pub exchange: bool,
    /// Called at each named point of the commit (`staged`, `swapped`,
    /// `between-renames`), so that a test can stop the process there.
    pub at: &'a dyn Fn(&str),
}

impl Default for Commit<'_> {
    fn default() -> Self {
        Commit {
            exchange: true,
            at: &|_| {},
        }
    }
}

/// The hidden siblings of `target` a commit uses: `.NAME.staging-PID-N` (being
/// written, or after a swap: the old folder) and `.NAME.old-PID-N` (the old folder
/// between two renames).
fn sibling(target: &Path, kind: &str) -> Result<PathBuf, Error> {
    let name = folder_name(target)?;
    Ok(parent_of(target).join(format!(".{name}.{kind}-{}", temp_suffix())))
}

fn parent_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn folder_name(target: &Path) -> Result<String, Error> {
    target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n != "." && n != "..")
        .ok_or_else(|| {
            Error::Config(format!(
                "{}: the output folder must be named (not `.` or `..`)",
                target.display()
            ))
        })
}

/// True when process `pid` is still running (so that its staging folder is in use).
fn running(pid: u32) -> bool {
    pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
}

/// Cleans up after a run that was killed while committing `target`: a `target` that
/// is missing while the old folder waits beside it (killed between the two renames) is
/// moved back, and staging folders of processes that no longer run are removed.
/// Returns the folders removed or restored.
pub fn recover(target: &Path) -> Result<Vec<PathBuf>, Error> {
    let name = folder_name(target)?;
    let parent = parent_of(target);
    let Ok(entries) = std::fs::read_dir(&parent) else {
        return Ok(Vec::new());
    };
    let mut stale: Vec<(String, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix(&format!(".{name}.")) else {
            continue;
        };
        let Some((kind, suffix)) = rest.split_once('-') else {
            continue;
        };
        let pid = suffix.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if matches!(kind, "staging" | "old") && pid.is_some_and(|p| !running(p)) {
            stale.push((kind.to_owned(), entry.path()));
        }
    }
    stale.sort();
    let mut touched = Vec::new();
    for (kind, path) in stale {
        if kind == "old" && !target.exists() {
            std::fs::rename(&path, target).map_err(|e| Error::io(target, e))?;
        } else {
            std::fs::remove_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        }
        touched.push(path);
    }
    Ok(touched)
}

/// Refuses to replace a folder that holds anything but the files of `known`: the
/// commit replaces the folder whole, and must not take a user's other files with it.
pub fn check_replaceable(target: &Path, known: &[&str]) -> Result<(), Error> {
    check_replaceable_as(target, known, "a run")
}

/// [`check_replaceable`] for the output folder of `what` (`a run`, `a study`).
pub fn check_replaceable_as(target: &Path, known: &[&str], what: &str) -> Result<(), Error> {
    let entries = match std::fs::read_dir(target) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(target, e)),
    };
    let mut foreign: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !known.contains(&n.as_str()) && !n.starts_with(".tmp-"))
        .collect();
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    foreign.truncate(5);
    Err(Error::Config(format!(
        "{}: the folder holds files that are not outputs of {what} ({}); {what} replaces its output folder whole, so write it to a new or empty folder",
        target.display(),
        foreign.join(", ")
    )))
}

/// Writes a whole output folder so that it appears at once: `write` fills a staging
/// folder beside `target`, which then takes `target`'s place in one atomic exchange
/// (or, where the file system cannot exchange, two renames, with the old folder moved
/// back by [`recover`] if the process dies between them). A process killed at any
/// point leaves the previous folder as it was (or restorable by [`recover`]); the
/// staging folder it leaves is removed by the next run.
pub fn write_replacing<F>(target: &Path, commit: Commit, write: F) -> Result<(), Error>
where
    F: FnOnce(&Path) -> Result<(), Error>,
{
    let staging = sibling(target, "staging")?;
    std::fs::create_dir_all(parent_of(target)).map_err(|e| Error::io(target, e))?;
    std::fs::create_dir(&staging).map_err(|e| Error::io(&staging, e))?;
    let cleanup = |e: Error| {
        let _ = std::fs::remove_dir_all(&staging);
        e
    };
    write(&staging).map_err(cleanup)?;
    sync_folder(&staging).map_err(cleanup)?;
    (commit.at)("staged");
    if !target.exists() {
        std::fs::rename(&staging, target).map_err(|e| cleanup(Error::io(target, e)))?;
    } else if commit.exchange && exchange(&staging, target).is_ok() {
        (commit.at)("swapped");
        // The staging path now holds the previous folder.
        std::fs::remove_dir_all(&staging).map_err(|e| Error::io(&staging, e))?;
    } else {
        let old = sibling(target, "old")?;
        std::fs::rename(target, &old).map_err(|e| cleanup(Error::io(target, e)))?;
        (commit.at)("between-renames");
        if let Err(e) = std::fs::rename(&staging, target) {
            let _ = std::fs::rename(&old, target);
            return Err(cleanup(Error::io(target, e)));
        }
        std::fs::remove_dir_all(&old).map_err(|e| Error::io(&old, e))?;
    }
    sync_folder(&parent_of(target))
}

/// Flushes a folder's entries to disk, so that a rename after it cannot be seen before
/// the files it moves.
fn sync_folder(folder: &Path) -> Result<(), Error> {
    match File::open(folder) {
        Ok(dir) => {
            // Not every file system can sync a folder; the data files are synced.
            let _ = dir.sync_all();
            Ok(())
        }
        Err(e) => Err(Error::io(folder, e)),
    }
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(std::io::Error::from)
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `frame` encoded as one row group with every text column left to the encoder.
    fn encoded_by_polars(frame: &DataFrame) -> Vec<u8> {
        let schema = arrow_schema(frame);
        let mut frame = frame.clone();
        frame.rechunk_mut();
        let batches = frame.iter_chunks(CompatLevel::oldest(), false).map(Ok);
        encode_batches(&schema, batches, &ParquetSettings::default()).unwrap()
    }

    #[test]
    fn text_dictionary_numbers_values_in_the_order_they_first_appear() {
        let mut dictionary = TextDictionary::with_capacity(5);
        for value in [Some("b"), Some("a"), None, Some("b"), Some("c")] {
            dictionary.push(value);
        }
        let array = dictionary.finish();
        let array = array
            .as_any()
            .downcast_ref::<polars_arrow::array::DictionaryArray<u32>>()
            .unwrap();
        let keys: Vec<Option<u32>> = array.keys().iter().map(|k| k.copied()).collect();
        assert_eq!(keys, [Some(0), Some(1), None, Some(0), Some(2)]);
        let values = array
            .values()
            .as_any()
            .downcast_ref::<polars_arrow::array::Utf8Array<i64>>()
            .unwrap();
        assert_eq!(values.values_iter().collect::<Vec<_>>(), ["b", "a", "c"]);
    }

    #[test]
    fn text_columns_of_many_distinct_values_are_left_plain() {
        // 200 rows, 101 values: more than half distinct, so the encoder decides.
        let mut dictionary = TextDictionary::with_capacity(200);
        let names: Vec<String> = (0..200).map(|i| format!("v{}", i.min(100))).collect();
        for name in &names {
            dictionary.push(Some(name));
        }
        let array = dictionary.finish();
        assert_eq!(
            array.dtype(),
            &polars_arrow::datatypes::ArrowDataType::LargeUtf8
        );
        assert_eq!(array.len(), 200);
    }

    #[test]
    fn text_given_as_dictionaries_encodes_to_the_bytes_polars_writes() {
        // Repeated ids with an empty cell (a dictionary), a column of all distinct
        // values (left plain) and a column of 3 rows (always a dictionary).
        let ids: Vec<Option<String>> = (0..300)
            .map(|i| (i != 7).then(|| format!("K{:02}-2026", (i * 7) % 40)))
            .collect();
        let unique: Vec<String> = (0..300).map(|i| format!("row {i}")).collect();
        let frame = DataFrame::new(
            300,
            vec![
                Column::new("id".into(), ids),
                Column::new("unique".into(), unique),
                Column::new("n".into(), (0..300).map(|i| i % 9).collect::<Vec<i64>>()),
            ],
        )
        .unwrap();
        let settings = ParquetSettings::default();
        assert_eq!(
            encode_row_group(&frame, &settings).unwrap(),
            encoded_by_polars(&frame)
        );
        let small = frame.slice(10, 3);
        assert_eq!(
            encode_row_group(&small, &settings).unwrap(),
            encoded_by_polars(&small)
        );
    }

    /// The empty cells of each column of each row group, as a file's footer counts them.
    fn footer_null_counts(bytes: &[u8]) -> PolarsResult<Vec<Vec<Option<i64>>>> {
        let metadata = polars_parquet::read::read_metadata(&mut std::io::Cursor::new(bytes))?;
        Ok(metadata
            .row_groups
            .iter()
            .map(|group| {
                group
                    .parquet_columns()
                    .iter()
                    .map(|chunk| {
                        chunk
                            .statistics(&metadata.footer_buf)
                            .and_then(Result::ok)
                            .and_then(|statistics| statistics.null_count())
                    })
                    .collect()
            })
            .collect())
    }

    /// A new temporary folder, and the path of a file `name` in it.
    fn temp_path(name: &str) -> Result<(tempfile::TempDir, std::path::PathBuf), Error> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let path = dir.path().join(name);
        Ok((dir, path))
    }

    /// A column chunk too large for one page of polars' default size (1 MiB) is written
    /// as one page, so its statistics count each empty cell once: split into pages, every
    /// page counted the whole chunk's, and a reader trusting the footer saw twice (or
    /// more) the empty cells there are. 300 000 whole numbers (2.4 MB), every third
    /// empty: 100 000 empty cells; a text column with every other cell empty: 150 000.
    #[test]
    fn a_large_column_chunk_counts_each_empty_cell_once() -> PolarsResult<()> {
        let n = 300_000_i64;
        let frame = df!(
            "number" => (0..n).map(|i| (i % 3 != 0).then_some(i)).collect::<Vec<_>>(),
            "text" => (0..n).map(|i| (i % 2 != 0).then(|| format!("entrant {i}"))).collect::<Vec<_>>(),
        )?;
        let bytes = encode_row_group(&frame, &ParquetSettings::default())?;
        assert_eq!(
            footer_null_counts(&bytes)?,
            [[Some(100_000), Some(150_000)]]
        );
        Ok(())
    }

    /// A file written as its first rows' file carried on, plus the rest, is the file
    /// written whole, byte for byte, whether the carried rows end on a row group or not.
    #[test]
    fn carried_row_groups_give_the_bytes_of_one_file() -> PolarsResult<()> {
        let n = 17usize;
        let whole = df!(
            "competition_id" => (0..n).map(|i| if i == 5 { None } else { Some(format!("c{}", i / 3)) }).collect::<Vec<_>>(),
            "member_id" => (0..n as i64).collect::<Vec<_>>(),
            "handicap" => (0..n).map(|i| if i == 9 { None } else { Some(52.0 / (i as f64 + 1.0)) }).collect::<Vec<_>>(),
            "updated" => (0..n).map(|i| i % 2 == 0).collect::<Vec<_>>(),
        )?;
        let settings = ParquetSettings {
            row_group_size: Some(4),
            ..ParquetSettings::default()
        };
        let write = |df: &DataFrame, carried: Option<&CarriedGroups>| -> PolarsResult<Vec<u8>> {
            let mut out = Vec::new();
            let part = |r: std::ops::Range<usize>| Ok(df.slice(r.start as i64, r.len()));
            let carried = carried.map(std::slice::from_ref).unwrap_or_default();
            write_plain_parquet_carrying(&mut out, carried, df.height(), &part, &settings)?;
            Ok(out)
        };
        let one = write(&whole, None)?;
        for first in [8usize, 10, 3] {
            let previous = write(&whole.slice(0, first), None)?;
            let carried = CarriedGroups::full(&previous, 4, first)?;
            assert_eq!(carried.groups, first / 4, "{first}");
            let rest = whole.slice(carried.rows() as i64, n - carried.rows());
            assert!(write(&rest, Some(&carried))? == one, "{first}");
        }
        Ok(())
    }

    /// The bytes written through a [`Hashing`] that expects a carried file, in pieces
    /// of every size, and their SHA-256 taken in one go.
    fn digest_after(carried: &[u8], written: &[u8], pieces: usize) -> (String, String) {
        let marks = HashMarks::of(carried);
        let mut out = Vec::new();
        let mut hashing = Hashing::after(&mut out, carried, &marks);
        for piece in written.chunks(pieces.max(1)) {
            let _ = hashing.write_all(piece);
        }
        let digest = hashing.digest();
        assert_eq!(out, written);
        (digest, crate::pipeline::ledger::sha256(written))
    }

    /// A file that begins like the carried one has the SHA-256 of its own bytes, however
    /// far the two agree: FIPS 180-2's "abc" after a carried "abd", "ab" or "abcd"; and
    /// over three mebibytes of carried bytes, written files that part from them at the
    /// first byte, one byte before and at a mark, in the last, partial stride, or never
    /// (the whole file, and the whole file and more).
    #[test]
    fn a_digest_taken_after_carried_bytes_is_the_files_sha256() {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(HashMarks::of(b"abc").digest(), abc);
        for carried in [&b"abd"[..], b"ab", b"abcd", b""] {
            for pieces in [1, 2, 3] {
                assert_eq!(digest_after(carried, b"abc", pieces).0, abc, "{carried:?}");
            }
        }
        let stride = HashMarks::STRIDE;
        let carried: Vec<u8> = (0..3 * stride + 123)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let parting = |at: usize| {
            let mut written = carried[..at].to_vec();
            written.extend_from_slice(&[!carried[at], 7, 7, 7]);
            written
        };
        let mut longer = carried.clone();
        longer.extend_from_slice(b"and the month's rows");
        let cases = [
            parting(0),
            parting(stride - 1),
            parting(stride),
            parting(2 * stride + 1),
            parting(3 * stride + 5),
            carried[..2 * stride].to_vec(),
            carried.clone(),
            longer,
        ];
        for written in &cases {
            for pieces in [1 << 16, 4095, stride + 7, usize::MAX] {
                let (digest, whole) = digest_after(&carried, written, pieces);
                assert_eq!(
                    digest,
                    whole,
                    "{} bytes in pieces of {pieces}",
                    written.len()
                );
            }
        }
        assert_eq!(
            HashMarks::of(&carried).digest(),
            crate::pipeline::ledger::sha256(&carried)
        );
    }

    /// A continued file written after the previous file's hash marks has the bytes of
    /// the table written whole (two full row groups copied, a third encoded with the new
    /// rows), and the digest of those bytes, as without the marks.
    #[test]
    fn a_carried_file_hashed_after_its_marks_is_the_file_written_whole() -> Result<(), Error> {
        let n = 2 * ROW_GROUP_ROWS + 1000;
        let whole = df!(
            "competition_id" => (0..n).map(|i| format!("c{}", i / 9)).collect::<Vec<_>>(),
            "delta" => (0..n).map(|i| (i % 17) as f64 / 4.0).collect::<Vec<_>>(),
        )
        .map_err(|e| Error::polars("whole", e))?;
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let read = |name: &str| {
            let path = dir.path().join(name);
            std::fs::read(&path).map_err(|e| Error::io(&path, e))
        };
        write_parquet(&whole, &dir.path().join("whole.parquet"))?;
        let previous_rows = 2 * ROW_GROUP_ROWS + 10;
        write_parquet(
            &whole.slice(0, previous_rows),
            &dir.path().join("previous.parquet"),
        )?;
        let previous = read("previous.parquet")?;
        let marks = HashMarks::of(&previous);
        let carried = CarriedGroups::full(&previous, ROW_GROUP_ROWS, usize::MAX)
            .map_err(|e| Error::polars("previous", e))?;
        assert_eq!(carried.groups, 2);
        let rest = whole.slice(carried.rows() as i64, n - carried.rows());
        let mut digests = Vec::new();
        for (name, ahead) in [
            ("marked.parquet", Some((&previous[..], &marks))),
            ("plain.parquet", None),
        ] {
            digests.push(write_parquet_carrying_hashed(
                &dir.path().join(name),
                std::slice::from_ref(&carried),
                ahead,
                rest.height(),
                |r| Ok(rest.slice(r.start as i64, r.len())),
            )?);
            assert!(read(name)? == read("whole.parquet")?, "{name}");
        }
        let expected = crate::pipeline::ledger::sha256(&read("whole.parquet")?);
        assert_eq!(digests, [expected.clone(), expected]);
        Ok(())
    }

    /// The CSV and Parquet files written with their digest are the files written
    /// without, and the digest is their SHA-256.
    #[test]
    fn files_written_hashed_are_the_files_written_plain() -> Result<(), Error> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let path = |name: &str| dir.path().join(name);
        let read = |name: &str| std::fs::read(path(name)).map_err(|e| Error::io(path(name), e));
        let frame = sample();
        write_csv(&frame, &path("plain.csv"))?;
        write_csv_rounded(&frame, &path("plain-rounded.csv"))?;
        write_parquet(&frame, &path("plain.parquet"))?;
        let written = [
            (
                write_csv_hashed(&frame, &path("hashed.csv"), false)?,
                "hashed.csv",
                "plain.csv",
            ),
            (
                write_csv_hashed(&frame, &path("hashed-rounded.csv"), true)?,
                "hashed-rounded.csv",
                "plain-rounded.csv",
            ),
            (
                write_parquet_hashed(&frame, &path("hashed.parquet"))?,
                "hashed.parquet",
                "plain.parquet",
            ),
        ];
        for (digest, hashed, plain) in written {
            assert!(read(hashed)? == read(plain)?, "{hashed}");
            assert_eq!(
                digest,
                crate::pipeline::ledger::sha256(&read(plain)?),
                "{hashed}"
            );
        }
        assert_eq!(
            String::from_utf8_lossy(&read("hashed-rounded.csv")?),
            "id,name,score\n1,\"a,b\",54.20\n2,,0.10\n3,c,-3.00\n"
        );
        Ok(())
    }

    /// Rows pushed in uneven pieces, none of them a row group, give the bytes of the
    /// frame written whole: two full row groups of 512² rows and a partial one. No rows
    /// at all give the file of the empty frame.
    #[test]
    fn rows_pushed_in_pieces_give_the_bytes_of_one_frame() -> PolarsResult<()> {
        let n = 2 * ROW_GROUP_ROWS + 1234;
        let whole = df!(
            "competition_id" => (0..n).map(|i| (i % 11 != 3).then(|| format!("c{}", i / 7))).collect::<Vec<_>>(),
            "member_id" => (0..n as i64).collect::<Vec<_>>(),
            "handicap" => (0..n).map(|i| (i % 13 != 0).then_some(i as f64 / 1000.0)).collect::<Vec<_>>(),
        )?;
        let mut one = Vec::new();
        write_plain_parquet(&mut one, &whole, &ParquetSettings::default())?;
        let mut pieces = Vec::new();
        let mut writer = GroupWriter::new(&mut pieces);
        let mut start = 0;
        while start < n {
            let len = 100_003.min(n - start);
            writer.push(whole.slice(start as i64, len))?;
            start += len;
        }
        writer.finish(|| Ok(whole.clear()))?;
        let groups: Vec<usize> =
            polars_parquet::read::read_metadata(&mut std::io::Cursor::new(&pieces))?
                .row_groups
                .iter()
                .map(|g| g.num_rows())
                .collect();
        assert_eq!(groups, [ROW_GROUP_ROWS, ROW_GROUP_ROWS, 1234]);
        assert!(pieces == one);

        let mut empty = Vec::new();
        write_plain_parquet(&mut empty, &whole.clear(), &ParquetSettings::default())?;
        let mut nothing = Vec::new();
        GroupWriter::new(&mut nothing).finish(|| Ok(whole.clear()))?;
        assert!(nothing == empty);
        Ok(())
    }

    /// The table encoded in one go by one writer, a row group after another: how every
    /// file was written before row groups were encoded on their own.
    fn serial(df: &DataFrame, settings: &ParquetSettings) -> PolarsResult<Vec<u8>> {
        use polars_parquet::write::{FileWriter, RowGroupIterator};
        let schema = arrow_schema(df);
        let options = write_options(settings);
        let encodings = column_encodings(&schema);
        let mut out = Vec::new();
        let mut writer = FileWriter::try_new(&mut out, schema.clone(), options)?;
        let rows = settings.row_group_size.unwrap_or(ROW_GROUP_ROWS);
        let mut offset = 0;
        while offset < df.height() {
            let mut frame = df.slice(offset as i64, rows);
            frame.rechunk_mut();
            let batches = frame.iter_chunks(CompatLevel::oldest(), false).map(Ok);
            for encoded in
                RowGroupIterator::try_new(batches, &schema, options, encodings.clone().into())?
            {
                writer.write(u64::MAX, encoded?)?;
            }
            offset += rows;
        }
        writer.end(None)?;
        Ok(out)
    }

    /// Row groups encoded in parallel, each on its own, and copied into the file in
    /// order give the bytes of one writer encoding the table group after group, with
    /// every column type the outputs use, on one thread or several.
    #[test]
    fn row_groups_encoded_apart_give_the_bytes_of_one_writer() -> PolarsResult<()> {
        let n = 1000usize;
        let names = ["Anna", "Bo", "Cecilia Öberg", "=1+1"];
        let mut whole = df!(
            "competition_id" => (0..n).map(|i| format!("2026-03-{:02}-c{}", i % 28 + 1, i / 37)).collect::<Vec<_>>(),
            "board" => (0..n).map(|i| (i % 27) as i32 + 1).collect::<Vec<_>>(),
            "ns" => (0..n).map(|i| (i % 11 != 3).then(|| names[i % 4].to_string())).collect::<Vec<_>>(),
            "ns_score" => (0..n).map(|i| (i % 13 != 0).then_some((i as i32 % 21 - 10) * 10)).collect::<Vec<_>>(),
            "ns_points" => (0..n).map(|i| (i % 17) as f64 / 2.0).collect::<Vec<_>>(),
            "datum" => (0..n).map(|i| (i % 5 == 0).then_some(i as f64 * 0.25 - 40.0)).collect::<Vec<_>>(),
            "member_id" => (0..n as i64).map(|i| i * 7919 % 30011).collect::<Vec<_>>(),
            "updated" => (0..n).map(|i| i % 3 == 0).collect::<Vec<_>>(),
        )?;
        whole.with_column(crate::store::frame::date_column(
            "date",
            (0..n).map(|i| chrono::NaiveDate::from_num_days_from_ce_opt(739_000 + (i / 40) as i32)),
        ))?;
        for group in [64usize, 333, 1000, 4096] {
            let settings = ParquetSettings {
                row_group_size: Some(group),
                ..ParquetSettings::default()
            };
            let expected = serial(&whole, &settings)?;
            let metadata =
                polars_parquet::read::read_metadata(&mut std::io::Cursor::new(&expected))?;
            assert_eq!(metadata.row_groups.len(), n.div_ceil(group), "{group}");
            for threads in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| PolarsError::ComputeError(e.to_string().into()))?;
                let mut out = Vec::new();
                let part = |r: std::ops::Range<usize>| Ok(whole.slice(r.start as i64, r.len()));
                pool.install(|| write_plain_parquet_parts(&mut out, n, &part, &settings))?;
                assert!(out == expected, "{group} rows a group, {threads} threads");
            }
        }
        Ok(())
    }

    fn sample() -> DataFrame {
        DataFrame::new_infer_height(vec![
            Column::new("id".into(), [1i64, 2, 3]),
            Column::new("name".into(), [Some("a,b"), None, Some("c")]),
            Column::new("score".into(), [54.2f64, 0.1, -3.0]),
        ])
        .unwrap_or_default()
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn parquet_bytes_are_deterministic() -> Result<(), Error> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let (a, b) = (dir.path().join("a.parquet"), dir.path().join("b.parquet"));
        write_parquet(&sample(), &a)?;
        write_parquet(&sample(), &b)?;
        let bytes_a = std::fs::read(&a).map_err(|e| Error::io(&a, e))?;
        let bytes_b = std::fs::read(&b).map_err(|e| Error::io(&b, e))?;
        assert!(!bytes_a.is_empty());
        assert_eq!(bytes_a, bytes_b);
        assert_eq!(listing(dir.path()), ["a.parquet", "b.parquet"]);
        Ok(())
    }

    #[test]
    fn parquet_text_is_plain_large_string_and_reads_back() -> Result<(), Error> {
        let (_dir, path) = temp_path("t.parquet")?;
        let settings = ParquetSettings {
            row_group_size: Some(2),
            ..ParquetSettings::default()
        };
        write_parquet_with(&sample(), &path, &settings)?;
        let mut file = File::open(&path).map_err(|e| Error::io(&path, e))?;
        let metadata =
            polars_parquet::read::read_metadata(&mut file).map_err(|e| Error::polars(&path, e))?;
        assert_eq!(metadata.row_groups.len(), 2);
        // polars turns text into views when it reads a file back, so the embedded Arrow
        // schema is compared as written: the one of the oldest compatibility level, where
        // text is `large_string`, not the newest, where it is `string_view`.
        let embedded = |compat: CompatLevel| {
            let schema: ArrowSchema = sample()
                .columns()
                .iter()
                .map(|c| c.field().to_arrow(compat))
                .collect();
            polars_parquet::write::schema_to_metadata_key(&schema).value
        };
        let written = metadata
            .key_value_metadata()
            .as_ref()
            .and_then(|kv| kv.iter().find(|kv| kv.key == "ARROW:schema"))
            .and_then(|kv| kv.value.clone());
        assert_eq!(
            DataType::String.to_arrow(CompatLevel::oldest()),
            ArrowDataType::LargeUtf8
        );
        assert_eq!(written, embedded(CompatLevel::oldest()));
        assert_ne!(written, embedded(CompatLevel::newest()));
        let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
        let back = ParquetReader::new(file)
            .finish()
            .map_err(|e| Error::polars(&path, e))?;
        assert!(back.equals_missing(&sample()), "{back}");
        Ok(())
    }

    #[test]
    fn csv_quotes_separators_and_leaves_nulls_empty() -> Result<(), Error> {
        let (_dir, path) = temp_path("t.csv")?;
        write_csv(&sample(), &path)?;
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        assert_eq!(text, "id,name,score\n1,\"a,b\",54.2\n2,,0.1\n3,c,-3.0\n");
        Ok(())
    }

    #[test]
    fn csv_cells_show_control_characters_as_replacement_characters() -> Result<(), Error> {
        let (_dir, path) = temp_path("t.csv")?;
        let frame = DataFrame::new_infer_height(vec![Column::new(
            "name".into(),
            ["Ann\u{1b}[31m", "\u{202E}oB", "\tCy\u{7}\u{0}"],
        )])
        .map_err(|e| Error::polars("t", e))?;
        write_csv(&frame, &path)?;
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        assert_eq!(
            text,
            "name\nAnn\u{FFFD}[31m\n\u{FFFD}oB\n\u{FFFD}Cy\u{FFFD}\u{FFFD}\n"
        );
        Ok(())
    }

    /// The digest taken while writing is the SHA-256 of the file's bytes: FIPS 180-2's
    /// example "abc", written in two pieces, and the file read back.
    #[test]
    fn a_digest_taken_while_writing_is_the_files_sha256() -> Result<(), Error> {
        let (_dir, path) = temp_path("abc.txt")?;
        let digest = write_atomic_hashed(&path, |out| {
            out.write_all(b"ab").map_err(|e| Error::io("abc.txt", e))?;
            out.write_all(b"c").map_err(|e| Error::io("abc.txt", e))
        })?;
        assert_eq!(
            digest,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            crate::pipeline::ledger::sha256(
                &std::fs::read(&path).map_err(|e| Error::io(&path, e))?
            ),
            digest
        );
        Ok(())
    }

    #[test]
    fn failed_atomic_write_keeps_the_old_file_and_leaves_no_temporary() -> Result<(), Error> {
        let (dir, path) = temp_path("out.txt")?;
        std::fs::write(&path, "old").map_err(|e| Error::io(&path, e))?;
        let result = write_atomic(&path, |out| {
            out.write_all(b"half").map_err(|e| Error::io("out", e))?;
            Err(Error::Config("failed midway".into()))
        });
        assert!(result.is_err());
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        assert_eq!(text, "old");
        assert_eq!(listing(dir.path()), ["out.txt"]);
        Ok(())
    }

    #[test]
    fn staged_folder_moves_files_only_when_everything_succeeded() -> Result<(), Error> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let out = dir.path().join("out");
        let failed = write_staged(&out, |stage| {
            write_parquet(&sample(), &stage.path("first.parquet"))?;
            Err(Error::Config("second table failed".into()))
        });
        assert!(failed.is_err());
        assert!(listing(&out).is_empty(), "{:?}", listing(&out));

        let moved = write_staged(&out, |stage| {
            write_parquet(&sample(), &stage.path("first.parquet"))?;
            write_csv(&sample(), &stage.path("second.csv"))
        })?;
        assert_eq!(moved, [out.join("first.parquet"), out.join("second.csv")]);
        assert_eq!(listing(&out), ["first.parquet", "second.csv"]);
        Ok(())
    }
}
