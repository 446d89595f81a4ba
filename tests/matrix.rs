//! The tools × strategies matrix (`toolprism::matrix`) and `report --matrix`.

use toolprism::matrix::{
    CachePrefix, Cell, ColumnStatus, Filter, Mark, Matrix, Origin, Sort, SortColumn, TotalRow,
};
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::report::{Report, report};
use toolprism::{Capture, Settings, Strategy};

use crate::support::command::{bin, fails_with, root, sample, stdout_of};
use crate::support::sgr::strip_sgr;
use crate::support::tools;

fn report_of(name: &str, strategies: &[Strategy], set: &[&str]) -> Report {
    let path = sample(name);
    let path = path.to_str().unwrap();
    let capture = Capture::from_path(path).unwrap();
    // The figures below were taken under zero's seed release (2ea36cf).
    let mut settings = Settings::default();
    settings.apply("zero.release=2ea36cf").unwrap();
    for assignment in set {
        settings.apply(assignment).unwrap();
    }
    let counter = TokenCounter::new(Encoding::O200kBase);
    report(&capture, path, strategies, &settings, &counter)
}

fn names(matrix: &Matrix) -> Vec<&str> {
    matrix.rows().map(|r| r.name.as_str()).collect()
}

/// A cell's tokens and mark.
fn cell(matrix: &Matrix, tool: &str, strategy: Strategy) -> (Option<usize>, Mark) {
    let c = matrix.column_index(strategy).unwrap();
    let row = matrix.all_rows().iter().find(|r| r.name == tool).unwrap();
    (row.cells[c].tokens, row.cells[c].mark)
}

#[test]
fn rows_are_sorted_by_original_tokens_costliest_first() {
    let matrix = Matrix::new(&report_of("small.json", &Strategy::ALL, &[]));
    assert_eq!(
        names(&matrix),
        [
            "mcp__github__create_issue",         // 317
            "mcp__github__search_pull_requests", // 265
            "mcp__github__get_file_contents",    // 143
            "edit_file",                         // 134
            "read_file",                         // 130
            "search_files",                      // 106
            "bash",                              // 104
            "write_file",                        // 95
            "tool_search_tool_regex",            // added by search
        ]
    );
    let tokens: Vec<Option<usize>> = matrix.rows().map(|r| r.original_tokens).collect();
    assert_eq!(
        tokens,
        [317, 265, 143, 134, 130, 106, 104, 95]
            .map(Some)
            .into_iter()
            .chain([None])
            .collect::<Vec<_>>()
    );
    // `original` is the capture's own column, not a strategy column.
    let ids: Vec<&str> = matrix.columns.iter().map(|c| c.strategy.id()).collect();
    assert_eq!(
        ids,
        [
            "full",
            "progressive",
            "minimal",
            "direct",
            "adaptive",
            "code",
            "disabled",
            "shorten",
            "defer",
            "defer-catalog",
            "search",
            "codex",
            "append"
        ]
    );
}

#[test]
fn any_column_sorts_with_ties_in_capture_order() {
    let mut matrix = Matrix::new(&report_of("small.json", &[Strategy::Minimal], &[]));
    matrix.set_sort(Sort::natural(SortColumn::Strategy(Strategy::Minimal)));
    // minimal sends 105, 103, 82, 66, 56, 50, 47 (write_file, tool 2), 47 (bash, tool 4).
    assert_eq!(
        names(&matrix),
        [
            "mcp__github__create_issue",
            "mcp__github__search_pull_requests",
            "mcp__github__get_file_contents",
            "edit_file",
            "search_files",
            "read_file",
            "write_file",
            "bash",
        ]
    );
    matrix.set_sort(Sort {
        column: SortColumn::Strategy(Strategy::Minimal),
        descending: false,
    });
    assert_eq!(
        names(&matrix)[..3],
        ["write_file", "bash", "read_file"],
        "ascending keeps capture order among ties"
    );
    matrix.set_sort(Sort::natural(SortColumn::Name));
    assert_eq!(
        names(&matrix),
        [
            "bash",
            "edit_file",
            "mcp__github__create_issue",
            "mcp__github__get_file_contents",
            "mcp__github__search_pull_requests",
            "read_file",
            "search_files",
            "write_file",
        ]
    );
    assert_eq!(
        "minimal".parse(),
        Ok(SortColumn::Strategy(Strategy::Minimal))
    );
    assert_eq!("original".parse(), Ok(SortColumn::Original));
    let error = "nope".parse::<SortColumn>().unwrap_err();
    assert!(error.starts_with("unknown sort column `nope`"), "{error}");
}

