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

/// A running `session --follow` whose standard output and error lines come through channels.
struct Followed {
    child: std::process::Child,
    out: std::sync::mpsc::Receiver<String>,
    err: std::sync::mpsc::Receiver<String>,
}

impl Followed {
    fn start(args: &[&str], path: &std::path::Path) -> Followed {
        use std::io::BufRead;
        use std::process::Stdio;
        let mut child = std::process::Command::new(crate::support::command::bin())
            .args(args)
            .arg(path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = |from: Box<dyn std::io::Read + Send>| {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(from).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
            rx
        };
        let out = lines(Box::new(child.stdout.take().unwrap()));
        let err = lines(Box::new(child.stderr.take().unwrap()));
        Followed { child, out, err }
    }

    /// The next line of `rx`, waiting at most 20 seconds.
    fn next(rx: &std::sync::mpsc::Receiver<String>) -> String {
        rx.recv_timeout(std::time::Duration::from_secs(20))
            .expect("a line before the deadline")
    }

    /// The next row printed, its cells split (`turn thread model input read write-5m
    /// write-1h output cache note...`), past the header.
    fn turn(&self) -> Vec<String> {
        loop {
            let line = Followed::next(&self.out);
            let cells: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            if cells.first().is_some_and(|c| c.parse::<usize>().is_ok()) {
                return cells;
            }
        }
    }

    /// Ctrl-C; the exit status and what was left on standard error.
    fn stop(&mut self) -> (Option<i32>, Vec<String>) {
        let pid = rustix::process::Pid::from_child(&self.child);
        rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
        let status = self.child.wait().unwrap();
        (status.code(), self.err.iter().collect())
    }
}

/// Never left behind, even when a test fails half-way.
impl Drop for Followed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn append(path: &std::path::Path, text: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// `session --follow` on a transcript Claude Code is writing: a row per model call once its
/// line is whole (half a line waited for), a call's usage repeated at a later look read once,
/// breaks judged as they come, a subagent's file taken up when it appears, a bad line named
/// and skipped; Ctrl-C ends it with 130 and the count.
#[test]
fn follow_reads_a_growing_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    std::fs::write(&path, call("m1", "s1", None, 0, 5000)).unwrap();
    let mut followed = Followed::start(&["session", "--follow"], &path);
    let first = followed.turn();
    assert_eq!(first[..4], ["1", "main", "claude-opus-4-5", "1"]);
    // The same call's next content block, written at another look: no turn of its own. Then
    // the next call's line in two halves.
    append(&path, &call("m1", "s1", None, 0, 5000));
    let second = call("m2", "s1", None, 0, 6000);
    let (head, tail) = second.split_at(second.len() / 2);
    append(&path, head);
    append(&path, tail);
    let second = followed.turn().join(" ");
    // Read nothing of the 5,001 before it: a break, judged as it came.
    assert!(
        second.starts_with(
            "2 main claude-opus-4-5 1 0 0 6,000 5 write break (re-written): 5,001 lost"
        ),
        "{second}"
    );
    append(&path, "{not json\n");
    let bad = Followed::next(&followed.err);
    assert!(bad.contains("s1.jsonl: line 4: not JSON"), "{bad}");
    let sub = dir.path().join("s1").join("subagents");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("agent-a1.jsonl"),
        call("x1", "s1", Some("a1"), 0, 3000),
    )
    .unwrap();
    let third = followed.turn();
    assert_eq!(third[..2], ["3", "subagent/a1"]);
    // 2.0.x's layout: an agent's file beside the session, naming it; one of another session
    // is not followed.
    std::fs::write(
        dir.path().join("agent-zz.jsonl"),
        call("z1", "s9", Some("zz"), 0, 900),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agent-b2.jsonl"),
        call("y1", "s1", Some("b2"), 0, 2000),
    )
    .unwrap();
    let fourth = followed.turn();
    assert_eq!(fourth[..2], ["4", "subagent/b2"]);
    let (status, err) = followed.stop();
    assert_eq!(status, Some(130));
    assert!(
        err.iter().any(|l| l.ends_with("followed 4 model calls")),
        "{err:?}"
    );
}

