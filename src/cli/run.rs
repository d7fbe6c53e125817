//! `bridgehcp run`: the monthly handicap run and the ranking export.

use std::path::{Path, PathBuf};
use std::time::Instant;

use chrono::NaiveDate;
use clap::{Args, ValueEnum};
use serde::Deserialize;

use super::progress::{spinner, Bars};
use crate::error::{Error, InputError, Location, Result};
use crate::model::FactorSet;
use crate::pipeline::ledger::sha256;
use crate::pipeline::ranking::{RankingGroup, RankingOptions};
use crate::pipeline::{self, Mode, Rate, RunSettings, RunSummary};
use crate::quarantine::OnError;
use crate::report::run_folder::{self, load_state, RunInputs};
use crate::store::files::Commit;

#[derive(Debug, Args, Default)]
#[command(
    after_help = "Examples:\n  bridgehcp run                                  # the sample federation, into ./out\n  \
bridgehcp run --pipeline pipelines/monthly.toml\n  \
bridgehcp run --data fed/ --out 2026-11/ --state 2026-10/\n  \
bridgehcp run --data fed/ --out whatif/ --factors my-factors.toml --mode frozen\n  \
bridgehcp run --data fed/ --out ranking/ --min-boards 100 --active-months 12 --ranking-by district\n  \
bridgehcp run --data fed/ --out check/ --strict        # fail on the first broken rule"
)]
pub struct RunArgs {
    /// Dataset folder (default: the sample federation in data/sample).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Output folder (default: ./out).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Factor set in TOML (default: the built-in fsb-2007 set).
    #[arg(long, value_name = "FILE")]
    pub factors: Option<PathBuf>,
    /// live: each competition sees the previous ones; frozen: a month uses its opening
    /// handicaps.
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Continue from a previous run's output folder, applying only later competitions.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// A run definition (see pipelines/); flags given here override it.
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    /// Ranking: minimum rated boards played.
    #[arg(long, value_name = "N")]
    pub min_boards: Option<u64>,
    /// Ranking: only members active in the last N months.
    #[arg(long, value_name = "N")]
    pub active_months: Option<u32>,
    /// Ranking: reference date for activity (default: the last competition's date).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub as_of: Option<NaiveDate>,
    /// Ranking: rank within each club or district.
    #[arg(long, value_enum)]
    pub ranking_by: Option<RankingGroupArg>,
    /// Published ranking (ranking_published.csv): minimum rated boards; members below
    /// it are marked provisional in handicaps.parquet (default 100).
    #[arg(long, value_name = "N")]
    pub publish_min_boards: Option<u64>,
    /// Published ranking: only members active in the last N months (default 12).
    #[arg(long, value_name = "N")]
    pub publish_active_months: Option<u32>,
    /// Apply only competitions dated up to this day (e.g. the month's last day).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub until: Option<NaiveDate>,
    /// Worker threads (default: all cores). The output does not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bars and no summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Stop at the first error instead of leaving the competition out (quarantine.csv).
    #[arg(long)]
    pub strict: bool,
    /// Do not write board_scores.parquet (the largest output); the others are unchanged.
    #[arg(long)]
    pub no_board_scores: bool,
    /// Replace --out even when it holds another run (another dataset folder, --until or
    /// --state). Without it such a folder is refused; one holding the same run is
    /// replaced (a month run again).
    #[arg(long)]
    pub replace: bool,
    /// Which result is rated when a competition has both table results and the results
    /// its club's program published: the published one (the club's official result) or
    /// the one recomputed from the table results. They differ only for sessions the
    /// import reported as `mismatch`. Recorded in run.json.
    #[arg(long, value_enum, default_value_t = RateArg::Published)]
    pub rate: RateArg,
}

/// `--rate`: the pipeline's [`Rate`], spelled for the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum RateArg {
    /// The results the club's program published.
    #[default]
    Published,
    /// The results recomputed from the table results.
    Recomputed,
}

impl From<RateArg> for Rate {
    fn from(rate: RateArg) -> Rate {
        match rate {
            RateArg::Published => Rate::Published,
            RateArg::Recomputed => Rate::Recomputed,
        }
    }
}

