//! The session analysis (SESSIONS.md sections 2-4) on traces built here, every expected figure
//! computed independently in the test: compact arrays serialized here, tokens counted here with
//! tiktoken-rs, byte offsets found by comparing the bytes here.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use toolprism::Settings;
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::session::{Analyzer, SessionReport, TraceInfo};
use toolprism::strategy::Strategy;
use toolprism::trace::{RecordBody, TraceRecord, Usage};

use crate::support::command::{output_of, stdout_of};
use crate::support::records::record;

fn tool(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}
    })
}

fn body(user: &str, tools: &[Value], messages: Vec<Value>) -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "metadata": {"user_id": user},
        "system": "You are a helpful assistant.",
        "messages": messages,
        "tools": tools,
    })
}

fn say(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn usage(input: u64, cache_write: u64, cache_read: u64) -> Option<Usage> {
    Some(Usage {
        input,
        cache_write,
        cache_read,
        ..Usage::default()
    })
}

fn compact_array(tools: &[Value]) -> String {
    serde_json::to_string(&Value::Array(tools.to_vec())).unwrap()
}

fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

fn first_diff(a: &str, b: &str) -> Option<usize> {
    if a == b {
        return None;
    }
    Some(a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count())
}

fn analyze(
    records: Vec<TraceRecord>,
    strategies: &[Strategy],
    settings: &Settings,
) -> SessionReport {
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(strategies, settings, &counter, None);
    for record in records {
        analyzer.push(record).unwrap();
    }
    analyzer.finish(TraceInfo {
        path: "test.jsonl".into(),
        format: "jsonl",
        ..TraceInfo::default()
    })
}

#[test]
fn per_turn_facts_against_the_previous_turn_of_the_thread() {
    let a = tool("alpha", "Reads a file.");
    let b = tool("beta", "Writes a file.");
    let c = tool("gamma", "Lists a folder with ünïcödé.");
    let b2 = tool("beta", "Writes a file, atomically.");
    let mut c2 = c.clone();
    c2["cache_control"] = json!({"type": "ephemeral"});
    let d = tool("delta", "Deletes a file.");
    let lists = [
        vec![a.clone(), b.clone(), c.clone()],
        vec![a.clone(), b.clone(), c.clone()],
        vec![c.clone(), a.clone(), b.clone()],
        vec![c.clone(), a.clone(), b2.clone(), d.clone()],
        vec![c2.clone(), a.clone(), b2.clone(), d.clone()],
        vec![c2.clone(), b2.clone(), d.clone()],
    ];
    let records = lists
        .iter()
        .enumerate()
        .map(|(i, tools)| record(i + 1, body("u1", tools, vec![say("hi")]), None))
        .collect();
    let report = analyze(records, &[Strategy::Original], &Settings::default());
    let turns = &report.turns;
    assert_eq!(turns.len(), 6);
    for (turn, tools) in turns.iter().zip(&lists) {
        let array = compact_array(tools);
        assert_eq!(turn.tools, Some(tools.len()));
        assert_eq!(turn.tools_bytes, Some(array.len()));
        assert_eq!(turn.tools_tokens, Some(tokens(&array)));
        assert_eq!(turn.thread, "t1");
    }
    // Turn 1: nothing to compare with; turn 2: identical.
    assert_eq!(turns[0].first_changed_byte, None);
    assert_eq!(turns[1].first_changed_byte, None);
    assert!(turns[1].added.is_empty() && turns[1].changed.is_empty());
    // Turn 3: a reorder.
    let (before, now) = (compact_array(&lists[1]), compact_array(&lists[2]));
    let byte = first_diff(&before, &now).unwrap();
    assert_eq!(turns[2].first_changed_byte, Some(byte));
    assert_eq!(
        turns[2].first_changed_char,
        Some(now[..byte].chars().count())
    );
    assert_eq!(turns[2].first_changed_entry.as_deref(), Some("gamma"));
    assert!(turns[2].order_changed);
    assert!(turns[2].added.is_empty() && turns[2].removed.is_empty());
    assert!(turns[2].changed.is_empty());
    // Turn 4: beta's description changed, delta added; same order otherwise.
    let (before, now) = (compact_array(&lists[2]), compact_array(&lists[3]));
    let byte = first_diff(&before, &now).unwrap();
    assert_eq!(turns[3].first_changed_byte, Some(byte));
    assert_eq!(
        turns[3].first_changed_char,
        Some(now[..byte].chars().count())
    );
    assert_eq!(turns[3].first_changed_entry.as_deref(), Some("beta"));
    assert_eq!(turns[3].added, vec!["delta".to_owned()]);
    assert!(!turns[3].order_changed);
    let changed: Vec<(String, Vec<&str>)> = turns[3]
        .changed
        .iter()
        .map(|c| (c.name.clone(), c.fields.clone()))
        .collect();
    assert_eq!(changed, vec![("beta".to_owned(), vec!["description"])]);
    // Turn 5: a cache_control marker only, at the end of the first entry: past its
    // multi-byte characters, so bytes and characters differ.
    let (before, now) = (compact_array(&lists[3]), compact_array(&lists[4]));
    let byte = first_diff(&before, &now).unwrap();
    assert_eq!(turns[4].first_changed_byte, Some(byte));
    assert_eq!(
        turns[4].first_changed_char,
        Some(now[..byte].chars().count())
    );
    assert_ne!(
        byte,
        now[..byte].chars().count(),
        "the offsets differ past ünïcödé"
    );
    assert_eq!(turns[4].changed.len(), 1);
    assert_eq!(turns[4].changed[0].name, "gamma");
    assert_eq!(turns[4].changed[0].fields, vec!["cache_control"]);
    // Turn 6: alpha removed.
    assert_eq!(turns[5].removed, vec!["alpha".to_owned()]);
    assert!(turns[5].added.is_empty());
    let (before, now) = (compact_array(&lists[4]), compact_array(&lists[5]));
    assert_eq!(turns[5].first_changed_byte, first_diff(&before, &now));
    assert_eq!(turns[5].first_changed_entry.as_deref(), Some("beta"));
}

#[test]
fn schema_and_other_fields_are_told_apart() {
    let a = tool("alpha", "Reads.");
    let mut schema = a.clone();
    schema["input_schema"]["properties"]["mode"] = json!({"type": "string"});
    let mut other = a.clone();
    other["type"] = json!("custom");
    let records = vec![
        record(1, body("u", std::slice::from_ref(&a), vec![]), None),
        record(2, body("u", std::slice::from_ref(&schema), vec![]), None),
        record(3, body("u", &[other], vec![]), None),
    ];
    let report = analyze(records, &[], &Settings::default());
    assert_eq!(report.turns[1].changed[0].fields, vec!["schema"]);
    assert_eq!(report.turns[2].changed[0].fields, vec!["schema", "other"]);
}

#[test]
fn the_chain_check_and_what_a_break_points_at() {
    let tools = vec![tool("alpha", "Reads."), tool("beta", "Writes.")];
    let other_tools = vec![tool("alpha", "Reads."), tool("beta", "Writes files.")];
    let m1 = vec![say("first")];
    let m2 = vec![
        say("first"),
        json!({"role": "assistant", "content": "ok"}),
        say("second"),
    ];
    let mut m3 = m2.clone();
    m3.push(say("third"));
    let mut changed_history = vec![say("FIRST")];
    changed_history.extend(m3[1..].iter().cloned());
    let terse = |tools: &[Value], messages: Vec<Value>| {
        let mut body = body("u", tools, messages);
        body["system"] = json!("You are terse.");
        body
    };
    let mut early = record(
        6,
        terse(&other_tools, changed_history.clone()),
        usage(5, 0, 1200),
    );
    early.time_ms = Some(0);
    let mut late = record(
        7,
        terse(&other_tools, changed_history.clone()),
        usage(5, 100, 1000),
    );
    late.time_ms = Some(10 * 60_000);
    let records = vec![
        record(1, body("u", &tools, m1), usage(10, 1000, 0)),
        record(2, body("u", &tools, m2.clone()), usage(10, 200, 1000)),
        record(3, body("u", &other_tools, m3.clone()), usage(10, 1200, 0)),
        record(4, terse(&other_tools, m3.clone()), usage(10, 1200, 0)),
        record(
            5,
            terse(&other_tools, changed_history.clone()),
            usage(10, 1200, 0),
        ),
        early,
        late,
        record(8, terse(&other_tools, changed_history), usage(5, 0, 100)),
    ];
    let report = analyze(records, &[], &Settings::default());
    let cache: Vec<&str> = report.turns.iter().map(|t| t.cache.word()).collect();
    // 1 cold; 2 reads 1000 = 0 + 1000; 3 tools changed; 4 another system prompt: another
    // thread (the first system block is in the key), cold; 5 history; 6 reads 1200 = 0 + 1200;
    // 7 ten minutes later; 8 reads 100 < 1000 + 100 with nothing to tell.
    assert_eq!(
        cache,
        vec![
            "cold", "hit", "break", "cold", "break", "hit", "break", "break"
        ]
    );
    let causes: Vec<Option<&str>> = report
        .turns
        .iter()
        .map(|t| t.cache_break.map(toolprism::session::BreakCause::word))
        .collect();
    assert_eq!(
        causes,
        vec![
            None,
            None,
            Some("tools"),
            None,
            Some("messages"),
            None,
            Some("lifetime"),
            Some("unknown")
        ]
    );
    let usage2 = report.turns[1].usage.unwrap();
    assert_eq!(
        (usage2.input, usage2.cache_write, usage2.cache_read),
        (10, 200, 1000)
    );
}

#[test]
fn threads_are_compared_with_themselves() {
    let one = vec![tool("alpha", "Reads."), tool("beta", "Writes.")];
    let two = vec![tool("gamma", "Greps.")];
    let mut agent = record(3, body("u", &two, vec![say("sub")]), usage(1, 50, 0));
    agent.agent_id = Some("agent-7".into());
    let mut agent2 = record(5, body("u", &two, vec![say("sub")]), usage(1, 0, 50));
    agent2.agent_id = Some("agent-7".into());
    let openai = |line: usize, key: &str| {
        record(
            line,
            json!({"model": "gpt-5", "prompt_cache_key": key, "messages": [say("x")],
                   "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}),
            None,
        )
    };
    let plain = |line: usize, first: &str| {
        record(
            line,
            json!({"model": "claude-haiku-4-5", "system": "s", "messages": [say(first)], "tools": []}),
            None,
        )
    };
    let records = vec![
        record(1, body("u", &one, vec![say("a")]), usage(1, 100, 0)),
        record(
            2,
            body("u", &one, vec![say("a"), say("b")]),
            usage(1, 10, 100),
        ),
        agent,
        record(
            4,
            body("u", &one, vec![say("a"), say("b"), say("c")]),
            usage(1, 10, 110),
        ),
        agent2,
        openai(6, "k1"),
        openai(7, "k2"),
        plain(8, "one"),
        plain(9, "two"),
        plain(10, "one"),
    ];
    let report = analyze(records, &[Strategy::Original], &Settings::default());
    let threads: Vec<&str> = report.turns.iter().map(|t| t.thread.as_str()).collect();
    assert_eq!(
        threads,
        vec!["t1", "t1", "t2", "t1", "t2", "t3", "t4", "t5", "t6", "t5"]
    );
    // Each thread's second turn is compared with its own first: nothing changed, cache hits.
    assert_eq!(report.turns[3].first_changed_byte, None);
    assert_eq!(report.turns[3].cache.word(), "hit");
    assert_eq!(report.turns[4].first_changed_byte, None);
    assert_eq!(report.turns[4].cache.word(), "hit");
    let summary: Vec<(String, usize, usize)> = report
        .trace
        .threads
        .iter()
        .map(|t| (t.id.clone(), t.turns, t.first_turn))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("t1".to_owned(), 3, 1),
            ("t2".to_owned(), 2, 3),
            ("t3".to_owned(), 1, 6),
            ("t4".to_owned(), 1, 7),
            ("t5".to_owned(), 2, 8),
            ("t6".to_owned(), 1, 9),
        ]
    );
    assert!(report.trace.threads[1].key.contains("agent agent-7"));
    assert!(
        report.trace.threads[2]
            .key
            .starts_with("prompt_cache_key k1")
    );
    assert!(report.trace.threads[4].key.starts_with("hash "));
    // Original's stability follows the thread, not the trace order.
    let stable: Vec<Option<bool>> = report.strategies[0]
        .per_turn
        .iter()
        .map(|t| t.stable)
        .collect();
    assert_eq!(
        stable,
        vec![
            None,
            Some(true),
            None,
            Some(true),
            Some(true),
            None,
            None,
            None,
            None,
            Some(true)
        ]
    );
}

#[test]
fn a_thread_filter_keeps_one_thread() {
    let one = vec![tool("alpha", "Reads.")];
    let records = || {
        vec![
            record(1, body("u1", &one, vec![]), None),
            record(2, body("u2", &one, vec![]), None),
            record(3, body("u1", &one, vec![]), None),
        ]
    };
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(
        &[Strategy::Minimal],
        &Settings::default(),
        &counter,
        Some("t1".into()),
    );
    for r in records() {
        analyzer.push(r).unwrap();
    }
    let report = analyzer.finish(TraceInfo::default());
    let turns: Vec<usize> = report.turns.iter().map(|t| t.turn).collect();
    assert_eq!(turns, vec![1, 3]);
    assert_eq!(report.strategies[0].per_turn.len(), 2);
    assert_eq!(report.trace.turns, 3);
    assert_eq!(report.trace.threads.len(), 2);
}

#[test]
fn strategy_totals_add_up_and_cost_follows_the_model() {
    let tools = vec![
        tool("alpha", "Reads a file. Then more words follow here."),
        tool("beta", "Writes a file."),
    ];
    let reordered = vec![tools[1].clone(), tools[0].clone()];
    let records = vec![
        record(1, body("u", &tools, vec![]), None),
        record(2, body("u", &tools, vec![]), None),
        record(3, body("u", &reordered, vec![]), None),
        record(4, body("u", &reordered, vec![]), None),
    ];
    let report = analyze(
        records,
        &[Strategy::Original, Strategy::Direct, Strategy::Minimal],
        &Settings::default(),
    );
    let (a, b) = (
        tokens(&compact_array(&tools)),
        tokens(&compact_array(&reordered)),
    );
    let original = &report.strategies[0];
    let per_turn: Vec<Option<usize>> = original.per_turn.iter().map(|t| t.tools_tokens).collect();
    assert_eq!(per_turn, vec![Some(a), Some(a), Some(b), Some(b)]);
    assert_eq!(original.total_tokens, 2 * a + 2 * b);
    assert_eq!(original.breaks, 1);
    assert_eq!(
        original.per_turn[2].reason.as_deref(),
        Some("a reorder in the capture")
    );
    // No cache_control anywhere: the provider caches nothing, so the model bills every token
    // of every whole prompt at 1.0 (the old model billed reads here that never happened).
    for t in &original.per_turn {
        assert_eq!((t.state, t.read, t.write), (Some("none"), Some(0), Some(0)));
        assert_eq!(t.input, t.prompt_tokens);
        assert!(t.prompt_tokens.unwrap() > t.total_tokens.unwrap());
    }
    assert_eq!(original.cost, original.cost_uncached);
    assert_eq!(original.cost, original.prompt_tokens as f64);
    // direct sorts by name: the capture's reorder changes nothing it sends.
    let direct = &report.strategies[1];
    assert_eq!(direct.breaks, 0);
    assert_eq!(direct.total_tokens, 4 * a);
    for strategy in &report.strategies {
        let sum: usize = strategy
            .per_turn
            .iter()
            .filter_map(|t| t.total_tokens)
            .sum();
        assert_eq!(sum, strategy.total_tokens, "{}", strategy.id);
        let cost: f64 = strategy.per_turn.iter().filter_map(|t| t.cost).sum();
        assert!((strategy.cost - (cost * 100.0).round() / 100.0).abs() < 1e-9);
    }
    // Against original, in percent; the base itself is +0.0%.
    let expected = ((direct.cost - original.cost) * 100.0 / original.cost * 100.0).round() / 100.0;
    assert_eq!(report.versus_original(direct).percent, Some(expected));
    assert_eq!(report.versus_original(original).to_string(), "+0.0%");
    // A strategy that acted on no turn and sends what original sends: `n/a` (code without
    // `program`), its figures all there.
    let report_code = analyze(
        vec![record(1, body("u", &tools, vec![]), None)],
        &[Strategy::Original, Strategy::Code],
        &Settings::default(),
    );
    let code = &report_code.strategies[1];
    assert!(!code.applied());
    assert!(!code.applied);
    // code without its gateway sends no tools: the difference is shown, marked n/a (the old
    // table showed `n/a` alone and hid it).
    let base = report_code.strategies[0].cost;
    let pct = ((code.cost - base) * 100.0 / base * 100.0).round() / 100.0;
    assert_eq!(code.versus_original_pct, Some(pct));
    assert!(pct < 0.0);
    assert_eq!(
        report_code.versus_original(code).to_string(),
        format!("{pct:+.1}% n/a")
    );
    assert_eq!(code.per_turn[0].total_tokens, Some(0));
    // The multipliers are settings: a marked prompt written, then read.
    let mut settings = Settings::default();
    settings.set("cache.read", "0").unwrap();
    settings.set("cache.write", "1").unwrap();
    settings.set("cache.min_tokens", "1").unwrap();
    let marked = || {
        let mut b = body("u", &tools, vec![say("hello")]);
        b["system"] = json!([{"type": "text", "text": "You are terse.",
            "cache_control": {"type": "ephemeral"}}]);
        b
    };
    let records = vec![record(1, marked(), None), record(2, marked(), None)];
    let report = analyze(records, &[Strategy::Original], &settings);
    let turns = &report.strategies[0].per_turn;
    assert_eq!(turns[0].state, Some("write"));
    assert_eq!(turns[1].state, Some("hit"));
    let whole = turns[0].prompt_tokens.unwrap();
    let user = whole - turns[0].write.unwrap();
    // Turn 1 writes the prefix at 1, sends the user message plain; turn 2 reads it at 0.
    assert_eq!(report.strategies[0].cost, (whole + user) as f64);
    assert_eq!(report.settings["cache.read"], "0");
    assert_eq!(report.settings["cache.ttl"], "auto");
    assert_eq!(report.settings["cache.min_tokens"], "1");
}

#[test]
fn the_cache_lifetime_bills_an_unchanged_prompt_again() {
    let tools = vec![tool("alpha", "Reads.")];
    let marked = || {
        let mut b = body("u", &tools, vec![]);
        b["system"] = json!([{"type": "text", "text": "You are terse.",
            "cache_control": {"type": "ephemeral"}}]);
        b
    };
    let mut first = record(1, marked(), None);
    first.time_ms = Some(1_000);
    let mut second = record(2, marked(), None);
    second.time_ms = Some(1_000 + 6 * 60_000);
    let mut third = record(3, marked(), None);
    third.time_ms = Some(1_000 + 7 * 60_000);
    let mut settings = Settings::default();
    settings.set("cache.min_tokens", "1").unwrap();
    let report = analyze(vec![first, second, third], &[Strategy::Original], &settings);
    let states: Vec<Option<&str>> = report.strategies[0]
        .per_turn
        .iter()
        .map(|t| t.state)
        .collect();
    assert_eq!(states, vec![Some("write"), Some("write"), Some("hit")]);
    assert_eq!(report.strategies[0].breaks, 0);
    assert_eq!(report.trace.untimed_turns, 0);
    // The default minimum (1,024 tokens for Sonnet) caches none of this small prompt.
    let report = analyze(
        vec![record(1, marked(), None), record(2, marked(), None)],
        &[Strategy::Original],
        &Settings::default(),
    );
    assert_eq!(report.strategies[0].per_turn[1].state, Some("none"));
    assert_eq!(report.trace.untimed_turns, 2);
}

#[test]
fn failed_calls_and_stubs_are_turns_outside_the_chain() {
    let tools = vec![tool("alpha", "Reads.")];
    let mut failed = record(2, body("u", &tools, vec![]), None);
    failed.status = Some(529);
    let stub = TraceRecord {
        body: RecordBody::CompactionStub,
        ..record(3, Value::Null, None)
    };
    let records = vec![
        record(1, body("u", &tools, vec![]), usage(1, 100, 0)),
        failed,
        stub,
        record(4, body("u", &tools, vec![]), usage(1, 0, 100)),
    ];
    let report = analyze(records, &[Strategy::Original], &Settings::default());
    assert!(report.turns[1].failed);
    assert_eq!(report.turns[1].cache.word(), "unknown");
    assert!(report.turns[2].stub);
    assert_eq!(report.turns[2].tools, None);
    assert_eq!(report.turns[2].thread, "t1");
    assert_eq!(report.turns[3].cache.word(), "hit");
    let per_turn = &report.strategies[0].per_turn;
    assert_eq!(per_turn[1].cost, None);
    assert_eq!(per_turn[2].tools_tokens, None);
    assert_eq!(per_turn[3].stable, Some(true));
    let a = tokens(&compact_array(&tools));
    assert_eq!(report.strategies[0].total_tokens, 3 * a);
    // Uncached: the two turns in the chain, whole prompts.
    let whole: usize = [0, 3]
        .iter()
        .map(|&i| per_turn[i].prompt_tokens.unwrap())
        .sum();
    assert_eq!(report.strategies[0].cost_uncached, whole as f64);
    assert_eq!(per_turn[1].prompt_tokens, per_turn[0].prompt_tokens);
}

fn mcp_tools() -> Vec<Value> {
    let mut tools: Vec<Value> = (0..12)
        .map(|i| {
            tool(
                &format!("mcp__srv__op{i:02}"),
                &format!("Operation number {i}."),
            )
        })
        .collect();
    tools.push(tool("Read", "Reads a file."));
    tools
}

#[test]
fn defer_follows_the_loaded_set() {
    let tools = mcp_tools();
    let call = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "x", "name": "tool_search", "input": {"query": "select:mcp__srv__op03"}}
    ]});
    let result = json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "x", "content": "Loaded 1 tool."}
    ]});
    let records = vec![
        record(1, body("u", &tools, vec![say("go")]), None),
        record(
            2,
            body("u", &tools, vec![say("go"), call.clone(), result.clone()]),
            None,
        ),
        record(
            3,
            body("u", &tools, vec![say("go"), call, result, say("more")]),
            None,
        ),
    ];
    let report = analyze(
        records,
        &[Strategy::Defer, Strategy::DeferCatalog],
        &zero_2ea36cf(),
    );
    assert_eq!(report.turns[1].loaded, vec!["mcp__srv__op03".to_owned()]);
    assert!(report.turns[2].loaded.is_empty());
    let defer = &report.strategies[0];
    assert_eq!(defer.per_turn[1].stable, Some(false));
    assert_eq!(
        defer.per_turn[1].reason.as_deref(),
        Some("a tool loaded through tool_search (mcp__srv__op03)")
    );
    assert_eq!(defer.per_turn[2].stable, Some(true));
    // What defer sends at turn 2, built here: Read, the loaded tool and zero's loader, by name.
    let loader = json!({
        "name": "tool_search",
        "description": toolprism::strategies::zero::TOOL_SEARCH_DESCRIPTION,
        "input_schema": toolprism::strategies::zero::tool_search_schema(),
    });
    let sent = vec![tools[12].clone(), tools[3].clone(), loader];
    assert_eq!(
        defer.per_turn[1].tools_tokens,
        Some(tokens(&compact_array(&sent)))
    );
    assert_eq!(defer.breaks, 1);
}

