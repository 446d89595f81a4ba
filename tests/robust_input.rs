//! Every input bounded before it is read: streams that never end, blank-line and
//! decompression bombs, HAR bodies that inflate, a standard input too large to keep. Each
//! refusal is one line and exit 2, within seconds, in bounded memory (peak RSS measured with
//! `/usr/bin/time` where it is installed), and nothing is left in `$TMPDIR`.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::command::{bin, sample};

/// Run `toolprism ARGS` (under `/usr/bin/time` when there is one) with `feed` writing its
/// standard input until it is done or the pipe closes; the output and the peak RSS in MB.
fn run_fed(
    args: &[&str],
    envs: &[(&str, &Path)],
    feed: impl FnOnce(&mut dyn Write) + Send + 'static,
) -> (Output, Option<u64>) {
    let timed = Path::new("/usr/bin/time").exists();
    let rss = tempfile::NamedTempFile::new().unwrap();
    let mut command = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "%M", "-o"]).arg(rss.path()).arg(bin());
        c
    } else {
        Command::new(bin())
    };
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in envs {
        command.env(key, value);
    }
    let mut child: Child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || feed(&mut stdin));
    let out = child.wait_with_output().unwrap();
    let _ = feeder.join();
    let peak = std::fs::read_to_string(rss.path())
        .ok()
        .and_then(|t| t.lines().last()?.trim().parse::<u64>().ok())
        .map(|kb| kb / 1024);
    (out, peak)
}

/// Write `chunk` over and over, up to `total` bytes (or until the reader leaves).
fn repeat(chunk: &'static [u8], total: u64) -> impl FnOnce(&mut dyn Write) + Send + 'static {
    move |out: &mut dyn Write| {
        let block = chunk.repeat((1 << 16) / chunk.len().max(1));
        let mut sent = 0u64;
        while sent < total {
            if out.write_all(&block).is_err() {
                return;
            }
            sent += block.len() as u64;
        }
    }
}

/// One line on stderr, `toolprism: <stdin>: …` containing `words`, exit 2.
fn assert_refused(out: &Output, words: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stderr: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("toolprism"))
        .collect();
    assert_eq!(out.status.code(), Some(2), "{stderr:?}");
    assert_eq!(stderr.len(), 1, "{stderr:?}");
    assert!(stderr[0].contains(words), "{stderr:?}");
}

#[test]
fn blank_lines_are_not_kept_while_the_format_is_told() {
    let started = Instant::now();
    let (out, peak) = run_fed(&["report", "-"], &[], repeat(b"\n", 256 << 20));
    assert_refused(&out, "<stdin>: empty: no JSON in it");
    assert!(started.elapsed() < Duration::from_secs(60));
    if let Some(peak) = peak {
        assert!(peak < 120, "256 MB of blank lines took {peak} MB");
    }
}

#[test]
fn an_endless_document_stops_at_the_capture_limit() {
    // `(echo '{'; yes ' ') | toolprism report -`
    let feed = |out: &mut dyn Write| {
        let _ = out.write_all(b"{\n");
        repeat(b" \n", u64::MAX)(out);
    };
    let started = Instant::now();
    let (out, peak) = run_fed(&["report", "-"], &[], feed);
    assert_refused(
        &out,
        "<stdin>: too large: more than 67108864 bytes (the limit is 67108864 bytes)",
    );
    assert!(started.elapsed() < Duration::from_secs(60));
    if let Some(peak) = peak {
        assert!(peak < 400, "stopped at the limit with {peak} MB");
    }
}

