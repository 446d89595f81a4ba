//! The session view's model (`toolprism TRACE`): the turns, the chart series, the break marks
//! and the strategies' totals, computed from a [`SessionReport`] alone. Pure and deterministic;
//! every string that comes from the trace is sanitized here, so the drawing
//! (`session::draw`) only lays text out.

pub mod app;
pub mod diff;
pub mod draw;
pub mod text;

use crate::sanitize::visible;
use crate::session::{SessionReport, StrategySession, TurnFacts};
use crate::text::thousands;
use crate::trace::time::format_utc;

/// One row of the turns table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRow {
    /// The turn's number (1-based over the trace).
    pub turn: usize,
    /// Time of day (UTC) when the record has a readable timestamp, else as written, else `-`.
    pub time: String,
    /// The thread's id (`t1`, ...).
    pub thread: String,
    /// Tools sent (`?` for a compaction stub).
    pub tools: String,
    /// Tokens of the tools array (`?` for a stub).
    pub tokens: String,
    /// What changed against the previous turn of its thread, in counts: `+2 −1 ~3 order`.
    pub change: String,
    /// The observed cache: `cold`, `hit`, `break (tools)`, `unknown`.
    pub cache: String,
    /// The observed chain check says the cache broke.
    pub observed_break: bool,
    /// The charted strategies whose projected tools changed at this turn.
    pub strategy_breaks: Vec<&'static str>,
    /// A compaction stub: nothing to open.
    pub stub: bool,
    /// A failed call (an error status or no response).
    pub failed: bool,
}

impl TurnRow {
    /// Whether this turn carries a break mark (observed, or a charted strategy's).
    pub fn marked(&self) -> bool {
        self.observed_break || !self.strategy_breaks.is_empty()
    }
}

/// One strategy's session totals, as the totals table shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TotalRow {
    /// The strategy id.
    pub id: &'static str,
    /// Tokens sent over the session.
    pub tokens: String,
    /// Turns whose projected tools changed.
    pub breaks: String,
    /// The cost model's figure (input-token equivalents, whole).
    pub cost: String,
    /// The same turns without caching.
    pub uncached: String,
    /// Cost against `original`'s (`+4.2%`), `n/a` when the strategy applied on no turn, `-`
    /// without an original to compare with.
    pub vs_original: String,
    /// Charted.
    pub shown: bool,
    /// It applied on at least one turn (see [`StrategySession::applied`]).
    pub applied: bool,
}

/// One charted strategy: total tokens sent per turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The strategy id.
    pub id: &'static str,
    /// (turn index, tokens) for every turn with known tools.
    pub points: Vec<(f64, f64)>,
}

/// The whole session view model.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionView {
    /// The header's parts: name, format, turns, threads, torn (when so), ignored, skipped.
    pub header: Vec<String>,
    /// One row per turn.
    pub turns: Vec<TurnRow>,
    /// One row per strategy, in the report's order.
    pub totals: Vec<TotalRow>,
    /// The charted strategies, in the report's order.
    pub series: Vec<Series>,
    /// The largest charted value (the chart's top).
    pub max_tokens: usize,
    /// Each turn's place on the chart's x axis: its index, plus one empty place for each
    /// change of thread before it, so the lines of two threads never run into each other.
    pub x: Vec<f64>,
}

impl SessionView {
    /// The last place on the x axis (at least 1, so that one turn still spans the chart).
    pub fn x_max(&self) -> f64 {
        self.x.last().copied().unwrap_or(0.0).max(1.0)
    }

    /// A series' points on the x axis, in runs a line joins: consecutive turns of one thread.
    /// A change of thread (or a turn without figures) ends a run.
    pub fn runs(&self, series: &Series) -> Vec<Vec<(f64, f64)>> {
        let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
        let mut previous: Option<usize> = None;
        for &(index, tokens) in &series.points {
            let i = index as usize;
            let joined = previous.is_some_and(|p| {
                p + 1 == i
                    && self.turns.get(p).map(|t| &t.thread) == self.turns.get(i).map(|t| &t.thread)
            });
            let x = self.x.get(i).copied().unwrap_or(index);
            match runs.last_mut() {
                Some(run) if joined => run.push((x, tokens)),
                _ => runs.push(vec![(x, tokens)]),
            }
            previous = Some(i);
        }
        runs
    }
}

