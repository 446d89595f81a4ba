//! The settings dialog: its state ([`SettingsDialog`]: the row chosen, the value being typed,
//! the last refusal), its keys, and its view model ([`SettingsView`], computed from the
//! context's settings and the engine's figures) drawn by a pure function. The figures of the strategies the chosen
//! setting changes stay in the dialog while it is open, as before → after once a value was
//! applied (the worker measures the new settings in the background; `…` until it has).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use crate::settings::Settings;
use crate::strategy::Strategy;
use crate::text::{fit, pad, safe, signed, thousands};

use crate::strategies::registry;
use crate::tui::context::Context;
use crate::tui::input::{self, Input};
use crate::tui::keys::{self, Action};
use crate::tui::theme::Theme;
use crate::tui::widgets::{block, centered, wrap};

/// Most strategies listed under the figures (the encoding changes them all).
const MAX_FIGURES: usize = 3;

/// The settings dialog's state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SettingsDialog {
    /// The row chosen (`Settings::KEYS`, then the encoding).
    pub selected: usize,
    /// The value being typed, when editing.
    pub editing: Option<Input>,
    /// Why the last value was refused.
    pub error: Option<String>,
}

/// What a key in the settings dialog asks of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsOutcome {
    /// Nothing beyond the dialog's own state.
    Stay,
    /// Close the dialog.
    Close,
    /// Switch the encoding.
    ToggleEncoding,
    /// Put these settings in force (`None`: they are the ones in force) and say so.
    Apply(Option<Box<Settings>>, String),
}

impl SettingsDialog {
    /// The key table in force: the list's, or the value's while one is typed.
    pub fn context(&self) -> keys::Context {
        if self.editing.is_some() {
            keys::Context::SettingsEdit
        } else {
            keys::Context::Settings
        }
    }

    /// Answer a key over the settings in force.
    pub fn act(&mut self, action: Action, ctx: &Context) -> SettingsOutcome {
        let rows = Settings::KEYS.len() + 1;
        if let Some(text) = &mut self.editing {
            if let Some(edit) = input::edit_of(action) {
                text.edit(edit);
                return SettingsOutcome::Stay;
            }
            match action {
                Action::Back => {
                    self.editing = None;
                    self.error = None;
                }
                Action::Confirm => {
                    let key = Settings::KEYS[self.selected].key;
                    let value = text.text.clone();
                    let mut next = ctx.settings.clone();
                    match next.set(key, &value) {
                        Ok(()) => {
                            self.editing = None;
                            self.error = None;
                            let changed = (next != ctx.settings).then(|| Box::new(next));
                            return SettingsOutcome::Apply(changed, format!("{key}={value}"));
                        }
                        Err(e) => self.error = Some(e.to_string()),
                    }
                }
                _ => {}
            }
            return SettingsOutcome::Stay;
        }
        match action {
            Action::Back => return SettingsOutcome::Close,
            Action::Down => self.selected = (self.selected + 1).min(rows - 1),
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Confirm => {
                if self.selected == Settings::KEYS.len() {
                    return SettingsOutcome::ToggleEncoding;
                }
                let key = Settings::KEYS[self.selected].key;
                if let Some(values) = Settings::KEYS[self.selected].choices() {
                    let now = ctx.settings.get(key).unwrap_or_default();
                    let at = values.iter().position(|v| *v == now).unwrap_or(0);
                    let next = values[(at + 1) % values.len()];
                    let mut settings = ctx.settings.clone();
                    if settings.set(key, next).is_ok() {
                        return SettingsOutcome::Apply(
                            Some(Box::new(settings)),
                            format!("{key}={next}"),
                        );
                    }
                } else {
                    self.editing = Some(Input::new(ctx.settings.get(key).unwrap_or_default()));
                    self.error = None;
                }
            }
            Action::Reset => {
                let defaults = Settings::default();
                let changed = (ctx.settings != defaults).then(|| Box::new(defaults));
                return SettingsOutcome::Apply(
                    changed,
                    "settings back to their defaults".to_owned(),
                );
            }
            _ => {}
        }
        SettingsOutcome::Stay
    }

    /// A character typed: into the value, while one is typed.
    pub fn type_char(&mut self, c: char) {
        if let Some(text) = &mut self.editing {
            text.edit(input::Edit::Insert(c));
        }
    }

