//! `session::pick_turn`: the request a single-request command works on, numbered as
//! `toolprism session` numbers turns.

use serde_json::{Value, json};
use toolprism::session::pick::{TurnChoice, pick_turn};
use toolprism::trace::{TraceFormat, TraceOptions};

fn body(user: &str, tools: &[&str]) -> Value {
    let tools: Vec<Value> = tools
        .iter()
        .map(|name| json!({"name": name, "description": format!("{name} things"), "input_schema": {"type": "object"}}))
        .collect();
    json!({
        "model": "claude-x",
        "system": "you help",
        "metadata": {"user_id": user},
        "messages": [{"role": "user", "content": "hi"}],
        "tools": tools,
    })
}

fn trace(lines: &[String]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (dir, path.to_string_lossy().into_owned())
}

fn names(capture: &toolprism::Capture) -> Vec<String> {
    capture
        .tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Two threads interleaved: a, b, a, b, a.
fn two_threads() -> (tempfile::TempDir, String) {
    trace(&[
        body("a", &["one"]).to_string(),
        body("b", &["x"]).to_string(),
        body("a", &["one", "two"]).to_string(),
        body("b", &["x", "y"]).to_string(),
        body("a", &["one", "two", "three"]).to_string(),
    ])
}

#[test]
fn the_last_turn_by_default_with_the_previous_of_its_thread() {
    let (_dir, path) = two_threads();
    let picked = pick_turn(&path, TurnChoice::Last, &TraceOptions::default()).unwrap();
    assert_eq!(picked.turn, 5);
    assert_eq!(picked.turns_read, 5);
    assert_eq!(picked.source, "line 5");
    assert_eq!(picked.format, TraceFormat::BareJsonl);
    assert_eq!(names(&picked.capture), ["one", "two", "three"]);
    assert_eq!(picked.label("t.jsonl"), "t.jsonl turn 5 (line 5)");
    let (turn, previous) = picked.previous.unwrap();
    assert_eq!(turn, 3);
    assert_eq!(names(&previous), ["one", "two"]);
}

#[test]
fn a_numbered_turn_and_its_thread() {
    let (_dir, path) = two_threads();
    let picked = pick_turn(&path, TurnChoice::Number(4), &TraceOptions::default()).unwrap();
    assert_eq!((picked.turn, picked.turns_read), (4, 4));
    assert_eq!(names(&picked.capture), ["x", "y"]);
    let (turn, previous) = picked.previous.unwrap();
    assert_eq!((turn, names(&previous)), (2, vec!["x".to_owned()]));
    // The first turn of a thread has nothing before it.
    let picked = pick_turn(&path, TurnChoice::Number(2), &TraceOptions::default()).unwrap();
    assert!(picked.previous.is_none());
}

#[test]
fn turns_that_are_not_there_are_one_line_naming_the_file() {
    let (_dir, path) = two_threads();
    let error = pick_turn(&path, TurnChoice::Number(9), &TraceOptions::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{path}: no turn 9: the trace has 5 turns")
    );
    let error = pick_turn(&path, TurnChoice::Number(0), &TraceOptions::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{path}: turns are numbered from 1")
    );
}

#[test]
fn a_bad_body_stops_or_is_skipped_and_not_counted() {
    let (_dir, path) = trace(&[
        body("a", &["one"]).to_string(),
        json!({"hello": 1}).to_string(),
        body("a", &["one", "two"]).to_string(),
    ]);
    let error = pick_turn(&path, TurnChoice::Last, &TraceOptions::default()).unwrap_err();
    assert!(
        error.to_string().starts_with(&format!("{path}: line 2: ")),
        "{error}"
    );
    let options = TraceOptions { skip_bad: true };
    let picked = pick_turn(&path, TurnChoice::Last, &options).unwrap();
    assert_eq!((picked.turn, picked.source.as_str()), (2, "line 3"));
}

#[test]
fn a_single_capture_is_turn_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one.json");
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&body("a", &["one"])).unwrap(),
    )
    .unwrap();
    let path = path.to_string_lossy().into_owned();
    let picked = pick_turn(&path, TurnChoice::Last, &TraceOptions::default()).unwrap();
    assert_eq!((picked.turn, picked.format), (1, TraceFormat::Single));
    assert_eq!(picked.label("one.json"), "one.json");
    let error = pick_turn(&path, TurnChoice::Number(2), &TraceOptions::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{path}: no turn 2: the trace has 1 turn")
    );
}

#[test]
fn a_compaction_stub_is_a_turn_without_tools() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/samples/traces/cctrace-compaction.jsonl"
    );
    let mut stub = None;
    let mut turns = 0;
    for record in toolprism::trace::open(path, &TraceOptions::default()).unwrap() {
        turns += 1;
        if record.unwrap().body == toolprism::trace::RecordBody::CompactionStub {
            stub = Some(turns);
        }
    }
    let stub = stub.expect("the sample has a compaction stub");
    let error = pick_turn(path, TurnChoice::Number(stub), &TraceOptions::default()).unwrap_err();
    assert!(
        error.to_string().contains(&format!("turn {stub} ("))
            && error.to_string().contains("compaction stub"),
        "{error}"
    );
    let last = pick_turn(path, TurnChoice::Last, &TraceOptions::default()).unwrap();
    assert_eq!(last.turn, turns);
}
