//! The command line: parsing (clap derive), running each subcommand through the engine, and
//! turning failures into one line on standard error with the contract's exit codes.
//!
//! Every subcommand builds its whole output as a string first, then writes it once: a closed
//! pipe (`toolprism report x | head -1`) ends the program quietly instead of panicking. The one
//! exception is `report --json` into a pipe or file, streamed from the report (see
//! [`Output::report`]).

mod args;
mod diffprint;
mod interrupt;
mod manners;
mod matrix;
mod session;
mod table;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::sanitize::visible;
use toolprism::session::pick::{TurnChoice, pick_turn_alone};
use toolprism::trace::{RecordBody, TraceFormat, TraceOptions};
use toolprism::{Capture, Settings, Strategy, diff, export, project, report};

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
        Output {
            stdout: text.into_bytes(),
            report: None,
            stderr: String::new(),
            status: EXIT_OK,
            page: false,
        }
    }
}

/// Write `bytes` through a pager when standard output is a terminal, as git does: `$PAGER`
/// (run by the shell; empty or `cat`: no pager), else `less` with `LESS=FRX` unless `LESS` is
/// set (quit when it fits on one screen, keep the colours, leave the text on the screen).
/// `None` when no pager ran (not a terminal, none wanted, none found): write it directly.
fn page(bytes: &[u8]) -> Option<i32> {
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
    let mut child = cmd.stdin(std::process::Stdio::piped()).spawn().ok()?;
    // A pager quit early closes the pipe: not an error.
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(bytes);
    }
    let _ = child.wait();
    Some(EXIT_OK)
}

/// Parse the arguments, run, print; returns the exit status.
pub fn main() -> i32 {
    interrupt::exit_at_once();
    let status = run_and_print();
    if interrupt::came() {
        EXIT_INTERRUPTED
    } else {
        status
    }
}

fn run_and_print() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version are "errors" to clap that go to stdout with status 0.
            if !e.use_stderr() {
                let _ = e.print();
                return EXIT_OK;
            }
            let _ = writeln!(std::io::stderr(), "toolprism: {}", usage_line(&e));
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

/// A clap usage error as one line: its message and tips, without the usage block.
fn usage_line(error: &clap::Error) -> String {
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
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let stdout = std::io::stdout();
    let fd = stdout.as_fd();
    let read_write = rustix::fs::fcntl_getfl(fd)
        .is_ok_and(|flags| flags & rustix::fs::OFlags::RWMODE == rustix::fs::OFlags::RDWR);
    let null = std::fs::metadata("/dev/null").map(|m| m.rdev());
    let ours = fd
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|f| f.metadata())
        .map(|m| m.rdev());
    read_write && matches!((null, ours), (Ok(a), Ok(b)) if a == b)
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

