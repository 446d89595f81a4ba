//! The home screen: tools × strategies. Each row is a tool, each column a strategy, each cell
//! the tokens that strategy sends for that tool with its mark; sticky totals rows sit under the
//! table.
//!
//! The figures, marks, totals, sort, `f` filter and display names are the library's
//! [`crate::matrix`] (the same model `report --matrix` prints). This module adds only what a
//! live screen needs on top: columns still being measured, the search, the cursor, panning,
//! and the drawing. [`MatrixView::build`] and [`draw`] know nothing of the app.

pub mod groups;
pub mod view;

use std::ops::Range;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use crate::matrix::{Cell, Mark, Origin, Row, Sort, SortColumn, TotalRow, display_names};
use crate::measure::Encoding;
use crate::report::{CaptureFigures, Report, StrategyFigures};
use crate::settings::Settings;
use crate::strategy::Strategy;
use crate::text::{pad, pad_left, thousands, width};

use self::view::{Group, Subtotal};
pub use self::view::{MatrixView, Search, best, folded_line, strategies, strategy_at};
use super::context::Context;
use super::table::{Column, Columns, DataTable, TableRow, Width};
use super::textview::highlight;
use super::theme::Theme;

/// The line over the table, fitted to `cells`: the best saving (so the cheapest strategy is
/// named even when its column is panned off screen), the columns folded for sending nothing,
/// the glyphs a cell can carry, and whether columns are still being measured. Parts drop in
/// reverse order of use when it is narrow: the preamble, then the glyphs (the help lists them
/// too), then the folded columns.
pub fn legend(cells: usize, best: Option<&str>, folded: Option<&str>, measuring: bool) -> String {
    let marks = crate::matrix::legend();
    // The same glyphs in fewer cells, for a line that also names the best saving.
    let compact = "=unchanged ~changed +added ×removed »deferred (× » send nothing)";
    let busy = measuring.then_some("… still measuring");
    // The folded columns without the reason, when that is what fits.
    let bare = folded.and_then(|f| f.split(" (").next());
    let shortest = "=unchanged ~changed +added ×removed »deferred";
    let tries: [Vec<Option<&str>>; 8] = [
        vec![best, folded, Some("tokens sent"), Some(&marks), busy],
        vec![best, folded, Some(&marks), busy],
        vec![best, folded, Some(compact), busy],
        vec![best, bare, Some(shortest), busy],
        vec![best, folded, busy],
        vec![best, folded],
        vec![best, bare],
        vec![best],
    ];
    for parts in tries {
        let line = parts.into_iter().flatten().collect::<Vec<_>>().join(" · ");
        if !line.is_empty() && width(&line) < cells {
            return line;
        }
    }
    crate::text::fit(best.unwrap_or(&marks), cells.saturating_sub(1))
}

/// The matrix's state (the home screen): its cursor, order and filter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MatrixTab {
    /// The cursor's cell and what is scrolled.
    pub cursor: Cursor,
    /// The rows' order.
    pub sort: crate::matrix::Sort,
    /// Only the tools this strategy changes are kept.
    pub changed_by: Option<Strategy>,
    /// The rows grouped by MCP server (`b`).
    pub grouped: bool,
    /// The groups folded to their subtotal row (`z`).
    pub folded: Vec<Group>,
}

/// What the matrix view depends on: settings, encoding, which strategies are measured,
/// whether the capture is counted, sort, filter and search.
pub type ViewKey = (
    Arc<Settings>,
    Encoding,
    u32,
    bool,
    crate::matrix::Sort,
    Option<Strategy>,
    String,
    // The groups folded when grouped by server, `None` when not grouped.
    Option<Vec<Group>>,
);

impl MatrixTab {
    /// What [`Self::view`] depends on: the settings and encoding, which strategies are measured,
    /// whether the capture is counted, the sort, the filter, the search and the folded groups.
    pub fn view_key(&self, ctx: &Context, search: &str) -> ViewKey {
        let mask = Strategy::ALL
            .into_iter()
            .filter(|&s| ctx.figures(s).is_some())
            .fold(0u32, |m, s| m | s.bit());
        let counted = ctx.capture_tokens().is_some();
        (
            ctx.settings_key.clone(),
            ctx.encoding,
            mask,
            counted,
            self.sort,
            self.changed_by,
            search.to_owned(),
            self.grouped.then(|| self.folded.clone()),
        )
    }

