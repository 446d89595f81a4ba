//! The help overlay, generated from the key table: its state ([`HelpState`]), its keys and its
//! drawing, the same in the inspector and the session view.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Clear;

use crate::text::{pad, safe};

use crate::tui::keys::{self, Action, Context};
use crate::tui::theme::Theme;
use crate::tui::widgets::{block, centered, render_scrolled, wrap};

/// Every glyph the screens draw instead of a word, and what it means.
pub const GLYPHS: &[(&str, &str)] = &[
    (
        "= ~ + × »",
        "matrix: unchanged, changed, added, removed, deferred (× » send nothing)",
    ),
    (
        "…",
        "still being measured (the legend says so until every column is counted)",
    ),
    (
        "refused",
        "the host refuses the capture under this strategy: no figures",
    ),
    (
        "name!",
        "matrix header: a provider would reject the request this strategy sends",
    ),
    (
        "▼ ▲",
        "the column the rows are sorted by, largest or smallest first",
    ),
    (
        "‹3  4›",
        "strategy columns hidden to the left and right (h l pan)",
    ),
    (
        "a›b  a…b",
        "a name shortened: MCP prefix collapsed, or its middle cut",
    ),
    (
        "= ~ - » +",
        "tool table: kept, changed, removed, deferred, added",
    ),
    (
        "!name",
        "the tool carries control or invisible characters (shown as escapes)",
    ),
    (
        "↪",
        "diff: the line above goes on here (wrapped at a word; w turns wrapping off)",
    ),
    (
        "›",
        "diff: the line goes on past the edge (w wraps it, h l scroll)",
    ),
    ("*", "overview: the strategy has notes"),
    ("▌", "the selected row"),
    (
        "▲ *",
        "session view: the observed cache broke; a charted strategy's tool list changed",
    ),
    ("● ○", "session totals: the strategy is charted, or not"),
];

/// The help's lines: the keys of `first` (the view it was opened from) first, then the others,
/// then the glyphs; only lines containing `filter` (case-insensitive) when it is not empty.
/// The help overlay's widest: its longest line whole, with room to spare.
const HELP_WIDTH: u16 = 104;

/// Cells of help text inside an overlay on a terminal `columns` wide.
fn text_width(columns: u16) -> usize {
    usize::from(columns.min(HELP_WIDTH).saturating_sub(2))
}

/// One key's row: its keys, then its help wrapped under itself (never cut), each line
/// indented past the keys; on a screen too narrow for that, the help wraps under the keys.
fn key_rows(theme: Theme, label: &str, help: &str, width: usize) -> Vec<Line<'static>> {
    const KEYS: usize = 16;
    let room = width.saturating_sub(KEYS);
    if room < 12 {
        let mut lines = vec![Line::styled(format!("  {label}"), theme.key())];
        lines.extend(
            wrap(help, width.saturating_sub(4))
                .into_iter()
                .map(|l| Line::raw(format!("    {l}"))),
        );
        return lines;
    }
    wrap(help, room)
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let keys = if i == 0 {
                format!("  {}", pad(label, KEYS - 2))
            } else {
                " ".repeat(KEYS)
            };
            Line::from(vec![Span::styled(keys, theme.key()), Span::raw(text)])
        })
        .collect()
}

