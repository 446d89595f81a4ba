//! zero's deferred loading (`defer`, `defer-catalog`): STRATEGIES.md section 4.
//!
//! Most tests pin the seed's release (`zero.release=2ea36cf`, the reminder form, threshold 10);
//! those at the end run zero 0.8.0, the default.

use serde_json::{Value, json};
use toolprism::projection::Status;
use toolprism::strategies::zero::{
    catalog_text, deferred_line, input_hint, server_label, shorten, tool_search_schema,
};
use toolprism::{Capture, Projection, Settings, Strategy, project};

const VECTOR_LINE: &str = "mcp_github_create_issue: Overview — Create a new issue. | server: github | inputs (* required): body (string), labels (array), owner (string)*, repo (string)*; +1 more";

const SMALL_REMINDER: &str = "<system-reminder>\nThe tools listed below are available in this environment, but their full schemas are omitted from the current tool list to save context.\nCall tool_search with query \"select:Name1,Name2\" (the exact names before each colon) or with keywords to load a tool's full schema before calling it. Calling an omitted tool directly will fail with an input validation error.\nDo not call tool_search for tools already present in the current tool list, and do not guess or invent tool names.\n\nDeferred tools:\nmcp__time__now: Current time. | server: time | (none)\nmcp_github_create_issue: Overview — Create a new issue. | server: github | inputs (* required): body (string), labels (array), owner (string)*, repo (string)*; +1 more\n</system-reminder>";

const SMALL_CATALOG: &str = "# Tool discovery\n\nSearches over deferred tool metadata and exposes matching tools for the next model call.\n\nDeferred tools available through `tool_search`:\n- mcp__time__now — time\n- mcp_github_create_issue — github\nUse query `select:Name1,Name2` for exact names from this list, or use keywords to search tool names and descriptions. Do not call `tool_search` for tools already present in the current tool list.";

const TOOL_SEARCH_DESCRIPTION: &str = "Search for and load deferred tools by exact name or keyword. Use query \"select:Name1,Name2\" to load specific tools, or keywords to find matching tools. Loading a tool returns its full schema so you can call it on the next turn.";

fn vector_tool() -> Value {
    json!({
        "name": "mcp_github_create_issue",
        "description": "## Overview\nCreate a new issue.",
        "input_schema": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "body": {"type": "string"},
                "labels": {"type": "array", "items": {"type": "string"}},
                "owner": {"type": "string"},
                "repo": {"type": "string"}
            },
            "required": ["owner", "repo", "title"]
        }
    })
}

/// A Messages capture: a built-in tool, two MCP tools, the last message from the user.
fn small_messages() -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "tools": [
            {
                "name": "read_file",
                "description": "Read a file.",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
            },
            {
                "name": "mcp__time__now",
                "description": "Current time.",
                "input_schema": {"type": "object", "properties": {}}
            },
            vector_tool()
        ],
        "messages": [{"role": "user", "content": "hi"}]
    })
}

/// The seed's release (zero 2ea36cf) with these settings.
fn settings(pairs: &[&str]) -> Settings {
    let mut settings = Settings::default();
    settings
        .apply("zero.release=2ea36cf")
        .expect("valid setting");
    for pair in pairs {
        settings.apply(pair).expect("valid setting");
    }
    settings
}

fn load(body: Value) -> Capture {
    Capture::from_value(body).expect("capture loads")
}

fn sent_names(projection: &Projection, capture: &Capture) -> Vec<String> {
    projection
        .tools(capture)
        .map(|t| toolprism::tool::name(t).unwrap_or("").to_owned())
        .collect()
}

fn status_of(projection: &Projection, name: &str) -> Status {
    projection
        .outcomes
        .iter()
        .find(|o| o.name == name)
        .map(|o| o.status)
        .expect("tool has an outcome")
}

/// A Messages capture with `mcp` MCP tools and `builtin` other tools.
fn many(mcp: usize, builtin: usize) -> Value {
    let mut tools = Vec::new();
    for i in 0..mcp {
        tools.push(json!({
            "name": format!("mcp__srv__tool_{i:02}"),
            "description": format!("MCP tool {i}."),
            "input_schema": {"type": "object", "properties": {}}
        }));
    }
    for i in 0..builtin {
        tools.push(json!({
            "name": format!("builtin_{i:02}"),
            "description": format!("Built-in tool {i}."),
            "input_schema": {"type": "object", "properties": {}}
        }));
    }
    json!({"model": "claude-sonnet-4-5", "tools": tools, "messages": [{"role": "user", "content": "go"}]})
}

#[test]
fn spec_vector_line() {
    assert_eq!(deferred_line(&vector_tool()), VECTOR_LINE);
}

#[test]
fn defer_small_capture_reminder_and_tools() {
    let capture = load(small_messages());
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=2"]));
    assert_eq!(projection.added_text.as_deref(), Some(SMALL_REMINDER));
    assert_eq!(
        sent_names(&projection, &capture),
        ["read_file", "tool_search"]
    );
    assert_eq!(status_of(&projection, "mcp__time__now"), Status::Deferred);
    assert_eq!(
        status_of(&projection, "mcp_github_create_issue"),
        Status::Deferred
    );
    assert_eq!(status_of(&projection, "read_file"), Status::Kept);
    assert_eq!(status_of(&projection, "tool_search"), Status::Added);

    // The loader, written in the Messages shape, byte for byte.
    let loader = projection.tools(&capture).nth(1).expect("tool_search sent");
    assert_eq!(
        serde_json::to_string(loader).unwrap(),
        format!(
            "{{\"name\":\"tool_search\",\"description\":{},\"input_schema\":{{\"additionalProperties\":false,\"properties\":{{\"query\":{{\"description\":\"Either \\\"select:Name1,Name2\\\" for exact tool names, or space-separated keywords to match tool names and descriptions.\",\"type\":\"string\"}}}},\"required\":[\"query\"],\"type\":\"object\"}}}}",
            serde_json::to_string(TOOL_SEARCH_DESCRIPTION).unwrap()
        )
    );
    assert!(
        projection
            .notes
            .iter()
            .any(|n| n.text.contains("server labels are derived from tool names"))
    );
}

