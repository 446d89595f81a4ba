//! The TUI's state and its pure update function. [`update`] turns a [`Msg`] (a key, a mouse
//! event, a resize, a worker result) into a new state plus [`Effect`]s that the event loop runs
//! (start a computation, write a file, quit); nothing here touches the terminal or the disk,
//! so tests drive it with keys alone.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::{Position, Rect};
use serde_json::Value;

use crate::capture::Capture;
use crate::measure::Encoding;
use crate::projection::{Projection, Status};
use crate::report::{CaptureJson, StrategyFigures};
use crate::settings::Settings;
use crate::strategy::Strategy;
use crate::tool;

use super::diffview::ToolDiff;
use super::keys::{self, Action, Context};
use super::theme::Theme;
use super::view;
use super::worker::{FigKey, Job, ProjKey, RequestSummary, WorkerMsg};

/// A tab: the overview, or one strategy side by side with the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// Every strategy at a glance.
    Overview,
    /// One strategy's tools.
    Strategy(Strategy),
}

impl Tab {
    /// Every tab in order.
    pub fn all() -> impl Iterator<Item = Tab> {
        std::iter::once(Tab::Overview).chain(Strategy::ALL.into_iter().map(Tab::Strategy))
    }

    /// Position in [`Tab::all`].
    pub fn index(self) -> usize {
        match self {
            Tab::Overview => 0,
            Tab::Strategy(s) => 1 + Strategy::ALL.iter().position(|&x| x == s).unwrap_or(0),
        }
    }

    fn from_index(index: usize) -> Tab {
        match index {
            0 => Tab::Overview,
            i => Tab::Strategy(Strategy::ALL[(i - 1) % Strategy::ALL.len()]),
        }
    }
}

/// The pane that has the focus in a strategy tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The tool table.
    Tools,
    /// The detail (entries, diff, request, added text).
    Detail,
}

/// What the detail pane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// The selected tool's original and projected pretty JSON.
    Entries,
    /// Its unified diff.
    Unified,
    /// Its side-by-side diff.
    Split,
    /// The request-level comparison.
    Request,
    /// The text the strategy adds.
    Added,
}

impl Detail {
    /// Its name in titles.
    pub fn label(self) -> &'static str {
        match self {
            Detail::Entries => "entries",
            Detail::Unified => "diff",
            Detail::Split => "diff side by side",
            Detail::Request => "request",
            Detail::Added => "added text",
        }
    }
}

/// The tool table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// As in the capture (added tools last).
    Original,
    /// Most tokens saved first.
    Saving,
    /// Largest original first.
    Size,
    /// By name.
    Name,
}

impl SortKey {
    /// Its name in the status bar.
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Original => "original order",
            SortKey::Saving => "saving",
            SortKey::Size => "size",
            SortKey::Name => "name",
        }
    }

    fn next(self) -> SortKey {
        match self {
            SortKey::Original => SortKey::Saving,
            SortKey::Saving => SortKey::Size,
            SortKey::Size => SortKey::Name,
            SortKey::Name => SortKey::Original,
        }
    }
}

/// A dialog over the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    /// The key bindings.
    Help {
        /// Lines scrolled.
        scroll: usize,
    },
    /// The settings editor.
    Settings {
        /// The row chosen (`Settings::KEYS`, then the encoding).
        selected: usize,
        /// The value being typed, when editing.
        editing: Option<String>,
        /// Why the last value was refused.
        error: Option<String>,
    },
    /// The export dialog.
    Export {
        /// The strategy exported.
        strategy: Strategy,
        /// Only the `tools` array, not the whole request body.
        tools_only: bool,
        /// The path typed.
        path: String,
        /// Waiting for a yes or no: the file exists, or (with `error` set) a provider would
        /// reject the request.
        confirm: bool,
        /// Why the last write failed, or why the request would be rejected.
        error: Option<String>,
        /// The user agreed to write a request a provider would reject.
        accept_invalid: bool,
    },
}

/// Something for the event loop to do.
#[derive(Debug, Clone)]
pub enum Effect {
    /// Start (or replace) the background computation.
    Compute(Job),
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
    /// Time passed (animates the progress spinner).
    Tick,
}

