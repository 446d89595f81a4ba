//! WireMock stub mappings (Java's common recorder; also what Semantic Kernel for Java and many
//! Spring and Quarkus projects keep under `src/test/resources/mappings`): one call per mapping,
//! `request.{method, url | urlPath | urlPattern | urlPathPattern, bodyPatterns}` and
//! `response.{status, body | jsonBody | base64Body, headers}`; a file holds one mapping, or many
//! as `{"mappings": [...]}`.
//!
//! A recorded mapping keeps the request body as its matcher: `equalToJson` (the JSON sent, as
//! text or as a value), `equalTo` (text) or `binaryEqualTo` (base64). A mapping that matches
//! the body by a pattern only (`contains`, `matchesJsonPath`, ...) does not hold what was sent;
//! it is no turn, and says so. Each mapping is turned into a cassette interaction and read as
//! one ([`super::cassette`]). WireMock records paths, not hosts: the provider is assumed from
//! the request, as for any host toolprism does not know.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::cassette::bytes_value;

/// The keys a mapping's request names its URL with, in WireMock's order of precedence.
const URL_KEYS: [&str; 4] = ["url", "urlPath", "urlPattern", "urlPathPattern"];

/// Whether a document is one WireMock mapping: a `request` naming a URL by one of WireMock's
/// keys and holding no `body` (WireMock matches bodies by `bodyPatterns`), beside a `response`
/// object, and something only WireMock writes (`bodyPatterns`, the mapping's `id` / `uuid` /
/// `persistent` / `insertionIndex` / `priority` / `scenarioName`, a `jsonBody` / `base64Body` /
/// `bodyFileName` answer, or a path for its `url` beside a numeric `status`).
/// Records that wrap a call (claude-trace's `request.body` and `logged_at`, ExVCR's) are none.
pub(crate) fn is_mapping(document: &Value) -> bool {
    let (Some(Value::Object(request)), Some(Value::Object(response))) =
        (document.get("request"), document.get("response"))
    else {
        return false;
    };
    // WireMock matches a path, not a URL: a hand-written stub has little else to tell it by.
    let path_and_status = request
        .get("url")
        .and_then(Value::as_str)
        .is_some_and(|url| url.starts_with('/'))
        && response.get("status").is_some_and(Value::is_u64);
    let wiremock_keys = request.contains_key("bodyPatterns")
        || path_and_status
        || [
            "id",
            "uuid",
            "persistent",
            "insertionIndex",
            "priority",
            "scenarioName",
        ]
        .iter()
        .any(|key| document.get(*key).is_some())
        || ["jsonBody", "base64Body", "bodyFileName"]
            .iter()
            .any(|key| response.contains_key(*key));
    URL_KEYS
        .iter()
        .any(|key| request.get(*key).is_some_and(Value::is_string))
        && !request.contains_key("body")
        && document.get("logged_at").is_none()
        && document.get("loggedAt").is_none()
        && wiremock_keys
}

/// Whether a document is WireMock's export of many mappings (`{"mappings": [...]}`), the first
/// one a mapping.
pub(crate) fn is_mapping_list(document: &Value) -> bool {
    match document.get("mappings") {
        Some(Value::Array(items)) => items.first().is_some_and(is_mapping),
        _ => false,
    }
}

/// The mappings of either form as a cassette document (`{"interactions": [...]}`).
pub(crate) fn document(document: Value) -> Value {
    let mappings = match document {
        Value::Object(mut map) if !map.contains_key("request") => match map.remove("mappings") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        one => vec![one],
    };
    let interactions = mappings.into_iter().map(interaction).collect();
    let mut out = Map::new();
    out.insert("interactions".into(), Value::Array(interactions));
    Value::Object(out)
}

