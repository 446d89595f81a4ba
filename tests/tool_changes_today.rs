//! A session of today's Claude read end to end (issue 41, held-out forms): Fable 5.2 with
//! thinking, a tool search that loads a deferred tool, every reference form, an inline
//! definition and a redefinition with `cache_control`, a removal and a re-addition, the SDK's
//! `mid_conv_system` block, a system message as a string, streamed and JSON answers. Nothing in
//! it is a break, a warning or a refusal; each variant below edits it the way a client would
//! and must be read for exactly what it is.

use serde_json::{Value, json};

use crate::support::command::stdout_of;

const TODAY: &str = "samples/traces/midconv-today.jsonl";

fn lines(path: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The sample with each record changed by `edit(turn, record)`, written to a file of its own.
fn variant(name: &str, edit: impl Fn(usize, &mut Value)) -> tempfile::TempPath {
    variant_of(TODAY, name, edit)
}

fn variant_of(base: &str, name: &str, edit: impl Fn(usize, &mut Value)) -> tempfile::TempPath {
    let mut records = lines(base);
    for (i, record) in records.iter_mut().enumerate() {
        edit(i + 1, record);
    }
    // Removed when the test drops it: nothing is left in the temporary folder.
    let file = tempfile::Builder::new()
        .prefix(&format!("toolprism-today-{name}-"))
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    let text: Vec<String> = records.iter().map(Value::to_string).collect();
    std::fs::write(file.path(), text.join("\n") + "\n").unwrap();
    file.into_temp_path()
}

fn session_json(path: &str) -> Value {
    serde_json::from_str(&stdout_of(&["session", path, "--json"])).unwrap()
}

/// Each strategy's id and the turns (1-based) it is marked `!` on.
type Marked = Vec<(String, Vec<u64>)>;

/// Each turn's `prefix_check`, and each strategy's marked turns.
fn marks(json: &Value) -> (Vec<Option<String>>, Marked) {
    let turns = json["turns"].as_array().unwrap();
    let turn_marks = turns
        .iter()
        .map(|t| t["prefix_check"].as_str().map(str::to_owned))
        .collect();
    let strategies = json["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let marked = s["per_turn"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| t.get("prefix_check").is_some_and(|p| !p.is_null()))
                .map(|t| t["turn"].as_u64().unwrap())
                .collect();
            (s["id"].as_str().unwrap().to_owned(), marked)
        })
        .collect();
    (turn_marks, strategies)
}

