//! `export TRACE --turn N -s append`: turn N's request as `append` sends it. The thread's
//! first `tools` for the whole thread, and at each earlier turn of the thread whose list
//! changed, the system message `append` placed there (after that turn's messages), as the
//! session's replay places it ([`super::append`]); nothing else of the request changes.

use std::path::Path;

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::append::redefines;
use super::compare::{NameChange, by_name, changed_fields};
use super::context::thread_key;
use super::pick::TurnChoice;
use crate::capture::Capture;
use crate::error::{FileError, LoadError};
use crate::strategies::append::{change_message, refusal};
use crate::tool;
use crate::tool_changes::{INLINE_BETA, REFERENCE_BETA};
use crate::trace::{self, RecordBody, TraceOptions};

/// A turn's request as `append` sends it.
#[derive(Debug, Clone)]
pub struct AppendRequest {
    /// The request's body.
    pub body: Value,
    /// The system messages it carries that `append` placed.
    pub placed: usize,
    /// The `anthropic-beta` value it needs (`None`: it places nothing).
    pub beta: Option<&'static str>,
}

/// What `append` holds in one thread as the trace is read.
#[derive(Default)]
struct Thread {
    /// The `tools` it keeps (`None`: the thread's first request had no `tools` key).
    base: Option<Value>,
    /// The previous request's list, to compare the next one with.
    last: Vec<Value>,
    /// Each placed message: after how many messages, the message, and whether it defines a
    /// tool inline.
    placed: Vec<(usize, Value, bool)>,
}

impl Thread {
    /// One request of the thread: its change placed (or, where the provider refuses it, its
    /// list kept from now on, as the replay does).
    fn push(&mut self, capture: &Capture, first: bool) {
        let now: Vec<Value> = capture.tools().to_vec();
        if first {
            self.base = capture.body().get("tools").cloned();
            self.last = now;
            return;
        }
        let keyed = |list: &[Value]| -> Vec<(String, String)> {
            list.iter()
                .map(|e| (tool::name(e).unwrap_or("").to_owned(), tool::compact(e)))
                .collect()
        };
        let (before, after) = (keyed(&self.last), keyed(&now));
        fn refs(list: &[(String, String)]) -> Vec<(&str, &str)> {
            list.iter().map(|(n, j)| (n.as_str(), j.as_str())).collect()
        }
        let mut defined = Vec::new();
        let mut removed = Vec::new();
        for c in by_name(&refs(&before), &refs(&after)).changes {
            match (c.change, c.before, c.now) {
                (NameChange::Removed, Some(i), _) => removed.push(before[i].0.as_str()),
                (NameChange::Changed, Some(b), Some(i))
                    if !redefines(&changed_fields(&before[b].1, &after[i].1)) => {}
                (_, _, Some(i)) => defined.push(after[i].1.as_str()),
                _ => {}
            }
        }
        if defined.is_empty() && removed.is_empty() {
            // Nothing to send: an order or a marker that moved.
        } else if refusal(capture).is_some() {
            self.base = capture.body().get("tools").cloned();
            self.placed.clear();
        } else {
            let text = change_message(defined.iter().copied(), removed.iter().copied());
            if let Ok(message) = serde_json::from_str(&text) {
                let at = capture.conversation().len();
                self.placed.push((at, message, !defined.is_empty()));
            }
        }
        self.last = now;
    }

    /// `capture` (the thread's latest request) as `append` sends it.
    fn request(&self, capture: &Capture) -> AppendRequest {
        let mut body = capture.body().clone();
        if let Some(object) = body.as_object_mut() {
            match &self.base {
                Some(tools) => {
                    object.insert("tools".to_owned(), tools.clone());
                }
                None => {
                    object.shift_remove("tools");
                }
            }
            if let Some(Value::Array(messages)) = object.get_mut("messages") {
                // Latest first, so each earlier place is still where it was.
                for (at, message, _) in self.placed.iter().rev() {
                    messages.insert((*at).min(messages.len()), message.clone());
                }
            }
        }
        let inline = self.placed.iter().any(|p| p.2);
        AppendRequest {
            body,
            placed: self.placed.len(),
            beta: match (self.placed.is_empty(), inline) {
                (true, _) => None,
                (false, true) => Some(INLINE_BETA),
                (false, false) => Some(REFERENCE_BETA),
            },
        }
    }
}

/// Turn `choice` of the trace at `path` as `append` sends it, numbered as
/// [`super::pick::pick_turn`] numbers turns. `Err` names the file; the caller has already
/// picked the turn (and refused it where `append` is refused), so a turn that is not a request
/// is an error here too.
pub fn append_request(
    path: &Path,
    choice: TurnChoice,
    options: &TraceOptions,
) -> Result<AppendRequest, FileError> {
    let mut reader = trace::open_path(path, options)?;
    let name = reader.name().to_owned();
    let mut threads: FxHashMap<String, Thread> = FxHashMap::default();
    let mut turn = 0;
    let mut last: Option<(String, Capture)> = None;
    for record in reader.by_ref() {
        let record = record?;
        let RecordBody::Request(body) = record.body else {
            turn += 1;
            if choice == TurnChoice::Number(turn) {
                last = None;
                break;
            }
            continue;
        };
        let capture = match Capture::from_sent(body, record.body_text.as_deref()) {
            Ok(capture) => capture,
            Err(_) if options.skip_bad => continue,
            Err(e) => {
                let (at, problem) = (record.source, e.to_string());
                return Err(LoadError::BadRecord { at, problem }.in_file(name));
            }
        };
        turn += 1;
        let key = thread_key(&capture, record.agent_id.as_deref());
        let first = !threads.contains_key(&key);
        threads
            .entry(key.clone())
            .or_default()
            .push(&capture, first);
        last = Some((key, capture));
        if choice == TurnChoice::Number(turn) {
            break;
        }
    }
    let found = match choice {
        TurnChoice::Number(n) => n == turn,
        TurnChoice::Last => true,
    };
    match last.filter(|_| found) {
        Some((key, capture)) => Ok(threads[&key].request(&capture)),
        None => Err(LoadError::NoSuchTurn("no such turn".to_owned()).in_file(name)),
    }
}
