//! The TUI's state and its pure update function. [`update`] turns a [`Msg`] (a key, a mouse
//! event, a resize, a worker result) into a new state plus [`Effect`]s that the event loop runs
//! (start a computation, write a file, quit); nothing here touches the terminal or the disk,
//! so tests drive it with keys alone.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use serde_json::Value;

use crate::capture::Capture;
use crate::measure::Encoding;
use crate::memo::Memo;
use crate::projection::{Applies, Projection, Status};
use crate::report::{CaptureFigures, CaptureJson, Report, StrategyFigures};
use crate::settings::Settings;
use crate::strategies::registry::settings_of;
use crate::strategy::Strategy;
use crate::tool;

use super::diffview::ToolDiff;
use super::help::HelpState;
use super::input::{self, Edit};
use super::key_prelude::{self, KeyTarget};
use super::keys::{Action, Context};
use super::layout;
use super::matrix;
use super::state::{Detail, MatrixTab, OverviewTab, Pane, SortKey, StrategyTab, ToolSearch};
use super::tabs;
pub use super::tabs::Tab;
use super::textview::{self, ViewMode};
use super::theme::Theme;
use super::worker::{Job, RequestSummary, WorkerMsg};

/// A dialog over the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    /// The key bindings.
    Help(HelpState),
    /// The settings editor.
    Settings {
        /// The row chosen (`Settings::KEYS`, then the encoding).
        selected: usize,
        /// The value being typed, when editing.
        editing: Option<String>,
        /// Why the last value was refused.
        error: Option<String>,
    },
    /// Settings were changed: quit anyway?
    QuitConfirm,
    /// The export dialog.
    Export {
        /// The strategy exported.
        strategy: Strategy,
        /// Only the `tools` array, not the whole request body.
        tools_only: bool,
        /// Pretty JSON (two-space indent) rather than compact.
        pretty: bool,
        /// The path typed.
        path: String,
        /// Where in it the cursor is (characters).
        cursor: usize,
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

/// The whole state of the inspector.
pub struct App {
    /// The capture.
    pub capture: Arc<Capture>,
    /// Where it was read from, as given.
    pub path: String,
    /// The current settings.
    pub settings: Settings,
    /// The same settings shared: the memo's key.
    pub(crate) settings_key: Arc<Settings>,
    /// The current encoding.
    pub encoding: Encoding,
    /// Bumped on every settings or encoding change.
    pub generation: u64,
    /// Every projection, figures and capture count the worker has sent, under their keys.
    memo: Memo,
    /// Bytes of the capture's compact `tools` array.
    pub(crate) capture_bytes: usize,
    /// Background work in progress: done, total, what.
    pub(crate) progress: Option<(usize, usize, &'static str)>,
    /// The current tab.
    pub tab: Tab,
    /// The settings the inspector started with (`q` asks before dropping changes to them).
    pub(crate) initial_settings: Settings,
    /// The settings (as their key) and encoding in force before the last change: the settings
    /// editor shows its figures as before → after.
    pub(crate) settings_before: Option<(Arc<Settings>, Encoding)>,
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
    /// The folder a relative export path is written in (shown in the export dialog).
    pub cwd: String,
    /// What `~` stands for in an export path.
    pub home: Option<String>,
    /// What the view reads (the capture, the trace, standard input): never an export target.
    pub inputs: crate::export::Inputs,
    /// A message for the status bar, and whether it is an error.
    pub status: Option<(String, bool)>,
    /// The terminal's size.
    pub(crate) size: (u16, u16),
    /// The styles.
    pub(crate) theme: Theme,
    /// Work for the event loop.
    pub effects: Vec<Effect>,
    /// Leave the program.
    pub quit: bool,
    /// The program is left by Ctrl-C (exit status 130, as a shell expects), not by `q`.
    pub interrupted: bool,
    /// Opened from a trace's session view (one turn's request): Esc on the home screen goes
    /// back to it instead of staying.
    pub(crate) nested: bool,
    /// Set when Esc on the home screen asks to go back to the session view (with `nested`).
    pub(crate) leave: bool,
    /// Frames of the spinner so far.
    pub(crate) spinner: usize,
    search_text: Vec<String>,
    names: Vec<String>,
    hidden: Vec<usize>,
    diff_cache: RefCell<Option<(DiffKey, Rc<ToolDiff>)>>,
    matrix_cache: RefCell<Option<(MatrixKey, Rc<matrix::MatrixView>)>>,
}

/// What the matrix view depends on: settings, encoding, which strategies are measured,
/// whether the capture is counted, sort, filter and search.
type MatrixKey = (
    Arc<Settings>,
    Encoding,
    u32,
    bool,
    crate::matrix::Sort,
    Option<Strategy>,
    String,
    // The groups folded when grouped by server, `None` when not grouped.
    Option<Vec<super::matrix_groups::Group>>,
);

type DiffKey = (Strategy, Arc<Settings>, usize);

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
        let names = capture
            .tools()
            .iter()
            .map(|t| tool::name(t).unwrap_or("").to_owned())
            .collect();
        // One serialization of the capture's entries serves the search and the byte total.
        let json = CaptureJson::new(&capture);
        let entries: Vec<&str> = json.entries.iter().map(String::as_str).collect();
        let capture_bytes = crate::report::array_bytes(&entries, capture.has_tools_key());
        let search_text = entries.iter().map(|e| e.to_lowercase()).collect();
        let settings_key = Arc::new(settings.clone());
        let mut app = App {
            capture,
            path,
            initial_settings: settings.clone(),
            settings_before: None,
            settings,
            settings_key,
            encoding,
            generation: 0,
            memo: Memo::new(),
            capture_bytes,
            progress: None,
            tab: Tab::Matrix,
            matrix_tab: MatrixTab::default(),
            overview: OverviewTab::default(),
            strategy_tab: StrategyTab::default(),
            search: ToolSearch::default(),
            overlay: None,
            cwd: std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
            home: std::env::var("HOME").ok().filter(|h| !h.is_empty()),
            status: None,
            size: (80, 24),
            theme: Theme::new(color),
            effects: Vec::new(),
            quit: false,
            interrupted: false,
            nested: false,
            inputs: crate::export::Inputs::new(),
            leave: false,
            spinner: 0,
            search_text,
            names,
            hidden,
            diff_cache: RefCell::new(None),
            matrix_cache: RefCell::new(None),
        };
        app.request_compute();
        app
    }

    /// The strategy of the current tab, or the one chosen in the overview.
    pub fn strategy(&self) -> Strategy {
        match self.tab {
            Tab::Strategy(s) => s,
            Tab::Overview => Strategy::ALL[self.overview.selected().min(Strategy::ALL.len() - 1)],
            Tab::Matrix => matrix::strategy_at(self.matrix_tab.cursor.col),
        }
    }

    /// The matrix view under the current settings, encoding, sort, filter and search: the
    /// library's model over the strategies measured so far (cached until one of those changes).
    pub fn matrix(&self) -> Rc<matrix::MatrixView> {
        let ready: Vec<&Arc<StrategyFigures>> = Strategy::ALL
            .iter()
            .filter_map(|&s| self.figures(s))
            .collect();
        let mask = Strategy::ALL
            .into_iter()
            .filter(|&s| self.figures(s).is_some())
            .fold(0u32, |m, s| m | s.bit());
        let counted = self.capture_tokens().is_some();
        let key: MatrixKey = (
            self.settings_key.clone(),
            self.encoding,
            mask,
            counted,
            self.matrix_tab.sort,
            self.matrix_tab.changed_by,
            self.search.text.clone(),
            self.matrix_tab
                .grouped
                .then(|| self.matrix_tab.folded.clone()),
        );
        if let Some((k, view)) = self.matrix_cache.borrow().as_ref()
            && *k == key
        {
            return view.clone();
        }
        let tools_tokens = self.capture_tokens().unwrap_or(0);
        let report = Report {
            version: env!("CARGO_PKG_VERSION"),
            settings: serde_json::Map::new(),
            capture: CaptureFigures {
                // What the model sees of the capture: `original` sends it as it is.
                context_tokens: self
                    .figures(Strategy::Original)
                    .and_then(|f| f.context_tokens)
                    .unwrap_or(tools_tokens),
                path: self.path.clone(),
                shape: self.capture.shape().id(),
                tools: self.capture.tools().len(),
                tools_bytes: self.capture_bytes,
                tools_tokens,
            },
            turn: None,
            encoding: self.encoding.id(),
            strategies: ready.iter().map(|f| f.as_ref().clone()).collect(),
        };
        let needle = self.search.text.to_lowercase();
        let matching: Vec<bool> = if needle.is_empty() {
            Vec::new()
        } else {
            self.search_text
                .iter()
                .map(|t| t.contains(&needle))
                .collect()
        };
        let mut view = matrix::MatrixView::build(
            &report,
            &self.names,
            counted,
            self.matrix_tab.sort,
            self.matrix_tab.changed_by,
            matrix::Search {
                needle: (!needle.is_empty()).then_some(needle.as_str()),
                matching: &matching,
            },
        );
        if self.matrix_tab.grouped {
            let (servers, tools) =
                super::matrix_groups::owners_of(self.capture.tools(), &self.settings);
            let owners = super::matrix_groups::Owners {
                servers: &servers,
                tools: &tools,
            };
            view.group(&report, owners, &self.matrix_tab.folded);
        }
        let view = Rc::new(view);
        *self.matrix_cache.borrow_mut() = Some((key, view.clone()));
        view
    }

    /// How many settings (and the encoding) differ from their defaults.
    pub fn settings_changed_from_default(&self) -> usize {
        let defaults = Settings::default();
        let keys = Settings::KEYS
            .iter()
            .filter(|k| self.settings.get(k.key) != defaults.get(k.key))
            .count();
        keys + usize::from(self.encoding != Encoding::default())
    }

    /// Whether the settings differ from the ones the inspector started with.
    pub fn settings_changed_since_start(&self) -> bool {
        self.settings != self.initial_settings
    }

    /// A strategy's projection under the current settings, when ready.
    pub fn projection(&self, strategy: Strategy) -> Option<&Arc<Projection>> {
        self.memo
            .projection(&(strategy, self.settings_key.clone()))
            .map(|(p, _)| p)
    }

    /// A strategy's request-level comparison, when ready.
    pub fn request(&self, strategy: Strategy) -> Option<&RequestSummary> {
        self.memo
            .projection(&(strategy, self.settings_key.clone()))
            .map(|(_, r)| r)
    }

    /// A strategy's figures under the current settings and encoding, when measured.
    pub fn figures(&self, strategy: Strategy) -> Option<&Arc<StrategyFigures>> {
        self.memo
            .figures(&(strategy, self.settings_key.clone(), self.encoding))
    }

    /// A strategy's figures under other settings (their key) and encoding, when measured (the
    /// cache keeps every one measured).
    pub fn figures_under(
        &self,
        strategy: Strategy,
        settings_key: &Arc<Settings>,
        encoding: Encoding,
    ) -> Option<&Arc<StrategyFigures>> {
        self.memo
            .figures(&(strategy, settings_key.clone(), encoding))
    }

    /// The capture's tokens under the current encoding, when counted.
    pub fn capture_tokens(&self) -> Option<usize> {
        self.memo.capture_tokens(self.encoding)
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
            Some(Overlay::Help(help)) => help.context(),
            Some(Overlay::Settings { editing, .. }) => {
                if editing.is_some() {
                    Context::SettingsEdit
                } else {
                    Context::Settings
                }
            }
            Some(Overlay::QuitConfirm) => Context::QuitConfirm,
            Some(Overlay::Export { confirm, error, .. }) => {
                // The question is about a rejected request when it comes with its reason,
                // else about an existing file.
                if *confirm && error.is_some() {
                    Context::ConfirmInvalid
                } else if *confirm {
                    Context::Confirm
                } else {
                    Context::Export
                }
            }
            None if self.search.typing => Context::Search,
            None => match self.tab {
                Tab::Matrix => Context::Matrix,
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
        let needle = self.search.text.to_lowercase();
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
        match self.strategy_tab.sort {
            SortKey::Original => {}
            // By the `saved` column as shown, a percentage (tokens break ties); an added tool has
            // none and goes last.
            SortKey::Saving => rows.sort_by_key(|&i| {
                let (before, after) = tokens(i);
                let pct = if before > 0 {
                    (before - after) * 1_000_000 / before
                } else {
                    i64::MIN
                };
                std::cmp::Reverse((pct, before - after))
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
        if !needle.is_empty() {
            // A search for a name puts that tool first (a stable sort keeps the rest in order).
            rows.sort_by_key(|&i| projection.outcomes[i].name.to_lowercase() != needle);
        }
        rows
    }

    /// A strategy tab's search subtotal: the tools that match, of how many, and the tokens of
    /// the matching tools in the capture and as the strategy sends them (`None` without a
    /// search or before the figures are measured).
    pub fn search_subtotal(&self) -> Option<(usize, usize, usize, usize)> {
        let Tab::Strategy(strategy) = self.tab else {
            return None;
        };
        if self.search.text.is_empty() {
            return None;
        }
        let projection = self.projection(strategy)?;
        let figures = self.figures(strategy)?;
        let rows = self.rows();
        let (mut before, mut after) = (0, 0);
        for &i in &rows {
            let (o, t) = (&projection.outcomes[i], figures.per_tool.get(i)?);
            if o.original.is_some() {
                before += t.original_tokens;
            }
            if o.projected.is_some() {
                after += t.projected_tokens;
            }
        }
        Some((rows.len(), projection.outcomes.len(), before, after))
    }

    /// The rows of the entries view (at the current size, in its mode and wrapping) that
    /// contain the search text, in either pane: where `n`/`N` go in the selected tool.
    pub fn detail_matches(&self) -> Vec<usize> {
        if self.search.text.is_empty() || self.strategy_tab.detail.shows != Detail::Entries {
            return Vec::new();
        }
        let Some(detail) = self.screen_layout().detail else {
            return Vec::new();
        };
        let (left, right) = layout::entry_panes(detail);
        let (original, sent) = self.selected_entries().unwrap_or((None, None));
        let matches = |entry: Option<&Value>, pane: Rect| {
            entry.map_or_else(Vec::new, |e| {
                let cells = pane.width.saturating_sub(2) as usize;
                let rows = textview::entry_rows(
                    e,
                    self.strategy_tab.detail.view_mode,
                    cells,
                    self.strategy_tab.detail.wrap,
                );
                textview::match_rows(&rows, &self.search.text)
            })
        };
        let mut rows = matches(original, left);
        rows.extend(matches(sent, right));
        rows.sort_unstable();
        rows.dedup();
        rows
    }

    /// `n` (`forward`) or `N`: the next search match. In a strategy tab, the next row of the
    /// selected tool's entries that holds the search text, then the next matching tool
    /// (wrapping); in the matrix, the next matching tool (wrapping).
    fn next_match(&mut self, forward: bool) {
        if self.search.text.is_empty() {
            self.set_status("n and N move between matches: search first with /", false);
            return;
        }
        let step = |at: usize, len: usize| {
            if forward {
                (at + 1) % len
            } else {
                (at + len - 1) % len
            }
        };
        match self.tab {
            Tab::Matrix => {
                // Subtotal rows are not matches: the steps go from tool to tool.
                let tools = self.matrix().tool_positions();
                let len = tools.len();
                if len == 0 {
                    self.set_status(
                        format!(
                            "no tool matches \"{}\"",
                            crate::text::safe(&self.search.text)
                        ),
                        false,
                    );
                    return;
                }
                let here = self.matrix_tab.cursor.rows.selected;
                let row = match tools.iter().position(|&t| t == here) {
                    Some(k) => step(k, len),
                    // From a subtotal row: the next tool below it, or the last one above.
                    None if forward => tools.iter().position(|&t| t > here).unwrap_or(0),
                    None => tools.iter().rposition(|&t| t < here).unwrap_or(len - 1),
                };
                self.select_cell(tools[row]);
                self.set_status(format!("tool {} of {len} matching", row + 1), false);
            }
            Tab::Strategy(_) => {
                let len = self.rows().len();
                if len == 0 {
                    self.set_status(
                        format!(
                            "no tool matches \"{}\"",
                            crate::text::safe(&self.search.text)
                        ),
                        false,
                    );
                    return;
                }
                let here = self.detail_matches();
                let next = if forward {
                    here.iter()
                        .find(|&&r| self.strategy_tab.detail.found_at.is_none_or(|f| r > f))
                } else {
                    here.iter()
                        .rev()
                        .find(|&&r| self.strategy_tab.detail.found_at.is_some_and(|f| r < f))
                };
                let found = match next {
                    Some(&r) => Some(r),
                    None => {
                        self.select_row(step(self.strategy_tab.tools.selected, len));
                        let here = self.detail_matches();
                        if forward { here.first() } else { here.last() }.copied()
                    }
                };
                self.strategy_tab.detail.found_at = found;
                self.strategy_tab.detail.scroll.offset = found.unwrap_or(0);
                let here = self.detail_matches();
                let tool = format!(
                    "tool {} of {len} matching",
                    self.strategy_tab.tools.selected + 1
                );
                let text = match found.and_then(|r| here.iter().position(|&x| x == r)) {
                    Some(i) => format!("match {} of {} in this tool · {tool}", i + 1, here.len()),
                    None => tool,
                };
                self.set_status(text, false);
            }
            Tab::Overview => {}
        }
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
        self.rows().get(self.strategy_tab.tools.selected).copied()
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
        self.settings_before = Some((self.settings_key.clone(), self.encoding));
        self.settings_key = Arc::new(self.settings.clone());
        self.generation += 1;
        self.request_compute();
        self.resync(None);
    }

    /// The layout of the whole screen as it is now drawn.
    fn screen_layout(&self) -> layout::AppLayout {
        layout::app_layout(self)
    }

    fn set_status(&mut self, text: impl Into<String>, error: bool) {
        self.status = Some((text.into(), error));
    }

    fn table_height(&self) -> usize {
        pane_rows(self.screen_layout().table)
    }

    fn detail_height(&self) -> usize {
        pane_rows(self.screen_layout().detail)
    }

    fn select_row(&mut self, row: usize) {
        let (len, height) = (self.rows().len(), self.table_height());
        self.strategy_tab.tools.select(row, len, height);
        let detail = &mut self.strategy_tab.detail;
        detail.scroll.offset = 0;
        detail.found_at = None;
        detail.hscroll = 0;
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
                    None => o.original.is_none() && *o.name == *name,
                }
            })
        });
        self.select_row(found.unwrap_or(self.strategy_tab.tools.selected));
    }

    fn selected_key(&self) -> Option<(Option<usize>, String)> {
        let projection = self.projection(self.strategy())?;
        let o = projection.outcomes.get(self.selected_outcome()?)?;
        Some((o.original, o.name.to_string()))
    }

    fn switch_tab(&mut self, tab: Tab) {
        let keep = self.selected_key();
        if let Tab::Strategy(s) = tab {
            self.overview.strategies.selected = s.index();
        }
        self.tab = tab;
        self.search.typing = false;
        if let Tab::Strategy(s) = tab
            && (self.projection(s).is_none() || self.figures(s).is_none())
        {
            // Ask again with this strategy first: the worker drops the older job for it and
            // keeps everything already computed.
            self.request_compute();
        }
        if self.strategy_tab.detail.shows == Detail::Added
            && let Tab::Strategy(s) = tab
            && !self.has_added(s)
        {
            self.strategy_tab.detail.shows = Detail::Entries;
        }
        self.resync(keep);
        self.strategy_tab.detail.scroll.offset = 0;
    }

    /// Put the matrix cursor on `row` (clamped) and scroll so it shows.
    fn select_cell(&mut self, row: usize) {
        let (len, height) = (self.matrix().len(), self.matrix_height());
        self.matrix_tab.cursor.rows.select(row, len, height);
    }

    /// Move the matrix cursor to another column, panning so it shows.
    fn move_col(&mut self, delta: isize) {
        let last = Strategy::ALL.len() as isize - 1;
        self.matrix_tab.cursor.col =
            (self.matrix_tab.cursor.col as isize + delta).clamp(0, last) as usize;
        let m = self.matrix();
        let g = matrix::geometry(&m, self.size.0, self.matrix_tab.cursor);
        self.matrix_tab.cursor.col_offset = g.visible.start;
    }

    /// Put the matrix cursor on the column drawn at screen column `x` of `table`, if any.
    fn click_col(&mut self, table: Rect, x: u16) {
        let cursor = self.matrix_tab.cursor;
        let m = self.matrix();
        let Some(col) = matrix::column_at(&m, table.width, cursor, (x - table.x) as usize) else {
            return;
        };
        drop(m);
        self.move_col(col as isize - cursor.col as isize);
    }

    fn matrix_height(&self) -> usize {
        self.screen_layout().table.map_or(1, |r| {
            matrix::body_rows(r.height, self.matrix().model.total_rows().len()).0
        })
    }

    fn matrix_key(&self) -> Option<super::matrix_groups::RowKey> {
        self.matrix().key_at(self.matrix_tab.cursor.rows.selected)
    }

    /// Keep the matrix cursor on the same tool (or subtotal row) after its rows changed.
    fn matrix_resync(&mut self, keep: Option<super::matrix_groups::RowKey>) {
        let found = keep.and_then(|k| self.matrix().find(&k));
        self.select_cell(found.unwrap_or(self.matrix_tab.cursor.rows.selected));
    }

    /// On an added tool's row (`tool_search`, the code gateway), when the cursor's column does
    /// not add it: why Enter cannot open it there, and which columns do.
    fn added_elsewhere(&self) -> Option<String> {
        let m = self.matrix();
        let row = m.row(self.matrix_tab.cursor.rows.selected)?;
        if !matches!(row.origin, crate::matrix::Origin::Added(_)) {
            return None;
        }
        let adds = |c: usize| {
            m.cell(row, c)
                .is_some_and(|cell| cell.mark == crate::matrix::Mark::Added)
        };
        let here = self.matrix_tab.cursor.col.checked_sub(1);
        if here.is_some_and(adds) {
            return None;
        }
        let name = m
            .name(self.matrix_tab.cursor.rows.selected)
            .unwrap_or("this tool");
        let by: Vec<&str> = (0..m.columns.len())
            .filter(|&c| adds(c))
            .map(|c| matrix::strategies()[c].id())
            .collect();
        let strategy = self.strategy();
        let not_here = match here {
            None => format!("{name} is not in the capture"),
            Some(_) => format!("{strategy} does not send {name}"),
        };
        Some(match by.as_slice() {
            [] => format!("{not_here}: no strategy measured so far adds it"),
            [one] => format!("{not_here}: {one} adds it · move to its column and press Enter"),
            many => format!(
                "{not_here}: added by {} · move to one of their columns and press Enter",
                many.join(", ")
            ),
        })
    }

    fn act_matrix(&mut self, action: Action) -> bool {
        if self.act_groups(action) {
            return true;
        }
        match action {
            Action::Left => self.move_col(-1),
            Action::Right => self.move_col(1),
            Action::Open => {
                let strategy = self.strategy();
                if let Some(why) = self.added_elsewhere() {
                    self.set_status(why, false);
                    return true;
                }
                let keep = self
                    .matrix()
                    .row(self.matrix_tab.cursor.rows.selected)
                    .map(|r| match r.origin {
                        crate::matrix::Origin::Capture(i) => (Some(i), String::new()),
                        crate::matrix::Origin::Added(_) => (None, r.name.clone()),
                    });
                self.switch_tab(Tab::Strategy(strategy));
                if keep.is_some() {
                    self.resync(keep);
                }
            }
            Action::Sort => {
                use crate::matrix::{Sort, SortColumn};
                let column = if self.matrix_tab.cursor.col == 0 {
                    SortColumn::Original
                } else {
                    SortColumn::Strategy(self.strategy())
                };
                let descending = if self.matrix_tab.sort.column == column {
                    !self.matrix_tab.sort.descending
                } else {
                    Sort::natural(column).descending
                };
                // The selected tool stays selected, wherever the new order puts it.
                let selected = self.matrix_key();
                self.matrix_tab.sort = Sort { column, descending };
                let at = selected.and_then(|k| self.matrix().find(&k)).unwrap_or(0);
                self.select_cell(at);
                let what = self.strategy().id();
                let order = if descending {
                    "largest first"
                } else {
                    "smallest first"
                };
                self.set_status(format!("sorted by {what}, {order}"), false);
            }
            Action::FilterChanged => {
                if self.matrix_tab.cursor.col == 0 {
                    self.set_status(
                        "f keeps the tools a strategy changes: move to a strategy column (l)",
                        false,
                    );
                    return true;
                }
                let keep = self.matrix_key();
                let s = self.strategy();
                self.matrix_tab.changed_by = if self.matrix_tab.changed_by == Some(s) {
                    None
                } else {
                    Some(s)
                };
                self.matrix_resync(keep);
                match self.matrix_tab.changed_by {
                    Some(_) => {
                        let s = self.strategy();
                        let none = self.matrix().shown.is_empty();
                        // A strategy that only reorders changes no entry: say so, rather
                        // than leave an empty table to explain itself.
                        let reordered = self
                            .figures(s)
                            .is_some_and(|f| f.first_changed_byte.is_some());
                        let text = match (none, reordered) {
                            (true, true) => format!(
                                "{s} changes no tool: only their order changed · f again shows all"
                            ),
                            (true, false) => {
                                format!("{s} changes no tool · f again shows all")
                            }
                            _ => format!("only the tools {s} changes · f again shows all"),
                        };
                        self.set_status(text, false);
                    }
                    None => self.set_status("every tool", false),
                }
            }
            Action::Back => {
                if !self.search.text.is_empty() {
                    let keep = self.matrix_key();
                    self.search.text.clear();
                    self.matrix_resync(keep);
                } else if self.matrix_tab.changed_by.is_some() {
                    let keep = self.matrix_key();
                    self.matrix_tab.changed_by = None;
                    self.matrix_resync(keep);
                } else if self.nested {
                    self.leave = true;
                } else {
                    self.set_status("this is the home screen · q quits", false);
                }
            }
            _ => return false,
        }
        true
    }

    /// The grouping by server: `b`, `z`, `Z`, and Enter on a subtotal row (it folds, as there
    /// is no tool to open). Whether `action` was one of these.
    fn act_groups(&mut self, action: Action) -> bool {
        use super::matrix_groups::{Group, RowKey};
        let m = self.matrix();
        let at = self.matrix_tab.cursor.rows.selected;
        match action {
            Action::GroupServers => {
                let (servers, _) =
                    super::matrix_groups::owners_of(self.capture.tools(), &self.settings);
                if !self.matrix_tab.grouped && servers.iter().all(Option::is_none) {
                    self.set_status(
                        "no tool here is an MCP server's (mcp.prefixes names them): nothing to group",
                        false,
                    );
                    return true;
                }
                let keep = match m.key_at(at) {
                    // Ungrouped, a subtotal row's tools stay: the cursor goes to its first.
                    Some(RowKey::Group(_)) => m.row(at + 1).map(|r| RowKey::Tool(r.origin)),
                    other => other,
                };
                self.matrix_tab.grouped = !self.matrix_tab.grouped;
                self.matrix_resync(keep);
                let text = if self.matrix_tab.grouped {
                    let m = self.matrix();
                    let servers = m
                        .subtotals
                        .iter()
                        .filter(|s| matches!(s.group, Group::Server(_)))
                        .count();
                    let noun = if servers == 1 { "server" } else { "servers" };
                    format!(
                        "grouped by MCP server: {servers} {noun} · z folds one · b again: one list"
                    )
                } else {
                    "one list of tools".to_owned()
                };
                self.set_status(text, false);
            }
            Action::Fold | Action::Open if m.grouped() => {
                if action == Action::Open && m.subtotal_at(at).is_none() {
                    return false;
                }
                let Some(group) = m.group_at(at).cloned() else {
                    return true;
                };
                let folding = !self.matrix_tab.folded.contains(&group);
                if folding {
                    self.matrix_tab.folded.push(group.clone());
                } else {
                    self.matrix_tab.folded.retain(|g| *g != group);
                }
                // Folding hides the tool the cursor was on: it goes to the subtotal row.
                self.matrix_resync(Some(RowKey::Group(group.clone())));
                let what = if folding { "folded" } else { "unfolded" };
                self.set_status(format!("{} {what} · z again", group.label()), false);
            }
            Action::FoldAll if m.grouped() => {
                let groups: Vec<Group> = m.subtotals.iter().map(|s| s.group.clone()).collect();
                let unfold = m.subtotals.iter().all(|s| s.folded);
                let keep = m.group_at(at).cloned().map(RowKey::Group);
                self.matrix_tab.folded = if unfold { Vec::new() } else { groups };
                self.matrix_resync(keep);
                let what = if unfold {
                    "every server unfolded"
                } else {
                    "every server folded"
                };
                self.set_status(format!("{what} · Z again"), false);
            }
            Action::Fold | Action::FoldAll => {
                self.set_status(
                    "z folds a server: group the tools by server first (b)",
                    false,
                );
            }
            _ => return false,
        }
        true
    }

    fn move_by(&mut self, delta: isize) {
        match self.tab {
            Tab::Matrix => {
                let (len, height) = (self.matrix().len(), self.matrix_height());
                self.matrix_tab.cursor.rows.move_by(delta, len, height);
            }
            Tab::Overview => {
                let chosen = self.overview.strategies.step(delta, Strategy::ALL.len());
                self.overview.strategies.selected = chosen;
                self.overview.notes.offset = 0;
            }
            Tab::Strategy(_) => {
                if self.strategy_tab.focus == Pane::Detail {
                    let max = layout::detail_rows(self).saturating_sub(self.detail_height());
                    self.strategy_tab.detail.scroll.scroll_by(delta, max);
                } else {
                    let row = self
                        .strategy_tab
                        .tools
                        .selected
                        .saturating_add_signed(delta);
                    self.select_row(row);
                }
            }
        }
    }

    /// Rows the notes pane scrolls by a page: its height less the row that says what is
    /// below.
    fn notes_page(&self) -> usize {
        pane_rows(self.screen_layout().notes)
    }

    fn page(&self) -> isize {
        if self.tab == Tab::Matrix {
            return self.matrix_height() as isize;
        }
        match self.strategy_tab.focus {
            Pane::Tools => self.table_height() as isize,
            Pane::Detail => self.detail_height() as isize,
        }
    }

    fn act(&mut self, action: Action, index: Option<usize>) {
        match self.context() {
            Context::Help | Context::HelpSearch => self.act_help(action),
            Context::Search => self.act_search(action),
            Context::Settings | Context::SettingsEdit => self.act_settings(action),
            Context::Export | Context::Confirm | Context::ConfirmInvalid => self.act_export(action),
            Context::QuitConfirm => match action {
                Action::Yes => self.quit = true,
                _ => self.overlay = None,
            },
            Context::Matrix => {
                if !self.act_matrix(action) {
                    self.act_screen(action, index);
                }
            }
            Context::Overview if matches!(action, Action::PageDown | Action::PageUp) => {
                // Pages scroll the notes; j and k choose the strategy.
                if self.screen_layout().notes.is_none() {
                    self.set_status("the notes need a taller terminal", false);
                    return;
                }
                let page = self.notes_page();
                if action == Action::PageDown {
                    let max = layout::notes_scroll_max(self);
                    self.overview.notes.scroll_by(page as isize, max);
                } else {
                    self.overview.notes.scroll_up(page);
                }
            }
            Context::Overview | Context::Strategy | Context::Global => {
                self.act_screen(action, index);
            }
            // The session view's own contexts: never the inspector's.
            Context::Session | Context::TurnDiff => {}
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
                if self.settings_changed_since_start() {
                    self.overlay = Some(Overlay::QuitConfirm);
                } else {
                    self.quit = true;
                }
            }
            Action::Back => {
                if !self.search.text.is_empty() && self.tab != Tab::Overview {
                    let keep = self.selected_key();
                    self.search.text.clear();
                    self.resync(keep);
                } else {
                    self.switch_tab(Tab::Matrix);
                }
            }
            Action::Suspend => self.effects.push(Effect::Suspend),
            Action::Help => self.overlay = Some(Overlay::Help(HelpState::open(self.context()))),
            Action::Search => {
                self.search.typing = true;
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
                self.overlay = Some(Overlay::Settings {
                    selected,
                    editing: None,
                    error: None,
                });
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

    /// Moving: the cursor, the tabs, the focus. Whether `action` was one of these.
    fn act_move(&mut self, action: Action, index: Option<usize>) -> bool {
        match action {
            Action::Matrix => self.switch_tab(Tab::Matrix),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-self.page()),
            Action::PageDown => self.move_by(self.page()),
            Action::Top => self.move_by(isize::MIN / 2),
            Action::Bottom => self.move_by(isize::MAX / 2),
            Action::Left => {
                self.strategy_tab.detail.hscroll =
                    self.strategy_tab.detail.hscroll.saturating_sub(8);
            }
            Action::Right => {
                self.strategy_tab.detail.hscroll =
                    (self.strategy_tab.detail.hscroll + 8).min(100_000);
            }
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
                self.strategy_tab.focus = match self.strategy_tab.focus {
                    Pane::Tools => Pane::Detail,
                    Pane::Detail => Pane::Tools,
                }
            }
            Action::Zoom => {
                if matches!(self.tab, Tab::Strategy(_)) {
                    self.strategy_tab.zoom = !self.strategy_tab.zoom;
                    self.strategy_tab.focus = if self.strategy_tab.zoom {
                        Pane::Detail
                    } else {
                        Pane::Tools
                    };
                }
            }
            _ => return false,
        }
        true
    }

    /// The detail pane's views and the search matches in it. Whether `action` was one of these.
    fn act_detail(&mut self, action: Action) -> bool {
        match action {
            Action::DiffMode => {
                self.strategy_tab.detail.shows = match self.strategy_tab.detail.shows {
                    Detail::Entries => Detail::Unified,
                    Detail::Unified => Detail::Split,
                    _ => Detail::Entries,
                };
                self.strategy_tab.detail.scroll.offset = 0;
            }
            Action::Entries => self.set_detail(Detail::Entries),
            Action::Request => self.set_detail(Detail::Request),
            Action::Added => {
                if self.has_added(self.strategy()) {
                    self.set_detail(Detail::Added);
                } else {
                    self.set_status(
                        format!("{} adds no text and no tools", self.strategy()),
                        false,
                    );
                }
            }
            Action::Wrap => {
                self.strategy_tab.detail.wrap = !self.strategy_tab.detail.wrap;
                self.strategy_tab.detail.scroll.offset = 0;
                self.strategy_tab.detail.hscroll = 0;
                self.strategy_tab.detail.found_at = None;
            }
            Action::ViewMode => {
                // From a diff or the request, `v` goes to the text view; in the entries it
                // switches between the two views.
                self.strategy_tab.detail.view_mode = match (
                    self.strategy_tab.detail.shows,
                    self.strategy_tab.detail.view_mode,
                ) {
                    (Detail::Entries, ViewMode::Text) => ViewMode::Json,
                    _ => ViewMode::Text,
                };
                self.set_detail(Detail::Entries);
                self.strategy_tab.detail.found_at = None;
                let what = match self.strategy_tab.detail.view_mode {
                    ViewMode::Json => "JSON view: the entries as pretty JSON",
                    ViewMode::Text => "text view: each string of the entries with its line breaks",
                };
                self.set_status(format!("{what} · v switches"), false);
            }
            Action::NextMatch => self.next_match(true),
            Action::PrevMatch => self.next_match(false),
            Action::Units => {
                self.strategy_tab.bytes_view = !self.strategy_tab.bytes_view;
                let units = if self.strategy_tab.bytes_view {
                    "bytes"
                } else {
                    "tokens"
                };
                self.set_status(format!("the tool table shows {units}"), false);
            }
            _ => return false,
        }
        true
    }

    /// What besides the tab shapes the frame.
    pub fn layout_flags(&self) -> layout::Flags {
        layout::Flags {
            banner: self.banner().is_some(),
            zoom: self.strategy_tab.zoom && matches!(self.tab, Tab::Strategy(_)),
        }
    }

    /// The one line above a strategy tab that answers "why did this do nothing?": its text and
    /// whether it is an error. `None` when the strategy acts on the capture.
    pub fn banner(&self) -> Option<(String, bool)> {
        let Tab::Strategy(strategy) = self.tab else {
            return None;
        };
        if strategy == Strategy::Original {
            return None;
        }
        let projection = self.projection(strategy)?;
        if let Some(error) = projection.refusal() {
            return Some((
                format!(
                    "{strategy} refuses this capture: {} (no setting changes this)",
                    crate::text::safe(error)
                ),
                true,
            ));
        }
        // A capture of a shape the host never sends: no setting helps, so none is offered.
        let unsent =
            strategy == Strategy::Codex && !crate::strategies::codex::sends(self.capture.shape());
        let hint = match settings_of(strategy).first() {
            Some(setting) if !unsent => format!("S edits {}", setting.key),
            _ => "no setting changes this".to_owned(),
        };
        if let crate::projection::ProjectionStatus::NotApplicable(why) = &projection.status {
            return Some((
                // The key first: a long reason is cut at the edge, the key never is.
                format!(
                    "{strategy} does not apply here · {hint} · {}",
                    super::widgets::keys_not_flags(&crate::text::safe(why))
                ),
                false,
            ));
        }
        // Byte for byte: every tool kept, in order, and nothing added.
        let noop = self
            .figures(strategy)
            .is_some_and(|f| f.first_changed_byte.is_none() && f.status == Applies::Ok)
            && projection.added_text.is_none()
            && projection.outcomes.iter().all(|o| o.status == Status::Kept);
        noop.then(|| {
            (
                format!("{strategy} sends the capture unchanged · {hint}"),
                false,
            )
        })
    }

    /// Whether a strategy adds text or tools worth a look.
    pub fn has_added(&self, strategy: Strategy) -> bool {
        self.projection(strategy).is_some_and(|p| {
            p.added_text.is_some()
                || p.outcomes.iter().any(|o| o.status == Status::Added)
                || (strategy == Strategy::Code && p.tool_count() > 0)
        })
    }

    /// What `y` copies: the selected tool's entry as compact JSON (as the strategy sends it,
    /// or the original when it sends nothing), with every unsafe character JSON-escaped so
    /// the text pasted is our own. Returns it and how the status line names it.
    pub fn copy_text(&self) -> Option<(String, String)> {
        let json =
            |entry: &Value| crate::sanitize::json_for_terminal(&tool::compact(entry)).into_owned();
        match self.tab {
            Tab::Strategy(s) => {
                let (original, sent) = self.selected_entries()?;
                let (entry, how) = match (sent, original) {
                    (Some(e), _) => (e, s.id().to_owned()),
                    (None, Some(e)) => (e, "original".to_owned()),
                    (None, None) => return None,
                };
                let name = tool::name(entry).unwrap_or("the tool");
                Some((json(entry), format!("{} ({how})", crate::text::safe(name))))
            }
            Tab::Matrix => {
                let m = self.matrix();
                let row = m.row(self.matrix_tab.cursor.rows.selected)?;
                let strategy = self.strategy();
                let sent = (self.matrix_tab.cursor.col > 0)
                    .then(|| {
                        let c = matrix::strategies().iter().position(|&x| x == strategy)?;
                        let outcome = m.cell(row, c)?.outcome?;
                        let p = self.projection(strategy)?;
                        let at = p.outcomes.get(outcome)?.projected?;
                        Some(p.sent.as_ref()?.get(at)?.entry(&self.capture).clone())
                    })
                    .flatten();
                let (entry, how) = match (sent, row.origin) {
                    (Some(e), _) => (e, strategy.id().to_owned()),
                    (None, crate::matrix::Origin::Capture(i)) => {
                        (self.capture.tools().get(i)?.clone(), "original".to_owned())
                    }
                    (None, crate::matrix::Origin::Added(_)) => return None,
                };
                let name = crate::text::safe(tool::name(&entry).unwrap_or("the tool"));
                Some((json(&entry), format!("{name} ({how})")))
            }
            Tab::Overview => None,
        }
    }

    /// A strategy's refusal, when the host refuses the capture under it.
    pub fn refusal(&self, strategy: Strategy) -> Option<&str> {
        self.projection(strategy)?.refusal()
    }

    fn set_detail(&mut self, detail: Detail) {
        self.strategy_tab.detail.shows = detail;
        self.strategy_tab.detail.scroll.offset = 0;
        self.strategy_tab.detail.hscroll = 0;
    }

    fn toggle_encoding(&mut self) {
        self.settings_before = Some((self.settings_key.clone(), self.encoding));
        self.encoding = match self.encoding {
            Encoding::O200kBase => Encoding::Cl100kBase,
            Encoding::Cl100kBase => Encoding::O200kBase,
        };
        self.generation += 1;
        self.request_compute();
        self.set_status(format!("encoding {}", self.encoding.id()), false);
    }

    fn act_help(&mut self, action: Action) {
        if let Some(Overlay::Help(help)) = &mut self.overlay
            && !help.act(action, self.size.0)
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
                self.search.text.clear();
                self.resync(keep);
                if self.tab == Tab::Matrix {
                    self.matrix_resync(cell);
                }
            }
            Action::Backspace => {
                self.search.text.pop();
                self.resync(None);
                self.select_row(0);
                if self.tab == Tab::Matrix {
                    self.select_cell(0);
                }
            }
            Action::Down => self.move_by(1),
            Action::Up => self.move_by(-1),
            _ => {}
        }
    }

    fn type_char(&mut self, c: char) {
        if self.search.typing && self.overlay.is_none() {
            self.search.text.push(c);
            self.select_row(0);
            if self.tab == Tab::Matrix {
                self.select_cell(0);
            }
            return;
        }
        match &mut self.overlay {
            Some(Overlay::Help(help)) => help.type_char(c),
            Some(Overlay::Settings {
                editing: Some(text),
                ..
            }) => text.push(c),
            Some(Overlay::Export {
                path,
                cursor,
                error,
                ..
            }) => {
                input::apply(path, cursor, Edit::Insert(c));
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
                } else if let Some(values) = Settings::KEYS[*selected].choices() {
                    let key = Settings::KEYS[*selected].key;
                    let now = self.settings.get(key).unwrap_or_default();
                    let at = values.iter().position(|v| *v == now).unwrap_or(0);
                    let next = values[(at + 1) % values.len()];
                    let mut settings = self.settings.clone();
                    if settings.set(key, next).is_ok() {
                        self.settings = settings;
                        self.settings_changed();
                        self.set_status(format!("{key}={next}"), false);
                    }
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
        if self.refusal(strategy).is_some() {
            self.set_status(
                format!("{strategy} refuses this capture: there is no projection to export"),
                true,
            );
            return;
        }
        let path = default_export_path(&self.path, strategy, false);
        self.overlay = Some(Overlay::Export {
            strategy,
            tools_only: false,
            pretty: false,
            cursor: path.chars().count(),
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
            pretty,
            path,
            cursor,
            confirm,
            error,
            accept_invalid,
        }) = &mut self.overlay
        else {
            return;
        };
        let line_edit = match action {
            Action::Backspace => Some(Edit::Backspace),
            Action::Left => Some(Edit::Left),
            Action::Right => Some(Edit::Right),
            Action::Top => Some(Edit::Home),
            Action::Bottom => Some(Edit::End),
            Action::KillToStart => Some(Edit::KillToStart),
            Action::KillWord => Some(Edit::KillWord),
            _ => None,
        };
        if let Some(e) = line_edit {
            input::apply(path, cursor, e);
            *error = None;
            return;
        }
        match action {
            Action::Back => self.overlay = None,
            Action::Toggle => {
                // The default name follows the choice unless the user typed their own.
                let was_default = *path == default_export_path(&self.path, *strategy, *tools_only);
                *tools_only = !*tools_only;
                if was_default {
                    *path = default_export_path(&self.path, *strategy, *tools_only);
                    *cursor = path.chars().count();
                }
            }
            Action::Pretty => *pretty = !*pretty,
            Action::Confirm | Action::Yes => {
                // A yes to the invalid-request question is not a yes to overwriting.
                let answering_invalid = *confirm && error.is_some();
                if answering_invalid && action == Action::Yes {
                    *accept_invalid = true;
                }
                let overwrite = action == Action::Yes && !answering_invalid;
                let accepted = *accept_invalid;
                *confirm = false;
                let (strategy, tools_only, pretty, path) =
                    (*strategy, *tools_only, *pretty, path.clone());
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
                match self.export_bytes(strategy, tools_only, pretty) {
                    Some(bytes) => {
                        let what = format!(
                            "{strategy} {}",
                            if tools_only { "tools" } else { "request body" }
                        );
                        let path = input::expand_home(&path, self.home.as_deref());
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
    /// request body, or only its `tools` array), compact or `--pretty`.
    pub fn export_bytes(
        &self,
        strategy: Strategy,
        tools_only: bool,
        pretty: bool,
    ) -> Option<Vec<u8>> {
        let projection = self.projection(strategy)?;
        Some(crate::export::render(&self.capture, projection, tools_only, pretty).into_bytes())
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        if self.overlay.is_some() {
            // Dialogs are keyboard-driven; the wheel scrolls the help.
            if let Some(Overlay::Help(_)) = self.overlay {
                match mouse.kind {
                    MouseEventKind::ScrollDown => self.act_help(Action::Down),
                    MouseEventKind::ScrollUp => self.act_help(Action::Up),
                    _ => {}
                }
            }
            return;
        }
        let layout = self.screen_layout();
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
                    self.strategy_tab.focus = Pane::Detail;
                } else if inside(layout.table) {
                    self.strategy_tab.focus = Pane::Tools;
                }
                self.move_by(delta);
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if layout.tabs.contains(at) {
                    let tab = tabs::tab_spans(self.tab, layout.tabs.width)
                        .into_iter()
                        .find(|(_, x0, x1)| {
                            (layout.tabs.x + x0..layout.tabs.x + x1).contains(&mouse.column)
                        });
                    if let Some((tab, _, _)) = tab {
                        self.switch_tab(tab);
                    }
                } else if let Some(table) = layout
                    .table
                    .filter(|r| r.contains(at) && self.tab == Tab::Matrix)
                {
                    // A header row, then the body; the totals are not rows to select.
                    let totals = self.matrix().model.total_rows().len();
                    let body = matrix::body_rows(table.height, totals).0 as u16;
                    if mouse.row > table.y && mouse.row <= table.y + body {
                        let row =
                            self.matrix_tab.cursor.rows.offset + (mouse.row - table.y - 1) as usize;
                        self.select_cell(row);
                    }
                    // The cell's column too (a click on the header picks the column only).
                    if mouse.row <= table.y + body {
                        self.click_col(table, mouse.column);
                    }
                } else if let Some(table) = layout.table.filter(|r| r.contains(at)) {
                    self.strategy_tab.focus = Pane::Tools;
                    // Border and header rows come first.
                    let first = table.y + 2;
                    if mouse.row >= first && mouse.row < table.bottom().saturating_sub(1) {
                        let row = match self.tab {
                            Tab::Matrix => 0,
                            Tab::Overview => (mouse.row - first) as usize,
                            Tab::Strategy(_) => {
                                self.strategy_tab.tools.offset + (mouse.row - first) as usize
                            }
                        };
                        match self.tab {
                            Tab::Matrix => {}
                            Tab::Overview => {
                                // A click on the chosen strategy opens it.
                                if row == self.overview.strategies.selected {
                                    self.switch_tab(Tab::Strategy(self.strategy()));
                                } else if row < Strategy::ALL.len() {
                                    self.overview.strategies.selected = row;
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
                    self.strategy_tab.focus = Pane::Detail;
                }
            }
            _ => {}
        }
    }

    fn on_worker(&mut self, msg: WorkerMsg) {
        match msg {
            WorkerMsg::CaptureMeasured { encoding, tokens } => {
                self.memo.keep_capture_tokens(encoding, tokens);
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
                self.memo.keep_projection(key, projection, request);
                if current {
                    self.resync(keep);
                }
            }
            WorkerMsg::Measured { key, figures } => {
                let current = key.0 == self.strategy() && key.1 == self.settings_key;
                let keep = self.selected_key();
                self.memo.keep_figures(key, figures);
                if current && self.strategy_tab.sort != SortKey::Original {
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

impl KeyTarget for App {
    fn context(&self) -> Context {
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
            self.search.text.push_str(text);
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

/// Characters of an entry's keys and strings that must not reach a terminal raw, line breaks
/// and tabs aside (ordinary in descriptions).
fn hidden_chars(value: &Value) -> usize {
    let count = crate::sanitize::hidden_count;
    match value {
        Value::String(s) => count(s),
        Value::Array(items) => items.iter().map(hidden_chars).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| count(k) + hidden_chars(v)).sum(),
        _ => 0,
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

/// Apply one message to the state. Pure: effects are queued on `app.effects`, never run here.
pub fn update(app: &mut App, msg: Msg) {
    match msg {
        Msg::Key(key) => key_prelude::on_key(app, key),
        Msg::Paste(text) => key_prelude::on_paste(app, &text),
        Msg::Mouse(mouse) => app.on_mouse(mouse),
        Msg::Resize(w, h) => {
            app.size = (w, h);
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
        Msg::Tick => app.spinner = app.spinner.wrapping_add(1),
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
