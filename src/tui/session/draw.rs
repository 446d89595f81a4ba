//! Drawing the session view: a pure function of the [`SessionApp`] (its view model from
//! [`super`], its turn diff from [`super::diff`]). Where everything goes is
//! [`layout`], shared with the update's page sizes.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

use crate::text::{fit, pad, pad_left, safe, thousands, width};

use super::SessionView;
use super::app::{Focus, Screen, SessionApp};
use super::diff::{Change, TurnDiff};
use super::text::{count, detail_lines, diff_lines};
use crate::tui::layout::session_layout;
use crate::tui::state::ListCursor;
use crate::tui::table::{Column, Columns, DataTable, Resolved, TableRow, Width};
use crate::tui::theme::Theme;
use crate::tui::widgets::{block, render_scrolled, wrap};

/// Draw the whole session frame.
pub fn render(app: &SessionApp, frame: &mut Frame) {
    if app.screen == Screen::Single
        && let Some(single) = &app.single
    {
        crate::tui::view::render(single, frame);
        return;
    }
    let area = frame.area();
    let theme = app.theme;
    let l = session_layout(
        area,
        app.top,
        app.report.as_ref().map_or(0, |r| r.strategies.len()),
    );
    if l.too_small {
        crate::tui::view::render_too_small(frame, area, theme);
        return;
    }
    render_header(app, frame, l.header);
    let view = app.view();
    match (app.screen, &app.diff) {
        (Screen::Diff, Some(diff)) => {
            let body = Rect::new(
                area.x,
                area.y + 1,
                area.width,
                area.height.saturating_sub(3),
            );
            render_diff(app, diff, frame, body);
        }
        _ => match &view {
            None => {
                let body = Rect::new(
                    area.x,
                    area.y + 1,
                    area.width,
                    area.height.saturating_sub(3),
                );
                let text = format!(
                    "Reading {}: {} so far…",
                    safe(&app.name),
                    count(app.turns_read, "turn", "turns")
                );
                let lines: Vec<Line> = wrap(&text, body.width.saturating_sub(2) as usize)
                    .into_iter()
                    .map(|t| Line::styled(format!(" {t}"), theme.dim()))
                    .collect();
                frame.render_widget(Paragraph::new(lines), body);
            }
            Some(view) => {
                if let Some(r) = l.chart {
                    render_chart(app, view, frame, r);
                }
                if let Some(r) = l.totals {
                    render_totals(app, view, frame, r);
                }
                if let Some(r) = l.turns {
                    render_turns(app, view, frame, r);
                }
                if let Some(r) = l.detail {
                    render_detail(app, frame, r);
                }
            }
        },
    }
    render_status(app, view.as_deref(), frame, l.status);
    crate::tui::view::render_hints(theme, app.context(), frame, l.footer);
    if let Some(help) = &app.help {
        help.render(frame, area, theme);
    }
}

fn render_header(app: &SessionApp, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let w = area.width as usize;
    let full_width = |parts: &[String]| 13 + parts.iter().map(|p| width(p) + 3).sum::<usize>();
    let mut parts: Vec<String> = match &app.report {
        Some(_) => app.view().map(|v| v.header.clone()).unwrap_or_default(),
        None => vec![
            safe(&app.name),
            app.format.to_owned(),
            format!("reading… {}", count(app.turns_read, "turn", "turns")),
        ],
    };
    // Live: said right after the name, in the longest form that fits beside it.
    if let Some(live) = &app.live {
        // The trace as the user named it (the report names it by the follower's path).
        if let Some(first) = parts.first_mut() {
            *first = safe(&app.name);
        }
        let name = parts.first().map_or(0, |p| width(p));
        let room = w.saturating_sub(13 + name + 3 + 1);
        let tag = live_tags(live)
            .into_iter()
            .find(|t| width(t) <= room)
            .unwrap_or_else(|| "● live".to_owned());
        parts.insert(parts.len().min(1), tag);
    }
    // The footer lists these keys too: the trace's figures get the room first.
    let right = if w >= 100 && full_width(&parts) + 15 <= w {
        "? help  q quit "
    } else {
        ""
    };
    // The name goes first and is never dropped; the other parts give way from the end.
    let room = w.saturating_sub(width(right) + 1);
    let mut text = " toolprism · ".to_owned();
    for (i, part) in parts.iter().enumerate() {
        let piece = if i == 0 {
            part.clone()
        } else {
            format!(" · {part}")
        };
        if i > 0 && width(&text) + width(&piece) > room {
            break;
        }
        text.push_str(&piece);
    }
    let text = fit(&text, room);
    let gap = w.saturating_sub(width(&text) + width(right));
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(text, theme.title(false)),
            Span::raw(" ".repeat(gap)),
            Span::styled(right, theme.dim()),
        ])),
        area,
    );
}

