//! End to end: `toolprism TRACE` in a real terminal (tmux), on its own tmux server socket,
//! waiting for screen text instead of sleeping; without tmux it skips with a message.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const TRACE: &str = include_str!("../samples/traces/claude-code-mcp-reconnect.jsonl");

struct Tmux {
    socket: String,
    _dir: tempfile::TempDir,
    dir: PathBuf,
}

impl Tmux {
    /// Run `command` (with `$BIN` for the binary) in a detached `w`x`h` session whose folder
    /// holds the trace as `trace.jsonl`, or `None` when tmux is missing.
    fn start(name: &str, w: u16, h: u16, command: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("tmux not found: skipping the end-to-end session view test");
            return None;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("trace.jsonl"), TRACE).expect("write the trace");
        let socket = format!("toolprism-session-{name}-{}", std::process::id());
        let command = format!(
            "{}; echo $? > exit-status; sleep 120",
            command.replace("$BIN", &format!("'{}'", env!("CARGO_BIN_EXE_toolprism")))
        );
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

    /// Wait until the screen satisfies `ok`; on a timeout, fail showing the whole screen.
    fn wait(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > Duration::from_secs(20) {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn exit_status(&self) -> Option<String> {
        let path: &Path = &self.dir.join("exit-status");
        std::fs::read_to_string(path)
            .ok()
            .map(|s| s.trim().to_owned())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.cmd(&["kill-server"]);
    }
}

fn journey(tmux: &Tmux) {
    tmux.wait("the session view", |s| {
        s.contains("Session totals") && s.contains("Turns · 9 turns")
    });
    // Down to turn 6, where the cache broke, and open it.
    tmux.keys(&["j", "j", "j", "j", "j"]);
    tmux.wait("turn 6 selected", |s| s.contains("turn 6 of 9"));
    tmux.keys(&["Enter"]);
    let single = tmux.wait("the single-request view", |s| {
        s.contains("turn 6 (line 8)") && s.contains("Matrix")
    });
    // The matrix's name column is too narrow for `mcp__github__add_issue_comment`, so every
    // MCP name shows as `server›tool`.
    assert!(single.contains("github›list_issues"), "{single}");
    tmux.keys(&["Escape"]);
    tmux.wait("back on the session view", |s| {
        s.contains("Session totals") && s.contains("turn 6 of 9")
    });
    tmux.keys(&["q"]);
    let start = Instant::now();
    while tmux.exit_status().is_none() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(tmux.exit_status().as_deref(), Some("0"));
}

#[test]
fn a_trace_opens_on_the_session_view_and_a_turn_opens_and_comes_back() {
    let Some(tmux) = Tmux::start("file", 120, 35, "$BIN trace.jsonl") else {
        return;
    };
    journey(&tmux);
}

#[test]
fn a_piped_trace_works_the_same() {
    let Some(tmux) = Tmux::start("stdin", 120, 35, "cat trace.jsonl | $BIN") else {
        return;
    };
    tmux.wait("the trace named as standard input", |s| {
        s.contains("toolprism · <stdin> · claude-trace")
    });
    journey(&tmux);
}
