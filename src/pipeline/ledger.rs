//! What a run took into account, competition by competition.
//!
//! A monthly run continues the previous month's state, but the dataset it reads is not
//! append-only: a club corrects a result, a late file arrives for a month already run, a
//! competition is withdrawn. Comparing only dates would apply nothing of it. So every
//! run keeps a ledger (`applied.parquet`): each competition up to the last one it
//! replayed, with a content hash of its rows. The next run builds the same ledger from
//! its dataset; any difference (a hash that changed, a competition gone, one that was
//! not there before) means the state no longer follows from the dataset, and the
//! history is replayed from the start.
//!
//! The hash is SHA-256 of a canonical text of the competition's rows (competition,
//! entrants, results, boards), each row printed without where it came from and the
//! rows sorted, so it does not depend on row order, on how the tables are partitioned
//! or on the file a row was read from: re-importing a month with the same results
//! changes nothing. The text is the rows' `Debug` form, so a version of the program
//! that adds a column hashes differently; that only costs one replay from the start.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::dataset::{BoardResult, Competition, Dataset, Entrant, EntrantResult, Origin};
use crate::model::FactorSet;
use crate::quarantine::Quarantined;

/// The version of the canonical text the hashes are taken of. A state whose hashes were
/// taken another way cannot be compared hash by hash: its competitions are matched by
/// id, and the history is replayed from the start once.
pub const SCHEME: u32 = 1;

/// What became of a competition in the run that recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Rated and replayed onto the handicaps.
    Applied,
    /// Rated, but the field's strength could not be settled (`unrated.csv`).
    Unrated,
    /// Left out for a broken rule (`quarantine.csv`).
    Quarantined,
    /// `rated = false`: scored, not rated.
    NotRated,
}

crate::string_enum!(Status, "ledger status", {
    "applied" => Status::Applied,
    "unrated" => Status::Unrated,
    "quarantined" => Status::Quarantined,
    "not_rated" => Status::NotRated,
});

/// One line of the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub competition_id: String,
    pub date: NaiveDate,
    pub session: i32,
    /// The content hash; `None` for a competition the reader left out, whose rows never
    /// reached the dataset.
    pub sha256: Option<String>,
    pub status: Status,
}

impl Entry {
    /// The replay order (date, session, id).
    pub fn key(&self) -> (NaiveDate, i32, &str) {
        (self.date, self.session, self.competition_id.as_str())
    }
}

/// Lower-case hex of a SHA-256 digest.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of `bytes`, in hex.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The content hash of a factor set: SHA-256 of its canonical TOML (every key, in
/// declaration order), so that two sets with the same name and other constants differ.
pub fn factor_hash(factors: &FactorSet) -> String {
    // A factor set is plain numbers and strings: serialising it cannot fail, but if it
    // ever did, the debug form still tells the sets apart.
    let text = toml::to_string(factors).unwrap_or_else(|_| format!("{factors:?}"));
    sha256(text.as_bytes())
}

/// Canonical lines of rows: each row's debug form without its origin, sorted.
fn canonical_rows<T: std::fmt::Debug + Clone>(rows: &[&T], strip: impl Fn(&mut T)) -> Vec<String> {
    use std::fmt::Write;
    sorted_lines(rows, 0, |row, line| {
        let mut row = row.clone();
        strip(&mut row);
        // Writing to a String cannot fail.
        let _ = write!(line, "{row:?}");
    })
}

/// Each row's canonical line, written by `write` into a line of about `capacity`
/// bytes, sorted (the hash does not depend on row order).
fn sorted_lines<T>(rows: &[&T], capacity: usize, write: impl Fn(&T, &mut String)) -> Vec<String> {
    let mut lines: Vec<String> = rows
        .iter()
        .map(|row| {
            let mut line = String::with_capacity(capacity);
            write(row, &mut line);
            line
        })
        .collect();
    lines.sort_unstable();
    lines
}

/// Writes `text` as its `Debug` form: quoted, and escaped as `Debug` escapes it. Plain
/// printable ASCII (nearly every cell) is written as it is, without the formatter.
fn debug_str(out: &mut String, text: &str) {
    use std::fmt::Write;
    if text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        // Writing to a String cannot fail.
        let _ = write!(out, "{text:?}");
    }
}

