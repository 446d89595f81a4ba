//! The settings registry: every `--set` key in one order, composed from the keys each strategy
//! module declares (`vtcode::SETTINGS`, `a3s::SETTINGS`, …) and the two groups no one strategy
//! owns ([`SHARED`]: `mcp.prefixes`; [`CACHE`]: the session cost model). It parses, reads and
//! prints [`Settings`] ([`Settings::apply`], [`Settings::set`], [`Settings::get`], `Display`)
//! and answers which settings change a strategy ([`settings_of`]).
//!
//! It sits above the strategies (it lists their keys) and below everything that parses or
//! prints settings; `settings.rs` below it holds only the values the strategies read.

use std::fmt;

use super::{a3s, leanctx, search, vtcode, zero};
use crate::setting_key::{self, SettingKey, ValueKind};
use crate::settings::Settings;
use crate::strategy::{Input, Strategy};

/// The keys read across strategies.
pub const SHARED: &[SettingKey] = &[SettingKey {
    key: "mcp.prefixes",
    help: "comma-separated name prefixes of MCP tools",
    kind: ValueKind::Names,
    affects: &[
        Strategy::Full,
        Strategy::Progressive,
        Strategy::Defer,
        Strategy::DeferCatalog,
        Strategy::Search,
        Strategy::Codex,
    ],
    first_for: &[Strategy::Codex],
    read: |s| Some(s.mcp_prefixes.join(",")),
    write: |s, v| {
        s.mcp_prefixes = setting_key::names(v);
        Ok(())
    },
}];

/// The session cost model's keys (docs/SESSIONS.md section 3): no projection reads them.
pub const CACHE: &[SettingKey] = &[
    SettingKey {
        key: "cache.read",
        help: "session cost of a cached token, in input tokens (auto: the model's, from docs/SESSIONS.md \"Models\"; 0.1 where unknown)",
        kind: ValueKind::Multiplier,
        affects: &[],
        first_for: &[],
        read: |s| Some(setting_key::multiplier_text(s.cache_read)),
        write: |s, v| {
            s.cache_read = setting_key::multiplier(v)?;
            Ok(())
        },
    },
    SettingKey {
        key: "cache.write",
        help: "session cost of a token written to a 5-minute prefix (auto: 1.25 Anthropic, 1.0 OpenAI)",
        kind: ValueKind::Multiplier,
        affects: &[],
        first_for: &[],
        read: |s| Some(setting_key::multiplier_text(s.cache_write)),
        write: |s, v| {
            s.cache_write = setting_key::multiplier(v)?;
            Ok(())
        },
    },
    SettingKey {
        key: "cache.ttl",
        help: "how long a cached prefix lives after its last use (auto: 5m; DeepSeek, Moonshot, Z.ai none; 300, 300s, 5m, 1h, 250ms)",
        kind: ValueKind::Duration,
        affects: &[],
        first_for: &[],
        read: |s| {
            Some(
                s.cache_ttl_ms
                    .map_or("auto".into(), setting_key::duration_text),
            )
        },
        write: |s, v| {
            s.cache_ttl_ms = match v.trim() {
                "auto" | "" => None,
                _ => Some(setting_key::duration_ms(v)?),
            };
            Ok(())
        },
    },
    SettingKey {
        key: "cache.write_1h",
        help: "session cost of a token written to a 1-hour Anthropic prefix (auto: 2.0)",
        kind: ValueKind::Multiplier,
        affects: &[],
        first_for: &[],
        read: |s| Some(setting_key::multiplier_text(s.cache.write_1h)),
        write: |s, v| {
            s.cache.write_1h = setting_key::multiplier(v)?;
            Ok(())
        },
    },
    SettingKey {
        key: "cache.ttl_1h",
        help: "lifetime of an Anthropic breakpoint with \"ttl\": \"1h\"",
        kind: ValueKind::Duration,
        affects: &[],
        first_for: &[],
        read: |s| Some(setting_key::duration_text(s.cache.ttl_1h_ms)),
        write: |s, v| {
            s.cache.ttl_1h_ms = setting_key::duration_ms(v)?;
            Ok(())
        },
    },
    SettingKey {
        key: "cache.ttl_24h",
        help: "lifetime of an OpenAI prompt with prompt_cache_retention \"24h\"",
        kind: ValueKind::Duration,
        affects: &[],
        first_for: &[],
        read: |s| Some(setting_key::duration_text(s.cache.ttl_24h_ms)),
        write: |s, v| {
            s.cache.ttl_24h_ms = setting_key::duration_ms(v)?;
            Ok(())
        },
    },
    SettingKey {
        key: "cache.min_tokens",
        help: "shortest prefix cached (auto: 1024; 2048 Claude Haiku 3/3.5; 4096 Claude Opus 4.5/4.6, Haiku 4.5)",
        kind: ValueKind::Number,
        affects: &[],
        first_for: &[],
        read: |s| Some(s.cache.min_tokens.map_or("auto".into(), |n| n.to_string())),
        write: |s, v| {
            s.cache.min_tokens = match v.trim() {
                "auto" | "" => None,
                _ => Some(setting_key::count(v, "auto, or a number of tokens")?),
            };
            Ok(())
        },
    },
    SettingKey {
        key: "cache.step",
        help: "OpenAI caches prefixes in steps of this many tokens past the minimum",
        kind: ValueKind::Number,
        affects: &[],
        first_for: &[],
        read: |s| Some(s.cache.step.to_string()),
        write: |s, v| {
            s.cache.step = setting_key::positive(v, "a positive number of tokens")?;
            Ok(())
        },
    },
    SettingKey {
        key: "cache.breakpoints",
        help: "most cache_control breakpoints an Anthropic request sets",
        kind: ValueKind::Number,
        affects: &[],
        first_for: &[],
        read: |s| Some(s.cache.breakpoints.to_string()),
        write: |s, v| {
            s.cache.breakpoints = setting_key::count(v, "a number of breakpoints")?;
            Ok(())
        },
    },
    SettingKey {
        key: "cache.lookback",
        help: "block boundaries an Anthropic breakpoint looks back over for a cached prefix",
        kind: ValueKind::Number,
        affects: &[],
        first_for: &[],
        read: |s| Some(s.cache.lookback.to_string()),
        write: |s, v| {
            s.cache.lookback = setting_key::count(v, "a number of blocks")?;
            Ok(())
        },
    },
    SettingKey {
        key: "cache.price",
        help: "US dollars per million input tokens, for the price of each break (auto: the model's list price where known: Claude and OpenAI models)",
        kind: ValueKind::Multiplier,
        affects: &[],
        first_for: &[],
        read: |s| Some(setting_key::multiplier_text(s.cache.price)),
        write: |s, v| {
            s.cache.price = setting_key::multiplier(v)?;
            Ok(())
        },
    },
    SettingKey {
        key: "session.provider",
        help: "whose cache a request to a host toolprism does not know met (a local gateway, a proxy; auto: assumed from the request's API and model, a claude-* model on the Messages API being Anthropic's)",
        kind: ValueKind::Choice(PROVIDERS),
        affects: &[],
        first_for: &[],
        read: |s| Some(s.cache.provider.unwrap_or("auto").to_owned()),
        write: |s, v| {
            let v = v.trim();
            let id = PROVIDERS.iter().find(|p| **p == v).ok_or(
                "auto or a provider: anthropic, bedrock, vertex-anthropic, foundry-anthropic, openai, azure-openai, deepseek, moonshot, zai, gemini",
            )?;
            s.cache.provider = (*id != "auto").then_some(*id);
            Ok(())
        },
    },
];

