//! vtcode's documentation modes: `full`, `progressive`, `minimal` (STRATEGIES.md section 1).

use crate::capture::Capture;
use crate::projection::Draft;
use crate::settings::Settings;

/// A vtcode documentation mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Descriptions whitespace-normalized, MCP ones capped.
    Full,
    /// Leading sentences within a budget.
    Progressive,
    /// The first sentence, short.
    Minimal,
}

/// Project a capture under a documentation mode.
pub fn project(capture: &Capture, mode: Mode, settings: &Settings) -> Draft {
    let _ = (mode, settings);
    let mut draft = Draft::unchanged(capture);
    draft
        .notes
        .push("PLACEHOLDER: vtcode modes not implemented yet".into());
    draft
}
