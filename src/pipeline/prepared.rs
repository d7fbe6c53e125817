//! A rated competition as the replay takes it: the model's input with each seat's
//! member still to be filled in. Plain data that the scoring, the preparation and the
//! replay all pass along, so it sits below them.

use chrono::NaiveDate;

use crate::dataset::{Direction, Origin};
use crate::model::{CompetitionInput, EntrantInput, PlayerInput, PlayerStatus};
#[cfg(test)]
use crate::scoring::Standing;
pub use crate::scoring::StandingLine;

/// Who sits in a player slot, as far as the replay is concerned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Seat {
    /// A member whose handicap is read and updated (dense index).
    Member(u32),
    /// A listed foreign guest: a temporary handicap, never updated.
    Foreign(Option<f64>),
    /// Not in the member list.
    NonMember,
}

/// A rated competition ready for the model; the handicaps are filled in at replay time.
#[derive(Debug, Clone)]
pub struct PreparedCompetition {
    pub competition_id: String,
    pub date: NaiveDate,
    pub session: i32,
    pub handicap_event: bool,
    /// The model's input with every member's handicap still to be filled in.
    pub input: CompetitionInput,
    /// Per entrant, per player slot: who sits there.
    pub seats: Vec<Vec<Seat>>,
    pub entrant_names: EntrantNames,
    /// The members whose handicaps this competition reads and writes, sorted, unique.
    pub rated_members: Vec<u32>,
    /// A pairs field with fixed directions: N/S and E/W are rated as separate fields.
    pub split_by_direction: bool,
    /// The players not in the member list, with what their export printed for them:
    /// `non_members.csv` names them after the replay has let go of the entrants.
    pub non_members: Vec<NonMemberSeat>,
    /// The competition's row, for errors the model raises about it.
    pub origin: Origin,
    /// The entrants and seats, packed while the competition waits for the replay
    /// ([`Self::pack`]); `input.entrants` and `seats` are then empty. Boxed: a run
    /// keeps every applied competition once released, and the packed form's room in
    /// each (40 bytes more than a pointer) was held for nothing.
    pub packed: Option<Box<PackedEntrants>>,
}

/// A competition's entrants' names (`entrants.entrant`), by entrant, in one allocation:
/// a run holds every rated competition's until its outputs are written. A `String`
/// each (24 bytes and an allocation of its own for a name of two or three characters)
/// was about forty bytes an entrant; a text and a list of four-byte ends, two
/// allocations and 32 bytes of struct a competition. Here the count, the ends (two
/// bytes each while the text is shorter than 64 KiB) and the text follow each other.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntrantNames {
    /// Empty for no names; else: the width of an end (2 or 4 bytes), the count of
    /// names (4 bytes), each name's end in the text (little-endian), the text.
    bytes: Box<[u8]>,
}

/// Where the ends start in [`EntrantNames::bytes`]: after the width and the count.
const NAMES_HEAD: usize = 5;

impl EntrantNames {
    /// Entrant `i`'s name.
    pub fn get(&self, i: usize) -> Option<&str> {
        if i >= self.len() {
            return None;
        }
        let end = self.end(i)?;
        let start = match i {
            0 => 0,
            _ => self.end(i - 1)?,
        };
        let text = self.bytes.get(NAMES_HEAD + self.len() * self.width()..)?;
        std::str::from_utf8(text.get(start..end)?).ok()
    }

    pub fn len(&self) -> usize {
        match self.bytes.get(1..NAMES_HEAD) {
            Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]) as usize,
            _ => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn width(&self) -> usize {
        self.bytes.first().map_or(0, |&w| usize::from(w))
    }

    /// Where name `i` ends in the text.
    fn end(&self, i: usize) -> Option<usize> {
        let width = self.width();
        let at = NAMES_HEAD + i * width;
        match *self.bytes.get(at..at + width)? {
            [a, b] => Some(usize::from(u16::from_le_bytes([a, b]))),
            [a, b, c, d] => Some(u32::from_le_bytes([a, b, c, d]) as usize),
            _ => None,
        }
    }
}

