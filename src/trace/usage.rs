//! Observed usage: what the provider said it billed for a call's input, read from a response
//! body (JSON) or an event stream.

use serde_json::{Map, Value};

use super::Usage;
use super::diagnosis;
use super::sse;

/// Usage from a response text: a JSON body, or an SSE stream stored whole.
pub(crate) fn from_text(text: &str) -> Option<Usage> {
    if sse::looks_like_stream(text) {
        return from_stream(text);
    }
    // Within the parse budget: a body that is small compressed can be large decoded.
    match super::budget::parse_str(text) {
        Ok(value) => from_json(&value),
        // A stream written without its `event:` lines still starts with `data:`; anything else
        // that is not JSON carries no usage.
        Err(_) => from_stream(text),
    }
}

/// Usage from a parsed response body: an Anthropic message, a Chat completion, a Responses
/// response, or a `response.completed` event.
pub(crate) fn from_json(body: &Value) -> Option<Usage> {
    let mut usage = usage_of(body)?;
    usage.server_tool = usage.server_tool.or_else(|| server_tool(body));
    usage.diagnosis = usage.diagnosis.or_else(|| diagnosis::of_body(body));
    usage.response_id = usage.response_id.or_else(|| diagnosis::message_id(body));
    usage.reasoning = usage
        .reasoning
        .or_else(|| reasoning_of(body))
        .or_else(|| gemini_thoughts(body, gemini_signature(body)));
    Some(usage)
}

/// A hash of a Gemini thought signature, whichever base64 alphabet it is written in (a client
/// may send back the URL-safe spelling of what the response wrote) and without its padding.
pub(crate) fn signature_hash(signature: &str) -> u64 {
    let standard: String = signature
        .chars()
        .filter(|&c| c != '=')
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    ciphertext_hash(&standard)
}

/// The first thought signature a Gemini response (or stream chunk) wrote, hashed by
/// [`signature_hash`].
fn gemini_signature(body: &Value) -> Option<u64> {
    let candidates = body.get("candidates").and_then(Value::as_array)?;
    candidates
        .iter()
        .filter_map(|c| c.pointer("/content/parts").and_then(Value::as_array))
        .flatten()
        .find_map(|part| part.get("thoughtSignature").and_then(Value::as_str))
        .map(signature_hash)
}

/// A Gemini response's thoughts (`usageMetadata.thoughtsTokenCount`) by the signature it wrote:
/// what a later request of the same function-calling cycle that sends the signature back is
/// billed for them.
fn gemini_thoughts(body: &Value, signature: Option<u64>) -> Option<(u64, u64)> {
    let thoughts = body
        .pointer("/usageMetadata/thoughtsTokenCount")
        .and_then(Value::as_u64)
        .filter(|&n| n > 0)?;
    Some((signature?, thoughts))
}

/// A hash of an encrypted reasoning item's ciphertext: the same in a response's output and in
/// the later request that sends the item back.
pub(crate) fn ciphertext_hash(ciphertext: &str) -> u64 {
    use std::hash::Hasher as _;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(ciphertext.as_bytes());
    hasher.finish()
}

/// The encrypted reasoning a Responses response wrote and its reasoning tokens (the last
/// `reasoning` output item with `encrypted_content`; one per response in practice).
fn reasoning_of(response: &Value) -> Option<(u64, u64)> {
    let tokens = response
        .pointer("/usage/output_tokens_details/reasoning_tokens")
        .and_then(Value::as_u64)?;
    let items = response.get("output").and_then(Value::as_array)?;
    let ciphertext = items.iter().rev().find_map(|item| {
        (item.get("type").and_then(Value::as_str) == Some("reasoning"))
            .then(|| item.get("encrypted_content").and_then(Value::as_str))
            .flatten()
    })?;
    Some((ciphertext_hash(ciphertext), tokens))
}

fn usage_of(body: &Value) -> Option<Usage> {
    if let Some(response) = body.get("response").filter(|_| is_response_event(body)) {
        return from_json(response);
    }
    // Gemini's streamGenerateContent without `alt=sse` answers a JSON array of chunks; the
    // last chunk that has usage has the whole call's.
    if let Value::Array(chunks) = body {
        // Claude's events out of Bedrock's binary stream (`invoke-with-response-stream`): read
        // as the stream they are.
        if chunks
            .iter()
            .any(|c| c.get("type").and_then(Value::as_str) == Some("message_start"))
        {
            return from_events(chunks.iter().cloned());
        }
        let tool = chunks.iter().find_map(server_tool);
        // A stream's signature and its thoughts' count arrive in different chunks.
        let signature = chunks.iter().find_map(gemini_signature);
        let thoughts = chunks
            .iter()
            .rev()
            .find_map(|c| gemini_thoughts(c, signature));
        return chunks.iter().rev().find_map(from_json).map(|u| Usage {
            server_tool: u.server_tool.or(tool),
            reasoning: u.reasoning.or(thoughts),
            ..u
        });
    }
    if let Some(metadata) = body.get("usageMetadata").and_then(Value::as_object) {
        return gemini(metadata);
    }
    body.get("usage").and_then(Value::as_object).and_then(read)
}

