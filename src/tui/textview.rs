//! A tool entry laid out for reading, in two view modes (as mitmproxy's content views): the
//! JSON view (pretty JSON, long lines wrapped at words with a hanging indent under the value
//! they continue) and the text view (each prose string on its own, its `\n` rendered as line
//! breaks). Pure functions of the entry and a width, shared by the drawing and by the update
//! (which finds the rows `n`/`N` jump to), plus the search highlight.
//!
//! Every string that comes from the capture goes through [`crate::text::safe`] before it is
//! measured or drawn.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::text::{safe, width};
use crate::tool;

use super::widgets::wrap;

/// How the entries are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewMode {
    /// Pretty JSON.
    #[default]
    Json,
    /// The entry's prose strings with their line breaks.
    Text,
}

impl ViewMode {
    /// Its name in titles.
    pub fn label(self) -> &'static str {
        match self {
            ViewMode::Json => "JSON",
            ViewMode::Text => "text",
        }
    }
}

/// What a row of the text view is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// A JSON line, or a string's text.
    Body,
    /// Where the string below sits in the entry (its path).
    Heading,
}

/// One visual row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRow {
    /// What it is (the drawing styles a heading).
    pub kind: RowKind,
    /// The text, sanitized, at most the width it was laid out for (unless not wrapped).
    pub text: String,
}

impl TextRow {
    fn body(text: String) -> TextRow {
        TextRow {
            kind: RowKind::Body,
            text,
        }
    }
}

/// The rows of `entry` in `mode`, `cells` wide. The JSON view wraps only when `wrap` is on
/// (else each JSON line is one row, scrolled sideways); the text view always wraps.
pub fn entry_rows(entry: &Value, mode: ViewMode, cells: usize, wrap_on: bool) -> Vec<TextRow> {
    let cells = cells.max(1);
    match mode {
        ViewMode::Json => tool::pretty(entry)
            .lines()
            .flat_map(|line| {
                let line = safe(line);
                if wrap_on {
                    wrap_hanging(&line, cells, hanging_indent(&line, cells))
                } else {
                    vec![line]
                }
            })
            .map(TextRow::body)
            .collect(),
        ViewMode::Text => text_rows(entry, cells),
    }
}

/// Where a wrapped JSON line's continuation rows start: under the first character of a string
/// value (`"description": "` → the column after the quote), else two cells in from the line's
/// own indent; never more than a third of the width, so continuations keep room.
pub fn hanging_indent(line: &str, cells: usize) -> usize {
    let lead = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[lead..];
    let after_key = rest
        .strip_prefix('"')
        .and_then(key_end)
        .map(|end| &rest[end + 1..])
        .filter(|r| r.starts_with(": "));
    let value_start = match after_key {
        // `"key": "` before the string's text.
        Some(after) => after
            .strip_prefix(": \"")
            .map(|text| width(line) - width(text)),
        // A string in an array.
        None if rest.starts_with('"') => Some(lead + 1),
        None => None,
    };
    let indent = value_start.unwrap_or(lead + 2);
    if indent <= cells / 3 {
        indent
    } else {
        (lead + 2).min(cells / 3)
    }
}

