//! The Azure SDK test proxy's recordings (`{"Entries": [...], "Variables": {...}}`): what the
//! .NET, Java, Python, JavaScript, Go and C++ Azure SDKs record their tests with, and what the
//! OpenAI .NET library keeps under `tests/SessionRecords`. Each entry is one HTTP call:
//! `RequestUri`, `RequestMethod`, `RequestHeaders`, `RequestBody`, `StatusCode`,
//! `ResponseHeaders`, `ResponseBody`.
//!
//! The proxy writes a body by its `Content-Type`: JSON as the JSON value (re-serialized: the
//! bytes sent are lost), text as a string, text holding line breaks (an event stream) as a list
//! of its lines, anything else as base64. Each entry is turned into a cassette interaction and
//! read as one ([`super::cassette`]): the same classification, bodies, usage and `Date` header.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::cassette::bytes_value;
use crate::error::{LoadError, json_kind};

/// Whether a document is a test-proxy recording: an `Entries` list whose first entry names a
/// `RequestUri`, or any `Entries` list beside the proxy's `Variables` (so that a broken entry is
/// named as one).
pub(crate) fn is_recording(document: &Value) -> bool {
    match document.get("Entries") {
        Some(Value::Array(entries)) => {
            document.get("Variables").is_some()
                || entries
                    .first()
                    .is_some_and(|e| e.get("RequestUri").is_some())
        }
        _ => false,
    }
}

