//! What a strategy makes of a capture: the tools sent, what happened to each original tool, the
//! text added outside the tool list, and the notes that explain it.
//!
//! Strategies (in [`crate::strategies`]) produce a [`Draft`]; [`project`] turns it into a
//! [`Projection`], deriving every tool's status and the lints common to all strategies, so no
//! strategy has to repeat them.

use serde_json::Value;

use crate::capture::{Capture, Shape};
use crate::settings::Settings;
use crate::strategies;
use crate::strategy::Strategy;
use crate::tool;

/// What happened to one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// allows only the four words; see [`Status::contract_word`]).
    pub fn word(self) -> &'static str {
        match self {
            Status::Kept => "kept",
            Status::Changed => "changed",
            Status::Removed => "removed",
            Status::Deferred => "deferred",
            Status::Added => "added",
        }
    }

    /// The word in `report --json`, which knows `changed|kept|removed|added`.
    pub fn contract_word(self) -> &'static str {
        match self {
            Status::Deferred => "removed",
            other => other.word(),
        }
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

/// What a strategy function returns; [`project`] completes it.
#[derive(Debug, Clone, Default)]
pub struct Draft {
    /// The tools sent, in order. `None`: the request carries no `tools` key.
    pub sent: Option<Vec<SentTool>>,
    /// Original tools not sent, with their status (`Removed` or `Deferred`) and the reason.
    /// Originals neither sent nor listed here are `Removed` with a generic reason.
    pub dropped: Vec<(usize, Status, String)>,
    /// Explanations (why nothing changed, settings that mattered).
    pub notes: Vec<String>,
    /// Text added to the request outside `tools` (zero's reminder).
    pub added_text: Option<String>,
    /// Entries a pointer names.
    pub stored: Vec<StoredEntry>,
    /// The request must not carry `tool_choice` (no tools are sent).
    pub drop_tool_choice: bool,
    /// The host refuses the capture (a3s's errors): no projection, this message instead.
    pub error: Option<String>,
}

impl Draft {
    /// Every original tool, sent unchanged and in order.
    pub fn unchanged(capture: &Capture) -> Draft {
        Draft {
            sent: Some((0..capture.tools().len()).map(SentTool::original).collect()),
            ..Draft::default()
        }
    }
}

/// What happened to one tool, for tables and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    /// The tool's name.
    pub name: String,
    /// Index in the capture's `tools`, if it came from there.
    pub original: Option<usize>,
    /// Index in the projected `tools`, if sent.
    pub projected: Option<usize>,
    /// What happened.
    pub status: Status,
    /// Why, in a few words (empty for kept tools).
    pub reason: String,
}

/// One strategy applied to one capture.
#[derive(Debug, Clone)]
pub struct Projection {
    /// The strategy.
    pub strategy: Strategy,
    /// The tools sent, in order; `None` when the request carries no `tools` key.
    pub sent: Option<Vec<SentTool>>,
    /// Per tool: every original in capture order, then the added ones.
    pub outcomes: Vec<ToolOutcome>,
    /// Why the projection looks the way it does, and lints.
    pub notes: Vec<String>,
    /// Text added outside `tools` (counted in the projection's cost).
    pub added_text: Option<String>,
    /// Entries `shorten` pointers name.
    pub stored: Vec<StoredEntry>,
    /// The request drops `tool_choice`.
    pub drop_tool_choice: bool,
    /// The host refuses this capture under this strategy.
    pub error: Option<String>,
}

/// Project `capture` under `strategy`. Pure: the same inputs give the same bytes.
pub fn project(capture: &Capture, strategy: Strategy, settings: &Settings) -> Projection {
    let draft = strategies::draft(capture, strategy, settings);
    finish(capture, strategy, draft)
}

/// [`project`] at a later turn of a session: `loaded` names the tools the model loaded through
/// `tool_search` earlier in the run, which `defer` and `defer-catalog` send in full (zero's
/// per-run loaded set); the other strategies ignore it.
pub fn project_loaded(
    capture: &Capture,
    strategy: Strategy,
    settings: &Settings,
    loaded: &std::collections::BTreeSet<String>,
) -> Projection {
    use crate::strategies::zero;
    let draft = match strategy {
        Strategy::Defer => zero::project_loaded(capture, zero::Form::Reminder, settings, loaded),
        Strategy::DeferCatalog => {
            zero::project_loaded(capture, zero::Form::Catalog, settings, loaded)
        }
        other => strategies::draft(capture, other, settings),
    };
    finish(capture, strategy, draft)
}

