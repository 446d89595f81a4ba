//! Writing a trace: one model call as one claude-trace JSON line (the format `session` reads),
//! with every key redacted, appended to a file only its owner can read, flushed per line.
//!
//! This is the engine's half of `toolprism record`: the proxy (`crate::record`, feature
//! `record`) hands a finished [`Call`] here; nothing here knows HTTP stacks or sockets.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use super::{MAX_RECORD_BYTES, Usage, sse, time, usage};

/// What a secret is written as.
pub const REDACTED: &str = "[redacted]";

/// What in a header's or query parameter's name (lower-cased) marks it as carrying a secret:
/// `authorization`, `x-authorization`, `cf-aig-authorization`, `authentication`, `x-api-key`,
/// `x-goog-api-key`, `x-amz-security-token`, `cookie`, `x-claude-code-session-id`, ...
const SECRET_PARTS: &[&str] = &[
    "auth",
    "key",
    "token",
    "secret",
    "session",
    "cookie",
    "signature",
    "credential",
    "password",
];

/// Whether a header or query parameter of this name carries a secret: any name that contains
/// one of [`SECRET_PARTS`] (case-insensitive), and `sig` (a signed URL's signature). The one
/// exception is a rate-limit header that counts tokens (`x-ratelimit-remaining-tokens`,
/// `anthropic-ratelimit-input-tokens-remaining`): a number, kept for the analysis.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    if name == "sig" {
        return true;
    }
    let secret = |part: &str| SECRET_PARTS.iter().any(|s| part.contains(s));
    if name.contains("ratelimit") {
        // Judged word by word, with `tokens` (a count) left out.
        return name
            .split(['-', '_', '.'])
            .any(|word| word != "tokens" && secret(word));
    }
    secret(&name)
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
    /// The request body as received (shared with what is sent on, never copied).
    pub request_body: Arc<Vec<u8>>,
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
    /// Members toolprism added to the request body (`record --diagnose`), written under
    /// `toolprism.added`: the body recorded is the one the provider received.
    pub added: Option<Value>,
}

