//! Mid-conversation tool changes (PROVIDERS.md section 1): a `role: "system"` message appended
//! to `messages` (or the SDKs' `mid_conv_system` block) that offers or withdraws tools with
//! `tool_addition` / `tool_removal` blocks, by reference (`tool_reference`,
//! `mcp_tool_reference`, `mcp_toolset_reference`) or by an inline `tool_definition`; Bedrock
//! Converse's `toolAddition` / `toolRemoval` blocks. The `tools` array never changes: what the
//! model has at the end of a request is the tools in effect ([`ToolChanges::in_effect`]), and
//! what the provider refuses of such a request is [`ToolChanges::problems`].

use serde::Serialize;
use serde_json::Value;

use crate::capture::{Capture, Shape};
use crate::tool;

/// What a change names.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// `tool_reference` (Converse: a `ToolReference` without a server): a tool declared in
    /// `tools` or defined earlier in `messages`.
    Tool(String),
    /// `mcp_tool_reference`: one tool of an MCP server's toolset.
    McpTool {
        /// `server_name`.
        server: String,
        /// `name`.
        name: String,
    },
    /// `mcp_toolset_reference`: every tool of an MCP server's toolset.
    McpToolset(String),
    /// `tool_definition`: any `tools[]` entry, given inline.
    Inline(Value),
}

impl Target {
    /// The name the change is shown and matched by: the tool's name, `server/name` for one MCP
    /// tool, `server/*` for a toolset, an inline definition's label (an inline `mcp_toolset`
    /// is its server's `server/*`).
    pub fn label(&self) -> String {
        match self {
            Target::Tool(name) => name.clone(),
            Target::McpTool { server, name } => format!("{server}/{name}"),
            Target::McpToolset(server) => format!("{server}/*"),
            Target::Inline(definition) => entry_label(definition),
        }
    }
}

/// The name a `tools[]` entry is matched by: an `mcp_toolset` is its server's `server/*`.
fn entry_label(entry: &Value) -> String {
    if entry.get("type").and_then(Value::as_str) == Some("mcp_toolset") {
        let server = entry
            .get("mcp_server_name")
            .and_then(Value::as_str)
            .unwrap_or("?");
        return format!("{server}/*");
    }
    tool::label(entry).into_owned()
}

/// Whether a change offers or withdraws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `tool_addition`.
    Addition,
    /// `tool_removal`.
    Removal,
}

/// One `tool_addition` or `tool_removal` block.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The index of its message in `messages` (0-based).
    pub message: usize,
    /// Offer or withdraw.
    pub kind: Kind,
    /// What it names.
    pub target: Target,
    /// The block carries `cache_control`.
    pub marked: bool,
    /// Where the block is in the conversation: its message's index, then its index in that
    /// message's `content` (and in a `mid_conv_system` block's own `content`).
    pub block: Vec<usize>,
}

/// One mid-conversation system message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemMessage {
    /// Its index in `messages` (0-based).
    pub message: usize,
    /// It carries any content (text or changes); an effort-only message renders nothing.
    pub has_content: bool,
    /// Tool changes it carries.
    pub changes: usize,
    /// Turn-scoped (`clear_at`).
    pub turn_scoped: bool,
}

/// Every mid-conversation system message of a request and the tool changes they carry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolChanges {
    /// The system messages, in order.
    pub messages: Vec<SystemMessage>,
    /// The changes, in order.
    pub changes: Vec<Change>,
    /// Blocks that name no tool the provider could read, with where they are.
    pub malformed: Vec<String>,
    /// Tools a tool search returned (`tool_search_tool_result`'s `tool_references`, or
    /// `tool_reference` blocks in a custom search's `tool_result`): each name with the index of
    /// its message (0-based). They come into effect there, as an addition does.
    pub loads: Vec<(usize, String)>,
}

/// Where a tool in effect came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum Origin {
    /// Declared in `tools` and offered from the start.
    Declared,
    /// Offered by a `tool_addition` reference at message `message` (1-based).
    Added {
        /// 1-based, as people count messages.
        message: usize,
    },
    /// Returned by a tool search at message `message` (1-based).
    Searched {
        /// 1-based.
        message: usize,
    },
    /// Defined inline by a `tool_addition` at message `message` (1-based).
    Inline {
        /// 1-based.
        message: usize,
        /// It replaced an earlier definition of the same name.
        redefined: bool,
    },
}