#[test]
fn zero_sends_a_loaded_tool_in_full() {
    let tools = mcp_tools();
    let capture = toolprism::Capture::from_value(body("u", &tools, vec![])).unwrap();
    let loaded: BTreeSet<String> = ["mcp__srv__op05".to_owned()].into();
    let projection =
        toolprism::pipeline::project_loaded(&capture, Strategy::Defer, &zero_2ea36cf(), &loaded);
    let names: Vec<&str> = projection
        .sent
        .iter()
        .flatten()
        .map(|t| toolprism::tool::name(t.entry(&capture)).unwrap())
        .collect();
    assert_eq!(names, vec!["Read", "mcp__srv__op05", "tool_search"]);
    let reminder = projection.added_text.unwrap();
    assert!(!reminder.contains("mcp__srv__op05:"));
    assert!(reminder.contains("mcp__srv__op04:"));
    // Without a loaded tool the projection is the single-request one.
    let plain = toolprism::project(&capture, Strategy::Defer, &zero_2ea36cf());
    let empty = toolprism::pipeline::project_loaded(
        &capture,
        Strategy::Defer,
        &zero_2ea36cf(),
        &BTreeSet::new(),
    );
    assert_eq!(plain.added_text, empty.added_text);
    assert_eq!(plain.notes, empty.notes);
}

