//! `append` as a strategy (issue 41): each change of a thread's tool list sent as a
//! mid-conversation system message. Its session rows come out of the same cache replay as every
//! other strategy's, its figures are read off those rows, and `export -s append` writes the
//! request it sends. Every figure here is recomputed by the test from the samples' own bytes.

use serde_json::{Value, json};
use toolprism::Settings;
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::projection::Applies;
use toolprism::session::{Analyzer, SessionReport, StrategyTurn, TraceInfo};
use toolprism::strategy::Strategy;
use toolprism::trace::TraceRecord;

use crate::support::command::{fails_with, run_ok};
use crate::support::records::record;

const EDITED: &str = "samples/traces/midconv-edited-in-place.jsonl";
const APPENDED: &str = "samples/traces/midconv-appended.jsonl";
const SAVES: &str = "samples/traces/midconv-append-saves.jsonl";

/// The sample's records, as JSON.
fn lines(path: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The session of a sample under `strategies`, each call with its status.
fn analyze(path: &str, strategies: &[Strategy]) -> SessionReport {
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(strategies, &Settings::default(), &counter, None);
    for (line, value) in lines(path).into_iter().enumerate() {
        let status = value["response"]["status_code"].as_u64().map(|s| s as u16);
        let mut rec: TraceRecord = record(line + 1, value["request"]["body"].clone(), None);
        rec.status = status;
        analyzer.push(rec).unwrap();
    }
    analyzer.finish(TraceInfo::default())
}

fn rows(report: &SessionReport, strategy: Strategy) -> &[StrategyTurn] {
    &report
        .strategies
        .iter()
        .find(|s| s.id == strategy.id())
        .unwrap()
        .per_turn
}

fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// The system message `append` sends: each entry defined inline, then each name removed.
fn message(defined: &[&Value], removed: &[&str]) -> Value {
    let mut content: Vec<Value> = defined
        .iter()
        .map(|e| json!({"type": "tool_addition", "tool": {"type": "tool_definition", "definition": e}}))
        .collect();
    content.extend(
        removed.iter().map(
            |n| json!({"type": "tool_removal", "tool": {"type": "tool_reference", "name": n}}),
        ),
    );
    json!({"role": "system", "content": content})
}

/// The two messages the edited-in-place samples need: turn 3 defines the MCP server's two
/// tools inline, turn 4 withdraws `bash`.
fn the_two_messages(path: &str) -> (Value, Value) {
    let lines = lines(path);
    let tools3 = lines[2]["request"]["body"]["tools"].as_array().unwrap();
    (
        message(&[&tools3[3], &tools3[4]], &[]),
        message(&[], &["bash"]),
    )
}

/// Cost of a row in input tokens: read at 0.1, written at 1.25 (Opus's rates), the rest at 1.
fn cost(row: &StrategyTurn) -> f64 {
    row.read.unwrap() as f64 * 0.1 + row.write.unwrap() as f64 * 1.25 + row.input.unwrap() as f64
}

/// Opus 4.8 takes system messages and binds no thinking: `original` edits `tools` in place
/// at turns 3 (+2 MCP tools) and 4 (−bash) and breaks its cache both times; `append` keeps the
/// first list and appends the two messages. By hand, with P the prompt tokens of `original`'s
/// row, C its tools in context, m3 and m4 the messages' tokens:
///   turns 1-2: the same requests, the same rows.
///   turn 3: original writes all of P3 (nothing cached holds its new tools);
///           append's prompt is A3 = P3 − C3 + C1 + m3; it reads turn 2's whole prompt P2 and
///           writes A3 − P2 (the top-level cache_control marks its message, now last).
///   turn 4: original writes all of P4; append's A4 = P4 − C4 + C1 + m3 + m4: reads A3, writes
///           A4 − A3.
///   saved = Σ over turns 3-4 (original's cost − append's), each at 0.1 read, 1.25 written.
/// On the sample: P = 2,260, 2,322, 2,534, 2,538; C1 = 199, C3 = 337, C4 = 271; m3 = 178,
/// m4 = 26; so A3 = 2,534 − 337 + 199 + 178 = 2,574, A4 = 2,538 − 271 + 199 + 204 = 2,670;
///   turn 3: 2,534 × 1.25 − (2,322 × 0.1 + 252 × 1.25) = 3,167.5 − 547.2 = 2,620.3
///   turn 4: 2,538 × 1.25 − (2,574 × 0.1 +  96 × 1.25) = 3,172.5 − 377.4 = 2,795.1
///   saved = 5,415.4 input tokens; at Opus 4.8's $5 per million, $0.027077.
#[test]
fn append_replayed_by_hand_on_the_sample_that_saves() {
    let (m3, m4) = the_two_messages(SAVES);
    let (m3, m4) = (
        tokens(&serde_json::to_string(&m3).unwrap()),
        tokens(&serde_json::to_string(&m4).unwrap()),
    );
    let report = analyze(SAVES, &[Strategy::Original, Strategy::Append]);
    let (o, a) = (
        rows(&report, Strategy::Original),
        rows(&report, Strategy::Append),
    );
    let p = |t: usize| o[t - 1].prompt_tokens.unwrap();
    let c = |t: usize| o[t - 1].context_tokens.unwrap();
    for t in [1, 2] {
        assert_eq!(a[t - 1].cost, o[t - 1].cost, "turn {t}");
        assert_eq!(a[t - 1].status, Some(Applies::NotApplicable), "turn {t}");
    }
    let a3 = p(3) - c(3) + c(1) + m3;
    let a4 = p(4) - c(4) + c(1) + m3 + m4;
    assert_eq!(a[2].prompt_tokens, Some(a3));
    assert_eq!(a[3].prompt_tokens, Some(a4));
    assert_eq!(
        a[2].total_tokens,
        Some(c(1) + m3),
        "tools kept plus the message"
    );
    assert_eq!(a[3].total_tokens, Some(c(1) + m3 + m4));
    for t in [3, 4] {
        assert_eq!((o[t - 1].read, o[t - 1].write), (Some(0), Some(p(t))));
        assert_eq!(o[t - 1].stable, Some(false));
        assert_eq!(a[t - 1].stable, Some(true));
        assert_eq!(a[t - 1].status, Some(Applies::Ok));
    }
    assert_eq!((a[2].read, a[2].write), (Some(p(2)), Some(a3 - p(2))));
    assert_eq!((a[3].read, a[3].write), (Some(a3), Some(a4 - a3)));
    let saved: f64 = [2, 3].iter().map(|&i| cost(&o[i]) - cost(&a[i])).sum();
    for row in o.iter().chain(a) {
        assert!((row.cost.unwrap() - cost(row)).abs() < 1e-6, "{row:?}");
    }
    assert_eq!((p(1), p(2), p(3), p(4)), (2260, 2322, 2534, 2538));
    assert_eq!((c(1), c(3), c(4), m3, m4), (199, 337, 271, 178, 26));
    assert!((saved - 5415.4).abs() < 1e-6, "{saved}");
    let append = report.append.clone().expect("append figures");
    assert_eq!(append.changes, 2);
    assert_eq!(append.breaks_avoided, 2);
    assert_eq!(append.refusals_avoided, 0);
    assert_eq!(append.change_tokens, m3 + m4);
    assert!(
        (append.saved_tokens - saved).abs() < 0.01,
        "{} against {saved}",
        append.saved_tokens
    );
    // Opus 4.8 at $5 per million input tokens (no break price: the sample has no usage).
    let usd = append.saved_usd.unwrap();
    assert!((usd - saved * 5e-6).abs() < 1e-6, "{usd}");
    // The session totals are the rows' sums, as for any strategy.
    let totals = report.strategies.iter().find(|s| s.id == "append").unwrap();
    assert_eq!(totals.breaks, 0);
    let sum: f64 = a.iter().filter_map(|r| r.cost).sum();
    assert!((totals.cost - sum).abs() < 0.01);
    // Without `original` beside it there is nothing to measure it against.
    assert!(analyze(SAVES, &[Strategy::Append]).append.is_none());
}

/// The sample edited in place, recomputed: the same two messages (m3 = 178 tokens, the two
/// inline definitions; m4 = 26, the removal; 204 in all), but on Opus 5.5 (thinking bound to the
/// prefix) `original`'s turns 3 and 4 are refused (400s, outside the cache chain, where every
/// strategy costs nothing): changes 2, refusals avoided 2, breaks avoided 0, and saved
/// = Σ (original − append) over turns 1-2 = 0 (the same requests there).
/// The appended sample changes nothing in place: `append` sends it as it is.
#[test]
fn append_figures_recomputed_by_hand() {
    let (m3, m4) = the_two_messages(EDITED);
    let (m3, m4) = (
        tokens(&serde_json::to_string(&m3).unwrap()),
        tokens(&serde_json::to_string(&m4).unwrap()),
    );
    assert_eq!((m3, m4), (178, 26));
    let report = analyze(EDITED, &Strategy::ALL);
    let append = report.append.clone().expect("append figures");
    assert_eq!(append.changes, 2);
    assert_eq!(append.refusals_avoided, 2);
    assert_eq!(append.breaks_avoided, 0);
    assert_eq!(append.change_tokens, m3 + m4);
    assert_eq!(append.saved_tokens, 0.0);
    let (o, a) = (
        rows(&report, Strategy::Original),
        rows(&report, Strategy::Append),
    );
    for t in [3, 4] {
        assert!(o[t - 1].prefix_check.is_some(), "original refused on {t}");
        assert_eq!(a[t - 1].prefix_check, None, "append sent validly on {t}");
        assert_eq!(a[t - 1].cost, None, "a failed call is outside the chain");
    }
    assert_eq!(a[2].total_tokens, Some(o[0].context_tokens.unwrap() + m3));
    assert_eq!(
        a[3].total_tokens,
        Some(o[0].context_tokens.unwrap() + m3 + m4)
    );

    let report = analyze(APPENDED, &Strategy::ALL);
    assert!(report.append.is_none());
    let (o, a) = (
        rows(&report, Strategy::Original),
        rows(&report, Strategy::Append),
    );
    for (o, a) in o.iter().zip(a) {
        assert_eq!((o.prompt_tokens, o.cost), (a.prompt_tokens, a.cost));
        assert_eq!(a.status, Some(Applies::NotApplicable));
    }
}

/// On a model that takes no tool changes the change is refused, with the reason, on its row
/// and in the figures; `append` sends the list as edited from then on (the row costs what
/// `original`'s does: no saving where it cannot be sent).
#[test]
fn append_is_refused_where_the_model_takes_no_tool_changes() {
    let tool = |name: &str| json!({"name": name, "input_schema": {"type": "object"}});
    let tools = [tool("a"), tool("b")];
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(
        &[Strategy::Original, Strategy::Append],
        &Settings::default(),
        &counter,
        None,
    );
    let body = |tools: &[Value]| {
        json!({"model": "claude-sonnet-4-5", "max_tokens": 10, "system": "s", "tools": tools,
            "messages": [{"role": "user", "content": "go"}]})
    };
    analyzer.push(record(1, body(&tools[..1]), None)).unwrap();
    analyzer.push(record(2, body(&tools), None)).unwrap();
    analyzer.push(record(3, body(&tools), None)).unwrap();
    let report = analyzer.finish(TraceInfo::default());
    let append = report.append.clone().unwrap();
    assert_eq!(append.changes, 0);
    assert_eq!(append.refused_total, 1);
    assert_eq!(
        append.refused,
        ["turn 2: Sonnet 4.5 takes no mid-conversation tool changes"]
    );
    assert_eq!(append.saved_tokens, 0.0);
    let (o, a) = (
        rows(&report, Strategy::Original),
        rows(&report, Strategy::Append),
    );
    assert_eq!(a[1].status, Some(Applies::Refused));
    assert_eq!(
        a[1].error.as_deref(),
        Some("Sonnet 4.5 takes no mid-conversation tool changes")
    );
    assert_eq!(a[2].status, Some(Applies::NotApplicable));
    for (o, a) in o.iter().zip(a) {
        assert_eq!((o.prompt_tokens, o.cost), (a.prompt_tokens, a.cost));
    }
    // The table marks the refused turn `!` and says why under the totals.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let line = |n: usize, tools: &[Value]| {
        json!({"request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
            "body": body(tools)}, "response": {"status_code": 200, "body": {}},
            "logged_at": format!("2026-12-01T10:00:0{n}.000Z")})
        .to_string()
    };
    let text = [line(1, &tools[..1]), line(2, &tools), line(3, &tools)].join("\n");
    std::fs::write(&path, text).unwrap();
    let (out, _) = run_ok(&["session", path.to_str().unwrap(), "-s", "original,append"]);
    let row = out
        .lines()
        .skip_while(|l| !l.starts_with("Strategies:"))
        .find(|l| l.trim_start().starts_with("2 "))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert!(cells[1].starts_with('*'), "original edits in place: {row}");
    assert!(
        cells[3].starts_with('!') && !cells[3].contains('*'),
        "append refused: {row}"
    );
    assert!(
        out.contains("  append: refuses 1 turn(s), first turn 2: Sonnet 4.5 takes no mid-conversation tool changes"),
        "{out}"
    );
}