#[test]
fn todays_claude_is_read_end_to_end_without_a_false_break_warning_or_mark() {
    let json = session_json(TODAY);
    let turns = json["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 7);
    // The tools in effect: 4 declared non-deferred; the search loads lookup_docs (turn 3 sends
    // its result), then −read_file +github/create_issue, +grep +deploy, +read_file (list_dir
    // redefined in place of the old), +github/*.
    let tools: Vec<u64> = turns.iter().map(|t| t["tools"].as_u64().unwrap()).collect();
    assert_eq!(tools, [4, 4, 5, 7, 8, 9, 9]);
    let appended: Vec<Vec<&str>> = turns
        .iter()
        .map(|t| {
            t["appended"]
                .as_array()
                .map(|a| a.iter().map(|v| v.as_str().unwrap()).collect())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        appended,
        [
            vec![],
            vec![],
            vec![
                "+github/create_issue (appended)",
                "\u{2212}read_file (appended)",
                "+lookup_docs (tool search)",
            ],
            vec!["+grep (appended)", "+deploy (appended)"],
            vec!["+read_file (appended)", "list_dir redefined (appended)"],
            vec!["+github/* (appended)"],
            vec![],
        ]
    );
    for turn in turns {
        assert!(turn["first_changed_byte"].is_null(), "{turn}");
        assert!(turn["break_price"].is_null(), "{turn}");
        assert!(turn.get("tool_change_problems").is_none(), "{turn}");
        assert_eq!(turn["agrees"], true, "{turn}");
    }
    let (turn_marks, strategies) = marks(&json);
    assert!(turn_marks.iter().all(Option::is_none), "{turn_marks:?}");
    for (id, marked) in &strategies {
        assert!(marked.is_empty(), "{id} marked on {marked:?}");
    }
    let text = stdout_of(&["session", TODAY]);
    assert!(!text.contains("! "), "{text}");
    assert!(!text.contains("break:"), "{text}");
    assert!(!text.contains("breaks of the requests as sent"), "{text}");
}

#[test]
fn a_tool_search_load_is_in_effect_and_counted_where_it_stands() {
    let json: Value =
        serde_json::from_str(&stdout_of(&["report", TODAY, "--turn", "6", "--json"])).unwrap();
    let effect = &json["capture"]["in_effect"];
    let loaded = effect["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "lookup_docs")
        .unwrap();
    assert_eq!(loaded["from"], "searched");
    assert_eq!(loaded["message"], 4);
    assert_eq!(loaded["source"], "loaded by tool search at message 4");
    assert!(loaded["tokens"].as_u64().unwrap() > 0);
    assert!(effect["hidden"].as_array().unwrap().is_empty(), "{effect}");
    let text = stdout_of(&["report", TODAY, "--turn", "6"]);
    assert!(
        text.contains("loaded by tool search at message 4"),
        "{text}"
    );
    assert!(!text.contains("never added"), "{text}");
    // The loaded definition is input where the search result stands: without the reference
    // the same request is that many tokens shorter.
    let prompt = |path: &str| {
        session_json(path)["turns"][2]["prompt_tokens"]
            .as_u64()
            .unwrap()
    };
    let unloaded = variant("unloaded", |_, record| {
        let messages = record["request"]["body"]["messages"]
            .as_array_mut()
            .unwrap();
        for message in messages {
            for block in message["content"].as_array_mut().into_iter().flatten() {
                if block["type"] == "tool_search_tool_result" {
                    block["content"]["tool_references"] = json!([]);
                }
            }
        }
    });
    let with = prompt(TODAY);
    let without = prompt(unloaded.to_str().unwrap());
    let entry_tokens = loaded["tokens"].as_u64().unwrap();
    assert!(
        with >= without + entry_tokens - 2,
        "{with} against {without} + {entry_tokens}"
    );
}

/// The request's `tools`, edited from turn 3 on.
fn tools_from_turn_3(name: &str, edit: impl Fn(&mut Vec<Value>)) -> tempfile::TempPath {
    variant(name, |turn, record| {
        if turn >= 3 {
            let tools = record["request"]["body"]["tools"].as_array_mut().unwrap();
            edit(tools);
        }
    })
}

#[test]
fn the_edits_the_prefix_check_allows_mark_nothing() {
    // A deferred tool nothing references, appended to `tools`.
    let deferred = tools_from_turn_3("deferred", |tools| {
        tools.push(
            json!({"name": "bisect", "description": "Bisect the history.",
            "input_schema": {"type": "object"}, "defer_loading": true}),
        );
    });
    // A `cache_control` marker moved onto a tool.
    let marker = tools_from_turn_3("marker", |tools| {
        tools[2]["cache_control"] = json!({"type": "ephemeral"});
    });
    for path in [deferred, marker] {
        let json = session_json(path.to_str().unwrap());
        assert!(json["turns"][2]["first_changed_byte"].is_u64(), "{path:?}");
        let (turn_marks, strategies) = marks(&json);
        assert!(
            turn_marks.iter().all(Option::is_none),
            "{path:?}: {turn_marks:?}"
        );
        for (id, marked) in &strategies {
            assert!(marked.is_empty(), "{path:?}: {id} marked on {marked:?}");
        }
    }
}

#[test]
fn an_edit_in_place_is_marked_by_what_the_provider_answered() {
    let reworded = |tools: &mut Vec<Value>| {
        tools[2]["description"] = json!("Run the whole test suite and report the failures.");
    };
    // Answered 200 (no word of the check in the response): the check failed, no refusal.
    let answered = tools_from_turn_3("answered", reworded);
    let json = session_json(answered.to_str().unwrap());
    let (turn_marks, strategies) = marks(&json);
    assert_eq!(turn_marks[..2], [None, None]);
    assert_eq!(
        turn_marks[2].as_deref(),
        Some(
            "the prefix check fails: the tool list was edited in place after a thinking block; the provider answered (HTTP 200), so it dropped or kept that thinking rather than refuse"
        )
    );
    assert!(
        turn_marks[3..].iter().all(Option::is_none),
        "{turn_marks:?}"
    );
    let original = &strategies.iter().find(|s| s.0 == "original").unwrap().1;
    assert_eq!(original, &[3]);
    let disabled = &strategies.iter().find(|s| s.0 == "disabled").unwrap().1;
    assert!(disabled.is_empty());
    // The strategies whose list changed there fail the same check, and are not called refused
    // on a turn the provider answered as sent.
    let strategy_word = |json: &Value, id: &str| {
        let strategy = json["strategies"].as_array().unwrap().iter();
        let strategy = strategy.clone().find(|s| s["id"] == id).unwrap();
        strategy["per_turn"][2]["prefix_check"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(
        strategy_word(&json, "original").starts_with("the prefix check fails: the projected tool list was edited in place after thinking; the provider answered this turn as sent"),
        "{}",
        strategy_word(&json, "original")
    );
    // The provider's 400.
    let refused = variant("refused", |turn, record| {
        if turn >= 3 {
            reworded(record["request"]["body"]["tools"].as_array_mut().unwrap());
        }
        if turn == 3 {
            record["response"] = json!({"timestamp": record["response"]["timestamp"],
                "status_code": 400, "headers": {"content-type": "application/json"},
                "body": {"type": "error", "error": {"type": "invalid_request_error",
                "message": "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. The `tools` list differs."}}});
        }
    });
    let json = session_json(refused.to_str().unwrap());
    assert_eq!(
        json["turns"][2]["prefix_check"],
        "the provider refused this turn (HTTP 400: a thinking block bound to a different conversation): the tool list was edited in place"
    );
    assert_eq!(
        strategy_word(&json, "original"),
        "the provider refuses this turn: the projected tool list was edited in place after thinking"
    );
    // The blocks let through (`thinking_mismatch_allowed`), in a stream's `message_start`.
    let allowed = variant("allowed", |turn, record| {
        if turn >= 3 {
            reworded(record["request"]["body"]["tools"].as_array_mut().unwrap());
        }
        if turn == 5 {
            let raw = record["response"]["body_raw"].as_str().unwrap().replacen(
                "\"message\": {",
                "\"message\": {\"input_transformations\": [{\"type\": \"thinking_mismatch_allowed\", \"path\": \"messages.1.content.0\", \"reason\": \"prefix_binding_mismatch\"}], ",
                1,
            );
            record["response"]["body_raw"] = json!(raw);
        }
    });
    let json = session_json(allowed.to_str().unwrap());
    assert_eq!(
        json["turns"][4]["prefix_check"],
        "the provider let thinking at messages.1.content.0 through although it failed the prefix check (thinking_mismatch_allowed): the prompt before it changed"
    );
}

#[test]
fn a_thread_that_cached_nothing_has_no_break_to_price() {
    // Without a breakpoint nothing is cached: the tool-use prompt before the tools is no
    // prefix a later turn could lose.
    let uncached = variant("uncached", |_, record| {
        let body = record["request"]["body"].as_object_mut().unwrap();
        body.remove("cache_control");
    });
    let json = session_json(uncached.to_str().unwrap());
    for turn in json["turns"].as_array().unwrap() {
        assert!(turn["break_price"].is_null(), "{turn}");
    }
    let text = stdout_of(&["session", uncached.to_str().unwrap()]);
    assert!(!text.contains("break:"), "{text}");
}

const CONVERSE: &str = "samples/traces/midconv-converse.jsonl";

/// The Converse sample with each record changed by `edit(turn, record)`.
fn converse_variant(name: &str, edit: impl Fn(usize, &mut Value)) -> tempfile::TempPath {
    variant_of(CONVERSE, name, edit)
}

#[test]
fn bedrock_converse_changes_are_judged_against_the_model_its_url_names() {
    // Fable 5.1 on Bedrock (the model is in the URL only): a removal by `toolRemoval`, then
    // `read_file` again and an MCP tool by `serverName`. `cachePoint` entries are no tools.
    let json = session_json(CONVERSE);
    let turns = json["turns"].as_array().unwrap();
    let tools: Vec<u64> = turns.iter().map(|t| t["tools"].as_u64().unwrap()).collect();
    assert_eq!(tools, [3, 2, 4]);
    assert_eq!(
        turns[1]["appended"],
        json!(["\u{2212}read_file (appended)"])
    );
    assert_eq!(
        turns[2]["appended"],
        json!(["+read_file (appended)", "+github/create_issue (appended)"])
    );
    for turn in turns {
        assert!(turn.get("tool_change_problems").is_none(), "{turn}");
        assert!(turn["prefix_check"].is_null(), "{turn}");
        assert!(turn["break_price"].is_null(), "{turn}");
        assert_eq!(turn["agrees"], true, "{turn}");
    }
    let report: Value =
        serde_json::from_str(&stdout_of(&["report", CONVERSE, "--turn", "3", "--json"])).unwrap();
    let names: Vec<&str> = report["capture"]["in_effect"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["list_dir", "deploy", "read_file", "github/create_issue"]
    );
    // Sonnet 5 takes no system messages: the URL says so, the body cannot.
    let sonnet = converse_variant("sonnet5", |_, record| {
        let url = record["request"]["url"].as_str().unwrap();
        record["request"]["url"] = json!(url.replace("claude-fable-5-1", "claude-sonnet-5"));
    });
    let sonnet = sonnet.to_str().unwrap();
    let json = session_json(sonnet);
    for turn in &json["turns"].as_array().unwrap()[1..] {
        let problems = turn["tool_change_problems"].to_string();
        assert!(
            problems.contains("Sonnet 5 takes no `role: \\\"system\\\"` messages"),
            "{turn}"
        );
    }
    let text = stdout_of(&["report", sonnet, "--turn", "2"]);
    assert!(
        text.contains("original: error: Sonnet 5 takes no `role: \"system\"` messages"),
        "{text}"
    );
    // The same tools edited in place after reasoning: the prefix check of a binding model.
    let edited = converse_variant("edited", |turn, record| {
        let body = &mut record["request"]["body"];
        let messages = body["messages"].as_array_mut().unwrap();
        messages.retain(|m| m["role"] != "system");
        if turn >= 2 {
            let tools = body["toolConfig"]["tools"].as_array_mut().unwrap();
            tools.retain(|t| t["toolSpec"]["name"] != "read_file");
        }
    });
    let json = session_json(edited.to_str().unwrap());
    let mark = json["turns"][1]["prefix_check"].as_str().unwrap();
    assert!(
        mark.starts_with("the prefix check fails: the tool list was edited in place"),
        "{mark}"
    );
}

#[test]
fn thinking_another_model_wrote_is_no_edit_of_the_prompt() {
    // A fallback model's answer earlier in the thread: its blocks are dropped, no prefix
    // was edited.
    let other = variant("other-model", |turn, record| {
        if turn == 4 {
            let body = &mut record["response"]["body"];
            body["input_transformations"] = json!([{"type": "thinking_dropped",
                "path": "messages.1.content.0", "reason": "model_binding_mismatch"}]);
        }
    });
    let json = session_json(other.to_str().unwrap());
    assert_eq!(
        json["turns"][3]["prefix_check"],
        "the provider dropped thinking at messages.1.content.0 written by another model (model_binding_mismatch: no edit of the prompt)"
    );
    let (_, strategies) = marks(&json);
    for (id, marked) in &strategies {
        assert!(marked.is_empty(), "{id} marked on {marked:?}");
    }
}

#[test]
fn a_system_prompt_edited_in_place_is_marked_though_it_starts_a_thread() {
    // Today's date written into `system` from turn 4 on: the thread is keyed by its system
    // prompt, so turn 4 starts one of its own, but it continues turn 3's conversation.
    let dated = |model: &'static str| {
        move |turn: usize, record: &mut Value| {
            let body = &mut record["request"]["body"];
            body["model"] = json!(model);
            if turn >= 4 {
                let text = body["system"][0]["text"].as_str().unwrap().to_owned();
                body["system"][0]["text"] = json!(format!("Today is Monday. {text}"));
            }
        }
    };
    let bound = variant("dated", dated("claude-fable-5-2"));
    let json = session_json(bound.to_str().unwrap());
    let (turn_marks, _) = marks(&json);
    assert_eq!(json["turns"][3]["thread"], "t2");
    assert_eq!(
        turn_marks[3].as_deref(),
        Some(
            "the prefix check fails: the system prompt was edited in place after a thinking block; the provider answered (HTTP 200), so it dropped or kept that thinking rather than refuse"
        )
    );
    for (turn, mark) in turn_marks.iter().enumerate() {
        assert!(turn == 3 || mark.is_none(), "turn {}: {mark:?}", turn + 1);
    }
    // A model that does not bind thinking: a new prompt, nothing refused.
    let unbound = variant("dated-opus48", dated("claude-opus-4-8"));
    let (turn_marks, _) = marks(&session_json(unbound.to_str().unwrap()));
    assert!(turn_marks.iter().all(Option::is_none), "{turn_marks:?}");
}

/// The session view says what appended system messages changed: the turns table counts them
/// (the turn is no `=`), the turn pane names them.
#[test]
fn the_session_view_shows_changes_by_appended_messages() {
    let path = "samples/traces/midconv-appended.jsonl";
    let reader = toolprism::trace::open(path, &toolprism::trace::TraceOptions::default())
        .expect("the sample opens");
    let counter = toolprism::measure::TokenCounter::new(toolprism::measure::Encoding::O200kBase);
    let mut analyzer = toolprism::session::Analyzer::new(
        &[toolprism::strategy::Strategy::Original],
        &toolprism::Settings::default(),
        &counter,
        None,
    );
    let (info, read) = toolprism::session::analyse_trace(reader, path, &mut analyzer, &mut |_| {});
    read.expect("the sample is read");
    let report = analyzer.finish(info);
    let counts: Vec<String> = report
        .turns
        .iter()
        .map(toolprism::tui::session::change_counts)
        .collect();
    assert_eq!(counts, ["first", "=", "appended 2", "appended 2"]);
    let pane: Vec<String> = toolprism::tui::session::turn_detail(&report, 2, &[true])
        .into_iter()
        .map(|(_, line)| line)
        .collect();
    assert!(
        pane.contains(
            &"by system messages: +mcp__gh__create_issue (appended), +mcp__gh__list_issues (appended)"
                .to_owned()
        ),
        "{pane:#?}"
    );
}
