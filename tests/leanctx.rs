//! `shorten`: lean-ctx's expand-pointer shortening (STRATEGIES.md section 3).

use serde_json::{Value, json};
use toolprism::projection::Projection;
use toolprism::strategies::leanctx::{
    bare_name, handle, is_expand_tool_name, pointer, shortened_description, stored_json, summary,
};
use toolprism::{Capture, Settings, Status, Strategy, project, tool};

const SENTENCE: &str =
    "Reads a file from the project and returns its content in the requested mode. ";

/// The spec's vector: the sentence ×8, then a details paragraph.
fn vector_description(details_lines: usize) -> String {
    let mut text = SENTENCE.repeat(8);
    text.push_str("\n\nDetails:\n");
    for i in 0..details_lines {
        text.push_str(&format!("- detail line {i} about modes and ranges\n"));
    }
    text.push_str("...");
    text
}

/// The vector's summary: four whole sentences, then ` …`.
fn vector_summary() -> String {
    format!("{} \u{2026}", SENTENCE.repeat(4).trim_end())
}

fn anthropic(tools: Value) -> Capture {
    Capture::from_value(json!({
        "model": "claude-test",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": tools
    }))
    .expect("valid capture")
}

fn anthropic_tool(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}
    })
}

fn expand_tool() -> Value {
    anthropic_tool("ctx_expand", "Expand a lean-ctx handle.")
}

fn shorten(capture: &Capture) -> Projection {
    project(capture, Strategy::Shorten, &Settings::default())
}

fn shorten_with(capture: &Capture, pairs: &[(&str, &str)]) -> Projection {
    let mut settings = Settings::default();
    for (key, value) in pairs {
        settings.set(key, value).expect("valid setting");
    }
    project(capture, Strategy::Shorten, &settings)
}

fn sent(projection: &Projection, capture: &Capture) -> Vec<Value> {
    projection.tools(capture).cloned().collect()
}

fn statuses(projection: &Projection) -> Vec<Status> {
    projection.outcomes.iter().map(|o| o.status).collect()
}

fn has_note(projection: &Projection, needle: &str) -> bool {
    projection.notes.iter().any(|n| n.text.contains(needle))
}

/// The handle of an entry, computed here from the entry's own key-sorted JSON.
fn expected_handle(sorted_json: &str) -> String {
    let hex = blake3::hash(sorted_json.as_bytes()).to_hex();
    format!("tool_{}.log", &hex.as_str()[..16])
}

#[test]
fn spec_vector_summary_is_four_sentences() {
    let text = vector_description(0);
    let got = summary(&text);
    assert_eq!(got, vector_summary());
    assert_eq!(got.len(), 311);
    assert!(got.ends_with("mode. \u{2026}"));
}

#[test]
fn spec_vector_shortened_exactly() {
    let description = vector_description(30);
    assert!(description.len() > 1024);
    let entry = anthropic_tool("read_file", &description);
    let capture = anthropic(json!([entry.clone(), expand_tool()]));
    let projection = shorten(&capture);
    let tools = sent(&projection, &capture);

    let json = format!(
        "{{\"description\":{},\"input_schema\":{{\"properties\":{{\"path\":{{\"type\":\"string\"}}}},\"type\":\"object\"}},\"name\":\"read_file\"}}",
        serde_json::to_string(&description).unwrap()
    );
    let handle = expected_handle(&json);
    let expected = format!(
        "{}\n[lean-ctx: description shortened \u{2014} full definition: ctx_expand(id=\"{handle}\")]",
        vector_summary()
    );
    assert_eq!(tools[0]["description"], Value::String(expected));
    // Everything else in the entry is untouched, in its order.
    let keys: Vec<&String> = tools[0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "description", "input_schema"]);
    assert_eq!(tools[0]["input_schema"], entry["input_schema"]);
    assert_eq!(tools[1], capture.tools()[1]);
    assert_eq!(statuses(&projection), [Status::Changed, Status::Kept]);
    assert!(projection.outcomes[0].reason.contains(&handle));
    assert_eq!(projection.stored.len(), 1);
    assert_eq!(projection.stored[0].handle, handle);
    assert_eq!(projection.stored[0].json, json);
}