/// `session.provider`'s choices: `auto`, then the ids of the providers a user may name (the
/// session's `Provider::NAMED`, which a test keeps equal).
const PROVIDERS: &[&str] = &[
    "auto",
    "anthropic",
    "bedrock",
    "vertex-anthropic",
    "foundry-anthropic",
    "openai",
    "azure-openai",
    "deepseek",
    "moonshot",
    "zai",
    "gemini",
];

/// The hosts' keys: how `mcp --host` writes a host's request (docs/MCP.md); no projection
/// reads them.
pub const HOSTS: &[SettingKey] = &[
    SettingKey {
        key: "claude-code.tool_search",
        help: "Claude Code's ENABLE_TOOL_SEARCH for mcp --host claude-code: unset (defer every MCP tool unless the base URL is not Anthropic's), true, false, auto or auto:N (load all while under N% of the context)",
        kind: ValueKind::Choice(&["unset", "true", "false", "auto"]),
        affects: &[],
        first_for: &[],
        read: |s| Some(s.claude_code_tool_search.text()),
        write: |s, v| {
            s.claude_code_tool_search = crate::settings::ToolSearch::parse(v)
                .ok_or("unset, true, false, auto or auto:N (N from 0 to 100)")?;
            Ok(())
        },
    },
    SettingKey {
        key: "claude-code.base_url",
        help: "Claude Code's ANTHROPIC_BASE_URL for mcp --host claude-code (default: Anthropic's API; another host loads every MCP tool unless tool_search says otherwise)",
        kind: ValueKind::Text,
        affects: &[],
        first_for: &[],
        read: |s| {
            Some(
                s.claude_code_base_url
                    .clone()
                    .unwrap_or_else(|| "https://api.anthropic.com".to_owned()),
            )
        },
        write: |s, v| {
            let v = v.trim();
            if v.is_empty() {
                return Err("a URL");
            }
            s.claude_code_base_url = (v != "https://api.anthropic.com").then(|| v.to_owned());
            Ok(())
        },
    },
];

/// The groups of keys, in `--set` order (the order of `known:` in errors, of `Display`, of
/// the JSON `settings` object and of the TUI's editor).
const GROUPS: [&[SettingKey]; 8] = [
    SHARED,
    vtcode::SETTINGS,
    a3s::SETTINGS,
    leanctx::SETTINGS,
    zero::SETTINGS,
    search::SETTINGS,
    CACHE,
    HOSTS,
];

const KEY_COUNT: usize = {
    let mut count = 0;
    let mut group = 0;
    while group < GROUPS.len() {
        count += GROUPS[group].len();
        group += 1;
    }
    count
};

