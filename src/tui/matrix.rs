//! The home screen: tools × strategies. Each row is a tool, each column a strategy, each cell
//! the tokens that strategy sends for that tool, with a mark for what it did to it; sticky
//! totals rows sit under the table.
//!
//! Two halves, neither knowing the app: [`Matrix::build`] turns the engine's projections and
//! figures into a view model (rows, columns, cells, totals, sort and filter applied), and
//! [`draw`] paints a model with a [`Cursor`]. The app owns the cursor and calls both.
//!
//! The library model `toolprism::matrix` (shared with `report --matrix`) is not on this branch
//! yet; this module is the local adapter the issue allows until it lands, kept to the same
//! concepts so the switch replaces [`Matrix::build`] and [`short_names`] only.

use std::collections::HashMap;
use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::projection::{Projection, Status};
use crate::report::StrategyFigures;
use crate::strategy::Strategy;
use crate::text::{pad, pad_left, safe, thousands, width};

use super::theme::Theme;

/// What a strategy did to one tool, as a cell's mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Sent byte for byte.
    Unchanged,
    /// Sent, changed.
    Changed,
    /// Not sent.
    Removed,
    /// Not sent, loadable on demand.
    Deferred,
    /// Sent, not in the capture (`tool_search`, the code gateway).
    Added,
}

impl Mark {
    /// The glyph after the number (a changed tool has none: the number is the news).
    pub fn glyph(self) -> char {
        match self {
            Mark::Unchanged => '=',
            Mark::Changed => ' ',
            Mark::Removed => '×',
            Mark::Deferred => '»',
            Mark::Added => '+',
        }
    }

    fn of(status: Status) -> Mark {
        match status {
            Status::Kept => Mark::Unchanged,
            Status::Changed => Mark::Changed,
            Status::Removed => Mark::Removed,
            Status::Deferred => Mark::Deferred,
            Status::Added => Mark::Added,
        }
    }
}

/// The legend of every glyph a matrix cell can carry.
pub const LEGEND: &str = "tokens sent · = unchanged  × removed  » deferred  + added  … measuring";

/// One cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// The strategy is still being projected or measured.
    Pending,
    /// The strategy refuses this capture.
    Refused,
    /// The tool does not exist under this strategy (an added tool another strategy adds).
    Absent,
    /// What the strategy does with the tool; `tokens` is 0 when it is not sent.
    Tool {
        /// Tokens of the entry as sent.
        tokens: usize,
        /// What happened.
        mark: Mark,
    },
}

impl Cell {
    /// The cell's text, right-aligned by the caller: a number and its mark.
    pub fn text(self) -> String {
        match self {
            Cell::Pending => "… ".to_owned(),
            Cell::Refused => "refused".to_owned(),
            Cell::Absent => String::new(),
            Cell::Tool { mark, .. } if matches!(mark, Mark::Removed | Mark::Deferred) => {
                format!("-{}", mark.glyph())
            }
            Cell::Tool { tokens, mark } => format!("{}{}", thousands(tokens), mark.glyph()),
        }
    }

    /// Tokens sent, for sorting.
    pub fn tokens(self) -> usize {
        match self {
            Cell::Tool { tokens, mark } if !matches!(mark, Mark::Removed | Mark::Deferred) => {
                tokens
            }
            _ => 0,
        }
    }

    /// Whether the strategy did something to the tool (the `f` filter keeps these).
    pub fn changes(self) -> bool {
        matches!(self, Cell::Tool { mark, .. } if mark != Mark::Unchanged)
    }
}

/// A strategy column's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnState {
    /// Not projected or not measured yet.
    Pending,
    /// Figures ready.
    Ready,
    /// The host refuses the capture under this strategy.
    Refused,
}

/// One strategy column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The strategy.
    pub strategy: Strategy,
    /// Whether its figures can be shown.
    pub state: ColumnState,
    /// A provider would reject the request it sends (marked `!` in the header).
    pub rejected: bool,
}