#[test]
fn threshold_is_strictly_over_1024_bytes() {
    let exactly = "x".repeat(1024);
    let over = "x".repeat(1025);
    let cjk_1024 = format!("{}a", "字".repeat(341));
    let cjk_1026 = "字".repeat(342);
    assert_eq!(cjk_1024.len(), 1024);
    assert_eq!(cjk_1026.len(), 1026);
    let capture = anthropic(json!([
        anthropic_tool("a", &exactly),
        anthropic_tool("b", &over),
        anthropic_tool("c", &cjk_1024),
        anthropic_tool("d", &cjk_1026),
        expand_tool()
    ]));
    let projection = shorten(&capture);
    assert_eq!(
        statuses(&projection),
        [
            Status::Kept,
            Status::Changed,
            Status::Kept,
            Status::Changed,
            Status::Kept
        ]
    );
    let tools = sent(&projection, &capture);
    // No whitespace and no sentence end: the cut is at the window's end, on a char boundary
    // (320 bytes fall inside the 107th CJK char, so 106 chars = 318 bytes stay).
    let cjk = tools[3]["description"].as_str().unwrap();
    let expected_summary = format!("{} \u{2026}", "字".repeat(106));
    assert!(cjk.starts_with(&format!("{expected_summary}\n[lean-ctx: ")));
    let plain = tools[1]["description"].as_str().unwrap();
    assert!(plain.starts_with(&format!("{} \u{2026}\n", "x".repeat(320))));
    assert_eq!(projection.stored.len(), 2);
}

#[test]
fn summary_rules() {
    // Short text: trimmed, first paragraph, as is.
    assert_eq!(summary("  \n Hello.  \n\nMore."), "Hello.");
    // A CRLF text has no `\n\n`: the paragraph break is not a cut.
    assert_eq!(summary("One.\r\n\r\nTwo."), "One.\r\n\r\nTwo.");
    // A sentence end too early (index + 1 < 106) is ignored: cut at the last whitespace.
    let early = format!("Short. {}", "word ".repeat(80));
    let got = summary(&early);
    assert!(got.ends_with("word \u{2026}"), "{got}");
    assert!(got.len() <= 324);
    // "Short. " (7 bytes) + 62 whole "word " (310 bytes) + "wor": the cut drops "wor".
    assert_eq!(got, format!("Short. {} \u{2026}", ["word"; 62].join(" ")));
    // index + 1 = 106 exactly is accepted.
    let at_106 = format!("{}. {}", "a".repeat(105), "b ".repeat(200));
    assert_eq!(summary(&at_106), format!("{}. \u{2026}", "a".repeat(105)));
    // index + 1 = 105 is not.
    let at_105 = format!("{}. {}", "a".repeat(104), "b ".repeat(200));
    let got = summary(&at_105);
    assert!(got.ends_with("b \u{2026}"), "{got}");
    // No whitespace at all: the window's end.
    assert_eq!(
        summary(&"z".repeat(400)),
        format!("{} \u{2026}", "z".repeat(320))
    );
    // Whitespace is Unicode whitespace: a no-break space is a cut point.
    let nbsp = format!("{}\u{a0}{}", "q".repeat(200), "r".repeat(300));
    assert_eq!(summary(&nbsp), format!("{} \u{2026}", "q".repeat(200)));
}

#[test]
fn bare_names_and_expand_tool_names() {
    assert_eq!(bare_name("mcp__lean-ctx__ctx_expand"), "ctx_expand");
    assert_eq!(bare_name("lean-ctx:ctx_expand"), "ctx_expand");
    assert_eq!(bare_name("a__b.c/d:ctx_expand"), "ctx_expand");
    for name in [
        "ctx_expand",
        "mcp__lean-ctx__ctx_expand",
        "lean-ctx:ctx_expand",
        "lean-ctx/ctx_expand",
        "lean.ctx_expand",
    ] {
        assert!(is_expand_tool_name(name), "{name} should match");
    }
    let longest = format!("{}__ctx_expand", "a".repeat(116));
    let too_long = format!("{}__ctx_expand", "a".repeat(117));
    assert_eq!(longest.len(), 128);
    assert!(is_expand_tool_name(&longest));
    assert!(!is_expand_tool_name(&too_long));
    for name in [
        "CTX_EXPAND",
        "Ctx_Expand",
        "ctx_expand2",
        "ctx__expand",
        "ctx_expand__x",
        "lean ctx:ctx_expand",
        "lean-ctx@x:ctx_expand",
        "léan:ctx_expand",
        "expand",
    ] {
        assert!(!is_expand_tool_name(name), "{name} should not match");
    }
}