    /// Draw the dialog over `area`.
    pub fn render(&self, ctx: &Context, frame: &mut Frame, area: Rect) {
        let view = SettingsView::new(
            ctx,
            self.selected,
            self.editing.as_ref(),
            self.error.as_deref(),
        );
        draw(&view, ctx.theme, frame, area);
    }
}

/// One row of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingRow {
    /// The key (`encoding` last).
    pub key: &'static str,
    /// Its value as shown (sanitized), or the text being typed with the cursor.
    pub value: String,
    /// It differs from its default.
    pub changed: bool,
}

/// What the settings dialog shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsView {
    /// Every setting, then the encoding.
    pub rows: Vec<SettingRow>,
    /// The chosen row.
    pub selected: usize,
    /// A value is being typed.
    pub editing: bool,
    /// What the chosen setting does.
    pub help: String,
    /// The figures of the strategies the chosen setting changes, one a line.
    pub figures: Vec<String>,
    /// Why the last value was refused.
    pub error: Option<String>,
}

impl SettingsView {
    /// The dialog for the app's settings with `selected` chosen.
    pub fn new(
        ctx: &Context,
        selected: usize,
        editing: Option<&Input>,
        error: Option<&str>,
    ) -> Self {
        let defaults = Settings::default();
        let mut rows: Vec<SettingRow> = Settings::KEYS
            .iter()
            .map(|k| {
                let value = ctx.settings.get(k.key).unwrap_or_default();
                SettingRow {
                    key: k.key,
                    changed: defaults.get(k.key).unwrap_or_default() != value,
                    value: safe(&value),
                }
            })
            .collect();
        rows.push(SettingRow {
            key: "encoding",
            value: ctx.encoding.id().to_owned(),
            changed: ctx.encoding != crate::measure::Encoding::default(),
        });
        let selected = selected.min(rows.len() - 1);
        if let Some(text) = editing {
            rows[selected].value = safe(&text.shown());
        }
        let help = Settings::KEYS.get(selected).map_or(
            "o200k_base (GPT-4o and later) or cl100k_base (GPT-4); Enter switches",
            |k| k.help,
        );
        SettingsView {
            figures: figure_lines(ctx, rows[selected].key),
            rows,
            selected,
            editing: editing.is_some(),
            help: help.to_owned(),
            error: error.map(safe),
        }
    }
}

/// The strategies whose figures a setting changes (every one for the encoding).
pub fn strategies_of(key: &str) -> Vec<Strategy> {
    if key == "encoding" {
        return Strategy::ALL.to_vec();
    }
    Strategy::ALL
        .into_iter()
        .filter(|&s| registry::find(key).is_some_and(|k| k.affects(s)))
        .collect()
}

/// `defer: 2,450 tokens`, or after a change `defer: 2,450 → 1,980 tokens (-470)` (`+80` when
/// it grew): each
/// strategy `key` changes, measured under the settings before the last change and now.
fn figure_lines(ctx: &Context, key: &str) -> Vec<String> {
    let strategies = strategies_of(key);
    if strategies.is_empty() {
        return vec![format!("no strategy's tokens depend on {key}")];
    }
    // Before → after only on the row of what the last change changed: another row's figures
    // moved for another reason (`encoding: original 8,168 → 8,168 (same)` said nothing).
    let before = ctx.settings_before.as_ref().filter(|(k, e)| {
        if key == "encoding" {
            *e != ctx.encoding
        } else {
            k.get(key) != ctx.settings.get(key)
        }
    });
    let total =
        |f: Option<&std::sync::Arc<crate::report::StrategyFigures>>| f.map(|f| f.total_tokens);
    let shown = |t: Option<Option<usize>>| match t {
        None => "…".to_owned(),
        Some(None) => "refused".to_owned(),
        Some(Some(n)) => thousands(n),
    };
    let mut lines: Vec<String> = strategies
        .iter()
        .take(MAX_FIGURES)
        .map(|&s| {
            let now = total(ctx.figures(s));
            match before {
                Some((k, e)) => {
                    let was = total(ctx.figures_under(s, k, *e));
                    let delta = match (was, now) {
                        (Some(Some(a)), Some(Some(b))) if a != b => {
                            let d = b as i64 - a as i64;
                            format!(" ({}{})", if d > 0 { "+" } else { "" }, signed(d))
                        }
                        (Some(Some(_)), Some(Some(_))) => " (same)".to_owned(),
                        _ => String::new(),
                    };
                    format!("{s}: {} → {} tokens{delta}", shown(was), shown(now))
                }
                None => format!("{s}: {} tokens", shown(now)),
            }
        })
        .collect();
    if strategies.len() > MAX_FIGURES {
        let more = strategies.len() - MAX_FIGURES;
        let noun = if more == 1 { "strategy" } else { "strategies" };
        lines.push(format!("and {more} more {noun} (the overview, o)"));
    }
    lines
}

