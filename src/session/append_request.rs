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
use crate::strategies::append::{
    Form, Platform, change_message, deferred_declaration, form, is_marker, reference_message,
    reference_refusal,
};
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
    /// Where that beta goes.
    pub beta_in: BetaPlace,
    /// Later tools of the thread it declares up front, deferred (by reference only).
    pub deferred: usize,
    /// The turn from which it sends the list as edited, and why: the provider takes that
    /// turn's change no other way.
    pub refused: Option<(usize, String)>,
    /// Its tools are not the turn's: the thread's first list kept where the host has since
    /// reordered it or moved its cache markers.
    pub kept: bool,
}

/// Where the beta `append`'s request needs is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BetaPlace {
    /// The `anthropic-beta` header (the Claude API, Google Cloud): not in the body written.
    Header,
    /// The body's `anthropic_beta` (Bedrock InvokeModel): written in it.
    Body,
    /// Converse's `additionalModelRequestFields.anthropic_beta`: written in it.
    ConverseFields,
}

/// Where a shape keeps its tools array: Converse in `toolConfig.tools`, else `tools`.
fn tools_of(body: &Value, form: Result<Form, String>) -> Option<&Value> {
    match form {
        Ok(Form::Converse) => body.pointer("/toolConfig/tools"),
        _ => body.get("tools"),
    }
}

/// What `append` holds in one thread as the trace is read.
#[derive(Default)]
struct Thread {
    /// The `tools` it keeps (`None`: the thread's first request had no `tools` key).
    base: Option<Value>,
    /// The names of the list it keeps.
    base_names: Vec<String>,
    /// Every later tool of the thread, by its first appearance (the whole trace read: a
    /// reference needs hindsight), declared deferred where the form is by reference.
    later: Vec<Value>,
    /// The previous request's list, to compare the next one with.
    last: Vec<Value>,
    /// Each placed message: after how many messages, the message, and whether it defines a
    /// tool inline.
    placed: Vec<(usize, Value, bool)>,
    /// The latest turn whose change the provider takes only in place, and why.
    refused: Option<(usize, String)>,
}

