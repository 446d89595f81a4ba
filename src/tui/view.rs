//! Drawing: a pure function of the [`App`]. The layout is computed by [`layout`], also used by
//! the update to hit-test mouse clicks against exactly the rectangles that were drawn.

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Clear, Paragraph, Row, Table, TableState};
use serde_json::Value;

use crate::projection::Status;
use crate::settings::Settings;
use crate::strategy::Strategy;
use crate::tool;

use super::app::{App, Detail, Overlay, Pane, Tab, default_export_path};
use super::diffview::{LineRef, SplitRow, ToolDiff, UniRow};
use super::keys::{self, Context, STRATEGY_KEYS};
use super::theme::Theme;
use crate::diff::LineTag;
use crate::text::{bytes, fit, pad, pad_left, pct, safe, saved_pct, skip_cells, thousands, width};

/// Smallest terminal the inspector draws in; below it, a message says so.
pub const MIN_WIDTH: u16 = 40;
/// Smallest height.
pub const MIN_HEIGHT: u16 = 10;
/// Width from which the tool table and the detail sit side by side.
const WIDE: u16 = 110;

/// The rectangles of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AppLayout {
    /// The terminal is below the minimum: only a message is drawn.
    pub too_small: bool,
    /// The title line.
    pub header: Rect,
    /// The tab bar.
    pub tabs: Rect,
    /// The strategy table (overview) or the tool table.
    pub table: Option<Rect>,
    /// The notes (overview).
    pub notes: Option<Rect>,
    /// The detail pane (strategy tab).
    pub detail: Option<Rect>,
    /// The status line.
    pub status: Rect,
    /// The key hints.
    pub footer: Rect,
}

/// Where everything goes at this size.
pub fn layout(area: Rect, app: &App) -> AppLayout {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return AppLayout {
            too_small: true,
            ..AppLayout::default()
        };
    }
    let [header, tabs, body, status, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let mut out = AppLayout {
        too_small: false,
        header,
        tabs,
        status,
        footer,
        ..AppLayout::default()
    };
    match app.tab {
        Tab::Overview => {
            let wanted = Strategy::ALL.len() as u16 + 3;
            if body.height >= wanted + 4 {
                let [table, notes] =
                    Layout::vertical([Constraint::Length(wanted), Constraint::Min(1)]).areas(body);
                out.table = Some(table);
                out.notes = Some(notes);
            } else {
                out.table = Some(body);
            }
        }
        Tab::Strategy(_) => {
            let (table, detail) = if body.width >= WIDE {
                let left = (body.width * 9 / 20).clamp(52, 84);
                let [t, d] =
                    Layout::horizontal([Constraint::Length(left), Constraint::Min(1)]).areas(body);
                (t, d)
            } else {
                let top = (body.height * 2 / 5).max(5);
                let [t, d] =
                    Layout::vertical([Constraint::Length(top), Constraint::Min(1)]).areas(body);
                (t, d)
            };
            out.table = Some(table);
            out.detail = Some(detail);
        }
    }
    out
}

/// Draw the whole frame.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let theme = app.theme;
    let l = layout(area, app);
    if l.too_small {
        render_too_small(frame, area, theme);
        return;
    }
    render_header(app, frame, l.header);
    render_tabs(app, frame, l.tabs);
    match app.tab {
        Tab::Overview => {
            if let Some(table) = l.table {
                render_overview(app, frame, table);
            }
            if let Some(notes) = l.notes {
                render_notes(app, frame, notes);
            }
        }
        Tab::Strategy(strategy) => {
            if let Some(table) = l.table {
                render_tools(app, frame, table, strategy);
            }
            if let Some(detail) = l.detail {
                render_detail(app, frame, detail, strategy);
            }
        }
    }
    render_status(app, frame, l.status);
    render_footer(app, frame, l.footer);
    match &app.overlay {
        Some(Overlay::Help { scroll }) => render_help(frame, area, theme, *scroll),
        Some(Overlay::Settings {
            selected,
            editing,
            error,
        }) => render_settings(
            app,
            frame,
            area,
            *selected,
            editing.as_deref(),
            error.as_deref(),
        ),
        Some(Overlay::Export {
            strategy,
            tools_only,
            path,
            confirm,
            error,
            ..
        }) => render_export(
            app,
            frame,
            area,
            *strategy,
            *tools_only,
            path,
            *confirm,
            error.as_deref(),
        ),
        None => {}
    }
}

fn render_too_small(frame: &mut Frame, area: Rect, theme: Theme) {
    let text = format!(
        "toolprism needs {MIN_WIDTH}x{MIN_HEIGHT} (now {}x{}). Enlarge the terminal, or press q to quit.",
        area.width, area.height
    );
    let lines = wrap(&text, area.width as usize);
    let top = area.height.saturating_sub(lines.len() as u16) / 2;
    let inner = Rect {
        y: area.y + top,
        height: area.height.saturating_sub(top),
        ..area
    };
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|l| Line::styled(l, theme.warn()))
        .collect();
    frame.render_widget(Paragraph::new(lines).alignment(Alignment::Center), inner);
}

