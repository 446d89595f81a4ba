//! The projection pipeline: run a strategy's rules, complete its [`Draft`] into a
//! [`Projection`] (every tool's outcome, the lints common to all strategies, the note order,
//! whether a provider would accept the request), and build the projected request body.
//!
//! It sits above [`crate::strategies`] and [`crate::projection`]; neither imports it.

use serde_json::Value;

use crate::capture::{Capture, Shape};
use crate::projection::{
    Draft, Level, Note, Projection, ProjectionStatus, SharedText, Status, ToolOutcome,
};
use crate::settings::Settings;
use crate::strategies;
use crate::strategy::Strategy;
use crate::tool;
pub use crate::tool::provider_deferred;

/// Project `capture` under `strategy`. Pure: the same inputs give the same bytes.
pub fn project(capture: &Capture, strategy: Strategy, settings: &Settings) -> Projection {
    let draft = strategies::draft(capture, strategy, settings);
    finish(
        capture,
        strategy,
        with_inline(capture, strategy, settings, draft),
    )
}

/// A draft with what its strategy does to the tool changes in the messages
/// ([`strategies::inline`]); a refused one sends nothing.
fn with_inline(
    capture: &Capture,
    strategy: Strategy,
    settings: &Settings,
    mut draft: Draft,
) -> Draft {
    if !draft.status.is_refused() {
        let (edits, mut notes) = strategies::inline::project(capture, strategy, settings);
        draft.inline = edits;
        draft.notes.append(&mut notes);
    }
    draft
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
    finish(
        capture,
        strategy,
        with_inline(capture, strategy, settings, draft),
    )
}

/// Complete a strategy's draft: outcomes, status, lints, note order, request validity.
pub fn finish(capture: &Capture, strategy: Strategy, mut draft: Draft) -> Projection {
    let originals = capture.tools();
    if originals.is_empty()
        && strategy != Strategy::Original
        && draft.status == ProjectionStatus::Ok
        && draft.sent.as_ref().is_none_or(Vec::is_empty)
        && draft.added_text.is_none()
    {
        draft.not_applicable("the capture has no tools: nothing to project");
    }
    let outcomes = outcomes(capture, strategy, &mut draft);

    let mut notes = Vec::new();
    match &draft.status {
        ProjectionStatus::Ok => {}
        ProjectionStatus::Refused(reason) => notes.push(Note::error(reason.clone())),
        ProjectionStatus::NotApplicable(reason) => {
            if !draft.notes.iter().any(|n| &n.text == reason) {
                notes.push(Note::info(reason.clone()));
            }
        }
    }
    notes.append(&mut draft.notes);
    if !draft.status.is_refused() {
        lint(capture, &draft, &outcomes, &mut notes);
        carried_deferral(capture, strategy, &outcomes, &mut notes);
    }
    // Stable: within a level, notes keep the order they were found in.
    notes.sort_by_key(|n| n.level);
    let request_valid =
        !draft.status.is_refused() && !notes.iter().any(|n| n.level == Level::Error);

    Projection {
        strategy,
        status: draft.status,
        request_valid,
        sent: draft.sent,
        outcomes,
        notes,
        added_text: draft.added_text,
        stored: draft.stored,
        drop_tool_choice: draft.drop_tool_choice,
        inline: draft.inline,
    }
}