/// The whole state of the inspector.
pub struct App {
    /// The capture.
    pub capture: Arc<Capture>,
    /// Where it was read from, as given.
    pub path: String,
    /// The current settings.
    pub settings: Settings,
    /// Their `K=V` text: the cache key.
    pub settings_key: Arc<str>,
    /// The current encoding.
    pub encoding: Encoding,
    /// Bumped on every settings or encoding change.
    pub generation: u64,
    projections: HashMap<ProjKey, (Arc<Projection>, RequestSummary)>,
    figures: HashMap<FigKey, Arc<StrategyFigures>>,
    capture_tokens: HashMap<Encoding, usize>,
    /// Bytes of the capture's compact `tools` array.
    pub capture_bytes: usize,
    /// Background work in progress: done, total, what.
    pub progress: Option<(usize, usize, &'static str)>,
    /// The current tab.
    pub tab: Tab,
    /// The strategy chosen in the overview.
    pub overview_sel: usize,
    /// The row chosen in the tool table.
    pub tool_sel: usize,
    /// The tool table's first visible row.
    pub table_offset: usize,
    /// The focused pane.
    pub focus: Pane,
    /// What the detail shows.
    pub detail: Detail,
    /// The detail's vertical scroll (rows).
    pub scroll: usize,
    /// The detail's horizontal scroll (cells).
    pub hscroll: usize,
    /// Wrap long lines in the entries and added-text views.
    pub wrap: bool,
    /// A tool table too narrow for tokens and bytes shows bytes.
    pub bytes_view: bool,
    /// The tool filter (name and text, case-insensitive).
    pub filter: String,
    /// The filter is being typed.
    pub searching: bool,
    /// The tool table's order.
    pub sort: SortKey,
    /// The open dialog.
    pub overlay: Option<Overlay>,
    /// A message for the status bar, and whether it is an error.
    pub status: Option<(String, bool)>,
    /// The terminal's size.
    pub size: (u16, u16),
    /// The styles.
    pub theme: Theme,
    /// Work for the event loop.
    pub effects: Vec<Effect>,
    /// Leave the program.
    pub quit: bool,
    /// Frames of the spinner so far.
    pub spinner: usize,
    search_text: Vec<String>,
    hidden: Vec<usize>,
    diff_cache: RefCell<Option<(DiffKey, Rc<ToolDiff>)>>,
}

type DiffKey = (Strategy, Arc<str>, usize);

impl App {
    /// A new inspector on `capture`; the first [`Effect::Compute`] is queued.
    pub fn new(
        capture: Arc<Capture>,
        path: String,
        settings: Settings,
        encoding: Encoding,
        color: bool,
    ) -> App {
        let hidden = capture.tools().iter().map(hidden_chars).collect();
        // One serialization of the capture's entries serves the search and the byte total.
        let json = CaptureJson::new(&capture);
        let entries: Vec<&str> = json.entries.iter().map(String::as_str).collect();
        let capture_bytes = crate::report::array_bytes(&entries, capture.has_tools_key());
        let search_text = entries.iter().map(|e| e.to_lowercase()).collect();
        let settings_key: Arc<str> = settings.to_string().into();
        let mut app = App {
            capture,
            path,
            settings,
            settings_key,
            encoding,
            generation: 0,
            projections: HashMap::new(),
            figures: HashMap::new(),
            capture_tokens: HashMap::new(),
            capture_bytes,
            progress: None,
            tab: Tab::Overview,
            overview_sel: 0,
            tool_sel: 0,
            table_offset: 0,
            focus: Pane::Tools,
            detail: Detail::Entries,
            scroll: 0,
            hscroll: 0,
            wrap: true,
            bytes_view: false,
            filter: String::new(),
            searching: false,
            sort: SortKey::Original,
            overlay: None,
            status: None,
            size: (80, 24),
            theme: Theme::new(color),
            effects: Vec::new(),
            quit: false,
            spinner: 0,
            search_text,
            hidden,
            diff_cache: RefCell::new(None),
        };
        app.request_compute();
        app
    }

    /// The strategy of the current tab, or the one chosen in the overview.
    pub fn strategy(&self) -> Strategy {
        match self.tab {
            Tab::Strategy(s) => s,
            Tab::Overview => Strategy::ALL[self.overview_sel.min(Strategy::ALL.len() - 1)],
        }
    }

    /// A strategy's projection under the current settings, when ready.
    pub fn projection(&self, strategy: Strategy) -> Option<&Arc<Projection>> {
        self.projections
            .get(&(strategy, self.settings_key.clone()))
            .map(|(p, _)| p)
    }

