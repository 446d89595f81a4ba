//! The interactive inspector (`toolprism CAPTURE`): ratatui + crossterm over the same engine the
//! headless commands use.
//!
//! Map of the module. The state goes one way: the app's state feeds each screen's view model,
//! which its draw function paints; drawing only reads the state.
//! - [`app`]: the inspector's state ([`App`]: the context every screen shares, and one state
//!   per screen from [`state`]), the messages ([`Msg`]) and the pure [`update`];
//! - [`state`]: one state struct per screen, and the one [`state::ListCursor`] every list and
//!   scrolled pane keeps its cursor in;
//! - [`tabs`], [`layout`]: the tabs, and where everything goes at a size and how far each pane
//!   scrolls (pure, called by the drawing and by the update alike, for both apps);
//! - [`keys`]: the one key table that drives keys, footer hints and the help overlay;
//!   [`key_prelude`]: the keys every view answers alike (Ctrl-C, Ctrl-Z), before its own;
//! - [`view`]: the whole frame (header, tab bar, status line, footer) and the dispatch to the
//!   screens, one folder each: [`matrix`] (the home screen, tools × strategies, with its view
//!   model and its grouping by server), [`overview`], [`strategy`] (a strategy's tool table,
//!   its detail pane: entries, diffs, added text, and the request pane), and [`dialogs`]
//!   (help, whose state and drawing both apps share, settings, export);
//! - [`session`]: the session view of a trace (its view model, its state and update, its
//!   drawing, its text and turn diff), which opens the inspector on one turn;
//! - [`table`]: the one table component (column widths, the window it draws, drawing) the
//!   matrix, the overview, the tool list and the session's turns and totals are drawn with;
//! - [`widgets`]: the drawing helpers the screens share;
//! - [`worker`]: projecting and token counting on a background thread, cached per (strategy,
//!   settings, encoding);
//! - [`textview`]: a tool entry in its JSON view (hanging indents) or its text view (line
//!   breaks rendered), and the search highlight;
//! - [`diffview`]: the per-tool line diff (word emphasis only for rows on screen) and the
//!   request-level comparison;
//! - [`theme`]: semantic styles (a colourless theme for `NO_COLOR`).
//!
//! [`run`] and [`run_trace`] own the terminal: they refuse a non-terminal, restore the terminal
//! on every exit (quit, error, panic, SIGTERM, SIGHUP), suspend on Ctrl-Z, and drive one event
//! loop over either app (the `Program` trait), which runs the effects the update asks for.

pub mod app;
pub mod clipboard;
pub mod context;
pub mod dialogs;
pub mod difflines;
pub mod diffview;
pub mod input;
pub mod key_prelude;
pub mod keys;
pub mod layout;
pub mod matrix;
pub mod overview;
pub mod session;
pub mod state;
pub mod strategy;
pub mod table;
pub mod tabs;
pub mod textview;
pub mod theme;
mod tty;
pub mod view;
pub mod widgets;
pub mod worker;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};

pub use app::{App, Effect, Msg, WriteError, update};
use session::{app as session_app, draw as session_draw};

use crate::capture::Capture;
use crate::measure::Encoding;
use crate::settings::Settings;

/// Why the inspector could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// Standard input or output is not a terminal.
    #[error(
        "the inspector needs a terminal (standard output is not a TTY); use `toolprism report CAPTURE` for a plain summary"
    )]
    NotATerminal,
    /// The terminal failed.
    #[error("terminal: {0}")]
    Io(#[from] std::io::Error),
}

/// How a view ended: the exit status a shell expects depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user quit (`q`, a confirmed quit, the terminal hung up).
    Quit,
    /// Ctrl-C as a key, or a signal whose default action ends the process (its number).
    Signal(i32),
}

impl Ended {
    /// The exit status: 0 for a quit, 128 plus the signal's number otherwise (130 for
    /// Ctrl-C), as a shell reports a command a signal ended.
    pub fn status(self) -> i32 {
        match self {
            Ended::Quit => 0,
            Ended::Signal(signal) => 128 + signal,
        }
    }
}

/// Open the inspector on `capture` (read from `path`) until the user quits.
pub fn run(
    capture: Capture,
    path: String,
    settings: Settings,
    encoding: Encoding,
    color: bool,
) -> Result<Ended, TuiError> {
    run_with_servers(capture, path, settings, encoding, color, Vec::new())
}

