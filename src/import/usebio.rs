//! USEBIO 1.2 XML result files, as written by Compscore and other programs that follow
//! the EBU's Universal Scoring Exchange format.
//!
//! The file is read into a small element tree first (name, text, children, line), so that
//! every row keeps the line of its element for error messages and origins, and the
//! interpretation below can look elements up by name regardless of their order.
//!
//! # Compscore's conventions, as its files show them
//!
//! Checked against the Compscore3 exports of the real club files' `usebio/`
//! (`tests/realdata.rs` and `tests/reconcile.rs` assert every figure):
//!
//! * **Matchpoints on the 2/1 scale** (`mp_scale = two_one`): 19 results on board 1 of
//!   the 19-table Mitchell give a top of 36.
//! * **Neuberg in the totals only** (`neuberg = true`, `travellers = unfactored`): board 15 of that Mitchell was
//!   played 18 times; its travellers are printed unfactored (top 34), and the totals add
//!   `(s + 1)·19/18 − 1` for it (1NS: 441 on the travellers, 442.22 published). The sole
//!   top and bottom of that board (8NS, 2EW) are the exception: 0.006 off Neuberg in the
//!   published totals, a quirk the test names.
//! * **Missed boards are scaled, sit-outs are not** (`bye_score = most_in_direction`): a pair that
//!   played fewer boards than the most any pair of its direction played is scaled up to
//!   that number (9EW: 555 × 27/26 = 576.35), while a sit-out every pair of a direction
//!   has is not (13-pair Mitchell: 1NS has 97 over 18 boards with a top of 10, 97/180 =
//!   53.89 %). The README's "travellers to 1 decimal" is not what these files show.
//! * **Two winners** (`WINNER_TYPE` 2) for fixed-direction Mitchells: pairs are
//!   `1NS`/`1EW` with a `DIRECTION`, and places count within each direction.
//! * **Cross-IMPs are averaged** (`imp_aggregate = average`): with four results a board
//!   each traveller line is a whole number of IMPs over 3 comparisons (3.67 = 11/3).
//! * **Butler**: `BOARD_AVERAGE` is the datum, the mean N/S score without one top and one
//!   bottom score (`datum_trim = top_and_bottom`), rounded to 10 with halves away from
//!   zero (`datum_rounding = nearest_10`); all 35 datums of the butler file agree.
//! * **Non-members**: a player with national number 0 (Compscore's `DIRECTOR` filling
//!   in) gets no member row.
//! * **Halves to even.** Compscore rounds a half of the last digit to even: 18.95
//!   prints 19.0 and 12.65 prints 12.6 (the factored travellers of the adjusted
//!   Lindfield Mitchell; `reconcile::Rounding::HalfEven`).
//! * **Around an artificial score** the travellers are factored too (five results and
//!   an `A5050` on six tables print 0.2, 2.6, 5.0, 7.4, 9.8 and 5.0).
//! * **Adjusted lines that keep their score** are printed with whole numbers on a
//!   board whose other lines carry a decimal (`unmarked_adjustments`).
//! * **Hand records** are `<BOARD>` elements with `<HAND>`s and no `<TRAVELLER_LINE>`;
//!   they are skipped.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;
use quick_xml::events::Event;
use quick_xml::Reader;

use crate::dataset::{
    BoardResult, Competition, Dataset, Direction, Entrant, Format, Member, Origin, ScoringMethod,
};
use crate::error::{InputError, Location};
use crate::import::published::{
    slug, ExportSource, Imported, LineKind, Precision, Published, PublishedDatum, PublishedLine,
    PublishedStanding,
};
use crate::scoring::contract::{normalize_contract, MAX_TRICKS};
use crate::scoring::conventions::{Conventions, Travellers};
use crate::scoring::matchpoints::neuberg;
use crate::scoring::outcome::{artificial_code, parse_artificial};

/// Reads a USEBIO 1.2 XML result file.
pub fn parse(path: impl AsRef<Path>) -> Result<Imported, InputError> {
    super::published::parse_file(path.as_ref(), parse_bytes)
}

/// Reads a USEBIO file already in memory; `path` names it in errors and origins.
pub fn parse_bytes(path: &Path, bytes: &[u8]) -> Result<Imported, InputError> {
    // Compscore writes UTF-8; other programs declare ISO-8859-1 and write it.
    let source = ExportSource::decode(path, bytes, "a USEBIO XML")?;
    let root = read_tree(&source.file, &source.text)?;
    build(&root)
}

/// An XML element with the line it starts on.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
    text: String,
    children: Vec<Element>,
    origin: Origin,
}

impl Element {
    fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The trimmed text of a child element, `None` when absent or empty.
    fn text_of(&self, name: &str) -> Option<&str> {
        self.child(name)
            .map(|c| c.text.trim())
            .filter(|t| !t.is_empty())
    }

    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn location(&self, column: &str) -> Location {
        self.origin.location().column(column)
    }

    fn error(&self, column: &str, rule: impl Into<String>) -> InputError {
        InputError::new(self.location(column), rule)
    }

    fn required(&self, name: &str) -> Result<&str, InputError> {
        self.text_of(name)
            .ok_or_else(|| self.error(name, format!("<{}> has no <{name}>", self.name)))
    }

    fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, InputError> {
        match self.text_of(name) {
            None => Ok(None),
            Some(text) => text.parse::<T>().map(Some).map_err(|_| {
                let line = self.child(name).map(|c| &c.origin).unwrap_or(&self.origin);
                InputError::new(
                    line.location().column(name),
                    format!("<{name}> `{text}` is not a number"),
                )
            }),
        }
    }
}

/// How deep elements may nest. USEBIO needs six levels (USEBIO, EVENT, BOARD,
/// TRAVELLER_LINE, ...); the limit keeps a hostile file from building a tree whose
/// recursive teardown would overflow the stack.
const MAX_DEPTH: usize = 64;

fn read_tree(file: &Arc<Path>, text: &str) -> Result<Element, InputError> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_at = |offset: u64| -> usize {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        line_starts.partition_point(|&start| start <= offset).max(1)
    };
    let mut reader = Reader::from_str(text);
    let mut stack: Vec<Element> = vec![Element {
        name: String::new(),
        origin: Origin::new(file, 1),
        ..Element::default()
    }];
    loop {
        let before = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            InputError::new(
                Location::file(file.to_path_buf()).row(line_at(reader.error_position())),
                format!("malformed XML: {e}"),
            )
        })?;
        let origin = Origin::new(file, line_at(before));
        if let Event::Eof = event {
            break;
        }
        take_event(&mut stack, event, origin)?;
    }
    if stack.len() != 1 {
        let open = stack.last().map(|e| e.name.clone()).unwrap_or_default();
        return Err(InputError::new(
            Location::file(file.to_path_buf()),
            format!("malformed XML: <{open}> is never closed"),
        ));
    }
    stack
        .pop()
        .and_then(|document| document.children.into_iter().find(|c| c.name == "USEBIO"))
        .ok_or_else(|| {
            InputError::new(
                Location::file(file.to_path_buf()),
                "no <USEBIO> root element",
            )
        })
}

/// One XML event into the tree being built: an element opens, closes, or gets text.
fn take_event(stack: &mut Vec<Element>, event: Event, origin: Origin) -> Result<(), InputError> {
    match event {
        Event::Start(start) => {
            if stack.len() > MAX_DEPTH {
                return Err(InputError::new(
                    origin.location(),
                    format!("elements are nested more than {MAX_DEPTH} deep; a USEBIO file is a handful of levels deep"),
                ));
            }
            stack.push(element(&start, origin)?);
        }
        Event::Empty(start) => {
            let empty = element(&start, origin)?;
            if let Some(parent) = stack.last_mut() {
                parent.children.push(empty);
            }
        }
        Event::End(_) => {
            let done = stack.pop();
            match (done, stack.last_mut()) {
                (Some(done), Some(parent)) => parent.children.push(done),
                _ => {
                    return Err(InputError::new(
                        origin.location(),
                        "malformed XML: a closing tag without an opening one",
                    ))
                }
            }
        }
        Event::Text(t) => {
            if let Some(current) = stack.last_mut() {
                current.text.push_str(&t.xml10_content());
            }
        }
        Event::CData(t) => {
            if let Some(current) = stack.last_mut() {
                current.text.push_str(&t);
            }
        }
        Event::GeneralRef(r) => {
            let resolved = entity(&r, &origin)?;
            if let Some(current) = stack.last_mut() {
                current.text.push_str(&resolved);
            }
        }
        _ => {}
    }
    Ok(())
}

/// The text of a character reference or one of XML's five named entities.
fn entity(r: &quick_xml::events::BytesRef, origin: &Origin) -> Result<String, InputError> {
    let resolved = match r.resolve_char_ref() {
        Ok(Some(c)) => Some(c.to_string()),
        _ => match &**r {
            "amp" => Some("&".to_string()),
            "lt" => Some("<".to_string()),
            "gt" => Some(">".to_string()),
            "apos" => Some("'".to_string()),
            "quot" => Some("\"".to_string()),
            _ => None,
        },
    };
    resolved
        .ok_or_else(|| InputError::new(origin.location(), format!("unknown entity `&{};`", &**r)))
}

fn element(start: &quick_xml::events::BytesStart, origin: Origin) -> Result<Element, InputError> {
    let name = start.name().as_ref().to_string();
    let mut attributes = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| {
            InputError::new(
                origin.location(),
                format!("malformed attribute on <{name}>: {e}"),
            )
        })?;
        let key = attribute.key.as_ref().to_string();
        let value = attribute
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| {
                InputError::new(
                    origin.location(),
                    format!("malformed attribute `{key}`: {e}"),
                )
            })?
            .into_owned();
        attributes.push((key, value));
    }
    Ok(Element {
        name,
        attributes,
        origin,
        ..Element::default()
    })
}

/// Which traveller columns hold each side's points, by event type.
fn points_columns(scoring: ScoringMethod) -> (&'static str, &'static str) {
    match scoring {
        ScoringMethod::Matchpoints => ("NS_MATCH_POINTS", "EW_MATCH_POINTS"),
        ScoringMethod::CrossImps => ("NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS"),
        ScoringMethod::Butler | ScoringMethod::TeamImps | ScoringMethod::SwissPairs => {
            ("NS_BUTLER_POINTS", "EW_BUTLER_POINTS")
        }
    }
}

