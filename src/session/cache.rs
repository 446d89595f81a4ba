//! The prompt cache as a provider keeps it (SESSIONS.md section 3): a store of prefixes, not a
//! thread. A request reads the longest prefix an earlier request (any thread) wrote that is
//! still alive, and writes what it may cache beyond it.
//!
//! - Anthropic: only what a request marks is cached. Prefixes end at its `cache_control`
//!   breakpoints (at most 4); a breakpoint reads the longest alive prefix ending at a block
//!   boundary at most `lookback` blocks before it; the rest up to the last breakpoint is
//!   written; what follows is plain input. A prefix shorter than the model's minimum is not
//!   cached. Lifetime 5 minutes, refreshed by each read; 1 hour for `"ttl": "1h"`.
//! - OpenAI: automatic. A prompt of at least `min_tokens` is cached at every block boundary; a
//!   request reads the longest alive common prefix, counted in `step`-token increments from
//!   `min_tokens`; writing costs nothing extra.
//!
//! Times are milliseconds since the epoch; without them every prefix counts as alive.

use rustc_hash::FxHashMap;

use super::prompt::Ttl;

/// How one request is cached and billed: the provider's rules, resolved for its model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    /// OpenAI's automatic caching (else Anthropic's breakpoints).
    pub openai: bool,
    /// Shortest prefix that is cached, in tokens.
    pub min_tokens: usize,
    /// Anthropic: block boundaries a breakpoint looks back over for an earlier prefix.
    pub lookback: usize,
    /// Anthropic: breakpoints a request may set.
    pub max_marks: usize,
    /// OpenAI: cached prefixes grow in steps of this many tokens.
    pub step: usize,
    /// Lifetime of a prefix (Anthropic default breakpoints; OpenAI's default retention).
    pub ttl_ms: u64,
    /// Lifetime of a long-lived prefix (Anthropic `ttl: 1h`; OpenAI `prompt_cache_retention:
    /// 24h`).
    pub ttl_long_ms: u64,
    /// OpenAI: this request asked for the long retention.
    pub long_retention: bool,
    /// DeepSeek: a read is of a whole stored unit only (a request's input, its output, or a
    /// prefix two requests were seen to share), never of any common prefix.
    pub units: bool,
    /// A cached token, in input tokens.
    pub read: f64,
    /// A token written to a default-lifetime prefix.
    pub write: f64,
    /// A token written to a long-lived prefix.
    pub write_long: f64,
}

/// A prefix the provider read though no request of the trace wrote it: cached before the trace
/// began, adopted as cached up to `tokens` (exact) for `life_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Warmed {
    /// Exact tokens of the longest prefix adopted.
    pub tokens: usize,
    /// Exact tokens the provider read (an automatic cache reads inside a block, where no
    /// boundary of the request falls).
    pub read: usize,
    /// How long it stays cached from this turn, in milliseconds.
    pub life_ms: u64,
}

/// One block boundary of a request: the prefix up to and including a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Boundary {
    /// The prefix's running hash.
    pub hash: u64,
    /// Its tokens.
    pub tokens: usize,
    /// The breakpoint the block carries.
    pub mark: Option<Ttl>,
}

/// What the model says one request read, wrote and sent plain.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Modelled {
    /// Tokens read from the cache.
    pub read: usize,
    /// Tokens written with the default lifetime.
    pub write: usize,
    /// Tokens written with the long lifetime.
    pub write_long: usize,
    /// Tokens neither read nor written.
    pub input: usize,
    /// Breakpoints the request set (Anthropic; 0 for OpenAI).
    pub marks: usize,
    /// The longest prefix that would have been cached but is under `min_tokens`.
    pub short: Option<usize>,
    /// The longest prefix the store held longer than the one read, but past its lifetime:
    /// its tokens and the time since it was last used.
    pub expired: Option<(usize, i64)>,
    /// The prefix read: the time since it was last used (`None`: untimed, or nothing read).
    pub read_gap: Option<i64>,
}

