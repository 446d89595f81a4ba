//! a3s code's presentation profiles (`STRATEGIES.md` section 2): every vector, asserted exactly.

use serde_json::{Value, json};
use toolprism::projection::{Level, Projection, ProjectionStatus};
use toolprism::strategies::a3s;
use toolprism::{Capture, Settings, Status, Strategy, project, tool};

const PROFILES: [Strategy; 4] = [
    Strategy::Direct,
    Strategy::Adaptive,
    Strategy::Code,
    Strategy::Disabled,
];

const PREAMBLE: &str = "Run a sandboxed JavaScript program through the governed Tool executor. Define async function run(ctx, inputs), call await ctx.tool(name, args), and set allowed_tools to the smallest required subset. Every nested call keeps the Run permission, confirmation, cancellation, and audit boundaries. Available Tool signatures: ";

// ---------------------------------------------------------------------------------------------
// Capture builders, one per shape.

fn schema(required: &[&str]) -> Value {
    let properties: serde_json::Map<String, Value> = required
        .iter()
        .map(|name| ((*name).to_owned(), json!({"type": "string"})))
        .collect();
    json!({"type": "object", "properties": properties, "required": required})
}

fn anthropic_tool(name: &str, description: &str) -> Value {
    json!({"name": name, "description": description, "input_schema": schema(&[])})
}

fn messages(tools: Vec<Value>, user: &str) -> Capture {
    capture(json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "You are a coding agent.",
        "messages": [{"role": "user", "content": user}],
        "tools": tools,
    }))
}

fn chat(tools: Vec<Value>, user: &str) -> Capture {
    let tools: Vec<Value> = tools
        .into_iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t["name"], "description": t["description"], "parameters": t["input_schema"]
            }})
        })
        .collect();
    capture(json!({
        "model": "gpt-4.1",
        "messages": [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": user}],
        "tools": tools,
    }))
}

fn responses(tools: Vec<Value>, user: &str) -> Capture {
    let tools: Vec<Value> = tools
        .into_iter()
        .map(|t| {
            json!({"type": "function", "name": t["name"], "description": t["description"],
                   "parameters": t["input_schema"], "strict": false})
        })
        .collect();
    capture(json!({"model": "gpt-5", "input": user, "tools": tools}))
}

fn mcp_list(tools: Vec<Value>) -> Capture {
    let tools: Vec<Value> = tools
        .into_iter()
        .map(|t| json!({"name": t["name"], "description": t["description"], "inputSchema": t["input_schema"]}))
        .collect();
    capture(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}))
}

fn capture(body: Value) -> Capture {
    Capture::from_value(body).expect("test capture loads")
}

fn named(names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .map(|n| anthropic_tool(n, &format!("{n} tool")))
        .collect()
}

fn all_shapes(tools: Vec<Value>, user: &str) -> Vec<Capture> {
    vec![
        messages(tools.clone(), user),
        chat(tools.clone(), user),
        responses(tools, user),
    ]
}

fn run(capture: &Capture, strategy: Strategy) -> Projection {
    project(capture, strategy, &Settings::default())
}

/// `adaptive` under a3s-code-core 9.0's vocabulary selector.
fn vocab(capture: &Capture) -> Projection {
    project(
        capture,
        Strategy::Adaptive,
        &with(&[("adaptive.selector", "vocabulary")]),
    )
}

fn with(settings: &[(&str, &str)]) -> Settings {
    let mut out = Settings::default();
    for (key, value) in settings {
        out.set(key, value).expect("valid setting");
    }
    out
}

fn sent_names(projection: &Projection, capture: &Capture) -> Vec<String> {
    projection
        .tools(capture)
        .map(|t| tool::name(t).unwrap_or("").to_owned())
        .collect()
}

fn reason_of<'a>(projection: &'a Projection, name: &str) -> &'a str {
    &projection
        .outcomes
        .iter()
        .find(|o| o.name == name)
        .expect("tool has an outcome")
        .reason
}

/// Names and schemas of sent originals equal the capture's; sent order is byte order.
fn assert_names_and_schemas_unchanged(projection: &Projection, capture: &Capture) {
    let mut previous: Option<String> = None;
    for sent in projection.sent.iter().flatten() {
        let entry = sent.entry(capture);
        let name = tool::name(entry).expect("sent tool has a name").to_owned();
        if let Some(prev) = &previous {
            assert!(prev.as_str() < name.as_str(), "{prev} !< {name}");
        }
        if let Some(index) = sent.origin {
            let original = &capture.tools()[index];
            assert_eq!(tool::name(original), Some(name.as_str()));
            assert_eq!(
                tool::schema(original),
                tool::schema(entry),
                "schema of {name}"
            );
            assert_eq!(tool::schema_key(original), tool::schema_key(entry));
        }
        previous = Some(name);
    }
}

fn code_description(capture: &Capture, settings: &Settings) -> String {
    let projection = project(capture, Strategy::Code, settings);
    assert_eq!(projection.tool_count(), 1, "{:?}", projection.notes);
    let entry = projection.tools(capture).next().expect("one tool");
    assert_eq!(tool::name(entry), Some("program"));
    let description = tool::description(entry).expect("description").to_owned();
    description
        .strip_prefix(PREAMBLE)
        .expect("description starts with the preamble")
        .to_owned()
}

/// The catalog part of `code`'s description for a capture of `program` plus `tools`.
fn catalog_of(tools: Vec<Value>, settings: &Settings) -> String {
    let mut all = vec![anthropic_tool("program", "Run a program.")];
    all.extend(tools);
    code_description(&messages(all, "work"), settings)
}

// ---------------------------------------------------------------------------------------------
// Canonical source: sort and refusals.

#[test]
fn direct_sorts_by_name_in_byte_order_in_every_shape() {
    let shuffled = [
        "émile", "a9", "_under", "alpha", "Zeta", "a_b", "a10", "Beta", "a-b",
    ];
    for capture in all_shapes(named(&shuffled), "work") {
        let projection = run(&capture, Strategy::Direct);
        assert_eq!(
            sent_names(&projection, &capture),
            [
                "Beta", "Zeta", "_under", "a-b", "a10", "a9", "a_b", "alpha", "émile"
            ]
        );
        // Entries are the originals, untouched.
        for sent in projection.sent.as_ref().expect("tools sent") {
            assert!(sent.replaced.is_none());
        }
        assert!(projection.outcomes.iter().all(|o| o.status == Status::Kept));
        assert!(projection.refusal().is_none());
        assert!(
            projection
                .notes
                .iter()
                .any(|n| n.text.contains("tool order"))
        );
        assert_names_and_schemas_unchanged(&projection, &capture);
    }
}