/// One tool at the end of a request: in effect, or withdrawn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectTool {
    /// Its name (`server/name`, `server/*` for MCP).
    pub name: String,
    /// Where its definition in effect came from.
    #[serde(flatten)]
    pub origin: Origin,
    /// Withdrawn by a `tool_removal` at this message (1-based); `None`: in effect.
    pub removed_at: Option<usize>,
    /// The `tools` entry it is, when declared there.
    #[serde(skip)]
    pub declared: Option<usize>,
    /// Its inline definition, when defined inline.
    #[serde(skip)]
    pub definition: Option<Value>,
}

impl EffectTool {
    /// Where it came from, in words: `declared`, `added at message 4`, `defined inline at
    /// message 4`, `redefined inline at message 6`, `removed at message 8`.
    pub fn source(&self) -> String {
        if let Some(message) = self.removed_at {
            return format!("removed at message {message}");
        }
        match self.origin {
            Origin::Declared => "declared".to_owned(),
            Origin::Added { message } => format!("added at message {message}"),
            Origin::Searched { message } => format!("loaded by tool search at message {message}"),
            Origin::Inline {
                message,
                redefined: false,
            } => format!("defined inline at message {message}"),
            Origin::Inline {
                message,
                redefined: true,
            } => format!("redefined inline at message {message}"),
        }
    }
}

/// The tools at the end of a request.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Effect {
    /// The tools the model has, in the order they came into effect: the declared non-deferred
    /// tools, then each addition.
    pub tools: Vec<EffectTool>,
    /// The tools withdrawn and not offered again.
    pub removed: Vec<EffectTool>,
    /// Declared with `defer_loading: true` and never offered: no context.
    pub hidden: Vec<String>,
}

impl Effect {
    /// Whether `name` is in effect.
    pub fn has(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name)
    }
}

/// One message's content as a list of blocks (a string is one text block).
fn blocks(content: Option<&Value>) -> (Vec<&Value>, bool) {
    match content {
        Some(Value::Array(items)) => (items.iter().collect(), !items.is_empty()),
        Some(Value::String(text)) => (Vec::new(), !text.is_empty()),
        _ => (Vec::new(), false),
    }
}

impl ToolChanges {
    /// Read a request's mid-conversation system messages (Anthropic Messages and Bedrock
    /// Converse; other shapes have none).
    pub fn read(capture: &Capture) -> ToolChanges {
        let mut out = ToolChanges::default();
        let converse = match capture.shape() {
            Shape::AnthropicMessages => false,
            Shape::BedrockConverse => true,
            _ => return out,
        };
        for (at, message) in capture.conversation().iter().enumerate() {
            let role = message.get("role").and_then(Value::as_str);
            let (items, has_content) = blocks(message.get("content"));
            if role == Some("system") {
                out.push_message(at, None, message, &items, has_content, converse);
                continue;
            }
            // The SDKs' block form inside another message.
            for (outer, item) in items.iter().enumerate() {
                if item.get("type").and_then(Value::as_str) == Some("mid_conv_system") {
                    let (inner, has) = blocks(item.get("content"));
                    out.push_message(at, Some(outer), item, &inner, has, converse);
                }
                out.loads
                    .extend(searched(item).into_iter().map(|name| (at, name.to_owned())));
            }
        }
        out
    }

    fn push_message(
        &mut self,
        at: usize,
        outer: Option<usize>,
        message: &Value,
        items: &[&Value],
        has_content: bool,
        converse: bool,
    ) {
        let before = self.changes.len();
        for (index, block) in items.iter().enumerate() {
            let read = if converse {
                converse_change(block)
            } else {
                anthropic_change(block)
            };
            match read {
                Some(Ok((kind, target))) => self.changes.push(Change {
                    message: at,
                    kind,
                    target,
                    marked: block.get("cache_control").is_some(),
                    block: std::iter::once(at).chain(outer).chain([index]).collect(),
                }),
                Some(Err(problem)) => self
                    .malformed
                    .push(format!("messages.{at}.content.{index}: {problem}")),
                None => {}
            }
        }
        self.messages.push(SystemMessage {
            message: at,
            has_content,
            changes: self.changes.len() - before,
            turn_scoped: message.get("clear_at").is_some(),
        });
    }