impl Modelled {
    /// `none`, `write`, `hit` (read, nothing written) or `partial` (read and written).
    pub fn state(&self) -> &'static str {
        state(self.read as u64, (self.write + self.write_long) as u64)
    }

    /// Tokens written, both lifetimes.
    pub fn written(&self) -> usize {
        self.write + self.write_long
    }

    /// The request's cost in input tokens.
    pub fn cost(&self, rules: &Rules) -> f64 {
        self.read as f64 * rules.read
            + self.write as f64 * rules.write
            + self.write_long as f64 * rules.write_long
            + self.input as f64
    }
}

/// The same request had the prefix its thread's previous turn left cached (`cached` tokens)
/// still held: what it lost is read instead, taken from what it wrote, then from its plain
/// input (the order they come in the prompt). `None` when nothing was lost.
pub fn held(m: &Modelled, cached: usize) -> Option<Modelled> {
    let total = m.read + m.written() + m.input;
    let lost = cached.min(total).checked_sub(m.read).filter(|&n| n > 0)?;
    let mut held = *m;
    let from_write = lost.min(held.write);
    held.write -= from_write;
    let from_long = (lost - from_write).min(held.write_long);
    held.write_long -= from_long;
    let from_input = (lost - from_write - from_long).min(held.input);
    held.input -= from_input;
    held.read += from_write + from_long + from_input;
    Some(held)
}

/// The cache state of figures read and written.
pub fn state(read: u64, written: u64) -> &'static str {
    match (read > 0, written > 0) {
        (false, false) => "none",
        (false, true) => "write",
        (true, false) => "hit",
        (true, true) => "partial",
    }
}

#[derive(Debug, Clone, Copy)]
struct Stored {
    tokens: usize,
    used: Option<i64>,
    life_ms: u64,
    unit: Unit,
}

/// What a stored prefix is to a provider that reads whole units only ([`Rules::units`]); to
/// any other, every stored prefix can be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    /// Sent, not stored as a unit: a later request sharing it makes it one.
    Seen,
    /// A unit: an output's end, a prefix two requests shared, a prefix read.
    Whole,
    /// A request's whole input: a unit, and the block after it (the model's output, sent back
    /// by the next request) ends one too.
    Input,
}

impl Stored {
    fn alive(&self, now: Option<i64>) -> bool {
        match (now, self.used) {
            (Some(now), Some(used)) => now.saturating_sub(used) <= self.life_ms as i64,
            _ => true,
        }
    }
}

/// The prefixes one provider holds (one store per strategy: each is its own what-if).
#[derive(Debug, Default)]
pub struct Store {
    prefixes: FxHashMap<u64, Stored>,
    requests: usize,
}

/// Expired prefixes are kept this long past their lifetime, to tell a lifetime gap from a
/// prefix never seen, then dropped (the store stays bounded on long traces).
const KEEP_EXPIRED_MS: i64 = 24 * 3_600_000;

impl Store {
    /// Prefixes held (alive or recently expired).
    pub fn len(&self) -> usize {
        self.prefixes.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.prefixes.is_empty()
    }

    /// Model one request of `total` tokens whose block boundaries are `boundaries`, sent at
    /// `now`, and remember what it cached.
    pub fn request(
        &mut self,
        boundaries: &[Boundary],
        total: usize,
        now: Option<i64>,
        rules: &Rules,
    ) -> Modelled {
        self.requests += 1;
        if self.requests.is_multiple_of(256)
            && let Some(now) = now
        {
            self.prefixes.retain(|_, s| {
                s.used
                    .is_none_or(|u| now.saturating_sub(u) <= s.life_ms as i64 + KEEP_EXPIRED_MS)
            });
        }
        if rules.openai {
            self.automatic(boundaries, total, now, rules)
        } else {
            self.breakpoints(boundaries, total, now, rules)
        }
    }

    fn gap(now: Option<i64>, stored: &Stored) -> Option<i64> {
        Some(now?.saturating_sub(stored.used?))
    }

