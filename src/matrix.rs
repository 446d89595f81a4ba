//! The tools × strategies matrix: one row per tool, one column per strategy, each cell the
//! tokens that strategy sends for that tool, with totals rows under it.
//!
//! A pure view model built from a [`Report`]: `report --matrix` prints it and the TUI's home
//! screen draws it, so both show the same figures. Nothing here knows about terminals; the
//! strings it hands out ([`Matrix::total_text`], [`display_names`]) are plain text, sanitized
//! where they come from a capture.
//!
//! The `original` strategy is the capture itself: it is the [`Matrix::original`] column (the
//! default sort key), never a strategy column.

use std::collections::HashMap;
use std::str::FromStr;

use crate::projection::{Applies, Status};
use crate::report::{Report, StrategyFigures};
use crate::strategy::Strategy;
use crate::text::{safe, thousands, width};

/// What a strategy does to one tool, as the cell's mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// Sent with its original bytes.
    Kept,
    /// Sent, changed.
    Changed,
    /// Not sent.
    Removed,
    /// Not sent now, loadable on demand (`tool_search`).
    Deferred,
    /// Sent, but not in the capture (`tool_search`, the code gateway).
    Added,
    /// An added tool this strategy does not add: nothing to show.
    Absent,
    /// The strategy's host refuses the capture: no figures.
    Refused,
}

impl Mark {
    /// The marks in legend order.
    pub const ALL: [Mark; 7] = [
        Mark::Kept,
        Mark::Changed,
        Mark::Added,
        Mark::Removed,
        Mark::Deferred,
        Mark::Absent,
        Mark::Refused,
    ];

    /// One glyph for tables (empty for [`Mark::Absent`]; `refused` is written as a word).
    pub fn glyph(self) -> &'static str {
        match self {
            Mark::Kept => "=",
            Mark::Changed => "~",
            Mark::Removed => "×",
            Mark::Deferred => "»",
            Mark::Added => "+",
            Mark::Absent => "",
            Mark::Refused => "refused",
        }
    }

    /// The word for CSV and the legend.
    pub fn word(self) -> &'static str {
        match self {
            Mark::Kept => "unchanged",
            Mark::Changed => "changed",
            Mark::Removed => "removed",
            Mark::Deferred => "deferred",
            Mark::Added => "added",
            Mark::Absent => "",
            Mark::Refused => "refused",
        }
    }

    /// Whether the strategy does something to the tool (what [`Filter::ChangedBy`] keeps).
    pub fn is_change(self) -> bool {
        matches!(
            self,
            Mark::Changed | Mark::Removed | Mark::Deferred | Mark::Added
        )
    }

    fn from_state(state: Status) -> Mark {
        match state {
            Status::Kept => Mark::Kept,
            Status::Changed => Mark::Changed,
            Status::Removed => Mark::Removed,
            Status::Deferred => Mark::Deferred,
            Status::Added => Mark::Added,
        }
    }
}

/// The legend line for the marks a table shows.
pub fn legend() -> String {
    let marks: Vec<String> = [
        Mark::Kept,
        Mark::Changed,
        Mark::Added,
        Mark::Removed,
        Mark::Deferred,
    ]
    .iter()
    .map(|m| format!("{} {}", m.glyph(), m.word()))
    .collect();
    format!("{}  (× and » send nothing)", marks.join("  "))
}

/// One strategy's figure for one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Tokens of the entry as the strategy sends it; `None` when it sends nothing for the tool
    /// (removed, deferred, absent, refused).
    pub tokens: Option<usize>,
    /// What the strategy did to it.
    pub mark: Mark,
    /// Index of the tool in that strategy's per-tool figures (and its projection's
    /// outcomes), to open it; `None` for absent and refused cells.
    pub outcome: Option<usize>,
}