/// `--mode`: the pipeline's [`Mode`], spelled for the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Each competition sees the handicaps left by every earlier one.
    Live,
    /// Every competition of a month uses the month's opening handicaps; the changes are
    /// summed and the cap applies at month end.
    Frozen,
}

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Mode {
        match mode {
            ModeArg::Live => Mode::Live,
            ModeArg::Frozen => Mode::Frozen,
        }
    }
}

/// `--ranking-by`: the pipeline's [`RankingGroup`], spelled for the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RankingGroupArg {
    Club,
    District,
}

impl From<RankingGroupArg> for RankingGroup {
    fn from(group: RankingGroupArg) -> RankingGroup {
        match group {
            RankingGroupArg::Club => RankingGroup::Club,
            RankingGroupArg::District => RankingGroup::District,
        }
    }
}

/// A run definition kept by a federation in `pipelines/`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDefinition {
    pub description: Option<String>,
    pub data: Option<PathBuf>,
    pub out: Option<PathBuf>,
    pub factors: Option<PathBuf>,
    pub mode: Option<String>,
    pub state: Option<PathBuf>,
    /// Stop at the first error instead of quarantining the competition.
    pub strict: Option<bool>,
    #[serde(default)]
    pub ranking: RankingDefinition,
    /// The published ranking's filters (`ranking_published.csv`).
    #[serde(default)]
    pub published: PublishedDefinition,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedDefinition {
    pub min_boards: Option<u64>,
    pub active_months: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankingDefinition {
    pub min_boards: Option<u64>,
    pub active_months: Option<u32>,
    pub as_of: Option<NaiveDate>,
    pub by: Option<String>,
}

impl RunDefinition {
    pub fn load(path: &Path) -> Result<RunDefinition> {
        Self::load_hashed(path).map(|(definition, _)| definition)
    }

    /// The definition and the SHA-256 of its text, for the run's manifest.
    pub fn load_hashed(path: &Path) -> Result<(RunDefinition, String)> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let definition = toml::from_str(&text)
            .map_err(|e| Error::Input(InputError::new(Location::file(path), e.to_string())))?;
        Ok((definition, sha256(text.as_bytes())))
    }
}

/// Settings checked once from the flags and the run definition.
#[derive(Debug, Clone)]
pub struct RunPlan {
    pub data: PathBuf,
    pub out: PathBuf,
    pub state: Option<PathBuf>,
    pub threads: Option<usize>,
    pub quiet: bool,
    /// Replace `out` even when it holds another run (`--replace`).
    pub replace: bool,
    pub settings: RunSettings,
    /// The factor set's file (`None`: the built-in set).
    pub factors: Option<PathBuf>,
    /// The run definition and the SHA-256 of its text.
    pub pipeline: Option<(PathBuf, String)>,
}

/// The sample federation: `data/sample` from the working folder, or from the source tree
/// the binary was built from.
pub fn sample_data() -> PathBuf {
    let local = PathBuf::from("data/sample");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample")
}

/// The mode a run definition names (`live` when it names none).
fn definition_mode(file: &Path, text: Option<&str>) -> Result<Mode> {
    text.map_or(Ok(Mode::Live), |text| {
        text.parse()
            .map_err(|e| Error::Input(InputError::new(Location::file(file).column("mode"), e)))
    })
}

/// The ranking group a run definition names, if any.
fn definition_group(file: &Path, text: Option<&str>) -> Result<Option<RankingGroup>> {
    match text {
        None => Ok(None),
        Some("club") => Ok(Some(RankingGroup::Club)),
        Some("district") => Ok(Some(RankingGroup::District)),
        Some(other) => Err(Error::Input(InputError::new(
            Location::file(file).column("ranking.by"),
            format!("unknown ranking group `{other}` (expected club or district)"),
        ))),
    }
}

