//! One strategy's tool table: every tool's status and figures before and after.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::projection::Status;
use crate::strategy::Strategy;
use crate::text::{pad_left, pct, safe, saved_pct, thousands};

use super::app::App;
use super::state::Pane;
use super::table::{Column, Columns, DataTable, TableRow, Width};
use super::textview::highlight;
use super::widgets::{block, wrap};
use crate::matrix::display_names;

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
    let show_bytes = inner.width >= 72;
    // Too narrow for both: `b` switches the figures between tokens and bytes.
    let bytes_only = !show_bytes && app.strategy_tab.bytes_view;
    let words = inner.width >= 60;
    let mut columns = vec![
        Column::new(Width::Fixed(if words { 8 } else { 1 })).gap(0),
        Column::new(Width::Fill { reserve: 8 }),
        Column::new(Width::Fixed(7)),
        Column::new(Width::Fixed(7)),
        // `-100.00%`: a saving is never cut.
        Column::new(Width::Fixed(8)),
    ];
    let mut header = vec![
        if words { "status" } else { "" },
        "tool",
        if bytes_only { "bytes" } else { "tokens" },
        "→ sent",
        "saved",
    ];
    if show_bytes {
        columns.extend([Column::new(Width::Fixed(8)), Column::new(Width::Fixed(8))]);
        header.extend(["bytes", "→ sent"]);
    }
    let layout = Columns::new(columns)
        .with_mark(1)
        .shrink_under_pressure()
        .resolve(&[], inner.width as usize);
    // The name column is what the fixed columns, their gaps and the selection mark leave.
    // Names are shortened visibly (MCP prefix collapsed, middle cut) and never into another
    // tool's name, over every row, not only the visible ones.
    // A `!` before a name with control or invisible characters takes a cell too.
    let flagged = rows.iter().any(|&i| {
        projection.outcomes[i]
            .original
            .is_some_and(|o| app.hidden_in(o) > 0)
    });
    let name_cells = layout.width(1).saturating_sub(usize::from(flagged));
    let all: Vec<&str> = rows
        .iter()
        .map(|&i| projection.outcomes[i].name.as_ref())
        .collect();
    let shown_names = display_names(&all, name_cells.max(1));
    let height = inner.height.saturating_sub(1) as usize;
    let cursor = app.strategy_tab.tools;
    let offset = cursor.first_visible(rows.len(), height);
    let look = RowLook {
        words,
        bytes_only,
        show_bytes,
    };
    // Only the visible rows are built: a thousand tools cost nothing to draw.
    let visible: Vec<TableRow> = rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(height.max(1))
        .map(|(at, &i)| {
            let row = tool_row(app, strategy, i, &shown_names[at], look);
            if at == cursor.selected {
                row.over(theme.selected(focused))
            } else {
                row
            }
        })
        .collect();
    let header = TableRow::new(header.into_iter().map(Line::raw).collect()).under(theme.heading());
    let table = DataTable::new(&layout)
        .header(header)
        .rows(visible)
        .mark(cursor.selected.checked_sub(offset), "▌");
    frame.render_widget(table, inner);
}

/// Which figures a tool row shows at the pane's width.
#[derive(Debug, Clone, Copy)]
struct RowLook {
    /// The status as a word (else a glyph).
    words: bool,
    /// Bytes instead of tokens in the figure columns (`b`, too narrow for both).
    bytes_only: bool,
    /// Byte columns beside the token ones.
    show_bytes: bool,
}

/// Outcome `i`'s row: status, name (shortened to `name`, flagged when it hides characters),
/// figures before and as sent, the saving, and the bytes when there is room.
fn tool_row(app: &App, strategy: Strategy, i: usize, name: &str, look: RowLook) -> TableRow {
    let theme = app.theme;
    let Some(projection) = app.projection(strategy) else {
        return TableRow::default();
    };
    let o = &projection.outcomes[i];
    let t = app.figures(strategy).and_then(|f| f.per_tool.get(i));
    let num = |v: Option<usize>| v.map_or("…".to_owned(), thousands);
    let (before, after) = if look.bytes_only {
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
    let name = {
        let name = highlight(name, &app.search.text, theme.text(), theme.found());
        match o.original.map(|i| app.hidden_in(i)) {
            // Flag tools that carry control or invisible characters.
            Some(n) if n > 0 => {
                let mut spans = vec![Span::styled("!", theme.warn())];
                spans.extend(name.spans);
                Line::from(spans)
            }
            _ => name,
        }
    };
    let mut cells = vec![
        Line::from(Span::styled(
            if look.words {
                o.status.word()
            } else {
                status_glyph(o.status)
            },
            theme.status(o.status),
        )),
        name,
        Line::raw(pad_left(
            &if o.original.is_some() {
                num(before)
            } else {
                "-".to_owned()
            },
            7,
        )),
        Line::raw(pad_left(&sent_tokens, 7)),
        Line::raw(pad_left(&saved, 8)),
    ];
    if look.show_bytes {
        let b = t.map(|t| t.original_bytes).filter(|_| o.original.is_some());
        let a = t
            .map(|t| t.projected_bytes)
            .filter(|_| o.projected.is_some());
        cells.push(Line::raw(pad_left(&b.map_or("-".into(), thousands), 8)));
        cells.push(Line::raw(pad_left(&a.map_or("-".into(), thousands), 8)));
    }
    TableRow::new(cells)
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
