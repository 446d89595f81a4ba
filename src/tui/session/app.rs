//! The session view's state and its pure update (`toolprism TRACE`). The analysis and the
//! loading of a turn run in the background ([`crate::tui::worker::SessionMsg`]); [`session_update`]
//! turns keys and results into a new state plus [`SessionEffect`]s for the event loop, and
//! never touches the terminal or the disk.
//!
//! Enter on a turn loads its request and opens the single-request inspector ([`App`]) on it,
//! nested: its keys go to it until Esc on its home screen comes back here. `d` shows the turn's
//! tools against the previous turn of its thread ([`TurnDiff`]).

use std::sync::Arc;

use crossterm::event::{KeyEvent, MouseEvent};

use crate::measure::Encoding;
use crate::session::SessionReport;
use crate::session::pick::PickedTurn;
use crate::settings::Settings;

use super::diff::TurnDiff;
use super::text as session_text;
use super::{SessionView, default_shown};
use crate::tui::app::{App, Msg, update};
use crate::tui::dialogs::help::HelpState;
use crate::tui::key_prelude::{self, KeyTarget};
use crate::tui::keys::{Action, Context};
pub use crate::tui::layout::TopPane;
use crate::tui::layout::{self, SessionLayout};
use crate::tui::state::ListCursor;
use crate::tui::theme::Theme;
use crate::tui::worker::SessionMsg;

/// Which screen of the session view is up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The timeline: chart, totals, turns, the selected turn's change.
    Timeline,
    /// The selected turn's tools against the previous turn of its thread.
    Diff,
    /// The single-request inspector on one turn's request.
    Single,
}

/// Which list the movement keys move in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The turns table.
    Turns,
    /// The strategies' totals (Space charts or hides the selected one).
    Strategies,
    /// The selected turn's detail (the movement keys scroll it).
    Detail,
}

/// Why a turn is being loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// To open it in the single-request views.
    Open,
    /// To diff it against the previous turn of its thread.
    Diff,
}

/// Work for the event loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEffect {
    /// Load this turn's request (and the previous request of its thread) in the background.
    Pick(usize),
    /// Stop the process (Ctrl-Z) with the terminal restored.
    Suspend,
}

/// An input to [`session_update`].
#[derive(Debug, Clone)]
pub enum SessionInput {
    /// A key press.
    Key(KeyEvent),
    /// A mouse event (the wheel; all of them in the nested inspector).
    Mouse(MouseEvent),
    /// The terminal's new size.
    Resize(u16, u16),
    /// A result of the background work.
    Worker(SessionMsg),
    /// Time passed (the spinner).
    Tick,
}

/// What the live view knows beyond the report: it follows a growing trace
/// ([`SessionMsg::Live`]), and with `record` the proxy's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Live {
    /// Calls the recorder wrote, and calls under way (`None` when following a file).
    pub calls: Option<(usize, usize)>,
    /// What to tell the user while no call came (the `export` lines to paste).
    pub hint: Vec<String>,
    /// The user chose the charted strategies: new pictures keep the choice.
    pub(crate) chosen: bool,
}

impl Live {
    /// The live mode with the recorder's counts (`None` when following a file) and the lines
    /// shown until the first call.
    pub fn new(calls: Option<(usize, usize)>, hint: Vec<String>) -> Live {
        Live {
            calls,
            hint,
            chosen: false,
        }
    }
}

