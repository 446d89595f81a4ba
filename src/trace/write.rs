//! Writing a trace: one model call as one claude-trace JSON line (the format `session` reads),
//! with every key redacted, appended to a file only its owner can read, flushed per line.
//!
//! This is the engine's half of `toolprism record`: the proxy (`crate::record`, feature
//! `record`) hands a finished [`Call`] here; nothing here knows HTTP stacks or sockets.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Mutex;

use serde_json::{Map, Value, json};

use super::{MAX_RECORD_BYTES, Usage, sse, time, usage};

/// What a secret is written as.
pub const REDACTED: &str = "[redacted]";

/// Whether a header or query parameter of this name carries a secret: the names the providers
/// use (`authorization`, `x-api-key`, `x-goog-api-key`, `api-key`, `key`), cookies, and any name
/// one of whose words (split at `-`, `_` and `.`) ends in `key`, `token` or `secret`, or says
/// `auth`, `password` or `signature`. `x-ratelimit-remaining-tokens` counts tokens and is kept.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    if matches!(
        name.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie" | "sig"
    ) {
        return true;
    }
    name.split(['-', '_', '.']).any(|word| {
        word.ends_with("key")
            || word.ends_with("token")
            || word.contains("secret")
            || word.contains("password")
            || word.contains("cookie")
            || matches!(word, "auth" | "signature" | "credential" | "credentials")
    })
}

/// A URL with the value of every secret query parameter replaced by [`REDACTED`]; the rest of
/// the URL is kept byte for byte.
pub fn redact_url(url: &str) -> String {
    let (head, fragment) = match url.split_once('#') {
        Some((head, fragment)) => (head, Some(fragment)),
        None => (url, None),
    };
    let Some((base, query)) = head.split_once('?') else {
        return url.to_owned();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if is_secret_name(&percent_decoded(name)) => {
                format!("{name}={REDACTED}")
            }
            _ => pair.to_owned(),
        })
        .collect();
    let mut out = format!("{base}?{}", pairs.join("&"));
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// A query parameter's name with `%XX` and `+` decoded, so `api%5Fkey` is judged as `api_key`.
fn percent_decoded(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = |c: u8| char::from(c).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(high), Some(low)) => {
                        out.extend(u8::try_from(high * 16 + low));
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Headers as a JSON object, secrets redacted; a name sent twice keeps its values in a list.
pub fn redacted_headers(headers: &[(String, String)]) -> Map<String, Value> {
    let mut map = Map::new();
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        let value = if is_secret_name(&name) {
            REDACTED.to_owned()
        } else {
            value.clone()
        };
        match map.get_mut(&name) {
            Some(Value::Array(list)) => list.push(Value::String(value)),
            Some(first) => {
                let first = first.take();
                map.insert(name, Value::Array(vec![first, Value::String(value)]));
            }
            None => {
                map.insert(name, Value::String(value));
            }
        }
    }
    map
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The response was passed on whole.
    Complete,
    /// The upstream could not be reached; the client was answered 502.
    Unreachable(String),
    /// The upstream's response broke off mid-body.
    UpstreamBroke(String),
    /// The client went away before the response ended.
    ClientGone,
    /// toolprism was stopped (Ctrl-C, SIGTERM) before the response ended.
    Interrupted,
}

impl Outcome {
    /// The outcome's id in the trace (`toolprism.outcome`) and in `--no-view` lines.
    pub fn id(&self) -> &'static str {
        match self {
            Outcome::Complete => "complete",
            Outcome::Unreachable(_) => "upstream-unreachable",
            Outcome::UpstreamBroke(_) => "upstream-broke-off",
            Outcome::ClientGone => "client-disconnected",
            Outcome::Interrupted => "interrupted",
        }
    }

    /// What went wrong, when something did.
    pub fn error(&self) -> Option<&str> {
        match self {
            Outcome::Unreachable(e) | Outcome::UpstreamBroke(e) => Some(e),
            _ => None,
        }
    }
}

/// A response as far as it came.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// Headers in the order received (values as text, lossy).
    pub headers: Vec<(String, String)>,
    /// The body's bytes as sent (still compressed, if it was), up to [`MAX_RECORD_BYTES`].
    pub body: Vec<u8>,
    /// The body went past [`MAX_RECORD_BYTES`]: the rest was passed on but not kept.
    pub truncated: bool,
}

/// One call through the proxy, everything a trace line needs.
#[derive(Debug, Clone, Default)]
pub struct Call {
    /// When the request arrived, milliseconds since the Unix epoch.
    pub started_ms: i64,
    /// The HTTP method.
    pub method: String,
    /// The URL the request was sent to (redacted when written).
    pub url: String,
    /// Request headers as received.
    pub request_headers: Vec<(String, String)>,
    /// The request body as received.
    pub request_body: Vec<u8>,
    /// The response, when there was one.
    pub answer: Option<Answer>,
    /// Milliseconds from the request's arrival to the response's headers.
    pub headers_ms: Option<u64>,
    /// Milliseconds to the response body's first byte.
    pub first_byte_ms: Option<u64>,
    /// Milliseconds to the end of the call.
    pub end_ms: u64,
    /// How it ended.
    pub outcome: Option<Outcome>,
}

