//! The score of one table result under Law 77.
//!
//! Club exports give a contract, a declarer and the tricks taken, and often a score as
//! well. Recomputing the score from the contract is the only way to catch a mistyped
//! score (or a mistyped contract) before it moves a matchpoint, so the scoring stage
//! always recomputes and compares. Vulnerability comes from the board number by the
//! standard 16-board cycle, because exports rarely state it per table.

use std::fmt;
use std::str::FromStr;

use crate::dataset::Direction;

/// A seat at the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seat {
    North,
    East,
    South,
    West,
}

impl Seat {
    /// The partnership the seat belongs to.
    pub fn direction(self) -> Direction {
        match self {
            Seat::North | Seat::South => Direction::NS,
            Seat::East | Seat::West => Direction::EW,
        }
    }
}

impl FromStr for Seat {
    type Err = String;
    #[inline]
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // One letter, as exports write the declarer, without trimming or comparing names.
        match s.as_bytes() {
            [b'N' | b'n'] => return Ok(Seat::North),
            [b'E' | b'e'] => return Ok(Seat::East),
            [b'S' | b's'] => return Ok(Seat::South),
            [b'W' | b'w'] => return Ok(Seat::West),
            _ => {}
        }
        let s = s.trim();
        let is = |names: [&str; 2]| names.iter().any(|name| s.eq_ignore_ascii_case(name));
        if is(["N", "NORTH"]) {
            Ok(Seat::North)
        } else if is(["E", "EAST"]) {
            Ok(Seat::East)
        } else if is(["S", "SOUTH"]) {
            Ok(Seat::South)
        } else if is(["W", "WEST"]) {
            Ok(Seat::West)
        } else {
            Err(format!(
                "unknown seat `{}` (expected one of: N, E, S, W)",
                s.to_ascii_uppercase()
            ))
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Seat::North => "N",
            Seat::East => "E",
            Seat::South => "S",
            Seat::West => "W",
        })
    }
}

/// Denominations, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strain {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
    NoTrump,
}

impl Strain {
    pub const ALL: [Strain; 5] = [
        Strain::Clubs,
        Strain::Diamonds,
        Strain::Hearts,
        Strain::Spades,
        Strain::NoTrump,
    ];

    /// The letters of the dataset's notation (docs/data.md): `C`, `D`, `H`, `S`, `NT`.
    pub fn code(self) -> &'static str {
        match self {
            Strain::Clubs => "C",
            Strain::Diamonds => "D",
            Strain::Hearts => "H",
            Strain::Spades => "S",
            Strain::NoTrump => "NT",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Doubling {
    Undoubled,
    Doubled,
    Redoubled,
}

impl Doubling {
    fn factor(self) -> i32 {
        match self {
            Doubling::Undoubled => 1,
            Doubling::Doubled => 2,
            Doubling::Redoubled => 4,
        }
    }
}

/// A contract at level 1-7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Contract {
    pub level: u8,
    pub strain: Strain,
    pub doubling: Doubling,
}

impl fmt::Display for Contract {
    /// The dataset's notation (docs/data.md): `4S`, `3NTX`, `6HXX`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let strain = self.strain.code();
        let doubling = match self.doubling {
            Doubling::Undoubled => "",
            Doubling::Doubled => "X",
            Doubling::Redoubled => "XX",
        };
        write!(f, "{}{strain}{doubling}", self.level)
    }
}

/// A bid contract in any notation the programs write (`3N`, `5cx`, `6NTXX`) in the data
/// contract's notation (`3NT`, `5CX`, `6NTXX`); `None` for a pass or anything malformed.
///
/// ```
/// use bridgehcp::scoring::contract::normalize_contract;
/// assert_eq!(normalize_contract("1N").as_deref(), Some("1NT"));
/// assert_eq!(normalize_contract("5cx").as_deref(), Some("5CX"));
/// assert_eq!(normalize_contract("3SXXX"), None);
/// ```
pub fn normalize_contract(text: &str) -> Option<String> {
    parse_contract(text).ok().flatten().map(|c| c.to_string())
}

/// Which partnerships are vulnerable on a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vulnerability {
    None,
    NS,
    EW,
    Both,
}

