//! What the provider refuses of a request with mid-conversation system messages
//! (PROVIDERS.md 1.1 and 1.3), and which models take them and bind thinking (section 3).

use serde_json::Value;

use super::{Kind, Target, ToolChanges, entry_label};
use crate::capture::{Capture, Shape};
use crate::tool;

/// A Claude model's family and version, read from its id (`claude-opus-4-8`,
/// `us.anthropic.claude-sonnet-5-5-v1:0`, `anthropic/claude-fable-5-1`, `claude-opus-5-5@…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaudeModel {
    /// `opus`, `sonnet`, `haiku`, `fable`, `mythos`.
    pub family: &'static str,
    /// Major and minor version (`claude-fable-5` is 5.0).
    pub version: (u32, u32),
}

const FAMILIES: [&str; 5] = ["opus", "sonnet", "haiku", "fable", "mythos"];

impl ClaudeModel {
    /// Read a model id; `None` for any other model, or a Claude id of the older form
    /// (`claude-3-5-sonnet-…`).
    pub fn parse(model: &str) -> Option<ClaudeModel> {
        let lower = model.to_ascii_lowercase();
        let start = lower.find("claude-")?;
        let rest = &lower[start + "claude-".len()..];
        let mut parts = rest.split(['-', '@', ':', '.']);
        let first = parts.next()?;
        let family = FAMILIES.into_iter().find(|f| *f == first)?;
        let number = |p: Option<&str>| {
            p.filter(|p| !p.is_empty() && p.len() <= 2)
                .and_then(|p| p.parse::<u32>().ok())
        };
        let major = number(parts.next())?;
        let minor = number(parts.next()).unwrap_or(0);
        Some(ClaudeModel {
            family,
            version: (major, minor),
        })
    }

    /// It takes `role: "system"` messages and tool changes in them: Opus 4.8 and later, Fable
    /// and Mythos, Sonnet and Haiku from 5.5; not Sonnet 5 (the provider's newest page).
    pub fn takes_system_messages(self) -> bool {
        match self.family {
            "opus" => self.version >= (4, 8),
            "fable" | "mythos" => self.version >= (5, 0),
            _ => self.version >= (5, 5),
        }
    }

    /// It binds thinking blocks to the prefix (preserved thinking): Fable and Mythos from 5.1,
    /// Opus, Sonnet and Haiku from 5.5.
    pub fn binds_thinking(self) -> bool {
        match self.family {
            "fable" | "mythos" => self.version >= (5, 1),
            _ => self.version >= (5, 5),
        }
    }

    /// The model as people name it: `Opus 4.8`.
    pub fn name(self) -> String {
        let mut family = self.family.to_owned();
        family[..1].make_ascii_uppercase();
        match self.version {
            (major, 0) => format!("{family} {major}"),
            (major, minor) => format!("{family} {major}.{minor}"),
        }
    }
}

/// The most tools available after a message, and the most bytes of tool text.
pub const MAX_TOOLS: usize = 10_000;
/// 4 MB.
pub const MAX_TOOL_BYTES: usize = 4 * 1024 * 1024;

/// The beta a reference needs on the Claude API, Bedrock and Google Cloud.
pub const REFERENCE_BETA: &str = "mid-conversation-tool-changes-2026-07-01";
/// The beta an inline definition needs (Claude API only); it covers references too.
pub const INLINE_BETA: &str = "inline-tools-2026-09-15";
/// The beta an `mcp_toolset` defined inline needs besides [`INLINE_BETA`].
pub const MCP_BETA: &str = "mcp-client-2026-09-15";

impl ToolChanges {
    /// Why the provider would reject this request's system messages and tool changes, one
    /// line each (empty: nothing to refuse). `betas`: the `anthropic-beta` values sent, when
    /// known (`None`: those the capture was sent with, [`Capture::sent_betas`], else the body's
    /// `anthropic_beta`; none known: no beta is judged).
    pub fn problems(&self, capture: &Capture, betas: Option<&[String]>) -> Vec<String> {
        self.problems_of(capture, capture.model(), betas)
    }

    /// [`ToolChanges::problems`] of a request sent to `model` (a Bedrock Converse body names
    /// no model: its URL does).
    pub fn problems_of(
        &self,
        capture: &Capture,
        model: Option<&str>,
        betas: Option<&[String]>,
    ) -> Vec<String> {
        let mut out = self.malformed.clone();
        if self.is_empty() {
            return out;
        }
        let claude = model.and_then(ClaudeModel::parse);
        // System messages of text alone to a model that is no Claude (a gateway's Anthropic
        // endpoint takes them as its own system prompt): nothing to judge.
        if claude.is_none() && self.changes.is_empty() {
            return out;
        }
        if let Some(claude) = claude
            && !claude.takes_system_messages()
        {
            out.push(format!(
                "{} takes no `role: \"system\"` messages (they start with Opus 4.8; Sonnet 5 has none): the provider rejects the request",
                claude.name()
            ));
        }
        self.placement(capture, &mut out);
        self.references(capture, &mut out);
        self.platform(capture, &mut out);
        self.betas(capture, betas, &mut out);
        self.limits(capture, &mut out);
        out
    }

