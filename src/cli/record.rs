//! `toolprism record`: run the recording proxy, alone (print the `export` lines, record until
//! Ctrl-C) or around a command (its base-URL variables pointed at the proxy, its exit status
//! ours), one line per call on standard output.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use toolprism::record::{Recorder, Route};
use toolprism::sanitize::visible;
use toolprism::text::thousands;
use toolprism::trace::write::{Call, TraceWriter};

use super::args::RecordArgs;
use super::{Failure, Output};
use toolprism::descendants;

/// The variables a command is given, each with the path the proxy's URL takes in it: the SDKs
/// and hosts that read each are listed in docs/RECORD.md.
pub const BASE_URL_VARIABLES: &[(&str, &str)] = &[
    ("ANTHROPIC_BASE_URL", ""),
    ("OPENAI_BASE_URL", "/v1"),
    ("OPENAI_API_BASE", "/v1"),
    ("GOOGLE_GEMINI_BASE_URL", ""),
];

/// How long calls under way get to finish when recording stops.
const GRACE: Duration = Duration::from_secs(2);

/// How long a command has to end after SIGTERM is passed on, before it is killed.
const TERM_WAIT: Duration = Duration::from_secs(5);

/// The default trace name: `toolprism-YYYYMMDD-HHMMSS.jsonl` (UTC) in the current folder.
fn default_path() -> PathBuf {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0));
    let stamp: String = toolprism::trace::time::format_utc(now)
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let (date, time) = stamp.split_at(8.min(stamp.len()));
    PathBuf::from(format!("toolprism-{date}-{time}.jsonl"))
}

/// `--upstream URL`: an http or https base.
fn route(upstream: Option<&str>) -> Result<Route, Failure> {
    let Some(url) = upstream else {
        return Ok(Route::ByPath);
    };
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(Route::To(url.to_owned())),
        _ => Err(Failure::new(format!(
            "--upstream {}: not an http:// or https:// URL",
            visible(url)
        ))),
    }
}

/// `--listen ADDR` (an address and port, or a port on loopback); loopback on any free port
/// without it.
fn listen_addr(listen: Option<&str>) -> Result<SocketAddr, Failure> {
    let Some(text) = listen else {
        return Ok(SocketAddr::from(([127, 0, 0, 1], 0)));
    };
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| {
        Failure::new(format!(
            "--listen {}: not an address and port (127.0.0.1:8080) or a port",
            visible(text)
        ))
    })
}

/// One line about a finished call (`--no-view`, and the live lines without a view).
pub fn call_line(call: &Call) -> String {
    let status = call
        .answer
        .as_ref()
        .map_or_else(|| "---".to_owned(), |a| a.status.to_string());
    let outcome = call.outcome.as_ref().map_or("complete", |o| o.id());
    let mut line = format!(
        "{} {} {status} {:.2}s",
        visible(&call.method),
        visible(call.path()),
        call.end_ms as f64 / 1000.0
    );
    if let Some(usage) = call.usage() {
        line.push_str(&format!(
            " in {} cache read {} write {}",
            thousands(usize::try_from(usage.input).unwrap_or(usize::MAX)),
            thousands(usize::try_from(usage.cache_read).unwrap_or(usize::MAX)),
            thousands(usize::try_from(usage.cache_write).unwrap_or(usize::MAX)),
        ));
    }
    if outcome != "complete" {
        line.push_str(&format!(" ({outcome})"));
    }
    line
}

/// Signals that end a recording: SIGINT (without a command; with one, Ctrl-C is the
/// command's), and every other signal whose default action ends the process (SIGTERM, SIGHUP
/// from a closed terminal, SIGUSR1, SIGALRM, …), as flags. SIGPIPE stays ignored: a closed
/// standard output loses the lines about calls, never the recording.
struct Stops {
    int: Arc<AtomicBool>,
    /// The last such signal to come (0: none yet).
    by: Arc<AtomicUsize>,
}

impl Stops {
    fn install() -> Stops {
        let int = super::interrupt::take_over();
        let by = Arc::new(AtomicUsize::new(0));
        for signal in toolprism::tui::ending_signals() {
            if signal != signal_hook::consts::SIGINT {
                // Signal numbers are small and positive.
                let _ = signal_hook::flag::register_usize(signal, by.clone(), signal as usize);
            }
        }
        Stops { int, by }
    }

    /// The signal (other than SIGINT) that asked the recording to end, if one came.
    fn ending(&self) -> Option<i32> {
        match self.by.load(Ordering::Relaxed) {
            0 => None,
            n => i32::try_from(n).ok(),
        }
    }
}

