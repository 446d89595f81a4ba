//! The `toolprism` binary: command-line parsing and output live in `cli`; the engine is the
//! `toolprism` library.

mod cli;

use std::ffi::{c_int, c_long};

/// mimalloc instead of glibc's malloc: on 100,000 tools it allocates faster and, freeing
/// memory back to the system at once (see [`free_memory_at_once`]), peaks ~150 MB lower.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

unsafe extern "C" {
    fn mi_option_get(option: c_int) -> c_long;
    fn mi_option_set(option: c_int, value: c_long);
}

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_t` (libmimalloc-sys 0.1.49), whose
/// default is 10 ms.
const PURGE_DELAY: c_int = 15;

/// Purge freed pages immediately rather than after 10 ms: a projection of 100,000 tools is
/// freed and the next one built within that time, so delayed purging only stacks them up.
/// Only done when the option reads as its documented default, so a different mimalloc whose
/// option numbers moved is left alone.
fn free_memory_at_once() {
    // SAFETY: plain calls into the linked allocator's option table, made before any other
    // thread exists.
    unsafe {
        if mi_option_get(PURGE_DELAY) == 10 {
            mi_option_set(PURGE_DELAY, 0);
        }
    }
}

fn main() {
    free_memory_at_once();
    std::process::exit(cli::main());
}
