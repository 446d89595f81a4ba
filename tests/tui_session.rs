//! The session view (`toolprism TRACE`) driven without a terminal: the analysis and the turn
//! loading run synchronously through the same functions the background threads call, keys go
//! through the real key table, and frames are drawn into ratatui's `TestBackend`.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use toolprism::Settings;
use toolprism::measure::Encoding;
use toolprism::session::SessionReport;
use toolprism::trace::{self, TraceOptions};
use toolprism::tui::app::Tab;
use toolprism::tui::session::app::{
    Focus, Screen, SessionApp, SessionEffect, SessionInput, session_update,
};
use toolprism::tui::session::{SessionView, default_shown, turn_detail};
use toolprism::tui::worker::{self, SessionJob, Worker};
use toolprism::tui::{Effect, Msg, update};

use crate::support::command::toolprism;

const TRACE: &str = "samples/traces/claude-code-mcp-reconnect.jsonl";

struct Harness {
    app: SessionApp,
    nested: Option<(u64, Worker)>,
}

impl Harness {
    fn open(path: &str, skip_bad: bool) -> Harness {
        let reader = trace::open(path, &TraceOptions { skip_bad }).expect("the trace opens");
        let mut app = SessionApp::new(
            path.to_owned(),
            path.to_owned(),
            reader.format().id(),
            skip_bad,
            Settings::default(),
            Encoding::O200kBase,
            false,
        );
        let mut msgs = Vec::new();
        worker::analyse(
            SessionJob {
                reader,
                name: path.to_owned(),
                strategies: toolprism::Strategy::ALL.to_vec(),
                settings: Settings::default(),
                encoding: Encoding::O200kBase,
            },
            &mut |m| msgs.push(m),
        );
        for m in msgs {
            session_update(&mut app, SessionInput::Worker(m));
        }
        Harness { app, nested: None }
    }

    fn report(&self) -> Arc<SessionReport> {
        self.app.report.clone().expect("analysed")
    }

    /// Run what the update asked for: turn loads, and the nested inspector's computations.
    fn settle(&mut self) {
        for effect in std::mem::take(&mut self.app.effects) {
            match effect {
                SessionEffect::Pick(turn) => {
                    let msg = worker::pick(&self.app.path, turn, self.app.skip_bad);
                    session_update(&mut self.app, SessionInput::Worker(msg));
                }
                SessionEffect::Suspend => {}
            }
        }
        let id = self.app.single_id;
        let Some(single) = self.app.single.as_mut() else {
            self.nested = None;
            return;
        };
        if self.nested.as_ref().is_none_or(|n| n.0 != id) {
            self.nested = Some((id, Worker::new(single.ctx.capture.clone())));
        }
        let worker = &mut self.nested.as_mut().expect("a worker").1;
        loop {
            let effects = std::mem::take(&mut single.effects);
            if effects.is_empty() {
                return;
            }
            for effect in effects {
                if let Effect::Compute(job) = effect {
                    let mut out = Vec::new();
                    worker.run(&job, &mut |m| out.push(m), &mut || false);
                    for m in out {
                        update(single, Msg::Worker(m));
                    }
                }
            }
        }
    }

    /// Press keys: characters, or `<enter>`, `<esc>`, `<down>`, `<up>`, `<tab>`, `<space>`.
    fn keys(&mut self, script: &str) -> &mut Harness {
        let mut rest = script;
        while let Some(c) = rest.chars().next() {
            let (code, len) = if c == '<' {
                let end = rest.find('>').expect("closed key name");
                let code = match &rest[1..end] {
                    "enter" => KeyCode::Enter,
                    "esc" => KeyCode::Esc,
                    "down" => KeyCode::Down,
                    "up" => KeyCode::Up,
                    "tab" => KeyCode::Tab,
                    "space" => KeyCode::Char(' '),
                    other => panic!("unknown key {other}"),
                };
                (code, end + 1)
            } else {
                (KeyCode::Char(c), c.len_utf8())
            };
            rest = &rest[len..];
            session_update(
                &mut self.app,
                SessionInput::Key(KeyEvent::new(code, KeyModifiers::NONE)),
            );
            self.settle();
        }
        self
    }

    fn draw(&mut self, w: u16, h: u16) -> Terminal<TestBackend> {
        session_update(&mut self.app, SessionInput::Resize(w, h));
        let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
        terminal
            .draw(|f| toolprism::tui::session::draw::render(&self.app, f))
            .expect("draws");
        terminal
    }