#[test]
fn direct_keeps_every_key_including_cache_control() {
    let mut tools = named(&["write", "read"]);
    tools[1]["cache_control"] = json!({"type": "ephemeral"});
    tools[1]["x_extra"] = json!([1, 2]);
    let capture = messages(tools.clone(), "work");
    let projection = run(&capture, Strategy::Direct);
    let sent: Vec<&Value> = projection.tools(&capture).collect();
    assert_eq!(sent, [&tools[1], &tools[0]]);
}

#[test]
fn duplicate_names_are_refused_by_every_profile() {
    for capture in all_shapes(named(&["read", "bash", "read", "write"]), "hello") {
        for strategy in PROFILES {
            let projection = run(&capture, strategy);
            let error = projection
                .refusal()
                .map(str::to_owned)
                .expect("a3s refuses duplicates");
            assert!(error.contains("`read`"), "{error}");
            assert!(error.contains("2 times"), "{error}");
            assert!(projection.sent.is_none());
            assert!(projection.drop_tool_choice);
            assert_eq!(projection.outcomes.len(), 4);
            for outcome in &projection.outcomes {
                assert_eq!(outcome.status, Status::Removed);
                assert_eq!(outcome.reason, error);
            }
            assert!(projection.notes.iter().any(|n| n.text == error));
        }
    }
}

#[test]
fn first_duplicate_in_byte_order_is_named() {
    let capture = messages(named(&["zz", "bb", "zz", "bb", "bb"]), "work");
    let error = run(&capture, Strategy::Disabled)
        .refusal()
        .map(str::to_owned)
        .expect("refused");
    assert!(error.contains("`bb` appears 3 times"), "{error}");
}

