//! `append` over a session (issue 41): each change of a thread's tool list sent as a
//! mid-conversation system message instead of a new `tools` array. The thread's first list
//! stays its `tools`; a tool that appears later is defined inline (`tool_definition`), a changed
//! one redefined inline, a removed one withdrawn by `tool_removal`. Inline, not declared up
//! front with `defer_loading`: a tool that appears mid-session (an MCP server connecting) is not
//! known at the first request, and the provider's guidance is to define by value what is not
//! known then; it keeps `tools` byte-identical, so the cached prefix and the thinking bound to
//! it hold. Inline definitions need `inline-tools-2026-09-15`, on the Claude API only.
//!
//! The replay ([`Analyzer::append_projection`]) gives `append` a request per turn that goes
//! through the same cache model as every other strategy's; [`AppendFigures`] are read off its
//! rows and `original`'s, never from a model of their own.

use serde::Serialize;

use std::sync::Arc;

use super::compare::ListChange;
use super::replay::Projected;
use super::{Counted, StrategyTurn, prices, prompt};
use crate::capture::Capture;
use crate::projection::Applies;
use crate::strategies::append::change_message;

pub use crate::strategies::append::refusal;

/// `append` over the session, against `original`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AppendFigures {
    /// Turns whose tool list changed in place, sent by `append` as a system message.
    pub changes: usize,
    /// Turns whose list `original` changed in place (tools, order, a moved `cache_control`)
    /// while `append`'s stayed: the breaks `original`'s replay paid that `append`'s avoids.
    pub breaks_avoided: usize,
    /// Turns the provider refuses under `original` (prefix checks) that `append` sends
    /// validly.
    pub refusals_avoided: usize,
    /// Tokens of the system messages `append` adds (exact, in the chosen encoding).
    pub change_tokens: usize,
    /// Input tokens saved against `original`: `original`'s replayed cost less `append`'s, over
    /// the turns in the cache chain.
    pub saved_tokens: f64,
    /// The same in US dollars (each turn at its break's own rate, else the model's input
    /// price); `null` without a price.
    pub saved_usd: Option<f64>,
    /// Turns `append` cannot send, each with why (the first few).
    pub refused: Vec<String>,
    /// Refused turns in all.
    pub refused_total: usize,
}

/// One system message `append` placed in a thread: after how many of the conversation's
/// messages, its content hash and tokens. It stays in the history on later turns.
#[derive(Debug, Clone, Copy)]
struct Placed {
    after: usize,
    hash: u64,
    tokens: usize,
}

/// The list `append` keeps as `tools` in a thread: ids, `tools` key, tokens and tokens in
/// context.
#[derive(Debug, Clone)]
struct Base {
    ids: Arc<[u32]>,
    present: bool,
    tools_tokens: usize,
    context_tokens: usize,
}

/// `append`'s state in one thread.
#[derive(Debug, Default)]
pub(super) struct AppendThread {
    base: Option<Base>,
    placed: Vec<Placed>,
}

/// What `append` did on this turn, for its figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) enum AppendStep {
    /// Nothing changed (or only the order): the request goes with what it holds.
    #[default]
    Nothing,
    /// A system message of this many tokens sent the change.
    Sent(usize),
    /// The provider refuses it: why.
    Refused(String),
}

/// `append`'s request on one turn: its projection and its prompt after the tools, the system
/// messages spliced in where they stand.
pub(super) struct AppendRow {
    pub(super) projected: Arc<Projected>,
    pub(super) rest: Vec<Counted>,
}

/// What one turn tells `append`.
pub(super) struct AppendInputs<'t> {
    pub(super) capture: &'t Capture,
    pub(super) thread: usize,
    pub(super) ids: &'t Arc<[u32]>,
    pub(super) present: bool,
    pub(super) tokens: (usize, usize),
    /// Against the thread's previous list (empty on its first turn).
    pub(super) change: &'t ListChange,
    /// The prompt after the tools, and how many blocks of it precede it (`head`).
    pub(super) rest: &'t [Counted],
    pub(super) head: usize,
}

/// `append`'s running sums.
#[derive(Debug, Default)]
pub(super) struct AppendTotals {
    pub(super) figures: AppendFigures,
    /// This turn's step, set by the replay and read by [`AppendTotals::turn`].
    pub(super) step: AppendStep,
}

/// The refusals kept by name.
const REFUSALS_KEPT: usize = 5;

