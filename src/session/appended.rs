//! A session's mid-conversation tool changes (PROVIDERS.md sections 1 and 3): what the system
//! messages appended since the thread's previous turn change, and the prefix check of the
//! models that bind thinking to the prompt before it.

use std::hash::Hasher;

use serde_json::Value;

use super::compare::ListChange;
use crate::capture::Capture;
use crate::tool;
use crate::tool_changes::{ClaudeModel, Kind, Target, ToolChanges};
use crate::trace::PrefixAnswer;

/// What the changes in messages at or after `since` (0-based) do, in order:
/// `+name (appended)`, `−name (appended)`, `name redefined (appended)`.
pub(super) fn appended(capture: &Capture, changes: &ToolChanges, since: usize) -> Vec<String> {
    let mut known: Vec<String> = capture
        .tools()
        .iter()
        .filter_map(|e| tool::name(e).map(str::to_owned))
        .collect();
    let mut out = Vec::new();
    for change in &changes.changes {
        let name = change.target.label();
        let fresh = change.message >= since;
        let text = match (&change.kind, &change.target) {
            (Kind::Removal, _) => format!("\u{2212}{name} (appended)"),
            (Kind::Addition, Target::Inline(_)) if known.contains(&name) => {
                format!("{name} redefined (appended)")
            }
            (Kind::Addition, _) => format!("+{name} (appended)"),
        };
        if matches!(change.target, Target::Inline(_)) && !known.contains(&name) {
            known.push(name);
        }
        if fresh {
            out.push(text);
        }
    }
    out
}

/// A hash of the request's top-level `system`, `cache_control` markers left out (the prefix
/// check compares the text, not the markers).
pub(super) fn system_hash(capture: &Capture) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    match capture.body().get("system") {
        Some(value) => super::context::hash_value(value, &mut hasher),
        None => hasher.write_u8(0),
    }
    hasher.finish()
}

/// The request's model binds thinking to the prefix and an earlier assistant turn holds a
/// thinking block: an edit of `tools` or `system` in place fails this turn.
pub(super) fn binds_thinking(capture: &Capture) -> bool {
    let binds = capture
        .body()
        .get("model")
        .and_then(Value::as_str)
        .and_then(ClaudeModel::parse)
        .is_some_and(ClaudeModel::binds_thinking);
    binds && holds_thinking(capture)
}

fn holds_thinking(capture: &Capture) -> bool {
    capture.conversation().iter().any(|message| {
        message.get("role").and_then(Value::as_str) == Some("assistant")
            && message
                .get("content")
                .and_then(Value::as_array)
                .is_some_and(|blocks| {
                    blocks.iter().any(|b| {
                        matches!(
                            b.get("type").and_then(Value::as_str),
                            Some("thinking" | "redacted_thinking")
                        ) || b.get("reasoningContent").is_some()
                    })
                })
    })
}

/// Whether a tool list change is only `defer_loading: true` entries appended that nothing
/// references yet (the one edit of `tools` the prefix check allows).
fn only_unreferenced_deferred(
    capture: &Capture,
    changes: &ToolChanges,
    change: &ListChange,
) -> bool {
    change.removed.is_empty()
        && change.changed.is_empty()
        && !change.order_changed
        && !change.added.is_empty()
        && change.added.iter().all(|name| {
            let deferred = capture
                .tools()
                .iter()
                .find(|e| tool::name(e) == Some(name))
                .is_some_and(tool::provider_deferred);
            deferred && !changes.offers(name)
        })
}

/// Why the provider refuses this turn of a thread whose previous turn is known: the tools
/// (or `system`) edited in place on a model that binds thinking, with an earlier thinking
/// block. The provider's own word where the response gives it (the 400's message,
/// `input_transformations`), else its 400 with the rule's reason, else the rule.
pub(super) fn prefix_check(
    capture: &Capture,
    changes: &ToolChanges,
    change: &ListChange,
    system_changed: bool,
    (status, answer): (Option<u16>, Option<&PrefixAnswer>),
) -> Option<String> {
    let what = binds_thinking(capture)
        .then(|| edited_in_place(capture, changes, change, system_changed))
        .flatten();
    match (answer, what) {
        (Some(answer), what) => Some(provider_word(answer, what)),
        (None, Some(what)) => Some(match status {
            Some(400) => format!(
                "the provider refused this turn (HTTP 400, preserved thinking): {what} after a thinking block"
            ),
            _ => format!("the provider refuses this turn: {what}"),
        }),
        (None, None) => None,
    }
}

