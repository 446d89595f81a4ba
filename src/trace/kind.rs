//! What a JSON record is when it is not a request body: read for what it holds (a LiteLLM
//! logging payload), or named and refused in one line (a session transcript, a response, an
//! OpenAI `mcp_list_tools` item), rather than loaded as a request that has no tools.

use serde_json::{Map, Value};

/// How to record traffic that holds the tool definitions, for the refusals' last words.
const HOW_TO_RECORD: &str = "record the API traffic instead: claude-trace or cctrace (Claude \
                             Code), a HAR export (browser devtools, mitmproxy, Proxyman), or a \
                             logging proxy; see docs/FORMATS.md";

/// Why a record is not read, in one line, when it is something known that holds no request.
pub(crate) fn refusal(record: &Value) -> Option<String> {
    let object = record.as_object()?;
    let text = |key: &str| object.get(key).and_then(Value::as_str);
    if is_claude_code_transcript(object) {
        return Some(format!(
            "a Claude Code session transcript (~/.claude/projects/*.jsonl): it holds the \
             conversation and each call's usage, not the tool definitions sent to the model \
             (`toolprism session FILE` reads its cache and breaks); {HOW_TO_RECORD}"
        ));
    }
    if is_agent_sdk_stream(object) {
        return Some(format!(
            "a Claude Agent SDK / `claude -p --output-format stream-json` message log: it holds \
             the conversation's messages and the session's tool names, not the requests sent to \
             the model; {HOW_TO_RECORD}"
        ));
    }
    if is_agent_sdk_recording(object) {
        return Some(format!(
            "a Claude Agent SDK recording (`metadata` beside `messages[].{{direction, \
             message}}`: what the SDK and the Claude Code CLI said to each other): it holds the \
             conversation, not the requests sent to the model; {HOW_TO_RECORD}"
        ));
    }
    if is_atif(object) {
        let version = text("schema_version").unwrap_or("ATIF");
        return Some(format!(
            "an ATIF agent trajectory ({version}, Harbor's Agent Trajectory Interchange \
             Format): it holds the agent's steps and metrics, not the requests sent to the \
             model; {HOW_TO_RECORD}"
        ));
    }
    if is_codex_rollout(object) {
        return Some(format!(
            "a Codex session rollout (~/.codex/sessions/**/rollout-*.jsonl): it holds the \
             conversation, not the tool definitions sent to the model; {HOW_TO_RECORD}"
        ));
    }
    if object
        .get("networkCallRecords")
        .is_some_and(Value::is_array)
    {
        return Some(format!(
            "an Azure SDK for Java recording (`networkCallRecords`, azure-core-test's format \
             before the test proxy): it keeps each call's URL and response, not the request \
             body sent; {HOW_TO_RECORD}"
        ));
    }
    if text("type") == Some("mcp_list_tools") {
        let server = text("server_label").unwrap_or("?");
        return Some(format!(
            "an OpenAI Responses `mcp_list_tools` output item (the tools MCP server `{server}` \
             listed to OpenAI, read from a response): not a request; the request's `mcp` tool \
             entry is what was sent, and the server's own tools/list answer is what it lists"
        ));
    }
    if let Some(what) = response_kind(object) {
        return Some(format!(
            "{what}, not a request: toolprism reads what was sent (the request body, or a trace \
             that holds it)"
        ));
    }
    None
}

/// What a JSON value that is no request is, where its markers tell: a model's answer, one
/// event of its stream, or one item of a conversation (for a document read as one request).
pub(crate) fn not_a_request(value: &Value) -> Option<&'static str> {
    let object = value.as_object()?;
    let kind = object.get("type").and_then(Value::as_str);
    let has = |key: &str| object.contains_key(key);
    if let Some(what) = response_kind(object) {
        return Some(what);
    }
    Some(match kind {
        Some(t) if t.starts_with("response.") && has("response") => {
            "an OpenAI Responses stream event"
        }
        Some("message_start" | "content_block_start" | "content_block_delta" | "message_delta") => {
            "an Anthropic Messages stream event"
        }
        _ if has("output") && has("stopReason") && !has("messages") => {
            "a Bedrock Converse response"
        }
        Some("message" | "function_call" | "function_call_output" | "reasoning")
            if has("role") || has("call_id") || has("summary") =>
        {
            "one OpenAI Responses input item"
        }
        _ if has("role") && has("content") && !has("messages") => "one conversation message",
        _ => return None,
    })
}

