//! A tool diff as visual lines, unified or side by side, wrapped or scrolled, with the search
//! highlighted: the strategy tab's detail and the session view's turn diff draw with it.

use ratatui::text::{Line, Span};

use crate::diff::LineTag;
use crate::text::{fit, safe, width};

use super::diffview::{LineRef, SplitRow, ToolDiff, UniRow};
use super::textview::highlight;
use super::theme::Theme;

/// One visual row of a diff line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct VisualRow {
    /// It continues the row above (drawn after a `↪`).
    continued: bool,
    /// Its text, in runs of changed and unchanged characters.
    pieces: Vec<(bool, String)>,
    /// The line goes on past the edge (not wrapped; drawn with a `›`).
    cut: bool,
}

/// A diff line's segments, sanitized, as visual rows of at most `cells` cells each: wrapped at
/// word boundaries when wrapping is on (continuation rows have one cell less, for their
/// mark), else scrolled by `hscroll` and cut one cell short of the edge, for the cut mark. A
/// line is never cut silently.
fn segment_rows(app: &DiffLayout, segments: &[(bool, String)], cells: usize) -> Vec<VisualRow> {
    let cells = cells.max(2);
    // Grapheme clusters, as the terminal draws them: a cut never separates a character from
    // its modifier or accent.
    let chars: Vec<(bool, String, usize)> = segments
        .iter()
        .flat_map(|(changed, text)| {
            use unicode_segmentation::UnicodeSegmentation;
            safe(text)
                .graphemes(true)
                .map(|g| (*changed, g.to_owned(), crate::text::width(g)))
                .collect::<Vec<_>>()
        })
        .collect();
    let group = |slice: &[(bool, String, usize)]| {
        let mut pieces: Vec<(bool, String)> = Vec::new();
        for (changed, c, _) in slice {
            match pieces.last_mut() {
                Some((ch, piece)) if ch == changed => piece.push_str(c),
                _ => pieces.push((*changed, c.clone())),
            }
        }
        pieces
    };
    let cells_of = |slice: &[(bool, String, usize)]| slice.iter().map(|c| c.2).sum::<usize>();
    if !app.wrap {
        let mut start = 0;
        let mut skipped = 0;
        while start < chars.len() && skipped < app.hscroll {
            skipped += chars[start].2;
            start += 1;
        }
        let rest = &chars[start..];
        if cells_of(rest) <= cells {
            return vec![VisualRow {
                pieces: group(rest),
                ..VisualRow::default()
            }];
        }
        let mut used = 0;
        let mut end = 0;
        while end < rest.len() && used + rest[end].2 < cells {
            used += rest[end].2;
            end += 1;
        }
        return vec![VisualRow {
            pieces: group(&rest[..end]),
            cut: true,
            ..VisualRow::default()
        }];
    }
    let mut rows: Vec<VisualRow> = Vec::new();
    let mut start = 0;
    while start < chars.len() || rows.is_empty() {
        let room = if rows.is_empty() { cells } else { cells - 1 };
        let mut used = 0;
        let mut end = start;
        let mut after_space = None;
        let mut after_joint = None;
        let mut text_seen = false;
        while end < chars.len() && used + chars[end].2 <= room {
            used += chars[end].2;
            end += 1;
            let g = chars[end - 1].1.as_str();
            if g == " " {
                // Not inside the indentation: a row of spaces alone says nothing.
                if text_seen {
                    after_space = Some(end);
                }
            } else {
                text_seen = true;
                if matches!(g, "_" | "-" | "/" | "." | "," | ":") {
                    after_joint = Some(end);
                }
            }
        }
        if end < chars.len() {
            // Break after the last space, so a word or a name is never split; a word longer
            // than the row breaks after its last `_ - / . , :` (between the parts of a name),
            // and is cut where the row ends only when it has none.
            if let Some(at) = after_space.or(after_joint) {
                end = at;
            }
            end = end.max(start + 1);
        }
        rows.push(VisualRow {
            continued: !rows.is_empty(),
            pieces: group(&chars[start..end]),
            cut: false,
        });
        start = end;
    }
    rows
}

