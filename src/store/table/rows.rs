//! The contract's rows, built from the cells of each table's frames and held to the
//! row rules as they are read.

use std::ops::Range;

use chrono::NaiveDate;

use crate::dataset::entrant_table::RowSink;
use crate::dataset::{
    BoardColumns, BoardRef, BoardResult, BoardRow, BoardSlot, BoardText, Competition, Entrant,
    EntrantResult, Member, MemberKind, Origin, OwnedBoards, Text,
};
use crate::error::{Error, InputError};
use crate::import::validate::{self, Validator, PLAYER_COLUMNS};
use crate::scoring::conventions::Conventions;

use super::cells::Presence::{Optional, Required};
use super::cells::{
    mark_floats_beyond, primitive_f64, text_cell, text_valid, AllNull, Col, F64Array, Ints,
    Sources, StrArray,
};
use super::locate::Frame;
use super::{Check, CompetitionRow};

pub(super) fn read_members(
    frame: &Frame,
    validator: &mut Validator,
    out: &mut Vec<Member>,
) -> Result<(), Error> {
    super::known::check_columns(frame, "members")?;
    let mut member_id = frame.col::<i64>("member_id", Required)?;
    let mut name = frame.col::<String>("name", Optional)?;
    let mut club = frame.col::<String>("club", Optional)?;
    let mut district = frame.col::<String>("district", Optional)?;
    let mut masterpoints = frame.col::<f64>("masterpoints", Optional)?;
    let mut start_handicap = frame.col::<f64>("start_handicap", Optional)?;
    let mut kind = frame.col::<String>("kind", Optional)?;
    out.reserve(frame.height());
    for row in 0..frame.height() {
        let member = Member {
            member_id: member_id.required(row)?,
            name: name.get(row)?,
            club: club.get(row)?,
            district: district.get(row)?,
            masterpoints: masterpoints.get(row)?.unwrap_or(0.0),
            start_handicap: start_handicap.get(row)?,
            kind: kind.parsed(row)?.unwrap_or(MemberKind::Member),
            origin: frame.origin(row),
        };
        validator.member(&member)?;
        out.push(member);
    }
    Ok(())
}

/// A part of a head table's file (a row group, or the file whole) with its rows built
/// from their cells: everything a row needs but the rules that look at the rows before
/// it. Building needs only the frame, so one thread builds the next parts while
/// another holds the rows built before to the rules, in file order.
#[derive(Debug)]
pub(super) struct Built<T> {
    /// The rows of the frame it was built from.
    pub(super) height: usize,
    /// Each row's competition id and the row (`None` where a cell broke a rule), in
    /// file order. The id is inline (no allocation for an id of up to 24 bytes): the
    /// checks make it the row's own `String` once per run of a competition's rows. The
    /// rows are checked and handed on where they lie: a row is some 350 bytes, and
    /// millions of them were copied several times each on their way.
    pub(super) rows: Vec<(Text, Option<T>)>,
    /// The rule broken by a cell of each row that did not build, by its place in
    /// `rows`, in file order.
    pub(super) broken: Vec<(usize, InputError)>,
    /// A row without a competition id, after the rows before it: nothing after it is
    /// read.
    pub(super) stop: Option<InputError>,
}

impl<T> Built<T> {
    /// True when a row without a competition id stops its file here.
    pub(super) fn stops(&self) -> bool {
        self.stop.is_some()
    }

    fn with_height(height: usize) -> Self {
        Built {
            height,
            rows: Vec::with_capacity(height),
            broken: Vec::new(),
            stop: None,
        }
    }

    /// A row's competition id, or `None` once a row without one has stopped the file
    /// (kept as the error it is).
    fn id_or_stop(&mut self, id: Result<Text, InputError>) -> Option<Text> {
        match id {
            Ok(id) => Some(id),
            Err(error) => {
                self.stop = Some(error);
                None
            }
        }
    }

    /// Adds the next row of competition `id`, built or broken.
    fn push(&mut self, id: Text, row: Result<T, InputError>) {
        match row {
            Ok(row) => self.rows.push((id, Some(row))),
            Err(error) => {
                self.broken.push((self.rows.len(), error));
                self.rows.push((id, None));
            }
        }
    }
}

/// Holds the rows of `built` to the `rules`, in order, and hands on those that pass;
/// then stops at the row without a competition id, if there is one. The rows are left
/// in `built` (those a vector took, taken), to be dropped where they were made.
///
/// A row's competition id is its own `String`, but a competition's rows come together:
/// when the sink leaves a row where it lies (a compact table keeps its texts
/// interned), the next row of the same competition takes its id rather than a new one.
pub(super) fn check_rows<T: CompetitionRow<Id = String>>(
    built: &mut Built<T>,
    check: &mut Check,
    rules: fn(&mut Validator, &T) -> Result<(), InputError>,
    out: &mut dyn RowSink<T>,
) -> Result<(), Error> {
    out.reserve_rows(built.height);
    let mut spare: Option<String> = None;
    let mut broken = std::mem::take(&mut built.broken).into_iter().peekable();
    for (at, (competition_id, row)) in built.rows.iter_mut().enumerate() {
        let id = competition_id.as_str();
        if let Some((_, error)) = broken.next_if(|(place, _)| *place == at) {
            check.broken(id, error)?;
            continue;
        }
        let Some(record) = row else { continue };
        if !check.admits(id) {
            continue;
        }
        let record_id = record.competition_id_mut();
        match spare.take() {
            Some(kept) if kept == id => *record_id = kept,
            _ => id.clone_into(record_id),
        }
        match rules(&mut check.validator, record) {
            Ok(()) => {
                out.push_row_from(row);
                if let Some(left) = row {
                    spare = Some(std::mem::take(left.competition_id_mut()));
                }
            }
            Err(error) => check
                .quarantine
                .add(record.competition_id_mut().as_ref(), error)?,
        }
    }
    match built.stop.take() {
        Some(stop) => Err(stop.into()),
        None => Ok(()),
    }
}

/// Builds `rows` of `frame`.
pub(super) fn build_competitions(
    frame: &Frame,
    rows: Range<usize>,
) -> Result<Built<Competition>, Error> {
    super::known::check_columns(frame, "competitions")?;
    let mut id = frame.col::<Text>("competition_id", Required)?;
    let mut date = frame.col::<NaiveDate>("date", Required)?;
    let mut session = frame.col::<i32>("session", Optional)?;
    let mut format = frame.col::<String>("format", Required)?;
    let mut scoring = frame.col::<String>("scoring", Required)?;
    let mut boards = frame.col::<i32>("boards", Optional)?;
    let mut rated = frame.col::<bool>("rated", Optional)?;
    let mut handicap_event = frame.col::<bool>("handicap_event", Optional)?;
    let mut title = frame.col::<String>("title", Optional)?;
    let mut club = frame.col::<String>("club", Optional)?;
    let mut class = frame.col::<String>("class", Optional)?;
    let mut mp_scale = frame.col::<String>("mp_scale", Optional)?;
    let mut imp_aggregate = frame.col::<String>("imp_aggregate", Optional)?;
    let mut datum_trim = frame.col::<String>("datum_trim", Optional)?;
    let mut datum_rounding = frame.col::<String>("datum_rounding", Optional)?;
    let mut bye_score = frame.col::<String>("bye_score", Optional)?;
    let mut neuberg = frame.col::<bool>("neuberg", Optional)?;
    let mut tie_break = frame.col::<String>("tie_break", Optional)?;
    let mut travellers = frame.col::<String>("travellers", Optional)?;
    let mut artificial_imps = frame.col::<String>("artificial_imps", Optional)?;
    let mut average_plus = frame.col::<String>("average_plus", Optional)?;
    let mut factored_rounding = frame.col::<String>("factored_rounding", Optional)?;
    let mut vp_scale = frame.col::<String>("vp_scale", Optional)?;
    let defaults = Conventions::default();
    let mut sources = frame.sources()?;
    let mut out = Built::with_height(rows.len());
    for row in rows {
        let Some(competition_id) = out.id_or_stop(id.required(row)) else {
            break;
        };
        let mut built = || -> Result<Competition, InputError> {
            Ok(Competition {
                competition_id: String::new(),
                date: date.required(row)?,
                format: format.required_parsed(row)?,
                scoring: scoring.required_parsed(row)?,
                session: session.get(row)?.unwrap_or(1),
                boards: boards.count(row)?,
                rated: rated.get(row)?.unwrap_or(true),
                handicap_event: handicap_event.get(row)?.unwrap_or(false),
                title: title.get(row)?,
                club: club.get(row)?,
                class: class.get(row)?,
                conventions: Conventions {
                    mp_scale: mp_scale.parsed(row)?.unwrap_or(defaults.mp_scale),
                    imp_aggregate: imp_aggregate.parsed(row)?.unwrap_or(defaults.imp_aggregate),
                    datum_trim: datum_trim.parsed(row)?.unwrap_or(defaults.datum_trim),
                    datum_rounding: datum_rounding
                        .parsed(row)?
                        .unwrap_or(defaults.datum_rounding),
                    bye_score: bye_score.parsed(row)?.unwrap_or(defaults.bye_score),
                    neuberg: neuberg.get(row)?.unwrap_or(defaults.neuberg),
                    tie_break: tie_break.parsed(row)?.unwrap_or(defaults.tie_break),
                    travellers: travellers.parsed(row)?.unwrap_or(defaults.travellers),
                    artificial_imps: artificial_imps
                        .parsed(row)?
                        .unwrap_or(defaults.artificial_imps),
                    average_plus: average_plus.parsed(row)?.unwrap_or(defaults.average_plus),
                    factored_rounding: factored_rounding
                        .parsed(row)?
                        .unwrap_or(defaults.factored_rounding),
                },
                vp_scale: vp_scale.get(row)?.map(crate::dataset::VpScaleRef::named),
                origin: sources.origin(frame, row)?,
            })
        };
        out.push(competition_id, built());
    }
    Ok(out)
}

