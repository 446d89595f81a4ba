//! The export dialog overlay.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::strategy::Strategy;
use crate::text::{fit, safe, skip_cells, thousands, width};

use super::app::{App, default_export_path};
use super::input;
use super::widgets::{block, centered, wrap};

/// What the chosen form writes, and what it leaves out.
fn what_is_written(app: &App, strategy: Strategy, tools_only: bool) -> String {
    match app.projection(strategy) {
        Some(p) if tools_only && p.added_text.is_some() => format!(
            "tools only leaves out the text {} adds outside the tools (the request body keeps it)",
            strategy.id()
        ),
        _ if tools_only => "tools only: the `tools` array alone, no request around it".to_owned(),
        _ => "the whole projected request body".to_owned(),
    }
}

/// What the user takes on with `strategy` (the tools the host must implement, ...), wrapped to
/// `w`, then a blank line; nothing when it asks nothing.
fn need_lines(app: &App, strategy: Strategy, w: usize) -> Vec<Line<'static>> {
    let needs = app
        .projection(strategy)
        .map(|p| crate::export::needs(&app.capture, p))
        .unwrap_or_default();
    let mut lines: Vec<Line<'static>> = needs
        .iter()
        .flat_map(|need| wrap(&safe(&format!("needs: {need}")), w))
        .map(|l| Line::styled(l, app.theme.warn()))
        .collect();
    if !lines.is_empty() {
        lines.push(Line::raw(""));
    }
    lines
}

/// Draw the export dialog: the choice, the path being typed (with its cursor), where a
/// relative path goes, what will be written (form, bytes, tokens), and the last error or
/// question. The dialog grows to hold its question, so a question is never cut off.
#[allow(clippy::too_many_arguments)]
pub fn render_export(
    app: &App,
    frame: &mut Frame,
    area: Rect,
    strategy: Strategy,
    (tools_only, pretty): (bool, bool),
    (path, cursor): (&str, usize),
    confirm: bool,
    error: Option<&str>,
) {
    let theme = app.theme;
    let w = (area.width.min(76) as usize).saturating_sub(2);
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
    // The path scrolls so the cursor stays in view.
    let shown = safe(&input::with_cursor(path, cursor));
    let room = w.saturating_sub(6);
    let at = width(&safe(&path.chars().take(cursor).collect::<String>()));
    let shown = if width(&shown) > room && at + 2 > room {
        format!("…{}", skip_cells(&shown, at + 3 - room))
    } else {
        shown
    };
    let dropped = what_is_written(app, strategy, tools_only);
    // The folder the file lands in, whole: a relative path is read from the current folder.
    let expanded = input::expand_home(path, app.home.as_deref());
    let target = std::path::Path::new(&app.cwd).join(&expanded);
    let folder = match target.parent() {
        Some(dir) => format!("into {}", safe(&dir.to_string_lossy())),
        None => String::new(),
    };
    let size = match app.export_bytes(strategy, tools_only, pretty) {
        Some(bytes) => {
            let tokens = app
                .figures(strategy)
                .and_then(|f| f.total_tokens)
                .map_or(String::new(), |t| {
                    format!(" · {} tokens sent ({})", thousands(t), app.encoding.id())
                });
            format!("{} bytes to write{tokens}", thousands(bytes.len()))
        }
        None => "still being projected".to_owned(),
    };
    let mut lines = vec![
        Line::from(vec![
            choice(!tools_only, "request body"),
            Span::raw("   "),
            choice(tools_only, "tools only"),
            Span::styled("   Tab switches", theme.dim()),
        ]),
        Line::from(vec![
            choice(!pretty, "compact"),
            Span::raw("   "),
            choice(pretty, "pretty (2-space indent)"),
            Span::styled("   ^p switches", theme.dim()),
        ]),
        Line::styled(fit(&dropped, w), theme.dim()),
        Line::styled(fit(&size, w), theme.dim()),
        Line::raw(""),
        Line::from(vec![
            Span::styled("path ", theme.dim()),
            Span::styled(fit(&shown, room + 1), theme.input()),
        ]),
        Line::styled(fit(&folder, w), theme.dim()),
        Line::styled(
            fit(
                &format!(
                    "written atomically; ~ is your home; default {}",
                    default_export_path(&app.path, strategy, tools_only)
                ),
                w,
            ),
            theme.dim(),
        ),
        Line::styled(
            fit(
                "←/→ Home/End move · ^U clears to the start · ^W deletes a word",
                w,
            ),
            theme.dim(),
        ),
        Line::raw(""),
    ];
    lines.extend(need_lines(app, strategy, w));
    if confirm && let Some(e) = error {
        for l in wrap(&safe(e), w) {
            lines.push(Line::styled(l, theme.error()));
        }
        for l in wrap("Write a request the provider will reject? y / n", w) {
            lines.push(Line::styled(l, theme.warn()));
        }
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
    // When the terminal is too short for all of it, the question (at the end) stays and the
    // help lines above it go first.
    let height = area.height.saturating_sub(2) as usize;
    while lines.len() > height && lines.len() > 9 {
        lines.remove(8);
    }
    let rect = centered(area, 76, lines.len() as u16 + 2);
    frame.render_widget(Clear, rect);
    let outer = block(theme, format!(" Export {} ", strategy.id()), true);
    let inner = outer.inner(rect);
    frame.render_widget(outer, rect);
    if lines.len() > inner.height as usize {
        // Still too short: keep the end, where the question is.
        let cut = lines.len() - inner.height as usize;
        lines.drain(..cut);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
