//! Sessions: what a tool list costs across a whole trace (SESSIONS.md sections 2 and 3).
//!
//! An [`Analyzer`] takes a trace's records one at a time and keeps only what the analysis needs
//! of each: its tools entries (stored once per distinct compact JSON, shared across turns), a
//! few fingerprints, usage and metadata. Bodies are dropped as soon as a record is read, so a
//! trace of hundreds of megabytes is analysed in bounded memory.
//!
//! Per turn it derives the facts of section 2 (against the previous turn of the same thread:
//! tools added, removed, changed, reordered, the first changed byte; the observed cache and the
//! chain check). Per strategy it projects every turn with that turn's own context, memoized by
//! (tools, the context the strategy reads, zero's loaded set), and derives prefix stability,
//! the reason for each change, totals, breaks and the cost model of section 3. The result, a
//! [`SessionReport`], is plain data: `session --json` serializes it and the TUI draws it.

pub mod cache;
pub mod compare;
pub mod context;
pub mod live;
pub mod pick;
pub mod prompt;
pub mod provider;
pub mod verdict;

pub mod append;
mod append_request;
mod appended;
mod calibration;
mod chain;
mod diagnosis;
mod disagreement;
mod entries;
mod inline;
mod media;
pub mod models;
mod prices;
mod read;
mod reading;
mod replay;
mod schema;
mod summary;
mod tools;
pub mod transcript;

pub use append::{AppendFigures, ChangeForm};
pub use append_request::{AppendRequest, BetaPlace, append_request};
pub use diagnosis::{DiagnosisAgreement, DiagnosisDisagreement, ProviderDiagnosis};
pub use prices::{
    ASSUMED_READ, min_tokens_for, openai_read_for, price_per_million, rules_for, rules_with,
};
pub use reading::analyse_trace;
pub use schema::{
    Agreement, BreakCause, BreakCost, BreakPrice, CacheFigures, Calibration, CalibrationGroup,
    ChainState, Deferral, DeferralSaving, IgnoredRecord, JSON_VERSION, ModelRates, SessionReport,
    StrategySession, StrategyTurn, ThreadSummary, ToolUse, TraceInfo, TraceSummary, TurnFacts,
    UnknownModel, UsageFigures, VersusOriginal,
};

use std::collections::BTreeSet;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::capture::Capture;
use crate::error::LoadError;
use crate::measure::TokenCounter;
use crate::settings::Settings;
use crate::strategies::registry::reads;
use crate::strategy::{Input, Strategy};
use crate::trace::{RecordBody, TraceRecord, Usage};

use calibration::{AgreementCount, Calibrator};
use chain::{ChainPoint, PreviousPrompt, SentTurn, Timed, chain_check};
use entries::EntryStore;
use media::{Family, MediaTokens, Uncounted};
use prompt::Ttl;
use read::{TurnRead, Wants};
use replay::{MemoKey, Projected, Replay, RowsOf, StrategyPoint};
use tools::ToolTally;

/// Where an [`Analyzer`] puts each turn once it is finished, instead of keeping it: the rows
/// of a trace of millions of turns are written out (`session` spools them to a temporary file)
/// and the analysis keeps only what later turns need. Without a sink they stay in the
/// [`SessionReport`] (`turns` and each strategy's `per_turn`), as the TUI reads them.
pub trait TurnSink {
    /// One finished turn: its facts and each strategy's row, in the analysis's strategy order.
    fn turn(&mut self, facts: &TurnFacts, rows: &[StrategyTurn]);
}

impl<T: TurnSink + ?Sized> TurnSink for &mut T {
    fn turn(&mut self, facts: &TurnFacts, rows: &[StrategyTurn]) {
        (**self).turn(facts, rows);
    }
}