/// Draw a settings view: the list scrolls to keep the chosen row in sight, and the help, the
/// figures and the keys stay under it.
pub fn draw(view: &SettingsView, theme: Theme, frame: &mut Frame, area: Rect) {
    // Under the list: a blank line, the help, the heading, the figures, the keys; and borders.
    let wanted = view.rows.len() + 4 + view.figures.len() + 2;
    let rect = centered(area, 84, wanted.min(u16::MAX as usize) as u16);
    frame.render_widget(Clear, rect);
    let outer = block(
        theme,
        fit(
            " Settings · changes re-project and re-measure every strategy ",
            usize::from(rect.width.saturating_sub(2)),
        ),
        true,
    );
    let inner = outer.inner(rect);
    frame.render_widget(outer, rect);
    let w = inner.width as usize;
    let h = inner.height as usize;
    let mut bottom: Vec<Line> = vec![Line::raw(""), Line::styled(fit(&view.help, w), theme.dim())];
    bottom.push(Line::styled(
        fit("Tokens sent by the strategies it changes:", w),
        theme.heading(),
    ));
    for f in &view.figures {
        bottom.push(Line::styled(fit(&format!("  {f}"), w), theme.text()));
    }
    if let Some(e) = &view.error {
        for l in wrap(e, w) {
            bottom.push(Line::styled(l, theme.error()));
        }
    } else {
        let keys = if view.editing {
            "Enter applies (measured in the background) · Esc cancels"
        } else {
            "* differs from the default · Enter edits · R resets all · Esc closes"
        };
        bottom.push(Line::styled(fit(keys, w), theme.dim()));
    }
    // The list keeps at least three rows (or all it has); the blank line goes first, then the
    // lines under the figures' heading, when the dialog is short.
    let list_min = view.rows.len().min(3);
    while bottom.len() + list_min > h && bottom.len() > 1 {
        let at = if bottom.first().is_some_and(|l| l.width() == 0) {
            0
        } else {
            bottom.len() - 1
        };
        bottom.remove(at);
    }
    let list_h = h.saturating_sub(bottom.len());
    let offset = (view.selected + 1).saturating_sub(list_h);
    let key_w = 22.min(w / 2);
    let mut lines: Vec<Line> = view
        .rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(list_h)
        .map(|(i, row)| {
            let marker = if row.changed { "*" } else { " " };
            let text = format!(
                "{marker}{} {}",
                pad(row.key, key_w),
                fit(&row.value, w.saturating_sub(key_w + 2))
            );
            let style = if i == view.selected {
                if view.editing {
                    theme.input()
                } else {
                    theme.selected(true)
                }
            } else {
                theme.text()
            };
            Line::styled(pad(&text, w), style)
        })
        .collect();
    lines.extend(bottom);
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_names_the_strategies_it_changes() {
        assert_eq!(
            strategies_of("defer.threshold"),
            [Strategy::Defer, Strategy::DeferCatalog]
        );
        assert_eq!(
            strategies_of("vtcode.mcp_cap"),
            [
                Strategy::Full,
                Strategy::Progressive,
                Strategy::Minimal,
                Strategy::Search
            ]
        );
        assert_eq!(
            strategies_of("zero.release"),
            [Strategy::Defer, Strategy::DeferCatalog]
        );
        assert_eq!(strategies_of("adaptive.selector"), [Strategy::Adaptive]);
        assert!(strategies_of("cache.ttl").is_empty());
        assert_eq!(strategies_of("encoding").len(), Strategy::ALL.len());
    }
}
