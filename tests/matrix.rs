//! The tools × strategies matrix (`toolprism::matrix`) and `report --matrix`.

use std::path::PathBuf;

use toolprism::matrix::{
    CachePrefix, Cell, ColumnStatus, Filter, Mark, Matrix, Origin, Sort, SortColumn, TotalRow,
};
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::report::{Report, report};
use toolprism::{Capture, Settings, Strategy};

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

fn report_of(name: &str, strategies: &[Strategy], set: &[&str]) -> Report {
    let path = sample(name);
    let path = path.to_str().unwrap();
    let capture = Capture::from_path(path).unwrap();
    let mut settings = Settings::default();
    for assignment in set {
        settings.apply(assignment).unwrap();
    }
    let counter = TokenCounter::new(Encoding::O200kBase);
    report(&capture, path, strategies, &settings, &counter)
}

fn names(matrix: &Matrix) -> Vec<&str> {
    matrix.rows().map(|r| r.name.as_str()).collect()
}

fn cell<'m>(matrix: &'m Matrix, tool: &str, strategy: Strategy) -> &'m Cell {
    let c = matrix.column_index(strategy).unwrap();
    let row = matrix.all_rows().iter().find(|r| r.name == tool).unwrap();
    &row.cells[c]
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
        ]
    );
    let tokens: Vec<Option<usize>> = matrix.rows().map(|r| r.original_tokens).collect();
    assert_eq!(
        tokens,
        [317, 265, 143, 134, 130, 106, 104, 95].map(Some).to_vec()
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
            "defer-catalog"
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
    let sent = |tokens, mark| Cell {
        tokens: Some(tokens),
        mark,
    };
    let none = |mark| Cell { tokens: None, mark };
    assert_eq!(
        *cell(&matrix, "read_file", Strategy::Minimal),
        sent(50, Mark::Changed)
    );
    assert_eq!(
        *cell(&matrix, "read_file", Strategy::Direct),
        sent(130, Mark::Kept)
    );
    assert_eq!(
        *cell(&matrix, "mcp__github__create_issue", Strategy::Defer),
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
    assert_eq!(
        added[0].cells,
        [
            none(Mark::Absent),
            none(Mark::Absent),
            sent(114, Mark::Added)
        ]
    );
    // Added tools have no original cost: they sort last, costliest first or not.
    assert_eq!(matrix.rows().last().unwrap().name, "tool_search");
    assert_eq!(sent(1197, Mark::Changed).text(), "1,197 ~");
    assert_eq!(none(Mark::Deferred).text(), "»");
    assert_eq!(none(Mark::Absent).text(), "");
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
        let totals = column.totals.unwrap();
        assert_eq!(totals.tools_tokens, figures.tools_tokens);
        assert_eq!(totals.added_tokens, figures.added_tokens);
        assert_eq!(totals.total_tokens, figures.total_tokens);
        assert_eq!(
            totals.total_tokens,
            totals.tools_tokens + totals.added_tokens
        );
        assert_eq!(totals.saved_tokens, figures.saved_tokens);
        assert_eq!(totals.saved_pct, figures.saved_pct);
        assert_eq!(totals.tools_sent, figures.tools);
        // Every sent tool has a figure in its column, and only those.
        let c = matrix.column_index(column.strategy).unwrap();
        let sent = matrix
            .all_rows()
            .iter()
            .filter(|r| r.cells[c].tokens.is_some())
            .count();
        assert_eq!(sent, figures.tools, "{}", figures.id);
    }
    let defer = matrix.column_index(Strategy::Defer).unwrap();
    let minimal = matrix.column_index(Strategy::Minimal).unwrap();
    let texts: Vec<String> = TotalRow::ALL
        .iter()
        .map(|&row| matrix.total_text(Some(defer), row))
        .collect();
    assert_eq!(texts, ["685", "335", "1,020", "276", "21.30%", "6", "10 B"]);
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
        &[Strategy::Minimal, Strategy::Direct],
        &["a3s.max_tools=3"],
    );
    let matrix = Matrix::new(&report);
    let direct = &matrix.columns[1];
    assert_eq!(
        direct.status,
        ColumnStatus::Refused(
            "a3s code refuses this tool list: 8 tools exceed its limit of 3 (a3s.max_tools)"
                .to_owned()
        )
    );
    assert_eq!(direct.totals, None);
    assert!(matrix.rows().all(|r| r.cells[1]
        == Cell {
            tokens: None,
            mark: Mark::Refused
        }));
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
    let headers: Vec<String> = matrix.columns.iter().map(|c| c.header()).collect();
    assert_eq!(headers, ["minimal", "defer!"]);
    assert!(!matrix.columns[1].request_valid);
}
