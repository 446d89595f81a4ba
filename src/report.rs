//! Measured projections: the figures the CLI prints and the TUI shows, from one engine.

use serde::Serialize;
use serde_json::Value;

use crate::capture::{Capture, Shape};
use crate::measure::TokenCounter;
use crate::projection::{Projection, Status, project};
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
    /// Bytes of the compact `tools` array.
    pub tools_bytes: usize,
    /// Tokens of the compact `tools` array.
    pub tools_tokens: usize,
}

/// One tool's figures under one projection.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ToolFigures {
    /// The tool's name.
    pub name: String,
    /// `changed|kept|removed|added` (deferred tools are `removed`, see `reason`).
    pub status: &'static str,
    /// The full status word, `deferred` included (`kept|changed|removed|deferred|added`).
    pub state: &'static str,
    /// Why, in a few words.
    pub reason: String,
    /// Tokens of the original entry (0 for added tools).
    pub original_tokens: usize,
    /// Tokens of the sent entry (0 when not sent).
    pub projected_tokens: usize,
    /// Bytes of the original entry.
    pub original_bytes: usize,
    /// Bytes of the sent entry.
    pub projected_bytes: usize,
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

/// One strategy, measured.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StrategyFigures {
    /// The strategy id.
    pub id: &'static str,
    /// Tools in the projected list.
    pub tools: usize,
    /// Bytes of the projected compact `tools` array (0 when no `tools` key is sent).
    pub tools_bytes: usize,
    /// Tokens of it.
    pub tools_tokens: usize,
    /// Tokens of text added outside `tools`.
    pub added_tokens: usize,
    /// `tools_tokens + added_tokens`.
    pub total_tokens: usize,
    /// Capture tokens minus `total_tokens` (negative: costs more).
    pub saved_tokens: i64,
    /// `saved_tokens` as a percentage of the capture's, two decimals.
    pub saved_pct: f64,
    /// First byte of the compact tools array that differs from the capture's; `None` if equal.
    pub first_changed_byte: Option<usize>,
    /// Why the strategy did what it did; lints.
    pub notes: Vec<String>,
    /// Per tool, originals in capture order then added tools.
    pub per_tool: Vec<ToolFigures>,
    /// The origins' own estimates of the projected list.
    pub estimates: Estimates,
    /// Anthropic's tool-use system prompt, a separate provider estimate (Messages captures
    /// that send at least one tool); never part of any tool's figures.
    pub provider_overhead_tokens: Option<usize>,
}

/// A whole report: the capture and each requested strategy.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    /// The capture.
    pub capture: CaptureFigures,
    /// The encoding counted with.
    pub encoding: &'static str,
    /// One entry per strategy, in the order requested.
    pub strategies: Vec<StrategyFigures>,
}

/// Compact JSON of every original tool, computed once per capture.
pub struct CaptureJson {
    /// Compact JSON of each original entry.
    pub entries: Vec<String>,
}

impl CaptureJson {
    /// Serialize every original entry.
    pub fn new(capture: &Capture) -> CaptureJson {
        CaptureJson {
            entries: capture.tools().iter().map(tool::compact).collect(),
        }
    }
}

/// Measure a set of strategies on a capture.
pub fn report(
    capture: &Capture,
    path: &str,
    strategies: &[Strategy],
    settings: &Settings,
    counter: &TokenCounter,
) -> Report {
    let json = CaptureJson::new(capture);
    let originals: Vec<&str> = json.entries.iter().map(String::as_str).collect();
    let original_tokens = counter.count_many(&originals);
    let capture_tokens = if capture.has_tools_key() || !originals.is_empty() {
        counter.count_array(&originals)
    } else {
        0
    };
    let capture_figures = CaptureFigures {
        path: path.to_owned(),
        shape: capture.shape().id(),
        tools: originals.len(),
        tools_bytes: array_bytes(&originals, capture.has_tools_key()),
        tools_tokens: capture_tokens,
    };
    let strategies = strategies
        .iter()
        .map(|&strategy| {
            let projection = project(capture, strategy, settings);
            measure_projection(
                capture,
                &projection,
                &json,
                &original_tokens,
                capture_tokens,
                counter,
            )
        })
        .collect();
    Report {
        capture: capture_figures,
        encoding: counter.encoding().id(),
        strategies,
    }
}

