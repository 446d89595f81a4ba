//! `toolprism session TRACE`: the turn timeline, then the strategies side by side
//! (SESSIONS.md section 4). Plain text aligned by display width; every string from the trace
//! goes through the sanitizer.

use std::fmt::Write as _;
use std::io::{IsTerminal as _, Read, Write};

use toolprism::measure::{Encoding, TokenCounter};
use toolprism::sanitize::visible;
use toolprism::session::{
    Analyzer, CacheFigures, SessionReport, StrategyTurn, TurnFacts, TurnSink, analyse_trace,
};
use toolprism::text::{dollars, money, thousands, width};
use toolprism::trace::{self, TraceOptions, TraceReader};
use toolprism::{Settings, Strategy};

use super::manners::count;
use super::table::{Fit, INDENT, fit_text, grid_line, not_shown, shown_columns};
use super::{Failure, Output};

/// The columns of the turn timeline, and which are right-aligned.
const TURN_HEADER: [&str; 11] = [
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
];
const TURN_RIGHT: [bool; 11] = [
    true, false, false, true, true, true, false, false, false, false, false,
];

/// A nameless temporary file that rows are appended to, then copied out once: a trace of
/// millions of turns keeps its rows on disk, not in memory. The rows repeat themselves turn
/// after turn, so they are kept zstd-compressed (level 1): what that takes on disk is in
/// docs/ROBUSTNESS.md ("Memory, as a function of what is kept").
struct Spool {
    file: zstd::stream::write::Encoder<'static, std::io::BufWriter<std::fs::File>>,
    rows: usize,
}

/// What a spool is read back through.
type SpoolReader =
    std::io::BufReader<zstd::stream::read::Decoder<'static, std::io::BufReader<std::fs::File>>>;

impl Spool {
    fn new() -> std::io::Result<Spool> {
        let file = std::io::BufWriter::with_capacity(1 << 16, tempfile::tempfile()?);
        Ok(Spool {
            file: zstd::stream::write::Encoder::new(file, 1)?,
            rows: 0,
        })
    }

    /// The rows, from the first, for reading back.
    fn reader(self) -> std::io::Result<SpoolReader> {
        use std::io::Seek as _;
        let mut file = self
            .file
            .finish()?
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        file.seek(std::io::SeekFrom::Start(0))?;
        Ok(std::io::BufReader::with_capacity(
            1 << 16,
            zstd::stream::read::Decoder::new(file)?,
        ))
    }

    /// Cells as length-prefixed strings (a cell may hold any character), in one write: the
    /// compressor costs a call per write.
    fn cells<S: AsRef<str>>(&mut self, cells: &[S]) -> std::io::Result<()> {
        let mut row = Vec::new();
        for cell in cells {
            let cell = cell.as_ref().as_bytes();
            row.extend_from_slice(&(cell.len() as u64).to_le_bytes());
            row.extend_from_slice(cell);
        }
        self.file.write_all(&row)?;
        self.rows += 1;
        Ok(())
    }
}

/// One row of `n` cells written by [`Spool::cells`].
fn read_cells(reader: &mut impl Read, n: usize) -> std::io::Result<Vec<String>> {
    let mut cells = Vec::with_capacity(n);
    for _ in 0..n {
        let mut len = [0u8; 8];
        reader.read_exact(&mut len)?;
        let mut bytes = vec![0u8; u64::from_le_bytes(len) as usize];
        reader.read_exact(&mut bytes)?;
        cells.push(String::from_utf8(bytes).map_err(std::io::Error::other)?);
    }
    Ok(cells)
}

/// Where reading a spool or writing the output failed.
enum WriteError {
    /// Standard output.
    Out(std::io::Error),
    /// The temporary file of the turns.
    Spool(std::io::Error),
}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> WriteError {
        WriteError::Out(e)
    }
}

/// Copy a spool to `out`.
fn copy_spool(reader: &mut SpoolReader, out: &mut dyn Write) -> Result<(), WriteError> {
    use std::io::BufRead as _;
    loop {
        let chunk = reader.fill_buf().map_err(WriteError::Spool)?;
        if chunk.is_empty() {
            return Ok(());
        }
        let n = chunk.len();
        out.write_all(chunk)?;
        reader.consume(n);
    }
}