impl<'a> FromIterator<&'a str> for EntrantNames {
    /// The names in order. A competition whose names pass 4 GiB in all (none can: a
    /// row's text is far shorter) would read its later names as empty.
    fn from_iter<I: IntoIterator<Item = &'a str>>(names: I) -> Self {
        let mut text = String::new();
        let mut ends = Vec::new();
        for name in names {
            text.push_str(name);
            ends.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        }
        if ends.is_empty() {
            return EntrantNames::default();
        }
        let wide = text.len() > usize::from(u16::MAX);
        let width: u8 = if wide { 4 } else { 2 };
        let mut bytes =
            Vec::with_capacity(NAMES_HEAD + ends.len() * usize::from(width) + text.len());
        bytes.push(width);
        bytes.extend_from_slice(&u32::try_from(ends.len()).unwrap_or(u32::MAX).to_le_bytes());
        for end in ends {
            match u16::try_from(end) {
                Ok(end) if !wide => bytes.extend_from_slice(&end.to_le_bytes()),
                _ => bytes.extend_from_slice(&end.to_le_bytes()),
            }
        }
        bytes.extend_from_slice(text.as_bytes());
        EntrantNames {
            bytes: bytes.into_boxed_slice(),
        }
    }
}

/// A player of a competition who is not in the member list.
#[derive(Debug, Clone, PartialEq)]
pub struct NonMemberSeat {
    /// The entrant's position in the competition.
    pub entrant: u32,
    /// The id the player is rated under: the printed number, or, for a player printed
    /// without one, a placeholder unique within the competition (negative).
    pub member_id: i64,
    /// The number the export printed, if any.
    pub printed_number: Option<i64>,
    /// The name the export printed, if any.
    pub printed_name: Option<String>,
}

/// A rated competition's entrants and seats as a run holds them from scoring to the
/// replay: two flat arrays instead of a vector per entrant and two per player slot.
/// A federation's history of model inputs is the largest thing a run holds once its
/// rows are read (about 290 bytes per entrant unpacked, 72 packed). The replay reads
/// them packed ([`PreparedCompetition::input_into`], [`PreparedCompetition::seat`]):
/// unpacking would build, and then drop, two vectors per entrant.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackedEntrants {
    entrants: Vec<PackedEntrant>,
    players: Vec<PackedPlayer>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct PackedEntrant {
    result: f64,
    boards_played: u32,
    /// The entrant's first player slot in [`PackedEntrants::players`].
    first: u32,
    /// `u32::MAX`: none.
    opponent: u32,
    players: u8,
    direction: Option<crate::model::Direction>,
}

impl PackedEntrants {
    /// The player slots of `entrant`.
    fn slots(&self, entrant: &PackedEntrant) -> &[PackedPlayer] {
        let first = entrant.first as usize;
        let end = first + usize::from(entrant.players);
        self.players.get(first..end).unwrap_or_default()
    }
}

/// A player slot: its status follows from its seat (see [`status_of`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct PackedPlayer {
    member_id: i64,
    seat: Seat,
}

/// The status the model input gives a player in `seat` before the replay fills in the
/// members' handicaps.
fn status_of(seat: Seat) -> PlayerStatus {
    match seat {
        Seat::Member(_) => PlayerStatus::Rated(f64::NAN),
        Seat::Foreign(reported_level) => PlayerStatus::Foreign { reported_level },
        Seat::NonMember => PlayerStatus::NonMember,
    }
}

/// Whether `status` is the one [`status_of`] gives `seat`, to the bit.
fn follows(seat: Seat, status: PlayerStatus) -> bool {
    let bits = |v: Option<f64>| v.map(f64::to_bits);
    match (seat, status) {
        (Seat::Member(_), PlayerStatus::Rated(h)) => h.to_bits() == f64::NAN.to_bits(),
        (Seat::Foreign(a), PlayerStatus::Foreign { reported_level: b }) => bits(a) == bits(b),
        (Seat::NonMember, PlayerStatus::NonMember) => true,
        _ => false,
    }
}

