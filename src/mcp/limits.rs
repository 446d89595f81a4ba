//! What each host refuses or silently drops in the tool list it sends: the providers' name
//! pattern and tool count, and the hosts' own caps. Each limit names its source in
//! docs/MCP.md. A broken limit is a [`Note`]: `error` where the request is refused, `warning`
//! where the host drops tools without a word.

use crate::note::Note;

use super::host::Host;

/// Most tools OpenAI's APIs accept in one request (Chat Completions and Responses), and VS
/// Code's own cap per request.
pub const OPENAI_MAX_TOOLS: usize = 128;

/// Tools Cursor sends at most; the rest are left out.
pub const CURSOR_MAX_TOOLS: usize = 40;

/// Characters Cursor allows a server's and a tool's name together; a longer pair is skipped.
pub const CURSOR_MAX_COMBINED_NAME: usize = 60;

/// Longest tool name the providers accept (`^[a-zA-Z0-9_-]{1,64}$`).
pub const MAX_NAME: usize = 64;

/// Whether `name` matches the providers' `^[a-zA-Z0-9_-]{1,64}$` (Anthropic, OpenAI).
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether `name` is a valid Gemini function name: starts with a letter or `_`, then letters,
/// digits, `_`, `.`, `:` or `-`, at most 64 characters.
pub fn valid_gemini_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= MAX_NAME
        && bytes
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// The limits `host` breaks with a tool list of these names (a Codex namespace's tools
/// counted one by one: `tools` is the number of tools, `names` every name sent). `pairs`:
/// (server, tool) names as the config and server give them, for Cursor's combined cap.
pub fn check(host: Host, tools: usize, names: &[&str], pairs: &[(&str, &str)]) -> Vec<Note> {
    let mut notes = Vec::new();
    let bad: Vec<&str> = match host {
        Host::Raw => Vec::new(),
        Host::GeminiCli => names
            .iter()
            .copied()
            .filter(|n| !valid_gemini_name(n))
            .collect(),
        _ => names.iter().copied().filter(|n| !valid_name(n)).collect(),
    };
    if let Some(first) = bad.first() {
        notes.push(Note::error(format!(
            "{} tool name{} the provider refuses (`{first}`{}): not `^[a-zA-Z0-9_-]{{1,64}}$`",
            bad.len(),
            if bad.len() == 1 { "" } else { "s" },
            if bad.len() > 1 { ", ..." } else { "" }
        )));
    }
    match host {
        Host::Codex | Host::VsCode if tools > OPENAI_MAX_TOOLS => notes.push(Note::error(format!(
            "{tools} tools: {} sends at most {OPENAI_MAX_TOOLS} (the request is refused)",
            host.id()
        ))),
        Host::Cursor if tools > CURSOR_MAX_TOOLS => notes.push(Note::warning(format!(
            "{tools} tools: Cursor sends the first {CURSOR_MAX_TOOLS} and drops {} without a word",
            tools - CURSOR_MAX_TOOLS
        ))),
        _ => {}
    }
    if host == Host::Cursor {
        let long: Vec<String> = pairs
            .iter()
            .filter(|(s, t)| s.chars().count() + t.chars().count() > CURSOR_MAX_COMBINED_NAME)
            .map(|(s, t)| format!("{s}/{t}"))
            .collect();
        if let Some(first) = long.first() {
            notes.push(Note::warning(format!(
                "{} tool{} over Cursor's {CURSOR_MAX_COMBINED_NAME} characters of server and tool name together (`{first}`): Cursor skips {}",
                long.len(),
                if long.len() == 1 { "" } else { "s" },
                if long.len() == 1 { "it" } else { "them" }
            )));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::note::Level;

    #[test]
    fn each_limit_at_its_level() {
        assert!(check(Host::ClaudeCode, 1, &["ok_name"], &[]).is_empty());
        let notes = check(Host::ClaudeCode, 1, &["bad.name"], &[]);
        assert_eq!(notes[0].level, Level::Error);
        let names: Vec<String> = (0..129).map(|i| format!("t{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(check(Host::Codex, 129, &names, &[])[0].level, Level::Error);
        assert!(check(Host::Codex, 128, &names[..128], &[]).is_empty());
        assert_eq!(
            check(Host::Cursor, 41, &names[..41], &[])[0].level,
            Level::Warning
        );
        let long = "x".repeat(50);
        let notes = check(Host::Cursor, 1, &["a"], &[("server12345", &long)]);
        assert_eq!(notes[0].level, Level::Warning);
        assert!(valid_gemini_name("a.b:c") && !valid_gemini_name("1a"));
    }
}