/// The whole state of the session view.
pub struct SessionApp {
    /// How the trace is named on screen.
    pub(crate) name: String,
    /// The file a turn is read again from (a spooled copy for standard input): any bytes,
    /// never made into text to be opened.
    pub path: std::path::PathBuf,
    /// The trace's format id, known before the analysis ends.
    pub(crate) format: &'static str,
    /// `--skip-bad`.
    pub skip_bad: bool,
    /// The settings the analysis ran with; a nested inspector starts with them.
    pub(crate) settings: Settings,
    /// The encoding.
    pub(crate) encoding: Encoding,
    /// Colours on.
    pub(crate) color: bool,
    /// The analysis, once finished.
    pub report: Option<Arc<SessionReport>>,
    /// Model calls read so far.
    pub(crate) turns_read: usize,
    /// Why the analysis stopped early (a bad record), as one line.
    pub error: Option<String>,
    /// The turns table: the selected turn (index into the report's turns) and its scroll.
    pub turns: ListCursor,
    /// Where the movement keys go.
    pub focus: Focus,
    /// The selected strategy (index into the report's strategies).
    pub strategies: ListCursor,
    /// Which strategies the chart shows (by index into the report's strategies).
    pub shown: Vec<bool>,
    /// The top pane on a small terminal.
    pub(crate) top: TopPane,
    /// The screen up.
    pub screen: Screen,
    /// The nested single-request inspector, while open.
    pub single: Option<Box<App>>,
    /// Bumped each time an inspector is opened (the event loop starts its worker).
    pub single_id: u64,
    /// The turn diff, while shown.
    pub diff: Option<TurnDiff>,
    /// Its scroll.
    pub(crate) diff_scroll: usize,
    /// The selected turn's detail: how far it is scrolled (back to the top on another turn).
    pub detail_scroll: usize,
    /// The last turn loaded.
    pub(crate) picked: Option<Arc<PickedTurn>>,
    /// A turn being loaded, and why.
    pub(crate) loading: Option<(usize, Intent)>,
    /// The help overlay.
    pub help: Option<HelpState>,
    /// A message for the status line, and whether it is an error.
    pub status: Option<(String, bool)>,
    /// The terminal's size.
    pub(crate) size: (u16, u16),
    /// The styles.
    pub(crate) theme: Theme,
    /// Work for the event loop.
    pub effects: Vec<SessionEffect>,
    /// Leave the program.
    pub quit: bool,
    /// The program is left by Ctrl-C (exit status 130, as a shell expects), not by `q`.
    pub interrupted: bool,
    /// Spinner frames so far.
    pub(crate) spinner: usize,
    /// The live mode: turns come as the trace grows.
    pub live: Option<Live>,
    /// The view model the last update built, under the strategies it charts.
    view_cache: Option<(Vec<bool>, Arc<SessionView>)>,
}

impl SessionApp {
    /// The session view's frame at its size.
    pub fn frame_layout(&self) -> SessionLayout {
        let area = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        let strategies = self.report.as_ref().map_or(0, |r| r.strategies.len());
        layout::session_layout(area, self.top, strategies)
    }

    /// How far the selected turn's detail scrolls at the session view's size (0 without the
    /// pane).
    fn detail_scroll_max(&self) -> usize {
        let Some(area) = self.frame_layout().detail else {
            return 0;
        };
        let (w, h) = (area.width.saturating_sub(2), area.height.saturating_sub(2));
        let (head, body) = session_text::detail_lines(
            self.theme,
            (self.report.as_deref(), self.turns.selected, &self.shown),
            w.saturating_sub(1) as usize,
            h as usize,
        );
        session_text::detail_scroll_max(body.len(), head.len(), h as usize)
    }

    /// Whether the session view has the selected turn's pane at its size.
    fn has_detail(&self) -> bool {
        self.frame_layout().detail.is_some()
    }

    /// Rows the turns table shows at the session view's size (at least one).
    fn turns_rows(&self) -> usize {
        self.frame_layout()
            .turns
            .map_or(1, |r| r.height.saturating_sub(3).max(1) as usize)
    }

    /// Rows of the turn diff the session view scrolls by a page: the body under the title
    /// line, less its border and the status and key lines.
    fn turn_diff_page(&self) -> usize {
        (self.size.1 as usize).saturating_sub(6).max(1)
    }

    /// Rows of the turn diff at the session view's size (0 without one): its scroll range.
    fn turn_diff_rows(&self) -> usize {
        let Some(diff) = &self.diff else {
            return 0;
        };
        // The body between the title line and the status line, inside its border.
        let width = self.size.0.saturating_sub(2);
        session_text::diff_lines(self.theme, diff, width as usize).len()
    }

