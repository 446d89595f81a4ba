//! VCR cassettes: the HTTP interactions a test recorder replays, read as a trace.
//!
//! Two recorders are read, in YAML or in JSON (vcrpy's `json` serializer):
//! - vcrpy (Python; pytest-recording, pydantic-ai, LangChain, LiteLLM): `interactions[].request`
//!   `{method, uri, body, headers}`, `response.{status.code, body.string, headers}`; pydantic-ai
//!   rewrites JSON bodies as `parsed_body` (a YAML mapping) on both sides. A persister that
//!   writes vcrpy's cassette as it holds it in memory (LangChain's) has two parallel lists,
//!   `requests[]` and `responses[]`, instead of `interactions`.
//! - go-vcr (Go), cassette version 1 and 2: `request.{method, url, body, headers}`,
//!   `response.{code, status, body, headers}`.
//! - Ruby's VCR (ruby_llm, langchainrb, R's vcr alike): `http_interactions[]`, `request.{method
//!   (lowercase), uri, body: {encoding, string}, headers}`, `response.{status: {code, message},
//!   body: {encoding, string}}`, bytes under Psych's `!binary` tag (base64), `recorded_with`.
//! - php-vcr (PHP): the document is the list of interactions, `request.{method, url, headers,
//!   body}`, `response.{status: {http_version, code, message}, headers, body}`.
//!
//! A body may be written as `!!binary` (base64 of the bytes sent, often gzip): it is decoded,
//! decompressed when its magic says gzip or zstd, and kept as text when the bytes are UTF-8
//! ([`body_value`]).
//! A turn's time is its response's `Date` header (to the second) where the cassette kept it;
//! the file's order is the turn order.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::record::{self, Outcome};
use super::{Ignored, Raw, TraceRecord, detect, usage};
use crate::error::{LoadError, json_kind};

/// The key a body that is binary data (not UTF-8 text once decoded) is replaced with, holding
/// its size in bytes. A NUL starts it, so no recorded mapping key can be mistaken for it.
const BINARY_KEY: &str = "\u{0}binary bytes";

/// The key of an interaction whose request body the recorder did not keep (a WireMock stub
/// matched by a pattern), holding why: such a call is listed as ignored, with that reason. A
/// NUL starts it, as [`BINARY_KEY`].
pub(crate) const UNRECORDED_KEY: &str = "\u{0}unrecorded";

/// Whether a document is a cassette: `interactions` is a list whose first item has a `request`,
/// or `requests` is a list of requests (a `method` and a `uri`) beside a `responses` list.
pub(crate) fn is_cassette(document: &Value) -> bool {
    match interactions_of(document) {
        Some(Value::Array(items)) => items
            .first()
            .is_none_or(|item| item.get("request").is_some()),
        _ => is_parallel_lists(document),
    }
}

/// php-vcr's cassette: the interactions themselves, a YAML list of `{request, response}` whose
/// first request names its `url` and `method`. (Only YAML: a JSON array of such records is
/// read as records, [`super::array`], which keeps claude-trace's and ExVCR's own fields.)
pub(crate) fn is_interaction_list(document: &Value) -> bool {
    let Value::Array(items) = document else {
        return false;
    };
    items.first().is_some_and(|item| {
        let request = item.get("request");
        item.get("response").is_some()
            && request
                .and_then(|r| r.get("url"))
                .is_some_and(Value::is_string)
            && request
                .and_then(|r| r.get("method"))
                .is_some_and(Value::is_string)
    })
}

/// The interactions list: vcrpy's and go-vcr's `interactions`, Ruby VCR's `http_interactions`.
fn interactions_of(document: &Value) -> Option<&Value> {
    document
        .get("interactions")
        .or_else(|| document.get("http_interactions"))
}

/// vcrpy's in-memory cassette, `requests[]` beside `responses[]`.
fn is_parallel_lists(document: &Value) -> bool {
    let (Some(Value::Array(requests)), Some(Value::Array(_))) =
        (document.get("requests"), document.get("responses"))
    else {
        return false;
    };
    requests
        .first()
        .is_none_or(|r| r.get("method").is_some() && r.get("uri").is_some())
}

