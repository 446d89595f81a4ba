//! The command line: parsing (clap derive), running each subcommand through the engine, and
//! turning failures into one line on standard error with the contract's exit codes.
//!
//! Every subcommand builds its whole output as a string first, then writes it once: a closed
//! pipe (`toolprism report x | head -1`) ends the program quietly instead of panicking. The one
//! exception is `report --json` into a pipe or file, streamed from the report (see
//! [`Output::report`]).

mod args;
mod commands;
mod diffprint;
mod follow;
mod interrupt;
mod manners;
mod matrix;
mod mcp;
mod record;
mod session;
mod settings_list;
mod suggest;
mod table;
mod transcript;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::Parser;
use toolprism::measure::TokenCounter;
use toolprism::sanitize::visible;
use toolprism::session::pick::{TurnChoice, pick_turn_alone};
use toolprism::trace::{RecordBody, TraceFormat, TraceOptions};
use toolprism::{Capture, Settings, Strategy, diff, report};

use args::{Cli, ColorChoice, Command, Common};

/// The capture used when none is given, bundled so the binary works from any folder.
const BUNDLED_SAMPLE: &str = include_str!("../../samples/small.json");
/// How the bundled sample is named in output.
const BUNDLED_NAME: &str = "samples/small.json (bundled)";

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: a check asked for failed (`report --budget N`).
pub const EXIT_CHECK: i32 = 1;
/// Exit status: usage error, or an unreadable or invalid capture.
pub const EXIT_USAGE: i32 = 2;
/// Exit status: ended by Ctrl-C.
pub const EXIT_INTERRUPTED: i32 = interrupt::EXIT_INTERRUPTED;

/// A failure to report: one line, already naming the file or argument concerned.
#[derive(Debug)]
pub struct Failure(String);

impl Failure {
    fn new(message: impl Into<String>) -> Failure {
        Failure(message.into())
    }
}

/// What a successful command prints.
struct Output {
    stdout: Vec<u8>,
    /// A report to write as pretty JSON after `stdout`, streamed rather than held as text: for
    /// 100,000 tools the text is several times the report's own size. Only when standard
    /// output is not a terminal (a terminal gets escaped text in `stdout`).
    report: Option<report::Report>,
    /// Lines for standard error (warnings, or the check that failed).
    stderr: String,
    /// The exit status once the output is written ([`EXIT_OK`] or [`EXIT_CHECK`]).
    status: i32,
    /// Page `stdout` on a terminal (`diff`, as git pages its diffs).
    page: bool,
}

impl Output {
    fn text(text: String) -> Output {
        Output::bytes(text.into_bytes())
    }

    fn bytes(stdout: Vec<u8>) -> Output {
        Output {
            stdout,
            report: None,
            stderr: String::new(),
            status: EXIT_OK,
            page: false,
        }
    }
}

/// Write `bytes` through a pager when standard output is a terminal (see [`pager`]). `None`
/// when no pager ran (not a terminal, none wanted, none found): write it directly.
fn page(bytes: &[u8]) -> Option<i32> {
    let mut child = pager()?;
    // A pager quit early closes the pipe: not an error.
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(bytes);
    }
    let _ = child.wait();
    Some(EXIT_OK)
}

/// A pager reading its standard input, when standard output is a terminal, as git does:
/// `$PAGER` (run by the shell; empty or `cat`: no pager), else `less` with `LESS=FRX` unless
/// `LESS` is set (quit when it fits on one screen, keep the colours, leave the text on the
/// screen). `None`: not a terminal, none wanted, none found. The caller writes to its stdin,
/// closes it and waits for it.
pub(crate) fn pager() -> Option<std::process::Child> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let pager = std::env::var("PAGER").ok();
    let mut cmd = match pager.as_deref().map(str::trim) {
        Some("" | "cat") => return None,
        Some(p) => {
            let mut cmd = std::process::Command::new("sh");
            cmd.args(["-c", p]);
            cmd
        }
        None => std::process::Command::new("less"),
    };
    if std::env::var_os("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    // Ctrl-C goes to the pager too, which stays on the screen: the program waits for it
    // rather than giving the terminal back to the shell under it, then exits 130.
    interrupt::take_over();
    cmd.stdin(std::process::Stdio::piped()).spawn().ok()
}

