//! The prompt's blocks: spellings, thinking and reasoning left out, Gemini parts.

use super::*;
use serde_json::json;

fn capture(body: Value) -> Capture {
    Capture::from_value(body).unwrap()
}

#[test]
fn a_moved_marker_changes_no_hash() {
    let a = capture(
        json!({"model": "m", "system": [{"type": "text", "text": "s",
        "cache_control": {"type": "ephemeral"}}], "messages": [{"role": "user",
        "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}],
        "tools": [{"name": "a", "input_schema": {}}]}),
    );
    let b = capture(
        json!({"model": "m", "system": [{"type": "text", "text": "s"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "tools": [{"name": "a", "input_schema": {}}]}),
    );
    let (pa, pb) = (pieces(&a, "").0, pieces(&b, "").0);
    assert_eq!(pa.len(), 2);
    assert_eq!(
        pa.iter().map(|p| p.hash).collect::<Vec<_>>(),
        pb.iter().map(|p| p.hash).collect::<Vec<_>>()
    );
    assert_eq!(pa[0].mark, Some(Ttl::Short));
    assert_eq!(pb[1].mark, None);
}

#[test]
fn one_hour_breakpoints_and_automatic_caching() {
    let a = capture(json!({"model": "m", "cache_control": {"type": "ephemeral"},
        "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral",
        "ttl": "1h"}}], "messages": [{"role": "user", "content": "hi"}], "tools": []}));
    let p = pieces(&a, "").0;
    assert_eq!(p[0].mark, Some(Ttl::Long));
    assert_eq!(p[1].mark, Some(Ttl::Short));
}

#[test]
fn roles_tell_blocks_apart_and_prefixes_depend_on_order() {
    let a = capture(
        json!({"model": "m", "messages": [{"role": "user", "content": "x"},
        {"role": "assistant", "content": "x"}], "tools": []}),
    );
    let p = pieces(&a, "").0;
    assert_ne!(p[0].hash, p[1].hash);
    assert_ne!(extend(extend(1, 2), 3), extend(extend(1, 3), 2));
}

#[test]
fn equivalent_spellings_are_one_block() {
    let strings = capture(json!({"model": "m", "system": "be brief",
        "messages": [{"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"}], "tools": []}));
    let blocks = capture(json!({"model": "m",
        "system": [{"type": "text", "text": "be brief"}],
        "messages": [{"role": "user", "content": [{"text": "hi", "type": "text",
        "cache_control": {"type": "ephemeral"}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello",
        "citations": null}]}], "tools": []}));
    let hashes = |c: &Capture| pieces(c, "").0.iter().map(|p| p.hash).collect::<Vec<_>>();
    assert_eq!(hashes(&strings), hashes(&blocks));
    assert_eq!(text(pieces(&blocks, "").0[1].value), "hi");
    // Other text is another block.
    let other = capture(json!({"model": "m", "system": "be brief",
        "messages": [{"role": "user", "content": "hi!"}], "tools": []}));
    assert_ne!(hashes(&other)[1], hashes(&strings)[1]);
    let chat = capture(json!({"model": "gpt-4o", "messages": [{"role": "user",
        "content": "hi"}], "tools": []}));
    let parts = capture(json!({"model": "gpt-4o", "messages": [{"content":
        [{"type": "text", "text": "hi"}], "role": "user"}], "tools": []}));
    assert_eq!(hashes(&chat), hashes(&parts));
}

#[test]
fn gemini_text_is_counted_as_text_and_signatures_are_not() {
    let one = capture(
        json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "systemInstruction": {"parts": [{"text": "be brief"}]}}),
    );
    let (p, head) = pieces(&one, "");
    assert_eq!(head, 1);
    assert_eq!(text(p[0].value), "be brief");
    assert_eq!(text(p[1].value), "hi");
    let split = capture(
        json!({"contents": [{"parts": [{"text": "h"}, {"text": "i"}],
        "role": "user"}], "systemInstruction": {"parts": [{"text": "be brief"}]}}),
    );
    assert_eq!(text(pieces(&split, "").0[1].value), "hi");
    assert_eq!(pieces(&split, "").0[1].hash, p[1].hash);
    let model = capture(json!({"contents": [{"role": "model", "parts": [{"text": "hi"}]}]}));
    assert_ne!(pieces(&model, "").0[0].hash, p[1].hash);
    let call = capture(
        json!({"contents": [{"role": "model", "parts": [{"functionCall":
        {"name": "f", "args": {}}, "thoughtSignature": "CoYEAXLI2nzmyDix3"}]}]}),
    );
    assert_eq!(
        text(pieces(&call, "").0[0].value),
        r#"{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}"#
    );
    // A thought summary sent back is out of the context: counted as nothing.
    let thought = capture(json!({"contents": [{"role": "model", "parts": [
        {"thought": true, "text": "**My Thought Process** I add five and three."},
        {"text": "8", "thoughtSignature": "CoYEAXLI2nzmyDix3"}]}]}));
    assert_eq!(
        text(pieces(&thought, "").0[0].value),
        r#"{"role":"model","parts":[{},{"text":"8"}]}"#
    );
    // The snake-case spelling (pydantic-ai's Vertex requests) is no text either: counted, its
    // base64 took a step of 102 billed tokens to 1,323 counted.
    let snake = capture(
        json!({"contents": [{"role": "model", "parts": [{"functionCall":
        {"name": "f", "args": {}}, "thought_signature": "CoYEAXLI2nzmyDix3"}]}]}),
    );
    assert_eq!(
        text(pieces(&snake, "").0[0].value),
        text(pieces(&call, "").0[0].value)
    );
    // A function call's or response's client id is not counted either.
    let with_id = capture(
        json!({"contents": [{"role": "model", "parts": [{"functionCall":
        {"name": "f", "args": {}, "id": "pyd_ai_98262f03f44d4c239a887e97c20915a8"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {},
        "id": "pyd_ai_98262f03f44d4c239a887e97c20915a8"}}]}]}),
    );
    let (w, _) = pieces(&with_id, "gemini-3-flash-preview");
    assert_eq!(
        text(w[0].value),
        r#"{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}"#
    );
    assert_eq!(
        text(w[1].value),
        r#"{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}"#
    );
    // A model step with its signature, in the current function-calling cycle, carries its
    // thoughts (another block than the same step once a user message starts a new cycle);
    // one sending it in the snake-case spelling is billed none.
    let step = json!({"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}},
        "thoughtSignature": "CoYEAXLI2nzmyDix3"}]});
    let result = json!({"role": "user", "parts": [{"functionResponse": {"name": "f",
        "response": {}}}]});
    let ask = json!({"role": "user", "parts": [{"text": "go"}]});
    let within = capture(json!({"contents": [ask, step, result]}));
    let (p, _) = pieces(&within, "gemini-3-flash-preview");
    // Gemini 2.5 bills no thoughts again.
    assert!(!pieces(&within, "gemini-2.5-pro").0[1].thoughts);
    assert_eq!(
        (p[0].thoughts, p[1].thoughts, p[2].thoughts),
        (false, true, false)
    );
    let after = capture(
        json!({"contents": [ask, step, result, {"role": "model", "parts":
        [{"text": "done"}]}, {"role": "user", "parts": [{"text": "thanks"}]}]}),
    );
    let (q, _) = pieces(&after, "gemini-3-flash-preview");
    assert!(!q[1].thoughts);
    assert_ne!(q[1].hash, p[1].hash);
    let snake_step = capture(json!({"contents": [ask, {"role": "model", "parts": [{
        "functionCall": {"name": "f", "args": {}}, "thought_signature": "CoYEAXLI2nzmyDix3"}]},
        result]}));
    assert!(!pieces(&snake_step, "gemini-3-flash-preview").0[1].thoughts);
}

