//! The `report` table: plain text, aligned by display width, every capture string sanitized.
//! Into a pipe the layout depends on nothing but the report, so it is stable for snapshots and
//! scripts, with every name whole. On a terminal, given its width, long notes and reasons wrap
//! under their column instead of running off the edge; names are never cut.

use std::fmt::Write as _;

use toolprism::projection::Applies;
use toolprism::report::{Report, StrategyFigures, ToolFigures};
use toolprism::sanitize::visible;
use toolprism::text::{fit, pad, pad_left as rpad, signed, thousands, width};
use toolprism::{Level, Note, Status};

use super::manners::count;

/// The narrowest a wrapped paragraph gets, however little room is left.
const MIN_WRAP: usize = 20;

/// The narrowest room a last cell is wrapped in (a word such as `deferred,`); in less it is
/// cut with `…`.
const MIN_CELL: usize = 10;

/// On a terminal: the reason column's share before names are shortened, and the shortest a
/// name gets.
const MIN_REASON: usize = 20;
const MIN_NAME: usize = 12;

/// The engine's note for a capture without tools, which every strategy repeats: the table
/// says it once.
const NO_TOOLS_NOTE: &str = "the capture has no tools: nothing to project";

/// `text` cut into lines of at most `cells` cells at spaces; a word longer than that stays
/// whole on its own line.
fn wrap(text: &str, cells: usize) -> Vec<String> {
    toolprism::text::wrap(text, cells, toolprism::text::LongWords::Keep)
}

/// Free text for the terminal: each line longer than `cells` wrapped, its continuation lines
/// indented two cells past the line's own indent (a note's text lines up under itself).
pub(crate) fn fit_text(text: &str, cells: Option<usize>) -> String {
    let Some(cells) = cells else {
        return text.to_owned();
    };
    let mut out = String::new();
    for line in text.lines() {
        if width(line) <= cells {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let hanging = " ".repeat(indent + 2);
        let room = cells.saturating_sub(indent + 2).max(MIN_WRAP);
        let mut first = true;
        for part in wrap(line.trim_start(), room) {
            out.push_str(if first { &line[..indent] } else { &hanging });
            out.push_str(&part);
            out.push('\n');
            first = false;
        }
    }
    out
}

/// A paragraph for the terminal: its own line breaks (laid out for a pipe at about 90 columns)
/// dropped and the text wrapped to `cells`, when it does not fit as it is.
fn fit_paragraph(text: &str, cells: Option<usize>) -> String {
    match cells {
        Some(cells) if text.lines().any(|l| width(l) > cells) => {
            let leading = text.len() - text.trim_start_matches('\n').len();
            let joined = text.trim_matches('\n').replace('\n', " ");
            let mut out = "\n".repeat(leading);
            for line in wrap(&joined, cells.max(MIN_WRAP)) {
                out.push_str(&line);
                out.push('\n');
            }
            out
        }
        _ => text.to_owned(),
    }
}

/// Aligned rows: `right[i]` right-aligns column i. The last column is never padded; with a
/// terminal width, a last cell that would overflow wraps under itself.
pub(crate) fn grid(
    rows: &[Vec<String>],
    right: &[bool],
    indent: &str,
    cells: Option<usize>,
) -> String {
    grid_painted(rows, right, indent, cells, &|_, _, _| None)
}

/// The SGR colours of `report`, `report --matrix` and `session` on a terminal, one meaning
/// each (the TUI's roles): a saving is never drawn like a cost, a request a provider rejects
/// never like a saving.
pub(crate) mod paint {
    /// Fewer tokens than the original sends (green).
    pub const SAVING: &str = "\x1b[32m";
    /// More tokens than the original sends (red).
    pub const COST: &str = "\x1b[31m";
    /// A provider would reject the projected request, `!` (bold yellow): not a saving anyone
    /// gets.
    pub const REJECTED: &str = "\x1b[1;33m";
    /// The host refuses the capture: no figures (bold red).
    pub const REFUSED: &str = "\x1b[1;31m";
    /// Nothing to act on, `n/a`, or nothing changed (dim).
    pub const QUIET: &str = "\x1b[2m";

    /// A saving's colour by its sign: `None` for no change.
    pub fn by_saving(saved: f64) -> Option<&'static str> {
        if saved > 0.0 {
            Some(SAVING)
        } else if saved < 0.0 {
            Some(COST)
        } else {
            None
        }
    }
}

