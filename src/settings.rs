//! Settings every projection reads, with the origin hosts' defaults, each overridable as `K=V`.

use std::fmt;

/// Where the `code` profile's `program` gateway comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gateway {
    /// Only a `program` tool the capture already has (a3s's behaviour).
    Capture,
    /// Add a3s's own `program` tool when the capture has none (what-if).
    Inject,
}

/// Which release of a3s's adaptive selector `adaptive` reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eligible {
    /// MCP tools (by `mcp.prefixes`).
    Mcp,
    /// Every tool.
    All,
}

/// Which vtcode-core release the documentation modes and `search` reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchProvider {
    /// By the capture's shape: Messages → Anthropic, Responses → OpenAI hosted, else client-local.
    Auto,
    /// Anthropic's tool search (`defer_loading` plus a `tool_search_tool_*` entry).
    Anthropic,
    /// OpenAI's hosted tool search (`defer_loading` plus `{"type":"tool_search"}`).
    OpenAi,
    /// vtcode's client-local search: deferred definitions left out of the request.
    Client,
}

impl SearchProvider {
    /// The value as `search.provider` takes it.
    pub fn id(self) -> &'static str {
        match self {
            SearchProvider::Auto => "auto",
            SearchProvider::Anthropic => "anthropic",
            SearchProvider::OpenAi => "openai",
            SearchProvider::Client => "client",
        }
    }
}

/// Anthropic's tool search algorithm (`search.algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `mcp.prefixes`: name prefixes that mark an MCP tool.
    pub mcp_prefixes: Vec<String>,
    /// `vtcode.mcp_cap`: chars an MCP tool's description may keep (vtcode 512).
    pub vtcode_mcp_cap: usize,
    /// `vtcode.minimal`: chars of the minimal description (vtcode 64).
    pub vtcode_minimal: usize,
    /// `vtcode.progressive`: chars of the progressive description (vtcode-core 0.181.2: 1500,
    /// 0.169.2: 1024; follows `vtcode.release` until set).
    pub vtcode_progressive: usize,
    /// Whether `vtcode.progressive` was set, so `vtcode.release` leaves it alone.
    pub vtcode_progressive_set: bool,
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
    /// `defer.threshold`: eligible tools needed before deferring (zero 0.8.0: 3, 2ea36cf: 10;
    /// follows `zero.release` until set; 0 disables).
    pub defer_threshold: usize,
    /// Whether `defer.threshold` was set, so `zero.release` leaves it alone.
    pub defer_threshold_set: bool,
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
    /// default, 0.1 Anthropic, 0.5 OpenAI).
    pub cache_read: Option<Multiplier>,
    /// `cache.write`: what a token written to the cache costs, in input tokens (`None`: the
    /// provider's default, 1.25 Anthropic, 1.0 OpenAI).
    pub cache_write: Option<Multiplier>,
    /// `cache.ttl`: how long a cached prefix lives between two turns, in milliseconds (5 min).
    pub cache_ttl_ms: u64,
    /// The rest of the cache model's settings (boxed: `Settings` travels by value in every
    /// TUI job).
    pub cache: Box<CacheSettings>,
}

/// The cache model's settings beyond `cache.read`, `cache.write` and `cache.ttl` (SESSIONS.md
/// section 3; the defaults' sources are in docs/SESSIONS.md).
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// A duration as `cache.ttl` is written: `300`, `300s`, `5m`, `1h`, `250ms` (a bare number is
/// seconds). Milliseconds.
fn parse_duration_ms(value: &str) -> Option<u64> {
    let value = value.trim();
    let (number, scale) = if let Some(n) = value.strip_suffix("ms") {
        (n, 1)
    } else if let Some(n) = value.strip_suffix('s') {
        (n, 1000)
    } else if let Some(n) = value.strip_suffix('m') {
        (n, 60_000)
    } else if let Some(n) = value.strip_suffix('h') {
        (n, 3_600_000)
    } else {
        (value, 1000)
    };
    number.trim().parse::<u64>().ok()?.checked_mul(scale)
}

