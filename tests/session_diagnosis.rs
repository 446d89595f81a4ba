//! The provider's own cache diagnosis beside toolprism's, and today's models (SESSIONS.md
//! section 3, "The provider's diagnosis" and "Models").

use serde_json::{Value, json};
use toolprism::Settings;
use toolprism::capture::Shape;
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::session::{Analyzer, SessionReport, TraceInfo, price_per_million, rules_for};
use toolprism::strategy::Strategy;
use toolprism::trace::{TraceRecord, Usage};

use crate::support::command::stdout_of;
use crate::support::records::record;

const SAMPLE: &str = "samples/traces/claude-diagnostics.jsonl";

fn analyze(records: Vec<TraceRecord>) -> SessionReport {
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(&[Strategy::Original], &Settings::default(), &counter, None);
    for record in records {
        analyzer.push(record).unwrap();
    }
    analyzer.finish(TraceInfo::default())
}

/// A recording whose responses carry `diagnostics`, as JSON bodies and as streams: each turn's
/// diagnosis is read, compared with the part toolprism finds changed against the request whose
/// response the request names, and every disagreement is listed.
#[test]
fn each_turn_has_the_providers_diagnosis_beside_toolprisms() {
    let report: Value = serde_json::from_str(&stdout_of(&["session", SAMPLE, "--json"])).unwrap();
    let turns = report["turns"].as_array().unwrap();
    let diagnosis = |n: usize| &turns[n - 1]["provider_diagnosis"];
    // `null`: opted in with no previous message, nothing to compare.
    assert_eq!(diagnosis(1)["reason"], "none");
    assert_eq!(diagnosis(1)["agrees"], Value::Null);
    // Streamed: on `message_start`'s message. toolprism names the tool and the byte.
    assert_eq!(diagnosis(2)["reason"], "tools_changed");
    assert_eq!(diagnosis(2)["cache_missed_input_tokens"], 1010);
    assert_eq!(diagnosis(2)["toolprism"], "tools");
    assert_eq!(diagnosis(2)["tool"], "list_dir");
    assert_eq!(
        diagnosis(2)["first_changed_byte"],
        turns[1]["first_changed_byte"]
    );
    assert_eq!(diagnosis(2)["agrees"], true);
    // No divergence from the message named, and toolprism finds none either.
    assert_eq!(diagnosis(3)["reason"], "none");
    assert_eq!(diagnosis(3)["compared_with"], 2);
    assert_eq!(diagnosis(3)["agrees"], true);
    // The system changed, in another thread of toolprism's: compared with the turn named.
    assert_eq!(diagnosis(4)["reason"], "system_changed");
    assert_eq!(diagnosis(4)["compared_with"], 3);
    assert_eq!(diagnosis(4)["toolprism"], "system");
    // Pending is inconclusive; not found is not compared.
    assert_eq!(diagnosis(5)["reason"], "pending");
    assert_eq!(diagnosis(5)["agrees"], Value::Null);
    assert_eq!(diagnosis(6)["toolprism"], "messages");
    assert_eq!(diagnosis(6)["agrees"], true);
    assert_eq!(diagnosis(7)["agrees"], false);
    assert_eq!(diagnosis(8)["reason"], "previous_message_not_found");
    assert_eq!(diagnosis(8)["agrees"], Value::Null);
    assert_eq!(
        report["diagnosis"],
        json!({"turns": 8, "diagnosed": 5, "agree": 4, "rate": 0.8,
            "disagreements": [{"turn": 7, "provider": "system_changed", "toolprism": null}]})
    );
    // The 5-minute / 1-hour split of the writes, where the response gives it.
    assert_eq!(turns[3]["usage"]["cache_write_1h"], 1040);

    let text = stdout_of(&["session", SAMPLE]);
    assert!(
        text.contains("provider diagnosis: 8 turns with `diagnostics`, 5 diagnosed, 4 where toolprism names the same part (80.0%)"),
        "{text}"
    );
    assert!(text.contains(
        "provider: tools_changed (1,010 missed); toolprism: tools since turn 1 (list_dir, byte 813) (same part)"
    ));
    assert!(
        text.contains("turn 7: the provider says system_changed; toolprism finds nothing changed")
    );
}

/// A trace without `diagnostics` says nothing of them.
#[test]
fn no_diagnostics_no_figure() {
    let report: Value = serde_json::from_str(&stdout_of(&[
        "session",
        "samples/traces/claude-code-mcp-reconnect.jsonl",
        "--json",
    ]))
    .unwrap();
    assert_eq!(report["diagnosis"], Value::Null);
    assert!(
        report["turns"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["provider_diagnosis"].is_null())
    );
}

