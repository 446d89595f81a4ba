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

/// How `append` sends a tool change on a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The Claude API: each added or changed tool defined inline (`tool_definition`, the
    /// `inline-tools-2026-09-15` beta).
    Inline,
    /// Anthropic Messages on Amazon Bedrock (InvokeModel) or Google Cloud, which take changes by
    /// reference only (`mid-conversation-tool-changes-2026-07-01`): every later tool of the
    /// thread declared up front with `defer_loading: true`, each change a `tool_reference`.
    Reference(Platform),
    /// Bedrock Converse: `toolAddition` / `toolRemoval` blocks naming a `ToolReference`.
    /// Converse's `ToolSpecification` has no `defer_loading`, so only tools of the thread's
    /// first list can be added back.
    Converse,
}

/// Where an Anthropic Messages body with `anthropic_version` goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// Amazon Bedrock InvokeModel (`bedrock-…`): betas in the body's `anthropic_beta`.
    Bedrock,
    /// Google Cloud (`vertex-…`): betas in the `anthropic-beta` header.
    GoogleCloud,
}

impl Platform {
    /// The platform's name in a sentence.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Bedrock => "Amazon Bedrock",
            Platform::GoogleCloud => "Google Cloud",
        }
    }
}

/// How `append` sends a change on the host of `capture`, or why the provider takes none.
pub fn form(capture: &Capture) -> Result<Form, String> {
    let form = match capture.shape() {
        Shape::BedrockConverse => Form::Converse,
        Shape::AnthropicMessages => match capture.body().get("anthropic_version") {
            Some(version) => {
                let vertex = version.as_str().is_some_and(|v| v.starts_with("vertex"));
                Form::Reference(if vertex {
                    Platform::GoogleCloud
                } else {
                    Platform::Bedrock
                })
            }
            None => Form::Inline,
        },
        other => {
            return Err(format!(
                "{} requests take no mid-conversation tool changes (Anthropic Messages and Bedrock Converse only)",
                other.id()
            ));
        }
    };
    // A body without a model (nor a URL naming one) is not judged by its model.
    let Some(model) = capture.model() else {
        return Ok(form);
    };
    match ClaudeModel::parse(model) {
        Some(claude) if claude.takes_system_messages() => Ok(form),
        Some(claude) => Err(format!(
            "{} takes no mid-conversation tool changes",
            claude.name()
        )),
        None => Err(format!(
            "`{}` is no model that takes mid-conversation tool changes",
            crate::sanitize::visible(model)
        )),
    }
}

