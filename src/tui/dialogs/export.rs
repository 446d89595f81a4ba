//! The export dialog: its state ([`ExportDialog`]: the strategy, the form, the path being
//! typed, the question pending), its keys, and its drawing.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use std::path::{Path, PathBuf};

use crate::export::Layout;
use crate::strategy::Strategy;
use crate::text::{fit, safe, skip_cells, thousands, width};

use crate::tui::context::Context;
use crate::tui::input::{self, Edit, Input};
use crate::tui::keys::{self, Action};
use crate::tui::widgets::{block, centered, wrap};

/// What the chosen form writes, and what it leaves out.
fn what_is_written(ctx: &Context, strategy: Strategy, tools_only: bool) -> String {
    match ctx.projection(strategy) {
        Some(p) if tools_only && p.added_text.is_some() => format!(
            "tools only leaves out the text {} adds outside the tools (the request body keeps it)",
            strategy.id()
        ),
        Some(p) if tools_only && !p.inline.is_empty() => format!(
            "tools only leaves out the tool changes {} sends differently in the messages (the request body has them)",
            strategy.id()
        ),
        _ if tools_only => "tools only: the `tools` array alone, no request around it".to_owned(),
        _ => "the whole projected request body".to_owned(),
    }
}

/// What the user takes on with `strategy` (the tools the host must implement, ...), wrapped to
/// `w`, then a blank line; nothing when it asks nothing.
fn need_lines(ctx: &Context, strategy: Strategy, w: usize) -> Vec<Line<'static>> {
    let needs = ctx
        .projection(strategy)
        .map(|p| crate::export::needs(&ctx.capture, p))
        .unwrap_or_default();
    let mut lines: Vec<Line<'static>> = needs
        .iter()
        .flat_map(|need| wrap(&safe(&format!("needs: {need}")), w))
        .map(|l| Line::styled(l, ctx.theme.warn()))
        .collect();
    if !lines.is_empty() {
        lines.push(Line::raw(""));
    }
    lines
}

/// The export dialog's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportDialog {
    /// The strategy exported.
    pub strategy: Strategy,
    /// Only the `tools` array, not the whole request body.
    pub tools_only: bool,
    /// As captured, compact or pretty (`^p` cycles).
    pub layout: Layout,
    /// The path being typed.
    pub path: Input,
    /// Waiting for a yes or no: the file exists, or (with `error` set) a provider would
    /// reject the request.
    pub confirm: bool,
    /// Why the last write failed, or why the request would be rejected.
    pub error: Option<String>,
    /// The user agreed to write a request a provider would reject.
    pub accept_invalid: bool,
}

/// What a key in the export dialog asks of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportOutcome {
    /// Nothing beyond the dialog's own state.
    Stay,
    /// Close the dialog.
    Close,
    /// Write the export.
    Write {
        /// Where.
        path: PathBuf,
        /// What.
        bytes: Vec<u8>,
        /// Replace an existing file.
        overwrite: bool,
        /// How the status bar describes it.
        what: String,
    },
}

impl ExportDialog {
    /// The dialog for `strategy`, its path the default one for the capture read from
    /// `capture_path`.
    pub fn new(strategy: Strategy, capture_path: &str) -> ExportDialog {
        ExportDialog {
            strategy,
            tools_only: false,
            layout: Layout::AsCaptured,
            path: Input::new(default_export_path(capture_path, strategy, false)),
            confirm: false,
            error: None,
            accept_invalid: false,
        }
    }

    /// The key table in force: the dialog's, or a question's.
    pub fn context(&self) -> keys::Context {
        // The question is about a rejected request when it comes with its reason, else about
        // an existing file.
        if self.confirm && self.error.is_some() {
            keys::Context::ConfirmInvalid
        } else if self.confirm {
            keys::Context::Confirm
        } else {
            keys::Context::Export
        }
    }

    /// A character typed into the path.
    pub fn type_char(&mut self, c: char) {
        self.path.edit(Edit::Insert(c));
        self.error = None;
    }

    /// Answer a key.
    pub fn act(&mut self, action: Action, ctx: &Context) -> ExportOutcome {
        if let Some(e) = input::edit_of(action) {
            self.path.edit(e);
            self.error = None;
            return ExportOutcome::Stay;
        }
        match action {
            Action::Back => return ExportOutcome::Close,
            Action::Toggle => {
                // The default name follows the choice unless the user typed their own.
                let default =
                    |tools_only| default_export_path(&ctx.path, self.strategy, tools_only);
                let was_default = self.path.text == default(self.tools_only);
                let tools_only = !self.tools_only;
                if was_default {
                    self.path = Input::new(default(tools_only));
                }
                self.tools_only = tools_only;
            }
            Action::Pretty => self.layout = self.layout.next(),
            Action::Confirm | Action::Yes => return self.write(action, ctx),
            Action::No => self.confirm = false,
            _ => {}
        }
        ExportOutcome::Stay
    }