impl Call {
    /// The call as one JSON line (no newline): claude-trace's record (`request`, `response`,
    /// `logged_at`) with toolprism's timings and outcome under `toolprism`.
    pub fn to_line(&self) -> String {
        let request_body = body_json(&self.request_headers, &self.request_body, false);
        let mut request = Map::new();
        request.insert("timestamp".into(), json!(self.started_ms as f64 / 1000.0));
        request.insert("method".into(), json!(self.method));
        request.insert("url".into(), json!(redact_url(&self.url)));
        request.insert(
            "headers".into(),
            Value::Object(redacted_headers(&self.request_headers)),
        );
        for (key, value) in request_body {
            request.insert(key, value);
        }
        let response = self.answer.as_ref().map_or(Value::Null, |answer| {
            let mut response = Map::new();
            let at = self.started_ms + self.end_ms as i64;
            response.insert("timestamp".into(), json!(at as f64 / 1000.0));
            response.insert("status_code".into(), json!(answer.status));
            response.insert(
                "headers".into(),
                Value::Object(redacted_headers(&answer.headers)),
            );
            for (key, value) in body_json(&answer.headers, &answer.body, answer.truncated) {
                response.insert(key, value);
            }
            Value::Object(response)
        });
        let outcome = self.outcome.clone().unwrap_or(Outcome::Complete);
        let mut meta = Map::new();
        meta.insert("outcome".into(), json!(outcome.id()));
        if let Some(error) = outcome.error() {
            meta.insert("error".into(), json!(error));
        }
        meta.insert("headers_ms".into(), json!(self.headers_ms));
        meta.insert("first_byte_ms".into(), json!(self.first_byte_ms));
        meta.insert("duration_ms".into(), json!(self.end_ms));
        let record = json!({
            "request": Value::Object(request),
            "response": response,
            "logged_at": time::format_utc(self.started_ms + self.end_ms as i64),
            "toolprism": Value::Object(meta),
        });
        record.to_string()
    }

    /// The usage the response reported (JSON body or event stream), when it did.
    pub fn usage(&self) -> Option<Usage> {
        let answer = self.answer.as_ref()?;
        let text = decoded(&answer.headers, &answer.body).ok()?;
        usage::from_text(&String::from_utf8_lossy(&text))
    }

    /// The request URL's path (no query), for a line about the call.
    pub fn path(&self) -> &str {
        let rest = self
            .url
            .split_once("://")
            .map_or(self.url.as_str(), |(_, rest)| rest);
        let path = rest.find('/').map_or("/", |at| &rest[at..]);
        path.split(['?', '#']).next().unwrap_or(path)
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A body with its `content-encoding` undone (gzip, deflate, zstd), at most
/// [`MAX_RECORD_BYTES`]. `Err` names an encoding toolprism does not undo (`br`).
fn decoded(headers: &[(String, String)], body: &[u8]) -> Result<Vec<u8>, String> {
    let encoding = header(headers, "content-encoding")
        .unwrap_or("identity")
        .trim()
        .to_ascii_lowercase();
    let reader: Box<dyn Read + '_> = match encoding.as_str() {
        "" | "identity" => return Ok(body.to_vec()),
        "gzip" | "x-gzip" => Box::new(flate2::read::MultiGzDecoder::new(body)),
        "deflate" => Box::new(flate2::read::ZlibDecoder::new(body)),
        "zstd" => Box::new(zstd::stream::read::Decoder::new(body).map_err(|e| e.to_string())?),
        other => return Err(other.to_owned()),
    };
    let mut out = Vec::new();
    // A cut-off stream decodes as far as it came: what it holds is still worth keeping.
    let _ = reader.take(MAX_RECORD_BYTES).read_to_end(&mut out);
    Ok(out)
}

/// A body's fields in a record: `body` (JSON), or `body_raw` (an event stream or other text),
/// and `body_encoding` / `body_truncated` / `body_bytes` where they apply.
fn body_json(headers: &[(String, String)], body: &[u8], truncated: bool) -> Vec<(String, Value)> {
    let mut fields = Vec::new();
    if truncated {
        fields.push(("body_truncated".to_owned(), Value::Bool(true)));
    }
    if body.is_empty() {
        return fields;
    }
    let text = match decoded(headers, body) {
        Ok(text) => text,
        Err(encoding) => {
            fields.push(("body_encoding".to_owned(), Value::String(encoding)));
            fields.push(("body_bytes".to_owned(), json!(body.len())));
            return fields;
        }
    };
    let text = String::from_utf8_lossy(&text);
    let stream = sse::looks_like_stream(&text);
    match (!stream)
        .then(|| super::budget::parse_str(&text).ok())
        .flatten()
    {
        Some(value) => fields.push(("body".to_owned(), value)),
        None => fields.push(("body_raw".to_owned(), Value::String(text.into_owned()))),
    }
    fields
}

/// A trace file being written: created new with mode 0600 (never an existing file), one line
/// per call, each written whole and flushed before the next.
pub struct TraceWriter {
    file: Mutex<File>,
}

impl TraceWriter {
    /// Create `path` (it must not exist), readable and writable by its owner only.
    pub fn create(path: &Path) -> io::Result<TraceWriter> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(path)?;
        Ok(TraceWriter {
            file: Mutex::new(file),
        })
    }

