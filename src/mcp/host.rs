//! MCP tools as a host sends them to its model: the request body of the host's API shape, each
//! tool under the host's name for it, with only the fields the host sends. Pure. The rules and
//! their sources are in docs/MCP.md.

use serde_json::{Map, Value, json};

use super::config::Client;
use crate::settings::{Settings, ToolSearch};

/// The host whose request is synthesized (`--host`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Host {
    /// Anthropic Messages, `mcp__SERVER__TOOL`.
    ClaudeCode,
    /// OpenAI Responses, one `mcp__SERVER` namespace per server.
    Codex,
    /// Chat Completions, `mcp_SERVER_TOOL`.
    Cursor,
    /// Chat Completions, `mcp_SERVER_TOOL` within 64 characters.
    VsCode,
    /// Gemini `generateContent`, the tool's own name (`SERVER__TOOL` on a clash).
    GeminiCli,
    /// The MCP `tools/list` result itself, every field as the servers sent it.
    Raw,
}

impl Host {
    /// Every host, in `--host`'s order.
    pub const ALL: [Host; 6] = [
        Host::ClaudeCode,
        Host::Codex,
        Host::Cursor,
        Host::VsCode,
        Host::GeminiCli,
        Host::Raw,
    ];

    /// Its `--host` id.
    pub fn id(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
            Host::Cursor => "cursor",
            Host::VsCode => "vscode",
            Host::GeminiCli => "gemini-cli",
            Host::Raw => "raw",
        }
    }

    /// The host named by `id`.
    pub fn from_id(id: &str) -> Option<Host> {
        Host::ALL.into_iter().find(|host| host.id() == id)
    }

    /// The host a client's servers are sent by by default. Claude Desktop talks to the
    /// Messages API as Claude Code does; Windsurf and Zed have no synthesis of their own, and
    /// their servers go as Cursor's (Chat Completions) and Claude Code's (Zed's default
    /// provider is Anthropic) do: docs/MCP.md says so.
    pub fn of_client(client: Client) -> Host {
        match client {
            Client::ClaudeCode | Client::ClaudeDesktop | Client::Zed => Host::ClaudeCode,
            Client::Cursor | Client::Windsurf => Host::Cursor,
            Client::VsCode => Host::VsCode,
            Client::Codex => Host::Codex,
            Client::GeminiCli => Host::GeminiCli,
        }
    }

    /// The model the synthesized request names unless `--model` says another.
    pub fn default_model(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-sonnet-4-5",
            Host::Codex => "gpt-5-codex",
            Host::Cursor | Host::VsCode => "gpt-4.1",
            Host::GeminiCli => "gemini-2.5-pro",
            Host::Raw => "",
        }
    }
}

/// One server's tools as its `tools/list` pages returned them, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerTools {
    /// The server's name in its config.
    pub name: String,
    /// Every tool object, every page in order.
    pub tools: Vec<Value>,
    /// Claude Code keeps its tools loaded (the config's `alwaysLoad: true`).
    pub always_load: bool,
}

/// A synthesized request: its body, and for each tool entry of it (in `tools` order; a Codex
/// namespace is one entry) the server it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Synthesized {
    /// The request body.
    pub body: Value,
    /// The server (its config name) of each entry of the body's tool list (the host's own
    /// tools: `""`).
    pub servers: Vec<String>,
    /// How the host decided which tools to defer (Claude Code; `None` for the others).
    pub deferral: Option<Deferral>,
}

/// The Claude Code release whose request `--host claude-code` writes (docs/MCP.md: its
/// changelog up to 2.1.240, and a request it sent, recorded on 2026-08-22).
pub const CLAUDE_CODE_RELEASE: &str = "2.1.240";

/// The beta header Claude Code sends with deferred tools.
pub const TOOL_SEARCH_BETA: &str = "advanced-tool-use-2025-11-20";

/// The context window `auto:N` takes its share of, in tokens.
pub const CONTEXT_WINDOW: usize = 200_000;

