//! The tables a run writes, with the contract's column names and types.
//!
//! Each function turns the run's plain results into one polars `DataFrame`; writing is
//! done all at once by [`write_run`] so that a failing run leaves no half output.

use std::collections::HashMap;

use chrono::NaiveDate;
use polars::prelude::*;

use crate::dataset::Direction;
use crate::pipeline::prepare::{
    EntrantNames, NonMemberSeat, PreparedCompetition, Seat, StandingLine, StandingTable,
};
use crate::pipeline::ranking::{published, RankedMember};
use crate::pipeline::replay::{Change, ChangeCodec, NonMemberChange, SealJob};
use crate::pipeline::sealed::{BoardScoreRows, RowGroupCodec, Sealer, StandingCodec};
use crate::pipeline::state::PlayerState;
use crate::pipeline::{RunOutput, RunSettings};
use crate::scoring::{
    BoardScore, BoardScoreRecord, BoardScoreTable, BoardScoreTableColumns, Standing, RECORD_BYTES,
};

use std::path::{Path, PathBuf};

use crate::error::{Error, InputError, Result};
use crate::quarantine::Quarantined;

use std::collections::BTreeMap;
use std::io::Write;

use super::files::{
    check_replaceable, encode_row_group, write_atomic, write_atomic_hashed, write_csv_hashed,
    write_parquet_carrying_hashed, write_parquet_hashed, write_replacing, CarriedGroups, Commit,
    ParquetSettings, TextDictionary, ROW_GROUP_ROWS,
};
use super::frame::FrameBuilder;
pub use super::run_folder::manifest::correction_shows;
use super::run_folder::manifest::{manifest, Manifest, RunInputs};
use super::run_folder::{
    sha256_file, APPLIED, BOARD_SCORES, CHANGES, CORRECTIONS, DATA_FILES, HANDICAPS, MANIFEST,
    NON_MEMBERS, QUARANTINE, RANKING, RANKING_CSV, RANKING_PUBLISHED, RUN_FILES, STANDINGS,
    UNRATED,
};

fn first_of_month(month: Option<i32>) -> Option<NaiveDate> {
    let month = month?;
    NaiveDate::from_ymd_opt(month.div_euclid(12), month.rem_euclid(12) as u32 + 1, 1)
}

/// `handicaps.parquet`: one row per member, in member-id order. It also carries what a
/// later run needs to continue this one. `provisional`: fewer rated boards than the
/// published ranking's minimum (`min_boards`), so the handicap is still settling and the
/// member is not published.
pub fn handicaps(output: &RunOutput, min_boards: u64) -> PolarsResult<DataFrame> {
    let members = &output.registry.members;
    let states: &[PlayerState] = &output.states;
    FrameBuilder::new(members.len())
        .map("member_id", members, |m| m.member_id)
        .map("name", members, |m| m.name.clone())
        .map("club", members, |m| m.club.clone())
        .map("district", members, |m| m.district.clone())
        .map("kind", members, |m| m.kind.to_string())
        .map("handicap", states, |s| s.handicap)
        .map("handicap_topscore", states, |s| s.handicap_topscore)
        .map("handicap_imp", states, |s| s.handicap_imp)
        .map("boards", states, |s| s.boards as i64)
        .map("competitions", states, |s| s.competitions as i64)
        .map("handicap_sd", states, |s| s.handicap_sd)
        .date(
            "last_played",
            states.iter().map(|s| s.last_played).collect(),
        )?
        .map("playing_handicap", states, |s| s.playing_handicap)
        .date(
            "playing_month",
            states
                .iter()
                .map(|s| first_of_month(s.playing_month))
                .collect(),
        )?
        .map("starting_handicap", &output.starting, |h| *h)
        .map("provisional", states, |s| s.boards < min_boards)
        .build()
}

fn status_name(seat: Seat) -> &'static str {
    match seat {
        Seat::Member(_) => "member",
        Seat::Foreign(_) => "foreign",
        Seat::NonMember => "non_member",
    }
}

/// `changes.parquet`: one row per player in a rated competition, in replay order. Only
/// for a run whose changes were not sealed as it replayed (a run held in memory, or one
/// that carries a previous folder's history).
pub fn changes(output: &RunOutput) -> PolarsResult<DataFrame> {
    if !output.replay.sealed.is_empty() {
        polars_bail!(ComputeError: "the run's changes were sealed into row groups as it replayed");
    }
    changes_frame(&output.replay.changes, &output.prepared.competitions)
}

/// `changes.parquet`'s columns for `rows`, whose competitions are `comps` by place.
fn changes_frame(rows: &[Change], comps: &[PreparedCompetition]) -> PolarsResult<DataFrame> {
    changes_columns(rows, |at| {
        comps
            .get(at)
            .map(|p| (p.competition_id.as_str(), p.date, &p.entrant_names))
    })
}

/// What a change row names of its competition: its id, date and entrants' names.
type Named<'a> = (&'a str, NaiveDate, &'a EntrantNames);

/// `changes.parquet`'s columns for `rows`, with `named` giving what a row's competition
/// (by place) names. Text columns are built from borrowed text: a row costs no
/// allocation.
fn changes_columns<'a>(
    rows: &[Change],
    named: impl Fn(usize) -> Option<Named<'a>>,
) -> PolarsResult<DataFrame> {
    FrameBuilder::new(rows.len())
        .map("competition_id", rows, |c| {
            named(c.competition).map_or("", |n| n.0)
        })
        .date(
            "date",
            rows.iter()
                .map(|c| named(c.competition).map(|n| n.1))
                .collect(),
        )?
        .map("member_id", rows, |c| c.member_id)
        .map("entrant", rows, |c| {
            let name = named(c.competition).and_then(|n| n.2.get(c.entrant));
            name.unwrap_or_default()
        })
        .map("status", rows, |c| status_name(c.seat))
        .map("handicap_before", rows, |c| c.outcome.handicap_before)
        .map("partner_handicap", rows, |c| c.outcome.partner_handicap)
        .map("pair_handicap", rows, |c| c.outcome.pair_handicap)
        .map("field_handicap", rows, |c| c.outcome.field_handicap)
        .map("expected", rows, |c| c.outcome.expected)
        .map("achieved", rows, |c| c.outcome.achieved)
        .map("n_b", rows, |c| c.outcome.n_b as i32)
        .map("n_g", rows, |c| c.outcome.n_g as i32)
        .map("delta", rows, |c| c.outcome.delta)
        .map("handicap_after", rows, |c| c.handicap_after)
        .map("updated", rows, |c| c.outcome.updated)
        .build()
}

/// The bytes [`encode_row_group`] gives for [`changes_columns`]' frame of `rows`, built
/// without the frame: each row's competition is looked up once, the text columns go to
/// the encoder as the dictionary it would build of them, the others as they are.
fn encode_changes<'a>(
    rows: &[Change],
    named: impl Fn(usize) -> Option<Named<'a>>,
    settings: &ParquetSettings,
) -> PolarsResult<Vec<u8>> {
    use polars_arrow::array::{Array, BooleanArray, PrimitiveArray};
    use polars_arrow::datatypes::ArrowDataType;
    let height = rows.len();
    if height == 0 {
        return encode_row_group(&changes_columns(rows, named)?, settings);
    }
    let schema = super::files::arrow_fields(&changes_columns(&[], |_| None)?);
    let mut ids = TextDictionary::with_capacity(height);
    let mut entrants = TextDictionary::with_capacity(height);
    let mut status = TextDictionary::with_capacity(height);
    let mut dates: Vec<Option<i32>> = Vec::with_capacity(height);
    for c in rows {
        let named = named(c.competition);
        ids.push(Some(named.map_or("", |n| n.0)));
        dates.push(named.map(|n| crate::dataset::days_from_date(n.1)));
        let name = named.and_then(|n| n.2.get(c.entrant));
        entrants.push(Some(name.unwrap_or_default()));
        status.push(Some(status_name(c.seat)));
    }
    let f64s = |value: fn(&Change) -> f64| -> Box<dyn Array> {
        PrimitiveArray::from_vec(rows.iter().map(value).collect::<Vec<f64>>()).boxed()
    };
    let i32s = |value: fn(&Change) -> i32| -> Box<dyn Array> {
        PrimitiveArray::from_vec(rows.iter().map(value).collect::<Vec<i32>>()).boxed()
    };
    let partner: Vec<Option<f64>> = rows.iter().map(|c| c.outcome.partner_handicap).collect();
    let updated: Vec<bool> = rows.iter().map(|c| c.outcome.updated).collect();
    let members: Vec<i64> = rows.iter().map(|c| c.member_id).collect();
    let arrays: Vec<Box<dyn Array>> = vec![
        ids.finish(),
        PrimitiveArray::from(dates)
            .to(ArrowDataType::Date32)
            .boxed(),
        PrimitiveArray::from_vec(members).boxed(),
        entrants.finish(),
        status.finish(),
        f64s(|c| c.outcome.handicap_before),
        PrimitiveArray::from(partner).boxed(),
        f64s(|c| c.outcome.pair_handicap),
        f64s(|c| c.outcome.field_handicap),
        f64s(|c| c.outcome.expected),
        f64s(|c| c.outcome.achieved),
        i32s(|c| c.outcome.n_b as i32),
        i32s(|c| c.outcome.n_g as i32),
        f64s(|c| c.outcome.delta),
        f64s(|c| c.handicap_after),
        BooleanArray::from_slice(updated).boxed(),
    ];
    super::files::encode_arrays(&schema, height, arrays, settings)
}

/// Encodes player changes into the row groups of `changes.parquet` while a run
/// replays, so that only the encoded bytes are held.
#[derive(Debug)]
pub struct ChangeRowCodec {
    settings: ParquetSettings,
}