#[test]
fn gate_uses_the_first_expand_tool_as_listed() {
    let long = vector_description(40);
    for name in ["mcp__lean-ctx__ctx_expand", "lean-ctx:ctx_expand"] {
        let capture = anthropic(json!([
            anthropic_tool("read", &long),
            anthropic_tool("CTX_EXPAND", "not it"),
            anthropic_tool(name, "the expand tool"),
            anthropic_tool("ctx_expand", "a second one")
        ]));
        let projection = shorten(&capture);
        let tools = sent(&projection, &capture);
        let text = tools[0]["description"].as_str().unwrap();
        assert!(
            text.contains(&format!("full definition: {name}(id=\"tool_")),
            "{text}"
        );
    }
}

#[test]
fn no_expand_tool_no_change() {
    let long = vector_description(40);
    let too_long = format!("{}__ctx_expand", "a".repeat(117));
    for name in [
        "CTX_EXPAND",
        too_long.as_str(),
        "lean ctx:ctx_expand",
        "read_more",
    ] {
        let capture = anthropic(json!([
            anthropic_tool("read", &long),
            anthropic_tool(name, "x")
        ]));
        let projection = shorten(&capture);
        assert_eq!(statuses(&projection), [Status::Kept, Status::Kept]);
        assert!(projection.stored.is_empty());
        assert!(
            has_note(&projection, "no expand tool"),
            "{:?}",
            projection.notes
        );
        assert!(has_note(
            &projection,
            "--set shorten.expand_tool=ctx_expand"
        ));
        assert!(has_note(&projection, "(1 description(s) over 1024 bytes)"));
    }
}