/// `Some("text")` or `None`, as `Debug` writes an `Option<String>`.
fn debug_option_str(out: &mut String, text: &Option<String>) {
    match text {
        Some(text) => {
            out.push_str("Some(");
            debug_str(out, text);
            out.push(')');
        }
        None => out.push_str("None"),
    }
}

/// `Some(12)` or `None`, as `Debug` writes an optional whole number.
fn debug_option_number(out: &mut String, number: Option<impl Into<u64>>) {
    match number {
        Some(number) => {
            out.push_str("Some(");
            out.push_str(itoa(&mut [0; 20], number.into()));
            out.push(')');
        }
        None => out.push_str("None"),
    }
}

/// The decimal digits of `number`, written into `buffer`.
fn itoa(buffer: &mut [u8; 20], number: impl Into<u64>) -> &str {
    let mut number: u64 = number.into();
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (number % 10) as u8;
        number /= 10;
        if number == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&buffer[at..]).unwrap_or_default()
}

/// Canonical lines of board rows, written field by field: boards are most of a
/// dataset's rows, and this spares a clone of each. The destructuring names every
/// field, so a field added to [`BoardResult`] does not compile until it is hashed too.
fn board_lines(rows: &[&BoardResult]) -> Vec<String> {
    use std::fmt::Write;
    sorted_lines(rows, 160, |row, line| {
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
        debug_str(line, competition_id);
        line.push(' ');
        line.push_str(itoa(&mut [0; 20], *board));
        for text in [ns, ew, contract, declarer] {
            line.push(' ');
            debug_option_str(line, text);
        }
        line.push(' ');
        debug_option_number(line, tricks.map(u64::from));
        line.push(' ');
        debug_option_signed(line, ns_score.map(i64::from));
        for text in [adjusted, north, south, east, west] {
            line.push(' ');
            debug_option_str(line, text);
        }
        for number in [round, session, table] {
            line.push(' ');
            debug_option_number(line, number.map(u64::from));
        }
        line.push(' ');
        debug_option_str(line, room);
        // Writing to a String cannot fail.
        let _ = write!(line, " {ns_penalty:?} {ew_penalty:?}");
    })
}

/// The `Debug` form of `origin` stripped off a row, as the canonical lines end.
const NO_ORIGIN: &str = "origin: Origin { file: None, row: None } }";

/// `Some(-12)` or `None`, as `Debug` writes an optional signed number.
fn debug_option_signed(out: &mut String, number: Option<i64>) {
    match number {
        Some(number) => {
            out.push_str("Some(");
            if number < 0 {
                out.push('-');
            }
            out.push_str(itoa(&mut [0; 20], number.unsigned_abs()));
            out.push(')');
        }
        None => out.push_str("None"),
    }
}

/// Canonical lines of entrant rows: each row's `Debug` form with its origin and the
/// printed clubs stripped,
/// written field by field (a competition's entrants are hashed every run, and the
/// formatter's machinery costs more than the hashing itself). The destructuring names
/// every field, so a field added to [`Entrant`] does not compile until it is written.
fn entrant_lines(rows: &[&Entrant]) -> Vec<String> {
    sorted_lines(rows, 192, |row, line| {
        let Entrant {
            competition_id,
            entrant,
            players,
            names,
            // A player's printed club decides no handicap: a club corrected in an
            // export does not make its competition a correction of the replay.
            clubs: _,
            team,
            direction,
            house,
            origin: _,
        } = row;
        line.push_str("Entrant { competition_id: ");
        debug_str(line, competition_id);
        line.push_str(", entrant: ");
        debug_str(line, entrant);
        line.push_str(", players: [");
        for (slot, player) in players.iter().enumerate() {
            if slot > 0 {
                line.push_str(", ");
            }
            debug_option_signed(line, *player);
        }
        line.push_str("], names: [");
        for (slot, name) in names.iter().enumerate() {
            if slot > 0 {
                line.push_str(", ");
            }
            debug_option_str(line, name);
        }
        line.push_str("], team: ");
        debug_option_str(line, team);
        line.push_str(match direction {
            Some(crate::dataset::Direction::NS) => ", direction: Some(NS), ",
            Some(crate::dataset::Direction::EW) => ", direction: Some(EW), ",
            None => ", direction: None, ",
        });
        // Written only for a house pair, so that every other entrant's line (and the
        // content hash of every competition without one) is what it was before.
        if *house {
            line.push_str("house: true, ");
        }
        line.push_str(NO_ORIGIN);
    })
}

