//! Go's httprr traces (`httprr trace v1`: golang.org/x/oscar's recorder, and langchaingo's and
//! other Go LLM libraries' test data): after that first line, each record is a line `N M`, then
//! the request as sent on the wire (N bytes) and its response (M bytes), raw HTTP/1 text.
//!
//! Each record is parsed with `httparse` and read as a cassette interaction would be
//! ([`super::cassette`]): the same classification, bodies, usage and `Date` header.

use serde_json::{Map, Value};

use super::cassette::bytes_value;
use crate::error::LoadError;

/// The first line of every httprr file.
pub(crate) const MAGIC: &[u8] = b"httprr trace v1";

/// Most headers one message may have.
const MAX_HEADERS: usize = 256;

/// Whether a first line opens an httprr trace.
pub(crate) fn is_httprr(first_line: &[u8]) -> bool {
    first_line.trim_ascii_end() == MAGIC
}

/// The records of an httprr file as a cassette document (`{"interactions": [...]}`). A record
/// that is not HTTP, or a file cut inside a record, is an error naming the record.
pub(crate) fn document(text: &[u8]) -> Result<Value, LoadError> {
    let mut at = text
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |n| n + 1);
    let mut interactions = Vec::new();
    while at < text.len() {
        let number = interactions.len() + 1;
        let bad = |problem: String| LoadError::BadRecord {
            at: format!("record {number}"),
            problem,
        };
        let end = text[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |n| at + n);
        let (request_len, response_len) = lengths(&text[at..end])
            .ok_or_else(|| bad("its first line is not two byte counts (`N M`)".to_owned()))?;
        let start = end + 1;
        let left = text.len().saturating_sub(start);
        if request_len.saturating_add(response_len) > left {
            return Err(bad(format!(
                "cut short: it claims {} bytes and {left} are left",
                request_len.saturating_add(response_len)
            )));
        }
        let request = &text[start..start + request_len];
        let response = &text[start + request_len..start + request_len + response_len];
        interactions.push(interaction(request, response).map_err(bad)?);
        at = start + request_len + response_len;
    }
    let mut document = Map::new();
    document.insert("interactions".into(), Value::Array(interactions));
    Ok(Value::Object(document))
}

/// `N M`: the request's and the response's lengths.
fn lengths(line: &[u8]) -> Option<(usize, usize)> {
    let line = std::str::from_utf8(line).ok()?;
    let mut parts = line.split_ascii_whitespace();
    let n = parts.next()?.parse().ok()?;
    let m = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((n, m))
}

/// One record as a cassette interaction: `request.{method, uri, headers, body}`,
/// `response.{status.code, headers, body.string}`.
fn interaction(request: &[u8], response: &[u8]) -> Result<Value, String> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    let offset = match parsed.parse(request) {
        Ok(httparse::Status::Complete(offset)) => offset,
        Ok(httparse::Status::Partial) => return Err("the request's head is cut short".into()),
        Err(e) => return Err(format!("the request is not HTTP ({e})")),
    };
    let header_map = header_map(parsed.headers);
    let target = parsed.path.unwrap_or("/");
    // The target as written: absolute (`https://host/path`, what httprr records) or a path
    // under the `Host` header.
    let uri = if target.starts_with('/') {
        let host = super::record::header(&header_map, "host").unwrap_or_default();
        format!("https://{host}{target}")
    } else {
        target.to_owned()
    };
    let body = message_body(&header_map, &request[offset..])?;
    let mut out = Map::new();
    out.insert("method".into(), Value::from(parsed.method.unwrap_or("")));
    out.insert("uri".into(), Value::String(uri));
    out.insert("headers".into(), header_map);
    if !body.is_empty() {
        out.insert("body".into(), bytes_value(body));
    }
    let mut interaction = Map::new();
    interaction.insert("request".into(), Value::Object(out));
    if !response.is_empty() {
        interaction.insert("response".into(), response_value(response)?);
    }
    Ok(Value::Object(interaction))
}

/// A response: `status.code`, headers and `body.string`. HTTP/2's status line (`HTTP/2.0 200
/// OK`, as Go writes a response that came over HTTP/2) is read as HTTP/1.1's: the parser knows
/// only HTTP/1, and the rest of the message is the same text.
fn response_value(response: &[u8]) -> Result<Value, String> {
    let mut owned;
    let mut response = response;
    for version in [b"HTTP/2.0 ".as_slice(), b"HTTP/2 "] {
        if let Some(rest) = response.strip_prefix(version) {
            owned = b"HTTP/1.1 ".to_vec();
            owned.extend_from_slice(rest);
            response = &owned;
            break;
        }
    }
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Response::new(&mut headers);
    let offset = match parsed.parse(response) {
        Ok(httparse::Status::Complete(offset)) => offset,
        Ok(httparse::Status::Partial) => return Err("the response's head is cut short".into()),
        Err(e) => return Err(format!("the response is not HTTP ({e})")),
    };
    let header_map = header_map(parsed.headers);
    let body = message_body(&header_map, &response[offset..])?;
    let mut status = Map::new();
    status.insert("code".into(), Value::from(parsed.code.unwrap_or(0)));
    let mut body_map = Map::new();
    body_map.insert("string".into(), bytes_value(body));
    let mut out = Map::new();
    out.insert("status".into(), Value::Object(status));
    out.insert("headers".into(), header_map);
    out.insert("body".into(), Value::Object(body_map));
    Ok(Value::Object(out))
}