fn render_header(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let tokens = app.capture_tokens().map_or("… tokens".to_owned(), |t| {
        format!("{} tokens", thousands(t))
    });
    // The footer lists these keys too: on a narrow terminal the title gets the room.
    let right = if area.width >= 100 {
        "? help  q quit "
    } else {
        ""
    };
    let shown_path = safe(crate::capture::display_name(&app.path));
    let parts = [
        shown_path,
        app.capture.shape().id().to_owned(),
        format!("{} tools", thousands(app.capture.tools().len())),
        bytes(app.capture_bytes),
        tokens,
        app.encoding.id().to_owned(),
    ];
    let room = (area.width as usize).saturating_sub(width(right) + 12);
    let name = std::path::Path::new(&app.path)
        .file_name()
        .map_or(app.path.clone(), |n| safe(&n.to_string_lossy()));
    // Shorten in steps: the file name for the path, then drop the encoding, then the bytes.
    let mut parts = parts.to_vec();
    let mut left = parts.join(" · ");
    let mut step = 0;
    while width(&left) > room && step < 3 {
        match step {
            0 => parts[0] = name.clone(),
            1 => {
                parts.pop();
            }
            _ => {
                parts.remove(3);
            }
        }
        left = parts.join(" · ");
        step += 1;
    }
    let left = fit(&left, room);
    let gap = (area.width as usize).saturating_sub(11 + width(&left) + width(right));
    let line = Line::from(vec![
        Span::styled(" toolprism ", theme.title(false)),
        Span::raw(left),
        Span::raw(" ".repeat(gap)),
        Span::styled(right, theme.dim()),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

fn tab_label(tab: Tab) -> String {
    match tab {
        Tab::Overview => "o Overview".to_owned(),
        Tab::Strategy(s) => format!("{} {}", STRATEGY_KEYS[tab.index() - 1], s.id()),
    }
}

/// The tabs drawn at this width: each with its first and last-plus-one column, relative to the
/// tab bar. When they do not all fit, a window around the current tab.
pub fn tab_spans(app: &App, width_cells: u16) -> Vec<(Tab, u16, u16)> {
    let tabs: Vec<Tab> = Tab::all().collect();
    let widths: Vec<u16> = tabs
        .iter()
        .map(|&t| width(&tab_label(t)) as u16 + 2)
        .collect();
    let avail = width_cells.saturating_sub(2);
    let current = app.tab.index();
    // Widen the window around the current tab while it fits.
    let (mut start, mut end) = (current, current + 1);
    let total = |s: usize, e: usize| widths[s..e].iter().sum::<u16>();
    loop {
        let mut grew = false;
        if end < tabs.len() && total(start, end + 1) <= avail {
            end += 1;
            grew = true;
        }
        if start > 0 && total(start - 1, end) <= avail {
            start -= 1;
            grew = true;
        }
        if !grew {
            break;
        }
    }
    let mut x = 1;
    let mut out = Vec::new();
    for i in start..end {
        let w = widths[i].min(width_cells.saturating_sub(x));
        out.push((tabs[i], x, x + w));
        x += w;
    }
    out
}

fn render_tabs(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let spans = tab_spans(app, area.width);
    let mut line = Vec::new();
    let first = spans.first().map(|s| s.0.index()).unwrap_or(0);
    let last = spans.last().map(|s| s.0.index()).unwrap_or(0);
    line.push(Span::styled(if first > 0 { "‹" } else { " " }, theme.dim()));
    for (tab, x0, x1) in &spans {
        let label = fit(&format!(" {} ", tab_label(*tab)), (x1 - x0) as usize);
        let style = if *tab == app.tab {
            theme.tab_active()
        } else {
            theme.text()
        };
        line.push(Span::styled(label, style));
    }
    if last + 1 < Tab::all().count() {
        line.push(Span::styled("›", theme.dim()));
    }
    frame.render_widget(Paragraph::new(Line::from(line)), area);
}

fn block(theme: Theme, title: String, focused: bool) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(theme.border_type(focused))
        .border_style(theme.border(focused))
        .title(Span::styled(title, theme.title(focused)))
}

fn render_overview(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let capture_tokens = app.capture_tokens();
    let outer = block(
        theme,
        " Strategies: tokens sent (tools + added text) · * has notes ".to_owned(),
        true,
    );
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let wide = inner.width >= 90;
    let max_total = Strategy::ALL
        .iter()
        .filter_map(|&s| app.figures(s).and_then(|f| f.total_tokens))
        .chain(capture_tokens)
        .max()
        .unwrap_or(0);
    let mut widths = vec![
        Constraint::Length(2),
        Constraint::Length(14),
        Constraint::Length(6),
        Constraint::Length(9),
        Constraint::Length(8),
    ];
    let mut header = vec!["", "strategy", "tools", "tokens", "saved"];
    if wide {
        widths.insert(2, Constraint::Length(9));
        header.insert(2, "origin");
    }
    widths.push(Constraint::Min(4));
    header.push("size");
    let fixed: u16 = if wide {
        2 + 14 + 9 + 6 + 9 + 8
    } else {
        2 + 14 + 6 + 9 + 8
    };
    let bar_width = inner.width.saturating_sub(fixed + widths.len() as u16 - 1) as usize;
    let rows: Vec<Row> = Strategy::ALL
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let figures = app.figures(s);
            let projection = app.projection(s);
            let tools = projection.map_or("…".to_owned(), |p| {
                if p.status.is_refused() {
                    "refused".to_owned()
                } else {
                    thousands(p.tool_count())
                }
            });
            // A refused projection has no figures; one that did not apply saves nothing real,
            // so neither is coloured as a saving.
            let (tokens, saved, bar, style) = match figures {
                Some(f) => match (f.total_tokens, f.saved_tokens, f.saved_pct) {
                    (Some(total), Some(saved_tokens), Some(saved_pct)) => {
                        let saving = saved_tokens >= 0;
                        let style = if f.status != "ok" {
                            theme.dim()
                        } else if saving {
                            theme.good()
                        } else {
                            theme.bad()
                        };
                        (
                            thousands(total),
                            pct(capture_tokens.map(|_| saved_pct)),
                            bar(total, max_total, bar_width),
                            style,
                        )
                    }
                    _ => ("refused".into(), "—".into(), String::new(), theme.error()),
                },
                None => ("…".into(), "…".into(), String::new(), theme.good()),
            };
            let bar_style = match figures {
                Some(f) if f.status != "ok" => theme.dim(),
                Some(f) => theme.bar(f.saved_tokens.is_some_and(|t| t >= 0)),
                None => theme.bar(true),
            };
            let noted = projection.is_some_and(|p| !p.notes.is_empty());
            let name = format!("{}{}", s.id(), if noted { " *" } else { "" });
            let mut cells = vec![
                Cell::from(Span::styled(STRATEGY_KEYS[i].to_string(), theme.key())),
                Cell::from(name),
                Cell::from(pad_left(&tools, 5)),
                Cell::from(pad_left(&tokens, 8)),
                Cell::from(Span::styled(pad_left(&saved, 7), style)),
                Cell::from(Span::styled(bar, bar_style)),
            ];
            if wide {
                cells.insert(2, Cell::from(s.origin()));
            }
            Row::new(cells)
        })
        .collect();
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.heading()))
        .row_highlight_style(theme.selected(true))
        .highlight_symbol("▌")
        .highlight_spacing(ratatui::widgets::HighlightSpacing::Always);
    let mut state = TableState::default().with_selected(Some(app.overview_sel));
    frame.render_stateful_widget(table, inner, &mut state);
}

