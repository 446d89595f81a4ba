//! A captured request body: reading it, recognising its API shape, and reading its parts.
//!
//! Loading a body ([`Capture::from_bytes`]) is kept apart from reading a file
//! ([`Capture::from_path`]) so that other containers (JSONL sessions, HAR files) can feed bodies
//! in later without touching the rules here.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::error::{FileError, LoadError, json_error, json_kind};
use crate::projection::SharedText;
use crate::tool;

/// Largest capture toolprism reads: 64 MiB. The largest real captures carry a few MB of tools;
/// this leaves an order of magnitude of headroom while keeping memory bounded.
pub const MAX_CAPTURE_BYTES: u64 = 64 * 1024 * 1024;

/// How a capture path is named to people: `-` (standard input) is `<stdin>`.
pub fn display_name(path: &str) -> &str {
    if path == "-" { "<stdin>" } else { path }
}

/// [`display_name`] for a path of any bytes: one that is not UTF-8 is shown with U+FFFD for
/// its bad bytes (and, as every name, through the sanitizer on a terminal).
pub fn display_path(path: &Path) -> std::borrow::Cow<'_, str> {
    match path.to_string_lossy() {
        std::borrow::Cow::Borrowed(text) => std::borrow::Cow::Borrowed(display_name(text)),
        owned => owned,
    }
}

/// Whether bytes are binary data rather than text that merely fails to parse: a NUL, or bytes
/// that are not UTF-8, in something that does not start like JSON (`{` or `[`). UTF-16 text
/// (with its byte-order mark) is text in the wrong encoding, not binary. Shared by captures and
/// traces so both name such a file the same way.
pub fn looks_binary(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return false;
    }
    let json_like = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'['));
    if json_like {
        return false;
    }
    bytes.contains(&0) || std::str::from_utf8(bytes).is_err()
}

/// The API a capture was sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Anthropic Messages (`messages`, tools with `input_schema`).
    AnthropicMessages,
    /// OpenAI Chat Completions (`messages`, tools with a `function` object).
    OpenAiChat,
    /// OpenAI Responses (`input`, flat function tools).
    OpenAiResponses,
    /// An MCP `tools/list` result, bare or inside a JSON-RPC response.
    McpToolsList,
}

