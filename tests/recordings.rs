//! Recordings other test suites make (Ruby's VCR, Go's httprr, ...), read as traces: each
//! checked against what the test decodes from the sample itself.

use std::io::Read as _;

use base64::Engine as _;
use serde_json::Value;
use toolprism::trace::{self, RecordBody, TraceFormat, TraceOptions, TraceRecord};

fn sample(name: &str) -> String {
    format!("{}/samples/traces/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A trace's records, its ignored calls (where and why) and its format.
pub(crate) fn records_of(path: &str) -> (Vec<TraceRecord>, Vec<(String, String)>, TraceFormat) {
    let mut reader = trace::open(path, &TraceOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<TraceRecord> = reader
        .by_ref()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let ignored = reader
        .ignored()
        .iter()
        .map(|i| (i.source.clone(), i.reason.clone()))
        .collect();
    (got, ignored, reader.format())
}

/// A Psych `!binary` block's bytes, read here with the YAML crate (the tag kept).
fn binary(value: &serde_norway::Value) -> Vec<u8> {
    let serde_norway::Value::Tagged(tagged) = value else {
        panic!("not tagged: {value:?}");
    };
    assert_eq!(tagged.tag.to_string(), "!binary");
    let text: String = tagged.value.as_str().unwrap().split_whitespace().collect();
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

#[test]
fn ruby_vcr_cassette_with_encoded_and_binary_bodies() {
    let path = sample("ruby-vcr-anthropic.yml");
    let text = std::fs::read_to_string(&path).unwrap();
    let yaml: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    let interactions = yaml["http_interactions"].as_sequence().unwrap();
    assert_eq!(interactions[0]["request"]["method"].as_str(), Some("post"));
    let (got, ignored, format) = records_of(&path);
    assert_eq!(format, TraceFormat::Cassette);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["interaction 1", "interaction 3"]
    );
    assert_eq!(ignored, [("interaction 2".to_owned(), "GET".to_owned())]);
    // Turn 1: `body: {encoding, string}`, the string as sent.
    let sent: Value = serde_json::from_str(
        interactions[0]["request"]["body"]["string"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(got[0].body, RecordBody::Request(sent));
    assert_eq!(got[0].status, Some(200));
    let answer: Value = serde_json::from_str(
        interactions[0]["response"]["body"]["string"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let usage = got[0].usage.unwrap();
    assert_eq!(
        usage.input,
        answer["usage"]["input_tokens"].as_u64().unwrap()
    );
    // Turn 3: both bodies under `!binary`, the response gzip-compressed.
    let request = binary(&interactions[2]["request"]["body"]["string"]);
    assert_eq!(
        got[1].body,
        RecordBody::Request(serde_json::from_slice(&request).unwrap())
    );
    let gzipped = binary(&interactions[2]["response"]["body"]["string"]);
    let mut plain = String::new();
    flate2::read::GzDecoder::new(&gzipped[..])
        .read_to_string(&mut plain)
        .unwrap();
    let answer: Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(
        got[1].usage.unwrap().input,
        answer["usage"]["input_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        got[1].timestamp.as_deref(),
        Some("Wed, 19 Aug 2026 14:34:21 GMT")
    );
}

/// One AWS event-stream message around `payload` (the CRCs are not checked).
fn aws_frame(payload: &str) -> Vec<u8> {
    let headers = b"\x0b:event-type\x07\x00\x05chunk";
    let total = 12 + headers.len() + payload.len() + 4;
    let mut out = Vec::new();
    out.extend_from_slice(&u32::try_from(total).unwrap().to_be_bytes());
    out.extend_from_slice(&u32::try_from(headers.len()).unwrap().to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(headers);
    out.extend_from_slice(payload.as_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out
}

#[test]
fn bedrock_invoke_with_response_stream_in_a_har_gives_claudes_usage() {
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let chunk = |event: Value| {
        aws_frame(&serde_json::json!({"bytes": b64(event.to_string().as_bytes())}).to_string())
    };
    let mut stream = chunk(
        serde_json::json!({"type": "message_start", "message": {"usage":
        {"input_tokens": 7, "cache_creation_input_tokens": 2048, "cache_read_input_tokens": 0}}}),
    );
    stream.extend(chunk(
        serde_json::json!({"type": "message_delta", "usage": {"output_tokens": 3}}),
    ));
    let request = serde_json::json!({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "f", "input_schema": {"type": "object"}}]});
    let har = serde_json::json!({"log": {"version": "1.2", "entries": [{
        "startedDateTime": "2026-01-01T00:00:00Z",
        "request": {"method": "POST", "headers": [],
            "url": "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-v1%3A0/invoke-with-response-stream",
            "postData": {"mimeType": "application/json", "text": request.to_string()}},
        "response": {"status": 200, "content": {"mimeType": "application/vnd.amazon.eventstream",
            "encoding": "base64", "text": b64(&stream)}}}]}});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bedrock.har");
    std::fs::write(&path, har.to_string()).unwrap();
    let (got, _, _) = records_of(path.to_str().unwrap());
    let usage = got[0].usage.unwrap();
    assert_eq!(
        (usage.input, usage.cache_write, usage.cache_read),
        (7, 2048, 0)
    );
}

#[test]
fn go_httprr_trace_with_a_chunked_event_stream() {
    let path = sample("httprr-anthropic-stream.httprr");
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.starts_with(b"httprr trace v1\n"));
    let (got, ignored, format) = records_of(&path);
    assert_eq!(format, TraceFormat::Httprr);
    assert_eq!(format.id(), "httprr");
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].source, "record 1");
    assert_eq!(ignored, [("record 2".to_owned(), "GET".to_owned())]);
    // The request's body: what follows the blank line of the first record's request.
    let text = String::from_utf8_lossy(&bytes);
    let start = text.find("\r\n\r\n").unwrap() + 4;
    let end = text[start..].find("HTTP/2.0 200").unwrap() + start;
    let sent: Value = serde_json::from_str(&text[start..end]).unwrap();
    assert_eq!(got[0].body, RecordBody::Request(sent));
    assert_eq!(
        got[0].url.as_deref(),
        Some("https://api.anthropic.com/v1/messages")
    );
    assert_eq!(
        (got[0].status, got[0].method.as_deref()),
        (Some(200), Some("POST"))
    );
    // The usage of `message_start`, split across the two chunks of the stream.
    let usage = got[0].usage.unwrap();
    assert_eq!(
        (usage.input, usage.cache_write, usage.cache_read),
        (391, 0, 0)
    );
    assert_eq!(
        got[0].timestamp.as_deref(),
        Some("Tue, 17 Feb 2026 02:09:16 GMT")
    );
}

#[test]
fn an_httprr_trace_cut_short_is_refused_naming_the_record() {
    let bytes = std::fs::read(sample("httprr-anthropic-stream.httprr")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.httprr");
    std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    let error = trace::open(path.to_str().unwrap(), &TraceOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.ends_with(": record 2: cut short: it claims 184 bytes and 174 are left"),
        "{error}"
    );
}

#[test]
fn a_claude_agent_sdk_recording_is_refused_in_one_line() {
    // It has `messages` (and a system-like `metadata`), so it could pass for a request.
    let recording = serde_json::json!({
    "metadata": {"sdk_version": "0.1.0", "recorded_at": "2026-01-01T00:00:00Z"},
    "messages": [
        {"direction": "outgoing", "message": {"type": "user",
            "message": {"role": "user", "content": "List the files."}}},
        {"direction": "incoming", "message": {"type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}}}
    ]});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sdk-recording.json");
    std::fs::write(&path, serde_json::to_string_pretty(&recording).unwrap()).unwrap();
    let out = crate::support::command::toolprism()
        .args(["session", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("sdk-recording.json: a Claude Agent SDK recording"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