#[test]
fn cells_mark_what_each_strategy_does() {
    let matrix = Matrix::new(&report_of(
        "small.json",
        &[Strategy::Minimal, Strategy::Direct, Strategy::Defer],
        &["defer.threshold=1"],
    ));
    let sent = |tokens, mark| (Some(tokens), mark);
    let none = |mark| (None, mark);
    assert_eq!(
        cell(&matrix, "read_file", Strategy::Minimal),
        sent(50, Mark::Changed)
    );
    assert_eq!(
        cell(&matrix, "read_file", Strategy::Direct),
        sent(130, Mark::Kept)
    );
    assert_eq!(
        cell(&matrix, "mcp__github__create_issue", Strategy::Defer),
        none(Mark::Deferred)
    );
    // The added loader is one row: added by defer, absent from the others.
    let added: Vec<_> = matrix
        .all_rows()
        .iter()
        .filter(|r| matches!(r.origin, Origin::Added(_)))
        .collect();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].name, "tool_search");
    assert_eq!(added[0].original_tokens, None);
    let cells: Vec<(Option<usize>, Mark)> =
        added[0].cells.iter().map(|c| (c.tokens, c.mark)).collect();
    assert_eq!(
        cells,
        [
            none(Mark::Absent),
            none(Mark::Absent),
            sent(114, Mark::Added)
        ]
    );
    // Each cell names the tool's entry in its strategy's per-tool figures.
    assert_eq!(added[0].cells[2].outcome, Some(8));
    assert_eq!(added[0].cells[0].outcome, None);
    let read_file = matrix.all_rows().iter().find(|r| r.name == "read_file");
    assert_eq!(read_file.unwrap().cells[2].outcome, Some(0));
    // Added tools have no original cost: they sort last, costliest first or not.
    assert_eq!(matrix.rows().last().unwrap().name, "tool_search");
    let text = |tokens, mark| {
        Cell {
            tokens,
            mark,
            outcome: None,
        }
        .text()
    };
    assert_eq!(text(Some(1197), Mark::Changed), "1,197 ~");
    assert_eq!(text(None, Mark::Deferred), "»");
    assert_eq!(text(None, Mark::Absent), "");
    assert_eq!(text(None, Mark::Refused), "refused");
}

