//! A terminal that goes away, and signals from outside: the view never outlives its terminal
//! (whatever half key was typed before it closed), ends on every signal whose default ends a
//! process with the terminal restored, and takes a paste as one edit.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::tmux::Tmux;

const CAPTURE: &str = include_str!("../samples/large.json");

fn view(name: &str, file: &str) -> Option<Tmux> {
    Tmux::program(
        &format!("hangup-{name}"),
        (120, 35),
        &[("cap.json", CAPTURE)],
        &format!("$BIN {file}"),
    )
}

/// Whether `pid` still runs (a zombie waiting for its parent has ended).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(") ")?.1.chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}

/// Wait up to `limit` for `pid` to end; kill it (so no test leaves it spinning) and fail if
/// it did not.
fn assert_ends(pid: u32, limit: Duration, what: &str) {
    let start = Instant::now();
    while alive(pid) {
        if start.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("the view outlived its terminal: {what}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_half_key_then_a_hang_up_ends_the_view() {
    // Esc and `[` together (a CSI cut short), half a UTF-8 character, a byte no key starts
    // with: crossterm's reader waits for the rest of each, and the terminal closes meanwhile.
    let attacks: [(&str, &[&str]); 3] = [
        ("csi", &["Escape", "["]),
        ("utf8", &["-H", "c3"]),
        ("ff", &["-H", "ff"]),
    ];
    for (name, keys) in attacks {
        let Some(t) = view(name, "cap.json") else {
            return;
        };
        t.wait_for("▼original");
        let pid = t.child_pid();
        t.keys(keys);
        std::thread::sleep(Duration::from_millis(150));
        t.cmd(&["kill-server"]);
        assert_ends(pid, Duration::from_secs(5), name);
    }
}

#[test]
fn a_half_key_does_not_swallow_the_next_keys_nor_deafen_the_view() {
    let Some(t) = view("deaf", "cap.json") else {
        return;
    };
    t.wait_for("▼original");
    // Half a character: the reader must not block on the rest of it.
    t.keys(&["-H", "c3"]);
    std::thread::sleep(Duration::from_millis(200));
    let pid = t.child_pid().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(t.wait_exit(), 128 + 15);
}

#[test]
fn every_ending_signal_restores_the_terminal() {
    // The ones the view did not handle before: power failure, stack fault, real-time signals.
    let rtmin = Command::new("kill")
        .arg("-l")
        .arg("RTMIN")
        .output()
        .unwrap();
    let rtmin: i32 = String::from_utf8_lossy(&rtmin.stdout)
        .trim()
        .parse()
        .unwrap_or(34);
    for (signal, number) in [("PWR", 30), ("STKFLT", 16), ("RTMIN", rtmin)] {
        let Some(t) = view(&signal.to_lowercase(), "cap.json") else {
            return;
        };
        t.wait_for("▼original");
        assert_eq!(t.flag("alternate_on"), "1");
        let pid = t.child_pid().to_string();
        let sent = Command::new("kill")
            .args([&format!("-{number}"), &pid])
            .status()
            .unwrap();
        assert!(sent.success());
        assert_eq!(t.wait_exit(), 128 + number, "SIG{signal}");
        assert_eq!(
            t.flag("alternate_on"),
            "0",
            "SIG{signal} left the alternate screen"
        );
        assert_eq!(
            t.flag("mouse_any_flag"),
            "0",
            "SIG{signal} left mouse reporting"
        );
        assert_eq!(
            t.flag("cursor_flag"),
            "1",
            "SIG{signal} left the cursor hidden"
        );
    }
}

#[test]
fn a_paste_is_one_edit() {
    let Some(t) = view("paste", "cap.json") else {
        return;
    };
    t.wait_for("▼original");
    let paste = |text: &str| {
        std::fs::write(t.path("paste"), text).unwrap();
        t.cmd(&["load-buffer", t.path("paste").to_str().unwrap()]);
        t.cmd(&["paste-buffer", "-p", "-t", "t"]);
    };
    // Outside a text field a paste is no keys: taken one key at a time, `q` would quit.
    paste("q");
    t.keys(&["/"]);
    t.wait_for("Esc clear the filter");
    assert_eq!(t.flag("alternate_on"), "1", "a pasted q quit the view");
    // Into the search: the whole text at once.
    paste(&format!("read{}", "q".repeat(3000)));
    t.wait_for("/readqqqq");
    t.keys(&["Escape"]);
    // Esc and q arriving together would be Alt-q.
    t.wait("the search closed", |s| !s.contains("/readqqqq"));
    t.keys(&["q"]);
    assert_eq!(t.wait_exit(), 0);
}
