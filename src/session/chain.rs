//! The cache chain of the requests as sent: each turn's request through the cache model (its
//! store shared by every turn), checked against what the provider billed (SESSIONS.md section
//! 3, "Checked against the bill"), the chain check against the thread's previous turn
//! (section 2), and the price of a break.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::calibration;
use super::disagreement;
use super::prices::price_per_million;
use super::prompt;
use super::provider::Told;
use super::read::TurnRead;
use super::{
    Analyzer, BreakCause, BreakPrice, CacheFigures, ChainState, Counted, cache, round2, verdict,
};
use crate::trace::Usage;

/// The price of a break ([`BreakPrice`]): `usd_per_million` is per exact token (the input
/// price scaled by the calibration).
fn break_price(
    m: &cache::Modelled,
    cached: usize,
    rules: &cache::Rules,
    usd_per_million: Option<f64>,
) -> Option<BreakPrice> {
    let held = cache::held(m, cached)?;
    let (cost, held_cost) = (m.cost(rules), held.cost(rules));
    let extra = cost - held_cost;
    Some(BreakPrice {
        lost: held.read - m.read,
        cost: round2(cost),
        held: round2(held_cost),
        extra: round2(extra),
        // Dollars, to a millionth.
        usd: usd_per_million.map(|p| (extra * p).round() / 1e6),
    })
}

/// What a turn with usage billed for input, in input tokens: reads and writes at their prices
/// (Anthropic splits its writes by lifetime where the response says: the hour's at its price).
fn bill_of(seen: &CacheFigures, usage: &Usage, rules: &cache::Rules) -> f64 {
    let long = usage.cache_write_1h.unwrap_or(0).min(seen.write);
    seen.input as f64
        + seen.read as f64 * rules.read
        + (seen.write - long) as f64 * rules.write
        + long as f64 * rules.write_long
}

/// The last turn of a thread in the cache chain (not failed, tools known).
#[derive(Debug)]
pub(super) struct ChainPoint {
    /// Its turn.
    pub(super) turn: usize,
    /// Its model, hashed.
    pub(super) model: u64,
    pub(super) usage: Option<Usage>,
    pub(super) openai: bool,
    pub(super) time_ms: Option<i64>,
    pub(super) tools: Arc<[u32]>,
    pub(super) present: bool,
    /// The system prompt's fingerprint.
    pub(super) system: u64,
    /// Each message's fingerprint (a turn with usage only).
    pub(super) messages: Vec<u64>,
}

/// One turn's request as sent, as the cache model reads it.
pub(super) struct SentTurn<'p> {
    /// What the turn's request says (its provider, rules, seed and what the verdict needs).
    pub(super) read: &'p TurnRead<'p>,
    /// The blocks before the tools (OpenAI's instructions), counted.
    pub(super) head: &'p [Counted],
    /// The blocks after them (system, messages).
    pub(super) rest: &'p [Counted],
    /// Its tools' entries.
    pub(super) ids: &'p [u32],
    /// The tools' tokens in the model's context.
    pub(super) context_tokens: usize,
    /// The whole prompt's tokens.
    pub(super) prompt_tokens: usize,
    pub(super) time_ms: Option<i64>,
    /// A failed call: outside the chain.
    pub(super) failed: bool,
    /// Tokens the thread's previous request as sent left cached.
    pub(super) cached_before: Option<usize>,
    pub(super) usage: Option<Usage>,
    /// Its calibration group (`None` for a failed call).
    pub(super) group: Option<usize>,
    /// Why its media keep it out of calibration (media not counted by a provider's rule).
    pub(super) media: Option<&'static str>,
    /// The first block (in `head` then `rest`) holding such media.
    pub(super) media_at: Option<usize>,
}

/// The request as sent through the cache model, and against what the provider billed.
#[derive(Default)]
pub(super) struct SentCache {
    pub(super) not_judged: Option<String>,
    pub(super) observed: Option<CacheFigures>,
    pub(super) modelled: Option<CacheFigures>,
    pub(super) agrees: Option<bool>,
    pub(super) disagreement: Option<String>,
    pub(super) calibration: Option<f64>,
    /// Why a turn with usage has no ratio.
    pub(super) uncalibrated: Option<String>,
    pub(super) break_price: Option<BreakPrice>,
    /// Tokens this request left cached (read and written), for the thread's next turn.
    pub(super) cached: Option<usize>,
}