/// Why a mapping holds no request body: a call that sends one (`POST`, `PUT`, `PATCH`, or
/// WireMock's `ANY`) whose body matchers are patterns only, or that matches no body at all.
pub(crate) fn unrecorded_body(mapping: &Value) -> Option<String> {
    let method = mapping.pointer("/request/method").and_then(Value::as_str)?;
    if !["POST", "PUT", "PATCH", "ANY"]
        .iter()
        .any(|m| method.eq_ignore_ascii_case(m))
    {
        return None;
    }
    let none = Vec::new();
    let patterns = match mapping.pointer("/request/bodyPatterns") {
        Some(Value::Array(patterns)) => patterns,
        _ => &none,
    };
    if patterns.is_empty() {
        return Some(
            "a WireMock stub whose request body is not recorded (it matches none)".to_owned(),
        );
    }
    if patterns.iter().any(|p| sent_body(p).is_some()) {
        return None;
    }
    let kind = patterns
        .first()
        .and_then(Value::as_object)
        .and_then(|p| p.keys().next())
        .filter(|k| k.len() <= 40 && k.bytes().all(|b| b.is_ascii_alphanumeric()))
        .map_or_else(|| "a pattern".to_owned(), |k| format!("`{k}`"));
    Some(format!(
        "a WireMock stub whose request body is not recorded (it matches it by {kind})"
    ))
}

/// One mapping as a cassette interaction: `request.{method, uri, headers, body}`,
/// `response.{status.code, headers, body.string}`. A mapping that is not an object is kept as
/// it is (the cassette reader names it).
pub(crate) fn interaction(mapping: Value) -> Value {
    let unrecorded = unrecorded_body(&mapping);
    let Value::Object(mut mapping) = mapping else {
        return mapping;
    };
    let request = match mapping.remove("request") {
        Some(Value::Object(request)) => request,
        _ => Map::new(),
    };
    let mut out = Map::new();
    if let Some(method) = request.get("method") {
        out.insert("method".into(), method.clone());
    }
    if let Some(url) = URL_KEYS.iter().find_map(|key| request.get(*key)) {
        out.insert("uri".into(), url.clone());
    }
    if let Some(headers) = request.get("headers") {
        out.insert("headers".into(), matched_headers(headers));
    }
    let body = request
        .get("bodyPatterns")
        .and_then(Value::as_array)
        .and_then(|patterns| patterns.iter().find_map(sent_body));
    if let Some(body) = body {
        out.insert("body".into(), body);
    }
    let mut interaction = Map::new();
    interaction.insert("request".into(), Value::Object(out));
    if let Some(reason) = unrecorded {
        interaction.insert(
            super::cassette::UNRECORDED_KEY.into(),
            Value::String(reason),
        );
    }
    if let Some(Value::Object(response)) = mapping.remove("response") {
        interaction.insert("response".into(), response_value(response));
    }
    Value::Object(interaction)
}

/// The body a matcher holds whole: `equalToJson` (text, or the JSON value), `equalTo` (text),
/// `binaryEqualTo` (base64 of the bytes).
fn sent_body(pattern: &Value) -> Option<Value> {
    if let Some(json) = pattern.get("equalToJson") {
        return Some(json.clone());
    }
    if let Some(text) = pattern.get("equalTo").and_then(Value::as_str) {
        return Some(Value::String(text.to_owned()));
    }
    let base64 = pattern.get("binaryEqualTo")?.as_str()?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(base64.trim())
        .ok()?;
    Some(bytes_value(bytes))
}

/// Request headers as matchers (`{"Content-Type": {"equalTo": "application/json"}}`): the
/// value each `equalTo` names.
fn matched_headers(headers: &Value) -> Value {
    let Some(map) = headers.as_object() else {
        return Value::Null;
    };
    let values = map
        .iter()
        .filter_map(|(name, matcher)| {
            let value = matcher.get("equalTo").or(Some(matcher))?.as_str()?;
            Some((name.clone(), Value::String(value.to_owned())))
        })
        .collect();
    Value::Object(values)
}

