//! vtcode's provider-side tool search: `search` (STRATEGIES.md section 6).
//!
//! vtcode-core 0.181.2's `SessionToolCatalog::model_tools` on a captured list: every tool outside
//! vtcode's core set and `search.always` is deferable. With a hosted tool search (Anthropic's
//! `tool_search_tool_regex_20251119` / `..._bm25_20251119`, OpenAI's `{"type":"tool_search"}`)
//! each deferable tool is sent marked `defer_loading: true`, and the provider's search entry is
//! appended once any tool is deferred. Client-local search sends no search entry: it leaves the
//! deferred definitions out of the request, but only when the catalog is worth it (an MCP tool,
//! at least 15 deferable tools, or over 4,000 schema tokens by vtcode's bytes/4 estimate);
//! otherwise every tool is sent as is.
//!
//! The catalog projects each description and schema with vtcode's default documentation mode
//! (`progressive`, 0.181.2 budgets) before sending, so `search` does too.
//!
//! Decisions toolprism makes where vtcode's catalog does not carry over to a captured list:
//! - Every function entry of the capture is a visible catalog entry; vtcode's profile and
//!   surface filters describe its own registry, not a foreign list.
//! - Entries the provider runs itself (hosted entries, and entries whose `type` names a provider
//!   tool, such as a tool search entry already present or Anthropic's `web_search_*`) are never
//!   deferred: vtcode builds those natively, outside the catalog.
//! - An entry already marked `defer_loading` keeps the mark (and counts as deferred).
//! - The `defer_loading` key is appended to the entry, which is where vtcode-llm's formatters put
//!   it (its last field); the rest of the entry keeps its keys.

use rayon::prelude::*;
use serde_json::{Value, json};

use crate::capture::{Capture, Shape};
use crate::projection::{Draft, SentTool, Status};
use crate::setting_key::{self, SettingKey, ValueKind};
use crate::settings::{SearchAlgorithm, SearchProvider, Settings, VtcodeRelease};
use crate::strategy::Strategy;
use crate::tool;

/// The keys `search` reads beside vtcode's, in `--set` order.
pub const SETTINGS: &[SettingKey] = &[
    SettingKey {
        key: "search.provider",
        help: "auto (by the capture's shape; a session's turns sent to OpenRouter: openrouter), anthropic, openai, client (client-local) or openrouter (openrouter:tool_search)",
        kind: ValueKind::Choice(&["auto", "anthropic", "openai", "client", "openrouter"]),
        affects: &[Strategy::Search],
        first_for: &[Strategy::Search],
        read: |s| Some(s.search_provider.id().into()),
        write: |s, v| {
            s.search_provider = match v.trim() {
                "auto" => SearchProvider::Auto,
                "anthropic" => SearchProvider::Anthropic,
                "openai" => SearchProvider::OpenAi,
                "client" => SearchProvider::Client,
                "openrouter" => SearchProvider::OpenRouter,
                _ => return Err("auto, anthropic, openai, client or openrouter"),
            };
            Ok(())
        },
    },
    SettingKey {
        key: "search.algorithm",
        help: "regex or bm25 (Anthropic's tool search tool)",
        kind: ValueKind::Choice(&["regex", "bm25"]),
        affects: &[Strategy::Search],
        first_for: &[],
        read: |s| Some(s.search_algorithm.id().into()),
        write: |s, v| {
            s.search_algorithm = match v.trim() {
                "regex" => SearchAlgorithm::Regex,
                "bm25" => SearchAlgorithm::Bm25,
                _ => return Err("regex or bm25"),
            };
            Ok(())
        },
    },
    SettingKey {
        key: "search.always",
        help: "comma-separated tool names search keeps eager",
        kind: ValueKind::Names,
        affects: &[Strategy::Search],
        first_for: &[],
        read: |s| Some(s.search_always.join(",")),
        write: |s, v| {
            s.search_always = setting_key::names(v);
            Ok(())
        },
    },
];

/// vtcode's always-eager tools (`is_core_tool_entry` outside planning, with
/// `request_user_input` enabled and Anthropic's native memory off).
pub const CORE_TOOLS: &[&str] = &[
    "exec_command",
    "write_stdin",
    "search_tools",
    "code_search",
    "grep_file",
    "matrix",
    "task_tracker",
    "start_planning",
    "request_user_input",
    "apply_patch",
];

