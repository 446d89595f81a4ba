//! JSON lines, read one line at a time from a `BufRead`: claude-trace / cctrace records, wrapped
//! bodies and bare bodies alike (each line is read by [`record::from_value`]).

use std::collections::VecDeque;
use std::io::{BufRead, Read};

use serde_json::Value;

use super::record;
use super::{MAX_RECORD_BYTES, Raw};
use crate::error::LoadError;

/// One physical line, read.
#[derive(Debug)]
pub(crate) enum Line {
    /// A JSON value, with its line number.
    Json(usize, Value),
    /// A line that is not JSON (or too long), with its line number and the problem.
    Bad(usize, String),
    /// The last line has no newline and stops mid-value, or a compressed stream ends mid-line:
    /// a writer killed while writing it.
    Torn(usize),
    /// Reading failed (an I/O or decompression error); nothing after it can be trusted.
    Fatal(usize, String),
}

impl Line {
    /// The line's number.
    pub(crate) fn number(&self) -> usize {
        match self {
            Line::Json(number, _)
            | Line::Bad(number, _)
            | Line::Torn(number)
            | Line::Fatal(number, _) => *number,
        }
    }
}

/// A stream of JSON lines. Holds one line's bytes at a time; blank lines are skipped without
/// being kept (a stream of nothing but line feeds costs no memory).
pub(crate) struct LineSource {
    reader: Box<dyn BufRead + Send>,
    line: usize,
    buf: Vec<u8>,
    /// Bytes read so far, blank lines included.
    bytes: u64,
    /// The line read last was overlong.
    overlong: bool,
    /// Longest line kept: [`MAX_RECORD_BYTES`] (smaller in unit tests).
    limit: u64,
    /// Lines read ahead (to tell the format) and not yet handed out.
    ahead: VecDeque<Line>,
    done: bool,
}

impl LineSource {
    /// Read lines from `reader`, whose first line is line 1.
    pub(crate) fn new(reader: Box<dyn BufRead + Send>) -> LineSource {
        LineSource::new_at(reader, 1)
    }

    /// Read lines from `reader`, whose first line is line `first` (what came before it was
    /// blank and is not read again).
    pub(crate) fn new_at(reader: Box<dyn BufRead + Send>, first: usize) -> LineSource {
        LineSource {
            reader,
            line: first.saturating_sub(1),
            buf: Vec::new(),
            bytes: 0,
            overlong: false,
            limit: record_limit(),
            ahead: VecDeque::new(),
            done: false,
        }
    }

    /// Put a line read (by [`LineSource::read_line`]) back, after those already put back.
    pub(crate) fn push_back(&mut self, line: Line) {
        self.ahead.push_back(line);
    }

    /// Whether the line read last was longer than [`MAX_RECORD_BYTES`] (and not kept).
    pub(crate) fn last_was_overlong(&self) -> bool {
        self.overlong
    }

    /// The failed read the lines read ahead end in, if they do.
    pub(crate) fn ends_fatal(&self) -> Option<(usize, String)> {
        match self.ahead.back() {
            Some(Line::Fatal(number, problem)) => Some((*number, problem.clone())),
            _ => None,
        }
    }

    /// The bytes of the line read last (as read: line feed included, nothing trimmed).
    pub(crate) fn last_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Bytes read so far, blank lines included.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// The reader, positioned after the last line read; the line number that last line had.
    pub(crate) fn into_parts(self) -> (Box<dyn BufRead + Send>, Vec<u8>, usize) {
        (self.reader, self.buf, self.line)
    }

    /// Read ahead to the first line that is a JSON value, and keep what was read for
    /// [`LineSource::next_raw`]. Gives up after `limit` lines (all of them bad).
    pub(crate) fn peek_first_value(&mut self, limit: usize) -> Option<&Value> {
        for _ in 0..limit {
            let line = self.read_line()?;
            let is_json = matches!(line, Line::Json(..));
            let stop = matches!(line, Line::Torn(_) | Line::Fatal(..));
            self.ahead.push_back(line);
            if is_json {
                return match self.ahead.back() {
                    Some(Line::Json(_, value)) => Some(value),
                    _ => None,
                };
            }
            if stop {
                return None;
            }
        }
        None
    }