    fn screen(&mut self, w: u16, h: u16) -> String {
        let terminal = self.draw(w, h);
        let buffer = terminal.backend().buffer();
        let mut out = String::new();
        for y in 0..h {
            for x in 0..w {
                out.push_str(buffer[(x, y)].symbol());
            }
            out.push('\n');
        }
        out
    }
}

fn snapshot(name: &str, h: &mut Harness, w: u16, height: u16) {
    let terminal = h.draw(w, height);
    insta::assert_snapshot!(name, terminal.backend());
}

// ---- snapshots -----------------------------------------------------------------------------

#[test]
fn the_session_view_at_the_four_sizes() {
    for (w, h) in [(200, 50), (120, 35), (80, 24), (40, 12)] {
        let mut harness = Harness::open(TRACE, false);
        // Turn 6: the MCP server reconnected and reordered its tools, the cache broke.
        harness.keys("jjjjj");
        snapshot(&format!("session_{w}x{h}"), &mut harness, w, h);
    }
}

#[test]
fn the_turn_diff_and_the_totals_at_two_sizes() {
    for (w, h) in [(120, 35), (80, 24)] {
        let mut harness = Harness::open(TRACE, false);
        harness.keys("jjjjjd");
        snapshot(&format!("session_diff_{w}x{h}"), &mut harness, w, h);
        let mut harness = Harness::open(TRACE, false);
        harness.keys("v");
        snapshot(&format!("session_totals_{w}x{h}"), &mut harness, w, h);
    }
}

/// The README's session screen: the showcase, on the turn where the GitHub MCP server
/// connected and broke the cache.
#[test]
fn the_readme_showcase_at_120x35() {
    let mut harness = Harness::open("samples/traces/claude-code-mcp-connects.jsonl", false);
    harness.keys("jjjjj");
    let screen = harness.screen(120, 35);
    assert!(screen.contains("Turn 6"), "{screen}");
    // What the break cost is in sight, above the tools it added.
    assert!(
        screen.contains("│▲ break: 3,441 lost, cost 6,091 against 2,134 │")
            && screen.contains("│  held (+3,957, $0.01)  "),
        "{screen}"
    );
    snapshot("showcase_120x35", &mut harness, 120, 35);
}

// ---- the view model against the report -----------------------------------------------------

#[test]
fn turn_rows_say_what_changed_in_counts_and_mark_the_break() {
    let h = Harness::open(TRACE, false);
    let report = h.report();
    let view = SessionView::build(&report, &h.app.shown);
    assert_eq!(view.turns.len(), report.turns.len());
    let got: Vec<(usize, &str, &str, &str, &str, bool)> = view
        .turns
        .iter()
        .map(|t| {
            (
                t.turn,
                t.thread.as_str(),
                t.tokens.as_str(),
                t.cache.as_str(),
                t.change.as_str(),
                t.observed_break,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "t1", "0", "cold", "first", false),
            (2, "t2", "1,967", "cold", "first", false),
            (3, "t2", "1,967", "hit", "=", false),
            (4, "t3", "1,107", "cold", "first", false),
            (5, "t2", "1,967", "hit", "=", false),
            (6, "t2", "1,967", "break (tools)", "~2 order", true),
            (7, "t2", "1,967", "unknown", "failed 529", false),
            (8, "t2", "1,967", "hit", "=", false),
            (9, "t2", "1,967", "unknown", "no response", false),
        ]
    );
    assert_eq!(view.turns[0].time, "12:30:45");
    // A charted strategy's mark is its own instability at that turn.
    for (i, row) in view.turns.iter().enumerate() {
        let expected: Vec<&str> = report
            .strategies
            .iter()
            .enumerate()
            .filter(|(k, s)| h.app.shown[*k] && s.per_turn[i].stable == Some(false))
            .map(|(_, s)| s.id)
            .collect();
        assert_eq!(row.strategy_breaks, expected, "turn {}", row.turn);
    }
    // search is refused on Claude Sonnet 4 (Anthropic's tool search needs 4.5 or later) and
    // not charted; defer (zero 0.8.0) sorts, so the reconnect's reorder does not break it.
    assert_eq!(view.turns[5].strategy_breaks, vec!["original", "minimal"]);
}