impl Shape {
    /// The shape's id as the CLI prints it.
    pub fn id(self) -> &'static str {
        match self {
            Shape::AnthropicMessages => "anthropic-messages",
            Shape::OpenAiChat => "openai-chat",
            Shape::OpenAiResponses => "openai-responses",
            Shape::McpToolsList => "mcp-tools-list",
        }
    }

    /// The key a tool entry of this shape keeps its schema under.
    pub fn schema_key(self) -> &'static str {
        match self {
            Shape::AnthropicMessages => "input_schema",
            Shape::OpenAiChat | Shape::OpenAiResponses => "parameters",
            Shape::McpToolsList => "inputSchema",
        }
    }

    /// A new tool entry in this shape.
    pub fn make_tool(self, name: &str, description: &str, schema: Value) -> Value {
        let mut entry = serde_json::Map::new();
        match self {
            Shape::OpenAiChat => {
                let mut function = serde_json::Map::new();
                function.insert("name".into(), name.into());
                function.insert("description".into(), description.into());
                function.insert("parameters".into(), schema);
                entry.insert("type".into(), "function".into());
                entry.insert("function".into(), Value::Object(function));
            }
            Shape::OpenAiResponses => {
                entry.insert("type".into(), "function".into());
                entry.insert("name".into(), name.into());
                entry.insert("description".into(), description.into());
                entry.insert("parameters".into(), schema);
            }
            Shape::AnthropicMessages | Shape::McpToolsList => {
                entry.insert("name".into(), name.into());
                entry.insert("description".into(), description.into());
                entry.insert(self.schema_key().into(), schema);
            }
        }
        Value::Object(entry)
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// A loaded capture: the original document, untouched, and where its tools live.
#[derive(Debug, Clone)]
pub struct Capture {
    body: Value,
    shape: Shape,
    /// The MCP body is wrapped in a JSON-RPC `result`.
    wrapped: bool,
    /// Each entry's [`tool::label`], in capture order (shared by every projection's outcomes).
    labels: Vec<SharedText>,
    /// Whether each entry is hosted ([`tool::hosted_label`]), in capture order.
    hosted: Vec<bool>,
}

impl Capture {
    /// Read and load a file; `-` reads standard input. Errors name the file.
    pub fn from_path(path: &str) -> Result<Capture, FileError> {
        Capture::from_file(Path::new(path))
    }

    /// [`Capture::from_path`] for a path of any bytes (one that is not UTF-8 is named with
    /// U+FFFD for its bad bytes).
    pub fn from_file(path: &Path) -> Result<Capture, FileError> {
        let display = display_path(path);
        let bytes = read_limited(path).map_err(|e| e.in_file(display.clone()))?;
        Capture::from_bytes(&bytes).map_err(|e| e.in_file(display))
    }

    /// Load a request body from bytes (UTF-8 JSON; a BOM is accepted).
    pub fn from_bytes(bytes: &[u8]) -> Result<Capture, LoadError> {
        if bytes.len() as u64 > MAX_CAPTURE_BYTES {
            return Err(LoadError::TooLarge {
                size: bytes.len() as u64,
                limit: MAX_CAPTURE_BYTES,
            });
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        // An empty or binary file deserves its own words, not a parser position.
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(LoadError::Empty);
        }
        if looks_binary(bytes) {
            return Err(LoadError::Binary);
        }
        let text = std::str::from_utf8(bytes).map_err(|e| LoadError::InvalidUtf8 {
            offset: e.valid_up_to(),
        })?;
        let body: Value = crate::trace::budget::parse_str(text).map_err(|e| json_error(&e))?;
        Capture::from_value(body)
    }

    /// Load a request body that is already parsed.
    pub fn from_value(body: Value) -> Result<Capture, LoadError> {
        let (shape, wrapped) = detect_shape(&body)?;
        let mut capture = Capture {
            body,
            shape,
            wrapped,
            labels: Vec::new(),
            hosted: Vec::new(),
        };
        capture.check_tools()?;
        (capture.labels, capture.hosted) = capture
            .tools()
            .iter()
            .map(|entry| match tool::hosted_label(entry) {
                Some(label) => (SharedText::from(label), true),
                None => (SharedText::from(tool::name(entry).unwrap_or("")), false),
            })
            .unzip();
        Ok(capture)
    }

    fn check_tools(&self) -> Result<(), LoadError> {
        let Some(tools) = self.tools_value() else {
            return Ok(());
        };
        let tools = match tools {
            Value::Array(tools) => tools,
            Value::Null if self.shape != Shape::McpToolsList => return Ok(()),
            other => return Err(LoadError::ToolsNotArray(json_kind(other))),
        };
        for (index, entry) in tools.iter().enumerate() {
            let problem = match entry {
                Value::Object(_) if tool::is_hosted(entry) => None,
                Value::Object(_) => match tool::name(entry) {
                    Some("") => Some("the name is empty".to_owned()),
                    Some(_) => None,
                    None => match tool::body(entry).and_then(|b| b.get("name")) {
                        Some(other) => {
                            Some(format!("the name is {}, not a string", json_kind(other)))
                        }
                        None => Some(
                            "no `name`, and no `type` naming a hosted tool (such as web_search)"
                                .to_owned(),
                        ),
                    },
                },
                other => Some(format!("the entry is {}, not an object", json_kind(other))),
            };
            if let Some(problem) = problem {
                return Err(LoadError::BadTool { index, problem });
            }
        }
        Ok(())
    }

    /// The whole original document, given back (what [`Capture::from_value`] took).
    pub fn into_body(self) -> Value {
        self.body
    }

    /// The whole original document.
    pub fn body(&self) -> &Value {
        &self.body
    }

    /// The API shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The object that holds `tools` (the JSON-RPC `result` for a wrapped MCP list).
    pub fn tools_holder(&self) -> &serde_json::Map<String, Value> {
        let holder = if self.wrapped {
            &self.body["result"]
        } else {
            &self.body
        };
        holder
            .as_object()
            .expect("shape detection guarantees an object")
    }

    /// Mutable access to the object that holds `tools` in a copy of the body.
    pub fn tools_holder_mut(
        shape_wrapped: bool,
        body: &mut Value,
    ) -> Option<&mut serde_json::Map<String, Value>> {
        let holder = if shape_wrapped {
            body.get_mut("result")?
        } else {
            body
        };
        holder.as_object_mut()
    }

    /// Whether the MCP list is wrapped in a JSON-RPC response.
    pub fn is_wrapped(&self) -> bool {
        self.wrapped
    }

    fn tools_value(&self) -> Option<&Value> {
        self.tools_holder().get("tools")
    }

    /// Whether the body has a `tools` key at all.
    pub fn has_tools_key(&self) -> bool {
        self.tools_value().is_some()
    }

    /// The original tool entries (empty when the body has none).
    pub fn tools(&self) -> &[Value] {
        match self.tools_value() {
            Some(Value::Array(tools)) => tools,
            _ => &[],
        }
    }

    /// The original tool names, in capture order; a hosted entry by its label (`<web_search>`).
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.labels.iter().map(|label| &**label)
    }

    /// Each original entry's [`tool::label`], in capture order.
    pub fn labels(&self) -> &[SharedText] {
        &self.labels
    }

    /// Indices of the hosted entries ([`tool::hosted_label`]), in capture order.
    pub fn hosted(&self) -> Vec<usize> {
        (0..self.hosted.len())
            .filter(|&index| self.hosted[index])
            .collect()
    }

    /// Whether original entry `index` is hosted ([`tool::is_hosted`]), looked up, not recomputed.
    pub fn is_hosted_at(&self, index: usize) -> bool {
        self.hosted.get(index).copied().unwrap_or(false)
    }

    /// The tool a `tool_choice` forces, if it names one: a function's name, or a hosted
    /// entry's label for a hosted choice such as `{"type":"web_search"}` ([`tool::choice_label`]).
    pub fn tool_choice_name(&self) -> Option<std::borrow::Cow<'_, str>> {
        tool::choice_label(self.body.get("tool_choice")?)
    }

    /// The text of each conversation message, oldest first, in the shape's own terms:
    /// Messages `content` strings and `text` blocks; Chat `content` strings and `text` parts;
    /// Responses `input` string or message items' `input_text`/`output_text` parts. Messages of
    /// role `tool` are skipped; the system prompt is not part of it (Messages `system`,
    /// Responses `instructions`, and Chat/Responses messages of role `system` or `developer`). Each message's parts are
    /// joined with `\n`; messages without text are left out.
    pub fn message_texts(&self) -> Vec<String> {
        let mut texts = Vec::new();
        match self.shape {
            Shape::AnthropicMessages | Shape::OpenAiChat => {
                if let Some(Value::Array(messages)) = self.body.get("messages") {
                    for message in messages {
                        if is_not_context(message) {
                            continue;
                        }
                        push_text(&mut texts, message.get("content"), &["text"]);
                    }
                }
            }
            Shape::OpenAiResponses => match self.body.get("input") {
                Some(Value::String(text)) if !text.is_empty() => texts.push(text.clone()),
                Some(Value::Array(items)) => {
                    for item in items {
                        let is_message = match item.get("type").and_then(Value::as_str) {
                            Some(kind) => kind == "message",
                            None => item.get("role").is_some(),
                        };
                        if !is_message || is_not_context(item) {
                            continue;
                        }
                        push_text(
                            &mut texts,
                            item.get("content"),
                            &["input_text", "output_text"],
                        );
                    }
                }
                _ => {}
            },
            Shape::McpToolsList => {}
        }
        texts
    }
}

