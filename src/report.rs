//! Measured projections: the figures the CLI prints and the TUI shows, from one engine.

use std::borrow::Cow;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::capture::{Capture, Shape};
pub use crate::compact::{CaptureJson, array_bytes, first_changed_byte};
use crate::measure::TokenCounter;
use crate::pipeline::{project, provider_deferred};
use crate::projection::{Applies, ContractStatus, Note, Projection, SharedText, Status};
use crate::settings::Settings;
use crate::strategy::Strategy;
use crate::tool;

/// The capture's own figures.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CaptureFigures {
    /// Where it was read from.
    pub path: String,
    /// Its API shape id.
    pub shape: &'static str,
    /// Tools in the capture.
    pub tools: usize,
    /// Bytes of the tool list as captured, in the capture's own layout ([`Capture::tools_bytes`];
    /// the compact `tools` array for a capture given already parsed).
    pub tools_bytes: usize,
    /// Bytes of the compact JSON of the `tools` array: the text `tools_tokens` counts.
    pub tools_compact_bytes: usize,
    /// Tokens of the compact `tools` array.
    pub tools_tokens: usize,
    /// Tokens of the array as the model sees it: entries marked `defer_loading: true` count 0
    /// (STRATEGIES.md section 5). Equal to `tools_tokens` without such entries.
    pub context_tokens: usize,
    /// The tools in effect at the end of the request, when its messages change them
    /// (mid-conversation `tool_addition` / `tool_removal`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_effect: Option<InEffectFigures>,
    /// Why the provider would reject the request's system messages and tool changes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_change_problems: Vec<String>,
}

/// The tools a request has at its end when its messages change them.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct InEffectFigures {
    /// Tools declared in `tools` (deferred included).
    pub declared: usize,
    /// The tools in effect, in the order they came into effect, each with where it came from.
    pub tools: Vec<EffectToolFigures>,
    /// Tools withdrawn and not offered again.
    pub removed: Vec<EffectToolFigures>,
    /// Declared `defer_loading: true` and never offered: no context.
    pub hidden: Vec<String>,
    /// Tokens of the inline definitions, counted as prompt tokens where they stand (each
    /// definition's compact JSON).
    pub inline_tokens: usize,
    /// Tokens of the deferred declarations a `tool_addition` brings into context.
    pub added_tokens: usize,
}

/// One tool in effect (or withdrawn).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EffectToolFigures {
    /// Its name (`server/name`, `server/*` for MCP) and where it came from, structured
    /// (`from`, `message`, `redefined`, `removed_at`).
    #[serde(flatten)]
    pub tool: crate::tool_changes::EffectTool,
    /// Where it came from in words: `declared`, `added at message N`, `defined inline at
    /// message N`, `redefined inline at message N`, `removed at message N`.
    pub source: String,
    /// Tokens of its definition (0 when the request cannot show it: an MCP server's tools).
    pub tokens: usize,
}

/// The tools in effect of a capture whose messages change them, measured; `None` without
/// mid-conversation changes.
pub fn in_effect_figures(
    capture: &Capture,
    changes: &crate::tool_changes::ToolChanges,
    counter: &TokenCounter,
    original_tokens: &[usize],
) -> Option<InEffectFigures> {
    if changes.changes.is_empty() {
        return None;
    }
    let effect = changes.in_effect(capture);
    let measure = |tool: &crate::tool_changes::EffectTool| -> usize {
        match (&tool.definition, tool.declared) {
            (Some(definition), _) => counter.count(&tool::compact(definition)),
            (None, Some(index)) => original_tokens.get(index).copied().unwrap_or(0),
            _ => 0,
        }
    };
    let figures = |list: &[crate::tool_changes::EffectTool]| -> Vec<EffectToolFigures> {
        list.iter()
            .map(|t| EffectToolFigures {
                source: t.source(),
                tool: t.clone(),
                tokens: measure(t),
            })
            .collect()
    };
    let tools = figures(&effect.tools);
    let removed = figures(&effect.removed);
    let inline_tokens = changes
        .changes
        .iter()
        .filter_map(|c| match &c.target {
            crate::tool_changes::Target::Inline(d) => Some(counter.count(&tool::compact(d))),
            _ => None,
        })
        .sum();
    let added_tokens = effect
        .tools
        .iter()
        .chain(&effect.removed)
        .filter(|t| {
            matches!(
                t.origin,
                crate::tool_changes::Origin::Added { .. }
                    | crate::tool_changes::Origin::Searched { .. }
            )
        })
        .filter_map(|t| t.declared)
        .filter(|&i| capture.tools().get(i).is_some_and(provider_deferred))
        .map(|i| original_tokens.get(i).copied().unwrap_or(0))
        .sum();
    Some(InEffectFigures {
        declared: capture.tools().len(),
        tools,
        removed,
        hidden: effect.hidden,
        inline_tokens,
        added_tokens,
    })
}

