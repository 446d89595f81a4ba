//! The background worker: projects every strategy and counts tokens off the UI thread, so the
//! first frame appears at once and keys stay responsive. Results go back as [`WorkerMsg`]s and
//! the app keeps them in its [`Memo`], as the worker keeps what it computed in its own.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};

use crate::capture::{Capture, Shape};
use crate::measure::{Encoding, TokenCounter};
use crate::memo::Memo;
use crate::pipeline::project;
use crate::projection::Projection;
use crate::report::{CaptureJson, StrategyFigures, measure_projection};
use crate::settings::Settings;
use crate::strategy::Strategy;
use crate::tool;

use crate::diff::{ByteSummary, projection_summary_with};
use crate::sanitize::visible;
use crate::session::live::Live;
use crate::session::pick::{PickedTurn, TurnChoice, pick_turn_path};
use crate::session::{Analyzer, SessionReport, analyse_trace};
use crate::trace::follow::Follower;
use crate::trace::{TraceOptions, TraceReader};

/// Tools counted between two progress reports.
const CHUNK: usize = 32;

pub use crate::memo::{FigKey, ProjKey, RequestSummary};

/// Work for the worker: the strategies to make ready under these settings and encoding.
#[derive(Debug, Clone)]
pub struct Job {
    /// The app's generation when asked; results of an older one are still cached, never shown
    /// as current unless their key matches.
    pub generation: u64,
    /// The settings.
    pub settings: Settings,
    /// The same settings shared, the cache key.
    pub settings_key: Arc<Settings>,
    /// The encoding.
    pub encoding: Encoding,
    /// The strategies, most wanted first.
    pub strategies: Vec<Strategy>,
}

/// What the worker reports.
#[derive(Debug, Clone)]
pub enum WorkerMsg {
    /// The capture's own tokens under an encoding.
    CaptureMeasured {
        /// The encoding.
        encoding: Encoding,
        /// Tokens of the compact `tools` array.
        tokens: usize,
    },
    /// Work done so far in the current job.
    Progress {
        /// The job's generation.
        generation: u64,
        /// Units done.
        done: usize,
        /// Units in all.
        total: usize,
        /// What is being done.
        what: &'static str,
    },
    /// A projection and its request-level summary.
    Projected {
        /// Its key.
        key: ProjKey,
        /// The projection.
        projection: Arc<Projection>,
        /// The request compared with the capture's.
        request: RequestSummary,
    },
    /// A projection's figures.
    Measured {
        /// Their key.
        key: FigKey,
        /// The figures.
        figures: Arc<StrategyFigures>,
    },
    /// The job is finished.
    Done {
        /// The job's generation.
        generation: u64,
    },
}

struct Counted {
    counter: TokenCounter,
    original_tokens: Vec<usize>,
    capture_tokens: usize,
}

/// The worker's state: the capture and what it has already computed.
pub struct Worker {
    capture: Arc<Capture>,
    json: CaptureJson,
    original_body_bytes: usize,
    counted: HashMap<Encoding, Counted>,
    memo: Memo,
}

impl Worker {
    /// A worker for one capture.
    pub fn new(capture: Arc<Capture>) -> Worker {
        let json = CaptureJson::new(&capture);
        let original_body_bytes = tool::compact(capture.body()).len();
        Worker {
            capture,
            json,
            original_body_bytes,
            counted: HashMap::new(),
            memo: Memo::new(),
        }
    }

    /// Bytes of the projected compact request body. When the projection only replaces the
    /// `tools` value, the body's compact JSON changes by exactly the arrays' difference, so no
    /// copy of a (possibly multi-MB) body is built; otherwise it is built and measured.
    fn body_after(&self, projection: &Projection, tools: &ByteSummary) -> usize {
        let only_tools_replaced = self.capture.has_tools_key()
            && projection.sent.is_some()
            && !projection.drop_tool_choice
            && projection.inline.is_empty()
            && (projection.added_text.is_none() || self.capture.shape() == Shape::McpToolsList);
        if only_tools_replaced {
            self.original_body_bytes - tools.before_bytes + tools.after_bytes
        } else {
            projection.request_json(&self.capture, false).len()
        }
    }

