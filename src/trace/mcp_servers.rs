//! MCP servers met inside a trace (a recording of an agent that reaches MCP servers over
//! HTTP): each named by its `initialize` answer's `serverInfo` (name and version), with the
//! tools its `tools/list` answers listed, an exchange matched to its server by URL (one
//! Streamable HTTP endpoint a server). Neither is a model call; what they tell names the
//! server's list among the ignored records and labels a model request's tools by the server
//! that listed them (`report --by-server`), where a tool's name alone would be guessed from.
//!
//! Names come from the servers: kept cut to [`NAME_CHARS`], and sanitized by [`McpServer::label`]
//! before any terminal.

use serde::Serialize;
use serde_json::Value;

use super::{Ignored, RecordBody, TraceRecord};

/// The longest name or version kept (in characters): a server names itself.
pub const NAME_CHARS: usize = 100;
/// Servers kept per trace, and tool names kept per server: a trace is untrusted input.
const SERVERS_KEPT: usize = 1000;
const TOOLS_KEPT: usize = 10_000;

/// One MCP server of a trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpServer {
    /// The URL its exchanges were sent to (`None`: the trace does not say).
    pub url: Option<String>,
    /// `serverInfo.name` (`None`: no `initialize` answer seen for it).
    pub name: Option<String>,
    /// `serverInfo.version`.
    pub version: Option<String>,
    /// The tools its `tools/list` answers listed, by name, in order.
    pub tools: Vec<String>,
}

impl McpServer {
    /// `name version`, safe for a terminal (`None`: no name).
    pub fn label(&self) -> Option<String> {
        let name = crate::text::safe(self.name.as_deref()?);
        Some(match &self.version {
            Some(version) => format!("{name} {}", crate::text::safe(version)),
            None => name,
        })
    }

    /// Whether it listed a tool sent under `name`: the same name, or the name a host gave it
    /// under its own prefix (`mcp__server__tool`, `mcp_server_tool`: the part after the
    /// server segment).
    pub fn lists(&self, name: &str) -> bool {
        let bare = crate::tool::server_label(name).and_then(|server| {
            ["__", "--", "_"]
                .iter()
                .find_map(|sep| name.strip_prefix(&format!("mcp{sep}{server}{sep}")))
        });
        self.tools
            .iter()
            .any(|tool| tool == name || Some(tool.as_str()) == bare)
    }
}

/// The one named server of `servers` that listed a tool sent as `name` (`None`: none did, or
/// more than one: the name does not tell them apart).
pub fn listing<'a>(servers: &'a [McpServer], name: &str) -> Option<&'a McpServer> {
    let mut named = servers.iter().filter(|s| s.name.is_some() && s.lists(name));
    let one = named.next()?;
    named.next().is_none().then_some(one)
}

/// The servers met so far, in the order first met.
#[derive(Debug, Default)]
pub(crate) struct Servers {
    list: Vec<McpServer>,
}

impl Servers {
    pub(crate) fn all(&self) -> &[McpServer] {
        &self.list
    }

    /// The server at `url` (the latest met there), made when new.
    fn at(&mut self, url: Option<&str>) -> Option<&mut McpServer> {
        match self.list.iter().rposition(|s| s.url.as_deref() == url) {
            Some(at) => self.list.get_mut(at),
            None if self.list.len() < SERVERS_KEPT => {
                self.list.push(McpServer {
                    url: url.map(str::to_owned),
                    name: None,
                    version: None,
                    tools: Vec::new(),
                });
                self.list.last_mut()
            }
            None => None,
        }
    }

    /// An `initialize` answer at `url`: the server's name and version. The reason its
    /// exchange is not a turn.
    pub(crate) fn hello(&mut self, url: Option<&str>, info: ServerInfo) -> String {
        let reason = format!(
            "MCP initialize: the server {}, not a model call",
            info.said()
        );
        if let Some(server) = self.at(url) {
            server.name = Some(info.name);
            server.version = info.version;
        }
        reason
    }

