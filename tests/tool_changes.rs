//! Mid-conversation tool changes (PROVIDERS.md sections 1 and 3): reading every form, the
//! tools in effect, what the provider refuses, and a session of them (issue 41).

use serde_json::{Value, json};
use toolprism::Settings;
use toolprism::capture::Capture;
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::session::{Analyzer, SessionReport, TraceInfo};
use toolprism::strategy::Strategy;
use toolprism::tool_changes::{ClaudeModel, Kind, Origin, Target, ToolChanges};
use toolprism::trace::TraceRecord;

use crate::support::command::stdout_of;
use crate::support::records::record;

fn tool(name: &str) -> Value {
    json!({"name": name, "description": format!("The {name} tool."),
        "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}})
}

fn deferred(name: &str) -> Value {
    let mut entry = tool(name);
    entry["defer_loading"] = json!(true);
    entry
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn system(blocks: Value) -> Value {
    json!({"role": "system", "content": blocks})
}

fn add_ref(name: &str) -> Value {
    json!({"type": "tool_addition", "tool": {"type": "tool_reference", "name": name}})
}

fn remove_ref(name: &str) -> Value {
    json!({"type": "tool_removal", "tool": {"type": "tool_reference", "name": name}})
}

fn add_inline(definition: Value) -> Value {
    json!({"type": "tool_addition", "tool": {"type": "tool_definition", "definition": definition}})
}

fn capture(model: &str, tools: &[Value], messages: Vec<Value>) -> Capture {
    Capture::from_value(json!({"model": model, "max_tokens": 100, "tools": tools,
        "messages": messages}))
    .unwrap()
}

fn effect_names(capture: &Capture) -> (Vec<String>, Vec<String>) {
    let effect = ToolChanges::read(capture).in_effect(capture);
    (
        effect.tools.iter().map(|t| t.name.clone()).collect(),
        effect.removed.iter().map(|t| t.name.clone()).collect(),
    )
}

fn problems(capture: &Capture) -> Vec<String> {
    ToolChanges::read(capture).problems(capture, None)
}

const MODEL: &str = "claude-opus-5-5";

#[test]
fn every_reference_form_and_an_inline_definition_is_read() {
    let toolset = json!({"type": "mcp_toolset", "mcp_server_name": "gh"});
    let c = capture(
        MODEL,
        &[tool("a"), deferred("deploy"), toolset],
        vec![
            user("go"),
            system(json!([
                add_ref("deploy"),
                {"type": "tool_addition", "tool": {"type": "mcp_tool_reference", "server_name": "gh", "name": "create_issue"}},
                {"type": "tool_addition", "tool": {"type": "mcp_toolset_reference", "server_name": "gh"}},
                add_inline(tool("db_query")),
                {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": {"type": "mcp_toolset", "mcp_server_name": "calendar"}}},
                {"type": "text", "text": "More tools."}
            ])),
        ],
    );
    let changes = ToolChanges::read(&c);
    let targets: Vec<&Target> = changes.changes.iter().map(|c| &c.target).collect();
    assert_eq!(targets[0], &Target::Tool("deploy".into()));
    assert_eq!(
        targets[1],
        &Target::McpTool {
            server: "gh".into(),
            name: "create_issue".into()
        }
    );
    assert_eq!(targets[2], &Target::McpToolset("gh".into()));
    assert!(matches!(targets[3], Target::Inline(d) if d["name"] == "db_query"));
    assert_eq!(targets[4].label(), "calendar/*");
    assert!(changes.changes.iter().all(|c| c.message == 1));
    assert!(changes.changes.iter().all(|c| c.kind == Kind::Addition));
    let (tools, _) = effect_names(&c);
    // The toolset declared and offered from the start is `gh/*`; its reference re-offers it.
    assert_eq!(
        tools,
        [
            "a",
            "gh/*",
            "deploy",
            "gh/create_issue",
            "db_query",
            "calendar/*"
        ]
    );
    assert!(problems(&c).is_empty(), "{:?}", problems(&c));
}

#[test]
fn the_sdk_block_form_and_a_string_system_message_are_read() {
    let c = capture(
        MODEL,
        &[tool("a"), deferred("b")],
        vec![
            user("go"),
            json!({"role": "user", "content": [{"type": "mid_conv_system", "content": [add_ref("b")]}]}),
            json!({"role": "system", "content": "Be brief from here."}),
        ],
    );
    let changes = ToolChanges::read(&c);
    assert_eq!(changes.messages.len(), 2);
    assert_eq!(changes.changes.len(), 1);
    assert_eq!(changes.changes[0].message, 1);
    assert_eq!(effect_names(&c).0, ["a", "b"]);
}

#[test]
fn a_removed_tool_is_out_until_it_is_added_again() {
    let removed = capture(
        MODEL,
        &[tool("a"), tool("b")],
        vec![user("go"), system(json!([remove_ref("a")]))],
    );
    assert_eq!(effect_names(&removed), (vec!["b".into()], vec!["a".into()]));
    let effect = ToolChanges::read(&removed).in_effect(&removed);
    assert_eq!(effect.removed[0].source(), "removed at message 2");

    let again = capture(
        MODEL,
        &[tool("a"), tool("b")],
        vec![
            user("go"),
            system(json!([remove_ref("a")])),
            json!({"role": "assistant", "content": "ok"}),
            user("more"),
            system(json!([add_ref("a")])),
        ],
    );
    let effect = ToolChanges::read(&again).in_effect(&again);
    let names: Vec<&str> = effect.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["b", "a"]);
    assert!(effect.removed.is_empty());
    assert_eq!(effect.tools[1].origin, Origin::Added { message: 5 });
    assert!(problems(&again).is_empty(), "{:?}", problems(&again));
}

#[test]
fn a_redefinition_replaces_the_earlier_definition_from_its_place() {
    let mut newer = tool("a");
    newer["description"] = json!("The a tool, version 2.");
    let c = capture(
        MODEL,
        &[tool("a"), tool("b")],
        vec![user("go"), system(json!([add_inline(newer.clone())]))],
    );
    let effect = ToolChanges::read(&c).in_effect(&c);
    let names: Vec<&str> = effect.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["b", "a"]);
    assert_eq!(
        effect.tools[1].origin,
        Origin::Inline {
            message: 2,
            redefined: true
        }
    );
    assert_eq!(effect.tools[1].definition.as_ref(), Some(&newer));
    assert_eq!(effect.tools[1].source(), "redefined inline at message 2");
}

#[test]
fn a_deferred_declaration_is_hidden_until_added() {
    let c = capture(MODEL, &[tool("a"), deferred("b")], vec![user("go")]);
    let effect = ToolChanges::read(&c).in_effect(&c);
    assert_eq!(effect.hidden, ["b"]);
    assert_eq!(effect.tools.len(), 1);
}

#[test]
fn converse_tool_changes_are_read() {
    let c = Capture::from_value(json!({
        "modelId": "anthropic.claude-opus-5-5-v1:0",
        "toolConfig": {"tools": [
            {"toolSpec": {"name": "a", "description": "A.", "inputSchema": {"json": {"type": "object"}}}},
            {"toolSpec": {"name": "b", "description": "B.", "inputSchema": {"json": {"type": "object"}}}}
        ]},
        "messages": [
            {"role": "user", "content": [{"text": "go"}]},
            {"role": "system", "content": [
                {"toolRemoval": {"tool": {"name": "a"}}},
                {"toolAddition": {"tool": {"name": "create_issue", "serverName": "gh"}}}
            ]}
        ]
    }))
    .unwrap();
    let changes = ToolChanges::read(&c);
    assert_eq!(changes.changes.len(), 2);
    assert_eq!(changes.changes[0].kind, Kind::Removal);
    assert_eq!(changes.changes[0].target, Target::Tool("a".into()));
    assert_eq!(changes.changes[1].target.label(), "gh/create_issue");
    assert_eq!(effect_names(&c).1, ["a"]);
}

#[test]
fn models_that_take_system_messages_and_bind_thinking() {
    let takes = |m: &str| ClaudeModel::parse(m).map(ClaudeModel::takes_system_messages);
    let binds = |m: &str| ClaudeModel::parse(m).map(ClaudeModel::binds_thinking);
    assert_eq!(takes("claude-opus-4-8"), Some(true));
    assert_eq!(takes("claude-opus-4-7"), Some(false));
    assert_eq!(takes("claude-sonnet-5"), Some(false));
    assert_eq!(takes("claude-sonnet-5-5"), Some(true));
    assert_eq!(takes("us.anthropic.claude-haiku-5-5-v1:0"), Some(true));
    assert_eq!(takes("claude-fable-5"), Some(true));
    assert_eq!(takes("claude-3-5-sonnet-20241022"), None);
    assert_eq!(takes("gpt-5"), None);
    assert_eq!(binds("claude-fable-5"), Some(false));
    assert_eq!(binds("claude-fable-5-1"), Some(true));
    assert_eq!(binds("claude-mythos-5-2"), Some(true));
    assert_eq!(binds("claude-opus-5"), Some(false));
    assert_eq!(binds("claude-opus-5-5@20261001"), Some(true));
    assert_eq!(binds("claude-opus-4-8-20260301"), Some(false));
}

fn one_problem(c: &Capture, expected: &str) {
    let found = problems(c);
    assert!(
        found.iter().any(|p| p.contains(expected)),
        "no problem with {expected:?} in {found:?}"
    );
}

#[test]
fn a_model_without_system_messages_is_refused() {
    let c = capture(
        "claude-sonnet-4-5",
        &[tool("a")],
        vec![user("go"), system(json!([remove_ref("a")]))],
    );
    one_problem(&c, "Sonnet 4.5 takes no `role: \"system\"` messages");
    let sonnet5 = capture(
        "claude-sonnet-5",
        &[tool("a")],
        vec![user("go"), system(json!([remove_ref("a")]))],
    );
    one_problem(&sonnet5, "Sonnet 5 takes no");
    let fine = capture(
        "claude-opus-4-8",
        &[tool("a")],
        vec![user("go"), system(json!([remove_ref("a")]))],
    );
    assert!(problems(&fine).is_empty());
}

#[test]
fn placement_rules() {
    let first = capture(MODEL, &[tool("a")], vec![system(json!([remove_ref("a")]))]);
    one_problem(&first, "first in `messages`");

    let between = capture(
        MODEL,
        &[tool("a")],
        vec![
            user("go"),
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "a", "input": {}}]}),
            system(json!([remove_ref("a")])),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}),
        ],
    );
    one_problem(&between, "between a `tool_use` and its `tool_result`");

    let paused = capture(
        MODEL,
        &[tool("a")],
        vec![
            user("go"),
            json!({"role": "assistant", "content": [{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}]}),
            system(json!([remove_ref("a")])),
        ],
    );
    one_problem(&paused, "after a paused assistant turn");
    // Text alone after a paused turn is accepted.
    let paused_text = capture(
        MODEL,
        &[tool("a")],
        vec![
            user("go"),
            json!({"role": "assistant", "content": [{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}]}),
            system(json!([{"type": "text", "text": "note"}])),
        ],
    );
    assert!(
        problems(&paused_text).is_empty(),
        "{:?}",
        problems(&paused_text)
    );

    let before_user = capture(
        MODEL,
        &[tool("a")],
        vec![user("go"), system(json!([remove_ref("a")])), user("again")],
    );
    one_problem(&before_user, "followed by a user turn");

    let scoped = capture(
        MODEL,
        &[tool("a")],
        vec![
            user("go"),
            json!({"role": "system", "clear_at": "next_user_message", "content": [remove_ref("a")]}),
        ],
    );
    one_problem(&scoped, "turn-scoped");

    // Text-only system messages to a model that is no Claude (a gateway's Anthropic endpoint
    // takes them as its system prompt) are not judged; to Claude they are.
    let gateway = |model: &str| {
        capture(
            model,
            &[tool("a")],
            vec![system(json!("Be brief.")), user("go")],
        )
    };
    assert!(problems(&gateway("deepseek-chat")).is_empty());
    one_problem(&gateway("claude-opus-5-5"), "first in `messages`");
}

