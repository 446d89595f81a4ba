//! Loading traces: every format, checked against what the test reads from the samples itself.

use std::io::Write;

use serde_json::Value;
use toolprism::trace::{
    self, RecordBody, TraceFormat, TraceOptions, TraceReader, TraceRecord, Usage,
};

fn sample(name: &str) -> String {
    format!("{}/samples/traces/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn open(path: &str) -> TraceReader {
    trace::open(path, &TraceOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn open_skipping(path: &str) -> TraceReader {
    trace::open(path, &TraceOptions { skip_bad: true }).unwrap_or_else(|e| panic!("{e}"))
}

/// All records, panicking on the first error.
fn records(reader: &mut TraceReader) -> Vec<TraceRecord> {
    reader
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// The sample's lines as JSON, with their 1-based line numbers (read here, not by the library).
fn json_lines(path: &str) -> Vec<(usize, Value)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, serde_json::from_str(l).unwrap()))
        .collect()
}

fn tool_names(record: &TraceRecord) -> Vec<String> {
    let RecordBody::Request(body) = &record.body else {
        panic!("{} is a stub", record.source)
    };
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn usage(input: u64, cache_write: u64, cache_read: u64) -> Option<Usage> {
    Some(Usage {
        input,
        cache_write,
        cache_read,
    })
}

fn is_model_call(record: &Value) -> bool {
    let request = &record["request"];
    let url = request["url"].as_str().unwrap();
    let path = url.split('?').next().unwrap();
    request["method"] == "POST" && path.ends_with("/v1/messages")
}

#[test]
fn claude_trace_session() {
    let path = sample("claude-code-mcp-reconnect.jsonl");
    let lines = json_lines(&path);
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::ClaudeTrace);
    assert_eq!(reader.compression(), None);
    let got = records(&mut reader);

    // Turns: the model calls, in file order, named by line.
    let expected: Vec<&(usize, Value)> = lines.iter().filter(|(_, r)| is_model_call(r)).collect();
    assert_eq!(got.len(), expected.len());
    assert_eq!(got.len(), 9);
    for (record, (line, raw)) in got.iter().zip(&expected) {
        assert_eq!(record.source, format!("line {line}"));
        assert_eq!(record.url.as_deref(), raw["request"]["url"].as_str());
        assert_eq!(record.method.as_deref(), Some("POST"));
        let RecordBody::Request(body) = &record.body else {
            panic!("stub")
        };
        assert_eq!(body, &raw["request"]["body"]);
        // request.timestamp is epoch seconds with a fraction.
        let seconds = raw["request"]["timestamp"].as_f64().unwrap();
        assert_eq!(record.time_ms, Some((seconds * 1000.0).round() as i64));
        assert_eq!(
            record.timestamp,
            Some(raw["request"]["timestamp"].to_string())
        );
        assert_eq!(
            record.status,
            raw["response"]["status_code"].as_u64().map(|s| s as u16)
        );
        assert_eq!(record.orphan, raw["response"].is_null());
        assert_eq!(
            record.agent_id.as_deref(),
            raw["request"]["headers"]["x-claude-code-agent-id"].as_str()
        );
    }

    // Ignored: the GET and the count_tokens call, with reasons.
    let ignored: Vec<(&str, Option<&str>, &str)> = reader
        .ignored()
        .iter()
        .map(|i| (i.source.as_str(), i.method.as_deref(), i.reason.as_str()))
        .collect();
    assert_eq!(
        ignored,
        [
            ("line 2", Some("GET"), "GET"),
            ("line 4", Some("POST"), "count_tokens call")
        ]
    );
    assert_eq!(
        reader.ignored()[1].url.as_deref(),
        Some("https://api.anthropic.com/v1/messages/count_tokens?beta=true")
    );
    assert_eq!(reader.skipped(), 0);
    assert_eq!(reader.torn_last_line(), None);

    // Usage as the sample's responses state it: JSON bodies, and SSE streams whose
    // message_start carries the figures.
    let usages: Vec<Option<Usage>> = got.iter().map(|r| r.usage).collect();
    assert_eq!(
        usages,
        [
            usage(8, 0, 0),
            usage(4, 11876, 0),
            usage(3, 212, 11876),
            usage(2710, 6120, 0),
            usage(3, 305, 12088),
            usage(3, 12590, 0),
            None,
            usage(3, 148, 12590),
            None,
        ]
    );

    // The sub-agent's thread, the overloaded call, the orphan.
    let agents: Vec<Option<&str>> = got.iter().map(|r| r.agent_id.as_deref()).collect();
    assert_eq!(agents.iter().filter(|a| a.is_some()).count(), 1);
    assert_eq!(agents[3], Some("agent_7f3c91d2"));
    let failed: Vec<&str> = got
        .iter()
        .filter(|r| r.failed())
        .map(|r| r.source.as_str())
        .collect();
    assert_eq!(failed, ["line 9", "line 11"]);
    assert_eq!(got[6].status, Some(529));
    assert!(got[8].orphan && got[8].status.is_none());

    // The MCP server's tools came back in another order after the reconnect (line 8).
    let before = tool_names(&got[4]);
    let after = tool_names(&got[5]);
    assert_ne!(before, after);
    let mut sorted_before = before.clone();
    let mut sorted_after = after.clone();
    sorted_before.sort();
    sorted_after.sort();
    assert_eq!(sorted_before, sorted_after);
}

#[test]
fn cctrace_stub_status_and_camel_case() {
    let path = sample("cctrace-compaction.jsonl");
    let lines = json_lines(&path);
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::ClaudeTrace);
    let got = records(&mut reader);
    assert_eq!(got.len(), lines.len());
    assert_eq!(got[1].body, RecordBody::CompactionStub);
    assert!(matches!(got[0].body, RecordBody::Request(_)));
    assert!(got.iter().all(|r| r.status == Some(200) && !r.failed()));
    // Usage from `bodyRaw` streams.
    let usages: Vec<Option<Usage>> = got.iter().map(|r| r.usage).collect();
    assert_eq!(
        usages,
        [usage(4, 11876, 0), usage(5, 0, 11876), usage(3, 212, 11876)]
    );
    // ISO 8601 `request.timestamp`: 2025-06-02 is 20241 days after the epoch.
    let day = 20_241 * 86_400_000;
    let times: Vec<Option<i64>> = got.iter().map(|r| r.time_ms).collect();
    assert_eq!(
        times,
        [
            Some(day + 9 * 3_600_000),
            Some(day + 9 * 3_600_000 + 20 * 60_000),
            Some(day + 9 * 3_600_000 + 21 * 60_000 + 30_250)
        ]
    );
    assert_eq!(
        got[2].timestamp.as_deref(),
        Some("2025-06-02T09:21:30.250Z")
    );
}

