//! Hostile text: no raw control byte (C0 but line feed, DEL, C1, escape sequences, bidi
//! controls, zero-width and invisible characters) reaches standard output or standard error of
//! any human-facing command, for captures whose tool names, descriptions, parameter texts,
//! messages and even file name carry them. JSON for pipes stays byte-faithful (it is data);
//! JSON shown on a terminal (`show`, `export -o -`, run under a pty) is escaped too.

use std::path::{Path, PathBuf};

use toolprism::sanitize::is_unsafe;

use crate::support::command::{bin, output_of};
use crate::support::tools;

/// Every hostile character class, as a string to plant everywhere.
const NASTY: &str = "\u{1b}[31mRED\u{1b}]0;title\u{7}\u{1b}[2J\u{0}\u{8}\r\t\u{7f}\u{9b}1m\u{85}\
                     \u{202e}rev\u{202c}\u{2066}iso\u{2069}\u{200b}\u{200d}\u{feff}\u{ad}\
                     \u{2028}\u{e0041}\u{61c}\u{1bca0}\u{13430}\u{1d173}\u{17b4}\u{180b}\u{fff0}\
                     \u{fe0f}\u{e0100}\u{fe00}";

/// The first unsafe character in `bytes`, as output reaches a terminal. Line feeds are allowed;
/// so is a carriage return right before one when `pty` (the terminal's own `\r\n`).
fn first_unsafe(bytes: &[u8], pty: bool) -> Option<(usize, char)> {
    let text = String::from_utf8_lossy(bytes);
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        let next = chars.get(i + 1).map(|&(_, c)| c);
        let allowed = c == '\n' || (pty && c == '\r' && next == Some('\n'));
        if is_unsafe(c) && !allowed {
            return Some((at, c));
        }
    }
    None
}

fn assert_clean(what: &str, stream: &str, bytes: &[u8], pty: bool) {
    if let Some((at, c)) = first_unsafe(bytes, pty) {
        let text = String::from_utf8_lossy(bytes);
        let from = text.floor_char_boundary(at.saturating_sub(40));
        let to = text.floor_char_boundary((at + 40).min(text.len()));
        panic!(
            "{what}: raw U+{:04X} on {stream} at byte {at}: {:?}",
            c as u32,
            &text[from..to]
        );
    }
}

/// Captures of every shape with `NASTY` in every text, under a file name that carries an ESC
/// and a bidi override too.
fn hostile_captures(dir: &Path) -> Vec<PathBuf> {
    let tool = |i: usize| {
        serde_json::json!({
            "name": format!("mcp__evil{NASTY}__t{i}"),
            "description": format!("First{NASTY}. Second sentence{NASTY}. {}", "Long. ".repeat(300)),
            "input_schema": {"type": "object", "properties": {
                format!("p{NASTY}"): {"type": "string", "description": format!("param{NASTY}")}
            }}
        })
    };
    let tools: Vec<_> = (0..12).map(tool).collect();
    let openai: Vec<_> = (0..12)
        .map(|i| {
            let t = tool(i);
            serde_json::json!({"type": "function", "function": {
                "name": t["name"], "description": t["description"], "parameters": t["input_schema"]}})
        })
        .collect();
    let bodies = [
        (
            "messages",
            serde_json::json!({"model": format!("m{NASTY}"), "max_tokens": 1,
                "messages": [{"role": "user", "content": format!("use mcp__evil tools {NASTY}")}],
                "tools": tools, "tool_choice": {"type": "tool", "name": format!("gone{NASTY}")}}),
        ),
        (
            "chat",
            serde_json::json!({"model": "gpt", "messages": [{"role": "user", "content": NASTY}],
                "tools": openai}),
        ),
        (
            "mcp",
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": (0..12).map(|i| {
                let t = tool(i);
                serde_json::json!({"name": t["name"], "description": t["description"],
                    "inputSchema": t["input_schema"]})
            }).collect::<Vec<_>>()}}),
        ),
    ];
    bodies
        .iter()
        .map(|(shape, body)| {
            let path = dir.join(format!("cap\u{1b}[31m\u{202e}{shape}.json"));
            std::fs::write(&path, serde_json::to_vec_pretty(body).unwrap()).unwrap();
            path
        })
        .collect()
}

const STRATEGIES: [&str; 11] = [
    "original",
    "full",
    "progressive",
    "minimal",
    "direct",
    "adaptive",
    "code",
    "disabled",
    "shorten",
    "defer",
    "defer-catalog",
];

#[test]
fn reports_diffs_and_lists_show_no_raw_control_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for capture in hostile_captures(dir.path()) {
        let name = capture.to_str().unwrap();
        let mut commands: Vec<Vec<&str>> = vec![
            vec!["report", name],
            vec!["report", name, "--per-tool"],
            vec!["report", name, "--set", "defer.threshold=1", "--per-tool"],
            vec!["strategies"],
            vec![name],
        ];
        for strategy in STRATEGIES {
            commands.push(vec!["diff", name, "-s", strategy, "--color", "never"]);
            commands.push(vec!["diff", name, "-s", strategy, "--color", "always"]);
        }
        for args in &commands {
            let out = output_of(args);
            let what = format!("{args:?}");
            // Colour escapes of our own (`--color always`) are the one exception: SGR
            // sequences toolprism writes itself. Strip exactly those before scanning.
            let stdout = if args.contains(&"always") {
                strip_own_sgr(&out.stdout)
            } else {
                out.stdout.clone()
            };
            assert_clean(&what, "stdout", &stdout, false);
            assert_clean(&what, "stderr", &out.stderr, false);
        }
    }
}

