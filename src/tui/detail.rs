//! The detail pane of a strategy tab: the selected tool's entries side by side, its unified or
//! side-by-side diff, the request-level comparison and the text the strategy adds.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

use crate::diff::LineTag;
use crate::projection::{Status, ToolOutcome};
use crate::strategy::Strategy;
use crate::text::{fit, safe, skip_cells, thousands, width};
use crate::tool;

use super::app::App;
use super::diffview::{LineRef, SplitRow, ToolDiff, UniRow};
use super::layout::entry_panes;
use super::request::request_lines;
use super::state::{Detail, Pane};
use super::textview::{RowKind, TextRow, ViewMode, entry_rows, highlight};
use super::widgets::{block, render_scrolled, wrap};

/// The detail's content as lines (not for the diff views, which build only visible rows).
pub(crate) fn text_lines(app: &App, strategy: Strategy, width_cells: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    match app.strategy_tab.detail.shows {
        Detail::Request => request_lines(app, strategy, width_cells),
        Detail::Added => added_lines(app, strategy, width_cells),
        _ => {
            let _ = theme;
            Vec::new()
        }
    }
}

/// An entry's rows at `cells` cells, in the detail's view mode and wrapping.
pub(crate) fn entry_text(app: &App, entry: Option<&Value>, cells: usize) -> Vec<TextRow> {
    entry.map_or_else(Vec::new, |e| {
        entry_rows(
            e,
            app.strategy_tab.detail.view_mode,
            cells,
            app.strategy_tab.detail.wrap,
        )
    })
}

/// The info line above the selected tool's entries or diff: what happened to it, in `w`
/// cells. Whole fields drop (the reason, then the bytes, then the escapes warning) and the name
/// is cut before a number would be; the tokens go last.
fn info_line(
    app: &App,
    strategy: Strategy,
    o: &ToolOutcome,
    name: &str,
    w: usize,
) -> Line<'static> {
    let theme = app.theme;
    let t = app
        .figures(strategy)
        .and_then(|f| f.per_tool.get(app.selected_outcome().unwrap_or(0)));
    let word = format!("{} ", o.status.word());
    let tokens = t.map(|t| {
        format!(
            " · {} → {} tokens",
            thousands(t.original_tokens),
            thousands(t.projected_tokens)
        )
    });
    let bytes = t.map(|t| {
        format!(
            " · {} → {} bytes",
            thousands(t.original_bytes),
            thousands(t.projected_bytes)
        )
    });
    let hidden = o
        .original
        .map(|i| app.hidden_in(i))
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
pub fn render_detail(app: &App, frame: &mut Frame, area: Rect, strategy: Strategy) {
    let theme = app.theme;
    let focused = app.strategy_tab.focus == Pane::Detail;
    let projection = app.projection(strategy);
    let outcome = app
        .selected_outcome()
        .and_then(|i| projection.and_then(|p| p.outcomes.get(i)));
    let name = outcome.map_or(String::new(), |o| safe(&o.name));
    let tool_detail = matches!(
        app.strategy_tab.detail.shows,
        Detail::Entries | Detail::Unified | Detail::Split
    );
    // Only a tool's views have a tool to tell about.
    let info = |w: usize| -> Option<Line<'static>> {
        let (Some(o), true) = (outcome, tool_detail) else {
            return None;
        };
        Some(info_line(app, strategy, o, &name, w))
    };
    let title = if tool_detail && !name.is_empty() {
        format!(
            " {} · {} ",
            app.strategy_tab.detail.shows.label(),
            fit(&name, 40)
        )
    } else {
        format!(
            " {} · {} ",
            app.strategy_tab.detail.shows.label(),
            strategy.id()
        )
    };
    match app.strategy_tab.detail.shows {
        Detail::Entries => {
            let [info_area, _] =
                Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
            let what = match app.strategy_tab.detail.view_mode {
                ViewMode::Json => "entries │ ",
                ViewMode::Text => "text view │ ",
            };
            let mut spans = vec![Span::styled(what, theme.title(focused))];
            let room = (info_area.width as usize).saturating_sub(width(what));
            spans.extend(info(room).map(|l| l.spans).unwrap_or_default());
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
            let mode = match app.strategy_tab.detail.view_mode {
                ViewMode::Json => String::new(),
                ViewMode::Text => " · text".to_owned(),
            };
            let short = fit(&name, (left.width as usize).saturating_sub(16 + mode.len()));
            render_entry(
                app,
                frame,
                left,
                format!(" original · {short}{mode} "),
                original,
                left_empty,
                focused,
            );
            render_entry(
                app,
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
            render_diff(app, frame, body);
        }
        Detail::Request | Detail::Added => {
            let outer = block(theme, title, focused);
            let inner = outer.inner(area);
            frame.render_widget(outer, area);
            let lines = text_lines(app, strategy, inner.width as usize);
            render_scrolled(frame, inner, lines, app.strategy_tab.detail.scroll.offset);
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
    let rows = entry_text(app, entry, inner.width as usize);
    if rows.is_empty() {
        let text: Vec<Line> = wrap(empty, inner.width as usize)
            .into_iter()
            .map(|l| Line::styled(l, theme.dim()))
            .collect();
        frame.render_widget(Paragraph::new(text), inner);
        return;
    }
    let scroll = app
        .strategy_tab
        .detail
        .scroll
        .offset
        .min(rows.len().saturating_sub(inner.height as usize));
    // The text view always wraps: sideways scrolling is the JSON view's.
    let hscroll = if app.strategy_tab.detail.view_mode == ViewMode::Text {
        0
    } else {
        app.strategy_tab.detail.hscroll
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
            highlight(&shown, &app.search.text, base, theme.found())
        })
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
    render_scrolled(frame, area, lines, app.strategy_tab.detail.scroll.offset);
}

/// One visual row of a diff line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct VisualRow {
    /// It continues the row above (drawn after a `↪`).
    continued: bool,
    /// Its text, in runs of changed and unchanged characters.
    pieces: Vec<(bool, String)>,
    /// The line goes on past the edge (not wrapped; drawn with a `›`).
    cut: bool,
}