/// [`run`] on the request `toolprism mcp` built, with what reaching each server gave (the
/// overview lists them; the grouped matrix shows one not listed as a group without tools).
pub fn run_with_servers(
    capture: Capture,
    path: String,
    settings: Settings,
    encoding: Encoding,
    color: bool,
    servers: Vec<crate::mcp::status::ServerStatus>,
) -> Result<Ended, TuiError> {
    // Keys are read from the terminal itself (crossterm opens /dev/tty when standard input is
    // a pipe), so only the output must be a terminal: `cat capture.json | toolprism -` works.
    if !std::io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    let capture = Arc::new(capture);
    let mut app = App::new(capture.clone(), path, settings, encoding, color);
    app.set_servers(servers);
    // `-` is standard input; a bundled sample names no file.
    app.ctx.inputs.add(Path::new(&app.ctx.path));
    let (out_tx, out_rx) = std::sync::mpsc::channel();
    let jobs = worker::spawn(capture, out_tx);
    on_terminal(color, |terminal, (width, height)| {
        update(&mut app, Msg::Resize(width, height));
        let mut program = InspectorProgram {
            app: &mut app,
            jobs,
            results: out_rx,
        };
        event_loop(terminal, &mut program)
    })
}

/// Take over the terminal (alternate screen, raw mode, a panic hook that gives it back), run
/// `view` on it with its size, and restore it however `view` ends.
fn on_terminal(
    color: bool,
    view: impl FnOnce(
        &mut Terminal<CrosstermBackend<std::io::Stdout>>,
        (u16, u16),
    ) -> Result<Ended, TuiError>,
) -> Result<Ended, TuiError> {
    if color {
        // Colours were asked for explicitly: do not let crossterm's own NO_COLOR reading turn
        // colour changes into attribute resets (see `theme`). Without colour the theme sets
        // none, so crossterm has nothing to suppress.
        crossterm::style::Colored::set_ansi_color_disabled(false);
    }
    install_panic_hook();
    // Before the terminal is taken: crossterm then reads the same descriptor the loop watches.
    let input = tty::TtyInput::take()?;
    let guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    let size = terminal.size()?;
    let result = view(&mut terminal, (size.width, size.height));
    drop(terminal);
    drop(guard);
    drop(input);
    result
}

/// Every signal whose default action ends the process and that can be caught: each ends a
/// view like `q`, so its loop returns and the guard restores the terminal (the default action
/// would leave it in raw mode on the alternate screen, mouse reporting on), and ends an export
/// with its temporary file removed. SIGINT too: raw mode turns Ctrl-C into a key, but `kill
/// -INT` from outside still comes. Left out: SIGKILL (cannot be caught); SIGPIPE (ignored, so
/// a write to a closed pipe fails); SIGXFSZ (ignored by the command line so a write past
/// `ulimit -f` fails with EFBIG); the faults SIGSEGV, SIGBUS, SIGILL and SIGFPE (a handler that
/// returns would fault again); and the real-time signals the C library keeps for its threads.
pub fn ending_signals() -> Vec<i32> {
    use signal_hook::consts::*;
    let mut signals = vec![
        SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
        SIGIO, SIGSYS, SIGTRAP, SIGABRT,
    ];
    #[cfg(any(target_os = "linux", target_os = "android"))]
    signals.extend([libc::SIGPWR, libc::SIGSTKFLT]);
    #[cfg(any(target_os = "linux", target_os = "android"))]
    signals.extend(libc::SIGRTMIN()..=libc::SIGRTMAX());
    signals
}

/// The flags the signals set: `stop` for [`ENDING_SIGNALS`] (the number of the last one to
/// come, 0 for none), `suspend` for SIGTSTP from outside (`kill -TSTP`), which suspends as
/// Ctrl-Z does, the terminal restored first.
struct SignalFlags {
    stop: Arc<AtomicUsize>,
    suspend: Arc<AtomicBool>,
}

impl SignalFlags {
    /// The signal that asked the view to end, if one came.
    fn stop(&self) -> Option<i32> {
        match self.stop.load(Ordering::Relaxed) {
            0 => None,
            signal => i32::try_from(signal).ok(),
        }
    }

    /// How the view ends now, if it does: a signal from outside, else the app's quit (Ctrl-C
    /// as a key counts as SIGINT).
    fn ending(&self, quit: bool, interrupted: bool) -> Option<Ended> {
        match self.stop() {
            Some(signal) => Some(Ended::Signal(signal)),
            None if quit && interrupted => Some(Ended::Signal(signal_hook::consts::SIGINT)),
            None if quit => Some(Ended::Quit),
            None => None,
        }
    }

