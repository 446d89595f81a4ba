//! lean-ctx's expand-pointer shortening: `shorten` (section 3).
//!
//! lean-ctx's proxy replaces a tool description over 1024 bytes by a short summary plus a
//! pointer, `[lean-ctx: description shortened — full definition: ctx_expand(id="tool_….log")]`,
//! and stores the whole original entry under that handle so the model can fetch it with the
//! expand tool. Without an expand tool in the request the pointer could not be followed, so
//! nothing changes.

use rayon::prelude::*;
use serde_json::{Map, Value, json};

use crate::capture::Capture;
use crate::projection::{Draft, SentTool, StoredEntry};
use crate::setting_key::{self, SettingKey, ValueKind};
use crate::settings::Settings;
use crate::strategy::Strategy;
use crate::tool;

/// The keys lean-ctx's rules read, in `--set` order.
pub const SETTINGS: &[SettingKey] = &[
    SettingKey {
        key: "shorten.expand_tool",
        help: "append a lean-ctx expand tool of this name (empty: none)",
        kind: ValueKind::Text,
        affects: &[Strategy::Shorten],
        first_for: &[Strategy::Shorten],
        read: |s| Some(s.shorten_expand_tool.clone().unwrap_or_default()),
        write: |s, v| {
            let name = v.trim();
            s.shorten_expand_tool = if name.is_empty() {
                None
            } else if is_expand_tool_name(name) {
                Some(name.to_owned())
            } else {
                return Err(
                    "a name whose bare part is ctx_expand, at most 128 bytes of [A-Za-z0-9_.:/-]",
                );
            };
            Ok(())
        },
    },
    SettingKey {
        key: "shorten.protected",
        help: "true: an active lean-ctx policy pack (no change)",
        kind: ValueKind::Choice(&["false", "true"]),
        affects: &[Strategy::Shorten],
        first_for: &[],
        read: |s| Some(s.shorten_protected.to_string()),
        write: |s, v| {
            s.shorten_protected = setting_key::flag(v)?;
            Ok(())
        },
    },
];

/// The bare name lean-ctx's expand tool has, whatever the client's namespace.
pub const EXPAND_BARE_NAME: &str = "ctx_expand";
/// Longest expand-tool name accepted, in bytes.
pub const MAX_EXPAND_NAME_BYTES: usize = 128;
/// Descriptions longer than this many bytes are shortened (exactly this many stay).
pub const DESCRIPTION_LIMIT_BYTES: usize = 1024;
/// Bytes a summary may keep before it is cut.
pub const SUMMARY_BYTES: usize = 320;
/// A sentence end at byte index `i` ends the summary only when `i + 1` reaches this (about a
/// third of the window: shorter cuts would leave too little of the text).
pub const MIN_SENTENCE_CUT: usize = 106;
/// Largest stored entry (key-sorted compact JSON), in bytes: lean-ctx's store refuses more.
pub const MAX_STORED_BYTES: usize = 4 * 1024 * 1024;

/// The description of the expand tool `shorten.expand_tool` appends.
const EXPAND_DESCRIPTION: &str =
    "Fetch the full text a lean-ctx pointer stands for: pass the id shown in the pointer.";

/// The part of a tool name after its client's namespace: after the last `__`, then after the
/// last `:`, `/` or `.` (`mcp__lean-ctx__ctx_expand` and `lean-ctx:ctx_expand` give
/// `ctx_expand`).
pub fn bare_name(name: &str) -> &str {
    let after_namespace = name.rsplit("__").next().unwrap_or(name);
    after_namespace
        .rsplit([':', '/', '.'])
        .next()
        .unwrap_or(after_namespace)
}

/// Whether `name` qualifies as lean-ctx's expand tool: its bare name is exactly `ctx_expand`
/// and the whole name is at most 128 bytes of `[A-Za-z0-9_.:/-]`.
pub fn is_expand_tool_name(name: &str) -> bool {
    name.len() <= MAX_EXPAND_NAME_BYTES
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'/' | b'-'))
        && bare_name(name) == EXPAND_BARE_NAME
}

/// A copy of `value` whose objects list their keys in byte order, as lean-ctx's key-ordered
/// JSON maps do. Arrays keep their order.
pub fn key_sorted(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            // `String`'s order is the byte order of its UTF-8, the order of a `BTreeMap<String, _>`.
            keys.sort();
            let mut sorted = Map::with_capacity(object.len());
            for key in keys {
                sorted.insert(key.clone(), key_sorted(&object[key.as_str()]));
            }
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(key_sorted).collect()),
        other => other.clone(),
    }
}

