//! What the session analysis reads from one request besides its tools: the thread it belongs
//! to, fingerprints of its system prompt and messages (to tell what broke a cache when the tools
//! did not), the adaptive selector's context, and the tools the model loaded via `tool_search`.

use std::collections::BTreeSet;
use std::hash::Hasher;

use rustc_hash::FxHasher;
use serde_json::Value;

use crate::capture::Capture;
use crate::settings::{Eligible, Settings};
use crate::strategies::zero::TOOL_SEARCH;
use crate::tool;

/// The key that groups a request into its thread (SESSIONS.md section 1, "Threads").
///
/// Anthropic `metadata.user_id` plus the sub-agent header plus a hash of the first system
/// block's text; OpenAI `prompt_cache_key`; else a hash of (model, system text, first user
/// message's text). Every hash is of text only: `cache_control` and other block metadata move
/// from turn to turn and never split a thread. The first system block keeps Claude Code's
/// compaction call ("You are a helpful AI assistant tasked with summarizing ...") and its side
/// calls out of the conversation; the model stays in the key as well (a side call under
/// another model is another conversation).
pub fn thread_key(capture: &Capture, agent_id: Option<&str>) -> String {
    let body = capture.body();
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let user = body
        .pointer("/metadata/user_id")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty());
    if let Some(user) = user {
        let mut key = format!("user_id {user}");
        if let Some(agent) = agent_id {
            key.push_str(&format!(" agent {agent}"));
        }
        if !model.is_empty() {
            key.push_str(&format!(" model {model}"));
        }
        if let Some(text) = first_system_text(capture) {
            key.push_str(&format!(" system {}", short_hash(&[&text])));
        }
        return key;
    }
    if let Some(cache_key) = body
        .get("prompt_cache_key")
        .and_then(Value::as_str)
        .filter(|k| !k.is_empty())
    {
        let mut key = format!("prompt_cache_key {cache_key}");
        if !model.is_empty() {
            key.push_str(&format!(" model {model}"));
        }
        return key;
    }
    let mut system = String::new();
    text_of(&system_value(capture), &mut system);
    let mut first = String::new();
    if let Some(message) = first_user_message(capture) {
        text_of(message, &mut first);
    }
    format!("hash {}", short_hash(&[model, &system, &first]))
}

/// 16 hex digits of a hash of these texts (each length-prefixed).
fn short_hash(parts: &[&str]) -> String {
    let mut hasher = blake3::Hasher::new();
    for part in parts {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().to_hex()[..16].to_owned()
}

/// The text of the first system block of a Messages request (`system` as a string, or its
/// text blocks). Claude Code's billing header block (`x-anthropic-billing-header: ...`, a
/// per-build tag) is passed over, and a one-line first block that another block follows (Claude
/// Code's identity line, "You are Claude Code, Anthropic's official CLI for Claude.", which its
/// compaction call and its conversation share) is taken with the block after it: in real
/// Claude Code traces it is the second block that tells the compaction call apart.
fn first_system_text(capture: &Capture) -> Option<String> {
    match capture.body().get("system")? {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .filter(|t| !t.starts_with("x-anthropic-billing-header"))
                .collect();
            let first = *texts.first()?;
            let one_line = first.len() < 200 && !first.trim().contains('\n');
            Some(match texts.get(1) {
                Some(next) if one_line => format!("{first}\n{next}"),
                _ => first.to_owned(),
            })
        }
        _ => None,
    }
}

/// The text a value holds: strings, and the `text` (else `content`) of blocks, in order.
/// Metadata such as `cache_control` or `type` is not text.
fn text_of(value: &Value, out: &mut String) {
    match value {
        Value::String(text) => {
            out.push_str(text);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|item| text_of(item, out)),
        Value::Object(map) => {
            if let Some(text) = map.get("text") {
                text_of(text, out);
            } else if let Some(content) = map.get("content") {
                text_of(content, out);
            }
        }
        _ => {}
    }
}

/// The system prompt as a value: Messages `system`, Responses `instructions`, and Chat or
/// Responses messages of role `system`/`developer`, in order.
fn system_value(capture: &Capture) -> Value {
    let body = capture.body();
    let mut parts = Vec::new();
    for key in ["system", "instructions"] {
        if let Some(value) = body.get(key) {
            parts.push(value.clone());
        }
    }
    // A Messages or Converse `role: "system"` message is appended mid-conversation (a tool
    // change, an instruction), not the thread's system prompt.
    let mid_conversation = matches!(
        capture.shape(),
        crate::capture::Shape::AnthropicMessages | crate::capture::Shape::BedrockConverse
    );
    for message in messages(capture) {
        if !mid_conversation
            && matches!(
                message.get("role").and_then(Value::as_str),
                Some("system" | "developer")
            )
        {
            parts.push(message.get("content").cloned().unwrap_or(Value::Null));
        }
    }
    Value::Array(parts)
}