impl SessionView {
    /// The view of `report` with the strategies whose `shown` flag is set charted (by index in
    /// `report.strategies`).
    pub fn build(report: &SessionReport, shown: &[bool]) -> SessionView {
        let is_shown = |i: usize| shown.get(i).copied().unwrap_or(false);
        let charted: Vec<&StrategySession> = report
            .strategies
            .iter()
            .enumerate()
            .filter(|(i, _)| is_shown(*i))
            .map(|(_, s)| s)
            .collect();
        let turns = report
            .turns
            .iter()
            .enumerate()
            .map(|(i, t)| turn_row(t, i, &charted))
            .collect();
        let series: Vec<Series> = charted
            .iter()
            .map(|s| Series {
                id: s.id,
                points: s
                    .per_turn
                    .iter()
                    .enumerate()
                    .filter_map(|(i, t)| t.total_tokens.map(|n| (i as f64, n as f64)))
                    .collect(),
            })
            .collect();
        let max_tokens = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1 as usize))
            .max()
            .unwrap_or(0);
        let totals = report
            .strategies
            .iter()
            .enumerate()
            .map(|(i, s)| TotalRow {
                id: s.id,
                tokens: thousands(s.total_tokens),
                breaks: thousands(s.breaks),
                cost: whole(s.cost),
                uncached: whole(s.cost_uncached),
                vs_original: report.versus_original(s).to_string(),
                shown: is_shown(i),
                applied: s.applied(),
            })
            .collect();
        let mut x = Vec::with_capacity(report.turns.len());
        let mut place = 0.0;
        for (i, t) in report.turns.iter().enumerate() {
            if i > 0 && report.turns[i - 1].thread != t.thread {
                place += 1.0;
            }
            x.push(place);
            place += 1.0;
        }
        SessionView {
            header: header(report),
            turns,
            totals,
            series,
            max_tokens,
            x,
        }
    }
}

/// The strategies charted by default: `original`, and the two cheapest others that applied and
/// send something (a strategy that sends no tools is cheapest and says nothing on a chart).
pub fn default_shown(report: &SessionReport) -> Vec<bool> {
    let mut shown: Vec<bool> = report
        .strategies
        .iter()
        .map(|s| s.id == "original")
        .collect();
    let mut others: Vec<(usize, f64)> = report
        .strategies
        .iter()
        .enumerate()
        .filter(|(_, s)| s.id != "original" && s.applied() && s.total_tokens > 0)
        .map(|(i, s)| (i, s.cost))
        .collect();
    // Cheapest first; ties in the report's order.
    others.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    for (i, _) in others.into_iter().take(2) {
        shown[i] = true;
    }
    if !shown.iter().any(|&s| s)
        && let Some(first) = shown.first_mut()
    {
        *first = true;
    }
    shown
}

