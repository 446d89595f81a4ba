//! The matrix's view model: the library's [`crate::matrix`] model as the screen shows it (the
//! columns measured so far, the search on top of the `f` filter, the rows grouped by server
//! with their subtotals), and the text of each cell. No drawing and no state of the screen:
//! the `matrix` module draws it and keeps the cursor, `matrix::groups` groups its rows.

use crate::matrix::{Cell, Mark, Matrix, Origin, Row, Sort, TotalRow};
use crate::report::Report;
use crate::strategy::Strategy;
use crate::text::{fit, safe, thousands, width};

/// The strategies with a column, in order (`original` is the capture's own column, first).
pub fn strategies() -> &'static [Strategy] {
    &Strategy::ALL[1..]
}

/// The strategy under a cursor column: 0 is the capture (`original`), `1 + i` strategy `i`.
pub fn strategy_at(col: usize) -> Strategy {
    Strategy::ALL[col.min(Strategy::ALL.len() - 1)]
}

/// A group of rows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Group {
    /// An MCP server, named as `report --by-server` names it (raw: sanitize to draw).
    Server(String),
    /// The host's own tools.
    Host,
    /// Tools a strategy adds: no server's, in no capture.
    Added,
}

impl Group {
    /// Its name as drawn: the server's (sanitized), `(host)`, `(added)`.
    pub fn label(&self) -> String {
        match self {
            Group::Server(name) => safe(name),
            Group::Host => crate::mcp::by_server::HOST_ROW.to_owned(),
            Group::Added => "(added)".to_owned(),
        }
    }
}

/// One row of the matrix as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewRow {
    /// A tool: its index in [`crate::matrix::Matrix::all_rows`].
    Tool(usize),
    /// A group's subtotal: its index in [`MatrixView::subtotals`].
    Subtotal(usize),
}

/// What the cursor is on, to find it again after the rows change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKey {
    /// A tool.
    Tool(Origin),
    /// A group's subtotal row.
    Group(Group),
}

/// One strategy column's figure in a subtotal row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// The column is still being measured.
    Measuring,
    /// The host refuses the capture under this strategy: nothing is sent.
    Refused,
    /// Tokens the group's entries put in the model's context.
    Tokens(usize),
    /// The server was not listed: it has no tools to count.
    Unlisted,
}

impl Figure {
    pub(crate) fn tokens(self) -> Option<usize> {
        match self {
            Figure::Tokens(t) => Some(t),
            _ => None,
        }
    }
}

/// A group's subtotal row.
#[derive(Debug, Clone, PartialEq)]
pub struct Subtotal {
    /// The group.
    pub group: Group,
    /// Tools it has (a Codex namespace counts each tool in it), shown or not.
    pub tools: usize,
    /// Its rows shown (after the search and the `f` filter).
    pub shown: usize,
    /// Tokens of its entries as the capture sends them (`None` for added tools).
    pub original: Option<usize>,
    /// Per strategy column ([`strategies`] order).
    pub columns: Vec<Figure>,
    /// Folded: its tools are hidden.
    pub folded: bool,
    /// A server `toolprism mcp` could not list: its status (the label says it).
    pub unlisted: Option<crate::mcp::status::ServerStatus>,
}

impl Subtotal {
    /// `▾ github (2 tools)`, `▸ github (1 of 2 tools)` when some are filtered out, shorter
    /// forms when `cells` is narrow, cut with a mark as the last resort.
    pub fn label(&self, cells: usize) -> String {
        let arrow = if self.folded { "▸" } else { "▾" };
        let name = self.group.label();
        if let Some(server) = &self.unlisted {
            // The status before the reason: a reason too long for the column is cut with a
            // mark, while a column too narrow for a bit of it drops it (the overview has it).
            let status = format!("✗ {name}: {}", server.state.word());
            let full = format!("✗ {name}: {}", server.summary());
            return if width(&full) <= cells || cells >= width(&status) + 8 {
                fit(&full, cells)
            } else {
                fit(&status, cells)
            };
        }
        let noun = if self.tools == 1 { "tool" } else { "tools" };
        let count = if self.shown == self.tools {
            format!("{} {noun}", thousands(self.tools))
        } else {
            format!(
                "{} of {} {noun}",
                thousands(self.shown),
                thousands(self.tools)
            )
        };
        let long = format!("{arrow} {name} ({count})");
        if width(&long) <= cells {
            return long;
        }
        let short = format!("{arrow} {name} ({})", thousands(self.tools));
        if width(&short) <= cells {
            return short;
        }
        fit(&format!("{arrow} {name}"), cells)
    }

