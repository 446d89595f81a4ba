//! `report::write_json` writes exactly what serde_json's pretty printer writes for the whole
//! report, per-tool figures in parallel chunks or not, and leaves the report as it was.

use serde_json::json;
use toolprism::measure::{Encoding, TokenCounter, Tokenizer};
use toolprism::{Capture, Settings, Strategy, report};

/// Counts bytes: fast, and the figures still differ from tool to tool.
struct Bytes;

impl Tokenizer for Bytes {
    fn count(&self, text: &str) -> usize {
        text.len()
    }
}

fn assert_written_as_serde_would(capture: &Capture, strategies: &[Strategy]) {
    let counter = TokenCounter::with_tokenizer(Encoding::O200kBase, Box::new(Bytes));
    let mut figures = report::report(
        capture,
        "x.json",
        strategies,
        &Settings::default(),
        &counter,
    );
    let expected = format!("{}\n", serde_json::to_string_pretty(&figures).unwrap());
    let before = figures.clone();
    let mut written = Vec::new();
    report::write_json(&mut figures, &mut written).unwrap();
    assert_eq!(String::from_utf8(written).unwrap(), expected);
    assert_eq!(figures, before, "the report is put back as it was");
}

#[test]
fn every_sample_under_every_strategy() {
    for entry in std::fs::read_dir("samples").unwrap() {
        let path = entry.unwrap().path();
        if let Ok(capture) = Capture::from_path(path.to_str().unwrap()) {
            assert_written_as_serde_would(&capture, &Strategy::ALL);
            assert_written_as_serde_would(&capture, &[Strategy::Minimal]);
            assert_written_as_serde_would(&capture, &[]);
        }
    }
}

#[test]
fn many_tools_span_several_parallel_windows() {
    // More tools than one window of chunks holds on two cores (2,048 per chunk, two chunks a
    // thread).
    let tools: Vec<_> = (0..9_001)
        .map(|i| {
            json!({
                "name": format!("mcp__s{}__t{i}", i % 7),
                "description": format!("Tool {i}. \"Quoted\", with\nnewlines\tand \u{1b} escapes."),
                "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}
            })
        })
        .collect();
    let body = json!({"model": "m", "max_tokens": 1, "messages": [], "tools": tools});
    let capture = Capture::from_value(body).unwrap();
    assert_written_as_serde_would(&capture, &Strategy::ALL);
}

#[test]
fn a_capture_without_tools() {
    let capture = Capture::from_value(json!({"model": "m", "messages": []})).unwrap();
    assert_written_as_serde_would(&capture, &Strategy::ALL);
}