impl PreparedCompetition {
    /// Lets go of the model input once the competition is applied: the outputs name
    /// its entrants and nothing more, and a federation's history of inputs is the
    /// largest thing a run would otherwise hold to the end.
    pub fn release(&mut self) {
        self.input.entrants = Vec::new();
        self.seats = Vec::new();
        self.rated_members = Vec::new();
        self.packed = None;
    }

    /// Packs the entrants and seats ([`PackedEntrants`]). An input the packed form
    /// cannot hold exactly (a seat whose status is not the usual one, an entrant of
    /// more than 255 players) stays as it is.
    pub fn pack(&mut self) {
        if self.packed.is_some() {
            return;
        }
        let entrants = &self.input.entrants;
        let slots: usize = self.seats.iter().map(Vec::len).sum();
        let fits = entrants.len() == self.seats.len()
            && u32::try_from(slots).is_ok()
            && entrants.iter().zip(&self.seats).all(|(e, seats)| {
                e.players.len() == seats.len()
                    && seats.len() <= usize::from(u8::MAX)
                    && e.opponent.is_none_or(|o| o < u32::MAX as usize)
                    && e.players
                        .iter()
                        .zip(seats)
                        .all(|(p, s)| follows(*s, p.status))
            });
        if !fits {
            return;
        }
        let mut packed = PackedEntrants {
            entrants: Vec::with_capacity(entrants.len()),
            players: Vec::with_capacity(slots),
        };
        for (entrant, seats) in entrants.iter().zip(&self.seats) {
            packed.entrants.push(PackedEntrant {
                result: entrant.result,
                boards_played: entrant.boards_played,
                first: packed.players.len() as u32,
                opponent: entrant.opponent.map_or(u32::MAX, |o| o as u32),
                players: seats.len() as u8,
                direction: entrant.direction,
            });
            for (player, &seat) in entrant.players.iter().zip(seats) {
                packed.players.push(PackedPlayer {
                    member_id: player.member_id,
                    seat,
                });
            }
        }
        self.input.entrants = Vec::new();
        self.seats = Vec::new();
        self.packed = Some(Box::new(packed));
    }

    /// The player slots of the entrants, packed or not.
    pub fn player_slots(&self) -> usize {
        match &self.packed {
            Some(packed) => packed.players.len(),
            None => self.seats.iter().map(Vec::len).sum(),
        }
    }

    /// The entrants and seats back as the model takes them.
    pub fn unpack(&mut self) {
        let Some(packed) = self.packed.take() else {
            return;
        };
        let mut players = packed.players.as_slice();
        self.input.entrants = Vec::with_capacity(packed.entrants.len());
        self.seats = Vec::with_capacity(packed.entrants.len());
        for entrant in &packed.entrants {
            let (slots, rest) = players.split_at(usize::from(entrant.players).min(players.len()));
            players = rest;
            self.input.entrants.push(EntrantInput {
                players: slots
                    .iter()
                    .map(|p| PlayerInput {
                        member_id: p.member_id,
                        status: status_of(p.seat),
                    })
                    .collect(),
                boards_played: entrant.boards_played,
                result: entrant.result,
                direction: entrant.direction,
                opponent: (entrant.opponent != u32::MAX).then_some(entrant.opponent as usize),
            });
            self.seats.push(slots.iter().map(|p| p.seat).collect());
        }
    }

    /// The model's input with the given member handicaps.
    pub fn input_with(&self, handicap_of: impl Fn(u32) -> f64) -> CompetitionInput {
        if self.packed.is_some() {
            let mut input = CompetitionInput {
                entrants: Vec::new(),
                ..self.input.clone()
            };
            self.input_into(&mut input, handicap_of);
            return input;
        }
        let mut input = self.input.clone();
        self.fill_handicaps(&mut input, handicap_of);
        input
    }

