//! One turn's tool list against the previous turn of its thread (SESSIONS.md section 2).

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::compact;
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
    let first = compact::first_changed_byte(&before_json, before.1, &now_json, now.1);
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

    let keyed = |ids: &[u32]| -> Vec<(&str, u32)> {
        ids.iter()
            .map(|&id| (&*entries[id as usize].name, id))
            .collect()
    };
    let (before_keyed, now_keyed) = (keyed(before.0), keyed(now.0));
    let by_name = by_name(&before_keyed, &now_keyed);
    for tool in &by_name.changes {
        match (tool.change, tool.before, tool.now) {
            (NameChange::Added, _, Some(i)) => change.added.push(now_keyed[i].0.to_owned()),
            (NameChange::Removed, Some(i), _) => {
                change.removed.push(before_keyed[i].0.to_owned());
            }
            (NameChange::Changed, Some(old), Some(new)) => change.changed.push(Changed {
                name: now_keyed[new].0.to_owned(),
                fields: changed_fields(
                    &entries[before_keyed[old].1 as usize].json,
                    &entries[now_keyed[new].1 as usize].json,
                ),
            }),
            _ => {}
        }
    }
    change.order_changed = by_name.order_changed;
    change
}

/// What happened to one tool name between two lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameChange {
    /// Sent now, not before.
    Added,
    /// Sent before, not now.
    Removed,
    /// Sent both times with another entry.
    Changed,
}

/// One tool name that differs between two lists, with the index of its first entry in each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedChange {
    /// What happened.
    pub change: NameChange,
    /// Its first entry in the list before (`None` when added).
    pub before: Option<usize>,
    /// Its first entry in the list now (`None` when removed).
    pub now: Option<usize>,
}

/// Two tool lists matched by name: a name's first entry in each list stands for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ByName {
    /// The names that differ: added and changed ones in the order now, then removed ones in
    /// the order before.
    pub changes: Vec<NamedChange>,
    /// Names sent both times with the same entry.
    pub unchanged: usize,
    /// The names sent both times come in another order.
    pub order_changed: bool,
}

/// Match two lists of `(name, entry)` by name; `entry` is whatever tells two entries apart (an
/// interned id, the compact JSON). Linear in the lists' lengths.
pub fn by_name<'a, K: PartialEq>(before: &[(&'a str, K)], now: &[(&'a str, K)]) -> ByName {
    let first_by_name = |list: &[(&'a str, K)]| -> HashMap<&'a str, usize> {
        let mut map = HashMap::new();
        for (i, (name, _)) in list.iter().enumerate() {
            map.entry(*name).or_insert(i);
        }
        map
    };
    let (before_names, now_names) = (first_by_name(before), first_by_name(now));
    let mut result = ByName::default();
    let mut seen = HashSet::new();
    for (i, (name, entry)) in now.iter().enumerate() {
        if !seen.insert(*name) {
            continue;
        }
        let change = match before_names.get(name) {
            None => NameChange::Added,
            Some(&old) if before[old].1 != *entry => NameChange::Changed,
            Some(_) => {
                result.unchanged += 1;
                continue;
            }
        };
        let before = before_names.get(name).copied();
        result.changes.push(NamedChange {
            change,
            before,
            now: Some(i),
        });
    }
    let mut seen = HashSet::new();
    for (i, (name, _)) in before.iter().enumerate() {
        if seen.insert(*name) && !now_names.contains_key(name) {
            result.changes.push(NamedChange {
                change: NameChange::Removed,
                before: Some(i),
                now: None,
            });
        }
    }
    let common = |list: &[(&'a str, K)], other: &HashMap<&'a str, usize>| -> Vec<&'a str> {
        let mut seen = HashSet::new();
        list.iter()
            .map(|(name, _)| *name)
            .filter(|n| other.contains_key(n) && seen.insert(*n))
            .collect()
    };
    result.order_changed = common(before, &now_names) != common(now, &before_names);
    result
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
pub(super) fn changed_fields(before: &str, now: &str) -> Vec<&'static str> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_name_matches_first_entries_in_one_pass() {
        // `b` appears twice now: its first entry stands for it; `c` is gone; `d` is new.
        let before = [("a", 1), ("b", 2), ("c", 3)];
        let now = [("b", 2), ("a", 9), ("d", 4), ("b", 5)];
        let matched = by_name(&before, &now);
        let got: Vec<(NameChange, Option<usize>, Option<usize>)> = matched
            .changes
            .iter()
            .map(|c| (c.change, c.before, c.now))
            .collect();
        assert_eq!(
            got,
            [
                (NameChange::Changed, Some(0), Some(1)),
                (NameChange::Added, None, Some(2)),
                (NameChange::Removed, Some(2), None),
            ]
        );
        assert_eq!(matched.unchanged, 1);
        assert!(matched.order_changed);
        let same = by_name(&before, &before);
        assert!(same.changes.is_empty() && !same.order_changed);
        assert_eq!(same.unchanged, 3);
    }
}