    /// Enter, or a yes to a question: write, unless the host refuses, a provider would reject
    /// the request (asked once), the path is empty or the projection is not ready.
    fn write(&mut self, action: Action, ctx: &Context) -> ExportOutcome {
        // A yes to the invalid-request question is not a yes to overwriting.
        let answering_invalid = self.confirm && self.error.is_some();
        if answering_invalid && action == Action::Yes {
            self.accept_invalid = true;
        }
        let overwrite = action == Action::Yes && !answering_invalid;
        self.confirm = false;
        let strategy = self.strategy;
        if let Some(projection) = ctx.projection(strategy) {
            let problem = match projection.refusal() {
                Some(message) => Some((
                    false,
                    format!("the host refuses {strategy}: nothing to export ({message})"),
                )),
                None if !projection.request_valid && !self.accept_invalid => {
                    let why = projection
                        .notes
                        .iter()
                        .find(|n| n.level == crate::projection::Level::Error)
                        .map_or(String::new(), |n| n.text.clone());
                    Some((true, format!("a provider would reject this request: {why}")))
                }
                None => None,
            };
            if let Some((ask, message)) = problem {
                self.confirm = ask;
                self.error = Some(message);
                return ExportOutcome::Stay;
            }
        }
        if self.path.text.trim().is_empty() {
            self.error = Some("type a path".to_owned());
            return ExportOutcome::Stay;
        }
        match ctx.export_bytes(strategy, self.tools_only, self.layout) {
            Some(bytes) => {
                let what = if self.tools_only {
                    "tools"
                } else {
                    "request body"
                };
                let path = input::expand_home(&self.path.text, ctx.home.as_deref());
                ExportOutcome::Write {
                    path: PathBuf::from(path),
                    bytes,
                    overwrite,
                    what: format!("{strategy} {what}"),
                }
            }
            None => {
                self.error = Some(format!("{strategy} is still being projected"));
                ExportOutcome::Stay
            }
        }
    }

    /// Draw the dialog: the choice, the path being typed (with its cursor), where a relative
    /// path goes, what will be written (form, bytes, tokens), and the last error or question.
    /// The dialog grows to hold its question, so a question is never cut off.
    pub fn render(&self, ctx: &Context, frame: &mut Frame, area: Rect) {
        let (strategy, tools_only, layout) = (self.strategy, self.tools_only, self.layout);
        let (path, cursor) = (self.path.text.as_str(), self.path.cursor);
        let (confirm, error) = (self.confirm, self.error.as_deref());
        let theme = ctx.theme;
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
        let dropped = what_is_written(ctx, strategy, tools_only);
        // The folder the file lands in, whole: a relative path is read from the current folder.
        let expanded = input::expand_home(path, ctx.home.as_deref());
        let target = std::path::Path::new(&ctx.cwd).join(&expanded);
        let folder = match target.parent() {
            Some(dir) => format!("into {}", safe(&dir.to_string_lossy())),
            None => String::new(),
        };
        let size = match ctx.export_bytes(strategy, tools_only, layout) {
            Some(bytes) => {
                let tokens = ctx
                    .figures(strategy)
                    .and_then(|f| f.total_tokens)
                    .map_or(String::new(), |t| {
                        format!(" · {} tokens sent ({})", thousands(t), ctx.encoding.id())
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
                choice(layout == Layout::AsCaptured, Layout::AsCaptured.word()),
                Span::raw("  "),
                choice(layout == Layout::Compact, Layout::Compact.word()),
                Span::raw("  "),
                choice(layout == Layout::Pretty, Layout::Pretty.word()),
                Span::styled("  ^p switches", theme.dim()),
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
                        default_export_path(&ctx.path, strategy, tools_only)
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
        lines.extend(need_lines(ctx, strategy, w));
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
}

/// The default export path: `<capture stem>.<strategy>[.tools].json` next to the capture (in
/// the folder it was read from, as an editor's "save as" starts there), or in the current
/// folder for standard input and the bundled sample. A turn of a trace is named after the
/// trace (its label starts with the trace's path).
pub fn default_export_path(capture_path: &str, strategy: Strategy, tools_only: bool) -> String {
    let stem = if capture_path == "-" {
        "stdin".to_owned()
    } else {
        Path::new(capture_path).file_stem().map_or_else(
            || "capture".to_owned(),
            |s| s.to_string_lossy().into_owned(),
        )
    };
    let suffix = if tools_only { ".tools" } else { "" };
    let file = format!("{stem}.{strategy}{suffix}.json");
    // The bundled sample's folder is the source tree's, not one the user has.
    let bundled = capture_path.ends_with(" (bundled)");
    match Path::new(capture_path).parent() {
        Some(folder) if !bundled && !folder.as_os_str().is_empty() => {
            folder.join(file).to_string_lossy().into_owned()
        }
        _ => file,
    }
}