    /// Whether the lines read ahead end in a torn line.
    pub(crate) fn ends_torn(&self) -> bool {
        matches!(self.ahead.back(), Some(Line::Torn(_)))
    }

    /// The next line as a trace item.
    pub(crate) fn next_raw(&mut self) -> Option<Raw> {
        let line = match self.ahead.pop_front() {
            Some(line) => line,
            None => self.read_line()?,
        };
        Some(match line {
            Line::Json(number, value) => {
                let source = format!("line {number}");
                Raw::Read(source.clone(), record::from_value(value, source))
            }
            Line::Bad(number, problem) => Raw::Read(format!("line {number}"), Err(problem)),
            Line::Torn(number) => Raw::Torn(format!("line {number}")),
            Line::Fatal(number, problem) => Raw::Fatal(LoadError::BadRecord {
                at: format!("line {number}"),
                problem,
            }),
        })
    }

    /// Read the next line that is not blank (never one put back).
    pub(crate) fn read_line(&mut self) -> Option<Line> {
        if self.done {
            return None;
        }
        self.buf.clear();
        self.overlong = false;
        // Blank lines are skipped in bulk, a buffer at a time: reading them one `read_until`
        // each would take minutes for a gigabyte of line feeds.
        match self.skip_blank() {
            Ok(true) => {}
            Ok(false) => {
                self.done = true;
                return None;
            }
            // A compressed stream cut short in blank lines: nothing torn to report.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                self.done = true;
                return None;
            }
            Err(e) => {
                self.done = true;
                return Some(Line::Fatal(self.line + 1, super::bounded::read_problem(&e)));
            }
        }
        let read = (&mut self.reader)
            .take(self.limit + 1)
            .read_until(b'\n', &mut self.buf);
        self.line += 1;
        let number = self.line;
        self.bytes += self.buf.len() as u64;
        match read {
            Ok(_) => {}
            // A compressed stream cut short: its writer was killed, like a torn line.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                self.done = true;
                return (!self.buf.trim_ascii().is_empty()).then_some(Line::Torn(number));
            }
            Err(e) => {
                self.done = true;
                return Some(Line::Fatal(number, super::bounded::read_problem(&e)));
            }
        }
        let complete = self.buf.last() == Some(&b'\n');
        if !complete && self.buf.len() as u64 > self.limit {
            self.overlong = true;
            self.buf = Vec::new();
            if let Err(e) = self.discard_rest_of_line() {
                self.done = true;
                return Some(Line::Fatal(number, super::bounded::read_problem(&e)));
            }
            return Some(Line::Bad(
                number,
                format!("longer than {} MiB", self.limit >> 20),
            ));
        }
        let text = self.buf.trim_ascii();
        Some(match super::budget::parse_slice(text) {
            Ok(value) => Line::Json(number, value),
            Err(e) if !complete && e.is_eof() => {
                self.done = true;
                Line::Torn(number)
            }
            Err(e) => Line::Bad(number, not_json(&e)),
        })
    }

    /// Skip white space (and a byte-order mark at the very start), counting the line feeds;
    /// `false` at the end of the stream.
    fn skip_blank(&mut self) -> std::io::Result<bool> {
        if self.bytes == 0 && self.line == 0 {
            let chunk = self.reader.fill_buf()?;
            // Not counted: offsets in the text are counted after it, as a capture's are.
            if chunk.starts_with(b"\xEF\xBB\xBF") {
                self.reader.consume(3);
            }
        }
        loop {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                return Ok(false);
            }
            let blank = chunk
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .unwrap_or(chunk.len());
            // Line feeds before the last one's line: the content line starts after it.
            self.line += chunk[..blank].iter().filter(|&&b| b == b'\n').count();
            self.bytes += blank as u64;
            let more = blank < chunk.len();
            self.reader.consume(blank);
            if more {
                return Ok(true);
            }
        }
    }

    /// Skip to the next newline without keeping the bytes.
    fn discard_rest_of_line(&mut self) -> std::io::Result<()> {
        loop {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                return Ok(());
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => {
                    self.reader.consume(at + 1);
                    return Ok(());
                }
                None => {
                    let len = chunk.len();
                    self.reader.consume(len);
                }
            }
        }
    }
}