/// The text report's rows, spooled turn by turn, with each column's width so far.
struct TextSpill {
    turns: Spool,
    turn_widths: Vec<usize>,
    strategies: Spool,
    strategy_widths: Vec<usize>,
    disagreements: Spool,
    /// Per strategy: turns it refuses, and the first with its reason.
    errors: Vec<(usize, Option<(usize, String)>)>,
    /// Some strategy's row is refused by the prefix check (`!`).
    prefix_refused: bool,
    /// `append`'s row is refused on some turn (`!`; the reason is listed below).
    status_refused: bool,
    /// The strategies, in the rows' order.
    ids: Vec<Strategy>,
}

impl TextSpill {
    fn new(strategies: &[Strategy]) -> std::io::Result<TextSpill> {
        let mut strategy_widths = vec![width("turn")];
        strategy_widths.extend(strategies.iter().map(|s| width(s.id())));
        Ok(TextSpill {
            turns: Spool::new()?,
            turn_widths: TURN_HEADER.iter().map(|h| width(h)).collect(),
            strategies: Spool::new()?,
            strategy_widths,
            disagreements: Spool::new()?,
            errors: vec![(0, None); strategies.len()],
            prefix_refused: false,
            status_refused: false,
            ids: strategies.to_vec(),
        })
    }

    fn spool(&mut self, turn: &TurnFacts, rows: &[StrategyTurn]) -> std::io::Result<()> {
        let cells = turn_row(turn);
        for (w, cell) in self.turn_widths.iter_mut().zip(&cells) {
            *w = (*w).max(width(cell));
        }
        self.turns.cells(&cells)?;
        if let Some(why) = &turn.disagreement {
            self.disagreements
                .cells(&[format!("  turn {}: {}", turn.turn, visible(why))])?;
        } else if let Some(why) = &turn.not_judged {
            self.disagreements.cells(&[format!(
                "  turn {}: not judged: {}",
                turn.turn,
                visible(why)
            )])?;
        }
        if !rows.is_empty() {
            let mut cells = vec![turn.turn.to_string()];
            cells.extend(rows.iter().zip(&self.ids).map(|(r, &s)| cell(r, s)));
            for (w, cell) in self.strategy_widths.iter_mut().zip(&cells) {
                *w = (*w).max(width(cell));
            }
            self.strategies.cells(&cells)?;
        }
        self.prefix_refused |= rows.iter().any(|r| r.prefix_check.is_some());
        self.status_refused |= rows.iter().zip(&self.ids).any(|(r, &s)| refused_row(r, s));
        for (errors, row) in self.errors.iter_mut().zip(rows) {
            if let Some(error) = &row.error {
                errors.0 += 1;
                errors.1.get_or_insert_with(|| (row.turn, error.clone()));
            }
        }
        Ok(())
    }
}

/// A spooled table: its header, then every row, aligned, in the columns that fit.
fn write_grid(
    header: &[String],
    spool: Spool,
    widths: &[usize],
    right: &[bool],
    fit: &Fit,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    let shown = shown_columns(widths, fit);
    let pick = |row: &[String]| -> Vec<String> { shown.iter().map(|&c| row[c].clone()).collect() };
    let widths: Vec<usize> = shown.iter().map(|&c| widths[c]).collect();
    let right: Vec<bool> = shown.iter().map(|&c| right[c]).collect();
    let mut line = String::new();
    let plain = &|_: usize, _: &str| None;
    grid_line(
        &pick(header),
        &widths,
        &right,
        INDENT,
        fit.cells,
        plain,
        &mut line,
    );
    out.write_all(line.as_bytes())?;
    let rows = spool.rows;
    let mut reader = spool.reader().map_err(WriteError::Spool)?;
    for _ in 0..rows {
        let cells = read_cells(&mut reader, header.len()).map_err(WriteError::Spool)?;
        line.clear();
        grid_line(
            &pick(&cells),
            &widths,
            &right,
            INDENT,
            fit.cells,
            plain,
            &mut line,
        );
        out.write_all(line.as_bytes())?;
    }
    if let Some(line) = not_shown(header, &shown) {
        out.write_all(fit_text(&line, fit.cells).as_bytes())?;
    }
    Ok(())
}

/// A turn's cells in the timeline.
pub(super) fn turn_row(turn: &TurnFacts) -> [String; 11] {
    [
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
    ]
}