impl Vulnerability {
    /// True when the partnership `direction` is vulnerable.
    pub fn is_vulnerable(self, direction: Direction) -> bool {
        matches!(
            (self, direction),
            (Vulnerability::Both, _)
                | (Vulnerability::NS, Direction::NS)
                | (Vulnerability::EW, Direction::EW)
        )
    }
}

/// Vulnerability of a board by the standard 16-board cycle (board 1: none, 2: N/S, ...).
///
/// ```
/// use bridgehcp::scoring::contract::{vulnerability, Vulnerability};
/// assert_eq!(vulnerability(1), Vulnerability::None);
/// assert_eq!(vulnerability(7), Vulnerability::Both);
/// assert_eq!(vulnerability(20), Vulnerability::Both); // 20 is board 4 of the cycle
/// ```
pub fn vulnerability(board: u32) -> Vulnerability {
    use Vulnerability::{Both, None, EW, NS};
    const CYCLE: [Vulnerability; 16] = [
        None, NS, EW, Both, NS, EW, Both, None, EW, Both, None, NS, Both, None, NS, EW,
    ];
    let index = (board.max(1) - 1) % 16;
    CYCLE[index as usize]
}

/// Dealer of a board: North on board 1, then clockwise.
pub fn dealer(board: u32) -> Seat {
    match (board.max(1) - 1) % 4 {
        0 => Seat::North,
        1 => Seat::East,
        2 => Seat::South,
        _ => Seat::West,
    }
}

/// Parses `4S`, `3NTX`, `3N`, `6HXX` (any case, surrounding spaces ignored). `PASS` (or
/// `P`, `AP`) is a passed-out board and gives `Ok(None)`.
pub fn parse_contract(text: &str) -> Result<Option<Contract>, String> {
    // Almost every row writes its contract as `4S` or `3NTX`, with nothing around it.
    if let Some(contract) = plain_contract(text.as_bytes()) {
        return Ok(Some(contract));
    }
    // Read in place, without an uppercased copy: this runs once per table result.
    let trimmed = text.trim();
    if ["PASS", "P", "AP"]
        .iter()
        .any(|pass| trimmed.eq_ignore_ascii_case(pass))
    {
        return Ok(None);
    }
    let malformed = || {
        format!("malformed contract `{text}` (expected level 1-7, strain C/D/H/S/NT, optional X or XX, or PASS)")
    };
    let mut chars = trimmed.chars();
    let level = chars
        .next()
        .and_then(|c| c.to_digit(10))
        .filter(|l| (1..=7).contains(l))
        .ok_or_else(malformed)? as u8;
    // Whitespace between the parts is allowed.
    let mut rest = chars
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .peekable();
    let strain = match rest.next() {
        Some('C') => Strain::Clubs,
        Some('D') => Strain::Diamonds,
        Some('H') => Strain::Hearts,
        Some('S') => Strain::Spades,
        Some('N') => {
            rest.next_if_eq(&'T');
            Strain::NoTrump
        }
        _ => return Err(malformed()),
    };
    let doubling = match (rest.next(), rest.next(), rest.next()) {
        (None, _, _) => Doubling::Undoubled,
        (Some('X'), None, _) => Doubling::Doubled,
        (Some('X'), Some('X'), None) => Doubling::Redoubled,
        _ => return Err(malformed()),
    };
    Ok(Some(Contract {
        level,
        strain,
        doubling,
    }))
}

/// A contract written without spaces (`4S`, `3nt`, `2HXX`), read byte by byte; `None`
/// for anything else, which [`parse_contract`] then reads as written.
fn plain_contract(text: &[u8]) -> Option<Contract> {
    let (&level, rest) = text.split_first()?;
    let level = level.checked_sub(b'0').filter(|l| (1..=7).contains(l))?;
    let (&strain, rest) = rest.split_first()?;
    let (strain, rest) = match strain.to_ascii_uppercase() {
        b'C' => (Strain::Clubs, rest),
        b'D' => (Strain::Diamonds, rest),
        b'H' => (Strain::Hearts, rest),
        b'S' => (Strain::Spades, rest),
        b'N' => match rest.split_first() {
            Some((t, after)) if t.eq_ignore_ascii_case(&b'T') => (Strain::NoTrump, after),
            _ => (Strain::NoTrump, rest),
        },
        _ => return None,
    };
    let doubling = match rest {
        [] => Doubling::Undoubled,
        [x] if x.eq_ignore_ascii_case(&b'X') => Doubling::Doubled,
        [x, y] if x.eq_ignore_ascii_case(&b'X') && y.eq_ignore_ascii_case(&b'X') => {
            Doubling::Redoubled
        }
        _ => return None,
    };
    Some(Contract {
        level,
        strain,
        doubling,
    })
}