/// The live mark of the header, longest first: with `record`, the calls recorded and those
/// under way.
fn live_tags(live: &super::app::Live) -> Vec<String> {
    match live.calls {
        Some((recorded, in_flight)) => vec![
            format!(
                "● live · recording · {} · {} in flight",
                count(recorded, "call", "calls"),
                thousands(in_flight)
            ),
            format!(
                "● live · {} · {} in flight",
                count(recorded, "call", "calls"),
                thousands(in_flight)
            ),
            format!("● live · {}", count(recorded, "call", "calls")),
            "● live".to_owned(),
        ],
        None => vec!["● live · following".to_owned(), "● live".to_owned()],
    }
}

/// The series' styles and markers: the marker tells them apart without colour.
fn series_style(theme: Theme, i: usize) -> (Style, Marker, &'static str) {
    const COLORS: [Color; 4] = [Color::Cyan, Color::Green, Color::Magenta, Color::Yellow];
    let style = if theme.is_color() {
        Style::new().fg(COLORS[i % COLORS.len()])
    } else {
        Style::new()
    };
    // Five shapes, so up to five series never share one (four colours alone repeat).
    match i % 5 {
        0 => (style, Marker::Braille, "⣀"),
        1 => (style, Marker::Dot, "•"),
        2 => (style, Marker::HalfBlock, "▀"),
        3 => (style, Marker::Bar, "▄"),
        _ => (style, Marker::Block, "█"),
    }
}

