//! The diff models the detail pane draws: one tool's pretty JSON before and after (line diff,
//! with word-level emphasis computed only for the rows on screen), and the request-level
//! summary (bytes added and removed, first changed byte).

use std::time::Duration;

use similar::{Algorithm, ChangeTag, DiffOp, TextDiff};

/// Unchanged lines kept around each change.
pub const CONTEXT: usize = 3;

/// One row of a unified diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UniRow {
    /// An unchanged line (old index, new index).
    Equal(usize, usize),
    /// A removed line, and the added line it pairs with (for word emphasis).
    Delete(usize, Option<usize>),
    /// An added line, and the removed line it pairs with.
    Insert(usize, Option<usize>),
    /// This many unchanged lines not shown.
    Fold(usize),
}

/// One row of a side-by-side diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitRow {
    /// Old line left, new line right; either may be missing; `changed` marks a change.
    Pair(Option<usize>, Option<usize>, bool),
    /// This many unchanged lines not shown.
    Fold(usize),
}

/// The line diff of one tool's pretty JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDiff {
    /// Old lines.
    pub old: Vec<String>,
    /// New lines.
    pub new: Vec<String>,
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
    /// Diff two texts line by line. An empty side (a removed or added tool) diffs against
    /// nothing.
    pub fn new(old_text: &str, new_text: &str) -> ToolDiff {
        let old: Vec<String> = old_text.lines().map(str::to_owned).collect();
        let new: Vec<String> = new_text.lines().map(str::to_owned).collect();
        let diff = TextDiff::configure()
            .algorithm(Algorithm::Myers)
            .timeout(Duration::from_millis(200))
            .diff_lines(old_text, new_text);
        let groups = diff.grouped_ops(CONTEXT);
        let mut unified = Vec::new();
        let mut split = Vec::new();
        let (mut removed, mut added) = (0, 0);
        let mut next_old = 0;
        for group in &groups {
            let first = group.first().map_or(0, |op| op.old_range().start);
            if first > next_old {
                unified.push(UniRow::Fold(first - next_old));
                split.push(SplitRow::Fold(first - next_old));
            }
            for op in group {
                match *op {
                    DiffOp::Equal {
                        old_index,
                        new_index,
                        len,
                    } => {
                        for i in 0..len {
                            unified.push(UniRow::Equal(old_index + i, new_index + i));
                            split.push(SplitRow::Pair(
                                Some(old_index + i),
                                Some(new_index + i),
                                false,
                            ));
                        }
                    }
                    _ => {
                        let (_, olds, news) = op.as_tag_tuple();
                        removed += olds.len();
                        added += news.len();
                        let pairs = olds.len().min(news.len());
                        for (k, o) in olds.clone().enumerate() {
                            let partner = (k < pairs).then(|| news.start + k);
                            unified.push(UniRow::Delete(o, partner));
                        }
                        for (k, n) in news.clone().enumerate() {
                            let partner = (k < pairs).then(|| olds.start + k);
                            unified.push(UniRow::Insert(n, partner));
                        }
                        for k in 0..olds.len().max(news.len()) {
                            split.push(SplitRow::Pair(
                                (k < olds.len()).then(|| olds.start + k),
                                (k < news.len()).then(|| news.start + k),
                                true,
                            ));
                        }
                    }
                }
            }
            next_old = group.last().map_or(next_old, |op| op.old_range().end);
        }
        if !groups.is_empty() && next_old < old.len() {
            unified.push(UniRow::Fold(old.len() - next_old));
            split.push(SplitRow::Fold(old.len() - next_old));
        }
        ToolDiff {
            old,
            new,
            unified,
            split,
            removed,
            added,
        }
    }

    /// Whether the two sides are equal.
    pub fn is_empty(&self) -> bool {
        self.removed == 0 && self.added == 0
    }
}

/// The words of `old` and `new` marked as changed (`true`) or shared. Called only for the pair
/// of lines being drawn, with a short deadline so a huge line cannot stall a frame.
pub fn word_diff(old: &str, new: &str) -> (Vec<(bool, String)>, Vec<(bool, String)>) {
    let diff = TextDiff::configure()
        .timeout(Duration::from_millis(20))
        .diff_words(old, new);
    let mut left: Vec<(bool, String)> = Vec::new();
    let mut right: Vec<(bool, String)> = Vec::new();
    let push = |side: &mut Vec<(bool, String)>, changed: bool, text: &str| match side.last_mut() {
        Some((c, s)) if *c == changed => s.push_str(text),
        _ => side.push((changed, text.to_owned())),
    };
    for change in diff.iter_all_changes() {
        let text = change.value();
        match change.tag() {
            ChangeTag::Equal => {
                push(&mut left, false, text);
                push(&mut right, false, text);
            }
            ChangeTag::Delete => push(&mut left, true, text),
            ChangeTag::Insert => push(&mut right, true, text),
        }
    }
    (left, right)
}

