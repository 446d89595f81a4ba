//! `toolprism record` against an upstream of the tests' own on loopback: streams passed on
//! event by event, every call recorded, no key in the trace, mode 0600, failures and signals
//! leaving a whole trace that `session` reads with every call's usage.

use std::io::Write;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use rustix::process::Signal;
use serde_json::Value;

use crate::support::command::toolprism;
use crate::support::upstream::{
    MESSAGE_STOP, Recording, Upstream, body_of, call, call_until_first_event, chunk, message_start,
    messages_body, stream_head, whole,
};

fn lines(trace: &Path) -> Vec<Value> {
    std::fs::read_to_string(trace)
        .expect("the trace")
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line is whole JSON"))
        .collect()
}

/// `session --json` on the trace: its turns' observed usage, in order.
fn session_usage(trace: &Path) -> Vec<Value> {
    let out = toolprism()
        .args(["session", "--json", "-s", "original"])
        .arg(trace)
        .output()
        .expect("run session");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("session --json");
    report["turns"]
        .as_array()
        .expect("turns")
        .iter()
        .map(|t| t["usage"].clone())
        .collect()
}

/// An Anthropic stream whose second half is sent only once the client has the first event.
#[test]
fn a_stream_reaches_the_client_event_by_event_and_is_recorded() {
    let (seen_tx, seen_rx) = mpsc::channel::<()>();
    let seen_rx = std::sync::Mutex::new(seen_rx);
    let (waited_tx, waited_rx) = mpsc::channel::<bool>();
    let upstream = Upstream::start(move |_request, stream| {
        stream_head(stream);
        chunk(stream, message_start(11, 200, 7).as_bytes());
        // The rest waits for the client to have seen the first event through the proxy.
        let seen = seen_rx
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(10))
            .is_ok();
        let _ = waited_tx.send(seen);
        std::thread::sleep(Duration::from_millis(50));
        chunk(stream, MESSAGE_STOP.as_bytes());
        chunk(stream, b"");
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
    let mut told = false;
    let raw = call(
        &recording.addr,
        "/v1/messages",
        &[
            ("x-api-key", "sk-ant-test-SECRET1"),
            ("anthropic-version", "2023-06-01"),
        ],
        &messages_body(1),
        |got| {
            if !told && String::from_utf8_lossy(got).contains("message_start") {
                told = true;
                let _ = seen_tx.send(());
            }
        },
    );
    assert!(
        waited_rx.recv_timeout(Duration::from_secs(15)).unwrap(),
        "the first event did not reach the client before the last was sent"
    );
    let body = body_of(&raw);
    let mut expected = message_start(11, 200, 7).into_bytes();
    expected.extend_from_slice(MESSAGE_STOP.as_bytes());
    assert_eq!(body, expected, "the stream is passed on byte for byte");
    let (status, out) = recording.stop(Signal::INT);
    assert_eq!(status, Some(130));
    assert!(out.contains("POST /v1/messages 200"), "{out}");
    let records = lines(&trace);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["toolprism"]["outcome"], "complete");
    assert_eq!(records[0]["response"]["status_code"], 200);
    let usage = session_usage(&trace);
    assert_eq!(usage[0]["input"], 11);
    assert_eq!(usage[0]["cache_read"], 200);
    assert_eq!(usage[0]["cache_write"], 7);
}

