//! zero's deferred loading: `defer` and `defer-catalog` (STRATEGIES.md section 4).
//!
//! Once enough tools are eligible (MCP tools, or every tool with `defer.eligible=all`), zero
//! withholds them and sends a `tool_search` loader instead. `defer` lists the withheld tools in a
//! `<system-reminder>` message (zero's earlier form); `defer-catalog` lists them in
//! `tool_search`'s own description (its current form).
//!
//! Releases (`zero.release`): zero 0.8.0 (commit ad34dc8, the default) moved the discovery list
//! into `tool_search`'s description (commit b8b0bb7), so under 0.8.0 `defer` is `defer-catalog`.
//! Its rules, read from `internal/agent/loop.go` (`partitionToolsCached`),
//! `internal/tools/deferred.go` and `registry.go`:
//! - threshold 3 (was 10); eligible: MCP tools and zero's own built-ins that it marks deferred
//!   (`bash`, `web_fetch`, `web_search`, `browser_*`, `swarm_*`, ... see [`ZERO_DEFERRED_BUILTINS`]);
//! - active layout: the eager tools sorted by name, then `tool_search`, then the loaded
//!   deferred tools sorted by name (appended, so a load never shifts the cached prefix);
//! - the catalog lists every deferred tool, loaded ones included (it stays byte-stable as tools
//!   load): one `name — source` line per distinct line, lines sorted in byte order; the source
//!   of a tool without a server is its name's first `_` segment (`swarm_spawn — swarm`), and a
//!   line whose source equals the name is the name alone.
//!
//! Decisions toolprism makes where zero's rule does not carry over to a foreign capture:
//! - zero orders withheld tools by a Go map walk, which varies per run; toolprism sorts them by
//!   name (byte order, ties in capture order) so every projection is reproducible.
//! - zero labels a tool with the server name it reports; a capture has none, so the label is
//!   derived from the tool's name ([`server_label`]).
//! - A capture's own `tool_search` entry is never sent: while deferring it is replaced by zero's
//!   loader (two tools of one name would be rejected by the provider), and while not deferring
//!   zero sends no loader at all. It is never eligible itself.
//! - Tools with the same name each get their own line.
//! - Hosted entries (`<web_search>`, a remote MCP server) are never eligible: they are sent
//!   untouched after the function tools (and the loader), in capture order.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde_json::{Map, Value, json};

use crate::capture::{Capture, Shape};
use crate::projection::{Draft, SentTool, Status};
use crate::setting_key::{self, SettingKey, ValueKind};
use crate::settings::{Eligible, Settings, ZeroRelease};
use crate::strategy::{Input, Strategy};
use crate::tool;
pub use crate::tool::server_label;

/// What zero's forms read beyond the tool list: the tools loaded earlier in the run, which they
/// send in full.
pub const READS: &[(Strategy, Input)] = &[
    (Strategy::Defer, Input::Loaded),
    (Strategy::DeferCatalog, Input::Loaded),
];

