//! The legacy HTTP+SSE transport (protocol 2024-11-05): a `GET` opens an event stream whose
//! first `endpoint` event names the URL to `POST` each JSON-RPC message to; the answers come
//! back as `message` events on the stream. The stream is a ureq body read by a thread of its
//! own, which ends when the listing no longer wants its events, or by the deadline at the
//! latest.

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::{self, Receiver, SyncSender};

use serde_json::{Value, json};

use super::{
    Limits, Listing, MAX_MESSAGE_BYTES, Stop, answer, check_url, converse, headers_of, post,
};
use crate::mcp::config::RemoteServer;

/// The protocol version of the HTTP+SSE transport: a server that speaks only it may know no
/// later one.
const SSE_PROTOCOL_VERSION: &str = "2024-11-05";

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

/// An open event stream: its events.
struct Stream {
    events: Receiver<Received>,
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
        check_url(&server.url).map_err(Stop::Failed)?;
        let stream = open(&server.url, &headers, limits)?;
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

/// The `GET` that opens the stream, through ureq (rustls for `https://`) on a thread of its
/// own, within the limits.
fn open(url: &str, headers: &[(String, String)], limits: &Limits) -> Result<Stream, Stop> {
    let left = limits.left()?;
    let (url, headers) = (url.to_owned(), headers.to_vec());
    limits.within(move || open_within(&url, &headers, left))
}

/// [`open`]'s call; the stream's reading ends by `left` at the latest.
fn open_within(
    url: &str,
    headers: &[(String, String)],
    left: std::time::Duration,
) -> Result<Stream, Stop> {
    let mut request = super::agent(left).get(url);
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let response = request
        .call()
        .map_err(|e| super::failure("could not reach the server", e))?;
    let status = response.status().as_u16();
    check_stream(status, &headers_of(response.headers()))?;
    let reader = response.into_body().into_reader();
    let (sender, events) = mpsc::sync_channel(EVENTS_AHEAD);
    std::thread::spawn(move || read_events(reader, &sender));
    Ok(Stream { events })
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
    fn events_are_read_across_lines() {
        let body = ": hi\nevent: endpoint\ndata: /m?s=1\n\ndata: {\"a\":1}\r\ndata: 2\r\n\r\nevent:x\r\n\r\n";
        let (sender, events) = mpsc::sync_channel(16);
        read_events(body.as_bytes(), &sender);
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