#[test]
fn concurrent_calls_are_all_recorded_and_no_key_reaches_the_file() {
    let upstream = Upstream::start(|request, stream| {
        let n = String::from_utf8_lossy(&request.body)
            .split("call ")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
        stream_head(stream);
        chunk(stream, message_start(100 + n, n, 0).as_bytes());
        std::thread::sleep(Duration::from_millis(100));
        chunk(stream, MESSAGE_STOP.as_bytes());
        chunk(stream, b"");
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
    const N: usize = 24;
    let threads: Vec<_> = (0..N)
        .map(|n| {
            let addr = recording.addr.clone();
            std::thread::spawn(move || {
                let raw = call(
                    &addr,
                    &format!("/v1/messages?key=QUERYSECRET{n}&beta=true"),
                    &[
                        ("x-api-key", &format!("sk-ant-SECRET-{n}")),
                        ("authorization", "Bearer BEARERSECRET"),
                        ("cookie", "session=COOKIESECRET"),
                        ("x-goog-api-key", "GOOGSECRET"),
                        ("api-key", "AZURESECRET"),
                        ("x-custom-token", "TOKENSECRET"),
                        ("anthropic-version", "2023-06-01"),
                    ],
                    &messages_body(n),
                    |_| {},
                );
                String::from_utf8_lossy(&body_of(&raw)).contains("message_stop")
            })
        })
        .collect();
    for thread in threads {
        assert!(thread.join().unwrap(), "a call was not answered whole");
    }
    let (status, _) = recording.stop(Signal::TERM);
    assert_eq!(status, Some(143));
    let text = std::fs::read_to_string(&trace).unwrap();
    for secret in [
        "SECRET-",
        "QUERYSECRET",
        "BEARERSECRET",
        "COOKIESECRET",
        "GOOGSECRET",
        "AZURESECRET",
        "TOKENSECRET",
    ] {
        assert!(!text.contains(secret), "{secret} reached the trace");
    }
    assert!(text.contains("[redacted]"));
    assert!(
        text.contains("beta=true"),
        "other query parameters are kept"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&trace).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let records = lines(&trace);
    assert_eq!(records.len(), N);
    let mut inputs: Vec<u64> = session_usage(&trace)
        .iter()
        .map(|u| u["input"].as_u64().expect("every call has its usage"))
        .collect();
    inputs.sort_unstable();
    assert_eq!(inputs, (0..N as u64).map(|n| 100 + n).collect::<Vec<_>>());
}

#[test]
fn an_unreachable_upstream_gives_a_502_json_line_and_a_failed_call() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start(&trace, &["--upstream", &format!("http://127.0.0.1:{port}")]);
    let raw = call(
        &recording.addr,
        "/v1/messages",
        &[],
        &messages_body(0),
        |_| {},
    );
    let head = String::from_utf8_lossy(&raw);
    assert!(head.starts_with("HTTP/1.1 502"), "{head}");
    let body = String::from_utf8(body_of(&raw)).unwrap();
    assert_eq!(body.lines().count(), 1);
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["type"], "error");
    let (status, out) = recording.stop(Signal::INT);
    assert_eq!(status, Some(130));
    assert!(out.contains("502"), "{out}");
    let records = lines(&trace);
    assert_eq!(records[0]["toolprism"]["outcome"], "upstream-unreachable");
    assert_eq!(records[0]["response"]["status_code"], 502);
    let out = toolprism().arg("session").arg(&trace).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("failed call (502)"));
}