impl Cell {
    /// The cell as table text: `1,197 =`, `×`, `refused`, or empty.
    pub fn text(&self) -> String {
        match (self.tokens, self.mark) {
            (_, Mark::Refused) => Mark::Refused.glyph().to_owned(),
            (Some(tokens), mark) => format!("{} {}", thousands(tokens), mark.glyph()),
            (None, mark) => mark.glyph().to_owned(),
        }
    }

    /// The cell as row `at` of a drawn table shows it (0: the first row drawn): a refused
    /// column says `refused` in its first row and leaves the others empty, so a thousand rows
    /// do not repeat one word (its header and totals say it too).
    pub fn text_in_row(&self, at: usize) -> String {
        if self.mark == Mark::Refused && at > 0 {
            String::new()
        } else {
            self.text()
        }
    }
}

/// Where a row's tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The capture's tool at this index.
    Capture(usize),
    /// Added by at least one strategy (the `n`-th distinct added name, in column order).
    Added(usize),
}

/// One tool: its original cost and a cell per strategy column.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The tool's name as it is in the capture (untrusted: sanitize before drawing, or use
    /// [`display_names`]).
    pub name: String,
    /// Where it comes from.
    pub origin: Origin,
    /// Tokens of the original entry; `None` for added tools.
    pub original_tokens: Option<usize>,
    /// One cell per [`Matrix::columns`] entry.
    pub cells: Vec<Cell>,
}

/// A strategy column's outcome as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnStatus {
    /// Projected.
    Ok,
    /// Nothing to act on (figures shown, with the reason).
    NotApplicable(String),
    /// The host refuses the capture: no figures, this message instead.
    Refused(String),
}

/// A strategy's bytes of compact tools array that stay identical to the capture's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CachePrefix {
    /// The whole array is unchanged.
    Whole,
    /// Bytes before the first changed byte.
    Bytes(usize),
}

/// A column's totals: the same figures as the strategy's [`StrategyFigures`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Totals {
    /// Tokens of the compact tools array.
    pub tools_tokens: usize,
    /// Tokens of the tools array the model sees (`defer_loading: true` entries count 0);
    /// savings are measured on these.
    pub context_tokens: usize,
    /// Tokens of text added outside the tools array.
    pub added_tokens: usize,
    /// Tokens of the inline definitions in the messages (`None`: the capture defines none).
    pub inline_tokens: Option<usize>,
    /// `tools_tokens + added_tokens + inline_tokens`.
    pub total_tokens: usize,
    /// Capture tokens minus `total_tokens`.
    pub saved_tokens: i64,
    /// `saved_tokens` as a percentage of the capture's tokens, two decimals.
    pub saved_pct: f64,
    /// Tools in the sent list.
    pub tools_sent: usize,
    /// Prompt-cache prefix kept.
    pub cache_prefix: CachePrefix,
}

/// The totals rows, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TotalRow {
    /// Tokens of the tools array.
    ToolsArray,
    /// Tokens of it in the model's context (shown only when a provider defers entries).
    InContext,
    /// Tokens of text added outside it.
    AddedText,
    /// Tokens of the inline definitions in the messages (shown only when the capture has any).
    Inline,
    /// Their sum.
    TotalSent,
    /// Tokens saved against the capture.
    Saved,
    /// The same as a percentage.
    SavedPct,
    /// Tools sent.
    ToolsSent,
    /// Bytes of cache prefix kept.
    CachePrefix,
}

impl TotalRow {
    /// Every totals row, in display order ([`Matrix::total_rows`] leaves out `InContext`
    /// when it equals the tools array everywhere, and `Inline` when the capture defines no tool
    /// inline).
    pub const ALL: [TotalRow; 9] = [
        TotalRow::ToolsArray,
        TotalRow::InContext,
        TotalRow::AddedText,
        TotalRow::Inline,
        TotalRow::TotalSent,
        TotalRow::Saved,
        TotalRow::SavedPct,
        TotalRow::ToolsSent,
        TotalRow::CachePrefix,
    ];