/// `toolprism record`; `color` is the live view's.
pub fn run(args: &RecordArgs, color: bool) -> Result<Output, Failure> {
    let route = route(args.upstream.as_deref())?;
    let listen = listen_addr(args.listen.as_deref())?;
    let path = args.output.clone().unwrap_or_else(default_path);
    let shown = visible(&path.to_string_lossy()).into_owned();
    let writer = TraceWriter::create(&path).map_err(|e| {
        let why = if e.kind() == std::io::ErrorKind::AlreadyExists {
            "it exists already (toolprism never writes over a file)".to_owned()
        } else {
            toolprism::error::io_reason(&e)
        };
        Failure::new(format!("{shown}: cannot create the trace: {why}"))
    })?;
    let stops = Stops::install();
    // On a terminal without `--no-view`, the session view: live while recording alone, once
    // the command ended with one.
    let view = !args.no_view && std::io::stdout().is_terminal();
    // A command run without `--no-view` owns the terminal (an agent's own screen): its calls'
    // lines would be drawn over it, so they wait for the report at the end; the live view
    // shows the calls itself.
    let lines = args.no_view || (args.command.is_empty() && !view);
    // Under a view, an error writing the trace is told once the view is gone.
    let unwritten: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let kept = unwritten.clone();
    let on_call: toolprism::record::OnCall = Box::new(move |call, written| {
        if lines {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", call_line(call));
        }
        if let Err(e) = written {
            let line = format!(
                "toolprism: the trace could not be written: {}",
                visible(&e.to_string())
            );
            if view {
                if let Ok(mut slot) = kept.lock() {
                    *slot = Some(line);
                }
            } else {
                let _ = writeln!(std::io::stderr(), "{line}");
            }
        }
    });
    let recorder = Recorder::start(listen, route, writer, on_call, args.diagnose).map_err(|e| {
        let _ = std::fs::remove_file(&path);
        Failure::new(format!(
            "cannot listen on {listen}: {}",
            visible(&e.to_string())
        ))
    })?;
    let addr = recorder.addr();
    if !addr.ip().is_loopback() {
        eprintln!(
            "toolprism: warning: listening on {addr}: anyone who can reach it can spend the keys sent through it"
        );
    }
    let status = match (args.command.is_empty(), view) {
        (true, true) => live(&recorder, &path, &shown, color)?,
        (true, false) => alone(&recorder, &shown, &stops),
        (false, _) => with_command(&recorder, &args.command, &stops)?,
    };
    let refused = recorder.refused();
    // Counted once stopped: the calls cut off by stopping are written too.
    let written = recorder
        .stop(GRACE)
        .map_err(|e| Failure::new(format!("{shown}: {}", visible(&e.to_string()))))?;
    if let Some(line) = unwritten.lock().ok().and_then(|mut slot| slot.take()) {
        eprintln!("{line}");
    }
    // After a command: its session, in the session view on a terminal, else as `toolprism
    // session TRACE` prints it.
    if !args.command.is_empty() && written > 0 && view {
        session_view(&path, &shown, color);
    } else if !args.command.is_empty() && written > 0 {
        let settings = toolprism::Settings::default();
        let report = super::session::run(&super::session::Request {
            path: &path,
            label: None,
            json: false,
            strategies: &[],
            thread: None,
            skip_bad: true,
            settings: &settings,
            encoding: toolprism::measure::Encoding::default(),
            budget: None,
            color: false,
        });
        if let Err(Failure(message)) = report {
            eprintln!("toolprism: {message}");
        }
    }
    let mut output = Output::text(String::new());
    output.stderr = format!(
        "toolprism: recorded {} into {shown}{}\n",
        match written {
            1 => "1 call".to_owned(),
            n => format!("{} calls", thousands(n)),
        },
        match refused {
            0 => String::new(),
            1 => "; refused 1 request over the record limit (413)".to_owned(),
            n => format!(
                "; refused {} requests over the record limit (413)",
                thousands(n)
            ),
        }
    );
    output.status = status;
    Ok(output)
}

fn base_url(addr: SocketAddr, suffix: &str) -> String {
    format!("http://{addr}{suffix}")
}

/// The `export` lines to paste into the agent's terminal.
fn exports(addr: SocketAddr) -> Vec<String> {
    BASE_URL_VARIABLES
        .iter()
        .map(|(name, suffix)| format!("export {name}={}", base_url(addr, suffix)))
        .collect()
}