    /// The original column's text (under the numbers of the rows, not their marks).
    pub fn original_text(&self, counted: bool) -> String {
        match self.original {
            None => "-".to_owned(),
            Some(_) if !counted => "…".to_owned(),
            Some(t) => thousands(t),
        }
    }

    /// Strategy column `c`'s text.
    pub fn cell_text(&self, c: usize) -> String {
        match self.columns.get(c) {
            Some(Figure::Tokens(t)) => thousands(*t),
            Some(Figure::Refused) => "—".to_owned(),
            Some(Figure::Unlisted) => "-".to_owned(),
            Some(Figure::Measuring) | None => "…".to_owned(),
        }
    }
}

/// The search applied on top of the library's filter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Search<'a> {
    /// The text searched, lowercase (`None`: no search).
    pub needle: Option<&'a str>,
    /// Per capture tool, whether its entry contains the needle.
    pub matching: &'a [bool],
}

/// The matrix as the screen shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixView {
    /// The library's model over the strategies measured so far, sorted and `f`-filtered.
    pub model: Matrix,
    /// Per strategy column ([`strategies`] order): its index in the model, `None` while it is
    /// still being measured.
    pub columns: Vec<Option<usize>>,
    /// The rows shown, as indices into [`Matrix::all_rows`], after the search.
    pub shown: Vec<usize>,
    /// Rows before any filter.
    pub unfiltered: usize,
    /// Names as drawn: sanitized, capture names where the figures have none yet.
    pub names: Vec<String>,
    /// Whether the capture's tokens are counted (else the original column reads `…`).
    pub counted: bool,
    /// The search text, highlighted in the names (empty: no search).
    pub needle: String,
    /// Per strategy column, whether it sends none of the tools (every cell `×`, as `disabled`):
    /// folded to no width unless the cursor is on it, and named in the legend instead.
    pub folded: Vec<bool>,
    /// The rows drawn, in order: [`MatrixView::shown`]'s tools, or grouped by server with a
    /// subtotal row each (see `matrix::groups`).
    pub lines: Vec<ViewRow>,
    /// The groups' subtotal rows (none when not grouped).
    pub subtotals: Vec<Subtotal>,
}

impl MatrixView {
    /// The view of `report` (the strategies measured so far) for a capture with these tool
    /// names, sorted by `sort`, keeping what `changed_by` changes and what `search` matches.
    pub fn build(
        report: &Report,
        capture_names: &[String],
        counted: bool,
        sort: Sort,
        changed_by: Option<Strategy>,
        search: Search<'_>,
    ) -> MatrixView {
        let mut model = Matrix::new(report);
        model.set_sort(sort);
        model.set_filter(changed_by.map(crate::matrix::Filter::ChangedBy));
        let columns: Vec<Option<usize>> = strategies()
            .iter()
            .map(|&s| model.column_index(s))
            .collect();
        let all = model.all_rows();
        let names: Vec<String> = all
            .iter()
            .map(|r| match r.origin {
                Origin::Capture(i) if r.name.is_empty() => {
                    safe(capture_names.get(i).map_or("", String::as_str))
                }
                _ => safe(&r.name),
            })
            .collect();
        let index_of = |r: &Row| -> usize {
            // Rows are the capture's in order, then the added ones in order.
            match r.origin {
                Origin::Capture(i) => i,
                Origin::Added(n) => report.capture.tools + n,
            }
        };
        let mut shown: Vec<usize> = model
            .rows()
            .map(index_of)
            .filter(|&i| match search.needle {
                None => true,
                Some(needle) => match all[i].origin {
                    Origin::Capture(c) => search.matching.get(c).copied().unwrap_or(false),
                    Origin::Added(_) => names[i].to_lowercase().contains(needle),
                },
            })
            .collect();
        if let Some(needle) = search.needle {
            // A search for a name puts that tool first (a stable sort keeps the rest in order).
            shown.sort_by_key(|&i| names[i].to_lowercase() != needle);
        }
        let folded = columns_sends_nothing(&model, &columns);
        MatrixView {
            folded,
            lines: shown.iter().map(|&i| ViewRow::Tool(i)).collect(),
            subtotals: Vec::new(),
            unfiltered: all.len(),
            model,
            columns,
            shown,
            names,
            counted,
            needle: search.needle.unwrap_or("").to_owned(),
        }
    }

    /// The tool at a screen position (`None` on a subtotal row).
    pub fn row(&self, at: usize) -> Option<&Row> {
        self.tool_index(at).map(|i| &self.model.all_rows()[i])
    }

    /// The drawn name of the tool at a screen position.
    pub fn name(&self, at: usize) -> Option<&str> {
        self.tool_index(at).map(|i| self.names[i].as_str())
    }

