//! End to end: the real binary in a real terminal (tmux). Each test uses its own tmux server
//! socket and waits for screen text instead of sleeping; without tmux they skip with a message.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const SAMPLE: &str = include_str!("fixtures/tui-sample.json");

struct Tmux {
    socket: String,
    _dir: tempfile::TempDir,
    dir: PathBuf,
}

impl Tmux {
    /// Start the binary in a detached session of `w`x`h`, or `None` when tmux is missing.
    fn start(name: &str, w: u16, h: u16, env: &[(&str, &str)]) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("tmux not found: skipping the end-to-end TUI test");
            return None;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let capture = dir.path().join("sample.json");
        std::fs::write(&capture, SAMPLE).expect("write the sample");
        let socket = format!("toolprism-{name}-{}", std::process::id());
        // The exit status goes to a file: tmux does not always record a dead pane's status.
        // The pane then stays, so the terminal's state after the program can be checked.
        let mut command = format!(
            "'{}' sample.json; echo $? > exit-status; sleep 120",
            env!("CARGO_BIN_EXE_toolprism")
        );
        for (k, v) in env {
            command = format!("export {k}={v}; {command}");
        }
        let tmux = Tmux {
            socket,
            dir: dir.path().to_path_buf(),
            _dir: dir,
        };
        let ok = tmux
            .cmd(&[
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                &w.to_string(),
                "-y",
                &h.to_string(),
                "-c",
                &tmux.dir.display().to_string(),
                "--",
                "sh",
                "-c",
                &command,
            ])
            .status
            .success();
        assert!(ok, "tmux new-session");
        tmux.cmd(&["set-option", "-t", "t", "remain-on-exit", "on"]);
        Some(tmux)
    }

    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.cmd(&args);
    }

    fn literal(&self, text: &str) {
        self.cmd(&["send-keys", "-t", "t", "-l", text]);
    }

    /// Wait until the screen satisfies `pred`; on timeout, fail showing the screen.
    fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let limit = Duration::from_secs(
            std::env::var("TOOLPRISM_E2E_WAIT_SECS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(60),
        );
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            if start.elapsed() > limit {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait(&format!("{text:?}"), |s| s.contains(text))
    }

    fn wait_exit(&self) -> i32 {
        let start = Instant::now();
        let file = self.path("exit-status");
        loop {
            if let Some(status) = std::fs::read_to_string(&file)
                .ok()
                .and_then(|s| s.trim().parse().ok())
            {
                return status;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the program did not exit; the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The pane's alternate-screen and mouse-tracking flags (`1` when on).
    fn modes(&self) -> String {
        let out = self.cmd(&[
            "display-message",
            "-p",
            "-t",
            "t",
            "alt=#{alternate_on} mouse=#{mouse_any_flag}",
        ]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    fn path(&self, name: &str) -> PathBuf {
        Path::new(&self.dir).join(name)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

#[test]
fn start_navigate_and_quit() {
    let Some(t) = Tmux::start("nav", 120, 35, &[]) else {
        return;
    };
    t.wait_for("▼original");
    assert_eq!(
        t.modes(),
        "alt=1 mouse=1",
        "alternate screen and mouse capture while running"
    );
    // Measured figures arrive from the worker.
    t.wait("token figures", |s| {
        s.contains("tokens") && !s.contains("… tokens")
    });
    t.keys(&["3"]);
    t.wait_for("Tools · progressive");
    t.keys(&["j", "j"]);
    t.wait_for("original · bash");
    t.keys(&["d"]);
    t.wait_for("diff · bash");
    t.keys(&["?"]);
    t.wait_for("Keys · / filters");
    t.keys(&["Escape"]);
    t.wait("help closed", |s| !s.contains("Keys · / filters"));
    t.keys(&["q"]);
    assert_eq!(t.wait_exit(), 0);
    // The alternate screen is gone and mouse capture is off: the shell's screen is back.
    assert_eq!(t.modes(), "alt=0 mouse=0");
    let after = t.screen();
    assert!(!after.contains("Tools · progressive"), "{after}");
}

#[test]
fn a_panic_restores_the_terminal() {
    if !cfg!(debug_assertions) {
        eprintln!("release build: the panic trigger is compiled out, skipping");
        return;
    }
    // Without a backtrace: its length (the frames above the panic) would decide whether the
    // panic's message is still on the pane.
    let env = [("TOOLPRISM_TUI_TEST_PANIC", "1"), ("RUST_BACKTRACE", "0")];
    let Some(t) = Tmux::start("panic", 100, 30, &env) else {
        return;
    };
    assert_eq!(t.wait_exit(), 101, "Rust's panic status");
    assert_eq!(t.modes(), "alt=0 mouse=0");
    let after = t.wait_for("the terminal was restored");
    assert!(after.contains("test panic requested"), "{after}");
}

#[test]
fn export_from_the_tui() {
    let Some(t) = Tmux::start("export", 100, 30, &[]) else {
        return;
    };
    t.wait_for("▼original");
    t.keys(&["2"]);
    t.wait_for("Tools · full");
    t.keys(&["x"]);
    t.wait_for("Export full");
    t.keys(&["Enter"]);
    t.wait_for("exported full request body to");
    let written = std::fs::read_to_string(t.path("sample.full.json")).expect("exported file");
    let body: serde_json::Value = serde_json::from_str(&written).expect("JSON");
    assert!(body.get("messages").is_some());
    // A second export to the same path asks before overwriting.
    t.keys(&["x"]);
    t.wait_for("Export full");
    t.keys(&["Enter"]);
    t.wait_for("Overwrite it?");
    t.keys(&["n", "Escape"]);
    // Tools only, to a typed name.
    t.keys(&["x", "Tab"]);
    t.wait_for("sample.full.tools.json");
    for _ in 0.."sample.full.tools.json".len() {
        t.keys(&["BSpace"]);
    }
    t.literal("mine.json");
    t.keys(&["Enter"]);
    t.wait_for("exported full tools to");
    let tools: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.path("mine.json")).unwrap()).unwrap();
    assert!(tools.is_array());
    t.keys(&["C-c"]);
    assert_eq!(t.wait_exit(), 130, "Ctrl-C: as a shell reports it");
}

#[test]
fn resize_down_and_up_again() {
    let Some(t) = Tmux::start("resize", 120, 35, &[("NO_COLOR", "1")]) else {
        return;
    };
    t.wait_for("▼original");
    t.keys(&["3"]);
    t.wait_for("Tools · progressive");
    t.cmd(&["resize-window", "-t", "t", "-x", "60", "-y", "20"]);
    t.wait("a 60-column layout", |s| {
        s.contains("Tools · progressive") && s.lines().all(|l| l.chars().count() <= 60)
    });
    t.cmd(&["resize-window", "-t", "t", "-x", "30", "-y", "8"]);
    t.wait_for("toolprism needs 40x10");
    t.cmd(&["resize-window", "-t", "t", "-x", "100", "-y", "30"]);
    t.wait_for("Tools · progressive");
    t.keys(&["Escape"]);
    t.wait_for("▼original");
    // Esc on the home screen never quits; q does.
    t.keys(&["Escape"]);
    t.wait_for("this is the home screen · q quits");
    t.keys(&["q"]);
    assert_eq!(t.wait_exit(), 0);
}

/// The inspector's own process (the pane runs it under `sh -c`); `None`, said on standard
/// error, where `ps` is not installed.
fn inspector_pid(t: &Tmux) -> Option<String> {
    let out = t.cmd(&["display-message", "-p", "-t", "t", "#{pane_pid}"]);
    let shell = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let Ok(children) = Command::new("ps")
        .args(["-o", "pid=,comm=", "--ppid", &shell])
        .output()
    else {
        eprintln!("ps not found (procps): skipping the signal test");
        return None;
    };
    let pid = String::from_utf8_lossy(&children.stdout)
        .lines()
        .find(|l| l.contains("toolprism"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no toolprism child of {shell}"))
        .to_owned();
    Some(pid)
}

#[test]
fn sigterm_and_sighup_restore_the_terminal_like_q() {
    for (signal, status) in [("-TERM", 128 + 15), ("-HUP", 128 + 1)] {
        let Some(t) = Tmux::start(&format!("sig{}", &signal[1..]), 100, 30, &[]) else {
            return;
        };
        t.wait_for("▼original");
        assert_eq!(t.modes(), "alt=1 mouse=1");
        let Some(pid) = inspector_pid(&t) else {
            t.keys(&["q"]);
            return;
        };
        let killed = Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(killed.success());
        // Like q, but with the status a shell reports for a command the signal ended.
        assert_eq!(t.wait_exit(), status, "{signal} ends the inspector");
        assert_eq!(t.modes(), "alt=0 mouse=0", "{signal} restores the terminal");
    }
}
