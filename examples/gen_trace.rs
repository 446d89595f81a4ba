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
    let base = capture_value(Spec::small(options.tools, 0x5e55_1017));
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
    let system = base["system"].clone();
    let tools_bytes = serde_json::to_string(&tools).map_or(0, |s| s.len());
    // Each turn re-sends the conversation: size the tool results so the whole trace comes
    // out near the size asked for.
    let budget = (options.megabytes * 1_000_000) as f64 / options.turns.max(1) as f64;
    // Every 25th turn also has a count_tokens record with the tools; newlines in the results
    // are escaped and each step adds a tool call: about 0.4x more bytes than the results.
    let conversation = ((budget - tools_bytes as f64 * 1.04 - 2_000.0) / 1.4).max(2_000.0);
    let result_bytes = (2.0 * conversation / options.turns.max(1) as f64) as usize;

    // The main thread's tools at each phase: the capture's, an MCP reconnect that lists one
    // server's tools in reverse, then a changed description.
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
    let sub_tools: Vec<Value> = tools.iter().take(6).cloned().collect();

    let mut messages: Vec<Value> = vec![json!({"role": "user", "content": [{"type": "text",
        "text": "The CI run on the release branch fails in the migration tests. Find the failing test and fix it."}]})];
    let mut time = START;
    let mut cached = 0u64; // what the main thread's cache holds, in tokens
    let mut sub_cached = 0u64;
    let mut filler = Filler(0x9e37_79b9_7f4a_7c15);
    for turn in 1..=options.turns {
        time += if turn == 120 { 7.0 * 60.0 } else { 9.5 };
        let phase = if turn > 160 {
            &changed
        } else if turn > 80 {
            &reordered
        } else {
            &tools
        };
        if turn % 25 == 0 {
            let count = record(
                time - 1.0,
                "POST",
                "https://api.anthropic.com/v1/messages/count_tokens",
                json!({"model": "claude-sonnet-4-5-20250929", "messages": [messages[0].clone()], "tools": phase}),
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
                "tools": sub_tools,
                "stream": true,
            });
            let usage = json!({"input_tokens": 12, "cache_creation_input_tokens": if sub_cached == 0 { 3_000 } else { 0 }, "cache_read_input_tokens": sub_cached});
            sub_cached = 3_000;
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
        // The prefix up to the last breakpoint: tools and system, then the conversation.
        let prefix = 30_000 + 40 * turn as u64 * (result_bytes as u64 / 160 + 20);
        let tools_changed = turn == 81 || turn == 161;
        let expired = turn == 120;
        let (read, write) = if turn == 1 || tools_changed || expired {
            (0, prefix)
        } else {
            (cached, prefix.saturating_sub(cached))
        };
        cached = read + write;
        let failed = turn == 200;
        let usage = json!({"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": read});
        let response = if failed {
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
        } else {
            json!({"id": format!("msg_{turn:04}"), "type": "message", "role": "assistant", "usage": usage})
        };
        let main = record(
            time,
            "POST",
            URL,
            body,
            Some(response),
            if failed { 529 } else { 200 },
        );
        writeln!(out, "{}", serde_json::to_string(&main)?)?;
        if failed {
            cached = read;
            continue;
        }

        // The model calls a tool; its result joins the conversation for the next turn.
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
    out.flush()
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
