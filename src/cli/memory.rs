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

/// The exit code of a command that ran out of memory (documented in the README).
pub const OUT_OF_MEMORY_EXIT: i32 = 3;

const ADVICE: &[u8] = b" bytes failed).\n\
Nothing was written: the outputs and the dataset are as they were before this command.\n\
Try: fewer worker threads (--threads 1), --no-board-scores (the board scores are the \
largest output), or the month layout of the dataset (one partition per month, as \
`bridgehcp import` writes it) so that board rows are read a month at a time; or a \
machine with more memory.\n";

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

/// Writes the message to stderr and ends the process with [`OUT_OF_MEMORY_EXIT`],
/// without allocating.
pub fn out_of_memory(size: usize) -> ! {
    let mut buffer = [0u8; 20];
    let digits = decimal(size, &mut buffer);
    let advice = if size > IMPLAUSIBLE { DAMAGED } else { ADVICE };
    for part in [HEAD, digits, advice] {
        write_stderr(part);
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