/// Tokens of the inline definitions a request sends with `edits` made to the capture's
/// (`None`: the capture defines no tool inline).
fn inline_tokens(
    changes: &crate::tool_changes::ToolChanges,
    edits: &[crate::projection::InlineEdit],
    counter: &TokenCounter,
) -> Option<usize> {
    let defines = changes
        .changes
        .iter()
        .any(|c| matches!(c.target, crate::tool_changes::Target::Inline(_)));
    defines.then(|| {
        crate::strategies::inline::definitions(changes, edits)
            .into_iter()
            .map(|d| counter.count(&tool::compact(d)))
            .sum()
    })
}

/// Which request of a trace a report is about.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TurnFigures {
    /// The turn, 1-based, as `toolprism session` numbers it.
    pub turn: usize,
    /// Where the request is in the trace: `line 9`, `entry 3`, `002.json`.
    pub source: String,
    /// The trace's format id (`claude-trace`, `har`, `jsonl-wrapped`, `jsonl`, `folder`).
    pub format: &'static str,
}

impl TurnFigures {
    /// How the request is named to people: `trace.jsonl turn 5 (line 9)`.
    pub fn label(&self, name: &str) -> String {
        format!("{name} turn {} ({})", self.turn, self.source)
    }
}

impl Report {
    /// How the report's request is named to people: the capture's file, with the turn for a
    /// request of a trace (`trace.jsonl turn 5 (line 9)`). Not sanitized.
    pub fn input_name(&self) -> String {
        let name = crate::capture::display_name(&self.capture.path);
        match &self.turn {
            Some(turn) => turn.label(name),
            None => name.to_owned(),
        }
    }
}

/// One tool's figures under one projection.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ToolFigures {
    /// The tool's name.
    pub name: SharedText,
    /// `changed|kept|removed|added` (deferred tools are `removed`, see `reason`).
    pub status: ContractStatus,
    /// The full status word, `deferred` included (`kept|changed|removed|deferred|added`).
    pub state: Status,
    /// Why, in a few words.
    pub reason: SharedText,
    /// Tokens of the original entry (0 for added tools).
    pub original_tokens: u32,
    /// Tokens of the sent entry (0 when not sent).
    pub projected_tokens: u32,
    /// Bytes of the original entry as sent.
    pub original_bytes: u32,
    /// Bytes of the sent entry as the projection writes it (as sent when unchanged).
    pub projected_bytes: u32,
    /// Tokens the original entry puts in the model's context (0 when `defer_loading: true`).
    pub original_context_tokens: u32,
    /// Tokens the sent entry puts in the model's context (0 when not sent, or when
    /// `defer_loading: true`).
    pub context_tokens: u32,
}

/// Each origin's own size estimate of the projected list (STRATEGIES.md section 5).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Estimates {
    /// vtcode: bytes of compact `{"name","description","parameters"}` / 4, summed.
    pub vtcode: usize,
    /// a3s: `(Σ(name + description + compact parameters + 16) + 3) / 4`.
    pub a3s: usize,
    /// zero: `Σ(name/4 + description/4 + compact parameters/4 + 4)`.
    pub zero: usize,
    /// lean-ctx: compact JSON bytes of the tools array / 4.
    pub lean_ctx: usize,
}

/// One strategy, measured. A refused projection (the host rejects the capture) has no
/// figures: every figure is `None` (`null` in JSON) and `per_tool` is empty.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StrategyFigures {
    /// The strategy id.
    pub id: &'static str,
    /// Tools in the projected list.
    pub tools: Option<usize>,
    /// Bytes of the projected tool list as captured, in the capture's own layout (as `export
    /// --tools-only --layout as-captured` writes it; 0 when no `tools` key is sent).
    pub tools_bytes: Option<usize>,
    /// Bytes of its compact JSON: the text `tools_tokens` counts.
    pub tools_compact_bytes: Option<usize>,
    /// Tokens of its compact JSON.
    pub tools_tokens: Option<usize>,
    /// Tokens of it as the model sees it (`defer_loading: true` entries count 0).
    pub context_tokens: Option<usize>,
    /// Tokens of text added outside `tools`.
    pub added_tokens: Option<usize>,
    /// Tokens of the inline definitions the projected request's messages carry (each
    /// definition's compact JSON, as the projection sends it: strategies/inline.rs); absent
    /// when the capture defines no tool inline, and when refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inline_tokens: Option<usize>,
    /// `tools_tokens + added_tokens + inline_tokens`.
    pub total_tokens: Option<usize>,
    /// Capture tokens minus this projection's, on context tokens (which equal the tools
    /// tokens unless an entry is provider-deferred): negative costs more.
    pub saved_tokens: Option<i64>,
    /// `saved_tokens` as a percentage of the capture's, two decimals. Both `None` when refused
    /// or not applicable (nothing to act on: no saving of its own).
    pub saved_pct: Option<f64>,
    /// First byte of the compact tools array that differs from the capture's; `None` if equal
    /// (and when refused).
    pub first_changed_byte: Option<usize>,
    /// `ok`, `not_applicable` or `refused` (see [`crate::projection::ProjectionStatus`]).
    pub status: Applies,
    /// Why the status is not `ok` (the host's refusal, or what there was nothing of); `None` when ok.
    pub status_reason: Option<String>,
    /// Whether a provider would accept the projected request.
    pub request_valid: bool,
    /// The origin release reproduced (`None` for `original`).
    pub origin: Option<&'static str>,
    /// Why the strategy did what it did; lints. Errors first, then warnings, then info.
    pub notes: Vec<Note>,
    /// Per tool, originals in capture order then added tools.
    pub per_tool: Vec<ToolFigures>,
    /// The origins' own estimates of the projected list.
    pub estimates: Option<Estimates>,
    /// Anthropic's tool-use system prompt, a separate provider estimate (Messages captures
    /// that send at least one tool); never part of any tool's figures.
    pub provider_overhead_tokens: Option<usize>,
}

