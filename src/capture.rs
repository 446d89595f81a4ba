//! A captured request body: reading it, recognising its API shape, and reading its parts.
//!
//! Loading a body ([`Capture::from_bytes`]) is kept apart from reading a file
//! ([`Capture::from_path`]) so that other containers (JSONL sessions, HAR files) can feed bodies
//! in later without touching the rules here.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::error::{FileError, LoadError, json_error, json_kind};
use crate::note::Note;
use crate::text::SharedText;
use crate::tool;
use crate::written::{Style, Written};
use std::sync::Arc;

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

/// Parse JSON text keeping every number as it is written. serde_json's `arbitrary_precision`
/// keeps a number's digits, sign and fraction (`18446744073709551616`, `-0`, `1.50`) but spells
/// an exponent its own way (`1E2` becomes `1e+2`); those numbers get their own text back, so
/// an unchanged compact capture serializes to its own bytes. Bodies read from traces can be
/// parsed with it too.
pub fn parse_exact(text: &str) -> serde_json::Result<Value> {
    // Within the memory budget of its size (`trace::budget`), as every parse of input is; the
    // budget's parser restores the exponents.
    crate::trace::budget::parse_str(text)
}

/// [`parse_exact`]'s second half, for a value already parsed from `text` (UTF-8 JSON bytes): a
/// trace reader parses its records itself. Does nothing if `text` is not UTF-8.
pub fn keep_number_text(text: &[u8], value: &mut Value) {
    if let Some(tokens) = respelled_numbers(text) {
        restore_exponents(tokens, value);
    }
}

/// The number tokens of JSON text (UTF-8 bytes) in document order, when serde_json spells at
/// least one of them its own way; `None` when the parse keeps every number as written (or the
/// text is not UTF-8). Reads the text alone, so it can run beside the parse.
pub(crate) fn respelled_numbers(text: &[u8]) -> Option<Vec<&str>> {
    let tokens = number_tokens(std::str::from_utf8(text).ok()?);
    tokens
        .iter()
        .any(|t| matches!(serde_spelling(t), std::borrow::Cow::Owned(_)))
        .then_some(tokens)
}

/// The number tokens of valid JSON text, in document order.
fn number_tokens(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = crate::written::skip_string(bytes, i).unwrap_or(bytes.len()),
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                tokens.push(&text[start..i]);
            }
            _ => i += 1,
        }
    }
    tokens
}

/// A number token as serde_json spells it: `e`, and an explicit exponent sign.
fn serde_spelling(token: &str) -> std::borrow::Cow<'_, str> {
    let Some(at) = token.find(['e', 'E']) else {
        return std::borrow::Cow::Borrowed(token);
    };
    let (mantissa, exponent) = (&token[..at], &token[at + 1..]);
    if token.as_bytes()[at] == b'e' && exponent.starts_with(['+', '-']) {
        return std::borrow::Cow::Borrowed(token);
    }
    let sign = if exponent.starts_with(['+', '-']) {
        ""
    } else {
        "+"
    };
    std::borrow::Cow::Owned(format!("{mantissa}e{sign}{exponent}"))
}