/// Remove `ESC [ digits/semicolons m` sequences: the colours toolprism itself writes. An ESC
/// from a capture is shown as `␛`, so any raw ESC left after this is a leak.
fn strip_own_sgr(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0x1b && bytes.get(i + 1) == Some(&b'[') {
            let mut j = i + 2;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b';') {
                j += 1;
            }
            if bytes.get(j) == Some(&b'm') {
                i = j + 1;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

#[test]
fn errors_naming_hostile_files_and_values_are_clean() {
    let dir = tempfile::tempdir().unwrap();
    let captures = hostile_captures(dir.path());
    let name = captures[0].to_str().unwrap();
    let missing = dir.path().join("no\u{1b}]0;x\u{7}such\u{202e}.json");
    let invalid = dir.path().join("bad\u{1b}[2J.json");
    std::fs::write(&invalid, format!("{{\"tools\": [{{\"name\": \"{NASTY}\"")).unwrap();
    let bad_tool = dir.path().join("badtool\u{9b}.json");
    std::fs::write(
        &bad_tool,
        serde_json::to_vec(&serde_json::json!({"model": "m", "messages": [],
            "tools": {"name": ""}}))
        .unwrap(),
    )
    .unwrap();
    // An argument cannot carry NUL; everything else can.
    let nasty_arg = format!("x{}", NASTY.replace('\0', ""));
    let out_in_missing = dir.path().join("gone\u{1b}[1m/out.json");
    let cases: Vec<Vec<&str>> = vec![
        vec!["report", missing.to_str().unwrap()],
        vec!["report", invalid.to_str().unwrap()],
        vec!["report", bad_tool.to_str().unwrap()],
        vec!["show", invalid.to_str().unwrap(), "-s", "full"],
        vec!["diff", name, "-s", "full", "--tool", &nasty_arg],
        vec!["report", name, "-s", &nasty_arg],
        vec!["report", name, "--set", &nasty_arg],
        vec!["report", name, "--set", "defer.threshold=\u{1b}[31m"],
        vec![
            "export",
            name,
            "-s",
            "full",
            "-o",
            out_in_missing.to_str().unwrap(),
        ],
        vec!["export", name, "-s", "full", "-o", name],
        vec![&nasty_arg],
        vec!["--encoding", &nasty_arg, "report", name],
    ];
    for args in &cases {
        let out = output_of(args);
        let what = format!("{args:?}");
        assert_eq!(out.status.code(), Some(2), "{what}: {:?}", out.status);
        assert_clean(&what, "stdout", &out.stdout, false);
        assert_clean(&what, "stderr", &out.stderr, false);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{what}: {stderr:?}");
    }
}

/// Run under a pseudo-terminal (`script`), so `show` and `export -o -` see a terminal.
fn run_in_pty(args: &[&str]) -> Option<Vec<u8>> {
    let quoted: Vec<String> = std::iter::once(bin())
        .chain(args.iter().copied())
        .map(tools::shell_quote)
        .collect();
    // `-f`: flush as the program writes (the output is read whole afterwards anyway).
    let out = tools::in_pty(
        &quoted.join(" "),
        &std::env::current_dir().expect("the test's folder"),
        &[("TERM", "xterm")],
        &[],
        "a terminal case of robust_text",
    )?;
    Some(out.stdout)
}

#[test]
fn json_on_a_terminal_is_escaped_but_byte_faithful_in_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    for capture in hostile_captures(dir.path()) {
        let name = capture.to_str().unwrap();
        for strategy in ["original", "full", "minimal", "defer", "defer-catalog"] {
            for args in [
                vec!["show", name, "-s", strategy],
                vec!["show", name, "-s", strategy, "--pretty", "--tools-only"],
                // `--force`: the Messages capture's `tool_choice` names no tool, so its request is invalid.
                vec!["export", name, "-s", strategy, "-o", "-", "--force"],
            ] {
                let Some(screen) = run_in_pty(&args) else {
                    return;
                };
                assert!(!screen.is_empty(), "{args:?}: nothing printed");
                assert_clean(&format!("{args:?} (pty)"), "the terminal", &screen, true);
                // Into a pipe: the exact JSON, which parses to the same value as on screen.
                let piped = output_of(&args);
                assert!(piped.status.success(), "{args:?}");
                let from_pipe: serde_json::Value = serde_json::from_slice(&piped.stdout).unwrap();
                let text = String::from_utf8_lossy(&screen).replace("\r\n", "\n");
                let from_screen: serde_json::Value = serde_json::from_str(text.trim())
                    .unwrap_or_else(|e| panic!("{args:?}: screen is not JSON: {e}"));
                assert_eq!(from_pipe, from_screen, "{args:?}");
            }
        }
    }
}