/// Ctrl-C while a stream is under way: the call is written whole as interrupted, with the
/// usage its first event carried.
#[test]
fn a_signal_mid_stream_leaves_a_whole_trace() {
    let upstream = Upstream::start(|_request, stream| {
        stream_head(stream);
        chunk(stream, message_start(42, 1000, 0).as_bytes());
        // The rest never comes.
        std::thread::sleep(Duration::from_secs(60));
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
    call_until_first_event(&recording.addr, messages_body(0));
    let (status, _) = recording.stop(Signal::INT);
    assert_eq!(status, Some(130));
    let records = lines(&trace);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["toolprism"]["outcome"], "interrupted");
    assert_eq!(session_usage(&trace)[0]["input"], 42);
}

#[test]
fn gzip_bodies_pass_unchanged_and_are_recorded_readable() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(br#"{"id":"chatcmpl-1","object":"chat.completion","choices":[],"usage":{"prompt_tokens":321,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":256}}}"#)
        .unwrap();
    let compressed = gz.finish().unwrap();
    let sent = compressed.clone();
    let (request_tx, request_rx) = mpsc::channel();
    let request_tx = std::sync::Mutex::new(request_tx);
    let upstream = Upstream::start(move |request, stream| {
        let _ = request_tx.lock().unwrap().send(request);
        whole(
            stream,
            200,
            &[
                ("content-type", "application/json"),
                ("content-encoding", "gzip"),
            ],
            &sent,
        );
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
    let body = r#"{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}"#;
    let raw = call(
        &recording.addr,
        "/v1/chat/completions",
        &[
            ("authorization", "Bearer sk-proj-SECRET"),
            ("accept-encoding", "gzip"),
        ],
        body,
        |_| {},
    );
    assert_eq!(
        body_of(&raw),
        compressed,
        "the gzip body is passed on byte for byte"
    );
    // The provider gets the request as sent: its key, its body, its path; its own host.
    let received = request_rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(received.line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(received.body, body.as_bytes());
    let header = |name: &str| {
        received
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        header("authorization").as_deref(),
        Some("Bearer sk-proj-SECRET")
    );
    assert_eq!(header("host"), Some(format!("127.0.0.1:{}", upstream.port)));
    let _ = recording.stop(Signal::INT);
    assert!(
        !std::fs::read_to_string(&trace)
            .unwrap()
            .contains("sk-proj-SECRET")
    );
    let usage = session_usage(&trace);
    assert_eq!(usage[0]["input"], 321);
    assert_eq!(usage[0]["cache_read"], 256);
}

#[test]
fn a_command_gets_the_base_urls_and_its_exit_status_is_toolprisms() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let env = dir.path().join("env.txt");
    let out = toolprism()
        .args(["record", "--no-view", "-o"])
        .arg(&trace)
        .arg("--")
        .args(["sh", "-c"])
        .arg(format!(
            "env | grep -E '_BASE_URL|_API_BASE' | sort > '{}'; exit 7",
            env.display()
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    let env = std::fs::read_to_string(env).unwrap();
    let port = env
        .lines()
        .find_map(|l| l.strip_prefix("ANTHROPIC_BASE_URL=http://127.0.0.1:"))
        .expect("ANTHROPIC_BASE_URL points at the proxy on loopback");
    assert!(env.contains(&format!("OPENAI_BASE_URL=http://127.0.0.1:{port}/v1")));
    assert!(env.contains(&format!("GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:{port}")));
    assert!(trace.exists());
}

#[test]
fn sigterm_ends_the_command_with_toolprism() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let pidfile = dir.path().join("pid");
    let child = std::process::Command::new(crate::support::command::bin())
        .args(["record", "--no-view", "-o"])
        .arg(&trace)
        .arg("--")
        .args(["sh", "-c"])
        .arg(format!("echo $$ > '{}'; exec sleep 60", pidfile.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok())
        {
            break pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let recording = Recording {
        child,
        addr: String::new(),
        stderr: std::sync::Arc::default(),
    };
    let (status, _) = recording.stop(Signal::TERM);
    // The command was ended by SIGTERM: its status (128 + 15) is toolprism's.
    assert_eq!(status, Some(143));
    let alive = rustix::process::test_kill_process(rustix::process::Pid::from_raw(pid).unwrap());
    assert!(alive.is_err(), "the command outlived toolprism");
}

#[test]
fn an_existing_file_is_never_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    std::fs::write(&trace, "keep me\n").unwrap();
    let out = toolprism()
        .args(["record", "--no-view", "-o"])
        .arg(&trace)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("exists already"), "{err}");
    assert_eq!(std::fs::read_to_string(&trace).unwrap(), "keep me\n");
}

/// `session --follow` on a trace claude-trace is writing: each turn is printed once its line
/// is whole, half a line is waited for.
#[test]
fn session_follow_reads_a_growing_trace() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("claude-trace.jsonl");
    let mut file = std::fs::File::create(&trace).unwrap();
    let mut child = std::process::Command::new(crate::support::command::bin())
        .args(["session", "--follow"])
        .arg(&trace)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (line_tx, line_rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = line_tx.send(line);
        }
    });
    let record = |n: u64| {
        format!(
            "{{\"request\":{{\"timestamp\":1767225600.5,\"method\":\"POST\",\"url\":\"https://api.anthropic.com/v1/messages\",\"headers\":{{}},\"body\":{}}},\"response\":{{\"timestamp\":1767225601.5,\"status_code\":200,\"headers\":{{}},\"body_raw\":{}}},\"logged_at\":\"2026-01-01T00:00:01.000Z\"}}\n",
            messages_body(n as usize),
            serde_json::to_string(&(message_start(50 + n, n * 10, 0) + MESSAGE_STOP)).unwrap()
        )
    };
    let turn_line = |n: &str| {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = line_rx.recv_timeout(left).expect("a timeline line");
            if line.trim_start().starts_with(&format!("{n} ")) {
                return line;
            }
        }
    };
    file.write_all(record(1).as_bytes()).unwrap();
    assert!(turn_line("1").contains("first turn of its thread"));
    let second = record(2);
    let (head, tail) = second.split_at(second.len() / 2);
    file.write_all(head.as_bytes()).unwrap();
    file.flush().unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert!(line_rx.try_recv().is_err(), "half a line is not a turn");
    file.write_all(tail.as_bytes()).unwrap();
    let line = turn_line("2");
    assert!(line.contains("r20"), "{line}");
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, Signal::INT).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
}