/// Gemini's `usageMetadata`: `promptTokenCount` is all input, cached included
/// (`cachedContentTokenCount`); `input` is the uncached part, as Anthropic's, plus what a
/// server-side tool read into the prompt (`toolUsePromptTokenCount`, beside the prompt's
/// count in `totalTokenCount` and billed as input).
fn gemini(metadata: &Map<String, Value>) -> Option<Usage> {
    let prompt = count(metadata.get("promptTokenCount"))?;
    let cached = count(metadata.get("cachedContentTokenCount")).unwrap_or(0);
    let tool_read = count(metadata.get("toolUsePromptTokenCount")).unwrap_or(0);
    Some(Usage {
        input: prompt.saturating_sub(cached) + tool_read,
        cache_read: cached,
        ..Usage::default()
    })
}

/// The server-side tool a response shows ran (SESSIONS.md section 3, "Server-side tools"):
/// Anthropic `server_tool_use` blocks or `usage.server_tool_use` counts; OpenAI Responses
/// hosted-tool output items (`web_search_call`, `code_interpreter_call`, …).
pub(crate) fn server_tool(body: &Value) -> Option<&'static str> {
    if let Some(Value::Object(counts)) = body.pointer("/usage/server_tool_use") {
        for (key, value) in counts {
            if value.as_u64().is_some_and(|n| n > 0) {
                return Some(tool_kind(key));
            }
        }
    }
    if let Some(tool) = gemini_tool(body) {
        return Some(tool);
    }
    let items = body
        .get("content")
        .or_else(|| body.get("output"))
        .and_then(Value::as_array)?;
    items.iter().find_map(item_tool)
}

/// The server-side tool a Gemini response (or stream chunk) shows ran: Google Search
/// (`groundingMetadata` with queries or sources), URL context (`urlContextMetadata`), code
/// execution (`executableCode` / `codeExecutionResult` parts), or any whose prompt the
/// provider counted (`usageMetadata.toolUsePromptTokenCount`). What they read is billed
/// (Google, *Grounding with Google Search*, *URL context*), and no request holds it.
fn gemini_tool(body: &Value) -> Option<&'static str> {
    let candidates = body.get("candidates").and_then(Value::as_array);
    for candidate in candidates.into_iter().flatten() {
        if candidate.get("urlContextMetadata").is_some() {
            return Some("web_fetch");
        }
        if let Some(grounding) = candidate.get("groundingMetadata") {
            let some = |key: &str| {
                grounding
                    .get(key)
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty())
            };
            if some("webSearchQueries") || some("groundingChunks") {
                return Some("web_search");
            }
        }
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array);
        if parts.into_iter().flatten().any(|part| {
            part.get("executableCode").is_some() || part.get("codeExecutionResult").is_some()
        }) {
            return Some("code_execution");
        }
    }
    body.pointer("/usageMetadata/toolUsePromptTokenCount")
        .and_then(Value::as_u64)
        .is_some_and(|n| n > 0)
        .then_some("server tool")
}

/// One content block or output item that is a server-side tool's.
fn item_tool(item: &Value) -> Option<&'static str> {
    let kind = item.get("type").and_then(Value::as_str)?;
    match kind {
        "server_tool_use" => Some(tool_kind(
            item.get("name")
                .and_then(Value::as_str)
                .unwrap_or("server tool"),
        )),
        "function_call" | "custom_tool_call" | "message" | "reasoning" => None,
        k if k.ends_with("_tool_result") => Some(tool_kind(k)),
        k if k.ends_with("_call") => Some(tool_kind(k)),
        _ => None,
    }
}

/// A server tool's kind in a few words.
fn tool_kind(name: &str) -> &'static str {
    if name.contains("web_search") {
        "web_search"
    } else if name.contains("web_fetch") {
        "web_fetch"
    } else if name.contains("code_execution") || name.contains("code_interpreter") {
        "code_execution"
    } else if name.contains("tool_search") {
        "tool_search"
    } else if name.contains("file_search") {
        "file_search"
    } else if name.contains("image_generation") {
        "image_generation"
    } else if name.contains("mcp") {
        "mcp"
    } else {
        "server tool"
    }
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
    from_events(sse::data(stream).filter_map(|payload| super::budget::parse_str(&payload).ok()))
}

