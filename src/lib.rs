//! toolprism's engine: load a captured LLM API request, project its tool list under each
//! strategy an agent host uses, and measure what every projection costs.
//!
//! The library knows nothing of terminals: the CLI (`src/cli`) and the TUI (`src/tui`) are thin
//! layers over [`Capture`], [`project`] (the [`pipeline`] over the [`projection`] model), and the measuring in [`measure`].

pub mod capture;
pub mod compact;
pub mod descendants;
pub mod diff;
pub mod error;
pub mod export;
#[cfg(test)]
mod layers;
pub mod matrix;
pub mod mcp;
pub mod measure;
pub mod memo;
pub mod note;
pub mod pipeline;
pub mod projection;
#[cfg(feature = "record")]
pub mod record;
pub mod report;
pub mod sanitize;
pub mod session;
pub mod setting_key;
pub mod settings;
pub mod strategies;
pub mod strategy;
pub mod text;
pub mod tool;
pub mod tool_changes;
pub mod trace;
#[cfg(feature = "tui")]
pub mod tui;
pub mod written;

pub use capture::{Capture, Shape};
pub use error::LoadError;
pub use pipeline::project;
pub use projection::{Level, Note, Projection, ProjectionStatus, SharedText, Status, ToolOutcome};
pub use settings::Settings;
pub use strategies::registry::SettingsError;
pub use strategy::Strategy;