/// A reader gone (`| head`) ends `session --follow` at its next line, rather than following
/// on into a closed pipe.
#[test]
fn session_follow_ends_when_its_reader_is_gone() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let line = |n: u32| {
        format!(
            r#"{{"request":{{"method":"POST","url":"https://api.anthropic.com/v1/messages","body":{{"model":"m","messages":[{{"role":"user","content":"turn {n}"}}],"tools":[]}}}},"response":{{"status_code":200,"body":{{"usage":{{"input_tokens":9}}}}}},"logged_at":"2026-01-01T00:00:00Z"}}"#
        ) + "\n"
    };
    std::fs::write(&trace, line(1)).unwrap();
    let mut child = std::process::Command::new(crate::support::command::bin())
        .args(["session", "--follow"])
        .arg(&trace)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.starts_with("following "), "{first}");
    drop(out);
    let mut n = 2;
    let grow = || {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&trace)
            .unwrap();
        file.write_all(line(n).as_bytes()).unwrap();
        n += 1;
    };
    let status = crate::support::command::step_until_exit(
        &mut child,
        Duration::from_secs(20),
        "still following",
        grow,
    );
    assert!(status.success(), "{status:?}");
}

/// Ports and durations, which change from run to run, as placeholders.
fn steady(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut line = line.to_owned();
        if let Some(at) = line.find("127.0.0.1:") {
            let from = at + "127.0.0.1:".len();
            let digits = line[from..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            line.replace_range(from..from + digits, "PORT");
        }
        let words: Vec<String> = line
            .split(' ')
            .map(|w| {
                let number = w
                    .strip_suffix('s')
                    .is_some_and(|n| n.parse::<f64>().is_ok());
                if number {
                    "Ts".to_owned()
                } else {
                    w.to_owned()
                }
            })
            .collect();
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

/// README's "Recording a session" block is what `toolprism record` prints (to its terminal:
/// standard error's lines, then the calls', then the last line), the upstream aside.
#[test]
fn readme_record_block_is_what_record_prints() {
    let readme =
        std::fs::read_to_string(crate::support::command::root().join("README.md")).unwrap();
    let block = readme
        .split("<!-- record: alone -->\n```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README shows the record block");
    let command = block.lines().next().unwrap();
    let args: Vec<&str> = command
        .strip_prefix("$ toolprism ")
        .expect("a toolprism command")
        .split(' ')
        .collect();
    let upstream = Upstream::start(|_request, stream| {
        stream_head(stream);
        chunk(stream, message_start(12, 4096, 0).as_bytes());
        chunk(stream, MESSAGE_STOP.as_bytes());
        chunk(stream, b"");
    });
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(crate::support::command::bin())
        .args(&args)
        .args(["--upstream", &upstream.url()])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut head = String::new();
    let addr = loop {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
        head.push_str(&line);
        if let Some(url) = line
            .trim()
            .strip_prefix("export ANTHROPIC_BASE_URL=http://")
        {
            break url.to_owned();
        }
    };
    loop {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
        head.push_str(&line);
        if line.contains("Ctrl-C") {
            break;
        }
    }
    call(
        &addr,
        "/v1/messages",
        &[("anthropic-version", "2023-06-01")],
        &messages_body(0),
        |_| {},
    );
    // The call's line is printed once it is written.
    std::thread::sleep(Duration::from_millis(300));
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, Signal::INT).unwrap();
    let out = child.wait_with_output().unwrap();
    let mut tail = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut tail).unwrap();
    let shown = format!(
        "{command}\n{head}{}^C\n{tail}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(steady(&shown), steady(block));
}

/// A client that goes away mid-stream: the call is recorded as such, with what came.
#[test]
fn a_client_gone_mid_stream_is_recorded_as_such() {
    let upstream = Upstream::start(|_request, stream| {
        stream_head(stream);
        chunk(stream, message_start(5, 0, 64).as_bytes());
        for _ in 0..50 {
            std::thread::sleep(Duration::from_millis(100));
            chunk(stream, b": ping\n\n");
        }
        chunk(stream, b"");
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
    {
        use std::io::Read;
        let mut stream = std::net::TcpStream::connect(&recording.addr).unwrap();
        let body = messages_body(0);
        write!(
            stream,
            "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&got).contains("message_start") {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "the stream ended early");
            got.extend_from_slice(&buf[..n]);
        }
        // Dropped here: the client goes away.
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .is_empty()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the call was never written"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = recording.stop(Signal::INT);
    let records = lines(&trace);
    assert_eq!(records[0]["toolprism"]["outcome"], "client-disconnected");
    assert_eq!(session_usage(&trace)[0]["cache_write"], 64);
}

/// The HTTPS path: a provider on loopback with a certificate made here, trusted through
/// `SSL_CERT_FILE` (read with the system's roots); the body comes back byte for byte.
#[test]
fn https_upstreams_are_reached_with_the_trust_store() {
    use std::io::{BufRead, BufReader, Read};
    let certified = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, certified.cert.pem()).unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![certified.cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into()),
        )
        .unwrap();
    let config = std::sync::Arc::new(config);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let answer = br#"{"id":"msg_1","type":"message","usage":{"input_tokens":77,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}"#;
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            let Ok(connection) = rustls::ServerConnection::new(config.clone()) else {
                continue;
            };
            let mut tls = rustls::StreamOwned::new(connection, tcp);
            let mut reader = BufReader::new(&mut tls);
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if line == "\r\n" {
                    let mut body = vec![0; length];
                    let _ = reader.read_exact(&mut body);
                    break;
                }
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                answer.len()
            );
            let _ = tls.write_all(head.as_bytes());
            let _ = tls.write_all(answer);
            let _ = tls.flush();
            tls.conn.send_close_notify();
            let _ = tls.flush();
        }
    });
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start_with(
        &trace,
        &["--upstream", &format!("https://127.0.0.1:{port}")],
        &[("SSL_CERT_FILE", &ca)],
    );
    let raw = call(
        &recording.addr,
        "/v1/messages",
        &[
            ("x-api-key", "sk-ant-TLSSECRET"),
            ("anthropic-version", "2023-06-01"),
        ],
        &messages_body(0),
        |_| {},
    );
    assert!(
        String::from_utf8_lossy(&raw).starts_with("HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    assert_eq!(body_of(&raw), answer);
    let _ = recording.stop(Signal::INT);
    assert!(
        !std::fs::read_to_string(&trace)
            .unwrap()
            .contains("TLSSECRET")
    );
    assert_eq!(session_usage(&trace)[0]["input"], 77);
    // Without the certificate in the trust store the provider is not trusted: a 502.
    let untrusted = dir.path().join("u.jsonl");
    let recording = Recording::start_with(
        &untrusted,
        &["--upstream", &format!("https://127.0.0.1:{port}")],
        &[("SSL_CERT_FILE", &dir.path().join("none.pem"))],
    );
    let raw = call(
        &recording.addr,
        "/v1/messages",
        &[],
        &messages_body(0),
        |_| {},
    );
    assert!(String::from_utf8_lossy(&raw).starts_with("HTTP/1.1 502"));
    let _ = recording.stop(Signal::INT);
    assert_eq!(
        lines(&untrusted)[0]["toolprism"]["outcome"],
        "upstream-unreachable"
    );
}

/// Ctrl-C is the command's: a command that carries on after it sets toolprism's status.
#[test]
fn ctrl_c_is_the_commands_own() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let ready = dir.path().join("ready");
    let child = std::process::Command::new(crate::support::command::bin())
        .args(["record", "--no-view", "-o"])
        .arg(&trace)
        .arg("--")
        .args(["sh", "-c"])
        .arg(format!(
            "trap 'exit 5' INT; touch '{}'; while true; do sleep 0.05; done",
            ready.display()
        ))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !ready.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The terminal sends Ctrl-C to its whole foreground group: toolprism and the command.
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, Signal::INT).unwrap();
    let shell = std::process::Command::new("pgrep")
        .args(["-P", &pid.as_raw_nonzero().to_string()])
        .output();
    if let Ok(out) = shell {
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if let Some(p) = line
                .trim()
                .parse()
                .ok()
                .and_then(rustix::process::Pid::from_raw)
            {
                let _ = rustix::process::kill_process(p, Signal::INT);
            }
        }
    }
    let mut child = child;
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(5), "the command's status, not 130");
}