#[test]
fn adaptive_follows_the_prompt_and_identical_inputs_are_projected_once() {
    let mut tools = vec![
        tool("mcp__github__create_issue", "Creates an issue."),
        tool("mcp__slack__post_message", "Posts a message."),
    ];
    tools.push(tool("Read", "Reads a file."));
    let records = vec![
        record(1, body("u", &tools, vec![say("open a github issue")]), None),
        record(2, body("u", &tools, vec![say("open a github issue")]), None),
        record(
            3,
            body("u", &tools, vec![say("post it to slack please")]),
            None,
        ),
    ];
    let counter = TokenCounter::new(Encoding::O200kBase);
    let strategies = [Strategy::Original, Strategy::Adaptive, Strategy::Minimal];
    // The vocabulary selector (a3s-code-core 9.0) follows the prompt; 9.1's greeting rule
    // keeps every tool on an ordinary turn.
    let mut settings = Settings::default();
    settings.set("adaptive.selector", "vocabulary").unwrap();
    let mut analyzer = Analyzer::new(&strategies, &settings, &counter, None);
    for r in records {
        analyzer.push(r).unwrap();
    }
    // Turn 1: three projections; turn 2: all memoized; turn 3: only adaptive's context is new.
    assert_eq!(analyzer.projections_run(), 4);
    let report = analyzer.finish(TraceInfo::default());
    let adaptive = &report.strategies[1];
    assert_eq!(adaptive.per_turn[1].stable, Some(true));
    assert_eq!(adaptive.per_turn[2].stable, Some(false));
    assert_eq!(
        adaptive.per_turn[2].reason.as_deref(),
        Some("the selector following the prompt")
    );
}