#[test]
fn defer_catalog_description() {
    let capture = load(small_messages());
    let projection = project(
        &capture,
        Strategy::DeferCatalog,
        &settings(&["defer.threshold=2"]),
    );
    assert_eq!(projection.added_text, None);
    let loader = projection.tools(&capture).last().expect("tool_search sent");
    assert_eq!(toolprism::tool::name(loader), Some("tool_search"));
    assert_eq!(toolprism::tool::description(loader), Some(SMALL_CATALOG));
    assert_eq!(
        catalog_text(["mcp__time__now", "mcp_github_create_issue"]),
        SMALL_CATALOG
    );
    // No reminder, so the body's conversation is untouched.
    let body = projection.request_body(&capture);
    assert_eq!(body["messages"], small_messages()["messages"]);
}

#[test]
fn catalog_line_without_server() {
    assert!(
        catalog_text(["read_file", "mcp_docs"])
            .contains("`tool_search`:\n- read_file\n- mcp_docs\nUse query")
    );
}

#[test]
fn defer_sorts_the_loader_among_the_others_catalog_puts_it_last() {
    let mut body = many(10, 0);
    let tools = body["tools"].as_array_mut().unwrap();
    tools.push(json!({"name": "zeta", "description": "z", "input_schema": {"type": "object"}}));
    tools.push(json!({"name": "alpha", "description": "a", "input_schema": {"type": "object"}}));
    let capture = load(body);
    let defer = project(&capture, Strategy::Defer, &settings(&[]));
    assert_eq!(
        sent_names(&defer, &capture),
        ["alpha", "tool_search", "zeta"]
    );
    let catalog = project(&capture, Strategy::DeferCatalog, &settings(&[]));
    assert_eq!(
        sent_names(&catalog, &capture),
        ["alpha", "zeta", "tool_search"]
    );
}

#[test]
fn threshold_nine_of_ten_is_inactive() {
    let capture = load(many(9, 2));
    let projection = project(&capture, Strategy::Defer, &settings(&[]));
    assert_eq!(projection.added_text, None);
    assert_eq!(projection.tool_count(), 11);
    assert!(!sent_names(&projection, &capture).contains(&"tool_search".to_owned()));
    assert!(projection.outcomes.iter().all(|o| o.status == Status::Kept));
    assert!(projection.notes.iter().any(|n| n.text
        == "deferring inactive: 9 of 11 tools eligible (MCP tools by mcp.prefixes), below defer.threshold=10; every tool sent in full, sorted by name"));
}

#[test]
fn threshold_ten_of_ten_is_active() {
    let capture = load(many(10, 2));
    let projection = project(&capture, Strategy::Defer, &settings(&[]));
    let deferred = projection
        .outcomes
        .iter()
        .filter(|o| o.status == Status::Deferred)
        .count();
    assert_eq!(deferred, 10);
    assert_eq!(
        sent_names(&projection, &capture),
        ["builtin_00", "builtin_01", "tool_search"]
    );
    let reminder = projection.added_text.as_deref().expect("reminder");
    assert!(reminder.contains("\nmcp__srv__tool_00: MCP tool 0. | server: srv | (none)\n"));
    assert!(
        reminder
            .ends_with("mcp__srv__tool_09: MCP tool 9. | server: srv | (none)\n</system-reminder>")
    );
}

#[test]
fn threshold_zero_disables() {
    let capture = load(many(20, 0));
    for strategy in [Strategy::Defer, Strategy::DeferCatalog] {
        let projection = project(&capture, strategy, &settings(&["defer.threshold=0"]));
        assert_eq!(projection.added_text, None);
        assert_eq!(projection.tool_count(), 20);
        assert!(projection.outcomes.iter().all(|o| o.status == Status::Kept));
        assert!(projection.notes.iter().any(|n| n.text
            == "deferring disabled (defer.threshold=0); every tool sent in full, sorted by name"));
    }
}

#[test]
fn eligible_all_defers_builtin_tools() {
    let capture = load(many(0, 10));
    let mcp_only = project(&capture, Strategy::Defer, &settings(&[]));
    assert_eq!(mcp_only.added_text, None);
    let all = project(
        &capture,
        Strategy::Defer,
        &settings(&["defer.eligible=all"]),
    );
    assert_eq!(sent_names(&all, &capture), ["tool_search"]);
    let reminder = all.added_text.as_deref().expect("reminder");
    // No server label for a non-MCP name.
    assert!(reminder.contains("\nbuiltin_00: Built-in tool 0. | (none)\n"));
    let catalog = project(
        &capture,
        Strategy::DeferCatalog,
        &settings(&["defer.eligible=all"]),
    );
    let loader = catalog.tools(&capture).last().unwrap();
    assert!(
        toolprism::tool::description(loader)
            .unwrap()
            .contains("\n- builtin_00\n- builtin_01\n")
    );
}

#[test]
fn mcp_prefixes_setting_decides_eligibility() {
    let capture = load(many(10, 0));
    let projection = project(&capture, Strategy::Defer, &settings(&["mcp.prefixes=ext_"]));
    assert_eq!(projection.added_text, None);
}

#[test]
fn inactive_sorts_by_name_in_byte_order() {
    let capture = load(json!({
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": "x"}],
        "tools": [
            {"name": "beta", "input_schema": {"type": "object"}},
            {"name": "alpha", "input_schema": {"type": "object"}},
            {"name": "_x", "input_schema": {"type": "object"}},
            {"name": "Zeta", "input_schema": {"type": "object"}},
            {"name": "Éclair", "input_schema": {"type": "object"}}
        ]
    }));
    let projection = project(&capture, Strategy::Defer, &settings(&[]));
    assert_eq!(
        sent_names(&projection, &capture),
        ["Zeta", "_x", "alpha", "beta", "Éclair"]
    );
    assert!(
        projection
            .notes
            .iter()
            .any(|n| n.text.starts_with("tool order changed"))
    );
    // Untouched entries keep their bytes.
    assert!(projection.outcomes.iter().all(|o| o.status == Status::Kept));
}

#[test]
fn withheld_lines_are_in_name_order() {
    let capture = load(json!({
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": "x"}],
        "tools": [
            {"name": "mcp_b_x", "description": "B.", "input_schema": {"type": "object"}},
            {"name": "mcp_a_x", "description": "A.", "input_schema": {"type": "object"}}
        ]
    }));
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=1"]));
    let reminder = projection.added_text.unwrap();
    assert!(reminder.contains(
        "Deferred tools:\nmcp_a_x: A. | server: a | (none)\nmcp_b_x: B. | server: b | (none)\n</system-reminder>"
    ));
}

