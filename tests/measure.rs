//! Exactness of the fast counting paths against plain tiktoken counts, for both encodings:
//! chunked counts of single texts, list totals from per-entry counts plus join corrections, and
//! whole reports on generated captures.

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::strategy::Strategy as _;
use serde_json::Value;
#[path = "../benches/synth/mod.rs"]
mod synth;

use synth::{Spec, capture_json};
use toolprism::measure::{Encoding, Tiktoken, TokenCounter, Tokenizer};
use toolprism::{Capture, Settings, Strategy, project, tool};

const ENCODINGS: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

/// One session-long counter per encoding: later cases also exercise remembered chunks.
fn counter(encoding: Encoding) -> &'static TokenCounter {
    static O200K: OnceLock<TokenCounter> = OnceLock::new();
    static CL100K: OnceLock<TokenCounter> = OnceLock::new();
    match encoding {
        Encoding::O200kBase => O200K.get_or_init(|| TokenCounter::new(encoding)),
        Encoding::Cl100kBase => CL100K.get_or_init(|| TokenCounter::new(encoding)),
    }
}

/// The plain count: tiktoken over the whole text.
fn full(encoding: Encoding, text: &str) -> usize {
    Tiktoken::new(encoding).count(text)
}

fn joined(entries: &[&str]) -> String {
    format!("[{}]", entries.join(","))
}

/// Fragments chosen to sit on every edge of the pre-tokenizer patterns: JSON punctuation,
/// spaces and other whitespace, NBSP, combining marks, apostrophes with contraction letters,
/// digits, CJK, emoji, escaped and raw newlines, slashes, case changes.
const NASTY: &[&str] = &[
    "\"",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "  ",
    "\u{a0}",
    "\u{301}",
    "e\u{301}",
    "'",
    "'s",
    "'t",
    "'ll",
    "'S",
    "s",
    "t",
    "ll",
    "re",
    "7",
    "42",
    "1234",
    "東京",
    "検索",
    "🚀",
    "👍🏽",
    "\\n",
    "\n",
    "\r\n",
    "\t",
    "/",
    "//",
    "\\",
    "a",
    "Word",
    "ABC",
    "camelCase",
    "é",
    "ß",
    ".",
    "-",
    "_",
    "*",
    "#",
    "`",
    "(",
    ")",
    "<",
    ">",
    "=",
    "&",
    "%",
    "$",
    "@",
    "!",
    "?",
    "’",
    "—",
    "\u{200b}",
    "x'",
    " '",
    "'{",
    "}'",
    "\n/",
    "!\n/\"",
    "\r\n//",
];

fn nasty_text(max: usize) -> impl proptest::strategy::Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(NASTY), 0..max).prop_map(|parts| parts.concat())
}