    /// Placement: not first, not between a `tool_use` and its `tool_result`, right after a
    /// user turn (or an assistant turn ending in a server tool's result) and before an
    /// assistant turn or the end; no tool change after a paused turn or in a turn-scoped one.
    fn placement(&self, capture: &Capture, out: &mut Vec<String>) {
        let messages = capture.conversation();
        let converse = capture.shape() == Shape::BedrockConverse;
        let is_system = |m: &Value| m.get("role").and_then(Value::as_str) == Some("system");
        for system in self.messages.iter().filter(|m| m.has_content) {
            let at = system.message;
            let Some(message) = messages.get(at) else {
                continue;
            };
            if !is_system(message) {
                continue; // a `mid_conv_system` block: its place is its message's
            }
            let n = at + 1;
            if system.turn_scoped && system.changes > 0 {
                out.push(format!(
                    "message {n}: a turn-scoped system message (`clear_at`) carries tool changes: the provider rejects it"
                ));
            }
            let before = messages[..at].iter().rev().find(|m| !is_system(m));
            let after = messages[at + 1..].iter().find(|m| !is_system(m));
            let Some(before) = before else {
                out.push(format!(
                    "message {n}: a system message first in `messages`: the provider rejects it"
                ));
                continue;
            };
            if before.get("role").and_then(Value::as_str) == Some("assistant") {
                let (items, _) = super::blocks(before.get("content"));
                fn kind_of(b: &Value, converse: bool) -> &str {
                    if converse {
                        if b.get("toolUse").is_some() {
                            "tool_use"
                        } else {
                            "text"
                        }
                    } else {
                        b.get("type").and_then(Value::as_str).unwrap_or("text")
                    }
                }
                let last = items.last().map(|b| kind_of(b, converse));
                if items.iter().any(|b| kind_of(b, converse) == "tool_use") {
                    out.push(format!(
                        "message {n}: a system message between a `tool_use` and its `tool_result`: the provider rejects it"
                    ));
                } else if last == Some("server_tool_use") {
                    if system.changes > 0 {
                        out.push(format!(
                            "message {n}: tool changes right after a paused assistant turn: the provider rejects them"
                        ));
                    }
                } else if !last.is_some_and(|k| k.ends_with("_tool_result")) {
                    out.push(format!(
                        "message {n}: a system message after an assistant turn (it must follow a user turn): the provider rejects it"
                    ));
                }
            }
            if let Some(after) = after
                && after.get("role").and_then(Value::as_str) != Some("assistant")
            {
                out.push(format!(
                    "message {n}: a system message followed by a user turn (it must precede an assistant turn or end `messages`): the provider rejects it"
                ));
            }
        }
    }

    /// Every reference resolves; a definition never reuses a name for another type; a
    /// removal names no definition; `cache_control` once per change, never on a deferred one.
    fn references(&self, capture: &Capture, out: &mut Vec<String>) {
        // Name, type of each definition so far.
        let mut known: Vec<(String, String)> = capture
            .tools()
            .iter()
            .map(|e| (entry_label(e), tool_type(e)))
            .collect();
        for change in &self.changes {
            let n = change.message + 1;
            let name = change.target.label();
            match &change.target {
                Target::Inline(definition) => {
                    if change.kind == Kind::Removal {
                        out.push(format!(
                            "message {n}: a `tool_removal` of `{name}` by definition (it takes a reference): the provider rejects it"
                        ));
                        continue;
                    }
                    let kind = tool_type(definition);
                    if let Some((_, other)) = known.iter().find(|k| k.0 == name && k.1 != kind) {
                        out.push(format!(
                            "message {n}: `{name}` is defined as a {kind} tool, but the name is a {other} tool already (tool_name_conflict): the provider rejects it"
                        ));
                    }
                    let inner = definition.get("cache_control").is_some();
                    if inner && change.marked {
                        out.push(format!(
                            "message {n}: `{name}` carries `cache_control` on both its `tool_addition` and its definition: the provider rejects it"
                        ));
                    }
                    if (inner || change.marked) && tool::provider_deferred(definition) {
                        out.push(format!(
                            "message {n}: `{name}` is deferred and carries `cache_control`: the provider rejects it"
                        ));
                    }
                    known.retain(|k| k.0 != name);
                    known.push((name, kind));
                }
                // Converse declares no MCP servers in `toolConfig` (AWS's `ToolReference` names
                // one by `serverName` alone): nothing to resolve an MCP reference against.
                Target::McpTool { .. } | Target::McpToolset(_)
                    if capture.shape() == Shape::BedrockConverse => {}
                target => {
                    let server = match target {
                        Target::McpTool { server, .. } | Target::McpToolset(server) => {
                            Some(format!("{server}/*"))
                        }
                        _ => None,
                    };
                    let resolves = match &server {
                        Some(set) => known.iter().any(|k| &k.0 == set),
                        None => known.iter().any(|k| k.0 == name),
                    };
                    if !resolves {
                        let what = match server {
                            Some(_) => "an MCP server no `mcp_toolset` declares",
                            None => "a tool neither declared in `tools` nor defined earlier",
                        };
                        out.push(format!(
                            "message {n}: a reference to `{name}`, {what} (tool_reference_unresolved): the provider rejects it"
                        ));
                    }
                }
            }
        }
    }

