//! A turn's tools against the previous turn of its thread: one [`ToolDiff`] per tool that was
//! added, removed or changed (the same line diff the strategy views draw), matched by name.

use serde_json::Value;

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

    /// The diff between two tools lists (`before` from turn `previous`, `now` from `turn`).
    pub fn between(turn: usize, previous: usize, before: &[Value], now: &[Value]) -> TurnDiff {
        let name = |v: &Value| tool::name(v).unwrap_or("").to_owned();
        fn find<'a>(list: &'a [Value], n: &str) -> Option<&'a Value> {
            list.iter().find(|v| tool::name(v) == Some(n))
        }
        let mut tools = Vec::new();
        let mut unchanged = 0;
        for entry in now {
            let n = name(entry);
            match find(before, &n) {
                None => tools.push(ToolChange {
                    diff: ToolDiff::new(None, Some(entry)),
                    name: n,
                    change: Change::Added,
                }),
                Some(old) if tool::compact(old) == tool::compact(entry) => unchanged += 1,
                Some(old) => tools.push(ToolChange {
                    diff: ToolDiff::new(Some(old), Some(entry)),
                    name: n,
                    change: Change::Changed,
                }),
            }
        }
        for entry in before {
            let n = name(entry);
            if find(now, &n).is_none() {
                tools.push(ToolChange {
                    diff: ToolDiff::new(Some(entry), None),
                    name: n,
                    change: Change::Removed,
                });
            }
        }
        let common = |list: &[Value], other: &[Value]| -> Vec<String> {
            list.iter()
                .map(name)
                .filter(|n| find(other, n).is_some())
                .collect()
        };
        let order_changed = common(before, now) != common(now, before);
        TurnDiff {
            turn,
            previous: Some(previous),
            tools,
            unchanged,
            order_changed,
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
