//! The keys every view answers alike, before its own key table is asked: a key release is
//! ignored, any key clears the status line, Ctrl-C ends the program as an interrupt and Ctrl-Z
//! suspends it (in every context, dialogs included); a key the table does not bind types its
//! character into a text field. The inspector (`App`) and the session view
//! (`SessionApp`) both go through [`on_key`].

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
    /// Type a whole pasted text into the text field being edited, as one edit (a view whose
    /// field does work on each change, as the tool search, does it once).
    fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.type_char(c);
        }
    }
}

/// Characters of a paste kept: more is no search and no path (a path is at most 4,096 bytes).
pub(crate) const MAX_PASTE: usize = 4096;

/// Apply a bracketed paste to `view`: one edit of the text field being edited (its line breaks
/// and other control characters as spaces, at most [`MAX_PASTE`] characters), nothing
/// elsewhere; never a key at a time, so a pasted `q` quits nothing.
pub(crate) fn on_paste(view: &mut impl KeyTarget, text: &str) {
    view.clear_status();
    if !view.context().is_text_input() {
        return;
    }
    let clean: String = text
        .chars()
        .take(MAX_PASTE)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    view.type_text(&clean);
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
