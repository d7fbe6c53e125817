//! A line of the import report: what became of one file, or a note on it. The batch
//! writes them and the member register adds its notes, so they sit below both.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::InputError;

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
    /// A note on an imported file: the recomputed results differ from what the club's
    /// program printed (the first differing pair and board are named).
    Mismatch,
    /// A note on an imported file: a pair listed without any table result, taken as a
    /// phantom and not imported.
    Phantom,
    /// A note on an imported file: a table played by a pair the export does not list;
    /// its results count in the boards' fields, the pair is not imported.
    Unlisted,
    /// A note on an imported file: a number not in the register, a pair printed without
    /// names or numbers, or a number typed for both players of a pair; the player is
    /// imported as a non-member.
    NonMember,
    /// A note on an imported file: a number the register knows, printed under a name
    /// that is not the register's even with case, spacing, punctuation, diacritics and
    /// initials allowed for. The player is still that member.
    NameDiffers,
    /// A note (no register given): a number printed under names that are not the same
    /// person's; the latest spelling is kept.
    NameConflict,
    /// A file that would have been imported (or corrected) but the batch wrote nothing,
    /// because another file was refused and `--keep-going` was not given.
    NotWritten,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Imported => "imported",
            Status::Correction => "correction",
            Status::Unchanged => "unchanged",
            Status::Duplicate => "duplicate",
            Status::Refused => "refused",
            Status::Mismatch => "mismatch",
            Status::Phantom => "phantom",
            Status::Unlisted => "unlisted_pair",
            Status::NonMember => "non_member",
            Status::NameDiffers => "name_differs",
            Status::NameConflict => "name_conflict",
            Status::NotWritten => "not_written",
        }
    }
}

/// One line of the import report.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub file: PathBuf,
    pub status: Status,
    pub competition_id: Option<String>,
    /// `YYYY-MM` of the competition's date, when the file could be read.
    pub month: Option<String>,
    /// Where the reason was found, for refusals.
    pub line: Option<usize>,
    pub board: Option<u32>,
    pub column: Option<String>,
    pub reason: String,
}

impl Entry {
    pub(super) fn refused(file: &Path, error: &InputError) -> Entry {
        Entry {
            file: file.to_path_buf(),
            status: Status::Refused,
            competition_id: error.location.competition.clone(),
            month: None,
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
