//! One writer, one set of rules: the interactive view's export dialog and `toolprism export`
//! go through `toolprism::export::export`, so every target below is tried through both, and
//! both must agree: a device or a named pipe is written through and stays what it was; an
//! input (the capture, a file inside a folder trace, the file standard input is redirected
//! from) is refused even when overwriting was confirmed or `--force` given.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use toolprism::capture::Capture;
use toolprism::export::Inputs;
use toolprism::tui::{App, WriteError, write_export};

use crate::support::command::{bin, output_of, sample};

/// What the view writes for the sample: any JSON does, the rules are about the target.
const BODY: &[u8] = b"{\"tools\":[]}\n";

/// The view's export of `input` to `target`, overwriting confirmed, with the inputs the view
/// knows (`App::inputs`, filled the way `tui::run` fills it).
fn view_export(input: &Path, target: &Path) -> Result<std::path::PathBuf, WriteError> {
    let capture = Capture::from_file(input).unwrap();
    let mut app = App::new(
        Arc::new(capture),
        input.to_string_lossy().into_owned(),
        toolprism::Settings::default(),
        toolprism::measure::Encoding::O200kBase,
        false,
    );
    app.ctx.inputs.add(input);
    write_export(target, BODY, true, &app.ctx.inputs)
}

fn is_char_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

#[test]
fn a_device_behind_a_name_is_written_through_by_both() {
    let dir = tempfile::tempdir().unwrap();
    // A link to /dev/null stands for any device: renaming over it would replace the link, and
    // `mknod` (as root) makes a device the rename would replace outright.
    let link = dir.path().join("null-link");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    let made = dir.path().join("null-node");
    let mknod = Command::new("mknod")
        .arg(&made)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    let capture = sample("small.json");
    let mut targets = vec![link.clone()];
    if mknod {
        targets.push(made.clone());
    }
    for target in &targets {
        view_export(&capture, target).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(is_char_device(target), "{} was replaced", target.display());
        let out = output_of(&[
            "export",
            "-s",
            "minimal",
            capture.to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
            "--force",
        ]);
        assert!(out.status.success(), "{out:?}");
        assert!(is_char_device(target), "{} was replaced", target.display());
    }
    assert!(is_char_device(Path::new("/dev/null")));
    // Nothing else in the folder: no temporary file left beside the targets.
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        targets.len()
    );
}

#[test]
fn a_named_pipe_stays_a_pipe_and_the_view_never_waits_for_a_reader() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let capture = sample("small.json");
    // No reader: the view says so at once instead of hanging its terminal.
    let started = std::time::Instant::now();
    let Err(WriteError::Failed(message)) = view_export(&capture, &fifo) else {
        panic!("a pipe without a reader is an error in the view");
    };
    assert!(message.contains("no reader"), "{message}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    // With a reader: the bytes go through the pipe, which stays a pipe.
    let reader = Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader opens the pipe when it is scheduled: retry while it has not yet.
    let mut result = view_export(&capture, &fifo);
    for _ in 0..200 {
        if result.is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        result = view_export(&capture, &fifo);
    }
    result.unwrap();
    let got = reader.wait_with_output().unwrap().stdout;
    assert_eq!(got, BODY);
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[test]
fn the_input_is_refused_by_both_even_when_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("cap.json");
    std::fs::copy(sample("small.json"), &capture).unwrap();
    let before = std::fs::read(&capture).unwrap();
    let Err(WriteError::Failed(message)) = view_export(&capture, &capture) else {
        panic!("the view wrote over its own input");
    };
    assert!(message.contains("is an input"), "{message}");
    assert_eq!(std::fs::read(&capture).unwrap(), before);
    // Through a link to it, too.
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&capture, &link).unwrap();
    assert!(view_export(&capture, &link).is_err());
    assert_eq!(std::fs::read(&capture).unwrap(), before);
}

