//! The four origins' rules, one module each. Every function here is pure: it reads the capture
//! and the settings and returns a [`Draft`].

pub mod a3s;
pub mod codex;
pub mod leanctx;
pub mod vtcode;
pub mod zero;

use crate::capture::Capture;
use crate::projection::Draft;
use crate::settings::Settings;
use crate::strategy::Strategy;

/// Run one strategy's rules.
pub fn draft(capture: &Capture, strategy: Strategy, settings: &Settings) -> Draft {
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
        Strategy::Codex => codex::project(capture, settings),
    }
}
