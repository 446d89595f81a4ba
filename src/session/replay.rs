//! The strategies' replay: every strategy projects every turn (memoized by what it declares
//! it reads), and its request goes through its own cache model; per strategy, the rows of the
//! turns and the session's sums (SESSIONS.md section 3).

use std::collections::BTreeSet;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::append::AppendInputs;
use super::calibration::GroupFactor;
use super::compare::ListChange;
use super::read::TurnRead;
use super::{Analyzer, Counted, StrategyTurn, appended, cache, compare, prompt, round2};
use crate::capture::Capture;
use crate::pipeline::project_loaded;
use crate::projection::Applies;
use crate::report;
use crate::settings::{SearchProvider, Settings};
use crate::strategies::registry::reads;
use crate::strategy::{Input, Strategy};
use crate::tool;

/// A strategy's session figures, summed turn by turn (the same sums, in the same order, as
/// over a whole `per_turn`).
#[derive(Debug, Clone)]
pub(super) struct Totals {
    pub(super) total_tokens: usize,
    pub(super) prompt_tokens: usize,
    pub(super) breaks: usize,
    pub(super) cost: f64,
    pub(super) cost_uncached: usize,
    /// Anthropic's tool-use prompt on the turns this strategy sends tools, in provider tokens
    /// at each turn's own price per token: what `cost_provider` adds to the calibrated cost.
    pub(super) overhead_cost: f64,
    /// The cost per calibration group (by id): each is calibrated by its group's ratio.
    pub(super) group_costs: Vec<f64>,
    pub(super) applied: bool,
    pub(super) costed: bool,
}

impl Default for Totals {
    fn default() -> Totals {
        Totals {
            total_tokens: 0,
            prompt_tokens: 0,
            breaks: 0,
            // An empty `f64` sum is -0.0, which JSON writes as `-0.0`: start where `sum` does.
            cost: std::iter::empty::<f64>().sum(),
            cost_uncached: 0,
            overhead_cost: 0.0,
            group_costs: Vec::new(),
            applied: false,
            costed: false,
        }
    }
}

impl Totals {
    /// The calibrated cost: each calibration group's cost times its ratio (`ratios`, by group
    /// id), in provider tokens, with Claude's tool-use prompt and the `unseen` tokens the bill
    /// holds beyond the requests.
    pub(super) fn provider_cost(
        &self,
        factors: Option<&[GroupFactor]>,
        unseen: f64,
    ) -> Option<f64> {
        let factors = factors?;
        let calibrated: f64 = self
            .group_costs
            .iter()
            .zip(factors)
            .map(|(cost, f)| cost * f.per_token + f.fixed)
            .sum();
        Some(round2(calibrated + self.overhead_cost + unseen))
    }

    pub(super) fn add(&mut self, row: &StrategyTurn) {
        self.total_tokens += row.total_tokens.unwrap_or(0);
        self.prompt_tokens += row.prompt_tokens.unwrap_or(0);
        self.breaks += usize::from(row.stable == Some(false));
        if let Some(cost) = row.cost {
            self.cost += cost;
            self.cost_uncached += row.prompt_tokens.unwrap_or(0);
            self.costed = true;
        }
        self.applied |= row.status == Some(Applies::Ok);
    }
}

/// One strategy's projection of one distinct input, measured.
#[derive(Debug)]
pub(super) struct Projected {
    /// The sent entries (ids in the session's entry store).
    ids: Vec<u32>,
    /// The projected request carries a `tools` key.
    present: bool,
    tools_tokens: usize,
    /// Of those, in the model's context.
    context_tokens: usize,
    added_tokens: usize,
    /// The added text's hash, for the prompt's prefix.
    added_hash: u64,
    status: Applies,
    error: Option<String>,
}

impl Projected {
    /// `append`'s request: a kept list, and `added` tokens of system messages that stand in
    /// the conversation (spliced into the prompt there, not after the tools).
    pub(super) fn in_messages(
        ids: Vec<u32>,
        present: bool,
        (tools_tokens, context_tokens, added_tokens): (usize, usize, usize),
        status: Applies,
        error: Option<String>,
    ) -> Projected {
        Projected {
            ids,
            present,
            tools_tokens,
            context_tokens,
            added_tokens,
            added_hash: 0,
            status,
            error,
        }
    }
}

