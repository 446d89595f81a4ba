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
        (
            b"",
            "invalid JSON at line 1, column 0: EOF while parsing a value",
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
