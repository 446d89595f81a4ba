//! Diffs between original and projected entries, as structured data a text printer (the CLI)
//! and a TUI can both render.
//!
//! - Per tool ([`tool_diff`], [`projection_diffs`]): a line diff of the pretty JSON of the entry
//!   before and after, grouped in unified-diff hunks, each changed line split into segments with
//!   the changed words emphasized. An added tool diffs against nothing, a removed one against
//!   nothing.
//! - Per request ([`tools_summary`], [`projection_summary`]): the first byte of the compact
//!   `tools` array that differs (the provider's cached prefix ends there) and how many bytes were
//!   removed and added.
//!
//! Everything here is deterministic (no diff deadlines): the same inputs give the same hunks.
//! Texts are returned raw; pass them through [`crate::sanitize`] before printing.

use std::borrow::Cow;

use serde_json::Value;
use similar::{Algorithm, ChangeTag, DiffOp, TextDiff};

use crate::capture::Capture;
use crate::compact::CaptureJson;
use crate::projection::{Projection, Status};
use crate::tool;

/// Lines of context around each change in a hunk, as `diff -u`.
pub const CONTEXT_LINES: usize = 3;

/// Changed-line runs larger than this many lines (old + new) get no word emphasis: refining
/// them costs more than it shows.
const INLINE_LIMIT: usize = 400;

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineTag {
    /// In both texts.
    Equal,
    /// Only in the old text.
    Delete,
    /// Only in the new text.
    Insert,
}

impl LineTag {
    /// The unified-diff prefix: ` `, `-` or `+`.
    pub fn sign(self) -> char {
        match self {
            LineTag::Equal => ' ',
            LineTag::Delete => '-',
            LineTag::Insert => '+',
        }
    }
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// Equal, deleted or inserted.
    pub tag: LineTag,
    /// 0-based line number in the old text, if the line is there.
    pub old_index: Option<usize>,
    /// 0-based line number in the new text, if the line is there.
    pub new_index: Option<usize>,
    /// The line's text without its line feed, in segments; `true` marks a changed part
    /// (only set within replaced lines that are similar enough to compare word by word).
    pub segments: Vec<(bool, String)>,
}

impl DiffLine {
    /// The whole line's text (without the line feed).
    pub fn text(&self) -> String {
        self.segments.iter().map(|(_, s)| s.as_str()).collect()
    }
}

/// A unified-diff hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// 0-based first old line covered.
    pub old_start: usize,
    /// Old lines covered.
    pub old_len: usize,
    /// 0-based first new line covered.
    pub new_start: usize,
    /// New lines covered.
    pub new_len: usize,
    /// The lines, context included.
    pub lines: Vec<DiffLine>,
}

impl Hunk {
    /// The `@@ -a,b +c,d @@` header, with `diff -u`'s numbering (1-based; an empty range
    /// names the line before it).
    pub fn header(&self) -> String {
        fn range(start: usize, len: usize) -> String {
            let first = if len == 0 { start } else { start + 1 };
            if len == 1 {
                format!("{first}")
            } else {
                format!("{first},{len}")
            }
        }
        format!(
            "@@ -{} +{} @@",
            range(self.old_start, self.old_len),
            range(self.new_start, self.new_len)
        )
    }
}

/// The hunks of a line diff between two texts, with `context` lines around each change.
/// Equal texts give no hunks.
pub fn text_hunks(old: &str, new: &str, context: usize) -> Vec<Hunk> {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .diff_lines(old, new);
    let mut hunks = Vec::new();
    for group in diff.grouped_ops(context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_start = first.old_range().start;
        let new_start = first.new_range().start;
        let old_len = last.old_range().end - old_start;
        let new_len = last.new_range().end - new_start;
        let mut lines = Vec::new();
        for op in &group {
            push_op_lines(&diff, op, &mut lines);
        }
        hunks.push(Hunk {
            old_start,
            old_len,
            new_start,
            new_len,
            lines,
        });
    }
    hunks
}