/// A strategy's last projection in a thread's chain.
#[derive(Debug)]
pub(super) struct StrategyPoint {
    projected: Arc<Projected>,
    tools: Arc<[u32]>,
    loaded: u32,
    context: u128,
}

/// One projection before its new entries are stored: each sent entry's id, or its JSON when
/// new; the `tools` key; added text; a refusal.
struct Sent {
    strategy: Strategy,
    sent: Vec<Result<u32, String>>,
    present: bool,
    added_text: Option<String>,
    status: Applies,
    error: Option<String>,
}

/// What every strategy's row of one turn reads.
pub(super) struct TurnInputs<'t> {
    pub(super) turn: usize,
    pub(super) thread: usize,
    pub(super) failed: bool,
    pub(super) time_ms: Option<i64>,
    pub(super) ids: &'t Arc<[u32]>,
    pub(super) seed: u64,
    pub(super) head: &'t [Counted],
    pub(super) rest: &'t [Counted],
    pub(super) rest_tokens: usize,
    pub(super) rules: &'t cache::Rules,
    /// Provider tokens a request with tools carries before them (Claude's tool-use prompt).
    pub(super) overhead: usize,
    pub(super) loaded: u32,
    pub(super) context: u128,
    pub(super) newly_loaded: &'t [String],
    /// Its calibration group (`None`: a failed call, outside the chain).
    pub(super) group: Option<usize>,
    /// A prefix the provider had cached before the trace began (found on this turn).
    pub(super) warmed: Option<cache::Warmed>,
    /// The model binds thinking to the prefix and an earlier assistant turn holds thinking:
    /// a projected list that changed in place fails this turn (PROVIDERS.md section 3).
    pub(super) binds_thinking: bool,
    /// `append`'s prompt after the tools, its system messages in place (when it is replayed).
    pub(super) append_rest: Option<&'t [Counted]>,
    /// The model, as the request or its URL names it.
    pub(super) model: &'t str,
    /// The provider billed the turn as sent: a prefix check it failed dropped or kept the
    /// thinking rather than refuse the request (`drop_block`, an account not enforced on).
    pub(super) billed: bool,
    /// Per strategy, the prompt blocks its inline definitions change ([`super::inline`]).
    pub(super) inline: &'t [Vec<(usize, i64)>],
}

/// Why the provider refuses a strategy's turn whose projected list changed in place.
const PREFIX_REFUSAL: &str =
    "the provider refuses this turn: the projected tool list was edited in place after thinking";

/// The same check failed on a turn the provider answered as sent: what it does instead.
const PREFIX_DROP: &str = "the prefix check fails: the projected tool list was edited in place after thinking; the provider answered this turn as sent, so it drops (or keeps) that thinking rather than refuse";

/// Memo key: strategy, distinct tools array, context hash, loaded set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct MemoKey {
    strategy: Strategy,
    /// The distinct tools array.
    array: u32,
    /// The context hash, for a strategy that reads it (else 0).
    context: u128,
    /// The loaded set's id, for a strategy that reads it (else 0).
    loaded: u32,
    /// `search` on a turn sent to OpenRouter under `search.provider=auto`: its tool search.
    openrouter: bool,
}

/// One strategy over the session as it is replayed.
#[derive(Debug, Default)]
pub(super) struct Replay {
    /// Its prompt cache (shared by all threads).
    store: cache::Store,
    pub(super) totals: Totals,
    /// A deferring strategy: tokens of each tool it kept out, over the session.
    pub(super) withheld: FxHashMap<Box<str>, usize>,
    /// On some turn it left a tool out of the model's reach.
    pub(super) unreachable: bool,
}

