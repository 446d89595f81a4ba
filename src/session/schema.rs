//! The report: what `session --json` writes and the TUI draws (docs/SESSIONS.md, the JSON
//! contract). Plain data, serialized as it stands.

use serde::Serialize;
use serde_json::Value;

use super::cache;
use super::compare::Changed;
use crate::projection::Applies;
use crate::trace::Usage;

/// The whole analysis of a trace: what `session --json` prints and the TUI's session view shows.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SessionReport {
    /// The version of this JSON contract (docs/SESSIONS.md): 2 since the prefix-store model.
    pub version: u32,
    /// The trace itself.
    pub trace: TraceSummary,
    /// Every turn (of the chosen thread, with `--thread`), in trace order.
    pub turns: Vec<TurnFacts>,
    /// How often the model for `original` agrees with the cache the provider reported.
    pub agreement: Agreement,
    /// Where the provider diagnosed its cache, how often toolprism names the same part
    /// (`None`: no response had `diagnostics`).
    pub diagnosis: Option<super::DiagnosisAgreement>,
    /// Models of modelled providers the tables do not name, with their turns: their minimum,
    /// price and multipliers are unknown, and the cache model's values for them assumed.
    pub unknown_models: Vec<UnknownModel>,
    /// Observed prompt tokens against the exact count of the whole body (`None`: no usage).
    pub calibration: Option<Calibration>,
    /// What the breaks of the request as sent cost over the session ([`BreakPrice`] summed).
    pub break_cost: BreakCost,
    /// `append` (each change of a thread's tools as a mid-conversation system message) against
    /// `original`; absent when no thread's tool list changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub append: Option<super::append::AppendFigures>,
    /// Every tool the capture sent, with its calls and cost.
    pub tools: Vec<ToolUse>,
    /// Tools never called on the turns that sent them, and what deferring them would have
    /// saved.
    pub deferral: Deferral,
    /// Each requested strategy over those turns.
    pub strategies: Vec<StrategySession>,
    /// The strategy whose session cost is lowest among those that keep every tool reachable
    /// (ties: the first in the report's order).
    pub cheapest: Option<&'static str>,
    /// The lowest session cost of all, whether or not it keeps the tools (`disabled` sends
    /// none).
    pub cheapest_any: Option<&'static str>,
    /// Every setting's value (`Settings::KEYS` order), the cost model's among them.
    pub settings: serde_json::Map<String, Value>,
}

/// A model the tables do not name.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UnknownModel {
    /// The model as the requests name it.
    pub model: String,
    /// Its turns.
    pub turns: usize,
}

/// The JSON contract's version (`version`).
pub const JSON_VERSION: u32 = 2;

/// Turns whose modelled cache agrees with the observed one (SESSIONS.md section 3, "Checked
/// against the bill").
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Agreement {
    /// Turns with observed usage (failed calls and stubs left out).
    pub turns: usize,
    /// Of those, the turns judged: the others say why not (`agrees: null`).
    pub judged: usize,
    /// Judged turns whose modelled state equals the observed one and whose amounts are within
    /// the tolerance.
    pub agree: usize,
    /// `agree / judged` (`None` without judged turns).
    pub rate: Option<f64>,
}

/// The calibration of one provider and model.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CalibrationGroup {
    /// The provider's id.
    pub provider: &'static str,
    /// The model as the request names it.
    pub model: String,
    /// The robust median ratio over its qualifying turns; the session's when it has none.
    pub ratio: f64,
    /// Those turns.
    pub turns: usize,
    /// It has no qualifying turn: the session's ratio stands in for it.
    pub fallback: bool,
    /// Provider tokens each request bills that no request holds (a hidden system prompt, a
    /// built-in tool's definition, framing), where turns of different lengths tell it apart
    /// from the part per token; `null`: the ratio alone.
    pub fixed: Option<f64>,
    /// With `fixed`: provider tokens per exact token past it (what the cost is scaled by).
    pub per_token: Option<f64>,
}

