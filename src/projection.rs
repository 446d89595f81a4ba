//! The model of a projection: what a strategy makes of a capture (the tools sent, what happened
//! to each original tool, the text added outside the tool list), its status, and the notes that
//! explain it.
//!
//! Strategies (in [`crate::strategies`]) produce a [`Draft`]; the pipeline
//! ([`crate::pipeline::project`]) turns it into a [`Projection`]. This module depends on neither,
//! so the strategies can build drafts without importing the pipeline that runs them.

use serde::Serialize;
use serde_json::Value;

use crate::capture::Capture;
pub use crate::note::{Level, Note};
use crate::strategy::Strategy;
pub use crate::text::SharedText;

/// What happened to one tool. Serialized as its [`Status::word`] (`report --json`'s `state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Sent with exactly its original bytes.
    Kept,
    /// Sent, with something changed.
    Changed,
    /// Not sent.
    Removed,
    /// Not sent now, but loadable on demand (`tool_search`).
    Deferred,
    /// Sent, but not in the capture.
    Added,
}

impl Status {
    /// The word used in reports (`deferred` is reported as `removed` where the CLI contract
    /// allows only the four words; see [`Status::contract`]).
    pub fn word(self) -> &'static str {
        match self {
            Status::Kept => "kept",
            Status::Changed => "changed",
            Status::Removed => "removed",
            Status::Deferred => "deferred",
            Status::Added => "added",
        }
    }

    /// The status as `report --json`'s `status` knows it: a deferred tool is `removed`.
    pub fn contract(self) -> ContractStatus {
        match self {
            Status::Kept => ContractStatus::Kept,
            Status::Changed => ContractStatus::Changed,
            Status::Removed | Status::Deferred => ContractStatus::Removed,
            Status::Added => ContractStatus::Added,
        }
    }
}

/// A tool's status in the four words the CLI contract allows (`report --json`'s `status`):
/// [`Status`] without `deferred`, which is reported as `removed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContractStatus {
    /// Sent with exactly its original bytes.
    Kept,
    /// Sent, with something changed.
    Changed,
    /// Not sent (deferred included).
    Removed,
    /// Sent, but not in the capture.
    Added,
}

impl ContractStatus {
    /// The word in reports.
    pub fn word(self) -> &'static str {
        match self {
            ContractStatus::Kept => "kept",
            ContractStatus::Changed => "changed",
            ContractStatus::Removed => "removed",
            ContractStatus::Added => "added",
        }
    }
}

/// Whether a projection applies to its capture.
///
/// `NotApplicable` means the host's mechanism does not engage on this capture, so the
/// projection is the host's fallback (figures are shown with the reason): the capture has no
/// tools; `code` without a `program` tool (and `code.gateway=capture`); `shorten` without an
/// expand tool or under `shorten.protected=true`; `defer`/`defer-catalog` below
/// `defer.threshold` or with it at 0. A mechanism that engages and changes nothing (vtcode
/// finding every description already within its limits, `shorten` finding no description over
/// 1024 bytes, `adaptive` keeping every tool) is `Ok`, and so is `disabled`: sending no tools is
/// what it says it does.
///
/// `Refused` means the host rejects the list (a3s's duplicate names or too many tools): there is
/// no projection, so there are no figures.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum ProjectionStatus {
    /// The strategy applied.
    #[default]
    Ok,
    /// Nothing to act on, and why.
    NotApplicable(String),
    /// The host refuses the capture, with its message.
    Refused(String),
}

/// A [`ProjectionStatus`] without its reason: what reports carry (`report --json`'s `status`,
/// serialized as its [`Applies::word`]) and tables and the TUI branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Applies {
    /// The strategy applied.
    Ok,
    /// Nothing to act on: the figures are the host's fallback, no saving.
    NotApplicable,
    /// The host refuses the capture: no figures.
    Refused,
}

impl Applies {
    /// The word in reports: `ok`, `not_applicable`, `refused`.
    pub fn word(self) -> &'static str {
        match self {
            Applies::Ok => "ok",
            Applies::NotApplicable => "not_applicable",
            Applies::Refused => "refused",
        }
    }

    /// The word in tables: `ok`, `n/a`, `refused`.
    pub fn short_word(self) -> &'static str {
        match self {
            Applies::NotApplicable => "n/a",
            other => other.word(),
        }
    }
}

impl ProjectionStatus {
    /// The status without its reason.
    pub fn applies(&self) -> Applies {
        match self {
            ProjectionStatus::Ok => Applies::Ok,
            ProjectionStatus::NotApplicable(_) => Applies::NotApplicable,
            ProjectionStatus::Refused(_) => Applies::Refused,
        }
    }

