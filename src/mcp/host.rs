//! MCP tools as a host sends them to its model: the request body of the host's API shape, each
//! tool under the host's name for it, with only the fields the host sends. Pure. The rules and
//! their sources are in docs/MCP.md.

use serde_json::{Map, Value, json};

use super::config::Client;

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
}

/// A synthesized request: its body, and for each tool entry of it (in `tools` order; a Codex
/// namespace is one entry) the server it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Synthesized {
    /// The request body.
    pub body: Value,
    /// The server (its config name) of each entry of the body's tool list.
    pub servers: Vec<String>,
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
/// tools alone). `model`: the model the body names (`None`: the host's default).
pub fn synthesize(host: Host, servers: &[ServerTools], model: Option<&str>) -> Synthesized {
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
        }
    }

    #[test]
    fn names_and_fields_as_each_host_sends_them() {
        let servers = [server("my.fs", &["read file"]), server("b", &["read file"])];
        let claude = synthesize(Host::ClaudeCode, &servers, None).body;
        assert_eq!(
            claude["tools"][0],
            json!({"name": "mcp__my_fs__read_file", "description": "d", "input_schema": {"type": "object"}})
        );
        let gemini = synthesize(Host::GeminiCli, &servers, None).body;
        let names: Vec<&str> = gemini["tools"][0]["functionDeclarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["read_file", "b__read_file"]);
        let codex = synthesize(Host::Codex, &servers, None);
        assert_eq!(codex.body["tools"][0]["name"], "mcp__my_fs");
        assert_eq!(codex.body["tools"][0]["tools"][0]["name"], "read_file");
        assert_eq!(codex.servers, ["my.fs", "b"]);
        let raw = synthesize(Host::Raw, &servers, None).body;
        assert!(raw["tools"][0].get("annotations").is_some());
        let long = "x".repeat(80);
        assert_eq!(tool_name(Host::VsCode, "s", &long).len(), VSCODE_MAX_NAME);
        assert_eq!(
            tool_name(Host::GeminiCli, "s", &long).len(),
            GEMINI_MAX_NAME
        );
    }
}