    /// Run one job, reporting through `send`. Between units of work it asks `superseded`
    /// whether a newer job is waiting, and if so stops early (what is done stays cached).
    pub fn run(
        &mut self,
        job: &Job,
        send: &mut dyn FnMut(WorkerMsg),
        superseded: &mut dyn FnMut() -> bool,
    ) {
        let generation = job.generation;
        // Projections first: they are fast, and the tables can show names and statuses.
        let total = job.strategies.len();
        for (done, &strategy) in job.strategies.iter().enumerate() {
            if superseded() {
                return;
            }
            send(WorkerMsg::Progress {
                generation,
                done,
                total,
                what: "projecting",
            });
            let key: ProjKey = (strategy, job.settings_key.clone());
            let (projection, request) = match self.memo.projection(&key) {
                Some(found) => found.clone(),
                None => {
                    let projection = Arc::new(project(&self.capture, strategy, &job.settings));
                    let tools = projection_summary_with(&self.capture, &projection, &self.json);
                    let request = RequestSummary {
                        tools,
                        body_before: self.original_body_bytes,
                        body_after: self.body_after(&projection, &tools),
                    };
                    self.memo
                        .keep_projection(key.clone(), projection.clone(), request);
                    (projection, request)
                }
            };
            send(WorkerMsg::Projected {
                key,
                projection,
                request,
            });
        }
        // The capture's own tokens under this encoding, in chunks so progress shows.
        if !self.counted.contains_key(&job.encoding) {
            let counter = TokenCounter::new(job.encoding);
            let entries: Vec<&str> = self.json.entries.iter().map(String::as_str).collect();
            let mut original_tokens = Vec::with_capacity(entries.len());
            for chunk in entries.chunks(CHUNK) {
                if superseded() {
                    return;
                }
                send(WorkerMsg::Progress {
                    generation,
                    done: original_tokens.len(),
                    total: entries.len(),
                    what: "counting tokens",
                });
                original_tokens.extend(counter.count_many(chunk));
            }
            let capture_tokens = if self.capture.has_tools_key() || !entries.is_empty() {
                counter.count_array(&entries)
            } else {
                0
            };
            self.counted.insert(
                job.encoding,
                Counted {
                    counter,
                    original_tokens,
                    capture_tokens,
                },
            );
        }
        let Some(counted) = self.counted.get(&job.encoding) else {
            return;
        };
        send(WorkerMsg::CaptureMeasured {
            encoding: job.encoding,
            tokens: counted.capture_tokens,
        });
        for (done, &strategy) in job.strategies.iter().enumerate() {
            if superseded() {
                return;
            }
            send(WorkerMsg::Progress {
                generation,
                done,
                total,
                what: "measuring",
            });
            let key: FigKey = (strategy, job.settings_key.clone(), job.encoding);
            let figures = match self.memo.figures(&key) {
                Some(found) => found.clone(),
                None => {
                    let Some((projection, _)) =
                        self.memo.projection(&(strategy, job.settings_key.clone()))
                    else {
                        continue;
                    };
                    let figures = Arc::new(measure_projection(
                        &self.capture,
                        projection,
                        &self.json,
                        &counted.original_tokens,
                        counted.capture_tokens,
                        &job.settings,
                        &counted.counter,
                    ));
                    self.memo.keep_figures(key.clone(), figures.clone());
                    figures
                }
            };
            send(WorkerMsg::Measured { key, figures });
        }
        send(WorkerMsg::Done { generation });
    }
}