/// The key-sorted compact JSON of a whole tool entry: what the handle hashes and the store keeps.
pub fn stored_json(entry: &Value) -> String {
    tool::compact(&key_sorted(entry))
}

/// The handle of a stored entry: `tool_{h}.log`, `h` = the first 16 lowercase hex chars of the
/// BLAKE3 hash of `json`.
pub fn handle(json: &str) -> String {
    let hex = blake3::hash(json.as_bytes()).to_hex();
    format!("tool_{}.log", &hex.as_str()[..16])
}

/// The pointer that replaces the rest of a description.
pub fn pointer(expand_tool: &str, handle: &str) -> String {
    format!(
        "[lean-ctx: description shortened \u{2014} full definition: {expand_tool}(id=\"{handle}\")]"
    )
}

/// The summary lean-ctx keeps of a description: its first paragraph, trimmed; when over 320
/// bytes, cut at the last sentence end (if not too early) or the last whitespace within the
/// first 320 bytes, and marked with ` …`.
pub fn summary(description: &str) -> String {
    let text = description.trim_start();
    let text = match text.find("\n\n") {
        Some(end) => &text[..end],
        None => text,
    };
    let text = text.trim_end();
    if text.len() <= SUMMARY_BYTES {
        return text.to_owned();
    }
    let window = &text[..text.floor_char_boundary(SUMMARY_BYTES)];
    let cut = match window.rfind(". ") {
        Some(dot) if dot + 1 >= MIN_SENTENCE_CUT => dot + 1,
        _ => window.rfind(char::is_whitespace).unwrap_or(window.len()),
    };
    format!("{} \u{2026}", window[..cut].trim_end())
}

/// `summary + "\n" + pointer` for `description`, or `None` when that is not strictly shorter
/// in bytes. (The 1024-byte threshold is applied by [`project`], not here.)
pub fn shortened_description(description: &str, expand_tool: &str, handle: &str) -> Option<String> {
    let text = format!("{}\n{}", summary(description), pointer(expand_tool, handle));
    (text.len() < description.len()).then_some(text)
}

/// The expand tool `shorten.expand_tool` appends, in the capture's shape.
fn expand_tool_entry(capture: &Capture, name: &str) -> Value {
    let schema = json!({
        "type": "object",
        "properties": {
            "id": {
                "type": "string",
                "description": "The id a lean-ctx pointer names, e.g. tool_0123456789abcdef.log"
            }
        },
        "required": ["id"]
    });
    capture.make_tool(name, EXPAND_DESCRIPTION, schema)
}