    /// A strategy's request-level comparison, when ready.
    pub fn request(&self, strategy: Strategy) -> Option<&RequestSummary> {
        self.projections
            .get(&(strategy, self.settings_key.clone()))
            .map(|(_, r)| r)
    }

    /// A strategy's figures under the current settings and encoding, when measured.
    pub fn figures(&self, strategy: Strategy) -> Option<&Arc<StrategyFigures>> {
        self.figures
            .get(&(strategy, self.settings_key.clone(), self.encoding))
    }

    /// The capture's tokens under the current encoding, when counted.
    pub fn capture_tokens(&self) -> Option<usize> {
        self.capture_tokens.get(&self.encoding).copied()
    }

    /// Control, bidi and invisible characters in the original tool at `index` (shown as
    /// escapes, and flagged in the table so they are not missed).
    pub fn hidden_in(&self, index: usize) -> usize {
        self.hidden.get(index).copied().unwrap_or(0)
    }

    /// Whether the worker is busy for the current settings.
    pub fn is_busy(&self) -> bool {
        self.progress.is_some()
    }

    /// The context keys are looked up in.
    pub fn context(&self) -> Context {
        match &self.overlay {
            Some(Overlay::Help { .. }) => Context::Help,
            Some(Overlay::Settings { editing, .. }) => {
                if editing.is_some() {
                    Context::SettingsEdit
                } else {
                    Context::Settings
                }
            }
            Some(Overlay::Export { confirm, .. }) => {
                if *confirm {
                    Context::Confirm
                } else {
                    Context::Export
                }
            }
            None if self.searching => Context::Search,
            None => match self.tab {
                Tab::Overview => Context::Overview,
                Tab::Strategy(_) => Context::Strategy,
            },
        }
    }

    /// The rows of the current strategy's tool table: indices into its outcomes, filtered and
    /// sorted.
    pub fn rows(&self) -> Vec<usize> {
        let Tab::Strategy(strategy) = self.tab else {
            return Vec::new();
        };
        let Some(projection) = self.projection(strategy) else {
            return Vec::new();
        };
        let figures = self.figures(strategy);
        let needle = self.filter.to_lowercase();
        let mut rows: Vec<usize> = projection
            .outcomes
            .iter()
            .enumerate()
            .filter(|(_, o)| needle.is_empty() || self.outcome_matches(projection, o, &needle))
            .map(|(i, _)| i)
            .collect();
        let tokens = |i: usize| -> (i64, i64) {
            match figures.and_then(|f| f.per_tool.get(i)) {
                Some(t) => (t.original_tokens as i64, t.projected_tokens as i64),
                None => (0, 0),
            }
        };
        match self.sort {
            SortKey::Original => {}
            SortKey::Saving => rows.sort_by_key(|&i| {
                let (before, after) = tokens(i);
                std::cmp::Reverse(before - after)
            }),
            SortKey::Size => rows.sort_by_key(|&i| {
                let (before, after) = tokens(i);
                std::cmp::Reverse(before.max(after))
            }),
            SortKey::Name => rows.sort_by(|&a, &b| {
                projection.outcomes[a]
                    .name
                    .cmp(&projection.outcomes[b].name)
                    .then(a.cmp(&b))
            }),
        }
        rows
    }

    fn outcome_matches(
        &self,
        projection: &Projection,
        outcome: &crate::projection::ToolOutcome,
        needle: &str,
    ) -> bool {
        if outcome.name.to_lowercase().contains(needle) {
            return true;
        }
        if let Some(text) = outcome.original.and_then(|i| self.search_text.get(i)) {
            return text.contains(needle);
        }
        outcome
            .projected
            .and_then(|p| projection.sent.as_ref()?.get(p))
            .is_some_and(|t| {
                tool::compact(t.entry(&self.capture))
                    .to_lowercase()
                    .contains(needle)
            })
    }

    /// The outcome index of the selected row.
    pub fn selected_outcome(&self) -> Option<usize> {
        self.rows().get(self.tool_sel).copied()
    }

