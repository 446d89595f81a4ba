//! A turn's tools against the previous turn of its thread: one [`ToolDiff`] per tool that was
//! added, removed or changed (the same line diff the strategy views draw), matched by name by
//! the session's own comparison ([`crate::session::compare`]): this module only adds the line
//! diffs and the signs the view draws.

use serde_json::Value;

use crate::session::compare::{self, NameChange};
use crate::session::pick::PickedTurn;
use crate::tool;

use crate::tui::diffview::ToolDiff;

/// What happened to one tool between the two turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Sent now, not before.
    Added,
    /// Sent before, not now.
    Removed,
    /// Sent both times with another entry.
    Changed,
}

impl Change {
    /// The sign shown before the tool's name.
    pub fn sign(self) -> char {
        match self {
            Change::Added => '+',
            Change::Removed => '−',
            Change::Changed => '~',
        }
    }
}

/// One tool's part of the turn diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolChange {
    /// The tool's name as sent (unsanitized; the drawing sanitizes).
    pub name: String,
    /// What happened to it.
    pub change: Change,
    /// Its line diff (pretty JSON, previous turn's entry first).
    pub diff: ToolDiff,
}

/// The whole turn diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnDiff {
    /// The turn.
    pub turn: usize,
    /// The previous turn of its thread, when there is one.
    pub previous: Option<usize>,
    /// The tools that differ: this turn's order, then the removed ones in the previous order.
    pub tools: Vec<ToolChange>,
    /// Tools sent identically both times.
    pub unchanged: usize,
    /// The tools sent both times come in another order.
    pub order_changed: bool,
    /// The tools that moved when the order changed: the fewest whose moves explain the new
    /// order (the others keep their order relative to each other), in this turn's order.
    pub moved: Vec<Moved>,
}

/// A tool sent both times at another place among the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// Its name as sent (unsanitized; the drawing sanitizes).
    pub name: String,
    /// Its position in the previous turn's list (1 is the first tool).
    pub before: usize,
    /// Its position in this turn's list.
    pub now: usize,
}

/// The tools of `now` that moved against `before` (lists of names, a name's first place
/// standing for it): the names shared by both lists, less the longest run that kept its
/// relative order. O(n log n).
pub fn moved(before: &[&str], now: &[&str]) -> Vec<Moved> {
    let first = |list: &[&str]| -> std::collections::HashMap<String, usize> {
        let mut map = std::collections::HashMap::new();
        for (i, name) in list.iter().enumerate() {
            map.entry((*name).to_owned()).or_insert(i);
        }
        map
    };
    let (was, is) = (first(before), first(now));
    // The shared names in this turn's order, each with its place before.
    let mut seen = std::collections::HashSet::new();
    let shared: Vec<(usize, usize)> = now
        .iter()
        .enumerate()
        .filter(|(i, name)| is.get(**name) == Some(i) && seen.insert(**name))
        .filter_map(|(i, name)| was.get(*name).map(|&b| (b, i)))
        .collect();
    // The longest increasing run of places before (patience sorting), kept as indices.
    let mut tails: Vec<usize> = Vec::new();
    let mut link: Vec<Option<usize>> = vec![None; shared.len()];
    for k in 0..shared.len() {
        let at = tails.partition_point(|&t| shared[t].0 < shared[k].0);
        link[k] = at.checked_sub(1).map(|p| tails[p]);
        if at == tails.len() {
            tails.push(k);
        } else {
            tails[at] = k;
        }
    }
    let mut stays = vec![false; shared.len()];
    let mut next = tails.last().copied();
    while let Some(k) = next {
        stays[k] = true;
        next = link[k];
    }
    shared
        .iter()
        .zip(stays)
        .filter(|(_, stays)| !stays)
        .map(|(&(b, i), _)| Moved {
            name: now[i].to_owned(),
            before: b + 1,
            now: i + 1,
        })
        .collect()
}

impl TurnDiff {
    /// The diff of a picked turn against the previous request of its thread.
    pub fn new(picked: &PickedTurn) -> TurnDiff {
        let now = picked.capture.tools();
        let Some((previous, before)) = &picked.previous else {
            return TurnDiff {
                turn: picked.turn,
                previous: None,
                tools: Vec::new(),
                unchanged: 0,
                order_changed: false,
                moved: Vec::new(),
            };
        };
        TurnDiff::between(picked.turn, *previous, before.tools(), now)
    }