impl StrategyFigures {
    /// Whether the host refuses the capture (no figures).
    pub fn is_refused(&self) -> bool {
        self.status == Applies::Refused
    }

    /// The saving to show people, tokens and percent: only a strategy that applied saves
    /// anything. One with nothing to act on keeps its figures (the host's fallback, such as
    /// `code` sending no tools without a `program` gateway), but they are no saving; a refused
    /// one has no figures at all.
    pub fn shown_saving(&self) -> Option<(i64, f64)> {
        if self.status != Applies::Ok {
            return None;
        }
        self.saved_tokens.zip(self.saved_pct)
    }

    /// What the model sees of this projection: its tools in context plus the text it adds, the
    /// figure `saved_tokens` is measured against (equal to `total_tokens` unless an entry is
    /// provider-deferred). `None` when refused.
    pub fn in_context(&self) -> Option<usize> {
        self.context_tokens
            .zip(self.added_tokens)
            .map(|(context, added)| context + added + self.inline_tokens.unwrap_or(0))
    }
}

/// A whole report: the capture and each requested strategy.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    /// The version of toolprism (and of this report's keys, see CHANGELOG.md) that wrote it.
    pub version: &'static str,
    /// The capture.
    pub capture: CaptureFigures,
    /// Which request of a trace the capture is (`--turn N`); `None` (JSON `null`) for a single
    /// capture. [`report`] leaves it `None`: the caller that picked the turn fills it in.
    pub turn: Option<TurnFigures>,
    /// The encoding counted with.
    pub encoding: &'static str,
    /// One entry per strategy, in the order requested.
    pub strategies: Vec<StrategyFigures>,
    /// Every setting in force, defaults included, in [`Settings::KEYS`] order: enough to
    /// reproduce any figure.
    pub settings: serde_json::Map<String, Value>,
}

/// Every setting in force as `key: value` strings, in [`Settings::KEYS`] order, each as
/// `--set` accepts it. `adaptive.prompt` is `null` while unset: the conversation is the
/// context, which no `--set adaptive.prompt=...` value reproduces (an empty one is a context).
pub fn settings_map(settings: &Settings) -> serde_json::Map<String, Value> {
    Settings::KEYS
        .iter()
        .map(|setting| {
            let value = (setting.read)(settings).map_or(Value::Null, Value::String);
            (setting.key.to_owned(), value)
        })
        .collect()
}

