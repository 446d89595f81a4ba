//! Codex's MCP handling under tool search: `codex` (STRATEGIES.md section 6).
//!
//! Reproduces what Codex (openai/codex, release tag `rust-v0.171.0`) sends on the OpenAI
//! Responses API when the model supports tool search: every MCP tool is deferred, whole
//! namespaces at a time (Codex groups an MCP server's tools under one `mcp__<server>`
//! namespace), and left out of `tools`. Codex adds its client-executed
//! `{"type":"tool_search","execution":"client",…}` entry, which returns the deferred
//! definitions (`defer_loading: true`, nested in their namespace) for the next call, and it
//! names the deferred namespaces to the model in a `<tools>` block of its developer message
//! (its "world state"). Both are text the model reads, counted as added.
//!
//! Checked against the release itself: the 0.171.0 binary, run against a loopback server with
//! two stdio MCP servers, sent exactly these bytes (the sample `samples/codex-mcp-responses.json`
//! is modelled on it). Everything else Codex sends (its shell, patch and plan tools, hosted
//! `web_search`) stays eager; its own `multi_agent_v1` namespace is deferred the same way.
//!
//! Decisions toolprism makes where Codex's rule does not carry over to a foreign capture:
//! - Codex 0.171.0 sends only the Responses API (`wire_api = "chat"` is no longer supported):
//!   on any other shape nothing is projected (`not_applicable`, the list as sent).
//! - A captured MCP tool is a `namespace` entry whose name matches `mcp.prefixes` (Codex's own
//!   eager form) or a flat function named by them (`mcp__server__tool`, as older Codex and most
//!   hosts send): a flat tool joins the `mcp__<server>` namespace of the server read from its
//!   name (the rule of `defer`'s server labels), or a namespace of its own name without one.
//! - A namespace's description is the one a captured `namespace` entry carries, unless it is
//!   Codex's default `Tools in the X namespace.` (which Codex writes when the server gave none,
//!   and then lists the namespace without a description); a flat tool gives none.
//! - `tool_search` goes after the last function tool sent, before the hosted entries that
//!   follow it, where Codex puts it; a capture that already sends one keeps it and gains none.
//! - The `<tools>` block is appended to the last developer message of the instructions that
//!   open `input`, where Codex appends it (a new developer message after them without one).

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Map, Value, json};

use crate::capture::{Capture, Shape};
use crate::projection::{Draft, SentTool, Status};
use crate::settings::Settings;
use crate::tool;

/// The Codex release whose rules this module reproduces.
pub const RELEASE: &str = "rust-v0.171.0";

/// The tool search tool's name (its `type` on the wire).
pub const TOOL_SEARCH_TOOL_NAME: &str = "tool_search";

/// Tools one search returns when the model sets no limit.
pub const TOOL_SEARCH_DEFAULT_LIMIT: usize = 8;

/// Bytes the source listing of the tool search description may hold.
pub const MAX_TOOL_SEARCH_SOURCE_DESCRIPTION_BYTES: usize = 512 * 1024;

/// Bytes of the whole `<tools>` block, tags included.
pub const MAX_RENDERED_FRAGMENT_BYTES: usize = 4 * 1024;

/// Chars a namespace description keeps in the `<tools>` block.
pub const MAX_NAMESPACE_DESCRIPTION_CHARS: usize = 250;

/// Bytes held back per group for its `... N additional namespaces omitted.` line, charged only
/// when the names alone overflow.
pub const OMITTED_LINE_RESERVE_BYTES: usize = 64;

/// What a cut description ends with.
pub const DESCRIPTION_TRUNCATION_SUFFIX: &str = "...";

/// The heading of the deferred namespaces in a first (snapshot) `<tools>` block.
pub const DEFERRED_HEADING: &str = "Deferred tool namespaces";

const TOOLS_OPEN_TAG: &str = "<tools>";
const TOOLS_CLOSE_TAG: &str = "</tools>";
const EMPTY_STATE: &str = "No deferred tool namespaces remain.\n";

/// Codex's own namespaces that it defers under tool search beside the MCP ones.
pub const OWN_DEFERRED_NAMESPACES: [&str; 1] = ["multi_agent_v1"];

/// Whether the tool search description lists the searchable sources. Codex 0.171.0 omits them
/// because the `<tools>` block already names every deferred namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceListing {
    /// `You have access to tools from the following sources:` and one line per source.
    Include,
    /// No listing.
    Omit,
}

/// A source the tool search description may list: a server or connector, and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Its name.
    pub name: String,
    /// Its description, if it has one.
    pub description: Option<String>,
}