    /// Whether a SIGTSTP came (and clear it).
    fn take_suspend(&self) -> bool {
        self.suspend.swap(false, Ordering::Relaxed)
    }
}

fn stop_on_signals() -> Result<SignalFlags, TuiError> {
    let stop = Arc::new(AtomicUsize::new(0));
    for signal in ending_signals() {
        // Signal numbers are small and positive.
        signal_hook::flag::register_usize(signal, stop.clone(), signal as usize)?;
    }
    let suspend = Arc::new(AtomicBool::new(false));
    // SIGTTIN and SIGTTOU stop the process by default: suspend as Ctrl-Z does, terminal
    // restored first.
    for signal in [
        signal_hook::consts::SIGTSTP,
        signal_hook::consts::SIGTTIN,
        signal_hook::consts::SIGTTOU,
    ] {
        signal_hook::flag::register(signal, suspend.clone())?;
    }
    Ok(SignalFlags { stop, suspend })
}

/// Open the session view on a trace (`reader`, already opened; named `name` on screen) until
/// the user quits. The analysis runs in the background; `path` is the file a turn is read again
/// from when it is opened (a private copy when the trace came on standard input).
pub fn run_trace(
    reader: crate::trace::TraceReader,
    name: String,
    path: std::path::PathBuf,
    skip_bad: bool,
    settings: Settings,
    encoding: Encoding,
    color: bool,
) -> Result<Ended, TuiError> {
    if !std::io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    // The trace (or its private copy) and, when it came that way, standard input: a turn opened
    // from it must not be exported over them.
    let mut inputs = crate::export::Inputs::new();
    inputs.add(&path);
    if name == crate::capture::display_name("-") {
        inputs.add_stdin();
    }
    let mut app = session_app::SessionApp::new(
        name.clone(),
        path,
        reader.format().id(),
        skip_bad,
        settings.clone(),
        encoding,
        color,
    );
    let (tx, rx) = std::sync::mpsc::channel();
    worker::spawn_session(
        worker::SessionJob {
            reader,
            name,
            strategies: crate::strategy::Strategy::ALL.to_vec(),
            settings,
            encoding,
        },
        tx.clone(),
    );
    let program = SessionProgram {
        app: &mut app,
        tx,
        rx,
        nested: None,
        inputs,
        live: None,
    };
    session_on_terminal(color, program)
}

/// The session view's program on the terminal, sized first.
fn session_on_terminal(color: bool, mut program: SessionProgram<'_>) -> Result<Ended, TuiError> {
    on_terminal(color, |terminal, (width, height)| {
        let resize = session_app::SessionInput::Resize(width, height);
        session_app::session_update(program.app, resize);
        event_loop(terminal, &mut program)
    })
}

/// What `record` tells the live view: the proxy's counts (calls written, calls under way).
pub type CallCounts<'a> = Box<dyn Fn() -> (usize, usize) + 'a>;

/// A growing trace for the live session view, and what `record` adds to it.
pub struct LiveSource<'a> {
    /// The trace, opened.
    pub follower: crate::trace::follow::Follower,
    /// The format id the header names.
    pub format: &'static str,
    /// The recorder's counts, when recording.
    pub calls: Option<CallCounts<'a>>,
    /// What to tell the user while no call came (the `export` lines).
    pub hint: Vec<String>,
}

/// Open the session view in its live mode on a growing trace (`path`): turns appear as their
/// lines are completed, analysed on a background thread, until the user quits.
pub fn run_live(
    source: LiveSource<'_>,
    path: PathBuf,
    settings: Settings,
    encoding: Encoding,
    color: bool,
) -> Result<Ended, TuiError> {
    if !std::io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    let name = source.follower.name().to_owned();
    let mut inputs = crate::export::Inputs::new();
    inputs.add(&path);
    let mut app = session_app::SessionApp::new(
        name,
        path,
        source.format,
        true,
        settings.clone(),
        encoding,
        color,
    )
    .live(session_app::Live::new(
        source.calls.as_ref().map(|count| count()),
        source.hint,
    ));
    let (tx, rx) = std::sync::mpsc::channel();
    // Dropping the sender (when the view ends) ends the following thread.
    let (stop_tx, stop_rx) = std::sync::mpsc::channel();
    worker::spawn_follow(
        worker::LiveJob {
            follower: source.follower,
            format: source.format,
            strategies: crate::strategy::Strategy::ALL.to_vec(),
            settings,
            encoding,
        },
        stop_rx,
        tx.clone(),
    );
    let program = SessionProgram {
        app: &mut app,
        tx,
        rx,
        nested: None,
        inputs,
        live: Some(LiveEnds {
            _stop: stop_tx,
            calls: source.calls,
            last: None,
        }),
    };
    session_on_terminal(color, program)
}