/// [`grid`], with `paint(row, column, text)` giving a cell an SGR colour. It is applied around
/// the padded cell, so colour never changes the layout.
pub(crate) fn grid_painted(
    rows: &[Vec<String>],
    right: &[bool],
    indent: &str,
    cells: Option<usize>,
    paint: &dyn Fn(usize, usize, &str) -> Option<&'static str>,
) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| width(s))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (r, row) in rows.iter().enumerate() {
        grid_line(
            row,
            &widths,
            right,
            indent,
            cells,
            &|c, cell| paint(r, c, cell),
            &mut out,
        );
    }
    out
}

/// One line of a grid on columns `widths` wide (see [`grid_painted`]), with its line feed:
/// for a table whose rows are laid out one at a time, as `session` reads its rows back.
pub(crate) fn grid_line<S: AsRef<str>>(
    row: &[S],
    widths: &[usize],
    right: &[bool],
    indent: &str,
    cells: Option<usize>,
    paint: &dyn Fn(usize, &str) -> Option<&'static str>,
    out: &mut String,
) {
    let mut line = String::from(indent);
    // Colour codes take no cells: the line is measured without them.
    let mut plain = String::from(indent);
    for (c, cell) in row.iter().enumerate() {
        let cell = cell.as_ref();
        if c > 0 {
            line.push_str("  ");
            plain.push_str("  ");
        }
        let last = c + 1 == row.len();
        let start = width(&plain);
        // A last cell wrapped over lines is left plain: its continuations start elsewhere.
        let wraps = last && cells.is_some_and(|cells| start + width(cell) > cells);
        let colour = paint(c, cell).filter(|_| !wraps);
        if let Some(code) = colour {
            line.push_str(code);
        }
        if right.get(c).copied().unwrap_or(false) {
            line.push_str(&rpad(cell, widths[c]));
            plain.push_str(&rpad(cell, widths[c]));
        } else if last {
            match cells {
                Some(cells) if wraps => {
                    // Never past the edge, where the terminal would break a word: wrapped
                    // under itself when there is room for words, else cut with a mark.
                    let room = cells.saturating_sub(start).max(1);
                    if room < MIN_CELL {
                        line.push_str(&fit(cell, room));
                    } else {
                        let continuation = format!("\n{}", " ".repeat(start));
                        let lines: Vec<String> =
                            wrap(cell, room).iter().map(|l| fit(l, room)).collect();
                        line.push_str(&lines.join(&continuation));
                    }
                }
                _ => line.push_str(cell),
            }
        } else {
            line.push_str(&pad(cell, widths[c]));
            plain.push_str(&pad(cell, widths[c]));
        }
        if colour.is_some() {
            line.push_str("\x1b[0m");
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// How a table meets the terminal: its width, which columns give way first (by index), and
/// the room its last column (free text) keeps before they do.
pub(crate) struct Fit {
    pub cells: Option<usize>,
    pub drop: Vec<usize>,
    pub room: usize,
}

/// The indent of the tables under a report (`session`'s, the per-server one).
pub(crate) const INDENT: &str = "  ";

/// The columns of a table whose columns are `widths` wide that fit in `fit.cells`: the ones in
/// `fit.drop` left out, in that order, until the row fits (its last column keeping
/// `fit.room`, when that is free text). Into a pipe, every column.
pub(crate) fn shown_columns(widths: &[usize], fit: &Fit) -> Vec<usize> {
    let mut shown: Vec<usize> = (0..widths.len()).collect();
    let Some(cells) = fit.cells else {
        return shown;
    };
    let needs = |shown: &[usize]| {
        let fixed = if fit.room > 0 {
            &shown[..shown.len() - 1]
        } else {
            shown
        };
        INDENT.len() + fixed.iter().map(|&c| widths[c] + 2).sum::<usize>() + fit.room
    };
    for &column in &fit.drop {
        if needs(&shown) <= cells + 2 * usize::from(fit.room == 0) {
            break;
        }
        shown.retain(|&c| c != column);
    }
    shown
}

/// The line naming the columns a table left out for the width, as `report --matrix` does.
pub(crate) fn not_shown(header: &[String], shown: &[usize]) -> Option<String> {
    let dropped: Vec<&str> = (0..header.len())
        .filter(|c| !shown.contains(c))
        .map(|c| header[c].as_str())
        .collect();
    (!dropped.is_empty()).then(|| {
        format!(
            "{INDENT}not shown for width: {} (widen the terminal, or pipe the output for every column)\n",
            dropped.join(", ")
        )
    })
}

/// Who refuses the strategy's request (`append`: the provider; the others: the host).
pub(super) fn refused_by(figures: &StrategyFigures) -> &'static str {
    figures
        .id
        .parse::<toolprism::Strategy>()
        .map_or("the host", toolprism::Strategy::refused_by)
}

/// A few words on what a strategy did: counts of changed, removed and added tools, and the
/// text it adds outside the tool list.
fn short_note(figures: &StrategyFigures) -> String {
    if figures.is_refused() {
        return format!("refused by {} (see notes)", refused_by(figures));
    }
    let count = |state: Status| figures.per_tool.iter().filter(|t| t.state == state).count();

    let mut parts = Vec::new();
    for state in [
        Status::Changed,
        Status::Removed,
        Status::Deferred,
        Status::Added,
    ] {
        let n = count(state);
        if n > 0 {
            parts.push(format!("{} {}", thousands(n), state.word()));
        }
    }
    if figures.first_changed_byte.is_some() && parts.is_empty() {
        // Nothing changed per tool, yet the array differs: moved, or no `tools` key at all.
        parts.push(if figures.tools == Some(0) && figures.per_tool.is_empty() {
            "sends no tools key".to_owned()
        } else {
            "reordered".to_owned()
        });
    }
    if let Some(added) = figures.added_tokens.filter(|&t| t > 0) {
        parts.push(format!(
            "+{} of added text",
            super::manners::count(added, "token", "tokens")
        ));
    }
    if parts.is_empty() {
        parts.push("unchanged".to_owned());
    }
    parts.join(", ")
}

/// The whole `report` table, with the notes, the origins' estimates and the provider overhead
/// under it; `per_tool` adds a table per strategy. `cells`: the terminal's width, when the
/// table goes to one.
pub fn report_table(report: &Report, per_tool: bool, cells: Option<usize>, color: bool) -> String {
    let capture = &report.capture;
    let mut out = String::new();
    let header = format!(
        "{}: {}, {}, {}, {} ({})\n",
        visible(&report.input_name()),
        capture.shape,
        count(capture.tools, "tool", "tools"),
        count(capture.tools_bytes, "byte", "bytes"),
        count(capture.tools_tokens, "token", "tokens"),
        report.encoding
    );
    out.push_str(&fit_text(&header, cells));
    if capture.tools == 0 {
        out.push_str(&fit_text(
            "the capture has no tools: there is nothing to project, and every strategy sends nothing\n",
            cells,
        ));
    }
    if let Some(effect) = &capture.in_effect {
        out.push_str(&in_effect_section(effect, cells));
    }
    out.push('\n');

    out.push_str(&strategies_grid(report, cells, color));
    out.push_str(&fit_paragraph(
        "\ntokens: the projected tools array plus any text added outside it. cache prefix: bytes of\nthe compact tools array that stay identical (a provider's prompt cache keeps that much).\nstatus: n/a = nothing to act on (the host's fallback, figures shown); refused = the host\nrejects the list (no figures); `!` = a provider would reject the projected request.\n",
        cells,
    ));
    if report.capture.context_tokens != report.capture.tools_tokens {
        let line = format!(
            "context: tokens in the model's context (entries marked defer_loading stay out until the\nprovider's tool search returns them; {} for the capture): saved is measured on these.\n",
            thousands(report.capture.context_tokens)
        );
        out.push_str(&fit_paragraph(&line, cells));
    }
    if let Some(inline) = report
        .capture
        .in_effect
        .as_ref()
        .map(|e| e.inline_tokens)
        .filter(|&t| t > 0)
    {
        let line = format!(
            "tokens include the inline definitions in the messages as each strategy sends them
({} for the capture, in its tokens and its saving's basis too).
",
            thousands(inline)
        );
        out.push_str(&fit_paragraph(&line, cells));
    }

    out.push_str(&notes_section(report, cells));

    out.push_str(&estimates_section(report, cells));

    if let Some(line) = overhead_line(report) {
        out.push('\n');
        out.push_str(&fit_paragraph(&line, cells));
    }

    if per_tool {
        for s in in_table_order(report) {
            let _ = write!(out, "\n{} per tool\n", s.id);
            if s.is_refused() {
                let _ = writeln!(out, "  refused by {}: no figures", refused_by(s));
            } else {
                out.push_str(&per_tool_table(&s.per_tool, cells));
            }
        }
    }
    out
}

/// The tools in effect at the end of a request whose messages change them, each with where
/// it came from: the declared list is the header's.
pub(crate) fn in_effect_section(
    effect: &toolprism::report::InEffectFigures,
    cells: Option<usize>,
) -> String {
    let mut out = fit_paragraph(
        &format!(
            "the messages change the tools: {} in effect at the end of the request ({} declared in `tools`; inline definitions are prompt tokens where they stand: {}; deferred declarations added: {})\n",
            effect.tools.len(),
            effect.declared,
            count(effect.inline_tokens, "token", "tokens"),
            count(effect.added_tokens, "token", "tokens"),
        ),
        cells,
    );
    let mut rows = vec![vec![
        "tool".to_owned(),
        "from".to_owned(),
        "tokens".to_owned(),
    ]];
    rows.extend(effect.tools.iter().chain(&effect.removed).map(|t| {
        vec![
            visible(&t.tool.name).into_owned(),
            t.source.clone(),
            thousands(t.tokens),
        ]
    }));
    rows.extend(effect.hidden.iter().map(|name| {
        vec![
            visible(name).into_owned(),
            "deferred, never added".to_owned(),
            "0".to_owned(),
        ]
    }));
    out.push_str(&grid(&rows, &[false, false, true], "  ", cells));
    out
}

/// A column of the strategies' table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StrategyColumn {
    Strategy,
    Status,
    Tools,
    Tokens,
    /// Tokens in the model's context: shown only when some entries are provider-deferred.
    Context,
    Saved,
    SavedPct,
    CachePrefix,
    Note,
}

impl StrategyColumn {
    const ALL: [StrategyColumn; 9] = [
        StrategyColumn::Strategy,
        StrategyColumn::Status,
        StrategyColumn::Tools,
        StrategyColumn::Tokens,
        StrategyColumn::Context,
        StrategyColumn::Saved,
        StrategyColumn::SavedPct,
        StrategyColumn::CachePrefix,
        StrategyColumn::Note,
    ];

    fn header(self) -> &'static str {
        match self {
            StrategyColumn::Strategy => "strategy",
            StrategyColumn::Status => "status",
            StrategyColumn::Tools => "tools",
            StrategyColumn::Tokens => "tokens",
            StrategyColumn::Context => "context",
            StrategyColumn::Saved => "saved",
            StrategyColumn::SavedPct => "saved%",
            StrategyColumn::CachePrefix => "cache prefix",
            StrategyColumn::Note => "note",
        }
    }

    /// Figures are right-aligned; words are not.
    fn right(self) -> bool {
        !matches!(
            self,
            StrategyColumn::Strategy | StrategyColumn::Status | StrategyColumn::Note
        )
    }

    fn cell(self, s: &StrategyFigures) -> String {
        let dash = || "-".to_owned();
        match self {
            StrategyColumn::Strategy => s.id.to_owned(),
            StrategyColumn::Status => status_cell(s),
            StrategyColumn::Tools => s.tools.map_or_else(dash, thousands),
            StrategyColumn::Tokens => s.total_tokens.map_or_else(dash, thousands),
            StrategyColumn::Context => s.in_context().map_or_else(dash, thousands),
            StrategyColumn::Saved => s.shown_saving().map_or_else(dash, |(t, _)| signed(t)),
            StrategyColumn::SavedPct => s
                .shown_saving()
                .map_or_else(dash, |(_, p)| format!("{p:.2}%")),
            StrategyColumn::CachePrefix => match (s.is_refused(), s.first_changed_byte) {
                (true, _) => dash(),
                (false, None) => "all kept".to_owned(),
                (false, Some(at)) => format!("{} B", thousands(at)),
            },
            StrategyColumn::Note => short_note(s),
        }
    }

    /// The cell's colour: the status by what it says, a saving by its sign (dim when there
    /// was nothing to act on, bold yellow when a provider would reject the request).
    fn paint(self, s: &StrategyFigures) -> Option<&'static str> {
        match self {
            StrategyColumn::Status if s.is_refused() => Some(paint::REFUSED),
            StrategyColumn::Status if !s.request_valid => Some(paint::REJECTED),
            StrategyColumn::Status if s.status == Applies::NotApplicable => Some(paint::QUIET),
            StrategyColumn::Saved | StrategyColumn::SavedPct => match s.shown_saving() {
                _ if s.status == Applies::NotApplicable => Some(paint::QUIET),
                Some(_) if !s.request_valid => Some(paint::REJECTED),
                Some((tokens, _)) => paint::by_saving(tokens as f64),
                None => None,
            },
            _ => None,
        }
    }
}