/// Codex's description for a namespace that came without one.
pub fn default_namespace_description(namespace: &str) -> String {
    format!("Tools in the {namespace} namespace.")
}

/// The tool search entry Codex sends, in Responses form (keys in Codex's order). Sources are
/// deduplicated by name (the first description found wins), listed in name order, and held
/// within [`MAX_TOOL_SEARCH_SOURCE_DESCRIPTION_BYTES`], names before descriptions.
pub fn tool_search_tool(sources: &[Source], default_limit: usize, listing: SourceListing) -> Value {
    let section = match listing {
        SourceListing::Include => format!(
            "\n\nYou have access to tools from the following sources:\n{}\n",
            source_listing(sources)
        ),
        SourceListing::Omit => "\n\n".to_owned(),
    };
    let description = format!(
        "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.{section}Some of the tools may not have been provided to you upfront, and you should use this tool (`{TOOL_SEARCH_TOOL_NAME}`) to search for the required tools. For MCP tool discovery, always use `{TOOL_SEARCH_TOOL_NAME}` instead of `list_mcp_resources` or `list_mcp_resource_templates`."
    );
    // `preserve_order` keeps the keys as written: Codex's schema lists properties by name.
    json!({
        "type": TOOL_SEARCH_TOOL_NAME,
        "execution": "client",
        "description": description,
        "parameters": {
            "type": "object",
            "properties": {
                "limit": {
                    "type": "number",
                    "description": format!("Maximum number of tools to return. Defaults to {default_limit}.")
                },
                "query": {
                    "type": "string",
                    "description": "Search query for deferred tools."
                }
            },
            "required": ["query"],
            "additionalProperties": false
        }
    })
}

/// `- name: description` lines, one per distinct source name, within the byte cap.
fn source_listing(sources: &[Source]) -> String {
    let mut by_name: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    for source in sources {
        let slot = by_name.entry(source.name.as_str()).or_insert(None);
        if slot.is_none() {
            *slot = source.description.as_deref();
        }
    }
    if by_name.is_empty() {
        return "None currently enabled.".to_owned();
    }
    let reserved_name_bytes = by_name
        .keys()
        .fold(by_name.len().saturating_sub(1), |r, n| {
            r.saturating_add(2).saturating_add(n.len())
        });
    let mut description_budget =
        MAX_TOOL_SEARCH_SOURCE_DESCRIPTION_BYTES.saturating_sub(reserved_name_bytes);
    let mut rendered = String::new();
    for (name, description) in by_name {
        let separator = usize::from(!rendered.is_empty());
        let required = separator.saturating_add(2).saturating_add(name.len());
        if required > MAX_TOOL_SEARCH_SOURCE_DESCRIPTION_BYTES.saturating_sub(rendered.len()) {
            continue;
        }
        if !rendered.is_empty() {
            rendered.push('\n');
        }
        rendered.push_str("- ");
        rendered.push_str(name);
        if let Some(description) = description
            && description_budget >= 2
        {
            rendered.push_str(": ");
            description_budget -= 2;
            let kept = &description[..floor_char_boundary(description, description_budget)];
            rendered.push_str(kept);
            description_budget -= kept.len();
        }
    }
    rendered
}

/// The largest char boundary of `text` at or below `index`.
fn floor_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    (0..=index)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// A namespace description as the `<tools>` block keeps it: its first line, trimmed, at most
/// [`MAX_NAMESPACE_DESCRIPTION_CHARS`] chars (a longer one keeps 247 and ends with `...`).
pub fn normalize_namespace_description(description: &str) -> String {
    let first = description.lines().next().unwrap_or_default().trim();
    let mut chars = first.chars();
    let mut kept: String = chars
        .by_ref()
        .take(MAX_NAMESPACE_DESCRIPTION_CHARS)
        .collect();
    if chars.next().is_some() {
        let cut = kept
            .char_indices()
            .nth(MAX_NAMESPACE_DESCRIPTION_CHARS - DESCRIPTION_TRUNCATION_SUFFIX.len())
            .map_or(kept.len(), |(index, _)| index);
        kept.truncate(cut);
        kept.push_str(DESCRIPTION_TRUNCATION_SUFFIX);
    }
    kept
}

/// The `<tools>` block of a first request: every deferred namespace (name → description, as
/// given: see [`normalize_namespace_description`]) under `Deferred tool namespaces:`. `None`
/// when there is none (Codex sends no block then).
pub fn deferred_namespaces_fragment(namespaces: &BTreeMap<String, String>) -> Option<String> {
    if namespaces.is_empty() {
        return None;
    }
    Some(namespace_groups_fragment(
        &[(DEFERRED_HEADING, namespaces)],
        false,
    ))
}