fn header(report: &SessionReport) -> Vec<String> {
    let trace = &report.trace;
    let mut parts = vec![
        visible(&trace.path).into_owned(),
        match trace.compression {
            Some(c) => format!("{} ({c})", trace.format),
            None => trace.format.to_owned(),
        },
        plural(trace.turns, "turn", "turns"),
        plural(trace.threads.len(), "thread", "threads"),
    ];
    // The model's agreement with the bill and the cheapest strategy come before the counts.
    let a = &report.agreement;
    if let Some(rate) = a.rate {
        parts.push(format!(
            "agreement {}/{} judged of {} ({:.0}%)",
            a.agree,
            a.judged,
            a.turns,
            rate * 100.0
        ));
    }
    // Beside it, where the provider diagnosed its cache: how often toolprism names its part.
    if let Some(d) = &report.diagnosis
        && let Some(rate) = d.rate
    {
        parts.push(format!(
            "provider diagnosis {}/{} same part ({:.0}%)",
            d.agree,
            d.diagnosed,
            rate * 100.0
        ));
    }
    if let Some(cheapest) = report.cheapest {
        parts.push(format!("cheapest {cheapest}"));
    }
    // Before the counts: where the header is short, it is the counts that give way.
    if trace.torn_last_line {
        parts.push("last line torn".to_owned());
    }
    parts.push(format!("{} ignored", thousands(trace.ignored_total)));
    parts.push(format!("{} skipped", thousands(trace.skipped)));
    parts
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

fn whole(x: f64) -> String {
    thousands(x.round().max(0.0) as usize)
}

fn turn_row(t: &TurnFacts, index: usize, charted: &[&StrategySession]) -> TurnRow {
    let time = match (t.time_ms, t.timestamp.as_deref()) {
        // The date is in the detail; the table keeps the time of day.
        (Some(ms), _) => format_utc(ms).get(11..).unwrap_or_default().to_owned(),
        (None, Some(text)) => visible(text).into_owned(),
        (None, None) => "-".to_owned(),
    };
    let strategy_breaks = charted
        .iter()
        .filter(|s| s.per_turn.get(index).and_then(|p| p.stable) == Some(false))
        .map(|s| s.id)
        .collect();
    TurnRow {
        turn: t.turn,
        time,
        thread: visible(&t.thread).into_owned(),
        tools: t.tools.map_or("?".to_owned(), thousands),
        tokens: t.tools_tokens.map_or("?".to_owned(), thousands),
        change: change_counts(t),
        cache: match t.cache_break {
            Some(cause) => format!("{} ({cause})", t.cache),
            None => t.cache.word().to_owned(),
        },
        observed_break: t.cache == crate::session::ChainState::Break,
        strategy_breaks,
        stub: t.stub,
        failed: t.failed,
    }
}

/// What changed in counts: `+2 −1 ~3 order`; `stub`, `first` or `=` when nothing did.
pub fn change_counts(t: &TurnFacts) -> String {
    if t.stub {
        return "stub: tools unknown".to_owned();
    }
    let mut parts = Vec::new();
    if t.failed {
        parts.push(match t.status {
            Some(status) => format!("failed {status}"),
            None => "no response".to_owned(),
        });
    }
    if !t.added.is_empty() {
        parts.push(format!("+{}", t.added.len()));
    }
    if !t.removed.is_empty() {
        parts.push(format!("−{}", t.removed.len()));
    }
    if !t.changed.is_empty() {
        parts.push(format!("~{}", t.changed.len()));
    }
    if t.order_changed {
        parts.push("order".to_owned());
    }
    if !t.loaded.is_empty() {
        parts.push(format!("loaded {}", t.loaded.len()));
    }
    // Changed by system messages appended to the conversation: no new `tools`, no break.
    if !t.appended.is_empty() {
        parts.push(format!("appended {}", t.appended.len()));
    }
    if parts.is_empty() {
        return match t.previous_turn {
            Some(_) => "=".to_owned(),
            None => "first".to_owned(),
        };
    }
    parts.join(" ")
}

/// How a line of the turn detail is styled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// The turn's title.
    Heading,
    /// Plain figures.
    Plain,
    /// Tools added.
    Added,
    /// Tools removed.
    Removed,
    /// Tools changed, order changed, a strategy's list changed.
    Changed,
    /// A failed call, a stub, an observed break.
    Warn,
    /// Context (what it is compared with).
    Dim,
}