/// The last request of one seed under automatic caching.
#[derive(Debug, Default)]
pub(super) struct PreviousPrompt {
    hashes: Vec<u64>,
    texts: Vec<(u64, Option<Arc<str>>)>,
    head: usize,
    tools: usize,
    time_ms: Option<i64>,
}

/// The longest request a provider and model were sent so far in the trace (in its tokens), and
/// the server-side tool an earlier turn ran: a read longer than every request can only be of
/// a prefix cached before the trace, or by a server-side tool's own passes.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct LongestSent {
    tokens: f64,
    server_tool: Option<&'static str>,
}

/// Blocks shorter than this are not searched for a common prefix inside them: they add at
/// most one step of an automatic cache.
const INNER_PREFIX_TOKENS: usize = 128;

/// Turns in the chain with a timestamp, and without one.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Timed {
    pub(super) timed: usize,
    /// Without: there every prefix counts as within its lifetime.
    pub(super) untimed: usize,
}

/// The chain check of one turn against the previous turn of its chain (anthropics/claude-code
/// #81967): without a break, this turn reads what the previous one read and wrote. OpenAI
/// reports no writes: there the cached prefix must not shrink.
pub(super) fn chain_check(
    previous: Option<&ChainPoint>,
    now: &ChainPoint,
    ttl_ms: u64,
) -> (ChainState, Option<BreakCause>) {
    let ChainPoint {
        usage,
        openai,
        turn: _,
        model: _,
        time_ms,
        ref tools,
        present,
        system,
        ref messages,
    } = *now;
    let Some(usage) = usage else {
        return (ChainState::Unknown, None);
    };
    let Some(previous) = previous else {
        return (
            if usage.cache_read > 0 {
                ChainState::Hit
            } else {
                ChainState::Cold
            },
            None,
        );
    };
    let Some(before) = previous.usage else {
        return (ChainState::Unknown, None);
    };
    let expected = if openai || previous.openai {
        before.cache_read
    } else {
        before.cache_read + before.cache_write
    };
    if expected == 0 {
        return (
            if usage.cache_read > 0 {
                ChainState::Hit
            } else {
                ChainState::Cold
            },
            None,
        );
    }
    if usage.cache_read >= expected {
        return (ChainState::Hit, None);
    }
    let cause = if previous.present != present || *previous.tools != **tools {
        BreakCause::Tools
    } else if matches!((previous.time_ms, time_ms), (Some(a), Some(b)) if b.saturating_sub(a) > ttl_ms as i64)
    {
        BreakCause::Lifetime
    } else if previous.system != system {
        BreakCause::System
    } else if previous.messages.len() > messages.len()
        || previous.messages[..] != messages[..previous.messages.len()]
    {
        BreakCause::Messages
    } else {
        BreakCause::Unknown
    };
    (ChainState::Break, Some(cause))
}