    fn breakpoints(
        &mut self,
        boundaries: &[Boundary],
        total: usize,
        now: Option<i64>,
        rules: &Rules,
    ) -> Modelled {
        let marks: Vec<usize> = boundaries
            .iter()
            .enumerate()
            .filter(|(_, b)| b.mark.is_some())
            .map(|(i, _)| i)
            .take(rules.max_marks)
            .collect();
        let mut out = Modelled {
            input: total,
            marks: marks.len(),
            ..Modelled::default()
        };
        if marks.is_empty() {
            return out;
        }
        // The longest alive prefix any breakpoint reaches.
        let mut best: Option<usize> = None;
        for &mark in &marks {
            for j in (mark.saturating_sub(rules.lookback)..=mark).rev() {
                let Some(stored) = self.prefixes.get(&boundaries[j].hash) else {
                    continue;
                };
                if stored.alive(now) {
                    if best.is_none_or(|b| boundaries[b].tokens < boundaries[j].tokens) {
                        best = Some(j);
                    }
                    break;
                }
                if out.expired.is_none_or(|(t, _)| t < stored.tokens) {
                    out.expired = Self::gap(now, stored).map(|g| (stored.tokens, g));
                }
            }
        }
        if let Some(j) = best {
            out.read = boundaries[j].tokens;
            if let Some(stored) = self.prefixes.get_mut(&boundaries[j].hash) {
                out.read_gap = Self::gap(now, stored);
                stored.used = now.or(stored.used);
            }
        }
        if out.expired.is_some_and(|(t, _)| t <= out.read) {
            out.expired = None;
        }
        let mut covered = out.read;
        for &mark in &marks {
            let boundary = boundaries[mark];
            if boundary.tokens < rules.min_tokens {
                out.short = Some(boundary.tokens);
                continue;
            }
            let long = boundary.mark == Some(Ttl::Long);
            if boundary.tokens > covered {
                let written = boundary.tokens - covered;
                if long {
                    out.write_long += written;
                } else {
                    out.write += written;
                }
                covered = boundary.tokens;
            }
            let life_ms = if long {
                rules.ttl_long_ms
            } else {
                rules.ttl_ms
            };
            self.keep(&boundary, now, life_ms, Unit::Whole);
        }
        out.input = total.saturating_sub(out.read + out.written());
        out
    }

    /// Adopt `warmed` ([`Store::adopt`]).
    pub fn adopt_warmed(&mut self, boundaries: &[Boundary], warmed: Warmed, now: Option<i64>) {
        self.adopt(boundaries, warmed.tokens, now, warmed.life_ms);
    }

    /// Adopt as cached, from `now`, every prefix of `boundaries` up to `tokens`: what the
    /// provider read though no request of the trace wrote it (a cache warmed before the trace
    /// began). Returns the tokens adopted.
    pub fn adopt(
        &mut self,
        boundaries: &[Boundary],
        tokens: usize,
        now: Option<i64>,
        life_ms: u64,
    ) -> usize {
        let mut adopted = 0;
        for boundary in boundaries.iter().take_while(|b| b.tokens <= tokens) {
            self.keep(boundary, now, life_ms, Unit::Whole);
            adopted = boundary.tokens;
        }
        adopted
    }

    /// Store the prefix ending at `boundary` (or refresh it: a use renews its lifetime, and the
    /// longer of two lifetimes wins).
    fn keep(&mut self, boundary: &Boundary, now: Option<i64>, life_ms: u64, unit: Unit) {
        let stored = self.prefixes.entry(boundary.hash).or_insert(Stored {
            tokens: boundary.tokens,
            used: now,
            life_ms,
            unit,
        });
        stored.used = now.or(stored.used);
        stored.life_ms = stored.life_ms.max(life_ms);
        stored.unit = stored.unit.max(unit);
    }

