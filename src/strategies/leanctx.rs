//! lean-ctx's expand-pointer shortening: `shorten` (section 3).

use crate::capture::Capture;
use crate::projection::Draft;
use crate::settings::Settings;

/// Whether `name` qualifies as lean-ctx's expand tool: its bare name is exactly `ctx_expand`
/// and the whole name is at most 128 bytes of `[A-Za-z0-9_.:/-]`.
pub fn is_expand_tool_name(name: &str) -> bool {
    let _ = name;
    true
}

/// Project a capture under `shorten`.
pub fn project(capture: &Capture, settings: &Settings) -> Draft {
    let _ = settings;
    let mut draft = Draft::unchanged(capture);
    draft
        .notes
        .push("PLACEHOLDER: shorten not implemented yet".into());
    draft
}