/// A bar of `value / max` over `cells` cells, in eighths.
fn bar(value: usize, max: usize, cells: usize) -> String {
    if max == 0 || cells == 0 {
        return String::new();
    }
    let eighths = (value as u128 * cells as u128 * 8 / max as u128) as usize;
    let mut out = "█".repeat(eighths / 8);
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    out.push_str(PARTS[eighths % 8]);
    out
}

fn render_notes(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let strategy = app.strategy();
    let outer = block(
        theme,
        format!(
            " {} · {} · {} ",
            strategy.id(),
            strategy.origin(),
            strategy.family()
        ),
        false,
    );
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let w = inner.width as usize;
    let mut lines: Vec<Line> = wrap(strategy.summary(), w)
        .into_iter()
        .map(|l| Line::styled(l, theme.text()))
        .collect();
    if let Some(projection) = app.projection(strategy) {
        if projection.notes.is_empty() {
            lines.push(Line::styled("no notes", theme.dim()));
        }
        for note in &projection.notes {
            lines.extend(bullet(theme, &note_line(note), w));
        }
    }
    if let Some(f) = app.figures(strategy)
        && let Some(overhead) = f.provider_overhead_tokens
    {
        lines.push(Line::styled(
            format!("provider estimate, not in the figures: Anthropic's tool-use prompt adds ~{overhead} tokens"),
            theme.dim(),
        ));
    }
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key()),
        Span::styled(" opens it side by side with the capture", theme.dim()),
    ]));
    // Below, while there is room: the other strategies' notes, so the ones that did nothing
    // are explained at a glance.
    let others: Vec<(Strategy, &crate::projection::Note)> = Strategy::ALL
        .iter()
        .filter(|&&s| s != strategy)
        .filter_map(|&s| app.projection(s).map(|p| (s, p)))
        .flat_map(|(s, p)| p.notes.iter().map(move |n| (s, n)))
        .collect();
    if !others.is_empty() && lines.len() + 2 < inner.height as usize {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Notes of the other strategies",
            theme.heading(),
        ));
        for (s, note) in others {
            lines.extend(bullet(
                theme,
                &format!("{}: {}", s.id(), note_line(note)),
                w,
            ));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn render_tools(app: &App, frame: &mut Frame, area: Rect, strategy: Strategy) {
    let theme = app.theme;
    let focused = app.focus == Pane::Tools;
    let rows = app.rows();
    let total = app.projection(strategy).map_or(0, |p| p.outcomes.len());
    let mut title = format!(" Tools · {} ", strategy.id());
    if !app.filter.is_empty() {
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
            format!("no tool matches \"{}\"", safe(&app.filter))
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
    let bytes_only = !show_bytes && app.bytes_view;
    let words = inner.width >= 60;
    let mut widths = vec![
        Constraint::Length(if words { 8 } else { 1 }),
        Constraint::Min(8),
        Constraint::Length(7),
        Constraint::Length(7),
        Constraint::Length(7),
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
    let height = inner.height.saturating_sub(1) as usize;
    let offset = app
        .table_offset
        .min(rows.len().saturating_sub(1))
        .max(app.tool_sel.saturating_sub(height.saturating_sub(1)))
        .min(app.tool_sel);
    let visible: Vec<Row> = rows
        .iter()
        .skip(offset)
        .take(height.max(1))
        .map(|&i| {
            let o = &projection.outcomes[i];
            let t = figures.and_then(|f| f.per_tool.get(i));
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
                Cell::from(match o.original.map(|i| app.hidden_in(i)) {
                    // Flag tools that carry control or invisible characters.
                    Some(n) if n > 0 => Line::from(vec![
                        Span::styled("!", theme.warn()),
                        Span::raw(safe(&o.name)),
                    ]),
                    _ => Line::raw(safe(&o.name)),
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
                Cell::from(pad_left(&saved, 7)),
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
        })
        .collect();
    let table = Table::new(visible, widths)
        .header(Row::new(header).style(theme.heading()))
        .row_highlight_style(theme.selected(focused))
        .highlight_symbol("▌")
        .highlight_spacing(ratatui::widgets::HighlightSpacing::Always);
    let mut state = TableState::default().with_selected(Some(app.tool_sel - offset));
    frame.render_stateful_widget(table, inner, &mut state);
}

/// One cell for a status where the word does not fit.
fn status_glyph(status: Status) -> &'static str {
    match status {
        Status::Kept => "=",
        Status::Changed => "~",
        Status::Removed => "-",
        Status::Deferred => ">",
        Status::Added => "+",
    }
}

/// Whether a strategy adds text or tools worth a look.
pub fn has_added(app: &App, strategy: Strategy) -> bool {
    app.projection(strategy).is_some_and(|p| {
        p.added_text.is_some()
            || p.outcomes.iter().any(|o| o.status == Status::Added)
            || (strategy == Strategy::Code && p.tool_count() > 0)
    })
}

/// The detail's content as lines (not for the diff views, which build only visible rows).
fn text_lines(app: &App, strategy: Strategy, width_cells: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    match app.detail {
        Detail::Request => request_lines(app, strategy, width_cells),
        Detail::Added => added_lines(app, strategy, width_cells),
        _ => {
            let _ = theme;
            Vec::new()
        }
    }
}

/// How many rows the detail has at the current size (for scrolling).
pub fn detail_len(app: &App) -> usize {
    let area = Rect::new(0, 0, app.size.0, app.size.1);
    let Some(detail) = layout(area, app).detail else {
        return 0;
    };
    let Tab::Strategy(strategy) = app.tab else {
        return 0;
    };
    let inner_w = detail.width.saturating_sub(2) as usize;
    match app.detail {
        Detail::Entries => {
            let (left, right) = entry_panes(detail);
            let (original, sent) = app.selected_entries().unwrap_or((None, None));
            let a = entry_text(app, original, left.width.saturating_sub(2) as usize).len();
            let b = entry_text(app, sent, right.width.saturating_sub(2) as usize).len();
            if left.y == right.y {
                a.max(b)
            } else {
                a.max(b) + 2
            }
        }
        Detail::Unified | Detail::Split => app.selected_diff().map_or(0, |d| {
            // The diff body sits under the info line, inside the border.
            diff_lines(app, &d, inner_w).len() + 1
        }),
        Detail::Request | Detail::Added => text_lines(app, strategy, inner_w).len(),
    }
}

fn entry_panes(detail: Rect) -> (Rect, Rect) {
    let body = Rect {
        y: detail.y + 1,
        height: detail.height.saturating_sub(1),
        ..detail
    };
    if body.width >= 70 {
        let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(body);
        (a, b)
    } else {
        let [a, b] =
            Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
        (a, b)
    }
}

fn entry_text(app: &App, entry: Option<&Value>, cells: usize) -> Vec<String> {
    let Some(entry) = entry else {
        return Vec::new();
    };
    let pretty = tool::pretty(entry);
    let mut out = Vec::new();
    for line in pretty.lines() {
        let line = safe(line);
        if app.wrap {
            out.extend(wrap(&line, cells.max(1)));
        } else {
            out.push(line);
        }
    }
    out
}

fn render_detail(app: &App, frame: &mut Frame, area: Rect, strategy: Strategy) {
    let theme = app.theme;
    let focused = app.focus == Pane::Detail;
    let projection = app.projection(strategy);
    let outcome = app
        .selected_outcome()
        .and_then(|i| projection.and_then(|p| p.outcomes.get(i)));
    let name = outcome.map_or(String::new(), |o| safe(&o.name));
    let tool_detail = matches!(
        app.detail,
        Detail::Entries | Detail::Unified | Detail::Split
    );
    // The info line says what happened to the selected tool.
    let info = match (outcome, tool_detail) {
        (Some(o), true) => {
            let t = app
                .figures(strategy)
                .and_then(|f| f.per_tool.get(app.selected_outcome().unwrap_or(0)));
            let mut spans = vec![
                Span::styled(format!("{} ", o.status.word()), theme.status(o.status)),
                Span::styled(name.clone(), theme.title(false)),
            ];
            if let Some(t) = t {
                spans.push(Span::raw(format!(
                    " · {} → {} tokens · {} → {} bytes",
                    thousands(t.original_tokens),
                    thousands(t.projected_tokens),
                    thousands(t.original_bytes),
                    thousands(t.projected_bytes)
                )));
            }
            if let Some(n) = o.original.map(|i| app.hidden_in(i)).filter(|&n| n > 0) {
                spans.push(Span::styled(
                    format!(" · {n} control/invisible chars shown as escapes"),
                    theme.warn(),
                ));
            }
            if !o.reason.is_empty() {
                spans.push(Span::styled(format!(" · {}", safe(&o.reason)), theme.dim()));
            }
            Some(Line::from(spans))
        }
        _ => None,
    };
    let title = if tool_detail && !name.is_empty() {
        format!(" {} · {} ", app.detail.label(), fit(&name, 40))
    } else {
        format!(" {} · {} ", app.detail.label(), strategy.id())
    };
    match app.detail {
        Detail::Entries => {
            let [info_area, _] =
                Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
            let mut spans = vec![Span::styled("entries │ ", theme.title(focused))];
            spans.extend(info.map(|l| l.spans).unwrap_or_default());
            frame.render_widget(Paragraph::new(Line::from(spans)), info_area);
            let (left, right) = entry_panes(area);
            let (original, sent) = app.selected_entries().unwrap_or((None, None));
            let status = outcome.map(|o| o.status);
            let left_empty = if outcome.is_some() {
                "(not in the capture: added by the strategy)"
            } else {
                ""
            };
            let right_empty = match (status, outcome) {
                (Some(Status::Deferred), _) => "(deferred: not sent; loadable through tool_search)",
                (Some(_), Some(o)) if o.projected.is_none() => "(not sent)",
                _ => "",
            };
            let short = fit(&name, (left.width as usize).saturating_sub(16));
            render_entry(
                app,
                frame,
                left,
                format!(" original · {short} "),
                original,
                left_empty,
                focused,
            );
            render_entry(
                app,
                frame,
                right,
                format!(" {} ", strategy.id()),
                sent,
                right_empty,
                focused,
            );
        }
        Detail::Unified | Detail::Split => {
            let outer = block(theme, title, focused);
            let inner = outer.inner(area);
            frame.render_widget(outer, area);
            let [info_area, body] =
                Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
            frame.render_widget(Paragraph::new(info.unwrap_or_default()), info_area);
            render_diff(app, frame, body);
        }
        Detail::Request | Detail::Added => {
            let outer = block(theme, title, focused);
            let inner = outer.inner(area);
            frame.render_widget(outer, area);
            let lines = text_lines(app, strategy, inner.width as usize);
            let scroll = app
                .scroll
                .min(lines.len().saturating_sub(inner.height as usize));
            let visible: Vec<Line> = lines
                .into_iter()
                .skip(scroll)
                .take(inner.height as usize)
                .collect();
            frame.render_widget(Paragraph::new(visible), inner);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn render_entry(
    app: &App,
    frame: &mut Frame,
    area: Rect,
    title: String,
    entry: Option<&Value>,
    empty: &str,
    focused: bool,
) {
    let theme = app.theme;
    let outer = block(theme, title, focused);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let lines = entry_text(app, entry, inner.width as usize);
    if lines.is_empty() {
        let text: Vec<Line> = wrap(empty, inner.width as usize)
            .into_iter()
            .map(|l| Line::styled(l, theme.dim()))
            .collect();
        frame.render_widget(Paragraph::new(text), inner);
        return;
    }
    let scroll = app
        .scroll
        .min(lines.len().saturating_sub(inner.height as usize));
    let visible: Vec<Line> = lines
        .iter()
        .skip(scroll)
        .take(inner.height as usize)
        .map(|l| Line::raw(fit(&skip_cells(l, app.hscroll), inner.width as usize)))
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
}

fn render_diff(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let Some(diff) = app.selected_diff() else {
        frame.render_widget(
            Paragraph::new(Line::styled("no tool selected", theme.dim())),
            area,
        );
        return;
    };
    if diff.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!("no change under {}", app.strategy()),
                theme.dim(),
            )),
            area,
        );
        return;
    }
    let lines = diff_lines(app, &diff, area.width as usize);
    let height = area.height as usize;
    let scroll = app.scroll.min(lines.len().saturating_sub(height));
    let visible: Vec<Line> = lines.into_iter().skip(scroll).take(height).collect();
    frame.render_widget(Paragraph::new(visible), area);
}

/// A diff line's segments, sanitized, as visual rows of at most `cells` cells each: wrapped
/// when wrapping is on, else scrolled by `hscroll` and cut.
fn segment_rows(app: &App, segments: &[(bool, String)], cells: usize) -> Vec<Vec<(bool, String)>> {
    let cells = cells.max(1);
    let mut rows: Vec<Vec<(bool, String)>> = vec![Vec::new()];
    let mut used = 0;
    let mut skipped = 0;
    for (changed, text) in segments {
        for c in safe(text).chars() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if !app.wrap && skipped < app.hscroll {
                skipped += w;
                continue;
            }
            if used + w > cells {
                if !app.wrap {
                    break;
                }
                rows.push(Vec::new());
                used = 0;
            }
            let row = rows.last_mut().expect("one row at least");
            match row.last_mut() {
                Some((ch, piece)) if ch == changed => piece.push(c),
                _ => row.push((*changed, c.to_string())),
            }
            used += w;
        }
    }
    rows
}

/// Every visual line of the selected tool's diff at this width (the detail's scroll range).
fn diff_lines(app: &App, diff: &ToolDiff, w: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let fold = |n: usize| {
        let text = if n == 1 {
            "⋯ 1 unchanged line".to_owned()
        } else {
            format!("⋯ {n} unchanged lines")
        };
        Line::styled(fit(&text, w), theme.dim())
    };
    let style_of = |tag: LineTag| match tag {
        LineTag::Equal => theme.text(),
        LineTag::Delete => theme.del(),
        LineTag::Insert => theme.ins(),
    };
    // One side of a row as visual lines: the sign, then the text (changed words emphasised).
    let side = |at: Option<LineRef>, cells: usize| -> Vec<Vec<Span<'static>>> {
        let Some(line) = at.and_then(|at| diff.line(at)) else {
            return Vec::new();
        };
        let base = style_of(line.tag);
        segment_rows(app, &line.segments, cells)
            .into_iter()
            .map(|row| {
                // The sign repeats on wrapped lines, so the meaning survives without colour.
                let mut spans = vec![Span::styled(line.tag.sign().to_string(), base)];
                for (changed, text) in row {
                    let style = if changed { theme.emphasis(base) } else { base };
                    spans.push(Span::styled(text, style));
                }
                spans
            })
            .collect()
    };
    let mut lines = Vec::new();
    match app.detail {
        Detail::Split => {
            // Equal content widths on both sides, so long lines break at the same place.
            let cells = (w.saturating_sub(1) / 2).saturating_sub(1);
            for row in &diff.split {
                match *row {
                    SplitRow::Fold(n) => lines.push(fold(n)),
                    SplitRow::Pair(old, new) => {
                        let left = side(old, cells);
                        let right = side(new, cells);
                        for k in 0..left.len().max(right.len()).max(1) {
                            let mut spans = left.get(k).cloned().unwrap_or_default();
                            let used: usize = spans.iter().map(|s| width(&s.content)).sum();
                            spans.push(Span::raw(" ".repeat((cells + 1).saturating_sub(used))));
                            spans.push(Span::styled("│", theme.dim()));
                            spans.extend(right.get(k).cloned().unwrap_or_default());
                            lines.push(Line::from(spans));
                        }
                    }
                }
            }
        }
        _ => {
            for row in &diff.unified {
                match *row {
                    UniRow::Fold(n) => lines.push(fold(n)),
                    UniRow::Line(at) => lines.extend(
                        side(Some(at), w.saturating_sub(1))
                            .into_iter()
                            .map(Line::from),
                    ),
                }
            }
        }
    }
    lines
}

/// A note as a `* ` bullet wrapped to `cells`, its continuation lines indented under the text.
fn bullet(theme: Theme, text: &str, cells: usize) -> Vec<Line<'static>> {
    wrap(text, cells.saturating_sub(2))
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let lead = if i == 0 { "* " } else { "  " };
            Line::from(vec![Span::styled(lead, theme.warn()), Span::raw(l)])
        })
        .collect()
}

