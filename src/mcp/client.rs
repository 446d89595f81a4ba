//! Reaching a configured server and listing its tools: `initialize`,
//! `notifications/initialized`, every page of `tools/list`, then the end of the server (its
//! whole process group, for a stdio server). Feature `mcp`. A stdio server is a child process
//! in a process group of its own ([`stdio`]); a Streamable HTTP server is spoken to through
//! ureq (rustls for `https://`), each call on a thread of its own; a legacy HTTP+SSE server
//! through [`sse`] (an event stream, and POSTs to its endpoint). Every read and write is
//! bounded in bytes and by the server's deadline, and a cancel flag (Ctrl-C, SIGTERM) ends the
//! wait at once; the process group is ended on every path out (a guard's `Drop`).

use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::config::{RemoteServer, shown_url};

mod sse;
mod stdio;
pub use sse::list_sse;
pub use stdio::list_stdio;

/// The protocol version toolprism asks for.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// Most bytes one message (a line on stdio, a response over HTTP) may hold.
pub const MAX_MESSAGE_BYTES: usize = 32 << 20;

/// Most `tools/list` pages followed before the server is taken to loop.
pub const MAX_PAGES: usize = 1000;

/// Most bytes of tools one server's listing may hold, all its pages together: a capture's
/// limit, since they become one request.
pub const MAX_LISTING_BYTES: usize = crate::capture::MAX_CAPTURE_BYTES as usize;

/// How a listing ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListStatus {
    /// Every page listed.
    Ok,
    /// It did not start, exited, answered with an error, or spoke something else.
    Failed,
    /// Start-up and listing took longer than the timeout.
    Timeout,
    /// It needs authorization (HTTP 401/403): toolprism does not run OAuth.
    Auth,
}

impl ListStatus {
    /// `ok`, `failed`, `timeout` or `auth`.
    pub fn id(self) -> &'static str {
        match self {
            ListStatus::Ok => "ok",
            ListStatus::Failed => "failed",
            ListStatus::Timeout => "timeout",
            ListStatus::Auth => "auth",
        }
    }
}

/// What listing one server gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// How it ended.
    pub status: ListStatus,
    /// Every tool of every page (those listed before a failure too).
    pub tools: Vec<Value>,
    /// Pages read.
    pub pages: usize,
    /// Why it failed (unsanitized: server text; the caller sanitizes before printing).
    pub error: Option<String>,
    /// The last line the server wrote to its standard error.
    pub stderr: Option<String>,
    /// A server configured as Streamable HTTP was listed over the legacy HTTP+SSE transport
    /// ([`list_http_then_sse`]).
    pub fell_back_to_sse: bool,
}

impl Listing {
    fn failed(status: ListStatus, error: impl Into<String>) -> Listing {
        Listing {
            status,
            tools: Vec::new(),
            pages: 0,
            error: Some(error.into()),
            stderr: None,
            fell_back_to_sse: false,
        }
    }
}

/// What ends a wait early: the deadline, or the user (Ctrl-C, SIGTERM).
pub struct Limits<'a> {
    /// When the server's start-up and listing must be done.
    pub deadline: Instant,
    /// Whether to stop now.
    pub cancelled: &'a (dyn Fn() -> bool + Sync),
    /// Most bytes of tools (as JSON) the whole listing may hold ([`MAX_LISTING_BYTES`]).
    pub budget: usize,
}

impl Limits<'_> {
    /// The time left before the deadline, or [`Stop::Timeout`] when none is.
    fn left(&self) -> Result<Duration, Stop> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(Stop::Timeout)
        } else {
            Ok(left)
        }
    }

    /// The time to wait before looking again: at most a [`TICK`], so a cancel is seen soon;
    /// [`Stop::Cancelled`] or [`Stop::Timeout`] when it is time to stop.
    fn tick(&self) -> Result<Duration, Stop> {
        if (self.cancelled)() {
            return Err(Stop::Cancelled);
        }
        Ok(self.left()?.min(TICK))
    }

    /// The result of blocking work (an address lookup, a connect, a TLS call) run on a thread
    /// of its own, within the limits: a cancel or the deadline ends the wait at once, and the
    /// thread ends on its own (each such call is bounded by the deadline, or by the lookup).
    fn within<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, Stop> + Send + 'static,
    ) -> Result<T, Stop> {
        let (sender, result) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = sender.send(work());
        });
        self.receive(&result)?
            .unwrap_or_else(|| Err(Stop::Failed("the connection's thread failed".into())))
    }

    /// The next message on `channel` within the limits; `None` when its sender is gone.
    fn receive<T>(&self, channel: &Receiver<T>) -> Result<Option<T>, Stop> {
        loop {
            match channel.recv_timeout(self.tick()?) {
                Ok(message) => return Ok(Some(message)),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
            }
        }
    }
}

