//! Nothing lost: `export` never leaves a partial or clobbered file, never replaces a device or
//! a pipe, and never writes to the capture, whatever happens to the target: a full disk, a
//! read-only folder, a folder that disappears, a closed pipe, a signal in the middle of a write.
//!
//! Mounts (a tiny tmpfs, a read-only tmpfs) need root; where `mount` fails the test says so and
//! skips. Devices are made with `mknod` inside the test's own folder, never the system's.

use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::command::{bin, output_of, sample};

/// A failure as the contract wants it: exit 2, one line on stderr naming `path`, no panic.
fn assert_one_line_failure(out: &Output, path: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr:?}");
    assert!(stderr.starts_with("toolprism: "), "{stderr:?}");
    // A folder that cannot take the file is named as the folder (`cannot write in DIR/: ...`).
    let folder = Path::new(path)
        .parent()
        .map(|p| format!("{}/", p.display()))
        .unwrap_or_default();
    assert!(
        stderr.contains(path) || (!folder.is_empty() && stderr.contains(&folder)),
        "the line names {path} or its folder: {stderr:?}"
    );
    assert!(!stderr.contains("panicked"), "{stderr:?}");
}

/// Names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(std::result::Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// What `show` prints for the sample under `full`: what a successful export must write.
fn expected_full() -> Vec<u8> {
    let out = output_of(&[
        "show",
        sample("large.json").to_str().unwrap_or_default(),
        "-s",
        "full",
    ]);
    assert!(out.status.success());
    out.stdout
}

/// A mounted tmpfs, unmounted on drop; `None` (with a message) where mounting is not allowed.
struct Mount {
    dir: tempfile::TempDir,
}

impl Mount {
    fn tmpfs(options: &str) -> Option<Mount> {
        let dir = tempfile::tempdir().ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("cannot mount a tmpfs here (needs root): skipping");
            return None;
        }
        Some(Mount { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_full_device_is_neither_replaced_nor_reported_as_success() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    let made = Command::new("mknod")
        .arg(&full)
        .args(["c", "1", "7"])
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("mknod is not allowed here: skipping");
        return;
    }
    let target = full.to_str().unwrap();
    let capture = sample("large.json");
    for force in [false, true] {
        let mut args = vec![
            "export",
            capture.to_str().unwrap(),
            "-s",
            "full",
            "-o",
            target,
        ];
        if force {
            args.push("--force");
        }
        let out = output_of(&args);
        assert_one_line_failure(&out, target);
        let kind = std::fs::symlink_metadata(&full).unwrap().file_type();
        assert!(
            kind.is_char_device(),
            "force={force}: the device was replaced"
        );
        assert_eq!(names(dir.path()), vec!["full"], "no temporary file left");
    }
}

#[test]
fn the_system_dev_full_reports_the_failure() {
    // No --force: whatever the design, the real /dev/full must never be renamed over.
    let out = output_of(&[
        "export",
        sample("large.json").to_str().unwrap(),
        "-s",
        "full",
        "-o",
        "/dev/full",
    ]);
    assert_one_line_failure(&out, "/dev/full");
    let kind = std::fs::metadata("/dev/full").unwrap().file_type();
    assert!(kind.is_char_device());
}

#[test]
fn a_device_target_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let null = dir.path().join("null");
    if !Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("mknod is not allowed here: skipping");
        return;
    }
    let target = null.to_str().unwrap();
    let out = output_of(&[
        "export",
        sample("large.json").to_str().unwrap(),
        "-s",
        "full",
        "-o",
        target,
        "--force",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::symlink_metadata(&null)
            .unwrap()
            .file_type()
            .is_char_device(),
        "the device was replaced by a file"
    );
    assert_eq!(names(dir.path()), vec!["null"]);
}

#[test]
fn a_fifo_target_gets_the_whole_export_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    // The reader is a process, so it can be killed if the FIFO is replaced under it.
    let mut reader = Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = output_of(&[
        "export",
        sample("large.json").to_str().unwrap(),
        "-s",
        "full",
        "-o",
        fifo.to_str().unwrap(),
        "--force",
    ]);
    if wait_timeout(&mut reader, Duration::from_secs(10)).is_none() {
        let _ = reader.kill();
    }
    let got = reader.wait_with_output().unwrap().stdout;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "the FIFO was replaced by a file"
    );
    assert_eq!(got, expected_full());
    assert_eq!(names(dir.path()), vec!["pipe"]);
}