    /// The word in reports: `ok`, `not_applicable`, `refused`.
    pub fn word(&self) -> &'static str {
        self.applies().word()
    }

    /// The reason, unless `Ok`.
    pub fn reason(&self) -> Option<&str> {
        match self {
            ProjectionStatus::Ok => None,
            ProjectionStatus::NotApplicable(reason) | ProjectionStatus::Refused(reason) => {
                Some(reason)
            }
        }
    }

    /// Whether the host refuses (no figures).
    pub fn is_refused(&self) -> bool {
        matches!(self, ProjectionStatus::Refused(_))
    }
}

/// One sent tool: either an original entry, untouched, or a new value.
#[derive(Debug, Clone, PartialEq)]
pub struct SentTool {
    /// Index of the original entry it comes from (`None`: added by the strategy).
    pub origin: Option<usize>,
    /// The entry as sent, when it differs from the original (or is added).
    pub replaced: Option<Value>,
    /// Why it changed, when it did.
    pub reason: Option<String>,
}

impl SentTool {
    /// An original entry sent as it is.
    pub fn original(index: usize) -> SentTool {
        SentTool {
            origin: Some(index),
            replaced: None,
            reason: None,
        }
    }

    /// An original entry sent with changes.
    pub fn changed(index: usize, entry: Value, reason: impl Into<String>) -> SentTool {
        SentTool {
            origin: Some(index),
            replaced: Some(entry),
            reason: Some(reason.into()),
        }
    }

    /// A tool the strategy adds.
    pub fn added(entry: Value, reason: impl Into<String>) -> SentTool {
        SentTool {
            origin: None,
            replaced: Some(entry),
            reason: Some(reason.into()),
        }
    }

    /// The entry as sent.
    pub fn entry<'a>(&'a self, capture: &'a Capture) -> &'a Value {
        match (&self.replaced, self.origin) {
            (Some(entry), _) => entry,
            (None, Some(index)) => &capture.tools()[index],
            (None, None) => &Value::Null,
        }
    }
}

/// A full entry a `shorten` pointer names, to be stored beside an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// The handle the pointer names (`tool_{h}.log`).
    pub handle: String,
    /// The entry's key-sorted compact JSON.
    pub json: String,
}

/// What a strategy function returns; the pipeline completes it into a [`Projection`].
#[derive(Debug, Clone, Default)]
pub struct Draft {
    /// The tools sent, in order. `None`: the request carries no `tools` key.
    pub sent: Option<Vec<SentTool>>,
    /// Original tools not sent, with their status (`Removed` or `Deferred`) and the reason.
    /// Originals neither sent nor listed here are `Removed` with a generic reason.
    pub dropped: Vec<(usize, Status, String)>,
    /// Explanations (why nothing changed, settings that mattered).
    pub notes: Vec<Note>,
    /// Text added to the request outside `tools` (zero's reminder).
    pub added_text: Option<String>,
    /// Entries a pointer names.
    pub stored: Vec<StoredEntry>,
    /// The request must not carry `tool_choice` (no tools are sent).
    pub drop_tool_choice: bool,
    /// Whether the strategy applied; the pipeline adds its reason as the first note.
    pub status: ProjectionStatus,
    /// What the strategy does to the tool changes the messages carry (inline definitions
    /// rewritten, blocks not sent); empty: sent as they are.
    pub inline: Vec<InlineEdit>,
}

/// One tool change block of the conversation as a projection sends it differently.
#[derive(Debug, Clone, PartialEq)]
pub struct InlineEdit {
    /// The change's index in [`crate::tool_changes::ToolChanges::changes`].
    pub change: usize,
    /// Where its block is ([`crate::tool_changes::Change::block`]).
    pub block: Vec<usize>,
    /// What is sent in its place.
    pub edit: Edit,
}

/// What a projection sends in place of a tool change block.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// The block, with this inline definition in place of its own.
    Definition(Value),
    /// Nothing: the block is not sent.
    Dropped,
}

impl Draft {
    /// Every original tool, sent unchanged and in order.
    pub fn unchanged(capture: &Capture) -> Draft {
        Draft {
            sent: Some((0..capture.tools().len()).map(SentTool::original).collect()),
            ..Draft::default()
        }
    }

    /// The host refuses the capture: nothing is sent, every original is removed with the
    /// host's message, and the projection has no figures.
    pub fn refused(capture: &Capture, message: impl Into<String>) -> Draft {
        let message = message.into();
        Draft {
            sent: None,
            dropped: (0..capture.tools().len())
                .map(|index| (index, Status::Removed, message.clone()))
                .collect(),
            drop_tool_choice: true,
            status: ProjectionStatus::Refused(message),
            ..Draft::default()
        }
    }

    /// Mark the draft as not applicable to the capture, with the reason.
    pub fn not_applicable(&mut self, reason: impl Into<String>) {
        self.status = ProjectionStatus::NotApplicable(reason.into());
    }

