//! The MCP servers a user configured, read from each client's own config file: which file
//! holds them, how each client writes a server, and `${VAR}` expansion. Pure: reading a file
//! is the caller's; a lookup function stands for the environment. docs/MCP.md lists every
//! format and path with its source.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The client whose config a server came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Client {
    /// Claude Code: `.mcp.json`, `~/.claude.json` (user and per-project `mcpServers`).
    ClaudeCode,
    /// Claude Desktop: `claude_desktop_config.json`.
    ClaudeDesktop,
    /// Cursor: `~/.cursor/mcp.json`, `.cursor/mcp.json`.
    Cursor,
    /// VS Code: `.vscode/mcp.json` (`servers`, `inputs`), the user's `mcp.json`.
    VsCode,
    /// Windsurf: `~/.codeium/windsurf/mcp_config.json`.
    Windsurf,
    /// Codex: `~/.codex/config.toml`, `[mcp_servers.NAME]`.
    Codex,
    /// Gemini CLI: `~/.gemini/settings.json`, `.gemini/settings.json`.
    GeminiCli,
    /// Zed: `settings.json`, `context_servers`.
    Zed,
}

impl Client {
    /// Every client, in the order configs are looked for.
    pub const ALL: [Client; 8] = [
        Client::ClaudeCode,
        Client::ClaudeDesktop,
        Client::Cursor,
        Client::VsCode,
        Client::Windsurf,
        Client::Codex,
        Client::GeminiCli,
        Client::Zed,
    ];

    /// Whether it reaches a Streamable HTTP server through the legacy HTTP+SSE transport when
    /// the server refuses the `initialize` POST (HTTP 400, 404, 405), as the protocol's
    /// backwards-compatibility section describes: Cursor, VS Code and Windsurf do; Claude
    /// Code, Codex, Gemini CLI and Zed take the transport the config names.
    pub fn falls_back_to_sse(self) -> bool {
        matches!(self, Client::Cursor | Client::VsCode | Client::Windsurf)
    }

    /// Its id in output.
    pub fn id(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::VsCode => "vscode",
            Client::Windsurf => "windsurf",
            Client::Codex => "codex",
            Client::GeminiCli => "gemini-cli",
            Client::Zed => "zed",
        }
    }
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A process started by the client, spoken to over its standard input and output.
    Stdio(StdioServer),
    /// MCP Streamable HTTP at a URL.
    Http(RemoteServer),
    /// The legacy HTTP+SSE transport (an SSE stream, then POSTs to the endpoint it names).
    Sse(RemoteServer),
}

impl Transport {
    /// `stdio`, `http` or `sse`.
    pub fn id(&self) -> &'static str {
        match self {
            Transport::Stdio(_) => "stdio",
            Transport::Http(_) => "http",
            Transport::Sse(_) => "sse",
        }
    }
}

/// A stdio server as configured (values unexpanded: see [`expand`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StdioServer {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the environment, in the config's order.
    pub env: Vec<(String, String)>,
    /// The working folder; the current one when `None`.
    pub cwd: Option<String>,
}

/// A remote server as configured (values unexpanded).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RemoteServer {
    /// Its URL.
    pub url: String,
    /// Headers sent with every request, in the config's order.
    pub headers: Vec<(String, String)>,
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Its name in the config (the key).
    pub name: String,
    /// The client whose config holds it.
    pub client: Client,
    /// The config file.
    pub config: PathBuf,
    /// How it is reached.
    pub transport: Transport,
    /// The config turns it off (`disabled: true`, `enabled = false`): listed, not started.
    pub disabled: bool,
}