    /// The selected tool's original and sent entries (either may be missing).
    pub fn selected_entries(&self) -> Option<(Option<&Value>, Option<&Value>)> {
        let Tab::Strategy(strategy) = self.tab else {
            return None;
        };
        let projection = self.projection(strategy)?;
        let outcome = projection.outcomes.get(self.selected_outcome()?)?;
        let original = outcome.original.and_then(|i| self.capture.tools().get(i));
        let sent = outcome
            .projected
            .and_then(|p| projection.sent.as_ref()?.get(p))
            .map(|t| t.entry(&self.capture));
        Some((original, sent))
    }

    /// The selected tool's diff (cached for the last tool asked).
    pub fn selected_diff(&self) -> Option<Rc<ToolDiff>> {
        let Tab::Strategy(strategy) = self.tab else {
            return None;
        };
        let outcome = self.selected_outcome()?;
        let key: DiffKey = (strategy, self.settings_key.clone(), outcome);
        if let Some((k, diff)) = self.diff_cache.borrow().as_ref()
            && *k == key
        {
            return Some(diff.clone());
        }
        let (original, sent) = self.selected_entries()?;
        let diff = Rc::new(ToolDiff::new(original, sent));
        *self.diff_cache.borrow_mut() = Some((key, diff.clone()));
        Some(diff)
    }

    fn request_compute(&mut self) {
        let mut strategies: Vec<Strategy> = Strategy::ALL
            .into_iter()
            .filter(|&s| self.projection(s).is_none() || self.figures(s).is_none())
            .collect();
        if strategies.is_empty() {
            self.progress = None;
            return;
        }
        // The strategy on screen first.
        let current = self.strategy();
        strategies.sort_by_key(|&s| s != current);
        self.progress = Some((0, strategies.len(), "projecting"));
        self.effects.push(Effect::Compute(Job {
            generation: self.generation,
            settings: self.settings.clone(),
            settings_key: self.settings_key.clone(),
            encoding: self.encoding,
            strategies,
        }));
    }

    fn settings_changed(&mut self) {
        self.settings_key = self.settings.to_string().into();
        self.generation += 1;
        self.request_compute();
        self.resync(None);
    }

    fn set_status(&mut self, text: impl Into<String>, error: bool) {
        self.status = Some((text.into(), error));
    }

    fn table_height(&self) -> usize {
        let area = Rect::new(0, 0, self.size.0, self.size.1);
        view::layout(area, self)
            .table
            .map_or(1, |r| r.height.saturating_sub(3) as usize)
            .max(1)
    }

    fn detail_height(&self) -> usize {
        let area = Rect::new(0, 0, self.size.0, self.size.1);
        view::layout(area, self)
            .detail
            .map_or(1, |r| r.height.saturating_sub(3) as usize)
            .max(1)
    }

    fn select_row(&mut self, row: usize) {
        let len = self.rows().len();
        self.tool_sel = row.min(len.saturating_sub(1));
        self.scroll = 0;
        self.hscroll = 0;
        let height = self.table_height();
        if self.tool_sel < self.table_offset {
            self.table_offset = self.tool_sel;
        } else if self.tool_sel >= self.table_offset + height {
            self.table_offset = self.tool_sel + 1 - height;
        }
        self.table_offset = self.table_offset.min(len.saturating_sub(height));
    }

    /// Keep the selection on the same tool after the rows changed (filter, sort, strategy).
    fn resync(&mut self, keep: Option<(Option<usize>, String)>) {
        let rows = self.rows();
        let found = keep.and_then(|(original, name)| {
            let projection = self.projection(self.strategy())?;
            rows.iter().position(|&i| {
                let o = &projection.outcomes[i];
                match original {
                    Some(index) => o.original == Some(index),
                    None => o.original.is_none() && o.name == name,
                }
            })
        });
        self.select_row(found.unwrap_or(self.tool_sel));
    }

    fn selected_key(&self) -> Option<(Option<usize>, String)> {
        let projection = self.projection(self.strategy())?;
        let o = projection.outcomes.get(self.selected_outcome()?)?;
        Some((o.original, o.name.clone()))
    }

    fn switch_tab(&mut self, tab: Tab) {
        let keep = self.selected_key();
        if let Tab::Strategy(s) = tab {
            self.overview_sel = Tab::Strategy(s).index() - 1;
        }
        self.tab = tab;
        self.searching = false;
        if let Tab::Strategy(s) = tab
            && (self.projection(s).is_none() || self.figures(s).is_none())
        {
            // Ask again with this strategy first: the worker drops the older job for it and
            // keeps everything already computed.
            self.request_compute();
        }
        if self.detail == Detail::Added
            && let Tab::Strategy(s) = tab
            && !view::has_added(self, s)
        {
            self.detail = Detail::Entries;
        }
        self.resync(keep);
        self.scroll = 0;
    }

