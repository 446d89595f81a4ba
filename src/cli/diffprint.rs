//! `diff` as text a pager or delta can render: the summary first (counts, the byte summary of
//! the tools array, the notes), then one git-style section per changed, added, removed or
//! deferred tool (`diff --git a/NAME b/NAME`, `---`, `+++`, `@@ … @@ status: reason`), then
//! the text a projection adds outside the tool list. `--stat` replaces the sections with
//! `git diff --stat`-style lines. Every line of capture text is sanitized; colour is plain ANSI
//! SGR, only when asked, with the changed words of a replaced line in reverse video.

use std::fmt::Write as _;

use rayon::prelude::*;

use toolprism::diff::{self, DiffLine, Hunk, LineTag, ToolDiff};
use toolprism::sanitize::visible;
use toolprism::text::{pad, pad_left, thousands, width};
use toolprism::{Capture, Projection, Status};

use super::manners::count;

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const REVERSE: &str = "\x1b[7m";
const NO_REVERSE: &str = "\x1b[27m";
const RESET: &str = "\x1b[0m";

/// The widest `--stat` bar, in cells.
const STAT_BAR: usize = 40;

/// What to print.
pub struct Options<'a> {
    /// Only this tool (exact name).
    pub only: Option<&'a str>,
    /// ANSI colour and word emphasis.
    pub color: bool,
    /// `--stat`: one line per tool instead of the hunks.
    pub stat: bool,
    /// A first line naming the request, for a turn of a trace (`trace.jsonl turn 5 (line 9)`);
    /// a single capture's diff starts with its summary, as before.
    pub title: Option<&'a str>,
}

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

/// The whole `diff` output for one projection.
pub fn render(capture: &Capture, projection: &Projection, options: &Options) -> String {
    let paint = Paint(options.color);
    let strategy = projection.strategy.id();
    // Each tool's diff is built as it is printed; the summary needs only the statuses.
    let changed: Vec<&toolprism::ToolOutcome> =
        diff::changed_outcomes(projection, options.only).collect();
    let statuses: Vec<Status> = changed.iter().map(|o| o.status).collect();
    let mut out = String::new();
    if let Some(title) = options.title {
        let _ = writeln!(out, "{}", paint.wrap(BOLD, &visible(title)));
    }
    match options.only {
        Some(name) if statuses.is_empty() => {
            let _ = writeln!(out, "{}: kept unchanged by {strategy}", visible(name));
        }
        Some(_) => {}
        None => print_summary(&mut out, capture, projection, &statuses, &paint),
    }
    if options.stat {
        print_stat(
            &mut out,
            diff::tool_diffs(capture, projection, options.only),
            &paint,
        );
        return out;
    }
    // Built and printed in parallel, a window of tools at a time, appended in order.
    for window in changed.chunks(4096) {
        let texts: Vec<String> = window
            .par_iter()
            .map(|outcome| {
                let mut text = String::new();
                print_tool(
                    &mut text,
                    &diff::diff_of(capture, projection, outcome),
                    &paint,
                );
                text
            })
            .collect();
        for text in texts {
            out.push_str(&text);
        }
    }
    if options.only.is_none() {
        for inline in toolprism::diff::inline_diffs(capture, projection) {
            print_tool(&mut out, &inline, &paint);
        }
    }
    if options.only.is_none()
        && let Some(text) = &projection.added_text
    {
        print_added_text(&mut out, text, strategy, &paint);
    }
    out
}