/// The hunks between two pretty JSON texts, with lines matched regardless of a trailing comma:
/// removing the last key of an object is one removed line, not also a changed line above it
/// (`"a": 1,` → `"a": 1`). Context lines show the new text; deleted lines the old one, inserted
/// lines the new one, so each side reads as its own valid JSON.
pub fn json_hunks(old: &str, new: &str, context: usize) -> Vec<Hunk> {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let key = |line: &&str| -> String {
        let line: &str = line;
        line.strip_suffix(',').unwrap_or(line).to_owned()
    };
    let old_keys: Vec<String> = old_lines.iter().map(key).collect();
    let new_keys: Vec<String> = new_lines.iter().map(key).collect();
    let ops = similar::capture_diff_slices(Algorithm::Patience, &old_keys, &new_keys);
    let mut hunks = Vec::new();
    for group in similar::group_diff_ops(ops, context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_start = first.old_range().start;
        let new_start = first.new_range().start;
        let mut lines = Vec::new();
        for op in &group {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            match tag {
                similar::DiffTag::Equal => {
                    for (o, n) in old_range.zip(new_range) {
                        lines.push(DiffLine {
                            tag: LineTag::Equal,
                            old_index: Some(o),
                            new_index: Some(n),
                            segments: vec![(false, new_lines[n].to_owned())],
                        });
                    }
                }
                similar::DiffTag::Replace if old_range.len() + new_range.len() <= INLINE_LIMIT => {
                    emphasized_lines(&old_lines, &new_lines, old_range, new_range, &mut lines);
                }
                _ => {
                    for o in old_range {
                        lines.push(plain_line(LineTag::Delete, Some(o), None, old_lines[o]));
                    }
                    for n in new_range {
                        lines.push(plain_line(LineTag::Insert, None, Some(n), new_lines[n]));
                    }
                }
            }
        }
        hunks.push(Hunk {
            old_start,
            old_len: last.old_range().end - old_start,
            new_start,
            new_len: last.new_range().end - new_start,
            lines,
        });
    }
    hunks
}

fn plain_line(tag: LineTag, old: Option<usize>, new: Option<usize>, text: &str) -> DiffLine {
    DiffLine {
        tag,
        old_index: old,
        new_index: new,
        segments: vec![(false, text.to_owned())],
    }
}

/// A replaced run of lines with the changed words marked: the two runs diffed again as text,
/// word by word within each replaced pair (indices shifted back to the whole texts).
fn emphasized_lines(
    old_lines: &[&str],
    new_lines: &[&str],
    old_range: std::ops::Range<usize>,
    new_range: std::ops::Range<usize>,
    lines: &mut Vec<DiffLine>,
) {
    let join = |run: &[&str]| -> String { run.iter().flat_map(|l| [*l, "\n"]).collect() };
    let old_text = join(&old_lines[old_range.clone()]);
    let new_text = join(&new_lines[new_range.clone()]);
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .diff_lines(&old_text, &new_text);
    let mut run = Vec::new();
    for op in diff.ops() {
        push_op_lines(&diff, op, &mut run);
    }
    for mut line in run {
        line.old_index = line.old_index.map(|i| i + old_range.start);
        line.new_index = line.new_index.map(|i| i + new_range.start);
        lines.push(line);
    }
}

fn push_op_lines<'a>(diff: &TextDiff<'a, 'a, str>, op: &DiffOp, lines: &mut Vec<DiffLine>) {
    let strip = |s: &str| s.strip_suffix('\n').unwrap_or(s).to_owned();
    let (_, old_range, new_range) = op.as_tag_tuple();
    let refine =
        matches!(op, DiffOp::Replace { .. }) && old_range.len() + new_range.len() <= INLINE_LIMIT;
    if refine {
        // No deadline: emphasis must not depend on machine speed.
        for change in diff.iter_inline_changes_deadline(op, None) {
            let mut segments: Vec<(bool, String)> = Vec::new();
            for (emphasized, text) in change.iter_strings_lossy() {
                segments.push((emphasized, text.into_owned()));
            }
            if let Some((_, last)) = segments.last_mut()
                && last.ends_with('\n')
            {
                last.pop();
            }
            segments.retain(|(_, s)| !s.is_empty());
            lines.push(DiffLine {
                tag: tag_of(change.tag()),
                old_index: change.old_index(),
                new_index: change.new_index(),
                segments,
            });
        }
    } else {
        for change in diff.iter_changes(op) {
            lines.push(DiffLine {
                tag: tag_of(change.tag()),
                old_index: change.old_index(),
                new_index: change.new_index(),
                segments: vec![(false, strip(change.value()))],
            });
        }
    }
}

fn tag_of(tag: ChangeTag) -> LineTag {
    match tag {
        ChangeTag::Equal => LineTag::Equal,
        ChangeTag::Delete => LineTag::Delete,
        ChangeTag::Insert => LineTag::Insert,
    }
}

