//! HAR 1.2 (`log.entries`): browser devtools, mitmproxy, Proxyman, Charles.
//!
//! A HAR file is one JSON document, so it is parsed once and whole; entries are then handed out
//! one at a time (each taken out of the document as it goes). Memory is therefore about the
//! parsed document, a few times the file's size: HAR writers keep every body, and there is no
//! way to find the order (`startedDateTime`) without reading every entry first.

use std::borrow::Cow;

use base64::Engine as _;
use serde_json::Value;

use super::bounded::MAX_RATIO;
use super::record::{self, Outcome};
use super::{Raw, TraceRecord, detect, time, usage};
use crate::error::json_kind;

/// Whether a document is a HAR log: `log.entries` is an array.
pub(crate) fn is_har(document: &Value) -> bool {
    matches!(document.pointer("/log/entries"), Some(Value::Array(_)))
}

/// A HAR log's entries, in `startedDateTime` order.
pub(crate) struct HarSource {
    entries: Vec<Value>,
    order: Vec<usize>,
    next: usize,
}

impl HarSource {
    /// Take the entries out of a HAR document. Entries are ordered by `startedDateTime` (stable
    /// for ties); when any entry's time cannot be read, the file's order is kept for all.
    pub(crate) fn new(mut document: Value) -> HarSource {
        let entries = match document.pointer_mut("/log/entries").map(Value::take) {
            Some(Value::Array(entries)) => entries,
            _ => Vec::new(),
        };
        let times: Option<Vec<i64>> = entries
            .iter()
            .map(|e| {
                e.get("startedDateTime")
                    .and_then(Value::as_str)
                    .and_then(time::parse)
            })
            .collect();
        let mut order: Vec<usize> = (0..entries.len()).collect();
        if let Some(times) = times {
            order.sort_by_key(|&i| times[i]);
        }
        HarSource {
            entries,
            order,
            next: 0,
        }
    }

    /// The next entry as a trace item; entries are named by their place in the file, 1-based.
    pub(crate) fn next_raw(&mut self) -> Option<Raw> {
        let index = *self.order.get(self.next)?;
        self.next += 1;
        let source = format!("entry {}", index + 1);
        let entry = self.entries[index].take();
        Some(Raw::Read(source.clone(), entry_outcome(entry, source)))
    }
}