/// [`GROUPS`] one after the other.
const ALL: [SettingKey; KEY_COUNT] = {
    let mut all = [SHARED[0]; KEY_COUNT];
    let (mut at, mut group) = (0, 0);
    while group < GROUPS.len() {
        let mut i = 0;
        while i < GROUPS[group].len() {
            all[at] = GROUPS[group][i];
            at += 1;
            i += 1;
        }
        group += 1;
    }
    all
};

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

/// The key named `key`.
pub fn find(key: &str) -> Option<&'static SettingKey> {
    Settings::KEYS.iter().find(|k| k.key == key)
}

/// Whether `strategy`'s projection reads `input`, as its module declares (`READS`).
pub fn reads(strategy: Strategy, input: Input) -> bool {
    [a3s::READS, zero::READS]
        .iter()
        .any(|reads| reads.contains(&(strategy, input)))
}

/// The settings that change `strategy`'s projections: the one that matters most first (the
/// key its banner names), then the rest in `--set` order.
pub fn settings_of(strategy: Strategy) -> Vec<&'static SettingKey> {
    let affecting = Settings::KEYS.iter().filter(|k| k.affects(strategy));
    let (first, rest): (Vec<_>, Vec<_>) = affecting.partition(|k| k.first_for.contains(&strategy));
    first.into_iter().chain(rest).collect()
}

impl Settings {
    /// Every key, in a stable order.
    pub const KEYS: &'static [SettingKey] = &ALL;

    /// Apply one `KEY=VALUE` argument.
    pub fn apply(&mut self, assignment: &str) -> Result<(), SettingsError> {
        let (key, value) = assignment
            .split_once('=')
            .ok_or_else(|| SettingsError::NotKeyValue(assignment.to_owned()))?;
        self.set(key.trim(), value)
    }

    /// Set one key.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SettingsError> {
        let setting = find(key).ok_or_else(|| SettingsError::UnknownKey(key.to_owned()))?;
        (setting.write)(self, value).map_err(|expected| SettingsError::BadValue {
            key: key.to_owned(),
            value: value.to_owned(),
            expected,
        })
    }

    /// A key's current value, as `set` accepts it.
    pub fn get(&self, key: &str) -> Option<String> {
        find(key).map(|setting| setting.value(self))
    }
}

impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for setting in Settings::KEYS {
            writeln!(f, "{}={}", setting.key, setting.value(self))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_declared_once() {
        let mut keys: Vec<&str> = Settings::KEYS.iter().map(|k| k.key).collect();
        let declared = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), declared);
        assert_eq!(declared, GROUPS.iter().map(|g| g.len()).sum::<usize>());
    }

    #[test]
    fn each_strategy_a_setting_changes_has_one_first() {
        for strategy in Strategy::ALL {
            let settings = settings_of(strategy);
            let firsts = Settings::KEYS
                .iter()
                .filter(|k| k.first_for.contains(&strategy))
                .count();
            assert_eq!(firsts, usize::from(!settings.is_empty()), "{strategy:?}");
            for setting in Settings::KEYS {
                if setting.first_for.contains(&strategy) {
                    assert!(
                        setting.affects(strategy),
                        "{} for {strategy:?}",
                        setting.key
                    );
                }
            }
        }
        let keys = |s| settings_of(s).iter().map(|k| k.key).collect::<Vec<_>>();
        assert_eq!(
            keys(Strategy::Full),
            ["vtcode.mcp_cap", "mcp.prefixes", "vtcode.release"]
        );
        assert!(keys(Strategy::Original).is_empty());
    }

    #[test]
    fn every_value_read_is_accepted_back_and_choices_are_values() {
        let mut settings = Settings::default();
        for setting in Settings::KEYS {
            let value = setting.value(&settings);
            settings.set(setting.key, &value).unwrap();
            assert_eq!(settings.get(setting.key), Some(value), "{}", setting.key);
            for choice in setting.choices().unwrap_or_default() {
                settings.set(setting.key, choice).unwrap();
                assert_eq!(settings.get(setting.key).as_deref(), Some(*choice));
            }
        }
    }

    #[test]
    fn refusals_name_the_key_and_what_it_takes() {
        let mut settings = Settings::default();
        let unknown = settings.set("nope", "1").unwrap_err().to_string();
        assert!(
            unknown.starts_with("unknown setting `nope` (known: mcp.prefixes, vtcode.mcp_cap,")
        );
        assert!(unknown.ends_with(
            "cache.price, session.provider, claude-code.tool_search, claude-code.base_url)"
        ));
        assert_eq!(
            settings.set("cache.ttl", "soon").unwrap_err().to_string(),
            "bad value for `cache.ttl`: `soon` (a duration: 300, 300s, 5m, 1h or 250ms)"
        );
        assert_eq!(
            settings.set("shorten.expand_tool", "expand").unwrap_err(),
            SettingsError::BadValue {
                key: "shorten.expand_tool".into(),
                value: "expand".into(),
                expected: "a name whose bare part is ctx_expand, at most 128 bytes of [A-Za-z0-9_.:/-]",
            }
        );
        assert_eq!(settings, Settings::default());
    }
}