/// Tricks in a deal: the most a declarer can take.
pub const MAX_TRICKS: u8 = 13;

/// The declaring side's score (positive when made, negative when defeated), Law 77.
/// `tricks` is the number of tricks declarer took (0-13).
///
/// ```
/// use bridgehcp::scoring::contract::{declarer_score, parse_contract};
/// let c = parse_contract("4S").unwrap().unwrap();
/// assert_eq!(declarer_score(&c, false, 10), Ok(420));
/// ```
pub fn declarer_score(contract: &Contract, vulnerable: bool, tricks: u8) -> Result<i32, String> {
    if tricks > MAX_TRICKS {
        return Err(format!(
            "impossible number of tricks {tricks} (at most {MAX_TRICKS})"
        ));
    }
    let level = i32::from(contract.level);
    let tricks = i32::from(tricks);
    let factor = contract.doubling.factor();
    let needed = level + 6;
    if tricks >= needed {
        let trick_value = match contract.strain {
            Strain::Clubs | Strain::Diamonds => 20,
            Strain::Hearts | Strain::Spades | Strain::NoTrump => 30,
        };
        let first_bonus = if contract.strain == Strain::NoTrump {
            10
        } else {
            0
        };
        let trick_score = (level * trick_value + first_bonus) * factor;
        let mut score = trick_score;
        score += match (trick_score >= 100, vulnerable) {
            (true, false) => 300,
            (true, true) => 500,
            (false, _) => 50,
        };
        score += match (contract.level, vulnerable) {
            (6, false) => 500,
            (6, true) => 750,
            (7, false) => 1000,
            (7, true) => 1500,
            _ => 0,
        };
        let over = tricks - needed;
        score += match contract.doubling {
            Doubling::Undoubled => over * trick_value,
            Doubling::Doubled => over * if vulnerable { 200 } else { 100 } + 50,
            Doubling::Redoubled => over * if vulnerable { 400 } else { 200 } + 100,
        };
        Ok(score)
    } else {
        let down = needed - tricks;
        let doubled_penalty = if vulnerable {
            200 + 300 * (down - 1)
        } else {
            // 100, 200, 200, then 300 each.
            100 + 200 * (down - 1).min(2) + 300 * (down - 3).max(0)
        };
        let penalty = match contract.doubling {
            Doubling::Undoubled => down * if vulnerable { 100 } else { 50 },
            Doubling::Doubled => doubled_penalty,
            Doubling::Redoubled => 2 * doubled_penalty,
        };
        Ok(-penalty)
    }
}

/// Every declarer's score [`declarer_score`] gives, by contract, vulnerability and
/// tricks: each table result of a federation looks its score up here, computed once.
const SCORED: usize = 7 * 5 * 3 * 2 * (MAX_TRICKS as usize + 1);

/// Where [`declarer_score`]'s value for these is kept in the table of [`scored`];
/// `None` for a level or a number of tricks out of range.
fn scored_at(contract: &Contract, vulnerable: bool, tricks: u8) -> Option<usize> {
    if !(1..=7).contains(&contract.level) || tricks > MAX_TRICKS {
        return None;
    }
    let strain = match contract.strain {
        Strain::Clubs => 0,
        Strain::Diamonds => 1,
        Strain::Hearts => 2,
        Strain::Spades => 3,
        Strain::NoTrump => 4,
    };
    let doubling = match contract.doubling {
        Doubling::Undoubled => 0,
        Doubling::Doubled => 1,
        Doubling::Redoubled => 2,
    };
    let at = (usize::from(contract.level) - 1) * 5 + strain;
    let at = (at * 3 + doubling) * 2 + usize::from(vulnerable);
    Some(at * (usize::from(MAX_TRICKS) + 1) + usize::from(tricks))
}

