//! Loading captures: shapes, tolerated encodings, and one-line errors for everything else.

use serde_json::json;
use toolprism::capture::MAX_CAPTURE_BYTES;
use toolprism::error::LoadError;
use toolprism::{Capture, Shape};

fn sample(name: &str) -> String {
    format!("{}/samples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_sample_loads_with_its_shape() {
    let cases = [
        ("small.json", Shape::AnthropicMessages, 8),
        ("large.json", Shape::AnthropicMessages, 46),
        ("leanctx-chat.json", Shape::OpenAiChat, 6),
        ("a3s-program-responses.json", Shape::OpenAiResponses, 10),
        ("vtcode-fenced-messages.json", Shape::AnthropicMessages, 6),
        ("mcp-tools-list.json", Shape::McpToolsList, 3),
        ("hostile.json", Shape::AnthropicMessages, 2),
        ("codex-hosted-responses.json", Shape::OpenAiResponses, 6),
        ("anthropic-mcp-toolset.json", Shape::AnthropicMessages, 4),
        ("codex-mcp-responses.json", Shape::OpenAiResponses, 9),
        (
            "gemini-generate-content.json",
            Shape::GeminiGenerateContent,
            5,
        ),
        ("bedrock-converse.json", Shape::BedrockConverse, 4),
        ("bedrock-invoke-anthropic.json", Shape::AnthropicMessages, 2),
    ];
    for (file, shape, tools) in cases {
        let capture = Capture::from_path(&sample(file)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(capture.shape(), shape, "{file}");
        assert_eq!(capture.tools().len(), tools, "{file}");
    }
}

#[test]
fn bom_and_crlf_are_accepted_and_wrapped_mcp_lists_found() {
    let bytes = std::fs::read(sample("mcp-tools-list.json")).unwrap();
    assert!(
        bytes.starts_with(b"\xEF\xBB\xBF"),
        "the sample keeps its BOM"
    );
    assert!(
        bytes.windows(2).any(|w| w == b"\r\n"),
        "the sample keeps CRLF"
    );
    let capture = Capture::from_bytes(&bytes).unwrap();
    assert!(capture.is_wrapped());
    assert_eq!(
        capture.tool_names().collect::<Vec<_>>(),
        ["read_graph", "create_entities", "search_nodes"]
    );
}

#[test]
fn shapes_are_told_apart_by_their_markers() {
    let cases = [
        (
            json!({"tools": [{"name": "a", "inputSchema": {}}]}),
            Shape::McpToolsList,
        ),
        (json!({"tools": []}), Shape::McpToolsList),
        (
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}),
            Shape::McpToolsList,
        ),
        (json!({"model": "x", "messages": []}), Shape::OpenAiChat),
        (
            json!({"model": "claude-x", "messages": []}),
            Shape::AnthropicMessages,
        ),
        (
            json!({"system": "s", "messages": []}),
            Shape::AnthropicMessages,
        ),
        (
            json!({"messages": [{"role": "system", "content": "s"}]}),
            Shape::OpenAiChat,
        ),
        (
            json!({"messages": [], "tools": [{"type": "function", "function": {"name": "f"}}]}),
            Shape::OpenAiChat,
        ),
        (
            json!({"messages": [], "tools": [{"name": "f", "input_schema": {}}]}),
            Shape::AnthropicMessages,
        ),
        // Kimi, DeepSeek and GLM take `thinking` in Chat bodies: a system message tells.
        (
            json!({"model": "k3", "thinking": {"type": "enabled"},
                   "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]}),
            Shape::OpenAiChat,
        ),
        (
            json!({"model": "k3", "thinking": {"type": "enabled"}, "max_completion_tokens": 9,
                   "messages": [{"role": "user", "content": "q"}]}),
            Shape::OpenAiChat,
        ),
        (
            json!({"model": "m", "thinking": {"type": "enabled", "budget_tokens": 1024},
                   "messages": [{"role": "user", "content": "q"}]}),
            Shape::AnthropicMessages,
        ),
        (json!({"input": "hi"}), Shape::OpenAiResponses),
        (
            json!({"input": [], "tools": [{"type": "function", "name": "f", "parameters": {}}]}),
            Shape::OpenAiResponses,
        ),
    ];
    for (body, shape) in cases {
        let capture = Capture::from_value(body.clone()).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!(capture.shape(), shape, "{body}");
    }
}

#[test]
fn a_request_without_tools_is_valid_and_projects_to_nothing() {
    let capture = Capture::from_value(
        json!({"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .unwrap();
    assert!(capture.tools().is_empty());
    assert!(!capture.has_tools_key());
    for strategy in toolprism::Strategy::ALL {
        let projection = toolprism::project(&capture, strategy, &Default::default());
        assert_eq!(projection.tool_count(), 0, "{strategy}");
        // No projection adds a `tools` key the capture did not have.
        assert!(
            projection.request_body(&capture).get("tools").is_none(),
            "{strategy}"
        );
        if strategy != toolprism::Strategy::Original {
            assert!(
                projection.notes.iter().any(|n| n.text.contains("no tools")),
                "{strategy}: {:?}",
                projection.notes
            );
        }
    }
}

fn load_error(bytes: &[u8]) -> LoadError {
    Capture::from_bytes(bytes).expect_err("must be refused")
}

#[test]
fn broken_inputs_get_one_line_errors() {
    let cases: Vec<(&[u8], &str)> = vec![
        (b"\xff\xfe{}", "not valid UTF-8: invalid byte at offset 0"),
        (
            b"{\n  \"tools\": [\n",
            "invalid JSON at line 3, column 0: EOF while parsing a list",
        ),
        (b"", "empty: no JSON in it"),
        (b" \r\n\t\n", "empty: no JSON in it"),
        (b"\x7fELF\x02\x01\x01\0\0\0", "not JSON: binary data"),
        (b"\x89PNG\r\n\x1a\n\xff\xd8", "not JSON: binary data"),
        (
            b"{\"a\": \"caf\xe9\"}",
            "not valid UTF-8: invalid byte at offset 10",
        ),
        (
            b"[1, 2]",
            "not a known capture shape: the document is an array, expected a request object",
        ),
        (
            b"[]",
            "not a known capture shape: the document is an empty array: no request in it",
        ),
        (
            b"{\"model\": \"x\"}",
            "not a known capture shape: no `messages`, `input`, `contents` or `tools`",
        ),
        (
            b"{\"messages\": {}}",
            "not a known capture shape: `messages` is not an array",
        ),
        (
            b"{\"messages\": [], \"tools\": {\"a\": 1}}",
            "`tools` is not an array (found an object)",
        ),
        (b"{\"tools\": null}", "`tools` is not an array (found null)"),
    ];
    for (bytes, expected) in cases {
        let message = load_error(bytes).to_string();
        assert!(
            message.starts_with(expected),
            "{:?}: got {message:?}, expected {expected:?}",
            String::from_utf8_lossy(bytes)
        );
        assert!(!message.contains('\n'), "one line: {message:?}");
    }
}

#[test]
fn nesting_beyond_the_parser_limit_is_refused_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let error = load_error(deep.as_bytes());
    assert!(
        matches!(error, LoadError::TooDeep { line: 1, .. }),
        "{error}"
    );
}

#[test]
fn oversized_captures_are_refused() {
    let bytes = vec![b' '; MAX_CAPTURE_BYTES as usize + 1];
    assert!(matches!(load_error(&bytes), LoadError::TooLarge { .. }));
}

#[test]
fn file_errors_name_the_file() {
    let missing = Capture::from_path("no/such/capture.json")
        .unwrap_err()
        .to_string();
    assert!(
        missing.starts_with("no/such/capture.json: cannot read: "),
        "{missing}"
    );
    let dir = Capture::from_path(env!("CARGO_MANIFEST_DIR"))
        .unwrap_err()
        .to_string();
    assert!(dir.ends_with(": cannot read: is a directory"), "{dir}");
}

#[test]
fn conversation_text_follows_each_shape() {
    let messages = Capture::from_value(json!({
        "system": "not context",
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "tool_use", "id": "1", "name": "x", "input": {}}, {"type": "text", "text": "b"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "1", "content": "skipped"}]},
        ]
    }))
    .unwrap();
    assert_eq!(messages.message_texts(), ["first", "a\nb"]);

    let chat = Capture::from_value(json!({
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": [{"type": "text", "text": "q"}, {"type": "image_url", "image_url": {"url": "u"}}]},
            {"role": "tool", "content": "result"},
        ]
    }))
    .unwrap();
    assert_eq!(chat.shape(), Shape::OpenAiChat);
    // The system prompt is not context, whichever way the shape carries it.
    assert_eq!(chat.message_texts(), ["q"]);

    let responses = Capture::from_value(json!({
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "u1"}]},
            {"type": "function_call", "name": "f", "arguments": "{}"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "o1"}]},
        ]
    }))
    .unwrap();
    assert_eq!(responses.message_texts(), ["u1", "o1"]);
    let plain = Capture::from_value(json!({"input": "just text"})).unwrap();
    assert_eq!(plain.message_texts(), ["just text"]);
}