/// vtcode's client-local MCP discovery tools: eager under client-local search only.
pub const CLIENT_LOCAL_CORE_TOOLS: &[&str] = &[
    "mcp_search_tools",
    "mcp_get_tool_details",
    "mcp_list_servers",
];

/// Deferable tools at which client-local search omits them (`DIRECT_TOOL_EXPOSURE_THRESHOLD`).
pub const DIRECT_EXPOSURE_THRESHOLD: usize = 15;

/// Estimated schema tokens above which client-local search omits them
/// (`DIRECT_TOOL_EXPOSURE_TOKEN_BUDGET`).
pub const DIRECT_EXPOSURE_TOKEN_BUDGET: usize = 4_000;

/// The tool search vtcode uses for a capture (its `DeferredToolSearchKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Anthropic's tool search with the given algorithm.
    Anthropic(SearchAlgorithm),
    /// OpenAI's hosted tool search.
    OpenAiHosted,
    /// vtcode's client-local search: deferred definitions omitted.
    ClientLocal,
    /// OpenRouter's `openrouter:tool_search` (any model; its Responses and Messages APIs).
    OpenRouter,
}

impl Kind {
    /// The kind `search.provider` selects for a capture of `shape`.
    pub fn for_capture(shape: Shape, settings: &Settings) -> Kind {
        match settings.search_provider {
            SearchProvider::Anthropic => Kind::Anthropic(settings.search_algorithm),
            SearchProvider::OpenAi => Kind::OpenAiHosted,
            SearchProvider::Client => Kind::ClientLocal,
            SearchProvider::OpenRouter => Kind::OpenRouter,
            SearchProvider::Auto => match shape {
                Shape::AnthropicMessages => Kind::Anthropic(settings.search_algorithm),
                Shape::OpenAiResponses => Kind::OpenAiHosted,
                Shape::OpenAiChat
                | Shape::McpToolsList
                | Shape::GeminiGenerateContent
                | Shape::BedrockConverse => Kind::ClientLocal,
            },
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Kind::Anthropic(SearchAlgorithm::Regex) => "Anthropic's tool search (regex)",
            Kind::Anthropic(SearchAlgorithm::Bm25) => "Anthropic's tool search (bm25)",
            Kind::OpenAiHosted => "OpenAI's hosted tool search",
            Kind::ClientLocal => "vtcode's client-local tool search",
            Kind::OpenRouter => "OpenRouter's tool search (openrouter:tool_search)",
        }
    }

    /// The search entry the provider needs beside the deferred tools, as vtcode-llm writes it
    /// (`None` for client-local search, which adds none).
    pub fn search_entry(self) -> Option<Value> {
        match self {
            Kind::Anthropic(SearchAlgorithm::Regex) => Some(json!({
                "type": "tool_search_tool_regex_20251119",
                "name": "tool_search_tool_regex"
            })),
            Kind::Anthropic(SearchAlgorithm::Bm25) => Some(json!({
                "type": "tool_search_tool_bm25_20251119",
                "name": "tool_search_tool_bm25"
            })),
            Kind::OpenAiHosted => Some(json!({"type": "tool_search"})),
            Kind::OpenRouter => Some(json!({"type": "openrouter:tool_search"})),
            Kind::ClientLocal => None,
        }
    }
}

/// Why Anthropic's tool search cannot run on `model`, if it cannot: its documentation lists
/// Claude Haiku 4.5, Sonnet 4.5 and later, Opus 4.5 and later and the 5 family, not Opus 4.1 or
/// earlier, Sonnet 4 or the 3.x models. A model id toolprism cannot read is let through.
pub fn anthropic_model_refuses(model: &str) -> Option<String> {
    let m = model.to_ascii_lowercase();
    let at = m.find("claude-")?;
    let parts: Vec<&str> = m[at + 7..].split(['-', '.', '@', ':']).collect();
    let number = |s: &str| s.len() <= 2 && s.chars().all(|c| c.is_ascii_digit());
    let family = parts
        .iter()
        .position(|p| matches!(*p, "opus" | "sonnet" | "haiku"))?;
    // `claude-sonnet-4-5-…` (version after the family) or `claude-3-7-sonnet-…` (before it).
    let version: Vec<u32> = if parts.first().is_some_and(|p| number(p)) {
        parts[..family]
            .iter()
            .filter(|p| number(p))
            .filter_map(|p| p.parse().ok())
            .collect()
    } else {
        parts[family + 1..]
            .iter()
            .take_while(|p| number(p))
            .filter_map(|p| p.parse().ok())
            .collect()
    };
    let (major, minor) = (*version.first()?, version.get(1).copied().unwrap_or(0));
    if major >= 5 || (major == 4 && minor >= 5) {
        return None;
    }
    Some(format!(
        "Anthropic's tool search does not run on {model}: it needs Claude Haiku 4.5, Sonnet 4.5, Opus 4.5 or later"
    ))
}