/// The prefix check as the provider answered it, with what the rule finds edited (if any).
pub(super) fn provider_word(answer: &PrefixAnswer, what: Option<&str>) -> String {
    let what = what.unwrap_or("the prompt before it changed");
    match answer {
        PrefixAnswer::Refused => format!(
            "the provider refused this turn (HTTP 400: a thinking block bound to a different conversation): {what}"
        ),
        PrefixAnswer::ThinkingDropped(paths) => format!(
            "the provider dropped thinking at {} (prefix check): {what}",
            paths.join(", ")
        ),
    }
}

/// What was edited in place, by the rule: the tool list, the system prompt, or both.
fn edited_in_place(
    capture: &Capture,
    changes: &ToolChanges,
    change: &ListChange,
    system_changed: bool,
) -> Option<&'static str> {
    // Moving `cache_control` markers is no edit.
    let markers_only = change.added.is_empty()
        && change.removed.is_empty()
        && !change.order_changed
        && change.changed.iter().all(|c| c.fields == ["cache_control"]);
    let tools_edited = change.first_changed_byte.is_some()
        && !markers_only
        && !only_unreferenced_deferred(capture, changes, change);
    match (tools_edited, system_changed) {
        (true, true) => Some("the tool list and the system prompt were edited in place"),
        (true, false) => Some("the tool list was edited in place"),
        (false, true) => Some("the system prompt was edited in place"),
        (false, false) => None,
    }
}

/// What a turn's mid-conversation tool changes tell the session.
pub(super) struct Appended {
    /// The hash of its top-level `system`.
    pub(super) system: u64,
    /// The changes appended since the thread's previous turn, in words.
    pub(super) appended: Vec<String>,
    /// Why the provider refuses the turn (prefix check), if it does.
    pub(super) prefix_check: Option<String>,
    /// The tools in effect, where they are the turn's tool count.
    pub(super) in_effect: Option<usize>,
    /// Why the provider rejects its system messages and tool changes, one line each.
    pub(super) problems: Vec<String>,
}

impl Appended {
    /// Read a turn: `since` is the thread's previous request's message count; `previous`, when
    /// the thread has a previous turn, this turn's list change and the previous `system` hash.
    pub(super) fn of(
        capture: &Capture,
        since: usize,
        previous: Option<(&ListChange, Option<u64>)>,
        answer: (Option<u16>, Option<&PrefixAnswer>),
    ) -> Appended {
        let changes = ToolChanges::read(capture);
        let system = system_hash(capture);
        let prefix_check = match previous {
            Some((change, before)) => {
                let system_changed = before.is_some_and(|before| before != system);
                prefix_check(capture, &changes, change, system_changed, answer)
            }
            // The thread's first turn: the provider's word alone.
            None => answer.1.map(|a| provider_word(a, None)),
        };
        // On a model that takes tool changes, deferred declarations are out until a change
        // offers them (older models keep the count of entries sent).
        let takes_changes = capture
            .body()
            .get("model")
            .and_then(Value::as_str)
            .and_then(ClaudeModel::parse)
            .is_some_and(ClaudeModel::takes_system_messages);
        let in_effect = if changes.changes.is_empty() {
            // Without changes: the declared tools offered from the start, counted in place.
            takes_changes.then(|| {
                let tools = capture.tools().iter();
                tools
                    .filter(|e| crate::tool_changes::offered_from_start(e))
                    .count()
            })
        } else {
            Some(changes.in_effect(capture).tools.len())
        };
        Appended {
            system,
            appended: appended(capture, &changes, since),
            prefix_check,
            in_effect,
            problems: changes.problems(capture, None),
        }
    }
}
