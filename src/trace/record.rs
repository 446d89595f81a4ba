//! One JSON record of a trace (a line, a folder's file, a whole document) as a model call or an
//! ignored request: claude-trace / cctrace records, wrapped bodies and bare bodies.

use serde_json::{Map, Value};

use super::{Ignored, RecordBody, TraceFormat, TraceRecord, Usage, time, usage};
use crate::error::json_kind;

/// What a record turned out to be.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A model call: a turn.
    Turn(Box<TraceRecord>),
    /// Not a model call: listed, never a turn.
    Ignored(Ignored),
}

/// The JSON-lines format a record belongs to, judged from one record.
pub(crate) fn format_of(record: &Value) -> TraceFormat {
    if is_claude_trace(record) {
        TraceFormat::ClaudeTrace
    } else if is_wrapped(record) {
        TraceFormat::WrappedJsonl
    } else {
        TraceFormat::BareJsonl
    }
}

/// claude-trace / cctrace: `request.url` and `request.method`, and `logged_at` / `loggedAt`.
fn is_claude_trace(record: &Value) -> bool {
    record.as_object().is_some_and(is_claude_trace_map)
}

fn is_claude_trace_map(record: &Map<String, Value>) -> bool {
    let request = record.get("request");
    let has = |key| {
        request
            .and_then(|r| r.get(key))
            .is_some_and(Value::is_string)
    };
    has("url")
        && has("method")
        && (record.contains_key("logged_at") || record.contains_key("loggedAt"))
}

/// A record that holds a body rather than being one: `request` (an object) or `body`.
fn is_wrapped(record: &Value) -> bool {
    record.get("request").is_some_and(Value::is_object) || record.get("body").is_some()
}