/// Measure a set of strategies on a capture.
///
/// Counts the capture's entries once (in parallel), then projects and measures the strategies
/// a few at a time (as many as rayon has threads): each projection is serialized (unchanged
/// originals reuse the capture's compact JSON and counts), counted, turned into figures and
/// freed before the next group starts, so a 100,000-tool capture never holds more than a few
/// projections and their JSON at once. Exact: the same figures as counting every text whole.
pub fn report(
    capture: &Capture,
    path: &str,
    strategies: &[Strategy],
    settings: &Settings,
    counter: &TokenCounter,
) -> Report {
    let (json, original_sizes) = rayon::join(
        || CaptureJson::new(capture),
        || {
            capture
                .tools()
                .par_iter()
                .map(entry_sizes)
                .collect::<Vec<_>>()
        },
    );
    let originals: Vec<&str> = json.entries.iter().map(String::as_str).collect();
    let original_deferred: Vec<bool> = capture.tools().iter().map(provider_deferred).collect();
    let original_tokens = counter.count_many(&originals);
    let capture_present = capture.has_tools_key() || !originals.is_empty();
    let capture_tokens = if capture_present {
        counter.count_arrays_counted(&[(&originals, &original_tokens)])[0]
    } else {
        0
    };
    let capture_context = context_tokens(
        counter,
        &originals,
        &original_tokens,
        &original_deferred,
        capture_tokens,
    );
    let changes = crate::tool_changes::ToolChanges::read(capture);
    let capture_figures = CaptureFigures {
        path: path.to_owned(),
        shape: capture.shape().id(),
        tools: originals.len(),
        tools_bytes: capture_tools_bytes(capture, &originals),
        tools_compact_bytes: array_bytes(&originals, capture.has_tools_key()),
        tools_tokens: capture_tokens,
        context_tokens: capture_context,
        in_effect: in_effect_figures(capture, &changes, counter, &original_tokens),
        tool_change_problems: changes.problems(capture, None),
    };
    let capture_inline = inline_tokens(&changes, &[], counter);
    let measured = Measured {
        json: &json,
        originals: &originals,
        original_tokens: &original_tokens,
        original_deferred: &original_deferred,
        capture_context,
        capture_inline,
        settings,
    };
    // Groups of one strategy per thread: a parallel iterator over all of them would let a
    // thread waiting inside one strategy's counting start another, and hold every projection.
    let group = rayon::current_num_threads().max(1);
    let mut figures_list = Vec::with_capacity(strategies.len());
    for chunk in strategies.chunks(group) {
        let measured = &measured;
        let original_sizes = original_sizes.as_slice();
        figures_list.par_extend(chunk.par_iter().map(|&strategy| {
            measure_strategy(capture, strategy, measured, original_sizes, counter)
        }));
    }
    Report {
        version: env!("CARGO_PKG_VERSION"),
        capture: capture_figures,
        turn: None,
        encoding: counter.encoding().id(),
        strategies: figures_list,
        settings: settings_map(settings),
    }
}

/// Project one strategy and measure it against the capture's figures; the projection and its
/// JSON are freed on return.
fn measure_strategy(
    capture: &Capture,
    strategy: Strategy,
    measured: &Measured<'_>,
    original_sizes: &[EntrySizes],
    counter: &TokenCounter,
) -> StrategyFigures {
    let mut projection = project(capture, strategy, measured.settings);
    let sent = sent_json(capture, &projection, measured.json);
    let sizes = sent_sizes(capture, &projection, Some(original_sizes));
    let deferred: Vec<bool> = projection.tools(capture).map(provider_deferred).collect();
    let written = {
        let strs: Vec<&str> = sent.iter().map(std::convert::AsRef::as_ref).collect();
        projection.written_sizes(capture, &strs)
    };
    // The projected trees live on as compact JSON only.
    for tool in projection.sent.iter_mut().flatten() {
        if tool.replaced.is_some() {
            tool.replaced = Some(Value::Null);
        }
    }
    // Stored full entries (shorten's) are not part of any figure.
    projection.stored = Vec::new();
    let strs: Vec<&str> = sent.iter().map(std::convert::AsRef::as_ref).collect();
    // Unchanged originals reuse the capture's counts; only new entries are counted.
    let reused: Vec<Option<usize>> = projection
        .sent
        .iter()
        .flatten()
        .map(|tool| match (tool.replaced.is_none(), tool.origin) {
            (true, Some(i)) if i < measured.original_tokens.len() => {
                Some(measured.original_tokens[i])
            }
            _ => None,
        })
        .collect();
    let new: Vec<&str> = strs
        .iter()
        .zip(&reused)
        .filter(|(_, reused)| reused.is_none())
        .map(|(text, _)| *text)
        .collect();
    let mut new_counts = counter.count_many(&new).into_iter();
    let tokens: Vec<usize> = reused
        .iter()
        .map(|reused| reused.unwrap_or_else(|| new_counts.next().unwrap_or(0)))
        .collect();
    let tools_tokens = if tools_key_sent(capture, &projection, &strs) {
        counter.count_arrays_counted(&[(&strs, &tokens)])[0]
    } else {
        0
    };
    figures(
        capture,
        &projection,
        measured,
        Sent {
            json: &sent,
            sizes: &sizes,
            tokens: &tokens,
            tools_tokens,
            deferred: &deferred,
            written: written.as_ref(),
        },
        counter,
    )
}

/// Tokens of a list as the model sees it: the array of its entries not marked
/// `defer_loading: true` (0 when every entry is). `tools_tokens` when none is marked.
fn context_tokens(
    counter: &TokenCounter,
    entries: &[&str],
    tokens: &[usize],
    deferred: &[bool],
    tools_tokens: usize,
) -> usize {
    if !deferred.iter().any(|&d| d) {
        return tools_tokens;
    }
    let (kept, kept_tokens): (Vec<&str>, Vec<usize>) = entries
        .iter()
        .zip(tokens)
        .zip(deferred)
        .filter(|(_, deferred)| !**deferred)
        .map(|((entry, tokens), _)| (*entry, *tokens))
        .unzip();
    if kept.is_empty() {
        return 0;
    }
    counter.count_arrays_counted(&[(&kept, &kept_tokens)])[0]
}