/// Messages that are not conversation context: tool results and the system prompt.
fn is_not_context(message: &Value) -> bool {
    matches!(
        message.get("role").and_then(Value::as_str),
        Some("tool" | "system" | "developer")
    )
}

/// Append one message's text, its parts joined with `\n`, if it has any.
fn push_text(texts: &mut Vec<String>, content: Option<&Value>, part_types: &[&str]) {
    match content {
        Some(Value::String(text)) if !text.is_empty() => texts.push(text.clone()),
        Some(Value::Array(parts)) => {
            let parts: Vec<&str> = parts
                .iter()
                .filter(|p| {
                    p.get("type")
                        .and_then(Value::as_str)
                        .is_some_and(|t| part_types.contains(&t))
                })
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            if !parts.is_empty() {
                texts.push(parts.join("\n"));
            }
        }
        _ => {}
    }
}

fn read_limited(path: &Path) -> Result<Vec<u8>, LoadError> {
    let unreadable = |e: std::io::Error| LoadError::Unreadable(crate::error::io_reason(&e));
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_CAPTURE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(unreadable)?;
    } else {
        let file = std::fs::File::open(path).map_err(unreadable)?;
        let meta = file.metadata().map_err(unreadable)?;
        if meta.is_dir() {
            return Err(LoadError::Unreadable("is a directory".into()));
        }
        if meta.len() > MAX_CAPTURE_BYTES {
            return Err(LoadError::TooLarge {
                size: meta.len(),
                limit: MAX_CAPTURE_BYTES,
            });
        }
        bytes.reserve(meta.len() as usize);
        file.take(MAX_CAPTURE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(unreadable)?;
    }
    if bytes.len() as u64 > MAX_CAPTURE_BYTES {
        return Err(LoadError::TooLarge {
            size: bytes.len() as u64,
            limit: MAX_CAPTURE_BYTES,
        });
    }
    Ok(bytes)
}