/// Counts and bytes first (what a reader wants before scrolling), then the notes, which
/// explain what no hunk shows: a reorder, a moved cache marker, a refusal.
fn print_summary(
    out: &mut String,
    capture: &Capture,
    projection: &Projection,
    statuses: &[Status],
    paint: &Paint,
) {
    let strategy = projection.strategy.id();
    let of = |status: Status| statuses.iter().filter(|&&s| s == status).count();
    let line = if statuses.is_empty() {
        format!("{strategy}: no tool changed, added or removed")
    } else {
        format!(
            "{strategy}: {} changed, {} added, {} removed, {} deferred",
            thousands(of(Status::Changed)),
            thousands(of(Status::Added)),
            thousands(of(Status::Removed)),
            thousands(of(Status::Deferred)),
        )
    };
    let _ = writeln!(out, "{}", paint.wrap(BOLD, &line));
    let summary = diff::projection_summary(capture, projection);
    let _ = writeln!(out, "{}", super::summary_line(&summary));
    for note in &projection.notes {
        let _ = writeln!(out, "{}: {}", note_word(note), visible(&note.text));
    }
    in_effect_lines(out, capture, projection);
    out.push('\n');
}

/// The tools in effect when the messages change them: the diff is of the declared list, then
/// of the tool change blocks the projection sends differently (`messages/N/...`).
fn in_effect_lines(out: &mut String, capture: &Capture, projection: &Projection) {
    let changes = toolprism::tool_changes::ToolChanges::read(capture);
    if changes.changes.is_empty() {
        return;
    }
    let effect = changes.in_effect(capture);
    let each: Vec<String> = effect
        .tools
        .iter()
        .chain(&effect.removed)
        .map(|t| format!("{} ({})", visible(&t.name), t.source()))
        .collect();
    let how = match projection.inline.len() {
        0 => "sent as they are".to_owned(),
        n => format!("{n} of their blocks sent differently, diffed as messages/N/..."),
    };
    let _ = writeln!(
        out,
        "tools in effect (the messages change them; {how}): {}",
        each.join(", ")
    );
}

/// A name as a git path: quoted, as git quotes, when it holds a space, a quote or a backslash.
fn git_path(prefix: &str, name: &str) -> String {
    if name.contains([' ', '"', '\\']) {
        format!(
            "\"{prefix}{}\"",
            name.replace('\\', "\\\\").replace('"', "\\\"")
        )
    } else {
        format!("{prefix}{name}")
    }
}

fn print_tool(out: &mut String, tool: &ToolDiff, paint: &Paint) {
    let name = visible(&tool.name);
    let (a, b) = (git_path("a/", &name), git_path("b/", &name));
    let _ = writeln!(out, "{}", paint.wrap(BOLD, &format!("diff --git {a} {b}")));
    let (old, new) = match tool.status {
        Status::Added => {
            let _ = writeln!(out, "{}", paint.wrap(BOLD, "new file mode 100644"));
            ("/dev/null".to_owned(), b)
        }
        Status::Removed | Status::Deferred => {
            let _ = writeln!(out, "{}", paint.wrap(BOLD, "deleted file mode 100644"));
            (a, "/dev/null".to_owned())
        }
        _ => (a, b),
    };
    let _ = writeln!(out, "{}", paint.wrap(BOLD, &format!("--- {old}")));
    let _ = writeln!(out, "{}", paint.wrap(BOLD, &format!("+++ {new}")));
    // The status and reason ride in the hunk header's free-text part, where git puts the
    // enclosing function: pagers show it, patch tools ignore it.
    let mut context = tool.status.word().to_owned();
    if !tool.reason.is_empty() {
        let _ = write!(context, ": {}", visible(&tool.reason));
    }
    for (i, hunk) in tool.hunks.iter().enumerate() {
        print_hunk_header(out, hunk, (i == 0).then_some(context.as_str()), paint);
        for line in &hunk.lines {
            print_line(out, line, paint);
        }
    }
}

