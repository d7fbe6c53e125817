//! Running out of memory as a message, not a crash.
//!
//! A federation's history in one file per table can need more memory than the machine
//! has, and Rust's answer to a failed allocation is `memory allocation of N bytes
//! failed` and an abort (SIGABRT, exit 134), which tells the officer neither what
//! happened nor what to do. The binary's allocator ([`Guarded`], around mimalloc)
//! catches the failed allocation itself, writes a fixed message (no allocation: the
//! number is formatted into a buffer on the stack) and exits with
//! [`OUT_OF_MEMORY_EXIT`]. Nothing half-written is left: every output and the dataset
//! are committed in one step at the end, so a process stopped earlier leaves them as
//! they were.
//!
//! Caught this way, every failed allocation ends the process, also one a library asked
//! for with `try_reserve` and could have survived; none of the code the commands run
//! relies on that.

use std::alloc::{GlobalAlloc, Layout};

use crate::error::OutOfMemoryPanic;

/// The exit code of a command that ran out of memory (documented in the README).
pub const OUT_OF_MEMORY_EXIT: i32 = 3;

const NOTHING_WRITTEN: &[u8] = b").\n\
Nothing was written: the outputs and the dataset are as they were before this command.\n";

const BYTES_FAILED: &[u8] = b" bytes failed";

/// The head of the message for a worker thread whose stack could not be mapped.
const NO_THREAD: &[u8] = b"bridgehcp: out of memory (a worker thread could not be started";

/// The head of the message for a compression context the zstd library could not make.
const NO_COMPRESSION_CONTEXT: &[u8] =
    b"bridgehcp: out of memory (a reader or writer could not make its compression context";

/// What helps a run: leaving out its largest output, or reading less of the history.
const RUN_ADVICE: &[u8] = b"Try: --no-board-scores (the board scores are the largest \
output), or continuing from the previous month's folder (--state DIR), which reads only \
the months with something new when the dataset has its index (`bridgehcp index`); \
otherwise a machine with more memory.\n";

/// What helps an import: it holds the dataset it adds to and the batch in memory.
const IMPORT_ADVICE: &[u8] = b"An import holds the dataset already in --out in memory, \
with the files given: when the batch is large, import fewer files at a time (a month's \
folder at a time); a long history needs a machine with more memory.\n";

/// Any other command holds what it reads.
const OTHER_ADVICE: &[u8] = b"The command holds what it reads in memory: use a machine \
with more memory.\n";

/// A limit on the address space counts memory reserved, not only memory used: the
/// allocator reserves its arenas and each worker thread its stack ahead of use, so a
/// command can meet such a limit far below it in resident memory.
const LIMITED: &[u8] = b" bytes of address space (ulimit -v, RLIMIT_AS), which counts \
memory reserved as well as memory used, and the allocator and the worker threads \
reserve ahead of use: raise it (`ulimit -v unlimited`), and to cap the memory used \
instead, run the command under a memory limit that counts what is used (a cgroup's \
memory.max, e.g. `systemd-run --user --scope -p MemoryMax=2G bridgehcp ...`).\n";

const LIMITED_HEAD: &[u8] = b"This process may use at most ";

/// Which command runs, for the advice: the flags one command has do not help another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Advice {
    Other = 0,
    Run = 1,
    Import = 2,
}

static ADVISE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(Advice::Other as u8);

/// Sets the advice a failed allocation gives from now on (`main`, once the command is
/// known).
pub fn advise(advice: Advice) {
    ADVISE.store(advice as u8, std::sync::atomic::Ordering::Relaxed);
}

/// The advice for the command that runs.
fn advice() -> &'static [u8] {
    match ADVISE.load(std::sync::atomic::Ordering::Relaxed) {
        1 => RUN_ADVICE,
        2 => IMPORT_ADVICE,
        _ => OTHER_ADVICE,
    }
}

