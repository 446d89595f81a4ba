//! The strategy ids and what each stands for.

use std::fmt;
use std::str::FromStr;

use crate::settings::{Selector, Settings, VtcodeRelease, ZeroRelease};

/// One way of projecting a tool list (see `STRATEGIES.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// The capture as sent.
    Original,
    /// vtcode documentation mode `full`.
    Full,
    /// vtcode documentation mode `progressive` (vtcode's default).
    Progressive,
    /// vtcode documentation mode `minimal`.
    Minimal,
    /// a3s code presentation profile `direct`.
    Direct,
    /// a3s code presentation profile `adaptive` (a3s's default).
    Adaptive,
    /// a3s code presentation profile `code`.
    Code,
    /// a3s code presentation profile `disabled`.
    Disabled,
    /// lean-ctx expand-pointer shortening.
    Shorten,
    /// zero's deferred loading, reminder form.
    Defer,
    /// zero's deferred loading, catalog form.
    DeferCatalog,
    /// vtcode's provider-side tool search (`defer_loading` beside the provider's search tool).
    Search,
    /// Codex's MCP handling under tool search.
    Codex,
    /// Each change of a thread's tool list sent as a mid-conversation system message (the
    /// provider's own feature; issue 41): only a session has changes to send.
    Append,
}

impl Strategy {
    /// Every strategy, in the order they are listed everywhere.
    pub const ALL: [Strategy; 14] = [
        Strategy::Original,
        Strategy::Full,
        Strategy::Progressive,
        Strategy::Minimal,
        Strategy::Direct,
        Strategy::Adaptive,
        Strategy::Code,
        Strategy::Disabled,
        Strategy::Shorten,
        Strategy::Defer,
        Strategy::DeferCatalog,
        Strategy::Search,
        Strategy::Codex,
        Strategy::Append,
    ];

    /// Its position in [`Strategy::ALL`] (the declaration order, which `ALL` follows).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Its bit in a set of strategies held as a mask over [`Strategy::ALL`].
    pub const fn bit(self) -> u32 {
        1 << self.index()
    }

