//! One strategy's tool table: every tool's status and figures before and after.

pub mod detail;
pub mod request;

use std::rc::Rc;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use serde_json::Value;

use crate::matrix::display_names;
use crate::projection::{Applies, Status};
use crate::settings::Settings;
use crate::strategies::registry::settings_of;
use crate::strategy::Strategy;
use crate::text::{pad_left, pct, safe, saved_pct, thousands};

use super::context::Context;
use super::diffview::ToolDiff;
use super::state::{Detail, ListCursor, Pane, SortKey};
use super::table::{Column, Columns, DataTable, TableRow, Width};
use super::textview::{ViewMode, highlight};
use super::widgets::{block, keys_not_flags, wrap};

/// What a strategy tab is drawn and answered from: the shared context, the tab's state, its
/// strategy and the search, read-only. The app makes one for the tab on screen.
#[derive(Clone, Copy)]
pub struct StrategyScreen<'a> {
    /// What every screen reads.
    pub ctx: &'a Context,
    /// The tab's state.
    pub tab: &'a StrategyTab,
    /// The tab's strategy.
    pub strategy: Strategy,
    /// The search text (empty: none).
    pub search: &'a str,
    /// The last diff the update computed, under its key (used when the key is the selected
    /// tool's).
    pub diff: Option<&'a (DiffKey, Rc<ToolDiff>)>,
}

/// What a tool's diff depends on: the strategy, the settings and the tool (its outcome).
pub type DiffKey = (Strategy, Arc<Settings>, usize);

impl<'a> StrategyScreen<'a> {
    /// The rows of the current strategy's tool table: indices into its outcomes, filtered and
    /// sorted.
    pub fn rows(&self) -> Vec<usize> {
        let strategy = self.strategy;
        let Some(projection) = self.ctx.projection(strategy) else {
            return Vec::new();
        };
        let figures = self.ctx.figures(strategy);
        let needle = self.search.to_lowercase();
        let mut rows: Vec<usize> = projection
            .outcomes
            .iter()
            .enumerate()
            .filter(|(_, o)| needle.is_empty() || self.ctx.outcome_matches(projection, o, &needle))
            .map(|(i, _)| i)
            .collect();
        let tokens = |i: usize| -> (i64, i64) {
            match figures.and_then(|f| f.per_tool.get(i)) {
                Some(t) => (t.original_tokens as i64, t.projected_tokens as i64),
                None => (0, 0),
            }
        };
        match self.tab.sort {
            SortKey::Original => {}
            // By the `saved` column as shown, a percentage (tokens break ties); an added tool has
            // none and goes last.
            SortKey::Saving => rows.sort_by_key(|&i| {
                let (before, after) = tokens(i);
                let pct = if before > 0 {
                    (before - after) * 1_000_000 / before
                } else {
                    i64::MIN
                };
                std::cmp::Reverse((pct, before - after))
            }),
            SortKey::Size => rows.sort_by_key(|&i| {
                let (before, after) = tokens(i);
                std::cmp::Reverse(before.max(after))
            }),
            SortKey::Name => rows.sort_by(|&a, &b| {
                projection.outcomes[a]
                    .name
                    .cmp(&projection.outcomes[b].name)
                    .then(a.cmp(&b))
            }),
        }
        if !needle.is_empty() {
            // A search for a name puts that tool first (a stable sort keeps the rest in order).
            rows.sort_by_key(|&i| projection.outcomes[i].name.to_lowercase() != needle);
        }
        rows
    }

    /// A strategy tab's search subtotal: the tools that match, of how many, and the tokens of
    /// the matching tools in the capture and as the strategy sends them (`None` without a
    /// search or before the figures are measured).
    pub fn search_subtotal(&self) -> Option<(usize, usize, usize, usize)> {
        let strategy = self.strategy;
        if self.search.is_empty() {
            return None;
        }
        let projection = self.ctx.projection(strategy)?;
        let figures = self.ctx.figures(strategy)?;
        let rows = self.rows();
        let (mut before, mut after) = (0, 0);
        for &i in &rows {
            let (o, t) = (&projection.outcomes[i], figures.per_tool.get(i)?);
            if o.original.is_some() {
                before += t.original_tokens();
            }
            if o.projected.is_some() {
                after += t.projected_tokens();
            }
        }
        Some((rows.len(), projection.outcomes.len(), before, after))
    }

