//! The export dialog overlay.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::strategy::Strategy;
use crate::text::{fit, safe};

use super::app::{App, default_export_path};
use super::keys::Context;
use super::widgets::{block, centered, wrap};

#[allow(clippy::too_many_arguments)]
pub fn render_export(
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
    if confirm {
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