/// Give numbers whose exponent serde_json respelled their text back. Nothing changes unless
/// the parsed numbers line up one to one with the text's tokens (a duplicate key drops a value
/// from the tree, and then the walk could not pair them).
pub(crate) fn restore_exponents(tokens: Vec<&str>, value: &mut Value) {
    fn numbers<'v>(value: &'v mut Value, out: &mut Vec<&'v mut serde_json::Number>) {
        match value {
            Value::Number(n) => out.push(n),
            Value::Array(items) => items.iter_mut().for_each(|v| numbers(v, out)),
            Value::Object(object) => object.values_mut().for_each(|v| numbers(v, out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    numbers(value, &mut found);
    if found.len() != tokens.len()
        || found
            .iter()
            .zip(&tokens)
            .any(|(n, t)| n.as_str() != serde_spelling(t))
    {
        return;
    }
    for (n, token) in found.into_iter().zip(tokens) {
        if n.as_str() != token {
            // serde_json's only constructor from text as written; the token is a valid JSON
            // number (the parser just read it).
            *n = serde_json::Number::from_string_unchecked(token.to_owned());
        }
    }
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
    /// Google Gemini `generateContent` (AI Studio and Vertex AI): `contents`, and tools as
    /// `tools[].functionDeclarations[]`.
    GeminiGenerateContent,
    /// Amazon Bedrock `Converse`: `messages` of content blocks, tools as
    /// `toolConfig.tools[].toolSpec`.
    BedrockConverse,
}

impl Shape {
    /// The shape's id as the CLI prints it.
    pub fn id(self) -> &'static str {
        match self {
            Shape::AnthropicMessages => "anthropic-messages",
            Shape::OpenAiChat => "openai-chat",
            Shape::OpenAiResponses => "openai-responses",
            Shape::McpToolsList => "mcp-tools-list",
            Shape::GeminiGenerateContent => "gemini-generate-content",
            Shape::BedrockConverse => "bedrock-converse",
        }
    }

    /// The key a tool entry of this shape keeps its schema under (Converse nests the schema
    /// one level further down, in `inputSchema.json`).
    pub fn schema_key(self) -> &'static str {
        match self {
            Shape::AnthropicMessages => "input_schema",
            Shape::OpenAiChat | Shape::OpenAiResponses | Shape::GeminiGenerateContent => {
                "parameters"
            }
            Shape::McpToolsList | Shape::BedrockConverse => "inputSchema",
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
            Shape::BedrockConverse => {
                let mut spec = serde_json::Map::new();
                spec.insert("name".into(), name.into());
                spec.insert("description".into(), description.into());
                let mut input = serde_json::Map::new();
                input.insert("json".into(), schema);
                spec.insert("inputSchema".into(), Value::Object(input));
                entry.insert("toolSpec".into(), Value::Object(spec));
            }
            Shape::AnthropicMessages | Shape::McpToolsList | Shape::GeminiGenerateContent => {
                entry.insert("name".into(), name.into());
                entry.insert("description".into(), description.into());
                entry.insert(self.schema_key().into(), schema);
            }
        }
        Value::Object(entry)
    }
}

/// Where a capture keeps its tool list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ToolsPlace {
    /// The body key of the object that holds the list: `result` (a JSON-RPC response),
    /// `toolConfig` (Converse); `None`: the body itself.
    pub holder: Option<&'static str>,
    /// The list's key: `tools`, or `functions` for the legacy Chat Completions list.
    pub key: &'static str,
}