    fn move_by(&mut self, delta: isize) {
        match self.tab {
            Tab::Overview => {
                let last = Strategy::ALL.len() as isize - 1;
                self.overview_sel = (self.overview_sel as isize + delta).clamp(0, last) as usize;
            }
            Tab::Strategy(_) => {
                if self.focus == Pane::Detail {
                    let max = view::detail_len(self).saturating_sub(self.detail_height());
                    self.scroll = (self.scroll as isize + delta).clamp(0, max as isize) as usize;
                } else {
                    let row = (self.tool_sel as isize + delta).max(0) as usize;
                    self.select_row(row);
                }
            }
        }
    }

    fn page(&self) -> isize {
        match self.focus {
            Pane::Tools => self.table_height() as isize,
            Pane::Detail => self.detail_height() as isize,
        }
    }

    fn act(&mut self, action: Action, index: Option<usize>) {
        match self.context() {
            Context::Help => self.act_help(action),
            Context::Search => self.act_search(action),
            Context::Settings | Context::SettingsEdit => self.act_settings(action),
            Context::Export | Context::Confirm => self.act_export(action),
            Context::Overview | Context::Strategy | Context::Global => {
                self.act_screen(action, index)
            }
        }
    }

    fn act_screen(&mut self, action: Action, index: Option<usize>) {
        match action {
            Action::Quit => self.quit = true,
            Action::Back => {
                if !self.filter.is_empty() {
                    let keep = self.selected_key();
                    self.filter.clear();
                    self.resync(keep);
                } else {
                    self.switch_tab(Tab::Overview);
                }
            }
            Action::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-self.page()),
            Action::PageDown => self.move_by(self.page()),
            Action::Top => self.move_by(isize::MIN / 2),
            Action::Bottom => self.move_by(isize::MAX / 2),
            Action::Left => self.hscroll = self.hscroll.saturating_sub(8),
            Action::Right => self.hscroll = (self.hscroll + 8).min(100_000),
            Action::NextTab => {
                let n = Tab::all().count();
                self.switch_tab(Tab::from_index((self.tab.index() + 1) % n));
            }
            Action::PrevTab => {
                let n = Tab::all().count();
                self.switch_tab(Tab::from_index((self.tab.index() + n - 1) % n));
            }
            Action::Overview => self.switch_tab(Tab::Overview),
            Action::StrategyKey => {
                if let Some(&s) = index.and_then(|i| Strategy::ALL.get(i)) {
                    self.switch_tab(Tab::Strategy(s));
                }
            }
            Action::Open => self.switch_tab(Tab::Strategy(self.strategy())),
            Action::FocusNext => {
                self.focus = match self.focus {
                    Pane::Tools => Pane::Detail,
                    Pane::Detail => Pane::Tools,
                }
            }
            Action::DiffMode => {
                self.detail = match self.detail {
                    Detail::Entries => Detail::Unified,
                    Detail::Unified => Detail::Split,
                    _ => Detail::Entries,
                };
                self.scroll = 0;
            }
            Action::Entries => self.set_detail(Detail::Entries),
            Action::Request => self.set_detail(Detail::Request),
            Action::Added => {
                if view::has_added(self, self.strategy()) {
                    self.set_detail(Detail::Added);
                } else {
                    self.set_status(
                        format!("{} adds no text and no tools", self.strategy()),
                        false,
                    );
                }
            }
            Action::Wrap => {
                self.wrap = !self.wrap;
                self.scroll = 0;
                self.hscroll = 0;
            }
            Action::Units => {
                self.bytes_view = !self.bytes_view;
                let units = if self.bytes_view { "bytes" } else { "tokens" };
                self.set_status(format!("the tool table shows {units}"), false);
            }
            Action::Search => {
                self.searching = true;
                self.focus = Pane::Tools;
            }
            Action::Sort => {
                let keep = self.selected_key();
                self.sort = self.sort.next();
                self.resync(keep);
                self.set_status(format!("sorted by {}", self.sort.label()), false);
            }
            Action::Settings => {
                self.overlay = Some(Overlay::Settings {
                    selected: 0,
                    editing: None,
                    error: None,
                })
            }
            Action::Encoding => self.toggle_encoding(),
            Action::Export => self.open_export(),
            _ => {}
        }
    }

