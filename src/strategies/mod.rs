//! The five hosts' rules, one module each (vtcode, a3s code, lean-ctx, zero, Codex; vtcode's
//! tool search has its own, [`search`]), the provider's mid-conversation tool changes
//! ([`append`]), and the registry of their settings.
//! Every function here is pure: it reads the capture and the settings and returns a [`Draft`].

pub mod a3s;
pub mod append;
pub mod codex;
pub mod inline;
pub mod leanctx;
pub mod registry;
pub mod search;
pub mod vtcode;
pub mod zero;

use crate::capture::Capture;
use crate::projection::{Draft, Note};
use crate::settings::Settings;
use crate::strategy::Strategy;

/// Run one strategy's rules.
pub fn draft(capture: &Capture, strategy: Strategy, settings: &Settings) -> Draft {
    let mut draft = rules(capture, strategy, settings);
    // zero's module names its release itself: sessions call it without this function.
    if !matches!(strategy, Strategy::Defer | Strategy::DeferCatalog)
        && let Some(note) = older_release_note(strategy, settings)
    {
        draft.notes.push(note);
    }
    draft
}

/// The note a strategy carries when a setting selects an older release of its origin than the
/// current one.
pub fn older_release_note(strategy: Strategy, settings: &Settings) -> Option<Note> {
    let (key, current) = strategy.newer_release(settings)?;
    let release = strategy.release(settings)?;
    Some(Note::info(format!(
        "reproduces {release}, an older release ({key}={}); the current release is {current}",
        settings.get(key).unwrap_or_default()
    )))
}

fn rules(capture: &Capture, strategy: Strategy, settings: &Settings) -> Draft {
    match strategy {
        Strategy::Original => Draft::unchanged(capture),
        Strategy::Full => vtcode::project(capture, vtcode::Mode::Full, settings),
        Strategy::Progressive => vtcode::project(capture, vtcode::Mode::Progressive, settings),
        Strategy::Minimal => vtcode::project(capture, vtcode::Mode::Minimal, settings),
        Strategy::Direct => a3s::project(capture, a3s::Profile::Direct, settings),
        Strategy::Adaptive => a3s::project(capture, a3s::Profile::Adaptive, settings),
        Strategy::Code => a3s::project(capture, a3s::Profile::Code, settings),
        Strategy::Disabled => a3s::project(capture, a3s::Profile::Disabled, settings),
        Strategy::Shorten => leanctx::project(capture, settings),
        Strategy::Defer => zero::project(capture, zero::Form::Reminder, settings),
        Strategy::DeferCatalog => zero::project(capture, zero::Form::Catalog, settings),
        Strategy::Search => search::project(capture, settings),
        Strategy::Codex => codex::project(capture, settings),
        Strategy::Append => append::project(capture, settings),
    }
}
