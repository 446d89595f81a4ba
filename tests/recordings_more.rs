//! More recorders' files read as traces: the Azure SDK test proxy's recordings (.NET, Java,
//! Python and JavaScript Azure and OpenAI SDKs). Each checked against what the test decodes from
//! the sample itself.

use serde_json::Value;
use toolprism::trace::{RecordBody, TraceFormat};

use crate::recordings::records_of;
use crate::support::command::{fails_with, sample, stdout_of};

fn json_of(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const TEST_PROXY: &str = "traces/azure-test-proxy-chat.json";

#[test]
fn azure_test_proxy_recording_is_read_entry_by_entry() {
    let path = sample(TEST_PROXY);
    let path = path.to_str().unwrap();
    let recording = json_of(path);
    let entries = recording["Entries"].as_array().unwrap();
    let (got, ignored, format) = records_of(path);
    assert_eq!(format, TraceFormat::TestProxy);
    assert_eq!(format.id(), "azure-test-proxy");
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["entry 1", "entry 2"]
    );
    // The model listing (GET) and the speech call (`model` and `input`, the shape of a
    // Responses request) are no turns.
    assert_eq!(
        ignored,
        [
            ("entry 3".to_owned(), "GET".to_owned()),
            ("entry 4".to_owned(), "audio".to_owned())
        ]
    );
    for (record, entry) in got.iter().zip(entries) {
        // The body is the JSON the proxy kept (its bytes as sent are gone).
        assert_eq!(
            record.body,
            RecordBody::Request(entry["RequestBody"].clone())
        );
        assert_eq!(record.body_text, None);
        assert_eq!(record.url.as_deref(), entry["RequestUri"].as_str());
        assert_eq!(
            (record.status, record.method.as_deref()),
            (Some(200), Some("POST"))
        );
        assert_eq!(
            record.timestamp.as_deref(),
            entry["ResponseHeaders"]["Date"].as_str()
        );
    }
    // Entry 1's usage from its JSON body.
    let usage = &entries[0]["ResponseBody"]["usage"];
    let first = got[0].usage.unwrap();
    // Chat's `prompt_tokens` holds its cached part: it is the input as read.
    assert_eq!(first.input, usage["prompt_tokens"].as_u64().unwrap());
    assert_eq!(first.cache_read, 0);
    // Entry 2's from the last chunk of its event stream, kept as a list of lines.
    let lines = entries[1]["ResponseBody"].as_array().unwrap();
    let last: Value = lines
        .iter()
        .rev()
        .find_map(|l| l.as_str()?.strip_prefix("data: {"))
        .map(|rest| serde_json::from_str(&format!("{{{rest}")).unwrap())
        .unwrap();
    let second = got[1].usage.unwrap();
    assert_eq!(
        second.cache_read,
        last["usage"]["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .unwrap()
    );
    assert_eq!(
        second.input,
        last["usage"]["prompt_tokens"].as_u64().unwrap()
    );
}

#[test]
fn azure_test_proxy_session_reads_the_cache_the_stream_reports() {
    let out = stdout_of(&["session", "--json", &format!("samples/{TEST_PROXY}")]);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["trace"]["format"], "azure-test-proxy");
    assert_eq!(json["trace"]["turns"], 2);
    assert_eq!(json["trace"]["ignored_total"], 2);
    assert_eq!(json["turns"][0]["provider"], "azure-openai");
    // The second turn read what the first wrote: the stream's cached tokens, judged.
    let observed = &json["turns"][1]["observed"];
    assert_eq!(observed["read"], 1920, "{observed}");
    assert_eq!(json["agreement"]["judged"], 2);
    assert_eq!(json["agreement"]["agree"], 2);
}

#[test]
fn a_bad_test_proxy_entry_is_refused_in_one_line_naming_it() {
    let mut recording = json_of(sample(TEST_PROXY).to_str().unwrap());
    recording["Entries"][1]
        .as_object_mut()
        .unwrap()
        .remove("RequestMethod");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, serde_json::to_string_pretty(&recording).unwrap()).unwrap();
    let line = fails_with(&["session", path.to_str().unwrap()]);
    assert!(
        line.ends_with("bad.json: entry 2: no `RequestMethod`"),
        "{line}"
    );
}