/// The pretty JSON (two-space indent) a diff compares, with a final line feed so every line
/// is terminated.
pub fn pretty_lines(value: &Value) -> String {
    let mut text = tool::pretty(value);
    text.push('\n');
    text
}

/// The hunks between the pretty JSON of two entries (either may be absent: an added or a
/// removed tool), with [`CONTEXT_LINES`] of context, lines matched as [`json_hunks`] does.
pub fn tool_diff(before: Option<&Value>, after: Option<&Value>) -> Vec<Hunk> {
    let old = before.map(pretty_lines).unwrap_or_default();
    let new = after.map(pretty_lines).unwrap_or_default();
    json_hunks(&old, &new, CONTEXT_LINES)
}

/// The tool change blocks of the messages a projection sends differently
/// ([`Projection::inline`]): an inline definition rewritten (`changed`), a block not sent
/// (`removed`), each named `messages/N/<tool>` (N 1-based) and diffed as JSON.
pub fn inline_diffs(capture: &Capture, projection: &Projection) -> Vec<ToolDiff> {
    use crate::projection::Edit;
    use crate::tool_changes::{Kind, Target, ToolChanges};
    if projection.inline.is_empty() {
        return Vec::new();
    }
    let changes = ToolChanges::read(capture);
    projection
        .inline
        .iter()
        .filter_map(|edit| {
            let change = changes.changes.get(edit.change)?;
            let name = match (&change.target, change.kind) {
                (Target::Inline(_), _) => change.target.label(),
                (target, Kind::Addition) => format!("{} (tool_addition)", target.label()),
                (target, Kind::Removal) => format!("{} (tool_removal)", target.label()),
            };
            let name = format!("messages/{}/{name}", change.message + 1);
            let (status, reason, before, after) = match (&edit.edit, &change.target) {
                (Edit::Definition(new), Target::Inline(old)) => (
                    Status::Changed,
                    "inline definition projected as the tools are",
                    old.clone(),
                    Some(new),
                ),
                (Edit::Dropped, Target::Inline(old)) => {
                    (Status::Removed, "tool change not sent", old.clone(), None)
                }
                (_, target) => (
                    Status::Removed,
                    "tool change not sent",
                    Value::String(target.label()),
                    None,
                ),
            };
            Some(ToolDiff {
                name,
                status,
                reason: reason.to_owned(),
                original: None,
                projected: None,
                hunks: tool_diff(Some(&before), after),
            })
        })
        .collect()
}

/// One tool that a projection changed, added, removed or deferred.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDiff {
    /// The tool's name (raw: sanitize before printing).
    pub name: String,
    /// What happened to it (never `Kept`).
    pub status: Status,
    /// Why, in a few words (raw).
    pub reason: String,
    /// Index in the capture's `tools`, if it came from there.
    pub original: Option<usize>,
    /// Index in the projected `tools`, if sent.
    pub projected: Option<usize>,
    /// The line diff of its pretty JSON.
    pub hunks: Vec<Hunk>,
}

impl ToolDiff {
    /// Lines deleted and inserted over all hunks.
    pub fn line_counts(&self) -> (usize, usize) {
        let mut deleted = 0;
        let mut inserted = 0;
        for line in self.hunks.iter().flat_map(|h| &h.lines) {
            match line.tag {
                LineTag::Delete => deleted += 1,
                LineTag::Insert => inserted += 1,
                LineTag::Equal => {}
            }
        }
        (deleted, inserted)
    }
}

/// Every tool a projection does not keep as it is, in the projection's outcome order
/// (originals in capture order, then added tools). `only` restricts it to tools of that exact
/// name. A tool kept byte-for-byte has no diff, even when it moved.
pub fn projection_diffs(
    capture: &Capture,
    projection: &Projection,
    only: Option<&str>,
) -> Vec<ToolDiff> {
    tool_diffs(capture, projection, only).collect()
}

/// [`projection_diffs`] one tool at a time, each built when it is asked for: printing the diff
/// of 100,000 tools never holds more than one.
pub fn tool_diffs<'a>(
    capture: &'a Capture,
    projection: &'a Projection,
    only: Option<&'a str>,
) -> impl Iterator<Item = ToolDiff> + 'a {
    changed_outcomes(projection, only).map(move |o| diff_of(capture, projection, o))
}