/// A diff line's segments, sanitized, as visual rows of at most `cells` cells each: wrapped at
/// word boundaries when wrapping is on (continuation rows have one cell less, for their
/// mark), else scrolled by `hscroll` and cut one cell short of the edge, for the cut mark. A
/// line is never cut silently.
fn segment_rows(app: &DiffLayout, segments: &[(bool, String)], cells: usize) -> Vec<VisualRow> {
    let cells = cells.max(2);
    // Grapheme clusters, as the terminal draws them: a cut never separates a character from
    // its modifier or accent.
    let chars: Vec<(bool, String, usize)> = segments
        .iter()
        .flat_map(|(changed, text)| {
            use unicode_segmentation::UnicodeSegmentation;
            safe(text)
                .graphemes(true)
                .map(|g| (*changed, g.to_owned(), crate::text::width(g)))
                .collect::<Vec<_>>()
        })
        .collect();
    let group = |slice: &[(bool, String, usize)]| {
        let mut pieces: Vec<(bool, String)> = Vec::new();
        for (changed, c, _) in slice {
            match pieces.last_mut() {
                Some((ch, piece)) if ch == changed => piece.push_str(c),
                _ => pieces.push((*changed, c.clone())),
            }
        }
        pieces
    };
    let cells_of = |slice: &[(bool, String, usize)]| slice.iter().map(|c| c.2).sum::<usize>();
    if !app.wrap {
        let mut start = 0;
        let mut skipped = 0;
        while start < chars.len() && skipped < app.hscroll {
            skipped += chars[start].2;
            start += 1;
        }
        let rest = &chars[start..];
        if cells_of(rest) <= cells {
            return vec![VisualRow {
                pieces: group(rest),
                ..VisualRow::default()
            }];
        }
        let mut used = 0;
        let mut end = 0;
        while end < rest.len() && used + rest[end].2 < cells {
            used += rest[end].2;
            end += 1;
        }
        return vec![VisualRow {
            pieces: group(&rest[..end]),
            cut: true,
            ..VisualRow::default()
        }];
    }
    let mut rows: Vec<VisualRow> = Vec::new();
    let mut start = 0;
    while start < chars.len() || rows.is_empty() {
        let room = if rows.is_empty() { cells } else { cells - 1 };
        let mut used = 0;
        let mut end = start;
        let mut after_space = None;
        let mut after_joint = None;
        let mut text_seen = false;
        while end < chars.len() && used + chars[end].2 <= room {
            used += chars[end].2;
            end += 1;
            let g = chars[end - 1].1.as_str();
            if g == " " {
                // Not inside the indentation: a row of spaces alone says nothing.
                if text_seen {
                    after_space = Some(end);
                }
            } else {
                text_seen = true;
                if matches!(g, "_" | "-" | "/" | "." | "," | ":") {
                    after_joint = Some(end);
                }
            }
        }
        if end < chars.len() {
            // Break after the last space, so a word or a name is never split; a word longer
            // than the row breaks after its last `_ - / . , :` (between the parts of a name),
            // and is cut where the row ends only when it has none.
            if let Some(at) = after_space.or(after_joint) {
                end = at;
            }
            end = end.max(start + 1);
        }
        rows.push(VisualRow {
            continued: !rows.is_empty(),
            pieces: group(&chars[start..end]),
            cut: false,
        });
        start = end;
    }
    rows
}

