//! `toolprism record`'s proxy (feature `record`): an HTTP server on loopback that forwards each
//! call to the provider it is meant for, passes the response on as it arrives (an event stream
//! event by event, bodies byte for byte, compressed or not), and hands every finished call to
//! the trace writer ([`crate::trace::write`]).
//!
//! hyper 1 serves and sends (HTTP/1.1 towards the client, HTTP/1.1 over rustls towards the
//! provider, the system's trust store through rustls-native-certs). Each call holds its own
//! copy of the bodies until it is written, so memory is bounded by the calls in flight.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http_body_util::{BodyExt, Either, Full};
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};

pub mod diagnose;

use crate::trace::MAX_RECORD_BYTES;
use crate::trace::write::{Answer, Call, Outcome, TraceWriter};

/// How long stopping waits for lines still being written (a 256 MiB body takes seconds).
const WRITE_WAIT: Duration = Duration::from_secs(60);

/// Calls with bodies larger than this (together), or a compressed answer, are written on a
/// blocking thread.
const INLINE_WRITE: usize = 4 * 1024 * 1024;

/// Where calls go: by their path to each provider, or all to one base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Anthropic, OpenAI or Gemini, told from the path and headers ([`provider_base`]).
    ByPath,
    /// Everything to this base URL (`--upstream`), its path put before the client's.
    To(String),
}

/// The providers' API bases, as [`Route::ByPath`] picks them.
pub const ANTHROPIC: &str = "https://api.anthropic.com";
/// OpenAI's API base.
pub const OPENAI: &str = "https://api.openai.com";
/// Gemini's API base.
pub const GEMINI: &str = "https://generativelanguage.googleapis.com";

/// The provider a call is meant for: Gemini's paths (`/v1beta/…`, `…:generateContent`) and its
/// key header; Anthropic's `/v1/messages` (and count_tokens), `/v1/complete` and its
/// `anthropic-version` header; OpenAI's other `/v1/…` paths (Chat Completions, Responses).
pub fn provider_base(path: &str, headers: &HeaderMap) -> Option<&'static str> {
    let gemini = path.starts_with("/v1beta/")
        || path.starts_with("/v1alpha/")
        || path.contains(":generateContent")
        || path.contains(":streamGenerateContent")
        || headers.contains_key("x-goog-api-key");
    if gemini {
        return Some(GEMINI);
    }
    if headers.contains_key("anthropic-version")
        || path.starts_with("/v1/messages")
        || path.starts_with("/v1/complete")
    {
        return Some(ANTHROPIC);
    }
    path.starts_with("/v1/").then_some(OPENAI)
}

/// The first-party Anthropic API: [`ANTHROPIC`], or `TOOLPRISM_ANTHROPIC_BASE` when set (a
/// stand-in for it, as the tests start one on loopback).
pub fn first_party() -> String {
    std::env::var("TOOLPRISM_ANTHROPIC_BASE")
        .ok()
        .filter(|base| base.starts_with("http://") || base.starts_with("https://"))
        .unwrap_or_else(|| ANTHROPIC.to_owned())
}

/// The URL a call is sent to; `anthropic` stands for [`ANTHROPIC`].
fn target(
    route: &Route,
    anthropic: &str,
    path_and_query: &str,
    headers: &HeaderMap,
) -> Result<String, String> {
    let path = path_and_query.split('?').next().unwrap_or(path_and_query);
    let base = match route {
        Route::To(base) => base.as_str(),
        Route::ByPath => match provider_base(path, headers) {
            Some(ANTHROPIC) => anthropic,
            Some(base) => base,
            None => {
                return Err(format!(
                    "no provider is known for the path {path} (give --upstream URL)"
                ));
            }
        },
    };
    Ok(format!("{}{path_and_query}", base.trim_end_matches('/')))
}

/// Headers that belong to one connection, never forwarded (RFC 9110 section 7.6.1), and `host`,
/// which the client sets from the URL.
fn hop_by_hop(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "connection"
            | "keep-alive"
            | "proxy-connection"
            | "proxy-authenticate"
            | "proxy-authorization"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
            | "host"
    )
}

fn text_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(n, v)| {
            let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
            (n.as_str().to_owned(), value)
        })
        .collect()
}

