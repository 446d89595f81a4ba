//! The overview: every strategy's totals as a table with bars, and the chosen strategy's notes.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use crate::strategy::Strategy;
use crate::text::{pad_left, pct, thousands};

use super::app::App;
use super::keys::STRATEGY_KEYS;
use super::widgets::{block, bullet, note_text, wrap};

/// Draw the strategy table with its bars.
pub fn render_overview(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let capture_tokens = app.capture_tokens();
    let outer = block(
        theme,
        " Strategies: tokens sent (tools + added text) · * has notes ".to_owned(),
        true,
    );
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let wide = inner.width >= 90;
    let max_total = Strategy::ALL
        .iter()
        .filter_map(|&s| app.figures(s).map(|f| f.total_tokens))
        .chain(capture_tokens)
        .max()
        .unwrap_or(0);
    let mut widths = vec![
        Constraint::Length(2),
        Constraint::Length(14),
        Constraint::Length(6),
        Constraint::Length(9),
        Constraint::Length(8),
    ];
    let mut header = vec!["", "strategy", "tools", "tokens", "saved"];
    if wide {
        widths.insert(2, Constraint::Length(9));
        header.insert(2, "origin");
    }
    widths.push(Constraint::Min(4));
    header.push("size");
    let fixed: u16 = if wide {
        2 + 14 + 9 + 6 + 9 + 8
    } else {
        2 + 14 + 6 + 9 + 8
    };
    let bar_width = inner.width.saturating_sub(fixed + widths.len() as u16 - 1) as usize;
    let rows: Vec<Row> = Strategy::ALL
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let figures = app.figures(s);
            let projection = app.projection(s);
            let tools = projection.map_or("…".to_owned(), |p| {
                if p.error.is_some() {
                    "error".to_owned()
                } else {
                    thousands(p.tool_count())
                }
            });
            let (tokens, saved, bar, saving) = match figures {
                Some(f) => {
                    let saving = f.saved_tokens >= 0;
                    (
                        thousands(f.total_tokens),
                        pct(capture_tokens.map(|_| f.saved_pct)),
                        bar(f.total_tokens, max_total, bar_width),
                        saving,
                    )
                }
                None => ("…".into(), "…".into(), String::new(), true),
            };
            let noted = projection.is_some_and(|p| !p.notes.is_empty());
            let name = format!("{}{}", s.id(), if noted { " *" } else { "" });
            let mut cells = vec![
                Cell::from(Span::styled(STRATEGY_KEYS[i].to_string(), theme.key())),
                Cell::from(name),
                Cell::from(pad_left(&tools, 5)),
                Cell::from(pad_left(&tokens, 8)),
                Cell::from(Span::styled(
                    pad_left(&saved, 7),
                    if saving { theme.good() } else { theme.bad() },
                )),
                Cell::from(Span::styled(bar, theme.bar(saving))),
            ];
            if wide {
                cells.insert(2, Cell::from(s.origin()));
            }
            Row::new(cells)
        })
        .collect();
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.heading()))
        .row_highlight_style(theme.selected(true))
        .highlight_symbol("▌")
        .highlight_spacing(ratatui::widgets::HighlightSpacing::Always);
    let mut state = TableState::default().with_selected(Some(app.overview_sel));
    frame.render_stateful_widget(table, inner, &mut state);
}

/// A bar of `value / max` over `cells` cells, in eighths.
fn bar(value: usize, max: usize, cells: usize) -> String {
    if max == 0 || cells == 0 {
        return String::new();
    }
    let eighths = (value as u128 * cells as u128 * 8 / max as u128) as usize;
    let mut out = "█".repeat(eighths / 8);
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    out.push_str(PARTS[eighths % 8]);
    out
}

/// Draw the chosen strategy's summary and notes, then the other strategies' notes.
pub fn render_notes(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let strategy = app.strategy();
    let outer = block(
        theme,
        format!(
            " {} · {} · {} ",
            strategy.id(),
            strategy.origin(),
            strategy.family()
        ),
        false,
    );
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let w = inner.width as usize;
    let mut lines: Vec<Line> = wrap(strategy.summary(), w)
        .into_iter()
        .map(|l| Line::styled(l, theme.text()))
        .collect();
    if let Some(projection) = app.projection(strategy) {
        if projection.notes.is_empty() {
            lines.push(Line::styled("no notes", theme.dim()));
        }
        for note in &projection.notes {
            lines.extend(bullet(theme, &note_text(note), w));
        }
    }
    if let Some(f) = app.figures(strategy)
        && let Some(overhead) = f.provider_overhead_tokens
    {
        lines.push(Line::styled(
            format!("provider estimate, not in the figures: Anthropic's tool-use prompt adds ~{overhead} tokens"),
            theme.dim(),
        ));
    }
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key()),
        Span::styled(" opens it side by side with the capture", theme.dim()),
    ]));
    // Below, while there is room: the other strategies' notes, so the ones that did nothing
    // are explained at a glance.
    let others: Vec<(Strategy, &String)> = Strategy::ALL
        .iter()
        .filter(|&&s| s != strategy)
        .filter_map(|&s| app.projection(s).map(|p| (s, p)))
        .flat_map(|(s, p)| p.notes.iter().map(move |n| (s, n)))
        .collect();
    if !others.is_empty() && lines.len() + 2 < inner.height as usize {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Notes of the other strategies",
            theme.heading(),
        ));
        for (s, note) in others {
            lines.extend(bullet(
                theme,
                &format!("{}: {}", s.id(), note_text(note)),
                w,
            ));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_in_eighths() {
        assert_eq!(bar(10, 10, 4), "████");
        assert_eq!(bar(5, 10, 4), "██");
        assert_eq!(bar(0, 10, 4), "");
        assert_eq!(bar(1, 0, 4), "");
    }
}