/// Project a capture under `shorten`.
#[allow(
    clippy::too_many_lines,
    reason = "lean-ctx's rules, step by step in its order"
)]
pub fn project(capture: &Capture, settings: &Settings) -> Draft {
    let mut draft = Draft::unchanged(capture);
    let tools = capture.tools();
    if tools.is_empty() {
        return draft;
    }
    if settings.shorten_protected {
        draft.not_applicable(
            "shorten.protected=true: an active lean-ctx policy pack stores no originals, so no \
             description is shortened",
        );
        return draft;
    }

    let listed = tools
        .iter()
        .position(|entry| tool::name(entry).is_some_and(is_expand_tool_name));
    let expand_name = match (listed, &settings.shorten_expand_tool) {
        (Some(index), wanted) => {
            let name = tool::name(&tools[index])
                .unwrap_or(EXPAND_BARE_NAME)
                .to_owned();
            if let Some(wanted) = wanted {
                // A second expand tool would add nothing, and the same name twice is rejected
                // by providers: pointers name the one the capture already lists.
                draft.info(format!(
                    "shorten.expand_tool={wanted} not appended: the capture already lists the \
                     expand tool `{name}`, which the pointers name"
                ));
            }
            name
        }
        (None, Some(wanted)) if is_expand_tool_name(wanted) => {
            if let Some(sent) = draft.sent.as_mut() {
                sent.push(SentTool::added(
                    expand_tool_entry(capture, wanted),
                    "expand tool added by shorten.expand_tool (what-if)",
                ));
            }
            draft.info(format!(
                "what-if: appended the expand tool `{wanted}` (shorten.expand_tool), which the \
                 pointers name"
            ));
            wanted.clone()
        }
        (None, _) => {
            let over = tools
                .iter()
                .filter_map(tool::description)
                .filter(|d| d.len() > DESCRIPTION_LIMIT_BYTES)
                .count();
            draft.not_applicable(format!(
                "no expand tool in the capture (a tool whose bare name is `ctx_expand`): lean-ctx \
                 shortens nothing it could not expand again ({over} description(s) over \
                 {DESCRIPTION_LIMIT_BYTES} bytes); try --set shorten.expand_tool=ctx_expand to \
                 see what it would do"
            ));
            return draft;
        }
    };

    // Entries are independent: each is weighed in parallel, then taken in order.
    let outcomes: Vec<Shortening> = tools
        .par_iter()
        .with_min_len(64)
        .map(|entry| shorten_entry(entry, &expand_name))
        .collect();
    let mut over_limit = 0usize;
    let mut shortened = 0usize;
    let mut saved = 0usize;
    let mut unstorable = Vec::new();
    let mut not_shorter = Vec::new();
    let mut handles = rustc_hash::FxHashSet::default();
    for (index, outcome) in outcomes.into_iter().enumerate() {
        match outcome {
            Shortening::Kept => {}
            Shortening::Unstorable(name) => {
                over_limit += 1;
                unstorable.push(name);
            }
            Shortening::NotShorter(name) => {
                over_limit += 1;
                not_shorter.push(name);
            }
            Shortening::Shortened {
                entry,
                reason,
                saved: fewer,
                stored,
            } => {
                over_limit += 1;
                saved += fewer;
                if let Some(sent) = draft.sent.as_mut()
                    && let Some(slot) = sent.get_mut(index)
                {
                    *slot = SentTool::changed(index, entry, reason);
                }
                if handles.insert(stored.handle.clone()) {
                    draft.stored.push(stored);
                }
                shortened += 1;
            }
        }
    }

    if over_limit == 0 {
        draft.info(format!(
            "no description is over {DESCRIPTION_LIMIT_BYTES} bytes: nothing to shorten"
        ));
    }
    if shortened > 0 {
        draft.info(format!(
            "shortened {shortened} description(s) over {DESCRIPTION_LIMIT_BYTES} bytes, \
             {saved} bytes fewer; `export --store DIR` writes the full entries the pointers name"
        ));
    }
    if !unstorable.is_empty() {
        draft.info(format!(
            "kept as is, lean-ctx cannot store them (over 4 MiB or containing NUL): {}",
            unstorable.join(", ")
        ));
    }
    if !not_shorter.is_empty() {
        draft.info(format!(
            "kept as is, summary + pointer is not shorter: {}",
            not_shorter.join(", ")
        ));
    }
    draft
}

/// What lean-ctx does with one entry.
enum Shortening {
    /// Left as it is: the expand tool, a passthrough entry, or a description within the limit.
    Kept,
    /// Over the limit, but lean-ctx's store refuses its JSON.
    Unstorable(String),
    /// Over the limit, but summary and pointer are not shorter.
    NotShorter(String),
    /// Cut to a summary and a pointer to the stored full entry.
    Shortened {
        entry: Value,
        reason: String,
        saved: usize,
        stored: StoredEntry,
    },
}

fn shorten_entry(entry: &Value, expand_name: &str) -> Shortening {
    // lean-ctx skips the expand tool by name: every entry of that name stays whole.
    if tool::name(entry) == Some(expand_name) || tool::passes_through(entry) {
        return Shortening::Kept;
    }
    let (Some(name), Some(description)) = (tool::name(entry), tool::description(entry)) else {
        return Shortening::Kept;
    };
    if description.len() <= DESCRIPTION_LIMIT_BYTES {
        return Shortening::Kept;
    }
    let json = stored_json(entry);
    // lean-ctx's store refuses text with a NUL or over its byte limit. Compact JSON escapes
    // U+0000 as `\u0000`, so in practice only the size can refuse an entry.
    if json.len() > MAX_STORED_BYTES || json.contains('\0') {
        return Shortening::Unstorable(name.to_owned());
    }
    let handle = handle(&json);
    let Some(text) = shortened_description(description, expand_name, &handle) else {
        return Shortening::NotShorter(name.to_owned());
    };
    let reason = format!(
        "description {} → {} bytes: summary + pointer to {handle}",
        description.len(),
        text.len()
    );
    let saved = description.len() - text.len();
    let mut changed = entry.clone();
    tool::set_description(&mut changed, text);
    Shortening::Shortened {
        entry: changed,
        reason,
        saved,
        stored: StoredEntry { handle, json },
    }
}
