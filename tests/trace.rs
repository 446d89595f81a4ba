//! Loading traces: every format, checked against what the test reads from the samples itself.

use std::io::Write;

use serde_json::Value;
use toolprism::trace::{
    self, Compression, RecordBody, TraceFormat, TraceOptions, TraceReader, TraceRecord, Usage,
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
        ..Usage::default()
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

/// The HAR's entries as the test reads them: (1-based index, entry).
fn har_entries(path: &str) -> Vec<(usize, Value)> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, e)| (i + 1, e))
        .collect()
}

#[test]
fn har_order_noise_sse_and_gzip_body() {
    use base64::Engine as _;
    use std::io::Read as _;

    let path = sample("browser-chat.har");
    let entries = har_entries(&path);
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::Har);
    let got = records(&mut reader);

    // Model calls: POSTs to chat/completions, ordered by startedDateTime (ISO text sorts as time
    // here: every entry is written in the same zone and precision).
    let mut calls: Vec<&(usize, Value)> = entries
        .iter()
        .filter(|(_, e)| {
            e["request"]["method"] == "POST"
                && e["request"]["url"]
                    .as_str()
                    .unwrap()
                    .ends_with("/chat/completions")
        })
        .collect();
    calls.sort_by_key(|(_, e)| e["startedDateTime"].as_str().unwrap().to_owned());
    let sources: Vec<String> = calls.iter().map(|(i, _)| format!("entry {i}")).collect();
    assert_eq!(
        got.iter().map(|r| r.source.clone()).collect::<Vec<_>>(),
        sources
    );
    assert_eq!(sources, ["entry 3", "entry 2", "entry 5"]);

    // Bodies: plain text, and base64 of gzip for entry 5 (decoded here with the crates directly).
    for (record, (_, entry)) in got.iter().zip(&calls) {
        let post = &entry["request"]["postData"];
        let text = post["text"].as_str().unwrap();
        let expected: Value = if post["encoding"] == "base64" {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .unwrap();
            assert_eq!(&bytes[..2], &[0x1f, 0x8b]);
            let mut json = String::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_string(&mut json)
                .unwrap();
            serde_json::from_str(&json).unwrap()
        } else {
            serde_json::from_str(text).unwrap()
        };
        assert_eq!(record.body, RecordBody::Request(expected));
        assert_eq!(
            record.timestamp.as_deref(),
            entry["startedDateTime"].as_str()
        );
        assert_eq!(record.status, Some(200));
        assert!(!record.failed());
    }
    // 2025-06-01T15:06:30.004Z
    let day = 20_240 * 86_400_000;
    assert_eq!(
        got[0].time_ms,
        Some(day + 15 * 3_600_000 + 6 * 60_000 + 30_004)
    );

    // Usage: JSON body; SSE (the last chunk's usage); base64 JSON.
    let usages: Vec<Option<Usage>> = got.iter().map(|r| r.usage).collect();
    assert_eq!(
        usages,
        [usage(540, 0, 0), usage(612, 0, 512), usage(705, 0, 640)]
    );

    // Everything else is listed with a reason, in the order read.
    let ignored: Vec<(&str, &str)> = reader
        .ignored()
        .iter()
        .map(|i| (i.source.as_str(), i.reason.as_str()))
        .collect();
    assert_eq!(ignored.len(), entries.len() - calls.len());
    assert_eq!(
        ignored,
        [
            ("entry 1", "GET"),
            ("entry 4", "embeddings"),
            ("entry 7", "OPTIONS"),
            ("entry 6", "not a model call"),
        ]
    );
}

#[test]
fn codex_responses_wrapped_with_hosted_and_loaded_tool() {
    let path = sample("codex-responses-wrapped.jsonl");
    let lines = json_lines(&path);
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::WrappedJsonl);
    let got = records(&mut reader);
    let posts: Vec<&(usize, Value)> = lines
        .iter()
        .filter(|(_, l)| l["request"]["method"] == "POST")
        .collect();
    assert_eq!(got.len(), posts.len());
    for (record, (line, raw)) in got.iter().zip(&posts) {
        assert_eq!(record.source, format!("line {line}"));
        // The body is a string holding JSON.
        let body: Value = serde_json::from_str(raw["request"]["body"].as_str().unwrap()).unwrap();
        assert_eq!(record.body, RecordBody::Request(body));
        assert_eq!(record.timestamp.as_deref(), raw["timestamp"].as_str());
        assert!(record.time_ms.is_some());
        assert!(!record.orphan);
    }
    assert_eq!(
        reader
            .ignored()
            .iter()
            .map(|i| (i.source.as_str(), i.reason.as_str()))
            .collect::<Vec<_>>(),
        [("line 3", "GET")]
    );
    // The hosted tool is there on every turn; the tool loaded through tool_search from turn 3.
    for record in &got {
        let RecordBody::Request(body) = &record.body else {
            panic!()
        };
        let tools = body["tools"].as_array().unwrap();
        assert!(
            tools
                .iter()
                .any(|t| t == &serde_json::json!({"type": "web_search"}))
        );
    }
    let loaded: Vec<bool> = got
        .iter()
        .map(|r| {
            let RecordBody::Request(body) = &r.body else {
                panic!()
            };
            body["tools"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["name"] == "mcp__linear__create_issue")
        })
        .collect();
    assert_eq!(loaded, [false, false, true, true]);
    // response.completed usage.
    let usages: Vec<Option<Usage>> = got.iter().map(|r| r.usage).collect();
    assert_eq!(
        usages,
        [
            usage(3190, 0, 0),
            usage(3315, 0, 3072),
            usage(3460, 0, 3200),
            usage(3551, 0, 3456)
        ]
    );
}