/// `export --turn 4 -s append` on the sample edited in place: turn 4's body with the thread's
/// first `tools` and the two system messages appended where they stand (after the five
/// messages both turns share), nothing else changed; the beta it needs on standard error.
#[test]
fn export_writes_the_turn_as_append_sends_it() {
    let lines = lines(EDITED);
    let mut body = lines[3]["request"]["body"].clone();
    body["tools"] = lines[0]["request"]["body"]["tools"].clone();
    let (m3, m4) = the_two_messages(EDITED);
    let messages = body["messages"].as_array_mut().unwrap();
    assert_eq!(messages.len(), 5);
    messages.push(m3);
    messages.push(m4);
    let expected = serde_json::to_string(&body).unwrap() + "\n";
    let (out, err) = run_ok(&["export", EDITED, "--turn", "4", "-s", "append", "-o", "-"]);
    assert_eq!(out, expected);
    // Into a pipe, as into a file, the beta it needs is said.
    let needs = "toolprism: append needs: the `inline-tools-2026-09-15` beta (anthropic-beta header) for its 2 system messages\n";
    assert_eq!(err, needs);
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t4.json");
    let (_, err) = run_ok(&[
        "export",
        EDITED,
        "--turn",
        "4",
        "-s",
        "append",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), expected);
    assert!(err.ends_with(needs), "{err}");
    // `show` prints what `export` writes.
    let shown = run_ok(&["show", EDITED, "--turn", "4", "-s", "append"]).0;
    assert_eq!(shown, expected);
    // Piped in, the trace is read twice (the turn, then its thread) from the copy kept of it.
    let piped = crate::support::command::toolprism()
        .args(["export", "-", "--turn", "4", "-s", "append", "-o", "-"])
        .write_stdin(std::fs::read(EDITED).unwrap())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(piped).unwrap(), expected);
    // Before any change: the request as it is.
    let (out, _) = run_ok(&["export", EDITED, "--turn", "2", "-s", "append", "-o", "-"]);
    let as_sent = run_ok(&["export", EDITED, "--turn", "2", "-s", "original", "-o", "-"]).0;
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        serde_json::from_str::<Value>(&as_sent).unwrap()
    );
    // The exported request reads back as the tools in effect the session replays.
    let (report, _) = run_ok(&["report", target.to_str().unwrap()]);
    assert!(
        report.contains("mcp__gh__create_issue  defined inline at message 6"),
        "{report}"
    );
    assert!(
        report.contains("bash                   removed at message 7"),
        "{report}"
    );
}