/// A config that could not be read: the file and the problem, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The client a config file belongs to, from its name and place (`None`: not one toolprism
/// knows by name; [`parse`] then tells it by content).
pub fn client_of_path(path: &Path) -> Option<Client> {
    let name = path.file_name()?.to_str()?;
    let parent = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|p| p.to_str())
        .unwrap_or_default();
    Some(match (name, parent) {
        (".mcp.json" | ".claude.json", _) => Client::ClaudeCode,
        ("claude_desktop_config.json", _) => Client::ClaudeDesktop,
        ("mcp.json", ".cursor") => Client::Cursor,
        ("mcp.json", ".vscode" | "User") => Client::VsCode,
        ("mcp_config.json", _) => Client::Windsurf,
        (_, _) if name.ends_with(".toml") => Client::Codex,
        ("settings.json", ".gemini") => Client::GeminiCli,
        ("settings.json", "zed") => Client::Zed,
        _ => return None,
    })
}

/// Read one config file's servers. `project`: the folder whose per-project servers of
/// `~/.claude.json` count (Claude Code keys them by absolute path). Servers keep the config's
/// order.
pub fn parse(
    path: &Path,
    text: &str,
    project: Option<&Path>,
) -> Result<Vec<ServerConfig>, ConfigError> {
    let shown = path.display();
    let named = |client: Option<Client>| client.or_else(|| client_of_path(path));
    if named(None) == Some(Client::Codex) {
        let table: toml::Table = toml::from_str(text)
            .map_err(|e| ConfigError(format!("{shown}: not TOML: {}", one_line(&e.to_string()))))?;
        return codex(path, &table);
    }
    let value: Value = serde_json::from_str(&strip_jsonc(text)).map_err(|e| {
        ConfigError(format!(
            "{shown}: not JSON: {} (line {})",
            one_line(&e.to_string()),
            e.line()
        ))
    })?;
    let Some(object) = value.as_object() else {
        return Err(ConfigError(format!("{shown}: not a JSON object")));
    };
    let client = named(None).unwrap_or_else(|| client_by_content(object));
    let mut servers = Vec::new();
    match client {
        Client::VsCode => {
            // `.vscode/mcp.json` holds `servers`; the user's settings.json holds `mcp.servers`.
            let holder = object
                .get("servers")
                .or_else(|| object.get("mcp").and_then(|m| m.get("servers")));
            read_servers(path, client, holder, "servers", &mut servers)?;
        }
        Client::Zed => {
            read_servers(
                path,
                client,
                object.get("context_servers"),
                "context_servers",
                &mut servers,
            )?;
        }
        _ => {
            read_servers(
                path,
                client,
                object.get("mcpServers"),
                "mcpServers",
                &mut servers,
            )?;
            if client == Client::ClaudeCode
                && let (Some(project), Some(projects)) = (project, object.get("projects"))
                && let Some(entry) = projects.get(project.to_string_lossy().as_ref())
            {
                read_servers(
                    path,
                    client,
                    entry.get("mcpServers"),
                    "projects.mcpServers",
                    &mut servers,
                )?;
            }
        }
    }
    Ok(servers)
}

