//! The TUI's state and its pure update function. [`update`] turns a [`Msg`] (a key, a mouse
//! event, a resize, a worker result) into a new state plus [`Effect`]s that the event loop runs
//! (start a computation, write a file, quit); nothing here touches the terminal or the disk,
//! so tests drive it with keys alone.

mod matrix_keys;
mod mouse;
mod strategy_keys;

use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use serde_json::Value;

use crate::capture::Capture;
use crate::measure::Encoding;
use crate::projection::Status;
use crate::settings::Settings;
use crate::strategies::registry::settings_of;
use crate::strategy::Strategy;
use crate::tool;

use super::context::Context;
use super::dialogs::export::{ExportDialog, ExportOutcome};
use super::dialogs::help::HelpState;
use super::dialogs::settings::{SettingsDialog, SettingsOutcome};
use super::diffview::ToolDiff;
use super::input::{self, Edit};
use super::key_prelude::{self, KeyTarget};
use super::keys::{self, Action};
use super::layout;
use super::matrix;
use super::matrix::MatrixTab;
use super::matrix::ViewKey;
use super::overview::OverviewTab;
use super::state::{Detail, Pane, SortKey, ToolSearch};
use super::strategy::{DiffKey, StrategyScreen, StrategyTab};
use super::tabs;
pub use super::tabs::Tab;
use super::textview::{self, ViewMode};
use super::worker::{Job, WorkerMsg};

/// A dialog over the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    /// The key bindings.
    Help(HelpState),
    /// The settings editor.
    Settings(SettingsDialog),
    /// Settings were changed: quit anyway?
    QuitConfirm,
    /// The export dialog.
    Export(ExportDialog),
}

/// Something for the event loop to do.
// A job (it carries the settings) is made once per recompute and moved once: boxing it would
// buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Effect {
    /// Start (or replace) the background computation.
    Compute(Job),
    /// Stop the process (Ctrl-Z) with the terminal restored; re-enter on `fg`.
    Suspend,
    /// Put this text (already safe for a terminal) on the clipboard.
    Copy(String),
    /// Write an export.
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

/// Why an export was not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// The file exists and overwriting was not confirmed.
    Exists,
    /// Anything else, as one line.
    Failed(String),
}

/// An input to [`update`].
#[derive(Debug, Clone)]
pub enum Msg {
    /// A key press.
    Key(KeyEvent),
    /// A mouse event.
    Mouse(MouseEvent),
    /// The terminal's new size.
    Resize(u16, u16),
    /// A result from the worker.
    Worker(WorkerMsg),
    /// An export finished.
    Written {
        /// What was written.
        what: String,
        /// The path, or why not.
        result: Result<PathBuf, WriteError>,
    },
    /// Text pasted into the terminal (bracketed paste): one edit.
    Paste(String),
    /// Time passed (animates the progress spinner).
    Tick,
}

/// The whole state of the inspector: the context every screen reads, and one state per
/// screen.
pub struct App {
    /// What every screen reads: the capture, the settings, the figures measured.
    pub ctx: Context,
    /// The current tab.
    pub tab: Tab,
    /// The matrix's state.
    pub matrix_tab: MatrixTab,
    /// The overview's state.
    pub overview: OverviewTab,
    /// The strategy tabs' state.
    pub strategy_tab: StrategyTab,
    /// The tool search (the matrix and the strategy tabs).
    pub search: ToolSearch,
    /// The open dialog.
    pub overlay: Option<Overlay>,
    /// A message for the status bar, and whether it is an error.
    pub status: Option<(String, bool)>,
    /// Work for the event loop.
    pub effects: Vec<Effect>,
    /// Leave the program.
    pub quit: bool,
    /// The program is left by Ctrl-C (exit status 130, as a shell expects), not by `q`.
    pub interrupted: bool,
    /// Set when Esc on the home screen asks to go back to the session view (with `nested`).
    pub(crate) leave: bool,
    /// The selected tool's diff, computed by the last update.
    diff_cache: Option<(DiffKey, Rc<ToolDiff>)>,
    /// The matrix view, built by the last update.
    matrix_cache: Option<(ViewKey, Rc<matrix::MatrixView>)>,
}

