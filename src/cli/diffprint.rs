//! `diff` as text: unified diffs of each changed, added and removed tool, the text a
//! projection adds outside the tool list, and a byte summary of the tools array. Every line
//! of capture text is sanitized; colour is plain ANSI SGR, only when asked.

use std::fmt::Write as _;

use toolprism::diff::{self, DiffLine, LineTag, ToolDiff};
use toolprism::sanitize::visible;
use toolprism::{Capture, Projection, Status};

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const REVERSE: &str = "\x1b[7m";
const NO_REVERSE: &str = "\x1b[27m";
const RESET: &str = "\x1b[0m";

struct Paint(bool);

impl Paint {
    fn wrap(&self, style: &str, text: &str) -> String {
        if self.0 {
            format!("{style}{text}{RESET}")
        } else {
            text.to_owned()
        }
    }
}

/// The whole `diff` output for one projection (optionally one tool).
pub fn render(
    capture: &Capture,
    projection: &Projection,
    only: Option<&str>,
    color: bool,
) -> String {
    let paint = Paint(color);
    let strategy = projection.strategy.id();
    let diffs = diff::projection_diffs(capture, projection, only);
    let mut out = String::new();
    if diffs.is_empty() {
        match only {
            Some(name) => {
                let _ = writeln!(out, "{}: kept unchanged by {strategy}", visible(name));
            }
            None => {
                let _ = writeln!(out, "no tool changed, added or removed by {strategy}");
            }
        }
    }
    for tool in &diffs {
        print_tool(&mut out, tool, strategy, &paint);
    }
    if only.is_none() {
        if let Some(text) = &projection.added_text {
            print_added_text(&mut out, text, strategy, &paint);
        }
        // Notes explain what no hunk shows: a reorder, a moved cache marker, a refusal.
        for note in &projection.notes {
            let _ = writeln!(
                out,
                "{}",
                paint.wrap(
                    BOLD,
                    &format!("# {}: {}", note_word(note), visible(&note.text))
                )
            );
        }
        let mut counts = [0usize; 4];
        for tool in &diffs {
            match tool.status {
                Status::Changed => counts[0] += 1,
                Status::Added => counts[1] += 1,
                Status::Removed => counts[2] += 1,
                Status::Deferred => counts[3] += 1,
                Status::Kept => {}
            }
        }
        let summary = diff::projection_summary(capture, projection);
        let _ = writeln!(
            out,
            "{}",
            paint.wrap(
                BOLD,
                &format!(
                    "{strategy}: {} changed, {} added, {} removed, {} deferred; {}",
                    counts[0],
                    counts[1],
                    counts[2],
                    counts[3],
                    super::summary_line(&summary)
                )
            )
        );
    }
    out
}

fn print_tool(out: &mut String, tool: &ToolDiff, strategy: &str, paint: &Paint) {
    let name = visible(&tool.name);
    let (old, new) = match tool.status {
        Status::Added => ("/dev/null".to_owned(), format!("{strategy}/{name}")),
        Status::Removed | Status::Deferred => (format!("capture/{name}"), "/dev/null".to_owned()),
        _ => (format!("capture/{name}"), format!("{strategy}/{name}")),
    };
    let mut title = format!("{name}: {}", tool.status.word());
    if !tool.reason.is_empty() {
        let _ = write!(title, " ({})", visible(&tool.reason));
    }
    let _ = writeln!(out, "{}", paint.wrap(BOLD, &format!("# {title}")));
    let _ = writeln!(out, "{}", paint.wrap(BOLD, &format!("--- {old}")));
    let _ = writeln!(out, "{}", paint.wrap(BOLD, &format!("+++ {new}")));
    for hunk in &tool.hunks {
        let _ = writeln!(out, "{}", paint.wrap(CYAN, &hunk.header()));
        for line in &hunk.lines {
            print_line(out, line, paint);
        }
    }
}

fn print_line(out: &mut String, line: &DiffLine, paint: &Paint) {
    let sign = line.tag.sign();
    let colour = match line.tag {
        LineTag::Equal => None,
        LineTag::Delete => Some(RED),
        LineTag::Insert => Some(GREEN),
    };
    match (colour, paint.0) {
        (Some(colour), true) => {
            out.push_str(colour);
            out.push(sign);
            for (emphasized, text) in &line.segments {
                let text = visible(text);
                if *emphasized {
                    let _ = write!(out, "{REVERSE}{text}{NO_REVERSE}");
                } else {
                    out.push_str(&text);
                }
            }
            out.push_str(RESET);
        }
        _ => {
            out.push(sign);
            out.push_str(&visible(&line.text()));
        }
    }
    out.push('\n');
}

fn print_added_text(out: &mut String, text: &str, strategy: &str, paint: &Paint) {
    let _ = writeln!(
        out,
        "{}",
        paint.wrap(
            BOLD,
            &format!("# text added outside the tool list by {strategy}")
        )
    );
    let _ = writeln!(out, "{}", paint.wrap(BOLD, "--- /dev/null"));
    let _ = writeln!(
        out,
        "{}",
        paint.wrap(BOLD, &format!("+++ {strategy}/added-text"))
    );
    let lines: Vec<&str> = text.split('\n').collect();
    let _ = writeln!(
        out,
        "{}",
        paint.wrap(CYAN, &format!("@@ -0,0 +1,{} @@", lines.len()))
    );
    for line in lines {
        let _ = writeln!(out, "{}", paint.wrap(GREEN, &format!("+{}", visible(line))));
    }
}

/// `note` for an explanation, else the note's level (`error`, `warning`).
fn note_word(note: &toolprism::Note) -> &'static str {
    match note.level {
        toolprism::Level::Info => "note",
        level => level.word(),
    }
}