/// The detail of turn `index` (in `report.turns`): what it is, what changed against the
/// previous turn of its thread (every name, whole), the observed cache, and what each charted
/// strategy did. Long lines are wrapped by the drawing, never cut.
pub fn turn_detail(
    report: &SessionReport,
    index: usize,
    shown: &[bool],
) -> Vec<(LineKind, String)> {
    let Some(t) = report.turns.get(index) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    let mut title = format!(
        "Turn {} · {} · thread {}",
        t.turn,
        visible(&t.source),
        visible(&t.thread)
    );
    if let Some(ms) = t.time_ms {
        title.push_str(&format!(" · {} UTC", format_utc(ms)));
    } else if let Some(text) = &t.timestamp {
        title.push_str(&format!(" · {}", visible(text)));
    }
    if let Some(shape) = t.shape {
        title.push_str(&format!(" · {shape}"));
    }
    lines.push((LineKind::Heading, title));
    if t.stub {
        lines.push((
            LineKind::Warn,
            "A compaction stub: the trace kept no request here, so its tools are unknown and it cannot be opened.".to_owned(),
        ));
        return lines;
    }
    if let (Some(tools), Some(bytes), Some(tokens)) = (t.tools, t.tools_bytes, t.tools_tokens) {
        lines.push((
            LineKind::Plain,
            format!(
                "{} · {} bytes · {} tokens",
                plural(tools, "tool", "tools"),
                thousands(bytes),
                thousands(tokens)
            ),
        ));
    }
    if t.failed {
        let what = match t.status {
            Some(status) => format!("failed call (status {status})"),
            None => "failed call (no response)".to_owned(),
        };
        lines.push((LineKind::Warn, format!("{what}: outside the cache chain")));
    }
    // What the break cost first: below the changes it would scroll out of the pane.
    if let Some(price) = &t.break_price {
        lines.push((LineKind::Warn, format!("▲ {}", price.summary())));
    }
    compared_lines(t, &mut lines);
    if !t.loaded.is_empty() {
        let names: Vec<String> = t.loaded.iter().map(|n| visible(n).into_owned()).collect();
        lines.push((
            LineKind::Plain,
            format!("loaded through tool_search: {}", names.join(", ")),
        ));
    }
    cache_lines(t, &mut lines);
    strategy_lines(report, index, shown, &mut lines);
    lines
}