/// The live view's ends in the event loop: the following thread's stop, and the recorder's
/// counts with the last ones given to the view.
struct LiveEnds<'a> {
    _stop: Sender<()>,
    calls: Option<CallCounts<'a>>,
    last: Option<(usize, usize)>,
}

/// What the one event loop ([`event_loop`]) needs of a view: it feeds the view the terminal's
/// events and its workers' results, runs the effects the view's update queued, and draws it
/// when something changed. The inspector ([`InspectorProgram`]) and the session view
/// ([`SessionProgram`]) implement it.
trait Program {
    /// Run the effects the update queued; whether one asked to suspend the program.
    fn run_effects(&mut self) -> bool;
    /// Hand the workers' results to the update; whether any came.
    fn receive(&mut self) -> bool;
    /// Apply a key, a mouse event or a resize.
    fn on_event(&mut self, event: Event);
    /// Time passed while busy (the spinner turns).
    fn on_tick(&mut self);
    /// Draw the whole frame.
    fn draw(&self, frame: &mut ratatui::Frame);
    /// Whether background work is under way.
    fn is_busy(&self) -> bool;
    /// Whether the view asked to end, and whether by Ctrl-C.
    fn quit(&self) -> (bool, bool);
}

/// The inspector with its worker's two ends.
struct InspectorProgram<'a> {
    app: &'a mut App,
    jobs: Sender<worker::Job>,
    results: Receiver<worker::WorkerMsg>,
}

impl Program for InspectorProgram<'_> {
    fn run_effects(&mut self) -> bool {
        run_effects(self.app, &self.jobs)
    }

    fn receive(&mut self) -> bool {
        let mut any = false;
        while let Ok(msg) = self.results.try_recv() {
            update(self.app, Msg::Worker(msg));
            any = true;
        }
        any
    }

    fn on_event(&mut self, event: Event) {
        let msg = match event {
            Event::Key(key) => Msg::Key(key),
            Event::Mouse(mouse) => Msg::Mouse(mouse),
            Event::Resize(w, h) => Msg::Resize(w, h),
            Event::Paste(text) => Msg::Paste(text),
            _ => return,
        };
        update(self.app, msg);
    }

    fn on_tick(&mut self) {
        update(self.app, Msg::Tick);
    }

    fn draw(&self, frame: &mut ratatui::Frame) {
        view::render(self.app, frame);
    }

    fn is_busy(&self) -> bool {
        self.app.ctx.is_busy()
    }

    fn quit(&self) -> (bool, bool) {
        (self.app.quit, self.app.interrupted)
    }
}

/// The session view with its worker's channel, and the nested inspector's worker, started
/// when a turn is opened and dropped (ending its thread) when the view goes back.
struct SessionProgram<'a> {
    app: &'a mut session_app::SessionApp,
    tx: Sender<worker::SessionMsg>,
    rx: Receiver<worker::SessionMsg>,
    nested: Option<(u64, Sender<worker::Job>, Receiver<worker::WorkerMsg>)>,
    /// What the session reads; handed to each turn's inspector.
    inputs: crate::export::Inputs,
    /// In the live mode: the following thread's stop and the recorder's counts.
    live: Option<LiveEnds<'a>>,
}

