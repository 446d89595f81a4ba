//! Judging a turn's modelled cache against the bill (SESSIONS.md section 3, "Checked against
//! the bill"): which turns can be judged at all, and when two amounts agree.

use serde_json::Value;

use crate::capture::{Capture, Shape};

use super::provider::{self, Provider};

/// Amounts agree within this share of the observed figure…
pub const TOLERANCE: f64 = 0.10;
/// …or within this many provider tokens, whichever is larger (a tokenizer's difference on a
/// short prefix, one step of an automatic cache).
pub const TOLERANCE_TOKENS: u64 = 64;

/// Whether a modelled amount (already in provider tokens) agrees with an observed one.
pub fn within(modelled: f64, observed: u64, step: usize) -> bool {
    let slack = (observed as f64 * TOLERANCE)
        .max(TOLERANCE_TOKENS as f64)
        .max(step as f64);
    (modelled - observed as f64).abs() <= slack
}

/// A hashed or redacted trace: cctrace's sanitized fixtures put `[h:…]` (or `s-…`) tokens in
/// place of every text, tool descriptions included. Its prompt is not the one the provider
/// read, so no agreement is judged on it and it calibrates nothing. Judged on the texts a
/// request is known by (system blocks, the first messages' texts, tool descriptions): more
/// than half of them hash tokens, and two at least unless one is the unmistakable `[h:…]`.
pub fn hashed(capture: &Capture) -> bool {
    let body = capture.body();
    let mut texts: Vec<&str> = Vec::new();
    match body.get("system") {
        Some(Value::String(text)) => texts.push(text.as_str()),
        Some(Value::Array(blocks)) => texts.extend(
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str)),
        ),
        _ => {}
    }
    let list = body.get("messages").or_else(|| body.get("input"));
    if let Some(Value::Array(messages)) = list {
        for message in messages.iter().take(4) {
            match message.get("content") {
                Some(Value::String(text)) => texts.push(text),
                Some(Value::Array(blocks)) => texts.extend(
                    blocks
                        .iter()
                        .filter_map(|b| b.get("text").and_then(Value::as_str)),
                ),
                _ => {}
            }
        }
    }
    texts.extend(
        capture
            .tools()
            .iter()
            .take(16)
            .filter_map(crate::tool::description),
    );
    let tokens: Vec<HashToken> = texts.iter().filter_map(|t| hash_token(t)).collect();
    tokens.len() * 2 > texts.len() && (tokens.len() >= 2 || tokens.contains(&HashToken::Bracketed))
}

/// The two spellings of a sanitizer's hash token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HashToken {
    /// `[h:3szq15su8]`.
    Bracketed,
    /// `s-r7cb62rzzi04`, `sr-1f717oz16b4r75`.
    Dashed,
}

/// A text that is a hash token, perhaps after a marker the sanitizer keeps
/// (`<system-reminder> [h:…]`, `x-anthropic-billing-header [h:…]`): base-36 or hex digits.
fn hash_token(text: &str) -> Option<HashToken> {
    let text = text.trim();
    let last = text.rsplit(' ').next().unwrap_or(text);
    // What precedes the token is one marker word at most.
    if text.len() > last.len() && text[..text.len() - last.len()].trim().contains(' ') {
        return None;
    }
    let digits = |d: &str| {
        d.len() >= 6
            && d.len() <= 40
            && d.chars()
                .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
    };
    if let Some(inner) = last.strip_prefix("[h:").and_then(|t| t.strip_suffix(']')) {
        // cctrace writes base 36; a length may follow (`[h:0a1b2c:812]`).
        let hash = inner.split([':', ',']).next().unwrap_or("");
        return digits(hash).then_some(HashToken::Bracketed);
    }
    let (prefix, hash) = last.split_once('-')?;
    let prefixed =
        (1..=2).contains(&prefix.len()) && prefix.chars().all(|c| c.is_ascii_lowercase());
    // A hash holds digits: a word such as `s-expression` is no token.
    (prefixed && digits(hash) && hash.len() >= 8 && hash.chars().any(|c| c.is_ascii_digit()))
        .then_some(HashToken::Dashed)
}