/// Whether a text's first line starts a YAML document (read as a cassette, or refused as YAML):
/// `interactions:`
/// (vcrpy writes its keys in order), `requests:` (its in-memory form), `version:` or a `---` /
/// `%YAML` header (go-vcr), or any other plain key opening a block (read as YAML, so that a
/// YAML document that is no cassette is named as such, not as broken JSON).
pub(crate) fn looks_like_yaml(first_line: &[u8]) -> bool {
    let line = first_line.trim_ascii();
    let starts = [
        b"interactions:".as_slice(),
        b"requests:",
        b"version:",
        b"---",
        b"%YAML",
    ];
    starts.iter().any(|start| line.starts_with(start))
        // A block sequence: php-vcr writes `-` alone, then the interaction's keys indented.
        || line == b"-"
        || line.starts_with(b"- request:")
        // A tagged document: Betamax's and OkReplay's Java tapes open with `!tape`.
        || line.starts_with(b"!")
        || line.strip_suffix(b":").is_some_and(|key| {
            key.first().is_some_and(u8::is_ascii_alphabetic)
                && key.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        })
}

/// Parse a YAML text into a JSON value (tags dropped, values kept). Errors say where, in YAML's
/// terms.
pub(crate) fn from_yaml(text: &[u8]) -> Result<Value, LoadError> {
    let events = scan(text)?;
    // The parser holds every event of the document at once before a value is built: they are
    // charged to the same budget as the values, up front.
    super::budget::parse_yaml(text, events.saturating_mul(EVENT_COST)).map_err(|e| {
        let text = e.to_string();
        if let Some(at) = text.find(crate::error::BUDGET_ERROR) {
            return LoadError::Refused(budget_reason(&text[at..]).to_owned());
        }
        let location = e.location();
        let at = location
            .as_ref()
            .map(|l| format!("line {}, column {}", l.line(), l.column()));
        // serde_norway writes the position into its message (at the end, or before the
        // context it was parsing); it is given once, apart, here.
        let mut message = e.to_string();
        if let Some(l) = &location {
            message = message.replacen(
                &format!(" at line {} column {}", l.line(), l.column()),
                "",
                1,
            );
        }
        LoadError::Refused(match at {
            Some(at) => format!("invalid YAML at {at}: {message}"),
            None => format!("invalid YAML: {message}"),
        })
    })
}

/// The budget's reason without serde_norway's position (the budget is about the whole file).
fn budget_reason(message: &str) -> &str {
    message.split(" at line ").next().unwrap_or(message)
}

/// Flow collections (`[`, `{`) nested deeper than this are refused before parsing.
pub(crate) const MAX_FLOW_DEPTH: usize = 128;

/// Memory the YAML parser keeps per event of the document (its event and position, and the
/// slack of the list it grows), measured: 6 million events of `[{},{},…]` peaked at 1.04 GB.
pub(crate) const EVENT_COST: u64 = 176;

