//! The selected tool's diff laid out for the screen: the library's hunks
//! ([`crate::diff::tool_diff`], the same the `diff` command prints, changed words already
//! marked) as rows of a unified view and of a side-by-side view, with the unchanged stretches
//! between hunks folded.

use serde_json::Value;

use crate::diff::{self, Hunk, LineTag};

/// A line of a hunk: (hunk index, line index).
pub type LineRef = (usize, usize);

/// One row of a unified diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UniRow {
    /// A line of a hunk.
    Line(LineRef),
    /// This many unchanged lines not shown.
    Fold(usize),
}

/// One row of a side-by-side diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitRow {
    /// The old line on the left, the new one on the right; either may be missing.
    Pair(Option<LineRef>, Option<LineRef>),
    /// This many unchanged lines not shown.
    Fold(usize),
}

/// One tool's diff, ready to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDiff {
    /// The library's hunks.
    pub hunks: Vec<Hunk>,
    /// Unified rows.
    pub unified: Vec<UniRow>,
    /// Side-by-side rows.
    pub split: Vec<SplitRow>,
    /// Lines removed.
    pub removed: usize,
    /// Lines added.
    pub added: usize,
}

impl ToolDiff {
    /// The diff between a tool's original entry and its sent entry (either may be missing: an
    /// added or a removed tool).
    pub fn new(before: Option<&Value>, after: Option<&Value>) -> ToolDiff {
        let old_lines = before.map_or(0, |v| diff::pretty_lines(v).lines().count());
        ToolDiff::from_hunks(diff::tool_diff(before, after), old_lines)
    }

    /// Lay out hunks over an old text of `old_lines` lines.
    pub fn from_hunks(hunks: Vec<Hunk>, old_lines: usize) -> ToolDiff {
        let mut unified = Vec::new();
        let mut split = Vec::new();
        let (mut removed, mut added) = (0, 0);
        let mut next_old = 0;
        for (h, hunk) in hunks.iter().enumerate() {
            if hunk.old_start > next_old {
                unified.push(UniRow::Fold(hunk.old_start - next_old));
                split.push(SplitRow::Fold(hunk.old_start - next_old));
            }
            let mut deletes: Vec<LineRef> = Vec::new();
            let mut inserts: Vec<LineRef> = Vec::new();
            let flush = |split: &mut Vec<SplitRow>, d: &mut Vec<LineRef>, i: &mut Vec<LineRef>| {
                for k in 0..d.len().max(i.len()) {
                    split.push(SplitRow::Pair(d.get(k).copied(), i.get(k).copied()));
                }
                d.clear();
                i.clear();
            };
            for (l, line) in hunk.lines.iter().enumerate() {
                unified.push(UniRow::Line((h, l)));
                match line.tag {
                    LineTag::Equal => {
                        flush(&mut split, &mut deletes, &mut inserts);
                        split.push(SplitRow::Pair(Some((h, l)), Some((h, l))));
                    }
                    LineTag::Delete => {
                        removed += 1;
                        if !inserts.is_empty() {
                            flush(&mut split, &mut deletes, &mut inserts);
                        }
                        deletes.push((h, l));
                    }
                    LineTag::Insert => {
                        added += 1;
                        inserts.push((h, l));
                    }
                }
            }
            flush(&mut split, &mut deletes, &mut inserts);
            next_old = hunk.old_start + hunk.old_len;
        }
        if !hunks.is_empty() && next_old < old_lines {
            unified.push(UniRow::Fold(old_lines - next_old));
            split.push(SplitRow::Fold(old_lines - next_old));
        }
        ToolDiff {
            hunks,
            unified,
            split,
            removed,
            added,
        }
    }

    /// The line a row refers to.
    pub fn line(&self, at: LineRef) -> Option<&diff::DiffLine> {
        self.hunks.get(at.0)?.lines.get(at.1)
    }

    /// Whether the two sides are equal.
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(description: &str) -> Value {
        let properties: serde_json::Map<String, Value> = (0..12)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        json!({"name": "t", "description": description, "input_schema": {"type": "object", "properties": properties}})
    }

    #[test]
    fn rows_fold_unchanged_lines_and_pair_changed_ones() {
        let before = entry("Read a file from disk.");
        let after = entry("Read a file.");
        let diff = ToolDiff::new(Some(&before), Some(&after));
        assert_eq!((diff.removed, diff.added), (1, 1));
        assert!(matches!(diff.unified.last(), Some(UniRow::Fold(n)) if *n > 0));
        let changed: Vec<_> = diff
            .split
            .iter()
            .filter_map(|r| match r {
                SplitRow::Pair(Some(a), Some(b)) if a != b => Some((*a, *b)),
                _ => None,
            })
            .collect();
        assert_eq!(changed.len(), 1, "the two description lines side by side");
        let (old, new) = changed[0];
        assert_eq!(diff.line(old).unwrap().tag, LineTag::Delete);
        assert_eq!(diff.line(new).unwrap().tag, LineTag::Insert);
        let unified_lines = diff
            .unified
            .iter()
            .filter(|r| matches!(r, UniRow::Line(_)))
            .count();
        assert_eq!(
            unified_lines,
            diff.hunks.iter().map(|h| h.lines.len()).sum::<usize>()
        );
    }

    #[test]
    fn equal_entries_have_no_rows_and_removed_ones_only_deletions() {
        let e = entry("x");
        let same = ToolDiff::new(Some(&e), Some(&e));
        assert!(same.is_empty());
        assert!(same.unified.is_empty());
        let gone = ToolDiff::new(Some(&e), None);
        assert_eq!(gone.added, 0);
        assert!(gone.removed > 0);
        assert!(
            gone.split
                .iter()
                .all(|r| matches!(r, SplitRow::Pair(Some(_), None)))
        );
    }
}
