//! Every strategy projects every definition a request carries, inline ones too, and keeps
//! every reference resolving (issue 41; STRATEGIES.md, "Tools changed mid-conversation").

use serde_json::{Value, json};
use toolprism::Settings;
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::session::{Analyzer, SessionReport, TraceInfo};
use toolprism::strategy::Strategy;

use crate::support::command::stdout_of;
use crate::support::records::record;

const SAMPLE: &str = "samples/inline-definitions.json";

/// The system message (the sample's fourth message) of the request `strategy` exports.
fn system_message(strategy: &str) -> String {
    let text = stdout_of(&["export", SAMPLE, "-s", strategy, "-o", "-"]);
    let body: Value = serde_json::from_str(&text).unwrap();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "{strategy}: no message added or lost");
    serde_json::to_string(&messages[3]).unwrap()
}

const AS_CAPTURED: &str = r#"{"role":"system","content":[{"type":"text","text":"The tools changed."},{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"search_docs","description":"Search the project documentation.\n\nMatches are ranked by BM25 over titles and bodies. Returns at most ten hits with their paths.","input_schema":{"type":"object","properties":{"query":{"type":"string","description":"Words to look for."}},"required":["query"]}}}},{"type":"tool_removal","tool":{"type":"tool_reference","name":"write_file"}}]}"#;

#[test]
fn each_strategy_sends_the_inline_definition_as_its_origin_would() {
    // Sent as captured: the baseline, a reorder (a3s sorts `tools`, nothing to sort in a
    // message), zero, and lean-ctx, whose proxy rewrites the `tools` array only.
    for strategy in [
        "original", "direct", "adaptive", "shorten", "defer", "codex", "append",
    ] {
        assert_eq!(system_message(strategy), AS_CAPTURED, "{strategy}");
    }
    // vtcode documents every tool it sends: whitespace collapsed under `full`...
    assert_eq!(
        system_message("full"),
        AS_CAPTURED.replace(r"documentation.\n\nMatches", "documentation. Matches"),
    );
    assert_eq!(system_message("progressive"), system_message("full"));
    // ... the first sentence without its period and no parameter description under `minimal`.
    assert_eq!(
        system_message("minimal"),
        r#"{"role":"system","content":[{"type":"text","text":"The tools changed."},{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"search_docs","description":"Search the project documentation","input_schema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}}},{"type":"tool_removal","tool":{"type":"tool_reference","name":"write_file"}}]}"#
    );
    // `disabled` sends no tool, so no tool change; the message keeps its text.
    assert_eq!(
        system_message("disabled"),
        r#"{"role":"system","content":[{"type":"text","text":"The tools changed."}]}"#
    );
}

#[test]
fn a_message_left_without_content_is_not_sent() {
    let body = json!({"model": "claude-opus-4-8", "max_tokens": 10,
        "tools": [{"name": "a", "description": "A.", "input_schema": {"type": "object"}}],
        "messages": [{"role": "user", "content": "go"},
            {"role": "system", "content": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "a"}}]}]});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    std::fs::write(&path, body.to_string()).unwrap();
    let text = stdout_of(&[
        "export",
        path.to_str().unwrap(),
        "-s",
        "disabled",
        "-o",
        "-",
    ]);
    let sent: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(sent["messages"], json!([{"role": "user", "content": "go"}]));
}

