//! `append`'s figures over a session (issue 41): each change of a thread's tool list sent as a
//! mid-conversation system message instead of a new `tools` array. The thread's first list
//! stays its `tools`; a tool that appears later is defined inline (`tool_definition`), a changed
//! one redefined inline, a removed one withdrawn by `tool_removal`. Inline, not declared up
//! front with `defer_loading`: a tool that appears mid-session (an MCP server connecting) is not
//! known at the first request, and the provider's guidance is to define by value what is not
//! known then; it keeps `tools` byte-identical, so the cached prefix and the thinking bound to
//! it hold. Inline definitions need `inline-tools-2026-09-15`, on the Claude API only.

use serde::Serialize;
use serde_json::Value;

use std::sync::Arc;

use super::compare::{Entry, ListChange};
use super::schema::BreakPrice;
use super::{appended, cache, chain, compare, prices};
use crate::capture::{Capture, Shape};
use crate::measure::TokenCounter;
use crate::tool_changes::ClaudeModel;

/// `append` over the session, against `original`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AppendFigures {
    /// Turns whose tool list changed in place, sent by `append` as a system message.
    pub changes: usize,
    /// Of those, the cache breaks `original` paid (a break price) that `append` avoids.
    pub breaks_avoided: usize,
    /// Of those, the turns the provider refuses under `original` (prefix checks) that
    /// `append` sends validly.
    pub refusals_avoided: usize,
    /// Tokens of the system messages `append` adds (exact, in the chosen encoding).
    pub change_tokens: usize,
    /// Input tokens saved against `original`: the avoided breaks' extra cost, less the system
    /// messages written once, less what `append` keeps in its prompt that `original` does not
    /// (withdrawn tools stay in `tools`, the messages stay) read on every later turn.
    pub saved_tokens: f64,
    /// The same in US dollars (each turn at its break's own rate, else the model's input
    /// price); `null` without a price.
    pub saved_usd: Option<f64>,
    /// Turns `append` cannot send, each with why (the first few).
    pub refused: Vec<String>,
    /// Refused turns in all.
    pub refused_total: usize,
}

/// What one turn tells `append`.
pub(super) struct AppendTurn<'t> {
    pub(super) capture: &'t Capture,
    pub(super) turn: usize,
    pub(super) change: &'t ListChange,
    pub(super) before: &'t [u32],
    pub(super) now: &'t [u32],
    pub(super) break_price: Option<&'t BreakPrice>,
    pub(super) refused_in_place: bool,
    pub(super) read_rate: f64,
    pub(super) write_rate: f64,
    pub(super) usd_per_million: Option<f64>,
}

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

