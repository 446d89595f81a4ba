//! Today's models, one table per provider (SESSIONS.md section 3, "Models"): each row a
//! model's published cache minimum, input price and cache multipliers, with its source and the
//! date it was read. The next model is one row. A name is matched whole (after the spellings
//! hosts give it are taken off), never by a family's substring: a model no row names is
//! unknown, and each figure that needs its values says so.

/// One Claude model (Anthropic, *Prompt caching* and *Pricing*).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claude {
    /// Its ids, without a date suffix.
    pub ids: &'static [&'static str],
    /// The shortest cached prefix, in Claude tokens (`None`: not published).
    pub min_tokens: Option<usize>,
    /// Input in US dollars per million tokens (`None`: not published).
    pub input: Option<f64>,
    /// A cache read, in input tokens.
    pub read: f64,
    /// Where the row's figures come from.
    pub source: &'static str,
    /// When they were read (the copy of the page).
    pub date: &'static str,
}

/// A 5-minute write, in input tokens (every Claude model).
pub const CLAUDE_WRITE: f64 = 1.25;
/// A 1-hour write (`"ttl": "1h"`), in input tokens (every Claude model).
pub const CLAUDE_WRITE_1H: f64 = 2.0;

const CACHING: &str =
    "Anthropic, Prompt caching (platform.claude.com/docs/en/build-with-claude/prompt-caching)";
const PRICING: &str =
    "Anthropic, Pricing (platform.claude.com/docs/en/about-claude/pricing); Prompt caching";
const RELEASE: &str = "Anthropic, release notes (Opus 5.5, 2026-09-22); Prompt caching";
const THIRD: &str = "third-party notes of the Pricing page (claudit v1.9.2, PromptFuel v1.0.23)";
const OLDER: &str = "Anthropic, Prompt caching and Pricing, 2025 copies";
const THIRD_52: &str = "third-party notes of the Pricing page (phuryn/claude-usage v1.5.7, checked 2026-12-01; archid21/rightsize v0.10.2)";

const fn claude(
    ids: &'static [&'static str],
    min_tokens: Option<usize>,
    input: Option<f64>,
    read: f64,
    source: &'static str,
    date: &'static str,
) -> Claude {
    Claude {
        ids,
        min_tokens,
        input,
        read,
        source,
        date,
    }
}

