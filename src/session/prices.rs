//! Prices and the providers' cache rules: a model's list price, the shortest cached prefix,
//! OpenAI's cached-read price, and the rules one request is modelled with (SESSIONS.md
//! section 3, "Providers").

use serde_json::Value;

use super::schema::ModelRates;
use super::{cache, models, provider};
use crate::capture::Shape;
use crate::settings::{Multiplier, Settings};

/// A model's input price in US dollars per million tokens: `cache.price` when set, else its
/// list price where the tables name the model (`models.rs`; SESSIONS.md, "The price of a
/// break"). A model no table names has none.
pub fn price_per_million(settings: &Settings, model: &str) -> Option<f64> {
    if let Some(price) = settings.cache.price {
        return Some(price.get());
    }
    models::input_price(model)
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

/// What OpenAI bills a cached input token at, in input tokens, where its table names the
/// model (`None`: unknown).
pub fn openai_read_for(model: &str) -> Option<f64> {
    models::openai_model(model).and_then(|row| row.read)
}

/// A cached read where the model's is unknown: modelled at a tenth of input (Anthropic's
/// rule for all but its newest models, OpenAI's since GPT-5), and said to be assumed.
pub const ASSUMED_READ: f64 = 0.1;

/// What the tables know of a request's model: for a provider whose figures are per model
/// (Claude's, OpenAI's), the model's row; others' figures are the provider's own.
pub(super) fn model_rates(provider: provider::Provider, model: &str) -> ModelRates {
    use provider::Provider as P;
    match provider {
        P::Anthropic | P::Bedrock | P::Vertex | P::Foundry => match models::claude_model(model) {
            Some(row) => ModelRates {
                known: true,
                min_tokens: row.min_tokens,
                input_price: row.input,
                read: Some(row.read),
                write: Some(models::CLAUDE_WRITE),
                write_1h: Some(models::CLAUDE_WRITE_1H),
            },
            None => ModelRates::UNKNOWN,
        },
        P::OpenAi | P::Azure => match models::openai_model(model) {
            Some(row) => ModelRates {
                known: row.read.is_some(),
                min_tokens: Some(1024),
                input_price: Some(row.input),
                read: row.read,
                write: Some(1.0),
                write_1h: Some(1.0),
            },
            None => ModelRates::UNKNOWN,
        },
        other => {
            let rules = other.rules();
            ModelRates {
                known: rules.is_some(),
                min_tokens: rules.map(|r| {
                    r.min_tokens
                        .unwrap_or_else(|| provider::min_tokens(other, model))
                }),
                input_price: None,
                read: rules.and_then(|r| r.read_price),
                write: rules.map(|_| 1.0),
                write_1h: rules.map(|_| 1.0),
            }
        }
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
            known
                .read_price
                .or_else(|| openai_read_for(model))
                .unwrap_or(ASSUMED_READ),
            1.0,
            1.0,
        )
    } else {
        let row = models::claude_model(model);
        (
            row.map_or(ASSUMED_READ, |r| r.read),
            models::CLAUDE_WRITE,
            models::CLAUDE_WRITE_1H,
        )
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