    /// Its label.
    pub fn label(self) -> &'static str {
        match self {
            TotalRow::ToolsArray => "tools array",
            TotalRow::InContext => "in context",
            TotalRow::AddedText => "added text",
            TotalRow::Inline => "inline definitions",
            TotalRow::TotalSent => "total sent",
            TotalRow::Saved => "saved",
            TotalRow::SavedPct => "saved %",
            TotalRow::ToolsSent => "tools sent",
            TotalRow::CachePrefix => "cache prefix kept",
        }
    }
}

impl Totals {
    /// The row's figure with thousands separators: `1,197`, `-35`, `56.94%`, `107 B`, `whole`.
    pub fn text(&self, row: TotalRow) -> String {
        match row {
            TotalRow::ToolsArray => thousands(self.tools_tokens),
            TotalRow::InContext => thousands(self.context_tokens),
            TotalRow::AddedText => thousands(self.added_tokens),
            TotalRow::Inline => thousands(self.inline_tokens.unwrap_or(0)),
            TotalRow::TotalSent => thousands(self.total_tokens),
            TotalRow::Saved => crate::text::signed(self.saved_tokens),
            TotalRow::SavedPct => format!("{:.2}%", self.saved_pct),
            TotalRow::ToolsSent => thousands(self.tools_sent),
            TotalRow::CachePrefix => match self.cache_prefix {
                CachePrefix::Whole => "whole".to_owned(),
                CachePrefix::Bytes(n) => format!("{} B", thousands(n)),
            },
        }
    }

    /// The row's figure as a plain number for spreadsheets (no separators; `whole` stays a
    /// word).
    pub fn raw(&self, row: TotalRow) -> String {
        match row {
            TotalRow::ToolsArray => self.tools_tokens.to_string(),
            TotalRow::InContext => self.context_tokens.to_string(),
            TotalRow::AddedText => self.added_tokens.to_string(),
            TotalRow::Inline => self.inline_tokens.unwrap_or(0).to_string(),
            TotalRow::TotalSent => self.total_tokens.to_string(),
            TotalRow::Saved => self.saved_tokens.to_string(),
            TotalRow::SavedPct => format!("{:.2}", self.saved_pct),
            TotalRow::ToolsSent => self.tools_sent.to_string(),
            TotalRow::CachePrefix => match self.cache_prefix {
                CachePrefix::Whole => "whole".to_owned(),
                CachePrefix::Bytes(n) => n.to_string(),
            },
        }
    }
}

/// One strategy column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The strategy.
    pub strategy: Strategy,
    /// Projected, not applicable, or refused.
    pub status: ColumnStatus,
    /// `false` when a provider would reject the projected request (marked in the header), and
    /// for a refused strategy, which sends none.
    pub request_valid: bool,
    /// The column's totals; `None` when refused.
    pub totals: Option<Totals>,
}

impl Column {
    /// The header text: the strategy id, with `!` when a provider would reject the request
    /// (a refused strategy sends no request: its cells say so instead).
    pub fn header(&self) -> String {
        if self.request_valid || matches!(self.status, ColumnStatus::Refused(_)) {
            self.strategy.id().to_owned()
        } else {
            format!("{}!", self.strategy.id())
        }
    }
}

/// What the rows are sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortColumn {
    /// The tool name (byte order).
    Name,
    /// The capture's tokens per tool.
    Original,
    /// Tokens a strategy sends per tool (not sent sorts below any sent figure).
    Strategy(Strategy),
}

impl FromStr for SortColumn {
    type Err = String;

    /// `name`, `original`, or a strategy id.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "name" => Ok(SortColumn::Name),
            "original" => Ok(SortColumn::Original),
            other => other.parse().map(SortColumn::Strategy).map_err(|_| {
                format!(
                    "unknown sort column `{}` (name, original, or a strategy id: {})",
                    safe(other),
                    Strategy::ALL[1..]
                        .iter()
                        .map(|s| s.id())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
        }
    }
}

/// A sort order: a column and a direction. Ties keep capture order (added tools last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    /// The column.
    pub column: SortColumn,
    /// Largest (or last name) first.
    pub descending: bool,
}