impl Analyzer<'_> {
    /// The prefix check's refusal of a turn (a failed call included: the provider judged its
    /// prefix) whose projected list differs from the one its thread's last turn in the chain
    /// sent. Read before [`Analyzer::strategy_row`] takes that turn's point.
    pub(super) fn prefix_refusal(
        &self,
        capture: &Capture,
        turn: &TurnInputs<'_>,
        index: usize,
        projected: &Projected,
    ) -> Option<String> {
        if !turn.binds_thinking {
            return None;
        }
        let before = self.threads[turn.thread].strategies[index].as_ref()?;
        let before = &before.projected;
        if before.present == projected.present && before.ids == projected.ids {
            return None;
        }
        // Moved markers and deferred tools nothing references yet pass the check.
        let entries = self.entries.all();
        let change = compare::compare(
            entries,
            (&before.ids, before.present),
            (&projected.ids, projected.present),
        );
        appended::refused_in_place((capture, turn.model), &change, entries, &projected.ids).then(
            || {
                if turn.billed {
                    PREFIX_DROP
                } else {
                    PREFIX_REFUSAL
                }
                .to_owned()
            },
        )
    }

    /// What a strategy's projection of a turn leaves out: tools the model can no longer reach
    /// (none sent: `disabled`, `code`'s fallback; some not selected: `adaptive`), and the
    /// tokens a deferring strategy keeps behind its search.
    fn tally_withheld(&mut self, turn: &TurnInputs<'_>, index: usize, projected: &Projected) {
        let strategy = self.strategies[index];
        let fewer = projected.ids.len() < turn.ids.len();
        self.replays[index].unreachable |= match strategy {
            Strategy::Disabled | Strategy::Adaptive => fewer,
            Strategy::Code => fewer && projected.status != Applies::Ok,
            _ => false,
        };
        if matches!(strategy, Strategy::Defer | Strategy::DeferCatalog) {
            let sent: FxHashSet<u32> = projected.ids.iter().copied().collect();
            for &id in turn.ids.iter() {
                let entry = self.entries.get(id);
                if !sent.contains(&id) && !entry.deferred {
                    *self.replays[index]
                        .withheld
                        .entry(entry.name.clone())
                        .or_default() += entry.tokens;
                }
            }
        }
    }

    /// One strategy's row of a turn: its figures, whether its tools stayed as the thread's
    /// last turn sent them and why not, and its request through its own cache model.
    pub(super) fn strategy_row(
        &mut self,
        turn: &TurnInputs<'_>,
        index: usize,
        projected: Arc<Projected>,
    ) -> StrategyTurn {
        let strategy = self.strategies[index];
        self.tally_withheld(turn, index, &projected);
        let reads_context = reads(strategy, Input::Context);
        let reads_loaded = reads(strategy, Input::Loaded);
        let point = StrategyPoint {
            projected: Arc::clone(&projected),
            tools: Arc::clone(turn.ids),
            loaded: if reads_loaded { turn.loaded } else { 0 },
            context: if reads_context { turn.context } else { 0 },
        };
        // The inline definitions it sends, where they stand in the prompt.
        let inline = turn
            .inline
            .get(index)
            .and_then(|d| super::inline::adjusted(turn.head, turn.rest, d));
        let (head, own_rest, rest_tokens) = match &inline {
            Some((head, rest, tokens)) => (&head[..], &rest[..], *tokens),
            None => (turn.head, turn.rest, turn.rest_tokens),
        };
        let total = projected.context_tokens + projected.added_tokens;
        let whole = total + rest_tokens;
        let mut entry = StrategyTurn {
            turn: turn.turn,
            tools_tokens: Some(projected.tools_tokens),
            context_tokens: Some(projected.context_tokens),
            total_tokens: Some(total),
            prompt_tokens: Some(whole),
            stable: None,
            first_changed_byte: None,
            reason: None,
            status: Some(projected.status),
            state: None,
            read: None,
            write: None,
            input: None,
            cost: None,
            error: projected.error.clone(),
            prefix_check: None,
        };
        if turn.failed {
            entry.reason = Some("failed call: outside the cache chain".to_owned());
            return entry;
        }
        let previous = self.threads[turn.thread].strategies[index].take();
        match &previous {
            None => entry.reason = Some("first turn of its thread".to_owned()),
            Some(before) => {
                let same = before.projected.present == projected.present
                    && before.projected.ids == projected.ids;
                entry.stable = Some(same);
                if !same {
                    let json = |ids: &[u32]| -> Vec<&str> {
                        ids.iter().map(|&i| &*self.entries.get(i).json).collect()
                    };
                    entry.first_changed_byte = report::first_changed_byte(
                        &json(&before.projected.ids),
                        before.projected.present,
                        &json(&projected.ids),
                        projected.present,
                    );
                    entry.reason = Some(self.why_changed(before, &point, turn.newly_loaded));
                }
            }
        }
        // `append`'s added text is its system messages, where they stand in the conversation.
        let (added, rest) = match turn.append_rest {
            Some(rest) if strategy == Strategy::Append => (None, rest),
            _ => (
                (projected.added_tokens > 0)
                    .then_some((projected.added_hash, projected.added_tokens)),
                own_rest,
            ),
        };
        self.fill_boundaries(
            turn.seed,
            head,
            &projected.ids,
            projected.context_tokens,
            added,
            rest,
        );
        // `original` is the prompt the provider had cached before the trace: it reads what the
        // provider read, where another strategy's prompt was never cached.
        if strategy == Strategy::Original
            && let Some(warmed) = turn.warmed
        {
            self.replays[index]
                .store
                .adopt_warmed(&self.boundaries, warmed, turn.time_ms);
        }
        let mut m =
            self.replays[index]
                .store
                .request(&self.boundaries, whole, turn.time_ms, turn.rules);
        // An automatic cache read that prefix inside a block: what the provider read is read.
        if strategy == Strategy::Original
            && turn.rules.openai
            && let Some(warmed) = turn.warmed
            && m.read < warmed.read
        {
            m.read = warmed.read.min(whole);
            m.input = whole.saturating_sub(m.read + m.written());
        }
        entry.state = Some(m.state());
        entry.read = Some(m.read);
        entry.write = Some(m.written());
        entry.input = Some(m.input);
        entry.cost = Some(m.cost(turn.rules));
        if let Some(group) = turn.group {
            let costs = &mut self.replays[index].totals.group_costs;
            if costs.len() <= group {
                costs.resize(group + 1, 0.0);
            }
            costs[group] += m.cost(turn.rules);
        }
        if turn.overhead > 0 && !projected.ids.is_empty() && whole > 0 {
            let per_token = m.cost(turn.rules) / whole as f64;
            self.replays[index].totals.overhead_cost += turn.overhead as f64 * per_token;
        }
        self.threads[turn.thread].strategies[index] = Some(point);
        entry
    }

    /// Every strategy's projection of this request, from the memo or projected now (the new
    /// ones in parallel).
    pub(super) fn project_all(
        &mut self,
        capture: &Capture,
        capture_ids: &[u32],
        array: u32,
        (context, openrouter): (u128, bool),
        loaded: u32,
        loaded_set: &BTreeSet<String>,
    ) -> Vec<Option<Arc<Projected>>> {
        let routed = routed_settings(&self.settings, openrouter);
        // Keyed by what each strategy declares it reads, nothing more.
        let key_of = |strategy: Strategy| -> MemoKey {
            MemoKey {
                strategy,
                array,
                context: if reads(strategy, Input::Context) {
                    context
                } else {
                    0
                },
                loaded: if reads(strategy, Input::Loaded) {
                    loaded
                } else {
                    0
                },
                openrouter: routed.is_some() && strategy == Strategy::Search,
            }
        };
        let missing: Vec<Strategy> = self
            .strategies
            .iter()
            .copied()
            // `append`'s request is the thread's, not the turn's: replayed apart.
            .filter(|&s| s != Strategy::Append && !self.memo.contains_key(&key_of(s)))
            .collect();
        if !missing.is_empty() {
            // Project and serialize in parallel; keep each projection's new entries as JSON.
            let drafts: Vec<Sent> = missing
                .par_iter()
                .map(|&strategy| {
                    let settings = routed.as_ref().filter(|_| strategy == Strategy::Search);
                    let settings = settings.unwrap_or(&self.settings);
                    let projection = project_loaded(capture, strategy, settings, loaded_set);
                    let sent: Vec<Result<u32, String>> = projection
                        .sent
                        .iter()
                        .flatten()
                        .map(|t| match (&t.replaced, t.origin) {
                            (None, Some(i)) if i < capture_ids.len() => Ok(capture_ids[i]),
                            _ => Err(tool::compact(t.entry(capture))),
                        })
                        .collect();
                    let present =
                        projection.sent.is_some() && (capture.has_tools_key() || !sent.is_empty());
                    Sent {
                        strategy,
                        sent,
                        present,
                        added_text: projection.added_text,
                        status: projection.status.applies(),
                        error: match projection.status {
                            crate::projection::ProjectionStatus::Refused(reason) => Some(reason),
                            _ => None,
                        },
                    }
                })
                .collect();
            self.projections_run += drafts.len();
            let added: Vec<&str> = drafts
                .iter()
                .filter_map(|d| d.added_text.as_deref())
                .collect();
            let added_counts = self.counter.count_many(&added);
            let mut added_counts = added_counts.into_iter();
            for Sent {
                strategy,
                sent,
                present,
                added_text,
                status,
                error,
            } in drafts
            {
                let mut ids = Vec::with_capacity(sent.len());
                let mut fresh = Vec::new();
                for item in &sent {
                    if let Err(json) = item {
                        fresh.push(json.clone());
                    }
                }
                let mut fresh_ids = self.entries.intern_all(self.counter, fresh).into_iter();
                for item in sent {
                    ids.push(match item {
                        Ok(id) => id,
                        Err(_) => fresh_ids.next().unwrap_or_default(),
                    });
                }
                let tools_tokens = if present {
                    self.entries.list_tokens(self.counter, &ids)
                } else {
                    0
                };
                let context_tokens = self
                    .entries
                    .context_tokens(self.counter, &ids, tools_tokens);
                let added_tokens = if added_text.is_some() {
                    added_counts.next().unwrap_or_default()
                } else {
                    0
                };
                let added_hash = added_text.as_deref().map_or(0, prompt::text_hash);
                self.memo.insert(
                    key_of(strategy),
                    Arc::new(Projected {
                        ids,
                        present,
                        tools_tokens,
                        context_tokens,
                        added_tokens,
                        added_hash,
                        status,
                        error,
                    }),
                );
            }
        }
        // `append`'s is not memoized: `None`, the session's own (`replay_rows`).
        self.strategies
            .iter()
            .map(|&s| self.memo.get(&key_of(s)).map(Arc::clone))
            .collect()
    }

    /// Why a strategy's projected list changed since the previous turn of the thread.
    fn why_changed(
        &self,
        before: &StrategyPoint,
        now: &StrategyPoint,
        loaded: &[String],
    ) -> String {
        if before.tools != now.tools {
            let mut a: Vec<u32> = before.tools.to_vec();
            let mut b: Vec<u32> = now.tools.to_vec();
            a.sort_unstable();
            b.sort_unstable();
            return if a == b {
                "a reorder in the capture".to_owned()
            } else {
                "the capture's tool list changed".to_owned()
            };
        }
        if before.loaded != now.loaded {
            return if loaded.is_empty() {
                "a tool loaded through tool_search".to_owned()
            } else {
                format!("a tool loaded through tool_search ({})", loaded.join(", "))
            };
        }
        if before.context != now.context {
            return "the selector following the prompt".to_owned();
        }
        "the request changed outside the tools".to_owned()
    }
}

