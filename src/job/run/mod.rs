//! `run`: the monthly handicap run and the ranking export.
//!
//! The job holds the dataset and, for a continued run, the state folder shared for the
//! whole of its read (a continued run reads the state's history while it writes), and
//! the output folder exclusively, so that a run written to the folder another run
//! continues from waits for it, or it for the writer, and never hands it half of each.

mod definition;
mod summary;

use std::path::PathBuf;
use std::time::Instant;

use crate::error::{Error, InputError, Location, Result};
use crate::pipeline::ranking::RankingGroup;
use crate::pipeline::{self, Progress, RunSettings, RunSummary};
use crate::report::run_folder::{self, load_state, RunInputs};

pub use definition::{
    definition_group, definition_mode, missing_from_definition, sample_data, PublishedDefinition,
    RankingDefinition, RunDefinition,
};
pub use summary::{
    all_quarantined_error, empty_ranking_warning, non_members_note, summary_text,
    ALL_QUARANTINED_EXIT,
};

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

/// Runs the plan and writes every output; returns the summary. `progress` is shown the
/// stages as they go.
pub fn execute(plan: &RunPlan, progress: &dyn Progress) -> Result<RunSummary> {
    let started = Instant::now();
    if let Some(state) = &plan.state {
        run_folder::check_out_and_state(&plan.out, state)?;
    }
    let folders = super::Folders::new().replace_run(&plan.out)?;
    let same_run = run_folder::SameRun {
        data: &plan.data,
        until: plan.settings.until,
        state: plan.state.as_deref(),
    };
    run_folder::check_replacing(&plan.out, &same_run, plan.replace)?;
    let mut folders = folders.read_dataset(&plan.data)?;
    if let Some(state) = &plan.state {
        folders = folders.read_run(state)?;
    }
    let _locks = folders.lock()?;
    // The state and the dataset's index are checked independently of each other.
    progress.spin(format!("checking {}", plan.data.display()));
    let (previous, checked) = rayon::join(
        || plan.state.as_deref().map(load_state).transpose(),
        || crate::store::index::check(&plan.data),
    );
    progress.finish();
    let (previous, checked) = (previous?, checked?);
    if let Some(state) = &previous {
        if let Some(summary) = continue_from_index(plan, state, &checked, started, progress)? {
            // Freeing the dataset's index and the state is no part of the run's work.
            std::thread::spawn(move || drop((checked, previous)));
            return Ok(summary);
        }
    } else if let Some(note) = checked.stale_note(&plan.data).filter(|_| !plan.quiet) {
        eprintln!("{note}");
    }
    let every = pipeline::ledger::Known::default();
    let vouched = checked.vouched();
    let checking = checked.took;
    // A run that reads everything needs of the index only the hashes it vouches for:
    // its listing of every competition (a quarter of a kilobyte each) goes now, not
    // after the run.
    std::thread::spawn(move || drop(checked));
    let read = Read {
        unread: Vec::new(),
        partitions: &crate::store::table::Partitions::All,
        known: &every,
        vouched,
        months_read: None,
        checking,
        carried: None,
    };
    let summary = run_and_write(plan, read, previous.as_ref(), started, progress)?;
    std::thread::spawn(move || drop(previous));
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
    vouched: pipeline::ledger::Known,
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
    progress: &dyn Progress,
) -> Result<Option<RunSummary>> {
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
        progress,
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
        progress,
        read.known,
        std::mem::take(&mut read.vouched),
    )?;
    // The outputs carry what they need of the dataset (its entrant rows went once
    // scored): its members and competitions need not wait for the writing, nor the
    // writing for them to be freed.
    std::thread::spawn(move || drop(head));
    match output {
        Some(mut output) => {
            output.summary.months_read = read.months_read;
            output.summary.hashing += read.checking;
            write_outputs(plan, output, &inputs, (read_time, started), progress).map(Some)
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
    progress: &dyn Progress,
) -> Result<Option<RunSummary>> {
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
            if let Some(note) = note.filter(|_| !plan.quiet) {
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
        vouched,
        months_read: Some((months.len(), all_months)),
        checking: checked.took,
        carried,
    };
    let summary = run_and_write(plan, read, Some(previous), started, progress);
    // Freeing a quarter of a million ids and hashes is no part of the run's work.
    std::thread::spawn(move || drop((known, partitions)));
    summary
}

/// Writes a run's outputs and completes its summary's times.
fn write_outputs(
    plan: &RunPlan,
    mut output: pipeline::RunOutput,
    inputs: &RunInputs,
    (read_time, started): (std::time::Duration, Instant),
    progress: &dyn Progress,
) -> Result<RunSummary> {
    output.summary.reading += read_time;
    output.summary.elapsed = started.elapsed();
    progress.spin(format!("writing {}", plan.out.display()));
    let write_started = Instant::now();
    let commit = super::hooks::test_commit();
    crate::report::outputs::write_run(&plan.out, &output, &plan.settings, inputs, commit)?;
    progress.finish();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::NoProgress;
    use crate::store::lock::FolderLock;
    use std::path::Path;

    /// One matchpoint session of two pairs (members 1 and 2 at 55 %, 3 and 4 at 45 %).
    fn club(dir: &Path) -> Result<PathBuf> {
        let data = dir.join("data");
        let tables = [
            ("members.csv", "member_id,name\n1,A\n2,B\n3,C\n4,D\n"),
            (
                "competitions.csv",
                "competition_id,date,format,scoring,boards\nc1,2026-01-05,pairs,matchpoints,24\n",
            ),
            (
                "entrants.csv",
                "competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\n",
            ),
            (
                "results.csv",
                "competition_id,entrant,boards_played,score\nc1,1,24,55\nc1,2,24,45\n",
            ),
        ];
        std::fs::create_dir(&data).map_err(|e| Error::io(&data, e))?;
        for (name, text) in tables {
            std::fs::write(data.join(name), text).map_err(|e| Error::io(name, e))?;
        }
        Ok(data)
    }

    fn plan(data: &Path, out: &Path, state: Option<&Path>) -> RunPlan {
        RunPlan {
            data: data.to_path_buf(),
            out: out.to_path_buf(),
            state: state.map(Path::to_path_buf),
            threads: None,
            quiet: true,
            replace: false,
            settings: RunSettings {
                sealer: crate::report::outputs::board_score_sealer(),
                ..RunSettings::default()
            },
            factors: None,
            pipeline: None,
        }
    }

    #[test]
    fn a_run_in_process_rates_the_session_and_writes_its_folder() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let data = club(dir.path())?;
        let out = dir.path().join("out");
        let summary = execute(&plan(&data, &out, None), &NoProgress)?;
        // Four new members start at 52, the top of the scale, and are expected to score
        // 50 % each: the pair at 55 % moves down, the pair at 45 % is held at 52 by the
        // cap. Each of the four players has a change row all the same.
        assert_eq!(summary.competitions_applied, 1);
        assert_eq!(summary.members_moved, 2);
        assert_eq!(summary.changes, 4);
        assert!(out.join(run_folder::MANIFEST).is_file());
        Ok(())
    }

    /// A continued run cannot start reading its state while another command holds the
    /// state exclusively (as a run replacing it does); it goes on once released.
    #[test]
    fn a_continued_run_waits_for_its_state() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tempdir", e))?;
        let data = club(dir.path())?;
        let state = dir.path().join("state");
        execute(&plan(&data, &state, None), &NoProgress)?;
        let held = FolderLock::exclusive(&state)?;
        let continued = plan(&data, &dir.path().join("next"), Some(&state));
        let (done, finished) = std::sync::mpsc::channel();
        let runner = std::thread::spawn(move || {
            let summary = execute(&continued, &NoProgress);
            let _ = done.send(());
            summary
        });
        let waited = finished.recv_timeout(std::time::Duration::from_millis(300));
        assert!(waited.is_err(), "the continued run did not wait");
        drop(held);
        let summary = runner
            .join()
            .map_err(|_| Error::Config("the run panicked".into()))??;
        assert_eq!(summary.competitions_skipped, 1);
        assert_eq!(summary.competitions_applied, 0);
        Ok(())
    }
}