/// Whether an entry is a provider's tool search tool (`tool_search_tool_*`, `tool_search`,
/// `openrouter:tool_search`).
pub fn is_search_entry(entry: &Value) -> bool {
    entry
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| {
            kind == "tool_search"
                || kind == "openrouter:tool_search"
                || kind.starts_with("tool_search_tool_")
        })
}

/// Whether an entry is one the provider runs itself rather than a function definition: a
/// hosted entry, or one whose `type` is neither `function` nor `custom`.
fn is_provider_tool(entry: &Value) -> bool {
    if tool::is_hosted(entry) {
        return true;
    }
    match entry.get("type").and_then(Value::as_str) {
        None | Some("function" | "custom") => false,
        Some(_) => true,
    }
}

/// Whether vtcode keeps a tool eager under `kind` (its core set, `search.always`). An always
/// name matches the public name or, for an MCP tool, its registration name: `mcp::server::tool`
/// keeps `mcp__server__tool`.
pub fn is_core(name: &str, kind: Kind, settings: &Settings) -> bool {
    CORE_TOOLS.contains(&name)
        || (kind == Kind::ClientLocal && CLIENT_LOCAL_CORE_TOOLS.contains(&name))
        || settings.search_always.iter().any(|always| {
            always == name
                || always.strip_prefix("mcp::").is_some_and(|rest| {
                    name.strip_prefix("mcp__") == Some(&*rest.replace("::", "__"))
                })
        })
}

/// vtcode's schema-token estimate of one entry: the bytes of compact
/// `{"name","description","parameters"}` over 4, rounded down.
pub fn estimate_tokens(entry: &Value) -> usize {
    let name = tool::name(entry).unwrap_or("");
    let description = tool::description(entry).unwrap_or("");
    let parameters = tool::schema(entry).cloned().unwrap_or(Value::Null);
    let serialized = json!({"name": name, "description": description, "parameters": parameters});
    tool::compact(&serialized).len() / 4
}

