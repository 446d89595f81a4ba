//! One turn's tool list against the previous turn of its thread (SESSIONS.md section 2).

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::report;
use crate::tool;

/// One tool entry, stored once for the whole session however many turns send it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its compact JSON.
    pub json: Box<str>,
    /// Its name (empty when it has none).
    pub name: Box<str>,
    /// Its tokens, counted once.
    pub tokens: usize,
    /// Characters in `json`.
    pub chars: usize,
    /// A hash of its content, `cache_control` left out (the prompt cache's view of it).
    pub content: u64,
    /// The `cache_control` breakpoint it carries.
    pub mark: Option<super::prompt::Ttl>,
    /// `defer_loading: true`: out of the model's context until the provider's tool search
    /// returns it.
    pub deferred: bool,
}

/// A tool whose entry changed between two turns, and what changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Changed {
    /// The tool's name.
    pub name: String,
    /// `description`, `schema`, `cache_control`, `other` (in that order; at least one).
    pub fields: Vec<&'static str>,
}

/// How a tool list differs from the one before it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListChange {
    /// Names sent now, not before.
    pub added: Vec<String>,
    /// Names sent before, not now.
    pub removed: Vec<String>,
    /// Names sent both times with different entries.
    pub changed: Vec<Changed>,
    /// The tools sent both times come in another order.
    pub order_changed: bool,
    /// First differing byte of the compact arrays (`None`: identical).
    pub first_changed_byte: Option<usize>,
    /// The same offset in characters.
    pub first_changed_char: Option<usize>,
    /// The entry that holds that byte (now, or before when the byte is past the new list).
    pub first_changed_entry: Option<String>,
}

/// Compare two lists of entries (`None` entry lists: no `tools` key).
pub fn compare(entries: &[Entry], before: (&[u32], bool), now: (&[u32], bool)) -> ListChange {
    let json =
        |ids: &[u32]| -> Vec<&str> { ids.iter().map(|&i| &*entries[i as usize].json).collect() };
    let (before_json, now_json) = (json(before.0), json(now.0));
    let first = report::first_changed_byte(&before_json, before.1, &now_json, now.1);
    let mut change = ListChange {
        first_changed_byte: first,
        ..ListChange::default()
    };
    let Some(byte) = first else {
        return change;
    };
    let located = locate(entries, now.0, byte).or_else(|| locate(entries, before.0, byte));
    // The bytes before the first change are common to both lists, so either list counts them.
    change.first_changed_char = Some(located.map_or(byte, |(_, chars)| chars));
    change.first_changed_entry = located.map(|(i, _)| entries[i as usize].name.to_string());

    let first_by_name = |ids: &[u32]| -> HashMap<&str, u32> {
        let mut map = HashMap::new();
        for &id in ids {
            map.entry(&*entries[id as usize].name).or_insert(id);
        }
        map
    };
    let (before_names, now_names) = (first_by_name(before.0), first_by_name(now.0));
    let mut seen = HashSet::new();
    for &id in now.0 {
        let name = &*entries[id as usize].name;
        if !seen.insert(name) {
            continue;
        }
        match before_names.get(name) {
            None => change.added.push(name.to_owned()),
            Some(&old) if old != id => change.changed.push(Changed {
                name: name.to_owned(),
                fields: changed_fields(&entries[old as usize].json, &entries[id as usize].json),
            }),
            Some(_) => {}
        }
    }
    let mut seen = HashSet::new();
    for &id in before.0 {
        let name = &*entries[id as usize].name;
        if seen.insert(name) && !now_names.contains_key(name) {
            change.removed.push(name.to_owned());
        }
    }
    let common = |ids: &[u32], other: &HashMap<&str, u32>| -> Vec<&str> {
        let mut seen = HashSet::new();
        ids.iter()
            .map(|&i| &*entries[i as usize].name)
            .filter(|n| other.contains_key(n) && seen.insert(*n))
            .collect()
    };
    change.order_changed = common(before.0, &now_names) != common(now.0, &before_names);
    change
}

/// The entry of `[e0,e1,...]` holding byte `at` (a `,` belongs to the entry after it), and the
/// characters before that byte; `None` when `at` is the closing bracket or past it.
fn locate(entries: &[Entry], ids: &[u32], at: usize) -> Option<(u32, usize)> {
    let mut offset = 1; // after '['
    let mut chars = 1;
    if at == 0 {
        return ids.first().map(|&id| (id, 0));
    }
    for (i, &id) in ids.iter().enumerate() {
        let entry = &entries[id as usize];
        let start = offset + usize::from(i > 0);
        if at < start + entry.json.len() {
            let within = at.saturating_sub(start);
            let before = usize::from(i > 0 && at >= start);
            let head = &entry.json[..entry.json.floor_char_boundary(within)];
            return Some((id, chars + before + head.chars().count()));
        }
        chars += usize::from(i > 0) + entry.chars;
        offset = start + entry.json.len();
    }
    None
}

/// What differs between two entries of one tool.
fn changed_fields(before: &str, now: &str) -> Vec<&'static str> {
    let (Ok(before), Ok(now)) = (
        serde_json::from_str::<Value>(before),
        serde_json::from_str::<Value>(now),
    ) else {
        return vec!["other"];
    };
    let mut fields = Vec::new();
    if tool::description(&before) != tool::description(&now) {
        fields.push("description");
    }
    if tool::schema(&before) != tool::schema(&now) {
        fields.push("schema");
    }
    if before.get("cache_control") != now.get("cache_control") {
        fields.push("cache_control");
    }
    let rest = |mut entry: Value| {
        if let Some(object) = entry.as_object_mut() {
            object.remove("cache_control");
        }
        if let Some(key) = tool::schema_key(&entry)
            && let Some(body) = tool::body_mut(&mut entry)
        {
            body.remove(key);
        }
        if let Some(body) = tool::body_mut(&mut entry) {
            body.remove("description");
        }
        entry
    };
    // Equal values with different bytes (key order, number spelling) are `other` too.
    if rest(before) != rest(now) || fields.is_empty() {
        fields.push("other");
    }
    fields
}