/// The competitions a row group's changes name, copied once per competition (not per
/// row), so that the group's columns are built where it is encoded, off the replay's
/// thread.
struct Directory {
    /// The place of the first competition.
    first: usize,
    competitions: Vec<(String, NaiveDate, EntrantNames)>,
}

impl Directory {
    fn of(rows: &[Change], comps: &[PreparedCompetition]) -> Self {
        let first = rows.iter().map(|c| c.competition).min().unwrap_or(0);
        let last = rows.iter().map(|c| c.competition).max().unwrap_or(0);
        let competitions = comps
            .get(first..=last.min(comps.len().saturating_sub(1)))
            .unwrap_or_default()
            .iter()
            .map(|p| (p.competition_id.clone(), p.date, p.entrant_names.clone()))
            .collect();
        Directory {
            first,
            competitions,
        }
    }

    fn named(&self, at: usize) -> Option<Named<'_>> {
        let (id, date, names) = self.competitions.get(at.checked_sub(self.first)?)?;
        Some((id.as_str(), *date, names))
    }
}

impl ChangeCodec for ChangeRowCodec {
    fn rows_per_group(&self) -> usize {
        self.settings.row_group_size.unwrap_or(ROW_GROUP_ROWS)
    }

    fn seal(&self, rows: Vec<Change>, competitions: &[PreparedCompetition]) -> Result<SealJob> {
        let directory = Directory::of(&rows, competitions);
        let settings = self.settings.clone();
        Ok(Box::new(move || {
            encode_changes(&rows, |at| directory.named(at), &settings).map_err(frame_error(CHANGES))
        }))
    }
}

/// Writes `changes.parquet`: the sealed row groups as they are, then the rest.
fn write_changes_to<W: Write>(
    out: W,
    output: &RunOutput,
    settings: &ParquetSettings,
) -> PolarsResult<()> {
    let sealed = &mut output
        .replay
        .sealed
        .bytes()
        .map(|group| group.map_err(compute_error));
    let rows = &output.replay.changes;
    let comps = &output.prepared.competitions;
    let named = |at: usize| {
        comps
            .get(at)
            .map(|p| (p.competition_id.as_str(), p.date, &p.entrant_names))
    };
    let schema = super::files::arrow_fields(&changes_columns(&[], |_| None)?);
    super::files::write_encoded_parquet_to(out, sealed, rows.len(), settings, schema, &|range| {
        encode_changes(&rows[range], named, settings)
    })
}

/// `ranking.csv` / `ranking.parquet`.
pub fn ranking(output: &RunOutput) -> PolarsResult<DataFrame> {
    let lines = &output.ranking;
    let mut frame = FrameBuilder::new(lines.len()).map("rank", lines, |l| l.rank as i32);
    if lines.iter().any(|l| l.group.is_some()) {
        frame = frame.map("group", lines, |l| l.group.clone());
    }
    member_columns(frame, output, lines)
}

/// The columns of a ranking after its rank: each line's member, handicap and boards.
fn member_columns(
    frame: FrameBuilder,
    output: &RunOutput,
    lines: &[RankedMember],
) -> PolarsResult<DataFrame> {
    let member = |l: &RankedMember| &output.registry.members[l.member_index];
    frame
        .map("member_id", lines, |l| member(l).member_id)
        .map("name", lines, |l| member(l).name.clone())
        .map("club", lines, |l| member(l).club.clone())
        .map("district", lines, |l| member(l).district.clone())
        .map("handicap", lines, |l| l.handicap)
        .map("boards", lines, |l| l.boards as i64)
        .build()
}

/// A rank as the federation prints it: tied members share the rank, marked `=` after it
/// (`3=`), so that the list shows that nobody is ahead of the other. The mark goes after
/// the number: a cell starting with `=` is a formula to a spreadsheet.
pub fn printed_rank(rank: u32, tied: bool) -> String {
    if tied {
        format!("{rank}=")
    } else {
        rank.to_string()
    }
}

/// `ranking_published.csv`: the ranking the federation publishes, with its filters
/// (see [`crate::pipeline::published_ranking`]), tied ranks marked.
pub fn ranking_published(output: &RunOutput) -> PolarsResult<DataFrame> {
    let lines = &output.published;
    let mut count: HashMap<(Option<&str>, u32), usize> = HashMap::new();
    for l in lines {
        *count.entry((l.group.as_deref(), l.rank)).or_default() += 1;
    }
    let tied = |l: &RankedMember| {
        count
            .get(&(l.group.as_deref(), l.rank))
            .is_some_and(|&n| n > 1)
    };
    let frame =
        FrameBuilder::new(lines.len()).map("rank", lines, |l| printed_rank(l.rank, tied(l)));
    member_columns(frame, output, lines)
}

/// A direction as the outputs name it (its text in docs/data.md), borrowed: a
/// standings row costs no allocation.
fn direction_name(direction: Option<Direction>) -> Option<&'static str> {
    direction.map(|d| match d {
        Direction::NS => "NS",
        Direction::EW => "EW",
    })
}

/// `standings.parquet`, with the handicap-adjusted result of handicap tournaments.
/// Only for a run whose standings were not sealed as it replayed (as [`changes`]).
pub fn standings(output: &RunOutput) -> PolarsResult<DataFrame> {
    if !output.prepared.standings_sealed.is_empty() {
        polars_bail!(ComputeError: "the run's standings were sealed into row groups as it replayed");
    }
    let adjusted = adjusted_results(output);
    standings_part(output, &adjusted, 0..output.prepared.standings.len())
}

/// The handicap tournaments' (expected, adjusted) results by (competition, entrant),
/// and the tournaments themselves: millions of lines are of other competitions, which
/// need not be looked up line by line.
struct AdjustedResults<'a> {
    by_entrant: rustc_hash::FxHashMap<(&'a str, &'a str), (f64, f64)>,
    tournaments: rustc_hash::FxHashSet<&'a str>,
}

fn adjusted_results(output: &RunOutput) -> AdjustedResults<'_> {
    let comps = &output.prepared.competitions;
    let mut by_entrant = rustc_hash::FxHashMap::default();
    for a in &output.replay.adjusted {
        let c = &comps[a.competition];
        if let Some(name) = c.entrant_names.get(a.entrant) {
            by_entrant.insert((c.competition_id.as_str(), name), (a.expected, a.adjusted));
        }
    }
    let tournaments = by_entrant
        .keys()
        .map(|&(competition, _)| competition)
        .collect();
    AdjustedResults {
        by_entrant,
        tournaments,
    }
}

impl AdjustedResults<'_> {
    /// (expected, adjusted) of each of `rows`, a competition's lines at once.
    fn of(&self, rows: &[StandingLine]) -> Vec<Option<(f64, f64)>> {
        let mut of = Vec::with_capacity(rows.len());
        for competition in rows.chunk_by(|a, b| a.competition_id == b.competition_id) {
            let id = competition[0].competition_id;
            if self.tournaments.contains(id) {
                of.extend(
                    competition
                        .iter()
                        .map(|s| self.by_entrant.get(&(id, s.entrant)).copied()),
                );
            } else {
                of.resize(of.len() + competition.len(), None);
            }
        }
        of
    }
}

/// The rows `range` of `standings.parquet`.
fn standings_part(
    output: &RunOutput,
    adjusted: &AdjustedResults<'_>,
    range: std::ops::Range<usize>,
) -> PolarsResult<DataFrame> {
    let table = &output.prepared.standings;
    let rows: Vec<StandingLine> = range.map(|i| table.line(i)).collect();
    let handicap = adjusted.of(&rows);
    standings_lines(FrameBuilder::new(rows.len()), &rows, &handicap)
}

/// The standings columns, with the handicap tournament columns of each row (expected,
/// adjusted) from `handicap`, a line each.
pub(crate) fn standings_frame(
    frame: FrameBuilder,
    rows: &[&Standing],
    handicap: &[Option<(f64, f64)>],
) -> PolarsResult<DataFrame> {
    let lines: Vec<StandingLine> = rows.iter().map(|row| StandingLine::from(*row)).collect();
    standings_lines(frame, &lines, handicap)
}

/// [`standings_frame`] over borrowed lines, with each line's handicap tournament
/// columns (expected, adjusted) in `handicap`.
fn standings_lines(
    frame: FrameBuilder,
    rows: &[StandingLine],
    handicap: &[Option<(f64, f64)>],
) -> PolarsResult<DataFrame> {
    let lines: Vec<(&StandingLine, Option<(f64, f64)>)> =
        rows.iter().zip(handicap.iter().copied()).collect();
    let rows = &lines;
    frame
        .map("competition_id", rows, |(s, _)| s.competition_id)
        .map("entrant", rows, |(s, _)| s.entrant)
        .map("score", rows, |(s, _)| s.score)
        .map("percent", rows, |(s, _)| s.percent)
        .map("boards_played", rows, |(s, _)| s.boards_played as i32)
        .map("rank", rows, |(s, _)| (!s.house).then_some(s.rank as i32))
        .map("direction", rows, |(s, _)| direction_name(s.direction))
        .map("vp", rows, |(s, _)| s.vp)
        .map("handicap_expected", rows, |(_, h)| h.map(|a| a.0))
        .map("handicap_result", rows, |(_, h)| h.map(|a| a.1))
        .build()
}

/// `unrated.csv`: the rated competitions the model could not rate, and why.
pub fn unrated(output: &RunOutput) -> PolarsResult<DataFrame> {
    let comps = &output.prepared.competitions;
    let rows = &output.replay.unrated;
    FrameBuilder::new(rows.len())
        .map("competition_id", rows, |u| {
            comps[u.competition].competition_id.clone()
        })
        .date(
            "date",
            rows.iter()
                .map(|u| Some(comps[u.competition].date))
                .collect(),
        )?
        .map("reason", rows, |u| u.reason.clone())
        .build()
}