/// The keys zero's rules read, in `--set` order.
pub const SETTINGS: &[SettingKey] = &[
    SettingKey {
        key: "defer.threshold",
        help: "eligible tools needed before deferring (0 disables; auto: the release's, 3 or 10)",
        kind: ValueKind::Number,
        affects: &[Strategy::Defer, Strategy::DeferCatalog],
        first_for: &[Strategy::Defer, Strategy::DeferCatalog],
        read: |s| Some(setting_key::auto_text(s.defer_threshold)),
        write: |s, v| {
            s.defer_threshold = setting_key::auto_or(
                v,
                |v| setting_key::count(v, ""),
                "auto (the release's), or a number of tools (0 disables)",
            )?;
            Ok(())
        },
    },
    SettingKey {
        key: "defer.eligible",
        help: "mcp (MCP tools only) or all",
        kind: ValueKind::Choice(&["mcp", "all"]),
        affects: &[Strategy::Defer, Strategy::DeferCatalog],
        first_for: &[],
        read: |s| {
            Some(match s.defer_eligible {
                Eligible::Mcp => "mcp".into(),
                Eligible::All => "all".into(),
            })
        },
        write: |s, v| {
            s.defer_eligible = match v.trim() {
                "mcp" => Eligible::Mcp,
                "all" => Eligible::All,
                _ => return Err("mcp or all"),
            };
            Ok(())
        },
    },
    SettingKey {
        key: "zero.release",
        help: "zero release: 0.8.0 (current: catalog in tool_search, threshold 3) or 2ea36cf (reminder, threshold 10)",
        kind: ValueKind::Choice(&["0.8.0", "2ea36cf"]),
        affects: &[Strategy::Defer, Strategy::DeferCatalog],
        first_for: &[],
        read: |s| Some(s.zero_release.id().into()),
        write: |s, v| {
            s.zero_release = match v.trim() {
                "0.8.0" | "ad34dc8" => ZeroRelease::V0_8_0,
                "2ea36cf" => ZeroRelease::C2ea36cf,
                _ => return Err("0.8.0 or 2ea36cf"),
            };
            Ok(())
        },
    },
];

/// Where zero lists the deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A `<system-reminder>` message (`defer`).
    Reminder,
    /// `tool_search`'s own description (`defer-catalog`).
    Catalog,
}

/// The loader's name.
pub const TOOL_SEARCH: &str = "tool_search";

/// `tool_search`'s description in the reminder form.
pub const TOOL_SEARCH_DESCRIPTION: &str = "Search for and load deferred tools by exact name or keyword. Use query \"select:Name1,Name2\" to load specific tools, or keywords to find matching tools. Loading a tool returns its full schema so you can call it on the next turn.";

/// D when a withheld tool's description shortens to nothing.
pub const NO_DESCRIPTION: &str = "No description provided";

/// Chars a withheld tool's description keeps in its line (zero's default).
pub const DESCRIPTION_MAX: usize = 200;

/// Chars of the input hint.
pub const HINT_MAX: usize = 360;

/// Properties the input hint names before summarising the rest.
pub const HINT_PARAMS: usize = 4;

const REMINDER_HEAD: &str = "<system-reminder>\nThe tools listed below are available in this environment, but their full schemas are omitted from the current tool list to save context.\nCall tool_search with query \"select:Name1,Name2\" (the exact names before each colon) or with keywords to load a tool's full schema before calling it. Calling an omitted tool directly will fail with an input validation error.\nDo not call tool_search for tools already present in the current tool list, and do not guess or invent tool names.\n\nDeferred tools:\n";

const REMINDER_TAIL: &str = "\n</system-reminder>";

const CATALOG_HEAD: &str = "# Tool discovery\n\nSearches over deferred tool metadata and exposes matching tools for the next model call.\n\nDeferred tools available through `tool_search`:\n";

const CATALOG_TAIL: &str = "\nUse query `select:Name1,Name2` for exact names from this list, or use keywords to search tool names and descriptions. Do not call `tool_search` for tools already present in the current tool list.";

/// zero 0.8.0's own tools that it marks deferred (`deferred: true`, or a `Deferred()` that holds
/// outside an active swarm): eligible by name under `defer.eligible=mcp`, as in zero's registry.
pub const ZERO_DEFERRED_BUILTINS: &[&str] = &[
    "bash",
    "browser_action",
    "browser_click",
    "browser_connect",
    "browser_install",
    "browser_launch",
    "browser_open",
    "browser_press",
    "browser_snapshot",
    "browser_type",
    "capture_artifact",
    "desktop_action",
    "desktop_snapshot",
    "desktop_windows",
    "list_sessions",
    "lsp_navigate",
    "send_message",
    "swarm_collect",
    "swarm_handoff",
    "swarm_inbox",
    "swarm_send",
    "swarm_spawn",
    "swarm_status",
    "terminal_session",
    "web_fetch",
    "web_search",
];