/// The conversation's items.
fn messages(capture: &Capture) -> &[Value] {
    capture.conversation()
}

fn first_user_message(capture: &Capture) -> Option<&Value> {
    if let Some(Value::String(_)) = capture.body().get("input") {
        return capture.body().get("input");
    }
    messages(capture)
        .iter()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .map(|m| m.get("content").unwrap_or(m))
}

/// Feed a value to a hasher without serializing it, skipping `cache_control` keys.
pub(super) fn hash_value(value: &Value, hasher: &mut FxHasher) {
    match value {
        Value::Null => hasher.write_u8(0),
        Value::Bool(b) => hasher.write_u8(if *b { 1 } else { 2 }),
        Value::Number(n) => {
            hasher.write_u8(3);
            hasher.write(n.to_string().as_bytes());
        }
        Value::String(s) => {
            hasher.write_u8(4);
            hasher.write_usize(s.len());
            hasher.write(s.as_bytes());
        }
        Value::Array(items) => {
            hasher.write_u8(5);
            hasher.write_usize(items.len());
            for item in items {
                hash_value(item, hasher);
            }
        }
        Value::Object(map) => {
            hasher.write_u8(6);
            for (key, item) in map {
                if key == "cache_control" {
                    continue;
                }
                hasher.write_usize(key.len());
                hasher.write(key.as_bytes());
                hash_value(item, hasher);
            }
        }
    }
}

/// The adaptive selector's context for this request, exactly as a3s reads it: `adaptive.prompt`
/// when set, else the newest `a3s.context_messages` message texts joined with `\n`.
pub fn adaptive_context(capture: &Capture, settings: &Settings) -> String {
    if let Some(prompt) = &settings.adaptive_prompt {
        return prompt.clone();
    }
    let texts = capture.message_texts();
    let keep = settings.a3s_context_messages.min(texts.len());
    texts[texts.len() - keep..].join("\n")
}

/// Most tools one keyword query loads (zero's `tool_search`).
const KEYWORD_MATCHES: usize = 10;

/// The tools the conversation's `tool_search` calls ([`Conversation::queries`]) loaded:
/// `select:A,B` names exact
/// tools, keywords rank the eligible tools as zero does (name match 2, description match 1, the
/// best 10, ties in name order). Only tools eligible for deferring can be loaded.
pub fn tool_search_loads(
    capture: &Capture,
    queries: Vec<String>,
    settings: &Settings,
) -> BTreeSet<String> {
    let mut loaded = BTreeSet::new();
    if queries.is_empty() {
        return loaded;
    }
    let mut eligible: Vec<(&str, &str)> = capture
        .tools()
        .iter()
        .filter_map(|t| Some((tool::name(t)?, tool::description(t).unwrap_or(""))))
        .filter(|(name, _)| {
            *name != TOOL_SEARCH
                && match settings.defer_eligible {
                    Eligible::All => true,
                    Eligible::Mcp => settings.is_mcp(name),
                }
        })
        .collect();
    eligible.sort_by(|a, b| a.0.cmp(b.0));
    for query in queries {
        let query = query.trim();
        if let Some(list) = query.strip_prefix("select:") {
            for name in list.split(',').map(str::trim) {
                if eligible.iter().any(|(n, _)| *n == name) {
                    loaded.insert(name.to_owned());
                }
            }
            continue;
        }
        let keywords: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        if keywords.is_empty() {
            continue;
        }
        let mut ranked: Vec<(usize, usize)> = eligible
            .iter()
            .enumerate()
            .filter_map(|(order, (name, description))| {
                let (name, description) = (name.to_lowercase(), description.to_lowercase());
                let score: usize = keywords
                    .iter()
                    .map(|k| {
                        2 * name.contains(k.as_str()) as usize
                            + description.contains(k.as_str()) as usize
                    })
                    .sum();
                (score > 0).then_some((score, order))
            })
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, order) in ranked.into_iter().take(KEYWORD_MATCHES) {
            loaded.insert(eligible[order].0.to_owned());
        }
    }
    loaded
}