#[test]
fn a_full_filesystem_leaves_nothing_behind_and_keeps_the_old_file() {
    let Some(mount) = Mount::tmpfs("size=16k") else {
        return;
    };
    let target = mount.path().join("out.json");
    let name = target.to_str().unwrap();
    // No old file: nothing at all afterwards.
    let out = output_of(&[
        "export",
        sample("large.json").to_str().unwrap(),
        "-s",
        "full",
        "-o",
        name,
    ]);
    assert_one_line_failure(&out, name);
    assert!(names(mount.path()).is_empty(), "{:?}", names(mount.path()));
    // An old file: kept byte for byte.
    std::fs::write(&target, b"old content\n").unwrap();
    let out = output_of(&[
        "export",
        sample("large.json").to_str().unwrap(),
        "-s",
        "full",
        "-o",
        name,
        "--force",
    ]);
    assert_one_line_failure(&out, name);
    assert_eq!(std::fs::read(&target).unwrap(), b"old content\n");
    assert_eq!(names(mount.path()), vec!["out.json"]);
}

#[test]
fn a_read_only_folder_is_refused_cleanly() {
    let Some(mount) = Mount::tmpfs("size=1m,ro") else {
        return;
    };
    let target = mount.path().join("out.json");
    let name = target.to_str().unwrap();
    let out = output_of(&[
        "export",
        sample("large.json").to_str().unwrap(),
        "-s",
        "full",
        "-o",
        name,
        "--force",
    ]);
    assert_one_line_failure(&out, name);
    assert!(names(mount.path()).is_empty());
}

#[test]
fn a_missing_folder_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("gone/out.json");
    let name = target.to_str().unwrap();
    let out = output_of(&[
        "export",
        sample("large.json").to_str().unwrap(),
        "-s",
        "full",
        "-o",
        name,
    ]);
    assert_one_line_failure(&out, name);
    assert!(names(dir.path()).is_empty());
}

#[test]
fn a_folder_that_disappears_during_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("out");
    std::fs::create_dir(&folder).unwrap();
    let target = folder.join("out.json");
    let name = target.to_str().unwrap().to_owned();
    // The capture comes on standard input, so the run waits for it: the folder goes away
    // after the command started and before it writes.
    let mut child = Command::new(bin())
        .args(["export", "-", "-s", "full", "-o", &name])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    std::fs::remove_dir(&folder).unwrap();
    let capture = std::fs::read(sample("large.json")).unwrap();
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(&capture);
    }
    let out = child.wait_with_output().unwrap();
    assert_one_line_failure(&out, &name);
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
}

#[test]
fn a_closed_pipe_on_standard_output_is_not_a_crash() {
    for args in [
        vec!["export", "-s", "full", "-o", "-"],
        vec!["show", "-s", "full"],
        vec!["report", "--json"],
        vec!["report", "--per-tool"],
        vec!["diff", "-s", "minimal"],
    ] {
        let mut child = Command::new(bin())
            .args(&args)
            .arg(sample("large.json"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before anything is read.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 2)),
            "{args:?}: {:?} {stderr}",
            out.status
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.lines().count() <= 1, "{args:?}: {stderr}");
    }
}

#[test]
fn a_fifo_whose_reader_leaves_is_a_one_line_failure() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let big = big_capture(dir.path(), 4 << 20);
    // A reader that opens the pipe, reads one byte and leaves (a process, so it can be killed
    // if the FIFO is replaced under it).
    let mut reader = Command::new("head")
        .args(["-c", "1"])
        .arg(&fifo)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let name = fifo.to_str().unwrap();
    let mut child = Command::new(bin())
        .args([
            "export",
            big.to_str().unwrap(),
            "-s",
            "original",
            "-o",
            name,
        ])
        .arg("--force")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_timeout(&mut child, Duration::from_secs(60));
    if status.is_none() {
        let _ = child.kill();
    }
    if wait_timeout(&mut reader, Duration::from_secs(5)).is_none() {
        let _ = reader.kill();
    }
    let _ = reader.wait();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(status.is_some(), "export hung on a FIFO without a reader");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "the FIFO was replaced"
    );
    assert_eq!(names(dir.path()), vec!["big.json", "pipe"]);
}

fn wait_timeout(
    child: &mut std::process::Child,
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// A capture of about `size` bytes: one tool with a long description.
fn big_capture(dir: &Path, size: usize) -> PathBuf {
    let description = "All work and no play makes a long description. ".repeat(size / 48 + 1);
    let body = serde_json::json!({
        "model": "m",
        "max_tokens": 1,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "big", "description": description,
                   "input_schema": {"type": "object"}}]
    });
    let path = dir.join("big.json");
    std::fs::write(&path, serde_json::to_vec(&body).unwrap()).unwrap();
    path
}