#[test]
fn totals_are_the_reports_figures() {
    let report = report_of("small.json", &Strategy::ALL, &["defer.threshold=1"]);
    let matrix = Matrix::new(&report);
    assert_eq!(matrix.original.tools_tokens, report.capture.tools_tokens);
    assert_eq!(matrix.original.tools_sent, 8);
    assert_eq!(matrix.original.cache_prefix, CachePrefix::Whole);
    for (column, figures) in matrix.columns.iter().zip(&report.strategies[1..]) {
        assert_eq!(column.strategy.id(), figures.id);
        // A refused strategy has no figures (`append` on a model that takes no tool changes).
        let Some(totals) = column.totals else {
            assert_eq!(figures.status, toolprism::projection::Applies::Refused);
            assert_eq!(figures.tools_tokens, None);
            continue;
        };
        assert_eq!(Some(totals.tools_tokens), figures.tools_tokens);
        assert_eq!(Some(totals.added_tokens), figures.added_tokens);
        assert_eq!(Some(totals.total_tokens), figures.total_tokens);
        assert_eq!(
            totals.total_tokens,
            totals.tools_tokens + totals.added_tokens
        );
        // Not applicable: no saving (the column says `n/a`).
        assert_eq!(totals.saved_tokens, figures.saved_tokens.unwrap_or(0));
        assert_eq!(totals.saved_pct, figures.saved_pct.unwrap_or(0.0));
        assert_eq!(Some(totals.tools_sent), figures.tools);
        // Every sent tool has a figure in its column, and only those.
        let c = matrix.column_index(column.strategy).unwrap();
        let sent = matrix
            .all_rows()
            .iter()
            .filter(|r| r.cells[c].tokens.is_some())
            .count();
        assert_eq!(Some(sent), figures.tools, "{}", figures.id);
    }
    let defer = matrix.column_index(Strategy::Defer).unwrap();
    let minimal = matrix.column_index(Strategy::Minimal).unwrap();
    let texts: Vec<String> = matrix
        .total_rows()
        .iter()
        .map(|&row| matrix.total_text(Some(defer), row))
        .collect();
    // The in-context row (685) shows because `search` defers provider-side.
    assert_eq!(
        texts,
        ["685", "685", "335", "1,020", "276", "21.30%", "6", "10 B"]
    );
    assert_eq!(
        matrix.total_text(Some(minimal), TotalRow::SavedPct),
        "56.94%"
    );
    assert_eq!(matrix.total_text(None, TotalRow::CachePrefix), "whole");
    assert_eq!(matrix.total_text(None, TotalRow::TotalSent), "1,296");
}

#[test]
fn a_refused_column_has_no_figures() {
    let report = report_of(
        "small.json",
        &[Strategy::Direct, Strategy::Minimal],
        &["a3s.max_tools=3"],
    );
    let matrix = Matrix::new(&report);
    // Refused columns go last.
    let ids: Vec<&str> = matrix.columns.iter().map(|c| c.strategy.id()).collect();
    assert_eq!(ids, ["minimal", "direct"]);
    let direct = &matrix.columns[1];
    assert_eq!(
        direct.status,
        ColumnStatus::Refused(
            "a3s code refuses this tool list: 8 tools exceed its limit of 3 (a3s.max_tools)"
                .to_owned()
        )
    );
    assert_eq!(direct.totals, None);
    assert!(
        matrix
            .rows()
            .all(|r| r.cells[1].mark == Mark::Refused && r.cells[1].tokens.is_none())
    );
    assert_eq!(matrix.total_text(Some(1), TotalRow::Saved), "refused");
    assert_eq!(matrix.columns[0].status, ColumnStatus::Ok);
    // Sorting by it changes nothing: every cell ties, capture order stays.
    let mut sorted = matrix.clone();
    sorted.set_sort(Sort::natural(SortColumn::Strategy(Strategy::Direct)));
    assert_eq!(names(&sorted)[..2], ["read_file", "write_file"]);
}

#[test]
fn the_filter_keeps_the_tools_a_column_changes() {
    let mut matrix = Matrix::new(&report_of(
        "small.json",
        &[Strategy::Direct, Strategy::Defer, Strategy::Code],
        &["defer.threshold=1", "a3s.max_tools=3"],
    ));
    matrix.set_filter(Some(Filter::ChangedBy(Strategy::Defer)));
    assert_eq!(
        names(&matrix),
        [
            "mcp__github__create_issue",
            "mcp__github__search_pull_requests",
            "mcp__github__get_file_contents",
            "tool_search",
        ]
    );
    // The filter survives a new sort.
    matrix.set_sort(Sort::natural(SortColumn::Name));
    assert_eq!(names(&matrix)[0], "mcp__github__create_issue");
    assert_eq!(names(&matrix)[3], "tool_search");
    // A refused column changes nothing it can show.
    matrix.set_filter(Some(Filter::ChangedBy(Strategy::Code)));
    assert_eq!(matrix.rows().len(), 0);
    // A strategy that is not a column keeps nothing.
    matrix.set_filter(Some(Filter::ChangedBy(Strategy::Minimal)));
    assert_eq!(matrix.rows().len(), 0);
    matrix.set_filter(None);
    assert_eq!(matrix.rows().len(), 9);
}