    /// [`Self::input_with`] written into `input`, reusing its buffers: the replay keeps
    /// one per thread, so that a competition costs no allocation for its input.
    pub fn input_into(&self, input: &mut CompetitionInput, handicap_of: impl Fn(u32) -> f64) {
        let source = &self.input;
        input.n_boards = source.n_boards;
        input.method = source.method;
        input.kind = source.kind;
        input.weight_multiplier = source.weight_multiplier;
        if let Some(packed) = &self.packed {
            return self.input_from_packed(packed, input, handicap_of);
        }
        input.entrants.truncate(source.entrants.len());
        for (i, from) in source.entrants.iter().enumerate() {
            match input.entrants.get_mut(i) {
                Some(to) => {
                    to.players.clear();
                    to.players.extend_from_slice(&from.players);
                    to.boards_played = from.boards_played;
                    to.result = from.result;
                    to.direction = from.direction;
                    to.opponent = from.opponent;
                }
                None => input.entrants.push(from.clone()),
            }
        }
        self.fill_handicaps(input, handicap_of);
    }

    /// [`Self::input_into`]'s entrants from the packed ones: what unpacking and then
    /// filling in the handicaps gives, player by player in the same order.
    fn input_from_packed(
        &self,
        packed: &PackedEntrants,
        input: &mut CompetitionInput,
        handicap_of: impl Fn(u32) -> f64,
    ) {
        input.entrants.truncate(packed.entrants.len());
        for (i, entrant) in packed.entrants.iter().enumerate() {
            let players = packed.slots(entrant).iter().map(|p| PlayerInput {
                member_id: p.member_id,
                status: match p.seat {
                    Seat::Member(index) => PlayerStatus::Rated(handicap_of(index)),
                    seat => status_of(seat),
                },
            });
            let opponent = (entrant.opponent != u32::MAX).then_some(entrant.opponent as usize);
            match input.entrants.get_mut(i) {
                Some(to) => {
                    to.players.clear();
                    to.players.extend(players);
                    to.boards_played = entrant.boards_played;
                    to.result = entrant.result;
                    to.direction = entrant.direction;
                    to.opponent = opponent;
                }
                None => input.entrants.push(EntrantInput {
                    players: players.collect(),
                    boards_played: entrant.boards_played,
                    result: entrant.result,
                    direction: entrant.direction,
                    opponent,
                }),
            }
        }
    }

    /// The entrants, packed or not.
    pub fn entrant_count(&self) -> usize {
        match &self.packed {
            Some(packed) => packed.entrants.len(),
            None => self.input.entrants.len(),
        }
    }

    /// Entrant `entrant`'s result, direction and number of seats, packed or not.
    pub fn entrant_summary(
        &self,
        entrant: usize,
    ) -> Option<(f64, Option<crate::model::Direction>, usize)> {
        match &self.packed {
            Some(packed) => packed
                .entrants
                .get(entrant)
                .map(|e| (e.result, e.direction, usize::from(e.players))),
            None => self.input.entrants.get(entrant).map(|e| {
                let seats = self.seats.get(entrant).map_or(0, Vec::len);
                (e.result, e.direction, seats)
            }),
        }
    }

    /// Who sits in slot `slot` of entrant `entrant`, packed or not (no such slot: nobody
    /// the replay updates).
    pub fn seat(&self, entrant: usize, slot: usize) -> Seat {
        let seat = match &self.packed {
            Some(packed) => packed
                .entrants
                .get(entrant)
                .and_then(|e| packed.slots(e).get(slot))
                .map(|p| p.seat),
            None => self.seats.get(entrant).and_then(|s| s.get(slot)).copied(),
        };
        seat.unwrap_or(Seat::NonMember)
    }

    /// The slot of `member_id` within entrant `entrant`, packed or not.
    pub fn slot_of(&self, entrant: usize, member_id: i64) -> Option<usize> {
        match &self.packed {
            Some(packed) => packed.entrants.get(entrant).and_then(|e| {
                packed
                    .slots(e)
                    .iter()
                    .position(|p| p.member_id == member_id)
            }),
            None => self
                .input
                .entrants
                .get(entrant)?
                .players
                .iter()
                .position(|p| p.member_id == member_id),
        }
    }

