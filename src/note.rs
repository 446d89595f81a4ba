//! The notes that explain a projection or a capture, and how much each matters: below the
//! capture and the projection model, which both carry them.

use std::fmt;

use serde::Serialize;

/// How much a note matters. Ordered: errors sort first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The provider would reject the request, or the host refuses the list.
    Error,
    /// Something costs the user: the cached prompt prefix breaks, the order changed.
    Warning,
    /// An explanation: why the projection looks the way it does.
    Info,
}

impl Level {
    /// The word in reports: `error`, `warning`, `info`.
    pub fn word(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
        }
    }
}

/// One explanation or lint attached to a projection.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Note {
    /// How much it matters.
    pub level: Level,
    /// What it says (may quote capture text: sanitize before it reaches a terminal).
    pub text: String,
}

impl Note {
    /// A note at `level`.
    pub fn new(level: Level, text: impl Into<String>) -> Note {
        Note {
            level,
            text: text.into(),
        }
    }

    /// The request would be rejected, or the host refuses.
    pub fn error(text: impl Into<String>) -> Note {
        Note::new(Level::Error, text)
    }

    /// A cost the user should know of (cache prefix broken, order changed).
    pub fn warning(text: impl Into<String>) -> Note {
        Note::new(Level::Warning, text)
    }

    /// An explanation.
    pub fn info(text: impl Into<String>) -> Note {
        Note::new(Level::Info, text)
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