    /// The outcome index of the selected row.
    pub fn selected_outcome(&self) -> Option<usize> {
        self.rows().get(self.tab.tools.selected).copied()
    }

    /// The selected tool's original and sent entries (either may be missing).
    pub fn selected_entries(&self) -> Option<(Option<&'a Value>, Option<&'a Value>)> {
        let ctx: &'a Context = self.ctx;
        let projection = ctx.projection(self.strategy)?;
        let outcome = projection.outcomes.get(self.selected_outcome()?)?;
        let original = outcome.original.and_then(|i| ctx.capture.tools().get(i));
        let sent = outcome
            .projected
            .and_then(|p| projection.sent.as_ref()?.get(p))
            .map(|t| t.entry(&ctx.capture));
        Some((original, sent))
    }

    /// The one line above a strategy tab that answers "why did this do nothing?": its text and
    /// whether it is an error. `None` when the strategy acts on the capture.
    pub fn banner(&self) -> Option<(String, bool)> {
        let strategy = self.strategy;
        if strategy == Strategy::Original {
            return None;
        }
        let projection = self.ctx.projection(strategy)?;
        if let Some(error) = projection.refusal() {
            return Some((
                format!(
                    "{strategy} refuses this capture: {} (no setting changes this)",
                    crate::text::safe(error)
                ),
                true,
            ));
        }
        // A capture of a shape the host never sends: no setting helps, so none is offered.
        let unsent = strategy == Strategy::Codex
            && !crate::strategies::codex::sends(self.ctx.capture.shape());
        let hint = match settings_of(strategy).first() {
            Some(setting) if !unsent => format!("S edits {}", setting.key),
            _ => "no setting changes this".to_owned(),
        };
        if let crate::projection::ProjectionStatus::NotApplicable(why) = &projection.status {
            return Some((
                // The key first: a long reason is cut at the edge, the key never is.
                format!(
                    "{strategy} does not apply here · {hint} · {}",
                    keys_not_flags(&crate::text::safe(why))
                ),
                false,
            ));
        }
        // Byte for byte: every tool kept, in order, and nothing added.
        let noop = self
            .ctx
            .figures(strategy)
            .is_some_and(|f| f.first_changed_byte.is_none() && f.status == Applies::Ok)
            && projection.added_text.is_none()
            && projection.inline.is_empty()
            && projection.outcomes.iter().all(|o| o.status == Status::Kept);
        noop.then(|| {
            (
                format!("{strategy} sends the capture unchanged · {hint}"),
                false,
            )
        })
    }

    /// The key of the selected tool's diff.
    pub fn diff_key(&self) -> Option<DiffKey> {
        let outcome = self.selected_outcome()?;
        Some((self.strategy, self.ctx.settings_key.clone(), outcome))
    }

    /// The selected tool's diff: the one the update computed, else a new one.
    pub fn selected_diff(&self) -> Option<Rc<ToolDiff>> {
        if let Some((key, diff)) = self.diff
            && self.diff_key().as_ref() == Some(key)
        {
            return Some(diff.clone());
        }
        let (original, sent) = self.selected_entries()?;
        Some(Rc::new(ToolDiff::new(original, sent)))
    }
}

/// The state of the strategy tabs (one for all of them: the selection follows the tool from
/// tab to tab).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrategyTab {
    /// The tool table's selected row and scroll.
    pub tools: ListCursor,
    /// The focused pane.
    pub focus: Pane,
    /// The tool table's order.
    pub sort: SortKey,
    /// A tool table too narrow for tokens and bytes shows bytes.
    pub bytes_view: bool,
    /// The detail takes the whole body.
    pub zoom: bool,
    /// The detail pane.
    pub detail: DetailPane,
}

impl Default for StrategyTab {
    fn default() -> StrategyTab {
        StrategyTab {
            tools: ListCursor::default(),
            focus: Pane::Tools,
            sort: SortKey::Original,
            bytes_view: false,
            zoom: false,
            detail: DetailPane::default(),
        }
    }
}

