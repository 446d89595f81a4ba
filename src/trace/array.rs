//! Records saved as one JSON array rather than as lines: claude-trace or wrapped records
//! (what a viewer's "save" or `jq -s` writes), and nock's recorder output (`nock.back`
//! fixtures, `nock.recorder.rec({output_objects: true})`), each element one HTTP call.

use serde_json::{Map, Value};

use super::record;
use super::{Raw, TraceFormat, detect};
use crate::error::json_kind;

/// What an array of records is, judged by its first object: claude-trace / wrapped records,
/// nock's recorded calls, or neither (`None`).
pub(crate) fn format_of(items: &[Value]) -> Option<TraceFormat> {
    let first = items.iter().find(|v| v.is_object())?;
    if is_nock(first) {
        return Some(TraceFormat::Nock);
    }
    match record::format_of(first) {
        TraceFormat::ClaudeTrace | TraceFormat::WrappedJsonl => Some(TraceFormat::JsonArray),
        _ => None,
    }
}

/// nock's recorded call: `scope` (scheme, host and port), `method`, `path`, and the answer's
/// `status`.
fn is_nock(item: &Value) -> bool {
    let text = |key: &str| item.get(key).is_some_and(Value::is_string);
    text("scope") && text("method") && text("path")
}

/// The elements of a JSON array of records, handed out one at a time as `entry N`.
pub(crate) struct ArraySource {
    items: Vec<Value>,
    next: usize,
    nock: bool,
}

impl ArraySource {
    pub(crate) fn new(items: Vec<Value>, format: TraceFormat) -> ArraySource {
        ArraySource {
            items,
            next: 0,
            nock: format == TraceFormat::Nock,
        }
    }

    pub(crate) fn next_raw(&mut self) -> Option<Raw> {
        let item = self.items.get_mut(self.next)?.take();
        self.next += 1;
        let source = format!("entry {}", self.next);
        let outcome = if self.nock {
            nock_record(item).and_then(|r| record::from_value(r, source.clone(), None))
        } else {
            record::from_value(item, source.clone(), None)
        };
        Some(Raw::Read(source, outcome))
    }
}

/// A nock call as a wrapped record: `request.{method, url, body}` (the URL is the scope and the
/// path) and `response.{status, body}`. nock keeps a compressed answer as a list of hex chunks.
fn nock_record(item: Value) -> Result<Value, String> {
    let Value::Object(mut item) = item else {
        return Err(format!(
            "the recorded call is {}, not an object",
            json_kind(&item)
        ));
    };
    let text = |item: &Map<String, Value>, key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let url = format!(
        "{}{}",
        text(&item, "scope").trim_end_matches('/'),
        text(&item, "path")
    );
    let mut request = Map::new();
    request.insert("method".into(), Value::String(text(&item, "method")));
    request.insert("url".into(), Value::String(url));
    if let Some(body) = item.remove("body") {
        request.insert("body".into(), body);
    }
    let mut response = Map::new();
    if let Some(status) = item.remove("status") {
        response.insert("status".into(), status);
    }
    if let Some(body) = item.remove("response") {
        response.insert("body".into(), answer_body(body));
    }
    let mut wrapped = Map::new();
    wrapped.insert("request".into(), Value::Object(request));
    wrapped.insert("response".into(), Value::Object(response));
    Ok(Value::Object(wrapped))
}

/// nock writes a JSON answer as JSON, a text answer as text, and a binary one (gzip) as a list
/// of hex strings: those are joined, decompressed and read as text where they can be.
fn answer_body(body: Value) -> Value {
    let Value::Array(chunks) = &body else {
        return body;
    };
    let mut bytes = Vec::new();
    for chunk in chunks {
        let Some(hex) = chunk.as_str().filter(|h| h.len() % 2 == 0) else {
            return body;
        };
        for pair in hex.as_bytes().chunks(2) {
            let digit = std::str::from_utf8(pair)
                .ok()
                .and_then(|d| u8::from_str_radix(d, 16).ok());
            match digit {
                Some(byte) => bytes.push(byte),
                None => return body,
            }
        }
    }
    let bytes = match detect::compression_of(&bytes) {
        Some(compression) => match detect::decompress(compression, &bytes) {
            Ok(out) => out,
            Err(_) => return body,
        },
        None => bytes,
    };
    match String::from_utf8(bytes) {
        Ok(text) => Value::String(text),
        Err(_) => body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nock_calls_become_wrapped_records() {
        let call = json!({"scope": "https://api.openai.com:443", "method": "POST",
            "path": "/v1/chat/completions", "body": {"model": "m", "messages": []},
            "status": 200, "response": {"usage": {"prompt_tokens": 10}}});
        assert_eq!(
            format_of(std::slice::from_ref(&call)),
            Some(TraceFormat::Nock)
        );
        let wrapped = nock_record(call).unwrap();
        assert_eq!(
            wrapped["request"]["url"],
            "https://api.openai.com:443/v1/chat/completions"
        );
        assert_eq!(wrapped["response"]["status"], 200);
        // gzip in hex chunks, as nock records a compressed answer.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, br#"{"ok":true}"#).unwrap();
        let bytes = gz.finish().unwrap();
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let (a, b) = hex.split_at(hex.len() / 2 / 2 * 2);
        assert_eq!(answer_body(json!([a, b])), json!(r#"{"ok":true}"#));
        assert_eq!(answer_body(json!(["zz"])), json!(["zz"]));
        assert_eq!(format_of(&[json!({"model": "m"})]), None);
    }
}