/// Every original's outcome in capture order, then the added tools.
fn outcomes(capture: &Capture, strategy: Strategy, draft: &mut Draft) -> Vec<ToolOutcome> {
    let originals = capture.tools();
    let labels = capture.labels();
    // Names and reasons are shared: a 100,000-tool capture has a handful of distinct reasons,
    // and every projection names its tools as the capture does.
    let mut reasons = Reasons::default();
    let name_of = |index: usize, entry: &Value| -> SharedText {
        let label = tool::label(entry);
        match labels.get(index) {
            Some(known) if **known == *label => known.clone(),
            _ => SharedText::from(label.as_ref()),
        }
    };
    let original_name = |index: usize| -> SharedText {
        match labels.get(index) {
            Some(label) => label.clone(),
            None => SharedText::from(tool::label(&originals[index]).as_ref()),
        }
    };
    let mut outcomes: Vec<Option<ToolOutcome>> = vec![None; originals.len()];
    let mut added = Vec::new();
    if let Some(sent) = &draft.sent {
        for (position, tool) in sent.iter().enumerate() {
            match tool.origin {
                Some(index) => {
                    let unchanged = tool
                        .replaced
                        .as_ref()
                        .is_none_or(|e| e == &originals[index]);
                    let name = match (&tool.replaced, labels.get(index)) {
                        (None, Some(label)) => label.clone(),
                        _ => name_of(index, tool.entry(capture)),
                    };
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
                            reasons.get("")
                        } else {
                            reasons.get(tool.reason.as_deref().unwrap_or(""))
                        },
                    });
                }
                None => added.push(ToolOutcome {
                    name: SharedText::from(tool::label(tool.entry(capture)).as_ref()),
                    original: None,
                    projected: Some(position),
                    status: Status::Added,
                    reason: reasons.get(tool.reason.as_deref().unwrap_or("")),
                }),
            }
        }
    }
    for (index, status, reason) in std::mem::take(&mut draft.dropped) {
        if index < outcomes.len() && outcomes[index].is_none() {
            outcomes[index] = Some(ToolOutcome {
                name: original_name(index),
                original: Some(index),
                projected: None,
                status,
                reason: reasons.get(&reason),
            });
        }
    }
    let default_reason: SharedText = match &draft.status {
        ProjectionStatus::Refused(message) => SharedText::from(message.as_str()),
        _ => SharedText::from(format!("not sent by {strategy}")),
    };
    let mut outcomes: Vec<ToolOutcome> = outcomes
        .into_iter()
        .enumerate()
        .map(|(index, outcome)| {
            outcome.unwrap_or_else(|| ToolOutcome {
                name: original_name(index),
                original: Some(index),
                projected: None,
                status: Status::Removed,
                reason: default_reason.clone(),
            })
        })
        .collect();
    outcomes.extend(added);
    outcomes
}

/// One shared copy of each distinct reason text.
#[derive(Default)]
struct Reasons(rustc_hash::FxHashMap<String, SharedText>);

impl Reasons {
    fn get(&mut self, text: &str) -> SharedText {
        if let Some(shared) = self.0.get(text) {
            return shared.clone();
        }
        let shared: SharedText = SharedText::from(text);
        self.0.insert(text.to_owned(), shared.clone());
        shared
    }
}

/// Whether an entry is a provider's tool search tool (Anthropic's
/// `tool_search_tool_regex_*`/`tool_search_tool_bm25_*`, a gateway's `*:tool_search`, the
/// Responses `tool_search` type), which reveals provider-deferred entries.
fn is_provider_search(entry: &Value) -> bool {
    let names = [entry.get("type").and_then(Value::as_str), tool::name(entry)];
    names.into_iter().flatten().any(|n| {
        n.starts_with("tool_search_tool_") || n == "tool_search" || n.ends_with(":tool_search")
    })
}