/// Write `text` to a file named `name` in a new temporary folder.
fn temp_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    (dir, path.to_str().unwrap().to_owned())
}

#[test]
fn bad_line_is_an_error_naming_file_and_line() {
    let good = std::fs::read_to_string(sample("cctrace-compaction.jsonl")).unwrap();
    let good: Vec<&str> = good.lines().collect();
    let text = format!(
        "{}\n{}\n\n{}\nnot json at all\n{}\n",
        good[0], good[1], good[2], good[0]
    );
    let (_dir, path) = temp_file("trace.jsonl", text.as_bytes());

    let mut reader = open(&path);
    let results: Vec<Result<TraceRecord, String>> = reader
        .by_ref()
        .map(|r| r.map_err(|e| e.to_string()))
        .collect();
    assert_eq!(results.len(), 5);
    assert_eq!(
        results[3].as_ref().unwrap_err(),
        &format!("{path}: line 5: not JSON (expected ident at column 2)")
    );
    let sources: Vec<&str> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|r| r.source.as_str())
        .collect();
    assert_eq!(sources, ["line 1", "line 2", "line 4", "line 6"]);

    let mut reader = open_skipping(&path);
    assert_eq!(records(&mut reader).len(), 4);
    assert_eq!(reader.skipped(), 1);
}