/// Parse the arguments, run, print; returns the exit status.
pub fn main() -> i32 {
    interrupt::exit_at_once();
    interrupt::ignore_file_size_signal();
    let status = run_and_print();
    interrupt::end_as_signalled();
    if interrupt::came() {
        EXIT_INTERRUPTED
    } else {
        status
    }
}

fn run_and_print() -> i32 {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(line) = suggest::unknown_subcommand(&args) {
        let _ = writeln!(std::io::stderr(), "toolprism: {line}");
        return EXIT_USAGE;
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version are "errors" to clap that go to stdout with status 0.
            if !e.use_stderr() {
                let _ = e.print();
                return EXIT_OK;
            }
            let _ = writeln!(std::io::stderr(), "toolprism: {}", usage_line(&e, &args));
            return EXIT_USAGE;
        }
    };
    match run(cli) {
        Ok(mut output) => {
            if !output.stderr.is_empty() {
                let _ = std::io::stderr().write_all(output.stderr.as_bytes());
            }
            let direct = || match output.page.then(|| page(&output.stdout)).flatten() {
                Some(status) => status,
                None => write_stdout(&output.stdout),
            };
            let written = match direct() {
                EXIT_OK => output.report.as_mut().map_or(EXIT_OK, write_report_json),
                failed => failed,
            };
            let status = match written {
                EXIT_OK => output.status,
                failed => failed,
            };
            // The process exits next: a report of 100,000 tools is not worth freeing.
            std::mem::forget(output);
            status
        }
        Err(Failure(message)) => {
            let _ = writeln!(std::io::stderr(), "toolprism: {message}");
            EXIT_USAGE
        }
    }
}

/// A clap usage error as one line: its message and tips, without the usage block. An option
/// another subcommand takes gets their names instead of clap's `use '-- --turn'` tip.
fn usage_line(error: &clap::Error, args: &[std::ffi::OsString]) -> String {
    if error.kind() == clap::error::ErrorKind::UnknownArgument
        && let Some(clap::error::ContextValue::String(option)) =
            error.get(clap::error::ContextKind::InvalidArg)
        && let Some(line) = suggest::option_elsewhere(args, option)
    {
        return format!("unexpected argument `{}`: {line}", visible(option));
    }
    let rendered = error.render().to_string();
    let mut joined = String::new();
    for line in rendered.lines() {
        let line = line.trim();
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if line.is_empty() {
            continue;
        }
        if !joined.is_empty() {
            // A list continues its heading line; anything else (a tip) is a new clause.
            joined.push_str(if joined.ends_with(':') { " " } else { "; " });
        }
        joined.push_str(line.strip_prefix("error: ").unwrap_or(line));
    }
    format!("{} (see --help)", visible(&joined))
}

/// JSON for standard output: byte-exact into a pipe or file, but with bidi, C1 and invisible
/// characters written as JSON escapes on a terminal (the same value, nothing for the terminal
/// to interpret).
fn for_terminal(json: String) -> String {
    if std::io::stdout().is_terminal() {
        toolprism::sanitize::json_for_terminal(&json).into_owned()
    } else {
        json
    }
}

/// The terminal's width when standard output is one (tables wrap or fit to it): `COLUMNS`
/// when set (as `ls` reads it), else the terminal's own size, else 80. `None` into a pipe or a
/// file, where the layout never depends on the environment.
pub(crate) fn terminal_width() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0);
    Some(
        from_env
            .or_else(|| {
                crossterm::terminal::size()
                    .ok()
                    .map(|(w, _)| usize::from(w))
            })
            .filter(|&n| n > 0)
            .unwrap_or(80),
    )
}

/// The one line for a standard output closed from the start (see [`stdout_closed`]).
const STDOUT_CLOSED: &str = "<stdout>: standard output is closed; nothing written";

/// Whether standard output was closed when the program started (`>&-`): the runtime then
/// opens `/dev/null` for it, read-write (a shell's `>/dev/null` is write-only), and every
/// write would succeed with nothing written.
fn stdout_closed() -> bool {
    toolprism::export::standard_closed(1)
}

/// Write to standard output; a closed pipe is not an error worth a message, a standard output
/// closed from the start is.
fn write_stdout(bytes: &[u8]) -> i32 {
    if !bytes.is_empty() && stdout_closed() {
        let _ = writeln!(std::io::stderr(), "toolprism: {STDOUT_CLOSED}");
        return EXIT_USAGE;
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "toolprism: <stdout>: {e}");
            EXIT_USAGE
        }
    }
}

