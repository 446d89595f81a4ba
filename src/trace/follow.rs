//! Following a growing trace as `tail -f` does: the JSON lines written since the last look,
//! each complete line a record, a line still being written kept until its newline comes.
//!
//! Any JSON-lines trace can be followed (`toolprism record`'s, claude-trace's, wrapped or bare
//! bodies): each line is read by the same record reader as a whole file's.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::mcp_servers::Servers;
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

/// One line of a followed file, as [`Follower::poll_lines`] hands it out.
#[derive(Debug)]
pub enum FollowedLine<'a> {
    /// A whole line (its number, 1-based, and its bytes without the newline).
    Whole(usize, &'a [u8]),
    /// A line over [`MAX_RECORD_BYTES`], never kept: its number.
    TooLong(usize),
}

/// The most read from the file at one look: a trace that grew by gigabytes is read over several
/// looks, never held at once.
const READ_AT_ONCE: usize = 16 * 1024 * 1024;

/// A trace being followed.
pub struct Follower {
    file: File,
    name: String,
    /// Bytes of a line not yet ended (only a line that spans reads is copied here).
    pending: Vec<u8>,
    /// The line under way is over [`MAX_RECORD_BYTES`]: its bytes are dropped until it ends.
    too_long: bool,
    /// Bytes copied into `pending` so far (each byte of the file at most once).
    copied: u64,
    /// Lines read so far.
    line: usize,
    /// Where the next read starts.
    offset: u64,
    /// The MCP servers whose exchanges the trace holds, named by their `initialize`.
    servers: super::mcp_servers::Servers,
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
        // Refused before anything is printed when the file already says it is compressed (and
        // at the first look otherwise).
        let mut magic = [0; 4];
        let n = (&file).read(&mut magic).unwrap_or(0);
        if let Some(compression) = super::detect::compression_of(&magic[..n]) {
            return Err(not_followable(compression).in_file(name));
        }
        Ok(Follower {
            file,
            name,
            pending: Vec::new(),
            too_long: false,
            copied: 0,
            line: 0,
            offset: 0,
            servers: super::mcp_servers::Servers::default(),
        })
    }

    /// The MCP servers whose `initialize` or `tools/list` exchanges were read so far.
    pub fn mcp_servers(&self) -> &[super::McpServer] {
        self.servers.all()
    }

    /// The trace's name as errors show it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The records of every line completed since the last call, in order; nothing new is an
    /// empty list (this never waits). At most [`READ_AT_ONCE`] bytes are read at a time: call
    /// again for the rest. A line over [`MAX_RECORD_BYTES`] is refused (a bad line, never
    /// parsed, its bytes not kept) and following goes on. An error reading the file ends the
    /// following; a file that shrank (written over) is an error too, never read twice.
    pub fn poll(&mut self) -> Result<Vec<Followed>, FileError> {
        let mut out = Vec::new();
        // Taken out for the lines' reading, and put back whatever it gives.
        let mut servers = std::mem::take(&mut self.servers);
        let read = self.poll_lines(|line| out.extend(record_of(line, &mut servers)));
        self.servers = servers;
        read.map(|()| out)
    }

    /// [`Follower::poll`] for a reader of its own kind of line (a Claude Code transcript's):
    /// each line completed since the last call handed to `each`, in order, with the same
    /// bounds (at most 16 MiB read, a line over [`MAX_RECORD_BYTES`] never kept).
    pub fn poll_lines(&mut self, each: impl FnMut(FollowedLine<'_>)) -> Result<(), FileError> {
        let len = self
            .file
            .metadata()
            .map_err(|e| unreadable(&e).in_file(self.name.clone()))?
            .len();
        if len < self.offset {
            let why = "the trace shrank while it was followed";
            return Err(LoadError::Unreadable(why.to_owned()).in_file(self.name.clone()));
        }
        let want = usize::try_from(len - self.offset)
            .unwrap_or(usize::MAX)
            .min(READ_AT_ONCE);
        let mut fresh = Vec::with_capacity(want);
        self.file
            .seek(SeekFrom::Start(self.offset))
            .and_then(|_| (&mut self.file).take(want as u64).read_to_end(&mut fresh))
            .map_err(|e| unreadable(&e).in_file(self.name.clone()))?;
        if self.offset == 0
            && let Some(compression) = super::detect::compression_of(&fresh)
        {
            return Err(not_followable(compression).in_file(self.name.clone()));
        }
        self.offset += fresh.len() as u64;
        self.lines(&fresh, each);
        Ok(())
    }

    /// The lines `fresh` completes, handed to `each`, the rest kept for the next read. Each
    /// byte is looked at once, and copied only when its line spans reads: linear in what is
    /// read.
    fn lines(&mut self, fresh: &[u8], mut each: impl FnMut(FollowedLine<'_>)) {
        let limit = usize::try_from(MAX_RECORD_BYTES).unwrap_or(usize::MAX);
        let mut start = 0;
        while let Some(end) = memchr::memchr(b'\n', &fresh[start..]) {
            let piece = &fresh[start..start + end];
            start += end + 1;
            self.line += 1;
            let too_long = self.too_long || self.pending.len() + piece.len() > limit;
            if too_long {
                self.too_long = false;
                self.pending = Vec::new();
                each(FollowedLine::TooLong(self.line));
                continue;
            }
            if self.pending.is_empty() {
                each(FollowedLine::Whole(self.line, piece));
            } else {
                self.keep(piece);
                let line = std::mem::take(&mut self.pending);
                each(FollowedLine::Whole(self.line, &line));
            }
        }
        let rest = &fresh[start..];
        if self.too_long || self.pending.len() + rest.len() > limit {
            // Refused once its newline comes; nothing of it is kept meanwhile.
            self.too_long = true;
            self.pending = Vec::new();
        } else {
            self.keep(rest);
        }
    }

    fn keep(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        self.copied += bytes.len() as u64;
    }
}

/// A line of a followed trace as what it is, its MCP servers named in `servers`.
fn record_of(line: FollowedLine<'_>, servers: &mut Servers) -> Option<Followed> {
    match line {
        FollowedLine::Whole(number, bytes) => read_line(number, bytes, servers),
        FollowedLine::TooLong(number) => {
            Some(Followed::Bad(format!("line {number}"), too_long_problem()))
        }
    }
}

/// A record line of a followed trace read as a record.
fn read_line(number: usize, line: &[u8], servers: &mut Servers) -> Option<Followed> {
    let at = format!("line {number}");
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
        Ok(record::Outcome::ServerHello(mut ignored, info)) => {
            ignored.reason = servers.hello(ignored.url.as_deref(), *info);
            Followed::Ignored(ignored)
        }
        Ok(record::Outcome::ServerList(list)) => Followed::Ignored(servers.list_ignored(&list)),
        Err(problem) => Followed::Bad(at, problem),
    })
}

