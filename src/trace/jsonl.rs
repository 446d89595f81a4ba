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
    /// A JSON value, with its line number and its text.
    Json(usize, Value, Box<str>),
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
            Line::Json(number, ..)
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
    /// While the format is told: the first line's limit unless it shows a trace record's key.
    first_capture_limit: Option<u64>,
    /// The first line was refused as a capture past that limit.
    refused_as_capture: bool,
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
            first_capture_limit: None,
            refused_as_capture: false,
        }
    }

    /// Hold the first line to a capture's `limit` unless the bytes read by then show it is a
    /// trace record (a top-level key only records have, see [`names_a_record`]): a single
    /// capture on one line is refused at its own limit, not read on to a record's.
    pub(crate) fn first_line_as_capture(mut self, limit: u64) -> LineSource {
        self.first_capture_limit = Some(limit);
        self
    }

    /// Whether the first line was refused as a capture past its limit.
    pub(crate) fn refused_as_capture(&self) -> bool {
        self.refused_as_capture
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
                    Some(Line::Json(_, value, _)) => Some(value),
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
            Line::Json(number, value, text) => {
                let source = format!("line {number}");
                Raw::Read(
                    source.clone(),
                    record::from_value(value, source, Some(&text)),
                )
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
        let read = match self.first_capture_limit.take() {
            Some(cap) if cap < self.limit => {
                let read = (&mut self.reader)
                    .take(cap + 1)
                    .read_until(b'\n', &mut self.buf);
                let past = self.buf.last() != Some(&b'\n') && self.buf.len() as u64 > cap;
                match read {
                    Ok(_) if past && !names_a_record(&self.buf) => {
                        self.line += 1;
                        self.bytes += self.buf.len() as u64;
                        self.done = true;
                        self.refused_as_capture = true;
                        self.buf = Vec::new();
                        return Some(Line::Fatal(
                            self.line,
                            super::bounded::Exceeded::Bytes(cap).to_string(),
                        ));
                    }
                    Ok(_) if past => {
                        let more = self.limit + 1 - self.buf.len() as u64;
                        (&mut self.reader)
                            .take(more)
                            .read_until(b'\n', &mut self.buf)
                    }
                    other => other,
                }
            }
            _ => (&mut self.reader)
                .take(self.limit + 1)
                .read_until(b'\n', &mut self.buf),
        };
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
            // Parsed: valid UTF-8.
            Ok(value) => Line::Json(number, value, super::text_of(text).into()),
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

/// Top-level keys only a trace record has, never a request body: claude-trace's and wrapped
/// records' `request`, `body` and `logged_at`, a HAR log, a cassette, a LiteLLM payload.
const RECORD_KEYS: [&[u8]; 8] = [
    b"request",
    b"body",
    b"logged_at",
    b"loggedAt",
    b"log",
    b"interactions",
    b"call_type",
    b"model_parameters",
];

/// Whether what follows a key is `: {` (a HAR's `log` holds an object; a capture's `log`
/// string or flag does not make it a record).
fn opens_object(after_key: &[u8]) -> bool {
    after_key
        .trim_ascii_start()
        .strip_prefix(b":")
        .is_some_and(|v| v.trim_ascii_start().starts_with(b"{"))
}

/// Whether the start of a JSON object (`head`, cut anywhere) has a top-level key of a trace
/// record among the keys it has so far. Keys are compared as written (these need no escapes).
pub(crate) fn names_a_record(head: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut expect_key = false;
    let mut key_start = None;
    for (i, &b) in head.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                if let Some(start) = key_start.take()
                    && RECORD_KEYS.contains(&&head[start..i])
                    && (&head[start..i] != b"log" || opens_object(&head[i + 1..]))
                {
                    return true;
                }
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                if depth == 1 && expect_key {
                    key_start = Some(i + 1);
                    expect_key = false;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                expect_key = depth == 1 && b == b'{';
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => expect_key = true,
            _ => {}
        }
    }
    false
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

    /// A stream of `head`, then `filler` up to `end` bytes, then a line feed (an overlong
    /// line is skipped to its end); counts the bytes read from it.
    struct Endless {
        head: Vec<u8>,
        filler: u8,
        end: u64,
        read: std::sync::Arc<std::sync::atomic::AtomicU64>,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let at = self.read.load(std::sync::atomic::Ordering::Relaxed) as usize;
            let n = buf
                .len()
                .min(1 << 16)
                .min((self.end + 1).saturating_sub(at as u64) as usize);
            for (i, b) in buf[..n].iter_mut().enumerate() {
                *b = match self.head.get(at + i) {
                    Some(&b) => b,
                    None if (at + i) as u64 == self.end => b'\n',
                    None => self.filler,
                };
            }
            self.read
                .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
            Ok(n)
        }
    }

    /// The first line of `head` then spaces (to twice the record limit), its capture limit
    /// `cap` and its record limit `limit`: what it gives, whether it was refused as a capture,
    /// bytes read.
    fn first_line(head: &str, cap: u64, limit: u64) -> (Line, bool, u64) {
        let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let endless = Endless {
            head: head.as_bytes().to_vec(),
            filler: b' ',
            end: 2 * limit,
            read: read.clone(),
        };
        RECORD_LIMIT.with(|l| l.set(limit));
        let mut lines = LineSource::new(Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            endless,
        )))
        .first_line_as_capture(cap);
        RECORD_LIMIT.with(|l| l.set(MAX_RECORD_BYTES));
        let line = lines.read_line().unwrap();
        let refused = lines.refused_as_capture();
        (
            line,
            refused,
            read.load(std::sync::atomic::Ordering::Relaxed),
        )
    }

    #[test]
    fn a_one_line_capture_stops_at_the_capture_limit() {
        let (cap, limit) = (1 << 20, 8 << 20);
        // A request body: refused as soon as it passes the capture limit.
        let (line, refused, read) = first_line(r#"{"model":"m","messages":["#, cap, limit);
        assert!(refused, "{line:?}");
        assert!(
            matches!(&line, Line::Fatal(1, p) if p == "too large: more than 1048576 bytes (the limit is 1048576 bytes)"),
            "{line:?}"
        );
        assert!(read <= cap + (1 << 16) + 1, "read {read} bytes");
        // A trace record (its `request` key, nested keys not counted): read on to the record
        // limit, a bad line of a trace as before.
        for head in [
            r#"{"request":{"body":{"model":"m","messages":["#,
            r#"{"id":1,"logged_at":"2026","request":{"#,
        ] {
            let (line, refused, read) = first_line(head, cap, limit);
            assert!(!refused, "{head}");
            assert!(
                matches!(&line, Line::Bad(1, p) if p.contains("longer than 8 MiB")),
                "{line:?}"
            );
            assert!(read > limit, "{head}: read {read}");
        }
        let (_, refused, _) =
            first_line(r#"{"model":"m","x":{"request":1},"messages":["#, cap, limit);
        assert!(refused, "a nested `request` is not a record's");
    }

    #[test]
    fn record_keys_are_told_at_the_top_level_only() {
        assert!(names_a_record(br#"{"request":{"#));
        assert!(names_a_record(br#"{ "a" : "request", "body": 1"#));
        assert!(!names_a_record(
            br#"{"a":"request","b":["body"],"c":{"log":1}"#
        ));
        assert!(!names_a_record(br#"{"a\"request":1,"x":"\"body\""#));
        assert!(!names_a_record(br#"["request"]"#));
        assert!(!names_a_record(b""));
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