    fn set_detail(&mut self, detail: Detail) {
        self.detail = detail;
        self.scroll = 0;
        self.hscroll = 0;
    }

    fn toggle_encoding(&mut self) {
        self.encoding = match self.encoding {
            Encoding::O200kBase => Encoding::Cl100kBase,
            Encoding::Cl100kBase => Encoding::O200kBase,
        };
        self.generation += 1;
        self.request_compute();
        self.set_status(format!("encoding {}", self.encoding.id()), false);
    }

    fn act_help(&mut self, action: Action) {
        let Some(Overlay::Help { scroll }) = &mut self.overlay else {
            return;
        };
        match action {
            Action::Back => self.overlay = None,
            Action::Down => *scroll += 1,
            Action::Up => *scroll = scroll.saturating_sub(1),
            Action::PageDown => *scroll += 10,
            Action::PageUp => *scroll = scroll.saturating_sub(10),
            _ => {}
        }
        if let Some(Overlay::Help { scroll }) = &mut self.overlay {
            *scroll = (*scroll).min(view::help_len().saturating_sub(1));
        }
    }

    fn act_search(&mut self, action: Action) {
        match action {
            Action::Confirm => self.searching = false,
            Action::Back => {
                self.searching = false;
                let keep = self.selected_key();
                self.filter.clear();
                self.resync(keep);
            }
            Action::Backspace => {
                self.filter.pop();
                self.resync(None);
                self.select_row(0);
            }
            Action::Down => self.move_by(1),
            Action::Up => self.move_by(-1),
            _ => {}
        }
    }

    fn type_char(&mut self, c: char) {
        if self.searching && self.overlay.is_none() {
            self.filter.push(c);
            self.select_row(0);
            return;
        }
        match &mut self.overlay {
            Some(Overlay::Settings {
                editing: Some(text),
                ..
            }) => text.push(c),
            Some(Overlay::Export { path, error, .. }) => {
                path.push(c);
                *error = None;
            }
            _ => {}
        }
    }

    fn act_settings(&mut self, action: Action) {
        let Some(Overlay::Settings {
            selected,
            editing,
            error,
        }) = &mut self.overlay
        else {
            return;
        };
        let rows = Settings::KEYS.len() + 1;
        match (editing.is_some(), action) {
            (false, Action::Back) => self.overlay = None,
            (false, Action::Down) => *selected = (*selected + 1).min(rows - 1),
            (false, Action::Up) => *selected = selected.saturating_sub(1),
            (false, Action::Confirm) => {
                if *selected == Settings::KEYS.len() {
                    self.toggle_encoding();
                } else {
                    let key = Settings::KEYS[*selected].key;
                    *editing = Some(self.settings.get(key).unwrap_or_default());
                    *error = None;
                }
            }
            (false, Action::Reset) => {
                if self.settings != Settings::default() {
                    self.settings = Settings::default();
                    self.settings_changed();
                }
                self.set_status("settings back to their defaults", false);
            }
            (true, Action::Back) => {
                *editing = None;
                *error = None;
            }
            (true, Action::Backspace) => {
                if let Some(text) = editing {
                    text.pop();
                }
            }
            (true, Action::Confirm) => {
                let key = Settings::KEYS[*selected].key;
                let value = editing.clone().unwrap_or_default();
                let mut next = self.settings.clone();
                match next.set(key, &value) {
                    Ok(()) => {
                        *editing = None;
                        *error = None;
                        if next != self.settings {
                            self.settings = next;
                            self.settings_changed();
                        }
                        self.set_status(format!("{key}={value}"), false);
                    }
                    Err(e) => *error = Some(e.to_string()),
                }
            }
            _ => {}
        }
    }

    fn open_export(&mut self) {
        let strategy = self.strategy();
        let path = default_export_path(&self.path, strategy, false);
        self.overlay = Some(Overlay::Export {
            strategy,
            tools_only: false,
            path,
            confirm: false,
            error: None,
            accept_invalid: false,
        });
    }

