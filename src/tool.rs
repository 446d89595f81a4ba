//! Reading and writing the parts of one tool entry, whatever its API shape.
//!
//! An entry's name is `function.name` when it has a `function` object (Chat Completions),
//! `custom.name` for a Chat `custom` tool, `toolSpec.name` for Bedrock Converse, else `name`
//! (Messages, Responses, MCP, a Gemini function declaration). Its description and schema live
//! beside the name: `description` and `input_schema` (Messages), `parameters` (Chat, Responses,
//! Gemini), `parametersJsonSchema` (Gemini), `inputSchema` (MCP; Converse's `inputSchema.json`).
//!
//! A *hosted* entry has no name but a `type` the provider runs or expands itself (Responses
//! `{"type":"web_search"}`, a remote `{"type":"mcp",…}`, Anthropic's `mcp_toolset`). It is
//! labelled by its type in angle brackets ([`label`]); no function tool's name can hold `<`, so a
//! label never collides with a name.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// Schema keys in the order they are looked for.
const SCHEMA_KEYS: [&str; 5] = [
    "input_schema",
    "parameters",
    "inputSchema",
    "parametersJsonSchema",
    "parameters_json_schema",
];

/// Objects with at most this many keys are searched by scanning their keys in order.
const SMALL_OBJECT: usize = 12;

/// `object[key]`: a tool entry has a handful of keys, and scanning them is several times faster
/// than hashing the key with serde_json's map (a 100,000-tool report spent about a fifth of its
/// time hashing keys in these accessors; docs/SPEED.md).
pub fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if object.len() <= SMALL_OBJECT {
        object.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        object.get(key)
    }
}

/// [`field`] of an entry that may not be an object.
fn entry_field<'a>(entry: &'a Value, key: &str) -> Option<&'a Value> {
    field(entry.as_object()?, key)
}

/// The key of the object that holds name, description and schema, when it is not the entry
/// itself: `function` (Chat), `custom` (a Chat custom tool), `toolSpec` (Bedrock Converse).
fn inner_key(object: &Map<String, Value>) -> Option<&'static str> {
    if matches!(field(object, "function"), Some(Value::Object(_))) {
        return Some("function");
    }
    if matches!(field(object, "toolSpec"), Some(Value::Object(_))) {
        return Some("toolSpec");
    }
    // A Responses custom tool is flat (`name` beside `type`); only Chat nests it.
    if field(object, "type").and_then(Value::as_str) == Some("custom")
        && matches!(field(object, "custom"), Some(Value::Object(_)))
    {
        return Some("custom");
    }
    None
}

/// The object that holds name, description and schema: `function` for Chat entries, `custom`
/// for Chat custom tools, `toolSpec` for Converse entries, else the entry itself.
pub fn body(entry: &Value) -> Option<&Map<String, Value>> {
    let object = entry.as_object()?;
    match inner_key(object) {
        Some(key) => field(object, key)?.as_object(),
        None => Some(object),
    }
}

/// Mutable form of [`body`].
pub fn body_mut(entry: &mut Value) -> Option<&mut Map<String, Value>> {
    let object = entry.as_object_mut()?;
    match inner_key(object) {
        Some(key) => object.get_mut(key)?.as_object_mut(),
        None => Some(object),
    }
}

/// Whether the entry has a usable name: a non-empty string where [`name`] reads it.
pub fn has_name(entry: &Value) -> bool {
    name(entry).is_some_and(|name| !name.is_empty())
}

/// Whether every strategy passes the entry through untouched: it has no usable name (a hosted
/// entry, or one the provider would reject).
pub fn passes_through(entry: &Value) -> bool {
    !has_name(entry)
}

/// The entry's name, when it is a string.
pub fn name(entry: &Value) -> Option<&str> {
    field(body(entry)?, "name")?.as_str()
}

/// `type` values that mark a function tool, which must carry its own name: never hosted.
const FUNCTION_TYPES: [&str; 2] = ["function", "custom"];

/// Keys of a type-less entry the provider runs itself: Gemini's built-in tools (in both the
/// REST API's camelCase and the proto's snake_case spellings) and Converse's cache point.
const HOSTED_KEYS: [&str; 18] = [
    "googleSearch",
    "google_search",
    "googleSearchRetrieval",
    "google_search_retrieval",
    "codeExecution",
    "code_execution",
    "urlContext",
    "url_context",
    "retrieval",
    "computerUse",
    "computer_use",
    "fileSearch",
    "file_search",
    "googleMaps",
    "google_maps",
    "enterpriseWebSearch",
    "enterprise_web_search",
    "cachePoint",
];

