//! Memory within the documented bound whatever the input: what a trace does not use is
//! counted, not kept.

use crate::support::command::output_of;

#[test]
fn ignored_records_are_counted_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("gets.jsonl");
    let first = std::fs::read_to_string(
        crate::support::command::root().join("samples/traces/anthropic-no-cache-control.jsonl"),
    )
    .unwrap();
    let mut text = first.lines().next().unwrap().to_owned();
    text.push('\n');
    let total = 5_000;
    for i in 0..total {
        text.push_str(&format!(
            "{{\"request\":{{\"method\":\"GET\",\"url\":\"https://api.anthropic.com/v1/models?page={i}\",\"headers\":{{}}}},\"response\":{{\"status_code\":200,\"body\":{{}}}}}}\n"
        ));
    }
    std::fs::write(&trace, text).unwrap();
    let path = trace.to_str().unwrap();
    // The reader keeps the first 1,000 and counts every one.
    let mut reader =
        toolprism::trace::open(path, &toolprism::trace::TraceOptions::default()).unwrap();
    assert_eq!(reader.by_ref().filter(Result::is_ok).count(), 1);
    assert_eq!(reader.ignored().len(), toolprism::trace::IGNORED_KEPT);
    assert_eq!(reader.ignored_total(), total);
    // The report says how many, lists the first ones, and the JSON counts them all.
    let out = output_of(&["session", path]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 turn · 1 thread · 5,000 ignored"),
        "{stdout}"
    );
    assert!(
        stdout.contains("… and 4,000 more ignored records, not listed"),
        "{stdout}"
    );
    let out = output_of(&["session", "--json", path]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["trace"]["ignored_total"], total);
    assert_eq!(json["trace"]["ignored"].as_array().unwrap().len(), 1000);
}

#[test]
fn a_file_size_limit_is_one_line_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let capture = crate::support::command::sample("large.json");
    let out = std::process::Command::new("sh")
        .current_dir(dir.path())
        .arg("-c")
        .arg(format!(
            "ulimit -f 8; '{}' export -s full -o out.json '{}'",
            crate::support::command::bin(),
            capture.display()
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Not killed by SIGXFSZ (status 153): the write fails, one line, exit 2.
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("out.json") && stderr.contains("ulimit -f"),
        "{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_missing_temporary_folder_is_named() {
    let trace = crate::support::command::sample("traces/anthropic-no-cache-control.jsonl");
    let out = crate::support::command::toolprism()
        .env("TMPDIR", "/nonexistent-toolprism-tmp")
        .args(["session", trace.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("the temporary folder /nonexistent-toolprism-tmp (from $TMPDIR): no such file or folder; set TMPDIR"),
        "{stderr}"
    );
}