/// Where the provider refuses `append`, `export` says so in one line and writes nothing.
#[test]
fn export_is_refused_where_append_is() {
    let line = fails_with(&[
        "export",
        "samples/traces/claude-code-mcp-connects.jsonl",
        "--turn",
        "6",
        "-s",
        "append",
        "-o",
        "-",
    ]);
    assert_eq!(
        line,
        "toolprism: samples/traces/claude-code-mcp-connects.jsonl turn 6 (line 6): `append` refuses this capture: Sonnet 4.5 takes no mid-conversation tool changes"
    );
}

/// A `cache_control` marker that moves (a host marking its new last tool) is caching, not a
/// tool change: it restarts no cache and passes the prefix check. With nothing sent yet,
/// `append` sends the host's marks as the host does: its rows are `original`'s, and it has no
/// figures (before, it kept the first marks and reported where each wrote as a saving and the
/// move as a break avoided). After a change it sent, it keeps its own list: a later move sends
/// nothing and is no break avoided (the break of the turn that added `c` is).
#[test]
fn a_moved_marker_is_no_change_to_send() {
    let marked = |name: &str, mark: bool| {
        let mut entry = json!({"name": name, "description": format!("The {name} tool. ").repeat(300),
            "input_schema": {"type": "object"}});
        if mark {
            entry["cache_control"] = json!({"type": "ephemeral"});
        }
        entry
    };
    let body = |tools: Vec<Value>, turns: usize| {
        json!({"model": "claude-opus-4-8", "max_tokens": 10, "system": "s",
            "tools": tools, "messages": conversation(turns)})
    };
    let api = "https://api.anthropic.com/v1/messages";
    let report = replay(&[
        (
            body(vec![marked("a", true), marked("b", false)], 1),
            api,
            200,
        ),
        (
            body(vec![marked("a", false), marked("b", true)], 2),
            api,
            200,
        ),
    ]);
    let (o, a) = (
        rows(&report, Strategy::Original),
        rows(&report, Strategy::Append),
    );
    assert_eq!(o[1].stable, Some(false), "original's list changed");
    for (o, a) in o.iter().zip(a) {
        assert_eq!(
            (o.prompt_tokens, o.read, o.write, o.input, o.cost),
            (a.prompt_tokens, a.read, a.write, a.input, a.cost)
        );
        assert_eq!(a.status, Some(Applies::NotApplicable));
    }
    assert!(report.append.is_none(), "{:?}", report.append);

    // A top-level `cache_control` too: each request's last block is marked.
    let last = |tools: Vec<Value>, turns: usize| {
        let mut b = body(tools, turns);
        b["cache_control"] = json!({"type": "ephemeral"});
        b
    };
    let report = replay(&[
        (
            last(vec![marked("a", true), marked("b", false)], 1),
            api,
            200,
        ),
        (
            last(
                vec![marked("a", true), marked("b", false), marked("c", false)],
                2,
            ),
            api,
            200,
        ),
        (
            last(
                vec![marked("a", false), marked("b", false), marked("c", true)],
                3,
            ),
            api,
            200,
        ),
    ]);
    let (o, a) = (
        rows(&report, Strategy::Original),
        rows(&report, Strategy::Append),
    );
    assert_eq!((o[1].stable, o[2].stable), (Some(false), Some(false)));
    assert_eq!(
        a[2].total_tokens, a[1].total_tokens,
        "no message for the move"
    );
    let append = report.append.clone().unwrap();
    assert_eq!(append.changes, 1);
    assert_eq!(append.breaks_avoided, 1, "turn 2's, not the move's");
    // The move: `append` reads more than `original` there (its prompt holds the message), yet
    // a marker restarts nothing: no break of `original`'s to avoid.
    assert!(a[2].read.unwrap() > o[2].read.unwrap());
    assert!(a[1].read.unwrap() > o[1].read.unwrap());
    let by_hand: f64 = (0..3).map(|t| cost(&o[t]) - cost(&a[t])).sum();
    assert!(
        (append.saved_tokens - by_hand).abs() < 0.01,
        "{append:?} {by_hand}"
    );
}