#[test]
fn more_than_4096_tools_are_refused_by_every_profile() {
    let names: Vec<String> = (0..4097).map(|i| format!("tool_{i:05}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let capture = messages(named(&refs), "work");
    for strategy in PROFILES {
        let projection = run(&capture, strategy);
        let error = projection
            .refusal()
            .map(str::to_owned)
            .expect("a3s refuses 4097 tools");
        assert!(error.contains("4097") && error.contains("4096"), "{error}");
        assert!(projection.sent.is_none());
        assert!(projection.drop_tool_choice);
        assert!(
            projection
                .outcomes
                .iter()
                .all(|o| o.status == Status::Removed && o.reason == error)
        );
    }
    // Exactly 4096 is accepted.
    let capture = messages(named(&refs[..4096]), "work");
    let projection = run(&capture, Strategy::Direct);
    assert!(projection.refusal().is_none());
    assert_eq!(projection.tool_count(), 4096);
}

#[test]
fn the_tool_limit_is_a_setting() {
    let capture = messages(named(&["a", "b", "c"]), "work");
    let settings = with(&[("a3s.max_tools", "2")]);
    let projection = project(&capture, Strategy::Disabled, &settings);
    let error = projection.refusal().map(str::to_owned).expect("refused");
    assert!(error.contains("3 tools exceed its limit of 2"), "{error}");
}

// ---------------------------------------------------------------------------------------------
// disabled

#[test]
fn disabled_sends_no_tools_key_and_no_tool_choice() {
    let mut body = json!({
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": "fix it"}],
        "tools": named(&["read", "bash"]),
        "tool_choice": {"type": "tool", "name": "read"},
    });
    let capture = capture(body.clone());
    let projection = run(&capture, Strategy::Disabled);
    assert!(projection.sent.is_none());
    assert!(projection.drop_tool_choice);
    assert!(projection.refusal().is_none());
    assert!(
        projection
            .notes
            .iter()
            .any(|n| n.text == "a3s presents no tools")
    );
    assert!(projection.notes.iter().any(|n| {
        n.text
            .starts_with("the request carries no `tools` key and no `tool_choice`")
    }));
    assert!(
        projection
            .outcomes
            .iter()
            .all(|o| o.status == Status::Removed)
    );
    let sent = projection.request_body(&capture);
    let object = body.as_object_mut().expect("object");
    object.shift_remove("tools");
    object.shift_remove("tool_choice");
    assert_eq!(sent, body);
}

#[test]
fn disabled_on_a_tools_list_sends_an_empty_list() {
    let capture = mcp_list(named(&["read_file", "write_file"]));
    let projection = run(&capture, Strategy::Disabled);
    assert_eq!(projection.sent.as_deref().map(<[_]>::len), Some(0));
    assert_eq!(
        projection.request_body(&capture),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
    );
}

// ---------------------------------------------------------------------------------------------
// adaptive: the vectors

#[test]
fn github_issue_keeps_github_and_drops_linear() {
    let tools = named(&[
        "read",
        "mcp__github__create_issue",
        "mcp__linear__create_ticket",
    ]);
    for capture in all_shapes(tools, "create a github issue for the crash") {
        let projection = vocab(&capture);
        assert_eq!(
            sent_names(&projection, &capture),
            ["mcp__github__create_issue", "read"]
        );
        assert_eq!(
            reason_of(&projection, "mcp__linear__create_ticket"),
            "not selected: the context names neither this MCP tool's server nor its action, and has no MCP terms"
        );
        assert_names_and_schemas_unchanged(&projection, &capture);
    }
}

#[test]
fn report_fixture_keeps_only_the_use_report_tool() {
    let tools = named(&[
        "mcp__use_report__fixture_tool",
        "mcp__use_browser__browser_open",
        "mcp__use_office__office_write_cell",
        "bash",
    ]);
    for capture in all_shapes(tools, "Call the report fixture") {
        let projection = vocab(&capture);
        assert_eq!(
            sent_names(&projection, &capture),
            ["bash", "mcp__use_report__fixture_tool"]
        );
    }
}

#[test]
fn hello_keeps_nothing() {
    let tools = named(&["read", "bash", "web_search", "mcp__github__create_issue"]);
    for capture in all_shapes(tools, "hello!") {
        let projection = vocab(&capture);
        assert!(projection.sent.is_none(), "no tools key");
        assert!(projection.drop_tool_choice);
        assert!(projection.refusal().is_none());
        for outcome in &projection.outcomes {
            assert_eq!(outcome.status, Status::Removed);
            assert_eq!(outcome.reason, "not selected: the context is a greeting");
        }
        assert!(
            projection
                .notes
                .iter()
                .any(|n| n.text.contains("greeting (`hello`)"))
        );
    }
    // An MCP tools/list keeps its (empty) list.
    let capture = mcp_list(named(&["read"]));
    let projection = project(
        &capture,
        Strategy::Adaptive,
        &with(&[
            ("adaptive.selector", "vocabulary"),
            ("adaptive.prompt", "hello!"),
        ]),
    );
    assert_eq!(projection.sent.as_deref().map(<[_]>::len), Some(0));
}

#[test]
fn special_tools_follow_their_flags() {
    let tools = named(&[
        "batch",
        "bash",
        "custom_thing",
        "git",
        "program",
        "read",
        "web_fetch",
        "web_search",
    ]);
    let cases: &[(&str, &[&str])] = &[
        ("fix the failing parser tests", &[]),
        ("look at the website", &["web_fetch", "web_search"]),
        ("搜索一下", &["web_fetch", "web_search"]),
        ("what is new today", &["web_fetch", "web_search"]),
        ("fetch the article", &["web_fetch"]),
        ("open the config", &["web_fetch"]),
        ("打开链接", &["web_fetch"]),
        ("commit the fix", &["git"]),
        ("show the catalog", &["git"]), // `log` inside `catalog`: a plain substring test
        ("推送到远端", &["git"]),
        ("run these in parallel", &["batch"]),
        ("FAN OUT over files", &["batch"]),
        ("多个文件", &["batch"]),
        ("build a repo map first", &["program"]),
        ("use ptc", &["program"]),
        ("仓库地图", &["program"]),
        ("代码搜索", &["program", "web_fetch", "web_search"]), // `搜索` is also a web term
    ];
    for (prompt, specials) in cases {
        let capture = messages(tools.clone(), prompt);
        let projection = vocab(&capture);
        let mut expected: Vec<&str> = vec!["bash", "custom_thing", "read"];
        expected.extend(specials.iter());
        expected.sort_unstable();
        assert_eq!(sent_names(&projection, &capture), expected, "{prompt}");
    }
}

#[test]
fn removed_special_tools_carry_their_reason() {
    let capture = messages(
        named(&["batch", "git", "program", "web_fetch", "web_search"]),
        "fix the parser",
    );
    let projection = vocab(&capture);
    assert_eq!(
        reason_of(&projection, "web_search"),
        "not selected: no web/search terms in the context"
    );
    assert_eq!(
        reason_of(&projection, "web_fetch"),
        "not selected: no web or fetch terms in the context"
    );
    assert_eq!(
        reason_of(&projection, "git"),
        "not selected: no git terms in the context"
    );
    assert_eq!(
        reason_of(&projection, "batch"),
        "not selected: no batch/parallel terms in the context"
    );
    assert_eq!(
        reason_of(&projection, "program"),
        "not selected: no program/PTC terms in the context"
    );
    // Nothing kept: no tools key, no tool_choice.
    assert!(projection.sent.is_none());
    assert!(projection.drop_tool_choice);
    assert!(
        projection
            .notes
            .iter()
            .any(|n| n.text.contains("keeps no tool"))
    );
}

#[test]
fn the_mcp_flag_keeps_every_mcp_tool() {
    let tools = named(&["mcp__a__x", "mcp__linear__create_ticket", "read"]);
    for prompt in [
        "use the MCP servers",
        "ask the external server",
        "调用外部工具",
    ] {
        let capture = messages(tools.clone(), prompt);
        let projection = vocab(&capture);
        assert_eq!(
            sent_names(&projection, &capture),
            ["mcp__a__x", "mcp__linear__create_ticket", "read"],
            "{prompt}"
        );
    }
}

#[test]
fn mcp_rule_details() {
    let keep = |name: &str, prompt: &str| -> bool {
        let capture = messages(named(&[name]), prompt);
        vocab(&capture).tool_count() == 1
    };
    // The whole lowercased name (its `mcp` also sets the MCP flag).
    assert!(keep("mcp__ab__cd", "please call MCP__AB__CD now"));
    // Server tokens: longer than 2 bytes, not generic.
    assert!(keep("mcp__linear__zz", "file it in linear"));
    assert!(!keep("mcp__gh__zz", "gh is fine"));
    assert!(keep("mcp__éé__zz", "ask éé")); // 2 chars, 4 bytes
    assert!(!keep("mcp__browser__zz", "the browser"));
    assert!(!keep("mcp__use_office__zz", "use office"));
    assert!(keep("mcp__my-server.v2__zz", "the server said"));
    // Action tokens: generic ones (and server-generic ones) do not count.
    assert!(!keep("mcp__zz__create_issue_list", "create a list"));
    assert!(keep("mcp__zz__create_issue_list", "an issue"));
    assert!(!keep("mcp__zz__use_tool_agent", "use a tool agent"));
    assert!(keep("mcp__zz__take_screenshot", "a screenshot please"));
    // The lowercased name is compared.
    assert!(keep("mcp__Linear__zz", "linear"));
    // Prefix is the literal `mcp__`: other names are always kept.
    assert!(keep("mcp_github_create_issue", "nothing relevant"));
    assert!(keep("mcp--github--create_issue", "nothing relevant"));
    assert!(keep("MCP__github__create_issue", "nothing relevant"));
    assert!(!keep("mcp__github__create_issue", "nothing relevant"));
}

// ---------------------------------------------------------------------------------------------
// adaptive: greeting normalization and context

#[test]
fn greeting_normalization() {
    let greetings = [
        "hello!",
        "  Hello!!! ",
        "HI THERE",
        "hi   there",
        "hi\tthere\n",
        "hi\u{3000}there",
        "\u{a0}hey\u{a0}",
        "👋 hi",
        "hi 👋👋",
        "你好！",
        "谢谢。",
        "～早～",
        "…hello…",
        "what's up?",
        "Whats up",
        "how's it going?",
        "Good Morning.",
        "(thanks)",
        "\"thank you\"",
        "...hello...",
        "嗨，",
        "在吗？",
        "你好吗？",
        "、多谢、",
    ];
    for text in greetings {
        assert!(a3s::is_greeting(text), "{text:?} is a greeting");
    }
    let not_greetings = [
        "",
        "   ",
        "hello, there",
        "hi, fix the bug",
        "hello world",
        "hi 👋🏽",
        "¡hello",
        "hello\u{200b}",
        "good night",
        "你好，帮我看看",
        "howdy",
    ];
    for text in not_greetings {
        assert!(!a3s::is_greeting(text), "{text:?} is not a greeting");
    }
    assert_eq!(a3s::normalize_greeting("  HeLLo \n THERE!?"), "hello there");
    assert_eq!(a3s::normalize_greeting("👋。Hi, Bob！"), "hi, bob");
    assert_eq!(a3s::normalize_greeting("'what's up'"), "what's up");
}

#[test]
fn context_is_the_newest_six_messages_with_text() {
    let tools = named(&["git", "read"]);
    let build = |texts: &[&str]| -> Capture {
        let messages: Vec<Value> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                json!({"role": role, "content": t})
            })
            .collect();
        capture(json!({"model": "claude-x", "messages": messages, "tools": tools}))
    };
    let kept = |capture: &Capture| sent_names(&vocab(capture), capture);
    // `commit` in the 7th newest message: out of the window.
    let seven = build(&["commit it", "a", "b", "c", "d", "e", "f"]);
    assert_eq!(kept(&seven), ["read"]);
    // In the 6th newest: inside.
    let six = build(&["x", "commit it", "a", "b", "c", "d", "e"]);
    assert_eq!(kept(&six), ["git", "read"]);
    // Messages without text do not take a slot.
    let with_empty = capture(json!({"model": "claude-x", "tools": tools, "messages": [
        {"role": "user", "content": "commit it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"},
        {"role": "user", "content": [{"type": "text", "text": "e"}, {"type": "text", "text": "f"}]},
    ]}));
    assert_eq!(kept(&with_empty), ["git", "read"]);
    // The setting changes the window.
    let settings = with(&[
        ("adaptive.selector", "vocabulary"),
        ("a3s.context_messages", "1"),
    ]);
    let projection = project(&six, Strategy::Adaptive, &settings);
    assert_eq!(sent_names(&projection, &six), ["read"]);
}