/// Builds `rows` of `frame`.
pub(super) fn build_entrants(frame: &Frame, rows: Range<usize>) -> Result<Built<Entrant>, Error> {
    super::known::check_columns(frame, "entrants")?;
    let mut competition_id = frame.col::<Text>("competition_id", Required)?;
    let mut entrant = frame.col::<String>("entrant", Required)?;
    let [p1, p2, p3, p4] = PLAYER_COLUMNS;
    let mut players = [
        frame.col::<i64>(p1, Optional)?,
        frame.col::<i64>(p2, Optional)?,
        frame.col::<i64>(p3, Optional)?,
        frame.col::<i64>(p4, Optional)?,
    ];
    let mut names = [
        frame.col::<String>("player1_name", Optional)?,
        frame.col::<String>("player2_name", Optional)?,
        frame.col::<String>("player3_name", Optional)?,
        frame.col::<String>("player4_name", Optional)?,
    ];
    let mut clubs = [
        frame.col::<String>("player1_club", Optional)?,
        frame.col::<String>("player2_club", Optional)?,
        frame.col::<String>("player3_club", Optional)?,
        frame.col::<String>("player4_club", Optional)?,
    ];
    let mut team = frame.col::<String>("team", Optional)?;
    let mut direction = frame.col::<String>("direction", Optional)?;
    let mut house = frame.col::<bool>("house", Optional)?;
    let mut sources = frame.sources()?;
    let mut out = Built::with_height(rows.len());
    for row in rows {
        let Some(competition_id) = out.id_or_stop(competition_id.required(row)) else {
            break;
        };
        let mut built = || -> Result<Entrant, InputError> {
            let entrant_name = entrant.required(row)?;
            let mut slots = [None; 4];
            for (slot, column) in slots.iter_mut().zip(&mut players) {
                *slot = column.get(row)?;
            }
            let mut printed: [Option<String>; 4] = [None, None, None, None];
            for (slot, column) in printed.iter_mut().zip(&mut names) {
                *slot = column.get(row)?;
            }
            let mut printed_clubs: [Option<String>; 4] = [None, None, None, None];
            for (slot, column) in printed_clubs.iter_mut().zip(&mut clubs) {
                *slot = column.get(row)?;
            }
            Ok(Entrant {
                competition_id: String::new(),
                entrant: entrant_name,
                players: slots,
                names: printed,
                clubs: printed_clubs,
                team: team.get(row)?,
                direction: direction.parsed(row)?,
                house: house.get(row)?.unwrap_or(false),
                origin: sources.origin(frame, row)?,
            })
        };
        out.push(competition_id, built());
    }
    Ok(out)
}

/// Builds `rows` of `frame`.
pub(super) fn build_results(
    frame: &Frame,
    rows: Range<usize>,
) -> Result<Built<EntrantResult>, Error> {
    super::known::check_columns(frame, "results")?;
    let mut competition_id = frame.col::<Text>("competition_id", Required)?;
    let mut entrant = frame.col::<String>("entrant", Required)?;
    let mut boards_played = frame.col::<i32>("boards_played", Required)?;
    let mut score = frame.col::<f64>("score", Required)?;
    let mut opponent = frame.col::<String>("opponent", Optional)?;
    let mut out = Built::with_height(rows.len());
    for row in rows {
        let Some(competition_id) = out.id_or_stop(competition_id.required(row)) else {
            break;
        };
        let mut built = || -> Result<EntrantResult, InputError> {
            Ok(EntrantResult {
                competition_id: String::new(),
                entrant: entrant.required(row)?,
                boards_played: boards_played.required_count(row)?,
                score: score.required(row)?,
                opponent: opponent.get(row)?,
                origin: frame.origin(row),
            })
        };
        out.push(competition_id, built());
    }
    Ok(out)
}

/// A board file's rows as their cells built them, before the rules that need the other
/// tables. A Parquet file's rows are read where they lie, in its columns; only the rows
/// of a text file, and the few a cell breaks, are built as structs (the broken ones to
/// name the cell and the rule). The rows that broke a cell are kept apart, so that the
/// rest are checked and handed on as places, not moved.
#[derive(Debug)]
pub(super) struct BuiltBoards {
    /// [`COLUMNS`]: the file's columns (empty when its cells are text), and [`OWNED`]:
    /// the rows built as structs.
    pub(super) sets: [std::sync::Arc<dyn BoardColumns>; 2],
    /// The rows that built, in file order, each numbered by its competition.
    pub(super) slots: Vec<BoardSlot>,
    /// The rows broken by a cell: how many built rows come before each, its
    /// competition's id and the cell's error, in file order.
    pub(super) broken: Vec<(usize, Text, InputError)>,
    /// An error that stops the file (a row without a competition id), after every row
    /// before it.
    pub(super) stop: Option<InputError>,
}

/// The set of [`BuiltBoards::sets`] that reads the file's columns in place.
pub(super) const COLUMNS: u32 = 0;
/// The set of [`BuiltBoards::sets`] that holds the rows built as structs.
pub(super) const OWNED: u32 = 1;

/// Builds a board file's rows from its cells, each numbered by its competition with
/// `number` (asked once per run of rows of one id). It needs nothing but the frame, so
/// the next file's rows are built while the rows before are checked.
pub(super) fn build_boards(
    frame: &Frame,
    number: &mut dyn FnMut(&str) -> u32,
) -> Result<BuiltBoards, Error> {
    super::known::check_columns(frame, "boards")?;
    let mut cols = BoardCols::open(frame)?;
    let resolved = cols.resolve(frame);
    let mut slots: Vec<BoardSlot> = Vec::with_capacity(frame.height());
    let mut owned: Vec<BoardResult> = Vec::new();
    let mut broken: Vec<(usize, Text, InputError)> = Vec::new();
    let mut stop = None;
    // The competition of the row before, and its number: a competition's rows are
    // together, so an id is numbered once per run.
    let mut last: Option<(Text, u32)> = None;
    let mut numbered = |id: &str| -> u32 {
        match &last {
            Some((before, at)) if before.as_str() == id => *at,
            _ => {
                let at = number(id);
                last = Some((Text::from(id), at));
                at
            }
        }
    };
    for row in 0..frame.height() {
        if let Some(resolved) = &resolved {
            if let Some((id, on_board)) = resolved.valid(row) {
                slots.push(BoardSlot {
                    set: COLUMNS,
                    row: row as u32,
                    board: on_board,
                    competition: numbered(id),
                });
                continue;
            }
        }
        // A text file's cells, or a row that breaks a rule in a cell: read through the
        // columns, which name the cell and the rule.
        let competition_id = match cols.competition_id.required(row) {
            Ok(id) => id,
            Err(error) => {
                // Nothing after it is read, as when the rows are checked as they come.
                stop = Some(error);
                break;
            }
        };
        match cols.build(frame, row) {
            Ok(mut record) => {
                slots.push(BoardSlot {
                    set: OWNED,
                    row: owned.len() as u32,
                    board: record.board,
                    competition: numbered(&competition_id),
                });
                record.competition_id = competition_id;
                owned.push(record);
            }
            Err(error) => broken.push((slots.len(), competition_id, error)),
        }
    }
    let columns: std::sync::Arc<dyn BoardColumns> = match resolved {
        Some(resolved) => std::sync::Arc::new(resolved),
        None => std::sync::Arc::new(OwnedBoards::default()),
    };
    Ok(BuiltBoards {
        sets: [columns, std::sync::Arc::new(OwnedBoards(owned))],
        slots,
        broken,
        stop,
    })
}

