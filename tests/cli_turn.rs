//! `--turn N` and `--skip-bad` on `report`, `show`, `diff` and `export` (SESSIONS.md sections 1
//! and 4, CLI.md): a request of a trace gives exactly the figures and output of the same body
//! saved alone. Each turn's body is taken out of the trace here, by the test itself, following
//! the format's rules, so the binary's trace reading is checked against an independent reading.

use std::io::Write as _;
use std::path::Path;

use base64::Engine as _;
use serde_json::Value;

use toolprism::session::pick::{TurnChoice, pick_turn_alone};
use toolprism::trace::TraceOptions;

use crate::support::command::{fails_with, root, run_ok, stdout_of, toolprism};

/// One turn as the test reads it: where it is, and its body (`None` for a compaction stub).
#[derive(Debug, Clone)]
struct Turn {
    source: String,
    body: Option<Value>,
}

/// SESSIONS.md: with a URL, a model call is a POST whose path (query stripped) ends in one of
/// these.
fn is_model_call(method: &str, url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or("");
    method.eq_ignore_ascii_case("POST")
        && ["/v1/messages", "/chat/completions", "/responses"]
            .iter()
            .any(|end| path.ends_with(end))
}

fn stub_or_body(body: Value) -> Option<Value> {
    if body.get("_cctrace_stub").is_some() {
        None
    } else {
        Some(body)
    }
}

/// claude-trace / cctrace and wrapped JSON lines: `request.{method,url,body}`, the body an
/// object or a string holding JSON.
fn record_lines(text: &str) -> Vec<Turn> {
    let mut turns = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: Value = serde_json::from_str(line).unwrap();
        let request = &record["request"];
        let method = request["method"].as_str().unwrap_or("");
        let url = request["url"].as_str().unwrap_or("");
        if !is_model_call(method, url) {
            continue;
        }
        let body = match &request["body"] {
            Value::String(s) => serde_json::from_str(s).unwrap(),
            other => other.clone(),
        };
        turns.push(Turn {
            source: format!("line {}", i + 1),
            body: stub_or_body(body),
        });
    }
    turns
}

/// Bare JSON lines: every line that parses is a body (the torn last line is not a turn).
fn bare_lines(text: &str) -> Vec<Turn> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let body: Value = serde_json::from_str(line).ok()?;
            Some(Turn {
                source: format!("line {}", i + 1),
                body: Some(body),
            })
        })
        .collect()
}

