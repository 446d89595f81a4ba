//! What each strategy does with the tool changes a request's messages carry (mid-conversation
//! `tool_addition` / `tool_removal` blocks, [`crate::tool_changes`]). A host that rewrites
//! descriptions rewrites every definition it sends, the inline ones too (vtcode's modes, and
//! its catalog under `search`); one that reorders, selects or defers the `tools` array has
//! nothing to reorder inside a message (a3s's `direct` and `adaptive`, zero, Codex); one that
//! sends no tools sends no tool changes either (a3s's `code` and `disabled`). lean-ctx's proxy
//! rewrites the request's `tools` array only, so the definitions in messages pass it as sent.
//!
//! Pure: the edits are a function of the capture, the strategy and the settings; the pipeline
//! puts them into the projected request ([`apply`]) and the figures count what they send
//! ([`definitions`]).

use serde_json::Value;

use crate::capture::Capture;
use crate::projection::{Edit, InlineEdit, Note};
use crate::settings::{Settings, VtcodeRelease};
use crate::strategies::vtcode;
use crate::strategy::Strategy;
use crate::tool_changes::{Target, ToolChanges};

/// The edits `strategy` makes to the capture's tool change blocks, with the notes that say so.
pub fn project(
    capture: &Capture,
    strategy: Strategy,
    settings: &Settings,
) -> (Vec<InlineEdit>, Vec<Note>) {
    project_changes(&ToolChanges::read(capture), strategy, settings)
}

/// [`project`] on the capture's changes, already read.
pub fn project_changes(
    changes: &ToolChanges,
    strategy: Strategy,
    settings: &Settings,
) -> (Vec<InlineEdit>, Vec<Note>) {
    if changes.changes.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let inline = changes
        .changes
        .iter()
        .filter(|c| matches!(c.target, Target::Inline(_)))
        .count();
    let (mode, docs) = match strategy {
        Strategy::Full => (vtcode::Mode::Full, settings.clone()),
        Strategy::Progressive => (vtcode::Mode::Progressive, settings.clone()),
        Strategy::Minimal => (vtcode::Mode::Minimal, settings.clone()),
        // vtcode's catalog, as `search` projects `tools` (0.181.2's budgets).
        Strategy::Search => {
            let mut docs = settings.clone();
            docs.vtcode_release = VtcodeRelease::V0_181_2;
            (vtcode::Mode::Progressive, docs)
        }
        Strategy::Code | Strategy::Disabled => return dropped(changes, strategy),
        Strategy::Shorten if inline > 0 => {
            return (
                Vec::new(),
                vec![Note::info(format!(
                    "{} in the messages sent as {}: lean-ctx's proxy shortens the request's `tools` array only",
                    count(inline, "inline definition", "inline definitions"),
                    if inline == 1 { "it is" } else { "they are" }
                ))],
            );
        }
        _ => return (Vec::new(), Vec::new()),
    };
    let edits: Vec<InlineEdit> = changes
        .changes
        .iter()
        .enumerate()
        .filter_map(|(index, change)| {
            let Target::Inline(definition) = &change.target else {
                return None;
            };
            let (projected, _) = vtcode::mode_entry(definition, mode, &docs)?;
            Some(InlineEdit {
                change: index,
                block: change.block.clone(),
                edit: Edit::Definition(projected),
            })
        })
        .collect();
    let mut notes = Vec::new();
    if inline > 0 {
        notes.push(Note::info(format!(
            "{} in the messages projected as the tools are ({} changed): vtcode documents every tool it sends",
            count(inline, "inline definition", "inline definitions"),
            edits.len()
        )));
    }
    (edits, notes)
}