/// A tool entry with a long description, so that its tokens matter.
fn big_tool(name: &str) -> Value {
    json!({"name": name, "description": format!("The {name} tool reads and writes. ").repeat(30),
        "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}})
}

/// Turn `n`'s conversation: `n` user messages, an answer between each.
fn conversation(n: usize) -> Vec<Value> {
    let mut messages = vec![json!({"role": "user", "content": "go"})];
    for k in 1..n {
        messages.push(json!({"role": "assistant", "content": format!("step {k}")}));
        messages.push(json!({"role": "user", "content": "next"}));
    }
    messages
}

/// A session of `original` and `append` over records built by `body`, each with its URL and
/// status.
fn replay(bodies: &[(Value, &str, u16)]) -> SessionReport {
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(
        &[Strategy::Original, Strategy::Append],
        &Settings::default(),
        &counter,
        None,
    );
    for (n, (body, url, status)) in bodies.iter().enumerate() {
        let mut rec = record(n + 1, body.clone(), None);
        rec.url = Some((*url).to_owned());
        rec.status = Some(*status);
        analyzer.push(rec).unwrap();
    }
    analyzer.finish(TraceInfo::default())
}

const INVOKE: &str = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-opus-4-8-v1:0/invoke";
const CONVERSE: &str = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-opus-4-8-v1:0/converse";

/// Bedrock InvokeModel takes tool changes by reference only: `append` declares the thread's
/// later tool (`c`) deferred up front (no context) and adds it by `tool_reference` at turn 2,
/// withdraws it by `tool_removal` at turn 4. By hand, with P the prompt tokens of `original`'s
/// row, C its tools in context and m2, m4 the messages (m2 = the reference's own tokens plus
/// `c`'s definition, rendered where the addition stands; m4 = the removal's tokens):
///   A2 = P2 − C2 + C1 + m2, A3 = P3 − C3 + C1 + m2, A4 = P4 − C4 + C1 + m2 + m4;
///   append reads each previous prompt whole and writes the rest (a top-level
///   `cache_control` marks its last block);
///   saved = Σ (original's cost − append's) at 0.1 read, 1.25 written, 1 plain.
#[test]
fn bedrock_invoke_model_appends_by_reference_recomputed_by_hand() {
    let (a, b, c) = (big_tool("a"), big_tool("b"), big_tool("c"));
    let body = |tools: Vec<Value>, n: usize| {
        json!({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 10,
            "system": "You review code. ".repeat(150), "tools": tools,
            "messages": conversation(n), "cache_control": {"type": "ephemeral"}})
    };
    let lists = [
        vec![a.clone(), b.clone()],
        vec![a.clone(), b.clone(), c.clone()],
        vec![a.clone(), b.clone(), c.clone()],
        vec![a.clone(), b.clone()],
    ];
    let bodies: Vec<(Value, &str, u16)> = lists
        .iter()
        .enumerate()
        .map(|(i, l)| (body(l.clone(), i + 1), INVOKE, 200))
        .collect();
    let report = replay(&bodies);
    let (o, ap) = (
        rows(&report, Strategy::Original),
        rows(&report, Strategy::Append),
    );
    let m2 = tokens(
        r#"{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_reference","name":"c"}}]}"#,
    ) + tokens(&serde_json::to_string(&c).unwrap());
    let m4 = tokens(
        r#"{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"c"}}]}"#,
    );
    let p = |t: usize| o[t - 1].prompt_tokens.unwrap();
    let cx = |t: usize| o[t - 1].context_tokens.unwrap();
    let prompt = [
        p(1),
        p(2) - cx(2) + cx(1) + m2,
        p(3) - cx(3) + cx(1) + m2,
        p(4) - cx(4) + cx(1) + m2 + m4,
    ];
    for t in 1..=4 {
        assert_eq!(ap[t - 1].prompt_tokens, Some(prompt[t - 1]), "turn {t}");
    }
    assert_eq!(
        ap[1].total_tokens,
        Some(cx(1) + m2),
        "tools kept plus the message"
    );
    for t in 2..=4 {
        assert_eq!(ap[t - 1].stable, Some(true), "turn {t}");
        assert_eq!(
            (ap[t - 1].read, ap[t - 1].write),
            (Some(prompt[t - 2]), Some(prompt[t - 1] - prompt[t - 2])),
            "turn {t}"
        );
    }
    // `original` edits in place at turns 2 and 4, and writes its whole prompt at turn 2.
    assert_eq!((o[1].stable, o[3].stable), (Some(false), Some(false)));
    assert_eq!((o[1].read, o[1].write), (Some(0), Some(p(2))));
    let saved: f64 = (0..4).map(|i| cost(&o[i]) - cost(&ap[i])).sum();
    for row in o.iter().chain(ap) {
        assert!((row.cost.unwrap() - cost(row)).abs() < 1e-6, "{row:?}");
    }
    let append = report.append.clone().expect("append figures");
    assert_eq!(append.changes, 2);
    assert_eq!(append.change_tokens, m2 + m4);
    assert_eq!(append.forms, [toolprism::session::ChangeForm::Reference]);
    assert_eq!(append.refused_total, 0);
    assert!(saved > 0.0);
    assert!(
        (append.saved_tokens - saved).abs() < 0.01,
        "{append:?} {saved}"
    );
    // Turn 2's break: `original` read nothing, `append` its whole previous prompt. Turn 4's:
    // `original` reads what turn 1 left (less than `append`'s turn 3), so it counts too.
    assert!(o[3].read.unwrap() < ap[3].read.unwrap());
    assert_eq!(append.breaks_avoided, 2);
}

/// Converse takes `toolAddition` / `toolRemoval` by `ToolReference`, and its tool
/// specification has no `defer_loading`: a tool of the thread's first list removed and added
/// back goes by reference; a tool new to the thread is refused, with the reason, and the list
/// is sent as edited from there. `export` writes Converse's own field names.
#[test]
fn converse_appends_by_reference_and_refuses_a_tool_new_to_the_thread() {
    let spec = |name: &str| {
        let t = big_tool(name);
        json!({"toolSpec": {"name": name, "description": t["description"],
            "inputSchema": {"json": t["input_schema"]}}})
    };
    let body = |names: &[&str], n: usize| {
        let mut messages = vec![json!({"role": "user", "content": [{"text": "go"}]})];
        for k in 1..n {
            messages.push(json!({"role": "assistant", "content": [{"text": format!("step {k}")}]}));
            messages.push(json!({"role": "user", "content": [{"text": "next"}]}));
        }
        let mut tools: Vec<Value> = names.iter().map(|n| spec(n)).collect();
        tools.push(json!({"cachePoint": {"type": "default"}}));
        json!({"system": [{"text": "You review code. ".repeat(150)}, {"cachePoint": {"type": "default"}}],
            "messages": messages, "toolConfig": {"tools": tools},
            "inferenceConfig": {"maxTokens": 10}})
    };
    let lists: [&[&str]; 4] = [
        &["a", "b", "c"],
        &["a", "b"],
        &["a", "b", "c"],
        &["a", "b", "c", "d"],
    ];
    let bodies: Vec<(Value, &str, u16)> = lists
        .iter()
        .enumerate()
        .map(|(i, l)| (body(l, i + 1), CONVERSE, 200))
        .collect();
    let report = replay(&bodies);
    let ap = rows(&report, Strategy::Append);
    let m2 = tokens(r#"{"role":"system","content":[{"toolRemoval":{"tool":{"name":"c"}}}]}"#);
    let m3 = tokens(r#"{"role":"system","content":[{"toolAddition":{"tool":{"name":"c"}}}]}"#);
    let append = report.append.clone().expect("append figures");
    assert_eq!(append.changes, 2);
    assert_eq!(
        append.change_tokens,
        m2 + m3,
        "a re-addition renders nothing new"
    );
    assert_eq!(append.forms, [toolprism::session::ChangeForm::Converse]);
    let why = "`d` is new to the thread: Bedrock Converse adds tools by reference only, and its tool specification has no `defer_loading` to declare it up front";
    assert_eq!(append.refused, [format!("turn 4: {why}")]);
    assert_eq!(ap[3].status, Some(Applies::Refused));
    assert_eq!(ap[3].error.as_deref(), Some(why));

    // The trace on disk, for `export`.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("converse.jsonl");
    let text: Vec<String> = bodies
        .iter()
        .enumerate()
        .map(|(i, (b, url, _))| {
            json!({"request": {"method": "POST", "url": url, "body": b},
                "response": {"status_code": 200, "body": {}},
                "logged_at": format!("2026-12-01T10:00:0{}.000Z", i + 1)})
            .to_string()
        })
        .collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    let path = path.to_str().unwrap();
    let (out, err) = run_ok(&["export", path, "--turn", "3", "-s", "append", "-o", "-"]);
    let mut expected = bodies[2].0.clone();
    let messages = expected["messages"].as_array_mut().unwrap();
    messages.insert(
        3,
        json!({"role": "system", "content": [{"toolRemoval": {"tool": {"name": "c"}}}]}),
    );
    messages
        .push(json!({"role": "system", "content": [{"toolAddition": {"tool": {"name": "c"}}}]}));
    expected["additionalModelRequestFields"] =
        json!({"anthropic_beta": ["mid-conversation-tool-changes-2026-07-01"]});
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), expected);
    assert_eq!(
        err,
        "toolprism: append needs: the `mid-conversation-tool-changes-2026-07-01` beta (written in `additionalModelRequestFields.anthropic_beta`) for its 2 system messages\n"
    );
    // Turn 4: the list as edited, and why, in one line.
    let (out, err) = run_ok(&["export", path, "--turn", "4", "-s", "append", "-o", "-"]);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), bodies[3].0);
    assert_eq!(
        err,
        format!(
            "toolprism: append: the list as edited in place from turn 4 on, where the provider takes the change no other way: {why}\n"
        )
    );
}

