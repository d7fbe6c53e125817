use anyhow::Context;

/// The run allocates many small strings and vectors per table result, from several
/// threads; mimalloc handles that pattern much faster than the system allocator. It is
/// built without transparent huge pages (the `no_thp` feature): zeroing 2 MB pages for
/// a heap of small rows cost more system time than it saved. [`Guarded`] turns a failed
/// allocation into a message and exit code 3 instead of an abort.
#[global_allocator]
static ALLOCATOR: Guarded<mimalloc::MiMalloc> = Guarded(mimalloc::MiMalloc);
use bridgehcp::cli::memory::Guarded;
use clap::Parser;

use bridgehcp::cli::{run, Cli, Command};

/// Errors are printed as anyhow prints them from `main`, with any control character of
/// a name or file quoted in them shown as U+FFFD; the exit code is 1.
fn main() -> std::process::ExitCode {
    match command() {
        Ok(code) => code,
        Err(error) => {
            let text = format!("Error: {error:?}");
            eprintln!("{}", bridgehcp::dataset::text::neutralise(&text, true));
            std::process::ExitCode::FAILURE
        }
    }
}

fn command() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    let command = cli
        .command
        .unwrap_or_else(|| Command::Run(run::RunArgs::default()));
    match command {
        Command::Run(args) => {
            let plan = args.plan().context("invalid run settings")?;
            if let Some(threads) = plan.threads {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build_global()
                    .context("cannot start the worker threads")?;
            }
            let summary = run::execute(&plan)
                .with_context(|| format!("run on {} failed", plan.data.display()))?;
            if !plan.quiet {
                run::print_summary(&plan, &summary);
                if let Some(note) = run::non_members_note(&plan, &summary) {
                    println!("{note}");
                }
            }
            if let Some(warning) = run::empty_ranking_warning(&plan, &summary) {
                eprintln!("{warning}");
            }
            if let Some(error) = run::all_quarantined_error(&plan, &summary) {
                eprintln!("{error}");
                return Ok(std::process::ExitCode::from(run::ALL_QUARANTINED_EXIT));
            }
        }
        Command::Score(args) => {
            let summary =
                bridgehcp::cli::score::execute(&args).map_err(|e| match args.source() {
                    Some(source) => {
                        anyhow::Error::from(e).context(format!("scoring {source} failed"))
                    }
                    None => e.into(),
                })?;
            if let Some(list) = &summary.start_list {
                print!("{list}");
            }
            use bridgehcp::report::count;
            println!(
                "bridgehcp score: {}, {}, {}{}; outputs in {}",
                count(summary.competitions, "competition", "competitions"),
                count(summary.standings, "standings row", "standings rows"),
                count(summary.board_scores, "board score", "board scores"),
                if summary.quarantined > 0 {
                    format!(
                        ", {} (see quarantine.csv)",
                        if summary.quarantined == 1 {
                            "1 competition left out because it breaks a rule".to_string()
                        } else {
                            format!(
                                "{} competitions left out because they break a rule",
                                summary.quarantined
                            )
                        }
                    )
                } else {
                    String::new()
                },
                args.out.display()
            );
        }
        Command::Import(args) => {
            let summary = bridgehcp::cli::import::execute(&args).context("import failed")?;
            let b = &summary.batch;
            use bridgehcp::import::batch::Status;
            println!(
                "bridgehcp import: {}: {} imported, {}, {} unchanged, {}, {} refused; {} mismatched (imported, but not what their program printed: see import-report.csv); {}",
                files_and_competitions(summary.files, b),
                b.count(Status::Imported),
                bridgehcp::report::count(b.count(Status::Correction), "correction", "corrections"),
                b.count(Status::Unchanged),
                bridgehcp::report::count(b.count(Status::Duplicate), "duplicate", "duplicates"),
                b.count(Status::Refused),
                b.count(Status::Mismatch),
                if summary.written {
                    format!("dataset in {}", args.out.display())
                } else {
                    "nothing to write".to_string()
                }
            );
        }
        Command::Index(args) => {
            let competitions = bridgehcp::cli::index::execute(&args)
                .with_context(|| format!("indexing {} failed", args.data.display()))?;
            println!(
                "bridgehcp index: {} in {}",
                bridgehcp::report::count(competitions, "competition", "competitions"),
                args.data
                    .join(bridgehcp::report::dataset_index::FILE)
                    .display()
            );
        }
        Command::Player(args) => {
            bridgehcp::cli::player::execute(&args)
                .with_context(|| format!("statement of member {} failed", args.member_id))?;
        }
        Command::Draw(args) => {
            let drawn = bridgehcp::cli::draw::execute(&args)
                .with_context(|| format!("drawing from {} failed", args.data.display()))?;
            print!("{}", drawn.text);
        }
        Command::Report(args) => {
            let (report, html, diff) = bridgehcp::cli::report::execute(&args)
                .with_context(|| format!("report on {} failed", args.out_dir.display()))?;
            println!(
                "bridgehcp report: {} members, {} ranked, {} new; {} and {}",
                report.members,
                report.ranking.iter().filter(|r| r.rank.is_some()).count(),
                report.new_members.len(),
                html.display(),
                diff.display()
            );
        }
        Command::Sample(args) => {
            let summary = bridgehcp::cli::sample::execute(&args)
                .with_context(|| format!("writing the sample to {} failed", args.out.display()))?;
            println!(
                "bridgehcp sample: {} and {} (kind = foreign in members: they play as guests, with a temporary handicap), {} competitions, {} board rows, {} results in {}",
                bridgehcp::report::count(summary.members, "member", "members"),
                bridgehcp::report::count(summary.foreign, "foreign guest", "foreign guests"),
                summary.competitions,
                summary.board_rows,
                summary.results,
                args.out.display()
            );
        }
        Command::Study(args) => {
            if let Some(threads) = args.threads {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build_global()
                    .context("cannot start the worker threads")?;
            }
            let study = bridgehcp::cli::study::execute(&args)
                .with_context(|| format!("study of {} failed", args.data.display()))?;
            if !args.quiet {
                bridgehcp::cli::study::print_summary(&args, &study);
            }
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// `3 files`, or `2 files, 3 competitions` when a file held more than one competition:
/// the counts that follow add up to the last figure.
fn files_and_competitions(files: usize, batch: &bridgehcp::import::batch::Batch) -> String {
    let outcomes = batch
        .entries
        .iter()
        .filter(|e| e.status.is_outcome())
        .count();
    let files_text = bridgehcp::report::count(files, "file", "files");
    if outcomes == files {
        files_text
    } else {
        format!(
            "{files_text}, {}",
            bridgehcp::report::count(outcomes, "competition", "competitions")
        )
    }
}