#[test]
fn capture_tool_search_is_replaced_when_active_and_dropped_when_inactive() {
    let mut body = many(10, 0);
    body["tools"].as_array_mut().unwrap().push(json!({
        "name": "tool_search",
        "description": "The host's own loader.",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}
    }));
    let capture = load(body);
    let active = project(&capture, Strategy::Defer, &settings(&[]));
    let names = sent_names(&active, &capture);
    assert_eq!(names, ["tool_search"]);
    let loader = active.tools(&capture).next().unwrap();
    assert_eq!(
        toolprism::tool::description(loader),
        Some(TOOL_SEARCH_DESCRIPTION)
    );
    let own = active.outcome_of(10).unwrap();
    assert_eq!(own.status, Status::Removed);
    assert_eq!(own.reason, "replaced by zero's own tool_search");
    // Not counted as eligible: its own reminder line would be nonsense.
    assert!(!active.added_text.unwrap().contains("\ntool_search:"));

    let inactive = project(
        &capture,
        Strategy::Defer,
        &settings(&["defer.threshold=11"]),
    );
    assert_eq!(inactive.tool_count(), 10);
    assert_eq!(inactive.outcome_of(10).unwrap().status, Status::Removed);
}

#[test]
fn shorten_headings() {
    assert_eq!(shorten("# Title\nmore", 200), "Title");
    assert_eq!(shorten("###\t  Tabbed heading  ", 200), "Tabbed heading");
    assert_eq!(shorten("###### Six", 200), "Six");
    assert_eq!(shorten("####### Seven", 200), "####### Seven");
    assert_eq!(shorten("#NoSpace", 200), "#NoSpace");
    assert_eq!(shorten("#\n\n# \n  Body", 200), "#");
    assert_eq!(shorten("# #", 200), "#");
}

#[test]
fn shorten_generic_heading_joins_the_second_line() {
    assert_eq!(
        shorten("## Overview\nCreate a new issue.", 200),
        "Overview — Create a new issue."
    );
    assert_eq!(
        shorten("SUMMARY\n\n   second   line  \nthird", 200),
        "SUMMARY — second line"
    );
    assert_eq!(
        shorten("  description  \n# Next", 200),
        "description — Next"
    );
    assert_eq!(shorten("Overview", 200), "Overview");
    assert_eq!(shorten("Overview:\nx", 200), "Overview:");
    assert_eq!(shorten("Overviews\nx", 200), "Overviews");
    // Go's (?i) folds U+017F LONG S to `s`.
    assert_eq!(shorten("ſummary\nx", 200), "ſummary — x");
}

#[test]
fn shorten_whitespace() {
    assert_eq!(shorten("", 200), "");
    assert_eq!(shorten("\n \n\t\n", 200), "");
    assert_eq!(shorten("a  b\t\tc\r\x0cd", 200), "a b c d");
    // NBSP is trimmed at the ends (Unicode trim) but never collapsed inside.
    assert_eq!(shorten("\u{a0}a\u{a0}\u{a0}b\u{a0}", 200), "a\u{a0}\u{a0}b");
    // Vertical tab is not in Go's `\s`.
    assert_eq!(shorten("a\x0b\x0bb", 200), "a\x0b\x0bb");
    assert_eq!(shorten("\r\n  first\r\nsecond", 200), "first");
}

#[test]
fn shorten_truncation() {
    // Exactly max chars: unchanged, counted in chars not bytes.
    assert_eq!(shorten("hello", 5), "hello");
    assert_eq!(shorten("ééééé", 5), "ééééé");
    // One over: max − 1 chars, cut back to the last space.
    assert_eq!(shorten("hello world foo", 10), "hello…");
    // No space: a hard cut inside a word, never inside a UTF-8 sequence.
    assert_eq!(shorten("abcdefghijkl", 5), "abcd…");
    assert_eq!(shorten("éééééé", 5), "éééé…");
    // The kept part ends in a space: it is right-trimmed.
    assert_eq!(shorten("abc defgh", 5), "abc…");
    assert_eq!(shorten("ab", 1), "…");
    // Description length: 200 chars out.
    let long = "word ".repeat(80);
    let short = shorten(&long, 200);
    assert_eq!(short.chars().count(), 195);
    assert!(short.ends_with("word…"));
}

#[test]
fn server_labels() {
    let cases = [
        ("mcp__github__create_issue", Some("github")),
        ("mcp__my_server__tool", Some("my_server")),
        ("mcp__a__b__c", Some("a")),
        ("mcp--git--log", Some("git")),
        ("mcp_docs_lookup", Some("docs")),
        ("mcp_docs_look_up", Some("docs")),
        ("mcp_docs", None),
        ("mcp_docs_", None),
        ("mcp__github", None),
        ("mcp__github__", None),
        ("mcp____tool", None),
        ("mcp--git", None),
        ("mcp_", None),
        ("read_file", None),
        ("MCP_docs_x", None),
    ];
    for (name, label) in cases {
        assert_eq!(server_label(name), label, "{name}");
    }
}

#[test]
fn input_hints() {
    assert_eq!(input_hint(None), "(none)");
    assert_eq!(input_hint(Some(&json!({"type": "object"}))), "(none)");
    assert_eq!(
        input_hint(Some(&json!({"type": "object", "properties": {}}))),
        "(none)"
    );
    assert_eq!(
        input_hint(Some(&json!({
            "properties": {
                "b": {"type": ["", "integer", "null"]},
                "a": {"description": "no type"},
                "c": {"type": ["null", "string"]},
                "d": {"type": 5}
            },
            "required": ["d", "zzz"]
        }))),
        "inputs (* required): a (string), b (integer), c (null), d (string)*"
    );
    assert_eq!(
        input_hint(Some(
            &json!({"properties": {"q": {"type": "string"}}, "required": "q"})
        )),
        "inputs (* required): q (string)"
    );
    // A long hint is shortened to 360 chars.
    let mut properties = serde_json::Map::new();
    for i in 0..4 {
        properties.insert(format!("{}{i}", "p".repeat(120)), json!({"type": "string"}));
    }
    let hint = input_hint(Some(&json!({"properties": properties})));
    assert!(hint.chars().count() <= 360);
    assert!(hint.ends_with('…'));
}