/// Claude's models, newest first.
pub const CLAUDE: &[Claude] = &[
    // $8 input, $0.20 read, $10 / $16 writes; the minimum is not published.
    claude(
        &["claude-fable-5-2", "claude-mythos-5-2"],
        None,
        Some(8.0),
        0.025,
        THIRD_52,
        "2026-12-01",
    ),
    claude(
        &["claude-fable-5-1", "claude-mythos-5-1"],
        Some(512),
        Some(10.0),
        0.025,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-fable-5", "claude-mythos-5"],
        Some(512),
        Some(10.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-opus-5-5"],
        Some(512),
        Some(4.0),
        0.05,
        RELEASE,
        "2026-10-01",
    ),
    claude(
        &["claude-opus-5"],
        Some(512),
        Some(5.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-sonnet-5-5"],
        Some(512),
        Some(2.0),
        0.05,
        THIRD,
        "2026-10-07",
    ),
    claude(
        &["claude-sonnet-5"],
        Some(1024),
        Some(2.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-opus-4-8"],
        Some(1024),
        Some(5.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-opus-4-7"],
        Some(2048),
        Some(5.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-mythos-preview"],
        Some(2048),
        None,
        0.1,
        CACHING,
        "2026-10-01",
    ),
    claude(
        &["claude-opus-4-6", "claude-opus-4-5"],
        Some(4096),
        Some(5.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-sonnet-4-6", "claude-sonnet-4-5"],
        Some(1024),
        Some(3.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-haiku-4-5"],
        Some(4096),
        Some(1.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-opus-4-1", "claude-opus-4"],
        Some(1024),
        Some(15.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-sonnet-4"],
        Some(1024),
        Some(3.0),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-3-7-sonnet", "claude-3-5-sonnet"],
        Some(1024),
        Some(3.0),
        0.1,
        OLDER,
        "2025-08-22",
    ),
    claude(
        &["claude-3-5-haiku", "claude-haiku-3-5"],
        Some(2048),
        Some(0.8),
        0.1,
        PRICING,
        "2026-10-01",
    ),
    claude(
        &["claude-3-haiku", "claude-haiku-3"],
        Some(2048),
        Some(0.25),
        0.1,
        OLDER,
        "2025-08-22",
    ),
    claude(
        &["claude-3-opus", "claude-opus-3"],
        Some(1024),
        Some(15.0),
        0.1,
        OLDER,
        "2025-08-22",
    ),
];

/// One OpenAI model (OpenAI, *Pricing*).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpenAi {
    /// Its ids, without a date suffix.
    pub ids: &'static [&'static str],
    /// Input in US dollars per million tokens.
    pub input: f64,
    /// A cached input token, in input tokens (`None`: no primary source gives it).
    pub read: Option<f64>,
    /// Where the row's figures come from.
    pub source: &'static str,
    /// When they were read.
    pub date: &'static str,
}

const OPENAI: &str = "OpenAI, Pricing (platform.openai.com/docs/pricing)";

const fn openai(ids: &'static [&'static str], input: f64, read: Option<f64>) -> OpenAi {
    OpenAi {
        ids,
        input,
        read,
        source: OPENAI,
        date: "2025-08-22",
    }
}

/// OpenAI's models. The newest (GPT-5.5 and later, GPT-6) have no row: no primary source of
/// their prices was reachable, and third-party figures are not a price list.
pub const OPENAI_MODELS: &[OpenAi] = &[
    openai(
        &["gpt-5", "gpt-5-codex", "gpt-5-chat-latest"],
        1.25,
        Some(0.1),
    ),
    openai(&["gpt-5-mini"], 0.25, Some(0.1)),
    openai(&["gpt-5-nano"], 0.05, Some(0.1)),
    openai(&["gpt-4.1"], 2.0, Some(0.25)),
    openai(&["gpt-4.1-mini"], 0.4, Some(0.25)),
    openai(&["gpt-4.1-nano"], 0.1, Some(0.25)),
    openai(&["gpt-4o"], 2.5, Some(0.5)),
    openai(&["gpt-4o-mini"], 0.15, Some(0.5)),
    openai(&["o3"], 2.0, Some(0.25)),
    openai(&["o3-mini"], 1.1, Some(0.5)),
    openai(&["o4-mini"], 1.1, Some(0.25)),
    openai(&["o1"], 15.0, Some(0.5)),
    openai(&["o1-mini"], 1.1, Some(0.5)),
    openai(&["codex-mini-latest"], 1.5, Some(0.25)),
];

/// A model's name as the tables write it: lower case, without the host's spelling around it
/// (`anthropic/` and `openai/` routes, Bedrock's `us.anthropic.` and `-v1:0`, Vertex's
/// `@20251101`, OpenRouter's `:thinking`) and without a date suffix; Claude's `4.5` as `4-5`.
fn bare(model: &str) -> String {
    let mut m = model.trim().to_ascii_lowercase();
    if let Some(last) = m.rsplit('/').next() {
        m = last.to_owned();
    }
    if let Some(at) = m.find("anthropic.") {
        m = m[at + "anthropic.".len()..].to_owned();
    }
    for cut in ['@', ':'] {
        if let Some(at) = m.find(cut) {
            m.truncate(at);
        }
    }
    // Bedrock's `-v1`, then a date: `-20251101` (Anthropic) or `-2025-08-07` (OpenAI).
    if let Some(at) = m.rfind("-v")
        && m[at + 2..].chars().all(|c| c.is_ascii_digit())
        && m.len() > at + 2
    {
        m.truncate(at);
    }
    let digits = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_digit());
    if m.len() > 9 && digits(&m[m.len() - 8..], 8) && m.as_bytes()[m.len() - 9] == b'-' {
        m.truncate(m.len() - 9);
    } else if m.len() > 11 {
        let tail = &m[m.len() - 11..];
        let parts: Vec<&str> = tail[1..].split('-').collect();
        if tail.starts_with('-')
            && parts.len() == 3
            && digits(parts[0], 4)
            && digits(parts[1], 2)
            && digits(parts[2], 2)
        {
            m.truncate(m.len() - 11);
        }
    }
    m
}

/// The Claude row that names `model` (`None`: unknown to the table).
pub fn claude_model(model: &str) -> Option<&'static Claude> {
    let name = bare(model);
    if !name.starts_with("claude") {
        return None;
    }
    let name = name.replace('.', "-");
    // Anthropic's aliases (`claude-3-5-haiku-latest`) name the model they point at.
    let name = name.strip_suffix("-latest").unwrap_or(&name);
    CLAUDE.iter().find(|row| row.ids.contains(&name))
}

/// The OpenAI row that names `model` (`None`: unknown to the table).
pub fn openai_model(model: &str) -> Option<&'static OpenAi> {
    let name = bare(model);
    OPENAI_MODELS
        .iter()
        .find(|row| row.ids.contains(&name.as_str()))
}

/// A model's input price in US dollars per million tokens, where a table gives one.
pub fn input_price(model: &str) -> Option<f64> {
    claude_model(model)
        .and_then(|c| c.input)
        .or_else(|| openai_model(model).map(|o| o.input))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_matched_whole_after_the_hosts_spellings() {
        assert_eq!(bare("claude-opus-4-5-20251101"), "claude-opus-4-5");
        assert_eq!(
            bare("us.anthropic.claude-opus-4-5-20251101-v1:0"),
            "claude-opus-4-5"
        );
        assert_eq!(bare("claude-opus-4-5@20251101"), "claude-opus-4-5");
        assert_eq!(
            bare("anthropic/claude-sonnet-4.5:thinking"),
            "claude-sonnet-4.5"
        );
        assert_eq!(bare("gpt-4o-2024-08-06"), "gpt-4o");
        assert_eq!(bare("openai/gpt-4.1-mini"), "gpt-4.1-mini");
        assert_eq!(
            claude_model("anthropic/claude-sonnet-4.5").unwrap().input,
            Some(3.0)
        );
        // No family by substring: an unknown Opus is unknown, not Opus 4's $15.
        assert_eq!(claude_model("claude-opus-9"), None);
        assert_eq!(
            claude_model("claude-3-5-haiku-latest").unwrap().input,
            Some(0.8)
        );
        assert_eq!(
            claude_model("anthropic.claude-3-5-sonnet-20241022-v2:0")
                .unwrap()
                .min_tokens,
            Some(1024)
        );
        assert_eq!(
            claude_model("claude-3-5-sonnet-v2@20241022").unwrap().input,
            Some(3.0)
        );
        assert_eq!(claude_model("claude-opus-5-5-preview"), None);
        assert_eq!(openai_model("gpt-5.5"), None);
        assert_eq!(openai_model("gpt-4o-mini-2024-07-18").unwrap().input, 0.15);
    }

    #[test]
    fn todays_claude_models() {
        let row = |m: &str| claude_model(m).unwrap();
        assert_eq!(row("claude-opus-5").input, Some(5.0));
        assert_eq!(row("claude-opus-5").min_tokens, Some(512));
        assert_eq!(row("claude-opus-5-5").input, Some(4.0));
        assert_eq!(row("claude-opus-5-5").read, 0.05);
        assert_eq!(row("claude-sonnet-5-5").input, Some(2.0));
        assert_eq!(row("claude-sonnet-5-5").read, 0.05);
        assert_eq!(row("claude-fable-5-1").read, 0.025);
        assert_eq!(row("claude-fable-5-2").input, Some(8.0));
        assert_eq!(row("claude-mythos-5-2").read, 0.025);
        assert_eq!(row("claude-fable-5-2").min_tokens, None);
        assert_eq!(row("us.anthropic.claude-fable-5-2-v1:0").input, Some(8.0));
        assert_eq!(row("claude-mythos-5-1").min_tokens, Some(512));
        assert_eq!(row("claude-sonnet-5").min_tokens, Some(1024));
        assert_eq!(row("claude-opus-4-8").min_tokens, Some(1024));
        assert_eq!(row("claude-opus-4-7").min_tokens, Some(2048));
        assert_eq!(row("claude-mythos-preview").input, None);
        assert_eq!(row("claude-opus-4-6").min_tokens, Some(4096));
        assert_eq!(row("claude-haiku-4-5-20251001").min_tokens, Some(4096));
        assert_eq!(row("claude-3-5-haiku-20241022").min_tokens, Some(2048));
        assert_eq!(row("claude-opus-4-1").input, Some(15.0));
        // Every row says where its figures come from, and when.
        for row in CLAUDE {
            assert!(
                !row.source.is_empty() && row.date.len() == 10,
                "{:?}",
                row.ids
            );
        }
    }
}
