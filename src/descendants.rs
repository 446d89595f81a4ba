//! Every process toolprism started, however far down: a command's own children (`npx` starting
//! `node`), and those that left their parent or their session (a daemon's `setsid()`).
//!
//! On Linux toolprism makes itself a child subreaper, so a process orphaned anywhere below it
//! is given to toolprism rather than to init, and the tree is read from `/proc` (each
//! process's parent). Elsewhere only the direct child can be reached (docs/RECORD.md,
//! docs/MCP.md). `record -- CMD` and `mcp`'s stdio servers both end theirs here.

use rustix::process::{Pid, Signal};

/// From now on, orphans below toolprism are its own (Linux; elsewhere nothing happens).
pub fn adopt_orphans() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
}

/// Every live process below `root`, parents before their children. Empty where `/proc`
/// cannot be read.
pub fn below(root: Pid) -> Vec<Pid> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    // (pid, parent) for each process still running (a zombie has nothing left to end).
    let mut all: Vec<(i32, i32)> = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some((state, parent)) = stat(pid)
            && state != 'Z'
        {
            all.push((pid, parent));
        }
    }
    let mut found = vec![root.as_raw_nonzero().get()];
    let mut at = 0;
    while at < found.len() {
        let parent = found[at];
        found.extend(all.iter().filter(|p| p.1 == parent).map(|p| p.0));
        at += 1;
    }
    found
        .into_iter()
        .skip(1)
        .filter_map(Pid::from_raw)
        .collect()
}

/// A process's state letter and parent, from `/proc/PID/stat` (the name in parentheses may
/// hold anything, so the fields are read after its last `)`).
fn stat(pid: i32) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent))
}

/// Send `signal` to every process below toolprism; how many there were. `command` is the
/// one toolprism waits for itself (never reaped here).
pub fn signal_all(signal: Signal, command: Option<Pid>) -> usize {
    let me = rustix::process::getpid();
    let below = below(me);
    for pid in &below {
        let _ = rustix::process::kill_process(*pid, signal);
    }
    reap(me, command);
    below.len()
}

/// Collect the exit of every orphan given to toolprism that has ended, so none is left a
/// zombie. Only those whose parent is toolprism and that are dead, never `command`: it is
/// waited for by its `std::process::Child`, which must not lose its status.
fn reap(me: Pid, command: Option<Pid>) {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if stat(pid) == Some(('Z', me.as_raw_nonzero().get()))
            && let Some(pid) = Pid::from_raw(pid).filter(|&p| Some(p) != command)
        {
            let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
        }
    }
}

/// End every process below toolprism: SIGTERM, up to `grace` for them to go, then SIGKILL
/// until none is left. `command` is left for its owner to wait for.
pub fn end_all(grace: std::time::Duration, command: Option<Pid>) {
    let deadline = std::time::Instant::now() + grace;
    if signal_all(Signal::TERM, command) == 0 {
        return;
    }
    while std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        if left(command) == 0 {
            return;
        }
    }
    kill_all(command);
}

/// SIGKILL to every process below toolprism, again until none is left (a process may fork
/// while it is killed).
pub fn kill_all(command: Option<Pid>) {
    for _ in 0..100 {
        if signal_all(Signal::KILL, command) == 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// How many live processes are below toolprism (its own ended orphans reaped first).
pub fn left(command: Option<Pid>) -> usize {
    let me = rustix::process::getpid();
    reap(me, command);
    below(me).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_from_proc() {
        let me = rustix::process::getpid().as_raw_nonzero().get();
        let parent = rustix::process::getppid().map(|p| p.as_raw_nonzero().get());
        assert_eq!(stat(me).map(|s| s.1), parent);
        assert_eq!(stat(-1), None);
    }
}