    /// The view of the matrix in this state over the context, with `search` on top of the
    /// filter: the library's model over the strategies measured so far.
    pub fn view(&self, ctx: &Context, search: &str) -> MatrixView {
        let ready: Vec<&Arc<StrategyFigures>> = Strategy::ALL
            .iter()
            .filter_map(|&s| ctx.figures(s))
            .collect();
        let counted = ctx.capture_tokens().is_some();
        let tools_tokens = ctx.capture_tokens().unwrap_or(0);
        let report = Report {
            version: env!("CARGO_PKG_VERSION"),
            settings: serde_json::Map::new(),
            capture: CaptureFigures {
                // What the model sees of the capture: `original` sends it as it is.
                context_tokens: ctx
                    .figures(Strategy::Original)
                    .and_then(|f| f.context_tokens)
                    .unwrap_or(tools_tokens),
                path: ctx.path.clone(),
                shape: ctx.capture.shape().id(),
                tools: ctx.capture.tools().len(),
                tools_bytes: ctx.capture_bytes,
                tools_compact_bytes: ctx.capture_compact_bytes,
                tools_tokens,
                in_effect: None,
                tool_change_problems: Vec::new(),
            },
            turn: None,
            encoding: ctx.encoding.id(),
            strategies: ready.iter().map(|f| f.as_ref().clone()).collect(),
        };
        let needle = search.to_lowercase();
        let matching: Vec<bool> = if needle.is_empty() {
            Vec::new()
        } else {
            ctx.search_text
                .iter()
                .map(|t| t.contains(&needle))
                .collect()
        };
        let mut view = MatrixView::build(
            &report,
            &ctx.names,
            counted,
            self.sort,
            self.changed_by,
            Search {
                needle: (!needle.is_empty()).then_some(needle.as_str()),
                matching: &matching,
            },
        );
        if self.grouped {
            let (servers, tools) = groups::owners_of(ctx.capture.tools(), &ctx.settings);
            let owners = groups::Owners {
                servers: &servers,
                tools: &tools,
            };
            let unlisted: Vec<_> = ctx
                .servers
                .iter()
                .filter(|s| !s.listed())
                .cloned()
                .collect();
            view.group(&report, owners, &self.folded, &unlisted);
        }
        view
    }
}

/// Where the cursor is and what is scrolled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cursor {
    /// The row (into [`MatrixView::shown`]) and the first row drawn.
    pub rows: super::state::ListCursor,
    /// The column: 0 for the capture's own, `1 + i` for strategy column `i`.
    pub col: usize,
    /// The first strategy column drawn.
    pub col_offset: usize,
}

/// Widths at one terminal width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Cells of the name column.
    pub name: usize,
    /// Cells of the original column.
    pub original: usize,
    /// Cells of each strategy column (all of them, shown or not).
    pub columns: Vec<usize>,
    /// The strategy columns drawn (a folded one among them has no width and is not drawn).
    pub visible: Range<usize>,
    /// Columns with a width left and right of the ones drawn (the `‹N` and `N›` markers).
    pub hidden: (usize, usize),
}

impl Geometry {
    /// Whether strategy column `c` is drawn (in view and not folded).
    pub fn drawn(&self, c: usize) -> bool {
        self.visible.contains(&c) && self.columns[c] > 0
    }
}

/// Below this width the matrix shows a single strategy column.
pub const NARROW: u16 = 60;
const NAME_MAX: usize = 36;

fn marker_width(n: usize) -> usize {
    if n == 0 { 0 } else { 2 + n.to_string().len() }
}