#[test]
fn references_types_cache_control_and_betas() {
    let undeclared = capture(
        MODEL,
        &[tool("a")],
        vec![user("go"), system(json!([add_ref("ghost")]))],
    );
    one_problem(&undeclared, "tool_reference_unresolved");
    let no_server = capture(
        MODEL,
        &[tool("a")],
        vec![
            user("go"),
            system(
                json!([{"type": "tool_addition", "tool": {"type": "mcp_toolset_reference", "server_name": "gh"}}]),
            ),
        ],
    );
    one_problem(&no_server, "an MCP server no `mcp_toolset` declares");
    // A reference to a tool defined earlier in messages resolves.
    let defined = capture(
        MODEL,
        &[tool("a")],
        vec![
            user("go"),
            system(json!([add_inline(tool("late"))])),
            json!({"role": "assistant", "content": "ok"}),
            user("more"),
            system(json!([remove_ref("late")])),
        ],
    );
    assert!(problems(&defined).is_empty(), "{:?}", problems(&defined));

    let conflict = capture(
        MODEL,
        &[tool("bash")],
        vec![
            user("go"),
            system(json!([add_inline(
                json!({"type": "bash_20250124", "name": "bash"})
            )])),
        ],
    );
    one_problem(&conflict, "tool_name_conflict");
    // A newer version of the same server tool is no other type.
    let versions = capture(
        MODEL,
        &[json!({"type": "bash_20241022", "name": "bash"})],
        vec![
            user("go"),
            system(json!([add_inline(
                json!({"type": "bash_20250124", "name": "bash"})
            )])),
        ],
    );
    assert!(problems(&versions).is_empty(), "{:?}", problems(&versions));

    let mut marked = tool("m");
    marked["cache_control"] = json!({"type": "ephemeral"});
    let mut block = add_inline(marked);
    block["cache_control"] = json!({"type": "ephemeral"});
    let both = capture(
        MODEL,
        &[tool("a")],
        vec![user("go"), system(json!([block]))],
    );
    one_problem(&both, "on both its `tool_addition` and its definition");

    let removal_by_definition = capture(
        MODEL,
        &[tool("a")],
        vec![
            user("go"),
            system(
                json!([{"type": "tool_removal", "tool": {"type": "tool_definition", "definition": tool("a")}}]),
            ),
        ],
    );
    one_problem(&removal_by_definition, "by definition");

    // Bedrock InvokeModel bodies carry their betas: an inline definition needs inline-tools,
    // which is the Claude API's alone, so Bedrock refuses it with the beta too.
    let with_betas = |betas: Value| {
        Capture::from_value(json!({"anthropic_version": "bedrock-2023-05-31",
            "anthropic_beta": betas, "max_tokens": 10, "tools": [tool("a")],
            "messages": [user("go"), system(json!([add_inline(tool("late")), remove_ref("a")]))]}))
        .unwrap()
    };
    one_problem(
        &with_betas(json!(["mid-conversation-tool-changes-2026-07-01"])),
        "inline-tools-2026-09-15",
    );
    let inline_on_bedrock = problems(&with_betas(json!(["inline-tools-2026-09-15"])));
    assert_eq!(inline_on_bedrock.len(), 1, "{inline_on_bedrock:?}");
    assert!(inline_on_bedrock[0].contains("an inline tool definition on Amazon Bedrock"));
    let by_reference = Capture::from_value(json!({"anthropic_version": "bedrock-2023-05-31",
        "anthropic_beta": [], "max_tokens": 10, "tools": [tool("a")],
        "messages": [user("go"), system(json!([remove_ref("a")]))]}))
    .unwrap();
    one_problem(&by_reference, "mid-conversation-tool-changes-2026-07-01");
}

