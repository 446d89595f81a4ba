//! MCP servers inside a trace (SESSIONS.md, "MCP exchanges inside a trace"): each named by its
//! `initialize` answer's `serverInfo`, its `tools/list` answer named after it, neither a turn;
//! the tools a model request sends labelled by the server that listed them.

use serde_json::{Value, json};

use crate::support::command::{stdout_of, toolprism};

const SAMPLE: &str = "samples/traces/mcp-servers-and-model-call.har";

fn json_of(args: &[&str]) -> Value {
    serde_json::from_str(&stdout_of(args)).unwrap()
}

/// The handshakes and listings of two servers, then one model call: one turn, the four MCP
/// exchanges listed as ignored, each naming its server and version.
#[test]
fn servers_are_named_by_their_initialize_answers() {
    let session = json_of(&["session", "--json", SAMPLE]);
    assert_eq!(session["turns"].as_array().unwrap().len(), 1);
    let reasons: Vec<&str> = session["trace"]["ignored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        [
            "MCP initialize: the server docs-server 0.4.1, not a model call",
            "MCP tools/list: docs-server 0.4.1's list of 2 tools, not a model call",
            "MCP initialize: the server issue-tracker 2.0.0, not a model call",
            "MCP tools/list: issue-tracker 2.0.0's list of 1 tool, not a model call",
        ]
    );
    assert_eq!(
        session["trace"]["mcp_servers"][0],
        json!({"url": "http://127.0.0.1:8000/mcp", "name": "docs-server", "version": "0.4.1",
            "tools": ["search_docs", "fetch_page"]})
    );
    // The session's tools labelled by the server that listed them; the host's own unlabelled.
    let servers: Vec<(&str, Option<&str>)> = session["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["server"].as_str()))
        .collect();
    assert_eq!(
        servers,
        [
            ("search_docs", Some("docs-server")),
            ("fetch_page", Some("docs-server")),
            ("mcp__tracker__create_issue", Some("issue-tracker")),
            ("final_result", None),
        ]
    );
    let text = stdout_of(&["session", SAMPLE]);
    assert!(
        text.contains(
            "  MCP server docs-server 0.4.1 at http://127.0.0.1:8000/mcp: 2 tools listed\n"
        ),
        "{text}"
    );
}

/// A trace without MCP exchanges says nothing of servers: no `mcp_servers`, no `server`.
#[test]
fn a_trace_without_mcp_names_no_server() {
    let session = json_of(&["session", "--json", "samples/traces/vcrpy-anthropic.yaml"]);
    assert!(session["trace"].get("mcp_servers").is_none());
    assert!(
        session["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("server").is_none())
    );
}

/// `report --by-server` on the model call: `search_docs` and `fetch_page` carry no server in
/// their names, and `mcp__tracker__create_issue` names the host's alias; the listings say
/// whose they are.
#[test]
fn a_requests_tools_are_labelled_by_the_server_that_listed_them() {
    let report = json_of(&["report", "--by-server", "--json", "-s", "original", SAMPLE]);
    let rows: Vec<(String, u64, bool)> = report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["tools"].as_u64().unwrap(),
                r["mcp"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("docs-server".to_owned(), 2, true),
            ("issue-tracker".to_owned(), 1, true),
            ("(host)".to_owned(), 1, false),
        ]
    );
}

/// A server's name is untrusted: control characters reach no terminal, and a long one is cut.
#[test]
fn a_servers_name_is_sanitized_and_cut() {
    let name = format!("evil\u{1b}]0;pwned\u{7}{}", "x".repeat(300));
    let interaction = |body: Value, answer: Value| {
        json!({"request": {"method": "POST", "uri": "http://127.0.0.1:9/mcp",
            "body": body.to_string(), "headers": {}},
            "response": {"status": {"code": 200, "message": "OK"}, "headers": {},
            "body": {"string": answer.to_string()}}})
    };
    let model = json!({"model": "claude-sonnet-4-5", "max_tokens": 8,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "lookup", "input_schema": {"type": "object"}}]});
    let cassette = json!({"version": 1, "interactions": [
        interaction(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
            json!({"jsonrpc": "2.0", "id": 0, "result": {"serverInfo": {"name": name}}})),
        interaction(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "lookup",
                "inputSchema": {"type": "object"}}]}})),
        {"request": {"method": "POST", "uri": "https://api.anthropic.com/v1/messages",
            "body": model.to_string(), "headers": {}},
         "response": {"status": {"code": 200, "message": "OK"}, "headers": {},
            "body": {"string": "{\"usage\":{\"input_tokens\":5}}"}}},
    ]});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cassette.json");
    std::fs::write(&path, cassette.to_string()).unwrap();
    let p = path.to_str().unwrap();
    for args in [
        vec!["session", p],
        vec!["report", "--by-server", "-s", "original", p],
    ] {
        let out = toolprism().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text}"
        );
        assert!(
            text.contains("evil␛]0;pwned"),
            "{args:?}: the name, made visible: {text}"
        );
        assert!(!text.contains(&"x".repeat(120)), "cut: {text}");
    }
}

/// The same in claude-trace JSON lines, the answers kept as event streams (`body_raw`).
#[test]
fn servers_are_named_in_json_lines_too() {
    let record = |request: Value, answer: Value| {
        json!({"request": {"method": "POST", "url": "http://127.0.0.1:7/mcp", "headers": {},
            "body": request},
            "response": {"status_code": 200, "headers": {},
                "body_raw": format!("event: message\ndata: {answer}\n\n")},
            "logged_at": "2026-01-01T00:00:00Z"})
        .to_string()
            + "\n"
    };
    let model = json!({"request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
        "headers": {}, "body": {"model": "claude-sonnet-4-5", "max_tokens": 8,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "mcp__kb__lookup", "input_schema": {"type": "object"}}]}},
        "response": {"status_code": 200, "headers": {}, "body": {"usage": {"input_tokens": 5}}},
        "logged_at": "2026-01-01T00:00:01Z"});
    let text = record(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
        json!({"jsonrpc": "2.0", "id": 0, "result": {"serverInfo": {"name": "knowledge",
            "version": "3.1"}}}),
    ) + &record(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "lookup",
            "inputSchema": {"type": "object"}}]}}),
    ) + &model.to_string()
        + "\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let session = json_of(&["session", "--json", p]);
    assert_eq!(
        session["trace"]["ignored"][1]["reason"],
        "MCP tools/list: knowledge 3.1's list of 1 tool, not a model call"
    );
    // The host's alias `kb` in the name; the server that listed `lookup` is `knowledge`.
    assert_eq!(session["tools"][0]["server"], "knowledge");
    let report = json_of(&["report", "--by-server", "--json", "-s", "original", p]);
    assert_eq!(report["servers"][0]["name"], "knowledge");
}