/// Gemini keeps function declarations inside tool objects (`tools[].functionDeclarations[]`):
/// the capture's entries are those declarations, flattened, beside the other tool objects
/// (`{"googleSearch":{}}`), and a projection nests them back ([`Capture::nest`]).
#[derive(Debug, Clone)]
struct Nested {
    /// Every declaration, and every tool object that holds none, in document order.
    entries: Vec<Value>,
    /// Per entry: the tool object (index into `groups`) its declaration came from.
    group_of: Vec<Option<usize>>,
    /// Per tool object that holds declarations: the object with an empty list in their place,
    /// and the key they sit under (`functionDeclarations`, or the proto's
    /// `function_declarations`).
    groups: Vec<(Value, &'static str)>,
}

/// The two spellings of Gemini's declaration list.
const DECLARATION_KEYS: [&str; 2] = ["functionDeclarations", "function_declarations"];

/// The declarations key of a Gemini tool object, when it holds a non-empty list.
fn declarations_key(tool: &Value) -> Option<&'static str> {
    DECLARATION_KEYS.into_iter().find(|key| {
        tool.get(*key)
            .and_then(Value::as_array)
            .is_some_and(|l| !l.is_empty())
    })
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
    place: ToolsPlace,
    /// Gemini's declarations, flattened out of their tool objects.
    nested: Option<Nested>,
    /// Each entry's [`tool::label`], in capture order (shared by every projection's outcomes);
    /// an entry with no usable name is `<entry N>` (1-based).
    labels: Vec<SharedText>,
    /// Whether each entry passes through every strategy untouched ([`tool::passes_through`]:
    /// hosted, or without a usable name), in capture order.
    hosted: Vec<bool>,
    /// Entries without a usable name: their index and what is wrong with them.
    problems: Vec<(usize, String)>,
    /// What every projection of this capture should say about it (a connector's tools the
    /// capture cannot show, a legacy list, a namespace's nested tools).
    notes: Vec<Note>,
    /// The text the body was read from, where its tools sit in it and its writer's style;
    /// `None` for a body given already parsed.
    written: Option<Arc<Written>>,
    /// The `anthropic-beta` values it was sent with, where a trace kept its headers.
    betas: Option<Arc<[String]>>,
    /// The model its URL names, where the body names none (Bedrock's `/model/{id}/converse`).
    url_model: Option<Arc<str>>,
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
        let body = parse_exact(text).map_err(|e| json_error(&e))?;
        let mut capture = Capture::from_value(body)?;
        capture.keep_text(text);
        Ok(capture)
    }

    /// [`Capture::from_value`] for a body parsed from `text` (its bytes as sent: a trace's
    /// decoded body string), which is kept: `original` is then written and measured as those
    /// bytes. Text that does not line up with the body is not kept.
    pub fn from_value_text(body: Value, text: &str) -> Result<Capture, LoadError> {
        let mut capture = Capture::from_value(body)?;
        capture.keep_text(text.strip_prefix('\u{feff}').unwrap_or(text));
        Ok(capture)
    }

    /// A trace record's body ([`crate::trace::TraceRecord`]): [`Capture::from_value_text`] when
    /// the record holds the body's text, else [`Capture::from_value`].
    pub fn from_sent(body: Value, text: Option<&str>) -> Result<Capture, LoadError> {
        match text {
            Some(text) => Capture::from_value_text(body, text),
            None => Capture::from_value(body),
        }
    }

    /// The request as sent with these `anthropic-beta` values (a trace record's
    /// [`crate::trace::TraceRecord::betas`]): what the provider refuses for a missing beta is
    /// then judged ([`crate::tool_changes::ToolChanges::problems`]). `None` changes nothing.
    #[must_use]
    pub fn with_betas(mut self, betas: Option<Vec<String>>) -> Capture {
        if let Some(betas) = betas {
            self.betas = Some(betas.into());
            self.notes = capture_notes(&self);
        }
        self
    }

    /// The `anthropic-beta` values it was sent with, when known.
    pub fn sent_betas(&self) -> Option<&[String]> {
        self.betas.as_deref()
    }

    /// The request as sent to a URL that names its model (Bedrock's `/model/{id}/converse`,
    /// Vertex): that model stands for the body's where the body names none, so what the model
    /// refuses is judged ([`crate::tool_changes::ToolChanges::problems`]).
    #[must_use]
    pub fn with_url_model(mut self, model: Option<String>) -> Capture {
        let named = self.body().get("model").is_some_and(Value::is_string);
        if let Some(model) = model.filter(|_| !named) {
            self.url_model = Some(model.into());
            self.notes = capture_notes(&self);
        }
        self
    }

    /// The model the request is for: the body's `model`, else the one its URL names.
    pub fn model(&self) -> Option<&str> {
        self.body()
            .get("model")
            .and_then(Value::as_str)
            .or(self.url_model.as_deref())
    }

    /// Keep the text the body was parsed from, if its tools can be found in it.
    fn keep_text(&mut self, text: &str) {
        self.written = Written::scan(
            text,
            self.place.holder,
            self.place.key,
            self.shape == Shape::GeminiGenerateContent,
            self.tools().len(),
        )
        .map(Arc::new);
        if self.written.is_some() && self.shape == Shape::GeminiGenerateContent {
            // Its note says how the list is measured, which the text changes.
            self.notes = capture_notes(self);
        }
    }

    /// The body's text as read, where its tools sit in it and how it is written; `None` for a
    /// body given already parsed.
    pub fn written(&self) -> Option<&Written> {
        self.written.as_deref()
    }

    /// How the capture is written: its writer's escapes and spacing (serde_json's compact form
    /// for a body given already parsed).
    pub fn style(&self) -> Style {
        self.written
            .as_ref()
            .map_or_else(Style::canonical, |w| w.style().clone())
    }

    /// Bytes of the tool list as sent: the tool list's value as written (`tools`, `result.tools`,
    /// `toolConfig.tools`, legacy `functions`; Gemini's tool objects included), 0 without a tool
    /// list; `None` for a body given already parsed (measured as compact JSON instead).
    pub fn tools_bytes(&self) -> Option<usize> {
        let written = self.written.as_ref()?;
        Some(written.tools().map_or(0, str::len))
    }

    /// Entry `index` as sent, when the body's text is kept.
    pub fn entry_text(&self, index: usize) -> Option<&str> {
        self.written.as_ref()?.entry(index)
    }

    /// Load a request body that is already parsed.
    pub fn from_value(body: Value) -> Result<Capture, LoadError> {
        let (shape, place) = detect_shape(&body)?;
        let mut capture = Capture {
            body,
            shape,
            place,
            nested: None,
            labels: Vec::new(),
            hosted: Vec::new(),
            problems: Vec::new(),
            notes: Vec::new(),
            written: None,
            betas: None,
            url_model: None,
        };
        capture.check_tools()?;
        if shape == Shape::GeminiGenerateContent {
            capture.nested = Some(flatten_gemini(capture.tools_value()));
        }
        let mut labels = Vec::with_capacity(capture.tools().len());
        let mut hosted = Vec::with_capacity(capture.tools().len());
        let mut problems = Vec::new();
        for (index, entry) in capture.tools().iter().enumerate() {
            let (label, passes) = match tool::hosted_label(entry) {
                Some(label) => (SharedText::from(label), true),
                None => match entry_problem(entry) {
                    Some(problem) => {
                        problems.push((index, problem));
                        (SharedText::from(format!("<entry {}>", index + 1)), true)
                    }
                    None => (SharedText::from(tool::name(entry).unwrap_or("")), false),
                },
            };
            labels.push(label);
            hosted.push(passes);
        }
        capture.labels = labels;
        capture.hosted = hosted;
        capture.problems = problems;
        capture.notes = capture_notes(&capture);
        Ok(capture)
    }

    fn check_tools(&self) -> Result<(), LoadError> {
        match self.tools_value() {
            None | Some(Value::Array(_)) => Ok(()),
            Some(Value::Null) if self.shape != Shape::McpToolsList => Ok(()),
            // Gemini's API takes one Tool object where a list is due (proto's JSON mapping).
            Some(Value::Object(_)) if self.shape == Shape::GeminiGenerateContent => Ok(()),
            Some(other) => Err(LoadError::ToolsNotArray(json_kind(other))),
        }
    }

    /// Entries without a usable name (loaded as `<entry N>`): each one's index and what is
    /// wrong with it. A provider rejects a request that sends one.
    pub fn problems(&self) -> &[(usize, String)] {
        &self.problems
    }

    /// What every projection of this capture says about it (tools a connector fetches that the
    /// capture cannot show, a legacy `functions` list, a Codex namespace's nested tools, ...).
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// Where the tool list lives.
    pub fn place(&self) -> ToolsPlace {
        self.place
    }

    /// A new tool entry in this capture's own form: the shape's ([`Shape::make_tool`]), or a
    /// flat `{name, description, parameters}` for a legacy `functions` list.
    pub fn make_tool(&self, name: &str, description: &str, schema: Value) -> Value {
        if self.place.key == "functions" {
            let mut entry = serde_json::Map::new();
            entry.insert("name".into(), name.into());
            entry.insert("description".into(), description.into());
            entry.insert("parameters".into(), schema);
            return Value::Object(entry);
        }
        if self.shape == Shape::GeminiGenerateContent && self.uses_json_schema_key() {
            let mut entry = serde_json::Map::new();
            entry.insert("name".into(), name.into());
            entry.insert("description".into(), description.into());
            entry.insert("parametersJsonSchema".into(), schema);
            return Value::Object(entry);
        }
        self.shape.make_tool(name, description, schema)
    }

    /// Whether a Gemini capture's declarations give their schema as `parametersJsonSchema`
    /// (full JSON Schema) rather than `parameters` (the OpenAPI subset).
    fn uses_json_schema_key(&self) -> bool {
        self.tools()
            .iter()
            .any(|entry| tool::schema_key(entry) == Some("parametersJsonSchema"))
    }

    /// The tools array as the request sends it, from the sent entries and where each came from
    /// (`None`: added by a strategy). Only Gemini regroups: consecutive declarations of one tool
    /// object go back into a copy of it, an added declaration joins the group before it (or
    /// the first one), and every other entry stands alone. The unchanged list comes back as
    /// it was.
    pub fn nest<'a>(&self, sent: impl Iterator<Item = (Option<usize>, &'a Value)>) -> Vec<Value> {
        let Some(nested) = &self.nested else {
            return sent.map(|(_, entry)| entry.clone()).collect();
        };
        let mut out: Vec<Value> = Vec::new();
        // The group being filled: its index, and its place in `out`.
        let mut open: Option<(usize, usize)> = None;
        for (origin, entry) in sent {
            let group = match origin {
                Some(index) => match nested.group_of.get(index).copied().flatten() {
                    Some(group) => Some(group),
                    None => {
                        out.push(entry.clone());
                        open = None;
                        continue;
                    }
                },
                None => None,
            };
            let into_open = match (open, group) {
                (Some((current, _)), Some(group)) => current == group,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if !into_open {
                let group = group.unwrap_or(0);
                let template = nested.groups.get(group).cloned().unwrap_or_else(|| {
                    (
                        serde_json::json!({ "functionDeclarations": [] }),
                        "functionDeclarations",
                    )
                });
                out.push(template.0);
                open = Some((group, out.len() - 1));
            }
            let (group, at) = open.expect("a group is open");
            let key = nested
                .groups
                .get(group)
                .map_or("functionDeclarations", |(_, key)| *key);
            if let Some(Value::Array(list)) = out[at].get_mut(key) {
                list.push(entry.clone());
            }
        }
        out
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

    /// The object that holds the tool list (the JSON-RPC `result` for a wrapped MCP list,
    /// `toolConfig` for Converse), if the body has it.
    pub fn tools_holder(&self) -> Option<&serde_json::Map<String, Value>> {
        match self.place.holder {
            Some(key) => self.body.get(key)?.as_object(),
            None => self.body.as_object(),
        }
    }

    /// Mutable access to the object that holds the tool list in a copy of the body; `create`
    /// adds an empty holder object where the body has none (a Converse request gaining tools).
    pub fn tools_holder_mut<'b>(
        &self,
        body: &'b mut Value,
        create: bool,
    ) -> Option<&'b mut serde_json::Map<String, Value>> {
        let Some(key) = self.place.holder else {
            return body.as_object_mut();
        };
        let object = body.as_object_mut()?;
        if create && !object.get(key).is_some_and(Value::is_object) {
            object.insert(key.to_owned(), Value::Object(serde_json::Map::new()));
        }
        object.get_mut(key)?.as_object_mut()
    }

    /// Whether the MCP list is wrapped in a JSON-RPC response.
    pub fn is_wrapped(&self) -> bool {
        self.place.holder == Some("result")
    }

    fn tools_value(&self) -> Option<&Value> {
        self.tools_holder()?.get(self.place.key)
    }

    /// Whether the body has a tool list key at all (`tools`; `functions` in a legacy list).
    pub fn has_tools_key(&self) -> bool {
        self.tools_value().is_some()
    }

    /// The original tool entries (empty when the body has none). For Gemini, the function
    /// declarations flattened out of their tool objects, beside the other tool objects.
    pub fn tools(&self) -> &[Value] {
        if let Some(nested) = &self.nested {
            return &nested.entries;
        }
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

    /// Indices of the entries every strategy passes through: hosted ([`tool::hosted_label`]) and
    /// `<entry N>` ([`Capture::problems`]), in capture order.
    pub fn hosted(&self) -> Vec<usize> {
        (0..self.hosted.len())
            .filter(|&index| self.hosted[index])
            .collect()
    }

    /// Whether original entry `index` passes through ([`Capture::hosted`]), looked up, not
    /// recomputed.
    pub fn is_hosted_at(&self, index: usize) -> bool {
        self.hosted.get(index).copied().unwrap_or(false)
    }

    /// The tool a `tool_choice` forces, if it names one: a function's name, or a hosted
    /// entry's label for a hosted choice such as `{"type":"web_search"}` ([`tool::choice_label`]).
    /// Legacy Chat `function_call: {"name":…}`; Converse `toolConfig.toolChoice.tool.name`;
    /// Gemini `functionCallingConfig` in mode `ANY` allowing exactly one function.
    pub fn tool_choice_name(&self) -> Option<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        match self.shape {
            Shape::BedrockConverse => self
                .body
                .pointer("/toolConfig/toolChoice/tool/name")
                .and_then(Value::as_str)
                .map(Cow::Borrowed),
            Shape::GeminiGenerateContent => {
                let config = self.gemini_choice()?;
                let config = config
                    .get("functionCallingConfig")
                    .or_else(|| config.get("function_calling_config"))?;
                let mode = config.get("mode").and_then(Value::as_str)?;
                let allowed = config
                    .get("allowedFunctionNames")
                    .or_else(|| config.get("allowed_function_names"))?
                    .as_array()?;
                match allowed.as_slice() {
                    [Value::String(name)] if mode.eq_ignore_ascii_case("any") => {
                        Some(Cow::Borrowed(name))
                    }
                    _ => None,
                }
            }
            _ => tool::choice_label(self.body.get(self.choice_key())?),
        }
    }

    /// Gemini's `toolConfig` (or `tool_config`).
    fn gemini_choice(&self) -> Option<&Value> {
        self.body
            .get("toolConfig")
            .or_else(|| self.body.get("tool_config"))
    }

    /// The top-level key of the tool choice outside Converse and Gemini.
    fn choice_key(&self) -> &'static str {
        if self.place.key == "functions" {
            "function_call"
        } else {
            "tool_choice"
        }
    }

    /// Whether the request carries a tool choice (`tool_choice`, `function_call`, Converse's
    /// `toolChoice`, Gemini's `toolConfig`).
    pub fn has_tool_choice(&self) -> bool {
        match self.shape {
            Shape::BedrockConverse => self.body.pointer("/toolConfig/toolChoice").is_some(),
            Shape::GeminiGenerateContent => self.gemini_choice().is_some(),
            _ => self.body.get(self.choice_key()).is_some(),
        }
    }

    /// Remove the tool choice from a copy of the body (a provider rejects one without tools).
    pub fn strip_tool_choice(&self, body: &mut Value) {
        let Some(object) = body.as_object_mut() else {
            return;
        };
        match self.shape {
            Shape::BedrockConverse => {
                if let Some(Value::Object(config)) = object.get_mut("toolConfig") {
                    config.shift_remove("toolChoice");
                }
            }
            Shape::GeminiGenerateContent => {
                object.shift_remove("toolConfig");
                object.shift_remove("tool_config");
            }
            _ => {
                object.shift_remove(self.choice_key());
            }
        }
    }

    /// The text of each conversation message, oldest first, in the shape's own terms:
    /// Messages `content` strings and `text` blocks; Chat `content` strings and `text` parts;
    /// Responses `input` string or message items' `input_text`/`output_text` parts; Gemini
    /// `contents[].parts[].text`; Converse `messages[].content[].text`. Messages of role `tool`
    /// (or legacy `function`) are skipped; the system prompt is not part of it (Messages and
    /// Converse `system`, Responses `instructions`, Gemini `systemInstruction`, and messages of
    /// role `system` or `developer`). Each message's parts are joined with `\n`; messages
    /// without text are left out.
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
            Shape::GeminiGenerateContent => {
                if let Some(Value::Array(contents)) = self.body.get("contents") {
                    for content in contents {
                        if is_not_context(content) {
                            continue;
                        }
                        push_untyped_text(&mut texts, content.get("parts"));
                    }
                }
            }
            Shape::BedrockConverse => {
                if let Some(Value::Array(messages)) = self.body.get("messages") {
                    for message in messages {
                        if is_not_context(message) {
                            continue;
                        }
                        push_untyped_text(&mut texts, message.get("content"));
                    }
                }
            }
            Shape::McpToolsList => {}
        }
        texts
    }

    /// The conversation's items: Messages, Chat and Converse `messages`, Responses `input`
    /// items, Gemini `contents`.
    pub fn conversation(&self) -> &[Value] {
        let list = match self.shape {
            Shape::OpenAiResponses => self.body.get("input"),
            Shape::GeminiGenerateContent => self.body.get("contents"),
            _ => self.body.get("messages"),
        };
        match list {
            Some(Value::Array(items)) => items,
            _ => &[],
        }
    }
}

