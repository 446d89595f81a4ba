//! Each tool over the session: the turns that sent it, the calls the model made to it (each
//! call counted once, however often the conversation re-sends it), and what it cost
//! (SESSIONS.md section 3, "Tool calls").

use rustc_hash::{FxHashMap, FxHashSet};

use super::ToolUse;
use super::entries::EntryStore;

/// One tool's figures.
#[derive(Debug, Clone, Copy, Default)]
struct ToolCount {
    /// Turns that sent it.
    sent_turns: usize,
    /// Calls the model made to it.
    calls: usize,
    /// Tokens it cost, at its context price.
    tokens: usize,
    /// Calls to it seen on turns that sent it (a call in another thread, whose turns never sent
    /// it, does not make it called).
    called_where_sent: usize,
}

/// Every tool's figures so far.
#[derive(Debug, Default)]
pub(super) struct ToolTally {
    counts: FxHashMap<Box<str>, ToolCount>,
    /// The tools in order of first sight.
    order: Vec<Box<str>>,
    /// Calls already counted (by call id, else name and arguments).
    seen_calls: FxHashSet<u64>,
}

impl ToolTally {
    /// The calls of a request's conversation not seen before, by name.
    pub(super) fn new_calls(&mut self, calls: Vec<(u64, String)>) -> Vec<String> {
        let mut new = Vec::new();
        for (id, name) in calls {
            if self.seen_calls.insert(id) {
                new.push(name);
            }
        }
        new
    }

    /// Count a turn into each tool's figures: sent (once per distinct entry), called, tokens.
    pub(super) fn count(&mut self, entries: &EntryStore, ids: &[u32], calls: &[String]) {
        let mut sent_ids = FxHashSet::default();
        let mut sent_names: FxHashSet<&str> = FxHashSet::default();
        for &id in ids {
            let entry = entries.get(id);
            if entry.name.is_empty() || !sent_ids.insert(id) {
                continue;
            }
            sent_names.insert(&entry.name);
            let tokens = if entry.deferred { 0 } else { entry.tokens };
            match self.counts.get_mut(&entry.name) {
                Some(count) => {
                    count.sent_turns += 1;
                    count.tokens += tokens;
                }
                None => {
                    self.order.push(entry.name.clone());
                    let count = ToolCount {
                        sent_turns: 1,
                        tokens,
                        ..ToolCount::default()
                    };
                    self.counts.insert(entry.name.clone(), count);
                }
            }
        }
        for name in calls {
            let where_sent = usize::from(sent_names.contains(name.as_str()));
            if let Some(count) = self.counts.get_mut(name.as_str()) {
                count.calls += 1;
                count.called_where_sent += where_sent;
            } else {
                self.order.push(name.as_str().into());
                let count = ToolCount {
                    calls: 1,
                    called_where_sent: where_sent,
                    ..ToolCount::default()
                };
                self.counts.insert(name.as_str().into(), count);
            }
        }
    }

    /// Every tool, in order of first sight.
    pub(super) fn report(&self) -> Vec<ToolUse> {
        self.order
            .iter()
            .map(|name| {
                let ToolCount {
                    sent_turns,
                    calls,
                    tokens,
                    called_where_sent,
                } = self.counts[name];
                ToolUse {
                    name: name.to_string(),
                    sent_turns,
                    calls,
                    tokens,
                    never_called: sent_turns > 0 && called_where_sent == 0,
                    server: None,
                }
            })
            .collect()
    }
}
