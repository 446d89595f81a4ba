//! Where a Claude Code session's transcripts are, release by release (docs/SESSIONS.md,
//! "Claude Code transcripts"): a session's own `<project>/<session>.jsonl`, and its subagents'
//! - up to 2.0.27, in the session's own file (sidechain lines);
//! - from 2.0.28 to 2.1.1, `<project>/agent-<id>.jsonl` beside it, each line naming the
//!   session by `sessionId`;
//! - from 2.1.2, `<project>/<session>/subagents/agent-<id>.jsonl` (and those a workflow
//!   started, one folder deeper: `subagents/workflows/<workflow>/agent-<id>.jsonl`).
//!
//! A file is told a transcript by its first lines (decompressed when its magic says gzip or
//! zstd), never by its name alone.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Lines looked at to tell a transcript, and the longest of them read for it.
const SNIFF_LINES: usize = 8;
const SNIFF_LINE_BYTES: u64 = 16 * 1024 * 1024;

/// The names a transcript file is listed by in a folder: Claude Code's `.jsonl`, and the same
/// compressed (what is inside is still told by its content).
const SUFFIXES: [&str; 3] = [".jsonl", ".jsonl.gz", ".jsonl.zst"];

/// How the files of 2.0.28 to 2.1.1's subagents are named.
const AGENT_PREFIX: &str = "agent-";

/// The first of a file's first lines `pick` finds something in (`None`: not a file of JSON
/// lines, or nothing found in its first [`SNIFF_LINES`]).
fn first_lines<T>(path: &Path, pick: impl Fn(&Map<String, Value>) -> Option<T>) -> Option<T> {
    let file = File::open(path).ok()?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return None;
    }
    let (file, _) = crate::trace::decoded(Box::new(file)).ok()?;
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    for _ in 0..SNIFF_LINES {
        buf.clear();
        let read = (&mut reader)
            .take(SNIFF_LINE_BYTES)
            .read_until(b'\n', &mut buf);
        match read {
            Ok(0) | Err(_) => return None,
            Ok(_) if buf.trim_ascii().is_empty() => continue,
            Ok(_) => {}
        }
        let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(&buf) else {
            return None;
        };
        if let Some(found) = pick(&object) {
            return Some(found);
        }
    }
    None
}

/// Whether `path` is a Claude Code transcript (a file whose first lines are its lines).
/// A file compressed with gzip or zstd is looked at decompressed (told by its magic).
pub fn sniff(path: &Path) -> bool {
    first_lines(path, |line| {
        crate::trace::kind::is_claude_code_transcript(line).then_some(())
    })
    .is_some()
}

/// The session a transcript's lines name (`sessionId`), from its first lines.
fn session_of(path: &Path) -> Option<String> {
    first_lines(path, |line| {
        crate::trace::kind::is_claude_code_transcript(line)
            .then(|| line.get("sessionId")?.as_str().map(str::to_owned))
            .flatten()
    })
}

/// A file's name without its transcript suffix (`None`: not a transcript's name).
fn stem(path: &Path) -> Option<&str> {
    let name = path.file_name()?.to_str()?;
    SUFFIXES.iter().find_map(|s| name.strip_suffix(s))
}

fn is_agent_file(path: &Path) -> bool {
    stem(path).is_some_and(|s| s.starts_with(AGENT_PREFIX))
}

/// The files of `dir` named as transcripts, sorted.
fn listed(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| stem(p).is_some() && p.is_file())
        .collect();
    files.sort();
    files
}

