//! Write a deterministic synthetic claude-trace session (JSON lines) for the session speed goal.
//!
//! ```text
//! cargo run --release --example gen_trace -- [OUT] [--turns N] [--tools N] [--mb SIZE]
//! ```
//! Without options: 240 model calls of a 131-tool Claude Code session, about 100 MB. The
//! conversation grows every turn (a tool call and its result), responses carry usage that
//! follows the cache chain, and the session has what real ones have: an MCP server that
//! reconnects and lists its tools in another order (turn 81), a tool whose description changes
//! (turn 161), a sub-agent with its own tool list and thread, a pause longer than the cache
//! lifetime, a `tool_search` call, a failed call, and count_tokens and GET records that are
//! not turns.

use std::io::{BufWriter, Write};

use serde_json::{Value, json};
#[path = "../benches/synth/mod.rs"]
mod synth;

use synth::{Spec, capture_value};

struct Options {
    turns: usize,
    tools: usize,
    megabytes: usize,
}

fn main() {
    let mut options = Options {
        turns: 240,
        tools: 131,
        megabytes: 100,
    };
    let mut out: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |what: &str| -> usize {
            match args.next().as_deref().map(str::parse::<usize>) {
                Some(Ok(n)) => n,
                _ => {
                    eprintln!("gen_trace: {what} needs a number");
                    std::process::exit(2);
                }
            }
        };
        match arg.as_str() {
            "--turns" => options.turns = number("--turns"),
            "--tools" => options.tools = number("--tools"),
            "--mb" => options.megabytes = number("--mb"),
            "-h" | "--help" => {
                println!("usage: gen_trace [OUT] [--turns N] [--tools N] [--mb SIZE]");
                return;
            }
            _ if out.is_none() => out = Some(arg),
            other => {
                eprintln!("gen_trace: unexpected argument `{other}`");
                std::process::exit(2);
            }
        }
    }
    let written = match out.as_deref() {
        None | Some("-") => write(&mut std::io::stdout().lock(), &options),
        Some(path) => {
            std::fs::File::create(path).and_then(|file| write(&mut BufWriter::new(file), &options))
        }
    };
    if let Err(e) = written {
        eprintln!("gen_trace: {e}");
        std::process::exit(2);
    }
}

/// Bytes a generated tool description keeps.
const DESCRIPTION_CAP: usize = 1_200;

const URL: &str = "https://api.anthropic.com/v1/messages";
const USER: &str = "user_5f1c0c6e_account_2b7d_session_8a3e41c2";
const START: f64 = 1_764_583_200.0; // 2025-12-01T10:00:00Z

fn write(out: &mut impl Write, options: &Options) -> std::io::Result<()> {
    let (tools, system) = claude_code_tools(options.tools);
    let tools_bytes = serde_json::to_string(&tools).map_or(0, |s| s.len());
    let result_bytes = result_bytes(options, tools_bytes);
    let sub_tools: Vec<Value> = tools.iter().take(6).cloned().collect();
    let phases = Phases::new(tools);

    let mut messages: Vec<Value> = vec![json!({"role": "user", "content": [{"type": "text",
        "text": "The CI run on the release branch fails in the migration tests. Find the failing test and fix it."}]})];
    let mut time = START;
    let mut cached = 0u64; // what the main thread's cache holds, in tokens
    let mut sub_cached = 0u64;
    let mut filler = Filler(0x9e37_79b9_7f4a_7c15);
    for turn in 1..=options.turns {
        time += if turn == 120 { 7.0 * 60.0 } else { 9.5 };
        let phase = phases.at(turn);
        let side = Side {
            turn,
            time,
            first: &messages[0],
            phase,
            sub_tools: &sub_tools,
        };
        side.write(out, &mut sub_cached)?;
        let body = json!({
            "model": "claude-sonnet-4-5-20250929",
            "max_tokens": 32000,
            "metadata": {"user_id": USER},
            "system": system,
            "messages": messages,
            "tools": phase,
            "tool_choice": {"type": "auto"},
            "stream": true,
        });
        let (main, failed) = main_call(turn, time, body, &mut cached, result_bytes);
        writeln!(out, "{}", serde_json::to_string(&main)?)?;
        if failed {
            continue;
        }
        push_step(
            &mut messages,
            turn,
            &phases.tools,
            &mut filler,
            result_bytes,
        );
    }
    out.flush()
}