/// Without `--json`, the rows are `session`'s, under its header, and the totals close it.
#[test]
fn follow_prints_the_session_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    std::fs::write(&path, call("m1", "s1", None, 0, 5000)).unwrap();
    let mut followed = Followed::start(&["session", "--follow"], &path);
    let header: Vec<String> = (0..3).map(|_| Followed::next(&followed.out)).collect();
    assert!(header[0].starts_with("following "), "{header:?}");
    assert_eq!(header[1], toolprism::session::transcript::NO_BODIES);
    assert!(
        header[2].trim_start().starts_with("turn  thread"),
        "{header:?}"
    );
    let row = Followed::next(&followed.out);
    let report = stdout_of(&["session", path.to_str().unwrap()]);
    assert!(report.lines().any(|l| l == row), "{row}\n{report}");
    let (status, _) = followed.stop();
    assert_eq!(status, Some(130));
    let rest: Vec<String> = followed.out.iter().collect();
    assert!(
        rest.contains(&"thread main: 1 call, read 0, written 5,000, 0 breaks".to_owned()),
        "{rest:?}"
    );
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// A transcript compressed with gzip or zstd is read as it is, told by its magic whatever its
/// name, in a folder too (`*.jsonl.gz`, `*.jsonl.zst`); its subagents beside it as well.
#[test]
fn compressed_transcripts_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let text = call("m1", "s1", None, 0, 5000) + &call("m1", "s1", None, 0, 5000);
    let plain = report_of_text(&dir, "plain.jsonl", text.as_bytes());
    // gzip named as plain JSON lines: the magic decides.
    let gz = report_of_text(&dir, "s1.jsonl", &gzip(text.as_bytes()));
    let zst = zstd::encode_all(text.as_bytes(), 3).unwrap();
    let zst = report_of_text(&dir, "s2.jsonl.zst", &zst);
    for r in [&gz, &zst] {
        assert_eq!(turns_anywhere(r), turns_anywhere(&plain));
        assert_eq!(r["repeated"], 1);
    }
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("a.jsonl.gz"), gzip(text.as_bytes())).unwrap();
    std::fs::write(folder.path().join("b.jsonl"), &text).unwrap();
    let sub = folder.path().join("a").join("subagents");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("agent-x.jsonl.gz"),
        gzip(call("x1", "s1", Some("x"), 0, 3000).as_bytes()),
    )
    .unwrap();
    let r = report(folder.path().to_str().unwrap());
    let threads: Vec<usize> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["threads"].as_array().unwrap().len())
        .collect();
    assert_eq!(
        threads,
        [2, 1],
        "the gzip session's subagent read beside it"
    );
}

/// A report's turns without the file each came from, to compare two readings.
fn turns_anywhere(report: &Value) -> Vec<Value> {
    let mut turns = turns(report).clone();
    for turn in &mut turns {
        turn.as_object_mut().unwrap().remove("file");
    }
    turns
}

fn report_of_text(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> Value {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    report(path.to_str().unwrap())
}

/// A compressed transcript that inflates past the ratio guard is refused in one line naming
/// it, long before it is all inflated; following a compressed file is refused too.
#[test]
fn a_compressed_bomb_is_refused_in_one_line() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.jsonl.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(call("m1", "s1", None, 0, 5000).as_bytes())
        .unwrap();
    let mut blank = vec![b' '; 1 << 20];
    blank.push(b'\n');
    for _ in 0..320 {
        gz.write_all(&blank).unwrap();
    }
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let error = fails_with(&["session", p]);
    assert!(
        error.starts_with(&format!("toolprism: {p}: too large decompressed"))
            && error.contains("bomb"),
        "{error}"
    );
    let small = dir.path().join("s.jsonl.gz");
    std::fs::write(&small, gzip(call("m1", "s1", None, 0, 5000).as_bytes())).unwrap();
    let error = fails_with(&["session", "--follow", small.to_str().unwrap()]);
    assert!(error.contains("a gzip file cannot be followed"), "{error}");
    // A compressed trace too, refused before anything is printed.
    let trace = dir.path().join("trace.jsonl.zst");
    std::fs::write(
        &trace,
        zstd::encode_all(&b"{\"model\":\"m\"}\n"[..], 3).unwrap(),
    )
    .unwrap();
    let error = fails_with(&["session", "--follow", trace.to_str().unwrap()]);
    assert!(error.contains("a zstd file cannot be followed"), "{error}");
}

