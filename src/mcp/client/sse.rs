//! The legacy HTTP+SSE transport (protocol 2024-11-05): a `GET` opens an event stream whose
//! first `endpoint` event names the URL to `POST` each JSON-RPC message to; the answers come
//! back as `message` events on the stream. The stream is read by a thread of its own; over
//! `http://` it is a TCP stream of toolprism's own (shut down when the listing ends, so the
//! thread ends with it), over `https://` a ureq body (ended by the deadline at the latest).

use std::io::{BufRead, BufReader, Read};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc::{self, Receiver, SyncSender};

use serde_json::{Value, json};

use super::{
    Limits, Listing, MAX_MESSAGE_BYTES, Stop, answer, connect, converse, head_of, post, split_url,
    write_within,
};
use crate::mcp::config::RemoteServer;

/// The protocol version of the HTTP+SSE transport: a server that speaks only it may know no
/// later one.
const SSE_PROTOCOL_VERSION: &str = "2024-11-05";

/// Most bytes of a response's head.
const MAX_HEAD_BYTES: usize = 64 << 10;

/// Events the stream's reader may hold before toolprism takes them (a server that floods its
/// stream waits, rather than filling memory).
const EVENTS_AHEAD: usize = 4;

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Event {
    /// Its `event:` field (`message` when it has none).
    name: String,
    /// Its `data:` lines joined with `\n`.
    data: String,
}

/// What the stream's reader sends: an event, or why the stream cannot be read on.
type Received = Result<Event, String>;

/// An open event stream: its events, and the socket to shut down when done (plain HTTP).
struct Stream {
    events: Receiver<Received>,
    socket: Option<TcpStream>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        // The reader thread is blocked on this socket: shutting it down ends the thread.
        if let Some(socket) = &self.socket {
            let _ = socket.shutdown(Shutdown::Both);
        }
    }
}

impl Stream {
    /// The next event, within the deadline, unless the user cancels.
    fn next(&self, limits: &Limits) -> Result<Event, Stop> {
        match limits.receive(&self.events)? {
            Some(Ok(event)) => Ok(event),
            Some(Err(problem)) => Err(Stop::Failed(problem)),
            None => Err(Stop::Failed("the server closed its event stream".into())),
        }
    }
}

/// List a legacy HTTP+SSE server's tools (URL and headers already expanded), then close its
/// event stream.
pub fn list_sse(server: &RemoteServer, limits: &Limits) -> Listing {
    let mut session = match SseSession::open(server, limits) {
        Ok(session) => session,
        Err(stop) => return stop.into_listing(Vec::new(), 0),
    };
    converse(&mut session, SSE_PROTOCOL_VERSION, limits)
}

struct SseSession {
    stream: Stream,
    endpoint: String,
    headers: Vec<(String, String)>,
}

impl SseSession {
    /// Open the event stream and wait for its `endpoint` event.
    fn open(server: &RemoteServer, limits: &Limits) -> Result<SseSession, Stop> {
        let mut headers = vec![
            ("Accept".to_owned(), "text/event-stream".to_owned()),
            ("Cache-Control".to_owned(), "no-cache".to_owned()),
        ];
        headers.extend(server.headers.iter().cloned());
        let stream = if server.url.starts_with("https://") {
            open_tls(&server.url, &headers, limits)?
        } else {
            open_plain(&server.url, &headers, limits)?
        };
        let endpoint = loop {
            let event = stream.next(limits)?;
            if event.name == "endpoint" {
                break resolve(&server.url, event.data.trim()).map_err(Stop::Failed)?;
            }
        };
        Ok(SseSession {
            stream,
            endpoint,
            headers: server.headers.clone(),
        })
    }

