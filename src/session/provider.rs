//! Whose prompt cache a request meets, told by the request's host (SESSIONS.md section 3,
//! "Providers"): each provider's caching rules, and which providers toolprism does not model.
//! Without a URL (a bare body) the body's shape decides, and the report says so.

use serde_json::Value;

use crate::capture::Shape;

/// A provider whose prompt cache toolprism models, or one it does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Anthropic's own API (`api.anthropic.com`).
    Anthropic,
    /// Amazon Bedrock (`bedrock-runtime.*.amazonaws.com`): Claude and Nova, `cachePoint` or
    /// `cache_control` breakpoints.
    Bedrock,
    /// Claude on Google Vertex AI (`publishers/anthropic`).
    Vertex,
    /// Claude on Microsoft Foundry (`*.services.ai.azure.com/anthropic/`).
    Foundry,
    /// OpenAI (`api.openai.com`).
    OpenAi,
    /// Azure OpenAI (`*.openai.azure.com`, `*.cognitiveservices.azure.com`).
    Azure,
    /// DeepSeek (`api.deepseek.com`, its own and its Anthropic-compatible endpoint).
    DeepSeek,
    /// Moonshot / Kimi (`api.moonshot.ai`, `api.moonshot.cn`, Kimi's `api.kimi.com`).
    Moonshot,
    /// Z.ai / GLM (`api.z.ai`, `open.bigmodel.cn`).
    Zai,
    /// Gemini (`generativelanguage.googleapis.com`, Vertex `publishers/google`).
    Gemini,
    /// Mistral (`api.mistral.ai`): named, not modelled ([`Provider::not_modelled`]).
    Mistral,
    /// xAI (`api.x.ai`, Chat Completions and Responses): named, not modelled.
    Xai,
    /// Cohere (`api.cohere.com`, `api.cohere.ai`): publishes no prompt cache, so none is
    /// modelled; named, its usage (`billed_units`) read.
    Cohere,
    /// A host whose caching rules toolprism does not know.
    Unmodelled,
}

/// How a provider caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caching {
    /// Only what the request marks (`cache_control`, `cachePoint`).
    Breakpoints,
    /// Automatically, every long enough prefix.
    Automatic,
}

/// What the analysis needs to know of a provider's cache.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProviderRules {
    /// How it caches.
    pub caching: Caching,
    /// Shortest cached prefix in provider tokens (`None`: the model's, from [`min_tokens`]).
    pub min_tokens: Option<usize>,
    /// Reads are counted in steps of this many tokens past the minimum.
    pub step: usize,
    /// It reports tokens written (Anthropic's `cache_creation_input_tokens`).
    pub reports_writes: bool,
    /// It bills reads of an automatic cache at this fraction of input (`None`: by model).
    pub read_price: Option<f64>,
    /// How long an unused prefix lives, in milliseconds ([`NO_LIFETIME`]: none published, so
    /// none is modelled).
    pub ttl_ms: u64,
    /// Reads are of whole stored units only (DeepSeek: [`crate::session`]'s `Rules::units`).
    pub units: bool,
}

/// The lifetime of a cache whose provider publishes none, or only "hours to days": within a
/// trace, a prefix never expires by age.
pub const NO_LIFETIME: u64 = u64::MAX / 4;

/// Five minutes: Anthropic's default lifetime, OpenAI's least.
pub const FIVE_MINUTES: u64 = 5 * 60_000;

/// Anthropic's explicit breakpoints (Claude on Anthropic, Bedrock and Vertex).
pub const BREAKPOINTS: ProviderRules = ProviderRules {
    caching: Caching::Breakpoints,
    min_tokens: None,
    step: 1,
    reports_writes: true,
    read_price: None,
    ttl_ms: FIVE_MINUTES,
    units: false,
};

/// OpenAI's automatic caching: 1,024 tokens, then steps of 128.
pub const AUTOMATIC: ProviderRules = ProviderRules {
    caching: Caching::Automatic,
    min_tokens: Some(1024),
    step: 128,
    reports_writes: false,
    read_price: None,
    ttl_ms: FIVE_MINUTES,
    units: false,
};