/// `export -s append` on Bedrock InvokeModel: the thread's first `tools`, then every later
/// tool of the thread (read from the rest of the trace, past the turn written) declared with
/// `defer_loading: true` and without its `cache_control`; the references placed; the beta in
/// the body's `anthropic_beta`. Read back, `c` is added at its message and `d` deferred.
#[test]
fn export_on_bedrock_declares_later_tools_deferred() {
    let (a, c, d) = (big_tool("a"), big_tool("c"), big_tool("d"));
    let mut marked = d.clone();
    marked["cache_control"] = json!({"type": "ephemeral"});
    let body = |tools: Vec<Value>, n: usize| {
        json!({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 10,
            "system": "s", "tools": tools, "messages": conversation(n)})
    };
    let bodies = [
        body(vec![a.clone()], 1),
        body(vec![a.clone(), c.clone()], 2),
        body(vec![a.clone(), c.clone(), marked], 3),
    ];
    let dir = tempfile::tempdir().unwrap();
    let calls: Vec<(&Value, &str)> = bodies.iter().map(|b| (b, INVOKE)).collect();
    let path = answered_calls(dir.path(), "invoke.jsonl", &calls);
    let path = path.to_str().unwrap();
    let (out, err) = run_ok(&["export", path, "--turn", "2", "-s", "append", "-o", "-"]);
    let deferred = |e: &Value| {
        let mut e = e.clone();
        e["defer_loading"] = json!(true);
        e
    };
    let mut expected = bodies[1].clone();
    expected["tools"] = json!([a, deferred(&c), deferred(&d)]);
    expected["messages"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "system", "content": [
        {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "c"}}]}));
    expected["anthropic_beta"] = json!(["mid-conversation-tool-changes-2026-07-01"]);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), expected);
    assert_eq!(
        err,
        "toolprism: append needs: 2 later tools of the thread declared up front with `defer_loading: true`, out of context until a `tool_reference` adds them\n\
         toolprism: append needs: the `mid-conversation-tool-changes-2026-07-01` beta (written in the body's `anthropic_beta`) for its 1 system message\n"
    );
    let file = dir.path().join("t2.json");
    std::fs::write(&file, &out).unwrap();
    let (shown, _) = run_ok(&["report", file.to_str().unwrap()]);
    assert!(shown.contains("c     added at message 4"), "{shown}");
    assert!(shown.contains("d     deferred, never added"), "{shown}");
}

