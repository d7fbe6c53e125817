//! One table result read from a board row and checked: the seats name entrants of the
//! competition, each at most once, and the score agrees with the contract.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::dataset::{BoardCells, BoardRow, Entrant, Format, Text};
use crate::error::{InputError, Location};

use super::contract::{self, parse_contract, Seat};
use super::matchpoints::SidePoints;
use super::outcome::{parse_adjusted, Outcome};
use super::rows::plain_number;

/// The entrants of one competition, looked up by trimmed name.
///
/// Scoring asks three things of every seat of every table: is the name listed, where does
/// it sort among the others (as clubs number them), and which tally it adds to. Answering
/// them from one list built per competition, with positions instead of names, keeps the
/// per-row work to a lookup; parsing names as numbers happens once per entrant, not
/// once per comparison, and each name's text for the board scores is made once.
pub(super) struct Entrants<'a> {
    /// Trimmed names in byte order (the order of a `BTreeMap` of names), one per name;
    /// where a name is listed twice the later row counts.
    names: Vec<&'a str>,
    /// The same names as the board scores hold them.
    texts: Vec<Text>,
    rows: Vec<&'a Entrant>,
    /// Each entrant's place in entrant order ([`super::rows::entrant_order`]), by position.
    rank: Vec<u32>,
    /// Clubs number their pairs and teams `1`, `2`, ...: the position of the name written
    /// as the number `n` (digits only, no leading zero) is `numbered[n]`, found without
    /// hashing. Names that are not such numbers, or larger ones, are in `position`.
    numbered: Vec<u32>,
    position: FxHashMap<&'a str, u32>,
}

/// No entrant is named by this number.
const UNNUMBERED: u32 = u32::MAX;

impl<'a> Entrants<'a> {
    pub fn new(listed: impl Iterator<Item = &'a Entrant>) -> Self {
        let mut pairs: Vec<(&'a str, &'a Entrant)> =
            listed.map(|e| (trim_name(&e.entrant), e)).collect();
        // Stable: of rows with the same name, the last stays last and is kept.
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        let mut names: Vec<&'a str> = Vec::with_capacity(pairs.len());
        let mut rows: Vec<&'a Entrant> = Vec::with_capacity(pairs.len());
        for (name, row) in pairs {
            if names.last() == Some(&name) {
                if let Some(last) = rows.last_mut() {
                    *last = row;
                }
            } else {
                names.push(name);
                rows.push(row);
            }
        }
        // Entrant order compares numbers by value, then names: each name is parsed once
        // here rather than at every comparison. Names are distinct, so no two keys tie.
        let mut order: Vec<(bool, u64, &'a str, u32)> = (0..)
            .zip(&names)
            .map(|(at, &name)| match name.parse::<u64>() {
                Ok(number) => (false, number, name, at),
                Err(_) => (true, 0, name, at),
            })
            .collect();
        order.sort_unstable();
        let mut rank = vec![0; names.len()];
        for (place, &(_, _, _, at)) in (0..).zip(&order) {
            rank[at as usize] = place;
        }
        let mut numbered: Vec<u32> = Vec::new();
        let mut position: FxHashMap<&'a str, u32> = FxHashMap::default();
        for (at, &name) in (0..).zip(&names) {
            match plain_number(name) {
                Some(n) => {
                    if numbered.len() <= n {
                        numbered.resize(n + 1, UNNUMBERED);
                    }
                    numbered[n] = at;
                }
                None => {
                    position.insert(name, at);
                }
            }
        }
        let texts = names.iter().map(|&name| Text::new(name)).collect();
        Entrants {
            names,
            texts,
            rows,
            rank,
            numbered,
            position,
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The position of a trimmed name.
    #[inline]
    pub fn position(&self, name: &str) -> Option<u32> {
        match plain_number(name) {
            Some(n) => self.numbered.get(n).copied().filter(|&at| at != UNNUMBERED),
            None => self.position.get(name).copied(),
        }
    }

    /// The name at `at` as the board scores hold it.
    pub fn text(&self, at: u32) -> &Text {
        &self.texts[at as usize]
    }

    pub fn name(&self, at: u32) -> &'a str {
        self.names[at as usize]
    }

    pub fn rank(&self, at: u32) -> u32 {
        self.rank[at as usize]
    }

    /// Names and rows in byte order of the names.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'a Entrant)> + '_ {
        self.names.iter().copied().zip(self.rows.iter().copied())
    }

    /// The entrants as a map, for the formats that look them up by name.
    pub fn map(&self) -> BTreeMap<&'a str, &'a Entrant> {
        self.iter().collect()
    }

    /// Two sides' entrants in entrant order, as [`super::rows::order_lists`] orders
    /// their names.
    pub fn order_sides(&self, a: &[u32], b: &[u32]) -> Ordering {
        for (&x, &y) in a.iter().zip(b) {
            let o = self.rank(x).cmp(&self.rank(y));
            if o != Ordering::Equal {
                return o;
            }
        }
        a.len().cmp(&b.len())
    }
}

/// `str::trim` for a name (or any cell), answering at once for the usual text that starts
/// and ends with a printable ASCII character (no whitespace is one).
fn trim_name(name: &str) -> &str {
    match (name.as_bytes().first(), name.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => name,
        _ => name.trim(),
    }
}

/// Points and bounds of each table, in table order.
pub(super) struct BoardPoints {
    /// What counts in the totals.
    pub side: SidePoints,
    /// What the traveller shows (unfactored under `Travellers::Unfactored`).
    pub shown: SidePoints,
    /// What the totals add, where the program rounds a factored score before adding it
    /// (`FactoredRounding`); percentages keep `side`.
    pub counted: Option<SidePoints>,
    pub top: f64,
    pub bottom: f64,
    pub datum: Option<f64>,
}

/// The entrants on one side of a table: one (pairs, teams) or two (individual
/// events), borrowed from the board row, so reading a table allocates nothing.
pub(super) type Side<'a> = SmallVec<[&'a str; 2]>;