/// Project a capture under vtcode's tool search.
#[allow(
    clippy::too_many_lines,
    reason = "vtcode's tool search rules, step by step in its order"
)]
pub fn project(capture: &Capture, settings: &Settings) -> Draft {
    let kind = Kind::for_capture(capture.shape(), settings);
    let model = capture
        .body()
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("");
    if let Kind::Anthropic(_) = kind
        && let Some(why) = anthropic_model_refuses(model)
    {
        return Draft::refused(capture, why);
    }
    // The catalog projects with 0.181.2's progressive budget whatever `vtcode.release` says:
    // tool search first shipped there.
    let mut docs = settings.clone();
    docs.vtcode_release = VtcodeRelease::V0_181_2;

    struct Entry {
        projected: Option<(Value, String)>,
        function: bool,
        deferable: bool,
        already_deferred: bool,
    }
    let tools = capture.tools();
    let hides_app_only = crate::strategies::vtcode::hides_app_only(capture, &docs);
    // Entries are independent: projected in parallel, in order.
    let entries: Vec<Entry> = tools
        .par_iter()
        .enumerate()
        .with_min_len(64)
        .map(|(index, entry)| {
            // An app-only MCP tool is not in vtcode's catalog at all (see below).
            let function = !capture.is_hosted_at(index)
                && !is_provider_tool(entry)
                && (!hides_app_only || !crate::strategies::vtcode::app_only(entry));
            if !function {
                return Entry {
                    projected: None,
                    function,
                    deferable: false,
                    already_deferred: false,
                };
            }
            let name = tool::name(entry).unwrap_or("");
            Entry {
                projected: crate::strategies::vtcode::progressive_entry(entry, &docs),
                function,
                deferable: !is_core(name, kind, settings),
                already_deferred: tool::provider_deferred(entry),
            }
        })
        .collect();

    let functions = entries.iter().filter(|e| e.function).count();
    let deferable = entries.iter().filter(|e| e.deferable).count();
    let core = functions - deferable;
    let has_mcp = (0..tools.len()).any(|i| {
        entries[i].function && tool::name(&tools[i]).is_some_and(|name| settings.is_mcp(name))
    });
    let mut draft = Draft::default();

    let defer = match kind {
        Kind::Anthropic(_) | Kind::OpenAiHosted | Kind::OpenRouter => deferable > 0,
        Kind::ClientLocal => {
            let estimate: usize = (0..tools.len())
                .filter(|&i| entries[i].function)
                .map(|i| {
                    let sent = entries[i].projected.as_ref().map(|(value, _)| value);
                    estimate_tokens(sent.unwrap_or(&tools[i]))
                })
                .sum();
            let qualifies = has_mcp
                || deferable >= DIRECT_EXPOSURE_THRESHOLD
                || estimate > DIRECT_EXPOSURE_TOKEN_BUDGET;
            let why = format!(
                "{} MCP tool, {deferable} deferable (omitted from {DIRECT_EXPOSURE_THRESHOLD}), {estimate} estimated schema tokens (omitted above {DIRECT_EXPOSURE_TOKEN_BUDGET})",
                if has_mcp { "an" } else { "no" }
            );
            if qualifies {
                draft.info(format!(
                    "client-local search qualifies ({why}): the deferred definitions are left out of this request; vtcode expands a tool found by mcp_search_tools into the next one"
                ));
                let has_finder = tools
                    .iter()
                    .any(|entry| tool::name(entry) == Some("mcp_search_tools"));
                if !has_finder && deferable > 0 {
                    draft.info(
                        "the capture sends no mcp_search_tools: vtcode always sends its own (a core tool), so in vtcode the left-out tools stay reachable"
                            .to_owned(),
                    );
                }
            } else if deferable > 0 {
                draft.info(format!(
                    "client-local search does not qualify ({why}): vtcode sends every tool eagerly"
                ));
            }
            qualifies && deferable > 0
        }
    };

    let mut sent = Vec::with_capacity(tools.len() + 1);
    let mut marked = 0;
    let mut hidden = 0;
    for (index, entry) in entries.iter().enumerate() {
        if hides_app_only && crate::strategies::vtcode::app_only(&tools[index]) {
            hidden += 1;
            draft.dropped.push((
                index,
                Status::Removed,
                crate::strategies::vtcode::APP_ONLY_REASON.to_owned(),
            ));
            continue;
        }
        let projected = entry.projected.clone();
        if !(defer && entry.deferable) {
            sent.push(match projected {
                Some((value, reason)) => SentTool::changed(index, value, reason),
                None => SentTool::original(index),
            });
            continue;
        }
        match kind {
            Kind::ClientLocal => draft.dropped.push((
                index,
                Status::Deferred,
                "left out until vtcode's client-local search finds it".to_owned(),
            )),
            Kind::Anthropic(_) | Kind::OpenAiHosted | Kind::OpenRouter => {
                marked += 1;
                if entry.already_deferred {
                    sent.push(match projected {
                        Some((value, reason)) => SentTool::changed(index, value, reason),
                        None => SentTool::original(index),
                    });
                    continue;
                }
                let (mut value, mut reasons) = match projected {
                    Some((value, reason)) => (value, vec![reason]),
                    None => (tools[index].clone(), Vec::new()),
                };
                if let Some(object) = value.as_object_mut() {
                    object.insert("defer_loading".to_owned(), Value::Bool(true));
                }
                reasons.push(
                    "marked defer_loading: out of context until the provider's tool search returns it"
                        .to_owned(),
                );
                sent.push(SentTool::changed(index, value, reasons.join("; ")));
            }
        }
    }

    let hosted = matches!(
        kind,
        Kind::Anthropic(_) | Kind::OpenAiHosted | Kind::OpenRouter
    );
    let has_search = tools.iter().any(is_search_entry);
    if hosted
        && marked > 0
        && let Some(search) = kind.search_entry()
    {
        if has_search {
            draft.info(
                "the capture already sends a tool search entry: vtcode's is not added twice"
                    .to_owned(),
            );
        } else {
            sent.push(SentTool::added(
                search,
                format!("{}: finds the deferred tools", kind.describe()),
            ));
        }
    }
    if hosted && kind_mismatches(kind, capture.shape()) {
        draft.warning(format!(
            "search.provider={} on a {} capture: the entries are shown as vtcode writes them for that provider, which this request's API would reject",
            settings.search_provider.id(),
            capture.shape().id()
        ));
    }
    draft.sent = Some(sent);
    if hidden > 0 {
        draft
            .notes
            .push(crate::strategies::vtcode::app_only_note(hidden));
    }

    let always = if settings.search_always.is_empty() {
        String::new()
    } else {
        format!(" and search.always ({})", settings.search_always.join(", "))
    };
    if functions == 0 {
        if !tools.is_empty() {
            draft.not_applicable("no function tools to defer: only provider-run entries");
        }
    } else if deferable == 0 {
        draft.not_applicable(format!(
            "every tool is in vtcode's core set{always}: nothing to defer"
        ));
    } else if hosted {
        draft.info(format!(
            "{}: {marked} of {functions} tools deferred (defer_loading), {core} kept eager by vtcode's core set{always}",
            kind.describe()
        ));
    }
    if hosted && marked > 0 {
        draft.info(
            "a tool_choice naming a deferred tool stays valid: the provider loads it".to_owned(),
        );
    }
    if entries.iter().any(|e| e.projected.is_some()) {
        draft.info(
            "descriptions and schemas projected by vtcode's default documentation mode (progressive, vtcode-core 0.181.2) as its catalog does before sending"
                .to_owned(),
        );
    }
    draft
}