    /// Add an explanation.
    pub fn info(&mut self, text: impl Into<String>) {
        self.notes.push(Note::info(text));
    }

    /// Add a warning.
    pub fn warning(&mut self, text: impl Into<String>) {
        self.notes.push(Note::warning(text));
    }
}

/// What happened to one tool, for tables and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    /// The tool's name (its [`crate::tool::label`]).
    pub name: SharedText,
    /// Index in the capture's `tools`, if it came from there.
    pub original: Option<usize>,
    /// Index in the projected `tools`, if sent.
    pub projected: Option<usize>,
    /// What happened.
    pub status: Status,
    /// Why, in a few words (empty for kept tools).
    pub reason: SharedText,
}

/// One strategy applied to one capture.
#[derive(Debug, Clone)]
pub struct Projection {
    /// The strategy.
    pub strategy: Strategy,
    /// Whether it applied; `Refused`: the host rejects the capture and nothing is sent.
    pub status: ProjectionStatus,
    /// Whether a provider would accept the projected request (false when refused, when
    /// `tool_choice` names a tool not sent, when deferred tools have no loader, ...; the
    /// error-level notes say why).
    pub request_valid: bool,
    /// The tools sent, in order; `None` when the request carries no `tools` key.
    pub sent: Option<Vec<SentTool>>,
    /// Per tool: every original in capture order, then the added ones.
    pub outcomes: Vec<ToolOutcome>,
    /// Why the projection looks the way it does, and lints; errors first, then warnings,
    /// then explanations, each level in the order found.
    pub notes: Vec<Note>,
    /// Text added outside `tools` (counted in the projection's cost).
    pub added_text: Option<String>,
    /// Entries `shorten` pointers name.
    pub stored: Vec<StoredEntry>,
    /// The request drops `tool_choice`.
    pub drop_tool_choice: bool,
    /// The conversation's tool change blocks it sends differently ([`Draft::inline`]).
    pub inline: Vec<InlineEdit>,
}

impl Projection {
    /// The host's message when it refuses this capture.
    pub fn refusal(&self) -> Option<&str> {
        match &self.status {
            ProjectionStatus::Refused(message) => Some(message),
            _ => None,
        }
    }

    /// The sent entries, in order (empty when no `tools` key is sent).
    pub fn tools<'a>(&'a self, capture: &'a Capture) -> impl Iterator<Item = &'a Value> + 'a {
        self.sent
            .iter()
            .flatten()
            .map(move |tool| tool.entry(capture))
    }

    /// Number of tools sent.
    pub fn tool_count(&self) -> usize {
        self.sent.as_ref().map_or(0, Vec::len)
    }

    /// The projected `tools` array, or `None` when the request carries no `tools` key.
    pub fn tools_value(&self, capture: &Capture) -> Option<Value> {
        self.sent
            .as_ref()
            .map(|_| Value::Array(self.tools(capture).cloned().collect()))
    }

    /// The outcome of the original tool at `index`.
    pub fn outcome_of(&self, index: usize) -> Option<&ToolOutcome> {
        self.outcomes
            .get(index)
            .filter(|o| o.original == Some(index))
    }
}

/// The projected tools and request as written in the capture's own form: an original entry sent
/// unchanged is its bytes as sent, a rewritten or added one is written in the capture's style
/// ([`crate::written::Style`]) at its depth. A capture given already parsed is written as
/// compact JSON, as before.
impl Projection {
    /// Whether every original entry is sent unchanged and in order, and nothing else.
    fn sends_the_capture(&self, capture: &Capture) -> bool {
        let count = capture.tools().len();
        capture.has_tools_key()
            && self.sent.as_ref().is_some_and(|sent| {
                sent.len() == count
                    && sent
                        .iter()
                        .enumerate()
                        .all(|(i, tool)| tool.replaced.is_none() && tool.origin == Some(i))
            })
    }