/// The lints every projection reports: prompt-cache breakers and broken host contracts.
fn lint(capture: &Capture, draft: &Draft, outcomes: &[ToolOutcome], notes: &mut Vec<Note>) {
    let originals = capture.tools();
    let sent = draft.sent.as_deref().unwrap_or(&[]);
    let has_marker = |entry: &Value| entry.get("cache_control").is_some();
    // By label, so a hosted tool_choice (`<web_search>`) finds its entry.
    let sends = |name: &str| sent.iter().any(|t| tool::label(t.entry(capture)) == name);

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
                .map(|o| &*o.name)
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
            notes.push(Note::warning(note));
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
        notes.push(Note::warning(
            "tool order changed: a provider's cached prompt prefix ends at the first moved tool",
        ));
    }

    // A forced tool_choice must name a tool that is still sent.
    if let Some(choice) = capture.tool_choice_name()
        && !sends(&choice)
        && !draft.drop_tool_choice
    {
        let how = outcomes
            .iter()
            .find(|o| *o.name == *choice)
            .map_or("absent", |o| o.status.word());
        notes.push(Note::error(format!(
            "tool_choice names `{choice}`, which this projection does not send ({how}): the provider will reject the request"
        )));
    }
    if draft.drop_tool_choice && capture.has_tool_choice() {
        notes.push(Note::info(
            "tool_choice removed: providers reject a tool_choice without tools",
        ));
    }

    // An entry without a usable name: the provider rejects the request that sends it.
    let labels = capture.labels();
    for (index, problem) in capture.problems() {
        if sent
            .iter()
            .any(|t| t.origin == Some(*index) && t.replaced.is_none())
        {
            let label = labels.get(*index).map_or("", |l| l.as_str());
            notes.push(Note::error(format!(
                "{label}: {problem}: the provider rejects a request with this entry (passed through untouched)"
            )));
        }
    }
    carried_notes(capture, draft, notes);

    // A remote MCP server's tools reach the model without appearing in the request.
    for entry in sent.iter().map(|t| t.entry(capture)) {
        if tool::is_hosted_mcp(entry) {
            notes.push(Note::info(format!(
                "`{}` is a remote MCP server: the provider fetches its tools, which toolprism cannot see or count",
                tool::label(entry)
            )));
        }
    }

    // Deferred tools need a loader.
    if outcomes.iter().any(|o| o.status == Status::Deferred)
        && !sends("tool_search")
        && !sends("<tool_search>")
    {
        notes.push(Note::error(
            "tools are deferred but no `tool_search` loader is sent: they cannot be loaded",
        ));
    }

    // Providers reject a tool list that names a function tool twice.
    let mut names: Vec<&str> = sent
        .iter()
        .filter_map(|t| tool::name(t.entry(capture)))
        .filter(|n| !n.starts_with('<'))
        .collect();
    names.sort_unstable();
    if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
        notes.push(Note::error(format!(
            "the tool list names `{}` more than once: providers reject duplicate tool names",
            pair[0]
        )));
    }

    unresolved_references(capture, draft, notes);

    // Provider-side deferral (STRATEGIES.md section 5).
    let deferred = sent
        .iter()
        .filter(|t| provider_deferred(t.entry(capture)))
        .count();
    if deferred > 0 {
        notes.push(Note::info(format!(
            "{deferred} of {} sent entries are `defer_loading: true`: out of the model's context until the provider's tool search returns them (0 context tokens); savings are on context tokens",
            sent.len()
        )));
        if deferred == sent.len() {
            notes.push(Note::error(
                "every sent entry carries `defer_loading: true`: the provider rejects a request whose tools are all deferred (its tool search tool must stay loaded)",
            ));
        } else if !sent.iter().any(|t| {
            // A client's own search tool (Claude Code's `ToolSearch`) answers with tool
            // references.
            is_provider_search(t.entry(capture)) || deferral_kind(t.entry(capture)).is_some()
        }) && !all_offered(capture, sent)
        {
            notes.push(Note::warning(
                "entries carry `defer_loading: true` but no tool search tool is sent: the model cannot reach them unless a custom tool returns tool references",
            ));
        }
    }
}

/// The capture's own notes; what the provider refuses of the tool changes is judged on the
/// messages this projection sends, where it sends them differently (`disabled` sends none).
fn carried_notes(capture: &Capture, draft: &Draft, notes: &mut Vec<Note>) {
    use crate::tool_changes::ToolChanges;
    let projected = (!draft.inline.is_empty())
        .then(|| {
            let mut body = capture.body().clone();
            strategies::inline::apply(&mut body, &draft.inline);
            Capture::from_value(body).ok()
        })
        .flatten()
        .map(|c| c.with_url_model(capture.model().map(str::to_owned)));
    let Some(projected) = projected else {
        notes.extend(capture.notes().iter().cloned());
        return;
    };
    let before = ToolChanges::read(capture).problems(capture, None);
    notes.extend(
        capture
            .notes()
            .iter()
            .filter(|n| !(n.level == Level::Error && before.contains(&n.text)))
            .cloned(),
    );
    let after = ToolChanges::read(&projected).problems(&projected, None);
    notes.extend(after.into_iter().map(Note::error));
}