/// One pass over a YAML text before it is parsed, quoted scalars and comments skipped:
/// - flow collections (`[`, `{`) nested past [`MAX_FLOW_DEPTH`] are refused as soon as the
///   depth is reached: the parser's scanner works in the square of the depth (50,000 `[`
///   took 11 s) and its own limit is only met after all of that. A bracket inside a plain
///   scalar counts too, which can only refuse text with more than 128 unclosed brackets;
/// - returns how many events the parser may make of it, at most: each begins at a bracket, a
///   comma, a colon, a dash, an alias or anchor mark or a line break outside quotes.
fn scan(text: &[u8]) -> Result<u64, LoadError> {
    let mut events = 4u64;
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let mut quote: Option<u8> = None;
    let mut comment = false;
    let mut previous = b'\n';
    let mut escaped = false;
    for &byte in text {
        column += 1;
        if byte == b'\n' {
            (line, column, comment) = (line + 1, 0, false);
            events += 1;
            previous = byte;
            continue;
        }
        match quote {
            Some(b'"') if escaped => escaped = false,
            Some(b'"') if byte == b'\\' => escaped = true,
            Some(q) if byte == q => quote = None,
            Some(_) => {}
            None if comment => {}
            None => {
                let at_token = matches!(previous, b' ' | b'\t' | b'\n' | b'[' | b'{' | b',' | b':');
                if matches!(
                    byte,
                    b'[' | b'{' | b',' | b':' | b'-' | b'*' | b'&' | b']' | b'}'
                ) {
                    events += 1;
                }
                match byte {
                    b'#' if at_token => comment = true,
                    b'\'' | b'"' if at_token => quote = Some(byte),
                    b'[' | b'{' => {
                        depth += 1;
                        if depth > MAX_FLOW_DEPTH {
                            return Err(LoadError::Refused(format!(
                                "YAML nested too deeply at line {line}, column {column} (the \
                                 limit is {MAX_FLOW_DEPTH} levels)"
                            )));
                        }
                    }
                    b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        previous = byte;
    }
    Ok(events)
}

/// A body as the cassette holds it. The YAML parser resolves `!!binary` to its base64 text, so
/// text that is base64 and nothing else (what a `!!binary` block is; JSON and event streams
/// never are) is decoded, decompressed when gzip or zstd, and kept as text when UTF-8; bytes that
/// are not text become a mark holding their size.
fn body_value(value: Value) -> Value {
    let (text, tagged) = match value {
        Value::String(text) => (text, false),
        Value::Object(mut mark)
            if mark.len() == 1 && mark.contains_key(super::budget::BASE64_KEY) =>
        {
            match mark.remove(super::budget::BASE64_KEY) {
                Some(Value::String(text)) => (text, true),
                Some(other) => return other,
                None => return Value::Null,
            }
        }
        other => return other,
    };
    if !tagged && !looks_base64(&text) {
        return Value::String(text);
    }
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(compact) else {
        return Value::String(text);
    };
    bytes_value(bytes)
}

/// A body's bytes as the cassette readers keep them: decompressed when gzip or zstd, text when
/// UTF-8, an AWS event stream's payloads, or else a mark holding their size.
pub(crate) fn bytes_value(bytes: Vec<u8>) -> Value {
    let bytes = match detect::compression_of(&bytes) {
        Some(compression) => detect::decompress(compression, &bytes).unwrap_or(bytes),
        None => bytes,
    };
    match String::from_utf8(bytes) {
        Ok(decoded) => Value::String(decoded),
        Err(e) => {
            let bytes = e.into_bytes();
            if let Some(payloads) = aws_event_payloads(&bytes) {
                return Value::Array(payloads);
            }
            let mut mark = Map::new();
            mark.insert(BINARY_KEY.into(), Value::from(bytes.len()));
            Value::Object(mark)
        }
    }
}

/// An AWS event stream (`application/vnd.amazon.eventstream`, Bedrock's `converse-stream`
/// and `invoke-with-response-stream`): each message a 12-byte prelude (total length, headers'
/// length, CRC), headers, a payload and a CRC. Its JSON payloads in order (the last with
/// `usage` holds the call's), or `None` when the bytes are not such a stream.
/// `invoke-with-response-stream` wraps each of the model's own events as `{"bytes": base64}`:
/// the event inside is the payload (Claude's `message_start` … `message_delta`).
pub(crate) fn aws_event_payloads(bytes: &[u8]) -> Option<Vec<Value>> {
    let word = |at: usize| -> Option<usize> {
        let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        Some(u32::from_be_bytes(b) as usize)
    };
    let (mut at, mut payloads, mut messages) = (0, Vec::new(), 0usize);
    while at < bytes.len() {
        let (total, headers) = (word(at)?, word(at + 4)?);
        // Prelude, headers and the two CRCs fit in the message, the message in the bytes.
        if total < 16 || headers > total - 16 || at + total > bytes.len() {
            return None;
        }
        let payload = &bytes[at + 12 + headers..at + total - 4];
        if let Ok(value) = serde_json::from_slice::<Value>(payload) {
            payloads.push(unwrapped(value));
        }
        messages += 1;
        at += total;
    }
    (messages > 0).then_some(payloads)
}

/// The model's event inside an `invoke-with-response-stream` chunk (`{"bytes": base64}`), or
/// the payload as it is.
fn unwrapped(payload: Value) -> Value {
    let inner = payload
        .get("bytes")
        .and_then(Value::as_str)
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    inner.unwrap_or(payload)
}

/// Base64 as YAML writes a `!!binary` block: the alphabet in lines, `=` padding at the end
/// only, a length that is a multiple of four, and no other character (no space, brace, quote).
fn looks_base64(text: &str) -> bool {
    let compact: Vec<u8> = text
        .bytes()
        .filter(|b| !matches!(b, b'\n' | b'\r'))
        .collect();
    let body = compact
        .strip_suffix(b"==")
        .or_else(|| compact.strip_suffix(b"="))
        .unwrap_or(&compact);
    compact.len() >= 8
        && compact.len().is_multiple_of(4)
        && body
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
        // Plain words of the alphabet (`Accepted`, `OK200000`) are text: base64 of bytes mixes
        // cases and digits, and a `!!binary` block of more than one line has line breaks.
        && (text.contains('\n')
            || (body.iter().any(u8::is_ascii_digit)
                && body.iter().any(u8::is_ascii_uppercase)
                && body.iter().any(u8::is_ascii_lowercase)))
}

/// A cassette's interactions, in file order.
pub(crate) struct CassetteSource {
    interactions: Vec<Value>,
    next: usize,
    /// What one is called where it is named (`interaction 3`; httprr's `record 3`).
    noun: &'static str,
}

impl CassetteSource {
    /// Take the interactions out of a cassette document.
    pub(crate) fn new(mut document: Value) -> CassetteSource {
        if let Value::Array(interactions) = document {
            return CassetteSource {
                interactions,
                next: 0,
                noun: "interaction",
            };
        }
        let key = if document.get("interactions").is_some() {
            "interactions"
        } else {
            "http_interactions"
        };
        let interactions = match document.get_mut(key).map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => paired(&mut document),
        };
        CassetteSource {
            interactions,
            next: 0,
            noun: "interaction",
        }
    }

    /// [`CassetteSource::new`], each interaction named `NOUN N`.
    pub(crate) fn named(document: Value, noun: &'static str) -> CassetteSource {
        CassetteSource {
            noun,
            ..CassetteSource::new(document)
        }
    }

    /// The next interaction as a trace item, named `interaction N` (1-based, file order).
    pub(crate) fn next_raw(&mut self) -> Option<Raw> {
        let interaction = self.interactions.get_mut(self.next)?.take();
        self.next += 1;
        let source = format!("{} {}", self.noun, self.next);
        Some(Raw::Read(
            source.clone(),
            interaction_outcome(interaction, source),
        ))
    }
}

/// The interactions of a cassette kept as two parallel lists: the Nth response answers the
/// Nth request (one missing is a request without its answer).
fn paired(document: &mut Value) -> Vec<Value> {
    let mut take = |key: &str| match document.get_mut(key).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let requests = take("requests");
    let mut responses = take("responses").into_iter();
    requests
        .into_iter()
        .map(|request| {
            let mut interaction = Map::new();
            interaction.insert("request".into(), request);
            if let Some(response) = responses.next() {
                interaction.insert("response".into(), response);
            }
            Value::Object(interaction)
        })
        .collect()
}

/// One interaction (a cassette's, or another recorder's turned into one) as a trace item.
pub(crate) fn interaction_outcome(
    mut interaction: Value,
    source: String,
) -> Result<Outcome, String> {
    match unrecorded(&mut interaction, &source) {
        Some(ignored) => Ok(Outcome::Ignored(ignored)),
        None => outcome(interaction, source),
    }
}

/// An interaction marked as holding no request body ([`UNRECORDED_KEY`]), listed as ignored.
fn unrecorded(interaction: &mut Value, source: &str) -> Option<Ignored> {
    let Value::String(reason) = interaction.as_object_mut()?.remove(UNRECORDED_KEY)? else {
        return None;
    };
    let text = |key: &str| {
        let value = interaction.get("request")?.get(key)?;
        value.as_str().map(str::to_owned)
    };
    Some(Ignored {
        source: source.to_owned(),
        method: text("method"),
        url: text("uri").or_else(|| text("url")),
        reason,
    })
}

fn outcome(interaction: Value, source: String) -> Result<Outcome, String> {
    let Value::Object(mut interaction) = interaction else {
        return Err(format!(
            "the interaction is {}, not a mapping",
            json_kind(&interaction)
        ));
    };
    let Some(Value::Object(mut request)) = interaction.remove("request") else {
        return Err("no `request` mapping".to_owned());
    };
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let method = text(request.get("method"));
    let url = text(request.get("uri").or_else(|| request.get("url")));
    let headers = request.get("headers").cloned().unwrap_or(Value::Null);
    let agent_id = record::header(&headers, "x-claude-code-agent-id");
    let betas = record::sent_betas(&headers);
    // pydantic-ai keeps the JSON it parsed under `parsed_body` and drops `body`.
    let body = match request.remove("parsed_body") {
        Some(parsed) if !parsed.is_null() => Some(parsed),
        _ => request.remove("body"),
    };
    let body = body.map(|b| match b {
        // Some recorders write the request body like a response's: `{string: ...}`, Ruby's VCR
        // with its `encoding` beside it, Betamax's `base64_string` for bytes.
        Value::Object(o) if is_string_body(&o) => string_body(&o).unwrap_or_default(),
        other => body_value(other),
    });
    let response = match interaction.remove("response") {
        Some(Value::Object(response)) => Some(response),
        _ => None,
    };
    let response_body = response.as_ref().and_then(response_body);
    let classified = record::classify(
        method.as_deref(),
        url.as_deref(),
        body.as_ref(),
        response_body.as_ref(),
    );
    let mcp = matches!(classified, record::Call::McpList(_));
    let body = match classified.not_a_turn(&source, method.as_ref(), url.as_ref()) {
        Err(outcome) => return Ok(outcome),
        Ok(record::Call::McpList(list)) => list,
        Ok(_) => match body {
            None | Some(Value::Null) => return Err("no request body".to_owned()),
            Some(Value::String(s)) if s.trim().is_empty() => {
                return Err("the request body is empty".to_owned());
            }
            Some(Value::Object(o)) if o.contains_key(BINARY_KEY) => {
                let size = o.get(BINARY_KEY).and_then(Value::as_u64).unwrap_or(0);
                return Err(format!(
                    "the request body is binary data ({size} bytes), not JSON"
                ));
            }
            Some(body) => body,
        },
    };
    let body_text = record::body_text(&body);
    let body = record::request_body(body)?;
    let mut prefix_answer = None;
    let (status, orphan, usage) = match &response {
        Some(response) => {
            let status = response
                .get("status")
                .and_then(|s| {
                    s.get("code")
                        .and_then(record::status_code)
                        .or_else(|| status_text(s))
                })
                .or_else(|| response.get("code").and_then(record::status_code));
            let usage = match &response_body {
                Some(Value::String(text)) => usage::from_text(text),
                Some(other) => usage::from_json(other),
                None => None,
            };
            prefix_answer = match &response_body {
                Some(Value::String(text)) => usage::prefix_answer_text(text),
                Some(other) => usage::prefix_answer(other),
                None => None,
            };
            (status, false, usage)
        }
        None => (None, true, None),
    };
    // When the call was answered, to the second: the response's `Date` header.
    let timestamp = response
        .as_ref()
        .and_then(|r| r.get("headers"))
        .and_then(|h| record::header(h, "date"));
    let time_ms = timestamp.as_deref().and_then(super::time::parse_http_date);
    Ok(Outcome::turn(
        TraceRecord {
            source,
            timestamp: time_ms.and(timestamp),
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

/// A response's body: pydantic-ai's `parsed_body`, vcrpy's `body.string`, go-vcr's `body`.
fn response_body(response: &Map<String, Value>) -> Option<Value> {
    if let Some(parsed) = response.get("parsed_body").filter(|v| !v.is_null()) {
        return Some(parsed.clone());
    }
    match response.get("body")? {
        Value::Object(body) => string_body(body),
        Value::String(text) => Some(body_value(Value::String(text.clone()))),
        _ => None,
    }
}

/// A body written as `{string, encoding}` (Ruby's VCR, vcrpy) or `{base64_string, encoding}`
/// (Betamax, for bytes), and nothing else.
fn is_string_body(body: &Map<String, Value>) -> bool {
    (body.contains_key("string") || body.contains_key("base64_string"))
        && body
            .keys()
            .all(|k| matches!(k.as_str(), "string" | "base64_string" | "encoding"))
}

/// Such a body's value: its `string` as [`body_value`] reads it, else its `base64_string`'s
/// bytes as [`bytes_value`] keeps them.
fn string_body(body: &Map<String, Value>) -> Option<Value> {
    if let Some(text) = body
        .get("string")
        .filter(|t| t.as_str().is_none_or(|t| !t.is_empty()))
    {
        return Some(body_value(text.clone()));
    }
    let encoded = body.get("base64_string")?.as_str()?;
    let compact: String = encoded
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .ok()?;
    Some(bytes_value(bytes))
}

/// go-vcr's `status: 200 OK`, or a bare number as text.
fn status_text(status: &Value) -> Option<u16> {
    match status {
        Value::String(text) => text.split_whitespace().next()?.parse().ok(),
        Value::Number(_) => record::status_code(status),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One AWS event-stream message of `event_type` around `payload` (CRCs not checked, so
    /// left arbitrary).
    fn aws_frame(event_type: &str, payload: &str) -> Vec<u8> {
        let mut headers = vec![11];
        headers.extend_from_slice(b":event-type\x07");
        headers.extend_from_slice(&(event_type.len() as u16).to_be_bytes());
        headers.extend_from_slice(event_type.as_bytes());
        let total = 12 + headers.len() + payload.len() + 4;
        let mut out = Vec::new();
        out.extend_from_slice(&(total as u32).to_be_bytes());
        out.extend_from_slice(&(headers.len() as u32).to_be_bytes());
        out.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
        out.extend_from_slice(&headers);
        out.extend_from_slice(payload.as_bytes());
        out.extend_from_slice(&[0xff, 0xfe, 0x00, 0x01]);
        out
    }

    #[test]
    fn invoke_with_response_stream_chunks_are_claudes_events() {
        use base64::engine::general_purpose::STANDARD;
        // Each chunk wraps one of Claude's stream events as `{"bytes": base64}`.
        let chunk = |event: &str| {
            aws_frame(
                "chunk",
                &format!(r#"{{"bytes":"{}"}}"#, STANDARD.encode(event)),
            )
        };
        let mut stream = chunk(
            r#"{"type":"message_start","message":{"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":4100,"output_tokens":1}}}"#,
        );
        stream.extend(chunk(
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
        ));
        stream.extend(chunk(r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#));
        stream.extend(chunk(
            r#"{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":12,"outputTokenCount":9,"cacheReadInputTokenCount":4100,"cacheWriteInputTokenCount":0}}"#,
        ));
        let body = body_value(Value::String(STANDARD.encode(&stream) + "\n"));
        assert_eq!(body[0]["type"], "message_start");
        let usage = usage::from_json(&body).unwrap();
        assert_eq!(
            (usage.input, usage.cache_write, usage.cache_read),
            (12, 0, 4100)
        );
        assert!(!usage.cache_unknown);
    }

    #[test]
    fn an_aws_event_stream_is_read_as_its_payloads() {
        let frame = |payload: &str| aws_frame("metadata", payload);
        let mut stream = frame(r#"{"role":"assistant"}"#);
        stream.extend(frame(
            r#"{"usage":{"inputTokens":15,"outputTokens":3,"cacheReadInputTokens":900}}"#,
        ));
        let text = base64::engine::general_purpose::STANDARD.encode(&stream);
        let lines: Vec<&str> = text
            .as_bytes()
            .chunks(76)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        let body = body_value(Value::String(lines.join("\n")));
        let payloads = body.as_array().unwrap();
        assert_eq!(payloads.len(), 2);
        let usage = usage::from_json(&body).unwrap();
        assert_eq!((usage.input, usage.cache_read), (15, 900));
        // A message that claims more bytes than there are: not a stream.
        assert_eq!(aws_event_payloads(&stream[..stream.len() - 3]), None);
    }

    #[test]
    fn binary_bodies_are_told_from_text() {
        use base64::engine::general_purpose::STANDARD;
        let json = br#"{"messages":[],"tools":[]}"#;
        let block = format!("{}\n", STANDARD.encode(json));
        assert!(looks_base64(&block));
        assert_eq!(
            body_value(Value::String(block)),
            Value::String(String::from_utf8(json.to_vec()).unwrap())
        );
        // gzip inside, and bytes that are not text.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, json).unwrap();
        let gzipped = STANDARD.encode(gz.finish().unwrap()) + "\n";
        assert_eq!(
            body_value(Value::String(gzipped)),
            Value::String(String::from_utf8(json.to_vec()).unwrap())
        );
        let png = STANDARD.encode(b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01") + "\n";
        let mark = body_value(Value::String(png));
        assert_eq!(mark[BINARY_KEY], 12);
        // Text is text: JSON, an event stream, short words of the alphabet.
        for text in [
            "{\"a\":1}",
            "data: x\n\n",
            "Accepted",
            "true",
            "",
            "abcdEFGH",
        ] {
            assert_eq!(
                body_value(Value::String(text.into())),
                Value::String(text.into())
            );
        }
    }

    #[test]
    fn a_java_betamax_tape_is_yaml() {
        let tape = b"!tape\nname: chat\ninteractions:\n- recorded: 2026-11-30T10:00:00.000Z\n  request:\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions\n    body: '{\"model\":\"m\",\"messages\":[]}'\n  response:\n    status: 200\n    body: '{\"usage\":{\"prompt_tokens\":3}}'\n";
        let first = tape.split(|&b| b == b'\n').next().unwrap();
        assert!(looks_like_yaml(first));
        let value = from_yaml(tape).unwrap();
        assert!(is_cassette(&value));
        let mut source = CassetteSource::new(value);
        let Some(super::super::Raw::Read(_, Ok(Outcome::Turn(record)))) = source.next_raw() else {
            panic!("not a turn");
        };
        assert_eq!(record.status, Some(200));
        assert_eq!(record.usage.unwrap().input, 3);
    }

    #[test]
    fn betamax_writes_bytes_as_base64_string() {
        use base64::engine::general_purpose::STANDARD;
        let json = r#"{"usage":{"input_tokens":7}}"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, json.as_bytes()).unwrap();
        let body = serde_json::json!({"base64_string": STANDARD.encode(gz.finish().unwrap()),
            "encoding": "utf-8", "string": ""});
        let body = body.as_object().unwrap();
        assert!(is_string_body(body));
        assert_eq!(string_body(body), Some(Value::from(json)));
        // `{string}` alone is read as before; another key makes it no such body.
        let plain = serde_json::json!({"string": "{}", "encoding": "utf-8"});
        assert_eq!(
            string_body(plain.as_object().unwrap()),
            Some(Value::from("{}"))
        );
        let other = serde_json::json!({"string": "{}", "model": "m"});
        assert!(!is_string_body(other.as_object().unwrap()));
    }

    #[test]
    fn a_psych_binary_tag_is_decoded_whatever_its_text_looks_like() {
        // `{"a":1}` in base64 has no digit: untagged, it would be kept as the text it is.
        let value = from_yaml(b"tagged: !binary eyJhIjoxfQ==\nplain: eyJhIjoxfQ==\n").unwrap();
        assert_eq!(
            body_value(value["tagged"].clone()),
            Value::from("{\"a\":1}")
        );
        assert_eq!(
            body_value(value["plain"].clone()),
            Value::from("eyJhIjoxfQ==")
        );
    }

    #[test]
    fn yaml_errors_say_where() {
        let error = from_yaml(b"interactions:\n- request: {\n").unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("invalid YAML at line "), "{text}");
        assert_eq!(text.lines().count(), 1);
        // The position is said once, even when serde_norway puts it mid-message.
        let error = from_yaml(b"interactions:\n  - request: [1, 2\n").unwrap_err();
        let text = error.to_string();
        assert_eq!(text.matches("line 3").count(), 1, "{text}");
    }
}

#[cfg(test)]
mod bounds {
    use super::*;

    #[test]
    fn an_anchor_expanded_at_every_alias_is_charged_and_refused() {
        // 256 KB anchored once, used 1,000 times: a 300 KB file that parses to 256 MB.
        let body = "x".repeat(256 * 1024);
        let mut text = format!("interactions:\n- request: &r\n    body: '{body}'\n");
        for _ in 0..1000 {
            text.push_str("- request: *r\n");
        }
        let started = std::time::Instant::now();
        let error = from_yaml(text.as_bytes()).unwrap_err().to_string();
        assert!(error.starts_with("too many values for its size"), "{error}");
        assert!(started.elapsed() < std::time::Duration::from_secs(3));
        // The same anchor used a few times is an ordinary cassette.
        let mut text = format!("interactions:\n- request: &r\n    body: '{body}'\n");
        for _ in 0..3 {
            text.push_str("- request: *r\n");
        }
        let value = from_yaml(text.as_bytes()).unwrap();
        assert_eq!(value["interactions"].as_array().unwrap().len(), 4);
        assert_eq!(value["interactions"][3]["request"]["body"], body.as_str());
    }

    #[test]
    fn flow_nesting_is_refused_as_soon_as_the_depth_is_reached() {
        let deep = 200_000;
        let text = format!("interactions: {}{}\n", "[".repeat(deep), "]".repeat(deep));
        let started = std::time::Instant::now();
        let error = from_yaml(text.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "YAML nested too deeply at line 1, column {} (the limit is 128 levels)",
                "interactions: ".len() + MAX_FLOW_DEPTH + 1
            )
        );
        assert!(started.elapsed() < std::time::Duration::from_millis(500));
        // Brackets in quotes and comments are text; 128 levels are fine.
        let quoted = format!(
            "a: '{}'\nb: \"{}\" # {}\n",
            "[".repeat(500),
            "{".repeat(500),
            "[".repeat(500)
        );
        assert!(from_yaml(quoted.as_bytes()).is_ok());
        let fine = format!("a: {}{}\n", "[".repeat(100), "]".repeat(100));
        assert!(from_yaml(fine.as_bytes()).is_ok());
    }

    #[test]
    fn many_small_values_are_refused_before_the_parser_holds_them() {
        // 400,000 empty mappings in 1.2 MB: the parser's events alone would take ~140 MB,
        // past the budget of 64 MiB + 16 × 1.2 MB; refused from the scan, before parsing.
        let text = format!("a: [{}{{}}]\n", "{},".repeat(400_000));
        assert!(scan(text.as_bytes()).unwrap() >= 800_000);
        let started = std::time::Instant::now();
        let error = from_yaml(text.as_bytes()).unwrap_err().to_string();
        assert!(error.starts_with("too many values for its size"), "{error}");
        assert!(started.elapsed() < std::time::Duration::from_millis(500));
    }

    #[test]
    fn tags_and_keys_that_are_not_strings_are_kept() {
        let value = from_yaml(b"a: !Custom {b: 1}\n200: ok\nc: !!binary aGk=\n").unwrap();
        assert_eq!(value["a"]["b"], 1);
        assert_eq!(value["200"], "ok");
        assert_eq!(value["c"], "aGk=");
    }
}
