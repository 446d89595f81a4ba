//! `toolprism session --follow TRACE`: a growing trace read as `tail -f` reads a log, one line
//! per turn printed as its record is completed, until Ctrl-C or SIGTERM; on a terminal, the
//! session view's live mode instead.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use toolprism::Strategy;
use toolprism::measure::TokenCounter;
use toolprism::sanitize::visible;
use toolprism::session::{Analyzer, StrategyTurn, TurnFacts, TurnSink};
use toolprism::trace::follow::{Followed, Follower};
use toolprism::trace::{TraceFormat, TraceOptions};

use super::session::{Request, turn_row};
use super::{Failure, Output};

/// How often a trace with nothing new is looked at again.
const POLL: Duration = Duration::from_millis(100);

/// The timeline's columns, as `session` prints them.
const HEADER: [&str; 11] = [
    "turn",
    "time",
    "thread",
    "tools",
    "tokens",
    "prompt",
    "cache",
    "observed",
    "modelled",
    "agrees",
    "what changed",
];
const WIDTHS: [usize; 10] = [5, 19, 6, 5, 7, 7, 12, 16, 16, 6];

fn row<S: AsRef<str>>(cells: &[S]) -> String {
    let mut line = String::new();
    for (i, cell) in cells.iter().enumerate() {
        let cell = cell.as_ref();
        match WIDTHS.get(i) {
            // Numbers to the right, as `session` aligns them.
            Some(&w) if matches!(i, 0 | 3 | 4 | 5) => line.push_str(&format!("{cell:>w$}  ")),
            Some(&w) => line.push_str(&format!("{cell:<w$}  ")),
            None => line.push_str(cell),
        }
    }
    line.trim_end().to_owned()
}

/// The live session view on the followed trace.
fn live(follower: Follower, request: &Request<'_>, color: bool) -> Result<Output, Failure> {
    // The format as a whole read would tell it (a trace still empty: JSON lines).
    let format = toolprism::trace::open_path(request.path, &TraceOptions { skip_bad: true })
        .map_or(TraceFormat::BareJsonl.id(), |r| r.format().id());
    // The view ends on Ctrl-C itself, with the terminal restored.
    super::interrupt::take_over();
    let source = toolprism::tui::LiveSource {
        follower,
        format,
        calls: None,
        hint: vec!["Turns appear here as the trace grows.".to_owned()],
    };
    let ended = toolprism::tui::run_live(
        source,
        request.path.to_path_buf(),
        request.settings.clone(),
        request.encoding,
        color,
    )
    .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
    let mut output = Output::text(String::new());
    output.status = ended.status();
    Ok(output)
}

/// Prints each turn as the analysis finishes it; `gone` is set once a write fails (the reader
/// went, `| head`), which ends the following.
struct Printer {
    gone: Arc<AtomicBool>,
}

impl TurnSink for Printer {
    fn turn(&mut self, facts: &TurnFacts, _rows: &[StrategyTurn]) {
        let mut out = std::io::stdout().lock();
        if writeln!(out, "{}", row(&turn_row(facts)))
            .and_then(|()| out.flush())
            .is_err()
        {
            self.gone.store(true, Ordering::Relaxed);
        }
    }
}

/// Follow `request.path` until a signal (or, on a terminal, until the live view is quit).
pub fn run(request: &Request<'_>, color: bool) -> Result<Output, Failure> {
    let mut follower = Follower::open(request.path)
        .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
    if std::io::stdout().is_terminal() && !request.json {
        return live(follower, request, color);
    }
    let name = visible(follower.name()).into_owned();
    let int = super::interrupt::take_over();
    let term = Arc::new(AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGTERM, term.clone());
    let gone = Arc::new(AtomicBool::new(false));
    let counter = TokenCounter::new(request.encoding);
    // The timeline needs only the requests as sent: no strategy is projected.
    let strategies = if request.strategies.is_empty() {
        vec![Strategy::Original]
    } else {
        request.strategies.to_vec()
    };
    let mut analyzer = Analyzer::new(
        &strategies,
        request.settings,
        &counter,
        request.thread.clone(),
    )
    .with_sink(Box::new(Printer { gone: gone.clone() }));
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "following {name} (Ctrl-C stops)");
        let _ = writeln!(out, "{}", row(&HEADER));
        let _ = out.flush();
    }
    let problem = |at: &str, why: &str| {
        eprintln!("toolprism: {name}: {at}: {} (skipped)", visible(why));
    };
    while !gone.load(Ordering::Relaxed)
        && !int.load(Ordering::Relaxed)
        && !term.load(Ordering::Relaxed)
    {
        let items = follower
            .poll()
            .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
        if items.is_empty() {
            std::thread::sleep(POLL);
            continue;
        }
        for item in items {
            match item {
                Followed::Turn(turn) => {
                    let at = turn.source.clone();
                    if let Err(e) = analyzer.push(*turn) {
                        problem(&at, &e.to_string());
                    }
                }
                Followed::Ignored(_) => {}
                Followed::Bad(at, why) => problem(&at, &why),
            }
        }
    }
    let turns = analyzer.kept_turns();
    let mut output = Output::text(String::new());
    let turns = match turns {
        1 => "1 turn".to_owned(),
        n => format!("{n} turns"),
    };
    output.stderr = format!("toolprism: {name}: followed {turns}\n");
    if term.load(Ordering::Relaxed) {
        output.status = 143;
    }
    Ok(output)
}
