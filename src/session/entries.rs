//! The entry store: every distinct tool entry a session meets (the captures' and the
//! projections'), stored once as compact JSON and counted once, and every distinct tools array
//! with its tokens. Turns refer to entries by id.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde_json::Value;

use super::compare::Entry;
use super::prompt;
use crate::capture::Shape;
use crate::measure::TokenCounter;
use crate::report;
use crate::tool;

/// Tool lists at least this long are compared and serialized on the thread pool.
const PARALLEL_ENTRIES: usize = 64;

/// A distinct tools array: shape, `tools` key present, entries.
type ArrayKey = (Shape, bool, Arc<[u32]>);

/// Every distinct entry and array of a session.
#[derive(Debug, Default)]
pub(super) struct EntryStore {
    entries: Vec<Entry>,
    /// Each entry's id by its compact JSON.
    ids: FxHashMap<Box<str>, u32>,
    /// The last entry seen under each name, and its id.
    last_by_name: FxHashMap<String, (Value, u32)>,
    /// Distinct tools arrays (shape, `tools` key present, entries) and their token counts.
    arrays: FxHashMap<ArrayKey, (u32, usize)>,
    /// Tokens of each distinct list of entries.
    lists: FxHashMap<Arc<[u32]>, usize>,
}

impl EntryStore {
    /// The entry of an id.
    pub(super) fn get(&self, id: u32) -> &Entry {
        &self.entries[id as usize]
    }

    /// Every entry, by id.
    pub(super) fn all(&self) -> &[Entry] {
        &self.entries
    }

    /// The ids of a request's tool entries. An entry equal, key order included, to the last
    /// entry seen under its name is that entry: most turns re-send the same list, and comparing
    /// values costs far less than serializing them.
    pub(super) fn capture_entries(&mut self, counter: &TokenCounter, tools: &[Value]) -> Vec<u32> {
        let known_of = |entry: &Value| {
            let (value, id) = self.last_by_name.get(tool::name(entry)?)?;
            same_value(value, entry).then_some(*id)
        };
        // A short list is not worth waking the thread pool for, on every turn of a trace of
        // millions of small requests.
        let parallel = tools.len() >= PARALLEL_ENTRIES;
        let known: Vec<Option<u32>> = map_entries(tools, parallel, known_of);
        let unknown: Vec<&Value> = tools
            .iter()
            .zip(&known)
            .filter(|(_, known)| known.is_none())
            .map(|(entry, _)| entry)
            .collect();
        let fresh: Vec<String> = map_entries(&unknown, parallel, |entry| tool::compact(entry));
        let mut fresh_ids = self.intern_all(counter, fresh).into_iter();
        let mut ids = Vec::with_capacity(tools.len());
        for (entry, known) in tools.iter().zip(known) {
            let id = match known {
                Some(id) => id,
                None => {
                    let id = fresh_ids.next().unwrap_or_default();
                    if let Some(name) = tool::name(entry) {
                        self.last_by_name
                            .insert(name.to_owned(), (entry.clone(), id));
                    }
                    id
                }
            };
            ids.push(id);
        }
        ids
    }

    /// Store entries (compact JSON) once each; count the new ones in one batch.
    pub(super) fn intern_all(&mut self, counter: &TokenCounter, jsons: Vec<String>) -> Vec<u32> {
        let mut ids = Vec::with_capacity(jsons.len());
        let first_new = self.entries.len();
        for json in jsons {
            if let Some(&id) = self.ids.get(json.as_str()) {
                ids.push(id);
                continue;
            }
            let id = self.entries.len() as u32;
            let json: Box<str> = json.into();
            let value = serde_json::from_str::<Value>(&json).ok();
            let name = value
                .as_ref()
                .and_then(|v| tool::name(v).map(Box::<str>::from))
                .unwrap_or_default();
            let (content, mark, deferred) = match &value {
                Some(v) => (
                    prompt::entry_hash(v),
                    prompt::mark_of(v),
                    crate::pipeline::provider_deferred(v),
                ),
                None => (prompt::text_hash(&json), None, false),
            };
            self.entries.push(Entry {
                chars: json.chars().count(),
                json: json.clone(),
                name,
                tokens: 0,
                content,
                mark,
                deferred,
            });
            self.ids.insert(json, id);
            ids.push(id);
        }
        if self.entries.len() > first_new {
            let texts: Vec<&str> = self.entries[first_new..].iter().map(|e| &*e.json).collect();
            let counts = counter.count_many(&texts);
            for (entry, n) in self.entries[first_new..].iter_mut().zip(counts) {
                entry.tokens = n;
            }
        }
        ids
    }

    /// The id and tokens of a distinct tools array.
    pub(super) fn array(
        &mut self,
        counter: &TokenCounter,
        shape: Shape,
        present: bool,
        ids: &Arc<[u32]>,
    ) -> (u32, usize) {
        if let Some(&found) = self.arrays.get(&(shape, present, Arc::clone(ids))) {
            return found;
        }
        let tokens = if present || !ids.is_empty() {
            self.list_tokens(counter, ids)
        } else {
            0
        };
        let id = self.arrays.len() as u32;
        self.arrays
            .insert((shape, present, Arc::clone(ids)), (id, tokens));
        (id, tokens)
    }

    /// Tokens of the compact array of these entries, counted once per distinct list.
    pub(super) fn list_tokens(&mut self, counter: &TokenCounter, ids: &[u32]) -> usize {
        if let Some(&n) = self.lists.get(ids) {
            return n;
        }
        let texts: Vec<&str> = ids
            .iter()
            .map(|&i| &*self.entries[i as usize].json)
            .collect();
        let counts: Vec<usize> = ids
            .iter()
            .map(|&i| self.entries[i as usize].tokens)
            .collect();
        let n = counter.count_arrays_counted(&[(&texts, &counts)])[0];
        self.lists.insert(ids.into(), n);
        n
    }

    /// Tokens of a list in the model's context: `defer_loading` entries left out.
    pub(super) fn context_tokens(
        &mut self,
        counter: &TokenCounter,
        ids: &[u32],
        tools_tokens: usize,
    ) -> usize {
        if !ids.iter().any(|&i| self.entries[i as usize].deferred) {
            return tools_tokens;
        }
        let kept: Vec<u32> = ids
            .iter()
            .copied()
            .filter(|&i| !self.entries[i as usize].deferred)
            .collect();
        if kept.is_empty() {
            0
        } else {
            self.list_tokens(counter, &kept)
        }
    }

    pub(super) fn bytes(&self, ids: &[u32], present: bool) -> usize {
        let texts: Vec<&str> = ids
            .iter()
            .map(|&i| &*self.entries[i as usize].json)
            .collect();
        report::array_bytes(&texts, present || !ids.is_empty())
    }
}

/// `f` over `items`, in order: on the thread pool when `parallel`, else on this thread.
fn map_entries<T: Sync, R: Send>(
    items: &[T],
    parallel: bool,
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    if parallel {
        items.par_iter().map(f).collect()
    } else {
        items.iter().map(f).collect()
    }
}

/// Equal values with their object keys in the same order: equal compact JSON. (`Value`'s own
/// `==` ignores key order.)
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_value(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
        }
        // Numbers compare by their text: 1.0 and 1 serialize differently.
        (Value::Number(a), Value::Number(b)) => a.to_string() == b.to_string(),
        (a, b) => a == b,
    }
}