#[test]
fn torn_last_line_is_reported_not_an_error() {
    let path = sample("bare-torn.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.ends_with('\n'));
    let complete = text.lines().count() - 1;
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::BareJsonl);
    let got = records(&mut reader);
    assert_eq!(got.len(), complete);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["line 1", "line 2", "line 3"]
    );
    assert!(
        got.iter()
            .all(|r| r.url.is_none() && r.usage.is_none() && !r.failed())
    );
    assert_eq!(reader.torn_last_line(), Some("line 4"));
    assert_eq!(reader.skipped(), 0);

    // A complete last line without a newline is no torn line.
    let whole: Vec<&str> = text.lines().take(2).collect();
    let (_dir, path) = temp_file("t.jsonl", whole.join("\n").as_bytes());
    let mut reader = open(&path);
    assert_eq!(records(&mut reader).len(), 2);
    assert_eq!(reader.torn_last_line(), None);
}

#[test]
fn folder_in_natural_name_order_whatever_the_file_times() {
    let dir = tempfile::tempdir().unwrap();
    let from = sample("numbered");
    let mut names: Vec<String> = std::fs::read_dir(&from)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    for name in &names {
        std::fs::copy(format!("{from}/{name}"), dir.path().join(name)).unwrap();
    }
    std::fs::create_dir(dir.path().join("old")).unwrap();
    // File times in the reverse of the name order: 10.json oldest, 1.json newest.
    let base = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_750_000_000);
    for (age, name) in ["1.json", "2.json", "10.json"].iter().enumerate() {
        let file = std::fs::File::options()
            .write(true)
            .open(dir.path().join(name))
            .unwrap();
        file.set_modified(base - std::time::Duration::from_secs(600 * age as u64))
            .unwrap();
    }
    let path = dir.path().to_str().unwrap();
    let mut reader = open(path);
    assert_eq!(reader.format(), TraceFormat::Folder);
    let got = records(&mut reader);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["1.json", "2.json", "10.json"]
    );
    for record in &got {
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(&record.source)).unwrap(),
        )
        .unwrap();
        assert_eq!(record.body, RecordBody::Request(expected));
    }
    let ignored: Vec<(&str, &str)> = reader
        .ignored()
        .iter()
        .map(|i| (i.source.as_str(), i.reason.as_str()))
        .collect();
    assert_eq!(
        ignored,
        [
            ("README.txt", "not a request file (*.json)"),
            ("old", "not a file")
        ]
    );
}

#[test]
fn gzip_and_zstd_containers_are_read_through() {
    let plain_path = sample("claude-code-mcp-reconnect.jsonl");
    let plain = std::fs::read(&plain_path).unwrap();
    let expected = records(&mut open(&plain_path));

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).unwrap();
    let (_g, gz_path) = temp_file("trace.jsonl.gz", &gz.finish().unwrap());
    let mut reader = open(&gz_path);
    assert_eq!(reader.format(), TraceFormat::ClaudeTrace);
    assert_eq!(reader.compression(), Some(Compression::Gzip));
    assert_eq!(records(&mut reader), expected);
    assert_eq!(reader.ignored().len(), 2);

    // zstd around a HAR, under a name that says nothing.
    let har_path = sample("browser-chat.har");
    let har = std::fs::read(&har_path).unwrap();
    let expected = records(&mut open(&har_path));
    let (_z, zst_path) = temp_file("capture.bin", &zstd::encode_all(&har[..], 3).unwrap());
    let mut reader = open(&zst_path);
    assert_eq!(reader.format(), TraceFormat::Har);
    assert_eq!(reader.compression(), Some(Compression::Zstd));
    assert_eq!(records(&mut reader), expected);

    // A gzip stream cut short (its writer killed): the lines before the cut are read, the
    // line it falls in is reported torn.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).unwrap();
    let bytes = gz.finish().unwrap();
    let (_c, cut_path) = temp_file("cut.gz", &bytes[..bytes.len() / 2]);
    let expected = records(&mut open(&plain_path));
    let mut reader = open(&cut_path);
    let got = records(&mut reader);
    assert!(!got.is_empty() && got.len() < expected.len());
    assert_eq!(got, expected[..got.len()]);
    let torn: usize = reader
        .torn_last_line()
        .and_then(|t| t.strip_prefix("line "))
        .and_then(|n| n.parse().ok())
        .unwrap();
    let last: usize = got.last().unwrap().source[5..].parse().unwrap();
    assert!(torn > last, "{torn} {last}");
    assert!(
        torn < expected.last().unwrap().source[5..]
            .parse::<usize>()
            .unwrap()
            + 1
    );
}

/// What `open` and the records say about a file, errors as text.
fn outcome(
    path: &str,
    skip_bad: bool,
) -> Result<(TraceFormat, Vec<Result<String, String>>), String> {
    let reader = trace::open(path, &TraceOptions { skip_bad }).map_err(|e| e.to_string())?;
    let format = reader.format();
    let items = reader
        .map(|r| r.map(|r| r.source).map_err(|e| e.to_string()))
        .collect();
    Ok((format, items))
}