impl AppendTotals {
    /// One turn's figures, from `original`'s and `append`'s rows of the replay. `rate`: US
    /// dollars per input token on this turn, if known.
    pub(super) fn turn(
        &mut self,
        turn: usize,
        original: &StrategyTurn,
        append: &StrategyTurn,
        rate: Option<f64>,
    ) {
        let f = &mut self.figures;
        // Whatever `original` changed in place (a moved marker, an order, tools), `append`
        // kept: what that cost `original` is avoided.
        if original.stable == Some(false) && append.stable == Some(true) {
            f.breaks_avoided += 1;
        }
        if original.prefix_check.is_some() && append.prefix_check.is_none() {
            f.refusals_avoided += 1;
        }
        match std::mem::take(&mut self.step) {
            AppendStep::Nothing => {}
            AppendStep::Sent(tokens) => {
                f.changes += 1;
                f.change_tokens += tokens;
            }
            AppendStep::Refused(why) => {
                f.refused_total += 1;
                if f.refused.len() < REFUSALS_KEPT {
                    f.refused.push(format!("turn {turn}: {why}"));
                }
            }
        }
        let saved = original.cost.unwrap_or(0.0) - append.cost.unwrap_or(0.0);
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
    /// `append`'s request on this turn: the thread's kept list as `tools`, and every system
    /// message it placed so far in the prompt at its place; a change of `original`'s list
    /// since the previous turn placed now (after the conversation's last message), or, where
    /// the provider refuses it, the request as sent (and its list kept from then on).
    pub(super) fn append_projection(&mut self, turn: &AppendInputs<'_>) -> AppendRow {
        let state = &mut self.threads[turn.thread].append;
        let now = || Base {
            ids: Arc::clone(turn.ids),
            present: turn.present,
            tools_tokens: turn.tokens.0,
            context_tokens: turn.tokens.1,
        };
        let mut step = AppendStep::Nothing;
        let mut error = None;
        if state.base.is_none() {
            state.base = Some(now());
        } else if !turn.change.added.is_empty()
            || !turn.change.removed.is_empty()
            || turn.change.changed.iter().any(|c| redefines(&c.fields))
        {
            if let Some(why) = refusal(turn.capture) {
                state.base = Some(now());
                state.placed.clear();
                error = Some(why.clone());
                step = AppendStep::Refused(why);
            } else {
                let text = message(self.entries.all(), turn.change, turn.ids);
                let tokens = self.counter.count(&text);
                let state = &mut self.threads[turn.thread].append;
                state.placed.push(Placed {
                    after: turn.capture.conversation().len(),
                    hash: prompt::text_hash(&text),
                    tokens,
                });
                step = AppendStep::Sent(tokens);
            }
        }
        let state = &self.threads[turn.thread].append;
        let base = state.base.clone().unwrap_or_else(now);
        let mut rest = turn.rest.to_vec();
        // A top-level `cache_control` marks the request's last block: a message placed last
        // is that block now.
        let last_mark = prompt::mark_of(turn.capture.body());
        let messages = turn.capture.conversation().len();
        // Latest first, so each earlier place is still where it was counted.
        for placed in state.placed.iter().rev() {
            let at = prompt::pieces_before_message(turn.capture, placed.after)
                .saturating_sub(turn.head)
                .min(rest.len());
            let mark = last_mark.filter(|_| placed.after >= messages);
            rest.insert(at, (placed.hash, placed.tokens, mark));
        }
        let added_tokens = state.placed.iter().map(|p| p.tokens).sum();
        // It applies where its request is not the one sent: a message placed, or a list kept
        // that the host has since reordered or re-marked.
        let differs =
            !state.placed.is_empty() || base.ids != *turn.ids || base.present != turn.present;
        let status = match (&error, differs) {
            (Some(_), _) => Applies::Refused,
            (None, false) => Applies::NotApplicable,
            (None, true) => Applies::Ok,
        };
        self.append.step = step;
        let projected = Projected::in_messages(
            base.ids.to_vec(),
            base.present,
            (base.tools_tokens, base.context_tokens, added_tokens),
            status,
            error,
        );
        AppendRow {
            projected: Arc::new(projected),
            rest,
        }
    }

    /// `append`'s figures of this turn, from its row and `original`'s (both must be replayed).
    pub(super) fn append_figures(
        &mut self,
        capture: &Capture,
        turn: usize,
        rows: &[StrategyTurn],
        break_price: Option<&super::schema::BreakPrice>,
    ) {
        let index = |s| self.strategies.iter().position(|&x| x == s);
        let (Some(o), Some(a)) = (
            index(crate::strategy::Strategy::Original),
            index(crate::strategy::Strategy::Append),
        ) else {
            return;
        };
        let model = capture
            .body()
            .get("model")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        let rate = break_price
            .and_then(|b| b.usd.filter(|_| b.extra > 0.0).map(|usd| usd / b.extra))
            .or(prices::price_per_million(&self.settings, model).map(|p| p / 1e6));
        self.append.turn(turn, &rows[o], &rows[a], rate);
    }
}

/// A changed tool `append` redefines: one whose entry changed beyond its `cache_control`
/// marker (a marker that moves is the host's caching, not a new tool; `append` keeps the
/// first list's marks).
pub(super) fn redefines(fields: &[&str]) -> bool {
    fields.iter().any(|f| *f != "cache_control")
}

/// The system message `append` sends for a change: inline definitions of the added and changed
/// tools (as the list holds them now), then a removal of each removed one.
fn message(entries: &[super::compare::Entry], change: &ListChange, now: &[u32]) -> String {
    let find = |name: &str| {
        now.iter()
            .map(|&i| &entries[i as usize])
            .find(|e| &*e.name == name)
    };
    let redefined = change.changed.iter().filter(|c| redefines(&c.fields));
    let defined = change
        .added
        .iter()
        .chain(redefined.map(|c| &c.name))
        .filter_map(|name| find(name))
        .map(|e| &*e.json);
    change_message(defined, change.removed.iter().map(String::as_str))
}