/// Start the worker thread. Jobs go in on the returned sender; results come out on `out`.
/// The thread ends when the job sender is dropped.
pub fn spawn(capture: Arc<Capture>, out: Sender<WorkerMsg>) -> Sender<Job> {
    let (jobs_tx, jobs_rx) = std::sync::mpsc::channel::<Job>();
    std::thread::spawn(move || {
        let mut worker = Worker::new(capture);
        let mut pending: Option<Job> = None;
        loop {
            let job = match pending.take() {
                Some(job) => job,
                None => match jobs_rx.recv() {
                    Ok(job) => job,
                    Err(_) => return,
                },
            };
            let mut send = |msg: WorkerMsg| {
                let _ = out.send(msg);
            };
            let mut superseded = || newest(&jobs_rx, &mut pending);
            worker.run(&job, &mut send, &mut superseded);
        }
    });
    jobs_tx
}

/// Take the newest waiting job into `pending`; true when there is one.
fn newest(rx: &Receiver<Job>, pending: &mut Option<Job>) -> bool {
    while let Ok(job) = rx.try_recv() {
        *pending = Some(job);
    }
    pending.is_some()
}

// ---- the session view's background work ---------------------------------------------------

/// What the session view's background work reports.
#[derive(Debug, Clone)]
pub enum SessionMsg {
    /// Turns read so far.
    Progress {
        /// Model calls read.
        turns: usize,
    },
    /// The analysis ended. With `error`, it stopped at a bad record and the report holds the
    /// turns read before it.
    Analysed {
        /// The report.
        report: Arc<SessionReport>,
        /// Why it stopped early, as one line naming the file and the record.
        error: Option<String>,
    },
    /// The live view's picture of a growing trace: every turn so far (it replaces the last).
    Live {
        /// The report of the turns read so far.
        report: Arc<SessionReport>,
        /// The last line that could not be used since the previous picture (`line 7: why`),
        /// or why following stopped.
        problem: Option<String>,
    },
    /// The recorder's counts (record's live view): calls written, and calls under way.
    Calls {
        /// Calls written to the trace.
        recorded: usize,
        /// Calls forwarded and not finished yet.
        in_flight: usize,
    },
    /// A turn's request, loaded for the single-request views and the diff, or why not.
    Picked {
        /// The turn asked for.
        turn: usize,
        /// The request and the previous request of its thread, or one line.
        result: Result<Arc<PickedTurn>, String>,
    },
}

/// A trace to analyse for the session view.
pub struct SessionJob {
    /// The trace, opened (its format already told).
    pub reader: TraceReader,
    /// How the trace is named on screen (`<stdin>` for a spooled standard input).
    pub name: String,
    /// The strategies to project every turn under.
    pub strategies: Vec<Strategy>,
    /// The settings (the cost model's among them).
    pub settings: Settings,
    /// The encoding tokens are counted in.
    pub encoding: Encoding,
}

/// Read and analyse a whole trace, reporting progress through `send`; the last message is
/// [`SessionMsg::Analysed`]. A bad record stops the reading (unless the reader skips bad records): the report then
/// holds the turns before it and the error says where it stopped.
pub fn analyse(job: SessionJob, send: &mut dyn FnMut(SessionMsg)) {
    let SessionJob {
        reader,
        name,
        strategies,
        settings,
        encoding,
    } = job;
    let counter = TokenCounter::new(encoding);
    let mut analyzer = Analyzer::new(&strategies, &settings, &counter, None);
    let (info, result) = analyse_trace(reader, &name, &mut analyzer, &mut |turns| {
        send(SessionMsg::Progress { turns });
    });
    let error = result.err().map(|e| visible(&e.to_string()).into_owned());
    let report = Arc::new(analyzer.finish(info));
    send(SessionMsg::Analysed { report, error });
}

/// Analyse a trace on a background thread; the messages come out on `out`.
pub fn spawn_session(job: SessionJob, out: Sender<SessionMsg>) {
    std::thread::spawn(move || {
        analyse(job, &mut |msg| {
            let _ = out.send(msg);
        });
    });
}