/// No command, on a terminal: print the lines to paste (they stay on the terminal once the
/// view is gone), then the live session view of the trace as calls complete, until it is
/// quit. The caller stops the proxy, so the trace is closed whole.
fn live(
    recorder: &Recorder,
    path: &std::path::Path,
    shown: &str,
    color: bool,
) -> Result<i32, Failure> {
    let hint = exports(recorder.addr());
    let mut text = format!("toolprism: recording into {shown}; in another terminal:\n");
    for line in &hint {
        text.push_str(&format!("  {line}\n"));
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
    let follower = toolprism::trace::follow::Follower::open(path)
        .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
    let source = toolprism::tui::LiveSource {
        follower,
        // The recorder writes claude-trace lines.
        format: toolprism::trace::TraceFormat::ClaudeTrace.id(),
        calls: Some(Box::new(|| (recorder.written(), recorder.in_flight()))),
        hint,
    };
    let settings = toolprism::Settings::default();
    toolprism::tui::run_live(
        source,
        path.to_path_buf(),
        settings,
        toolprism::measure::Encoding::default(),
        color,
    )
    .map(toolprism::tui::Ended::status)
    .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))
}

/// After a command, on a terminal: the session view of what it recorded. A trace that
/// cannot be shown is one line on standard error; the command's status stays toolprism's.
fn session_view(path: &std::path::Path, shown: &str, color: bool) {
    let options = toolprism::trace::TraceOptions { skip_bad: true };
    let result = toolprism::trace::open_path(path, &options)
        .map_err(|e| e.to_string())
        .and_then(|reader| {
            toolprism::tui::run_trace(
                reader,
                shown.to_owned(),
                path.to_path_buf(),
                true,
                toolprism::Settings::default(),
                toolprism::measure::Encoding::default(),
                color,
            )
            .map_err(|e| e.to_string())
        });
    if let Err(e) = result {
        eprintln!("toolprism: {}", visible(&e));
    }
}

/// No command, no view: print the lines to paste, then record until Ctrl-C or SIGTERM.
fn alone(recorder: &Recorder, shown: &str, stops: &Stops) -> i32 {
    let mut text = format!("toolprism: recording into {shown}; in another terminal:\n");
    for line in exports(recorder.addr()) {
        text.push_str(&format!("  {line}\n"));
    }
    text.push_str("toolprism: Ctrl-C stops recording\n");
    let _ = std::io::stderr().write_all(text.as_bytes());
    loop {
        if let Some(signal) = stops.ending() {
            return 128 + signal;
        }
        if stops.int.load(Ordering::Relaxed) {
            return super::EXIT_INTERRUPTED;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Run `command` with the base-URL variables pointing at the proxy and wait for it. Ctrl-C is
/// the command's (the terminal sends it to both): toolprism waits for the command to end.
/// Any other signal that ends toolprism ends the command and everything it started: SIGTERM
/// to each, SIGKILL to what is still running after [`TERM_WAIT`]. Processes the command leaves
/// behind when it ends are ended the same way.
fn with_command(recorder: &Recorder, command: &[OsString], stops: &Stops) -> Result<i32, Failure> {
    let mut cmd = std::process::Command::new(&command[0]);
    cmd.args(&command[1..]);
    for (name, suffix) in BASE_URL_VARIABLES {
        cmd.env(name, base_url(recorder.addr(), suffix));
    }
    let name = visible(&command[0].to_string_lossy()).into_owned();
    descendants::adopt_orphans();
    let mut child = Child(cmd.spawn().map_err(|e| {
        Failure::new(format!(
            "{name}: cannot run it: {}",
            visible(&e.to_string())
        ))
    })?);
    let pid = child.pid();
    let mut term_at: Option<std::time::Instant> = None;
    loop {
        match child.0.try_wait() {
            Ok(Some(status)) => {
                // Ctrl-C was the command's: its status says what came of it.
                super::interrupt::forget();
                descendants::end_all(TERM_WAIT, None);
                return Ok(exit_status(status));
            }
            Ok(None) => {}
            Err(e) => {
                return Err(Failure::new(format!(
                    "{name}: cannot wait for it: {}",
                    visible(&e.to_string())
                )));
            }
        }
        if stops.ending().is_some() {
            match term_at {
                None => {
                    term_at = Some(std::time::Instant::now());
                    // Where the tree cannot be read, the command alone.
                    if descendants::signal_all(rustix::process::Signal::TERM, pid) == 0 {
                        child.signal(rustix::process::Signal::TERM);
                    }
                }
                Some(at) if at.elapsed() > TERM_WAIT => {
                    descendants::kill_all(pid);
                    let _ = child.0.kill();
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A command's exit status as a shell reports it: its code, or 128 plus the signal that ended
/// it.
fn exit_status(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

/// The command, killed if toolprism leaves before it ended (no process outlives toolprism).
struct Child(std::process::Child);

impl Child {
    fn pid(&self) -> Option<rustix::process::Pid> {
        i32::try_from(self.0.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
    }

    fn signal(&self, signal: rustix::process::Signal) {
        if let Some(pid) = self.pid() {
            let _ = rustix::process::kill_process(pid, signal);
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            descendants::kill_all(self.pid());
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
        descendants::kill_all(None);
    }
}