/// `tool_search` queries in one conversation item: Messages `tool_use` blocks, Chat
/// `tool_calls`, Responses `function_call` items (arguments as a JSON string or an object).
fn collect_queries(item: &Value, queries: &mut Vec<String>) {
    let is_search = |v: &Value| v.get("name").and_then(Value::as_str) == Some(TOOL_SEARCH);
    let query_of = |args: Option<&Value>| -> Option<String> {
        match args? {
            Value::String(text) => serde_json::from_str::<Value>(text)
                .ok()?
                .get("query")?
                .as_str()
                .map(str::to_owned),
            other => other.get("query")?.as_str().map(str::to_owned),
        }
    };
    match item.get("type").and_then(Value::as_str) {
        Some("function_call") if is_search(item) => {
            queries.extend(query_of(item.get("arguments")));
            return;
        }
        Some("tool_search_call") => {
            queries.extend(query_of(item.get("arguments")).or_else(|| query_of(Some(item))));
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(blocks)) = item.get("content") {
        for block in blocks {
            if block.get("type").and_then(Value::as_str) == Some("tool_use") && is_search(block) {
                queries.extend(query_of(block.get("input")));
            }
        }
    }
    if let Some(Value::Array(calls)) = item.get("tool_calls") {
        for call in calls {
            if let Some(function) = call.get("function")
                && is_search(function)
            {
                queries.extend(query_of(function.get("arguments")));
            }
        }
    }
}

/// What the session reads of a request's conversation, in one walk over its items.
#[derive(Debug, Default)]
pub struct Conversation {
    /// A fingerprint of the system prompt (`cache_control` markers ignored).
    pub system: u64,
    /// A fingerprint per conversation message (Messages and Chat `messages`, Responses `input`
    /// items), `cache_control` markers ignored: hosts move the marker to the newest message
    /// every turn, which changes no cached text. Empty unless asked for.
    pub messages: Vec<u64>,
    /// The tool calls it holds, each with a key that names the call (its id, else its name and
    /// arguments) and the tool's name: Messages `tool_use` blocks, Chat `tool_calls`,
    /// Responses `function_call` items.
    pub calls: Vec<(u64, String)>,
    /// Its `tool_search` queries ([`tool_search_loads`]). Empty unless asked for.
    pub queries: Vec<String>,
}

impl Conversation {
    /// Read a request's conversation: the message fingerprints only when `hashes`, the
    /// `tool_search` queries only when `queries`.
    pub fn read(capture: &Capture, hashes: bool, queries: bool) -> Conversation {
        let body = capture.body();
        let mut system = FxHasher::default();
        for key in ["system", "instructions"] {
            if let Some(value) = body.get(key) {
                system.write_u8(1);
                hash_value(value, &mut system);
            }
        }
        let mut read = Conversation::default();
        // Messages and Converse system messages are appended mid-conversation, not the prompt.
        let mid_conversation = matches!(
            capture.shape(),
            crate::capture::Shape::AnthropicMessages | crate::capture::Shape::BedrockConverse
        );
        for message in messages(capture) {
            if !mid_conversation
                && matches!(
                    message.get("role").and_then(Value::as_str),
                    Some("system" | "developer")
                )
            {
                system.write_u8(2);
                hash_value(message, &mut system);
            }
            if hashes {
                let mut hasher = FxHasher::default();
                hash_value(message, &mut hasher);
                read.messages.push(hasher.finish());
            }
            calls_in(message, &mut read.calls);
            if queries {
                collect_queries(message, &mut read.queries);
            }
        }
        read.system = system.finish();
        read
    }
}

/// The key that names a call: its id, else its name and arguments.
fn call_key(id: Option<&Value>, name: &str, args: Option<&Value>) -> u64 {
    let mut hasher = FxHasher::default();
    match id.and_then(Value::as_str) {
        Some(id) => {
            hasher.write_u8(1);
            hasher.write(id.as_bytes());
        }
        None => {
            hasher.write_u8(2);
            hasher.write(name.as_bytes());
            if let Some(args) = args {
                hash_value(args, &mut hasher);
            }
        }
    }
    hasher.finish()
}

/// The tool calls of one conversation item.
fn calls_in(item: &Value, calls: &mut Vec<(u64, String)>) {
    if item.get("type").and_then(Value::as_str) == Some("function_call")
        && let Some(name) = item.get("name").and_then(Value::as_str)
    {
        let id = item.get("call_id").or_else(|| item.get("id"));
        calls.push((call_key(id, name, item.get("arguments")), name.to_owned()));
        return;
    }
    if let Some(Value::Array(blocks)) = item.get("content") {
        for block in blocks {
            if matches!(
                block.get("type").and_then(Value::as_str),
                Some("tool_use" | "server_tool_use")
            ) && let Some(name) = block.get("name").and_then(Value::as_str)
            {
                let id = block.get("id");
                calls.push((call_key(id, name, block.get("input")), name.to_owned()));
            }
        }
    }
    if let Some(Value::Array(list)) = item.get("tool_calls") {
        for call in list {
            let Some(function) = call.get("function") else {
                continue;
            };
            if let Some(name) = function.get("name").and_then(Value::as_str) {
                let id = call.get("id");
                calls.push((
                    call_key(id, name, function.get("arguments")),
                    name.to_owned(),
                ));
            }
        }
    }
}