/// A board file's columns, each read through its cell reader: the way to a row that
/// breaks a rule in a cell (which the reader names), and to every row of a text file.
struct BoardCols {
    competition_id: Col<Text>,
    board: Col<i32>,
    ns: Col<Text>,
    ew: Col<Text>,
    contract: Col<Text>,
    declarer: Col<Text>,
    tricks: Col<i64>,
    ns_score: Col<i32>,
    adjusted: Col<Text>,
    north: Col<Text>,
    south: Col<Text>,
    east: Col<Text>,
    west: Col<Text>,
    round: Col<i32>,
    session: Col<i32>,
    table: Col<i32>,
    room: Col<Text>,
    ns_penalty: Col<f64>,
    ew_penalty: Col<f64>,
    sources: Sources,
}

impl BoardCols {
    /// Finds the board columns of `frame`; only the id and the board must be there.
    fn open(frame: &Frame) -> Result<Self, Error> {
        Ok(Self {
            competition_id: frame.col::<Text>("competition_id", Required)?,
            board: frame.col::<i32>("board", Required)?,
            ns: frame.col::<Text>("ns", Optional)?,
            ew: frame.col::<Text>("ew", Optional)?,
            contract: frame.col::<Text>("contract", Optional)?,
            declarer: frame.col::<Text>("declarer", Optional)?,
            // Read wide so that an absurd value is reported as such, not as an int32
            // overflow.
            tricks: frame.col::<i64>("tricks", Optional)?,
            ns_score: frame.col::<i32>("ns_score", Optional)?,
            adjusted: frame.col::<Text>("adjusted", Optional)?,
            north: frame.col::<Text>("north", Optional)?,
            south: frame.col::<Text>("south", Optional)?,
            east: frame.col::<Text>("east", Optional)?,
            west: frame.col::<Text>("west", Optional)?,
            round: frame.col::<i32>("round", Optional)?,
            session: frame.col::<i32>("session", Optional)?,
            table: frame.col::<i32>("table", Optional)?,
            room: frame.col::<Text>("room", Optional)?,
            ns_penalty: frame.col::<f64>("ns_penalty", Optional)?,
            ew_penalty: frame.col::<f64>("ew_penalty", Optional)?,
            sources: frame.sources()?,
        })
    }

    /// The columns resolved to their Arrow arrays, with the rows that keep the row
    /// rules marked; none when a column is text (a text file's, or one read as text).
    fn resolve(&self, frame: &Frame) -> Option<ResolvedBoards> {
        Some(ResolvedBoards {
            path: std::sync::Arc::clone(&frame.path),
            first_row: frame.first_row,
            competition_id: self.competition_id.arrow_array()??,
            board: self.board.arrow_array()??,
            ns: present(self.ns.arrow_array()?),
            ew: present(self.ew.arrow_array()?),
            contract: present(self.contract.arrow_array()?),
            declarer: present(self.declarer.arrow_array()?),
            tricks: present(self.tricks.arrow_array()?),
            ns_score: present(self.ns_score.arrow_array()?),
            adjusted: present(self.adjusted.arrow_array()?),
            north: present(self.north.arrow_array()?),
            south: present(self.south.arrow_array()?),
            east: present(self.east.arrow_array()?),
            west: present(self.west.arrow_array()?),
            round: present(self.round.arrow_array()?),
            session: present(self.session.arrow_array()?),
            table: present(self.table.arrow_array()?),
            room: present(self.room.arrow_array()?),
            ns_penalty: present(self.ns_penalty.arrow_array()?),
            ew_penalty: present(self.ew_penalty.arrow_array()?),
            source_file: self.sources.file.arrow_array()?,
            source_line: self.sources.line.arrow_array()?,
            kept: Vec::new(),
        })
        .map(|mut resolved| {
            resolved.kept = resolved.rows_keeping_row_rules();
            resolved
        })
    }

    /// Builds `row` through the cell readers, its competition id left empty for the
    /// caller (who read it first); the error names the first cell that breaks a rule.
    #[inline]
    fn build(&mut self, frame: &Frame, row: usize) -> Result<BoardResult, InputError> {
        let tricks_taken = self.tricks.get(row)?;
        Ok(BoardResult {
            competition_id: Text::default(),
            board: self.board.required_count(row)?,
            ns: self.ns.get(row)?,
            ew: self.ew.get(row)?,
            contract: self.contract.get(row)?,
            declarer: self.declarer.get(row)?,
            tricks: self
                .tricks
                .check(row, tricks_taken.map(validate::tricks_in_range).transpose())?,
            ns_score: self.ns_score.get(row)?,
            adjusted: self.adjusted.get(row)?,
            north: self.north.get(row)?,
            south: self.south.get(row)?,
            east: self.east.get(row)?,
            west: self.west.get(row)?,
            round: self.round.count(row)?,
            session: self.session.count(row)?,
            table: self.table.count(row)?,
            room: self.room.get(row)?,
            ns_penalty: self.ns_penalty.get(row)?,
            ew_penalty: self.ew_penalty.get(row)?,
            origin: self.sources.origin(frame, row)?,
        })
    }
}

/// A Parquet board file's columns, each resolved to its Arrow array (or to absent) once
/// per frame, so that a row's cells are read where they lie, without going through a
/// column's cell reader for each. It holds the rows that break no rule in a cell,
/// which is nearly all; a row it does not hold is read again through the columns, so
/// that the rule it breaks is named exactly as before.
struct ResolvedBoards {
    path: std::sync::Arc<std::path::Path>,
    first_row: usize,
    competition_id: StrArray,
    board: Ints,
    ns: Option<StrArray>,
    ew: Option<StrArray>,
    contract: Option<StrArray>,
    declarer: Option<StrArray>,
    tricks: Option<Ints>,
    ns_score: Option<Ints>,
    adjusted: Option<StrArray>,
    north: Option<StrArray>,
    south: Option<StrArray>,
    east: Option<StrArray>,
    west: Option<StrArray>,
    round: Option<Ints>,
    session: Option<Ints>,
    table: Option<Ints>,
    room: Option<StrArray>,
    ns_penalty: Option<F64Array>,
    ew_penalty: Option<F64Array>,
    source_file: Option<StrArray>,
    source_line: Option<Ints>,
    /// Per row: whether its cells keep every rule a board row is held to on its own
    /// ([`ResolvedBoards::rows_keeping_row_rules`]).
    kept: Vec<bool>,
}

impl std::fmt::Debug for ResolvedBoards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedBoards")
            .field("path", &self.path)
            .field("first_row", &self.first_row)
            .field("rows", &self.competition_id.len())
            .finish_non_exhaustive()
    }
}

/// A column, or none when its every cell is null: such a column is held as absent,
/// which reads the same, cell for cell, without looking.
fn present<C: AllNull>(column: Option<C>) -> Option<C> {
    column.filter(|c| !c.all_null())
}

/// The text at `row` of an optional column.
#[inline(always)]
fn text_at(column: &Option<StrArray>, row: usize) -> Option<&str> {
    column.as_ref().and_then(|array| text_cell(array, row))
}