/// Whether a `tool_addition` in the messages offers every deferred entry sent: the model
/// reaches them without a tool search.
fn all_offered(capture: &Capture, sent: &[crate::projection::SentTool]) -> bool {
    let changes = crate::tool_changes::ToolChanges::read(capture);
    sent.iter()
        .filter(|t| provider_deferred(t.entry(capture)))
        .all(|t| changes.offers(&tool::label(t.entry(capture))))
}

/// A reference in the messages must name a tool the projection still sends (a tool defined
/// inline at or before it resolves whatever `tools` holds); a block the projection does not
/// send names nothing. An MCP reference needs its server's `mcp_toolset` where the capture
/// declares one.
fn unresolved_references(capture: &Capture, draft: &Draft, notes: &mut Vec<Note>) {
    use crate::tool_changes::{Kind, Target, ToolChanges};
    let originals = capture.tools();
    let sent = draft.sent.as_deref().unwrap_or(&[]);
    let changes = ToolChanges::read(capture);
    let toolset = |entry: &Value, server: &str| {
        entry.get("type").and_then(Value::as_str) == Some("mcp_toolset")
            && entry.get("mcp_server_name").and_then(Value::as_str) == Some(server)
    };
    for (index, change) in changes.changes.iter().enumerate() {
        if !strategies::inline::is_sent(&draft.inline, index) {
            continue;
        }
        let defined_before = |matches: &dyn Fn(&Value) -> bool| {
            changes.changes.iter().enumerate().any(|(at, c)| {
                c.message <= change.message
                    && strategies::inline::is_sent(&draft.inline, at)
                    && matches!(&c.target, Target::Inline(d) if matches(d))
            })
        };
        let (name, declared, still_sent) = match &change.target {
            Target::Tool(name) => {
                let is = |e: &Value| tool::name(e) == Some(name.as_str());
                if defined_before(&is) {
                    continue;
                }
                let sends = sent
                    .iter()
                    .any(|t| tool::label(t.entry(capture)) == name.as_str());
                (format!("`{name}`"), originals.iter().any(is), sends)
            }
            Target::McpTool { server, .. } | Target::McpToolset(server) => {
                let is = |e: &Value| toolset(e, server);
                if defined_before(&is) {
                    continue;
                }
                let sends = sent.iter().any(|t| toolset(t.entry(capture), server));
                (
                    format!("`{}` (its server's `mcp_toolset`)", change.target.label()),
                    originals.iter().any(is),
                    sends,
                )
            }
            Target::Inline(_) => continue,
        };
        if declared && !still_sent {
            notes.push(Note::error(format!(
                "message {}: a `{}` names {name}, which this projection does not send (tool_reference_unresolved): the provider rejects the request",
                change.message + 1,
                match change.kind {
                    Kind::Addition => "tool_addition",
                    Kind::Removal => "tool_removal",
                }
            )));
        }
    }
}

/// What in an original entry already defers tools (STRATEGIES.md section 6), in words.
fn deferral_kind(entry: &Value) -> Option<String> {
    let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
    if kind.starts_with("tool_search_tool_regex_") || kind.starts_with("tool_search_tool_bm25_") {
        return Some(format!("Anthropic's tool search `{kind}`"));
    }
    if kind == "tool_search" && tool::name(entry).is_none() {
        let execution = entry
            .get("execution")
            .and_then(Value::as_str)
            .unwrap_or("server");
        return Some(format!("a Responses `tool_search` ({execution}-executed)"));
    }
    match tool::name(entry) {
        Some("ToolSearch") => Some("Claude Code's `ToolSearch`".to_owned()),
        Some("DeferredToolPlaceholder") => {
            Some("Claude Code's `DeferredToolPlaceholder`".to_owned())
        }
        _ => None,
    }
}

