//! Settings every projection reads, with the origin hosts' defaults, each overridable as `K=V`.
//!
//! This module holds the values. Each key (its name, help, kind, the strategies it changes,
//! how it parses and prints) is declared once by the strategy module that reads it, and
//! [`crate::strategies::registry`] composes them: [`Settings::KEYS`], [`Settings::apply`],
//! [`Settings::set`], [`Settings::get`] and `Display` live there.

use std::fmt;

/// Where the `code` profile's `program` gateway comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gateway {
    /// Only a `program` tool the capture already has (a3s's behaviour).
    Capture,
    /// Add a3s's own `program` tool when the capture has none (what-if).
    Inject,
}

/// Which release of a3s's adaptive selector `adaptive` reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Selector {
    /// a3s-code-core 9.1.x (current): every tool unless the context is a standalone greeting.
    Greeting,
    /// a3s-code-core 9.0.x: the vocabulary classifier picks the specialized tools.
    Vocabulary,
}

impl Selector {
    /// The value as `adaptive.selector` takes it.
    pub fn id(self) -> &'static str {
        match self {
            Selector::Greeting => "greeting",
            Selector::Vocabulary => "vocabulary",
        }
    }
}

/// Which tools zero may defer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Eligible {
    /// MCP tools (by `mcp.prefixes`).
    Mcp,
    /// Every tool.
    All,
}

/// Which vtcode-core release the documentation modes and `search` reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VtcodeRelease {
    /// vtcode-core 0.181.2 (current): progressive cap 1500, tool search.
    V0_181_2,
    /// vtcode-core 0.169.2 (the seed's): progressive cap 1024.
    V0_169_2,
}

impl VtcodeRelease {
    /// The value as `vtcode.release` takes it.
    pub fn id(self) -> &'static str {
        match self {
            VtcodeRelease::V0_181_2 => "0.181.2",
            VtcodeRelease::V0_169_2 => "0.169.2",
        }
    }

    /// The release's progressive description budget, in chars.
    pub fn progressive_max(self) -> usize {
        match self {
            VtcodeRelease::V0_181_2 => 1500,
            VtcodeRelease::V0_169_2 => 1024,
        }
    }
}

/// Which zero release `defer` and `defer-catalog` reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZeroRelease {
    /// zero 0.8.0 (commit ad34dc8, current): discovery in `tool_search`'s description, threshold 3.
    V0_8_0,
    /// zero commit 2ea36cf (the seed's): the reminder form, threshold 10.
    C2ea36cf,
}

impl ZeroRelease {
    /// The value as `zero.release` takes it.
    pub fn id(self) -> &'static str {
        match self {
            ZeroRelease::V0_8_0 => "0.8.0",
            ZeroRelease::C2ea36cf => "2ea36cf",
        }
    }

    /// The release's default deferral threshold.
    pub fn default_threshold(self) -> usize {
        match self {
            ZeroRelease::V0_8_0 => 3,
            ZeroRelease::C2ea36cf => 10,
        }
    }
}

/// Which tool search `search` reproduces (vtcode's `DeferredToolSearchKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SearchProvider {
    /// By the capture's shape: Messages → Anthropic, Responses → OpenAI hosted, else client-local.
    Auto,
    /// Anthropic's tool search (`defer_loading` plus a `tool_search_tool_*` entry).
    Anthropic,
    /// OpenAI's hosted tool search (`defer_loading` plus `{"type":"tool_search"}`).
    OpenAi,
    /// vtcode's client-local search: deferred definitions left out of the request.
    Client,
    /// OpenRouter's server tool (`defer_loading` plus `{"type":"openrouter:tool_search"}`), on
    /// any model; `auto` picks it for a session's turns sent to OpenRouter.
    OpenRouter,
}

impl SearchProvider {
    /// The value as `search.provider` takes it.
    pub fn id(self) -> &'static str {
        match self {
            SearchProvider::Auto => "auto",
            SearchProvider::Anthropic => "anthropic",
            SearchProvider::OpenAi => "openai",
            SearchProvider::Client => "client",
            SearchProvider::OpenRouter => "openrouter",
        }
    }
}

/// Anthropic's tool search algorithm (`search.algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SearchAlgorithm {
    /// `tool_search_tool_regex_20251119` (vtcode's default).
    Regex,
    /// `tool_search_tool_bm25_20251119`.
    Bm25,
}

impl SearchAlgorithm {
    /// The value as `search.algorithm` takes it.
    pub fn id(self) -> &'static str {
        match self {
            SearchAlgorithm::Regex => "regex",
            SearchAlgorithm::Bm25 => "bm25",
        }
    }
}