impl RunArgs {
    /// The published ranking's filters: the flags, else the definition's
    /// `[published]`, else [`pipeline::published_ranking`].
    fn published(&self, definition: &RunDefinition) -> RankingOptions {
        let defaults = pipeline::published_ranking();
        RankingOptions {
            min_boards: self
                .publish_min_boards
                .or(definition.published.min_boards)
                .unwrap_or(defaults.min_boards),
            active_months: self
                .publish_active_months
                .or(definition.published.active_months)
                .or(defaults.active_months),
            as_of: self.as_of.or(definition.ranking.as_of),
            group_by: None,
        }
    }

    pub fn plan(&self) -> Result<RunPlan> {
        let definition_path = self.pipeline.clone();
        let (definition, pipeline) = match &definition_path {
            Some(path) => {
                let (definition, hash) = RunDefinition::load_hashed(path)?;
                (definition, Some((path.clone(), hash)))
            }
            None => (RunDefinition::default(), None),
        };
        let file = definition_path.unwrap_or_default();
        let mode = match self.mode {
            Some(mode) => mode.into(),
            None => definition_mode(&file, definition.mode.as_deref())?,
        };
        let group_by = match self.ranking_by {
            Some(g) => Some(g.into()),
            None => definition_group(&file, definition.ranking.by.as_deref())?,
        };
        if self.data.is_none() {
            missing_from_definition(&file, "data", "--data DIR", definition.data.as_deref())?;
        }
        if self.factors.is_none() {
            missing_from_definition(
                &file,
                "factors",
                "--factors FILE",
                definition.factors.as_deref(),
            )?;
        }
        let published = self.published(&definition);
        let factors_path = self.factors.clone().or(definition.factors);
        let factors = match &factors_path {
            Some(path) => crate::import::factors::load(path)?,
            None => FactorSet::default(),
        };
        Ok(RunPlan {
            data: self
                .data
                .clone()
                .or(definition.data)
                .unwrap_or_else(sample_data),
            out: self
                .out
                .clone()
                .or(definition.out)
                .unwrap_or_else(|| PathBuf::from("out")),
            state: self.state.clone().or(definition.state),
            threads: self.threads,
            quiet: self.quiet,
            replace: self.replace,
            factors: factors_path,
            pipeline,
            settings: RunSettings {
                factors,
                mode,
                ranking: RankingOptions {
                    min_boards: self
                        .min_boards
                        .or(definition.ranking.min_boards)
                        .unwrap_or(1),
                    active_months: self.active_months.or(definition.ranking.active_months),
                    as_of: self.as_of.or(definition.ranking.as_of),
                    group_by,
                },
                published,
                sealer: crate::report::outputs::board_score_sealer(),
                until: self.until,
                on_error: if self.strict || definition.strict.unwrap_or(false) {
                    OnError::Strict
                } else {
                    OnError::Quarantine
                },
                board_scores: !self.no_board_scores,
                rate: self.rate.into(),
            },
        })
    }
}

/// The commit of an output or dataset folder; `BRIDGEHCP_TEST_PAUSE_AT=<point>` stops
/// the process at that point of it (`staged`, `swapped`, `between-renames`, and for an
/// import `members-written`) so that a test can kill it there, and
/// `BRIDGEHCP_TEST_RENAME=two` forces the two-rename commit. Both exist only in builds
/// for the tests (feature `test-hooks`); otherwise the commit is the plain one.
pub(crate) fn test_commit() -> Commit<'static> {
    Commit {
        exchange: exchange_allowed(),
        at: &pause_at,
    }
}

#[cfg(feature = "test-hooks")]
fn pause_at(point: &str) {
    if std::env::var("BRIDGEHCP_TEST_PAUSE_AT").is_ok_and(|p| p == point) {
        eprintln!("bridgehcp: paused at {point}");
        std::thread::sleep(std::time::Duration::from_secs(600));
    }
}

#[cfg(not(feature = "test-hooks"))]
fn pause_at(_point: &str) {}

/// Whether the commit may exchange the folders in one rename (see [`pause_at`]).
fn exchange_allowed() -> bool {
    #[cfg(feature = "test-hooks")]
    if std::env::var("BRIDGEHCP_TEST_RENAME").is_ok_and(|v| v == "two") {
        return false;
    }
    true
}