/// Every visual line of the selected tool's diff at this width (the detail's scroll range).
pub(crate) fn diff_lines(app: &App, diff: &ToolDiff, w: usize) -> Vec<Line<'static>> {
    let layout = DiffLayout {
        theme: app.theme,
        wrap: app.strategy_tab.detail.wrap,
        hscroll: app.strategy_tab.detail.hscroll,
        filter: &app.search.text,
        split: app.strategy_tab.detail.shows == Detail::Split,
    };
    tool_diff_lines(&layout, diff, w)
}

/// What laying out a tool diff needs besides the diff (the session view's turn diff draws
/// with it too).
pub(crate) struct DiffLayout<'a> {
    /// The styles.
    pub theme: super::theme::Theme,
    /// Wrap long lines at words (else cut, scrolled by `hscroll`).
    pub wrap: bool,
    /// Cells scrolled when not wrapping.
    pub hscroll: usize,
    /// Search text to highlight.
    pub filter: &'a str,
    /// Side by side instead of unified.
    pub split: bool,
}

/// Every visual line of a tool diff at this width.
pub(crate) fn tool_diff_lines(app: &DiffLayout, diff: &ToolDiff, w: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let fold = |n: usize| {
        let text = if n == 1 {
            "⋯ 1 unchanged line".to_owned()
        } else {
            format!("⋯ {n} unchanged lines")
        };
        Line::styled(fit(&text, w), theme.dim())
    };
    // A changed line is tinted whole, to the edge of its side.
    let style_of = |tag: LineTag| match tag {
        LineTag::Equal => theme.text(),
        LineTag::Delete => theme.del_line(),
        LineTag::Insert => theme.ins_line(),
    };
    // One side of a row as visual lines, each `cells + 1` wide: the sign, then the text
    // (changed words emphasised), then the tint to the edge.
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
                if row.continued {
                    spans.push(Span::styled("↪", theme.dim()));
                }
                for (changed, text) in row.pieces {
                    let style = if changed { theme.emphasis(base) } else { base };
                    spans.extend(highlight(&text, app.filter, style, theme.found()).spans);
                }
                if row.cut {
                    spans.push(Span::styled("›", theme.dim()));
                }
                let used: usize = spans.iter().map(|s| width(&s.content)).sum();
                if line.tag != LineTag::Equal && used < cells + 1 {
                    spans.push(Span::styled(" ".repeat(cells + 1 - used), base));
                }
                spans
            })
            .collect()
    };
    let mut lines = Vec::new();
    match app.split {
        true => {
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