/// The figures on variants where `append` is no saving or no refusal avoided. Without any
/// cache mark nothing is cached, so there is no break to avoid, and a removal sent as a
/// message costs more than the shorter list: by hand, each turn from the change on costs
/// `append` the removed tool's context (C1 − C_t) and the removal's m more, and the line says
/// so in words. On a model binding thinking, a turn the trace shows answered (200) is no refused
/// turn avoided: it is counted apart, as a failed prefix check kept intact.
#[test]
fn append_figures_on_variants_recomputed_by_hand() {
    let (a, b, c) = (big_tool("a"), big_tool("b"), big_tool("c"));
    let plain = |tools: Vec<Value>, n: usize| {
        json!({"model": "claude-opus-4-8", "max_tokens": 10, "system": "s", "tools": tools,
            "messages": conversation(n)})
    };
    let api = "https://api.anthropic.com/v1/messages";
    let bodies = vec![
        (plain(vec![a.clone(), b.clone(), c.clone()], 1), api, 200),
        (plain(vec![a.clone(), b.clone()], 2), api, 200),
        (plain(vec![a.clone(), b.clone()], 3), api, 200),
    ];
    let report = replay(&bodies);
    let (o, ap) = (
        rows(&report, Strategy::Original),
        rows(&report, Strategy::Append),
    );
    let m = tokens(
        r#"{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"c"}}]}"#,
    );
    let cx = |t: usize| o[t - 1].context_tokens.unwrap();
    let by_hand = -((cx(1) - cx(2) + m) as f64 + (cx(1) - cx(3) + m) as f64);
    for row in o.iter().chain(ap) {
        assert_eq!((row.read, row.write), (Some(0), Some(0)), "nothing cached");
    }
    let append = report.append.clone().unwrap();
    assert_eq!(append.breaks_avoided, 0, "nothing cached, nothing broken");
    assert_eq!(append.changes, 1);
    assert!(
        (append.saved_tokens - by_hand).abs() < 0.01,
        "{append:?} {by_hand}"
    );
    let dir = tempfile::tempdir().unwrap();
    let calls: Vec<(&Value, &str)> = bodies.iter().map(|(b, url, _)| (b, *url)).collect();
    let path = answered_calls(dir.path(), "t.jsonl", &calls);
    let (out, _) = run_ok(&["session", path.to_str().unwrap(), "-s", "original,append"]);
    let line = out.lines().find(|l| l.starts_with("append (")).unwrap();
    let more = format!("costs {} input tokens", -by_hand as usize);
    assert!(
        line.contains(&more) && line.contains("more than original"),
        "{line}"
    );
    assert!(!line.contains("saved"), "{line}");

    // Opus 5.5 binds thinking; turn 2 edits the list in place and is answered (200).
    let thinking = |tools: Vec<Value>, n: usize| {
        let mut messages = vec![json!({"role": "user", "content": "go"})];
        for k in 1..n {
            messages.push(json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": format!("t{k}"), "signature": "sig"},
                {"type": "text", "text": format!("step {k}")}]}));
            messages.push(json!({"role": "user", "content": "next"}));
        }
        json!({"model": "claude-opus-5-5", "max_tokens": 10, "system": "s", "tools": tools,
            "messages": messages, "cache_control": {"type": "ephemeral"}})
    };
    let answered = replay(&[
        (thinking(vec![a.clone(), b.clone()], 1), api, 200),
        (thinking(vec![a.clone(), b.clone(), c.clone()], 2), api, 200),
    ]);
    let o = rows(&answered, Strategy::Original);
    assert!(o[1].prefix_check.is_some(), "the rule marks the edit");
    let figures = answered.append.clone().unwrap();
    assert_eq!((figures.refusals_avoided, figures.checks_avoided), (0, 1));
    let refused = replay(&[
        (thinking(vec![a.clone(), b.clone()], 1), api, 200),
        (thinking(vec![a, b, c], 2), api, 400),
    ]);
    let figures = refused.append.clone().unwrap();
    assert_eq!((figures.refusals_avoided, figures.checks_avoided), (1, 0));
}