#[test]
fn a_request_the_provider_rejects_is_marked_in_the_header() {
    // large.json forces `tool_choice` to an MCP tool that `defer` withholds.
    let matrix = Matrix::new(&report_of(
        "large.json",
        &[Strategy::Minimal, Strategy::Defer],
        &[],
    ));
    let headers: Vec<String> = matrix
        .columns
        .iter()
        .map(toolprism::matrix::Column::header)
        .collect();
    assert_eq!(headers, ["minimal", "defer!"]);
    assert!(!matrix.columns[1].request_valid);
}

// The command line.

/// The table's header row, split at spaces.
fn header_of(text: &str) -> Vec<&str> {
    text.lines()
        .find(|l| l.starts_with("tool "))
        .unwrap()
        .split_whitespace()
        .collect()
}

fn cells(text: &str) -> usize {
    toolprism::text::width(text)
}

#[test]
fn into_a_pipe_the_table_has_whole_names_and_every_column() {
    let text = stdout_of(&["report", "samples/small.json", "--matrix"]);
    let header = text.lines().nth(2).unwrap();
    let columns: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(
        columns,
        [
            "tool",
            "original",
            "▼",
            "full",
            "progressive",
            "minimal",
            "direct",
            "adaptive",
            "code",
            "disabled",
            "shorten",
            "defer",
            "defer-catalog",
            "search",
            "codex",
            "append"
        ]
    );
    assert!(!text.contains('…'), "{text}");
    assert!(!text.contains("not shown"), "{text}");
    let row = text
        .lines()
        .find(|l| l.starts_with("mcp__github__search_pull_requests "))
        .unwrap();
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        [
            "mcp__github__search_pull_requests",
            "265",
            "240",
            "~",
            "240",
            "~",
            "103",
            "~",
            "265",
            "=",
            "265",
            "=",
            "×",
            "×",
            "265",
            "=",
            // zero 0.8.0 defers at 3 MCP tools; search marks it defer_loading.
            "»",
            "»",
            "246",
            "~",
            "265",
            "="
        ]
    );
}

#[test]
fn the_whole_table_for_small_json() {
    insta::assert_snapshot!(
        "matrix_small_table",
        stdout_of(&[
            "report",
            "samples/small.json",
            "--matrix",
            "--set",
            "defer.threshold=1",
        ])
    );
}

#[test]
fn a_width_drops_columns_in_the_stated_order_and_shortens_names() {
    let text = stdout_of(&["report", "samples/small.json", "--matrix", "--width", "77"]);
    for line in text.lines() {
        assert!(cells(line) <= 77, "{} cells: {line}", cells(line));
    }
    assert!(
        text.replace("\n  ", " ").contains(
            "not shown for width: append, disabled, direct, full, defer-catalog, codex, adaptive, shorten, code, search (widen"
        ),
        "{text}"
    );
    let header: Vec<&str> = header_of(&text);
    assert_eq!(
        header,
        ["tool", "original", "▼", "progressive", "minimal", "defer"]
    );
    let names: Vec<&str> = text
        .lines()
        .skip(3)
        .take(8)
        .map(|l| l.split("  ").next().unwrap().trim_end())
        .collect();
    assert_eq!(
        names,
        [
            "github›create_issue",
            "github›search_pull_requests",
            "github›get_file_contents",
            "edit_file",
            "read_file",
            "search_files",
            "bash",
            "write_file"
        ]
    );
    // Numbers are never cut, however narrow.
    let narrow = stdout_of(&["report", "samples/small.json", "--matrix", "--width", "20"]);
    let total = narrow
        .lines()
        .find(|l| l.starts_with("total sent"))
        .unwrap();
    assert_eq!(
        total.split_whitespace().collect::<Vec<_>>(),
        ["total", "sent", "1,296"]
    );
}