/// The label of a hosted entry: `<type>`, `<mcp:server_label>` for a remote MCP server,
/// `<mcp_toolset:mcp_server_name>` for Anthropic's MCP toolset. `None` when the entry has a
/// usable (non-empty string) name, is a Chat entry (`function` object), or has no non-empty
/// string `type` other than `function`/`custom`.
pub fn hosted_label(entry: &Value) -> Option<String> {
    let object = entry.as_object()?;
    if field(object, "function").is_some() || has_name(entry) {
        return None;
    }
    if field(object, "type").is_none() {
        // Gemini `{"googleSearch":{}}`, Converse `{"cachePoint":{"type":"default"}}`.
        return HOSTED_KEYS
            .into_iter()
            .find(|key| field(object, key).is_some_and(Value::is_object))
            .map(|key| format!("<{key}>"));
    }
    let kind = field(object, "type")?.as_str()?;
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
        .and_then(|key| field(object, key))
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
            entry_field(entry, "type").and_then(Value::as_str),
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
        .or_else(|| field(object, "name"))
        .and_then(Value::as_str);
    match field(object, "type").and_then(Value::as_str) {
        None | Some("function" | "custom" | "tool") => named.map(Cow::Borrowed),
        Some("auto" | "any" | "none" | "required" | "allowed_tools" | "") => None,
        Some(kind) => Some(Cow::Owned(type_label(object, kind))),
    }
}

/// The entry's description, when it is a string.
pub fn description(entry: &Value) -> Option<&str> {
    field(body(entry)?, "description")?.as_str()
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
    SCHEMA_KEYS
        .into_iter()
        .find(|key| field(body, key).is_some())
}

/// Whether the schema sits one level down, in `inputSchema.json` (Bedrock Converse).
fn schema_in_json(entry: &Value) -> bool {
    entry_field(entry, "toolSpec").is_some_and(Value::is_object)
        && body(entry)
            .and_then(|body| body.get("inputSchema"))
            .is_some_and(|schema| schema.get("json").is_some())
}

/// The entry's parameter schema, if any (the body is found once: this runs per entry for every
/// strategy).
pub fn schema(entry: &Value) -> Option<&Value> {
    let body = body(entry)?;
    let value = SCHEMA_KEYS.into_iter().find_map(|key| field(body, key))?;
    let in_json = entry_field(entry, "toolSpec").is_some_and(Value::is_object)
        && field(body, "inputSchema").is_some_and(|schema| schema.get("json").is_some());
    if in_json {
        return value.get("json");
    }
    Some(value)
}

/// Mutable form of [`schema`].
pub fn schema_mut(entry: &mut Value) -> Option<&mut Value> {
    let key = schema_key(entry)?;
    let in_json = schema_in_json(entry);
    let value = body_mut(entry)?.get_mut(key)?;
    if in_json {
        return value.get_mut("json");
    }
    Some(value)
}

/// Whether `name` is an MCP tool under the given prefixes (`mcp.prefixes`).
pub fn is_mcp(name: &str, prefixes: &[String]) -> bool {
    prefixes.iter().any(|p| name.starts_with(p.as_str()))
}

/// The server label toolprism derives from a tool's name: `mcp__server__tool` and
/// `mcp--server--tool` give the segment between the first two separators; otherwise
/// `mcp_server_tool` gives the text between `mcp_` and the next `_`. None when that segment is
/// empty or nothing follows it.
pub fn server_label(name: &str) -> Option<&str> {
    for separator in ["__", "--"] {
        let prefix = format!("mcp{separator}");
        if let Some(rest) = name.strip_prefix(prefix.as_str()) {
            return mcp_segment(rest, separator);
        }
    }
    mcp_segment(name.strip_prefix("mcp_")?, "_")
}

/// The text before the first `separator` in `rest`, when it is non-empty and something follows
/// the separator.
pub(crate) fn mcp_segment<'a>(rest: &'a str, separator: &str) -> Option<&'a str> {
    let at = rest.find(separator)?;
    (at > 0 && at + separator.len() < rest.len()).then(|| &rest[..at])
}

/// Whether an entry is marked for provider-side deferral (`defer_loading: true`, STRATEGIES.md
/// section 5): sent, but out of the model's context until a search returns it.
pub fn provider_deferred(entry: &Value) -> bool {
    entry_field(entry, "defer_loading").and_then(Value::as_bool) == Some(true)
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
