//! The empty cells each column chunk of a Parquet file decodes to, held against the
//! count its footer statistics give.
//!
//! A damaged byte in a page's definition levels (which cells are empty) can decode
//! without any error: polars' release build reads the broken levels as a different set
//! of empty cells (only its debug build asserts on their length), and the run would go
//! on with wrong data. The footer's `null_count` is a witness written apart from the
//! pages and already in the metadata the reader parsed, so holding each decoded column
//! of each whole row group against it costs one count per column chunk.
//!
//! Files written by earlier versions of this program carry wrong counts that must still
//! be read: polars-parquet split a large column chunk into pages of about 1 MiB and gave
//! every page the whole chunk's null count, and the footer sums its pages', so a chunk
//! of `k` data pages counts `k` times its empty cells. A count that disagrees is
//! therefore let through when, and only when, the chunk has more than one data page
//! and the count is exactly that many times the decoded one. Only then are the chunk's
//! page headers read, so a file written one page per chunk (every file this program
//! writes now, and every small file) never costs more than the count. The rule is
//! exact for one-page chunks; for a chunk of `k > 1` pages a damage slips through only
//! when it leaves exactly a `k`-th of the footer's count, a narrow coincidence against
//! the wider aim of reading every file older versions wrote. A chunk whose statistics
//! hold no null count, a nested column, and a row group only partly read are not held
//! to anything.

use std::ops::Range;
use std::path::Path;

use polars::prelude::*;
use polars_parquet::parquet::metadata::{ColumnChunkMetadata, FileMetadata};

use crate::error::{Error, InputError, Location};

/// Refuses `frame` (the file's rows from `first_row` on, as polars decoded them) when a
/// flat column of a whole row group in it holds other empty cells than the file's
/// footer counts there (see the module doc for the older files' counts). `chunk_bytes`
/// reads a byte range of the file, to count a chunk's pages when the counts disagree.
pub(crate) fn check_empty_cells(
    path: &Path,
    metadata: &FileMetadata,
    frame: &DataFrame,
    first_row: usize,
    chunk_bytes: &mut dyn FnMut(Range<u64>) -> std::io::Result<Vec<u8>>,
) -> Result<(), Error> {
    let groups = GroupsRead {
        first: 0,
        first_row: 0,
        in_file: metadata.row_groups.len(),
    };
    check_empty_cells_of(path, metadata, groups, frame, first_row, chunk_bytes)
}

/// Where the row groups of a metadata that holds only some of a file's lie in it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GroupsRead {
    /// The place of the first in the file's row groups.
    pub first: usize,
    /// The file's row (0-based) the first starts at.
    pub first_row: usize,
    /// The row groups of the whole file.
    pub in_file: usize,
}

/// [`check_empty_cells`] with a `metadata` holding only the row groups `groups` says:
/// a piece of a file read on its own costs its own row groups, not the file's.
pub(crate) fn check_empty_cells_of(
    path: &Path,
    metadata: &FileMetadata,
    groups_read: GroupsRead,
    frame: &DataFrame,
    first_row: usize,
    chunk_bytes: &mut dyn FnMut(Range<u64>) -> std::io::Result<Vec<u8>>,
) -> Result<(), Error> {
    let end = first_row.saturating_add(frame.height());
    let mut start = groups_read.first_row;
    let groups = groups_read.in_file;
    for (number, group) in (groups_read.first..).zip(metadata.row_groups.iter()) {
        let rows = start..start.saturating_add(group.num_rows());
        start = rows.end;
        if rows.start < first_row || rows.end > end || rows.is_empty() {
            continue;
        }
        for chunk in group.parquet_columns() {
            let [name] = chunk.descriptor().path_in_schema.as_slice() else {
                continue;
            };
            let Some(Ok(statistics)) = chunk.statistics(&metadata.footer_buf) else {
                continue;
            };
            let Some(footer) = statistics.null_count() else {
                continue;
            };
            let Ok(column) = frame.column(name.as_str()) else {
                continue;
            };
            let decoded = column
                .slice((rows.start - first_row) as i64, rows.len())
                .null_count();
            let pages = || data_pages(chunk, chunk_bytes);
            if let Err(rule) = agrees(footer, decoded, pages) {
                return Err(InputError::new(
                    Location::file(path).column(name.as_str()),
                    format!(
                        "the Parquet file is corrupt: in row group {} of {groups} (rows {}–{}) {rule}",
                        number + 1,
                        rows.start + 1,
                        rows.end
                    ),
                )
                .into());
            }
        }
    }
    Ok(())
}

