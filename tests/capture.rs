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
            b"{\"model\": \"x\"}",
            "not a known capture shape: no `messages`, `input` or `tools`",
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
        (
            b"{\"messages\": [], \"tools\": [{\"name\": \"a\"}, 7]}",
            "tool 1: the entry is a number, not an object",
        ),
        (
            b"{\"messages\": [], \"tools\": [{\"description\": \"x\"}]}",
            "tool 0: no `name`",
        ),
        (
            b"{\"messages\": [], \"tools\": [{\"name\": 3}]}",
            "tool 0: the name is a number, not a string",
        ),
        (
            b"{\"input\": [], \"tools\": [{\"type\": \"function\", \"name\": \"\"}]}",
            "tool 0: the name is empty",
        ),
        (
            b"{\"messages\": [], \"tools\": [{\"type\": \"function\", \"function\": {}}]}",
            "tool 0: no `name`",
        ),
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
fn entries_without_a_name_or_a_hosted_type_stay_errors() {
    let cases: Vec<(serde_json::Value, &str)> = vec![
        (
            json!({"input": [], "tools": [{"type": "web_search"}, {"type": ""}]}),
            "tool 1: no `name`, and no `type` naming a hosted tool (such as web_search)",
        ),
        (
            json!({"input": [], "tools": [{"type": 5}]}),
            "tool 0: no `name`, and no `type` naming a hosted tool (such as web_search)",
        ),
        (
            json!({"input": [], "tools": [{"type": "function", "parameters": {}}]}),
            "tool 0: no `name`, and no `type` naming a hosted tool (such as web_search)",
        ),
        (
            json!({"input": [], "tools": [{"type": "custom", "name": 2}]}),
            "tool 0: the name is a number, not a string",
        ),
        (
            json!({"messages": [], "tools": [{"type": "function", "function": {"description": "x"}}]}),
            "tool 0: no `name`, and no `type` naming a hosted tool (such as web_search)",
        ),
        (
            json!({"input": [], "tools": [{"type": "function", "name": ""}]}),
            "tool 0: the name is empty",
        ),
    ];
    for (body, expected) in cases {
        let message = Capture::from_value(body.clone())
            .expect_err("must be refused")
            .to_string();
        assert_eq!(message, expected, "{body}");
    }
}

#[test]
fn tool_choice_names_a_tool_or_a_hosted_label() {
    let choice = |choice: serde_json::Value| {
        let capture = Capture::from_value(
            json!({"model": "gpt-5", "input": "x", "tool_choice": choice,
            "tools": [{"type": "function", "name": "f", "parameters": {}}]}),
        )
        .unwrap();
        capture.tool_choice_name().map(|c| c.into_owned())
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