#[test]
fn hosted_entries_load_with_their_labels() {
    let capture = Capture::from_path(&sample("codex-hosted-responses.json")).unwrap();
    assert_eq!(
        capture.tool_names().collect::<Vec<_>>(),
        [
            "shell",
            "update_plan",
            "apply_patch",
            "view_image",
            "<web_search>",
            "<mcp:deepwiki>"
        ]
    );
    assert_eq!(capture.hosted(), [4, 5]);
    let capture = Capture::from_path(&sample("anthropic-mcp-toolset.json")).unwrap();
    assert_eq!(
        capture.tool_names().collect::<Vec<_>>(),
        ["read_file", "edit_file", "bash", "<mcp_toolset:github>"]
    );

    let capture = Capture::from_value(json!({"model": "gpt-5", "input": "x", "tools": [
        {"type": "file_search", "vector_store_ids": ["vs_1"]},
        {"type": "code_interpreter", "container": {"type": "auto"}},
        {"type": "image_generation"},
        {"type": "computer_use_preview", "display_width": 1024, "display_height": 768, "environment": "browser"},
        {"type": "local_shell"},
        {"type": "mcp", "server_url": "https://example.com/mcp"},
        {"type": "web_search", "name": 3},
        {"type": "web_search", "name": ""},
        {"type": "web_search"},
    ]}))
    .unwrap();
    assert_eq!(
        capture.tool_names().collect::<Vec<_>>(),
        [
            "<file_search>",
            "<code_interpreter>",
            "<image_generation>",
            "<computer_use_preview>",
            "<local_shell>",
            "<mcp>",
            "<web_search>",
            "<web_search>",
            "<web_search>"
        ]
    );
    // A named server tool (Anthropic's) is a function tool by its name.
    let capture = Capture::from_value(json!({"model": "claude-x", "messages": [], "tools": [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}
    ]}))
    .unwrap();
    assert_eq!(capture.tool_names().collect::<Vec<_>>(), ["web_search"]);
    assert!(capture.hosted().is_empty());
}