/// Append the text of a Gemini `parts` or Converse `content` list, whose text parts are
/// `{"text":…}` without a `type` (a Gemini `thought` part is the model's reasoning, not text).
fn push_untyped_text(texts: &mut Vec<String>, parts: Option<&Value>) {
    let Some(Value::Array(parts)) = parts else {
        return;
    };
    let parts: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    if !parts.is_empty() {
        texts.push(parts.join("\n"));
    }
}

/// What is wrong with an entry that has no usable name and is not hosted, or `None`.
fn entry_problem(entry: &Value) -> Option<String> {
    if !entry.is_object() {
        return Some(format!("the entry is {}, not an object", json_kind(entry)));
    }
    match tool::name(entry) {
        Some("") => Some("the name is empty".to_owned()),
        Some(_) => None,
        None => match tool::body(entry).and_then(|b| b.get("name")) {
            Some(other) => Some(format!("the name is {}, not a string", json_kind(other))),
            None => Some(
                "no `name`, and no `type` naming a hosted tool (such as web_search)".to_owned(),
            ),
        },
    }
}

/// Flatten Gemini's tool objects: each non-empty declaration list becomes its declarations,
/// every other tool object stays one entry.
fn flatten_gemini(tools: Option<&Value>) -> Nested {
    let mut nested = Nested {
        entries: Vec::new(),
        group_of: Vec::new(),
        groups: Vec::new(),
    };
    let tools = match tools {
        Some(Value::Array(tools)) => tools.as_slice(),
        Some(one @ Value::Object(_)) => std::slice::from_ref(one),
        _ => return nested,
    };
    for tool_object in tools {
        match declarations_key(tool_object) {
            Some(key) => {
                let group = nested.groups.len();
                let mut template = tool_object.clone();
                let declarations = template
                    .get_mut(key)
                    .map(|list| std::mem::replace(list, Value::Array(Vec::new())));
                if let Some(Value::Array(declarations)) = declarations {
                    for declaration in declarations {
                        nested.entries.push(declaration);
                        nested.group_of.push(Some(group));
                    }
                }
                nested.groups.push((template, key));
            }
            None => {
                nested.entries.push(tool_object.clone());
                nested.group_of.push(None);
            }
        }
    }
    nested
}

