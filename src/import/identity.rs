//! Who a federation number is, decided as the federation keeps it.
//!
//! Clubs type names by hand, each program its own way: `Harry O. Kinn`, `Harry O Kinn`,
//! `H. O. Kinn`, `KINN, Harry`, `Mørck`/`Morck`. A handicap belongs to the member, so a
//! number the register knows is that member whatever the file prints; a spelling that
//! still differs after folding (a married name, a typed-over number) is worth an
//! officer's look and is reported, but never costs the member their rated sessions.
//!
//! A member's name and club are facts about the member, not about the first file that
//! happened to be imported, so they are decided from everything the dataset holds (the
//! register first; then the latest spelling, and the club played for most in the last
//! twelve months), with tie-breaks that never look at file order. Importing the same
//! files in any order, or split into any batches, gives the same `members` table.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use chrono::{Months, NaiveDate};

use crate::dataset::{Competition, Dataset, Entrant, Member, MemberId};
use crate::import::entry::{Entry, Status};

/// A name as comparable words: diacritics transliterated (`ø` → `o`), case folded,
/// punctuation and hyphens as spaces. `Surname, Given names` is turned round.
pub fn fold(name: &str) -> Vec<String> {
    let turned = match name.split_once(',') {
        Some((surname, given)) if !given.trim().is_empty() => format!("{given} {surname}"),
        _ => name.to_string(),
    };
    let ascii = deunicode::deunicode(&turned).to_lowercase();
    ascii
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Two words of a name agree: equal, or one is the other's initial.
fn word_matches(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let initial = |short: &str, long: &str| short.len() == 1 && long.starts_with(short);
    initial(a, b) || initial(b, a)
}

/// True when `short` can be read inside `long`, in order, word by word.
fn words_within(short: &[String], long: &[String]) -> bool {
    let mut rest = long.iter();
    short
        .iter()
        .all(|word| rest.by_ref().any(|other| word_matches(word, other)))
}

/// The same person written two ways: after [`fold`], the first and last words agree
/// (a word may be the other's initial), and the middle words of one side can be read
/// in the other's (a middle name written on one side only is no difference).
///
/// ```
/// use bridgehcp::import::identity::same_person;
/// assert!(same_person("Harry O Kinn", "Harry O. Kinn"));
/// assert!(same_person("H. O. Kinn", "Harry Olav Kinn"));
/// assert!(same_person("Rolf Andreas Mørck", "rolf morck"));
/// assert!(same_person("Kinn, Harry O.", "Harry O Kinn"));
/// assert!(!same_person("Geir Børre Surdal", "Geir Westerheim"));
/// assert!(!same_person("Harry Kinn", "Harald Kinn"));
/// ```
pub fn same_person(a: &str, b: &str) -> bool {
    let (a, b) = (fold(a), fold(b));
    if a.len() < 2 || b.len() < 2 {
        return a == b;
    }
    let (Some(first_a), Some(first_b), Some(last_a), Some(last_b)) =
        (a.first(), b.first(), a.last(), b.last())
    else {
        return false;
    };
    if !word_matches(first_a, first_b) || last_a != last_b {
        return false;
    }
    let (middle_a, middle_b) = (&a[1..a.len() - 1], &b[1..b.len() - 1]);
    if middle_a.len() <= middle_b.len() {
        words_within(middle_a, middle_b)
    } else {
        words_within(middle_b, middle_a)
    }
}

/// What the register says about one member.
#[derive(Debug, Clone, Default)]
struct Registered {
    name: Option<String>,
    club: Option<String>,
    district: Option<String>,
}

/// A federation's register of members: number, name, and optionally club and district.
#[derive(Debug, Clone, Default)]
pub struct Register {
    members: BTreeMap<MemberId, Registered>,
}

/// A registered number printed under a name that is not the register's, for the batch
/// to report once per member and spelling.
#[derive(Debug, Clone)]
pub struct NameDiffers {
    pub member_id: MemberId,
    pub registered: String,
    pub printed: String,
    pub file: PathBuf,
    pub competition_id: String,
    pub line: Option<usize>,
}

impl Register {
    pub fn new(members: &[Member]) -> Register {
        Register {
            members: members
                .iter()
                .map(|m| {
                    (
                        m.member_id,
                        Registered {
                            name: m.name.clone(),
                            club: m.club.clone(),
                            district: m.district.clone(),
                        },
                    )
                })
                .collect(),
        }
    }

    pub fn knows(&self, id: MemberId) -> bool {
        self.members.contains_key(&id)
    }

    /// Holds every number of `fragment` to the register. A number the register does not
    /// know is reported and imported as a non-member (the slot keeps the printed name, no
    /// member row is written). A known number stays that member; a printed name that is
    /// not the register's (see [`same_person`]) is returned to be reported.
    pub fn apply(&self, fragment: &mut Dataset, file: &Path) -> (Vec<Entry>, Vec<NameDiffers>) {
        let printed: BTreeMap<MemberId, Option<String>> = fragment
            .members
            .iter()
            .map(|m| (m.member_id, m.name.clone()))
            .collect();
        let mut notes = Vec::new();
        let mut differs = Vec::new();
        for entrant in &mut fragment.entrants {
            for slot in 0..4 {
                let Some(id) = entrant.players[slot] else {
                    continue;
                };
                let name = entrant.names[slot]
                    .clone()
                    .or_else(|| printed.get(&id).cloned().flatten());
                match self.members.get(&id) {
                    None => {
                        entrant.players[slot] = None;
                        entrant.names[slot] =
                            Some(name.clone().unwrap_or_else(|| format!("#{id}")));
                        notes.push(Entry {
                            file: file.to_path_buf(),
                            status: Status::NonMember,
                            competition_id: Some(entrant.competition_id.clone()),
                            month: None,
                            line: entrant.origin.row,
                            board: None,
                            column: None,
                            reason: format!(
                                "number {id} ({}) is not in the register: imported as a non-member",
                                name.as_deref().unwrap_or("no name")
                            ),
                        });
                    }
                    Some(registered) => {
                        if let (Some(known), Some(name)) = (&registered.name, &name) {
                            if !same_person(name, known) {
                                differs.push(NameDiffers {
                                    member_id: id,
                                    registered: known.clone(),
                                    printed: name.clone(),
                                    file: file.to_path_buf(),
                                    competition_id: entrant.competition_id.clone(),
                                    line: entrant.origin.row,
                                });
                            }
                        }
                    }
                }
            }
        }
        let used: BTreeSet<MemberId> = fragment
            .entrants
            .iter()
            .flat_map(|e| e.player_ids())
            .collect();
        fragment.members.retain(|m| used.contains(&m.member_id));
        (notes, differs)
    }
}

/// One number in one slot of one competition: when, and as what it was printed.
struct Play<'a> {
    date: NaiveDate,
    /// Orders plays of one day: session, competition id, entrant, slot.
    order: (i32, &'a str, &'a str, usize),
    name: Option<&'a str>,
    club: Option<&'a str>,
}