/// The whole text report: the trace and its threads, the turn timeline, the strategies turn
/// by turn (read back from `spill`), then the session totals.
fn write_text(
    report: &SessionReport,
    spill: TextSpill,
    color: bool,
    cells: Option<usize>,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    out.write_all(fit_text(&trace_head(report), cells).as_bytes())?;
    let TextSpill {
        turns,
        turn_widths,
        strategies,
        strategy_widths,
        disagreements,
        errors,
        prefix_refused,
        status_refused,
        ..
    } = spill;
    let header = TURN_HEADER.map(str::to_owned);
    // On a terminal the modelled and observed figures give way first (the cache column and
    // the disagreements below say the same in short), then the time, the prompt, the tools.
    let fit = Fit {
        cells,
        drop: vec![8, 7, 1, 5, 3],
        room: 30,
    };
    write_grid(&header, turns, &turn_widths, &TURN_RIGHT, &fit, out)?;
    if disagreements.rows > 0 {
        out.write_all(b"\nDisagreements (observed against modelled, for the requests as sent)\n")?;
        let rows = disagreements.rows;
        let mut reader = disagreements.reader().map_err(WriteError::Spool)?;
        for _ in 0..rows {
            let line = read_cells(&mut reader, 1).map_err(WriteError::Spool)?;
            out.write_all(fit_text(&line[0], cells).as_bytes())?;
        }
    }

    if let Some(diagnosis) = report
        .diagnosis
        .as_ref()
        .filter(|d| !d.disagreements.is_empty())
    {
        out.write_all(
            b"\nDiagnoses that differ (the provider's first changed part against toolprism's)\n",
        )?;
        for d in &diagnosis.disagreements {
            let line = format!(
                "  turn {}: the provider says {}; toolprism finds {}\n",
                d.turn,
                d.provider,
                d.toolprism.map_or("nothing changed", |p| p.word())
            );
            out.write_all(line.as_bytes())?;
        }
    }

    if report.strategies.is_empty() {
        return Ok(());
    }
    out.write_all(
        fit_text(
            "\nStrategies: tokens sent per turn (tools in context + added text); * the projected tools changed; after it the modelled cache (h hit, p partial, w write, - none)\n",
            cells,
        )
        .as_bytes(),
    )?;
    let mut header = vec!["turn".to_owned()];
    header.extend(report.strategies.iter().map(|s| s.id.to_owned()));
    let right = vec![true; report.strategies.len() + 1];
    // The strategies after those that fit give way, last first; `append`, where it acts on a
    // thread's changed tools (its figures are under the totals), gives way last.
    let mut drop: Vec<usize> = (2..=report.strategies.len()).rev().collect();
    let append = report.strategies.iter().position(|s| s.id == "append");
    let acts = report.append.as_ref().is_some_and(|a| {
        a.changes + a.breaks_avoided + a.refusals_avoided + a.checks_avoided > 0
            || a.saved_tokens != 0.0
    });
    if let Some(column) = append.filter(|_| acts).map(|i| i + 1) {
        drop.retain(|&c| c != column);
        drop.push(column);
    }
    let fit = Fit {
        cells,
        drop,
        room: 0,
    };
    write_grid(&header, strategies, &strategy_widths, &right, &fit, out)?;
    // The legends fold inside the terminal as the text around them does.
    if prefix_refused {
        out.write_all(
            fit_text(
                "! the provider refuses that request: the strategy's tool list changed in place after thinking, on a model that binds thinking to its prefix (on a turn it answered as sent, it drops that thinking instead: the turn says which)\n",
                cells,
            )
            .as_bytes(),
        )?;
    }
    if status_refused {
        out.write_all(
            fit_text(
                "! (without *) append is refused on that turn: why is under the session totals\n",
                cells,
            )
            .as_bytes(),
        )?;
    }

    out.write_all(totals_text(report, errors, color, cells).as_bytes())?;
    Ok(())
}