impl App {
    /// A new inspector on `capture`; the first [`Effect::Compute`] is queued.
    pub fn new(
        capture: Arc<Capture>,
        path: String,
        settings: Settings,
        encoding: Encoding,
        color: bool,
    ) -> App {
        let mut app = App {
            ctx: Context::new(capture, path, settings, encoding, color),
            tab: Tab::Matrix,
            matrix_tab: MatrixTab::default(),
            overview: OverviewTab::default(),
            strategy_tab: StrategyTab::default(),
            search: ToolSearch::default(),
            overlay: None,
            status: None,
            effects: Vec::new(),
            quit: false,
            interrupted: false,
            leave: false,
            diff_cache: None,
            matrix_cache: None,
        };
        app.request_compute();
        app.refresh();
        app
    }

    /// The strategy of the current tab, or the one chosen in the overview.
    pub fn strategy(&self) -> Strategy {
        match self.tab {
            Tab::Strategy(s) => s,
            Tab::Overview => self.overview.strategy(),
            Tab::Matrix => matrix::strategy_at(self.matrix_tab.cursor.col),
        }
    }

    /// The matrix view under the current settings, encoding, sort, filter and search: the
    /// library's model over the strategies measured so far (the one the last update built,
    /// unless something it depends on changed since).
    pub fn matrix(&self) -> Rc<matrix::MatrixView> {
        let key = self.matrix_tab.view_key(&self.ctx, &self.search.input.text);
        match &self.matrix_cache {
            Some((k, view)) if *k == key => view.clone(),
            _ => Rc::new(self.matrix_tab.view(&self.ctx, &self.search.input.text)),
        }
    }

    /// The rows of the current strategy's tool table: indices into its outcomes, filtered and
    /// sorted (none on another tab).
    pub fn rows(&self) -> Vec<usize> {
        self.strategy_screen()
            .map_or_else(Vec::new, |screen| screen.rows())
    }

    /// A strategy tab's search subtotal ([`StrategyScreen::search_subtotal`]).
    pub fn search_subtotal(&self) -> Option<(usize, usize, usize, usize)> {
        self.strategy_screen()?.search_subtotal()
    }

    /// The outcome index of the selected row.
    pub fn selected_outcome(&self) -> Option<usize> {
        self.strategy_screen()?.selected_outcome()
    }

    /// The selected tool's original and sent entries (either may be missing).
    pub fn selected_entries(&self) -> Option<(Option<&Value>, Option<&Value>)> {
        self.strategy_screen()?.selected_entries()
    }

    /// The selected tool's diff.
    pub fn selected_diff(&self) -> Option<Rc<ToolDiff>> {
        self.strategy_screen()?.selected_diff()
    }

    /// Rows of the detail's content at the app's size: its scroll range (0 without the pane).
    fn detail_rows(&self) -> usize {
        match (self.strategy_screen(), self.frame_layout().detail) {
            (Some(screen), Some(detail)) => super::strategy::detail::detail_rows(&screen, detail),
            _ => 0,
        }
    }

    /// The overview notes pane's largest scroll at the app's size (0 without the pane).
    pub fn notes_scroll_max(&self) -> usize {
        super::overview::notes_scroll_max(&self.ctx, &self.overview, self.frame_layout().notes)
    }