/// The strategies' table: status, tools, tokens, savings and the cache prefix of each, with
/// a `context` column when some entries are provider-deferred.
fn strategies_grid(report: &Report, cells: Option<usize>, color: bool) -> String {
    // With provider-deferred entries, savings are on context tokens: show those too.
    let deferral = report.capture.context_tokens != report.capture.tools_tokens
        || report
            .strategies
            .iter()
            .any(|s| s.context_tokens != s.tools_tokens);
    let columns: Vec<StrategyColumn> = StrategyColumn::ALL
        .into_iter()
        .filter(|&c| deferral || c != StrategyColumn::Context)
        .collect();
    let ordered: Vec<&StrategyFigures> = in_table_order(report).collect();
    let mut rows = vec![columns.iter().map(|c| c.header().to_owned()).collect()];
    rows.extend(
        ordered
            .iter()
            .map(|s| columns.iter().map(|c| c.cell(s)).collect::<Vec<_>>()),
    );
    let right: Vec<bool> = columns.iter().map(|c| c.right()).collect();
    let paint = |r: usize, c: usize, _: &str| {
        if !color || r == 0 {
            return None;
        }
        columns[c].paint(ordered.get(r - 1)?)
    };
    grid_painted(&rows, &right, "", cells, &paint)
}

/// Every strategy's notes, errors first, then warnings, then explanations; empty without any.
fn notes_section(report: &Report, cells: Option<usize>) -> String {
    let capture = &report.capture;
    let mut out = String::new();
    // Errors first, then warnings, then explanations; strategies in table order within each.
    let mut notes: Vec<(&str, &Note)> = in_table_order(report)
        .flat_map(|s| s.notes.iter().map(move |n| (s.id, n)))
        .filter(|(_, n)| !(capture.tools == 0 && n.text == NO_TOOLS_NOTE))
        .collect();
    notes.sort_by_key(|(_, n)| n.level);
    let mut lines = String::new();
    for (id, note) in notes {
        let level = match note.level {
            Level::Info => String::new(),
            level => format!("{}: ", level.word()),
        };
        let _ = writeln!(lines, "  {id}: {level}{}", visible(&note.text));
    }
    if !lines.is_empty() {
        out.push_str("\nnotes\n");
        out.push_str(&fit_text(&lines, cells));
    }
    out
}