fn build(root: &Element) -> Result<Imported, InputError> {
    let event = root
        .child("EVENT")
        .ok_or_else(|| root.error("EVENT", "no <EVENT> element"))?;
    let scoring = event_scoring(event)?;
    let mut competition = read_competition(root, event, scoring)?;
    let program = event.text_of("PROGRAM_NAME").unwrap_or_default();
    let two_winners = event.text_of("WINNER_TYPE") == Some("2");
    let mut read = Reading {
        competition_id: competition.competition_id.clone(),
        dataset: Dataset::default(),
        published: Published {
            competition_id: competition.competition_id.clone(),
            program: program.to_string(),
            ..Published::default()
        },
    };
    let participants = event
        .child("PARTICIPANTS")
        .ok_or_else(|| event.error("PARTICIPANTS", "no <PARTICIPANTS> element"))?;
    let pairs = read.pairs(participants, two_winners)?;
    let (boards, printed_whole) = read.boards(event, scoring, &pairs)?;
    let Reading {
        mut dataset,
        mut published,
        ..
    } = read;
    if scoring == ScoringMethod::Matchpoints
        && competition.conventions.travellers == Travellers::Unfactored
    {
        unmarked_adjustments(&mut dataset.boards, &mut published.lines, &printed_whole);
    }
    competition.boards = u32::try_from(boards).ok().filter(|&n| n > 0);
    dataset.competitions.push(competition);
    Ok(Imported {
        dataset,
        published,
        ..Imported::default()
    })
}

/// The scoring of an `EVENT_TYPE`; the Swiss pairs types and unknown ones are refused.
fn event_scoring(event: &Element) -> Result<ScoringMethod, InputError> {
    let event_type = event.attribute("EVENT_TYPE").unwrap_or_default();
    match event_type {
        "MP_PAIRS" => Ok(ScoringMethod::Matchpoints),
        "CROSS_IMP" => Ok(ScoringMethod::CrossImps),
        "BUTLER_PAIRS" => Ok(ScoringMethod::Butler),
        // USEBIO names three Swiss pairs types (on victory points, on cross-IMPs, on
        // butler IMPs). How a file lays out the rounds and matches of one is not
        // settled by any export this project has been able to check against, and
        // reading the boards without the matches would rate the event right but score
        // it wrong, so these are refused rather than guessed at.
        swiss @ ("SWISS_PAIRS" | "SWISS_PAIRS_BUTLER_IMPS" | "SWISS_PAIRS_CROSS_IMPS") => {
            Err(event.error(
                "EVENT_TYPE",
                format!(
                    "event type `{swiss}` is a Swiss pairs event, which cannot be imported from USEBIO: give it as a dataset with scoring `swiss_pairs` (each board row with its `round`)"
                ),
            ))
        }
        other => Err(event.error(
            "EVENT_TYPE",
            format!(
                "event type `{other}`: only MP_PAIRS, CROSS_IMP and BUTLER_PAIRS can be imported"
            ),
        )),
    }
}

/// The competition row from the `<EVENT>` and `<CLUB>` headers; its id is the date,
/// the club's number (or name) and the event's identifier.
fn read_competition(
    root: &Element,
    event: &Element,
    scoring: ScoringMethod,
) -> Result<Competition, InputError> {
    let date_text = event.required("DATE")?;
    let date = NaiveDate::parse_from_str(date_text, "%d/%m/%Y")
        .map_err(|_| event.error("DATE", format!("<DATE> `{date_text}` is not DD/MM/YYYY")))?;
    let club_element = root.child("CLUB");
    let club = club_element
        .and_then(|c| c.text_of("CLUB_NAME"))
        .map(str::to_string);
    let club_number = club_element.and_then(|c| c.text_of("CLUB_ID_NUMBER"));
    let identifier = event.text_of("EVENT_IDENTIFIER");
    let mut id_parts = vec![date.format("%Y-%m-%d").to_string()];
    id_parts.extend(club_number.or(club.as_deref()).map(slug));
    id_parts.extend(identifier.map(slug));
    let competition_id = format!("usebio-{}", id_parts.join("-"));
    let title = event
        .text_of("EVENT_DESCRIPTION")
        .or_else(|| event.text_of("TITLE"))
        .map(str::to_string);
    let program = event.text_of("PROGRAM_NAME").unwrap_or_default();
    let mut competition = Competition::new(&competition_id, date, Format::Pairs, scoring);
    competition.title = title;
    competition.club = club;
    competition.conventions = Conventions::of_program(program);
    competition.origin = event.origin.clone();
    Ok(competition)
}

/// The rows and published figures of one event, as its elements are read.
struct Reading {
    competition_id: String,
    dataset: Dataset,
    published: Published,
}

