//! Reading and writing the parts of one tool entry, whatever its API shape.
//!
//! An entry's name is `function.name` when it has a `function` object (Chat Completions), else
//! `name`. Its description and schema live beside the name: `description` and `input_schema`
//! (Messages), `parameters` (Chat, Responses), `inputSchema` (MCP).
//!
//! A *hosted* entry has no name but a `type` the provider runs or expands itself (Responses
//! `{"type":"web_search"}`, a remote `{"type":"mcp",…}`, Anthropic's `mcp_toolset`). It is
//! labelled by its type in angle brackets ([`label`]); no function tool's name can hold `<`, so a
//! label never collides with a name.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// Schema keys in the order they are looked for.
const SCHEMA_KEYS: [&str; 3] = ["input_schema", "parameters", "inputSchema"];

/// The object that holds name, description and schema: `function` for Chat entries, else the
/// entry itself.
pub fn body(entry: &Value) -> Option<&Map<String, Value>> {
    let object = entry.as_object()?;
    match object.get("function") {
        Some(Value::Object(function)) => Some(function),
        _ => Some(object),
    }
}

/// Mutable form of [`body`].
pub fn body_mut(entry: &mut Value) -> Option<&mut Map<String, Value>> {
    let object = entry.as_object_mut()?;
    if matches!(object.get("function"), Some(Value::Object(_))) {
        return object.get_mut("function").and_then(Value::as_object_mut);
    }
    Some(object)
}

/// The entry's name, when it is a string.
pub fn name(entry: &Value) -> Option<&str> {
    body(entry)?.get("name")?.as_str()
}

/// `type` values that mark a function tool, which must carry its own name: never hosted.
const FUNCTION_TYPES: [&str; 2] = ["function", "custom"];

/// The label of a hosted entry: `<type>`, `<mcp:server_label>` for a remote MCP server,
/// `<mcp_toolset:mcp_server_name>` for Anthropic's MCP toolset. `None` when the entry has a
/// usable (non-empty string) name, is a Chat entry (`function` object), or has no non-empty
/// string `type` other than `function`/`custom`.
pub fn hosted_label(entry: &Value) -> Option<String> {
    let object = entry.as_object()?;
    if object.contains_key("function") || name(entry).is_some_and(|n| !n.is_empty()) {
        return None;
    }
    let kind = object.get("type")?.as_str()?;
    if kind.is_empty() || FUNCTION_TYPES.contains(&kind) {
        return None;
    }
    Some(type_label(object, kind))
}

/// `<kind>`, with the server's name for the two MCP kinds.
fn type_label(object: &Map<String, Value>, kind: &str) -> String {
    let server_key = match kind {
        "mcp" => Some("server_label"),
        "mcp_toolset" => Some("mcp_server_name"),
        _ => None,
    };
    match server_key
        .and_then(|key| object.get(key))
        .and_then(Value::as_str)
    {
        Some(server) => format!("<{kind}:{server}>"),
        None => format!("<{kind}>"),
    }
}

/// Whether the entry is a hosted entry ([`hosted_label`]).
pub fn is_hosted(entry: &Value) -> bool {
    hosted_label(entry).is_some()
}

/// Whether the entry is a hosted MCP server (`mcp` or `mcp_toolset`): the provider fetches its
/// tools, which the capture does not list.
pub fn is_hosted_mcp(entry: &Value) -> bool {
    is_hosted(entry)
        && matches!(
            entry.get("type").and_then(Value::as_str),
            Some("mcp" | "mcp_toolset")
        )
}

/// The name people see: the entry's name, or a hosted entry's label, or empty.
pub fn label(entry: &Value) -> Cow<'_, str> {
    match hosted_label(entry) {
        Some(label) => Cow::Owned(label),
        None => Cow::Borrowed(name(entry).unwrap_or("")),
    }
}

/// The tool a `tool_choice` object forces, in [`label`] terms: the name of a function, custom or
/// Anthropic `tool` choice; a hosted label for a hosted type (`{"type":"web_search"}`,
/// `{"type":"mcp","server_label":…}`). `None` for modes (`auto`, `required`, `any`, `none`,
/// `allowed_tools`) and strings.
pub fn choice_label(choice: &Value) -> Option<Cow<'_, str>> {
    let object = choice.as_object()?;
    let named = choice
        .pointer("/function/name")
        .or_else(|| object.get("name"))
        .and_then(Value::as_str);
    match object.get("type").and_then(Value::as_str) {
        None | Some("function" | "custom" | "tool") => named.map(Cow::Borrowed),
        Some("auto" | "any" | "none" | "required" | "allowed_tools" | "") => None,
        Some(kind) => Some(Cow::Owned(type_label(object, kind))),
    }
}

/// The entry's description, when it is a string.
pub fn description(entry: &Value) -> Option<&str> {
    body(entry)?.get("description")?.as_str()
}

/// Replace the description where it was read from (or add it beside the name).
pub fn set_description(entry: &mut Value, text: String) {
    if let Some(body) = body_mut(entry) {
        body.insert("description".to_owned(), Value::String(text));
    }
}

/// The key the entry keeps its schema under, if it has one.
pub fn schema_key(entry: &Value) -> Option<&'static str> {
    let body = body(entry)?;
    SCHEMA_KEYS.into_iter().find(|key| body.contains_key(*key))
}

/// The entry's parameter schema, if any.
pub fn schema(entry: &Value) -> Option<&Value> {
    body(entry)?.get(schema_key(entry)?)
}

/// Mutable form of [`schema`].
pub fn schema_mut(entry: &mut Value) -> Option<&mut Value> {
    let key = schema_key(entry)?;
    body_mut(entry)?.get_mut(key)
}

/// Whether `name` is an MCP tool under the given prefixes (`mcp.prefixes`).
pub fn is_mcp(name: &str, prefixes: &[String]) -> bool {
    prefixes.iter().any(|p| name.starts_with(p.as_str()))
}

/// Compact JSON of a value (serde_json `to_string`, keys in document order).
pub fn compact(value: &Value) -> String {
    // Serializing a `Value` cannot fail: its keys are strings and it holds no foreign types.
    serde_json::to_string(value).unwrap_or_default()
}

/// Pretty JSON with two-space indentation.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