/// A folder of transcripts (a `~/.claude/projects/<folder>`): its sessions' files (`*.jsonl`,
/// or `*.jsonl.gz`, `*.jsonl.zst`), sorted, when there is at least one and every one is a
/// transcript (`None` otherwise). A subagent's `agent-*.jsonl` beside its session is read with
/// it, not as a session of its own; one whose session is not there is a session of its own.
pub fn folder(path: &Path) -> Option<Vec<PathBuf>> {
    if !path.is_dir() {
        return None;
    }
    let files = listed(path);
    if files.is_empty() || !files.iter().all(|f| sniff(f)) {
        return None;
    }
    let sessions: HashSet<&str> = files
        .iter()
        .filter(|f| !is_agent_file(f))
        .filter_map(|f| stem(f))
        .collect();
    let kept = files
        .iter()
        .filter(|f| {
            !is_agent_file(f) || session_of(f).is_none_or(|s| !sessions.contains(s.as_str()))
        })
        .cloned()
        .collect();
    Some(kept)
}

/// The subagents' files of the session at `path` (whose lines name it `id`, when known): the
/// `agent-*.jsonl` beside it that name it, then those of its `subagents/` folder, each sorted.
/// Files in `examined` are not looked at again (a followed session's are looked for at every
/// look); every file looked at is added to it.
pub(super) fn companions(
    path: &Path,
    id: Option<&str>,
    examined: &mut HashSet<PathBuf>,
) -> Vec<PathBuf> {
    // An agent's own file, read alone, is that agent's (its siblings name the same session).
    let Some(dir) = path.parent().filter(|_| !is_agent_file(path)) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if let Some(id) = id {
        for file in listed(dir) {
            if *file == *path || !is_agent_file(&file) || examined.contains(&file) {
                continue;
            }
            // A file whose first line is not written yet is looked at again next time.
            let Some(of) = session_of(&file) else {
                continue;
            };
            examined.insert(file.clone());
            if of == id {
                found.push(file);
            }
        }
    }
    let session = stem(path).or_else(|| path.file_stem()?.to_str());
    if let Some(session) = session {
        let subagents = dir.join(session).join("subagents");
        let mut folders = vec![subagents.clone()];
        if let Ok(workflows) = std::fs::read_dir(subagents.join("workflows")) {
            let mut more: Vec<PathBuf> = workflows
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect();
            more.sort();
            folders.extend(more);
        }
        for file in folders.iter().flat_map(|f| listed(f)) {
            if examined.insert(file.clone()) {
                found.push(file);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(session: &str) -> String {
        format!(
            "{{\"type\":\"user\",\"sessionId\":\"{session}\",\"uuid\":\"u\",\"message\":{{}}}}\n"
        )
    }

    /// An agent's file whose first line is not written yet is looked at again; once it names
    /// the session it is the session's, once only.
    #[test]
    fn an_agent_file_still_empty_is_looked_at_again() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s1.jsonl");
        std::fs::write(&session, line("s1")).unwrap();
        let agent = dir.path().join("agent-a.jsonl");
        std::fs::write(&agent, "").unwrap();
        let mut examined = HashSet::new();
        assert!(companions(&session, Some("s1"), &mut examined).is_empty());
        assert!(!examined.contains(&agent));
        std::fs::write(&agent, line("s1")).unwrap();
        assert_eq!(
            companions(&session, Some("s1"), &mut examined),
            std::slice::from_ref(&agent)
        );
        assert!(companions(&session, Some("s1"), &mut examined).is_empty());
        // Read alone, an agent's file brings no sibling of the same session.
        let sibling = dir.path().join("agent-b.jsonl");
        std::fs::write(&sibling, line("s1")).unwrap();
        assert!(companions(&agent, Some("s1"), &mut HashSet::new()).is_empty());
    }

    /// Compressed names are transcripts' names; the suffix is taken off for the session's id.
    #[test]
    fn names_compressed_or_not() {
        assert_eq!(stem(Path::new("/p/s1.jsonl.gz")), Some("s1"));
        assert_eq!(stem(Path::new("/p/s1.jsonl.zst")), Some("s1"));
        assert_eq!(stem(Path::new("/p/agent-x.jsonl")), Some("agent-x"));
        assert_eq!(stem(Path::new("/p/agent-x.meta.json")), None);
        assert!(is_agent_file(Path::new("agent-x.jsonl.gz")));
    }
}
