//! Verdicts on recordings: content compared as the provider tokenizes it, providers told by
//! host, what cannot be judged and why, amounts within the tolerance (SESSIONS.md section 3).

use serde_json::{Value, json};
use toolprism::Settings;
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::session::{Analyzer, SessionReport, TraceInfo};
use toolprism::strategy::Strategy;
use toolprism::trace::{TraceRecord, Usage};

use crate::support::command::stdout_of;
use crate::support::records::record;

fn session_json(path: &str) -> Value {
    serde_json::from_str(&stdout_of(&["session", path, "--json"])).unwrap()
}

fn analyze(records: Vec<TraceRecord>) -> SessionReport {
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(&[Strategy::Original], &Settings::default(), &counter, None);
    for record in records {
        analyzer.push(record).unwrap();
    }
    analyzer.finish(TraceInfo::default())
}

fn usage(input: u64, cache_write: u64, cache_read: u64) -> Usage {
    Usage {
        input,
        cache_write,
        cache_read,
        ..Usage::default()
    }
}

/// A prompt long enough to be cached, with a breakpoint on its last block.
fn marked(model: &str, words: usize) -> Value {
    let text: String = (0..words).map(|i| format!("word{} ", i % 97)).collect();
    json!({"model": model, "system": [{"type": "text", "text": text,
        "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "hello"}]})
}

/// An SDK that sends earlier messages as strings and the last one as a marked block list: the
/// provider reads what the turn before wrote, and so does the model (the old model, comparing
/// JSON spellings, saw a full rewrite on every turn).
#[test]
fn strings_and_text_blocks_are_one_content() {
    let report = session_json("samples/traces/anthropic-string-content.jsonl");
    assert_eq!(report["agreement"]["turns"], 3);
    assert_eq!(report["agreement"]["judged"], 3);
    assert_eq!(report["agreement"]["agree"], 3);
    let turns = report["turns"].as_array().unwrap();
    for turn in &turns[1..] {
        assert_eq!(turn["modelled"]["state"], "partial", "{turn}");
        assert_eq!(turn["agrees"], true);
    }
    assert_eq!(turns[0]["provider"], "anthropic");
    assert_eq!(turns[0]["host"], "api.anthropic.com");
}

/// OpenAI caches token prefixes: two prompts sharing most of one long user message hit at
/// 1,024 + k×128 tokens inside it.
#[test]
fn openai_reads_a_token_prefix_inside_a_message() {
    let report = session_json("samples/traces/openai-token-prefix.jsonl");
    let turn = &report["turns"][1];
    assert_eq!(turn["observed"]["read"], 1280);
    let read = turn["modelled"]["read"].as_u64().unwrap();
    assert!((1152..=1408).contains(&read), "{read}");
    assert_eq!(turn["agrees"], true);
    assert_eq!(report["agreement"]["agree"], 2);
}

/// A provider toolprism does not model is said to be unmodelled, never judged.
#[test]
fn an_unmodelled_provider_is_not_judged() {
    let mut r = record(1, marked("llama-3.3-70b", 1500), Some(usage(1700, 0, 1536)));
    r.url = Some("https://api.groq.com/openai/v1/chat/completions".into());
    let report = analyze(vec![r]);
    let turn = &report.turns[0];
    assert_eq!(turn.agrees, None);
    assert_eq!(turn.provider, "unmodelled");
    assert_eq!(
        turn.not_judged.as_deref(),
        Some("provider not modelled: api.groq.com")
    );
    assert_eq!(turn.disagreement, None);
    assert_eq!((report.agreement.turns, report.agreement.judged), (1, 0));
    assert_eq!(report.agreement.rate, None);
}

/// A prefix first seen as a read was cached before the trace: adopted, that turn not judged,
/// the next one reads it; `original`'s cost reads it from that turn on (its prompt is the one the
/// provider had cached), where a strategy whose prompt differs pays to write its own.
#[test]
fn a_cache_warmed_before_the_trace_is_adopted() {
    let body = marked("claude-sonnet-4-5", 2000);
    let first = record(1, body.clone(), Some(usage(4, 0, 2100)));
    let second = record(2, body, Some(usage(4, 0, 2100)));
    let report = analyze(vec![first, second]);
    let (a, b) = (&report.turns[0], &report.turns[1]);
    assert_eq!(a.agrees, None);
    assert!(
        a.not_judged
            .as_deref()
            .unwrap()
            .starts_with("cache warmed before the trace: the provider read 2100 tokens"),
        "{:?}",
        a.not_judged
    );
    assert_eq!(b.agrees, Some(true), "{:?}", b.disagreement);
    assert_eq!(b.modelled.unwrap().state, "hit");
    let original = &report.strategies[0].per_turn[0];
    assert_eq!(original.state, Some("hit"), "{original:?}");
    assert!(original.read.unwrap() > 1500, "{original:?}");
    assert_eq!(original.write, Some(0), "{original:?}");
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut analyzer = Analyzer::new(
        &[Strategy::Original, Strategy::Minimal],
        &Settings::default(),
        &counter,
        None,
    );
    let body = marked("claude-sonnet-4-5", 2000);
    analyzer
        .push(record(1, body, Some(usage(4, 0, 2100))))
        .unwrap();
    let both = analyzer.finish(TraceInfo::default());
    assert_eq!(both.strategies[0].per_turn[0].state, Some("hit"));
    assert_ne!(
        both.strategies[1].per_turn[0].state,
        Some("hit"),
        "{:?}",
        both.strategies[1].per_turn[0]
    );
    assert_eq!(
        (
            report.agreement.turns,
            report.agreement.judged,
            report.agreement.agree
        ),
        (2, 1, 1)
    );
}

/// A recording run re-recorded over a cache its earlier runs warmed: each turn asks a new
/// question behind the same long system prompt, and the provider reads the whole prompt, the
/// new question included, writing nothing. No request of the trace can have written that
/// question, so the turn is not judged (where the old rule, wanting a read twice the model's,
/// called it a disagreement). A turn whose unwritten blocks an earlier turn did send stays
/// judged: there the model, not the recording, is wrong.
#[test]
fn a_new_block_read_at_once_was_cached_before_the_trace() {
    let system: String = (0..2000).map(|i| format!("word{} ", i % 97)).collect();
    let asked = |question: &str| {
        json!({"model": "claude-sonnet-4-5", "system": system,
            "messages": [{"role": "user", "content": [{"type": "text", "text": question,
                "cache_control": {"type": "ephemeral"}}]}]})
    };
    let report = analyze(vec![
        record(1, asked("Say hello in one word."), Some(usage(3, 0, 2100))),
        record(
            2,
            asked("Say goodbye in one word."),
            Some(usage(3, 0, 2100)),
        ),
    ]);
    let second = &report.turns[1];
    assert_eq!(second.agrees, None, "{:?}", second.disagreement);
    assert!(
        second
            .not_judged
            .as_deref()
            .unwrap()
            .starts_with("cache warmed before the trace"),
        "{:?}",
        second.not_judged
    );
    assert_eq!(report.agreement.judged, 0);

    // The same bill where the blocks the model writes were sent by the turn before (unmarked
    // there, so never written): judged, and a disagreement.
    let marked_system = json!([{"type": "text", "text": system,
        "cache_control": {"type": "ephemeral"}}]);
    let first = json!({"model": "claude-sonnet-4-5", "system": marked_system,
        "messages": [{"role": "user", "content": "hello there, how are you today?"}]});
    let then = json!({"model": "claude-sonnet-4-5", "system": marked_system,
        "messages": [{"role": "user", "content": "hello there, how are you today?"},
            {"role": "assistant", "content": "Fine."},
            {"role": "user", "content": [{"type": "text", "text": "And you?",
                "cache_control": {"type": "ephemeral"}}]}]});
    let report = analyze(vec![
        record(1, first, Some(usage(12, 2100, 0))),
        record(2, then, Some(usage(3, 0, 2125))),
    ]);
    let second = &report.turns[1];
    assert_eq!(second.not_judged, None);
    assert_eq!(second.agrees, Some(false));
    assert_eq!(second.modelled.unwrap().state, "partial");
}

/// A PDF the trace cannot count (the provider reads its pages): the bill tells the prompt's
/// length, so a prefix holding it is over Haiku 3.5's minimum of 2,048 where the text alone
/// (a few hundred tokens) is not; the provider wrote it, then read it (crewAI's multimodal
/// recordings were two "minimum length" disagreements).
#[test]
fn media_the_trace_cannot_count_take_the_length_the_bill_tells() {
    let text: String = (0..300).map(|i| format!("word{} ", i % 97)).collect();
    let body = json!({"model": "claude-3-5-haiku-20241022", "system": text,
        "messages": [{"role": "user", "content": [
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                "data": "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoK"},
             "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Summarise it."}]}]});
    let report = analyze(vec![
        record(1, body.clone(), Some(usage(3, 2091, 0))),
        record(2, body, Some(usage(3, 0, 2091))),
    ]);
    let (a, b) = (&report.turns[0], &report.turns[1]);
    assert!(a.prompt_tokens.unwrap() < 1000, "{:?}", a.prompt_tokens);
    assert_eq!(a.modelled.unwrap().state, "write", "{:?}", a.disagreement);
    assert_eq!(a.agrees, Some(true));
    assert_eq!(b.modelled.unwrap().state, "hit", "{:?}", b.disagreement);
    assert_eq!(b.agrees, Some(true));
}

/// `null` cache figures are unknown, never 0; a server-side tool's turn is left out of the
/// calibration.
#[test]
fn unknown_figures_and_server_tools() {
    let body = marked("claude-sonnet-4-5", 2000);
    let unknown = Usage {
        cache_unknown: true,
        ..usage(2100, 0, 0)
    };
    let searched = Usage {
        server_tool: Some("web_search"),
        ..usage(30_000, 0, 0)
    };
    let report = analyze(vec![
        record(1, body.clone(), Some(unknown)),
        record(2, body, Some(searched)),
    ]);
    let (a, b) = (&report.turns[0], &report.turns[1]);
    assert_eq!(a.observed.unwrap().state, "unknown");
    assert!(a.not_judged.as_deref().unwrap().contains("unknown, not 0"));
    assert_eq!(b.server_tool, Some("web_search"));
    assert!(
        b.not_judged
            .as_deref()
            .unwrap()
            .starts_with("a server-side tool ran (web_search)")
    );
    assert_eq!(b.calibration, None);
    assert_eq!(report.calibration, None);
}

/// Amounts count: the same state with a read far from the modelled one disagrees, and says
/// so.
#[test]
fn amounts_beyond_the_tolerance_disagree() {
    let body = marked("claude-sonnet-4-5", 2000);
    let mut longer = body.clone();
    longer["messages"] = json!([{"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi"},
        {"role": "user", "content": [{"type": "text", "text": "more", "cache_control":
            {"type": "ephemeral"}}]}]);
    let first = record(1, body, Some(usage(4, 2100, 0)));
    let right = record(2, longer.clone(), Some(usage(4, 12, 2100)));
    let wrong = record(2, longer, Some(usage(4, 1062, 1050)));
    let report = analyze(vec![first.clone(), right]);
    assert_eq!(report.turns[1].agrees, Some(true), "{:?}", report.turns[1]);
    let report = analyze(vec![first, wrong]);
    let turn = &report.turns[1];
    assert_eq!(turn.observed.unwrap().state, "partial");
    assert_eq!(turn.modelled.unwrap().state, "partial");
    assert_eq!(turn.agrees, Some(false));
    assert!(
        turn.disagreement
            .as_deref()
            .unwrap()
            .starts_with("the states agree (partial) but the amounts do not"),
        "{:?}",
        turn.disagreement
    );
}

/// DeepSeek caches whole units, 64 tokens at least, with no writes reported: told by the host,
/// at any path. A second question behind the same system prompt reads nothing (the prefix is
/// no unit yet); the conversation's next turn reads the first request's input.
#[test]
fn deepseek_by_its_host() {
    let text: String = (0..300).map(|i| format!("w{} ", i % 89)).collect();
    let chat = |n: usize, messages: Value, u: Usage| {
        let mut r = record(
            n,
            json!({"model": "deepseek-chat", "messages": messages}),
            Some(u),
        );
        r.url = Some("https://api.deepseek.com/chat/completions".into());
        r
    };
    let system = json!({"role": "system", "content": text});
    let ask = |q: &str| json!({"role": "user", "content": q});
    let first = chat(1, json!([system, ask("question 1")]), usage(320, 0, 0));
    let other = chat(2, json!([system, ask("question 2")]), usage(320, 0, 0));
    let next = chat(
        3,
        json!([system, ask("question 1"), {"role": "assistant", "content": "answer 1"},
            ask("question 3")]),
        usage(336, 0, 320),
    );
    let report = analyze(vec![first, other, next]);
    for turn in &report.turns[1..] {
        assert_eq!(turn.provider, "deepseek");
        assert_eq!(turn.agrees, Some(true), "{:?}", turn.disagreement);
    }
    assert_eq!(report.turns[1].modelled.unwrap().state, "none");
    assert_eq!(report.turns[2].modelled.unwrap().state, "hit");
}

/// A turn that loses the prefix its thread cached pays for it: its cost against the same
/// request with that prefix held, in input tokens and at the model's price; a turn that keeps
/// it pays nothing.
#[test]
fn each_break_has_its_price() {
    let tool = |name: &str| {
        json!({"name": name, "description": "a tool", "input_schema":
        {"type": "object", "properties": {}}})
    };
    let with_tools = |tools: Vec<Value>| {
        let mut body = marked("claude-sonnet-4-5", 1500);
        body["tools"] = Value::Array(tools);
        body
    };
    let report = analyze(vec![
        record(1, with_tools(vec![tool("a")]), None),
        record(2, with_tools(vec![tool("b"), tool("a")]), None),
        record(3, with_tools(vec![tool("b"), tool("a")]), None),
    ]);
    let turns = &report.turns;
    assert_eq!(
        turns[0].break_price, None,
        "nothing cached before the first turn"
    );
    let price = turns[1]
        .break_price
        .expect("the added tool breaks the prefix");
    let written = turns[1].modelled.unwrap().write as usize;
    // Everything the first turn wrote was lost: the second rewrites it and more.
    assert_eq!(price.lost, turns[0].modelled.unwrap().write as usize);
    assert!(written > price.lost);
    // Written at 1.25 instead of read at 0.1.
    let expected = price.lost as f64 * (1.25 - 0.1);
    assert!(
        (price.extra - expected).abs() < 0.02,
        "{price:?} {expected}"
    );
    assert!((price.cost - price.held - price.extra).abs() < 0.02);
    // Sonnet 4.5's input is $3 per million tokens (uncalibrated: no usage).
    let usd = price.usd.unwrap();
    assert!((usd - price.extra * 3.0 / 1e6).abs() < 1e-6, "{usd}");
    assert_eq!(turns[2].break_price, None, "the same request reads it all");
    assert_eq!(report.break_cost.breaks, 1);
    assert!((report.break_cost.extra - price.extra).abs() < 0.02);
    // `cache.price` sets the price; an unknown model has none.
    let mut settings = Settings::default();
    settings.apply("cache.price=10").unwrap();
    assert_eq!(
        toolprism::session::price_per_million(&settings, "anything"),
        Some(10.0)
    );
    let auto = Settings::default();
    assert_eq!(
        toolprism::session::price_per_million(&auto, "my-model"),
        None
    );
    assert_eq!(
        toolprism::session::price_per_million(&auto, "gpt-4o-mini-2024-07-18"),
        Some(0.15)
    );
}

fn chat_at(url: &str, model: &str, n: usize, words: usize, usage: Option<Usage>) -> TraceRecord {
    let text: String = (0..words).map(|i| format!("w{} ", i % 89)).collect();
    let mut r = record(
        n,
        json!({"model": model, "messages": [{"role": "system", "content": text},
            {"role": "user", "content": format!("question {n}")}]}),
        usage,
    );
    r.url = Some(url.into());
    r
}

/// The turn is not judged, for the reason that starts with `why`.
fn assert_not_judged(turn: &toolprism::session::TurnFacts, why: &str) {
    assert_eq!(turn.agrees, None, "{:?}", turn.disagreement);
    let reason = turn.not_judged.as_deref().unwrap_or_default();
    assert!(reason.starts_with(why), "{reason}");
}

/// A read longer than every earlier request to the provider cannot be of a prefix the trace
/// wrote, whatever the model's minimum says: cached before the trace (a sibling test's image,
/// in a recording run). A read within an earlier request's length stays judged: there the
/// model's minimum is what is wrong.
#[test]
fn a_read_longer_than_every_request_before_it_was_cached_outside_the_trace() {
    let url = "https://api.openai.com/v1/chat/completions";
    let report = analyze(vec![
        chat_at(url, "gpt-4o", 1, 10, Some(usage(40, 0, 0))),
        chat_at(url, "gpt-4o", 2, 600, Some(usage(700, 0, 300))),
    ]);
    assert_not_judged(
        &report.turns[1],
        "cache warmed before the trace: the provider read 300 tokens",
    );
    let report = analyze(vec![
        chat_at(url, "gpt-4o", 1, 600, Some(usage(700, 0, 0))),
        chat_at(url, "gpt-4o", 2, 600, Some(usage(700, 0, 640))),
    ]);
    let turn = &report.turns[1];
    assert_eq!(turn.agrees, Some(false));
    assert!(
        turn.disagreement
            .as_deref()
            .unwrap()
            .contains("because of the minimum length"),
        "{:?}",
        turn.disagreement
    );
}

/// After a turn whose server-side tool ran in the provider's own passes, the next turn reads
/// the prefix those passes cached (search results the requests never held whole): not judged,
/// and said so.
#[test]
fn a_read_of_what_a_server_side_tool_cached_is_not_judged() {
    let body = marked("claude-sonnet-4-5", 300);
    let searched = Usage {
        server_tool: Some("web_search"),
        ..usage(10, 39_000, 0)
    };
    let report = analyze(vec![
        record(1, body.clone(), Some(searched)),
        record(2, body, Some(usage(10, 12_000, 39_000))),
    ]);
    assert_not_judged(
        &report.turns[1],
        "read what a server-side tool cached: the provider read 39000 tokens",
    );
}

/// Each provider's lifetime: Anthropic's prefix is gone 17 minutes on; Z.ai publishes none and
/// keeps it (a GLM session read prefixes 17 minutes old), unless `cache.ttl` is set.
#[test]
fn each_provider_has_its_own_lifetime() {
    let gap = 17 * 60_000;
    let timed = |mut r: TraceRecord, at: i64| {
        r.time_ms = Some(at);
        r
    };
    let url = "https://api.z.ai/api/anthropic/v1/messages";
    let glm = |n: usize, at: i64, u: Usage| {
        let mut r = timed(record(n, marked("glm-4.7", 600), Some(u)), at);
        r.url = Some(url.into());
        r
    };
    let trace = || vec![glm(1, 0, usage(700, 0, 0)), glm(2, gap, usage(4, 0, 690))];
    let report = analyze(trace());
    let turn = &report.turns[1];
    assert_eq!(turn.provider, "zai");
    assert_eq!(turn.modelled.unwrap().state, "hit");
    assert_eq!(turn.agrees, Some(true), "{:?}", turn.disagreement);
    // A miss there is no lapse of a lifetime, and says the provider publishes none.
    let missed = analyze(vec![
        glm(1, 0, usage(700, 0, 0)),
        glm(2, gap, usage(700, 0, 0)),
    ]);
    let why = missed.turns[1].disagreement.as_deref().unwrap_or_default();
    assert!(
        why.contains("within cache.ttl=auto (the provider publishes no lifetime)"),
        "{why}"
    );

    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut settings = Settings::default();
    settings.set("cache.ttl", "5m").unwrap();
    let mut analyzer = Analyzer::new(&[Strategy::Original], &settings, &counter, None);
    for r in trace() {
        analyzer.push(r).unwrap();
    }
    let set = analyzer.finish(TraceInfo::default());
    assert_eq!(set.turns[1].modelled.unwrap().state, "none");
    assert!(
        set.turns[1]
            .disagreement
            .as_deref()
            .unwrap()
            .contains("past cache.ttl=5m"),
        "{:?}",
        set.turns[1].disagreement
    );

    let body = marked("claude-sonnet-4-5", 2000);
    let report = analyze(vec![
        timed(record(1, body.clone(), Some(usage(4, 2100, 0))), 0),
        timed(record(2, body, Some(usage(4, 2100, 0))), gap),
    ]);
    assert_eq!(report.turns[1].modelled.unwrap().state, "write");
    assert_eq!(report.turns[1].agrees, Some(true));
}

/// A failed call is outside the cache chain, and its turn says so (a throttled Bedrock call).
#[test]
fn a_failed_call_says_why_it_is_not_judged() {
    let report = session_json("samples/traces/go-vcr-bedrock-chat.yaml");
    let turns = report["turns"].as_array().unwrap();
    assert_eq!(turns[1]["failed"], true);
    assert_eq!(turns[1]["agrees"], Value::Null);
    assert_eq!(
        turns[1]["not_judged"],
        "the call failed (HTTP 429): outside the cache chain"
    );
    assert_eq!(turns[0]["not_judged"], Value::Null);
}

/// A host toolprism does not know (a local gateway in front of Anthropic): the provider is
/// assumed from the request (a `claude-*` model on the Messages API), said so per turn and in
/// the header; `session.provider` names it instead.
#[test]
fn a_gateway_host_takes_its_provider_from_the_request() {
    let text = std::fs::read_to_string("samples/traces/anthropic-string-content.jsonl").unwrap();
    let local = text.replace(
        "https://api.anthropic.com/v1/messages",
        "http://127.0.0.1:4000/v1/messages",
    );
    assert_ne!(local, text);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.jsonl");
    std::fs::write(&path, local).unwrap();
    let path = path.to_str().unwrap();
    let report: Value = serde_json::from_str(&stdout_of(&["session", path, "--json"])).unwrap();
    assert_eq!(report["agreement"]["judged"], 3);
    assert_eq!(report["agreement"]["agree"], 3);
    for turn in report["turns"].as_array().unwrap() {
        assert_eq!(turn["provider"], "anthropic");
        assert_eq!(turn["host"], "127.0.0.1");
        assert_eq!(turn["provider_by"], "assumed");
    }
    assert_eq!(
        report["trace"]["providers_assumed"],
        json!([{"host": "127.0.0.1", "provider": "anthropic", "by": "assumed", "turns": 3}])
    );
    let header = stdout_of(&["session", path, "-s", "original"]);
    assert!(
        header.contains(
            "  provider of 127.0.0.1: anthropic for 3 turns (assumed from the requests' API and model"
        ),
        "{header}"
    );
    // Named by the user: OpenAI's rules (no breakpoints), said to be the setting's.
    let named: Value = serde_json::from_str(&stdout_of(&[
        "session",
        path,
        "--json",
        "--set",
        "session.provider=openai",
    ]))
    .unwrap();
    assert_eq!(named["turns"][0]["provider"], "openai");
    assert_eq!(named["turns"][0]["provider_by"], "setting");
    // The host of a known provider is never overridden.
    let real = session_json("samples/traces/anthropic-string-content.jsonl");
    assert_eq!(real["turns"][0]["provider_by"], "host");
    assert_eq!(real["trace"]["providers_assumed"], json!([]));
}

/// A request whose API and model name no provider stays unmodelled at an unknown host.
#[test]
fn an_unknown_host_and_model_stay_unmodelled() {
    let mut r = record(1, marked("my-local-model", 1500), Some(usage(1700, 0, 0)));
    r.url = Some("http://127.0.0.1:8080/v1/chat/completions".into());
    let report = analyze(vec![r]);
    assert_eq!(report.turns[0].provider, "unmodelled");
    assert_eq!(report.turns[0].provider_by, Some("host"));
    assert!(report.trace.providers_assumed.is_empty());
}

/// A provider toolprism names but does not model says which and why.
#[test]
fn a_named_provider_without_published_rules_says_why_it_is_not_judged() {
    let mut r = record(1, marked("command-a-03-2025", 300), Some(usage(121, 0, 0)));
    r.url = Some("https://api.cohere.com/v2/chat".into());
    let report = analyze(vec![r]);
    assert_eq!(report.turns[0].provider, "cohere");
    assert_eq!(
        report.turns[0].not_judged.as_deref(),
        Some("provider not modelled: cohere (api.cohere.com): it publishes no prompt cache")
    );
}

/// A body its recorder scrubbed (the system prompt replaced by a placeholder while the provider
/// billed 18,131 tokens for it): named, the state judged, the amounts never (they would agree
/// through a ratio fitted to them), and nothing calibrated from it.
#[test]
fn a_scrubbed_body_is_named_and_judged_on_its_state_only() {
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 100,
        "system": [{"type": "text", "text": "very very long system prompt",
            "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "hello"}]});
    let at = |n: usize, u: Usage| {
        let mut r = record(n, body.clone(), Some(u));
        r.url = Some("https://api.anthropic.com/v1/messages".into());
        r
    };
    let report = analyze(vec![at(1, usage(8, 18_131, 0)), at(2, usage(8, 0, 18_131))]);
    for turn in &report.turns {
        assert_eq!(turn.calibration, None);
        let why = turn.uncalibrated.as_deref().unwrap_or_default();
        assert!(
            why.starts_with(
                "the trace does not hold what was billed: the body was scrubbed or redacted"
            ),
            "{why}"
        );
        assert_eq!(turn.agrees, Some(true), "{:?}", turn.disagreement);
    }
    assert_eq!(report.turns[0].modelled.unwrap().state, "write");
    assert_eq!(report.turns[1].modelled.unwrap().state, "hit");
    let calibration = report.calibration.as_ref();
    assert!(calibration.is_none_or(|c| c.turns == 0), "{calibration:?}");
    // A short prompt's framing (a ratio of 20 on 60 tokens) is no scrubbing.
    let short = json!({"model": "claude-sonnet-4-5", "max_tokens": 100,
        "messages": [{"role": "user", "content": "hello there, how are you today"}]});
    let mut r = record(1, short, Some(usage(1200, 0, 0)));
    r.url = Some("https://api.anthropic.com/v1/messages".into());
    let framed = analyze(vec![r]);
    assert!(framed.turns[0].calibration.is_some());
}
