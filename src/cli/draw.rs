//! `bridgehcp draw`: the next round of a Swiss pairs event, so that a club can run the
//! event with the tool: score round n, draw round n+1.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use crate::dataset::{BoardResult, Competition, Dataset, Entrant, ScoringMethod};
use crate::error::{Error, Result};
use crate::report::files::write_csv;
use crate::report::frame::FrameBuilder;
use crate::report::sheet::entrant_names;
use crate::scoring::draw::{first_round, next_round, DrawEntry, DrawTable};
use crate::scoring::{entrant_order, score_competition};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp draw --data congress/                    # round 1 (no boards yet) or the next round\n  \
bridgehcp draw --data congress/ --competition swiss-2026-03-07 --seed 17 --csv round.csv\n\n\
Prints the next round's tables of a swiss_pairs competition: round 1 seated at random \
from --seed when the dataset has no board rows for it yet; after round n, round n+1 on \
the single-field Swiss principle from the standings (VPs, then IMPs, then the pair's \
number): the top pair left meets the next pair below it that it has not met, backtracking \
when that would leave the last pairs with a repeat. An odd entry needs a house pair \
(entrants.house), which is drawn like any other pair."
)]
pub struct DrawArgs {
    /// Dataset folder holding the Swiss pairs event (its entrants and the rounds played).
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// The competition to draw (needed when the dataset has more than one swiss_pairs
    /// competition).
    #[arg(long, value_name = "ID")]
    pub competition: Option<String>,
    /// Seed of round 1's random seating.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Also write the tables as CSV (round, table, ns, ew, ns_names, ew_names).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
}

/// The round drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    pub competition_id: String,
    pub round: u32,
    pub tables: Vec<DrawTable>,
    /// The tables as the command prints them.
    pub text: String,
}

pub fn execute(args: &DrawArgs) -> Result<Drawn> {
    let dataset = crate::import::table::read_dataset(&args.data)?;
    let competition = pick(&dataset, args.competition.as_deref())?;
    let id = competition.competition_id.as_str();
    let (round, tables, totals) = draw(&dataset, competition, args.seed)?;
    let names = entrant_names(&dataset);
    let who = |pair: &str| names.get(&(id, pair)).cloned().unwrap_or_default();
    let vp_of = |pair: &str| {
        totals
            .iter()
            .find(|e| e.entrant == pair)
            .map(|e| format!(" ({:.2} VP)", e.vp))
            .unwrap_or_default()
    };
    let mut text = format!("{id}, round {round}\ntable  N/S  E/W\n");
    for t in &tables {
        let _ = writeln!(
            text,
            "{}  {}{} {}  v  {}{} {}",
            t.table,
            t.ns,
            vp_of(&t.ns),
            who(&t.ns),
            t.ew,
            vp_of(&t.ew),
            who(&t.ew)
        );
    }
    if let Some(path) = &args.csv {
        let frame = FrameBuilder::new(tables.len())
            .map("round", &tables, |_| round as i32)
            .map("table", &tables, |t| t.table as i32)
            .map("ns", &tables, |t| t.ns.clone())
            .map("ew", &tables, |t| t.ew.clone())
            .map("ns_names", &tables, |t| who(&t.ns))
            .map("ew_names", &tables, |t| who(&t.ew))
            .build()
            .map_err(|e| Error::polars(path, e))?;
        write_csv(&frame, path)?;
    }
    Ok(Drawn {
        competition_id: id.to_string(),
        round,
        tables,
        text,
    })
}

/// The next round of `competition`: round 1 seated from `seed` when no board rows
/// came yet, otherwise the round after the last one played, from the standings
/// (returned with it, for the VPs printed beside each pair).
fn draw(
    dataset: &Dataset,
    competition: &Competition,
    seed: u64,
) -> Result<(u32, Vec<DrawTable>, Vec<DrawEntry>)> {
    let id = competition.competition_id.as_str();
    let entrants: Vec<&Entrant> = dataset
        .entrants
        .iter()
        .filter(|e| e.competition_id == id)
        .collect();
    let boards: Vec<&BoardResult> = dataset
        .boards
        .iter()
        .filter(|b| b.competition_id == id)
        .collect();
    let draw_error = |rule: String| Error::Config(format!("competition `{id}`: {rule}"));
    if boards.is_empty() {
        let mut names: Vec<String> = entrants.iter().map(|e| e.entrant.clone()).collect();
        names.sort_by(|a, b| entrant_order(a, b));
        let tables = first_round(&names, seed).map_err(draw_error)?;
        return Ok((1, tables, Vec::new()));
    }
    let scored = score_competition(competition, &entrants, &boards)?;
    let standings: Vec<DrawEntry> = scored
        .standings
        .iter()
        .map(|s| DrawEntry {
            entrant: s.entrant.clone(),
            vp: s.vp.unwrap_or(0.0),
            imps: s.score,
        })
        .collect();
    let met: BTreeSet<(String, String)> = boards
        .iter()
        .filter_map(|b| {
            Some((
                b.ns.clone()?.trim().to_string(),
                b.ew.clone()?.trim().to_string(),
            ))
        })
        .collect();
    let played = boards.iter().filter_map(|b| b.round).max().unwrap_or(0);
    let tables = next_round(&standings, &met).map_err(draw_error)?;
    Ok((played + 1, tables, standings))
}

/// The Swiss pairs competition to draw: the one named, or the dataset's only one.
fn pick<'a>(dataset: &'a Dataset, wanted: Option<&str>) -> Result<&'a Competition> {
    let swiss: Vec<&Competition> = dataset
        .competitions
        .iter()
        .filter(|c| c.scoring == ScoringMethod::SwissPairs)
        .collect();
    match wanted {
        Some(id) => match dataset.competitions.iter().find(|c| c.competition_id == id) {
            Some(c) if c.scoring == ScoringMethod::SwissPairs => Ok(c),
            Some(c) => Err(Error::Config(format!(
                "competition `{id}` is scored `{}`, not `swiss_pairs`: only a Swiss pairs event has a draw",
                c.scoring
            ))),
            None => Err(Error::Config(format!(
                "competition `{id}` is not in the dataset"
            ))),
        },
        None => match swiss[..] {
            [one] => Ok(one),
            [] => Err(Error::Config(
                "the dataset has no swiss_pairs competition to draw".into(),
            )),
            _ => Err(Error::Config(format!(
                "the dataset has {} swiss_pairs competitions: name one with --competition ({})",
                swiss.len(),
                swiss
                    .iter()
                    .map(|c| c.competition_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        },
    }
}