/// A whole `<tools>` block of labelled groups (a later request lists `Added deferred tool
/// namespaces` and `Removed deferred tool namespaces`), within [`MAX_RENDERED_FRAGMENT_BYTES`]:
/// names are kept before descriptions, which share what is left; names that do not fit are
/// counted in a `... N additional namespaces omitted.` line. `current_is_empty` adds Codex's
/// notice that no deferred namespace remains.
pub fn namespace_groups_fragment(
    groups: &[(&str, &BTreeMap<String, String>)],
    current_is_empty: bool,
) -> String {
    let body_budget =
        MAX_RENDERED_FRAGMENT_BYTES.saturating_sub(TOOLS_OPEN_TAG.len() + TOOLS_CLOSE_TAG.len());
    let empty_state = current_is_empty.then_some(EMPTY_STATE);
    let filled = || {
        groups
            .iter()
            .filter(|(_, namespaces)| !namespaces.is_empty())
    };
    let fixed_bytes = 1
        + filled().map(|(label, _)| label.len() + 2).sum::<usize>()
        + empty_state.map_or(0, str::len);
    let entry_budget = body_budget.saturating_sub(fixed_bytes);
    let reserve = filled().count() * OMITTED_LINE_RESERVE_BYTES;
    let mut rows = truncate_namespace_rows(groups, entry_budget, reserve).into_iter();
    let mut body = String::from("\n");
    for (label, namespaces) in filled() {
        body.push_str(label);
        body.push_str(":\n");
        let mut omitted = 0usize;
        // `zip` asks the namespaces first, so no row of the next group is taken.
        for (_, row) in namespaces.iter().zip(rows.by_ref()) {
            match row {
                Some(row) => body.push_str(&row),
                None => omitted += 1,
            }
        }
        if omitted > 0 {
            body.push_str(&format!("... {omitted} additional namespaces omitted.\n"));
        }
    }
    if let Some(notice) = empty_state {
        body.push_str(notice);
    }
    format!("{TOOLS_OPEN_TAG}{body}{TOOLS_CLOSE_TAG}")
}

/// Each namespace's row in group order (`- name: description\n`, `- name\n`, or a description
/// cut to `prefix...`), within `byte_budget` bytes; `None` for a name left out. Headings are
/// not part of the budget; `omission_reserve_bytes` is held back only when the names alone do
/// not fit.
pub fn truncate_namespace_rows(
    groups: &[(&str, &BTreeMap<String, String>)],
    byte_budget: usize,
    omission_reserve_bytes: usize,
) -> Vec<Option<String>> {
    let entries: Vec<(&str, &str)> = groups
        .iter()
        .flat_map(|(_, namespaces)| namespaces.iter())
        .map(|(namespace, description)| (namespace.as_str(), description.as_str()))
        .collect();
    let retained =
        calculate_namespace_row_truncation(&entries, byte_budget, omission_reserve_bytes);
    entries
        .into_iter()
        .zip(retained)
        .map(|((namespace, description), retained)| {
            retained.map(|bytes| {
                if bytes == 0 {
                    format!("- {namespace}\n")
                } else if bytes == description.len() {
                    format!("- {namespace}: {description}\n")
                } else if let Some(prefix) = bytes.checked_sub(DESCRIPTION_TRUNCATION_SUFFIX.len())
                {
                    let prefix = &description[..floor_char_boundary(description, prefix)];
                    format!("- {namespace}: {prefix}{DESCRIPTION_TRUNCATION_SUFFIX}\n")
                } else {
                    format!("- {namespace}\n")
                }
            })
        })
        .collect()
}