/// A report as pretty JSON and a line feed on standard output, streamed through a buffer: the
/// same bytes as `serde_json::to_string_pretty` plus `\n`, never held whole.
fn write_report_json(report: &mut report::Report) -> i32 {
    if stdout_closed() {
        let _ = writeln!(std::io::stderr(), "toolprism: {STDOUT_CLOSED}");
        return EXIT_USAGE;
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = report::write_json(report, &mut out).and_then(|()| out.flush());
    match written {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "toolprism: <stdout>: {e}");
            EXIT_USAGE
        }
    }
}

/// One function per subcommand (`commands`), over arguments clap has resolved.
fn run(cli: Cli) -> Result<Output, Failure> {
    let color = cli.color;
    let Some(command) = cli.command else {
        return open(&cli);
    };
    match command {
        Command::Report(args) => commands::report(args, color),
        Command::Show(args) => commands::show(&args),
        Command::Diff(args) => commands::diff(&args, color),
        Command::Export(args) => commands::export(&args),
        Command::Session(args) => commands::session(&args, color),
        Command::Mcp(args) => mcp::mcp(args, color),
        Command::Record(args) => record::run(&args, tui_color(color)),
        Command::Strategies => Ok(commands::strategies()),
        Command::Settings(args) => settings_list::run(&args),
        Command::Man => commands::man(),
        Command::Completions(args) => Ok(commands::completions(&args)),
    }
}

/// `toolprism [CAPTURE]`: the interactive view, or the session view when the file is a trace.
fn open(cli: &Cli) -> Result<Output, Failure> {
    // As jq, bat and delta: `cat capture.json | toolprism` reads what is piped in. Standard
    // input is spooled to a private temporary file first: its format is told from its content,
    // and a trace's turns are read again from it when the session view opens one.
    let spooled;
    let given = cli.capture.as_deref().map(|p| p.to_string_lossy());
    let (path, shown) = match (cli.capture.as_deref(), given.as_deref()) {
        (Some(_), Some("-")) => {
            spooled = spool_stdin()?;
            (PathBuf::from(temp_path(&spooled)?), "-")
        }
        (Some(path), Some(shown)) => (path.to_owned(), shown),
        _ if cli.capture.is_none() && !std::io::stdin().is_terminal() => {
            spooled = spool_stdin()?;
            // `toolprism </dev/null`: nothing was piped in, which says what was expected.
            if spooled.metadata().is_ok_and(|m| m.len() == 0) {
                return Err(Failure::new(
                    "<stdin>: empty: `toolprism` reads a capture (a request body or an MCP \
                     tools/list result) or a trace piped in; name a file instead \
                     (`toolprism samples/large.json`), or run it on a terminal with nothing \
                     piped for the bundled sample",
                ));
            }
            (PathBuf::from(temp_path(&spooled)?), "-")
        }
        _ => {
            let (capture, name) = bundled()?;
            return open_capture(cli, capture, name);
        }
    };
    let display = toolprism::capture::display_name(shown);
    // Errors name what the user gave, never the spooled copy.
    let path_text = path.to_string_lossy().into_owned();
    let named = |message: String| Failure(message.replace(&path_text, display));
    let options = TraceOptions {
        skip_bad: cli.skip_bad,
    };
    // A Claude Code transcript holds no request to view: what `session` prints of it.
    if shown != "-" && toolprism::session::transcript::sniff(&path) {
        let settings = settings(&cli.set)?;
        return transcript::run(
            std::slice::from_ref(&path),
            false,
            cli.skip_bad,
            None,
            &settings,
        );
    }
    let mut reader = match toolprism::trace::open_path(&path, &options) {
        Ok(reader) => reader,
        // A file known for what it is (a transcript, a cassette that does not parse): its words.
        Err(e) if matches!(e.error, toolprism::error::LoadError::Refused(_)) => {
            return Err(named(visible(&e.to_string()).into_owned()));
        }
        // Not readable as a trace either: the single-capture message, as before traces.
        Err(_) => {
            let capture = Capture::from_file(&path)
                .map_err(|e| named(visible(&e.to_string()).into_owned()))?;
            return open_capture(cli, capture, shown.to_owned());
        }
    };
    // A lone line that is not JSON reads as a torn JSON-lines trace: it is a broken capture.
    if let Some(error) = reader.document_error() {
        let error = error.clone().in_file(display);
        return Err(named(visible(&error.to_string()).into_owned()));
    }
    if reader.format() == TraceFormat::Single {
        // Already read and checked by the detection: take its body rather than parse it again.
        let capture = match reader.next() {
            Some(Ok(record)) => match record.body {
                RecordBody::Request(body) => Capture::from_sent(body, record.body_text.as_deref())
                    .map_err(|e| {
                        named(format!("{}: {}", visible(display), visible(&e.to_string())))
                    })?,
                RecordBody::CompactionStub => Capture::from_file(&path)
                    .map_err(|e| named(visible(&e.to_string()).into_owned()))?,
            },
            _ => Capture::from_file(&path)
                .map_err(|e| named(visible(&e.to_string()).into_owned()))?,
        };
        return open_capture(cli, capture, shown.to_owned());
    }
    let settings = settings(&cli.set)?;
    let encoding = cli.encoding.into();
    if std::io::stdout().is_terminal() {
        // The view ends on Ctrl-C itself, with the terminal restored.
        interrupt::take_over();
        return toolprism::tui::run_trace(
            reader,
            display.to_owned(),
            path.clone(),
            cli.skip_bad,
            settings,
            encoding,
            tui_color(cli.color),
        )
        .map(ended)
        .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()));
    }
    // Into a pipe or a file: what `toolprism session TRACE` prints.
    let counter = TokenCounter::new(encoding);
    session::run_on(
        reader,
        counter,
        &session::Request {
            path: &path,
            label: Some(display),
            json: false,
            strategies: &[],
            thread: None,
            skip_bad: cli.skip_bad,
            settings: &settings,
            encoding,
            budget: None,
            color: use_color(cli.color),
        },
    )
}