impl Sort {
    /// A column's natural direction: names A→Z, tokens costliest first.
    pub fn natural(column: SortColumn) -> Sort {
        Sort {
            column,
            descending: column != SortColumn::Name,
        }
    }
}

impl Default for Sort {
    /// Original tokens, costliest first.
    fn default() -> Sort {
        Sort::natural(SortColumn::Original)
    }
}

/// Which rows to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// Only the tools this strategy changes, removes, defers or adds (none for a refused one).
    ChangedBy(Strategy),
}

/// The tools × strategies matrix of one report.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    /// The capture's tools and tokens.
    pub original: Totals,
    /// Whether a provider would reject the capture's own request (duplicate tool names, ...):
    /// its column is marked `!` as every other column is.
    pub original_rejected: bool,
    /// The strategy columns, in the report's order with refused ones last (`original` left
    /// out: it is [`Matrix::original`]).
    pub columns: Vec<Column>,
    /// Every row: the capture's tools in capture order, then added tools.
    rows: Vec<Row>,
    /// The rows shown, as indices into `rows`, sorted and filtered.
    order: Vec<usize>,
    sort: Sort,
    filter: Option<Filter>,
}

impl Matrix {
    /// Build the matrix of a report, sorted by [`Sort::default`], unfiltered. Tool names and
    /// original tokens come from the per-tool figures: include [`Strategy::Original`] in the
    /// report so they are there even when every other strategy is refused.
    pub fn new(report: &Report) -> Matrix {
        let capture_tools = report.capture.tools;
        let mut figures: Vec<(&StrategyFigures, Strategy)> = report
            .strategies
            .iter()
            .filter_map(|s| Some((s, s.id.parse::<Strategy>().ok()?)))
            .filter(|(_, strategy)| *strategy != Strategy::Original)
            .collect();
        // Refused strategies go last, as in every table (CLI.md); the sort is stable.
        figures.sort_by_key(|(s, _)| matches!(status(s), ColumnStatus::Refused(_)));
        let columns: Vec<Column> = figures
            .iter()
            .map(|(s, strategy)| column(s, *strategy))
            .collect();

        // The capture's names and tokens, from the first strategy that lists every original
        // in capture order (a refused one may list none; `original` always lists them all).
        let any = report
            .strategies
            .iter()
            .find(|s| s.per_tool.len() >= capture_tools);
        let mut rows: Vec<Row> = (0..capture_tools)
            .map(|index| {
                let tool = any.and_then(|s| s.per_tool.get(index));
                Row {
                    name: tool.map(|t| t.name.to_string()).unwrap_or_default(),
                    origin: Origin::Capture(index),
                    original_tokens: Some(
                        tool.map_or(0, crate::report::ToolFigures::original_tokens),
                    ),
                    cells: Vec::with_capacity(columns.len()),
                }
            })
            .collect();
        let mut added: HashMap<String, usize> = HashMap::new();
        for (c, ((figures, _), column)) in figures.iter().zip(&columns).enumerate() {
            let refused = matches!(column.status, ColumnStatus::Refused(_));
            for (i, tool) in figures.per_tool.iter().enumerate() {
                let cell = if refused {
                    Cell {
                        tokens: None,
                        mark: Mark::Refused,
                        outcome: None,
                    }
                } else {
                    let mark = Mark::from_state(tool.state);
                    Cell {
                        tokens: matches!(mark, Mark::Kept | Mark::Changed | Mark::Added)
                            .then_some(tool.projected_tokens()),
                        mark,
                        outcome: Some(i),
                    }
                };
                let row = if i < capture_tools {
                    i
                } else {
                    let next = rows.len();
                    let row = *added.entry(tool.name.to_string()).or_insert(next);
                    if row == next {
                        rows.push(Row {
                            name: tool.name.to_string(),
                            origin: Origin::Added(next - capture_tools),
                            original_tokens: None,
                            cells: Vec::with_capacity(columns.len()),
                        });
                    }
                    row
                };
                let cells = &mut rows[row].cells;
                // Earlier columns that did not add this tool.
                while cells.len() < c {
                    cells.push(absent(&columns[cells.len()]));
                }
                if cells.len() == c {
                    cells.push(cell);
                }
            }
            for row in &mut rows {
                while row.cells.len() <= c {
                    let len = row.cells.len();
                    row.cells.push(absent(&columns[len]));
                }
            }
        }

        let capture = &report.capture;
        let original = Totals {
            tools_tokens: capture.tools_tokens,
            context_tokens: capture.context_tokens,
            added_tokens: 0,
            // Every definition has a token: none counted is none defined.
            inline_tokens: capture
                .in_effect
                .as_ref()
                .map(|e| e.inline_tokens)
                .filter(|&t| t > 0),
            total_tokens: capture.tools_tokens
                + capture.in_effect.as_ref().map_or(0, |e| e.inline_tokens),
            saved_tokens: 0,
            saved_pct: 0.0,
            tools_sent: capture.tools,
            cache_prefix: CachePrefix::Whole,
        };
        let original_rejected = report
            .strategies
            .iter()
            .any(|s| s.id == Strategy::Original.id() && !s.request_valid && !s.is_refused());
        let mut matrix = Matrix {
            original,
            original_rejected,
            columns,
            order: (0..rows.len()).collect(),
            rows,
            sort: Sort::default(),
            filter: None,
        };
        matrix.refresh();
        matrix
    }