/// How many description bytes each `(name, description)` row keeps: every name is kept first
/// (`Some(0)`); what is left is shared one char per row in turn (the first char of a row also
/// pays its `: `). When the names alone overflow, rows are kept whole-name-only while they fit
/// in the budget less `omission_reserve_bytes`, and the others are `None`.
pub fn calculate_namespace_row_truncation(
    entries: &[(&str, &str)],
    byte_budget: usize,
    omission_reserve_bytes: usize,
) -> Vec<Option<usize>> {
    let row_bytes = |namespace: &str| 2 + namespace.len() + 1;
    let total_name_bytes: usize = entries.iter().map(|&(n, _)| row_bytes(n)).sum();
    if total_name_bytes > byte_budget {
        let mut remaining = byte_budget.saturating_sub(omission_reserve_bytes);
        return entries
            .iter()
            .map(|&(namespace, _)| {
                let bytes = row_bytes(namespace);
                (bytes <= remaining).then(|| {
                    remaining -= bytes;
                    0
                })
            })
            .collect();
    }
    let mut remaining = byte_budget - total_name_bytes;
    let total_description_bytes: usize = entries
        .iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|(_, d)| 2 + d.len())
        .sum();
    if total_description_bytes <= remaining {
        return entries.iter().map(|(_, d)| Some(d.len())).collect();
    }
    let mut retained = vec![Some(0); entries.len()];
    if remaining == 0 {
        return retained;
    }
    let mut active: VecDeque<(usize, std::str::CharIndices<'_>)> = entries
        .iter()
        .enumerate()
        .filter(|(_, (_, d))| !d.is_empty())
        .map(|(row, (_, d))| (row, d.char_indices()))
        .collect();
    // A row whose next char does not fit leaves for good: the budget only shrinks.
    while let Some((row, mut chars)) = active.pop_front() {
        let Some((at, c)) = chars.next() else {
            continue;
        };
        let extra = c.len_utf8() + if at == 0 { 2 } else { 0 };
        if extra <= remaining {
            remaining -= extra;
            retained[row] = Some(at + c.len_utf8());
            active.push_back((row, chars));
        }
    }
    retained
}

/// The namespace Codex defers a captured entry under, and the description it lists for it:
/// an MCP `namespace` entry (or Codex's own [`OWN_DEFERRED_NAMESPACES`]) by its name, a flat
/// MCP function under `mcp__<server>`. `None` for a tool Codex keeps eager.
pub fn deferred_namespace(entry: &Value, settings: &Settings) -> Option<(String, Option<String>)> {
    let name = tool::name(entry)?;
    if entry.get("type").and_then(Value::as_str) == Some("namespace") {
        if !settings.is_mcp(name) && !OWN_DEFERRED_NAMESPACES.contains(&name) {
            return None;
        }
        let description = tool::description(entry)
            .filter(|d| !d.trim().is_empty() && *d != default_namespace_description(name))
            .map(str::to_owned);
        return Some((name.to_owned(), description));
    }
    if !settings.is_mcp(name) {
        return None;
    }
    let namespace = match tool::server_label(name) {
        Some(server) => format!("mcp__{server}"),
        None => name.to_owned(),
    };
    Some((namespace, None))
}

/// Whether Codex sends requests of `shape` at all (only OpenAI Responses): for any other, no
/// setting makes `codex` apply.
pub fn sends(shape: Shape) -> bool {
    shape == Shape::OpenAiResponses
}

