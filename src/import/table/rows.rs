//! The contract's rows, built from the cells of each table's frames and held to the
//! row rules as they are read.

use chrono::NaiveDate;

use crate::dataset::entrant_table::RowSink;
use crate::dataset::{BoardResult, Competition, Entrant, EntrantResult, Member, MemberKind, Text};
use crate::error::{Error, InputError};
use crate::import::validate::{self, Validator, PLAYER_COLUMNS};
use crate::scoring::conventions::Conventions;

use super::cells::Presence::{Optional, Required};
use super::locate::Frame;
use super::Check;

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

pub(super) fn read_competitions(
    frame: &Frame,
    check: &mut Check,
    out: &mut Vec<Competition>,
) -> Result<(), Error> {
    super::known::check_columns(frame, "competitions")?;
    let mut id = frame.col::<String>("competition_id", Required)?;
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
    let defaults = Conventions::default();
    let mut sources = frame.sources()?;
    out.reserve(frame.height());
    for row in 0..frame.height() {
        let competition_id = id.required(row)?;
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
                origin: sources.origin(frame, row)?,
            })
        };
        let built = built();
        out.extend(check.row(competition_id, built, Validator::competition)?);
    }
    Ok(())
}

pub(super) fn read_entrants(
    frame: &Frame,
    check: &mut Check,
    out: &mut dyn RowSink<Entrant>,
) -> Result<(), Error> {
    super::known::check_columns(frame, "entrants")?;
    let mut competition_id = frame.col::<String>("competition_id", Required)?;
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
    out.reserve_rows(frame.height());
    for row in 0..frame.height() {
        let competition_id = competition_id.required(row)?;
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
        let built = built();
        if let Some(entrant) = check.row(competition_id, built, Validator::entrant)? {
            out.push_row(entrant);
        }
    }
    Ok(())
}

pub(super) fn read_results(
    frame: &Frame,
    check: &mut Check,
    out: &mut dyn RowSink<EntrantResult>,
) -> Result<(), Error> {
    super::known::check_columns(frame, "results")?;
    let mut competition_id = frame.col::<String>("competition_id", Required)?;
    let mut entrant = frame.col::<String>("entrant", Required)?;
    let mut boards_played = frame.col::<i32>("boards_played", Required)?;
    let mut score = frame.col::<f64>("score", Required)?;
    let mut opponent = frame.col::<String>("opponent", Optional)?;
    out.reserve_rows(frame.height());
    for row in 0..frame.height() {
        let competition_id = competition_id.required(row)?;
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
        let built = built();
        if let Some(result) = check.row(competition_id, built, Validator::result)? {
            out.push_row(result);
        }
    }
    Ok(())
}

/// A board file's rows as their cells built them, before the rules that need the other
/// tables. The rows that built are kept apart from the few that broke a rule in a cell,
/// so that a row is written once, in place, and checked and handed on without being
/// moved again.
#[derive(Debug, Default)]
pub(super) struct BuiltBoards {
    /// The rows that built, each with its competition's id, in file order.
    pub(super) rows: Vec<BoardResult>,
    /// The rows broken by a cell: how many built rows come before each, its
    /// competition's id and the cell's error, in file order.
    pub(super) broken: Vec<(usize, Text, InputError)>,
    /// An error that stops the file (a row without a competition id), after every row
    /// before it.
    pub(super) stop: Option<InputError>,
}

/// Builds a board file's rows from its cells, in `rows` (emptied first; a vector whose
/// memory is reused). It needs nothing but the frame, so the next file's rows are built
/// while the rows before are checked.
pub(super) fn build_boards(
    frame: &Frame,
    mut rows: Vec<BoardResult>,
) -> Result<BuiltBoards, Error> {
    super::known::check_columns(frame, "boards")?;
    let mut competition_id = frame.col::<Text>("competition_id", Required)?;
    let mut board = frame.col::<i32>("board", Required)?;
    let mut ns = frame.col::<Text>("ns", Optional)?;
    let mut ew = frame.col::<Text>("ew", Optional)?;
    let mut contract = frame.col::<Text>("contract", Optional)?;
    let mut declarer = frame.col::<Text>("declarer", Optional)?;
    // Read wide so that an absurd value is reported as such, not as an int32 overflow.
    let mut tricks = frame.col::<i64>("tricks", Optional)?;
    let mut ns_score = frame.col::<i32>("ns_score", Optional)?;
    let mut adjusted = frame.col::<Text>("adjusted", Optional)?;
    let mut north = frame.col::<Text>("north", Optional)?;
    let mut south = frame.col::<Text>("south", Optional)?;
    let mut east = frame.col::<Text>("east", Optional)?;
    let mut west = frame.col::<Text>("west", Optional)?;
    let mut round = frame.col::<i32>("round", Optional)?;
    let mut session = frame.col::<i32>("session", Optional)?;
    let mut table = frame.col::<i32>("table", Optional)?;
    let mut room = frame.col::<Text>("room", Optional)?;
    let mut ns_penalty = frame.col::<f64>("ns_penalty", Optional)?;
    let mut ew_penalty = frame.col::<f64>("ew_penalty", Optional)?;
    let mut sources = frame.sources()?;
    rows.clear();
    rows.reserve(frame.height());
    let mut out = BuiltBoards {
        rows,
        ..BuiltBoards::default()
    };
    for row in 0..frame.height() {
        let competition_id = match competition_id.required(row) {
            Ok(id) => id,
            Err(error) => {
                // Nothing after it is read, as when the rows are checked as they come.
                out.stop = Some(error);
                break;
            }
        };
        let mut built = || -> Result<BoardResult, InputError> {
            let tricks_taken = tricks.get(row)?;
            Ok(BoardResult {
                competition_id: Text::default(),
                board: board.required_count(row)?,
                ns: ns.get(row)?,
                ew: ew.get(row)?,
                contract: contract.get(row)?,
                declarer: declarer.get(row)?,
                tricks: tricks
                    .check(row, tricks_taken.map(validate::tricks_in_range).transpose())?,
                ns_score: ns_score.get(row)?,
                adjusted: adjusted.get(row)?,
                north: north.get(row)?,
                south: south.get(row)?,
                east: east.get(row)?,
                west: west.get(row)?,
                round: round.count(row)?,
                session: session.count(row)?,
                table: table.count(row)?,
                room: room.get(row)?,
                ns_penalty: ns_penalty.get(row)?,
                ew_penalty: ew_penalty.get(row)?,
                origin: sources.origin(frame, row)?,
            })
        };
        match built() {
            Ok(mut record) => {
                record.competition_id = competition_id;
                out.rows.push(record);
            }
            Err(error) => out.broken.push((out.rows.len(), competition_id, error)),
        }
    }
    Ok(out)
}

/// Holds built board rows to the row rules, in row order, and returns those that pass,
/// in the same vector.
pub(super) fn check_boards(
    built: BuiltBoards,
    check: &mut Check,
) -> Result<Vec<BoardResult>, Error> {
    let BuiltBoards {
        mut rows,
        broken,
        stop,
    } = built;
    let mut broken = broken.into_iter().peekable();
    let mut kept = 0;
    for at in 0..rows.len() {
        while let Some((_, id, error)) = broken.next_if(|(before, _, _)| *before == at) {
            check.broken(&id, error)?;
        }
        if check.keeps(&rows[at], Validator::board)? {
            if kept != at {
                rows.swap(kept, at);
            }
            kept += 1;
        }
    }
    for (_, id, error) in broken {
        check.broken(&id, error)?;
    }
    rows.truncate(kept);
    match stop {
        Some(error) => Err(error.into()),
        None => Ok(rows),
    }
}