/// Why a step stopped.
enum Stop {
    Timeout,
    Cancelled,
    Failed(String),
    Auth(String),
}

impl Stop {
    fn into_listing(self, tools: Vec<Value>, pages: usize) -> Listing {
        let (status, error) = match self {
            Stop::Timeout => (
                ListStatus::Timeout,
                "no answer within the timeout".to_owned(),
            ),
            Stop::Cancelled => (ListStatus::Failed, "interrupted".to_owned()),
            Stop::Failed(e) => (ListStatus::Failed, e),
            Stop::Auth(e) => (ListStatus::Auth, e),
        };
        Listing {
            status,
            tools,
            pages,
            error: Some(error),
            stderr: None,
            fell_back_to_sse: false,
        }
    }
}

/// One JSON-RPC exchange: send a request, get its result.
trait Session {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        limits: &Limits,
    ) -> Result<Value, Stop>;
    fn notify(&mut self, method: &str, limits: &Limits) -> Result<(), Stop>;
}

/// The conversation every transport has: initialize, initialized, every page of tools/list.
fn converse(session: &mut dyn Session, version: &str, limits: &Limits) -> Listing {
    let init = json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "toolprism", "version": env!("CARGO_PKG_VERSION")},
    });
    if let Err(stop) = session.request(1, "initialize", init, limits) {
        return stop.into_listing(Vec::new(), 0);
    }
    if let Err(stop) = session.notify("notifications/initialized", limits) {
        return stop.into_listing(Vec::new(), 0);
    }
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    let mut held = 0usize;
    for page in 0..MAX_PAGES {
        let params = cursor
            .as_ref()
            .map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let result = match session.request(2 + page as u64, "tools/list", params, limits) {
            Ok(result) => result,
            Err(stop) => return stop.into_listing(tools, page),
        };
        let Some(listed) = result.get("tools").and_then(Value::as_array) else {
            return Stop::Failed("`tools/list` answered without a `tools` array".into())
                .into_listing(tools, page);
        };
        held += listed.iter().map(|t| t.to_string().len()).sum::<usize>();
        if held > limits.budget {
            return Stop::Failed(format!(
                "its tools passed {} bytes at page {}: toolprism's limit for one server's listing",
                crate::text::thousands(limits.budget),
                page + 1
            ))
            .into_listing(tools, page + 1);
        }
        tools.extend(listed.iter().cloned());
        cursor = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        if cursor.is_none() {
            return Listing {
                status: ListStatus::Ok,
                tools,
                pages: page + 1,
                error: None,
                stderr: None,
                fell_back_to_sse: false,
            };
        }
    }
    Stop::Failed(format!("more than {MAX_PAGES} pages of tools")).into_listing(tools, MAX_PAGES)
}

/// The answer to request `id` in a JSON-RPC message, if it is one.
fn answer(message: &Value, id: u64) -> Option<Result<Value, Stop>> {
    if message.get("id").and_then(Value::as_u64) != Some(id) || message.get("method").is_some() {
        return None;
    }
    if let Some(error) = message.get("error") {
        let text = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("an error without a message");
        return Some(Err(Stop::Failed(format!("the server answered: {text}"))));
    }
    Some(Ok(message.get("result").cloned().unwrap_or(Value::Null)))
}

/// How often a wait looks at the cancel flag.
const TICK: Duration = Duration::from_millis(50);