#[test]
fn missing_description_gets_a_placeholder() {
    let line = deferred_line(&json!({"name": "mcp_x_y", "description": "  \n# \n"}));
    assert_eq!(line, "mcp_x_y: # | server: x | (none)");
    let line = deferred_line(&json!({"name": "mcp_x_y", "description": " \n\n "}));
    assert_eq!(
        line,
        "mcp_x_y: No description provided | server: x | (none)"
    );
    let line = deferred_line(&json!({"name": "noop"}));
    assert_eq!(line, "noop: No description provided | (none)");
}

#[test]
fn tool_search_schema_key_order() {
    assert_eq!(
        serde_json::to_string(&tool_search_schema()).unwrap(),
        r#"{"additionalProperties":false,"properties":{"query":{"description":"Either \"select:Name1,Name2\" for exact tool names, or space-separated keywords to match tool names and descriptions.","type":"string"}},"required":["query"],"type":"object"}"#
    );
}

fn reminder_of(projection: &Projection) -> String {
    projection.added_text.clone().expect("reminder")
}

#[test]
fn placement_messages_last_user_string() {
    let capture = load(small_messages());
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=2"]));
    let body = projection.request_body(&capture);
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "hi"},
            {"type": "text", "text": SMALL_REMINDER}
        ]}])
    );
    // Everything else in the body is as captured, tools aside.
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["max_tokens"], 1024);
}

#[test]
fn placement_messages_last_user_blocks() {
    let mut raw = small_messages();
    raw["messages"] = json!([
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
    ]);
    let capture = load(raw.clone());
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=2"]));
    let body = projection.request_body(&capture);
    let reminder = reminder_of(&projection);
    assert_eq!(body["messages"].as_array().unwrap().len(), 3);
    assert_eq!(body["messages"][0], raw["messages"][0]);
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
            {"type": "text", "text": reminder}
        ]})
    );
}

#[test]
fn placement_messages_last_assistant() {
    let mut raw = small_messages();
    raw["messages"] = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello."}
    ]);
    let capture = load(raw);
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=2"]));
    let body = projection.request_body(&capture);
    let reminder = reminder_of(&projection);
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": [{"type": "text", "text": reminder}]}
        ])
    );
}

#[test]
fn placement_chat() {
    let capture = load(json!({
        "model": "gpt-4.1",
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}],
        "tools": [
            {"type": "function", "function": {"name": "mcp_a_x", "description": "A.", "parameters": {"type": "object"}}},
            {"type": "function", "function": {"name": "shell", "description": "S.", "parameters": {"type": "object"}}}
        ]
    }));
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=1"]));
    let body = projection.request_body(&capture);
    let reminder = reminder_of(&projection);
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "hi"},
            {"role": "user", "content": reminder}
        ])
    );
    assert_eq!(
        body["tools"],
        json!([
            {"type": "function", "function": {"name": "shell", "description": "S.", "parameters": {"type": "object"}}},
            {"type": "function", "function": {"name": "tool_search", "description": TOOL_SEARCH_DESCRIPTION, "parameters": tool_search_schema()}}
        ])
    );
}

#[test]
fn placement_responses_string_input() {
    let capture = load(json!({
        "model": "gpt-5",
        "input": "hi",
        "tools": [
            {"type": "function", "name": "mcp_a_x", "description": "A.", "parameters": {"type": "object"}}
        ]
    }));
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=1"]));
    let body = projection.request_body(&capture);
    let reminder = reminder_of(&projection);
    assert_eq!(
        body["input"],
        json!([
            {"role": "user", "content": "hi"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": reminder}]}
        ])
    );
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "name": "tool_search", "description": TOOL_SEARCH_DESCRIPTION, "parameters": tool_search_schema()}])
    );
    // `input` keeps its place among the body's keys.
    let keys: Vec<&String> = body.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "input", "tools"]);
}

#[test]
fn placement_responses_list_input() {
    let first = json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]});
    let capture = load(json!({
        "model": "gpt-5",
        "input": [first.clone()],
        "tools": [
            {"type": "function", "name": "mcp_a_x", "description": "A.", "parameters": {"type": "object"}}
        ]
    }));
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=1"]));
    let body = projection.request_body(&capture);
    let input = body["input"].as_array().unwrap();
    assert_eq!(input.len(), 2);
    assert_eq!(input[0], first);
    assert_eq!(input[1]["content"][0]["text"], reminder_of(&projection));
}

#[test]
fn mcp_list_reports_the_reminder_as_added_text_only() {
    let raw = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"tools": [
            {"name": "mcp_fs_read", "description": "Read.", "inputSchema": {"type": "object"}}
        ]}
    });
    let capture = load(raw.clone());
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=1"]));
    assert!(projection.added_text.is_some());
    assert!(projection.notes.iter().any(|n| n.text
        == "the reminder has no place in a tools/list body: it is reported as added text only"));
    let body = projection.request_body(&capture);
    assert_eq!(
        body,
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"tools": [
                {"name": "tool_search", "description": TOOL_SEARCH_DESCRIPTION, "inputSchema": tool_search_schema()}
            ]}
        })
    );
}

#[test]
fn tool_choice_on_a_deferred_tool_is_linted() {
    let mut raw = small_messages();
    raw["tool_choice"] = json!({"type": "tool", "name": "mcp__time__now"});
    let capture = load(raw);
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=2"]));
    assert!(
        projection
            .notes
            .iter()
            .any(|n| n.text.contains("tool_choice names `mcp__time__now`")
                && n.text.contains("deferred"))
    );
}

#[test]
fn no_tools_no_change() {
    let capture = load(
        json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi"}]}),
    );
    let projection = project(&capture, Strategy::Defer, &settings(&[]));
    assert_eq!(projection.added_text, None);
    assert_eq!(projection.request_body(&capture), *capture.body());
}

#[test]
fn projection_is_deterministic() {
    let capture = load(many(12, 3));
    for strategy in [Strategy::Defer, Strategy::DeferCatalog] {
        let a = project(&capture, strategy, &settings(&[]));
        let b = project(&capture, strategy, &settings(&[]));
        assert_eq!(a.request_body(&capture), b.request_body(&capture));
        assert_eq!(a.added_text, b.added_text);
    }
}