#[test]
fn totals_and_series_are_the_reports_figures() {
    let h = Harness::open(TRACE, false);
    let report = h.report();
    let view = SessionView::build(&report, &h.app.shown);
    let original = &report.strategies[0];
    assert_eq!(original.id, "original");
    let row = &view.totals[0];
    assert_eq!(
        (row.tokens.as_str(), row.breaks.as_str(), row.cost.as_str()),
        ("14,876", "1", "8,449")
    );
    assert_eq!(original.total_tokens, 14_876);
    for (row, s) in view.totals.iter().zip(&report.strategies) {
        assert_eq!(row.id, s.id);
        assert_eq!(row.tokens, toolprism::text::thousands(s.total_tokens));
        assert_eq!(row.breaks, s.breaks.to_string());
        assert_eq!(
            row.uncached,
            toolprism::text::thousands(s.cost_uncached.round() as usize)
        );
        // One rule: the difference whenever the figures differ, `n/a` marking status.
        let pct = (s.cost - original.cost) * 100.0 / original.cost;
        let expected = match (s.applied(), pct.abs() >= 0.05) {
            (true, _) => format!("{pct:+.1}%"),
            (false, true) => format!("{pct:+.1}% n/a"),
            (false, false) => "n/a".to_owned(),
        };
        assert_eq!(row.vs_original, expected, "{}", s.id);
    }
    // `code` has nothing to act on in a Claude Code trace: marked n/a, and what it sends (no
    // tools) is shown, not hidden.
    let code = view.totals.iter().find(|r| r.id == "code").unwrap();
    assert!(code.vs_original.ends_with("% n/a"), "{}", code.vs_original);
    // Each series point is the strategy's tokens at that turn.
    for series in &view.series {
        let s = report
            .strategies
            .iter()
            .find(|s| s.id == series.id)
            .unwrap();
        let expected: Vec<(f64, f64)> = s
            .per_turn
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.total_tokens.map(|n| (i as f64, n as f64)))
            .collect();
        assert_eq!(series.points, expected);
    }
    assert_eq!(view.max_tokens, 1_967);
}

#[test]
fn the_chart_starts_on_original_and_the_two_cheapest_that_send_something() {
    let h = Harness::open(TRACE, false);
    let report = h.report();
    let shown = default_shown(&report);
    let ids: Vec<&str> = report
        .strategies
        .iter()
        .zip(&shown)
        .filter(|(_, on)| **on)
        .map(|(s, _)| s.id)
        .collect();
    // minimal and defer (its MCP tools behind tool_search) are the two cheapest: search is
    // refused on this trace's Claude Sonnet 4.
    assert_eq!(ids, vec!["original", "minimal", "defer"]);
}

#[test]
fn the_detail_names_every_changed_tool_and_the_first_changed_byte() {
    let h = Harness::open(TRACE, false);
    let report = h.report();
    let lines: Vec<String> = turn_detail(&report, 5, &h.app.shown)
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert_eq!(
        lines[..7],
        [
            "Turn 6 · line 8 · thread t2 · 2025-06-01 12:31:16 UTC · anthropic-messages",
            "11 tools · 8,656 bytes · 1,967 tokens",
            "▲ break: 2,209 lost, cost 3,032 against 492 held (+2,540, $0.04)",
            "Against turn 5, the previous turn of its thread:",
            "~ changed 2: mcp__github__add_issue_comment (cache_control), mcp__github__get_issue (cache_control)",
            "↕ the tools sent both times come in another order",
            "first changed byte 6,410, in mcp__github__list_issues",
        ]
    );
    assert!(
        lines[7].starts_with("observed cache: break (points at tools) · read 0 · write 12,590")
    );
}

// ---- journeys ------------------------------------------------------------------------------

#[test]
fn enter_opens_the_turn_in_the_inspector_and_esc_comes_back() {
    let mut h = Harness::open(TRACE, false);
    h.keys("jjjjj<enter>");
    assert_eq!(h.app.screen, Screen::Single);
    let single = h.app.single.as_ref().expect("the inspector is open");
    assert_eq!(single.tab, Tab::Matrix);
    assert_eq!(single.ctx.capture.tools().len(), 11);
    assert_eq!(
        single.ctx.path,
        "samples/traces/claude-code-mcp-reconnect.jsonl turn 6 (line 8)"
    );
    let screen = h.screen(120, 35);
    assert!(screen.contains("turn 6 (line 8)"), "{screen}");
    // Inside, Esc goes back through the inspector's own screens first.
    h.keys("o<esc>");
    assert_eq!(h.app.screen, Screen::Single);
    h.keys("<esc>");
    assert_eq!(h.app.screen, Screen::Timeline);
    assert!(h.app.single.is_none());
    assert_eq!(h.app.turns.selected, 5, "the turn stays selected");
    // The same turn again comes from the last load, without reading the trace.
    h.keys("<enter>");
    assert!(h.app.effects.is_empty());
    assert_eq!(h.app.screen, Screen::Single);
    h.keys("q");
    assert!(h.app.quit);
}