/// Read one record. `Err` is the problem, for the caller to place (`line 5: …`).
pub(crate) fn from_value(record: Value, source: String) -> Result<Outcome, String> {
    let Value::Object(mut record) = record else {
        return Err(format!(
            "the record is {}, not an object",
            json_kind(&record)
        ));
    };
    let claude_trace = is_claude_trace_map(&record);
    let request_object = matches!(record.get("request"), Some(Value::Object(_)));
    if !request_object && !record.contains_key("body") {
        let body = request_body(Value::Object(record))?;
        return Ok(Outcome::Turn(Box::new(TraceRecord::bare(source, body))));
    }
    // The request's fields live in `request` (claude-trace, cctrace, most proxies) or at the top.
    let mut holder = match record.remove("request") {
        Some(Value::Object(request)) => request,
        Some(other) => {
            record.insert("request".into(), other);
            Map::new()
        }
        None => Map::new(),
    };
    let field = |key: &str, holder: &Map<String, Value>, record: &Map<String, Value>| {
        holder
            .get(key)
            .or_else(|| record.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let method = field("method", &holder, &record);
    let url = field("url", &holder, &record);
    if let Some(url) = &url
        && let Some(reason) = not_a_model_call(method.as_deref(), url)
    {
        return Ok(Outcome::Ignored(Ignored {
            source,
            method,
            url: Some(url.clone()),
            reason,
        }));
    }
    let stamp = holder
        .get("timestamp")
        .or_else(|| record.get("timestamp"))
        .or_else(|| record.get("logged_at"))
        .or_else(|| record.get("loggedAt"))
        .and_then(time::from_value);
    let (timestamp, time_ms) = match stamp {
        Some((text, ms)) => (Some(text), ms),
        None => (None, None),
    };
    let agent_id = holder
        .get("headers")
        .or_else(|| record.get("headers"))
        .and_then(|h| header(h, "x-claude-code-agent-id"));
    let body = match holder.remove("body").or_else(|| record.remove("body")) {
        Some(body) => request_body(body)?,
        None => return Err("no request body".to_owned()),
    };
    let (status, orphan, usage) = match record.get("response") {
        Some(Value::Object(response)) => {
            let status = response
                .get("status_code")
                .or_else(|| response.get("status"))
                .and_then(status_code);
            (status, false, response_usage(response))
        }
        Some(Value::Null) => (None, true, None),
        // claude-trace writes `response: null` for a call that never completed; a record of that
        // kind without the key at all is the same.
        None => (None, claude_trace, None),
        Some(_) => (None, false, None),
    };
    Ok(Outcome::Turn(Box::new(TraceRecord {
        source,
        timestamp,
        time_ms,
        method,
        url,
        status,
        orphan,
        body,
        usage,
        agent_id,
    })))
}

/// A request body: an object, or a string holding one. A cctrace compaction stub is marked.
pub(crate) fn request_body(body: Value) -> Result<RecordBody, String> {
    let body = match body {
        Value::String(text) => crate::capture::parse_exact(&text).map_err(|e| {
            let error = crate::error::json_error(&e);
            format!("the body is a string that is not JSON ({error})")
        })?,
        other => other,
    };
    let Value::Object(object) = &body else {
        return Err(format!("the body is {}, not an object", json_kind(&body)));
    };
    if object.contains_key("_cctrace_stub") {
        return Ok(RecordBody::CompactionStub);
    }
    // The keys `Capture` recognises a body by (an MCP tools/list result may sit in `result`).
    let mcp_result = object
        .get("result")
        .is_some_and(|r| r.get("tools").is_some());
    if !(object.contains_key("messages")
        || object.contains_key("input")
        || object.contains_key("tools")
        || mcp_result)
    {
        return Err("the body is not a request (no `messages`, `input` or `tools`)".to_owned());
    }
    Ok(RecordBody::Request(body))
}

/// Usage from a response object: `body` (an object, or text holding JSON or SSE), else the raw
/// text under `body_raw` / `bodyRaw`.
fn response_usage(response: &Map<String, Value>) -> Option<Usage> {
    let from = |value: &Value| match value {
        Value::String(text) => usage::from_text(text),
        Value::Object(_) => usage::from_json(value),
        _ => None,
    };
    response
        .get("body")
        .and_then(from)
        .or_else(|| response.get("body_raw").and_then(from))
        .or_else(|| response.get("bodyRaw").and_then(from))
}

/// An HTTP status as a number or numeric text.
pub(crate) fn status_code(value: &Value) -> Option<u16> {
    match value {
        Value::Number(n) => n.as_u64().and_then(|n| u16::try_from(n).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A header's value, the name matched without regard to case. Headers come as an object
/// (`{"name": "value"}`, a value may be a list) or as HAR's list of `{name, value}`.
pub(crate) fn header(headers: &Value, name: &str) -> Option<String> {
    match headers {
        Value::Object(map) => map.iter().find_map(|(key, value)| {
            if !key.eq_ignore_ascii_case(name) {
                return None;
            }
            match value {
                Value::String(s) => Some(s.clone()),
                Value::Array(items) => items.iter().find_map(Value::as_str).map(str::to_owned),
                _ => None,
            }
        }),
        Value::Array(items) => items.iter().find_map(|item| {
            let key = item.get("name")?.as_str()?;
            key.eq_ignore_ascii_case(name)
                .then(|| item.get("value")?.as_str().map(str::to_owned))
                .flatten()
        }),
        _ => None,
    }
}

/// Why a request is not a model call, or `None` when it is: a `POST` whose path (query and
/// fragment stripped) ends in `/v1/messages`, `/chat/completions` or `/responses`.
pub(crate) fn not_a_model_call(method: Option<&str>, url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let path = path.trim_end_matches('/');
    if let Some(method) = method
        && !method.eq_ignore_ascii_case("POST")
    {
        return Some(method.to_ascii_uppercase());
    }
    if path.ends_with("/v1/messages")
        || path.ends_with("/chat/completions")
        || path.ends_with("/responses")
    {
        return None;
    }
    let reason = if path.ends_with("/count_tokens") {
        "count_tokens call"
    } else if path.contains("/embeddings") {
        "embeddings"
    } else if path.contains("/images") {
        "images"
    } else {
        "not a model call"
    };
    Some(reason.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_calls_by_url() {
        let post = Some("POST");
        assert_eq!(
            not_a_model_call(post, "https://api.anthropic.com/v1/messages?beta=true"),
            None
        );
        assert_eq!(
            not_a_model_call(post, "http://localhost:4000/openai/v1/chat/completions"),
            None
        );
        assert_eq!(
            not_a_model_call(post, "https://api.openai.com/v1/responses"),
            None
        );
        assert_eq!(
            not_a_model_call(None, "https://api.openai.com/v1/responses/"),
            None
        );
        let reason = |m, u| not_a_model_call(m, u).unwrap();
        assert_eq!(
            reason(
                post,
                "https://api.anthropic.com/v1/messages/count_tokens?beta=true"
            ),
            "count_tokens call"
        );
        assert_eq!(
            reason(Some("get"), "https://api.anthropic.com/v1/models"),
            "GET"
        );
        assert_eq!(
            reason(post, "https://api.openai.com/v1/embeddings"),
            "embeddings"
        );
        assert_eq!(
            reason(post, "https://api.openai.com/v1/images/generations"),
            "images"
        );
        assert_eq!(
            reason(post, "https://statsig.anthropic.com/v1/rgstr"),
            "not a model call"
        );
    }

    #[test]
    fn headers_any_case_either_form() {
        let object = serde_json::json!({"X-Claude-Code-Agent-Id": "a1"});
        assert_eq!(
            header(&object, "x-claude-code-agent-id").as_deref(),
            Some("a1")
        );
        let har = serde_json::json!([{"name": "content-type", "value": "x"},
            {"name": "x-claude-code-agent-ID", "value": "b2"}]);
        assert_eq!(
            header(&har, "x-claude-code-agent-id").as_deref(),
            Some("b2")
        );
        assert_eq!(header(&har, "missing"), None);
    }
}