/// The process's limit on its address space (`ulimit -v`), when it has one.
#[cfg(unix)]
fn address_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes the struct it is given and nothing else.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) };
    (read == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

#[cfg(not(unix))]
fn address_limit() -> Option<u64> {
    None
}

const HEAD: &[u8] = b"bridgehcp: out of memory (an allocation of ";

/// A request beyond this (1 TiB) is no workload's: it is a size read from a damaged
/// file (a Parquet page or column length with its high bits flipped), so the advice is
/// to check the input, not to find more memory.
const IMPLAUSIBLE: usize = 1 << 40;

const DAMAGED: &[u8] = b" bytes failed).\n\
Nothing was written: the outputs and the dataset are as they were before this command.\n\
No machine has that much memory: the size was most likely read from a damaged input \
file (a Parquet file whose page or column sizes are corrupt). Check the dataset's files \
(open each in another reader, or restore it from the club's export with \
`bridgehcp import`).\n";

/// `value` in decimal, written into `buffer` from its end; returns the digits.
fn decimal(mut value: usize, buffer: &mut [u8; 20]) -> &[u8] {
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 || at == 0 {
            break;
        }
    }
    &buffer[at..]
}

/// Set by the first thread to report memory running out.
static REPORTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Lets only the first thread that finds memory run out write its message: with
/// several threads at work, another can fail an allocation of its own (or a thread
/// fail to start) while the first writes, and the two messages would run into each
/// other. Any later one waits, without allocating, for the first to end the process.
fn report_alone() {
    if REPORTING.swap(true, std::sync::atomic::Ordering::SeqCst) {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

/// Writes the message to stderr and ends the process with [`OUT_OF_MEMORY_EXIT`],
/// without allocating.
pub fn out_of_memory(size: usize) -> ! {
    report_alone();
    let mut buffer = [0u8; 20];
    let digits = decimal(size, &mut buffer);
    if size > IMPLAUSIBLE {
        for part in [HEAD, digits, DAMAGED] {
            write_stderr(part);
        }
        exit_now(OUT_OF_MEMORY_EXIT)
    }
    for part in [HEAD, digits, BYTES_FAILED] {
        write_stderr(part);
    }
    advise_and_exit()
}

/// The rest of the message, after its head: nothing was written, and what helps.
fn advise_and_exit() -> ! {
    write_stderr(NOTHING_WRITTEN);
    match address_limit() {
        Some(limit) => {
            let mut buffer = [0u8; 20];
            let digits = decimal(usize::try_from(limit).unwrap_or(usize::MAX), &mut buffer);
            for part in [LIMITED_HEAD, digits, LIMITED] {
                write_stderr(part);
            }
        }
        None => write_stderr(advice()),
    }
    exit_now(OUT_OF_MEMORY_EXIT)
}

#[cfg(unix)]
fn write_stderr(mut bytes: &[u8]) {
    // SAFETY: fd 2 is borrowed for the length of the call; a closed stderr makes
    // `write` fail, which ends the loop.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(2) };
    while !bytes.is_empty() {
        match rustix::io::write(fd, bytes) {
            Ok(0) | Err(_) => return,
            Ok(n) => bytes = &bytes[n.min(bytes.len())..],
        }
    }
}

#[cfg(not(unix))]
fn write_stderr(bytes: &[u8]) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(bytes);
}

/// Ends the process at once: no destructors, no flushing of buffers (which could
/// allocate), no atexit handlers.
fn exit_now(code: i32) -> ! {
    #[cfg(unix)]
    {
        // SAFETY: `_exit` takes no pointers and does not return.
        unsafe { libc::_exit(code) }
    }
    #[cfg(not(unix))]
    {
        std::process::exit(code)
    }
}

/// Whether an error's text is a reader's or writer's report that an allocation it
/// asked for could not be made (polars reports some of its own as errors: "OOM",
/// "Allocation error : not enough memory").
pub fn is_reported_out_of_memory(text: &str) -> bool {
    text.contains("Allocation error") || text.contains("not enough memory")
}

/// Ends the process as out of memory after an error that [`is_reported_out_of_memory`],
/// with the advice, and [`OUT_OF_MEMORY_EXIT`].
pub fn reported_out_of_memory() -> ! {
    stop_with(b"bridgehcp: out of memory (the reader or writer above could not allocate")
}

/// Writes `head` (the message up to its closing parenthesis) and the advice, alone
/// among the threads, and ends the process with [`OUT_OF_MEMORY_EXIT`].
fn stop_with(head: &[u8]) -> ! {
    report_alone();
    write_stderr(head);
    advise_and_exit()
}

/// Makes a worker thread that cannot be started, or a compression context the zstd
/// library cannot allocate, end the process as out of memory (exit
/// [`OUT_OF_MEMORY_EXIT`], with the advice), not as a panic or a file reported damaged:
/// the standard library panics when it cannot map a new thread's stack, and zstd's
/// bindings when a context's allocation fails, which is memory running out by another
/// road (under `ulimit -v` they are often the first things to fail). Other panics go to
/// the hook that was there before.
pub fn catch_failed_spawns() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        match crate::error::out_of_memory_panic(info) {
            Some(OutOfMemoryPanic::ThreadNotStarted) => thread_not_started(),
            Some(OutOfMemoryPanic::NoCompressionContext) => stop_with(NO_COMPRESSION_CONTEXT),
            None => {}
        }
        previous(info);
    }));
}

