//! A canonical binary encoding of the dataset's typed rows, the bytes the ledger's
//! content hashes are taken of.
//!
//! A hash that outlives a run (it is stored in `applied.parquet` and compared by the
//! next run, perhaps of a later version) must be taken of something that is defined
//! here, field by field, and not of whatever a derived `Debug` prints. Each row is
//! written value by value in a fixed field order, with no names and no punctuation:
//!
//! * a string: its UTF-8 length as 8 bytes little-endian, then its bytes;
//! * an integer (ids, counts, sessions, scores): 8 bytes little-endian two's complement;
//! * a real number: its IEEE-754 binary64 bits, 8 bytes little-endian;
//! * a flag: one byte, 0 or 1;
//! * a date: days since 1970-01-01 as an integer;
//! * a named value (format, scoring, direction, member kind, each convention): its name
//!   as the tables write it, as a string;
//! * an absent value: the byte 0; a present one: the byte 1, then the value;
//! * a row's origin (file, row) is never written, nor an entrant's printed clubs.
//!
//! Every part has a known length or a length in front of it, so two different rows
//! never have the same bytes. The field order of each row is in `docs/data.md`; a
//! change to it or to the rules above is a new ledger scheme
//! ([`crate::pipeline::ledger::SCHEME`]).

use chrono::NaiveDate;

use super::{BoardCells, BoardResult, BoardRow, Competition, Entrant, EntrantResult, Member};

/// The bytes of rows being encoded.
#[derive(Debug, Default, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Encoder {
    bytes: Vec<u8>,
}

impl Encoder {
    pub fn new() -> Self {
        Encoder::default()
    }

    pub fn with_capacity(capacity: usize) -> Self {
        Encoder {
            bytes: Vec::with_capacity(capacity),
        }
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    #[inline]
    pub fn str(&mut self, text: &str) -> &mut Self {
        self.int(text.len() as i64);
        self.bytes.extend_from_slice(text.as_bytes());
        self
    }

    #[inline]
    pub fn int(&mut self, number: i64) -> &mut Self {
        self.bytes.extend_from_slice(&number.to_le_bytes());
        self
    }

    #[inline]
    pub fn real(&mut self, number: f64) -> &mut Self {
        self.bytes
            .extend_from_slice(&number.to_bits().to_le_bytes());
        self
    }

    #[inline]
    pub fn flag(&mut self, flag: bool) -> &mut Self {
        self.bytes.push(u8::from(flag));
        self
    }

    #[inline]
    pub fn date(&mut self, date: NaiveDate) -> &mut Self {
        let days = (date - NaiveDate::default()).num_days();
        self.int(days)
    }

    /// A named value, by the name the tables write.
    pub fn name(&mut self, value: &impl std::fmt::Display) -> &mut Self {
        // Written in place after room for its length, which is filled in once known:
        // the bytes of `str` of the printed name, without a string of its own.
        struct Bytes<'a>(&'a mut Vec<u8>);
        impl std::fmt::Write for Bytes<'_> {
            fn write_str(&mut self, text: &str) -> std::fmt::Result {
                self.0.extend_from_slice(text.as_bytes());
                Ok(())
            }
        }
        let at = self.bytes.len();
        self.int(0);
        // Writing into a vector cannot fail; a Display that fails leaves what it wrote.
        let _ = std::fmt::Write::write_fmt(&mut Bytes(&mut self.bytes), format_args!("{value}"));
        let length = (self.bytes.len() - at - 8) as i64;
        self.bytes[at..at + 8].copy_from_slice(&length.to_le_bytes());
        self
    }

    /// An optional value: 0, or 1 and the value.
    #[inline]
    pub fn option<T>(&mut self, value: Option<T>, write: impl FnOnce(&mut Self, T)) -> &mut Self {
        match value {
            None => self.bytes.push(0),
            Some(value) => {
                self.bytes.push(1);
                write(self, value);
            }
        }
        self
    }

    #[inline]
    pub fn opt_str(&mut self, text: &Option<impl AsRef<str>>) -> &mut Self {
        self.option(text.as_ref(), |e, t| {
            e.str(t.as_ref());
        })
    }

    #[inline]
    pub fn opt_int(&mut self, number: Option<i64>) -> &mut Self {
        self.option(number, |e, n| {
            e.int(n);
        })
    }

    #[inline]
    pub fn opt_real(&mut self, number: Option<f64>) -> &mut Self {
        self.option(number, |e, n| {
            e.real(n);
        })
    }
}

