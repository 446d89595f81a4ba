//! Observed usage: what the provider said it billed for a call's input, read from a response
//! body (JSON) or an event stream.

use serde_json::{Map, Value};

use super::Usage;
use super::sse;

/// Usage from a response text: a JSON body, or an SSE stream stored whole.
pub(crate) fn from_text(text: &str) -> Option<Usage> {
    if sse::looks_like_stream(text) {
        return from_stream(text);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => from_json(&value),
        // A stream written without its `event:` lines still starts with `data:`; anything else
        // that is not JSON carries no usage.
        Err(_) => from_stream(text),
    }
}

/// Usage from a parsed response body: an Anthropic message, a Chat completion, a Responses
/// response, or a `response.completed` event.
pub(crate) fn from_json(body: &Value) -> Option<Usage> {
    if let Some(response) = body.get("response").filter(|_| is_response_event(body)) {
        return from_json(response);
    }
    // Gemini's streamGenerateContent without `alt=sse` answers a JSON array of chunks; the
    // last chunk that has usage has the whole call's.
    if let Value::Array(chunks) = body {
        return chunks.iter().rev().find_map(from_json);
    }
    if let Some(metadata) = body.get("usageMetadata").and_then(Value::as_object) {
        return gemini(metadata);
    }
    body.get("usage").and_then(Value::as_object).and_then(read)
}

/// Gemini's `usageMetadata`: `promptTokenCount` is all input, cached included
/// (`cachedContentTokenCount`).
fn gemini(metadata: &Map<String, Value>) -> Option<Usage> {
    let prompt = count(metadata.get("promptTokenCount"))?;
    Some(Usage {
        input: prompt,
        cache_write: 0,
        cache_read: count(metadata.get("cachedContentTokenCount")).unwrap_or(0),
    })
}

fn is_response_event(event: &Value) -> bool {
    event
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.starts_with("response."))
}

/// Usage from an event stream. Anthropic: `message_start` carries the usage, a later
/// `message_delta` overrides the fields it has. Chat: the last chunk with a `usage`. Responses:
/// the final `response.completed` (or `response.incomplete` / `response.failed`) event.
pub(crate) fn from_stream(stream: &str) -> Option<Usage> {
    let mut usage: Option<Usage> = None;
    for payload in sse::data(stream) {
        let Ok(event) = serde_json::from_str::<Value>(&payload) else {
            continue;
        };
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                if let Some(found) = event.pointer("/message/usage").and_then(Value::as_object) {
                    usage = read(found).or(usage);
                }
            }
            Some("message_delta") => {
                if let Some(delta) = event.get("usage").and_then(Value::as_object) {
                    let current = usage.get_or_insert_with(Usage::default);
                    if let Some(n) = count(delta.get("input_tokens")) {
                        current.input = n;
                    }
                    if let Some(n) = count(delta.get("cache_creation_input_tokens")) {
                        current.cache_write = n;
                    }
                    if let Some(n) = count(delta.get("cache_read_input_tokens")) {
                        current.cache_read = n;
                    }
                }
            }
            _ if is_response_event(&event) => {
                if let Some(found) = event.pointer("/response/usage").and_then(Value::as_object) {
                    usage = read(found).or(usage);
                }
            }
            _ => {
                if let Some(found) = event.get("usage").and_then(Value::as_object) {
                    usage = read(found).or(usage);
                } else if let Some(found) = event.get("usageMetadata").and_then(Value::as_object) {
                    usage = gemini(found).or(usage);
                }
            }
        }
    }
    usage
}

fn count(value: Option<&Value>) -> Option<u64> {
    value.and_then(Value::as_u64)
}