#[test]
fn the_sorted_column_is_never_dropped() {
    let text = stdout_of(&[
        "report",
        "samples/small.json",
        "--matrix",
        "--width",
        "60",
        "--sort",
        "disabled",
    ]);
    let header: Vec<&str> = header_of(&text);
    // `disabled` goes first, but not while the rows are sorted by it.
    assert_eq!(header, ["tool", "original", "minimal", "disabled", "▼"]);
    assert!(
        text.replace("\n  ", " ").contains(
            "not shown for width: append, direct, full, defer-catalog, codex, adaptive, shorten, code, search, progressive, defer (widen"
        ),
        "{text}"
    );
}

#[test]
fn on_a_terminal_columns_sets_the_width() {
    let command = format!("COLUMNS=70 '{}' report samples/small.json --matrix", bin());
    let Some(out) = tools::in_pty(
        &command,
        &root(),
        &[],
        &[],
        "on_a_terminal_columns_sets_the_width",
    ) else {
        return;
    };
    assert!(out.status.success());
    let coloured = String::from_utf8(out.stdout).unwrap().replace("\r\n", "\n");
    // On a terminal the marks are coloured; colour takes no cells.
    assert!(coloured.contains("\u{1b}["), "{coloured}");
    let text = strip_sgr(&coloured);
    for line in text.lines() {
        assert!(cells(line) <= 70, "{} cells: {line}", cells(line));
    }
    assert!(text.contains("not shown for width: "), "{text}");
    assert!(text.contains('…'), "{text}");
}

#[test]
fn markdown_for_small_json() {
    insta::assert_snapshot!(
        "matrix_small_markdown",
        stdout_of(&[
            "report",
            "samples/small.json",
            "--matrix",
            "--format",
            "markdown",
            "--set",
            "defer.threshold=1",
        ])
    );
}

#[test]
fn csv_for_small_json() {
    insta::assert_snapshot!(
        "matrix_small_csv",
        stdout_of(&[
            "report",
            "samples/small.json",
            "--matrix",
            "--format",
            "csv",
            "--set",
            "defer.threshold=1",
        ])
    );
}

#[test]
fn hostile_names_are_escaped_in_every_format() {
    let args = |format| {
        stdout_of(&[
            "report",
            "tests/fixtures/matrix-names.json",
            "--matrix",
            "-s",
            "minimal",
            "--format",
            format,
        ])
    };
    let csv = args("csv");
    assert_eq!(
        csv.lines().nth(1).unwrap(),
        "tool,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",38,38,changed"
    );
    assert_eq!(
        csv.lines().nth(2).unwrap(),
        "tool,esc␛[2Jname,35,35,changed"
    );
    assert!(csv.ends_with("\r\n") && !csv.replace("\r\n", "").contains('\n'));
    let markdown = args("markdown");
    assert!(
        markdown.contains("\n| ``pipe\\|name`tick`` | 31 | 31 \\~ |\n"),
        "{markdown}"
    );
    for text in [csv, markdown, args("table")] {
        assert!(!text.contains('\u{1b}'), "{text}");
    }
}

#[test]
fn matrix_flags_are_checked() {
    assert_eq!(
        fails_with(&["report", "samples/small.json", "--sort", "name"]),
        "toolprism: the following required arguments were not provided: --matrix (see --help)"
    );
    assert_eq!(
        fails_with(&["report", "samples/small.json", "--matrix", "--json"]),
        "toolprism: the argument '--matrix' cannot be used with '--json' (see --help)"
    );
    assert!(
        fails_with(&[
            "report",
            "samples/small.json",
            "--matrix",
            "--sort",
            "bogus"
        ])
        .starts_with(
            "toolprism: invalid value 'bogus' for '--sort <COLUMN>': unknown sort column `bogus`"
        )
    );
}