/// The settings `search` projects a turn sent to OpenRouter with under `search.provider=auto`:
/// OpenRouter's own tool search (`None`: another host, or a provider chosen).
fn routed_settings(settings: &Settings, openrouter: bool) -> Option<Settings> {
    (openrouter && settings.search_provider == SearchProvider::Auto).then(|| Settings {
        search_provider: SearchProvider::OpenRouter,
        ..settings.clone()
    })
}

/// What a turn's strategy rows are computed from, beside its read request.
#[derive(Clone, Copy)]
pub(super) struct RowsOf<'t> {
    pub(super) turn: usize,
    pub(super) thread: usize,
    pub(super) failed: bool,
    pub(super) time_ms: Option<i64>,
    pub(super) ids: &'t Arc<[u32]>,
    pub(super) array: u32,
    pub(super) head: &'t [Counted],
    pub(super) rest: &'t [Counted],
    pub(super) rest_tokens: usize,
    pub(super) group: Option<usize>,
    /// The capture's tools' tokens and tokens in context (whether it has a `tools` key is
    /// `read.present`).
    pub(super) tokens: (usize, usize),
    /// Against the thread's previous list.
    pub(super) change: &'t ListChange,
}

impl Analyzer<'_> {
    /// Every strategy's row of a turn (each projection memoized by what it reads), and the
    /// names this turn's `tool_search` calls loaded.
    pub(super) fn replay_rows(
        &mut self,
        capture: &Capture,
        read: &mut TurnRead<'_>,
        of: &RowsOf<'_>,
    ) -> (Vec<StrategyTurn>, Vec<String>) {
        let RowsOf {
            turn,
            thread,
            failed,
            time_ms,
            ids,
            array,
            head,
            rest,
            rest_tokens,
            group,
            tokens,
            change,
        } = *of;
        let present = read.present;
        let (newly_loaded, loaded_set, loaded) =
            self.grow_loaded(std::mem::take(&mut read.loads), thread);
        let context = read.context;
        let append = self.strategies.contains(&Strategy::Append).then(|| {
            self.append_projection(&AppendInputs {
                capture,
                thread,
                ids,
                present,
                tokens,
                change,
                rest,
                head: head.len(),
            })
        });
        let projected = self.project_all(capture, ids, array, read.inputs(), loaded, &loaded_set);
        let projected = projected.into_iter().map(|p| {
            p.or_else(|| append.as_ref().map(|a| Arc::clone(&a.projected)))
                .unwrap_or_else(|| {
                    let nothing = (0, 0, 0);
                    let p = Projected::in_messages(Vec::new(), false, nothing, Applies::Ok, None);
                    Arc::new(p)
                })
        });
        let inline = super::inline::deltas(
            capture,
            (&self.strategies, &self.settings),
            (head, rest),
            self.counter,
            &mut self.inline_memo,
        );
        let inputs = TurnInputs {
            turn,
            thread,
            failed,
            time_ms,
            ids,
            seed: read.seed,
            head,
            rest,
            rest_tokens,
            rules: &read.rules,
            overhead: read.overhead,
            loaded,
            context,
            newly_loaded: &newly_loaded,
            group,
            warmed: self.warmed.take(),
            binds_thinking: appended::binds_thinking(capture, &read.model),
            append_rest: append.as_ref().map(|a| &a.rest[..]),
            model: &read.model,
            billed: read.billed,
            inline: &inline,
        };
        let rows: Vec<StrategyTurn> = projected
            .enumerate()
            .map(|(index, projected)| {
                let refusal = self.prefix_refusal(capture, &inputs, index, &projected);
                let mut row = self.strategy_row(&inputs, index, projected);
                row.prefix_check = refusal;
                row
            })
            .collect();
        (rows, newly_loaded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summed_totals_are_the_sums_over_the_rows() {
        let row = |cost: Option<f64>, prompt: usize, stable: Option<bool>| StrategyTurn {
            turn: 1,
            tools_tokens: Some(1),
            context_tokens: Some(1),
            total_tokens: Some(prompt / 2),
            prompt_tokens: Some(prompt),
            stable,
            first_changed_byte: None,
            reason: None,
            status: Some(if stable.is_some() {
                Applies::Ok
            } else {
                Applies::Refused
            }),
            state: None,
            read: None,
            write: None,
            input: None,
            cost,
            error: None,
            prefix_check: None,
        };
        let rows = [
            row(Some(0.1), 10, None),
            row(None, 20, Some(false)),
            row(Some(0.2), 30, Some(true)),
            row(Some(0.3), 40, Some(false)),
        ];
        let mut totals = Totals::default();
        for r in &rows {
            totals.add(r);
        }
        let cost: f64 = rows.iter().filter_map(|t| t.cost).sum();
        assert_eq!(totals.cost.to_bits(), cost.to_bits());
        assert_eq!(totals.cost_uncached, 80);
        assert_eq!(totals.prompt_tokens, 100);
        assert_eq!(totals.total_tokens, 50);
        assert_eq!(totals.breaks, 2);
        assert!(totals.applied && totals.costed);
        // No cost at all sums as `sum` does (to -0.0).
        let empty: f64 = std::iter::empty::<f64>().sum();
        assert_eq!(Totals::default().cost.to_bits(), empty.to_bits());
    }
}