#[test]
fn a_body_that_is_not_a_request_is_an_error() {
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(&[], &Settings::default(), &counter, None);
    let error = analyzer
        .push(record(1, json!({"hello": 1}), None))
        .unwrap_err();
    assert!(error.to_string().starts_with("not a known capture shape"));
}

/// Every object of `session --json` by its JSON pointer, with its keys in the contract's order.
const CONTRACT_KEYS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "version",
            "trace",
            "turns",
            "agreement",
            "diagnosis",
            "unknown_models",
            "calibration",
            "break_cost",
            "tools",
            "deferral",
            "strategies",
            "cheapest",
            "cheapest_any",
            "settings",
        ],
    ),
    ("/agreement", &["turns", "judged", "agree", "rate"]),
    ("/break_cost", &["breaks", "extra", "usd"]),
    (
        "/calibration",
        &["ratio", "turns", "excluded", "groups", "billed", "unseen"],
    ),
    (
        "/calibration/groups/0",
        &[
            "provider",
            "model",
            "ratio",
            "turns",
            "fallback",
            "fixed",
            "per_token",
        ],
    ),
    (
        "/tools/0",
        &["name", "sent_turns", "calls", "tokens", "never_called"],
    ),
    ("/deferral", &["candidates", "tokens", "savings"]),
    (
        "/trace",
        &[
            "path",
            "format",
            "compression",
            "turns",
            "ignored",
            "ignored_total",
            "skipped",
            "torn_last_line",
            "untimed_turns",
            "hashed_turns",
            "providers_assumed",
            "threads",
        ],
    ),
    (
        "/turns/0",
        &[
            "turn",
            "thread",
            "timestamp",
            "source",
            "shape",
            "tools",
            "tools_bytes",
            "tools_tokens",
            "context_tokens",
            "prompt_tokens",
            "previous_turn",
            "added",
            "removed",
            "changed",
            "order_changed",
            "first_changed_byte",
            "first_changed_char",
            "first_changed_entry",
            "usage",
            "cache",
            "cache_break",
            "status",
            "failed",
            "stub",
            "loaded",
            "observed",
            "modelled",
            "agrees",
            "disagreement",
            "calibration",
            "uncalibrated",
            "provider",
            "host",
            "model_rates",
            "provider_diagnosis",
            "provider_by",
            "server_tool",
            "not_judged",
            "break_price",
            "calls",
        ],
    ),
    ("/turns/0/observed", &["state", "input", "read", "write"]),
    ("/turns/0/modelled", &["state", "input", "read", "write"]),
    (
        "/turns/0/usage",
        &["input", "cache_write", "cache_read", "cache_write_1h"],
    ),
    (
        "/turns/0/model_rates",
        &[
            "known",
            "min_tokens",
            "input_price",
            "read",
            "write",
            "write_1h",
        ],
    ),
    (
        "/strategies/0",
        &[
            "id",
            "per_turn",
            "total_tokens",
            "breaks",
            "prompt_tokens",
            "cost",
            "cost_uncached",
            "cost_provider",
            "applied",
            "versus_original_pct",
        ],
    ),
    (
        "/strategies/0/per_turn/0",
        &[
            "turn",
            "tools_tokens",
            "context_tokens",
            "total_tokens",
            "prompt_tokens",
            "stable",
            "first_changed_byte",
            "reason",
            "status",
            "state",
            "read",
            "write",
            "input",
            "cost",
            "error",
        ],
    ),
];

