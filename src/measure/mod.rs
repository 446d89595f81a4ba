//! Token counting: exact tiktoken counts behind a small trait, fast enough for 1000-tool lists.
//!
//! Every count is exactly what tiktoken's `encode_ordinary(text).len()` gives. Speed comes from
//! never tokenizing the same text twice and from tokenizing less:
//!
//! - [`TokenCounter`] remembers counts for the session, keyed by the exact string: short texts
//!   whole, longer ones as their chunks (below), and counts new strings in parallel
//!   ([`TokenCounter::count_many`]).
//! - A text is cut at positions where tiktoken's pre-tokenizer always cuts ([`split`]), into
//!   chunks about a word long, and each chunk's count is cached too: a word, key or phrase that
//!   recurs anywhere (an unchanged schema under a new description, a kept prefix, the same
//!   parameter name in a hundred tools) is tokenized once. The counts add up exactly because
//!   tiktoken encodes each pre-tokenizer piece alone.
//!   Chunks not yet remembered are tokenized together, a run at a time
//!   ([`Tokenizer::count_parts`]), and texts over 64 KB are cut into coarser chunks: a
//!   million-entry enum costs a few thousand tokenizer calls, not a million.
//! - A list `[e0,e1,...]` is counted from its entries' counts plus the few bytes around each
//!   join, cut at the entries' first and last forced boundaries ([`TokenCounter::count_array`]);
//!   an entry without one is counted together with its neighbours, still exactly.
//! - The tokenizer is [`fast::FastTiktoken`]: tiktoken-rs's tokens, without its backtracking
//!   regex or the build of its encoder (the rank table is written at build time). It is built
//!   on a background thread from [`TokenCounter::new`] (a few milliseconds), so reading and
//!   parsing a capture overlap with it. tiktoken-rs's own encoder ([`Tiktoken`]) is the
//!   reference the tests hold it to.

pub mod fast;
pub mod long_piece;
pub mod pieces;
mod rank_index;
pub mod split;

use std::hash::{Hash, Hasher};

use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

/// The tiktoken encodings toolprism counts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// `o200k_base` (GPT-4o and later).
    #[default]
    O200kBase,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100kBase,
}

impl Encoding {
    /// The encoding's name as tiktoken spells it.
    pub fn id(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }
}

impl std::str::FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "o200k_base" => Ok(Encoding::O200kBase),
            "cl100k_base" => Ok(Encoding::Cl100kBase),
            other => Err(format!(
                "unknown encoding `{other}` (o200k_base or cl100k_base)"
            )),
        }
    }
}

/// Something that counts tokens exactly as tiktoken's `encode_ordinary` would.
pub trait Tokenizer: Send + Sync {
    /// Tokens in `text`, special-token text counted as ordinary text.
    fn count(&self, text: &str) -> usize;

    /// Tokens of each part of `text` cut at `cuts` (increasing byte offsets strictly inside
    /// `text`, each a forced boundary, see [`split`]): `cuts.len() + 1` counts. The default
    /// counts each part alone; a tokenizer may count the whole text once and split its count.
    fn count_parts(&self, text: &str, cuts: &[usize]) -> Vec<usize> {
        per_part(self, text, cuts)
    }
}

/// A shared tokenizer counts as itself.
impl<T: Tokenizer + ?Sized> Tokenizer for &T {
    fn count(&self, text: &str) -> usize {
        (**self).count(text)
    }
    fn count_parts(&self, text: &str, cuts: &[usize]) -> Vec<usize> {
        (**self).count_parts(text, cuts)
    }
}