/// The diff of one tool's outcome: its original entry against what the projection sends.
pub fn diff_of(
    capture: &Capture,
    projection: &Projection,
    outcome: &crate::projection::ToolOutcome,
) -> ToolDiff {
    let before = outcome.original.and_then(|i| capture.tools().get(i));
    let after = outcome
        .projected
        .and_then(|i| projection.sent.as_deref().unwrap_or(&[]).get(i))
        .map(|t| t.entry(capture));
    ToolDiff {
        name: outcome.name.to_string(),
        status: outcome.status,
        reason: outcome.reason.to_string(),
        original: outcome.original,
        projected: outcome.projected,
        hunks: tool_diff(before, after),
    }
}

/// The outcomes [`projection_diffs`] has a diff for: every tool not kept (only `only`, when
/// given), in outcome order.
pub fn changed_outcomes<'a>(
    projection: &'a Projection,
    only: Option<&'a str>,
) -> impl Iterator<Item = &'a crate::projection::ToolOutcome> + 'a {
    projection
        .outcomes
        .iter()
        .filter(|o| o.status != Status::Kept)
        .filter(move |o| only.is_none_or(|name| &*o.name == name))
}

/// How the compact `tools` array of a request changed, byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ByteSummary {
    /// Bytes of the array before (0 when the request had no `tools` key).
    pub before_bytes: usize,
    /// Bytes of the array after (0 when the request has no `tools` key).
    pub after_bytes: usize,
    /// First byte that differs: how much of a provider's cached prefix survives. `None` when
    /// the arrays are identical.
    pub first_changed_byte: Option<usize>,
    /// Bytes of the old array that are gone.
    pub bytes_removed: usize,
    /// Bytes of the new array that are new.
    pub bytes_added: usize,
}

/// Compare two compact `tools` arrays given as their entries' compact JSON (`None`: no
/// `tools` key). Entries are matched with a diff over whole entries; a replaced entry counts
/// only the bytes between its common prefix and suffix with its counterpart. So
/// `after_bytes - before_bytes == bytes_added - bytes_removed` always holds.
pub fn tools_summary(before: Option<&[&str]>, after: Option<&[&str]>) -> ByteSummary {
    let bytes = |entries: Option<&[&str]>| {
        entries.map_or(0, |e| {
            2 + e.iter().map(|s| s.len()).sum::<usize>() + e.len().saturating_sub(1)
        })
    };
    let before_bytes = bytes(before);
    let after_bytes = bytes(after);
    let first_changed_byte = crate::compact::first_changed_byte(
        before.unwrap_or(&[]),
        before.is_some(),
        after.unwrap_or(&[]),
        after.is_some(),
    );
    let (bytes_removed, bytes_added) = match (before, after) {
        (None, None) => (0, 0),
        (Some(_), None) => (before_bytes, 0),
        (None, Some(_)) => (0, after_bytes),
        (Some(old), Some(new)) => entry_changes(old, new),
    };
    ByteSummary {
        before_bytes,
        after_bytes,
        first_changed_byte,
        bytes_removed,
        bytes_added,
    }
}

/// Bytes removed and added between two present arrays. Each entry is counted with one
/// separator (`len + 1`), which matches the real size `Σlen + n + 1` of a non-empty array;
/// an empty array (`[]`, 2 bytes) is one byte more than that, corrected at the end.
fn entry_changes(old: &[&str], new: &[&str]) -> (usize, usize) {
    let ops = similar::capture_diff_slices(Algorithm::Myers, old, new);
    let mut removed = 0;
    let mut added = 0;
    for op in ops {
        let (_, old_range, new_range) = op.as_tag_tuple();
        let paired = old_range.len().min(new_range.len());
        for k in 0..paired {
            let (a, b) = (old[old_range.start + k], new[new_range.start + k]);
            if a != b {
                let (r, i) = middle_lengths(a, b);
                removed += r;
                added += i;
            }
        }
        removed += old[old_range.start + paired..old_range.end]
            .iter()
            .map(|e| e.len() + 1)
            .sum::<usize>();
        added += new[new_range.start + paired..new_range.end]
            .iter()
            .map(|e| e.len() + 1)
            .sum::<usize>();
    }
    match (old.is_empty(), new.is_empty()) {
        (false, true) => removed = removed.saturating_sub(1),
        (true, false) => added = added.saturating_sub(1),
        _ => {}
    }
    (removed, added)
}