#[test]
fn a_one_line_capture_stops_at_the_capture_limit() {
    // One endless line of a request body: refused at 64 MiB, not read on to a trace
    // record's 256 MiB.
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = sent.clone();
    let feed = move |out: &mut dyn Write| {
        let _ = out.write_all(br#"{"model":"m","messages":[{"role":"user","content":""#);
        let block = b"x".repeat(1 << 16);
        while out.write_all(&block).is_ok() {
            counted.fetch_add(block.len() as u64, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let started = Instant::now();
    let (out, peak) = run_fed(&["report", "-"], &[], feed);
    assert_refused(
        &out,
        "<stdin>: too large: more than 67108864 bytes (the limit is 67108864 bytes)",
    );
    let sent = sent.load(std::sync::atomic::Ordering::Relaxed);
    // The limit, plus what the pipe and the read buffer (1 MiB) hold.
    assert!(sent < (64 << 20) + (4 << 20), "{sent} bytes read");
    assert!(started.elapsed() < Duration::from_secs(60));
    if let Some(peak) = peak {
        assert!(peak < 400, "stopped at the limit with {peak} MB");
    }
}

#[test]
fn a_decompression_bomb_stops_at_the_ratio_guard() {
    let newlines = vec![b'\n'; 1 << 20];
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut zstd = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    for _ in 0..320 {
        gzip.write_all(&newlines).unwrap();
        zstd.write_all(&newlines).unwrap();
    }
    let gzip = gzip.finish().unwrap();
    let zstd = zstd.finish().unwrap();
    for (name, bomb) in [("gzip", gzip), ("zstd", zstd)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bomb");
        std::fs::write(&path, &bomb).unwrap();
        let started = Instant::now();
        let out = Command::new(bin())
            .args(["session", path.to_str().unwrap()])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(
            stderr.contains("too large decompressed") && stderr.contains("bomb"),
            "{name}: {stderr}"
        );
        assert!(started.elapsed() < Duration::from_secs(30), "{name}");
    }
}

/// A HAR whose responses are each a gzip bomb of 300 MB: the usage scan reads a few MB of
/// each, not 256 MiB.
#[test]
fn har_response_bodies_are_not_inflated_to_find_usage() {
    use base64::Engine as _;
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..300 {
        gzip.write_all(&zeros).unwrap();
    }
    let bomb = base64::engine::general_purpose::STANDARD.encode(gzip.finish().unwrap());
    let body = r#"{"model":"claude-x","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"tools":[]}"#;
    let entries: Vec<serde_json::Value> = (0..4)
        .map(|i| {
            serde_json::json!({
                "startedDateTime": format!("2026-01-01T00:{:02}:{:02}Z", i / 60, i % 60),
                "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
                            "headers": [], "postData": {"mimeType": "application/json", "text": body}},
                "response": {"status": 200, "headers": [],
                             "content": {"mimeType": "application/json", "encoding": "base64", "text": bomb}}
            })
        })
        .collect();
    let har = serde_json::json!({"log": {"version": "1.2", "entries": entries}});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bombs.har");
    std::fs::write(&path, serde_json::to_vec(&har).unwrap()).unwrap();
    let started = Instant::now();
    let out = Command::new(bin())
        .args(["session", path.to_str().unwrap(), "--json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let elapsed = started.elapsed();
    // Each body was inflated up to 256 MiB and scanned whole before: over 10 s each.
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

#[test]
fn standard_input_is_spooled_within_a_limit_and_never_left_behind() {
    let tmp = tempfile::tempdir().unwrap();
    // `yes '{}' | toolprism`, with a 1 MB spool limit.
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"yes '{}' | TOOLPRISM_SPOOL_LIMIT=1000000 "$TP""#)
        .env("TP", bin())
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_refused(
        &out,
        "<stdin>: too large to keep a copy to read: more than 1000000 bytes",
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    // SIGTERM while the copy is made: nothing in $TMPDIR, during the copy or after.
    let mut child = Command::new(bin())
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let block = b"{}\n".repeat(1 << 16);
    for _ in 0..200 {
        stdin.write_all(&block).unwrap();
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "the spool has a name in $TMPDIR"
    );
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    drop(stdin);
    let _ = child.wait();
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn a_capture_path_that_is_not_utf8_is_read() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"cap-\xff\x1b.json");
    let path = dir.path().join(name);
    let sample = sample("small.json");
    std::fs::copy(&sample, &path).unwrap();
    for args in [
        vec!["report"],
        vec!["session"],
        vec!["show", "-s", "minimal"],
    ] {
        let out = Command::new(bin())
            .args(&args[..1])
            .arg(&path)
            .args(&args[1..])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!stdout.is_empty());
        // Named with U+FFFD, its ESC shown (never raw).
        assert!(!stdout.contains('\u{1b}'), "{args:?}: {stdout}");
    }
    // A folder holding it is read too.
    let out = Command::new(bin())
        .arg("session")
        .arg(dir.path())
        .arg("--json")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\"cap-\u{fffd}\\u001b.json\""), "{stdout}");
}