/// `non_members.csv`: every player number that is not in `members`, with each
/// competition and entrant it played in (in replay order): rated as a non-member, so
/// nobody's handicap moves for it, which a misspelt or unregistered number must not do
/// unseen.
pub fn non_members(output: &RunOutput) -> PolarsResult<DataFrame> {
    let comps = &output.prepared.competitions;
    let rows: Vec<NonMemberChange> = output.replay.non_member_changes().collect();
    let seats: Vec<Option<&NonMemberSeat>> = rows
        .iter()
        .map(|c| {
            comps[c.competition]
                .non_members
                .iter()
                .find(|s| s.entrant as usize == c.entrant && s.member_id == c.member_id)
        })
        .collect();
    let printed: Vec<NonMemberId> = rows
        .iter()
        .zip(&seats)
        .map(|(c, seat)| NonMemberId::of(c.member_id, *seat))
        .collect();
    FrameBuilder::new(rows.len())
        .map("member_id", &printed, |p| p.id)
        .map("name", &printed, |p| p.name.clone())
        .map("competition_id", &rows, |c| {
            comps[c.competition].competition_id.clone()
        })
        .date(
            "date",
            rows.iter()
                .map(|c| Some(comps[c.competition].date))
                .collect(),
        )?
        .map("entrant", &rows, |c| {
            comps[c.competition]
                .entrant_names
                .get(c.entrant)
                .map(str::to_owned)
                .unwrap_or_default()
        })
        .map("reason", &printed, NonMemberId::reason)
        .build()
}

/// A non-member as `non_members.csv` lists them: the number the export printed, or,
/// for a player printed without one, an id made from the printed name, so that the
/// same unnumbered player has one id on every line (and two such players two ids)
/// where the run rates each under a placeholder that only tells the players of one
/// competition apart.
#[derive(Debug, Clone, PartialEq)]
struct NonMemberId {
    /// `None` for a player printed with neither a number nor a name.
    id: Option<i64>,
    name: Option<String>,
    number_printed: bool,
}

impl NonMemberId {
    fn of(member_id: i64, seat: Option<&NonMemberSeat>) -> NonMemberId {
        let name = seat.and_then(|s| s.printed_name.clone());
        let number = seat.map_or((member_id >= 0).then_some(member_id), |s| s.printed_number);
        NonMemberId {
            id: number.or_else(|| name.as_deref().and_then(unnumbered_id)),
            number_printed: number.is_some(),
            name,
        }
    }

    fn reason(&self) -> String {
        match (self.number_printed, &self.name, self.id) {
            (true, Some(name), Some(number)) => format!(
                "number {number} (printed with the name `{name}`) is not in `members`: rated as a non-member"
            ),
            (true, _, Some(number)) => {
                format!("number {number} is not in `members`: rated as a non-member")
            }
            (_, Some(name), _) => format!(
                "printed as `{name}` without a player number: rated as a non-member, listed under an id made from the name"
            ),
            _ => "printed with neither a player number nor a name: rated as a non-member".to_string(),
        }
    }
}

/// The id `non_members.csv` gives a player printed without a number: negative, made
/// from the name as names are compared (case, diacritics and punctuation folded, so
/// `Ola Nordmann` and `ola  nordmann` are one player), the same in every run; `None`
/// for a name with no letter or digit. It is below −2^32, so it is never one of the
/// small placeholders of `changes.parquet`, and at most 2^48 + 2^32, which every
/// reader holds exactly.
pub fn unnumbered_id(name: &str) -> Option<i64> {
    use sha2::Digest as _;
    let folded = crate::import::identity::fold(name).join(" ");
    if folded.is_empty() {
        return None;
    }
    let digest = sha2::Sha256::digest(folded.as_bytes());
    let mut bytes = [0u8; 8];
    bytes[2..].copy_from_slice(&digest[..6]);
    let value = i64::try_from(u64::from_be_bytes(bytes)).ok()?;
    Some(-(value + (1_i64 << 32)))
}

/// `quarantine.csv`: one row per reason a competition was left out, competitions in
/// replay order. `file`, `row`, `column` and `board` say where the reason was found, as
/// far as the source allows.
pub fn quarantine(items: &[Quarantined]) -> PolarsResult<DataFrame> {
    let rows: Vec<(&Quarantined, &InputError)> = items
        .iter()
        .flat_map(|q| q.reasons.iter().map(move |r| (q, r)))
        .collect();
    FrameBuilder::new(rows.len())
        .map("competition_id", &rows, |(q, _)| q.competition_id.clone())
        .date("date", rows.iter().map(|(q, _)| q.date).collect())?
        .map("file", &rows, |(_, r)| {
            r.location.file.as_ref().map(|f| f.display().to_string())
        })
        .map("row", &rows, |(_, r)| r.location.row.map(|n| n as i64))
        .map("column", &rows, |(_, r)| r.location.column.clone())
        .map("board", &rows, |(_, r)| r.location.board.map(i64::from))
        .map("rule", &rows, |(_, r)| r.rule.clone())
        .build()
}

/// `board_scores.parquet`.
pub fn board_scores(rows: &BoardScoreTable) -> PolarsResult<DataFrame> {
    BoardScoreColumns::gathered(rows, std::slice::from_ref(&(0..rows.len()))).frame()
}

/// The columns of `board_scores.parquet`, in its order and with its types, however its
/// rows were held: one place names them for rows gathered from memory and for rows read
/// back from disk, so the two give the same file. The names are kept as the table's
/// numbers until they are written.
struct BoardScoreColumns<'a> {
    names: &'a BoardScoreTable,
    columns: BoardScoreTableColumns,
}

impl<'a> BoardScoreColumns<'a> {
    fn with_capacity(names: &'a BoardScoreTable, height: usize) -> Self {
        let columns = BoardScoreTableColumns::with_capacity(height);
        BoardScoreColumns { names, columns }
    }

    /// The columns taken out of `names` ([`BoardScoreTable::take_columns`]), as they
    /// are: a row group sealed whole is not copied once more.
    fn taken(names: &'a BoardScoreTable, columns: BoardScoreTableColumns) -> Self {
        BoardScoreColumns { names, columns }
    }

    /// The board column as the file types it. The same bits: a board number is far
    /// below 2^31.
    fn boards(board: Vec<u32>) -> Vec<i32> {
        board.into_iter().map(|b| b as i32).collect()
    }

    /// The rows `parts` of `rows`, one part after the other.
    fn gathered(rows: &'a BoardScoreTable, parts: &[std::ops::Range<usize>]) -> Self {
        let height: usize = parts.iter().map(ExactSizeIterator::len).sum();
        let mut gathered = BoardScoreColumns::with_capacity(rows, height);
        let columns = &mut gathered.columns;
        for part in parts {
            let r = || part.clone();
            columns
                .competition
                .extend_from_slice(rows.competition_numbers(r()));
            columns.board.extend_from_slice(rows.boards(r()));
            columns.ns.extend_from_slice(rows.side_numbers(r(), false));
            columns.ew.extend_from_slice(rows.side_numbers(r(), true));
            columns.ns_score.extend_from_slice(rows.ns_scores(r()));
            columns.ns_points.extend_from_slice(rows.points(r(), false));
            columns.ew_points.extend_from_slice(rows.points(r(), true));
            columns.datum.extend_from_slice(rows.datums(r()));
        }
        gathered
    }

    fn frame(self) -> PolarsResult<DataFrame> {
        let (names, c) = (self.names, self.columns);
        let height = c.len();
        let text = |numbers: &[Option<u32>]| -> Vec<Option<&str>> {
            numbers
                .iter()
                .map(|at| at.map(|at| names.name(at)))
                .collect()
        };
        let ids: Vec<&str> = c.competition.iter().map(|&at| names.name(at)).collect();
        let columns = vec![
            Column::from(Series::new("competition_id".into(), ids)),
            Column::from(Series::new("board".into(), Self::boards(c.board))),
            Column::from(Series::new("ns".into(), text(&c.ns))),
            Column::from(Series::new("ew".into(), text(&c.ew))),
            Column::from(Series::new("ns_score".into(), c.ns_score)),
            Column::from(Series::new("ns_points".into(), c.ns_points)),
            Column::from(Series::new("ew_points".into(), c.ew_points)),
            Column::from(Series::new("datum".into(), c.datum)),
        ];
        DataFrame::new(height, columns)
    }

    /// The bytes [`encode_row_group`] gives for [`Self::frame`], built without the
    /// frame: the text columns go to the encoder as the dictionary it would build of
    /// them (see [`dictionary_or_text`]), the numbers as they are.
    fn encode(self, settings: &ParquetSettings) -> PolarsResult<Vec<u8>> {
        use polars_arrow::array::{Array, PrimitiveArray};
        let height = self.columns.len();
        if height == 0 {
            return encode_row_group(&self.frame()?, settings);
        }
        let schema = board_scores_schema()?;
        let (names, c) = (self.names.names(), self.columns);
        let ids = dictionary_or_text(names, c.competition.iter().map(|&at| Some(at)));
        let ns = dictionary_or_text(names, c.ns.iter().copied());
        let ew = dictionary_or_text(names, c.ew.iter().copied());
        let arrays: Vec<Box<dyn Array>> = vec![
            ids,
            PrimitiveArray::from_vec(Self::boards(c.board)).boxed(),
            ns,
            ew,
            PrimitiveArray::from(c.ns_score).boxed(),
            PrimitiveArray::from_vec(c.ns_points).boxed(),
            PrimitiveArray::from_vec(c.ew_points).boxed(),
            PrimitiveArray::from(c.datum).boxed(),
        ];
        super::files::encode_arrays(&schema, height, arrays, settings)
    }
}

/// The Arrow fields `board_scores.parquet` is written with.
fn board_scores_schema() -> PolarsResult<ArrowSchema> {
    let empty = BoardScoreTable::default();
    Ok(super::files::arrow_fields(
        &BoardScoreColumns::with_capacity(&empty, 0).frame()?,
    ))
}