const PHP_VCR: &str = "traces/php-vcr-anthropic.yml";

#[test]
fn php_vcr_cassette_is_a_list_of_interactions() {
    let path = sample(PHP_VCR);
    let path = path.to_str().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    // php-vcr writes the list itself, each item opened by a lone `-`.
    assert!(text.starts_with("-\n    request:\n"));
    let yaml: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    let items = yaml.as_sequence().unwrap();
    let (got, ignored, format) = records_of(path);
    assert_eq!(format, TraceFormat::Cassette);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["interaction 1", "interaction 2"]
    );
    assert_eq!(ignored, [("interaction 3".to_owned(), "GET".to_owned())]);
    for (record, item) in got.iter().zip(items) {
        let sent = item["request"]["body"].as_str().unwrap();
        // The body string is the bytes sent.
        assert_eq!(record.body_text.as_deref(), Some(sent));
        assert_eq!(
            record.body,
            RecordBody::Request(serde_json::from_str(sent).unwrap())
        );
        assert_eq!(record.status, Some(200));
        assert_eq!(
            record.timestamp.as_deref(),
            item["response"]["headers"]["Date"].as_str()
        );
        let billed: Value =
            serde_json::from_str(item["response"]["body"].as_str().unwrap()).unwrap();
        let usage = record.usage.unwrap();
        let figure = |key: &str| billed["usage"][key].as_u64().unwrap();
        assert_eq!(
            (usage.input, usage.cache_write, usage.cache_read),
            (
                figure("input_tokens"),
                figure("cache_creation_input_tokens"),
                figure("cache_read_input_tokens")
            )
        );
    }
    // The first call wrote the prefix the second read.
    assert!(got[0].usage.unwrap().cache_write > 0);
    assert_eq!(
        got[1].usage.unwrap().cache_read,
        got[0].usage.unwrap().cache_write
    );
}

#[test]
fn php_vcr_session_agrees_with_its_bill() {
    let out = stdout_of(&["session", "--json", &format!("samples/{PHP_VCR}")]);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["trace"]["format"], "vcr-cassette");
    assert_eq!(json["trace"]["turns"], 2);
    assert_eq!(json["turns"][0]["observed"]["state"], "write");
    assert_eq!(json["turns"][1]["observed"]["state"], "hit");
    assert_eq!(json["agreement"]["judged"], 2);
    assert_eq!(json["agreement"]["agree"], 2);
}