#[test]
fn an_output_schema_is_part_of_the_prompt() {
    let schema = json!({"name": "answer", "schema": {"type": "object"}});
    let chat = capture(
        json!({"model": "gpt-4o-mini", "messages": [{"role": "system",
        "content": "s"}, {"role": "user", "content": "u"}],
        "response_format": {"type": "json_schema", "json_schema": schema}}),
    );
    let (p, head) = pieces(&chat, "");
    assert_eq!((p.len(), head), (3, 1));
    assert_eq!(text(p[2].value), serde_json::to_string(&schema).unwrap());
    let plain = capture(json!({"model": "gpt-4o-mini", "messages": [{"role": "user",
        "content": "u"}], "response_format": {"type": "json_object"}}));
    assert_eq!(pieces(&plain, "").0.len(), 1);
    let gemini = capture(
        json!({"contents": [{"role": "user", "parts": [{"text": "u"}]}],
        "generationConfig": {"responseSchema": {"type": "OBJECT"}}}),
    );
    assert_eq!(text(pieces(&gemini, "").0[1].value), r#"{"type":"OBJECT"}"#);
    assert_eq!(pieces(&gemini, "").1, 0);
}

#[test]
fn responses_leave_out_the_reasoning_of_earlier_turns() {
    let reasoning = json!({"type": "reasoning", "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Add them."}]});
    let body = |last: Value, context: Option<&str>| {
        let mut b = json!({"model": "gpt-5", "input": [
            {"role": "user", "content": "What is 2+2?"}, reasoning,
            {"role": "assistant", "content": "4"}, last]});
        if let Some(c) = context {
            b["reasoning"] = json!({"context": c});
        }
        b
    };
    let lengths = |c: &Capture| {
        pieces(c, "gpt-5")
            .0
            .iter()
            .map(|p| text(p.value).len())
            .collect::<Vec<_>>()
    };
    // A new question: the earlier turn's reasoning is out of the context.
    let asked = capture(body(json!({"role": "user", "content": "And 3+3?"}), None));
    assert_eq!(lengths(&asked)[1], 0);
    // A function's output: the turn goes on, and its reasoning is in the context.
    let output = json!({"type": "function_call_output", "call_id": "c", "output": "ok"});
    let going_on = capture(body(output, None));
    assert!(lengths(&going_on)[1] > 0);
    // `reasoning.context: all_turns` keeps it.
    let all = json!({"role": "user", "content": "And 3+3?"});
    assert!(lengths(&capture(body(all, Some("all_turns"))))[1] > 0);
}