/// Lengths of what differs between `a` and `b` once their common prefix and suffix are set
/// aside (byte-wise: counts are bytes, the cut need not fall on a char boundary).
fn middle_lengths(a: &str, b: &str) -> (usize, usize) {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (a.len() - suffix, b.len() - suffix)
}

/// [`tools_summary`] of a projection against its capture.
pub fn projection_summary(capture: &Capture, projection: &Projection) -> ByteSummary {
    projection_summary_with(capture, projection, &CaptureJson::new(capture))
}

/// [`projection_summary`] with the capture's entries already serialized: unchanged entries
/// reuse those strings, so only what the projection changed or added is serialized.
pub fn projection_summary_with(
    capture: &Capture,
    projection: &Projection,
    json: &CaptureJson,
) -> ByteSummary {
    let new: Vec<Cow<'_, str>> = projection
        .sent
        .iter()
        .flatten()
        .map(|sent| match (&sent.replaced, sent.origin) {
            (None, Some(index)) => Cow::Borrowed(json.entries[index].as_str()),
            _ => Cow::Owned(tool::compact(sent.entry(capture))),
        })
        .collect();
    let old: Vec<&str> = json.entries.iter().map(String::as_str).collect();
    let new: Vec<&str> = new.iter().map(std::convert::AsRef::as_ref).collect();
    tools_summary(
        capture.has_tools_key().then_some(old.as_slice()),
        projection.sent.as_ref().map(|_| new.as_slice()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(hunks: &[Hunk]) -> String {
        let mut out = String::new();
        for hunk in hunks {
            out.push_str(&hunk.header());
            out.push('\n');
            for line in &hunk.lines {
                out.push(line.tag.sign());
                out.push_str(&line.text());
                out.push('\n');
            }
        }
        out
    }

    #[test]
    fn equal_values_have_no_hunks() {
        let v = json!({"name": "a", "description": "b"});
        assert!(tool_diff(Some(&v), Some(&v)).is_empty());
    }

    #[test]
    fn changed_description_is_one_hunk_with_emphasis() {
        let before = json!({"name": "read", "description": "Reads a file from disk.", "input_schema": {"type": "object"}});
        let after = json!({"name": "read", "description": "Reads a file.", "input_schema": {"type": "object"}});
        let hunks = tool_diff(Some(&before), Some(&after));
        assert_eq!(hunks.len(), 1);
        assert_eq!(
            render(&hunks),
            "@@ -1,6 +1,6 @@\n {\n   \"name\": \"read\",\n-  \"description\": \"Reads a file from disk.\",\n+  \"description\": \"Reads a file.\",\n   \"input_schema\": {\n     \"type\": \"object\"\n   }\n"
        );
        let deleted = &hunks[0].lines[2];
        assert_eq!(deleted.tag, LineTag::Delete);
        assert!(
            deleted
                .segments
                .iter()
                .any(|(e, s)| *e && s.contains("from"))
        );
        assert!(deleted.segments.iter().any(|(e, _)| !e));
    }

    #[test]
    fn a_removed_last_key_is_one_removed_line() {
        let before =
            json!({"name": "read", "description": "Reads.", "input_schema": {"type": "object"}});
        let after = json!({"name": "read", "description": "Reads."});
        let hunks = tool_diff(Some(&before), Some(&after));
        assert_eq!(
            render(&hunks),
            "@@ -1,7 +1,4 @@\n {\n   \"name\": \"read\",\n   \"description\": \"Reads.\"\n-  \"input_schema\": {\n-    \"type\": \"object\"\n-  }\n }\n"
        );
        // And the other way round: an added last key.
        let hunks = tool_diff(Some(&after), Some(&before));
        assert_eq!(hunks[0].header(), "@@ -1,4 +1,7 @@");
        assert_eq!(
            hunks[0]
                .lines
                .iter()
                .filter(|l| l.tag == LineTag::Delete)
                .count(),
            0
        );
        assert_eq!(hunks[0].lines[2].text(), "  \"description\": \"Reads.\",");
    }

    #[test]
    fn added_and_removed_tools_diff_against_nothing() {
        let v = json!({"name": "x"});
        let added = tool_diff(None, Some(&v));
        assert_eq!(
            render(&added),
            "@@ -0,0 +1,3 @@\n+{\n+  \"name\": \"x\"\n+}\n"
        );
        let removed = tool_diff(Some(&v), None);
        assert_eq!(
            render(&removed),
            "@@ -1,3 +0,0 @@\n-{\n-  \"name\": \"x\"\n-}\n"
        );
    }

    #[test]
    fn hunk_headers_follow_diff_u() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new = old.replace("10\n", "ten\n");
        let hunks = text_hunks(&old, &new, 3);
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].header(), "@@ -7,7 +7,7 @@");
        let single = text_hunks("a\n", "b\n", 3);
        assert_eq!(single[0].header(), "@@ -1 +1 @@");
    }

    #[test]
    fn summary_of_identical_arrays() {
        let a = ["{\"name\":\"a\"}", "{\"name\":\"b\"}"];
        let s = tools_summary(Some(&a), Some(&a));
        assert_eq!(s.first_changed_byte, None);
        assert_eq!((s.bytes_removed, s.bytes_added), (0, 0));
        assert_eq!(s.before_bytes, 2 + 12 + 12 + 1);
    }

    #[test]
    fn summary_counts_only_the_changed_middle() {
        let old = ["{\"d\":\"abcdef\"}", "{\"n\":1}"];
        let new = ["{\"d\":\"abf\"}", "{\"n\":1}"];
        let s = tools_summary(Some(&old), Some(&new));
        assert_eq!(s.first_changed_byte, Some(1 + 8));
        assert_eq!((s.bytes_removed, s.bytes_added), (3, 0));
        assert_eq!(
            s.after_bytes as i64 - s.before_bytes as i64,
            s.bytes_added as i64 - s.bytes_removed as i64
        );
    }

    #[test]
    fn summary_balances_for_removals_additions_and_empties() {
        type Side<'a> = Option<&'a [&'a str]>;
        let cases: [(Side, Side); 7] = [
            (Some(&["{}", "{\"a\":1}"]), Some(&["{\"a\":1}"])),
            (Some(&["{}"]), Some(&[])),
            (Some(&[]), Some(&["{}", "{}"])),
            (Some(&["{}"]), None),
            (None, Some(&["{\"b\":2}"])),
            (
                Some(&["{\"x\":1}", "{\"y\":2}"]),
                Some(&["{\"y\":2}", "{\"x\":1}"]),
            ),
            (
                Some(&["{\"x\":1}"]),
                Some(&["{\"x\":1}", "{\"z\":3}", "{\"w\":4}"]),
            ),
        ];
        for (old, new) in cases {
            let s = tools_summary(old, new);
            assert_eq!(
                s.after_bytes as i64 - s.before_bytes as i64,
                s.bytes_added as i64 - s.bytes_removed as i64,
                "{old:?} -> {new:?}: {s:?}"
            );
            assert!(s.first_changed_byte.is_some());
        }
        let removed_all = tools_summary(Some(&["{}"]), Some(&[]));
        assert_eq!((removed_all.bytes_removed, removed_all.bytes_added), (2, 0));
    }

    #[test]
    fn projection_diffs_list_changed_and_removed_tools() {
        let capture = Capture::from_value(json!({
            "model": "m", "messages": [],
            "tools": [
                {"name": "a", "description": "x", "input_schema": {}},
                {"name": "b", "description": "y", "input_schema": {}}
            ]
        }))
        .unwrap();
        let projection = crate::projection::Projection {
            strategy: crate::Strategy::Original,
            sent: Some(vec![crate::projection::SentTool::changed(
                1,
                json!({"name": "b", "description": "z", "input_schema": {}}),
                "test",
            )]),
            outcomes: vec![
                crate::ToolOutcome {
                    name: "a".into(),
                    original: Some(0),
                    projected: None,
                    status: Status::Removed,
                    reason: "gone".into(),
                },
                crate::ToolOutcome {
                    name: "b".into(),
                    original: Some(1),
                    projected: Some(0),
                    status: Status::Changed,
                    reason: "test".into(),
                },
            ],
            notes: vec![],
            added_text: None,
            stored: vec![],
            drop_tool_choice: false,
            inline: vec![],
            status: crate::projection::ProjectionStatus::Ok,
            request_valid: true,
        };
        let diffs = projection_diffs(&capture, &projection, None);
        assert_eq!(diffs.len(), 2);
        assert_eq!(diffs[0].line_counts(), (5, 0));
        assert_eq!(diffs[1].line_counts(), (1, 1));
        assert_eq!(projection_diffs(&capture, &projection, Some("b")).len(), 1);
        let summary = projection_summary(&capture, &projection);
        assert_eq!(
            summary.first_changed_byte,
            Some(1 + 1 + "\"name\":\"".len())
        );
    }
}
