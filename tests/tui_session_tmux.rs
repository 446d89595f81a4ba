//! End to end: `toolprism TRACE` in a real terminal (tmux), on its own tmux server socket,
//! waiting for screen text instead of sleeping; without tmux it skips with a message.

use crate::support::tmux::Tmux;

const TRACE: &str = include_str!("../samples/traces/claude-code-mcp-reconnect.jsonl");

/// `line` (`$BIN` for the binary) in a 120x35 terminal whose folder holds the trace as
/// `trace.jsonl`.
fn session(name: &str, line: &str) -> Option<Tmux> {
    Tmux::program(
        &format!("session-{name}"),
        (120, 35),
        &[("trace.jsonl", TRACE)],
        line,
    )
}

fn journey(tmux: &Tmux) {
    tmux.wait("the session view", |s| {
        s.contains("Session totals") && s.contains("Turns · 9 turns")
    });
    // Down to turn 6, where the cache broke, and open it.
    tmux.keys(&["j", "j", "j", "j", "j"]);
    tmux.wait("turn 6 selected", |s| s.contains("turn 6 of 9"));
    tmux.keys(&["Enter"]);
    let single = tmux.wait("the single-request view", |s| {
        s.contains("turn 6 (line 8)") && s.contains("Matrix")
    });
    // The matrix's name column is too narrow for `mcp__github__add_issue_comment`, so every
    // MCP name shows as `server›tool`.
    assert!(single.contains("github›list_issues"), "{single}");
    tmux.keys(&["Escape"]);
    tmux.wait("back on the session view", |s| {
        s.contains("Session totals") && s.contains("turn 6 of 9")
    });
    tmux.keys(&["q"]);
    assert_eq!(tmux.wait_exit(), 0);
}

#[test]
fn a_trace_opens_on_the_session_view_and_a_turn_opens_and_comes_back() {
    let Some(tmux) = session("file", "$BIN trace.jsonl") else {
        return;
    };
    journey(&tmux);
}

#[test]
fn a_piped_trace_works_the_same() {
    let Some(tmux) = session("stdin", "cat trace.jsonl | $BIN") else {
        return;
    };
    tmux.wait("the trace named as standard input", |s| {
        s.contains("toolprism · <stdin> · claude-trace")
    });
    journey(&tmux);
}
