//! `original` is the capture as sent (issue 29): `show`, `export` and the byte figures keep the
//! bytes as written (a writer's escapes, its spacing), a rewritten entry is written in the
//! capture's style, and the token figures stay those of the canonical form.

use serde_json::Value;
use toolprism::export::Layout;
use toolprism::measure::{Encoding, TokenCounter, Tokenizer};
use toolprism::{Capture, Settings, Strategy, project, report};

use crate::support::command::{root, stdout_of};

/// Go's encoding/json: compact, `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`.
const GO: &str = "tests/fixtures/original/go-escaped.json";
/// Pretty-printed with a four-space indent, `/` as `\/`.
const PRETTY: &str = "tests/fixtures/original/pretty-4.json";
/// Python's `json.dumps` defaults: `", "`, `": "`, every non-ASCII character as `\uXXXX`.
const ASCII: &str = "tests/fixtures/original/ascii-escaped.json";
/// A claude-trace line whose request body is a string holding [`GO`]'s bytes.
const TRACE: &str = "tests/fixtures/original/go-escaped-trace.jsonl";

fn text_of(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// The `tools` value of a fixture, cut out by hand: each fixture ends with its `tools` key.
fn tools_as_written(text: &str) -> &str {
    let key = text.rfind("\"tools\":").unwrap() + "\"tools\":".len();
    let body_end = text.trim_end().len() - 1;
    text[key..body_end].trim()
}

/// Counts bytes: fast, and it counts exactly the text it is given, so equal figures mean equal
/// counted text.
struct Bytes;

impl Tokenizer for Bytes {
    fn count(&self, text: &str) -> usize {
        text.len()
    }
}

fn figures(capture: &Capture) -> report::Report {
    let counter = TokenCounter::with_tokenizer(Encoding::O200kBase, Box::new(Bytes));
    report::report(
        capture,
        "x.json",
        &Strategy::ALL,
        &Settings::default(),
        &counter,
    )
}

#[test]
fn show_and_export_write_original_as_sent() {
    for path in [GO, PRETTY, ASCII] {
        let text = text_of(path);
        let body = format!("{}\n", text.trim_end());
        let tools = format!("{}\n", tools_as_written(&text));
        assert_eq!(stdout_of(&["show", path, "-s", "original"]), body, "{path}");
        assert_eq!(
            stdout_of(&["export", path, "-s", "original", "-o", "-"]),
            body,
            "{path}"
        );
        for command in ["show", "export"] {
            let mut args = vec![command, path, "-s", "original", "--tools-only"];
            if command == "export" {
                args.extend(["-o", "-"]);
            }
            assert_eq!(stdout_of(&args), tools, "{path} {command}");
        }
        // --pretty is asked for: two spaces, as before.
        let pretty = stdout_of(&["show", path, "-s", "original", "--pretty"]);
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            pretty,
            format!("{}\n", serde_json::to_string_pretty(&parsed).unwrap())
        );
    }
}

#[test]
fn one_tool_is_shown_as_sent() {
    let text = text_of(GO);
    let tools: Value = serde_json::from_str(tools_as_written(&text)).unwrap();
    let shown = stdout_of(&["show", GO, "-s", "original", "--tool", "grep"]);
    assert!(
        shown.contains("\\u003cpattern\\u003e; results \\u0026 counts"),
        "{shown}"
    );
    assert!(tools_as_written(&text).contains(shown.trim_end()));
    assert_eq!(serde_json::from_str::<Value>(&shown).unwrap(), tools[1]);
}

#[test]
fn byte_figures_are_the_bytes_as_sent() {
    for path in [GO, PRETTY, ASCII] {
        let text = text_of(path);
        let written = tools_as_written(&text);
        let capture = Capture::from_path(root().join(path).to_str().unwrap()).unwrap();
        let canonical = Capture::from_value(capture.body().clone()).unwrap();
        let compact = serde_json::to_string(&capture.body()["tools"]).unwrap();
        assert_ne!(
            written.len(),
            compact.len(),
            "{path}: the fixture is not serde's own"
        );
        let report = figures(&capture);
        assert_eq!(report.capture.tools_bytes, written.len(), "{path}");
        assert_eq!(figures(&canonical).capture.tools_bytes, compact.len());
        let original = &report.strategies[0];
        assert_eq!(original.id, "original");
        assert_eq!(original.tools_bytes, Some(written.len()), "{path}");
        // Beside the tokens, the bytes of the same text: the compact array they count.
        assert_eq!(report.capture.tools_compact_bytes, compact.len(), "{path}");
        assert_eq!(original.tools_compact_bytes, Some(compact.len()), "{path}");
        for (i, tool) in original.per_tool.iter().enumerate() {
            let entry = capture.entry_text(i).unwrap();
            assert!(
                written.contains(entry),
                "{path}: entry {i} is a span of the list"
            );
            assert_eq!(
                serde_json::from_str::<Value>(entry).unwrap(),
                capture.tools()[i]
            );
            assert_eq!(tool.original_bytes(), entry.len());
            assert_eq!(tool.projected_bytes(), entry.len());
        }
    }
}

