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

/// A stream of JSON lines. Holds one line's bytes at a time; blank lines are skipped.
pub(crate) struct LineSource {
    reader: Box<dyn BufRead + Send>,
    line: usize,
    buf: Vec<u8>,
    /// Lines read ahead (to tell the format) and not yet handed out.
    ahead: VecDeque<Line>,
    done: bool,
}

impl LineSource {
    /// Read lines from `reader`, whose first line is line 1.
    pub(crate) fn new(reader: Box<dyn BufRead + Send>) -> LineSource {
        LineSource {
            reader,
            line: 0,
            buf: Vec::new(),
            ahead: VecDeque::new(),
            done: false,
        }
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

    fn read_line(&mut self) -> Option<Line> {
        loop {
            if self.done {
                return None;
            }
            self.buf.clear();
            let read = (&mut self.reader)
                .take(MAX_RECORD_BYTES + 1)
                .read_until(b'\n', &mut self.buf);
            self.line += 1;
            let number = self.line;
            match read {
                Ok(0) => {
                    self.done = true;
                    return None;
                }
                Ok(_) => {}
                // A compressed stream cut short: its writer was killed, like a torn line.
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    self.done = true;
                    return (!self.buf.trim_ascii().is_empty()).then_some(Line::Torn(number));
                }
                Err(e) => {
                    self.done = true;
                    return Some(Line::Fatal(number, format!("cannot read: {e}")));
                }
            }
            let complete = self.buf.last() == Some(&b'\n');
            if !complete && self.buf.len() as u64 > MAX_RECORD_BYTES {
                if let Err(e) = self.discard_rest_of_line() {
                    self.done = true;
                    return Some(Line::Fatal(number, format!("cannot read: {e}")));
                }
                return Some(Line::Bad(
                    number,
                    format!("longer than {} MiB", MAX_RECORD_BYTES >> 20),
                ));
            }
            let mut text: &[u8] = &self.buf;
            if number == 1 {
                text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            }
            let text = text.trim_ascii();
            if text.is_empty() {
                continue;
            }
            return Some(match serde_json::from_slice::<Value>(text) {
                Ok(mut value) => {
                    crate::capture::keep_number_text(text, &mut value);
                    Line::Json(number, value)
                }
                Err(e) if !complete && e.is_eof() => {
                    self.done = true;
                    Line::Torn(number)
                }
                Err(e) => Line::Bad(number, not_json(&e)),
            });
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

/// `not JSON (expected value at column 1)`: the line is already named, so only the column.
fn not_json(error: &serde_json::Error) -> String {
    match crate::error::json_error(error) {
        LoadError::InvalidJson {
            column, message, ..
        } => format!("not JSON ({message} at column {column})"),
        LoadError::TooDeep { column, .. } => {
            format!("JSON nested too deeply at column {column} (the limit is 128 levels)")
        }
        other => format!("not JSON ({other})"),
    }
}