    fn act_export(&mut self, action: Action) {
        let Some(Overlay::Export {
            strategy,
            tools_only,
            path,
            confirm,
            error,
            accept_invalid,
        }) = &mut self.overlay
        else {
            return;
        };
        match action {
            Action::Back => self.overlay = None,
            Action::Toggle => {
                // The default name follows the choice unless the user typed their own.
                let was_default = *path == default_export_path(&self.path, *strategy, *tools_only);
                *tools_only = !*tools_only;
                if was_default {
                    *path = default_export_path(&self.path, *strategy, *tools_only);
                }
            }
            Action::Backspace => {
                path.pop();
                *error = None;
            }
            Action::Confirm | Action::Yes => {
                // A yes to the invalid-request question is not a yes to overwriting.
                let answering_invalid = *confirm && error.is_some();
                if answering_invalid && action == Action::Yes {
                    *accept_invalid = true;
                }
                let overwrite = action == Action::Yes && !answering_invalid;
                let accepted = *accept_invalid;
                *confirm = false;
                let (strategy, tools_only, path) = (*strategy, *tools_only, path.clone());
                if let Some(projection) = self.projection(strategy) {
                    let problem = match projection.refusal() {
                        Some(message) => Some((
                            false,
                            format!("the host refuses {strategy}: nothing to export ({message})"),
                        )),
                        None if !projection.request_valid && !accepted => {
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
                        if let Some(Overlay::Export { confirm, error, .. }) = &mut self.overlay {
                            *confirm = ask;
                            *error = Some(message);
                        }
                        return;
                    }
                }
                if path.trim().is_empty() {
                    if let Some(Overlay::Export { error, .. }) = &mut self.overlay {
                        *error = Some("type a path".to_owned());
                    }
                    return;
                }
                match self.export_bytes(strategy, tools_only) {
                    Some(bytes) => {
                        let what = format!(
                            "{strategy} {}",
                            if tools_only { "tools" } else { "request body" }
                        );
                        self.effects.push(Effect::Write {
                            path: PathBuf::from(path),
                            bytes,
                            overwrite,
                            what,
                        });
                    }
                    None => {
                        if let Some(Overlay::Export { error, .. }) = &mut self.overlay {
                            *error = Some(format!("{strategy} is still being projected"));
                        }
                    }
                }
            }
            Action::No => *confirm = false,
            _ => {}
        }
    }

    /// What an export of `strategy` writes: what `toolprism show` prints (the projected
    /// request body, or only its `tools` array), compact.
    pub fn export_bytes(&self, strategy: Strategy, tools_only: bool) -> Option<Vec<u8>> {
        let projection = self.projection(strategy)?;
        Some(crate::export::render(&self.capture, projection, tools_only, false).into_bytes())
    }

    fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        self.status = None;
        if keys::is_interrupt(&key) {
            self.quit = true;
            return;
        }
        let context = self.context();
        match keys::lookup(context, &key) {
            Some((action, index)) => self.act(action, index),
            None if context.is_text_input() => {
                if let KeyCode::Char(c) = key.code
                    && !key
                        .modifiers
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
                {
                    self.type_char(c);
                }
            }
            None => {}
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        if self.overlay.is_some() {
            // Dialogs are keyboard-driven; the wheel scrolls the help.
            if let Some(Overlay::Help { .. }) = self.overlay {
                match mouse.kind {
                    MouseEventKind::ScrollDown => self.act_help(Action::Down),
                    MouseEventKind::ScrollUp => self.act_help(Action::Up),
                    _ => {}
                }
            }
            return;
        }
        let area = Rect::new(0, 0, self.size.0, self.size.1);
        let layout = view::layout(area, self);
        let at = Position::new(mouse.column, mouse.row);
        let inside = |r: Option<Rect>| r.is_some_and(|r| r.contains(at));
        match mouse.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let delta = if mouse.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                };
                if inside(layout.detail) {
                    self.focus = Pane::Detail;
                } else if inside(layout.table) {
                    self.focus = Pane::Tools;
                }
                self.move_by(delta);
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if layout.tabs.contains(at) {
                    let tab =
                        view::tab_spans(self, layout.tabs.width)
                            .into_iter()
                            .find(|(_, x0, x1)| {
                                (layout.tabs.x + x0..layout.tabs.x + x1).contains(&mouse.column)
                            });
                    if let Some((tab, _, _)) = tab {
                        self.switch_tab(tab);
                    }
                } else if let Some(table) = layout.table.filter(|r| r.contains(at)) {
                    self.focus = Pane::Tools;
                    // Border and header rows come first.
                    let first = table.y + 2;
                    if mouse.row >= first && mouse.row < table.bottom().saturating_sub(1) {
                        let row = match self.tab {
                            Tab::Overview => (mouse.row - first) as usize,
                            Tab::Strategy(_) => self.table_offset + (mouse.row - first) as usize,
                        };
                        match self.tab {
                            Tab::Overview => {
                                // A click on the chosen strategy opens it.
                                if row == self.overview_sel {
                                    self.switch_tab(Tab::Strategy(self.strategy()));
                                } else if row < Strategy::ALL.len() {
                                    self.overview_sel = row;
                                }
                            }
                            Tab::Strategy(_) => {
                                if row < self.rows().len() {
                                    self.select_row(row);
                                }
                            }
                        }
                    }
                } else if inside(layout.detail) {
                    self.focus = Pane::Detail;
                }
            }
            _ => {}
        }
    }

    fn on_worker(&mut self, msg: WorkerMsg) {
        match msg {
            WorkerMsg::CaptureMeasured { encoding, tokens } => {
                self.capture_tokens.insert(encoding, tokens);
            }
            WorkerMsg::Progress {
                generation,
                done,
                total,
                what,
            } => {
                if generation == self.generation {
                    self.progress = Some((done, total, what));
                }
            }
            WorkerMsg::Projected {
                key,
                projection,
                request,
            } => {
                let current = key.0 == self.strategy() && key.1 == self.settings_key;
                let keep = self.selected_key();
                self.projections.insert(key, (projection, request));
                if current {
                    self.resync(keep);
                }
            }
            WorkerMsg::Measured { key, figures } => {
                let current = key.0 == self.strategy() && key.1 == self.settings_key;
                let keep = self.selected_key();
                self.figures.insert(key, figures);
                if current && self.sort != SortKey::Original {
                    self.resync(keep);
                }
            }
            WorkerMsg::Done { generation } => {
                if generation == self.generation {
                    self.progress = None;
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
                if let Some(Overlay::Export { confirm, error, .. }) = &mut self.overlay {
                    *confirm = true;
                    *error = None;
                }
            }
            Err(WriteError::Failed(message)) => {
                if let Some(Overlay::Export { error, .. }) = &mut self.overlay {
                    *error = Some(message.clone());
                }
                self.set_status(format!("export failed: {message}"), true);
            }
        }
    }
}