    /// The id used on the command line and in JSON.
    pub fn id(self) -> &'static str {
        match self {
            Strategy::Original => "original",
            Strategy::Full => "full",
            Strategy::Progressive => "progressive",
            Strategy::Minimal => "minimal",
            Strategy::Direct => "direct",
            Strategy::Adaptive => "adaptive",
            Strategy::Code => "code",
            Strategy::Disabled => "disabled",
            Strategy::Shorten => "shorten",
            Strategy::Defer => "defer",
            Strategy::DeferCatalog => "defer-catalog",
            Strategy::Search => "search",
            Strategy::Codex => "codex",
            Strategy::Append => "append",
        }
    }

    /// The family it belongs to.
    pub fn family(self) -> &'static str {
        match self {
            Strategy::Original => "baseline",
            Strategy::Full | Strategy::Progressive | Strategy::Minimal => "documentation mode",
            Strategy::Direct | Strategy::Adaptive | Strategy::Code | Strategy::Disabled => {
                "presentation profile"
            }
            Strategy::Shorten => "expand pointer",
            Strategy::Defer | Strategy::DeferCatalog => "deferred loading",
            Strategy::Search => "provider-side deferral",
            Strategy::Codex => "provider-side deferral",
            Strategy::Append => "mid-conversation tool changes",
        }
    }

    /// The host whose rules it reproduces.
    pub fn origin(self) -> &'static str {
        match self {
            Strategy::Original => "-",
            Strategy::Full | Strategy::Progressive | Strategy::Minimal | Strategy::Search => {
                "vtcode"
            }
            Strategy::Direct | Strategy::Adaptive | Strategy::Code | Strategy::Disabled => {
                "a3s code"
            }
            Strategy::Shorten => "lean-ctx",
            Strategy::Defer | Strategy::DeferCatalog => "zero",
            Strategy::Codex => "codex",
            // No agent host's rules: the provider's own feature, as its API defines it.
            Strategy::Append => "anthropic",
        }
    }

    /// The release of the origin whose rules it reproduces, as named in reports
    /// (`None` for `original`). A function of the settings too: `vtcode.release`,
    /// `zero.release`, and `adaptive` under `adaptive.selector=vocabulary` (a3s-code-core 9.0's
    /// classifier) select an older release.
    pub fn release(self, settings: &Settings) -> Option<&'static str> {
        match self {
            Strategy::Original => None,
            Strategy::Full | Strategy::Progressive | Strategy::Minimal => {
                Some(match settings.vtcode_release {
                    VtcodeRelease::V0_181_2 => "vtcode-core 0.181.2",
                    VtcodeRelease::V0_169_2 => "vtcode-core 0.169.2",
                })
            }
            // Tool search first shipped in 0.181.2: the strategy has no older release.
            Strategy::Search => Some("vtcode-core 0.181.2"),
            Strategy::Adaptive if settings.adaptive_selector == Selector::Vocabulary => {
                Some("a3s-code-core 9.0.0")
            }
            Strategy::Direct | Strategy::Adaptive | Strategy::Code | Strategy::Disabled => {
                Some("a3s-code-core 9.1.3")
            }
            Strategy::Shorten => Some("lean-ctx proxy 3.12.3"),
            Strategy::Defer | Strategy::DeferCatalog => Some(match settings.zero_release {
                ZeroRelease::V0_8_0 => "zero 0.8.0",
                ZeroRelease::C2ea36cf => "zero 2ea36cf",
            }),
            Strategy::Codex => Some("codex rust-v0.171.0"),
            // The dated beta its system messages need (inline definitions; references need
            // mid-conversation-tool-changes-2026-07-01).
            Strategy::Append => Some(crate::tool_changes::INLINE_BETA),
        }
    }

    /// The older release a setting selects, as the assignment and the release it reproduces:
    /// `Some(("vtcode.release=0.169.2", "vtcode-core 0.169.2"))`.
    pub fn older_release(self) -> Option<(&'static str, &'static str)> {
        match self {
            Strategy::Full | Strategy::Progressive | Strategy::Minimal => {
                Some(("vtcode.release=0.169.2", "vtcode-core 0.169.2"))
            }
            Strategy::Defer | Strategy::DeferCatalog => {
                Some(("zero.release=2ea36cf", "zero 2ea36cf"))
            }
            Strategy::Adaptive => Some(("adaptive.selector=vocabulary", "a3s-code-core 9.0.0")),
            _ => None,
        }
    }

    /// The origin's current release when a setting selects an older one for this strategy, with
    /// the setting's key: `Some(("vtcode.release", "vtcode-core 0.181.2"))`.
    pub fn newer_release(self, settings: &Settings) -> Option<(&'static str, &'static str)> {
        match self {
            Strategy::Full | Strategy::Progressive | Strategy::Minimal
                if settings.vtcode_release != VtcodeRelease::V0_181_2 =>
            {
                Some(("vtcode.release", "vtcode-core 0.181.2"))
            }
            Strategy::Defer | Strategy::DeferCatalog
                if settings.zero_release != ZeroRelease::V0_8_0 =>
            {
                Some(("zero.release", "zero 0.8.0"))
            }
            Strategy::Adaptive if settings.adaptive_selector == Selector::Vocabulary => {
                Some(("adaptive.selector", "a3s-code-core 9.1.3"))
            }
            _ => None,
        }
    }

    /// Who refuses a request under it, as reports say it: `append` is the provider's feature,
    /// every other strategy a host's rules.
    pub fn refused_by(self) -> &'static str {
        match self {
            Strategy::Append => "the provider",
            _ => "the host",
        }
    }

    /// One line on what it does.
    pub fn summary(self) -> &'static str {
        match self {
            Strategy::Original => "the capture as sent",
            Strategy::Full => "descriptions whitespace-normalized; MCP ones capped at 512 chars",
            Strategy::Progressive => {
                "whole leading sentences within 1500 chars (0.169.2: 1024); parameter descriptions within 640"
            }
            Strategy::Minimal => "first sentence within 64 chars; parameter descriptions removed",
            Strategy::Direct => "every tool, sorted by name",
            Strategy::Adaptive => {
                "every tool unless the turn is a bare greeting (9.1.x); adaptive.selector=vocabulary: tools picked by the recent text (9.0.x)"
            }
            Strategy::Code => "one `program` gateway whose description catalogs the others",
            Strategy::Disabled => "no tools",
            Strategy::Shorten => {
                "descriptions over 1024 bytes cut to a summary plus a pointer to the full entry"
            }
            Strategy::Defer => {
                "MCP tools withheld behind `tool_search`; 0.8.0: listed in its description, 2ea36cf: in a reminder message"
            }
            Strategy::DeferCatalog => {
                "as `defer`, but the list lives in `tool_search`'s description"
            }
            Strategy::Search => {
                "deferable tools marked `defer_loading` beside the provider's tool search tool (Anthropic, OpenAI Responses), or left out (client-local)"
            }
            Strategy::Codex => {
                "MCP tools deferred behind tool search, one namespace per server, as Codex sends them"
            }
            Strategy::Append => {
                "the thread's first tool list kept; each later change sent as a system message (inline definitions on the Claude API, references on Bedrock and Google Cloud), in a session"
            }
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// What of a request, beyond its tool list and the settings, a strategy's projection reads.
/// Each strategy module declares its own (`a3s::READS`, `zero::READS`); the session's memo keys a
/// turn's projection by exactly these, so a strategy that reads nothing more is projected once per
/// distinct tool list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The conversation (a3s's adaptive selector reads its newest messages).
    Context,
    /// The tools the model loaded through `tool_search` earlier in the run (zero's loaded set).
    Loaded,
}