    fn fill_handicaps(&self, input: &mut CompetitionInput, handicap_of: impl Fn(u32) -> f64) {
        for (entrant, seats) in input.entrants.iter_mut().zip(&self.seats) {
            for (player, seat) in entrant.players.iter_mut().zip(seats) {
                if let Seat::Member(index) = seat {
                    player.status = PlayerStatus::Rated(handicap_of(*index));
                }
            }
        }
    }
}

/// The standings of a run, as columns: a federation's history has millions of lines,
/// and a [`Standing`] with its two owned strings weighs some 180 bytes. Here a line is
/// its numbers, its competition by number, and its entrant's name in one shared text,
/// about 34 bytes. The Swiss rounds of a standing are not kept (no run output has them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StandingTable {
    /// The competitions' ids; a line holds its place here.
    competition_ids: Vec<String>,
    competition: Vec<u32>,
    /// Entrant names one after the other; line `i`'s ends at `entrant_ends[i]`.
    entrant_text: String,
    entrant_ends: Vec<u32>,
    score: Vec<f64>,
    /// The percentage where `flags` has [`PERCENT`], else 0: a value and a bit rather
    /// than an `Option<f64>` (16 bytes) a line, as for `vp`.
    percent: Vec<f64>,
    boards_played: Vec<u32>,
    rank: Vec<u32>,
    direction: Vec<Option<Direction>>,
    /// The victory points of the lines that have them (a team event's, a line in
    /// fifteen): the lines, in order, and their points. A column of every line was
    /// eight bytes a line, nearly all of them unused.
    vp_lines: Vec<u32>,
    vp: Vec<f64>,
    /// [`PERCENT`], [`VP`] and [`HOUSE`] of each line.
    flags: Vec<u8>,
}

const PERCENT: u8 = 1;
const VP: u8 = 2;
const HOUSE: u8 = 4;

impl StandingTable {
    pub fn len(&self) -> usize {
        self.score.len()
    }

    pub fn is_empty(&self) -> bool {
        self.score.is_empty()
    }

    /// Line `i`.
    pub fn line(&self, i: usize) -> StandingLine<'_> {
        let start = match i {
            0 => 0,
            _ => self.entrant_ends[i - 1] as usize,
        };
        let end = self.entrant_ends[i] as usize;
        StandingLine {
            competition_id: &self.competition_ids[self.competition[i] as usize],
            entrant: self.entrant_text.get(start..end).unwrap_or_default(),
            score: self.score[i],
            percent: (self.flags[i] & PERCENT != 0).then_some(self.percent[i]),
            boards_played: self.boards_played[i],
            rank: self.rank[i],
            direction: self.direction[i],
            vp: (self.flags[i] & VP != 0).then(|| self.vp_of(i)).flatten(),
            house: self.flags[i] & HOUSE != 0,
            rounds: (),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = StandingLine<'_>> {
        (0..self.len()).map(|i| self.line(i))
    }

    /// The victory points of line `i`, when it has them.
    fn vp_of(&self, i: usize) -> Option<f64> {
        let at = self.vp_lines.partition_point(|&line| (line as usize) < i);
        (self.vp_lines.get(at).copied() == Some(i as u32))
            .then(|| self.vp.get(at).copied())
            .flatten()
    }

    /// The bytes of the entrants' names.
    pub fn text_len(&self) -> usize {
        self.entrant_text.len()
    }

    /// Makes room for `lines` more lines of `competitions` competitions, whose
    /// entrants' names take `text` bytes, so that appending does not grow the columns
    /// by doubling (a run appends every competition's lines at once).
    pub fn reserve(&mut self, lines: usize, competitions: usize, text: usize) {
        self.competition_ids.reserve(competitions);
        self.competition.reserve(lines);
        self.entrant_text.reserve(text);
        self.entrant_ends.reserve(lines);
        self.score.reserve(lines);
        self.percent.reserve(lines);
        self.boards_played.reserve(lines);
        self.rank.reserve(lines);
        self.direction.reserve(lines);
        self.flags.reserve(lines);
    }

