//! The `report` table: plain text, aligned by display width, every capture string sanitized.
//! The layout depends on nothing but the report (no terminal width), so it is stable for
//! snapshots and pipes.

use std::fmt::Write as _;

use toolprism::report::{Report, StrategyFigures, ToolFigures};
use toolprism::sanitize::visible;
use toolprism::text::{fit, pad, pad_left as rpad, signed, thousands, width};

/// Widest tool-name column before names are cut with `…`.
const NAME_WIDTH: usize = 40;

/// Aligned rows: `right[i]` right-aligns column i. The last column is never padded.
pub(crate) fn grid(rows: &[Vec<String>], right: &[bool], indent: &str) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| width(s))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::from(indent);
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let last = c + 1 == row.len();
            if right.get(c).copied().unwrap_or(false) {
                line.push_str(&rpad(cell, widths[c]));
            } else if last {
                line.push_str(cell);
            } else {
                line.push_str(&pad(cell, widths[c]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A few words on what a strategy did: counts of changed, removed and added tools, and the
/// text it adds outside the tool list.
fn short_note(figures: &StrategyFigures) -> String {
    let count = |state: &str| figures.per_tool.iter().filter(|t| t.state == state).count();
    let mut parts = Vec::new();
    for state in ["changed", "removed", "deferred", "added"] {
        let n = count(state);
        if n > 0 {
            parts.push(format!("{n} {state}"));
        }
    }
    let moved = figures.first_changed_byte.is_some() && parts.is_empty();
    if moved {
        parts.push("reordered".to_owned());
    }
    if figures.added_tokens > 0 {
        parts.push(format!(
            "+{} tokens of added text",
            thousands(figures.added_tokens)
        ));
    }
    if parts.is_empty() {
        parts.push("unchanged".to_owned());
    }
    parts.join(", ")
}

/// The whole `report` table, with the notes, the origins' estimates and the provider overhead
/// under it; `per_tool` adds a table per strategy.
pub fn report_table(report: &Report, per_tool: bool) -> String {
    let capture = &report.capture;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {}, {} tools, {} bytes, {} tokens ({})",
        visible(toolprism::capture::display_name(&capture.path)),
        capture.shape,
        thousands(capture.tools),
        thousands(capture.tools_bytes),
        thousands(capture.tools_tokens),
        report.encoding
    );
    out.push('\n');

    let mut rows = vec![
        [
            "strategy",
            "tools",
            "tokens",
            "saved",
            "saved%",
            "cache prefix",
            "note",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for s in &report.strategies {
        rows.push(vec![
            s.id.to_owned(),
            thousands(s.tools),
            thousands(s.total_tokens),
            signed(s.saved_tokens),
            format!("{:.2}%", s.saved_pct),
            match s.first_changed_byte {
                None => "all kept".to_owned(),
                Some(at) => format!("{} B", thousands(at)),
            },
            short_note(s),
        ]);
    }
    out.push_str(&grid(
        &rows,
        &[false, true, true, true, true, true, false],
        "",
    ));
    out.push_str(
        "\ntokens: the projected tools array plus any text added outside it. cache prefix: bytes of\nthe compact tools array that stay identical (a provider's prompt cache keeps that much).\n",
    );

    let with_notes: Vec<&StrategyFigures> = report
        .strategies
        .iter()
        .filter(|s| !s.notes.is_empty())
        .collect();
    if !with_notes.is_empty() {
        out.push_str("\nnotes\n");
        for s in with_notes {
            for note in &s.notes {
                let _ = writeln!(out, "  {}: {}", s.id, visible(note));
            }
        }
    }

    out.push_str("\norigin estimates of the projected list (tokens, by each host's own formula)\n");
    let mut rows = vec![
        ["strategy", "vtcode", "a3s", "zero", "lean-ctx", "tiktoken"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for s in &report.strategies {
        let e = &s.estimates;
        rows.push(vec![
            s.id.to_owned(),
            thousands(e.vtcode),
            thousands(e.a3s),
            thousands(e.zero),
            thousands(e.lean_ctx),
            thousands(s.tools_tokens),
        ]);
    }
    out.push_str(&grid(&rows, &[false, true, true, true, true, true], "  "));

    if let Some(line) = overhead_line(report) {
        out.push('\n');
        out.push_str(&line);
    }

    if per_tool {
        for s in &report.strategies {
            let _ = write!(out, "\n{} per tool\n", s.id);
            out.push_str(&per_tool_table(&s.per_tool));
        }
    }
    out
}

/// Anthropic's tool-use system prompt, labelled apart: it is the provider's, not any tool's.
fn overhead_line(report: &Report) -> Option<String> {
    let with: Vec<(&str, usize)> = report
        .strategies
        .iter()
        .filter_map(|s| s.provider_overhead_tokens.map(|t| (s.id, t)))
        .collect();
    let (_, tokens) = *with.first()?;
    let without: Vec<&str> = report
        .strategies
        .iter()
        .filter(|s| s.provider_overhead_tokens.is_none())
        .map(|s| s.id)
        .collect();
    let mut line = format!(
        "provider overhead (a separate estimate, in no figure above): Anthropic adds a tool-use\nsystem prompt of about {tokens} tokens to each request that sends tools (346 with tool_choice\nauto or none, 313 with any or tool)"
    );
    if !without.is_empty() {
        let _ = write!(line, "; none for {}", without.join(", "));
    }
    line.push_str(".\n");
    Some(line)
}

fn per_tool_table(tools: &[ToolFigures]) -> String {
    let mut rows = vec![
        ["tool", "status", "tokens", "→", "bytes", "→", "reason"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for t in tools {
        rows.push(vec![
            fit(&visible(&t.name), NAME_WIDTH),
            t.state.to_owned(),
            thousands(t.original_tokens),
            thousands(t.projected_tokens),
            thousands(t.original_bytes),
            thousands(t.projected_bytes),
            visible(&t.reason).into_owned(),
        ]);
    }
    grid(&rows, &[false, false, true, true, true, true, false], "  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_aligns_wide_text() {
        let rows = vec![
            vec!["漢字".to_owned(), "1".to_owned(), "x".to_owned()],
            vec!["ab".to_owned(), "100".to_owned(), "y".to_owned()],
        ];
        assert_eq!(
            grid(&rows, &[false, true, false], ""),
            "漢字    1  x\nab    100  y\n"
        );
    }
}