impl Analyzer<'_> {
    /// Count a break's price into the session's.
    fn add_break(&mut self, price: Option<BreakPrice>) {
        let Some(price) = price else {
            return;
        };
        let total = &mut self.break_cost;
        total.breaks += 1;
        total.extra = round2(total.extra + price.extra);
        if let Some(usd) = price.usd {
            total.usd = Some(total.usd.unwrap_or(0.0) + usd);
        }
    }

    /// The request as sent through the cache model (its store shared by every turn), checked
    /// against what the provider billed when the record has usage (SESSIONS.md section 3,
    /// "Checked against the bill"). The model runs in provider tokens: the turn's own ratio of
    /// billed to exact tokens (else its provider and model's median so far) scales the
    /// provider's minimum and step, and Anthropic's tool-use prompt sits before the tools.
    pub(super) fn model_sent(&mut self, turn: &SentTurn<'_>) -> SentCache {
        let &SentTurn {
            read,
            head,
            rest,
            ids,
            context_tokens,
            prompt_tokens,
            time_ms,
            failed,
            cached_before,
            usage,
            group,
            media,
            media_at,
        } = turn;
        let (seed, openai, rules) = (read.seed, read.openai, &read.rules);
        self.hashed_turns += usize::from(read.hashed);
        self.count_assumed(&read.who);
        if failed {
            return SentCache::default();
        }
        if time_ms.is_some() {
            self.timed.timed += 1;
        } else {
            self.timed.untimed += 1;
        }
        self.fill_boundaries(seed, head, ids, context_tokens, None, rest);
        let group = group.unwrap_or_default();
        let left_out = usage.and_then(|u| left_out_of_calibration(u, read, media));
        let usable = usage.filter(|_| left_out.is_none());
        let billed = |u: &Usage| {
            if openai {
                u.input
            } else {
                u.input + u.cache_read + u.cache_write
            }
        };
        let own_ratio = usable
            .map(|u| billed(&u).saturating_sub(read.overhead as u64))
            .filter(|&b| b > 0 && prompt_tokens > 0)
            .map(|b| b as f64 / prompt_tokens as f64);
        // A bill no tokenizer explains (a scrubbed body): its own ratio still places the cache,
        // but it calibrates nothing and its amounts are never judged (see `scrubbed_turn`).
        let scrubbed = own_ratio.is_some_and(|r| calibration::scrubbed(r, prompt_tokens));
        let ratio = own_ratio
            .or_else(|| self.calibration.ratio_for(group))
            .unwrap_or(1.0)
            .max(0.05);
        let offset = (read.overhead as f64 / ratio).round() as usize;
        for boundary in &mut self.boundaries {
            boundary.tokens += offset;
        }
        let mut exact = *rules;
        exact.min_tokens = (rules.min_tokens as f64 / ratio).ceil() as usize;
        exact.step = ((rules.step as f64 / ratio).round() as usize).max(1);
        let mut total = prompt_tokens + offset;
        if let (Some(at), Some(u)) = (media_at, usage)
            && media.is_some()
        {
            let seen = billed(&u).saturating_sub(read.overhead as u64) as f64 / ratio;
            total += self.pad_media(u, seen, prompt_tokens, at, (head.len(), rest.len()));
        }
        let mut m = self
            .sent_store
            .request(&self.boundaries, total, time_ms, &exact);
        // A common prefix inside a block is read at once, but by a provider of whole units.
        if exact.openai && !exact.units {
            self.inner_prefix(&mut m, seed, head.len(), total, time_ms, &exact);
        }
        let price = price_per_million(&self.settings, &read.model).map(|p| p * ratio);
        // The cached prefix is kept without the tool-use prompt's offset, which each turn's own
        // ratio converts differently: the same prefix is the same tokens on every turn.
        // A thread whose previous turn cached nothing (no breakpoint) held no prefix, the
        // tool-use prompt's included: nothing to lose.
        let lost = cached_before
            .filter(|&c| c > 0)
            .and_then(|c| break_price(&m, c + offset, rules, price));
        self.add_break(lost);
        let mut sent = SentCache {
            modelled: Some(CacheFigures::modelled(&m)),
            cached: Some((m.read + m.written()).saturating_sub(offset)),
            break_price: lost,
            ..SentCache::default()
        };
        let longest_before = self.longest_sent.get(&group).copied().unwrap_or_default();
        let this_prompt = usage
            .filter(|u| u.server_tool.is_none() && !u.cache_unknown)
            .map_or(total as f64 * ratio, |u| billed(&u) as f64);
        let longest = self.longest_sent.entry(group).or_default();
        longest.tokens = longest.tokens.max(this_prompt);
        longest.server_tool = longest.server_tool.or(usage.and_then(|u| u.server_tool));
        let Some(usage) = usage else {
            self.calibration.unbilled();
            return sent;
        };
        self.agreement.turns += 1;
        let seen = observed(usage, read);
        let bill = bill_of(&seen, &usage, rules);
        self.calibration.bill(group, bill, billed(&usage) as f64);
        if let Some(r) = own_ratio.filter(|_| !scrubbed) {
            self.calibration.push(group, r, prompt_tokens);
            sent.calibration = Some((r * 10_000.0).round() / 10_000.0);
        } else if scrubbed {
            let prompt = billed(&usage).saturating_sub(read.overhead as u64);
            sent.uncalibrated = Some(self.scrubbed_turn(group, (prompt, bill), prompt_tokens));
        } else {
            self.calibration.exclude();
            // Media the trace cannot count, a server-side tool, a stored response: the bill
            // holds tokens the request does not, and every strategy pays them.
            if !usage.cache_unknown && !read.hashed && left_out.is_some() {
                let prompt = billed(&usage).saturating_sub(read.overhead as u64);
                self.calibration
                    .unseen(group, (prompt as f64, bill), prompt_tokens);
            }
            sent.uncalibrated =
                Some(left_out.unwrap_or_else(|| "no input billed, or an empty prompt".to_owned()));
        }
        sent.observed = Some(seen);
        let reads_new = self.first_unread_block_is_new(m.read, head, rest);
        let judged_on = (time_ms, reads_new, longest_before);
        let reason = self.not_judged(usage, &seen, &m, read, (ratio, total), &exact, judged_on);
        if let Some(reason) = reason {
            sent.not_judged = Some(reason);
            return sent;
        }
        self.judge(&mut sent, &seen, &m, (usage, read), ratio, scrubbed);
        sent
    }

    /// A turn whose provider was assumed or named, counted by host for the header.
    fn count_assumed(&mut self, who: &super::provider::Identified) {
        if matches!(who.told, Told::Assumed | Told::Named) {
            let key = (who.host.clone(), who.provider.id(), who.told.id());
            *self.assumed.entry(key).or_default() += 1;
        }
    }

    /// A turn whose body its recorder scrubbed (`prompt` provider tokens billed, costing
    /// `bill`, for `tokens` counted): left out of calibration, what it billed beyond the request
    /// paid by every strategy alike; its amounts are never judged (they would agree through a
    /// ratio fitted to them). Returns why it has no ratio.
    fn scrubbed_turn(&mut self, group: usize, (prompt, bill): (u64, f64), tokens: usize) -> String {
        self.calibration.exclude();
        self.calibration
            .unseen(group, (prompt as f64, bill), tokens);
        format!(
            "{} ({prompt} provider tokens billed for {tokens} counted): amounts not judged",
            calibration::SCRUBBED
        )
    }

    /// Judge a turn's modelled cache against the bill: the states, and the amounts within the
    /// tolerance (a server-side tool's turn, a turn with media and a scrubbed one on their state
    /// only).
    fn judge(
        &mut self,
        sent: &mut SentCache,
        seen: &CacheFigures,
        m: &cache::Modelled,
        (usage, read): (Usage, &TurnRead<'_>),
        ratio: f64,
        scrubbed: bool,
    ) {
        let rules = &read.rules;
        let provider_tokens = |n: usize| n as f64 * ratio;
        self.agreement.judged += 1;
        let same_state = seen.state == m.state();
        // A turn left out of calibration (its bill holds what its request does not) is
        // judged on its state.
        let amounts = usage.server_tool.is_some()
            || read.media
            || sent.uncalibrated.is_some()
            || scrubbed
            || (verdict::within(provider_tokens(m.read), seen.read, rules.step.max(1))
                && (!read.who.provider.rules().is_some_and(|r| r.reports_writes)
                    || verdict::within(provider_tokens(m.written()), seen.write, 1)));
        let agrees = same_state && amounts;
        self.agreement.agree += usize::from(agrees);
        sent.agrees = Some(agrees);
        if !same_state {
            sent.disagreement = Some(disagreement::explain(seen, m, rules, &self.settings));
        } else if !amounts {
            sent.disagreement = Some(disagreement::amounts_differ(seen, m, ratio));
        }
    }

    /// The rest of the prompt counted ([`Self::count_pieces`]), why media keep the turn out
    /// of calibration (media the provider's rule counts calibrate), and the long blocks'
    /// text kept where the cache is automatic. The reasoning its response wrote (`usage`) is
    /// then known to the later requests that send it back.
    pub(super) fn count_rest(
        &mut self,
        read: &TurnRead<'_>,
        failed: bool,
        usage: Option<&Usage>,
    ) -> (Vec<Counted>, Option<&'static str>, Option<usize>) {
        let (rest, uncounted, media_at) = self.count_pieces(&read.pieces, read.family);
        self.reasoning_tokens
            .extend(usage.and_then(|u| u.reasoning));
        let media = read.media_left_out(uncounted);
        self.note_texts(&read.pieces, rest.iter(), read.rules.openai && !failed);
        (rest, media, media_at)
    }

    /// Keep the text of this request's long blocks (reusing the previous request's where a
    /// block is the same), for [`Self::inner_prefix`].
    pub(super) fn note_texts<'c>(
        &mut self,
        pieces: &[prompt::Piece<'_>],
        counts: impl Iterator<Item = &'c Counted>,
        automatic: bool,
    ) {
        self.block_texts.clear();
        if !automatic {
            return;
        }
        let known: FxHashMap<u64, &Arc<str>> = self
            .previous_prompt
            .values()
            .flat_map(|p| &p.texts)
            .filter_map(|(hash, text)| Some((*hash, text.as_ref()?)))
            .collect();
        let texts = pieces.iter().zip(counts).map(|(piece, &(_, tokens, _))| {
            let text = (tokens >= INNER_PREFIX_TOKENS).then(|| {
                known.get(&piece.hash).map_or_else(
                    || Arc::from(prompt::text(piece.value).as_str()),
                    |t| Arc::clone(t),
                )
            });
            (piece.hash, text)
        });
        self.block_texts = texts.collect();
    }

    /// OpenAI caches token prefixes, not block prefixes: where the first block this prompt
    /// does not share with the previous one of its seed begins with the same text, the read
    /// reaches into it (at `min_tokens` plus whole steps). Remembers this prompt for the next.
    fn inner_prefix(
        &mut self,
        m: &mut cache::Modelled,
        seed: u64,
        head: usize,
        total: usize,
        time_ms: Option<i64>,
        rules: &cache::Rules,
    ) {
        let hashes: Vec<u64> = self.boundaries.iter().map(|b| b.hash).collect();
        let tools = self.boundaries.len().saturating_sub(self.block_texts.len());
        let texts = std::mem::take(&mut self.block_texts);
        let previous = self.previous_prompt.insert(
            seed,
            PreviousPrompt {
                hashes: hashes.clone(),
                texts: texts.clone(),
                head,
                tools,
                time_ms,
            },
        );
        let Some(previous) = previous else {
            return;
        };
        let alive = match (time_ms, previous.time_ms) {
            (Some(now), Some(then)) => now.saturating_sub(then) <= rules.ttl_ms as i64,
            _ => true,
        };
        // The blocks both prompts share, and the first they do not.
        let k = hashes
            .iter()
            .zip(&previous.hashes)
            .take_while(|(a, b)| a == b)
            .count();
        // The block's place among the texts: tools hold none.
        let place = |k: usize, head: usize, tools: usize| match k {
            _ if k < head => Some(k),
            _ if k < head + tools => None,
            _ => Some(k - tools),
        };
        let (Some(now_at), Some(then_at)) = (
            place(k, head, tools),
            place(k, previous.head, previous.tools),
        ) else {
            return;
        };
        if !alive || k < head && then_at != now_at {
            return;
        }
        let (Some((_, Some(now))), Some((_, Some(then)))) =
            (texts.get(now_at), previous.texts.get(then_at))
        else {
            return;
        };
        let mut same = now
            .bytes()
            .zip(then.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        while !now.is_char_boundary(same) {
            same -= 1;
        }
        if same == 0 {
            return;
        }
        let before = k.checked_sub(1).map_or(0, |i| self.boundaries[i].tokens);
        let common = (before + self.counter.count(&now[..same])).min(total);
        if common < rules.min_tokens {
            return;
        }
        let step = rules.step.max(1);
        let read = rules.min_tokens + (common - rules.min_tokens) / step * step;
        if read > m.read {
            m.read = read;
            m.input = total - read;
        }
    }

    /// Why a turn with usage cannot be judged, if it cannot: its cache figures are unknown,
    /// its provider is not modelled, its text is hashed, a server-side tool's figures are not
    /// the request's, or the provider read a prefix no request of the trace wrote (adopted
    /// then as cached: the cache was warmed before the trace began).
    #[allow(clippy::too_many_arguments)]
    fn not_judged(
        &mut self,
        usage: Usage,
        seen: &CacheFigures,
        m: &cache::Modelled,
        read: &TurnRead<'_>,
        (ratio, total): (f64, usize),
        exact: &cache::Rules,
        (time_ms, reads_new, longest): (Option<i64>, bool, LongestSent),
    ) -> Option<String> {
        let provider_tokens = |n: usize| n as f64 * ratio;
        let prompt_provider = provider_tokens(total);
        let slack = (seen.read as f64 * verdict::TOLERANCE).max(verdict::TOLERANCE_TOKENS as f64);
        // Longer than every earlier request to this provider and model: none of them wrote it,
        // whatever the model's minimum says.
        let unwritten = seen.read as f64
            > longest.tokens * (1.0 + verdict::TOLERANCE) + verdict::TOLERANCE_TOKENS as f64;
        // Breakpoints: the provider read past the model's read into a block no earlier turn
        // sent, or wrote nothing where the model writes one: that prefix was cached before.
        let beyond_the_trace = reads_new
            && m.marks > 0
            && m.expired.is_none()
            && read.who.provider.rules().is_some_and(|r| r.reports_writes)
            && (seen.read as f64 > provider_tokens(m.read) + slack
                || (seen.write == 0
                    && m.written() > 0
                    && seen.read as f64 + slack >= provider_tokens(m.read + m.written())));
        if usage.cache_unknown {
            Some("the response gives no cache figures (null or missing): unknown, not 0".to_owned())
        } else if read.who.provider.rules().is_none() {
            let host = read.who.host.as_deref().unwrap_or("unknown host");
            Some(match read.who.provider.not_modelled() {
                Some(why) => format!(
                    "provider not modelled: {} ({host}): {why}",
                    read.who.provider.id()
                ),
                None => format!("provider not modelled: {host}"),
            })
        } else if read.hashed {
            Some("the trace's text is hashed: not the prompt the provider read".to_owned())
        } else if let Some(stored) = read.stored_context {
            Some(stored.reason().to_owned())
        } else if let Some(tool) = usage.server_tool
            && (seen.input + seen.read + seen.write) as f64 > 1.5 * prompt_provider
        {
            Some(format!(
                "a server-side tool ran ({tool}): the provider's figures hold prompts the request does not"
            ))
        } else if beyond_the_trace
            || unwritten
            || (seen.read as f64 > provider_tokens(m.read) + slack || m.read == 0 && seen.read > 0)
                && provider_tokens(m.read) < 0.5 * seen.read as f64
                && m.expired.is_none()
                && (exact.openai || m.marks > 0)
                && m.short.is_none_or(|_| m.read > 0)
        {
            // Read though no request of the trace wrote it: warmed before the trace began.
            let upto = (seen.read as f64 / ratio * (1.0 + verdict::TOLERANCE)) as usize;
            let life = if exact.openai && exact.long_retention {
                exact.ttl_long_ms
            } else {
                exact.ttl_ms
            };
            let adopted = self.sent_store.adopt(&self.boundaries, upto, time_ms, life);
            self.warmed = Some(cache::Warmed {
                tokens: upto,
                read: (seen.read as f64 / ratio).round() as usize,
                life_ms: life,
            });
            let adopted = if exact.openai {
                seen.read as f64
            } else {
                provider_tokens(adopted).round()
            };
            Some(match longest.server_tool {
                Some(tool) if unwritten => format!(
                    "read what a server-side tool cached: the provider read {} tokens, more than any earlier request of the trace sent, after a turn whose {tool} ran in the provider's own passes; {adopted} adopted as cached from here",
                    seen.read
                ),
                _ => format!(
                    "cache warmed before the trace: the provider read {} tokens no earlier request of the trace wrote; {adopted} adopted as cached from here",
                    seen.read
                ),
            })
        } else {
            None
        }
    }

    /// Media the trace cannot count: the bill tells how long the prompt was (`seen`, in exact
    /// tokens), and what the text does not account for sits in the block that holds them, so
    /// the cache's minimum and prefixes fall where the provider's do. Returns the tokens added.
    fn pad_media(
        &mut self,
        usage: Usage,
        seen: f64,
        prompt_tokens: usize,
        at: usize,
        (head, rest): (usize, usize),
    ) -> usize {
        if usage.cache_unknown || usage.server_tool.is_some() {
            return 0;
        }
        let extra = (seen - prompt_tokens as f64).max(0.0).round() as usize;
        let first = if at < head {
            at
        } else {
            self.boundaries.len().saturating_sub(rest) + (at - head)
        };
        for boundary in self.boundaries.iter_mut().skip(first) {
            boundary.tokens += extra;
        }
        extra
    }

    /// Whether the first block past `read_tokens` (the model's read) is one no earlier turn
    /// sent (a system or message block; a tool's entry is not told).
    fn first_unread_block_is_new(
        &self,
        read_tokens: usize,
        head: &[Counted],
        rest: &[Counted],
    ) -> bool {
        let Some(i) = self.boundaries.iter().position(|b| b.tokens > read_tokens) else {
            return false;
        };
        let tools_end = self.boundaries.len().saturating_sub(rest.len());
        let hash = if i < head.len() {
            head[i].0
        } else if i >= tools_end {
            rest[i - tools_end].0
        } else {
            return false;
        };
        self.new_blocks.contains(&hash)
    }

    /// The block boundaries of one request in provider order: the blocks before the tools
    /// (OpenAI's instructions), the tools in the model's context (their tokens summing to
    /// `context_tokens`), the added text, then the rest.
    pub(super) fn fill_boundaries(
        &mut self,
        seed: u64,
        head: &[Counted],
        ids: &[u32],
        context_tokens: usize,
        added: Option<(u64, usize)>,
        rest: &[Counted],
    ) {
        let boundaries = &mut self.boundaries;
        boundaries.clear();
        let mut hash = seed;
        let mut tokens = 0usize;
        for &(block, n, mark) in head {
            hash = prompt::extend(hash, block);
            tokens += n;
            boundaries.push(cache::Boundary { hash, tokens, mark });
        }
        let before_tools = tokens;
        let first_tool = boundaries.len();
        for &id in ids {
            let entry = self.entries.get(id);
            if entry.deferred {
                continue;
            }
            hash = prompt::extend(hash, entry.content);
            tokens += entry.tokens;
            boundaries.push(cache::Boundary {
                hash,
                tokens,
                mark: entry.mark,
            });
        }
        // The array's exact count differs from the sum of its entries by the brackets and
        // commas: the last tool's boundary takes the difference.
        let n = boundaries.len();
        if n > first_tool {
            let floor = if n > first_tool + 1 {
                boundaries[n - 2].tokens
            } else {
                before_tools
            };
            let target = (before_tools + context_tokens).max(floor + 1);
            boundaries[n - 1].tokens = target;
            tokens = target;
        }
        if let Some((added_hash, added_tokens)) = added {
            hash = prompt::extend(hash, added_hash);
            tokens += added_tokens;
            boundaries.push(cache::Boundary {
                hash,
                tokens,
                mark: None,
            });
        }
        for &(block, n, mark) in rest {
            hash = prompt::extend(hash, block);
            tokens += n;
            boundaries.push(cache::Boundary { hash, tokens, mark });
        }
    }
}

/// The cache the provider reported. A write figure where the provider's cache has none to
/// report (OpenAI's own) is no state of its cache: what it wrote is input.
fn observed(usage: Usage, read: &TurnRead<'_>) -> CacheFigures {
    let mut seen = CacheFigures::observed(usage, read.openai);
    if seen.write > 0 && !read.who.provider.rules().is_some_and(|r| r.reports_writes) {
        seen.input += seen.write;
        seen.write = 0;
        seen.state = cache::state(seen.read, 0);
    }
    if usage.cache_unknown {
        seen.state = "unknown";
    }
    seen
}

/// Why a turn's bill cannot calibrate the exact count, if it cannot.
fn left_out_of_calibration(
    usage: Usage,
    read: &TurnRead<'_>,
    media: Option<&'static str>,
) -> Option<String> {
    if usage.cache_unknown {
        Some("its cache figures are unknown".to_owned())
    } else if let Some(tool) = usage.server_tool {
        Some(format!(
            "a server-side tool ran ({tool}): its bill holds prompts the request does not"
        ))
    } else if read.hashed {
        Some("the trace's text is hashed".to_owned())
    } else if let Some(stored) = read.stored_context {
        Some(stored.reason().to_owned())
    } else {
        media.map(|why| format!("media not counted: {why}"))
    }
}
