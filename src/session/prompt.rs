//! A request's prompt as the provider caches it: blocks in provider order (SESSIONS.md
//! section 3). The tools come first; this module splits what follows them (the system prompt
//! and the conversation) into blocks, each with a hash of its content (`cache_control` left
//! out: the marker moves, the cached text does not) and its `cache_control` breakpoint.

use std::hash::Hasher;

use rustc_hash::FxHasher;
use serde_json::Value;

use crate::capture::{Capture, Shape};

/// How long a breakpoint asks its prefix to live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ttl {
    /// The default (Anthropic 5 minutes, refreshed by each read).
    Short,
    /// `"ttl": "1h"`.
    Long,
}

/// One block of the prompt after the tools.
#[derive(Debug, Clone, Copy)]
pub struct Piece<'a> {
    /// Its content, `cache_control` left out, with its place (system or message role).
    pub hash: u64,
    /// The `cache_control` breakpoint it carries (Messages only).
    pub mark: Option<Ttl>,
    /// What is counted: the text, for text the provider reads as text whatever its spelling
    /// (a string `content`, a single `text` block); else the compact JSON.
    pub value: Canon<'a>,
    /// A Gemini model content of the current function-calling cycle that sends its thought
    /// signature back: the provider bills the thoughts behind it again
    /// ([`super::media::reread_thoughts`]).
    pub thoughts: bool,
}