/// A competition row. The destructuring names every field, so a field added to
/// [`Competition`] does not compile until it is encoded (or left out on purpose).
pub fn competition(c: &Competition) -> Vec<u8> {
    let mut e = Encoder::with_capacity(256);
    competition_into(c, &mut e);
    e.into_bytes()
}

/// [`competition`], written after what `e` holds.
pub fn competition_into(c: &Competition, e: &mut Encoder) {
    let Competition {
        competition_id,
        date,
        session,
        format,
        scoring,
        boards,
        rated,
        handicap_event,
        title,
        club,
        class,
        conventions,
        vp_scale,
        origin: _,
    } = c;
    e.str(competition_id)
        .date(*date)
        .int(i64::from(*session))
        .name(format)
        .name(scoring)
        .opt_int(boards.map(i64::from))
        .flag(*rated)
        .flag(*handicap_event)
        .opt_str(title)
        .opt_str(club)
        .opt_str(class);
    let super::conventions::Conventions {
        mp_scale,
        imp_aggregate,
        datum_trim,
        datum_rounding,
        bye_score,
        neuberg,
        tie_break,
        travellers,
        artificial_imps,
        average_plus,
        factored_rounding,
    } = conventions;
    e.name(mp_scale)
        .name(imp_aggregate)
        .name(datum_trim)
        .name(datum_rounding)
        .name(bye_score)
        .flag(*neuberg)
        .name(tie_break)
        .name(travellers)
        .name(artificial_imps)
        .name(average_plus)
        .name(factored_rounding);
    // Written only when there is one, so a competition without a scale keeps the
    // encoding (and the content hash) it always had.
    if let Some(scale) = vp_scale {
        e.str(&scale.name);
        for &(winner, loser) in scale.table.as_deref().map_or(&[][..], |t| t.rows()) {
            e.real(winner).real(loser);
        }
    }
}

/// An entrant row. A player's printed club decides no handicap: a club corrected in
/// an export does not make its competition a correction of the replay.
pub fn entrant(row: &Entrant) -> Vec<u8> {
    let mut e = Encoder::with_capacity(128);
    entrant_into(row, &mut e);
    e.into_bytes()
}

/// [`entrant`], written after what `e` holds.
pub fn entrant_into(row: &Entrant, e: &mut Encoder) {
    let Entrant {
        competition_id,
        entrant,
        players,
        names,
        clubs: _,
        team,
        direction,
        house,
        origin: _,
    } = row;
    e.str(competition_id).str(entrant);
    for player in players {
        e.opt_int(*player);
    }
    for name in names {
        e.opt_str(name);
    }
    e.opt_str(team)
        .option(direction.as_ref(), |e, d| {
            e.name(d);
        })
        .flag(*house);
}

/// A reported result row.
pub fn result(row: &EntrantResult) -> Vec<u8> {
    let mut e = Encoder::with_capacity(64);
    result_into(row, &mut e);
    e.into_bytes()
}

/// [`result`], written after what `e` holds.
pub fn result_into(row: &EntrantResult, e: &mut Encoder) {
    let EntrantResult {
        competition_id,
        entrant,
        boards_played,
        score,
        opponent,
        origin: _,
    } = row;
    e.str(competition_id)
        .str(entrant)
        .int(i64::from(*boards_played))
        .real(*score)
        .opt_str(opponent);
}

/// A board row.
pub fn board(row: &BoardResult) -> Vec<u8> {
    let mut e = Encoder::with_capacity(128);
    board_into(row, &mut e);
    e.into_bytes()
}