    pub(crate) fn tool_index(&self, at: usize) -> Option<usize> {
        match self.lines.get(at)? {
            ViewRow::Tool(i) => Some(*i),
            ViewRow::Subtotal(_) => None,
        }
    }

    /// The tools shown (after the search and the filter), folded or not.
    pub fn tools(&self) -> impl Iterator<Item = &Row> + '_ {
        self.shown.iter().map(|&i| &self.model.all_rows()[i])
    }

    /// The position of a tool among the rows drawn.
    pub fn position(&self, origin: Origin) -> Option<usize> {
        (0..self.lines.len()).find(|&at| self.row(at).is_some_and(|r| r.origin == origin))
    }

    /// A strategy column's cell in a row (`None` while the column is being measured).
    pub fn cell(&self, row: &Row, col: usize) -> Option<Cell> {
        self.columns[col].map(|c| row.cells[c])
    }

    /// Subtotals of the rows shown: original tokens, and per strategy column the tokens sent.
    pub fn subtotal(&self) -> (usize, Vec<usize>) {
        let rows: Vec<&Row> = self.tools().collect();
        let original = rows.iter().filter_map(|r| r.original_tokens).sum();
        let per_column = (0..self.columns.len())
            .map(|c| {
                rows.iter()
                    .filter_map(|r| self.cell(r, c).and_then(|cell| cell.tokens))
                    .sum()
            })
            .collect();
        (original, per_column)
    }

    pub(crate) fn cell_text(&self, row: &Row, col: usize) -> String {
        match self.cell(row, col) {
            None => "…".to_owned(),
            Some(cell) => cell.text(),
        }
    }

    /// [`MatrixView::cell_text`] as drawn `at` rows under the first row on screen: a refused
    /// column says so in that row only.
    pub(crate) fn drawn_cell_text(&self, row: &Row, col: usize, at: usize) -> String {
        match self.cell(row, col) {
            None => "…".to_owned(),
            Some(cell) => cell.text_in_row(at),
        }
    }

    pub(crate) fn original_text(&self, row: &Row) -> String {
        match (row.origin, row.original_tokens) {
            (Origin::Added(_), _) => "-".to_owned(),
            (_, Some(t)) if self.counted => thousands(t),
            _ => "…".to_owned(),
        }
    }

    pub(crate) fn total_text(&self, col: Option<usize>, total: TotalRow) -> String {
        match col {
            None if !self.counted => "…".to_owned(),
            None => self.model.total_text(None, total),
            Some(c) => match self.columns[c] {
                None => "…".to_owned(),
                Some(m) => self.model.total_text(Some(m), total),
            },
        }
    }

    pub(crate) fn header(&self, col: usize) -> String {
        match self.columns[col] {
            Some(m) => self.model.columns[m].header(),
            None => strategies()[col].id().to_owned(),
        }
    }
}

/// Per strategy column: measured, with at least one tool, and every tool removed (`×`) or
/// absent: a column that would only repeat `×` down the screen.
fn columns_sends_nothing(model: &Matrix, columns: &[Option<usize>]) -> Vec<bool> {
    columns
        .iter()
        .map(|c| {
            c.is_some_and(|c| {
                let rows = model.all_rows();
                rows.iter().any(|r| r.cells[c].mark == Mark::Removed)
                    && rows
                        .iter()
                        .all(|r| matches!(r.cells[c].mark, Mark::Removed | Mark::Absent))
            })
        })
        .collect()
}

/// `best: minimal saves 4,597 in context (56.28%)` (tokens): the strategy that saves the most among those
/// that send tools and whose request a provider accepts (`None` when none saves anything).
pub fn best(m: &MatrixView) -> Option<String> {
    m.model
        .columns
        .iter()
        .filter(|c| c.request_valid && matches!(c.status, crate::matrix::ColumnStatus::Ok))
        .filter_map(|c| c.totals.as_ref().map(|t| (c.strategy, t)))
        .filter(|(_, t)| t.tools_sent > 0 && t.saved_tokens > 0)
        .max_by_key(|(_, t)| t.saved_tokens)
        .map(|(s, t)| {
            format!(
                "best: {} saves {} in context ({:.2}%)",
                s.id(),
                thousands(t.saved_tokens as usize),
                t.saved_pct
            )
        })
}

/// `folded: disabled (sends no tool)`: the folded columns, for the legend (`None`: none).
pub fn folded_line(m: &MatrixView) -> Option<String> {
    let ids: Vec<&str> = strategies()
        .iter()
        .zip(&m.folded)
        .filter(|(_, f)| **f)
        .map(|(s, _)| s.id())
        .collect();
    let why = if ids.len() == 1 {
        "sends no tool"
    } else {
        "each sends no tool"
    };
    (!ids.is_empty()).then(|| format!("folded: {} ({why})", ids.join(", ")))
}