#[test]
fn earlier_thinking_is_stripped_where_the_model_strips_it() {
    let thought =
        json!({"type": "thinking", "thinking": "Two and two.", "signature": "EtsBCkYIChgCKkAN"});
    let body = |model: &str, last: Value| {
        json!({"model": model, "messages": [{"role": "user", "content": "What is 2+2?"},
            {"role": "assistant", "content": [thought, {"type": "text", "text": "4"}]},
            {"role": "user", "content": last}]})
    };
    let texts = |c: &Capture| {
        pieces(c, c.body()["model"].as_str().unwrap_or(""))
            .0
            .iter()
            .map(|p| text(p.value))
            .collect::<Vec<_>>()
    };
    // A new question: the earlier turn's thinking is out of the context.
    let asked = capture(body("claude-sonnet-4-5", json!("And 3+3?")));
    assert_eq!(texts(&asked), ["What is 2+2?", "", "4", "And 3+3?"]);
    // A tool result: the cycle goes on, and its thinking counts (not its signature).
    let result = json!([{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]);
    let cycle = capture(body("claude-sonnet-4-5", result.clone()));
    assert_eq!(texts(&cycle)[1], "Two and two.");
    assert_ne!(
        pieces(&asked, "claude-sonnet-4-5").0[1].hash,
        pieces(&cycle, "claude-sonnet-4-5").0[1].hash
    );
    // Opus 4.5 keeps earlier thinking.
    let kept = capture(body("claude-opus-4-5", json!("And 3+3?")));
    assert_eq!(texts(&kept)[1], "Two and two.");
    assert!(strips_earlier_thinking("claude-3-7-sonnet-20250219"));
    assert!(strips_earlier_thinking("claude-sonnet-4-20250514"));
    assert!(strips_earlier_thinking("claude-sonnet-4-0"));
    assert!(strips_earlier_thinking("claude-opus-4-0"));
    assert!(strips_earlier_thinking("claude-opus-4-1-20250805"));
    assert!(!strips_earlier_thinking("claude-sonnet-4-6"));
    assert!(!strips_earlier_thinking("claude-opus-4-6"));
}

#[test]
fn a_chat_part_marked_for_claude_marks_its_message() {
    let chat = capture(json!({"model": "anthropic/claude-sonnet-4.5", "messages": [
        {"role": "system", "content": "s"},
        {"role": "user", "content": [{"type": "text", "text": "long",
            "cache_control": {"type": "ephemeral"}}]}]}));
    let p = pieces(&chat, "").0;
    assert_eq!((p[0].mark, p[1].mark), (None, Some(Ttl::Short)));
}

#[test]
fn openai_instructions_come_before_the_tools() {
    let chat = capture(json!({"model": "gpt-4o", "messages": [{"role": "system",
        "content": "s"}, {"role": "user", "content": "u"}], "tools": []}));
    assert_eq!(pieces(&chat, "").1, 1);
    let responses = capture(json!({"model": "gpt-5", "instructions": "i",
        "input": [{"role": "user", "content": "u"}], "tools": []}));
    assert_eq!(pieces(&responses, "").1, 1);
}
