/// The run allocates many small strings and vectors per table result, from several
/// threads; mimalloc handles that pattern much faster than the system allocator. It is
/// built without transparent huge pages (the `no_thp` feature): zeroing 2 MB pages for
/// a heap of small rows cost more system time than it saved. [`Guarded`] turns a failed
/// allocation into a message and exit code 3 instead of an abort.
#[global_allocator]
static ALLOCATOR: Guarded<mimalloc::MiMalloc> = Guarded(mimalloc::MiMalloc);
use bridgehcp::memory::Guarded;
use clap::Parser;

use bridgehcp::cli::{run, Cli, Command};

/// Errors are printed as their message and the chain of causes, with any control
/// character of a name or file quoted in them shown as U+FFFD; the exit code is 1.
/// Whatever `RUST_BACKTRACE` says, no stack trace follows: that is for
/// `BRIDGEHCP_VERBOSE=1` (see [`bridgehcp::cli::error_text`]).
fn main() -> std::process::ExitCode {
    bridgehcp::memory::catch_failed_spawns();
    let verbose = bridgehcp::cli::verbose();
    if verbose && std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        // Read once, when the first error captures its trace; no other thread runs yet.
        std::env::set_var("RUST_LIB_BACKTRACE", "1");
    }
    match bridgehcp::memory::on_mapped_stack(command) {
        Ok(code) => code,
        Err(error) => {
            let text = if verbose {
                format!("Error: {error:?}")
            } else {
                bridgehcp::cli::error_text(error.as_ref())
            };
            eprintln!("{}", bridgehcp::dataset::text::neutralise(&text, true));
            if bridgehcp::memory::is_reported_out_of_memory(&text) {
                bridgehcp::memory::reported_out_of_memory();
            }
            std::process::ExitCode::FAILURE
        }
    }
}

/// Parses the command line and runs the command (`run` on the sample when none is
/// named); a failure keeps what the command was doing as the error's context.
fn command() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    let command = cli
        .command
        .unwrap_or_else(|| Command::Run(run::RunArgs::default()));
    bridgehcp::memory::advise(match &command {
        Command::Run(_) => bridgehcp::memory::Advice::Run,
        Command::Import(_) => bridgehcp::memory::Advice::Import,
        _ => bridgehcp::memory::Advice::Other,
    });
    command.execute().map_err(|failed| {
        let error = anyhow::Error::from(*failed.error);
        match failed.doing {
            Some(doing) => error.context(doing),
            None => error,
        }
    })
}