/// All settings. [`Settings::default`] holds the origins' constants.
///
/// Two settings are equal (and hash alike) exactly when every key is: a key that follows a
/// release (`vtcode.progressive`, `defer.threshold`) is `None` until set, so "the release's
/// value" and "the same number, set" stay apart, as `search` (which pins its own release)
/// reads them apart. [`crate::memo`] keys projections by this value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Settings {
    /// `mcp.prefixes`: name prefixes that mark an MCP tool.
    pub mcp_prefixes: Vec<String>,
    /// `vtcode.mcp_cap`: chars an MCP tool's description may keep (vtcode 512).
    pub vtcode_mcp_cap: usize,
    /// `vtcode.minimal`: chars of the minimal description (vtcode 64).
    pub vtcode_minimal: usize,
    /// `vtcode.progressive`: chars of the progressive description; `None` (`auto`) follows
    /// the release (vtcode-core 0.181.2: 1500, 0.169.2: 1024). Read it through
    /// [`Settings::progressive_chars`].
    pub vtcode_progressive: Option<usize>,
    /// `vtcode.release`: `0.181.2` (default) or `0.169.2`.
    pub vtcode_release: VtcodeRelease,
    /// `vtcode.param`: chars of a progressive parameter description (vtcode 640).
    pub vtcode_param: usize,
    /// `a3s.max_tools`: most tools a3s accepts (4096).
    pub a3s_max_tools: usize,
    /// `a3s.context_messages`: newest messages the adaptive selector reads (6).
    pub a3s_context_messages: usize,
    /// `a3s.desc_bytes`: bytes of a description in the code catalog (192).
    pub a3s_desc_bytes: usize,
    /// `a3s.catalog_bytes`: bytes the code catalog may reach before skipping (65536).
    pub a3s_catalog_bytes: usize,
    /// `adaptive.prompt`: replaces the conversation as the adaptive selector's context.
    pub adaptive_prompt: Option<String>,
    /// `adaptive.selector`: `greeting` (a3s-code-core 9.1.x, default) or `vocabulary` (9.0.x).
    pub adaptive_selector: Selector,
    /// `code.gateway`: `capture` or `inject`.
    pub code_gateway: Gateway,
    /// `shorten.expand_tool`: append an expand tool of this name (what-if).
    pub shorten_expand_tool: Option<String>,
    /// `shorten.protected`: an active lean-ctx policy pack, which shortens nothing.
    pub shorten_protected: bool,
    /// `defer.threshold`: eligible tools needed before deferring (0 disables); `None` (`auto`)
    /// follows the release (zero 0.8.0: 3, 2ea36cf: 10). Read it through
    /// [`Settings::defer_threshold`].
    pub defer_threshold: Option<usize>,
    /// `zero.release`: `0.8.0` (default) or `2ea36cf`.
    pub zero_release: ZeroRelease,
    /// `search.provider`: `auto`, `anthropic`, `openai` or `client`.
    pub search_provider: SearchProvider,
    /// `search.algorithm`: `regex` or `bm25` (Anthropic's tool search).
    pub search_algorithm: SearchAlgorithm,
    /// `search.always`: tool names `search` keeps eager (vtcode's `always_available_tools`).
    pub search_always: Vec<String>,
    /// `defer.eligible`: `mcp` or `all`.
    pub defer_eligible: Eligible,

    // The session cost model (SESSIONS.md section 3); only `crate::session` reads these.
    /// `cache.read`: what a cached input token costs, in input tokens (`None`: the provider's
    /// default: 0.1 Anthropic; OpenAI by model, as the key's help in the registry lists).
    pub cache_read: Option<Multiplier>,
    /// `cache.write`: what a token written to the cache costs, in input tokens (`None`: the
    /// provider's default, 1.25 Anthropic, 1.0 OpenAI).
    pub cache_write: Option<Multiplier>,
    /// `cache.ttl`: how long a cached prefix lives between two turns, in milliseconds (`None`:
    /// the provider's, 5 min but for those that publish none).
    pub cache_ttl_ms: Option<u64>,
    /// The rest of the cache model's settings (boxed: `Settings` travels by value in every
    /// TUI job).
    pub cache: Box<CacheSettings>,
    /// `claude-code.tool_search`: Claude Code's `ENABLE_TOOL_SEARCH` (docs/MCP.md).
    pub claude_code_tool_search: ToolSearch,
    /// `claude-code.base_url`: Claude Code's `ANTHROPIC_BASE_URL` (`None`: Anthropic's own).
    pub claude_code_base_url: Option<String>,
}

/// Claude Code's `ENABLE_TOOL_SEARCH` (`mcp --host claude-code`; docs/MCP.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ToolSearch {
    /// Unset: every MCP tool deferred, but behind a base URL that is not Anthropic's.
    #[default]
    Unset,
    /// `true`: always deferred.
    On,
    /// `false`: every tool loaded up front.
    Off,
    /// `auto` / `auto:N`: loaded up front while the MCP tools take under N% of the context
    /// window (10 for `auto`).
    Auto(u8),
}

impl ToolSearch {
    /// As `ENABLE_TOOL_SEARCH` is written (`unset` for none).
    pub fn text(self) -> String {
        match self {
            ToolSearch::Unset => "unset".into(),
            ToolSearch::On => "true".into(),
            ToolSearch::Off => "false".into(),
            ToolSearch::Auto(10) => "auto".into(),
            ToolSearch::Auto(n) => format!("auto:{n}"),
        }
    }