#[test]
fn context_skips_tool_messages_and_the_system_prompt() {
    let tools = named(&["git", "read"]);
    // Chat: a role `tool` message and the system message mention git; neither counts.
    let capture = self::capture(
        json!({"model": "gpt-4.1", "tools": chat_tools(&tools), "messages": [
            {"role": "system", "content": "always commit your work"},
            {"role": "user", "content": "fix the parser"},
            {"role": "tool", "tool_call_id": "c", "content": "git status: clean"},
        ]}),
    );
    assert_eq!(sent_names(&vocab(&capture), &capture), ["read"]);
    // Anthropic: the system prompt is not context.
    let capture = self::capture(
        json!({"model": "claude-x", "system": "commit often", "tools": tools,
        "messages": [{"role": "user", "content": "fix the parser"}]}),
    );
    assert_eq!(sent_names(&vocab(&capture), &capture), ["read"]);
}

fn chat_tools(tools: &[Value]) -> Vec<Value> {
    tools
        .iter()
        .map(|t| json!({"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]}}))
        .collect()
}

#[test]
fn responses_context_reads_message_items() {
    let tools: Vec<Value> = named(&["git", "read"])
        .into_iter()
        .map(|t| json!({"type": "function", "name": t["name"], "description": t["description"], "parameters": t["input_schema"]}))
        .collect();
    let build = |user: &str| {
        capture(json!({"model": "gpt-5", "tools": tools, "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "commit often"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": user}]},
            {"type": "function_call_output", "call_id": "c", "output": "git log"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
        ]}))
    };
    // The developer message is the system prompt; the call output is not a message.
    let capture = build("fix the parser");
    assert_eq!(sent_names(&vocab(&capture), &capture), ["read"]);
    let capture = build("rebase onto main");
    assert_eq!(sent_names(&vocab(&capture), &capture), ["git", "read"]);
}

#[test]
fn greeting_is_judged_on_the_whole_joined_context() {
    let capture = capture(
        json!({"model": "claude-x", "tools": named(&["read"]), "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
        ]}),
    );
    // "hi\nhello" collapses to "hi hello": not a greeting.
    assert_eq!(sent_names(&vocab(&capture), &capture), ["read"]);
}

#[test]
fn adaptive_prompt_replaces_the_context() {
    let capture = messages(named(&["git", "read", "web_search"]), "commit the fix");
    let settings = with(&[
        ("adaptive.selector", "vocabulary"),
        ("adaptive.prompt", "search the web"),
    ]);
    let projection = project(&capture, Strategy::Adaptive, &settings);
    assert_eq!(sent_names(&projection, &capture), ["read", "web_search"]);
    assert!(
        projection
            .notes
            .iter()
            .any(|n| n.text.contains("adaptive.prompt"))
    );
    let settings = with(&[
        ("adaptive.selector", "vocabulary"),
        ("adaptive.prompt", "Thank you!"),
    ]);
    assert!(
        project(&capture, Strategy::Adaptive, &settings)
            .sent
            .is_none()
    );
}

#[test]
fn adaptive_drops_tool_choice_when_nothing_is_kept() {
    let capture = capture(json!({
        "model": "gpt-4.1",
        "messages": [{"role": "user", "content": "hi there"}],
        "tools": chat_tools(&named(&["read"])),
        "tool_choice": "required",
    }));
    let projection = vocab(&capture);
    let body = projection.request_body(&capture);
    assert!(body.get("tools").is_none());
    assert!(body.get("tool_choice").is_none());
}

// ---------------------------------------------------------------------------------------------
// code

#[test]
fn code_exact_description_on_a_small_capture() {
    for capture in all_shapes(
        vec![
            json!({"name": "write", "description": "Write a file\nMore text.", "input_schema": schema(&["file_path", "content"])}),
            json!({"name": "program", "description": "Original program description", "input_schema": schema(&["type"])}),
            json!({"name": "read", "description": "Read a file", "input_schema": schema(&["file_path"])}),
        ],
        "change the file",
    ) {
        let projection = run(&capture, Strategy::Code);
        let entries: Vec<&Value> = projection.tools(&capture).collect();
        assert_eq!(entries.len(), 1);
        assert_eq!(
            tool::description(entries[0]),
            Some(
                format!(
                    "{PREAMBLE}read(file_path) Read a file; write(file_path,content) Write a file"
                )
                .as_str()
            )
        );
        // Everything but the description is the original program entry.
        let mut expected = capture.tools()[1].clone();
        tool::set_description(
            &mut expected,
            tool::description(entries[0]).expect("desc").to_owned(),
        );
        assert_eq!(entries[0], &expected);
        assert_names_and_schemas_unchanged(&projection, &capture);
        let program = projection.outcome_of(1).expect("program outcome");
        assert_eq!(program.status, Status::Changed);
        for name in ["read", "write"] {
            assert_eq!(reason_of(&projection, name), "cataloged in program");
        }
    }
}

#[test]
fn code_required_handling() {
    let tool_with = |name: &str, schema: Value| json!({"name": name, "description": "D", "input_schema": schema});
    let catalog = catalog_of(
        vec![
            tool_with(
                "a",
                json!({"type": "object", "required": ["x", "x", 3, null, "y", ""]}),
            ),
            tool_with("b", json!({"type": "object"})),
            tool_with("c", json!({"type": "object", "required": "x"})),
            json!({"name": "d", "description": "D"}),
        ],
        &Settings::default(),
    );
    assert_eq!(catalog, "a(x,x,y,) D; b() D; c() D; d() D");
}

#[test]
fn code_first_line_rules() {
    let cases = [
        ("line one\r\nline two", "line one"),
        ("a\rb\nc", "a\rb"),
        ("a\r", "a"),
        ("  padded \t\nnext", "padded"),
        ("\nsecond line", ""),
        ("\u{3000}wide\u{a0}", "wide"),
        ("\u{200b}zwsp", "\u{200b}zwsp"),
        ("", ""),
    ];
    for (description, expected) in cases {
        let catalog = catalog_of(vec![anthropic_tool("t", description)], &Settings::default());
        assert_eq!(catalog, format!("t() {expected}"), "{description:?}");
    }
    // No description at all: the trailing space stays.
    let catalog = catalog_of(
        vec![json!({"name": "t", "input_schema": schema(&[])})],
        &Settings::default(),
    );
    assert_eq!(catalog, "t() ");
}