/// Every contract, vulnerability and number of tricks the table of [`scored`] holds.
fn every_result() -> impl Iterator<Item = (Contract, bool, u8)> {
    let doublings = [Doubling::Undoubled, Doubling::Doubled, Doubling::Redoubled];
    (1..=7).flat_map(move |level| {
        Strain::ALL.into_iter().flat_map(move |strain| {
            doublings.into_iter().flat_map(move |doubling| {
                let contract = Contract {
                    level,
                    strain,
                    doubling,
                };
                [false, true].into_iter().flat_map(move |vulnerable| {
                    (0..=MAX_TRICKS).map(move |tricks| (contract, vulnerable, tricks))
                })
            })
        })
    })
}

/// [`declarer_score`] from a table built once; `None` where it is an error.
fn scored(contract: &Contract, vulnerable: bool, tricks: u8) -> Option<i32> {
    static TABLE: std::sync::OnceLock<Vec<i32>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = vec![0; SCORED];
        for (contract, vulnerable, tricks) in every_result() {
            if let (Some(at), Ok(score)) = (
                scored_at(&contract, vulnerable, tricks),
                declarer_score(&contract, vulnerable, tricks),
            ) {
                if let Some(slot) = table.get_mut(at) {
                    *slot = score;
                }
            }
        }
        table
    });
    table.get(scored_at(contract, vulnerable, tricks)?).copied()
}