/// Whether `url` is one toolprism reaches: `http://` or `https://`, with a port that is a
/// number when it names one (the message shows the URL without its secrets).
fn check_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| format!("not an http URL: {}", shown_url(url)))?;
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    if host.is_empty() {
        return Err(format!("no host in {}", shown_url(url)));
    }
    // After the last colon, unless it is inside an IPv6 address's brackets.
    if let Some((_, port)) = host.rsplit_once(':').filter(|(_, p)| !p.contains(']'))
        && port.parse::<u16>().is_err()
    {
        return Err(format!("bad port in {}", shown_url(url)));
    }
    Ok(())
}

struct HttpSession {
    url: String,
    headers: Vec<(String, String)>,
    session_id: Option<String>,
    /// The HTTP status of the first POST (the `initialize`).
    first_status: Option<u16>,
}

impl HttpSession {
    /// POST one message; the JSON-RPC messages of the answer (a JSON body, or the events of
    /// an SSE body), reading until the one with `id` when there is one.
    fn post(
        &mut self,
        message: &Value,
        id: Option<u64>,
        limits: &Limits,
    ) -> Result<Vec<Value>, Stop> {
        let mut headers = vec![
            (
                "Accept".to_owned(),
                "application/json, text/event-stream".to_owned(),
            ),
            (
                "MCP-Protocol-Version".to_owned(),
                PROTOCOL_VERSION.to_owned(),
            ),
        ];
        if let Some(session) = &self.session_id {
            headers.push(("Mcp-Session-Id".to_owned(), session.clone()));
        }
        headers.extend(self.headers.iter().cloned());
        let response = post(&self.url, &headers, &message.to_string(), limits)?;
        self.first_status.get_or_insert(response.status);
        if matches!(response.status, 401 | 403) {
            return Err(Stop::Auth(format!(
                "HTTP {}: the server needs authorization (OAuth is not run)",
                response.status
            )));
        }
        if (300..400).contains(&response.status) {
            return Err(redirected(response.status, response.header("location")));
        }
        if !(200..300).contains(&response.status) {
            return Err(Stop::Failed(format!("HTTP {}", response.status)));
        }
        if let Some(session) = response.header("mcp-session-id") {
            self.session_id = Some(session.to_owned());
        }
        if id.is_none() || response.body.is_empty() {
            return Ok(Vec::new());
        }
        let text = String::from_utf8_lossy(&response.body);
        if response
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            let text = text.replace("\r\n", "\n");
            Ok(sse_data(&text)
                .filter_map(|data| serde_json::from_str(&data).ok())
                .collect())
        } else {
            serde_json::from_str::<Value>(&text)
                .map(|v| match v {
                    Value::Array(batch) => batch,
                    one => vec![one],
                })
                .map_err(|_| Stop::Failed("not MCP: the answer is not JSON".into()))
        }
    }
}

impl Session for HttpSession {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        limits: &Limits,
    ) -> Result<Value, Stop> {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let messages = self.post(&message, Some(id), limits)?;
        messages
            .iter()
            .find_map(|m| answer(m, id))
            .unwrap_or_else(|| Err(Stop::Failed(format!("no answer to `{method}`"))))
    }

    fn notify(&mut self, method: &str, limits: &Limits) -> Result<(), Stop> {
        self.post(&json!({"jsonrpc": "2.0", "method": method}), None, limits)
            .map(|_| ())
    }
}

/// One `POST` of a JSON body to `url` with these headers, within the limits: through ureq
/// (rustls for `https://`) on a thread of its own, so a cancel or the deadline ends the wait
/// at once whatever blocks (a lookup, a connect, a server that stops reading the request or
/// never answers); the call itself ends by the deadline at the latest.
fn post(
    url: &str,
    headers: &[(String, String)],
    body: &str,
    limits: &Limits,
) -> Result<Response, Stop> {
    check_url(url).map_err(Stop::Failed)?;
    let left = limits.left()?;
    let (url, headers, body) = (url.to_owned(), headers.to_vec(), body.to_owned());
    limits.within(move || post_within(&url, &headers, &body, left))
}