/// A compressed file is not written a line at a time: it cannot be followed.
fn not_followable(compression: super::Compression) -> LoadError {
    LoadError::Unreadable(format!(
        "a {} file cannot be followed (it is not written a line at a time): read it without \
         --follow",
        compression.id()
    ))
}

/// Why a line over the record limit is refused, as `session` says it.
fn too_long_problem() -> String {
    format!("longer than {} MiB", MAX_RECORD_BYTES >> 20)
}

fn unreadable(error: &std::io::Error) -> LoadError {
    LoadError::Unreadable(crate::error::io_reason(error))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// What `poll` makes of `fresh` read at once.
    fn lines(follower: &mut Follower, fresh: &[u8]) -> Vec<Followed> {
        let mut out = Vec::new();
        let mut servers = Servers::default();
        follower.lines(fresh, |line| out.extend(record_of(line, &mut servers)));
        out
    }

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

    /// An MCP server's `initialize` and `tools/list` lines name it, as a whole trace's reading
    /// does.
    #[test]
    fn mcp_servers_are_named_as_lines_come() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let record = |request: &str, answer: &str| {
            format!(
                r#"{{"request":{{"method":"POST","url":"http://127.0.0.1:7/mcp","body":{request}}},"response":{{"status_code":200,"body":{answer}}},"logged_at":"2026-01-01T00:00:00Z"}}"#
            ) + "\n"
        };
        let text = record(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":0,"result":{"serverInfo":{"name":"kb","version":"2"}}}"#,
        ) + &record(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"lookup","inputSchema":{}}]}}"#,
        );
        std::fs::write(&path, text).unwrap();
        let mut follower = Follower::open(&path).unwrap();
        let reasons: Vec<String> = follower
            .poll()
            .unwrap()
            .into_iter()
            .map(|item| match item {
                Followed::Ignored(ignored) => ignored.reason,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            reasons,
            [
                "MCP initialize: the server kb 2, not a model call",
                "MCP tools/list: kb 2's list of 1 tool, not a model call"
            ]
        );
        assert_eq!(follower.mcp_servers()[0].tools, ["lookup"]);
    }

    /// Fifty thousand lines at once are read in one pass: no byte of a whole line is copied
    /// (the old reader moved every pending byte once per line: quadratic), only the half line
    /// at the end.
    #[test]
    fn many_lines_at_once_are_read_in_one_pass() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut text = String::new();
        for n in 0..50_000 {
            text.push_str(&format!("{{\"n\":{n}}}\n"));
        }
        text.push_str("{\"half");
        std::fs::write(&path, &text).unwrap();
        let mut follower = Follower::open(&path).unwrap();
        let items = follower.poll().unwrap();
        assert_eq!(items.len(), 50_000);
        assert_eq!(follower.copied, 6, "only the half line is copied");
        assert_eq!(follower.line, 50_000);
    }

    /// A line over the record limit is named and skipped, never kept whole nor parsed; the
    /// lines after it are read.
    #[test]
    fn a_line_over_the_limit_is_refused_and_following_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, "").unwrap();
        let mut follower = Follower::open(&path).unwrap();
        let limit = usize::try_from(MAX_RECORD_BYTES).unwrap();
        // Fed as reads would bring it: the long line in pieces, then its end and one more.
        let piece = vec![b' '; 64 * 1024 * 1024];
        for _ in 0..5 {
            assert!(lines(&mut follower, &piece).is_empty());
        }
        assert!(follower.too_long, "past the limit");
        assert!(follower.pending.capacity() < limit, "not kept");
        let items = lines(&mut follower, b" \n{\"n\":1}\n");
        assert_eq!(items.len(), 2);
        assert!(
            matches!(&items[0], Followed::Bad(at, why) if at == "line 1" && why.contains("longer than")),
            "{:?}",
            items[0]
        );
        assert!(matches!(&items[1], Followed::Bad(at, _) if at == "line 2"));
        assert_eq!(follower.line, 2);
        assert!(follower.pending.is_empty());
    }
}