    /// Inline definitions are the Claude API's alone: a body for Bedrock's InvokeModel or
    /// Vertex (its `anthropic_version`), or Converse (references only), cannot carry one.
    fn platform(&self, capture: &Capture, out: &mut Vec<String>) {
        let version = capture
            .body()
            .get("anthropic_version")
            .and_then(Value::as_str)
            .unwrap_or("");
        let platform =
            if capture.shape() == Shape::BedrockConverse || version.starts_with("bedrock-") {
                "Amazon Bedrock"
            } else if version.starts_with("vertex-") {
                "Google Cloud"
            } else {
                return;
            };
        if let Some(change) = self
            .changes
            .iter()
            .find(|c| matches!(c.target, Target::Inline(_)))
        {
            out.push(format!(
                "message {}: an inline tool definition on {platform} (inline tools are the Claude API's only; send a reference): the provider rejects it",
                change.message + 1
            ));
        }
    }

    /// The beta each change needs, where the request shows its betas.
    fn betas(&self, capture: &Capture, betas: Option<&[String]>, out: &mut Vec<String>) {
        let from_body: Option<Vec<String>> = match capture.body().get("anthropic_beta") {
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            ),
            _ => None,
        };
        let Some(betas) = betas.or(capture.sent_betas()).or(from_body.as_deref()) else {
            return;
        };
        let has = |b: &str| betas.iter().any(|s| s.split(',').any(|v| v.trim() == b));
        let inline = self
            .changes
            .iter()
            .any(|c| matches!(c.target, Target::Inline(_)));
        if inline && !has(INLINE_BETA) {
            out.push(format!(
                "an inline tool definition without the `{INLINE_BETA}` beta (Claude API only): the provider rejects it"
            ));
        } else if !self.changes.is_empty() && !has(INLINE_BETA) && !has(REFERENCE_BETA) {
            out.push(format!(
                "tool changes without the `{REFERENCE_BETA}` beta (or `{INLINE_BETA}`): the provider rejects them"
            ));
        }
        let toolset = self.changes.iter().find(|c| match &c.target {
            Target::Inline(d) => d.get("type").and_then(Value::as_str) == Some("mcp_toolset"),
            _ => false,
        });
        if let Some(change) = toolset
            && !has(MCP_BETA)
        {
            out.push(format!(
                "message {}: an `mcp_toolset` defined inline without the `{MCP_BETA}` beta: the provider rejects it",
                change.message + 1
            ));
        }
    }

    /// 10,000 tools, 4 MB of tool text.
    fn limits(&self, capture: &Capture, out: &mut Vec<String>) {
        let inline: Vec<&Value> = self
            .changes
            .iter()
            .filter_map(|c| match &c.target {
                Target::Inline(d) => Some(d),
                _ => None,
            })
            .collect();
        let tools = capture.tools().len() + inline.len();
        if tools > MAX_TOOLS {
            out.push(format!(
                "{tools} tools declared and defined: more than {MAX_TOOLS} available (available_tools_limit_exceeded): the provider rejects it"
            ));
        }
        let bytes: usize = capture
            .tools()
            .iter()
            .chain(inline.iter().copied())
            .map(|e| tool::compact(e).len())
            .sum();
        if bytes > MAX_TOOL_BYTES {
            out.push(format!(
                "{bytes} bytes of tool definitions: more than 4 MB (available_tools_limit_exceeded): the provider rejects it"
            ));
        }
    }
}

/// A tool's type for `tool_name_conflict`: its `type` without the date of its version
/// (`bash_20250124` is `bash`), `custom` without one.
fn tool_type(entry: &Value) -> String {
    let kind = entry
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("custom");
    let kind = match kind.rsplit_once('_') {
        Some((stem, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => stem,
        _ => kind,
    };
    if kind == "function" {
        "custom".to_owned()
    } else {
        kind.to_owned()
    }
}
