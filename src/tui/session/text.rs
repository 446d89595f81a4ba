//! The session view's text that both its drawing and its update (scroll ranges) need: the
//! selected turn's detail and the turn diff as visual lines at a width.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use crate::session::SessionReport;
use crate::text::{safe, thousands};

use super::diff::{Change, TurnDiff};
use super::{LineKind, turn_detail};
use crate::tui::difflines::{DiffLayout, tool_diff_lines};
use crate::tui::theme::Theme;

fn kind_style(theme: Theme, kind: LineKind) -> Style {
    match kind {
        LineKind::Heading => theme.heading(),
        LineKind::Plain => theme.text(),
        LineKind::Added => theme.ins(),
        LineKind::Removed => theme.del(),
        LineKind::Changed => {
            if theme.is_color() {
                Style::new().fg(Color::Yellow)
            } else {
                Style::new()
            }
        }
        LineKind::Warn => theme.warn(),
        LineKind::Dim => theme.dim(),
    }
}

/// The selected turn's detail in a pane `cells` wide and `height` rows high: its heading
/// (always shown) and the rest (scrolled), as visual lines. Short of room, the context lines
/// give way first.
pub fn detail_lines(
    theme: Theme,
    (report, selected, shown): (Option<&SessionReport>, usize, &[bool]),
    cells: usize,
    height: usize,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let Some(report) = report else {
        return (Vec::new(), Vec::new());
    };
    let mut detail = turn_detail(report, selected, shown);
    // Continuation lines are indented by two, so they wrap two cells shorter.
    let wrapped = |t: &str| {
        crate::text::wrap_hanging(
            t,
            cells.max(1),
            cells.saturating_sub(2).max(1),
            crate::text::LongWords::Break,
        )
    };
    let rows =
        |d: &[(LineKind, String)]| -> usize { d.iter().map(|(_, t)| wrapped(t).len()).sum() };
    if rows(&detail) > height {
        detail.retain(|(kind, _)| *kind != LineKind::Dim);
    }
    let visual = |kind: LineKind, text: &str| -> Vec<Line<'static>> {
        let style = kind_style(theme, kind);
        wrapped(text)
            .into_iter()
            .enumerate()
            .map(|(k, piece)| {
                // Continuation lines are indented, so a wrapped list reads as one item.
                let piece = if k == 0 { piece } else { format!("  {piece}") };
                Line::styled(piece, style)
            })
            .collect()
    };
    let mut head = Vec::new();
    let mut body = Vec::new();
    for (i, (kind, text)) in detail.iter().enumerate() {
        if i == 0 && *kind == LineKind::Heading {
            head = visual(*kind, text);
        } else {
            body.extend(visual(*kind, text));
        }
    }
    (head, body)
}

/// How far the detail's body scrolls in a pane of `height` rows under `head` heading rows.
pub fn detail_scroll_max(body: usize, head: usize, height: usize) -> usize {
    body.saturating_sub(height.saturating_sub(head))
}

/// Every visual line of a turn diff at `w` cells: one heading per tool, then its unified diff
/// as the strategy views draw one (wrapped at words with a mark, changed words emphasised,
/// unchanged stretches folded).
pub fn diff_lines(theme: Theme, diff: &TurnDiff, w: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let Some(previous) = diff.previous else {
        let text = format!(
            "Turn {} is the first turn of its thread: there is no previous turn to compare with.",
            diff.turn
        );
        // Wrapped, never cut: a message is read whole at every width.
        return crate::text::wrap(&text, w.max(1), crate::text::LongWords::Break)
            .into_iter()
            .map(|l| Line::styled(l, theme.dim()))
            .collect();
    };
    if diff.tools.is_empty() {
        let text = if diff.order_changed {
            format!(
                "Every tool is sent as in turn {previous}, in another order: only the order changed."
            )
        } else {
            format!("The tools are byte-identical to turn {previous}'s.")
        };
        lines.extend(
            crate::text::wrap(&text, w.max(1), crate::text::LongWords::Break)
                .into_iter()
                .map(|l| Line::styled(l, theme.dim())),
        );
        moved_lines(theme, diff, w, &mut lines);
        return lines;
    }
    moved_lines(theme, diff, w, &mut lines);
    for tool in &diff.tools {
        let (style, what) = match tool.change {
            Change::Added => (theme.ins(), "added"),
            Change::Removed => (theme.del(), "removed"),
            Change::Changed => (theme.heading(), "changed"),
        };
        lines.push(Line::styled(
            format!(
                "{} {} ({what}, −{} +{} lines)",
                tool.change.sign(),
                safe(&tool.name),
                tool.diff.removed,
                tool.diff.added
            ),
            style.add_modifier(Modifier::BOLD),
        ));
        let layout = DiffLayout {
            theme,
            wrap: true,
            hscroll: 0,
            filter: "",
            split: false,
        };
        lines.extend(tool_diff_lines(&layout, &tool.diff, w));
        lines.push(Line::raw(""));
    }
    lines
}

/// The reorder: which tools moved, from which place to which (a move breaks a cached prefix
/// from the first place it touches).
fn moved_lines(theme: Theme, diff: &TurnDiff, w: usize, lines: &mut Vec<Line<'static>>) {
    if diff.moved.is_empty() {
        return;
    }
    if !lines.is_empty() {
        lines.push(Line::raw(""));
    }
    let heading = format!(
        "↕ moved ({}: the others kept their order)",
        count(diff.moved.len(), "tool", "tools")
    );
    for l in crate::text::wrap(&heading, w.max(1), crate::text::LongWords::Break) {
        lines.push(Line::styled(
            l,
            theme.heading().add_modifier(Modifier::BOLD),
        ));
    }
    for m in &diff.moved {
        let text = format!(
            "↕ {} · place {} → {}",
            safe(&m.name),
            thousands(m.before),
            thousands(m.now)
        );
        for (k, l) in crate::text::wrap_hanging(
            &text,
            w.saturating_sub(2).max(1),
            w.saturating_sub(4).max(1),
            crate::text::LongWords::Break,
        )
        .into_iter()
        .enumerate()
        {
            let l = if k == 0 {
                format!("  {l}")
            } else {
                format!("    {l}")
            };
            lines.push(Line::styled(l, theme.text()));
        }
    }
    lines.push(Line::raw(""));
}

/// `1 tool`, `3 tools`.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}