/// A growing trace for the live session view.
pub struct LiveJob {
    /// The trace, opened (its errors told before the view opens).
    pub follower: Follower,
    /// The format id the view names.
    pub format: &'static str,
    /// The strategies to project every turn under.
    pub strategies: Vec<Strategy>,
    /// The settings (the cost model's among them).
    pub settings: Settings,
    /// The encoding tokens are counted in.
    pub encoding: Encoding,
}

/// How often a live trace with nothing new is looked at again.
pub const LIVE_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// Follow a growing trace: a [`SessionMsg::Live`] picture at once, then one each time lines
/// were completed, until `stop` is dropped (or sent to) or `send` says the view is gone. All
/// the analysis happens here, never on the keys' path.
pub fn follow(job: LiveJob, stop: &Receiver<()>, send: &mut dyn FnMut(SessionMsg) -> bool) {
    let LiveJob {
        follower,
        format,
        strategies,
        settings,
        encoding,
    } = job;
    let counter = TokenCounter::new(encoding);
    let analyzer = Analyzer::new(&strategies, &settings, &counter, None);
    let mut live = Live::new(follower, format, analyzer);
    let mut first = true;
    loop {
        let (news, problem, ended) = match live.poll() {
            Ok(polled) => (
                first || !polled.is_empty(),
                polled.bad.last().map(|b| visible(b).into_owned()),
                false,
            ),
            Err(e) => (
                true,
                Some(format!("{}; following stopped", visible(&e.to_string()))),
                true,
            ),
        };
        first = false;
        if news {
            let report = Arc::new(live.snapshot());
            if !send(SessionMsg::Live { report, problem }) {
                return;
            }
        }
        if ended {
            return;
        }
        match stop.recv_timeout(LIVE_POLL) {
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            _ => return,
        }
    }
}

/// [`follow`] on a background thread; it ends when `stop`'s sender is dropped.
pub fn spawn_follow(job: LiveJob, stop: Receiver<()>, out: Sender<SessionMsg>) {
    std::thread::spawn(move || {
        follow(job, &stop, &mut |msg| out.send(msg).is_ok());
    });
}

/// Load turn `turn` of the trace at `path` (and the previous request of its thread), as
/// [`SessionMsg::Picked`]. The trace is read again from the start: only that request and, per
/// thread, the latest one are held.
pub fn pick(path: &std::path::Path, turn: usize, skip_bad: bool) -> SessionMsg {
    let result = pick_turn_path(path, TurnChoice::Number(turn), &TraceOptions { skip_bad })
        .map(Arc::new)
        .map_err(|e| visible(&e.to_string()).into_owned());
    SessionMsg::Picked { turn, result }
}

/// [`pick`] on a background thread.
pub fn spawn_pick(path: std::path::PathBuf, turn: usize, skip_bad: bool, out: Sender<SessionMsg>) {
    std::thread::spawn(move || {
        let _ = out.send(pick(&path, turn, skip_bad));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut for the projected body's size must agree with building the body, for
    /// every strategy, on every sample (all shapes, reminders, dropped tool_choice).
    #[test]
    fn body_after_matches_the_built_body() {
        let mut settings = Settings::default();
        settings.apply("defer.threshold=2").unwrap();
        let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
        for file in std::fs::read_dir(samples).unwrap() {
            let path = file.unwrap().path();
            // samples/traces/ holds traces, not captures; the SSE sample is read as a trace.
            if path.is_dir() || path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let capture = Arc::new(Capture::from_path(path.to_str().unwrap()).unwrap());
            let worker = Worker::new(capture.clone());
            for strategy in Strategy::ALL {
                let projection = project(&capture, strategy, &settings);
                let tools = projection_summary_with(&capture, &projection, &worker.json);
                let built = tool::compact(&projection.request_body(&capture)).len();
                assert_eq!(
                    worker.body_after(&projection, &tools),
                    built,
                    "{} {strategy}",
                    path.display()
                );
            }
        }
    }
}
