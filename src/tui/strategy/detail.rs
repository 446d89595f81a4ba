//! The detail pane of a strategy tab: the selected tool's entries side by side, its unified or
//! side-by-side diff, the request-level comparison and the text the strategy adds.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

use crate::projection::{Status, ToolOutcome};
use crate::strategy::Strategy;
use crate::text::{fit, safe, skip_cells, thousands, width};
use crate::tool;

use super::StrategyScreen;
use super::request::request_lines;
use crate::tui::difflines::{DiffLayout, tool_diff_lines};
use crate::tui::diffview::ToolDiff;
use crate::tui::layout::entry_panes;
use crate::tui::state::{Detail, Pane};
use crate::tui::textview::{RowKind, TextRow, ViewMode, entry_rows, highlight};
use crate::tui::widgets::{block, render_scrolled, wrap};

/// The detail's content as lines (not for the diff views, which build only visible rows).
pub(crate) fn text_lines(
    screen: &StrategyScreen,
    strategy: Strategy,
    width_cells: usize,
) -> Vec<Line<'static>> {
    let theme = screen.ctx.theme;
    match screen.tab.detail.shows {
        Detail::Request => request_lines(screen.ctx, strategy, width_cells),
        Detail::Added => added_lines(screen, strategy, width_cells),
        _ => {
            let _ = theme;
            Vec::new()
        }
    }
}

/// An entry's rows at `cells` cells, in the detail's view mode and wrapping.
pub(crate) fn entry_text(
    screen: &StrategyScreen,
    entry: Option<&Value>,
    cells: usize,
) -> Vec<TextRow> {
    entry.map_or_else(Vec::new, |e| {
        entry_rows(
            e,
            screen.tab.detail.view_mode,
            cells,
            screen.tab.detail.wrap,
        )
    })
}

/// The info line above the selected tool's entries or diff: what happened to it, in `w`
/// cells. Whole fields drop (the reason, then the bytes, then the escapes warning) and the name
/// is cut before a number would be; the tokens go last.
fn info_line(
    screen: &StrategyScreen,
    strategy: Strategy,
    o: &ToolOutcome,
    name: &str,
    w: usize,
) -> Line<'static> {
    let theme = screen.ctx.theme;
    let t = screen
        .ctx
        .figures(strategy)
        .and_then(|f| f.per_tool.get(screen.selected_outcome().unwrap_or(0)));
    let word = format!("{} ", o.status.word());
    let tokens = t.map(|t| {
        format!(
            " · {} → {} tokens",
            thousands(t.original_tokens()),
            thousands(t.projected_tokens())
        )
    });
    let bytes = t.map(|t| {
        format!(
            " · {} → {} bytes",
            thousands(t.original_bytes()),
            thousands(t.projected_bytes())
        )
    });
    let hidden = o
        .original
        .map(|i| screen.ctx.hidden_in(i))
        .filter(|&n| n > 0)
        .map(|n| format!(" · {n} control/invisible chars shown as escapes"));
    let reason = (!o.reason.is_empty()).then(|| format!(" · {}", safe(&o.reason)));
    let mut fields = [tokens, bytes, hidden, reason];
    let used = |fields: &[Option<String>]| -> usize {
        fields.iter().flatten().map(|f| width(f)).sum::<usize>() + width(&word)
    };
    // Keep the name at least this whole before dropping a field for it.
    let name_floor = width(name).min(12);
    for drop in [3, 1, 2, 0] {
        if used(&fields) + name_floor <= w {
            break;
        }
        fields[drop] = None;
    }
    let shown_name = fit(name, w.saturating_sub(used(&fields)));
    let [tokens, bytes, hidden, reason] = fields;
    let mut spans = vec![
        Span::styled(word, theme.status(o.status)),
        Span::styled(shown_name, theme.title(false)),
    ];
    spans.extend(tokens.into_iter().chain(bytes).map(Span::raw));
    spans.extend(hidden.map(|h| Span::styled(h, theme.warn())));
    spans.extend(reason.map(|r| Span::styled(r, theme.dim())));
    Line::from(spans)
}