/// The notes every projection of a capture carries.
fn capture_notes(capture: &Capture) -> Vec<Note> {
    let mut notes = Vec::new();
    let body = capture.body();
    // Servers an `mcp_toolset` entry names already get that entry's note.
    let toolsets: Vec<&str> = capture
        .tools()
        .iter()
        .filter(|e| e.get("type").and_then(Value::as_str) == Some("mcp_toolset"))
        .filter_map(|e| e.get("mcp_server_name").and_then(Value::as_str))
        .collect();
    if let Some(Value::Array(servers)) = body.get("mcp_servers") {
        let names: Vec<&str> = servers
            .iter()
            .map(|s| s.get("name").and_then(Value::as_str).unwrap_or("unnamed"))
            .filter(|name| !toolsets.contains(name))
            .collect();
        if !names.is_empty() {
            notes.push(Note::info(format!(
                "the request names {} MCP server{} in `mcp_servers` ({}): Anthropic's MCP connector fetches their tools, which toolprism cannot see or count",
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            )));
        }
    }
    if capture.place.key == "functions" {
        notes.push(Note::info(
            "the tools are a legacy Chat Completions `functions` list (with `function_call`): strategies read and write it in that form",
        ));
    }
    if capture.shape == Shape::AnthropicMessages
        && body
            .get("anthropic_version")
            .and_then(Value::as_str)
            .is_some_and(|v| v.starts_with("bedrock-"))
    {
        notes.push(Note::info(
            "an Anthropic Messages body for Amazon Bedrock InvokeModel (`anthropic_version: bedrock-…`): the model is named in the URL, not the body",
        ));
    }
    if let Some(nested) = &capture.nested
        && nested.groups.len() > 1
    {
        notes.push(Note::info(format!(
            "the declarations come from {} Gemini tool objects: projections keep each declaration with its own object",
            nested.groups.len()
        )));
    }
    if capture.shape == Shape::GeminiGenerateContent
        && capture.tools().iter().any(|e| !tool::passes_through(e))
    {
        notes.push(Note::info(if capture.written.is_some() {
            "Gemini: tokens are counted on the list of function declarations (and built-in tool objects), without the `{\"functionDeclarations\":[…]}` wrapper around them; bytes are the `tools` value as sent, wrappers included"
        } else {
            "Gemini: tools are measured as the list of function declarations (and built-in tool objects); the `{\"functionDeclarations\":[…]}` wrapper around them (25 bytes) is not counted"
        }));
    }
    // What the provider refuses of the request's mid-conversation system messages: every
    // projection keeps the messages, so every one is rejected with them.
    let changes = crate::tool_changes::ToolChanges::read(capture);
    for problem in changes.problems(capture, None) {
        notes.push(Note::error(problem));
    }
    for entry in capture.tools() {
        if entry.get("type").and_then(Value::as_str) != Some("namespace") {
            continue;
        }
        let nested: Vec<&str> = entry
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|t| tool::name(t).unwrap_or("?"))
            .collect();
        notes.push(Note::info(format!(
            "`{}` is a Codex namespace of {} tool{} ({}): strategies treat the namespace as one entry, counted with every tool in it",
            tool::name(entry).unwrap_or("?"),
            nested.len(),
            if nested.len() == 1 { "" } else { "s" },
            nested.join(", ")
        )));
    }
    notes
}

