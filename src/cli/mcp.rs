//! `toolprism mcp`: read the user's MCP client configs, reach every server in parallel, list
//! its tools, write them into the request the host would send, and measure that request as
//! `report` measures a capture (with a row per server).

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolprism::mcp::by_server::{self, ServerRow};
use toolprism::mcp::client::{self, Limits, ListStatus, Listing};
use toolprism::mcp::config::{self, ServerConfig, Transport};
use toolprism::mcp::count::{ClaudeCount, Counter};
use toolprism::mcp::host::{self, Host, ServerTools};
use toolprism::mcp::limits;
use toolprism::mcp::status::{ServerState, ServerStatus};
use toolprism::measure::TokenCounter;
use toolprism::projection::ContractStatus;
use toolprism::report::Report;
use toolprism::sanitize::visible;
use toolprism::text::thousands;
use toolprism::{Capture, Settings, Strategy, report};

use super::args::{ColorChoice, McpArgs};
use super::{
    EXIT_CHECK, Failure, Output, for_terminal, interrupt, matrix, settings, table, terminal_width,
    use_color,
};

/// Largest config file read (`~/.claude.json` keeps per-project history and grows).
const MAX_CONFIG_BYTES: u64 = 64 << 20;

/// Exit status after SIGTERM: 128 plus its number.
const EXIT_TERMINATED: i32 = 143;

/// The configs to read: those named, or every one found in the usual places.
fn config_paths(named: &[PathBuf]) -> (Vec<PathBuf>, bool) {
    if !named.is_empty() {
        return (named.to_vec(), true);
    }
    let project = std::env::current_dir().unwrap_or_default();
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let config_home = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| home.join(".config"));
    let found = config::default_paths(&project, &home, &config_home)
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    (found, false)
}

/// Every server of the configs, and warnings for configs found (not named) that do not read.
fn read_configs(paths: &[PathBuf], named: bool) -> Result<(Vec<ServerConfig>, String), Failure> {
    let project = std::env::current_dir().ok();
    let mut servers = Vec::new();
    let mut warnings = String::new();
    for path in paths {
        let shown = visible(&path.to_string_lossy()).into_owned();
        let text = std::fs::File::open(path).and_then(|file| {
            let mut text = String::new();
            file.take(MAX_CONFIG_BYTES + 1).read_to_string(&mut text)?;
            Ok(text)
        });
        let result = match text {
            Ok(text) if text.len() as u64 > MAX_CONFIG_BYTES => Err(format!(
                "{shown}: larger than {} bytes",
                thousands(MAX_CONFIG_BYTES as usize)
            )),
            Ok(text) => config::parse(path, &text, project.as_deref())
                .map_err(|e| visible(&e.to_string()).into_owned()),
            Err(e) => Err(format!("{shown}: {}", toolprism::error::io_reason(&e))),
        };
        match result {
            Ok(found) => servers.extend(found),
            Err(problem) if named => return Err(Failure::new(problem)),
            Err(problem) => warnings.push_str(&format!("toolprism: warning: {problem}\n")),
        }
    }
    Ok((servers, warnings))
}

