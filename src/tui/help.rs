//! The help overlay, generated from the key table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::text::pad;

use super::keys;
use super::theme::Theme;
use super::widgets::{block, centered};

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

/// Draw the help overlay, scrolled by `scroll` lines.
pub fn render_help(frame: &mut Frame, area: Rect, theme: Theme, scroll: usize) {
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