/// The report's head: the trace, the agreement with observed usage, its threads and the
/// calls it ignored, down to the turns table's title.
fn trace_head(report: &SessionReport) -> String {
    let mut text = String::new();
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
        thousands(trace.ignored_total),
        thousands(trace.skipped)
    );
    if trace.torn_last_line {
        head.push_str(" · the last line is torn (a writer stopped mid-record)");
    }
    text.push_str(&head);
    text.push('\n');
    if trace.hashed_turns > 0 {
        let _ = writeln!(
            text,
            "hashed: the text of {} is hashed or redacted ([h:…] / s-… tokens), not what was sent: no agreement is judged on them, and they calibrate nothing",
            count(trace.hashed_turns, "turn", "turns")
        );
    }
    let _ = writeln!(text, "{}", agreement_line(report));
    text.push_str(&diagnosis_lines(report));
    for thread in &trace.threads {
        let _ = writeln!(
            text,
            "  {}: {} turn{} from turn {} ({})",
            thread.id,
            thread.turns,
            if thread.turns == 1 { "" } else { "s" },
            thread.first_turn,
            thread_label(&thread.key)
        );
    }
    for assumed in &trace.providers_assumed {
        // A recorder that keeps paths only (WireMock) gives an empty host.
        let host = assumed
            .host
            .as_deref()
            .filter(|h| !h.is_empty())
            .map_or("no host".into(), visible);
        let how = if assumed.by == "setting" {
            "as session.provider names it"
        } else {
            "assumed from the requests' API and model, a host toolprism does not know; name it with --set session.provider=ID"
        };
        let _ = writeln!(
            text,
            "  provider of {host}: {} for {} ({how})",
            assumed.provider,
            count(assumed.turns, "turn", "turns"),
        );
    }
    for ignored in &trace.ignored {
        let _ = writeln!(
            text,
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
    if trace.ignored_total > trace.ignored.len() {
        let _ = writeln!(
            text,
            "  … and {} more ignored records, not listed",
            thousands(trace.ignored_total - trace.ignored.len())
        );
    }
    for server in &trace.mcp_servers {
        let _ = writeln!(
            text,
            "  MCP server {}{}: {} listed",
            server.label().unwrap_or_else(|| "(unnamed)".to_owned()),
            server
                .url
                .as_deref()
                .map(|u| format!(" at {}", visible(u)))
                .unwrap_or_default(),
            count(server.tools.len(), "tool", "tools"),
        );
    }
    text.push_str("\nTurns (each compared with the previous turn of its thread)\n");
    text
}

/// The longest a word of a thread's key is shown (a user id runs to 130 characters); the
/// whole key is in `--json` and `--thread` takes it.
const KEY_WORD: usize = 28;

/// A thread's key for reading: each word longer than [`KEY_WORD`] cut with `…`.
fn thread_label(key: &str) -> String {
    visible(key)
        .split(' ')
        .map(|word| toolprism::text::fit(word, KEY_WORD))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The session totals and what they rest on: the cost model's settings, the tools section and
/// each strategy's refusals.
fn totals_text(
    report: &SessionReport,
    errors: Vec<(usize, Option<(usize, String)>)>,
    color: bool,
    cells: Option<usize>,
) -> String {
    let trace = &report.trace;
    let mut text = String::new();
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
    text.push_str("\nSession totals (cost: whole prompts in input tokens, over the cache chain)\n");
    let paint_row = |r: usize, c: usize, _: &str| -> Option<&'static str> {
        use super::table::paint;
        if !color {
            return None;
        }
        let i = r.checked_sub(1)?;
        let strategy = report.strategies.get(i)?;
        let versus = report.versus_original(strategy);
        let refuses = errors.get(i).is_some_and(|(refused, _)| *refused > 0);
        match c {
            0 if refuses => Some(paint::REFUSED),
            7 if !versus.applied => Some(paint::QUIET),
            // Against `original`'s cost: a lower cost is a saving.
            7 => versus.percent.and_then(|p| paint::by_saving(-p)),
            _ => None,
        }
    };
    text.push_str(&super::table::grid_painted(
        &rows,
        &[false, true, true, true, true, true, true, true],
        "  ",
        None,
        &paint_row,
    ));
    // Under the table: free text, wrapped to the terminal.
    let table = std::mem::take(&mut text);
    if let Some(cheapest) = report.cheapest {
        let _ = writeln!(
            text,
            "cheapest over the session that keeps every tool reachable: {cheapest}"
        );
    }
    if let Some(any) = report.cheapest_any.filter(|&a| Some(a) != report.cheapest) {
        let _ = writeln!(
            text,
            "cheapest of all: {any}, which leaves tools out of the model's reach"
        );
    }
    text.push_str(&breaks_line(&report.break_cost));
    if let Some(append) = &report.append {
        text.push_str(&append_line(append));
    }
    let _ = writeln!(
        text,
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
        text,
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
            text,
            "  {} without a timestamp: there every cached prefix counts as within its lifetime.",
            count(trace.untimed_turns, "turn", "turns")
        );
    }
    text.push_str(&tools_section(report));
    for (strategy, (refused, first)) in report.strategies.iter().zip(errors) {
        if let Some((turn, error)) = first {
            let _ = writeln!(
                text,
                "  {}: refuses {} turn(s), first turn {}: {}",
                strategy.id,
                refused,
                turn,
                visible(&error)
            );
        }
    }
    table + &fit_text(&text, cells)
}