    /// The rows shown, sorted and filtered.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &Row> + '_ {
        self.order.iter().map(|&i| &self.rows[i])
    }

    /// Every row, shown or not: capture order, then added tools.
    pub fn all_rows(&self) -> &[Row] {
        &self.rows
    }

    /// The current sort.
    pub fn sort(&self) -> Sort {
        self.sort
    }

    /// The current filter.
    pub fn filter(&self) -> Option<Filter> {
        self.filter
    }

    /// Sort the rows (the filter stays).
    pub fn set_sort(&mut self, sort: Sort) {
        self.sort = sort;
        self.refresh();
    }

    /// Keep only some rows (`None`: all of them).
    pub fn set_filter(&mut self, filter: Option<Filter>) {
        self.filter = filter;
        self.refresh();
    }

    /// The totals rows to show: every one, but `in context` only when a provider defers
    /// entries somewhere (it equals `tools array` otherwise).
    pub fn total_rows(&self) -> Vec<TotalRow> {
        let deferral = std::iter::once(&self.original)
            .chain(self.columns.iter().filter_map(|c| c.totals.as_ref()))
            .any(|t| t.context_tokens != t.tools_tokens);
        let inline = self.original.inline_tokens.is_some();
        TotalRow::ALL
            .into_iter()
            .filter(|&row| deferral || row != TotalRow::InContext)
            .filter(|&row| inline || row != TotalRow::Inline)
            .collect()
    }

    /// The index in [`Matrix::columns`] of a strategy's column.
    pub fn column_index(&self, strategy: Strategy) -> Option<usize> {
        self.columns.iter().position(|c| c.strategy == strategy)
    }

    /// A totals row's text for the original column (`None`) or a strategy column; `refused`
    /// when the column has no figures, `n/a` for the saving of one with nothing to act on.
    pub fn total_text(&self, column: Option<usize>, row: TotalRow) -> String {
        match column {
            None => self.original.text(row),
            Some(c) => match self.columns.get(c) {
                // Nothing to act on: its figures stand, but they are no saving.
                Some(Column {
                    status: ColumnStatus::NotApplicable(_),
                    ..
                }) if matches!(row, TotalRow::Saved | TotalRow::SavedPct) => "n/a".to_owned(),
                Some(Column {
                    totals: Some(totals),
                    ..
                }) => totals.text(row),
                _ => Mark::Refused.glyph().to_owned(),
            },
        }
    }

    fn refresh(&mut self) {
        let column = match self.sort.column {
            SortColumn::Strategy(s) => Some(self.column_index(s)),
            _ => None,
        };
        let filter = self.filter.map(|Filter::ChangedBy(s)| self.column_index(s));
        let rows = &self.rows;
        let mut order: Vec<usize> = (0..rows.len())
            .filter(|&i| match filter {
                None => true,
                Some(None) => false,
                Some(Some(c)) => rows[i].cells[c].mark.is_change(),
            })
            .collect();
        let descending = self.sort.descending;
        // Capture order breaks ties either way, so the order is total and stable.
        order.sort_by(|&a, &b| {
            let (ra, rb) = (&rows[a], &rows[b]);
            let primary = match (self.sort.column, column) {
                (SortColumn::Name, _) => ra.name.cmp(&rb.name),
                (SortColumn::Original, _) => ra.original_tokens.cmp(&rb.original_tokens),
                (_, Some(Some(c))) => ra.cells[c].tokens.cmp(&rb.cells[c].tokens),
                _ => std::cmp::Ordering::Equal,
            };
            let primary = if descending {
                primary.reverse()
            } else {
                primary
            };
            primary.then(a.cmp(&b))
        });
        self.order = order;
    }
}