/// The capture's `tools` bytes as sent (the compact array's for a capture given already parsed),
/// from its entries' compact JSON: every place that shows the capture's size says this.
pub fn capture_tools_bytes(capture: &Capture, compact_entries: &[&str]) -> usize {
    capture
        .tools_bytes()
        .unwrap_or_else(|| array_bytes(compact_entries, capture.has_tools_key()))
}

/// Measure one projection against the capture's precomputed figures.
pub fn measure_projection(
    capture: &Capture,
    projection: &Projection,
    json: &CaptureJson,
    original_tokens: &[usize],
    capture_tokens: usize,
    settings: &Settings,
    counter: &TokenCounter,
) -> StrategyFigures {
    let sent = sent_json(capture, projection, json);
    let strs: Vec<&str> = sent.iter().map(std::convert::AsRef::as_ref).collect();
    let sent_tokens = counter.count_many(&strs);
    let tools_tokens = if tools_key_sent(capture, projection, &strs) {
        counter.count_arrays_counted(&[(&strs, &sent_tokens)])[0]
    } else {
        0
    };
    let originals: Vec<&str> = json.entries.iter().map(String::as_str).collect();
    let original_deferred: Vec<bool> = capture.tools().iter().map(provider_deferred).collect();
    let capture_context = context_tokens(
        counter,
        &originals,
        original_tokens,
        &original_deferred,
        capture_tokens,
    );
    let sizes = sent_sizes(capture, projection, None);
    let deferred: Vec<bool> = projection.tools(capture).map(provider_deferred).collect();
    let written = projection.written_sizes(capture, &strs);
    figures(
        capture,
        projection,
        &Measured {
            json,
            originals: &originals,
            original_tokens,
            original_deferred: &original_deferred,
            capture_context,
            capture_inline: inline_tokens(
                &crate::tool_changes::ToolChanges::read(capture),
                &[],
                counter,
            ),
            settings,
        },
        Sent {
            json: &sent,
            sizes: &sizes,
            tokens: &sent_tokens,
            tools_tokens,
            deferred: &deferred,
            written: written.as_ref(),
        },
        counter,
    )
}

/// The capture's figures every projection is compared with.
struct Measured<'a> {
    json: &'a CaptureJson,
    originals: &'a [&'a str],
    original_tokens: &'a [usize],
    /// Per original: marked `defer_loading: true`.
    original_deferred: &'a [bool],
    /// The capture's context tokens, the basis of every saving.
    capture_context: usize,
    /// Tokens of the capture's inline definitions (`None`: it defines none), part of that basis.
    capture_inline: Option<usize>,
    settings: &'a Settings,
}

/// One projection's sent entries, measured: compact JSON, sizes, tokens, and the list total.
struct Sent<'a> {
    json: &'a [Cow<'a, str>],
    sizes: &'a [EntrySizes],
    tokens: &'a [usize],
    tools_tokens: usize,
    /// Per sent entry: marked `defer_loading: true`.
    deferred: &'a [bool],
    /// The list's bytes and each sent entry's as written in the capture's form
    /// ([`Projection::written_sizes`]); `None` for a capture given already parsed (compact
    /// JSON's bytes then).
    written: Option<&'a (usize, Vec<usize>)>,
}

/// The sizes the origins' estimates need, per sent entry; unchanged originals reuse theirs.
fn sent_sizes(
    capture: &Capture,
    projection: &Projection,
    original_sizes: Option<&[EntrySizes]>,
) -> Vec<EntrySizes> {
    projection
        .sent
        .as_deref()
        .unwrap_or_default()
        .par_iter()
        .with_min_len(64)
        .map(
            |tool| match (tool.replaced.is_none(), tool.origin, original_sizes) {
                (true, Some(i), Some(sizes)) if i < sizes.len() => sizes[i],
                _ => entry_sizes(tool.entry(capture)),
            },
        )
        .collect()
}

/// One projection's sent entries as compact JSON.
type SentJson<'j> = Vec<Cow<'j, str>>;

/// The compact JSON of each sent entry: unchanged originals borrow the capture's.
fn sent_json<'j>(
    capture: &Capture,
    projection: &Projection,
    json: &'j CaptureJson,
) -> SentJson<'j> {
    projection
        .sent
        .as_deref()
        .unwrap_or_default()
        .par_iter()
        .with_min_len(64)
        .map(|t| match (&t.replaced, t.origin) {
            (None, Some(i)) if i < json.entries.len() => Cow::Borrowed(json.entries[i].as_str()),
            _ => Cow::Owned(tool::compact(t.entry(capture))),
        })
        .collect()
}

/// Whether the projected request carries a `tools` key.
pub fn tools_key_sent(capture: &Capture, projection: &Projection, sent: &[&str]) -> bool {
    projection.sent.is_some() && (capture.has_tools_key() || !sent.is_empty())
}