fn kv(theme: Theme, key: &str, value: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(pad(key, 22), theme.dim()),
        Span::raw(value),
    ])
}

fn request_lines(app: &App, strategy: Strategy, w: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let mut lines = Vec::new();
    let Some(projection) = app.projection(strategy) else {
        return vec![Line::styled("projecting…", theme.dim())];
    };
    if let Some(r) = app.request(strategy) {
        let t = &r.tools;
        lines.push(Line::styled(
            "Tools array (compact JSON, what a prompt cache sees first)",
            theme.heading(),
        ));
        lines.push(kv(
            theme,
            "bytes",
            format!(
                "{} → {}",
                thousands(t.before_bytes),
                thousands(t.after_bytes)
            ),
        ));
        lines.push(kv(
            theme,
            "removed",
            format!("{} bytes", thousands(t.bytes_removed)),
        ));
        lines.push(kv(
            theme,
            "added",
            format!("{} bytes", thousands(t.bytes_added)),
        ));
        lines.push(kv(
            theme,
            "first changed byte",
            match t.first_changed_byte {
                Some(b) => format!(
                    "{} (a provider's prompt cache keeps the {} bytes before it)",
                    thousands(b),
                    thousands(b)
                ),
                None => "none: the tools are sent byte for byte".to_owned(),
            },
        ));
        lines.push(kv(
            theme,
            "request body",
            format!(
                "{} → {} bytes",
                thousands(r.body_before),
                thousands(r.body_after)
            ),
        ));
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled("Figures", theme.heading()));
    lines.push(kv(
        theme,
        "tools",
        format!(
            "{} → {}",
            thousands(app.capture.tools().len()),
            thousands(projection.tool_count())
        ),
    ));
    if let Some(f) = app.figures(strategy)
        && f.is_refused()
    {
        lines.push(kv(theme, "tokens", "refused: no figures".to_owned()));
    } else if let Some(f) = app.figures(strategy)
        && let Some(e) = &f.estimates
    {
        if let Some(c) = app.capture_tokens() {
            lines.push(kv(
                theme,
                "tokens",
                format!(
                    "{} → {} + {} added = {} (saved {})",
                    thousands(c),
                    thousands(f.tools_tokens.unwrap_or(0)),
                    thousands(f.added_tokens.unwrap_or(0)),
                    thousands(f.total_tokens.unwrap_or(0)),
                    pct(f.saved_pct)
                ),
            ));
        }
        lines.push(kv(
            theme,
            "origins' estimates",
            format!(
                "vtcode {} · a3s {} · zero {} · lean-ctx {}",
                thousands(e.vtcode),
                thousands(e.a3s),
                thousands(e.zero),
                thousands(e.lean_ctx)
            ),
        ));
        if let Some(o) = f.provider_overhead_tokens {
            lines.push(kv(
                theme,
                "provider overhead",
                format!("~{o} tokens (Anthropic's tool-use prompt; not in the figures)"),
            ));
        }
    } else {
        lines.push(Line::styled("measuring…", theme.dim()));
    }
    if projection.drop_tool_choice {
        lines.push(kv(theme, "tool_choice", "removed".to_owned()));
    }
    if !projection.notes.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Notes", theme.heading()));
        for note in &projection.notes {
            lines.extend(bullet(theme, &note_line(note), w));
        }
    }
    lines
}

