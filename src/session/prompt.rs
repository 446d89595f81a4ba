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
    /// The value whose compact JSON is counted (a string is counted as its text).
    pub value: &'a Value,
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
pub fn pieces(capture: &Capture) -> (Vec<Piece<'_>>, usize) {
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
                for message in messages {
                    let role = match message.get("role").and_then(Value::as_str) {
                        Some("assistant") => 3,
                        _ => 2,
                    };
                    match message.get("content") {
                        Some(Value::Array(blocks)) => {
                            for block in blocks {
                                out.push(piece(role, block, mark_of(block)));
                            }
                        }
                        Some(content) => out.push(piece(role, content, mark_of(message))),
                        None => {}
                    }
                }
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
                    for item in items {
                        let role = item.get("role").and_then(Value::as_str);
                        leading &= matches!(role, Some("system" | "developer"));
                        out.push(piece(4, item, None));
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
                    out.push(piece(4, input, None));
                }
                None => head = out.len(),
            }
        }
        // Gemini: the system instruction, then each content; Bedrock Converse: the system
        // blocks, then each message. Neither carries Anthropic-style breakpoints here, so they
        // are read as unmarked blocks.
        Shape::GeminiGenerateContent | Shape::BedrockConverse => {
            let (system, list) = match capture.shape() {
                Shape::GeminiGenerateContent => ("systemInstruction", "contents"),
                _ => ("system", "messages"),
            };
            if let Some(system) = body.get(system) {
                out.push(piece(1, system, None));
                head = out.len();
            }
            if let Some(Value::Array(items)) = body.get(list) {
                for item in items {
                    out.push(piece(4, item, None));
                }
            }
        }
        Shape::McpToolsList => {}
    }
    (out, head)
}

fn piece(place: u8, value: &Value, mark: Option<Ttl>) -> Piece<'_> {
    let mut hasher = FxHasher::default();
    hasher.write_u8(place);
    super::context::hash_value(value, &mut hasher);
    Piece {
        hash: hasher.finish(),
        mark,
        value,
    }
}

/// The text a piece is counted as: a string's text, else the compact JSON.
pub fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn capture(body: Value) -> Capture {
        Capture::from_value(body).unwrap()
    }

    #[test]
    fn a_moved_marker_changes_no_hash() {
        let a = capture(
            json!({"model": "m", "system": [{"type": "text", "text": "s",
            "cache_control": {"type": "ephemeral"}}], "messages": [{"role": "user",
            "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}],
            "tools": [{"name": "a", "input_schema": {}}]}),
        );
        let b = capture(
            json!({"model": "m", "system": [{"type": "text", "text": "s"}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
            "tools": [{"name": "a", "input_schema": {}}]}),
        );
        let (pa, pb) = (pieces(&a).0, pieces(&b).0);
        assert_eq!(pa.len(), 2);
        assert_eq!(
            pa.iter().map(|p| p.hash).collect::<Vec<_>>(),
            pb.iter().map(|p| p.hash).collect::<Vec<_>>()
        );
        assert_eq!(pa[0].mark, Some(Ttl::Short));
        assert_eq!(pb[1].mark, None);
    }

    #[test]
    fn one_hour_breakpoints_and_automatic_caching() {
        let a = capture(json!({"model": "m", "cache_control": {"type": "ephemeral"},
            "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral",
            "ttl": "1h"}}], "messages": [{"role": "user", "content": "hi"}], "tools": []}));
        let p = pieces(&a).0;
        assert_eq!(p[0].mark, Some(Ttl::Long));
        assert_eq!(p[1].mark, Some(Ttl::Short));
    }

    #[test]
    fn roles_tell_blocks_apart_and_prefixes_depend_on_order() {
        let a = capture(
            json!({"model": "m", "messages": [{"role": "user", "content": "x"},
            {"role": "assistant", "content": "x"}], "tools": []}),
        );
        let p = pieces(&a).0;
        assert_ne!(p[0].hash, p[1].hash);
        assert_ne!(extend(extend(1, 2), 3), extend(extend(1, 3), 2));
    }

    #[test]
    fn openai_instructions_come_before_the_tools() {
        let chat = capture(json!({"model": "gpt-4o", "messages": [{"role": "system",
            "content": "s"}, {"role": "user", "content": "u"}], "tools": []}));
        assert_eq!(pieces(&chat).1, 1);
        let responses = capture(json!({"model": "gpt-5", "instructions": "i",
            "input": [{"role": "user", "content": "u"}], "tools": []}));
        assert_eq!(pieces(&responses).1, 1);
    }
}