/// The same entrants as positions in [`Entrants`].
pub(super) type Seats = SmallVec<[u32; 2]>;

/// The cells of a table's board row that the scoring methods read, copied out once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct TableRow {
    pub board: u32,
    pub round: Option<u32>,
    pub session: Option<u32>,
    pub table: Option<u32>,
    pub ns_penalty: Option<f64>,
    pub ew_penalty: Option<f64>,
}

/// One validated table result.
pub(super) struct Table<'a> {
    pub row: TableRow,
    /// The board row, to name it in an error.
    pub source: &'a dyn BoardRow,
    pub ns: Side<'a>,
    pub ew: Side<'a>,
    pub ns_at: Seats,
    pub ew_at: Seats,
    pub outcome: Outcome,
}

impl Table<'_> {
    pub fn location(&self, column: &str) -> Location {
        row_location(self.source, column)
    }
}

fn row_location<R: BoardRow + ?Sized>(row: &R, column: &str) -> Location {
    let location = row
        .origin()
        .location()
        .competition(row.competition_id())
        .board(row.board());
    if column.is_empty() {
        location
    } else {
        location.column(column)
    }
}

/// The N/S score of a row, checked against its contract when both are given.
fn read_outcome<R: BoardRow>(row: &R, c: &BoardCells<'_>) -> Result<Outcome, InputError> {
    if let Some(code) = c.adjusted.filter(|c| !trim_name(c).is_empty()) {
        return parse_adjusted(code, c.ns_score)
            .map_err(|rule| InputError::new(row_location(row, "adjusted"), rule));
    }
    let Some(text) = c.contract.filter(|c| !trim_name(c).is_empty()) else {
        return c.ns_score.map(Outcome::Score).ok_or_else(|| {
            InputError::new(
                row_location(row, "contract"),
                "the row has no contract, no ns_score and no artificial score",
            )
        });
    };
    let contract = parse_contract(text)
        .map_err(|rule| InputError::new(row_location(row, "contract"), rule))?;
    let computed = match contract {
        None => 0,
        Some(bid) => {
            let declarer: Seat = c
                .declarer
                .ok_or_else(|| {
                    InputError::new(
                        row_location(row, "declarer"),
                        format!("contract `{text}` has no declarer"),
                    )
                })?
                .parse()
                .map_err(|rule| InputError::new(row_location(row, "declarer"), rule))?;
            let tricks = c.tricks.ok_or_else(|| {
                InputError::new(
                    row_location(row, "tricks"),
                    format!("contract `{text}` has no tricks"),
                )
            })?;
            contract::ns_score(Some(&bid), declarer, tricks, c.board)
                .map_err(|rule| InputError::new(row_location(row, "tricks"), rule))?
        }
    };
    match c.ns_score {
        Some(given) if given != computed => Err(InputError::new(
            row_location(row, "ns_score"),
            format!(
                "ns_score {given} does not match contract `{text}` by {} with {} tricks, which scores {computed} for N/S",
                c.declarer.unwrap_or("-"),
                c.tricks.map_or("-".to_string(), |t| t.to_string()),
            ),
        )),
        _ => Ok(Outcome::Score(computed)),
    }
}

