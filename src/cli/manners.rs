//! Small courtesies shared by the subcommands: a near name for a typo, counted nouns.

use toolprism::text::thousands;

/// The candidate closest to `wanted`, if one is close enough to be the likely intent: an edit
/// distance of at most a third of the name (at least 1, at most 3), or else the shortest
/// candidate that contains `wanted` (at least 3 characters: `create_issue` finds
/// `mcp__github__create_issue`). Ties go to the first candidate, so the answer is stable.
pub fn did_you_mean<'a>(
    wanted: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (wanted.chars().count() / 3).clamp(1, 3);
    let mut closest: Option<(usize, &str)> = None;
    let mut containing: Option<&str> = None;
    for candidate in candidates {
        if candidate == wanted {
            continue;
        }
        let distance = strsim::levenshtein(wanted, candidate);
        if distance <= limit && closest.is_none_or(|(best, _)| distance < best) {
            closest = Some((distance, candidate));
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