/// Loopback unless another address is spelled out, and then a warning.
#[test]
fn another_address_than_loopback_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolprism()
        .args(["record", "--no-view", "--listen", "0.0.0.0:0", "-o"])
        .arg(dir.path().join("t.jsonl"))
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: listening on 0.0.0.0:"), "{err}");
    assert!(err.contains("can spend the keys"), "{err}");
    let out = toolprism()
        .args(["record", "--no-view", "-o"])
        .arg(dir.path().join("u.jsonl"))
        .args(["--", "true"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
}

/// A command that calls through the proxy (bash's /dev/tcp as its client): no line is drawn
/// over its terminal without `--no-view`, and the session report follows it.
#[test]
fn a_command_calls_through_the_proxy_and_the_report_follows() {
    if std::process::Command::new("bash")
        .arg("-c")
        .arg("true")
        .status()
        .is_err()
    {
        eprintln!("skipped: no bash");
        return;
    }
    let upstream = Upstream::start(|_request, stream| {
        stream_head(stream);
        chunk(stream, message_start(31, 0, 900).as_bytes());
        chunk(stream, MESSAGE_STOP.as_bytes());
        chunk(stream, b"");
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let body = messages_body(0);
    let script = format!(
        "hostport=${{ANTHROPIC_BASE_URL#http://}}; exec 3<>/dev/tcp/${{hostport%:*}}/${{hostport#*:}}; printf 'POST /v1/messages HTTP/1.1\\r\\nhost: x\\r\\nconnection: close\\r\\ncontent-length: {}\\r\\n\\r\\n%s' '{body}' >&3; cat <&3 > '{}'",
        body.len(),
        dir.path().join("answer").display()
    );
    let out = toolprism()
        .args(["record", "-o"])
        .arg(&trace)
        .args(["--upstream", &upstream.url(), "--", "bash", "-c", &script])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer = std::fs::read_to_string(dir.path().join("answer")).unwrap();
    assert!(answer.contains("message_stop"), "{answer}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("POST /v1/messages"), "{stdout}");
    assert!(stdout.contains("Session totals"), "{stdout}");
    assert_eq!(session_usage(&trace)[0]["cache_write"], 900);
}

/// The proxy's address as the live view shows it in its `export` line.
fn shown_addr(screen: &str) -> String {
    let at = screen
        .find("ANTHROPIC_BASE_URL=http://")
        .expect("the export line on screen")
        + "ANTHROPIC_BASE_URL=http://".len();
    screen[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
        .collect()
}

/// `record` on a terminal, end to end in tmux: the live view opens with the lines to paste,
/// two calls sent through the proxy appear as turns with their cache verdicts as they complete,
/// and `q` stops the proxy with the trace whole.
#[test]
fn record_on_a_terminal_shows_the_calls_live_and_q_leaves_a_whole_trace() {
    let upstream = Upstream::start(|request, stream| {
        // The first call writes the cache, the next ones read it.
        let first = String::from_utf8_lossy(&request.body).contains("call 0");
        let (read, write) = if first { (0, 2048) } else { (2048, 0) };
        stream_head(stream);
        chunk(stream, message_start(12, read, write).as_bytes());
        chunk(stream, MESSAGE_STOP.as_bytes());
        chunk(stream, b"");
    });
    let line = format!("$BIN record -o t.jsonl --upstream {}", upstream.url());
    let Some(tmux) = crate::support::tmux::Tmux::program("live-record", (120, 35), &[], &line)
    else {
        return;
    };
    let screen = tmux.wait("the live view, waiting", |s| {
        s.contains("● live · recording · 0 calls") && s.contains("Waiting for the first call")
    });
    let addr = shown_addr(&screen);
    for n in 0..2 {
        let raw = call(
            &addr,
            "/v1/messages",
            &[("x-api-key", "sk-live-view-secret")],
            &messages_body(n),
            |_| {},
        );
        assert!(String::from_utf8_lossy(&raw).contains("message_stop"));
    }
    let screen = tmux.wait("two turns", |s| {
        s.contains("Turns · 2 turns") && s.contains("2 calls")
    });
    assert!(screen.contains("turn 2 of 2"), "{screen}");
    assert!(
        screen.contains("cold") && screen.contains("hit"),
        "{screen}"
    );
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_exit(), 0);
    let trace = tmux.path("t.jsonl");
    assert_eq!(lines(&trace).len(), 2);
    assert!(
        !std::fs::read_to_string(&trace)
            .unwrap()
            .contains("sk-live-view-secret")
    );
    let usage = session_usage(&trace);
    assert_eq!(usage[0]["cache_write"], 2048);
    assert_eq!(usage[1]["cache_read"], 2048);
}

/// `session --follow` on a terminal opens the same live view: lines appended to the trace
/// become rows.
#[test]
fn session_follow_on_a_terminal_is_the_live_view() {
    let sample = std::fs::read_to_string(
        crate::support::command::root().join("samples/traces/claude-code-mcp-reconnect.jsonl"),
    )
    .unwrap();
    let Some(tmux) = crate::support::tmux::Tmux::program(
        "live-follow",
        (100, 30),
        &[("t.jsonl", "")],
        "$BIN session --follow t.jsonl",
    ) else {
        return;
    };
    tmux.wait("the live view", |s| s.contains("● live · following"));
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(tmux.path("t.jsonl"))
        .unwrap();
    for line in sample.lines().take(3) {
        writeln!(file, "{line}").unwrap();
    }
    file.flush().unwrap();
    tmux.wait("two turns", |s| s.contains("Turns · 2 turns"));
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_exit(), 0);
}

/// With a command on a terminal, the session view opens on what it recorded once the command
/// ends (bash's /dev/tcp as the client); `q` leaves with the command's status.
#[test]
fn a_command_on_a_terminal_is_followed_by_the_session_view() {
    let upstream = Upstream::start(|_request, stream| {
        stream_head(stream);
        chunk(stream, message_start(31, 0, 900).as_bytes());
        chunk(stream, MESSAGE_STOP.as_bytes());
        chunk(stream, b"");
    });
    let body = messages_body(0);
    let script = format!(
        "hostport=${{ANTHROPIC_BASE_URL#http://}}; exec 3<>/dev/tcp/${{hostport%:*}}/${{hostport#*:}}; printf 'POST /v1/messages HTTP/1.1\\r\\nhost: x\\r\\nconnection: close\\r\\ncontent-length: {}\\r\\n\\r\\n%s' '{body}' >&3; cat <&3 > answer; exit 3",
        body.len(),
    );
    let line = format!(
        "$BIN record -o t.jsonl --upstream {} -- bash script.sh",
        upstream.url()
    );
    let Some(tmux) = crate::support::tmux::Tmux::program(
        "live-command",
        (120, 35),
        &[("script.sh", &script)],
        &line,
    ) else {
        return;
    };
    let screen = tmux.wait("the session view", |s| {
        s.contains("Session totals") && s.contains("Turns · 1 turn")
    });
    assert!(!screen.contains("● live"), "{screen}");
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_exit(), 3, "the command's status");
    assert!(
        std::fs::read_to_string(tmux.path("answer"))
            .unwrap()
            .contains("message_stop")
    );
}
