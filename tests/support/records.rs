//! Trace records built in tests, as a trace reader hands them to the session analysis.

use serde_json::Value;
use toolprism::trace::{RecordBody, TraceRecord, Usage};

/// A successful Anthropic Messages call of `body` at line `line`, with the usage its response
/// reported (if any).
pub fn record(line: usize, body: Value, usage: Option<Usage>) -> TraceRecord {
    TraceRecord {
        source: format!("line {line}"),
        timestamp: None,
        time_ms: None,
        method: Some("POST".into()),
        url: Some("https://api.anthropic.com/v1/messages".into()),
        status: Some(200),
        orphan: false,
        body: RecordBody::Request(body),
        body_text: None,
        usage,
        agent_id: None,
        betas: None,
        prefix_answer: None,
    }
}