/// Provider tokens per exact token (SESSIONS.md section 3).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Calibration {
    /// The robust median over the qualifying turns of observed prompt tokens / the exact count
    /// of the body (docs/SESSIONS.md, "Calibration").
    pub ratio: f64,
    /// Turns the median is over.
    pub turns: usize,
    /// Turns with usage left out: a server-side tool ran, or the cache figures are unknown.
    pub excluded: usize,
    /// Per provider and model.
    pub groups: Vec<CalibrationGroup>,
    /// What the provider billed for input over the session, in input tokens (reads and writes
    /// at the provider's prices), when every turn of the chain has usage.
    pub billed: Option<f64>,
    /// What the bill holds that no request does (media the trace cannot count, a server-side
    /// tool's own calls, a stored response), in input tokens, added to every strategy's
    /// `cost_provider`.
    pub unseen: f64,
}

/// One tool over the session.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ToolUse {
    /// Its name.
    pub name: String,
    /// Turns that sent it.
    pub sent_turns: usize,
    /// Calls the model made to it (each call counted once, however often it is re-sent).
    pub calls: usize,
    /// Tokens it cost over the session, at its context price.
    pub tokens: usize,
    /// Sent, and no visible call names it on the turns that sent it (calls in other threads,
    /// whose turns never sent it, do not count).
    pub never_called: bool,
    /// The MCP server of the trace that listed it (its `initialize` name), where one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

/// The deferral candidates (SESSIONS.md section 3, "Tool calls").
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Deferral {
    /// Tools no visible call names on the turns that sent them.
    pub candidates: Vec<String>,
    /// What they cost over the session, in tokens at their context price.
    pub tokens: usize,
    /// Per deferring strategy in the report: the tokens of those tools it did not send.
    pub savings: Vec<DeferralSaving>,
}

/// What one deferring strategy saved on the candidates.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DeferralSaving {
    /// The strategy id.
    pub strategy: &'static str,
    /// Tokens of candidate entries it kept out of the request, over the session.
    pub tokens: usize,
}

/// What was read, and what was not.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TraceSummary {
    /// The trace's path as given.
    pub path: String,
    /// The container's id (`claude-trace`, `har`, `jsonl`, ...).
    pub format: &'static str,
    /// `gzip` or `zstd` when the trace was compressed.
    pub compression: Option<&'static str>,
    /// Model calls read (turns of every thread).
    pub turns: usize,
    /// Records that are not model calls, each with why: the first
    /// [`crate::trace::IGNORED_KEPT`].
    pub ignored: Vec<IgnoredRecord>,
    /// Records that are not model calls, all of them.
    pub ignored_total: usize,
    /// Bad records skipped under `--skip-bad`.
    pub skipped: usize,
    /// The last line was cut short (a writer killed mid-record).
    pub torn_last_line: bool,
    /// Turns in the cache chain without a timestamp: there every prefix counts as within its
    /// lifetime.
    pub untimed_turns: usize,
    /// Turns whose text is hashed or redacted (cctrace's `[h:…]` and `s-…` tokens): not the
    /// prompt the provider read, so no agreement is judged on them and they calibrate nothing.
    pub hashed_turns: usize,
    /// Hosts toolprism does not know whose provider was assumed from the requests or named by
    /// `session.provider` (SESSIONS.md, "Providers"), by host.
    pub providers_assumed: Vec<AssumedProvider>,
    /// The conversations the turns belong to, in order of first appearance.
    pub threads: Vec<ThreadSummary>,
    /// The MCP servers whose `initialize` or `tools/list` exchanges the trace holds (left out
    /// when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<crate::trace::McpServer>,
}

/// A host whose provider was not told by the host itself.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct AssumedProvider {
    /// The host (`null`: none in the trace).
    pub host: Option<String>,
    /// The provider its turns were modelled as.
    pub provider: &'static str,
    /// `assumed` (from the requests' API and model) or `setting` (`session.provider`).
    pub by: &'static str,
    /// Its turns.
    pub turns: usize,
}

/// A record that is not a model call.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct IgnoredRecord {
    /// Where it is in the trace.
    pub source: String,
    /// Its HTTP method, when known.
    pub method: Option<String>,
    /// Its URL, when known.
    pub url: Option<String>,
    /// Why it is not a turn.
    pub reason: String,
}

impl From<&crate::trace::Ignored> for IgnoredRecord {
    fn from(ignored: &crate::trace::Ignored) -> IgnoredRecord {
        IgnoredRecord {
            source: ignored.source.clone(),
            method: ignored.method.clone(),
            url: ignored.url.clone(),
            reason: ignored.reason.clone(),
        }
    }
}