/// A block's content as the provider tokenizes it, not as the JSON spells it (SESSIONS.md
/// section 3, "Equivalent spellings"): Anthropic renders a string `content` and a `text` block
/// of the same text alike, and a `system` string like one `text` block; OpenAI a message whose
/// `content` is a string like one whose parts are all text.
#[derive(Debug, Clone, Copy)]
pub enum Canon<'a> {
    /// Plain text.
    Text(&'a str),
    /// Text split over several parts (counted as their concatenation).
    Parts(&'a [Value]),
    /// Anything else: its JSON (object keys in any order, `null` fields and `cache_control`
    /// left out of its identity).
    Json(&'a Value),
}

/// The text of a `text` block (Anthropic `text`, OpenAI `text` / `input_text` /
/// `output_text`) whose other fields change nothing the model reads.
fn block_text(value: &Value) -> Option<&str> {
    let Value::Object(map) = value else {
        return None;
    };
    // A Gemini text part: `text`, perhaps with the signature of the thought behind it (not
    // prompt tokens).
    if !map.contains_key("type") {
        let gemini = map
            .iter()
            .all(|(k, v)| k == "text" && v.is_string() || is_signature(k) || v.is_null());
        return gemini
            .then(|| map.get("text").and_then(Value::as_str))
            .flatten();
    }
    let kind = map.get("type").and_then(Value::as_str)?;
    if !matches!(kind, "text" | "input_text" | "output_text") {
        return None;
    }
    let inert = |key: &str, item: &Value| {
        matches!(key, "type" | "text" | "cache_control")
            || item.is_null()
            || (key == "annotations" && item.as_array().is_some_and(Vec::is_empty))
    };
    if !map.iter().all(|(k, v)| inert(k, v)) {
        return None;
    }
    map.get("text").and_then(Value::as_str)
}

/// A value's canonical content: a string or a lone text block is its text.
pub fn canon(value: &Value) -> Canon<'_> {
    if let Value::String(text) = value {
        return Canon::Text(text);
    }
    if let Some(text) = block_text(value) {
        return Canon::Text(text);
    }
    if let Value::Array(parts) = value {
        if let [only] = parts.as_slice()
            && let Some(text) = block_text(only)
        {
            return Canon::Text(text);
        }
        if !parts.is_empty() && parts.iter().all(|p| block_text(p).is_some()) {
            return Canon::Parts(parts);
        }
    }
    Canon::Json(value)
}

/// An OpenAI message or input item as the provider renders it: a plain message (role and
/// content only) is its role and its content's canonical text.
fn openai_item(item: &Value) -> Option<(&str, Canon<'_>)> {
    let Value::Object(map) = item else {
        return None;
    };
    let inert = |key: &str, value: &Value| {
        matches!(key, "role" | "content")
            || value.is_null()
            || (key == "type" && value == "message")
    };
    if !map.iter().all(|(k, v)| inert(k, v)) {
        return None;
    }
    let role = map.get("role").and_then(Value::as_str)?;
    match canon(map.get("content")?) {
        Canon::Json(_) => None,
        content => Some((role, content)),
    }
}

/// A Chat message's breakpoint: OpenRouter and gateways in front of Claude take Anthropic's
/// `cache_control` on a content part (or on the message); the message is the block.
fn chat_mark(item: &Value) -> Option<Ttl> {
    let parts = item.get("content").and_then(Value::as_array);
    parts
        .into_iter()
        .flatten()
        .filter_map(mark_of)
        .max_by_key(|ttl| *ttl == Ttl::Long)
        .or_else(|| mark_of(item))
}

/// The breakpoint a block's `cache_control` sets, if any.
pub fn mark_of(value: &Value) -> Option<Ttl> {
    let control = value.get("cache_control")?;
    if !control.is_object() {
        return None;
    }
    Some(match control.get("ttl").and_then(Value::as_str) {
        Some("1h") => Ttl::Long,
        _ => Ttl::Short,
    })
}

/// The blocks of the prompt other than the tools, in provider order, and how many of them
/// come before the tools. Messages: the tools first, then `system`, then each message's content
/// blocks (a top-level `cache_control`, automatic caching, marks the last block). OpenAI
/// renders the instructions before the tools (Responses `instructions` and the leading
/// `system`/`developer` messages), then the conversation: each Chat message or Responses
/// `input` item is a block.
pub fn pieces<'a>(capture: &'a Capture, model: &str) -> (Vec<Piece<'a>>, usize) {
    let body = capture.body();
    let mut out = Vec::new();
    let mut head = 0;
    match capture.shape() {
        Shape::AnthropicMessages => {
            match body.get("system") {
                Some(value @ Value::String(_)) => out.push(piece(1, value, None)),
                Some(Value::Array(blocks)) => {
                    for block in blocks {
                        out.push(piece(1, block, mark_of(block)));
                    }
                }
                _ => {}
            }
            if let Some(Value::Array(messages)) = body.get("messages") {
                message_pieces(messages, capture.tools(), model, &mut out);
            }
            if let Some(mark) = mark_of(body)
                && let Some(last) = out.last_mut()
            {
                last.mark = last.mark.or(Some(mark));
            }
        }
        Shape::OpenAiChat | Shape::OpenAiResponses => {
            if let Some(instructions) = body.get("instructions") {
                out.push(piece(1, instructions, None));
            }
            let list = match capture.shape() {
                Shape::OpenAiChat => body.get("messages"),
                _ => body.get("input"),
            };
            match list {
                Some(Value::Array(items)) => {
                    let mut leading = true;
                    let turn = earlier_reasoning_dropped(capture).then(|| {
                        items
                            .iter()
                            .rposition(|i| i.get("role").and_then(Value::as_str) == Some("user"))
                            .unwrap_or(0)
                    });
                    for (at, item) in items.iter().enumerate() {
                        let role = item.get("role").and_then(Value::as_str);
                        leading &= matches!(role, Some("system" | "developer"));
                        let is_reasoning =
                            item.get("type").and_then(Value::as_str) == Some("reasoning");
                        if is_reasoning && turn.is_some_and(|start| at < start) {
                            out.push(uncounted(item));
                            continue;
                        }
                        let mut block = item_piece(item);
                        block.mark = chat_mark(item);
                        out.push(block);
                        if leading {
                            head = out.len();
                        }
                    }
                    if head == 0 && body.get("instructions").is_some() {
                        head = 1;
                    }
                }
                Some(input) => {
                    head = out.len();
                    // A string `input` is one user message.
                    out.push(match input {
                        Value::String(text) => text_piece(4, "user", text),
                        other => piece(4, other, None),
                    });
                }
                None => head = out.len(),
            }
        }
        // Bedrock Converse: each system block, then each message's content blocks; a
        // `cachePoint` block is a breakpoint after the block before it.
        Shape::BedrockConverse => {
            let push = |out: &mut Vec<Piece<'a>>, place: u8, block: &'a Value| {
                if block.get("cachePoint").is_some() {
                    if let Some(last) = out.last_mut() {
                        last.mark = Some(Ttl::Short);
                    }
                } else {
                    out.push(piece(place, block, None));
                }
            };
            if let Some(Value::Array(blocks)) = body.get("system") {
                for block in blocks {
                    push(&mut out, 1, block);
                }
            }
            if let Some(Value::Array(messages)) = body.get("messages") {
                for message in messages {
                    let role = match message.get("role").and_then(Value::as_str) {
                        Some("assistant") => 3,
                        _ => 2,
                    };
                    if let Some(Value::Array(blocks)) = message.get("content") {
                        for block in blocks {
                            push(&mut out, role, block);
                        }
                    }
                }
            }
        }
        // Gemini: the system instruction, then each content, unmarked (implicit caching).
        Shape::GeminiGenerateContent => {
            let (system, list) = ("systemInstruction", "contents");
            if let Some(system) = body.get(system) {
                out.push(gemini_piece(1, system));
                head = out.len();
            }
            if let Some(Value::Array(items)) = body.get(list) {
                gemini_contents(items, model, &mut out);
            }
        }
        Shape::McpToolsList => {}
    }
    // The output schema, last: two OpenAI requests whose messages share a prefix read it
    // though their schemas differ (crewAI's recordings). Where the other providers put it is
    // not published: last there too, where it moves no cached prefix.
    if let Some(schema) = output_schema(capture) {
        out.push(piece(7, schema, None));
    }
    (out, head)
}