fn run(cli: Cli) -> Result<Output, Failure> {
    let color = cli.color;
    let Some(command) = cli.command else {
        return open(&cli);
    };
    match command {
        Command::Report {
            common,
            strategies,
            json,
            encoding,
            per_tool,
            matrix,
            budget,
        } => {
            // `--format markdown|csv` is a matrix format: asking for it is asking for the matrix.
            let mut matrix = matrix;
            if matches!(
                matrix.format,
                Some(matrix::Format::Markdown | matrix::Format::Csv)
            ) {
                matrix.matrix = true;
            }
            // Started first: the encoder is built on a background thread while the capture is
            // read and parsed.
            let counter = TokenCounter::new(encoding.into());
            let Loaded {
                capture,
                path,
                name,
                turn,
            } = load(&common)?;
            let settings = settings(&common.set)?;
            let strategies = if strategies.is_empty() {
                Strategy::ALL.to_vec()
            } else if matrix.matrix {
                matrix::with_original(strategies)
            } else {
                // `-s minimal,defer -s minimal`: each strategy once, in first-named order.
                let mut unique = Vec::with_capacity(strategies.len());
                for strategy in strategies {
                    if !unique.contains(&strategy) {
                        unique.push(strategy);
                    }
                }
                unique
            };
            let mut report = report::report(&capture, &path, &strategies, &settings, &counter);
            report.turn = turn;
            // Not freed: the process exits after printing, and freeing the trees of 100,000
            // tools takes a third of a second.
            std::mem::forget(capture);
            let streamed = json && !std::io::stdout().is_terminal();
            let text = if streamed {
                String::new()
            } else if json {
                let mut text = serde_json::to_string_pretty(&report)
                    .map_err(|e| Failure::new(format!("{}: {e}", visible(&name))))?;
                text.push('\n');
                for_terminal(text)
            } else if matrix.matrix {
                matrix::render(&report, &matrix, use_color(color))
            } else {
                table::report_table(&report, per_tool, terminal_width(), use_color(color))
            };
            let mut output = Output::text(text);
            if let Some(budget) = budget
                && let Some(line) = over_budget(&report, budget)
            {
                output.stderr = format!("toolprism: {}: {line}\n", visible(&name));
                output.status = EXIT_CHECK;
            }
            if streamed {
                output.report = Some(report);
            }
            Ok(output)
        }
        Command::Show {
            common,
            strategy,
            tools_only,
            tool,
            pretty,
        } => {
            let Loaded { capture, name, .. } = load(&common)?;
            let settings = settings(&common.set)?;
            let projection = project(&capture, strategy, &settings);
            refused(&projection, &name)?;
            let text = match &tool {
                Some(tool) => {
                    known_tool(&capture, &projection, tool, &name)?;
                    let entry = sent_entry(&capture, &projection, tool, &name)?;
                    let mut text = if pretty {
                        toolprism::tool::pretty(entry)
                    } else {
                        toolprism::tool::compact(entry)
                    };
                    text.push('\n');
                    text
                }
                None => export::render(&capture, &projection, tools_only, pretty),
            };
            Ok(Output::text(for_terminal(text)))
        }
        Command::Diff {
            common,
            strategy,
            tool,
            stat,
        } => {
            let Loaded {
                capture,
                name,
                turn,
                ..
            } = load(&common)?;
            let settings = settings(&common.set)?;
            let projection = project(&capture, strategy, &settings);
            refused(&projection, &name)?;
            if let Some(tool) = &tool {
                known_tool(&capture, &projection, tool, &name)?;
            }
            let options = diffprint::Options {
                only: tool.as_deref(),
                color: use_color(color),
                stat,
                title: turn.is_some().then_some(name.as_str()),
            };
            let mut output = Output::text(diffprint::render(&capture, &projection, &options));
            output.page = true;
            Ok(output)
        }
        Command::Export {
            common,
            strategy,
            output,
            tools_only,
            pretty,
            store,
            force,
            quiet,
        } => {
            let Loaded { capture, name, .. } = load(&common)?;
            let settings = settings(&common.set)?;
            let projection = project(&capture, strategy, &settings);
            refused(&projection, &name)?;
            if !projection.request_valid && !force {
                let why = projection
                    .notes
                    .iter()
                    .find(|n| n.level == toolprism::Level::Error)
                    .map_or("", |n| n.text.as_str());
                return Err(Failure::new(format!(
                    "{}: a provider would reject the `{strategy}` request ({}); --force writes it anyway",
                    visible(&name),
                    visible(why)
                )));
            }
            let text = export::render(&capture, &projection, tools_only, pretty);
            let counter = (!quiet).then(|| TokenCounter::new(Encoding::O200kBase));
            // Refuse before writing the store: a refused export writes nothing at all.
            let to_file = output.as_os_str() != "-";
            if to_file
                && !force
                && export::target_kind(&output) == export::TargetKind::Regular
                && output.symlink_metadata().is_ok()
            {
                return Err(export_failure(export::ExportError::Exists(output)));
            }
            // Not even with --force: the capture (or the trace it came from) is an input.
            if to_file
                && common.capture.as_os_str() != "-"
                && export::same_file(&output, &common.capture)
            {
                return Err(export_failure(export::ExportError::IsInput(output)));
            }
            let mut notes = Vec::new();
            // What the store put in place, taken back should the export itself fail.
            let mut store_created = Vec::new();
            if let Some(dir) = &store {
                if projection.stored.is_empty() {
                    notes.push(format!(
                        "the `{strategy}` projection names no stored entries, nothing written to {}",
                        visible(&dir.to_string_lossy())
                    ));
                } else {
                    let (written, created) =
                        export::write_store_created(dir, &projection.stored, force)
                            .map_err(export_failure)?;
                    store_created = created;
                    notes.push(format!(
                        "{} in {}",
                        manners::count(written.len(), "stored entry", "stored entries"),
                        visible(&dir.to_string_lossy())
                    ));
                }
            }
            let mut stdout = Vec::new();
            let target = if to_file {
                write_export(&output, &text, force).inspect_err(|_| {
                    export::remove_created(&store_created);
                })?;
                visible(&output.to_string_lossy()).into_owned()
            } else {
                stdout = for_terminal(text.clone()).into_bytes();
                "standard output".to_owned()
            };
            let mut stderr = String::new();
            // Into standard output the JSON itself is the result; a line on the same terminal
            // would only get in the way of copying it.
            match &counter {
                Some(counter) if to_file => {
                    let mut line = format!(
                        // Counted: the file's own JSON (not the tools alone, not the request
                        // the strategy sends with its added text).
                        "toolprism: wrote {target}: {}, {} in the file ({})",
                        manners::count(text.len(), "byte", "bytes"),
                        manners::count(
                            counter.count(text.trim_end_matches('\n')),
                            "token",
                            "tokens",
                        ),
                        Encoding::O200kBase.id()
                    );
                    for note in &notes {
                        line.push_str("; ");
                        line.push_str(note);
                    }
                    line.push('\n');
                    stderr = line;
                }
                _ if store.is_some() && projection.stored.is_empty() => {
                    stderr = format!("toolprism: note: {}\n", notes.join("; "));
                }
                _ => {}
            }
            Ok(Output {
                stdout,
                report: None,
                stderr,
                status: EXIT_OK,
                page: false,
            })
        }
        Command::Session {
            trace,
            json,
            strategies,
            thread,
            skip_bad,
            set,
            encoding,
            budget,
        } => {
            let settings = settings(&set)?;
            session::run(&session::Request {
                path: &trace,
                label: None,
                json,
                strategies: &strategies,
                thread,
                skip_bad,
                settings: &settings,
                encoding: encoding.into(),
                budget,
                color: use_color(color),
            })
        }
        Command::Strategies => {
            let width = Strategy::ALL
                .iter()
                .map(|s| s.id().len())
                .max()
                .unwrap_or(0);
            let mut text = String::new();
            let defaults = Settings::default();
            for strategy in Strategy::ALL {
                // The defaults reproduce each origin's current release; name the older one a
                // setting selects.
                let origin = match (strategy.release(&defaults), strategy.older_release()) {
                    (Some(release), Some((set, older))) => format!(
                        "{}, {release}, current; {older} with --set {set}",
                        strategy.family()
                    ),
                    (Some(release), None) => format!("{}, {release}, current", strategy.family()),
                    (None, _) => strategy.family().to_owned(),
                };
                text.push_str(&format!(
                    "{:<width$}  {} ({origin})\n",
                    strategy.id(),
                    strategy.summary(),
                ));
            }
            Ok(Output::text(text))
        }
        Command::Man => {
            let buffer = man_page().map_err(|e| Failure::new(format!("man: {e}")))?;
            Ok(Output {
                stdout: buffer,
                report: None,
                stderr: String::new(),
                status: EXIT_OK,
                page: false,
            })
        }
        Command::Completions { shell } => {
            let mut command = Cli::command();
            let mut buffer = Vec::new();
            clap_complete::generate(
                clap_complete::Shell::from(shell),
                &mut command,
                "toolprism",
                &mut buffer,
            );
            Ok(Output {
                stdout: buffer,
                report: None,
                stderr: String::new(),
                status: EXIT_OK,
                page: false,
            })
        }
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
                RecordBody::Request(body) => Capture::from_value(body).map_err(|e| {
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
fn tui_color(choice: ColorChoice) -> bool {
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
fn spool_stdin() -> Result<std::fs::File, Failure> {
    let fail = |e: std::io::Error| {
        Failure::new(format!(
            "<stdin>: cannot keep a copy to read: {}",
            toolprism::error::io_reason(&e)
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
fn temp_path(file: &std::fs::File) -> Result<String, Failure> {
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
}

/// Load `CAPTURE` through [`pick_turn_alone`]: a single capture as before (same errors), or one
/// request of a trace (`--turn N`, default the last), streamed.
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
        settings
            .apply(assignment)
            .map_err(|e| Failure::new(format!("--set: {}", visible(&e.to_string()))))?;
    }
    Ok(settings)
}

/// Write an export to a file, a device or a pipe (`export::write`'s rules); on a terminal
/// device (`-o /dev/tty`) the JSON is made terminal-safe as for `-o -`.
fn write_export(path: &Path, text: &str, force: bool) -> Result<(), Failure> {
    match export::target_kind(path) {
        export::TargetKind::Through => {
            let mut file = export::open_through(path).map_err(export_failure)?;
            let bytes = if file.is_terminal() {
                toolprism::sanitize::json_for_terminal(text)
            } else {
                std::borrow::Cow::Borrowed(text)
            };
            export::write_through_checked(&mut file, path, bytes.as_bytes(), force)
                .map_err(export_failure)
        }
        _ => {
            // A signal whose default ends the process, while the temporary file is written:
            // stop, remove it, and leave the target as it was (the default action would leave
            // the temporary file behind).
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            use signal_hook::consts::*;
            for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM] {
                let _ = signal_hook::flag::register(signal, stop.clone());
            }
            // After the stop flag: Ctrl-C now stops the write, then exits 130.
            interrupt::take_over();
            export::write_until(path, text.as_bytes(), force, &stop).map_err(export_failure)
        }
    }
}

fn export_failure(error: export::ExportError) -> Failure {
    Failure::new(visible(&error.to_string()).into_owned())
}

/// `--tool NAME` must name a tool of the capture or of the projection; otherwise one line,
/// with the nearest name when there is one.
fn known_tool(
    capture: &Capture,
    projection: &toolprism::Projection,
    tool: &str,
    name: &str,
) -> Result<(), Failure> {
    let names = || {
        capture
            .tool_names()
            .chain(projection.outcomes.iter().map(|o| &*o.name))
    };
    if names().any(|n| n == tool) {
        return Ok(());
    }
    let hint = manners::did_you_mean(tool, names())
        .map(|near| format!("; did you mean `{}`?", visible(near)))
        .unwrap_or_default();
    Err(Failure::new(format!(
        "{}: no tool named `{}` in the capture or the `{}` projection{hint}",
        visible(name),
        visible(tool),
        projection.strategy
    )))
}

/// The entry the projection sends for `tool`, or one line saying what became of it.
fn sent_entry<'a>(
    capture: &'a Capture,
    projection: &'a toolprism::Projection,
    tool: &str,
    name: &str,
) -> Result<&'a serde_json::Value, Failure> {
    let sent = projection.sent.as_deref().unwrap_or(&[]);
    let outcome = projection.outcomes.iter().find(|o| &*o.name == tool);
    if let Some(entry) = outcome.and_then(|o| o.projected).and_then(|i| sent.get(i)) {
        return Ok(entry.entry(capture));
    }
    let what = outcome.map_or("not sent".to_owned(), |o| {
        let mut what = o.status.word().to_owned();
        if !o.reason.is_empty() {
            what.push_str(&format!(": {}", visible(&o.reason)));
        }
        what
    });
    Err(Failure::new(format!(
        "{}: `{}` sends no `{}` ({what})",
        visible(name),
        projection.strategy,
        visible(tool)
    )))
}

/// A host that refuses the capture (a3s's limits) leaves nothing to show or write.
fn refused(projection: &toolprism::Projection, name: &str) -> Result<(), Failure> {
    match projection.refusal() {
        Some(error) => Err(Failure::new(format!(
            "{}: `{}` refuses this capture: {}",
            visible(name),
            projection.strategy,
            visible(error)
        ))),
        None => Ok(()),
    }
}

/// The `--budget` gate: which chosen strategies' total tokens exceed `budget`, as one line.
/// A refused strategy has no figures to pass the gate with, so it fails it.
fn over_budget(report: &report::Report, budget: usize) -> Option<String> {
    let failures: Vec<String> = report
        .strategies
        .iter()
        .filter_map(|s| match s.total_tokens {
            Some(total) if total > budget => Some(format!(
                "`{}` sends {} tokens, {} over",
                s.id,
                toolprism::text::thousands(total),
                toolprism::text::thousands(total - budget)
            )),
            Some(_) => None,
            None => Some(format!(
                "`{}` is refused by the host and has no figures",
                s.id
            )),
        })
        .collect();
    (!failures.is_empty()).then(|| {
        format!(
            "over the budget of {} tokens: {}",
            toolprism::text::thousands(budget),
            failures.join("; ")
        )
    })
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

/// The manual page: one page holding every subcommand (their synopses and options as
/// subsections), so it names no per-subcommand pages that are not installed.
fn man_page() -> std::io::Result<Vec<u8>> {
    let mut cmd = Cli::command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    out.extend_from_slice(b".SH COMMANDS\n");
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let page = clap_mangen::Man::new(sub.clone());
        let mut part = Vec::new();
        page.render_synopsis_section(&mut part)?;
        page.render_description_section(&mut part)?;
        if sub.get_arguments().any(|a| !a.is_hide_set()) {
            page.render_options_section(&mut part)?;
        }
        if sub.get_after_help().is_some() {
            page.render_extra_section(&mut part)?;
        }
        let name = sub.get_bin_name().unwrap_or(sub.get_name());
        out.extend_from_slice(format!(".SS \"{name}\"\n").as_bytes());
        // The subcommand's own sections become paragraphs of its subsection.
        for line in String::from_utf8_lossy(&part).lines() {
            match line.strip_prefix(".SH ") {
                Some(title) => {
                    let title = title.trim_matches('"');
                    out.extend_from_slice(format!(".TP\n\\fB{title}\\fR\n.PP\n").as_bytes());
                }
                None => {
                    out.extend_from_slice(line.as_bytes());
                    out.push(b'\n');
                }
            }
        }
    }
    man.render_extra_section(&mut out)?;
    man.render_version_section(&mut out)?;
    Ok(out)
}