/// One tool row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The tool's name, sanitized.
    pub name: String,
    /// Its index in the capture (`None`: added by a strategy).
    pub original: Option<usize>,
    /// Tokens of the original entry (`None` for an added tool, or before counting).
    pub original_tokens: Option<usize>,
    /// One cell per column, in column order.
    pub cells: Vec<Cell>,
}

/// A totals row: a label, the capture's figure and one figure per column (`None`: pending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Total {
    /// What it sums.
    pub label: &'static str,
    /// The capture's own figure.
    pub original: Option<String>,
    /// Each column's.
    pub values: Vec<Option<String>>,
}

/// How rows are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// Original tokens, costliest first (the home screen's order).
    Costliest,
    /// By a column's tokens sent (`0`: the original column, `1..`: strategy columns).
    Column {
        /// The column: 0 for the original, `1 + i` for strategy column `i`.
        column: usize,
        /// Largest first.
        descending: bool,
    },
}

/// The rows to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Filter<'a> {
    /// Only tools this strategy column changes.
    pub changed_by: Option<usize>,
    /// Only these capture indices (a search); added tools match by name through `needle`.
    pub matching: Option<&'a [bool]>,
    /// The search text, lowercase, for added tools' names.
    pub needle: Option<&'a str>,
}

/// The engine's results for one strategy, as the matrix reads them.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// The strategy.
    pub strategy: Strategy,
    /// Its projection, when ready.
    pub projection: Option<&'a Projection>,
    /// Its figures, when measured.
    pub figures: Option<&'a StrategyFigures>,
}

/// The whole view model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    /// Strategy columns, in [`Strategy::ALL`] order.
    pub columns: Vec<Column>,
    /// Rows after filtering, sorted.
    pub rows: Vec<Row>,
    /// Rows before filtering.
    pub unfiltered: usize,
    /// The sticky totals.
    pub totals: Vec<Total>,
}