/// Characters of an entry's keys and strings that must not reach a terminal raw, line breaks
/// and tabs aside (ordinary in descriptions).
fn hidden_chars(value: &Value) -> usize {
    let count = |s: &str| {
        s.chars()
            .filter(|&c| !matches!(c, '\n' | '\r' | '\t') && crate::sanitize::is_unsafe(c))
            .count()
    };
    match value {
        Value::String(s) => count(s),
        Value::Array(items) => items.iter().map(hidden_chars).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| count(k) + hidden_chars(v)).sum(),
        _ => 0,
    }
}

/// The default export path: `<capture stem>.<strategy>[.tools].json` in the current folder.
pub fn default_export_path(capture_path: &str, strategy: Strategy, tools_only: bool) -> String {
    let stem = if capture_path == "-" {
        "stdin".to_owned()
    } else {
        Path::new(capture_path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "capture".to_owned())
    };
    let suffix = if tools_only { ".tools" } else { "" };
    format!("{stem}.{strategy}{suffix}.json")
}

/// Apply one message to the state. Pure: effects are queued on `app.effects`, never run here.
pub fn update(app: &mut App, msg: Msg) {
    match msg {
        Msg::Key(key) => app.on_key(key),
        Msg::Mouse(mouse) => app.on_mouse(mouse),
        Msg::Resize(w, h) => {
            app.size = (w, h);
            let row = app.tool_sel;
            app.select_row(row);
        }
        Msg::Worker(msg) => app.on_worker(msg),
        Msg::Written { what, result } => app.on_written(what, result),
        Msg::Tick => app.spinner = app.spinner.wrapping_add(1),
    }
}

/// Whether a status marks the tool as sent in the projection.
pub fn is_sent(status: Status) -> bool {
    crate::report::is_sent(status)
}