fn forwarded(from: &HeaderMap, to: &mut HeaderMap) {
    for (name, value) in from {
        if !hop_by_hop(name) {
            to.append(name.clone(), value.clone());
        }
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Told of each call once it is written (or failed to be): the CLI prints a line, the live
/// view adds a turn.
pub type OnCall = Box<dyn Fn(&Call, &std::io::Result<()>) + Send + Sync>;

type HttpsClient = Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

struct Shared {
    writer: TraceWriter,
    client: HttpsClient,
    route: Route,
    /// The first-party Anthropic API ([`first_party`]).
    anthropic: String,
    /// `--diagnose`: the last response relayed on each conversation.
    diagnose: Option<diagnose::Diagnose>,
    /// Set when toolprism is stopping: a call cut off now was interrupted, not abandoned.
    stopping: AtomicBool,
    in_flight: AtomicUsize,
    written: AtomicUsize,
    /// Requests answered 413: their bodies were over the record limit.
    refused: AtomicUsize,
    on_call: OnCall,
}

/// A call being made: written once, when it finishes or when it is dropped unfinished.
struct Recording {
    call: Option<Call>,
    /// The conversation `--diagnose` added to, told the response's id once it is relayed.
    conversation: Option<String>,
    started: Instant,
    shared: Arc<Shared>,
}

impl Recording {
    fn new(shared: Arc<Shared>, call: Call, started: Instant) -> Recording {
        shared.in_flight.fetch_add(1, Ordering::SeqCst);
        Recording {
            call: Some(call),
            conversation: None,
            started,
            shared,
        }
    }

    fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn finish(&mut self, outcome: Outcome) {
        let end = self.elapsed_ms();
        let Some(mut call) = self.call.take() else {
            return;
        };
        call.end_ms = end;
        let relayed = outcome == Outcome::Complete
            && call
                .answer
                .as_ref()
                .is_some_and(|a| (200..300).contains(&a.status));
        if let (Some(diagnose), Some(conversation), true) =
            (&self.shared.diagnose, &self.conversation, relayed)
            && let Some(id) = call.response_id()
        {
            diagnose.relayed(conversation, id);
        }
        call.outcome = Some(outcome);
        let shared = self.shared.clone();
        // Writing a large body takes a while: off the threads that pass answers on, so the
        // client has its last bytes at once. A small one is written here, in the order the
        // calls end; while stopping, the runtime is going: here too.
        // (A compressed body can be large decoded.)
        let large = call.request_body.len() + call.answer.as_ref().map_or(0, |a| a.body.len())
            > INLINE_WRITE
            || call.answer.as_ref().is_some_and(|a| {
                a.headers.iter().any(|(n, v)| {
                    n.eq_ignore_ascii_case("content-encoding") && !v.trim().is_empty()
                })
            });
        let running = tokio::runtime::Handle::try_current()
            .ok()
            .filter(|_| large && !shared.stopping.load(Ordering::SeqCst));
        match running {
            Some(runtime) => drop(runtime.spawn_blocking(move || write(&shared, &call))),
            None => write(&shared, &call),
        }
    }
}

/// Write a finished call, tell of it, and count it out of those in flight.
fn write(shared: &Shared, call: &Call) {
    let written = shared.writer.write(call);
    if written.is_ok() {
        shared.written.fetch_add(1, Ordering::SeqCst);
    }
    (shared.on_call)(call, &written);
    shared.in_flight.fetch_sub(1, Ordering::SeqCst);
}

impl Drop for Recording {
    fn drop(&mut self) {
        let outcome = if self.shared.stopping.load(Ordering::SeqCst) {
            Outcome::Interrupted
        } else {
            Outcome::ClientGone
        };
        self.finish(outcome);
    }
}

/// The provider's response body on its way to the client, a copy kept for the trace.
struct Tee {
    inner: Incoming,
    recording: Recording,
}

impl Tee {
    fn keep(&mut self, data: &Bytes) {
        let at = self.recording.elapsed_ms();
        let Some(answer) = self.recording.call.as_mut().and_then(|c| {
            c.first_byte_ms.get_or_insert(at);
            c.answer.as_mut()
        }) else {
            return;
        };
        if answer.truncated {
            // Nothing after a gap.
            return;
        }
        let limit = usize::try_from(MAX_RECORD_BYTES).unwrap_or(usize::MAX);
        let take = data.len().min(limit.saturating_sub(answer.body.len()));
        if take < data.len() || !crate::trace::write::grow(&mut answer.body, take, limit) {
            answer.truncated = true;
        }
        // Without the memory for it, the rest is passed on but not kept.
        if answer.body.capacity() - answer.body.len() >= take {
            answer.body.extend_from_slice(&data[..take]);
        }
    }
}

impl Body for Tee {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.keep(data);
                }
                // A body of known length may not be polled past its last byte.
                if this.inner.is_end_stream() {
                    this.recording.finish(Outcome::Complete);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                this.recording.finish(Outcome::UpstreamBroke(e.to_string()));
                Poll::Ready(Some(Err(e)))
            }
            Poll::Ready(None) => {
                this.recording.finish(Outcome::Complete);
                Poll::Ready(None)
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

type Answered = Response<Either<Tee, Full<Bytes>>>;

/// The 502 a client gets when the provider cannot be reached: one JSON line, in the shape the
/// providers' own errors take.
fn bad_gateway(message: &str) -> (Vec<u8>, Response<Full<Bytes>>) {
    let body = serde_json::json!({
        "type": "error",
        "error": {"type": "toolprism_upstream_unreachable", "message": message},
    })
    .to_string()
        + "\n";
    let mut response = Response::new(Full::new(Bytes::from(body.clone())));
    *response.status_mut() = StatusCode::BAD_GATEWAY;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    (body.into_bytes(), response)
}

/// A request body's bytes, shared between what is sent on and the trace (never copied).
struct SharedBody(Arc<Vec<u8>>);

impl AsRef<[u8]> for SharedBody {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// The answer to a request whose body is over the trace's record limit.
fn too_large() -> Response<Full<Bytes>> {
    let message = format!(
        "the request body is over toolprism's record limit of {} MiB",
        MAX_RECORD_BYTES / (1024 * 1024)
    );
    let body = serde_json::json!({
        "type": "error",
        "error": {"type": "toolprism_request_too_large", "message": message},
    })
    .to_string()
        + "\n";
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    // The rest of the body is never read: the connection cannot carry another request.
    headers.insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Read a request body into one buffer, up to the record limit. `Err` is the answer to give instead: 413 as soon as the body is known to
/// be over the limit (before a byte is read when its length says so), 502 when it breaks off.
async fn read_body(
    headers: &HeaderMap,
    mut body: Incoming,
) -> Result<Vec<u8>, Response<Full<Bytes>>> {
    let limit = usize::try_from(MAX_RECORD_BYTES).unwrap_or(usize::MAX);
    let length = headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if length.is_some_and(|n| n > MAX_RECORD_BYTES) {
        return Err(too_large());
    }
    // The frames as they came (no copy while reading; a body refused half-way never took
    // more than the limit), put together once at the end in a buffer of the exact size.
    let mut frames: Vec<Bytes> = Vec::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Err(bad_gateway("the request body could not be read").1);
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total += data.len();
        if total > limit {
            return Err(too_large());
        }
        frames.push(data);
    }
    if frames.len() == 1 {
        return Ok(Vec::from(frames.swap_remove(0)));
    }
    let mut kept = Vec::new();
    if kept.try_reserve_exact(total).is_err() {
        return Err(too_large());
    }
    for frame in frames.drain(..) {
        kept.extend_from_slice(&frame);
    }
    Ok(kept)
}

/// `--diagnose`: the body to send (with `diagnostics` added when it is one to diagnose, its
/// `content-length` set to match), the members added, and the conversation whose answer to
/// follow.
fn diagnosed(
    shared: &Shared,
    method: &hyper::Method,
    headers: &mut HeaderMap,
    url: Option<&String>,
    body: Arc<Vec<u8>>,
) -> (Arc<Vec<u8>>, Option<serde_json::Value>, Option<String>) {
    let (Some(diagnose), Some(url)) = (&shared.diagnose, url) else {
        return (body, None, None);
    };
    let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let encoded = header(hyper::header::CONTENT_ENCODING.as_str())
        .is_some_and(|v| !v.trim().eq_ignore_ascii_case("identity"));
    let Some(found) = diagnose.add(
        &shared.anthropic,
        url,
        method == hyper::Method::POST,
        encoded,
        header("x-claude-code-agent-id"),
        &body,
    ) else {
        return (body, None, None);
    };
    match found.added {
        Some((sent, members)) => {
            headers.insert(hyper::header::CONTENT_LENGTH, HeaderValue::from(sent.len()));
            (Arc::new(sent), Some(members), Some(found.conversation))
        }
        None => (body, None, Some(found.conversation)),
    }
}

async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Result<Answered, Infallible> {
    let started = Instant::now();
    let started_ms = now_ms();
    let (mut parts, body) = request.into_parts();
    // The request is read whole (the trace needs it, and a request too large to record is
    // refused before it goes anywhere), then sent on unchanged from the same buffer.
    let body = match read_body(&parts.headers, body).await {
        Ok(body) => Arc::new(body),
        Err(response) => {
            if response.status() == StatusCode::PAYLOAD_TOO_LARGE {
                shared.refused.fetch_add(1, Ordering::SeqCst);
            }
            return Ok(response.map(Either::Right));
        }
    };
    let path_and_query = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = target(
        &shared.route,
        &shared.anthropic,
        path_and_query,
        &parts.headers,
    );
    let (body, added, conversation) = diagnosed(
        &shared,
        &parts.method,
        &mut parts.headers,
        url.as_ref().ok(),
        body,
    );
    let call = Call {
        started_ms,
        method: parts.method.as_str().to_owned(),
        url: url.clone().unwrap_or_else(|_| path_and_query.to_owned()),
        request_headers: text_headers(&parts.headers),
        request_body: body.clone(),
        added,
        ..Call::default()
    };
    let mut recording = Recording::new(shared.clone(), call, started);
    recording.conversation = conversation;
    let sent = match url {
        Ok(url) => {
            let mut upstream = Request::builder().method(parts.method).uri(url.as_str());
            if let Some(headers) = upstream.headers_mut() {
                forwarded(&parts.headers, headers);
            }
            match upstream.body(Full::new(Bytes::from_owner(SharedBody(body)))) {
                Ok(upstream) => shared
                    .client
                    .request(upstream)
                    .await
                    .map_err(|e| unreachable_message(&url, &e)),
                Err(e) => Err(format!("cannot send to {url}: {e}")),
            }
        }
        Err(why) => Err(why),
    };
    let response = match sent {
        Ok(response) => response,
        Err(message) => {
            let (body, response) = bad_gateway(&message);
            if let Some(call) = recording.call.as_mut() {
                call.answer = Some(Answer {
                    status: 502,
                    headers: text_headers(response.headers()),
                    body,
                    truncated: false,
                });
            }
            recording.finish(Outcome::Unreachable(message));
            return Ok(response.map(Either::Right));
        }
    };
    let headers_ms = recording.elapsed_ms();
    let (parts, incoming) = response.into_parts();
    // An empty body (`content-length: 0`, a 204) is never polled: the call is complete now.
    let empty = incoming.is_end_stream();
    if let Some(call) = recording.call.as_mut() {
        call.headers_ms = Some(headers_ms);
        call.answer = Some(Answer {
            status: parts.status.as_u16(),
            headers: text_headers(&parts.headers),
            body: Vec::new(),
            truncated: false,
        });
    }
    let mut answer = if empty {
        recording.finish(Outcome::Complete);
        Response::new(Either::Right(Full::new(Bytes::new())))
    } else {
        Response::new(Either::Left(Tee {
            inner: incoming,
            recording,
        }))
    };
    *answer.status_mut() = parts.status;
    forwarded(&parts.headers, answer.headers_mut());
    Ok(answer)
}

/// Why the provider could not be reached, with the causes hyper keeps beneath its error.
fn unreachable_message(url: &str, error: &dyn std::error::Error) -> String {
    let mut message = format!("cannot reach {}", crate::trace::write::redact_url(url));
    let mut cause = error.source();
    let mut said = error.to_string();
    while let Some(inner) = cause {
        said = inner.to_string();
        cause = inner.source();
    }
    message.push_str(": ");
    message.push_str(&said);
    message
}

/// The TLS client: rustls with the system's roots (`SSL_CERT_FILE` / `SSL_CERT_DIR` when set,
/// as rustls-native-certs reads them). A system without roots still records plain-HTTP
/// upstreams; an HTTPS call then fails as unreachable, saying why.
fn client() -> HttpsClient {
    let mut roots = rustls::RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    roots.add_parsable_certificates(found.certs);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_or_else(
            |_| {
                rustls::ClientConfig::builder_with_protocol_versions(rustls::DEFAULT_VERSIONS)
                    .with_root_certificates(roots.clone())
                    .with_no_client_auth()
            },
            |b| {
                b.with_root_certificates(roots.clone())
                    .with_no_client_auth()
            },
        );
    let mut http = HttpConnector::new();
    http.set_nodelay(true);
    http.enforce_http(false);
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Client::builder(TokioExecutor::new())
        .pool_idle_timeout(Duration::from_secs(60))
        .build(connector)
}

/// A running recorder: the proxy's runtime, its address and the trace it writes.
pub struct Recorder {
    runtime: tokio::runtime::Runtime,
    addr: SocketAddr,
    stop: Arc<tokio::sync::Notify>,
    shared: Arc<Shared>,
}

impl Recorder {
    /// Listen on `listen` (port 0: any free port) and record into `writer`; `on_call` is told
    /// of each call as it is written.
    pub fn start(
        listen: SocketAddr,
        route: Route,
        writer: TraceWriter,
        on_call: OnCall,
        diagnose: bool,
    ) -> std::io::Result<Recorder> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("toolprism-record")
            .enable_io()
            .enable_time()
            .build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind(listen))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            writer,
            client: runtime.block_on(async { client() }),
            route,
            anthropic: first_party(),
            diagnose: diagnose.then(diagnose::Diagnose::default),
            stopping: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
            written: AtomicUsize::new(0),
            refused: AtomicUsize::new(0),
            on_call,
        });
        let stop = Arc::new(tokio::sync::Notify::new());
        runtime.spawn(accept(listener, shared.clone(), stop.clone()));
        Ok(Recorder {
            runtime,
            addr,
            stop,
            shared,
        })
    }

    /// The address the proxy listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Calls written to the trace so far.
    pub fn written(&self) -> usize {
        self.shared.written.load(Ordering::SeqCst)
    }

    /// Requests refused so far (413: a body over the record limit; never sent on nor written).
    pub fn refused(&self) -> usize {
        self.shared.refused.load(Ordering::SeqCst)
    }

    /// Calls under way.
    pub fn in_flight(&self) -> usize {
        self.shared.in_flight.load(Ordering::SeqCst)
    }

    /// Stop: no new connection is taken; calls under way get `grace` to finish, then each
    /// still open is written as interrupted, and the trace is synced. Every line is whole.
    /// How many calls were written in all.
    pub fn stop(self, grace: Duration) -> std::io::Result<usize> {
        self.stop.notify_one();
        let deadline = Instant::now() + grace;
        while self.in_flight() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Dropping the tasks drops each call's `Recording`, which writes it.
        self.runtime.shutdown_timeout(Duration::from_secs(1));
        // Lines still being written (on blocking threads the runtime leaves running) are
        // finished: a line is never cut off.
        let deadline = Instant::now() + WRITE_WAIT;
        while self.shared.in_flight.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.shared.writer.sync()?;
        Ok(self.shared.written.load(Ordering::SeqCst))
    }
}

