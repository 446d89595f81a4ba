//! A session's mid-conversation tool changes (PROVIDERS.md sections 1 and 3): what the system
//! messages appended since the thread's previous turn change, and the prefix check of the
//! models that bind thinking to the prompt before it.

use std::hash::Hasher;

use serde_json::Value;

use super::compare::ListChange;
use crate::capture::Capture;
use crate::tool;
use crate::tool_changes::{ClaudeModel, Kind, Target, ToolChanges, same_definition};
use crate::trace::PrefixAnswer;

/// What the changes in messages at or after `since` (0-based) do, in order:
/// `+name (appended)`, `−name (appended)`, `name redefined (appended)`.
pub(super) fn appended(capture: &Capture, changes: &ToolChanges, since: usize) -> Vec<String> {
    // Each name's definition so far: declared, then defined inline.
    let mut known: Vec<(String, &Value)> = capture
        .tools()
        .iter()
        .filter_map(|e| tool::name(e).map(|n| (n.to_owned(), e)))
        .collect();
    let mut removed: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for change in &changes.changes {
        let name = change.target.label();
        let fresh = change.message >= since;
        let before = known.iter().position(|k| k.0 == name);
        let was_removed = removed.contains(&name);
        match change.kind {
            Kind::Removal if !was_removed => removed.push(name.clone()),
            Kind::Addition => removed.retain(|r| *r != name),
            Kind::Removal => {}
        }
        let text = match (&change.kind, &change.target) {
            (Kind::Removal, _) => Some(format!("\u{2212}{name} (appended)")),
            (Kind::Addition, Target::Inline(_)) if was_removed => {
                Some(format!("+{name} (appended)"))
            }
            // The same definition again changes nothing.
            (Kind::Addition, Target::Inline(definition))
                if before.is_some_and(|at| same_definition(known[at].1, definition)) =>
            {
                None
            }
            (Kind::Addition, Target::Inline(_)) if before.is_some() => {
                Some(format!("{name} redefined (appended)"))
            }
            (Kind::Addition, _) => Some(format!("+{name} (appended)")),
        };
        if let Target::Inline(definition) = &change.target {
            known.retain(|k| k.0 != name);
            known.push((name, definition));
        }
        if fresh {
            out.extend(text);
        }
    }
    out
}