#[test]
fn entries_without_a_name_or_a_hosted_type_load_as_numbered_entries_with_an_error() {
    let cases: Vec<(serde_json::Value, usize, &str)> = vec![
        (
            json!({"input": [], "tools": [{"type": "web_search"}, {"type": ""}]}),
            1,
            "no `name`, and no `type` naming a hosted tool (such as web_search)",
        ),
        (
            json!({"input": [], "tools": [{"type": 5}]}),
            0,
            "no `name`, and no `type` naming a hosted tool (such as web_search)",
        ),
        (
            json!({"input": [], "tools": [{"type": "function", "parameters": {}}]}),
            0,
            "no `name`, and no `type` naming a hosted tool (such as web_search)",
        ),
        (
            json!({"input": [], "tools": [{"type": "custom", "name": 2}]}),
            0,
            "the name is a number, not a string",
        ),
        (
            json!({"messages": [], "tools": [{"type": "function", "function": {"description": "x"}}]}),
            0,
            "no `name`, and no `type` naming a hosted tool (such as web_search)",
        ),
        (
            json!({"input": [], "tools": [{"type": "function", "name": ""}]}),
            0,
            "the name is empty",
        ),
        (
            json!({"messages": [], "tools": [{"name": "a", "input_schema": {}}, 7]}),
            1,
            "the entry is a number, not an object",
        ),
    ];
    let settings = toolprism::settings::Settings::default();
    for (body, index, expected) in cases {
        let capture = Capture::from_value(body.clone()).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!(capture.problems(), [(index, expected.to_owned())], "{body}");
        let label = format!("<entry {}>", index + 1);
        assert_eq!(capture.labels()[index], label.as_str(), "{body}");
        assert_eq!(
            capture.hosted().last(),
            Some(&index),
            "passed through: {body}"
        );
        // Every strategy that sends it passes it through untouched, and says the provider
        // rejects it.
        for strategy in toolprism::strategy::Strategy::ALL {
            let projection = toolprism::project(&capture, strategy, &settings);
            let sent: Vec<&serde_json::Value> = projection.tools(&capture).collect();
            if sent.contains(&&capture.tools()[index]) {
                assert!(!projection.request_valid, "{strategy}: {body}");
                let note = format!("{label}: {expected}");
                assert!(
                    projection.notes.iter().any(|n| n.text.starts_with(&note)),
                    "{strategy}: {:?}",
                    projection.notes
                );
            }
        }
    }
}