/// Whether a hosted kind's entries belong to another API than the capture's.
fn kind_mismatches(kind: Kind, shape: Shape) -> bool {
    match kind {
        Kind::Anthropic(_) => shape != Shape::AnthropicMessages,
        // vtcode's Chat serializer sends `{"type":"tool_search"}` and `defer_loading` too.
        Kind::OpenAiHosted => !matches!(shape, Shape::OpenAiResponses | Shape::OpenAiChat),
        // Its Responses and Messages APIs (a Chat request with it is rejected).
        Kind::OpenRouter => !matches!(shape, Shape::OpenAiResponses | Shape::AnthropicMessages),
        Kind::ClientLocal => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_entries_as_vtcode_llm_writes_them() {
        assert_eq!(
            tool::compact(
                &Kind::Anthropic(SearchAlgorithm::Regex)
                    .search_entry()
                    .unwrap()
            ),
            r#"{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}"#
        );
        assert_eq!(
            tool::compact(
                &Kind::Anthropic(SearchAlgorithm::Bm25)
                    .search_entry()
                    .unwrap()
            ),
            r#"{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}"#
        );
        assert_eq!(
            tool::compact(&Kind::OpenAiHosted.search_entry().unwrap()),
            r#"{"type":"tool_search"}"#
        );
        assert_eq!(Kind::ClientLocal.search_entry(), None);
    }

    #[test]
    fn anthropic_search_by_model() {
        for ok in [
            "claude-sonnet-4-5-20250929",
            "claude-haiku-4-5",
            "claude-opus-4-6",
            "claude-opus-5",
            // Every 5.x model takes tool search (the tool search page's model list).
            "claude-opus-5-5",
            "claude-sonnet-5",
            "claude-sonnet-5-5",
            "claude-haiku-5-5",
            "claude-fable-5-2",
            "claude-mythos-5-1",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "gpt-5",
        ] {
            assert_eq!(anthropic_model_refuses(ok), None, "{ok}");
        }
        for refused in [
            "claude-sonnet-4-20250514",
            "claude-opus-4-1-20250805",
            "claude-3-7-sonnet-20250219",
            "claude-3-5-haiku-20241022",
        ] {
            assert!(anthropic_model_refuses(refused).is_some(), "{refused}");
        }
    }

    #[test]
    fn estimate_is_vtcodes_bytes_over_four() {
        let entry = json!({"name": "ab", "description": "cd", "input_schema": {"type": "object"}});
        // {"name":"ab","description":"cd","parameters":{"type":"object"}} is 63 bytes.
        assert_eq!(estimate_tokens(&entry), 63 / 4);
    }
}