/// The widths of every column and which strategy columns fit in `cells`, keeping the cursor's
/// column in view and starting at `cursor.col_offset` when it can. Numbers are never cut: a
/// column is as wide as its widest figure; the name column gives way first.
pub fn geometry(m: &MatrixView, cells: u16, cursor: Cursor) -> Geometry {
    let rows: Vec<&Row> = m.tools().collect();
    let subtotals = m.subtotal_widths();
    let figure = |c: usize| -> usize {
        let body = rows
            .iter()
            .map(|r| width(&m.cell_text(r, c)))
            .max()
            .unwrap_or(0);
        let totals = TotalRow::ALL
            .iter()
            // Totals keep two cells free under the cells' marks.
            .map(|&t| width(&m.total_text(Some(c), t)) + 2)
            .max()
            .unwrap_or(0);
        // Room for the sort arrow, so a header is never cut.
        let head = width(&m.header(c)) + 1;
        body.max(totals).max(head).max(subtotals.2[c])
    };
    // A folded column takes no width, unless the cursor is on it.
    let columns: Vec<usize> = (0..m.columns.len())
        .map(|c| {
            if m.folded.get(c).copied().unwrap_or(false) && cursor.col != c + 1 {
                0
            } else {
                figure(c)
            }
        })
        .collect();
    // A column and the space before it; nothing for a folded one.
    let cost = |w: &usize| if *w == 0 { 0 } else { w + 1 };
    let hidden = |range: Range<usize>| range.filter(|&c| columns[c] > 0).count();
    let original = rows
        .iter()
        .map(|r| width(&m.original_text(r)) + 2)
        .chain(
            TotalRow::ALL
                .iter()
                .map(|&t| width(&m.total_text(None, t)) + 2),
        )
        .max()
        .unwrap_or(1)
        .max(width("▼original") + usize::from(m.model.original_rejected))
        .max(subtotals.1);
    let longest = m
        .shown
        .iter()
        .map(|&i| width(&m.names[i]))
        .max()
        .unwrap_or(0)
        .max(width("tool (0000)"))
        .max(subtotals.0);
    let total = cells as usize;
    // The row starts with the cursor bar; each column is preceded by one space.
    let fixed = |name: usize| 1 + name + 1 + original;
    let all: usize = columns.iter().map(cost).sum();
    let wanted = longest.min(NAME_MAX);
    let n = columns.len();
    if cells >= NARROW && fixed(wanted) + all <= total {
        // Every column fits: what is left goes to the names (past the usual cap), so a wide
        // terminal never cuts a name while leaving cells empty.
        let spare = total - (fixed(0) + all);
        return Geometry {
            name: longest.min(spare).max(wanted),
            original,
            columns,
            visible: 0..n,
            hidden: (0, 0),
        };
    }
    let floor = if cells >= 100 {
        22
    } else if cells >= NARROW {
        18
    } else {
        14
    };
    let name = wanted.min(floor);
    let cursor_col = cursor.col.saturating_sub(1).min(n - 1);
    let fits = |start: usize| -> usize {
        if cells < NARROW {
            return 1;
        }
        let room = total.saturating_sub(fixed(name) + marker_width(hidden(0..start)) + 4);
        let mut used = 0;
        let mut k = 0;
        let mut drawn = 0;
        for w in &columns[start..] {
            if used + cost(w) > room && drawn > 0 {
                break;
            }
            used += cost(w);
            k += 1;
            drawn += usize::from(*w > 0);
        }
        k.max(1)
    };
    let mut start = if cursor.col == 0 {
        cursor.col_offset.min(n - 1)
    } else {
        cursor.col_offset.min(cursor_col)
    };
    while start + fits(start) <= cursor_col {
        start += 1;
    }
    // Do not leave room unused at the right end.
    while start > 0 && start - 1 + fits(start - 1) >= n {
        start -= 1;
    }
    let end = (start + fits(start)).min(n);
    let hidden = (hidden(0..start), hidden(end..n));
    let used = fixed(name)
        + (start..end).map(|c| cost(&columns[c])).sum::<usize>()
        + marker_width(hidden.0)
        + marker_width(hidden.1);
    let name = (name + total.saturating_sub(used)).min(wanted).max(name);
    Geometry {
        name,
        original,
        columns,
        visible: start..end,
        hidden,
    }
}

/// Rows of the table body in a matrix area `height` rows high, and how many totals rows are
/// shown (fewer on a short terminal: the total sent and the saving stay).
pub fn body_rows(height: u16, all_totals: usize) -> (usize, usize) {
    let h = height as usize;
    let totals = if h >= 18 {
        all_totals
    } else if h >= 8 {
        2
    } else {
        1
    };
    // A header row and a rule, then the totals.
    (h.saturating_sub(2 + totals).max(1), totals)
}

/// The totals shown when only `n` fit: the ones a user asks about first.
fn shown_totals(n: usize, all: Vec<TotalRow>) -> Vec<TotalRow> {
    if n >= all.len() {
        return all;
    }
    [TotalRow::TotalSent, TotalRow::SavedPct]
        .into_iter()
        .take(n)
        .collect()
}

/// The table's columns at `g`: the name, the original, the `‹N` marker, each strategy column
/// drawn, the `N›` marker (the markers have no width when nothing is hidden on their side).
/// The widths are the geometry's: the matrix pans its strategy columns, which no other table
/// does, so [`geometry`] decides them and the table draws them as fixed.
/// The original's column among [`table_columns`] (after the names).
const ORIGINAL_COLUMN: usize = 1;
/// The first strategy column among [`table_columns`] (after the names, the original and `‹N`).
const FIRST_STRATEGY_COLUMN: usize = 3;