impl Call {
    /// The call as one JSON line (no newline): claude-trace's record (`request`, `response`,
    /// `logged_at`) with toolprism's timings and outcome under `toolprism`.
    pub fn to_line(&self) -> String {
        let mut out = Vec::new();
        // Writing to memory cannot fail, and every piece written is UTF-8.
        let _ = self.write_line(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// [`Call::to_line`] written straight to `out`: a body is copied once, as it goes, never
    /// parsed into a tree nor held twice. The bodies fit the record limit together (the request
    /// first): what does not is marked `body_truncated`.
    pub fn write_line(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut room = usize::try_from(MAX_RECORD_BYTES)
            .unwrap_or(usize::MAX)
            .saturating_sub(LINE_SLACK);
        out.write_all(b"{\"request\":{\"timestamp\":")?;
        serde_json::to_writer(&mut *out, &json!(self.started_ms as f64 / 1000.0))?;
        out.write_all(b",\"method\":")?;
        serde_json::to_writer(&mut *out, &self.method)?;
        out.write_all(b",\"url\":")?;
        serde_json::to_writer(&mut *out, &redact_url(&self.url))?;
        out.write_all(b",\"headers\":")?;
        serde_json::to_writer(&mut *out, &redacted_headers(&self.request_headers))?;
        room -= write_body(out, &self.request_headers, &self.request_body, false, room)?;
        out.write_all(b"},\"response\":")?;
        match &self.answer {
            None => out.write_all(b"null")?,
            Some(answer) => {
                let at = self.started_ms + self.end_ms as i64;
                out.write_all(b"{\"timestamp\":")?;
                serde_json::to_writer(&mut *out, &json!(at as f64 / 1000.0))?;
                out.write_all(b",\"status_code\":")?;
                serde_json::to_writer(&mut *out, &answer.status)?;
                out.write_all(b",\"headers\":")?;
                serde_json::to_writer(&mut *out, &redacted_headers(&answer.headers))?;
                write_body(out, &answer.headers, &answer.body, answer.truncated, room)?;
                out.write_all(b"}")?;
            }
        }
        out.write_all(b",\"logged_at\":")?;
        serde_json::to_writer(
            &mut *out,
            &time::format_utc(self.started_ms + self.end_ms as i64),
        )?;
        out.write_all(b",\"toolprism\":")?;
        serde_json::to_writer(&mut *out, &self.meta())?;
        out.write_all(b"}")
    }

    /// toolprism's own object: outcome, error, timings.
    fn meta(&self) -> Value {
        let outcome = self.outcome.clone().unwrap_or(Outcome::Complete);
        let mut meta = Map::new();
        meta.insert("outcome".into(), json!(outcome.id()));
        if let Some(error) = outcome.error() {
            meta.insert("error".into(), json!(error));
        }
        meta.insert("headers_ms".into(), json!(self.headers_ms));
        meta.insert("first_byte_ms".into(), json!(self.first_byte_ms));
        meta.insert("duration_ms".into(), json!(self.end_ms));
        if let Some(added) = &self.added {
            meta.insert("added".into(), added.clone());
        }
        Value::Object(meta)
    }

    /// The usage the response reported (JSON body or event stream), when it did. Read from at
    /// most [`USAGE_TEXT_LIMIT`] bytes of the decoded body: a longer one gives none here (its
    /// record still has it whole for `session`).
    pub fn usage(&self) -> Option<Usage> {
        let answer = self.answer.as_ref()?;
        let (text, cut) = decoded(&answer.headers, &answer.body, USAGE_TEXT_LIMIT).ok()?;
        if cut {
            return None;
        }
        usage::from_text(&String::from_utf8_lossy(&text))
    }

    /// The response's `id` (an Anthropic message's: the JSON body's, or in a stream the
    /// `message_start` event's message's), read as [`Call::usage`] reads.
    pub fn response_id(&self) -> Option<String> {
        let answer = self.answer.as_ref()?;
        let (text, cut) = decoded(&answer.headers, &answer.body, USAGE_TEXT_LIMIT).ok()?;
        let text = String::from_utf8_lossy(&text);
        if sse::looks_like_stream(&text) {
            return sse::data(&text).find_map(|payload| {
                let event = super::budget::parse_str(&payload).ok()?;
                (event.get("type")? == "message_start")
                    .then(|| event.pointer("/message/id")?.as_str().map(str::to_owned))
                    .flatten()
            });
        }
        if cut {
            return None;
        }
        let body = super::budget::parse_str(&text).ok()?;
        body.get("id")?.as_str().map(str::to_owned)
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

/// Room kept in a record for everything but its bodies (headers, URL, timings).
const LINE_SLACK: usize = 1024 * 1024;

/// The most of a decoded response body read for the usage on a call's line: parsing is bounded
/// by it (a 240 KB gzip body can decode to hundreds of megabytes).
const USAGE_TEXT_LIMIT: usize = 8 * 1024 * 1024;

/// A body with its `content-encoding` undone (gzip, deflate, zstd), at most `limit` bytes, and
/// whether there was more. `Err` names an encoding toolprism does not undo (`br`). The buffer
/// never grows past `limit`; memory that cannot be had ends the decoding as if cut there.
fn decoded<'a>(
    headers: &[(String, String)],
    body: &'a [u8],
    limit: usize,
) -> Result<(Cow<'a, [u8]>, bool), String> {
    let encoding = header(headers, "content-encoding")
        .unwrap_or("identity")
        .trim()
        .to_ascii_lowercase();
    let mut reader: Box<dyn Read + '_> = match encoding.as_str() {
        "" | "identity" => {
            let kept = &body[..body.len().min(limit)];
            return Ok((Cow::Borrowed(kept), body.len() > limit));
        }
        "gzip" | "x-gzip" => Box::new(flate2::read::MultiGzDecoder::new(body)),
        "deflate" => Box::new(flate2::read::ZlibDecoder::new(body)),
        "zstd" => Box::new(zstd::stream::read::Decoder::new(body).map_err(|e| e.to_string())?),
        other => return Err(other.to_owned()),
    };
    let mut out: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        // A cut-off stream decodes as far as it came: what it holds is still worth keeping.
        let n = match reader.read(&mut chunk) {
            Ok(0) | Err(_) => return Ok((Cow::Owned(out), false)),
            Ok(n) => n,
        };
        let take = n.min(limit - out.len());
        if !grow(&mut out, take, limit) {
            return Ok((Cow::Owned(out), true));
        }
        out.extend_from_slice(&chunk[..take]);
        if take < n {
            return Ok((Cow::Owned(out), true));
        }
    }
}

/// Make room in `buffer` for `more` bytes, doubling as a vector does but never past `limit`;
/// `false` when the memory cannot be had (the caller keeps what it has).
pub fn grow(buffer: &mut Vec<u8>, more: usize, limit: usize) -> bool {
    let need = buffer.len().saturating_add(more);
    if need <= buffer.capacity() {
        return true;
    }
    let target = need
        .max(buffer.capacity().saturating_mul(2))
        .min(limit.max(need));
    buffer.try_reserve_exact(target - buffer.len()).is_ok()
}

/// Write a body's fields in a record, each after a comma: `body` (JSON, copied as it was sent
/// but for its line breaks), or `body_raw` (an event stream or other
/// text), and `body_encoding` / `body_truncated` / `body_bytes` where they apply. At most
/// `room` bytes of the body are kept (decoded); how many were.
fn write_body(
    out: &mut dyn Write,
    headers: &[(String, String)],
    body: &[u8],
    truncated: bool,
    room: usize,
) -> io::Result<usize> {
    if body.is_empty() {
        if truncated {
            out.write_all(b",\"body_truncated\":true")?;
        }
        return Ok(0);
    }
    let (text, cut) = match decoded(headers, body, room) {
        Ok(found) => found,
        Err(encoding) => {
            if truncated {
                out.write_all(b",\"body_truncated\":true")?;
            }
            out.write_all(b",\"body_encoding\":")?;
            serde_json::to_writer(&mut *out, &encoding)?;
            write!(out, ",\"body_bytes\":{}", body.len())?;
            return Ok(0);
        }
    };
    if truncated || cut {
        out.write_all(b",\"body_truncated\":true")?;
    }
    let json = std::str::from_utf8(&text)
        .ok()
        .filter(|t| !sse::looks_like_stream(t))
        .filter(|t| serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok());
    match json {
        Some(json) => {
            out.write_all(b",\"body\":")?;
            write_on_one_line(out, json)?;
        }
        None => {
            out.write_all(b",\"body_raw\":")?;
            write_string(out, &text)?;
        }
    }
    Ok(text.len())
}

/// Valid JSON text on one line: its line breaks are white space between tokens (JSON allows
/// none inside a string), so they are left out.
fn write_on_one_line(out: &mut dyn Write, json: &str) -> io::Result<()> {
    for line in json.split('\n') {
        for part in line.split('\r') {
            out.write_all(part.as_bytes())?;
        }
    }
    Ok(())
}

/// Bytes as a JSON string, invalid UTF-8 written as U+FFFD (copied only then).
fn write_string(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    serde_json::to_writer(out, &String::from_utf8_lossy(bytes))?;
    Ok(())
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
        let file = self
            .file
            .lock()
            .map_err(|_| io::Error::other("the trace's lock is poisoned"))?;
        let mut out = BufWriter::with_capacity(256 * 1024, &*file);
        call.write_line(&mut out)?;
        out.write_all(b"\n")?;
        out.flush()
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
            "cf-aig-authorization",
            "x-authorization",
            "Authentication",
            "x-claude-code-session-id",
            "x-amz-credential",
            "X-Signature",
            "x-db-password",
            "sig",
            "x-ratelimit-token",
            "anthropic-ratelimit-tokens-key",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "content-type",
            "anthropic-version",
            "x-ratelimit-remaining-tokens",
            "anthropic-ratelimit-input-tokens-remaining",
            "anthropic-beta",
            "anthropic-version",
            "x-claude-code-agent-id",
            "alt",
            "user-agent",
            "keep-alive",
            "x-stainless-retry-count",
            "request-id",
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
            request_body: br#"{"model":"m","messages":[],"tools":[]}"#.to_vec().into(),
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

    /// A body's fields as written, parsed back.
    fn fields(headers: &[(String, String)], body: &[u8], room: usize) -> Map<String, Value> {
        let mut out = b"{\"x\":0".to_vec();
        write_body(&mut out, headers, body, false, room).unwrap();
        out.push(b'}');
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn gzip_bodies_are_recorded_decoded() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(br#"{"usage":{"input_tokens":5}}"#).unwrap();
        let body = gz.finish().unwrap();
        let headers = vec![("Content-Encoding".to_owned(), "gzip".to_owned())];
        let fields = fields(&headers, &body, 1000);
        assert_eq!(fields["body"]["usage"]["input_tokens"], 5);
        let br = fields_of_br();
        assert_eq!(br["body_encoding"], "br");
        assert_eq!(br["body_bytes"], 2);
    }

    fn fields_of_br() -> Map<String, Value> {
        fields(&[("content-encoding".into(), "br".into())], b"xx", 1000)
    }

    /// JSON is copied as sent, on one line; text is escaped; what passes the room is cut and
    /// marked.
    #[test]
    fn bodies_are_copied_once_and_cut_at_the_room() {
        let pretty = "{\n  \"a\": \"x y\\\" \\n\",\n\t\"b\": [1, 2]\n}";
        let mut out = Vec::new();
        write_body(&mut out, &[], pretty.as_bytes(), false, 1000).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            ",\"body\":{  \"a\": \"x y\\\" \\n\",\t\"b\": [1, 2]}"
        );
        let text = b"data: {\"q\":\"\x01\"}\n\n\xff";
        let written = fields(&[], text, 1000);
        assert_eq!(written["body_raw"], "data: {\"q\":\"\u{1}\"}\n\n\u{fffd}");
        let cut = fields(&[], br#"{"a":"0123456789"}"#, 8);
        assert_eq!(cut["body_truncated"], true);
        assert_eq!(cut["body_raw"], "{\"a\":\"01");
        // A small gzip body that decodes huge keeps what fits, marked, and gives no usage.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(b"[").unwrap();
        for _ in 0..(4 * 1024 * 1024) {
            gz.write_all(b"[],").unwrap();
        }
        gz.write_all(b"[]]").unwrap();
        let bomb = gz.finish().unwrap();
        assert!(bomb.len() < 100_000, "{}", bomb.len());
        let headers = vec![("content-encoding".to_owned(), "gzip".to_owned())];
        let kept = fields(&headers, &bomb, 1024);
        assert_eq!(kept["body_truncated"], true);
        assert_eq!(kept["body_raw"].as_str().map(str::len), Some(1024));
        let call = Call {
            answer: Some(Answer {
                status: 200,
                headers,
                body: bomb,
                truncated: false,
            }),
            ..Call::default()
        };
        assert_eq!(call.usage(), None, "12 MiB decoded is past the usage limit");
    }

    #[test]
    fn buffers_grow_no_further_than_their_limit() {
        let mut buffer = Vec::new();
        for _ in 0..100 {
            assert!(grow(&mut buffer, 1000, 50_000));
            buffer.extend_from_slice(&[0; 1000]);
            if buffer.len() >= 50_000 {
                break;
            }
        }
        assert_eq!(buffer.capacity(), 50_000);
    }
}