/// Recognise the API a body was sent to. Returns the shape and whether an MCP list is wrapped
/// in a JSON-RPC `result`.
fn detect_shape(body: &Value) -> Result<(Shape, bool), LoadError> {
    let Value::Object(object) = body else {
        return Err(LoadError::UnknownShape(format!(
            "the document is {}, expected a request object",
            json_kind(body)
        )));
    };
    // JSON-RPC response carrying a tools/list result.
    if let Some(Value::Object(result)) = object.get("result")
        && result.contains_key("tools")
        && !object.contains_key("messages")
        && !object.contains_key("input")
    {
        return Ok((Shape::McpToolsList, true));
    }
    if object.contains_key("messages") {
        if !matches!(object.get("messages"), Some(Value::Array(_))) {
            return Err(LoadError::UnknownShape("`messages` is not an array".into()));
        }
        return Ok((messages_shape(object), false));
    }
    if object.contains_key("input") {
        return Ok((Shape::OpenAiResponses, false));
    }
    if let Some(tools) = object.get("tools") {
        // A bare tools/list result, or a request without a conversation: decide by the entries,
        // the first function tool first (hosted entries exist only in Messages and Responses).
        let entries = tools.as_array().map(Vec::as_slice).unwrap_or_default();
        let first = entries.iter().find(|entry| !tool::is_hosted(entry));
        let hosted_kind = entries
            .iter()
            .find(|entry| tool::is_hosted(entry))
            .and_then(|entry| entry.get("type"))
            .and_then(Value::as_str);
        let shape = match first {
            Some(entry) if entry.get("function").is_some() => Shape::OpenAiChat,
            Some(entry) if entry.get("input_schema").is_some() => Shape::AnthropicMessages,
            Some(entry)
                if entry.get("parameters").is_some()
                    || entry.get("type").and_then(Value::as_str) == Some("function") =>
            {
                Shape::OpenAiResponses
            }
            _ if object.contains_key("model") => {
                return Err(LoadError::UnknownShape(
                    "a request with `tools` but neither `messages` nor `input`".into(),
                ));
            }
            None if hosted_kind == Some("mcp_toolset") => Shape::AnthropicMessages,
            None if hosted_kind.is_some() => Shape::OpenAiResponses,
            _ => Shape::McpToolsList,
        };
        return Ok((shape, false));
    }
    Err(LoadError::UnknownShape(
        "no `messages`, `input` or `tools` (expected an Anthropic Messages, OpenAI Chat \
         Completions or OpenAI Responses request, or an MCP tools/list result)"
            .into(),
    ))
}

/// Tell Anthropic Messages from Chat Completions: first by the tool entries, then by the
/// conversation's markers.
fn messages_shape(object: &serde_json::Map<String, Value>) -> Shape {
    if let Some(Value::Array(tools)) = object.get("tools") {
        for entry in tools {
            if entry.get("function").is_some() {
                return Shape::OpenAiChat;
            }
            // Anthropic's hosted MCP toolset; Chat Completions has no hosted entries.
            if tool::is_hosted(entry) {
                if entry.get("type").and_then(Value::as_str) == Some("mcp_toolset") {
                    return Shape::AnthropicMessages;
                }
                continue;
            }
            if entry.get("input_schema").is_some() || entry.get("name").is_some() {
                return Shape::AnthropicMessages;
            }
        }
    }
    if object.contains_key("system")
        || object.contains_key("anthropic_version")
        || object.contains_key("stop_sequences")
        || object.contains_key("thinking")
    {
        return Shape::AnthropicMessages;
    }
    let messages = object.get("messages").and_then(Value::as_array);
    for message in messages.into_iter().flatten() {
        if let Some("system" | "developer" | "tool" | "function") =
            message.get("role").and_then(Value::as_str)
        {
            return Shape::OpenAiChat;
        }
        if message.get("tool_calls").is_some() {
            return Shape::OpenAiChat;
        }
        if let Some(Value::Array(parts)) = message.get("content") {
            for part in parts {
                match part.get("type").and_then(Value::as_str) {
                    Some("tool_use" | "tool_result" | "image" | "document" | "thinking") => {
                        return Shape::AnthropicMessages;
                    }
                    Some("image_url" | "input_audio") => return Shape::OpenAiChat,
                    _ => {}
                }
            }
        }
    }
    match object.get("model").and_then(Value::as_str) {
        Some(model) if model.starts_with("claude") => Shape::AnthropicMessages,
        _ => Shape::OpenAiChat,
    }
}