fn table_columns(g: &Geometry) -> (Columns, Vec<usize>) {
    let drawn: Vec<usize> = g.visible.clone().filter(|&c| g.drawn(c)).collect();
    let mut columns = vec![
        Column::new(Width::Fixed(g.name)).gap(0),
        Column::new(Width::Fixed(g.original)),
        Column::new(Width::Fixed(marker_width(g.hidden.0))).gap(0),
    ];
    columns.extend(
        drawn
            .iter()
            .map(|&c| Column::new(Width::Fixed(g.columns[c]))),
    );
    columns.push(Column::new(Width::Fixed(marker_width(g.hidden.1))).gap(0));
    (Columns::new(columns).with_mark(1), drawn)
}

/// The cursor column (0 the original, `1 + i` strategy `i`) drawn `x` cells from the left edge
/// of a matrix `cells` wide, if one is there (not over the names or a `‹N` marker).
pub fn column_at(m: &MatrixView, cells: u16, cursor: Cursor, x: usize) -> Option<usize> {
    let g = geometry(m, cells, cursor);
    let (columns, drawn) = table_columns(&g);
    let layout = columns.resolve(&[], cells as usize);
    let under = |c: usize| {
        layout.shown(c) && (layout.starts[c]..layout.starts[c] + layout.width(c)).contains(&x)
    };
    if under(ORIGINAL_COLUMN) {
        return Some(0);
    }
    drawn
        .iter()
        .enumerate()
        .find(|&(k, _)| under(FIRST_STRATEGY_COLUMN + k))
        .map(|(_, &c)| c + 1)
}

/// The sort arrow of cursor column `col` (0 the original, `1 + i` strategy `i`), if sorted by it.
fn arrow(sort: Sort, col: usize) -> &'static str {
    let here = match sort.column {
        SortColumn::Original => col == 0,
        SortColumn::Strategy(s) => col > 0 && strategies()[col - 1] == s,
        SortColumn::Name => false,
    };
    match (here, sort.descending) {
        (false, _) => "",
        (true, true) => "▼",
        (true, false) => "▲",
    }
}

/// The header row: the tool count (tools a strategy adds counted apart), then each column's
/// name with its sort arrow, the cursor's column highlighted.
fn header_row(
    m: &MatrixView,
    g: &Geometry,
    drawn: &[usize],
    cursor: Cursor,
    theme: Theme,
) -> TableRow {
    let sort = m.model.sort();
    let head_style = |col: usize| {
        if col == cursor.col {
            theme.selected(true)
        } else {
            theme.heading()
        }
    };
    let name_head = match sort.column {
        SortColumn::Name if sort.descending => "tool ▲",
        SortColumn::Name => "tool ▼",
        _ => "tool",
    };
    // Tools a strategy adds are rows too: counted apart, so `46+1` reads beside `46 tools`.
    let added = m
        .tools()
        .filter(|r| matches!(r.origin, Origin::Added(_)))
        .count();
    let count = if added > 0 {
        format!(
            "{}+{} added",
            thousands(m.shown.len() - added),
            thousands(added)
        )
    } else {
        thousands(m.shown.len())
    };
    let head_text = format!("{name_head} ({count})");
    let head_text = if width(&head_text) > g.name && added > 0 {
        format!("{name_head} ({}+{added})", thousands(m.shown.len() - added))
    } else {
        head_text
    };
    let mut cells = vec![
        Line::styled(pad(&head_text, g.name), theme.heading()),
        Line::styled(
            pad_left(
                &format!(
                    "{}original{}",
                    arrow(sort, 0),
                    if m.model.original_rejected { "!" } else { "" }
                ),
                g.original,
            ),
            head_style(0),
        ),
        marker(g.hidden.0 > 0, format!(" ‹{}", g.hidden.0), theme),
    ];
    cells.extend(drawn.iter().map(|&c| {
        Line::styled(
            pad_left(
                &format!("{}{}", arrow(sort, c + 1), m.header(c)),
                g.columns[c],
            ),
            head_style(c + 1),
        )
    }));
    cells.push(marker(g.hidden.1 > 0, format!(" {}›", g.hidden.1), theme));
    TableRow::new(cells)
}

