//! The terminal after the interactive view, in tmux: quitting, an error, a panic, SIGINT,
//! SIGTERM, SIGHUP and Ctrl-Z then `fg` all leave it usable: alternate screen off, cursor
//! shown, mouse reporting off, and the line discipline back in cooked mode (canonical input,
//! echo and signals), checked by running a command in the same shell afterwards.
//!
//! Each test has its own tmux server; without tmux the tests say so and skip.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::command::{bin, sample};
use crate::support::tmux::Tmux;

/// An interactive shell in tmux, its server named after the test.
fn shell(name: &str) -> Option<Tmux> {
    Tmux::shell(&format!("robust-{name}"))
}

/// Start the interactive view on the sample and wait for its first frame.
fn open(t: &Tmux, env: &str) {
    t.type_line(&format!(
        "{env} '{}' '{}'; echo \"exi\"\"t=$?\"",
        bin(),
        sample("large.json").display()
    ));
    t.wait("the home screen", |s| s.contains("▼original"));
    assert_eq!(
        t.flag("alternate_on"),
        "1",
        "the view uses the alternate screen"
    );
}

/// The view has ended (`exit=N` printed): the terminal must be as the shell wants it.
fn assert_usable(t: &Tmux, case: &str) -> String {
    let screen = t.wait("the exit status", |s| {
        s.lines().any(|l| l.starts_with("exit="))
    });
    assert_modes(t, case);
    // Cooked mode, checked from inside: a command typed now runs and prints. (`EN""D` on
    // the command line, `END` only in its output.)
    t.type_line(
        "stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo|isig)' | tr '\\n' ' '; echo EN\"\"D",
    );
    // The answer line: the modes, then END (text an earlier program left on that line may
    // follow it).
    let answer = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("stty"))
            .find_map(|l| l.find(" END").map(|at| l[..at].to_owned()))
    };
    let after = t.wait("stty's answer", |s| answer(s).is_some());
    let line = answer(&after).unwrap_or_default();
    let modes: Vec<&str> = line.split_whitespace().collect();
    for mode in ["icanon", "echo", "isig"] {
        assert!(
            modes.contains(&mode),
            "{case}: the terminal is left without {mode} (raw mode): {modes:?}\n{after}"
        );
    }
    screen
}

/// The pane's modes are the shell's again: no alternate screen, a cursor, no mouse reporting.
fn assert_modes(t: &Tmux, case: &str) {
    assert_eq!(
        t.flag("alternate_on"),
        "0",
        "{case}: alternate screen left on"
    );
    assert_eq!(t.flag("cursor_flag"), "1", "{case}: cursor left hidden");
    assert_eq!(
        t.flag("mouse_any_flag"),
        "0",
        "{case}: mouse reporting left on"
    );
}

fn exit_status(screen: &str) -> Option<i32> {
    let line = screen.lines().rev().find(|l| l.starts_with("exit="))?;
    line.trim_start_matches("exit=").trim().parse().ok()
}

#[test]
fn quitting_leaves_the_terminal_usable() {
    let Some(t) = shell("quit") else { return };
    open(&t, "");
    t.keys(&["q"]);
    let screen = assert_usable(&t, "q");
    assert_eq!(exit_status(&screen), Some(0), "{screen}");
}

#[test]
fn an_error_leaves_the_terminal_usable() {
    let Some(t) = shell("error") else {
        return;
    };
    t.type_line(&format!(
        "'{}' /nonexistent/capture.json; echo \"exi\"\"t=$?\"",
        bin()
    ));
    let screen = assert_usable(&t, "error");
    assert_eq!(exit_status(&screen), Some(2), "{screen}");
    assert!(
        screen.contains("toolprism: /nonexistent/capture.json"),
        "{screen}"
    );
}

#[test]
fn a_panic_leaves_the_terminal_usable() {
    if !cfg!(debug_assertions) {
        eprintln!("release build: the panic trigger is compiled out, skipping");
        return;
    }
    let Some(t) = shell("panic") else {
        return;
    };
    t.type_line(&format!(
        // Without a backtrace: its length (which depends on the frames above the panic) would
        // decide whether the exit line is still on the pane.
        "RUST_BACKTRACE=0 TOOLPRISM_TUI_TEST_PANIC=1 '{}' '{}'; echo \"exi\"\"t=$?\"",
        bin(),
        sample("large.json").display()
    ));
    let screen = assert_usable(&t, "panic");
    assert_eq!(exit_status(&screen), Some(101), "{screen}");
}

#[test]
fn ctrl_c_leaves_the_terminal_usable() {
    let Some(t) = shell("ctrlc") else {
        return;
    };
    open(&t, "");
    t.keys(&["C-c"]);
    let screen = assert_usable(&t, "Ctrl-C");
    // As a shell reports a command Ctrl-C ended.
    assert_eq!(exit_status(&screen), Some(130), "{screen}");
}