#[test]
fn code_cuts_descriptions_to_192_bytes_at_a_char_boundary() {
    // 1 + 2×100 bytes: byte 192 falls inside an `é`, so the cut is at 191.
    let description = format!("a{}", "é".repeat(100));
    let catalog = catalog_of(
        vec![anthropic_tool("t", &description)],
        &Settings::default(),
    );
    assert_eq!(catalog, format!("t() a{}", "é".repeat(95)));
    // Exactly 192 bytes stay; no ellipsis; no trim after the cut.
    let exact = "x".repeat(192);
    let catalog = catalog_of(vec![anthropic_tool("t", &exact)], &Settings::default());
    assert_eq!(catalog, format!("t() {exact}"));
    let spaced = format!("{} tail", "x".repeat(191));
    let catalog = catalog_of(vec![anthropic_tool("t", &spaced)], &Settings::default());
    assert_eq!(catalog, format!("t() {} ", "x".repeat(191)));
    // The limit is a setting.
    let settings = with(&[("a3s.desc_bytes", "4")]);
    let catalog = catalog_of(vec![anthropic_tool("t", "ab€cd")], &settings);
    assert_eq!(catalog, "t() ab");
}

#[test]
fn code_skips_signatures_past_65536_bytes_and_later_ones_may_fit() {
    let huge_required: Vec<String> = (0..7000).map(|i| format!("field_{i:04}")).collect();
    let huge_refs: Vec<&str> = huge_required.iter().map(String::as_str).collect();
    let huge =
        json!({"name": "b_huge", "description": "Huge.", "input_schema": schema(&huge_refs)});
    let capture = messages(
        vec![
            anthropic_tool("a_small", "A"),
            huge,
            anthropic_tool("c_small", "C"),
            anthropic_tool("program", "P"),
        ],
        "work",
    );
    let catalog = code_description(&capture, &Settings::default());
    assert_eq!(
        catalog,
        "a_small() A; c_small() C; ... 1 additional Tools omitted"
    );
    let projection = run(&capture, Strategy::Code);
    assert_eq!(
        reason_of(&projection, "b_huge"),
        "not cataloged: program's catalog would pass 65536 bytes (a3s.catalog_bytes)"
    );
    assert_eq!(reason_of(&projection, "a_small"), "cataloged in program");
    assert!(
        projection
            .notes
            .iter()
            .any(|n| n.text.contains("lists 2 tools")
                && n.text.contains("1 omitted past 65536 bytes"))
    );
}

#[test]
fn code_catalog_boundary_and_suffix() {
    // `a() 12345` is 9 bytes, `; ` 2 more. With 20 bytes: 9 + 2 + 9 = 20 fits exactly.
    let tools = || {
        vec![
            anthropic_tool("a", "12345"),
            anthropic_tool("b", "12345"),
            anthropic_tool("c", "12345"),
            anthropic_tool("d", "1"),
        ]
    };
    let settings = with(&[("a3s.catalog_bytes", "20")]);
    assert_eq!(
        catalog_of(tools(), &settings),
        "a() 12345; b() 12345; ... 2 additional Tools omitted"
    );
    // With 27 the short `d() 1` fits after `c` is skipped: 20 + 2 + 5 = 27.
    let settings = with(&[("a3s.catalog_bytes", "27")]);
    assert_eq!(
        catalog_of(tools(), &settings),
        "a() 12345; b() 12345; d() 1; ... 1 additional Tools omitted"
    );
    // The first signature skipped: the next has no separator; all skipped: the suffix alone.
    let settings = with(&[("a3s.catalog_bytes", "5")]);
    assert_eq!(
        catalog_of(tools(), &settings),
        "d() 1; ... 3 additional Tools omitted"
    );
    let settings = with(&[("a3s.catalog_bytes", "4")]);
    assert_eq!(
        catalog_of(tools(), &settings),
        "; ... 4 additional Tools omitted"
    );
}

#[test]
fn code_catalog_of_program_alone_is_none() {
    let capture = messages(vec![anthropic_tool("program", "P")], "work");
    assert_eq!(code_description(&capture, &Settings::default()), "none");
}

#[test]
fn code_without_program_presents_nothing() {
    for capture in all_shapes(named(&["read", "write"]), "work") {
        let projection = run(&capture, Strategy::Code);
        assert!(projection.sent.is_none());
        assert!(projection.drop_tool_choice);
        assert!(projection.refusal().is_none());
        assert!(projection.notes.iter().any(
            |n| n.text.contains("no `program` tool") && n.text.contains("code.gateway=inject")
        ));
        assert!(
            projection
                .outcomes
                .iter()
                .all(|o| o.status == Status::Removed)
        );
    }
    let capture = mcp_list(named(&["read"]));
    let projection = run(&capture, Strategy::Code);
    assert_eq!(projection.sent.as_deref().map(<[_]>::len), Some(0));
}

#[test]
fn code_gateway_inject_adds_a3s_program() {
    let settings = with(&[("code.gateway", "inject")]);
    let shapes = [
        (messages(named(&["write", "read"]), "w"), "input_schema"),
        (chat(named(&["write", "read"]), "w"), "parameters"),
        (responses(named(&["write", "read"]), "w"), "parameters"),
        (mcp_list(named(&["write", "read"])), "inputSchema"),
    ];
    for (capture, key) in shapes {
        let projection = project(&capture, Strategy::Code, &settings);
        let entries: Vec<&Value> = projection.tools(&capture).collect();
        assert_eq!(entries.len(), 1);
        assert_eq!(tool::name(entries[0]), Some("program"));
        assert_eq!(tool::schema_key(entries[0]), Some(key));
        assert_eq!(tool::schema(entries[0]), Some(&a3s::a3s_program_schema()));
        assert_eq!(
            tool::description(entries[0]),
            Some(format!("{PREAMBLE}read() read tool; write() write tool").as_str())
        );
        let added = projection.outcomes.last().expect("added outcome");
        assert_eq!(added.status, Status::Added);
        assert_eq!(reason_of(&projection, "read"), "cataloged in program");
    }
    // A capture that has `program` keeps its own, inject or not.
    let capture = messages(named(&["program", "read"]), "w");
    let projection = project(&capture, Strategy::Code, &settings);
    assert_eq!(
        projection.outcome_of(0).map(|o| o.status),
        Some(Status::Changed)
    );
    assert!(
        projection
            .outcomes
            .iter()
            .all(|o| o.status != Status::Added)
    );
}