impl Matrix {
    /// Build the model from the capture's tool names, its counted figures and every
    /// strategy's results. `capture_tokens` and `capture_bytes` are the capture's `tools` array.
    pub fn build(
        names: &[String],
        capture_tokens: Option<usize>,
        capture_bytes: usize,
        sources: &[Source<'_>],
        sort: Sort,
        filter: Filter<'_>,
    ) -> Matrix {
        let columns: Vec<Column> = sources
            .iter()
            .map(|s| Column {
                strategy: s.strategy,
                state: match (s.projection, s.figures) {
                    (Some(p), _) if p.error.is_some() => ColumnState::Refused,
                    (Some(_), Some(_)) => ColumnState::Ready,
                    _ => ColumnState::Pending,
                },
                rejected: false,
            })
            .collect();
        let original_tokens: Vec<Option<usize>> = {
            let counted = sources.iter().find_map(|s| {
                let (p, f) = (s.projection?, s.figures?);
                Some((p, f))
            });
            (0..names.len())
                .map(|i| {
                    let (p, f) = counted?;
                    let at = outcome_index(p, i)?;
                    f.per_tool.get(at).map(|t| t.original_tokens)
                })
                .collect()
        };
        let mut rows: Vec<Row> = names
            .iter()
            .enumerate()
            .map(|(i, name)| Row {
                name: safe(name),
                original: Some(i),
                original_tokens: original_tokens[i],
                cells: Vec::with_capacity(sources.len()),
            })
            .collect();
        let mut added: HashMap<String, usize> = HashMap::new();
        for (c, source) in sources.iter().enumerate() {
            let state = columns[c].state;
            let by_original: HashMap<usize, usize> = source
                .projection
                .map(|p| {
                    p.outcomes
                        .iter()
                        .enumerate()
                        .filter_map(|(at, o)| Some((o.original?, at)))
                        .collect()
                })
                .unwrap_or_default();
            for (i, row) in rows.iter_mut().enumerate().take(names.len()) {
                let cell = match state {
                    ColumnState::Pending => Cell::Pending,
                    ColumnState::Refused => Cell::Refused,
                    ColumnState::Ready => {
                        tool_cell(source, by_original.get(&i).copied()).unwrap_or(Cell::Absent)
                    }
                };
                row.cells.push(cell);
            }
            // Added tools: one row per name across strategies.
            if let (ColumnState::Ready, Some(p)) = (state, source.projection) {
                for (at, o) in p.outcomes.iter().enumerate() {
                    if o.original.is_some() {
                        continue;
                    }
                    let r = *added.entry(o.name.clone()).or_insert_with(|| {
                        rows.push(Row {
                            name: safe(&o.name),
                            original: None,
                            original_tokens: None,
                            cells: vec![Cell::Absent; c],
                        });
                        rows.len() - 1
                    });
                    let row = &mut rows[r];
                    row.cells.resize(c, Cell::Absent);
                    row.cells
                        .push(tool_cell(source, Some(at)).unwrap_or(Cell::Absent));
                }
            }
            for row in rows.iter_mut().skip(names.len()) {
                row.cells.resize(c + 1, Cell::Absent);
            }
        }
        let unfiltered = rows.len();
        rows.retain(|row| keep(row, filter));
        sort_rows(&mut rows, sort);
        if let Some(needle) = filter.needle {
            // A search for a name puts that tool first (a stable sort keeps the rest in order).
            rows.sort_by_key(|r| r.name.to_lowercase() != needle);
        }
        let totals = totals(
            capture_tokens,
            capture_bytes,
            names.len(),
            sources,
            &columns,
        );
        Matrix {
            columns,
            rows,
            unfiltered,
            totals,
        }
    }

    /// The row index of a tool (by capture index, or by name for an added one).
    pub fn position(&self, key: &RowKey) -> Option<usize> {
        self.rows.iter().position(|r| match key {
            RowKey::Original(i) => r.original == Some(*i),
            RowKey::Added(name) => r.original.is_none() && r.name == *name,
        })
    }

    /// Subtotals of the rows shown: original tokens and, per column, tokens sent.
    pub fn subtotal(&self) -> (usize, Vec<usize>) {
        let original = self.rows.iter().filter_map(|r| r.original_tokens).sum();
        let per_column = (0..self.columns.len())
            .map(|c| self.rows.iter().map(|r| r.cells[c].tokens()).sum())
            .collect();
        (original, per_column)
    }
}

/// How the cursor's row is remembered across rebuilds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKey {
    /// A capture tool.
    Original(usize),
    /// A tool a strategy adds, by its (sanitized) name.
    Added(String),
}

impl RowKey {
    /// The key of a row.
    pub fn of(row: &Row) -> RowKey {
        match row.original {
            Some(i) => RowKey::Original(i),
            None => RowKey::Added(row.name.clone()),
        }
    }
}

fn outcome_index(p: &Projection, original: usize) -> Option<usize> {
    // Outcomes list the originals in capture order first; check before trusting the position.
    match p.outcomes.get(original) {
        Some(o) if o.original == Some(original) => Some(original),
        _ => p.outcomes.iter().position(|o| o.original == Some(original)),
    }
}

fn tool_cell(source: &Source<'_>, at: Option<usize>) -> Option<Cell> {
    let (p, f) = (source.projection?, source.figures?);
    let at = at?;
    let o = p.outcomes.get(at)?;
    let tokens = f.per_tool.get(at).map_or(0, |t| t.projected_tokens);
    Some(Cell::Tool {
        tokens,
        mark: Mark::of(o.status),
    })
}

fn keep(row: &Row, filter: Filter<'_>) -> bool {
    if let Some(c) = filter.changed_by
        && !row.cells.get(c).is_some_and(|cell| cell.changes())
    {
        return false;
    }
    match row.original {
        Some(i) => filter
            .matching
            .is_none_or(|m| m.get(i).copied().unwrap_or(false)),
        None => filter
            .needle
            .is_none_or(|n| row.name.to_lowercase().contains(n)),
    }
}

