//! The overview: every strategy's totals as a table with bars, and the chosen strategy's notes.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::mcp::status::ServerState;
use crate::projection::Applies;
use crate::strategy::Strategy;
use crate::text::{fit, pad_left, pct, thousands};

use super::context::Context;
use super::keys::strategy_key;
use super::state::ListCursor;
use super::table::{Column, Columns, DataTable, TableRow, Width};
use super::widgets::{block, note_bullet, sorted_notes, wrap};

/// Draw the strategy table with its bars; when the terminal is too short for the notes pane
/// (`notes_hidden`), its bottom border says how many notes that hides.
pub fn render_overview(
    ctx: &Context,
    tab: &OverviewTab,
    frame: &mut Frame,
    area: Rect,
    notes_hidden: bool,
) {
    let theme = ctx.theme;
    let capture_tokens = ctx.capture_tokens();
    let rejected = Strategy::ALL
        .iter()
        .filter_map(|&s| ctx.projection(s))
        .any(|p| !p.request_valid && !p.status.is_refused());
    // The title explains the marks the rows carry, shorter when the pane is narrow.
    let bang = if rejected {
        " · ! a provider rejects its request"
    } else {
        ""
    };
    let titles = [
        format!(" Strategies: tokens in context (tools + added text) · * has notes{bang} "),
        format!(" Strategies: tokens in context · * has notes{bang} "),
        format!(
            " Strategies · * notes{} ",
            if rejected { " · ! rejected" } else { "" }
        ),
    ];
    let room = (area.width as usize).saturating_sub(2);
    let title = titles
        .iter()
        .find(|t| crate::text::width(t) <= room)
        .unwrap_or(&titles[2])
        .clone();
    let mut outer = block(theme, title, true);
    let notes: usize = Strategy::ALL
        .iter()
        .filter_map(|&s| ctx.projection(s))
        .map(|p| p.notes.len())
        .sum();
    let mut bottom_room = room;
    if notes_hidden && notes > 0 {
        let noun = if notes == 1 { "note" } else { "notes" };
        let hidden = format!(" {notes} {noun} hidden: too few rows ");
        bottom_room = bottom_room.saturating_sub(crate::text::width(&hidden) + 1);
        outer = outer.title_bottom(Span::styled(hidden, theme.warn()));
    }
    if let Some(line) = costliest_server(ctx).and_then(|c| c.line(bottom_room)) {
        outer = outer.title_bottom(Line::raw(line).right_aligned());
    }
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let wide = inner.width >= 90;
    let max_total = Strategy::ALL
        .iter()
        .filter_map(|&s| ctx.figures(s).and_then(|f| f.in_context()))
        .chain(capture_tokens)
        .max()
        .unwrap_or(0);
    let mut columns = vec![
        Column::new(Width::Fixed(2)).gap(0),
        Column::new(Width::Fixed(16)),
        Column::new(Width::Fixed(6)),
        Column::new(Width::Fixed(9)),
        Column::new(Width::Fixed(9)),
    ];
    let mut header = vec!["", "strategy", "tools", "tokens", "saved"];
    if wide {
        // The origin is text: cut visibly, never silently at the column's edge.
        columns.insert(2, Column::new(Width::Fixed(15)).ellipsis());
        header.insert(2, "origin");
    }
    columns.push(Column::new(Width::Fill { reserve: 4 }));
    header.push("size");
    let fixed: u16 = if wide {
        2 + 16 + 15 + 6 + 9 + 9
    } else {
        2 + 16 + 6 + 9 + 9
    };
    // The bar is scaled to one cell more than its column holds (the mark is not counted);
    // its last cell is clipped, as it always was.
    let bar_width = inner.width.saturating_sub(fixed + columns.len() as u16 - 1) as usize;
    let layout = Columns::new(columns)
        .with_mark(1)
        .shrink_under_pressure()
        .resolve(&[], inner.width as usize);
    let height = inner.height.saturating_sub(1) as usize;
    // The window starts at the top each frame and follows the selection down.
    let selected = tab.selected();
    let first = ListCursor {
        selected,
        offset: 0,
    }
    .first_visible(Strategy::ALL.len(), height);
    let rows: Vec<TableRow> = Strategy::ALL
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, &s)| {
            let row = strategy_row(ctx, s, max_total, bar_width, wide);
            if i == selected {
                row.over(theme.selected(true))
            } else {
                row
            }
        })
        .collect();
    let header = TableRow::new(header.into_iter().map(Line::raw).collect()).under(theme.heading());
    let table = DataTable::new(&layout)
        .header(header)
        .rows(rows)
        .mark(selected.checked_sub(first), "▌");
    frame.render_widget(table, inner);
}