/// How many of [`pieces`]' blocks of a Messages request come before its message `n`: the
/// `system` blocks, then each earlier message's content blocks (where `append` places a
/// system message after `n` messages).
pub fn pieces_before_message(capture: &Capture, n: usize) -> usize {
    let body = capture.body();
    let system = match body.get("system") {
        Some(Value::String(_)) => 1,
        Some(Value::Array(blocks)) => blocks.len(),
        _ => 0,
    };
    let messages = capture.conversation();
    let blocks: usize = messages[..n.min(messages.len())]
        .iter()
        .map(|m| match m.get("content") {
            Some(Value::Array(blocks)) => blocks.len(),
            Some(_) => 1,
            None => 0,
        })
        .sum();
    system + blocks
}

/// Each Messages message's content blocks: the thinking of an assistant turn before the
/// current tool-use cycle counted as nothing where the model strips it.
fn message_pieces<'a>(
    messages: &'a [Value],
    tools: &'a [Value],
    model: &str,
    out: &mut Vec<Piece<'a>>,
) {
    let cycle = strips_earlier_thinking(model).then(|| tool_cycle_start(messages));
    for (at, message) in messages.iter().enumerate() {
        let role = match message.get("role").and_then(Value::as_str) {
            Some("assistant") => 3,
            _ => 2,
        };
        let stripped = cycle.is_some_and(|start| at < start);
        match message.get("content") {
            Some(Value::Array(blocks)) => {
                for block in blocks {
                    out.push(match thinking_text(block) {
                        Some(_) if stripped => uncounted(block),
                        Some(text) => Piece {
                            value: Canon::Text(text),
                            ..piece(role, block, mark_of(block))
                        },
                        None => match offered_definition(block, tools) {
                            // The definition a reference offers is rendered where it stands.
                            Some(entry) => Piece {
                                value: Canon::Json(entry),
                                ..piece(role, block, mark_of(block))
                            },
                            None => piece(role, block, mark_of(block)),
                        },
                    });
                    // The deferred tools a tool search returned, or a `mid_conv_system` block
                    // offers, are rendered after it (their definitions are input tokens).
                    for entry in loaded_definitions(block, tools) {
                        out.push(piece(role, entry, None));
                    }
                }
            }
            Some(content) => out.push(piece(role, content, mark_of(message))),
            None => {}
        }
    }
}

/// The declared `defer_loading: true` entry a `tool_addition` block offers by `tool_reference`:
/// out of the context until then, its definition is rendered where the block stands
/// (PROVIDERS.md 1.4, as the tool search's references are).
fn offered_definition<'a>(block: &Value, tools: &'a [Value]) -> Option<&'a Value> {
    if block.get("type").and_then(Value::as_str) != Some("tool_addition") {
        return None;
    }
    let tool = block.get("tool")?;
    if tool.get("type").and_then(Value::as_str) != Some("tool_reference") {
        return None;
    }
    let name = tool.get("name").and_then(Value::as_str)?;
    tools
        .iter()
        .find(|e| crate::tool::name(e) == Some(name))
        .filter(|e| crate::tool::provider_deferred(e))
}