/// The byte index of the quote that closes a JSON string whose opening quote was just before
/// `s`.
fn key_end(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// `text` wrapped at word boundaries to `cells`, its continuation rows indented by `indent`
/// spaces (and wrapped to what is left).
pub fn wrap_hanging(text: &str, cells: usize, indent: usize) -> Vec<String> {
    let cells = cells.max(1);
    let indent = indent.min(cells.saturating_sub(1));
    let pad = " ".repeat(indent);
    crate::text::wrap_hanging(text, cells, cells - indent, crate::text::LongWords::Break)
        .into_iter()
        .enumerate()
        .map(|(i, l)| if i == 0 { l } else { format!("{pad}{l}") })
        .collect()
}

/// The text view: the tool's name, then every prose string of the entry (a value with a space
/// or a line break in it: descriptions, titles, examples) under its path, its line breaks as
/// rows and its lines wrapped at words. Identifiers and types stay in the JSON view.
fn text_rows(entry: &Value, cells: usize) -> Vec<TextRow> {
    let mut rows = Vec::new();
    if let Some(name) = tool::name(entry) {
        for l in wrap(&format!("name: {}", safe(name)), cells) {
            rows.push(TextRow::body(l));
        }
    }
    let mut strings = Vec::new();
    prose_strings(entry, &mut Vec::new(), &mut strings);
    for (path, text) in strings {
        if !rows.is_empty() {
            rows.push(TextRow::body(String::new()));
        }
        for l in wrap(&path, cells) {
            rows.push(TextRow {
                kind: RowKind::Heading,
                text: l,
            });
        }
        let body = cells.saturating_sub(2).max(1);
        // `\r\n` is a line break too; a lone `\r` stays visible.
        for line in text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)) {
            for l in wrap(&safe(line), body) {
                rows.push(TextRow::body(format!("  {l}")));
            }
        }
    }
    if rows.is_empty() {
        rows.push(TextRow::body("(no text in this entry)".to_owned()));
    }
    rows
}

