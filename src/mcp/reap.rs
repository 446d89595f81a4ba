//! What a stdio server leaves behind: a daemon it started with `setsid()` is in no process
//! group toolprism ends. On Linux toolprism makes itself a child subreaper before it starts
//! any server, so every orphan below it becomes its child; once the listing is done it ends
//! every child left and reaps it, again until none is left (their own orphans come next).
//! Other systems have no subreaper: a server's descendants in another session are out of
//! reach there (docs/MCP.md). Feature `mcp`.

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