/// Ctrl-C while `diff` is paged: the pager is waited for (the shell does not take the terminal
/// back under it), then the exit status is 130.
#[test]
fn ctrl_c_under_the_pager_exits_130() {
    let Some(t) = shell("pager") else {
        return;
    };
    // A pager that shows it started, then waits (Ctrl-C ends it, as it would end less's
    // reading); the diff is long enough not to fit the pipe at once.
    t.type_line(&format!(
        // The status on a line of its own: the terminal echoes `^C` where the cursor is.
        "PAGER='echo pag\"\"ing; sleep 30' '{}' diff '{}' -s minimal; s=$?; echo; echo \"exi\"\"t=$s\"",
        bin(),
        sample("large.json").display()
    ));
    t.wait("the pager", |s| s.lines().any(|l| l.trim() == "paging"));
    t.keys(&["C-c"]);
    let screen = assert_usable(&t, "Ctrl-C under the pager");
    assert_eq!(exit_status(&screen), Some(130), "{screen}");
}

/// A signal from outside (another terminal, `kill`, a closing terminal emulator).
fn signalled(signal: &str) {
    let Some(t) = shell(&signal.to_lowercase()) else {
        return;
    };
    open(&t, "");
    let pid = t.child_pid();
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(sent, "kill -{signal} {pid}");
    let screen = assert_usable(&t, signal);
    // 128 + the signal's number, as a shell reports a command a signal ended.
    let number = Command::new("sh")
        .args(["-c", &format!("kill -l {signal}")])
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<i32>()
                .ok()
        });
    if let Some(number) = number {
        assert_eq!(exit_status(&screen), Some(128 + number), "{screen}");
    }
}

#[test]
fn sigint_leaves_the_terminal_usable() {
    signalled("INT");
}

#[test]
fn sigterm_leaves_the_terminal_usable() {
    signalled("TERM");
}

#[test]
fn sighup_leaves_the_terminal_usable() {
    signalled("HUP");
}

#[test]
fn sigquit_leaves_the_terminal_usable() {
    signalled("QUIT");
}

#[test]
fn sigusr1_leaves_the_terminal_usable() {
    signalled("USR1");
}

#[test]
fn sigalrm_leaves_the_terminal_usable() {
    signalled("ALRM");
}

/// `kill -TSTP` from outside stops the view as Ctrl-Z does: the terminal is given back first,
/// and `fg` brings the view back.
#[test]
fn sigtstp_from_outside_suspends_with_the_terminal_restored() {
    let Some(t) = shell("tstp") else {
        return;
    };
    open(&t, "");
    let pid = t.child_pid();
    let sent = Command::new("kill")
        .args(["-TSTP", &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(sent, "kill -TSTP {pid}");
    t.wait("the shell's job notice", |s| s.contains("Stopped"));
    assert_modes(&t, "kill -TSTP");
    t.type_line("fg; echo \"resum\"\"ed=$?\"");
    t.wait("the view again", |s| s.contains("▼original"));
    assert_eq!(t.flag("alternate_on"), "1", "fg restores the view");
    t.keys(&["q"]);
    t.wait("the resumed view's exit status", |s| {
        s.lines().any(|l| l.starts_with("resumed="))
    });
    assert_modes(&t, "kill -TSTP, fg, q");
}

#[test]
fn ctrl_z_then_fg_suspends_and_resumes_cleanly() {
    let Some(t) = shell("ctrlz") else {
        return;
    };
    open(&t, "");
    t.keys(&["C-z"]);
    let stopped = t.wait("the shell's job notice", |s| s.contains("Stopped"));
    assert_modes(&t, "Ctrl-Z");
    // bash goes on with the rest of the command list when a job stops, with status 147
    // (128 + SIGSTOP: the view stops itself with SIGSTOP, since it catches SIGTSTP to give the
    // terminal back first) or 148 (128 + SIGTSTP); any other status means the view ended
    // instead of stopping.
    assert!(
        !stopped.contains("exit=") || stopped.contains("exit=147") || stopped.contains("exit=148"),
        "suspended, not ended: {stopped}"
    );
    // The shell works while the view is suspended.
    t.type_line("echo still-here");
    t.wait("the shell's answer", |s| {
        s.lines().any(|l| l.trim() == "still-here")
    });
    // The command list already went on when the job stopped: the status after `fg` is the
    // resumed view's own, printed under another name than the first list's `exit=`.
    t.type_line("fg; echo \"resum\"\"ed=$?\"");
    t.wait("the view again", |s| s.contains("▼original"));
    assert_eq!(t.flag("alternate_on"), "1", "fg restores the view");
    t.keys(&["q"]);
    let screen = t.wait("the resumed view's exit status", |s| {
        s.lines().any(|l| l.starts_with("resumed="))
    });
    let status = screen
        .lines()
        .find_map(|l| l.strip_prefix("resumed="))
        .map(str::trim);
    assert_eq!(status, Some("0"), "{screen}");
    assert_usable(&t, "Ctrl-Z, fg, q");
}

/// Closing the terminal (here: killing tmux, which hangs up its ptys) ends the view: it must
/// not stay behind reading a terminal that is gone (crossterm's reader would spin on it, a
/// core at 100% for as long as nobody notices).
#[test]
fn a_closed_terminal_ends_the_view() {
    let Some(t) = shell("hangup") else {
        return;
    };
    open(&t, "");
    let pid = t.child_pid();
    t.cmd(&["kill-server"]);
    let start = Instant::now();
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // A zombie has ended; only its parent has not collected it yet.
        if state.split_whitespace().nth(2) == Some("Z") {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the view is still running 10 s after its terminal closed (pid {pid})"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