#[test]
fn handle_hashes_the_key_sorted_entry() {
    // Keys in a deliberately unsorted order, with upper case (sorts first), non-ASCII (sorts
    // last), nesting inside arrays, and a key the hash must include (cache_control).
    let description = "Handle test. ".repeat(100);
    let entry = json!({
        "name": "mcp__srv__search",
        "input_schema": {
            "type": "object",
            "required": ["q"],
            "properties": {
                "q": {"type": "string", "description": "query"},
                "é": {"type": "integer"},
                "Z": {"type": "boolean"},
                "a": {"type": "array", "items": [{"z": 1, "b": 2.5}]}
            }
        },
        "description": description,
        "cache_control": {"type": "ephemeral"}
    });
    let hand_written = format!(
        concat!(
            "{{\"cache_control\":{{\"type\":\"ephemeral\"}},\"description\":\"{}\",",
            "\"input_schema\":{{\"properties\":{{\"Z\":{{\"type\":\"boolean\"}},",
            "\"a\":{{\"items\":[{{\"b\":2.5,\"z\":1}}],\"type\":\"array\"}},",
            "\"q\":{{\"description\":\"query\",\"type\":\"string\"}},",
            "\"é\":{{\"type\":\"integer\"}}}},\"required\":[\"q\"],\"type\":\"object\"}},",
            "\"name\":\"mcp__srv__search\"}}"
        ),
        description
    );
    assert_eq!(stored_json(&entry), hand_written);
    let expected = expected_handle(&hand_written);
    assert_eq!(handle(&hand_written), expected);
    assert_eq!(expected.len(), "tool_.log".len() + 16);
    assert!(
        expected[5..21]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );

    let capture = anthropic(json!([entry, expand_tool()]));
    let projection = shorten(&capture);
    let tools = sent(&projection, &capture);
    let text = tools[0]["description"].as_str().unwrap();
    assert!(text.ends_with(&format!("ctx_expand(id=\"{expected}\")]")));
    // The sent entry keeps its cache_control marker and key order.
    assert_eq!(tools[0]["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(projection.stored[0].json, hand_written);
}

#[test]
fn only_strictly_shorter_text_is_kept() {
    let handle = "tool_0123456789abcdef.log";
    // Summary + pointer is longer than a short description: no change.
    assert_eq!(
        shortened_description("A short text.", "ctx_expand", handle),
        None
    );
    let text = "y".repeat(400);
    let new = format!(
        "{} \u{2026}\n{}",
        "y".repeat(320),
        pointer("ctx_expand", handle)
    );
    assert!(new.len() > text.len());
    assert_eq!(shortened_description(&text, "ctx_expand", handle), None);
    // Equal length is not strictly shorter either.
    let equal = "w".repeat(new.len());
    let same_len = format!(
        "{} \u{2026}\n{}",
        "w".repeat(320),
        pointer("ctx_expand", handle)
    );
    assert_eq!(same_len.len(), equal.len());
    assert_eq!(shortened_description(&equal, "ctx_expand", handle), None);
    // One byte longer: shortened.
    let longer = "w".repeat(new.len() + 1);
    assert_eq!(
        shortened_description(&longer, "ctx_expand", handle),
        Some(same_len)
    );
}

#[test]
fn skips_expand_tool_and_entries_without_string_description() {
    let long = vector_description(40);
    let capture = anthropic(json!([
        {"name": "no_description", "input_schema": {"type": "object"}},
        {"name": "numeric", "description": 12345, "input_schema": {"type": "object"}},
        anthropic_tool("ctx_expand", &long),
        anthropic_tool("read", &long)
    ]));
    let projection = shorten(&capture);
    assert_eq!(
        statuses(&projection),
        [Status::Kept, Status::Kept, Status::Kept, Status::Changed]
    );
}

#[test]
fn identical_entries_store_once() {
    let long = vector_description(40);
    let capture = anthropic(json!([
        anthropic_tool("read", &long),
        anthropic_tool("read", &long),
        expand_tool()
    ]));
    let projection = shorten(&capture);
    assert_eq!(
        statuses(&projection),
        [Status::Changed, Status::Changed, Status::Kept]
    );
    assert_eq!(projection.stored.len(), 1);
}

#[test]
fn nul_is_escaped_in_compact_json_so_the_entry_is_stored() {
    let description = format!("{}\u{0}tail", vector_description(40));
    let capture = anthropic(json!([anthropic_tool("read", &description), expand_tool()]));
    let projection = shorten(&capture);
    assert_eq!(statuses(&projection), [Status::Changed, Status::Kept]);
    assert!(projection.stored[0].json.contains("\\u0000"));
    assert!(!projection.stored[0].json.contains('\0'));
}

#[test]
fn entry_over_4_mib_stays() {
    let huge = "h ".repeat(2 * 1024 * 1024 + 8);
    let capture = anthropic(json!([
        anthropic_tool("huge", &huge),
        anthropic_tool("read", &vector_description(40)),
        expand_tool()
    ]));
    let projection = shorten(&capture);
    assert_eq!(
        statuses(&projection),
        [Status::Kept, Status::Changed, Status::Kept]
    );
    assert!(has_note(&projection, "cannot store them"));
    assert!(has_note(&projection, "huge"));
    assert_eq!(projection.stored.len(), 1);
}

#[test]
fn protected_changes_nothing() {
    let long = vector_description(40);
    let capture = anthropic(json!([anthropic_tool("read", &long), expand_tool()]));
    let projection = shorten_with(&capture, &[("shorten.protected", "true")]);
    assert_eq!(statuses(&projection), [Status::Kept, Status::Kept]);
    assert!(projection.stored.is_empty());
    assert!(has_note(&projection, "shorten.protected"));
    // Protected also overrides the what-if expand tool.
    let bare = anthropic(json!([anthropic_tool("read", &long)]));
    let projection = shorten_with(
        &bare,
        &[
            ("shorten.protected", "true"),
            ("shorten.expand_tool", "ctx_expand"),
        ],
    );
    assert_eq!(statuses(&projection), [Status::Kept]);
}

#[test]
fn expand_tool_what_if_appends_in_the_capture_shape() {
    let long = vector_description(40);
    let capture = anthropic(json!([anthropic_tool("read", &long)]));
    let projection = shorten_with(
        &capture,
        &[("shorten.expand_tool", "mcp__lean-ctx__ctx_expand")],
    );
    assert_eq!(statuses(&projection), [Status::Changed, Status::Added]);
    let tools = sent(&projection, &capture);
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[1]["name"], "mcp__lean-ctx__ctx_expand");
    assert_eq!(tools[1]["input_schema"]["required"], json!(["id"]));
    assert_eq!(
        tools[1]["input_schema"]["properties"]["id"]["type"],
        "string"
    );
    let description = tools[1]["description"].as_str().unwrap();
    assert!(!description.is_empty() && !description.contains('\n'));
    assert!(
        tools[0]["description"]
            .as_str()
            .unwrap()
            .contains("full definition: mcp__lean-ctx__ctx_expand(id=")
    );
    assert!(has_note(&projection, "what-if"));

    // A bad name is refused by the setting itself.
    assert!(
        Settings::default()
            .set("shorten.expand_tool", "expand")
            .is_err()
    );
}

#[test]
fn expand_tool_what_if_defers_to_a_listed_expand_tool() {
    let long = vector_description(40);
    let capture = anthropic(json!([
        anthropic_tool("read", &long),
        anthropic_tool("lean-ctx:ctx_expand", "listed")
    ]));
    let projection = shorten_with(&capture, &[("shorten.expand_tool", "ctx_expand")]);
    assert_eq!(statuses(&projection), [Status::Changed, Status::Kept]);
    assert_eq!(projection.tool_count(), 2);
    assert!(
        sent(&projection, &capture)[0]["description"]
            .as_str()
            .unwrap()
            .contains("full definition: lean-ctx:ctx_expand(id=")
    );
    assert!(has_note(&projection, "not appended"));
}

#[test]
fn reshortening_changes_nothing() {
    let long = vector_description(40);
    let cjk = "字".repeat(500);
    let cases = [
        (
            anthropic(json!([
                anthropic_tool("read", &long),
                anthropic_tool("cjk", &cjk),
                expand_tool()
            ])),
            Settings::default(),
        ),
        (anthropic(json!([anthropic_tool("read", &long)])), {
            let mut settings = Settings::default();
            settings
                .set("shorten.expand_tool", "mcp__lean-ctx__ctx_expand")
                .unwrap();
            settings
        }),
    ];
    for (capture, settings) in cases {
        let first = project(&capture, Strategy::Shorten, &settings);
        assert!(first.outcomes.iter().any(|o| o.status == Status::Changed));
        let body = first.request_body(&capture);
        let again = Capture::from_value(body.clone()).unwrap();
        let second = project(&again, Strategy::Shorten, &settings);
        assert!(
            second.outcomes.iter().all(|o| o.status == Status::Kept),
            "{:?}",
            second.outcomes
        );
        assert!(second.stored.is_empty());
        assert_eq!(
            serde_json::to_string(&second.request_body(&again)).unwrap(),
            serde_json::to_string(&body).unwrap()
        );
    }
}

#[test]
fn every_shape_shortens_where_the_description_lives() {
    let long = vector_description(40);
    let chat = Capture::from_value(json!({
        "model": "gpt-test",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"type": "function", "function": {"name": "read", "description": long,
                "parameters": {"type": "object"}}},
            {"type": "function", "function": {"name": "ctx_expand", "description": "x",
                "parameters": {"type": "object"}}}
        ]
    }))
    .unwrap();
    let responses = Capture::from_value(json!({
        "model": "gpt-test",
        "input": "hi",
        "tools": [
            {"type": "function", "name": "read", "description": long,
                "parameters": {"type": "object"}},
            {"type": "function", "name": "ctx_expand", "description": "x",
                "parameters": {"type": "object"}}
        ]
    }))
    .unwrap();
    let mcp_tools = json!([
        {"name": "read", "description": long, "inputSchema": {"type": "object"}},
        {"name": "ctx_expand", "description": "x", "inputSchema": {"type": "object"}}
    ]);
    let mcp = Capture::from_value(json!({"tools": mcp_tools.clone()})).unwrap();
    let mcp_rpc = Capture::from_value(json!({
        "jsonrpc": "2.0", "id": 1, "result": {"tools": mcp_tools}
    }))
    .unwrap();
    let anthropic = anthropic(json!([anthropic_tool("read", &long), expand_tool()]));

    for capture in [anthropic, chat.clone(), responses, mcp, mcp_rpc] {
        let projection = shorten(&capture);
        assert_eq!(
            statuses(&projection),
            [Status::Changed, Status::Kept],
            "{}",
            capture.shape()
        );
        let tools = sent(&projection, &capture);
        let text = tool::description(&tools[0]).unwrap();
        assert!(text.starts_with(&vector_summary()), "{}", capture.shape());
        let expected = expected_handle(&stored_json(&capture.tools()[0]));
        assert!(text.ends_with(&format!("ctx_expand(id=\"{expected}\")]")));
        // The rest of the entry is what it was.
        let mut restored = tools[0].clone();
        tool::set_description(&mut restored, long.clone());
        assert_eq!(restored, capture.tools()[0]);
    }

    // Chat: the text goes to `function.description`; no top-level description appears.
    let projection = shorten(&chat);
    let tools = sent(&projection, &chat);
    assert!(tools[0].get("description").is_none());
    assert!(
        tools[0]["function"]["description"]
            .as_str()
            .unwrap()
            .starts_with(&vector_summary())
    );

    // What-if in the Chat shape: the added tool is a Chat entry.
    let bare = Capture::from_value(json!({
        "model": "gpt-test",
        "messages": [],
        "tools": [{"type": "function", "function": {"name": "read", "description": long,
            "parameters": {"type": "object"}}}]
    }))
    .unwrap();
    let projection = shorten_with(&bare, &[("shorten.expand_tool", "ctx_expand")]);
    let tools = sent(&projection, &bare);
    assert_eq!(tools[1]["type"], "function");
    assert_eq!(tools[1]["function"]["name"], "ctx_expand");
    assert_eq!(
        tools[1]["function"]["parameters"]["required"],
        json!(["id"])
    );
}