#[test]
fn single_bodies_are_one_turn_traces() {
    // The repository's pretty-printed captures: one record named by the file.
    for name in ["small.json", "leanctx-chat.json", "mcp-tools-list.json"] {
        let path = format!("{}/samples/{name}", env!("CARGO_MANIFEST_DIR"));
        // mcp-tools-list.json starts with a byte-order mark and has CRLF line ends.
        let text = std::fs::read_to_string(&path).unwrap();
        let expected: Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).unwrap();
        let mut reader = open(&path);
        assert_eq!(reader.format(), TraceFormat::Single, "{name}");
        let got = records(&mut reader);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].source, path);
        assert_eq!(got[0].body, RecordBody::Request(expected));
        assert!(got[0].url.is_none() && got[0].usage.is_none() && !got[0].failed());
    }
    // Compact on one line, and pretty-printed with more than a bracket on the first line.
    let body = r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"a","input_schema":{"type":"object"}}]}"#;
    let value: Value = serde_json::from_str(body).unwrap();
    let spread = body.replace(",\"", ",\n  \"");
    for text in [body.to_owned(), format!("\u{feff}\n{body}\n\n"), spread] {
        let (_dir, path) = temp_file("capture.txt", text.as_bytes());
        let mut reader = open(&path);
        assert_eq!(reader.format(), TraceFormat::Single, "{text}");
        assert_eq!(
            records(&mut reader)[0].body,
            RecordBody::Request(value.clone())
        );
    }
    // A broken document is a document error, as for a single capture.
    let (_dir, path) = temp_file(
        "broken.json",
        b"{\n  \"model\": \"m\",\n  \"messages\": [}\n",
    );
    assert_eq!(
        outcome(&path, false).unwrap_err(),
        format!("{path}: invalid JSON at line 3, column 16: expected value")
    );
    let (_dir, path) = temp_file("broken.json", b"{\"model\": \"m\",\n  \"messages\": [}\n");
    assert_eq!(
        outcome(&path, false).unwrap_err(),
        format!("{path}: invalid JSON at line 2, column 16: expected value")
    );
    // A document that is no request: the single-capture error.
    let (_dir, path) = temp_file("other.json", b"{\"hello\": 1}\n");
    assert_eq!(
        outcome(&path, false).unwrap_err(),
        format!(
            "{path}: not a known capture shape: no `messages`, `input`, `contents` or `tools` \
             (expected an Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, Gemini \
             generateContent or Bedrock Converse request, or an MCP tools/list result)"
        )
    );
    let (_dir, path) = temp_file("empty.jsonl", b"\n  \n");
    assert_eq!(
        outcome(&path, false).unwrap_err(),
        format!("{path}: empty: no JSON in it")
    );
}

#[test]
fn records_without_a_usable_body() {
    let body = r#"{"model":"m","messages":[],"tools":[]}"#;
    let url = "https://api.anthropic.com/v1/messages";
    let lines = [
        format!(
            r#"{{"request":{{"method":"POST","url":"{url}","body":{body}}},"response":null,"logged_at":"2025-06-01T00:00:00Z"}}"#
        ),
        format!(
            r#"{{"request":{{"method":"POST","url":"{url}"}},"response":null,"logged_at":"2025-06-01T00:00:01Z"}}"#
        ),
        format!(
            r#"{{"request":{{"method":"POST","url":"{url}","body":"{{\"model\":"}},"logged_at":"2025-06-01T00:00:02Z"}}"#
        ),
        format!(
            r#"{{"request":{{"method":"POST","url":"{url}","body":{{"model":"m"}}}},"logged_at":"2025-06-01T00:00:03Z"}}"#
        ),
        format!(
            r#"{{"request":{{"method":"POST","url":"{url}","body":[1]}},"logged_at":"2025-06-01T00:00:04Z"}}"#
        ),
        "[1, 2]".to_owned(),
        r#"{"request":{"method":"GET","url":"https://api.anthropic.com/v1/models"},"response":{"status_code":200},"logged_at":"2025-06-01T00:00:05Z"}"#
            .to_owned(),
        format!(
            r#"{{"request":{{"method":"POST","url":"{url}","body":{body}}},"logged_at":"2025-06-01T00:00:06Z"}}"#
        ),
    ];
    let (_dir, path) = temp_file("trace.jsonl", (lines.join("\n") + "\n").as_bytes());
    let (format, items) = outcome(&path, false).unwrap();
    assert_eq!(format, TraceFormat::ClaudeTrace);
    let expected: Vec<Result<String, String>> = vec![
        Ok("line 1".into()),
        Err(format!("{path}: line 2: no request body")),
        Err(format!(
            "{path}: line 3: the body is a string that is not JSON (invalid JSON at line 1, \
             column 9: EOF while parsing a value)"
        )),
        Err(format!(
            "{path}: line 4: the body is not a request (no `messages`, `input`, `contents` or `tools`)"
        )),
        Err(format!(
            "{path}: line 5: the body is an array, not an object"
        )),
        Err(format!(
            "{path}: line 6: the record is an array, not an object"
        )),
        Ok("line 8".into()),
    ];
    assert_eq!(items, expected);

    let mut reader = open_skipping(&path);
    let got = records(&mut reader);
    assert_eq!(got.len(), 2);
    assert_eq!(reader.skipped(), 5);
    assert_eq!(reader.ignored().len(), 1);
    // Line 1's `response: null` is an orphan; so is line 8, a claude-trace record with none.
    assert!(got.iter().all(|r| r.orphan && r.failed()));
}