/// A text column of `board_scores.parquet`, given as numbers of `names`: the dictionary
/// the Parquet encoder builds of a text column (its distinct values in the order they
/// first appear, each row a number into them, an empty cell a null), which it writes as
/// it writes its own, without the strings being built row by row, copied into a plain
/// column and hashed back into a dictionary.
///
/// The encoder keeps a column of more than 128 rows plain when its estimate of the
/// distinct values is above 3/4 of the rows. A dictionary is given only when the exact
/// count (an empty cell counted as a value) is at most half the rows, where that
/// estimate (HyperLogLog, within a few percent) cannot cross the line; otherwise the
/// plain column is given and the encoder decides, as it did for every column before.
fn dictionary_or_text(
    names: &[String],
    numbers: impl ExactSizeIterator<Item = Option<u32>> + Clone,
) -> Box<dyn polars_arrow::array::Array> {
    use polars_arrow::array::{Array, DictionaryArray, PrimitiveArray, Utf8Array};
    use polars_arrow::bitmap::MutableBitmap;
    use polars_arrow::datatypes::{ArrowDataType, IntegerType};
    const UNSEEN: u32 = u32::MAX;
    let height = numbers.len();
    let text = || -> Box<dyn Array> {
        numbers
            .clone()
            .map(|at| at.map(|at| names.get(at as usize).map_or("", String::as_str)))
            .collect::<Utf8Array<i64>>()
            .boxed()
    };
    let mut first: Vec<u32> = vec![UNSEEN; names.len()];
    let mut values: Vec<&str> = Vec::new();
    let mut keys: Vec<u32> = Vec::with_capacity(height);
    let mut valid: Option<MutableBitmap> = None;
    let mut last: Option<(u32, u32)> = None;
    for (row, at) in numbers.clone().enumerate() {
        let key = match at {
            None => {
                valid
                    .get_or_insert_with(|| {
                        let mut bits = MutableBitmap::with_capacity(height);
                        bits.extend_constant(row, true);
                        bits
                    })
                    .push(false);
                keys.push(0);
                continue;
            }
            Some(at) => match last {
                Some((number, key)) if number == at => key,
                _ => {
                    let Some(slot) = first.get_mut(at as usize) else {
                        return text();
                    };
                    if *slot == UNSEEN {
                        *slot = values.len() as u32;
                        values.push(&names[at as usize]);
                    }
                    last = Some((at, *slot));
                    *slot
                }
            },
        };
        if let Some(bits) = &mut valid {
            bits.push(true);
        }
        keys.push(key);
    }
    let distinct = values.len() + usize::from(valid.is_some());
    if height > 128 && 2 * distinct > height {
        return text();
    }
    let keys = PrimitiveArray::<u32>::from_vec(keys).with_validity(valid.map(Into::into));
    let dtype = ArrowDataType::Dictionary(
        IntegerType::UInt32,
        Box::new(ArrowDataType::LargeUtf8),
        false,
    );
    match DictionaryArray::try_new(dtype, keys, Utf8Array::<i64>::from_slice(values).boxed()) {
        Ok(array) => array.boxed(),
        Err(_) => text(),
    }
}

/// Encodes board scores into the row groups of `board_scores.parquet` while a run or
/// `score` produces them, so that only the encoded bytes are held.
#[derive(Debug)]
pub struct BoardScoreCodec {
    settings: ParquetSettings,
}

impl RowGroupCodec for BoardScoreCodec {
    fn rows_per_group(&self) -> usize {
        self.settings.row_group_size.unwrap_or(ROW_GROUP_ROWS)
    }

    fn seal(&self, mut rows: BoardScoreTable) -> Result<Vec<u8>> {
        let columns = rows.take_columns();
        BoardScoreColumns::taken(&rows, columns)
            .encode(&self.settings)
            .map_err(frame_error(BOARD_SCORES))
    }

    fn open(&self, bytes: &[u8]) -> Result<BoardScoreTable> {
        use super::columns::{f64s, i64s, strs};
        let path = Path::new(BOARD_SCORES);
        let frame = crate::store::table::read_checked(path, bytes)?;
        let missing = |column: &str| {
            Error::Input(InputError::new(
                crate::error::Location::file(path).column(column),
                "a sealed row group has an empty cell here".to_string(),
            ))
        };
        let ids = strs(&frame, path, "competition_id")?;
        let boards = i64s(&frame, path, "board")?;
        let ns = strs(&frame, path, "ns")?;
        let ew = strs(&frame, path, "ew")?;
        let ns_scores = i64s(&frame, path, "ns_score")?;
        let ns_points = f64s(&frame, path, "ns_points")?;
        let ew_points = f64s(&frame, path, "ew_points")?;
        let datums = f64s(&frame, path, "datum")?;
        let mut rows = Vec::with_capacity(ids.len());
        for (at, id) in ids.into_iter().enumerate() {
            rows.push(BoardScore {
                competition_id: id.ok_or_else(|| missing("competition_id"))?.into(),
                board: boards[at]
                    .and_then(|b| u32::try_from(b).ok())
                    .ok_or_else(|| missing("board"))?,
                ns: ns[at].as_deref().map(Into::into),
                ew: ew[at].as_deref().map(Into::into),
                ns_score: ns_scores[at].and_then(|s| i32::try_from(s).ok()),
                ns_points: ns_points[at].ok_or_else(|| missing("ns_points"))?,
                ew_points: ew_points[at].ok_or_else(|| missing("ew_points"))?,
                datum: datums[at],
            });
        }
        Ok(rows.into_iter().collect())
    }
}

/// What a run or `score` seals its board scores with as they are produced.
pub fn board_score_sealer() -> Sealer {
    Sealer {
        board_scores: Some(std::sync::Arc::new(BoardScoreCodec {
            settings: ParquetSettings::default(),
        })),
        changes: Some(std::sync::Arc::new(ChangeRowCodec {
            settings: ParquetSettings::default(),
        })),
        standings: Some(std::sync::Arc::new(StandingRowCodec {
            settings: ParquetSettings::default(),
        })),
        spill: Some(std::sync::Arc::new(
            super::spill_file::SpillFolder::temporary(),
        )),
        groups: Some(std::sync::Arc::new(
            super::spill_file::SpillFolder::temporary(),
        )),
    }
}

/// Writes `board_scores.parquet`: the sealed row groups as they are, then the rest.
pub(crate) fn write_board_scores(path: &Path, rows: &BoardScoreRows) -> Result<()> {
    write_atomic(path, |out| {
        write_board_scores_to(out, rows, &ParquetSettings::default())
            .map_err(|e| Error::polars(path, e))
    })
}

/// [`write_board_scores`], returning the SHA-256 (hex) of the file's bytes, taken as
/// they are written.
fn write_board_scores_hashed(path: &Path, rows: &BoardScoreRows) -> Result<String> {
    write_atomic_hashed(path, |out| {
        write_board_scores_to(out, rows, &ParquetSettings::default())
            .map_err(|e| Error::polars(path, e))
    })
}

fn write_board_scores_to<W: Write>(
    out: W,
    rows: &BoardScoreRows,
    settings: &ParquetSettings,
) -> PolarsResult<()> {
    let sealed = &mut rows
        .sealed_bytes()
        .map(|group| group.map_err(compute_error));
    let encode = |range: std::ops::Range<usize>| match rows.records(range.clone()) {
        Some(records) => {
            let records = records.map_err(|e| PolarsError::ComputeError(e.to_string().into()))?;
            board_scores_of_records(rows.rest_table(), &records).encode(settings)
        }
        None => BoardScoreColumns::gathered(rows.rest_table(), &rows.parts(range)).encode(settings),
    };
    super::files::write_encoded_parquet_to(
        out,
        sealed,
        rows.rest_len(),
        settings,
        board_scores_schema()?,
        &encode,
    )
}

/// Rows of `board_scores.parquet` from records of `names`'s rows (held on disk while
/// the run went on), in the columns [`BoardScoreColumns::gathered`] gives.
fn board_scores_of_records<'a>(
    names: &'a BoardScoreTable,
    records: &[u8],
) -> BoardScoreColumns<'a> {
    let mut columns = BoardScoreColumns::with_capacity(names, records.len() / RECORD_BYTES);
    for record in records.chunks_exact(RECORD_BYTES) {
        if let Some(r) = BoardScoreRecord::read(record) {
            columns.columns.push(r);
        }
    }
    columns
}

/// `applied.parquet`: every competition up to the last one the run replayed, with its
/// content hash and what became of it; the next run compares it with its dataset.
pub fn applied(output: &RunOutput) -> PolarsResult<DataFrame> {
    let rows = &output.ledger;
    FrameBuilder::new(rows.len())
        .column(
            "competition_id",
            rows.iter()
                .map(|e| e.competition_id.as_str())
                .collect::<Vec<_>>(),
        )
        .date("date", rows.iter().map(|e| Some(e.date)).collect())?
        .map("session", rows, |e| e.session)
        .column(
            "sha256",
            rows.iter().map(|e| e.sha256.as_deref()).collect::<Vec<_>>(),
        )
        .map("status", rows, |e| e.status.to_string())
        .build()
}

/// `corrections.csv`: the members whose handicap a replay from the start changed, with
/// what the previous run's state said and what it is after the corrected history, to
/// two decimals (corrections below that are left out: [`correction_shows`]).
pub fn corrections(output: &RunOutput) -> PolarsResult<DataFrame> {
    let rows: Vec<&crate::pipeline::Correction> = output
        .corrections
        .iter()
        .filter(|c| correction_shows(c))
        .collect();
    let rows = &rows;
    let members = &output.registry.members;
    let reason = output
        .replayed
        .as_ref()
        .map(|d| d.describe())
        .unwrap_or_default();
    FrameBuilder::new(rows.len())
        .map("member_id", rows, |c| members[c.member_index].member_id)
        .map("name", rows, |c| members[c.member_index].name.clone())
        .map("handicap_before", rows, |c| c.before.map(published))
        .map("handicap_after", rows, |c| published(c.after))
        .map("difference", rows, |c| {
            c.before.map(|b| published(c.after - b))
        })
        .map("reason", rows, |_| reason.clone())
        .build()
}