/// A model's answer rather than a request.
fn response_kind(object: &Map<String, Value>) -> Option<&'static str> {
    let text = |key: &str| object.get(key).and_then(Value::as_str);
    match text("object") {
        Some("response") => return Some("an OpenAI Responses response"),
        Some("chat.completion" | "chat.completion.chunk") => {
            return Some("an OpenAI Chat Completions response");
        }
        _ => {}
    }
    if text("type") == Some("message")
        && text("role") == Some("assistant")
        && object.contains_key("stop_reason")
    {
        return Some("an Anthropic Messages response");
    }
    if object.contains_key("candidates") && !object.contains_key("contents") {
        return Some("a Gemini generateContent response");
    }
    None
}

/// Claude Code's transcript lines: `sessionId` with `type` `user` / `assistant` / `system`;
/// any other line of its envelope (`progress`, `attachment`: `type`, `sessionId`, `uuid` and
/// `parentUuid`); the `queue-operation` lines a session may open with (`operation`,
/// `sessionId`: prompts queued while it works); or the `summary` and `file-history-snapshot`
/// lines it also writes.
pub(crate) fn is_claude_code_transcript(object: &Map<String, Value>) -> bool {
    let kind = object.get("type").and_then(Value::as_str);
    let has = |key: &str| object.contains_key(key);
    let message_line = matches!(kind, Some("user" | "assistant" | "system"))
        && has("sessionId")
        && (has("uuid") || has("parentUuid"));
    let envelope = kind.is_some() && has("sessionId") && has("uuid") && has("parentUuid");
    let queued = kind == Some("queue-operation") && has("sessionId") && has("operation");
    let summary = kind == Some("summary") && has("leafUuid");
    let snapshot = kind == Some("file-history-snapshot") && has("messageId");
    message_line || envelope || queued || summary || snapshot
}

/// The Claude Agent SDK's messages, as `--output-format stream-json` writes them one a line:
/// `type` (`system` with its `subtype`, `assistant` / `user` with their `message`, `result`,
/// `stream_event`) and `session_id`.
fn is_agent_sdk_stream(object: &Map<String, Value>) -> bool {
    if !object.get("session_id").is_some_and(Value::is_string) {
        return false;
    }
    let has = |key: &str| object.contains_key(key);
    match object.get("type").and_then(Value::as_str) {
        Some("system" | "result") => has("subtype"),
        Some("assistant" | "user") => object.get("message").is_some_and(Value::is_object),
        Some("stream_event") => has("event"),
        _ => false,
    }
}

/// A recording of the Agent SDK's exchange with the CLI (its tests' fixtures): `metadata` and
/// `messages`, each message `{direction, message}` (`direction` the way it went).
fn is_agent_sdk_recording(object: &Map<String, Value>) -> bool {
    object.get("metadata").is_some_and(Value::is_object)
        && object
            .get("messages")
            .and_then(Value::as_array)
            .and_then(|m| m.first())
            .is_some_and(|first| {
                first.get("direction").is_some_and(Value::is_string)
                    && first.get("message").is_some()
            })
}

/// An ATIF trajectory: `schema_version` `ATIF-v…`, or its `agent` and `steps` beside a
/// `session_id`.
fn is_atif(object: &Map<String, Value>) -> bool {
    let version = object.get("schema_version").and_then(Value::as_str);
    version.is_some_and(|v| v.starts_with("ATIF"))
        || (object.get("steps").is_some_and(Value::is_array)
            && object.get("agent").is_some_and(Value::is_object)
            && object.contains_key("session_id"))
}

/// Codex's rollout lines: `{timestamp, type, payload}`, `type` one of its item kinds.
fn is_codex_rollout(object: &Map<String, Value>) -> bool {
    let kind = object.get("type").and_then(Value::as_str);
    matches!(
        kind,
        Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
    ) && object.contains_key("payload")
        && object.contains_key("timestamp")
}