/// A `‹N` or `N›` marker, or nothing.
fn marker(shown: bool, text: String, theme: Theme) -> Line<'static> {
    if shown {
        Line::styled(text, theme.dim())
    } else {
        Line::default()
    }
}

/// The row at screen position `at`, its name already shortened to `short`; the cursor's row
/// in the selection style, the cursor's cell apart.
#[allow(clippy::too_many_arguments)]
fn body_row(
    m: &MatrixView,
    row: &Row,
    at: usize,
    short: &str,
    drawn: &[usize],
    g: &Geometry,
    cursor: Option<usize>,
    theme: Theme,
) -> TableRow {
    let selected = cursor.is_some();
    let base = if selected {
        theme.selected(false)
    } else {
        theme.text()
    };
    let mut cells = vec![
        highlight(&pad(short, g.name), &m.needle, base, theme.found()),
        Line::styled(
            pad_left(&format!("{}  ", m.original_text(row)), g.original),
            cell_style(theme, base, cursor == Some(0), None, None),
        ),
        Line::default(),
    ];
    cells.extend(drawn.iter().map(|&c| {
        let text = m.drawn_cell_text(row, c, at);
        // A refused column's empty rows stay quiet: only its first row is the word.
        let cell = m.cell(row, c).filter(|_| !text.is_empty());
        Line::styled(
            pad_left(&text, g.columns[c]),
            cell_style(
                theme,
                base,
                cursor == Some(c + 1),
                cell,
                row.original_tokens,
            ),
        )
    }));
    TableRow::new(cells).fill(base)
}

/// A totals row: the figures under the numbers of the cells above, not under their marks.
fn total_row(m: &MatrixView, t: TotalRow, drawn: &[usize], g: &Geometry, theme: Theme) -> TableRow {
    let mut cells = vec![
        Line::styled(pad(t.label(), g.name), theme.heading()),
        Line::raw(pad_left(
            &format!("{}  ", m.total_text(None, t)),
            g.original,
        )),
        Line::default(),
    ];
    cells.extend(drawn.iter().map(|&c| {
        let value = m.total_text(Some(c), t);
        let style = if value == Mark::Refused.glyph() {
            theme.error()
        } else {
            theme.text()
        };
        Line::styled(pad_left(&format!("{value}  "), g.columns[c]), style)
    }));
    TableRow::new(cells)
}

/// Draw the matrix into `area` with the cursor on a cell: the header, the rows from the
/// first visible one, a rule, then the totals rows that fit.
pub fn draw(m: &MatrixView, cursor: Cursor, theme: Theme, frame: &mut Frame, area: Rect) {
    let g = geometry(m, area.width, cursor);
    let (body, n_totals) = body_rows(area.height, m.model.total_rows().len());
    let (columns, drawn) = table_columns(&g);
    let layout = columns.resolve(&[], area.width as usize);
    let offset = cursor.rows.offset.min(m.len().saturating_sub(body));
    let window = DataTable::window(offset, m.len(), body);
    let names: Vec<&str> = window.clone().filter_map(|i| m.name(i)).collect();
    let mut shorts = display_names(&names, g.name).into_iter();
    let first_tool = window.clone().find(|&at| m.subtotal_at(at).is_none());
    let rows: Vec<TableRow> = window
        .clone()
        .filter_map(|at| {
            let on = (at == cursor.rows.selected).then_some(cursor.col);
            if let Some(s) = m.subtotal_at(at) {
                return Some(subtotal_row(m, s, &drawn, &g, on, theme));
            }
            let row = m.row(at)?;
            // The first tool row drawn says what a whole column says once (`refused`).
            let drawn_at = if Some(at) == first_tool {
                0
            } else {
                at - window.start + 1
            };
            Some(body_row(
                m,
                row,
                drawn_at,
                &shorts.next()?,
                &drawn,
                &g,
                on,
                theme,
            ))
        })
        .collect();
    let marked = cursor
        .rows
        .selected
        .checked_sub(offset)
        .filter(|&k| k < rows.len());
    let table = DataTable::new(&layout)
        .header(header_row(m, &g, &drawn, cursor, theme))
        .rows(rows)
        .mark(marked, "▌");
    let part = |y: usize, h: usize| -> Rect {
        let y = (y as u16).min(area.height);
        Rect::new(
            area.x,
            area.y + y,
            area.width,
            (h as u16).min(area.height - y),
        )
    };
    frame.render_widget(table, part(0, 1 + body));
    if m.shown.is_empty() {
        let message = if m.unfiltered == 0 {
            " the capture has no tools"
        } else {
            " no tool matches: Esc clears the search, f the filter"
        };
        frame.render_widget(
            Paragraph::new(Line::styled(message, theme.dim())),
            part(1, 1),
        );
    }
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!(" {}", "─".repeat((area.width as usize).saturating_sub(1))),
            theme.dim(),
        )),
        part(1 + body, 1),
    );
    let totals: Vec<TableRow> = shown_totals(n_totals, m.model.total_rows())
        .into_iter()
        .map(|t| total_row(m, t, &drawn, &g, theme))
        .collect();
    frame.render_widget(
        DataTable::new(&layout).rows(totals),
        part(2 + body, n_totals),
    );
}