/// A duration in the largest unit that writes it exactly.
fn format_duration_ms(ms: u64) -> String {
    match ms {
        0 => "0s".to_owned(),
        ms if ms % 3_600_000 == 0 => format!("{}h", ms / 3_600_000),
        ms if ms % 60_000 == 0 => format!("{}m", ms / 60_000),
        ms if ms % 1000 == 0 => format!("{}s", ms / 1000),
        ms => format!("{ms}ms"),
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mcp_prefixes: vec!["mcp__".into(), "mcp_".into(), "mcp--".into()],
            vtcode_mcp_cap: 512,
            vtcode_minimal: 64,
            vtcode_progressive: VtcodeRelease::V0_181_2.progressive_max(),
            vtcode_progressive_set: false,
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
            defer_threshold: ZeroRelease::V0_8_0.default_threshold(),
            defer_threshold_set: false,
            zero_release: ZeroRelease::V0_8_0,
            search_provider: SearchProvider::Auto,
            search_algorithm: SearchAlgorithm::Regex,
            search_always: Vec::new(),
            defer_eligible: Eligible::Mcp,
            cache_read: None,
            cache_write: None,
            cache_ttl_ms: 5 * 60_000,
            cache: Box::new(CacheSettings {
                write_1h: None,
                ttl_1h_ms: 3_600_000,
                ttl_24h_ms: 24 * 3_600_000,
                min_tokens: None,
                step: 128,
                breakpoints: 4,
                lookback: 20,
            }),
        }
    }
}

/// A `K=V` that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// No `=` in the argument.
    #[error("setting `{0}` is not of the form KEY=VALUE")]
    NotKeyValue(String),
    /// The key names no setting.
    #[error("unknown setting `{0}` (known: {known})", known = Settings::KEYS.iter().map(|k| k.key).collect::<Vec<_>>().join(", "))]
    UnknownKey(String),
    /// The value does not fit the key.
    #[error("bad value for `{key}`: `{value}` ({expected})")]
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What the key accepts.
        expected: &'static str,
    },
}

/// One setting's key and what it means, for help texts and the TUI.
#[derive(Debug, Clone, Copy)]
pub struct SettingInfo {
    /// The key, as written in `--set K=V`.
    pub key: &'static str,
    /// What it does and what it accepts.
    pub help: &'static str,
}