    /// A session view on the trace at `path` (named `name` on screen), waiting for the
    /// analysis (the caller starts it).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        path: impl Into<std::path::PathBuf>,
        format: &'static str,
        skip_bad: bool,
        settings: Settings,
        encoding: Encoding,
        color: bool,
    ) -> SessionApp {
        SessionApp {
            name,
            path: path.into(),
            format,
            skip_bad,
            settings,
            encoding,
            color,
            report: None,
            turns_read: 0,
            error: None,
            turns: ListCursor::default(),
            focus: Focus::Turns,
            strategies: ListCursor::default(),
            shown: Vec::new(),
            top: TopPane::Chart,
            screen: Screen::Timeline,
            single: None,
            single_id: 0,
            diff: None,
            diff_scroll: 0,
            detail_scroll: 0,
            picked: None,
            loading: None,
            help: None,
            status: None,
            size: (80, 24),
            theme: Theme::new(color),
            effects: Vec::new(),
            quit: false,
            interrupted: false,
            spinner: 0,
            live: None,
            view_cache: None,
        }
    }

    /// The same view in its live mode: it follows a growing trace, with `live`'s hint and
    /// counts.
    pub fn live(mut self, live: Live) -> SessionApp {
        self.live = Some(live);
        self
    }

    /// The view model under the current chart choice (cached until it changes).
    pub fn view(&self) -> Option<Arc<SessionView>> {
        let report = self.report.as_ref()?;
        match &self.view_cache {
            Some((shown, view)) if *shown == self.shown => Some(view.clone()),
            _ => Some(Arc::new(SessionView::build(report, &self.shown))),
        }
    }

    /// Build what drawing reads (the view model) once the state changed, so that drawing
    /// only reads.
    fn refresh(&mut self) {
        let stale = self
            .view_cache
            .as_ref()
            .is_none_or(|(shown, _)| *shown != self.shown);
        if stale && let Some(view) = self.view() {
            self.view_cache = Some((self.shown.clone(), view));
        }
    }

    /// Whether background work is under way (the spinner turns).
    pub fn is_busy(&self) -> bool {
        self.report.is_none() || self.loading.is_some()
    }

    /// The context keys are looked up in.
    pub fn context(&self) -> Context {
        match &self.help {
            Some(help) => help.context(),
            None => match self.screen {
                Screen::Diff => Context::TurnDiff,
                _ => Context::Session,
            },
        }
    }

    fn turn_count(&self) -> usize {
        self.report.as_ref().map_or(0, |r| r.turns.len())
    }

    fn strategy_count(&self) -> usize {
        self.report.as_ref().map_or(0, |r| r.strategies.len())
    }

    fn select(&mut self, row: usize) {
        let (len, height) = (self.turn_count(), self.turns_rows());
        let before = self.turns.selected;
        self.turns.select(row, len, height);
        if self.turns.selected != before {
            self.detail_scroll = 0;
        }
    }

    fn move_by(&mut self, delta: isize) {
        match self.focus {
            Focus::Turns => {
                let (len, height) = (self.turn_count(), self.turns_rows());
                let before = self.turns.selected;
                self.turns.move_by(delta, len, height);
                if self.turns.selected != before {
                    self.detail_scroll = 0;
                }
            }
            Focus::Detail => {
                let max = self.detail_scroll_max() as isize;
                self.detail_scroll = (self.detail_scroll as isize)
                    .saturating_add(delta)
                    .clamp(0, max) as usize;
            }
            Focus::Strategies => {
                let chosen = self.strategies.step(delta, self.strategy_count());
                self.strategies.selected = chosen;
            }
        }
    }

    /// Move to the next (or previous) turn with a break mark.
    fn jump_break(&mut self, forward: bool) {
        let Some(view) = self.view() else { return };
        let found = if forward {
            (self.turns.selected + 1..view.turns.len()).find(|&i| view.turns[i].marked())
        } else {
            (0..self.turns.selected)
                .rev()
                .find(|&i| view.turns[i].marked())
        };
        match found {
            Some(i) => {
                self.focus = Focus::Turns;
                self.select(i);
            }
            None => {
                self.status = Some((
                    format!(
                        "no break mark {} turn {}",
                        if forward { "after" } else { "before" },
                        view.turns.get(self.turns.selected).map_or(0, |t| t.turn)
                    ),
                    false,
                ));
            }
        }
    }

    /// Load the selected turn for `intent`, or say why it cannot be.
    fn request_turn(&mut self, intent: Intent) {
        let Some(report) = &self.report else {
            self.status = Some(("the trace is still being read".to_owned(), false));
            return;
        };
        let Some(t) = report.turns.get(self.turns.selected) else {
            return;
        };
        if t.stub {
            self.status = Some((
                format!(
                    "turn {} is a compaction stub: the trace kept no request, so its tools are unknown",
                    t.turn
                ),
                true,
            ));
            return;
        }
        let turn = t.turn;
        if let Some(picked) = self.picked.clone()
            && picked.turn == turn
        {
            self.enter(picked, intent);
            return;
        }
        self.loading = Some((turn, intent));
        self.effects.push(SessionEffect::Pick(turn));
    }

    /// Open a loaded turn as asked.
    fn enter(&mut self, picked: Arc<PickedTurn>, intent: Intent) {
        match intent {
            Intent::Diff => {
                self.diff = Some(TurnDiff::new(&picked));
                self.diff_scroll = 0;
                self.screen = Screen::Diff;
            }
            Intent::Open => {
                let label = picked.label(&self.name);
                let mut app = App::new(
                    Arc::new(picked.capture.clone()),
                    label,
                    self.settings.clone(),
                    self.encoding,
                    self.color,
                );
                app.ctx.nested = true;
                app.status = Some((
                    format!(
                        "turn {} · Esc on this screen goes back to the session view",
                        picked.turn
                    ),
                    false,
                ));
                update(&mut app, Msg::Resize(self.size.0, self.size.1));
                self.single = Some(Box::new(app));
                self.single_id += 1;
                self.screen = Screen::Single;
            }
        }
        self.picked = Some(picked);
    }

    fn on_worker(&mut self, msg: SessionMsg) {
        match msg {
            SessionMsg::Progress { turns } => self.turns_read = turns,
            SessionMsg::Analysed { report, error } => {
                self.turns_read = report.turns.len();
                self.shown = default_shown(&report);
                self.report = Some(report);
                self.error = error;
                self.view_cache = None;
                self.select(0);
            }
            SessionMsg::Live { report, problem } => self.on_picture(report, problem),
            SessionMsg::Calls {
                recorded,
                in_flight,
            } => {
                if let Some(live) = &mut self.live {
                    live.calls = Some((recorded, in_flight));
                }
            }
            SessionMsg::Picked { turn, result } => {
                let Some((wanted, intent)) = self.loading else {
                    return;
                };
                if wanted != turn {
                    return;
                }
                self.loading = None;
                match result {
                    Ok(picked) => self.enter(picked, intent),
                    // The spooled copy of standard input is a private file: name what the
                    // user gave instead.
                    Err(e) => {
                        let path = crate::capture::display_path(&self.path);
                        self.status = Some((e.replace(&*path, &self.name), true));
                    }
                }
            }
        }
    }

    /// A new picture of the growing trace: the selection stays on its turn, or follows the
    /// newest one when it was on the last (as `tail -f` does); the chart keeps the user's choice.
    fn on_picture(&mut self, report: Arc<SessionReport>, problem: Option<String>) {
        let before = self.turn_count();
        let at_end = before == 0 || self.turns.selected + 1 >= before;
        self.turns_read = report.turns.len();
        let chosen = self.live.as_ref().is_some_and(|l| l.chosen);
        if !chosen || self.shown.len() != report.strategies.len() {
            self.shown = default_shown(&report);
        }
        self.report = Some(report);
        self.view_cache = None;
        let row = if at_end {
            self.turn_count().saturating_sub(1)
        } else {
            self.turns.selected
        };
        self.select(row);
        if let Some(problem) = problem {
            self.status = Some((format!("skipped {problem}"), true));
        }
    }

    fn act(&mut self, context: Context, action: Action) {
        match context {
            Context::Help | Context::HelpSearch => self.act_help(action),
            Context::TurnDiff => self.act_diff(action),
            _ => self.act_timeline(action),
        }
    }

    fn open_help(&mut self) {
        self.help = Some(HelpState::open(self.context()));
    }

    fn act_timeline(&mut self, action: Action) {
        let page = self.turns_rows() as isize;
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.open_help(),
            Action::Down => self.move_by(1),
            Action::Up => self.move_by(-1),
            Action::PageDown => self.move_by(page),
            Action::PageUp => self.move_by(-page),
            Action::Top => self.move_by(isize::MIN / 2),
            Action::Bottom => self.move_by(isize::MAX / 2),
            Action::Open => match self.focus {
                Focus::Turns | Focus::Detail => self.request_turn(Intent::Open),
                Focus::Strategies => self.toggle_series(),
            },
            Action::DiffMode => self.request_turn(Intent::Diff),
            Action::NextBreak => self.jump_break(true),
            Action::PrevBreak => self.jump_break(false),
            Action::FocusNext => {
                self.focus = match self.focus {
                    Focus::Turns => Focus::Strategies,
                    Focus::Strategies if self.has_detail() => Focus::Detail,
                    Focus::Strategies | Focus::Detail => Focus::Turns,
                };
                if self.focus == Focus::Strategies {
                    self.top = TopPane::Totals;
                }
                // The turns table's height may have changed: keep the turn in sight.
                self.select(self.turns.selected);
            }
            Action::Toggle => self.toggle_series(),
            Action::Panes => {
                self.top = match self.top {
                    TopPane::Chart => TopPane::Totals,
                    TopPane::Totals => TopPane::Chart,
                };
                self.select(self.turns.selected);
            }
            Action::Back => {
                if self.focus != Focus::Turns {
                    self.focus = Focus::Turns;
                } else {
                    self.status = Some(("this is the session view · q quits".to_owned(), false));
                }
            }
            _ => {}
        }
    }

    fn toggle_series(&mut self) {
        let Some(report) = &self.report else { return };
        let Some(strategy) = report.strategies.get(self.strategies.selected) else {
            return;
        };
        let id = strategy.id;
        if let Some(flag) = self.shown.get_mut(self.strategies.selected) {
            *flag = !*flag;
            if let Some(live) = &mut self.live {
                live.chosen = true;
            }
            let what = if *flag {
                "charted"
            } else {
                "hidden from the chart"
            };
            self.status = Some((format!("{id} {what}"), false));
        }
    }

    fn act_diff(&mut self, action: Action) {
        let height = self.turn_diff_page();
        let max = self.turn_diff_rows().saturating_sub(height);
        let scroll =
            |s: usize, d: isize| (s as isize).saturating_add(d).clamp(0, max as isize) as usize;
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.open_help(),
            Action::Back => {
                self.screen = Screen::Timeline;
                self.diff = None;
            }
            Action::Down => self.diff_scroll = scroll(self.diff_scroll, 1),
            Action::Up => self.diff_scroll = scroll(self.diff_scroll, -1),
            Action::PageDown => self.diff_scroll = scroll(self.diff_scroll, height as isize),
            Action::PageUp => self.diff_scroll = scroll(self.diff_scroll, -(height as isize)),
            Action::Top => self.diff_scroll = 0,
            Action::Bottom => self.diff_scroll = max,
            Action::Open => {
                self.screen = Screen::Timeline;
                self.diff = None;
                self.request_turn(Intent::Open);
            }
            _ => {}
        }
    }

    fn act_help(&mut self, action: Action) {
        if let Some(help) = &mut self.help
            && !help.act(action, self.size.0)
        {
            self.help = None;
        }
    }
}

