//! `report --matrix`: the tools × strategies matrix ([`toolprism::matrix`]) as a terminal table,
//! a GitHub Markdown table or CSV.
//!
//! On a terminal the table fits the width: names shrink first (visibly, with `…` or a collapsed
//! MCP prefix), then strategy columns are dropped in [`drop_order`] and named on a line under
//! the table. Into a pipe it prints whole names and every column. Numbers are never cut.
//!
//! CSV follows RFC 4180 (CRLF line ends, fields with `,` `"` or line breaks quoted, quotes
//! doubled). Tool names are untrusted: control characters become visible tokens, and a name
//! starting with `=`, `+`, `-` or `@` gets a leading `'`, so a spreadsheet shows it as text
//! instead of running it as a formula. Figures are plain integers (no separators), so they
//! stay numbers in a spreadsheet.

use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use toolprism::matrix::{
    Column, ColumnStatus, Filter, Mark, Matrix, Row, Sort, SortColumn, TotalRow, display_names,
    legend,
};
use toolprism::report::Report;
use toolprism::sanitize::visible;
use toolprism::strategy::Strategy;
use toolprism::text::{LongWords, pad, pad_left, thousands, width};

/// The `report --matrix` flags.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Tools as rows, strategies as columns, tokens sent in each cell, totals under them.
    #[arg(long, conflicts_with_all = ["json", "per_tool"])]
    pub matrix: bool,
    /// Sort the matrix rows by `original` (default, costliest first), a strategy id
    /// (costliest first) or `name` (A to Z).
    #[arg(long, value_name = "COLUMN", requires = "matrix", value_parser = parse_sort)]
    pub sort: Option<SortColumn>,
    /// The matrix as a terminal table, a GitHub Markdown table, or CSV (RFC 4180; names
    /// starting with = + - @ get a leading ' so spreadsheets never run them). `markdown` and
    /// `csv` imply `--matrix`.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["json", "per_tool"])]
    pub format: Option<Format>,
    /// Keep only the tools this strategy changes, removes, defers or adds (a strategy id, as
    /// `-s` lists them).
    #[arg(
        long,
        value_name = "ID",
        requires = "matrix",
        value_parser = super::args::StrategyIds,
        hide_possible_values = true
    )]
    pub changed_by: Option<Strategy>,
    /// Fit the table in this many columns (default on a terminal: `COLUMNS` when set, else the
    /// terminal's width; into a pipe: no limit, whole names and every column).
    #[arg(long, value_name = "N", requires = "matrix")]
    pub width: Option<usize>,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns for a terminal or a pager.
    Table,
    /// A GitHub Markdown table, ready for a pull-request comment.
    Markdown,
    /// Comma-separated values for a spreadsheet.
    Csv,
}

fn parse_sort(text: &str) -> Result<SortColumn, String> {
    text.parse()
}

/// A strategy column's place in the order a narrow terminal drops them ([`drop_order`]): first
/// those that tell least apart from the others (`append` sends a single request as it is;
/// `disabled` sends nothing; `direct` only reorders; `full`, `defer-catalog` and `adaptive`
/// usually track `progressive`, `defer` and `direct`; `codex` applies to Responses captures only), last the ones that change the most.
/// Every strategy declares one: a new one does not compile until it says where it goes.
const fn drop_rank(strategy: Strategy) -> u8 {
    match strategy {
        Strategy::Append => 0,
        Strategy::Disabled => 1,
        Strategy::Direct => 2,
        Strategy::Full => 3,
        Strategy::DeferCatalog => 4,
        Strategy::Codex => 5,
        Strategy::Adaptive => 6,
        Strategy::Shorten => 7,
        Strategy::Code => 8,
        Strategy::Search => 9,
        Strategy::Progressive => 10,
        Strategy::Defer => 11,
        Strategy::Minimal => 12,
        Strategy::Original => 13,
    }
}

/// Every strategy, in the order a narrow terminal drops their columns ([`drop_rank`]).
pub fn drop_order() -> [Strategy; Strategy::ALL.len()] {
    let mut order = Strategy::ALL;
    order.sort_by_key(|&s| drop_rank(s));
    order
}

/// Names never shrink below this many cells while a strategy column can go instead.
const NAME_MIN: usize = 24;

