//! Claude Code session transcripts read by `toolprism session` (SESSIONS.md, "Claude Code
//! transcripts"): one turn per model call, the observed cache, breaks and their price, the
//! provider's diagnosis, subagent and compaction threads, and what a transcript lacks.

use serde_json::{Value, json};

use crate::support::command::{fails_with, stdout_of};

const SAMPLE: &str = "samples/traces/claude-code-transcript.jsonl";

fn report(path: &str) -> Value {
    serde_json::from_str(&stdout_of(&["session", "--json", path])).unwrap()
}

fn turns(report: &Value) -> &Vec<Value> {
    report["turns"].as_array().unwrap()
}

/// A message written once per content block is one call; `<synthetic>` lines are no call.
#[test]
fn one_turn_per_message_id() {
    let r = report(SAMPLE);
    assert_eq!(r["kind"], "claude-code-transcript");
    assert_eq!(turns(&r).len(), 7);
    assert_eq!(r["repeated"], 1);
    assert_eq!(r["synthetic"], 1);
    let first = &turns(&r)[0];
    assert_eq!(first["observed"]["write"], 20000);
    // The larger output of the repeated lines (the last content block's).
    assert_eq!(first["output"], 240);
    assert_eq!(first["line"], 3);
    assert_eq!(r["versions"], json!(["2.0.14"]));
}

/// What a transcript lacks is said in a key and in the report's second line.
#[test]
fn says_it_holds_no_request_bodies() {
    let r = report(SAMPLE);
    assert_eq!(r["request_bodies"], false);
    assert!(r["note"].as_str().unwrap().contains("toolprism record"));
    let text = stdout_of(&["session", SAMPLE]);
    let second = text.lines().nth(1).unwrap();
    assert!(
        second.starts_with("a transcript holds no request bodies"),
        "{text}"
    );
    assert!(
        text.contains("7 model calls in 3 threads from 18 lines"),
        "{text}"
    );
    // Figures as every other table prints them.
    assert!(
        text.contains("20,003") && text.contains("17,507 lost") && !text.contains("20003"),
        "{text}"
    );
}