impl Settings {
    /// Every key, in a stable order.
    pub const KEYS: &'static [SettingInfo] = &[
        SettingInfo {
            key: "mcp.prefixes",
            help: "comma-separated name prefixes of MCP tools",
        },
        SettingInfo {
            key: "vtcode.mcp_cap",
            help: "chars an MCP description keeps (full/progressive/minimal)",
        },
        SettingInfo {
            key: "vtcode.minimal",
            help: "chars of a minimal description",
        },
        SettingInfo {
            key: "vtcode.progressive",
            help: "chars of a progressive description",
        },
        SettingInfo {
            key: "vtcode.param",
            help: "chars of a progressive parameter description",
        },
        SettingInfo {
            key: "vtcode.release",
            help: "vtcode-core release: 0.181.2 (current: progressive 1500) or 0.169.2 (progressive 1024)",
        },
        SettingInfo {
            key: "a3s.max_tools",
            help: "most tools the a3s profiles accept",
        },
        SettingInfo {
            key: "a3s.context_messages",
            help: "newest messages the adaptive selector reads",
        },
        SettingInfo {
            key: "a3s.desc_bytes",
            help: "bytes of each description in the code catalog",
        },
        SettingInfo {
            key: "a3s.catalog_bytes",
            help: "bytes the code catalog may reach",
        },
        SettingInfo {
            key: "adaptive.prompt",
            help: "text that replaces the conversation for adaptive",
        },
        SettingInfo {
            key: "adaptive.selector",
            help: "greeting (a3s-code-core 9.1.x: all tools unless a bare greeting) or vocabulary (9.0.x classifier)",
        },
        SettingInfo {
            key: "code.gateway",
            help: "capture (use the capture's program tool) or inject (add a3s's)",
        },
        SettingInfo {
            key: "shorten.expand_tool",
            help: "append a lean-ctx expand tool of this name (empty: none)",
        },
        SettingInfo {
            key: "shorten.protected",
            help: "true: an active lean-ctx policy pack (no change)",
        },
        SettingInfo {
            key: "defer.threshold",
            help: "eligible tools needed before deferring (0 disables)",
        },
        SettingInfo {
            key: "defer.eligible",
            help: "mcp (MCP tools only) or all",
        },
        SettingInfo {
            key: "zero.release",
            help: "zero release: 0.8.0 (current: catalog in tool_search, threshold 3) or 2ea36cf (reminder, threshold 10)",
        },
        SettingInfo {
            key: "search.provider",
            help: "auto (by the capture's shape), anthropic, openai or client (client-local)",
        },
        SettingInfo {
            key: "search.algorithm",
            help: "regex or bm25 (Anthropic's tool search tool)",
        },
        SettingInfo {
            key: "search.always",
            help: "comma-separated tool names search keeps eager",
        },
        SettingInfo {
            key: "cache.read",
            help: "session cost of a cached token, in input tokens (auto: 0.1 Anthropic; OpenAI by model: 0.1 gpt-5, 0.25 gpt-4.1/o3/o4, 0.5 gpt-4o/o1 and others)",
        },
        SettingInfo {
            key: "cache.write",
            help: "session cost of a token written to a 5-minute prefix (auto: 1.25 Anthropic, 1.0 OpenAI)",
        },
        SettingInfo {
            key: "cache.ttl",
            help: "how long a cached prefix lives after its last use (300, 300s, 5m, 1h, 250ms)",
        },
        SettingInfo {
            key: "cache.write_1h",
            help: "session cost of a token written to a 1-hour Anthropic prefix (auto: 2.0)",
        },
        SettingInfo {
            key: "cache.ttl_1h",
            help: "lifetime of an Anthropic breakpoint with \"ttl\": \"1h\"",
        },
        SettingInfo {
            key: "cache.ttl_24h",
            help: "lifetime of an OpenAI prompt with prompt_cache_retention \"24h\"",
        },
        SettingInfo {
            key: "cache.min_tokens",
            help: "shortest prefix cached (auto: 1024; 2048 Claude Haiku 3/3.5; 4096 Claude Opus 4.5/4.6, Haiku 4.5)",
        },
        SettingInfo {
            key: "cache.step",
            help: "OpenAI caches prefixes in steps of this many tokens past the minimum",
        },
        SettingInfo {
            key: "cache.breakpoints",
            help: "most cache_control breakpoints an Anthropic request sets",
        },
        SettingInfo {
            key: "cache.lookback",
            help: "block boundaries an Anthropic breakpoint looks back over for a cached prefix",
        },
    ];

    /// Apply one `KEY=VALUE` argument.
    pub fn apply(&mut self, assignment: &str) -> Result<(), SettingsError> {
        let (key, value) = assignment
            .split_once('=')
            .ok_or_else(|| SettingsError::NotKeyValue(assignment.to_owned()))?;
        self.set(key.trim(), value)
    }

    /// Set one key.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SettingsError> {
        let bad = |expected: &'static str| SettingsError::BadValue {
            key: key.to_owned(),
            value: value.to_owned(),
            expected,
        };
        let count =
            |expected: &'static str| value.trim().parse::<usize>().map_err(|_| bad(expected));
        let positive = |expected: &'static str| match value.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(bad(expected)),
        };
        match key {
            "mcp.prefixes" => {
                let prefixes: Vec<String> = value
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned)
                    .collect();
                self.mcp_prefixes = prefixes;
            }
            "vtcode.mcp_cap" => self.vtcode_mcp_cap = positive("a positive number of chars")?,
            "vtcode.minimal" => self.vtcode_minimal = positive("a positive number of chars")?,
            "vtcode.progressive" => {
                self.vtcode_progressive = positive("a positive number of chars")?;
                self.vtcode_progressive_set = true;
            }
            "vtcode.release" => {
                self.vtcode_release = match value.trim() {
                    "0.181.2" => VtcodeRelease::V0_181_2,
                    "0.169.2" => VtcodeRelease::V0_169_2,
                    _ => return Err(bad("0.181.2 or 0.169.2")),
                };
                if !self.vtcode_progressive_set {
                    self.vtcode_progressive = self.vtcode_release.progressive_max();
                }
            }
            "vtcode.param" => self.vtcode_param = positive("a positive number of chars")?,
            "a3s.max_tools" => self.a3s_max_tools = count("a number of tools")?,
            "a3s.context_messages" => self.a3s_context_messages = count("a number of messages")?,
            "a3s.desc_bytes" => self.a3s_desc_bytes = count("a number of bytes")?,
            "a3s.catalog_bytes" => self.a3s_catalog_bytes = count("a number of bytes")?,
            "adaptive.prompt" => self.adaptive_prompt = Some(value.to_owned()),
            "adaptive.selector" => {
                self.adaptive_selector = match value.trim() {
                    "greeting" => Selector::Greeting,
                    "vocabulary" => Selector::Vocabulary,
                    _ => return Err(bad("greeting or vocabulary")),
                }
            }
            "code.gateway" => {
                self.code_gateway = match value.trim() {
                    "capture" => Gateway::Capture,
                    "inject" => Gateway::Inject,
                    _ => return Err(bad("capture or inject")),
                }
            }
            "shorten.expand_tool" => {
                let name = value.trim();
                if name.is_empty() {
                    self.shorten_expand_tool = None;
                } else if crate::strategies::leanctx::is_expand_tool_name(name) {
                    self.shorten_expand_tool = Some(name.to_owned());
                } else {
                    return Err(bad(
                        "a name whose bare part is ctx_expand, at most 128 bytes of [A-Za-z0-9_.:/-]",
                    ));
                }
            }
            "shorten.protected" => {
                self.shorten_protected = parse_bool(value).ok_or_else(|| bad("true or false"))?
            }
            "defer.threshold" => {
                self.defer_threshold = count("a number of tools (0 disables)")?;
                self.defer_threshold_set = true;
            }
            "zero.release" => {
                self.zero_release = match value.trim() {
                    "0.8.0" | "ad34dc8" => ZeroRelease::V0_8_0,
                    "2ea36cf" => ZeroRelease::C2ea36cf,
                    _ => return Err(bad("0.8.0 or 2ea36cf")),
                };
                if !self.defer_threshold_set {
                    self.defer_threshold = self.zero_release.default_threshold();
                }
            }
            "search.provider" => {
                self.search_provider = match value.trim() {
                    "auto" => SearchProvider::Auto,
                    "anthropic" => SearchProvider::Anthropic,
                    "openai" => SearchProvider::OpenAi,
                    "client" => SearchProvider::Client,
                    _ => return Err(bad("auto, anthropic, openai or client")),
                }
            }
            "search.algorithm" => {
                self.search_algorithm = match value.trim() {
                    "regex" => SearchAlgorithm::Regex,
                    "bm25" => SearchAlgorithm::Bm25,
                    _ => return Err(bad("regex or bm25")),
                }
            }
            "search.always" => {
                self.search_always = value
                    .split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect();
            }
            "defer.eligible" => {
                self.defer_eligible = match value.trim() {
                    "mcp" => Eligible::Mcp,
                    "all" => Eligible::All,
                    _ => return Err(bad("mcp or all")),
                }
            }
            "cache.read" | "cache.write" => {
                let multiplier = match value.trim() {
                    "auto" | "" => None,
                    number => match number.parse::<f64>() {
                        Ok(x) if x.is_finite() && (0.0..=100.0).contains(&x) => {
                            Some(Multiplier::new(x))
                        }
                        _ => return Err(bad("auto, or a number from 0 to 100")),
                    },
                };
                if key == "cache.read" {
                    self.cache_read = multiplier;
                } else {
                    self.cache_write = multiplier;
                }
            }
            "cache.write_1h" => {
                self.cache.write_1h = match value.trim() {
                    "auto" | "" => None,
                    number => match number.parse::<f64>() {
                        Ok(x) if x.is_finite() && (0.0..=100.0).contains(&x) => {
                            Some(Multiplier::new(x))
                        }
                        _ => return Err(bad("auto, or a number from 0 to 100")),
                    },
                }
            }
            "cache.ttl_1h" | "cache.ttl_24h" => {
                let ms = parse_duration_ms(value)
                    .ok_or_else(|| bad("a duration: 300, 300s, 5m, 1h or 250ms"))?;
                if key == "cache.ttl_1h" {
                    self.cache.ttl_1h_ms = ms;
                } else {
                    self.cache.ttl_24h_ms = ms;
                }
            }
            "cache.min_tokens" => {
                self.cache.min_tokens = match value.trim() {
                    "auto" | "" => None,
                    _ => Some(count("auto, or a number of tokens")?),
                }
            }
            "cache.step" => self.cache.step = positive("a positive number of tokens")?,
            "cache.breakpoints" => self.cache.breakpoints = count("a number of breakpoints")?,
            "cache.lookback" => self.cache.lookback = count("a number of blocks")?,
            "cache.ttl" => {
                self.cache_ttl_ms = parse_duration_ms(value)
                    .ok_or_else(|| bad("a duration: 300, 300s, 5m, 1h or 250ms"))?
            }
            _ => return Err(SettingsError::UnknownKey(key.to_owned())),
        }
        Ok(())
    }

    /// A key's current value, as `set` accepts it.
    pub fn get(&self, key: &str) -> Option<String> {
        Some(match key {
            "mcp.prefixes" => self.mcp_prefixes.join(","),
            "vtcode.mcp_cap" => self.vtcode_mcp_cap.to_string(),
            "vtcode.minimal" => self.vtcode_minimal.to_string(),
            "vtcode.progressive" => self.vtcode_progressive.to_string(),
            "vtcode.param" => self.vtcode_param.to_string(),
            "vtcode.release" => self.vtcode_release.id().into(),
            "a3s.max_tools" => self.a3s_max_tools.to_string(),
            "a3s.context_messages" => self.a3s_context_messages.to_string(),
            "a3s.desc_bytes" => self.a3s_desc_bytes.to_string(),
            "a3s.catalog_bytes" => self.a3s_catalog_bytes.to_string(),
            "adaptive.prompt" => self.adaptive_prompt.clone().unwrap_or_default(),
            "adaptive.selector" => self.adaptive_selector.id().into(),
            "code.gateway" => match self.code_gateway {
                Gateway::Capture => "capture".into(),
                Gateway::Inject => "inject".into(),
            },
            "shorten.expand_tool" => self.shorten_expand_tool.clone().unwrap_or_default(),
            "shorten.protected" => self.shorten_protected.to_string(),
            "defer.threshold" => self.defer_threshold.to_string(),
            "defer.eligible" => match self.defer_eligible {
                Eligible::Mcp => "mcp".into(),
                Eligible::All => "all".into(),
            },
            "zero.release" => self.zero_release.id().into(),
            "search.provider" => self.search_provider.id().into(),
            "search.algorithm" => self.search_algorithm.id().into(),
            "search.always" => self.search_always.join(","),
            "cache.read" => self.cache_read.map_or("auto".into(), |m| m.to_string()),
            "cache.write" => self.cache_write.map_or("auto".into(), |m| m.to_string()),
            "cache.ttl" => format_duration_ms(self.cache_ttl_ms),
            "cache.write_1h" => self.cache.write_1h.map_or("auto".into(), |m| m.to_string()),
            "cache.ttl_1h" => format_duration_ms(self.cache.ttl_1h_ms),
            "cache.ttl_24h" => format_duration_ms(self.cache.ttl_24h_ms),
            "cache.min_tokens" => self
                .cache
                .min_tokens
                .map_or("auto".into(), |n| n.to_string()),
            "cache.step" => self.cache.step.to_string(),
            "cache.breakpoints" => self.cache.breakpoints.to_string(),
            "cache.lookback" => self.cache.lookback.to_string(),
            _ => return None,
        })
    }

    /// Whether `name` is an MCP tool under `mcp.prefixes`.
    pub fn is_mcp(&self, name: &str) -> bool {
        crate::tool::is_mcp(name, &self.mcp_prefixes)
    }
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.trim() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for info in Settings::KEYS {
            writeln!(f, "{}={}", info.key, self.get(info.key).unwrap_or_default())?;
        }
        Ok(())
    }
}