/// Whether a chunk decoding to `decoded` empty cells agrees with its footer's count:
/// equal, or `pages()` data pages (more than one) times it, as older versions wrote.
fn agrees(
    footer: i64,
    decoded: usize,
    pages: impl FnOnce() -> Result<usize, String>,
) -> Result<(), String> {
    let decoded_count = i64::try_from(decoded).unwrap_or(i64::MAX);
    if footer == decoded_count {
        return Ok(());
    }
    let disagree = format!(
        "the column decodes to {decoded} empty cells where the file's footer counts {footer}"
    );
    if decoded == 0 || footer < 0 || footer % decoded_count != 0 {
        return Err(disagree);
    }
    match pages() {
        Ok(pages) if pages > 1 && Some(footer) == decoded_count.checked_mul(pages as i64) => Ok(()),
        Ok(_) => Err(disagree),
        Err(cause) => Err(format!("{disagree}, and its pages cannot be read: {cause}")),
    }
}

/// The data pages of `chunk`, from its page headers.
fn data_pages(
    chunk: &ColumnChunkMetadata,
    chunk_bytes: &mut dyn FnMut(Range<u64>) -> std::io::Result<Vec<u8>>,
) -> Result<usize, String> {
    use polars_parquet::write::CompressedPage;
    let bytes = chunk_bytes(chunk.byte_range()).map_err(|e| e.to_string())?;
    let length = bytes.len();
    let buffer: polars_buffer::Buffer<u8> = bytes.into();
    let reader = polars_parquet::read::PageReader::new(
        std::io::Cursor::new(buffer),
        chunk,
        Vec::new(),
        length,
    );
    let mut pages = 0;
    for page in reader {
        if let CompressedPage::Data(_) = page.map_err(|e| e.to_string())? {
            pages += 1;
        }
    }
    Ok(pages)
}

/// Reads the byte `range` of `bytes`, a whole file held in memory.
pub(crate) fn range_of(bytes: &[u8], range: Range<u64>) -> std::io::Result<Vec<u8>> {
    usize::try_from(range.start)
        .ok()
        .zip(usize::try_from(range.end).ok())
        .and_then(|(start, end)| bytes.get(start..end))
        .map(<[u8]>::to_vec)
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a column chunk lies outside the file",
            )
        })
}

/// Reads the byte `range` of the file at `path`.
pub(crate) fn range_of_file(path: &Path, range: Range<u64>) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek};
    let mut file = std::fs::File::open(path)?;
    let length = file.metadata()?.len();
    if range.end > length || range.start > range.end {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "a column chunk lies outside the file",
        ));
    }
    file.seek(std::io::SeekFrom::Start(range.start))?;
    let mut bytes = vec![0; (range.end - range.start) as usize];
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// Reads a whole Parquet file held in memory (`path` names it in errors) and holds its
/// empty cells to its footer's counts.
pub(crate) fn read_checked(path: &Path, bytes: &[u8]) -> Result<DataFrame, Error> {
    read_rows_checked(path, bytes, None)
}

/// [`read_checked`] of the rows of `slice` only (the whole row groups in it are held
/// to their counts).
pub(crate) fn read_slice_checked(
    path: &Path,
    bytes: &[u8],
    slice: Range<usize>,
) -> Result<DataFrame, Error> {
    read_rows_checked(path, bytes, Some(slice))
}

fn read_rows_checked(
    path: &Path,
    bytes: &[u8],
    slice: Option<Range<usize>>,
) -> Result<DataFrame, Error> {
    let mut reader = ParquetReader::new(std::io::Cursor::new(bytes));
    let metadata = reader
        .get_metadata()
        .map_err(|e| Error::polars(path, e))?
        .clone();
    let first_row = slice.as_ref().map_or(0, |slice| slice.start);
    let frame = reader
        .with_slice(slice.map(|slice| (slice.start, slice.len())))
        .finish()
        .map_err(|e| Error::polars(path, e))?;
    check_empty_cells(path, &metadata, &frame, first_row, &mut |range| {
        range_of(bytes, range)
    })?;
    Ok(frame)
}