impl Provider {
    /// The provider's id in `session --json` and the tables.
    pub fn id(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::Bedrock => "bedrock",
            Provider::Vertex => "vertex-anthropic",
            Provider::Foundry => "foundry-anthropic",
            Provider::OpenAi => "openai",
            Provider::Azure => "azure-openai",
            Provider::DeepSeek => "deepseek",
            Provider::Moonshot => "moonshot",
            Provider::Zai => "zai",
            Provider::Gemini => "gemini",
            Provider::Mistral => "mistral",
            Provider::Xai => "xai",
            Provider::Cohere => "cohere",
            Provider::Unmodelled => "unmodelled",
        }
    }

    /// Every provider a user may name (`session.provider`), in the order `settings` lists them.
    pub const NAMED: [Provider; 10] = [
        Provider::Anthropic,
        Provider::Bedrock,
        Provider::Vertex,
        Provider::Foundry,
        Provider::OpenAi,
        Provider::Azure,
        Provider::DeepSeek,
        Provider::Moonshot,
        Provider::Zai,
        Provider::Gemini,
    ];

    /// The provider of an id ([`Provider::id`]), among those a user may name.
    pub fn from_id(id: &str) -> Option<Provider> {
        Provider::NAMED.into_iter().find(|p| p.id() == id)
    }

    /// Why a provider toolprism names is not modelled (`None`: it is, or it is not named).
    pub fn not_modelled(self) -> Option<&'static str> {
        Some(match self {
            // Both cache shared prefixes automatically (reads at 10% and at a model's cached
            // price), but publish no minimum, unit or lifetime; their recordings read in blocks
            // (Mistral 128 tokens, xAI 64) and miss prefixes other providers' rules would read.
            Provider::Mistral | Provider::Xai => {
                "its automatic cache has no published minimum, unit or lifetime"
            }
            Provider::Cohere => "it publishes no prompt cache",
            _ => return None,
        })
    }

    /// Its cache rules (`None`: not modelled). Sources in SESSIONS.md section 3.
    pub fn rules(self) -> Option<ProviderRules> {
        let (breakpoints, automatic) = (BREAKPOINTS, AUTOMATIC);
        Some(match self {
            Provider::Anthropic | Provider::Bedrock | Provider::Vertex | Provider::Foundry => {
                breakpoints
            }
            Provider::OpenAi | Provider::Azure => automatic,
            // A 64-token storage unit: shorter prefixes are not cached, reads are whole units.
            // Unused prefixes are cleared "within a few hours to a few days". Since its models
            // went to sliding-window attention, a read is of a whole stored unit: a request's
            // input, its output, or a prefix two requests were seen to share.
            Provider::DeepSeek => ProviderRules {
                min_tokens: Some(64),
                step: 64,
                read_price: Some(0.1),
                ttl_ms: NO_LIFETIME,
                units: true,
                ..automatic
            },
            // Automatic context caching; no minimum, unit or lifetime is published: any common
            // prefix, kept (a GLM session read prefixes last used 17 minutes before).
            Provider::Moonshot | Provider::Zai => ProviderRules {
                min_tokens: Some(1),
                step: 1,
                read_price: Some(0.25),
                ttl_ms: NO_LIFETIME,
                ..automatic
            },
            // Implicit caching from the model's minimum; reads in any amount.
            Provider::Gemini => ProviderRules {
                min_tokens: None,
                step: 1,
                read_price: Some(0.25),
                ..automatic
            },
            Provider::Mistral | Provider::Xai | Provider::Cohere | Provider::Unmodelled => {
                return None;
            }
        })
    }
}

/// How the provider of a request was told: which rule each turn's cache was modelled by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Told {
    /// By its host (`api.anthropic.com`, a Vertex `publishers/anthropic` path, ...).
    Host,
    /// A gateway's upstream, named by the model's vendor prefix (OpenRouter's `anthropic/…`).
    Routed,
    /// By the body's shape, the trace having no URL.
    Shape,
    /// A host toolprism does not know (a local gateway, a proxy): assumed from the request, its
    /// API and model (a `claude-*` model on the Messages API meets Anthropic's cache).
    Assumed,
    /// Named by the user (`--set session.provider=…`), the host being one toolprism does not
    /// know.
    Named,
}