/// The strategies to measure for a matrix: `original` first when it is not among them (it
/// names every tool and costs nothing to project; it is the matrix's `original` column).
pub fn with_original(mut strategies: Vec<Strategy>) -> Vec<Strategy> {
    if !strategies.contains(&Strategy::Original) {
        strategies.insert(0, Strategy::Original);
    }
    strategies
}

/// The printed matrix for `report --matrix`; `color` paints the terminal table's marks
/// (Markdown and CSV stay plain).
pub fn render(report: &Report, args: &MatrixArgs, color: bool) -> String {
    let width = args.width.or_else(super::terminal_width);
    let mut matrix = Matrix::new(report);
    if let Some(column) = args.sort {
        matrix.set_sort(Sort::natural(column));
    }
    matrix.set_filter(args.changed_by.map(Filter::ChangedBy));
    match args.format.unwrap_or(Format::Table) {
        Format::Table => table(report, &matrix, width, color),
        Format::Markdown => markdown(report, &matrix),
        Format::Csv => csv(&matrix),
    }
}

/// The header of the sorted column gets ▼ or ▲.
fn arrow(sort: Sort, column: SortColumn) -> &'static str {
    match (sort.column == column, sort.descending) {
        (false, _) => "",
        (true, true) => " ▼",
        (true, false) => " ▲",
    }
}

/// The first line: the capture, its size, the encoding.
fn title(report: &Report) -> String {
    title_naming(report, &visible(&report.input_name()))
}

/// [`title`] with the capture's name already made safe for where it goes.
fn title_naming(report: &Report, name: &str) -> String {
    let capture = &report.capture;
    format!(
        "{name}: {}, {}, {} tokens ({})",
        capture.shape,
        super::manners::count(capture.tools, "tool", "tools"),
        thousands(capture.tools_tokens),
        report.encoding
    )
}

/// Lines under the table for columns that need a word: refused, not applicable, rejected by a
/// provider.
fn column_notes(matrix: &Matrix) -> Vec<String> {
    let mut lines = Vec::new();
    for column in &matrix.columns {
        let id = column.strategy.id();
        match &column.status {
            ColumnStatus::Ok => {}
            ColumnStatus::NotApplicable(why) => {
                lines.push(format!("{id}: not applicable: {}", visible(why)));
            }
            ColumnStatus::Refused(why) => lines.push(format!("{id}: refused: {}", visible(why))),
        }
        if !column.request_valid && !matches!(column.status, ColumnStatus::Refused(_)) {
            lines.push(format!(
                "{}: a provider would reject this request (see `report -s {id}`)",
                column.header()
            ));
        }
    }
    lines
}

/// What `--changed-by` left out: the rows are a subset, the totals are not.
fn filter_line(matrix: &Matrix) -> Option<String> {
    let Filter::ChangedBy(strategy) = matrix.filter()?;
    let total = matrix.all_rows().len();
    Some(format!(
        "rows: the {} of {} {} that {strategy} changes, removes, defers or adds; totals cover every tool",
        thousands(matrix.rows().len()),
        thousands(total),
        if total == 1 { "tool" } else { "tools" },
    ))
}

/// One strategy column's cells as text, widest first known.
struct TableColumn {
    header: String,
    cells: Vec<String>,
    totals: Vec<String>,
    /// Cells of the figure before the mark.
    figure: usize,
    /// The colour of the header, of each cell and of each total ([`super::table::paint`]).
    header_paint: Option<&'static str>,
    paints: Vec<Option<&'static str>>,
    total_paints: Vec<Option<&'static str>>,
}

/// A cell's colour: against the capture's tokens for the tool, a change that sends fewer is a
/// saving and one that sends more a cost; an added tool is all cost; what sends nothing, or
/// the original bytes, is quiet; a refused cell says so.
fn cell_paint(mark: Mark, tokens: Option<usize>, original: Option<usize>) -> Option<&'static str> {
    use super::table::paint;
    match mark {
        Mark::Refused => Some(paint::REFUSED),
        Mark::Kept | Mark::Removed | Mark::Deferred => Some(paint::QUIET),
        Mark::Added => Some(paint::COST),
        Mark::Changed => match (tokens, original) {
            (Some(now), Some(before)) => paint::by_saving(before as f64 - now as f64),
            _ => None,
        },
        Mark::Absent => None,
    }
}