#[test]
fn names_and_schemas_never_change() {
    let tools = vec![
        json!({"name": "zeta", "description": "Z\nmore", "input_schema": schema(&["a", "b"]), "cache_control": {"type": "ephemeral"}}),
        json!({"name": "program", "description": "P", "input_schema": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}),
        json!({"name": "mcp__github__create_issue", "description": "Issue", "input_schema": schema(&["title"])}),
        json!({"name": "git", "description": "Git", "input_schema": schema(&[])}),
        json!({"name": "Alpha", "description": "", "input_schema": {"type": "object"}}),
    ];
    for capture in all_shapes(tools, "commit and open a github issue with a program") {
        for strategy in PROFILES {
            let projection = run(&capture, strategy);
            assert!(projection.refusal().is_none());
            assert_names_and_schemas_unchanged(&projection, &capture);
        }
        let adaptive = run(&capture, Strategy::Adaptive);
        assert_eq!(
            sent_names(&adaptive, &capture),
            [
                "Alpha",
                "git",
                "mcp__github__create_issue",
                "program",
                "zeta"
            ]
        );
    }
}

#[test]
fn projections_are_deterministic() {
    let capture = messages(
        named(&["mcp__b__x", "program", "read", "web_fetch", "a"]),
        "open the page",
    );
    for strategy in PROFILES {
        let first = run(&capture, strategy);
        let second = run(&capture, strategy);
        assert_eq!(
            first.request_body(&capture),
            second.request_body(&capture),
            "{strategy}"
        );
        assert_eq!(first.notes, second.notes);
        assert_eq!(first.outcomes, second.outcomes);
    }
}

#[test]
fn a_capture_without_tools_gains_no_tools_key() {
    let body = json!({"model": "claude-x", "messages": [{"role": "user", "content": "commit"}]});
    let capture = capture(body.clone());
    for strategy in PROFILES {
        let projection = run(&capture, strategy);
        assert!(projection.refusal().is_none());
        assert_eq!(projection.request_body(&capture), body, "{strategy}");
    }
}

// ---------------------------------------------------------------------------------------------
// adaptive.selector: a3s-code-core 9.1.x (greeting, the default) and 9.0.x (vocabulary)

fn greeting_run(capture: &Capture) -> Projection {
    project(
        capture,
        Strategy::Adaptive,
        &with(&[("adaptive.selector", "greeting")]),
    )
}

/// Both selectors, default first.
fn both_selectors() -> [Settings; 2] {
    [
        Settings::default(),
        with(&[("adaptive.selector", "vocabulary")]),
    ]
}

#[test]
fn selector_setting_and_release() {
    let settings = Settings::default();
    assert_eq!(
        settings.get("adaptive.selector").as_deref(),
        Some("greeting")
    );
    assert_eq!(a3s::release(&settings), "a3s-code-core 9.1.3");
    let vocabulary = with(&[("adaptive.selector", "vocabulary")]);
    assert_eq!(
        vocabulary.get("adaptive.selector").as_deref(),
        Some("vocabulary")
    );
    assert_eq!(a3s::release(&vocabulary), "a3s-code-core 9.0.0");
    let mut bad = Settings::default();
    assert_eq!(
        bad.set("adaptive.selector", "classifier")
            .unwrap_err()
            .to_string(),
        "bad value for `adaptive.selector`: `classifier` (greeting or vocabulary)"
    );
}

#[test]
fn greeting_selector_keeps_every_tool_on_an_ordinary_turn() {
    let tools = named(&["web_search", "read", "mcp__github__create_issue", "git"]);
    for capture in all_shapes(tools, "Work on the repository.") {
        let projection = run(&capture, Strategy::Adaptive);
        assert_eq!(
            sent_names(&projection, &capture),
            ["git", "mcp__github__create_issue", "read", "web_search"]
        );
        assert!(projection.outcomes.iter().all(|o| o.status == Status::Kept));
        // The info notes, in order (the reorder warning sorts before them).
        let info: Vec<&str> = projection
            .notes
            .iter()
            .filter(|n| n.level == Level::Info)
            .map(|n| n.text.as_str())
            .collect();
        assert_eq!(
            info,
            [
                "context: the one conversation message (23 chars); selector: greeting (a3s-code-core 9.1.3)",
                "a3s-code-core 9.1.3 keeps every tool unless the turn is a bare greeting, so adaptive saves nothing here: a3s dropped its 9.0 vocabulary classifier because a phrasing it missed hid a tool from the model for good (adaptive.selector=vocabulary reproduces 9.0)"
            ]
        );
    }
}

#[test]
fn greeting_selector_drops_everything_on_a_greeting() {
    let tools = named(&["read", "git"]);
    for capture in all_shapes(tools, "hello!") {
        let projection = run(&capture, Strategy::Adaptive);
        assert!(projection.sent.is_none());
        assert!(projection.drop_tool_choice);
        assert!(
            projection
                .outcomes
                .iter()
                .all(|o| o.reason == "not selected: the context is a greeting")
        );
    }
}

// Carried from a3s-code-core 9.1.3 `tools/selector.rs` tests.

fn selector_sample() -> Vec<Value> {
    named(&[
        "read",
        "write",
        "bash",
        "web_search",
        "web_fetch",
        "download",
        "git",
        "batch",
        "program",
        "mcp__github__create_issue",
        "mcp__browser__browser_navigate",
    ])
}

const SAMPLE_SORTED: [&str; 11] = [
    "bash",
    "batch",
    "download",
    "git",
    "mcp__browser__browser_navigate",
    "mcp__github__create_issue",
    "program",
    "read",
    "web_fetch",
    "web_search",
    "write",
];

#[test]
fn every_registered_tool_is_visible_on_every_turn() {
    let capture = messages(selector_sample(), "fix the failing test in src/lib.rs");
    assert_eq!(sent_names(&greeting_run(&capture), &capture), SAMPLE_SORTED);
}

#[test]
fn an_unmatched_phrasing_still_exposes_the_specialized_tools() {
    for prompt in ["who won the election", "查一下最新动态", "google it"] {
        let capture = messages(selector_sample(), prompt);
        assert_eq!(
            sent_names(&greeting_run(&capture), &capture),
            SAMPLE_SORTED,
            "{prompt}"
        );
    }
    // 9.0's vocabulary missed two of the three phrasings: that is why 9.1 dropped it.
    let web_kept = |prompt: &str| {
        let capture = messages(selector_sample(), prompt);
        sent_names(&vocab(&capture), &capture).contains(&"web_search".to_owned())
    };
    assert!(!web_kept("who won the election"));
    assert!(web_kept("查一下最新动态")); // `最新`
    assert!(!web_kept("google it"));
}