#[test]
fn mcp_list_without_prefixes_suggests_eligible_all() {
    let tools: Vec<Value> = (0..10)
        .map(|i| json!({"name": format!("browser_{i}"), "inputSchema": {"type": "object"}}))
        .collect();
    let capture = load(json!({"tools": tools}));
    let hint = "a tools/list names its tools without an MCP prefix: defer.eligible=all treats them all as MCP tools";
    let inactive = project(&capture, Strategy::Defer, &settings(&[]));
    assert!(inactive.notes.iter().any(|n| n.text == hint));
    let active = project(
        &capture,
        Strategy::Defer,
        &settings(&["defer.eligible=all"]),
    );
    assert!(!active.notes.iter().any(|n| n.text == hint));
    assert_eq!(sent_names(&active, &capture), ["tool_search"]);
}

// ---------------------------------------------------------------------------------------------
// zero's schema conversion (`internal/mcp/schema.go`, SchemaFromMCP) before a line is written.

#[test]
fn schema_from_mcp_rules() {
    use toolprism::strategies::zero::schema_from_mcp;
    let schema = schema_from_mcp(Some(&json!({
        "type": "object",
        "properties": {
            "flag": true,
            "text": "a string is no schema",
            "list": [1],
            "nothing": null,
            "kept": {},
            "padded": {"type": "  integer \t"},
            "blank": {"type": "   "},
            "many": {"type": [" ", 3, " number ", "string"]},
            "none_usable": {"type": ["", "  "]},
            "odd": {"type": {"x": 1}}
        },
        "required": [" kept ", "", "  ", 7, "flag", "kept", "padded"]
    })));
    let properties: Vec<(&str, &str)> = schema
        .properties
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        properties,
        [
            ("blank", "string"),
            ("kept", "string"),
            ("many", "number"),
            ("none_usable", "string"),
            ("odd", "string"),
            ("padded", "integer")
        ]
    );
    assert_eq!(schema.required, ["kept", "flag", "kept", "padded"]);
    // `properties` other than an object, and a schema that is not an object, carry none.
    for other in [
        json!({"properties": [{"a": {}}], "required": ["a"]}),
        json!({"properties": "a"}),
        json!(true),
        json!("object"),
    ] {
        let converted = schema_from_mcp(Some(&other));
        assert!(converted.properties.is_empty(), "{other}");
        assert_eq!(input_hint(Some(&other)), "(none)");
    }
    // A `required` that is not an array marks nothing.
    assert!(
        schema_from_mcp(Some(&json!({"required": "a"})))
            .required
            .is_empty()
    );
}

#[test]
fn input_hint_after_conversion() {
    // A property whose schema is `true` is neither listed nor counted in `+N more`.
    let schema = json!({"properties": {
        "a": {"type": "string"}, "b": true, "c": {"type": " integer "}, "d": {"type": ["  ", "boolean"]},
        "e": {"type": ""}, "f": false
    }, "required": [" a", "e ", "b"]});
    assert_eq!(
        input_hint(Some(&schema)),
        "inputs (* required): a (string)*, c (integer), d (boolean), e (string)*"
    );
    // Only non-object properties: nothing to list.
    assert_eq!(
        input_hint(Some(&json!({"properties": {"x": true, "y": 1}}))),
        "(none)"
    );
    // Property names are not trimmed, required names are: ` q` is not required (the hint's
    // whitespace run is then collapsed by zero's shortening).
    assert_eq!(
        input_hint(Some(&json!({"properties": {" q": {}}, "required": [" q"]}))),
        "inputs (* required): q (string)"
    );
}

#[test]
fn withheld_line_uses_the_converted_schema() {
    let mut body = many(10, 0);
    body["tools"][0]["input_schema"] = json!({
        "type": "object",
        "properties": {"query": {"type": [" string ", "null"]}, "strict": true},
        "required": [" query "]
    });
    let capture = load(body);
    let projection = project(&capture, Strategy::Defer, &settings(&[]));
    let reminder = projection.added_text.clone().expect("a reminder");
    assert!(reminder.contains(
        "\nmcp__srv__tool_00: MCP tool 0. | server: srv | inputs (* required): query (string)*\n"
    ));
    // The sent entries are not rewritten: only the withheld ones are summarized.
    assert_eq!(
        status_of(&projection, "mcp__srv__tool_00"),
        Status::Deferred
    );
}

// ---------------------------------------------------------------------------------------------
// Carried from zero 2ea36cf `internal/tools/deferred_test.go`.

#[test]
fn shorten_description_upstream_cases() {
    let cases = [
        ("", 200, ""),
        ("Reads a file from disk.", 200, "Reads a file from disk."),
        (
            "\n\nReads a file.\nSecond line ignored.",
            200,
            "Reads a file.",
        ),
        ("## Read tool\nbody", 200, "Read tool"),
        (
            "Overview\nFetches a URL over HTTP.",
            200,
            "Overview — Fetches a URL over HTTP.",
        ),
        ("Runs   a\tshell    command", 200, "Runs a shell command"),
        (
            "alpha beta gamma delta epsilon zeta",
            20,
            "alpha beta gamma…",
        ),
        ("supercalifragilistic", 10, "supercali…"),
    ];
    for (text, max, expected) in cases {
        let got = shorten(text, max);
        assert_eq!(got, expected, "{text:?}");
        assert!(got.chars().count() <= max);
        assert!(!got.contains('\n'));
    }
}

#[test]
fn format_input_schema_hint_upstream_cases() {
    assert_eq!(input_hint(Some(&json!({"type": "object"}))), "(none)");
    assert_eq!(
        input_hint(Some(&json!({"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "number"}
        }, "required": ["a"]}))),
        "inputs (* required): a (string)*, b (number)"
    );
    // zero's native schema may leave a type blank (`q*`); from MCP JSON, SchemaFromMCP makes it
    // `string`, so a capture's untyped property always shows a type.
    assert_eq!(
        input_hint(Some(
            &json!({"type": "object", "properties": {"q": {}}, "required": ["q"]})
        )),
        "inputs (* required): q (string)*"
    );
    let six: serde_json::Map<String, Value> = ["a", "b", "c", "d", "e", "f"]
        .iter()
        .map(|n| ((*n).to_owned(), json!({"type": "string"})))
        .collect();
    assert_eq!(
        input_hint(Some(
            &json!({"type": "object", "properties": six, "required": ["a"]})
        )),
        "inputs (* required): a (string)*, b (string), c (string), d (string); +2 more"
    );
}

