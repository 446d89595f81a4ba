//! The `toolprism` binary: command-line parsing and output live in `cli`; the engine is the
//! `toolprism` library.

mod cli;

use std::ffi::{c_int, c_long};

/// mimalloc instead of glibc's malloc: it allocates faster and, freeing memory back to the
/// system sooner (see [`free_memory_sooner`]), peaks lower on large captures (the figures:
/// docs/ROBUSTNESS.md, "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[allow(unsafe_code, reason = "mimalloc's options have only a C API")]
unsafe extern "C" {
    fn mi_option_get(option: c_int) -> c_long;
    fn mi_option_set(option: c_int, value: c_long);
}

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_t` (libmimalloc-sys 0.1.49), whose
/// default is 1000 ms.
const PURGE_DELAY: c_int = 15;
const PURGE_DELAY_DEFAULT: c_long = 1000;

/// Purge freed pages after 100 ms rather than a second: a projection of 100,000 tools is freed
/// and the next one built within a second, so the default delay stacks them up (the peaks at
/// 0, 100 and 1000 ms: docs/ROBUSTNESS.md, "The allocator"). Only done when the option reads
/// as its documented default, so a different mimalloc whose option numbers moved is left
/// alone, and `MIMALLOC_PURGE_DELAY` still wins.
#[allow(unsafe_code, reason = "calls into mimalloc's C option table")]
fn free_memory_sooner() {
    // SAFETY: plain calls into the linked allocator's option table, made before any other
    // thread exists.
    unsafe {
        if mi_option_get(PURGE_DELAY) == PURGE_DELAY_DEFAULT {
            mi_option_set(PURGE_DELAY, 100);
        }
    }
}

/// No transparent huge pages for this process (unless `MIMALLOC_ALLOW_THP` asks for them): each
/// commits and zeroes 2 MiB at a time, so a report of 1,000 tools peaked at 100 MB with them and
/// 77 MB without, and one of 100,000 tools at 620 MB against 593 MB, in the same CPU time
/// (docs/SPEED.md). mimalloc reads its own option before `main`, so the kernel is asked.
#[cfg(target_os = "linux")]
#[allow(unsafe_code, reason = "prctl has only a C API")]
fn small_pages() {
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: sets a flag of this process; its result only says whether the kernel knew it.
        let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

#[cfg(not(target_os = "linux"))]
fn small_pages() {}

fn main() {
    small_pages();
    free_memory_sooner();
    std::process::exit(cli::main());
}
