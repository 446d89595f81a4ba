//! Small drawing helpers every screen shares: a titled block, a centred dialog rectangle, word
//! wrapping and bullets.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::projection::{Level, Note};

use super::theme::Theme;

/// A bordered block with a title; the focused one has a thicker border and a bold title.
pub fn block(theme: Theme, title: String, focused: bool) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(theme.border_type(focused))
        .border_style(theme.border(focused))
        .title(Span::styled(title, theme.title(focused)))
}

/// Draw `lines` into `area` from row `scroll`, the scroll kept within the last full page.
pub fn render_scrolled(frame: &mut Frame, area: Rect, lines: Vec<Line<'static>>, scroll: usize) {
    let height = area.height as usize;
    let scroll = scroll.min(lines.len().saturating_sub(height));
    let visible: Vec<Line> = lines.into_iter().skip(scroll).take(height).collect();
    frame.render_widget(Paragraph::new(visible), area);
}

/// A `w`×`h` rectangle centred in `area` (clamped to it).
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// Wrap `text` into lines of at most `cells` cells at spaces, a word longer than a line cut
/// between clusters (the project's one word-wrap, [`crate::text::wrap`]).
pub fn wrap(text: &str, cells: usize) -> Vec<String> {
    if cells == 0 {
        return Vec::new();
    }
    crate::text::wrap(text, cells, crate::text::LongWords::Break)
}

/// A note as the inspector shows it: sanitized, its level in front unless it only explains,
/// and the CLI's `--set KEY=VALUE` advice turned into the key that does it here (`S`).
pub fn note_text(note: &Note) -> String {
    let text = keys_not_flags(&crate::text::safe(&note.text));
    match note.level {
        Level::Info => text,
        level => format!("{}: {text}", level.word()),
    }
}

/// Text written for the command line, with its `--set KEY=VALUE` advice turned into the key
/// that does the same here (`S`, the settings editor).
pub fn keys_not_flags(text: &str) -> String {
    text.replace("try --set ", "press S and set ")
        .replace("--set ", "S: ")
}

/// Notes in the order they matter: errors, then warnings, then explanations (stable within a
/// level).
pub fn sorted_notes(notes: &[Note]) -> Vec<&Note> {
    let mut out: Vec<&Note> = notes.iter().collect();
    out.sort_by_key(|n| match n.level {
        Level::Error => 0,
        Level::Warning => 1,
        Level::Info => 2,
    });
    out
}

/// A note as a bullet whose mark says its level without colour: `✗` an error (error colour),
/// `!` a warning (warning colour), `·` an explanation (dim: it never looks like a warning).
pub fn note_bullet(theme: Theme, note: &Note, prefix: &str, cells: usize) -> Vec<Line<'static>> {
    let (lead, style) = match note.level {
        Level::Error => ("✗ ", theme.error()),
        Level::Warning => ("! ", theme.warn()),
        Level::Info => ("· ", theme.dim()),
    };
    let text = format!("{prefix}{}", note_text(note));
    wrap(&text, cells.saturating_sub(2))
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let lead = if i == 0 { lead } else { "  " };
            let body = if note.level == Level::Error {
                Span::styled(l, theme.error())
            } else {
                Span::raw(l)
            };
            Line::from(vec![Span::styled(lead, style), body])
        })
        .collect()
}

/// A note as a `* ` bullet wrapped to `cells`, its continuation lines indented under the text.
pub fn bullet(theme: Theme, text: &str, cells: usize) -> Vec<Line<'static>> {
    wrap(text, cells.saturating_sub(2))
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let lead = if i == 0 { "* " } else { "  " };
            Line::from(vec![Span::styled(lead, theme.warn()), Span::raw(l)])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::width;

    #[test]
    fn wrap_breaks_at_spaces_and_never_exceeds_width() {
        let lines = wrap("the quick brown fox jumps over the lazy dog", 10);
        assert!(lines.iter().all(|l| width(l) <= 10), "{lines:?}");
        assert_eq!(
            lines.join(" "),
            "the quick brown fox jumps over the lazy dog"
        );
        assert_eq!(wrap("", 5), vec![String::new()]);
        assert!(wrap("abc", 0).is_empty());
        let cjk = wrap("日本語日本語", 5);
        assert!(cjk.iter().all(|l| width(l) <= 5), "{cjk:?}");
    }
}