#[test]
fn json_keys_are_exactly_the_contract() {
    let tools = vec![tool("alpha", "Reads.")];
    let records = vec![
        record(1, body("u", &tools, vec![]), usage(1, 400, 0)),
        record(2, body("u", &tools, vec![]), usage(1, 0, 400)),
    ];
    let report = analyze(records, &[Strategy::Original], &Settings::default());
    let value = serde_json::to_value(&report).unwrap();
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    for (pointer, expected) in CONTRACT_KEYS {
        let object = value
            .pointer(pointer)
            .unwrap_or_else(|| panic!("no {pointer:?}"));
        assert_eq!(keys(object), *expected, "the keys at {pointer:?}");
    }
    assert_eq!(value["version"], 2);
    let settings = keys(&value["settings"]);
    let expected: Vec<String> = Settings::KEYS.iter().map(|k| k.key.to_owned()).collect();
    assert_eq!(settings, expected);
    assert_eq!(value["trace"]["threads"][0]["id"], "t1");
}

/// `toolprism session` on a real claude-trace: the turns, the ignored calls, and the turn where
/// the MCP server came back with its tools in another order, each checked against the trace
/// read here with serde_json.
#[test]
fn the_session_command_reads_a_claude_trace() {
    let path = "samples/traces/claude-code-mcp-reconnect.jsonl";
    let text = std::fs::read_to_string(path).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let is_call = |r: &Value| {
        let url = r["request"]["url"].as_str().unwrap();
        let path = url.split('?').next().unwrap();
        r["request"]["method"] == "POST" && path.ends_with("/v1/messages")
    };
    let calls: Vec<&Value> = records.iter().filter(|r| is_call(r)).collect();
    // Each call's thread key, and its tool names: a reorder is the same set in another order.
    let key = |r: &Value| {
        let headers = &r["request"]["headers"];
        let system = &r["request"]["body"]["system"];
        // The first system block's text, with the next when it is a one-line identity.
        let first = match system {
            Value::String(text) => text.clone(),
            Value::Array(blocks) => {
                let text = |i: usize| blocks.get(i).and_then(|b| b["text"].as_str());
                match (text(0), text(1)) {
                    (Some(a), Some(b)) if !a.contains('\n') && a.len() < 200 => format!("{a}\n{b}"),
                    (Some(a), _) => a.to_owned(),
                    _ => String::new(),
                }
            }
            _ => String::new(),
        };
        (
            r["request"]["body"]["metadata"]["user_id"].to_string(),
            headers["x-claude-code-agent-id"].to_string(),
            r["request"]["body"]["model"].to_string(),
            first,
        )
    };
    let names = |r: &Value| -> Vec<String> {
        r["request"]["body"]["tools"]
            .as_array()
            .map(|t| t.iter().map(|t| t["name"].to_string()).collect())
            .unwrap_or_default()
    };
    let mut expected_reorders = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        if let Some(previous) = calls[..i].iter().rev().find(|p| key(p) == key(call)) {
            let (a, b) = (names(previous), names(call));
            let (mut sa, mut sb) = (a.clone(), b.clone());
            sa.sort();
            sb.sort();
            if a != b && sa == sb {
                expected_reorders.push(i + 1);
            }
        }
    }
    assert!(!expected_reorders.is_empty(), "the sample has a reorder");

    let report: Value = serde_json::from_str(&stdout_of(&["session", path, "--json"])).unwrap();
    assert_eq!(report["trace"]["format"], "claude-trace");
    assert_eq!(report["trace"]["turns"], calls.len());
    let ignored = report["trace"]["ignored"].as_array().unwrap();
    assert_eq!(ignored.len(), records.len() - calls.len());
    let reorders: Vec<usize> = report["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["order_changed"] == true)
        .map(|t| t["turn"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(reorders, expected_reorders);
    // Each turn's tools tokens are the count of that request's tools array as sent.
    for (turn, call) in report["turns"].as_array().unwrap().iter().zip(&calls) {
        if let Some(tools) = call["request"]["body"].get("tools") {
            assert_eq!(turn["tools_tokens"], tokens(&tools.to_string()), "{turn}");
        }
    }
}

/// A line that is not JSON is one error naming the trace and the line, exit 2; `--skip-bad`
/// skips and counts it.
#[test]
fn a_bad_line_in_a_trace_is_one_line_or_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string("samples/traces/claude-code-mcp-reconnect.jsonl").unwrap();
    let mut lines: Vec<&str> = good.lines().collect();
    lines.insert(2, "{this is not json");
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let path_arg = path.to_str().unwrap();
    let run = |extra: &[&str]| output_of(&[&["session", path_arg], extra].concat());
    let out = run(&["--json"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("toolprism: {}: line 3: not JSON", path.display())),
        "{stderr}"
    );
    let out = run(&["--json", "--skip-bad"]);
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["trace"]["skipped"], 1);
}