/// The catalog's text when no deferred tool has a line (zero 0.8.0).
pub const NO_DEFERRED_TOOLS: &str = "No deferred tools are currently hidden.";

/// zero 0.8.0's source label of a deferred tool (`DeferredSource`): the MCP server (toolprism
/// derives it from the name, [`server_label`]), else the `mcp_server_tool` token, else the
/// name's first `_` segment when non-empty, else the whole name (trimmed).
pub fn deferred_source<'a>(name: &'a str, settings: &Settings) -> &'a str {
    if settings.is_mcp(name)
        && let Some(server) = server_label(name).map(str::trim)
        && !server.is_empty()
    {
        return server;
    }
    if let Some(server) = name
        .strip_prefix("mcp_")
        .and_then(|rest| tool::mcp_segment(rest, "_"))
    {
        return server;
    }
    let name = name.trim();
    match name.split_once('_') {
        Some((prefix, _)) if !prefix.is_empty() => prefix,
        _ => name,
    }
}

/// zero 0.8.0's catalog line of one deferred tool (`DeferredToolDiscoveryLine`): `name — source`,
/// or the name alone when the source is empty or the name itself; empty for a blank name.
pub fn discovery_line(name: &str, settings: &Settings) -> String {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return String::new();
    }
    let source = deferred_source(name, settings).trim();
    if source.is_empty() || source == trimmed {
        trimmed.to_owned()
    } else {
        format!("{trimmed} — {source}")
    }
}

