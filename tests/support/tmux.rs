//! The real binary in a real terminal: tmux, one server socket per test (so tests run in
//! parallel), waiting for screen text instead of sleeping. Without tmux a test fails in CI
//! and says that it skipped elsewhere (`support::tools`).

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use super::command::bin;

/// A detached tmux session of its own server, in a temporary folder that lives as long as it.
pub struct Tmux {
    socket: String,
    dir: tempfile::TempDir,
}

impl Tmux {
    /// `line` run by `sh -c` in a detached `width`x`height` session whose folder holds `files`
    /// (name, content), with `$BIN` standing for the binary; or `None` when tmux is missing.
    ///
    /// The exit status goes to the file `exit-status` (tmux does not always record a dead
    /// pane's status), then the pane stays, so the terminal's state after the program can be
    /// checked.
    pub fn program(
        name: &str,
        (width, height): (u16, u16),
        files: &[(&str, &str)],
        line: &str,
    ) -> Option<Tmux> {
        let line = line.replace("$BIN", &format!("'{}'", bin()));
        let command = format!("{line}; echo $? > exit-status; sleep 120");
        let tmux = Tmux::start(name, (width, height), files, &["sh", "-c", &command])?;
        tmux.cmd(&["set-option", "-t", "t", "remain-on-exit", "on"]);
        Some(tmux)
    }

    /// An interactive bash (no rc files, `$ ` as its prompt) in a detached 110x32 session,
    /// waiting for its first prompt; or `None` when tmux is missing.
    pub fn shell(name: &str) -> Option<Tmux> {
        let bash = [
            "env",
            "PS1=$ ",
            "TERM=xterm-256color",
            "bash",
            "--norc",
            "--noprofile",
            "-i",
        ];
        let tmux = Tmux::start(name, (110, 32), &[], &bash)?;
        tmux.wait("the prompt", |s| s.lines().any(|l| l.starts_with('$')));
        Some(tmux)
    }

    /// `argv` in a new session, in a fresh folder that holds `files` before it starts.
    fn start(
        name: &str,
        (width, height): (u16, u16),
        files: &[(&str, &str)],
        argv: &[&str],
    ) -> Option<Tmux> {
        if !super::tools::present("tmux", &["-V"], name) {
            return None;
        }
        let tmux = Tmux {
            socket: format!("toolprism-{name}-{}", std::process::id()),
            dir: tempfile::tempdir().expect("temp dir"),
        };
        for (file, content) in files {
            std::fs::write(tmux.path(file), content).expect("write the test's file");
        }
        let (width, height) = (width.to_string(), height.to_string());
        let cwd = tmux.dir.path().display().to_string();
        let mut args = vec![
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &width,
            "-y",
            &height,
            "-c",
            &cwd,
            "--",
        ];
        args.extend_from_slice(argv);
        assert!(tmux.cmd(&args).status.success(), "tmux new-session");
        Some(tmux)
    }

    /// A tmux command on this session's server.
    pub fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// The pane's text as it is now.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// Keys by tmux's names (`Enter`, `C-c`, `j`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.cmd(&args);
    }

    /// `text` typed as it is.
    pub fn literal(&self, text: &str) {
        self.cmd(&["send-keys", "-t", "t", "-l", text]);
    }

    /// Type a command line and press Enter.
    pub fn type_line(&self, line: &str) {
        self.literal(line);
        self.keys(&["Enter"]);
    }

    /// Wait until the screen satisfies `ok`, at most `TOOLPRISM_E2E_WAIT_SECS` (60 s unless
    /// set); on a timeout, fail showing the whole screen.
    pub fn wait(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let limit = Duration::from_secs(
            std::env::var("TOOLPRISM_E2E_WAIT_SECS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(60),
        );
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > limit {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Wait until `text` is on the screen.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait(&format!("{text:?}"), |s| s.contains(text))
    }

    /// The exit status [`Tmux::program`]'s line wrote, once it is there (at most 30 s).
    pub fn wait_exit(&self) -> i32 {
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

    /// tmux's `format` expanded for the pane (`#{alternate_on}`, `#{pane_pid}`, ...).
    pub fn display(&self, format: &str) -> String {
        let out = self.cmd(&["display-message", "-p", "-t", "t", format]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// A pane flag (`alternate_on`, `cursor_flag`, `mouse_any_flag`, ...).
    pub fn flag(&self, name: &str) -> String {
        self.display(&format!("#{{{name}}}"))
    }

    /// The process the pane's first process started (the program, under the shell).
    pub fn child_pid(&self) -> u32 {
        let shell = self.flag("pane_pid");
        let start = Instant::now();
        loop {
            let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
                .unwrap_or_default();
            if let Some(pid) = children
                .split_whitespace()
                .next()
                .and_then(|p| p.parse().ok())
            {
                return pid;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no child process"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `name` in the session's folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}