fn marked(model: &str) -> Value {
    let text: String = (0..900).map(|i| format!("word{} ", i % 97)).collect();
    json!({"model": model, "system": [{"type": "text", "text": text,
        "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "hello"}]})
}

/// Today's Claude models from the table; a model it does not name is unknown, never the
/// nearest family's.
#[test]
fn todays_models_and_unknown_ones() {
    let settings = Settings::default();
    let rules = |model: &str| rules_for(Shape::AnthropicMessages, &marked(model), &settings);
    assert_eq!(price_per_million(&settings, "claude-opus-5"), Some(5.0));
    assert_eq!(rules("claude-opus-5").min_tokens, 512);
    assert_eq!(price_per_million(&settings, "claude-opus-5-5"), Some(4.0));
    assert_eq!(rules("claude-opus-5-5").read, 0.05);
    assert_eq!(price_per_million(&settings, "claude-sonnet-5-5"), Some(2.0));
    assert_eq!(rules("claude-fable-5-1").read, 0.025);
    assert_eq!(rules("claude-opus-4-7").min_tokens, 2048);
    assert_eq!(rules("claude-sonnet-5").min_tokens, 1024);
    assert_eq!(
        (
            rules("claude-opus-5").write,
            rules("claude-opus-5").write_long
        ),
        (1.25, 2.0)
    );
    // An Opus the table does not name is no Opus 4 at $15.
    assert_eq!(price_per_million(&settings, "claude-opus-7"), None);

    let report = analyze(vec![record(1, marked("claude-opus-7"), None)]);
    let rates = report.turns[0].model_rates.unwrap();
    assert!(!rates.known);
    assert_eq!(
        (rates.min_tokens, rates.input_price, rates.read),
        (None, None, None)
    );
    assert_eq!(report.unknown_models[0].model, "claude-opus-7");
    let known = analyze(vec![record(1, marked("claude-opus-5"), None)]);
    assert_eq!(known.turns[0].model_rates.unwrap().min_tokens, Some(512));
    assert!(known.unknown_models.is_empty());
}

/// The bill prices the hour's writes at twice input where the response splits them.
#[test]
fn the_hours_writes_are_billed_at_their_price() {
    let billed = |long: Option<u64>| {
        let mut r = record(1, marked("claude-opus-5"), None);
        r.usage = Some(Usage {
            input: 10,
            cache_write: 1000,
            cache_write_1h: long,
            ..Usage::default()
        });
        analyze(vec![r]).calibration.unwrap().billed.unwrap()
    };
    assert_eq!(billed(None), 10.0 + 1000.0 * 1.25);
    assert_eq!(billed(Some(400)), 10.0 + 600.0 * 1.25 + 400.0 * 2.0);
}

/// The diagnostics sample read as `session` reads a trace, `original` alone.
fn sample_report() -> SessionReport {
    let reader = toolprism::trace::open(SAMPLE, &toolprism::trace::TraceOptions::default())
        .expect("the sample opens");
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(&[Strategy::Original], &Settings::default(), &counter, None);
    let (info, read) =
        toolprism::session::analyse_trace(reader, SAMPLE, &mut analyzer, &mut |_| {});
    read.expect("the sample is read");
    analyzer.finish(info)
}

/// The session view's turn pane shows the provider's diagnosis beside toolprism's.
#[test]
fn the_turn_pane_shows_the_diagnosis() {
    let report = sample_report();
    let lines: Vec<String> = toolprism::tui::session::turn_detail(&report, 6, &[true])
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert!(
        lines.contains(
            &"diagnosis: provider: system_changed (1,084 missed); toolprism: none since turn 6 (DIFFERENT part)"
                .to_owned()
        ),
        "{lines:#?}"
    );
}

/// The session view's header gives the second agreement figure beside the first.
#[test]
fn the_session_header_has_the_diagnosis_figure() {
    let report = sample_report();
    let view = toolprism::tui::session::SessionView::build(&report, &[true]);
    assert!(
        view.header
            .iter()
            .any(|p| p == "provider diagnosis 4/5 same part (80%)"),
        "{:?}",
        view.header
    );
}

/// A model the tables do not name is listed in the text report's header.
#[test]
fn the_text_header_names_unknown_models() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let line = json!({"request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
        "body": marked("claude-opus-9")}, "response": {"status_code": 200,
        "body": {"type": "message", "usage": {"input_tokens": 5,
        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}});
    std::fs::write(&path, format!("{line}\n")).unwrap();
    let text = stdout_of(&["session", &path.to_string_lossy()]);
    assert!(
        text.contains("unknown models: claude-opus-9 (1 turn): not in toolprism's tables, so minimum, price and multipliers unknown; modelled with a 1,024-token minimum and reads at 0.1, no price"),
        "{text}"
    );
}