/// Canonical lines of reported results, written field by field like [`entrant_lines`].
fn result_lines(rows: &[&EntrantResult]) -> Vec<String> {
    use std::fmt::Write;
    sorted_lines(rows, 128, |row, line| {
        let EntrantResult {
            competition_id,
            entrant,
            boards_played,
            score,
            opponent,
            origin: _,
        } = row;
        line.push_str("EntrantResult { competition_id: ");
        debug_str(line, competition_id);
        line.push_str(", entrant: ");
        debug_str(line, entrant);
        line.push_str(", boards_played: ");
        line.push_str(itoa(&mut [0; 20], *boards_played));
        // Writing to a String cannot fail.
        let _ = write!(line, ", score: {score:?}, opponent: ");
        debug_option_str(line, opponent);
        line.push_str(", ");
        line.push_str(NO_ORIGIN);
    })
}

#[derive(Default)]
struct Rows<'a> {
    entrants: Vec<&'a Entrant>,
    results: Vec<&'a EntrantResult>,
    boards: Vec<&'a BoardResult>,
}

/// The content hash of every competition of `dataset`, by id.
pub fn competition_hashes(dataset: &Dataset) -> HashMap<String, String> {
    let mut rows: HashMap<&str, Rows> = HashMap::new();
    for e in &dataset.entrants {
        rows.entry(&e.competition_id).or_default().entrants.push(e);
    }
    for r in &dataset.results {
        rows.entry(&r.competition_id).or_default().results.push(r);
    }
    for b in &dataset.boards {
        rows.entry(&b.competition_id).or_default().boards.push(b);
    }
    let empty = Rows::default();
    dataset
        .competitions
        .par_iter()
        .map(|c| {
            let own = rows.get(c.competition_id.as_str()).unwrap_or(&empty);
            (
                c.competition_id.clone(),
                competition_hash(c, &own.entrants, &own.results, &own.boards),
            )
        })
        .collect()
}

/// The content hash of one competition, from its rows (in any order).
pub fn competition_hash(
    competition: &Competition,
    entrants: &[&Entrant],
    results: &[&EntrantResult],
    boards: &[&BoardResult],
) -> String {
    let mut hasher = Sha256::new();
    let mut c = competition.clone();
    c.origin = Origin::default();
    hasher.update(format!("competition {c:?}\n").as_bytes());
    let sections = [
        ("entrant", entrant_lines(entrants)),
        ("result", result_lines(results)),
        ("board", board_lines(boards)),
    ];
    for (name, lines) in sections {
        for line in lines {
            hasher.update(name.as_bytes());
            hasher.update(b" ");
            hasher.update(line.as_bytes());
            hasher.update(b"\n");
        }
    }
    hex(&hasher.finalize())
}

/// The content hash of a whole dataset: its members and every competition's hash,
/// independent of row order and file layout.
pub fn dataset_hash(dataset: &Dataset, hashes: &HashMap<String, String>) -> String {
    members_and_competitions_hash(&dataset.members, hashes)
}

/// [`dataset_hash`] from the members and the competitions' hashes.
pub fn members_and_competitions_hash(
    members: &[crate::dataset::Member],
    hashes: &HashMap<String, String>,
) -> String {
    let mut hasher = Sha256::new();
    let members: Vec<&crate::dataset::Member> = members.iter().collect();
    for line in canonical_rows(&members, |m| m.origin = Origin::default()) {
        hasher.update(b"member ");
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
    }
    let sorted: BTreeMap<&String, &String> = hashes.iter().collect();
    for (id, hash) in sorted {
        hasher.update(format!("competition {id:?} {hash}\n").as_bytes());
    }
    hex(&hasher.finalize())
}

