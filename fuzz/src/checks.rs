//! The properties the fuzz targets check, shared with the normal test suite
//! (`tests/regressions.rs` includes this file), so every input the fuzzer ever found is
//! replayed under exactly the checks that found it.
//!
//! Each check panics when a property fails; a panic anywhere in toolprism fails it too.

use std::sync::Arc;

use toolprism::measure::{Encoding, TokenCounter, Tokenizer};
use toolprism::projection::ProjectionStatus;
use toolprism::sanitize::{is_unsafe, json_for_terminal, visible, visible_lines};
use toolprism::{Capture, Settings, Strategy, diff, export, project, report};

/// Inputs larger than this are skipped by the projection checks: the fuzzer's time goes to
/// structure, not size (sizes have their own benchmarks).
pub const MAX_INPUT: usize = 64 * 1024;

/// A tokenizer whose count is the byte length: exact lists then have as many tokens as bytes,
/// which checks the list arithmetic without tiktoken's cost.
struct Bytes;

impl Tokenizer for Bytes {
    fn count(&self, text: &str) -> usize {
        text.len()
    }
}

/// Loading: never panics; an error is one line.
pub fn capture(data: &[u8]) -> Option<Capture> {
    match Capture::from_bytes(data) {
        Ok(capture) => {
            let _ = capture.tool_names().count();
            let _ = capture.tool_choice_name();
            let _ = capture.message_texts();
            Some(capture)
        }
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "error is not one line: {line:?}");
            assert!(!line.is_empty());
            None
        }
    }
}

/// Every settings variant the projection checks use: the defaults, and small thresholds that
/// make the deferring and cutting strategies act on small inputs.
pub fn settings_variants() -> Vec<Settings> {
    let mut small = Settings::default();
    for assignment in [
        "defer.threshold=1",
        "mcp.prefixes=mcp__,m",
        "vtcode.mcp_cap=8",
        "vtcode.minimal=8",
        "a3s.desc_bytes=8",
        "code.gateway=inject",
    ] {
        // A key the settings do not know would be a change in toolprism, not in the input.
        small
            .apply(assignment)
            .unwrap_or_else(|e| panic!("{assignment}: {e}"));
    }
    vec![Settings::default(), small]
}

/// Every projection and its measure, with a byte-counting tokenizer: deterministic
/// projections, exports that parse, byte figures that add up.
pub fn projections(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some(capture) = capture(data) else {
        return;
    };
    for settings in settings_variants() {
        let counter = TokenCounter::with_tokenizer(Encoding::O200kBase, Box::new(Bytes));
        let figures = report::report(&capture, "fuzz", &Strategy::ALL, &settings, &counter);
        // Tokens are counted on the compact form whatever the capture's bytes: the same body
        // given already parsed (measured as compact JSON) has the same token figures, and
        // byte-count tokens equal its bytes.
        let parsed = Capture::from_value(capture.body().clone()).expect("it loaded");
        let compact = report::report(&parsed, "fuzz", &Strategy::ALL, &settings, &counter);
        assert_eq!(
            compact.capture.tools_tokens, compact.capture.tools_bytes,
            "byte-count tokens of the capture's compact list must equal its bytes"
        );
        assert_eq!(figures.capture.tools_tokens, compact.capture.tools_tokens);
        for (written, compact) in figures.strategies.iter().zip(&compact.strategies) {
            assert_eq!(
                (
                    written.tools_tokens,
                    written.total_tokens,
                    written.saved_tokens
                ),
                (
                    compact.tools_tokens,
                    compact.total_tokens,
                    compact.saved_tokens
                ),
                "{}: tokens do not depend on how the capture is written",
                written.id
            );
            assert_eq!(
                compact.tools_tokens, compact.tools_bytes,
                "{}: byte-count tokens must equal compact bytes",
                compact.id
            );
        }
        for (strategy, measured) in Strategy::ALL.iter().zip(&figures.strategies) {
            let projection = project(&capture, *strategy, &settings);
            let again = project(&capture, *strategy, &settings);
            let rendered = export::render(&capture, &projection, false, export::Layout::AsCaptured);
            assert_eq!(
                rendered,
                export::render(&capture, &again, false, export::Layout::AsCaptured),
                "{}: projection is not deterministic",
                strategy.id()
            );
            assert_eq!(projection.outcomes, again.outcomes);
            assert_eq!(projection.notes, again.notes);
            if matches!(projection.status, ProjectionStatus::Refused(_)) {
                assert_eq!(measured.total_tokens, None, "a refusal has no figures");
                continue;
            }
            let body: serde_json::Value = serde_json::from_str(&rendered)
                .unwrap_or_else(|e| panic!("{}: export is not JSON: {e}", strategy.id()));
            // What is exported loads again (the projected request is still a request).
            let tools_only = export::render(&capture, &projection, true, export::Layout::Pretty);
            let _: serde_json::Value = serde_json::from_str(&tools_only)
                .unwrap_or_else(|e| panic!("{}: tools export is not JSON: {e}", strategy.id()));
            drop(body);
            assert_eq!(
                measured.total_tokens,
                measured
                    .tools_tokens
                    .zip(measured.added_tokens)
                    .map(|(tools, added)| tools + added + measured.inline_tokens.unwrap_or(0)),
                "{}: total = tools + added + inline",
                strategy.id()
            );
            let summary = diff::projection_summary(&capture, &projection);
            assert_eq!(
                summary.after_bytes as i64 - summary.before_bytes as i64,
                summary.bytes_added as i64 - summary.bytes_removed as i64,
                "{}: byte summary does not add up",
                strategy.id()
            );
            for tool in diff::projection_diffs(&capture, &projection, None) {
                for hunk in &tool.hunks {
                    let _ = hunk.header();
                }
            }
        }
    }
}