impl Program for SessionProgram<'_> {
    fn run_effects(&mut self) -> bool {
        use session_app::SessionEffect;
        let app = &mut *self.app;
        let mut suspend = false;
        for effect in std::mem::take(&mut app.effects) {
            match effect {
                SessionEffect::Pick(turn) => {
                    worker::spawn_pick(app.path.clone(), turn, app.skip_bad, self.tx.clone());
                }
                SessionEffect::Suspend => suspend = true,
            }
        }
        match &mut app.single {
            Some(single) if self.nested.as_ref().is_none_or(|n| n.0 != app.single_id) => {
                single.ctx.inputs = self.inputs.clone();
                let (out_tx, out_rx) = std::sync::mpsc::channel();
                let jobs = worker::spawn(single.ctx.capture.clone(), out_tx);
                self.nested = Some((app.single_id, jobs, out_rx));
            }
            None => self.nested = None,
            _ => {}
        }
        if let (Some(single), Some((_, jobs, _))) = (app.single.as_mut(), &self.nested)
            && run_effects(single, jobs)
        {
            suspend = true;
        }
        suspend
    }

    fn receive(&mut self) -> bool {
        let mut any = false;
        while let Ok(msg) = self.rx.try_recv() {
            session_app::session_update(self.app, session_app::SessionInput::Worker(msg));
            any = true;
        }
        if let Some(live) = &mut self.live
            && let Some(count) = &live.calls
        {
            let now = count();
            if live.last != Some(now) {
                live.last = Some(now);
                let (recorded, in_flight) = now;
                let msg = worker::SessionMsg::Calls {
                    recorded,
                    in_flight,
                };
                session_app::session_update(self.app, session_app::SessionInput::Worker(msg));
                any = true;
            }
        }
        if let (Some(single), Some((_, _, results))) = (self.app.single.as_mut(), &self.nested) {
            while let Ok(msg) = results.try_recv() {
                update(single, Msg::Worker(msg));
                any = true;
            }
        }
        any
    }

    fn on_event(&mut self, event: Event) {
        use session_app::SessionInput;
        if let Event::Paste(text) = event {
            match self.app.single.as_mut() {
                Some(single) if self.app.screen == session_app::Screen::Single => {
                    update(single, Msg::Paste(text));
                }
                _ => key_prelude::on_paste(&mut *self.app, &text),
            }
            return;
        }
        let msg = match event {
            Event::Key(key) => SessionInput::Key(key),
            Event::Mouse(mouse) => SessionInput::Mouse(mouse),
            Event::Resize(w, h) => SessionInput::Resize(w, h),
            _ => return,
        };
        session_app::session_update(self.app, msg);
    }

    fn on_tick(&mut self) {
        session_app::session_update(self.app, session_app::SessionInput::Tick);
    }

    fn draw(&self, frame: &mut ratatui::Frame) {
        session_draw::render(self.app, frame);
    }

    fn is_busy(&self) -> bool {
        self.app.is_busy() || self.app.single.as_ref().is_some_and(|s| s.ctx.is_busy())
    }

    fn quit(&self) -> (bool, bool) {
        (self.app.quit, self.app.interrupted)
    }
}

/// The one event loop: effects, then the end, the drawing, the workers' results, the spinner
/// and the terminal's events, until the view or a signal ends it.
fn event_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    program: &mut impl Program,
) -> Result<Ended, TuiError>
where
    TuiError: From<B::Error>,
{
    let stop = stop_on_signals()?;
    let input = tty::TtyInput;
    let done = Arc::new(AtomicBool::new(false));
    tty::watch(stop.stop.clone(), done.clone(), restore_terminal);
    let ended = run_loop(terminal, program, &stop, &input);
    done.store(true, Ordering::SeqCst);
    ended
}

/// Events handled between two drawings (and two looks at the workers).
const BURST: usize = 256;

/// [`event_loop`]'s body, until the view, a signal or a hang-up ends it.
fn run_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    program: &mut impl Program,
    stop: &SignalFlags,
    input: &tty::TtyInput,
) -> Result<Ended, TuiError>
where
    TuiError: From<B::Error>,
{
    let mut dirty = true;
    let mut last_tick = Instant::now();
    loop {
        if program.run_effects() || stop.take_suspend() {
            suspend()?;
            terminal.clear()?;
            dirty = true;
        }
        let (quit, interrupted) = program.quit();
        if let Some(ended) = stop.ending(quit, interrupted) {
            return Ok(ended);
        }
        if dirty {
            terminal.draw(|frame| program.draw(frame))?;
            dirty = false;
            // Debug builds only: a way for the end-to-end tests to check that a panic leaves
            // the terminal restored.
            #[cfg(debug_assertions)]
            if std::env::var_os("TOOLPRISM_TUI_TEST_PANIC").is_some() {
                panic!("test panic requested by TOOLPRISM_TUI_TEST_PANIC");
            }
        }
        // Worker results first, then input; a short poll keeps both responsive.
        dirty |= program.receive();
        if program.is_busy() && last_tick.elapsed() >= Duration::from_millis(120) {
            program.on_tick();
            last_tick = Instant::now();
            dirty = true;
        }
        // Wait on the terminal ourselves: crossterm is only asked for events that are there
        // (see `tty`). A signal (SIGWINCH, SIGTERM) cuts the wait short.
        if input.wait(Duration::from_millis(30))? == tty::Readiness::HungUp {
            return Ok(Ended::Quit);
        }
        // A burst (a paste, a held key) is handled a bounded number of events at a time, and
        // the hang-up, the signals and the view's own end are looked at between any two.
        for _ in 0..BURST {
            if !event::poll(Duration::ZERO)? {
                break;
            }
            let event = event::read()?;
            if matches!(
                event,
                Event::Key(_) | Event::Mouse(_) | Event::Resize(..) | Event::Paste(_)
            ) {
                program.on_event(event);
                dirty = true;
            }
            let (quit, interrupted) = program.quit();
            if stop.ending(quit, interrupted).is_some() {
                break;
            }
            if input.wait(Duration::ZERO)? == tty::Readiness::HungUp {
                return Ok(Ended::Quit);
            }
        }
    }
}

