//! A stdio server: a child process in a process group of its own, killed by the kernel when
//! toolprism dies (Linux: a parent-death signal set in the child before `exec`). Its standard
//! output is read by one thread and its standard input written by another, so no read or
//! write can hold the listing past its deadline or a cancel: a server that stops reading
//! blocks only the writer thread, which ends when the group is killed (the pipe breaks).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::time::Duration;

use serde_json::{Value, json};

use super::{
    Limits, ListStatus, Listing, MAX_MESSAGE_BYTES, PROTOCOL_VERSION, Session, Stop, answer,
    converse,
};
use crate::mcp::config::StdioServer;

/// Bytes of a server's standard error kept for its last line.
const STDERR_KEPT: usize = 4096;

/// Messages the output's reader may hold before toolprism takes them.
const LINES_AHEAD: usize = 4;

/// A stdio server's process group, ended when dropped (every path out, panics included).
struct Group {
    child: Child,
}

impl Group {
    fn end(&mut self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.child.id().cast_signed()) {
            // The whole group: a server started through `npx` or a shell has children.
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.end();
    }
}

struct StdioSession {
    /// Lines for the writer thread.
    writes: Sender<Vec<u8>>,
    /// Whether each line was written (in order).
    written: Receiver<bool>,
    lines: Receiver<Result<Value, String>>,
}

impl Session for StdioSession {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        limits: &Limits,
    ) -> Result<Value, Stop> {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&line, limits)?;
        loop {
            match limits.receive(&self.lines)? {
                Some(Ok(message)) => {
                    if let Some(result) = answer(&message, id) {
                        return result;
                    }
                    // A request from the server (roots, sampling): refused, so it goes on.
                    if let (Some(their), Some(_)) = (message.get("id"), message.get("method")) {
                        let reply = json!({"jsonrpc": "2.0", "id": their, "error": {"code": -32601, "message": "not supported"}});
                        self.send(&reply, limits)?;
                    }
                }
                Some(Err(problem)) => return Err(Stop::Failed(problem)),
                None => return Err(Stop::Failed("the server exited".into())),
            }
        }
    }

    fn notify(&mut self, method: &str, limits: &Limits) -> Result<(), Stop> {
        self.send(&json!({"jsonrpc": "2.0", "method": method}), limits)
    }
}

impl StdioSession {
    /// One line to the server's standard input, written within the limits.
    fn send(&mut self, message: &Value, limits: &Limits) -> Result<(), Stop> {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        let exited = || Stop::Failed("the server exited".into());
        self.writes.send(line).map_err(|_| exited())?;
        match limits.receive(&self.written)? {
            Some(true) => Ok(()),
            Some(false) | None => Err(exited()),
        }
    }
}

/// Write each line to standard input until the session is gone or a write fails (the server
/// exited or its group was killed), saying after each whether it was written.
fn write_lines(mut stdin: ChildStdin, lines: &Receiver<Vec<u8>>, done: &Sender<bool>) {
    for line in lines {
        let ok = stdin.write_all(&line).and_then(|()| stdin.flush()).is_ok();
        if done.send(ok).is_err() || !ok {
            return;
        }
    }
}

/// The command as configured, in a process group of its own, its pipes taken by toolprism,
/// killed by the kernel if toolprism dies first (Linux).
fn command_of(server: &StdioServer) -> Command {
    let mut command = Command::new(&server.command);
    command
        .args(&server.args)
        .envs(server.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = &server.cwd {
        command.current_dir(cwd);
    }
    // Its own group: Ctrl-C at the terminal reaches toolprism alone, which ends the group.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    die_with_parent(&mut command);
    command
}

/// Linux: the child gets SIGKILL when toolprism ends, even by `kill -9` (its group is the
/// watchdog's then, [`crate::mcp::reap::watch`]). The parent-death signal
/// fires when the thread that started the child ends; the listing thread outlives its server.
#[cfg(target_os = "linux")]
#[allow(
    unsafe_code,
    reason = "a pre-exec hook runs in the forked child; it makes two system calls only"
)]
fn die_with_parent(command: &mut Command) {
    let parent = rustix::process::getpid();
    // SAFETY: between fork and exec only async-signal-safe system calls (prctl, getppid) are
    // made; nothing is allocated or locked.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(command, move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // toolprism died before the signal was set: nobody would kill this child.
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other("toolprism ended"));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}

/// Start a stdio server (values already expanded) in a process group of its own, list its
/// tools, end the group.
pub fn list_stdio(server: &StdioServer, limits: &Limits) -> Listing {
    if let Some(cwd) = &server.cwd
        && !std::path::Path::new(cwd).is_dir()
    {
        return Listing::failed(
            ListStatus::Failed,
            format!("its folder {cwd} does not exist (or is not a folder)"),
        );
    }
    let child = match command_of(server).spawn() {
        Ok(child) => child,
        Err(e) => {
            return Listing::failed(
                ListStatus::Failed,
                format!(
                    "could not start `{}`: {}",
                    server.command,
                    crate::error::io_reason(&e)
                ),
            );
        }
    };
    // Its group is killed even if toolprism is (`kill -9`): its children too (`npx` starts
    // the real server as one).
    crate::mcp::reap::watch(child.id());
    let mut group = Group { child };
    let (Some(stdin), Some(stdout), Some(stderr)) = (
        group.child.stdin.take(),
        group.child.stdout.take(),
        group.child.stderr.take(),
    ) else {
        return Listing::failed(ListStatus::Failed, "no pipes to the server");
    };
    // Bounded: a server that floods its output waits for toolprism, not memory.
    let (sender, lines) = mpsc::sync_channel(LINES_AHEAD);
    std::thread::spawn(move || read_lines(stdout, &sender));
    let (tail_sender, tail) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tail_sender.send(last_line(stderr));
    });
    let (writes, to_write) = mpsc::channel();
    let (done, written) = mpsc::channel();
    std::thread::spawn(move || write_lines(stdin, &to_write, &done));
    let mut session = StdioSession {
        writes,
        written,
        lines,
    };
    let mut listing = converse(&mut session, PROTOCOL_VERSION, limits);
    drop(session);
    group.end();
    // The group is gone, so standard error is closed and its reader done.
    listing.stderr = tail.recv_timeout(Duration::from_millis(500)).ok().flatten();
    listing
}

/// Each line of standard output as JSON, until it closes or a line is too long.
fn read_lines(stdout: std::process::ChildStdout, sender: &SyncSender<Result<Value, String>>) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_MESSAGE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line);
        match read {
            Ok(0) | Err(_) => return,
            Ok(_) if line.len() > MAX_MESSAGE_BYTES => {
                let _ = sender.send(Err(format!("a message over {MAX_MESSAGE_BYTES} bytes")));
                return;
            }
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let message = serde_json::from_str::<Value>(text).map_err(|_| {
            let shown: String = text.chars().take(80).collect();
            format!("not MCP: wrote `{shown}` on standard output")
        });
        let stop = message.is_err();
        if sender.send(message).is_err() || stop {
            return;
        }
    }
}

/// The last non-empty line of a stream, keeping only its last few KiB.
fn last_line(mut stream: impl Read) -> Option<String> {
    let mut kept: Vec<u8> = Vec::new();
    let mut buffer = [0u8; 4096];
    while let Ok(n) = stream.read(&mut buffer) {
        if n == 0 {
            break;
        }
        kept.extend_from_slice(&buffer[..n]);
        if kept.len() > 2 * STDERR_KEPT {
            kept.drain(..kept.len() - STDERR_KEPT);
        }
    }
    String::from_utf8_lossy(&kept)
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}
