//! `append` over a session (issue 41): each change of a thread's tool list sent as a
//! mid-conversation system message instead of a new `tools` array. The thread's first list
//! stays its `tools`; on the Claude API a tool that appears later is defined inline
//! (`tool_definition`), a changed one redefined inline, a removed one withdrawn by
//! `tool_removal`; where inline is not accepted, by reference (docs/STRATEGIES.md). Inline
//! keeps `tools` byte-identical and costs what the provider's own advice (a deferred
//! declaration appended to `tools`, then a reference) costs where it stands, so the cached
//! prefix and the thinking bound to it hold either way.
//!
//! The replay ([`Analyzer::append_projection`]) gives `append` a request per turn that goes
//! through the same cache model as every other strategy's; [`AppendFigures`] are read off its
//! rows and `original`'s, never from a model of their own.

use serde::Serialize;

use std::sync::Arc;

use super::compare::{self, Entry, ListChange};
use super::replay::Projected;
use super::{Counted, StrategyTurn, prices, prompt};
use crate::capture::Capture;
use crate::projection::Applies;
use crate::strategies::append::{Form, change_message, form, reference_message, reference_refusal};

pub use crate::strategies::append::refusal;

/// `append` over the session, against `original`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AppendFigures {
    /// Turns whose tool list changed in place, sent by `append` as a system message.
    pub changes: usize,
    /// Turns whose tools `original` changed in place (added, removed, redefined or
    /// reordered: a moved `cache_control` marker is no break) while `append`'s held, where
    /// `append` reads a cached prefix `original` lost: the breaks it avoids.
    pub breaks_avoided: usize,
    /// Of those, the turns where `append` sent nothing: the host reordered its list and
    /// `append` kept the first order.
    pub order_kept: usize,
    /// Turns the provider refuses under `original` (prefix checks: a 400 in the trace, or no
    /// answer in it) that `append` sends validly. A turn the trace shows answered is no
    /// refusal: it is in `checks_avoided`.
    pub refusals_avoided: usize,
    /// Turns the provider answered under `original` although the prefix check failed (it
    /// dropped the thinking, or let it through), whose prefix `append` keeps intact.
    pub checks_avoided: usize,
    /// Tokens of the system messages `append` adds (exact, in the chosen encoding).
    pub change_tokens: usize,
    /// Input tokens saved against `original`: `original`'s replayed cost less `append`'s, over
    /// the turns in the cache chain. Negative where `append` costs more (a removal keeps the
    /// removed tool's tokens in context, and with nothing cached there is no break to avoid).
    pub saved_tokens: f64,
    /// The same in US dollars (each turn at its break's own rate, else the model's input
    /// price); `null` without a price.
    pub saved_usd: Option<f64>,
    /// How its messages send the changes, each form used once, in the order first used.
    pub forms: Vec<ChangeForm>,
    /// Turns `append` cannot send, each with why (the first few).
    pub refused: Vec<String>,
    /// Refused turns in all.
    pub refused_total: usize,
}

/// How `append`'s system messages send a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeForm {
    /// Inline `tool_definition`s (the Claude API).
    Inline,
    /// `tool_reference`s to tools declared up front, later ones deferred (Anthropic Messages
    /// on Amazon Bedrock or Google Cloud).
    Reference,
    /// Converse `toolAddition` / `toolRemoval` blocks naming a `ToolReference`.
    Converse,
}

impl From<Form> for ChangeForm {
    fn from(form: Form) -> Self {
        match form {
            Form::Inline => ChangeForm::Inline,
            Form::Reference(_) => ChangeForm::Reference,
            Form::Converse => ChangeForm::Converse,
        }
    }
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
    /// A system message of this many tokens sent the change, in this form.
    Sent(usize, ChangeForm),
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
    /// This turn's list did not only move markers since the thread's previous turn, set by
    /// the replay: a break `original` pays here is one `append` can avoid.
    pub(super) breaking: bool,
}

/// The refusals kept by name.
const REFUSALS_KEPT: usize = 5;