#[test]
fn the_turn_diff_matches_the_reports_facts() {
    let mut h = Harness::open(TRACE, false);
    h.keys("jjjjjd");
    assert_eq!(h.app.screen, Screen::Diff);
    let diff = h.app.diff.as_ref().expect("a diff");
    let report = h.report();
    let facts = &report.turns[5];
    assert_eq!(diff.previous, facts.previous_turn);
    let changed: Vec<&str> = diff.tools.iter().map(|t| t.name.as_str()).collect();
    let expected: Vec<&str> = facts.changed.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(changed, expected);
    assert_eq!(diff.order_changed, facts.order_changed);
    assert_eq!(diff.unchanged, 9);
    h.keys("<esc>");
    assert_eq!(h.app.screen, Screen::Timeline);
    // The first turn of a thread has nothing to compare with, and says so.
    h.keys("gjjjd");
    let screen = h.screen(120, 35);
    assert!(
        screen.contains("Turn 4 is the first turn of its thread"),
        "{screen}"
    );
}

#[test]
fn a_compaction_stub_says_why_it_cannot_open() {
    let mut h = Harness::open("samples/traces/cctrace-compaction.jsonl", false);
    h.keys("j<enter>");
    assert_eq!(h.app.screen, Screen::Timeline);
    assert!(h.app.effects.is_empty());
    let (message, error) = h.app.status.clone().expect("a message");
    assert!(error);
    assert_eq!(
        message,
        "turn 2 is a compaction stub: the trace kept no request, so its tools are unknown"
    );
    h.keys("d");
    assert_eq!(h.app.screen, Screen::Timeline);
}

#[test]
fn a_bad_line_is_one_line_in_the_view_and_skip_bad_goes_on() {
    let mut h = Harness::open("tests/fixtures/session-bad-line.jsonl", false);
    assert_eq!(h.report().turns.len(), 2, "the turns before the bad line");
    assert_eq!(
        h.app.error.as_deref(),
        Some(
            "tests/fixtures/session-bad-line.jsonl: line 3: not JSON (expected ident at column 2)"
        )
    );
    let screen = h.screen(120, 35);
    let status = screen.lines().nth(33).unwrap();
    assert!(
        status.starts_with(" stopped: tests/fixtures/session-bad-line.jsonl: line 3: not JSON"),
        "{status}"
    );
    let h = Harness::open("tests/fixtures/session-bad-line.jsonl", true);
    assert_eq!(h.report().turns.len(), 3);
    assert_eq!(h.report().trace.skipped, 1);
    assert_eq!(h.app.error, None);
}

#[test]
fn space_charts_the_selected_strategy_and_n_jumps_to_breaks() {
    let mut h = Harness::open(TRACE, false);
    h.keys("n");
    assert_eq!(
        h.app.turns.selected, 5,
        "turn 6 carries the only break mark"
    );
    h.keys("n");
    assert_eq!(h.app.turns.selected, 5);
    assert_eq!(
        h.app.status.as_ref().map(|s| s.0.as_str()),
        Some("no break mark after turn 6")
    );
    h.keys("<tab>");
    assert_eq!(h.app.focus, Focus::Strategies);
    // `direct` (the fifth) is not charted; Space charts it.
    h.keys("jjjj<space>");
    let direct = h
        .report()
        .strategies
        .iter()
        .position(|s| s.id == "direct")
        .unwrap();
    assert_eq!(h.app.strategies.selected, direct);
    assert!(h.app.shown[direct]);
    let view = h.app.view().unwrap();
    assert!(view.series.iter().any(|s| s.id == "direct"));
    h.keys("<space>");
    assert!(!h.app.shown[direct]);
    h.keys("<esc>");
    assert_eq!(h.app.focus, Focus::Turns);
}