/// The tools a tool search returned in messages at or after `since` (0-based) that were not in
/// effect before: `+name (tool search)`.
fn searched(capture: &Capture, changes: &ToolChanges, since: usize) -> Vec<String> {
    let offered: Vec<String> = capture
        .tools()
        .iter()
        .filter(|e| crate::tool_changes::offered_from_start(e))
        .filter_map(|e| tool::name(e).map(str::to_owned))
        .collect();
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for (at, name) in &changes.loads {
        let before = offered.contains(name)
            || seen.contains(&name.as_str())
            || changes
                .changes
                .iter()
                .any(|c| c.message < *at && c.kind == Kind::Addition && c.target.label() == *name);
        seen.push(name);
        if !before && *at >= since {
            out.push(format!("+{name} (tool search)"));
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

/// A hash of the request's first `n` messages as a conversation is told apart: its first
/// message and its `n`th, `cache_control` markers left out (hashing every message of every
/// turn made a long session 30% slower). Another thread's last request continued by this one
/// (its system prompt edited in place, which starts a thread of its own) has the same.
pub(super) fn messages_hash(capture: &Capture, n: usize) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    let messages = capture.conversation();
    hasher.write_usize(n);
    for at in [0, n.saturating_sub(1)] {
        if let Some(message) = messages.get(at).filter(|_| n > 0) {
            super::context::hash_value(message, &mut hasher);
        }
    }
    hasher.finish()
}

/// What a thread remembers of its last request on a model that binds thinking: its message
/// count, their hash and the model.
pub(super) fn last_messages(capture: &Capture, model: &str) -> Option<(usize, u64, String)> {
    let count = capture.conversation().len();
    ClaudeModel::parse(model)
        .is_some_and(ClaudeModel::binds_thinking)
        .then(|| (count, messages_hash(capture, count), model.to_owned()))
}

/// Whether a thread's first request continues another thread's last request (`threads`: each
/// one's system hash and [`last_messages`]): the same model, its messages and more, another
/// system prompt. Threads are keyed by their system prompt, so one edited in place starts a
/// thread of its own.
pub(super) fn continues<'a>(
    capture: &Capture,
    model: &str,
    threads: impl Iterator<Item = (Option<u64>, Option<&'a (usize, u64, String)>)>,
) -> bool {
    if !binds_thinking(capture, model) {
        return false;
    }
    let count = capture.conversation().len();
    let system = Some(system_hash(capture));
    threads
        .filter(|(other, _)| *other != system)
        .filter_map(|(_, last)| last)
        .any(|(n, hash, m)| {
            *n > 0 && *n < count && m == model && messages_hash(capture, *n) == *hash
        })
}

/// The request's model binds thinking to the prefix and an earlier assistant turn holds a
/// thinking block: an edit of `tools` or `system` in place fails this turn.
pub(super) fn binds_thinking(capture: &Capture, model: &str) -> bool {
    let binds = ClaudeModel::parse(model).is_some_and(ClaudeModel::binds_thinking);
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

/// Whether a change of the tool list between two requests edits the prefix the provider's
/// check compares (PROVIDERS.md section 3): not when only `cache_control` markers moved, nor
/// when the only edit is new entries `added_unreferenced` accepts (`defer_loading: true`
/// tools nothing references yet).
fn edits_prefix(change: &ListChange, added_unreferenced: impl Fn(&str) -> bool) -> bool {
    if change.first_changed_byte.is_none() {
        return false;
    }
    let markers_only = change.added.is_empty()
        && change.removed.is_empty()
        && !change.order_changed
        && change.changed.iter().all(|c| c.fields == ["cache_control"]);
    let deferred_only = change.removed.is_empty()
        && change.changed.is_empty()
        && !change.order_changed
        && !change.added.is_empty()
        && change.added.iter().all(|name| added_unreferenced(name));
    !markers_only && !deferred_only
}

/// Whether the tool list `change` leading to this request (its tools as `entries[now]`) edits
/// the prefix on a model that binds thinking, with thinking earlier in the conversation.
pub(super) fn refused_in_place(
    (capture, model): (&Capture, &str),
    change: &ListChange,
    entries: &[super::compare::Entry],
    now: &[u32],
) -> bool {
    if change.first_changed_byte.is_none() || !binds_thinking(capture, model) {
        return false;
    }
    let changes = ToolChanges::read(capture);
    edits_prefix(change, |name| {
        let entry = now
            .iter()
            .map(|&i| &entries[i as usize])
            .find(|e| &*e.name == name);
        let deferred = entry
            .and_then(|e| serde_json::from_str::<Value>(&e.json).ok())
            .is_some_and(|v| tool::provider_deferred(&v));
        deferred && !changes.offers(name)
    })
}

/// Why the provider refuses this turn of a thread whose previous turn is known: the tools
/// (or `system`) edited in place on a model that binds thinking, with an earlier thinking
/// block. The provider's own word where the response gives it (the 400's message,
/// `input_transformations`), else its 400 with the rule's reason, else the rule.
pub(super) fn prefix_check(
    (capture, model): (&Capture, &str),
    changes: &ToolChanges,
    change: &ListChange,
    system_changed: bool,
    (status, answer): (Option<u16>, Option<&PrefixAnswer>),
) -> Option<String> {
    let what = binds_thinking(capture, model)
        .then(|| edited_in_place(capture, changes, change, system_changed))
        .flatten();
    match (answer, what) {
        (Some(answer), what) => Some(provider_word(answer, what)),
        (None, Some(what)) => Some(match status {
            Some(400) => format!(
                "the provider refused this turn (HTTP 400, preserved thinking): {what} after a thinking block"
            ),
            // It answered: the check failed without a refusal (blocks dropped where
            // `drop_block` was set, or an account the check does not enforce on).
            Some(ok) if (200..300).contains(&ok) => format!(
                "the prefix check fails: {what} after a thinking block; the provider answered (HTTP {ok}), so it dropped or kept that thinking rather than refuse"
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
        PrefixAnswer::OtherModel(paths) => format!(
            "the provider dropped thinking at {} written by another model (model_binding_mismatch: no edit of the prompt)",
            paths.join(", ")
        ),
        PrefixAnswer::MismatchAllowed(paths) => format!(
            "the provider let thinking at {} through although it failed the prefix check (thinking_mismatch_allowed): {what}",
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
    let tools_edited = edits_prefix(change, |name| {
        let deferred = capture
            .tools()
            .iter()
            .find(|e| tool::name(e) == Some(name))
            .is_some_and(tool::provider_deferred);
        deferred && !changes.offers(name)
    });
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
    /// `continues`: the thread's first turn continues another thread's conversation under
    /// another system prompt (the prompt was edited in place).
    pub(super) fn of(
        (capture, model): (&Capture, &str),
        since: usize,
        previous: Option<(&ListChange, Option<u64>)>,
        continues: bool,
        answer: (Option<u16>, Option<&PrefixAnswer>),
    ) -> Appended {
        let changes = ToolChanges::read(capture);
        let system = system_hash(capture);
        let prefix_check = match previous {
            Some((change, before)) => {
                let system_changed = before.is_some_and(|before| before != system);
                prefix_check((capture, model), &changes, change, system_changed, answer)
            }
            None if continues => {
                let unchanged = ListChange::default();
                prefix_check((capture, model), &changes, &unchanged, true, answer)
            }
            // The thread's first turn: the provider's word alone.
            None => answer.1.map(|a| provider_word(a, None)),
        };
        // On a model that takes tool changes, deferred declarations are out until a change
        // offers them (older models keep the count of entries sent).
        let takes_changes =
            ClaudeModel::parse(model).is_some_and(ClaudeModel::takes_system_messages);
        // Without changes: the declared tools offered from the start, and those a tool
        // search returned, counted in place.
        let in_effect = (takes_changes || !changes.changes.is_empty())
            .then(|| changes.in_effect(capture).tools.len());
        let mut said = appended(capture, &changes, since);
        if in_effect.is_some() {
            said.extend(searched(capture, &changes, since));
        }
        Appended {
            system,
            appended: said,
            prefix_check,
            in_effect,
            problems: changes.problems_of(capture, Some(model), None),
        }
    }
}

impl super::Analyzer<'_> {
    /// [`Appended::of`] a turn of `thread`: `change` is its list change where the thread has a
    /// previous turn; a first turn is checked where it continues another thread.
    pub(super) fn appended_of(
        &self,
        (capture, model): (&Capture, &str),
        thread: usize,
        change: Option<&ListChange>,
        answer: (Option<u16>, Option<&PrefixAnswer>),
    ) -> Appended {
        let state = &self.threads[thread];
        let before = change.map(|c| (c, state.system));
        let others = self
            .threads
            .iter()
            .map(|t| (t.system, t.last_messages.as_ref()));
        let continues = change.is_none() && continues(capture, model, others);
        Appended::of((capture, model), state.messages, before, continues, answer)
    }
}