async fn accept(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    stop: Arc<tokio::sync::Notify>,
) {
    loop {
        let (stream, _) = tokio::select! {
            () = stop.notified() => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of descriptors and the like: wait, then take connections again.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |request| handle(shared.clone(), request));
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_go_to_their_provider() {
        let none = HeaderMap::new();
        assert_eq!(provider_base("/v1/messages", &none), Some(ANTHROPIC));
        assert_eq!(
            provider_base("/v1/messages/count_tokens", &none),
            Some(ANTHROPIC)
        );
        assert_eq!(provider_base("/v1/chat/completions", &none), Some(OPENAI));
        assert_eq!(provider_base("/v1/responses", &none), Some(OPENAI));
        assert_eq!(
            provider_base("/v1beta/models/gemini-2.5-pro:streamGenerateContent", &none),
            Some(GEMINI)
        );
        let mut anthropic = HeaderMap::new();
        anthropic.insert("anthropic-version", HeaderValue::from_static("2023-06-01"));
        assert_eq!(provider_base("/v1/models", &anthropic), Some(ANTHROPIC));
        assert_eq!(provider_base("/health", &none), None);
        assert_eq!(
            target(
                &Route::To("http://127.0.0.1:9/gw/".into()),
                ANTHROPIC,
                "/v1/messages?beta=true",
                &none
            )
            .unwrap(),
            "http://127.0.0.1:9/gw/v1/messages?beta=true"
        );
        assert!(target(&Route::ByPath, ANTHROPIC, "/x", &none).is_err());
    }
}