/// A path a run definition names that does not exist, as an error that says how paths
/// in the definition are read and which flag overrides it.
fn missing_from_definition(
    definition: &Path,
    key: &str,
    flag: &str,
    path: Option<&Path>,
) -> Result<()> {
    let Some(path) = path.filter(|p| !p.exists()) else {
        return Ok(());
    };
    let here = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| ".".into());
    Err(Error::Input(InputError::new(
        Location::file(definition).column(key),
        format!(
            "`{}` does not exist: paths in a run definition are relative to the folder the command runs in ({here}); run it from the folder that holds `{}`, or pass {flag}",
            path.display(),
            path.display()
        ),
    )))
}

/// Runs the plan and writes every output; returns the summary.
pub fn execute(plan: &RunPlan) -> Result<RunSummary> {
    let started = Instant::now();
    if let Some(state) = &plan.state {
        run_folder::check_out_and_state(&plan.out, state)?;
    }
    crate::store::files::recover(&plan.out)?;
    let same_run = run_folder::SameRun {
        data: &plan.data,
        until: plan.settings.until,
        state: plan.state.as_deref(),
    };
    run_folder::check_replacing(&plan.out, &same_run, plan.replace)?;
    for found in crate::store::commit::recover_dataset(&plan.data)? {
        eprintln!("{found}");
    }
    let _lock = crate::store::commit::DatasetLock::shared(&plan.data)?;
    // The state and the dataset's index are checked independently of each other.
    let checking = spinner(!plan.quiet, format!("checking {}", plan.data.display()));
    let (previous, checked) = rayon::join(
        || plan.state.as_deref().map(load_state).transpose(),
        || crate::store::index::check(&plan.data),
    );
    checking.finish_and_clear();
    let (previous, checked) = (previous?, checked?);
    if let Some(state) = &previous {
        if let Some(summary) = continue_from_index(plan, state, &checked, started)? {
            // Freeing the dataset's index and the state is no part of the run's work.
            std::thread::spawn(move || drop((checked, previous)));
            return Ok(summary);
        }
    } else if let Some(note) = checked.stale_note(&plan.data).filter(|_| !plan.quiet) {
        eprintln!("{note}");
    }
    let every = pipeline::ledger::Known::default();
    let vouched = checked.vouched();
    let read = Read {
        unread: Vec::new(),
        partitions: &crate::store::table::Partitions::All,
        known: &every,
        vouched: &vouched,
        months_read: None,
        checking: checked.took,
        carried: None,
    };
    let summary = run_and_write(plan, read, previous.as_ref(), started)?;
    std::thread::spawn(move || drop((checked, previous, vouched)));
    summary.ok_or_else(|| {
        Error::Config("a run over every competition found one it had not read".to_owned())
    })
}

/// What a run reads of the dataset: which partitions, and the hashes of the
/// competitions it leaves unread (from the dataset's index).
struct Read<'a> {
    partitions: &'a crate::store::table::Partitions,
    /// The competitions of the months left unread, from the dataset's index (their
    /// `competitions` rows are not read either).
    unread: Vec<crate::dataset::Competition>,
    known: &'a pipeline::ledger::Known,
    /// The hashes the index vouches for of the competitions whose rows are read.
    vouched: &'a pipeline::ledger::Known,
    /// For the summary: the months read, of how many.
    months_read: Option<(usize, usize)>,
    /// Time spent checking the index against the data files (part of `hashing`).
    checking: std::time::Duration,
    /// The previous run's history, being read ahead for the outputs to carry.
    carried: Option<std::sync::Arc<dyn run_folder::ReadAhead>>,
}

