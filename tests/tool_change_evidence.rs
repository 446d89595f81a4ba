//! Issue 41's evidence from the trace itself: the `anthropic-beta` header a request was sent
//! with (claude-trace, HAR, cassettes), and the provider's answer to a prefix check.

use serde_json::{Value, json};
use toolprism::trace::{PrefixAnswer, TraceOptions, open};

use crate::support::command::stdout_of;

const REFERENCE_BETA: &str = "mid-conversation-tool-changes-2026-07-01";
const INLINE_BETA: &str = "inline-tools-2026-09-15";
const MCP_BETA: &str = "mcp-client-2026-09-15";

fn tool(name: &str) -> Value {
    json!({"name": name, "description": format!("The {name} tool."),
        "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}})
}

/// A request that offers the deferred `b` by reference, and one more change `extra` (if any).
fn body(extra: Option<Value>) -> Value {
    let mut deferred = tool("b");
    deferred["defer_loading"] = json!(true);
    let mut blocks =
        vec![json!({"type": "tool_addition", "tool": {"type": "tool_reference", "name": "b"}})];
    blocks.extend(extra);
    json!({"model": "claude-opus-5-5", "max_tokens": 10, "tools": [tool("a"), deferred],
        "messages": [{"role": "user", "content": "go"}, {"role": "system", "content": blocks}]})
}

/// One claude-trace line: the request with these headers (`None`: a record without headers).
fn line(headers: Option<Value>, body: &Value) -> String {
    let mut request = json!({"timestamp": "2026-12-01T10:00:00.000Z", "method": "POST",
        "url": "https://api.anthropic.com/v1/messages", "body": body});
    if let Some(headers) = headers {
        request["headers"] = headers;
    }
    json!({"request": request, "response": {"status_code": 200, "body": {"usage":
        {"input_tokens": 10, "output_tokens": 1}}}, "logged_at": "2026-12-01T10:00:01.000Z"})
    .to_string()
}

fn headers(beta: Option<&str>) -> Value {
    let mut h = json!({"anthropic-version": "2023-06-01", "x-api-key": "[REDACTED]"});
    if let Some(beta) = beta {
        h["anthropic-beta"] = json!(beta);
    }
    h
}

fn session_problems(text: &str) -> Vec<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    std::fs::write(&path, text).unwrap();
    let out = stdout_of(&["session", path.to_str().unwrap(), "--json"]);
    let json: Value = serde_json::from_str(&out).unwrap();
    json["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t["tool_change_problems"]
                .as_array()
                .map(|p| p.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn a_missing_beta_header_is_judged_only_where_the_trace_kept_headers() {
    let plain = body(None);
    let text = [
        // Headers kept, another beta only: refused.
        line(Some(headers(Some("context-1m-2025-08-07"))), &plain),
        // The reference beta, among others: accepted.
        line(
            Some(headers(Some(&format!(
                "context-1m-2025-08-07, {REFERENCE_BETA}"
            )))),
            &plain,
        ),
        // No headers at all: nothing is claimed.
        line(None, &plain),
        // Headers the recorder filtered (no Anthropic header left): nothing is claimed.
        line(Some(json!({"content-type": "application/json"})), &plain),
        // The Anthropic headers, no beta at all: refused.
        line(Some(headers(None)), &plain),
    ]
    .join("\n");
    let problems = session_problems(&text);
    assert_eq!(problems.len(), 5);
    let refused = |p: &Vec<String>| p.iter().any(|s| s.contains(REFERENCE_BETA));
    assert!(refused(&problems[0]), "{problems:?}");
    assert!(problems[1].is_empty(), "{problems:?}");
    assert!(problems[2].is_empty(), "{problems:?}");
    assert!(problems[3].is_empty(), "{problems:?}");
    assert!(refused(&problems[4]), "{problems:?}");

    // The timeline marks the turn with the reason; the key's value is never shown.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    std::fs::write(&path, &text).unwrap();
    let timeline = stdout_of(&["session", path.to_str().unwrap(), "--color", "never"]);
    assert!(
        timeline.contains(&format!(
            "! tool changes without the `{REFERENCE_BETA}` beta (or `{INLINE_BETA}`): the provider rejects them"
        )),
        "{timeline}"
    );
    assert!(!timeline.contains("REDACTED"), "{timeline}");

    // `report --turn N` judges that turn's request with its headers.
    let path = path.to_str().unwrap();
    let report = |turn: &str| -> Value {
        serde_json::from_str(&stdout_of(&["report", path, "--turn", turn, "--json"])).unwrap()
    };
    let first = report("1");
    let listed = first["capture"]["tool_change_problems"].to_string();
    assert!(listed.contains(REFERENCE_BETA), "{listed}");
    for turn in ["2", "3", "4"] {
        let quiet = report(turn);
        assert!(
            quiet["capture"]["tool_change_problems"]
                .as_array()
                .is_none_or(Vec::is_empty),
            "turn {turn}: {quiet}"
        );
    }
}

#[test]
fn inline_definitions_and_inline_toolsets_need_their_betas() {
    let inline = json!({"type": "tool_addition", "tool": {"type": "tool_definition",
        "definition": tool("c")}});
    let toolset = json!({"type": "tool_addition", "tool": {"type": "tool_definition",
        "definition": {"type": "mcp_toolset", "mcp_server_name": "docs"}}});
    let text = [
        line(
            Some(headers(Some(REFERENCE_BETA))),
            &body(Some(inline.clone())),
        ),
        line(Some(headers(Some(INLINE_BETA))), &body(Some(inline))),
        line(
            Some(headers(Some(INLINE_BETA))),
            &body(Some(toolset.clone())),
        ),
        line(
            Some(headers(Some(&format!("{INLINE_BETA},{MCP_BETA}")))),
            &body(Some(toolset)),
        ),
    ]
    .join("\n");
    let problems = session_problems(&text);
    assert!(
        problems[0].iter().any(|p| p.contains(INLINE_BETA)),
        "{problems:?}"
    );
    assert!(problems[1].is_empty(), "{problems:?}");
    assert!(
        problems[2].iter().any(|p| p.contains(MCP_BETA)),
        "{problems:?}"
    );
    assert!(
        !problems[3].iter().any(|p| p.contains("beta")),
        "{problems:?}"
    );
}

#[test]
fn har_and_cassette_records_carry_their_beta_header_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let request = body(None).to_string();
    let har = json!({"log": {"version": "1.2", "entries": [{
        "startedDateTime": "2026-12-01T10:00:00.000Z",
        "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
            "headers": [
                {"name": "Anthropic-Version", "value": "2023-06-01"},
                {"name": "anthropic-beta", "value": "context-1m-2025-08-07"},
                {"name": "anthropic-beta", "value": REFERENCE_BETA},
                {"name": "x-api-key", "value": "sk-ant-secret"}],
            "postData": {"mimeType": "application/json", "text": request}},
        "response": {"status": 200, "content": {"mimeType": "application/json",
            "text": "{\"usage\":{\"input_tokens\":1,\"output_tokens\":1},\"input_transformations\":[{\"type\":\"thinking_dropped\",\"path\":\"messages.1.content.0\"}]}"}}}]}});
    let har_path = dir.path().join("s.har");
    std::fs::write(&har_path, har.to_string()).unwrap();
    let cassette = format!(
        "interactions:\n- request:\n    method: POST\n    uri: https://api.anthropic.com/v1/messages\n    headers:\n      anthropic-version:\n      - '2023-06-01'\n      anthropic-beta:\n      - {INLINE_BETA}\n    body: '{}'\n  response:\n    status:\n      code: 400\n    body:\n      string: '{{\"type\":\"error\",\"error\":{{\"message\":\"Invalid `signature` in `thinking` block. The block is bound to a different conversation.\"}}}}'\nversion: 1\n",
        request.replace('\'', "''")
    );
    let cassette_path = dir.path().join("c.yaml");
    std::fs::write(&cassette_path, cassette).unwrap();
    let first = |path: &std::path::Path| {
        open(path.to_str().unwrap(), &TraceOptions::default())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
    };
    assert_eq!(
        first(&har_path).betas,
        Some(vec![
            "context-1m-2025-08-07".to_owned(),
            REFERENCE_BETA.to_owned()
        ])
    );
    let cassette = first(&cassette_path);
    assert_eq!(cassette.betas, Some(vec![INLINE_BETA.to_owned()]));
    assert_eq!(cassette.prefix_answer, Some(PrefixAnswer::Refused));
    assert_eq!(
        first(&har_path).prefix_answer,
        Some(PrefixAnswer::ThinkingDropped(vec![
            "messages.1.content.0".to_owned()
        ]))
    );
}

/// A claude-trace line answered with `status` and this response `body`.
fn answered(body: &Value, status: u16, response: Value) -> String {
    json!({"request": {"timestamp": "2026-12-01T10:00:00.000Z", "method": "POST",
        "url": "https://api.anthropic.com/v1/messages", "body": body},
        "response": {"status_code": status, "body": response},
        "logged_at": "2026-12-01T10:00:01.000Z"})
    .to_string()
}

#[test]
fn the_prefix_check_says_what_the_provider_answered() {
    let thinking = json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hm", "signature": "s"},
        {"type": "tool_use", "id": "t", "name": "a", "input": {}}]});
    let result = json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t", "content": "x"}]});
    let request = |tools: Vec<Value>, later: bool| {
        let mut messages = vec![json!({"role": "user", "content": "go"})];
        if later {
            messages.extend([thinking.clone(), result.clone()]);
        }
        json!({"model": "claude-fable-5-1", "max_tokens": 10, "system": "s",
            "tools": tools, "messages": messages})
    };
    let usage = json!({"usage": {"input_tokens": 10, "output_tokens": 1}});
    let mut dropped = usage.clone();
    dropped["input_transformations"] = json!([{"type": "thinking_dropped",
        "path": "messages.1.content.0", "reason": "prefix_binding_mismatch"}]);
    let refused = json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block."}});
    let text = [
        answered(&request(vec![tool("a")], false), 200, usage.clone()),
        // The tools edited in place; the provider dropped the thinking (drop_block).
        answered(&request(vec![tool("a"), tool("b")], true), 200, dropped),
        // Nothing the rule sees edited, yet the provider refused: its word stands.
        answered(&request(vec![tool("a"), tool("b")], true), 400, refused),
    ]
    .join("\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    std::fs::write(&path, text).unwrap();
    let json: Value =
        serde_json::from_str(&stdout_of(&["session", path.to_str().unwrap(), "--json"])).unwrap();
    let marks: Vec<Value> = json["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["prefix_check"].clone())
        .collect();
    assert!(marks[0].is_null(), "{marks:?}");
    assert_eq!(
        marks[1],
        "the provider dropped thinking at messages.1.content.0 (prefix check): the tool list was edited in place"
    );
    assert_eq!(
        marks[2],
        "the provider refused this turn (HTTP 400: a thinking block bound to a different conversation): the prompt before it changed"
    );
}