impl Reading {
    /// The `<PAIR>`s of `<PARTICIPANTS>`: entrants, members and published standings;
    /// the pair numbers, for checking the travellers.
    fn pairs(
        &mut self,
        participants: &Element,
        two_winners: bool,
    ) -> Result<BTreeSet<String>, InputError> {
        let mut pairs: BTreeSet<String> = BTreeSet::new();
        let mut members: BTreeSet<i64> = BTreeSet::new();
        for pair in participants.children("PAIR") {
            let number = pair.required("PAIR_NUMBER")?.to_string();
            if !pairs.insert(number.clone()) {
                return Err(pair.error("PAIR_NUMBER", format!("pair `{number}` is listed twice")));
            }
            let direction = match pair.text_of("DIRECTION") {
                None => None,
                Some("NS") => Some(Direction::NS),
                Some("EW") => Some(Direction::EW),
                Some(other) => {
                    return Err(
                        pair.error("DIRECTION", format!("direction `{other}` is not NS or EW"))
                    )
                }
            };
            let direction = direction.filter(|_| two_winners);
            let mut entrant = Entrant::new(&self.competition_id, &number);
            entrant.direction = direction;
            entrant.origin = pair.origin.clone();
            self.players(pair, &number, &mut entrant, &mut members)?;
            self.dataset.entrants.push(entrant);
            self.standing(pair, number, direction)?;
        }
        Ok(pairs)
    }

    /// The `<PLAYER>`s of a pair: their names and clubs on the entrant, and a member
    /// row for each national number seen first here (0 is no member).
    fn players(
        &mut self,
        pair: &Element,
        number: &str,
        entrant: &mut Entrant,
        members: &mut BTreeSet<i64>,
    ) -> Result<(), InputError> {
        for (slot, player) in pair.children("PLAYER").enumerate() {
            if let Some(name) = entrant.names.get_mut(slot).filter(|_| slot < 2) {
                *name = player.text_of("PLAYER_NAME").map(str::to_string);
            }
            if let Some(club) = entrant.clubs.get_mut(slot).filter(|_| slot < 2) {
                *club = player.text_of("CLUB_ID_NUMBER").map(str::to_string);
            }
            let Some(id) = player.number::<i64>("NATIONAL_ID_NUMBER")? else {
                continue;
            };
            if id <= 0 {
                continue;
            }
            if slot >= 2 {
                return Err(player.error(
                    "PLAYER",
                    format!("pair `{number}` lists more than two players"),
                ));
            }
            if let Some(seat) = entrant.players.get_mut(slot) {
                *seat = Some(id);
            }
            if members.insert(id) {
                let mut member = Member::new(id);
                member.name = player.text_of("PLAYER_NAME").map(str::to_string);
                member.club = player.text_of("CLUB_ID_NUMBER").map(str::to_string);
                member.origin = player.origin.clone();
                self.dataset.members.push(member);
            }
        }
        Ok(())
    }

    /// A pair's published total, percentage and place.
    fn standing(
        &mut self,
        pair: &Element,
        number: String,
        direction: Option<Direction>,
    ) -> Result<(), InputError> {
        let published = &mut self.published;
        if let Some(text) = pair.text_of("TOTAL_SCORE") {
            Precision::see(&mut published.precision.total, text);
        }
        if let Some(text) = pair.text_of("PERCENTAGE") {
            Precision::see(&mut published.precision.percent, text);
        }
        let place = pair.required("PLACE")?;
        let rank = place
            .trim_end_matches('=')
            .parse::<u32>()
            .map_err(|_| pair.error("PLACE", format!("<PLACE> `{place}` is not a place")))?;
        published.standings.push(PublishedStanding {
            entrant: number,
            score: pair
                .number::<f64>("TOTAL_SCORE")?
                .ok_or_else(|| pair.error("TOTAL_SCORE", "<PAIR> has no <TOTAL_SCORE>"))?,
            percent: pair.number::<f64>("PERCENTAGE")?,
            rank,
            boards_played: None,
            penalty: None,
            direction,
            origin: pair.origin.clone(),
        });
        Ok(())
    }

    /// The `<BOARD>`s with travellers (hand records are skipped): board rows, datums and
    /// published lines. The number of boards, and per traveller line whether both
    /// sides' points are printed as whole numbers (`20`, not `20.0`).
    fn boards(
        &mut self,
        event: &Element,
        scoring: ScoringMethod,
        pairs: &BTreeSet<String>,
    ) -> Result<(usize, Vec<bool>), InputError> {
        let (ns_column, ew_column) = points_columns(scoring);
        let mut numbers: BTreeSet<u32> = BTreeSet::new();
        let mut printed_whole: Vec<bool> = Vec::new();
        for board in event.children("BOARD") {
            let lines: Vec<&Element> = board.children("TRAVELLER_LINE").collect();
            if lines.is_empty() {
                continue;
            }
            let number = board
                .number::<u32>("BOARD_NUMBER")?
                .ok_or_else(|| board.error("BOARD_NUMBER", "<BOARD> has no <BOARD_NUMBER>"))?;
            if !numbers.insert(number) {
                return Err(InputError::new(
                    board.location("BOARD_NUMBER").board(number),
                    format!("board {number} has two <BOARD> elements with travellers"),
                ));
            }
            if let Some(datum) = board.number::<f64>("BOARD_AVERAGE")? {
                self.published.datums.push(PublishedDatum {
                    board: number,
                    datum,
                    origin: board.origin.clone(),
                });
            }
            for line in lines {
                let (result, published_line) = traveller_line(
                    line,
                    number,
                    &self.competition_id,
                    pairs,
                    ns_column,
                    ew_column,
                )?;
                for column in [ns_column, ew_column] {
                    if let Some(text) = line.text_of(column) {
                        Precision::see(&mut self.published.precision.line, text);
                    }
                }
                printed_whole.push(
                    [ns_column, ew_column]
                        .iter()
                        .all(|c| line.text_of(c).is_some_and(|t| !t.contains('.'))),
                );
                self.dataset.boards.push(result);
                self.published.lines.push(published_line);
            }
        }
        Ok((numbers.len(), printed_whole))
    }
}

