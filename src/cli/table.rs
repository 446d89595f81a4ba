//! The `report` table: plain text, aligned by display width, every capture string sanitized.
//! The layout depends on nothing but the report (no terminal width), so it is stable for
//! snapshots and pipes.

use std::fmt::Write as _;

use toolprism::report::{Report, StrategyFigures, ToolFigures};
use toolprism::sanitize::visible;
use toolprism::text::{fit, pad, pad_left as rpad, signed, thousands, width};
use toolprism::{Level, Note};

/// Widest tool-name column before names are cut with `…`.
const NAME_WIDTH: usize = 40;

/// Aligned rows: `right[i]` right-aligns column i. The last column is never padded.
fn grid(rows: &[Vec<String>], right: &[bool], indent: &str) -> String {
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
    if figures.is_refused() {
        return "refused by the host (see notes)".to_owned();
    }
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
    if let Some(added) = figures.added_tokens.filter(|&t| t > 0) {
        parts.push(format!("+{} tokens of added text", thousands(added)));
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
            "status",
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
    // With provider-deferred entries, savings are on context tokens: show those too.
    let deferral = report.capture.context_tokens != report.capture.tools_tokens
        || report
            .strategies
            .iter()
            .any(|s| s.context_tokens != s.tools_tokens);
    if deferral {
        rows[0].insert(4, "context".to_owned());
    }
    let dash = || "-".to_owned();
    for s in in_table_order(report) {
        let mut row = vec![
            s.id.to_owned(),
            status_cell(s),
            s.tools.map_or_else(dash, thousands),
            s.total_tokens.map_or_else(dash, thousands),
            s.saved_tokens.map_or_else(dash, signed),
            s.saved_pct.map_or_else(dash, |p| format!("{p:.2}%")),
            match (s.is_refused(), s.first_changed_byte) {
                (true, _) => dash(),
                (false, None) => "all kept".to_owned(),
                (false, Some(at)) => format!("{} B", thousands(at)),
            },
            short_note(s),
        ];
        if deferral {
            let context = s.context_tokens.zip(s.added_tokens).map(|(c, a)| c + a);
            row.insert(4, context.map_or_else(dash, thousands));
        }
        rows.push(row);
    }
    let mut right = vec![false, false, true, true, true, true, true, false];
    if deferral {
        right.insert(4, true);
    }
    out.push_str(&grid(&rows, &right, ""));
    out.push_str(
        "\ntokens: the projected tools array plus any text added outside it. cache prefix: bytes of\nthe compact tools array that stay identical (a provider's prompt cache keeps that much).\nstatus: n/a = nothing to act on (the host's fallback, figures shown); refused = the host\nrejects the list (no figures); `!` = a provider would reject the projected request.\n",
    );
    if report.capture.context_tokens != report.capture.tools_tokens {
        let _ = writeln!(
            out,
            "context: tokens in the model's context (entries marked defer_loading stay out until the\nprovider's tool search returns them; {} for the capture): saved is measured on these.",
            thousands(report.capture.context_tokens)
        );
    }

    // Errors first, then warnings, then explanations; strategies in table order within each.
    let mut notes: Vec<(&str, &Note)> = in_table_order(report)
        .flat_map(|s| s.notes.iter().map(move |n| (s.id, n)))
        .collect();
    notes.sort_by_key(|(_, n)| n.level);
    if !notes.is_empty() {
        out.push_str("\nnotes\n");
        for (id, note) in notes {
            let level = match note.level {
                Level::Info => String::new(),
                level => format!("{}: ", level.word()),
            };
            let _ = writeln!(out, "  {id}: {level}{}", visible(&note.text));
        }
    }

    out.push_str("\norigin estimates of the projected list (tokens, by each host's own formula)\n");
    let mut rows = vec![
        ["strategy", "vtcode", "a3s", "zero", "lean-ctx", "tiktoken"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for s in in_table_order(report) {
        match (&s.estimates, s.tools_tokens) {
            (Some(e), Some(tokens)) => rows.push(vec![
                s.id.to_owned(),
                thousands(e.vtcode),
                thousands(e.a3s),
                thousands(e.zero),
                thousands(e.lean_ctx),
                thousands(tokens),
            ]),
            _ => rows.push(vec![
                s.id.to_owned(),
                dash(),
                dash(),
                dash(),
                dash(),
                "refused".to_owned(),
            ]),
        }
    }
    out.push_str(&grid(&rows, &[false, true, true, true, true, true], "  "));

    if let Some(line) = overhead_line(report) {
        out.push('\n');
        out.push_str(&line);
    }

    if per_tool {
        for s in in_table_order(report) {
            let _ = write!(out, "\n{} per tool\n", s.id);
            if s.is_refused() {
                out.push_str("  refused by the host: no figures\n");
            } else {
                out.push_str(&per_tool_table(&s.per_tool));
            }
        }
    }
    out
}

/// The strategies as tables list them: in the order requested, refused ones last.
fn in_table_order(report: &Report) -> impl Iterator<Item = &StrategyFigures> {
    let (kept, refused): (Vec<_>, Vec<_>) = report.strategies.iter().partition(|s| !s.is_refused());
    kept.into_iter().chain(refused)
}

/// `ok`, `n/a` or `refused`, with `!` when a provider would reject the projected request.
fn status_cell(figures: &StrategyFigures) -> String {
    let word = match figures.status {
        "not_applicable" => "n/a",
        other => other,
    };
    if figures.request_valid || figures.is_refused() {
        word.to_owned()
    } else {
        format!("{word} !")
    }
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
        .filter(|s| s.provider_overhead_tokens.is_none() && !s.is_refused())
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