/// Project a capture the way Codex sends it under tool search.
pub fn project(capture: &Capture, settings: &Settings) -> Draft {
    let tools = capture.tools();
    if tools.is_empty() {
        return Draft::unchanged(capture);
    }
    if !sends(capture.shape()) {
        let mut draft = Draft::unchanged(capture);
        draft.not_applicable(format!(
            "Codex {RELEASE} sends only OpenAI Responses requests (`wire_api = \"chat\"` is no longer supported): this {} capture is sent as it is",
            capture.shape()
        ));
        return draft;
    }

    let mut descriptions: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut deferred: Vec<(usize, String)> = Vec::new();
    let mut own_search = None;
    let mut flat = false;
    let mut deferred_tools = 0usize;
    for (index, entry) in tools.iter().enumerate() {
        if capture.is_hosted_at(index) {
            if entry.get("type").and_then(Value::as_str) == Some(TOOL_SEARCH_TOOL_NAME) {
                own_search.get_or_insert(index);
            }
            continue;
        }
        let Some((namespace, description)) = deferred_namespace(entry, settings) else {
            continue;
        };
        let is_namespace = entry.get("type").and_then(Value::as_str) == Some("namespace");
        flat |= !is_namespace;
        deferred_tools += if is_namespace {
            entry
                .get("tools")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        } else {
            1
        };
        let slot = descriptions.entry(namespace.clone()).or_insert(None);
        if slot.is_none() {
            *slot = description;
        }
        deferred.push((index, namespace));
    }

    if deferred.is_empty() {
        let mut draft = Draft::unchanged(capture);
        draft.not_applicable(format!(
            "no MCP tools (mcp.prefixes) to defer: Codex {RELEASE} keeps every other tool eager, so the list is sent as it is"
        ));
        return draft;
    }

    let deferred_at: std::collections::HashSet<usize> = deferred.iter().map(|(i, _)| *i).collect();
    let mut sent: Vec<SentTool> = (0..tools.len())
        .filter(|i| !deferred_at.contains(i))
        .map(SentTool::original)
        .collect();
    if own_search.is_none() {
        let at = sent
            .iter()
            .rposition(|t| t.origin.is_some_and(|i| !capture.is_hosted_at(i)))
            .map_or(0, |last| last + 1);
        sent.insert(
            at,
            SentTool::added(
                tool_search_tool(&[], TOOL_SEARCH_DEFAULT_LIMIT, SourceListing::Omit),
                format!("Codex {RELEASE}'s client-executed tool search for the deferred tools"),
            ),
        );
    }

    let mut draft = Draft {
        sent: Some(sent),
        ..Draft::default()
    };
    for (index, namespace) in &deferred {
        draft.dropped.push((
            *index,
            Status::Deferred,
            format!("deferred behind tool_search in namespace {namespace}"),
        ));
    }
    let namespaces: BTreeMap<String, String> = descriptions
        .into_iter()
        .map(|(name, description)| {
            let text = description.as_deref().unwrap_or("");
            (name, normalize_namespace_description(text))
        })
        .collect();
    let fragment = deferred_namespaces_fragment(&namespaces);
    let listed = fragment
        .as_deref()
        .map_or(0, |f| f.lines().filter(|l| l.starts_with("- ")).count());

    draft.info(format!(
        "Codex {RELEASE} under tool search: {deferred_tools} tools in {} deferred namespaces left out of `tools` (client-local); the model finds them with `tool_search`, whose result carries their definitions (`defer_loading: true`, nested in their namespace) for the next call",
        namespaces.len()
    ));
    draft.info(
        "the deferred namespaces are named in a `<tools>` block appended to the developer instructions (Codex's world state): added text, counted",
    );
    if flat {
        draft.info(
            "flat MCP names are grouped as Codex names them, one `mcp__<server>` namespace per server, the server read from the name (mcp__server__tool, mcp--server--tool, mcp_server_tool)",
        );
    }
    if listed < namespaces.len() {
        draft.info(format!(
            "the `<tools>` block is capped at {MAX_RENDERED_FRAGMENT_BYTES} bytes: {} of {} namespaces left out of it",
            namespaces.len() - listed,
            namespaces.len()
        ));
    }
    if own_search.is_some() {
        draft.info(
            "the capture already sends a `tool_search` entry: kept as it is, no second one added",
        );
    }
    draft.added_text = fragment;
    draft
}

/// Put the `<tools>` block into a Responses body where Codex keeps it: appended as an
/// `input_text` part to the last developer message of the instructions that open `input` (its
/// developer and system messages before the first turn; a string content becomes a part list
/// first), else a new developer message after them. A string `input` becomes a one-item list
/// first.
pub fn place_fragment(body: &mut Value, fragment: &str) {
    let Some(object) = body.as_object_mut() else {
        return;
    };
    let part = || json!({"type": "input_text", "text": fragment});
    let slot = object.entry("input".to_owned()).or_insert(Value::Null);
    match slot.take() {
        Value::String(text) => *slot = json!([{"role": "user", "content": text}]),
        Value::Array(items) => *slot = Value::Array(items),
        Value::Null => *slot = Value::Array(Vec::new()),
        other => *slot = Value::Array(vec![other]),
    }
    let Some(items) = slot.as_array_mut() else {
        return;
    };
    let role = |item: &Value| item.get("role").and_then(Value::as_str).map(str::to_owned);
    // The leading run of instructions: Codex's developer messages come before the first turn.
    let lead = items
        .iter()
        .take_while(|item| matches!(role(item).as_deref(), Some("developer" | "system")))
        .count();
    let developer = (0..lead)
        .rev()
        .find(|&at| role(&items[at]).as_deref() == Some("developer"));
    match developer.and_then(|at| items[at].as_object_mut()) {
        Some(message) => append_part(message, part()),
        None => items.insert(
            lead,
            json!({"type": "message", "role": "developer", "content": [part()]}),
        ),
    }
}

/// Append a content part to a message, keeping its key order.
fn append_part(message: &mut Map<String, Value>, part: Value) {
    let content = message.entry("content".to_owned()).or_insert(Value::Null);
    let parts = match content.take() {
        Value::String(text) => vec![json!({"type": "input_text", "text": text}), part],
        Value::Array(mut parts) => {
            parts.push(part);
            parts
        }
        Value::Null => vec![part],
        other => vec![other, part],
    };
    *content = Value::Array(parts);
}