    /// The strategy tab on screen, as its screen reads it (`None` on another tab).
    pub fn strategy_screen(&self) -> Option<StrategyScreen<'_>> {
        let Tab::Strategy(strategy) = self.tab else {
            return None;
        };
        Some(StrategyScreen {
            ctx: &self.ctx,
            tab: &self.strategy_tab,
            strategy,
            search: &self.search.input.text,
            diff: self.diff_cache.as_ref(),
        })
    }

    /// Compute what the screens draw from once the state changed (the matrix view, the
    /// selected tool's diff), so that drawing only reads.
    fn refresh(&mut self) {
        let key = self.matrix_tab.view_key(&self.ctx, &self.search.input.text);
        if self.matrix_cache.as_ref().is_none_or(|(k, _)| *k != key) {
            let view = Rc::new(self.matrix_tab.view(&self.ctx, &self.search.input.text));
            self.matrix_cache = Some((key, view));
        }
        let diff = self.strategy_screen().and_then(|s| {
            let key = s.diff_key()?;
            let stale = s.diff.is_none_or(|(k, _)| *k != key);
            stale.then(|| s.selected_diff().map(|d| (key, d))).flatten()
        });
        if diff.is_some() {
            self.diff_cache = diff;
        }
    }

    /// The context keys are looked up in.
    pub fn context(&self) -> keys::Context {
        match &self.overlay {
            Some(Overlay::Help(help)) => help.context(),
            Some(Overlay::Settings(dialog)) => dialog.context(),
            Some(Overlay::QuitConfirm) => keys::Context::QuitConfirm,
            Some(Overlay::Export(dialog)) => dialog.context(),
            None if self.search.typing => keys::Context::Search,
            None => match self.tab {
                Tab::Matrix => keys::Context::Matrix,
                Tab::Overview => keys::Context::Overview,
                Tab::Strategy(_) => keys::Context::Strategy,
            },
        }
    }

    fn request_compute(&mut self) {
        let mut strategies: Vec<Strategy> = Strategy::ALL
            .into_iter()
            .filter(|&s| self.ctx.projection(s).is_none() || self.ctx.figures(s).is_none())
            .collect();
        if strategies.is_empty() {
            self.ctx.progress = None;
            return;
        }
        // The strategy on screen first.
        let current = self.strategy();
        strategies.sort_by_key(|&s| s != current);
        self.ctx.progress = Some((0, strategies.len(), "projecting"));
        self.effects.push(Effect::Compute(Job {
            generation: self.ctx.generation,
            settings: self.ctx.settings.clone(),
            settings_key: self.ctx.settings_key.clone(),
            encoding: self.ctx.encoding,
            strategies,
        }));
    }

    fn settings_changed(&mut self) {
        self.ctx.settings_before = Some((self.ctx.settings_key.clone(), self.ctx.encoding));
        self.ctx.settings_key = Arc::new(self.ctx.settings.clone());
        self.ctx.generation += 1;
        self.request_compute();
        self.resync(None);
    }

    /// The layout of the whole screen as it is now drawn.
    pub fn frame_layout(&self) -> layout::AppLayout {
        let area = Rect::new(0, 0, self.ctx.size.0, self.ctx.size.1);
        layout::layout(area, self.tab, self.layout_flags())
    }

    fn set_status(&mut self, text: impl Into<String>, error: bool) {
        self.status = Some((text.into(), error));
    }

    fn switch_tab(&mut self, tab: Tab) {
        let keep = self.selected_key();
        if let Tab::Strategy(s) = tab {
            self.overview.strategies.selected = s.index();
        }
        self.tab = tab;
        self.search.typing = false;
        if let Tab::Strategy(s) = tab
            && (self.ctx.projection(s).is_none() || self.ctx.figures(s).is_none())
        {
            // Ask again with this strategy first: the worker drops the older job for it and
            // keeps everything already computed.
            self.request_compute();
        }
        if self.strategy_tab.detail.shows == Detail::Added
            && let Tab::Strategy(s) = tab
            && !self.ctx.has_added(s)
        {
            self.strategy_tab.detail.shows = Detail::Entries;
        }
        self.resync(keep);
        self.strategy_tab.detail.scroll.offset = 0;
    }

    fn act(&mut self, action: Action, index: Option<usize>) {
        match self.context() {
            keys::Context::Help | keys::Context::HelpSearch => self.act_help(action),
            keys::Context::Search => self.act_search(action),
            keys::Context::Settings | keys::Context::SettingsEdit => self.act_settings(action),
            keys::Context::Export | keys::Context::Confirm | keys::Context::ConfirmInvalid => {
                self.act_export(action);
            }
            keys::Context::QuitConfirm => match action {
                Action::Yes => self.quit = true,
                _ => self.overlay = None,
            },
            keys::Context::Matrix => {
                if !self.act_matrix(action) {
                    self.act_screen(action, index);
                }
            }
            keys::Context::Overview if matches!(action, Action::PageDown | Action::PageUp) => {
                // Pages scroll the notes; j and k choose the strategy.
                if self.frame_layout().notes.is_none() {
                    self.set_status("the notes need a taller terminal", false);
                    return;
                }
                let page = self.notes_page();
                if action == Action::PageDown {
                    let max = self.notes_scroll_max();
                    self.overview.notes.scroll_by(page as isize, max);
                } else {
                    self.overview.notes.scroll_up(page);
                }
            }
            keys::Context::Overview | keys::Context::Strategy | keys::Context::Global => {
                self.act_screen(action, index);
            }
            // The session view's own contexts: never the inspector's.
            keys::Context::Session | keys::Context::TurnDiff => {}
        }
    }

    /// The keys of the matrix, the overview and the strategy tabs that are not the matrix's
    /// own: moving, the detail pane's views, then the rest (dialogs, search, sort, quit).
    fn act_screen(&mut self, action: Action, index: Option<usize>) {
        if self.act_move(action, index) || self.act_detail(action) {
            return;
        }
        match action {
            Action::Quit => {
                if self.ctx.settings_changed_since_start() {
                    self.overlay = Some(Overlay::QuitConfirm);
                } else {
                    self.quit = true;
                }
            }
            Action::Back => {
                if !self.search.input.text.is_empty() && self.tab != Tab::Overview {
                    let keep = self.selected_key();
                    self.search.input.clear();
                    self.resync(keep);
                } else {
                    self.switch_tab(Tab::Matrix);
                }
            }
            Action::Suspend => self.effects.push(Effect::Suspend),
            Action::Help => self.overlay = Some(Overlay::Help(HelpState::open(self.context()))),
            Action::Search => {
                self.search.typing = true;
                self.search.input.edit(Edit::End);
                self.strategy_tab.focus = Pane::Tools;
            }
            Action::Sort => {
                let keep = self.selected_key();
                self.strategy_tab.sort = self.strategy_tab.sort.next();
                self.resync(keep);
                self.set_status(
                    format!("sorted by {}", self.strategy_tab.sort.label()),
                    false,
                );
            }
            Action::Settings => {
                // Open on the first setting of the strategy on screen: the key the banner names.
                let selected = match self.tab {
                    Tab::Strategy(s) => settings_of(s).first().map(|k| k.key),
                    Tab::Matrix if self.matrix_tab.cursor.col > 0 => {
                        settings_of(self.strategy()).first().map(|k| k.key)
                    }
                    _ => None,
                }
                .and_then(|key| Settings::KEYS.iter().position(|k| k.key == key))
                .unwrap_or(0);
                self.overlay = Some(Overlay::Settings(SettingsDialog {
                    selected,
                    ..SettingsDialog::default()
                }));
            }
            Action::Copy => match self.copy_text() {
                Some((text, what)) => {
                    let size = crate::text::bytes(text.len());
                    self.effects.push(Effect::Copy(text));
                    // OSC 52 has no answer: the terminal may have ignored it, so say what was done.
                    self.set_status(
                        format!("sent {what} ({size}) to the terminal's clipboard (OSC 52)"),
                        false,
                    );
                }
                None => self.set_status("nothing to copy here: select a tool", false),
            },
            Action::Encoding => self.toggle_encoding(),
            Action::Export => self.open_export(),
            _ => {}
        }
    }

    /// What besides the tab shapes the frame.
    pub fn layout_flags(&self) -> layout::Flags {
        layout::Flags {
            banner: self.banner().is_some(),
            zoom: self.strategy_tab.zoom && matches!(self.tab, Tab::Strategy(_)),
            servers: self.ctx.servers.len().min(usize::from(u16::MAX)) as u16,
        }
    }

    /// What reaching each MCP server gave (`toolprism mcp`): the overview lists them and the
    /// grouped matrix shows one not listed, so no server is silently missing.
    pub fn set_servers(&mut self, servers: Vec<crate::mcp::status::ServerStatus>) {
        self.ctx.servers = servers;
        self.matrix_cache = None;
        self.refresh();
    }

    fn toggle_encoding(&mut self) {
        self.ctx.settings_before = Some((self.ctx.settings_key.clone(), self.ctx.encoding));
        self.ctx.encoding = match self.ctx.encoding {
            Encoding::O200kBase => Encoding::Cl100kBase,
            Encoding::Cl100kBase => Encoding::O200kBase,
        };
        self.ctx.generation += 1;
        self.request_compute();
        self.set_status(format!("encoding {}", self.ctx.encoding.id()), false);
    }

    fn act_help(&mut self, action: Action) {
        if let Some(Overlay::Help(help)) = &mut self.overlay
            && !help.act(action, self.ctx.size.0)
        {
            self.overlay = None;
        }
    }

    fn act_search(&mut self, action: Action) {
        match action {
            Action::Confirm => self.search.typing = false,
            Action::Back => {
                self.search.typing = false;
                let keep = self.selected_key();
                let cell = self.matrix_key();
                self.search.input.clear();
                self.resync(keep);
                if self.tab == Tab::Matrix {
                    self.matrix_resync(cell);
                }
            }
            Action::Down => self.move_by(1),
            Action::Up => self.move_by(-1),
            _ => {
                let Some(edit) = input::edit_of(action) else {
                    return;
                };
                let before = self.search.input.text.clone();
                self.search.input.edit(edit);
                // The rows are filtered again when the text changed (a Backspace always
                // starts over at the first row); a cursor move leaves them.
                if action == Action::Backspace || self.search.input.text != before {
                    self.resync(None);
                    self.select_row(0);
                    if self.tab == Tab::Matrix {
                        self.select_cell(0);
                    }
                }
            }
        }
    }

    fn type_char(&mut self, c: char) {
        if self.search.typing && self.overlay.is_none() {
            self.search.input.edit(Edit::Insert(c));
            self.select_row(0);
            if self.tab == Tab::Matrix {
                self.select_cell(0);
            }
            return;
        }
        match &mut self.overlay {
            Some(Overlay::Help(help)) => help.type_char(c),
            Some(Overlay::Settings(dialog)) => dialog.type_char(c),
            Some(Overlay::Export(dialog)) => dialog.type_char(c),
            _ => {}
        }
    }

    fn act_settings(&mut self, action: Action) {
        let Some(Overlay::Settings(dialog)) = &mut self.overlay else {
            return;
        };
        match dialog.act(action, &self.ctx) {
            SettingsOutcome::Stay => {}
            SettingsOutcome::Close => self.overlay = None,
            SettingsOutcome::ToggleEncoding => self.toggle_encoding(),
            SettingsOutcome::Apply(settings, status) => {
                if let Some(settings) = settings {
                    self.ctx.settings = *settings;
                    self.settings_changed();
                }
                self.set_status(status, false);
            }
        }
    }

    fn open_export(&mut self) {
        let strategy = self.strategy();
        if self.ctx.refusal(strategy).is_some() {
            self.set_status(
                format!("{strategy} refuses this capture: there is no projection to export"),
                true,
            );
            return;
        }
        self.overlay = Some(Overlay::Export(ExportDialog::new(strategy, &self.ctx.path)));
    }

    fn act_export(&mut self, action: Action) {
        let Some(Overlay::Export(dialog)) = &mut self.overlay else {
            return;
        };
        match dialog.act(action, &self.ctx) {
            ExportOutcome::Stay => {}
            ExportOutcome::Close => self.overlay = None,
            ExportOutcome::Write {
                path,
                bytes,
                overwrite,
                what,
            } => self.effects.push(Effect::Write {
                path,
                bytes,
                overwrite,
                what,
            }),
        }
    }

    fn on_worker(&mut self, msg: WorkerMsg) {
        match msg {
            WorkerMsg::CaptureMeasured { encoding, tokens } => {
                self.ctx.memo.keep_capture_tokens(encoding, tokens);
            }
            WorkerMsg::Progress {
                generation,
                done,
                total,
                what,
            } => {
                if generation == self.ctx.generation {
                    self.ctx.progress = Some((done, total, what));
                }
            }
            WorkerMsg::Projected {
                key,
                projection,
                request,
            } => {
                let current = key.0 == self.strategy() && key.1 == self.ctx.settings_key;
                let keep = self.selected_key();
                self.ctx.memo.keep_projection(key, projection, request);
                if current {
                    self.resync(keep);
                }
            }
            WorkerMsg::Measured { key, figures } => {
                let current = key.0 == self.strategy() && key.1 == self.ctx.settings_key;
                let keep = self.selected_key();
                self.ctx.memo.keep_figures(key, figures);
                if current && self.strategy_tab.sort != SortKey::Original {
                    self.resync(keep);
                }
            }
            WorkerMsg::Done { generation } => {
                if generation == self.ctx.generation {
                    self.ctx.progress = None;
                }
            }
        }
    }

    fn on_written(&mut self, what: String, result: Result<PathBuf, WriteError>) {
        match result {
            Ok(path) => {
                self.overlay = None;
                let shown = crate::text::safe(&path.display().to_string());
                self.set_status(format!("exported {what} to {shown}"), false);
            }
            Err(WriteError::Exists) => {
                if let Some(Overlay::Export(dialog)) = &mut self.overlay {
                    dialog.confirm = true;
                    dialog.error = None;
                }
            }
            Err(WriteError::Failed(message)) => {
                if let Some(Overlay::Export(dialog)) = &mut self.overlay {
                    dialog.error = Some(message.clone());
                }
                self.set_status(format!("export failed: {message}"), true);
            }
        }
    }
}