/// The request as a provider receives it, compared before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestSummary {
    /// Bytes of the capture's compact request body.
    pub original_bytes: usize,
    /// Bytes of the projected compact request body.
    pub projected_bytes: usize,
    /// Bytes only in the projected body.
    pub added_bytes: usize,
    /// Bytes only in the original body.
    pub removed_bytes: usize,
    /// First byte of the compact body that differs; `None` when equal. A provider's prompt
    /// cache keeps the prefix before it.
    pub first_changed_byte: Option<usize>,
}

/// Compare two compact bodies. The bodies are cut into JSON-ish words (after `,` `:` `{` `[`
/// and spaces) and diffed as sequences, so the added and removed counts are exact byte counts
/// of the pieces that differ.
pub fn request_summary(original: &str, projected: &str) -> RequestSummary {
    let first_changed_byte = if original == projected {
        None
    } else {
        Some(
            original
                .bytes()
                .zip(projected.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        )
    };
    let (added_bytes, removed_bytes) = if first_changed_byte.is_none() {
        (0, 0)
    } else {
        let old = pieces(original);
        let new = pieces(projected);
        let deadline = std::time::Instant::now() + Duration::from_millis(500);
        let ops =
            similar::capture_diff_slices_deadline(Algorithm::Myers, &old, &new, Some(deadline));
        let mut added = 0;
        let mut removed = 0;
        for op in ops {
            let (_, olds, news) = op.as_tag_tuple();
            if op.tag() != similar::DiffTag::Equal {
                removed += old[olds].iter().map(|p| p.len()).sum::<usize>();
                added += new[news].iter().map(|p| p.len()).sum::<usize>();
            }
        }
        (added, removed)
    };
    RequestSummary {
        original_bytes: original.len(),
        projected_bytes: projected.len(),
        added_bytes,
        removed_bytes,
        first_changed_byte,
    }
}

fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if matches!(b, b',' | b':' | b'{' | b'[' | b' ') {
            out.push(&text[start..=i]);
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_rows_pair_changed_lines_and_fold_context() {
        let old: String = (0..20).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 10\n", "line ten\n");
        let diff = ToolDiff::new(&old, &new);
        assert_eq!(diff.removed, 1);
        assert_eq!(diff.added, 1);
        assert_eq!(diff.unified.first(), Some(&UniRow::Fold(7)));
        assert!(diff.unified.contains(&UniRow::Delete(10, Some(10))));
        assert!(diff.unified.contains(&UniRow::Insert(10, Some(10))));
        assert_eq!(diff.unified.last(), Some(&UniRow::Fold(6)));
        assert!(
            diff.split
                .contains(&SplitRow::Pair(Some(10), Some(10), true))
        );
    }

    #[test]
    fn equal_texts_have_no_rows() {
        let diff = ToolDiff::new("a\nb\n", "a\nb\n");
        assert!(diff.is_empty());
        assert!(diff.unified.is_empty());
    }

    #[test]
    fn word_diff_marks_only_changed_words() {
        let (left, right) = word_diff("read a file now", "read the file now");
        assert!(left.contains(&(true, "a".to_owned())));
        assert!(right.contains(&(true, "the".to_owned())));
        assert_eq!(left[0], (false, "read ".to_owned()));
    }

    #[test]
    fn request_summary_counts_bytes() {
        let a = r#"{"tools":[{"name":"a","description":"one two"}],"x":1}"#;
        let b = r#"{"tools":[{"name":"a","description":"one"}],"x":1}"#;
        let s = request_summary(a, b);
        assert_eq!(s.first_changed_byte, Some(a.find("one").unwrap() + 3));
        assert_eq!(
            s.original_bytes - s.removed_bytes + s.added_bytes,
            s.projected_bytes
        );
        assert!(s.removed_bytes > 0);
        assert_eq!(request_summary(a, a).first_changed_byte, None);
    }
}
