//! Telling a trace's format from its content (never its name), in `SESSIONS.md`'s order:
//! a directory; gzip / zstd magic (decompress, then look again); a HAR log; a single request
//! body (the whole document is tried before JSON lines, since a pretty-printed body spans many
//! lines); claude-trace / cctrace records; wrapped bodies; bare bodies.

use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

use serde_json::Value;

use super::folder::FolderSource;
use super::har::{self, HarSource};
use super::jsonl::LineSource;
use super::record::{self, Outcome};
use super::{Compression, MAX_RECORD_BYTES, Source, TraceFormat, TraceRecord};
use crate::capture::{Capture, MAX_CAPTURE_BYTES};
use crate::error::{LoadError, json_error};

/// Read buffer for traces: lines of a few hundred KB are common (each turn re-sends the
/// conversation), so a larger buffer saves system calls.
const BUFFER_BYTES: usize = 1 << 20;

/// How many bad lines to read ahead, looking for the first good one to tell the format by.
const FORMAT_LOOKAHEAD: usize = 64;

/// What detection found.
pub(crate) struct Detected {
    pub(crate) format: TraceFormat,
    pub(crate) compression: Option<Compression>,
    pub(crate) source: Source,
    pub(crate) ignored: Vec<super::Ignored>,
    /// When the input is one torn line and nothing else: what it gives read as one JSON
    /// document (the words a single capture cut short is named with).
    pub(crate) document_error: Option<LoadError>,
}

/// The compression a stream's first bytes announce.
pub(crate) fn compression_of(magic: &[u8]) -> Option<Compression> {
    if magic.starts_with(&[0x1f, 0x8b]) {
        Some(Compression::Gzip)
    } else if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(Compression::Zstd)
    } else {
        None
    }
}

/// A decompressing reader. gzip members and zstd frames that follow one another are all read
/// (what `cat a.gz b.gz` and appending writers produce).
fn decoder(
    compression: Compression,
    reader: Box<dyn Read + Send>,
) -> std::io::Result<Box<dyn Read + Send>> {
    Ok(match compression {
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(reader)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(reader)?),
    })
}

/// Decompress a body held in memory, refusing more than [`MAX_RECORD_BYTES`].
pub(crate) fn decompress(compression: Compression, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let name = match compression {
        Compression::Gzip => "gzip",
        Compression::Zstd => "zstd",
    };
    let reader = decoder(compression, Box::new(Cursor::new(bytes.to_vec())))
        .map_err(|e| format!("cannot decompress ({name}): {e}"))?;
    let mut out = Vec::new();
    reader
        .take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("cannot decompress ({name}): {e}"))?;
    if out.len() as u64 > MAX_RECORD_BYTES {
        return Err(format!(
            "larger than {} MiB decompressed",
            MAX_RECORD_BYTES >> 20
        ));
    }
    Ok(out)
}

/// Open `path` (`-` is standard input) and tell its format.
pub(crate) fn detect(path: &str, name: &str) -> Result<Detected, LoadError> {
    let unreadable = |e: std::io::Error| LoadError::Unreadable(crate::error::io_reason(&e));
    if path != "-" && Path::new(path).is_dir() {
        let (source, ignored) = FolderSource::new(Path::new(path)).map_err(unreadable)?;
        return Ok(Detected {
            format: TraceFormat::Folder,
            compression: None,
            source: Source::Folder(source),
            ignored,
            document_error: None,
        });
    }
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(unreadable)?)
    };
    let (magic, raw) = peek(raw, 4).map_err(unreadable)?;
    let compression = compression_of(&magic);
    let reader = match compression {
        Some(compression) => decoder(compression, raw).map_err(unreadable)?,
        None => raw,
    };
    let reader: Box<dyn BufRead + Send> = Box::new(BufReader::with_capacity(BUFFER_BYTES, reader));
    let mut document_error = None;
    let (format, source) = detect_content(reader, name, &mut document_error)?;
    Ok(Detected {
        format,
        compression,
        source,
        ignored: Vec::new(),
        document_error,
    })
}

/// Read up to `n` bytes and hand back a reader that still yields them.
fn peek(
    mut reader: Box<dyn Read + Send>,
    n: usize,
) -> std::io::Result<(Vec<u8>, Box<dyn Read + Send>)> {
    let mut head = Vec::with_capacity(n);
    (&mut reader).take(n as u64).read_to_end(&mut head)?;
    Ok((head.clone(), Box::new(Cursor::new(head).chain(reader))))
}

/// Read one line (up to [`MAX_RECORD_BYTES`]) into `buf`, appending. Returns the bytes read.
fn read_line(reader: &mut dyn BufRead, buf: &mut Vec<u8>) -> Result<usize, LoadError> {
    let start = buf.len();
    let n = reader
        .take(MAX_RECORD_BYTES + 1)
        .read_until(b'\n', buf)
        .map_err(|e| LoadError::Unreadable(crate::error::io_reason(&e)))?;
    if n as u64 > MAX_RECORD_BYTES && buf.last() != Some(&b'\n') {
        return Err(LoadError::BadRecord {
            at: format!("line {}", count_lines(&buf[..start]) + 1),
            problem: format!("longer than {} MiB", MAX_RECORD_BYTES >> 20),
        });
    }
    debug_assert_eq!(buf.len() - start, n);
    Ok(n)
}

/// Read lines into `head` until one that is not blank; returns where that line starts in
/// `head`, or `None` at the end of the stream.
fn next_content_line(
    reader: &mut dyn BufRead,
    head: &mut Vec<u8>,
) -> Result<Option<usize>, LoadError> {
    loop {
        let start = head.len();
        if read_line(reader, head)? == 0 {
            return Ok(None);
        }
        if !without_bom(&head[start..]).trim_ascii().is_empty() {
            return Ok(Some(start));
        }
    }
}

fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

fn detect_content(
    mut reader: Box<dyn BufRead + Send>,
    name: &str,
    document_error_out: &mut Option<LoadError>,
) -> Result<(TraceFormat, Source), LoadError> {
    // Everything read during detection is kept, and read again by the JSON-lines reader.
    let mut head = Vec::new();
    let Some(first_start) = next_content_line(&mut *reader, &mut head)? else {
        return Err(LoadError::Empty);
    };
    let first = without_bom(&head[first_start..]).trim_ascii().to_vec();
    let first_line = format!("line {}", count_lines(&head));
    match serde_json::from_slice::<Value>(&first) {
        Ok(mut value) => {
            crate::capture::keep_number_text(&first, &mut value);
            let second = next_content_line(&mut *reader, &mut head)?;
            match second {
                None => document(value, head.len() as u64, name, &first_line),
                Some(_) if har::is_har(&value) => Err(LoadError::BadRecord {
                    at: format!("line {}", count_lines(&head)),
                    problem: "more content after the HAR document".into(),
                }),
                Some(_) => {
                    let format = record::format_of(&value);
                    let reader = Box::new(Cursor::new(head).chain(reader));
                    Ok((format, Source::Lines(LineSource::new(reader))))
                }
            }
        }
        Err(_) if first == b"{" || first == b"[" => {
            // A pretty-printed document: read it whole.
            reader
                .read_to_end(&mut head)
                .map_err(|e| LoadError::Unreadable(crate::error::io_reason(&e)))?;
            let mut value: Value = serde_json::from_slice(without_bom(&head))
                .map_err(|e| document_failure(&head, &e))?;
            crate::capture::keep_number_text(without_bom(&head), &mut value);
            document(value, head.len() as u64, name, name)
        }
        Err(_) => {
            // Either a document whose first line holds more than a bracket, or JSON lines whose
            // first line is bad. Try the document, keeping a copy of what the parser reads so
            // the JSON-lines reader can start over from the top.
            let mut tee = Tee {
                inner: reader,
                copy: Vec::new(),
            };
            let parsed = {
                let chained = Cursor::new(without_bom(&head).to_vec()).chain(&mut tee);
                let mut deserializer = serde_json::Deserializer::from_reader(chained);
                serde::Deserialize::deserialize(&mut deserializer)
                    .and_then(|value: Value| deserializer.end().map(|()| value))
            };
            let document_error = match parsed {
                Ok(mut value) => {
                    let size = (head.len() + tee.copy.len()) as u64;
                    let text = [without_bom(&head), &tee.copy[..]].concat();
                    crate::capture::keep_number_text(&text, &mut value);
                    return document(value, size, name, name);
                }
                Err(e) => e,
            };
            head.extend_from_slice(&tee.copy);
            let document_error = document_failure(&head, &document_error);
            let binary = crate::capture::looks_binary(&head);
            let reader = Box::new(Cursor::new(head).chain(tee.inner));
            let mut lines = LineSource::new(reader);
            match lines
                .peek_first_value(FORMAT_LOOKAHEAD)
                .map(record::format_of)
            {
                Some(format) => Ok((format, Source::Lines(lines))),
                // A torn only line: a trace with no turn yet, and the torn line to report.
                None if lines.ends_torn() => {
                    *document_error_out = Some(document_error);
                    Ok((TraceFormat::BareJsonl, Source::Lines(lines)))
                }
                // No line is JSON: not JSON lines, so a broken document (or no text at all).
                None if binary => Err(LoadError::Binary),
                None => Err(document_error),
            }
        }
    }
}

/// A document that does not parse, named as a single capture names it: bytes that are not UTF-8
/// before a parser position (`head` is a prefix of the input, so its first invalid byte is the
/// input's).
fn document_failure(head: &[u8], e: &serde_json::Error) -> LoadError {
    match std::str::from_utf8(without_bom(head)) {
        Err(bad) if bad.error_len().is_some() => LoadError::InvalidUtf8 {
            offset: bad.valid_up_to(),
        },
        _ => json_error(e),
    }
}

fn count_lines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count() + usize::from(bytes.last() != Some(&b'\n'))
}

/// A whole JSON document: a HAR log, one record (claude-trace or wrapped), or one request body.
/// A record is named `at` (its line when the document is one line, else the file); a request
/// body is named by the file.
fn document(
    value: Value,
    size: u64,
    name: &str,
    at: &str,
) -> Result<(TraceFormat, Source), LoadError> {
    if har::is_har(&value) {
        return Ok((TraceFormat::Har, Source::Har(HarSource::new(value))));
    }
    match record::format_of(&value) {
        TraceFormat::BareJsonl => {}
        format => return Ok((format, Source::One(Some((at.to_owned(), value))))),
    }
    // A plain capture: the single-capture rules apply, size limit included.
    if size > MAX_CAPTURE_BYTES {
        return Err(LoadError::TooLarge {
            size,
            limit: MAX_CAPTURE_BYTES,
        });
    }
    // Checked here, so that a broken single capture is named as one; the check takes the value
    // and gives it back (a clone would double a large capture's peak).
    let body = super::RecordBody::Request(Capture::from_value(value)?.into_body());
    let record = TraceRecord::bare(name.to_owned(), body);
    Ok((
        TraceFormat::Single,
        Source::Ready(Some(Outcome::Turn(Box::new(record)))),
    ))
}

/// A reader that keeps a copy of every byte read through it.
struct Tee {
    inner: Box<dyn BufRead + Send>,
    copy: Vec<u8>,
}

impl Read for Tee {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.copy.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}