impl Told {
    /// Its id in `session --json` (`turns[].provider_by`).
    pub fn id(self) -> &'static str {
        match self {
            Told::Host => "host",
            Told::Routed => "routed",
            Told::Shape => "shape",
            Told::Assumed => "assumed",
            Told::Named => "setting",
        }
    }
}

/// How the provider of a request was told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identified {
    /// The provider.
    pub provider: Provider,
    /// The request's host (`None`: no URL in the trace).
    pub host: Option<String>,
    /// How it was told.
    pub told: Told,
}

/// The model a URL names where the body does not: Gemini and Vertex
/// (`…/models/gemini-2.5-flash:generateContent`, `…/publishers/anthropic/models/claude-…@…:rawPredict`)
/// and Bedrock (`/model/{id}/converse`, the id percent-encoded).
pub fn model_in_url(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let segments: Vec<&str> = path.split('/').collect();
    let named = segments
        .iter()
        .rposition(|s| *s == "models" || *s == "model")?;
    let id = segments.get(named + 1)?;
    let id = if segments[named] == "models" {
        id.split(':').next().unwrap_or(id)
    } else {
        id
    };
    let id = percent_decoded(id);
    (!id.is_empty() && id.len() <= 200).then_some(id)
}

/// `%XX` escapes decoded (a Bedrock model id's `%3A`); anything malformed kept as written.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).and_then(|&b| hex(b)),
                bytes.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The provider of a request sent to `url` (when the trace has it) in `shape` for `model`.
pub fn identify(url: Option<&str>, shape: Shape, model: &str) -> Identified {
    identify_with(url, shape, model, None)
}

/// [`identify`], with the provider the user named (`session.provider`) for a request whose
/// host toolprism does not know, or that has none.
pub fn identify_with(
    url: Option<&str>,
    shape: Shape,
    model: &str,
    named: Option<Provider>,
) -> Identified {
    let mut who = identify_host(url, shape, model);
    if (who.provider == Provider::Unmodelled && who.told != Told::Routed) || who.told == Told::Shape
    {
        if let Some(named) = named {
            who.provider = named;
            who.told = Told::Named;
        } else if who.told == Told::Host
            && !who.host.as_deref().is_some_and(serves_its_own)
            && let Some(assumed) = from_request(shape, model)
        {
            who.provider = assumed;
            who.told = Told::Assumed;
        }
    }
    who
}

/// Hosts that run models themselves (an open model named like its maker's, `openai/gpt-oss`,
/// meets their cache, not its maker's), or that are no API (ChatGPT's own app): never assumed
/// to be a gateway.
fn serves_its_own(host: &str) -> bool {
    const HOSTS: [&str; 7] = [
        "groq.com",
        "together.xyz",
        "together.ai",
        "fireworks.ai",
        "cerebras.ai",
        "perplexity.ai",
        "chatgpt.com",
    ];
    HOSTS
        .iter()
        .any(|h| host == *h || host.ends_with(&format!(".{h}")))
}

/// The provider a request to a host toolprism does not know most likely met, from its API and
/// model: a model sent in its maker's own API shape (`claude-*` on Messages, `gpt-*` and the
/// `o` series on Chat or Responses, `gemini-*` on generateContent, Converse on Bedrock), or a
/// gateway's vendor prefix (`anthropic/claude-…`). `None` where the two do not say.
fn from_request(shape: Shape, model: &str) -> Option<Provider> {
    let lower = model.to_ascii_lowercase();
    if lower.contains('/') {
        let routed = upstream(&lower);
        if routed != Provider::Unmodelled {
            return Some(routed);
        }
    }
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let o_series = name.len() > 1 && name.starts_with('o') && name.as_bytes()[1].is_ascii_digit();
    let provider = match shape {
        Shape::AnthropicMessages if name.starts_with("claude") => Provider::Anthropic,
        Shape::OpenAiChat | Shape::OpenAiResponses
            if name.starts_with("gpt-") || name.starts_with("chatgpt") || o_series =>
        {
            Provider::OpenAi
        }
        Shape::GeminiGenerateContent if name.starts_with("gemini") => Provider::Gemini,
        Shape::BedrockConverse => Provider::Bedrock,
        _ if name.starts_with("deepseek") => Provider::DeepSeek,
        _ if name.starts_with("grok") => Provider::Xai,
        _ if ["mistral", "codestral", "devstral", "magistral"]
            .iter()
            .any(|m| name.starts_with(m)) =>
        {
            Provider::Mistral
        }
        _ => return None,
    };
    Some(provider)
}