    fn automatic(
        &mut self,
        boundaries: &[Boundary],
        total: usize,
        now: Option<i64>,
        rules: &Rules,
    ) -> Modelled {
        let mut out = Modelled {
            input: total,
            ..Modelled::default()
        };
        let life_ms = if rules.long_retention {
            rules.ttl_long_ms
        } else {
            rules.ttl_ms
        };
        let mut best: Option<usize> = None;
        // The longest alive prefix sent before, unit or not (DeepSeek makes it a unit).
        let mut shared: Option<usize> = None;
        for (j, boundary) in boundaries.iter().enumerate().rev() {
            if boundary.tokens < rules.min_tokens {
                break;
            }
            let Some(stored) = self.prefixes.get(&boundary.hash) else {
                continue;
            };
            if stored.alive(now) {
                shared = shared.or(Some(j));
                if !rules.units || stored.unit != Unit::Seen {
                    best = Some(j);
                    break;
                }
                continue;
            }
            if out.expired.is_none() {
                out.expired = Self::gap(now, stored).map(|g| (stored.tokens, g));
            }
        }
        if rules.units {
            // A request's input is a unit, and so is the output after it: the next block.
            if let Some(j) = best
                && j + 1 < boundaries.len()
                && self
                    .prefixes
                    .get(&boundaries[j].hash)
                    .is_some_and(|s| s.unit == Unit::Input)
            {
                best = Some(j + 1);
            }
            if let Some(k) = shared.filter(|&k| best.is_none_or(|b| k > b)) {
                self.keep(&boundaries[k], now, life_ms, Unit::Whole);
            }
        }
        if let Some(j) = best {
            let common = boundaries[j].tokens.min(total);
            let step = rules.step.max(1);
            out.read = rules.min_tokens + (common - rules.min_tokens) / step * step;
            if let Some(stored) = self.prefixes.get_mut(&boundaries[j].hash) {
                out.read_gap = Self::gap(now, stored);
            }
        }
        if total < rules.min_tokens {
            out.short = Some(total);
        } else {
            let last = boundaries.len().saturating_sub(1);
            for (j, boundary) in boundaries.iter().enumerate() {
                if boundary.tokens < rules.min_tokens {
                    continue;
                }
                let unit = match (rules.units, j == last) {
                    (false, _) => Unit::Whole,
                    (true, true) => Unit::Input,
                    (true, false) => Unit::Seen,
                };
                self.keep(boundary, now, life_ms, unit);
            }
        }
        out.input = total - out.read;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anthropic() -> Rules {
        Rules {
            openai: false,
            min_tokens: 1024,
            lookback: 20,
            max_marks: 4,
            step: 128,
            ttl_ms: 300_000,
            ttl_long_ms: 3_600_000,
            long_retention: false,
            units: false,
            read: 0.1,
            write: 1.25,
            write_long: 2.0,
        }
    }

    fn openai() -> Rules {
        Rules {
            openai: true,
            read: 0.5,
            write: 1.0,
            write_long: 1.0,
            ..anthropic()
        }
    }

    /// Boundaries of blocks (hash, tokens, marked).
    fn blocks(list: &[(u64, usize, bool)]) -> Vec<Boundary> {
        let mut hash = 7;
        let mut tokens = 0;
        list.iter()
            .map(|&(h, t, marked)| {
                hash = super::super::prompt::extend(hash, h);
                tokens += t;
                Boundary {
                    hash,
                    tokens,
                    mark: marked.then_some(Ttl::Short),
                }
            })
            .collect()
    }

    /// DeepSeek's whole units (its *Context caching* page's two examples): A+B then A+C
    /// reads nothing, and makes A a unit that A+D reads; a request's input, and the output after
    /// it, are units the next turn reads.
    #[test]
    fn a_provider_of_whole_units_reads_no_other_common_prefix() {
        let rules = Rules {
            min_tokens: 64,
            step: 64,
            units: true,
            ..openai()
        };
        let ask = |last: u64| blocks(&[(1, 3000, false), (last, 200, false)]);
        let mut store = Store::default();
        assert_eq!(store.request(&ask(2), 3200, None, &rules).read, 0);
        assert_eq!(store.request(&ask(3), 3200, None, &rules).read, 0);
        assert_eq!(store.request(&ask(4), 3200, None, &rules).read, 2944);
        // Without units, the second request reads A at once.
        let mut any = Store::default();
        any.request(&ask(2), 3200, None, &openai());
        assert_eq!(any.request(&ask(3), 3200, None, &openai()).read, 2944);

        let mut store = Store::default();
        let first = blocks(&[(1, 3000, false), (2, 200, false)]);
        store.request(&first, 3200, None, &rules);
        let next = blocks(&[
            (1, 3000, false),
            (2, 200, false),
            (5, 100, false),
            (6, 40, false),
        ]);
        // Turn 1's input (3,200) and its output (100 more), in 64-token steps past 64.
        assert_eq!(store.request(&next, 3340, None, &rules).read, 3264);
    }

    #[test]
    fn nothing_is_cached_without_a_breakpoint() {
        let mut store = Store::default();
        let b = blocks(&[(1, 3000, false), (2, 500, false)]);
        for _ in 0..3 {
            let m = store.request(&b, 3500, None, &anthropic());
            assert_eq!(
                (m.read, m.written(), m.input, m.state()),
                (0, 0, 3500, "none")
            );
        }
        assert!(store.is_empty());
    }

    #[test]
    fn a_moving_breakpoint_reads_the_last_prefix_and_writes_the_rest() {
        let mut store = Store::default();
        let rules = anthropic();
        let first = blocks(&[(1, 2000, true), (2, 300, true)]);
        let m = store.request(&first, 2300, Some(0), &rules);
        assert_eq!((m.read, m.write, m.input, m.state()), (0, 2300, 0, "write"));
        // The next turn: the marker moved to the new last block.
        let second = blocks(&[
            (1, 2000, true),
            (2, 300, false),
            (3, 200, false),
            (4, 50, true),
        ]);
        let m = store.request(&second, 2600, Some(60_000), &rules);
        assert_eq!(
            (m.read, m.write, m.input, m.state()),
            (2300, 250, 50, "partial")
        );
        assert!((m.cost(&rules) - (230.0 + 312.5 + 50.0)).abs() < 1e-9);
        // Past the lifetime: the prefix is gone, and the model says it expired.
        let m = store.request(&second, 2600, Some(60_000 + 301_000), &rules);
        assert_eq!(m.read, 0);
        assert_eq!(m.expired, Some((2550, 301_000)));
    }

    #[test]
    fn a_short_prefix_is_not_cached() {
        let mut store = Store::default();
        let b = blocks(&[(1, 900, true)]);
        let m = store.request(&b, 1000, None, &anthropic());
        assert_eq!((m.written(), m.short, m.input), (0, Some(900), 1000));
        let m = store.request(&b, 1000, None, &anthropic());
        assert_eq!(m.read, 0);
    }

    #[test]
    fn a_changed_tool_rebills_everything_behind_it() {
        let mut store = Store::default();
        let rules = anthropic();
        let a = blocks(&[(10, 1500, false), (1, 3000, true), (2, 4000, true)]);
        store.request(&a, 8500, None, &rules);
        let b = blocks(&[(11, 1500, false), (1, 3000, true), (2, 4000, true)]);
        let m = store.request(&b, 8500, None, &rules);
        assert_eq!((m.read, m.write), (0, 8500));
    }

    #[test]
    fn openai_reads_the_common_prefix_in_steps() {
        let mut store = Store::default();
        let rules = openai();
        let tools = blocks(&[(1, 1100, false), (2, 2200, false), (3, 400, false)]);
        let m = store.request(&tools, 3700, None, &rules);
        assert_eq!((m.read, m.state()), (0, "none"));
        // A tool appended at the end: the tools before it are still the prefix.
        let appended = blocks(&[
            (1, 1100, false),
            (2, 2200, false),
            (9, 100, false),
            (3, 400, false),
        ]);
        let m = store.request(&appended, 3800, None, &rules);
        assert_eq!((m.read, m.written(), m.input), (3200, 0, 600));
        assert_eq!(m.state(), "hit");
        // Under the minimum nothing is cached.
        let small = blocks(&[(5, 1000, false)]);
        assert_eq!(store.request(&small, 1000, None, &rules).short, Some(1000));
        assert_eq!(store.request(&small, 1000, None, &rules).read, 0);
    }
}