    /// Appends a line after every other.
    pub fn push(&mut self, line: StandingLine<'_>) {
        if self.competition_ids.last().map(String::as_str) != Some(line.competition_id) {
            self.competition_ids.push(line.competition_id.to_owned());
        }
        self.competition
            .push(self.competition_ids.len().saturating_sub(1) as u32);
        self.entrant_text.push_str(line.entrant);
        self.entrant_ends.push(self.entrant_text.len() as u32);
        self.score.push(line.score);
        self.percent.push(line.percent.unwrap_or(0.0));
        self.boards_played.push(line.boards_played);
        self.rank.push(line.rank);
        self.direction.push(line.direction);
        if let Some(vp) = line.vp {
            self.vp_lines.push((self.flags.len()) as u32);
            self.vp.push(vp);
        }
        self.flags.push(
            u8::from(line.percent.is_some()) * PERCENT
                + u8::from(line.vp.is_some()) * VP
                + u8::from(line.house) * HOUSE,
        );
    }

    /// The lines from `at` on, in a table of their own with room for `room` lines
    /// more (a run drops the lines it has sealed from the front).
    pub fn after(&self, at: usize, room: usize) -> StandingTable {
        let lines = self.len().saturating_sub(at);
        let text = match at {
            0 => self.entrant_text.len(),
            _ => (self.entrant_text.len())
                .saturating_sub(self.entrant_ends.get(at - 1).map_or(0, |&e| e as usize)),
        };
        let mut rest = StandingTable::default();
        let per_line = self.entrant_text.len() / self.len().max(1) + 1;
        rest.reserve(lines + room, 0, text + room * per_line);
        for i in at..self.len() {
            rest.push(self.line(i));
        }
        rest
    }

    /// Appends `other`'s lines after every other.
    pub fn append(&mut self, other: &StandingTable) {
        for line in other.iter() {
            self.push(line);
        }
    }

    /// Keeps the lines of the competitions `keep` accepts, in order.
    pub fn retain_competitions(&mut self, keep: impl Fn(&str) -> bool) {
        let kept: Vec<bool> = self.competition_ids.iter().map(|id| keep(id)).collect();
        if kept.iter().all(|&k| k) {
            return;
        }
        let old = std::mem::take(self);
        for line in (0..old.len())
            .filter(|&i| kept[old.competition[i] as usize])
            .map(|i| old.line(i))
        {
            self.push(line);
        }
    }
}

impl<'a> FromIterator<StandingLine<'a>> for StandingTable {
    fn from_iter<I: IntoIterator<Item = StandingLine<'a>>>(lines: I) -> Self {
        let mut table = StandingTable::default();
        for line in lines {
            table.push(line);
        }
        table
    }
}

impl<'a> IntoIterator for &'a StandingTable {
    type Item = StandingLine<'a>;
    type IntoIter = Box<dyn Iterator<Item = StandingLine<'a>> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names of any length, an empty one too, come back as given, in order; past the
    /// last there is none.
    /// A run holds one of these per applied competition to the end (at 90 000 members,
    /// 733 237 of them): the packed entrants, empty once released, are a pointer.
    #[test]
    fn an_applied_competition_holds_no_room_for_its_packed_entrants() {
        assert_eq!(std::mem::size_of::<Option<Box<PackedEntrants>>>(), 8);
        assert!(std::mem::size_of::<PreparedCompetition>() <= 224);
    }

    #[test]
    fn entrant_names_give_back_each_name() {
        let names: EntrantNames = ["12", "", "Östra BK lag 3", "3"].into_iter().collect();
        assert_eq!(names.len(), 4);
        assert_eq!(names.get(0), Some("12"));
        assert_eq!(names.get(1), Some(""));
        assert_eq!(names.get(2), Some("Östra BK lag 3"));
        assert_eq!(names.get(3), Some("3"));
        assert_eq!(names.get(4), None);
        assert!(EntrantNames::default().is_empty());
        assert_eq!(EntrantNames::default().get(0), None);
        // Names past 64 KiB in all are found as well.
        let long = "x".repeat(40_000);
        let names: EntrantNames = [long.as_str(), "7", long.as_str(), "é"]
            .into_iter()
            .collect();
        assert_eq!(names.len(), 4);
        assert_eq!(names.get(0), Some(long.as_str()));
        assert_eq!(names.get(1), Some("7"));
        assert_eq!(names.get(2), Some(long.as_str()));
        assert_eq!(names.get(3), Some("é"));
        assert_eq!(names.get(4), None);
    }