fn render_chart(app: &SessionApp, view: &SessionView, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    // Too short for a legend row (under 4 rows inside): the legend goes into the title.
    let glyphs: Vec<String> = (view.series.iter().enumerate())
        .map(|(i, s)| format!("{} {}", series_style(theme, i).2, s.id))
        .collect();
    let title = if area.height < 4 {
        " Breaks · ▲ cache · * list changed ".to_owned()
    } else if area.height < 6 && !glyphs.is_empty() {
        format!(" {} · ▲ cache · * list changed ", glyphs.join("  "))
    } else {
        format!(" Tokens sent per turn · 0–{} ", thousands(view.max_tokens))
    };
    // A title too long for the box ends in a mark, never in half a word.
    let title = fit(&title, usize::from(area.width.saturating_sub(2)));
    let outer = block(theme, title, false);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    // Legend on the first row (when there is room for a plot under it), the break marks on the
    // last, the chart between.
    let legend_rows = u16::from(inner.height >= 4);
    let mut legend: Vec<Span> = vec![];
    for (i, s) in view.series.iter().enumerate() {
        let (style, _, glyph) = series_style(theme, i);
        legend.push(Span::styled(format!("{glyph} "), style));
        legend.push(Span::raw(format!("{}  ", s.id)));
    }
    if view.series.is_empty() {
        legend.push(Span::styled(
            "nothing charted · Tab, then Space on a strategy",
            theme.dim(),
        ));
    }
    if legend_rows > 0 {
        frame.render_widget(
            Paragraph::new(Line::from(legend)),
            Rect::new(inner.x, inner.y, inner.width, 1),
        );
    }
    // Under the plot: the break marks, then (with room) the turn numbers.
    let axis_rows = u16::from(inner.height >= 4 + legend_rows);
    let marks = Rect::new(
        inner.x,
        inner.y + inner.height - 1 - axis_rows,
        inner.width,
        1,
    );
    // With a single row only the break marks are drawn: the most telling part.
    let plot = (inner.height >= 2 + legend_rows + axis_rows).then(|| {
        Rect::new(
            inner.x,
            inner.y + legend_rows,
            inner.width,
            inner.height - 1 - legend_rows - axis_rows,
        )
    });
    let x_max = view.x_max();
    let y_max = (view.max_tokens.max(1) as f64) * 1.05;
    // One dataset per run of a thread, so no line joins two threads across their gap.
    let runs: Vec<(usize, Vec<(f64, f64)>)> = view
        .series
        .iter()
        .enumerate()
        .flat_map(|(i, s)| view.runs(s).into_iter().map(move |run| (i, run)))
        .collect();
    let datasets: Vec<Dataset> = runs
        .iter()
        .map(|(i, run)| {
            let (style, marker, _) = series_style(theme, *i);
            Dataset::default()
                .marker(marker)
                .graph_type(if run.len() > 1 {
                    GraphType::Line
                } else {
                    GraphType::Scatter
                })
                .style(style)
                .data(run)
        })
        .collect();
    let chart = Chart::new(datasets)
        .x_axis(Axis::default().bounds([0.0, x_max]))
        .y_axis(Axis::default().bounds([0.0, y_max]))
        .hidden_legend_constraints((
            ratatui::layout::Constraint::Length(0),
            ratatui::layout::Constraint::Length(0),
        ));
    if let Some(plot) = plot {
        frame.render_widget(chart, plot);
    }
    // Each turn's mark under its column: ▲ the observed cache broke, * a charted list changed;
    // a space where the thread changes.
    let w = marks.width as usize;
    let column = |i: usize| -> usize {
        let x = view.x.get(i).copied().unwrap_or(0.0);
        ((x / x_max * w.saturating_sub(1) as f64).round() as usize).min(w.saturating_sub(1))
    };
    let mut row: Vec<char> = vec![' '; w];
    if w > 0 {
        for i in 0..view.turns.len() {
            row[column(i)] = '·';
        }
        for (i, t) in view.turns.iter().enumerate() {
            let col = column(i);
            if t.observed_break {
                row[col] = '▲';
            } else if !t.strategy_breaks.is_empty() && row[col] != '▲' {
                row[col] = '*';
            }
        }
    }
    let text: String = row.into_iter().collect();
    frame.render_widget(Paragraph::new(Line::styled(text, theme.warn())), marks);
    if axis_rows > 0 {
        let numbers: Vec<(usize, String)> = view
            .turns
            .iter()
            .enumerate()
            .map(|(i, t)| (column(i), t.turn.to_string()))
            .collect();
        let axis = Rect::new(inner.x, marks.y + 1, inner.width, 1);
        frame.render_widget(
            Paragraph::new(Line::styled(turn_axis(&numbers, w), theme.dim())),
            axis,
        );
    }
}

/// The turn numbers under their columns, in `w` cells: the first and the last always, others
/// where they fit with a space on each side, each starting at its column (the last ending at
/// the edge when it would run past it).
fn turn_axis(numbers: &[(usize, String)], w: usize) -> String {
    let mut row: Vec<char> = vec![' '; w];
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut place = |at: usize, text: &str, row: &mut Vec<char>| -> bool {
        let len = text.chars().count();
        if len > w {
            return false;
        }
        let start = at.min(w - len);
        let end = start + len;
        // A space at least between two numbers.
        let clear = taken.iter().all(|&(s, e)| end < s || start > e);
        if clear {
            for (k, c) in text.chars().enumerate() {
                row[start + k] = c;
            }
            taken.push((start, end));
        }
        clear
    };
    if let (Some(first), Some(last)) = (numbers.first(), numbers.last()) {
        place(first.0, &first.1, &mut row);
        if numbers.len() > 1 {
            place(last.0, &last.1, &mut row);
        }
    }
    for (at, text) in numbers.iter().skip(1) {
        place(*at, text, &mut row);
    }
    row.into_iter().collect::<String>().trim_end().to_owned()
}