/// The system message `append` sends for a change: inline definitions of the added and changed
/// tools, then a removal of each removed one.
fn message(entries: &[Entry], change: &ListChange, now: &[u32]) -> String {
    let find = |ids: &[u32], name: &str| {
        ids.iter()
            .map(|&i| &entries[i as usize])
            .find(|e| &*e.name == name)
    };
    let mut blocks = Vec::new();
    let defined = change
        .added
        .iter()
        .chain(change.changed.iter().map(|c| &c.name));
    for name in defined {
        if let Some(entry) = find(now, name) {
            blocks.push(format!(
                r#"{{"type":"tool_addition","tool":{{"type":"tool_definition","definition":{}}}}}"#,
                entry.json
            ));
        }
    }
    for name in &change.removed {
        let name = serde_json::to_string(name).unwrap_or_default();
        blocks.push(format!(
            r#"{{"type":"tool_removal","tool":{{"type":"tool_reference","name":{name}}}}}"#
        ));
    }
    format!(r#"{{"role":"system","content":[{}]}}"#, blocks.join(","))
}

/// `append`'s running sums, with what each thread carries beyond `original`'s prompt.
#[derive(Debug, Default)]
pub(super) struct AppendTotals {
    pub(super) figures: AppendFigures,
}

/// The refusals kept by name.
const REFUSALS_KEPT: usize = 5;

impl AppendTotals {
    /// One turn of a thread with a previous turn: what `append` pays and saves. `carried`: the
    /// thread's tokens `append` holds beyond `original`'s prompt, grown by this turn's change.
    pub(super) fn turn(
        &mut self,
        entries: &[Entry],
        counter: &TokenCounter,
        turn: &AppendTurn<'_>,
        carried: &mut usize,
    ) {
        let rate = turn
            .break_price
            .and_then(|b| b.usd.filter(|_| b.extra > 0.0).map(|usd| usd / b.extra))
            .or(turn.usd_per_million.map(|p| p / 1e6));
        let mut saved = -(*carried as f64) * turn.read_rate;
        if turn.change.first_changed_byte.is_some() {
            if let Some(why) = refusal(turn.capture) {
                let f = &mut self.figures;
                f.refused_total += 1;
                if f.refused.len() < REFUSALS_KEPT {
                    f.refused.push(format!("turn {}: {why}", turn.turn));
                }
                return;
            }
            let text = message(entries, turn.change, turn.now);
            let tokens = counter.count(&text);
            let f = &mut self.figures;
            f.changes += 1;
            f.change_tokens += tokens;
            saved -= tokens as f64 * turn.write_rate;
            if let Some(price) = turn.break_price {
                f.breaks_avoided += 1;
                saved += price.extra;
            }
            if turn.refused_in_place {
                f.refusals_avoided += 1;
            }
            let sum = |ids: &[u32], names: &mut dyn Iterator<Item = &String>| -> usize {
                names
                    .filter_map(|n| {
                        ids.iter()
                            .map(|&i| &entries[i as usize])
                            .find(|e| &*e.name == n)
                    })
                    .map(|e| e.tokens)
                    .sum()
            };
            let changed: Vec<&String> = turn.change.changed.iter().map(|c| &c.name).collect();
            let gone = sum(
                turn.before,
                &mut turn.change.removed.iter().chain(changed.iter().copied()),
            );
            let came = sum(
                turn.now,
                &mut turn.change.added.iter().chain(changed.iter().copied()),
            );
            *carried = (*carried + tokens + gone).saturating_sub(came);
        }
        let f = &mut self.figures;
        f.saved_tokens += saved;
        if let Some(rate) = rate {
            f.saved_usd = Some(f.saved_usd.unwrap_or(0.0) + saved * rate);
        }
    }

    /// The figures, rounded as reports give them.
    pub(super) fn report(&self) -> AppendFigures {
        AppendFigures {
            saved_tokens: (self.figures.saved_tokens * 100.0).round() / 100.0,
            saved_usd: self.figures.saved_usd.map(|u| (u * 1e6).round() / 1e6),
            ..self.figures.clone()
        }
    }
}

impl super::Analyzer<'_> {
    /// `append` on one turn of a thread with a previous turn (not a failed call).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn append_turn(
        &mut self,
        capture: &Capture,
        (turn, failed): (usize, bool),
        thread: usize,
        ids: &[u32],
        change: &compare::ListChange,
        rules: &cache::Rules,
        sent: &chain::SentCache,
    ) {
        let before = match &self.threads[thread].last_tools {
            Some((before, _, _)) => Arc::clone(before),
            None => return,
        };
        let model = capture
            .body()
            .get("model")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        let usd_per_million = prices::price_per_million(&self.settings, model);
        let refused_in_place =
            appended::refused_in_place((capture, model), change, self.entries.all(), ids);
        // A failed call reads nothing: `append` pays no carried tokens on it.
        let mut carried = self.threads[thread].append_carried;
        self.append.turn(
            self.entries.all(),
            self.counter,
            &AppendTurn {
                capture,
                turn,
                change,
                before: &before,
                now: ids,
                break_price: sent.break_price.as_ref(),
                refused_in_place,
                read_rate: if failed { 0.0 } else { rules.read },
                write_rate: rules.write,
                usd_per_million,
            },
            &mut carried,
        );
        self.threads[thread].append_carried = carried;
    }
}
