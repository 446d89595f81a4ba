//! What a stdio server leaves behind when toolprism itself is killed (`kill -9`): nothing of
//! toolprism runs then to end the servers' groups, so a watchdog does ([`watch`]), a shell of
//! its own that reads each group from a pipe only toolprism writes to, and kills them all when
//! the pipe closes without toolprism saying it is done. The servers' daemons (`setsid()`) while
//! toolprism runs are [`crate::descendants`]'s. Feature `mcp`.

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
