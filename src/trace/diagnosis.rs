//! Anthropic's cache diagnostics (SESSIONS.md section 3, "The provider's diagnosis"): what a
//! response's `diagnostics` says of the request's cache against the message the request named
//! (`diagnostics.previous_message_id`). In a stream it is on `message_start`'s `message`.

use serde::Serialize;
use serde_json::Value;

/// A part of the request, in the order the provider compares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// The model.
    Model,
    /// The tools (added, removed, reordered, or an entry changed).
    Tools,
    /// The system prompt.
    System,
    /// An earlier message (altered, reordered or removed).
    Messages,
}

impl Part {
    /// The part as the report writes it.
    pub fn word(self) -> &'static str {
        match self {
            Part::Model => "model",
            Part::Tools => "tools",
            Part::System => "system",
            Part::Messages => "messages",
        }
    }
}

/// What a response's `diagnostics` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Diagnosis {
    /// `null`: no divergence from the named message, or the request asked for none.
    Clear,
    /// `{"cache_miss_reason": null}`: the comparison was still pending; inconclusive.
    Pending,
    /// The earliest divergence: this part changed, and about this many input tokens (an
    /// estimate from byte lengths) came after it.
    Changed {
        /// The part.
        part: Part,
        /// `cache_missed_input_tokens`.
        missed: Option<u64>,
    },
    /// `previous_message_not_found`: no fingerprint of the named message (not asked for it,
    /// another workspace, or expired).
    NotFound,
    /// `unavailable`: beyond the comparison horizon, or a difference outside model, system,
    /// tools and messages (`tool_choice`, `thinking`, beta headers, ...).
    Unavailable,
    /// A reason this version does not know.
    Unrecognized,
}

impl Diagnosis {
    /// Read a response's `diagnostics` value (`None`: not an object or `null`).
    pub(crate) fn read(value: &Value) -> Option<Diagnosis> {
        if value.is_null() {
            return Some(Diagnosis::Clear);
        }
        let reason = value.as_object()?.get("cache_miss_reason")?;
        if reason.is_null() {
            return Some(Diagnosis::Pending);
        }
        let missed = reason
            .get("cache_missed_input_tokens")
            .and_then(Value::as_u64);
        let part = |part| Diagnosis::Changed { part, missed };
        Some(match reason.get("type").and_then(Value::as_str) {
            Some("model_changed") => part(Part::Model),
            Some("system_changed") => part(Part::System),
            Some("tools_changed") => part(Part::Tools),
            Some("messages_changed") => part(Part::Messages),
            Some("previous_message_not_found") => Diagnosis::NotFound,
            Some("unavailable") => Diagnosis::Unavailable,
            _ => Diagnosis::Unrecognized,
        })
    }

    /// The diagnosis in the provider's words (`null` written as `none`).
    pub fn word(self) -> &'static str {
        match self {
            Diagnosis::Clear => "none",
            Diagnosis::Pending => "pending",
            Diagnosis::Changed { part, .. } => match part {
                Part::Model => "model_changed",
                Part::Tools => "tools_changed",
                Part::System => "system_changed",
                Part::Messages => "messages_changed",
            },
            Diagnosis::NotFound => "previous_message_not_found",
            Diagnosis::Unavailable => "unavailable",
            Diagnosis::Unrecognized => "unrecognized",
        }
    }

    /// The part it names (`None`: no change named).
    pub fn part(self) -> Option<Part> {
        match self {
            Diagnosis::Changed { part, .. } => Some(part),
            _ => None,
        }
    }

    /// The input tokens it says fell after the divergence.
    pub fn missed(self) -> Option<u64> {
        match self {
            Diagnosis::Changed { missed, .. } => missed,
            _ => None,
        }
    }
}

/// A message id as the session keeps it: hashed.
pub fn id_hash(id: &str) -> u64 {
    u64::from_le_bytes(
        blake3::hash(id.as_bytes()).as_bytes()[..8]
            .try_into()
            .unwrap_or_default(),
    )
}

/// The hashed `id` of an Anthropic message that carries `diagnostics` (a response body, or a
/// stream's `message_start` message): what a later request's `previous_message_id` names.
pub(crate) fn message_id(body: &Value) -> Option<u64> {
    let message = body.as_object()?;
    if message.get("type").and_then(Value::as_str) != Some("message")
        || !message.contains_key("diagnostics")
    {
        return None;
    }
    message.get("id").and_then(Value::as_str).map(id_hash)
}

/// The `diagnostics` of a response body (an Anthropic message), if it has the key.
pub(crate) fn of_body(body: &Value) -> Option<Diagnosis> {
    body.as_object()?
        .get("diagnostics")
        .and_then(Diagnosis::read)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_reason_reads_as_its_variant() {
        let read = |v: Value| of_body(&json!({"type": "message", "diagnostics": v}));
        assert_eq!(read(Value::Null), Some(Diagnosis::Clear));
        assert_eq!(
            read(json!({"cache_miss_reason": null})),
            Some(Diagnosis::Pending)
        );
        for (word, part) in [
            ("model_changed", Part::Model),
            ("system_changed", Part::System),
            ("tools_changed", Part::Tools),
            ("messages_changed", Part::Messages),
        ] {
            let d = read(json!({"cache_miss_reason": {"type": word,
                "cache_missed_input_tokens": 41850}}))
            .unwrap();
            assert_eq!(
                d,
                Diagnosis::Changed {
                    part,
                    missed: Some(41850)
                }
            );
            assert_eq!(d.word(), word);
        }
        let only = |t: &str| read(json!({"cache_miss_reason": {"type": t}}));
        assert_eq!(
            only("previous_message_not_found"),
            Some(Diagnosis::NotFound)
        );
        assert_eq!(only("unavailable"), Some(Diagnosis::Unavailable));
        assert_eq!(only("something_new"), Some(Diagnosis::Unrecognized));
        assert_eq!(of_body(&json!({"type": "message"})), None);
        assert_eq!(read(json!("odd")), None);
    }
}