/// Messages that are not conversation context: tool results and the system prompt.
fn is_not_context(message: &Value) -> bool {
    matches!(
        message.get("role").and_then(Value::as_str),
        Some("tool" | "system" | "developer" | "function")
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

/// Recognise the API a body was sent to, and where it keeps its tool list.
fn detect_shape(body: &Value) -> Result<(Shape, ToolsPlace), LoadError> {
    let plain = |shape: Shape| {
        (
            shape,
            ToolsPlace {
                holder: None,
                key: "tools",
            },
        )
    };
    let (shape, wrapped) = detect_api(body)?;
    let object = body.as_object().expect("detect_api accepts only objects");
    Ok(match shape {
        _ if wrapped => (
            shape,
            ToolsPlace {
                holder: Some("result"),
                key: "tools",
            },
        ),
        Shape::BedrockConverse => (
            shape,
            ToolsPlace {
                holder: Some("toolConfig"),
                key: "tools",
            },
        ),
        Shape::OpenAiChat
            if !object.contains_key("tools")
                && matches!(object.get("functions"), Some(Value::Array(_))) =>
        {
            (
                shape,
                ToolsPlace {
                    holder: None,
                    key: "functions",
                },
            )
        }
        _ => plain(shape),
    })
}

/// Whether a body is a Gemini `generateContent` request: `contents`, a system instruction, or
/// tool objects holding function declarations.
fn is_gemini(object: &serde_json::Map<String, Value>) -> bool {
    if object.contains_key("messages") || object.contains_key("input") {
        return false;
    }
    [
        "contents",
        "systemInstruction",
        "system_instruction",
        "generationConfig",
        "generation_config",
    ]
    .iter()
    .any(|key| object.contains_key(*key))
        || object
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|tools| {
                tools
                    .iter()
                    .any(|t| DECLARATION_KEYS.iter().any(|key| t.get(*key).is_some()))
            })
}

/// Whether a body is a Bedrock Converse request: a `toolConfig`, Converse's own configuration
/// keys, or messages whose content blocks carry no `type` (`{"text":…}`, `{"toolUse":…}`).
fn is_converse(object: &serde_json::Map<String, Value>) -> bool {
    if object.get("toolConfig").is_some_and(Value::is_object) && !object.contains_key("contents") {
        return true;
    }
    if !matches!(object.get("messages"), Some(Value::Array(_))) {
        return false;
    }
    if [
        "inferenceConfig",
        "additionalModelRequestFields",
        "guardrailConfig",
        "promptVariables",
    ]
    .iter()
    .any(|key| object.contains_key(*key))
    {
        return true;
    }
    let messages = object.get("messages").and_then(Value::as_array);
    messages.into_iter().flatten().any(|message| {
        message
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|blocks| {
                blocks.iter().any(|block| {
                    block.get("type").is_none()
                        && [
                            "text",
                            "toolUse",
                            "toolResult",
                            "image",
                            "document",
                            "reasoningContent",
                            "cachePoint",
                        ]
                        .iter()
                        .any(|key| block.get(*key).is_some())
                })
            })
    })
}