/// A read well below the thread's previous prompt is a break, priced as what was re-written
/// over reading it; idle past the lifetime it is an expiry. The subagent's cold start and the
/// first call after a compaction are threads of their own, not breaks.
#[test]
fn breaks_priced_and_told_apart() {
    let r = report(SAMPLE);
    let t = turns(&r);
    let threads: Vec<&str> = t.iter().map(|t| t["thread"].as_str().unwrap()).collect();
    assert_eq!(
        threads,
        [
            "main",
            "main",
            "subagent/1",
            "subagent/1",
            "main",
            "main",
            "main/after-compaction-1"
        ]
    );
    let broken: Vec<usize> = t
        .iter()
        .filter(|t| !t["break"].is_null())
        .map(|t| t["turn"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(broken, [5, 6]);
    // Previous prompt 4 + 20003 + 1500 = 21507, read 4000: 17507 lost and re-written, at
    // (1.25 - 0.1) × $3 per million.
    let b = &t[4]["break"];
    assert_eq!(b["lost"], 17507);
    assert_eq!(b["rewritten"], 17507);
    assert_eq!(b["cause"], "rewritten");
    assert_eq!(b["usd"].as_f64().unwrap(), 0.060399);
    // 19 minutes idle: past the 5-minute lifetime.
    assert_eq!(t[5]["break"]["cause"], "expired");
    assert_eq!(t[5]["break"]["idle_ms"], 1_144_000);
    assert_eq!(r["breaks"], 2);
    assert_eq!(r["compactions"], 1);
}

/// `diagnostics` read as the provider's words: a change with its missed tokens, `null` as none.
#[test]
fn the_providers_diagnosis_is_read() {
    let r = report(SAMPLE);
    let t = turns(&r);
    assert_eq!(
        t[4]["diagnosis"],
        json!({"reason": "system_changed", "missed": 17500})
    );
    assert_eq!(t[5]["diagnosis"]["reason"], "none");
    assert!(t[0]["diagnosis"].is_null());
}

fn line(value: Value) -> String {
    value.to_string() + "\n"
}

fn call(id: &str, session: &str, agent: Option<&str>, read: u64, write: u64) -> String {
    let mut v = json!({"type": "assistant", "sessionId": session, "uuid": format!("u-{id}"),
        "parentUuid": null, "isSidechain": agent.is_some(), "timestamp": "2026-11-02T10:00:00Z",
        "message": {"id": id, "role": "assistant", "model": "claude-opus-4-5",
            "content": [{"type": "text", "text": "x"}],
            "usage": {"input_tokens": 1, "cache_read_input_tokens": read,
                "cache_creation_input_tokens": write, "output_tokens": 5,
                "cache_creation": {"ephemeral_5m_input_tokens": 0,
                    "ephemeral_1h_input_tokens": write}}}});
    if let Some(agent) = agent {
        v["agentId"] = json!(agent);
    }
    line(v)
}

/// Newer releases keep subagents (and the compaction agent) in `<session>/subagents/`: each
/// read in a thread of its own, by its `agentId`.
#[test]
fn subagent_files_beside_the_session_are_threads_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("s1.jsonl");
    std::fs::write(
        &main,
        call("m1", "s1", None, 0, 5000) + &call("m2", "s1", None, 5001, 10),
    )
    .unwrap();
    let sub = dir.path().join("s1").join("subagents");
    std::fs::create_dir_all(&sub).unwrap();
    // The second call has no `agentId` (as some releases write): it follows its parent.
    let mut child: Value = serde_json::from_str(&call("x2", "s1", None, 3001, 10)).unwrap();
    child["isSidechain"] = json!(true);
    child["parentUuid"] = json!("u-x1");
    std::fs::write(
        sub.join("agent-a1.jsonl"),
        call("x1", "s1", Some("a1"), 0, 3000) + &line(child),
    )
    .unwrap();
    std::fs::write(
        sub.join("agent-acompact-9.jsonl"),
        call("c1", "s1", Some("acompact-9"), 4000, 2000),
    )
    .unwrap();
    let r = report(main.to_str().unwrap());
    let threads: Vec<&str> = turns(&r)
        .iter()
        .map(|t| t["thread"].as_str().unwrap())
        .collect();
    assert_eq!(
        threads,
        [
            "main",
            "main",
            "subagent/a1",
            "subagent/a1",
            "compaction/acompact-9"
        ]
    );
    assert_eq!(r["files"].as_array().unwrap().len(), 3);
    assert_eq!(r["breaks"], 0);
    // No break costs nothing, not `-0.0`.
    assert_eq!(r["breaks_usd"].to_string(), "0.0");
    // Hour-long writes priced at 2× input: 5000 × 2 × $5 per million on the first call.
    assert_eq!(turns(&r)[0]["usd"].as_f64().unwrap(), 0.050005);
}

/// A bad line is named by its number, once, with exit 2; `--skip-bad` reads on and counts it.
/// A last line cut short is a session still being written: left out and said.
#[test]
fn bad_lines_are_named_or_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    let text = call("m1", "s1", None, 0, 5000) + "{not json\n" + &call("m2", "s1", None, 5001, 10);
    std::fs::write(&path, &text).unwrap();
    let p = path.to_str().unwrap();
    let error = fails_with(&["session", p]);
    assert!(error.contains(&format!("{p}: line 2: not JSON")), "{error}");
    let r: Value =
        serde_json::from_str(&stdout_of(&["session", "--json", "--skip-bad", p])).unwrap();
    assert_eq!(r["skipped"], 1);
    assert_eq!(turns(&r).len(), 2);
    std::fs::write(&path, call("m1", "s1", None, 0, 5000) + "{\"type\":\"assis").unwrap();
    let r = report(p);
    assert_eq!(r["torn_last_line"], true);
    assert_eq!(turns(&r).len(), 1);
}

/// What needs a tool list is refused in one line, naming `session`; the bare command reads
/// the transcript as `session` does.
#[test]
fn what_needs_requests_is_refused() {
    let error = fails_with(&["session", "--budget", "100", SAMPLE]);
    assert!(error.contains("holds no tool list"), "{error}");
    let error = fails_with(&["report", SAMPLE]);
    assert!(error.contains("toolprism session FILE"), "{error}");
    // The bare command prints what `session` prints of it.
    assert_eq!(stdout_of(&[SAMPLE]), stdout_of(&["session", SAMPLE]));
}

/// A folder of transcripts is one session a file; `--thread` keeps one thread's turns.
#[test]
fn a_folder_is_one_session_a_file_and_a_thread_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.jsonl"), call("m1", "a", None, 0, 5000)).unwrap();
    std::fs::write(dir.path().join("b.jsonl"), call("m2", "b", None, 0, 6000)).unwrap();
    let r = report(dir.path().to_str().unwrap());
    let sessions: Vec<&str> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["a", "b"]);
    let r: Value = serde_json::from_str(&stdout_of(&[
        "session",
        "--json",
        "--thread",
        "subagent/1",
        SAMPLE,
    ]))
    .unwrap();
    let kept: Vec<u64> = turns(&r)
        .iter()
        .map(|t| t["turn"].as_u64().unwrap())
        .collect();
    assert_eq!(kept, [3, 4]);
    let error = fails_with(&["session", "--thread", "nope", SAMPLE]);
    assert!(error.contains("no thread `nope`"), "{error}");
}