    /// Sent entry `tool` as written: its bytes as sent when unchanged, else written in the
    /// capture's style. `None` when the capture's text is not kept.
    pub fn written_entry<'a>(
        &self,
        capture: &'a Capture,
        tool: &'a SentTool,
    ) -> Option<std::borrow::Cow<'a, str>> {
        let written = capture.written()?;
        if tool.replaced.is_none()
            && let Some(text) = tool.origin.and_then(|i| written.entry(i))
        {
            return Some(std::borrow::Cow::Borrowed(text));
        }
        Some(std::borrow::Cow::Owned(
            written
                .style()
                .write(tool.entry(capture), written.depth() + 1),
        ))
    }

    /// The projected tool list as written (`None`: the request carries no tool list key), when
    /// the capture's text is kept: the capture's own list when every entry is sent unchanged,
    /// else the sent entries ([`Projection::written_entry`]) in the list's own whitespace.
    /// Gemini's list holds its declarations inside tool objects, written in the style.
    pub fn written_tools(&self, capture: &Capture) -> Option<Option<String>> {
        let written = capture.written()?;
        let sent = self.sent.as_ref();
        if sent.is_none_or(|sent| sent.is_empty() && !capture.has_tools_key()) {
            return Some(None);
        }
        if self.sends_the_capture(capture)
            && let Some(tools) = written.tools()
        {
            return Some(Some(tools.to_owned()));
        }
        if capture.shape() == crate::capture::Shape::GeminiGenerateContent {
            let list = capture.nest(
                self.sent
                    .iter()
                    .flatten()
                    .map(|tool| (tool.origin, tool.entry(capture))),
            );
            return Some(Some(written.style().write(&list, written.depth())));
        }
        let entries: Vec<std::borrow::Cow<'_, str>> = self
            .sent
            .iter()
            .flatten()
            .filter_map(|tool| self.written_entry(capture, tool))
            .collect();
        Some(Some(
            written.layout().array(entries.iter().map(AsRef::as_ref)),
        ))
    }

    /// Bytes of the projected tool list as written ([`Projection::written_tools`], 0 without a
    /// tool list key) and of each sent entry, from the entries' compact JSON (`compact`, one per
    /// sent entry), reused where the capture's style is serde_json's compact form. `None` when
    /// the capture's text is not kept.
    pub fn written_sizes(
        &self,
        capture: &Capture,
        compact: &[&str],
    ) -> Option<(usize, Vec<usize>)> {
        let written = capture.written()?;
        let canonical = written.style().is_canonical();
        let sizes: Vec<usize> = self
            .sent
            .iter()
            .flatten()
            .zip(compact)
            .map(
                |(tool, text)| match (tool.replaced.is_none(), tool.origin) {
                    (true, Some(i)) => written.entry(i).map_or(text.len(), str::len),
                    _ if canonical => text.len(),
                    _ => written
                        .style()
                        .write(tool.entry(capture), written.depth() + 1)
                        .len(),
                },
            )
            .collect();
        let sent = self.sent.as_ref();
        let total = if sent.is_none_or(|sent| sent.is_empty() && !capture.has_tools_key()) {
            0
        } else if self.sends_the_capture(capture) {
            written.tools().map_or(0, str::len)
        } else if capture.shape() == crate::capture::Shape::GeminiGenerateContent {
            self.written_tools(capture).flatten().map_or(0, |t| t.len())
        } else {
            written.layout().array_len(sizes.iter().copied())
        };
        Some((total, sizes))
    }

    /// The projected request as written, when the capture's text is kept: the capture's own
    /// text with its tool list replaced ([`Projection::written_tools`]) when nothing else in the
    /// request changes, else the request written in the capture's style with that list in it.
    pub fn written_request(&self, capture: &Capture) -> Option<String> {
        let written = capture.written()?;
        let tools = self.written_tools(capture).flatten();
        let place = capture.place();
        let mut body = self.request_body(capture);
        if let Some(tools) = &tools
            && written.tools().is_some()
            && same_frame(capture.body(), &body, place.holder, place.key)
        {
            return written.with_tools(tools);
        }
        let style = written.style();
        let Some(tools) = tools else {
            return Some(style.write(&body, 0));
        };
        // Written with a placeholder where the list goes, which is then put in.
        if let Some(holder) = capture.tools_holder_mut(&mut body, false) {
            holder.insert(place.key.to_owned(), Value::Null);
        }
        let text = style.write(&body, 0);
        let bytes = text.as_bytes();
        let holder = match place.holder {
            Some(key) => crate::written::member(bytes, 0..bytes.len(), key),
            None => Some(0..bytes.len()),
        };
        let Some(range) = holder.and_then(|h| crate::written::member(bytes, h, place.key)) else {
            return Some(text);
        };
        Some(format!(
            "{}{tools}{}",
            &text[..range.start],
            &text[range.end..]
        ))
    }
}

/// Whether two bodies are equal but for the value of their tool list key (which both have).
fn same_frame(a: &Value, b: &Value, holder: Option<&str>, key: &str) -> bool {
    fn same_but(a: &Value, b: &Value, key: &str, inner: Option<&str>) -> bool {
        let (Value::Object(a), Value::Object(b)) = (a, b) else {
            return false;
        };
        a.len() == b.len()
            && a.iter().zip(b).all(|((ka, va), (kb, vb))| {
                ka == kb
                    && match inner {
                        Some(holder) if ka == holder => same_but(va, vb, key, None),
                        None if ka == key => true,
                        _ => va == vb,
                    }
            })
    }
    match holder {
        Some(holder) => same_but(a, b, key, Some(holder)),
        None => same_but(a, b, key, None),
    }
}