/// What each origin's own formula estimates for the projected list, beside tiktoken's count.
fn estimates_section(report: &Report, cells: Option<usize>) -> String {
    let dash = || "-".to_owned();
    let mut out = String::from(
        "\norigin estimates of the projected list (tokens, by each host's own formula)\n",
    );
    let mut rows = vec![
        ["strategy", "vtcode", "a3s", "zero", "lean-ctx", "tiktoken"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for s in in_table_order(report) {
        match (&s.estimates, s.tools_tokens) {
            (Some(e), Some(tokens)) => rows.push(vec![
                s.id.to_owned(),
                thousands(e.vtcode),
                thousands(e.a3s),
                thousands(e.zero),
                thousands(e.lean_ctx),
                thousands(tokens),
            ]),
            _ => rows.push(vec![
                s.id.to_owned(),
                dash(),
                dash(),
                dash(),
                dash(),
                "refused".to_owned(),
            ]),
        }
    }
    out.push_str(&grid(
        &rows,
        &[false, true, true, true, true, true],
        "  ",
        cells,
    ));
    out
}

/// The strategies as tables list them: in the order requested, refused ones last.
fn in_table_order(report: &Report) -> impl Iterator<Item = &StrategyFigures> {
    let (kept, refused): (Vec<_>, Vec<_>) = report.strategies.iter().partition(|s| !s.is_refused());
    kept.into_iter().chain(refused)
}

/// `ok`, `n/a` or `refused`, with `!` when a provider would reject the projected request.
/// Its colour ([`StrategyColumn::paint`]): `!` bold yellow, `refused` bold red, `n/a` dim;
/// `ok` is left plain (green is a saving's colour, and an `ok` strategy may cost more).
fn status_cell(figures: &StrategyFigures) -> String {
    let word = figures.status.short_word();
    if figures.request_valid || figures.is_refused() {
        word.to_owned()
    } else {
        format!("{word} !")
    }
}

/// Anthropic's tool-use system prompt, labelled apart: it is the provider's, not any tool's.
fn overhead_line(report: &Report) -> Option<String> {
    let with: Vec<(&str, usize)> = report
        .strategies
        .iter()
        .filter_map(|s| s.provider_overhead_tokens.map(|t| (s.id, t)))
        .collect();
    let (_, tokens) = *with.first()?;
    let without: Vec<&str> = report
        .strategies
        .iter()
        .filter(|s| s.provider_overhead_tokens.is_none() && !s.is_refused())
        .map(|s| s.id)
        .collect();
    let mut line = format!(
        "provider overhead (a separate estimate, in no figure above): Anthropic adds a tool-use\nsystem prompt of about {tokens} tokens to each request that sends tools (346 with tool_choice\nauto or none, 313 with any or tool)"
    );
    if !without.is_empty() {
        let _ = write!(line, "; none for {}", without.join(", "));
    }
    line.push_str(".\n");
    Some(line)
}

fn per_tool_table(tools: &[ToolFigures], cells: Option<usize>) -> String {
    let header = ["tool", "status", "tokens", "→", "bytes", "→", "reason"].map(str::to_owned);
    let mut rows = vec![header.to_vec()];
    for t in tools {
        rows.push(vec![
            visible(&t.name).into_owned(),
            t.state.word().to_owned(),
            thousands(t.original_tokens()),
            thousands(t.projected_tokens()),
            thousands(t.original_bytes()),
            thousands(t.projected_bytes()),
            visible(&t.reason).into_owned(),
        ]);
    }
    // On a terminal the name column gives way first, shortened as the TUI and the matrix
    // shorten names (MCP prefix collapsed, then the middle cut: `mcp…issue`), so different
    // tools never read alike; the figures stay aligned and the reason keeps [`MIN_REASON`]
    // cells. Pipes keep names whole.
    if let Some(cells) = cells {
        let fixed: usize = (1..6)
            .map(|c| rows.iter().map(|r| width(&r[c])).max().unwrap_or(0) + 2)
            .sum();
        let room = cells
            .saturating_sub(2 + fixed + 2 + MIN_REASON)
            .max(MIN_NAME);
        let names: Vec<&str> = tools.iter().map(|t| &t.name[..]).collect();
        let short = toolprism::matrix::display_names(&names, room);
        for (row, name) in rows.iter_mut().skip(1).zip(short) {
            row[0] = name;
        }
    }
    grid(
        &rows,
        &[false, false, true, true, true, true, false],
        "  ",
        cells,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_aligns_wide_text() {
        let rows = vec![
            vec!["漢字".to_owned(), "1".to_owned(), "x".to_owned()],
            vec!["ab".to_owned(), "100".to_owned(), "y".to_owned()],
        ];
        assert_eq!(
            grid(&rows, &[false, true, false], "", None),
            "漢字    1  x\nab    100  y\n"
        );
    }

    #[test]
    fn a_last_cell_wraps_under_itself_on_a_narrow_terminal() {
        let rows = vec![vec![
            "id".to_owned(),
            "one two three four five six seven eight nine ten eleven".to_owned(),
        ]];
        assert_eq!(
            grid(&rows, &[false, false], "", Some(26)),
            "id  one two three four\n    five six seven eight\n    nine ten eleven\n"
        );
        assert_eq!(
            fit_text(
                "  defer: a b c d e f g h i j k l m n o p q r s t u v w x y z",
                Some(30)
            ),
            "  defer: a b c d e f g h i j\n    k l m n o p q r s t u v w\n    x y z\n"
        );
        assert_eq!(
            fit_paragraph("\nab cd\nef gh ij\n", Some(8)),
            "\nab cd\nef gh ij\n",
            "fits: left as it is"
        );
        assert_eq!(
            fit_paragraph("\naaaa bbbb cccc dddd eeee ffff\ngggg hhhh\n", Some(20)),
            "\naaaa bbbb cccc dddd\neeee ffff gggg hhhh\n"
        );
        // No line past the edge: a last cell with too little room is cut with a mark, a word
        // longer than its room too.
        assert_eq!(grid(&rows, &[false, false], "", Some(8)), "id  one…\n");
        let long = vec![vec![
            "id".to_owned(),
            "a mcp__github__create_issue".to_owned(),
        ]];
        assert_eq!(
            grid(&long, &[false, false], "", Some(16)),
            "id  a\n    mcp__github…\n"
        );
        // A word longer than the room stays whole.
        assert_eq!(
            wrap("mcp__github__create_issue x", 10),
            ["mcp__github__create_issue", "x"]
        );
    }
}