#[derive(Debug)]
struct ThreadState {
    id: String,
    key: String,
    turns: usize,
    first_turn: usize,
    /// The last turn with known tools (for the facts, failed calls included).
    last_tools: Option<(Arc<[u32]>, bool, usize)>,
    chain: Option<ChainPoint>,
    /// Tokens the thread's last request as sent left cached (the model's).
    sent_cached: Option<usize>,
    loaded: BTreeSet<String>,
    strategies: Vec<Option<StrategyPoint>>,
    /// Messages in the thread's last request (system messages after them are appended).
    messages: usize,
    /// A hash of the last request's top-level `system` (the prefix check's).
    system: Option<u64>,
    /// `append`'s kept list and the system messages it placed.
    append: append::AppendThread,
    /// [`appended::last_messages`] of its last request.
    last_messages: Option<(usize, u64, String)>,
}

/// What a trace record says of its request besides the body.
struct RequestRecord {
    url: Option<String>,
    failed: bool,
    source: String,
    timestamp: Option<String>,
    time_ms: Option<i64>,
    status: Option<u16>,
    usage: Option<Usage>,
    /// What the response said of the prefix check.
    answer: Option<crate::trace::PrefixAnswer>,
}

/// One distinct block's count under one image rule.
#[derive(Debug, Clone, Copy)]
struct PieceCount {
    tokens: u32,
    /// Why media in it are not counted.
    uncounted: Option<Uncounted>,
}

/// Reads a trace's records one at a time and builds the [`SessionReport`].
pub struct Analyzer<'a> {
    counter: &'a TokenCounter,
    settings: Settings,
    strategies: Vec<Strategy>,
    /// What those strategies read beyond the tool list.
    wants: Wants,
    thread_filter: Option<String>,
    /// Every distinct tool entry (the captures' and the projections'), stored once.
    entries: EntryStore,
    loaded_sets: FxHashMap<BTreeSet<String>, u32>,
    /// Each distinct projection, by what its strategy reads.
    memo: FxHashMap<MemoKey, Arc<Projected>>,
    /// Each prompt block's token change under a strategy's tool change edits, by block.
    inline_memo: inline::Memo,
    threads: Vec<ThreadState>,
    thread_index: FxHashMap<String, usize>,
    last_thread: Option<usize>,
    turns: Vec<TurnFacts>,
    per_turn: Vec<Vec<StrategyTurn>>,
    /// Takes each finished turn instead of `turns` and `per_turn`.
    sink: Option<Box<dyn TurnSink + Send + 'a>>,
    /// Turns finished (kept or given to the sink).
    kept: usize,
    /// Per strategy (in `strategies` order): its cache, sums and what it left out.
    replays: Vec<Replay>,
    turn_count: usize,
    projections_run: usize,
    /// Tokens of each distinct block after the tools (system, messages), by content hash:
    /// a conversation re-sends its prefix, and each block is counted once.
    piece_tokens: FxHashMap<(u64, Family), PieceCount>,
    /// The reasoning tokens of each encrypted reasoning item a response of the trace wrote,
    /// by its ciphertext's hash: what a later request that sends it back is billed for it.
    reasoning_tokens: FxHashMap<u64, u64>,
    /// The prompt cache of the requests as sent (what `modelled` and `agrees` check).
    sent_store: cache::Store,
    /// This turn's prefix found cached before the trace began, which `original`'s replay
    /// adopts too: its prompt is the one the provider had cached.
    warmed: Option<cache::Warmed>,
    /// Turns in the chain with a timestamp, and without one.
    timed: Timed,
    /// Observed / exact prompt tokens, per turn with usage and per provider and model, and
    /// what the provider billed.
    calibration: Calibrator,
    /// Turns with usage, those judged, and those that agree.
    agreement: AgreementCount,
    /// Turns whose text is hashed ([`TraceSummary::hashed_turns`]).
    hashed_turns: usize,
    /// Turns of hosts whose provider was assumed or named, by host, provider and how.
    assumed: std::collections::BTreeMap<(Option<String>, &'static str, &'static str), usize>,
    break_cost: BreakCost,
    /// `append`'s figures over the session.
    append: append::AppendTotals,
    /// Each tool's sends, calls and tokens.
    tool_tally: ToolTally,
    boundaries: Vec<cache::Boundary>,
    /// Automatic caching: the text of this request's long blocks (system and messages, in
    /// order), and per seed the previous request's boundaries, texts and time, to find a
    /// common token prefix inside the first block two prompts do not share.
    block_texts: Vec<(u64, Option<Arc<str>>)>,
    previous_prompt: FxHashMap<u64, PreviousPrompt>,
    /// The blocks (system, messages) this turn sends that no earlier turn sent: no request
    /// of the trace can have cached a prefix that holds one.
    new_blocks: FxHashSet<u64>,
    /// Per calibration group, the longest request sent so far.
    longest_sent: FxHashMap<usize, chain::LongestSent>,
    /// The provider's diagnoses beside toolprism's.
    diagnoses: diagnosis::Diagnoses,
    /// Models the tables do not name, with their turns (the first [`UNKNOWN_MODELS`]).
    unknown_models: Vec<(String, usize)>,
}

