//! Running the `toolprism` binary and reading what it printed.

use std::path::PathBuf;
use std::process::{Output, Stdio};

use assert_cmd::Command;

/// The binary cargo built for these tests.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_toolprism")
}

/// The package's root: where `samples/` and `README.md` are.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `name` under `samples/`.
pub fn sample(name: &str) -> PathBuf {
    root().join("samples").join(name)
}

/// The binary, run from the package's root, with neither `NO_COLOR` nor `COLUMNS` from the
/// environment the tests run in: output depends only on what a test sets.
pub fn toolprism() -> Command {
    let mut cmd = Command::cargo_bin("toolprism").expect("the binary is built");
    cmd.current_dir(root())
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS");
    cmd
}

/// Standard output and standard error of `toolprism ARGS`, which must succeed.
pub fn run_ok(args: &[&str]) -> (String, String) {
    let out = toolprism()
        .args(args)
        .assert()
        .success()
        .get_output()
        .clone();
    (
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

/// Standard output of `toolprism ARGS`, which must succeed.
pub fn stdout_of(args: &[&str]) -> String {
    run_ok(args).0
}

/// Exit 2, nothing on standard output and exactly one `toolprism: ...` line on standard
/// error: the contract's failure. The line.
pub fn one_line_failure(cmd: &mut Command) -> String {
    let out = cmd.assert().code(2).get_output().clone();
    assert!(out.stdout.is_empty(), "nothing on stdout on failure");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr:?}");
    assert!(stderr.starts_with("toolprism: "), "{stderr:?}");
    stderr.trim_end().to_owned()
}

/// [`one_line_failure`] of `toolprism ARGS`.
pub fn fails_with(args: &[&str]) -> String {
    one_line_failure(toolprism().args(args))
}

/// `toolprism ARGS` with standard input closed, whatever its exit.
pub fn output_of(args: &[&str]) -> Output {
    std::process::Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .output()
        .expect("run toolprism")
}

/// Calls `step` every 50 ms until `child` exits, and gives its status; past `within` it kills
/// and reaps the child (never left behind, even when the test fails) and panics naming `what`.
pub fn step_until_exit(
    child: &mut std::process::Child,
    within: std::time::Duration,
    what: &str,
    mut step: impl FnMut(),
) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + within;
    loop {
        step();
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