fn finish(capture: &Capture, strategy: Strategy, mut draft: Draft) -> Projection {
    let originals = capture.tools();
    let mut outcomes: Vec<Option<ToolOutcome>> = vec![None; originals.len()];
    let mut added = Vec::new();
    if let Some(sent) = &draft.sent {
        for (position, tool) in sent.iter().enumerate() {
            let entry = tool.entry(capture);
            let name = tool::name(entry).unwrap_or("").to_owned();
            match tool.origin {
                Some(index) => {
                    let unchanged = tool
                        .replaced
                        .as_ref()
                        .is_none_or(|e| e == &originals[index]);
                    outcomes[index] = Some(ToolOutcome {
                        name,
                        original: Some(index),
                        projected: Some(position),
                        status: if unchanged {
                            Status::Kept
                        } else {
                            Status::Changed
                        },
                        reason: if unchanged {
                            String::new()
                        } else {
                            tool.reason.clone().unwrap_or_default()
                        },
                    });
                }
                None => added.push(ToolOutcome {
                    name,
                    original: None,
                    projected: Some(position),
                    status: Status::Added,
                    reason: tool.reason.clone().unwrap_or_default(),
                }),
            }
        }
    }
    for (index, status, reason) in std::mem::take(&mut draft.dropped) {
        if index < outcomes.len() && outcomes[index].is_none() {
            outcomes[index] = Some(ToolOutcome {
                name: tool::name(&originals[index]).unwrap_or("").to_owned(),
                original: Some(index),
                projected: None,
                status,
                reason,
            });
        }
    }
    let default_reason = draft
        .error
        .clone()
        .unwrap_or_else(|| format!("not sent by {strategy}"));
    let mut outcomes: Vec<ToolOutcome> = outcomes
        .into_iter()
        .enumerate()
        .map(|(index, outcome)| {
            outcome.unwrap_or_else(|| ToolOutcome {
                name: tool::name(&originals[index]).unwrap_or("").to_owned(),
                original: Some(index),
                projected: None,
                status: Status::Removed,
                reason: default_reason.clone(),
            })
        })
        .collect();
    outcomes.extend(added);

    let mut notes = Vec::new();
    if let Some(error) = &draft.error {
        notes.push(error.clone());
    }
    if originals.is_empty() && strategy != Strategy::Original {
        notes.push("the capture has no tools: nothing to project".to_owned());
    }
    notes.append(&mut draft.notes);
    lint(capture, &draft, &outcomes, &mut notes);

    Projection {
        strategy,
        sent: draft.sent,
        outcomes,
        notes,
        added_text: draft.added_text,
        stored: draft.stored,
        drop_tool_choice: draft.drop_tool_choice,
        error: draft.error,
    }
}

/// The lints every projection reports: prompt-cache breakers and broken host contracts.
fn lint(capture: &Capture, draft: &Draft, outcomes: &[ToolOutcome], notes: &mut Vec<String>) {
    let originals = capture.tools();
    let sent = draft.sent.as_deref().unwrap_or(&[]);
    let has_marker = |entry: &Value| entry.get("cache_control").is_some();

    // cache_control: the marker must stay on the last tool for the cached prefix to hold.
    if originals.iter().any(has_marker) {
        let last_sent_marked = sent.last().is_some_and(|t| has_marker(t.entry(capture)));
        let last_original_marked = originals.last().is_some_and(has_marker);
        if last_original_marked && !last_sent_marked {
            let dropped: Vec<&str> = outcomes
                .iter()
                .filter(|o| {
                    o.projected.is_none() && o.original.is_some_and(|i| has_marker(&originals[i]))
                })
                .map(|o| o.name.as_str())
                .collect();
            let mut note = "cache_control marker no longer sits on the last tool".to_owned();
            if !dropped.is_empty() {
                note.push_str(&format!(" (dropped with {})", dropped.join(", ")));
            } else if let Some(marked) = sent.iter().position(|t| has_marker(t.entry(capture))) {
                note.push_str(&format!(
                    " (now on tool {} of {}: the tools after it are outside the cached prefix)",
                    marked + 1,
                    sent.len()
                ));
            }
            notes.push(note);
        }
    }

    // Reordering breaks a provider's prompt cache at the first moved tool.
    let mut last = None;
    let reordered = sent.iter().filter_map(|t| t.origin).any(|index| {
        let out_of_order = last.is_some_and(|l| index < l);
        last = Some(index);
        out_of_order
    });
    if reordered {
        notes.push(
            "tool order changed: a provider's cached prompt prefix ends at the first moved tool"
                .to_owned(),
        );
    }

    // A forced tool_choice must name a tool that is still sent.
    if let Some(choice) = capture.tool_choice_name() {
        let still_sent = sent
            .iter()
            .any(|t| tool::name(t.entry(capture)) == Some(choice));
        if !still_sent && !draft.drop_tool_choice {
            let how = outcomes
                .iter()
                .find(|o| o.name == choice)
                .map(|o| o.status.word())
                .unwrap_or("absent");
            notes.push(format!(
                "tool_choice names `{choice}`, which this projection does not send ({how}): the provider will reject the request"
            ));
        }
    }
    if draft.drop_tool_choice && capture.body().get("tool_choice").is_some() {
        notes.push("tool_choice removed: providers reject a tool_choice without tools".to_owned());
    }

    // Deferred tools need a loader.
    if outcomes.iter().any(|o| o.status == Status::Deferred)
        && !sent
            .iter()
            .any(|t| tool::name(t.entry(capture)) == Some("tool_search"))
    {
        notes.push(
            "tools are deferred but no `tool_search` loader is sent: they cannot be loaded"
                .to_owned(),
        );
    }
}

impl Projection {
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

    /// The projected request body, in the capture's own shape.
    pub fn request_body(&self, capture: &Capture) -> Value {
        let mut body = capture.body().clone();
        if let Some(holder) = Capture::tools_holder_mut(capture.is_wrapped(), &mut body) {
            match self.tools_value(capture) {
                // A capture without a `tools` key gains none from a projection that sends none.
                Some(Value::Array(tools)) if tools.is_empty() && !capture.has_tools_key() => {}
                Some(tools) => {
                    holder.insert("tools".to_owned(), tools);
                }
                None => {
                    holder.shift_remove("tools");
                }
            }
            if self.drop_tool_choice {
                holder.shift_remove("tool_choice");
            }
        }
        if let Some(text) = &self.added_text
            && capture.shape() != Shape::McpToolsList
        {
            strategies::zero::place_reminder(capture.shape(), &mut body, text);
        }
        body
    }

    /// The outcome of the original tool at `index`.
    pub fn outcome_of(&self, index: usize) -> Option<&ToolOutcome> {
        self.outcomes
            .get(index)
            .filter(|o| o.original == Some(index))
    }
}