/// Claude Code's client-side search tool: the model calls it, and Claude Code answers with
/// `tool_reference` blocks that load the tools found. Its name is Claude Code's; the
/// description and schema are toolprism's (Claude Code's own text is not published).
pub const TOOL_SEARCH_NAME: &str = "ToolSearch";

/// What Claude Code deferred, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deferral {
    /// The MCP tools sent with `defer_loading: true`.
    pub deferred: usize,
    /// Those loaded up front.
    pub loaded: usize,
    /// The request's headers beyond the usual (the tool search beta when some tool is
    /// deferred).
    pub headers: Vec<(&'static str, &'static str)>,
    /// Why, in a few words.
    pub why: String,
}

/// Whether Claude Code defers its MCP tools, and why (`mcp_tokens`: the MCP tools' tokens,
/// loaded): `ENABLE_TOOL_SEARCH` first, then the base URL.
pub fn claude_code_defers(settings: &Settings, mcp_tokens: usize) -> (bool, String) {
    let first_party = settings
        .claude_code_base_url
        .as_deref()
        .is_none_or(is_anthropic);
    match settings.claude_code_tool_search {
        ToolSearch::Off => (false, "ENABLE_TOOL_SEARCH=false: every tool loaded".into()),
        ToolSearch::On => (
            true,
            "ENABLE_TOOL_SEARCH=true: every MCP tool deferred".into(),
        ),
        ToolSearch::Auto(n) => {
            let share = CONTEXT_WINDOW * usize::from(n) / 100;
            if mcp_tokens < share {
                (
                    false,
                    format!(
                        "ENABLE_TOOL_SEARCH={}: the MCP tools' {} tokens are under {n}% of a {}-token context, so loaded",
                        settings.claude_code_tool_search.text(),
                        crate::text::thousands(mcp_tokens),
                        crate::text::thousands(CONTEXT_WINDOW)
                    ),
                )
            } else {
                (
                    true,
                    format!(
                        "ENABLE_TOOL_SEARCH={}: the MCP tools' {} tokens reach {n}% of a {}-token context, so deferred",
                        settings.claude_code_tool_search.text(),
                        crate::text::thousands(mcp_tokens),
                        crate::text::thousands(CONTEXT_WINDOW)
                    ),
                )
            }
        }
        ToolSearch::Unset if !first_party => (
            false,
            "ENABLE_TOOL_SEARCH unset and a base URL that is not Anthropic's: every tool loaded"
                .into(),
        ),
        ToolSearch::Unset => (
            true,
            "ENABLE_TOOL_SEARCH unset: every MCP tool deferred (Claude Code's default)".into(),
        ),
    }
}

/// A URL on Anthropic's first-party API.
fn is_anthropic(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', ':', '?']).next().unwrap_or_default();
    host.eq_ignore_ascii_case("api.anthropic.com")
}

/// Claude Code's `ToolSearch` entry.
fn tool_search_entry() -> Value {
    json!({
        "name": TOOL_SEARCH_NAME,
        "description": "Search the deferred tools by keyword or name and load the best matches, answered with tool_reference blocks; a deferred tool can be called once loaded.",
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords, or select:NAME to load a tool by name."},
                "max_results": {"type": "number", "description": "How many tools to load (5 by default)."}
            },
            "required": ["query"]
        }
    })
}

/// A tool its server marks to stay loaded (`_meta` `"anthropic/alwaysLoad": true`).
fn always_loaded(tool: &Value) -> bool {
    tool.pointer("/_meta/anthropic~1alwaysLoad")
        .and_then(Value::as_bool)
        == Some(true)
}

/// `[^a-zA-Z0-9_-]` as `_`: the providers' name pattern, which Claude Code, Codex and VS Code
/// all write names into.
pub fn normalize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Longest name VS Code sends (its `McpToolName.MaxLength`).
pub const VSCODE_MAX_NAME: usize = 64;

/// Longest name Gemini CLI sends before cutting the middle out.
pub const GEMINI_MAX_NAME: usize = 63;