#[test]
fn a_bad_first_line_does_not_hide_the_format() {
    let good = std::fs::read_to_string(sample("codex-responses-wrapped.jsonl")).unwrap();
    let good: Vec<&str> = good.lines().collect();
    let text = format!(
        "{{\"timestamp\": \"2025-06-03T08:14:0\n{}\n{}\n",
        good[0], good[1]
    );
    let (_dir, path) = temp_file("trace.jsonl", text.as_bytes());
    let (format, items) = outcome(&path, false).unwrap();
    assert_eq!(format, TraceFormat::WrappedJsonl);
    assert_eq!(
        items,
        vec![
            Err(format!(
                "{path}: line 1: not JSON (EOF while parsing a string at column 33)"
            )),
            Ok("line 2".into()),
            Ok("line 3".into()),
        ]
    );
    let (format, items) = outcome(&path, true).unwrap();
    assert_eq!(format, TraceFormat::WrappedJsonl);
    assert_eq!(items, vec![Ok("line 2".into()), Ok("line 3".into())]);
}

#[test]
fn har_entry_without_a_body() {
    let har = r#"{"log":{"version":"1.2","entries":[
        {"startedDateTime":"2025-06-01T10:00:01Z","request":{"method":"POST","url":"https://api.openai.com/v1/responses","headers":[]},"response":{"status":0,"content":{}}},
        {"startedDateTime":"2025-06-01T10:00:00Z","request":{"method":"POST","url":"https://api.openai.com/v1/responses","headers":[{"name":"Content-Encoding","value":"br"}],"postData":{"text":"\u001b\u0000"}},"response":{"status":200,"content":{}}},
        {"startedDateTime":"2025-06-01T10:00:02Z","request":{"method":"POST","url":"https://api.openai.com/v1/responses","headers":[],"postData":{"text":"{\"input\":\"hi\",\"tools\":[]}"}},"response":{"status":0,"content":{}}}
    ]}}"#;
    let (_dir, path) = temp_file("capture.har", har.as_bytes());
    let (format, items) = outcome(&path, false).unwrap();
    assert_eq!(format, TraceFormat::Har);
    assert_eq!(
        items,
        vec![
            Err(format!(
                "{path}: entry 2: request body is not JSON (content-encoding br is not supported)"
            )),
            Err(format!(
                "{path}: entry 1: no request body (`request.postData.text`)"
            )),
            Ok("entry 3".into()),
        ]
    );
    // Status 0: the request never got a response.
    let got = records(&mut open_skipping(&path));
    assert!(got[0].orphan && got[0].status.is_none() && got[0].failed());
}

#[test]
fn readers_can_move_to_a_worker_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<TraceReader>();
    let path = sample("codex-responses-wrapped.jsonl");
    let reader = open(&path);
    let count = std::thread::spawn(move || reader.count()).join().unwrap();
    assert_eq!(count, 4);
}

#[test]
fn one_record_documents() {
    let good = std::fs::read_to_string(sample("codex-responses-wrapped.jsonl")).unwrap();
    let first = good.lines().next().unwrap();
    let raw: Value = serde_json::from_str(first).unwrap();
    // One line (after a blank one): named by its line.
    let (_dir, path) = temp_file("one.jsonl", format!("\n{first}\n\n").as_bytes());
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::WrappedJsonl);
    let got = records(&mut reader);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].source, "line 2");
    assert_eq!(got[0].url.as_deref(), raw["request"]["url"].as_str());
    // Pretty-printed: named by the file.
    let pretty = serde_json::to_string_pretty(&raw).unwrap();
    let (_dir, path) = temp_file("one.json", pretty.as_bytes());
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::WrappedJsonl);
    assert_eq!(records(&mut reader)[0].source, path);
}

#[test]
fn har_zstd_request_body_and_agent_header() {
    use base64::Engine as _;
    let body = serde_json::json!({"model": "claude-sonnet-4-5", "max_tokens": 100,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}}]});
    let packed = zstd::encode_all(body.to_string().as_bytes(), 3).unwrap();
    let response = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":9,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":4100}}}\n\n";
    let har = serde_json::json!({"log": {"version": "1.2", "entries": [{
        "startedDateTime": "2025-06-01T10:00:00.000+02:00",
        "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
            "headers": [{"name": "Content-Encoding", "value": "zstd"},
                        {"name": "X-Claude-Code-Agent-Id", "value": "agent_b"}],
            "postData": {"mimeType": "application/json", "encoding": "base64",
                "text": base64::engine::general_purpose::STANDARD.encode(&packed)}},
        "response": {"status": 200, "content": {"mimeType": "text/event-stream",
            "encoding": "base64",
            "text": base64::engine::general_purpose::STANDARD.encode(response)}}
    }]}});
    let (_dir, path) = temp_file("x.har", har.to_string().as_bytes());
    let got = records(&mut open(&path));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body, RecordBody::Request(body));
    assert_eq!(got[0].agent_id.as_deref(), Some("agent_b"));
    assert_eq!(got[0].usage, usage(9, 0, 4100));
    // 10:00 at +02:00 is 08:00 UTC.
    assert_eq!(got[0].time_ms, Some(20_240 * 86_400_000 + 8 * 3_600_000));
}

