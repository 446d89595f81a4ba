//! A turn's tools against the previous turn of its thread: one [`ToolDiff`] per tool that was
//! added, removed or changed (the same line diff the strategy views draw), matched by name by
//! the session's own comparison ([`crate::session::compare`]): this module only adds the line
//! diffs and the signs the view draws.

use serde_json::Value;

use crate::session::compare::{self, NameChange};
use crate::session::pick::PickedTurn;
use crate::tool;

use super::diffview::ToolDiff;

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
        let same = TurnDiff::between(2, 1, &before, &before);
        assert!(same.tools.is_empty());
        assert_eq!(same.unchanged, 3);
        assert!(!same.order_changed);
    }
}