fn load(body: serde_json::Value) -> Capture {
    Capture::from_value(body.clone()).unwrap_or_else(|e| panic!("{body}: {e}"))
}

fn project_with(capture: &Capture, id: &str, sets: &[&str]) -> toolprism::Projection {
    let mut settings = toolprism::settings::Settings::default();
    for set in sets {
        settings.apply(set).unwrap();
    }
    let strategy: toolprism::strategy::Strategy = id.parse().unwrap();
    toolprism::project(capture, strategy, &settings)
}

fn notes_of(projection: &toolprism::Projection) -> Vec<String> {
    projection.notes.iter().map(|n| n.text.clone()).collect()
}

/// Gemini takes one Tool object where a list is due: read as a list of one (pydantic-ai's
/// recordings send it so, and the API answered); any other shape's object is refused.
#[test]
fn a_gemini_tool_object_is_a_list_of_one() {
    let body = br#"{"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": {"function_declarations": [{"name": "get_weather", "parameters": {}}]}}"#;
    let capture = Capture::from_bytes(body).unwrap();
    assert_eq!(capture.tool_names().collect::<Vec<_>>(), ["get_weather"]);
    let chat = br#"{"model": "gpt-4o", "messages": [], "tools": {"name": "a"}}"#;
    assert!(Capture::from_bytes(chat).is_err());
}