/// `-` reads standard input: run this test binary again as a child with the trace on its stdin.
#[test]
fn standard_input() {
    if std::env::var_os("TOOLPRISM_TRACE_STDIN_CHILD").is_some() {
        let reader = trace::open("-", &TraceOptions::default()).unwrap();
        print!("{}:", reader.format().id());
        for record in reader {
            match record {
                Ok(r) => print!(" {}", r.source),
                Err(e) => print!(" error {e}"),
            }
        }
        return;
    }
    let run = |input: &[u8]| {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "trace::standard_input",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("TOOLPRISM_TRACE_STDIN_CHILD", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        let out = child.wait_with_output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = std::fs::read(sample("codex-responses-wrapped.jsonl")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).unwrap();
    let packed = gz.finish().unwrap();
    for input in [plain.clone(), packed] {
        let text = run(&input);
        assert!(
            text.contains("jsonl-wrapped: line 1 line 2 line 4 line 5"),
            "{text}"
        );
    }
    let text = run(b"{\"model\":\"m\",\"messages\":[]}\nnot json\n");
    assert!(
        text.contains("jsonl: line 1 error <stdin>: line 2: not JSON (expected ident at column 2)"),
        "{text}"
    );
}

// ---- VCR cassettes, other providers' URLs, MCP over HTTP, records that are not requests ----

/// A cassette sample read with the YAML crate directly (not through the trace reader): its
/// interactions as JSON.
fn cassette_interactions(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let yaml: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    let mut found = Vec::new();
    for item in yaml["interactions"].as_sequence().unwrap() {
        // Plain scalars only: the samples' `!!binary` bodies are checked apart.
        let text = serde_norway::to_string(item).unwrap();
        let plain: serde_norway::Value = serde_norway::from_str(&text).unwrap();
        found.push(serde_json::to_value(strip_tags(plain)).unwrap());
    }
    found
}

fn strip_tags(value: serde_norway::Value) -> serde_norway::Value {
    use serde_norway::Value as Y;
    match value {
        Y::Tagged(t) => Y::String(format!("<{}>", t.tag)),
        Y::Sequence(items) => Y::Sequence(items.into_iter().map(strip_tags).collect()),
        Y::Mapping(m) => Y::Mapping(m.into_iter().map(|(k, v)| (k, strip_tags(v))).collect()),
        other => other,
    }
}

fn ignored_of(reader: &TraceReader) -> Vec<(String, String)> {
    reader
        .ignored()
        .iter()
        .map(|i| (i.source.clone(), i.reason.clone()))
        .collect()
}

fn ignored(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn vcrpy_cassette_binary_bodies_and_gzip_response() {
    use base64::Engine as _;
    let path = sample("vcrpy-anthropic.yaml");
    let interactions = cassette_interactions(&path);
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::Cassette);
    assert_eq!(reader.format().id(), "vcr-cassette");
    let got = records(&mut reader);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["interaction 1", "interaction 4"]
    );
    assert_eq!(
        ignored_of(&reader),
        ignored(&[("interaction 2", "GET"), ("interaction 3", "embeddings")])
    );
    // Turn 1: the body string as written in the cassette, parsed.
    let sent: Value =
        serde_json::from_str(interactions[0]["request"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(got[0].body, RecordBody::Request(sent));
    assert_eq!(
        got[0].url.as_deref(),
        Some("https://api.anthropic.com/v1/messages")
    );
    assert_eq!(got[0].method.as_deref(), Some("POST"));
    assert_eq!(got[0].status, Some(200));
    assert_eq!(got[0].usage, usage(12, 1480, 0));
    assert_eq!(tool_names(&got[0]), ["read_file", "grep"]);
    // Turn 2: a `!!binary` request body, and a response kept gzip-compressed.
    let text = std::fs::read_to_string(&path).unwrap();
    let yaml: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    // The parser gives a `!!binary` scalar as its base64 text.
    assert!(text.contains("body: !!binary |"));
    let binary = |v: &serde_norway::Value| -> Vec<u8> {
        let b64: String = v.as_str().unwrap().split_whitespace().collect();
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap()
    };
    let request = binary(&yaml["interactions"][3]["request"]["body"]);
    assert_eq!(
        got[1].body,
        RecordBody::Request(serde_json::from_slice(&request).unwrap())
    );
    let response = binary(&yaml["interactions"][3]["response"]["body"]["string"]);
    assert_eq!(&response[..2], [0x1f, 0x8b]);
    assert_eq!(got[1].usage, usage(9, 210, 1480));
    assert_eq!(tool_names(&got[1]), ["read_file", "grep", "edit_file"]);

    // The same cassette gzipped (`.yaml.gz`), and as vcrpy's JSON serializer writes it.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let (_g, gz_path) = temp_file("cassette.yaml.gz", &gz.finish().unwrap());
    let mut reader = open(&gz_path);
    assert_eq!(reader.compression(), Some(Compression::Gzip));
    assert_eq!(reader.format(), TraceFormat::Cassette);
    assert_eq!(records(&mut reader), got);
    let json = serde_json::json!({"interactions": [interactions[0]], "version": 1});
    let (_j, json_path) = temp_file("cassette.json", json.to_string().as_bytes());
    let mut reader = open(&json_path);
    assert_eq!(reader.format(), TraceFormat::Cassette);
    assert_eq!(records(&mut reader), got[..1]);
}

#[test]
fn a_cassette_kept_as_parallel_request_and_response_lists_reads_as_its_interactions() {
    // LangChain's persister writes vcrpy's cassette as vcrpy holds it: `requests[]` beside
    // `responses[]`, gzipped. The same interactions in that form read the same.
    use serde_norway::Value as Y;
    let path = sample("vcrpy-anthropic.yaml");
    let expected = records(&mut open(&path));
    let text = std::fs::read_to_string(&path).unwrap();
    let yaml: Y = serde_norway::from_str(&text).unwrap();
    let (mut requests, mut responses) = (Vec::new(), Vec::new());
    for item in yaml["interactions"].as_sequence().unwrap() {
        requests.push(item["request"].clone());
        responses.push(item["response"].clone());
    }
    let mut parallel = serde_norway::Mapping::new();
    parallel.insert(Y::from("requests"), Y::Sequence(requests));
    parallel.insert(Y::from("responses"), Y::Sequence(responses));
    let written = serde_norway::to_string(&Y::Mapping(parallel)).unwrap();
    assert!(written.starts_with("requests:"), "{written}");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(written.as_bytes()).unwrap();
    let (_g, gz_path) = temp_file("parallel.yaml.gz", &gz.finish().unwrap());
    let mut reader = open(&gz_path);
    assert_eq!(reader.format(), TraceFormat::Cassette);
    assert_eq!(records(&mut reader), expected);
    assert_eq!(
        ignored_of(&reader),
        ignored(&[("interaction 2", "GET"), ("interaction 3", "embeddings")])
    );
}

#[test]
fn a_cassette_turn_is_timed_by_its_response_date_header() {
    let interaction = |date: &str| {
        format!(
            "- request:\n    method: POST\n    uri: https://api.anthropic.com/v1/messages\n    body: '{{\"model\": \"claude-sonnet-4-5\", \"max_tokens\": 10, \"messages\": [{{\"role\": \"user\", \"content\": \"hi\"}}]}}'\n  response:\n    status: {{code: 200, message: OK}}\n    headers:\n      Date:\n      - {date}\n    body: {{string: '{{\"usage\": {{\"input_tokens\": 8, \"cache_creation_input_tokens\": 0, \"cache_read_input_tokens\": 0}}}}'}}\n"
        )
    };
    let text = format!(
        "interactions:\n{}{}{}version: 1\n",
        interaction("Sun, 01 Jun 2025 12:30:45 GMT"),
        interaction("Sun, 01 Jun 2025 12:47:45 GMT"),
        interaction("not a date")
    );
    let (_t, path) = temp_file("dated.yaml", text.as_bytes());
    let got = records(&mut open(&path));
    let at = (20_240 * 86_400 + 12 * 3_600 + 30 * 60 + 45) * 1000;
    assert_eq!(
        got.iter().map(|r| r.time_ms).collect::<Vec<_>>(),
        [Some(at), Some(at + 17 * 60_000), None]
    );
    assert_eq!(
        got[0].timestamp.as_deref(),
        Some("Sun, 01 Jun 2025 12:30:45 GMT")
    );
    assert_eq!(got[2].timestamp, None);
}

#[test]
fn yaml_that_is_no_cassette_is_named_as_yaml_with_its_keys() {
    let (_t, path) = temp_file("settings.yaml", b"model:\n  name: x\nproviders: [a]\n");
    let error = trace::open(&path, &TraceOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        error,
        format!(
            "{path}: YAML, but not a VCR cassette (no `interactions` list of requests; its top-level keys: model, providers)"
        )
    );
}

#[test]
fn pydantic_ai_parsed_body_gemini_and_anthropic_stream() {
    let path = sample("pydantic-ai-parsed-body.yaml");
    let interactions = cassette_interactions(&path);
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::Cassette);
    let got = records(&mut reader);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["interaction 1", "interaction 3"]
    );
    assert_eq!(
        ignored_of(&reader),
        ignored(&[("interaction 2", "count_tokens call")])
    );
    for (record, index) in got.iter().zip([0, 2]) {
        assert_eq!(
            record.body,
            RecordBody::Request(interactions[index]["request"]["parsed_body"].clone())
        );
    }
    // Gemini's usageMetadata (cached included in its prompt count of 1,212: 188 uncached),
    // and an Anthropic stream.
    assert_eq!(got[0].usage, usage(188, 0, 1024));
    assert_eq!(got[1].usage, usage(25, 0, 2048));
    assert!(got.iter().all(|r| r.timestamp.is_none() && !r.failed()));
}

#[test]
fn go_vcr_cassette_bedrock_converse_and_failed_call() {
    let path = sample("go-vcr-bedrock-chat.yaml");
    let interactions = cassette_interactions(&path);
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::Cassette);
    let got = records(&mut reader);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["interaction 1", "interaction 3", "interaction 4"]
    );
    assert_eq!(ignored_of(&reader), ignored(&[("interaction 2", "GET")]));
    for (record, index) in got.iter().zip([0, 2, 3]) {
        let request = &interactions[index]["request"];
        let sent: Value = serde_json::from_str(request["body"].as_str().unwrap()).unwrap();
        assert_eq!(record.body, RecordBody::Request(sent));
        assert_eq!(record.url.as_deref(), request["url"].as_str());
        let code = interactions[index]["response"]["code"].as_u64().unwrap();
        assert_eq!(record.status.map(u64::from), Some(code));
    }
    assert!(!got[0].failed() && got[1].failed() && !got[2].failed());
    assert_eq!(got[0].usage, usage(310, 0, 0));
    assert_eq!(got[1].usage, None);
    assert_eq!(got[2].usage, usage(61, 0, 0));
}