/// Compscore's adjusted lines that keep the table's score: a director who replaces a
/// line's matchpoints leaves its contract and score on the traveller, writes the
/// matchpoints as whole numbers, and factors the board's other results (Neuberg) as
/// for an artificial score, so they carry a decimal (board 1 of the Lindfield
/// Mitchell of 28 July 2022: 1NS v 1EW, 2S making 110, printed 20 and 20 of a top of
/// 40, where 110 earns 26 among the other twenty results; the others print 19.0,
/// 30.5, ... as twenty results factored to twenty-one give them).
///
/// On a board whose traveller carries a decimal, a line printed with whole numbers is
/// such a line when its score would earn something else among the other results:
/// each side then gets its printed share of the top (here `A5050`) and the score
/// leaves the comparisons. A line whose whole number is what its score earns (twelve
/// −650s tied at 20 on board 3) stays a table result.
fn unmarked_adjustments(
    boards: &mut [BoardResult],
    lines: &mut [PublishedLine],
    printed_whole: &[bool],
) {
    let mut start = 0;
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for end in 1..=boards.len() {
        if end == boards.len() || boards[end].board != boards[start].board {
            runs.push(start..end);
            start = end;
        }
    }
    let expected = runs.iter().map(|r| r.len()).max().unwrap_or(0);
    let top = 2.0 * expected.saturating_sub(1) as f64;
    for run in runs {
        let factored = run
            .clone()
            .any(|at| !printed_whole.get(at).copied().unwrap_or(true));
        if !factored || top <= 0.0 {
            continue;
        }
        let real: Vec<(usize, i32)> = run
            .clone()
            .filter(|&at| boards[at].adjusted.is_none())
            .filter_map(|at| Some((at, boards[at].ns_score?)))
            .collect();
        let mut adjusted: Vec<(usize, u8, u8)> = Vec::new();
        for &(at, score) in &real {
            if !printed_whole.get(at).copied().unwrap_or(false) {
                continue;
            }
            let (Some(ns), Some(ew)) = (lines[at].ns_points, lines[at].ew_points) else {
                continue;
            };
            let others: Vec<i32> = real
                .iter()
                .filter(|&&(other, _)| other != at)
                .map(|&(_, s)| s)
                .collect();
            let raw: f64 = others
                .iter()
                .map(|&o| f64::from(u8::from(score > o) * 2 + u8::from(score == o)))
                .sum();
            let earned = neuberg(raw, others.len() + 1, expected);
            let share = |points: f64| {
                let percent = points / top * 100.0;
                (percent.fract() == 0.0 && (0.0..=100.0).contains(&percent))
                    .then_some(percent as u8)
            };
            if (earned - ns).abs() > 0.06 {
                if let (Some(ns_share), Some(ew_share)) = (share(ns), share(ew)) {
                    adjusted.push((at, ns_share, ew_share));
                }
            }
        }
        for (at, ns_share, ew_share) in adjusted {
            boards[at].adjusted = Some(artificial_code(ns_share, ew_share).into());
            lines[at].kind = LineKind::Artificial;
        }
    }
}

fn traveller_line(
    line: &Element,
    board: u32,
    competition_id: &str,
    pairs: &BTreeSet<String>,
    ns_column: &str,
    ew_column: &str,
) -> Result<(BoardResult, PublishedLine), InputError> {
    let fail = |column: &str, rule: String| {
        let origin = line
            .child(column)
            .map(|c| &c.origin)
            .unwrap_or(&line.origin);
        InputError::new(origin.location().column(column).board(board), rule)
    };
    let pair = |column: &str| -> Result<String, InputError> {
        let number = line
            .text_of(column)
            .ok_or_else(|| fail(column, format!("traveller line has no <{column}>")))?;
        if !pairs.contains(number) {
            return Err(fail(
                column,
                format!("pair `{number}` is not among the <PARTICIPANTS>"),
            ));
        }
        Ok(number.to_string())
    };
    let ns = pair("NS_PAIR_NUMBER")?;
    let ew = pair("EW_PAIR_NUMBER")?;
    let mut result = BoardResult {
        competition_id: competition_id.to_string().into(),
        board,
        ns: Some(ns.as_str().into()),
        ew: Some(ew.as_str().into()),
        origin: line.origin.clone(),
        ..BoardResult::default()
    };
    let score_text = line
        .text_of("SCORE")
        .ok_or_else(|| fail("SCORE", "traveller line has no <SCORE>".to_string()))?;
    let kind = read_score(line, score_text, &mut result, &fail)?;
    let points = |column: &str| -> Result<Option<f64>, InputError> {
        match line.text_of(column) {
            None => Ok(None),
            Some(text) => text
                .parse::<f64>()
                .map(Some)
                .map_err(|_| fail(column, format!("<{column}> `{text}` is not a number"))),
        }
    };
    let published = PublishedLine {
        board,
        kind,
        ns: Some(ns),
        ew: Some(ew),
        ns_points: points(ns_column)?,
        ew_points: points(ew_column)?,
        ns_percent: None,
        ew_percent: None,
        origin: line.origin.clone(),
    };
    Ok((result, published))
}

