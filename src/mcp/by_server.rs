//! A report's figures per MCP server: one row per server (read from a tool's name by
//! `mcp.prefixes`, or a Codex `mcp__SERVER` namespace, or given by the caller where names do
//! not carry the server) and one for the host's own tools. A row's tokens are the sum of its
//! entries' tokens (each entry's compact JSON, as `--per-tool` counts it); a strategy's are the
//! sum of what its entries put in the model's context under that strategy. Tools a strategy
//! adds (`tool_search`) and text it adds outside `tools` belong to no server: they are in the
//! strategy's total only.

use serde::Serialize;
use serde_json::Value;

use crate::capture::Capture;
use crate::compact::CaptureJson;
use crate::measure::TokenCounter;
use crate::report::Report;
use crate::settings::Settings;
use crate::tool;
use crate::trace::McpServer;

/// The name of the row of tools no server owns.
pub const HOST_ROW: &str = "(host)";

/// One strategy's figures for one server.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ServerStrategy {
    /// The strategy id.
    pub id: &'static str,
    /// Tokens of the server's entries in the model's context under it (`None`: refused).
    pub tokens: Option<usize>,
    /// The server's tokens minus these: what the strategy saves on this server.
    pub saved_tokens: Option<i64>,
}

/// One server's row.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ServerRow {
    /// The server as its tools' names give it ([`HOST_ROW`] for the host's own tools).
    pub name: String,
    /// Whether the row is an MCP server's (false for the host's own tools).
    pub mcp: bool,
    /// Tools it sends (a namespace counts each tool in it).
    pub tools: usize,
    /// Tokens of its entries as the capture sends them.
    pub tokens: usize,
    /// Each strategy of the report, in its order.
    pub strategies: Vec<ServerStrategy>,
}

/// The server an entry belongs to, from its name: a Codex namespace `mcp__SERVER` (or any
/// namespace named by `mcp.prefixes`), or a name `mcp.prefixes` marks, read as
/// [`tool::server_label`] reads it. `None`: a tool of the host's own.
pub fn server_of(entry: &Value, settings: &Settings) -> Option<String> {
    let name = tool::name(entry)?;
    if !settings.is_mcp(name) {
        return None;
    }
    if entry.get("type").and_then(Value::as_str) == Some("namespace") {
        let bare = settings
            .mcp_prefixes
            .iter()
            .find_map(|p| name.strip_prefix(p.as_str()))
            .unwrap_or(name);
        return Some(bare.to_owned());
    }
    Some(tool::server_label(name).unwrap_or(name).to_owned())
}

/// Each entry's server where one MCP server of the trace listed it (a `tools/list` answer
/// inside the trace, its server named by its `initialize` answer): that server's name, in
/// place of what the entry's name suggests; else as [`server_of`] reads the name (empty: a
/// tool of the host's own). `None` when no entry was listed by a named server (nothing to
/// add to the names). A name two named servers list tells neither apart: read by its name.
pub fn owners_from_lists(
    capture: &Capture,
    servers: &[McpServer],
    settings: &Settings,
) -> Option<Vec<String>> {
    let mut any = false;
    let owners = capture
        .tools()
        .iter()
        .map(|entry| {
            let listed = tool::name(entry)
                .and_then(|name| crate::trace::mcp_server_listing(servers, name))
                .and_then(|server| server.name.clone());
            any |= listed.is_some();
            listed
                .or_else(|| server_of(entry, settings))
                .unwrap_or_default()
        })
        .collect();
    any.then_some(owners)
}

/// Tools an entry stands for: a namespace's nested tools, else one.
pub fn tool_count(entry: &Value) -> usize {
    if entry.get("type").and_then(Value::as_str) == Some("namespace") {
        entry
            .get("tools")
            .and_then(Value::as_array)
            .map_or(1, Vec::len)
    } else {
        1
    }
}

/// The rows of a report of `capture`: servers costliest first (by the tokens of their tools as
/// captured; ties by name), then the host's row (when it has tools). `owners`: the server of each capture entry when the caller
/// knows it (`toolprism mcp` for hosts whose names do not carry the server); otherwise read
/// from the names by [`server_of`].
pub fn rows(
    capture: &Capture,
    report: &Report,
    settings: &Settings,
    owners: Option<&[String]>,
    counter: &TokenCounter,
) -> Vec<ServerRow> {
    let json = CaptureJson::new(capture);
    let texts: Vec<&str> = json.entries.iter().map(String::as_str).collect();
    let entry_tokens = counter.count_many(&texts);
    let mut order: Vec<Option<String>> = Vec::new();
    let mut of_entry = Vec::with_capacity(capture.tools().len());
    for (index, entry) in capture.tools().iter().enumerate() {
        let server = match owners {
            // An empty owner is the host's own tool (Claude Code's `ToolSearch`).
            Some(owners) => owners.get(index).filter(|o| !o.is_empty()).cloned(),
            None => server_of(entry, settings),
        };
        if !order.contains(&server) {
            order.push(server.clone());
        }
        of_entry.push(server);
    }
    let mut rows = order
        .into_iter()
        .map(|server| {
            let mine: Vec<usize> = of_entry
                .iter()
                .enumerate()
                .filter(|(_, s)| **s == server)
                .map(|(i, _)| i)
                .collect();
            let tools = mine.iter().map(|&i| tool_count(&capture.tools()[i])).sum();
            let tokens = mine.iter().map(|&i| entry_tokens[i]).sum::<usize>();
            let strategies = report
                .strategies
                .iter()
                .map(|figures| {
                    let sent = (!figures.is_refused()).then(|| {
                        mine.iter()
                            .map(|&i| {
                                figures
                                    .per_tool
                                    .get(i)
                                    .map_or(0, crate::report::ToolFigures::context_tokens)
                            })
                            .sum::<usize>()
                    });
                    ServerStrategy {
                        id: figures.id,
                        tokens: sent,
                        saved_tokens: sent.map(|s| tokens as i64 - s as i64),
                    }
                })
                .collect();
            ServerRow {
                mcp: server.is_some(),
                name: server.unwrap_or_else(|| HOST_ROW.to_owned()),
                tools,
                tokens,
                strategies,
            }
        })
        .collect::<Vec<_>>();
    // Costliest first, as the view's grouping; the host's row last.
    rows.sort_by(|a, b| {
        (!a.mcp, std::cmp::Reverse(a.tokens), &a.name).cmp(&(
            !b.mcp,
            std::cmp::Reverse(b.tokens),
            &b.name,
        ))
    });
    rows
}