#[test]
fn nothing_over_the_limit_says_so() {
    let capture = anthropic(json!([anthropic_tool("read", "short"), expand_tool()]));
    let projection = shorten(&capture);
    assert_eq!(statuses(&projection), [Status::Kept, Status::Kept]);
    assert!(has_note(&projection, "nothing to shorten"));
}

#[test]
fn deterministic() {
    let capture = anthropic(json!([
        anthropic_tool("read", &vector_description(40)),
        expand_tool()
    ]));
    let a = shorten(&capture);
    let b = shorten(&capture);
    assert_eq!(a.request_body(&capture), b.request_body(&capture));
    assert_eq!(a.stored, b.stored);
    assert_eq!(a.notes, b.notes);
}

#[test]
fn hosted_entries_are_never_shortened() {
    let long = vector_description(30);
    let hosted = json!({"type": "mcp", "server_label": "docs", "description": long, "server_url": "https://x"});
    let capture = Capture::from_value(json!({"model": "gpt-5", "input": "hi", "tools": [
        hosted,
        {"type": "function", "name": "ctx_expand", "description": "Expand a lean-ctx handle.", "parameters": {"type": "object"}},
        {"type": "function", "name": "read", "description": long, "parameters": {"type": "object"}},
    ]}))
    .unwrap();
    let projection = shorten(&capture);
    assert_eq!(
        statuses(&projection),
        [Status::Kept, Status::Kept, Status::Changed]
    );
    assert_eq!(sent(&projection, &capture)[0], capture.tools()[0]);
    assert_eq!(projection.outcomes[0].name, "<mcp:docs>");
}