/// The declared `defer_loading: true` entries a block brings into context after it: those a
/// tool search result returns (`tool_search_tool_result`'s `tool_references`, or
/// `tool_reference` blocks in a custom search's `tool_result`), and those the `tool_addition`
/// blocks of an SDK `mid_conv_system` block offer by `tool_reference`.
fn loaded_definitions<'a>(block: &Value, tools: &'a [Value]) -> Vec<&'a Value> {
    let deferred = |name: &str| {
        tools
            .iter()
            .find(|e| crate::tool::name(e) == Some(name))
            .filter(|e| crate::tool::provider_deferred(e))
    };
    let names: Vec<&str> = match block.get("type").and_then(Value::as_str) {
        Some("tool_search_tool_result") => block
            .pointer("/content/tool_references")
            .and_then(Value::as_array)
            .map(|refs| {
                refs.iter()
                    .filter_map(|r| r.get("tool_name").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default(),
        Some("tool_result") => block
            .get("content")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter(|i| i.get("type").and_then(Value::as_str) == Some("tool_reference"))
                    .filter_map(|i| i.get("tool_name").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default(),
        Some("mid_conv_system") => {
            let inner = block.get("content").and_then(Value::as_array);
            return inner
                .into_iter()
                .flatten()
                .filter_map(|b| offered_definition(b, tools))
                .collect();
        }
        _ => Vec::new(),
    };
    names.into_iter().filter_map(deferred).collect()
}

/// The models whose API strips the thinking blocks of earlier assistant turns from the
/// context (they are neither seen nor billed): Claude 3.7 Sonnet, Sonnet 4 and 4.5, Haiku
/// 4.5, Opus 4 and 4.1 (Anthropic, *Context windows*: "previous thinking blocks are
/// automatically stripped from the context window calculation"). Opus 4.5 and later keep
/// them by default, and so does any model not named here.
fn strips_earlier_thinking(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    let any = |names: &[&str]| names.iter().any(|n| m.contains(n));
    any(&[
        "3-7-sonnet",
        "sonnet-4-0",
        "sonnet-4-2",
        "sonnet-4-5",
        "sonnet-4@",
        "haiku-4-5",
        "opus-4-0",
        "opus-4-2",
        "opus-4-1",
        "opus-4@",
    ]) || m.ends_with("sonnet-4")
        || m.ends_with("opus-4")
}

/// Whether the Responses API leaves the `reasoning` items of turns before the last user
/// message out of the context: it does unless the request asks for `reasoning.context:
/// "all_turns"` (OpenAI, *Conversation state*). Chat requests carry no such items.
fn earlier_reasoning_dropped(capture: &Capture) -> bool {
    capture.shape() == Shape::OpenAiResponses
        && capture
            .body()
            .pointer("/reasoning/context")
            .and_then(Value::as_str)
            != Some("all_turns")
}

/// Where the current tool-use cycle starts: after the last user message that is not only
/// tool results. The thinking of assistant turns within it is part of the context.
fn tool_cycle_start(messages: &[Value]) -> usize {
    let real_user = |m: &Value| {
        m.get("role").and_then(Value::as_str) == Some("user")
            && match m.get("content") {
                Some(Value::Array(blocks)) => blocks
                    .iter()
                    .any(|b| b.get("type").and_then(Value::as_str) != Some("tool_result")),
                _ => true,
            }
    };
    messages.iter().rposition(real_user).unwrap_or(0)
}

/// A `thinking` block's text (its signature is no prompt text), or `""` for a
/// `redacted_thinking` one (its payload is encrypted); `None` for any other block.
fn thinking_text(block: &Value) -> Option<&str> {
    match block.get("type").and_then(Value::as_str)? {
        "thinking" => Some(block.get("thinking").and_then(Value::as_str).unwrap_or("")),
        "redacted_thinking" => Some(""),
        _ => None,
    }
}

/// A block the provider leaves out of the context: counted as nothing, and not the block it
/// is in the current cycle (stripping it changes the prompt the cache holds).
fn uncounted(block: &Value) -> Piece<'_> {
    Piece {
        value: Canon::Text(""),
        ..piece(8, block, None)
    }
}

/// The schema a request asks the answer to follow (structured outputs): the provider puts it
/// in the prompt and bills it as input. OpenAI Chat `response_format.json_schema`, Responses
/// `text.format`, Gemini `generationConfig.responseSchema` / `responseJsonSchema`, Anthropic
/// `output_format` / `output_config.format`.
fn output_schema(capture: &Capture) -> Option<&Value> {
    let body = capture.body();
    let found = match capture.shape() {
        Shape::OpenAiChat => body
            .pointer("/response_format/json_schema")
            .or_else(|| body.pointer("/response_format/schema")),
        Shape::OpenAiResponses => body
            .pointer("/text/format")
            .filter(|f| f.get("type").and_then(Value::as_str) == Some("json_schema")),
        Shape::GeminiGenerateContent => body
            .pointer("/generationConfig/responseSchema")
            .or_else(|| body.pointer("/generationConfig/responseJsonSchema"))
            .or_else(|| body.pointer("/generationConfig/response_schema")),
        Shape::AnthropicMessages => body
            .get("output_format")
            .or_else(|| body.pointer("/output_config/format")),
        Shape::BedrockConverse | Shape::McpToolsList => None,
    };
    found.filter(|v| v.is_object())
}

fn piece(place: u8, value: &Value, mark: Option<Ttl>) -> Piece<'_> {
    let mut hasher = FxHasher::default();
    hasher.write_u8(place);
    let value = canon(value);
    hash_canon(value, &mut hasher);
    Piece {
        hash: hasher.finish(),
        mark,
        value,
        thoughts: false,
    }
}

/// An OpenAI message or input item: a plain one by its role and canonical text (a string
/// `content` and the same text as one part are one block), anything else by its JSON.
fn item_piece(item: &Value) -> Piece<'_> {
    let Some((role, content)) = openai_item(item) else {
        return piece(4, item, None);
    };
    let mut hasher = FxHasher::default();
    hasher.write_u8(4);
    hasher.write(role.as_bytes());
    hasher.write_u8(0xff);
    hash_canon(content, &mut hasher);
    Piece {
        hash: hasher.finish(),
        mark: None,
        value: content,
        thoughts: false,
    }
}