/// A `usage` object in any of the three APIs' spellings.
fn read(usage: &Map<String, Value>) -> Option<Usage> {
    if let Some(prompt) = count(usage.get("prompt_tokens")) {
        let cached = usage
            .get("prompt_tokens_details")
            .and_then(|d| d.get("cached_tokens"));
        return Some(Usage {
            input: prompt,
            cache_write: 0,
            cache_read: count(cached).unwrap_or(0),
        });
    }
    if let Some(details) = usage.get("input_tokens_details") {
        return Some(Usage {
            input: count(usage.get("input_tokens")).unwrap_or(0),
            cache_write: 0,
            cache_read: count(details.get("cached_tokens")).unwrap_or(0),
        });
    }
    // Bedrock Converse spells Anthropic's fields in camel case (uncached input, like Anthropic).
    let input = count(usage.get("input_tokens")).or_else(|| count(usage.get("inputTokens")));
    let write = count(usage.get("cache_creation_input_tokens"))
        .or_else(|| count(usage.get("cacheWriteInputTokens")));
    let read = count(usage.get("cache_read_input_tokens"))
        .or_else(|| count(usage.get("cacheReadInputTokens")));
    if input.is_none() && write.is_none() && read.is_none() {
        return None;
    }
    Some(Usage {
        input: input.unwrap_or(0),
        cache_write: write.unwrap_or(0),
        cache_read: read.unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn usage(input: u64, cache_write: u64, cache_read: u64) -> Option<Usage> {
        Some(Usage {
            input,
            cache_write,
            cache_read,
        })
    }

    #[test]
    fn json_bodies() {
        let anthropic = json!({"type": "message", "usage": {"input_tokens": 12,
            "cache_creation_input_tokens": 300, "cache_read_input_tokens": 4000,
            "output_tokens": 9}});
        assert_eq!(from_json(&anthropic), usage(12, 300, 4000));
        let chat = json!({"object": "chat.completion", "usage": {"prompt_tokens": 900,
            "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 768}}});
        assert_eq!(from_json(&chat), usage(900, 0, 768));
        let responses = json!({"object": "response", "usage": {"input_tokens": 5000,
            "input_tokens_details": {"cached_tokens": 4864}, "output_tokens": 20}});
        assert_eq!(from_json(&responses), usage(5000, 0, 4864));
        assert_eq!(from_json(&json!({"type": "error"})), None);
        let gemini = json!({"candidates": [], "usageMetadata": {"promptTokenCount": 1200,
            "cachedContentTokenCount": 1024, "candidatesTokenCount": 7}});
        assert_eq!(from_json(&gemini), usage(1200, 0, 1024));
        let chunks = json!([{"candidates": []},
            {"candidates": [], "usageMetadata": {"promptTokenCount": 33}}, {"candidates": []}]);
        assert_eq!(from_json(&chunks), usage(33, 0, 0));
        let converse = json!({"output": {}, "usage": {"inputTokens": 15, "outputTokens": 3,
            "cacheReadInputTokens": 900, "cacheWriteInputTokens": 40}});
        assert_eq!(from_json(&converse), usage(15, 40, 900));
    }

    #[test]
    fn gemini_stream() {
        let stream = "data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":90}}\r\n\r\n\
            data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":90,\"cachedContentTokenCount\":64}}\r\n\r\n";
        assert_eq!(from_text(stream), usage(90, 0, 64));
    }

    #[test]
    fn anthropic_stream_delta_overrides() {
        let stream = "event: message_start\n\
            data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"cache_creation_input_tokens\":100,\"cache_read_input_tokens\":2000,\"output_tokens\":1}}}\n\n\
            event: content_block_delta\n\
            data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n\
            event: message_delta\n\
            data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":40,\"cache_read_input_tokens\":2100}}\n\n";
        assert_eq!(from_text(stream), usage(3, 100, 2100));
    }

    #[test]
    fn chat_and_responses_streams() {
        let chat = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":null}\n\n\
            data: {\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"prompt_tokens_details\":{\"cached_tokens\":32}}}\n\n\
            data: [DONE]\n\n";
        assert_eq!(from_text(chat), usage(50, 0, 32));
        let responses = "event: response.created\n\
            data: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n\
            event: response.completed\n\
            data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":70,\"input_tokens_details\":{\"cached_tokens\":64}}}}\n\n";
        assert_eq!(from_text(responses), usage(70, 0, 64));
        assert_eq!(from_text("not json, not a stream"), None);
    }
}