/// `session --json`'s rows, spooled as the pretty JSON they are printed as, already indented
/// to their place in the report (and escaped for a terminal when that is where it goes).
struct JsonSpill {
    terminal: bool,
    turns: Spool,
    strategies: Vec<Spool>,
    buffer: Vec<u8>,
}

/// Where the rows go in the pretty report: the top level's `turns` (an array two levels
/// down) and each strategy's `per_turn` (four levels), empty in the report itself.
const TURNS_SLOT: &str = "\n  \"turns\": [],\n";
const PER_TURN_SLOT: &str = "\n      \"per_turn\": [],\n";

impl JsonSpill {
    fn new(strategies: usize, terminal: bool) -> std::io::Result<JsonSpill> {
        Ok(JsonSpill {
            terminal,
            turns: Spool::new()?,
            strategies: (0..strategies)
                .map(|_| Spool::new())
                .collect::<Result<_, _>>()?,
            buffer: Vec::new(),
        })
    }

    /// One element of an array whose elements are `indent` deep, as serde's pretty printer
    /// writes it: JSON strings escape their line feeds, so every line feed is layout.
    fn element(
        buffer: &mut Vec<u8>,
        terminal: bool,
        spool: &mut Spool,
        value: &impl serde::Serialize,
        indent: &str,
    ) -> std::io::Result<()> {
        buffer.clear();
        serde_json::to_writer_pretty(&mut *buffer, value)?;
        let text = std::str::from_utf8(buffer).map_err(std::io::Error::other)?;
        let text = if terminal {
            toolprism::sanitize::json_for_terminal(text)
        } else {
            std::borrow::Cow::Borrowed(text)
        };
        let mut row = Vec::with_capacity(text.len() + text.len() / 4);
        row.extend_from_slice(if spool.rows == 0 { b"\n" } else { b",\n" });
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                row.push(b'\n');
            }
            row.extend_from_slice(indent.as_bytes());
            row.extend_from_slice(line.as_bytes());
        }
        spool.file.write_all(&row)?;
        spool.rows += 1;
        Ok(())
    }

    fn spool(&mut self, facts: &TurnFacts, rows: &[StrategyTurn]) -> std::io::Result<()> {
        Self::element(
            &mut self.buffer,
            self.terminal,
            &mut self.turns,
            facts,
            "    ",
        )?;
        for (spool, row) in self.strategies.iter_mut().zip(rows) {
            Self::element(&mut self.buffer, self.terminal, spool, row, "        ")?;
        }
        Ok(())
    }
}

/// Write `rest` up to the `[` of its first `slot`, then the spooled rows and the array's
/// end; `rest` is left at the `]`.
fn fill_slot(
    rest: &mut &str,
    slot: &str,
    spool: Spool,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    let at = rest.find(slot).ok_or_else(|| {
        WriteError::Out(std::io::Error::other(
            "the report has no place for its turns",
        ))
    })?;
    let open = at + slot.len() - "],\n".len();
    out.write_all(&rest.as_bytes()[..open])?;
    if spool.rows > 0 {
        // The slot's key is this deep; its array ends there.
        let depth = slot.len() - slot.trim_start().len() - 1;
        let mut reader = spool.reader().map_err(WriteError::Spool)?;
        copy_spool(&mut reader, out)?;
        out.write_all(b"\n")?;
        out.write_all(" ".repeat(depth).as_bytes())?;
    }
    *rest = &rest[open..];
    Ok(())
}

/// `session --json`: the report (whose `turns` and `per_turn` are empty) as pretty JSON, with
/// the spooled rows put in their arrays: the bytes of `serde_json::to_string_pretty` on the
/// whole report, and a line feed.
fn write_json(
    report: &SessionReport,
    spill: JsonSpill,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    let skeleton = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
    let skeleton = if spill.terminal {
        toolprism::sanitize::json_for_terminal(&skeleton)
    } else {
        std::borrow::Cow::Borrowed(skeleton.as_str())
    };
    let mut rest: &str = &skeleton;
    fill_slot(&mut rest, TURNS_SLOT, spill.turns, out)?;
    for spool in spill.strategies {
        fill_slot(&mut rest, PER_TURN_SLOT, spool, out)?;
    }
    out.write_all(rest.as_bytes())?;
    out.write_all(b"\n")?;
    Ok(())
}