fn sort_rows(rows: &mut [Row], sort: Sort) {
    // Ties keep the capture order (added tools last), so the order is deterministic.
    let order = |r: &Row| r.original.unwrap_or(usize::MAX);
    match sort {
        Sort::Costliest => rows.sort_by(|a, b| {
            b.original_tokens
                .unwrap_or(0)
                .cmp(&a.original_tokens.unwrap_or(0))
                .then(order(a).cmp(&order(b)))
        }),
        Sort::Column { column, descending } => {
            let value = |r: &Row| {
                if column == 0 {
                    r.original_tokens.unwrap_or(0)
                } else {
                    r.cells.get(column - 1).map_or(0, |c| c.tokens())
                }
            };
            rows.sort_by(|a, b| {
                let by = value(a).cmp(&value(b));
                let by = if descending { by.reverse() } else { by };
                by.then(order(a).cmp(&order(b)))
            })
        }
    }
}

fn totals(
    capture_tokens: Option<usize>,
    capture_bytes: usize,
    tool_count: usize,
    sources: &[Source<'_>],
    columns: &[Column],
) -> Vec<Total> {
    let each = |f: &dyn Fn(&StrategyFigures) -> String| -> Vec<Option<String>> {
        sources
            .iter()
            .zip(columns)
            .map(|(s, c)| match c.state {
                ColumnState::Refused => Some("refused".to_owned()),
                ColumnState::Pending => None,
                ColumnState::Ready => s.figures.map(f),
            })
            .collect()
    };
    let kept = |f: &StrategyFigures| match f.first_changed_byte {
        None => "all".to_owned(),
        Some(b) => format!("{} B", thousands(b)),
    };
    vec![
        Total {
            label: "tools array",
            original: capture_tokens.map(thousands),
            values: each(&|f| thousands(f.tools_tokens)),
        },
        Total {
            label: "added text",
            original: Some("0".to_owned()),
            values: each(&|f| thousands(f.added_tokens)),
        },
        Total {
            label: "total sent",
            original: capture_tokens.map(thousands),
            values: each(&|f| thousands(f.total_tokens)),
        },
        Total {
            label: "saved",
            original: Some("-".to_owned()),
            values: each(&|f| crate::text::pct(Some(f.saved_pct))),
        },
        Total {
            label: "tools sent",
            original: Some(thousands(tool_count)),
            values: each(&|f| thousands(f.tools)),
        },
        Total {
            label: "cache prefix kept",
            original: Some(format!("{} B", thousands(capture_bytes))),
            values: each(&kept),
        },
    ]
}

/// Shorten every name to at most `cells` cells so that two different names never look the
/// same: an MCP name first loses its `mcp__` prefix (`mcp__github__projects_write` becomes
/// `github›projects_write`), then the middle gives way to `…`; names that would still collide
/// move the cut until they differ.
pub fn short_names(names: &[&str], cells: usize) -> Vec<String> {
    let mut out: Vec<String> = names.iter().map(|n| shorten(n, cells, None)).collect();
    let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, s) in out.iter().enumerate() {
        groups.entry(s.clone()).or_default().push(i);
    }
    for (_, members) in groups {
        let distinct: std::collections::HashSet<&str> = members.iter().map(|&i| names[i]).collect();
        if members.len() < 2 || distinct.len() < 2 {
            continue;
        }
        // Try every split of the room between head and tail; keep the first where all differ.
        for head in (0..cells.saturating_sub(1)).rev() {
            let tried: Vec<String> = members
                .iter()
                .map(|&i| shorten(names[i], cells, Some(head)))
                .collect();
            let unique: std::collections::HashSet<&String> = tried.iter().collect();
            if unique.len() == members.len() {
                for (k, &i) in members.iter().enumerate() {
                    out[i] = tried[k].clone();
                }
                break;
            }
        }
    }
    out
}

fn collapse_mcp(name: &str) -> Option<String> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    Some(format!("{server}›{tool}"))
}