/// A client told from a config's keys, for a file whose name says nothing.
fn client_by_content(object: &Map<String, Value>) -> Client {
    if object.contains_key("servers") {
        Client::VsCode
    } else if object.contains_key("context_servers") {
        Client::Zed
    } else {
        Client::ClaudeCode
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The servers of one `name → server` object.
fn read_servers(
    path: &Path,
    client: Client,
    holder: Option<&Value>,
    key: &str,
    out: &mut Vec<ServerConfig>,
) -> Result<(), ConfigError> {
    let shown = path.display();
    let Some(holder) = holder else {
        return Ok(());
    };
    let Some(entries) = holder.as_object() else {
        return Err(ConfigError(format!("{shown}: `{key}` is not an object")));
    };
    for (name, entry) in entries {
        let Some(entry) = entry.as_object() else {
            return Err(ConfigError(format!("{shown}: {key}.{name}: not an object")));
        };
        let transport = json_transport(client, entry)
            .map_err(|problem| ConfigError(format!("{shown}: {key}.{name}: {problem}")))?;
        let disabled = entry.get("disabled").and_then(Value::as_bool) == Some(true)
            || entry.get("enabled").and_then(Value::as_bool) == Some(false);
        out.push(ServerConfig {
            name: name.clone(),
            client,
            config: path.to_owned(),
            transport,
            disabled,
        });
    }
    Ok(())
}

/// One JSON server entry's transport, as its client writes it.
fn json_transport(client: Client, entry: &Map<String, Value>) -> Result<Transport, String> {
    let kind = entry.get("type").and_then(Value::as_str);
    // Gemini CLI: `httpUrl` is Streamable HTTP, `url` is SSE. Windsurf: `serverUrl`.
    let http_url = entry
        .get("httpUrl")
        .or_else(|| entry.get("serverUrl"))
        .and_then(Value::as_str);
    let url = entry.get("url").and_then(Value::as_str);
    let headers = || string_pairs(entry.get("headers"), "headers");
    if let Some(url) = http_url {
        return Ok(Transport::Http(RemoteServer {
            url: url.to_owned(),
            headers: headers()?,
        }));
    }
    if let Some(url) = url {
        let remote = RemoteServer {
            url: url.to_owned(),
            headers: headers()?,
        };
        // Gemini CLI reads a bare `url` as SSE; others as Streamable HTTP unless `type` says
        // `sse`.
        let sse = kind == Some("sse") || (kind.is_none() && client == Client::GeminiCli);
        return Ok(if sse {
            Transport::Sse(remote)
        } else {
            Transport::Http(remote)
        });
    }
    // Zed's older form nests the command: `"command": {"path", "args", "env"}`.
    let (command_holder, command) = match entry.get("command") {
        Some(Value::String(command)) => (entry, command.clone()),
        Some(Value::Object(nested)) => (
            nested,
            nested
                .get("path")
                .and_then(Value::as_str)
                .ok_or("`command.path` is missing")?
                .to_owned(),
        ),
        Some(_) => return Err("`command` is not a string".into()),
        None => return Err("neither `command` nor `url`".into()),
    };
    let args = match command_holder.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                _ => Err("`args` holds a value that is not a string".to_owned()),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`args` is not an array".into()),
    };
    Ok(Transport::Stdio(StdioServer {
        command,
        args,
        env: string_pairs(command_holder.get("env"), "env")?,
        cwd: entry.get("cwd").and_then(Value::as_str).map(str::to_owned),
    }))
}

fn string_pairs(value: Option<&Value>, key: &str) -> Result<Vec<(String, String)>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                Value::Number(_) | Value::Bool(_) => Ok((k.clone(), v.to_string())),
                _ => Err(format!("`{key}.{k}` is not a string")),
            })
            .collect(),
        Some(_) => Err(format!("`{key}` is not an object")),
    }
}