    /// Whether the request carries any mid-conversation system message.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The changes of the system messages at or after message `from` (0-based).
    pub fn since(&self, from: usize) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.message >= from)
    }

    /// The tools in effect at the end of the request: the declared non-deferred tools, then
    /// each addition and removal in order; a redefinition replaces the earlier definition from
    /// its position on (it moves to the end, where it now stands in the prompt).
    pub fn in_effect(&self, capture: &Capture) -> Effect {
        let mut effect = Effect::default();
        // Everything a reference may name: declared entries, then inline definitions.
        let mut known: Vec<Known> = Vec::new();
        for (index, entry) in capture.tools().iter().enumerate() {
            // A Converse `cachePoint` marks the cache, it is no tool.
            if entry.get("cachePoint").is_some() {
                continue;
            }
            let name = entry_label(entry);
            known.push((name.clone(), Origin::Declared, Some(index), None));
            if offered_from_start(entry) {
                effect.tools.push(EffectTool {
                    name,
                    origin: Origin::Declared,
                    removed_at: None,
                    declared: Some(index),
                    definition: None,
                });
            }
        }
        // A tool search's loads, in message order with the changes.
        let mut loads = self.loads.iter().peekable();
        for change in &self.changes {
            while let Some((at, name)) = loads.next_if(|(at, _)| *at < change.message) {
                load(&mut effect, &known, *at, name);
            }
            let name = change.target.label();
            let message = change.message + 1;
            let was = effect.tools.iter().position(|t| t.name == name);
            match (&change.kind, &change.target) {
                (Kind::Removal, _) => {
                    if let Some(at) = was {
                        let mut tool = effect.tools.remove(at);
                        tool.removed_at = Some(message);
                        effect.removed.retain(|t| t.name != name);
                        effect.removed.push(tool);
                    }
                }
                (Kind::Addition, Target::Inline(definition)) => {
                    // Resending the definition in effect changes nothing.
                    let current = was.and_then(|at| {
                        let tool = &effect.tools[at];
                        tool.definition
                            .as_ref()
                            .or_else(|| tool.declared.and_then(|i| capture.tools().get(i)))
                    });
                    if current.is_some_and(|c| same_definition(c, definition)) {
                        continue;
                    }
                    let redefined = known.iter().any(|k| k.0 == name)
                        || effect.removed.iter().any(|t| t.name == name);
                    let origin = Origin::Inline { message, redefined };
                    known.retain(|k| k.0 != name);
                    known.push((name.clone(), origin, None, Some(definition.clone())));
                    if let Some(at) = was {
                        effect.tools.remove(at);
                    }
                    effect.removed.retain(|t| t.name != name);
                    if offered_from_start(definition) {
                        effect.tools.push(EffectTool {
                            name,
                            origin,
                            removed_at: None,
                            declared: None,
                            definition: Some(definition.clone()),
                        });
                    }
                }
                (Kind::Addition, target) => {
                    if was.is_some() {
                        continue;
                    }
                    effect.removed.retain(|t| t.name != name);
                    let source = known.iter().find(|k| k.0 == name).or_else(|| {
                        // One tool of a toolset the request declares or defined.
                        match target {
                            Target::McpTool { server, .. } => {
                                let set = format!("{server}/*");
                                known.iter().find(|k| k.0 == set)
                            }
                            _ => None,
                        }
                    });
                    let inline = source
                        .and_then(|k| k.3.clone())
                        .filter(|_| matches!(target, Target::Tool(_) | Target::McpToolset(_)));
                    let declared = source
                        .and_then(|k| k.2)
                        .filter(|_| matches!(target, Target::Tool(_) | Target::McpToolset(_)));
                    effect.tools.push(EffectTool {
                        name,
                        origin: Origin::Added { message },
                        removed_at: None,
                        declared,
                        definition: inline,
                    });
                }
            }
        }
        for (at, name) in loads {
            load(&mut effect, &known, *at, name);
        }
        let offered = |name: &str| {
            effect.tools.iter().any(|t| t.name == name)
                || effect.removed.iter().any(|t| t.name == name)
        };
        effect.hidden = capture
            .tools()
            .iter()
            .filter(|e| !offered_from_start(e) && e.get("cachePoint").is_none())
            .map(entry_label)
            .filter(|name| !offered(name))
            .collect();
        effect
    }

    /// The names a `tool_addition` offers by reference that were declared deferred: the model
    /// reaches them without a tool search.
    pub fn offers(&self, name: &str) -> bool {
        self.changes
            .iter()
            .any(|c| c.kind == Kind::Addition && c.target.label() == name)
    }
}

/// A tool a tool search returned at message `at` (0-based) comes into effect there, unless it
/// is in effect already; its definition is the one declared (or defined inline) under its name.
fn load(effect: &mut Effect, known: &[Known], at: usize, name: &str) {
    if effect.has(name) {
        return;
    }
    let source = known.iter().find(|k| k.0 == name);
    effect.removed.retain(|t| t.name != name);
    effect.tools.push(EffectTool {
        name: name.to_owned(),
        origin: Origin::Searched { message: at + 1 },
        removed_at: None,
        declared: source.and_then(|k| k.2),
        definition: source.and_then(|k| k.3.clone()),
    });
}