/// The N/S score of a table result: a passed-out board (`None`) scores 0, otherwise the
/// declarer's score, negated when E/W declared.
pub fn ns_score(
    contract: Option<&Contract>,
    declarer: Seat,
    tricks: u8,
    board: u32,
) -> Result<i32, String> {
    let Some(contract) = contract else {
        return Ok(0);
    };
    let side = declarer.direction();
    let vulnerable = vulnerability(board).is_vulnerable(side);
    let score = match scored(contract, vulnerable, tricks) {
        Some(score) => score,
        None => declarer_score(contract, vulnerable, tricks)?,
    };
    Ok(match side {
        Direction::NS => score,
        Direction::EW => -score,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(contract: &str, declarer: &str, tricks: u8, board: u32) -> i32 {
        let c = parse_contract(contract).unwrap();
        ns_score(c.as_ref(), declarer.parse().unwrap(), tricks, board).unwrap()
    }

    fn score(contract: &str, vulnerable: bool, tricks: u8) -> i32 {
        declarer_score(
            &parse_contract(contract).unwrap().unwrap(),
            vulnerable,
            tricks,
        )
        .unwrap()
    }

    /// The table every score is looked up in holds, at every place, what
    /// `declarer_score` computes; each place is used once.
    #[test]
    fn looked_up_scores_are_the_computed_ones() {
        let mut places = std::collections::BTreeSet::new();
        for (c, vulnerable, tricks) in every_result() {
            assert_eq!(
                scored(&c, vulnerable, tricks),
                declarer_score(&c, vulnerable, tricks).ok()
            );
            assert!(places.insert(scored_at(&c, vulnerable, tricks)));
        }
        assert_eq!(places.len(), SCORED);
        let c = parse_contract("7NTXX").unwrap().unwrap();
        assert_eq!(scored(&c, true, 13), Some(2980));
        assert_eq!(scored(&c, true, 14), None);
        assert_eq!(ns_score(Some(&c), Seat::East, 13, 7), Ok(-2980));
        assert!(ns_score(Some(&c), Seat::East, 14, 7).is_err());
    }

    /// The scoring leaflet's traveller (board played with neither side vulnerable, e.g. board 1):
    /// every N/S score column of its first table.
    #[test]
    fn seed_001_traveller_scores() {
        assert_eq!(ns("3S", "N", 10, 1), 170);
        assert_eq!(ns("4S", "N", 10, 1), 420);
        assert_eq!(ns("4H", "E", 8, 1), 100);
        assert_eq!(ns("3H", "E", 9, 1), -140);
        assert_eq!(ns("3H", "E", 8, 1), 50);
        assert_eq!(ns("3S", "N", 9, 1), 140);
        assert_eq!(ns("4HX", "E", 8, 1), 300);
        assert_eq!(ns("3NT", "N", 10, 1), 430);
        assert_eq!(ns("3N", "N", 10, 1), 430);
    }

    /// The scoring leaflet's examples 1-3: 2S made +110; E/W vulnerable 3NT made -600; E/W
    /// vulnerable 3S with 7 tricks +200 (board 3 has E/W vulnerable).
    #[test]
    fn seed_001_examples() {
        assert_eq!(ns("2S", "N", 8, 1), 110);
        assert_eq!(ns("3NT", "E", 9, 3), -600);
        assert_eq!(ns("3S", "W", 7, 3), 200);
    }

    /// Well-known figures from the Law 77 scoring table.
    #[test]
    fn law_77_table() {
        // 7NTXX vulnerable made: 880 + 500 + 1500 + 100.
        assert_eq!(score("7NTXX", true, 13), 2980);
        // 7NTXX vulnerable, no trick: (200 + 12·300)·2.
        assert_eq!(score("7NTXX", true, 0), -7600);
        // 7NT doubled, not vulnerable, no trick: 100 + 200 + 200 + 10·300.
        assert_eq!(score("7NTX", false, 0), -3500);
        // 7NT undoubled vulnerable, 13 down.
        assert_eq!(score("7NT", true, 0), -1300);
        // 1NT undoubled, not vulnerable, 7 down (no trick).
        assert_eq!(score("1NT", false, 0), -350);
        assert_eq!(score("1NT", false, 7), 90);
        // 1NT vulnerable making all 13: 40 + 6·30 + 50.
        assert_eq!(score("1NT", true, 13), 270);
        // 1C doubled made: 40 + 50 part score + 50 insult.
        assert_eq!(score("1CX", false, 7), 140);
        assert_eq!(score("1CX", true, 8), 340);
        // 1C redoubled +1: 80 + 50 + 100 insult + 200.
        assert_eq!(score("1CXX", false, 8), 430);
        assert_eq!(score("2HX", false, 8), 470);
        assert_eq!(score("2HX", true, 8), 670);
        assert_eq!(score("6S", false, 12), 980);
        assert_eq!(score("6S", true, 12), 1430);
        assert_eq!(score("7C", true, 13), 2140);
        assert_eq!(score("3NT", true, 9), 600);
        assert_eq!(score("5D", false, 11), 400);
        assert_eq!(score("4SX", false, 6), -800);
        assert_eq!(score("4SX", true, 6), -1100);
        assert_eq!(score("3DX", false, 6), -500);
        assert_eq!(score("4HXX", true, 9), -400);
    }

    #[test]
    fn passed_out_scores_zero() {
        assert_eq!(ns("PASS", "N", 0, 5), 0);
    }

    #[test]
    fn vulnerability_and_dealer_cycle() {
        let expected = [
            "None", "NS", "EW", "Both", "NS", "EW", "Both", "None", "EW", "Both", "None", "NS",
            "Both", "None", "NS", "EW",
        ];
        for (i, v) in expected.iter().enumerate() {
            let board = i as u32 + 1;
            assert_eq!(format!("{:?}", vulnerability(board)), *v, "board {board}");
            assert_eq!(vulnerability(board + 16), vulnerability(board));
        }
        assert_eq!(dealer(1), Seat::North);
        assert_eq!(dealer(2), Seat::East);
        assert_eq!(dealer(3), Seat::South);
        assert_eq!(dealer(4), Seat::West);
        assert_eq!(dealer(17), Seat::North);
    }

    #[test]
    fn malformed_contracts_and_tricks_are_errors() {
        for bad in ["", "8S", "0H", "4Q", "4SXXX", "NT", "4 S Y"] {
            assert!(parse_contract(bad).is_err(), "{bad}");
        }
        let c = parse_contract("4S").unwrap().unwrap();
        assert!(declarer_score(&c, false, 14).is_err());
        assert!("Q".parse::<Seat>().is_err());
    }

    /// The reading `parse_contract` replaced (an uppercased copy, then its parts), kept
    /// as the reference the in-place reading must agree with.
    fn parse_contract_by_copy(text: &str) -> Result<Option<Contract>, String> {
        let upper = text.trim().to_ascii_uppercase();
        if matches!(upper.as_str(), "PASS" | "P" | "AP") {
            return Ok(None);
        }
        let malformed = || {
            format!("malformed contract `{text}` (expected level 1-7, strain C/D/H/S/NT, optional X or XX, or PASS)")
        };
        let mut chars = upper.chars();
        let level = chars
            .next()
            .and_then(|c| c.to_digit(10))
            .filter(|l| (1..=7).contains(l))
            .ok_or_else(malformed)? as u8;
        let rest: String = chars.filter(|c| !c.is_whitespace()).collect();
        let (strain, doubling) = if let Some(d) = rest.strip_prefix("NT") {
            (Strain::NoTrump, d)
        } else {
            let mut it = rest.chars();
            let strain = match it.next() {
                Some('C') => Strain::Clubs,
                Some('D') => Strain::Diamonds,
                Some('H') => Strain::Hearts,
                Some('S') => Strain::Spades,
                Some('N') => Strain::NoTrump,
                _ => return Err(malformed()),
            };
            (strain, &rest[1..])
        };
        let doubling = match doubling {
            "" => Doubling::Undoubled,
            "X" => Doubling::Doubled,
            "XX" => Doubling::Redoubled,
            _ => return Err(malformed()),
        };
        Ok(Some(Contract {
            level,
            strain,
            doubling,
        }))
    }

    #[test]
    fn contracts_read_in_place_as_by_copy() {
        for text in [
            "4S",
            " 3nt ",
            "3N",
            "3NTX",
            "3ntxx",
            "3 N T X",
            "7C\u{a0}X",
            "pass",
            " P ",
            "ap",
            "PASSX",
            "NT",
            "4NTT",
            "4SXXX",
            "4é",
            "é",
            "",
            "8S",
            "4 s y",
            "1d\tx",
        ] {
            assert_eq!(
                parse_contract(text),
                parse_contract_by_copy(text),
                "{text:?}"
            );
        }
        for seat in ["n", " North ", "EAST", "s", "West", "q", " nw ", "é"] {
            assert_eq!(seat.parse::<Seat>(), seat_by_copy(seat), "{seat:?}");
        }
    }

    /// A seat read from a trimmed, uppercased copy compared with the seats' names: the
    /// reading before declarers were read in place.
    fn seat_by_copy(seat: &str) -> Result<Seat, String> {
        match seat.trim().to_ascii_uppercase().as_str() {
            "N" | "NORTH" => Ok(Seat::North),
            "E" | "EAST" => Ok(Seat::East),
            "S" | "SOUTH" => Ok(Seat::South),
            "W" | "WEST" => Ok(Seat::West),
            other => Err(format!(
                "unknown seat `{other}` (expected one of: N, E, S, W)"
            )),
        }
    }

    proptest::proptest! {
        /// The in-place reading gives what the uppercased copy gave, error text included.
        #[test]
        fn contracts_of_any_text_read_as_by_copy(text in "[0-9CDHSNTXPAcdhsntxpa \t\u{a0}é]{0,7}") {
            proptest::prop_assert_eq!(parse_contract(&text), parse_contract_by_copy(&text));
        }

        /// Contracts written without spaces, read byte by byte, give what the copy gave,
        /// and so do the near misses the byte reading leaves to the general one.
        #[test]
        fn plain_contracts_read_as_by_copy(text in "[0-9][CDHSNTXcdhsntx][TtXx]{0,3}[ PX]?") {
            proptest::prop_assert_eq!(parse_contract(&text), parse_contract_by_copy(&text));
        }

        /// A declarer of one letter, or any other short text, reads as a trimmed and
        /// uppercased copy compared with the seats' names reads.
        #[test]
        fn declarers_read_as_by_copy(seat in "[ NESWnesworthaOTHS\t]{0,6}") {
            proptest::prop_assert_eq!(seat.parse::<Seat>(), seat_by_copy(&seat));
        }

        /// Declarer's score rises with each extra trick.
        #[test]
        fn score_rises_with_tricks(level in 1u8..=7, strain in 0usize..5, dbl in 0usize..3,
                                   vul: bool, tricks in 0u8..13) {
            let strains = [Strain::Clubs, Strain::Diamonds, Strain::Hearts, Strain::Spades, Strain::NoTrump];
            let dbls = [Doubling::Undoubled, Doubling::Doubled, Doubling::Redoubled];
            let c = Contract { level, strain: strains[strain], doubling: dbls[dbl] };
            let a = declarer_score(&c, vul, tricks).unwrap();
            let b = declarer_score(&c, vul, tricks + 1).unwrap();
            proptest::prop_assert!(b > a);
        }
    }
}