/// A traveller line's `SCORE`: an artificial score (`A5050`) with each side's share, or
/// a N/S score with its contract; how the line is to be compared.
fn read_score(
    line: &Element,
    score_text: &str,
    result: &mut BoardResult,
    fail: &dyn Fn(&str, String) -> InputError,
) -> Result<LineKind, InputError> {
    let mut kind = LineKind::Played;
    let contract_text = line.text_of("CONTRACT").filter(|c| *c != "-");
    if score_text.starts_with(['A', 'a']) {
        // An artificial score (`A5050`, `A6040`): no contract, each side's share.
        let outcome = parse_artificial(score_text).map_err(|rule| fail("SCORE", rule))?;
        let (Some(ns_share), Some(ew_share)) = outcome.artificial_shares() else {
            return Err(fail(
                "SCORE",
                format!("<SCORE> `{score_text}` is not an artificial score"),
            ));
        };
        result.adjusted = Some(artificial_code(ns_share, ew_share).into());
        kind = LineKind::Artificial;
    } else {
        result.ns_score = Some(score_text.parse::<i32>().map_err(|_| {
            fail(
                "SCORE",
                format!("<SCORE> `{score_text}` is not a N/S score"),
            )
        })?);
        match contract_text {
            // No contract (or `-`): the score alone, 0 for a board passed out.
            None if result.ns_score == Some(0) => result.contract = Some("PASS".into()),
            None => {}
            Some(text) if text.eq_ignore_ascii_case("pass") => {
                result.contract = Some("PASS".into());
            }
            Some(text) => read_contract(line, text, result, fail)?,
        }
    }
    Ok(kind)
}