/// [`post`]'s call, ended by `left` at the latest; the answer read whole, within
/// [`MAX_MESSAGE_BYTES`].
fn post_within(
    url: &str,
    headers: &[(String, String)],
    body: &str,
    left: Duration,
) -> Result<Response, Stop> {
    let mut request = agent(left)
        .post(url)
        .header("Content-Type", "application/json");
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let mut response = request
        .send(body)
        .map_err(|e| failure("could not reach the server", e))?;
    let status = response.status().as_u16();
    let headers = headers_of(response.headers());
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_MESSAGE_BYTES as u64)
        .read_to_vec()
        .map_err(|e| failure("could not read the answer", e))?;
    Ok(Response {
        status,
        headers,
        body,
    })
}

/// A response's headers as (name, value) pairs.
fn headers_of(headers: &ureq::http::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                v.to_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// A ureq error as a step's end: its timeout is the deadline's; the rest a reason in words.
fn failure(doing: &str, error: ureq::Error) -> Stop {
    match error {
        ureq::Error::Timeout(_) => Stop::Timeout,
        ureq::Error::Io(e) => Stop::Failed(format!("{doing}: {}", crate::error::io_reason(&e))),
        ureq::Error::BodyExceedsLimit(_) => {
            Stop::Failed(format!("an answer over {MAX_MESSAGE_BYTES} bytes"))
        }
        other => {
            let text = other.to_string();
            let text = match text.rfind(" (os error ") {
                Some(at) if text.ends_with(')') => text[..at].to_owned(),
                _ => text,
            };
            Stop::Failed(format!("{doing}: {text}"))
        }
    }
}

/// The HTTP client for one call (`http://` and `https://`), ended by `left` at the latest. It follows no redirect: a
/// config's headers (keys, tokens) go to its own URL only, never to another origin, and a
/// redirect is a failure that says where it pointed ([`redirected`]).
pub(super) fn agent(left: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(left))
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}

/// The failure for a redirect (`3xx`), naming where it pointed without its secrets.
fn redirected(status: u16, location: Option<&str>) -> Stop {
    let to = location.map_or_else(String::new, |l| format!(" to {}", shown_url(l)));
    Stop::Failed(format!(
        "HTTP {status}: redirected{to}, not followed (the config's headers go to its own URL only)"
    ))
}