/// The provider's own diagnosis against toolprism's, and the models the tables do not name,
/// each a line (none when there is nothing to say).
fn diagnosis_lines(report: &SessionReport) -> String {
    let mut text = String::new();
    if let Some(d) = &report.diagnosis {
        let _ = match d.rate {
            Some(rate) => writeln!(
                text,
                "provider diagnosis: {} with `diagnostics`, {} diagnosed, {} where toolprism names the same part ({:.1}%)",
                count(d.turns, "turn", "turns"),
                d.diagnosed,
                d.agree,
                rate * 100.0
            ),
            None => writeln!(
                text,
                "provider diagnosis: {} with `diagnostics`, none diagnosed (pending, not found or unavailable)",
                count(d.turns, "turn", "turns")
            ),
        };
    }
    if !report.unknown_models.is_empty() {
        let models: Vec<String> = report
            .unknown_models
            .iter()
            .map(|m| {
                format!(
                    "{} ({})",
                    visible(&m.model),
                    count(m.turns, "turn", "turns")
                )
            })
            .collect();
        let _ = writeln!(
            text,
            "unknown models: {}: not in toolprism's tables, so minimum, price and multipliers unknown; modelled with a {}-token minimum and reads at {}, no price",
            models.join(", "),
            thousands(toolprism::session::provider::ASSUMED_MIN_TOKENS),
            toolprism::session::ASSUMED_READ
        );
    }
    text
}