/// One conversation of the trace.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ThreadSummary {
    /// Its short id (`t1`, `t2`, ... in order of first appearance), as `--thread` takes it.
    pub id: String,
    /// What grouped its turns: `user_id ...`, `prompt_cache_key ...` or `hash ...`.
    pub key: String,
    /// Its turns.
    pub turns: usize,
    /// Its first turn's number.
    pub first_turn: usize,
}

/// Observed usage of one call, in the spec's words.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct UsageFigures {
    /// Input tokens as the provider reported them.
    pub input: u64,
    /// Tokens written to the cache.
    pub cache_write: u64,
    /// Tokens read from the cache.
    pub cache_read: u64,
    /// Of `cache_write`, those written for an hour (`null`: the response gives no split).
    pub cache_write_1h: Option<u64>,
}

impl From<Usage> for UsageFigures {
    fn from(usage: Usage) -> UsageFigures {
        UsageFigures {
            input: usage.input,
            cache_write: usage.cache_write,
            cache_read: usage.cache_read,
            cache_write_1h: usage.cache_write_1h,
        }
    }
}

/// The facts of one turn (SESSIONS.md section 2).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TurnFacts {
    /// 1-based, over the whole trace.
    pub turn: usize,
    /// Its thread's id.
    pub thread: String,
    /// The record's timestamp as written.
    pub timestamp: Option<String>,
    /// Where it is in the trace (`line 5`, `entry 3`, `002.json`).
    pub source: String,
    /// The request's API shape (`None` for a compaction stub).
    pub shape: Option<&'static str>,
    /// Tools sent (`None`: unknown, a compaction stub).
    pub tools: Option<usize>,
    /// Bytes of the compact `tools` array.
    pub tools_bytes: Option<usize>,
    /// Tokens of it.
    pub tools_tokens: Option<usize>,
    /// Tokens of it in the model's context (`defer_loading: true` entries count 0).
    pub context_tokens: Option<usize>,
    /// Tokens of the whole body in the model's context: tools, system and messages, exact in
    /// the chosen encoding (each block counted on its own).
    pub prompt_tokens: Option<usize>,
    /// The previous turn of its thread with known tools, which the facts below compare with
    /// (`None`: the thread's first turn).
    pub previous_turn: Option<usize>,
    /// Against that turn: tools now sent that were not.
    pub added: Vec<String>,
    /// Tools no longer sent.
    pub removed: Vec<String>,
    /// Tools sent both times with another entry, and what changed.
    pub changed: Vec<Changed>,
    /// The tools sent both times come in another order.
    pub order_changed: bool,
    /// First differing byte of the compact tools array (`None`: identical, or no previous turn).
    pub first_changed_byte: Option<usize>,
    /// The same offset in characters.
    pub first_changed_char: Option<usize>,
    /// The tool entry holding that byte.
    pub first_changed_entry: Option<String>,
    /// Observed usage, when the trace has the response.
    pub usage: Option<UsageFigures>,
    /// The chain check against the previous turn of its chain.
    pub cache: ChainState,
    /// For a `break`: what the trace shows broke it.
    pub cache_break: Option<BreakCause>,
    /// The HTTP status, when there is a response.
    pub status: Option<u16>,
    /// A failed call (status 400 or more, or no response): outside the cache chain.
    pub failed: bool,
    /// A compaction stub: its tools are unknown.
    pub stub: bool,
    /// Tools first loaded through `tool_search` in this turn's conversation.
    pub loaded: Vec<String>,
    /// The cache the provider reported (`None`: no usage, a failed call or a stub).
    pub observed: Option<CacheFigures>,
    /// The cache as the model has it for the request as sent (`original`).
    pub modelled: Option<CacheFigures>,
    /// Whether the two states agree (`None` without both).
    pub agrees: Option<bool>,
    /// Why they do not, where the trace can tell.
    pub disagreement: Option<String>,
    /// Observed prompt tokens / `prompt_tokens` (`None`: no usage, or the turn is left out).
    pub calibration: Option<f64>,
    /// Why a turn with usage has no ratio (a server-side tool, media not counted, ...).
    pub uncalibrated: Option<String>,
    /// Whose cache the request met (`anthropic`, `openai`, `deepseek`, …, `unmodelled`).
    pub provider: &'static str,
    /// The request's host (`None`: the trace has no URL, the body's shape told the provider).
    pub host: Option<String>,
    /// What the tables know of its model: its minimum, price and multipliers, each `null`
    /// where unknown (`None`: a compaction stub).
    pub model_rates: Option<ModelRates>,
    /// The provider's own diagnosis of its cache, read from the response (`None`: the
    /// response has no `diagnostics`).
    pub provider_diagnosis: Option<super::ProviderDiagnosis>,
    /// How the provider was told, so which rule modelled the turn's cache: `host`, `routed` (a
    /// gateway's upstream by the model's prefix), `shape` (no URL), `assumed` (a host
    /// toolprism does not know: from the request's API and model), `setting`
    /// (`session.provider`); `None` for a stub.
    pub provider_by: Option<&'static str>,
    /// A server-side tool the response shows ran (its figures hold prompts the request does
    /// not: left out of calibration and of agreement on amounts).
    pub server_tool: Option<&'static str>,
    /// Why the turn is not judged (`agrees: null` though it has usage).
    pub not_judged: Option<String>,
    /// What the prefix the thread's previous turn left cached, lost at this turn, cost: the
    /// request as sent against the same request had that prefix held (`null` when it held).
    pub break_price: Option<BreakPrice>,
    /// Tools the model called, first seen in this turn's messages.
    pub calls: Vec<String>,
    /// The record's instant, for the cache lifetime.
    #[serde(skip)]
    pub time_ms: Option<i64>,
    /// The tools changed by system messages appended since the thread's previous turn, each
    /// `+name (appended)`, `−name (appended)` or `name redefined (appended)`: no cache break.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub appended: Vec<String>,
    /// Why the provider refuses this turn on a model that binds thinking to its prefix: the
    /// tools or system were edited in place while an earlier assistant turn holds thinking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_check: Option<String>,
    /// Why the provider rejects this turn's mid-conversation system messages and tool changes
    /// (a missing beta where the trace kept its headers, placement, references, limits), one
    /// line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_change_problems: Vec<String>,
}

