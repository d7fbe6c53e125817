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

/// Errors are printed as their message and the chain of causes, with any control
/// character of a name or file quoted in them shown as U+FFFD; the exit code is 1.
/// Whatever `RUST_BACKTRACE` says, no stack trace follows: that is for
/// `BRIDGEHCP_VERBOSE=1` (see [`bridgehcp::cli::error_text`]).
fn main() -> std::process::ExitCode {
    bridgehcp::cli::memory::catch_failed_spawns();
    let verbose = bridgehcp::cli::verbose();
    if verbose && std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        // Read once, when the first error captures its trace; no other thread runs yet.
        std::env::set_var("RUST_LIB_BACKTRACE", "1");
    }
    match command() {
        Ok(code) => code,
        Err(error) => {
            let text = if verbose {
                format!("Error: {error:?}")
            } else {
                bridgehcp::cli::error_text(error.as_ref())
            };
            eprintln!("{}", bridgehcp::dataset::text::neutralise(&text, true));
            if bridgehcp::cli::memory::is_reported_out_of_memory(&text) {
                bridgehcp::cli::memory::reported_out_of_memory();
            }
            std::process::ExitCode::FAILURE
        }
    }
}

fn command() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    let command = cli
        .command
        .unwrap_or_else(|| Command::Run(run::RunArgs::default()));
    bridgehcp::cli::memory::advise(match &command {
        Command::Run(_) => bridgehcp::cli::memory::Advice::Run,
        Command::Import(_) => bridgehcp::cli::memory::Advice::Import,
        _ => bridgehcp::cli::memory::Advice::Other,
    });
    match command {
        Command::Run(args) => {
            let plan = args.plan().context("invalid run settings")?;
            if let Some(threads) = plan.threads {
                if rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build_global()
                    .is_err()
                {
                    // Built first, so only a thread that cannot be started fails it.
                    bridgehcp::cli::memory::thread_not_started();
                }
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
                bridgehcp::report::count(summary.files, "file", "files"),
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
                args.data.join(bridgehcp::store::index::FILE).display()
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
        Command::Publish(args) => {
            let summary = bridgehcp::cli::publish::execute(&args)
                .with_context(|| format!("publishing {} failed", args.out_dir.display()))?;
            println!("{}", bridgehcp::cli::publish::summary_line(&summary));
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
                if rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build_global()
                    .is_err()
                {
                    // Built first, so only a thread that cannot be started fails it.
                    bridgehcp::cli::memory::thread_not_started();
                }
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