/// A cell's colour: a change that sends fewer tokens than the original is a saving (green),
/// one that sends more is a cost (red), never the other way round; the same count is neither.
fn cell_style(
    theme: Theme,
    base: Style,
    cursor: bool,
    cell: Option<Cell>,
    original: Option<usize>,
) -> Style {
    if cursor {
        return theme.selected(true);
    }
    let against = cell.and_then(|c| c.tokens).zip(original);
    let costs_more = against.is_some_and(|(now, before)| now > before);
    let same = against.is_some_and(|(now, before)| now == before);
    match cell.map(|c| c.mark) {
        None => base.patch(theme.dim()),
        Some(Mark::Refused) => theme.error(),
        Some(Mark::Kept | Mark::Removed | Mark::Deferred) => base.patch(theme.dim()),
        Some(Mark::Changed) if costs_more => base.patch(theme.bad()),
        // Changed bytes at the same count: neither a saving nor a cost.
        Some(Mark::Changed) if same => base,
        Some(Mark::Changed) => base.patch(theme.good()),
        Some(Mark::Added) => base.patch(theme.bad()),
        Some(Mark::Absent) => base,
    }
}

/// A subtotal row at `g`: the label, then the figures under the numbers of the cells above,
/// in the heading style (the selection's when the cursor is on it, the cursor's cell apart).
fn subtotal_row(
    m: &MatrixView,
    s: &Subtotal,
    drawn: &[usize],
    g: &Geometry,
    cursor: Option<usize>,
    theme: Theme,
) -> TableRow {
    let base = if cursor.is_some() {
        theme.selected(false)
    } else {
        theme.heading()
    };
    let style = |col: usize| {
        if cursor == Some(col) {
            theme.selected(true)
        } else {
            base
        }
    };
    let mut cells = vec![
        Line::styled(pad(&s.label(g.name), g.name), base),
        Line::styled(
            pad_left(&format!("{}  ", s.original_text(m.counted)), g.original),
            style(0),
        ),
        Line::default(),
    ];
    cells.extend(drawn.iter().map(|&c| {
        Line::styled(
            pad_left(&format!("{}  ", s.cell_text(c)), g.columns[c]),
            style(c + 1),
        )
    }));
    TableRow::new(cells).fill(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_terminals_keep_the_main_totals() {
        assert_eq!(body_rows(30, 7), (21, 7));
        assert_eq!(body_rows(30, 8), (20, 8));
        assert_eq!(body_rows(10, 7), (6, 2));
        assert_eq!(body_rows(4, 7), (1, 1));
        assert_eq!(
            shown_totals(2, TotalRow::ALL.to_vec()),
            vec![TotalRow::TotalSent, TotalRow::SavedPct]
        );
    }

    #[test]
    fn the_cursor_column_names_its_strategy() {
        assert_eq!(strategy_at(0), Strategy::Original);
        assert_eq!(strategy_at(1), strategies()[0]);
        assert_eq!(strategy_at(99), *Strategy::ALL.last().unwrap());
    }

    #[test]
    fn the_legend_fits_or_drops_its_preamble() {
        let saving = "best: minimal saves 4,597 tokens (56.28%)";
        let best = Some(saving);
        let wide = legend(200, None, None, false);
        assert!(wide.starts_with("tokens sent · = unchanged"), "{wide}");
        assert!(!wide.contains("measuring"), "{wide}");
        assert!(legend(200, None, None, true).ends_with("… still measuring"));
        let narrow = legend(82, None, None, false);
        assert!(narrow.starts_with("= unchanged"), "{narrow}");
        assert!(width(&legend(30, None, None, false)) <= 29);
        // The best saving stays when the glyphs go.
        let with_best = legend(60, best, None, false);
        assert_eq!(with_best, saving);
        assert!(legend(200, best, None, false).starts_with("best: minimal saves"));
    }
}