/// A definition a reference may name: its name, where it came from, its `tools` entry, its
/// inline definition.
type Known = (String, Origin, Option<usize>, Option<Value>);

/// Two definitions of a tool are the same one, `cache_control` aside (a marker is no change
/// of the tool).
pub fn same_definition(a: &Value, b: &Value) -> bool {
    let bare = |v: &Value| -> Value {
        let mut v = v.clone();
        if let Some(object) = v.as_object_mut() {
            object.remove("cache_control");
        }
        v
    };
    bare(a) == bare(b)
}

/// A declared entry the model has from the first message: not `defer_loading: true` (nor an
/// `mcp_toolset` whose `default_config` defers its tools).
pub fn offered_from_start(entry: &Value) -> bool {
    if tool::provider_deferred(entry) {
        return false;
    }
    let toolset_deferred = entry
        .get("default_config")
        .and_then(|c| c.get("defer_loading"))
        .and_then(Value::as_bool)
        == Some(true);
    !toolset_deferred
}

/// The tool names a tool search's result block returns: `tool_search_tool_result`'s
/// `tool_references`, or the `tool_reference` blocks of a custom search's `tool_result`.
fn searched(block: &Value) -> Vec<&str> {
    fn names(items: Option<&Value>) -> Vec<&str> {
        items
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|i| i.get("type").and_then(Value::as_str) == Some("tool_reference"))
            .filter_map(|i| i.get("tool_name").and_then(Value::as_str))
            .collect()
    }
    match block.get("type").and_then(Value::as_str) {
        Some("tool_search_tool_result") => names(block.pointer("/content/tool_references")),
        Some("tool_result") => names(block.get("content")),
        _ => Vec::new(),
    }
}

type Read = Result<(Kind, Target), String>;

/// An Anthropic block: `tool_addition` / `tool_removal`, or `None` for any other block.
fn anthropic_change(block: &Value) -> Option<Read> {
    let kind = match block.get("type").and_then(Value::as_str)? {
        "tool_addition" => Kind::Addition,
        "tool_removal" => Kind::Removal,
        _ => return None,
    };
    let Some(tool) = block.get("tool") else {
        return Some(Err("a tool change without `tool`".to_owned()));
    };
    let text = |key: &str| tool.get(key).and_then(Value::as_str).map(str::to_owned);
    let target = match tool.get("type").and_then(Value::as_str) {
        Some("tool_reference") => text("name").map(Target::Tool),
        Some("mcp_tool_reference") => text("server_name")
            .zip(text("name"))
            .map(|(server, name)| Target::McpTool { server, name }),
        Some("mcp_toolset_reference") => text("server_name").map(Target::McpToolset),
        Some("tool_definition") => tool
            .get("definition")
            .filter(|d| d.is_object())
            .cloned()
            .map(Target::Inline),
        _ => None,
    };
    Some(target.map(|t| (kind, t)).ok_or_else(|| {
        format!(
            "a tool change whose `tool` is no reference or definition ({})",
            tool.get("type")
                .and_then(Value::as_str)
                .unwrap_or("no type")
        )
    }))
}

/// A Converse block: `{"toolAddition":{"tool":{"name"[, "serverName"]}}}` / `toolRemoval`
/// (AWS's `ToolReference` has `name`, `server_name` and `type`; both spellings are read).
fn converse_change(block: &Value) -> Option<Read> {
    let (kind, inner) = if let Some(inner) = block.get("toolAddition") {
        (Kind::Addition, inner)
    } else {
        (Kind::Removal, block.get("toolRemoval")?)
    };
    let tool = inner.get("tool")?;
    let text = |keys: [&str; 2]| {
        keys.iter()
            .find_map(|k| tool.get(*k).and_then(Value::as_str))
            .map(str::to_owned)
    };
    let server = text(["serverName", "server_name"]);
    let target = match (text(["name", "name"]), server) {
        (Some(name), Some(server)) => Target::McpTool { server, name },
        (Some(name), None) => Target::Tool(name),
        (None, Some(server)) => Target::McpToolset(server),
        (None, None) => return Some(Err("a tool change that names no tool".to_owned())),
    };
    Some(Ok((kind, target)))
}

mod rules;
pub use rules::{ClaudeModel, INLINE_BETA, MAX_TOOL_BYTES, MAX_TOOLS, REFERENCE_BETA};