/// Headers as a cassette keeps them: each name with its values in a list.
fn header_map(headers: &[httparse::Header<'_>]) -> Value {
    let mut map = Map::new();
    for header in headers {
        let value = Value::String(String::from_utf8_lossy(header.value).into_owned());
        match map
            .entry(header.name.to_owned())
            .or_insert_with(|| Value::Array(Vec::new()))
        {
            Value::Array(values) => values.push(value),
            _ => unreachable!("every entry is a list"),
        }
    }
    Value::Object(map)
}

/// A message's body: its chunks joined when `Transfer-Encoding: chunked`, else the bytes after
/// the head.
fn message_body(headers: &Value, rest: &[u8]) -> Result<Vec<u8>, String> {
    let chunked = super::record::header(headers, "transfer-encoding")
        .is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
    if !chunked {
        return Ok(rest.to_vec());
    }
    let mut body = Vec::new();
    let mut at = 0;
    loop {
        let (start, size) = match httparse::parse_chunk_size(&rest[at..]) {
            Ok(httparse::Status::Complete((start, size))) => (at + start, size),
            _ => return Err("a chunked body's chunk size is not readable".into()),
        };
        if size == 0 {
            return Ok(body);
        }
        let size = usize::try_from(size).map_err(|_| "a chunk larger than memory".to_owned())?;
        let end = start
            .checked_add(size)
            .filter(|&end| end <= rest.len())
            .ok_or_else(|| "a chunked body is cut short".to_owned())?;
        body.extend_from_slice(&rest[start..end]);
        // The chunk's data ends in CRLF.
        at = (end + 2).min(rest.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(request: &str, response: &str) -> String {
        format!("{} {}\n{request}{response}", request.len(), response.len())
    }

    #[test]
    fn records_are_read_as_interactions() {
        let request = "POST https://api.openai.com/v1/chat/completions HTTP/1.1\r\nHost: api.openai.com\r\nContent-Length: 13\r\n\r\n{\"model\":\"m\"}";
        let response = "HTTP/2.0 200 OK\r\nContent-Type: application/json\r\nDate: Tue, 17 Feb 2026 02:09:16 GMT\r\n\r\n{\"usage\":{}}";
        let chunked = "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n";
        let text = format!(
            "httprr trace v1\n{}{}",
            record(request, response),
            record(
                "GET /v1/models HTTP/1.1\r\nHost: example.com\r\n\r\n",
                chunked
            )
        );
        let document = document(text.as_bytes()).unwrap();
        let first = &document["interactions"][0];
        assert_eq!(first["request"]["method"], "POST");
        assert_eq!(
            first["request"]["uri"],
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(first["request"]["body"], "{\"model\":\"m\"}");
        assert_eq!(first["response"]["status"]["code"], 200);
        assert_eq!(first["response"]["body"]["string"], "{\"usage\":{}}");
        assert_eq!(
            first["response"]["headers"]["Date"][0],
            "Tue, 17 Feb 2026 02:09:16 GMT"
        );
        let second = &document["interactions"][1];
        assert_eq!(second["request"]["uri"], "https://example.com/v1/models");
        assert_eq!(second["response"]["status"]["code"], 500);
        assert_eq!(second["response"]["body"]["string"], "{\"a\":1}");
    }

    #[test]
    fn a_bad_record_is_named() {
        let cut = "httprr trace v1\n10 10\nPOST / HTT";
        assert_eq!(
            document(cut.as_bytes()).unwrap_err().to_string(),
            "record 1: cut short: it claims 20 bytes and 10 are left"
        );
        let not_lengths = "httprr trace v1\nhello\n";
        assert!(
            document(not_lengths.as_bytes())
                .unwrap_err()
                .to_string()
                .starts_with("record 1: its first line is not two byte counts")
        );
        let not_http = format!("httprr trace v1\n{}", record("hello there\r\n\r\n", ""));
        assert!(
            document(not_http.as_bytes())
                .unwrap_err()
                .to_string()
                .starts_with("record 1: the request is not HTTP")
        );
    }
}