/// Whether a tools entry (compact JSON) is a Converse `cachePoint`: a cache marker in the
/// list, not a tool a change could name.
pub fn is_marker(json: &str) -> bool {
    json.starts_with(r#"{"cachePoint":"#)
}

/// Why the provider refuses `append`'s request for this capture, if it does.
pub fn refusal(capture: &Capture) -> Option<String> {
    form(capture).err()
}

/// A later tool declared up front for [`Form::Reference`]: the entry with
/// `defer_loading: true` (out of context until a reference adds it), without `cache_control`
/// (the provider rejects a marker on a deferred definition).
pub fn deferred_declaration(entry: &Value) -> Value {
    let mut entry = entry.clone();
    if let Some(object) = entry.as_object_mut() {
        object.shift_remove("cache_control");
        object.insert("defer_loading".to_owned(), Value::Bool(true));
    }
    entry
}

/// The system message that sends one change by reference: an addition of each added tool,
/// then a removal of each removed one, by name, in the form's field names.
pub fn reference_message<'a>(
    form: Form,
    added: impl IntoIterator<Item = &'a str>,
    removed: impl IntoIterator<Item = &'a str>,
) -> String {
    let name = |n: &str| serde_json::to_string(n).unwrap_or_default();
    let block = |kind: &str, n: &str| match form {
        Form::Converse => {
            let key = if kind == "tool_addition" {
                "toolAddition"
            } else {
                "toolRemoval"
            };
            format!(r#"{{"{key}":{{"tool":{{"name":{}}}}}}}"#, name(n))
        }
        _ => format!(
            r#"{{"type":"{kind}","tool":{{"type":"tool_reference","name":{}}}}}"#,
            name(n)
        ),
    };
    let blocks: Vec<String> = added
        .into_iter()
        .map(|n| block("tool_addition", n))
        .chain(removed.into_iter().map(|n| block("tool_removal", n)))
        .collect();
    format!(r#"{{"role":"system","content":[{}]}}"#, blocks.join(","))
}

/// Why a change cannot be sent by reference on `form`, if it cannot: a changed definition
/// (a reference names the one declared), and on Converse a tool not in the thread's first list
/// (`in_first`), which Converse cannot declare deferred.
pub fn reference_refusal<'a>(
    form: Form,
    added: impl IntoIterator<Item = &'a str>,
    redefined: Option<&str>,
    in_first: impl Fn(&str) -> bool,
) -> Option<String> {
    let host = match form {
        Form::Inline => return None,
        Form::Reference(platform) => platform.name(),
        Form::Converse => "Bedrock Converse",
    };
    let added: Vec<&str> = added.into_iter().collect();
    if added.contains(&"") || redefined == Some("") {
        return Some(format!(
            "an entry with no name (an `mcp_toolset`, a hosted tool) changed: {host} takes tool changes by reference only, and a `tool_reference` names a tool"
        ));
    }
    if let Some(name) = redefined {
        return Some(format!(
            "`{}` changed: {host} takes tool changes by reference only, and a reference cannot change a definition (inline definitions are the Claude API's only)",
            crate::sanitize::visible(name)
        ));
    }
    if form != Form::Converse {
        return None;
    }
    added.into_iter().find(|n| !in_first(n)).map(|name| {
        format!(
            "`{}` is new to the thread: Bedrock Converse adds tools by reference only, and its tool specification has no `defer_loading` to declare it up front",
            crate::sanitize::visible(name)
        )
    })
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
    fn each_host_takes_changes_in_its_own_form() {
        let tools = r#""tools":[{"name":"a","input_schema":{"type":"object"}}]"#;
        let bedrock = capture(&format!(
            r#"{{"anthropic_version":"bedrock-2023-05-31","max_tokens":8,"messages":[],{tools}}}"#
        ));
        assert_eq!(form(&bedrock), Ok(Form::Reference(Platform::Bedrock)));
        let vertex = capture(&format!(
            r#"{{"anthropic_version":"vertex-2023-10-16","max_tokens":8,"messages":[],{tools}}}"#
        ));
        assert_eq!(form(&vertex), Ok(Form::Reference(Platform::GoogleCloud)));
        let converse = capture(
            r#"{"messages":[],"toolConfig":{"tools":[{"toolSpec":{"name":"a","inputSchema":{"json":{}}}}]}}"#,
        );
        assert_eq!(form(&converse), Ok(Form::Converse));
        let old = converse.with_url_model(Some("anthropic.claude-sonnet-4-5-v1:0".to_owned()));
        assert_eq!(
            form(&old),
            Err("Sonnet 4.5 takes no mid-conversation tool changes".to_owned())
        );
        // On one request, Bedrock is no refusal: the request as it is.
        let p = project(&bedrock, &Settings::default());
        assert_eq!(
            p.status,
            ProjectionStatus::NotApplicable(SINGLE_REQUEST.to_owned())
        );
        // By reference: additions then removals, in each form's field names.
        assert_eq!(
            reference_message(Form::Converse, ["b"], ["a"]),
            r#"{"role":"system","content":[{"toolAddition":{"tool":{"name":"b"}}},{"toolRemoval":{"tool":{"name":"a"}}}]}"#
        );
        assert_eq!(
            reference_message(Form::Reference(Platform::Bedrock), ["b"], []),
            r#"{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_reference","name":"b"}}]}"#
        );
        // A changed definition cannot go by reference; Converse cannot add a new tool.
        let first = |n: &str| n == "a";
        let bedrock_form = Form::Reference(Platform::Bedrock);
        assert!(reference_refusal(bedrock_form, ["z"], None, first).is_none());
        assert!(reference_refusal(bedrock_form, [], Some("a"), first).is_some());
        assert!(reference_refusal(Form::Converse, ["a"], None, first).is_none());
        assert!(reference_refusal(Form::Converse, ["z"], None, first).is_some());
        assert!(reference_refusal(Form::Inline, ["z"], Some("a"), first).is_none());
        // A nameless entry (an `mcp_toolset`) cannot be named by a reference.
        assert!(reference_refusal(bedrock_form, [""], None, |_| true).is_some());
        assert!(is_marker(r#"{"cachePoint":{"type":"default"}}"#));
        assert!(!is_marker(r#"{"toolSpec":{"name":"a"}}"#));
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