/// zero 0.8.0's `tool_search` description (`BuildToolSearchDescription`): the distinct lines of
/// the deferred tools, sorted in byte order, each as `- line`.
pub fn tool_search_description<'a>(
    names: impl IntoIterator<Item = &'a str>,
    settings: &Settings,
) -> String {
    let lines: BTreeSet<String> = names
        .into_iter()
        .map(|name| discovery_line(name, settings))
        .filter(|line| !line.is_empty())
        .collect();
    let listed = if lines.is_empty() {
        NO_DEFERRED_TOOLS.to_owned()
    } else {
        lines
            .iter()
            .map(|line| format!("- {line}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!("{CATALOG_HEAD}{listed}{CATALOG_TAIL}")
}

/// `tool_search`'s parameter schema, keys in the order zero serializes them.
pub fn tool_search_schema() -> Value {
    // serde_json's `preserve_order` keeps the keys in the order written here.
    json!({
        "additionalProperties": false,
        "properties": {
            "query": {
                "description": "Either \"select:Name1,Name2\" for exact tool names, or space-separated keywords to match tool names and descriptions.",
                "type": "string"
            }
        },
        "required": ["query"],
        "type": "object"
    })
}

/// zero's one-line summary of a text: split on `\n`, trim each line, unwrap a markdown heading,
/// drop empty lines, collapse ASCII whitespace runs; keep the first line (joined with the second
/// when the first is a generic `Overview`/`Description`/`Summary` heading), then cut it to at most
/// `max` chars, preferring a word boundary and ending with `…`. `max` 0 means zero's default
/// ([`DESCRIPTION_MAX`]).
pub fn shorten(text: &str, max: usize) -> String {
    let max = if max == 0 { DESCRIPTION_MAX } else { max };
    let mut lines = text
        .split('\n')
        .map(normalize_line)
        .filter(|line| !line.is_empty())
        .map(collapse_ascii_whitespace);
    let Some(first) = lines.next() else {
        return String::new();
    };
    let meaningful = match lines.next() {
        Some(second) if is_generic_heading(&first) => format!("{first} — {second}"),
        _ => first,
    };
    truncate(&meaningful, max)
}

/// Trim a line (Unicode whitespace) and unwrap a markdown heading: 1 to 6 `#`, at least one
/// ASCII whitespace, then text.
fn normalize_line(line: &str) -> &str {
    let trimmed = line.trim();
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes)
        && trimmed
            .as_bytes()
            .get(hashes)
            .is_some_and(|&b| is_ascii_space(b))
    {
        // The line ends in non-whitespace, so text follows the whitespace run.
        return trimmed[hashes..].trim();
    }
    trimmed
}

/// The whitespace Go's regexp `\s` matches: `[\t\n\f\r ]` (not `\v`, not NBSP).
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn collapse_ascii_whitespace(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_run = false;
    for c in line.chars() {
        if c.is_ascii() && is_ascii_space(c as u8) {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

/// Whether a line is exactly `overview`, `description` or `summary`, case-insensitively as Go's
/// `(?i)` matches: simple case folding, under which `ſ` (U+017F) matches `s`.
fn is_generic_heading(line: &str) -> bool {
    ["overview", "description", "summary"].iter().any(|word| {
        line.chars().count() == word.len()
            && line
                .chars()
                .zip(word.bytes())
                .all(|(c, w)| c.to_ascii_lowercase() == w as char || (w == b's' && c == 'ſ'))
    })
}

/// At most `max` chars: past it, the first `max − 1` chars cut back to their last space (when
/// that is not the first char), right-trimmed of spaces, plus `…`.
fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let end = text
        .char_indices()
        .nth(max.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i);
    let mut cut = &text[..end];
    if let Some(space) = cut.rfind(' ')
        && space > 0
    {
        cut = &cut[..space];
    }
    format!("{}…", cut.trim_end_matches(' '))
}

/// What zero keeps of an MCP `inputSchema` for a deferred line (`internal/mcp/schema.go`,
/// `SchemaFromMCP`): each property whose schema is a JSON object, with its type, and the
/// required names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ZeroSchema {
    /// Property name (as written) → type, in byte order of the names.
    pub properties: BTreeMap<String, String>,
    /// `required`'s strings, trimmed, blank ones dropped (duplicates kept).
    pub required: Vec<String>,
}

/// zero's conversion of a schema: `properties` other than an object count as none, a property
/// whose schema is not an object (`true`, a string) is dropped; a type is the trimmed `type`
/// string, else the first non-blank string of a `type` array (trimmed), else `string`; required
/// names are the trimmed non-blank strings of a `required` array.
pub fn schema_from_mcp(schema: Option<&Value>) -> ZeroSchema {
    let Some(Value::Object(schema)) = schema else {
        return ZeroSchema::default();
    };
    let properties = match schema.get("properties") {
        Some(Value::Object(properties)) => properties
            .iter()
            .filter_map(|(name, property)| {
                let property = property.as_object()?;
                Some((name.clone(), property_type(property.get("type"))))
            })
            .collect(),
        _ => BTreeMap::new(),
    };
    let required = match schema.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(non_blank)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    ZeroSchema {
        properties,
        required,
    }
}

/// A string value trimmed (Unicode whitespace, as Go's `strings.TrimSpace`), when not blank.
fn non_blank(value: &Value) -> Option<&str> {
    value
        .as_str()
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

/// A property's type in zero's terms (`firstString(type, "string")`).
fn property_type(kind: Option<&Value>) -> String {
    let found = match kind {
        Some(Value::Array(kinds)) => kinds.iter().find_map(non_blank),
        Some(other) => non_blank(other),
        None => None,
    };
    found.unwrap_or("string").to_owned()
}

/// zero's one-line summary of a parameter schema, after [`schema_from_mcp`]: `(none)` without
/// properties, else `inputs (* required): ` and the first [`HINT_PARAMS`] property names in byte
/// order, each as `name (type)` plus `*` when required, then `; +N more`; shortened to
/// [`HINT_MAX`] chars.
pub fn input_hint(schema: Option<&Value>) -> String {
    let schema = schema_from_mcp(schema);
    if schema.properties.is_empty() {
        return "(none)".to_owned();
    }
    let parts: Vec<String> = schema
        .properties
        .iter()
        .take(HINT_PARAMS)
        .map(|(name, kind)| {
            let marker = if schema.required.iter().any(|r| r == name) {
                "*"
            } else {
                ""
            };
            format!("{name} ({kind}){marker}")
        })
        .collect();
    let mut hint = format!("inputs (* required): {}", parts.join(", "));
    if schema.properties.len() > HINT_PARAMS {
        hint.push_str(&format!(
            "; +{} more",
            schema.properties.len() - HINT_PARAMS
        ));
    }
    shorten(&hint, HINT_MAX)
}

/// The reminder line of one withheld tool entry:
/// `name: D` + ` | server: S` (when there is a label) + ` | H`.
pub fn deferred_line(entry: &Value) -> String {
    let name = tool::name(entry).unwrap_or("");
    let mut description = shorten(tool::description(entry).unwrap_or(""), DESCRIPTION_MAX);
    if description.is_empty() {
        description = NO_DESCRIPTION.to_owned();
    }
    let mut line = format!("{name}: {description}");
    if let Some(server) = server_label(name) {
        line.push_str(" | server: ");
        line.push_str(server);
    }
    line.push_str(" | ");
    line.push_str(&input_hint(tool::schema(entry)));
    line
}

/// The `<system-reminder>` text of `defer` around the withheld tools' lines.
pub fn reminder_text(lines: &[String]) -> String {
    format!("{REMINDER_HEAD}{}{REMINDER_TAIL}", lines.join("\n"))
}

/// `tool_search`'s description in `defer-catalog`: one `- name — server` line (`- name` without
/// a label) per withheld tool name, in the order given.
pub fn catalog_text<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let lines: Vec<String> = names
        .into_iter()
        .map(|name| match server_label(name) {
            Some(server) => format!("- {name} — {server}"),
            None => format!("- {name}"),
        })
        .collect();
    format!("{CATALOG_HEAD}{}{CATALOG_TAIL}", lines.join("\n"))
}

/// Project a capture under a deferred-loading form.
pub fn project(capture: &Capture, form: Form, settings: &Settings) -> Draft {
    project_loaded(capture, form, settings, &BTreeSet::new())
}

/// [`project`] at a later turn of a run: `loaded` names the tools the model has already loaded
/// through `tool_search`. zero keeps that set for the whole run and, while it defers, sends a
/// loaded eligible tool in full (sorted among the others) instead of withholding it; the
/// eligible count that decides whether it defers still includes loaded tools.
pub fn project_loaded(
    capture: &Capture,
    form: Form,
    settings: &Settings,
    loaded: &BTreeSet<String>,
) -> Draft {
    let release = settings.zero_release;
    // 0.8.0 has one form: the discovery list lives in tool_search's description.
    let form = match release {
        ZeroRelease::V0_8_0 => Form::Catalog,
        ZeroRelease::C2ea36cf => form,
    };
    let mut draft = draft_for(capture, form, settings, loaded);
    let strategy = match form {
        Form::Reminder => crate::strategy::Strategy::Defer,
        Form::Catalog => crate::strategy::Strategy::DeferCatalog,
    };
    if let Some(note) = crate::strategies::older_release_note(strategy, settings) {
        draft.notes.push(note);
    }
    draft
}

/// Whether zero defers a tool of this name under the settings' eligibility and release.
pub fn is_eligible(name: &str, settings: &Settings) -> bool {
    match settings.defer_eligible {
        Eligible::All => true,
        Eligible::Mcp => {
            settings.is_mcp(name)
                || (settings.zero_release == ZeroRelease::V0_8_0
                    && ZERO_DEFERRED_BUILTINS.contains(&name))
        }
    }
}

#[allow(
    clippy::too_many_lines,
    reason = "zero's deferral rules, step by step in its order"
)]
fn draft_for(
    capture: &Capture,
    form: Form,
    settings: &Settings,
    loaded: &BTreeSet<String>,
) -> Draft {
    let release = settings.zero_release;
    let tools = capture.tools();
    // Looked up once: sorting 100,000 names would otherwise look each up ~34 times.
    let names: Vec<&str> = tools
        .iter()
        .map(|entry| tool::name(entry).unwrap_or(""))
        .collect();
    let name_of = |index: usize| names[index];
    // Indices in name order (byte order), ties in capture order.
    let by_name = |mut indices: Vec<usize>| {
        indices.sort_by(|&a, &b| name_of(a).cmp(name_of(b)).then(a.cmp(&b)));
        indices
    };
    let (hosted, functions): (Vec<usize>, Vec<usize>) =
        (0..tools.len()).partition(|&i| capture.is_hosted_at(i));
    let (loaders, candidates): (Vec<usize>, Vec<usize>) = functions
        .into_iter()
        .partition(|&i| name_of(i) == TOOL_SEARCH);
    let (eligible, others): (Vec<usize>, Vec<usize>) = candidates
        .iter()
        .partition(|&&i| is_eligible(name_of(i), settings));
    let which = match (settings.defer_eligible, release) {
        (Eligible::Mcp, ZeroRelease::V0_8_0) => {
            "MCP tools by mcp.prefixes and zero's own deferred tools"
        }
        (Eligible::Mcp, ZeroRelease::C2ea36cf) => "MCP tools by mcp.prefixes",
        (Eligible::All, _) => "defer.eligible=all",
    };
    let threshold = settings.defer_threshold();
    let mut draft = Draft::default();

    if threshold == 0 || eligible.len() < threshold {
        draft.sent = Some(
            by_name(candidates.clone())
                .into_iter()
                .chain(hosted.iter().copied())
                .map(SentTool::original)
                .collect(),
        );
        for &index in &loaders {
            draft.dropped.push((
                index,
                Status::Removed,
                "zero sends its tool_search loader only while it defers tools".to_owned(),
            ));
        }
        if !tools.is_empty() {
            let why = if threshold == 0 {
                "deferring disabled (defer.threshold=0)".to_owned()
            } else {
                format!(
                    "deferring inactive: {} of {} tools eligible ({which}), below defer.threshold={threshold}",
                    eligible.len(),
                    candidates.len()
                )
            };
            draft.not_applicable(format!("{why}; every tool sent in full, sorted by name"));
            // A tools/list names its tools without a host prefix, so none of them looks MCP.
            if capture.shape() == Shape::McpToolsList
                && settings.defer_eligible == Eligible::Mcp
                && eligible.is_empty()
                && threshold > 0
            {
                draft.info(
                    "a tools/list names its tools without an MCP prefix: defer.eligible=all treats them all as MCP tools"
                        .to_owned(),
                );
            }
        }
        return draft;
    }

    let eligible_count = eligible.len();
    let builtins = eligible
        .iter()
        .filter(|&&i| !settings.is_mcp(name_of(i)) && settings.defer_eligible == Eligible::Mcp)
        .count();
    let (loaded_now, unloaded): (Vec<usize>, Vec<usize>) =
        eligible.iter().partition(|&&i| loaded.contains(name_of(i)));
    let withheld = by_name(unloaded);
    let description = match (form, release) {
        (Form::Reminder, _) => TOOL_SEARCH_DESCRIPTION.to_owned(),
        // The catalog keeps loaded tools too, so it stays byte-stable as tools load.
        (Form::Catalog, ZeroRelease::V0_8_0) => {
            tool_search_description(eligible.iter().map(|&i| name_of(i)), settings)
        }
        (Form::Catalog, ZeroRelease::C2ea36cf) => {
            catalog_text(withheld.iter().map(|&i| name_of(i)))
        }
    };
    let loader = SentTool::added(
        capture.make_tool(TOOL_SEARCH, &description, tool_search_schema()),
        match form {
            Form::Reminder => "zero's loader for the deferred tools",
            Form::Catalog => "zero's loader; its description lists the deferred tools",
        },
    );
    let mut sent = match (form, release) {
        (Form::Reminder, _) => {
            let others = by_name(
                others
                    .into_iter()
                    .chain(loaded_now.iter().copied())
                    .collect(),
            );
            // Sorted as a whole: the loader takes its place by name among the others.
            let at = others.partition_point(|&i| name_of(i) < TOOL_SEARCH);
            let mut sent: Vec<SentTool> = others.iter().map(|&i| SentTool::original(i)).collect();
            sent.insert(at, loader);
            sent
        }
        (Form::Catalog, ZeroRelease::C2ea36cf) => {
            let others = by_name(
                others
                    .into_iter()
                    .chain(loaded_now.iter().copied())
                    .collect(),
            );
            let mut sent: Vec<SentTool> = others.iter().map(|&i| SentTool::original(i)).collect();
            sent.push(loader);
            sent
        }
        (Form::Catalog, ZeroRelease::V0_8_0) => {
            // Eager block, loader, then the loaded tail: a load appends, never inserts.
            let mut sent: Vec<SentTool> = by_name(others)
                .into_iter()
                .map(SentTool::original)
                .collect();
            sent.push(loader);
            sent.extend(
                by_name(loaded_now.clone())
                    .into_iter()
                    .map(SentTool::original),
            );
            sent
        }
    };
    sent.extend(hosted.iter().map(|&i| SentTool::original(i)));
    draft.sent = Some(sent);
    let reason = format!("withheld behind tool_search ({which})");
    for &index in &withheld {
        draft
            .dropped
            .push((index, Status::Deferred, reason.clone()));
    }
    for &index in &loaders {
        draft.dropped.push((
            index,
            Status::Removed,
            "replaced by zero's own tool_search".to_owned(),
        ));
    }

    let place = match form {
        Form::Reminder => "listed in a <system-reminder> message",
        Form::Catalog => "listed in tool_search's description",
    };
    if loaded_now.is_empty() {
        draft.info(format!(
            "deferring: {} of {} tools eligible ({which}), defer.threshold={threshold}; all {} withheld behind tool_search, {place}",
            withheld.len(),
            candidates.len(),
            withheld.len()
        ));
    } else {
        let tail = match (form, release) {
            (Form::Catalog, ZeroRelease::V0_8_0) => {
                " (after tool_search, so a load never shifts the tools before it)"
            }
            _ => "",
        };
        draft.info(format!(
            "deferring: {eligible_count} of {} tools eligible ({which}), defer.threshold={threshold}; {} loaded earlier through tool_search and sent in full{tail}, {} withheld behind tool_search, {place}",
            candidates.len(),
            loaded_now.len(),
            withheld.len()
        ));
    }
    if builtins > 0 {
        draft.info(format!(
            "{} named as one of zero 0.8.0's own deferred tools (bash, web_fetch, web_search, browser_*, swarm_*, ...): zero defers those like MCP tools",
            if builtins == 1 { "1 tool is".to_owned() } else { format!("{builtins} tools are") }
        ));
    }
    if !loaders.is_empty() {
        draft.info("the capture's own tool_search is replaced by zero's loader".to_owned());
    }
    if withheld.iter().any(|&i| server_label(name_of(i)).is_some()) {
        let parser = match release {
            ZeroRelease::V0_8_0 => "`mcp` (the name's first segment)",
            ZeroRelease::C2ea36cf => "nothing",
        };
        draft.info(format!(
            "server labels are derived from tool names (mcp__server__tool, mcp--server--tool, mcp_server_tool): zero uses the server name an MCP tool reports, which a capture does not carry; zero's own name parser would label mcp__ names with {parser}"
        ));
    }
    if form == Form::Reminder && !withheld.is_empty() {
        let lines: Vec<String> = withheld
            .par_iter()
            .map(|&i| deferred_line(&tools[i]))
            .collect();
        draft.added_text = Some(reminder_text(&lines));
        if capture.shape() == Shape::McpToolsList {
            draft.info(
                "the reminder has no place in a tools/list body: it is reported as added text only"
                    .to_owned(),
            );
        }
    }
    draft
}

/// Put the reminder into a request body of the given shape (not called for MCP lists).
///
/// Messages: a text block appended to the last message when it is a user message (a string
/// content becomes a block array first), else a new user message. Chat: a new
/// `{"role":"user","content":…}`. Responses: a new user message item, with a string `input`
/// turned into a one-item list first. Gemini and Converse: a `{"text":…}` part appended to the
/// last content/message when it is the user's, else a new user one.
pub fn place_reminder(shape: Shape, body: &mut Value, reminder: &str) {
    let Some(object) = body.as_object_mut() else {
        return;
    };
    let text_block = || json!({"type": "text", "text": reminder});
    match shape {
        Shape::AnthropicMessages => {
            let Some(messages) = list_at(object, "messages") else {
                return;
            };
            if let Some(Value::Object(last)) = messages.last_mut()
                && last.get("role").and_then(Value::as_str) == Some("user")
            {
                // `take` in place: the message keeps its key order.
                let slot = last.entry("content").or_insert(Value::Null);
                let content = match slot.take() {
                    Value::String(old) => vec![json!({"type": "text", "text": old}), text_block()],
                    Value::Array(mut blocks) => {
                        blocks.push(text_block());
                        blocks
                    }
                    Value::Null => vec![text_block()],
                    // A lone block object: keep it as the first block.
                    other => vec![other, text_block()],
                };
                *slot = Value::Array(content);
                return;
            }
            messages.push(json!({"role": "user", "content": [text_block()]}));
        }
        Shape::OpenAiChat => {
            if let Some(messages) = list_at(object, "messages") {
                messages.push(json!({"role": "user", "content": reminder}));
            }
        }
        Shape::OpenAiResponses => {
            if let Some(Value::String(old)) = object.get("input") {
                let item = json!({"role": "user", "content": old});
                object.insert("input".to_owned(), Value::Array(vec![item]));
            }
            if let Some(input) = list_at(object, "input") {
                input.push(json!({
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": reminder}]
                }));
            }
        }
        Shape::GeminiGenerateContent => append_user_part(object, "contents", "parts", reminder),
        Shape::BedrockConverse => append_user_part(object, "messages", "content", reminder),
        Shape::McpToolsList => {}
    }
}

/// Append `{"text": reminder}` to the last turn's `parts_key` list when that turn is the user's,
/// else as a new user turn: Gemini's `contents[].parts` and Converse's `messages[].content`
/// differ only in their keys.
fn append_user_part(
    object: &mut serde_json::Map<String, Value>,
    turns_key: &str,
    parts_key: &str,
    reminder: &str,
) {
    let part = json!({"text": reminder});
    let Some(turns) = list_at(object, turns_key) else {
        return;
    };
    if let Some(Value::Object(last)) = turns.last_mut()
        && last.get("role").and_then(Value::as_str) == Some("user")
        && let Some(parts) = list_at(last, parts_key)
    {
        parts.push(part);
        return;
    }
    turns.push(json!({"role": "user", parts_key: [part]}));
}

/// The array under `key`, created when absent or null; any other value becomes its first item.
/// The key keeps its place in the object.
fn list_at<'a>(object: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Vec<Value>> {
    let slot = object.entry(key.to_owned()).or_insert(Value::Null);
    if !slot.is_array() {
        let items = match slot.take() {
            Value::Null => Vec::new(),
            other => vec![other],
        };
        *slot = Value::Array(items);
    }
    slot.as_array_mut()
}