/// `code` and `disabled`: no tool is offered but through a3s's gateway (or none at all), so
/// no tool change block is sent; a system message left without content is not sent either.
fn dropped(changes: &ToolChanges, strategy: Strategy) -> (Vec<InlineEdit>, Vec<Note>) {
    let edits = changes
        .changes
        .iter()
        .enumerate()
        .map(|(index, change)| InlineEdit {
            change: index,
            block: change.block.clone(),
            edit: Edit::Dropped,
        })
        .collect();
    let why = match strategy {
        Strategy::Code => {
            "a3s offers tools only through its `program` gateway, whose catalog lists the declared tools"
        }
        _ => "a3s sends no tools under `disabled`",
    };
    let note = Note::info(format!(
        "{} in the messages not sent: {why}",
        count(changes.changes.len(), "tool change", "tool changes")
    ));
    (edits, vec![note])
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Each inline definition the projected request sends, in message order: the capture's, or
/// the projection's in its place (a dropped block sends none).
pub fn definitions<'a>(changes: &'a ToolChanges, edits: &'a [InlineEdit]) -> Vec<&'a Value> {
    changes
        .changes
        .iter()
        .enumerate()
        .filter_map(|(index, change)| {
            let Target::Inline(definition) = &change.target else {
                return None;
            };
            match edits.iter().find(|e| e.change == index).map(|e| &e.edit) {
                Some(Edit::Definition(projected)) => Some(projected),
                Some(Edit::Dropped) => None,
                None => Some(definition),
            }
        })
        .collect()
}

/// Whether the change at `index` is sent (not dropped by the projection).
pub fn is_sent(edits: &[InlineEdit], index: usize) -> bool {
    !edits
        .iter()
        .any(|e| e.change == index && e.edit == Edit::Dropped)
}

/// Put the edits into a request body (a copy of the capture's): each rewritten definition in
/// its block, each dropped block out of its message, and a message (or a `mid_conv_system`
/// block) left with an empty `content` out of the conversation.
pub fn apply(body: &mut Value, edits: &[InlineEdit]) {
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else {
        return;
    };
    for edit in edits {
        if let Edit::Definition(definition) = &edit.edit
            && let Some(block) = block_mut(messages, &edit.block)
            && let Some(tool) = block.get_mut("tool").and_then(Value::as_object_mut)
        {
            tool.insert("definition".to_owned(), definition.clone());
        }
    }
    let mut drops: Vec<&[usize]> = edits
        .iter()
        .filter(|e| e.edit == Edit::Dropped)
        .map(|e| e.block.as_slice())
        .collect();
    // From the last, so an earlier index still names its block.
    drops.sort_unstable_by(|a, b| b.cmp(a));
    drops.dedup();
    let mut emptied: Vec<Vec<usize>> = Vec::new();
    for path in drops {
        let Some((&last, holder)) = path.split_last() else {
            continue;
        };
        if let Some(content) = content_mut(messages, holder)
            && last < content.len()
        {
            content.remove(last);
            if content.is_empty() {
                emptied.push(holder.to_vec());
            }
        }
    }
    // Deepest and last first: a `mid_conv_system` block before its message.
    emptied.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then(b.cmp(a)));
    for path in emptied {
        match path.as_slice() {
            [message] if *message < messages.len() => {
                messages.remove(*message);
            }
            [message, outer] => {
                if let Some(content) = content_mut(messages, &[*message])
                    && *outer < content.len()
                {
                    content.remove(*outer);
                }
            }
            _ => {}
        }
    }
}

/// The `content` array of the message (`[m]`) or `mid_conv_system` block (`[m, i]`) at `path`.
fn content_mut<'a>(messages: &'a mut [Value], path: &[usize]) -> Option<&'a mut Vec<Value>> {
    let (&first, rest) = path.split_first()?;
    let mut value = messages.get_mut(first)?;
    for &index in rest {
        value = value.get_mut("content")?.get_mut(index)?;
    }
    value.get_mut("content")?.as_array_mut()
}

/// The block at `path` (its holder's path, then its index in the holder's `content`).
fn block_mut<'a>(messages: &'a mut [Value], path: &[usize]) -> Option<&'a mut Value> {
    let (&last, holder) = path.split_last()?;
    content_mut(messages, holder)?.get_mut(last)
}

/// Each top-level content block of a message the edits touch, as `(message, index)` with
/// what the projected request sends in its place (`None`: nothing), in message order: the
/// session counts its prompt block by block.
pub fn touched_blocks(
    capture: &Capture,
    edits: &[InlineEdit],
) -> Vec<((usize, usize), Option<Value>)> {
    let mut places: Vec<(usize, usize)> = edits
        .iter()
        .filter_map(|e| Some((*e.block.first()?, *e.block.get(1)?)))
        .collect();
    places.sort_unstable();
    places.dedup();
    let messages = capture.conversation();
    places
        .into_iter()
        .filter_map(|(m, i)| {
            let block = messages.get(m)?.get("content")?.get(i)?;
            // The block alone, as a one-message conversation, with its own edits.
            let mut body = serde_json::json!({"messages": [{"content": [block]}]});
            let own: Vec<InlineEdit> = edits
                .iter()
                .filter(|e| e.block.len() >= 2 && e.block[0] == m && e.block[1] == i)
                .map(|e| InlineEdit {
                    block: [0, 0]
                        .into_iter()
                        .chain(e.block[2..].iter().copied())
                        .collect(),
                    ..e.clone()
                })
                .collect();
            apply(&mut body, &own);
            let sent = body.pointer("/messages/0/content/0").cloned();
            Some(((m, i), sent))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(block: &[usize], edit: Edit) -> InlineEdit {
        InlineEdit {
            change: 0,
            block: block.to_vec(),
            edit,
        }
    }

    #[test]
    fn edits_reach_the_sdks_block_form_and_empty_holders_go() {
        let addition = |name: &str| json!({"type": "tool_addition", "tool": {"type": "tool_definition", "definition": {"name": name}}});
        let mut body = json!({"messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "go"},
                {"type": "mid_conv_system", "content": [addition("a"), addition("b")]}]},
            {"role": "system", "content": [addition("c")]},
            {"role": "user", "content": "on"}]});
        apply(
            &mut body,
            &[
                edit(&[0, 1, 1], Edit::Definition(json!({"name": "B"}))),
                edit(&[1, 0], Edit::Dropped),
            ],
        );
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": [
                    {"type": "text", "text": "go"},
                    {"type": "mid_conv_system", "content": [addition("a"), addition("B")]}]},
                {"role": "user", "content": "on"}])
        );
        apply(
            &mut body,
            &[
                edit(&[0, 1, 0], Edit::Dropped),
                edit(&[0, 1, 1], Edit::Dropped),
            ],
        );
        assert_eq!(
            body["messages"][0],
            json!({"role": "user", "content": [{"type": "text", "text": "go"}]})
        );
    }
}