/// Whether the request holds media (images, documents, audio, video): the provider counts
/// them by their pixels or pages, not their base64 text, so the exact count says nothing of
/// them. Such a turn's state is judged, its amounts and calibration are not.
pub fn has_media(capture: &Capture) -> bool {
    let body = capture.body();
    let list = body
        .get("messages")
        .or_else(|| body.get("input"))
        .or_else(|| body.get("contents"));
    let Some(Value::Array(items)) = list else {
        return false;
    };
    items.iter().any(|item| media_in(item, 0))
}

fn media_in(value: &Value, depth: usize) -> bool {
    if depth > 6 {
        return false;
    }
    match value {
        Value::Object(map) => {
            let kind = map.get("type").and_then(Value::as_str).unwrap_or("");
            matches!(
                kind,
                "image"
                    | "document"
                    | "input_image"
                    | "input_file"
                    | "image_url"
                    | "input_audio"
                    | "file"
                    | "document_url"
            ) || [
                "image",
                "document",
                "video",
                "inlineData",
                "fileData",
                "inline_data",
                "file_data",
                "toolCall",
                "toolResponse",
            ]
            .iter()
            .any(|k| map.contains_key(*k))
                || map.values().any(|v| media_in(v, depth + 1))
        }
        Value::Array(items) => items.iter().any(|v| media_in(v, depth + 1)),
        _ => false,
    }
}

/// Whether a request sends tools to Claude (on Anthropic, Bedrock, Vertex or Foundry), and then
/// whether its `tool_choice` forces a tool (`any`/`tool`; Chat's `"required"` or a named
/// function, a gateway in front of Claude).
fn claude_tools(capture: &Capture, model: &str, provider: Provider) -> Option<bool> {
    let body = capture.body();
    let claude = matches!(
        provider,
        Provider::Anthropic | Provider::Bedrock | Provider::Vertex | Provider::Foundry
    ) && (capture.shape() == Shape::AnthropicMessages
        || model.to_ascii_lowercase().contains("claude"));
    if !claude || capture.tools().is_empty() {
        return None;
    }
    Some(
        matches!(
            body.pointer("/tool_choice/type").and_then(Value::as_str),
            Some("any" | "tool" | "function")
        ) || matches!(
            body.get("tool_choice").and_then(Value::as_str),
            Some("required" | "any")
        ),
    )
}

/// The tokens a provider adds to the prompt before the tools, in its own count: Anthropic's
/// tool-use system prompt when the request sends tools (on Anthropic, Bedrock and Vertex),
/// and the definitions of the Anthropic-defined tools it names by type.
pub fn tool_use_overhead(capture: &Capture, model: &str, provider: Provider) -> usize {
    claude_tools(capture, model, provider).map_or(0, |forced| {
        provider::tool_use_tokens(model, forced) + provider::defined_tools_tokens(capture.tools())
    })
}

/// Of [`tool_use_overhead`], the part no page publishes ([`provider::TOOL_USE_UNPUBLISHED`]).
pub fn unpublished_overhead(capture: &Capture, model: &str, provider: Provider) -> usize {
    claude_tools(capture, model, provider).map_or(0, |forced| {
        provider::tool_use_unpublished(&model.to_ascii_lowercase(), forced)
    })
}

/// The overhead a turn's bill was charged: the tool-use prompt as Claude 4.5 and later bill it
/// today, unless the bill cannot hold it beside the request at half its count (`prompt`
/// tokens), where it was the published one (recordings before November 2025: Sonnet 4.5 billed
/// 383 for 51 counted tokens and a tool).
pub fn overhead_for_bill(overhead: usize, unpublished: usize, billed: u64, prompt: usize) -> usize {
    let held = billed.saturating_sub(overhead as u64);
    if unpublished > 0 && held < (prompt as u64).div_ceil(2) {
        overhead - unpublished
    } else {
        overhead
    }
}