/// Opens what `read` names, runs the pipeline and writes the outputs; `None` when the
/// months read were not enough (something before the state's last competition
/// changed), and the caller reads everything.
fn run_and_write(
    plan: &RunPlan,
    mut read: Read<'_>,
    previous: Option<&pipeline::PreviousRun>,
    started: Instant,
) -> Result<Option<RunSummary>> {
    let progress = !plan.quiet;
    let (
        crate::store::table::Opened {
            mut head,
            boards: mut board_files,
        },
        entrants,
        results,
    ) = crate::store::table::open_partitions_compact(
        &plan.data,
        plan.settings.on_error,
        read.partitions,
        &Bars::new(progress),
    )?;
    head.competitions.append(&mut read.unread);
    check_register(plan, &head)?;
    check_ranking_groups(plan, &head)?;
    let inputs = RunInputs {
        data: plan.data.clone(),
        factors: plan.factors.clone(),
        state: plan.state.clone().zip(previous.map(|p| p.sha256.clone())),
        pipeline: plan.pipeline.clone(),
        carried: read.carried.clone(),
    };
    let read_time = started.elapsed().saturating_sub(read.checking);
    let rows = pipeline::EntrantRows::compact(entrants, results);
    let output = pipeline::run_source_known(
        &head,
        rows,
        &mut board_files,
        &plan.settings,
        previous,
        &Bars::new(progress),
        read.known,
        read.vouched,
    )?;
    // The outputs carry what they need of the dataset (its entrant rows went once
    // scored): its members and competitions need not wait for the writing, nor the
    // writing for them to be freed.
    std::thread::spawn(move || drop(head));
    match output {
        Some(mut output) => {
            output.summary.months_read = read.months_read;
            output.summary.hashing += read.checking;
            write_outputs(plan, output, &inputs, read_time, started).map(Some)
        }
        None => Ok(None),
    }
}

/// A continued run that reads only the months with something new, when the dataset's
/// index vouches for the others (`competition_index.parquet`, see
/// [`crate::store::index`]); `None` when the whole dataset has to be read: no
/// usable index (said on stderr), or something changed before the state's last
/// competition (the run then replays from the start, which needs every row).
fn continue_from_index(
    plan: &RunPlan,
    previous: &pipeline::PreviousRun,
    checked: &crate::store::index::Checked,
    started: Instant,
) -> Result<Option<RunSummary>> {
    let progress = !plan.quiet;
    // The plan, and then the month's rows, are read and scored on one core: the
    // history the outputs carry is read and checked on the other meanwhile. Should the
    // plan be to read everything, the bytes are dropped once read.
    let by_month = checked.index.as_ref().is_ok_and(|i| !i.single_files());
    let carried = by_month.then(|| {
        std::sync::Arc::new(crate::report::history::Prefetch::start(
            &previous.folder,
            &[run_folder::CHANGES, run_folder::STANDINGS],
        )) as std::sync::Arc<dyn run_folder::ReadAhead>
    });
    let reading =
        crate::store::index::reading_plan(&plan.data, checked, previous, plan.settings.until);
    let (months, known, all_months) = match reading {
        crate::store::index::Reading::Months {
            months,
            known,
            all_months,
        } => (months, known, all_months),
        crate::store::index::Reading::Whole(note) => {
            if let Some(note) = note.filter(|_| progress) {
                eprintln!("{note}");
            }
            return Ok(None);
        }
    };
    let vouched = checked.vouched_in(Some(&months));
    let unread = checked.unread(&months);
    let partitions = crate::store::table::Partitions::Months(months.clone());
    let read = Read {
        unread,
        partitions: &partitions,
        known: &known,
        vouched: &vouched,
        months_read: Some((months.len(), all_months)),
        checking: checked.took,
        carried,
    };
    let summary = run_and_write(plan, read, Some(previous), started);
    // Freeing a quarter of a million ids and hashes is no part of the run's work.
    std::thread::spawn(move || drop((known, vouched, partitions)));
    summary
}

/// Writes a run's outputs and completes its summary's times.
fn write_outputs(
    plan: &RunPlan,
    mut output: pipeline::RunOutput,
    inputs: &RunInputs,
    read_time: std::time::Duration,
    started: Instant,
) -> Result<RunSummary> {
    let progress = !plan.quiet;
    output.summary.reading += read_time;
    output.summary.elapsed = started.elapsed();
    let writing = spinner(progress, format!("writing {}", plan.out.display()));
    let write_started = Instant::now();
    crate::report::outputs::write_run(&plan.out, &output, &plan.settings, inputs, test_commit())?;
    writing.finish_and_clear();
    output.summary.writing = write_started.elapsed();
    output.summary.elapsed = started.elapsed();
    let summary = output.summary.clone();
    // The outputs are written: freeing the run's tables need not hold up its end.
    std::thread::spawn(move || drop(output));
    Ok(summary)
}