#[test]
fn mcp_over_streamable_http_in_a_cassette_a_har_and_alone() {
    let path = sample("mcp-streamable-http.yaml");
    let interactions = cassette_interactions(&path);
    let mut reader = open(&path);
    let got = records(&mut reader);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["interaction 3"]
    );
    assert_eq!(
        ignored_of(&reader),
        ignored(&[
            (
                "interaction 1",
                "MCP initialize: the server docs 1, not a model call"
            ),
            ("interaction 2", "MCP notifications/initialized"),
            ("interaction 4", "MCP tools/call"),
        ])
    );
    // The answer's event payload is the body: a JSON-RPC response that loads as a tools/list.
    let stream = interactions[2]["response"]["body"]["string"]
        .as_str()
        .unwrap();
    let payload = stream
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap();
    let answer: Value = serde_json::from_str(payload).unwrap();
    assert_eq!(got[0].body, RecordBody::Request(answer.clone()));
    let RecordBody::Request(body) = got[0].body.clone() else {
        unreachable!()
    };
    let capture = toolprism::Capture::from_value(body).unwrap();
    assert_eq!(capture.shape(), toolprism::Shape::McpToolsList);
    assert_eq!(
        capture.tool_names().collect::<Vec<_>>(),
        ["search_docs", "fetch_page"]
    );

    // The same answer in a HAR entry, as JSON this time; the initialize call is ignored.
    let entry = |n: u32, request: &str, response: &str| {
        serde_json::json!({"startedDateTime": format!("2025-06-01T10:00:0{n}Z"),
            "request": {"method": "POST", "url": "https://mcp.example.com/mcp", "headers": [],
                "postData": {"mimeType": "application/json", "text": request}},
            "response": {"status": 200, "content": {"mimeType": "application/json",
                "text": response}}})
    };
    let har = serde_json::json!({"log": {"version": "1.2", "entries": [
        entry(0, r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#, "{}"),
        entry(1, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, &answer.to_string()),
    ]}});
    let (_h, har_path) = temp_file("mcp.har", har.to_string().as_bytes());
    let mut reader = open(&har_path);
    let got = records(&mut reader);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].source, "entry 2");
    assert_eq!(got[0].body, RecordBody::Request(answer.clone()));
    assert_eq!(
        ignored_of(&reader),
        ignored(&[("entry 1", "MCP initialize")])
    );

    // Alone: the event stream and the JSON-RPC envelope each load like the bare result.
    let sse_path = format!(
        "{}/samples/mcp-tools-list-sse.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut reader = open(&sse_path);
    assert_eq!(reader.format(), TraceFormat::Single);
    assert_eq!(
        records(&mut reader)[0].body,
        RecordBody::Request(answer.clone())
    );
    let (_e, envelope_path) = temp_file("list.json", answer.to_string().as_bytes());
    assert_eq!(
        records(&mut open(&envelope_path))[0].body,
        RecordBody::Request(answer)
    );
    // A stream that holds no tools/list answer is named for what it is.
    let (_s, other) = temp_file("chat.sse", b"data: {\"choices\":[]}\n\ndata: [DONE]\n\n");
    let error = outcome(&other, false).unwrap_err();
    assert!(
        error.starts_with(&format!("{other}: an event stream")),
        "{error}"
    );
}

