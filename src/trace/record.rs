//! One JSON record of a trace (a line, a folder's file, a whole document) as a model call or an
//! ignored request: claude-trace / cctrace records, wrapped bodies and bare bodies.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::mcp_servers::ServerInfo;
use super::{Ignored, RecordBody, TraceFormat, TraceRecord, Usage, time, usage};
use crate::error::json_kind;

/// What a record turned out to be.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A model call: a turn.
    Turn(Box<TraceRecord>),
    /// Not a model call: listed, never a turn.
    Ignored(Ignored),
    /// An MCP server's `tools/list` answer, its body the JSON-RPC response: the server's list,
    /// not a model call. Beside model calls it is listed as ignored, naming the server; a trace
    /// of no model call reads as its first list (see [`super::TraceReader`]).
    ServerList(Box<TraceRecord>),
    /// An MCP `initialize` exchange whose answer names its server: not a model call (listed
    /// as ignored), the server named for the reader ([`super::mcp_servers`]).
    ServerHello(Ignored, Box<ServerInfo>),
}

impl Outcome {
    /// A turn, or the server's list when `mcp` (the call was an MCP `tools/list`).
    pub(crate) fn turn(record: TraceRecord, mcp: bool) -> Outcome {
        if mcp {
            Outcome::ServerList(Box::new(record))
        } else {
            Outcome::Turn(Box::new(record))
        }
    }
}