fn print_hunk_header(out: &mut String, hunk: &Hunk, context: Option<&str>, paint: &Paint) {
    let header = hunk.header();
    match context {
        Some(context) if paint.0 => {
            let _ = writeln!(out, "{CYAN}{header}{RESET} {context}");
        }
        Some(context) => {
            let _ = writeln!(out, "{header} {context}");
        }
        None => {
            let _ = writeln!(out, "{}", paint.wrap(CYAN, &header));
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
    let name = format!("{strategy}.added-text");
    let _ = writeln!(
        out,
        "{}",
        paint.wrap(BOLD, &format!("diff --git a/{name} b/{name}"))
    );
    let _ = writeln!(out, "{}", paint.wrap(BOLD, "new file mode 100644"));
    let _ = writeln!(out, "{}", paint.wrap(BOLD, "--- /dev/null"));
    let _ = writeln!(out, "{}", paint.wrap(BOLD, &format!("+++ b/{name}")));
    let lines: Vec<&str> = text.split('\n').collect();
    let header = match lines.len() {
        1 => "@@ -0,0 +1 @@".to_owned(),
        n => format!("@@ -0,0 +1,{n} @@"),
    };
    let _ = writeln!(
        out,
        "{} text added outside the tool list",
        paint.wrap(CYAN, &header)
    );
    for line in lines {
        let _ = writeln!(out, "{}", paint.wrap(GREEN, &format!("+{}", visible(line))));
    }
}

/// `git diff --stat`: ` NAME | N ++--`, bars scaled to [`STAT_BAR`] cells, and a total.
fn print_stat(out: &mut String, diffs: impl Iterator<Item = ToolDiff>, paint: &Paint) {
    let counts: Vec<(String, usize, usize)> = diffs
        .map(|d| {
            let (deleted, inserted) = d.line_counts();
            (visible(&d.name).into_owned(), deleted, inserted)
        })
        .collect();
    let name_width = counts.iter().map(|(n, ..)| width(n)).max().unwrap_or(0);
    let most = counts.iter().map(|(_, d, i)| d + i).max().unwrap_or(0);
    let number_width = thousands(most).len();
    let (mut deleted_total, mut inserted_total) = (0, 0);
    for (name, deleted, inserted) in &counts {
        deleted_total += deleted;
        inserted_total += inserted;
        let (minus, plus) = scaled(*deleted, *inserted, most);
        let _ = writeln!(
            out,
            " {} | {} {}{}",
            pad(name, name_width),
            pad_left(&thousands(deleted + inserted), number_width),
            paint.wrap(GREEN, &"+".repeat(plus)),
            paint.wrap(RED, &"-".repeat(minus)),
        );
    }
    let _ = writeln!(
        out,
        " {}, {}, {}",
        count(counts.len(), "tool changed", "tools changed"),
        count(inserted_total, "insertion(+)", "insertions(+)"),
        count(deleted_total, "deletion(-)", "deletions(-)"),
    );
}

/// Bar lengths as git draws them: proportional to the largest change, at least one mark for
/// any non-zero side.
fn scaled(deleted: usize, inserted: usize, most: usize) -> (usize, usize) {
    if most <= STAT_BAR {
        return (deleted, inserted);
    }
    let scale = |n: usize| {
        if n == 0 {
            0
        } else {
            (n * STAT_BAR).div_ceil(most).max(1)
        }
    };
    (scale(deleted), scale(inserted))
}

/// `note` for an explanation, else the note's level (`error`, `warning`).
fn note_word(note: &toolprism::Note) -> &'static str {
    match note.level {
        toolprism::Level::Info => "note",
        level => level.word(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_paths_are_quoted_like_git() {
        assert_eq!(git_path("a/", "read_file"), "a/read_file");
        assert_eq!(git_path("b/", "my tool"), "\"b/my tool\"");
        assert_eq!(git_path("a/", "q\"x"), "\"a/q\\\"x\"");
    }

    #[test]
    fn stat_bars_scale_to_the_largest_change() {
        assert_eq!(scaled(3, 2, 5), (3, 2));
        assert_eq!(scaled(80, 0, 80), (40, 0));
        assert_eq!(scaled(1, 79, 80), (1, 40));
    }
}
