//! The programs some tests drive besides the binary: tmux, `script` (a pseudo-terminal) and
//! `mkfifo`. CI installs them (`.ci/run`), so there a missing one fails the test instead of
//! letting it pass without running; elsewhere the test says on its output that it skipped.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Whether `program` runs (probed with `probe` as its arguments). Missing under `CI`: a panic
/// that names it; missing elsewhere: a line saying that `test` skipped, and `false`.
pub fn present(program: &str, probe: &[&str], test: &str) -> bool {
    let runs = Command::new(program)
        .args(probe)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        assert!(
            std::env::var_os("CI").is_none(),
            "{program} is missing: CI must install it (.ci/run), {test} cannot run without it"
        );
        eprintln!("SKIPPED {test}: {program} is not installed");
    }
    runs
}

/// Makes a named pipe at `path`, or `false` (after `present`'s rules) where `mkfifo` is missing.
pub fn mkfifo(path: &Path, test: &str) -> bool {
    if !present("mkfifo", &["--version"], test) {
        return false;
    }
    let made = Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
    true
}

/// Runs the shell command `line` under a pseudo-terminal (`script -qec`, the command's exit
/// status passed on) in `dir`, with `env` set and `unset` removed, standard input closed.
/// `None` (after `present`'s rules) where `script` is missing. The terminal's CR LF stay as
/// they are: some tests look at them.
pub fn in_pty(
    line: &str,
    dir: &Path,
    env: &[(&str, &str)],
    unset: &[&str],
    test: &str,
) -> Option<Output> {
    if !present("script", &["-qc", "true", "/dev/null"], test) {
        return None;
    }
    let mut command = Command::new("script");
    command
        .args(["-qec", line, "/dev/null"])
        .current_dir(dir)
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    for key in unset {
        command.env_remove(key);
    }
    Some(command.output().expect("run script"))
}

/// A shell word for `arg`, single-quoted.
pub fn shell_quote(arg: &str) -> String {
    format!("'{}'", arg.replace('\'', "'\\''"))
}
