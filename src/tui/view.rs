//! Drawing the whole frame: a pure function of the [`App`]. The chrome (header, tab bar, status
//! line, footer) is drawn here; each screen and dialog has its own module.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::text::{bytes, fit, safe, thousands, width};

use super::app::{App, Overlay, Tab};
use super::keys;
use super::layout::{MIN_HEIGHT, MIN_WIDTH, layout};
use super::overview::{render_notes, render_overview, render_servers};
use super::strategy::detail::render_detail;
use super::strategy::render_tools;
use super::tabs::{tab_label, tab_spans};
use super::theme::Theme;
use super::widgets::{block, centered, wrap};

/// Draw the whole frame.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let theme = app.ctx.theme;
    let l = layout(area, app.tab, app.layout_flags());
    if l.too_small {
        render_too_small(frame, area, theme);
        return;
    }
    render_header(app, frame, l.header);
    render_tabs(app, frame, l.tabs);
    match app.tab {
        Tab::Matrix => {
            let m = app.matrix();
            if let Some(legend) = l.legend {
                let best = super::matrix::best(&m);
                let measuring = !m.counted || m.columns.iter().any(Option::is_none);
                let folded = super::matrix::folded_line(&m);
                let text = super::matrix::legend(
                    legend.width as usize,
                    best.as_deref(),
                    folded.as_deref(),
                    measuring,
                );
                frame.render_widget(
                    Paragraph::new(Line::styled(format!(" {text}"), theme.dim())),
                    legend,
                );
            }
            if let Some(table) = l.table {
                super::matrix::draw(&m, app.matrix_tab.cursor, theme, frame, table);
            }
        }
        Tab::Overview => {
            if let Some(table) = l.table {
                render_overview(&app.ctx, &app.overview, frame, table, l.notes.is_none());
            }
            if let Some(notes) = l.notes {
                render_notes(&app.ctx, &app.overview, frame, notes);
            }
            if let Some(servers) = l.servers {
                render_servers(&app.ctx, frame, servers);
            }
        }
        Tab::Strategy(_) => {
            if let (Some(rect), Some((text, error))) = (l.banner, app.banner()) {
                let style = if error { theme.error() } else { theme.warn() };
                frame.render_widget(
                    Paragraph::new(Line::styled(
                        fit(&format!(" {text}"), rect.width as usize),
                        style,
                    )),
                    rect,
                );
            }
            if let Some(screen) = app.strategy_screen() {
                if let Some(table) = l.table {
                    render_tools(&screen, frame, table);
                }
                if let Some(detail) = l.detail {
                    render_detail(&screen, frame, detail);
                }
            }
        }
    }
    render_status(app, frame, l.status);
    render_footer(app, frame, l.footer);
    match &app.overlay {
        Some(Overlay::Help(help)) => help.render(frame, area, theme),
        Some(Overlay::QuitConfirm) => render_quit(frame, area, theme),
        Some(Overlay::Settings(dialog)) => dialog.render(&app.ctx, frame, area),
        Some(Overlay::Export(dialog)) => dialog.render(&app.ctx, frame, area),
        None => {}
    }
}