/// A total's colour: the saving rows by their sign (quiet for `n/a`), a rejected request's
/// saving as rejected, a refused column's word as refused; other totals plain.
fn total_paint(column: &Column, row: TotalRow) -> Option<&'static str> {
    use super::table::paint;
    let Some(totals) = &column.totals else {
        return Some(paint::REFUSED);
    };
    if !matches!(row, TotalRow::Saved | TotalRow::SavedPct) {
        return None;
    }
    match column.status {
        ColumnStatus::NotApplicable(_) => Some(paint::QUIET),
        _ if !column.request_valid => Some(paint::REJECTED),
        _ => paint::by_saving(totals.saved_tokens as f64),
    }
}

/// `text` with its visible part (not its padding) in `code`; plain without one.
fn painted(text: &str, code: Option<&str>) -> String {
    let Some(code) = code else {
        return text.to_owned();
    };
    let core = text.trim();
    if core.is_empty() {
        return text.to_owned();
    }
    let lead = text.len() - text.trim_start().len();
    let trail = text.len() - text.trim_end().len();
    format!(
        "{}{code}{core}\x1b[0m{}",
        &text[..lead],
        &text[text.len() - trail..]
    )
}

impl TableColumn {
    /// Width: the header, or a figure plus a space and a one-cell mark.
    fn width(&self) -> usize {
        width(&self.header).max(self.figure + 2)
    }
}