/// The samples of each layout Claude Code has kept its subagents in (SESSIONS.md, "Claude Code
/// transcripts"): inline sidechains (1.0.x to 2.0.27), `agent-<id>.jsonl` beside the session
/// (2.0.28 to 2.1.1), `<session>/subagents/` and its workflows' folders (2.1.2 and later).
#[test]
fn each_releases_layout_is_read() {
    let dir = "samples/traces/claude-code-releases";
    let cases = [
        (
            cases_file(0),
            "1.0.43",
            vec!["main", "subagent/1", "main"],
            1,
        ),
        (
            cases_file(1),
            "2.0.40",
            vec!["main", "main", "subagent/5e0c9a1f"],
            2,
        ),
        (
            cases_file(2),
            "2.1.14",
            vec!["main", "main", "subagent/a4d2e91", "subagent/b81f3c0"],
            3,
        ),
    ];
    for (file, version, threads, files) in cases {
        let r = report(&format!("{dir}/{file}"));
        assert_eq!(r["versions"], json!([version]), "{file}");
        let got: Vec<&str> = turns(&r)
            .iter()
            .map(|t| t["thread"].as_str().unwrap())
            .collect();
        assert_eq!(got, threads, "{file}");
        assert_eq!(r["files"].as_array().unwrap().len(), files, "{file}");
    }
    // 1.0.x wrote no 5-minute / 1-hour split; 2.1.x's hour-long writes are priced as such.
    let old = report(&format!("{dir}/{}", cases_file(0)));
    assert!(turns(&old)[0]["write_1h"].is_null());
    let new = report(&format!("{dir}/{}", cases_file(2)));
    assert_eq!(turns(&new)[0]["write_1h"], 18400);
    // A folder of 2.0.x: the agent's file is read with its session, not as a session.
    let folder = report(&format!("{dir}/2.0"));
    assert_eq!(folder["session_id"], "7c1d0e2a-2000-4a00-8000-000000000002");
    assert_eq!(turns(&folder).len(), 3);
}

fn cases_file(n: usize) -> &'static str {
    [
        "1.0/7c1d0e2a-1000-4a00-8000-000000000001.jsonl",
        "2.0/7c1d0e2a-2000-4a00-8000-000000000002.jsonl",
        "2.1/7c1d0e2a-2100-4a00-8000-000000000003.jsonl",
    ][n]
}

/// An `agent-*.jsonl` beside a session it does not name is not read with it; in a folder
/// without its session it is a session of its own.
#[test]
fn an_agent_file_of_another_session_is_its_own() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s1.jsonl"), call("m1", "s1", None, 0, 5000)).unwrap();
    std::fs::write(
        dir.path().join("agent-x.jsonl"),
        call("x1", "s9", Some("x"), 0, 3000),
    )
    .unwrap();
    let r = report(dir.path().join("s1.jsonl").to_str().unwrap());
    assert_eq!(turns(&r).len(), 1);
    let sessions = report(dir.path().to_str().unwrap());
    let ids: Vec<&str> = sessions
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["s9", "s1"]);
}

/// A session may open with bookkeeping lines (`queue-operation`: prompts queued while Claude
/// Code works) before any message: still a transcript, for `session` and for the refusals.
#[test]
fn a_session_opening_with_queued_prompts_is_a_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    let queued = line(json!({"type": "queue-operation", "operation": "enqueue",
        "timestamp": "2026-04-23T04:59:40.480Z", "sessionId": "s1", "content": "go on"}));
    let progress = line(json!({"type": "progress", "sessionId": "s1", "uuid": "p1",
        "parentUuid": null, "data": {"type": "hook_progress"}}));
    let text = queued.repeat(12) + &progress + &call("m1", "s1", None, 0, 5000);
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let r = report(p);
    assert_eq!(r["kind"], "claude-code-transcript");
    assert_eq!(turns(&r).len(), 1);
    let error = fails_with(&["report", p]);
    assert!(
        error.contains("a Claude Code session transcript"),
        "{error}"
    );
}

/// A reader gone (`| head`) ends the following at its next row, as a pipe's writer should.
#[test]
fn follow_ends_when_its_reader_is_gone() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    std::fs::write(&path, call("m1", "s1", None, 0, 5000)).unwrap();
    let mut child = std::process::Command::new(crate::support::command::bin())
        .args(["session", "--follow"])
        .arg(&path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.starts_with("following "), "{first}");
    drop(out);
    let mut n = 2;
    // Each new call is a row to write; the first write after the reader went fails.
    let grow = || {
        append(&path, &call(&format!("m{n}"), "s1", None, 0, 5000));
        n += 1;
    };
    let status = crate::support::command::step_until_exit(
        &mut child,
        std::time::Duration::from_secs(20),
        "still following",
        grow,
    );
    assert!(status.success(), "{status:?}");
}