    /// The diff between two tools lists (`before` from turn `previous`, `now` from `turn`),
    /// matched by name as the session's comparison matches them
    /// ([`crate::session::compare::by_name`]).
    pub fn between(turn: usize, previous: usize, before: &[Value], now: &[Value]) -> TurnDiff {
        let keyed = |list: &[Value]| -> Vec<(String, String)> {
            list.iter()
                .map(|v| (tool::name(v).unwrap_or("").to_owned(), tool::compact(v)))
                .collect()
        };
        let (before_keyed, now_keyed) = (keyed(before), keyed(now));
        fn borrowed(list: &[(String, String)]) -> Vec<(&str, &str)> {
            list.iter().map(|(n, j)| (n.as_str(), j.as_str())).collect()
        }
        let matched = compare::by_name(&borrowed(&before_keyed), &borrowed(&now_keyed));
        let moved = if matched.order_changed {
            fn names(list: &[(String, String)]) -> Vec<&str> {
                list.iter().map(|(n, _)| n.as_str()).collect()
            }
            moved(&names(&before_keyed), &names(&now_keyed))
        } else {
            Vec::new()
        };
        let tools = matched
            .changes
            .iter()
            .map(|named| {
                let old = named.before.map(|i| &before[i]);
                let new = named.now.map(|i| &now[i]);
                let name = match (named.now, named.before) {
                    (Some(i), _) => now_keyed[i].0.clone(),
                    (None, Some(i)) => before_keyed[i].0.clone(),
                    (None, None) => String::new(),
                };
                ToolChange {
                    name,
                    change: Change::from(named.change),
                    diff: ToolDiff::new(old, new),
                }
            })
            .collect();
        TurnDiff {
            turn,
            previous: Some(previous),
            tools,
            unchanged: matched.unchanged,
            order_changed: matched.order_changed,
            moved,
        }
    }
}

impl From<NameChange> for Change {
    fn from(change: NameChange) -> Change {
        match change {
            NameChange::Added => Change::Added,
            NameChange::Removed => Change::Removed,
            NameChange::Changed => Change::Changed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(name: &str, description: &str) -> Value {
        json!({"name": name, "description": description, "input_schema": {"type": "object"}})
    }

    #[test]
    fn added_removed_changed_and_order_by_name() {
        let before = [t("a", "x"), t("b", "y"), t("c", "z")];
        let now = [t("b", "y"), t("a", "x2"), t("d", "w")];
        let diff = TurnDiff::between(2, 1, &before, &now);
        let got: Vec<(char, &str, usize, usize)> = diff
            .tools
            .iter()
            .map(|c| {
                (
                    c.change.sign(),
                    c.name.as_str(),
                    c.diff.removed,
                    c.diff.added,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![('~', "a", 1, 1), ('+', "d", 0, 7), ('−', "c", 7, 0)]
        );
        assert_eq!(diff.unchanged, 1);
        assert!(diff.order_changed);
        let moved: Vec<(&str, usize, usize)> = diff
            .moved
            .iter()
            .map(|m| (m.name.as_str(), m.before, m.now))
            .collect();
        // b and a swapped: one move explains it.
        assert_eq!(moved, vec![("b", 2, 1)]);
        let same = TurnDiff::between(2, 1, &before, &before);
        assert!(same.tools.is_empty());
        assert_eq!(same.unchanged, 3);
        assert!(!same.order_changed);
        assert!(same.moved.is_empty());
    }

    /// An MCP server that reconnected puts its tools first: those are the ones that moved,
    /// with their places before and now.
    #[test]
    fn the_fewest_moves_that_explain_a_reorder() {
        let got = moved(&["a", "b", "c", "x", "y"], &["x", "y", "a", "b", "c"]);
        let names: Vec<(&str, usize, usize)> = got
            .iter()
            .map(|m| (m.name.as_str(), m.before, m.now))
            .collect();
        assert_eq!(names, vec![("x", 4, 1), ("y", 5, 2)]);
        assert!(moved(&["a", "b"], &["a", "b", "c"]).is_empty());
        let one = moved(&["a", "b", "c", "d"], &["a", "c", "d", "b"]);
        assert_eq!(one.len(), 1);
        assert_eq!(
            (one[0].name.as_str(), one[0].before, one[0].now),
            ("b", 2, 4)
        );
    }
}