/// Every play of every number in `dataset`, in time order (ties broken by session,
/// competition id, entrant and slot: never by the order rows arrived in).
fn plays<'a>(
    competitions: &'a [Competition],
    entrants: &'a [Entrant],
) -> BTreeMap<MemberId, Vec<Play<'a>>> {
    let competitions: BTreeMap<&str, (NaiveDate, i32)> = competitions
        .iter()
        .map(|c| (c.competition_id.as_str(), (c.date, c.session)))
        .collect();
    let mut out: BTreeMap<MemberId, Vec<Play<'a>>> = BTreeMap::new();
    for entrant in entrants {
        let Some(&(date, session)) = competitions.get(entrant.competition_id.as_str()) else {
            continue;
        };
        for (slot, player) in entrant.players.iter().enumerate() {
            let Some(id) = *player else { continue };
            out.entry(id).or_default().push(Play {
                date,
                order: (
                    session,
                    entrant.competition_id.as_str(),
                    entrant.entrant.as_str(),
                    slot,
                ),
                name: entrant.names[slot]
                    .as_deref()
                    .filter(|n| !n.trim().is_empty()),
                club: entrant.clubs[slot]
                    .as_deref()
                    .filter(|c| !c.trim().is_empty()),
            });
        }
    }
    for list in out.values_mut() {
        list.sort_by(|a, b| (a.date, a.order).cmp(&(b.date, b.order)));
    }
    out
}

/// The latest spelling of a member's name (plays in time order).
fn latest_name<'a>(plays: &[Play<'a>]) -> Option<&'a str> {
    plays.iter().rev().find_map(|p| p.name)
}