#[test]
fn gemini_declarations_are_the_entries_and_go_back_into_their_tool_objects() {
    let text = std::fs::read_to_string(sample("gemini-generate-content.json")).unwrap();
    let capture = Capture::from_bytes(text.as_bytes()).unwrap();
    assert_eq!(capture.shape().id(), "gemini-generate-content");
    assert_eq!(
        capture.tool_names().collect::<Vec<_>>(),
        [
            "read_file",
            "grep_files",
            "apply_patch",
            "mcp__github__create_issue",
            "<googleSearch>"
        ]
    );
    assert_eq!(capture.hosted(), [4]);
    assert!(
        toolprism::tool::schema(&capture.tools()[3])
            .is_some_and(|s| s.get("additionalProperties").is_some())
    );
    assert_eq!(
        capture.message_texts(),
        ["Find where the retry limit is set and raise it to 5."]
    );
    // The unchanged body is the capture, number spellings (`2E3`) included.
    let original = project_with(&capture, "original", &[]);
    let body = toolprism::capture::parse_exact(&text).unwrap();
    assert_eq!(
        original.request_json(&capture, false),
        toolprism::tool::compact(&body)
    );
    assert!(
        original
            .request_json(&capture, false)
            .contains(r#""maximum":2E3"#)
    );
    // minimal rewrites descriptions in place, inside the tool object.
    let minimal = project_with(&capture, "minimal", &[]).request_body(&capture);
    assert_eq!(minimal["tools"].as_array().unwrap().len(), 2);
    assert_eq!(
        minimal["tools"][0]["functionDeclarations"][0]["description"],
        "Read a file from the workspace"
    );
    assert_eq!(minimal["tools"][1], json!({"googleSearch": {}}));
    // defer: the MCP declaration is withheld, tool_search joins the declarations in Gemini's
    // form (this capture's schemas use parametersJsonSchema), the reminder is a user part.
    let defer = project_with(
        &capture,
        "defer",
        &["defer.threshold=1", "zero.release=2ea36cf"],
    );
    assert!(defer.request_valid, "{:?}", notes_of(&defer));
    let body = defer.request_body(&capture);
    let declarations = body["tools"][0]["functionDeclarations"].as_array().unwrap();
    let names: Vec<&str> = declarations
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["apply_patch", "grep_files", "read_file", "tool_search"]
    );
    assert!(declarations[3].get("parametersJsonSchema").is_some());
    assert_eq!(body["tools"][1], json!({"googleSearch": {}}));
    let contents = body["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 3, "appended to the last user content");
    let last = contents[2]["parts"].as_array().unwrap();
    assert!(
        last[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("<system-reminder>")
    );
    // disabled: no tools, no toolConfig.
    let disabled = project_with(&capture, "disabled", &[]).request_body(&capture);
    assert!(disabled.get("tools").is_none() && disabled.get("toolConfig").is_none());
}

#[test]
fn gemini_forced_function_and_several_tool_objects() {
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [
            {"functionDeclarations": [{"name": "b", "description": "B."}]},
            {"codeExecution": {}},
            {"function_declarations": [{"name": "a", "description": "A.", "parameters": {"type": "object"}}]}
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["b"]}}});
    let capture = load(body.clone());
    assert_eq!(capture.shape(), Shape::GeminiGenerateContent);
    assert_eq!(
        capture.tool_names().collect::<Vec<_>>(),
        ["b", "<codeExecution>", "a"]
    );
    assert_eq!(capture.tool_choice_name().as_deref(), Some("b"));
    let original = project_with(&capture, "original", &[]);
    assert_eq!(original.request_body(&capture), body);
    // direct sorts by name, hosted entries last: each declaration stays in its own object.
    let direct = project_with(&capture, "direct", &[]).request_body(&capture);
    assert_eq!(
        direct["tools"],
        json!([
            {"function_declarations": [{"name": "a", "description": "A.", "parameters": {"type": "object"}}]},
            {"functionDeclarations": [{"name": "b", "description": "B."}]},
            {"codeExecution": {}}
        ])
    );
    // adaptive drops every tool on a greeting: the forced choice goes with them.
    let adaptive = project_with(&capture, "adaptive", &[]);
    let request = adaptive.request_body(&capture);
    assert!(request.get("toolConfig").is_none(), "{request}");
}

#[test]
fn converse_tool_specs_are_read_and_written_in_their_own_form() {
    let capture = Capture::from_path(&sample("bedrock-converse.json")).unwrap();
    assert_eq!(capture.shape().id(), "bedrock-converse");
    assert_eq!(
        capture.tool_names().collect::<Vec<_>>(),
        [
            "query_logs",
            "get_job_run",
            "mcp__pagerduty__list_incidents",
            "<cachePoint>"
        ]
    );
    let schema = toolprism::tool::schema(&capture.tools()[0]).unwrap();
    assert_eq!(schema["required"], json!(["service"]));
    assert_eq!(
        capture.message_texts(),
        ["Why did last night's settlement job fail?"]
    );
    // minimal removes parameter descriptions inside inputSchema.json.
    let minimal = project_with(&capture, "minimal", &[]).request_body(&capture);
    let spec = &minimal["toolConfig"]["tools"][0]["toolSpec"];
    assert!(
        spec["inputSchema"]["json"]["properties"]["service"]
            .get("description")
            .is_none()
    );
    assert_eq!(spec["description"], "Query the log store");
    // defer: tool_search as a toolSpec, the reminder a text block of the last user message.
    let defer = project_with(
        &capture,
        "defer",
        &["defer.threshold=1", "zero.release=2ea36cf"],
    );
    let body = defer.request_body(&capture);
    let tools = body["toolConfig"]["tools"].as_array().unwrap();
    let search = tools
        .iter()
        .find(|t| t["toolSpec"]["name"] == "tool_search")
        .expect("tool_search is sent");
    assert_eq!(
        search["toolSpec"]["inputSchema"]["json"]["required"],
        json!(["query"])
    );
    assert_eq!(body["toolConfig"]["toolChoice"], json!({"auto": {}}));
    let content = body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(content.len(), 2);
    assert!(
        content[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("<system-reminder>")
    );
    // disabled: Converse rejects a toolConfig without tools, so it goes.
    let disabled = project_with(&capture, "disabled", &[]);
    let body = disabled.request_body(&capture);
    assert!(body.get("toolConfig").is_none(), "{body}");
    // A forced tool that a projection removes is an error.
    let forced = load(
        json!({"messages": [{"role": "user", "content": [{"text": "x"}]}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "mcp__a__b", "inputSchema": {"json": {}}}}],
            "toolChoice": {"tool": {"name": "mcp__a__b"}}}}),
    );
    assert_eq!(forced.tool_choice_name().as_deref(), Some("mcp__a__b"));
    let code = project_with(&forced, "code", &[]);
    assert!(code.request_body(&forced).get("toolConfig").is_none());
}