/// Every prose string under `value`, in document order, with its path (keys sanitized and
/// joined with ` › `, array items as `[i]`).
fn prose_strings<'a>(value: &'a Value, path: &mut Vec<String>, out: &mut Vec<(String, &'a str)>) {
    match value {
        Value::String(s) if s.contains([' ', '\n']) && !path.is_empty() => {
            out.push((path.join(" › "), s));
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(format!("[{i}]"));
                prose_strings(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                path.push(safe(key));
                prose_strings(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The rows that contain `needle` (case-insensitive; empty: none).
pub fn match_rows(rows: &[TextRow], needle: &str) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    rows.iter()
        .enumerate()
        .filter(|(_, r)| !find(&r.text, needle).is_empty())
        .map(|(i, _)| i)
        .collect()
}

/// The character ranges where `needle` occurs in `text`, case-insensitively, without overlaps.
pub fn find(text: &str, needle: &str) -> Vec<std::ops::Range<usize>> {
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    let hay: Vec<char> = text.chars().map(fold).collect();
    let pin: Vec<char> = needle.chars().map(fold).collect();
    let mut out = Vec::new();
    if pin.is_empty() || pin.len() > hay.len() {
        return out;
    }
    let mut i = 0;
    while i + pin.len() <= hay.len() {
        if hay[i..i + pin.len()] == pin[..] {
            out.push(i..i + pin.len());
            i += pin.len();
        } else {
            i += 1;
        }
    }
    out
}

/// `text` as spans in `base`, each occurrence of `needle` in `found`.
pub fn highlight(text: &str, needle: &str, base: Style, found: Style) -> Line<'static> {
    let ranges = find(text, needle);
    if ranges.is_empty() {
        // On the span, not the line: callers take the spans into lines of their own.
        return Line::from(Span::styled(text.to_owned(), base));
    }
    let chars: Vec<char> = text.chars().collect();
    let mut spans = Vec::new();
    let mut at = 0;
    for r in ranges {
        if r.start > at {
            spans.push(Span::styled(
                chars[at..r.start].iter().collect::<String>(),
                base,
            ));
        }
        spans.push(Span::styled(
            chars[r.clone()].iter().collect::<String>(),
            found,
        ));
        at = r.end;
    }
    if at < chars.len() {
        spans.push(Span::styled(chars[at..].iter().collect::<String>(), base));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(rows: &[TextRow]) -> Vec<&str> {
        rows.iter().map(|r| r.text.as_str()).collect()
    }

    #[test]
    fn json_strings_wrap_under_their_value() {
        let line = r#"  "description": "Read a file from disk. Returns its contents.","#;
        assert_eq!(hanging_indent(line, 60), 18);
        assert_eq!(
            wrap_hanging(line, 60, 18),
            [
                r#"  "description": "Read a file from disk. Returns its"#,
                r#"                  contents.","#,
            ]
        );
        // Too deep a value for the width: two cells in from the line's indent.
        assert_eq!(hanging_indent(line, 30), 4);
        // Not a string value: two in from the indent; a string in an array: after its quote.
        assert_eq!(hanging_indent(r#"    "required": ["#, 40), 6);
        assert_eq!(hanging_indent(r#"      "a long enum value","#, 40), 7);
        // A key with an escaped quote still finds its value.
        assert_eq!(hanging_indent(r#"  "a\"b": "x y""#, 40), 11);
    }

    #[test]
    fn json_view_wraps_only_when_asked() {
        let entry =
            json!({"name": "t", "description": "one two three four five six seven eight nine ten"});
        let wrapped = entry_rows(&entry, ViewMode::Json, 24, true);
        assert_eq!(
            texts(&wrapped),
            [
                "{",
                r#"  "name": "t","#,
                // The value starts past half the width: two cells in from the key.
                r#"  "description": "one"#,
                r"    two three four five",
                r"    six seven eight nine",
                r#"    ten""#,
                "}",
            ]
        );
        let wide = entry_rows(&entry, ViewMode::Json, 54, true);
        assert_eq!(
            texts(&wide[2..4]),
            [
                r#"  "description": "one two three four five six seven"#,
                r#"                  eight nine ten""#
            ]
        );
        let long = entry_rows(&entry, ViewMode::Json, 24, false);
        assert_eq!(
            long[2].text,
            r#"  "description": "one two three four five six seven eight nine ten""#
        );
    }

    #[test]
    fn text_view_renders_line_breaks_and_lists_prose_strings_by_path() {
        let entry = json!({
            "name": "read_file",
            "description": "Read a file.\n\nUse it first.\r\nThen edit.",
            "input_schema": {"type": "object", "properties": {
                "path": {"type": "string", "description": "Path of the file, from the root."},
                "mode": {"type": "string", "enum": ["plain text", "raw"]}
            }}
        });
        let rows = entry_rows(&entry, ViewMode::Text, 30, false);
        assert_eq!(
            texts(&rows),
            [
                "name: read_file",
                "",
                "description",
                "  Read a file.",
                "  ",
                "  Use it first.",
                "  Then edit.",
                "",
                "input_schema › properties ›",
                "path › description",
                "  Path of the file, from the",
                "  root.",
                "",
                "input_schema › properties ›",
                "mode › enum › [0]",
                "  plain text",
            ]
        );
        assert_eq!(rows[2].kind, RowKind::Heading);
        assert_eq!(rows[3].kind, RowKind::Body);
    }

    #[test]
    fn text_view_makes_hostile_text_visible() {
        let entry =
            json!({"name": "a\u{1b}[2Jb", "description": "bell\u{7} and \u{202e}rlo\nnext"});
        let rows = entry_rows(&entry, ViewMode::Text, 60, true);
        for r in &rows {
            assert!(
                !r.text.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{r:?}"
            );
        }
        assert_eq!(rows.len(), 5, "{rows:?}");
        assert!(rows[3].text.contains("⟨U+202E⟩rlo"), "{rows:?}");
        assert_eq!(rows[4].text, "  next");
        let empty = entry_rows(&json!({"type": "x"}), ViewMode::Text, 60, true);
        assert_eq!(texts(&empty), ["(no text in this entry)"]);
    }

    #[test]
    fn matches_are_found_case_insensitively() {
        assert_eq!(find("Git and GIT and gitx", "git"), [0..3, 8..11, 16..19]);
        assert_eq!(find("aaaa", "aa"), [0..2, 2..4]);
        assert!(find("abc", "").is_empty());
        let rows = vec![
            TextRow::body("read_file".into()),
            TextRow::body("Git".into()),
        ];
        assert_eq!(match_rows(&rows, "git"), [1]);
        let line = highlight("a Git b", "git", Style::new(), Style::new().bold());
        let parts: Vec<&str> = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(parts, ["a ", "Git", " b"]);
        assert_eq!(line.spans[1].style, Style::new().bold());
    }
}
