//! `toolprism session TRACE`: the turn timeline, then the strategies side by side
//! (SESSIONS.md section 4). Plain text aligned by display width; every string from the trace
//! goes through the sanitizer.

use std::fmt::Write as _;

use toolprism::measure::{Encoding, TokenCounter};
use toolprism::sanitize::visible;
use toolprism::session::{
    Analyzer, CacheFigures, SessionReport, StrategyTurn, TurnFacts, analyse_trace,
};
use toolprism::text::thousands;
use toolprism::trace::{self, TraceOptions, TraceReader};
use toolprism::{Settings, Strategy};

use super::manners::count;
use super::table::grid;
use super::{Failure, Output};

/// The whole text report; `color` paints the session totals' comparison with `original` (a
/// saving, a cost, `n/a`) and the strategies that refuse turns.
pub fn render(report: &SessionReport, color: bool) -> String {
    let mut out = String::new();
    let trace = &report.trace;
    let mut head = format!(
        "{} · {}",
        visible(&trace.path),
        match trace.compression {
            Some(compression) => format!("{} ({compression})", trace.format),
            None => trace.format.to_owned(),
        }
    );
    let _ = write!(
        head,
        " · {} · {} · {} ignored · {} skipped",
        count(trace.turns, "turn", "turns"),
        count(trace.threads.len(), "thread", "threads"),
        thousands(trace.ignored.len()),
        thousands(trace.skipped)
    );
    if trace.torn_last_line {
        head.push_str(" · the last line is torn (a writer stopped mid-record)");
    }
    out.push_str(&head);
    out.push('\n');
    let _ = writeln!(out, "{}", agreement_line(report));
    for thread in &trace.threads {
        let _ = writeln!(
            out,
            "  {}: {} turn{} from turn {} ({})",
            thread.id,
            thread.turns,
            if thread.turns == 1 { "" } else { "s" },
            thread.first_turn,
            visible(&thread.key)
        );
    }
    for ignored in &trace.ignored {
        let _ = writeln!(
            out,
            "  ignored {}: {}{}",
            visible(&ignored.source),
            visible(&ignored.reason),
            ignored
                .url
                .as_deref()
                .map(|u| format!(" ({})", visible(u)))
                .unwrap_or_default()
        );
    }

    out.push_str("\nTurns (each compared with the previous turn of its thread)\n");
    let mut rows = vec![
        [
            "turn",
            "time",
            "thread",
            "tools",
            "tokens",
            "prompt",
            "cache",
            "observed",
            "modelled",
            "agrees",
            "what changed",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for turn in &report.turns {
        rows.push(vec![
            turn.turn.to_string(),
            // Read as UTC where it could be read, else as written.
            match (turn.time_ms, turn.timestamp.as_deref()) {
                (Some(millis), _) => trace::time::format_utc(millis),
                (None, Some(text)) => visible(text).into_owned(),
                (None, None) => "-".into(),
            },
            turn.thread.clone(),
            turn.tools.map_or("?".into(), |n| n.to_string()),
            tokens_cell(turn),
            turn.prompt_tokens.map_or("?".into(), thousands),
            observed_cache(turn),
            turn.observed.as_ref().map_or("-".into(), figures),
            turn.modelled.as_ref().map_or("-".into(), figures),
            match turn.agrees {
                Some(true) => "yes".to_owned(),
                Some(false) => "NO".to_owned(),
                None => "-".to_owned(),
            },
            change(turn),
        ]);
    }
    out.push_str(&grid(
        &rows,
        &[
            true, false, false, true, true, true, false, false, false, false, false,
        ],
        "  ",
        None,
    ));
    let disagreements: Vec<&TurnFacts> = report
        .turns
        .iter()
        .filter(|t| t.disagreement.is_some())
        .collect();
    if !disagreements.is_empty() {
        out.push_str("\nDisagreements (observed against modelled, for the requests as sent)\n");
        for turn in disagreements {
            let _ = writeln!(
                out,
                "  turn {}: {}",
                turn.turn,
                visible(turn.disagreement.as_deref().unwrap_or(""))
            );
        }
    }

    if report.strategies.is_empty() {
        return out;
    }
    out.push_str(
        "\nStrategies: tokens sent per turn (tools in context + added text); * the projected tools changed; after it the modelled cache (h hit, p partial, w write, - none)\n",
    );
    let mut header = vec!["turn".to_owned()];
    header.extend(report.strategies.iter().map(|s| s.id.to_owned()));
    let mut rows = vec![header];
    for (i, turn) in report.turns.iter().enumerate() {
        let mut row = vec![turn.turn.to_string()];
        for strategy in &report.strategies {
            row.push(strategy.per_turn.get(i).map_or(String::new(), cell));
        }
        rows.push(row);
    }
    let right = vec![true; report.strategies.len() + 1];
    out.push_str(&grid(&rows, &right, "  ", None));

    let mut rows = vec![
        [
            "strategy",
            "tokens",
            "prompt",
            "breaks",
            "cost",
            "uncached",
            "provider",
            "vs original",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for strategy in &report.strategies {
        rows.push(vec![
            strategy.id.to_owned(),
            thousands(strategy.total_tokens),
            thousands(strategy.prompt_tokens),
            strategy.breaks.to_string(),
            money(strategy.cost),
            money(strategy.cost_uncached),
            strategy.cost_provider.map_or("-".to_owned(), money),
            report.versus_original(strategy).to_string(),
        ]);
    }
    out.push_str("\nSession totals (cost: whole prompts in input tokens, over the cache chain)\n");
    let paint_row = |r: usize, c: usize, _: &str| -> Option<&'static str> {
        use super::table::paint;
        let strategy = report.strategies.get(r.checked_sub(1)?)?;
        if !color {
            return None;
        }
        let versus = report.versus_original(strategy);
        let refuses = strategy
            .per_turn
            .iter()
            .any(|t| t.status == Some("refused"));
        match c {
            0 if refuses => Some(paint::REFUSED),
            7 if !versus.applied => Some(paint::QUIET),
            // Against `original`'s cost: a lower cost is a saving.
            7 => versus.percent.and_then(|p| paint::by_saving(-p)),
            _ => None,
        }
    };
    out.push_str(&super::table::grid_painted(
        &rows,
        &[false, true, true, true, true, true, true, true],
        "  ",
        None,
        &paint_row,
    ));
    if let Some(cheapest) = report.cheapest {
        let _ = writeln!(out, "cheapest over the session: {cheapest}");
    }
    let _ = writeln!(
        out,
        "n/a: the strategy had nothing to act on (or was refused) on every turn; its figures are what it sends"
    );
    let setting = |key: &str| {
        report
            .settings
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_owned()
    };
    let _ = writeln!(
        out,
        "\nCost model (docs/SESSIONS.md): the cache is a store of prefixes over the whole prompt (tools, system, messages),\n  shared by all threads. Anthropic caches only up to its cache_control breakpoints (at most cache.breakpoints={}),\n  OpenAI every prompt of cache.min_tokens or more; a prefix lives cache.ttl={} after its last use (cache.ttl_1h={},\n  cache.ttl_24h={}). Read at cache.read={}, written at cache.write={} (cache.write_1h={}), the rest at 1.0;\n  cache.min_tokens={}. Failed calls and stubs are left out; uncached: every token at 1.0.",
        setting("cache.breakpoints"),
        setting("cache.ttl"),
        setting("cache.ttl_1h"),
        setting("cache.ttl_24h"),
        setting("cache.read"),
        setting("cache.write"),
        setting("cache.write_1h"),
        setting("cache.min_tokens"),
    );
    if trace.untimed_turns > 0 {
        let _ = writeln!(
            out,
            "  {} without a timestamp: there every cached prefix counts as within its lifetime.",
            count(trace.untimed_turns, "turn", "turns")
        );
    }
    out.push_str(&tools_section(report));
    for strategy in &report.strategies {
        let errors: Vec<&StrategyTurn> = strategy
            .per_turn
            .iter()
            .filter(|t| t.error.is_some())
            .collect();
        if let Some(first) = errors.first() {
            let _ = writeln!(
                out,
                "  {}: refuses {} turn(s), first turn {}: {}",
                strategy.id,
                errors.len(),
                first.turn,
                visible(first.error.as_deref().unwrap_or(""))
            );
        }
    }
    out
}

/// The agreement of the model with the observed cache, and the calibration, in one line.
fn agreement_line(report: &SessionReport) -> String {
    let a = &report.agreement;
    let mut line = match a.rate {
        Some(rate) => format!(
            "agreement: {} of {} turns with usage ({:.1}%) modelled as the provider billed them",
            a.agree,
            a.turns,
            rate * 100.0
        ),
        None => "agreement: no turn with usage to check the model against".to_owned(),
    };
    match &report.calibration {
        Some(c) => {
            let _ = write!(
                line,
                " · calibration: {:.3} provider tokens per exact token (median of {}; the provider's tokenizer is not tiktoken: token figures are exact in the chosen encoding, `provider` costs are scaled by this ratio)",
                c.ratio,
                count(c.turns, "turn", "turns"),
            );
        }
        None => line.push_str(" · calibration: none (no usage)"),
    }
    line
}

/// Tools: calls, cost, and the deferral candidates.
fn tools_section(report: &SessionReport) -> String {
    let mut out = String::new();
    if report.tools.is_empty() {
        return out;
    }
    let called: Vec<String> = report
        .tools
        .iter()
        .filter(|t| t.calls > 0)
        .map(|t| format!("{} ({})", visible(&t.name), t.calls))
        .collect();
    let _ = writeln!(
        out,
        "\nTool calls: {}",
        if called.is_empty() {
            "none seen".to_owned()
        } else {
            called.join(", ")
        }
    );
    let d = &report.deferral;
    if !d.candidates.is_empty() {
        let names: Vec<String> = d
            .candidates
            .iter()
            .take(8)
            .map(|n| visible(n).into_owned())
            .collect();
        let more = d.candidates.len().saturating_sub(8);
        let _ = writeln!(
            out,
            "Deferral candidates (sent on every turn, never called): {} tool(s), {} tokens over the session: {}{}",
            d.candidates.len(),
            thousands(d.tokens),
            names.join(", "),
            if more > 0 {
                format!(" +{more}")
            } else {
                String::new()
            }
        );
        for saving in &d.savings {
            let _ = writeln!(
                out,
                "  {} keeps {} of those tokens out",
                saving.strategy,
                thousands(saving.tokens)
            );
        }
    }
    out
}

/// A cache state with its figures: `partial r1,200 w300`.
fn figures(f: &CacheFigures) -> String {
    match f.state {
        "none" => "none".to_owned(),
        state => format!(
            "{state} r{} w{}",
            thousands(f.read as usize),
            thousands(f.write as usize)
        ),
    }
}

/// The tools' tokens: in context, and the array's when `defer_loading` entries differ.
fn tokens_cell(turn: &TurnFacts) -> String {
    match (turn.tools_tokens, turn.context_tokens) {
        (Some(all), Some(context)) if all != context => {
            format!("{} ({} sent)", thousands(context), thousands(all))
        }
        (Some(all), _) => thousands(all),
        _ => "?".to_owned(),
    }
}

/// The observed cache: the chain check, and what a break points at.
fn observed_cache(turn: &TurnFacts) -> String {
    let mut text = turn.cache.to_owned();
    if let Some(cause) = turn.cache_break {
        let _ = write!(text, " ({cause})");
    }
    if let Some(usage) = &turn.usage {
        let _ = write!(
            text,
            " r{} w{}",
            thousands(usage.cache_read as usize),
            thousands(usage.cache_write as usize)
        );
    }
    text
}

/// What changed in the tool list, in a few words.
fn change(turn: &TurnFacts) -> String {
    if turn.stub {
        return "compaction stub: tools unknown".to_owned();
    }
    let mut parts = Vec::new();
    if turn.failed {
        parts.push(match turn.status {
            Some(status) => format!("failed call ({status})"),
            None => "failed call (no response)".to_owned(),
        });
    }
    let names = |list: &[String]| -> String {
        let shown: Vec<String> = list
            .iter()
            .take(3)
            .map(|n| visible(n).into_owned())
            .collect();
        let more = list.len().saturating_sub(3);
        if more > 0 {
            format!("{} +{more}", shown.join(", "))
        } else {
            shown.join(", ")
        }
    };
    if !turn.added.is_empty() {
        parts.push(format!("+{} ({})", turn.added.len(), names(&turn.added)));
    }
    if !turn.removed.is_empty() {
        parts.push(format!(
            "-{} ({})",
            turn.removed.len(),
            names(&turn.removed)
        ));
    }
    if !turn.changed.is_empty() {
        let described: Vec<String> = turn
            .changed
            .iter()
            .take(3)
            .map(|c| format!("{} [{}]", visible(&c.name), c.fields.join(",")))
            .collect();
        let more = turn.changed.len().saturating_sub(3);
        let mut text = format!("~{} ({}", turn.changed.len(), described.join(", "));
        if more > 0 {
            let _ = write!(text, " +{more}");
        }
        text.push(')');
        parts.push(text);
    }
    if turn.order_changed {
        parts.push("order changed".to_owned());
    }
    if !turn.loaded.is_empty() {
        parts.push(format!("tool_search loaded {}", names(&turn.loaded)));
    }
    if let Some(byte) = turn.first_changed_byte {
        let mut text = format!("first changed byte {}", thousands(byte));
        if let Some(char) = turn.first_changed_char
            && char != byte
        {
            let _ = write!(text, " (char {})", thousands(char));
        }
        if let Some(entry) = &turn.first_changed_entry {
            let _ = write!(text, " in {}", visible(entry));
        }
        parts.push(text);
    }
    if parts.is_empty() {
        return match turn.previous_turn {
            Some(_) => "-".to_owned(),
            None => "first turn of its thread".to_owned(),
        };
    }
    parts.join("; ")
}

/// One strategy's cell at one turn.
fn cell(turn: &StrategyTurn) -> String {
    let Some(total) = turn.total_tokens else {
        return "?".to_owned();
    };
    let mark = if turn.stable == Some(false) { "*" } else { "" };
    let state = match turn.state {
        Some("hit") => " h",
        Some("partial") => " p",
        Some("write") => " w",
        Some(_) => " -",
        None => "",
    };
    format!("{mark}{}{state}", thousands(total))
}

/// Input-token equivalents, whole.
fn money(x: f64) -> String {
    thousands(x.round().max(0.0) as usize)
}

/// What `toolprism session` was asked.
pub struct Request<'a> {
    /// The trace's path (any bytes).
    pub path: &'a std::path::Path,
    /// How the trace is named in the output and errors, when not by `path` (`<stdin>` for a
    /// spooled copy of standard input).
    pub label: Option<&'a str>,
    /// `--json`.
    pub json: bool,
    /// `-s` (empty: all).
    pub strategies: &'a [Strategy],
    /// `--thread`.
    pub thread: Option<String>,
    /// `--skip-bad`.
    pub skip_bad: bool,
    /// The settings after `--set`.
    pub settings: &'a Settings,
    /// `--encoding`.
    pub encoding: Encoding,
    /// `--budget N`: the most a strategy's session cost may be.
    pub budget: Option<usize>,
    /// Colour the text report's marks.
    pub color: bool,
}

/// Run the analysis: records are read on one thread and analysed on another, so parsing the
/// next body overlaps with measuring this one.
pub fn run(request: &Request<'_>) -> Result<Output, Failure> {
    // Started first: the encoder is built in the background while the trace is opened.
    let counter = TokenCounter::new(request.encoding);
    let options = TraceOptions {
        skip_bad: request.skip_bad,
    };
    let reader = trace::open_path(request.path, &options)
        .map_err(|e| Failure::new(relabel(request, visible(&e.to_string()).into_owned())))?;
    run_on(reader, counter, request)
}

/// An error names what the user gave, never a spooled copy.
fn relabel(request: &Request<'_>, message: String) -> String {
    match request.label {
        Some(label) => message.replace(&*request.path.to_string_lossy(), label),
        None => message,
    }
}

/// [`run`] on a trace already opened (`request.path`'s, with `request.skip_bad`): the bare
/// `toolprism TRACE` into a pipe has told its format already, and a HAR is not parsed twice.
pub fn run_on(
    reader: TraceReader,
    counter: TokenCounter,
    request: &Request<'_>,
) -> Result<Output, Failure> {
    let strategies = if request.strategies.is_empty() {
        Strategy::ALL.to_vec()
    } else {
        request.strategies.to_vec()
    };
    let path = toolprism::capture::display_path(request.path);
    let shown = request.label.unwrap_or(&path);
    let name = visible(shown).into_owned();
    let mut analyzer = Analyzer::new(
        &strategies,
        request.settings,
        &counter,
        request.thread.clone(),
    );
    let (info, result) = analyse_trace(reader, shown, &mut analyzer, &mut |_| {});
    result.map_err(|e| Failure::new(relabel(request, visible(&e.to_string()).into_owned())))?;
    if let Some(thread) = &request.thread
        && !analyzer.has_thread(thread)
    {
        return Err(Failure::new(format!(
            "{name}: no thread `{}` (the threads are listed by `toolprism session {name}`)",
            visible(thread)
        )));
    }
    let report = analyzer.finish(info);
    // Nothing to show is a failure, as `report` fails on the same trace.
    if report.turns.is_empty() {
        let ignored = report.trace.ignored.len();
        let why = match ignored {
            0 => String::new(),
            1 => " (1 record ignored)".to_owned(),
            n => format!(" ({n} records ignored)"),
        };
        return Err(Failure::new(format!("{name}: no model call in it{why}")));
    }
    let mut output = if request.json {
        let mut text = serde_json::to_string_pretty(&report)
            .map_err(|e| Failure::new(format!("{name}: {e}")))?;
        text.push('\n');
        Output::text(super::for_terminal(text))
    } else {
        Output::text(render(&report, request.color))
    };
    if let Some(line) = request.budget.and_then(|b| over_budget(&report, b)) {
        output.stderr = format!("toolprism: {name}: {line}\n");
        output.status = super::EXIT_CHECK;
    }
    Ok(output)
}

/// The `--budget` gate, as `report --budget`'s but on the session's cost (the totals' `cost`
/// column, as printed there): which strategies cost more than `budget`, in one line.
fn over_budget(report: &SessionReport, budget: usize) -> Option<String> {
    let failures: Vec<String> = report
        .strategies
        .iter()
        .filter_map(|s| {
            let cost = s.cost.round().max(0.0) as usize;
            (cost > budget).then(|| {
                format!(
                    "`{}` costs {} tokens, {} over",
                    s.id,
                    thousands(cost),
                    thousands(cost - budget)
                )
            })
        })
        .collect();
    (!failures.is_empty()).then(|| {
        format!(
            "over the budget of {} tokens of session cost: {}",
            thousands(budget),
            failures.join("; ")
        )
    })
}
