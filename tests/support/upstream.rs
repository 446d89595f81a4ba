//! A provider of the tests' own on 127.0.0.1 (plain HTTP/1.1 over std's sockets, a thread per
//! connection), answering as the providers do: a JSON body, or an event stream written in
//! chunks with pauses, and the `toolprism record` process around it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

/// A request as the upstream received it.
#[derive(Debug, Clone)]
pub struct Received {
    /// `POST /v1/messages?x=1 HTTP/1.1`.
    pub line: String,
    /// Header lines, lower-cased names.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

type Handler = dyn Fn(Received, &mut TcpStream) + Send + Sync;

/// The upstream: its port, serving until the test ends (its threads die with the process).
pub struct Upstream {
    /// The port it listens on.
    pub port: u16,
}

impl Upstream {
    /// Serve each request with `handler`, which writes the whole response itself.
    pub fn start(handler: impl Fn(Received, &mut TcpStream) + Send + Sync + 'static) -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the upstream");
        let port = listener.local_addr().expect("its address").port();
        let handler: Arc<Handler> = Arc::new(handler);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let handler = handler.clone();
                std::thread::spawn(move || {
                    while let Some(request) = read_request(&mut stream) {
                        handler(request, &mut stream);
                    }
                });
            }
        });
        Upstream { port }
    }

    /// Its base URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// Read one request (headers and a `content-length` body); `None` when the peer closed.
pub fn read_request(stream: &mut TcpStream) -> Option<Received> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Received {
        line: line.trim_end().to_owned(),
        headers,
        body,
    })
}

/// Write a response head.
pub fn head(stream: &mut TcpStream, status: u16, headers: &[(&str, &str)]) {
    let mut text = format!("HTTP/1.1 {status} X\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    let _ = stream.write_all(text.as_bytes());
}

/// A whole JSON (or any) body with its length.
pub fn whole(stream: &mut TcpStream, status: u16, extra: &[(&str, &str)], body: &[u8]) {
    let length = body.len().to_string();
    let mut headers = vec![("content-length", length.as_str())];
    headers.extend_from_slice(extra);
    head(stream, status, &headers);
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

/// One chunk of a chunked body (an empty one ends it).
pub fn chunk(stream: &mut TcpStream, bytes: &[u8]) {
    let mut out = format!("{:x}\r\n", bytes.len()).into_bytes();
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\r\n");
    let _ = stream.write_all(&out);
    let _ = stream.flush();
}

/// The head of an event stream.
pub fn stream_head(stream: &mut TcpStream) {
    head(
        stream,
        200,
        &[
            ("content-type", "text/event-stream"),
            ("transfer-encoding", "chunked"),
        ],
    );
}

/// An Anthropic `message_start` event with this usage.
pub fn message_start(input: u64, read: u64, write: u64) -> String {
    format!(
        "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"msg_1\",\"usage\":{{\"input_tokens\":{input},\"cache_read_input_tokens\":{read},\"cache_creation_input_tokens\":{write}}}}}}}\n\n"
    )
}

/// The events that end an Anthropic stream.
pub const MESSAGE_STOP: &str = "event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":3}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

/// A request body of Anthropic's shape with one tool.
pub fn messages_body(n: usize) -> String {
    format!(
        "{{\"model\":\"claude-sonnet-4-5\",\"stream\":true,\"max_tokens\":64,\"tools\":[{{\"name\":\"read_file\",\"description\":\"Read a file.\",\"input_schema\":{{\"type\":\"object\",\"properties\":{{\"path\":{{\"type\":\"string\"}}}}}}}}],\"messages\":[{{\"role\":\"user\",\"content\":\"call {n}\"}}]}}"
    )
}

/// `toolprism record` running, its port read from the lines it prints.
pub struct Recording {
    /// The process.
    pub child: Child,
    /// The proxy's address (`127.0.0.1:PORT`).
    pub addr: String,
    /// What it wrote to standard error after its export lines.
    pub stderr: Arc<std::sync::Mutex<String>>,
}

impl Recording {
    /// Start `toolprism record --no-view -o TRACE` with `extra` arguments.
    pub fn start(trace: &Path, extra: &[&str]) -> Recording {
        Recording::start_with(trace, extra, &[])
    }

    /// [`Recording::start`] with variables set in its environment.
    pub fn start_with(trace: &Path, extra: &[&str], env: &[(&str, &Path)]) -> Recording {
        let mut child = Command::new(super::command::bin())
            .args(["record", "--no-view", "-o"])
            .arg(trace)
            .args(extra)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run toolprism record");
        let stderr = child.stderr.take().expect("its stderr");
        let mut lines = BufReader::new(stderr).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("record prints its export lines")
                .expect("a line");
            if let Some(url) = line.trim().strip_prefix("export ANTHROPIC_BASE_URL=") {
                break url.trim_start_matches("http://").to_owned();
            }
        };
        // The rest of stderr is drained so the process never blocks on it, and kept.
        let stderr = Arc::new(std::sync::Mutex::new(String::new()));
        let kept = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if let Ok(mut text) = kept.lock() {
                    text.push_str(&line);
                    text.push('\n');
                }
            }
        });
        Recording {
            child,
            addr,
            stderr,
        }
    }

    /// Send a signal and wait for the exit status (a code, or `None` if a signal ended it).
    pub fn stop(mut self, signal: rustix::process::Signal) -> (Option<i32>, String) {
        let pid = rustix::process::Pid::from_child(&self.child);
        rustix::process::kill_process(pid, signal).expect("signal toolprism");
        let mut out = String::new();
        if let Some(mut stdout) = self.child.stdout.take() {
            let _ = stdout.read_to_string(&mut out);
        }
        let status = self.child.wait().expect("wait for toolprism");
        (status.code(), out)
    }
}

/// A test that fails before [`Recording::stop`] leaves no proxy running.
impl Drop for Recording {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// [`call`] with `body` to `/v1/messages` on a thread of its own (its answer may never end),
/// returning once the first stream event (`message_start`) has reached the client.
pub fn call_until_first_event(addr: &str, body: String) {
    let addr = addr.to_owned();
    let (got_tx, got_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        call(&addr, "/v1/messages", &[], &body, |got| {
            if !sent && String::from_utf8_lossy(got).contains("message_start") {
                sent = true;
                let _ = got_tx.send(());
            }
        });
    });
    got_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the first event came through");
}

/// Send `body` to the proxy and return the raw response (head and body as received, chunked
/// framing and all), calling `on_data` with everything read so far after each read.
pub fn call(
    addr: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
    mut on_data: impl FnMut(&[u8]),
) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).expect("connect to the proxy");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("a timeout");
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("send");
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                got.extend_from_slice(&buf[..n]);
                on_data(&got);
            }
        }
    }
    got
}

/// The body of a raw HTTP/1.1 response, chunked framing undone.
pub fn body_of(raw: &[u8]) -> Vec<u8> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let mut rest = &raw[split + 4..];
    if !head.contains("transfer-encoding: chunked") {
        return rest.to_vec();
    }
    let mut body = Vec::new();
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..end]).trim(), 16)
            .expect("a chunk size");
        if size == 0 {
            break;
        }
        body.extend_from_slice(&rest[end + 2..end + 2 + size]);
        rest = &rest[end + 2 + size + 2..];
    }
    body
}