#[test]
fn token_figures_are_those_of_the_canonical_form() {
    for path in [GO, PRETTY, ASCII] {
        let capture = Capture::from_path(root().join(path).to_str().unwrap()).unwrap();
        let canonical = Capture::from_value(capture.body().clone()).unwrap();
        let (written, parsed) = (figures(&capture), figures(&canonical));
        assert_eq!(written.capture.tools_tokens, parsed.capture.tools_tokens);
        assert_eq!(
            written.capture.context_tokens,
            parsed.capture.context_tokens
        );
        for (a, b) in written.strategies.iter().zip(&parsed.strategies) {
            assert_eq!(
                (
                    a.tools_tokens,
                    a.total_tokens,
                    a.saved_tokens,
                    a.context_tokens
                ),
                (
                    b.tools_tokens,
                    b.total_tokens,
                    b.saved_tokens,
                    b.context_tokens
                ),
                "{path} {}",
                a.id
            );
            assert_eq!(
                a.first_changed_byte, b.first_changed_byte,
                "{path} {}",
                a.id
            );
            let tokens = |f: &report::StrategyFigures| -> Vec<(usize, usize)> {
                f.per_tool
                    .iter()
                    .map(|t| (t.original_tokens(), t.projected_tokens()))
                    .collect()
            };
            assert_eq!(tokens(a), tokens(b), "{path} {}", a.id);
        }
    }
}

/// `minimal` rewrites every entry: each is written in the capture's style, and reads back as
/// the entry toolprism's canonical form holds.
#[test]
fn a_rewritten_entry_is_written_in_the_capture_s_style() {
    for path in [GO, PRETTY, ASCII] {
        let out = stdout_of(&["show", path, "-s", "minimal", "--tools-only"]);
        let pretty = stdout_of(&["show", path, "-s", "minimal", "--tools-only", "--pretty"]);
        let parsed: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed, serde_json::from_str::<Value>(&pretty).unwrap());
        let capture = Capture::from_path(root().join(path).to_str().unwrap()).unwrap();
        let projection = project(&capture, Strategy::Minimal, &Settings::default());
        let report = figures(&capture);
        let minimal = report
            .strategies
            .iter()
            .find(|s| s.id == "minimal")
            .unwrap();
        assert_eq!(minimal.tools_bytes, Some(out.trim_end().len()), "{path}");
        assert!(
            projection
                .sent
                .iter()
                .flatten()
                .any(|t| t.replaced.is_some()),
            "{path}: minimal rewrites entries"
        );
        match path {
            GO => {
                assert!(out.contains("\\u003c") && !out.contains('<'), "{out}");
                assert_eq!(out.lines().count(), 1, "compact, as the capture");
            }
            PRETTY => {
                assert!(out.starts_with("[\n        {\n            \"type\": \"function\",\n"));
                assert!(out.contains("\\/") && !out.contains("s/"), "{out}");
                assert!(out.trim_end().ends_with("\n    ]"));
            }
            _ => {
                assert!(out.is_ascii() && out.contains("\\u00fc"), "{out}");
                assert!(out.contains("\", \"") && out.contains("\": "), "{out}");
            }
        }
    }
}

#[test]
fn a_trace_s_body_string_is_the_bytes_sent() {
    let body = format!("{}\n", text_of(GO).trim_end());
    assert_eq!(stdout_of(&["show", TRACE, "-s", "original"]), body);
    let tools = format!("{}\n", tools_as_written(&body));
    assert_eq!(
        stdout_of(&["show", TRACE, "-s", "original", "--tools-only"]),
        tools
    );
    let report: Value =
        serde_json::from_str(&stdout_of(&["report", TRACE, "--json", "-s", "original"])).unwrap();
    assert_eq!(
        report["capture"]["tools_bytes"],
        Value::from(tools.trim_end().len())
    );
}

/// A capture written as serde_json writes it (compact) shows as before: its own bytes are
/// serde's.
#[test]
fn a_serde_compact_capture_shows_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let parsed: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("samples/small.json")).unwrap())
            .unwrap();
    let compact = serde_json::to_string(&parsed).unwrap();
    let path = dir.path().join("small-compact.json");
    std::fs::write(&path, format!("{compact}\n")).unwrap();
    let path = path.to_str().unwrap();
    assert_eq!(
        stdout_of(&["show", path, "-s", "original"]),
        format!("{compact}\n")
    );
    let capture = Capture::from_path(path).unwrap();
    let canonical = Capture::from_value(parsed).unwrap();
    for strategy in Strategy::ALL {
        let projection = project(&capture, strategy, &Settings::default());
        if projection.refusal().is_some() {
            continue;
        }
        assert_eq!(
            toolprism::export::render(&capture, &projection, false, Layout::AsCaptured),
            toolprism::export::render(
                &canonical,
                &project(&canonical, strategy, &Settings::default()),
                false,
                Layout::AsCaptured
            ),
            "{strategy}"
        );
    }
}