/// What the tables know of a turn's model (SESSIONS.md section 3, "Models"): a model they do
/// not name is `known: false`, its figures `null`, and the cache model's values for it assumed.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct ModelRates {
    /// The tables name the model.
    pub known: bool,
    /// The shortest cached prefix, in provider tokens.
    pub min_tokens: Option<usize>,
    /// Input in US dollars per million tokens.
    pub input_price: Option<f64>,
    /// A cache read, in input tokens.
    pub read: Option<f64>,
    /// A write of the default lifetime, in input tokens.
    pub write: Option<f64>,
    /// A write of the long lifetime (Anthropic `ttl: 1h`), in input tokens.
    pub write_1h: Option<f64>,
}

impl ModelRates {
    /// A model the tables do not name.
    pub const UNKNOWN: ModelRates = ModelRates {
        known: false,
        min_tokens: None,
        input_price: None,
        read: None,
        write: None,
        write_1h: None,
    };
}

/// The breaks' price over the session.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct BreakCost {
    /// Turns that lost a prefix their thread's previous turn left cached.
    pub breaks: usize,
    /// What they cost beyond the prefix held, in input tokens.
    pub extra: f64,
    /// The same in US dollars, over the breaks whose model has a price (`null` when none has).
    pub usd: Option<f64>,
}

impl BreakCost {
    /// The dollars to a ten-thousandth, as the report gives them.
    pub(super) fn rounded(self) -> BreakCost {
        BreakCost {
            usd: self.usd.map(|u| (u * 1e4).round() / 1e4),
            ..self
        }
    }
}

/// The price of a break: one turn's cost as sent against its cost had the prefix its thread's
/// previous turn left cached held (SESSIONS.md section 3, "The price of a break").
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct BreakPrice {
    /// Tokens of that prefix this turn did not read (exact, in the chosen encoding).
    pub lost: usize,
    /// What the turn cost, in input tokens (reads and writes at their prices).
    pub cost: f64,
    /// What it would have cost with the prefix held.
    pub held: f64,
    /// `cost - held`, in input tokens.
    pub extra: f64,
    /// `extra` in US dollars: provider tokens (the turn's calibration) at the model's input
    /// price (`cache.price`); `null` without a price.
    pub usd: Option<f64>,
}