/// One name in `cells` cells; `head` fixes how many cells go before the `…`.
fn shorten(name: &str, cells: usize, head: Option<usize>) -> String {
    if width(name) <= cells {
        return name.to_owned();
    }
    let name = collapse_mcp(name).unwrap_or_else(|| name.to_owned());
    if width(&name) <= cells && head.is_none() {
        return name;
    }
    if cells == 0 {
        return String::new();
    }
    let room = cells - 1;
    let head = head.unwrap_or(room.div_ceil(2)).min(room);
    let tail = room - head;
    let chars: Vec<char> = name.chars().collect();
    let mut front = String::new();
    let mut used = 0;
    for &c in &chars {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > head {
            break;
        }
        used += w;
        front.push(c);
    }
    let mut back: Vec<char> = Vec::new();
    let mut used = 0;
    for &c in chars.iter().rev() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > tail {
            break;
        }
        used += w;
        back.push(c);
    }
    back.reverse();
    let back: String = back.into_iter().collect();
    format!("{front}…{back}")
}

/// Where the cursor is and what is scrolled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cursor {
    /// The row (into [`Matrix::rows`]).
    pub row: usize,
    /// The column: 0 for the original, `1 + i` for strategy column `i`.
    pub col: usize,
    /// The first row drawn.
    pub offset: usize,
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
    /// The strategy columns drawn.
    pub visible: Range<usize>,
}

/// Below this width the matrix shows a single strategy column.
pub const NARROW: u16 = 60;
const NAME_MIN: usize = 14;
const NAME_MAX: usize = 36;

/// The widths of every column and which strategy columns fit at `cells`, keeping the
/// cursor's column (`cursor.col`) and starting at `cursor.col_offset` when possible. Numbers
/// are never cut: a column is as wide as its widest figure.
pub fn geometry(m: &Matrix, cells: u16, cursor: Cursor) -> Geometry {
    let figure = |c: usize| -> usize {
        let body = m.rows.iter().map(|r| width(&r.cells[c].text())).max();
        let totals = m
            .totals
            .iter()
            .map(|t| t.values[c].as_deref().map_or(1, width) + 1)
            .max();
        // Room for the sort arrow and the provider-rejects mark, so a header is never cut.
        let head = width(m.columns[c].strategy.id()) + 1 + usize::from(m.columns[c].rejected);
        body.unwrap_or(0).max(totals.unwrap_or(0)).max(head)
    };
    let columns: Vec<usize> = (0..m.columns.len()).map(figure).collect();
    let original = m
        .rows
        .iter()
        .filter_map(|r| r.original_tokens.map(|t| width(&thousands(t)) + 1))
        .chain(
            m.totals
                .iter()
                .map(|t| t.original.as_deref().map_or(1, width) + 1),
        )
        .max()
        .unwrap_or(1)
        .max(width("▼capture"));
    let longest = m.rows.iter().map(|r| width(&r.name)).max().unwrap_or(4);
    let total = cells as usize;
    // Each column is preceded by one space; the row starts with the cursor bar.
    let fixed = |name: usize| 1 + name + 1 + original;
    let all: usize = columns.iter().map(|w| w + 1).sum();
    let wanted_name = longest.clamp(4, NAME_MAX);
    let mut name = wanted_name;
    let visible = if cells >= NARROW && fixed(name) + all + 2 <= total {
        0..columns.len()
    } else {
        // Pan: the name gives way first, to its floor, then columns hide.
        let floor = if cells >= 100 {
            22
        } else if cells >= NARROW {
            18
        } else {
            NAME_MIN
        };
        name = wanted_name.min(floor);
        let room = total.saturating_sub(fixed(name) + 4);
        let cursor_col = cursor.col.saturating_sub(1).min(columns.len() - 1);
        let mut start = cursor.col_offset.min(cursor_col);
        let fits = |start: usize| -> usize {
            if cells < NARROW {
                return 1;
            }
            let mut used = 0;
            let mut n = 0;
            for w in &columns[start..] {
                if used + w + 1 > room && n > 0 {
                    break;
                }
                used += w + 1;
                n += 1;
            }
            n.max(1)
        };
        while start + fits(start) <= cursor_col {
            start += 1;
        }
        start..(start + fits(start)).min(columns.len())
    };
    // Whatever is left goes to the name, up to its longest.
    let used = fixed(name) + visible.clone().map(|c| columns[c] + 1).sum::<usize>() + 4;
    if name < longest {
        name = (name + total.saturating_sub(used))
            .min(longest)
            .min(NAME_MAX.max(name));
    }
    Geometry {
        name,
        original,
        columns,
        visible,
    }
}