/// Why a failed call's turn is not judged: it is outside the cache chain.
pub(super) fn failed_call(status: Option<u16>) -> String {
    match status {
        Some(code) => format!("the call failed (HTTP {code}): outside the cache chain"),
        None => "the call failed: outside the cache chain".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tolerance_and_hashes() {
        assert!(within(1000.0, 1090, 1));
        assert!(!within(1000.0, 1200, 1));
        assert!(within(0.0, 60, 1));
        assert!(within(1024.0, 1152, 128));
        assert_eq!(hash_token("[h:9f2c11ab]"), Some(HashToken::Bracketed));
        assert_eq!(hash_token("[h:33y857eqsip]"), Some(HashToken::Bracketed));
        assert_eq!(
            hash_token("x-anthropic-billing-header [h:1zndmzysa625]"),
            Some(HashToken::Bracketed)
        );
        assert_eq!(hash_token("s-r7cb62rzzi04"), Some(HashToken::Dashed));
        assert_eq!(
            hash_token("<system-reminder> sr-1f717oz16b4r75"),
            Some(HashToken::Dashed)
        );
        assert_eq!(hash_token("[h:hi]"), None);
        assert_eq!(hash_token("s-expression"), None);
        assert_eq!(hash_token("see the [h:9f2c11ab] token"), None);
        let c = Capture::from_value(json!({"model": "claude-sonnet-4-5", "messages":
            [{"role": "user", "content": [{"type": "text", "text": "[h:0a1b2c3d4e:812]"}]}],
            "tools": [{"name": "a", "input_schema": {}}]}))
        .unwrap();
        assert!(hashed(&c));
        assert_eq!(
            tool_use_overhead(&c, "claude-sonnet-4-5", Provider::Anthropic),
            provider::tool_use_tokens("claude-sonnet-4-5", false)
        );
        // Chat's `"required"` (a gateway in front of Claude) is forced too.
        let required = Capture::from_value(json!({"model": "anthropic/claude-sonnet-4-5",
            "messages": [{"role": "user", "content": "hi"}], "tool_choice": "required",
            "tools": [{"type": "function", "function": {"name": "a", "parameters": {}}}]}))
        .unwrap();
        assert_eq!(
            tool_use_overhead(
                &required,
                "anthropic/claude-sonnet-4-5",
                Provider::Anthropic
            ),
            provider::tool_use_tokens("claude-sonnet-4-5", true)
        );
        assert_eq!(
            tool_use_overhead(&c, "claude-sonnet-4-5", Provider::OpenAi),
            0
        );
        // A bill that cannot hold the request at half its count beside the larger prompt was
        // billed the published one; one that can, the larger.
        let (overhead, unpublished) = (511, 165);
        assert_eq!(overhead_for_bill(overhead, unpublished, 383, 51), 346);
        assert_eq!(overhead_for_bill(overhead, unpublished, 558, 45), 511);
        assert_eq!(overhead_for_bill(346, 0, 300, 51), 346);
        assert_eq!(
            unpublished_overhead(&c, "claude-sonnet-4-5", Provider::Anthropic),
            provider::TOOL_USE_UNPUBLISHED.0
        );
        assert_eq!(
            unpublished_overhead(&c, "claude-sonnet-4-20250514", Provider::Anthropic),
            0
        );
        // Anthropic's tool search adds its own prompt.
        let search = Capture::from_value(json!({"model": "claude-opus-4-8", "messages": [],
            "tools": [{"name": "a", "input_schema": {}, "defer_loading": true},
                {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}]}))
        .unwrap();
        assert_eq!(
            tool_use_overhead(&search, "claude-opus-4-8", Provider::Anthropic),
            provider::tool_use_tokens("claude-opus-4-8", false) + provider::TOOL_SEARCH_PROMPT
        );
    }
}