/// The name `host` gives tool `tool` of server `server` (Gemini CLI's clash rule is applied
/// by [`synthesize`], which sees every server).
pub fn tool_name(host: Host, server: &str, tool: &str) -> String {
    match host {
        Host::ClaudeCode => format!("mcp__{}__{}", normalize(server), normalize(tool)),
        Host::Codex => normalize(tool),
        Host::Cursor => format!("mcp_{}_{}", normalize(server), normalize(tool)),
        Host::VsCode => {
            let name = format!("mcp_{}_{}", normalize(server), normalize(tool));
            name.chars().take(VSCODE_MAX_NAME).collect()
        }
        Host::GeminiCli => gemini_name(tool),
        Host::Raw => tool.to_owned(),
    }
}

/// Gemini CLI's valid name: `[^a-zA-Z0-9_.-]` as `_`, and a name over 63 characters keeps
/// its first 28 and last 32 with `___` between.
fn gemini_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.chars().count() > GEMINI_MAX_NAME {
        let chars: Vec<char> = clean.chars().collect();
        let head: String = chars[..28].iter().collect();
        let tail: String = chars[chars.len() - 32..].iter().collect();
        format!("{head}___{tail}")
    } else {
        clean
    }
}

fn text_of<'a>(tool: &'a Value, key: &str) -> Option<&'a str> {
    tool.get(key).and_then(Value::as_str)
}

/// A tool's input schema as sent: the server's `inputSchema`, or an empty object schema.
fn schema_of(tool: &Value) -> Value {
    tool.get("inputSchema")
        .filter(|s| s.is_object())
        .cloned()
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}))
}

/// One tool's entry as `host` sends it, under `name`.
fn entry(host: Host, name: String, tool: &Value) -> Value {
    let description = text_of(tool, "description");
    let mut out = Map::new();
    match host {
        Host::ClaudeCode => {
            out.insert("name".into(), name.into());
            out.insert("description".into(), description.unwrap_or_default().into());
            out.insert("input_schema".into(), schema_of(tool));
        }
        Host::Codex => {
            out.insert("type".into(), "function".into());
            out.insert("name".into(), name.into());
            if let Some(description) = description {
                out.insert("description".into(), description.into());
            }
            out.insert("strict".into(), false.into());
            out.insert("parameters".into(), schema_of(tool));
        }
        Host::Cursor | Host::VsCode => {
            let mut function = Map::new();
            function.insert("name".into(), name.into());
            if let Some(description) = description {
                function.insert("description".into(), description.into());
            }
            function.insert("parameters".into(), schema_of(tool));
            out.insert("type".into(), "function".into());
            out.insert("function".into(), Value::Object(function));
        }
        Host::GeminiCli => {
            out.insert("name".into(), name.into());
            if let Some(description) = description {
                out.insert("description".into(), description.into());
            }
            out.insert("parametersJsonSchema".into(), schema_of(tool));
        }
        Host::Raw => return tool.clone(),
    }
    Value::Object(out)
}