/// On a terminal 80 or 120 columns wide, a session where `append` acts keeps its column (the
/// other strategies give way first) and its line, folded inside the width, reads whole.
#[test]
fn append_keeps_its_column_and_line_at_80_and_120_columns() {
    use crate::support::command::{bin, root};
    for columns in [80, 120] {
        let command = format!("COLUMNS={columns} '{}' session {SAVES}", bin());
        let test = "append_keeps_its_column_and_line_at_80_and_120_columns";
        let Some(out) =
            crate::support::tools::in_pty(&command, &root(), &[("PAGER", "cat")], &[], test)
        else {
            return;
        };
        let text = crate::support::sgr::strip_sgr(&String::from_utf8(out.stdout).unwrap())
            .replace("\r\n", "\n");
        let wide: Vec<&str> = text
            .lines()
            .filter(|l| toolprism::text::width(l) > columns)
            .collect();
        assert!(wide.is_empty(), "{wide:?}");
        let header = text
            .lines()
            .skip_while(|l| !l.starts_with("Strategies:"))
            .find(|l| l.starts_with("  turn "))
            .unwrap();
        assert!(header.trim_end().ends_with("append"), "{columns}: {header}");
        let joined = text.replace("\n  ", " ");
        assert!(
            joined.contains("append (each tool list change as a system message: tools defined inline): 2 changes sent, 2 breaks avoided; 204 tokens of system messages; saved 5,415 input tokens ($0.03) against original"),
            "{columns}: {text}"
        );
    }
    // The refusals' legends fold inside the width too (the sample edited in place).
    let command = format!("COLUMNS=80 '{}' session {EDITED}", bin());
    let test = "append_keeps_its_column_and_line_at_80_and_120_columns";
    let Some(out) =
        crate::support::tools::in_pty(&command, &root(), &[("PAGER", "cat")], &[], test)
    else {
        return;
    };
    let text = crate::support::sgr::strip_sgr(&String::from_utf8(out.stdout).unwrap())
        .replace("\r\n", "\n");
    let wide: Vec<&str> = text
        .lines()
        .filter(|l| toolprism::text::width(l) > 80)
        .collect();
    assert!(wide.is_empty(), "{wide:?}");
    assert!(
        text.contains("! the provider refuses that request: the strategy's tool list changed in place\n  after thinking"),
        "{text}"
    );
}

