//! The tool change blocks a strategy sends differently (strategies/inline.rs) in a session's
//! prompt: each such block's tokens against the capture's, by its place among the prompt's
//! blocks, so every strategy's row counts the inline definitions it sends where they stand.

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::Counted;
use crate::capture::Capture;
use crate::measure::TokenCounter;
use crate::projection::InlineEdit;
use crate::settings::Settings;
use crate::strategies::inline;
use crate::strategy::Strategy;
use crate::tool;
use crate::tool_changes::ToolChanges;

/// A block's token change under a strategy, by the strategy and the block's hash: a
/// conversation sends the same blocks turn after turn, each projected and counted once.
pub(super) type Memo = FxHashMap<(Strategy, u64), i64>;

/// Per strategy, the prompt blocks its projection of this request sends differently: each
/// block's index among the prompt's blocks (`blocks`, before and after the tools) and its
/// tokens as sent minus as captured. Empty for a request without tool changes, and for
/// `append`, whose messages are its own.
pub(super) fn deltas(
    capture: &Capture,
    (strategies, settings): (&[Strategy], &Settings),
    blocks: (&[Counted], &[Counted]),
    counter: &TokenCounter,
    memo: &mut Memo,
) -> Vec<Vec<(usize, i64)>> {
    let changes = ToolChanges::read(capture);
    if changes.changes.is_empty() {
        return Vec::new();
    }
    let hashes: Vec<u64> = blocks.0.iter().chain(blocks.1).map(|b| b.0).collect();
    let messages = capture.conversation();
    let first_block = first_blocks(capture);
    strategies
        .iter()
        .map(|&strategy| {
            if strategy == Strategy::Append {
                return Vec::new();
            }
            let (edits, _) = inline::project_changes(&changes, strategy, settings);
            let mut places: Vec<(usize, usize)> = edits
                .iter()
                .filter_map(|e| Some((*e.block.first()?, *e.block.get(1)?)))
                .collect();
            places.dedup();
            places
                .into_iter()
                .filter_map(|(m, i)| {
                    let at = first_block.get(m)? + i;
                    let hash = *hashes.get(at)?;
                    let delta = match memo.get(&(strategy, hash)) {
                        Some(&known) => known,
                        None => {
                            let block = messages.get(m)?.get("content")?.get(i)?;
                            let delta = block_delta(capture, block, (m, i), &edits, counter);
                            memo.insert((strategy, hash), delta);
                            delta
                        }
                    };
                    Some((at, delta))
                })
                .collect()
        })
        .collect()
}

/// The index of each message's first block among the prompt's blocks (the system prompt's
/// first, then one per content block: `prompt::pieces`).
fn first_blocks(capture: &Capture) -> Vec<usize> {
    let mut at = super::prompt::pieces_before_message(capture, 0);
    capture
        .conversation()
        .iter()
        .map(|m| {
            let first = at;
            at += match m.get("content") {
                Some(Value::Array(blocks)) => blocks.len(),
                Some(_) => 1,
                None => 0,
            };
            first
        })
        .collect()
}

/// Tokens of the block at `place` as the edits send it, minus as captured.
fn block_delta(
    capture: &Capture,
    block: &Value,
    place: (usize, usize),
    edits: &[InlineEdit],
    counter: &TokenCounter,
) -> i64 {
    let own: Vec<InlineEdit> = edits
        .iter()
        .filter(|e| e.block.len() >= 2 && (e.block[0], e.block[1]) == place)
        .cloned()
        .collect();
    let sent = inline::touched_blocks(capture, &own)
        .into_iter()
        .next()
        .and_then(|(_, sent)| sent);
    let before = counter.count(&tool::compact(block));
    let after = sent.map_or(0, |b| counter.count(&tool::compact(&b)));
    after as i64 - before as i64
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