/// `count` tools of the benchmark generator with descriptions cut to a Claude Code list's
/// size, and its system prompt.
fn claude_code_tools(count: usize) -> (Vec<Value>, Value) {
    let base = capture_value(Spec::small(count, 0x5e55_1017));
    let mut tools: Vec<Value> = base["tools"].as_array().cloned().unwrap_or_default();
    // The benchmark generator's descriptions are long (a 1000-tool list of 3.6 MB); a Claude
    // Code list of 131 tools is nearer 300 KB.
    for entry in &mut tools {
        if let Some(Value::String(description)) = entry.get_mut("description")
            && description.len() > DESCRIPTION_CAP
        {
            let cut = description.floor_char_boundary(DESCRIPTION_CAP);
            description.truncate(cut);
        }
    }
    (tools, base["system"].clone())
}

/// Bytes of each tool result: each turn re-sends the conversation, so the results are sized
/// for the whole trace to come out near the size asked for.
fn result_bytes(options: &Options, tools_bytes: usize) -> usize {
    let budget = (options.megabytes * 1_000_000) as f64 / options.turns.max(1) as f64;
    // Every 25th turn also has a count_tokens record with the tools; newlines in the results
    // are escaped and each step adds a tool call: about 0.4x more bytes than the results.
    let conversation = ((budget - tools_bytes as f64 * 1.04 - 2_000.0) / 1.4).max(2_000.0);
    (2.0 * conversation / options.turns.max(1) as f64) as usize
}

/// The main thread's tools at each phase: the capture's, an MCP reconnect that lists one
/// server's tools in reverse (from turn 81), then a changed description (from turn 161).
struct Phases {
    tools: Vec<Value>,
    reordered: Vec<Value>,
    changed: Vec<Value>,
}

impl Phases {
    fn new(tools: Vec<Value>) -> Phases {
        let reordered = {
            let mut list = tools.clone();
            let mcp: Vec<usize> = (0..list.len())
                .filter(|&i| {
                    list[i]["name"]
                        .as_str()
                        .is_some_and(|n| n.starts_with("mcp__"))
                })
                .collect();
            let (first, last) = (mcp.first().copied(), mcp.last().copied());
            if let (Some(first), Some(last)) = (first, last) {
                // The cache_control marker stays on the last entry, as Claude Code places it.
                let mut moved: Vec<Value> = list[first..last].to_vec();
                moved.reverse();
                list.splice(first..last, moved);
            }
            list
        };
        let changed = {
            let mut list = reordered.clone();
            if let Some(entry) = list
                .iter_mut()
                .find(|t| t["name"].as_str().is_some_and(|n| n.starts_with("mcp__")))
            {
                let description = entry["description"].as_str().unwrap_or("").to_owned();
                entry["description"] = json!(format!("{description}\n\nUpdated by the server."));
            }
            list
        };
        Phases {
            tools,
            reordered,
            changed,
        }
    }

    /// The list the main thread sends at `turn`.
    fn at(&self, turn: usize) -> &[Value] {
        if turn > 160 {
            &self.changed
        } else if turn > 80 {
            &self.reordered
        } else {
            &self.tools
        }
    }
}

/// What a turn writes before the main thread's call: a count_tokens record every 25th turn, a
/// GET every 60th, and the sub-agent's call on turns 100 to 105.
struct Side<'a> {
    turn: usize,
    time: f64,
    /// The conversation's first message, which count_tokens is asked about.
    first: &'a Value,
    phase: &'a [Value],
    sub_tools: &'a [Value],
}

impl Side<'_> {
    /// Write the turn's records; `sub_cached` is what the sub-agent's cache holds.
    fn write(&self, out: &mut impl Write, sub_cached: &mut u64) -> std::io::Result<()> {
        let (turn, time) = (self.turn, self.time);
        if turn % 25 == 0 {
            let count = record(
                time - 1.0,
                "POST",
                "https://api.anthropic.com/v1/messages/count_tokens",
                json!({"model": "claude-sonnet-4-5-20250929", "messages": [self.first.clone()], "tools": self.phase}),
                Some(json!({"input_tokens": 31_000})),
                200,
            );
            writeln!(out, "{}", serde_json::to_string(&count)?)?;
        }
        if turn % 60 == 0 {
            let get = record(
                time - 0.5,
                "GET",
                "https://api.anthropic.com/api/oauth/usage",
                Value::Null,
                Some(json!({"ok": true})),
                200,
            );
            writeln!(out, "{}", serde_json::to_string(&get)?)?;
        }
        // A sub-agent runs for a few turns in the middle, on its own small list.
        if (100..106).contains(&turn) {
            let body = json!({
                "model": "claude-sonnet-4-5-20250929",
                "max_tokens": 32000,
                "metadata": {"user_id": USER},
                "system": [{"type": "text", "text": "You are a file search specialist."}],
                "messages": [{"role": "user", "content": "Find the migration test files."}],
                "tools": self.sub_tools,
                "stream": true,
            });
            let usage = json!({"input_tokens": 12, "cache_creation_input_tokens": if *sub_cached == 0 { 3_000 } else { 0 }, "cache_read_input_tokens": *sub_cached});
            *sub_cached = 3_000;
            let mut sub = record(
                time - 3.0,
                "POST",
                URL,
                body,
                Some(json!({"type": "message", "usage": usage})),
                200,
            );
            sub["request"]["headers"]["x-claude-code-agent-id"] = json!("agent_a41f");
            writeln!(out, "{}", serde_json::to_string(&sub)?)?;
        }
        Ok(())
    }
}