/// A Converse `cachePoint` entry the host adds to its list is caching, not a tool: `append`
/// sends no message for it (never a reference to a nameless tool, never a refusal) and, with
/// nothing sent yet, sends the host's list as it is, as `export` does.
#[test]
fn a_converse_cache_point_is_no_tool_to_send() {
    let spec = |name: &str| {
        let t = big_tool(name);
        json!({"toolSpec": {"name": name, "description": t["description"],
            "inputSchema": {"json": t["input_schema"]}}})
    };
    let body = |marked: bool, n: usize| {
        let mut messages = vec![json!({"role": "user", "content": [{"text": "go"}]})];
        for k in 1..n {
            messages.push(json!({"role": "assistant", "content": [{"text": format!("step {k}")}]}));
            messages.push(json!({"role": "user", "content": [{"text": "next"}]}));
        }
        let mut tools = vec![spec("a"), spec("b")];
        if marked {
            tools.push(json!({"cachePoint": {"type": "default"}}));
        }
        json!({"system": [{"text": "s"}], "messages": messages, "toolConfig": {"tools": tools}})
    };
    let bodies = [
        (body(false, 1), CONVERSE, 200),
        (body(true, 2), CONVERSE, 200),
    ];
    let report = replay(&bodies);
    let ap = rows(&report, Strategy::Append);
    let o = rows(&report, Strategy::Original);
    assert_eq!(
        ap[1].status,
        Some(Applies::NotApplicable),
        "{:?}",
        ap[1].error
    );
    assert_eq!(
        ap[1].total_tokens, o[1].total_tokens,
        "the host's list, no message"
    );
    assert!(report.append.is_none(), "{:?}", report.append);

    let dir = tempfile::tempdir().unwrap();
    let calls: Vec<(&Value, &str)> = bodies.iter().map(|(b, url, _)| (b, *url)).collect();
    let path = answered_calls(dir.path(), "cp.jsonl", &calls);
    let (out, err) = run_ok(&[
        "export",
        path.to_str().unwrap(),
        "--turn",
        "2",
        "-s",
        "append",
        "-o",
        "-",
    ]);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), bodies[1].0);
    assert_eq!(
        err,
        "toolprism: append: the thread's tool list has not changed by this turn: the request as it is\n"
    );
}

/// A trace in `dir` named `name`: each call POSTed to its URL with its body, answered 200.
fn answered_calls(
    dir: &std::path::Path,
    name: &str,
    calls: &[(&Value, &str)],
) -> std::path::PathBuf {
    let path = dir.join(name);
    let text: Vec<String> = calls
        .iter()
        .map(|(body, url)| {
            json!({"request": {"method": "POST", "url": url, "body": body},
                "response": {"status_code": 200, "body": {}}})
            .to_string()
        })
        .collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    path
}