/// A note as one sanitized line, its level in front unless it is only an explanation.
fn note_line(note: &crate::projection::Note) -> String {
    match note.level {
        crate::projection::Level::Info => safe(&note.text),
        level => format!("{}: {}", level.word(), safe(&note.text)),
    }
}

fn added_lines(app: &App, strategy: Strategy, w: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let Some(projection) = app.projection(strategy) else {
        return vec![Line::styled("projecting…", theme.dim())];
    };
    let mut lines = Vec::new();
    let text_block = |lines: &mut Vec<Line<'static>>, heading: String, text: &str| {
        lines.push(Line::styled(heading, theme.heading()));
        for raw in text.split('\n') {
            for l in wrap(&safe(raw), w.max(1)) {
                lines.push(Line::raw(l));
            }
        }
        lines.push(Line::raw(""));
    };
    if let Some(text) = &projection.added_text {
        let tokens = app.figures(strategy).map_or(String::new(), |f| {
            format!(" · {} tokens", thousands(f.added_tokens.unwrap_or(0)))
        });
        let place = if app.capture.shape() == crate::capture::Shape::McpToolsList {
            "reported only: an MCP tools/list capture has no messages to carry it"
        } else {
            "sent as a user message"
        };
        text_block(
            &mut lines,
            format!("Text added outside tools ({place}){tokens}"),
            text,
        );
    }
    for o in &projection.outcomes {
        let Some(p) = o.projected else { continue };
        let catalog = strategy == Strategy::Code;
        if o.status != Status::Added && !catalog {
            continue;
        }
        let Some(entry) = projection.sent.as_ref().and_then(|s| s.get(p)) else {
            continue;
        };
        let description = tool::description(entry.entry(&app.capture)).unwrap_or("");
        let heading = if o.status == Status::Added {
            format!("Added tool {} · description", safe(&o.name))
        } else {
            format!(
                "{} · description (the catalog of the other tools)",
                safe(&o.name)
            )
        };
        text_block(&mut lines, heading, description);
    }
    if lines.is_empty() {
        lines.push(Line::styled(
            format!("{strategy} adds no text and no tools"),
            theme.dim(),
        ));
    }
    lines
}