/// A bid contract with its declarer (`PLAYED_BY`) and `TRICKS`.
fn read_contract(
    line: &Element,
    contract_text: &str,
    result: &mut BoardResult,
    fail: &dyn Fn(&str, String) -> InputError,
) -> Result<(), InputError> {
    let contract = normalize_contract(contract_text).ok_or_else(|| {
        fail(
            "CONTRACT",
            format!("unparseable contract `{contract_text}`"),
        )
    })?;
    result.contract = Some(contract.into());
    let seat = line
        .text_of("PLAYED_BY")
        .ok_or_else(|| fail("PLAYED_BY", "traveller line has no <PLAYED_BY>".to_string()))?;
    if !matches!(seat, "N" | "E" | "S" | "W") {
        return Err(fail(
            "PLAYED_BY",
            format!("declarer `{seat}` is not N, E, S or W"),
        ));
    }
    result.declarer = Some(seat.to_string().into());
    let tricks_text = line
        .text_of("TRICKS")
        .ok_or_else(|| fail("TRICKS", "traveller line has no <TRICKS>".to_string()))?;
    let tricks = tricks_text.parse::<u8>().map_err(|_| {
        fail(
            "TRICKS",
            format!("`{tricks_text}` is not a number of tricks"),
        )
    })?;
    if tricks > MAX_TRICKS {
        return Err(fail(
            "TRICKS",
            format!("{tricks} tricks: there are {MAX_TRICKS} tricks in a deal"),
        ));
    }
    result.tricks = Some(tricks);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::conventions::DatumTrim;

    fn document(traveller: &str) -> String {
        format!(
            r#"<?xml version="1.0"?>
<USEBIO Version="1.2">
<CLUB><CLUB_NAME>Test &amp; Co</CLUB_NAME><CLUB_ID_NUMBER>9</CLUB_ID_NUMBER></CLUB>
<EVENT EVENT_TYPE="MP_PAIRS">
  <EVENT_IDENTIFIER>77</EVENT_IDENTIFIER>
  <PROGRAM_NAME>Compscore3</PROGRAM_NAME>
  <WINNER_TYPE>2</WINNER_TYPE>
  <DATE>31/01/2020</DATE>
  <PARTICIPANTS>
    <PAIR><PAIR_NUMBER>1NS</PAIR_NUMBER><DIRECTION>NS</DIRECTION><TOTAL_SCORE>2</TOTAL_SCORE><PERCENTAGE>100.00</PERCENTAGE><PLACE>1</PLACE>
      <PLAYER><PLAYER_NAME>ANN O'NEIL</PLAYER_NAME><NATIONAL_ID_NUMBER>11</NATIONAL_ID_NUMBER></PLAYER>
      <PLAYER><PLAYER_NAME>BOB</PLAYER_NAME><NATIONAL_ID_NUMBER>12</NATIONAL_ID_NUMBER></PLAYER></PAIR>
    <PAIR><PAIR_NUMBER>1EW</PAIR_NUMBER><DIRECTION>EW</DIRECTION><TOTAL_SCORE>0</TOTAL_SCORE><PLACE>1</PLACE></PAIR>
  </PARTICIPANTS>
  <BOARD EVENT_TYPE="MP_PAIRS">
    <BOARD_NUMBER>1</BOARD_NUMBER>
    <TRAVELLER_LINE>
{traveller}
    </TRAVELLER_LINE>
  </BOARD>
</EVENT>
<HANDSET><BOARD><BOARD_NUMBER>1</BOARD_NUMBER><HAND><DIRECTION>North</DIRECTION></HAND></BOARD></HANDSET>
</USEBIO>
"#
        )
    }

    const GOOD: &str = "<NS_PAIR_NUMBER>1NS</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1EW</EW_PAIR_NUMBER>
      <CONTRACT>3NT</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS><SCORE>430</SCORE>
      <NS_MATCH_POINTS>2</NS_MATCH_POINTS><EW_MATCH_POINTS>0</EW_MATCH_POINTS>";

    fn parse_text(text: &str) -> Result<Imported, InputError> {
        parse_bytes(Path::new("test.xml"), text.as_bytes())
    }

    #[test]
    fn reads_pairs_travellers_and_skips_hand_records() {
        let imported = parse_text(&document(GOOD)).expect("valid file");
        let d = &imported.dataset;
        assert_eq!(d.competitions[0].competition_id, "usebio-2020-01-31-9-77");
        assert_eq!(d.competitions[0].club.as_deref(), Some("Test & Co"));
        assert_eq!(
            d.competitions[0].conventions.datum_trim,
            DatumTrim::TopAndBottom
        );
        assert_eq!(d.competitions[0].boards, Some(1));
        assert_eq!(d.members.len(), 2);
        assert_eq!(d.members[0].name.as_deref(), Some("ANN O'NEIL"));
        assert_eq!(d.entrants[0].players, [Some(11), Some(12), None, None]);
        assert_eq!(d.entrants[0].direction, Some(Direction::NS));
        assert_eq!(d.boards.len(), 1, "the hand record board is skipped");
        let b = &d.boards[0];
        assert_eq!(
            (
                b.contract.as_deref(),
                b.declarer.as_deref(),
                b.tricks,
                b.ns_score
            ),
            (Some("3NT"), Some("N"), Some(10), Some(430))
        );
        assert_eq!(b.origin.row, Some(17));
        let line = &imported.published.lines[0];
        assert!((line.ns_points.unwrap_or(f64::NAN) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn fourteen_tricks_names_line_board_and_column() {
        let e = parse_text(&document(&GOOD.replace("<TRICKS>10", "<TRICKS>14")))
            .expect_err("14 tricks");
        assert_eq!(e.location.board, Some(1));
        assert_eq!(e.location.column.as_deref(), Some("TRICKS"));
        assert_eq!(e.location.row, Some(19));
        assert!(e.rule.contains("13 tricks"), "{}", e.rule);
    }

    #[test]
    fn unknown_pair_bad_score_and_broken_xml_are_errors() {
        let e = parse_text(&document(
            &GOOD.replace("<EW_PAIR_NUMBER>1EW", "<EW_PAIR_NUMBER>5EW"),
        ))
        .expect_err("unknown pair");
        assert_eq!(e.location.column.as_deref(), Some("EW_PAIR_NUMBER"));

        let e = parse_text(&document(&GOOD.replace("<SCORE>430", "<SCORE>x430")))
            .expect_err("bad score");
        assert_eq!(e.location.column.as_deref(), Some("SCORE"));

        let e = parse_text(&document(&GOOD.replace("</CONTRACT>", "</CONTRAC>")))
            .expect_err("mismatched tag");
        assert!(e.rule.contains("malformed XML"), "{}", e.rule);
        assert_eq!(e.location.row, Some(19));
    }

    /// Five tables on one board: 420, 450, −50 and 170, and an `A5050` written as
    /// Compscore writes it, with a score and no contract.
    fn five_tables(event_type: &str, points: &str) -> String {
        let mut pairs = String::new();
        let mut lines = String::new();
        let results = [
            "<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS><SCORE>420</SCORE>",
            "<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>11</TRICKS><SCORE>450</SCORE>",
            "<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS><SCORE>-50</SCORE>",
            "<CONTRACT>3NT</CONTRACT><PLAYED_BY>S</PLAYED_BY><TRICKS>11</TRICKS><SCORE>460</SCORE>",
            "<SCORE>A5050</SCORE>",
        ];
        for (table, result) in (1..=5).zip(results) {
            let result = if table == 4 {
                "<CONTRACT>-</CONTRACT><SCORE>170</SCORE>"
            } else {
                result
            };
            for direction in ["NS", "EW"] {
                pairs += &format!(
                    "<PAIR><PAIR_NUMBER>{table}{direction}</PAIR_NUMBER><DIRECTION>{direction}</DIRECTION>\
                     <TOTAL_SCORE>0</TOTAL_SCORE><PLACE>1</PLACE><PLAYER><PLAYER_NAME>P</PLAYER_NAME>\
                     <NATIONAL_ID_NUMBER>{}</NATIONAL_ID_NUMBER></PLAYER></PAIR>\n",
                    table * 10 + usize::from(direction == "EW")
                );
            }
            lines += &format!(
                "<TRAVELLER_LINE><NS_PAIR_NUMBER>{table}NS</NS_PAIR_NUMBER>\
                 <EW_PAIR_NUMBER>{table}EW</EW_PAIR_NUMBER>{result}\
                 <NS_{points}>0</NS_{points}><EW_{points}>0</EW_{points}></TRAVELLER_LINE>\n"
            );
        }
        format!(
            "<?xml version=\"1.0\"?>\n<USEBIO Version=\"1.2\"><EVENT EVENT_TYPE=\"{event_type}\">\
             <PROGRAM_NAME>Compscore3</PROGRAM_NAME><WINNER_TYPE>2</WINNER_TYPE><DATE>31/01/2020</DATE>\
             <PARTICIPANTS>{pairs}</PARTICIPANTS><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n{lines}</BOARD>\
             </EVENT></USEBIO>\n"
        )
    }

    fn scored(imported: &Imported) -> crate::scoring::ScoredCompetition {
        let d = &imported.dataset;
        crate::scoring::score_competition(&d.competitions[0], &d.entrants, &d.boards)
            .expect("scores")
    }

    fn points_of(scored: &crate::scoring::ScoredCompetition, ns: &str) -> (f64, f64) {
        scored
            .board_scores
            .iter()
            .find(|b| b.ns.as_deref() == Some(ns))
            .map(|b| (b.ns_points, b.ew_points))
            .unwrap_or((f64::NAN, f64::NAN))
    }

    #[test]
    fn artificial_score_without_a_contract_in_a_butler_event() {
        let imported =
            parse_text(&five_tables("BUTLER_PAIRS", "BUTLER_POINTS")).expect("valid file");
        let rows = &imported.dataset.boards;
        assert_eq!(rows[4].adjusted.as_deref(), Some("A5050"));
        assert_eq!(
            (rows[4].contract.as_deref(), rows[4].ns_score),
            (None, None)
        );
        assert_eq!(imported.published.lines[4].kind, LineKind::Artificial);
        // Contract `-` with a score: the score alone.
        assert_eq!(
            (rows[3].contract.as_deref(), rows[3].ns_score),
            (None, Some(170))
        );
        // Datum: 420, 450, −50, 170 without the top and bottom: (420 + 170)/2 = 295, 300.
        // 420 → +120, 3 IMPs; 450 → +150, 4; −50 → −350, −8; 170 → −130, −4. The
        // artificial score is out of the datum and scores 0 IMPs (Compscore).
        let scored = scored(&imported);
        assert_eq!(scored.board_scores[0].datum, Some(300.0));
        for (ns, imps) in [
            ("1NS", 3.0),
            ("2NS", 4.0),
            ("3NS", -8.0),
            ("4NS", -4.0),
            ("5NS", 0.0),
        ] {
            let (n, e) = points_of(&scored, ns);
            assert!(
                (n - imps).abs() < 1e-9 && (e + imps).abs() < 1e-9,
                "{ns}: {n} {e}"
            );
        }
    }

    #[test]
    fn artificial_score_without_a_contract_in_a_matchpoint_event() {
        let imported = parse_text(&five_tables("MP_PAIRS", "MATCH_POINTS")).expect("valid file");
        assert_eq!(
            imported.dataset.boards[4].adjusted.as_deref(),
            Some("A5050")
        );
        // Four real results on the 2/1 scale among themselves: 450 gets 6 of 6; in the
        // totals Neuberg makes it (6 + 1)·5/4 − 1 = 7.75 of the top of 8. The A5050 table
        // gets half the top on each side.
        let scored = scored(&imported);
        let total = |pair: &str| {
            scored
                .standings
                .iter()
                .find(|s| s.entrant == pair)
                .map_or(f64::NAN, |s| s.score)
        };
        assert!((total("2NS") - 7.75).abs() < 1e-9, "{}", total("2NS"));
        assert!((total("3NS") - 0.25).abs() < 1e-9, "{}", total("3NS"));
        assert!((total("5NS") - 4.0).abs() < 1e-9 && (total("5EW") - 4.0).abs() < 1e-9);
    }

    #[test]
    fn swiss_pairs_event_types_are_refused_by_name() {
        for swiss in [
            "SWISS_PAIRS",
            "SWISS_PAIRS_BUTLER_IMPS",
            "SWISS_PAIRS_CROSS_IMPS",
        ] {
            let text = document(GOOD).replacen(
                "<EVENT EVENT_TYPE=\"MP_PAIRS\">",
                &format!("<EVENT EVENT_TYPE=\"{swiss}\">"),
                1,
            );
            let e = parse_text(&text).expect_err("a Swiss pairs event");
            assert!(
                e.rule.contains(swiss) && e.rule.contains("swiss_pairs"),
                "{}",
                e.rule
            );
            assert_eq!(e.location.column.as_deref(), Some("EVENT_TYPE"));
        }
    }

    #[test]
    fn latin1_usebio_reads() {
        let text = document(GOOD).replace("BOB", "J\u{f8}rn");
        let bytes: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
        let imported = parse_bytes(Path::new("latin1.xml"), &bytes).expect("Latin-1 file");
        assert_eq!(imported.dataset.members[1].name.as_deref(), Some("Jørn"));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
            let _ = parse_bytes(Path::new("fuzz.xml"), &bytes);
        }
    }
}