/// The real tokenizer: every strategy's list total (counted from cached entry and join counts)
/// equals one plain tiktoken count of the exported `tools` array.
pub fn tiktoken_exact(data: &[u8]) {
    if data.len() > MAX_INPUT / 4 {
        return;
    }
    let Some(capture) = capture(data) else {
        return;
    };
    let settings = Settings::default();
    let counter = counter();
    let plain = toolprism::measure::Tiktoken::new(Encoding::O200kBase);
    let figures = report::report(&capture, "fuzz", &Strategy::ALL, &settings, counter);
    for (strategy, measured) in Strategy::ALL.iter().zip(&figures.strategies) {
        let projection = project(&capture, *strategy, &settings);
        if matches!(projection.status, ProjectionStatus::Refused(_)) || projection.sent.is_none() {
            continue;
        }
        // Tokens count the compact array of the entries (for Gemini the declarations); bytes
        // are the list as `--tools-only` writes it, in the capture's own form.
        let tools: Vec<&serde_json::Value> = projection.tools(&capture).collect();
        let list = serde_json::to_string(&tools).unwrap();
        let written = export::render(&capture, &projection, true, export::Layout::AsCaptured);
        let written = written.trim_end_matches('\n');
        let (Some(bytes), Some(tokens)) = (measured.tools_bytes, measured.tools_tokens) else {
            panic!(
                "{}: a projection that is not refused has figures",
                strategy.id()
            );
        };
        if bytes == 0 {
            continue;
        }
        let shown = if capture.written().is_none()
            && capture.shape() == toolprism::Shape::GeminiGenerateContent
        {
            // A Gemini body given already parsed is measured as its declarations.
            list.as_str()
        } else {
            written
        };
        assert_eq!(shown.len(), bytes, "{}", strategy.id());
        assert_eq!(
            plain.count(&list),
            tokens,
            "{}: list tokens differ from a plain count",
            strategy.id()
        );
    }
    // Counting any text by chunks matches a plain count too.
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(
            counter.count(text),
            plain.count(text),
            "chunked count differs"
        );
    }
}

/// One counter for the whole fuzzing process: the encoder is built once and its cache grows
/// (a cached wrong count would show up as a mismatch later, which is the point).
fn counter() -> &'static TokenCounter {
    static COUNTER: std::sync::OnceLock<Arc<TokenCounter>> = std::sync::OnceLock::new();
    COUNTER.get_or_init(|| Arc::new(TokenCounter::new(Encoding::O200kBase)))
}

/// The sanitizer: nothing unsafe survives, and safe text is unchanged.
pub fn sanitize(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let single = visible(&text);
    assert!(!single.chars().any(is_unsafe), "{single:?}");
    let lines = visible_lines(&text);
    assert!(
        !lines.chars().any(|c| is_unsafe(c) && c != '\n'),
        "{lines:?}"
    );
    assert_eq!(lines.matches('\n').count(), text.matches('\n').count());
    if !text.chars().any(is_unsafe) {
        assert_eq!(single, text);
        assert_eq!(lines, text);
    }
    // No raw C0, DEL or C1 byte sequence in the output bytes either.
    for &b in single.as_bytes() {
        assert!(b >= 0x20 && b != 0x7f, "raw control byte {b:#04x}");
    }
    // JSON for a terminal: same value, nothing unsafe.
    let json = serde_json::to_string(&serde_json::Value::String(text.to_string()))
        .unwrap_or_else(|e| panic!("serializing a string: {e}"));
    let safe = json_for_terminal(&json);
    assert!(!safe.chars().any(is_unsafe), "{safe:?}");
    let back: serde_json::Value =
        serde_json::from_str(&safe).unwrap_or_else(|e| panic!("{safe:?}: {e}"));
    assert_eq!(back.as_str(), Some(text.as_ref()));
}

/// The fast tokenizer is tiktoken-rs: the same tokens, id for id, for both encodings, on any
/// text (the input read as UTF-8, lossily).
pub fn tokenizer(data: &[u8]) {
    use std::sync::OnceLock;
    use toolprism::measure::fast::FastTiktoken;
    static FAST: OnceLock<[FastTiktoken; 2]> = OnceLock::new();
    let fast = FAST.get_or_init(|| {
        [Encoding::O200kBase, Encoding::Cl100kBase]
            .map(|encoding| FastTiktoken::new(encoding).unwrap_or_else(|e| panic!("{e}")))
    });
    let text = String::from_utf8_lossy(&data[..data.len().min(MAX_INPUT)]);
    let references = [
        tiktoken_rs::o200k_base_singleton(),
        tiktoken_rs::cl100k_base_singleton(),
    ];
    for (tokenizer, reference) in fast.iter().zip(references) {
        let expected = reference.encode_ordinary(&text);
        assert_eq!(tokenizer.tokens(&text).as_deref(), Some(&expected[..]));
        assert_eq!(tokenizer.count(&text), expected.len());
    }
}
