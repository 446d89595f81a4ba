//! Gemini's contents as the provider bills them (SESSIONS.md section 3, "Gemini contents"):
//! text parts as their text, thought signatures and function-call ids not counted, and the
//! thoughts Gemini 3 re-reads within a function-calling cycle.

use std::hash::Hasher;

use rustc_hash::FxHasher;
use serde_json::Value;

use super::{Canon, Piece, block_text, hash_canon, piece};

/// A Gemini content (or system instruction): one whose parts are all text is its role and
/// its text, as Gemini tokenizes it; anything else (function calls and responses, media) its
/// JSON.
pub(super) fn gemini_piece(place: u8, item: &Value) -> Piece<'_> {
    let parts = item.get("parts").and_then(Value::as_array);
    let plain = item.as_object().is_some_and(|map| {
        map.iter()
            .all(|(k, v)| matches!(k.as_str(), "role" | "parts") || v.is_null())
    });
    let Some(parts) =
        parts.filter(|p| plain && !p.is_empty() && p.iter().all(|part| block_text(part).is_some()))
    else {
        return piece(place, item, None);
    };
    let role = item.get("role").and_then(Value::as_str).unwrap_or("");
    let mut hasher = FxHasher::default();
    hasher.write_u8(place);
    hasher.write(role.as_bytes());
    hasher.write_u8(0xff);
    let value = match parts.as_slice() {
        [only] => Canon::Text(block_text(only).unwrap_or("")),
        _ => Canon::Parts(parts),
    };
    hash_canon(value, &mut hasher);
    Piece {
        hash: hasher.finish(),
        mark: None,
        value,
        thoughts: false,
    }
}

/// Each Gemini content a block; on Gemini 3 and later (a name without a version is today's
/// model), a model step of the current function-calling cycle that sends its signature back
/// has its own place: the same content once the cycle is over is billed without the thoughts,
/// so it is another block. Gemini 2.5 bills no thoughts again (pydantic-ai's 2.5 Pro step
/// after 395 thoughts: 156 billed).
pub(super) fn gemini_contents<'a>(items: &'a [Value], model: &str, out: &mut Vec<Piece<'a>>) {
    let cycle = gemini_cycle_start(items);
    let rereads = crate::session::provider::gemini_version(&model.to_ascii_lowercase())
        .is_none_or(|(major, _)| major >= 3);
    for (at, item) in items.iter().enumerate() {
        out.push(if rereads && at >= cycle && rereads_thoughts(item) {
            Piece {
                thoughts: true,
                ..piece(5, item, None)
            }
        } else {
            gemini_piece(4, item)
        });
    }
}

/// Where Gemini's current function-calling cycle starts: at the last user content that holds
/// more than function responses (Google, *Thought signatures*: the current turn). Within it
/// Gemini 3 re-reads the thoughts of the model's steps whose signatures come back.
fn gemini_cycle_start(contents: &[Value]) -> usize {
    contents
        .iter()
        .rposition(|c| {
            c.get("role").and_then(Value::as_str).unwrap_or("user") == "user"
                && c.get("parts")
                    .and_then(Value::as_array)
                    .is_some_and(|parts| parts.iter().any(|p| p.get("functionResponse").is_none()))
        })
        .unwrap_or(0)
}

/// A model content that sends a thought signature back as `thoughtSignature`. Measured: the
/// snake-case spelling (`thought_signature`, pydantic-ai's Vertex requests: 56 steps of 34
/// recordings) is billed no thoughts, the camel-case one is (the Gemini API's and ruby_llm's
/// Vertex steps).
fn rereads_thoughts(content: &Value) -> bool {
    content.get("role").and_then(Value::as_str) == Some("model")
        && content
            .get("parts")
            .and_then(Value::as_array)
            .is_some_and(|parts| parts.iter().any(|p| p.get("thoughtSignature").is_some()))
}

/// A Gemini function call or response carrying the client's `id` (pydantic-ai's
/// `pyd_ai_…`, 20 tokens each), which the bill does not hold: a step of three calls and their
/// responses counted 325 tokens with them, 189 without, for 158 billed.
fn call_id(key: &str, value: &Value) -> bool {
    matches!(
        key,
        "functionCall" | "functionResponse" | "function_call" | "function_response"
    ) && value.get("id").is_some()
}

/// A key holding a Gemini thought signature, in either JSON spelling.
pub(super) fn is_signature(key: &str) -> bool {
    key == "thoughtSignature" || key == "thought_signature"
}

/// Gemini's `thoughtSignature` (an opaque token of the model's thought, base64) is not
/// prompt text, nor is a thought summary sent back (a part with `"thought": true`: Gemini
/// leaves it out of the context; ruby_llm's Vertex Gemini 3 turn that sent one back billed
/// 21 tokens for 229 counted): `value` without them, `None` when it holds none. Parts sit two
/// levels down.
pub(super) fn without_signatures(value: &Value, depth: usize) -> Option<Value> {
    match value {
        Value::Object(map) if depth < 4 => {
            let thought = map.get("thought").and_then(Value::as_bool) == Some(true);
            let inner: Vec<(usize, Value)> = map
                .values()
                .enumerate()
                .filter_map(|(i, v)| Some((i, without_signatures(v, depth + 1)?)))
                .collect();
            let calls = map.iter().any(|(k, v)| call_id(k, v));
            if !map.keys().any(|k| is_signature(k)) && !thought && !calls && inner.is_empty() {
                return None;
            }
            let mut changed = inner.into_iter().peekable();
            let mut out = serde_json::Map::new();
            for (i, (k, v)) in map.iter().enumerate() {
                let replaced = changed.next_if(|(j, _)| *j == i).map(|(_, v)| v);
                if !(is_signature(k) || thought && matches!(k.as_str(), "text" | "thought")) {
                    let mut kept = replaced.unwrap_or_else(|| v.clone());
                    if call_id(k, v)
                        && let Value::Object(fields) = &mut kept
                    {
                        fields.remove("id");
                    }
                    out.insert(k.clone(), kept);
                }
            }
            Some(Value::Object(out))
        }
        Value::Array(items) if depth < 4 => {
            let inner: Vec<(usize, Value)> = items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| Some((i, without_signatures(v, depth + 1)?)))
                .collect();
            if inner.is_empty() {
                return None;
            }
            let mut changed = inner.into_iter().peekable();
            let out = items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    changed
                        .next_if(|(j, _)| *j == i)
                        .map_or_else(|| v.clone(), |(_, v)| v)
                })
                .collect();
            Some(Value::Array(out))
        }
        _ => None,
    }
}