/// What laying out a tool diff needs besides the diff (the session view's turn diff draws
/// with it too).
pub struct DiffLayout<'a> {
    /// The styles.
    pub theme: Theme,
    /// Wrap long lines at words (else cut, scrolled by `hscroll`).
    pub wrap: bool,
    /// Cells scrolled when not wrapping.
    pub hscroll: usize,
    /// Search text to highlight.
    pub filter: &'a str,
    /// Side by side instead of unified.
    pub split: bool,
}

/// Every visual line of a tool diff at this width.
pub fn tool_diff_lines(app: &DiffLayout, diff: &ToolDiff, w: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let fold = |n: usize| {
        let text = if n == 1 {
            "⋯ 1 unchanged line".to_owned()
        } else {
            format!("⋯ {n} unchanged lines")
        };
        Line::styled(fit(&text, w), theme.dim())
    };
    // A changed line is tinted whole, to the edge of its side.
    let style_of = |tag: LineTag| match tag {
        LineTag::Equal => theme.text(),
        LineTag::Delete => theme.del_line(),
        LineTag::Insert => theme.ins_line(),
    };
    // One side of a row as visual lines, each `cells + 1` wide: the sign, then the text
    // (changed words emphasised), then the tint to the edge.
    let side = |at: Option<LineRef>, cells: usize| -> Vec<Vec<Span<'static>>> {
        let Some(line) = at.and_then(|at| diff.line(at)) else {
            return Vec::new();
        };
        let base = style_of(line.tag);
        segment_rows(app, &line.segments, cells)
            .into_iter()
            .map(|row| {
                // The sign repeats on wrapped lines, so the meaning survives without colour.
                let mut spans = vec![Span::styled(line.tag.sign().to_string(), base)];
                if row.continued {
                    spans.push(Span::styled("↪", theme.dim()));
                }
                for (changed, text) in row.pieces {
                    let style = if changed { theme.emphasis(base) } else { base };
                    spans.extend(highlight(&text, app.filter, style, theme.found()).spans);
                }
                if row.cut {
                    spans.push(Span::styled("›", theme.dim()));
                }
                let used: usize = spans.iter().map(|s| width(&s.content)).sum();
                if line.tag != LineTag::Equal && used < cells + 1 {
                    spans.push(Span::styled(" ".repeat(cells + 1 - used), base));
                }
                spans
            })
            .collect()
    };
    let mut lines = Vec::new();
    match app.split {
        true => {
            // Equal content widths on both sides, so long lines break at the same place.
            let cells = (w.saturating_sub(1) / 2).saturating_sub(1);
            for row in &diff.split {
                match *row {
                    SplitRow::Fold(n) => lines.push(fold(n)),
                    SplitRow::Pair(old, new) => {
                        let left = side(old, cells);
                        let right = side(new, cells);
                        for k in 0..left.len().max(right.len()).max(1) {
                            let mut spans = left.get(k).cloned().unwrap_or_default();
                            let used: usize = spans.iter().map(|s| width(&s.content)).sum();
                            spans.push(Span::raw(" ".repeat((cells + 1).saturating_sub(used))));
                            spans.push(Span::styled("│", theme.dim()));
                            spans.extend(right.get(k).cloned().unwrap_or_default());
                            lines.push(Line::from(spans));
                        }
                    }
                }
            }
        }
        _ => {
            for row in &diff.unified {
                match *row {
                    UniRow::Fold(n) => lines.push(fold(n)),
                    UniRow::Line(at) => lines.extend(
                        side(Some(at), w.saturating_sub(1))
                            .into_iter()
                            .map(Line::from),
                    ),
                }
            }
        }
    }
    lines
}