#[test]
fn help_lists_the_session_keys_first() {
    let mut h = Harness::open(TRACE, false);
    h.keys("?");
    let screen = h.screen(120, 35);
    assert!(
        screen.contains("Session view (a trace) (this view)"),
        "{screen}"
    );
    assert!(screen.contains("the turn's tools against the previous turn of its thread"));
    h.keys("<esc>");
    assert!(h.app.help.is_none());
    // The footer names the keys that work here.
    let screen = h.screen(200, 50);
    let footer = screen.lines().last().unwrap();
    assert_eq!(
        footer.trim_end(),
        " j ↓ move  Enter open  d diff  n break  Tab focus  Space chart  ? help  q quit"
    );
}

#[test]
fn trace_text_never_reaches_the_terminal_raw() {
    let mut h = Harness::open("tests/fixtures/session-hostile.jsonl", false);
    h.keys("j");
    let mut screens = vec![h.screen(200, 50)];
    h.keys("d");
    screens.push(h.screen(120, 35));
    for screen in &screens {
        assert!(
            !screen
                .chars()
                .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
            "a raw control or bidi character on screen:\n{screen}"
        );
    }
    // The renamed tool is shown, its hidden characters as visible tokens, never cut.
    assert!(
        screens[0].contains("+ added 1: evil␛[31m⟨U+202E⟩name"),
        "{}",
        screens[0]
    );
    assert!(
        screens[1].contains("+ evil␛[31m⟨U+202E⟩name (added"),
        "{}",
        screens[1]
    );
}

// ---- `toolprism TRACE` outside a terminal ----------------------------------------------------

/// `toolprism ARGS` with `stdin` (nothing if `None`) on a pipe, whatever its exit.
fn run_with_stdin(args: &[&str], stdin: Option<&str>) -> std::process::Output {
    toolprism()
        .args(args)
        .write_stdin(stdin.unwrap_or(""))
        .output()
        .expect("runs")
}

#[test]
fn into_a_pipe_a_trace_prints_what_toolprism_session_prints() {
    let session = run_with_stdin(&["session", TRACE], None);
    assert!(session.status.success());
    let open = run_with_stdin(&[TRACE], None);
    assert!(open.status.success());
    assert_eq!(
        String::from_utf8_lossy(&open.stdout),
        String::from_utf8_lossy(&session.stdout)
    );
    // Piped in: the same report, the trace named as standard input.
    let piped = run_with_stdin(&[], Some(&std::fs::read_to_string(TRACE).unwrap()));
    assert!(piped.status.success());
    let expected = String::from_utf8_lossy(&session.stdout).replacen(TRACE, "<stdin>", 1);
    assert_eq!(String::from_utf8_lossy(&piped.stdout), expected);
    // A single capture still prints the report table.
    let single = run_with_stdin(&["samples/small.json"], None);
    assert!(
        String::from_utf8_lossy(&single.stdout)
            .starts_with("samples/small.json: anthropic-messages, 8 tools")
    );
}

#[test]
fn a_bad_line_fails_in_one_line_unless_skip_bad() {
    let bad = "tests/fixtures/session-bad-line.jsonl";
    let out = run_with_stdin(&[bad], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolprism: tests/fixtures/session-bad-line.jsonl: line 3: not JSON (expected ident at column 2)\n"
    );
    let piped = run_with_stdin(&[], Some(&std::fs::read_to_string(bad).unwrap()));
    assert_eq!(
        String::from_utf8_lossy(&piped.stderr),
        "toolprism: <stdin>: line 3: not JSON (expected ident at column 2)\n"
    );
    let out = run_with_stdin(&["--skip-bad", bad], None);
    assert!(out.status.success());
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(
        first,
        "tests/fixtures/session-bad-line.jsonl · jsonl · 3 turns · 1 thread · 0 ignored · 1 skipped"
    );
    // A lone line that is not JSON stays a broken capture, not an empty trace.
    let broken = run_with_stdin(&[], Some("{\"tools\": ["));
    assert_eq!(broken.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&broken.stderr),
        "toolprism: <stdin>: invalid JSON at line 1, column 11: EOF while parsing a list\n"
    );
}