/// How the ledger of this run's dataset differs from the previous run's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Difference {
    /// In both, with other rows (or another date or session).
    pub changed: Vec<String>,
    /// In the previous ledger, no longer in the dataset.
    pub removed: Vec<String>,
    /// In the dataset, dated before the previous run's last competition, and not in its
    /// ledger: a late result.
    pub late: Vec<String>,
    /// Previous entries found unchanged.
    pub unchanged: usize,
    /// The previous ledger's hashes were taken by another version of the program
    /// (another [`SCHEME`]): competitions were matched by id, date and session only.
    pub other_scheme: bool,
    /// The state's `changes.parquet` and `standings.parquet` hold its own competitions
    /// only (written by a version that did not carry the history), so the outputs can
    /// only hold the whole history after a replay from the start.
    pub partial_history: bool,
    /// Members whose starting handicap changed (their masterpoints or
    /// `start_handicap` in the members table).
    pub members: Vec<i64>,
}

impl Difference {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
            && self.removed.is_empty()
            && self.late.is_empty()
            && !self.other_scheme
            && !self.partial_history
            && self.members.is_empty()
    }

    /// Competitions that triggered a replay.
    pub fn count(&self) -> usize {
        self.changed.len() + self.removed.len() + self.late.len()
    }

    /// `competition c7 changed, c9 arrived late`, with at most a few ids per kind.
    pub fn describe(&self) -> String {
        let list = |ids: &[String]| {
            let shown: Vec<String> = ids.iter().take(5).map(|id| format!("`{id}`")).collect();
            let more = if ids.len() > 5 {
                format!(" and {} more", ids.len() - 5)
            } else {
                String::new()
            };
            format!("{}{more}", shown.join(", "))
        };
        let mut parts = Vec::new();
        if self.other_scheme {
            parts.push(
                "the state's content hashes were taken by another version of bridgehcp".to_owned(),
            );
        }
        if self.partial_history {
            parts.push(
                "the state's changes and standings hold its own month only, as an older version of bridgehcp wrote them".to_owned(),
            );
        }
        if !self.changed.is_empty() {
            parts.push(format!("changed: {}", list(&self.changed)));
        }
        if !self.late.is_empty() {
            parts.push(format!("added late: {}", list(&self.late)));
        }
        if !self.removed.is_empty() {
            parts.push(format!("removed: {}", list(&self.removed)));
        }
        if !self.members.is_empty() {
            let ids: Vec<String> = self.members.iter().map(|m| m.to_string()).collect();
            parts.push(format!("starting handicap changed: member {}", list(&ids)));
        }
        parts.join("; ")
    }
}

/// Compares the previous ledger with `current`, the same ledger built from this run's
/// dataset for the competitions up to the previous run's last one; `scheme` is the
/// [`SCHEME`] the previous ledger's hashes were taken with.
pub fn compare_scheme(previous: &[Entry], current: &[Entry], scheme: u32) -> Difference {
    if scheme == SCHEME {
        return compare(previous, current);
    }
    let strip = |entries: &[Entry]| -> Vec<Entry> {
        entries
            .iter()
            .map(|e| Entry {
                sha256: None,
                ..e.clone()
            })
            .collect()
    };
    Difference {
        other_scheme: true,
        ..compare(&strip(previous), &strip(current))
    }
}

/// [`compare_scheme`] for ledgers of this version.
pub fn compare(previous: &[Entry], current: &[Entry]) -> Difference {
    let now: HashMap<&str, &Entry> = current
        .iter()
        .map(|e| (e.competition_id.as_str(), e))
        .collect();
    let before: HashMap<&str, &Entry> = previous
        .iter()
        .map(|e| (e.competition_id.as_str(), e))
        .collect();
    let mut difference = Difference::default();
    for old in previous {
        match now.get(old.competition_id.as_str()) {
            None => difference.removed.push(old.competition_id.clone()),
            Some(new)
                if new.sha256 != old.sha256
                    || new.date != old.date
                    || new.session != old.session =>
            {
                difference.changed.push(old.competition_id.clone())
            }
            Some(_) => difference.unchanged += 1,
        }
    }
    for new in current {
        if !before.contains_key(new.competition_id.as_str()) {
            difference.late.push(new.competition_id.clone());
        }
    }
    difference
}