fn render_totals(app: &SessionApp, view: &SessionView, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let focused = app.focus == Focus::Strategies;
    let outer = block(
        theme,
        " Session totals · cost in input-token equivalents ".to_owned(),
        focused,
    );
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    if inner.height == 0 {
        return;
    }
    let headers = ["tokens", "breaks", "cost", "uncached", "vs orig"];
    let cells = |r: &super::TotalRow| {
        [
            r.tokens.clone(),
            r.breaks.clone(),
            r.cost.clone(),
            r.uncached.clone(),
            r.vs_original.clone(),
        ]
    };
    let name_w = view
        .totals
        .iter()
        .map(|r| width(r.id))
        .max()
        .unwrap_or(8)
        .max(8);
    let widths: Vec<usize> = (0..headers.len())
        .map(|c| {
            view.totals
                .iter()
                .map(|r| width(&cells(r)[c]))
                .chain([width(headers[c])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Numbers are never cut: columns give way whole, least telling first (uncached, breaks,
    // tokens).
    let figure = |c: usize| Column::new(Width::Fixed(widths[c])).gap(2);
    let layout = Columns::new(vec![
        Column::new(Width::Fixed(2)).gap(0),
        Column::new(Width::Fixed(name_w)).gap(0),
        figure(0).gives_way(2),
        figure(1).gives_way(1),
        figure(2),
        figure(3).gives_way(0),
        figure(4),
    ])
    .resolve(&[], inner.width as usize);
    let row = |mark: &str, name: &str, values: [String; 5]| -> TableRow {
        let mut line = vec![Line::raw(mark.to_owned()), Line::raw(pad(name, name_w))];
        line.extend(
            values
                .iter()
                .zip(&widths)
                .map(|(v, &w)| Line::raw(pad_left(v, w))),
        );
        TableRow::new(line).open_end()
    };
    let header = row("  ", "strategy", headers.map(str::to_owned)).under(theme.heading());
    let rows = inner.height.saturating_sub(1) as usize;
    let first = ListCursor {
        selected: app.strategies.selected,
        offset: 0,
    }
    .first_visible(view.totals.len(), rows);
    let body: Vec<TableRow> = DataTable::window(first, view.totals.len(), rows)
        .map(|i| {
            let r = &view.totals[i];
            let style = if focused && i == app.strategies.selected {
                theme.selected(true)
            } else if !r.applied {
                theme.dim()
            } else {
                theme.text()
            };
            row(if r.shown { "● " } else { "○ " }, r.id, cells(r)).under(style)
        })
        .collect();
    frame.render_widget(DataTable::new(&layout).header(header).rows(body), inner);
}

fn render_turns(app: &SessionApp, view: &SessionView, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let focused = app.focus == Focus::Turns;
    let turns = count(view.turns.len(), "turn", "turns");
    let room = usize::from(area.width.saturating_sub(2));
    // The clause goes before the count is cut: a title is never cut mid-word.
    let mut title = format!(" Turns · {turns} · each against the previous turn of its thread ");
    if width(&title) > room {
        title = fit(&format!(" Turns · {turns} "), room);
    }
    let outer = block(theme, title, focused);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    if inner.height == 0 {
        return;
    }
    let rows = inner.height.saturating_sub(1) as usize;
    let layout = turn_columns(view).resolve(&turn_widths(view), inner.width as usize);
    let header = TableRow::new(
        [
            " ",
            "turn",
            "time",
            "thread",
            "tools",
            "tokens",
            "cache",
            "what changed",
        ]
        .into_iter()
        .map(Line::raw)
        .collect(),
    );
    // The header line ends with its text; the rows are drawn across the pane.
    let mut header = header.under(theme.heading()).open_end();
    header.cells[1] = Line::styled(pad_left("turn", layout.width(1)), theme.heading());
    header.cells[4] = Line::styled(pad_left("tools", layout.width(4)), theme.heading());
    header.cells[5] = Line::styled(pad_left("tokens", layout.width(5)), theme.heading());
    let shown = DataTable::window(app.turns.offset, view.turns.len(), rows);
    let body: Vec<TableRow> = shown
        .map(|i| {
            let t = &view.turns[i];
            let style = if i == app.turns.selected {
                theme.selected(focused)
            } else if t.stub {
                theme.dim()
            } else if t.failed || t.observed_break {
                theme.warn()
            } else {
                theme.text()
            };
            turn_row(t, &layout).under(style)
        })
        .collect();
    frame.render_widget(DataTable::new(&layout).header(header).rows(body), inner);
    if view.turns.is_empty()
        && let Some(live) = &app.live
    {
        let below = Rect::new(
            inner.x,
            inner.y + 1,
            inner.width,
            inner.height.saturating_sub(1),
        );
        frame.render_widget(
            Paragraph::new(waiting_lines(live, theme, below.width)),
            below,
        );
    }
}

/// The live view before its first call: what it waits for, and the lines to paste.
fn waiting_lines(live: &super::app::Live, theme: Theme, w: u16) -> Vec<Line<'static>> {
    let w = usize::from(w.saturating_sub(1)).max(1);
    let mut lines: Vec<Line> = wrap("Waiting for the first call…", w)
        .into_iter()
        .map(|t| Line::styled(format!(" {t}"), theme.dim()))
        .collect();
    for hint in &live.hint {
        for (k, t) in wrap(&safe(hint), w.saturating_sub(2).max(1))
            .into_iter()
            .enumerate()
        {
            let indent = if k == 0 { " " } else { "   " };
            lines.push(Line::styled(format!("{indent}{t}"), theme.text()));
        }
    }
    lines
}

/// The turns table's columns: the break mark, then the turn, time, thread, tools, tokens,
/// cache and what changed; time, then thread, then cache give way when the pane is narrow,
/// and what changed takes what is left (cut with `…`), room kept for it before they go.
fn turn_columns(view: &SessionView) -> Columns {
    let change_w = view
        .turns
        .iter()
        .map(|t| width(&t.change))
        .chain([width("what changed")])
        .max()
        .unwrap_or(0)
        .clamp(10, 16);
    let content = Width::Content {
        min: 0,
        max: usize::MAX,
    };
    Columns::new(vec![
        Column::new(Width::Fixed(1)).gap(0),
        Column::new(content),
        Column::new(content).gap(2).gives_way(0),
        Column::new(content).gap(2).gives_way(1),
        Column::new(content).gap(2),
        Column::new(content).gap(2),
        Column::new(content).gap(2).gives_way(2),
        Column::new(Width::Fill { reserve: change_w })
            .gap(2)
            .ellipsis(),
    ])
    .ellipsis_under_pressure()
}

/// The widest cell of each turns column, its header included.
fn turn_widths(view: &SessionView) -> Vec<usize> {
    let col = |f: &dyn Fn(&super::TurnRow) -> String, head: &str| {
        view.turns
            .iter()
            .map(|t| width(&f(t)))
            .chain([width(head)])
            .max()
            .unwrap_or(0)
    };
    vec![
        1,
        col(&|t| t.turn.to_string(), "turn"),
        col(&|t| t.time.clone(), "time"),
        col(&|t| t.thread.clone(), "thread"),
        col(&|t| t.tools.clone(), "tools"),
        col(&|t| t.tokens.clone(), "tokens"),
        col(&|t| t.cache.clone(), "cache"),
        0,
    ]
}

/// One turn's row: its break mark (`▲` the observed cache broke, `*` a charted list changed),
/// then its figures, the numbers right-aligned.
fn turn_row(t: &super::TurnRow, layout: &Resolved) -> TableRow {
    let mark = if t.observed_break {
        "▲"
    } else if !t.strategy_breaks.is_empty() {
        "*"
    } else {
        " "
    };
    TableRow::new(vec![
        Line::raw(mark),
        Line::raw(pad_left(&t.turn.to_string(), layout.width(1))),
        Line::raw(t.time.clone()),
        Line::raw(t.thread.clone()),
        Line::raw(pad_left(&t.tools, layout.width(4))),
        Line::raw(pad_left(&t.tokens, layout.width(5))),
        Line::raw(t.cache.clone()),
        Line::raw(t.change.clone()),
    ])
}

fn render_detail(app: &SessionApp, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let focused = app.focus == Focus::Detail;
    // The keys' clause gives way whole before the title is cut.
    let room = area.width.saturating_sub(2) as usize;
    let title = [
        " The selected turn · Enter opens it · d diffs it ",
        " The selected turn · Enter opens · d diffs ",
        " The selected turn ",
    ]
    .into_iter()
    .find(|t| width(t) <= room)
    .unwrap_or(" The selected turn ");
    let outer = block(theme, fit(title, room), focused);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let height = inner.height as usize;
    let (head, body) = detail_lines(
        theme,
        (app.report.as_deref(), app.turns.selected, &app.shown),
        inner.width.saturating_sub(1) as usize,
        height,
    );
    // The heading stays; the rest scrolls under it, a mark saying what is below.
    let mut lines: Vec<Line> = head.into_iter().take(height).collect();
    let room = height - lines.len();
    let max = body.len().saturating_sub(room);
    let scroll = app.detail_scroll.min(max);
    if room > 0 {
        if scroll < max {
            let hidden = body.len() - scroll - (room - 1);
            lines.extend(body.into_iter().skip(scroll).take(room - 1));
            let how = if focused {
                "↓ scrolls"
            } else {
                "Tab focuses, ↓ scrolls"
            };
            lines.push(Line::styled(
                fit(
                    &format!(
                        "⋯ {} more {} · {how}",
                        thousands(hidden),
                        if hidden == 1 { "line" } else { "lines" }
                    ),
                    inner.width as usize,
                ),
                theme.dim(),
            ));
        } else {
            lines.extend(body.into_iter().skip(scroll));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn render_status(app: &SessionApp, view: Option<&SessionView>, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let w = area.width as usize;
    const SPINNER: [&str; 4] = ["◐", "◓", "◑", "◒"];
    let spin = SPINNER[app.spinner % SPINNER.len()];
    let right = match (&app.report, app.loading) {
        (None, _) => format!("{spin} reading {} ", count(app.turns_read, "turn", "turns")),
        (_, Some((turn, _))) => format!("{spin} loading turn {turn} "),
        _ => String::new(),
    };
    let (left, style) = if let Some((message, error)) = &app.status {
        (
            format!(" {}", safe(message)),
            if *error { theme.error() } else { theme.good() },
        )
    } else if let Some(error) = &app.error {
        (
            format!(" stopped: {} (--skip-bad skips bad records)", safe(error)),
            theme.error(),
        )
    } else if let (Some(view), Screen::Timeline) = (view, app.screen) {
        match view.turns.get(app.turns.selected) {
            Some(t) => {
                let mut text = format!(" turn {} of {}", t.turn, view.turns.len());
                if !t.strategy_breaks.is_empty() {
                    text.push_str(&format!(
                        " · list changed: {}",
                        t.strategy_breaks.join(", ")
                    ));
                }
                (text, theme.dim())
            }
            None if app.live.is_some() => (" waiting for the first call".to_owned(), theme.dim()),
            None => (" the trace has no model call".to_owned(), theme.dim()),
        }
    } else {
        (String::new(), theme.dim())
    };
    let left = fit(&left, w.saturating_sub(width(&right)));
    let gap = w.saturating_sub(width(&left) + width(&right));
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(left, style),
            Span::raw(" ".repeat(gap)),
            Span::styled(right, theme.dim()),
        ])),
        area,
    );
}

fn render_diff(app: &SessionApp, diff: &TurnDiff, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let mut title = match diff.previous {
        Some(p) => format!(" Turn {} against turn {p} of its thread", diff.turn),
        None => format!(" Turn {}", diff.turn),
    };
    if diff.previous.is_some() {
        let n = |c: Change| diff.tools.iter().filter(|t| t.change == c).count();
        title.push_str(&format!(
            " · +{} −{} ~{} · {} unchanged",
            n(Change::Added),
            n(Change::Removed),
            n(Change::Changed),
            diff.unchanged
        ));
        if diff.order_changed {
            title.push_str(" · order changed");
        }
    }
    title.push(' ');
    let outer = block(
        theme,
        fit(&title, area.width.saturating_sub(2) as usize),
        true,
    );
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let lines = diff_lines(theme, diff, inner.width as usize);
    render_scrolled(frame, inner, lines, app.diff_scroll);
}