/// Stop the process with the terminal restored (what Ctrl-Z does in a shell), and take the
/// terminal back when the shell resumes it.
fn suspend() -> std::io::Result<()> {
    restore_terminal();
    tty::restore_flags();
    // SIGSTOP, not SIGTSTP: SIGTSTP is caught (to restore the terminal before stopping), and
    // the shell sees the same stopped job either way.
    signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)?;
    // Resumed. By `bg`, in the background, taking the terminal back would make it send
    // SIGTTOU, which is caught (to suspend cleanly) and so would come again at every retry:
    // stop again until the shell brings the view to the foreground.
    while !tty::in_foreground() {
        signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)?;
    }
    tty::set_nonblocking()?;
    enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste,
        cursor::Hide
    )
}

/// Run the effects the update queued: computations go to the worker, writes to the disk.
/// Returns whether a suspend was asked for (the loop owns the terminal).
fn run_effects(app: &mut App, jobs: &Sender<worker::Job>) -> bool {
    let mut suspend = false;
    for effect in std::mem::take(&mut app.effects) {
        match effect {
            Effect::Suspend => suspend = true,
            Effect::Copy(text) => {
                use std::io::Write;
                let mut out = std::io::stdout();
                let _ = out.write_all(clipboard::osc52(&text).as_bytes());
                let _ = out.flush();
            }
            Effect::Compute(job) => {
                let _ = jobs.send(job);
            }
            Effect::Write {
                path,
                bytes,
                overwrite,
                what,
            } => {
                let result = write_export(&path, &bytes, overwrite, &app.ctx.inputs);
                update(app, Msg::Written { what, result });
            }
        }
    }
    suspend
}

/// Write an export through the library's one writer ([`crate::export::export`], the command
/// line's too): a regular file atomically, a device or a pipe through (never replaced), never
/// over one of `inputs` even when overwriting was confirmed. Returns the absolute path for the
/// status bar.
pub fn write_export(
    path: &Path,
    bytes: &[u8],
    overwrite: bool,
    inputs: &crate::export::Inputs,
) -> Result<PathBuf, WriteError> {
    let text = String::from_utf8_lossy(bytes);
    let stop = AtomicBool::new(false);
    match crate::export::export(path, &text, overwrite, inputs, (&stop, false)) {
        Ok(()) => Ok(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())),
        Err(crate::export::ExportError::Exists(_)) => Err(WriteError::Exists),
        Err(e) => Err(WriteError::Failed(crate::text::safe(&e.to_string()))),
    }
}

/// Puts the terminal back however the inspector ends.
struct TerminalGuard;

impl TerminalGuard {
    fn enter() -> std::io::Result<TerminalGuard> {
        enable_raw_mode()?;
        let guard = TerminalGuard;
        execute!(
            std::io::stdout(),
            EnterAlternateScreen,
            EnableMouseCapture,
            EnableBracketedPaste,
            cursor::Hide
        )?;
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Undo everything [`TerminalGuard::enter`] did. Safe to call twice.
fn restore_terminal() {
    let _ = execute!(
        std::io::stdout(),
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
}

/// On a panic, restore the terminal before the message is printed.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        tty::restore_flags();
        previous(info);
        eprintln!(
            "toolprism {} crashed; the terminal was restored. Please report this.",
            env!("CARGO_PKG_VERSION")
        );
    }));
}
