//! `append`: each change of a thread's tool list sent as a mid-conversation system message
//! (the provider's own feature, PROVIDERS.md 1.1; issue 41). A single request has no change to
//! send: it goes as it is (`not_applicable`), or is refused where the provider takes no
//! mid-conversation tool changes. The session replays it turn by turn (`session::append`).

use serde_json::Value;

use crate::capture::{Capture, Shape};
use crate::projection::Draft;
use crate::settings::Settings;
use crate::tool_changes::ClaudeModel;

/// Why a single request gets nothing from `append`.
pub const SINGLE_REQUEST: &str = "a single request changes no tool list between turns: append sends it as it is (its figures come from a trace: `toolprism session TRACE`)";

/// Why the provider refuses `append`'s request for this capture, if it does.
pub fn refusal(capture: &Capture) -> Option<String> {
    if capture.shape() != Shape::AnthropicMessages {
        return Some(format!(
            "a {} request: inline tool definitions are Anthropic Messages on the Claude API only",
            capture.shape().id()
        ));
    }
    if capture.body().get("anthropic_version").is_some() {
        return Some(
            "Amazon Bedrock takes tool changes by reference only: inline definitions are Claude API only"
                .to_owned(),
        );
    }
    let model = capture.body().get("model").and_then(Value::as_str)?;
    match ClaudeModel::parse(model) {
        Some(claude) if claude.takes_system_messages() => None,
        Some(claude) => Some(format!(
            "{} takes no mid-conversation tool changes",
            claude.name()
        )),
        None => Some(format!(
            "`{}` is no model that takes mid-conversation tool changes",
            crate::sanitize::visible(model)
        )),
    }
}

/// `append` on one request: the request as it is, or the provider's refusal.
pub fn project(capture: &Capture, _settings: &Settings) -> Draft {
    // No tools: the engine's own reason (nothing to project) leads.
    if capture.tools().is_empty() {
        return Draft::unchanged(capture);
    }
    if let Some(why) = refusal(capture) {
        return Draft::refused(capture, why);
    }
    let mut draft = Draft::unchanged(capture);
    draft.not_applicable(SINGLE_REQUEST);
    draft
}

/// The system message that sends one change: an inline definition (`tool_definition`) of each
/// added or changed tool (their compact JSON entries, in order), then a `tool_removal` of each
/// removed one, by name.
pub fn change_message<'a>(
    defined: impl IntoIterator<Item = &'a str>,
    removed: impl IntoIterator<Item = &'a str>,
) -> String {
    let mut blocks = Vec::new();
    for entry in defined {
        blocks.push(format!(
            r#"{{"type":"tool_addition","tool":{{"type":"tool_definition","definition":{entry}}}}}"#
        ));
    }
    for name in removed {
        let name = serde_json::to_string(name).unwrap_or_default();
        blocks.push(format!(
            r#"{{"type":"tool_removal","tool":{{"type":"tool_reference","name":{name}}}}}"#
        ));
    }
    format!(r#"{{"role":"system","content":[{}]}}"#, blocks.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::ProjectionStatus;

    fn capture(json: &str) -> Capture {
        Capture::from_bytes(json.as_bytes()).unwrap()
    }

    #[test]
    fn a_single_request_goes_as_it_is_or_is_refused() {
        let settings = Settings::default();
        let opus = capture(
            r#"{"model":"claude-opus-5-5","max_tokens":8,"messages":[],"tools":[{"name":"a","input_schema":{"type":"object"}}]}"#,
        );
        let p = project(&opus, &settings);
        assert_eq!(
            p.status,
            ProjectionStatus::NotApplicable(SINGLE_REQUEST.to_owned())
        );
        assert_eq!(p.sent.map(|s| s.len()), Some(1), "sent as it is");
        let sonnet = capture(
            r#"{"model":"claude-sonnet-4-5","max_tokens":8,"messages":[],"tools":[{"name":"a","input_schema":{"type":"object"}}]}"#,
        );
        let p = project(&sonnet, &settings);
        assert_eq!(
            p.status,
            ProjectionStatus::Refused(
                "Sonnet 4.5 takes no mid-conversation tool changes".to_owned()
            )
        );
        let openai = capture(
            r#"{"model":"gpt-5","messages":[],"tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]}"#,
        );
        assert!(project(&openai, &settings).status.is_refused());
        // No tools: left to the engine's own reason.
        let empty = capture(r#"{"model":"gpt-5","messages":[]}"#);
        assert_eq!(project(&empty, &settings).status, ProjectionStatus::Ok);
    }

    #[test]
    fn a_change_is_inline_definitions_then_removals() {
        let text = change_message([r#"{"name":"b"}"#], ["a\"x"]);
        assert_eq!(
            text,
            r#"{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"b"}}},{"type":"tool_removal","tool":{"type":"tool_reference","name":"a\"x"}}]}"#
        );
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["content"].as_array().map(Vec::len), Some(2));
    }
}