#[test]
fn a_matrix_whose_only_strategy_is_refused_still_names_its_tools() {
    let text = stdout_of(&[
        "report",
        "samples/small.json",
        "--matrix",
        "-s",
        "direct",
        "--set",
        "a3s.max_tools=2",
    ]);
    assert_eq!(header_of(&text), ["tool", "original", "▼", "direct"]);
    let words = |name: &str| -> Vec<&str> {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap()
            .split_whitespace()
            .collect()
    };
    // The refused column says so once, in its first row; the other rows are left empty.
    assert_eq!(
        words("mcp__github__create_issue "),
        ["mcp__github__create_issue", "317", "refused"]
    );
    assert_eq!(words("read_file "), ["read_file", "130"]);
    assert_eq!(text.matches("refused").count(), 1 + 7 + 1, "{text}");
    let markdown = stdout_of(&[
        "report",
        "samples/small.json",
        "--matrix",
        "-s",
        "direct",
        "--set",
        "a3s.max_tools=2",
        "--format",
        "markdown",
    ]);
    let rows: Vec<&str> = markdown.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), 8, "{markdown}");
    assert!(rows[0].ends_with("| refused |"), "{markdown}");
    assert!(
        rows[1..].iter().all(|r| !r.contains("refused")),
        "{markdown}"
    );
    assert!(
        text.ends_with(
            "direct: refused: a3s code refuses this tool list: 8 tools exceed its limit of 2 (a3s.max_tools)\n"
        ),
        "{text}"
    );
}

#[test]
fn changed_by_keeps_the_rows_a_strategy_changes_and_says_so() {
    let text = stdout_of(&[
        "report",
        "samples/small.json",
        "--matrix",
        "-s",
        "minimal",
        "-s",
        "defer",
        "--set",
        "defer.threshold=1",
        "--changed-by",
        "defer",
    ]);
    let rows: Vec<&str> = text
        .lines()
        .skip(3)
        .take_while(|l| !l.starts_with('─'))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        rows,
        [
            "mcp__github__create_issue",
            "mcp__github__search_pull_requests",
            "mcp__github__get_file_contents",
            // zero 0.8.0 defers its own `bash` too.
            "bash",
            "tool_search"
        ]
    );
    assert!(text.contains(
        "\nrows: the 5 of 9 tools that defer changes, removes, defers or adds; totals cover every tool\n"
    ));
    // The totals stay the whole strategy's.
    let total: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("total sent"))
        .unwrap()
        .split_whitespace()
        .collect();
    // zero 0.8.0: no reminder, and bash withheld too.
    assert_eq!(total, ["total", "sent", "1,296", "558", "645"]);
}

#[test]
fn not_applicable_columns_keep_their_figures_and_reason() {
    let matrix = Matrix::new(&report_of("small.json", &[Strategy::Code], &[]));
    assert_eq!(
        matrix.columns[0].status,
        ColumnStatus::NotApplicable(
            "the capture has no `program` tool, so a3s presents no tools (set code.gateway=inject to add a3s's own gateway)".to_owned()
        )
    );
    // Its figures stand (a3s sends nothing), but it has no saving of its own.
    assert_eq!(
        report_of("small.json", &[Strategy::Code], &[]).strategies[0].saved_pct,
        None
    );
    assert_eq!(matrix.columns[0].totals.unwrap().saved_tokens, 0);
    assert_eq!(matrix.total_text(Some(0), TotalRow::Saved), "n/a");
    assert_eq!(matrix.total_text(Some(0), TotalRow::SavedPct), "n/a");
    assert_eq!(matrix.total_text(Some(0), TotalRow::TotalSent), "0");
    // Without provider-deferred entries, `in context` would repeat `tools array`.
    assert!(!matrix.total_rows().contains(&TotalRow::InContext));
}

#[test]
fn provider_deferred_entries_add_the_in_context_row() {
    let report = report_of("anthropic-tool-search.json", &[Strategy::Minimal], &[]);
    let matrix = Matrix::new(&report);
    assert_eq!(
        matrix.total_rows()[..2],
        [TotalRow::ToolsArray, TotalRow::InContext]
    );
    assert_eq!(
        matrix.original.context_tokens,
        report.capture.context_tokens
    );
    let minimal = matrix.columns[0].totals.unwrap();
    assert_eq!(
        Some(minimal.context_tokens),
        report.strategies[0].context_tokens
    );
    // Savings are on context tokens: 173 in context before, 119 after.
    assert_eq!((minimal.context_tokens, minimal.saved_tokens), (119, 54));
}
