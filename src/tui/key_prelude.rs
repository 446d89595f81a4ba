//! The keys every view answers alike, before its own key table is asked: a key release is
//! ignored, any key clears the status line, Ctrl-C ends the program as an interrupt and Ctrl-Z
//! suspends it (in every context, dialogs included); a key the table does not bind types its
//! character into a text field. The inspector ([`super::app::App`]) and the session view
//! ([`super::session_app::SessionApp`]) both go through [`on_key`].

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::keys::{self, Action, Context};

/// A view that takes keys.
pub(crate) trait KeyTarget {
    /// The context its keys are looked up in now.
    fn context(&self) -> Context;
    /// Clear the status line (a new key makes the last message stale).
    fn clear_status(&mut self);
    /// End the program as Ctrl-C does (exit status 130).
    fn interrupt(&mut self);
    /// Ask the event loop to suspend the program.
    fn suspend(&mut self);
    /// Do what a bound key asks (`index`: the strategy of a strategy key).
    fn act(&mut self, action: Action, index: Option<usize>);
    /// Type a character into the text field being edited.
    fn type_char(&mut self, c: char);
}

/// Apply one key to `view`: the shared keys first, then its own table.
pub(crate) fn on_key(view: &mut impl KeyTarget, key: KeyEvent) {
    if key.kind == KeyEventKind::Release {
        return;
    }
    view.clear_status();
    if keys::is_interrupt(&key) {
        view.interrupt();
        return;
    }
    if keys::is_suspend(&key) {
        view.suspend();
        return;
    }
    let context = view.context();
    match keys::lookup(context, &key) {
        Some((action, index)) => view.act(action, index),
        None if context.is_text_input() => {
            if let KeyCode::Char(c) = key.code
                && !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            {
                view.type_char(c);
            }
        }
        None => {}
    }
}