/// A response: `status` as `status.code`, the body from `body` (text), `jsonBody` (a value)
/// or `base64Body`, the headers as they are.
fn response_value(mut response: Map<String, Value>) -> Value {
    let mut out = Map::new();
    // WireMock's default status is 200.
    let status = response.remove("status").unwrap_or(Value::from(200));
    out.insert("status".into(), serde_json::json!({ "code": status }));
    let body = match (
        response.remove("body"),
        response.remove("jsonBody"),
        response.remove("base64Body"),
    ) {
        (Some(text @ Value::String(_)), _, _) => Some(text),
        (_, Some(json), _) if !json.is_null() => Some(json),
        (_, _, Some(Value::String(base64))) => base64::engine::general_purpose::STANDARD
            .decode(base64.trim())
            .ok()
            .map(bytes_value),
        _ => None,
    };
    if let Some(body) = body {
        out.insert("body".into(), serde_json::json!({ "string": body }));
    }
    if let Some(headers) = response.remove("headers") {
        out.insert("headers".into(), headers);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_mapping_is_told_by_its_url_key_and_response() {
        let mapping = json!({"id": "7d1", "request": {"urlPath": "/v1/chat/completions",
            "method": "POST"}, "response": {"status": 200}});
        assert!(is_mapping(&mapping));
        // A claude-trace record names its URL too.
        assert!(!is_mapping(
            &json!({"request": {"url": "https://api.anthropic.com/v1/messages",
            "method": "POST", "body": {}}, "response": {"status_code": 200}, "logged_at": "t"})
        ));
        assert!(is_mapping_list(
            &json!({"mappings": [mapping], "meta": {"total": 1}})
        ));
        // A wrapped record (`request.body`) or a request body is none.
        assert!(!is_mapping(
            &json!({"request": {"body": "{}"}, "response": {"status": 200}})
        ));
        assert!(!is_mapping(&json!({"model": "m", "messages": []})));
    }

    #[test]
    fn bodies_come_from_the_matchers_and_the_response_forms() {
        let mapping = json!({
            "request": {"url": "/v1/messages", "method": "POST",
                "headers": {"anthropic-version": {"equalTo": "2023-06-01"}},
                "bodyPatterns": [{"equalToJson": {"model": "m"}, "ignoreExtraElements": true}]},
            "response": {"jsonBody": {"usage": {"input_tokens": 3}},
                "headers": {"Content-Type": "application/json"}}});
        let got = interaction(mapping);
        assert_eq!(got["request"]["uri"], "/v1/messages");
        assert_eq!(got["request"]["body"], json!({"model": "m"}));
        assert_eq!(got["request"]["headers"]["anthropic-version"], "2023-06-01");
        // No status: WireMock's default, 200.
        assert_eq!(got["response"]["status"]["code"], 200);
        assert_eq!(
            got["response"]["body"]["string"]["usage"]["input_tokens"],
            3
        );
        let encoded = base64::engine::general_purpose::STANDARD.encode("{\"a\":1}");
        let got = interaction(json!({"request": {"url": "/x", "method": "POST",
                "bodyPatterns": [{"binaryEqualTo": encoded}]},
            "response": {"status": 201, "base64Body": encoded}}));
        assert_eq!(got["request"]["body"], "{\"a\":1}");
        assert_eq!(got["response"]["body"]["string"], "{\"a\":1}");
        assert_eq!(got["response"]["status"]["code"], 201);
    }

    #[test]
    fn a_pattern_is_no_recorded_body() {
        let stub = json!({"request": {"url": "/v1/chat/completions", "method": "POST",
            "bodyPatterns": [{"contains": "That is all"}]}, "response": {"status": 200}});
        assert_eq!(
            unrecorded_body(&stub).unwrap(),
            "a WireMock stub whose request body is not recorded (it matches it by `contains`)"
        );
        let recorded = json!({"request": {"url": "/x", "method": "POST",
            "bodyPatterns": [{"equalToJson": "{}"}]}, "response": {}});
        assert_eq!(unrecorded_body(&recorded), None);
        let get = json!({"request": {"url": "/x", "method": "GET"}, "response": {}});
        assert_eq!(unrecorded_body(&get), None);
        // A POST stub with no body matcher at all (Semantic Kernel for Java's hand-kept ones).
        let bare = json!({"request": {"url": "/v1/chat/completions", "method": "POST"},
            "response": {"status": 200, "body": "{}"}});
        assert!(is_mapping(&bare));
        assert_eq!(
            unrecorded_body(&bare).unwrap(),
            "a WireMock stub whose request body is not recorded (it matches none)"
        );
    }
}
