//! zero's deferred loading: `defer` and `defer-catalog` (section 4).

use serde_json::Value;

use crate::capture::{Capture, Shape};
use crate::projection::Draft;
use crate::settings::Settings;

/// Where zero lists the deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A `<system-reminder>` message (`defer`).
    Reminder,
    /// `tool_search`'s own description (`defer-catalog`).
    Catalog,
}

/// Project a capture under a deferred-loading form.
pub fn project(capture: &Capture, form: Form, settings: &Settings) -> Draft {
    let _ = (form, settings);
    let mut draft = Draft::unchanged(capture);
    draft
        .notes
        .push("PLACEHOLDER: defer not implemented yet".into());
    draft
}

/// Put the reminder into a request body of the given shape (not called for MCP lists).
pub fn place_reminder(shape: Shape, body: &mut Value, reminder: &str) {
    let _ = (shape, body, reminder);
}