#[test]
fn the_wheel_moves_through_the_turns() {
    use crossterm::event::{MouseEvent, MouseEventKind};
    let mut h = Harness::open(TRACE, false);
    let wheel = |kind| {
        SessionInput::Mouse(MouseEvent {
            kind,
            column: 10,
            row: 20,
            modifiers: KeyModifiers::NONE,
        })
    };
    session_update(&mut h.app, wheel(MouseEventKind::ScrollDown));
    session_update(&mut h.app, wheel(MouseEventKind::ScrollDown));
    assert_eq!(h.app.turns.selected, 2);
    session_update(&mut h.app, wheel(MouseEventKind::ScrollUp));
    assert_eq!(h.app.turns.selected, 1);
}

#[test]
fn the_chart_numbers_its_turns_and_never_joins_two_threads() {
    let mut h = Harness::open(TRACE, false);
    let report = h.report();
    let shown = vec![true; report.strategies.len()];
    let view = SessionView::build(&report, &shown);
    // One more place on the axis at each change of thread.
    let changes = report
        .turns
        .windows(2)
        .filter(|w| w[0].thread != w[1].thread)
        .count();
    assert!(changes > 0, "the sample has several threads");
    assert_eq!(
        view.x_max() as usize,
        report.turns.len() - 1 + changes,
        "{:?}",
        view.x
    );
    for series in &view.series {
        for run in view.runs(series) {
            // A run is consecutive places of one thread: no gap inside it.
            for pair in run.windows(2) {
                assert_eq!(pair[1].0 - pair[0].0, 1.0, "{}: {run:?}", series.id);
            }
            let threads: std::collections::BTreeSet<&str> = run
                .iter()
                .map(|p| {
                    let i = view.x.iter().position(|x| *x == p.0).unwrap();
                    view.turns[i].thread.as_str()
                })
                .collect();
            assert_eq!(threads.len(), 1, "{}: {run:?}", series.id);
        }
    }
    // The axis under the chart names the first and the last turn.
    let screen = h.screen(120, 35);
    let last = report.turns.len().to_string();
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("│1 ") && l.contains(&format!(" {last}│"))),
        "{screen}"
    );
}

// ---- nothing cut without a mark ----------------------------------------------------------