#[test]
fn standard_input_is_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("cap.json");
    std::fs::copy(sample("small.json"), &capture).unwrap();
    let before = std::fs::read(&capture).unwrap();
    let out = Command::new(bin())
        .args([
            "export",
            "-s",
            "minimal",
            "-o",
            capture.to_str().unwrap(),
            "--force",
            "-",
        ])
        .stdin(std::fs::File::open(&capture).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is an input"), "{stderr}");
    assert_eq!(std::fs::read(&capture).unwrap(), before);
}

#[test]
fn nothing_is_written_inside_a_folder_trace() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("tf");
    std::fs::create_dir(&folder).unwrap();
    let body = std::fs::read(sample("small.json")).unwrap();
    std::fs::write(folder.join("1.json"), &body).unwrap();
    std::fs::write(folder.join("2.json"), &body).unwrap();
    let target = folder.join("3.json");
    let out = output_of(&[
        "export",
        "-s",
        "minimal",
        "-o",
        target.to_str().unwrap(),
        folder.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is an input"), "{stderr}");
    assert!(!target.exists(), "a turn was added to the input");
    // The view of a turn of that folder refuses it as well.
    let mut inputs = Inputs::new();
    inputs.add(&folder);
    assert!(write_export(&target, BODY, true, &inputs).is_err());
    assert!(!target.exists());
    // Beside the folder is fine.
    assert!(write_export(&dir.path().join("3.json"), BODY, false, &inputs).is_ok());
}

#[test]
fn a_closed_standard_output_named_by_path_is_an_error() {
    let capture = sample("small.json");
    for (target, redirect, which) in [
        ("/dev/stdout", ">&-", "standard output"),
        ("/dev/fd/1", ">&-", "standard output"),
        ("/proc/self/fd/1", ">&-", "standard output"),
        ("/dev/stderr", "2>&-", "standard error"),
    ] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "'{}' export -s minimal -o {target} '{}' {redirect}",
                bin(),
                capture.display()
            ))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{target} {redirect}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if redirect == ">&-" {
            assert_eq!(
                stderr,
                format!("toolprism: {target}: {which} is closed; nothing written\n")
            );
        }
    }
    // Open, the same targets are written.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' export -s minimal -o /dev/stdout '{}' > /dev/null",
            bin(),
            capture.display()
        ))
        .output()
        .unwrap();
    assert!(out.status.success());
}

#[test]
fn force_through_a_link_replaces_the_file_it_points_to_and_keeps_modes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    std::fs::write(&real, "old").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o664)).unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 022; '{}' export -s minimal -o '{}' --force '{}'",
            bin(),
            link.display(),
            sample("small.json").display()
        ))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // The link is still a link, to a file that now holds the export, with its mode.
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_ne!(std::fs::read(&real).unwrap(), b"old");
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode, 0o664,
        "the replaced file keeps its mode whatever the umask"
    );
    // The view does the same through the one writer.
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o660)).unwrap();
    write_export(&link, BODY, true, &Inputs::new()).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&real).unwrap(), BODY);
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o660
    );
}

#[test]
fn stored_entries_are_ordinary_files() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // The lean-ctx sample (its expand tool makes `shorten` store) with a tool whose long
    // description it stores.
    let mut body: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sample("leanctx-chat.json")).unwrap()).unwrap();
    body["tools"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"type": "function",
        "function": {"name": "long", "parameters": {"type": "object"},
        "description": "Does a long thing. ".repeat(120)}}));
    let capture = dir.path().join("long.json");
    std::fs::write(&capture, serde_json::to_vec(&body).unwrap()).unwrap();
    let store = dir.path().join("store");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 022; '{}' export -s shorten -o '{}' --store '{}' '{}'",
            bin(),
            dir.path().join("out.json").display(),
            store.display(),
            capture.display()
        ))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let entries: Vec<_> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!entries.is_empty());
    for entry in entries {
        let mode = std::fs::metadata(&entry).unwrap().permissions().mode() & 0o777;
        // 0666 less the umask, as any file the user makes: not tempfile's private 0600.
        assert_eq!(mode, 0o644, "{}", entry.display());
    }
}