/// The stack of the thread a command runs on: the size of a main thread's by default.
const COMMAND_STACK: usize = 8 << 20;

/// Runs `command` on a thread whose whole stack is mapped when it starts, and returns
/// what it returns (a panic in it goes on in the caller). The main thread's stack grows
/// on demand instead, and under an address-space limit (`ulimit -v`) the allocator's
/// first arena, reserved before `main`, can take the room it would grow into: parsing
/// the command line (clap's builders take some hundred kilobytes of stack in a debug
/// build) then ends in SIGSEGV, which nothing can report. A stack that cannot be mapped
/// is a thread that cannot be started, reported as out of memory.
pub fn on_mapped_stack<T: Send>(command: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("bridgehcp".to_owned())
            .stack_size(COMMAND_STACK)
            .spawn_scoped(scope, command)
            .unwrap_or_else(|_| thread_not_started());
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Ends the process as out of memory because a worker thread could not be started
/// (the pool of worker threads could not be built, or a thread not spawned).
pub fn thread_not_started() -> ! {
    stop_with(NO_THREAD)
}

/// An allocator that hands every request to `A` and turns a failed one into
/// [`out_of_memory`].
pub struct Guarded<A>(pub A);

// SAFETY: every call is forwarded unchanged to `A`, a `GlobalAlloc`; only a null return
// (which the caller would treat as an error) is replaced by ending the process.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Guarded<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.0.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.0.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory(new_size);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each command gets the advice that helps it: `import` has neither `--threads`
    /// nor `--no-board-scores`, and is told to import fewer files at a time.
    #[test]
    fn each_command_gets_its_own_advice() {
        let text = |advice| String::from_utf8_lossy(advice).into_owned();
        advise(Advice::Import);
        let import = text(advice());
        advise(Advice::Run);
        let run = text(advice());
        advise(Advice::Other);
        let other = text(advice());
        assert!(import.contains("import fewer files at a time"), "{import}");
        for flag in ["--threads", "--no-board-scores", "--state"] {
            assert!(!import.contains(flag), "{import}");
            assert!(!other.contains(flag), "{other}");
        }
        assert!(run.starts_with("Try: --no-board-scores"), "{run}");
        assert!(run.contains("(--state DIR)"), "{run}");
        assert!(!run.contains("--threads"), "{run}");
    }

    #[test]
    fn a_command_runs_on_its_own_stack_and_returns_its_value() {
        let depth = on_mapped_stack(|| {
            // 4 MiB of locals: more than a thread's default 2 MiB, within the 8 MiB.
            let room = [7u8; 4 << 20];
            std::hint::black_box(&room)
                .iter()
                .map(|&b| u64::from(b))
                .sum::<u64>()
        });
        assert_eq!(depth, 7 * (4 << 20));
    }

    #[test]
    fn sizes_are_written_in_decimal_without_allocating() {
        let mut buffer = [0u8; 20];
        assert_eq!(decimal(92_541_664, &mut buffer), b"92541664");
        assert_eq!(decimal(0, &mut buffer), b"0");
        assert_eq!(
            decimal(usize::MAX, &mut buffer),
            usize::MAX.to_string().as_bytes()
        );
    }
}
