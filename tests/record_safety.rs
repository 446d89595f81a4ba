//! `toolprism record` under attack: nothing it or its command started outlives it, whatever
//! signal ends it; the calls in flight are written whole; no key in the trace; bodies bounded.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use serde_json::Value;

use crate::support::command::bin;
use crate::support::upstream::{
    Recording, Upstream, call, chunk, message_start, messages_body, stream_head,
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
        let addr = recording.addr.clone();
        let (got_tx, got_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = false;
            call(&addr, "/v1/messages", &[], &messages_body(0), |got| {
                if !sent && String::from_utf8_lossy(got).contains("message_start") {
                    sent = true;
                    let _ = got_tx.send(());
                }
            });
        });
        got_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the first event came through");
        let (status, _) = recording.stop(signal);
        assert_eq!(status, Some(128 + number), "{signal:?}");
        let records = lines(&trace);
        assert_eq!(records.len(), 1, "{signal:?}");
        assert_eq!(records[0]["toolprism"]["outcome"], "interrupted");
    }
}
