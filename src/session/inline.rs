//! The tool change blocks a strategy sends differently (strategies/inline.rs) in a session's
//! prompt: each such block's tokens against the capture's, by its place among the prompt's
//! blocks, so every strategy's row counts the inline definitions it sends where they stand.

use super::{Counted, prompt};
use crate::capture::Capture;
use crate::measure::TokenCounter;
use crate::settings::Settings;
use crate::strategies::inline;
use crate::strategy::Strategy;
use crate::tool;
use crate::tool_changes::ToolChanges;

/// Per strategy, the prompt blocks its projection of this request sends differently: each
/// block's index among the prompt's blocks and its tokens as sent minus as captured. Empty
/// for a request without tool changes, and for `append`, whose messages are its own.
pub(super) fn deltas(
    capture: &Capture,
    strategies: &[Strategy],
    settings: &Settings,
    counter: &TokenCounter,
) -> Vec<Vec<(usize, i64)>> {
    let changes = ToolChanges::read(capture);
    if changes.changes.is_empty() {
        return Vec::new();
    }
    let messages = capture.conversation();
    strategies
        .iter()
        .map(|&strategy| {
            if strategy == Strategy::Append {
                return Vec::new();
            }
            let (edits, _) = inline::project_changes(&changes, strategy, settings);
            inline::touched_blocks(capture, &edits)
                .into_iter()
                .filter_map(|((m, i), sent)| {
                    let block = messages.get(m)?.get("content")?.get(i)?;
                    let before = counter.count(&tool::compact(block));
                    let after = sent.map_or(0, |b| counter.count(&tool::compact(&b)));
                    let at = prompt::pieces_before_message(capture, m) + i;
                    Some((at, after as i64 - before as i64))
                })
                .collect()
        })
        .collect()
}

/// The turn's prompt blocks (before the tools, after them) and their tokens with `deltas`
/// applied; `None` when there is none.
pub(super) fn adjusted(
    head: &[Counted],
    rest: &[Counted],
    deltas: &[(usize, i64)],
) -> Option<(Vec<Counted>, Vec<Counted>, usize)> {
    if deltas.is_empty() {
        return None;
    }
    let mut blocks: Vec<Counted> = head.iter().chain(rest).copied().collect();
    for &(at, delta) in deltas {
        if let Some(block) = blocks.get_mut(at) {
            block.1 = usize::try_from(block.1 as i64 + delta).unwrap_or(0);
        }
    }
    let tokens = blocks.iter().map(|b| b.1).sum();
    let rest = blocks.split_off(head.len());
    Some((blocks, rest, tokens))
}