/// [`board`], written after what `e` holds.
pub fn board_into(row: &BoardResult, e: &mut Encoder) {
    let BoardResult {
        competition_id,
        board,
        ns,
        ew,
        contract,
        declarer,
        tricks,
        ns_score,
        adjusted,
        north,
        south,
        east,
        west,
        round,
        session,
        table,
        room,
        ns_penalty,
        ew_penalty,
        origin: _,
    } = row;
    e.str(competition_id).int(i64::from(*board));
    for text in [ns, ew, contract, declarer] {
        e.opt_str(text);
    }
    e.opt_int(tricks.map(i64::from))
        .opt_int(ns_score.map(i64::from));
    for text in [adjusted, north, south, east, west] {
        e.opt_str(text);
    }
    for number in [round, session, table] {
        e.opt_int(number.map(i64::from));
    }
    e.opt_str(room).opt_real(*ns_penalty).opt_real(*ew_penalty);
}

/// [`board_into`] for any board row, read through [`BoardRow`]: the same bytes.
pub fn board_row_into<R: BoardRow>(row: &R, e: &mut Encoder) {
    // One read of every cell: a row in place in a file's columns answers `cells` with
    // one call, where each cell on its own is a call through the columns of its own.
    board_cells_into(&row.cells(), e);
}

/// [`board_into`] of a board row's cells.
#[inline]
pub fn board_cells_into(c: &BoardCells<'_>, e: &mut Encoder) {
    e.bytes.reserve(
        160 + c.competition_id.len()
            + [c.ns, c.ew, c.contract, c.declarer, c.adjusted, c.room]
                .iter()
                .chain(&[c.north, c.south, c.east, c.west])
                .map(|t| t.map_or(0, str::len))
                .sum::<usize>(),
    );
    e.str(c.competition_id).int(i64::from(c.board));
    for text in [c.ns, c.ew, c.contract, c.declarer] {
        e.opt_str(&text);
    }
    e.opt_int(c.tricks.map(i64::from))
        .opt_int(c.ns_score.map(i64::from));
    for text in [c.adjusted, c.north, c.south, c.east, c.west] {
        e.opt_str(&text);
    }
    for number in [c.round, c.session, c.table] {
        e.opt_int(number.map(i64::from));
    }
    e.opt_str(&c.room)
        .opt_real(c.ns_penalty)
        .opt_real(c.ew_penalty);
}

/// A member row.
pub fn member(row: &Member) -> Vec<u8> {
    let mut e = Encoder::with_capacity(64);
    member_into(row, &mut e);
    e.into_bytes()
}