/// tiktoken-rs's encoder.
pub struct Tiktoken(&'static tiktoken_rs::CoreBPE, Encoding);

impl Tiktoken {
    /// Build (or reuse) the encoder. The first call for an encoding builds it (docs/SPEED.md has
    /// what that costs); a call made while another thread builds it waits for that build.
    pub fn new(encoding: Encoding) -> Tiktoken {
        let bpe = match encoding {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        Tiktoken(bpe, encoding)
    }
}

impl Tokenizer for Tiktoken {
    fn count(&self, text: &str) -> usize {
        // A text that may hold a piece too long for tiktoken's merge to hold in memory.
        if text.len() >= long_piece::LONG
            && let Some(n) =
                long_piece::count_text(self.1, text, |piece| self.0.encode_ordinary(piece).len())
        {
            return n;
        }
        self.0.encode_ordinary(text).len()
    }

    /// One encoding of the whole text, each token given to the part its bytes fall in: a forced
    /// boundary is a piece boundary, so no token straddles a cut. Should one ever seem to, the
    /// parts are counted alone instead (exact either way).
    fn count_parts(&self, text: &str, cuts: &[usize]) -> Vec<usize> {
        if text.len() >= long_piece::LONG {
            return per_part(self, text, cuts);
        }
        let mut counts = vec![0; cuts.len() + 1];
        let mut part = 0;
        let mut at = 0;
        for token in self.0.encode_ordinary(text) {
            while part < cuts.len() && at >= cuts[part] {
                part += 1;
            }
            let Ok(bytes) = self.0.decode_bytes(&[token]) else {
                return per_part(self, text, cuts);
            };
            at += bytes.len();
            if part < cuts.len() && at > cuts[part] {
                return per_part(self, text, cuts);
            }
            counts[part] += 1;
        }
        counts
    }
}

/// [`Tokenizer::count_parts`]'s plain definition: each part counted alone.
pub(crate) fn per_part<T: Tokenizer + ?Sized>(
    tokenizer: &T,
    text: &str,
    cuts: &[usize],
) -> Vec<usize> {
    let mut counts = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for &cut in cuts.iter().chain(std::iter::once(&text.len())) {
        counts.push(tokenizer.count(&text[from..cut]));
        from = cut;
    }
    counts
}

/// Where the tokenizer comes from: built in the background, or given.
type TokenizerCell = Arc<OnceLock<Box<dyn Tokenizer>>>;

/// Counts tokens of strings, remembering every count for the session. Shareable across
/// threads (`&TokenCounter` is `Sync`); counts of new strings run on rayon's pool.
pub struct TokenCounter {
    encoding: Encoding,
    tokenizer: TokenizerCell,
    /// Counts by exact string (whole texts and the chunks they were cut into), sharded by
    /// hash so parallel counting rarely waits on a lock.
    cache: Vec<Shard>,
    /// Bytes handed to the tokenizer so far (each new chunk once).
    tokenized: AtomicU64,
    /// Whether the tokenizer is the fast one (set once it is built).
    fast: Arc<AtomicBool>,
}

/// Texts at most this long are counted whole, not cut into chunks.
const WHOLE: usize = 96;

/// New chunks are tokenized together in runs of about this many bytes.
const RUN: usize = 16 * 1024;

/// A text at least twice this long is counted in segments of about this many bytes, in
/// parallel.
const SEGMENT: usize = 256 * 1024;

impl TokenCounter {
    /// A counter for `encoding` using [`fast::FastTiktoken`] (tiktoken-rs's should it ever
    /// fail to build). Returns at once: the tokenizer is built on a background thread, and the
    /// first count waits for it.
    pub fn new(encoding: Encoding) -> TokenCounter {
        let cell: TokenizerCell = Arc::new(OnceLock::new());
        let fast = Arc::new(AtomicBool::new(false));
        let (background, is_fast) = (Arc::clone(&cell), Arc::clone(&fast));
        let spawned = std::thread::Builder::new()
            .name("toolprism-encoder".into())
            .spawn(move || {
                background.get_or_init(|| build_tokenizer(encoding, &is_fast));
            });
        // Without a thread, the first count builds it instead.
        drop(spawned);
        TokenCounter {
            encoding,
            tokenizer: cell,
            cache: new_cache(),
            tokenized: AtomicU64::new(0),
            fast,
        }
    }

    /// A counter over any tokenizer (tests, other implementations). `encoding` is the name it
    /// reports.
    pub fn with_tokenizer(encoding: Encoding, tokenizer: Box<dyn Tokenizer>) -> TokenCounter {
        let cell = OnceLock::new();
        let _ = cell.set(tokenizer);
        TokenCounter {
            encoding,
            tokenizer: Arc::new(cell),
            cache: new_cache(),
            tokenized: AtomicU64::new(0),
            fast: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The encoding counted with.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Wait until the encoder is built (the first count does this by itself).
    pub fn ready(&self) {
        let _ = self.tokenizer();
    }

    fn tokenizer(&self) -> &dyn Tokenizer {
        // Blocks while the background thread builds it; builds it here if that thread failed
        // to start.
        self.tokenizer
            .get_or_init(|| build_tokenizer(self.encoding, &self.fast))
            .as_ref()
    }

    fn shard(&self, text: &str) -> std::sync::MutexGuard<'_, HashMap<Box<str>, u32>> {
        let mut hasher = rustc_hash::FxHasher::default();
        text.hash(&mut hasher);
        let shard = &self.cache[(hasher.finish() >> 32) as usize % SHARDS];
        // A panic elsewhere cannot leave a wrong count behind (inserts are single calls).
        shard
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn remembered(&self, text: &str) -> Option<usize> {
        self.shard(text).get(text).map(|&n| n as usize)
    }

    fn remember(&self, text: &str, n: usize) {
        self.shard(text)
            .insert(text.into(), n.min(u32::MAX as usize) as u32);
    }

    /// Whether counting goes through the fast tokenizer ([`fast::FastTiktoken`]): once it is
    /// built, unless this counter was given another tokenizer.
    pub fn counts_fast(&self) -> bool {
        self.fast.load(Ordering::Relaxed)
    }

    /// Strings whose count is remembered (whole texts and chunks).
    pub fn cached_strings(&self) -> usize {
        self.cache
            .iter()
            .map(|shard| {
                shard
                    .0
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .len()
            })
            .sum()
    }

    /// Bytes the tokenizer has been given so far: what caching and chunking left to count.
    pub fn tokenized_bytes(&self) -> u64 {
        self.tokenized.load(Ordering::Relaxed)
    }

    /// Tokens in `text`.
    pub fn count(&self, text: &str) -> usize {
        self.count_many(&[text])[0]
    }

    /// Tokens of each text, in order. New strings are counted in parallel; every count is
    /// remembered.
    pub fn count_many(&self, texts: &[&str]) -> Vec<usize> {
        if texts.len() <= 1 {
            return texts.iter().map(|text| self.count_one(text)).collect();
        }
        // Texts are cut into chunks and counted on rayon's pool; a chunk two threads meet at
        // once may be counted twice, never wrongly.
        texts
            .par_iter()
            .with_min_len(4)
            .map(|text| self.count_one(text))
            .collect()
    }

    /// One text: remembered, or the sum of its chunks' (remembered or tokenized) counts.
    fn count_one(&self, text: &str) -> usize {
        // A longer text is remembered as its chunks only: keeping every entry of 100,000 tools
        // whole as well, and each projected copy, doubled the cache. Counting it again is a
        // walk over remembered chunks.
        if text.len() > WHOLE {
            return self.count_chunks(text);
        }
        if let Some(n) = self.remembered(text) {
            return n;
        }
        let n = self.tokenize(text);
        self.remember(text, n);
        n
    }

    /// A long text: the sum of its chunks' counts. Runs of chunks not yet remembered are
    /// tokenized in one call each (a call has a fixed cost that a million-chunk text would pay
    /// a million times), and each of their chunks remembered.
    fn count_chunks(&self, text: &str) -> usize {
        if text.len() < 2 * SEGMENT {
            return self.count_chunk_list(text, split::chunks(text));
        }
        // A huge text is one call on one thread: count segments of whole chunks in parallel
        // (the chunks are the same as in one pass, so the cache sees no difference).
        let mut segments: Vec<Vec<&str>> = vec![Vec::new()];
        let mut size = 0;
        for chunk in split::chunks(text) {
            if size >= SEGMENT {
                segments.push(Vec::new());
                size = 0;
            }
            size += chunk.len();
            if let Some(segment) = segments.last_mut() {
                segment.push(chunk);
            }
        }
        segments
            .par_iter()
            .map(|chunks| self.count_chunk_list(text, chunks.iter().copied()))
            .sum()
    }

    /// The sum of `chunks`' counts (consecutive parts of `text`).
    fn count_chunk_list<'t>(&self, text: &'t str, chunks: impl Iterator<Item = &'t str>) -> usize {
        let base = text.as_ptr() as usize;
        let mut total = 0;
        // The run of new chunks: its start and the chunks' starts within the text.
        let mut run: Option<usize> = None;
        let mut run_chunks: Vec<(usize, usize)> = Vec::new();
        for chunk in chunks {
            let start = chunk.as_ptr() as usize - base;
            match self.remembered(chunk) {
                Some(n) => {
                    if let Some(from) = run.take() {
                        total += self.count_run(text, from, start, &mut run_chunks);
                    }
                    total += n;
                }
                None => {
                    let from = *run.get_or_insert(start);
                    run_chunks.push((start, start + chunk.len()));
                    if start + chunk.len() - from >= RUN {
                        total += self.count_run(text, from, start + chunk.len(), &mut run_chunks);
                        run = None;
                    }
                }
            }
        }
        if let (Some(from), Some(&(_, end))) = (run, run_chunks.last()) {
            total += self.count_run(text, from, end, &mut run_chunks);
        }
        total
    }

    /// Tokenize `text[from..to]` once, remember each of its chunks (`chunks`, drained), and
    /// return the run's count.
    fn count_run(
        &self,
        text: &str,
        from: usize,
        to: usize,
        chunks: &mut Vec<(usize, usize)>,
    ) -> usize {
        let run = &text[from..to];
        self.tokenized
            .fetch_add(run.len() as u64, Ordering::Relaxed);
        let cuts: Vec<usize> = chunks.iter().skip(1).map(|&(s, _)| s - from).collect();
        let counts = self.tokenizer().count_parts(run, &cuts);
        for (&(s, e), &n) in chunks.iter().zip(&counts) {
            self.remember(&text[s..e], n);
        }
        chunks.clear();
        counts.iter().sum()
    }

    fn tokenize(&self, text: &str) -> usize {
        self.tokenized
            .fetch_add(text.len() as u64, Ordering::Relaxed);
        self.tokenizer().count(text)
    }

    /// Tokens of the JSON array `[e0,e1,...]` whose elements' compact JSON is given, exactly as
    /// if the joined text were counted, without tokenizing it: each entry's count (remembered)
    /// minus its two edge parts, plus the small join texts between neighbours' edges.
    pub fn count_array(&self, entries: &[&str]) -> usize {
        self.count_arrays(&[entries])[0]
    }

    /// [`count_array`](Self::count_array) of several lists, counting every new string they
    /// need in one parallel batch.
    pub fn count_arrays(&self, lists: &[&[&str]]) -> Vec<usize> {
        self.count_arrays_with(lists, &[])
    }

    /// [`count_arrays`](Self::count_arrays), with `also` counted (and remembered) in the same
    /// batch: one parallel pass.
    pub fn count_arrays_with(&self, lists: &[&[&str]], also: &[&str]) -> Vec<usize> {
        let mut texts: Vec<&str> = also.to_vec();
        for list in lists {
            texts.extend_from_slice(list);
        }
        let counts = self.count_many(&texts);
        let mut at = also.len();
        let counted: Vec<(&[&str], &[usize])> = lists
            .iter()
            .map(|list| {
                at += list.len();
                (*list, &counts[at - list.len()..at])
            })
            .collect();
        self.count_arrays_counted(&counted)
    }

    /// List totals when each entry's own count is already known (`counts[i]` must be the count
    /// of `entries[i]`, as [`count_many`](Self::count_many) gives it): only the join parts
    /// are counted, in one batch.
    pub fn count_arrays_counted(&self, lists: &[(&[&str], &[usize])]) -> Vec<usize> {
        let plans: Vec<ArrayPlan> = lists
            .par_iter()
            .map(|(entries, _)| ArrayPlan::new(entries))
            .collect();
        let parts: Vec<&str> = plans
            .iter()
            .flat_map(|plan| plan.parts.iter().map(String::as_str))
            .collect();
        let counts = self.count_many(&parts);
        let mut at = 0;
        lists
            .iter()
            .zip(&plans)
            .map(|((_, entry_counts), plan)| {
                at += plan.parts.len();
                plan.total(entry_counts, &counts[at - plan.parts.len()..at])
            })
            .collect()
    }
}

/// The fast tokenizer of `encoding` (noting that in `fast`), or tiktoken-rs's should it not
/// build.
fn build_tokenizer(encoding: Encoding, fast: &AtomicBool) -> Box<dyn Tokenizer> {
    match fast::FastTiktoken::shared(encoding) {
        Ok(tokenizer) => {
            fast.store(true, Ordering::Relaxed);
            Box::new(tokenizer)
        }
        Err(_) => Box::new(Tiktoken::new(encoding)),
    }
}

/// Shards of the cache: enough that two or three threads seldom meet on one lock.
const SHARDS: usize = 64;

/// One shard of the cache, alone on its cache lines: locks packed side by side made every
/// look-up of one thread evict the line another thread's lock sat on.
#[repr(align(128))]
struct Shard(Mutex<HashMap<Box<str>, u32>>);

fn new_cache() -> Vec<Shard> {
    (0..SHARDS)
        .map(|_| Shard(Mutex::new(HashMap::default())))
        .collect()
}

/// How to count `[e0,e1,...]` from parts: the texts to count besides the entries, and how to
/// combine the counts.
struct ArrayPlan {
    /// Extra texts: join texts and entries' edge parts.
    parts: Vec<String>,
    /// Per entry: `Some((head part, tail part))` when its middle is counted by subtraction.
    edges: Vec<Option<(usize, usize)>>,
    /// Join texts, added whole.
    joins: Vec<usize>,
}

impl ArrayPlan {
    fn new(entries: &[&str]) -> ArrayPlan {
        let mut plan = ArrayPlan {
            parts: Vec::new(),
            edges: Vec::with_capacity(entries.len()),
            joins: Vec::new(),
        };
        // The text since the last forced boundary, not yet counted.
        let mut open = String::from("[");
        for (i, entry) in entries.iter().enumerate() {
            if i > 0 {
                open.push(',');
            }
            match split::edges(entry) {
                Some((first, last)) => {
                    open.push_str(&entry[..first]);
                    plan.joins.push(plan.parts.len());
                    plan.parts.push(std::mem::take(&mut open));
                    plan.parts.push(entry[..first].to_owned());
                    plan.parts.push(entry[last..].to_owned());
                    let n = plan.parts.len();
                    plan.edges.push(Some((n - 2, n - 1)));
                    open.push_str(&entry[last..]);
                }
                None => {
                    // No forced boundary: the whole entry joins the open text.
                    open.push_str(entry);
                    plan.edges.push(None);
                }
            }
        }
        open.push(']');
        plan.joins.push(plan.parts.len());
        plan.parts.push(open);
        plan
    }

    fn total(&self, entry_counts: &[usize], part_counts: &[usize]) -> usize {
        let middles: usize = self
            .edges
            .iter()
            .zip(entry_counts)
            .filter_map(|(edges, &n)| {
                // An entry's own count is its head, middle and tail pieces: the edges are
                // forced boundaries in the entry alone, as in the list.
                edges.map(|(head, tail)| n.saturating_sub(part_counts[head] + part_counts[tail]))
            })
            .sum();
        middles + self.joins.iter().map(|&j| part_counts[j]).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Counts bytes, and how many bytes it was asked to count.
    struct ByteCounter(Arc<AtomicUsize>);

    impl Tokenizer for ByteCounter {
        fn count(&self, text: &str) -> usize {
            self.0.fetch_add(text.len(), Ordering::Relaxed);
            text.len()
        }
    }

    #[test]
    fn a_string_is_tokenized_once() {
        let seen = Arc::new(AtomicUsize::new(0));
        let counter =
            TokenCounter::with_tokenizer(Encoding::O200kBase, Box::new(ByteCounter(seen.clone())));
        let long = "some words, and more words. ".repeat(40);
        assert_eq!(counter.count(&long), long.len());
        let after_first = seen.load(Ordering::Relaxed);
        assert!(after_first <= long.len());
        assert_eq!(
            counter.count_many(&[&long, &long, "x"]),
            vec![long.len(), long.len(), 1]
        );
        assert_eq!(seen.load(Ordering::Relaxed), after_first + 1);
    }

    #[test]
    fn large_texts_count_exactly_in_runs() {
        let counter = TokenCounter::new(Encoding::O200kBase);
        let plain = Tiktoken::new(Encoding::O200kBase);
        let mut text: String = (0..20_000)
            .map(|i| format!("\"v{i}\",'s 東京 x/y!?. e.g. {}", i % 7))
            .collect();
        assert!(text.len() > 2 * SEGMENT, "{}", text.len());
        assert_eq!(counter.count(&text), plain.count(&text));
        // A projected copy: most chunks remembered, the new head tokenized as a run.
        text.insert_str(0, "A new head: ");
        text.push_str(" and a tail.");
        let before = counter.tokenized_bytes();
        assert_eq!(counter.count(&text), plain.count(&text));
        assert!(counter.tokenized_bytes() - before < 16 * 1024);
        let cuts = [2, 5];
        assert_eq!(plain.count_parts("ab,cd efg", &cuts), vec![1, 2, 2]);
        assert_eq!(per_part(&plain, "ab,cd efg", &cuts), vec![1, 2, 2]);
    }

    #[test]
    fn array_plan_adds_up_for_byte_counts() {
        let counter = TokenCounter::with_tokenizer(
            Encoding::O200kBase,
            Box::new(ByteCounter(Arc::new(AtomicUsize::new(0)))),
        );
        let entries = [r#"{"name":"a"}"#, "{}", r#"{"name":"b","x":[1]}"#, "[]"];
        let joined = format!("[{}]", entries.join(","));
        assert_eq!(counter.count_array(&entries), joined.len());
        assert_eq!(counter.count_array(&[]), 2);
    }
}