/// The entries as a cassette document (`{"interactions": [...]}`). An entry that is not an
/// object, or that has no `RequestUri` or `RequestMethod` string, is an error naming it.
pub(crate) fn document(mut recording: Value) -> Result<Value, LoadError> {
    let entries = match recording.get_mut("Entries").map(Value::take) {
        Some(Value::Array(entries)) => entries,
        _ => Vec::new(),
    };
    let interactions = entries
        .into_iter()
        .enumerate()
        .map(|(n, entry)| {
            interaction(entry).map_err(|problem| LoadError::BadRecord {
                at: format!("entry {}", n + 1),
                problem,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut document = Map::new();
    document.insert("interactions".into(), Value::Array(interactions));
    Ok(Value::Object(document))
}

/// One entry as a cassette interaction: `request.{method, uri, headers, body}`,
/// `response.{status.code, headers, body.string}`.
fn interaction(entry: Value) -> Result<Value, String> {
    let Value::Object(mut entry) = entry else {
        return Err(format!("the entry is {}, not an object", json_kind(&entry)));
    };
    let mut text = |key: &str| match entry.remove(key) {
        Some(Value::String(text)) => Ok(text),
        Some(other) => Err(format!("`{key}` is {}, not a string", json_kind(&other))),
        None => Err(format!("no `{key}`")),
    };
    let (uri, method) = (text("RequestUri")?, text("RequestMethod")?);
    let headers = |entry: &mut Map<String, Value>, key: &str| match entry.remove(key) {
        Some(headers @ Value::Object(_)) => headers,
        _ => Value::Object(Map::new()),
    };
    let request_headers = headers(&mut entry, "RequestHeaders");
    let response_headers = headers(&mut entry, "ResponseHeaders");
    let mut request = Map::new();
    request.insert("method".into(), Value::String(method));
    request.insert("uri".into(), Value::String(uri));
    if let Some(body) = body(entry.remove("RequestBody"), &request_headers) {
        request.insert("body".into(), body);
    }
    request.insert("headers".into(), request_headers);
    let mut interaction = Map::new();
    interaction.insert("request".into(), Value::Object(request));
    // A call recorded without an answer has no status (the proxy writes 0 then).
    let status = entry
        .get("StatusCode")
        .and_then(super::record::status_code)
        .filter(|&code| code > 0);
    if let Some(code) = status {
        let mut response = Map::new();
        response.insert("status".into(), serde_json::json!({ "code": code }));
        if let Some(body) = body(entry.remove("ResponseBody"), &response_headers) {
            response.insert("body".into(), serde_json::json!({ "string": body }));
        }
        response.insert("headers".into(), response_headers);
        interaction.insert("response".into(), Value::Object(response));
    }
    Ok(Value::Object(interaction))
}

/// A body as the proxy wrote it, by its message's `Content-Type`: a JSON value is kept; a list
/// of lines is joined; a string is text when the type is text (or not said), else base64 of the
/// bytes (decoded and kept as [`bytes_value`] keeps them). `None` for no body.
fn body(body: Option<Value>, headers: &Value) -> Option<Value> {
    let content_type = super::record::header(headers, "content-type").unwrap_or_default();
    match body? {
        Value::Null => None,
        Value::Array(lines) if !is_json(&content_type) && lines.iter().all(Value::is_string) => {
            Some(Value::String(
                lines.iter().filter_map(Value::as_str).collect::<String>(),
            ))
        }
        Value::String(text) if text.is_empty() => None,
        Value::String(text) if !is_text(&content_type) => {
            match base64::engine::general_purpose::STANDARD.decode(text.trim()) {
                Ok(bytes) => Some(bytes_value(bytes)),
                Err(_) => Some(Value::String(text)),
            }
        }
        other => Some(other),
    }
}

/// A JSON media type (`application/json`, `application/problem+json`, ...).
fn is_json(content_type: &str) -> bool {
    let media = content_type.split(';').next().unwrap_or("").trim();
    media.eq_ignore_ascii_case("application/json") || media.to_ascii_lowercase().ends_with("+json")
}

/// The media types the proxy writes as text: `text/*`, JSON, XML, form data and event
/// streams; a body without a type is taken as text too.
fn is_text(content_type: &str) -> bool {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    media.is_empty()
        || media.starts_with("text/")
        || is_json(&media)
        || media.ends_with("/xml")
        || media.ends_with("+xml")
        || media == "application/x-www-form-urlencoded"
        || media == "application/x-ndjson"
        || media == "application/jsonl"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_are_read_by_their_content_type() {
        let json_type = json!({"Content-Type": "application/json; charset=utf-8"});
        let stream = json!({"Content-Type": "text/event-stream"});
        let audio = json!({"Content-Type": "audio/mpeg"});
        // A JSON body is the value; a JSON array of strings stays an array.
        let value = json!({"model": "m"});
        assert_eq!(body(Some(value.clone()), &json_type), Some(value));
        assert_eq!(
            body(Some(json!(["a", "b"])), &json_type),
            Some(json!(["a", "b"]))
        );
        // An event stream's lines are joined as written.
        assert_eq!(
            body(Some(json!(["data: 1\n", "\n", "data: 2\n"])), &stream),
            Some(json!("data: 1\n\ndata: 2\n"))
        );
        // Another type's string is base64 of the bytes.
        let encoded = base64::engine::general_purpose::STANDARD.encode(b"{\"a\":1}");
        assert_eq!(body(Some(json!(encoded)), &audio), Some(json!("{\"a\":1}")));
        // No body, an empty one, and null are none.
        assert_eq!(body(None, &json_type), None);
        assert_eq!(body(Some(Value::Null), &json_type), None);
        assert_eq!(body(Some(json!("")), &audio), None);
    }

    #[test]
    fn a_recording_is_told_by_its_entries() {
        assert!(is_recording(
            &json!({"Entries": [{"RequestUri": "https://x/"}], "Variables": {}})
        ));
        assert!(is_recording(&json!({"Entries": [], "Variables": {}})));
        // A request body with an `Entries` key of its own is not one.
        assert!(!is_recording(&json!({"Entries": [{"a": 1}], "model": "m"})));
        assert!(!is_recording(&json!({"Entries": []})));
        // Beside `Variables`, a broken first entry is still the proxy's, and named.
        assert!(is_recording(&json!({"Entries": [1], "Variables": {}})));
        assert_eq!(
            document(json!({"Entries": [1], "Variables": {}}))
                .unwrap_err()
                .to_string(),
            "entry 1: the entry is a number, not an object"
        );
    }

    #[test]
    fn a_bad_entry_is_named() {
        let error = document(json!({"Entries": [
            {"RequestUri": "https://x/", "RequestMethod": "GET", "StatusCode": 200},
            {"RequestUri": "https://x/", "RequestMethod": 7}
        ]}))
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "entry 2: `RequestMethod` is a number, not a string"
        );
    }
}
