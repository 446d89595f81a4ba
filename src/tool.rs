//! Reading and writing the parts of one tool entry, whatever its API shape.
//!
//! An entry's name is `function.name` when it has a `function` object (Chat Completions), else
//! `name`. Its description and schema live beside the name: `description` and `input_schema`
//! (Messages), `parameters` (Chat, Responses), `inputSchema` (MCP).

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