/// Name the deferral a capture already carries (on `original`, the capture as sent: its
/// figures are what the model has in context, not every definition a host holds), and what
/// any other projection changes of it.
fn carried_deferral(
    capture: &Capture,
    strategy: Strategy,
    outcomes: &[ToolOutcome],
    notes: &mut Vec<Note>,
) {
    let originals = capture.tools();
    let marked: Vec<usize> = (0..originals.len())
        .filter(|&i| provider_deferred(&originals[i]))
        .collect();
    let tools: Vec<(usize, String)> = (0..originals.len())
        .filter_map(|i| deferral_kind(&originals[i]).map(|kind| (i, kind)))
        .collect();
    if marked.is_empty() && tools.is_empty() {
        return;
    }
    let mut found: Vec<String> = tools.iter().map(|(_, kind)| kind.clone()).collect();
    if !marked.is_empty() {
        found.push(format!("{} `defer_loading: true` entries", marked.len()));
    }
    if strategy == Strategy::Original {
        notes.push(Note::info(format!(
            "the capture already defers tools: {}; its figures are what the model has in context (tools a host left out for its search are not in the capture)",
            found.join(", ")
        )));
        return;
    }
    let status_of = |index: usize| outcomes.get(index).map_or(Status::Removed, |o| o.status);
    let mut changes = Vec::new();
    if !marked.is_empty() {
        let mut counts: Vec<(Status, usize)> = Vec::new();
        for &index in &marked {
            let status = status_of(index);
            match counts.iter_mut().find(|(s, _)| *s == status) {
                Some((_, n)) => *n += 1,
                None => counts.push((status, 1)),
            }
        }
        if counts.iter().any(|(s, _)| *s != Status::Kept) {
            let parts: Vec<String> = counts
                .iter()
                .map(|(status, n)| match status {
                    Status::Deferred => format!("{n} deferred again"),
                    other => format!("{n} {}", other.word()),
                })
                .collect();
            changes.push(format!(
                "of the {} already-deferred entries {}",
                marked.len(),
                parts.join(", ")
            ));
        }
    }
    for (index, kind) in &tools {
        let status = status_of(*index);
        if status != Status::Kept {
            changes.push(format!("{kind} {}", status.word()));
        }
    }
    let added_search = outcomes
        .iter()
        .filter(|o| o.status == Status::Added)
        .find(|o| matches!(&*o.name, "tool_search" | "<tool_search>"));
    if let Some(added) = added_search {
        changes.push(format!("its own `{}` added beside them", added.name));
    }
    if !changes.is_empty() {
        notes.push(Note::info(format!(
            "on top of the capture's deferral ({}), this projection: {}",
            found.join(", "),
            changes.join("; ")
        )));
    }
}

impl Projection {
    /// The projected request body, in the capture's own shape. A refused projection has no
    /// request: callers check [`Projection::refusal`] before they show or write one. To print
    /// or write it, [`Projection::request_json`] gives the same bytes without the copy.
    pub fn request_body(&self, capture: &Capture) -> Value {
        let (mut body, with_tools) = self.request_frame(capture);
        if with_tools && let Some(holder) = capture.tools_holder_mut(&mut body, false) {
            holder.insert(
                capture.place().key.to_owned(),
                Value::Array(self.sent_list(capture)),
            );
        }
        body
    }

    /// The sent entries as the request's list holds them: Gemini's declarations back in their
    /// tool objects ([`Capture::nest`]), every other shape's entries as they are.
    fn sent_list(&self, capture: &Capture) -> Vec<Value> {
        capture.nest(
            self.sent
                .iter()
                .flatten()
                .map(|tool| (tool.origin, tool.entry(capture))),
        )
    }

    /// [`Projection::request_body`] as JSON text, compact or pretty (two-space indent), built
    /// without copying a single tool entry: the sent entries are written from where they
    /// are, so exporting 100,000 tools costs the text, not two more trees.
    pub fn request_json(&self, capture: &Capture, pretty: bool) -> String {
        if capture.shape() == Shape::GeminiGenerateContent {
            // Regrouping builds new tool objects; Gemini lists are small.
            return json_text(&self.request_body(capture), pretty);
        }
        let (frame, with_tools) = self.request_frame(capture);
        let tools: Vec<&Value> = self.tools(capture).collect();
        let body = FramedBody {
            frame: &frame,
            holder: capture.place().holder,
            key: capture.place().key,
            tools: with_tools.then_some(tools.as_slice()),
        };
        json_text(&body, pretty)
    }