/// Holds a row's penalties to being finite numbers of points (or absent).
#[inline]
fn check_penalties<R: BoardRow>(
    row: &R,
    ns_penalty: Option<f64>,
    ew_penalty: Option<f64>,
) -> Result<(), InputError> {
    for (column, penalty) in [("ns_penalty", ns_penalty), ("ew_penalty", ew_penalty)] {
        if penalty.is_some_and(|p| !p.is_finite()) {
            return Err(InputError::new(
                row_location(row, column),
                "a penalty must be a finite number of points",
            ));
        }
    }
    Ok(())
}

pub(super) fn read_table<'a, R: BoardRow>(
    row: &'a R,
    format: Format,
    known: &Entrants<'_>,
) -> Result<Table<'a>, InputError> {
    let c = row.scoring_cells(format == Format::Individual);
    let individual = [
        ("north", c.north),
        ("south", c.south),
        ("east", c.east),
        ("west", c.west),
    ];
    let pairs = [("ns", c.ns), ("ew", c.ew)];
    let seats: &[(&str, Option<&'a str>)] = if format == Format::Individual {
        &individual
    } else {
        &pairs
    };
    // The first half of the seats is N/S, the second E/W: each seat goes straight to
    // its side, without a list of all seats split and copied afterwards.
    let half = seats.len() / 2;
    let (mut ns, mut ew) = (Side::new(), Side::new());
    let (mut ns_at, mut ew_at) = (Seats::new(), Seats::new());
    let named = |value: Option<&'a str>| value.map(trim_name).filter(|v| !v.is_empty());
    // A pair the export does not list played this table: its side is empty, the table
    // still counts in the board's field (`unlisted_side`).
    let unlisted = format == Format::Pairs && (named(c.ns).is_none() != named(c.ew).is_none());
    for (place, &(column, value)) in seats.iter().enumerate() {
        let Some(name) = named(value) else {
            if unlisted {
                continue;
            }
            return Err(InputError::new(
                row_location(row, column),
                "no entrant at this seat",
            ));
        };
        let Some(position) = known.position(name) else {
            return Err(InputError::new(
                row_location(row, column),
                format!("unknown entrant `{name}`: not listed in this competition's entrants"),
            ));
        };
        if ns_at.contains(&position) || ew_at.contains(&position) {
            return Err(InputError::new(
                row_location(row, column),
                format!("entrant `{name}` sits twice at this table"),
            ));
        }
        if place < half {
            ns.push(name);
            ns_at.push(position);
        } else {
            ew.push(name);
            ew_at.push(position);
        }
    }
    let (ns_penalty, ew_penalty) = (c.ns_penalty, c.ew_penalty);
    check_penalties(row, ns_penalty, ew_penalty)?;
    Ok(Table {
        row: TableRow {
            board: c.board,
            round: c.round,
            session: c.session,
            table: c.table,
            ns_penalty,
            ew_penalty,
        },
        source: row,
        ns,
        ew,
        ns_at,
        ew_at,
        outcome: read_outcome(row, &c)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{BoardRef, BoardResult, Origin, OwnedBoards};
    use crate::scoring::rows::order_lists;

    fn listed(names: &[&str]) -> Vec<Entrant> {
        names.iter().map(|name| Entrant::new("c", *name)).collect()
    }

    #[test]
    fn entrants_are_named_once_trimmed_in_byte_order_the_last_row_counting() {
        let mut rows = listed(&["10", " 2", "B", "a", "2 ", "1"]);
        rows[4].team = Some("later".into());
        let known = Entrants::new(rows.iter());
        let names: Vec<&str> = known.iter().map(|(name, _)| name).collect();
        assert_eq!(names, ["1", "10", "2", "B", "a"]);
        assert_eq!(known.position("2"), Some(2));
        assert_eq!(known.position(" 2"), None);
        let two = known.iter().nth(2).map(|(_, e)| e.team.clone());
        assert_eq!(two, Some(Some("later".to_string())));
        // Entrant order: numbers by value, then names.
        let ranks: Vec<u32> = (0..5).map(|at| known.rank(at)).collect();
        assert_eq!(ranks, [0, 2, 1, 3, 4]);
    }

    #[test]
    fn only_numbers_written_back_as_the_same_name_are_found_by_number() {
        assert_eq!(plain_number("0"), Some(0));
        assert_eq!(plain_number("7"), Some(7));
        assert_eq!(plain_number("12"), Some(12));
        assert_eq!(plain_number("4095"), Some(4095));
        for name in [
            "", "012", "00", "+1", "-1", "1a", "4096", "12345", "1 ", "\u{661}",
        ] {
            assert_eq!(plain_number(name), None, "{name:?}");
        }
        // Numbered and named entrants side by side, and numbers that are not listed.
        let rows = listed(&["3", "03", "x", "4096", "0"]);
        let known = Entrants::new(rows.iter());
        let found: Vec<Option<&str>> = ["0", "3", "03", "x", "4096", "1", "4", "5000", "y"]
            .iter()
            .map(|name| known.position(name).map(|at| known.name(at)))
            .collect();
        assert_eq!(
            found,
            [
                Some("0"),
                Some("3"),
                Some("03"),
                Some("x"),
                Some("4096"),
                None,
                None,
                None,
                None
            ]
        );
        assert_eq!(known.text(2).as_str(), known.name(2));
    }

    #[test]
    fn names_are_trimmed_as_str_trim_trims() {
        for name in [
            "12",
            " 12",
            "12\t",
            "\u{a0}7\u{a0}",
            "a b",
            "",
            " ",
            "\u{1c}x",
            "é",
        ] {
            assert_eq!(trim_name(name), name.trim(), "{name:?}");
        }
    }

    /// A pairs row or an individual row with the given seats, read in place (as a
    /// reader hands it on) and as a struct of its own.
    fn seated(seats: &[Option<&str>]) -> BoardResult {
        let text = |at: usize| seats.get(at).copied().flatten().map(Text::from);
        let mut row = BoardResult {
            competition_id: "c".into(),
            board: 3,
            contract: Some("3NT".into()),
            declarer: Some("N".into()),
            tricks: Some(9),
            origin: Origin {
                file: Some(std::sync::Arc::from(std::path::Path::new("boards.parquet"))),
                row: Some(7),
            },
            ..BoardResult::default()
        };
        if seats.len() == 2 {
            (row.ns, row.ew) = (text(0), text(1));
        } else {
            (row.north, row.south, row.east, row.west) = (text(0), text(1), text(2), text(3));
        }
        row
    }

    /// A table's seat names and its N/S and E/W positions.
    type Read = (Vec<&'static str>, Vec<u32>, Vec<u32>);

    /// `read_table` on the row built as a struct and on the same row in place: both
    /// must give the same sides (names and positions) or the same error.
    fn read_both(row: &BoardResult, format: Format, known: &Entrants<'_>) -> Result<Read, String> {
        let columns = OwnedBoards(vec![row.clone()]);
        let in_place = BoardRef::Columns {
            columns: &columns,
            row: 0,
            board: row.board,
        };
        let shown = |t: Result<Table<'_>, InputError>| {
            t.map(|t| {
                let names: Vec<String> = t.ns.iter().chain(&t.ew).map(|n| n.to_string()).collect();
                (names, t.ns_at.to_vec(), t.ew_at.to_vec())
            })
            .map_err(|e| e.to_string())
        };
        let built = shown(read_table(row, format, known));
        let placed = shown(read_table(&in_place, format, known));
        assert_eq!(built, placed);
        built.map(|(names, ns, ew)| {
            let names = names
                .into_iter()
                .map(|n| &*Box::leak(n.into_boxed_str()))
                .collect();
            (names, ns, ew)
        })
    }

    #[test]
    fn seats_name_their_entrants_and_break_the_seat_rules_with_exact_texts() {
        let rows = listed(&["1", "2", "10", "Öst", "3"]);
        let known = Entrants::new(rows.iter());
        // Byte order: "1" 0, "10" 1, "2" 2, "3" 3, "Öst" 4.
        assert_eq!(
            read_both(&seated(&[Some(" 10"), Some("Öst")]), Format::Pairs, &known),
            Ok((vec!["10", "Öst"], vec![1], vec![4]))
        );
        assert_eq!(
            read_both(
                &seated(&[Some("3"), Some("1"), Some("2 "), Some("10")]),
                Format::Individual,
                &known
            ),
            Ok((vec!["3", "1", "2", "10"], vec![3, 0], vec![2, 1]))
        );
        // A pair the export does not list leaves its side empty (pairs only).
        assert_eq!(
            read_both(&seated(&[Some("2"), Some(" ")]), Format::Pairs, &known),
            Ok((vec!["2"], vec![2], vec![]))
        );
        let at = "boards.parquet, row 7";
        for (seats, format, error) in [
            (
                vec![Some("2"), Some("7")],
                Format::Pairs,
                format!("{at}, column `ew`, competition `c`, board 3: unknown entrant `7`: not listed in this competition's entrants"),
            ),
            (
                vec![None, Some(" ")],
                Format::Pairs,
                format!("{at}, column `ns`, competition `c`, board 3: no entrant at this seat"),
            ),
            (
                vec![Some("2"), None],
                Format::Teams,
                format!("{at}, column `ew`, competition `c`, board 3: no entrant at this seat"),
            ),
            (
                vec![Some("2"), Some("2 ")],
                Format::Pairs,
                format!("{at}, column `ew`, competition `c`, board 3: entrant `2` sits twice at this table"),
            ),
            (
                vec![Some("1"), Some("3"), Some("10"), Some("3")],
                Format::Individual,
                format!("{at}, column `west`, competition `c`, board 3: entrant `3` sits twice at this table"),
            ),
            (
                vec![Some("1"), Some("1"), Some("9"), None],
                Format::Individual,
                format!("{at}, column `south`, competition `c`, board 3: entrant `1` sits twice at this table"),
            ),
        ] {
            assert_eq!(read_both(&seated(&seats), format, &known), Err(error));
        }
    }

    proptest::proptest! {
        /// Every seat of a table names the entrant the name lookup finds, on its side
        /// (the first half of the seats N/S), in or out of place, and a table with a
        /// seat not listed, empty or taken twice fails at the first such seat.
        #[test]
        fn seats_are_the_entrants_the_names_find(
            names in proptest::collection::btree_set("(0|[1-9][0-9]{0,2}|[a-c]{1,2})", 1..12),
            seats in proptest::collection::vec(proptest::option::weighted(0.95, 0usize..14), 4),
            individual in proptest::bool::ANY,
        ) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let rows = listed(&names);
            let known = Entrants::new(rows.iter());
            let (format, count) = if individual { (Format::Individual, 4) } else { (Format::Pairs, 2) };
            let asked: Vec<Option<&str>> = seats[..count]
                .iter()
                .map(|s| s.map(|at| names.get(at).copied().unwrap_or("zz")))
                .collect();
            let got = read_both(&seated(&asked), format, &known);
            // A pairs table may leave one side empty (a pair the export does not list).
            let filled: Vec<(usize, &str)> = (0..)
                .zip(&asked)
                .filter_map(|(at, seat)| Some((at, (*seat)?)))
                .collect();
            let seated_enough = filled.len() == count || (!individual && filled.len() == 1);
            let positions: Option<Vec<(usize, u32)>> = filled
                .iter()
                .map(|&(at, name)| Some((at, known.position(name)?)))
                .collect();
            let distinct = positions.as_ref().is_some_and(|p| {
                p.iter().enumerate().all(|(i, x)| !p[..i].iter().any(|y| y.1 == x.1))
            });
            match (seated_enough, positions, distinct) {
                (true, Some(p), true) => {
                    let half = count / 2;
                    let expected: Vec<&str> = filled.iter().map(|&(_, name)| name).collect();
                    let side = |ns: bool| -> Vec<u32> {
                        p.iter().filter(|(at, _)| (*at < half) == ns).map(|&(_, x)| x).collect()
                    };
                    proptest::prop_assert_eq!(got, Ok((expected, side(true), side(false))));
                }
                _ => proptest::prop_assert!(got.is_err()),
            }
        }

        /// Ranks list the entrants as sorting their names by `entrant_order` does, with
        /// numbers written with a sign or leading zeros among them.
        #[test]
        fn ranks_follow_entrant_order(
            names in proptest::collection::btree_set("[+0-9a-b]{0,3}", 1..10),
        ) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let rows = listed(&names);
            let known = Entrants::new(rows.iter());
            let mut by_rank: Vec<u32> = (0..known.len() as u32).collect();
            by_rank.sort_by_key(|&at| known.rank(at));
            let by_rank: Vec<&str> = by_rank.iter().map(|&at| known.name(at)).collect();
            let mut by_order = names.clone();
            by_order.sort_by(|a, b| crate::scoring::rows::entrant_order(a, b));
            proptest::prop_assert_eq!(by_rank, by_order);
            for (at, name) in (0..).zip(known.iter().map(|(name, _)| name)) {
                proptest::prop_assert_eq!(known.position(name), Some(at));
            }
            proptest::prop_assert_eq!(known.position("zz"), None);
        }

        /// Whatever order the entrants are listed in, each name is found at the place
        /// of its name in byte order (numbered, zero-led and named alike), and names not
        /// listed are not found.
        #[test]
        fn names_are_found_wherever_they_are_listed(
            names in proptest::collection::btree_set("(0|[1-9][0-9]{0,4}|0[0-9]{1,2}|[a-c]{1,2})", 1..30),
            order in proptest::collection::vec(proptest::num::u32::ANY, 30),
            asked in proptest::collection::vec("(0|[1-9][0-9]{0,4}|0[0-9]{1,2}|[a-c]{1,2})", 0..20),
        ) {
            let sorted: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut shuffled: Vec<(u32, &str)> = order.iter().copied().zip(sorted.iter().copied()).collect();
            shuffled.sort_unstable();
            let shuffled: Vec<&str> = shuffled.into_iter().map(|(_, name)| name).collect();
            let rows = listed(&shuffled);
            let known = Entrants::new(rows.iter());
            for (at, name) in (0..).zip(&sorted) {
                proptest::prop_assert_eq!(known.position(name), Some(at));
                proptest::prop_assert_eq!(known.text(at).as_str(), *name);
            }
            for name in &asked {
                let expected = sorted.binary_search(&name.as_str()).ok().map(|at| at as u32);
                proptest::prop_assert_eq!(known.position(name), expected);
            }
        }

        /// Sides compared by their entrants' ranks order as their names do.
        #[test]
        fn sides_order_by_rank_as_by_name(
            names in proptest::collection::btree_set("[0-9a-c ]{1,3}", 1..8),
            a in proptest::collection::vec(0usize..8, 0..3),
            b in proptest::collection::vec(0usize..8, 0..3),
        ) {
            let names: Vec<&str> = names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()).collect();
            proptest::prop_assume!(!names.is_empty());
            let rows = listed(&names);
            let known = Entrants::new(rows.iter());
            let pick = |seats: &[usize]| -> Vec<&str> {
                seats.iter().map(|&s| names[s % names.len()]).collect()
            };
            let (a, b) = (pick(&a), pick(&b));
            let at = |side: &[&str]| -> Vec<u32> {
                side.iter().filter_map(|n| known.position(n)).collect()
            };
            proptest::prop_assert_eq!(known.order_sides(&at(&a), &at(&b)), order_lists(&a, &b));
        }
    }
}