/// Codex's `[mcp_servers.NAME]` tables.
fn codex(path: &Path, table: &toml::Table) -> Result<Vec<ServerConfig>, ConfigError> {
    let shown = path.display();
    let Some(servers) = table.get("mcp_servers") else {
        return Ok(Vec::new());
    };
    let Some(servers) = servers.as_table() else {
        return Err(ConfigError(format!(
            "{shown}: `mcp_servers` is not a table"
        )));
    };
    let mut out = Vec::new();
    for (name, entry) in servers {
        let fail = |problem: &str| ConfigError(format!("{shown}: mcp_servers.{name}: {problem}"));
        let Some(entry) = entry.as_table() else {
            return Err(fail("not a table"));
        };
        let text = |key: &str| entry.get(key).and_then(toml::Value::as_str);
        let pairs = |key: &str| -> Result<Vec<(String, String)>, ConfigError> {
            match entry.get(key) {
                None => Ok(Vec::new()),
                Some(toml::Value::Table(t)) => t
                    .iter()
                    .map(|(k, v)| {
                        v.as_str()
                            .map(|s| (k.clone(), s.to_owned()))
                            .ok_or_else(|| fail(&format!("`{key}.{k}` is not a string")))
                    })
                    .collect(),
                Some(_) => Err(fail(&format!("`{key}` is not a table"))),
            }
        };
        let transport = if let Some(url) = text("url") {
            let mut headers = pairs("http_headers")?;
            // Headers whose values Codex reads from the environment: `${VAR}` here.
            for (header, var) in pairs("env_http_headers")? {
                headers.push((header, format!("${{{var}}}")));
            }
            if let Some(var) = text("bearer_token_env_var") {
                headers.push(("Authorization".into(), format!("Bearer ${{{var}}}")));
            }
            Transport::Http(RemoteServer {
                url: url.to_owned(),
                headers,
            })
        } else if let Some(command) = text("command") {
            let args = match entry.get("args") {
                None => Vec::new(),
                Some(toml::Value::Array(items)) => items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<_>>()
                    .ok_or_else(|| fail("`args` holds a value that is not a string"))?,
                Some(_) => return Err(fail("`args` is not an array")),
            };
            Transport::Stdio(StdioServer {
                command: command.to_owned(),
                args,
                env: pairs("env")?,
                cwd: text("cwd").map(str::to_owned),
            })
        } else {
            return Err(fail("neither `command` nor `url`"));
        };
        out.push(ServerConfig {
            name: name.clone(),
            client: Client::Codex,
            config: path.to_owned(),
            transport,
            disabled: entry.get("enabled").and_then(toml::Value::as_bool) == Some(false),
        });
    }
    Ok(out)
}