#[test]
fn standalone_greetings_do_not_expose_tools() {
    // 9.1.3's greetings, then 9.0.0's (`tools/selector.rs` in each), under both selectors.
    for settings in both_selectors() {
        for greeting in [
            "hi",
            "hello",
            "你好",
            "thanks",
            "Hello!",
            "how are you?",
            "您好！",
            "在吗？",
            "谢谢",
        ] {
            let capture = messages(selector_sample(), greeting);
            let projection = project(&capture, Strategy::Adaptive, &settings);
            assert!(projection.sent.is_none(), "{greeting:?}");
            assert_eq!(projection.tool_count(), 0);
        }
    }
}

#[test]
fn greeting_with_an_action_keeps_the_tools() {
    let capture = messages(selector_sample(), "hello, read the config file");
    assert_eq!(sent_names(&greeting_run(&capture), &capture), SAMPLE_SORTED);
}

#[test]
fn select_tools_for_messages_uses_the_recent_conversation() {
    let capture = capture(
        json!({"model": "claude-x", "tools": selector_sample(), "messages": [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "hi!"},
            {"role": "user", "content": "read the file"},
        ]}),
    );
    assert_eq!(sent_names(&greeting_run(&capture), &capture), SAMPLE_SORTED);
}

// Carried from a3s-code-core 9.0.0 `tools/selector.rs` tests (the vocabulary selector).

#[test]
fn default_turn_keeps_core_and_hides_special_tools() {
    let tools = named(&[
        "read",
        "write",
        "edit",
        "patch",
        "bash",
        "search",
        "ls",
        "code_symbols",
        "code_navigation",
        "code_diagnostics",
        "web_search",
        "web_fetch",
        "download",
        "git",
        "batch",
        "program",
        "task",
        "Skill",
        "search_skills",
        "mcp__github__create_issue",
    ]);
    let capture = messages(tools, "fix the failing parser tests");
    let projection = vocab(&capture);
    assert_eq!(
        sent_names(&projection, &capture),
        [
            "Skill",
            "bash",
            "code_diagnostics",
            "code_navigation",
            "code_symbols",
            "edit",
            "ls",
            "patch",
            "read",
            "search",
            "search_skills",
            "task",
            "write"
        ]
    );
    assert_eq!(
        reason_of(&projection, "download"),
        "not selected: no download terms in the context"
    );
}

#[test]
fn greeting_with_an_action_keeps_relevant_tools() {
    let capture = messages(
        named(&["read", "search", "web_search"]),
        "Hello! Inspect this repository for the parser implementation.",
    );
    assert_eq!(sent_names(&vocab(&capture), &capture), ["read", "search"]);
}

#[test]
fn program_terms_enable_program_tool() {
    let capture = messages(
        named(&["read", "search", "program"]),
        "build a repo map before changing the module",
    );
    assert_eq!(
        sent_names(&vocab(&capture), &capture),
        ["program", "read", "search"]
    );
}

#[test]
fn web_and_git_terms_enable_relevant_tools() {
    let capture = messages(
        named(&["read", "web_search", "web_fetch", "git"]),
        "look up the latest release notes and commit the fix",
    );
    assert_eq!(
        sent_names(&vocab(&capture), &capture),
        ["git", "read", "web_fetch", "web_search"]
    );
}

#[test]
fn download_terms_enable_download_tool() {
    let tools = named(&["read", "web_fetch", "download"]);
    for capture in all_shapes(tools, "download the release artifact file") {
        let projection = vocab(&capture);
        assert_eq!(sent_names(&projection, &capture), ["download", "read"]);
        assert_eq!(
            reason_of(&projection, "web_fetch"),
            "not selected: no web or fetch terms in the context"
        );
    }
    // Each download term on its own.
    for prompt in [
        "download it",
        "save file here",
        "fetch file x",
        "a binary file",
        "the artifact file",
    ] {
        let capture = messages(named(&["download", "read"]), prompt);
        assert_eq!(
            sent_names(&vocab(&capture), &capture),
            ["download", "read"],
            "{prompt}"
        );
    }
    let capture = messages(named(&["download", "read"]), "save the file");
    assert_eq!(sent_names(&vocab(&capture), &capture), ["read"]);
}

#[test]
fn mcp_tools_need_mcp_intent_or_direct_match() {
    let capture = messages(
        named(&[
            "read",
            "mcp__github__create_issue",
            "mcp__linear__create_ticket",
        ]),
        "create a github issue for this bug",
    );
    assert_eq!(
        sent_names(&vocab(&capture), &capture),
        ["mcp__github__create_issue", "read"]
    );
}

#[test]
fn natural_language_action_tokens_select_use_mcp_tools() {
    let capture = messages(
        named(&[
            "mcp__use_report__fixture_tool",
            "mcp__use_browser__browser_open",
            "mcp__use_office__office_write_cell",
        ]),
        "Call the report fixture and return what it observed",
    );
    assert_eq!(
        sent_names(&vocab(&capture), &capture),
        ["mcp__use_report__fixture_tool"]
    );
}

#[test]
fn tool_heavy_history_keeps_the_original_textual_intent() {
    let tool = "mcp__use_browser__agent_browser_open";
    let mut conversation =
        vec![json!({"role": "user", "content": format!("Call {tool} after diagnostics")})];
    for index in 0..3 {
        let id = format!("call-{index}");
        conversation.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": format!("diagnostic-{index}"), "input": {}}
        ]}));
        conversation.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "ok"}
        ]}));
    }
    let capture =
        capture(json!({"model": "claude-x", "tools": named(&[tool]), "messages": conversation}));
    assert_eq!(sent_names(&vocab(&capture), &capture), [tool]);
}

// Carried from a3s-code-core `tools/presentation.rs` tests (the same in 9.0.0 and 9.1.3).

#[test]
fn projection_is_canonical_and_can_only_rephrase_existing_definitions() {
    let tools = vec![
        json!({"name": "write", "description": "Write a file", "input_schema": schema(&["file_path", "content"])}),
        json!({"name": "program", "description": "Original program description", "input_schema": schema(&["type"])}),
        json!({"name": "read", "description": "Read a file", "input_schema": schema(&["file_path"])}),
    ];
    let capture = messages(tools, "change the file");
    let projection = run(&capture, Strategy::Code);
    let sent: Vec<&Value> = projection.tools(&capture).collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(tool::name(sent[0]), Some("program"));
    assert_eq!(tool::schema(sent[0]), tool::schema(&capture.tools()[1]));
    assert_eq!(
        tool::description(sent[0]).unwrap(),
        format!("{PREAMBLE}read(file_path) Read a file; write(file_path,content) Write a file")
    );
}