/// The club a member played for most in the twelve months up to their latest
/// competition; a tie goes to the club played for most recently, then the first by
/// name. Without a club printed in those months, the same over all their competitions.
fn usual_club<'a>(plays: &[Play<'a>]) -> Option<&'a str> {
    let latest = plays.last()?.date;
    let since = latest.checked_sub_months(Months::new(12));
    let count = |window: bool| {
        let mut clubs: BTreeMap<&'a str, (usize, NaiveDate)> = BTreeMap::new();
        for play in plays {
            if window && since.is_some_and(|since| play.date <= since) {
                continue;
            }
            if let Some(club) = play.club {
                let entry = clubs.entry(club).or_insert((0, play.date));
                entry.0 += 1;
                entry.1 = entry.1.max(play.date);
            }
        }
        // Most plays, then the latest; on a full tie the BTreeMap's first name wins.
        clubs
            .into_iter()
            .fold(
                None,
                |best: Option<(&'a str, (usize, NaiveDate))>, (club, key)| match best {
                    Some((_, best_key)) if best_key >= key => best,
                    _ => Some((club, key)),
                },
            )
            .map(|(club, _)| club)
    };
    count(true).or_else(|| count(false))
}

/// Decides every member's name, club and district from the whole dataset: the register
/// where it has a value; otherwise the latest spelling printed for the number, and the
/// club played for most in the last twelve months (see [`usual_club`]). A member no
/// competition names keeps what the dataset says.
pub fn resolve_members(dataset: &mut Dataset, register: Option<&Register>) {
    let plays = plays(&dataset.competitions, &dataset.entrants);
    for member in &mut dataset.members {
        let own = plays
            .get(&member.member_id)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let registered = register.and_then(|r| r.members.get(&member.member_id));
        if let Some(name) = registered
            .and_then(|r| r.name.clone())
            .or_else(|| latest_name(own).map(str::to_string))
        {
            member.name = Some(name);
        }
        if let Some(club) = registered
            .and_then(|r| r.club.clone())
            .or_else(|| usual_club(own).map(str::to_string))
        {
            member.club = Some(club);
        }
        if let Some(district) = registered.and_then(|r| r.district.clone()) {
            member.district = Some(district);
        }
    }
}

/// Without a register: for each number that `batch_competitions` name, the spellings
/// the dataset holds that are not the same person as the latest one, reported once per
/// member on the batch's file of its latest competition.
///
/// A conflict is reported by the import that brings it: only when the batch prints
/// the number under a spelling that is not the same person as any the dataset held
/// before it. A member who plays every month under the name kept is not reported again
/// at every monthly import; the import log keeps the first report.
pub fn spelling_notes(
    dataset: &Dataset,
    batch_competitions: &BTreeMap<String, PathBuf>,
) -> Vec<Entry> {
    let plays = plays(&dataset.competitions, &dataset.entrants);
    let mut notes = Vec::new();
    for (id, own) in &plays {
        let Some(in_batch) = own
            .iter()
            .rev()
            .find(|p| batch_competitions.contains_key(p.order.1))
        else {
            continue;
        };
        let Some(latest) = latest_name(own) else {
            continue;
        };
        if !brings_a_spelling(own, batch_competitions) {
            continue;
        }
        // Other spellings: plays, latest date, competition, in first-seen order of time.
        let mut others: BTreeMap<&str, (usize, NaiveDate, &str)> = BTreeMap::new();
        for play in own {
            let Some(name) = play.name else { continue };
            if same_person(name, latest) {
                continue;
            }
            let entry = others.entry(name).or_insert((0, play.date, play.order.1));
            entry.0 += 1;
            if play.date >= entry.1 {
                entry.1 = play.date;
                entry.2 = play.order.1;
            }
        }
        if others.is_empty() {
            continue;
        }
        let listed: Vec<String> = others
            .iter()
            .map(|(name, (count, date, competition))| {
                let times = if *count == 1 {
                    "once".to_string()
                } else {
                    format!("{count} times")
                };
                format!("`{name}` ({times}, last {date} in `{competition}`)")
            })
            .collect();
        let competition = in_batch.order.1.to_string();
        let file = batch_competitions
            .get(&competition)
            .cloned()
            .unwrap_or_default();
        let line = dataset
            .entrants
            .iter()
            .find(|e| e.competition_id == competition && e.entrant == in_batch.order.2)
            .and_then(|e| e.origin.row);
        notes.push(Entry {
            file,
            status: Status::NameConflict,
            competition_id: Some(competition),
            month: Some(in_batch.date.format("%Y-%m").to_string()),
            line,
            board: None,
            column: None,
            reason: format!(
                "number {id} is `{latest}` in its latest competition, also printed as {}: kept as `{latest}`",
                listed.join(", ")
            ),
        });
    }
    notes
}

