//! What `toolprism record` adds to a call on loopback: the time to the first event of a stream
//! through the proxy beside the same call made directly, one call at a time and 50 streams at
//! once. `cargo bench --bench record` (a benchmark, not a timed test: it prints figures and
//! checks nothing but that every stream ended). docs/SPEED.md keeps the figures.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use toolprism::record::{Recorder, Route};
use toolprism::trace::write::TraceWriter;

const EVENTS: usize = 20;
const PAUSE: Duration = Duration::from_millis(5);

/// An upstream answering every request with an Anthropic-like stream of [`EVENTS`] events,
/// [`PAUSE`] apart, the first at once.
fn upstream() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream));
        }
    });
    port
}

fn serve(mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    loop {
        let mut length = 0;
        let mut close = false;
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line.trim().is_empty() {
                break;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
            close |= lower.starts_with("connection:") && lower.contains("close");
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        for n in 0..EVENTS {
            let event = if n == 0 {
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10}}}\n\n".to_owned()
            } else {
                format!(
                    "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"word {n} \"}}}}\n\n"
                )
            };
            let chunk = format!("{:x}\r\n{event}\r\n", event.len());
            if stream.write_all(chunk.as_bytes()).is_err() {
                return;
            }
            std::thread::sleep(PAUSE);
        }
        let _ = stream.write_all(b"0\r\n\r\n");
        // A direct call asks to close (the proxy keeps its connections for the next call).
        if close {
            return;
        }
    }
}

/// One streamed call on a new connection: (time to the first event, whether the stream ended).
fn call(addr: &str) -> (Duration, bool) {
    let body = r#"{"model":"claude-sonnet-4-5","stream":true,"max_tokens":64,"messages":[{"role":"user","content":"hi"}],"tools":[]}"#;
    let request = format!(
        "POST /v1/messages HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\nx-api-key: sk-bench\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let start = Instant::now();
    let mut stream = TcpStream::connect(addr).expect("connect");
    let _ = stream.set_nodelay(true);
    stream.write_all(request.as_bytes()).expect("send");
    let mut got = Vec::new();
    let mut first = None;
    let mut buf = [0u8; 16384];
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        if first.is_none() && got.windows(13).any(|w| w == b"message_start") {
            first = Some(start.elapsed());
        }
    }
    let ended = got.ends_with(b"0\r\n\r\n");
    (first.unwrap_or_else(|| start.elapsed()), ended)
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let at = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[at]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// `runs` rounds of `concurrent` calls at once; every call's time to its first event.
fn measure(addr: &str, concurrent: usize, runs: usize) -> (Vec<Duration>, usize) {
    let mut all = Vec::new();
    let mut unended = 0;
    for _ in 0..runs {
        let threads: Vec<_> = (0..concurrent)
            .map(|_| {
                let addr = addr.to_owned();
                std::thread::spawn(move || call(&addr))
            })
            .collect();
        for thread in threads {
            let (first, ended) = thread.join().expect("a call");
            all.push(first);
            if !ended {
                unended += 1;
            }
        }
    }
    all.sort();
    (all, unended)
}

fn main() {
    let port = upstream();
    let direct = format!("127.0.0.1:{port}");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let writer = TraceWriter::create(&dir.path().join("bench.jsonl")).expect("the trace");
    let recorder = Recorder::start(
        "127.0.0.1:0".parse().expect("an address"),
        Route::To(format!("http://{direct}")),
        writer,
        Box::new(|_, _| {}),
        false,
    )
    .expect("start the recorder");
    let proxied = recorder.addr().to_string();
    // Warm both paths (the proxy's pool, the upstream's threads).
    measure(&direct, 8, 2);
    measure(&proxied, 8, 2);
    println!("toolprism record on loopback: time to the first event of a stream");
    println!("{:<44} {:>10} {:>10} {:>10}", "", "median", "p99", "max");
    for (label, concurrent, runs) in [
        ("one call at a time (300)", 1, 300),
        ("50 streams at once (x6)", 50, 6),
    ] {
        let (d, d_open) = measure(&direct, concurrent, runs);
        let (p, p_open) = measure(&proxied, concurrent, runs);
        assert_eq!(d_open + p_open, 0, "a stream stalled");
        for (name, v) in [("direct", &d), ("through the proxy", &p)] {
            println!(
                "{:<44} {:>10} {:>10} {:>10}",
                format!("{label}, {name}"),
                ms(quantile(v, 0.5)),
                ms(quantile(v, 0.99)),
                ms(*v.last().expect("calls"))
            );
        }
        let added = |q| quantile(&p, q).saturating_sub(quantile(&d, q));
        println!(
            "{:<44} {:>10} {:>10}",
            format!("{label}, added"),
            ms(added(0.5)),
            ms(added(0.99))
        );
    }
    let written = recorder.written();
    recorder.stop(Duration::from_secs(2)).expect("stop");
    println!("calls recorded: {written}");
}