/// The main thread's call at `turn` with the usage its cache chain gives, and whether it
/// failed; `cached` (what the cache holds, in tokens) follows it.
fn main_call(
    turn: usize,
    time: f64,
    body: Value,
    cached: &mut u64,
    result_bytes: usize,
) -> (Value, bool) {
    // The prefix up to the last breakpoint: tools and system, then the conversation.
    let prefix = 30_000 + 40 * turn as u64 * (result_bytes as u64 / 160 + 20);
    let tools_changed = turn == 81 || turn == 161;
    let expired = turn == 120;
    let (read, write) = if turn == 1 || tools_changed || expired {
        (0, prefix)
    } else {
        (*cached, prefix.saturating_sub(*cached))
    };
    let failed = turn == 200;
    // A failed call writes nothing to the cache.
    *cached = if failed { read } else { read + write };
    let usage = json!({"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": read});
    let response = if failed {
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    } else {
        json!({"id": format!("msg_{turn:04}"), "type": "message", "role": "assistant", "usage": usage})
    };
    let status = if failed { 529 } else { 200 };
    (
        record(time, "POST", URL, body, Some(response), status),
        failed,
    )
}

/// The model calls a tool at `turn` (`tool_search` once, at turn 50; `Bash` otherwise), and
/// the call and its `result_bytes` result join the conversation for the next turn.
fn push_step(
    messages: &mut Vec<Value>,
    turn: usize,
    tools: &[Value],
    filler: &mut Filler,
    result_bytes: usize,
) {
    let (name, input) = if turn == 50 {
        let mcp = tools
            .iter()
            .filter_map(|t| t["name"].as_str())
            .find(|n| n.starts_with("mcp__"))
            .unwrap_or("Read");
        ("tool_search", json!({"query": format!("select:{mcp}")}))
    } else {
        (
            "Bash",
            json!({"command": format!("cargo test migration_{turn}")}),
        )
    };
    let id = format!("toolu_{turn:04}");
    messages.push(json!({"role": "assistant", "content": [
        {"type": "text", "text": format!("Step {turn}: running the next check.")},
        {"type": "tool_use", "id": id, "name": name, "input": input}
    ]}));
    messages.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": id, "content": filler.text(result_bytes)}
    ]}));
}

/// One claude-trace record.
fn record(
    time: f64,
    method: &str,
    url: &str,
    body: Value,
    response: Option<Value>,
    status: u16,
) -> Value {
    let logged = format_time(time + 0.8);
    json!({
        "request": {
            "timestamp": time,
            "method": method,
            "url": url,
            "headers": {"content-type": "application/json", "anthropic-version": "2023-06-01"},
            "body": body,
        },
        "response": response.map(|body| json!({
            "timestamp": time + 0.8,
            "status_code": status,
            "headers": {"content-type": "application/json"},
            "body": body,
        })),
        "logged_at": logged,
    })
}

/// Seconds since the epoch as ISO 8601 (UTC, milliseconds).
fn format_time(time: f64) -> String {
    let ms = (time * 1000.0) as i64;
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000
    )
}

/// Tool output of a given size: log-like lines from a tiny PRNG.
struct Filler(u64);

impl Filler {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn text(&mut self, bytes: usize) -> String {
        const WORDS: [&str; 12] = [
            "test",
            "migration",
            "ok",
            "FAILED",
            "postgres",
            "schema",
            "running",
            "passed",
            "error:",
            "warning:",
            "src/db/migrate.rs",
            "0.42s",
        ];
        let mut text = String::with_capacity(bytes + 32);
        while text.len() < bytes {
            let n = self.next();
            text.push_str(WORDS[(n % 12) as usize]);
            text.push(if n.is_multiple_of(9) { '\n' } else { ' ' });
        }
        text
    }
}
