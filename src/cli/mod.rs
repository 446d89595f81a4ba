//! The command line: parsing (clap derive), running each subcommand through the engine, and
//! turning failures into one line on standard error with the contract's exit codes.
//!
//! Every subcommand builds its whole output as a string first, then writes it once: a closed
//! pipe (`toolprism report x | head -1`) ends the program quietly instead of panicking.

mod args;
mod diffprint;
mod session;
mod table;

use std::io::{IsTerminal, Write};
use std::path::Path;

use clap::{CommandFactory, Parser};
use toolprism::measure::TokenCounter;
use toolprism::sanitize::visible;
use toolprism::{Capture, Settings, Strategy, diff, export, project, report};

use args::{Cli, ColorChoice, Command, Common};

/// The capture used when none is given, bundled so the binary works from any folder.
const BUNDLED_SAMPLE: &str = include_str!("../../samples/small.json");
/// How the bundled sample is named in output.
const BUNDLED_NAME: &str = "samples/small.json (bundled)";

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: usage error, or an unreadable or invalid capture.
pub const EXIT_USAGE: i32 = 2;

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
    /// Lines for standard error (warnings that do not fail the command).
    stderr: String,
}

impl Output {
    fn text(text: String) -> Output {
        Output {
            stdout: text.into_bytes(),
            stderr: String::new(),
        }
    }
}

/// Parse the arguments, run, print; returns the exit status.
pub fn main() -> i32 {
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
        Ok(output) => {
            if !output.stderr.is_empty() {
                let _ = std::io::stderr().write_all(output.stderr.as_bytes());
            }
            write_stdout(&output.stdout)
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

/// Write to standard output; a closed pipe is not an error worth a message.
fn write_stdout(bytes: &[u8]) -> i32 {
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

fn run(cli: Cli) -> Result<Output, Failure> {
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
        } => {
            // Started first: the encoder is built on a background thread while the capture is
            // read and parsed.
            let counter = TokenCounter::new(encoding.into());
            let (capture, name) = load(&common)?;
            let settings = settings(&common.set)?;
            let strategies = if strategies.is_empty() {
                Strategy::ALL.to_vec()
            } else {
                strategies
            };
            let report = report::report(&capture, &name, &strategies, &settings, &counter);
            let text = if json {
                let mut text = serde_json::to_string_pretty(&report)
                    .map_err(|e| Failure::new(format!("{}: {e}", visible(&name))))?;
                text.push('\n');
                text
            } else {
                table::report_table(&report, per_tool)
            };
            Ok(Output::text(text))
        }
        Command::Show {
            common,
            strategy,
            tools_only,
            pretty,
        } => {
            let (capture, name) = load(&common)?;
            let settings = settings(&common.set)?;
            let projection = project(&capture, strategy, &settings);
            refused(&projection, &name)?;
            Ok(Output::text(for_terminal(export::render(
                &capture,
                &projection,
                tools_only,
                pretty,
            ))))
        }
        Command::Diff {
            common,
            strategy,
            tool,
            color,
        } => {
            let (capture, name) = load(&common)?;
            let settings = settings(&common.set)?;
            let projection = project(&capture, strategy, &settings);
            refused(&projection, &name)?;
            if let Some(tool) = &tool {
                let known = capture.tool_names().any(|n| n == tool)
                    || projection.outcomes.iter().any(|o| &o.name == tool);
                if !known {
                    return Err(Failure::new(format!(
                        "{}: no tool named `{}` in the capture or the `{strategy}` projection",
                        visible(&name),
                        visible(tool)
                    )));
                }
            }
            let colored = use_color(color);
            Ok(Output::text(diffprint::render(
                &capture,
                &projection,
                tool.as_deref(),
                colored,
            )))
        }
        Command::Export {
            common,
            strategy,
            output,
            tools_only,
            pretty,
            store,
            force,
        } => {
            let (capture, name) = load(&common)?;
            let settings = settings(&common.set)?;
            let projection = project(&capture, strategy, &settings);
            refused(&projection, &name)?;
            let text = export::render(&capture, &projection, tools_only, pretty);
            let mut stderr = String::new();
            if let Some(dir) = &store {
                if projection.stored.is_empty() {
                    stderr.push_str(&format!(
                        "toolprism: note: the `{strategy}` projection names no stored entries; nothing written to {}\n",
                        visible(&dir.to_string_lossy())
                    ));
                } else {
                    export::write_store(dir, &projection.stored, force)
                        .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
                }
            }
            if output.as_os_str() == "-" {
                return Ok(Output {
                    stdout: for_terminal(text).into_bytes(),
                    stderr,
                });
            }
            export::write_atomic(Path::new(&output), text.as_bytes(), force)
                .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
            Ok(Output {
                stdout: Vec::new(),
                stderr,
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
        } => {
            let settings = settings(&set)?;
            session::run(&session::Request {
                path: &trace,
                json,
                strategies: &strategies,
                thread,
                skip_bad,
                settings: &settings,
                encoding: encoding.into(),
            })
        }
        Command::Strategies => {
            let width = Strategy::ALL
                .iter()
                .map(|s| s.id().len())
                .max()
                .unwrap_or(0);
            let mut text = String::new();
            for strategy in Strategy::ALL {
                text.push_str(&format!(
                    "{:<width$}  {} ({}, {})\n",
                    strategy.id(),
                    strategy.summary(),
                    strategy.family(),
                    strategy.origin(),
                ));
            }
            Ok(Output::text(text))
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
                stderr: String::new(),
            })
        }
    }
}

/// `toolprism [CAPTURE]`: the interactive view.
fn open(cli: &Cli) -> Result<Output, Failure> {
    let (capture, name) = match cli.capture.as_deref() {
        Some(path) => load_path(path)?,
        None => bundled()?,
    };
    let settings = settings(&cli.set)?;
    let encoding = cli.encoding.into();
    // The interactive view plugs in here, and only here, when standard output is a terminal
    // (keys are read from the terminal itself, so `cat capture.json | toolprism -` works too);
    // `toolprism CAPTURE | less` keeps getting the table below.
    if std::io::stdout().is_terminal() {
        let color = !matches!(cli.color, ColorChoice::Never)
            && (matches!(cli.color, ColorChoice::Always)
                || std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()));
        return toolprism::tui::run(capture, name, settings, encoding, color)
            .map(|()| Output::text(String::new()))
            .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()));
    }
    let counter = TokenCounter::new(encoding);
    let report = report::report(&capture, &name, &Strategy::ALL, &settings, &counter);
    Ok(Output::text(table::report_table(&report, false)))
}

fn load(common: &Common) -> Result<(Capture, String), Failure> {
    load_path(&common.capture)
}

/// Load a capture; errors become one line naming the file (sanitized: a path or a parser
/// message may quote hostile text).
fn load_path(path: &str) -> Result<(Capture, String), Failure> {
    let capture =
        Capture::from_path(path).map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
    Ok((capture, path.to_owned()))
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

/// A host that refuses the capture (a3s's limits) leaves nothing to show or write.
fn refused(projection: &toolprism::Projection, name: &str) -> Result<(), Failure> {
    match &projection.error {
        Some(error) => Err(Failure::new(format!(
            "{}: `{}` refuses this capture: {}",
            visible(name),
            projection.strategy,
            visible(error)
        ))),
        None => Ok(()),
    }
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