#[test]
fn the_limits_are_checked() {
    let many: Vec<Value> = (0..10_001)
        .map(|i| json!({"name": format!("t{i}"), "input_schema": {"type": "object"}}))
        .collect();
    let c = capture(
        MODEL,
        &many,
        vec![user("go"), system(json!([remove_ref("t1")]))],
    );
    one_problem(&c, "more than 10000 available");
    let big = json!({"name": "big", "description": "x".repeat(4 * 1024 * 1024),
        "input_schema": {"type": "object"}});
    let c = capture(
        MODEL,
        &[tool("a")],
        vec![user("go"), system(json!([add_inline(big)]))],
    );
    one_problem(&c, "more than 4 MB");
}

#[test]
fn report_shows_the_tools_in_effect_and_no_unreachable_warning() {
    let c = json!({"model": MODEL, "max_tokens": 10,
        "tools": [tool("read_file"), tool("list_dir"), deferred("deploy")],
        "messages": [user("go"), system(json!([remove_ref("read_file"), add_ref("deploy"),
            add_inline(tool("db_query"))]))]});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    std::fs::write(&path, c.to_string()).unwrap();
    let path = path.to_str().unwrap();
    let text = stdout_of(&["report", path]);
    assert!(
        text.contains("the messages change the tools: 3 in effect"),
        "{text}"
    );
    assert!(text.contains("deploy     added at message 2"), "{text}");
    assert!(
        text.contains("db_query   defined inline at message 2"),
        "{text}"
    );
    assert!(text.contains("read_file  removed at message 2"), "{text}");
    assert!(!text.contains("cannot reach them"), "{text}");
    // `disabled` sends no tools and so no tool change: nothing is left to dangle.
    assert!(
        text.contains("disabled: 3 tool changes in the messages not sent"),
        "{text}"
    );
    assert!(!text.contains("disabled: error"), "{text}");
    // zero withholding every tool leaves the references naming tools it does not send: the
    // provider rejects its request.
    let zero = stdout_of(&["report", path, "-s", "defer", "--set", "defer.eligible=all"]);
    assert!(
        zero.contains("defer: error: message 2: a `tool_removal` names `read_file`, which this projection does not send"),
        "{zero}"
    );

    let json: Value = serde_json::from_str(&stdout_of(&["report", path, "--json"])).unwrap();
    let effect = &json["capture"]["in_effect"];
    let names: Vec<&str> = effect["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["list_dir", "deploy", "db_query"]);
    assert_eq!(effect["removed"][0]["from"], "declared");
    assert_eq!(effect["removed"][0]["removed_at"], 2);
    let count = |v: &Value| {
        tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(&serde_json::to_string(v).unwrap())
            .len()
    };
    assert_eq!(effect["inline_tokens"], count(&tool("db_query")));
    assert_eq!(effect["added_tokens"], count(&deferred("deploy")));
    // The matrix's rows are the declared list; the tools in effect stand above them.
    let matrix = stdout_of(&["report", path, "--matrix"]);
    assert!(
        matrix.contains("db_query   defined inline at message 2"),
        "{matrix}"
    );
    // `show --tool` finds a tool defined inline: its definition as the projection sends it.
    let shown = stdout_of(&["show", path, "-s", "direct", "--tool", "db_query"]);
    assert_eq!(
        shown.trim_end(),
        serde_json::to_string(&tool("db_query")).unwrap()
    );
    let mut minimal = tool("db_query");
    minimal["description"] = json!("The db_query tool");
    let shown = stdout_of(&["show", path, "-s", "minimal", "--tool", "db_query"]);
    assert_eq!(shown.trim_end(), serde_json::to_string(&minimal).unwrap());
    // `diff` names them under its summary.
    let diff = stdout_of(&["diff", path, "-s", "minimal", "--color", "never"]);
    assert!(
        diff.contains("tools in effect (the messages change them; 1 of their blocks sent differently, diffed as messages/N/...): list_dir (declared), deploy (added at message 2), db_query (defined inline at message 2), read_file (removed at message 2)"),
        "{diff}"
    );
    // A capture without changes keeps its report as it was.
    let plain: Value =
        serde_json::from_str(&stdout_of(&["report", "samples/small.json", "--json"])).unwrap();
    assert!(plain["capture"].get("in_effect").is_none());
}

fn analyze(path: &str) -> SessionReport {
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(&Strategy::ALL, &Settings::default(), &counter, None);
    let text = std::fs::read_to_string(path).unwrap();
    for (line, raw) in text.lines().enumerate() {
        let value: Value = serde_json::from_str(raw).unwrap();
        let status = value["response"]["status_code"].as_u64().map(|s| s as u16);
        let mut rec: TraceRecord = record(line + 1, value["request"]["body"].clone(), None);
        rec.status = status;
        analyzer.push(rec).unwrap();
    }
    analyzer.finish(TraceInfo {
        path: path.into(),
        format: "claude-trace",
        ..TraceInfo::default()
    })
}

#[test]
fn appended_changes_are_no_break_and_say_what_they_change() {
    let report = analyze("samples/traces/midconv-appended.jsonl");
    let turns = &report.turns;
    assert_eq!(turns.len(), 4);
    assert!(turns.iter().all(|t| t.thread == "t1"), "one thread");
    // Tools in effect: three declared (deploy deferred), two defined inline, bash out and
    // deploy in.
    let tools: Vec<Option<usize>> = turns.iter().map(|t| t.tools).collect();
    assert_eq!(tools, [Some(3), Some(3), Some(5), Some(5)]);
    assert!(turns.iter().all(|t| t.first_changed_byte.is_none()));
    assert_eq!(
        turns[2].appended,
        [
            "+mcp__gh__create_issue (appended)",
            "+mcp__gh__list_issues (appended)"
        ]
    );
    assert_eq!(
        turns[3].appended,
        ["\u{2212}bash (appended)", "+deploy (appended)"]
    );
    assert!(turns.iter().all(|t| t.prefix_check.is_none()));
    for strategy in &report.strategies {
        assert!(
            strategy.per_turn.iter().all(|t| t.prefix_check.is_none()),
            "{}",
            strategy.id
        );
    }
}

#[test]
fn edits_in_place_after_thinking_are_refused_on_a_binding_model() {
    let report = analyze("samples/traces/midconv-edited-in-place.jsonl");
    let marks: Vec<Option<&str>> = report
        .turns
        .iter()
        .map(|t| t.prefix_check.as_deref())
        .collect();
    assert_eq!(marks[..2], [None, None]);
    for mark in &marks[2..] {
        assert!(
            mark.is_some_and(
                |m| m.contains("HTTP 400") && m.contains("tool list was edited in place")
            ),
            "{mark:?}"
        );
    }
    let row = |id: &str, turn: usize| {
        report
            .strategies
            .iter()
            .find(|s| s.id == id)
            .unwrap()
            .per_turn[turn]
            .prefix_check
            .clone()
    };
    // The projected list of `original` changes on turns 3 and 4; `disabled` sends none.
    assert!(row("original", 2).is_some() && row("original", 3).is_some());
    assert!(row("original", 1).is_none());
    assert!(row("disabled", 2).is_none() && row("disabled", 3).is_none());
    // The text marks them and says what `!` means.
    let text = stdout_of(&["session", "samples/traces/midconv-edited-in-place.jsonl"]);
    assert!(text.contains("!*337"), "{text}");
    assert!(
        text.contains("! the provider refuses that request"),
        "{text}"
    );
    assert!(
        text.contains("! the provider refused this turn (HTTP 400: a thinking block bound to a different conversation): the tool list was edited in place"),
        "{text}"
    );
    assert!(
        text.contains("append (each tool list change as a system message"),
        "{text}"
    );
    let appended = stdout_of(&["session", "samples/traces/midconv-appended.jsonl"]);
    assert!(
        appended.contains("\u{2212}bash (appended), +deploy (appended)"),
        "{appended}"
    );
    assert!(!appended.contains("! the provider"), "{appended}");
    // With its usage: every turn agrees, and none is priced as a break (each turn's own
    // calibration ratio converts the tool-use prompt's offset differently; the cached prefix
    // is the same tokens on every turn).
    let json: Value = serde_json::from_str(&stdout_of(&[
        "session",
        "samples/traces/midconv-appended.jsonl",
        "--json",
    ]))
    .unwrap();
    for turn in json["turns"].as_array().unwrap() {
        assert_eq!(turn["agrees"], true, "{turn}");
        assert!(turn["break_price"].is_null(), "{turn}");
    }
}

#[test]
fn the_rule_marks_an_edit_in_place_without_a_response() {
    let tools1 = [tool("a")];
    let tools2 = [tool("a"), tool("b")];
    let thinking = json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hm", "signature": "s"},
        {"type": "tool_use", "id": "t", "name": "a", "input": {}}]});
    let result = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]});
    let body = |model: &str, tools: &[Value], messages: Vec<Value>| json!({"model": model, "max_tokens": 10, "system": "s", "tools": tools, "messages": messages});
    let run_with = |model: &str, deferred_b: bool, status: Option<u16>| {
        let counter = TokenCounter::new(Encoding::O200kBase);
        let mut analyzer =
            Analyzer::new(&[Strategy::Original], &Settings::default(), &counter, None);
        let second: Vec<Value> = if deferred_b {
            vec![tool("a"), deferred("b")]
        } else {
            tools2.to_vec()
        };
        analyzer
            .push(record(1, body(model, &tools1, vec![user("go")]), None))
            .unwrap();
        let mut rec = record(
            2,
            body(
                model,
                &second,
                vec![user("go"), thinking.clone(), result.clone()],
            ),
            None,
        );
        // The trace kept no response.
        rec.status = status;
        analyzer.push(rec).unwrap();
        analyzer.finish(TraceInfo::default())
    };
    let run = |model: &str, deferred_b: bool| run_with(model, deferred_b, None);
    let bound = run("claude-fable-5-1", false);
    assert_eq!(
        bound.turns[1].prefix_check.as_deref(),
        Some("the provider refuses this turn: the tool list was edited in place")
    );
    // A response the provider answered 200 is no refusal: the check failed all the same.
    assert_eq!(
        run_with("claude-fable-5-1", false, Some(200)).turns[1]
            .prefix_check
            .as_deref(),
        Some(
            "the prefix check fails: the tool list was edited in place after a thinking block; the provider answered (HTTP 200), so it dropped or kept that thinking rather than refuse"
        )
    );
    assert!(bound.strategies[0].per_turn[1].prefix_check.is_some());
    // A model that does not bind thinking: only a cache break.
    assert!(run("claude-fable-5", false).turns[1].prefix_check.is_none());
    // Appending a deferred tool nothing references is allowed.
    assert!(
        run("claude-fable-5-1", true).turns[1]
            .prefix_check
            .is_none()
    );
    // Moving a `cache_control` marker (in `tools` or `system`) is no edit.
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(&[Strategy::Original], &Settings::default(), &counter, None);
    let mut marked = tool("a");
    marked["cache_control"] = json!({"type": "ephemeral"});
    let with = |tools: &[Value], system: Value, messages: Vec<Value>| {
        json!({"model": "claude-fable-5-1", "max_tokens": 10, "system": system, "tools": tools,
            "messages": messages})
    };
    let plain = json!([{"type": "text", "text": "s"}]);
    let marked_system =
        json!([{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}]);
    analyzer
        .push(record(1, with(&[marked], plain, vec![user("go")]), None))
        .unwrap();
    analyzer
        .push(record(
            2,
            with(
                &tools1,
                marked_system,
                vec![user("go"), thinking.clone(), result.clone()],
            ),
            None,
        ))
        .unwrap();
    let moved = analyzer.finish(TraceInfo::default());
    assert!(moved.turns[1].first_changed_byte.is_some());
    assert!(moved.turns[1].prefix_check.is_none());
}