impl KeyTarget for SessionApp {
    fn context(&self) -> Context {
        SessionApp::context(self)
    }

    fn clear_status(&mut self) {
        self.status = None;
    }

    fn interrupt(&mut self) {
        self.quit = true;
        self.interrupted = true;
    }

    fn suspend(&mut self) {
        self.effects.push(SessionEffect::Suspend);
    }

    fn act(&mut self, action: Action, _: Option<usize>) {
        SessionApp::act(self, SessionApp::context(self), action);
    }

    fn type_char(&mut self, c: char) {
        if let Some(help) = &mut self.help {
            help.type_char(c);
        }
    }
}

/// Apply one input. While the nested inspector is up, keys, mouse and resizes go to it (its
/// worker's results are fed to it by the event loop directly); Esc on its home screen closes it.
pub fn session_update(app: &mut SessionApp, msg: SessionInput) {
    apply(app, msg);
    app.refresh();
}

fn apply(app: &mut SessionApp, msg: SessionInput) {
    if app.screen == Screen::Single
        && let Some(single) = app.single.as_mut()
    {
        match msg {
            SessionInput::Key(key) => {
                update(single, Msg::Key(key));
                if single.quit {
                    app.quit = true;
                    app.interrupted = single.interrupted;
                } else if single.leave {
                    app.single = None;
                    app.screen = Screen::Timeline;
                }
                return;
            }
            SessionInput::Mouse(mouse) => {
                update(single, Msg::Mouse(mouse));
                return;
            }
            SessionInput::Resize(w, h) => update(single, Msg::Resize(w, h)),
            SessionInput::Tick => update(single, Msg::Tick),
            SessionInput::Worker(_) => {}
        }
    }
    match msg {
        SessionInput::Key(key) => key_prelude::on_key(app, key),
        SessionInput::Mouse(mouse) => {
            // The wheel moves through the turns (or scrolls the diff, or the help).
            let action = match mouse.kind {
                crossterm::event::MouseEventKind::ScrollDown => Some(Action::Down),
                crossterm::event::MouseEventKind::ScrollUp => Some(Action::Up),
                _ => None,
            };
            if let Some(action) = action {
                let context = app.context();
                if context != Context::HelpSearch {
                    app.act(context, action);
                }
            }
        }
        SessionInput::Resize(w, h) => {
            app.size = (w, h);
            let row = app.turns.selected;
            app.select(row);
        }
        SessionInput::Worker(msg) => app.on_worker(msg),
        SessionInput::Tick => app.spinner = app.spinner.wrapping_add(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::worker::{SessionMsg, pick};
    use std::os::unix::ffi::OsStrExt as _;

    /// A trace whose file name is not UTF-8 is read again by its own bytes when a turn is
    /// opened (a lossy `String` of its name names another file, or none).
    #[test]
    fn a_turn_is_reopened_from_a_path_that_is_not_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir
            .path()
            .join(std::ffi::OsStr::from_bytes(b"trace-\xff\xfe.jsonl"));
        let body = r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"a","input_schema":{"type":"object"}}]}"#;
        std::fs::write(&path, format!("{body}\n{body}\n")).unwrap();
        let app = SessionApp::new(
            crate::capture::display_path(&path).into_owned(),
            path.clone(),
            "bare-jsonl",
            false,
            Settings::default(),
            Encoding::O200kBase,
            false,
        );
        assert_eq!(app.path, path);
        match pick(&app.path, 2, false) {
            SessionMsg::Picked {
                turn: 2,
                result: Ok(picked),
            } => assert_eq!(picked.turn, 2),
            SessionMsg::Picked { result: Err(e), .. } => panic!("turn 2 not read again: {e}"),
            _ => panic!("not a pick"),
        }
    }
}
