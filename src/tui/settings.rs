//! The settings editor overlay.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use crate::settings::Settings;
use crate::text::{fit, pad, safe};

use super::app::App;
use super::widgets::{block, centered, wrap};

/// Draw the settings editor.
pub fn render_settings(
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