#[test]
fn an_mcp_listing_beside_model_calls_is_the_servers_list_never_a_turn() {
    // An agent's test cassette: the MCP session's handshake and listing, then a model call,
    // then the tool call (as pydantic-ai's MCP tests record them).
    let mcp = cassette_interactions(&sample("mcp-streamable-http.yaml"));
    let model = cassette_interactions(&sample("vcrpy-anthropic.yaml"));
    let mut interactions = mcp[..3].to_vec();
    interactions.push(model[0].clone());
    interactions.push(mcp[3].clone());
    let cassette = serde_json::json!({"interactions": interactions, "version": 1});
    let (_t, path) = temp_file("agent.json", cassette.to_string().as_bytes());
    let mut reader = open(&path);
    let got = records(&mut reader);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["interaction 4"]
    );
    assert_eq!(tool_names(&got[0]), ["read_file", "grep"]);
    assert_eq!(
        ignored_of(&reader),
        ignored(&[
            (
                "interaction 1",
                "MCP initialize: the server docs 1, not a model call"
            ),
            ("interaction 2", "MCP notifications/initialized"),
            (
                "interaction 3",
                "MCP tools/list: docs 1's list of 2 tools, not a model call"
            ),
            ("interaction 5", "MCP tools/call"),
        ])
    );
    assert_eq!(reader.ignored_total(), 4);
}

