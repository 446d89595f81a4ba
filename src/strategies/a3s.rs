//! a3s code's presentation profiles: `direct`, `adaptive`, `code`, `disabled` (section 2).

use crate::capture::Capture;
use crate::projection::Draft;
use crate::settings::Settings;

/// An a3s presentation profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Every tool, sorted by name.
    Direct,
    /// Tools selected by the conversation's recent text.
    Adaptive,
    /// One `program` gateway.
    Code,
    /// No tools.
    Disabled,
}

/// Project a capture under a presentation profile.
pub fn project(capture: &Capture, profile: Profile, settings: &Settings) -> Draft {
    let _ = (profile, settings);
    let mut draft = Draft::unchanged(capture);
    draft
        .notes
        .push("PLACEHOLDER: a3s profiles not implemented yet".into());
    draft
}
