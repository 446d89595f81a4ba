//! A session analysed while its trace grows (the live session view, `record` and
//! `session --follow`): records are pushed into the [`Analyzer`] as the [`Follower`] finds
//! their lines whole, and a [`SessionReport`] of the turns so far can be taken at any time.
//!
//! Nothing here waits or draws: the caller decides how often to [`Live::poll`] and what to do
//! with a [`Live::snapshot`].

use std::path::Path;

use super::{Analyzer, IgnoredRecord, SessionReport, TraceInfo};
use crate::error::FileError;
use crate::trace::IGNORED_KEPT;
use crate::trace::follow::{Followed, Follower};

/// What one [`Live::poll`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Polled {
    /// Model calls analysed (kept or filtered out by a thread choice).
    pub turns: usize,
    /// Lines that could not be used, each `line N: why` (following goes on past them).
    pub bad: Vec<String>,
}

impl Polled {
    /// Whether anything at all was read.
    pub fn is_empty(&self) -> bool {
        self.turns == 0 && self.bad.is_empty()
    }
}

/// A growing trace and the analysis of what it holds so far.
pub struct Live<'a> {
    follower: Follower,
    analyzer: Analyzer<'a>,
    info: TraceInfo,
}

impl<'a> Live<'a> {
    /// Follow `path` from its start, analysing with `analyzer`; `format` is the format id the
    /// reports name (the follower reads any JSON-lines trace, line by line).
    pub fn open(
        path: &Path,
        format: &'static str,
        analyzer: Analyzer<'a>,
    ) -> Result<Live<'a>, FileError> {
        Ok(Live::new(Follower::open(path)?, format, analyzer))
    }

    /// [`Live::open`] on a trace already opened (its errors told before the analysis starts).
    pub fn new(follower: Follower, format: &'static str, analyzer: Analyzer<'a>) -> Live<'a> {
        let info = TraceInfo {
            path: follower.name().to_owned(),
            format,
            ..TraceInfo::default()
        };
        Live {
            follower,
            analyzer,
            info,
        }
    }

    /// How the trace is named.
    pub fn name(&self) -> &str {
        self.follower.name()
    }

    /// Read every line completed since the last poll and analyse its call. Never waits; a
    /// line still being written waits for its newline. An error reading the file ends the
    /// following.
    pub fn poll(&mut self) -> Result<Polled, FileError> {
        let mut polled = Polled::default();
        let items = self.follower.poll()?;
        if self.follower.mcp_servers() != self.info.mcp_servers.as_slice() {
            self.info.mcp_servers = self.follower.mcp_servers().to_vec();
        }
        for item in items {
            match item {
                Followed::Turn(turn) => {
                    let at = turn.source.clone();
                    match self.analyzer.push(*turn) {
                        Ok(()) => polled.turns += 1,
                        Err(e) => {
                            self.info.skipped += 1;
                            polled.bad.push(format!("{at}: {e}"));
                        }
                    }
                }
                Followed::Ignored(ignored) => {
                    if self.info.ignored.len() < IGNORED_KEPT {
                        self.info.ignored.push(IgnoredRecord::from(&ignored));
                    }
                    self.info.ignored_total += 1;
                }
                Followed::Bad(at, why) => {
                    self.info.skipped += 1;
                    polled.bad.push(format!("{at}: {why}"));
                }
            }
        }
        Ok(polled)
    }

    /// Turns analysed so far (of the chosen thread, with a filter).
    pub fn turns(&self) -> usize {
        self.analyzer.kept_turns()
    }

    /// The report of every turn read so far.
    pub fn snapshot(&self) -> SessionReport {
        self.analyzer.snapshot(self.info.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Encoding, TokenCounter};
    use crate::settings::Settings;
    use crate::strategy::Strategy;
    use std::io::Write;

    fn body(n: usize, tools: &[&str]) -> String {
        let tools: Vec<String> = tools
            .iter()
            .map(|t| format!(r#"{{"name":"{t}","input_schema":{{"type":"object"}}}}"#))
            .collect();
        format!(
            r#"{{"model":"claude-sonnet-4-5","messages":[{{"role":"user","content":"one thread"}}],"metadata":{{"n":{n}}},"tools":[{}]}}"#,
            tools.join(",")
        )
    }

    /// Turns appear as their lines are completed, half a line waits, a bad line is named and
    /// passed; each snapshot equals the report of the whole file read at once.
    #[test]
    fn snapshots_grow_with_the_trace_and_match_a_whole_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut file = std::fs::File::create(&path).unwrap();
        let counter = TokenCounter::new(Encoding::O200kBase);
        let settings = Settings::default();
        let strategies = [Strategy::Original];
        let analyzer = Analyzer::new(&strategies, &settings, &counter, None);
        let mut live = Live::open(&path, "jsonl", analyzer).unwrap();
        assert!(live.poll().unwrap().is_empty());
        assert_eq!(live.snapshot().turns.len(), 0);

        writeln!(file, "{}", body(1, &["a", "b"])).unwrap();
        let second = body(2, &["b", "a"]);
        let (head, tail) = second.split_at(10);
        write!(file, "{head}").unwrap();
        file.flush().unwrap();
        assert_eq!(live.poll().unwrap().turns, 1);
        assert_eq!(live.snapshot().turns.len(), 1);
        writeln!(file, "{tail}").unwrap();
        writeln!(file, "{{not json").unwrap();
        file.flush().unwrap();
        let polled = live.poll().unwrap();
        assert_eq!(polled.turns, 1);
        assert_eq!(polled.bad.len(), 1);
        assert!(polled.bad[0].starts_with("line 3: "), "{:?}", polled.bad);
        let snapshot = live.snapshot();
        assert_eq!(snapshot.turns.len(), 2);
        assert_eq!(snapshot.trace.skipped, 1);
        // The reorder of the second turn is seen against the first.
        assert!(snapshot.turns[1].order_changed);

        // The same turns read at once give the same facts.
        let whole = dir.path().join("whole.jsonl");
        std::fs::write(
            &whole,
            format!("{}\n{}\n", body(1, &["a", "b"]), body(2, &["b", "a"])),
        )
        .unwrap();
        let reader = crate::trace::open(
            whole.to_str().unwrap(),
            &crate::trace::TraceOptions::default(),
        )
        .unwrap();
        let mut analyzer = Analyzer::new(&strategies, &settings, &counter, None);
        let (info, result) = super::super::analyse_trace(reader, "w", &mut analyzer, &mut |_| {});
        result.unwrap();
        let report = analyzer.finish(info);
        assert_eq!(snapshot.turns, report.turns);
        assert_eq!(snapshot.strategies, report.strategies);
    }
}