/// The detail pane of a strategy tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetailPane {
    /// What it shows.
    pub shows: Detail,
    /// Its vertical scroll (rows, in the offset).
    pub scroll: ListCursor,
    /// Its horizontal scroll (cells).
    pub hscroll: usize,
    /// Wrap long lines in the entries and added-text views.
    pub wrap: bool,
    /// The entries view's mode: pretty JSON or the text of its strings (`v`).
    pub view_mode: ViewMode,
    /// The row of the search match `n`/`N` went to last, in the selected tool.
    pub found_at: Option<usize>,
}

impl Default for DetailPane {
    fn default() -> DetailPane {
        DetailPane {
            shows: Detail::Entries,
            scroll: ListCursor::default(),
            hscroll: 0,
            wrap: true,
            view_mode: ViewMode::Json,
            found_at: None,
        }
    }
}

/// Draw `strategy`'s tool table (only the visible rows are built).
pub fn render_tools(screen: &StrategyScreen, frame: &mut Frame, area: Rect) {
    let strategy = screen.strategy;
    let theme = screen.ctx.theme;
    let focused = screen.tab.focus == Pane::Tools;
    let rows = screen.rows();
    let total = screen
        .ctx
        .projection(strategy)
        .map_or(0, |p| p.outcomes.len());
    let mut title = format!(" Tools · {} ", strategy.id());
    if !screen.search.is_empty() {
        title = format!(
            " Tools · {} · {}/{} match ",
            strategy.id(),
            rows.len(),
            total
        );
    }
    let outer = block(theme, title, focused);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let Some(projection) = screen.ctx.projection(strategy) else {
        frame.render_widget(
            Paragraph::new(Line::styled("projecting…", theme.dim())),
            inner,
        );
        return;
    };
    if rows.is_empty() {
        let text = if let Some(error) = projection.refusal() {
            format!("the host refuses this capture: {}", safe(error))
        } else if total == 0 {
            "no tools".to_owned()
        } else {
            format!("no tool matches \"{}\"", safe(screen.search))
        };
        let lines: Vec<Line> = wrap(&text, inner.width as usize)
            .into_iter()
            .map(|l| Line::styled(l, theme.dim()))
            .collect();
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }
    let show_bytes = inner.width >= 72;
    // Too narrow for both: `b` switches the figures between tokens and bytes.
    let bytes_only = !show_bytes && screen.tab.bytes_view;
    let words = inner.width >= 60;
    let mut columns = vec![
        Column::new(Width::Fixed(if words { 8 } else { 1 })).gap(0),
        Column::new(Width::Fill { reserve: 8 }),
        Column::new(Width::Fixed(7)),
        Column::new(Width::Fixed(7)),
        // `-100.00%`: a saving is never cut.
        Column::new(Width::Fixed(8)),
    ];
    let mut header = vec![
        if words { "status" } else { "" },
        "tool",
        if bytes_only { "bytes" } else { "tokens" },
        "→ sent",
        "saved",
    ];
    if show_bytes {
        columns.extend([Column::new(Width::Fixed(8)), Column::new(Width::Fixed(8))]);
        header.extend(["bytes", "→ sent"]);
    }
    let layout = Columns::new(columns)
        .with_mark(1)
        .shrink_under_pressure()
        .resolve(&[], inner.width as usize);
    // The name column is what the fixed columns, their gaps and the selection mark leave.
    // Names are shortened visibly (MCP prefix collapsed, middle cut) and never into another
    // tool's name, over every row, not only the visible ones.
    // A `!` before a name with control or invisible characters takes a cell too.
    let flagged = rows.iter().any(|&i| {
        projection.outcomes[i]
            .original
            .is_some_and(|o| screen.ctx.hidden_in(o) > 0)
    });
    let name_cells = layout.width(1).saturating_sub(usize::from(flagged));
    let all: Vec<&str> = rows
        .iter()
        .map(|&i| projection.outcomes[i].name.as_ref())
        .collect();
    let shown_names = display_names(&all, name_cells.max(1));
    let height = inner.height.saturating_sub(1) as usize;
    let cursor = screen.tab.tools;
    let offset = cursor.first_visible(rows.len(), height);
    let look = RowLook {
        words,
        bytes_only,
        show_bytes,
    };
    // Only the visible rows are built: a thousand tools cost nothing to draw.
    let visible: Vec<TableRow> = rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(height.max(1))
        .map(|(at, &i)| {
            let row = tool_row(screen, strategy, i, &shown_names[at], look);
            if at == cursor.selected {
                row.over(theme.selected(focused))
            } else {
                row
            }
        })
        .collect();
    let header = TableRow::new(header.into_iter().map(Line::raw).collect()).under(theme.heading());
    let table = DataTable::new(&layout)
        .header(header)
        .rows(visible)
        .mark(cursor.selected.checked_sub(offset), "▌");
    frame.render_widget(table, inner);
}