fn absent(column: &Column) -> Cell {
    Cell {
        tokens: None,
        outcome: None,
        mark: if matches!(column.status, ColumnStatus::Refused(_)) {
            Mark::Refused
        } else {
            Mark::Absent
        },
    }
}

fn column(s: &StrategyFigures, strategy: Strategy) -> Column {
    let status = status(s);
    // A refused strategy has no figures at all; any other has every one but its saving, which
    // one that did not apply has not (its column says `n/a`).
    let totals = (|| {
        Some(Totals {
            tools_tokens: s.tools_tokens?,
            context_tokens: s.context_tokens?,
            added_tokens: s.added_tokens?,
            inline_tokens: s.inline_tokens,
            total_tokens: s.total_tokens?,
            saved_tokens: s.saved_tokens.unwrap_or(0),
            saved_pct: s.saved_pct.unwrap_or(0.0),
            tools_sent: s.tools?,
            cache_prefix: match s.first_changed_byte {
                None => CachePrefix::Whole,
                Some(at) => CachePrefix::Bytes(at),
            },
        })
    })()
    .filter(|_| !matches!(status, ColumnStatus::Refused(_)));
    Column {
        strategy,
        request_valid: s.request_valid,
        status,
        totals,
    }
}

/// A strategy's status, with its reason.
fn status(s: &StrategyFigures) -> ColumnStatus {
    let reason = || s.status_reason.clone().unwrap_or_default();
    match s.status {
        Applies::Refused => ColumnStatus::Refused(reason()),
        Applies::NotApplicable => ColumnStatus::NotApplicable(reason()),
        Applies::Ok => ColumnStatus::Ok,
    }
}

/// Names made safe (sanitized) and at most `max` cells wide, such that two different names
/// never look the same. A name that fits is kept whole; a longer one first loses its MCP
/// prefix (`mcp__github__projects_write`, `mcp--github--projects_write` and
/// `mcp_github_projects_write` → `github›projects_write`), then its middle
/// (`github›pro…write`). When two shortened names collide, the cut moves until they differ.
/// Identical names stay identical. One scheme per column: once one MCP name must lose its
/// prefix, every MCP name shows as `server›tool`, so a list never mixes the two forms.
pub fn display_names(names: &[&str], max: usize) -> Vec<String> {
    let safe_names: Vec<String> = names.iter().map(|n| safe(n)).collect();
    let collapse_all = safe_names
        .iter()
        .any(|n| width(n) > max && collapse_mcp(n).is_some());
    let candidates: Vec<Vec<String>> = safe_names
        .iter()
        .map(|n| shortenings(n, max, collapse_all))
        .collect();
    let mut choice = vec![0usize; names.len()];
    // Each round moves every name caught in a collision (except one shown whole) to its next
    // shortening; a name's candidates are finite, so this ends.
    loop {
        let mut by_text: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, c) in candidates.iter().enumerate() {
            by_text.entry(c[choice[i]].as_str()).or_default().push(i);
        }
        let mut moved = false;
        for group in by_text.values() {
            let distinct = group.iter().any(|&i| safe_names[i] != safe_names[group[0]]);
            if !distinct {
                continue;
            }
            for &i in group {
                let whole = candidates[i][choice[i]] == safe_names[i];
                if !whole && choice[i] + 1 < candidates[i].len() {
                    choice[i] += 1;
                    moved = true;
                }
            }
        }
        if !moved {
            break;
        }
    }
    candidates
        .into_iter()
        .zip(choice)
        .map(|(mut c, i)| c.swap_remove(i))
        .collect()
}