/// The servers `--server` names (all without it); none at all is an error.
fn select(
    mut servers: Vec<ServerConfig>,
    wanted: &[String],
    paths: &[PathBuf],
) -> Result<Vec<ServerConfig>, Failure> {
    if !wanted.is_empty() {
        if let Some(missing) = wanted
            .iter()
            .find(|name| !servers.iter().any(|s| &s.name == *name))
        {
            let known: Vec<String> = servers
                .iter()
                .map(|s| visible(&s.name).into_owned())
                .collect();
            return Err(Failure::new(format!(
                "--server {}: no such server (configured: {})",
                visible(missing),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        }
        servers.retain(|s| wanted.contains(&s.name));
    }
    if servers.is_empty() {
        let listed: Vec<String> = paths
            .iter()
            .map(|p| visible(&p.to_string_lossy()).into_owned())
            .collect();
        return Err(Failure::new(format!(
            "no MCP servers in {}",
            listed.join(", ")
        )));
    }
    Ok(servers)
}

/// The servers of this folder's own configs (a cloned repository's `.mcp.json` runs its
/// author's commands) start only with consent, as Claude Code asks before it trusts a
/// project's servers: on a terminal they are listed and asked for (y/N); elsewhere they are
/// skipped, said in a warning. User configs (in the home folder) are trusted.
fn with_consent(
    servers: Vec<ServerConfig>,
    warnings: &mut String,
) -> Result<Vec<ServerConfig>, Failure> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let is_project =
        |s: &ServerConfig| !s.disabled && config::project_folder(&s.config, &home).is_some();
    let asked: Vec<&ServerConfig> = servers.iter().filter(|s| is_project(s)).collect();
    if asked.is_empty() {
        return Ok(servers);
    }
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if terminal && ask(&asked) {
        return Ok(servers);
    }
    let names: Vec<String> = asked
        .iter()
        .map(|s| {
            format!(
                "{} ({})",
                visible(&s.name),
                visible(&config_name(&s.config))
            )
        })
        .collect();
    let said = format!(
        "this folder's servers were not started: {} (name the config or pass --trust-project to start them)",
        names.join(", ")
    );
    let kept: Vec<ServerConfig> = servers.into_iter().filter(|s| !is_project(s)).collect();
    if kept.iter().all(|s| s.disabled) {
        return Err(Failure::new(said));
    }
    warnings.push_str(&format!("toolprism: warning: {said}\n"));
    Ok(kept)
}

/// List this folder's servers on standard error and ask whether to start them.
fn ask(servers: &[&ServerConfig]) -> bool {
    let mut text = String::from("This folder's MCP configs would start:\n");
    for server in servers {
        let what = match &server.transport {
            Transport::Stdio(stdio) => {
                let mut line = visible(&stdio.command).into_owned();
                for arg in &stdio.args {
                    line.push(' ');
                    line.push_str(&visible(arg));
                }
                line
            }
            Transport::Http(remote) | Transport::Sse(remote) => {
                visible(&config::shown_url(&remote.url)).into_owned()
            }
        };
        text.push_str(&format!(
            "  {} ({}): {what}\n",
            visible(&server.name),
            visible(&config_name(&server.config))
        ));
    }
    text.push_str("Start them? [y/N] ");
    let mut stderr = std::io::stderr();
    let _ = std::io::Write::write_all(&mut stderr, text.as_bytes());
    let mut answer = String::new();
    let _ = std::io::BufRead::read_line(
        &mut std::io::BufReader::new(std::io::stdin().take(64)),
        &mut answer,
    );
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// `toolprism mcp`.
pub(super) fn mcp(args: McpArgs, color: ColorChoice) -> Result<Output, Failure> {
    let settings = settings(&args.set)?;
    let (paths, named) = config_paths(&args.configs);
    if paths.is_empty() {
        return Err(Failure::new(
            "no MCP config found here or in your home folder (name one: toolprism mcp .mcp.json; docs/MCP.md lists where each client keeps it)",
        ));
    }
    let (servers, mut warnings) = read_configs(&paths, named)?;
    let servers = select(servers, &args.servers, &paths)?;
    if args.dry_run {
        let mut output = Output::text(dry_run(&paths, &servers, named || args.trust_project));
        output.stderr = warnings;
        return Ok(output);
    }
    let servers = if named || args.trust_project {
        servers
    } else {
        with_consent(servers, &mut warnings)?
    };
    let host = match args.host.as_deref() {
        Some(id) => Host::from_id(id).unwrap_or(Host::ClaudeCode),
        None => Host::of_client(servers[0].client),
    };
    let stop = stop_flag();
    let listings = reach_all(&servers, Duration::from_secs_f64(args.timeout), &stop);
    let lines = status_lines(&servers, &listings);
    if let Some(status) = stopped(&stop) {
        let mut output = Output::text(String::new());
        output.stderr = format!("{warnings}{lines}");
        output.status = status;
        return Ok(output);
    }
    let listed: Vec<(&ServerConfig, &Listing)> = servers
        .iter()
        .zip(&listings)
        .filter(|(s, l)| !s.disabled && l.status == ListStatus::Ok)
        .collect();
    if listed.is_empty() {
        return none_listed(&servers, &listings, host, args.json, warnings);
    }
    let tools: Vec<ServerTools> = listed
        .iter()
        .map(|(s, l)| ServerTools {
            name: s.name.clone(),
            tools: l.tools.clone(),
            always_load: s.always_load,
        })
        .collect();
    let counter = TokenCounter::new(args.encoding.into());
    let synthesized = synthesize(host, &tools, args.model.as_deref(), &settings, &counter);
    let deferral = synthesized.deferral.as_ref();
    let capture = Capture::from_value(synthesized.body.clone())
        .map_err(|e| Failure::new(format!("the synthesized request: {e}")))?;
    let name = format!("mcp ({} request)", host.id());
    let strategies = if args.strategies.is_empty() {
        Strategy::ALL.to_vec()
    } else if args.matrix.matrix {
        matrix::with_original(args.strategies.clone())
    } else {
        args.strategies.clone()
    };
    // As `report`: without -s the list as sent is gated, with it each strategy named.
    let gated = if args.strategies.is_empty() {
        vec![Strategy::Original]
    } else {
        args.strategies.clone()
    };
    let mut report = report::report(&capture, &name, &strategies, &settings, &counter);
    let owners = owners_of(&capture, &synthesized.servers, &settings);
    let rows = by_server::rows(&capture, &report, &settings, Some(&owners), &counter);
    add_limit_notes(&mut report, &capture, host, &tools);
    let (claude, count_failed) = count_if_asked(&args, &capture, &owners, &stop, &mut warnings)?;
    // As `export` does, a written file is confirmed on standard error.
    let saved = match &args.save {
        Some(path) => Some(save_request(path, &synthesized.body, args.force, &paths)?),
        None => None,
    };
    let mut output = if args.json {
        json_output(
            &report,
            (host, deferral),
            (&servers, &listings, &rows),
            claude.as_ref(),
            count_failed.as_deref(),
        )?
    } else if std::io::stdout().is_terminal() && !args.matrix.matrix && args.save.is_none() {
        interrupt::take_over();
        let mut output = toolprism::tui::run_with_servers(
            capture,
            name,
            settings,
            args.encoding.into(),
            super::tui_color(color),
            server_statuses(&servers, &listings),
        )
        .map(super::ended)
        .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
        output.stderr = format!("{lines}{}", deferral.map(deferral_line).unwrap_or_default());
        output
    } else {
        let body = if args.matrix.matrix {
            matrix::render(&report, &args.matrix, use_color(color))
        } else {
            table::report_table(&report, args.per_tool, terminal_width(), use_color(color))
        };
        Output::text(format!(
            "{}\n{body}\n{}\n{}{}",
            servers_section(host, &lines, deferral),
            by_server_table(&rows),
            TIKTOKEN_NOTE,
            claude.as_ref().map(claude_section).unwrap_or_default()
        ))
    };
    output.stderr = format!("{warnings}{}", output.stderr);
    if let Some(budget) = args.budget
        && let Some(line) = super::commands::over_budget(&report, budget, &gated)
    {
        output.stderr.push_str(&format!("toolprism: {line}\n"));
        output.status = EXIT_CHECK;
    }
    output.stderr.extend(saved);
    Ok(output)
}

/// `--count-with`, when asked: Claude's count, or why it failed (a warning added). A count
/// that fails (the endpoint unreachable, refusing) keeps toolprism's figures.
fn count_if_asked(
    args: &McpArgs,
    capture: &Capture,
    owners: &[String],
    stop: &AtomicBool,
    warnings: &mut String,
) -> Result<(Option<ClaudeCount>, Option<String>), Failure> {
    if args.count_with.is_none() {
        return Ok((None, None));
    }
    let counted = claude_count(
        &CountArgs {
            api_base: &args.api_base,
            model: args.model.as_deref(),
            timeout: args.timeout,
        },
        capture,
        owners,
        stop,
    )?;
    Ok(match counted {
        Ok(count) => (Some(count), None),
        Err(problem) => {
            warnings.push_str(&count_failed_line(&problem));
            (None, Some(problem))
        }
    })
}

/// The warning when `--count-with` failed: the report stands, with tiktoken's figures.
pub(super) fn count_failed_line(problem: &str) -> String {
    format!(
        "toolprism: warning: --count-with anthropic failed: {problem}; the figures are tiktoken's only\n"
    )
}

/// `--save FILE`: the synthesized request, compact, through `export`'s safe writer (never over a
/// config read).
fn save_request(
    path: &std::path::Path,
    body: &serde_json::Value,
    force: bool,
    configs: &[PathBuf],
) -> Result<String, Failure> {
    // Compact, as a host sends it: a capture's bytes as written are what `report` counts
    // (docs/FORMATS.md), so the saved file measures as this command's figures.
    let mut text = serde_json::to_string(body).map_err(|e| Failure::new(e.to_string()))?;
    text.push('\n');
    let mut inputs = toolprism::export::Inputs::new();
    for config in configs {
        inputs.add(config);
    }
    super::commands::save(path, &text, force, &inputs)?;
    Ok(format!(
        "toolprism: wrote {}: the synthesized request, {} bytes\n",
        visible(&path.to_string_lossy()),
        toolprism::text::thousands(text.len())
    ))
}

/// Each entry's server: the one `report --by-server` reads from its name, where the name
/// carries the config's server; the config's name where it does not (Gemini CLI, raw).
fn owners_of(capture: &Capture, servers: &[String], settings: &Settings) -> Vec<String> {
    capture
        .tools()
        .iter()
        .zip(servers)
        .map(|(entry, owner)| {
            by_server::server_of(entry, settings)
                .filter(|label| *label == host::normalize(owner))
                .unwrap_or_else(|| owner.clone())
        })
        .collect()
}

/// When no server could be listed: one line naming each server, its status and why (exit
/// 2); with `--json`, every server (status, why) on standard output too, for a script to read.
fn none_listed(
    servers: &[ServerConfig],
    listings: &[Listing],
    host: Host,
    json: bool,
    warnings: String,
) -> Result<Output, Failure> {
    let why: Vec<String> = servers
        .iter()
        .zip(listings)
        .map(|(s, l)| format!("{} {} ({})", visible(&s.name), l.status.id(), why(l)))
        .collect();
    let line = format!("no server could be listed: {}", why.join("; "));
    if !json {
        return Err(Failure::new(line));
    }
    let value = json!({
        "host": host.id(),
        "servers": server_entries(servers, listings, &[]),
    });
    let mut text = serde_json::to_string_pretty(&value).map_err(|e| Failure::new(e.to_string()))?;
    text.push('\n');
    let mut output = Output::text(for_terminal(text));
    output.stderr = format!("{warnings}toolprism: {line}\n");
    output.status = super::EXIT_USAGE;
    Ok(output)
}

/// Said wherever toolprism's token figures are printed for an MCP list.
const TIKTOKEN_NOTE: &str =
    "Tokens are tiktoken counts of the JSON each host sends, not Claude's own count.\n";

/// SIGTERM (and, taken over, Ctrl-C) set a flag the listing watches: the servers' process
/// groups are ended before toolprism exits.
fn stop_flag() -> Arc<AtomicBool> {
    let term = Arc::new(AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGTERM, term.clone());
    interrupt::take_over();
    term
}

/// The exit status when the user stopped the run.
fn stopped(term: &AtomicBool) -> Option<i32> {
    if interrupt::came() {
        Some(super::EXIT_INTERRUPTED)
    } else if term.load(Ordering::Relaxed) {
        Some(EXIT_TERMINATED)
    } else {
        None
    }
}

/// Reach every enabled server at once, each within `timeout`.
fn reach_all(servers: &[ServerConfig], timeout: Duration, term: &AtomicBool) -> Vec<Listing> {
    let deadline = Instant::now() + timeout;
    let cancelled = || interrupt::came() || term.load(Ordering::Relaxed);
    // A server's daemons (`setsid()`) become toolprism's children, ended below.
    toolprism::descendants::adopt_orphans();
    let listings = std::thread::scope(|scope| {
        let handles: Vec<_> = servers
            .iter()
            .map(|server| {
                let cancelled = &cancelled;
                scope.spawn(move || {
                    let limits = Limits {
                        deadline,
                        cancelled,
                        budget: client::MAX_LISTING_BYTES,
                    };
                    reach(server, &limits)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| Listing {
                    status: ListStatus::Failed,
                    tools: Vec::new(),
                    pages: 0,
                    error: Some("the listing thread failed".into()),
                    stderr: None,
                    fell_back_to_sse: false,
                })
            })
            .collect()
    });
    toolprism::mcp::reap::stop_watching();
    toolprism::descendants::kill_all(None);
    listings
}

/// One server: its values expanded from the environment, then listed; every value toolprism
/// passed to it (its `env`, its headers, its URL's credentials and query, whatever came from
/// the environment) masked in what it said back.
fn reach(server: &ServerConfig, limits: &Limits) -> Listing {
    if server.disabled {
        return failed("disabled in its config: not started".into());
    }
    let used = std::cell::RefCell::new(Vec::new());
    let lookup = |name: &str| {
        let value = std::env::var(name).ok();
        used.borrow_mut().extend(value.clone());
        value
    };
    let project = project_folder(server);
    let workspace = project
        .clone()
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
    let expand = |text: &str| config::expand(text, &lookup, &workspace);
    let (mut listing, mut secrets) = match &server.transport {
        Transport::Stdio(stdio) => {
            let expanded = (|| {
                Ok::<_, String>(config::StdioServer {
                    command: expand(&stdio.command)?,
                    args: stdio
                        .args
                        .iter()
                        .map(|a| expand(a))
                        .collect::<Result<_, _>>()?,
                    env: stdio
                        .env
                        .iter()
                        .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                        .collect::<Result<_, String>>()?,
                    cwd: stdio.cwd.as_deref().map(expand).transpose()?,
                })
            })();
            match expanded {
                Ok(mut stdio) => {
                    stdio.cwd = run_folder(stdio.cwd.as_deref(), project.as_deref())
                        .map(|p| p.to_string_lossy().into_owned());
                    let mut listing = match &stdio.cwd {
                        Some(folder) if !Path::new(folder).is_dir() => failed(format!(
                            "its folder {} does not exist (or is not a folder)",
                            visible(folder)
                        )),
                        _ => client::list_stdio(&stdio, limits),
                    };
                    if listing.status != ListStatus::Ok
                        && stdio.cwd.as_deref().is_none_or(|f| Path::new(f).is_dir())
                        && let Some(error) = &mut listing.error
                    {
                        error.push_str(&format!(" (folder: {})", folder_said(&stdio.cwd)));
                    }
                    let secrets = stdio.env.into_iter().map(|(_, v)| v).collect();
                    (listing, secrets)
                }
                Err(e) => (failed(e), Vec::new()),
            }
        }
        Transport::Http(remote) | Transport::Sse(remote) => {
            let expanded = (|| {
                Ok::<_, String>(config::RemoteServer {
                    url: expand(&remote.url)?,
                    headers: remote
                        .headers
                        .iter()
                        .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                        .collect::<Result<_, String>>()?,
                })
            })();
            match (expanded, &server.transport) {
                (Err(e), _) => (failed(e), Vec::new()),
                (Ok(remote), transport) => {
                    let listing = match transport {
                        Transport::Sse(_) => client::list_sse(&remote, limits),
                        _ if server.client.falls_back_to_sse() => {
                            client::list_http_then_sse(&remote, limits)
                        }
                        _ => client::list_http(&remote, limits),
                    };
                    let mut secrets = config::url_secrets(&remote.url);
                    secrets.extend(remote.headers.into_iter().map(|(_, v)| v));
                    (listing, secrets)
                }
            }
        }
    };
    secrets.extend(used.into_inner());
    listing.error = listing.error.map(|e| config::mask(&e, &secrets));
    listing.stderr = listing.stderr.map(|e| config::mask(&e, &secrets));
    listing
}

fn failed(error: String) -> Listing {
    Listing {
        status: ListStatus::Failed,
        tools: Vec::new(),
        pages: 0,
        error: Some(error),
        stderr: None,
        fell_back_to_sse: false,
    }
}

/// The project folder of the server's config, when it is a project's own (docs/MCP.md).
fn project_folder(server: &ServerConfig) -> Option<PathBuf> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    config::project_folder(&server.config, &home)
}

/// Where a stdio server runs, as its client runs it: its `cwd` (a relative one taken from
/// the project folder), else the project folder of a project's config, else the current
/// folder (`None`).
fn run_folder(cwd: Option<&str>, project: Option<&Path>) -> Option<PathBuf> {
    let folder = match (cwd, project) {
        (Some(cwd), Some(project)) => project.join(cwd),
        (Some(cwd), None) => PathBuf::from(cwd),
        (None, project) => project?.to_path_buf(),
    };
    Some(std::path::absolute(&folder).unwrap_or(folder))
}

/// A server's folder as said in a failure and in `--dry-run`.
fn folder_said(folder: &Option<String>) -> String {
    match folder {
        Some(folder) => visible(folder).into_owned(),
        None => format!(
            "{}, the current one",
            visible(
                &std::env::current_dir()
                    .unwrap_or_default()
                    .to_string_lossy()
            )
        ),
    }
}

/// The transport a server was listed over (`sse` when its client fell back to it).
fn transport_id(server: &ServerConfig, listing: &Listing) -> &'static str {
    if listing.fell_back_to_sse {
        "sse"
    } else {
        server.transport.id()
    }
}

/// One line per server: name, status, tools, transport, config, and why it failed.
fn status_lines(servers: &[ServerConfig], listings: &[Listing]) -> String {
    let rows: Vec<Vec<String>> = servers
        .iter()
        .zip(listings)
        .map(|(server, listing)| {
            vec![
                visible(&server.name).into_owned(),
                listing.status.id().to_owned(),
                format!("{} tools", listing.tools.len()),
                transport_id(server, listing).to_owned(),
                visible(&config_name(&server.config)).into_owned(),
                why(listing),
            ]
        })
        .collect();
    table::grid(
        &rows,
        &[false, false, true, false, false, false],
        "  ",
        None,
    )
}

/// Each server's status as the view shows it, with the reason [`why`] gives the lines.
fn server_statuses(servers: &[ServerConfig], listings: &[Listing]) -> Vec<ServerStatus> {
    servers
        .iter()
        .zip(listings)
        .map(|(server, listing)| {
            let state = match listing.status {
                _ if server.disabled => ServerState::Skipped,
                ListStatus::Ok => ServerState::Listed,
                ListStatus::Failed => ServerState::Failed,
                ListStatus::Timeout => ServerState::Timeout,
                ListStatus::Auth => ServerState::Auth,
            };
            ServerStatus {
                name: server.name.clone(),
                state,
                tools: listing.tools.len(),
                reason: Some(why(listing))
                    .filter(|r| state != ServerState::Listed && !r.is_empty()),
            }
        })
        .collect()
}

/// Why a server was not listed: the error and the last line of its standard error, the same
/// wherever it is said.
fn why(listing: &Listing) -> String {
    let mut why = listing
        .error
        .as_deref()
        .map(|e| visible(e).into_owned())
        .unwrap_or_default();
    if let Some(line) = &listing.stderr
        && listing.status != ListStatus::Ok
    {
        why.push_str(&format!("; stderr: {}", visible(line)));
    }
    why
}

fn config_name(path: &Path) -> String {
    let text = path.to_string_lossy();
    let home = std::env::var("HOME").unwrap_or_default();
    match text.strip_prefix(&home) {
        Some(rest) if !home.is_empty() && rest.starts_with('/') => format!("~{rest}"),
        _ => text.into_owned(),
    }
}

fn servers_section(host: Host, lines: &str, deferral: Option<&host::Deferral>) -> String {
    let mut text = format!("MCP servers (sent as {} sends them):\n{lines}", host.id());
    if let Some(d) = deferral {
        text.push_str(&deferral_line(d));
    }
    text
}

/// The request `host` sends with these tools, its tool entries counted by `counter` (for
/// Claude Code's `ENABLE_TOOL_SEARCH=auto`).
fn synthesize(
    host: Host,
    tools: &[ServerTools],
    model: Option<&str>,
    settings: &Settings,
    counter: &TokenCounter,
) -> host::Synthesized {
    let count = |entries: &[Value]| {
        entries
            .iter()
            .map(|e| counter.count(&serde_json::to_string(e).unwrap_or_default()))
            .sum()
    };
    host::synthesize(host, tools, model, settings, &count)
}

/// What Claude Code deferred, the release it reproduces, and why, as a line.
fn deferral_line(d: &host::Deferral) -> String {
    let mut line = format!(
        "Claude Code {}: {} MCP tool{} deferred (defer_loading), {} loaded",
        host::CLAUDE_CODE_RELEASE,
        d.deferred,
        if d.deferred == 1 { "" } else { "s" },
        d.loaded
    );
    if d.deferred > 0 {
        line.push_str(&format!(", with its {} tool", host::TOOL_SEARCH_NAME));
        for (name, value) in &d.headers {
            line.push_str(&format!(" and {name}: {value}"));
        }
    }
    format!("{line}; {}\n", d.why)
}

/// `--json`'s `claude_code`: what the request reproduces and why.
fn deferral_json(d: &host::Deferral) -> Value {
    let headers: serde_json::Map<String, Value> = d
        .headers
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
        .collect();
    json!({
        "release": host::CLAUDE_CODE_RELEASE,
        "deferred": d.deferred,
        "loaded": d.loaded,
        "tool_search": (d.deferred > 0).then_some(host::TOOL_SEARCH_NAME),
        "headers": headers,
        "why": d.why,
    })
}

/// `--dry-run`: the configs read and, per server, what would be started or reached.
fn dry_run(paths: &[PathBuf], servers: &[ServerConfig], trusted: bool) -> String {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let mut out = String::from("Configs read:\n");
    for path in paths {
        out.push_str(&format!("  {}\n", visible(&config_name(path))));
    }
    out.push_str("\nWould start (nothing was started):\n");
    for server in servers {
        out.push_str(&format!(
            "  {} ({}, {}){}\n",
            visible(&server.name),
            server.client.id(),
            visible(&config_name(&server.config)),
            if server.disabled {
                ", disabled: not started"
            } else if !trusted && config::project_folder(&server.config, &home).is_some() {
                ", this folder's: asked for first (--trust-project)"
            } else {
                ""
            }
        ));
        match &server.transport {
            Transport::Stdio(stdio) => {
                let mut line = visible(&stdio.command).into_owned();
                for arg in &stdio.args {
                    line.push(' ');
                    line.push_str(&visible(arg));
                }
                out.push_str(&format!("    command: {line}\n"));
                let project = project_folder(server);
                let folder = run_folder(stdio.cwd.as_deref(), project.as_deref())
                    .map(|p| p.to_string_lossy().into_owned());
                let from = match (&stdio.cwd, &project) {
                    (None, Some(_)) => " (the project's: where its config is)",
                    (Some(cwd), Some(_)) if Path::new(cwd).is_relative() => {
                        " (its cwd, from the project's folder)"
                    }
                    _ => "",
                };
                out.push_str(&format!("    folder:  {}{from}\n", folder_said(&folder)));
                if !stdio.env.is_empty() {
                    let names: Vec<String> = stdio
                        .env
                        .iter()
                        .map(|(k, _)| visible(k).into_owned())
                        .collect();
                    out.push_str(&format!(
                        "    env:     {} (values not shown)\n",
                        names.join(", ")
                    ));
                }
            }
            Transport::Http(remote) | Transport::Sse(remote) => {
                // A query string may hold a key, the URL a password: not shown.
                let url = config::shown_url(&remote.url);
                let fallback = matches!(server.transport, Transport::Http(_))
                    && server.client.falls_back_to_sse();
                out.push_str(&format!(
                    "    {}:    {}{}\n",
                    server.transport.id(),
                    visible(&url),
                    if fallback {
                        " (then sse, if refused)"
                    } else {
                        ""
                    }
                ));
                if !remote.headers.is_empty() {
                    let names: Vec<String> = remote
                        .headers
                        .iter()
                        .map(|(k, _)| visible(k).into_owned())
                        .collect();
                    out.push_str(&format!(
                        "    headers: {} (values not shown)\n",
                        names.join(", ")
                    ));
                }
            }
        }
    }
    out
}

/// The per-server table: tools, tokens, then each strategy's tokens.
pub(super) fn by_server_table(rows: &[ServerRow]) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let mut grid = vec![
        ["server", "tools", "tokens"]
            .into_iter()
            .map(str::to_owned)
            .chain(first.strategies.iter().map(|s| s.id.to_owned()))
            .collect::<Vec<_>>(),
    ];
    for row in rows {
        grid.push(
            [
                visible(&row.name).into_owned(),
                thousands(row.tools),
                thousands(row.tokens),
            ]
            .into_iter()
            .chain(
                row.strategies
                    .iter()
                    .map(|s| s.tokens.map_or_else(|| "refused".into(), thousands)),
            )
            .collect(),
        );
    }
    // On a terminal the strategies that do not fit give way, last first, and are named.
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|c| {
            grid.iter()
                .map(|r| toolprism::text::width(&r[c]))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let fit = table::Fit {
        cells: terminal_width(),
        drop: (4..grid[0].len()).rev().collect(),
        room: 0,
    };
    let shown = table::shown_columns(&widths, &fit);
    let picked: Vec<Vec<String>> = grid
        .iter()
        .map(|r| shown.iter().map(|&c| r[c].clone()).collect())
        .collect();
    let right: Vec<bool> = shown.iter().map(|&c| c > 0).collect();
    format!(
        "Per server (tokens each strategy sends of its tools):\n{}{}",
        table::grid(&picked, &right, table::INDENT, None),
        table::not_shown(&grid[0], &shown)
            .map(|line| table::fit_text(&line, fit.cells))
            .unwrap_or_default()
    )
}

/// Each host limit the synthesized request or a projection breaks, as a note of that
/// strategy (errors first).
fn add_limit_notes(report: &mut Report, capture: &Capture, host: Host, servers: &[ServerTools]) {
    let pairs: Vec<(&str, &str)> = servers
        .iter()
        .flat_map(|s| {
            s.tools.iter().map(move |t| {
                (
                    s.name.as_str(),
                    t.get("name").and_then(Value::as_str).unwrap_or_default(),
                )
            })
        })
        .collect();
    for figures in &mut report.strategies {
        if figures.is_refused() {
            continue;
        }
        let mut names: Vec<String> = Vec::new();
        let mut count = 0;
        for (index, entry) in capture.tools().iter().enumerate() {
            let kept = figures
                .per_tool
                .get(index)
                .is_some_and(|t| t.status != ContractStatus::Removed);
            if !kept {
                continue;
            }
            match entry.get("tools").and_then(Value::as_array) {
                Some(nested) if entry.get("type").and_then(Value::as_str) == Some("namespace") => {
                    count += nested.len();
                    names.extend(
                        nested
                            .iter()
                            .filter_map(|t| t.get("name").and_then(Value::as_str))
                            .map(str::to_owned),
                    );
                }
                _ => {
                    count += 1;
                    names.extend(toolprism::tool::name(entry).map(str::to_owned));
                }
            }
        }
        // Tools the strategy adds (named in `per_tool` after the originals) count too.
        for added in figures.per_tool.iter().skip(capture.tools().len()) {
            count += 1;
            names.push(added.name.to_string());
        }
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let notes = limits::check(host, count, &names, &pairs);
        for note in notes.into_iter().rev() {
            figures.notes.insert(0, note);
        }
    }
}

/// `--json`: `report --json`'s object, with `host` and `servers` (and Claude's count, or why
/// it failed).
fn json_output(
    report: &Report,
    (host, deferral): (Host, Option<&host::Deferral>),
    (servers, listings, rows): (&[ServerConfig], &[Listing], &[ServerRow]),
    claude: Option<&ClaudeCount>,
    count_failed: Option<&str>,
) -> Result<Output, Failure> {
    let mut value = serde_json::to_value(report).map_err(|e| Failure::new(e.to_string()))?;
    let entries = server_entries(servers, listings, rows);
    if let Value::Object(map) = &mut value {
        map.insert("host".into(), host.id().into());
        if let Some(deferral) = deferral {
            map.insert("claude_code".into(), deferral_json(deferral));
        }
        if let Some(claude) = claude {
            map.insert(
                "claude_count".into(),
                serde_json::to_value(claude).map_err(|e| Failure::new(e.to_string()))?,
            );
        }
        if let Some(problem) = count_failed {
            map.insert("claude_count_error".into(), problem.into());
        }
        map.insert("servers".into(), Value::Array(entries));
        map.insert(
            "by_server".into(),
            serde_json::to_value(rows).map_err(|e| Failure::new(e.to_string()))?,
        );
    }
    let mut text = serde_json::to_string_pretty(&value).map_err(|e| Failure::new(e.to_string()))?;
    text.push('\n');
    Ok(Output::text(for_terminal(text)))
}

/// `--json`'s `servers`: each server, its status, tools, figures (listed ones) and why.
fn server_entries(
    servers: &[ServerConfig],
    listings: &[Listing],
    rows: &[ServerRow],
) -> Vec<Value> {
    servers
        .iter()
        .zip(listings)
        .map(|(server, listing)| {
            // The row its tools are in: by the label they carry, else by its config name.
            let label = rows.iter().find(|r| {
                r.mcp && (r.name == server.name || r.name == host::normalize(&server.name))
            });
            let listed = listing.status == ListStatus::Ok && !server.disabled;
            json!({
                "name": server.name,
                "label": label.map(|r| r.name.clone()),
                "client": server.client.id(),
                "config": server.config.to_string_lossy(),
                "transport": transport_id(server, listing),
                "status": listing.status.id(),
                "tools": listing.tools.len(),
                "pages": listing.pages,
                "tokens": if listed { label.map(|r| r.tokens) } else { None },
                "strategies": if listed { label.map(|r| &r.strategies) } else { None },
                "error": listing.error,
                "stderr": listing.stderr,
            })
        })
        .collect()
}

/// `report --count-with anthropic`: Claude's counts of a loaded capture, its servers read
/// from the tool names (the host's own tools are the `(host)` group); `Ok(Err)`: the count
/// failed (the report stands).
pub(super) fn report_claude_count(
    capture: &Capture,
    settings: &Settings,
    api_base: &str,
) -> Result<Result<ClaudeCount, String>, Failure> {
    let owners: Vec<String> = capture
        .tools()
        .iter()
        .map(|entry| {
            by_server::server_of(entry, settings).unwrap_or_else(|| by_server::HOST_ROW.to_owned())
        })
        .collect();
    let never = AtomicBool::new(false);
    interrupt::take_over();
    claude_count(
        &CountArgs {
            api_base,
            model: None,
            timeout: 20.0,
        },
        capture,
        &owners,
        &never,
    )
}

/// `report --by-server`'s rows: each tool's server as the MCP servers of the trace listed it,
/// where they did, else as its name tells.
pub(super) fn rows_of(
    capture: &Capture,
    report: &Report,
    settings: &Settings,
    servers: &[toolprism::trace::McpServer],
    counter: &TokenCounter,
) -> Vec<ServerRow> {
    let owners = by_server::owners_from_lists(capture, servers, settings);
    by_server::rows(capture, report, settings, owners.as_deref(), counter)
}

/// Where counts are cached: `TOOLPRISM_CACHE_DIR`, else `$XDG_CACHE_HOME/toolprism`, else
/// `~/.cache/toolprism`; then `count-tokens/`.
fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("TOOLPRISM_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|p| p.join("toolprism"))
        })
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/toolprism")))?;
    Some(base.join("count-tokens"))
}