#[test]
fn mcp_server_from_tool_name_upstream_cases() {
    let cases = [
        ("mcp_github_create_issue", Some("github")),
        ("mcp_weather_forecast", Some("weather")),
        ("mcp_github_tool", Some("github")),
        ("read_file", None),
        ("tool_search", None),
        ("mcp_", None),
        ("mcp_github", None),
        ("", None),
        ("mcp_docs_lookup", Some("docs")),
    ];
    for (name, expected) in cases {
        assert_eq!(server_label(name), expected, "{name:?}");
    }
}

#[test]
fn format_deferred_tool_line_upstream_cases() {
    let url =
        json!({"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]});
    assert_eq!(
        deferred_line(
            &json!({"name": "mcp_github_fetch", "description": "Fetches a URL.", "input_schema": url})
        ),
        "mcp_github_fetch: Fetches a URL. | server: github | inputs (* required): url (string)*"
    );
    assert_eq!(
        deferred_line(
            &json!({"name": "read_file", "description": "Reads a file.", "input_schema": url})
        ),
        "read_file: Reads a file. | inputs (* required): url (string)*"
    );
    assert_eq!(
        deferred_line(
            &json!({"name": "ping", "description": "Pings.", "input_schema": {"type": "object"}})
        ),
        "ping: Pings. | (none)"
    );
    assert_eq!(
        deferred_line(
            &json!({"name": "noop", "description": "", "input_schema": {"type": "object"}})
        ),
        "noop: No description provided | (none)"
    );
    // 80 × "word ", trimmed: its first 199 chars end inside the 40th word, cut back to the
    // last space (39 words), plus `…`.
    let long = deferred_line(&json!({"name": "big", "description": "word ".repeat(80)}));
    let expected = format!("big: {}… | (none)", ["word"; 39].join(" "));
    assert_eq!(long, expected);
    assert_eq!(
        deferred_line(
            &json!({"name": "mcp_docs_lookup", "description": "Look up documentation for a symbol.",
            "input_schema": {"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]}})
        ),
        "mcp_docs_lookup: Look up documentation for a symbol. | server: docs | inputs (* required): symbol (string)*"
    );
}

#[test]
fn build_deferred_reminder_upstream_case() {
    let lines = [
        "mcp_github_fetch: Fetches a URL. | server: github | inputs (* required): url (string)*"
            .to_owned(),
        "mcp_weather_now: Current weather. | server: weather | (none)".to_owned(),
    ];
    let text = toolprism::strategies::zero::reminder_text(&lines);
    assert!(text.starts_with("<system-reminder>\n"));
    assert!(text.ends_with(&format!("\n{}\n{}\n</system-reminder>", lines[0], lines[1])));
}

// Carried from zero 2ea36cf `internal/agent/deferred_loop_test.go` (partitionTools).

#[test]
fn partition_tools_inactive_is_byte_identical_and_drops_tool_search() {
    let body = json!({"model": "claude-x", "messages": [{"role": "user", "content": "go"}], "tools": [
        {"name": "tool_search", "description": "load deferred tool schemas", "input_schema": {"type": "object"}},
        {"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}},
        {"name": "mcp__srv__a", "description": "tool a", "input_schema": {"type": "object", "additionalProperties": false}},
    ]});
    let capture = load(body);
    for threshold in ["defer.threshold=0", "defer.threshold=10"] {
        let projection = project(&capture, Strategy::Defer, &settings(&[threshold]));
        assert_eq!(
            sent_names(&projection, &capture),
            ["mcp__srv__a", "read_file"]
        );
        let sent: Vec<&Value> = projection.tools(&capture).collect();
        assert_eq!(sent[0], &capture.tools()[2]);
        assert_eq!(sent[1], &capture.tools()[1]);
        assert!(projection.added_text.is_none());
        assert_eq!(status_of(&projection, "tool_search"), Status::Removed);
    }
}

#[test]
fn partition_tools_below_threshold_inactive() {
    let capture = load(many(2, 0));
    let projection = project(&capture, Strategy::Defer, &settings(&[]));
    assert_eq!(
        sent_names(&projection, &capture),
        ["mcp__srv__tool_00", "mcp__srv__tool_01"]
    );
    assert!(projection.added_text.is_none());
}

#[test]
fn partition_tools_active_hides_unloaded() {
    // Nothing is loaded in a single captured request: both deferred tools are hidden.
    let body = json!({"model": "claude-x", "messages": [{"role": "user", "content": "go"}], "tools": [
        {"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}},
        {"name": "mcp__srv__alpha", "description": "alpha tool", "input_schema": {"type": "object"}},
        {"name": "mcp__srv__beta", "description": "beta tool", "input_schema": {"type": "object"}},
    ]});
    let capture = load(body);
    let projection = project(&capture, Strategy::Defer, &settings(&["defer.threshold=2"]));
    assert_eq!(
        sent_names(&projection, &capture),
        ["read_file", "tool_search"]
    );
    let reminder = projection.added_text.clone().unwrap();
    assert!(reminder.ends_with("Deferred tools:\nmcp__srv__alpha: alpha tool | server: srv | (none)\nmcp__srv__beta: beta tool | server: srv | (none)\n</system-reminder>"));
}

// ---------------------------------------------------------------------------------------------
// Hosted entries: never eligible, sent untouched after the function tools and the loader.

#[test]
fn hosted_entries_are_never_deferred() {
    let mut body = many(10, 1);
    let tools = body["tools"].as_array_mut().unwrap();
    tools.insert(
        0,
        json!({"type": "mcp", "server_label": "deepwiki", "server_url": "https://x"}),
    );
    tools.insert(3, json!({"type": "web_search"}));
    body["input"] = json!("go");
    body.as_object_mut().unwrap().remove("messages");
    // Responses entries: flat function tools.
    for entry in body["tools"].as_array_mut().unwrap() {
        if let Some(schema) = entry.as_object_mut().unwrap().remove("input_schema") {
            entry["type"] = json!("function");
            entry["parameters"] = schema;
        }
    }
    let capture = load(body);
    for eligible in ["defer.eligible=mcp", "defer.eligible=all"] {
        for (strategy, loader_last) in [(Strategy::Defer, false), (Strategy::DeferCatalog, true)] {
            let projection = project(&capture, strategy, &settings(&[eligible]));
            let labels: Vec<String> = projection
                .tools(&capture)
                .map(|t| toolprism::tool::label(t).into_owned())
                .collect();
            let mut expected: Vec<&str> = if eligible.ends_with("all") {
                vec![]
            } else {
                vec!["builtin_00"]
            };
            if loader_last || expected.is_empty() {
                expected.push("tool_search");
            } else {
                expected.insert(1, "tool_search");
            }
            expected.extend(["<mcp:deepwiki>", "<web_search>"]);
            assert_eq!(labels, expected, "{strategy} {eligible}");
            assert_eq!(status_of(&projection, "<web_search>"), Status::Kept);
            assert_eq!(status_of(&projection, "<mcp:deepwiki>"), Status::Kept);
            let reminder = projection.added_text.clone().unwrap_or_default();
            assert!(!reminder.contains("deepwiki") && !reminder.contains("web_search"));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// zero 0.8.0 (commit ad34dc8, the default): `internal/tools/deferred.go`, `tool_search.go` and the
// agent loop's `partitionToolsCached`; their tests carried with exact outputs.

use toolprism::strategies::zero::{NO_DEFERRED_TOOLS, discovery_line, tool_search_description};

const CATALOG_HEAD: &str = "# Tool discovery\n\nSearches over deferred tool metadata and exposes matching tools for the next model call.\n\nDeferred tools available through `tool_search`:\n";
const CATALOG_TAIL: &str = "\nUse query `select:Name1,Name2` for exact names from this list, or use keywords to search tool names and descriptions. Do not call `tool_search` for tools already present in the current tool list.";

/// zero 0.8.0 (the default) with these settings.
fn current(pairs: &[&str]) -> Settings {
    let mut settings = Settings::default();
    for pair in pairs {
        settings.apply(pair).expect("valid setting");
    }
    settings
}

fn anthropic(names: &[&str]) -> Capture {
    let tools: Vec<Value> = names
        .iter()
        .map(|name| json!({"name": name, "description": format!("{name} tool"), "input_schema": {"type": "object"}}))
        .collect();
    load(json!({"model": "m", "messages": [{"role": "user", "content": "go"}], "tools": tools}))
}

fn loader_description(projection: &Projection, capture: &Capture) -> String {
    projection
        .tools(capture)
        .find(|t| t["name"] == "tool_search")
        .expect("tool_search sent")["description"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn build_tool_search_description_no_sources_still_describes_discovery() {
    let text = tool_search_description([], &current(&[]));
    assert_eq!(
        text,
        format!("{CATALOG_HEAD}{NO_DEFERRED_TOOLS}{CATALOG_TAIL}")
    );
    for want in [
        "# Tool discovery",
        "No deferred tools are currently hidden.",
        "tool_search",
    ] {
        assert!(text.contains(want));
    }
}

#[test]
fn build_tool_search_description_lists_compact_tool_names_and_sources() {
    let settings = current(&[]);
    let text = tool_search_description(["swarm_spawn", "mcp_github_create_issue"], &settings);
    assert_eq!(
        text,
        format!(
            "{CATALOG_HEAD}- mcp_github_create_issue — github\n- swarm_spawn — swarm{CATALOG_TAIL}"
        )
    );
    assert!(!text.contains("Spawn a worker"));
}

#[test]
fn deferred_source_of_non_mcp_tools_is_the_first_name_segment() {
    let settings = current(&[]);
    assert_eq!(
        discovery_line("swarm_spawn", &settings),
        "swarm_spawn — swarm"
    );
    assert_eq!(discovery_line("read_file", &settings), "read_file — read");
    // A source equal to the name is left out; a blank name has no line.
    assert_eq!(discovery_line("bash", &settings), "bash");
    assert_eq!(discovery_line("_private", &settings), "_private");
    assert_eq!(discovery_line("  ", &settings), "");
    // MCP tools: the server (derived from the name, as zero's reported one).
    assert_eq!(
        discovery_line("mcp__srv__a", &settings),
        "mcp__srv__a — srv"
    );
    assert_eq!(
        discovery_line("mcp_weather_forecast", &settings),
        "mcp_weather_forecast — weather"
    );
    assert_eq!(discovery_line("mcp_github", &settings), "mcp_github — mcp");
}

#[test]
fn zero_0_8_0_defaults_threshold_three_and_one_form() {
    let settings = current(&[]);
    assert_eq!(settings.defer_threshold(), 3);
    let two = anthropic(&["read_file", "mcp__a__x", "mcp__a__y"]);
    let inactive = project(&two, Strategy::Defer, &settings);
    assert_eq!(
        sent_names(&inactive, &two),
        vec!["mcp__a__x", "mcp__a__y", "read_file"]
    );
    let three = anthropic(&["read_file", "mcp__a__x", "mcp__a__y", "mcp__b__z"]);
    let defer = project(&three, Strategy::Defer, &settings);
    let catalog = project(&three, Strategy::DeferCatalog, &settings);
    assert_eq!(sent_names(&defer, &three), vec!["read_file", "tool_search"]);
    assert_eq!(defer.added_text, None);
    let bytes = |p: &Projection| {
        p.tools(&three)
            .map(toolprism::tool::compact)
            .collect::<Vec<_>>()
    };
    assert_eq!(bytes(&defer), bytes(&catalog));
    assert_eq!(
        loader_description(&defer, &three),
        format!("{CATALOG_HEAD}- mcp__a__x — a\n- mcp__a__y — a\n- mcp__b__z — b{CATALOG_TAIL}")
    );
    // The seed's release keeps its reminder and threshold, and says it is older.
    let seed = project(&three, Strategy::Defer, &settings_seed_threshold(3));
    assert!(seed.added_text.is_some());
    assert!(seed.notes.iter().any(|n| n.text
        == "reproduces zero 2ea36cf, an older release (zero.release=2ea36cf); the current release is zero 0.8.0"));
    assert!(!defer.notes.iter().any(|n| n.text.contains("older release")));
}

fn settings_seed_threshold(threshold: usize) -> Settings {
    settings(&[&format!("defer.threshold={threshold}")])
}

#[test]
fn zero_release_moves_the_threshold_default_only_until_it_is_set() {
    let mut s = current(&[]);
    s.apply("zero.release=2ea36cf").unwrap();
    assert_eq!(s.defer_threshold(), 10);
    s.apply("defer.threshold=5").unwrap();
    s.apply("zero.release=0.8.0").unwrap();
    assert_eq!(s.defer_threshold(), 5);
    assert!(s.apply("zero.release=0.7.0").is_err());
}

#[test]
fn zero_0_8_0_defers_its_own_deferred_builtins() {
    let capture = anthropic(&[
        "read_file",
        "bash",
        "web_fetch",
        "web_search",
        "swarm_spawn",
    ]);
    let projection = project(&capture, Strategy::Defer, &current(&[]));
    assert_eq!(
        sent_names(&projection, &capture),
        vec!["read_file", "tool_search"]
    );
    assert_eq!(
        loader_description(&projection, &capture),
        format!(
            "{CATALOG_HEAD}- bash\n- swarm_spawn — swarm\n- web_fetch — web\n- web_search — web{CATALOG_TAIL}"
        )
    );
    assert_eq!(status_of(&projection, "bash"), Status::Deferred);
    // The seed's release defers MCP tools only.
    let seed = project(&capture, Strategy::Defer, &settings(&["defer.threshold=1"]));
    assert_eq!(seed.status, toolprism::ProjectionStatus::NotApplicable("deferring inactive: 0 of 5 tools eligible (MCP tools by mcp.prefixes), below defer.threshold=1; every tool sent in full, sorted by name".to_owned()));
}

#[test]
fn zero_0_8_0_catalog_lines_are_distinct_and_sorted() {
    let capture = anthropic(&["mcp__srv__b", "mcp__srv__a", "mcp__srv__b", "mcp__aa__c"]);
    let projection = project(&capture, Strategy::Defer, &current(&[]));
    assert_eq!(
        loader_description(&projection, &capture),
        format!(
            "{CATALOG_HEAD}- mcp__aa__c — aa\n- mcp__srv__a — srv\n- mcp__srv__b — srv{CATALOG_TAIL}"
        )
    );
}

#[test]
fn partition_tools_inactive_is_byte_identical_and_drops_tool_search_0_8_0() {
    let capture = anthropic(&["read_file", "mcp__srv__a", "tool_search"]);
    let projection = project(&capture, Strategy::Defer, &current(&["defer.threshold=0"]));
    assert_eq!(
        sent_names(&projection, &capture),
        vec!["mcp__srv__a", "read_file"]
    );
    assert_eq!(status_of(&projection, "mcp__srv__a"), Status::Kept);
    assert_eq!(status_of(&projection, "tool_search"), Status::Removed);
}

#[test]
fn partition_tools_below_threshold_inactive_0_8_0() {
    let capture = anthropic(&["mcp__srv__a", "mcp__srv__b"]);
    let projection = project(&capture, Strategy::Defer, &current(&["defer.threshold=10"]));
    assert_eq!(
        sent_names(&projection, &capture),
        vec!["mcp__srv__a", "mcp__srv__b"]
    );
}

fn loaded(names: &[&str]) -> std::collections::BTreeSet<String> {
    names.iter().map(std::string::ToString::to_string).collect()
}

#[test]
fn partition_tools_active_hides_unloaded_exposes_loaded() {
    let capture = anthropic(&[
        "read_file",
        "tool_search",
        "mcp__srv__alpha",
        "mcp__srv__beta",
    ]);
    let projection = toolprism::pipeline::project_loaded(
        &capture,
        Strategy::Defer,
        &current(&["defer.threshold=2"]),
        &loaded(&["mcp__srv__alpha"]),
    );
    assert_eq!(
        sent_names(&projection, &capture),
        vec!["read_file", "tool_search", "mcp__srv__alpha"]
    );
    assert_eq!(status_of(&projection, "mcp__srv__beta"), Status::Deferred);
    let description = loader_description(&projection, &capture);
    assert!(
        description.contains("mcp__srv__alpha"),
        "the catalog keeps loaded names"
    );
    assert!(description.contains("mcp__srv__beta"));
}

#[test]
fn partition_tools_active_appends_loaded_tool_after_eager_block() {
    let capture = anthropic(&["zeta", "read_file", "mcp__srv__alpha", "mcp__srv__beta"]);
    let projection = toolprism::pipeline::project_loaded(
        &capture,
        Strategy::DeferCatalog,
        &current(&["defer.threshold=2"]),
        &loaded(&["mcp__srv__alpha"]),
    );
    // Appended after tool_search, not sorted in among the eager tools.
    assert_eq!(
        sent_names(&projection, &capture),
        vec!["read_file", "zeta", "tool_search", "mcp__srv__alpha"]
    );
    // The seed's catalog form sorted it among them.
    let seed = toolprism::pipeline::project_loaded(
        &capture,
        Strategy::DeferCatalog,
        &settings(&["defer.threshold=2"]),
        &loaded(&["mcp__srv__alpha"]),
    );
    assert_eq!(
        sent_names(&seed, &capture),
        vec!["mcp__srv__alpha", "read_file", "zeta", "tool_search"]
    );
}

#[test]
fn partition_tools_active_nothing_hidden_keeps_stable_catalog() {
    let capture = anthropic(&["mcp__srv__alpha", "mcp__srv__beta"]);
    let settings = current(&["defer.threshold=2"]);
    let before = project(&capture, Strategy::Defer, &settings);
    let after = toolprism::pipeline::project_loaded(
        &capture,
        Strategy::Defer,
        &settings,
        &loaded(&["mcp__srv__alpha", "mcp__srv__beta"]),
    );
    assert_eq!(
        sent_names(&after, &capture),
        vec!["tool_search", "mcp__srv__alpha", "mcp__srv__beta"]
    );
    assert_eq!(
        loader_description(&before, &capture),
        loader_description(&after, &capture)
    );
}