#[test]
fn model_calls_of_other_providers_are_turns() {
    let call = |url: &str, body: Value| {
        serde_json::json!({"request": {"method": "POST", "url": url, "body": body},
            "response": {"status_code": 200, "body": {}}})
    };
    let gemini = serde_json::json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [{"functionDeclarations": [{"name": "f"}]}]});
    let converse = serde_json::json!({"messages": [], "toolConfig": {"tools": []}});
    let invoke = serde_json::json!({"anthropic_version": "bedrock-2023-05-31", "messages": [],
        "tools": []});
    let lines = [
        call(
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
            gemini.clone(),
        ),
        call(
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
            gemini.clone(),
        ),
        call(
            "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent",
            gemini.clone(),
        ),
        call(
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse",
            converse.clone(),
        ),
        call(
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1:0/converse-stream",
            converse,
        ),
        call(
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1:0/invoke",
            invoke.clone(),
        ),
        call(
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1:0/invoke-with-response-stream",
            invoke,
        ),
        call(
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.titan-embed-text-v2:0/invoke",
            serde_json::json!({"inputText": "x"}),
        ),
        call(
            "https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:embedContent",
            serde_json::json!({"content": {}}),
        ),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (_d, path) = temp_file("calls.jsonl", text.as_bytes());
    let mut reader = open(&path);
    assert_eq!(reader.format(), TraceFormat::WrappedJsonl);
    let got = records(&mut reader);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        (1..=7).map(|n| format!("line {n}")).collect::<Vec<_>>()
    );
    assert_eq!(got[0].body, RecordBody::Request(gemini));
    assert_eq!(
        ignored_of(&reader),
        ignored(&[("line 8", "embeddings"), ("line 9", "embeddings")])
    );
}

#[test]
fn records_that_are_not_requests_are_named() {
    let transcript = concat!(
        r#"{"type":"summary","summary":"Fix the build","leafUuid":"a1"}"#,
        "\n",
        r#"{"parentUuid":null,"sessionId":"s1","type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#,
        "\n"
    );
    let rollout = concat!(
        r#"{"timestamp":"2025-09-01T10:00:00.000Z","type":"session_meta","payload":{"id":"r1","cwd":"/w"}}"#,
        "\n",
        r#"{"timestamp":"2025-09-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}}"#,
        "\n"
    );
    let item = r#"{"type":"mcp_list_tools","id":"mcpl_1","server_label":"deepwiki","tools":[{"name":"ask","input_schema":{}}]}"#;
    for (text, starts) in [
        (transcript, "a Claude Code session transcript"),
        (rollout, "a Codex session rollout"),
        (item, "an OpenAI Responses `mcp_list_tools` output item"),
        (
            "version: 3\nname: not a cassette\n",
            "YAML, but not a VCR cassette",
        ),
        ("interactions:\n- request: [\n", "invalid YAML at line"),
        (
            "version: 1\ninteractions:\n- request_sample:\n    json: {}\n",
            "a cassette whose interactions are not HTTP requests",
        ),
    ] {
        let (_d, path) = temp_file("record.jsonl", text.as_bytes());
        let error = outcome(&path, false).unwrap_err();
        assert!(error.starts_with(&format!("{path}: {starts}")), "{error}");
        assert_eq!(error.lines().count(), 1, "{error}");
    }
    // A transcript names how to record what it lacks.
    let (_d, path) = temp_file("session.jsonl", transcript.as_bytes());
    let error = outcome(&path, false).unwrap_err();
    assert!(
        error.contains("claude-trace") && error.contains("HAR"),
        "{error}"
    );
}

#[test]
fn litellm_logging_payload_is_read_for_its_tools() {
    let payload = serde_json::json!({
        "id": "chatcmpl-1", "call_type": "acompletion", "model": "gpt-4o-mini",
        "startTime": 1748772000.25, "status": "success",
        "messages": [{"role": "user", "content": "weather?"}],
        "model_parameters": {"temperature": 0.2, "tools": [{"type": "function",
            "function": {"name": "get_weather", "parameters": {"type": "object"}}}]},
        "response": {"object": "chat.completion", "usage": {"prompt_tokens": 57,
            "completion_tokens": 4, "prompt_tokens_details": {"cached_tokens": 0}}}
    });
    for text in [
        serde_json::to_string_pretty(&payload).unwrap(),
        format!("{payload}\n{payload}\n"),
    ] {
        let (_d, path) = temp_file("litellm.json", text.as_bytes());
        let mut reader = open(&path);
        assert_eq!(reader.notes().len(), 1);
        assert!(reader.notes()[0].contains("LiteLLM"));
        let got = records(&mut reader);
        assert!(!got.is_empty());
        let RecordBody::Request(body) = &got[0].body else {
            panic!()
        };
        assert_eq!(body["tools"], payload["model_parameters"]["tools"]);
        assert_eq!(body["messages"], payload["messages"]);
        assert_eq!(got[0].usage, usage(57, 0, 0));
        assert_eq!(got[0].time_ms, Some(1_748_772_000_250));
        let capture = toolprism::Capture::from_value(body.clone()).unwrap();
        assert_eq!(capture.tool_names().collect::<Vec<_>>(), ["get_weather"]);
    }
}