/// The request `host` sends with these servers' tools (and no tools of its own: toolprism
/// cannot know a host's built-in tools for the user's version, so the request holds the MCP
/// tools alone, with Claude Code's `ToolSearch` where it defers them). `model`: the model the
/// body names (`None`: the host's default); `count`: the tokens of some tool entries, for
/// `ENABLE_TOOL_SEARCH=auto`.
pub fn synthesize(
    host: Host,
    servers: &[ServerTools],
    model: Option<&str>,
    settings: &Settings,
    count: &dyn Fn(&[Value]) -> usize,
) -> Synthesized {
    let model = model.unwrap_or(host.default_model());
    let mut tools = Vec::new();
    let mut owners = Vec::new();
    match host {
        Host::Codex => {
            for server in servers.iter().filter(|s| !s.tools.is_empty()) {
                let namespace = format!("mcp__{}", normalize(&server.name));
                let nested: Vec<Value> = server
                    .tools
                    .iter()
                    .map(|tool| {
                        let name = tool_name(
                            host,
                            &server.name,
                            text_of(tool, "name").unwrap_or_default(),
                        );
                        entry(host, name, tool)
                    })
                    .collect();
                tools.push(json!({
                    "type": "namespace",
                    "name": namespace,
                    "description": crate::strategies::codex::default_namespace_description(&namespace),
                    "tools": nested,
                }));
                owners.push(server.name.clone());
            }
        }
        _ => {
            let mut taken = std::collections::HashSet::new();
            for server in servers {
                for tool in &server.tools {
                    let own = text_of(tool, "name").unwrap_or_default();
                    let mut name = tool_name(host, &server.name, own);
                    // Gemini CLI: the first server keeps a clashing name, later ones are
                    // registered as `SERVER__TOOL`.
                    if host == Host::GeminiCli && taken.contains(&name) {
                        name = gemini_name(&format!("{}__{own}", server.name));
                    }
                    taken.insert(name.clone());
                    tools.push(entry(host, name, tool));
                    owners.push(server.name.clone());
                }
            }
        }
    }
    let deferral = (host == Host::ClaudeCode)
        .then(|| defer_claude_code(servers, &mut tools, &mut owners, settings, count));
    let body = match host {
        Host::ClaudeCode => json!({
            "model": model,
            "max_tokens": 32000,
            "messages": [{"role": "user", "content": "."}],
            "tools": tools,
        }),
        Host::Codex => json!({
            "model": model,
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "."}]}],
            "tools": tools,
        }),
        Host::Cursor | Host::VsCode => json!({
            "model": model,
            "messages": [{"role": "user", "content": "."}],
            "tools": tools,
        }),
        Host::GeminiCli => json!({
            "contents": [{"role": "user", "parts": [{"text": "."}]}],
            "tools": [{"functionDeclarations": tools}],
        }),
        Host::Raw => json!({"tools": tools}),
    };
    Synthesized {
        body,
        servers: owners,
        deferral,
    }
}