    /// POST one message to the endpoint; the server's answer comes on the stream (a server
    /// that answers in the POST's body too is read there).
    fn send(&self, message: &Value, limits: &Limits) -> Result<Option<Value>, Stop> {
        let response = post(&self.endpoint, &self.headers, &message.to_string(), limits)?;
        if matches!(response.status, 401 | 403) {
            return Err(Stop::Auth(format!(
                "HTTP {}: the server needs authorization (OAuth is not run)",
                response.status
            )));
        }
        if (300..400).contains(&response.status) {
            return Err(super::redirected(
                response.status,
                response.header("location"),
            ));
        }
        if !(200..300).contains(&response.status) {
            return Err(Stop::Failed(format!("HTTP {}", response.status)));
        }
        Ok(serde_json::from_slice(&response.body).ok())
    }
}

impl super::Session for SseSession {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        limits: &Limits,
    ) -> Result<Value, Stop> {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Some(result) = self.send(&message, limits)?.and_then(|m| answer(&m, id)) {
            return result;
        }
        loop {
            let event = self.stream.next(limits)?;
            if event.name != "message" {
                continue;
            }
            let Ok(message) = serde_json::from_str::<Value>(&event.data) else {
                return Err(Stop::Failed(
                    "not MCP: an event's data is not JSON".to_owned(),
                ));
            };
            if let Some(result) = answer(&message, id) {
                return result;
            }
            // A request from the server (roots, sampling): refused, so it goes on.
            if let (Some(their), Some(_)) = (message.get("id"), message.get("method")) {
                let reply = json!({"jsonrpc": "2.0", "id": their, "error": {"code": -32601, "message": "not supported"}});
                self.send(&reply, limits)?;
            }
        }
    }

    fn notify(&mut self, method: &str, limits: &Limits) -> Result<(), Stop> {
        self.send(&json!({"jsonrpc": "2.0", "method": method}), limits)
            .map(|_| ())
    }
}

/// The endpoint an `endpoint` event names, resolved against the stream's URL. It must be on
/// the stream's own origin: the config's headers (keys, tokens) go with every POST.
fn resolve(base: &str, endpoint: &str) -> Result<String, String> {
    let origin_end = base
        .find("://")
        .map(|i| i + 3)
        .and_then(|start| base[start..].find('/').map(|i| start + i))
        .unwrap_or(base.len());
    let origin = &base[..origin_end];
    if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        let same = endpoint
            .strip_prefix(origin)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '?']));
        return if same {
            Ok(endpoint.to_owned())
        } else {
            Err("the server's endpoint is on another origin: not followed".to_owned())
        };
    }
    if endpoint.contains("://") || endpoint.starts_with("//") {
        return Err("the server's endpoint is not an http(s) URL".to_owned());
    }
    let path = &base[origin_end..];
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    Ok(if endpoint.starts_with('/') {
        format!("{origin}{endpoint}")
    } else if endpoint.starts_with('?') {
        format!("{origin}{path}{endpoint}")
    } else {
        // Relative to the stream's folder.
        let folder = path.rfind('/').map_or("/", |i| &path[..=i]);
        format!("{origin}{folder}{endpoint}")
    })
}

/// The `GET` that opens the stream over a TCP stream of toolprism's own (`http://`).
fn open_plain(url: &str, headers: &[(String, String)], limits: &Limits) -> Result<Stream, Stop> {
    let (host, port, path) = split_url(url).map_err(Stop::Failed)?;
    let mut socket = connect(&host, port, limits)?;
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    write_within(&mut socket, request.as_bytes(), limits)?;
    let (head, rest) = read_head(&mut socket, limits)?;
    let (status, headers) = head_of(&head)?;
    check_stream(status, &headers)?;
    let _ = socket.set_read_timeout(None);
    let reader = std::io::Cursor::new(rest).chain(
        socket
            .try_clone()
            .map_err(|e| Stop::Failed(format!("could not read: {e}")))?,
    );
    let chunked =
        header(&headers, "transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked"));
    let (sender, events) = mpsc::sync_channel(EVENTS_AHEAD);
    if chunked {
        std::thread::spawn(move || read_events(Chunked::new(reader), &sender));
    } else {
        std::thread::spawn(move || read_events(reader, &sender));
    }
    Ok(Stream {
        events,
        socket: Some(socket),
    })
}