    fn standing(competition: &str, entrant: &str, rank: u32) -> Standing {
        Standing {
            percent: (rank % 2 == 0).then_some(52.5),
            rank,
            direction: (rank == 3).then_some(Direction::EW),
            vp: (rank == 2).then_some(12.04),
            house: rank == 4,
            ..Standing::new(competition, entrant, f64::from(rank) * 1.5, 24)
        }
    }

    /// Three entrants: a member with a foreign guest (reported level 31.5), a non-member
    /// with a foreign guest without a level, and an individual member; unpacked.
    fn three_entrants() -> PreparedCompetition {
        use crate::model::{CalcMethod, FieldKind};
        let slot = |member_id, seat| {
            let input = PlayerInput {
                member_id,
                status: status_of(seat),
            };
            (input, seat)
        };
        let fields = [
            vec![
                slot(101, Seat::Member(0)),
                slot(102, Seat::Foreign(Some(31.5))),
            ],
            vec![slot(-3, Seat::NonMember), slot(104, Seat::Foreign(None))],
            vec![slot(105, Seat::Member(7))],
        ];
        let entrants: Vec<EntrantInput> = fields
            .iter()
            .enumerate()
            .map(|(i, players)| EntrantInput {
                players: players.iter().map(|p| p.0).collect(),
                boards_played: 20 + i as u32,
                result: -1.25 * i as f64,
                direction: (i == 1).then_some(crate::model::Direction::EW),
                opponent: (i == 0).then_some(2),
            })
            .collect();
        let seats: Vec<Vec<Seat>> = fields
            .iter()
            .map(|players| players.iter().map(|p| p.1).collect())
            .collect();
        PreparedCompetition {
            competition_id: "2026-03-04-club".into(),
            date: NaiveDate::default(),
            session: 1,
            handicap_event: false,
            input: CompetitionInput {
                n_boards: 24,
                method: CalcMethod::Topscore,
                kind: FieldKind::Pairs,
                weight_multiplier: 1.0,
                entrants,
            },
            seats,
            entrant_names: ["1", "2", "3"].into_iter().collect(),
            rated_members: vec![0, 7],
            split_by_direction: false,
            non_members: Vec::new(),
            origin: Origin::default(),
            packed: None,
        }
    }

    /// Packed and unpacked, a competition's entrants and seats are what they were, to
    /// the bit; a seat whose status is not the usual one is left unpacked.
    #[test]
    fn packing_keeps_the_input_and_seats_to_the_bit() {
        let mut competition = three_entrants();
        let seats = competition.seats.clone();
        let before = format!("{competition:?}");
        competition.pack();
        assert!(competition.packed.is_some());
        assert!(competition.input.entrants.is_empty() && competition.seats.is_empty());
        competition.unpack();
        assert!(competition.packed.is_none());
        assert_eq!(competition.seats, seats);
        assert_eq!(format!("{competition:?}"), before);

        competition.input.entrants[2].players[0].status = PlayerStatus::Rated(30.0);
        competition.pack();
        assert!(competition.packed.is_none());
        assert_eq!(competition.input.entrants.len(), 3);
    }