/// Today's single-request view of one capture (the table when not on a terminal).
fn open_capture(cli: &Cli, capture: Capture, name: String) -> Result<Output, Failure> {
    let settings = settings(&cli.set)?;
    let encoding = cli.encoding.into();
    // The interactive view plugs in here when standard output is a terminal (keys are read
    // from the terminal itself, so `cat capture.json | toolprism -` works too);
    // `toolprism CAPTURE | less` keeps getting the table below.
    if std::io::stdout().is_terminal() {
        interrupt::take_over();
        return toolprism::tui::run(capture, name, settings, encoding, tui_color(cli.color))
            .map(ended)
            .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()));
    }
    let counter = TokenCounter::new(encoding);
    let report = report::report(&capture, &name, &Strategy::ALL, &settings, &counter);
    Ok(Output::text(table::report_table(
        &report,
        false,
        terminal_width(),
        use_color(cli.color),
    )))
}

/// What the interactive view prints when it ends (nothing), with the status its ending calls
/// for: 130 after Ctrl-C, 128 + N after signal N.
fn ended(ended: toolprism::tui::Ended) -> Output {
    let mut output = Output::text(String::new());
    output.status = ended.status();
    output
}

/// Colour in the interactive views: `--color`, else unless `NO_COLOR` is set.
pub(super) fn tui_color(choice: ColorChoice) -> bool {
    !matches!(choice, ColorChoice::Never)
        && (matches!(choice, ColorChoice::Always)
            || std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()))
}

/// Largest copy of standard input kept in `$TMPDIR` (4 GiB; `TOOLPRISM_SPOOL_LIMIT` sets
/// another number of bytes).
const MAX_SPOOL_BYTES: u64 = 4 << 30;

/// Copy standard input into a private temporary file that has no name from the start (made
/// nameless as soon as it is created): nothing is left in `$TMPDIR` however the process ends,
/// a signal or `kill -9` included. It is read again through its descriptor.
pub(super) fn spool_stdin() -> Result<std::fs::File, Failure> {
    let fail = |e: std::io::Error| {
        Failure::new(format!(
            "<stdin>: cannot keep a copy to read: {}",
            visible(&toolprism::error::temp_reason(&e))
        ))
    };
    let limit = std::env::var("TOOLPRISM_SPOOL_LIMIT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(MAX_SPOOL_BYTES);
    let mut file = tempfile::tempfile().map_err(fail)?;
    let copied = std::io::copy(
        &mut std::io::Read::take(std::io::stdin().lock(), limit.saturating_add(1)),
        &mut file,
    )
    .map_err(fail)?;
    if copied > limit {
        return Err(Failure::new(format!(
            "<stdin>: too large to keep a copy to read: more than {limit} bytes (the limit \
             is {limit} bytes; give the file's path instead)"
        )));
    }
    Ok(file)
}

/// A path that opens the spooled copy again (its descriptor stays open until the process
/// ends).
pub(super) fn temp_path(file: &std::fs::File) -> Result<String, Failure> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    ["/proc/self/fd", "/dev/fd"]
        .iter()
        .map(|dir| format!("{dir}/{fd}"))
        .find(|path| Path::new(path).exists())
        .ok_or_else(|| Failure::new("<stdin>: cannot read the copy kept of it again"))
}