/// What changed against the previous turn of the thread (or that there is none).
fn compared_lines(t: &TurnFacts, lines: &mut Vec<(LineKind, String)>) {
    match t.previous_turn {
        None => lines.push((
            LineKind::Dim,
            "The first turn of its thread: nothing to compare with.".to_owned(),
        )),
        Some(previous) => {
            lines.push((
                LineKind::Dim,
                format!("Against turn {previous}, the previous turn of its thread:"),
            ));
            let names = |list: &[String]| -> String {
                list.iter()
                    .map(|n| visible(n).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if !t.added.is_empty() {
                lines.push((
                    LineKind::Added,
                    format!("+ added {}: {}", t.added.len(), names(&t.added)),
                ));
            }
            if !t.removed.is_empty() {
                lines.push((
                    LineKind::Removed,
                    format!("− removed {}: {}", t.removed.len(), names(&t.removed)),
                ));
            }
            if !t.changed.is_empty() {
                let described: Vec<String> = t
                    .changed
                    .iter()
                    .map(|c| format!("{} ({})", visible(&c.name), c.fields.join(", ")))
                    .collect();
                lines.push((
                    LineKind::Changed,
                    format!("~ changed {}: {}", t.changed.len(), described.join(", ")),
                ));
            }
            if t.order_changed {
                lines.push((
                    LineKind::Changed,
                    "↕ the tools sent both times come in another order".to_owned(),
                ));
            }
            if !t.appended.is_empty() {
                lines.push((
                    LineKind::Changed,
                    format!("by system messages: {}", names(&t.appended)),
                ));
            }
            match t.first_changed_byte {
                Some(byte) => {
                    let mut text = format!("first changed byte {}", thousands(byte));
                    if let Some(ch) = t.first_changed_char
                        && ch != byte
                    {
                        text.push_str(&format!(" (character {})", thousands(ch)));
                    }
                    if let Some(entry) = &t.first_changed_entry {
                        text.push_str(&format!(", in {}", visible(entry)));
                    }
                    lines.push((LineKind::Plain, text));
                }
                None => lines.push((
                    LineKind::Plain,
                    "the tools array is byte-identical".to_owned(),
                )),
            }
        }
    }
}

/// The observed cache, and the cache as billed against the model's.
fn cache_lines(t: &TurnFacts, lines: &mut Vec<(LineKind, String)>) {
    let mut cache = format!("observed cache: {}", t.cache);
    if let Some(cause) = t.cache_break {
        cache.push_str(&format!(" (points at {cause})"));
    }
    match &t.usage {
        Some(u) => cache.push_str(&format!(
            " · read {} · write {} · input {}",
            thousands(u.cache_read as usize),
            thousands(u.cache_write as usize),
            thousands(u.input as usize)
        )),
        None => cache.push_str(" · no usage in the trace"),
    }
    let kind = if t.cache == crate::session::ChainState::Break {
        LineKind::Warn
    } else {
        LineKind::Plain
    };
    lines.push((kind, cache));
    if let (Some(seen), Some(m)) = (&t.observed, &t.modelled) {
        let text = format!(
            "cache as billed: {} (read {}, write {}) · modelled: {} (read {}, write {})",
            seen.state,
            thousands(seen.read as usize),
            thousands(seen.write as usize),
            m.state,
            thousands(m.read as usize),
            thousands(m.write as usize)
        );
        let kind = if t.agrees == Some(false) {
            LineKind::Warn
        } else {
            LineKind::Plain
        };
        lines.push((kind, text));
    }
    if let Some(why) = &t.disagreement {
        lines.push((LineKind::Warn, visible(why).into_owned()));
    }
    // The provider's own diagnosis, beside toolprism's.
    if let Some(d) = &t.provider_diagnosis {
        let kind = if d.agrees == Some(false) {
            LineKind::Warn
        } else {
            LineKind::Plain
        };
        lines.push((kind, format!("diagnosis: {}", visible(&d.summary()))));
    }
    if t.model_rates.is_some_and(|r| !r.known) {
        lines.push((
            LineKind::Dim,
            "model not in toolprism's tables: minimum, price and multipliers unknown (assumed)"
                .to_owned(),
        ));
    }
}

/// What each charted strategy did at turn `index`.
fn strategy_lines(
    report: &SessionReport,
    index: usize,
    shown: &[bool],
    lines: &mut Vec<(LineKind, String)>,
) {
    for (i, s) in report.strategies.iter().enumerate() {
        if !shown.get(i).copied().unwrap_or(false) {
            continue;
        }
        let Some(p) = s.per_turn.get(index) else {
            continue;
        };
        let tokens = p
            .total_tokens
            .map_or("?".to_owned(), |n| format!("{} tokens", thousands(n)));
        let (kind, what) = match (&p.error, p.stable) {
            (Some(error), _) => (LineKind::Warn, format!("refused: {}", visible(error))),
            (None, Some(false)) => {
                let mut what = "its tools changed".to_owned();
                if let Some(byte) = p.first_changed_byte {
                    what.push_str(&format!(" at byte {}", thousands(byte)));
                }
                if let Some(reason) = &p.reason {
                    what.push_str(&format!(": {}", visible(reason)));
                }
                (LineKind::Changed, what)
            }
            (None, Some(true)) => (LineKind::Plain, "unchanged".to_owned()),
            (None, None) => (
                LineKind::Dim,
                p.reason
                    .as_deref()
                    .map_or("outside the chain".to_owned(), |r| visible(r).into_owned()),
            ),
        };
        let cached = match (p.state, p.read, p.write) {
            (Some(state), Some(read), Some(write)) => format!(
                " · modelled cache {state} (read {}, write {})",
                thousands(read),
                thousands(write)
            ),
            _ => String::new(),
        };
        lines.push((kind, format!("{}: {tokens} · {what}{cached}", s.id)));
    }
}