/// How an MCP `tools/list` answer is listed beside model calls: the server (`server`: its name
/// and version as its `initialize` answer gave them, safe for a terminal) and what it listed.
pub(crate) fn server_list_reason(record: &TraceRecord, server: Option<&str>) -> String {
    let tools = match &record.body {
        super::RecordBody::Request(body) => body
            .get("result")
            .unwrap_or(body)
            .get("tools")
            .and_then(Value::as_array)
            .map_or(0, Vec::len),
        super::RecordBody::CompactionStub => 0,
    };
    let plural = if tools == 1 { "" } else { "s" };
    let whose = server.map_or("the server's".to_owned(), |s| format!("{s}'s"));
    format!("MCP tools/list: {whose} list of {tools} tool{plural}, not a model call")
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

/// Read one record, written as `text` when the reader has it (a JSON line, a file). `Err` is the
/// problem, for the caller to place (`line 5: …`).
pub(crate) fn from_value(
    record: Value,
    source: String,
    text: Option<&str>,
) -> Result<Outcome, String> {
    let Value::Object(mut record) = record else {
        return Err(format!(
            "the record is {}, not an object",
            json_kind(&record)
        ));
    };
    decode_encoded_bodies(&mut record)?;
    let claude_trace = is_claude_trace_map(&record);
    let request_object = matches!(record.get("request"), Some(Value::Object(_)));
    if !request_object && !record.contains_key("body") {
        let record = Value::Object(record);
        if super::kind::is_litellm_payload(&record) {
            return Ok(Outcome::Turn(Box::new(litellm_record(&record, source)?)));
        }
        if let Some(what) = super::kind::refusal(&record) {
            return Err(what);
        }
        let body = request_body(record)?;
        let mut record = TraceRecord::bare(source, body);
        record.body_text = text.map(Into::into);
        return Ok(Outcome::Turn(Box::new(record)));
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
    let response_text = match record.get("response") {
        Some(Value::Object(response)) => ["body", "body_raw", "bodyRaw"]
            .iter()
            .find_map(|key| response.get(*key).filter(|v| !v.is_null())),
        _ => None,
    };
    let call = classify(
        method.as_deref(),
        url.as_deref(),
        holder.get("body").or_else(|| record.get("body")),
        response_text,
    );
    let mcp_list = match call.not_a_turn(&source, method.as_ref(), url.as_ref()) {
        Ok(Call::McpList(answer)) => Some(answer),
        Ok(_) => None,
        Err(outcome) => return Ok(outcome),
    };
    let (timestamp, time_ms) = record_time(&holder, &record);
    let headers = holder.get("headers").or_else(|| record.get("headers"));
    let agent_id = headers.and_then(|h| header(h, "x-claude-code-agent-id"));
    let betas = headers.and_then(sent_betas);
    let in_request = holder.contains_key("body");
    let mcp = mcp_list.is_some();
    let (body, body_text) = match (
        mcp_list,
        holder.remove("body").or_else(|| record.remove("body")),
    ) {
        (Some(answer), _) => (request_body(answer)?, None),
        (None, Some(body)) => {
            let sent = body_text(&body).or_else(|| body_in_record(text?, in_request));
            (request_body(body)?, sent)
        }
        (None, None) => return Err("no request body".to_owned()),
    };
    let mut prefix_answer = None;
    let (status, orphan, usage) = match record.get("response") {
        Some(Value::Object(response)) => {
            let status = response
                .get("status_code")
                .or_else(|| response.get("status"))
                .and_then(status_code);
            prefix_answer = response_prefix_answer(response);
            (status, false, response_usage(response))
        }
        Some(Value::Null) => (None, true, None),
        // claude-trace writes `response: null` for a call that never completed; a record of that
        // kind without the key at all is the same.
        None => (None, claude_trace, None),
        Some(_) => (None, false, None),
    };
    Ok(Outcome::turn(
        TraceRecord {
            source,
            timestamp,
            time_ms,
            method,
            url,
            status,
            orphan,
            body,
            body_text,
            usage,
            agent_id,
            betas,
            prefix_answer,
        },
        mcp,
    ))
}

/// When a record was made: the request's `timestamp`, else the record's `timestamp`,
/// `logged_at` / `loggedAt` (claude-trace, cctrace) or `captured_at` (ReqLLM), else its
/// response's `Date` header.
fn record_time(
    request: &Map<String, Value>,
    record: &Map<String, Value>,
) -> (Option<String>, Option<i64>) {
    let stamp = request
        .get("timestamp")
        .or_else(|| record.get("timestamp"))
        .or_else(|| record.get("logged_at"))
        .or_else(|| record.get("loggedAt"))
        .or_else(|| record.get("captured_at"))
        .and_then(time::from_value);
    if let Some((text, ms)) = stamp {
        return (Some(text), ms);
    }
    // Else when it was answered, to the second: the response's `Date` header, as cassettes.
    let date = record
        .get("response")
        .and_then(|r| r.get("headers"))
        .and_then(|h| header(h, "date"));
    match date.as_deref().and_then(time::parse_http_date) {
        Some(ms) => (date, Some(ms)),
        None => (None, None),
    }
}

/// Bodies a recorder kept as their bytes in base64 (ReqLLM's fixtures: `request.body` and
/// `response.body` as `{"b64": ...}`, a stream's pieces as `chunks[].{b64, decoded}` beside the
/// response; ExVCR's answer marked `binary: true`), decoded in place: the request body becomes the text sent, the response body what
/// [`super::cassette::bytes_value`] makes of its bytes, the pieces the response's `chunks`.
/// A request body that is not base64 is an error; a response body that is not is left as it
/// is (its usage unread).
fn decode_encoded_bodies(record: &mut Map<String, Value>) -> Result<(), String> {
    let decode = |value: &mut Value| -> Result<(), String> {
        let Some(Value::String(b64)) = value
            .as_object()
            .filter(|o| o.len() == 1)
            .and_then(|o| o.get("b64"))
        else {
            return Ok(());
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .map_err(|e| format!("its `b64` body is not base64 ({e})"))?;
        *value = super::cassette::bytes_value(bytes);
        Ok(())
    };
    if let Some(body) = record.get_mut("request").and_then(|s| s.get_mut("body")) {
        decode(body).map_err(|e| format!("the request: {e}"))?;
    }
    if let Some(Value::Object(response)) = record.get_mut("response") {
        // ExVCR marks an answer it kept as base64 bytes `binary: true`.
        let binary = response.get("binary").and_then(Value::as_bool) == Some(true);
        match response.get_mut("body") {
            Some(Value::String(b64)) if binary => {
                let compact: String = b64.chars().filter(|c| !c.is_ascii_whitespace()).collect();
                if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(compact) {
                    response.insert("body".into(), super::cassette::bytes_value(bytes));
                }
            }
            Some(body) => {
                let _unread = decode(body);
            }
            None => {}
        }
    }
    let Some(Value::Array(chunks)) = record.get("chunks") else {
        return Ok(());
    };
    let text = |chunk: &Value| -> Option<String> {
        if let Some(decoded) = chunk.get("decoded").and_then(Value::as_str) {
            return Some(decoded.to_owned());
        }
        let b64 = chunk.get("b64")?.as_str()?;
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
        String::from_utf8(bytes).ok()
    };
    let pieces: Option<Vec<Value>> = chunks.iter().map(|c| text(c).map(Value::String)).collect();
    if let (Some(pieces), Some(Value::Object(response))) = (pieces, record.get_mut("response"))
        && !response.contains_key("chunks")
    {
        response.insert("chunks".into(), Value::Array(pieces));
    }
    Ok(())
}

/// A LiteLLM logging payload as a turn: the request it logged, its start time, its status and
/// the usage of the response it logged.
fn litellm_record(payload: &Value, source: String) -> Result<TraceRecord, String> {
    let body = request_body(super::kind::litellm_request(payload))?;
    let mut record = TraceRecord::bare(source, body);
    if let Some((text, ms)) = payload.get("startTime").and_then(time::from_value) {
        record.timestamp = Some(text);
        record.time_ms = ms;
    }
    // A failed call logged no response (its HTTP status is not in the payload).
    record.orphan = payload.get("status").and_then(Value::as_str) == Some("failure");
    record.usage = payload.get("response").and_then(usage::from_json);
    Ok(record)
}

/// An object body's bytes as the record writes it (`request.body`, or `body` at the top).
fn body_in_record(text: &str, in_request: bool) -> Option<Box<str>> {
    let bytes = text.as_bytes();
    let object = if in_request {
        crate::written::member(bytes, 0..bytes.len(), "request")?
    } else {
        0..bytes.len()
    };
    let span = crate::written::member(bytes, object, "body")?;
    Some(text[span].into())
}

/// A body's text as sent, when the record holds the body as a string (JSON in a string).
pub(crate) fn body_text(body: &Value) -> Option<Box<str>> {
    body.as_str().map(Into::into)
}

/// A request body: an object, or a string holding one. A cctrace compaction stub is marked.
pub(crate) fn request_body(body: Value) -> Result<RecordBody, String> {
    let body = match body {
        Value::String(text) => super::budget::parse_str(&text).map_err(|e| {
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
    // `contents` is Gemini's conversation, `toolConfig` Bedrock Converse's tools.
    if !(object.contains_key("messages")
        || object.contains_key("input")
        || object.contains_key("tools")
        || object.contains_key("contents")
        || object.contains_key("toolConfig")
        || mcp_result)
    {
        return Err(
            "the body is not a request (no `messages`, `input`, `contents` or `tools`)".to_owned(),
        );
    }
    Ok(RecordBody::Request(body))
}

/// Usage from a response object: `body` (an object, or text holding JSON or SSE), else the raw
/// text under `body_raw` / `bodyRaw`, else a stream kept as its `chunks` (Mastra's recorder).
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
        .or_else(|| usage::from_text(&stream_chunks(response)?))
}

/// A streamed answer a recorder kept as the text of each chunk it read (`chunks`: Mastra's
/// LLM recorder writes the event stream's pieces as they came), joined.
fn stream_chunks(response: &Map<String, Value>) -> Option<String> {
    let chunks = response.get("chunks")?.as_array()?;
    chunks
        .iter()
        .map(Value::as_str)
        .collect::<Option<String>>()
        .filter(|text| !text.is_empty())
}

/// What a claude-trace response said of the prefix check ([`usage::PrefixAnswer`]).
fn response_prefix_answer(response: &Map<String, Value>) -> Option<usage::PrefixAnswer> {
    let from = |value: &Value| match value {
        Value::String(text) => usage::prefix_answer_text(text),
        Value::Object(_) => usage::prefix_answer(value),
        _ => None,
    };
    ["body", "body_raw", "bodyRaw"]
        .iter()
        .find_map(|key| response.get(*key).and_then(from))
        .or_else(|| usage::prefix_answer_text(&stream_chunks(response)?))
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

/// The `anthropic-beta` values a request was sent with, when its record keeps the request's
/// own Anthropic headers (`anthropic-version` or `anthropic-beta`): every value of every such
/// header, split at commas. `None` when the record holds no such header (a recorder that kept
/// none, or filtered them): nothing can be said of the betas then. Nothing else of the
/// headers is read; a value that is no beta name (letters, digits, `-`, `.`, `_`) is dropped.
pub(crate) fn sent_betas(headers: &Value) -> Option<Vec<String>> {
    const MAX_BETAS: usize = 64;
    let pairs: Vec<(&str, &Value)> = match headers {
        Value::Object(map) => map.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| Some((item.get("name")?.as_str()?, item.get("value")?)))
            .collect(),
        _ => Vec::new(),
    };
    let kept = pairs.iter().any(|(key, _)| {
        key.eq_ignore_ascii_case("anthropic-version") || key.eq_ignore_ascii_case("anthropic-beta")
    });
    let mut values: Vec<&str> = Vec::new();
    for (_, value) in pairs
        .iter()
        .filter(|(key, _)| key.eq_ignore_ascii_case("anthropic-beta"))
    {
        match value {
            Value::String(s) => values.push(s),
            Value::Array(items) => values.extend(items.iter().filter_map(Value::as_str)),
            _ => {}
        }
    }
    kept.then(|| {
        values
            .iter()
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .filter(|b| {
                !b.is_empty()
                    && b.len() <= 100
                    && b.bytes()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_'))
            })
            .take(MAX_BETAS)
            .map(str::to_owned)
            .collect()
    })
}

/// Why a request is not a model call, or `None` when it is: a `POST` whose path (query and
/// fragment stripped) ends in `/v1/messages`, `/chat/completions` or `/responses`; a Gemini
/// `:generateContent` / `:streamGenerateContent` (AI Studio and Vertex); a Bedrock
/// `/model/{id}/invoke`, `invoke-with-response-stream`, `converse` or `converse-stream`; or
/// Claude on Vertex (`:rawPredict`, `:streamRawPredict`).
pub(crate) fn not_a_model_call(method: Option<&str>, url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let path = path.trim_end_matches('/');
    if let Some(method) = method
        && !method.eq_ignore_ascii_case("POST")
    {
        return Some(method.to_ascii_uppercase());
    }
    // A message added to an OpenAI Assistants thread (`/threads/{id}/messages`) is stored,
    // not sent to a model: the run that reads it is the model's work, not a request body.
    if path.ends_with("/messages") && path.contains("/threads/") {
        return Some("an Assistants thread message (stored, not a model call)".to_owned());
    }
    // Any other path that ends in `messages` is a Messages call: `/v1/messages`, a gateway's
    // `/anthropic/v1/messages` or `/anthropic/messages`.
    if path.ends_with("/messages")
        || path.ends_with("/chat/completions")
        || path.ends_with("/responses")
    {
        return None;
    }
    let last = path.rsplit('/').next().unwrap_or(path);
    // Gemini and Vertex name the method after a colon: `models/gemini-2.5-flash:generateContent`.
    if let Some((_, verb)) = last.rsplit_once(':') {
        return match verb {
            "generateContent" | "streamGenerateContent" | "rawPredict" | "streamRawPredict" => None,
            "countTokens" => Some("count_tokens call".to_owned()),
            "embedContent" | "batchEmbedContents" => Some("embeddings".to_owned()),
            _ => Some("not a model call".to_owned()),
        };
    }
    if let Some(model) = bedrock_model(path) {
        let model = model.to_ascii_lowercase();
        return match last {
            _ if model.contains("embed") => Some("embeddings".to_owned()),
            "invoke" | "invoke-with-response-stream" | "converse" | "converse-stream" => None,
            "count-tokens" => Some("count_tokens call".to_owned()),
            _ => Some("not a model call".to_owned()),
        };
    }
    // OpenAI's `/v1/responses/input_tokens` counts a Responses body (`model`, `input`) as
    // Anthropic's `count_tokens` counts a Messages one.
    let reason = if path.ends_with("/count_tokens") || path.ends_with("/responses/input_tokens") {
        "count_tokens call"
    } else if path.contains("/embeddings") {
        "embeddings"
    } else if path.contains("/images") {
        "images"
    } else if path.contains("/audio/") {
        // Speech, transcriptions, translations: a speech body's `model` and `input` would
        // pass for a Responses request.
        "audio"
    } else if path.ends_with("/moderations") {
        "moderations"
    } else {
        "not a model call"
    };
    Some(reason.to_owned())
}

/// The model id of a Bedrock runtime path, `/model/{id}/{operation}`.
fn bedrock_model(path: &str) -> Option<&str> {
    let mut segments = path.rsplit('/');
    let _operation = segments.next()?;
    let model = segments.next()?;
    (segments.next()? == "model").then_some(model)
}

/// What a recorded HTTP call is, for a trace.
#[derive(Debug)]
pub(crate) enum Call {
    /// A model call: its request body is the turn.
    Model,
    /// Not a model call: why.
    Ignored(String),
    /// An MCP `tools/list` call: the answer (the JSON-RPC response) is the turn's body.
    McpList(Value),
    /// An MCP `initialize` call answered with its server's `serverInfo`.
    McpHello(ServerInfo),
}

impl Call {
    /// The record of a call that is no turn, or the call back when it is one.
    pub(crate) fn not_a_turn(
        self,
        source: &str,
        method: Option<&String>,
        url: Option<&String>,
    ) -> Result<Call, Outcome> {
        let ignored = |reason: String| Ignored {
            source: source.to_owned(),
            method: method.cloned(),
            url: url.cloned(),
            reason,
        };
        match self {
            Call::Ignored(reason) => Err(Outcome::Ignored(ignored(reason))),
            Call::McpHello(info) => Err(Outcome::ServerHello(
                ignored("MCP initialize".to_owned()),
                Box::new(info),
            )),
            call => Ok(call),
        }
    }
}

/// Tell what a call is: a JSON-RPC request body is MCP (`tools/list` is read from its answer,
/// other methods are ignored); else the URL decides, where there is one; without either, a
/// model call. `response` is the response body as recorded (text, or JSON already parsed).
pub(crate) fn classify(
    method: Option<&str>,
    url: Option<&str>,
    request: Option<&Value>,
    response: Option<&Value>,
) -> Call {
    if let Some(rpc) = request.and_then(mcp_method) {
        if rpc == "initialize"
            && let Some(info) = response.and_then(|r| rpc_answer(r, ServerInfo::of))
        {
            return Call::McpHello(info);
        }
        if rpc != "tools/list" {
            return Call::Ignored(format!("MCP {rpc}"));
        }
        return match response.and_then(mcp_answer) {
            Some(answer) => Call::McpList(answer),
            None => Call::Ignored("MCP tools/list without a tools/list answer".to_owned()),
        };
    }
    match url.and_then(|url| not_a_model_call(method, url)) {
        // A path toolprism does not know, with a body shaped like a model request (a model and
        // its messages, input or contents): the body decides.
        Some(reason) if reason == "not a model call" && request.is_some_and(model_shaped) => {
            Call::Model
        }
        Some(reason) => Call::Ignored(reason),
        None => Call::Model,
    }
}

/// A body shaped like a model request: a `model` and its `messages`, `input` or `contents`.
fn model_shaped(body: &Value) -> bool {
    let parsed;
    let body = match body {
        Value::String(text) if text.len() < 64 << 20 && text.trim_start().starts_with('{') => {
            match serde_json::from_str::<Value>(text) {
                Ok(value) => {
                    parsed = value;
                    &parsed
                }
                Err(_) => return false,
            }
        }
        other => other,
    };
    body.get("model").is_some_and(Value::is_string)
        && ["messages", "input", "contents"]
            .iter()
            .any(|k| body.get(*k).is_some_and(|v| v.is_array() || v.is_string()))
}

/// The method of a JSON-RPC request (`{"jsonrpc": "2.0", "method": ...}`), the body as an
/// object or as text holding one.
fn mcp_method(body: &Value) -> Option<String> {
    let parsed;
    let body = match body {
        Value::String(text) if text.trim_start().starts_with('{') && text.contains("jsonrpc") => {
            parsed = serde_json::from_str::<Value>(text).ok()?;
            &parsed
        }
        other => other,
    };
    body.get("jsonrpc")?;
    body.get("method")?.as_str().map(str::to_owned)
}

/// An MCP `tools/list` answer in any framing it is recorded in: a JSON-RPC response (or a bare
/// result) as JSON or as text, or Streamable HTTP's event stream (`event: message` /
/// `data: {...}`), the first event whose payload holds `result.tools`.
pub(crate) fn mcp_answer(response: &Value) -> Option<Value> {
    let has_tools = |v: &Value| {
        v.get("result").is_some_and(|r| r.get("tools").is_some())
            || (v.get("tools").is_some() && v.get("jsonrpc").is_none())
    };
    rpc_answer(response, |v| has_tools(v).then(|| v.clone()))
}

/// What `read` finds in a JSON-RPC answer in any framing [`mcp_answer`] reads: the first
/// payload it finds something in.
fn rpc_answer<T>(response: &Value, read: impl Fn(&Value) -> Option<T>) -> Option<T> {
    match response {
        Value::String(text) if super::sse::looks_like_stream(text) => super::sse::data(text)
            .filter_map(|payload| serde_json::from_str::<Value>(&payload).ok())
            .find_map(|v| read(&v)),
        Value::String(text) => serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| read(&v)),
        other => read(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gateways_and_unknown_paths_by_body() {
        let post = Some("POST");
        assert_eq!(
            not_a_model_call(post, "https://gw.example.com/anthropic/messages"),
            None
        );
        assert_eq!(
            not_a_model_call(post, "https://api.deepseek.com/anthropic/v1/messages"),
            None
        );
        let body = serde_json::json!({"model": "m", "messages": []});
        let url = Some("https://gw.example.com/api/generate");
        assert!(matches!(
            classify(post, url, Some(&body), None),
            Call::Model
        ));
        let other = serde_json::json!({"query": "x"});
        assert!(matches!(
            classify(post, url, Some(&other), None),
            Call::Ignored(_)
        ));
        let count = Some("https://api.anthropic.com/v1/messages/count_tokens");
        assert!(matches!(
            classify(post, count, Some(&body), None),
            Call::Ignored(_)
        ));
    }

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
        assert_eq!(
            reason(post, "https://api.openai.com/v1/responses/input_tokens"),
            "count_tokens call"
        );
        // Bodies of `model` and `input` that are no Responses request.
        assert_eq!(
            reason(
                post,
                "https://r.openai.azure.com/openai/deployments/tts/audio/speech?api-version=1"
            ),
            "audio"
        );
        assert_eq!(
            reason(post, "https://api.openai.com/v1/moderations"),
            "moderations"
        );
        // A message added to an Assistants thread (openai-dotnet's recordings) is stored only.
        assert_eq!(
            reason(post, "https://api.openai.com/v1/threads/thread_1/messages"),
            "an Assistants thread message (stored, not a model call)"
        );
    }

    #[test]
    fn other_providers_by_url() {
        let post = Some("POST");
        for url in [
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
            "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent",
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict",
            "https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse",
            "https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1:0/converse-stream",
            "https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-v2/invoke",
            "https://bedrock-runtime.us-west-2.amazonaws.com/model/meta.llama3-70b/invoke-with-response-stream",
        ] {
            assert_eq!(not_a_model_call(post, url), None, "{url}");
        }
        let reason = |u| not_a_model_call(post, u).unwrap();
        assert_eq!(
            reason(
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens"
            ),
            "count_tokens call"
        );
        assert_eq!(
            reason(
                "https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:batchEmbedContents"
            ),
            "embeddings"
        );
        assert_eq!(
            reason(
                "https://bedrock-runtime.us-east-1.amazonaws.com/model/cohere.embed-english-v3/invoke"
            ),
            "embeddings"
        );
        assert_eq!(
            reason(
                "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1:0/count-tokens"
            ),
            "count_tokens call"
        );
        assert_eq!(
            reason("https://bedrock.us-east-1.amazonaws.com/foundation-models"),
            "not a model call"
        );
        assert_eq!(reason("http://localhost:8080"), "not a model call");
    }

    #[test]
    fn mcp_calls_by_body() {
        let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
        let sse = Value::String(format!("event: message\r\ndata: {list}\r\n\r\n"));
        let request = Value::String(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into());
        match classify(
            Some("POST"),
            Some("https://h/mcp"),
            Some(&request),
            Some(&sse),
        ) {
            Call::McpList(answer) => assert_eq!(answer, list),
            other => panic!("{other:?}"),
        }
        let call = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call"});
        assert!(matches!(
            classify(Some("POST"), None, Some(&call), None),
            Call::Ignored(reason) if reason == "MCP tools/call"
        ));
        // tools/list whose answer is an error: listed, not a turn.
        let error = serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1}});
        assert!(matches!(
            classify(Some("POST"), None, Some(&request), Some(&error)),
            Call::Ignored(_)
        ));
        // Not JSON-RPC: the URL decides.
        let body = serde_json::json!({"messages": []});
        assert!(matches!(
            classify(
                Some("POST"),
                Some("https://api.anthropic.com/v1/messages"),
                Some(&body),
                None
            ),
            Call::Model
        ));
    }

    #[test]
    fn betas_only_where_the_anthropic_headers_were_kept() {
        let object = json!({"Anthropic-Version": "2023-06-01",
            "anthropic-beta": ["a-1, b-2", "c-3"], "x-api-key": "sk-secret"});
        assert_eq!(
            sent_betas(&object),
            Some(vec!["a-1".to_owned(), "b-2".to_owned(), "c-3".to_owned()])
        );
        let har = json!([{"name": "anthropic-version", "value": "2023-06-01"}]);
        assert_eq!(sent_betas(&har), Some(Vec::new()));
        // Filtered headers, or none: unknown, not "no beta".
        assert_eq!(
            sent_betas(&json!({"content-type": "application/json"})),
            None
        );
        assert_eq!(sent_betas(&Value::Null), None);
        // A value that is no beta name is never carried on.
        let odd = json!({"anthropic-beta": "ok-1,Bearer sk x,\u{1b}[2J"});
        assert_eq!(sent_betas(&odd), Some(vec!["ok-1".to_owned()]));
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
