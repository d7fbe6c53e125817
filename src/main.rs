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

/// Parses the command line and runs the command (`run` on the sample when none is
/// named); a failure keeps what the command was doing as the error's context.
fn command() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    let command = cli
        .command
        .unwrap_or_else(|| Command::Run(run::RunArgs::default()));
    command.execute().map_err(|failed| {
        let error = anyhow::Error::from(*failed.error);
        match failed.doing {
            Some(doing) => error.context(doing),
            None => error,
        }
    })
}