impl BreakPrice {
    /// The price in words, as the session text's timeline and the view's turn pane say it:
    /// `break: 3,441 lost, cost 6,091 against 2,134 held (+3,957, $0.01)`.
    pub fn summary(&self) -> String {
        use crate::text::{dollars, money, thousands};
        let mut text = format!(
            "break: {} lost, cost {} against {} held (+{}",
            thousands(self.lost),
            money(self.cost),
            money(self.held),
            money(self.extra)
        );
        if let Some(usd) = self.usd {
            text.push_str(&format!(", {}", dollars(usd)));
        }
        text.push(')');
        text
    }
}

/// A request's cache, observed or modelled: `state` is `none` (nothing read or written),
/// `write`, `hit` (read, nothing written) or `partial` (read and written); `input` is the
/// input neither read nor written.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct CacheFigures {
    /// The state.
    pub state: &'static str,
    /// Tokens neither read nor written.
    pub input: u64,
    /// Tokens read from the cache.
    pub read: u64,
    /// Tokens written to it.
    pub write: u64,
}

impl CacheFigures {
    /// What a provider reported: Anthropic `input_tokens` is uncached input already; OpenAI's
    /// prompt tokens include the cached ones.
    pub fn observed(usage: Usage, openai: bool) -> CacheFigures {
        let input = if openai {
            usage
                .input
                .saturating_sub(usage.cache_read + usage.cache_write)
        } else {
            usage.input
        };
        CacheFigures {
            state: cache::state(usage.cache_read, usage.cache_write),
            input,
            read: usage.cache_read,
            write: usage.cache_write,
        }
    }

    pub(super) fn modelled(m: &cache::Modelled) -> CacheFigures {
        CacheFigures {
            state: m.state(),
            input: m.input as u64,
            read: m.read as u64,
            write: m.written() as u64,
        }
    }
}

/// One strategy over the session (SESSIONS.md section 3).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StrategySession {
    /// The strategy id.
    pub id: &'static str,
    /// One entry per turn.
    pub per_turn: Vec<StrategyTurn>,
    /// Tokens sent (tools plus added text) summed over the turns whose tools are known.
    pub total_tokens: usize,
    /// Turns whose projected tool bytes differ from the previous turn of their thread.
    pub breaks: usize,
    /// The whole prompts it sends (tools, added text, system, messages), summed.
    pub prompt_tokens: usize,
    /// The cost model's figure over the cache chain, in input tokens: whole prompts, each
    /// token read, written or sent plain.
    pub cost: f64,
    /// The same turns without any caching (every token at 1.0).
    pub cost_uncached: f64,
    /// `cost` in provider tokens (times the calibration ratio; `None` without usage).
    pub cost_provider: Option<f64>,
    /// It applied (status `ok`) on at least one turn; else every turn is `not_applicable` or
    /// `refused` and what it sends is the host's fallback.
    pub applied: bool,
    /// Its cost against `original`'s in percent (negative: cheaper), whenever both exist,
    /// whether it applied or not.
    pub versus_original_pct: Option<f64>,
}

impl StrategySession {
    /// Whether it applied on at least one turn whose tools are known: a strategy that had
    /// nothing to act on (or was refused) on every turn saves nothing, whatever it sent.
    pub fn applied(&self) -> bool {
        self.per_turn.iter().any(|t| t.status == Some(Applies::Ok))
    }
}

/// A strategy's session cost against `original`'s, as the tables show it: the one
/// `not_applicable` rule (SESSIONS.md section 3). The difference is shown whenever the figures
/// differ; `n/a` marks a strategy that never applied, and never hides a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VersusOriginal {
    /// The change in percent (`None`: no `original`, or it costs nothing).
    pub percent: Option<f64>,
    /// The strategy applied on some turn.
    pub applied: bool,
}