#[cfg(test)]
thread_local! {
    /// The line limit of [`LineSource`]s made on this thread, for tests.
    pub(crate) static RECORD_LIMIT: std::cell::Cell<u64> = const { std::cell::Cell::new(MAX_RECORD_BYTES) };
}

fn record_limit() -> u64 {
    #[cfg(test)]
    return RECORD_LIMIT.with(std::cell::Cell::get);
    #[cfg(not(test))]
    MAX_RECORD_BYTES
}

/// `not JSON (expected value at column 1)`: the line is already named, so only the column.
fn not_json(error: &serde_json::Error) -> String {
    match crate::error::json_error(error) {
        LoadError::InvalidJson {
            column, message, ..
        } => format!("not JSON ({message} at column {column})"),
        LoadError::TooDeep { column, .. } => {
            format!("JSON nested too deeply at column {column} (the limit is 128 levels)")
        }
        limit @ LoadError::Limit(_) => limit.to_string(),
        other => format!("not JSON ({other})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{TraceOptions, open};

    const BODY: &str = r#"{"model":"m","messages":[],"tools":[]}"#;

    /// Open `text` as a trace file with lines limited to `limit` bytes; the items it gives.
    fn read(text: &str, limit: u64, skip_bad: bool) -> (Vec<Result<String, String>>, usize) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, text).unwrap();
        RECORD_LIMIT.with(|l| l.set(limit));
        let options = TraceOptions { skip_bad };
        let result = match open(path.to_str().unwrap(), &options) {
            Ok(mut reader) => {
                let items = reader
                    .by_ref()
                    .map(|r| r.map(|r| r.source).map_err(|e| e.error.to_string()))
                    .collect();
                (items, reader.skipped())
            }
            Err(e) => (vec![Err(e.error.to_string())], 0),
        };
        RECORD_LIMIT.with(|l| l.set(MAX_RECORD_BYTES));
        result
    }

    #[test]
    fn an_overlong_line_is_named_by_its_own_number_wherever_it_is() {
        let long = format!(r#"{{"model":"m","messages":[],"x":"{}"}}"#, "a".repeat(400));
        for at in 0..4 {
            let mut lines = vec![BODY.to_owned(); 4];
            lines[at] = long.clone();
            let text = format!("\n{}\n", lines.join("\n\n"));
            // Line numbers: a blank first line, then a blank line between bodies.
            let number = 2 + 2 * at;
            let (items, _) = read(&text, 256, false);
            let error = items.iter().find_map(|i| i.clone().err()).unwrap();
            assert_eq!(error, format!("line {number}: longer than 0 MiB"), "{at}");
            // --skip-bad skips it, even on the first lines; the others are read.
            let (items, skipped) = read(&text, 256, true);
            assert_eq!(skipped, 1, "{at}: {items:?}");
            assert_eq!(items.len(), 3, "{at}: {items:?}");
            assert!(items.iter().all(Result::is_ok), "{at}: {items:?}");
        }
    }

    /// A reader of `n` line feeds, made as it is read.
    struct Blank(u64);

    impl Read for Blank {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(usize::try_from(self.0).unwrap_or(usize::MAX));
            buf[..n].fill(b'\n');
            self.0 -= n as u64;
            Ok(n)
        }
    }

    #[test]
    fn blank_lines_are_counted_not_kept() {
        let blank = Blank(16 << 20);
        let tail = std::io::Cursor::new(format!("{BODY}\n"));
        let reader = std::io::BufReader::with_capacity(1 << 16, blank.chain(tail));
        let mut lines = LineSource::new(Box::new(reader));
        let line = lines.read_line().unwrap();
        assert_eq!(line.number(), (16 << 20) + 1);
        assert!(matches!(line, Line::Json(..)));
        assert!(lines.buf.capacity() < 1 << 20, "{}", lines.buf.capacity());
        assert!(lines.read_line().is_none());
        // During detection too: nothing but blank lines is `empty` (a loose bound on time: the
        // machine may be busy).
        let reader = std::io::BufReader::with_capacity(1 << 16, Blank(16 << 20));
        let started = std::time::Instant::now();
        let mut none = None;
        let error = super::super::detect::detect_content_for_test(Box::new(reader), &mut none);
        assert_eq!(error.unwrap_err().to_string(), "empty: no JSON in it");
        assert!(started.elapsed().as_secs() < 60);
    }
}