    /// Read as Claude Code reads it.
    pub fn parse(value: &str) -> Option<ToolSearch> {
        Some(match value.trim() {
            "unset" => ToolSearch::Unset,
            "true" => ToolSearch::On,
            "false" => ToolSearch::Off,
            "auto" => ToolSearch::Auto(10),
            other => {
                let n: u8 = other.strip_prefix("auto:")?.trim().parse().ok()?;
                if n > 100 {
                    return None;
                }
                ToolSearch::Auto(n)
            }
        })
    }
}

/// The cache model's settings beyond `cache.read`, `cache.write` and `cache.ttl` (SESSIONS.md
/// section 3; the defaults' sources are in docs/SESSIONS.md).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CacheSettings {
    /// `cache.write_1h`: a token written to a 1-hour prefix (`None`: Anthropic's 2.0).
    pub write_1h: Option<Multiplier>,
    /// `cache.ttl_1h`: lifetime of an Anthropic `"ttl": "1h"` breakpoint (1 h).
    pub ttl_1h_ms: u64,
    /// `cache.ttl_24h`: lifetime of an OpenAI `prompt_cache_retention: "24h"` prompt (24 h).
    pub ttl_24h_ms: u64,
    /// `cache.min_tokens`: shortest cached prefix (`None`: the model's, from the table).
    pub min_tokens: Option<usize>,
    /// `cache.step`: OpenAI's cached prefixes grow in steps of this many tokens (128).
    pub step: usize,
    /// `cache.breakpoints`: most `cache_control` breakpoints Anthropic honours (4).
    pub breakpoints: usize,
    /// `cache.lookback`: block boundaries an Anthropic breakpoint looks back over (20).
    pub lookback: usize,
    /// `cache.price`: US dollars per million input tokens, for the price of a break (`None`:
    /// the model's list price where known).
    pub price: Option<Multiplier>,
    /// `session.provider`: the id of the provider of requests sent to a host toolprism does
    /// not know, one of the key's choices (`None`: assumed from each request's API and model);
    /// the session reads it as its `Provider` (settings sit below the session).
    pub provider: Option<&'static str>,
}

/// A cost multiplier (`cache.read`, `cache.write`), kept in millionths so settings stay `Eq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Multiplier(u64);

impl Multiplier {
    /// The multiplier nearest `value` (rounded to a millionth; negative values are 0).
    pub fn new(value: f64) -> Multiplier {
        Multiplier((value.max(0.0) * 1e6).round() as u64)
    }

    /// Its value.
    pub fn get(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

impl fmt::Display for Multiplier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.get())
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mcp_prefixes: vec!["mcp__".into(), "mcp_".into(), "mcp--".into()],
            vtcode_mcp_cap: 512,
            vtcode_minimal: 64,
            vtcode_progressive: None,
            vtcode_release: VtcodeRelease::V0_181_2,
            vtcode_param: 640,
            a3s_max_tools: 4096,
            a3s_context_messages: 6,
            a3s_desc_bytes: 192,
            a3s_catalog_bytes: 65536,
            adaptive_prompt: None,
            adaptive_selector: Selector::Greeting,
            code_gateway: Gateway::Capture,
            shorten_expand_tool: None,
            shorten_protected: false,
            defer_threshold: None,
            zero_release: ZeroRelease::V0_8_0,
            search_provider: SearchProvider::Auto,
            search_algorithm: SearchAlgorithm::Regex,
            search_always: Vec::new(),
            defer_eligible: Eligible::Mcp,
            cache_read: None,
            cache_write: None,
            cache_ttl_ms: None,
            cache: Box::new(CacheSettings {
                write_1h: None,
                ttl_1h_ms: 3_600_000,
                ttl_24h_ms: 24 * 3_600_000,
                min_tokens: None,
                step: 128,
                breakpoints: 4,
                lookback: 20,
                price: None,
                provider: None,
            }),
            claude_code_tool_search: ToolSearch::Unset,
            claude_code_base_url: None,
        }
    }
}

impl Settings {
    /// Whether `name` is an MCP tool under `mcp.prefixes`.
    pub fn is_mcp(&self, name: &str) -> bool {
        crate::tool::is_mcp(name, &self.mcp_prefixes)
    }

    /// The progressive description budget in force: `vtcode.progressive` when set, else
    /// `vtcode.release`'s.
    pub fn progressive_chars(&self) -> usize {
        self.vtcode_progressive
            .unwrap_or_else(|| self.vtcode_release.progressive_max())
    }

    /// The deferral threshold in force: `defer.threshold` when set, else `zero.release`'s.
    pub fn defer_threshold(&self) -> usize {
        self.defer_threshold
            .unwrap_or_else(|| self.zero_release.default_threshold())
    }
}