/// One name's ways to fit in `max` cells, preferred first: whole, MCP prefix collapsed, then
/// middle cuts of the collapsed and of the whole name with the cut moving outwards. A name
/// that fits is shown collapsed first when `collapse_fitting` (its whole form stays the fallback
/// for a collision).
fn shortenings(name: &str, max: usize, collapse_fitting: bool) -> Vec<String> {
    if width(name) <= max {
        return match collapse_mcp(name).filter(|_| collapse_fitting) {
            Some(collapsed) => vec![collapsed, name.to_owned()],
            None => vec![name.to_owned()],
        };
    }
    if max < 3 {
        return vec![crate::text::fit(name, max)];
    }
    let mut out: Vec<String> = Vec::new();
    let collapsed = collapse_mcp(name);
    let mut push = |text: String| {
        if !out.contains(&text) {
            out.push(text);
        }
    };
    if let Some(collapsed) = &collapsed
        && width(collapsed) <= max
    {
        push(collapsed.clone());
    }
    for source in collapsed.iter().map(String::as_str).chain([name]) {
        if width(source) <= max {
            continue;
        }
        let room = max - 1;
        // Tails tell tools of one server apart, so the preferred cut keeps more of the tail.
        let preferred = room / 2;
        for shift in 0..room {
            for head in [preferred.checked_sub(shift), preferred.checked_add(shift)]
                .into_iter()
                .flatten()
                .filter(|&h| h >= 1 && h < room)
            {
                push(middle_cut(source, head, room - head));
            }
        }
    }
    out
}

/// An MCP tool's name as `server›tool`, for the three forms hosts write (`mcp__server__tool`,
/// `mcp--server--tool`, `mcp_server_tool`), the server read as everywhere else in toolprism
/// ([`crate::tool::server_label`]). `None` for any other name.
pub fn collapse_mcp(name: &str) -> Option<String> {
    let server = crate::tool::server_label(name)?;
    let separator = ["__", "--"]
        .into_iter()
        .find(|s| name.starts_with(&format!("mcp{s}")))
        .unwrap_or("_");
    let tool = name.get("mcp".len() + 2 * separator.len() + server.len()..)?;
    (!tool.is_empty()).then(|| format!("{server}›{tool}"))
}