/// A run's error met while polars writes, in polars' terms.
fn compute_error(error: Error) -> PolarsError {
    PolarsError::ComputeError(error.to_string().into())
}

fn frame_error(name: &str) -> impl Fn(PolarsError) -> Error + '_ {
    move |e| Error::polars(name, e)
}

/// Writes every output of a run into `out`, which is replaced whole, all at once
/// (see [`write_replacing`]). `run.json` records the hash of every other file.
///
/// The frames are built on both cores, and then every file is written as a task of
/// its own, the largest first, so that neither core waits at the end while the other
/// writes the small files one after another. Each file's digest is taken as it is
/// written; none is read back. Every file is written alone, so the bytes do not depend
/// on the order, and the errors are reported in the order the files are listed here.
pub fn write_run(
    out: &Path,
    output: &RunOutput,
    settings: &RunSettings,
    inputs: &RunInputs,
    commit: Commit,
) -> Result<()> {
    let started = std::time::Instant::now();
    let (history, frames) = rayon::join(
        || carried_history(output, inputs),
        || RunFrames::of(output, settings),
    );
    let (history, f) = (history?, frames?);
    let unrated_before = carried_list(output, UNRATED, &f.unrated)?;
    let non_members_before = carried_list(output, NON_MEMBERS, &f.non_members)?;
    let changes_groups = copied_groups(history.changes.as_ref(), CHANGES)?;
    let standings_groups = copied_groups(history.standings.as_ref(), STANDINGS)?;
    let adjusted = adjusted_results(output);
    check_replaceable(out, &RUN_FILES)?;
    write_replacing(out, commit, |staged| {
        let path = |name: &str| staged.join(name);
        let mut board_scores = None;
        let mut changes = None;
        let mut standings = None;
        // The small files, in the order their errors are reported (`standings` comes
        // between the last two).
        type Writes<'a> = &'a (dyn Fn(&Path) -> Result<String> + Sync);
        let small: [(&str, Writes); 9] = [
            (APPLIED, &|to| write_parquet_hashed(&f.applied, to)),
            (CORRECTIONS, &|to| {
                write_csv_hashed(&f.corrections, to, true)
            }),
            (HANDICAPS, &|to| write_parquet_hashed(&f.handicaps, to)),
            (QUARANTINE, &|to| write_csv_hashed(&f.quarantine, to, false)),
            (NON_MEMBERS, &|to| {
                write_list(&f.non_members, to, non_members_before.as_deref())
            }),
            (RANKING_CSV, &|to| write_csv_hashed(&f.ranking, to, true)),
            (RANKING, &|to| write_parquet_hashed(&f.ranking, to)),
            (RANKING_PUBLISHED, &|to| {
                write_csv_hashed(&f.published, to, true)
            }),
            (UNRATED, &|to| {
                write_list(&f.unrated, to, unrated_before.as_deref())
            }),
        ];
        let mut small_digests: Vec<Option<Result<String>>> = small.iter().map(|_| None).collect();
        rayon::scope_fifo(|tasks| {
            tasks.spawn_fifo(|_| {
                let copied = changes_groups.as_ref();
                changes = Some(write_changes(&path(CHANGES), &history, copied, output));
            });
            tasks.spawn_fifo(|_| {
                let copied = standings_groups.as_ref();
                let to = path(STANDINGS);
                standings = Some(write_standings(&to, &history, copied, output, &adjusted));
            });
            if settings.board_scores {
                tasks.spawn_fifo(|_| {
                    board_scores = Some(write_board_scores_hashed(
                        &path(BOARD_SCORES),
                        &output.prepared.board_scores,
                    ));
                });
            }
            for ((name, write), digest) in small.iter().zip(small_digests.iter_mut()) {
                let to = path(name);
                tasks.spawn_fifo(move |_| *digest = Some(write(&to)));
            }
        });
        let written = [(BOARD_SCORES, board_scores), (CHANGES, changes)]
            .into_iter()
            .chain(with_standings(&small, small_digests, standings));
        let hashes = digests(written, settings.board_scores, &path)?;
        write_run_manifest(&path(MANIFEST), output, settings, inputs, hashes, started)
    })
}

/// `run.json` of a run whose files hash to `hashes`, with the time spent writing them
/// since `started` and the run's whole time, in milliseconds.
fn write_run_manifest(
    to: &Path,
    output: &RunOutput,
    settings: &RunSettings,
    inputs: &RunInputs,
    hashes: BTreeMap<String, String>,
    started: std::time::Instant,
) -> Result<()> {
    let mut record = manifest(output, settings, inputs, hashes);
    let writing = started.elapsed();
    record.timings.writing_s = (writing.as_secs_f64() * 1000.0).round() / 1000.0;
    record.timings.total_s =
        ((output.summary.elapsed + writing).as_secs_f64() * 1000.0).round() / 1000.0;
    write_manifest(to, &record)
}

/// The previous folder's lines of the list `name` (`unrated.csv`, `non_members.csv`)
/// that a continued run writes ahead of its own rows `new`, checked against the
/// previous `run.json`, without those of the competitions this run lists again (see
/// [`super::history::carried_csv`]); `None` when the run is not continued.
fn carried_list(output: &RunOutput, name: &str, new: &DataFrame) -> Result<Option<Vec<u8>>> {
    let Some(folder) = &output.carried_from else {
        return Ok(None);
    };
    let bytes = super::run_folder::RunFolder::read(folder, "--state")?.read_checked(name)?;
    let rescored: std::collections::HashSet<&str> = output
        .prepared
        .competitions
        .iter()
        .map(|c| c.competition_id.as_str())
        .collect();
    let header = super::files::csv_header(new);
    super::history::carried_csv(&folder.join(name), &bytes, &header, &rescored).map(Some)
}

/// A list's CSV: the carried lines `before`, when there are, then the frame's rows.
fn write_list(frame: &DataFrame, to: &Path, before: Option<&[u8]>) -> Result<String> {
    match before {
        Some(before) => super::files::write_csv_after_hashed(frame, to, before),
        None => write_csv_hashed(frame, to, false),
    }
}

/// `run.json`, written last.
fn write_manifest(to: &Path, record: &Manifest) -> Result<()> {
    let text = record
        .to_json()
        .map_err(|e| Error::Config(format!("{MANIFEST}: {e}")))?;
    write_atomic(to, |out| {
        out.write_all(text.as_bytes()).map_err(|e| Error::io(to, e))
    })
}

/// `changes.parquet`: the carried file's full row groups copied, the rest encoded; or
/// the run's changes encoded whole.
fn write_changes(
    to: &Path,
    history: &CarriedHistory,
    copied: Option<&CarriedGroups<'_>>,
    output: &RunOutput,
) -> Result<String> {
    match (&history.changes_rest, copied) {
        (Some(rest), Some(copied)) => write_parquet_carrying_hashed(
            to,
            std::slice::from_ref(copied),
            history.changes_ahead(),
            rest.height(),
            |r| Ok(rest.slice(r.start as i64, r.len())),
        ),
        _ => write_atomic_hashed(to, |out| {
            write_changes_to(out, output, &ParquetSettings::default())
                .map_err(|e| Error::polars(to, e))
        }),
    }
}

/// `standings.parquet`: as [`write_changes`] writes `changes.parquet`.
fn write_standings(
    to: &Path,
    history: &CarriedHistory,
    copied: Option<&CarriedGroups<'_>>,
    output: &RunOutput,
    adjusted: &AdjustedResults<'_>,
) -> Result<String> {
    match (copied, &history.standings_whole) {
        (Some(copied), Some(whole)) => write_parquet_carrying_hashed(
            to,
            std::slice::from_ref(copied),
            history.standings_ahead(),
            whole.height(),
            |r| Ok(whole.slice(r.start as i64, r.len())),
        ),
        _ => write_atomic_hashed(to, |out| {
            write_standings_to(out, output, adjusted, &ParquetSettings::default())
                .map_err(|e| Error::polars(to, e))
        }),
    }
}

/// Writes `standings.parquet` of a run that carries no history: the sealed row groups
/// as they are, then the rest.
fn write_standings_to<W: Write>(
    out: W,
    output: &RunOutput,
    adjusted: &AdjustedResults<'_>,
    settings: &ParquetSettings,
) -> PolarsResult<()> {
    let sealed = output.prepared.standings_sealed.bytes();
    let sealed = &mut sealed.map(|group| group.map_err(compute_error));
    let schema = super::files::arrow_fields(&standings_lines(FrameBuilder::new(0), &[], &[])?);
    let table = &output.prepared.standings;
    let encode = |range: std::ops::Range<usize>| {
        let rows: Vec<StandingLine> = range.map(|i| table.line(i)).collect();
        encode_standings(&rows, &adjusted.of(&rows), settings)
    };
    super::files::write_encoded_parquet_to(out, sealed, table.len(), settings, schema, &encode)
}

/// Encodes standings lines as `standings.parquet`'s row groups while the run replays.
#[derive(Debug)]
pub struct StandingRowCodec {
    settings: ParquetSettings,
}

impl StandingCodec for StandingRowCodec {
    fn rows_per_group(&self) -> usize {
        self.settings.row_group_size.unwrap_or(ROW_GROUP_ROWS)
    }