/// A piece of plain text in a role.
fn text_piece<'a>(place: u8, role: &str, text: &'a str) -> Piece<'a> {
    let mut hasher = FxHasher::default();
    hasher.write_u8(place);
    hasher.write(role.as_bytes());
    hasher.write_u8(0xff);
    hash_canon(Canon::Text(text), &mut hasher);
    Piece {
        hash: hasher.finish(),
        mark: None,
        value: Canon::Text(text),
        thoughts: false,
    }
}

/// Hash canonical content: text by its characters (however many parts hold it), JSON with
/// object keys in sorted order and `null` fields and `cache_control` left out.
fn hash_canon(value: Canon<'_>, hasher: &mut FxHasher) {
    match value {
        Canon::Text(text) => {
            hasher.write_u8(b't');
            hasher.write(text.as_bytes());
        }
        Canon::Parts(parts) => {
            // One write of the whole text: a hasher's writes are not a stream, so parts split
            // anywhere else must hash as the same text.
            hasher.write_u8(b't');
            let text: String = parts.iter().filter_map(block_text).collect();
            hasher.write(text.as_bytes());
        }
        Canon::Json(value) => {
            hasher.write_u8(b'j');
            hash_json(value, hasher);
        }
    }
}

fn hash_json(value: &Value, hasher: &mut FxHasher) {
    match value {
        Value::Object(map) => {
            hasher.write_u8(6);
            let mut keys: Vec<(&String, &Value)> = map
                .iter()
                .filter(|(k, v)| *k != "cache_control" && !v.is_null())
                .collect();
            keys.sort_unstable_by(|a, b| a.0.cmp(b.0));
            for (key, item) in keys {
                hasher.write_usize(key.len());
                hasher.write(key.as_bytes());
                hash_json(item, hasher);
            }
        }
        Value::Array(items) => {
            hasher.write_u8(5);
            hasher.write_usize(items.len());
            for item in items {
                hash_json(item, hasher);
            }
        }
        other => super::context::hash_value(other, hasher),
    }
}

/// The text a piece is counted as: its text, else the compact JSON.
pub fn text(value: Canon<'_>) -> String {
    match value {
        Canon::Text(text) => text.to_owned(),
        Canon::Parts(parts) => parts.iter().filter_map(block_text).collect(),
        Canon::Json(other) => match without_signatures(other, 0) {
            Some(stripped) => serde_json::to_string(&stripped).unwrap_or_default(),
            None => serde_json::to_string(other).unwrap_or_default(),
        },
    }
}

/// A hash of a tool entry's content, `cache_control` left out.
pub fn entry_hash(value: &Value) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write_u8(0);
    super::context::hash_value(value, &mut hasher);
    hasher.finish()
}

/// A hash of text a strategy adds outside the tools.
pub fn text_hash(text: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write_u8(5);
    hasher.write(text.as_bytes());
    hasher.finish()
}

/// The running hash of a prefix: the hash before it, extended by one block.
pub fn extend(prefix: u64, block: u64) -> u64 {
    // splitmix64 of the pair: cheap, and a prefix's hash depends on every block and its order.
    let mut z = prefix
        .rotate_left(29)
        .wrapping_add(block)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The hash every prompt of this provider family and model starts from: a provider keeps one
/// cache per model.
pub fn seed(shape: Shape, model: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write_u8(matches!(shape, Shape::OpenAiChat | Shape::OpenAiResponses) as u8);
    hasher.write(model.as_bytes());
    hasher.finish()
}

#[path = "prompt_gemini.rs"]
mod gemini;
use gemini::{gemini_contents, gemini_piece, is_signature, without_signatures};

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
