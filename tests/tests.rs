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
mod measure;
mod tokenizer;
mod trace;

// The strategies, each against its upstream's rules and vectors.
mod a3s;
mod codex;
mod leanctx;
mod vtcode;
mod zero;

// What the engine builds from a capture: reports, matrices, sessions, and their invariants.
mod matrix;
mod pick_turn;
mod properties;
mod regressions;
mod report_json;
mod session;
mod session_verdicts;

// The command line.
mod cli;
mod cli_manners;
mod cli_turn;

// The interactive view: drawn into a test backend, then the real binary in tmux.
mod refusals;
mod tui;
mod tui_nocolor;
mod tui_session;
mod tui_session_tmux;
mod tui_tmux;

// Robustness: hostile input, text, exports and terminals.
mod robust_export;
mod robust_input;
mod robust_terminal;
mod robust_text;