/// The request a single-request command works on.
struct Loaded {
    capture: Capture,
    /// The path as given (`report --json`'s `capture.path`).
    path: String,
    /// How it is named in messages: the path for a single capture, `trace.jsonl turn 5 (line 9)`
    /// for a request of a trace.
    name: String,
    /// Which turn of a trace it is; `None` for a single capture.
    turn: Option<toolprism::report::TurnFigures>,
    /// Every `--set` applied.
    settings: Settings,
    /// The MCP servers a trace's own exchanges named (none for a single capture).
    mcp_servers: Vec<toolprism::trace::McpServer>,
}

/// Load `CAPTURE` through [`pick_turn_alone`]: a single capture as before (same errors), or one
/// request of a trace (`--turn N`, default the last), streamed; then apply its `--set`s.
fn load(common: &Common) -> Result<Loaded, Failure> {
    let choice = match common.turn {
        Some(n) => TurnChoice::Number(n),
        None => TurnChoice::Last,
    };
    let options = TraceOptions {
        skip_bad: common.skip_bad,
    };
    // The previous request of the turn's thread is not shown here: none is kept.
    let picked = pick_turn_alone(&common.capture, choice, &options)
        .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
    // A path that is not UTF-8 is named with U+FFFD for its bad bytes.
    let path = common.capture.to_string_lossy();
    let turn = picked.figures();
    let name = match &turn {
        Some(turn) => turn.label(toolprism::capture::display_name(&path)),
        None => path.clone().into_owned(),
    };
    Ok(Loaded {
        capture: picked.capture,
        path: path.into_owned(),
        name,
        turn,
        settings: settings(&common.set)?,
        mcp_servers: picked.mcp_servers,
    })
}

fn bundled() -> Result<(Capture, String), Failure> {
    let capture = Capture::from_bytes(BUNDLED_SAMPLE.as_bytes())
        .map_err(|e| Failure::new(format!("{BUNDLED_NAME}: {e}")))?;
    Ok((capture, BUNDLED_NAME.to_owned()))
}

/// Apply every `--set K=V` in order; the first bad one is a usage error.
fn settings(set: &[String]) -> Result<Settings, Failure> {
    let mut settings = Settings::default();
    for assignment in set {
        settings.apply(assignment).map_err(|e| {
            // A near miss is named first, as a mistyped subcommand or strategy is.
            if let toolprism::strategies::registry::SettingsError::UnknownKey(key) = &e
                && let Some(near) =
                    manners::did_you_mean(key, Settings::KEYS.iter().map(|k| k.key))
            {
                return Failure::new(format!(
                    "--set: unknown setting `{}`; did you mean `{near}`? (`toolprism settings` lists them)",
                    visible(key)
                ));
            }
            Failure::new(format!("--set: {}", visible(&e.to_string())))
        })?;
    }
    Ok(settings)
}

/// Colour on a terminal unless `NO_COLOR` is set (non-empty); `always`/`never` decide alone.
fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

/// The byte summary `diff` prints under its hunks, exposed for the table too.
pub(crate) fn summary_line(summary: &diff::ByteSummary) -> String {
    let prefix = match summary.first_changed_byte {
        None => "identical".to_owned(),
        Some(at) => format!("first changed byte {}", toolprism::text::thousands(at)),
    };
    format!(
        "tools array {} → {} bytes: {prefix}, −{} +{} bytes",
        toolprism::text::thousands(summary.before_bytes),
        toolprism::text::thousands(summary.after_bytes),
        toolprism::text::thousands(summary.bytes_removed),
        toolprism::text::thousands(summary.bytes_added),
    )
}