/// POST a JSON body to an `http://` or `https://` URL and read its JSON answer: the status and the
/// value (`Err`: the reason, one line). For the token-counting endpoint.
pub fn post_json(
    url: &str,
    headers: &[(String, String)],
    body: &str,
    limits: &Limits,
) -> Result<(u16, Value), String> {
    let response = post(url, headers, body, limits).map_err(|stop| match stop {
        Stop::Timeout => "no answer within the timeout".to_owned(),
        Stop::Cancelled => "interrupted".to_owned(),
        Stop::Failed(e) | Stop::Auth(e) => e,
    })?;
    let value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
    Ok((response.status, value))
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The `data` of each event of an SSE body (multi-line data joined with `\n`).
fn sse_data(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split("\n\n").filter_map(|event| {
        let lines: Vec<&str> = event
            .lines()
            .filter_map(|l| l.trim_end_matches('\r').strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        (!lines.is_empty()).then(|| lines.join("\n"))
    })
}

/// List a Streamable HTTP server's tools (URL and headers already expanded), then end its
/// session (`DELETE` is not sent: the session ends with toolprism's last request).
pub fn list_http(server: &RemoteServer, limits: &Limits) -> Listing {
    if let Err(e) = check_url(&server.url) {
        return Listing::failed(ListStatus::Failed, e);
    }
    let mut session = HttpSession {
        url: server.url.clone(),
        headers: server.headers.clone(),
        session_id: None,
        first_status: None,
    };
    converse(&mut session, PROTOCOL_VERSION, limits)
}

/// List a remote server as the clients that fall back do (docs/MCP.md): Streamable HTTP
/// first; when its `initialize` POST is refused with HTTP 400, 404 or 405 (the answer of a
/// server that speaks only the older transport), the legacy HTTP+SSE transport at the same
/// URL, within the same deadline. The listing says so when the second answered
/// ([`Listing::fell_back_to_sse`]); when neither did, it gives both reasons.
pub fn list_http_then_sse(server: &RemoteServer, limits: &Limits) -> Listing {
    if let Err(e) = check_url(&server.url) {
        return Listing::failed(ListStatus::Failed, e);
    }
    let mut session = HttpSession {
        url: server.url.clone(),
        headers: server.headers.clone(),
        session_id: None,
        first_status: None,
    };
    let listing = converse(&mut session, PROTOCOL_VERSION, limits);
    if listing.status == ListStatus::Failed
        && listing.pages == 0
        && matches!(session.first_status, Some(400 | 404 | 405))
    {
        let mut legacy = list_sse(server, limits);
        if legacy.status == ListStatus::Ok {
            legacy.fell_back_to_sse = true;
        } else {
            // Neither answered: both reasons, the second one's status.
            legacy.error = Some(format!(
                "{}; over SSE: {}",
                listing.error.unwrap_or_default(),
                legacy.error.unwrap_or_default()
            ));
        }
        return legacy;
    }
    listing
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    #[test]
    fn urls_are_checked_and_said_without_secrets() {
        assert!(check_url("http://127.0.0.1:8080/mcp").is_ok());
        assert!(check_url("https://[::1]:8443/mcp?x=1").is_ok());
        assert!(check_url("https://h").is_ok());
        assert!(
            check_url("ftp://x/mcp")
                .unwrap_err()
                .contains("not an http URL")
        );
        let shown = check_url("http://u:sekrit@h:x1/m?key=sk-9").unwrap_err();
        assert!(shown.starts_with("bad port in"), "{shown}");
        assert!(
            !shown.contains("sekrit") && !shown.contains("sk-9"),
            "{shown}"
        );
    }

    /// A server that pages small tools without end.
    struct Endless;

    impl Session for Endless {
        fn request(&mut self, id: u64, _: &str, _: Value, _: &Limits) -> Result<Value, Stop> {
            Ok(
                json!({"tools": [{"name": format!("t{id}"), "description": "x".repeat(100)}], "nextCursor": "more"}),
            )
        }
        fn notify(&mut self, _: &str, _: &Limits) -> Result<(), Stop> {
            Ok(())
        }
    }

    /// A redirect to another origin is not followed: the second listener is never reached and
    /// the config's header never sent there.
    #[test]
    fn no_redirect_is_followed() {
        use std::net::TcpListener;
        let elsewhere = TcpListener::bind("127.0.0.1:0").unwrap();
        elsewhere.set_nonblocking(true).unwrap();
        let target = format!("http://{}/stolen", elsewhere.local_addr().unwrap());
        let first = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", first.local_addr().unwrap());
        let answer = std::thread::spawn(move || {
            let (mut socket, _) = first.accept().unwrap();
            let mut head = [0u8; 4096];
            let _ = socket.read(&mut head);
            let reply = format!(
                "HTTP/1.1 307 Temporary Redirect\r\nLocation: {target}?key=sk-9\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            socket.write_all(reply.as_bytes()).unwrap();
        });
        let response = post_within(
            &url,
            &[("x-api-key".to_owned(), "secret".to_owned())],
            "{}",
            Duration::from_secs(10),
        )
        .map_err(|_| "the call failed")
        .unwrap();
        answer.join().unwrap();
        assert_eq!(response.status, 307);
        std::thread::sleep(Duration::from_millis(200));
        assert!(elsewhere.accept().is_err(), "the redirect was followed");
        let Stop::Failed(said) = redirected(307, response.header("location")) else {
            unreachable!()
        };
        assert!(said.contains("key=***") && !said.contains("sk-9"), "{said}");
    }

    #[test]
    fn one_budget_holds_all_of_a_servers_pages() {
        let never = || false;
        let limits = Limits {
            deadline: Instant::now() + Duration::from_secs(60),
            cancelled: &never,
            budget: 1000,
        };
        let listing = converse(&mut Endless, PROTOCOL_VERSION, &limits);
        assert_eq!(listing.status, ListStatus::Failed);
        assert!(listing.pages < 10, "{}", listing.pages);
        let error = listing.error.unwrap();
        assert!(error.contains("passed 1,000 bytes at page"), "{error}");
    }
}