/// The message drawn instead of a frame below the minimum size.
pub(crate) fn render_too_small(frame: &mut Frame, area: Rect, theme: Theme) {
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
    let theme = app.ctx.theme;
    let tokens = app.ctx.capture_tokens().map_or("… tokens".to_owned(), |t| {
        format!("{} tokens", thousands(t))
    });
    // The footer lists these keys too: on a narrow terminal the title gets the room. The
    // badge stays whatever the width: figures under changed settings must not pass for the
    // defaults.
    let changed = app.ctx.settings_changed_from_default();
    let badge = match changed {
        0 => String::new(),
        1 => "[1 setting changed] ".to_owned(),
        n => format!("[{n} settings changed] "),
    };
    let keys = if area.width >= 100 {
        "? help  q quit "
    } else {
        ""
    };
    let right = format!("{badge}{keys}");
    let shown_path = safe(crate::capture::display_name(&app.ctx.path));
    let parts = [
        shown_path,
        app.ctx.capture.shape().id().to_owned(),
        format!("{} tools", thousands(app.ctx.capture.tools().len())),
        bytes(app.ctx.capture_bytes),
        tokens,
        app.ctx.encoding.id().to_owned(),
    ];
    let room = (area.width as usize).saturating_sub(width(&right) + 12);
    let name = std::path::Path::new(&app.ctx.path)
        .file_name()
        .map_or(app.ctx.path.clone(), |n| safe(&n.to_string_lossy()));
    let left = title_fields(parts.to_vec(), &name, room);
    let gap = (area.width as usize).saturating_sub(11 + width(&left) + width(&right));
    let line = Line::from(vec![
        Span::styled(" toolprism ", theme.title(false)),
        Span::raw(left),
        Span::raw(" ".repeat(gap)),
        Span::styled(badge, theme.warn()),
        Span::styled(keys, theme.dim()),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

/// `text` in `room` cells: whole ` · ` fields drop from the end, then a trailing `(...)` of
/// the first, before anything is cut (a figure is never cut while a field can go instead).
pub fn fit_fields(text: &str, room: usize) -> String {
    if width(text) <= room {
        return text.to_owned();
    }
    let mut fields: Vec<&str> = text.split(" · ").collect();
    while fields.len() > 1 && width(&fields.join(" · ")) > room {
        fields.pop();
    }
    let first = fields.join(" · ");
    if width(&first) <= room {
        return first;
    }
    match first.rfind(" (") {
        Some(at) if first.ends_with(')') && width(&first[..at]) <= room => first[..at].to_owned(),
        _ => fit(&first, room),
    }
}

/// The title's fields (path, shape, tools, bytes, tokens, encoding) in `room` cells. A number
/// is never cut: whole fields drop, in this order, until the rest fits: the path becomes the
/// file name, then the encoding goes, the bytes, the shape, the tool count; then the name is
/// cut (it is text, marked `…`) or dropped; the capture's token total goes last.
pub fn title_fields(mut parts: Vec<String>, name: &str, room: usize) -> String {
    let joined = |p: &[String]| {
        p.iter()
            .filter(|f| !f.is_empty())
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" · ")
    };
    if width(&joined(&parts)) <= room {
        return joined(&parts);
    }
    parts[0] = name.to_owned();
    // Indices into [path, shape, tools, bytes, tokens, encoding], in dropping order.
    for drop in [5, 3, 1, 2] {
        if width(&joined(&parts)) <= room {
            break;
        }
        parts[drop].clear();
    }
    parts.retain(|p| !p.is_empty());
    if width(&joined(&parts)) <= room {
        return joined(&parts);
    }
    // Only the name and the token total are left.
    let tokens = parts.pop().unwrap_or_default();
    let rest = room.saturating_sub(width(&tokens) + 3);
    if rest >= 4 {
        format!("{} · {tokens}", fit(&parts[0], rest))
    } else if width(&tokens) <= room {
        tokens
    } else {
        String::new()
    }
}

fn render_quit(frame: &mut Frame, area: Rect, theme: Theme) {
    let rect = centered(area, 52, 5);
    frame.render_widget(Clear, rect);
    let outer = block(theme, " Quit? ".to_owned(), true);
    let inner = outer.inner(rect);
    frame.render_widget(outer, rect);
    let w = inner.width as usize;
    let lines = vec![
        Line::styled(
            fit("The settings were changed in this session.", w),
            theme.warn(),
        ),
        Line::from(vec![
            Span::styled("y", theme.key()),
            Span::raw(" quit  "),
            Span::styled("n Esc", theme.key()),
            Span::raw(" stay"),
        ]),
    ];
    frame.render_widget(Paragraph::new(lines), inner);
}

fn render_tabs(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.ctx.theme;
    let spans = tab_spans(app.tab, area.width);
    let mut line = Vec::new();
    let first = spans.first().map_or(0, |s| s.0.index());
    let last = spans.last().map_or(0, |s| s.0.index());
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

const SPINNER: [&str; 4] = ["|", "/", "-", "\\"];

fn render_status(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.ctx.theme;
    let w = area.width as usize;
    let mut right = String::new();
    if let Some((done, total, what)) = app.ctx.progress {
        right = format!(
            "{} {what} {done}/{total} ",
            SPINNER[app.ctx.spinner % SPINNER.len()]
        );
    }
    let left: Line = if app.search.typing {
        search_status(app)
    } else if let Some((message, error)) = &app.status {
        Line::styled(
            format!(" {message}"),
            if *error { theme.error() } else { theme.good() },
        )
    } else {
        Line::styled(idle_status(app), theme.text())
    };
    let room = w.saturating_sub(width(&right));
    let mut spans: Vec<Span> = Vec::new();
    let mut used = 0;
    let single = left.spans.len() == 1;
    for span in left.spans {
        if used >= room {
            break;
        }
        // A line of ` · ` fields loses whole fields rather than a cut number.
        let piece = if single {
            fit_fields(&span.content, room - used)
        } else {
            fit(&span.content, room - used)
        };
        used += width(&piece);
        spans.push(Span::styled(piece, span.style));
    }
    spans.push(Span::raw(" ".repeat(room.saturating_sub(used))));
    spans.push(Span::styled(fit(&right, w), theme.warn()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The status line while a search is typed: the text, the matches and their tokens.
fn search_status(app: &App) -> Line<'static> {
    let theme = app.ctx.theme;
    // The tokens of the tools a search keeps, before and as sent.
    // Entries counted one by one: the whole array (the header's figure) adds its brackets and
    // commas, so the words say which figure this is.
    let matrix_subtotal =
        (app.tab == Tab::Matrix && !app.search.input.text.is_empty()).then(|| {
            format!(
                " · original {} tokens in their entries",
                thousands(app.matrix().subtotal().0)
            )
        });
    let subtotal = app.search_subtotal().map(|(_, _, before, after)| {
        format!(
            " · {} → {} tokens in their entries",
            thousands(before),
            thousands(after)
        )
    });
    let shown = if app.tab == Tab::Matrix {
        app.matrix().shown.len()
    } else {
        app.rows().len()
    };
    Line::from(vec![
        Span::styled(" /", theme.key()),
        Span::styled(safe(&app.search.input.shown()), theme.input()),
        Span::styled(
            format!(
                "  {shown} {}{} · Enter keeps · Esc clears",
                if shown == 1 { "match" } else { "matches" },
                subtotal.or(matrix_subtotal).unwrap_or_default()
            ),
            theme.dim(),
        ),
    ])
}

/// The status line with nothing typed or reported: the filtered matrix's subtotals, a
/// search's, or the current strategy's figures; on a strategy tab, the sort and filter.
fn idle_status(app: &App) -> String {
    let s = app.strategy();
    let filtered = app.tab == Tab::Matrix
        && (!app.search.input.text.is_empty() || app.matrix_tab.changed_by.is_some());
    let mut text = if filtered {
        matrix_status(app)
    } else if let Some((shown, total, before, after)) = app.search_subtotal() {
        format!(
            " {} of {} tools match \"{}\": {} → {} tokens under {}",
            thousands(shown),
            thousands(total),
            safe(&app.search.input.text),
            thousands(before),
            thousands(after),
            s.id()
        )
    } else {
        match (app.ctx.figures(s), app.ctx.capture_tokens()) {
            (Some(f), _) if f.is_refused() => {
                format!(" {}: refused by {}, no figures", s.id(), s.refused_by())
            }
            (Some(f), Some(_)) => format!(
                " {}: {} · {} → {} tools",
                s.id(),
                app.ctx.tokens_headline(s).unwrap_or_default(),
                thousands(app.ctx.capture.tools().len()),
                thousands(f.tools.unwrap_or(0))
            ),
            _ => format!(" {}: measuring…", s.id()),
        }
    };
    if let Tab::Strategy(_) = app.tab {
        text.push_str(&format!(" · sort {}", app.strategy_tab.sort.label()));
        if !app.search.input.text.is_empty() && app.search_subtotal().is_none() {
            text.push_str(&format!(" · filter \"{}\"", safe(&app.search.input.text)));
        }
    }
    text
}

/// The filtered matrix's status: the tools shown, their tokens before and under the
/// cursor's strategy, and what filters them.
fn matrix_status(app: &App) -> String {
    let s = app.strategy();
    let m = app.matrix();
    let (original, per_column) = m.subtotal();
    let mut t = format!(
        " {} of {} tools · original {} tokens",
        thousands(m.shown.len()),
        thousands(m.unfiltered),
        thousands(original),
    );
    if let Some(sent) = s.index().checked_sub(1).and_then(|c| per_column.get(c)) {
        t.push_str(&format!(" → {} {} tokens", s.id(), thousands(*sent)));
    }
    if !app.search.input.text.is_empty() {
        t.push_str(&format!(" · search \"{}\"", safe(&app.search.input.text)));
    }
    if let Some(c) = app.matrix_tab.changed_by {
        t.push_str(&format!(" · changed by {}", c.id()));
    }
    t
}

fn render_footer(app: &App, frame: &mut Frame, area: Rect) {
    render_hints(app.ctx.theme, app.context(), frame, area);
}

/// The key hints of `context` on one line (the session view draws its footer with it too).
pub(crate) fn render_hints(theme: Theme, context: keys::Context, frame: &mut Frame, area: Rect) {
    let w = area.width as usize;
    let hints = keys::hints(context);
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