    fn seal(&self, lines: StandingTable, handicap: Vec<Option<(f64, f64)>>) -> Result<SealJob> {
        let settings = self.settings.clone();
        Ok(Box::new(move || {
            let rows: Vec<StandingLine> = lines.iter().collect();
            encode_standings(&rows, &handicap, &settings).map_err(frame_error(STANDINGS))
        }))
    }
}

/// The bytes [`encode_row_group`] gives for [`standings_lines`]' frame of `rows`, built
/// without the frame (as [`encode_changes`] builds `changes.parquet`'s).
fn encode_standings(
    rows: &[StandingLine],
    handicap: &[Option<(f64, f64)>],
    settings: &ParquetSettings,
) -> PolarsResult<Vec<u8>> {
    use polars_arrow::array::{Array, PrimitiveArray};
    let height = rows.len();
    if height == 0 || handicap.len() != height {
        return encode_row_group(
            &standings_lines(FrameBuilder::new(height), rows, handicap)?,
            settings,
        );
    }
    let schema = super::files::arrow_fields(&standings_lines(FrameBuilder::new(0), &[], &[])?);
    let mut ids = TextDictionary::with_capacity(height);
    let mut entrants = TextDictionary::with_capacity(height);
    let mut directions = TextDictionary::with_capacity(height);
    for s in rows {
        ids.push(Some(s.competition_id));
        entrants.push(Some(s.entrant));
        directions.push(direction_name(s.direction));
    }
    let column = |values: Vec<Option<f64>>| PrimitiveArray::from(values).boxed();
    let arrays: Vec<Box<dyn Array>> = vec![
        ids.finish(),
        entrants.finish(),
        PrimitiveArray::from_vec(rows.iter().map(|s| s.score).collect::<Vec<f64>>()).boxed(),
        column(rows.iter().map(|s| s.percent).collect()),
        PrimitiveArray::from_vec(
            rows.iter()
                .map(|s| s.boards_played as i32)
                .collect::<Vec<i32>>(),
        )
        .boxed(),
        PrimitiveArray::from(
            rows.iter()
                .map(|s| (!s.house).then_some(s.rank as i32))
                .collect::<Vec<Option<i32>>>(),
        )
        .boxed(),
        directions.finish(),
        column(rows.iter().map(|s| s.vp).collect()),
        column(handicap.iter().map(|h| h.map(|a| a.0)).collect()),
        column(handicap.iter().map(|h| h.map(|a| a.1)).collect()),
    ];
    super::files::encode_arrays(&schema, height, arrays, settings)
}

/// The frames of a run's smaller files, built on both cores.
struct RunFrames {
    handicaps: DataFrame,
    ranking: DataFrame,
    published: DataFrame,
    unrated: DataFrame,
    quarantine: DataFrame,
    applied: DataFrame,
    corrections: DataFrame,
    non_members: DataFrame,
}

impl RunFrames {
    fn of(output: &RunOutput, settings: &RunSettings) -> Result<RunFrames> {
        let (first, second) = rayon::join(
            || -> Result<_> {
                let handicaps = handicaps(output, settings.published.min_boards)
                    .map_err(frame_error(HANDICAPS));
                let ranking = ranking(output).map_err(frame_error(RANKING));
                let published = ranking_published(output).map_err(frame_error(RANKING_PUBLISHED));
                Ok((handicaps?, ranking?, published?))
            },
            || {
                (
                    unrated(output).map_err(frame_error(UNRATED)),
                    quarantine(&output.quarantined).map_err(frame_error(QUARANTINE)),
                    applied(output).map_err(frame_error(APPLIED)),
                    corrections(output).map_err(frame_error(CORRECTIONS)),
                    non_members(output).map_err(frame_error(NON_MEMBERS)),
                )
            },
        );
        let (handicaps, ranking, published) = first?;
        let (unrated, quarantine, applied, corrections, non_members) = second;
        Ok(RunFrames {
            handicaps,
            ranking,
            published,
            unrated: unrated?,
            quarantine: quarantine?,
            applied: applied?,
            corrections: corrections?,
            non_members: non_members?,
        })
    }
}