// ---------------------------------------------------------------------------------------------
// Carried from lean-ctx proxy 3.12.3 `tool_descriptions.rs` tests, with exact outputs.

/// The upstream tests' description: the sentence ×8, a blank line, then 60 detail lines.
fn upstream_long_description() -> String {
    format!(
        "{}\n\nDetails:\n{}",
        SENTENCE.repeat(8),
        "- mode=full returns everything\n".repeat(60)
    )
}

/// The upstream tests' list: a large tool, a small one, and an MCP-named expand tool that carries
/// the same large description and a cache marker.
fn upstream_doc(description: &str) -> Value {
    json!([
        {"name": "read_file", "description": description,
         "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}},
        {"name": "small", "description": "Small tool", "input_schema": {}},
        {"name": "mcp__lean-ctx__ctx_expand", "description": description,
         "input_schema": {}, "cache_control": {"type": "ephemeral"}}
    ])
}

#[test]
fn a_large_description_is_shortened_with_a_pointer_to_the_full_definition() {
    let description = upstream_long_description();
    let capture = anthropic(upstream_doc(&description));
    let projection = shorten(&capture);
    let tools = sent(&projection, &capture);
    let json = stored_json(&capture.tools()[0]);
    let handle = expected_handle(&json);
    assert_eq!(
        tools[0]["description"],
        json!(format!(
            "{}\n[lean-ctx: description shortened \u{2014} full definition: mcp__lean-ctx__ctx_expand(id=\"{handle}\")]",
            vector_summary()
        ))
    );
    // The store holds the whole entry, and it reads back as the original.
    assert_eq!(projection.stored.len(), 1);
    let stored: Value = serde_json::from_str(&projection.stored[0].json).unwrap();
    assert_eq!(stored, capture.tools()[0]);
    // Order, the other tools, schemas and cache markers stay as they were; the expand tool
    // stays whole even with a large description.
    assert_eq!(tools[1], capture.tools()[1]);
    assert_eq!(tools[2], capture.tools()[2]);
    assert_eq!(tools[0]["input_schema"], capture.tools()[0]["input_schema"]);
    assert_eq!(
        statuses(&projection),
        [Status::Changed, Status::Kept, Status::Kept]
    );
}

#[test]
fn shortening_is_byte_stable_across_turns() {
    let capture = anthropic(upstream_doc(&upstream_long_description()));
    let first = shorten(&capture).request_body(&capture);
    let second = shorten(&capture).request_body(&capture);
    assert_eq!(
        serde_json::to_vec(&first).unwrap(),
        serde_json::to_vec(&second).unwrap()
    );
    // A shortened list is left alone.
    let again = Capture::from_value(first.clone()).unwrap();
    assert_eq!(shorten(&again).request_body(&again), first);
    assert!(
        statuses(&shorten(&again))
            .iter()
            .all(|s| *s == Status::Kept)
    );
}

#[test]
fn without_a_listed_expand_tool_nothing_changes() {
    let mut tools = upstream_doc(&upstream_long_description());
    tools.as_array_mut().unwrap().pop();
    let capture = anthropic(tools);
    let projection = shorten(&capture);
    assert_eq!(projection.request_body(&capture), *capture.body());
    assert_eq!(statuses(&projection), [Status::Kept, Status::Kept]);
}

#[test]
fn chat_and_responses_shapes_are_shortened_in_place() {
    let description = upstream_long_description();
    let chat = Capture::from_value(json!({"model": "gpt-4.1", "messages": [], "tools": [
        {"type": "function", "function": {"name": "read_file", "description": description, "parameters": {}}},
        {"type": "function", "function": {"name": "ctx_expand", "description": "Expand", "parameters": {}}}
    ]}))
    .unwrap();
    let tools = sent(&shorten(&chat), &chat);
    let handle = expected_handle(&stored_json(&chat.tools()[0]));
    let expected = format!(
        "{}\n[lean-ctx: description shortened \u{2014} full definition: ctx_expand(id=\"{handle}\")]",
        vector_summary()
    );
    assert_eq!(tools[0]["function"]["description"], json!(expected));
    assert!(tools[0].get("description").is_none());

    let responses = Capture::from_value(json!({"model": "gpt-5", "input": [], "tools": [
        {"type": "function", "name": "read_file", "description": description, "parameters": {}},
        {"type": "function", "name": "ctx_expand", "description": "Expand", "parameters": {}}
    ]}))
    .unwrap();
    let tools = sent(&shorten(&responses), &responses);
    let handle = expected_handle(&stored_json(&responses.tools()[0]));
    assert_eq!(
        tools[0]["description"],
        json!(format!(
            "{}\n[lean-ctx: description shortened \u{2014} full definition: ctx_expand(id=\"{handle}\")]",
            vector_summary()
        ))
    );
}

#[test]
fn small_descriptions_stay_whole() {
    let capture = anthropic(upstream_doc(&"x".repeat(1024)));
    let projection = shorten(&capture);
    assert_eq!(projection.request_body(&capture), *capture.body());
}

#[test]
fn every_entry_named_like_the_expand_tool_stays_whole() {
    // lean-ctx skips the expand tool by name, so a second entry of that name is not shortened.
    let description = upstream_long_description();
    let capture = anthropic(json!([
        {"name": "ctx_expand", "description": "Expand a handle.", "input_schema": {}},
        {"name": "ctx_expand", "description": description, "input_schema": {}},
        {"name": "read_file", "description": description, "input_schema": {}}
    ]));
    assert_eq!(
        statuses(&shorten(&capture)),
        [Status::Kept, Status::Kept, Status::Changed]
    );
}
