//! The terminal's input, made safe for crossterm's reader, and a watchdog for the cases where
//! the reader is stuck anyway.
//!
//! crossterm reads its events from standard input (or `/dev/tty`) with a loop that reads until
//! it has a whole key: on a blocking descriptor a half key (Esc and `[` arriving together, half
//! a UTF-8 character) blocks it until the next key comes (swallowing it, and deaf to every
//! signal meanwhile), and on a terminal that hung up (`read` returns 0 or fails with EIO) the
//! loop never ends. So, while the view runs:
//! - the descriptor crossterm reads is standard input, made the terminal itself when a capture
//!   was piped in ([`TtyInput::take`]: `/dev/tty` is put on descriptor 0; what was piped in
//!   has been read by then), and it is non-blocking, so a read with nothing more to give
//!   returns at once and the half key waits in crossterm's buffer for the rest;
//! - the event loop asks crossterm only for events that are there, and looks at the hang-up
//!   and the signal flags between any two events;
//! - a watchdog thread ([`watch`]) ends the process when the terminal has hung up or an ending
//!   signal came and the event loop has not ended within [`GRACE`]: crossterm's loop over a
//!   hung-up terminal can still spin between two of the event loop's looks, and nothing else
//!   would stop it.
//!
//! The descriptor's flags are put back on every way out (the guard, suspending, a panic, the
//! watchdog): a shell given back a non-blocking terminal would see its reads fail.

use std::io::IsTerminal;
use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::fs::OFlags;

/// What the terminal's input has for the event loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Readiness {
    /// Bytes to read (keys, mouse, replies).
    Input,
    /// Nothing within the wait, or a signal arrived.
    Idle,
    /// The terminal is gone: nothing will ever be read from it again.
    HungUp,
}

/// How long the watchdog lets the event loop notice a hang-up or a signal on its own.
pub(crate) const GRACE: Duration = Duration::from_millis(1500);

/// Standard input's flags before [`TtyInput::take`] (-1: not taken).
static SAVED_FLAGS: AtomicI64 = AtomicI64::new(-1);

/// Standard input as the view's terminal input, non-blocking until dropped.
pub(crate) struct TtyInput;

impl TtyInput {
    /// Make standard input the terminal (from `/dev/tty` when something else was piped in) and
    /// non-blocking.
    pub(crate) fn take() -> std::io::Result<TtyInput> {
        if !std::io::stdin().is_terminal() {
            let tty = std::fs::File::open("/dev/tty")?;
            rustix::stdio::dup2_stdin(&tty)?;
        }
        let stdin = std::io::stdin();
        let flags = rustix::fs::fcntl_getfl(stdin.as_fd())?;
        SAVED_FLAGS.store(i64::from(flags.bits()), Ordering::SeqCst);
        set_nonblocking()?;
        Ok(TtyInput)
    }

    /// Wait up to `timeout` for input, a hang-up or a signal.
    pub(crate) fn wait(&self, timeout: Duration) -> std::io::Result<Readiness> {
        poll_stdin(PollFlags::IN, timeout)
    }
}

impl Drop for TtyInput {
    fn drop(&mut self) {
        restore_flags();
    }
}

/// Poll standard input for `flags`; a hang-up, an error or a closed descriptor is
/// [`Readiness::HungUp`] whatever was asked.
fn poll_stdin(flags: PollFlags, timeout: Duration) -> std::io::Result<Readiness> {
    let stdin = std::io::stdin();
    let fd = stdin.as_fd();
    let mut fds = [PollFd::new(&fd, flags)];
    let timeout = Timespec {
        tv_sec: timeout.as_secs().try_into().unwrap_or(i64::MAX),
        tv_nsec: timeout.subsec_nanos().into(),
    };
    match rustix::event::poll(&mut fds, Some(&timeout)) {
        Ok(0) => Ok(Readiness::Idle),
        Ok(_)
            if fds[0]
                .revents()
                .intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL) =>
        {
            Ok(Readiness::HungUp)
        }
        Ok(_) => Ok(Readiness::Input),
        Err(rustix::io::Errno::INTR) => Ok(Readiness::Idle),
        Err(e) => Err(e.into()),
    }
}

/// Whether the view's process group owns the terminal (is in the foreground); `true` when
/// that cannot be told.
pub(crate) fn in_foreground() -> bool {
    let stdin = std::io::stdin();
    match rustix::termios::tcgetpgrp(stdin.as_fd()) {
        Ok(owner) => owner == rustix::process::getpgrp(),
        Err(_) => true,
    }
}

/// Make standard input non-blocking (again, after a suspend).
pub(crate) fn set_nonblocking() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let flags = rustix::fs::fcntl_getfl(stdin.as_fd())?;
    rustix::fs::fcntl_setfl(stdin.as_fd(), flags | OFlags::NONBLOCK)?;
    Ok(())
}

/// Put standard input's flags back as they were before [`TtyInput::take`]. Safe to call twice
/// and from any thread.
pub(crate) fn restore_flags() {
    let saved = SAVED_FLAGS.load(Ordering::SeqCst);
    if let Ok(bits) = u32::try_from(saved) {
        let stdin = std::io::stdin();
        let _ = rustix::fs::fcntl_setfl(stdin.as_fd(), OFlags::from_bits_retain(bits));
    }
}

/// Start the watchdog: once the terminal has hung up, or `stop` holds an ending signal, for
/// longer than [`GRACE`] while `done` is still false, put the terminal back (`restore`) and end
/// the process (status 0 for a hang-up, as the event loop's own end; 128 + the signal's number
/// for a signal). The thread ends when `done` is set.
pub(crate) fn watch(stop: Arc<AtomicUsize>, done: Arc<AtomicBool>, restore: fn()) {
    let spawned = std::thread::Builder::new()
        .name("tty-watchdog".into())
        .spawn(move || {
            let mut since: Option<Instant> = None;
            while !done.load(Ordering::SeqCst) {
                // Asking for nothing still reports a hang-up; a poll, not a read, so the
                // thread never takes a key from the event loop.
                let hung = poll_stdin(PollFlags::empty(), Duration::from_millis(100))
                    .is_ok_and(|r| r == Readiness::HungUp);
                let signal = stop.load(Ordering::SeqCst);
                if !hung && signal == 0 {
                    since = None;
                    continue;
                }
                let first = *since.get_or_insert_with(Instant::now);
                if first.elapsed() >= GRACE && !done.load(Ordering::SeqCst) {
                    restore_flags();
                    if !hung {
                        restore();
                    }
                    let status = match i32::try_from(signal) {
                        Ok(signal) if signal > 0 => 128 + signal,
                        _ => 0,
                    };
                    std::process::exit(status);
                }
            }
        });
    // Without the thread the event loop's own looks still end the view in the usual cases.
    drop(spawned);
}