/// A dataset with competitions but no members: every player would be a guest, and each
/// would fail as "no guest handicap method applies" on its own, hundreds of lines none
/// of which says the cause. One message says it.
fn check_register(plan: &RunPlan, dataset: &crate::dataset::Dataset) -> Result<()> {
    if !dataset.members.is_empty() || dataset.competitions.is_empty() {
        return Ok(());
    }
    Err(Error::Input(InputError::new(
        Location::file(&plan.data),
        format!(
            "the `members` table is empty: the federation's register has no members, so none of the {} competitions' players can be given a handicap (each would be a guest). Fill `members` (member_id, name), or import the club files with --members REGISTER",
            dataset.competitions.len()
        ),
    )))
}

/// A ranking by club or district needs members that have one: otherwise every member
/// would land in one nameless group, which is the national ranking under another name.
fn check_ranking_groups(plan: &RunPlan, dataset: &crate::dataset::Dataset) -> Result<()> {
    let (flag, has) = match plan.settings.ranking.group_by {
        Some(RankingGroup::District) => (
            "district",
            dataset.members.iter().any(|m| m.district.is_some()),
        ),
        Some(RankingGroup::Club) => ("club", dataset.members.iter().any(|m| m.club.is_some())),
        None => return Ok(()),
    };
    if has || dataset.members.is_empty() {
        return Ok(());
    }
    Err(Error::Config(format!(
        "--ranking-by {flag}: no member of {} has a {flag} (the `{flag}` column of members is empty or missing); rank nationally, or add the {flag}s to members",
        plan.data.display()
    )))
}

/// Prints the end-of-run summary.
pub fn print_summary(plan: &RunPlan, summary: &RunSummary) {
    println!("{}", summary_text(plan, summary));
}

/// The end-of-run summary: what was applied, what was not and why, and where the
/// outputs are.
pub fn summary_text(plan: &RunPlan, summary: &RunSummary) -> String {
    use crate::report::count;
    let not_applied = not_applied(summary);
    let replayed = match &summary.replayed {
        Some(reason) => format!(
            "{} ({}), so the whole history was replayed from the start, correcting {} (see corrections.csv): ",
            if reason.from_another_version() {
                "the previous run's state cannot be continued as it is"
            } else {
                "the dataset no longer matches what the previous run applied"
            },
            reason.describe(),
            count(summary.members_corrected, "member's handicap", "members' handicaps")
        ),
        None => String::new(),
    };
    let published = &plan.settings.published;
    format!(
        "bridgehcp run on {}: {replayed}{} applied{}, {} moved, {}; last competition {}; {:.2} s (reading {:.2}, hashing {:.2}, scoring {:.2}, replay {:.2}, writing {:.2})\n  \
{} ranked, {} on the published ranking (ranking_published.csv: at least {} rated boards{}); {} provisional (fewer boards); {} in rated competitions taken by non-members (they count in the field, nobody moves for them); outputs in {}",
        plan.data.display(),
        count(summary.competitions_applied, "competition", "competitions"),
        if not_applied.is_empty() {
            String::new()
        } else {
            format!(" ({})", not_applied.join(", "))
        },
        count(summary.members_moved, "member", "members"),
        count(summary.changes, "player change", "player changes"),
        summary
            .last_date
            .map(|d| d.to_string())
            .unwrap_or_else(|| "none".into()),
        summary.elapsed.as_secs_f64(),
        summary.reading.as_secs_f64(),
        summary.hashing.as_secs_f64(),
        summary.scoring.as_secs_f64(),
        summary.replaying.as_secs_f64(),
        summary.writing.as_secs_f64(),
        count(summary.members_ranked, "member", "members"),
        summary.members_published,
        published.min_boards,
        published
            .active_months
            .map(|m| format!(", active in the last {}", count(m as usize, "month", "months")))
            .unwrap_or_default(),
        count(summary.members_provisional, "handicap", "handicaps"),
        count(summary.non_member_places, "place", "places"),
        plan.out.display()
    )
}