impl AppendTotals {
    /// One turn's figures, from `original`'s and `append`'s rows of the replay. `rate`: US
    /// dollars per input token on this turn, if known; `answered`: the trace shows the
    /// provider answering this turn (2xx).
    pub(super) fn turn(
        &mut self,
        turn: usize,
        (original, append): (&StrategyTurn, &StrategyTurn),
        rate: Option<f64>,
        answered: bool,
    ) {
        let f = &mut self.figures;
        // A break is lost by a change of tools or order (a moved marker restarts nothing), and
        // only where `append` reads a prefix `original` lost: uncached, nothing breaks.
        let breaking = std::mem::take(&mut self.breaking);
        if breaking
            && original.stable == Some(false)
            && append.stable == Some(true)
            && append.read.unwrap_or(0) > original.read.unwrap_or(0)
        {
            f.breaks_avoided += 1;
            f.order_kept += usize::from(self.step == AppendStep::Nothing);
        }
        if original.prefix_check.is_some() && append.prefix_check.is_none() {
            if answered {
                f.checks_avoided += 1;
            } else {
                f.refusals_avoided += 1;
            }
        }
        match std::mem::take(&mut self.step) {
            AppendStep::Nothing => {}
            AppendStep::Sent(tokens, form) => {
                f.changes += 1;
                f.change_tokens += tokens;
                if !f.forms.contains(&form) {
                    f.forms.push(form);
                }
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
        let now = || Base {
            ids: Arc::clone(turn.ids),
            present: turn.present,
            tools_tokens: turn.tokens.0,
            context_tokens: turn.tokens.1,
        };
        let mut step = AppendStep::Nothing;
        let mut error = None;
        self.append.breaking = !markers_only(turn.change);
        // A Converse `cachePoint` entry that comes or goes is caching, not a tool to send.
        let previous = self.threads[turn.thread].last_tools.as_ref();
        let previous = previous.map_or(&[][..], |p| &p.0[..]);
        let change = &without_markers(self.entries.all(), turn.change, [turn.ids, previous]);
        let marks_only = self.threads[turn.thread].append.placed.is_empty()
            && self.threads[turn.thread]
                .append
                .base
                .as_ref()
                .is_some_and(|base| {
                    let entries = self.entries.all();
                    let against = compare::compare(
                        entries,
                        (&base.ids, base.present),
                        (turn.ids, turn.present),
                    );
                    let c = without_markers(entries, &against, [&base.ids, turn.ids]);
                    c.added.is_empty()
                        && c.removed.is_empty()
                        && !c.order_changed
                        && !c.changed.iter().any(|c| redefines(&c.fields))
                });
        let state = &mut self.threads[turn.thread].append;
        if state.base.is_none() {
            state.base = Some(now());
        } else if marks_only {
            // Nothing sent yet and the same tools in the same order: the host's own cache
            // markers (moved, or a `cachePoint` come or gone) restart nothing and pass the
            // prefix check, so `append` sends them as the host does.
            state.base = Some(now());
        } else if !change.added.is_empty()
            || !change.removed.is_empty()
            || change.changed.iter().any(|c| redefines(&c.fields))
        {
            let first = state.base.as_ref().map(|b| Arc::clone(&b.ids));
            let first = first.unwrap_or_else(|| Arc::clone(turn.ids));
            let sent = form(turn.capture).and_then(|form| {
                let (text, tokens) = self.change_text(form, &first, turn, change)?;
                Ok((text, tokens, ChangeForm::from(form)))
            });
            let state = &mut self.threads[turn.thread].append;
            match sent {
                Err(why) => {
                    state.base = Some(now());
                    state.placed.clear();
                    error = Some(why.clone());
                    step = AppendStep::Refused(why);
                }
                Ok((text, tokens, form)) => {
                    state.placed.push(Placed {
                        after: turn.capture.conversation().len(),
                        hash: prompt::text_hash(&text),
                        tokens,
                    });
                    step = AppendStep::Sent(tokens, form);
                }
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

    /// The system message `append` sends for this turn's change on `form`, with its tokens, or
    /// why the provider refuses it. `first`: the list the thread keeps as `tools`. By
    /// reference, a tool the first list does not hold in context was declared deferred up
    /// front: its definition is rendered where the addition stands, and counted there.
    fn change_text(
        &self,
        form: Form,
        first: &[u32],
        turn: &AppendInputs<'_>,
        change: &ListChange,
    ) -> Result<(String, usize), String> {
        let entries = self.entries.all();
        if form == Form::Inline {
            let text = message(entries, change, turn.ids);
            let tokens = self.counter.count(&text);
            return Ok((text, tokens));
        }
        let in_first = |name: &str| {
            first
                .iter()
                .map(|&i| &entries[i as usize])
                .find(|e| &*e.name == name)
        };
        let redefined = change.changed.iter().find(|c| redefines(&c.fields));
        let added = || change.added.iter().map(String::as_str);
        if let Some(why) =
            reference_refusal(form, added(), redefined.map(|c| c.name.as_str()), |name| {
                in_first(name).is_some()
            })
        {
            return Err(why);
        }
        let text = reference_message(form, added(), change.removed.iter().map(String::as_str));
        let rendered: usize = added()
            .filter(|name| in_first(name).is_none_or(|e| e.deferred))
            .filter_map(|name| {
                turn.ids
                    .iter()
                    .map(|&i| &entries[i as usize])
                    .find(|e| &*e.name == name)
            })
            .map(|e| e.tokens)
            .sum();
        Ok((text.clone(), self.counter.count(&text) + rendered))
    }

    /// `append`'s figures of this turn, from its row and `original`'s (both must be replayed).
    /// `status`: the provider's answer to the turn as sent, where the trace has it.
    pub(super) fn append_figures(
        &mut self,
        (capture, turn, status): (&Capture, usize, Option<u16>),
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
        let answered = status.is_some_and(|s| (200..300).contains(&s));
        self.append.turn(turn, (&rows[o], &rows[a]), rate, answered);
    }
}

/// `change` without the nameless entries that came or went, where every nameless entry of
/// `lists` is a Converse `cachePoint` (a cache marker, not a tool: nothing to send).
fn without_markers(entries: &[Entry], change: &ListChange, lists: [&[u32]; 2]) -> ListChange {
    let mut change = change.clone();
    let markers = lists.iter().flat_map(|l| l.iter()).all(|&i| {
        let e = &entries[i as usize];
        !e.name.is_empty() || crate::strategies::append::is_marker(&e.json)
    });
    if markers {
        change.added.retain(|n| !n.is_empty());
        change.removed.retain(|n| !n.is_empty());
    }
    change
}

/// A change of the list since the thread's previous turn that only moved `cache_control`
/// markers: no tool changed, and a marker restarts no cache.
fn markers_only(change: &ListChange) -> bool {
    change.added.is_empty()
        && change.removed.is_empty()
        && !change.order_changed
        && !change.changed.is_empty()
        && !change.changed.iter().any(|c| redefines(&c.fields))
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