/// The small files' digests in their order, with `standings`' before `unrated`'s.
fn with_standings<'a, W>(
    small: &[(&'a str, W)],
    digests: Vec<Option<Result<String>>>,
    mut standings: Option<Result<String>>,
) -> Vec<(&'a str, Option<Result<String>>)> {
    let mut written = Vec::with_capacity(small.len() + 1);
    for ((name, _), digest) in small.iter().zip(digests) {
        if *name == UNRATED {
            written.push((STANDINGS, standings.take()));
        }
        written.push((*name, digest));
    }
    written
}

/// Every data file's digest: those taken as the files were written (the first error
/// among them, in their order, is the run's), the others read from the folder.
fn digests<'a>(
    written: impl Iterator<Item = (&'a str, Option<Result<String>>)>,
    board_scores: bool,
    path: &dyn Fn(&str) -> PathBuf,
) -> Result<BTreeMap<String, String>> {
    let mut hashes = BTreeMap::new();
    for (name, digest) in written {
        if let Some(digest) = digest {
            hashes.insert(name.to_owned(), digest?);
        }
    }
    for name in DATA_FILES {
        if (name == BOARD_SCORES && !board_scores) || hashes.contains_key(name) {
            continue;
        }
        hashes.insert(name.to_owned(), sha256_file(&path(name))?);
    }
    Ok(hashes)
}

/// What a continued run carries of the previous folder's `changes.parquet` and
/// `standings.parquet`: each file's bytes, checked against the previous `run.json`,
/// with the rows that may be copied as they are (their full row groups are) and the
/// marks of its hash; and the rows to encode after the copied groups.
#[derive(Default)]
struct CarriedHistory {
    changes: Option<(polars_buffer::Buffer<u8>, usize)>,
    changes_marks: Option<super::files::HashMarks>,
    /// The carried rows after the copied groups, then the run's own.
    changes_rest: Option<DataFrame>,
    standings: Option<(polars_buffer::Buffer<u8>, usize)>,
    standings_marks: Option<super::files::HashMarks>,
    /// Every standing: the carried ones, then the run's own (those after the copied
    /// groups are encoded).
    standings_whole: Option<DataFrame>,
}

impl CarriedHistory {
    fn changes_ahead(&self) -> Option<(&[u8], &super::files::HashMarks)> {
        Some((&self.changes.as_ref()?.0, self.changes_marks.as_ref()?))
    }

    fn standings_ahead(&self) -> Option<(&[u8], &super::files::HashMarks)> {
        Some((&self.standings.as_ref()?.0, self.standings_marks.as_ref()?))
    }
}

/// A continued run carries the previous folder's history ahead of its own rows. Each
/// carried table: its bytes, checked against the previous run.json; its full row
/// groups, copied as they are; and the rows after them, with the new rows. Nothing
/// when the run is not continued.
fn carried_history(output: &RunOutput, inputs: &RunInputs) -> Result<CarriedHistory> {
    let Some(folder) = &output.carried_from else {
        return Ok(CarriedHistory::default());
    };
    // The large carried history is read and checked on one core while the standings
    // are built and placed on the other.
    let name = STANDINGS;
    let (changes_file, standings_part) = rayon::join(
        || super::history::carried_bytes_from(inputs.carried.as_deref(), folder, CHANGES),
        || -> Result<_> {
            let whole = self::standings(output).map_err(frame_error(name))?;
            let file = super::history::carried_bytes_from(inputs.carried.as_deref(), folder, name)?;
            let keep = super::history::leading_rows(&folder.join(name), &file.bytes, &whole)?;
            Ok((whole, file, keep))
        },
    );
    let (whole, standings_file, keep) = standings_part?;
    let changes_file = changes_file?;
    let mut history = CarriedHistory {
        changes: Some((polars_buffer::Buffer::from(changes_file.bytes), usize::MAX)),
        changes_marks: Some(changes_file.marks),
        changes_rest: None,
        standings: Some((polars_buffer::Buffer::from(standings_file.bytes), keep)),
        standings_marks: Some(standings_file.marks),
        standings_whole: None,
    };
    let changes_groups = copied_groups(history.changes.as_ref(), CHANGES)?;
    let standings_groups = copied_groups(history.standings.as_ref(), STANDINGS)?;
    // The two tails are decoded and joined to the run's rows side by side.
    let (changes_rest, standings_whole) = rayon::join(
        || -> Result<Option<DataFrame>> {
            let (Some((bytes, _)), Some(copied)) = (&history.changes, &changes_groups) else {
                return Ok(None);
            };
            let name = CHANGES;
            let new = self::changes(output).map_err(frame_error(name))?;
            let none = new.head(Some(0));
            let tail = super::history::tail(&folder.join(name), bytes, copied.rows(), &none)?;
            super::history::append(folder, name, tail, &new).map(Some)
        },
        || -> Result<Option<DataFrame>> {
            let (Some((bytes, _)), Some(copied)) = (&history.standings, &standings_groups) else {
                return Ok(Some(whole));
            };
            let name = STANDINGS;
            let tail = super::history::tail(&folder.join(name), bytes, copied.rows(), &whole)?;
            super::history::append(folder, name, tail, &whole).map(Some)
        },
    );
    history.changes_rest = changes_rest?;
    history.standings_whole = standings_whole?;
    Ok(history)
}

/// The full row groups of a carried table (its bytes and the rows that may be copied)
/// to copy as they are.
fn copied_groups<'a>(
    carried: Option<&'a (polars_buffer::Buffer<u8>, usize)>,
    name: &str,
) -> Result<Option<CarriedGroups<'a>>> {
    carried
        .map(|(bytes, keep)| CarriedGroups::full_shared(bytes, ROW_GROUP_ROWS, *keep))
        .transpose()
        .map_err(|e| Error::polars(name, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::sealed::tests_support::{
        hold_arriving, seal_all, seal_arriving, spill_arriving,
    };

    /// `changes.parquet` and `standings.parquet` encoded from their rows directly give
    /// the bytes of their frames encoded by polars, in row groups of a few hundred rows
    /// and of the whole sample.
    #[test]
    fn changes_and_standings_encoded_directly_are_their_frames_bytes() -> crate::error::Result<()> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
        let dataset = crate::store::table::read_dataset(&dir)?;
        let factors = crate::model::FactorSet::default();
        let registry = crate::pipeline::state::Registry::new(&dataset.members);
        let prepared = crate::pipeline::prepare::prepare(&dataset, &registry, &factors, &|| {});
        let comps = &prepared.competitions;
        let mut states = registry.starting_states(&factors)?;
        let out = crate::pipeline::replay::replay(
            &factors,
            crate::pipeline::Mode::Live,
            comps,
            &mut states,
            &|_| {},
        );
        let settings = ParquetSettings::default();
        let named = |at: usize| {
            comps
                .get(at)
                .map(|p| (p.competition_id.as_str(), p.date, &p.entrant_names))
        };
        let rows = &out.changes;
        assert!(rows.len() > 1000, "{} changes", rows.len());
        let lines: Vec<StandingLine> = prepared.standings.iter().collect();
        assert!(lines.len() > 500, "{} standings", lines.len());
        let handicap: Vec<Option<(f64, f64)>> = (0..lines.len())
            .map(|i| (i % 3 == 0).then_some((i as f64 / 8.0, -1.5)))
            .collect();
        for size in [1, 300, usize::MAX] {
            for part in rows.chunks(size.min(rows.len())).take(3) {
                let frame = changes_columns(part, named).unwrap();
                let direct = encode_changes(part, named, &settings).unwrap();
                assert!(
                    direct == encode_row_group(&frame, &settings).unwrap(),
                    "{size}"
                );
            }
            let parts = lines
                .chunks(size.min(lines.len()))
                .zip(handicap.chunks(size.min(lines.len())));
            for (part, handicap) in parts.take(3) {
                let frame = standings_lines(FrameBuilder::new(part.len()), part, handicap).unwrap();
                let direct = encode_standings(part, handicap, &settings).unwrap();
                assert!(
                    direct == encode_row_group(&frame, &settings).unwrap(),
                    "{size}"
                );
            }
        }
        Ok(())
    }

    /// A frozen month applied a few competitions at a time, while the next ones are
    /// rated on the month's opening handicaps, gives the changes and handicaps of the
    /// month rated whole and then applied, to the bit.
    #[test]
    fn a_frozen_month_applied_in_chunks_is_the_month_applied_whole() -> crate::error::Result<()> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
        let dataset = crate::store::table::read_dataset(&dir)?;
        let factors = crate::model::FactorSet::default();
        let registry = crate::pipeline::state::Registry::new(&dataset.members);
        let prepared = crate::pipeline::prepare::prepare(&dataset, &registry, &factors, &|| {});
        let competitions = &prepared.competitions;
        let run = |chunk| -> crate::error::Result<(String, Vec<u64>)> {
            let mut states = registry.starting_states(&factors)?;
            let out = crate::pipeline::replay::replay_chunked(
                &factors,
                crate::pipeline::Mode::Frozen,
                competitions,
                &mut states,
                &|_| {},
                chunk,
            );
            assert!(out.changes.len() > 100, "{} changes", out.changes.len());
            let bits = states.iter().map(|s| s.handicap.to_bits()).collect();
            Ok((format!("{:?}", out.changes), bits))
        };
        let whole = run(usize::MAX)?;
        for chunk in [1, 2, 3] {
            assert!(run(chunk)? == whole, "chunks of {chunk}");
        }
        Ok(())
    }

    /// A run that seals its player changes a row group at a time as it replays (both
    /// modes) writes the bytes of `changes.parquet` written whole from the rows, lists
    /// the same non-members and ends with the same handicaps; the competitions' model
    /// inputs are let go once applied.
    #[test]
    fn sealed_changes_give_the_bytes_of_the_table_written_whole() -> Result<()> {
        use crate::pipeline::{Mode, RunSettings};
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
        let dataset = crate::store::table::read_dataset(&dir)?;
        let group = 40;
        let settings = ParquetSettings {
            row_group_size: Some(group),
            ..ParquetSettings::default()
        };
        for mode in [Mode::Live, Mode::Frozen] {
            let plain_settings = RunSettings {
                mode,
                ..RunSettings::default()
            };
            let plain = crate::pipeline::run(&dataset, &plain_settings, None)?;
            let sealing = RunSettings {
                sealer: Sealer {
                    board_scores: None,
                    changes: Some(std::sync::Arc::new(ChangeRowCodec {
                        settings: settings.clone(),
                    })),
                    standings: Some(std::sync::Arc::new(StandingRowCodec {
                        settings: settings.clone(),
                    })),
                    spill: None,
                    groups: None,
                },
                ..plain_settings
            };
            let sealed = crate::pipeline::run(&dataset, &sealing, None)?;
            let rows = plain.replay.changes.len();
            assert!(rows > 3 * group, "{rows} changes");
            assert!(plain.replay.sealed.is_empty());
            assert_eq!(sealed.replay.sealed.groups.groups.len(), rows / group);
            assert_eq!(sealed.replay.changes.len(), rows % group);
            assert_eq!(sealed.replay.change_count(), rows);
            assert_eq!(sealed.summary.changes, rows);
            assert!(
                changes(&sealed).is_err(),
                "the sealed rows are not in memory"
            );

            let mut whole = Vec::new();
            let frame = changes(&plain).map_err(frame_error(CHANGES))?;
            super::super::files::write_parquet_to(&mut whole, &[], rows, &settings, &|r| {
                Ok(frame.slice(r.start as i64, r.len()))
            })
            .map_err(frame_error(CHANGES))?;
            let mut out = Vec::new();
            write_changes_to(&mut out, &sealed, &settings).map_err(frame_error(CHANGES))?;
            assert!(
                out == whole,
                "{mode:?}: {} against {} bytes",
                out.len(),
                whole.len()
            );

            let listed = |o: &RunOutput| non_members(o).map_err(frame_error(NON_MEMBERS));
            assert!(listed(&plain)?.height() > 0);
            assert!(listed(&sealed)?.equals_missing(&listed(&plain)?));
            let bits = |o: &RunOutput| -> Vec<u64> {
                o.states.iter().map(|s| s.handicap.to_bits()).collect()
            };
            assert_eq!(bits(&sealed), bits(&plain));
            let competitions = &sealed.prepared.competitions;
            assert!(competitions.iter().all(|c| c.input.entrants.is_empty()));

            // The standings too, a row group at a time as their months are replayed,
            // with the handicap tournaments' results.
            let lines = plain.prepared.standings.len();
            let sealed_lines = sealed.prepared.standings_sealed.rows();
            assert!(
                sealed_lines > 3 * group,
                "{sealed_lines} of {lines} lines sealed"
            );
            assert_eq!(sealed_lines % group, 0);
            assert_eq!(sealed_lines + sealed.prepared.standings.len(), lines);
            assert!(
                standings(&sealed).is_err(),
                "the sealed lines are not in memory"
            );
            let frame = standings(&plain).map_err(frame_error(STANDINGS))?;
            let column = frame.column("handicap_result");
            let nulls = column.map_err(frame_error(STANDINGS))?.null_count();
            assert!(
                nulls < lines,
                "{nulls} of {lines} lines without a handicap result"
            );
            let mut whole = Vec::new();
            super::super::files::write_parquet_to(&mut whole, &[], lines, &settings, &|r| {
                Ok(frame.slice(r.start as i64, r.len()))
            })
            .map_err(frame_error(STANDINGS))?;
            let mut out = Vec::new();
            let adjusted = adjusted_results(&sealed);
            write_standings_to(&mut out, &sealed, &adjusted, &settings)
                .map_err(frame_error(STANDINGS))?;
            assert!(
                out == whole,
                "{mode:?}: {} against {} bytes",
                out.len(),
                whole.len()
            );
        }
        Ok(())
    }

    /// Board scores sealed a row group at a time as they arrive, opened again when a
    /// competition in them is left out, give the bytes of the table written whole.
    #[test]
    fn board_score_columns_given_as_dictionaries_write_the_frames_bytes() -> Result<()> {
        use polars_arrow::array::{DictionaryArray, Utf8Array};
        let settings = ParquetSettings::default();
        let row = |id: &str, board: u32, ns: Option<&str>, ew: Option<&str>| BoardScore {
            competition_id: id.into(),
            board,
            ns: ns.map(Into::into),
            ew: ew.map(Into::into),
            ns_score: (board % 3 != 0).then_some(420),
            ns_points: 1.5,
            ew_points: 2.5,
            datum: (board == 2).then_some(-30.0),
        };
        // The worked example: two competitions, `c2` repeated on four rows, an empty
        // N/S on the second row and an empty E/W on the last.
        let worked: BoardScoreTable = [
            row("c1", 1, Some("1"), Some("2")),
            row("c1", 1, None, Some("4")),
            row("c2", 2, Some("10"), Some("2")),
            row("c2", 2, Some("1"), Some("10")),
            row("c2", 3, Some("10"), Some("2")),
            row("c2", 3, Some("1"), None),
        ]
        .into_iter()
        .collect();
        let whole = |table: &BoardScoreTable| -> Result<(Vec<u8>, Vec<u8>)> {
            let rows = 0..table.len();
            let all = std::slice::from_ref(&rows);
            let given = BoardScoreColumns::gathered(table, all).encode(&settings);
            let frame = BoardScoreColumns::gathered(table, all).frame();
            let framed = frame.and_then(|frame| encode_row_group(&frame, &settings));
            Ok((
                given.map_err(frame_error(BOARD_SCORES))?,
                framed.map_err(frame_error(BOARD_SCORES))?,
            ))
        };
        let (given, framed) = whole(&worked)?;
        assert!(given == framed, "the worked example's bytes");
        // The dictionaries themselves: values in order of first appearance, a null
        // where the cell is empty.
        let names = worked.names();
        let dictionary = |numbers: Vec<Option<u32>>| {
            let array = dictionary_or_text(names, numbers.into_iter());
            let array = array
                .as_any()
                .downcast_ref::<DictionaryArray<u32>>()
                .cloned();
            array.map(|a| {
                let values = a.values().as_any().downcast_ref::<Utf8Array<i64>>();
                let values: Vec<String> = values
                    .map(|v| v.values_iter().map(str::to_string).collect())
                    .unwrap_or_default();
                let keys: Vec<Option<u32>> = a.keys().iter().map(|k| k.copied()).collect();
                (values, keys)
            })
        };
        let ns = worked.side_numbers(0..6, false).to_vec();
        assert_eq!(
            dictionary(ns),
            Some((
                vec!["1".to_string(), "10".to_string()],
                vec![Some(0), None, Some(1), Some(0), Some(1), Some(0)]
            ))
        );
        let ids = worked.competition_numbers(0..6).iter().map(|&n| Some(n));
        assert_eq!(
            dictionary(ids.collect()),
            Some((
                vec!["c1".to_string(), "c2".to_string()],
                vec![Some(0), Some(0), Some(1), Some(1), Some(1), Some(1)]
            ))
        );
        // 200 rows: 100 distinct entrants on each side (half the rows, a dictionary),
        // then 101 with an empty cell (more than half: the plain column, which the
        // encoder writes as a dictionary, its estimate being under 3/4), then 200
        // distinct (the plain column, written plain).
        for (distinct, empty, dictionary_given) in
            [(100, false, true), (100, true, false), (200, false, false)]
        {
            let table: BoardScoreTable = (0..200u32)
                .map(|t| {
                    let name = format!("pair {}", t % distinct);
                    let ew = (!(empty && t == 7)).then_some(name.as_str());
                    row("c9", t % 24 + 1, Some(&name), ew)
                })
                .collect();
            let (given, framed) = whole(&table)?;
            assert!(given == framed, "{distinct} names, empty cell: {empty}");
            let ew = dictionary_or_text(
                table.names(),
                table.side_numbers(0..200, true).iter().copied(),
            );
            assert_eq!(
                ew.as_any().is::<DictionaryArray<u32>>(),
                dictionary_given,
                "{distinct} names, empty cell: {empty}"
            );
        }
        Ok(())
    }

    #[test]
    fn sealed_board_scores_give_the_bytes_of_the_table_written_whole() -> Result<()> {
        let group = 100;
        let settings = ParquetSettings {
            row_group_size: Some(group),
            ..ParquetSettings::default()
        };
        let codec = std::sync::Arc::new(BoardScoreCodec {
            settings: settings.clone(),
        });
        // 40 competitions of 6 to 17 tables: 450 rows, with every kind of empty cell.
        let competitions: Vec<Vec<BoardScore>> = (0..40)
            .map(|c| {
                (0..6 + (c * 7) % 12)
                    .map(|t| BoardScore {
                        competition_id: format!("2026-05-{:02}-club{c}", c % 28 + 1).into(),
                        board: t as u32 % 9 + 1,
                        ns: (t % 7 != 6).then(|| format!("{}", t % 5 + 1).into()),
                        ew: Some(if c % 3 == 0 {
                            "E+W".into()
                        } else {
                            format!("{}", t % 4 + 6).into()
                        }),
                        ns_score: (t % 11 != 10).then_some((t % 9 - 4) * 110),
                        ns_points: f64::from(t as u32 % 5) * 1.5,
                        ew_points: 6.0 - f64::from(t as u32 % 5) * 1.5,
                        datum: (c % 4 == 1).then_some(f64::from(t as u32) * 10.0 - 80.0),
                    })
                    .collect()
            })
            .collect();
        let whole_bytes = |places: &[usize]| -> Result<Vec<u8>> {
            let table: BoardScoreTable = places
                .iter()
                .flat_map(|&at| competitions[at].clone())
                .collect();
            let frame = board_scores(&table).map_err(frame_error(BOARD_SCORES))?;
            let mut out = Vec::new();
            super::super::files::write_parquet_to(&mut out, &[], frame.height(), &settings, &|r| {
                Ok(frame.slice(r.start as i64, r.len()))
            })
            .map_err(frame_error(BOARD_SCORES))?;
            Ok(out)
        };
        let all: Vec<usize> = (0..40).collect();
        let without: Vec<usize> = all.iter().copied().filter(|&at| at != 3).collect();
        for (places, sealed) in [(&all, true), (&without, false)] {
            let rows = seal_all(codec.clone(), &competitions, places)?;
            assert_eq!(!rows.sealed.is_empty(), sealed);
            let mut out = Vec::new();
            write_board_scores_to(&mut out, &rows, &settings).map_err(frame_error(BOARD_SCORES))?;
            assert!(out == whole_bytes(places)?, "{} competitions", places.len());
        }
        // Arriving as a file ordered by club would bring them (every fourth place from
        // 0, then from 1, ...): nothing sealed, each row group gathered from the rows
        // as they arrived, with and without a competition left out.
        let arrival: Vec<usize> = (0..4).flat_map(|club| (club..40).step_by(4)).collect();
        for places in [&all, &without] {
            let rows = seal_arriving(codec.clone(), &competitions, &arrival, places)?;
            assert!(rows.sealed.is_empty());
            assert!(
                rows.parts(0..100).len() > 1,
                "a row group from several parts"
            );
            let mut out = Vec::new();
            write_board_scores_to(&mut out, &rows, &settings).map_err(frame_error(BOARD_SCORES))?;
            assert!(out == whole_bytes(places)?, "{} competitions", places.len());
        }
        // The same rows held on disk while they arrive, 16 rows at a time: from a file
        // ordered by club, and after 12 competitions in order (one group sealed, then
        // 0-4 late: the sealed group is opened again onto the file), with and without
        // a competition left out. Nothing stays in the folder.
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let folder = std::sync::Arc::new(super::super::spill_file::SpillFolder::new(dir.path()));
        let late: Vec<usize> = (5..17).chain(0..5).chain(17..40).collect();
        for arrival in [&arrival, &late] {
            for places in [&all, &without] {
                let rows = spill_arriving(
                    codec.clone(),
                    folder.clone(),
                    16,
                    &competitions,
                    (arrival, None),
                    places,
                )?;
                assert!(rows.sealed.is_empty());
                assert!(rows.records(0..1).is_some(), "rows held on disk");
                let mut out = Vec::new();
                write_board_scores_to(&mut out, &rows, &settings)
                    .map_err(frame_error(BOARD_SCORES))?;
                assert!(out == whole_bytes(places)?, "{} competitions", places.len());
                if cfg!(unix) {
                    assert!(super::super::spill_file::left_in(dir.path()).is_empty());
                }
            }
        }
        // Each five places arriving last first: held until the first of them comes and
        // sealed as in order. Held past 8 rows, the places missing are taken not to
        // come; when they come after all, the rest is spilled.
        let reversed: Vec<usize> = (0..8)
            .flat_map(|five| (five * 5..five * 5 + 5).rev())
            .collect();
        for (hold, sealed) in [(1 << 19, true), (8, false)] {
            for places in [&all, &without] {
                let rows = hold_arriving(
                    codec.clone(),
                    folder.clone(),
                    (16, hold),
                    &competitions,
                    (&reversed, None),
                    places,
                )?;
                assert_eq!(!rows.sealed.is_empty(), sealed && places.len() == 40);
                assert_eq!(rows.records(0..1).is_some(), !sealed);
                let mut out = Vec::new();
                write_board_scores_to(&mut out, &rows, &settings)
                    .map_err(frame_error(BOARD_SCORES))?;
                assert!(out == whole_bytes(places)?, "{} competitions", places.len());
            }
        }
        assert!(super::super::spill_file::left_in(dir.path()).is_empty());
        Ok(())
    }

    #[test]
    fn a_run_that_fails_leaves_no_spill_file() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let folder = std::sync::Arc::new(super::super::spill_file::SpillFolder::new(dir.path()));
        let codec = std::sync::Arc::new(BoardScoreCodec {
            settings: ParquetSettings::default(),
        });
        let competitions: Vec<Vec<BoardScore>> = (0..6)
            .map(|c| {
                (1..=20)
                    .map(|board| BoardScore {
                        competition_id: format!("c{c}").into(),
                        board,
                        ns: Some("1".into()),
                        ew: Some("2".into()),
                        ns_score: Some(420),
                        ns_points: 1.0,
                        ew_points: 1.0,
                        datum: None,
                    })
                    .collect()
            })
            .collect();
        let arrival = [5, 4, 3, 2, 1, 0];
        let all: Vec<usize> = (0..6).collect();
        // Failing while the rows arrive, after two competitions were spilled.
        let failed = spill_arriving(
            codec.clone(),
            folder.clone(),
            8,
            &competitions,
            (&arrival, Some(4)),
            &all,
        );
        assert_eq!(
            failed.err().map(|e| e.to_string()),
            Some("stopped after 4 competitions".to_string())
        );
        assert_eq!(
            super::super::spill_file::left_in(dir.path()),
            Vec::<std::path::PathBuf>::new()
        );
        // Failing when the output is written: the output is not made either.
        let rows = spill_arriving(codec, folder, 8, &competitions, (&arrival, None), &all)?;
        assert_eq!(rows.len(), 120);
        let out = dir.path().join("missing").join(BOARD_SCORES);
        assert!(write_board_scores(&out, &rows).is_err());
        drop(rows);
        assert!(!out.exists());
        assert_eq!(
            super::super::spill_file::left_in(dir.path()),
            Vec::<std::path::PathBuf>::new()
        );
        Ok(())
    }
}