/// The provider its host tells (OpenRouter: its upstream), or its shape without a URL.
fn identify_host(url: Option<&str>, shape: Shape, model: &str) -> Identified {
    let Some(url) = url else {
        let provider = match shape {
            Shape::AnthropicMessages => Provider::Anthropic,
            Shape::OpenAiChat | Shape::OpenAiResponses => Provider::OpenAi,
            Shape::GeminiGenerateContent => Provider::Gemini,
            Shape::BedrockConverse => Provider::Bedrock,
            Shape::McpToolsList => Provider::Unmodelled,
        };
        return Identified {
            provider,
            host: None,
            told: Told::Shape,
        };
    };
    let host = host_of(url);
    let path = url.to_ascii_lowercase();
    let h = host.as_str();
    let ends = |suffix: &str| h == suffix || h.ends_with(&format!(".{suffix}"));
    let mut told = Told::Host;
    let provider = if ends("anthropic.com") {
        Provider::Anthropic
    } else if ends("amazonaws.com") && h.contains("bedrock") {
        Provider::Bedrock
    } else if ends("googleapis.com") && path.contains("/publishers/anthropic/") {
        Provider::Vertex
    } else if ends("generativelanguage.googleapis.com") || ends("aiplatform.googleapis.com") {
        Provider::Gemini
    } else if ends("services.ai.azure.com") && path.contains("/anthropic/") {
        Provider::Foundry
    } else if ends("openai.com") || (ends("chatgpt.com") && path.contains("/backend-api/codex/")) {
        // Codex signed in with ChatGPT sends its Responses calls to chatgpt.com: OpenAI's models
        // and cache behind another door.
        Provider::OpenAi
    } else if ends("services.ai.azure.com") && path.contains("/models/") {
        // Azure AI Foundry's model inference endpoint serves many makers' models: each meets
        // its maker's cache (OpenAI's as Azure OpenAI's).
        told = Told::Routed;
        foundry_model(model)
    } else if ends("openai.azure.com")
        || ends("cognitiveservices.azure.com")
        || ends("services.ai.azure.com")
    {
        Provider::Azure
    } else if ends("deepseek.com") {
        Provider::DeepSeek
    } else if ends("moonshot.ai") || ends("moonshot.cn") || ends("kimi.com") {
        Provider::Moonshot
    } else if ends("z.ai") || ends("bigmodel.cn") {
        Provider::Zai
    } else if ends("mistral.ai") {
        Provider::Mistral
    } else if ends("x.ai") {
        Provider::Xai
    } else if ends("cohere.com") || ends("cohere.ai") {
        Provider::Cohere
    } else if ends("openrouter.ai") {
        told = Told::Routed;
        upstream(model)
    } else {
        Provider::Unmodelled
    };
    Identified {
        provider,
        host: Some(host),
        told,
    }
}

/// OpenRouter's upstream, by the model's vendor prefix: it passes `cache_control` to Anthropic
/// and Gemini, and the others cache on their own.
fn upstream(model: &str) -> Provider {
    let vendor = model.split('/').next().unwrap_or("").to_ascii_lowercase();
    match vendor.as_str() {
        "anthropic" => Provider::Anthropic,
        "openai" => Provider::OpenAi,
        "deepseek" => Provider::DeepSeek,
        "moonshotai" => Provider::Moonshot,
        "z-ai" | "zhipuai" => Provider::Zai,
        "google" => Provider::Gemini,
        "x-ai" => Provider::Xai,
        "mistralai" => Provider::Mistral,
        _ => Provider::Unmodelled,
    }
}

