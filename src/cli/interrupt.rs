//! Ctrl-C (SIGINT) ends a command with exit status 130, what a shell reports for a command
//! Ctrl-C ended, so a script can tell an interrupted run from a finished one.
//!
//! Most commands only compute and then write their output once, so they end at once, in the
//! signal handler. Where something must be finished or put back first (an export's temporary
//! file, a pager still on the screen, the interactive view's terminal), the code [`take_over`]s
//! SIGINT for the rest of the run: from then on it only sets a flag, and the program exits 130
//! once that code is done ([`came`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use signal_hook::SigId;
use signal_hook::consts::SIGINT;

/// Exit status after Ctrl-C: 128 plus SIGINT's number.
pub const EXIT_INTERRUPTED: i32 = 130;

/// The action that exits at once, while it is installed.
static EXIT_AT_ONCE: Mutex<Option<SigId>> = Mutex::new(None);

/// Set by SIGINT once the action is taken over.
static CAME: OnceLock<Arc<AtomicBool>> = OnceLock::new();

fn came_flag() -> &'static Arc<AtomicBool> {
    CAME.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// From now until [`take_over`]: SIGINT ends the process with status 130.
#[allow(
    unsafe_code,
    reason = "a signal action is registered through an unsafe call"
)]
pub fn exit_at_once() {
    // SAFETY: the action calls only `_exit`, which is async-signal-safe, and touches no
    // memory.
    let id = unsafe {
        signal_hook::low_level::register(SIGINT, || signal_hook::low_level::exit(EXIT_INTERRUPTED))
    };
    if let (Ok(id), Ok(mut slot)) = (id, EXIT_AT_ONCE.lock()) {
        *slot = Some(id);
    }
}

/// SIGINT no longer ends the process: it only sets the flag [`came`] reads, and returns it,
/// for code that stops cleanly on its own (an export's write loop checks it). The flag is set
/// up before the action that exits is removed, so no SIGINT falls between the two.
pub fn take_over() -> Arc<AtomicBool> {
    let flag = came_flag().clone();
    // Registered once: a second take-over finds it in place.
    static REGISTERED: OnceLock<()> = OnceLock::new();
    REGISTERED.get_or_init(|| {
        let _ = signal_hook::flag::register(SIGINT, flag.clone());
    });
    if let Some(id) = EXIT_AT_ONCE.lock().ok().and_then(|mut slot| slot.take()) {
        signal_hook::low_level::unregister(id);
    }
    flag
}

/// Whether a SIGINT came after [`take_over`].
pub fn came() -> bool {
    CAME.get().is_some_and(|flag| flag.load(Ordering::Relaxed))
}

/// The signal that asked [`stop_on_ending_signals`]' work to stop (0: none).
static ENDED_BY: OnceLock<Arc<AtomicUsize>> = OnceLock::new();

/// A flag every signal whose default action ends the process sets
/// ([`toolprism::tui::ending_signals`]), for code that stops cleanly on its own (an export's
/// write loop): the temporary file removed, the target as it was. Once that code is done the
/// program ends as the signal would have ended it ([`end_as_signalled`]); Ctrl-C exits 130
/// ([`take_over`]). Only around work that cannot block for ever (a write to a file, not the
/// opening of a named pipe): until the process ends, these signals no longer end it.
pub fn stop_on_ending_signals() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let by = ENDED_BY.get_or_init(|| Arc::new(AtomicUsize::new(0)));
    for signal in toolprism::tui::ending_signals() {
        let _ = signal_hook::flag::register(signal, stop.clone());
        // Signal numbers are small and positive.
        let _ = signal_hook::flag::register_usize(signal, by.clone(), signal as usize);
    }
    // After the stop flag: Ctrl-C now stops the write, then exits 130.
    take_over();
    stop
}

/// When a signal caught by [`stop_on_ending_signals`] came (other than SIGINT, which exits
/// 130), end the process by its default action, so the parent sees what ended it.
pub fn end_as_signalled() {
    let Some(signal) = ENDED_BY
        .get()
        .map(|by| by.load(Ordering::Relaxed))
        .and_then(|n| i32::try_from(n).ok())
        .filter(|&n| n != 0 && n != SIGINT)
    else {
        return;
    };
    let _ = signal_hook::low_level::emulate_default_handler(signal);
}

/// A write past the limit on a file's size (`ulimit -f`) fails with EFBIG, reported as one line
/// with the temporary file removed, instead of SIGXFSZ ending the process on the spot.
pub fn ignore_file_size_signal() {
    static KEPT: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    // A caught signal does what an ignored one does here: the write fails with EFBIG.
    let flag = KEPT.get_or_init(|| Arc::new(AtomicBool::new(false)));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, flag.clone());
}

/// Forget a SIGINT that came after [`take_over`]: it was meant for another program on the
/// terminal (`record`'s command, which got it too and chose what to do with it).
pub fn forget() {
    if let Some(flag) = CAME.get() {
        flag.store(false, Ordering::Relaxed);
    }
}