    /// The projected `tools` array as JSON text (`[]` when no `tools` key is sent), without
    /// copying its entries. Gemini's is the request's `tools` value (declarations inside their
    /// tool objects), so it can be pasted back.
    pub fn tools_json(&self, capture: &Capture, pretty: bool) -> String {
        if capture.shape() == Shape::GeminiGenerateContent {
            return json_text(&self.sent_list(capture), pretty);
        }
        let tools: Vec<&Value> = self.tools(capture).collect();
        json_text(&tools, pretty)
    }

    /// The request body with everything but the tools projected, and whether its tool list key
    /// (holding a placeholder, in its place) is to be filled with the sent entries.
    fn request_frame(&self, capture: &Capture) -> (Value, bool) {
        let place = capture.place();
        let mut body = body_without_tools(capture.body(), place.holder, place.key);
        let mut with_tools = false;
        let gains = matches!(&self.sent, Some(sent) if !sent.is_empty());
        if let Some(holder) = capture.tools_holder_mut(&mut body, gains) {
            match &self.sent {
                // A capture without a `tools` key gains none from a projection that sends none.
                Some(sent) if sent.is_empty() && !capture.has_tools_key() => {}
                Some(_) => {
                    holder.insert(place.key.to_owned(), Value::Null);
                    with_tools = true;
                }
                None => {
                    holder.shift_remove(place.key);
                }
            }
        }
        if self.drop_tool_choice {
            capture.strip_tool_choice(&mut body);
        }
        // Converse requires `toolConfig.tools` whenever `toolConfig` is sent.
        if capture.shape() == Shape::BedrockConverse
            && let Some(object) = body.as_object_mut()
            && object
                .get("toolConfig")
                .is_some_and(|config| config.get("tools").is_none())
        {
            object.shift_remove("toolConfig");
        }
        strategies::inline::apply(&mut body, &self.inline);
        if let Some(text) = &self.added_text
            && capture.shape() != Shape::McpToolsList
        {
            if self.strategy == Strategy::Codex {
                strategies::codex::place_fragment(&mut body, text);
            } else {
                strategies::zero::place_reminder(capture.shape(), &mut body, text);
            }
        }
        (body, with_tools)
    }
}

/// A copy of a capture's body whose tool list value (`key`, in the object that holds it) is
/// `null`.
fn body_without_tools(body: &Value, holder: Option<&str>, list_key: &str) -> Value {
    let without = |object: &serde_json::Map<String, Value>| -> Value {
        Value::Object(
            object
                .iter()
                .map(|(key, value)| {
                    let value = if key == list_key {
                        Value::Null
                    } else {
                        value.clone()
                    };
                    (key.clone(), value)
                })
                .collect(),
        )
    };
    match (body, holder) {
        (Value::Object(object), Some(holder)) => Value::Object(
            object
                .iter()
                .map(|(key, value)| match value {
                    Value::Object(inner) if key == holder => (key.clone(), without(inner)),
                    _ => (key.clone(), value.clone()),
                })
                .collect(),
        ),
        (Value::Object(object), None) => without(object),
        (other, _) => other.clone(),
    }
}

/// A request frame serialized with the sent entries in its tool list key: the bytes of the
/// frame with the entries put in.
struct FramedBody<'a> {
    frame: &'a Value,
    /// The body key of the object holding the list (`result`, `toolConfig`), if not the body.
    holder: Option<&'a str>,
    /// The list's key (`tools`, `functions`).
    key: &'a str,
    tools: Option<&'a [&'a Value]>,
}