fn figures(
    capture: &Capture,
    projection: &Projection,
    measured: &Measured<'_>,
    sent: Sent<'_>,
    counter: &TokenCounter,
) -> StrategyFigures {
    let status = projection.status.applies();
    let origin = projection.strategy.release(measured.settings);
    if projection.status.is_refused() {
        return refused_figures(projection, status, origin);
    }
    let sent_strs: Vec<&str> = sent.json.iter().map(std::convert::AsRef::as_ref).collect();
    let (sent_tokens, tools_tokens) = (sent.tokens, sent.tools_tokens);
    let tools_key_sent = tools_key_sent(capture, projection, &sent_strs);
    let added_tokens = projection
        .added_text
        .as_deref()
        .map_or(0, |t| counter.count(t));
    let inline = inline_tokens(
        &crate::tool_changes::ToolChanges::read(capture),
        &projection.inline,
        counter,
    );
    let total_tokens = tools_tokens + added_tokens + inline.unwrap_or(0);
    let context = context_tokens(
        counter,
        &sent_strs,
        sent_tokens,
        sent.deferred,
        tools_tokens,
    );
    // On context tokens: equal to the tools tokens unless an entry is provider-deferred.
    // The inline definitions stand in the messages of both requests: part of either side.
    let capture_tokens = measured.capture_context + measured.capture_inline.unwrap_or(0);
    let saved_tokens =
        capture_tokens as i64 - (context + added_tokens + inline.unwrap_or(0)) as i64;
    let saved_pct = if capture_tokens == 0 {
        0.0
    } else {
        (saved_tokens as f64 * 10000.0 / capture_tokens as f64).round() / 100.0
    };
    let first_changed_byte = first_changed_byte(
        measured.originals,
        capture.has_tools_key(),
        &sent_strs,
        tools_key_sent,
    );
    let per_tool = per_tool_figures(capture, projection, measured, &sent_strs, &sent);
    let provider_overhead_tokens = (capture.shape() == Shape::AnthropicMessages
        && !sent_strs.is_empty())
    .then(|| anthropic_tool_overhead(capture.body().get("tool_choice")));
    StrategyFigures {
        id: projection.strategy.id(),
        tools: Some(sent_strs.len()),
        tools_bytes: Some(
            sent.written
                .map_or_else(|| array_bytes(&sent_strs, tools_key_sent), |w| w.0),
        ),
        tools_compact_bytes: Some(array_bytes(&sent_strs, tools_key_sent)),
        tools_tokens: Some(tools_tokens),
        context_tokens: Some(context),
        added_tokens: Some(added_tokens),
        inline_tokens: inline,
        total_tokens: Some(total_tokens),
        // A strategy that did not apply sends the host's fallback: no saving of its own.
        saved_tokens: (status == Applies::Ok).then_some(saved_tokens),
        saved_pct: (status == Applies::Ok).then_some(saved_pct),
        first_changed_byte,
        status,
        status_reason: projection.status.reason().map(str::to_owned),
        request_valid: projection.request_valid,
        origin,
        notes: projection.notes.clone(),
        per_tool,
        estimates: Some(estimates(sent.sizes, &sent_strs)),
        provider_overhead_tokens,
    }
}

/// A refused projection's figures: its status, origin and notes, and no numbers (there is
/// no list to measure).
fn refused_figures(
    projection: &Projection,
    status: Applies,
    origin: Option<&'static str>,
) -> StrategyFigures {
    StrategyFigures {
        id: projection.strategy.id(),
        tools: None,
        tools_bytes: None,
        tools_compact_bytes: None,
        tools_tokens: None,
        context_tokens: None,
        added_tokens: None,
        inline_tokens: None,
        total_tokens: None,
        saved_tokens: None,
        saved_pct: None,
        first_changed_byte: None,
        status,
        status_reason: projection.status.reason().map(str::to_owned),
        request_valid: projection.request_valid,
        origin,
        notes: projection.notes.clone(),
        per_tool: Vec::new(),
        estimates: None,
        provider_overhead_tokens: None,
    }
}