/// The agreement of the model with the observed cache, and the calibration, in one line.
fn agreement_line(report: &SessionReport) -> String {
    let a = &report.agreement;
    let mut line = match a.rate {
        Some(rate) => format!(
            "agreement: {} of {} turns with usage judged, {} agree ({:.1}%) on state and amounts",
            a.judged,
            a.turns,
            a.agree,
            rate * 100.0
        ),
        None if a.turns > 0 => format!(
            "agreement: 0 of {} turns with usage judged (each says why)",
            a.turns
        ),
        None => "agreement: no turn with usage to check the model against".to_owned(),
    };
    match &report.calibration {
        Some(c) => {
            let _ = write!(
                line,
                " · calibration: {:.3} provider tokens per exact token (weighted median of {}; the provider's tokenizer is not tiktoken: token figures are exact in the chosen encoding, `provider` costs are scaled by this ratio)",
                c.ratio,
                count(c.turns, "turn", "turns"),
            );
            if let (Some(billed), Some(original)) = (
                c.billed,
                report
                    .strategies
                    .iter()
                    .find(|s| s.id == "original")
                    .and_then(|s| s.cost_provider),
            ) {
                let _ = write!(
                    line,
                    " · billed input {} against {} calibrated for `original`",
                    thousands(billed.round() as usize),
                    thousands(original.round() as usize)
                );
                if c.unseen >= 0.5 {
                    let _ = write!(
                        line,
                        " (with {} the bill holds beyond the requests: media, server-side tools or stored responses, in every strategy's cost)",
                        thousands(c.unseen.round() as usize)
                    );
                }
            }
        }
        None if a.turns > 0 => {
            line.push_str(" · calibration: none (no turn with usage qualifies: each says why)");
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
        .map(|t| match &t.server {
            Some(server) => format!(
                "{} ({}, from {})",
                visible(&t.name),
                t.calls,
                visible(server)
            ),
            None => format!("{} ({})", visible(&t.name), t.calls),
        })
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
            "Deferral candidates (never called on the turns that sent them): {} tool(s), {} tokens over the session: {}{}",
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
    let mut text = turn.cache.word().to_owned();
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
    if !turn.appended.is_empty() {
        parts.push(names(&turn.appended));
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
    if let Some(price) = &turn.break_price {
        parts.push(price.summary());
    }
    if let Some(diagnosis) = &turn.provider_diagnosis {
        parts.push(visible(&diagnosis.summary()).into_owned());
    }
    if let Some(why) = &turn.prefix_check {
        parts.push(format!("! {why}"));
    }
    for why in &turn.tool_change_problems {
        parts.push(format!("! {}", visible(why)));
    }
    if parts.is_empty() {
        return match turn.previous_turn {
            Some(_) => "-".to_owned(),
            None => "first turn of its thread".to_owned(),
        };
    }
    parts.join("; ")
}

/// What the breaks of the requests as sent cost over the session, as a line (empty without a
/// break).
fn breaks_line(breaks: &toolprism::session::BreakCost) -> String {
    if breaks.breaks == 0 {
        return String::new();
    }
    format!(
        "breaks of the requests as sent: {} lost a prefix their thread had cached, +{} input tokens{} against the prefix held\n",
        count(breaks.breaks, "turn", "turns"),
        money(breaks.extra),
        breaks
            .usd
            .map(|usd| format!(" ({})", dollars(usd)))
            .unwrap_or_default()
    )
}

/// `append`'s figures: each change of a thread's tools sent as a mid-conversation system
/// message instead of a new `tools` array. Where it costs more than `original` it says so,
/// never as a negative saving.
fn append_line(append: &toolprism::session::AppendFigures) -> String {
    use toolprism::session::ChangeForm;
    let forms: Vec<&str> = append
        .forms
        .iter()
        .map(|f| match f {
            ChangeForm::Inline => "tools defined inline",
            ChangeForm::Reference => "tools added by reference, later ones declared deferred",
            ChangeForm::Converse => "Converse tool references",
        })
        .collect();
    let how = if forms.is_empty() {
        String::new()
    } else {
        format!(": {}", forms.join("; "))
    };
    let mut avoided = vec![count(append.breaks_avoided, "break", "breaks") + " avoided"];
    if append.order_kept > 0 {
        avoided[0] += &if append.order_kept == append.breaks_avoided {
            " (the first list's order kept)".to_owned()
        } else {
            format!(" ({} by keeping the first list's order)", append.order_kept)
        };
    }
    if append.refusals_avoided > 0 {
        avoided.push(count(append.refusals_avoided, "refused turn", "refused turns") + " avoided");
    }
    if append.checks_avoided > 0 {
        avoided.push(format!(
            "{} kept intact",
            count(
                append.checks_avoided,
                "answered turn that failed the prefix check",
                "answered turns that failed the prefix check"
            )
        ));
    }
    let usd = |usd: f64| format!(" ({})", dollars(usd));
    let outcome = if append.saved_tokens < 0.0 {
        format!(
            "costs {} input tokens{} more than original",
            money(-append.saved_tokens),
            append.saved_usd.map(|u| usd(-u)).unwrap_or_default()
        )
    } else {
        format!(
            "saved {} input tokens{} against original",
            money(append.saved_tokens),
            append.saved_usd.map(usd).unwrap_or_default()
        )
    };
    // Refused on every change and nothing else to say: the refusal alone.
    let nothing = append.changes + append.breaks_avoided + append.refusals_avoided == 0
        && append.checks_avoided == 0
        && append.saved_tokens == 0.0;
    let mut text = if nothing {
        String::new()
    } else {
        format!(
            "append (each tool list change as a system message{how}): {} sent, {}; {} tokens of system messages; {outcome}\n",
            count(append.changes, "change", "changes"),
            avoided.join(", "),
            thousands(append.change_tokens),
        )
    };
    if append.refused_total > 0 {
        let _ = writeln!(
            text,
            "{}append is refused on {}: {}",
            if nothing { "" } else { "  " },
            count(append.refused_total, "turn", "turns"),
            visible(&append.refused.join("; "))
        );
    }
    text
}

/// `append`'s row where the provider refuses it (a model that takes no tool changes).
fn refused_row(turn: &StrategyTurn, strategy: Strategy) -> bool {
    strategy == Strategy::Append && turn.status == Some(toolprism::projection::Applies::Refused)
}

/// One strategy's cell at one turn.
fn cell(turn: &StrategyTurn, strategy: Strategy) -> String {
    let Some(total) = turn.total_tokens else {
        return "?".to_owned();
    };
    let mark = match (turn.prefix_check.is_some(), turn.stable == Some(false)) {
        (true, _) => "!*",
        (false, _) if refused_row(turn, strategy) => "!",
        (false, true) => "*",
        (false, false) => "",
    };
    let state = match turn.state {
        Some("hit") => " h",
        Some("partial") => " p",
        Some("write") => " w",
        Some(_) => " -",
        None => "",
    };
    format!("{mark}{}{state}", thousands(total))
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
    let terminal = std::io::stdout().is_terminal();
    let spool_failed = |e: std::io::Error| {
        Failure::new(format!(
            "{name}: cannot keep the turns in a temporary file: {}",
            visible(&toolprism::error::temp_reason(&e))
        ))
    };
    // Refused before the analysis, not after it: a long trace is not read for nothing.
    if super::stdout_closed() {
        return Err(Failure::new(super::STDOUT_CLOSED));
    }
    let rows = if request.json {
        SpillRows::Json(JsonSpill::new(strategies.len(), terminal).map_err(spool_failed)?)
    } else {
        SpillRows::Text(Box::new(TextSpill::new(&strategies).map_err(spool_failed)?))
    };
    let mut spill = Spill { rows, error: None };
    let mut analyzer = Analyzer::new(
        &strategies,
        request.settings,
        &counter,
        request.thread.clone(),
    )
    .with_sink(Box::new(&mut spill));
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
    let kept = analyzer.kept_turns();
    let report = analyzer.finish(info);
    // Nothing to show is a failure, as `report` fails on the same trace.
    if kept == 0 {
        let reasons = report.trace.ignored.iter().map(|i| i.reason.as_str());
        let why = toolprism::trace::ignored_summary(reasons, report.trace.ignored_total);
        return Err(Failure::new(format!("{name}: no model call in it{why}")));
    }
    if let Some(e) = spill.error {
        return Err(spool_failed(e));
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = match spill.rows {
        SpillRows::Json(rows) => write_json(&report, rows, &mut out),
        SpillRows::Text(rows) => write_paged(&report, *rows, request.color, &mut out),
    }
    .and_then(|()| out.flush().map_err(WriteError::Out));
    let mut output = Output::text(String::new());
    if let Some(line) = request
        .budget
        .and_then(|b| over_budget(&report, b, request.strategies))
    {
        output.stderr = format!("toolprism: {name}: {line}\n");
        output.status = super::EXIT_CHECK;
    }
    match written {
        Ok(()) => Ok(output),
        Err(WriteError::Out(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(output),
        Err(WriteError::Out(e)) => Err(Failure::new(format!("<stdout>: {e}"))),
        Err(WriteError::Spool(e)) => Err(spool_failed(e)),
    }
}

/// The text report; on a terminal fitted to its width and paged through `less -FRX`, as
/// `diff` is (see [`super::pager`]), else written to `out` as it is.
fn write_paged(
    report: &SessionReport,
    rows: TextSpill,
    color: bool,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    let cells = super::terminal_width();
    let Some(mut pager) = cells.and_then(|_| super::pager()) else {
        return write_text(report, rows, color, cells, out);
    };
    let written = match pager.stdin.take() {
        Some(stdin) => {
            let mut stdin = std::io::BufWriter::with_capacity(1 << 16, stdin);
            write_text(report, rows, color, cells, &mut stdin)
                .and_then(|()| stdin.flush().map_err(WriteError::Out))
        }
        None => Ok(()),
    };
    // The pager is waited for (it owns the screen until it quits); quitting it early closes
    // the pipe, which is no error.
    let _ = pager.wait();
    match written {
        Err(WriteError::Out(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// The `--budget` gate, as `report --budget`'s but on the session's cost (the totals' `cost`
/// column, as printed there): which strategies cost more than `budget`, in one line. Without
/// `-s` (`named` empty) it gates `original`, the session as sent; with it, each one named.
fn over_budget(report: &SessionReport, budget: usize, named: &[Strategy]) -> Option<String> {
    let gated = |id: &str| {
        if named.is_empty() {
            id == Strategy::Original.id()
        } else {
            named.iter().any(|s| s.id() == id)
        }
    };
    let failures: Vec<String> = report
        .strategies
        .iter()
        .filter(|s| gated(s.id))
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

/// The rows of the output asked for, spooled as the analysis finishes each turn; the first
/// write that fails stops the spooling and is reported once the analysis is done.
struct Spill {
    rows: SpillRows,
    error: Option<std::io::Error>,
}

/// The spool of the text report or of `--json`.
enum SpillRows {
    Json(JsonSpill),
    Text(Box<TextSpill>),
}

impl TurnSink for Spill {
    fn turn(&mut self, facts: &TurnFacts, rows: &[StrategyTurn]) {
        if self.error.is_some() {
            return;
        }
        let spooled = match &mut self.rows {
            SpillRows::Json(s) => s.spool(facts, rows),
            SpillRows::Text(s) => s.spool(facts, rows),
        };
        self.error = spooled.err();
    }
}