/// `head` cells of the start, `…`, `tail` cells of the end (cut between grapheme clusters,
/// never inside one).
fn middle_cut(text: &str, head: usize, tail: usize) -> String {
    use unicode_segmentation::UnicodeSegmentation;
    let start = crate::text::take_cells(text, head);
    let mut from = text.len();
    let mut used = 0;
    for (i, g) in text.grapheme_indices(true).rev() {
        let w = crate::text::width(g);
        if used + w > tail || i < start.len() {
            break;
        }
        used += w;
        from = i;
    }
    format!("{start}…{}", &text[from..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_fit_stay_whole() {
        assert_eq!(
            display_names(&["read_file", "bash"], 9),
            ["read_file", "bash"]
        );
    }

    #[test]
    fn mcp_prefix_collapses_before_the_middle_is_cut() {
        assert_eq!(
            display_names(&["mcp__github__projects_write"], 21),
            ["github›projects_write"]
        );
        assert_eq!(
            display_names(&["mcp__github__projects_write"], 12),
            ["githu…_write"]
        );
        assert_eq!(display_names(&["abcdefghij"], 5), ["ab…ij"]);
    }

    #[test]
    fn shortened_names_never_collide() {
        let names = [
            "mcp__github__projects_read_write",
            "mcp__github__projects_list_write",
        ];
        let shown = display_names(&names, 14);
        assert_eq!(shown, ["github…d_write", "github…t_write"]);
        for s in &shown {
            assert!(width(s) <= 14);
        }
        // Both first cuts read `prefi…uffix`: the cut moves until the names differ.
        assert_eq!(
            display_names(
                &["prefix_aaa_middle_suffix", "prefix_bbb_middle_suffix"],
                11
            ),
            ["prefix_a…ix", "prefix_b…ix"]
        );
        // Identical names stay identical (they are the same name).
        assert_eq!(
            display_names(&["abcdefgh", "abcdefgh"], 5),
            ["ab…gh", "ab…gh"]
        );
    }

    #[test]
    fn every_mcp_form_collapses_its_prefix() {
        assert_eq!(
            display_names(
                &[
                    "mcp__github__projects_write",
                    "mcp--linear--create_ticket",
                    "mcp_slack_post_message",
                ],
                21
            ),
            [
                "github›projects_write",
                "linear›create_ticket",
                "slack›post_message"
            ]
        );
        // zero's form names the server up to the first `_`: the rest is the tool.
        assert_eq!(
            display_names(&["mcp_my_server_do_it"], 16),
            ["my›server_do_it"]
        );
        // Not MCP, or no tool part: the middle is cut as for any name.
        assert_eq!(display_names(&["mcpx_aaaa_bbbb"], 9), ["mcpx…bbbb"]);
        assert_eq!(display_names(&["mcp_server_"], 8), ["mcp…ver_"]);
        assert_eq!(display_names(&["mcp--a--"], 7), ["mcp…a--"]);
    }

    #[test]
    fn two_mcp_forms_of_one_name_never_look_the_same() {
        let names = ["mcp__github__create_issue", "mcp_github_create_issue"];
        let shown = display_names(&names, 19);
        // Both collapse to `github›create_issue`: both are cut instead.
        assert_eq!(shown, ["mcp__gith…ate_issue", "mcp_githu…ate_issue"]);
        let names = ["mcp--a--b", "mcp__a__b", "mcp_a_b"];
        // All three read `a›b` collapsed: each is cut, differently.
        assert_eq!(display_names(&names, 5), ["mc…-b", "m…__b", "m…a_b"]);
    }

    #[test]
    fn one_collapsed_name_collapses_every_mcp_name_of_the_list() {
        let names = [
            "mcp__github__watch_fork",
            "mcp__github__create_pull_request",
            "read_file",
        ];
        assert_eq!(
            display_names(&names, 26),
            [
                "github›watch_fork",
                "github›create_pull_request",
                "read_file"
            ]
        );
        // Nothing needs collapsing: every name stays whole.
        assert_eq!(display_names(&names[..1], 26), ["mcp__github__watch_fork"]);
        // A fitting name whose collapsed form is another name's keeps its whole form.
        assert_eq!(
            display_names(
                &["mcp__a__b", "a›b", "mcp__github__create_pull_request"],
                26
            ),
            ["mcp__a__b", "a›b", "github›create_pull_request"]
        );
    }

    #[test]
    fn a_collapsed_name_that_looks_like_another_is_cut_instead() {
        let names = ["mcp__a__b", "a›b"];
        assert_eq!(display_names(&names, 4), ["m…_b", "a›b"]);
    }

    #[test]
    fn control_characters_are_made_visible_before_measuring() {
        let shown = display_names(&["a\u{1b}[2Jb"], 40);
        assert!(!shown[0].contains('\u{1b}'), "{shown:?}");
    }

    #[test]
    fn middle_cut_respects_wide_characters() {
        assert_eq!(middle_cut("日本語のテキスト", 3, 4), "日…スト");
    }
}