/// Recognise the API a body was sent to. Returns the shape and whether an MCP list is wrapped
/// in a JSON-RPC `result`.
fn detect_api(body: &Value) -> Result<(Shape, bool), LoadError> {
    let Value::Object(object) = body else {
        let what = match body {
            Value::Array(items) => items.first().and_then(crate::trace::kind::not_a_request),
            _ => None,
        };
        return Err(LoadError::UnknownShape(match what {
            Some(what) => {
                format!("the document is an array whose first entry is {what}, not a request")
            }
            None if body.as_array().is_some_and(Vec::is_empty) => {
                "the document is an empty array: no request in it".to_owned()
            }
            None => format!(
                "the document is {}, expected a request object",
                json_kind(body)
            ),
        }));
    };
    // JSON-RPC response carrying a tools/list result.
    if let Some(Value::Object(result)) = object.get("result")
        && result.contains_key("tools")
        && !object.contains_key("messages")
        && !object.contains_key("input")
    {
        return Ok((Shape::McpToolsList, true));
    }
    if is_gemini(object) {
        return Ok((Shape::GeminiGenerateContent, false));
    }
    if is_converse(object) {
        return Ok((Shape::BedrockConverse, false));
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
    if let Some(what) = crate::trace::kind::not_a_request(body) {
        return Err(LoadError::UnknownShape(format!("{what}, not a request")));
    }
    // An MCP client's config (Claude Code, Cursor, Gemini CLI: `mcpServers`; VS Code: `servers`;
    // Zed: `context_servers`): the command that reads one is named.
    if let Some(key) = ["mcpServers", "servers", "context_servers"]
        .into_iter()
        .find(|k| object.get(*k).is_some_and(Value::is_object))
    {
        return Err(LoadError::UnknownShape(format!(
            "an MCP client config (`{key}`), not a request: `toolprism mcp FILE` starts its \
             servers and measures their tools"
        )));
    }
    Err(LoadError::UnknownShape(
        "no `messages`, `input`, `contents` or `tools` (expected an Anthropic Messages, OpenAI \
         Chat Completions, OpenAI Responses, Gemini generateContent or Bedrock Converse request, \
         or an MCP tools/list result)"
            .into(),
    ))
}

/// Tell Anthropic Messages from Chat Completions: first by the tool entries, then by the
/// conversation's markers.
fn messages_shape(object: &serde_json::Map<String, Value>) -> Shape {
    if let Some(Value::Array(tools)) = object.get("tools") {
        for entry in tools {
            if entry.get("function").is_some() || entry.get("custom").is_some() {
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
    {
        return Shape::AnthropicMessages;
    }
    // Keys only Chat Completions takes (`thinking` is not one of Anthropic's alone: DeepSeek,
    // Kimi and GLM take it in Chat bodies too, so it is looked at last).
    const CHAT_ONLY: [&str; 8] = [
        "max_completion_tokens",
        "stream_options",
        "response_format",
        "reasoning_effort",
        "logprobs",
        "frequency_penalty",
        "presence_penalty",
        "parallel_tool_calls",
    ];
    if CHAT_ONLY.iter().any(|key| object.contains_key(*key))
        || object.get("tool_choice").is_some_and(Value::is_string)
    {
        return Shape::OpenAiChat;
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
    if object.contains_key("thinking") {
        return Shape::AnthropicMessages;
    }
    match object.get("model").and_then(Value::as_str) {
        Some(model) if model.starts_with("claude") => Shape::AnthropicMessages,
        _ => Shape::OpenAiChat,
    }
}