impl KeyTarget for App {
    fn context(&self) -> keys::Context {
        App::context(self)
    }

    fn clear_status(&mut self) {
        self.status = None;
    }

    fn interrupt(&mut self) {
        self.quit = true;
        self.interrupted = true;
    }

    fn suspend(&mut self) {
        self.effects.push(Effect::Suspend);
    }

    fn act(&mut self, action: Action, index: Option<usize>) {
        App::act(self, action, index);
    }

    fn type_char(&mut self, c: char) {
        App::type_char(self, c);
    }

    fn type_text(&mut self, text: &str) {
        // The search refilters once for the whole paste, not once per character.
        if self.search.typing && self.overlay.is_none() {
            self.search.input.insert_str(text);
            self.select_row(0);
            if self.tab == Tab::Matrix {
                self.select_cell(0);
            }
            return;
        }
        for c in text.chars() {
            App::type_char(self, c);
        }
    }
}

/// Apply one message to the state. Pure: effects are queued on `app.effects`, never run here.
pub fn update(app: &mut App, msg: Msg) {
    match msg {
        Msg::Key(key) => key_prelude::on_key(app, key),
        Msg::Paste(text) => key_prelude::on_paste(app, &text),
        Msg::Mouse(mouse) => app.on_mouse(mouse),
        Msg::Resize(w, h) => {
            app.ctx.size = (w, h);
            let row = app.strategy_tab.tools.selected;
            app.select_row(row);
            if app.tab == Tab::Matrix {
                let row = app.matrix_tab.cursor.rows.selected;
                app.select_cell(row);
                app.move_col(0);
            }
        }
        Msg::Worker(msg) => app.on_worker(msg),
        Msg::Written { what, result } => app.on_written(what, result),
        Msg::Tick => app.ctx.spinner = app.ctx.spinner.wrapping_add(1),
    }
}

/// Whether a status marks the tool as sent in the projection.
pub fn is_sent(status: Status) -> bool {
    crate::report::is_sent(status)
}

/// Rows of text a bordered pane shows (at least one): its height less the borders and the row
/// that says what is below.
fn pane_rows(pane: Option<Rect>) -> usize {
    pane.map_or(1, |r| r.height.saturating_sub(3) as usize)
        .max(1)
}