/// [`from_stream`] over the stream's events, parsed.
fn from_events(events: impl Iterator<Item = Value>) -> Option<Usage> {
    let mut usage: Option<Usage> = None;
    let mut tool = None;
    // Anthropic's `diagnostics` is on `message_start`'s message.
    let (mut diagnosed, mut id) = (None, None);
    let mut reasoning = None;
    let (mut signature, mut thoughts) = (None, None);
    for event in events {
        signature = signature.or_else(|| gemini_signature(&event));
        thoughts = event
            .pointer("/usageMetadata/thoughtsTokenCount")
            .and_then(Value::as_u64)
            .or(thoughts);
        tool = tool
            .or_else(|| {
                event
                    .get("content_block")
                    .or_else(|| event.get("item"))
                    .and_then(item_tool)
            })
            .or_else(|| gemini_tool(&event));
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                if let Some(message) = event.get("message") {
                    diagnosed = diagnosed.or_else(|| diagnosis::of_body(message));
                    id = id.or_else(|| diagnosis::message_id(message));
                }
                if let Some(found) = event.pointer("/message/usage").and_then(Value::as_object) {
                    usage = read(found).or(usage);
                }
            }
            Some("message_delta") => {
                if let Some(delta) = event.get("usage").and_then(Value::as_object) {
                    // Compaction's passes, when it ran, are the whole bill of the call.
                    if delta
                        .get("iterations")
                        .is_some_and(|i| i.as_array().is_some_and(|passes| !passes.is_empty()))
                        && let Some(summed) = read(delta)
                    {
                        let kept = usage.map_or(summed.server_tool, |u| u.server_tool);
                        usage = Some(Usage {
                            server_tool: summed.server_tool.or(kept),
                            ..summed
                        });
                        continue;
                    }
                    let current = usage.get_or_insert_with(Usage::default);
                    if let Some(Value::Object(counts)) = delta.get("server_tool_use")
                        && let Some((key, _)) = counts
                            .iter()
                            .find(|(_, v)| v.as_u64().is_some_and(|n| n > 0))
                    {
                        tool = tool.or(Some(tool_kind(key)));
                    }
                    if let Some(n) = count(delta.get("input_tokens")) {
                        current.input = n;
                    }
                    if let Some(n) = count(delta.get("cache_creation_input_tokens")) {
                        current.cache_write = n;
                    }
                    if let Some(n) = count(delta.get("cache_read_input_tokens")) {
                        current.cache_read = n;
                    }
                    if let Some(split) = long_writes(delta) {
                        current.cache_write_1h = Some(split);
                    }
                    // A start without cache figures (Z.ai's GLM streams them in the delta
                    // only): the delta's, numbers or `null`, are the call's.
                    let write = figure(delta, &["cache_creation_input_tokens"]);
                    let read = figure(delta, &["cache_read_input_tokens"]);
                    if matches!(write, Some(None)) || matches!(read, Some(None)) {
                        current.cache_unknown = true;
                    } else if write.is_some() || read.is_some() {
                        current.cache_unknown = false;
                    }
                }
            }
            _ if is_response_event(&event) => {
                if let Some(found) = event.pointer("/response/usage").and_then(Value::as_object) {
                    usage = read(found).or(usage);
                }
                if let Some(response) = event.get("response") {
                    tool = tool.or_else(|| server_tool(response));
                    reasoning = reasoning_of(response).or(reasoning);
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
    let gemini = signature.zip(thoughts.filter(|&n| n > 0));
    usage.map(|u| Usage {
        server_tool: u.server_tool.or(tool),
        diagnosis: u.diagnosis.or(diagnosed),
        response_id: u.response_id.or(id),
        reasoning: u.reasoning.or(reasoning).or(gemini),
        ..u
    })
}

/// What the provider said of a request's prefix check (PROVIDERS.md section 3): a 400 whose
/// message names the thinking block's binding, or the `thinking_dropped` entries of the
/// response's `input_transformations`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrefixAnswer {
    /// A 400: "Invalid `signature` in `thinking` block ... bound to a different conversation".
    Refused,
    /// Thinking blocks dropped, at these paths (`messages.3.content.0`).
    ThinkingDropped(Vec<String>),
    /// Thinking blocks that failed the check but were shown to the model all the same
    /// (`thinking_mismatch_allowed`), at these paths; no block was dropped.
    MismatchAllowed(Vec<String>),
    /// Thinking blocks dropped because another model wrote them (`model_binding_mismatch`,
    /// always a silent drop), at these paths: no prefix was edited.
    OtherModel(Vec<String>),
}

/// Most dropped paths kept of one response.
const MAX_DROPPED: usize = 32;

/// The prefix-check answer of a response text: a JSON body, or a stream (`message_start`'s
/// message; repeated on the final `message_delta`).
pub(crate) fn prefix_answer_text(text: &str) -> Option<PrefixAnswer> {
    if sse::looks_like_stream(text) || super::budget::parse_str(text).is_err() {
        let mut found = None;
        for event in sse::data(text).filter_map(|p| super::budget::parse_str(&p).ok()) {
            let holder = event.get("message").unwrap_or(&event);
            found = prefix_answer(holder).or(found);
        }
        return found;
    }
    prefix_answer(&super::budget::parse_str(text).ok()?)
}

/// The prefix-check answer of a parsed response body (or a stream event's message).
pub(crate) fn prefix_answer(body: &Value) -> Option<PrefixAnswer> {
    let message = body
        .pointer("/error/message")
        .or_else(|| body.get("message"))
        .and_then(Value::as_str);
    if message.is_some_and(|m| {
        m.contains("bound to a different conversation")
            || (m.contains("Invalid `signature`") && m.contains("thinking"))
    }) {
        return Some(PrefixAnswer::Refused);
    }
    let entries = body.get("input_transformations")?.as_array()?;
    let paths = |kind: &str, other_model: bool| -> Vec<String> {
        entries
            .iter()
            .filter(|t| t.get("type").and_then(Value::as_str) == Some(kind))
            .filter(|t| {
                (t.get("reason").and_then(Value::as_str) == Some("model_binding_mismatch"))
                    == other_model
            })
            .filter_map(|t| t.get("path").and_then(Value::as_str))
            .filter(|p| {
                p.len() <= 64
                    && p.bytes()
                        .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'_')
            })
            .take(MAX_DROPPED)
            .map(str::to_owned)
            .collect()
    };
    let dropped = paths("thinking_dropped", false);
    if !dropped.is_empty() {
        return Some(PrefixAnswer::ThinkingDropped(dropped));
    }
    let allowed = paths("thinking_mismatch_allowed", false);
    if !allowed.is_empty() {
        return Some(PrefixAnswer::MismatchAllowed(allowed));
    }
    let other = paths("thinking_dropped", true);
    (!other.is_empty()).then_some(PrefixAnswer::OtherModel(other))
}

