//! `toolprism record` under attack: nothing it or its command started outlives it, whatever
//! signal ends it; the calls in flight are written whole; no key in the trace; bodies bounded.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use serde_json::Value;

use crate::support::command::bin;
use crate::support::upstream::{
    Recording, Upstream, call, call_until_first_event, chunk, message_start, messages_body,
    stream_head,
};

fn lines(trace: &Path) -> Vec<Value> {
    std::fs::read_to_string(trace)
        .expect("the trace")
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line is whole JSON"))
        .collect()
}

/// Whether a process is gone (ended, or a zombie nobody has collected yet).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => Pid::from_raw(pid).is_none_or(|p| rustix::process::test_kill_process(p).is_err()),
    }
}

/// Wait for `path` to hold a pid (one per line); all of them.
fn pids(path: &Path, count: usize) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found: Vec<i32> = std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        if found.len() >= count {
            return found;
        }
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `record -- sh -c SCRIPT`, its output discarded.
fn record_command(trace: &Path, script: &str) -> std::process::Child {
    std::process::Command::new(bin())
        .args(["record", "--no-view", "-o"])
        .arg(trace)
        .args(["--", "sh", "-c", script])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run toolprism record")
}

fn wait_gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !gone(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// `npx` leaves `node` behind: a command whose child runs in the background (and would not
/// end on the command's SIGTERM alone) is ended with it, whatever signal ends toolprism.
#[test]
fn a_command_and_everything_it_started_end_with_toolprism() {
    for signal in [Signal::TERM, Signal::HUP, Signal::USR1, Signal::ALARM] {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("t.jsonl");
        let pidfile = dir.path().join("pids");
        let script = format!(
            "sleep 60 & echo $! > '{p}'; echo $$ >> '{p}'; wait",
            p = pidfile.display()
        );
        let mut child = record_command(&trace, &script);
        let started = pids(&pidfile, 2);
        rustix::process::kill_process(Pid::from_child(&child), signal).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(
            status.code(),
            Some(143),
            "{signal:?}: the command's SIGTERM"
        );
        for pid in started {
            assert!(
                wait_gone(pid),
                "{signal:?}: process {pid} outlived toolprism"
            );
        }
    }
}

/// A command that ends on its own, leaving a child running (even one that ignores SIGTERM):
/// toolprism ends it before it ends, and keeps the command's status.
#[test]
fn what_a_command_leaves_behind_is_ended() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let pidfile = dir.path().join("pids");
    let script = format!(
        "(trap '' TERM; sleep 60) & echo $! > '{p}'; sleep 60 & echo $! >> '{p}'; exit 4",
        p = pidfile.display()
    );
    let mut child = record_command(&trace, &script);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(4));
    for pid in pids(&pidfile, 2) {
        assert!(gone(pid), "process {pid} outlived toolprism");
    }
}

/// SIGHUP (a closed terminal), SIGUSR1, SIGALRM, SIGQUIT: the call in flight is written whole
/// as interrupted, and toolprism ends as the signal says (128 plus its number).
#[test]
fn every_ending_signal_writes_the_calls_in_flight() {
    let upstream = Upstream::start(|_request, stream| {
        stream_head(stream);
        chunk(stream, message_start(42, 1000, 0).as_bytes());
        std::thread::sleep(Duration::from_secs(30));
    });
    for (signal, number) in [
        (Signal::HUP, 1),
        (Signal::USR1, 10),
        (Signal::ALARM, 14),
        (Signal::QUIT, 3),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("t.jsonl");
        let recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
        call_until_first_event(&recording.addr, messages_body(0));
        let (status, _) = recording.stop(signal);
        assert_eq!(status, Some(128 + number), "{signal:?}");
        let records = lines(&trace);
        assert_eq!(records.len(), 1, "{signal:?}");
        assert_eq!(records[0]["toolprism"]["outcome"], "interrupted");
    }
}