/// Resending the definition in effect changes nothing (PROVIDERS.md 1.3); the same definition
/// after a removal offers the tool again; a toolset defined inline with its tools deferred is
/// not in effect until a reference offers one.
#[test]
fn an_identical_definition_changes_nothing_unless_the_tool_was_withdrawn() {
    let thinking_free = |messages: Vec<Value>| capture(MODEL, &[tool("a"), tool("b")], messages);
    let answer = json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]});
    let again = thinking_free(vec![
        user("go"),
        answer.clone(),
        user("more"),
        system(json!([add_inline(tool("b"))])),
    ]);
    let effect = ToolChanges::read(&again).in_effect(&again);
    let b = effect.tools.iter().find(|t| t.name == "b").unwrap();
    assert_eq!(b.origin, Origin::Declared);
    let back = thinking_free(vec![
        user("go"),
        answer.clone(),
        user("more"),
        system(json!([remove_ref("b")])),
        answer.clone(),
        user("again"),
        system(json!([add_inline(tool("b"))])),
    ]);
    let effect = ToolChanges::read(&back).in_effect(&back);
    assert!(effect.has("b") && effect.removed.is_empty());
    let toolset = json!({"type": "mcp_toolset", "mcp_server_name": "cal",
        "default_config": {"defer_loading": true}});
    let deferred_set = thinking_free(vec![
        user("go"),
        answer,
        user("book"),
        system(json!([add_inline(toolset)])),
    ]);
    let effect = ToolChanges::read(&deferred_set).in_effect(&deferred_set);
    assert!(!effect.has("cal/*"), "{effect:?}");
    // A session says nothing of the identical one, and `+b` of the one after a removal.
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(&[Strategy::Original], &Settings::default(), &counter, None);
    for (line, c) in [again, back].into_iter().enumerate() {
        let mut body = c.body().clone();
        body["metadata"] = json!({"user_id": format!("u{line}")});
        analyzer.push(record(line + 1, body, None)).unwrap();
    }
    let report = analyzer.finish(TraceInfo::default());
    let said: Vec<&Vec<String>> = report.turns.iter().map(|t| &t.appended).collect();
    assert!(said[0].is_empty(), "{said:?}");
    assert_eq!(
        said[1],
        &[
            "\u{2212}b (appended)".to_owned(),
            "+b (appended)".to_owned()
        ]
    );
}