#[test]
fn bedrock_invoke_model_bodies_are_anthropic_messages_with_a_note() {
    let capture = Capture::from_path(&sample("bedrock-invoke-anthropic.json")).unwrap();
    assert_eq!(capture.shape(), Shape::AnthropicMessages);
    let original = project_with(&capture, "original", &[]);
    assert!(
        notes_of(&original)
            .iter()
            .any(|n| n.contains("Bedrock InvokeModel")),
        "{:?}",
        notes_of(&original)
    );
}

#[test]
fn chat_custom_tools_legacy_functions_namespaces_and_mcp_servers() {
    // GPT-5 grammar tools in Chat Completions nest their name under `custom`.
    let custom = load(
        json!({"model": "gpt-5", "messages": [{"role": "user", "content": "x"}],
        "tools": [
            {"type": "function", "function": {"name": "f", "parameters": {}}},
            {"type": "custom", "custom": {"name": "sql", "description": "Run SQL.",
                "format": {"type": "grammar", "grammar": {"syntax": "lark", "definition": "start: /.+/"}}}}
        ]}),
    );
    assert_eq!(custom.tool_names().collect::<Vec<_>>(), ["f", "sql"]);
    assert!(custom.problems().is_empty());
    let minimal = project_with(&custom, "minimal", &[]).request_body(&custom);
    assert_eq!(minimal["tools"][1]["custom"]["description"], "Run SQL");

    // The legacy `functions` list is the tool list; added tools are written flat.
    let body = json!({"model": "gpt-3.5-turbo", "messages": [{"role": "user", "content": "x"}],
        "functions": [{"name": "mcp__a__one", "parameters": {"type": "object"}},
                      {"name": "two", "description": "Two.", "parameters": {"type": "object"}}],
        "function_call": {"name": "mcp__a__one"}});
    let legacy = load(body.clone());
    assert_eq!(legacy.shape(), Shape::OpenAiChat);
    assert_eq!(
        legacy.tool_names().collect::<Vec<_>>(),
        ["mcp__a__one", "two"]
    );
    assert_eq!(legacy.tool_choice_name().as_deref(), Some("mcp__a__one"));
    let original = project_with(&legacy, "original", &[]);
    assert_eq!(original.request_body(&legacy), body);
    assert!(
        notes_of(&original)
            .iter()
            .any(|n| n.contains("legacy Chat Completions `functions`"))
    );
    let defer = project_with(&legacy, "defer-catalog", &["defer.threshold=1"]);
    let request = defer.request_body(&legacy);
    assert!(request.get("tools").is_none());
    let functions = request["functions"].as_array().unwrap();
    assert_eq!(functions.last().unwrap()["name"], "tool_search");
    assert!(functions.last().unwrap().get("function").is_none());
    assert!(
        !defer.request_valid,
        "the forced function is deferred: {:?}",
        notes_of(&defer)
    );
    let disabled = project_with(&legacy, "disabled", &[]).request_body(&legacy);
    assert!(disabled.get("functions").is_none() && disabled.get("function_call").is_none());

    // A Codex namespace is one entry, named and counted with its nested tools.
    let namespace = load(json!({"model": "gpt-5", "input": "x", "tools": [
        {"type": "namespace", "name": "mcp__codex_apps__gmail", "description": "Email.",
         "tools": [{"type": "function", "name": "_search_emails", "parameters": {}},
                   {"type": "function", "name": "_read_email", "parameters": {}}]}]}));
    assert_eq!(
        namespace.tool_names().collect::<Vec<_>>(),
        ["mcp__codex_apps__gmail"]
    );
    let notes = notes_of(&project_with(&namespace, "original", &[]));
    assert!(
        notes
            .iter()
            .any(|n| n.contains("namespace of 2 tools (_search_emails, _read_email)")),
        "{notes:?}"
    );

    // Anthropic's MCP connector: the servers' tools are not in the request. A server that an
    // `mcp_toolset` entry names gets that entry's note instead.
    let connector = load(
        json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "x"}],
        "mcp_servers": [{"type": "url", "url": "https://example.com/sse", "name": "example"},
                        {"type": "url", "url": "https://other.example/mcp", "name": "other"}],
        "tools": [{"type": "mcp_toolset", "mcp_server_name": "example"},
                  {"name": "f", "input_schema": {"type": "object"}}]}),
    );
    let notes = notes_of(&project_with(&connector, "original", &[]));
    assert!(
        notes
            .iter()
            .any(|n| n.contains("1 MCP server in `mcp_servers` (other)")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("`<mcp_toolset:example>` is a remote MCP server"))
    );
    let bare = load(
        json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "x"}],
        "mcp_servers": [{"type": "url", "url": "https://example.com/sse", "name": "example"}]}),
    );
    let notes = notes_of(&project_with(&bare, "original", &[]));
    assert!(
        notes
            .iter()
            .any(|n| n.contains("1 MCP server in `mcp_servers` (example)")),
        "{notes:?}"
    );
}