/// The maker of a model served by Azure AI Foundry's model inference endpoint, by its name.
fn foundry_model(model: &str) -> Provider {
    let name = model.to_ascii_lowercase();
    let o_series = name.len() > 1 && name.starts_with('o') && name.as_bytes()[1].is_ascii_digit();
    if name.starts_with("gpt-") || o_series {
        Provider::Azure
    } else if name.starts_with("grok") {
        Provider::Xai
    } else if name.starts_with("deepseek") {
        Provider::DeepSeek
    } else if name.starts_with("mistral") || name.starts_with("codestral") {
        Provider::Mistral
    } else if name.starts_with("cohere") {
        Provider::Cohere
    } else {
        Provider::Unmodelled
    }
}

/// The host of a URL, lower case, without port or credentials.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = host.split(':').next().unwrap_or(host);
    host.to_ascii_lowercase()
}

/// The minimum of a model without an automatic cache: no prompt is that long, and the
/// figure stays exact once scaled by a calibration ratio.
pub const NO_IMPLICIT_CACHE: usize = u32::MAX as usize;

/// Whether a Gemini model caches implicitly: the 2.5 models and later do; 1.x and 2.0 (and the
/// unversioned `gemini-pro` of 1.0) have only explicit context caches (`cachedContent`).
/// A name without a version (`gemini-flash-latest`) is today's model.
pub fn gemini_caches_implicitly(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    let name = m.rsplit('/').next().unwrap_or(&m);
    let Some(rest) = name.strip_prefix("gemini-") else {
        return true;
    };
    if rest.starts_with("pro") || rest.starts_with("exp-") || rest.starts_with("ultra") {
        return false;
    }
    gemini_version(name).is_none_or(|v| v >= (2, 5))
}

/// Gemini's implicit-cache minimum, from Google's table of October 2026: 2,048 for 2.5 Flash
/// and Pro, 4,096 for the 3.x models and later (and for a name without a version, today's).
fn gemini_min_tokens(model: &str) -> usize {
    match gemini_version(model) {
        Some((major, _)) if major < 3 => 2048,
        _ => 4096,
    }
}

/// A Gemini model name's version (`gemini-2.5-flash`: (2, 5)); `None` without one.
pub(super) fn gemini_version(model: &str) -> Option<(u32, u32)> {
    let name = model.rsplit('/').next().unwrap_or(model);
    let rest = name.strip_prefix("gemini-")?;
    let version: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    let major = parts.next().flatten()?;
    Some((major, parts.next().flatten().unwrap_or(0)))
}

/// The minimum a model the tables do not name is modelled with (its turns say it is unknown).
pub const ASSUMED_MIN_TOKENS: usize = 1024;

/// The shortest cached prefix for a model, from the providers' published tables.
pub fn min_tokens(provider: Provider, model: &str) -> usize {
    let m = model.to_ascii_lowercase();
    match provider {
        Provider::Gemini if !gemini_caches_implicitly(&m) => NO_IMPLICIT_CACHE,
        Provider::Gemini => gemini_min_tokens(&m),
        // Claude's table (`models.rs`); a model it does not name is modelled at 1,024 and its
        // turns say the minimum is unknown.
        Provider::Anthropic | Provider::Bedrock | Provider::Vertex | Provider::Foundry => {
            super::models::claude_model(&m)
                .and_then(|row| row.min_tokens)
                .unwrap_or(ASSUMED_MIN_TOKENS)
        }
        _ => 1024,
    }
}

/// The tokens Anthropic adds for tool use (its tool-use system prompt), as its pricing page
/// lists them per model and `tool_choice` (`any`/`tool` the second figure): counted in the
/// input and in every cached prefix of a request that sends tools.
pub fn tool_use_tokens(model: &str, forced: bool) -> usize {
    let m = model.to_ascii_lowercase();
    let (auto, forced_n) = if m.contains("3-opus") || m.contains("opus-3") {
        (530, 281)
    } else if m.contains("3-sonnet-2024") || m.contains("sonnet-3-") {
        (159, 235)
    } else if m.contains("3-haiku") || m.contains("3-5-haiku") || m.contains("haiku-3") {
        (264, 340)
    } else {
        (346, 313)
    };
    tool_use_unpublished(&m, forced) + if forced { forced_n } else { auto }
}