/// Whether a record is a LiteLLM `StandardLoggingPayload` (what its loggers and callbacks
/// write): `call_type`, `model_parameters` and `messages`.
pub(crate) fn is_litellm_payload(record: &Value) -> bool {
    record.get("call_type").is_some_and(Value::is_string)
        && record.get("model_parameters").is_some_and(Value::is_object)
        && record.get("messages").is_some()
}

/// The note a LiteLLM payload's turns carry.
pub(crate) const LITELLM_NOTE: &str = "a LiteLLM logging payload: the request is rebuilt from \
    what LiteLLM logged (`model`, `messages`, `model_parameters`), so its bytes are the log's, \
    not the ones sent on the wire";

/// The request a LiteLLM payload logged: `model`, `messages` and every `model_parameters` key
/// (`tools`, `tool_choice`, ...), in that order.
pub(crate) fn litellm_request(payload: &Value) -> Value {
    let mut body = Map::new();
    if let Some(model) = payload.get("model") {
        body.insert("model".into(), model.clone());
    }
    if let Some(messages) = payload.get("messages") {
        body.insert("messages".into(), messages.clone());
    }
    if let Some(Value::Object(parameters)) = payload.get("model_parameters") {
        for (key, value) in parameters {
            body.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn known_records_are_named() {
        let transcript = json!({"type": "user", "sessionId": "s", "uuid": "u",
            "parentUuid": null, "message": {"role": "user", "content": "hi"}});
        assert!(
            refusal(&transcript)
                .unwrap()
                .starts_with("a Claude Code session transcript")
        );
        let rollout = json!({"timestamp": "2025-09-01T00:00:00Z", "type": "session_meta",
            "payload": {"id": "x"}});
        assert!(
            refusal(&rollout)
                .unwrap()
                .starts_with("a Codex session rollout")
        );
        let item = json!({"type": "mcp_list_tools", "server_label": "deepwiki", "tools": []});
        assert!(refusal(&item).unwrap().contains("`deepwiki`"));
        let response = json!({"type": "message", "role": "assistant", "content": [],
            "stop_reason": "end_turn"});
        assert!(
            refusal(&response)
                .unwrap()
                .starts_with("an Anthropic Messages response")
        );
        let init = json!({"type": "system", "subtype": "init", "session_id": "s",
            "tools": ["Bash", "Read"], "model": "claude-sonnet-4-5"});
        assert!(refusal(&init).unwrap().starts_with("a Claude Agent SDK"));
        let result = json!({"type": "result", "subtype": "success", "session_id": "s",
            "usage": {"input_tokens": 3}});
        assert!(refusal(&result).unwrap().starts_with("a Claude Agent SDK"));
        let atif = json!({"schema_version": "ATIF-v1.4", "session_id": "s",
            "agent": {"name": "a", "version": "1"}, "steps": []});
        assert!(
            refusal(&atif)
                .unwrap()
                .starts_with("an ATIF agent trajectory (ATIF-v1.4")
        );
        let recording = json!({"metadata": {"sdk": "claude-agent-sdk", "version": "0.1.0"},
            "messages": [{"direction": "outgoing", "message": {"type": "user",
                "message": {"role": "user", "content": "hi"}}}]});
        assert!(
            refusal(&recording)
                .unwrap()
                .starts_with("a Claude Agent SDK recording (`metadata` beside")
        );
        // A request is none of these.
        let request = json!({"model": "m", "messages": [], "tools": []});
        assert_eq!(refusal(&request), None);
        assert!(!is_litellm_payload(&request));
    }

    #[test]
    fn litellm_payload_gives_its_request() {
        let payload = json!({"call_type": "acompletion", "model": "gpt-4o",
            "messages": [{"role": "user", "content": "hi"}],
            "model_parameters": {"tools": [{"type": "function", "function": {"name": "f"}}],
                "temperature": 0}});
        assert!(is_litellm_payload(&payload));
        assert_eq!(
            litellm_request(&payload),
            json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"type": "function", "function": {"name": "f"}}], "temperature": 0})
        );
    }
}