#[test]
fn every_strategy_counts_the_inline_definitions_it_sends() {
    let report: Value = serde_json::from_str(&stdout_of(&["report", SAMPLE, "--json"])).unwrap();
    let capture_inline = report["capture"]["in_effect"]["inline_tokens"]
        .as_u64()
        .unwrap();
    assert!(capture_inline > 0);
    let counter = TokenCounter::new(Encoding::O200kBase);
    let figure = |id: &str, key: &str| -> u64 {
        let s = report["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap();
        s[key].as_u64().unwrap_or_else(|| panic!("{id}.{key}: {s}"))
    };
    for s in report["strategies"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap();
        assert_eq!(
            figure(id, "total_tokens"),
            figure(id, "tools_tokens") + figure(id, "added_tokens") + figure(id, "inline_tokens"),
            "{id}"
        );
        // Every reference still resolves under every strategy.
        assert!(
            !s["notes"].to_string().contains("tool_reference_unresolved"),
            "{id}: {}",
            s["notes"]
        );
    }
    assert_eq!(figure("original", "inline_tokens"), capture_inline);
    assert_eq!(figure("shorten", "inline_tokens"), capture_inline);
    assert_eq!(figure("disabled", "inline_tokens"), 0);
    // `minimal`'s figure is its definition's tokens, counted here from the bytes above.
    let minimal = r#"{"name":"search_docs","description":"Search the project documentation","input_schema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}"#;
    assert_eq!(
        figure("minimal", "inline_tokens"),
        counter.count(minimal) as u64
    );
    // The saving is measured with the inline definitions on both sides.
    let basis = figure("original", "context_tokens") + capture_inline;
    let minimal_in_context =
        figure("minimal", "context_tokens") + figure("minimal", "inline_tokens");
    assert_eq!(
        report["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == "minimal")
            .unwrap()["saved_tokens"]
            .as_i64()
            .unwrap(),
        basis as i64 - minimal_in_context as i64
    );
    // The matrix has a row for them.
    let matrix = stdout_of(&["report", SAMPLE, "--matrix"]);
    assert!(matrix.contains("inline definitions"), "{matrix}");
    // A capture that defines no tool inline keeps its report as it was: no key, no row.
    let plain: Value =
        serde_json::from_str(&stdout_of(&["report", "samples/small.json", "--json"])).unwrap();
    assert!(
        plain["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s.get("inline_tokens").is_none())
    );
    let matrix = stdout_of(&["report", "samples/small.json", "--matrix"]);
    assert!(!matrix.contains("inline definitions"), "{matrix}");
}

#[test]
fn a_projection_that_drops_a_referenced_tool_is_flagged() {
    // zero withholds every tool behind its search: the removal names a tool it does not send.
    let text = stdout_of(&[
        "report",
        SAMPLE,
        "-s",
        "defer",
        "--set",
        "defer.eligible=all",
        "--set",
        "defer.threshold=1",
    ]);
    assert!(
        text.contains("defer: error: message 4: a `tool_removal` names `write_file`, which this projection does not send (tool_reference_unresolved)"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&stdout_of(&[
        "report",
        SAMPLE,
        "-s",
        "defer",
        "--set",
        "defer.eligible=all",
        "--set",
        "defer.threshold=1",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["strategies"][0]["request_valid"], json!(false));
}

fn body(definition: &Value, second: bool) -> Value {
    let tools = json!([{"name": "read_file", "description": "Read a file",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]);
    let mut messages = vec![json!({"role": "user", "content": "go"})];
    if second {
        messages.push(json!({"role": "assistant", "content": "reading"}));
        messages.push(json!({"role": "user", "content": "now search"}));
        messages.push(json!({"role": "system", "content": [
            {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": definition}}]}));
    }
    json!({"model": "claude-opus-4-8", "max_tokens": 10, "tools": tools, "messages": messages})
}

fn session(definition: &Value) -> SessionReport {
    let counter = TokenCounter::new(Encoding::O200kBase);
    let strategies = [Strategy::Original, Strategy::Minimal, Strategy::Disabled];
    let mut analyzer = Analyzer::new(&strategies, &Settings::default(), &counter, None);
    analyzer
        .push(record(1, body(definition, false), None))
        .unwrap();
    analyzer
        .push(record(2, body(definition, true), None))
        .unwrap();
    analyzer.finish(TraceInfo {
        path: "t.jsonl".into(),
        format: "jsonl",
        ..TraceInfo::default()
    })
}

#[test]
fn session_prompts_count_the_inline_definitions_each_strategy_sends() {
    let captured = json!({"name": "search_docs", "description": "Search the docs.\n\nRanked by BM25.",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string", "description": "Words."}}}});
    let minimal = json!({"name": "search_docs", "description": "Search the docs",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}});
    let prompt = |report: &SessionReport, strategy: usize, turn: usize| {
        report.strategies[strategy].per_turn[turn]
            .prompt_tokens
            .unwrap()
    };
    let as_captured = session(&captured);
    let as_minimal_sends = session(&minimal);
    // `minimal` leaves `read_file` as it is: its prompt is the capture's with the definition
    // `minimal` writes, which is what `original` sends of a trace that defines it so.
    assert_eq!(prompt(&as_captured, 1, 0), prompt(&as_captured, 0, 0));
    assert_eq!(prompt(&as_captured, 1, 1), prompt(&as_minimal_sends, 0, 1));
    assert!(prompt(&as_captured, 1, 1) < prompt(&as_captured, 0, 1));
    // `disabled` sends neither the tools nor the tool change.
    let without = body(&captured, true);
    let mut plain = without.clone();
    plain["messages"].as_array_mut().unwrap().pop();
    let counter = TokenCounter::new(Encoding::O200kBase);
    let block = &without["messages"][3]["content"][0];
    let block_tokens = counter.count(&serde_json::to_string(block).unwrap());
    let dropped = prompt(&as_captured, 0, 1) - prompt(&as_captured, 2, 1);
    let tools = as_captured.strategies[0].per_turn[1].total_tokens.unwrap();
    assert_eq!(dropped, tools + block_tokens);
}

#[test]
fn what_the_provider_refuses_is_judged_on_the_messages_each_strategy_sends() {
    // `bash` defined again as another tool type: the provider refuses the request that sends
    // the definition, and `disabled`, which sends no tool change, is no longer refused.
    let body = json!({"model": "claude-opus-4-8", "max_tokens": 10,
        "tools": [{"type": "bash_20250124", "name": "bash"},
            {"name": "a", "description": "A.", "input_schema": {"type": "object"}}],
        "messages": [{"role": "user", "content": "go"},
            {"role": "system", "content": [{"type": "text", "text": "Changed."},
                {"type": "tool_addition", "tool": {"type": "tool_definition",
                    "definition": {"name": "bash", "description": "Run.", "input_schema": {"type": "object"}}}}]}]});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    std::fs::write(&path, body.to_string()).unwrap();
    let path = path.to_str().unwrap();
    let report: Value = serde_json::from_str(&stdout_of(&[
        "report", path, "-s", "original", "-s", "minimal", "-s", "disabled", "--json",
    ]))
    .unwrap();
    let problems = report["capture"]["tool_change_problems"]
        .as_array()
        .unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let valid: Vec<&Value> = report["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["request_valid"])
        .collect();
    assert_eq!(valid, [&json!(false), &json!(false), &json!(true)]);
    let disabled = report["strategies"][2]["notes"].to_string();
    assert!(
        !disabled.contains(problems[0].as_str().unwrap()),
        "{disabled}"
    );
}

#[test]
fn diff_shows_the_message_blocks_a_strategy_sends_differently() {
    let minimal = stdout_of(&["diff", SAMPLE, "-s", "minimal", "--color", "never"]);
    assert!(
        minimal.contains("tools in effect (the messages change them; 1 of their blocks sent differently, diffed as messages/N/...)"),
        "{minimal}"
    );
    assert!(
        minimal.contains("--- a/messages/4/search_docs\n+++ b/messages/4/search_docs\n@@ -1,12 +1,11 @@ changed: inline definition projected as the tools are\n"),
        "{minimal}"
    );
    assert!(
        minimal.contains("+  \"description\": \"Search the project documentation\",\n"),
        "{minimal}"
    );
    let disabled = stdout_of(&["diff", SAMPLE, "-s", "disabled", "--color", "never"]);
    assert!(
        disabled.contains("--- \"a/messages/4/write_file (tool_removal)\"\n+++ /dev/null\n"),
        "{disabled}"
    );
    let direct = stdout_of(&["diff", SAMPLE, "-s", "direct", "--color", "never"]);
    assert!(
        direct.contains("(the messages change them; sent as they are)"),
        "{direct}"
    );
    assert!(!direct.contains("messages/4"), "{direct}");
}