#[test]
fn tool_choice_names_a_tool_or_a_hosted_label() {
    let choice = |choice: serde_json::Value| {
        let capture = Capture::from_value(
            json!({"model": "gpt-5", "input": "x", "tool_choice": choice,
            "tools": [{"type": "function", "name": "f", "parameters": {}}]}),
        )
        .unwrap();
        capture.tool_choice_name().map(std::borrow::Cow::into_owned)
    };
    assert_eq!(
        choice(json!({"type": "function", "name": "f"})).as_deref(),
        Some("f")
    );
    assert_eq!(
        choice(json!({"type": "function", "function": {"name": "g"}})).as_deref(),
        Some("g")
    );
    assert_eq!(
        choice(json!({"type": "tool", "name": "h"})).as_deref(),
        Some("h")
    );
    assert_eq!(
        choice(json!({"type": "custom", "name": "c"})).as_deref(),
        Some("c")
    );
    assert_eq!(
        choice(json!({"type": "web_search"})).as_deref(),
        Some("<web_search>")
    );
    assert_eq!(
        choice(json!({"type": "mcp", "server_label": "deepwiki", "name": "ask_question"}))
            .as_deref(),
        Some("<mcp:deepwiki>")
    );
    assert_eq!(
        choice(json!({"type": "allowed_tools", "mode": "auto", "tools": []})),
        None
    );
    assert_eq!(choice(json!({"type": "any"})), None);
    assert_eq!(choice(json!({"type": "auto"})), None);
    assert_eq!(choice(json!("required")), None);
}