/// Which figures a tool row shows at the pane's width.
#[derive(Debug, Clone, Copy)]
struct RowLook {
    /// The status as a word (else a glyph).
    words: bool,
    /// Bytes instead of tokens in the figure columns (`b`, too narrow for both).
    bytes_only: bool,
    /// Byte columns beside the token ones.
    show_bytes: bool,
}

/// Outcome `i`'s row: status, name (shortened to `name`, flagged when it hides characters),
/// figures before and as sent, the saving, and the bytes when there is room.
fn tool_row(
    screen: &StrategyScreen,
    strategy: Strategy,
    i: usize,
    name: &str,
    look: RowLook,
) -> TableRow {
    let theme = screen.ctx.theme;
    let Some(projection) = screen.ctx.projection(strategy) else {
        return TableRow::default();
    };
    let o = &projection.outcomes[i];
    let t = screen.ctx.figures(strategy).and_then(|f| f.per_tool.get(i));
    // A refused strategy sends nothing and has no figures to wait for: a dash, not "…".
    let missing = if projection.status.applies() == crate::projection::Applies::Refused {
        "-"
    } else {
        "…"
    };
    let num = |v: Option<usize>| v.map_or(missing.to_owned(), thousands);
    let (before, after) = if look.bytes_only {
        (
            t.map(crate::report::ToolFigures::original_bytes),
            t.map(crate::report::ToolFigures::projected_bytes),
        )
    } else {
        (
            t.map(crate::report::ToolFigures::original_tokens),
            t.map(crate::report::ToolFigures::projected_tokens),
        )
    };
    let saved = match (before, after) {
        (Some(b), Some(a)) if b > 0 => pct(saved_pct(b, a)),
        (Some(_), Some(_)) => "new".to_owned(),
        _ => missing.to_owned(),
    };
    let sent_tokens = if o.projected.is_some() {
        num(after)
    } else {
        "-".to_owned()
    };
    let name = {
        let name = highlight(name, screen.search, theme.text(), theme.found());
        match o.original.map(|i| screen.ctx.hidden_in(i)) {
            // Flag tools that carry control or invisible characters.
            Some(n) if n > 0 => {
                let mut spans = vec![Span::styled("!", theme.warn())];
                spans.extend(name.spans);
                Line::from(spans)
            }
            _ => name,
        }
    };
    let mut cells = vec![
        Line::from(Span::styled(
            if look.words {
                o.status.word()
            } else {
                status_glyph(o.status)
            },
            theme.status(o.status),
        )),
        name,
        Line::raw(pad_left(
            &if o.original.is_some() {
                num(before)
            } else {
                "-".to_owned()
            },
            7,
        )),
        Line::raw(pad_left(&sent_tokens, 7)),
        Line::raw(pad_left(&saved, 8)),
    ];
    if look.show_bytes {
        let b = t
            .map(crate::report::ToolFigures::original_bytes)
            .filter(|_| o.original.is_some());
        let a = t
            .map(crate::report::ToolFigures::projected_bytes)
            .filter(|_| o.projected.is_some());
        cells.push(Line::raw(pad_left(&b.map_or("-".into(), thousands), 8)));
        cells.push(Line::raw(pad_left(&a.map_or("-".into(), thousands), 8)));
    }
    TableRow::new(cells)
}

/// One cell for a status where the word does not fit.
pub fn status_glyph(status: Status) -> &'static str {
    match status {
        Status::Kept => "=",
        Status::Changed => "~",
        Status::Removed => "-",
        Status::Deferred => "»",
        Status::Added => "+",
    }
}