    /// Read packed, a competition gives the replay what it gave unpacked: the model's
    /// input with member 0 at 12.5 and member 7 at 40.25 (written into a fresh input and
    /// into one left over from a larger field), every seat, and every member's slot.
    #[test]
    fn a_packed_competition_reads_as_the_unpacked_one() {
        let unpacked = three_entrants();
        let mut packed = unpacked.clone();
        packed.pack();
        assert!(packed.packed.is_some());
        let handicap = |m: u32| match m {
            0 => 12.5,
            7 => 40.25,
            _ => f64::NAN,
        };
        let expected = unpacked.input_with(handicap);
        let players = |input: &CompetitionInput| -> Vec<(i64, PlayerStatus)> {
            let slots = input.entrants.iter().flat_map(|e| &e.players);
            slots.map(|p| (p.member_id, p.status)).collect()
        };
        assert_eq!(
            players(&expected),
            [
                (101, PlayerStatus::Rated(12.5)),
                (
                    102,
                    PlayerStatus::Foreign {
                        reported_level: Some(31.5)
                    }
                ),
                (-3, PlayerStatus::NonMember),
                (
                    104,
                    PlayerStatus::Foreign {
                        reported_level: None
                    }
                ),
                (105, PlayerStatus::Rated(40.25)),
            ]
        );
        assert_eq!(
            format!("{:?}", packed.input_with(handicap)),
            format!("{expected:?}")
        );
        let mut scratch = three_entrants().input_with(|_| 1.0);
        scratch.entrants.extend(scratch.entrants.clone());
        let extra = scratch.entrants[2].players[0];
        scratch.entrants[0].players.push(extra);
        scratch.n_boards = 3;
        packed.input_into(&mut scratch, handicap);
        assert_eq!(format!("{scratch:?}"), format!("{expected:?}"));

        assert_eq!((packed.entrant_count(), unpacked.entrant_count()), (3, 3));
        for entrant in 0..4 {
            for slot in 0..3 {
                assert_eq!(
                    packed.seat(entrant, slot),
                    unpacked.seat(entrant, slot),
                    "{entrant} {slot}"
                );
            }
            for member in [101, 102, -3, 104, 105, 7] {
                assert_eq!(
                    packed.slot_of(entrant, member),
                    unpacked.slot_of(entrant, member)
                );
            }
        }
        assert_eq!(packed.seat(0, 1), Seat::Foreign(Some(31.5)));
        assert_eq!(packed.seat(2, 0), Seat::Member(7));
        assert_eq!(packed.seat(2, 1), Seat::NonMember);
        assert_eq!(packed.slot_of(1, 104), Some(1));
        assert_eq!(packed.slot_of(1, 101), None);
    }

    /// The table gives back the lines it was given, with the competitions it keeps.
    #[test]
    fn a_table_gives_back_its_lines_and_drops_whole_competitions() {
        let rows = [
            standing("2026-01-05-a", "1", 1),
            standing("2026-01-05-a", "12", 2),
            standing("2026-01-06-b", "Smith", 3),
            standing("2026-01-06-b", "", 4),
            standing("2026-01-07-c", "7", 1),
        ];
        let mut table: StandingTable = rows.iter().map(StandingLine::from).collect();
        assert_eq!(table.len(), 5);
        let back: Vec<StandingLine> = table.iter().collect();
        let want: Vec<StandingLine> = rows.iter().map(StandingLine::from).collect();
        assert_eq!(back, want);
        assert_eq!(table.line(2).entrant, "Smith");
        assert_eq!(table.line(3).entrant, "");
        assert_eq!(table.line(1).vp, Some(12.04));

        let mut other = StandingTable::default();
        other.append(&table);
        assert_eq!(other, table);

        table.retain_competitions(|id| id != "2026-01-06-b");
        let ids: Vec<&str> = table.iter().map(|l| l.competition_id).collect();
        assert_eq!(ids, ["2026-01-05-a", "2026-01-05-a", "2026-01-07-c"]);
        let entrants: Vec<&str> = table.iter().map(|l| l.entrant).collect();
        assert_eq!(entrants, ["1", "12", "7"]);
        assert_eq!(table.line(2).score, 1.5);
        // Victory points stay with their line when the lines before it go.
        let vp: Vec<Option<f64>> = table.iter().map(|l| l.vp).collect();
        assert_eq!(vp, [None, Some(12.04), None]);
        table.retain_competitions(|id| id != "2026-01-05-a");
        assert_eq!(table.line(0).vp, None);
        assert_eq!(table.len(), 1);
    }
}