/// HAR 1.2: entries by `startedDateTime`, model calls only, `postData.text` decoded from base64
/// and gzip as the entry says.
fn har(text: &str) -> Vec<Turn> {
    let log: Value = serde_json::from_str(text).unwrap();
    let mut entries: Vec<(usize, &Value)> = log["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, e)| (i + 1, e))
        .collect();
    // ISO 8601 in one zone and one precision throughout this sample: text order is time order.
    entries.sort_by_key(|(_, e)| e["startedDateTime"].as_str().unwrap().to_owned());
    let mut turns = Vec::new();
    for (number, entry) in entries {
        let request = &entry["request"];
        if !is_model_call(
            request["method"].as_str().unwrap(),
            request["url"].as_str().unwrap(),
        ) {
            continue;
        }
        let post = &request["postData"];
        let mut bytes = post["text"].as_str().unwrap().as_bytes().to_vec();
        if post["encoding"] == "base64" {
            bytes = base64::engine::general_purpose::STANDARD
                .decode(&bytes)
                .unwrap();
        }
        let gzip = request["headers"].as_array().unwrap().iter().any(|h| {
            h["name"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("content-encoding")
                && h["value"] == "gzip"
        });
        if gzip {
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)
                .unwrap();
            bytes = out;
        }
        turns.push(Turn {
            source: format!("entry {number}"),
            body: Some(serde_json::from_slice(&bytes).unwrap()),
        });
    }
    turns
}

/// A folder: `*.json` files by the number in their name.
fn folder(dir: &Path) -> Vec<Turn> {
    let mut files: Vec<(u64, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|name| {
            let stem = name.strip_suffix(".json")?;
            Some((stem.parse().unwrap(), name))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|(_, name)| Turn {
            body: Some(serde_json::from_slice(&std::fs::read(dir.join(&name)).unwrap()).unwrap()),
            source: name,
        })
        .collect()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// Every sample trace, with its format id and its turns as the test reads them.
fn samples() -> Vec<(&'static str, &'static str, Vec<Turn>)> {
    let mcp = "samples/traces/claude-code-mcp-reconnect.jsonl";
    let stub = "samples/traces/cctrace-compaction.jsonl";
    let wrapped = "samples/traces/codex-responses-wrapped.jsonl";
    let torn = "samples/traces/bare-torn.jsonl";
    let browser = "samples/traces/browser-chat.har";
    let numbered = "samples/traces/numbered";
    vec![
        (mcp, "claude-trace", record_lines(&read(mcp))),
        (stub, "claude-trace", record_lines(&read(stub))),
        (wrapped, "jsonl-wrapped", record_lines(&read(wrapped))),
        (torn, "jsonl", bare_lines(&read(torn))),
        (browser, "har", har(&read(browser))),
        (numbered, "folder", folder(&root().join(numbered))),
    ]
}

/// The body written alone, as a single capture.
fn body_file(dir: &Path, body: &Value) -> String {
    let path = dir.join(format!(
        "body-{}.json",
        std::fs::read_dir(dir).unwrap().count()
    ));
    std::fs::write(&path, serde_json::to_vec(body).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

/// Turn `n` of `trace`'s body as sent: the trace's text of it (which reads back as `body`), or
/// serde_json's when the trace holds none (docs/FORMATS.md, "The capture as sent").
fn sent_text(trace: &str, n: usize, body: &Value) -> String {
    let text = match picked(trace, n).written() {
        Some(written) => written.body().to_owned(),
        None => serde_json::to_string(body).unwrap(),
    };
    assert_eq!(&serde_json::from_str::<Value>(&text).unwrap(), body);
    text
}

/// [`sent_text`] in a file of its own.
fn sent_file(dir: &Path, trace: &str, n: usize, body: &Value) -> String {
    let path = dir.join(format!(
        "body-{}.json",
        std::fs::read_dir(dir).unwrap().count()
    ));
    std::fs::write(&path, sent_text(trace, n, body)).unwrap();
    path.to_string_lossy().into_owned()
}

/// `report --json` without the keys that name the input.
fn figures(json: &str) -> Value {
    let mut value: Value = serde_json::from_str(json).unwrap();
    let object = value.as_object_mut().unwrap();
    object["capture"].as_object_mut().unwrap().remove("path");
    object.remove("turn");
    value
}

#[test]
fn every_turn_of_every_sample_reports_as_its_body_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (trace, format, turns) in samples() {
        assert!(turns.len() >= 3, "{trace}: {} turns", turns.len());
        let mut through_binary = false;
        for (i, turn) in turns.iter().enumerate() {
            let Some(body) = &turn.body else { continue };
            // Every turn through the library: the body, and where the report says it is from.
            let picked = pick_turn_alone(
                &root().join(trace),
                TurnChoice::Number(i + 1),
                &TraceOptions::default(),
            )
            .unwrap();
            assert_eq!(picked.capture.body(), body, "{trace} turn {}", i + 1);
            assert_eq!(
                serde_json::to_value(picked.figures()).unwrap(),
                serde_json::json!({"turn": i + 1, "source": turn.source, "format": format}),
                "{trace} turn {}",
                i + 1
            );
            checked += 1;
            if through_binary {
                continue;
            }
            // One turn of each trace through the binary: its report is the body's.
            through_binary = true;
            let n = (i + 1).to_string();
            let from_trace = stdout_of(&["report", "--json", "--turn", &n, trace]);
            let alone = sent_file(dir.path(), trace, i + 1, body);
            let from_body = stdout_of(&["report", "--json", &alone]);
            assert_eq!(
                figures(&from_trace),
                figures(&from_body),
                "{trace} turn {n}"
            );
            let value: Value = serde_json::from_str(&from_trace).unwrap();
            assert_eq!(value["capture"]["path"], trace);
            assert_eq!(
                value["turn"],
                serde_json::json!({"turn": i + 1, "source": turn.source, "format": format}),
                "{trace} turn {n}"
            );
            let single: Value = serde_json::from_str(&from_body).unwrap();
            assert_eq!(single["turn"], Value::Null);
            assert_eq!(single["capture"]["path"], alone.as_str());
        }
    }
    // 9 + 2 + 4 + 3 + 3 + 3 requests (the stub is not one).
    assert_eq!(checked, 24);
}

#[test]
fn without_turn_the_last_model_call() {
    for (trace, _, turns) in samples() {
        let last = turns.len().to_string();
        assert_eq!(
            stdout_of(&["report", "--json", trace]),
            stdout_of(&["report", "--json", "--turn", &last, trace]),
            "{trace}"
        );
    }
}

#[test]
fn a_gzip_trace_reads_as_the_plain_one() {
    let dir = tempfile::tempdir().unwrap();
    let plain = "samples/traces/claude-code-mcp-reconnect.jsonl";
    let gz = dir.path().join("trace.jsonl.gz");
    let mut encoder =
        flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), Default::default());
    encoder.write_all(read(plain).as_bytes()).unwrap();
    encoder.finish().unwrap();
    let gz = gz.to_string_lossy().into_owned();
    let turns = record_lines(&read(plain));
    for n in [1, 4, turns.len()] {
        let n = n.to_string();
        let packed = stdout_of(&["report", "--json", "--turn", &n, &gz]);
        let unpacked = stdout_of(&["report", "--json", "--turn", &n, plain]);
        assert_eq!(figures(&packed), figures(&unpacked), "turn {n}");
        let packed: Value = serde_json::from_str(&packed).unwrap();
        let unpacked: Value = serde_json::from_str(&unpacked).unwrap();
        assert_eq!(packed["turn"], unpacked["turn"]);
    }
}

#[test]
fn a_trace_on_standard_input() {
    let trace = "samples/traces/claude-code-mcp-reconnect.jsonl";
    let piped = toolprism()
        .args(["report", "--json", "--turn", "3", "-"])
        .write_stdin(read(trace))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let piped = String::from_utf8(piped).unwrap();
    let direct = stdout_of(&["report", "--json", "--turn", "3", trace]);
    assert_eq!(figures(&piped), figures(&direct));
    let piped: Value = serde_json::from_str(&piped).unwrap();
    assert_eq!(piped["capture"]["path"], "-");
    assert_eq!(
        piped["turn"],
        serde_json::json!({"turn": 3, "source": "line 5", "format": "claude-trace"})
    );
    // The table names standard input as people read it.
    let table = toolprism()
        .args(["report", "-s", "minimal", "-"])
        .write_stdin(read(trace))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(table).unwrap();
    assert!(
        table.starts_with("<stdin> turn 9 (line 11): anthropic-messages, 11 tools, "),
        "{table}"
    );
}

#[test]
fn the_table_names_the_turn_and_is_otherwise_the_bodys() {
    let dir = tempfile::tempdir().unwrap();
    for (trace, _, turns) in samples() {
        let (i, turn) = turns
            .iter()
            .enumerate()
            .find(|(_, t)| t.body.is_some())
            .unwrap();
        let n = (i + 1).to_string();
        let alone = sent_file(dir.path(), trace, i + 1, turn.body.as_ref().unwrap());
        let from_trace = stdout_of(&["report", "--per-tool", "--turn", &n, trace]);
        let from_body = stdout_of(&["report", "--per-tool", &alone]);
        let label = format!("{trace} turn {n} ({})", turn.source);
        assert_eq!(
            from_trace
                .strip_prefix(&label)
                .unwrap_or_else(|| panic!("{from_trace}")),
            from_body.strip_prefix(&alone).unwrap(),
            "{trace}"
        );
        // The matrix names it the same way.
        let matrix = stdout_of(&["report", "--matrix", "--turn", &n, trace]);
        assert!(matrix.starts_with(&format!("{label}: ")), "{matrix}");
    }
}

/// Turn `n` of `trace` as the library picks it, for the checks that need no binary: the same
/// body as the test's own reading, so every output of it is the body's.
fn picked(trace: &str, n: usize) -> toolprism::Capture {
    let picked = pick_turn_alone(
        &root().join(trace),
        TurnChoice::Number(n),
        &TraceOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{trace} turn {n}: {e}"));
    assert_eq!(picked.turn, n);
    picked.capture
}

#[test]
fn show_and_export_print_the_bodys_projection() {
    let dir = tempfile::tempdir().unwrap();
    let settings = toolprism::Settings::default();
    let mut checked = 0;
    for (trace, _, turns) in samples() {
        let mut through_binary = false;
        for (i, turn) in turns.iter().enumerate() {
            let Some(body) = &turn.body else { continue };
            // Every turn through the library: what `show` and `export` print of it.
            let from_trace = picked(trace, i + 1);
            let sent = sent_text(trace, i + 1, body);
            let alone = toolprism::Capture::from_bytes(sent.as_bytes()).unwrap();
            assert_eq!(from_trace.body(), alone.body(), "{trace} turn {}", i + 1);
            for strategy in [toolprism::Strategy::Minimal, toolprism::Strategy::Shorten] {
                use toolprism::export::Layout;
                for (tools_only, layout) in [(false, Layout::AsCaptured), (true, Layout::Pretty)] {
                    let render = |c: &toolprism::Capture| {
                        let projection = toolprism::project(c, strategy, &settings);
                        toolprism::export::render(c, &projection, tools_only, layout)
                    };
                    assert_eq!(
                        render(&from_trace),
                        render(&alone),
                        "{trace} turn {}",
                        i + 1
                    );
                }
            }
            checked += 1;
            if through_binary {
                continue;
            }
            // One turn of each trace through the binary, end to end: `show` and `export`.
            through_binary = true;
            let n = (i + 1).to_string();
            let alone = sent_file(dir.path(), trace, i + 1, body);
            for extra in [&[][..], &["--pretty", "--tools-only"][..]] {
                let mut args = vec!["show", "-s", "shorten", "--turn", &n, trace];
                args.extend_from_slice(extra);
                let mut single = vec!["show", "-s", "shorten", &alone];
                single.extend_from_slice(extra);
                assert_eq!(
                    stdout_of(&args),
                    stdout_of(&single),
                    "{trace} turn {n} {extra:?}"
                );
            }
            let out_trace = dir.path().join(format!("t{checked}.json"));
            let out_body = dir.path().join(format!("b{checked}.json"));
            let (out_t, out_b) = (
                out_trace.to_string_lossy().into_owned(),
                out_body.to_string_lossy().into_owned(),
            );
            let (_, said_t) =
                run_ok(&["export", "-s", "minimal", "--turn", &n, trace, "-o", &out_t]);
            let (_, said_b) = run_ok(&["export", "-s", "minimal", &alone, "-o", &out_b]);
            assert_eq!(
                std::fs::read(&out_trace).unwrap(),
                std::fs::read(&out_body).unwrap(),
                "{trace} turn {n}"
            );
            assert_eq!(said_t.replace(&out_t, "OUT"), said_b.replace(&out_b, "OUT"));
        }
    }
    assert_eq!(checked, 24);
}

#[test]
fn diff_names_the_turn_then_prints_the_bodys_diff() {
    let dir = tempfile::tempdir().unwrap();
    for (trace, _, turns) in samples() {
        for (i, turn) in turns.iter().enumerate() {
            let Some(body) = &turn.body else { continue };
            // Every turn: the library picks the body the diff is of.
            assert_eq!(picked(trace, i + 1).body(), body, "{trace} turn {}", i + 1);
        }
        // The first request of each trace through the binary: the label, then the body's diff.
        let (i, turn) = turns
            .iter()
            .enumerate()
            .find(|(_, t)| t.body.is_some())
            .unwrap();
        let n = (i + 1).to_string();
        let alone = sent_file(dir.path(), trace, i + 1, turn.body.as_ref().unwrap());
        for strategy in ["minimal", "defer"] {
            let from_trace = stdout_of(&[
                "diff", "-s", strategy, "--color", "never", "--turn", &n, trace,
            ]);
            let from_body = stdout_of(&["diff", "-s", strategy, "--color", "never", &alone]);
            assert_eq!(
                from_trace,
                format!("{trace} turn {n} ({})\n{from_body}", turn.source),
                "{trace} turn {n} {strategy}"
            );
        }
    }
}

#[test]
fn report_tokens_match_the_session_timeline() {
    for (trace, _, turns) in samples() {
        let session: Value =
            serde_json::from_str(&stdout_of(&["session", "--json", "-s", "original", trace]))
                .unwrap();
        let timeline = session["turns"].as_array().unwrap();
        assert_eq!(timeline.len(), turns.len(), "{trace}");
        for (i, turn) in turns.iter().enumerate() {
            assert_eq!(timeline[i]["source"], turn.source.as_str(), "{trace}");
            if turn.body.is_none() {
                continue;
            }
            let n = (i + 1).to_string();
            let report: Value = serde_json::from_str(&stdout_of(&[
                "report", "--json", "-s", "original", "--turn", &n, trace,
            ]))
            .unwrap();
            assert_eq!(
                report["strategies"][0]["tools_tokens"], timeline[i]["tools_tokens"],
                "{trace} turn {n}"
            );
            assert_eq!(
                report["capture"]["tools_tokens"],
                timeline[i]["tools_tokens"]
            );
        }
    }
}

#[test]
fn a_single_capture_is_turn_one() {
    assert_eq!(
        stdout_of(&["report", "--json", "--turn", "1", "samples/small.json"]),
        stdout_of(&["report", "--json", "samples/small.json"])
    );
    assert_eq!(
        fails_with(&["report", "--turn", "2", "samples/small.json"]),
        "toolprism: samples/small.json: no turn 2: the trace has 1 turn"
    );
    // No turn object, and the table's title is the file alone.
    let json: Value =
        serde_json::from_str(&stdout_of(&["report", "--json", "samples/small.json"])).unwrap();
    assert_eq!(json["turn"], Value::Null);
    let table = stdout_of(&["report", "-s", "minimal", "samples/small.json"]);
    assert!(table.starts_with("samples/small.json: anthropic-messages, 8 tools, "));
}

#[test]
fn turns_past_the_end_and_stubs_are_one_line_errors() {
    let mcp = "samples/traces/claude-code-mcp-reconnect.jsonl";
    let count = record_lines(&read(mcp)).len();
    for command in [
        &["report"][..],
        &["show", "-s", "minimal"][..],
        &["diff", "-s", "minimal"][..],
    ] {
        let mut args = command.to_vec();
        args.extend_from_slice(&["--turn", "99", mcp]);
        assert_eq!(
            fails_with(&args),
            format!("toolprism: {mcp}: no turn 99: the trace has {count} turns")
        );
    }
    let stub = "samples/traces/cctrace-compaction.jsonl";
    let turns = record_lines(&read(stub));
    let at = turns.iter().position(|t| t.body.is_none()).unwrap();
    let n = (at + 1).to_string();
    assert_eq!(
        fails_with(&["report", "--turn", &n, stub]),
        format!(
            "toolprism: {stub}: turn {n} ({}) is a compaction stub: its tools are unknown \
             (pick another with --turn)",
            turns[at].source
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let out = out.to_string_lossy();
    fails_with(&["export", "-s", "minimal", "--turn", &n, stub, "-o", &out]);
    assert!(!dir.path().join("out.json").exists());
}

#[test]
fn turn_zero_and_words_are_usage_errors() {
    let trace = "samples/traces/claude-code-mcp-reconnect.jsonl";
    assert_eq!(
        fails_with(&["report", "--turn", "0", trace]),
        "toolprism: invalid value '0' for '--turn <N>': turns are numbered from 1 (see --help)"
    );
    assert_eq!(
        fails_with(&["show", "-s", "minimal", "--turn", "abc", trace]),
        "toolprism: invalid value 'abc' for '--turn <N>': not a turn number (1, 2, 3, ...) \
         (see --help)"
    );
    assert_eq!(
        fails_with(&["diff", "-s", "minimal", "--turn", "-1", trace]),
        "toolprism: unexpected argument '-1' found; tip: to pass '-1' as a value, use '-- -1' \
         (see --help)"
    );
}

/// Three bodies of the torn sample with, between the first and the second, a line that is not
/// JSON and a line that is JSON but no request.
fn with_bad_lines(dir: &Path) -> (String, Vec<Value>) {
    let bodies: Vec<Value> = bare_lines(&read("samples/traces/bare-torn.jsonl"))
        .into_iter()
        .map(|t| t.body.unwrap())
        .collect();
    let lines = [
        bodies[0].to_string(),
        "{\"model\": oops".to_owned(),
        "{\"hello\": 1}".to_owned(),
        bodies[1].to_string(),
        bodies[2].to_string(),
    ];
    let path = dir.join("bad.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (path.to_string_lossy().into_owned(), bodies)
}

#[test]
fn a_bad_line_is_an_error_unless_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let (path, bodies) = with_bad_lines(dir.path());
    let bad = format!("toolprism: {path}: line 2: not JSON (expected value at column 11)");
    for command in [&["report"][..], &["show", "-s", "minimal"][..]] {
        let mut args = command.to_vec();
        args.push(&path);
        assert_eq!(fails_with(&args), bad);
        args.extend_from_slice(&["--turn", "2"]);
        assert_eq!(fails_with(&args), bad);
    }
    // Turn 1 comes before the bad line, which a streamed read never reaches.
    let first = stdout_of(&["report", "--json", "--turn", "1", &path]);
    let alone = body_file(dir.path(), &bodies[0]);
    assert_eq!(
        figures(&first),
        figures(&stdout_of(&["report", "--json", &alone]))
    );
    // Skipped: the bad lines are no turns, so turn 2 is line 4.
    let skipped = stdout_of(&["report", "--json", "--skip-bad", "--turn", "2", &path]);
    let alone = body_file(dir.path(), &bodies[1]);
    assert_eq!(
        figures(&skipped),
        figures(&stdout_of(&["report", "--json", &alone]))
    );
    let skipped: Value = serde_json::from_str(&skipped).unwrap();
    assert_eq!(
        skipped["turn"],
        serde_json::json!({"turn": 2, "source": "line 4", "format": "jsonl"})
    );
    // The last is turn 3 (line 5); there is no turn 4.
    let last: Value =
        serde_json::from_str(&stdout_of(&["report", "--json", "--skip-bad", &path])).unwrap();
    assert_eq!(last["turn"]["turn"], 3);
    assert_eq!(last["turn"]["source"], "line 5");
    assert_eq!(
        fails_with(&["report", "--skip-bad", "--turn", "4", &path]),
        format!("toolprism: {path}: no turn 4: the trace has 3 turns")
    );
}

#[test]
fn a_record_that_is_no_request_is_named_by_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let body = &bare_lines(&read("samples/traces/bare-torn.jsonl"))[0];
    let path = dir.path().join("norequest.jsonl");
    std::fs::write(
        &path,
        format!("{}\n{{\"hello\": 1}}\n", body.body.as_ref().unwrap()),
    )
    .unwrap();
    let path = path.to_string_lossy();
    assert_eq!(
        fails_with(&["report", &path]),
        format!(
            "toolprism: {path}: line 2: the body is not a request (no `messages`, `input`, \
             `contents` or `tools`)"
        )
    );
    let skipped: Value =
        serde_json::from_str(&stdout_of(&["report", "--json", "--skip-bad", &path])).unwrap();
    assert_eq!(skipped["turn"]["source"], "line 1");
}

#[test]
fn a_hostile_file_name_in_a_folder_never_reaches_the_terminal_raw() {
    let dir = tempfile::tempdir().unwrap();
    let body = bare_lines(&read("samples/traces/bare-torn.jsonl")).remove(0);
    std::fs::write(
        dir.path().join("1\u{1b}[31m\u{202e}.json"),
        body.body.unwrap().to_string(),
    )
    .unwrap();
    let path = dir.path().to_string_lossy().into_owned();
    for args in [
        vec!["report", "-s", "minimal", &path],
        vec!["diff", "-s", "minimal", "--color", "never", &path],
    ] {
        let out = stdout_of(&args);
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{202e}'),
            "{args:?}: {out:?}"
        );
        assert!(out.contains(" turn 1 ("), "{out}");
    }
}

#[test]
fn help_mentions_turn() {
    for command in ["report", "show", "diff", "export"] {
        let help = stdout_of(&[command, "--help"]);
        assert!(help.contains("--turn <N>"), "{command}");
        assert!(help.contains("--skip-bad"), "{command}");
    }
}

/// A broken single capture is named as before `--turn` existed, though it now goes through the
/// trace reader (a one-line document cut short reads as a torn trace of no turn).
#[test]
fn a_broken_single_capture_keeps_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 5] = [
        (
            "cut.json",
            b"{\"a\":",
            "invalid JSON at line 1, column 5: EOF while parsing a value",
        ),
        (
            "cut3.json",
            b"\n\n{\"a\":",
            "invalid JSON at line 3, column 5: EOF while parsing a value",
        ),
        (
            "utf16.json",
            b"\xff\xfe{\x00",
            "not valid UTF-8: invalid byte at offset 0",
        ),
        (
            "latin1.json",
            b"{\"messages\": [], \"x\": \"caf\xe9\"}",
            "not valid UTF-8: invalid byte at offset 26",
        ),
        (
            "latin1-pretty.json",
            b"{\n \"messages\": [],\n \"x\": \"caf\xe9\"\n}\n",
            "not valid UTF-8: invalid byte at offset 29",
        ),
    ];
    for (name, bytes, problem) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let path = path.to_string_lossy();
        assert_eq!(
            fails_with(&["report", &path]),
            format!("toolprism: {path}: {problem}")
        );
        assert_eq!(
            fails_with(&["show", "-s", "minimal", "--turn", "1", &path]),
            format!("toolprism: {path}: {problem}")
        );
        let out = toolprism()
            .args(["diff", "-s", "minimal", "-"])
            .write_stdin(bytes.to_vec())
            .assert()
            .code(2)
            .get_output()
            .clone();
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!("toolprism: <stdin>: {problem}\n")
        );
    }
}
