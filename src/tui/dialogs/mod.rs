//! The dialogs over a screen, each its state, its keys (`act` returns what the app must do)
//! and its drawing: the settings editor, the export form and the help overlay.

pub mod export;
pub mod help;
pub mod settings;
