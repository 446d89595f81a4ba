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

/// A hashed or redacted trace: cctrace's `[h:…]` text in place of what was sent. Its prompt
/// is not the one the provider read, so no agreement is judged on it.
pub fn hashed(capture: &Capture) -> bool {
    let body = capture.body();
    let mut texts = Vec::new();
    match body.get("system") {
        Some(Value::String(text)) => texts.push(text.as_str()),
        Some(Value::Array(blocks)) => texts.extend(
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str)),
        ),
        _ => {}
    }
    if let Some(Value::Array(messages)) = body.get("messages") {
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
    texts.iter().any(|t| is_hash_token(t))
}

/// `[h:` followed by hex digits (and perhaps a length) and `]`, alone.
fn is_hash_token(text: &str) -> bool {
    let text = text.trim();
    let Some(inner) = text.strip_prefix("[h:").and_then(|t| t.strip_suffix(']')) else {
        return false;
    };
    let digits = inner.split([':', ' ', ',']).next().unwrap_or("");
    digits.len() >= 6 && digits.chars().all(|c| c.is_ascii_hexdigit())
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
            ) || ["image", "document", "video", "inlineData", "fileData"]
                .iter()
                .any(|k| map.contains_key(*k))
                || map.values().any(|v| media_in(v, depth + 1))
        }
        Value::Array(items) => items.iter().any(|v| media_in(v, depth + 1)),
        _ => false,
    }
}

/// The tokens a provider adds to the prompt before the tools, in its own count: Anthropic's
/// tool-use system prompt when the request sends tools (on Anthropic, Bedrock and Vertex).
pub fn tool_use_overhead(capture: &Capture, provider: Provider) -> usize {
    let body = capture.body();
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let claude = matches!(
        provider,
        Provider::Anthropic | Provider::Bedrock | Provider::Vertex
    ) && (capture.shape() == Shape::AnthropicMessages
        || model.to_ascii_lowercase().contains("claude"));
    if !claude || capture.tools().is_empty() {
        return 0;
    }
    let forced = matches!(
        body.pointer("/tool_choice/type").and_then(Value::as_str),
        Some("any" | "tool")
    );
    provider::tool_use_tokens(model, forced)
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
        assert!(is_hash_token("[h:9f2c11ab]"));
        assert!(!is_hash_token("[h:hello]"));
        let c = Capture::from_value(json!({"model": "claude-sonnet-4-5", "messages":
            [{"role": "user", "content": [{"type": "text", "text": "[h:0a1b2c3d4e:812]"}]}],
            "tools": [{"name": "a", "input_schema": {}}]}))
        .unwrap();
        assert!(hashed(&c));
        assert_eq!(tool_use_overhead(&c, Provider::Anthropic), 346);
        assert_eq!(tool_use_overhead(&c, Provider::OpenAi), 0);
    }
}