/// Send a request head, then `body` in chunks as long as the proxy reads; the response head's
/// status line, and how many body bytes went out.
fn send_chunked(addr: &str, chunks: usize, chunk_size: usize) -> (String, usize) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream
        .write_all(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n")
        .unwrap();
    let data = vec![b' '; chunk_size];
    let mut sent = 0;
    for _ in 0..chunks {
        let head = format!("{chunk_size:x}\r\n");
        let ok = stream.write_all(head.as_bytes()).is_ok()
            && stream.write_all(&data).is_ok()
            && stream.write_all(b"\r\n").is_ok();
        if !ok {
            break;
        }
        sent += chunk_size;
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let mut got = Vec::new();
    let _ = stream.read_to_end(&mut got);
    let text = String::from_utf8_lossy(&got);
    (text.lines().next().unwrap_or("").to_owned(), sent)
}

/// A request body over the record limit (256 MiB) never reaches the provider: refused with a
/// 413 before it is read when its length says so, as soon as it passes the limit when chunked.
#[test]
fn a_request_over_the_record_limit_is_refused_with_413() {
    use std::io::{Read, Write};
    let (seen_tx, seen_rx) = mpsc::channel::<usize>();
    let seen_tx = std::sync::Mutex::new(seen_tx);
    let upstream = Upstream::start(move |request, stream| {
        let _ = seen_tx.lock().unwrap().send(request.body.len());
        crate::support::upstream::whole(stream, 200, &[], b"{}");
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
    let mut stream = std::net::TcpStream::connect(&recording.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
        .write_all(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 300000000\r\n\r\n{\"model\":")
        .unwrap();
    let mut got = Vec::new();
    let _ = stream.read_to_end(&mut got);
    let got = String::from_utf8_lossy(&got);
    assert!(got.starts_with("HTTP/1.1 413"), "{got}");
    assert!(got.contains("toolprism_request_too_large"), "{got}");
    // 257 chunks of 1 MiB: refused once past 256 MiB, never all read.
    let (status, sent) = send_chunked(&recording.addr, 400, 1024 * 1024);
    assert!(status.starts_with("HTTP/1.1 413"), "{status}");
    assert!(
        sent < 400 * 1024 * 1024,
        "the proxy stopped reading: {sent}"
    );
    // A body within the limit still goes through, after both.
    let (status, _) = send_chunked(&recording.addr, 2, 1024);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    assert_eq!(seen_rx.recv_timeout(Duration::from_secs(5)).unwrap(), 2048);
    assert!(
        seen_rx.try_recv().is_err(),
        "no refused body reached the provider"
    );
    let _ = recording.stop(Signal::TERM);
}

/// A gzip answer of under a megabyte that decodes to 300 MiB: the client gets its bytes as
/// they came, the trace keeps what fits (marked), and the proxy lives on.
#[test]
fn a_small_answer_that_decodes_huge_never_ends_the_proxy() {
    use std::io::Write;
    let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    member.write_all(&vec![b'x'; 1024 * 1024]).unwrap();
    let member = member.finish().unwrap();
    // Gzip members one after another decode as one body.
    let mut bomb = Vec::new();
    for _ in 0..300 {
        bomb.extend_from_slice(&member);
    }
    assert!(bomb.len() < 1_000_000, "{}", bomb.len());
    let sent = bomb.clone();
    let upstream = Upstream::start(move |request, stream| {
        // The second call is answered small: the proxy is still there to pass it on.
        let small = String::from_utf8_lossy(&request.body).contains("call 1");
        crate::support::upstream::whole(
            stream,
            200,
            &[
                ("content-type", "application/json"),
                ("content-encoding", if small { "identity" } else { "gzip" }),
            ],
            if small { b"{}" } else { &sent },
        );
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
    let headers = [
        ("cf-aig-authorization", "Bearer cf-SECRET-1"),
        ("x-authorization", "xa-SECRET-2"),
        ("authentication", "au-SECRET-3"),
        ("x-claude-code-session-id", "sess-SECRET-4"),
        ("anthropic-beta", "prompt-caching-2024-07-31"),
    ];
    let raw = call(
        &recording.addr,
        "/v1/messages",
        &headers,
        &messages_body(0),
        |_| {},
    );
    assert!(
        crate::support::upstream::body_of(&raw) == bomb,
        "the client gets the bytes as they came"
    );
    // The proxy is alive: the next call goes through.
    let again = call(
        &recording.addr,
        "/v1/messages",
        &[],
        &messages_body(1),
        |_| {},
    );
    assert_eq!(crate::support::upstream::body_of(&again), b"{}");
    let _ = recording.stop(Signal::TERM);
    let text = std::fs::read(&trace).unwrap();
    assert_eq!(text.iter().filter(|&&b| b == b'\n').count(), 2);
    let first = text.split(|&b| b == b'\n').next().unwrap();
    assert!(first.len() < 256 * 1024 * 1024, "{}", first.len());
    let first = String::from_utf8_lossy(first);
    for secret in ["SECRET-1", "SECRET-2", "SECRET-3", "SECRET-4"] {
        assert!(!first.contains(secret), "{secret} in the trace");
    }
    assert!(first.contains("\"anthropic-beta\":\"prompt-caching-2024-07-31\""));
    assert!(first.contains("\"body_truncated\":true"));
}

/// An answer with `content-length: 0` is a complete empty answer; two calls cut off by Ctrl-C
/// are written as interrupted and counted in the closing line.
#[test]
fn empty_answers_are_complete_and_every_written_call_is_counted() {
    let upstream = Upstream::start(|request, stream| {
        if String::from_utf8_lossy(&request.body).contains("call 0") {
            crate::support::upstream::whole(stream, 200, &[], b"");
            return;
        }
        stream_head(stream);
        chunk(stream, message_start(7, 0, 0).as_bytes());
        std::thread::sleep(Duration::from_secs(30));
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
    let raw = call(
        &recording.addr,
        "/v1/messages",
        &[],
        &messages_body(0),
        |_| {},
    );
    assert!(String::from_utf8_lossy(&raw).starts_with("HTTP/1.1 200"));
    for n in 1..=2 {
        call_until_first_event(&recording.addr, messages_body(n));
    }
    let stderr = recording.stderr.clone();
    let (status, _) = recording.stop(Signal::INT);
    assert_eq!(status, Some(130));
    let records = lines(&trace);
    let outcomes: Vec<&str> = records
        .iter()
        .map(|r| r["toolprism"]["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["complete", "interrupted", "interrupted"]);
    // The drain thread may still be reading the last line.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !stderr.lock().unwrap().contains("recorded") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let said = stderr.lock().unwrap().clone();
    assert!(said.contains("recorded 3 calls into"), "{said}");
}

/// A conversation's request: its first user message, then `turns` more exchanges.
fn conversation_body(turns: usize, own: Option<&str>) -> String {
    let mut messages = vec![r#"{"role":"user","content":"hello"}"#.to_owned()];
    for n in 0..turns {
        messages.push(format!(r#"{{"role":"assistant","content":"answer {n}"}}"#));
        messages.push(format!(r#"{{"role":"user","content":"more {n}"}}"#));
    }
    let own = own.map_or(String::new(), |id| {
        format!(r#""diagnostics":{{"previous_message_id":"{id}"}}, "#)
    });
    format!(
        "{{{own}\"model\": \"claude-opus-5\", \"max_tokens\": 64, \"tools\": [{{\"name\":\"read_file\",\"input_schema\":{{\"type\":\"object\"}}}}],\n  \"messages\": [{}]\n}}\n",
        messages.join(",")
    )
}

/// `body` with `"diagnostics":{"previous_message_id":ID}` added before its closing brace.
fn with_diagnostics(body: &str, id: &str) -> Vec<u8> {
    let close = body.rfind('}').unwrap();
    format!(
        "{},\"diagnostics\":{{\"previous_message_id\":{id}}}{}",
        &body[..close],
        &body[close..]
    )
    .into_bytes()
}

/// `record --diagnose` against a stand-in for api.anthropic.com that answers with
/// diagnostics: each request gets the id of the answer relayed last on its conversation
/// (`null` first), byte for byte, the rest of the body untouched; a request with its own
/// `diagnostics` is sent as it came; the trace has the bodies as sent and what was added. A
/// gateway (`--upstream`) is never given it.
#[test]
fn diagnose_adds_the_last_answer_id_to_first_party_requests() {
    let (seen_tx, seen_rx) = mpsc::channel::<Vec<u8>>();
    let seen_tx = std::sync::Mutex::new(seen_tx);
    let upstream = Upstream::start(move |request, stream| {
        let _ = seen_tx.lock().unwrap().send(request.body.clone());
        let text = String::from_utf8_lossy(&request.body).into_owned();
        if text.contains("more 0") && !text.contains("more 1") {
            // The second turn is streamed: its id is on `message_start` (`msg_1`).
            stream_head(stream);
            chunk(stream, message_start(5, 100, 0).as_bytes());
            chunk(
                stream,
                b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
            );
            chunk(stream, b"");
            return;
        }
        let id = if text.contains("more 1") {
            "msg_C"
        } else {
            "msg_A"
        };
        let body = format!(
            r#"{{"id":"{id}","type":"message","content":[],"usage":{{"input_tokens":9}},"diagnostics":{{"cache_miss_reason":{{"type":"tools_changed","cache_missed_input_tokens":40}}}}}}"#
        );
        crate::support::upstream::whole(
            stream,
            200,
            &[("content-type", "application/json")],
            body.as_bytes(),
        );
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let base = upstream.url();
    let recording = Recording::start_with(
        &trace,
        &["--diagnose"],
        &[("TOOLPRISM_ANTHROPIC_BASE", Path::new(&base))],
    );
    let bodies = [
        conversation_body(0, None),
        conversation_body(1, None),
        conversation_body(2, Some("msg_mine")),
        conversation_body(3, None),
    ];
    let mut got = Vec::new();
    for body in &bodies {
        let raw = call(&recording.addr, "/v1/messages", &[], body, |_| {});
        assert!(String::from_utf8_lossy(&raw).starts_with("HTTP/1.1 200"));
        got.push(seen_rx.recv_timeout(Duration::from_secs(5)).unwrap());
    }
    let expected = [
        with_diagnostics(&bodies[0], "null"),
        with_diagnostics(&bodies[1], "\"msg_A\""),
        bodies[2].clone().into_bytes(),
        with_diagnostics(&bodies[3], "\"msg_C\""),
    ];
    for (n, (got, expected)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(
            String::from_utf8_lossy(got),
            String::from_utf8_lossy(expected),
            "request {n}"
        );
    }
    let _ = recording.stop(Signal::TERM);
    let records = lines(&trace);
    assert_eq!(records.len(), 4);
    assert_eq!(
        records[0]["toolprism"]["added"],
        serde_json::json!({"diagnostics": {"previous_message_id": null}})
    );
    assert_eq!(
        records[0]["request"]["body"]["diagnostics"],
        serde_json::json!({"previous_message_id": null})
    );
    assert_eq!(
        records[1]["toolprism"]["added"]["diagnostics"]["previous_message_id"],
        "msg_A"
    );
    assert!(records[2]["toolprism"].get("added").is_none());
    assert_eq!(
        records[3]["request"]["body"]["diagnostics"]["previous_message_id"],
        "msg_C"
    );

    // Through a gateway (`--upstream`), nothing is added.
    let trace = dir.path().join("gateway.jsonl");
    let recording = Recording::start_with(
        &trace,
        &["--diagnose", "--upstream", &base],
        &[(
            "TOOLPRISM_ANTHROPIC_BASE",
            Path::new("https://api.anthropic.com"),
        )],
    );
    call(&recording.addr, "/v1/messages", &[], &bodies[0], |_| {});
    let got = seen_rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(String::from_utf8_lossy(&got), bodies[0]);
    let _ = recording.stop(Signal::TERM);
}

/// A closed standard output (`record | head -1` gone) loses the lines about calls, never the
/// recording: SIGPIPE stays ignored, the call is passed on and written.
#[test]
fn a_closed_standard_output_never_stops_the_recording() {
    let upstream = Upstream::start(|_request, stream| {
        crate::support::upstream::whole(
            stream,
            200,
            &[("content-type", "application/json")],
            br#"{"id":"msg_1","usage":{"input_tokens":3}}"#,
        );
    });
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let mut recording = Recording::start(&trace, &["--upstream", &upstream.url()]);
    drop(recording.child.stdout.take());
    for n in 0..2 {
        let raw = call(
            &recording.addr,
            "/v1/messages",
            &[],
            &messages_body(n),
            |_| {},
        );
        assert!(String::from_utf8_lossy(&raw).starts_with("HTTP/1.1 200"));
    }
    let (status, _) = recording.stop(Signal::TERM);
    assert_eq!(status, Some(143));
    assert_eq!(lines(&trace).len(), 2);
}