    /// A server's list (a `tools/list` answer read as a record) as the record it is beside
    /// model calls: ignored, named after its server where its `initialize` named it.
    pub(crate) fn list_ignored(&mut self, list: &TraceRecord) -> Ignored {
        let server = match &list.body {
            RecordBody::Request(body) => self.listed(list.url.as_deref(), body),
            RecordBody::CompactionStub => None,
        };
        Ignored {
            reason: super::record::server_list_reason(list, server.as_deref()),
            source: list.source.clone(),
            method: list.method.clone(),
            url: list.url.clone(),
        }
    }

    /// A `tools/list` answer at `url` (its body, the JSON-RPC response or its result): its
    /// tools recorded for the server; the server's label when it is named.
    fn listed(&mut self, url: Option<&str>, body: &Value) -> Option<String> {
        let tools = body
            .get("result")
            .unwrap_or(body)
            .get("tools")
            .and_then(Value::as_array)?;
        let server = self.at(url)?;
        for tool in tools.iter().filter_map(|t| t.get("name")?.as_str()) {
            if server.tools.len() >= TOOLS_KEPT {
                break;
            }
            if !server.tools.iter().any(|known| known == tool) {
                server.tools.push(tool.to_owned());
            }
        }
        server.label()
    }
}

/// What an `initialize` answer says of its server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServerInfo {
    name: String,
    version: Option<String>,
}

impl ServerInfo {
    /// `serverInfo` of an `initialize` result (`{"result": {"serverInfo": ...}}`, or the
    /// result alone), its name and version cut to [`NAME_CHARS`].
    pub(crate) fn of(answer: &Value) -> Option<ServerInfo> {
        let info = answer.get("result").unwrap_or(answer).get("serverInfo")?;
        let cut = |v: &Value| -> Option<String> {
            let text = v.as_str()?.trim();
            (!text.is_empty()).then(|| text.chars().take(NAME_CHARS).collect())
        };
        Some(ServerInfo {
            name: cut(info.get("name")?)?,
            version: info.get("version").and_then(cut),
        })
    }

    /// `name version` as a reason says it, safe for a terminal.
    fn said(&self) -> String {
        let name = crate::text::safe(&self.name);
        match &self.version {
            Some(version) => format!("{name} {}", crate::text::safe(version)),
            None => name,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_server_is_named_by_its_initialize_answer_and_lists_by_url() {
        let mut servers = Servers::default();
        let hello = json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18",
            "serverInfo": {"name": "fs\u{1b}[31m", "version": "1.2.0"}}});
        let info = ServerInfo::of(&hello).unwrap();
        let reason = servers.hello(Some("http://127.0.0.1:9/mcp"), info);
        assert_eq!(
            reason,
            "MCP initialize: the server fs␛[31m 1.2.0, not a model call"
        );
        // Another server at another URL, listed without its initialize.
        let list = json!({"result": {"tools": [{"name": "read_file"}, {"name": "ls"}]}});
        assert_eq!(servers.listed(Some("http://other/mcp"), &list), None);
        let label = servers.listed(Some("http://127.0.0.1:9/mcp"), &list);
        assert_eq!(label.as_deref(), Some("fs␛[31m 1.2.0"));
        let all = servers.all();
        assert_eq!(all.len(), 2);
        assert!(all[0].lists("read_file"));
        assert!(all[0].lists("mcp__files__ls"), "under a host's prefix");
        assert!(!all[0].lists("mcp__files__write"));
        assert!(!all[0].lists("Read"));
    }

    #[test]
    fn names_are_cut_and_an_answer_without_server_info_names_nothing() {
        let long = "n".repeat(500);
        let info = ServerInfo::of(&json!({"serverInfo": {"name": long}})).unwrap();
        assert_eq!(info.name.chars().count(), NAME_CHARS);
        assert_eq!(info.version, None);
        assert_eq!(
            ServerInfo::of(&json!({"result": {"capabilities": {}}})),
            None
        );
        assert_eq!(ServerInfo::of(&json!({"serverInfo": {"name": " "}})), None);
    }
}