    /// Append one call's line. Lines from calls that end together never interleave.
    pub fn write(&self, call: &Call) -> io::Result<()> {
        let mut line = call.to_line();
        line.push('\n');
        let mut file = self
            .file
            .lock()
            .map_err(|_| io::Error::other("the trace's lock is poisoned"))?;
        file.write_all(line.as_bytes())?;
        file.flush()
    }

    /// Flush the file to disk (at the end of a recording).
    pub fn sync(&self) -> io::Result<()> {
        let file = self
            .file
            .lock()
            .map_err(|_| io::Error::other("the trace's lock is poisoned"))?;
        file.sync_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for name in [
            "Authorization",
            "x-api-key",
            "X-Goog-Api-Key",
            "api-key",
            "Cookie",
            "set-cookie",
            "x-auth-token",
            "x-amz-security-token",
            "client_secret",
            "key",
            "access_token",
            "apikey",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "content-type",
            "anthropic-version",
            "x-ratelimit-remaining-tokens",
            "anthropic-beta",
            "alt",
            "user-agent",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn urls_keep_all_but_secret_values() {
        assert_eq!(
            redact_url("https://h/v1beta/models/m:streamGenerateContent?alt=sse&key=AIza123#f"),
            "https://h/v1beta/models/m:streamGenerateContent?alt=sse&key=[redacted]#f"
        );
        assert_eq!(
            redact_url("http://h/p?api%5Fkey=s&x=1&flag"),
            "http://h/p?api%5Fkey=[redacted]&x=1&flag"
        );
        assert_eq!(redact_url("http://h/p"), "http://h/p");
    }

    #[test]
    fn a_call_reads_back_as_a_claude_trace_turn_with_its_usage() {
        let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":7,\"cache_read_input_tokens\":3,\"cache_creation_input_tokens\":0}}}\n\n";
        let call = Call {
            started_ms: 1_700_000_000_000,
            method: "POST".into(),
            url: "https://api.anthropic.com/v1/messages?key=k".into(),
            request_headers: vec![
                ("x-api-key".into(), "sk-ant-secret".into()),
                ("content-type".into(), "application/json".into()),
            ],
            request_body: br#"{"model":"m","messages":[],"tools":[]}"#.to_vec(),
            answer: Some(Answer {
                status: 200,
                headers: vec![("content-type".into(), "text/event-stream".into())],
                body: stream.as_bytes().to_vec(),
                truncated: false,
            }),
            end_ms: 12,
            ..Call::default()
        };
        let line = call.to_line();
        assert!(!line.contains("sk-ant-secret"));
        assert!(!line.contains("key=k"));
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            super::super::record::format_of(&value),
            super::super::TraceFormat::ClaudeTrace
        );
        let super::super::record::Outcome::Turn(turn) =
            super::super::record::from_value(value, "line 1".into(), None).unwrap()
        else {
            panic!("not a turn")
        };
        assert_eq!(turn.status, Some(200));
        assert_eq!(
            turn.usage,
            Some(Usage {
                input: 7,
                cache_write: 0,
                cache_read: 3,
                cache_unknown: false,
                ..Usage::default()
            })
        );
        assert_eq!(call.usage(), turn.usage);
        assert_eq!(call.path(), "/v1/messages");
    }

    #[test]
    fn gzip_bodies_are_recorded_decoded() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(br#"{"usage":{"input_tokens":5}}"#).unwrap();
        let body = gz.finish().unwrap();
        let headers = vec![("Content-Encoding".to_owned(), "gzip".to_owned())];
        let fields = body_json(&headers, &body, false);
        assert_eq!(fields[0].0, "body");
        assert_eq!(fields[0].1["usage"]["input_tokens"], 5);
        let fields = body_json(&[("content-encoding".into(), "br".into())], b"xx", false);
        assert_eq!(fields[0].1, "br");
    }
}