/// Each outcome's figures: tokens and bytes before and after, and what stays in the model's
/// context (a provider-deferred entry takes none).
fn per_tool_figures(
    capture: &Capture,
    projection: &Projection,
    measured: &Measured<'_>,
    sent_strs: &[&str],
    sent: &Sent<'_>,
) -> Vec<ToolFigures> {
    let sent_tokens = sent.tokens;
    let json = measured.json;
    let original_tokens = |o: &crate::projection::ToolOutcome| {
        o.original
            .and_then(|i| measured.original_tokens.get(i).copied())
            .unwrap_or(0)
    };
    let projected_tokens = |o: &crate::projection::ToolOutcome| {
        o.projected
            .and_then(|i| sent_tokens.get(i).copied())
            .unwrap_or(0)
    };
    projection
        .outcomes
        .iter()
        .map(|o| ToolFigures {
            name: o.name.clone(),
            status: o.status.contract(),
            state: o.status,
            reason: o.reason.clone(),
            original_tokens: figure(original_tokens(o)),
            projected_tokens: figure(projected_tokens(o)),
            original_bytes: figure(o.original.map_or(0, |i| {
                capture
                    .entry_text(i)
                    .map_or_else(|| json.entries.get(i).map_or(0, String::len), str::len)
            })),
            projected_bytes: figure(o.projected.map_or(0, |i| match sent.written {
                Some((_, sizes)) => sizes.get(i).copied().unwrap_or(0),
                None => sent_strs.get(i).map_or(0, |s| s.len()),
            })),
            original_context_tokens: if o
                .original
                .is_some_and(|i| measured.original_deferred.get(i) == Some(&true))
            {
                0
            } else {
                figure(original_tokens(o))
            },
            context_tokens: if o
                .projected
                .is_some_and(|i| sent.deferred.get(i) == Some(&true))
            {
                0
            } else {
                figure(projected_tokens(o))
            },
        })
        .collect()
}

/// A per-tool figure as stored: 32 bits hold any one entry's tokens or bytes (every input is
/// bounded far below 4 GiB), and a 100,000-tool report keeps 13 × 100,000 rows of six.
fn figure(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl ToolFigures {
    /// [`original_tokens`](Self::original_tokens) as a count.
    pub fn original_tokens(&self) -> usize {
        self.original_tokens as usize
    }
    /// [`projected_tokens`](Self::projected_tokens) as a count.
    pub fn projected_tokens(&self) -> usize {
        self.projected_tokens as usize
    }
    /// [`original_bytes`](Self::original_bytes) as a count.
    pub fn original_bytes(&self) -> usize {
        self.original_bytes as usize
    }
    /// [`projected_bytes`](Self::projected_bytes) as a count.
    pub fn projected_bytes(&self) -> usize {
        self.projected_bytes as usize
    }
    /// [`original_context_tokens`](Self::original_context_tokens) as a count.
    pub fn original_context_tokens(&self) -> usize {
        self.original_context_tokens as usize
    }
    /// [`context_tokens`](Self::context_tokens) as a count.
    pub fn context_tokens(&self) -> usize {
        self.context_tokens as usize
    }
}

/// Anthropic's tool-use system prompt: ~346 tokens with tool_choice auto/none (or absent), 313
/// with any/tool, on current models.
pub fn anthropic_tool_overhead(tool_choice: Option<&Value>) -> usize {
    match tool_choice
        .and_then(|c| c.get("type"))
        .and_then(Value::as_str)
    {
        Some("any" | "tool") => 313,
        _ => 346,
    }
}

/// The byte sizes the origins' estimates read from one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EntrySizes {
    /// The name's bytes.
    name: usize,
    /// The description's bytes.
    description: usize,
    /// Compact JSON of the parameter schema (0 without one).
    parameters: usize,
    /// Compact `{"name","description","parameters"}` (`null` parameters without a schema).
    trio: usize,
}

/// An `io::Write` that only counts: sizes of compact JSON without building it.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Bytes of `value`'s compact JSON (the length of [`tool::compact`]'s output).
fn compact_len<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut count = ByteCount(0);
    // Writing into a counter cannot fail, and neither can serializing a `Value` or a `str`.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

fn entry_sizes(entry: &Value) -> EntrySizes {
    let name = tool::name(entry).unwrap_or("");
    let description = tool::description(entry).unwrap_or("");
    let parameters = tool::schema(entry).map_or(0, compact_len);
    // `{"name":…,"description":…,"parameters":…}`: 38 bytes of keys and punctuation.
    let trio = 38
        + compact_len(name)
        + compact_len(description)
        + if tool::schema(entry).is_some() {
            parameters
        } else {
            4 // null
        };
    EntrySizes {
        name: name.len(),
        description: description.len(),
        parameters,
        trio,
    }
}

fn estimates(sent: &[EntrySizes], sent_json: &[&str]) -> Estimates {
    let mut vtcode = 0;
    let mut a3s_sum = 0;
    let mut zero = 0;
    for sizes in sent {
        vtcode += sizes.trio / 4;
        a3s_sum += sizes.name + sizes.description + sizes.parameters + 16;
        zero += sizes.name / 4 + sizes.description / 4 + sizes.parameters / 4 + 4;
    }
    let a3s = if sent.is_empty() {
        0
    } else {
        a3s_sum.div_ceil(4)
    };
    let lean_ctx = if sent.is_empty() {
        0
    } else {
        array_bytes(sent_json, true) / 4
    };
    Estimates {
        vtcode,
        a3s,
        zero,
        lean_ctx,
    }
}

/// Whether a status means the tool is still sent.
pub fn is_sent(status: Status) -> bool {
    matches!(status, Status::Kept | Status::Changed | Status::Added)
}