impl Thread {
    /// One request of the thread: its change placed (or, where the provider refuses it, its
    /// list kept from now on, as the replay does).
    fn push(&mut self, capture: &Capture, turn: usize, first: bool) {
        let now: Vec<Value> = capture.tools().to_vec();
        let form = form(capture);
        if first {
            self.keep(capture, form);
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
        let (mut added, mut redefined, mut removed) = (Vec::new(), Vec::new(), Vec::new());
        for c in by_name(&refs(&before), &refs(&after)).changes {
            match (c.change, c.before, c.now) {
                (NameChange::Removed, Some(i), _) => removed.push(before[i].0.as_str()),
                (NameChange::Changed, Some(b), Some(i))
                    if redefines(&changed_fields(&before[b].1, &after[i].1)) =>
                {
                    redefined.push(i);
                }
                (NameChange::Changed, _, _) => {}
                (_, _, Some(i)) => added.push(i),
                _ => {}
            }
        }
        // A Converse `cachePoint` that comes or goes is caching, not a tool to send.
        let nameless = self
            .last
            .iter()
            .chain(&now)
            .filter(|e| tool::name(e).is_none());
        if nameless.clone().all(|e| is_marker(&tool::compact(e))) {
            added.retain(|&i| !after[i].0.is_empty());
            removed.retain(|n| !n.is_empty());
        }
        if added.is_empty() && redefined.is_empty() && removed.is_empty() {
            // Nothing to send: an order or a marker that moved. With nothing sent yet and the
            // same tools in the same order, the host's own marks go as the host sends them.
            if self.placed.is_empty() && self.same_tools(&now) {
                self.keep(capture, form);
            }
            self.last = now;
            return;
        }
        let names =
            |list: &[usize]| -> Vec<&str> { list.iter().map(|&i| after[i].0.as_str()).collect() };
        let message = form.clone().and_then(|form| {
            if form == Form::Inline {
                let defined = added.iter().chain(&redefined).map(|&i| after[i].1.as_str());
                return Ok((change_message(defined, removed.iter().copied()), true));
            }
            let in_first = |name: &str| self.base_names.iter().any(|n| n == name);
            let redefined = names(&redefined).first().copied();
            match reference_refusal(form, names(&added), redefined, in_first) {
                Some(why) => Err(why),
                None => Ok((
                    reference_message(form, names(&added), removed.iter().copied()),
                    false,
                )),
            }
        });
        match message {
            Err(why) => {
                self.keep(capture, form);
                self.refused = Some((turn, why));
            }
            Ok((text, inline)) => {
                if let Ok(message) = serde_json::from_str(&text) {
                    let at = capture.conversation().len();
                    self.placed.push((at, message, inline));
                }
            }
        }
        self.foresee(capture);
        self.last = now;
    }

    /// Whether `now` holds the kept list's tools in its order, each the same but for its
    /// `cache_control` (a Converse `cachePoint` entry left out).
    fn same_tools(&self, now: &[Value]) -> bool {
        let named = |list: &[Value]| -> Vec<(String, String)> {
            list.iter()
                .filter_map(|e| Some((tool::name(e)?.to_owned(), tool::compact(e))))
                .collect()
        };
        let base = match &self.base {
            Some(Value::Array(list)) => named(list),
            _ => return false,
        };
        let now = named(now);
        base.len() == now.len()
            && base.iter().zip(&now).all(|(b, n)| {
                // `changed_fields` is for entries that differ: equal ones are the same tool.
                b.0 == n.0 && (b.1 == n.1 || !redefines(&changed_fields(&b.1, &n.1)))
            })
    }

    /// The request's list kept from now on (the thread's first, or one the provider refused
    /// to change by a message).
    fn keep(&mut self, capture: &Capture, form: Result<Form, String>) {
        self.base = tools_of(capture.body(), form).cloned();
        self.base_names = capture
            .tools()
            .iter()
            .filter_map(|e| tool::name(e).map(str::to_owned))
            .collect();
        self.placed.clear();
    }

    /// A request of the thread, at or after the turn written: each tool it sends that the
    /// kept list does not, noted by its first appearance.
    fn foresee(&mut self, capture: &Capture) {
        for entry in capture.tools() {
            let Some(name) = tool::name(entry) else {
                continue;
            };
            let known = self.base_names.iter().any(|n| n == name)
                || self.later.iter().any(|e| tool::name(e) == Some(name));
            if !known {
                self.later.push(entry.clone());
            }
        }
    }

    /// `capture` (the thread's latest request) as `append` sends it.
    fn request(&self, capture: &Capture) -> AppendRequest {
        let mut body = capture.body().clone();
        let form = form(capture);
        let mut tools = self.base.clone();
        let mut deferred = 0;
        // By reference, every later tool of the thread is declared up front, deferred.
        if let (Ok(Form::Reference(_)), Some(Value::Array(list))) = (&form, &mut tools) {
            let later = self
                .later
                .iter()
                .filter(|e| !tool::name(e).is_some_and(|n| self.base_names.iter().any(|b| b == n)));
            let before = list.len();
            list.extend(later.map(deferred_declaration));
            deferred = list.len() - before;
        }
        let kept = tools.as_ref() != tools_of(capture.body(), form.clone());
        let inline = self.placed.iter().any(|p| p.2);
        let beta = match (self.placed.is_empty(), inline) {
            (true, _) => None,
            (false, true) => Some(INLINE_BETA),
            (false, false) => Some(REFERENCE_BETA),
        };
        let beta_in = match form {
            Ok(Form::Reference(Platform::Bedrock)) => BetaPlace::Body,
            Ok(Form::Converse) => BetaPlace::ConverseFields,
            _ => BetaPlace::Header,
        };
        if let Some(object) = body.as_object_mut() {
            let converse = matches!(form, Ok(Form::Converse));
            let holder = if converse {
                object
                    .entry("toolConfig")
                    .or_insert_with(|| Value::Object(Default::default()))
                    .as_object_mut()
            } else {
                Some(&mut *object)
            };
            if let Some(holder) = holder {
                match tools {
                    Some(tools) => {
                        holder.insert("tools".to_owned(), tools);
                    }
                    None => {
                        holder.shift_remove("tools");
                    }
                }
            }
            if let Some(Value::Array(messages)) = object.get_mut("messages") {
                // Latest first, so each earlier place is still where it was.
                for (at, message, _) in self.placed.iter().rev() {
                    messages.insert((*at).min(messages.len()), message.clone());
                }
            }
            if let Some(beta) = beta {
                let holder = match beta_in {
                    BetaPlace::Header => None,
                    BetaPlace::Body => Some(&mut *object),
                    BetaPlace::ConverseFields => object
                        .entry("additionalModelRequestFields")
                        .or_insert_with(|| Value::Object(Default::default()))
                        .as_object_mut(),
                };
                if let Some(holder) = holder {
                    with_beta(holder, beta);
                }
            }
        }
        AppendRequest {
            body,
            placed: self.placed.len(),
            beta,
            beta_in,
            deferred,
            refused: self.refused.clone(),
            kept,
        }
    }
}

/// `anthropic_beta` in `holder` with `beta` among its values (added once).
fn with_beta(holder: &mut serde_json::Map<String, Value>, beta: &str) {
    let list = holder
        .entry("anthropic_beta")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(items) = list
        && !items.iter().any(|v| v.as_str() == Some(beta))
    {
        items.push(Value::String(beta.to_owned()));
    }
}

/// The model a record's URL names (Bedrock's `/model/{id}/…`), for a body that names none.
fn url_model(url: Option<&str>) -> Option<String> {
    url.and_then(super::provider::model_in_url)
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
            Ok(capture) => capture.with_url_model(url_model(record.url.as_deref())),
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
            .push(&capture, turn, first);
        last = Some((key, capture));
        if choice == TurnChoice::Number(turn) {
            break;
        }
    }
    let found = match choice {
        TurnChoice::Number(n) => n == turn,
        TurnChoice::Last => true,
    };
    // A reference names a tool declared up front: the thread's later tools are read from the
    // rest of the trace (a record that cannot be read ends that reading, not the export).
    if let Some((key, _)) = last.as_ref().filter(|_| found) {
        for record in reader.by_ref() {
            let Ok(record) = record else { break };
            let RecordBody::Request(body) = record.body else {
                continue;
            };
            let Ok(capture) = Capture::from_sent(body, record.body_text.as_deref()) else {
                continue;
            };
            let capture = capture.with_url_model(url_model(record.url.as_deref()));
            if thread_key(&capture, record.agent_id.as_deref()) == *key
                && let Some(thread) = threads.get_mut(key)
            {
                thread.foresee(&capture);
            }
        }
    }
    match last.filter(|_| found) {
        Some((key, capture)) => Ok(threads[&key].request(&capture)),
        None => Err(LoadError::NoSuchTurn("no such turn".to_owned()).in_file(name)),
    }
}