impl serde::Serialize for FramedBody<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(tools) = self.tools else {
            return self.frame.serialize(serializer);
        };
        match (self.frame, self.holder) {
            (Value::Object(object), Some(holder)) => {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, value) in object {
                    if key == holder {
                        map.serialize_entry(
                            key,
                            &ToolsHolder {
                                holder: value,
                                key: self.key,
                                tools,
                            },
                        )?;
                    } else {
                        map.serialize_entry(key, value)?;
                    }
                }
                map.end()
            }
            _ => ToolsHolder {
                holder: self.frame,
                key: self.key,
                tools,
            }
            .serialize(serializer),
        }
    }
}

/// The object holding the tool list, serialized with the entries in place of its placeholder.
struct ToolsHolder<'a> {
    holder: &'a Value,
    key: &'a str,
    tools: &'a [&'a Value],
}

impl serde::Serialize for ToolsHolder<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Value::Object(object) = self.holder else {
            return self.holder.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(object.len()))?;
        for (key, value) in object {
            if key == self.key {
                map.serialize_entry(key, self.tools)?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// JSON text of a value made of JSON values, compact or pretty (two-space indent).
fn json_text<T: serde::Serialize + ?Sized>(value: &T, pretty: bool) -> String {
    // Cannot fail: every key is a string and every leaf a JSON value.
    let text = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    };
    text.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(json: &str) -> Capture {
        Capture::from_bytes(json.as_bytes()).unwrap()
    }

    fn tools(names: &[&str]) -> String {
        let tools: Vec<String> = names
            .iter()
            .map(|n| format!(r#"{{"name":"{n}","description":"Does {n}.","input_schema":{{"type":"object"}}}}"#))
            .collect();
        format!(
            r#"{{"model":"m","messages":[{{"role":"user","content":"work"}}],"tools":[{}]}}"#,
            tools.join(",")
        )
    }

    fn status(json: &str, strategy: Strategy, settings: &Settings) -> ProjectionStatus {
        project(&capture(json), strategy, settings).status
    }

    #[test]
    fn each_strategy_says_when_it_has_nothing_to_act_on() {
        let defaults = Settings::default();
        let plain = tools(&["b", "a"]);
        assert_eq!(
            status(&plain, Strategy::Code, &defaults),
            ProjectionStatus::NotApplicable(
                "the capture has no `program` tool, so a3s presents no tools (set code.gateway=inject to add a3s's own gateway)".to_owned()
            )
        );
        let mut inject = Settings::default();
        inject.apply("code.gateway=inject").unwrap();
        assert_eq!(
            status(&plain, Strategy::Code, &inject),
            ProjectionStatus::Ok
        );
        assert_eq!(
            status(&plain, Strategy::Defer, &defaults),
            ProjectionStatus::NotApplicable(
                "deferring inactive: 0 of 2 tools eligible (MCP tools by mcp.prefixes and zero's own deferred tools), below defer.threshold=3; every tool sent in full, sorted by name".to_owned()
            )
        );
        assert!(matches!(
            status(&plain, Strategy::Shorten, &defaults),
            ProjectionStatus::NotApplicable(reason) if reason.starts_with("no expand tool in the capture")
        ));
        // Engaged mechanisms that change nothing, and `disabled`, applied.
        for strategy in [
            Strategy::Original,
            Strategy::Full,
            Strategy::Direct,
            Strategy::Adaptive,
            Strategy::Disabled,
        ] {
            assert_eq!(
                status(&plain, strategy, &defaults),
                ProjectionStatus::Ok,
                "{strategy}"
            );
        }
        let empty = r#"{"model":"m","messages":[],"tools":[]}"#;
        assert_eq!(
            status(empty, Strategy::Original, &defaults),
            ProjectionStatus::Ok
        );
        // `code` gives its own reason (no `program` tool); every other one the engine's.
        for strategy in Strategy::ALL
            .into_iter()
            .filter(|&s| s != Strategy::Original && s != Strategy::Code)
        {
            let projection = project(&capture(empty), strategy, &defaults);
            assert_eq!(
                projection.status,
                ProjectionStatus::NotApplicable(
                    "the capture has no tools: nothing to project".to_owned()
                ),
                "{strategy}"
            );
            assert_eq!(
                projection.notes[0],
                Note::info("the capture has no tools: nothing to project"),
                "{strategy}: the reason is a note"
            );
        }
    }

    #[test]
    fn a_refusal_leads_the_notes_and_invalidates_the_request() {
        let projection = project(
            &capture(&tools(&["a", "a"])),
            Strategy::Direct,
            &Settings::default(),
        );
        let message = "a3s code refuses this tool list: the name `a` appears 2 times (tool names must be unique)";
        assert_eq!(projection.refusal(), Some(message));
        assert_eq!(projection.notes, vec![Note::error(message)]);
        assert!(!projection.request_valid);
        assert!(projection.sent.is_none());
    }

    #[test]
    fn errors_come_first_then_warnings_then_explanations() {
        // Reordered (warning) with a tool_choice naming a tool a3s sorts past (kept: no error),
        // then one naming a removed tool (error).
        let mut body: Value = serde_json::from_str(&tools(&["b", "a"])).unwrap();
        body["tool_choice"] = serde_json::json!({"type": "tool", "name": "gone"});
        let projection = project(
            &capture(&body.to_string()),
            Strategy::Direct,
            &Settings::default(),
        );
        let levels: Vec<Level> = projection.notes.iter().map(|n| n.level).collect();
        assert_eq!(levels, [Level::Error, Level::Warning]);
        assert_eq!(
            projection.notes[0].text,
            "tool_choice names `gone`, which this projection does not send (absent): the provider will reject the request"
        );
        assert!(!projection.request_valid);
    }

    #[test]
    fn an_mcp_reference_needs_its_servers_toolset_sent() {
        let body = r#"{"model":"claude-opus-4-8","messages":[{"role":"user","content":"go"},{"role":"system","content":[{"type":"tool_addition","tool":{"type":"mcp_tool_reference","server_name":"gh","name":"create_issue"}}]}],"tools":[{"name":"a","input_schema":{}},{"type":"mcp_toolset","mcp_server_name":"gh"}]}"#;
        let capture = capture(body);
        let kept = finish(&capture, Strategy::Original, Draft::unchanged(&capture));
        assert!(kept.request_valid, "{:?}", kept.notes);
        // A list without the toolset: the reference names a server no longer declared.
        let draft = Draft {
            sent: Some(vec![crate::projection::SentTool::original(0)]),
            ..Draft::default()
        };
        let dropped = finish(&capture, Strategy::Direct, draft);
        assert!(!dropped.request_valid);
        assert_eq!(
            dropped.notes[0],
            Note::error(
                "message 2: a `tool_addition` names `gh/create_issue` (its server's `mcp_toolset`), which this projection does not send (tool_reference_unresolved): the provider rejects the request"
            )
        );
        // A dropped block names nothing.
        let draft = Draft {
            sent: Some(vec![crate::projection::SentTool::original(0)]),
            inline: vec![crate::projection::InlineEdit {
                change: 0,
                block: vec![1, 0],
                edit: crate::projection::Edit::Dropped,
            }],
            ..Draft::default()
        };
        assert!(finish(&capture, Strategy::Direct, draft).request_valid);
    }

    #[test]
    fn a_list_of_only_provider_deferred_entries_is_rejected() {
        let body = r#"{"model":"m","messages":[],"tools":[{"name":"a","input_schema":{},"defer_loading":true}]}"#;
        let projection = project(&capture(body), Strategy::Original, &Settings::default());
        assert!(!projection.request_valid);
        assert_eq!(
            projection.notes[0],
            Note::error(
                "every sent entry carries `defer_loading: true`: the provider rejects a request whose tools are all deferred (its tool search tool must stay loaded)"
            )
        );
        let body = r#"{"model":"m","messages":[],"tools":[{"name":"a","input_schema":{}},{"name":"b","input_schema":{},"defer_loading":true}]}"#;
        let projection = project(&capture(body), Strategy::Original, &Settings::default());
        assert!(projection.request_valid, "a warning, not an error");
        assert_eq!(
            projection.notes[0],
            Note::warning(
                "entries carry `defer_loading: true` but no tool search tool is sent: the model cannot reach them unless a custom tool returns tool references"
            )
        );
    }
}