/// The models the tables do not name that the report lists.
const UNKNOWN_MODELS: usize = 20;

/// One block of a prompt, counted: its hash, tokens and breakpoint.
type Counted = (u64, usize, Option<Ttl>);

impl<'a> Analyzer<'a> {
    /// An analysis of `strategies` under `settings`, counting with `counter`. With
    /// `thread_filter` (a thread's id or key), only that thread's turns are kept and projected.
    pub fn new(
        strategies: &[Strategy],
        settings: &Settings,
        counter: &'a TokenCounter,
        thread_filter: Option<String>,
    ) -> Analyzer<'a> {
        let mut loaded_sets = FxHashMap::default();
        loaded_sets.insert(BTreeSet::new(), 0);
        Analyzer {
            counter,
            settings: settings.clone(),
            strategies: strategies.to_vec(),
            wants: Wants {
                context: strategies.iter().any(|&s| reads(s, Input::Context)),
                loaded: strategies.iter().any(|&s| reads(s, Input::Loaded)),
            },
            thread_filter,
            entries: EntryStore::default(),
            loaded_sets,
            memo: FxHashMap::default(),
            inline_memo: inline::Memo::default(),
            threads: Vec::new(),
            thread_index: FxHashMap::default(),
            last_thread: None,
            turns: Vec::new(),
            per_turn: vec![Vec::new(); strategies.len()],
            sink: None,
            kept: 0,
            replays: (0..strategies.len()).map(|_| Replay::default()).collect(),
            turn_count: 0,
            projections_run: 0,
            piece_tokens: FxHashMap::default(),
            reasoning_tokens: FxHashMap::default(),
            sent_store: cache::Store::default(),
            warmed: None,
            timed: Timed::default(),
            calibration: Calibrator::default(),
            agreement: AgreementCount::default(),
            hashed_turns: 0,
            assumed: std::collections::BTreeMap::new(),
            break_cost: BreakCost::default(),
            append: append::AppendTotals::default(),
            tool_tally: ToolTally::default(),
            boundaries: Vec::new(),
            block_texts: Vec::new(),
            previous_prompt: FxHashMap::default(),
            new_blocks: FxHashSet::default(),
            longest_sent: FxHashMap::default(),
            diagnoses: diagnosis::Diagnoses::default(),
            unknown_models: Vec::new(),
        }
    }

    /// Give each finished turn to `sink` instead of keeping it: the report's `turns` and
    /// `per_turn` are then empty, and its totals the same.
    pub fn with_sink(mut self, sink: Box<dyn TurnSink + Send + 'a>) -> Analyzer<'a> {
        self.sink = Some(sink);
        self
    }

    /// Turns finished so far (those of the chosen thread, with a filter).
    pub fn kept_turns(&self) -> usize {
        self.kept
    }

    /// A finished turn: summed into the totals, then kept or given to the sink.
    fn keep(&mut self, facts: TurnFacts, rows: Vec<StrategyTurn>) {
        self.kept += 1;
        for (replay, row) in self.replays.iter_mut().zip(&rows) {
            replay.totals.add(row);
        }
        match self.sink.as_mut() {
            Some(sink) => sink.turn(&facts, &rows),
            None => {
                for (list, row) in self.per_turn.iter_mut().zip(rows) {
                    list.push(row);
                }
                self.turns.push(facts);
            }
        }
    }

    /// Whether a thread of this id or key has been seen.
    pub fn has_thread(&self, thread: &str) -> bool {
        self.threads
            .iter()
            .any(|t| t.id == thread || t.key == thread)
    }

    /// Distinct tool entries stored so far (originals and projected ones).
    pub fn distinct_entries(&self) -> usize {
        self.entries.all().len()
    }

    /// Projections run so far (the rest came from the memo).
    pub fn projections_run(&self) -> usize {
        self.projections_run
    }

    /// Read one record. A body that is not a request toolprism knows is an error (the caller
    /// names the file and the record's source); nothing of the record is kept then.
    pub fn push(&mut self, record: TraceRecord) -> Result<(), LoadError> {
        let failed = record.failed();
        let TraceRecord {
            source,
            timestamp,
            time_ms,
            status,
            body,
            usage,
            agent_id,
            url,
            betas,
            prefix_answer,
            ..
        } = record;
        let body = match body {
            RecordBody::CompactionStub => {
                self.turn_count += 1;
                // A stub stands for a request of the conversation under way (none before the
                // first request).
                let (turn, thread) = (self.turn_count, self.last_thread);
                self.push_stub(turn, thread, source, timestamp, time_ms, usage, status);
                return Ok(());
            }
            RecordBody::Request(body) => body,
        };
        let capture = Capture::from_value(body)?
            .with_betas(betas)
            .with_url_model(url.as_deref().and_then(provider::model_in_url));
        self.turn_count += 1;
        let turn = self.turn_count;
        let key = context::thread_key(&capture, agent_id.as_deref());
        let thread = self.thread_of(key, turn);
        self.last_thread = Some(thread);
        if self.wanted(thread) {
            let record = RequestRecord {
                url,
                failed,
                source,
                timestamp,
                time_ms,
                status,
                usage,
                answer: prefix_answer,
            };
            self.push_request(&capture, turn, thread, record);
        }
        Ok(())
    }

    /// One request of a wanted thread: its facts and every strategy's row, kept.
    fn push_request(
        &mut self,
        capture: &Capture,
        turn: usize,
        thread: usize,
        record: RequestRecord,
    ) {
        let (failed, time_ms, usage) = (record.failed, record.time_ms, record.usage);
        // Everything the analysis takes from the capture besides its tools, read once.
        let mut read = TurnRead::of(
            capture,
            record.url.as_deref(),
            usage.is_some(),
            &self.settings,
            self.wants,
        );
        let (ids, array, [tools_tokens, tools_bytes, context_tokens]) =
            self.own_tools(capture, &read);

        // The rest of the prompt: counted once per turn for every strategy, each block once
        // per session. Automatic caching keeps the text of the long blocks.
        let (rest, media, media_at) = self.count_rest(&read, failed, usage.as_ref());
        let (head, rest) = rest.split_at(read.head);
        let rest_tokens: usize = head.iter().chain(rest).map(|r| r.1).sum();

        let (previous_turn, change) = self.list_change(thread, &ids, read.present);
        let answer = (record.status, record.answer.as_ref());
        let known = previous_turn.map(|_| &change);
        let mid = self.appended_of((capture, &read.model), thread, known, answer);
        let state = &self.threads[thread];

        // The observed cache, checked against the chain. Only a turn with usage is checked
        // against the next one's messages.
        let point = read.chain_point(turn, usage, time_ms, Arc::clone(&ids));
        let checked =
            (!failed).then(|| chain_check(state.chain.as_ref(), &point, read.rules.ttl_ms));
        let (cache, cache_break) = checked.unwrap_or((ChainState::Unknown, None));

        // The request as sent, through the cache model, against what the provider billed.
        let prompt_tokens = context_tokens + rest_tokens;
        read.date_overhead(usage.as_ref(), prompt_tokens, time_ms);
        let group = (!failed).then(|| self.calibration.group(read.group_key()));
        let sent = self.model_sent(&SentTurn {
            read: &read,
            head,
            rest,
            ids: &ids,
            context_tokens,
            prompt_tokens,
            time_ms,
            failed,
            cached_before: self.threads[thread].sent_cached,
            usage,
            group,
            media,
            media_at,
        });

        // Tool calls, and what each tool cost.
        let calls = self.tally_calls(&mut read, &ids);

        let (rows, newly_loaded) = self.replay_rows(
            capture,
            &mut read,
            &RowsOf {
                turn,
                thread,
                failed,
                time_ms,
                ids: &ids,
                array,
                head,
                rest,
                rest_tokens,
                group,
                tokens: (tools_tokens, context_tokens),
                change: &change,
            },
        );
        self.append_figures((capture, turn, answer.0), &rows, sent.break_price.as_ref());

        let (model_rates, provider_diagnosis) = self.beside(&read, &point, thread);
        let state = &mut self.threads[thread];
        state.last_tools = Some((Arc::clone(&ids), read.present, turn));
        (state.messages, state.system) = (capture.conversation().len(), Some(mid.system));
        state.last_messages = appended::last_messages(capture, &read.model);
        if !failed {
            state.sent_cached = sent.cached;
            state.chain = Some(point);
        }
        let facts = TurnFacts {
            turn,
            thread: state.id.clone(),
            timestamp: record.timestamp,
            source: record.source,
            shape: Some(read.shape.id()),
            tools: Some(mid.in_effect.unwrap_or(ids.len())),
            tools_bytes: Some(tools_bytes),
            tools_tokens: Some(tools_tokens),
            context_tokens: Some(context_tokens),
            prompt_tokens: Some(prompt_tokens),
            previous_turn,
            added: change.added,
            removed: change.removed,
            changed: change.changed,
            order_changed: change.order_changed,
            first_changed_byte: change.first_changed_byte,
            first_changed_char: change.first_changed_char,
            first_changed_entry: change.first_changed_entry,
            usage: usage.map(UsageFigures::from),
            cache,
            cache_break,
            status: record.status,
            failed,
            stub: false,
            loaded: newly_loaded,
            observed: sent.observed,
            modelled: sent.modelled,
            agrees: sent.agrees,
            disagreement: sent.disagreement,
            calibration: sent.calibration,
            uncalibrated: sent.uncalibrated,
            provider: read.who.provider.id(),
            host: read.who.host.clone(),
            model_rates: Some(model_rates),
            provider_diagnosis,
            provider_by: Some(read.who.told.id()),
            server_tool: usage.and_then(|u| u.server_tool),
            not_judged: sent
                .not_judged
                .or_else(|| failed.then(|| verdict::failed_call(record.status))),
            break_price: sent.break_price,
            calls,
            time_ms,
            appended: mid.appended,
            prefix_check: mid.prefix_check,
            tool_change_problems: mid.problems,
        };
        self.keep(facts, rows);
    }

    /// The tool calls this turn shows first, counted against their tools.
    fn tally_calls(&mut self, read: &mut TurnRead<'_>, ids: &[u32]) -> Vec<String> {
        let calls = std::mem::take(&mut read.conversation.calls);
        let calls = self.tool_tally.new_calls(calls);
        self.tool_tally.count(&self.entries, ids, &calls);
        calls
    }

    /// The capture's own tools, stored once per distinct entry: their ids, whether the body
    /// has a `tools` key, the array's id, and its tokens, bytes and tokens in context.
    fn own_tools(
        &mut self,
        capture: &Capture,
        read: &TurnRead<'_>,
    ) -> (Arc<[u32]>, u32, [usize; 3]) {
        let counter = self.counter;
        let ids: Arc<[u32]> = self
            .entries
            .capture_entries(counter, capture.tools())
            .into();
        let present = read.present;
        let (array, tools_tokens) = self.entries.array(counter, read.shape, present, &ids);
        let tools_bytes = self.entries.bytes(&ids, present);
        let context_tokens = self.entries.context_tokens(counter, &ids, tools_tokens);
        (ids, array, [tools_tokens, tools_bytes, context_tokens])
    }

    /// The turn its thread sent tools last, and how this turn's list differs from that one.
    fn list_change(
        &self,
        thread: usize,
        ids: &[u32],
        present: bool,
    ) -> (Option<usize>, compare::ListChange) {
        match &self.threads[thread].last_tools {
            Some((before, before_present, turn)) => (
                Some(*turn),
                compare::compare(
                    self.entries.all(),
                    (before, *before_present),
                    (ids, present),
                ),
            ),
            None => (None, compare::ListChange::default()),
        }
    }

    /// zero's loaded set grows with every `tool_search` call the conversation shows: the names
    /// this turn adds to its thread's set, the set, and the set's id.
    fn grow_loaded(
        &mut self,
        found: BTreeSet<String>,
        thread: usize,
    ) -> (Vec<String>, BTreeSet<String>, u32) {
        let mut newly_loaded = Vec::new();
        let state = &mut self.threads[thread];
        for name in found {
            if state.loaded.insert(name.clone()) {
                newly_loaded.push(name);
            }
        }
        let loaded_set = self.threads[thread].loaded.clone();
        let loaded = self.loaded_id(&loaded_set);
        (newly_loaded, loaded_set, loaded)
    }

    /// Each block's tokens (counted once per distinct block and image rule, new ones in one
    /// batch) and its breakpoint, and why the turn's media are not counted, if they are not.
    /// A medium's payload is not counted as text: an image the provider's rule covers counts
    /// as that rule says ([`media`]).
    pub(super) fn count_pieces(
        &mut self,
        pieces: &[prompt::Piece<'_>],
        family: Family,
    ) -> (Vec<Counted>, Option<Uncounted>, Option<usize>) {
        self.new_blocks.clear();
        let new: Vec<&prompt::Piece<'_>> = pieces
            .iter()
            .filter(|p| {
                !self.piece_tokens.contains_key(&(p.hash, family)) && self.new_blocks.insert(p.hash)
            })
            .collect();
        if !new.is_empty() {
            let texts: Vec<(String, Option<MediaTokens>)> = new
                .par_iter()
                .map(|p| match p.value {
                    prompt::Canon::Json(value) => match media::strip(value, family) {
                        Some((stripped, found)) => {
                            (prompt::text(prompt::Canon::Json(&stripped)), Some(found))
                        }
                        None => (prompt::text(p.value), None),
                    },
                    other => (prompt::text(other), None),
                })
                .collect();
            let refs: Vec<&str> = texts.iter().map(|t| t.0.as_str()).collect();
            let counts = self.counter.count_many(&refs);
            for ((piece, n), (_, found)) in new.iter().zip(counts).zip(&texts) {
                let found =
                    found.map(|f| media::known_reasoning(piece.value, f, &self.reasoning_tokens));
                let thoughts = media::reread_thoughts(piece, &self.reasoning_tokens);
                let n = n + found.map_or(0, |f| f.tokens) + thoughts;
                let count = PieceCount {
                    tokens: u32::try_from(n).unwrap_or(u32::MAX),
                    uncounted: found.and_then(|f| f.uncounted),
                };
                self.piece_tokens.insert((piece.hash, family), count);
            }
        }
        let (mut uncounted, mut at) = (None, None);
        let counted = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let count = self.piece_tokens.get(&(p.hash, family)).copied();
                if let Some(why) = count.and_then(|c| c.uncounted) {
                    uncounted.get_or_insert(why);
                    at.get_or_insert(i);
                }
                (p.hash, count.map_or(0, |c| c.tokens as usize), p.mark)
            })
            .collect();
        (counted, uncounted, at)
    }

    #[allow(clippy::too_many_arguments)]
    fn push_stub(
        &mut self,
        turn: usize,
        thread: Option<usize>,
        source: String,
        timestamp: Option<String>,
        time_ms: Option<i64>,
        usage: Option<Usage>,
        status: Option<u16>,
    ) {
        if let Some(thread) = thread {
            if !self.wanted(thread) {
                return;
            }
            self.threads[thread].turns += 1;
        } else if self.thread_filter.is_some() {
            return;
        }
        let rows = (0..self.strategies.len())
            .map(|_| StrategyTurn {
                turn,
                tools_tokens: None,
                total_tokens: None,
                stable: None,
                first_changed_byte: None,
                reason: Some("compaction stub: its tools are unknown".to_owned()),
                status: None,
                context_tokens: None,
                prompt_tokens: None,
                state: None,
                read: None,
                write: None,
                input: None,
                cost: None,
                error: None,
                prefix_check: None,
            })
            .collect();
        let facts = TurnFacts {
            turn,
            thread: thread.map_or_else(|| "-".to_owned(), |t| self.threads[t].id.clone()),
            timestamp,
            source,
            shape: None,
            tools: None,
            tools_bytes: None,
            tools_tokens: None,
            context_tokens: None,
            prompt_tokens: None,
            previous_turn: None,
            added: Vec::new(),
            removed: Vec::new(),
            changed: Vec::new(),
            order_changed: false,
            first_changed_byte: None,
            first_changed_char: None,
            first_changed_entry: None,
            usage: usage.map(UsageFigures::from),
            cache: ChainState::Unknown,
            cache_break: None,
            status,
            failed: false,
            stub: true,
            loaded: Vec::new(),
            observed: None,
            modelled: None,
            agrees: None,
            disagreement: None,
            calibration: None,
            uncalibrated: None,
            provider: "unknown",
            host: None,
            model_rates: None,
            provider_diagnosis: usage.and_then(|u| u.diagnosis).map(|d| ProviderDiagnosis {
                reason: d.word(),
                part: d.part(),
                cache_missed_input_tokens: d.missed(),
                compared_with: None,
                toolprism: None,
                tool: None,
                first_changed_byte: None,
                agrees: None,
            }),
            provider_by: None,
            server_tool: None,
            not_judged: None,
            break_price: None,
            calls: Vec::new(),
            time_ms,
            appended: Vec::new(),
            prefix_check: None,
            tool_change_problems: Vec::new(),
        };
        self.keep(facts, rows);
    }

    /// The thread a key names, created on first sight.
    fn thread_of(&mut self, key: String, turn: usize) -> usize {
        let index = match self.thread_index.get(&key) {
            Some(&index) => index,
            None => {
                let index = self.threads.len();
                self.threads.push(ThreadState {
                    id: format!("t{}", index + 1),
                    key: key.clone(),
                    turns: 0,
                    first_turn: turn,
                    last_tools: None,
                    chain: None,
                    sent_cached: None,
                    loaded: BTreeSet::new(),
                    strategies: (0..self.strategies.len()).map(|_| None).collect(),
                    messages: 0,
                    system: None,
                    append: append::AppendThread::default(),
                    last_messages: None,
                });
                self.thread_index.insert(key, index);
                index
            }
        };
        self.threads[index].turns += 1;
        index
    }

    fn wanted(&self, thread: usize) -> bool {
        self.thread_filter
            .as_deref()
            .is_none_or(|f| f == self.threads[thread].id || f == self.threads[thread].key)
    }

    fn loaded_id(&mut self, set: &BTreeSet<String>) -> u32 {
        if let Some(&id) = self.loaded_sets.get(set) {
            return id;
        }
        let id = self.loaded_sets.len() as u32;
        self.loaded_sets.insert(set.clone(), id);
        id
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
