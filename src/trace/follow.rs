//! Following a growing trace as `tail -f` does: the JSON lines written since the last look,
//! each complete line a record, a line still being written kept until its newline comes.
//!
//! Any JSON-lines trace can be followed (`toolprism record`'s, claude-trace's, wrapped or bare
//! bodies): each line is read by the same record reader as a whole file's.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{Ignored, MAX_RECORD_BYTES, TraceRecord, record};
use crate::capture::display_path;
use crate::error::{FileError, LoadError};

/// What one new line of a followed trace is.
#[derive(Debug)]
pub enum Followed {
    /// A model call.
    Turn(Box<TraceRecord>),
    /// A record that is not a model call.
    Ignored(Ignored),
    /// A line that could not be used: where (`line 5`) and why. Following goes on.
    Bad(String, String),
}

/// A trace being followed.
pub struct Follower {
    file: File,
    name: String,
    /// Bytes of a line not yet ended.
    pending: Vec<u8>,
    /// Lines read so far.
    line: usize,
    /// Where the next read starts.
    offset: u64,
}

impl Follower {
    /// Open `path` to follow it from its start.
    pub fn open(path: &Path) -> Result<Follower, FileError> {
        let name = display_path(path).into_owned();
        let file = File::open(path).map_err(|e| unreadable(&e).in_file(name.clone()))?;
        if file.metadata().is_ok_and(|m| m.is_dir()) {
            let why = "a folder cannot be followed, only a JSON-lines trace";
            return Err(LoadError::Unreadable(why.to_owned()).in_file(name));
        }
        Ok(Follower {
            file,
            name,
            pending: Vec::new(),
            line: 0,
            offset: 0,
        })
    }

    /// The trace's name as errors show it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The records of every line completed since the last call, in order; nothing new is an
    /// empty list (this never waits). An error reading the file ends the following; a file
    /// that shrank (written over) is an error too, never read twice.
    pub fn poll(&mut self) -> Result<Vec<Followed>, FileError> {
        let len = self
            .file
            .metadata()
            .map_err(|e| unreadable(&e).in_file(self.name.clone()))?
            .len();
        if len < self.offset {
            let why = "the trace shrank while it was followed";
            return Err(LoadError::Unreadable(why.to_owned()).in_file(self.name.clone()));
        }
        let mut fresh = Vec::new();
        self.file
            .seek(SeekFrom::Start(self.offset))
            .and_then(|_| {
                (&mut self.file)
                    .take(len - self.offset)
                    .read_to_end(&mut fresh)
            })
            .map_err(|e| unreadable(&e).in_file(self.name.clone()))?;
        self.offset += fresh.len() as u64;
        self.pending.extend_from_slice(&fresh);
        let mut out = Vec::new();
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.line += 1;
            if let Some(item) = self.read_line(&line) {
                out.push(item);
            }
        }
        if self.pending.len() as u64 > MAX_RECORD_BYTES {
            let at = format!("line {}", self.line + 1);
            let problem = format!("a line longer than {MAX_RECORD_BYTES} bytes");
            return Err(LoadError::BadRecord { at, problem }.in_file(self.name.clone()));
        }
        Ok(out)
    }

    fn read_line(&self, line: &[u8]) -> Option<Followed> {
        let at = format!("line {}", self.line);
        let text = String::from_utf8_lossy(line);
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let value = match super::budget::parse_str(text) {
            Ok(value) => value,
            Err(e) => return Some(Followed::Bad(at, crate::error::json_error(&e).to_string())),
        };
        Some(match record::from_value(value, at.clone(), Some(text)) {
            Ok(record::Outcome::Turn(turn)) => Followed::Turn(turn),
            Ok(record::Outcome::Ignored(ignored)) => Followed::Ignored(ignored),
            Ok(record::Outcome::ServerList(list)) => Followed::Ignored(super::Ignored {
                reason: record::server_list_reason(&list),
                source: list.source,
                method: list.method,
                url: list.url,
            }),
            Err(problem) => Followed::Bad(at, problem),
        })
    }
}

fn unreadable(error: &std::io::Error) -> LoadError {
    LoadError::Unreadable(error.to_string())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn lines_are_read_as_they_are_completed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut file = File::create(&path).unwrap();
        let mut follower = Follower::open(&path).unwrap();
        assert!(follower.poll().unwrap().is_empty());
        let record = r#"{"request":{"method":"POST","url":"https://api.anthropic.com/v1/messages","body":{"model":"m","messages":[],"tools":[]}},"response":{"status_code":200,"body":{"usage":{"input_tokens":9}}},"logged_at":"2026-01-01T00:00:00Z"}"#;
        let (head, tail) = record.split_at(40);
        file.write_all(head.as_bytes()).unwrap();
        assert!(
            follower.poll().unwrap().is_empty(),
            "half a line is kept back"
        );
        file.write_all(tail.as_bytes()).unwrap();
        file.write_all(b"\nnot json\n").unwrap();
        let items = follower.poll().unwrap();
        assert_eq!(items.len(), 2);
        let Followed::Turn(turn) = &items[0] else {
            panic!("{:?}", items[0])
        };
        assert_eq!(turn.usage.map(|u| u.input), Some(9));
        assert_eq!(turn.source, "line 1");
        assert!(matches!(&items[1], Followed::Bad(at, _) if at == "line 2"));
        file.set_len(3).unwrap();
        assert!(follower.poll().is_err());
    }
}
