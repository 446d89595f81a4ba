//! What a stdio server leaves behind. A daemon it started with `setsid()` is in no process
//! group toolprism ends: on Linux toolprism makes itself a child subreaper before it starts
//! any server, so every orphan below it becomes its child, and once the listing is done it
//! ends every child left and reaps it, again until none is left (their own orphans come next).
//! Other systems have no subreaper: a server's descendants in another session are out of
//! reach there (docs/MCP.md). And when toolprism itself is killed (`kill -9`), nothing of it
//! runs to end the servers' groups: a watchdog does ([`watch`]), a shell of its own that
//! reads each group from a pipe only toolprism writes to, and kills them all when the pipe
//! closes without toolprism saying it is done. Feature `mcp`.

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// The watchdog: it keeps each group it reads; `done` ends it quietly; the end of its input
/// (toolprism gone) kills every group it kept. `kill -9 -PGID`: dash's `kill` takes no `--`.
const WATCHDOG: &str = "groups=''; while read -r group; do if [ \"$group\" = done ]; then exit 0; fi; groups=\"$groups $group\"; done; for group in $groups; do kill -9 -$group 2>/dev/null; done";

/// The running watchdog and the pipe to it.
static WATCHING: Mutex<Option<(Child, ChildStdin)>> = Mutex::new(None);

/// Have the watchdog kill process group `group` if toolprism dies before
/// [`stop_watching`] (it is started on the first call).
pub fn watch(group: u32) {
    let Ok(mut slot) = WATCHING.lock() else {
        return;
    };
    if slot.is_none() {
        *slot = start_watchdog();
    }
    if let Some((_, pipe)) = slot.as_mut() {
        let _ = writeln!(pipe, "{group}");
    }
}

/// The watchdog, in a process group of its own (Ctrl-C at the terminal is not for it), with
/// no descriptor of toolprism's but its input.
fn start_watchdog() -> Option<(Child, ChildStdin)> {
    let mut command = Command::new("/bin/sh");
    command
        .args(["-c", WATCHDOG])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().ok()?;
    let pipe = child.stdin.take()?;
    Some((child, pipe))
}

/// Every server's group is ended: the watchdog is told so, then ended and reaped.
pub fn stop_watching() {
    let Some((mut child, mut pipe)) = WATCHING.lock().ok().and_then(|mut slot| slot.take()) else {
        return;
    };
    // Said first, so a watchdog that reads the end of its input after this kills nothing.
    let _ = pipe.write_all(b"done\n");
    let _ = child.kill();
    let _ = child.wait();
}

/// Take in every orphaned descendant from now on (Linux; elsewhere nothing).
pub fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    {
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    }
}

/// Most rounds of ending children: each round ends the orphans the last one made.
const ROUNDS: usize = 64;

/// End (SIGKILL) and reap every child toolprism still has, round after round until a round
/// finds none; the number ended. Only when nothing else of toolprism's runs as a child (after
/// every server's listing, before a pager or the view).
pub fn end_children() -> usize {
    let mut ended = 0;
    for _ in 0..ROUNDS {
        let children = children();
        if children.is_empty() {
            break;
        }
        for pid in children {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
            ended += 1;
        }
    }
    ended
}

/// The processes whose parent is toolprism, read from `/proc` (Linux; elsewhere none).
fn children() -> Vec<rustix::process::Pid> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| parent_of(pid) == Some(me))
        .filter_map(rustix::process::Pid::from_raw)
        .collect()
}

/// A process's parent, from `/proc/PID/stat` (after the name in parentheses: state, then the
/// parent's pid).
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_from_proc() {
        let me = rustix::process::getpid().as_raw_nonzero().get();
        let parent = rustix::process::getppid().map(|p| p.as_raw_nonzero().get());
        assert_eq!(parent_of(me), parent);
        assert_eq!(parent_of(-1), None);
    }
}