/// The int32 at `row` of an optional column; `Err` for a value that does not fit.
#[inline(always)]
fn int32_at(column: &Option<Ints>, row: usize) -> Result<Option<i32>, ()> {
    match column.as_ref().and_then(|ints| ints.get(row)) {
        None => Ok(None),
        Some(value) => i32::try_from(value).map(Some).map_err(drop),
    }
}

/// A count (round, session, table) at `row` of an optional column: an int32 that is
/// not negative.
#[inline(always)]
fn count_at(column: &Option<Ints>, row: usize) -> Result<Option<u32>, ()> {
    match int32_at(column, row)? {
        None => Ok(None),
        Some(value) => u32::try_from(value).map(Some).map_err(drop),
    }
}

/// A finite float at `row` of an optional column.
#[inline(always)]
fn float_at(column: &Option<F64Array>, row: usize) -> Result<Option<f64>, ()> {
    match column.as_ref().and_then(|array| primitive_f64(array, row)) {
        Some(value) if !value.is_finite() => Err(()),
        value => Ok(value),
    }
}

impl ResolvedBoards {
    /// Which rows keep every rule [`Validator::board`] holds a board row to on its own,
    /// the rules that need no other table (its seats, which need the competition's
    /// entrants, are left to the checks): the board number and the counts in range,
    /// the declarer one of `N`, `E`, `S`, `W`, the score and the penalties within
    /// their bounds, the seats of a pair or of an individual event filled, and a
    /// contract or an artificial score, a contract other than a pass with its declarer
    /// and tricks.
    ///
    /// Each column is checked in one pass over its values, where the checks would read
    /// every cell of every row one at a time: that was a third of the board reader's
    /// work. A row found here is held only to the rules that need the entrants; any
    /// other row is checked cell by cell, which names the rule it breaks. A row
    /// [`ResolvedBoards::valid`] does not accept is never read from these columns.
    fn rows_keeping_row_rules(&self) -> Vec<bool> {
        use validate::limits::{
            MAX_BOARD_NUMBER, MAX_PENALTY, MAX_ROUND_OR_TABLE, MAX_TABLE_SCORE,
        };
        let rows = self.competition_id.len();
        let mut kept = vec![true; rows];
        self.board
            .mark_outside(1, i64::from(MAX_BOARD_NUMBER), &mut kept);
        for counted in [&self.round, &self.table].into_iter().flatten() {
            counted.mark_outside(0, i64::from(MAX_ROUND_OR_TABLE), &mut kept);
        }
        if let Some(score) = &self.ns_score {
            let bound = i64::from(MAX_TABLE_SCORE);
            score.mark_outside(-bound, bound, &mut kept);
        }
        if let Some(tricks) = &self.tricks {
            tricks.mark_outside(0, i64::from(validate::MAX_TRICKS), &mut kept);
        }
        for penalty in [&self.ns_penalty, &self.ew_penalty].into_iter().flatten() {
            mark_floats_beyond(penalty, MAX_PENALTY, &mut kept);
        }
        let valid = |column: &Option<StrArray>, row: usize| {
            column.as_ref().is_some_and(|array| text_valid(array, row))
        };
        for (row, kept) in kept.iter_mut().enumerate() {
            if !*kept {
                continue;
            }
            // An individual event's seats are looked at only where a pair's are not
            // filled: one pair side is enough (a pair the export does not list).
            let seated = (valid(&self.ns, row) || valid(&self.ew, row))
                || [&self.north, &self.south, &self.east, &self.west]
                    .iter()
                    .all(|seat| valid(seat, row));
            let declarer = text_at(&self.declarer, row);
            let declared = declarer.is_some_and(|d| validate::DECLARERS.contains(&d));
            let scored = if valid(&self.adjusted, row) {
                true
            } else {
                match text_at(&self.contract, row) {
                    None => false,
                    Some(_)
                        if declarer.is_some()
                            && self.tricks.as_ref().is_some_and(|t| t.is_valid(row)) =>
                    {
                        true
                    }
                    Some(contract) => contract.trim().eq_ignore_ascii_case("PASS"),
                }
            };
            *kept = seated && (declarer.is_none() || declared) && scored;
        }
        kept
    }

    /// The competition id and board number of the row at `row`, or `None` when a cell
    /// of it breaks a rule (or its competition id is empty): the caller reads it
    /// through the columns.
    #[inline]
    fn valid(&self, row: usize) -> Option<(&str, u32)> {
        let id = text_cell(&self.competition_id, row)?;
        let board = u32::try_from(i32::try_from(self.board.get(row)?).ok()?).ok()?;
        if let Some(taken) = self.tricks.as_ref().and_then(|ints| ints.get(row)) {
            validate::tricks_in_range(taken).ok()?;
        }
        int32_at(&self.ns_score, row).ok()?;
        for counted in [&self.round, &self.session, &self.table] {
            count_at(counted, row).ok()?;
        }
        float_at(&self.ns_penalty, row).ok()?;
        float_at(&self.ew_penalty, row).ok()?;
        Some((id, board))
    }
}

/// The cells of the rows [`ResolvedBoards::valid`] accepts (those it does not are never
/// asked for: a cell that would break its rule reads as absent).
impl BoardColumns for ResolvedBoards {
    #[inline]
    fn keeps_row_rules(&self, row: u32) -> bool {
        self.kept.get(row as usize).copied().unwrap_or(false)
    }
    #[inline]
    fn competition_id(&self, row: u32) -> &str {
        text_cell(&self.competition_id, row as usize).unwrap_or_default()
    }
    #[inline]
    fn text(&self, cell: BoardText, row: u32) -> Option<&str> {
        let column = match cell {
            BoardText::Ns => &self.ns,
            BoardText::Ew => &self.ew,
            BoardText::Contract => &self.contract,
            BoardText::Declarer => &self.declarer,
            BoardText::Adjusted => &self.adjusted,
            BoardText::North => &self.north,
            BoardText::South => &self.south,
            BoardText::East => &self.east,
            BoardText::West => &self.west,
            BoardText::Room => &self.room,
        };
        text_at(column, row as usize)
    }
    #[inline]
    fn tricks(&self, row: u32) -> Option<u8> {
        let taken = self.tricks.as_ref()?.get(row as usize)?;
        validate::tricks_in_range(taken).ok()
    }
    #[inline]
    fn ns_score(&self, row: u32) -> Option<i32> {
        int32_at(&self.ns_score, row as usize).ok().flatten()
    }
    #[inline]
    fn round(&self, row: u32) -> Option<u32> {
        count_at(&self.round, row as usize).ok().flatten()
    }
    #[inline]
    fn session(&self, row: u32) -> Option<u32> {
        count_at(&self.session, row as usize).ok().flatten()
    }
    #[inline]
    fn table(&self, row: u32) -> Option<u32> {
        count_at(&self.table, row as usize).ok().flatten()
    }
    #[inline]
    fn ns_penalty(&self, row: u32) -> Option<f64> {
        float_at(&self.ns_penalty, row as usize).ok().flatten()
    }
    #[inline]
    fn ew_penalty(&self, row: u32) -> Option<f64> {
        float_at(&self.ew_penalty, row as usize).ok().flatten()
    }
    fn origin(&self, row: u32) -> Origin {
        let row = row as usize;
        match self
            .source_file
            .as_ref()
            .and_then(|files| text_cell(files, row))
        {
            None => Origin::new(&self.path, self.first_row + row + 1),
            Some(file) => Origin {
                file: Some(std::sync::Arc::from(std::path::Path::new(file))),
                row: self
                    .source_line
                    .as_ref()
                    .and_then(|lines| lines.get(row))
                    .and_then(|line| usize::try_from(line).ok()),
            },
        }
    }
}

/// Board rows held to the row rules: the sets they are read from, and the rows that
/// passed, in file order.
pub(super) struct CheckedBoards {
    pub(super) sets: [std::sync::Arc<dyn BoardColumns>; 2],
    pub(super) slots: Vec<BoardSlot>,
}