#[test]
fn nothing_is_cut_without_a_mark_in_the_session_view_at_four_sizes() {
    let screens = [
        ("session", ""),
        ("first_turn_diff", "d"),
        ("turn_diff", "jjjjjd"),
        ("help", "?"),
        ("help_end", "?G"),
        ("second_pane", "<tab>"),
        ("detail_scrolled", "jjjjj<tab><tab>jjj"),
    ];
    let mut found = Vec::new();
    for (name, script) in screens {
        let mut h = Harness::open(TRACE, false);
        h.keys(script);
        for (w, hh) in [(200, 50), (120, 35), (80, 24), (60, 20)] {
            let narrow = h.screen(w, hh);
            let wide = h.screen(400, hh);
            for (row, word) in crate::support::cuts::unmarked_cuts(&narrow, &wide) {
                found.push(format!("{name} {w}x{hh} row {row}: `{word}`"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "cut without a mark:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_chart_keeps_its_legend_when_short_and_gives_each_series_its_own_glyph() {
    let mut h = Harness::open(TRACE, false);
    let small = h.screen(60, 20);
    let title = small.lines().nth(1).unwrap();
    assert!(
        title.contains("⣀ original") && title.contains("▲ cache"),
        "{small}"
    );
    // Chart every strategy: no two series share a glyph while there are five or fewer.
    let big = h.screen(200, 50);
    let legend = big
        .lines()
        .find(|l| l.contains("⣀ original"))
        .expect("a legend row");
    let glyphs: Vec<&str> = legend
        .split("  ")
        .filter_map(|part| part.trim().trim_start_matches('│').trim().split(' ').next())
        .filter(|g| g.chars().count() == 1)
        .collect();
    let mut unique = glyphs.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), glyphs.len(), "{legend}");
    assert!(glyphs.len() >= 2, "{legend}");
}

// ---- the live view -------------------------------------------------------------------------

/// The live view on a growing trace, its pictures made by the real following thread.
struct LiveHarness {
    app: SessionApp,
    file: std::fs::File,
    pictures: std::sync::mpsc::Receiver<worker::SessionMsg>,
    _stop: std::sync::mpsc::Sender<()>,
    _dir: tempfile::TempDir,
}

impl LiveHarness {
    fn open(calls: Option<(usize, usize)>) -> LiveHarness {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        let file = std::fs::File::create(&path).unwrap();
        let follower = toolprism::trace::follow::Follower::open(&path).unwrap();
        let app = SessionApp::new(
            "session.jsonl".to_owned(),
            path,
            "claude-trace",
            true,
            Settings::default(),
            Encoding::O200kBase,
            false,
        )
        .live(toolprism::tui::session::app::Live::new(
            calls,
            vec!["export ANTHROPIC_BASE_URL=http://127.0.0.1:8080".to_owned()],
        ));
        let (tx, pictures) = std::sync::mpsc::channel();
        let (stop, stop_rx) = std::sync::mpsc::channel();
        worker::spawn_follow(
            worker::LiveJob {
                follower,
                format: "claude-trace",
                strategies: toolprism::Strategy::ALL.to_vec(),
                settings: Settings::default(),
                encoding: Encoding::O200kBase,
            },
            stop_rx,
            tx,
        );
        let mut h = LiveHarness {
            app,
            file,
            pictures,
            _stop: stop,
            _dir: dir,
        };
        h.wait_turns(0);
        h
    }

    /// Append lines of the sample trace, as a recorder writes them.
    fn append(&mut self, lines: &[&str]) {
        use std::io::Write;
        for line in lines {
            writeln!(self.file, "{line}").unwrap();
        }
        self.file.flush().unwrap();
    }

    /// Feed the pictures until one holds `turns` turns.
    fn wait_turns(&mut self, turns: usize) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let msg = self.pictures.recv_timeout(left).expect("a picture");
            let got = match &msg {
                worker::SessionMsg::Live { report, .. } => Some(report.turns.len()),
                _ => None,
            };
            session_update(&mut self.app, SessionInput::Worker(msg));
            if got == Some(turns) {
                return;
            }
        }
    }

    fn keys(&mut self, keys: &str) {
        for c in keys.chars() {
            session_update(
                &mut self.app,
                SessionInput::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
            );
        }
    }

    fn draw(&mut self, w: u16, h: u16) -> Terminal<TestBackend> {
        session_update(&mut self.app, SessionInput::Resize(w, h));
        let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
        terminal
            .draw(|f| toolprism::tui::session::draw::render(&self.app, f))
            .expect("draws");
        terminal
    }

    fn screen(&mut self, w: u16, h: u16) -> String {
        let terminal = self.draw(w, h);
        let buffer = terminal.backend().buffer();
        let mut out = String::new();
        for y in 0..h {
            for x in 0..w {
                out.push_str(buffer[(x, y)].symbol());
            }
            out.push('\n');
        }
        out
    }
}

fn sample_lines() -> Vec<String> {
    std::fs::read_to_string(TRACE)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Turns appear as their lines are completed, each with its cache verdict; the selection
/// follows the newest turn unless the user moved off it; the header says it is live and
/// counts the recorder's calls; before the first call it shows the lines to paste.
#[test]
fn the_live_view_shows_turns_as_calls_complete() {
    let lines = sample_lines();
    let line = |i: usize| lines[i].as_str();
    let mut h = LiveHarness::open(Some((0, 0)));
    let empty = h.screen(120, 35);
    assert!(
        empty.contains("● live · recording · 0 calls · 0 in flight"),
        "{empty}"
    );
    assert!(empty.contains("Waiting for the first call"), "{empty}");
    assert!(
        empty.contains("export ANTHROPIC_BASE_URL=http://127.0.0.1:8080"),
        "{empty}"
    );
    session_update(
        &mut h.app,
        SessionInput::Worker(worker::SessionMsg::Calls {
            recorded: 0,
            in_flight: 1,
        }),
    );
    assert!(h.screen(120, 35).contains("0 calls · 1 in flight"));
    // Lines 1 to 3 of the sample: turn 1, a profile call (ignored), turn 2.
    h.append(&[line(0), line(1), line(2)]);
    h.wait_turns(2);
    let two = h.screen(120, 35);
    assert!(two.contains("Turns · 2 turns"), "{two}");
    assert!(two.contains("turn 2 of 2"), "the newest is selected: {two}");
    h.keys("k");
    assert!(h.screen(120, 35).contains("turn 1 of 2"));
    // Up to turn 6, where the MCP server reconnected: the selection stays where the user put
    // it, and the break is on its row.
    h.append(&lines[3..8].iter().map(String::as_str).collect::<Vec<_>>());
    h.wait_turns(6);
    let six = h.screen(120, 35);
    assert!(six.contains("turn 1 of 6"), "{six}");
    assert!(six.contains("break (tools)"), "{six}");
    assert!(six.contains("~2 order"), "{six}");
    // The picture equals the report of the same lines read at once.
    let report = h.app.report.clone().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.jsonl");
    std::fs::write(&whole, lines[..8].join("\n") + "\n").unwrap();
    let reader = trace::open(whole.to_str().unwrap(), &TraceOptions { skip_bad: true }).unwrap();
    let mut msgs = Vec::new();
    worker::analyse(
        SessionJob {
            reader,
            name: "whole".to_owned(),
            strategies: toolprism::Strategy::ALL.to_vec(),
            settings: Settings::default(),
            encoding: Encoding::O200kBase,
        },
        &mut |m| msgs.push(m),
    );
    let Some(worker::SessionMsg::Analysed { report: whole, .. }) = msgs.pop() else {
        panic!("no report");
    };
    assert_eq!(report.turns, whole.turns);
    assert_eq!(report.strategies, whole.strategies);
    // Back on the newest turn, it follows again.
    h.keys("G");
    h.append(&[line(8)]);
    h.wait_turns(7);
    assert!(h.screen(120, 35).contains("turn 7 of 7"));
}

/// The README's picture of the live view: `record` after six calls, one under way, on the
/// turn where the cache broke.
#[test]
fn the_live_view_picture() {
    let lines = sample_lines();
    let mut h = LiveHarness::open(Some((0, 0)));
    h.append(&lines[..8].iter().map(String::as_str).collect::<Vec<_>>());
    h.wait_turns(6);
    session_update(
        &mut h.app,
        SessionInput::Worker(worker::SessionMsg::Calls {
            recorded: 8,
            in_flight: 1,
        }),
    );
    let terminal = h.draw(120, 30);
    insta::assert_snapshot!("live_120x30", terminal.backend());
    // Nothing cut without a mark at any size, waiting or not.
    let mut found = Vec::new();
    let mut empty = LiveHarness::open(None);
    for (w, hh) in [(200, 50), (120, 35), (80, 24), (60, 20)] {
        for (name, h) in [("live", &mut h), ("waiting", &mut empty)] {
            let narrow = h.screen(w, hh);
            let wide = h.screen(400, hh);
            for (row, word) in crate::support::cuts::unmarked_cuts(&narrow, &wide) {
                found.push(format!("{name} {w}x{hh} row {row}: `{word}`"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "cut without a mark:\n{}",
        found.join("\n")
    );
}

/// `d` on the turn where the tools were reordered names the tools that moved, with their
/// places before and now.
#[test]
fn the_turn_diff_shows_which_tools_moved() {
    let mut h = Harness::open(TRACE, false);
    h.keys("jjjjjd");
    let diff = h.app.diff.clone().expect("a diff");
    assert!(diff.order_changed);
    assert!(!diff.moved.is_empty());
    let mut all = String::new();
    for _ in 0..10 {
        all.push_str(&h.screen(120, 35));
        h.keys("jjjjjjjjjjjjjjjjjjjj");
    }
    assert!(all.contains("↕ moved"), "{all}");
    for m in &diff.moved {
        let row = format!("↕ {} · place {} → {}", m.name, m.before, m.now);
        assert!(all.contains(&row), "{row} not shown:\n{all}");
    }
}

/// The selected turn's pane keeps its heading whatever its height, and what does not fit
/// scrolls (Tab to it, then the movement keys) down to its last line.
#[test]
fn the_turn_pane_keeps_its_heading_and_scrolls() {
    let mut h = Harness::open(TRACE, false);
    h.keys("jjjjj");
    let screen = h.screen(120, 35);
    assert!(screen.contains("Turn 6 · line 8"), "{screen}");
    assert!(screen.contains("more lines · Tab focuses"), "{screen}");
    h.keys("<tab><tab>");
    assert_eq!(h.app.focus, Focus::Detail);
    let mut last = String::new();
    for _ in 0..40 {
        h.keys("j");
        last = h.screen(120, 35);
        assert!(last.contains("Turn 6 · line 8"), "{last}");
    }
    assert!(!last.contains("more lines"), "scrolled to the end: {last}");
    // Another turn starts at its top.
    h.keys("<esc>k");
    assert_eq!(h.app.detail_scroll, 0);
}