/// Rows of the table body at `height` rows for the whole matrix area, and how many totals
/// rows are shown (fewer on a short terminal: the total sent and the saving stay).
pub fn body_rows(height: u16) -> (usize, usize) {
    let h = height as usize;
    // Header and separator, then the totals.
    let totals = if h >= 16 {
        6
    } else if h >= 8 {
        2
    } else {
        1
    };
    (h.saturating_sub(2 + totals).max(1), totals)
}

/// The totals shown when only `n` fit: the ones a user asks about first.
fn shown_totals(m: &Matrix, n: usize) -> Vec<&Total> {
    if n >= m.totals.len() {
        return m.totals.iter().collect();
    }
    let order = ["total sent", "saved", "tools sent"];
    order
        .iter()
        .filter_map(|l| m.totals.iter().find(|t| t.label == *l))
        .take(n)
        .collect()
}

/// Draw the matrix into `area`.
pub fn draw(m: &Matrix, cursor: Cursor, sort: Sort, theme: Theme, frame: &mut Frame, area: Rect) {
    let g = geometry(m, area.width, cursor);
    let (body, n_totals) = body_rows(area.height);
    let mut lines: Vec<Line> = Vec::new();
    let hidden_left = g.visible.start;
    let hidden_right = g.columns.len() - g.visible.end;
    let arrow = |col: usize| -> &'static str {
        match sort {
            Sort::Column { column, descending } if column == col => {
                if descending {
                    "▼"
                } else {
                    "▲"
                }
            }
            Sort::Costliest if col == 0 => "▼",
            _ => "",
        }
    };
    // Header.
    let mut head = vec![Span::raw(" ")];
    head.push(Span::styled(
        pad(&format!("tool ({})", thousands(m.rows.len())), g.name),
        theme.heading(),
    ));
    head.push(Span::raw(" "));
    let style_of = |col: usize| {
        if col == cursor.col {
            theme.selected(true)
        } else {
            theme.heading()
        }
    };
    head.push(Span::styled(
        pad_left(&format!("{}capture", arrow(0)), g.original),
        style_of(0),
    ));
    head.push(Span::styled(
        if hidden_left > 0 {
            format!(" ‹{hidden_left}")
        } else {
            String::new()
        },
        theme.dim(),
    ));
    for c in g.visible.clone() {
        let col = &m.columns[c];
        let mut label = format!("{}{}", arrow(c + 1), col.strategy.id());
        if col.rejected {
            label.push('!');
        }
        head.push(Span::raw(" "));
        head.push(Span::styled(
            pad_left(&label, g.columns[c]),
            style_of(c + 1),
        ));
    }
    if hidden_right > 0 {
        head.push(Span::styled(format!(" {hidden_right}›"), theme.dim()));
    }
    lines.push(Line::from(head));
    // Body.
    let offset = cursor.offset.min(m.rows.len().saturating_sub(body));
    if m.rows.is_empty() {
        lines.push(Line::styled(
            if m.unfiltered == 0 {
                " the capture has no tools"
            } else {
                " no tool matches the filter"
            },
            theme.dim(),
        ));
    }
    let names: Vec<&str> = m
        .rows
        .iter()
        .skip(offset)
        .take(body)
        .map(|r| r.name.as_str())
        .collect();
    let shorts = short_names(&names, g.name);
    for (k, row) in m.rows.iter().skip(offset).take(body).enumerate() {
        let selected = offset + k == cursor.row;
        let base = if selected {
            theme.selected(false)
        } else {
            theme.text()
        };
        let mut spans = vec![Span::styled(if selected { "▌" } else { " " }, base)];
        spans.push(Span::styled(pad(&shorts[k], g.name), base));
        spans.push(Span::styled(" ", base));
        let original = row.original_tokens.map_or_else(
            || {
                if row.original.is_some() {
                    "… ".to_owned()
                } else {
                    "- ".to_owned()
                }
            },
            |t| format!("{} ", thousands(t)),
        );
        spans.push(Span::styled(
            pad_left(&original, g.original),
            cell_style(theme, base, selected && cursor.col == 0, None),
        ));
        if hidden_left > 0 {
            spans.push(Span::styled(
                " ".repeat(width(&format!(" ‹{hidden_left}"))),
                base,
            ));
        }
        for c in g.visible.clone() {
            let cell = row.cells[c];
            spans.push(Span::styled(" ", base));
            spans.push(Span::styled(
                pad_left(&cell.text(), g.columns[c]),
                cell_style(theme, base, selected && cursor.col == c + 1, Some(cell)),
            ));
        }
        lines.push(Line::from(spans));
    }
    while lines.len() < 1 + body {
        lines.push(Line::raw(""));
    }
    // Totals.
    let rule_w = (area.width as usize).saturating_sub(1);
    lines.push(Line::styled(
        format!(" {}", "─".repeat(rule_w)),
        theme.dim(),
    ));
    for t in shown_totals(m, n_totals) {
        let mut spans = vec![Span::raw(" ")];
        spans.push(Span::styled(pad(t.label, g.name), theme.heading()));
        spans.push(Span::raw(" "));
        spans.push(Span::raw(pad_left(
            &format!("{} ", t.original.as_deref().unwrap_or("…")),
            g.original,
        )));
        if hidden_left > 0 {
            spans.push(Span::raw(" ".repeat(width(&format!(" ‹{hidden_left}")))));
        }
        for c in g.visible.clone() {
            let value = t.values[c].as_deref().unwrap_or("…");
            let style = if value == "refused" {
                theme.error()
            } else {
                theme.text()
            };
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                pad_left(&format!("{value} "), g.columns[c]),
                style,
            ));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