/// Measure one projection against the capture's precomputed figures.
pub fn measure_projection(
    capture: &Capture,
    projection: &Projection,
    json: &CaptureJson,
    original_tokens: &[usize],
    capture_tokens: usize,
    counter: &TokenCounter,
) -> StrategyFigures {
    let sent: Vec<&Value> = projection.tools(capture).collect();
    let sent_json: Vec<std::borrow::Cow<'_, str>> = projection
        .sent
        .iter()
        .flatten()
        .map(|t| match (&t.replaced, t.origin) {
            (None, Some(i)) => std::borrow::Cow::Borrowed(json.entries[i].as_str()),
            _ => std::borrow::Cow::Owned(tool::compact(t.entry(capture))),
        })
        .collect();
    let sent_strs: Vec<&str> = sent_json.iter().map(|s| s.as_ref()).collect();
    let sent_tokens = counter.count_many(&sent_strs);
    let tools_key_sent =
        projection.sent.is_some() && (capture.has_tools_key() || !sent_strs.is_empty());
    let tools_tokens = if tools_key_sent {
        counter.count_array(&sent_strs)
    } else {
        0
    };
    let added_tokens = projection
        .added_text
        .as_deref()
        .map_or(0, |t| counter.count(t));
    let total_tokens = tools_tokens + added_tokens;
    let saved_tokens = capture_tokens as i64 - total_tokens as i64;
    let saved_pct = if capture_tokens == 0 {
        0.0
    } else {
        (saved_tokens as f64 * 10000.0 / capture_tokens as f64).round() / 100.0
    };
    let originals: Vec<&str> = json.entries.iter().map(String::as_str).collect();
    let first_changed_byte = first_changed_byte(
        &originals,
        capture.has_tools_key(),
        &sent_strs,
        tools_key_sent,
    );
    let per_tool = projection
        .outcomes
        .iter()
        .map(|o| ToolFigures {
            name: o.name.clone(),
            status: o.status.contract_word(),
            state: o.status.word(),
            reason: o.reason.clone(),
            original_tokens: o.original.map_or(0, |i| original_tokens[i]),
            projected_tokens: o.projected.map_or(0, |i| sent_tokens[i]),
            original_bytes: o.original.map_or(0, |i| json.entries[i].len()),
            projected_bytes: o.projected.map_or(0, |i| sent_strs[i].len()),
        })
        .collect();
    let provider_overhead_tokens = (capture.shape() == Shape::AnthropicMessages
        && !sent.is_empty())
    .then(|| anthropic_tool_overhead(capture.body().get("tool_choice")));
    StrategyFigures {
        id: projection.strategy.id(),
        tools: sent.len(),
        tools_bytes: array_bytes(&sent_strs, tools_key_sent),
        tools_tokens,
        added_tokens,
        total_tokens,
        saved_tokens,
        saved_pct,
        first_changed_byte,
        notes: projection.notes.clone(),
        per_tool,
        estimates: estimates(&sent, &sent_strs),
        provider_overhead_tokens,
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

fn array_bytes(entries: &[&str], present: bool) -> usize {
    if !present {
        return 0;
    }
    2 + entries.iter().map(|e| e.len()).sum::<usize>() + entries.len().saturating_sub(1)
}

/// First differing byte between the compact arrays `[a0,a1,...]` and `[b0,b1,...]`, without
/// building them.
pub fn first_changed_byte(
    a: &[&str],
    a_present: bool,
    b: &[&str],
    b_present: bool,
) -> Option<usize> {
    if a_present != b_present {
        return Some(0);
    }
    if !a_present {
        return None;
    }
    let mut offset = 1; // after '['
    let n = a.len().min(b.len());
    for i in 0..n {
        if i > 0 {
            offset += 1; // the ','
        }
        if a[i] != b[i] {
            let common = a[i]
                .bytes()
                .zip(b[i].bytes())
                .take_while(|(x, y)| x == y)
                .count();
            return Some(offset + common);
        }
        offset += a[i].len();
    }
    (a.len() != b.len()).then_some(offset)
}

fn estimates(sent: &[&Value], sent_json: &[&str]) -> Estimates {
    let mut vtcode = 0;
    let mut a3s_sum = 0;
    let mut zero = 0;
    for entry in sent {
        let name = tool::name(entry).unwrap_or("");
        let description = tool::description(entry).unwrap_or("");
        let parameters = tool::schema(entry).map(tool::compact).unwrap_or_default();
        let mut trio = serde_json::Map::new();
        trio.insert("name".into(), name.into());
        trio.insert("description".into(), description.into());
        trio.insert(
            "parameters".into(),
            tool::schema(entry).cloned().unwrap_or(Value::Null),
        );
        vtcode += tool::compact(&Value::Object(trio)).len() / 4;
        a3s_sum += name.len() + description.len() + parameters.len() + 16;
        zero += name.len() / 4 + description.len() / 4 + parameters.len() / 4 + 4;
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
