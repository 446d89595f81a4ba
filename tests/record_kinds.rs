//! Records that are not request lines (issue 29, "Reading"): read where they hold requests (a
//! claude-trace log saved as one JSON array, a nock recording, a goose MCP replay), refused in
//! one line that says what they are where they do not (a Claude Agent SDK stream-json log, an
//! ATIF trajectory); hashed traces said so.

use serde_json::Value;

use crate::support::command::{fails_with, stdout_of};

const DIR: &str = "tests/fixtures/records";

fn session_json(name: &str) -> Value {
    let path = format!("{DIR}/{name}");
    serde_json::from_str(&stdout_of(&["session", &path, "--json"])).unwrap()
}

#[test]
fn a_claude_trace_log_saved_as_one_array_is_read() {
    let report = session_json("claude-trace-array.json");
    assert_eq!(report["trace"]["format"], "json-array");
    assert_eq!(report["trace"]["turns"], 2);
    assert_eq!(report["trace"]["ignored_total"], 1);
    assert_eq!(report["trace"]["ignored"][0]["source"], "entry 2");
    let turns = report["turns"].as_array().unwrap();
    assert_eq!(turns[0]["source"], "entry 1");
    assert_eq!(turns[1]["source"], "entry 3");
    assert_eq!(turns[1]["usage"]["input"], 436);
    assert_eq!(turns[1]["tools"], 1);
}

#[test]
fn a_nock_recording_is_read_with_its_urls_and_usage() {
    let report = session_json("nock-openai.json");
    assert_eq!(report["trace"]["format"], "nock");
    assert_eq!(report["trace"]["turns"], 2);
    // The `GET /v1/models` call is no model call.
    assert_eq!(report["trace"]["ignored"][0]["reason"], "GET");
    let turns = report["turns"].as_array().unwrap();
    assert_eq!(turns[0]["host"], "api.openai.com");
    assert_eq!(turns[0]["provider"], "openai");
    assert_eq!(turns[0]["usage"]["input"], 61);
    assert_eq!(turns[1]["usage"]["input"], 77);
    assert_eq!(turns[1]["shape"], "openai-chat");
}

#[test]
fn a_goose_mcp_replay_gives_its_tools_list_every_page() {
    let path = format!("{DIR}/mcp-replay-notes");
    let report: Value =
        serde_json::from_str(&stdout_of(&["report", &path, "--json", "-s", "original"])).unwrap();
    let tools: Vec<&str> = report["strategies"][0]["per_tool"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["add_note", "list_notes"]);
    let session = session_json("mcp-replay-notes");
    assert_eq!(session["trace"]["format"], "mcp-replay");
    assert_eq!(session["turns"][0]["source"], "line 6");
}

#[test]
fn records_that_hold_no_request_are_named_in_one_line() {
    let sdk = fails_with(&["session", &format!("{DIR}/agent-sdk-stream.jsonl")]);
    assert!(
        sdk.contains("agent-sdk-stream.jsonl: a Claude Agent SDK"),
        "{sdk}"
    );
    let atif = fails_with(&["report", &format!("{DIR}/atif-trajectory.json")]);
    assert!(
        atif.contains("atif-trajectory.json: an ATIF agent trajectory (ATIF-v1.4"),
        "{atif}"
    );
    // A replay without a tools/list answer is said to be one.
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("replay");
    std::fs::write(
        &replay,
        "STDIN: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n",
    )
    .unwrap();
    let none = fails_with(&["session", replay.to_str().unwrap()]);
    assert!(none.contains("a goose MCP replay"), "{none}");
    // A response's events saved as an array, one conversation item: said what they are.
    let cases = [
        (
            "events.json",
            r#"[{"type": "response.completed", "response": {"id": "r", "output": []}}]"#,
            "the document is an array whose first entry is an OpenAI Responses stream event, not a request",
        ),
        (
            "item.json",
            r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}"#,
            "one OpenAI Responses input item, not a request",
        ),
        (
            "converse-answer.json",
            r#"{"output": {"message": {"role": "assistant", "content": []}}, "stopReason": "end_turn"}"#,
            "a Bedrock Converse response, not a request",
        ),
    ];
    for (name, body, said) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, body).unwrap();
        let error = fails_with(&["report", path.to_str().unwrap()]);
        assert!(error.contains(&format!("{name}: ")), "{error}");
        assert!(error.contains(said), "{error}");
        assert_eq!(error.trim_end().lines().count(), 1, "{error}");
    }
}

#[test]
fn hashed_traces_are_said_to_be_and_never_judged() {
    for name in ["hashed-cctrace.jsonl", "hashed-dashed.jsonl"] {
        let report = session_json(name);
        let turns = report["turns"].as_array().unwrap();
        assert_eq!(report["trace"]["hashed_turns"], turns.len(), "{name}");
        assert_eq!(report["agreement"]["judged"], 0, "{name}");
        for turn in turns {
            assert_eq!(turn["agrees"], Value::Null);
            assert!(
                turn["not_judged"].as_str().unwrap().contains("hashed"),
                "{turn}"
            );
            // Hashes calibrate nothing.
            assert_eq!(turn["calibration"], Value::Null);
        }
        let text = stdout_of(&["session", &format!("{DIR}/{name}")]);
        assert!(
            text.lines()
                .nth(1)
                .unwrap()
                .starts_with("hashed: the text of"),
            "{text}"
        );
    }
    // A trace of what was sent says nothing of hashes.
    let plain = session_json("claude-trace-array.json");
    assert_eq!(plain["trace"]["hashed_turns"], 0);
}

/// Gemini's `--tools-only` is the request's `tools` value (its declarations inside their tool
/// objects), which can be pasted back, not the declarations flattened.
#[test]
fn gemini_tools_only_is_the_requests_tools_value() {
    let path = "samples/gemini-generate-content.json";
    let body: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::support::command::root().join(path)).unwrap(),
    )
    .unwrap();
    let shown: Value = serde_json::from_str(&stdout_of(&[
        "show",
        path,
        "-s",
        "original",
        "--tools-only",
    ]))
    .unwrap();
    assert_eq!(shown, body["tools"]);
}