/// Inline definitions are the Claude API's only (PROVIDERS.md 1.1): a Bedrock InvokeModel or
/// Vertex body carrying one is refused; a reference is not.
#[test]
fn an_inline_definition_off_the_claude_api_is_refused() {
    let answer = json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]});
    let body = |version: &str, block: Value| {
        Capture::from_value(json!({"anthropic_version": version, "max_tokens": 100,
            "tools": [tool("a"), deferred("b")],
            "messages": [user("go"), answer.clone(), user("more"), system(json!([block]))]}))
        .unwrap()
    };
    let inline = || add_inline(tool("c"));
    for (version, platform) in [
        ("bedrock-2023-05-31", "Amazon Bedrock"),
        ("vertex-2023-10-16", "Google Cloud"),
    ] {
        let c = body(version, inline());
        let found = problems(&c);
        assert!(
            found.iter().any(|p| p.starts_with(&format!(
                "message 4: an inline tool definition on {platform}"
            ))),
            "{found:?}"
        );
        assert!(problems(&body(version, add_ref("b"))).is_empty());
    }
}

/// A custom tool search answers with `tool_reference` blocks in its `tool_result`: the tool it
/// returns is in effect from there, as the server tool search's are.
#[test]
fn a_custom_search_result_loads_its_tools() {
    let search = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "s1", "name": "find_tools", "input": {"q": "deploy"}}]});
    let result = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "s1",
        "content": [{"type": "tool_reference", "tool_name": "b"}]}]});
    let answer = json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]});
    let c = capture(
        MODEL,
        &[tool("find_tools"), deferred("b"), deferred("c")],
        vec![
            user("go"),
            search,
            result,
            answer,
            user("and"),
            system(json!([add_ref("c")])),
        ],
    );
    let effect = ToolChanges::read(&c).in_effect(&c);
    let b = effect.tools.iter().find(|t| t.name == "b").unwrap();
    assert_eq!(b.origin, Origin::Searched { message: 3 });
    assert_eq!(b.source(), "loaded by tool search at message 3");
    let names: Vec<&str> = effect.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["find_tools", "b", "c"]);
    assert!(effect.hidden.is_empty());
}