/// What `--count-with` needs from the command line.
pub(super) struct CountArgs<'a> {
    /// `--api-base`.
    pub api_base: &'a str,
    /// `--model`, if given.
    pub model: Option<&'a str>,
    /// Seconds each call may take.
    pub timeout: f64,
}

/// `--count-with anthropic`: Claude's counts of a Messages request, per server of `owners`
/// (each entry's server; `report` reads them from the names).
pub(super) fn claude_count(
    args: &CountArgs,
    capture: &Capture,
    owners: &[String],
    term: &AtomicBool,
) -> Result<Result<ClaudeCount, String>, Failure> {
    if capture.shape() != toolprism::Shape::AnthropicMessages {
        return Err(Failure::new(
            "--count-with anthropic counts an Anthropic Messages request: use --host claude-code",
        ));
    }
    let key = std::env::var("ANTHROPIC_API_KEY")
        .ok()
        .filter(|k| !k.is_empty())
        .ok_or_else(|| Failure::new("--count-with anthropic needs ANTHROPIC_API_KEY"))?;
    let model = args
        .model
        .map(str::to_owned)
        .or_else(|| {
            capture
                .body()
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| Host::ClaudeCode.default_model().to_owned());
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (index, owner) in owners.iter().enumerate() {
        match groups.iter_mut().find(|(name, _)| name == owner) {
            Some((_, entries)) => entries.push(index),
            None => groups.push((owner.clone(), vec![index])),
        }
    }
    let cancelled = || interrupt::came() || term.load(Ordering::Relaxed);
    let counter = Counter {
        api_base: args.api_base,
        key: &key,
        model: &model,
        cache: cache_dir(),
        timeout: Duration::from_secs_f64(args.timeout),
        cancelled: &cancelled,
    };
    Ok(counter
        .count(capture.tools(), &groups)
        .map_err(|e| visible(&e).into_owned()))
}

/// Claude's counts beside the tiktoken figures.
pub(super) fn claude_section(claude: &ClaudeCount) -> String {
    let mut rows = vec![vec!["server".to_owned(), "Claude tokens".to_owned()]];
    for part in &claude.servers {
        rows.push(vec![
            visible(&part.name).into_owned(),
            part.tokens.to_string(),
        ]);
    }
    format!(
        "\nClaude's own count ({ENDPOINT}, model {}): the tools cost {} tokens ({} with them, {} without); {} calls, {} from the cache.\n{}",
        visible(&claude.model),
        claude.tools,
        claude.with_tools,
        claude.without_tools,
        claude.calls,
        claude.cached,
        table::grid(&rows, &[false, true], "  ", None),
        ENDPOINT = toolprism::mcp::count::ENDPOINT,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolprism::mcp::config::{Client, StdioServer, Transport};

    fn server(name: &str, disabled: bool) -> ServerConfig {
        ServerConfig {
            name: name.into(),
            client: Client::ClaudeCode,
            config: PathBuf::from(".mcp.json"),
            transport: Transport::Stdio(StdioServer::default()),
            disabled,
            always_load: false,
        }
    }

    fn listing(status: ListStatus, tools: usize, error: Option<&str>) -> Listing {
        Listing {
            status,
            tools: vec![serde_json::json!({"name": "t"}); tools],
            pages: 1,
            error: error.map(str::to_owned),
            stderr: error.map(|_| "can't open file".to_owned()),
            fell_back_to_sse: false,
        }
    }

    #[test]
    fn the_view_gets_each_server_with_the_reason_the_lines_give() {
        let servers = [
            server("notes", false),
            server("broken", false),
            server("old", true),
        ];
        let listings = [
            listing(ListStatus::Ok, 2, None),
            listing(ListStatus::Failed, 0, Some("the server exited")),
            listing(
                ListStatus::Failed,
                0,
                Some("disabled in its config: not started"),
            ),
        ];
        let statuses = server_statuses(&servers, &listings);
        let states: Vec<ServerState> = statuses.iter().map(|s| s.state).collect();
        assert_eq!(
            states,
            [
                ServerState::Listed,
                ServerState::Failed,
                ServerState::Skipped
            ]
        );
        assert_eq!(
            (statuses[0].tools, statuses[0].reason.as_deref()),
            (2, None)
        );
        assert_eq!(
            statuses[1].reason.as_deref(),
            Some(why(&listings[1]).as_str())
        );
        assert!(
            statuses[1]
                .summary()
                .starts_with("failed: the server exited; stderr: can't open file"),
            "{:?}",
            statuses[1]
        );
    }
}
