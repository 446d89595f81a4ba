//! Prices and the providers' cache rules: a model's list price, the shortest cached prefix,
//! OpenAI's cached-read price, and the rules one request is modelled with (SESSIONS.md
//! section 3, "Providers").

use serde_json::Value;

use super::{cache, provider};
use crate::capture::Shape;
use crate::settings::{Multiplier, Settings};

/// A model's input price in US dollars per million tokens: `cache.price` when set, else its
/// list price where toolprism knows it (SESSIONS.md, "The price of a break").
pub fn price_per_million(settings: &Settings, model: &str) -> Option<f64> {
    if let Some(price) = settings.cache.price {
        return Some(price.get());
    }
    let m = model.to_ascii_lowercase();
    let has = |parts: &[&str]| parts.iter().any(|p| m.contains(p));
    // More specific names first: `gpt-4o-mini` before `gpt-4o`, Opus 4.5 before Opus 4.
    let table: [(&[&str], f64); 18] = [
        (&["opus-4-5", "opus-4.5", "opus-4-6", "opus-4.6"], 5.0),
        (&["opus"], 15.0),
        (&["haiku-4-5", "haiku-4.5"], 1.0),
        (&["3-5-haiku", "3.5-haiku", "haiku-3-5", "haiku-3.5"], 0.8),
        (&["3-haiku", "haiku-3"], 0.25),
        (&["sonnet"], 3.0),
        (&["gpt-5-nano"], 0.05),
        (&["gpt-5-mini"], 0.25),
        (&["gpt-5"], 1.25),
        (&["gpt-4.1-nano"], 0.1),
        (&["gpt-4.1-mini"], 0.4),
        (&["gpt-4.1"], 2.0),
        (&["gpt-4o-mini"], 0.15),
        (&["gpt-4o"], 2.5),
        (&["o4-mini", "o3-mini"], 1.1),
        (&["o3"], 2.0),
        (&["o1-mini"], 1.1),
        (&["o1"], 15.0),
    ];
    table
        .iter()
        .find(|(parts, _)| has(parts))
        .map(|&(_, price)| price)
}

pub(super) fn provider_is_openai(shape: Shape) -> bool {
    matches!(shape, Shape::OpenAiChat | Shape::OpenAiResponses)
}

/// The shortest cached prefix for a model, from the providers' published tables (docs/SESSIONS.md).
pub fn min_tokens_for(model: &str, openai: bool) -> usize {
    if openai {
        1024
    } else {
        provider::min_tokens(provider::Provider::Anthropic, model)
    }
}

/// What OpenAI bills a cached input token at, in input tokens, by model family (published
/// prices, docs/SESSIONS.md).
pub fn openai_read_for(model: &str) -> f64 {
    let m = model.to_ascii_lowercase();
    if m.starts_with("gpt-5") || m.contains("/gpt-5") {
        0.1
    } else if m.starts_with("gpt-4.1")
        || m.starts_with("o3")
        || m.starts_with("o4")
        || m.starts_with("codex-mini")
    {
        0.25
    } else {
        0.5
    }
}

/// The cache rules one request is modelled with: the settings', else the provider's defaults
/// for its model (the provider told by the body's shape).
pub fn rules_for(shape: Shape, body: &Value, settings: &Settings) -> cache::Rules {
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let who = provider::identify(None, shape, model);
    rules_with(shape, body, model, settings, who.provider)
}

/// The cache rules of a request that met `provider`'s cache (SESSIONS.md section 3,
/// "Providers"): its caching, minimum and step, the settings' values where they are set. An
/// unmodelled provider is modelled by the body's shape for the strategies' what-ifs; its turns
/// are never judged.
pub fn rules_with(
    shape: Shape,
    body: &Value,
    model: &str,
    settings: &Settings,
    provider: provider::Provider,
) -> cache::Rules {
    let fallback = provider::identify(None, shape, model).provider;
    let (provider, known) = provider
        .rules()
        .map(|r| (provider, r))
        .or_else(|| fallback.rules().map(|r| (fallback, r)))
        .unwrap_or((provider::Provider::Anthropic, provider::BREAKPOINTS));
    let openai = known.caching == provider::Caching::Automatic;
    let (read, write, write_long) = if openai {
        (
            known.read_price.unwrap_or_else(|| openai_read_for(model)),
            1.0,
            1.0,
        )
    } else {
        (0.1, 1.25, 2.0)
    };
    let openai_proper = matches!(
        provider,
        provider::Provider::OpenAi | provider::Provider::Azure
    );
    cache::Rules {
        openai,
        min_tokens: settings.cache.min_tokens.unwrap_or_else(|| {
            known
                .min_tokens
                .unwrap_or_else(|| provider::min_tokens(provider, model))
        }),
        lookback: settings.cache.lookback,
        max_marks: settings.cache.breakpoints,
        step: if openai_proper || !openai {
            settings.cache.step
        } else {
            known.step
        },
        ttl_ms: settings.cache_ttl_ms.unwrap_or(known.ttl_ms),
        ttl_long_ms: if openai {
            settings.cache.ttl_24h_ms
        } else {
            settings.cache.ttl_1h_ms
        },
        units: known.units,
        long_retention: openai
            && body.get("prompt_cache_retention").and_then(Value::as_str) == Some("24h"),
        read: settings.cache_read.map_or(read, Multiplier::get),
        write: settings.cache_write.map_or(write, Multiplier::get),
        write_long: settings.cache.write_1h.map_or(write_long, Multiplier::get),
    }
}