/// A response's head (through the blank line) and the body bytes read with it, within the
/// deadline and [`MAX_HEAD_BYTES`].
fn read_head(socket: &mut TcpStream, limits: &Limits) -> Result<(Vec<u8>, Vec<u8>), Stop> {
    let mut raw = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = raw.split_off(end + 4);
            return Ok((raw, rest));
        }
        if raw.len() > MAX_HEAD_BYTES {
            return Err(Stop::Failed("not HTTP: no header end".into()));
        }
        let _ = socket.set_read_timeout(Some(limits.tick()?));
        match socket.read(&mut buffer) {
            Ok(0) => return Err(Stop::Failed("not HTTP: no header end".into())),
            Ok(n) => raw.extend_from_slice(&buffer[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => {
                return Err(Stop::Failed(format!(
                    "could not read: {}",
                    crate::error::io_reason(&e)
                )));
            }
        }
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The answer to the `GET` must be a `2xx` event stream.
fn check_stream(status: u16, headers: &[(String, String)]) -> Result<(), Stop> {
    if matches!(status, 401 | 403) {
        return Err(Stop::Auth(format!(
            "HTTP {status}: the server needs authorization (OAuth is not run)"
        )));
    }
    if (300..400).contains(&status) {
        return Err(super::redirected(status, header(headers, "location")));
    }
    if !(200..300).contains(&status) {
        return Err(Stop::Failed(format!(
            "HTTP {status} to the event stream's GET"
        )));
    }
    let kind = header(headers, "content-type").unwrap_or("");
    if !kind.starts_with("text/event-stream") {
        let shown: String = kind.chars().take(60).collect();
        return Err(Stop::Failed(format!(
            "not an SSE server: the GET answered `{shown}`, not an event stream"
        )));
    }
    Ok(())
}

/// The `GET` that opens the stream through ureq with rustls (`https://`): the whole call,
/// the stream's reading included, ends by the deadline at the latest.
fn open_tls(url: &str, headers: &[(String, String)], limits: &Limits) -> Result<Stream, Stop> {
    let left = limits.left()?;
    let (url, headers) = (url.to_owned(), headers.to_vec());
    limits.within(move || open_tls_within(&url, &headers, left))
}

/// [`open_tls`]'s call, on a thread of its own, ended by `left` at the latest.
fn open_tls_within(
    url: &str,
    headers: &[(String, String)],
    left: std::time::Duration,
) -> Result<Stream, Stop> {
    let mut request = super::agent(left).get(url);
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let response = request.call().map_err(|e| match e {
        ureq::Error::Timeout(_) => Stop::Timeout,
        other => Stop::Failed(format!("could not reach the server: {other}")),
    })?;
    let status = response.status().as_u16();
    let got: Vec<(String, String)> = response
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                v.to_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    check_stream(status, &got)?;
    let reader = response.into_body().into_reader();
    let (sender, events) = mpsc::sync_channel(EVENTS_AHEAD);
    std::thread::spawn(move || read_events(reader, &sender));
    Ok(Stream {
        events,
        socket: None,
    })
}

/// Each event of an SSE body, until it ends, the receiver is gone, or an event is over
/// [`MAX_MESSAGE_BYTES`].
fn read_events(body: impl Read, sender: &SyncSender<Received>) {
    let mut reader = BufReader::new(body);
    let mut line = Vec::new();
    let mut name = String::new();
    let mut data = String::new();
    let mut has_data = false;
    loop {
        line.clear();
        match (&mut reader)
            .take(MAX_MESSAGE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if line.len() + data.len() > MAX_MESSAGE_BYTES {
            let _ = sender.send(Err(format!("an event over {MAX_MESSAGE_BYTES} bytes")));
            return;
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if text.is_empty() {
            if has_data {
                let event = Event {
                    name: if name.is_empty() {
                        "message".to_owned()
                    } else {
                        std::mem::take(&mut name)
                    },
                    data: std::mem::take(&mut data),
                };
                if sender.send(Ok(event)).is_err() {
                    return;
                }
            }
            name.clear();
            has_data = false;
            continue;
        }
        let (field, value) = text.split_once(':').unwrap_or((text, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => value.clone_into(&mut name),
            "data" => {
                if has_data {
                    data.push('\n');
                }
                data.push_str(value);
                has_data = true;
            }
            // Comments (`: ping`), `id` and `retry` mean nothing here.
            _ => {}
        }
    }
}

/// A chunked body (`Transfer-Encoding: chunked`) read as the bytes it carries, as they come.
struct Chunked<R> {
    inner: BufReader<R>,
    left: usize,
    done: bool,
}

impl<R: Read> Chunked<R> {
    fn new(inner: R) -> Chunked<R> {
        Chunked {
            inner: BufReader::new(inner),
            left: 0,
            done: false,
        }
    }
}

impl<R: Read> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.left == 0 {
            if self.done {
                return Ok(0);
            }
            // The size line (after the blank line that ends the previous chunk).
            let mut line = Vec::new();
            let n = (&mut self.inner).take(1024).read_until(b'\n', &mut line)?;
            if n == 0 {
                self.done = true;
                return Ok(0);
            }
            let text = String::from_utf8_lossy(&line);
            let size = text.split(';').next().unwrap_or("").trim();
            if size.is_empty() {
                continue;
            }
            let size = usize::from_str_radix(size, 16).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::InvalidData, "bad chunk size")
            })?;
            if size == 0 {
                self.done = true;
                return Ok(0);
            }
            self.left = size;
        }
        let limit = self.left.min(buf.len());
        let n = self.inner.read(&mut buf[..limit])?;
        if n == 0 {
            self.done = true;
        }
        self.left -= n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_resolve_on_the_stream_origin_only() {
        let base = "http://127.0.0.1:8080/app/sse?x=1";
        assert_eq!(
            resolve(base, "/messages?session_id=a").unwrap(),
            "http://127.0.0.1:8080/messages?session_id=a"
        );
        assert_eq!(
            resolve(base, "messages?s=1").unwrap(),
            "http://127.0.0.1:8080/app/messages?s=1"
        );
        assert_eq!(
            resolve(base, "?s=1").unwrap(),
            "http://127.0.0.1:8080/app/sse?s=1"
        );
        assert_eq!(
            resolve(base, "http://127.0.0.1:8080/m").unwrap(),
            "http://127.0.0.1:8080/m"
        );
        assert!(resolve(base, "http://127.0.0.1:80800/m").is_err());
        assert!(resolve(base, "http://evil.example/m").is_err());
        assert!(resolve(base, "//evil.example/m").is_err());
        assert_eq!(resolve("http://h:1", "m").unwrap(), "http://h:1/m");
    }

    #[test]
    fn events_are_read_across_chunks_and_lines() {
        let pieces = [
            ": hi\n",
            "event: endpoint\ndata: /m?s=1\n\n",
            "data: {\"a\":",
            "1}\r\ndata: 2\r\n\r\nevent:x\r\n\r\n",
        ];
        let mut body = String::new();
        for piece in pieces {
            body.push_str(&format!("{:x};ext=1\r\n{piece}\r\n", piece.len()));
        }
        body.push_str("0\r\n\r\n");
        let (sender, events) = mpsc::sync_channel(16);
        read_events(Chunked::new(body.as_bytes()), &sender);
        drop(sender);
        let got: Vec<Event> = events.iter().map(Result::unwrap).collect();
        assert_eq!(
            got,
            vec![
                Event {
                    name: "endpoint".into(),
                    data: "/m?s=1".into()
                },
                Event {
                    name: "message".into(),
                    data: "{\"a\":1}\n2".into()
                },
            ]
        );
    }
}
