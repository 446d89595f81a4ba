//! The request-level view: bytes of the tools array and the body, the prompt-cache prefix
//! kept, the figures and the notes of one strategy.

use ratatui::text::{Line, Span};

use crate::strategy::Strategy;
use crate::text::{pad, thousands};

use crate::tui::context::Context;
use crate::tui::theme::Theme;
use crate::tui::widgets::{note_bullet, sorted_notes, wrap};

/// `key` in a column of its own, then `value` wrapped beside it to `w` cells (never cut: the
/// view is as wide as the screen, and a figure cut at its edge would read as another figure).
fn kv(theme: Theme, w: usize, key: &str, value: String) -> Vec<Line<'static>> {
    const KEY: usize = 22;
    let room = w.saturating_sub(KEY).max(12);
    wrap(&value, room)
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let key = if i == 0 {
                pad(key, KEY)
            } else {
                " ".repeat(KEY)
            };
            Line::from(vec![Span::styled(key, theme.dim()), Span::raw(text)])
        })
        .collect()
}

/// The request-level view of `strategy` as lines `w` cells wide.
pub fn request_lines(ctx: &Context, strategy: Strategy, w: usize) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let mut lines = Vec::new();
    let Some(projection) = ctx.projection(strategy) else {
        return vec![Line::styled("projecting…", theme.dim())];
    };
    lines.extend(tools_array_lines(ctx, strategy, w));
    lines.push(Line::styled("Figures", theme.heading()));
    lines.extend(kv(
        theme,
        w,
        "tools",
        format!(
            "{} → {}",
            thousands(ctx.capture.tools().len()),
            thousands(projection.tool_count())
        ),
    ));
    if let Some(f) = ctx.figures(strategy)
        && f.is_refused()
    {
        lines.extend(kv(theme, w, "tokens", "refused: no figures".to_owned()));
    } else if let Some(f) = ctx.figures(strategy)
        && let Some(e) = &f.estimates
    {
        if let Some(c) = ctx.capture_tokens() {
            lines.extend(kv(
                theme,
                w,
                "tokens sent",
                format!(
                    "{} → {} + {} added = {}",
                    thousands(c),
                    thousands(f.tools_tokens.unwrap_or(0)),
                    thousands(f.added_tokens.unwrap_or(0)),
                    thousands(f.total_tokens.unwrap_or(0)),
                ),
            ));
        }
        // The saving, named by the measure it is on (in context, when entries are deferred).
        if let Some(headline) = ctx.tokens_headline(strategy) {
            lines.extend(kv(theme, w, "saving", headline));
        }
        lines.extend(kv(
            theme,
            w,
            "origins' estimates",
            format!(
                "vtcode {} · a3s {} · zero {} · lean-ctx {}",
                thousands(e.vtcode),
                thousands(e.a3s),
                thousands(e.zero),
                thousands(e.lean_ctx)
            ),
        ));
        if let Some(o) = f.provider_overhead_tokens {
            lines.extend(kv(
                theme,
                w,
                "provider overhead",
                format!("~{o} tokens (Anthropic's tool-use prompt; not in the figures)"),
            ));
        }
    } else {
        lines.push(Line::styled("measuring…", theme.dim()));
    }
    if projection.drop_tool_choice {
        lines.extend(kv(theme, w, "tool_choice", "removed".to_owned()));
    }
    if !projection.notes.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Notes", theme.heading()));
        for note in sorted_notes(&projection.notes) {
            lines.extend(note_bullet(theme, note, "", w));
        }
    }
    lines
}

/// The tools array and the request body compared with the capture's (nothing until measured).
fn tools_array_lines(ctx: &Context, strategy: Strategy, w: usize) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let mut lines = Vec::new();
    if let Some(r) = ctx.request(strategy) {
        let t = &r.tools;
        lines.push(Line::styled(
            "Tools array (compact JSON, what a prompt cache sees first)",
            theme.heading(),
        ));
        lines.extend(kv(
            theme,
            w,
            "bytes",
            format!(
                "{} → {}",
                thousands(t.before_bytes),
                thousands(t.after_bytes)
            ),
        ));
        lines.extend(kv(
            theme,
            w,
            "removed",
            format!("{} bytes", thousands(t.bytes_removed)),
        ));
        lines.extend(kv(
            theme,
            w,
            "added",
            format!("{} bytes", thousands(t.bytes_added)),
        ));
        lines.extend(kv(
            theme,
            w,
            "first changed byte",
            match t.first_changed_byte {
                Some(b) => format!(
                    "{} (a provider's prompt cache keeps the {} bytes before it)",
                    thousands(b),
                    thousands(b)
                ),
                None => "none: the tools are sent byte for byte".to_owned(),
            },
        ));
        lines.extend(kv(
            theme,
            w,
            "request body",
            format!(
                "{} → {} bytes",
                thousands(r.body_before),
                thousands(r.body_after)
            ),
        ));
        lines.push(Line::raw(""));
    }
    lines
}