#[test]
fn hosted_entries_do_not_decide_the_shape() {
    let shape = |body: serde_json::Value| Capture::from_value(body).unwrap().shape();
    // A bare list: the first function tool decides.
    assert_eq!(
        shape(
            json!({"tools": [{"type": "web_search"}, {"type": "function", "function": {"name": "f"}}]})
        ),
        Shape::OpenAiChat
    );
    assert_eq!(
        shape(json!({"tools": [{"type": "web_search"}, {"name": "f", "inputSchema": {}}]})),
        Shape::McpToolsList
    );
    // Only hosted entries: their kind tells the API.
    assert_eq!(
        shape(json!({"tools": [{"type": "web_search"}]})),
        Shape::OpenAiResponses
    );
    assert_eq!(
        shape(json!({"tools": [{"type": "mcp_toolset", "mcp_server_name": "gh"}]})),
        Shape::AnthropicMessages
    );
    // With a conversation: an MCP toolset marks Anthropic Messages.
    assert_eq!(
        shape(
            json!({"model": "m", "messages": [{"role": "user", "content": "x"}],
            "tools": [{"type": "mcp_toolset", "mcp_server_name": "gh"}]})
        ),
        Shape::AnthropicMessages
    );
}

/// JSON number text in every spelling the grammar allows: sign, a leading zero or not, a
/// fraction, an exponent with `e` or `E` and an optional sign, and integers past 64 bits.
fn number_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let int = prop_oneof![Just("0".to_owned()), "[1-9][0-9]{0,24}"];
    (
        any::<bool>(),
        int,
        proptest::option::of("[0-9]{1,20}"),
        proptest::option::of(("[eE]", "[+-]?", "[0-9]{1,3}")),
    )
        .prop_map(|(negative, int, fraction, exponent)| {
            let mut text = String::new();
            if negative {
                text.push('-');
            }
            text.push_str(&int);
            if let Some(fraction) = fraction {
                text.push('.');
                text.push_str(&fraction);
            }
            if let Some((e, sign, digits)) = exponent {
                text.push_str(&e);
                text.push_str(&sign);
                text.push_str(&digits);
            }
            text
        })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// `original` is the capture as sent: every number keeps its text in the projected body,
    /// the tool list's bytes are the capture's, and projections that do not touch a number
    /// keep it too.
    #[test]
    fn numbers_keep_their_text(numbers in proptest::collection::vec(number_text(), 1..6)) {
        let properties: Vec<String> = numbers
            .iter()
            .enumerate()
            .map(|(i, n)| format!(r#""p{i}":{{"type":"number","default":{n},"enum":[{n},-0,1E2]}}"#))
            .collect();
        let tools = format!(
            r#"[{{"name":"calc","description":"Compute.","input_schema":{{"type":"object","properties":{{{}}},"minimum":{}}}}}]"#,
            properties.join(","),
            numbers[0]
        );
        let text = format!(r#"{{"model":"claude-x","max_tokens":18446744073709551616,"messages":[{{"role":"user","content":"x"}}],"tools":{tools}}}"#);
        let capture = Capture::from_bytes(text.as_bytes()).unwrap();
        let settings = toolprism::settings::Settings::default();
        let original = toolprism::project(&capture, toolprism::strategy::Strategy::Original, &settings);
        proptest::prop_assert_eq!(original.request_json(&capture, false), text.clone());
        proptest::prop_assert_eq!(original.tools_json(&capture, false), tools.clone());
        let counter = toolprism::measure::TokenCounter::new(toolprism::measure::Encoding::O200kBase);
        let report = toolprism::report::report(&capture, "p", &[toolprism::strategy::Strategy::Original], &settings, &counter);
        proptest::prop_assert_eq!(report.capture.tools_bytes, tools.len());
        proptest::prop_assert_eq!(report.capture.tools_tokens, counter.count(&tools));
        // A pretty capture keeps the same number text.
        let pretty = toolprism::tool::pretty(capture.body());
        let again = Capture::from_bytes(pretty.as_bytes()).unwrap();
        let again = toolprism::project(&again, toolprism::strategy::Strategy::Original, &settings);
        proptest::prop_assert_eq!(again.tools_json(&capture, false), tools.clone());
        // `direct` changes no schema: the numbers are the capture's.
        let direct = toolprism::project(&capture, toolprism::strategy::Strategy::Direct, &settings);
        let direct = direct.request_json(&capture, false);
        for n in &numbers {
            let needle = format!(r#""default":{n},"#);
            proptest::prop_assert!(direct.contains(&needle));
        }
    }
}