/// Of [`tool_use_tokens`], what no page publishes (`model` in lower case).
pub fn tool_use_unpublished(model: &str, forced: bool) -> usize {
    match (claude_4_5_or_later(model), TOOL_USE_UNPUBLISHED) {
        (false, _) => 0,
        (true, (_, more)) if forced => more,
        (true, (more, _)) => more,
    }
}

/// Provider tokens Claude 4.5 and later (Sonnet and Haiku 4.5, Opus 4.5 to 4.8, Sonnet 4.6, the
/// 5 family, Fable and Mythos) bill on every request that sends tools beyond the tool-use
/// prompt the pricing page lists for Claude 4 (346 / 313), `tool_choice` `auto`/`none` first,
/// `any`/`tool` second: unpublished, measured past each turn's own count on recordings made
/// from November 2025 on without a tool search (pydantic-ai, ruby_llm, ellmer: 57 pydantic-ai
/// sessions of March 2026 at a median of 164; `auto` 148 to 182, forced 302 to 326 past 313;
/// Sonnet 4 and 3.7 none, and recordings of October 2025 none, the prompt having grown since).
pub const TOOL_USE_UNPUBLISHED: (usize, usize) = (165, 307);

/// Whether a Claude model is 4.5 or later by its name (`claude-sonnet-4-5-20250929`,
/// `anthropic/claude-haiku-4.5`, `us.anthropic.claude-opus-4-8-v1:0`, `claude-fable-5`); the
/// 3.x names put the version first (`claude-3-7-sonnet`) and are earlier.
fn claude_4_5_or_later(model: &str) -> bool {
    let Some(at) = model.find("claude-") else {
        return false;
    };
    let mut words = model[at + "claude-".len()..].split(['-', '.', '@', ':']);
    match words.next() {
        Some("fable" | "mythos") => true,
        Some("sonnet" | "opus" | "haiku") => {
            let number =
                |w: Option<&str>| w.and_then(|w| w.parse::<u32>().ok()).filter(|&n| n < 100);
            let major = number(words.next());
            let minor = number(words.next()).unwrap_or(0);
            major.is_some_and(|major| (major, minor) >= (4, 5))
        }
        _ => false,
    }
}

/// Anthropic-defined client tools a request names by type alone (`computer_20250124`,
/// `bash_20250124`, `text_editor_20250728`, …): the provider bills the definition it holds
/// for each, and computer use adds a system prompt of its own, none of which the request
/// shows (Anthropic, *Computer use tool*: 735 tokens per definition on Claude 4 and Sonnet
/// 3.7, 683 for `computer_20241022`, and 466 to 499 system prompt tokens, the lower taken;
/// *Bash tool*: 245; *Text editor tool*: 700). Unread, the computer-use sample's request of
/// 57 counted tokens calibrates at 26 provider tokens per token.
pub fn defined_tools_tokens(tools: &[Value]) -> usize {
    let mut computer = false;
    let mut search = false;
    let mut tokens = 0;
    for kind in tools
        .iter()
        .filter_map(|t| t.get("type").and_then(Value::as_str))
    {
        tokens += if kind == "computer_20241022" {
            computer = true;
            683
        } else if kind.starts_with("computer_") {
            computer = true;
            735
        } else if kind.starts_with("bash_") {
            245
        } else if kind.starts_with("text_editor_") {
            700
        } else if kind.starts_with("tool_search_tool_") {
            search = true;
            0
        } else {
            0
        };
    }
    tokens + if computer { 466 } else { 0 } + if search { TOOL_SEARCH_PROMPT } else { 0 }
}

/// The provider tokens Anthropic's tool search (`tool_search_tool_bm25` / `_regex`) adds to a
/// request beyond its entry, once however many search tools: unpublished, measured on
/// pydantic-ai's cassettes of August 2026 (63 Messages calls with tools, 29 with a search tool,
/// Sonnet 4.5 to Fable 5; a least-squares fit of billed input against counted tokens gives 186
/// with the search tool, at 1.01 provider tokens per o200k token).
pub const TOOL_SEARCH_PROMPT: usize = 186;

#[cfg(test)]
#[path = "provider_tests.rs"]
mod tests;