fn help_lines(theme: Theme, first: Context, filter: &str, width: usize) -> Vec<Line<'static>> {
    let needle = filter.to_lowercase();
    let keep = |label: &str, help: &str| {
        needle.is_empty()
            || label.to_lowercase().contains(&needle)
            || help.to_lowercase().contains(&needle)
    };
    let mut sections = keys::help_sections();
    if let Some(at) = sections.iter().position(|(c, _)| *c == first) {
        let section = sections.remove(at);
        sections.insert(0, section);
    }
    let mut lines = Vec::new();
    let section = |title: String, rows: Vec<(&str, &str)>, lines: &mut Vec<Line<'static>>| {
        let rows: Vec<(&str, &str)> = rows.into_iter().filter(|(l, h)| keep(l, h)).collect();
        if rows.is_empty() {
            return;
        }
        lines.push(Line::styled(title, theme.heading()));
        for (label, help) in rows {
            lines.extend(key_rows(theme, label, help, width));
        }
        lines.push(Line::raw(""));
    };
    for (context, bindings) in sections {
        let title = if context == first {
            format!("{} (this view)", context.title())
        } else {
            context.title().to_owned()
        };
        section(title, bindings, &mut lines);
    }
    section("Glyphs".to_owned(), GLYPHS.to_vec(), &mut lines);
    if lines.is_empty() {
        lines.push(Line::styled(
            format!("nothing matches \"{}\"", safe(filter)),
            theme.dim(),
        ));
    }
    lines
}

/// Lines in the help overlay opened from `first` with this filter.
pub fn help_len(first: Context, filter: &str, columns: u16) -> usize {
    help_lines(Theme::new(false), first, filter, text_width(columns)).len()
}

/// The help overlay's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpState {
    /// Lines scrolled.
    pub scroll: usize,
    /// The view it was opened from: its keys come first.
    pub first: Context,
    /// Only the lines containing this.
    pub filter: String,
    /// The filter is being typed.
    pub typing: bool,
}

impl HelpState {
    /// The help opened from the view whose keys are looked up in `first`.
    pub fn open(first: Context) -> HelpState {
        HelpState {
            scroll: 0,
            first,
            filter: String::new(),
            typing: false,
        }
    }

    /// The context its keys are looked up in.
    pub fn context(&self) -> Context {
        if self.typing {
            Context::HelpSearch
        } else {
            Context::Help
        }
    }

    /// Apply one of its keys' actions. Returns `false` when the help closes.
    pub fn act(&mut self, action: Action, columns: u16) -> bool {
        match (self.typing, action) {
            (true, Action::Confirm) => self.typing = false,
            (true, Action::Back) => {
                self.typing = false;
                self.filter.clear();
            }
            (true, Action::Backspace) => {
                self.filter.pop();
                self.scroll = 0;
            }
            (false, Action::Back) if !self.filter.is_empty() => self.filter.clear(),
            (false, Action::Back) => return false,
            (false, Action::Search) => {
                self.typing = true;
                self.scroll = 0;
            }
            (_, Action::Down) => self.scroll += 1,
            (_, Action::Up) => self.scroll = self.scroll.saturating_sub(1),
            (_, Action::PageDown) => self.scroll += 10,
            (_, Action::PageUp) => self.scroll = self.scroll.saturating_sub(10),
            (false, Action::Top) => self.scroll = 0,
            (false, Action::Bottom) => self.scroll = usize::MAX / 2,
            _ => {}
        }
        self.scroll = self
            .scroll
            .min(help_len(self.first, &self.filter, columns).saturating_sub(1));
        true
    }

    /// A character typed into the filter (ignored unless it is being typed).
    pub fn type_char(&mut self, c: char) {
        if self.typing {
            self.filter.push(c);
            self.scroll = 0;
        }
    }

    /// Draw it over `area`.
    pub fn render(&self, frame: &mut Frame, area: Rect, theme: Theme) {
        let rect = centered(area, HELP_WIDTH, area.height.saturating_sub(2));
        frame.render_widget(Clear, rect);
        let title = if self.typing || !self.filter.is_empty() {
            format!(
                " Keys matching /{}{} · Esc ",
                safe(&self.filter),
                if self.typing { "▏" } else { "" }
            )
        } else {
            " Keys · / filters · Esc closes ".to_owned()
        };
        let outer = block(theme, title, true);
        let inner = outer.inner(rect);
        frame.render_widget(outer, rect);
        let lines = help_lines(theme, self.first, &self.filter, text_width(area.width));
        render_scrolled(frame, inner, lines, self.scroll);
    }
}