/// Anthropic's 1-hour writes, where `usage.cache_creation` splits the writes by lifetime.
fn long_writes(usage: &Map<String, Value>) -> Option<u64> {
    usage
        .get("cache_creation")
        .and_then(|split| split.get("ephemeral_1h_input_tokens"))
        .and_then(Value::as_u64)
}

fn count(value: Option<&Value>) -> Option<u64> {
    value.and_then(Value::as_u64)
}

/// A `usage` object in any of the three APIs' spellings. An Anthropic response that ran
/// server-side compaction (`context_management`) reports each pass in `usage.iterations` and
/// only the last at the top: the call billed their sum.
fn read(usage: &Map<String, Value>) -> Option<Usage> {
    if let Some(Value::Array(iterations)) = usage.get("iterations")
        && !iterations.is_empty()
    {
        let passes: Vec<Usage> = iterations
            .iter()
            .filter_map(Value::as_object)
            .filter_map(read_one)
            .collect();
        if !passes.is_empty() {
            return Some(passes.iter().fold(Usage::default(), |sum, u| Usage {
                input: sum.input + u.input,
                cache_write: sum.cache_write + u.cache_write,
                cache_read: sum.cache_read + u.cache_read,
                cache_unknown: sum.cache_unknown || u.cache_unknown,
                server_tool: sum.server_tool.or(u.server_tool),
                cache_write_1h: match (sum.cache_write_1h, u.cache_write_1h) {
                    (None, None) => None,
                    (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
                },
                diagnosis: None,
                response_id: None,
                reasoning: None,
            }));
        }
    }
    read_one(usage)
}

/// A cache figure: `Some(None)` when the field is there but `null`.
fn figure(usage: &Map<String, Value>, keys: &[&str]) -> Option<Option<u64>> {
    keys.iter().find_map(|k| usage.get(*k)).map(Value::as_u64)
}

fn read_one(usage: &Map<String, Value>) -> Option<Usage> {
    if let Some(prompt) = count(usage.get("prompt_tokens")) {
        // OpenAI `prompt_tokens_details.cached_tokens`; DeepSeek `prompt_cache_hit_tokens`.
        let cached = usage
            .get("prompt_tokens_details")
            .and_then(|d| d.get("cached_tokens"))
            .or_else(|| usage.get("prompt_cache_hit_tokens"))
            .and_then(Value::as_u64);
        // OpenAI, OpenRouter (and gateways in front of Claude) report the tokens written
        // beside.
        let written = usage
            .get("prompt_tokens_details")
            .and_then(|d| d.get("cache_write_tokens"))
            .and_then(Value::as_u64);
        // A gateway that counts its cached tokens outside `prompt_tokens` (Charm's hyper
        // reports 38 prompt and 8,576 cached) tells by a read larger than the prompt.
        let prompt = match cached {
            Some(read) if read > prompt => prompt + read,
            _ => prompt,
        };
        return Some(Usage {
            input: prompt,
            cache_read: cached.unwrap_or(0),
            cache_write: written.unwrap_or(0),
            cache_unknown: cached.is_none(),
            ..Usage::default()
        });
    }
    if let Some(details) = usage.get("input_tokens_details") {
        let cached = details.get("cached_tokens").and_then(Value::as_u64);
        // OpenAI reports the tokens written to its cache where a model bills them.
        let written = details.get("cache_write_tokens").and_then(Value::as_u64);
        return Some(Usage {
            input: count(usage.get("input_tokens")).unwrap_or(0),
            cache_read: cached.unwrap_or(0),
            cache_write: written.unwrap_or(0),
            cache_unknown: cached.is_none(),
            ..Usage::default()
        });
    }
    // Bedrock Converse spells Anthropic's fields in camel case (uncached input, like Anthropic).
    // Cohere v2: what it billed (`billed_units`), else what the model read (`tokens`); it
    // publishes no prompt cache.
    if let Some(units) = usage
        .get("billed_units")
        .or_else(|| usage.get("tokens"))
        .and_then(Value::as_object)
        && let Some(input) = count(units.get("input_tokens"))
    {
        return Some(Usage {
            input,
            ..Usage::default()
        });
    }
    // Bedrock writes some figures twice (`cacheReadInputTokens` beside an equal
    // `cacheReadInputTokenCount`, the invocation metrics' spelling): the first found is read.
    let input = count(usage.get("input_tokens"))
        .or_else(|| count(usage.get("inputTokens")))
        .or_else(|| count(usage.get("inputTokenCount")));
    let write = figure(
        usage,
        &[
            "cache_creation_input_tokens",
            "cacheWriteInputTokens",
            "cacheWriteInputTokenCount",
        ],
    );
    let read = figure(
        usage,
        &[
            "cache_read_input_tokens",
            "cacheReadInputTokens",
            "cacheReadInputTokenCount",
        ],
    );
    if input.is_none() && write.flatten().is_none() && read.flatten().is_none() {
        return None;
    }
    // Bedrock Converse leaves out the cache fields of a call that cached nothing; Anthropic
    // always writes them, as numbers or `null`.
    let camel = usage.contains_key("inputTokens") || usage.contains_key("inputTokenCount");
    let unknown = matches!(write, Some(None))
        || matches!(read, Some(None))
        || (!camel && write.is_none() && read.is_none());
    Some(Usage {
        input: input.unwrap_or(0),
        cache_write: write.flatten().unwrap_or(0),
        cache_read: read.flatten().unwrap_or(0),
        cache_unknown: unknown,
        cache_write_1h: long_writes(usage),
        ..Usage::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_prefix_check_answer_is_read_from_a_body_and_a_stream() {
        let refused = json!({"type": "error", "error": {"type": "invalid_request_error",
            "message": "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block."}});
        assert_eq!(prefix_answer(&refused), Some(PrefixAnswer::Refused));
        let other = json!({"type": "error", "error": {"message": "max_tokens: too large"}});
        assert_eq!(prefix_answer(&other), None);
        let dropped = json!({"id": "msg_1", "input_transformations": [
            {"type": "thinking_dropped", "path": "messages.3.content.0",
             "reason": "prefix_binding_mismatch"},
            {"type": "thinking_mismatch_allowed", "path": "messages.5.content.0"},
            {"type": "thinking_dropped", "path": "\u{1b}[2J"}]});
        assert_eq!(
            prefix_answer(&dropped),
            Some(PrefixAnswer::ThinkingDropped(vec![
                "messages.3.content.0".to_owned()
            ]))
        );
        assert_eq!(prefix_answer(&json!({"input_transformations": []})), None);
        let other = json!({"input_transformations": [{"type": "thinking_dropped",
            "path": "messages.1.content.0", "reason": "model_binding_mismatch"}]});
        assert_eq!(
            prefix_answer(&other),
            Some(PrefixAnswer::OtherModel(vec![
                "messages.1.content.0".to_owned()
            ]))
        );
        let allowed = json!({"input_transformations": [{"type": "thinking_mismatch_allowed",
            "path": "messages.5.content.0", "reason": "prefix_binding_mismatch"}]});
        assert_eq!(
            prefix_answer(&allowed),
            Some(PrefixAnswer::MismatchAllowed(vec![
                "messages.5.content.0".to_owned()
            ]))
        );
        // A stream: on `message_start`, repeated on the final `message_delta`.
        let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"input_transformations\":[{\"type\":\"thinking_dropped\",\"path\":\"messages.1.content.0\"}],\"usage\":{\"input_tokens\":5}}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"input_transformations\":[{\"type\":\"thinking_dropped\",\"path\":\"messages.1.content.0\"}],\"usage\":{\"output_tokens\":1}}\n\n";
        assert_eq!(
            prefix_answer_text(stream),
            Some(PrefixAnswer::ThinkingDropped(vec![
                "messages.1.content.0".to_owned()
            ]))
        );
        assert_eq!(
            prefix_answer_text(&refused.to_string()),
            Some(PrefixAnswer::Refused)
        );
        assert_eq!(prefix_answer_text("{\"usage\":{\"input_tokens\":1}}"), None);
    }

    fn usage(input: u64, cache_write: u64, cache_read: u64) -> Option<Usage> {
        Some(Usage {
            input,
            cache_write,
            cache_read,
            ..Usage::default()
        })
    }

    #[test]
    fn null_figures_are_unknown_and_server_tools_are_seen() {
        let null = json!({"usage": {"input_tokens": 12, "cache_creation_input_tokens": null,
            "cache_read_input_tokens": null}});
        assert!(from_json(&null).unwrap().cache_unknown);
        let missing = json!({"usage": {"prompt_tokens": 12, "completion_tokens": 3}});
        assert!(from_json(&missing).unwrap().cache_unknown);
        let deepseek = json!({"usage": {"prompt_tokens": 700, "prompt_cache_hit_tokens": 640,
            "prompt_cache_miss_tokens": 60}});
        assert_eq!(from_json(&deepseek).unwrap().cache_read, 640);
        assert!(!from_json(&deepseek).unwrap().cache_unknown);
        let search = json!({"content": [{"type": "server_tool_use", "name": "web_search"}],
            "usage": {"input_tokens": 9000, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0, "server_tool_use": {"web_search_requests": 1}}});
        assert_eq!(from_json(&search).unwrap().server_tool, Some("web_search"));
        let hosted = json!({"object": "response", "output": [{"type": "web_search_call"},
            {"type": "message"}], "usage": {"input_tokens": 8000,
            "input_tokens_details": {"cached_tokens": 7936}}});
        assert_eq!(from_json(&hosted).unwrap().server_tool, Some("web_search"));
        let plain = json!({"output": [{"type": "function_call"}], "usage": {"input_tokens": 8,
            "input_tokens_details": {"cached_tokens": 0}}});
        assert_eq!(from_json(&plain).unwrap().server_tool, None);
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
        let outside = json!({"usage": {"prompt_tokens": 38,
            "prompt_tokens_details": {"cached_tokens": 8576}}});
        assert_eq!(from_json(&outside), usage(8614, 0, 8576));
        let responses = json!({"object": "response", "usage": {"input_tokens": 5000,
            "input_tokens_details": {"cached_tokens": 4864}, "output_tokens": 20}});
        assert_eq!(from_json(&responses), usage(5000, 0, 4864));
        assert_eq!(from_json(&json!({"type": "error"})), None);
        // Server-side compaction: the passes are summed.
        let compacted = json!({"usage": {"input_tokens": 229, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0, "iterations": [
                {"type": "compaction", "input_tokens": 100, "cache_creation_input_tokens": 55096,
                 "cache_read_input_tokens": 0},
                {"type": "message", "input_tokens": 229, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}]}});
        assert_eq!(from_json(&compacted), usage(329, 55096, 0));
        let gemini = json!({"candidates": [], "usageMetadata": {"promptTokenCount": 1200,
            "cachedContentTokenCount": 1024, "candidatesTokenCount": 7}});
        assert_eq!(from_json(&gemini), usage(176, 0, 1024));
        let chunks = json!([{"candidates": []},
            {"candidates": [], "usageMetadata": {"promptTokenCount": 33}}, {"candidates": []}]);
        assert_eq!(from_json(&chunks), usage(33, 0, 0));
        let converse = json!({"output": {}, "usage": {"inputTokens": 15, "outputTokens": 3,
            "cacheReadInputTokens": 900, "cacheWriteInputTokens": 40}});
        assert_eq!(from_json(&converse), usage(15, 40, 900));
    }

    #[test]
    fn cohere_bills_its_billed_units() {
        let body = json!({"usage": {"billed_units": {"input_tokens": 121, "output_tokens": 51},
            "tokens": {"input_tokens": 624, "output_tokens": 54}}});
        assert_eq!(from_json(&body), usage(121, 0, 0));
    }

    #[test]
    fn bedrock_figures_written_twice_are_read_once() {
        let both = json!({"usage": {"inputTokens": 20, "outputTokens": 5,
            "cacheReadInputTokens": 900, "cacheReadInputTokenCount": 900,
            "cacheWriteInputTokens": 40, "cacheWriteInputTokenCount": 40}});
        assert_eq!(from_json(&both), usage(20, 40, 900));
        let counts = json!({"usage": {"inputTokenCount": 20, "cacheReadInputTokenCount": 900}});
        assert_eq!(from_json(&counts), usage(20, 0, 900));
    }

    #[test]
    fn openrouter_reports_writes() {
        let routed = json!({"choices": [], "usage": {"prompt_tokens": 2600,
            "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 2569}}});
        assert_eq!(from_json(&routed), usage(2600, 2569, 0));
    }

    #[test]
    fn openai_writes_the_hours_split_and_diagnostics() {
        // Responses (gpt-5.6 reports the tokens it wrote) and Chat.
        let responses = json!({"object": "response", "usage": {"input_tokens": 5200,
            "input_tokens_details": {"cached_tokens": 3840, "cache_write_tokens": 1217}}});
        assert_eq!(from_json(&responses), usage(5200, 1217, 3840));
        let stream = "event: response.completed\n\
            data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":70,\"input_tokens_details\":{\"cached_tokens\":0,\"cache_write_tokens\":64}}}}\n\n";
        assert_eq!(from_text(stream), usage(70, 64, 0));
        let chat = json!({"usage": {"prompt_tokens": 2600,
            "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 2569}}});
        assert_eq!(from_json(&chat), usage(2600, 2569, 0));
        // Anthropic: the hour's writes, and the diagnosis, in a body and in a stream.
        let body = json!({"id": "msg_1", "type": "message", "usage": {"input_tokens": 3,
            "cache_creation_input_tokens": 900, "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 800}},
            "diagnostics": {"cache_miss_reason": {"type": "tools_changed",
            "cache_missed_input_tokens": 880}}});
        let read = from_json(&body).unwrap();
        assert_eq!(read.cache_write_1h, Some(800));
        assert_eq!(
            read.diagnosis.and_then(diagnosis::Diagnosis::missed),
            Some(880)
        );
        assert_eq!(read.response_id, Some(diagnosis::id_hash("msg_1")));
        let streamed = "event: message_start\n\
            data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\",\"type\":\"message\",\"usage\":{\"input_tokens\":3,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":900},\"diagnostics\":{\"cache_miss_reason\":null}}}\n\n\
            event: message_delta\n\
            data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":4}}\n\n";
        let read = from_text(streamed).unwrap();
        assert_eq!(read.diagnosis, Some(diagnosis::Diagnosis::Pending));
        assert_eq!(read.response_id, Some(diagnosis::id_hash("msg_2")));
        assert_eq!(read.cache_write_1h, None);
    }

    #[test]
    fn gemini_stream() {
        let stream = "data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":90}}\r\n\r\n\
            data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":90,\"cachedContentTokenCount\":64}}\r\n\r\n";
        assert_eq!(from_text(stream), usage(26, 0, 64));
    }

    #[test]
    fn responses_reasoning_written_is_read() {
        let body = json!({"object": "response", "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB1"},
            {"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c"}],
            "usage": {"input_tokens": 76, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 800, "output_tokens_details": {"reasoning_tokens": 768}}});
        let read = from_json(&body).unwrap();
        assert_eq!(read.reasoning, Some((ciphertext_hash("gAAAAB1"), 768)));
        let stream = format!(
            "event: response.completed\ndata: {}\n\n",
            json!({"type": "response.completed", "response": body})
        );
        assert_eq!(from_text(&stream).unwrap().reasoning, read.reasoning);
        let plain = json!({"object": "response", "output": [], "usage": {"input_tokens": 5,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0}}});
        assert_eq!(from_json(&plain).unwrap().reasoning, None);
    }

    /// Gemini 3's thoughts by the signature the response wrote: JSON, a chunk array and a
    /// stream, the signature in one chunk and the count in another.
    #[test]
    fn gemini_thoughts_by_signature_are_read() {
        let sig = "Es8FCs+x/y==";
        let body = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": sig}]}}],
            "usageMetadata": {"promptTokenCount": 36, "candidatesTokenCount": 22,
            "thoughtsTokenCount": 632}});
        let read = from_json(&body).unwrap();
        assert_eq!(read.reasoning, Some((signature_hash(sig), 632)));
        // The URL-safe spelling a client sends back is the same signature.
        assert_eq!(signature_hash("Es8FCs-x_y"), signature_hash(sig));
        let first = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": sig}]}}]});
        let last = json!({"candidates": [], "usageMetadata": {"promptTokenCount": 36,
            "thoughtsTokenCount": 632}});
        assert_eq!(
            from_json(&json!([first, last])).unwrap().reasoning,
            read.reasoning
        );
        let stream = format!("data: {first}\r\n\r\ndata: {last}\r\n\r\n");
        assert_eq!(from_text(&stream).unwrap().reasoning, read.reasoning);
        // No thoughts, or no signature: nothing to bill later.
        let plain = json!({"candidates": [{"content": {"parts": [{"text": "hi"}]}}],
            "usageMetadata": {"promptTokenCount": 5, "thoughtsTokenCount": 12}});
        assert_eq!(from_json(&plain).unwrap().reasoning, None);
    }

    #[test]
    fn gemini_server_tools_are_seen() {
        let tool = |candidate: Value| {
            let body = json!({"candidates": [candidate],
                "usageMetadata": {"promptTokenCount": 274}});
            from_json(&body).unwrap().server_tool
        };
        let search = json!({"content": {"parts": [{"text": "May"}]}, "groundingMetadata":
            {"webSearchQueries": ["ggplot2 1.0.0 release date"], "groundingChunks": []}});
        assert_eq!(tool(search), Some("web_search"));
        let fetch = json!({"content": {"parts": [{"text": "x"}]}, "groundingMetadata": {},
            "urlContextMetadata": {"urlMetadata": []}});
        assert_eq!(tool(fetch), Some("web_fetch"));
        let code = json!({"content": {"parts": [{"executableCode": {"code": "1+1"}},
            {"codeExecutionResult": {"output": "2"}}]}});
        assert_eq!(tool(code), Some("code_execution"));
        // No search ran: an empty grounding is no tool.
        let plain = json!({"content": {"parts": [{"text": "hi"}]}, "groundingMetadata": {}});
        assert_eq!(tool(plain), None);
        let counted = json!({"candidates": [], "usageMetadata": {"promptTokenCount": 132,
            "toolUsePromptTokenCount": 1387}});
        let read = from_json(&counted).unwrap();
        assert_eq!(
            (read.server_tool, read.input),
            (Some("server tool"), 132 + 1387)
        );
        // In a stream or a JSON array of chunks, the grounding comes before the usage.
        let stream = "data: {\"candidates\":[{\"groundingMetadata\":{\"webSearchQueries\":[\"q\"]}}]}\r\n\r\n\
            data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":90}}\r\n\r\n";
        assert_eq!(from_text(stream).unwrap().server_tool, Some("web_search"));
        let chunks = json!([{"candidates": [{"content": {"parts": [{"executableCode": {}}]}}]},
            {"candidates": [], "usageMetadata": {"promptTokenCount": 90}}]);
        assert_eq!(
            from_json(&chunks).unwrap().server_tool,
            Some("code_execution")
        );
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
        // Compaction ran: the final delta's passes are the call's bill, not its top fields.
        let compacted = "event: message_start\n\
            data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":100,\"cache_read_input_tokens\":55096}}}\n\n\
            event: message_delta\n\
            data: {\"type\":\"message_delta\",\"usage\":{\"input_tokens\":181,\"cache_read_input_tokens\":0,\"iterations\":[{\"type\":\"compaction\",\"input_tokens\":100,\"cache_read_input_tokens\":55096,\"cache_creation_input_tokens\":0},{\"type\":\"message\",\"input_tokens\":181,\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0}]}}\n\n";
        assert_eq!(from_text(compacted), usage(281, 0, 55096));
        // Z.ai's GLM: the start counts nothing, the delta holds the call's figures.
        let glm = "event: message_start\n\
            data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":0,\"output_tokens\":0}}}\n\n\
            event: message_delta\n\
            data: {\"type\":\"message_delta\",\"usage\":{\"input_tokens\":262,\"output_tokens\":51,\"cache_read_input_tokens\":20439}}\n\n";
        assert_eq!(from_text(glm), usage(262, 0, 20439));
        let nulled = glm.replace("20439", "null");
        assert!(from_text(&nulled).unwrap().cache_unknown);
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