/// An id that names no strategy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown strategy `{0}` (one of: original, full, progressive, minimal, direct, adaptive, code, disabled, shorten, defer, defer-catalog, search, codex, append)"
)]
pub struct UnknownStrategy(pub String);

impl FromStr for Strategy {
    type Err = UnknownStrategy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strategy::ALL
            .into_iter()
            .find(|strategy| strategy.id() == s)
            .ok_or_else(|| UnknownStrategy(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_strategy_knows_its_place_in_all() {
        for (i, s) in Strategy::ALL.into_iter().enumerate() {
            assert_eq!(s.index(), i, "{s}");
            assert_eq!(s.bit(), 1 << i, "{s}");
        }
    }

    #[test]
    fn every_strategy_names_the_release_it_reproduces() {
        let settings = Settings::default();
        let releases: Vec<(&str, Option<&str>)> = Strategy::ALL
            .iter()
            .map(|s| (s.id(), s.release(&settings)))
            .collect();
        assert_eq!(
            releases,
            vec![
                ("original", None),
                ("full", Some("vtcode-core 0.181.2")),
                ("progressive", Some("vtcode-core 0.181.2")),
                ("minimal", Some("vtcode-core 0.181.2")),
                ("direct", Some("a3s-code-core 9.1.3")),
                ("adaptive", Some("a3s-code-core 9.1.3")),
                ("code", Some("a3s-code-core 9.1.3")),
                ("disabled", Some("a3s-code-core 9.1.3")),
                ("shorten", Some("lean-ctx proxy 3.12.3")),
                ("defer", Some("zero 0.8.0")),
                ("defer-catalog", Some("zero 0.8.0")),
                ("search", Some("vtcode-core 0.181.2")),
                ("codex", Some("codex rust-v0.171.0")),
                ("append", Some("inline-tools-2026-09-15")),
            ]
        );
        assert!(
            Strategy::ALL
                .iter()
                .all(|s| s.newer_release(&settings).is_none())
        );
    }

    #[test]
    fn older_releases_are_named_with_the_setting_that_selects_them() {
        let mut settings = Settings::default();
        for pair in [
            "vtcode.release=0.169.2",
            "zero.release=2ea36cf",
            "adaptive.selector=vocabulary",
        ] {
            settings.apply(pair).unwrap();
        }
        assert_eq!(
            Strategy::Progressive.release(&settings),
            Some("vtcode-core 0.169.2")
        );
        assert_eq!(Strategy::Defer.release(&settings), Some("zero 2ea36cf"));
        assert_eq!(
            Strategy::Search.release(&settings),
            Some("vtcode-core 0.181.2")
        );
        assert_eq!(
            Strategy::Minimal.newer_release(&settings),
            Some(("vtcode.release", "vtcode-core 0.181.2"))
        );
        assert_eq!(
            Strategy::DeferCatalog.newer_release(&settings),
            Some(("zero.release", "zero 0.8.0"))
        );
        assert_eq!(
            Strategy::Adaptive.newer_release(&settings),
            Some(("adaptive.selector", "a3s-code-core 9.1.3"))
        );
        assert_eq!(Strategy::Shorten.newer_release(&settings), None);
    }
}
