//! The integration tests: one binary, linked once after a change of the library, with one
//! module per area (each a file beside this one) and what they share in `support/`.
//!
//! Run one area with `cargo test --test tests cli::` (or `tui::`, `robust_export::`, ...).
//! One suite is a binary of its own: `robust_session.rs` installs a counting global allocator,
//! and the session analysis allocates on rayon's threads too, so only a process that runs
//! nothing else measures its heap exactly. (A test that needs a process of its own for a
//! moment, like `tui_nocolor`, runs this binary again for itself.)

mod support;

// Reading input: captures, traces, the measure and its tokenizer.
mod capture;
mod mcp_in_traces;
mod measure;
mod record_kinds;
mod recordings;
mod recordings_more;
mod tokenizer;
mod trace;

// The strategies, each against its upstream's rules and vectors.
mod a3s;
mod append;
mod codex;
mod leanctx;
mod vtcode;
mod zero;

// What the engine builds from a capture: reports, matrices, sessions, and their invariants.
mod inline_projection;
mod matrix;
mod openrouter_search;
mod original_bytes;
mod pick_turn;
mod properties;
mod regressions;
mod report_json;
mod session;
mod session_calibration;
mod session_diagnosis;
mod session_verdicts;
mod settings_identity;
mod tool_change_evidence;
mod tool_changes;
mod tool_changes_today;
mod transcript;

// The command line.
mod cli;
mod cli_manners;
mod cli_turn;
mod fits;
mod mcp;
mod newcomer;
mod record;
mod record_safety;

// The interactive view: drawn into a test backend, then the real binary in tmux.
mod refusals;
mod tui;
mod tui_modules;
mod tui_nocolor;
mod tui_session;
mod tui_session_tmux;
mod tui_tmux;

// Robustness: hostile input, text, exports and terminals.
mod robust_bounds;
mod robust_export;
mod robust_hangup;
mod robust_input;
mod robust_one_writer;
mod robust_terminal;
mod robust_text;

/// With `autotests = false` a file in `tests/` runs only if this binary names it as a module
/// (or `Cargo.toml` names it as a test binary): a file nobody declared would never run.
#[test]
fn every_test_file_is_declared() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = |path: &str| std::fs::read_to_string(root.join(path)).expect(path);
    let this = text("tests/tests.rs");
    let manifest = text("Cargo.toml");
    let declared: Vec<&str> = this
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).expect("tests/") {
        let path = entry.expect("an entry of tests/").path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 name");
        let binary = format!("path = \"tests/{stem}.rs\"");
        if !declared.contains(&stem) && !manifest.contains(&binary) {
            missing.push(stem.to_owned());
        }
    }
    assert!(
        missing.is_empty(),
        "never compiled, so never run: tests/{missing:?}.rs"
    );
    assert!(declared.contains(&"support"));
}
