//! Why a turn's modelled cache disagrees with the one the provider billed: the reason a
//! disagreeing verdict gives (SESSIONS.md section 3, "Checked against the bill").

use super::{CacheFigures, cache, provider, verdict};
use crate::settings::Settings;

/// Why the modelled cache of a request disagrees with the one the provider reported, where
/// the trace can tell.
pub(super) fn explain(
    seen: &CacheFigures,
    m: &cache::Modelled,
    rules: &cache::Rules,
    settings: &Settings,
) -> String {
    let minutes = |ms: i64| format!("{:.1} min", ms as f64 / 60_000.0);
    let life = |long: bool| {
        let key = match (long, rules.openai) {
            (false, _) => "cache.ttl",
            (true, false) => "cache.ttl_1h",
            (true, true) => "cache.ttl_24h",
        };
        // `cache.ttl` left to `auto`: the provider's own lifetime, as it resolved.
        match (long, settings.cache_ttl_ms) {
            (false, None) if rules.ttl_ms >= provider::NO_LIFETIME => {
                format!("{key}=auto (the provider publishes no lifetime)")
            }
            (false, None) => format!("{key}={}", crate::setting_key::duration_text(rules.ttl_ms)),
            _ => format!("{key}={}", settings.get(key).unwrap_or_default()),
        }
    };
    let observed = format!("observed a {}", seen.state);
    let modelled = format!("modelled a {}", m.state());
    if seen.read > 0 && m.read == 0 {
        if !rules.openai && m.marks == 0 {
            return format!(
                "{observed}; {modelled} because the request sets no cache_control breakpoint: the provider cached without one"
            );
        }
        if let Some((tokens, gap)) = m.expired {
            return format!(
                "{observed}; {modelled} because of a lifetime gap: the prefix ({tokens} tokens) was last used {} before, past {}; the provider still held it",
                minutes(gap),
                life(false)
            );
        }
        if m.short.is_some() && rules.min_tokens >= provider::NO_IMPLICIT_CACHE {
            return format!(
                "{observed}; {modelled} because the model has no implicit cache: the provider read {} tokens of a cache the request does not name",
                seen.read
            );
        }
        if let Some(short) = m.short {
            return format!(
                "{observed}; {modelled} because of the minimum length: the prefix is {short} tokens by the exact count, under cache.min_tokens={} (the provider counts with its own tokenizer)",
                rules.min_tokens
            );
        }
        return format!(
            "{observed}; {modelled} because the prefix was never seen: the provider read {} tokens written by a request the trace does not show",
            seen.read
        );
    }
    if seen.read == 0 && m.read > 0 {
        let when = m.read_gap.map_or(
            "(the trace has no timestamps: every turn counts as within the lifetime)".to_owned(),
            |g| format!("last used {} before, within {}", minutes(g), life(false)),
        );
        if rules.openai {
            return format!(
                "{observed}; {modelled} because the provider did not read a prefix it was sent ({} tokens) {when}: automatic caching is best effort (evicted early, or served by a machine that did not hold it)",
                m.read
            );
        }
        return format!(
            "{observed}; {modelled} because of early eviction: the provider no longer held the prefix ({} tokens) {when}",
            m.read
        );
    }
    if seen.write > 0 && m.written() == 0 {
        if !rules.openai && m.marks == 0 {
            return format!(
                "{observed}; {modelled} because the request sets no cache_control breakpoint: the provider cached without one"
            );
        }
        if let Some(short) = m.short {
            return format!(
                "{observed}; {modelled} because of the minimum length: the prefix is {short} tokens by the exact count, under cache.min_tokens={}; the provider cached it",
                rules.min_tokens
            );
        }
        if m.read > 0 && seen.read > m.read as u64 {
            return format!(
                "{observed}; {modelled}: the provider read {} tokens and wrote {} more, the model reads {} and has nothing left to write before the last breakpoint: the prompt the trace holds is not the one billed (calibration ratio far from 1)",
                seen.read, seen.write, m.read
            );
        }
        return format!(
            "{observed}; {modelled} because of early eviction: the provider wrote {} tokens the model has as still cached",
            seen.write
        );
    }
    if seen.write == 0 && m.written() > 0 {
        if seen.read == 0 && m.written() < 2 * rules.min_tokens {
            return format!(
                "{observed}; {modelled} because of the minimum length: the provider cached nothing of a {}-token prefix (its own count may be under its minimum, cache.min_tokens={})",
                m.written(),
                rules.min_tokens
            );
        }
        if seen.read == 0 {
            return format!(
                "{observed}; {modelled}: the provider reported no caching of a {}-token prefix the request marks; the trace does not tell why",
                m.written()
            );
        }
        return format!(
            "{observed}; {modelled} because the prefix was never seen: the provider had already cached what the model writes ({} tokens), written by a request the trace does not show",
            m.written()
        );
    }
    format!("{observed}; {modelled}")
}

/// Why a turn whose states agree disagrees on its amounts.
pub(super) fn amounts_differ(seen: &CacheFigures, m: &cache::Modelled, ratio: f64) -> String {
    format!(
        "the states agree ({}) but the amounts do not: read {} and wrote {}, modelled {:.0} and {:.0} provider tokens (calibrated by {:.3}; tolerance {:.0}% or {} tokens)",
        seen.state,
        seen.read,
        seen.write,
        m.read as f64 * ratio,
        m.written() as f64 * ratio,
        ratio,
        verdict::TOLERANCE * 100.0,
        verdict::TOLERANCE_TOKENS
    )
}