fn strategy_column(matrix: &Matrix, index: usize, column: &Column) -> TableColumn {
    let sort = matrix.sort();
    let figures: Vec<(String, &'static str)> = matrix
        .rows()
        .enumerate()
        .map(|(at, row)| {
            let cell = row.cells[index];
            match (cell.mark, cell.tokens) {
                (Mark::Refused, _) => (cell.text_in_row(at), " "),
                (mark, Some(tokens)) => (thousands(tokens), mark.glyph()),
                (mark, None) => (String::new(), mark.glyph()),
            }
        })
        .collect();
    let totals: Vec<String> = matrix
        .total_rows()
        .iter()
        .map(|&row| matrix.total_text(Some(index), row))
        .collect();
    let figure = figures
        .iter()
        .map(|(f, _)| width(f))
        .chain(totals.iter().map(|t| width(t)))
        .max()
        .unwrap_or(0);
    let header = format!(
        "{}{}",
        column.header(),
        arrow(sort, SortColumn::Strategy(column.strategy))
    );
    let figure = figure.max(width(&header).saturating_sub(2));
    let paints = matrix
        .rows()
        .map(|row| {
            let cell = row.cells[index];
            cell_paint(cell.mark, cell.tokens, row.original_tokens)
        })
        .collect();
    let total_paints = matrix
        .total_rows()
        .iter()
        .map(|&row| total_paint(column, row))
        .collect();
    let header_paint = match column.status {
        ColumnStatus::Refused(_) => Some(super::table::paint::REFUSED),
        ColumnStatus::NotApplicable(_) => Some(super::table::paint::QUIET),
        ColumnStatus::Ok if !column.request_valid => Some(super::table::paint::REJECTED),
        ColumnStatus::Ok => None,
    };
    TableColumn {
        header_paint,
        paints,
        total_paints,
        cells: figures
            .into_iter()
            .map(|(f, mark)| {
                format!(
                    "{} {}",
                    pad_left(&f, figure),
                    if mark.is_empty() { " " } else { mark }
                )
            })
            .collect(),
        totals: totals
            .iter()
            .map(|t| format!("{}  ", pad_left(t, figure)))
            .collect(),
        header,
        figure,
    }
}

fn original_column(matrix: &Matrix) -> TableColumn {
    let sort = matrix.sort();
    let cells: Vec<String> = matrix
        .rows()
        .map(|r| r.original_tokens.map(thousands).unwrap_or_default())
        .collect();
    let totals: Vec<String> = matrix
        .total_rows()
        .iter()
        .map(|&row| matrix.total_text(None, row))
        .collect();
    let rejected = if matrix.original_rejected { "!" } else { "" };
    let header = format!("original{rejected}{}", arrow(sort, SortColumn::Original));
    let figure = cells
        .iter()
        .chain(&totals)
        .map(|t| width(t))
        .max()
        .unwrap_or(0)
        .max(width(&header).saturating_sub(2));
    TableColumn {
        cells: cells
            .iter()
            .map(|c| format!("{}  ", pad_left(c, figure)))
            .collect(),
        totals: totals
            .iter()
            .map(|t| format!("{}  ", pad_left(t, figure)))
            .collect(),
        header,
        figure,
        header_paint: None,
        paints: Vec::new(),
        total_paints: Vec::new(),
    }
}

/// The terminal table; `limit` is the width to fit (`None`: whole names, every column);
/// `color` paints the marks, the savings and the costs.
fn table(report: &Report, matrix: &Matrix, limit: Option<usize>, color: bool) -> String {
    let rows: Vec<&Row> = matrix.rows().collect();
    let raw_names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    let name_header = format!("tool{}", arrow(matrix.sort(), SortColumn::Name));
    let total_rows = matrix.total_rows();
    let labels = total_rows.iter().map(|r| width(r.label()));
    let label_width = labels.max().unwrap_or(0).max(width(&name_header));
    let natural_name = raw_names
        .iter()
        .map(|n| width(&visible(n)))
        .max()
        .unwrap_or(0)
        .max(label_width);

    let original = original_column(matrix);
    let mut columns: Vec<(Strategy, TableColumn)> = matrix
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| (c.strategy, strategy_column(matrix, i, c)))
        .collect();
    let (name_width, dropped) = match limit {
        Some(limit) => fit(
            matrix,
            &original,
            &mut columns,
            natural_name,
            label_width,
            limit,
        ),
        None => (natural_name, Vec::new()),
    };
    let names = if name_width < natural_name {
        display_names(&raw_names, name_width)
    } else {
        raw_names.iter().map(|n| visible(n).into_owned()).collect()
    };

    let mut out = match limit {
        Some(limit) => wrap(&title(report), limit),
        None => format!("{}\n", title(report)),
    };
    // The rows are the declared list; the tools in effect when the messages change them.
    if let Some(effect) = &report.capture.in_effect {
        out.push_str(&super::table::in_effect_section(effect, limit));
    }
    out.push('\n');
    let line = |name: &str, first: &str, rest: &mut dyn Iterator<Item = String>| {
        let mut text = pad(name, name_width);
        text.push_str("  ");
        text.push_str(first);
        for cell in rest {
            text.push_str("  ");
            text.push_str(&cell);
        }
        let mut text = text.trim_end().to_owned();
        text.push('\n');
        text
    };
    let paint = |text: String, code: Option<&Option<&'static str>>| match color {
        true => painted(&text, code.copied().flatten()),
        false => text,
    };
    out.push_str(&line(
        &name_header,
        &pad_left(&original.header, original.width()),
        &mut columns
            .iter()
            .map(|(_, c)| paint(pad_left(&c.header, c.width()), Some(&c.header_paint))),
    ));
    for (r, name) in names.iter().enumerate() {
        out.push_str(&line(
            name,
            &pad_left(&original.cells[r], original.width()),
            &mut columns
                .iter()
                .map(|(_, c)| paint(pad_left(&c.cells[r], c.width()), c.paints.get(r))),
        ));
    }
    if rows.is_empty() {
        out.push_str("(no tools)\n");
    }
    let rule_width = name_width
        + 2
        + original.width()
        + columns.iter().map(|(_, c)| 2 + c.width()).sum::<usize>();
    let _ = writeln!(out, "{}", "─".repeat(rule_width));
    for (t, row) in total_rows.iter().enumerate() {
        out.push_str(&line(
            row.label(),
            &pad_left(&original.totals[t], original.width()),
            &mut columns
                .iter()
                .map(|(_, c)| paint(pad_left(&c.totals[t], c.width()), c.total_paints.get(t))),
        ));
    }
    out.push('\n');
    let trailer = trailer(matrix, &dropped);
    for line in trailer {
        match limit {
            Some(limit) => out.push_str(&wrap(&line, limit)),
            None => {
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    out
}

/// Drop columns, in [`drop_order`] (refused ones first), until the table fits `limit`
/// with names at least [`NAME_MIN`] wide; the column the rows are sorted or filtered by
/// stays. Returns the names' width and the columns dropped.
fn fit(
    matrix: &Matrix,
    original: &TableColumn,
    columns: &mut Vec<(Strategy, TableColumn)>,
    natural_name: usize,
    label_width: usize,
    limit: usize,
) -> (usize, Vec<Strategy>) {
    let used = |columns: &[(Strategy, TableColumn)]| {
        2 + original.width() + columns.iter().map(|(_, c)| 2 + c.width()).sum::<usize>()
    };
    let mut keep = Vec::new();
    if let SortColumn::Strategy(s) = matrix.sort().column {
        keep.push(s);
    }
    if let Some(Filter::ChangedBy(s)) = matrix.filter() {
        keep.push(s);
    }
    // Refused columns have nothing to show but the word: they go first.
    let refused = matrix
        .columns
        .iter()
        .filter(|c| matches!(c.status, ColumnStatus::Refused(_)))
        .map(|c| c.strategy);
    let order: Vec<Strategy> = refused
        .chain(drop_order())
        .fold(Vec::new(), |mut order, s| {
            if !order.contains(&s) {
                order.push(s);
            }
            order
        });
    let mut dropped = Vec::new();
    for &victim in &order {
        if natural_name.min(NAME_MIN) + used(columns) <= limit {
            break;
        }
        if keep.contains(&victim) {
            continue;
        }
        if let Some(at) = columns.iter().position(|(s, _)| *s == victim) {
            columns.remove(at);
            dropped.push(victim);
        }
    }
    let name_width = limit
        .saturating_sub(used(columns))
        .clamp(label_width, natural_name);
    (name_width, dropped)
}

/// The lines under the table: the legend, the filter, the columns dropped for width, and
/// each column's notes.
fn trailer(matrix: &Matrix, dropped: &[Strategy]) -> Vec<String> {
    let mut trailer = vec![legend()];
    trailer.extend(filter_line(matrix));
    if !dropped.is_empty() {
        let ids: Vec<&str> = dropped.iter().map(|s| s.id()).collect();
        trailer.push(format!(
            "not shown for width: {} (widen the terminal, or pipe the output for every column)",
            ids.join(", ")
        ));
    }
    trailer.extend(column_notes(matrix));
    trailer
}

/// `text` wrapped at spaces to `limit` cells, continuation lines indented by two; a word
/// longer than a line stays whole.
fn wrap(text: &str, limit: usize) -> String {
    let lines =
        toolprism::text::wrap_hanging(text, limit, limit.saturating_sub(2), LongWords::Keep);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str("  ");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A capture string as Markdown inline code inside a table cell: sanitized, `|` escaped,
/// fenced with more backticks than it contains.
fn markdown_code(text: &str) -> String {
    let safe = visible(text).replace('|', "\\|");
    let mut run = 0;
    let mut longest = 0;
    for c in safe.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if safe.starts_with('`') || safe.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{safe}{pad}{fence}")
}

/// A cell's text for Markdown: GitHub reads `~` as strikethrough.
fn markdown_cell(text: &str) -> String {
    text.replace('~', "\\~")
}

/// Text outside the table (notes that quote capture text): sanitized, and every character
/// that can open Markdown or HTML markup inside a line escaped with a backslash (a line starts
/// with a strategy id, so block markers like `#` or `-` never lead).
fn markdown_text(text: &str) -> String {
    let mut out = String::new();
    for c in visible(text).chars() {
        if "\\`*_[]<>|~&".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn markdown(report: &Report, matrix: &Matrix) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", markdown_code_title(report));
    out.push('\n');
    let sort = matrix.sort();
    let mut header = vec![
        format!("tool{}", arrow(sort, SortColumn::Name)),
        format!("original{}", arrow(sort, SortColumn::Original)),
    ];
    header.extend(matrix.columns.iter().map(|c| {
        format!(
            "{}{}",
            c.header(),
            arrow(sort, SortColumn::Strategy(c.strategy))
        )
    }));
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let mut align = vec![":---".to_owned()];
    align.extend((1..header.len()).map(|_| "---:".to_owned()));
    let _ = writeln!(out, "|{}|", align.join("|"));
    for (at, row) in matrix.rows().enumerate() {
        let mut cells = vec![
            markdown_code(&row.name),
            row.original_tokens.map(thousands).unwrap_or_default(),
        ];
        cells.extend(row.cells.iter().map(|c| markdown_cell(&c.text_in_row(at))));
        let _ = writeln!(out, "| {} |", cells.join(" | ").trim_end());
    }
    for total in matrix.total_rows() {
        let mut cells = vec![
            format!("**{}**", total.label()),
            matrix.total_text(None, total),
        ];
        cells.extend((0..matrix.columns.len()).map(|c| matrix.total_text(Some(c), total)));
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
    let _ = writeln!(out, "{}", markdown_cell(&legend()));
    if let Some(line) = filter_line(matrix) {
        let _ = writeln!(out, "\n{line}");
    }
    for note in column_notes(matrix) {
        let _ = writeln!(out, "\n{}", markdown_text(&note));
    }
    out
}

/// The title with the capture's name as inline code (it is untrusted text).
fn markdown_code_title(report: &Report) -> String {
    title_naming(report, &markdown_code(&report.input_name()))
}

/// One RFC 4180 field: quoted when it holds a separator, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// Capture text for a CSV cell: control characters made visible, and a leading `'` before a
/// formula prefix.
fn csv_text(text: &str) -> String {
    let safe = visible(text);
    if safe.starts_with(['=', '+', '-', '@']) {
        format!("'{safe}")
    } else {
        safe.into_owned()
    }
}

fn csv(matrix: &Matrix) -> String {
    let mut out = String::new();
    let mut record = |fields: Vec<String>| {
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    };
    let mut header = vec!["row".to_owned(), "tool".to_owned(), "original".to_owned()];
    for c in &matrix.columns {
        header.push(c.strategy.id().to_owned());
        header.push(format!("{} mark", c.strategy.id()));
    }
    record(header);
    for row in matrix.rows() {
        let mut fields = vec![
            "tool".to_owned(),
            csv_text(&row.name),
            row.original_tokens
                .map(|t| t.to_string())
                .unwrap_or_default(),
        ];
        for cell in &row.cells {
            fields.push(cell.tokens.map(|t| t.to_string()).unwrap_or_default());
            fields.push(cell.mark.word().to_owned());
        }
        record(fields);
    }
    for total in matrix.total_rows() {
        let mut fields = vec![
            "total".to_owned(),
            match total {
                TotalRow::CachePrefix => "cache prefix kept (bytes)".to_owned(),
                other => other.label().to_owned(),
            },
            matrix.original.raw(total),
        ];
        for c in &matrix.columns {
            let no_saving = matches!(c.status, ColumnStatus::NotApplicable(_))
                && matches!(total, TotalRow::Saved | TotalRow::SavedPct);
            match &c.totals {
                // Nothing to act on: no saving of its own, as the table's `n/a`.
                Some(_) if no_saving => {
                    fields.push(String::new());
                    fields.push("n/a".to_owned());
                }
                Some(totals) => {
                    fields.push(totals.raw(total));
                    fields.push(String::new());
                }
                None => {
                    fields.push(String::new());
                    fields.push(Mark::Refused.word().to_owned());
                }
            }
        }
        record(fields);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drop_order_ranks_each_strategy_apart() {
        let order = drop_order();
        let ranks: Vec<u8> = order.iter().map(|&s| drop_rank(s)).collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{order:?}");
        // `append` sends a single request as it is: its column tells least apart.
        assert_eq!(order[..2], [Strategy::Append, Strategy::Disabled]);
        assert_eq!(order[order.len() - 1], Strategy::Original);
    }

    #[test]
    fn csv_quotes_and_neutralises_formulas() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_text("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(csv_text("@sum"), "'@sum");
        assert_eq!(csv_text("-1+1"), "'-1+1");
        assert_eq!(csv_text("read_file"), "read_file");
        assert!(!csv_text("a\rb\u{1b}").contains(['\r', '\u{1b}']));
    }

    #[test]
    fn trailing_lines_wrap_at_spaces() {
        assert_eq!(wrap("aaa bbb ccc ddd", 8), "aaa bbb\n  ccc\n  ddd\n");
        assert_eq!(wrap("short", 80), "short\n");
        assert_eq!(wrap("unbreakable_word x", 5), "unbreakable_word\n  x\n");
    }

    #[test]
    fn markdown_code_escapes_pipes_and_backticks() {
        assert_eq!(markdown_code("read_file"), "`read_file`");
        assert_eq!(markdown_code("a|b"), "`a\\|b`");
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_cell("50 ~"), "50 \\~");
        assert_eq!(markdown_text("<b>`x`</b>"), "\\<b\\>\\`x\\`\\</b\\>");
    }
}