#[test]
fn direct_and_adaptive_outputs_have_deterministic_order() {
    let tools = named(&["write", "bash", "read"]);
    for settings in both_selectors() {
        for strategy in [Strategy::Direct, Strategy::Adaptive] {
            let capture = messages(tools.clone(), "inspect and update the project");
            let projection = project(&capture, strategy, &settings);
            assert_eq!(sent_names(&projection, &capture), ["bash", "read", "write"]);
        }
    }
}

#[test]
fn code_profile_reduces_large_direct_definition_cost() {
    let mut tools = vec![
        json!({"name": "program", "description": "Program", "input_schema": schema(&["type"])}),
    ];
    for index in 0..40 {
        tools.push(json!({
            "name": format!("tool_{index:02}"),
            "description": "long model-facing description ".repeat(20),
            "input_schema": schema(&["input", "path", "mode"]),
        }));
    }
    let capture = messages(tools, "work");
    let direct = run(&capture, Strategy::Direct);
    let code = run(&capture, Strategy::Code);
    assert_eq!(code.tool_count(), 1);
    let bytes = |p: &Projection| tool::compact(&p.tools_value(&capture).unwrap()).len();
    assert!(bytes(&code) < bytes(&direct));
    // Each signature: `tool_NN(input,path,mode) ` + the first 192 bytes of the description.
    let description = tool::description(code.tools(&capture).next().unwrap()).unwrap();
    let first = format!(
        "tool_00(input,path,mode) {}",
        &"long model-facing description ".repeat(20)[..192]
    );
    assert!(description.starts_with(&format!("{PREAMBLE}{first}; tool_01(")));
}

// ---------------------------------------------------------------------------------------------
// Hosted entries (STRATEGIES.md "Common conventions")

fn hosted_responses(user: &str) -> Capture {
    capture(json!({"model": "gpt-5", "input": user, "tools": [
        {"type": "web_search"},
        {"type": "function", "name": "shell", "description": "Run a command", "parameters": {"type": "object"}},
        {"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.deepwiki.com/mcp", "require_approval": "never"},
        {"type": "function", "name": "apply_patch", "description": "Patch files", "parameters": {"type": "object"}},
        {"type": "function", "name": "program", "description": "Run a program", "parameters": {"type": "object"}},
    ]}))
}

#[test]
fn hosted_entries_follow_the_sorted_tools_in_direct_and_adaptive() {
    let capture = hosted_responses("Work on the repository.");
    for settings in both_selectors() {
        for strategy in [Strategy::Direct, Strategy::Adaptive] {
            let projection = project(&capture, strategy, &settings);
            let labels: Vec<&str> = projection
                .outcomes
                .iter()
                .filter(|o| o.projected.is_some())
                .map(|o| o.name.as_str())
                .collect();
            let mut by_position = labels.clone();
            by_position.sort_by_key(|name| {
                projection
                    .outcomes
                    .iter()
                    .find(|o| o.name == *name)
                    .and_then(|o| o.projected)
            });
            let expected: &[&str] = if strategy == Strategy::Adaptive
                && settings.get("adaptive.selector").as_deref() == Some("vocabulary")
            {
                // `program` needs program terms under 9.0.
                &["apply_patch", "shell", "<web_search>", "<mcp:deepwiki>"]
            } else {
                &[
                    "apply_patch",
                    "program",
                    "shell",
                    "<web_search>",
                    "<mcp:deepwiki>",
                ]
            };
            assert_eq!(by_position, expected, "{strategy}");
            let sent: Vec<&Value> = projection.tools(&capture).collect();
            assert_eq!(sent[sent.len() - 2], &capture.tools()[0]);
            assert_eq!(sent[sent.len() - 1], &capture.tools()[2]);
        }
    }
}

#[test]
fn hosted_entries_are_outside_a3s_source() {
    // Two `<web_search>` entries are no duplicate names, and do not count against the limit.
    let capture = capture(json!({"model": "gpt-5", "input": "go", "tools": [
        {"type": "web_search"},
        {"type": "function", "name": "shell", "parameters": {"type": "object"}},
        {"type": "web_search"},
    ]}));
    let settings = with(&[("a3s.max_tools", "1")]);
    let projection = project(&capture, Strategy::Direct, &settings);
    assert_eq!(projection.status, ProjectionStatus::Ok);
    assert_eq!(
        projection
            .tools(&capture)
            .map(|t| tool::label(t).into_owned())
            .collect::<Vec<_>>(),
        ["shell", "<web_search>", "<web_search>"]
    );
}

#[test]
fn code_disabled_and_greeting_send_no_hosted_entry() {
    let capture = hosted_responses("go");
    let code = run(&capture, Strategy::Code);
    assert_eq!(
        code.tools(&capture)
            .map(|t| tool::label(t).into_owned())
            .collect::<Vec<_>>(),
        ["program"]
    );
    assert_eq!(
        tool::description(code.tools(&capture).next().unwrap()).unwrap(),
        format!("{PREAMBLE}apply_patch() Patch files; shell() Run a command")
    );
    assert_eq!(
        reason_of(&code, "<web_search>"),
        "code profile: a3s presents only its own tool definitions, not hosted entries"
    );
    let disabled = run(&capture, Strategy::Disabled);
    assert!(disabled.sent.is_none());
    assert_eq!(
        reason_of(&disabled, "<mcp:deepwiki>"),
        "disabled profile: no tools are presented"
    );
    let greeting = hosted_responses("thanks!");
    for settings in both_selectors() {
        let projection = project(&greeting, Strategy::Adaptive, &settings);
        assert!(projection.sent.is_none());
        assert_eq!(
            reason_of(&projection, "<web_search>"),
            "not selected: the context is a greeting"
        );
    }
}

#[test]
fn a_hosted_tool_choice_is_checked_and_remote_mcp_is_noted() {
    let mut body = hosted_responses("go").body().clone();
    body["tool_choice"] = json!({"type": "web_search"});
    let capture = capture(body);
    let lint = "tool_choice names `<web_search>`, which this projection does not send (removed): the provider will reject the request";
    let code = run(&capture, Strategy::Code);
    assert!(
        code.notes
            .iter()
            .any(|n| n.text == lint && n.level == Level::Error),
        "{:?}",
        code.notes
    );
    let direct = run(&capture, Strategy::Direct);
    assert!(
        !direct
            .notes
            .iter()
            .any(|n| n.text.starts_with("tool_choice"))
    );
    let remote = "`<mcp:deepwiki>` is a remote MCP server: the provider fetches its tools, which toolprism cannot see or count";
    for strategy in [Strategy::Original, Strategy::Direct, Strategy::Adaptive] {
        let projection = run(&capture, strategy);
        assert_eq!(
            projection
                .notes
                .iter()
                .filter(|n| n.text == remote && n.level == Level::Info)
                .count(),
            1,
            "{strategy}"
        );
    }
    assert!(!code.notes.iter().any(|n| n.text == remote));
}
