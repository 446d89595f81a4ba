//! One strategy's tool table: every tool's status and figures before and after.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use crate::projection::{Status, ToolOutcome};
use crate::report::ToolFigures;
use crate::strategy::Strategy;
use crate::text::{pad_left, pct, safe, saved_pct, thousands};

use super::app::App;
use super::state::Pane;
use super::textview::highlight;
use super::widgets::{block, wrap};
use crate::matrix::display_names;

/// Which figures the tool table's columns show at its width.
#[derive(Debug, Clone, Copy)]
struct Columns {
    /// The status as a word, not a glyph.
    words: bool,
    /// Bytes instead of tokens (`b`, when only one of them fits).
    bytes_only: bool,
    /// Bytes beside the tokens.
    show_bytes: bool,
}

/// One row of the tool table: outcome `o`, its figures `t`, its name as shown.
fn tool_row<'a>(
    app: &'a App,
    o: &ToolOutcome,
    t: Option<&ToolFigures>,
    shown_name: &'a str,
    columns: Columns,
) -> Row<'a> {
    let theme = app.theme;
    let (words, bytes_only, show_bytes) = (columns.words, columns.bytes_only, columns.show_bytes);
    let num = |v: Option<usize>| v.map_or("…".to_owned(), thousands);
    let (before, after) = if bytes_only {
        (t.map(|t| t.original_bytes), t.map(|t| t.projected_bytes))
    } else {
        (t.map(|t| t.original_tokens), t.map(|t| t.projected_tokens))
    };
    let saved = match (before, after) {
        (Some(b), Some(a)) if b > 0 => pct(saved_pct(b, a)),
        (Some(_), Some(_)) => "new".to_owned(),
        _ => "…".to_owned(),
    };
    let sent_tokens = if o.projected.is_some() {
        num(after)
    } else {
        "-".to_owned()
    };
    let mut cells = vec![
        Cell::from(Span::styled(
            if words {
                o.status.word()
            } else {
                status_glyph(o.status)
            },
            theme.status(o.status),
        )),
        Cell::from({
            let name = highlight(shown_name, &app.search.text, theme.text(), theme.found());
            match o.original.map(|i| app.hidden_in(i)) {
                // Flag tools that carry control or invisible characters.
                Some(n) if n > 0 => {
                    let mut spans = vec![Span::styled("!", theme.warn())];
                    spans.extend(name.spans);
                    Line::from(spans)
                }
                _ => name,
            }
        }),
        Cell::from(pad_left(
            &if o.original.is_some() {
                num(before)
            } else {
                "-".to_owned()
            },
            7,
        )),
        Cell::from(pad_left(&sent_tokens, 7)),
        Cell::from(pad_left(&saved, 8)),
    ];
    if show_bytes {
        let b = t.map(|t| t.original_bytes).filter(|_| o.original.is_some());
        let a = t
            .map(|t| t.projected_bytes)
            .filter(|_| o.projected.is_some());
        cells.push(Cell::from(pad_left(&b.map_or("-".into(), thousands), 8)));
        cells.push(Cell::from(pad_left(&a.map_or("-".into(), thousands), 8)));
    }
    Row::new(cells)
}

/// Draw `strategy`'s tool table (only the visible rows are built).
pub fn render_tools(app: &App, frame: &mut Frame, area: Rect, strategy: Strategy) {
    let theme = app.theme;
    let focused = app.strategy_tab.focus == Pane::Tools;
    let rows = app.rows();
    let total = app.projection(strategy).map_or(0, |p| p.outcomes.len());
    let mut title = format!(" Tools · {} ", strategy.id());
    if !app.search.text.is_empty() {
        title = format!(
            " Tools · {} · {}/{} match ",
            strategy.id(),
            rows.len(),
            total
        );
    }
    let outer = block(theme, title, focused);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let Some(projection) = app.projection(strategy) else {
        frame.render_widget(
            Paragraph::new(Line::styled("projecting…", theme.dim())),
            inner,
        );
        return;
    };
    if rows.is_empty() {
        let text = if let Some(error) = projection.refusal() {
            format!("the host refuses this capture: {}", safe(error))
        } else if total == 0 {
            "no tools".to_owned()
        } else {
            format!("no tool matches \"{}\"", safe(&app.search.text))
        };
        let lines: Vec<Line> = wrap(&text, inner.width as usize)
            .into_iter()
            .map(|l| Line::styled(l, theme.dim()))
            .collect();
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }
    let figures = app.figures(strategy);
    let show_bytes = inner.width >= 72;
    // Too narrow for both: `b` switches the figures between tokens and bytes.
    let bytes_only = !show_bytes && app.strategy_tab.bytes_view;
    let words = inner.width >= 60;
    let columns = Columns {
        words,
        bytes_only,
        show_bytes,
    };
    let mut widths = vec![
        Constraint::Length(if words { 8 } else { 1 }),
        Constraint::Min(8),
        Constraint::Length(7),
        Constraint::Length(7),
        // `-100.00%`: a saving is never cut.
        Constraint::Length(8),
    ];
    let mut header = vec![
        if words { "status" } else { "" },
        "tool",
        if bytes_only { "bytes" } else { "tokens" },
        "→ sent",
        "saved",
    ];
    if show_bytes {
        widths.extend([Constraint::Length(8), Constraint::Length(8)]);
        header.extend(["bytes", "→ sent"]);
    }
    // Only the visible rows are built: a thousand tools cost nothing to draw.
    // The name column's width: what the fixed columns, their gaps and the selection mark
    // leave. Names are shortened visibly (MCP prefix collapsed, middle cut) and never into
    // another tool's name, over every row, not only the visible ones.
    let fixed: usize = widths
        .iter()
        .map(|c| match c {
            Constraint::Length(n) => *n as usize,
            _ => 0,
        })
        .sum();
    // A `!` before a name with control or invisible characters takes a cell too.
    let flagged = rows.iter().any(|&i| {
        projection.outcomes[i]
            .original
            .is_some_and(|o| app.hidden_in(o) > 0)
    });
    let name_cells = (inner.width as usize)
        .saturating_sub(fixed + (widths.len() - 1) + 1 + usize::from(flagged));
    let all: Vec<&str> = rows
        .iter()
        .map(|&i| projection.outcomes[i].name.as_ref())
        .collect();
    let shown_names = display_names(&all, name_cells.max(1));
    let height = inner.height.saturating_sub(1) as usize;
    let offset = app
        .strategy_tab
        .tools
        .offset
        .min(rows.len().saturating_sub(1))
        .max(
            app.strategy_tab
                .tools
                .selected
                .saturating_sub(height.saturating_sub(1)),
        )
        .min(app.strategy_tab.tools.selected);
    let visible: Vec<Row> = rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(height.max(1))
        .map(|(at, &i)| {
            let t = figures.and_then(|f| f.per_tool.get(i));
            tool_row(app, &projection.outcomes[i], t, &shown_names[at], columns)
        })
        .collect();
    let table = Table::new(visible, widths)
        .header(Row::new(header).style(theme.heading()))
        .row_highlight_style(theme.selected(focused))
        .highlight_symbol("▌")
        .highlight_spacing(ratatui::widgets::HighlightSpacing::Always);
    let mut state =
        TableState::default().with_selected(Some(app.strategy_tab.tools.selected - offset));
    frame.render_stateful_widget(table, inner, &mut state);
}

/// One cell for a status where the word does not fit.
pub fn status_glyph(status: Status) -> &'static str {
    match status {
        Status::Kept => "=",
        Status::Changed => "~",
        Status::Removed => "-",
        Status::Deferred => "»",
        Status::Added => "+",
    }
}
