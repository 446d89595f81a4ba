//! Small courtesies shared by the subcommands: a near name for a typo, counted nouns.

use toolprism::text::thousands;

/// Names longer than this (in characters) get no "did you mean" by edit distance.
const NEAR_CHARS: usize = 128;

/// The candidate closest to `wanted`, if one is close enough to be the likely intent: an edit
/// distance of at most a third of the name (at least 1, at most 3), or else the shortest
/// candidate that contains `wanted` (at least 3 characters: `create_issue` finds
/// `mcp__github__create_issue`). Ties go to the first candidate, so the answer is stable.
pub fn did_you_mean<'a>(
    wanted: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let wanted_chars = wanted.chars().count();
    let limit = (wanted_chars / 3).clamp(1, 3);
    let mut closest: Option<(usize, &str)> = None;
    let mut containing: Option<&str> = None;
    for candidate in candidates {
        if candidate == wanted {
            continue;
        }
        // Bounded: names whose lengths differ by more than the limit cannot be within it (and
        // their byte lengths tell that before their characters are counted), and past
        // `NEAR_CHARS` a name is too long for a typo to be worth the quadratic distance.
        // Hostile names (a 1,000-character `--tool` against long tool names) took minutes.
        let near = wanted_chars <= NEAR_CHARS
            && candidate.len() <= 4 * (NEAR_CHARS + limit)
            && candidate.chars().count().abs_diff(wanted_chars) <= limit;
        if near {
            let distance = strsim::levenshtein(wanted, candidate);
            if distance <= limit && closest.is_none_or(|(best, _)| distance < best) {
                closest = Some((distance, candidate));
            }
        }
        if wanted.chars().count() >= 3
            && candidate.contains(wanted)
            && containing.is_none_or(|best| candidate.len() < best.len())
        {
            containing = Some(candidate);
        }
    }
    closest.map(|(_, c)| c).or(containing)
}

/// `n` and its noun, in the singular for exactly one: `1 tool`, `0 tools`, `1,000 tools`.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    format!(
        "{} {}",
        thousands(n),
        if n == 1 { singular } else { plural }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_long_names_are_answered_at_once() {
        // 2,000 tools of 10,000 characters each against a 1,000-character name and a
        // 60-character one: the distance was computed for every pair (minutes).
        let names: Vec<String> = (0..2000)
            .map(|i| format!("{i}{}", "a".repeat(10_000)))
            .collect();
        let started = std::time::Instant::now();
        let long = "a".repeat(1000);
        assert_eq!(
            did_you_mean(&long, names.iter().map(String::as_str)),
            Some(names[0].as_str()),
            "the shortest containing it"
        );
        assert_eq!(
            did_you_mean(&"b".repeat(60), names.iter().map(String::as_str)),
            None
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        // A typo in a name of ordinary length is still found among them.
        let mut names = names;
        names.push("create_pull_request".into());
        assert_eq!(
            did_you_mean("create_pul_request", names.iter().map(String::as_str)),
            Some("create_pull_request")
        );
    }

    #[test]
    fn near_names() {
        let ids = ["original", "minimal", "defer", "defer-catalog"];
        assert_eq!(did_you_mean("minimall", ids.into_iter()), Some("minimal"));
        assert_eq!(did_you_mean("defr", ids.into_iter()), Some("defer"));
        assert_eq!(
            did_you_mean("catalog", ids.into_iter()),
            Some("defer-catalog")
        );
        assert_eq!(did_you_mean("zzz", ids.into_iter()), None);
        let tools = ["mcp__github__create_issue", "read_file", "write_file"];
        assert_eq!(
            did_you_mean("read_fil", tools.into_iter()),
            Some("read_file")
        );
        assert_eq!(
            did_you_mean("create_issue", tools.into_iter()),
            Some("mcp__github__create_issue")
        );
    }

    #[test]
    fn counted_nouns() {
        assert_eq!(count(1, "tool", "tools"), "1 tool");
        assert_eq!(count(0, "tool", "tools"), "0 tools");
        assert_eq!(count(1000, "entry", "entries"), "1,000 entries");
    }
}