/// Entries as a host would send them (compact JSON objects with nasty strings), or raw text.
fn entry() -> impl proptest::strategy::Strategy<Value = String> {
    prop_oneof![
        (nasty_text(12), nasty_text(60), nasty_text(8)).prop_map(|(name, desc, param)| {
            let value = serde_json::json!({
                "name": name,
                "description": desc,
                "input_schema": {"type": "object", "properties": {param: {"type": "string"}}}
            });
            tool::compact(&value)
        }),
        nasty_text(40),
        (nasty_text(6), any::<u16>())
            .prop_map(|(s, n)| tool::compact(&serde_json::json!({"n": n, "s": s}))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn list_totals_equal_full_counts(entries in prop::collection::vec(entry(), 0..8)) {
        let refs: Vec<&str> = entries.iter().map(String::as_str).collect();
        let text = joined(&refs);
        for encoding in ENCODINGS {
            prop_assert_eq!(counter(encoding).count_array(&refs), full(encoding, &text), "{:?} {:?}", encoding, text);
        }
    }

    #[test]
    fn chunked_counts_equal_full_counts(text in nasty_text(400)) {
        for encoding in ENCODINGS {
            prop_assert_eq!(counter(encoding).count(&text), full(encoding, &text), "{:?} {:?}", encoding, text);
        }
    }

    #[test]
    fn batches_equal_single_counts(texts in prop::collection::vec(nasty_text(200), 0..6)) {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        for encoding in ENCODINGS {
            let fresh = TokenCounter::new(encoding);
            let expected: Vec<usize> = refs.iter().map(|t| full(encoding, t)).collect();
            prop_assert_eq!(fresh.count_many(&refs), expected);
        }
    }
}

/// Hand-picked cases at the edges of the forced-boundary rules: a `/` that o200k keeps after a
/// newline, contractions after punctuation, marks and no-break spaces beside letters.
#[test]
fn tricky_lists_and_texts() {
    let cases: &[&[&str]] = &[
        &["!\n/\"name", "x"],
        &["a!\n/\"b\"}", "{\"c\n//\"d"],
        &["{'s\"}", "'t", "{\"x'll\"}"],
        &["{\"e\u{301}\"}", "{\"\u{a0}a\"}", "\u{a0}"],
        &["{}", "[]", "{\"a\":1}", "7", "\"\"", ""],
        &["  ", " x ", "\n\n", "a\n", "\r\n"],
    ];
    for encoding in ENCODINGS {
        for list in cases {
            assert_eq!(
                counter(encoding).count_array(list),
                full(encoding, &joined(list)),
                "{encoding:?} {list:?}"
            );
            for text in *list {
                let long = text.repeat(50);
                assert_eq!(counter(encoding).count(&long), full(encoding, &long));
            }
        }
    }
}

/// Generated captures: per-tool counts, list totals, and several lists at once.
#[test]
fn generated_captures_count_exactly() {
    for seed in 0..4 {
        let capture = Capture::from_bytes(capture_json(Spec::small(60, seed)).as_bytes())
            .expect("generated captures load");
        let entries: Vec<String> = capture.tools().iter().map(tool::compact).collect();
        let refs: Vec<&str> = entries.iter().map(String::as_str).collect();
        for encoding in ENCODINGS {
            let counter = TokenCounter::new(encoding);
            let per_tool = counter.count_many(&refs);
            for (text, n) in refs.iter().zip(&per_tool) {
                assert_eq!(*n, full(encoding, text));
            }
            assert_eq!(counter.count_array(&refs), full(encoding, &joined(&refs)));
            let halves: [&[&str]; 3] = [&refs[..30], &refs[30..], &[]];
            let totals = counter.count_arrays(&halves);
            for (list, total) in halves.iter().zip(totals) {
                assert_eq!(total, full(encoding, &joined(list)));
            }
        }
    }
}

/// The fast report gives the figures of a plain, uncached recomputation.
#[test]
fn report_matches_plain_recount() {
    let capture = Capture::from_bytes(capture_json(Spec::small(45, 9)).as_bytes())
        .expect("generated captures load");
    let settings = Settings::default();
    for encoding in ENCODINGS {
        let counter = TokenCounter::new(encoding);
        let report =
            toolprism::report::report(&capture, "gen", &Strategy::ALL, &settings, &counter);
        let originals = Value::Array(capture.tools().to_vec());
        assert_eq!(
            report.capture.tools_tokens,
            full(encoding, &tool::compact(&originals))
        );
        for (strategy, figures) in Strategy::ALL.iter().zip(&report.strategies) {
            let projection = project(&capture, *strategy, &settings);
            // Refused: no figures to recount.
            if projection.status.is_refused() {
                assert_eq!(figures.tools_tokens, None, "{strategy}");
                continue;
            }
            let list = projection.tools_value(&capture);
            let expected = list
                .as_ref()
                .filter(|l| capture.has_tools_key() || l.as_array().is_some_and(|a| !a.is_empty()))
                .map_or(0, |l| full(encoding, &tool::compact(l)));
            assert_eq!(figures.tools_tokens, Some(expected), "{strategy}");
            let sent: Vec<&Value> = projection.tools(&capture).collect();
            for outcome in &projection.outcomes {
                let row = figures
                    .per_tool
                    .iter()
                    .find(|r| r.name == outcome.name)
                    .expect("every outcome has a row");
                if let Some(i) = outcome.projected {
                    assert_eq!(
                        row.projected_tokens(),
                        full(encoding, &tool::compact(sent[i]))
                    );
                }
                if let Some(i) = outcome.original {
                    assert_eq!(
                        row.original_tokens(),
                        full(encoding, &tool::compact(&capture.tools()[i]))
                    );
                }
            }
            let added = projection
                .added_text
                .as_deref()
                .map_or(0, |t| full(encoding, t));
            assert_eq!(figures.added_tokens, Some(added));
        }
    }
}

/// The benchmark capture has the promised size and shape.
#[test]
fn bench_capture_is_large_and_mixed() {
    let text = capture_json(Spec::BENCH);
    assert!(
        (3_300_000..=3_900_000).contains(&text.len()),
        "{} bytes",
        text.len()
    );
    let capture = Capture::from_bytes(text.as_bytes()).expect("loads");
    assert_eq!(capture.tools().len(), 1000);
    let mcp = capture
        .tool_names()
        .filter(|n| n.starts_with("mcp__"))
        .count();
    assert!(mcp > 900);
    assert!(text.contains("$defs") && text.contains("東京") && text.contains("🚀"));
}

// ---------------------------------------------------------------- the synthetic capture

#[test]
fn same_spec_same_bytes() {
    let a = capture_json(Spec::small(40, 7));
    let b = capture_json(Spec::small(40, 7));
    assert_eq!(a, b);
    assert_ne!(a, capture_json(Spec::small(40, 8)));
}

#[test]
fn names_are_unique_and_count_is_exact() {
    for tools in [0, 1, 15, 16, 17, 300] {
        let value = synth::capture_value(Spec::small(tools, 3));
        let list = value["tools"].as_array().cloned().unwrap_or_default();
        assert_eq!(list.len(), tools);
        let mut names: Vec<&str> = list.iter().filter_map(|t| t["name"].as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools);
    }
}