/// Claude Code's tool search: each MCP tool `defer_loading: true` unless its server or the
/// tool itself is marked to load always, and `ToolSearch` first (Claude Code's own tools come
/// before the MCP tools), where [`claude_code_defers`] says so.
fn defer_claude_code(
    servers: &[ServerTools],
    tools: &mut Vec<Value>,
    owners: &mut Vec<String>,
    settings: &Settings,
    count: &dyn Fn(&[Value]) -> usize,
) -> Deferral {
    let (defers, why) = claude_code_defers(settings, count(tools));
    let marks: Vec<bool> = servers
        .iter()
        .flat_map(|s| s.tools.iter().map(|t| s.always_load || always_loaded(t)))
        .collect();
    let mut deferred = 0;
    if defers {
        for (entry, always) in tools.iter_mut().zip(&marks) {
            if !always && let Some(map) = entry.as_object_mut() {
                map.insert("defer_loading".into(), true.into());
                deferred += 1;
            }
        }
    }
    if deferred > 0 {
        tools.insert(0, tool_search_entry());
        owners.insert(0, String::new());
    }
    Deferral {
        deferred,
        loaded: tools.len() - deferred - usize::from(deferred > 0),
        headers: if deferred > 0 {
            vec![("anthropic-beta", TOOL_SEARCH_BETA)]
        } else {
            Vec::new()
        },
        why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, tools: &[&str]) -> ServerTools {
        ServerTools {
            name: name.into(),
            tools: tools
                .iter()
                .map(|t| json!({"name": t, "title": "T", "description": "d", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}, "outputSchema": {"type": "object"}}))
                .collect(),
            always_load: false,
        }
    }

    fn loaded() -> Settings {
        let mut settings = Settings::default();
        settings.apply("claude-code.tool_search=false").unwrap();
        settings
    }

    fn none(_: &[Value]) -> usize {
        0
    }

    #[test]
    fn claude_code_defers_its_mcp_tools_as_it_does_today() {
        let mut servers = vec![server("fs", &["read", "write"]), server("pinned", &["p"])];
        servers[1].always_load = true;
        servers[0].tools[1]["_meta"] = json!({"anthropic/alwaysLoad": true});
        let by = |set: &str, tokens: usize| {
            let mut settings = Settings::default();
            if !set.is_empty() {
                settings.apply(set).unwrap();
            }
            synthesize(Host::ClaudeCode, &servers, None, &settings, &|_| tokens)
        };
        // Unset: deferred, but the server and the tool marked to load always.
        let unset = by("", 0);
        let tools = unset.body["tools"].as_array().unwrap();
        assert_eq!(tools[0]["name"], TOOL_SEARCH_NAME);
        assert_eq!(tools[1]["defer_loading"], true);
        assert_eq!(tools[2].get("defer_loading"), None);
        assert_eq!(tools[3].get("defer_loading"), None);
        let deferral = unset.deferral.unwrap();
        assert_eq!((deferral.deferred, deferral.loaded), (1, 2));
        assert_eq!(deferral.headers, [("anthropic-beta", TOOL_SEARCH_BETA)]);
        assert_eq!(unset.servers, ["", "fs", "fs", "pinned"]);
        // false, or a proxy: all loaded, no ToolSearch, no header.
        for set in [
            "claude-code.tool_search=false",
            "claude-code.base_url=http://127.0.0.1:8080",
        ] {
            let loaded = by(set, 0);
            assert_eq!(loaded.body["tools"].as_array().unwrap().len(), 3, "{set}");
            assert!(loaded.deferral.unwrap().headers.is_empty());
        }
        // true overrides the proxy.
        let mut settings = Settings::default();
        settings
            .apply("claude-code.base_url=http://127.0.0.1:8080")
            .unwrap();
        settings.apply("claude-code.tool_search=true").unwrap();
        let on = synthesize(Host::ClaudeCode, &servers, None, &settings, &|_| 0);
        assert_eq!(on.deferral.unwrap().deferred, 1);
        // auto: under 10% of 200,000 tokens loads all; auto:5 defers at 10,000.
        assert_eq!(
            by("claude-code.tool_search=auto", 19_999)
                .deferral
                .unwrap()
                .deferred,
            0
        );
        assert_eq!(
            by("claude-code.tool_search=auto", 20_000)
                .deferral
                .unwrap()
                .deferred,
            1
        );
        assert_eq!(
            by("claude-code.tool_search=auto:5", 10_000)
                .deferral
                .unwrap()
                .deferred,
            1
        );
        assert!(
            Settings::default()
                .apply("claude-code.tool_search=auto:101")
                .is_err()
        );
        assert!(is_anthropic("https://api.anthropic.com/"));
        assert!(!is_anthropic("https://api.anthropic.com.evil.example"));
    }

    #[test]
    fn names_and_fields_as_each_host_sends_them() {
        let servers = [server("my.fs", &["read file"]), server("b", &["read file"])];
        let claude = synthesize(Host::ClaudeCode, &servers, None, &loaded(), &none).body;
        assert_eq!(
            claude["tools"][0],
            json!({"name": "mcp__my_fs__read_file", "description": "d", "input_schema": {"type": "object"}})
        );
        let gemini = synthesize(Host::GeminiCli, &servers, None, &loaded(), &none).body;
        let names: Vec<&str> = gemini["tools"][0]["functionDeclarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["read_file", "b__read_file"]);
        let codex = synthesize(Host::Codex, &servers, None, &loaded(), &none);
        assert_eq!(codex.body["tools"][0]["name"], "mcp__my_fs");
        assert_eq!(codex.body["tools"][0]["tools"][0]["name"], "read_file");
        assert_eq!(codex.servers, ["my.fs", "b"]);
        let raw = synthesize(Host::Raw, &servers, None, &loaded(), &none).body;
        assert!(raw["tools"][0].get("annotations").is_some());
        let long = "x".repeat(80);
        assert_eq!(tool_name(Host::VsCode, "s", &long).len(), VSCODE_MAX_NAME);
        assert_eq!(
            tool_name(Host::GeminiCli, "s", &long).len(),
            GEMINI_MAX_NAME
        );
    }
}