/// Ledger entries for the competitions the reader left out (those with a date).
pub fn quarantined_entries(quarantined: &[Quarantined]) -> Vec<Entry> {
    quarantined
        .iter()
        .filter_map(|q| {
            Some(Entry {
                competition_id: q.competition_id.clone(),
                date: q.date?,
                session: q.session.unwrap_or(1),
                sha256: None,
                status: Status::Quarantined,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn board_lines_are_the_debug_form_of_every_field() {
        let row = super::BoardResult {
            competition_id: "K01 \"Höst\"\n".into(),
            board: 1_234_567,
            ns: Some("12".into()),
            ew: Some("tab\there".into()),
            contract: Some("3NTX".into()),
            declarer: Some("S".into()),
            tricks: Some(0),
            ns_score: Some(-1100),
            adjusted: Some("A60\\40".into()),
            north: None,
            south: Some("é".into()),
            round: Some(u32::MAX),
            session: Some(0),
            table: None,
            room: Some("open".into()),
            ns_penalty: Some(-0.5),
            ew_penalty: Some(3.0),
            ..super::BoardResult::default()
        };
        let r = &row;
        let by_formatter = format!(
            "{:?} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            r.competition_id, r.board, r.ns, r.ew, r.contract, r.declarer, r.tricks, r.ns_score,
            r.adjusted, r.north, r.south, r.east, r.west, r.round, r.session, r.table, r.room,
            r.ns_penalty, r.ew_penalty
        );
        assert_eq!(super::board_lines(&[&row]), vec![by_formatter]);
        let plain = super::BoardResult {
            ns_score: Some(450),
            ..super::BoardResult::default()
        };
        assert_eq!(
            super::board_lines(&[&plain]),
            vec![r#""" 0 None None None None None Some(450) None None None None None None None None None None None"#.to_owned()]
        );
    }

    #[test]
    fn entrant_and_result_lines_are_the_debug_form_without_origin() {
        let file: Arc<Path> = Arc::from(Path::new("entrants.csv"));
        let mut entrant = Entrant::new("K01 \"Höst\"", "12\\a");
        entrant.players = [Some(1234), None, Some(-7), Some(i64::MAX)];
        entrant.names = [
            Some("Åsa Öberg".into()),
            None,
            Some("tab\there".into()),
            None,
        ];
        entrant.team = Some("Lag 1".into());
        entrant.direction = Some(crate::dataset::Direction::EW);
        entrant.origin = Origin::new(&file, 9);
        let plain = Entrant::new("c1", "1");
        let mut stripped = entrant.clone();
        stripped.origin = Origin::default();
        // A line leaves out `house: false`, so that a competition without a house pair
        // hashes as it did before the field existed; a house pair's line keeps it. The
        // printed clubs are left out too (they decide no handicap), so ledgers written
        // before entrants carried them stay valid.
        let canonical = |e: &Entrant| {
            format!("{e:?}")
                .replace(", clubs: [None, None, None, None]", "")
                .replace("house: false, ", "")
        };
        let mut house = stripped.clone();
        house.house = true;
        let mut expected = vec![canonical(&stripped), canonical(&plain), canonical(&house)];
        expected.sort_unstable();
        assert_eq!(entrant_lines(&[&entrant, &plain, &house]), expected);
        assert!(canonical(&house).contains("house: true"));
        let mut with_club = plain.clone();
        with_club.clubs[0] = Some("Spiren BK".into());
        assert_eq!(entrant_lines(&[&with_club]), entrant_lines(&[&plain]));
        assert_eq!(
            entrant_lines(&[&plain]),
            vec![r#"Entrant { competition_id: "c1", entrant: "1", players: [None, None, None, None], names: [None, None, None, None], team: None, direction: None, origin: Origin { file: None, row: None } }"#.to_owned()]
        );

        for (score, opponent) in [
            (54.17, None),
            (-3.0, Some("lag \"B\"".to_owned())),
            (1e-7, None),
            (f64::NAN, Some("é".to_owned())),
        ] {
            let result = EntrantResult {
                competition_id: "c\n2".into(),
                entrant: "7".into(),
                boards_played: 27,
                score,
                opponent,
                origin: Origin::new(&file, 3),
            };
            let mut stripped = result.clone();
            stripped.origin = Origin::default();
            assert_eq!(result_lines(&[&result]), vec![format!("{stripped:?}")]);
        }
        let result = EntrantResult {
            competition_id: "c1".into(),
            entrant: "1".into(),
            boards_played: 24,
            score: 60.0,
            opponent: None,
            origin: Origin::default(),
        };
        assert_eq!(
            result_lines(&[&result]),
            vec![r#"EntrantResult { competition_id: "c1", entrant: "1", boards_played: 24, score: 60.0, opponent: None, origin: Origin { file: None, row: None } }"#.to_owned()]
        );
    }

    use super::*;
    use crate::dataset::{Format, ScoringMethod};
    use std::path::Path;
    use std::sync::Arc;

    fn date(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 1, d).unwrap_or_default()
    }

    fn dataset() -> Dataset {
        let mut d = Dataset::default();
        for id in ["c1", "c2"] {
            d.competitions.push(Competition::new(
                id,
                date(5),
                Format::Pairs,
                ScoringMethod::Matchpoints,
            ));
            for (entrant, score) in [("1", 60.0), ("2", 40.0)] {
                d.results.push(EntrantResult {
                    competition_id: id.into(),
                    entrant: entrant.into(),
                    boards_played: 24,
                    score,
                    opponent: None,
                    origin: Origin::default(),
                });
            }
        }
        d
    }

    #[test]
    fn the_hash_ignores_row_order_and_origin_but_not_values() {
        let d = dataset();
        let hashes = competition_hashes(&d);
        assert_eq!(hashes.len(), 2);
        assert_eq!(hashes["c1"].len(), 64);
        // Same rows, other id: other hash (the id is content).
        assert_ne!(hashes["c1"], hashes["c2"]);

        let mut moved = d.clone();
        moved.results.reverse();
        let file: Arc<Path> = Arc::from(Path::new("results/month=2026-01/part-0.parquet"));
        moved.results[0].origin = Origin::new(&file, 7);
        assert_eq!(competition_hashes(&moved), hashes);
        assert_eq!(dataset_hash(&moved, &hashes), dataset_hash(&d, &hashes));

        let mut changed = d.clone();
        changed.results[0].score = 61.0;
        let other = competition_hashes(&changed);
        assert_ne!(other["c1"], hashes["c1"]);
        assert_eq!(other["c2"], hashes["c2"]);
    }

    #[test]
    fn sha256_of_abc_is_the_published_one() {
        // FIPS 180-2, appendix B.1.
        assert_eq!(
            sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    fn entry(id: &str, day: u32, hash: &str) -> Entry {
        Entry {
            competition_id: id.into(),
            date: date(day),
            session: 1,
            sha256: Some(hash.into()),
            status: Status::Applied,
        }
    }

    #[test]
    fn compare_names_changed_removed_and_late_competitions() {
        let previous = [entry("a", 1, "x"), entry("b", 2, "y"), entry("c", 3, "z")];
        let same = compare(&previous, &previous);
        assert!(same.is_empty());
        assert_eq!(same.unchanged, 3);

        let current = [entry("a", 1, "x"), entry("b", 2, "Y"), entry("l", 2, "w")];
        let d = compare(&previous, &current);
        assert_eq!(d.changed, ["b"]);
        assert_eq!(d.removed, ["c"]);
        assert_eq!(d.late, ["l"]);
        assert_eq!(d.unchanged, 1);
        assert_eq!(d.describe(), "changed: `b`; added late: `l`; removed: `c`");

        // A competition moved to another date is a change.
        let moved = [entry("a", 4, "x"), entry("b", 2, "y"), entry("c", 3, "z")];
        assert_eq!(compare(&previous, &moved).changed, ["a"]);

        // Hashes of another scheme: matched by id, and a replay all the same.
        let rehashed = [entry("a", 1, "X"), entry("b", 2, "Y"), entry("c", 3, "Z")];
        let d = compare_scheme(&previous, &rehashed, SCHEME + 1);
        assert_eq!((d.unchanged, d.changed.len(), d.is_empty()), (3, 0, false));
        assert!(compare_scheme(&previous, &previous, SCHEME).is_empty());
    }

    #[test]
    fn the_factor_hash_tells_sets_of_one_name_apart() {
        let base = FactorSet::default();
        let mut other = base.clone();
        other.impact *= 2.0;
        assert_eq!(factor_hash(&base), factor_hash(&base.clone()));
        assert_ne!(factor_hash(&base), factor_hash(&other));
    }
}