/// Draw the detail pane of `strategy`'s tab.
pub fn render_detail(screen: &StrategyScreen, frame: &mut Frame, area: Rect) {
    let strategy = screen.strategy;
    let theme = screen.ctx.theme;
    let focused = screen.tab.focus == Pane::Detail;
    let projection = screen.ctx.projection(strategy);
    let outcome = screen
        .selected_outcome()
        .and_then(|i| projection.and_then(|p| p.outcomes.get(i)));
    let name = outcome.map_or(String::new(), |o| safe(&o.name));
    let tool_detail = matches!(
        screen.tab.detail.shows,
        Detail::Entries | Detail::Unified | Detail::Split
    );
    // Only a tool's views have a tool to tell about.
    let info = |w: usize| -> Option<Line<'static>> {
        let (Some(o), true) = (outcome, tool_detail) else {
            return None;
        };
        Some(info_line(screen, strategy, o, &name, w))
    };
    let title = if tool_detail && !name.is_empty() {
        format!(" {} · {} ", screen.tab.detail.shows.label(), fit(&name, 40))
    } else {
        format!(" {} · {} ", screen.tab.detail.shows.label(), strategy.id())
    };
    match screen.tab.detail.shows {
        Detail::Entries => {
            let [info_area, _] =
                Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
            let what = match screen.tab.detail.view_mode {
                ViewMode::Json => "entries │ ",
                ViewMode::Text => "text view │ ",
            };
            let mut spans = vec![Span::styled(what, theme.title(focused))];
            let room = (info_area.width as usize).saturating_sub(width(what));
            spans.extend(info(room).map(|l| l.spans).unwrap_or_default());
            frame.render_widget(Paragraph::new(Line::from(spans)), info_area);
            let (left, right) = entry_panes(area);
            let (original, sent) = screen.selected_entries().unwrap_or((None, None));
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
            let mode = match screen.tab.detail.view_mode {
                ViewMode::Json => String::new(),
                ViewMode::Text => " · text".to_owned(),
            };
            let short = fit(&name, (left.width as usize).saturating_sub(16 + mode.len()));
            render_entry(
                screen,
                frame,
                left,
                format!(" original · {short}{mode} "),
                original,
                left_empty,
                focused,
            );
            render_entry(
                screen,
                frame,
                right,
                format!(" {}{mode} ", strategy.id()),
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
            frame.render_widget(
                Paragraph::new(info(info_area.width as usize).unwrap_or_default()),
                info_area,
            );
            render_diff(screen, frame, body);
        }
        Detail::Request | Detail::Added => {
            let outer = block(theme, title, focused);
            let inner = outer.inner(area);
            frame.render_widget(outer, area);
            let lines = text_lines(screen, strategy, inner.width as usize);
            render_scrolled(frame, inner, lines, screen.tab.detail.scroll.offset);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn render_entry(
    screen: &StrategyScreen,
    frame: &mut Frame,
    area: Rect,
    title: String,
    entry: Option<&Value>,
    empty: &str,
    focused: bool,
) {
    let theme = screen.ctx.theme;
    let outer = block(theme, title, focused);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let rows = entry_text(screen, entry, inner.width as usize);
    if rows.is_empty() {
        let text: Vec<Line> = wrap(empty, inner.width as usize)
            .into_iter()
            .map(|l| Line::styled(l, theme.dim()))
            .collect();
        frame.render_widget(Paragraph::new(text), inner);
        return;
    }
    let scroll = screen
        .tab
        .detail
        .scroll
        .offset
        .min(rows.len().saturating_sub(inner.height as usize));
    // The text view always wraps: sideways scrolling is the JSON view's.
    let hscroll = if screen.tab.detail.view_mode == ViewMode::Text {
        0
    } else {
        screen.tab.detail.hscroll
    };
    let visible: Vec<Line> = rows
        .iter()
        .skip(scroll)
        .take(inner.height as usize)
        .map(|r| {
            let base = match r.kind {
                RowKind::Heading => theme.heading(),
                RowKind::Body => theme.text(),
            };
            let shown = fit(&skip_cells(&r.text, hscroll), inner.width as usize);
            highlight(&shown, screen.search, base, theme.found())
        })
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
}

fn render_diff(screen: &StrategyScreen, frame: &mut Frame, area: Rect) {
    let theme = screen.ctx.theme;
    let Some(diff) = screen.selected_diff() else {
        frame.render_widget(
            Paragraph::new(Line::styled("no tool selected", theme.dim())),
            area,
        );
        return;
    };
    if diff.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!("no change under {}", screen.strategy),
                theme.dim(),
            )),
            area,
        );
        return;
    }
    let lines = diff_lines(screen, &diff, area.width as usize);
    render_scrolled(frame, area, lines, screen.tab.detail.scroll.offset);
}

/// Every visual line of the selected tool's diff at this width (the detail's scroll range).
pub(crate) fn diff_lines(screen: &StrategyScreen, diff: &ToolDiff, w: usize) -> Vec<Line<'static>> {
    let layout = DiffLayout {
        theme: screen.ctx.theme,
        wrap: screen.tab.detail.wrap,
        hscroll: screen.tab.detail.hscroll,
        filter: screen.search,
        split: screen.tab.detail.shows == Detail::Split,
    };
    tool_diff_lines(&layout, diff, w)
}

fn added_lines(screen: &StrategyScreen, strategy: Strategy, w: usize) -> Vec<Line<'static>> {
    let theme = screen.ctx.theme;
    let Some(projection) = screen.ctx.projection(strategy) else {
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
        let tokens = screen.ctx.figures(strategy).map_or(String::new(), |f| {
            format!(" · {} tokens", thousands(f.added_tokens.unwrap_or(0)))
        });
        let place = if screen.ctx.capture.shape() == crate::capture::Shape::McpToolsList {
            "reported only: an MCP tools/list capture has no messages to carry it"
        } else if strategy == Strategy::Codex {
            "sent in the developer instructions"
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
        let description = tool::description(entry.entry(&screen.ctx.capture)).unwrap_or("");
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

/// Rows of the detail's content in the pane at `detail`, in what it shows: its scroll range.
pub fn detail_rows(screen: &StrategyScreen, detail: Rect) -> usize {
    let strategy = screen.strategy;
    let inner_w = detail.width.saturating_sub(2) as usize;
    match screen.tab.detail.shows {
        Detail::Entries => {
            let (left, right) = entry_panes(detail);
            let (original, sent) = screen.selected_entries().unwrap_or((None, None));
            let a = entry_text(screen, original, left.width.saturating_sub(2) as usize).len();
            let b = entry_text(screen, sent, right.width.saturating_sub(2) as usize).len();
            if left.y == right.y {
                a.max(b)
            } else {
                a.max(b) + 2
            }
        }
        Detail::Unified | Detail::Split => screen.selected_diff().map_or(0, |d| {
            // The diff body sits under the info line, inside the border.
            diff_lines(screen, &d, inner_w).len() + 1
        }),
        Detail::Request | Detail::Added => text_lines(screen, strategy, inner_w).len(),
    }
}