/// JSON with comments and trailing commas (VS Code's and Zed's JSONC) as plain JSON: comments
/// become spaces (line numbers stay), a comma before `}` or `]` goes. Strings are kept as they
/// are.
pub fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.extend_from_slice(&bytes[start..i]);
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    if bytes[i] == b'\n' {
                        out.push(b'\n');
                    }
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
            }
            b',' => {
                let next = bytes[i + 1..]
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    .copied();
                if !matches!(next, Some(b'}' | b']')) {
                    out.push(b',');
                }
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    // Only ASCII bytes were removed, and whole strings copied: still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Expand `${VAR}`, `${VAR:-default}`, `${env:VAR}` (Cursor, VS Code) and `$VAR`-free text
/// from `lookup`. `${workspaceFolder}` is `workspace`. Anything else (`${input:id}`, which VS
/// Code prompts for) is an error naming it; so is a variable that is not set and has no
/// default.
pub fn expand(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    workspace: &Path,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let value = if inner == "workspaceFolder" {
            Some(workspace.to_string_lossy().into_owned())
        } else if let Some(name) = inner.strip_prefix("env:") {
            lookup(name)
        } else if inner.starts_with("input:") || inner.contains(':') && !inner.contains(":-") {
            return Err(format!(
                "needs `${{{inner}}}`, which toolprism cannot ask for"
            ));
        } else if let Some((name, default)) = inner.split_once(":-") {
            Some(lookup(name).unwrap_or_else(|| default.to_owned()))
        } else {
            lookup(inner)
        };
        match value {
            Some(value) => out.push_str(&value),
            None => return Err(format!("`{inner}` is not set in the environment")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// What a secret is shown as in `mcp`'s output.
pub const MASK: &str = "***";

/// A URL as `mcp` shows it: user name and password, every query value and the fragment
/// replaced by [`MASK`] (a key in a query, a value expanded from `${VAR}`); scheme, host, port,
/// path and the query's names kept.
pub fn shown_url(url: &str) -> String {
    let (head, fragment) = match url.split_once('#') {
        Some((head, _)) => (head, Some(MASK)),
        None => (url, None),
    };
    let (base, query) = match head.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (head, None),
    };
    let start = base.find("://").map_or(0, |i| i + 3);
    let end = base[start..].find('/').map_or(base.len(), |i| start + i);
    let mut out = match base[start..end].rfind('@') {
        Some(at) => format!("{}{MASK}@{}", &base[..start], &base[start + at + 1..]),
        None => base.to_owned(),
    };
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) => format!("{name}={MASK}"),
                None if pair.is_empty() => String::new(),
                None => MASK.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// The parts of a URL that [`shown_url`] hides: its user information and each query value.
pub fn url_secrets(url: &str) -> Vec<String> {
    let head = url.split('#').next().unwrap_or_default();
    let mut secrets = Vec::new();
    let (base, query) = head.split_once('?').unwrap_or((head, ""));
    let start = base.find("://").map_or(0, |i| i + 3);
    let end = base[start..].find('/').map_or(base.len(), |i| start + i);
    if let Some(at) = base[start..end].rfind('@') {
        let user = &base[start..start + at];
        secrets.push(user.to_owned());
        secrets.extend(user.split(':').map(str::to_owned));
    }
    for pair in query.split('&') {
        secrets.push(pair.split_once('=').map_or(pair, |(_, v)| v).to_owned());
    }
    secrets
}

/// Shortest value [`mask`] hides: shorter ones are words, not keys, and hiding them would
/// garble the text around them.
const MIN_SECRET: usize = 4;

/// `text` with each of `secrets` (values toolprism passed to a server: its `env`, its
/// headers, its URL's [`url_secrets`]) replaced by [`MASK`], longest first. A header value
/// such as `Bearer KEY` hides its words of eight characters or more too.
pub fn mask(text: &str, secrets: &[String]) -> String {
    let mut all: Vec<&str> = Vec::new();
    for secret in secrets {
        all.push(secret);
        all.extend(secret.split_whitespace().filter(|word| word.len() >= 8));
    }
    all.retain(|s| s.len() >= MIN_SECRET);
    all.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    all.dedup();
    let mut out = text.to_owned();
    for secret in all {
        if out.contains(secret) {
            out = out.replace(secret, MASK);
        }
    }
    out
}

/// The project folder a config belongs to, when it is a project's own (`.mcp.json` in it;
/// `.cursor/mcp.json`, `.vscode/mcp.json`, `.gemini/settings.json`, `.zed/settings.json` under
/// it), not one in `home` (`~/.cursor/mcp.json` is the user's): the folder the client runs
/// that project's servers in, and its `${workspaceFolder}`.
pub fn project_folder(config: &Path, home: &Path) -> Option<PathBuf> {
    let name = config.file_name()?.to_str()?;
    let parent = config.parent()?;
    let folder = match (parent.file_name().and_then(|n| n.to_str()), name) {
        (_, ".mcp.json") => parent,
        (Some(".cursor" | ".vscode"), "mcp.json") | (Some(".gemini" | ".zed"), "settings.json") => {
            parent.parent()?
        }
        _ => return None,
    };
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let folder = std::path::absolute(folder).ok()?;
    (folder != home || name == ".mcp.json").then_some(folder)
}

/// The config files toolprism looks for without one named, for the project folder `project`
/// and the home folder `home` (`config_home`: `$XDG_CONFIG_HOME`, else `~/.config`), with
/// the client each belongs to. Only files that exist are read; the order is [`Client::ALL`]'s.
pub fn default_paths(project: &Path, home: &Path, config_home: &Path) -> Vec<PathBuf> {
    vec![
        project.join(".mcp.json"),
        home.join(".claude.json"),
        home.join("Library/Application Support/Claude/claude_desktop_config.json"),
        config_home.join("Claude/claude_desktop_config.json"),
        home.join(".cursor/mcp.json"),
        project.join(".cursor/mcp.json"),
        project.join(".vscode/mcp.json"),
        config_home.join("Code/User/mcp.json"),
        home.join("Library/Application Support/Code/User/mcp.json"),
        home.join(".codeium/windsurf/mcp_config.json"),
        home.join(".codex/config.toml"),
        home.join(".gemini/settings.json"),
        project.join(".gemini/settings.json"),
        config_home.join("zed/settings.json"),
        project.join(".zed/settings.json"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "s3cret".to_owned())
    }

    #[test]
    fn urls_are_shown_without_credentials_or_query_values() {
        assert_eq!(
            shown_url("https://user:pw@h.example:8443/mcp?key=sk-1&flag&a=b#frag"),
            "https://***@h.example:8443/mcp?key=***&***&a=***#***"
        );
        assert_eq!(shown_url("http://h/p"), "http://h/p");
        assert_eq!(shown_url("http://h/a@b"), "http://h/a@b");
        let secrets = url_secrets("https://u:pw12@h/m?token=abcd&x=y");
        assert!(secrets.contains(&"pw12".to_owned()) && secrets.contains(&"abcd".to_owned()));
    }

    #[test]
    fn passed_values_are_masked_in_server_text() {
        let secrets = vec![
            "sk-live-123456".to_owned(),
            "Bearer tok-abcdefgh".to_owned(),
            "1".to_owned(),
        ];
        assert_eq!(
            mask(
                "auth failed with key sk-live-123456; token tok-abcdefgh; 1 try",
                &secrets
            ),
            "auth failed with key ***; token ***; 1 try"
        );
    }

    #[test]
    fn a_project_config_runs_in_its_project_folder() {
        let home = Path::new("/home/u");
        assert_eq!(
            project_folder(Path::new("/p/.mcp.json"), home),
            Some(PathBuf::from("/p"))
        );
        assert_eq!(
            project_folder(Path::new("/p/.vscode/mcp.json"), home),
            Some(PathBuf::from("/p"))
        );
        assert_eq!(
            project_folder(Path::new("/home/u/.cursor/mcp.json"), home),
            None
        );
        assert_eq!(
            project_folder(Path::new("/home/u/.claude.json"), home),
            None
        );
        assert_eq!(project_folder(Path::new("/x/servers.json"), home), None);
    }

    #[test]
    fn expands_the_forms_clients_write() {
        let ws = Path::new("/w");
        assert_eq!(
            expand(
                "a ${TOKEN} ${env:TOKEN} ${X:-d} ${workspaceFolder}",
                &env,
                ws
            )
            .unwrap(),
            "a s3cret s3cret d /w"
        );
        assert!(
            expand("${input:key}", &env, ws)
                .unwrap_err()
                .contains("input:key")
        );
        assert!(
            expand("${MISSING}", &env, ws)
                .unwrap_err()
                .contains("MISSING")
        );
    }

    #[test]
    fn jsonc_loses_comments_and_trailing_commas_only() {
        let text = "{\n// c\n\"a\": \"x//y\", /* b\n */ \"b\": [1,2,],\n}";
        let value: Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(value, serde_json::json!({"a": "x//y", "b": [1, 2]}));
    }

    #[test]
    fn zed_nested_command_and_gemini_urls() {
        let zed = r#"{"context_servers": {"z": {"command": {"path": "node", "args": ["s.js"], "env": {"A": "1"}}}}}"#;
        let servers = parse(Path::new("/h/.config/zed/settings.json"), zed, None).unwrap();
        assert_eq!(servers[0].client, Client::Zed);
        assert!(
            matches!(&servers[0].transport, Transport::Stdio(s) if s.command == "node" && s.args == ["s.js"])
        );
        let gemini =
            r#"{"mcpServers": {"a": {"url": "http://x/sse"}, "b": {"httpUrl": "http://x/mcp"}}}"#;
        let servers = parse(Path::new("/p/.gemini/settings.json"), gemini, None).unwrap();
        assert_eq!(servers[0].transport.id(), "sse");
        assert_eq!(servers[1].transport.id(), "http");
    }
}