/// Holds built board rows to the row rules, in row order, and returns those that pass.
pub(super) fn check_boards(built: BuiltBoards, check: &mut Check) -> Result<CheckedBoards, Error> {
    let BuiltBoards {
        sets,
        mut slots,
        broken,
        stop,
    } = built;
    let mut broken = broken.into_iter().peekable();
    let mut kept = 0;
    // The competition of the run of rows before, and whether its own row passed: the
    // rows of a competition left out before its own row was read (one the checks do
    // not know) are not looked at. What the checks know is settled before the board
    // rows, so it is asked once a run, and the quarantine only for such rows.
    let mut run: Option<(u32, bool)> = None;
    for at in 0..slots.len() {
        while let Some((_, id, error)) = broken.next_if(|(before, _, _)| *before == at) {
            check.broken(&id, error)?;
        }
        let slot = slots[at];
        let row = BoardRef::Columns {
            columns: &*sets[slot.set as usize],
            row: slot.row,
            board: slot.board,
        };
        let id = row.competition_id();
        let known = match run {
            Some((number, known)) if number == slot.competition && number != u32::MAX => known,
            _ => {
                let known = check.validator.knows_competition(id);
                run = Some((slot.competition, known));
                known
            }
        };
        if !known && check.quarantine.contains(id) {
            continue;
        }
        match check.validator.board(&row) {
            Ok(()) => {
                slots[kept] = slot;
                kept += 1;
            }
            Err(error) => check.quarantine.add(id, error)?,
        }
    }
    for (_, id, error) in broken {
        check.broken(&id, error)?;
    }
    slots.truncate(kept);
    match stop {
        Some(error) => Err(error.into()),
        None => Ok(CheckedBoards { sets, slots }),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::Path;
    use std::sync::Arc;

    use polars::prelude::*;

    use super::{build_boards, BuiltBoards, COLUMNS, OWNED};
    use crate::dataset::{
        BoardRef, BoardResult, BoardRow, Competition, Entrant, Format, ScoringMethod,
    };
    use crate::error::InputError;
    use crate::import::validate::Validator;
    use crate::store::table::locate::Frame;

    /// Eight board rows: two that build, four with a broken cell each (an int32
    /// overflow, a negative round, a NaN penalty, 14 tricks), then one without a
    /// competition id, which stops the file, and one after it.
    fn columns() -> Vec<Column> {
        vec![
            Column::new(
                "competition_id".into(),
                [
                    Some("c1"),
                    Some("c1"),
                    Some("c1"),
                    Some("c2"),
                    Some("c2"),
                    Some("c2"),
                    None,
                    Some("c3"),
                ],
            ),
            Column::new("board".into(), [1_i32, 1, 2, 1, 2, 3, 4, 1]),
            Column::new(
                "ns".into(),
                [
                    Some("1"),
                    Some("3"),
                    Some("1"),
                    Some("1"),
                    None,
                    None,
                    None,
                    Some("1"),
                ],
            ),
            Column::new(
                "ew".into(),
                [
                    Some("2"),
                    Some("4"),
                    Some("2"),
                    Some("2"),
                    None,
                    None,
                    None,
                    Some("2"),
                ],
            ),
            Column::new(
                "contract".into(),
                [
                    Some("3NT"),
                    Some("4S"),
                    Some("2H"),
                    Some("PASS"),
                    Some("1C"),
                    None,
                    None,
                    None,
                ],
            ),
            Column::new(
                "declarer".into(),
                [
                    Some("N"),
                    Some("S"),
                    Some("E"),
                    None,
                    Some("W"),
                    None,
                    None,
                    None,
                ],
            ),
            Column::new(
                "tricks".into(),
                [
                    Some(9_i64),
                    Some(10),
                    Some(8),
                    None,
                    Some(14),
                    None,
                    None,
                    None,
                ],
            ),
            Column::new(
                "ns_score".into(),
                [
                    None,
                    Some(3_000_000_000_i64),
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                ],
            ),
            Column::new(
                "adjusted".into(),
                [None, None, None, None, None, Some("A6040"), None, None],
            ),
            Column::new(
                "north".into(),
                [None, None, None, None, Some("5"), Some("5"), None, None],
            ),
            Column::new("round".into(), [1_i32, 2, -1, 1, 1, 2, 1, 1]),
            Column::new(
                "ns_penalty".into(),
                [
                    None,
                    None,
                    None,
                    Some(f64::NAN),
                    None,
                    Some(-0.5),
                    None,
                    None,
                ],
            ),
            Column::new(
                "source_file".into(),
                [
                    Some("club.pbn"),
                    None,
                    None,
                    None,
                    None,
                    Some("club.pbn"),
                    None,
                    None,
                ],
            ),
            Column::new(
                "source_line".into(),
                [Some(10_i64), None, None, None, None, Some(15), None, None],
            ),
        ]
    }

    fn frame_of(columns: Vec<Column>, text: bool) -> Frame {
        let names: HashSet<String> = if text {
            columns.iter().map(|c| c.name().to_string()).collect()
        } else {
            HashSet::new()
        };
        Frame {
            path: Arc::from(Path::new("boards.parquet")),
            df: DataFrame::new(8, columns).unwrap_or_default(),
            text_columns: names,
            first_row: 0,
        }
    }

    /// The same cells as text, as a CSV file gives them: read through the columns.
    fn as_text(columns: Vec<Column>) -> Vec<Column> {
        columns
            .into_iter()
            .map(|column| {
                column
                    .cast(&DataType::String)
                    .unwrap_or_else(|e| panic!("{e}"))
            })
            .collect()
    }

    /// The rows of `frame` built, their competitions numbered `c1` 1, `c2` 2, ...
    fn built(frame: &Frame) -> BuiltBoards {
        let mut number = |id: &str| id.trim_start_matches('c').parse().unwrap_or(0);
        build_boards(frame, &mut number).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The rows that built, read back through their sets as structs.
    fn rows(built: &BuiltBoards) -> Vec<BoardResult> {
        built
            .slots
            .iter()
            .map(|slot| {
                BoardRef::Columns {
                    columns: &*built.sets[slot.set as usize],
                    row: slot.row,
                    board: slot.board,
                }
                .to_result()
            })
            .collect()
    }

    /// (set, file row, board, competition number) of each row that built.
    fn places(built: &BuiltBoards) -> Vec<(u32, u32, u32, u32)> {
        built
            .slots
            .iter()
            .map(|s| (s.set, s.row, s.board, s.competition))
            .collect()
    }

    /// Rows built before, competition, file row, column, rule.
    type Broken = (usize, String, Option<usize>, Option<String>, String);

    /// Each broken row, as [`Broken`].
    fn broken(built: &BuiltBoards) -> Vec<Broken> {
        built
            .broken
            .iter()
            .map(|(before, id, error)| {
                (
                    *before,
                    id.to_string(),
                    error.location.row,
                    error.location.column.clone(),
                    error.rule.clone(),
                )
            })
            .collect()
    }

    /// The cells of one board row of competition `c1`, for [`typed_frame`]: a pair's
    /// or an individual event's seats, the contract's cells, and the cells with bounds.
    #[derive(Clone, Debug)]
    struct Cells {
        board: i32,
        ns: Option<&'static str>,
        ew: Option<&'static str>,
        seats: Option<[&'static str; 4]>,
        contract: Option<&'static str>,
        declarer: Option<&'static str>,
        tricks: Option<i32>,
        adjusted: Option<&'static str>,
        ns_score: Option<i32>,
        round: Option<i32>,
        table: Option<i32>,
        ns_penalty: Option<f64>,
    }

    /// 3NT by North making nine, between pairs 1 and 2 on board 1, in round and table 1.
    fn plain() -> Cells {
        Cells {
            board: 1,
            ns: Some("1"),
            ew: Some("2"),
            seats: None,
            contract: Some("3NT"),
            declarer: Some("N"),
            tricks: Some(9),
            adjusted: None,
            ns_score: None,
            round: Some(1),
            table: Some(1),
            ns_penalty: None,
        }
    }

    /// `rows` as a Parquet file's typed columns give them (every column present).
    fn typed_frame(rows: &[Cells]) -> Frame {
        let seat = |at: usize| -> Vec<Option<&str>> {
            rows.iter().map(|r| r.seats.map(|s| s[at])).collect()
        };
        let columns = vec![
            Column::new("competition_id".into(), vec!["c1"; rows.len()]),
            Column::new(
                "board".into(),
                rows.iter().map(|r| r.board).collect::<Vec<_>>(),
            ),
            Column::new("ns".into(), rows.iter().map(|r| r.ns).collect::<Vec<_>>()),
            Column::new("ew".into(), rows.iter().map(|r| r.ew).collect::<Vec<_>>()),
            Column::new("north".into(), seat(0)),
            Column::new("south".into(), seat(1)),
            Column::new("east".into(), seat(2)),
            Column::new("west".into(), seat(3)),
            Column::new(
                "contract".into(),
                rows.iter().map(|r| r.contract).collect::<Vec<_>>(),
            ),
            Column::new(
                "declarer".into(),
                rows.iter().map(|r| r.declarer).collect::<Vec<_>>(),
            ),
            Column::new(
                "tricks".into(),
                rows.iter().map(|r| r.tricks).collect::<Vec<_>>(),
            ),
            Column::new(
                "adjusted".into(),
                rows.iter().map(|r| r.adjusted).collect::<Vec<_>>(),
            ),
            Column::new(
                "ns_score".into(),
                rows.iter().map(|r| r.ns_score).collect::<Vec<_>>(),
            ),
            Column::new(
                "round".into(),
                rows.iter().map(|r| r.round).collect::<Vec<_>>(),
            ),
            Column::new(
                "table".into(),
                rows.iter().map(|r| r.table).collect::<Vec<_>>(),
            ),
            Column::new(
                "ns_penalty".into(),
                rows.iter().map(|r| r.ns_penalty).collect::<Vec<_>>(),
            ),
        ];
        Frame {
            path: Arc::from(Path::new("boards.parquet")),
            df: DataFrame::new(rows.len(), columns).unwrap_or_else(|e| panic!("{e}")),
            text_columns: HashSet::new(),
            first_row: 0,
        }
    }

    /// The checks of a dataset whose competition `c1` lists entrants `1` to `8`, and
    /// `9` when `nine`.
    fn checks_of_c1(nine: bool) -> Validator {
        let mut validator = Validator::default();
        let date = chrono::NaiveDate::from_ymd_opt(2026, 11, 3).unwrap_or_default();
        let mut c1 = Competition::new("c1", date, Format::Pairs, ScoringMethod::Matchpoints);
        c1.boards = Some(2);
        assert_eq!(validator.competition(&c1), Ok(()));
        let names = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
        for (player, &name) in (1..).zip(&names[..if nine { 9 } else { 8 }]) {
            let mut entrant = Entrant::new("c1", name);
            entrant.players[0] = Some(player);
            assert_eq!(validator.entrant(&entrant), Ok(()));
        }
        validator
    }

    /// What the reader and the checks say of a row: whether the reader found it
    /// keeping its own rules; what the checks say of it read in place, and read as a
    /// struct of its own (checked cell by cell); and, as a struct, by checks that list
    /// every entrant it names (so that only its own rules can fail it).
    type Verdicts = (
        bool,
        Result<(), String>,
        Result<(), String>,
        Result<(), String>,
    );

    /// [`Verdicts`] of each of `rows`.
    fn kept_and_checked(rows: &[Cells]) -> Vec<Verdicts> {
        let built = built(&typed_frame(rows));
        assert_eq!(built.slots.len(), rows.len(), "every row is read in place");
        let mut in_place = checks_of_c1(false);
        let mut as_struct = checks_of_c1(false);
        let mut all_listed = checks_of_c1(true);
        let rule = |checked: Result<(), InputError>| checked.map_err(|e| e.rule);
        built
            .slots
            .iter()
            .map(|slot| {
                let row = BoardRef::Columns {
                    columns: &*built.sets[slot.set as usize],
                    row: slot.row,
                    board: slot.board,
                };
                (
                    row.keeps_row_rules(),
                    rule(in_place.board(&row)),
                    rule(as_struct.board(&row.to_result())),
                    rule(all_listed.board(&row.to_result())),
                )
            })
            .collect()
    }

    /// Each rule a board row is held to on its own, broken by one row (on a bound, and
    /// just past it), beside rows that keep them all: the reader's column by column
    /// verdict is the one the checks reach cell by cell, and a row it finds keeping
    /// them is still held to the rules that need the entrants.
    #[test]
    fn rows_keeping_their_own_rules_are_found_column_by_column_as_the_checks_find_them() {
        let individual = Cells {
            ns: None,
            ew: None,
            seats: Some(["1", "2", "3", "4"]),
            ..plain()
        };
        let rows = [
            plain(),
            Cells {
                board: 0,
                ..plain()
            },
            Cells {
                board: 9_999,
                ..plain()
            },
            Cells {
                board: 10_000,
                ..plain()
            },
            Cells {
                round: Some(10_000),
                ..plain()
            },
            Cells {
                table: Some(9_999),
                round: None,
                ..plain()
            },
            Cells {
                table: Some(10_000),
                ..plain()
            },
            Cells {
                ns_score: Some(-7_600),
                ..plain()
            },
            Cells {
                ns_score: Some(7_601),
                ..plain()
            },
            Cells {
                ns_penalty: Some(-100.0),
                ..plain()
            },
            Cells {
                ns_penalty: Some(100.5),
                ..plain()
            },
            Cells {
                ns_penalty: Some(-100.01),
                ..plain()
            },
            Cells {
                declarer: Some("X"),
                ..plain()
            },
            Cells {
                declarer: Some("n"),
                ..plain()
            },
            // One pair side: a pair the export does not list, kept.
            Cells {
                ew: None,
                ..plain()
            },
            individual.clone(),
            Cells {
                seats: Some(["1", "2", "3", "9"]),
                ..individual.clone()
            },
            Cells {
                ns: Some("5"),
                ..individual
            },
            Cells {
                declarer: None,
                ..plain()
            },
            Cells {
                tricks: None,
                ..plain()
            },
            Cells {
                contract: Some(" pass "),
                declarer: None,
                tricks: None,
                ..plain()
            },
            Cells {
                contract: Some("PASSED"),
                declarer: None,
                tricks: None,
                ..plain()
            },
            Cells {
                contract: None,
                declarer: None,
                tricks: None,
                adjusted: Some("A5050"),
                ..plain()
            },
            Cells {
                contract: None,
                declarer: None,
                tricks: None,
                ns_score: Some(0),
                ..plain()
            },
            Cells {
                ns: Some("9"),
                ..plain()
            },
            Cells {
                tricks: Some(13),
                ..plain()
            },
        ];
        let found = kept_and_checked(&rows);
        let kept: Vec<bool> = found.iter().map(|(kept, _, _, _)| *kept).collect();
        assert_eq!(
            kept,
            [
                true, false, true, false, false, true, false, true, false, true, false, false,
                false, false, true, true, true, true, false, false, true, false, true, false, true,
                true
            ]
        );
        for (at, (kept, in_place, as_struct, all_listed)) in found.iter().enumerate() {
            assert_eq!(in_place, as_struct, "row {at}");
            assert_eq!(all_listed.is_ok(), *kept, "row {at}");
            // Rows 16 and 24 keep their own rules, but name an entrant c1 does not list.
            assert_eq!(in_place.is_ok(), *kept && at != 16 && at != 24, "row {at}");
        }
        assert_eq!(
            found[16].1.as_ref().err().map(String::as_str),
            Some("no entrant `9` in competition `c1` (not in `entrants`)")
        );
        assert_eq!(
            found[3].1.as_ref().err().map(String::as_str),
            Some("`board` must be between 1 and 9999, found 10000")
        );
    }

    proptest::proptest! {
        /// Any mix of cells on and around their bounds (a penalty that is not a finite
        /// number is never read in place: the cell breaks its type's rule): the reader finds a row keeping
        /// its own rules exactly when the checks, cell by cell and with every entrant
        /// listed, pass it; and the checks say the same of it read in place as read as
        /// a struct, an unlisted entrant (`9`) among the rest.
        #[test]
        fn the_column_verdict_is_the_cell_by_cell_one(
            rows in proptest::collection::vec(
                (
                    proptest::sample::select(vec![0, 1, 9_999, 10_000]),
                    proptest::sample::select(vec![(Some("1"), Some("2")), (Some("1"), None), (None, None), (Some("9"), Some("2"))]),
                    proptest::option::of(proptest::sample::select(vec![["1", "2", "3", "4"], ["5", "6", "7", "9"]])),
                    proptest::option::of(proptest::sample::select(vec!["3NT", "PASS", " Pass", "", "7C"])),
                    proptest::option::of(proptest::sample::select(vec!["N", "W", "X", ""])),
                    proptest::option::of(proptest::sample::select(vec![0, 13])),
                    proptest::option::of(proptest::sample::select(vec!["A5050", ""])),
                    proptest::option::of(proptest::sample::select(vec![-7_601, -7_600, 0, 7_600, 7_601])),
                    (
                        proptest::option::of(proptest::sample::select(vec![0, 9_999, 10_000])),
                        proptest::option::of(proptest::sample::select(vec![0, 9_999, 10_000])),
                        proptest::option::of(proptest::sample::select(vec![-100.0, 100.0, 100.25, -150.0])),
                    ),
                ),
                1..40,
            )
        ) {
            let rows: Vec<Cells> = rows
                .into_iter()
                .map(|(board, (ns, ew), seats, contract, declarer, tricks, adjusted, ns_score, (round, table, ns_penalty))| Cells {
                    board, ns, ew, seats, contract, declarer, tricks, adjusted, ns_score, round, table, ns_penalty,
                })
                .collect();
            for (kept, in_place, as_struct, all_listed) in kept_and_checked(&rows) {
                proptest::prop_assert_eq!(&in_place, &as_struct);
                proptest::prop_assert_eq!(kept, all_listed.is_ok());
            }
        }
    }

    #[test]
    fn typed_columns_build_the_rows_and_name_the_broken_cells_as_text_cells_do() {
        let typed = built(&frame_of(columns(), false));
        let text = built(&frame_of(as_text(columns()), true));
        let typed_rows = rows(&typed);
        let row = |at: usize| -> Option<&BoardResult> { typed_rows.get(at) };
        assert_eq!(typed_rows.len(), 2);
        // Both read in place, in the file's columns; the text file's built as structs.
        assert_eq!(places(&typed), [(COLUMNS, 0, 1, 1), (COLUMNS, 5, 3, 2)]);
        assert_eq!(places(&text), [(OWNED, 0, 1, 1), (OWNED, 1, 3, 2)]);
        let first = row(0).unwrap_or_else(|| panic!("no row"));
        assert_eq!(first.competition_id, "c1");
        assert_eq!(
            (first.board, first.tricks, first.round, first.ns_score),
            (1, Some(9), Some(1), None)
        );
        assert_eq!(first.contract.as_deref(), Some("3NT"));
        assert_eq!(first.origin.row, Some(10));
        assert_eq!(first.origin.file.as_deref(), Some(Path::new("club.pbn")));
        let last = row(1).unwrap_or_else(|| panic!("no row"));
        assert_eq!(last.competition_id, "c2");
        assert_eq!(
            (last.board, last.adjusted.as_deref(), last.north.as_deref()),
            (3, Some("A6040"), Some("5"))
        );
        assert_eq!((last.ns.as_deref(), last.contract.as_deref()), (None, None));
        assert_eq!(last.ns_penalty, Some(-0.5));
        assert_eq!(last.origin.row, Some(15));
        let named = |before: usize, id: &str, row: usize, column: &str, rule: &str| {
            (
                before,
                id.to_owned(),
                Some(row),
                Some(column.to_owned()),
                rule.to_owned(),
            )
        };
        assert_eq!(
            broken(&typed),
            vec![
                named(1, "c1", 2, "ns_score", "3000000000 does not fit in int32"),
                named(
                    1,
                    "c1",
                    3,
                    "round",
                    "`round` must not be negative, found -1"
                ),
                named(1, "c2", 4, "ns_penalty", "`NaN` is not a finite number"),
                named(
                    1,
                    "c2",
                    5,
                    "tricks",
                    "tricks must be between 0 and 13, found 14"
                ),
            ]
        );
        let stop = typed.stop.as_ref().unwrap_or_else(|| panic!("no stop"));
        assert_eq!(
            (stop.location.row, stop.location.column.as_deref()),
            (Some(7), Some("competition_id"))
        );
        assert_eq!(
            stop.rule,
            "`competition_id` is required but the cell is empty"
        );
        // Text cells, read through the columns, give the same rows and the same rules.
        assert_eq!(rows(&text), typed_rows);
        assert_eq!(broken(&text), broken(&typed));
        assert_eq!(text.stop, typed.stop);
    }

    /// Three rows with every column of the contract, each cell given in one row and
    /// absent in another: read in place, each row gives through every accessor the
    /// cells the same rows give when built as structs through the columns (text).
    #[test]
    fn rows_read_in_place_give_every_cell_the_built_rows_give() {
        let text = |cells: [Option<&str>; 3]| cells.map(|c| c.map(str::to_owned));
        let named = |name: &str, cells: [Option<&str>; 3]| Column::new(name.into(), text(cells));
        let columns = vec![
            named("competition_id", [Some("c1"), Some("c1"), Some("c2")]),
            Column::new("board".into(), [3_i32, 4, 1]),
            named("ns", [Some("1"), None, Some(" 2 ")]),
            named("ew", [Some("2"), None, Some("1")]),
            named("contract", [Some("4S"), Some("3NT"), None]),
            named("declarer", [Some("N"), Some("E"), None]),
            Column::new("tricks".into(), [Some(10_i64), Some(9), None]),
            Column::new("ns_score".into(), [Some(420_i32), Some(-400), None]),
            named("adjusted", [None, None, Some("A6040")]),
            named("north", [None, Some("n"), None]),
            named("south", [None, Some("s"), None]),
            named("east", [None, Some("e"), None]),
            named("west", [None, Some("w"), None]),
            Column::new("round".into(), [Some(1_i32), None, Some(2)]),
            Column::new("session".into(), [None, Some(2_i32), Some(1)]),
            Column::new("table".into(), [Some(7_i32), Some(0), None]),
            named("room", [Some("open"), None, Some("closed")]),
            Column::new("ns_penalty".into(), [None, Some(-1.5_f64), None]),
            Column::new("ew_penalty".into(), [Some(0.5_f64), None, None]),
            named("source_file", [None, Some("club.pbn"), None]),
            Column::new("source_line".into(), [None, Some(42_i64), None]),
        ];
        let frame = |columns: Vec<Column>, text: bool| Frame {
            path: Arc::from(Path::new("boards.parquet")),
            text_columns: if text {
                columns.iter().map(|c| c.name().to_string()).collect()
            } else {
                HashSet::new()
            },
            df: DataFrame::new(3, columns).unwrap_or_default(),
            first_row: 0,
        };
        let typed = built(&frame(columns.clone(), false));
        let as_text = built(&frame(as_text(columns), true));
        assert_eq!(
            places(&typed),
            [(COLUMNS, 0, 3, 1), (COLUMNS, 1, 4, 1), (COLUMNS, 2, 1, 2)]
        );
        assert_eq!(
            places(&as_text),
            [(OWNED, 0, 3, 1), (OWNED, 1, 4, 1), (OWNED, 2, 1, 2)]
        );
        let structs = rows(&as_text);
        assert_eq!(structs.len(), 3);
        for (slot, expected) in typed.slots.iter().zip(&structs) {
            let row = BoardRef::Columns {
                columns: &*typed.sets[slot.set as usize],
                row: slot.row,
                board: slot.board,
            };
            let e = expected;
            assert_eq!(row.competition_id(), e.competition_id.as_str());
            assert_eq!(row.board(), e.board);
            assert_eq!(row.ns(), e.ns.as_deref());
            assert_eq!(row.ew(), e.ew.as_deref());
            assert_eq!(row.contract(), e.contract.as_deref());
            assert_eq!(row.declarer(), e.declarer.as_deref());
            assert_eq!(row.tricks(), e.tricks);
            assert_eq!(row.ns_score(), e.ns_score);
            assert_eq!(row.adjusted(), e.adjusted.as_deref());
            assert_eq!(row.north(), e.north.as_deref());
            assert_eq!(row.south(), e.south.as_deref());
            assert_eq!(row.east(), e.east.as_deref());
            assert_eq!(row.west(), e.west.as_deref());
            assert_eq!(row.round(), e.round);
            assert_eq!(row.session(), e.session);
            assert_eq!(row.table(), e.table);
            assert_eq!(row.room(), e.room.as_deref());
            assert_eq!(row.ns_penalty(), e.ns_penalty);
            assert_eq!(row.ew_penalty(), e.ew_penalty);
            assert_eq!(row.origin(), e.origin);
            // All at once, as the struct gives them.
            assert_eq!(row.cells(), e.cells());
            assert_eq!(&row.to_result(), e);
        }
        // The values themselves, as the file holds them (the seat keeps its spaces).
        let second = &structs[1];
        assert_eq!(
            (second.north.as_deref(), second.ns_penalty, second.session),
            (Some("n"), Some(-1.5), Some(2))
        );
        assert_eq!(second.origin.file.as_deref(), Some(Path::new("club.pbn")));
        assert_eq!(second.origin.row, Some(42));
        let third = &structs[2];
        assert_eq!((third.ns.as_deref(), third.tricks), (Some(" 2 "), None));
        assert_eq!(
            third.origin.file.as_deref(),
            Some(Path::new("boards.parquet"))
        );
        assert_eq!(third.origin.row, Some(3));
    }

    /// A text cell: absent, empty, short enough to sit in its view or longer, with
    /// letters of more than one byte.
    fn text_cell() -> impl proptest::strategy::Strategy<Value = Option<String>> {
        proptest::option::of("[0-9a-zé€ ]{0,16}")
    }

    /// A board row whose every cell keeps its rule (so that it is read in place), its
    /// board number past 255 now and then.
    fn board_row() -> impl proptest::strategy::Strategy<Value = BoardResult> {
        use proptest::prelude::*;
        let count = || proptest::option::of(0_u32..=i32::MAX as u32);
        let penalty = || proptest::option::of(-1e6_f64..1e6);
        (
            (
                1_u32..600,
                text_cell(),
                text_cell(),
                text_cell(),
                text_cell(),
                proptest::option::of(0_u8..=13),
                proptest::option::of(any::<i32>()),
            ),
            (
                text_cell(),
                text_cell(),
                text_cell(),
                text_cell(),
                text_cell(),
            ),
            (count(), count(), count(), text_cell(), penalty(), penalty()),
        )
            .prop_map(
                |(
                    (board, ns, ew, contract, declarer, tricks, ns_score),
                    (adjusted, north, south, east, west),
                    (round, session, table, room, ns_penalty, ew_penalty),
                )| {
                    let text = |t: Option<String>| t.map(Into::into);
                    BoardResult {
                        board,
                        ns: text(ns),
                        ew: text(ew),
                        contract: text(contract),
                        declarer: text(declarer),
                        tricks,
                        ns_score,
                        adjusted: text(adjusted),
                        north: text(north),
                        south: text(south),
                        east: text(east),
                        west: text(west),
                        round,
                        session,
                        table,
                        room: text(room),
                        ns_penalty,
                        ew_penalty,
                        ..BoardResult::default()
                    }
                },
            )
    }

    /// The rows of a Parquet file's columns, with `id` as their competition.
    fn typed_columns(id: &str, rows: &[BoardResult]) -> Vec<Column> {
        let text = |name: &str, cell: fn(&BoardResult) -> Option<&str>| {
            let cells: Vec<Option<String>> =
                rows.iter().map(|r| cell(r).map(str::to_owned)).collect();
            Column::new(name.into(), cells)
        };
        let int = |name: &str, cell: fn(&BoardResult) -> Option<i64>| {
            Column::new(name.into(), rows.iter().map(cell).collect::<Vec<_>>())
        };
        let real = |name: &str, cell: fn(&BoardResult) -> Option<f64>| {
            Column::new(name.into(), rows.iter().map(cell).collect::<Vec<_>>())
        };
        let ids: Vec<String> = rows.iter().map(|_| id.to_owned()).collect();
        vec![
            Column::new("competition_id".into(), ids),
            int("board", |r| Some(i64::from(r.board))),
            text("ns", |r| r.ns.as_deref()),
            text("ew", |r| r.ew.as_deref()),
            text("contract", |r| r.contract.as_deref()),
            text("declarer", |r| r.declarer.as_deref()),
            int("tricks", |r| r.tricks.map(i64::from)),
            int("ns_score", |r| r.ns_score.map(i64::from)),
            text("adjusted", |r| r.adjusted.as_deref()),
            text("north", |r| r.north.as_deref()),
            text("south", |r| r.south.as_deref()),
            text("east", |r| r.east.as_deref()),
            text("west", |r| r.west.as_deref()),
            int("round", |r| r.round.map(i64::from)),
            int("session", |r| r.session.map(i64::from)),
            int("table", |r| r.table.map(i64::from)),
            text("room", |r| r.room.as_deref()),
            real("ns_penalty", |r| r.ns_penalty),
            real("ew_penalty", |r| r.ew_penalty),
        ]
    }

    proptest::proptest! {
        /// Rows read in place are encoded for the ledger a set at a time with the bytes
        /// each row is encoded as on its own (so they hash as the same rows held as
        /// structs, `pipeline::ledger`'s tests): any cells, columns with no value at all (`empty` clears a column
        /// in every row), text of several bytes a letter, boards past 255.
        #[test]
        fn rows_in_place_encode_and_hash_as_the_rows_themselves(
            id in "[a-zé0-9-]{1,20}",
            mut rows in proptest::collection::vec(board_row(), 1..40),
            empty in proptest::collection::vec(proptest::bool::weighted(0.3), 17),
        ) {
            use crate::dataset::encoding::{self, Encoder};
            for row in &mut rows {
                row.competition_id = id.as_str().into();
                let mut clear = empty.iter();
                let mut text = |cell: &mut Option<crate::dataset::Text>| {
                    if clear.next() == Some(&true) {
                        *cell = None;
                    }
                };
                for cell in [&mut row.ns, &mut row.ew, &mut row.contract, &mut row.declarer] {
                    text(cell);
                }
                for cell in [&mut row.adjusted, &mut row.north, &mut row.south] {
                    text(cell);
                }
                for cell in [&mut row.east, &mut row.west, &mut row.room] {
                    text(cell);
                }
                if clear.next() == Some(&true) { row.tricks = None; }
                if clear.next() == Some(&true) { row.ns_score = None; }
                for cell in [&mut row.round, &mut row.session, &mut row.table] {
                    if clear.next() == Some(&true) { *cell = None; }
                }
                for cell in [&mut row.ns_penalty, &mut row.ew_penalty] {
                    if clear.next() == Some(&true) { *cell = None; }
                }
            }
            let frame = Frame {
                path: Arc::from(Path::new("boards.parquet")),
                df: DataFrame::new(rows.len(), typed_columns(&id, &rows))
                    .unwrap_or_else(|e| panic!("{e}")),
                text_columns: HashSet::new(),
                first_row: 0,
            };
            let mut number = |_: &str| 1;
            let built = build_boards(&frame, &mut number).unwrap_or_else(|e| panic!("{e}"));
            proptest::prop_assert!(built.slots.iter().all(|s| s.set == COLUMNS));
            proptest::prop_assert_eq!(built.slots.len(), rows.len());

            let places: Vec<(u32, u32)> = built.slots.iter().map(|s| (s.row, s.board)).collect();
            let mut e = Encoder::new();
            e.flag(true);
            let mut spans = Vec::new();
            built.sets[COLUMNS as usize].encode_rows(&places, &mut e, &mut spans);
            proptest::prop_assert_eq!(spans.len(), rows.len());
            proptest::prop_assert_eq!(spans.first().map(|s| s.0), Some(1));
            for (&(start, end), row) in spans.iter().zip(&rows) {
                proptest::prop_assert_eq!(&e.as_bytes()[start..end], &encoding::board(row)[..]);
            }
            proptest::prop_assert_eq!(spans.last().map(|s| s.1), Some(e.len()));
        }
    }
}