const SPINNER: [&str; 4] = ["|", "/", "-", "\\"];

fn render_status(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let w = area.width as usize;
    let mut right = String::new();
    if let Some((done, total, what)) = app.progress {
        right = format!(
            "{} {what} {done}/{total} ",
            SPINNER[app.spinner % SPINNER.len()]
        );
    }
    let left: Line = if app.searching {
        Line::from(vec![
            Span::styled(" /", theme.key()),
            Span::styled(format!("{}▏", safe(&app.filter)), theme.input()),
            Span::styled(
                format!("  {} match · Enter keeps · Esc clears", app.rows().len()),
                theme.dim(),
            ),
        ])
    } else if let Some((message, error)) = &app.status {
        Line::styled(
            format!(" {message}"),
            if *error { theme.error() } else { theme.good() },
        )
    } else {
        let s = app.strategy();
        let mut text = match (app.figures(s), app.capture_tokens()) {
            (Some(f), _) if f.is_refused() => {
                format!(" {}: refused by the host, no figures", s.id())
            }
            (Some(f), Some(c)) => format!(
                " {}: {} → {} tokens (saved {}) · {} → {} tools",
                s.id(),
                thousands(c),
                thousands(f.total_tokens.unwrap_or(0)),
                pct(f.saved_pct),
                thousands(app.capture.tools().len()),
                thousands(f.tools.unwrap_or(0))
            ),
            _ => format!(" {}: measuring…", s.id()),
        };
        if let Tab::Strategy(_) = app.tab {
            text.push_str(&format!(" · sort {}", app.sort.label()));
            if !app.filter.is_empty() {
                text.push_str(&format!(" · filter \"{}\"", safe(&app.filter)));
            }
        }
        Line::styled(text, theme.text())
    };
    let left_w: usize = left.spans.iter().map(|s| width(&s.content)).sum();
    let room = w.saturating_sub(width(&right));
    let mut spans: Vec<Span> = Vec::new();
    let mut used = 0;
    for span in left.spans {
        if used >= room {
            break;
        }
        let piece = fit(&span.content, room - used);
        used += width(&piece);
        spans.push(Span::styled(piece, span.style));
    }
    let _ = left_w;
    spans.push(Span::raw(" ".repeat(room.saturating_sub(used))));
    spans.push(Span::styled(fit(&right, w), theme.warn()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn render_footer(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let w = area.width as usize;
    let hints = keys::hints(app.context());
    let cost = |(key, what): &(&str, &str)| width(key) + 1 + width(what) + 2;
    // The help hint always stays: the others give way, last first, when the line is short.
    let help = hints.iter().find(|(_, what)| *what == "help").copied();
    let reserve = help.as_ref().map_or(0, cost);
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    let mut shown_help = false;
    for hint in &hints {
        let piece = cost(hint);
        let is_help = Some(*hint) == help;
        let room = if is_help || shown_help {
            w
        } else {
            w.saturating_sub(reserve)
        };
        if used + piece > room {
            continue;
        }
        shown_help |= is_help;
        spans.push(Span::styled(hint.0, theme.key()));
        spans.push(Span::styled(format!(" {}  ", hint.1), theme.dim()));
        used += piece;
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

fn help_lines(theme: Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (context, bindings) in keys::help_sections() {
        if bindings.is_empty() {
            continue;
        }
        lines.push(Line::styled(context.title(), theme.heading()));
        for (label, help) in bindings {
            lines.push(Line::from(vec![
                Span::styled(format!("  {}", pad(label, 14)), theme.key()),
                Span::raw(help),
            ]));
        }
        lines.push(Line::raw(""));
    }
    lines
}

/// Lines in the help overlay.
pub fn help_len() -> usize {
    help_lines(Theme::new(false)).len()
}

fn render_help(frame: &mut Frame, area: Rect, theme: Theme, scroll: usize) {
    let rect = centered(area, 76, area.height.saturating_sub(2));
    frame.render_widget(Clear, rect);
    let outer = block(
        theme,
        " Keys (from the key table) · Esc closes ".to_owned(),
        true,
    );
    let inner = outer.inner(rect);
    frame.render_widget(outer, rect);
    let lines = help_lines(theme);
    let scroll = scroll.min(lines.len().saturating_sub(inner.height as usize));
    let visible: Vec<Line> = lines
        .into_iter()
        .skip(scroll)
        .take(inner.height as usize)
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
}

fn render_settings(
    app: &App,
    frame: &mut Frame,
    area: Rect,
    selected: usize,
    editing: Option<&str>,
    error: Option<&str>,
) {
    let theme = app.theme;
    let rows = Settings::KEYS.len() + 1;
    let rect = centered(area, 84, rows as u16 + 7);
    frame.render_widget(Clear, rect);
    let outer = block(
        theme,
        " Settings · changes re-project and re-measure every strategy ".to_owned(),
        true,
    );
    let inner = outer.inner(rect);
    frame.render_widget(outer, rect);
    let w = inner.width as usize;
    let key_w = 22.min(w / 2);
    let mut lines: Vec<Line> = Vec::new();
    let defaults = Settings::default();
    for i in 0..rows {
        let (key, value, changed) = if i < Settings::KEYS.len() {
            let key = Settings::KEYS[i].key;
            let value = app.settings.get(key).unwrap_or_default();
            let changed = defaults.get(key).unwrap_or_default() != value;
            (key, value, changed)
        } else {
            let changed = app.encoding != crate::measure::Encoding::default();
            ("encoding", app.encoding.id().to_owned(), changed)
        };
        let shown = match editing {
            Some(text) if i == selected => format!("{}▏", safe(text)),
            _ => safe(&value),
        };
        let marker = if changed { "*" } else { " " };
        let text = format!(
            "{marker}{} {}",
            pad(key, key_w),
            fit(&shown, w.saturating_sub(key_w + 2))
        );
        let style = if i == selected {
            if editing.is_some() {
                theme.input()
            } else {
                theme.selected(true)
            }
        } else {
            theme.text()
        };
        lines.push(Line::styled(pad(&text, w), style));
    }
    lines.push(Line::raw(""));
    let help = if selected < Settings::KEYS.len() {
        Settings::KEYS[selected].help
    } else {
        "o200k_base (GPT-4o and later) or cl100k_base (GPT-4); Enter switches"
    };
    lines.push(Line::styled(fit(help, w), theme.dim()));
    if let Some(e) = error {
        for l in wrap(&safe(e), w) {
            lines.push(Line::styled(l, theme.error()));
        }
    } else {
        lines.push(Line::styled(
            "* differs from the default · Enter edits · R resets all · Esc closes",
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

#[allow(clippy::too_many_arguments)]
fn render_export(
    app: &App,
    frame: &mut Frame,
    area: Rect,
    strategy: Strategy,
    tools_only: bool,
    path: &str,
    confirm: bool,
    error: Option<&str>,
) {
    let theme = app.theme;
    let rect = centered(area, 72, 10);
    frame.render_widget(Clear, rect);
    let outer = block(theme, format!(" Export {} ", strategy.id()), true);
    let inner = outer.inner(rect);
    frame.render_widget(outer, rect);
    let w = inner.width as usize;
    let choice = |on: bool, label: &str| -> Span<'static> {
        let text = format!("{} {label}", if on { "(•)" } else { "( )" });
        Span::styled(
            text,
            if on {
                theme.selected(true)
            } else {
                theme.text()
            },
        )
    };
    let mut lines = vec![
        Line::from(vec![
            choice(!tools_only, "request body"),
            Span::raw("   "),
            choice(tools_only, "tools only"),
            Span::styled("   Tab switches", theme.dim()),
        ]),
        Line::raw(""),
        Line::from(vec![
            Span::styled("path ", theme.dim()),
            Span::styled(
                format!("{}▏", fit(&safe(path), w.saturating_sub(7))),
                theme.input(),
            ),
        ]),
        Line::styled(
            fit(
                &format!(
                    "compact JSON, written atomically; default {}",
                    default_export_path(&app.path, strategy, tools_only)
                ),
                w,
            ),
            theme.dim(),
        ),
        Line::raw(""),
    ];
    if confirm && let Some(e) = error {
        for l in wrap(&safe(e), w) {
            lines.push(Line::styled(l, theme.error()));
        }
        lines.push(Line::styled("Write it anyway? y / n", theme.warn()));
    } else if confirm {
        lines.push(Line::styled(
            fit(&format!("{} exists. Overwrite it? y / n", safe(path)), w),
            theme.warn(),
        ));
    } else if let Some(e) = error {
        for l in wrap(&safe(e), w) {
            lines.push(Line::styled(l, theme.error()));
        }
    } else {
        lines.push(Line::styled("Enter writes · Esc cancels", theme.dim()));
    }
    frame.render_widget(Paragraph::new(lines), inner);
    let _ = Context::Export;
}

/// Wrap `text` into lines of at most `cells` cells, preferring to break after a space.
pub fn wrap(text: &str, cells: usize) -> Vec<String> {
    if cells == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    let mut last_space: Option<(usize, usize)> = None; // byte index after the space, cells
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > cells && !line.is_empty() {
            match last_space {
                Some((at, cut_cells)) if cut_cells > cells / 2 => {
                    let rest = line.split_off(at);
                    out.push(std::mem::take(&mut line));
                    used = width(&rest);
                    line = rest;
                }
                _ => {
                    out.push(std::mem::take(&mut line));
                    used = 0;
                }
            }
            last_space = None;
        }
        line.push(c);
        used += w;
        if c == ' ' {
            last_space = Some((line.len(), used));
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_and_never_exceeds_width() {
        let lines = wrap("the quick brown fox jumps over the lazy dog", 10);
        assert!(lines.iter().all(|l| width(l) <= 10), "{lines:?}");
        assert_eq!(
            lines.concat(),
            "the quick brown fox jumps over the lazy dog"
        );
        assert_eq!(wrap("", 5), vec![String::new()]);
        assert!(wrap("abc", 0).is_empty());
        let cjk = wrap("日本語日本語", 5);
        assert!(cjk.iter().all(|l| width(l) <= 5), "{cjk:?}");
    }

    #[test]
    fn bars_scale_in_eighths() {
        assert_eq!(bar(10, 10, 4), "████");
        assert_eq!(bar(5, 10, 4), "██");
        assert_eq!(bar(0, 10, 4), "");
        assert_eq!(bar(1, 0, 4), "");
    }
}