/// A signal while the temporary file is being written: the old target survives (or the new
/// one is complete), and no temporary file is left.
fn interrupted(signal: &str) {
    let dir = tempfile::tempdir().unwrap();
    let big = big_capture(dir.path(), 24 << 20);
    let target = dir.path().join("out.json");
    std::fs::write(&target, b"old\n").unwrap();
    let before = std::fs::read(&big).unwrap();
    let mut child = Command::new(bin())
        .args([
            "export",
            big.to_str().unwrap(),
            "-s",
            "original",
            "--pretty",
        ])
        .args(["-o", target.to_str().unwrap(), "--force"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the temporary file exists, then interrupt.
    let start = Instant::now();
    let mut saw_temp = false;
    while start.elapsed() < Duration::from_secs(60) {
        if names(dir.path()).len() > 2 {
            saw_temp = true;
            break;
        }
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status();
    let status = wait_timeout(&mut child, Duration::from_secs(30));
    if status.is_none() {
        let _ = child.kill();
    }
    assert!(status.is_some(), "{signal}: the export did not end");
    let now = std::fs::read(&target).unwrap();
    assert!(
        now == b"old\n" || now.len() > 24 << 20,
        "{signal}: target is neither the old file nor a complete export ({} bytes)",
        now.len()
    );
    assert_eq!(
        names(dir.path()),
        vec!["big.json", "out.json"],
        "{signal}: a temporary file was left (seen while writing: {saw_temp})"
    );
    assert_eq!(
        std::fs::read(&big).unwrap(),
        before,
        "the capture was written to"
    );
}

#[test]
fn sigint_during_the_write_loses_nothing() {
    interrupted("INT");
}

#[test]
fn sigterm_during_the_write_loses_nothing() {
    interrupted("TERM");
}

#[test]
fn the_capture_is_never_written_to() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("capture.json");
    std::fs::copy(sample("large.json"), &capture).unwrap();
    let before = std::fs::read(&capture).unwrap();
    let modified = std::fs::metadata(&capture).unwrap().modified().unwrap();
    let name = capture.to_str().unwrap();
    // Exporting onto the capture itself, with and without --force: refused or written
    // atomically, but never a truncated capture.
    let out = output_of(&["export", name, "-s", "minimal", "-o", name]);
    assert_one_line_failure(&out, name);
    assert_eq!(std::fs::read(&capture).unwrap(), before);
    for args in [
        vec!["report", name],
        vec!["report", name, "--json"],
        vec!["show", name, "-s", "full"],
        vec!["diff", name, "-s", "full"],
    ] {
        assert!(output_of(&args).status.success(), "{args:?}");
    }
    let store = dir.path().join("store");
    let out_path = dir.path().join("out.json");
    let out = output_of(&[
        "export",
        name,
        "-s",
        "shorten",
        "-o",
        out_path.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert_eq!(std::fs::read(&capture).unwrap(), before);
    assert_eq!(
        std::fs::metadata(&capture).unwrap().modified().unwrap(),
        modified
    );
}

#[test]
fn sighup_during_the_write_loses_nothing() {
    interrupted("HUP");
}

#[test]
fn sigquit_during_the_write_loses_nothing() {
    interrupted("QUIT");
}

/// `sh -c SCRIPT` in `dir`, `$TP` the binary and `$CAP` the sample.
fn shell(dir: &Path, script: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("TP", bin())
        .env("CAP", sample("large.json"))
        .stdin(Stdio::null())
        .output()
        .expect("run sh")
}

fn the_export() -> Vec<u8> {
    let out = output_of(&[
        "show",
        sample("large.json").to_str().unwrap(),
        "-s",
        "minimal",
    ]);
    assert!(out.status.success());
    out.stdout
}

#[test]
fn a_descriptor_target_is_written_as_it_is_open() {
    let dir = tempfile::tempdir().unwrap();
    let export = the_export();
    let mut appended = b"old log line\n".to_vec();
    appended.extend_from_slice(&export);
    // `>> log`, through /dev/stdout: appended, the log kept.
    std::fs::write(dir.path().join("log"), b"old log line\n").unwrap();
    let out = shell(
        dir.path(),
        r#""$TP" export "$CAP" -s minimal -q -o /dev/stdout >> log"#,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(dir.path().join("log")).unwrap(), appended);
    // `3>>p.json`, through /dev/fd/3 and /proc/self/fd/3: appended too.
    for path in ["/dev/fd/3", "/proc/self/fd/3"] {
        std::fs::write(dir.path().join("p.json"), b"old log line\n").unwrap();
        let script = format!(r#""$TP" export "$CAP" -s minimal -q -o {path} 3>>p.json"#);
        let out = shell(dir.path(), &script);
        assert!(
            out.status.success(),
            "{path}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read(dir.path().join("p.json")).unwrap(),
            appended,
            "{path}"
        );
    }
    // `3<>file` on a longer file: refused (a stale tail, or bytes lost), the file as it was;
    // with --force, exactly the export.
    let long = vec![b'x'; export.len() * 2];
    std::fs::write(dir.path().join("rw"), &long).unwrap();
    let out = shell(
        dir.path(),
        r#""$TP" export "$CAP" -s minimal -q -o /dev/fd/3 3<>rw"#,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(std::fs::read(dir.path().join("rw")).unwrap(), long);
    let out = shell(
        dir.path(),
        r#""$TP" export "$CAP" -s minimal -q --force -o /dev/fd/3 3<>rw"#,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(dir.path().join("rw")).unwrap(), export);
    // `> new` (truncated by the shell): written through.
    let out = shell(
        dir.path(),
        r#""$TP" export "$CAP" -s minimal -q -o /dev/stdout > fresh"#,
    );
    assert!(out.status.success());
    assert_eq!(std::fs::read(dir.path().join("fresh")).unwrap(), export);
}

#[test]
fn a_closed_standard_output_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = shell(dir.path(), r#""$TP" export "$CAP" -s minimal -o - >&-"#);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("standard output is closed"), "{stderr}");
    // `> /dev/null` is not closed.
    let out = shell(
        dir.path(),
        r#""$TP" export "$CAP" -s minimal -o - > /dev/null"#,
    );
    assert!(out.status.success());
}

#[test]
fn a_long_target_name_fits_its_temporary_file_too() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}.json", "n".repeat(245));
    assert_eq!(name.len(), 250);
    let target = dir.path().join(&name);
    let out = output_of(&[
        "export",
        sample("large.json").to_str().unwrap(),
        "-s",
        "minimal",
        "-q",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&target).unwrap(), the_export());
    assert_eq!(names(dir.path()), vec![name]);
}

#[test]
fn the_store_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // The lean-ctx sample (its expand tool makes `shorten` store), with six more tools whose
    // descriptions it stores.
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/leanctx-chat.json");
    let mut body: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sample).unwrap()).unwrap();
    let tools = body["tools"].as_array_mut().unwrap();
    for i in 0..6 {
        tools.push(serde_json::json!({"type": "function", "function": {
            "name": format!("tool_{i}"),
            "description": format!("Tool {i}. {}", "Does a long thing. ".repeat(120)),
            "parameters": {"type": "object"}}}));
    }
    let capture = dir.path().join("long.json");
    std::fs::write(&capture, serde_json::to_vec(&body).unwrap()).unwrap();
    let store = dir.path().join("store");
    let out_path = dir.path().join("out.json");
    let export = |store: &Path, out: &Path| {
        output_of(&[
            "export",
            capture.to_str().unwrap(),
            "-s",
            "shorten",
            "-q",
            "-o",
            out.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ])
    };
    // A full run, to learn the handles.
    let out = export(&store, &out_path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let handles = names(&store);
    assert!(handles.len() > 2, "{handles:?}");
    // The handle written last taken by other bytes: refused, and none of the others written
    // (entry by entry, all the others were in place before the refusal).
    let second = dir.path().join("second");
    std::fs::create_dir(&second).unwrap();
    let modified = |h: &String| {
        std::fs::metadata(store.join(h))
            .unwrap()
            .modified()
            .unwrap()
    };
    let taken = handles.iter().max_by_key(|h| modified(h)).unwrap();
    std::fs::write(second.join(taken), b"other").unwrap();
    let out = export(&second, &dir.path().join("out2.json"));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(names(&second), vec![taken.clone()], "a partial store");
    assert!(!dir.path().join("out2.json").exists());
    // The export itself failing (a missing folder): the store it had written is taken back.
    let third = dir.path().join("third");
    let out = export(&third, &dir.path().join("missing/out.json"));
    assert_eq!(out.status.code(), Some(2));
    assert!(!third.exists(), "{:?}", names(&third));
}

#[test]
fn an_input_is_never_written_over_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("capture.json");
    std::fs::copy(sample("large.json"), &capture).unwrap();
    let before = std::fs::read(&capture).unwrap();
    let name = capture.to_str().unwrap();
    let out = output_of(&["export", name, "-s", "minimal", "-o", name, "--force"]);
    assert_one_line_failure(&out, name);
    assert!(String::from_utf8_lossy(&out.stderr).contains("input"));
    assert_eq!(std::fs::read(&capture).unwrap(), before);
    // Through another name (a symlink) too.
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&capture, &link).unwrap();
    let out = output_of(&[
        "export",
        name,
        "-s",
        "minimal",
        "-o",
        link.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&capture).unwrap(), before);
}