/// Reads the whole Parquet file at `path` and holds its empty cells to its footer's
/// counts.
pub(crate) fn read_file_checked(path: &Path) -> Result<DataFrame, Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = ParquetReader::new(file);
    let metadata = reader
        .get_metadata()
        .map_err(|e| Error::polars(path, e))?
        .clone();
    let frame = reader.finish().map_err(|e| Error::polars(path, e))?;
    check_empty_cells(path, &metadata, &frame, 0, &mut |range| {
        range_of_file(path, range)
    })?;
    Ok(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never_read() -> Result<usize, String> {
        panic!("the pages were read although the counts agree or cannot be a multiple")
    }

    #[test]
    fn equal_counts_agree_without_reading_pages() {
        assert_eq!(agrees(6, 6, never_read), Ok(()));
        assert_eq!(agrees(0, 0, never_read), Ok(()));
    }

    /// The damage of the sample's `members.parquet` (offset 2512): `district` decodes
    /// to no empty cell where the footer counts 6.
    #[test]
    fn a_column_decoding_to_other_empty_cells_is_refused() {
        assert_eq!(
            agrees(6, 0, never_read),
            Err("the column decodes to 0 empty cells where the file's footer counts 6".into())
        );
        assert_eq!(
            agrees(6, 4, never_read),
            Err("the column decodes to 4 empty cells where the file's footer counts 6".into())
        );
        assert_eq!(
            agrees(3, 6, never_read),
            Err("the column decodes to 6 empty cells where the file's footer counts 3".into())
        );
    }

    /// Older versions' chunks of `k` pages counted `k` times their empty cells.
    #[test]
    fn a_count_of_pages_times_the_empty_cells_agrees_only_for_as_many_pages() {
        assert_eq!(agrees(200_000, 100_000, || Ok(2)), Ok(()));
        assert_eq!(agrees(300_000, 100_000, || Ok(3)), Ok(()));
        assert_eq!(
            agrees(300_000, 100_000, || Ok(2)),
            Err(
                "the column decodes to 100000 empty cells where the file's footer counts 300000"
                    .into()
            )
        );
        assert_eq!(
            agrees(12, 6, || Ok(1)),
            Err("the column decodes to 6 empty cells where the file's footer counts 12".into())
        );
        assert_eq!(
            agrees(12, 6, || Err("bad header".into())),
            Err("the column decodes to 6 empty cells where the file's footer counts 12, and its pages cannot be read: bad header".into())
        );
    }

    /// A file written the way older versions wrote it (polars-parquet's default page
    /// size of 1 MiB, so a 300 000-row chunk of whole numbers in 3 pages) is read, its
    /// counts tripled; the same file with one page per chunk counts each empty cell once.
    #[test]
    fn files_written_with_pages_counting_the_whole_chunk_are_read() -> Result<(), Error> {
        let n = 300_000_i64;
        let mut frame = df!(
            "number" => (0..n).map(|i| (i % 3 != 0).then_some(i)).collect::<Vec<_>>(),
            "text" => (0..n).map(|i| (i % 2 != 0).then(|| format!("entrant {i}"))).collect::<Vec<_>>(),
        )
        .map_err(|e| Error::polars("old.parquet", e))?;
        let write = |frame: &mut DataFrame, page: Option<usize>| -> Vec<u8> {
            let mut out = Vec::new();
            ParquetWriter::new(&mut out)
                .with_statistics(StatisticsOptions::full())
                .with_data_page_size(page)
                .with_row_group_size(Some(n as usize))
                .finish(frame)
                .map(|_| out)
                .unwrap_or_default()
        };
        let old = write(&mut frame, None);
        let counts = footer_counts(&old);
        assert!(
            counts[0] > 100_000 && counts[0] % 100_000 == 0,
            "not the older writer's counts: {counts:?}"
        );
        let path = Path::new("old.parquet");
        assert_eq!(read_checked(path, &old)?.height(), n as usize);
        assert_eq!(
            read_slice_checked(path, &old, 0..n as usize)?.height(),
            n as usize
        );
        let one_page = write(&mut frame, Some(1 << 30));
        assert_eq!(footer_counts(&one_page), [100_000, 150_000]);
        assert_eq!(read_checked(path, &one_page)?.height(), n as usize);
        Ok(())
    }

    fn footer_counts(bytes: &[u8]) -> Vec<i64> {
        let Ok(metadata) = polars_parquet::read::read_metadata(&mut std::io::Cursor::new(bytes))
        else {
            return Vec::new();
        };
        metadata.row_groups[0]
            .parquet_columns()
            .iter()
            .filter_map(|chunk| chunk.statistics(&metadata.footer_buf)?.ok()?.null_count())
            .collect()
    }
}