/// `toolprism session --json` on a sample, parsed.
fn session_json(path: &str) -> Value {
    serde_json::from_str(&stdout_of(&["session", path, "--json"])).unwrap()
}

fn column<'a>(report: &'a Value, f: impl Fn(&'a Value) -> &'a Value) -> Vec<&'a Value> {
    report["turns"].as_array().unwrap().iter().map(f).collect()
}

/// An SDK agent that sets no `cache_control`: the provider reported no read and no write on
/// every turn, and the model bills no caching either (the old model charged reads here).
#[test]
fn a_trace_without_cache_control_is_billed_without_caching() {
    let report = session_json("samples/traces/anthropic-no-cache-control.jsonl");
    let text = std::fs::read_to_string("samples/traces/anthropic-no-cache-control.jsonl").unwrap();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let usage = &record["response"]["body"]["usage"];
        assert_eq!(usage["cache_read_input_tokens"], 0);
        assert_eq!(usage["cache_creation_input_tokens"], 0);
        assert!(!line.contains("cache_control"));
    }
    for state in column(&report, |t| &t["observed"]["state"]) {
        assert_eq!(state, "none");
    }
    for state in column(&report, |t| &t["modelled"]["state"]) {
        assert_eq!(state, "none");
    }
    // Nothing was cached, so no turn lost a prefix (it priced the tool-use prompt's 321
    // tokens as lost on every turn before).
    for price in column(&report, |t| &t["break_price"]) {
        assert_eq!(price, &Value::Null);
    }
    assert_eq!(
        report["break_cost"]["breaks"], 0,
        "{}",
        report["break_cost"]
    );
    assert_eq!(report["agreement"]["turns"], 4);
    assert_eq!(report["agreement"]["agree"], 4);
    assert_eq!(report["agreement"]["rate"], 1.0);
    for strategy in report["strategies"].as_array().unwrap() {
        assert_eq!(
            strategy["cost"], strategy["cost_uncached"],
            "{}",
            strategy["id"]
        );
    }
    // The cheapest is named, and is the lowest cost of those that applied and keep every tool
    // reachable (`disabled` sends none); the lowest of all is under its own key.
    let cheapest = report["cheapest"].as_str().unwrap();
    let cost_of = |keep: bool| {
        report["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["applied"] == true || s["id"] == "original")
            .filter(|s| !keep || s["id"] != "disabled")
            .map(|s| s["cost"].as_f64().unwrap())
            .fold(f64::INFINITY, f64::min)
    };
    let lowest = cost_of(true);
    assert_ne!(cheapest, "disabled");
    let any = report["cheapest_any"].as_str().unwrap();
    let any_cost = report["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == any)
        .unwrap()["cost"]
        .as_f64()
        .unwrap();
    assert_eq!(any_cost, cost_of(false));
    let named = report["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == cheapest)
        .unwrap();
    assert_eq!(named["cost"].as_f64().unwrap(), lowest);
    // Calibration: observed input (less the tool-use prompt, 346 tokens) over the exact count
    // of each body.
    let ratio = report["calibration"]["ratio"].as_f64().unwrap();
    assert_eq!(report["calibration"]["turns"], 4);
    assert!((0.8..1.3).contains(&ratio), "{ratio}");
    // Calls in the requests' messages, each once however often the history re-sends it.
    let calls = |name: &str| {
        report["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["calls"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(
        (calls("list_dir"), calls("read_file"), calls("write_file")),
        (1, 1, 1)
    );
    assert_eq!(
        report["deferral"]["candidates"],
        json!(["grep", "run_tests"])
    );
    assert_eq!(report["turns"][1]["calls"], json!(["list_dir"]));
}

/// Claude Code: breakpoints that move every turn, a compaction call, a gap past the lifetime.
#[test]
fn claude_code_compaction_and_moving_breakpoints_agree_with_the_bill() {
    let report = session_json("samples/traces/claude-code-compaction-cache.jsonl");
    // One conversation whatever the moving marker; the compaction call apart.
    let threads = column(&report, |t| &t["thread"]);
    assert_eq!(threads, ["t1", "t1", "t1", "t2", "t1", "t1"]);
    // The turn after the compaction reads the tools and system prompt the conversation wrote.
    let observed = column(&report, |t| &t["observed"]["state"]);
    assert_eq!(
        observed,
        ["write", "partial", "partial", "write", "partial", "write"]
    );
    let modelled = column(&report, |t| &t["modelled"]["state"]);
    assert_eq!(modelled, observed);
    assert_eq!(report["agreement"]["rate"], 1.0);
    assert!(report["turns"][4]["added"].as_array().unwrap().is_empty());
    assert_eq!(report["turns"][4]["previous_turn"], 3);
    // The whole prefix is billed: the write at turn 1 is far more than the tools.
    let first = &report["turns"][0];
    assert!(first["modelled"]["write"].as_u64().unwrap() > first["tools_tokens"].as_u64().unwrap());
    assert_eq!(report["trace"]["untimed_turns"], 0);
}

/// OpenAI: a tool appended at the end of the list keeps the prefix before it cached.
#[test]
fn openai_appended_tool_keeps_the_prefix_cached() {
    let report = session_json("samples/traces/openai-appended-tool.jsonl");
    assert_eq!(report["turns"][2]["added"], json!(["notify_oncall"]));
    assert_eq!(report["turns"][2]["observed"]["state"], "hit");
    assert_eq!(report["turns"][2]["modelled"]["state"], "hit");
    assert!(report["turns"][2]["modelled"]["read"].as_u64().unwrap() >= 1024);
    assert_eq!(report["agreement"]["rate"], 1.0);
    // No write surcharge: cost = reads at gpt-4.1's 0.25 plus plain input.
    let original = &report["strategies"][0];
    for t in original["per_turn"].as_array().unwrap() {
        assert_eq!(t["write"], 0);
        let expected = t["read"].as_f64().unwrap() * 0.25 + t["input"].as_f64().unwrap();
        assert!((t["cost"].as_f64().unwrap() - expected).abs() < 1e-6);
    }
}

/// Provider-deferred entries cost their context price: out of the prompt, 0 tokens.
#[test]
fn provider_deferred_tools_count_at_context_price() {
    let mut tools = vec![tool(
        "tool_search_tool_regex",
        "Searches the deferred tools.",
    )];
    let mut deferred = tool("mcp__db__query", "Runs a SQL query against the warehouse.");
    deferred["defer_loading"] = json!(true);
    tools.push(deferred);
    tools.push(tool("Read", "Reads a file."));
    let records = vec![record(1, body("u", &tools, vec![say("hi")]), None)];
    let report = analyze(records, &[Strategy::Original], &Settings::default());
    let in_context = vec![tools[0].clone(), tools[2].clone()];
    let turn = &report.turns[0];
    assert_eq!(turn.tools_tokens, Some(tokens(&compact_array(&tools))));
    assert_eq!(
        turn.context_tokens,
        Some(tokens(&compact_array(&in_context)))
    );
    let original = &report.strategies[0].per_turn[0];
    assert_eq!(original.total_tokens, turn.context_tokens);
    assert!(original.prompt_tokens.unwrap() < turn.tools_tokens.unwrap() + 50);
}

/// `n/a` marks status and never hides a number.
#[test]
fn not_applicable_marks_status_and_shows_the_difference() {
    use toolprism::session::VersusOriginal;
    let shown = |percent, applied| VersusOriginal { percent, applied }.to_string();
    assert_eq!(shown(Some(-17.0), false), "-17.0% n/a");
    assert_eq!(shown(Some(0.0), false), "n/a");
    assert_eq!(shown(Some(-17.0), true), "-17.0%");
    assert_eq!(shown(None, true), "-");
}

/// Tools sent on every turn and never called, and what `defer` kept out of them.
#[test]
fn deferral_candidates_and_savings() {
    let tools = mcp_tools();
    let call = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "c1", "name": "mcp__srv__op00", "input": {}}
    ]});
    let records = vec![
        record(1, body("u", &tools, vec![say("go")]), None),
        record(2, body("u", &tools, vec![say("go"), call.clone()]), None),
        record(3, body("u", &tools, vec![say("go"), call]), None),
    ];
    let report = analyze(
        records,
        &[Strategy::Original, Strategy::Defer],
        &Settings::default(),
    );
    let op00 = report
        .tools
        .iter()
        .find(|t| t.name == "mcp__srv__op00")
        .unwrap();
    assert_eq!(
        (op00.calls, op00.sent_turns, op00.never_called),
        (1, 3, false)
    );
    assert_eq!(report.deferral.candidates.len(), 12);
    assert!(report.deferral.candidates.contains(&"Read".to_owned()));
    let entry = |t: &Value| tokens(&serde_json::to_string(t).unwrap());
    let expected: usize = tools[1..12].iter().map(entry).sum();
    assert_eq!(report.deferral.tokens, 3 * (expected + entry(&tools[12])));
    // defer keeps every MCP tool out (none was loaded), Read stays.
    assert_eq!(report.deferral.savings.len(), 1);
    assert_eq!(report.deferral.savings[0].strategy, "defer");
    assert_eq!(report.deferral.savings[0].tokens, 3 * expected);
}