fn cell_style(theme: Theme, base: Style, cursor: bool, cell: Option<Cell>) -> Style {
    if cursor {
        return theme.selected(true);
    }
    match cell {
        Some(Cell::Refused) => theme.error(),
        Some(Cell::Tool { mark, .. }) => match mark {
            Mark::Unchanged => base.patch(theme.dim()),
            Mark::Changed => base.patch(theme.good()),
            Mark::Removed | Mark::Deferred => base.patch(theme.dim()),
            Mark::Added => base.patch(theme.warn()),
        },
        Some(Cell::Pending) => base.patch(theme.dim()),
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_shrink_visibly_and_stay_distinct() {
        let names = [
            "mcp__github__projects_write",
            "mcp__github__projects_read",
            "read_file",
        ];
        assert_eq!(
            short_names(&names, 21),
            vec!["github›projects_write", "github›projects_read", "read_file"]
        );
        assert_eq!(
            short_names(&names, 12),
            vec!["github…write", "github…_read", "read_file"]
        );
        // The default cut would make these two the same: the cut moves until they differ.
        let twins = ["alpha_one_omega", "alpha_two_omega"];
        let short = short_names(&twins, 9);
        assert_eq!(short, vec!["alpha_o…a", "alpha_t…a"]);
    }

    #[test]
    fn cells_carry_their_mark_and_never_lose_digits() {
        assert_eq!(
            Cell::Tool {
                tokens: 12_345,
                mark: Mark::Unchanged
            }
            .text(),
            "12,345="
        );
        assert_eq!(
            Cell::Tool {
                tokens: 0,
                mark: Mark::Deferred
            }
            .text(),
            "-»"
        );
        assert_eq!(Cell::Refused.text(), "refused");
        assert!(!Cell::Absent.changes());
        assert!(
            Cell::Tool {
                tokens: 3,
                mark: Mark::Added
            }
            .changes()
        );
    }

    #[test]
    fn short_terminals_keep_the_main_totals() {
        assert_eq!(body_rows(30), (22, 6));
        assert_eq!(body_rows(10), (6, 2));
        assert_eq!(body_rows(4), (1, 1));
    }
}