impl std::fmt::Display for VersusOriginal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.percent, self.applied) {
            (Some(p), true) => write!(f, "{p:+.1}%"),
            (Some(p), false) if p.abs() >= 0.05 => write!(f, "{p:+.1}% n/a"),
            (_, false) => f.write_str("n/a"),
            (None, true) => f.write_str("-"),
        }
    }
}

impl SessionReport {
    /// `strategy`'s cost against `original`'s over the session.
    pub fn versus_original(&self, strategy: &StrategySession) -> VersusOriginal {
        VersusOriginal {
            percent: strategy.versus_original_pct,
            applied: strategy.applied,
        }
    }
}

/// One strategy at one turn.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StrategyTurn {
    /// The turn's number.
    pub turn: usize,
    /// Tokens of the projected `tools` array (`None` for a compaction stub).
    pub tools_tokens: Option<usize>,
    /// Of those, in the model's context (`defer_loading: true` entries count 0).
    pub context_tokens: Option<usize>,
    /// The context tokens plus the text the strategy adds outside the tools.
    pub total_tokens: Option<usize>,
    /// The whole projected prompt: `total_tokens` plus the turn's own system and messages.
    pub prompt_tokens: Option<usize>,
    /// The projected tool bytes equal the previous turn's of the thread (`None`: no previous
    /// turn, a failed call or a stub).
    pub stable: Option<bool>,
    /// Where not: the first changed byte of the projected array.
    pub first_changed_byte: Option<usize>,
    /// Why it changed, or why stability does not apply.
    pub reason: Option<String>,
    /// The projection's status this turn: `ok`, `not_applicable`, `refused` (`None` for a
    /// compaction stub).
    pub status: Option<Applies>,
    /// The modelled cache state: `none`, `write`, `hit`, `partial` (`None`: outside the chain).
    pub state: Option<&'static str>,
    /// Tokens of the prompt read from the cache.
    pub read: Option<usize>,
    /// Tokens written to it.
    pub write: Option<usize>,
    /// Tokens sent plain.
    pub input: Option<usize>,
    /// The turn's cost in input tokens (`None`: outside the chain).
    pub cost: Option<f64>,
    /// The host refuses this turn's request under this strategy.
    pub error: Option<String>,
    /// The provider refuses this turn's projected request: the model binds thinking to its
    /// prefix and the projected tool list changed in place after thinking (`!`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_check: Option<String>,
}

/// What the trace reader knows that the analysis does not.
#[derive(Debug, Clone, Default)]
pub struct TraceInfo {
    /// The trace's path as given.
    pub path: String,
    /// The format id.
    pub format: &'static str,
    /// The compression id, if any.
    pub compression: Option<&'static str>,
    /// Records that are not model calls (the first [`crate::trace::IGNORED_KEPT`]).
    pub ignored: Vec<IgnoredRecord>,
    /// Records that are not model calls, all of them.
    pub ignored_total: usize,
    /// Bad records skipped.
    pub skipped: usize,
    /// The last line was torn.
    pub torn_last_line: bool,
    /// The MCP servers of the trace's own MCP exchanges.
    pub mcp_servers: Vec<crate::trace::McpServer>,
}

/// What a turn's observed usage says against the previous turn of its chain (serialized under
/// these words, lowercase).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChainState {
    /// The chain's first turn that read nothing.
    Cold,
    /// It read at least what the chain had cached.
    Hit,
    /// It read less than the chain had cached.
    Break,
    /// No usage, or none on the turn before.
    Unknown,
}

impl ChainState {
    /// The state as the report writes it.
    pub fn word(self) -> &'static str {
        match self {
            ChainState::Cold => "cold",
            ChainState::Hit => "hit",
            ChainState::Break => "break",
            ChainState::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for ChainState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// What the trace shows broke a chain (serialized under these words, lowercase).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BreakCause {
    /// The tools sent changed.
    Tools,
    /// Longer than the cache's lifetime passed.
    Lifetime,
    /// The system prompt changed.
    System,
    /// An earlier message changed.
    Messages,
    /// Nothing the trace shows.
    Unknown,
}

impl BreakCause {
    /// The cause as the report writes it.
    pub fn word(self) -> &'static str {
        match self {
            BreakCause::Tools => "tools",
            BreakCause::Lifetime => "lifetime",
            BreakCause::System => "system",
            BreakCause::Messages => "messages",
            BreakCause::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for BreakCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}