/// zero's seed release (2ea36cf): the reminder form these session tests pin.
fn zero_2ea36cf() -> Settings {
    let mut settings = Settings::default();
    settings.apply("zero.release=2ea36cf").unwrap();
    settings
}

/// `session --json` spools each turn's rows to a temporary file and puts them in place when it
/// prints: the bytes are those of the whole report held in memory and serialized by serde, for
/// every sample trace (and with one thread chosen).
#[test]
fn session_json_is_the_whole_report_serialized_for_every_sample() {
    let mut paths: Vec<String> = std::fs::read_dir("samples/traces")
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_owned())
        .collect();
    paths.sort();
    let mut checked = 0;
    for path in &paths {
        for thread in [None, Some("t1")] {
            let Ok(reader) = toolprism::trace::open(path, &Default::default()) else {
                continue;
            };
            let counter = TokenCounter::new(Encoding::O200kBase);
            let mut analyzer = Analyzer::new(
                &Strategy::ALL[..],
                &Settings::default(),
                &counter,
                thread.map(str::to_owned),
            );
            let (info, result) =
                toolprism::session::analyse_trace(reader, path, &mut analyzer, &mut |_| {});
            if result.is_err() || analyzer.kept_turns() == 0 {
                continue;
            }
            let expected = serde_json::to_string_pretty(&analyzer.finish(info)).unwrap() + "\n";
            let mut args = vec!["session", path, "--json"];
            if let Some(thread) = thread {
                args.extend(["--thread", thread]);
            }
            assert!(
                stdout_of(&args) == expected,
                "{path} {thread:?}: not the report's own bytes"
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} traces checked");
}

/// A tool is never called when no visible call names it on the turns that sent it: another
/// thread that never sent it neither makes it "not sent on every turn" nor calls it.
#[test]
fn never_called_counts_only_the_turns_that_sent_the_tool() {
    let main_tools = vec![tool("Read", "Reads."), tool("Task", "Starts a sub-agent.")];
    let sub_tools = vec![tool("Read", "Reads."), tool("Bash", "Runs.")];
    let call = |id: &str, name: &str| {
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": name, "input": {}}]})
    };
    let records = vec![
        record(1, body("main", &main_tools, vec![say("go")]), None),
        record(
            2,
            body("main", &main_tools, vec![say("go"), call("c1", "Read")]),
            None,
        ),
        record(
            3,
            body(
                "sub",
                &sub_tools,
                vec![say("look"), call("c2", "Bash"), call("c3", "Task")],
            ),
            None,
        ),
        record(
            4,
            body(
                "main",
                &main_tools,
                vec![say("go"), call("c1", "Read"), say("more")],
            ),
            None,
        ),
    ];
    let report = analyze(records, &[Strategy::Original], &Settings::default());
    let never = |name: &str| {
        let t = report.tools.iter().find(|t| t.name == name).unwrap();
        (t.sent_turns, t.calls, t.never_called)
    };
    // Task: sent on the main thread's 3 turns, never called there (the sub-agent's call to a
    // Task it was never sent is not a call of this one).
    assert_eq!(never("Task"), (3, 1, true));
    assert_eq!(never("Read"), (4, 1, false));
    assert_eq!(never("Bash"), (1, 1, false));
    assert_eq!(report.deferral.candidates, ["Task"]);
}

/// The README's showcase: a Claude Code session whose GitHub MCP server connects at turn 6.
/// Its usage figures follow the provider's cache rules, so every judged turn agrees with the
/// bill; the one break is turn 6's, pointed at the tools the server added, with its price; and
/// the thread's 130-character user id is shortened with a mark in the text (whole in `--json`).
#[test]
fn the_readme_showcase_agrees_with_its_bill_and_names_its_break() {
    let path = "samples/traces/claude-code-mcp-connects.jsonl";
    let value: Value = serde_json::from_str(&stdout_of(&["session", path, "--json"])).unwrap();
    assert_eq!(value["agreement"]["turns"], 9);
    assert_eq!(value["agreement"]["judged"], 9);
    assert_eq!(value["agreement"]["agree"], 9, "{}", value["agreement"]);
    let turns = value["turns"].as_array().unwrap();
    let breaks: Vec<&Value> = turns.iter().filter(|t| t["cache"] == "break").collect();
    assert_eq!(breaks.len(), 1);
    let turn = breaks[0];
    assert_eq!(turn["turn"], 6);
    assert_eq!(turn["cache_break"], "tools");
    let added = turn["added"].as_array().unwrap();
    assert_eq!(added.len(), 8);
    assert!(
        added
            .iter()
            .all(|n| n.as_str().unwrap().starts_with("mcp__github__"))
    );
    assert!(turn["break_price"]["extra"].as_f64().unwrap() > 0.0);
    assert_eq!(value["break_cost"]["breaks"], 1);
    let user = "user_8d41c6a0f2b97e35d1c4a8f6e0b2d97c3a5f1e8b6d4c2a0f9e7d5b3c1a8f6e4d_account__session_2c7e9a41-6b3d-4f8e-9a1c-5d7e2b4f6a80";
    assert!(
        value["trace"]["threads"][0]["key"]
            .as_str()
            .unwrap()
            .contains(user)
    );
    let text = stdout_of(&["session", path]);
    assert!(
        text.contains("9 of 9 turns with usage judged, 9 agree"),
        "{text}"
    );
    assert!(
        text.contains("(user_id user_8d41c6a0f2b97e35d1c4a8… model"),
        "{text}"
    );
    assert!(!text.contains(user));
}