/// Whether a play in `batch_competitions` prints a spelling that is not the same
/// person as any printed in the other competitions.
fn brings_a_spelling(own: &[Play<'_>], batch_competitions: &BTreeMap<String, PathBuf>) -> bool {
    let (batch, before): (Vec<&Play<'_>>, Vec<&Play<'_>>) = own
        .iter()
        .partition(|p| batch_competitions.contains_key(p.order.1));
    let known: BTreeSet<&str> = before.iter().filter_map(|p| p.name).collect();
    batch
        .iter()
        .filter_map(|p| p.name)
        .any(|name| !known.iter().any(|k| same_person(name, k)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Format, ScoringMethod};

    #[test]
    fn folding_ignores_case_spacing_punctuation_and_diacritics() {
        assert_eq!(fold("  Rolf-Andreas  MØRCK "), ["rolf", "andreas", "morck"]);
        assert_eq!(fold("Kinn, Harry O."), ["harry", "o", "kinn"]);
        assert!(same_person("Harry O Kinn", "Harry O. Kinn"));
        assert!(same_person("H. O. Kinn", "Harry O. Kinn"));
        assert!(same_person("H.O. Kinn", "Harry Olav Kinn"));
        assert!(
            same_person("Harry Kinn", "Harry O. Kinn"),
            "middle name on one side"
        );
        assert!(same_person("Anne-Lise Bø", "Anne Lise Bo"));
        assert!(
            !same_person("Geir Børre Surdal", "Geir Westerheim"),
            "married name"
        );
        assert!(
            !same_person("Harry P. Kinn", "Harry O. Kinn"),
            "another middle initial"
        );
        assert!(!same_person("Anne", "A"), "a single word is compared whole");
    }

    fn competition(id: &str, date: (i32, u32, u32)) -> Competition {
        let date = NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap_or_default();
        Competition::new(id, date, Format::Pairs, ScoringMethod::Matchpoints)
    }

    fn entrant(competition: &str, id: MemberId, name: &str, club: &str) -> Entrant {
        let mut e = Entrant::new(competition, "1");
        e.players[0] = Some(id);
        e.names[0] = Some(name.to_string());
        e.clubs[0] = Some(club.to_string());
        e
    }

    /// The latest spelling and the club of the last twelve months, the same whatever
    /// the order of the rows.
    #[test]
    fn members_are_decided_by_date_not_by_row_order() {
        let mut d = Dataset {
            competitions: vec![
                competition("a", (2015, 1, 10)),
                competition("b", (2015, 9, 1)),
                competition("c", (2015, 10, 1)),
                competition("d", (2016, 3, 1)),
            ],
            entrants: vec![
                entrant("a", 7, "Old Name", "Club A"),
                entrant("a", 7, "Old Name", "Club A"),
                entrant("a", 7, "Old Name", "Club A"),
                entrant("b", 7, "Old Name", "Club B"),
                entrant("c", 7, "New Name", "Club C"),
                entrant("d", 7, "New Name", "Club B"),
            ],
            members: vec![Member::new(7)],
            ..Dataset::default()
        };
        let mut reversed = d.clone();
        reversed.entrants.reverse();
        resolve_members(&mut d, None);
        resolve_members(&mut reversed, None);
        // Club A's three plays are more than twelve months before 2016-03-01.
        assert_eq!(d.members[0].name.as_deref(), Some("New Name"));
        assert_eq!(d.members[0].club.as_deref(), Some("Club B"));
        assert_eq!(reversed.members, d.members);

        let register = Register::new(&[Member {
            name: Some("Registered Name".into()),
            district: Some("Oslo".into()),
            ..Member::new(7)
        }]);
        resolve_members(&mut d, Some(&register));
        assert_eq!(d.members[0].name.as_deref(), Some("Registered Name"));
        assert_eq!(
            d.members[0].club.as_deref(),
            Some("Club B"),
            "the register has no club"
        );
        assert_eq!(d.members[0].district.as_deref(), Some("Oslo"));
    }

    /// Two clubs played for equally often: the one played for last.
    #[test]
    fn a_tie_goes_to_the_latest_club() {
        let mut d = Dataset {
            competitions: vec![
                competition("a", (2015, 10, 29)),
                competition("b", (2016, 4, 21)),
            ],
            entrants: vec![
                entrant("b", 14358, "S", "TopBridge BC"),
                entrant("a", 14358, "S", "BK Norrøna"),
            ],
            members: vec![Member::new(14358)],
            ..Dataset::default()
        };
        resolve_members(&mut d, None);
        assert_eq!(d.members[0].club.as_deref(), Some("TopBridge BC"));
    }
}
