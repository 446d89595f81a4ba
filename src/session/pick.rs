//! One request of a trace, for the single-request commands (`report`, `show`, `diff`, `export`
//! with `--turn N`) and the TUI's "open this turn".
//!
//! Turns are numbered exactly as [`super::Analyzer`] numbers them: every model call the trace
//! reader yields, compaction stubs included, 1-based; a record whose body is not a request is an
//! error, or is skipped and not counted under [`TraceOptions::skip_bad`]. The trace is streamed:
//! only the wanted turn and, per thread, the latest request are held.

use std::path::Path;

use rustc_hash::FxHashMap;

use crate::capture::Capture;
use crate::error::{FileError, LoadError};
use crate::trace::{self, RecordBody, TraceFormat, TraceOptions};

use super::context::thread_key;

/// Which request of a trace to take.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TurnChoice {
    /// The last model call (what a single-request command takes without `--turn`).
    #[default]
    Last,
    /// Turn `n`, 1-based.
    Number(usize),
}

/// A request of a trace, with where it came from.
#[derive(Debug, Clone)]
pub struct PickedTurn {
    /// Its turn number, 1-based, as `toolprism session` numbers it.
    pub turn: usize,
    /// Turns read: all of them when the last was asked for, else up to and including `turn`.
    pub turns_read: usize,
    /// Where it is in the trace (`line 5`, `entry 3`, `002.json`); empty for a single capture.
    pub source: String,
    /// The trace's format (a single capture is [`TraceFormat::Single`]).
    pub format: TraceFormat,
    /// The request.
    pub capture: Capture,
    /// The previous request of the same thread (its turn number and the request), when there
    /// is one: what a turn's tool list is compared with.
    pub previous: Option<(usize, Capture)>,
    /// The MCP servers whose exchanges the trace holds, read as far as the turn (all of them
    /// for the last turn): what labels its tools by server.
    pub mcp_servers: Vec<crate::trace::McpServer>,
}

impl PickedTurn {
    /// How a request of this trace is named: the file alone for a single capture, else
    /// `trace.jsonl turn 3 (line 5)`.
    pub fn label(&self, name: &str) -> String {
        match self.figures() {
            Some(figures) => figures.label(name),
            None => name.to_owned(),
        }
    }

    /// The turn as `report --json` names it; `None` for a single capture.
    pub fn figures(&self) -> Option<crate::report::TurnFigures> {
        (self.format != TraceFormat::Single).then(|| crate::report::TurnFigures {
            turn: self.turn,
            source: self.source.clone(),
            format: self.format.id(),
        })
    }
}

/// Read `path` (a single capture or a trace of any format; `-` is standard input) and take one
/// of its requests. Errors name the file, and the record when one is at fault.
pub fn pick_turn(
    path: &str,
    choice: TurnChoice,
    options: &TraceOptions,
) -> Result<PickedTurn, FileError> {
    pick(Path::new(path), choice, options, true)
}

/// [`pick_turn`] for a path of any bytes (one that is not UTF-8 is read by its own bytes).
pub fn pick_turn_path(
    path: &Path,
    choice: TurnChoice,
    options: &TraceOptions,
) -> Result<PickedTurn, FileError> {
    pick(path, choice, options, true)
}

/// [`pick_turn`] without [`PickedTurn::previous`] (always `None`): nothing but the request
/// picked so far is held, so memory does not grow with the trace's threads.
/// The path may hold any bytes.
pub fn pick_turn_alone(
    path: &Path,
    choice: TurnChoice,
    options: &TraceOptions,
) -> Result<PickedTurn, FileError> {
    pick(path, choice, options, false)
}

fn pick(
    path: &Path,
    choice: TurnChoice,
    options: &TraceOptions,
    with_previous: bool,
) -> Result<PickedTurn, FileError> {
    if choice == TurnChoice::Number(0) {
        return Err(LoadError::NoSuchTurn("turns are numbered from 1".into())
            .in_file(crate::capture::display_path(path)));
    }
    let mut reader = trace::open_path(path, options)?;
    let name = reader.name().to_owned();
    let format = reader.format();
    let mut turn = 0;
    // The latest request of each thread not picked, and the thread of the latest turn (a
    // compaction stub belongs to the conversation under way).
    let mut latest: FxHashMap<String, (usize, Capture)> = FxHashMap::default();
    let mut last_thread: Option<String> = None;
    let mut picked: Option<Pick> = None;
    for record in reader.by_ref() {
        let record = record?;
        let capture = match record.body {
            RecordBody::CompactionStub => None,
            RecordBody::Request(body) => {
                match Capture::from_sent(body, record.body_text.as_deref()) {
                    Ok(capture) => Some(
                        capture.with_betas(record.betas.clone()).with_url_model(
                            record
                                .url
                                .as_deref()
                                .and_then(super::provider::model_in_url),
                        ),
                    ),
                    Err(_) if options.skip_bad => continue,
                    Err(e) => {
                        let at = record.source;
                        let problem = e.to_string();
                        return Err(LoadError::BadRecord { at, problem }.in_file(name));
                    }
                }
            }
        };
        turn += 1;
        let thread = match &capture {
            Some(_) if !with_previous => None,
            Some(capture) => Some(thread_key(capture, record.agent_id.as_deref())),
            None => last_thread.clone(),
        };
        last_thread.clone_from(&thread);
        let wanted = match choice {
            TurnChoice::Last => true,
            TurnChoice::Number(n) => n == turn,
        };
        if wanted {
            // An earlier pick goes back to its thread: it is the previous request of a later
            // turn now.
            if let Some(Pick {
                turn,
                capture: Some(capture),
                thread: Some(key),
                ..
            }) = picked.take()
            {
                latest.insert(key, (turn, capture));
            }
            let previous = thread.as_ref().and_then(|key| latest.remove(key));
            picked = Some(Pick {
                turn,
                source: record.source,
                capture,
                thread,
                previous,
            });
            if choice != TurnChoice::Last {
                break;
            }
        } else if with_previous && let (Some(capture), Some(key)) = (capture, thread) {
            latest.insert(key, (turn, capture));
        }
    }
    let Some(Pick {
        turn: number,
        source,
        capture,
        previous,
        ..
    }) = picked
    else {
        // A one-line capture cut short reads as a torn trace of no turn: name it as the broken
        // capture it more likely is.
        if turn == 0
            && reader.skipped() == 0
            && let Some(error) = reader.document_error()
        {
            return Err(error.clone().in_file(name));
        }
        let problem = match choice {
            TurnChoice::Number(n) if turn > 0 => format!(
                "no turn {n}: the trace has {turn} {}",
                if turn == 1 { "turn" } else { "turns" }
            ),
            _ => {
                let reasons = reader.ignored().iter().map(|i| i.reason.as_str());
                format!(
                    "no model call in it{}",
                    crate::trace::ignored_summary(reasons, reader.ignored_total())
                )
            }
        };
        return Err(LoadError::NoSuchTurn(problem).in_file(name));
    };
    let Some(capture) = capture else {
        let problem = format!(
            "turn {number} ({source}) is a compaction stub: its tools are unknown (pick another \
             with --turn)"
        );
        return Err(LoadError::NoSuchTurn(problem).in_file(name));
    };
    Ok(PickedTurn {
        turn: number,
        turns_read: turn,
        source,
        format,
        capture,
        previous,
        mcp_servers: reader.mcp_servers().to_vec(),
    })
}

/// The turn picked so far.
struct Pick {
    turn: usize,
    source: String,
    /// `None` for a compaction stub.
    capture: Option<Capture>,
    thread: Option<String>,
    previous: Option<(usize, Capture)>,
}