/// What the run did not apply, and why: the summary's parenthesis after the count of
/// competitions applied.
fn not_applied(summary: &RunSummary) -> Vec<String> {
    use crate::report::count;
    let mut not_applied = Vec::new();
    if summary.competitions_skipped > 0 {
        let index = match summary.months_read {
            Some((read, months)) => format!(
                ", as the dataset's index showed: rows read of {read} of {} only",
                count(months, "month", "months")
            ),
            None => String::new(),
        };
        not_applied.push(format!(
            "{} already applied by the previous run and unchanged{index}",
            summary.competitions_skipped
        ));
    }
    if summary.competitions_not_rated > 0 {
        not_applied.push(format!(
            "{} scored but marked not rated (`rated` false)",
            summary.competitions_not_rated
        ));
    }
    if summary.competitions_unrated > 0 {
        not_applied.push(format!(
            "{} could not be rated (see unrated.csv)",
            summary.competitions_unrated
        ));
    }
    if summary.competitions_quarantined > 0 {
        not_applied.push(format!(
            "{} left out because {} a rule (see quarantine.csv)",
            summary.competitions_quarantined,
            if summary.competitions_quarantined == 1 {
                "it breaks"
            } else {
                "they break"
            }
        ));
    }
    not_applied
}

/// The warning for a ranking nobody qualified for, naming the filters that left it
/// empty; `None` when somebody is ranked.
pub fn empty_ranking_warning(plan: &RunPlan, summary: &RunSummary) -> Option<String> {
    if summary.members_ranked > 0 {
        return None;
    }
    let ranking = &plan.settings.ranking;
    let mut filters = vec![format!("at least {} rated boards", ranking.min_boards)];
    if let Some(months) = ranking.active_months {
        filters.push(format!(
            "a competition in the {months} months before {}",
            ranking
                .as_of
                .or(summary.last_date)
                .map(|d| d.to_string())
                .unwrap_or_else(|| "the last competition".into())
        ));
    }
    Some(format!(
        "warning: the ranking is empty: no member has {} (see --min-boards, --active-months, --as-of); {} is written with no rows",
        filters.join(" and "),
        plan.out.join(run_folder::RANKING_CSV).display()
    ))
}

/// The exit code of a run in which every competition was quarantined.
pub const ALL_QUARANTINED_EXIT: u8 = 2;

/// The error for a run in which every competition it read broke a rule, so that
/// nothing was rated: the outputs (with `quarantine.csv`) are written, but a scheduled
/// run must not report success. `None` when something was rated, or nothing read.
pub fn all_quarantined_error(plan: &RunPlan, summary: &RunSummary) -> Option<String> {
    let taken = summary.competitions_applied
        + summary.competitions_unrated
        + summary.competitions_skipped
        + summary.competitions_corrected;
    (summary.competitions_quarantined > 0 && taken == 0).then(|| {
        format!(
            "error: every competition ({}) was quarantined, so nobody's handicap moved; the reasons are in {} (exit code {ALL_QUARANTINED_EXIT})",
            summary.competitions_quarantined,
            plan.out.join(run_folder::QUARANTINE).display()
        )
    })
}

/// The summary's line on player numbers the run rated as non-members because `members`
/// does not have them; `None` when there were none.
pub fn non_members_note(plan: &RunPlan, summary: &RunSummary) -> Option<String> {
    (summary.non_members_seen > 0).then(|| {
        format!(
            "{} player numbers are not in `members` and were rated as non-members (nobody's handicap moves for them); each is listed with its competitions and entrants in {}",
            summary.non_members_seen,
            plan.out.join(run_folder::NON_MEMBERS).display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published ranking's defaults are the shipped export definition's filters.
    #[test]
    fn the_published_defaults_are_the_export_definitions() -> Result<()> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines/ranking-export.toml");
        let export = RunDefinition::load(&path)?;
        let defaults = pipeline::published_ranking();
        assert_eq!(export.ranking.min_boards, Some(defaults.min_boards));
        assert_eq!(export.ranking.active_months, defaults.active_months);
        assert_eq!(
            (defaults.min_boards, defaults.active_months),
            (100, Some(12))
        );
        Ok(())
    }
}