/// [`member`], written after what `e` holds.
pub fn member_into(row: &Member, e: &mut Encoder) {
    let Member {
        member_id,
        name,
        club,
        district,
        masterpoints,
        start_handicap,
        kind,
        origin: _,
    } = row;
    e.int(*member_id)
        .opt_str(name)
        .opt_str(club)
        .opt_str(district)
        .real(*masterpoints)
        .opt_real(*start_handicap)
        .name(kind);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Origin;

    /// A named value is its printed name as a string: the length, then the bytes.
    #[test]
    fn a_named_value_is_its_printed_name() {
        let mut e = Encoder::new();
        e.flag(true)
            .name(&crate::dataset::ScoringMethod::Matchpoints)
            .name(&"");
        let printed = crate::dataset::ScoringMethod::Matchpoints.to_string();
        let mut expected = vec![1u8];
        expected.extend((printed.len() as u64).to_le_bytes());
        expected.extend(printed.as_bytes());
        expected.extend(0u64.to_le_bytes());
        assert_eq!(e.as_bytes(), expected.as_slice());
        let mut three = Encoder::new();
        three.name(&"3NT");
        assert_eq!(three.as_bytes(), b"\x03\0\0\0\0\0\0\x003NT");
    }

    /// Every byte of a result row, written out by hand from the rules above.
    #[test]
    fn a_result_row_is_its_values_and_nothing_else() {
        let row = EntrantResult {
            competition_id: "c1".into(),
            entrant: "7".into(),
            boards_played: 24,
            score: 0.5,
            opponent: None,
            origin: Origin {
                file: Some(std::path::Path::new("a.csv").into()),
                row: Some(3),
            },
        };
        let mut expected = vec![2, 0, 0, 0, 0, 0, 0, 0, b'c', b'1'];
        expected.extend([1, 0, 0, 0, 0, 0, 0, 0, b'7']);
        expected.extend([24, 0, 0, 0, 0, 0, 0, 0]);
        // 0.5 = 0x3FE0_0000_0000_0000
        expected.extend([0, 0, 0, 0, 0, 0, 0xE0, 0x3F]);
        expected.push(0);
        assert_eq!(result(&row), expected);
        // The origin is not part of it.
        let elsewhere = EntrantResult {
            origin: Origin::default(),
            ..row.clone()
        };
        assert_eq!(result(&elsewhere), expected);
        // An opponent is: present (1) then the string.
        let against = EntrantResult {
            opponent: Some("3".into()),
            ..row
        };
        let mut with = expected.clone();
        with.pop();
        with.extend([1, 1, 0, 0, 0, 0, 0, 0, 0, b'3']);
        assert_eq!(result(&against), with);
    }

    /// Every byte of a board row, written out by hand from the rules above: the
    /// inline text cells are written as the strings they hold.
    #[test]
    fn a_board_row_is_its_values_and_nothing_else() {
        let row = BoardResult {
            competition_id: "c1".into(),
            board: 3,
            ns: Some("1".into()),
            ew: Some("12".into()),
            contract: Some("3NT".into()),
            declarer: Some("W".into()),
            tricks: Some(10),
            ns_score: Some(-630),
            table: Some(2),
            ns_penalty: Some(-1.0),
            origin: Origin {
                file: Some(std::path::Path::new("b.csv").into()),
                row: Some(9),
            },
            ..BoardResult::default()
        };
        let text = |t: &str| {
            let mut out = vec![1];
            out.extend((t.len() as u64).to_le_bytes());
            out.extend(t.as_bytes());
            out
        };
        let mut expected = vec![2, 0, 0, 0, 0, 0, 0, 0, b'c', b'1'];
        expected.extend([3, 0, 0, 0, 0, 0, 0, 0]);
        for t in ["1", "12", "3NT", "W"] {
            expected.extend(text(t));
        }
        expected.extend([1, 10, 0, 0, 0, 0, 0, 0, 0]);
        // -630 = 0xFFFF_FFFF_FFFF_FD8A
        expected.extend([1, 0x8A, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
        expected.extend([0; 5]); // adjusted, north, south, east, west
        expected.push(0); // round
        expected.push(0); // session
        expected.extend([1, 2, 0, 0, 0, 0, 0, 0, 0]); // table
        expected.push(0); // room
                          // -1.0 = 0xBFF0_0000_0000_0000
        expected.extend([1, 0, 0, 0, 0, 0, 0, 0xF0, 0xBF]);
        expected.push(0); // ew_penalty
        assert_eq!(board(&row), expected);
        // Written after other bytes, the row is the same bytes.
        let mut e = Encoder::new();
        e.flag(true);
        board_into(&row, &mut e);
        assert_eq!(e.as_bytes()[1..], expected[..]);
        assert_eq!(e.len(), expected.len() + 1);
    }

    #[test]
    fn a_date_is_days_since_1970_and_a_negative_number_twos_complement() {
        let mut e = Encoder::new();
        e.date(NaiveDate::from_ymd_opt(1970, 1, 31).unwrap())
            .int(-2);
        assert_eq!(
            e.into_bytes(),
            [30, 0, 0, 0, 0, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        );
    }

    #[test]
    fn no_two_rows_share_their_bytes_by_moving_text_between_fields() {
        let mut a = Encoder::new();
        a.str("ab").str("c");
        let mut b = Encoder::new();
        b.str("a").str("bc");
        assert_ne!(a, b);
    }
}