/// Per-tool figures serialized per parallel job when [`write_json`] writes a report: small
/// enough that a list of a thousand tools still spreads over every core.
const JSON_CHUNK: usize = 128;

/// Write `report` as pretty JSON (two-space indent) and a final line feed: byte for byte what
/// `serde_json::to_writer_pretty` writes, but with each strategy's per-tool figures serialized
/// in parallel, a bounded window of chunks at a time, so that 100,000 tools' figures never
/// exist as one text and one core does not write them all. The per-tool lists are taken out
/// while the frames around them are written, and put back before returning.
pub fn write_json<W: std::io::Write>(report: &mut Report, out: &mut W) -> std::io::Result<()> {
    let per_tool: Vec<Vec<ToolFigures>> = report
        .strategies
        .iter_mut()
        .map(|strategy| std::mem::take(&mut strategy.per_tool))
        .collect();
    let written = write_json_framed(report, &per_tool, out);
    for (strategy, figures) in report.strategies.iter_mut().zip(per_tool) {
        strategy.per_tool = figures;
    }
    written
}

/// [`write_json`] once the per-tool lists are out of `report`. A key serde_json writes never
/// occurs inside a string (its quotes would be escaped), so each frame is split exactly once.
fn write_json_framed<W: std::io::Write>(
    report: &Report,
    per_tool: &[Vec<ToolFigures>],
    out: &mut W,
) -> std::io::Result<()> {
    let frame = Report {
        strategies: Vec::new(),
        ..report.clone()
    };
    let frame = pretty_at(&frame, 0)?;
    let (head, tail) = split_frame(&frame, "\"strategies\": []")?;
    out.write_all(head.as_bytes())?;
    out.write_all(b"\"strategies\": [")?;
    for (i, (strategy, figures)) in report.strategies.iter().zip(per_tool).enumerate() {
        out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        out.write_all(indent(2).as_bytes())?;
        let frame = pretty_at(strategy, 2)?;
        let (before, after) = split_frame(&frame, "\"per_tool\": []")?;
        out.write_all(before.as_bytes())?;
        out.write_all(b"\"per_tool\": [")?;
        if !figures.is_empty() {
            write_figures(figures, out)?;
            out.write_all(b"\n")?;
            out.write_all(indent(3).as_bytes())?;
        }
        out.write_all(b"]")?;
        out.write_all(after.as_bytes())?;
    }
    if !report.strategies.is_empty() {
        out.write_all(b"\n")?;
        out.write_all(indent(1).as_bytes())?;
    }
    out.write_all(b"]")?;
    out.write_all(tail.as_bytes())?;
    out.write_all(b"\n")
}

/// The elements of a `per_tool` list, four levels deep, each after its separator.
fn write_figures<W: std::io::Write>(figures: &[ToolFigures], out: &mut W) -> std::io::Result<()> {
    let window = JSON_CHUNK * rayon::current_num_threads().max(1) * 2;
    let mut first = true;
    for group in figures.chunks(window) {
        let texts: Vec<std::io::Result<Vec<u8>>> = group
            .par_chunks(JSON_CHUNK)
            .map(|chunk| {
                let mut text = Vec::with_capacity(chunk.len() * 512);
                for figure in chunk {
                    text.extend_from_slice(b",\n");
                    text.extend_from_slice(indent(4).as_bytes());
                    let mut serializer =
                        serde_json::Serializer::with_formatter(&mut text, formatter_at(4));
                    figure.serialize(&mut serializer)?;
                }
                Ok(text)
            })
            .collect();
        for text in texts {
            let text = text?;
            // Every chunk starts with `,\n`; the list's first element takes only the `\n`.
            let skip = usize::from(std::mem::take(&mut first));
            out.write_all(&text[skip..])?;
        }
    }
    Ok(())
}

fn split_frame<'f>(frame: &'f str, marker: &str) -> std::io::Result<(&'f str, &'f str)> {
    frame
        .split_once(marker)
        .ok_or_else(|| std::io::Error::other(format!("no {marker} in a report frame")))
}

/// serde_json's pretty formatter (two spaces), as it stands `depth` levels deep.
fn formatter_at(depth: usize) -> serde_json::ser::PrettyFormatter<'static> {
    use serde_json::ser::Formatter;
    let mut formatter = serde_json::ser::PrettyFormatter::with_indent(b"  ");
    for _ in 0..depth {
        let _ = formatter.begin_array(&mut std::io::sink());
    }
    formatter
}

/// Pretty JSON of `value` as written `depth` levels deep (its own first line unindented).
fn pretty_at<T: Serialize>(value: &T, depth: usize) -> std::io::Result<String> {
    let mut text = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut text, formatter_at(depth));
    value.serialize(&mut serializer)?;
    String::from_utf8(text).map_err(std::io::Error::other)
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}