fn entry_outcome(entry: Value, source: String) -> Result<Outcome, String> {
    let Value::Object(mut entry) = entry else {
        return Err(format!("the entry is {}, not an object", json_kind(&entry)));
    };
    let Some(Value::Object(request)) = entry.get_mut("request") else {
        return Err("no `request` object".to_owned());
    };
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let method = text(request.get("method"));
    let url = text(request.get("url"));
    let headers = request.get("headers").cloned().unwrap_or(Value::Null);
    let agent_id = record::header(&headers, "x-claude-code-agent-id");
    let betas = record::sent_betas(&headers);
    let content_encoding = record::header(&headers, "content-encoding");
    let post = request.get_mut("postData").map(Value::take);
    let (body, sent_text) = match request_json(post.as_ref(), content_encoding) {
        Ok((body, text)) => (Ok(body), Some(text)),
        Err(e) => (Err(e), None),
    };
    // Only an MCP call's answer is read here (a model call's is read for its usage below).
    let is_rpc = body.as_ref().is_ok_and(|b| b.get("jsonrpc").is_some());
    let response_text = entry
        .get("response")
        .and_then(Value::as_object)
        .filter(|_| is_rpc)
        .and_then(response_text)
        .map(Value::String);
    let call = record::classify(
        method.as_deref(),
        url.as_deref(),
        body.as_ref().ok(),
        response_text.as_ref(),
    );
    let mcp = matches!(call, record::Call::McpList(_));
    let body = match call.not_a_turn(&source, method.as_ref(), url.as_ref()) {
        Err(outcome) => return Ok(outcome),
        Ok(record::Call::McpList(answer)) => (answer, None),
        Ok(_) => (body?, sent_text),
    };
    let (body, body_text) = (record::request_body(body.0)?, body.1);
    let (timestamp, time_ms) = match entry.get("startedDateTime").and_then(time::from_value) {
        Some((text, ms)) => (Some(text), ms),
        None => (None, None),
    };
    // HAR writers put status 0 on a request that never got a response.
    let (status, orphan, (usage, prefix_answer)) = match entry.get("response") {
        Some(Value::Object(response)) => {
            match response.get("status").and_then(record::status_code) {
                Some(0) | None => (None, true, (None, None)),
                Some(status) => (Some(status), false, response_usage(response)),
            }
        }
        _ => (None, true, (None, None)),
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

/// The request body (`request.postData.text`, base64 when `encoding` says so, gzip or zstd by
/// its magic) parsed as JSON, with its text (the bytes sent), or what is wrong with it.
fn request_json(
    post: Option<&Value>,
    content_encoding: Option<String>,
) -> Result<(Value, Box<str>), String> {
    let Some(Value::String(body_text)) = post.and_then(|p| p.get("text")) else {
        return Err("no request body (`request.postData.text`)".to_owned());
    };
    let base64 = post
        .and_then(|p| p.get("encoding"))
        .and_then(Value::as_str)
        .is_some_and(|e| e.eq_ignore_ascii_case("base64"));
    let bytes = decode(body_text, base64).map_err(|problem| format!("request body: {problem}"))?;
    let value = super::budget::parse_slice(&bytes).map_err(|e| {
        let unsupported = content_encoding
            .map(|e| e.trim().to_ascii_lowercase())
            .filter(|e| !matches!(e.as_str(), "" | "identity" | "gzip" | "x-gzip" | "zstd"));
        match unsupported {
            Some(encoding) => {
                format!("request body is not JSON (content-encoding {encoding} is not supported)")
            }
            None => format!(
                "request body is not JSON ({})",
                crate::error::json_error(&e)
            ),
        }
    })?;
    // Parsed: valid UTF-8.
    Ok((value, super::text_of(&bytes).into()))
}

/// The text of `response.content.text` (base64 when `content.encoding` says so).
fn response_text(response: &serde_json::Map<String, Value>) -> Option<String> {
    let content = response.get("content")?;
    let text = content.get("text")?.as_str()?;
    let base64 = content
        .get("encoding")
        .and_then(Value::as_str)
        .is_some_and(|e| e.eq_ignore_ascii_case("base64"));
    let bytes = decode(text, base64).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Usage and the prefix-check answer from `response.content.text` (base64 when
/// `content.encoding` says so).
fn response_usage(
    response: &serde_json::Map<String, Value>,
) -> (Option<super::Usage>, Option<super::PrefixAnswer>) {
    response_read(response).unwrap_or((None, None))
}

fn response_read(
    response: &serde_json::Map<String, Value>,
) -> Option<(Option<super::Usage>, Option<super::PrefixAnswer>)> {
    let content = response.get("content")?;
    let text = content.get("text")?.as_str()?;
    let base64 = content
        .get("encoding")
        .and_then(Value::as_str)
        .is_some_and(|e| e.eq_ignore_ascii_case("base64"));
    let bytes: Cow<[u8]> = if base64 {
        Cow::Owned(decode_base64(text).ok()?)
    } else {
        Cow::Borrowed(text.as_bytes())
    };
    // Only the first bytes are looked at: a body is not inflated up to the record limit just
    // to find its `usage`.
    let bytes = match detect::compression_of(&bytes) {
        Some(compression) => {
            let cap = USAGE_SCAN_BYTES.min((bytes.len() as u64).saturating_mul(MAX_RATIO));
            Cow::Owned(detect::decompress_at_most(compression, &bytes, cap).ok()?.0)
        }
        None => bytes,
    };
    // Bedrock's binary event stream (`converse-stream`, `invoke-with-response-stream`).
    if std::str::from_utf8(&bytes).is_err()
        && let Some(payloads) = super::cassette::aws_event_payloads(&bytes)
    {
        return Some((usage::from_json(&Value::Array(payloads)), None));
    }
    let end = bytes.len().min(USAGE_SCAN_BYTES as usize);
    let text = String::from_utf8_lossy(&bytes[..end]);
    Some((usage::from_text(&text), usage::prefix_answer_text(&text)))
}

/// How much of a response body is read for its `usage` (Anthropic reports input usage in the
/// stream's first event, OpenAI in a JSON body's last few hundred bytes or the last event).
const USAGE_SCAN_BYTES: u64 = 4 << 20;

fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(|e| format!("not valid base64 ({e})"))
}

/// A stored body's bytes: base64-decoded when so marked, then decompressed when the bytes'
/// magic says gzip or zstd. The magic decides rather than the `content-encoding` header: HAR
/// writers often store the decoded body and keep the header as it was sent.
fn decode(text: &str, base64: bool) -> Result<Cow<'_, [u8]>, String> {
    let bytes: Cow<[u8]> = if base64 {
        Cow::Owned(decode_base64(text)?)
    } else {
        Cow::Borrowed(text.as_bytes())
    };
    match detect::compression_of(&bytes) {
        Some(compression) => detect::decompress(compression, &bytes).map(Cow::Owned),
        None => Ok(bytes),
    }
}
