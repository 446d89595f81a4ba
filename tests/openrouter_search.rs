//! OpenRouter's `openrouter:tool_search` under `search` (STRATEGIES.md section 6): chosen by
//! `search.provider=openrouter`, and by `auto` for a session's turns sent to OpenRouter.

use serde_json::{Value, json};
use toolprism::Settings;
use toolprism::capture::Capture;
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::session::{Analyzer, SessionReport, TraceInfo};
use toolprism::strategy::Strategy;
use toolprism::trace::TraceRecord;

use crate::support::records::record;

fn tools() -> Vec<Value> {
    (0..4)
        .map(|i| {
            json!({"name": format!("mcp__files__tool_{i}"), "description": "Reads a file.",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}})
        })
        .collect()
}

fn messages(model: &str) -> Value {
    json!({"model": model, "max_tokens": 64, "tools": tools(),
        "messages": [{"role": "user", "content": "hi"}]})
}

fn sent_types(capture: &Capture, settings: &Settings) -> (Vec<String>, usize) {
    let projection = toolprism::pipeline::project(capture, Strategy::Search, settings);
    let sent = projection.sent.expect("search sends a list");
    let types = sent
        .iter()
        .filter_map(|t| t.entry(capture).get("type").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    let deferred = sent
        .iter()
        .filter(|t| t.entry(capture).get("defer_loading") == Some(&Value::Bool(true)))
        .count();
    (types, deferred)
}

#[test]
fn the_openrouter_provider_defers_behind_its_server_tool_on_any_model() {
    let mut settings = Settings::default();
    settings.apply("search.provider=openrouter").unwrap();
    // Claude Sonnet 4 has no Anthropic tool search; OpenRouter's runs on any model.
    let capture = Capture::from_value(messages("anthropic/claude-sonnet-4")).unwrap();
    let (types, deferred) = sent_types(&capture, &settings);
    assert_eq!(types, ["openrouter:tool_search"]);
    assert_eq!(deferred, 4);
    let responses = Capture::from_value(json!({"model": "openai/gpt-4o", "input": "hi",
        "tools": [{"type": "function", "name": "mcp__files__read", "parameters": {"type": "object"}}]}))
    .unwrap();
    assert_eq!(
        sent_types(&responses, &settings).0,
        ["function", "openrouter:tool_search"]
    );
    // Chat Completions is not one of its APIs: said so.
    let chat = Capture::from_value(json!({"model": "openai/gpt-4o", "messages": [],
        "tools": [{"type": "function", "function": {"name": "mcp__files__read", "parameters": {"type": "object"}}}]}))
    .unwrap();
    let projection = toolprism::pipeline::project(&chat, Strategy::Search, &settings);
    assert!(
        projection
            .notes
            .iter()
            .any(|n| n.text.contains("search.provider=openrouter")),
        "{:?}",
        projection.notes
    );
}

fn analyze(records: Vec<TraceRecord>) -> SessionReport {
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(&[Strategy::Search], &Settings::default(), &counter, None);
    for record in records {
        analyzer.push(record).unwrap();
    }
    analyzer.finish(TraceInfo::default())
}

#[test]
fn a_session_turn_sent_to_openrouter_searches_with_openrouters_tool() {
    let at = |url: &str, model: &str| {
        let mut r = record(1, messages(model), None);
        r.url = Some(url.into());
        analyze(vec![r]).strategies[0].per_turn[0].clone()
    };
    // Anthropic's own API: Sonnet 4 has no tool search, `search` is refused.
    let direct = at("https://api.anthropic.com/v1/messages", "claude-sonnet-4");
    assert!(direct.error.is_some(), "{direct:?}");
    // Through OpenRouter the same request searches with `openrouter:tool_search`.
    let routed = at(
        "https://openrouter.ai/api/v1/messages",
        "anthropic/claude-sonnet-4",
    );
    assert_eq!(routed.error, None, "{routed:?}");
    assert_eq!(
        routed.status,
        Some(toolprism::projection::Applies::Ok),
        "{routed:?}"
    );
    assert!(routed.context_tokens < routed.tools_tokens, "{routed:?}");
}