#[test]
fn a_php_vcr_interaction_without_its_body_is_refused_in_one_line() {
    let text = std::fs::read_to_string(sample(PHP_VCR)).unwrap();
    // Drop the second interaction's request body.
    let second = text
        .match_indices("        body: '{\"model\"")
        .nth(1)
        .unwrap()
        .0;
    let end = second + text[second..].find('\n').unwrap() + 1;
    let broken = format!("{}{}", &text[..second], &text[end..]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cassette.yml");
    std::fs::write(&path, broken).unwrap();
    let line = fails_with(&["session", path.to_str().unwrap()]);
    assert!(
        line.ends_with("cassette.yml: interaction 2: no request body"),
        "{line}"
    );
}

const WIREMOCK: &str = "traces/wiremock-mappings.json";

#[test]
fn wiremock_mappings_are_read_mapping_by_mapping() {
    let path = sample(WIREMOCK);
    let path = path.to_str().unwrap();
    let export = json_of(path);
    let mappings = export["mappings"].as_array().unwrap();
    let (got, ignored, format) = records_of(path);
    assert_eq!(format, TraceFormat::WireMock);
    assert_eq!(format.id(), "wiremock");
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["mapping 1", "mapping 2"]
    );
    assert_eq!(
        ignored,
        [
            ("mapping 3".to_owned(), "GET".to_owned()),
            (
                "mapping 4".to_owned(),
                "a WireMock stub whose request body is not recorded (it matches it by `contains`)"
                    .to_owned()
            )
        ]
    );
    for (record, mapping) in got.iter().zip(mappings) {
        // The request is the `equalToJson` matcher, its text the bytes sent.
        let sent = mapping["request"]["bodyPatterns"][0]["equalToJson"]
            .as_str()
            .unwrap();
        assert_eq!(record.body_text.as_deref(), Some(sent));
        assert_eq!(
            record.body,
            RecordBody::Request(serde_json::from_str(sent).unwrap())
        );
        assert_eq!(record.url.as_deref(), Some("/v1/chat/completions"));
        assert_eq!(
            record.timestamp.as_deref(),
            mapping["response"]["headers"]["Date"].as_str()
        );
    }
    // Mapping 1 answers with `body` (text), mapping 2 with `jsonBody` (a value).
    let billed: Value =
        serde_json::from_str(mappings[0]["response"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(
        got[0].usage.unwrap().input,
        billed["usage"]["prompt_tokens"].as_u64().unwrap()
    );
    let usage = &mappings[1]["response"]["jsonBody"]["usage"];
    let second = got[1].usage.unwrap();
    assert_eq!(second.input, usage["prompt_tokens"].as_u64().unwrap());
    assert_eq!(
        second.cache_read,
        usage["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .unwrap()
    );
}

#[test]
fn a_folder_of_wiremock_mappings_reads_each_file_as_a_call() {
    let export = json_of(sample(WIREMOCK).to_str().unwrap());
    let dir = tempfile::tempdir().unwrap();
    for (n, mapping) in export["mappings"].as_array().unwrap().iter().enumerate() {
        let name = format!("{}-v1.json", n + 1);
        std::fs::write(dir.path().join(name), mapping.to_string()).unwrap();
    }
    let out = stdout_of(&["session", "--json", dir.path().to_str().unwrap()]);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["trace"]["format"], "folder");
    assert_eq!(json["trace"]["turns"], 2);
    assert_eq!(json["trace"]["ignored_total"], 2);
    assert_eq!(json["turns"][1]["observed"]["read"], 1280);
    assert_eq!(json["agreement"]["agree"], 2);
    // WireMock keeps paths, not hosts: the provider is assumed, and said to be of no host.
    let text = stdout_of(&["session", dir.path().to_str().unwrap()]);
    assert!(
        text.contains("  provider of no host: openai for 2 turns (assumed"),
        "{text}"
    );
    // Stubs alone: refused in one line that says what they are.
    std::fs::remove_file(dir.path().join("1-v1.json")).unwrap();
    std::fs::remove_file(dir.path().join("2-v1.json")).unwrap();
    let line = fails_with(&["session", dir.path().to_str().unwrap()]);
    assert!(
        line.ends_with(
            ": no model call in it (2 records ignored: 1× GET, 1× a WireMock stub whose \
             request body is not recorded (it matches it by `contains`))"
        ),
        "{line}"
    );
}

#[test]
fn a_wiremock_mapping_whose_json_matcher_is_no_json_is_refused_in_one_line() {
    let mut export = json_of(sample(WIREMOCK).to_str().unwrap());
    export["mappings"][1]["request"]["bodyPatterns"][0]["equalToJson"] = Value::from("{\"model\":");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mappings.json");
    std::fs::write(&path, export.to_string()).unwrap();
    let line = fails_with(&["session", path.to_str().unwrap()]);
    assert!(
        line.contains("mappings.json: mapping 2: the body is a string that is not JSON"),
        "{line}"
    );
}

#[test]
fn an_azure_java_network_call_recording_is_refused_saying_it_holds_no_request() {
    // azure-core-test's format before the test proxy: the request body is not kept.
    let recording = serde_json::json!({"networkCallRecords": [{
        "Method": "POST",
        "Uri": "https://REDACTED.openai.azure.com/openai/deployments/gpt-4/chat/completions?api-version=2023-05-15",
        "Headers": {"User-Agent": "azsdk-java-azure-ai-openai/1.0.0-beta.1", "Content-Type": "application/json"},
        "Response": {"StatusCode": "200", "Content-Type": "application/json",
            "Body": "{\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":5}}"},
        "Exception": null}], "variables": []});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ChatCompletionsTest.json");
    std::fs::write(&path, serde_json::to_string_pretty(&recording).unwrap()).unwrap();
    let line = fails_with(&["session", path.to_str().unwrap()]);
    assert!(
        line.contains(
            "ChatCompletionsTest.json: an Azure SDK for Java recording (`networkCallRecords`"
        ),
        "{line}"
    );
    assert!(line.contains("not the request body sent"), "{line}");
}

const MASTRA: &str = "traces/mastra-llm-recording.json";

#[test]
fn mastra_llm_recordings_read_streams_kept_as_chunks() {
    let path = sample(MASTRA);
    let path = path.to_str().unwrap();
    let recording = json_of(path);
    let items = recording["recordings"].as_array().unwrap();
    let (got, ignored, format) = records_of(path);
    assert_eq!(format, TraceFormat::JsonArray);
    assert_eq!(
        got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
        ["entry 1", "entry 2"]
    );
    assert_eq!(ignored, [("entry 3".to_owned(), "embeddings".to_owned())]);
    for (record, item) in got.iter().zip(items) {
        assert_eq!(
            record.body,
            RecordBody::Request(item["request"]["body"].clone())
        );
        assert_eq!(record.status, Some(200));
    }
    // Entry 1 answered in JSON; entry 2 as a stream kept chunk by chunk, its usage in the last.
    let billed = &items[0]["response"]["body"]["usage"];
    assert_eq!(
        got[0].usage.unwrap().input,
        billed["input_tokens"].as_u64().unwrap()
    );
    let chunks = items[1]["response"]["chunks"].as_array().unwrap();
    let last = chunks.last().unwrap().as_str().unwrap();
    let completed: Value =
        serde_json::from_str(last.split("data: ").nth(1).unwrap().trim()).unwrap();
    let usage = &completed["response"]["usage"];
    let second = got[1].usage.unwrap();
    assert_eq!(second.input, usage["input_tokens"].as_u64().unwrap());
    assert_eq!(
        second.cache_read,
        usage["input_tokens_details"]["cached_tokens"]
            .as_u64()
            .unwrap()
    );
    assert!(second.cache_read > 0);
    // Mastra's older files are the recordings alone, a JSON array: read the same.
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("bare.json");
    std::fs::write(&bare, recording["recordings"].to_string()).unwrap();
    let (again, _, format) = records_of(bare.to_str().unwrap());
    assert_eq!(format, TraceFormat::JsonArray);
    assert_eq!(again[1].usage, got[1].usage);
}

#[test]
fn a_mastra_recording_whose_body_is_no_request_is_refused_in_one_line() {
    let mut recording = json_of(sample(MASTRA).to_str().unwrap());
    recording["recordings"][1]["request"]["body"] = Value::from("not json");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("travel.json");
    std::fs::write(&path, recording.to_string()).unwrap();
    let line = fails_with(&["session", path.to_str().unwrap()]);
    assert!(
        line.contains("travel.json: entry 2: the body is a string that is not JSON"),
        "{line}"
    );
}

const REQ_LLM: &str = "traces/req-llm-fixture-stream.json";

#[test]
fn req_llm_fixture_bodies_in_base64_and_its_stream_chunks_are_read() {
    use base64::Engine as _;
    let path = sample(REQ_LLM);
    let path = path.to_str().unwrap();
    let fixture = json_of(path);
    let (got, _, _) = records_of(path);
    assert_eq!(got.len(), 1);
    // The request is the bytes sent, kept as base64 (`canonical_json` is ReqLLM's parse).
    let sent = base64::engine::general_purpose::STANDARD
        .decode(fixture["request"]["body"]["b64"].as_str().unwrap())
        .unwrap();
    let sent = String::from_utf8(sent).unwrap();
    assert_eq!(got[0].body_text.as_deref(), Some(sent.as_str()));
    assert_eq!(
        got[0].body,
        RecordBody::Request(fixture["request"]["canonical_json"].clone())
    );
    assert_eq!(got[0].timestamp.as_deref(), fixture["captured_at"].as_str());
    // The stream is beside the response, `chunks[].decoded`: its `message_start` holds the usage.
    let start = fixture["chunks"][0]["decoded"].as_str().unwrap();
    let start: Value = serde_json::from_str(start.split("data: ").nth(1).unwrap().trim()).unwrap();
    let billed = &start["message"]["usage"];
    let usage = got[0].usage.unwrap();
    assert_eq!(
        (usage.input, usage.cache_write, usage.cache_read),
        (
            billed["input_tokens"].as_u64().unwrap(),
            billed["cache_creation_input_tokens"].as_u64().unwrap(),
            billed["cache_read_input_tokens"].as_u64().unwrap()
        )
    );
    assert!(usage.cache_write > 0);
    // A JSON answer kept as base64 too (ReqLLM writes `{"b64": ...}` for what is not JSON).
    let mut answered = fixture.clone();
    let answer = serde_json::json!({"type": "message", "usage": {"input_tokens": 5,
        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 2223, "output_tokens": 3}});
    answered["response"]["body"] = serde_json::json!({"b64":
        base64::engine::general_purpose::STANDARD.encode(answer.to_string())});
    answered.as_object_mut().unwrap().remove("chunks");
    // Without `captured_at`, the answer's `Date` header is the turn's time.
    answered.as_object_mut().unwrap().remove("captured_at");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("json.json");
    std::fs::write(&json, answered.to_string()).unwrap();
    let (got, _, _) = records_of(json.to_str().unwrap());
    assert_eq!(got[0].usage.unwrap().cache_read, 2223);
    assert_eq!(
        got[0].timestamp.as_deref(),
        fixture["response"]["headers"]["date"].as_str()
    );
    assert!(got[0].time_ms.is_some());
}

#[test]
fn a_req_llm_fixture_whose_body_is_no_base64_is_refused_in_one_line() {
    let mut fixture = json_of(sample(REQ_LLM).to_str().unwrap());
    fixture["request"]["body"]["b64"] = Value::from("not base64!");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fixture.json");
    std::fs::write(&path, serde_json::to_string_pretty(&fixture).unwrap()).unwrap();
    let line = fails_with(&["session", path.to_str().unwrap()]);
    assert!(
        line.contains("fixture.json: the request: its `b64` body is not base64"),
        "{line}"
    );
}

#[test]
fn exvcr_cassettes_are_read_as_records_their_binary_answers_decoded() {
    use base64::Engine as _;
    use std::io::Write as _;
    // ExVCR (Elixir): a JSON array of `{request: {body, headers, method, options, request_body,
    // url}, response: {binary, body, headers, status_code, type}}`; a gzip answer is kept as
    // base64 bytes with `binary: true`.
    let request = serde_json::json!({"model": "gpt-4.1-mini",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]});
    let answer =
        r#"{"usage":{"prompt_tokens":1400,"prompt_tokens_details":{"cached_tokens":1280}}}"#;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(answer.as_bytes()).unwrap();
    let gzipped = base64::engine::general_purpose::STANDARD.encode(gz.finish().unwrap());
    let call = |body: Value, binary: bool| {
        serde_json::json!({
            "request": {"body": request.to_string(), "headers": {"content-type": "application/json"},
                "method": "post", "options": {"recv_timeout": 60000}, "request_body": "",
                "url": "https://api.openai.com/v1/chat/completions"},
            "response": {"binary": binary, "body": body, "headers": {"content-encoding": "gzip"},
                "status_code": 200, "type": "ok"}})
    };
    let cassette = Value::Array(vec![
        call(Value::from(gzipped), true),
        call(Value::from(answer), false),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chat.json");
    std::fs::write(&path, serde_json::to_string_pretty(&cassette).unwrap()).unwrap();
    let (got, _, format) = records_of(path.to_str().unwrap());
    assert_eq!(format, TraceFormat::JsonArray);
    assert_eq!(got.len(), 2);
    for record in &got {
        assert_eq!(record.body, RecordBody::Request(request.clone()));
        assert_eq!(record.status, Some(200));
        let usage = record.usage.unwrap();
        assert_eq!((usage.input, usage.cache_read), (1400, 1280));
    }
}

#[test]
fn a_folder_of_recordings_is_refused_naming_what_its_files_are() {
    // A folder is one call a file; a recording in it is a trace of its own.
    let dir = tempfile::tempdir().unwrap();
    let recording = std::fs::read(sample(TEST_PROXY)).unwrap();
    std::fs::write(dir.path().join("ChatTest.json"), recording).unwrap();
    let line = fails_with(&["session", dir.path().to_str().unwrap()]);
    assert!(
        line.ends_with(
            ": ChatTest.json: an Azure SDK test-proxy recording, a trace of its own: read it \
             alone (`toolprism session FILE`)"
        ),
        "{line}"
    );
}