/// The MCP servers `toolprism mcp` reached, one line each: its name, then `listed · N tools`
/// or why it was not listed, cut with a mark; when they do not all fit, the last line says how
/// many more there are.
pub fn render_servers(ctx: &Context, frame: &mut Frame, area: Rect) {
    let theme = ctx.theme;
    let servers = &ctx.servers;
    let listed = servers.iter().filter(|s| s.listed()).count();
    let title = fit_title(
        &[
            format!(
                " MCP servers · {listed} of {} listed · the same lines print on quit ",
                servers.len()
            ),
            format!(" MCP servers · {listed} of {} listed ", servers.len()),
            " MCP servers ".to_owned(),
        ],
        area.width as usize,
    );
    let outer = block(theme, title, false);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let w = inner.width as usize;
    let rows = inner.height as usize;
    let names: Vec<String> = servers.iter().map(|s| crate::text::safe(&s.name)).collect();
    let name_cells = names
        .iter()
        .map(|n| crate::text::width(n))
        .max()
        .unwrap_or(0)
        .min(w / 3);
    let hidden = if servers.len() > rows {
        servers.len() + 1 - rows
    } else {
        0
    };
    let mut lines: Vec<Line> = servers
        .iter()
        .zip(&names)
        .take(servers.len().saturating_sub(hidden))
        .map(|(server, name)| {
            let (mark, style) = match server.state {
                ServerState::Listed => ("✓", theme.good()),
                ServerState::Skipped => ("–", theme.dim()),
                _ => ("✗", theme.error()),
            };
            let name = crate::text::pad(&fit(name, name_cells), name_cells);
            let room = w.saturating_sub(name_cells + 4);
            Line::from(vec![
                Span::styled(format!("{mark} "), style),
                Span::raw(name),
                Span::raw("  "),
                Span::styled(fit(&server.summary(), room), style),
            ])
        })
        .collect();
    if hidden > 0 {
        let noun = if hidden == 1 { "server" } else { "servers" };
        lines.push(Line::styled(
            fit(&format!("… {hidden} more {noun}: they print on quit"), w),
            theme.warn(),
        ));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The first title that fits in a pane `cells` wide (the last one otherwise).
fn fit_title(titles: &[String], cells: usize) -> String {
    let room = cells.saturating_sub(2);
    titles
        .iter()
        .find(|t| crate::text::width(t) <= room)
        .unwrap_or(&titles[titles.len() - 1])
        .clone()
}

/// The MCP server whose tools cost the most as the capture sends them, grouped as `report
/// --by-server` groups them.
#[derive(Debug, Clone, PartialEq)]
pub struct Costliest {
    /// The server (sanitized).
    pub name: String,
    /// Its tools' tokens.
    pub tokens: usize,
    /// Its share of every tool's tokens, in percent.
    pub pct: f64,
}

impl Costliest {
    /// ` costliest server: github, 412 tokens (64.3% of tools) `, or a shorter form, whichever
    /// fits in `room` cells (`None`: none does).
    pub fn line(&self, room: usize) -> Option<String> {
        [
            format!(
                " costliest server: {}, {} tokens ({:.1}% of tools) ",
                self.name,
                thousands(self.tokens),
                self.pct
            ),
            format!(" costliest server: {} ", self.name),
            format!(" costliest: {} ", self.name),
        ]
        .into_iter()
        .find(|l| crate::text::width(l) <= room)
    }
}

/// The costliest MCP server of the capture (the first one on a tie), from `original`'s
/// per-tool tokens (`None` until they are measured, or when no tool is an MCP server's).
pub fn costliest_server(ctx: &Context) -> Option<Costliest> {
    let figures = ctx.figures(Strategy::Original)?;
    let mut servers: Vec<(String, usize)> = Vec::new();
    let mut all = 0;
    for (entry, tool) in ctx.capture.tools().iter().zip(&figures.per_tool) {
        all += tool.original_tokens;
        let Some(server) = crate::mcp::by_server::server_of(entry, &ctx.settings) else {
            continue;
        };
        match servers.iter_mut().find(|(s, _)| *s == server) {
            Some((_, tokens)) => *tokens += tool.original_tokens(),
            None => servers.push((server, tool.original_tokens())),
        }
    }
    // `max_by_key` keeps the last of equals: reversed, the first server on a tie.
    let (name, tokens) = servers.into_iter().rev().max_by_key(|(_, t)| *t)?;
    Some(Costliest {
        name: crate::text::safe(&name),
        tokens,
        pct: if all == 0 {
            0.0
        } else {
            tokens as f64 * 100.0 / all as f64
        },
    })
}

/// Strategy `s`'s row: its key, name and marks, origin on a wide pane, tools,
/// tokens in context, saving and bar, coloured by what the saving is worth.
fn strategy_row(
    ctx: &Context,
    s: Strategy,
    max_total: usize,
    bar_width: usize,
    wide: bool,
) -> TableRow {
    let theme = ctx.theme;
    let capture_tokens = ctx.capture_tokens();
    let figures = ctx.figures(s);
    let projection = ctx.projection(s);
    let tools = projection.map_or("…".to_owned(), |p| {
        if p.status.is_refused() {
            "—".to_owned()
        } else {
            thousands(p.tool_count())
        }
    });
    // A refused projection has no figures; one that did not apply saves nothing real,
    // so neither is coloured as a saving.
    let (tokens, saved, bar, style) = match figures {
        // The figure the saving is measured on: provider-deferred entries are sent but
        // out of the model's context, so a sent count beside their saving would read as
        // a cost rising while it saves.
        Some(f) => match (f.in_context(), f.saved_tokens.unwrap_or(0), f.saved_pct) {
            (Some(total), saved_tokens, saved_pct) => {
                let rejected = projection.is_some_and(|p| !p.request_valid);
                // Green is a saving and red a cost; saving nothing is neither.
                let style = if f.status != Applies::Ok || saved_tokens == 0 {
                    theme.dim()
                } else if rejected {
                    // Not a saving anyone gets: the provider rejects the request.
                    theme.warn()
                } else if saved_tokens > 0 {
                    theme.good()
                } else {
                    theme.bad()
                };
                let saved = match f.shown_saving() {
                    Some(_) => pct(capture_tokens.and(saved_pct)),
                    None => "n/a".to_owned(),
                };
                (
                    thousands(total),
                    saved,
                    bar(total, max_total, bar_width),
                    style,
                )
            }
            _ => ("refused".into(), "—".into(), String::new(), theme.error()),
        },
        None => ("…".into(), "…".into(), String::new(), theme.dim()),
    };
    let bar_style = match figures {
        Some(f) if f.status != Applies::Ok || f.saved_tokens == Some(0) => theme.dim(),
        Some(_) if projection.is_some_and(|p| !p.request_valid) => theme.warn(),
        Some(f) => theme.bar(f.saved_tokens.is_some_and(|t| t >= 0)),
        None => theme.bar(true),
    };
    let noted = projection.is_some_and(|p| !p.notes.is_empty());
    let rejected = projection.is_some_and(|p| !p.request_valid && !p.status.is_refused());
    let name = format!(
        "{}{}{}",
        s.id(),
        if rejected { "!" } else { "" },
        if noted { " *" } else { "" }
    );
    let mut cells = vec![
        Line::from(Span::styled(strategy_key(s).to_string(), theme.key())),
        Line::raw(name),
        Line::raw(pad_left(&tools, 5)),
        Line::raw(pad_left(&tokens, 8)),
        Line::from(Span::styled(pad_left(&saved, 8), style)),
        Line::from(Span::styled(bar, bar_style)),
    ];
    if wide {
        // The origin and the release the settings select (`vtcode 0.181.2`).
        // Codex tags its releases `rust-v0.171.0`: the version is what a user knows.
        let release = s
            .release(&ctx.settings)
            .and_then(|r| r.rsplit(' ').next())
            .map(|v| v.strip_prefix("rust-v").unwrap_or(v));
        let origin = match release {
            Some(version) => format!("{} {version}", s.origin()),
            None => s.origin().to_owned(),
        };
        cells.insert(2, Line::raw(origin));
    }
    TableRow::new(cells)
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

/// Which rows of the notes show in a pane `height` rows tall, scrolled by `scroll`: the range
/// of rows drawn, how many notes start below it (announced on the last row, which the range
/// then leaves free) and the scroll actually used (clamped).
pub fn notes_window(
    starts: &[bool],
    height: usize,
    scroll: usize,
) -> (std::ops::Range<usize>, usize, usize) {
    let total = starts.len();
    if total <= height {
        return (0..total, 0, 0);
    }
    let room = height.saturating_sub(1);
    let scroll = scroll.min(total - room);
    let end = scroll + room;
    let below = starts[end..].iter().filter(|&&s| s).count();
    // A note cut in the middle still has rows below: say so even when none starts there.
    let below = if below == 0 && end < total { 1 } else { below };
    (scroll..end, below, scroll)
}

/// The notes pane's rows at `w` cells: the chosen strategy's summary and notes, then the other
/// strategies' notes; each row with whether a note starts on it (what the "more notes" count
/// counts). Pure: the update sizes the pane's scroll with it too.
pub(crate) fn notes_lines(
    ctx: &Context,
    strategy: Strategy,
    w: usize,
) -> Vec<(Line<'static>, bool)> {
    let theme = ctx.theme;
    let mut lines: Vec<(Line, bool)> = wrap(strategy.summary(), w)
        .into_iter()
        .map(|l| (Line::styled(l, theme.text()), false))
        .collect();
    let note = |lines: &mut Vec<(Line<'static>, bool)>, rows: Vec<Line<'static>>| {
        for (i, row) in rows.into_iter().enumerate() {
            lines.push((row, i == 0));
        }
    };
    if let Some(projection) = ctx.projection(strategy) {
        if projection.notes.is_empty() {
            lines.push((Line::styled("no notes", theme.dim()), false));
        }
        for n in sorted_notes(&projection.notes) {
            note(&mut lines, note_bullet(theme, n, "", w));
        }
    }
    if let Some(f) = ctx.figures(strategy)
        && let Some(overhead) = f.provider_overhead_tokens
    {
        let text = format!(
            "provider estimate, not in the figures: Anthropic's tool-use prompt adds ~{overhead} tokens"
        );
        for l in wrap(&text, w) {
            lines.push((Line::styled(l, theme.dim()), false));
        }
    }
    lines.push((
        Line::from(vec![
            Span::styled("Enter", theme.key()),
            Span::styled(" opens it side by side with the capture", theme.dim()),
        ]),
        false,
    ));
    // Below: the other strategies' notes, so the ones that did nothing are explained at a
    // glance (the pane scrolls to them).
    let mut others: Vec<(Strategy, &crate::projection::Note)> = Strategy::ALL
        .iter()
        .filter(|&&s| s != strategy)
        .filter_map(|&s| ctx.projection(s).map(|p| (s, p)))
        .flat_map(|(s, p)| sorted_notes(&p.notes).into_iter().map(move |n| (s, n)))
        .collect();
    // Errors first across strategies too (the sort is stable: strategy order within a level).
    others.sort_by_key(|(_, n)| n.level != crate::projection::Level::Error);
    if !others.is_empty() {
        lines.push((Line::raw(""), false));
        lines.push((
            Line::styled("Notes of the other strategies", theme.heading()),
            false,
        ));
        for (s, n) in others {
            note(
                &mut lines,
                note_bullet(theme, n, &format!("{}: ", s.id()), w),
            );
        }
    }
    lines
}

/// Draw the chosen strategy's summary and notes, then the other strategies' notes; the pane
/// scrolls (PgDn/PgUp) and its last row says how many notes are below.
pub fn render_notes(ctx: &Context, tab: &OverviewTab, frame: &mut Frame, area: Rect) {
    let theme = ctx.theme;
    let strategy = tab.strategy();
    let outer = block(
        theme,
        format!(
            " {} · {} · {} ",
            strategy.id(),
            strategy.release(&ctx.settings).unwrap_or("-"),
            strategy.family()
        ),
        false,
    );
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let lines = notes_lines(ctx, strategy, inner.width as usize);
    let starts: Vec<bool> = lines.iter().map(|(_, s)| *s).collect();
    let height = inner.height as usize;
    let (range, below, _) = notes_window(&starts, height, tab.notes.offset);
    let mut shown: Vec<Line> = lines
        .into_iter()
        .skip(range.start)
        .take(range.len())
        .map(|(l, _)| l)
        .collect();
    if below > 0 {
        let noun = if below == 1 { "note" } else { "notes" };
        shown.push(Line::from(vec![
            Span::styled(format!("{below} more {noun} ↓ "), theme.warn()),
            Span::styled("PgDn", theme.key()),
        ]));
    } else if range.start > 0 {
        shown.push(Line::from(vec![
            Span::styled("end of the notes ↑ ", theme.dim()),
            Span::styled("PgUp", theme.key()),
        ]));
    }
    frame.render_widget(Paragraph::new(shown), inner);
}

/// The notes pane's largest scroll when it is at `notes` (0 without the pane): its rows less
/// the rows it shows, the last of which says what is below.
pub fn notes_scroll_max(ctx: &Context, tab: &OverviewTab, notes: Option<Rect>) -> usize {
    let Some(notes) = notes else {
        return 0;
    };
    // Inside the pane's border.
    let (width, height) = (
        notes.width.saturating_sub(2),
        notes.height.saturating_sub(2),
    );
    let rows = notes_lines(ctx, tab.strategy(), width as usize).len();
    rows.saturating_sub((height as usize).saturating_sub(1))
}

/// The overview's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OverviewTab {
    /// The strategy chosen (its index in [`Strategy::ALL`]).
    pub strategies: ListCursor,
    /// The notes pane's scroll.
    pub notes: ListCursor,
}

impl OverviewTab {
    /// The index of the strategy chosen.
    pub fn selected(&self) -> usize {
        self.strategies.selected
    }

    /// The strategy chosen.
    pub fn strategy(&self) -> Strategy {
        Strategy::ALL[self.selected().min(Strategy::ALL.len() - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_in_eighths() {
        assert_eq!(bar(10, 10, 4), "████");
        assert_eq!(bar(5, 10, 4), "██");
        assert_eq!(bar(0, 10, 4), "");
        assert_eq!(bar(1, 0, 4), "");
    }

    #[test]
    fn the_notes_window_counts_the_notes_below() {
        // Six rows: a summary row, three one-row notes, a two-row note.
        let starts = [false, true, true, true, true, false];
        assert_eq!(notes_window(&starts, 6, 0), (0..6, 0, 0));
        assert_eq!(notes_window(&starts, 6, 3), (0..6, 0, 0));
        // Three rows: two drawn, the third says what is below.
        assert_eq!(notes_window(&starts, 3, 0), (0..2, 3, 0));
        assert_eq!(notes_window(&starts, 3, 2), (2..4, 1, 2));
        // The last note's second row is still below: it counts.
        assert_eq!(notes_window(&starts, 3, 3), (3..5, 1, 3));
        // Scrolled past the end: clamped to the last full window.
        assert_eq!(notes_window(&starts, 3, 99), (4..6, 0, 4));
    }
}
