//! Telling a trace's format from its content (never its name), in `SESSIONS.md`'s order:
//! a directory; gzip / zstd magic (decompress, then look again); a HAR log; a single request
//! body (the whole document is tried before JSON lines, since a pretty-printed body spans many
//! lines); claude-trace / cctrace records; wrapped bodies; bare bodies.

use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use super::array::{self, ArraySource};
use super::cassette::{self, CassetteSource};
use super::folder::FolderSource;
use super::har::{self, HarSource};
use super::jsonl::{Line, LineSource};
use super::kind;
use super::record::{self, Outcome};
use super::testproxy;
use super::wiremock;
use super::{Compression, MAX_RECORD_BYTES, Source, TraceFormat, TraceRecord};
use super::{bounded, budget};
use crate::capture::{Capture, MAX_CAPTURE_BYTES};
use crate::error::{LoadError, json_error, json_kind};

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
    /// What the reader should say about the trace as a whole (a LiteLLM log's bytes).
    pub(crate) notes: Vec<String>,
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

/// Decompressed bytes a body held in memory may always reach, whatever its ratio.
const BODY_RATIO_FLOOR: u64 = 1 << 20;

/// Decompress a body held in memory, refusing more than [`MAX_RECORD_BYTES`] and more than
/// [`bounded::MAX_RATIO`] times its compressed size (past a 1 MiB floor).
pub(crate) fn decompress(compression: Compression, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let ratio_cap = (bytes.len() as u64)
        .saturating_mul(bounded::MAX_RATIO)
        .max(BODY_RATIO_FLOOR);
    match decompress_at_most(compression, bytes, MAX_RECORD_BYTES.min(ratio_cap))? {
        (out, false) => Ok(out),
        (_, true) if ratio_cap < MAX_RECORD_BYTES => Err(format!(
            "more than {} times its size decompressed (a decompression bomb?)",
            bounded::MAX_RATIO
        )),
        (_, true) => Err(format!(
            "larger than {} MiB decompressed",
            MAX_RECORD_BYTES >> 20
        )),
    }
}

/// Decompress at most `cap` bytes of a body held in memory; `true` when there was more.
pub(crate) fn decompress_at_most(
    compression: Compression,
    bytes: &[u8],
    cap: u64,
) -> Result<(Vec<u8>, bool), String> {
    let name = match compression {
        Compression::Gzip => "gzip",
        Compression::Zstd => "zstd",
    };
    let reader = decoder(compression, Box::new(Cursor::new(bytes.to_vec())))
        .map_err(|e| format!("cannot decompress ({name}): {e}"))?;
    let mut out = Vec::new();
    reader
        .take(cap + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("cannot decompress ({name}): {e}"))?;
    let more = out.len() as u64 > cap;
    out.truncate(cap as usize);
    Ok((out, more))
}

/// Largest HAR log read whole (counted while reading): [`MAX_RECORD_BYTES`]. Any other
/// document (a pretty-printed body or record) may not pass [`MAX_CAPTURE_BYTES`].
pub(crate) const MAX_DOCUMENT_BYTES: u64 = MAX_RECORD_BYTES;

/// The byte limit of a document that starts with `head` (its first line, then what follows):
/// a HAR log's (`{"log": …`, the only key HAR writers put there) or a test-proxy recording's
/// (`{"Entries": [`), else a capture's.
fn document_limit(head: &[u8]) -> u64 {
    let rest = head.trim_ascii_start();
    let rest = rest.strip_prefix(b"{").unwrap_or(rest).trim_ascii_start();
    // The test proxy's recording opens with its `Entries` list (its other key, `Variables`,
    // is written last): a recording of many calls, not a capture.
    if let Some(after) = rest.strip_prefix(b"\"Entries\"") {
        let after = after.trim_ascii_start();
        if after
            .strip_prefix(b":")
            .is_some_and(|v| v.trim_ascii_start().starts_with(b"["))
        {
            return MAX_DOCUMENT_BYTES;
        }
    }
    // `"log"` first and an object holding HAR's own keys (`version`, `creator`, `entries`,
    // which writers put first): a capture whose first key is `log` keeps a capture's limit.
    let Some(after) = rest.strip_prefix(b"\"log\"") else {
        return MAX_CAPTURE_BYTES;
    };
    let after = after.trim_ascii_start();
    let object = after
        .strip_prefix(b":")
        .is_some_and(|v| v.trim_ascii_start().starts_with(b"{"));
    let har_keys = [b"\"version\"".as_slice(), b"\"creator\"", b"\"entries\""]
        .iter()
        .any(|key| {
            after[..after.len().min(4096)]
                .windows(key.len())
                .any(|w| w == *key)
        });
    if object && har_keys {
        MAX_DOCUMENT_BYTES
    } else {
        MAX_CAPTURE_BYTES
    }
}

/// Open `path` (`-` is standard input) and tell its format.
pub(crate) fn detect(path: &Path, name: &str) -> Result<Detected, LoadError> {
    let unreadable = |e: std::io::Error| LoadError::Unreadable(crate::error::io_reason(&e));
    let stdin = path.as_os_str() == "-";
    if !stdin && path.is_dir() {
        let (source, ignored) = FolderSource::new(path).map_err(unreadable)?;
        return Ok(Detected {
            format: TraceFormat::Folder,
            compression: None,
            source: Source::Folder(source),
            ignored,
            document_error: None,
            notes: Vec::new(),
        });
    }
    let raw: Box<dyn Read + Send> = if stdin {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(unreadable)?)
    };
    let (reader, compression) = decoded(raw).map_err(unreadable)?;
    let reader: Box<dyn BufRead + Send> = Box::new(BufReader::with_capacity(BUFFER_BYTES, reader));
    let mut document_error = None;
    let mut litellm = false;
    let (format, source) = detect_content(reader, name, &mut document_error, &mut litellm)?;
    let notes = match (&source, litellm) {
        (Source::One(Some((_, value, _))), _) if kind::is_litellm_payload(value) => {
            vec![kind::LITELLM_NOTE.to_owned()]
        }
        (Source::Lines(_), true) => vec![kind::LITELLM_NOTE.to_owned()],
        _ => Vec::new(),
    };
    Ok(Detected {
        format,
        compression,
        source,
        ignored: Vec::new(),
        document_error,
        notes,
    })
}

/// `raw` decompressed when its first bytes are gzip's or zstd's magic (whatever its name),
/// no more than [`bounded::MAX_RATIO`] times its size past [`bounded::RATIO_FLOOR`]: a bomb is
/// a read error that [`read_error`] names.
pub(crate) fn decoded(
    raw: Box<dyn Read + Send>,
) -> std::io::Result<(Box<dyn Read + Send>, Option<Compression>)> {
    let (magic, raw) = peek(raw, 4)?;
    let compression = compression_of(&magic);
    let reader = match compression {
        Some(compression) => {
            let (counting, guard) = bounded::ratio_guard(raw, bounded::RATIO_FLOOR);
            let decoder = decoder(compression, Box::new(counting))?;
            Box::new(guard(decoder)) as Box<dyn Read + Send>
        }
        None => raw,
    };
    Ok((reader, compression))
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

fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// A read that cannot go on, named at its line.
fn fatal(number: usize, problem: String) -> LoadError {
    LoadError::BadRecord {
        at: format!("line {number}"),
        problem,
    }
}

/// A failed read of a whole document: a limit in its own words, else `cannot read`.
pub(crate) fn read_error(error: &std::io::Error) -> LoadError {
    match bounded::Exceeded::of(error) {
        Some(exceeded) => LoadError::Limit(exceeded.to_string()),
        None => LoadError::Unreadable(crate::error::io_reason(error)),
    }
}

fn detect_content(
    reader: Box<dyn BufRead + Send>,
    name: &str,
    document_error_out: &mut Option<LoadError>,
    litellm_out: &mut bool,
) -> Result<(TraceFormat, Source), LoadError> {
    // Lines are read through the JSON-lines reader from the start: blank lines are skipped
    // (never kept), and an overlong line is a bad line of its own number.
    let mut lines = LineSource::new(reader).first_line_as_capture(MAX_CAPTURE_BYTES);
    let Some(first) = lines.read_line() else {
        return Err(LoadError::Empty);
    };
    match first {
        // A single capture on one line, past its limit: refused there, as a pretty one is.
        Line::Fatal(_, problem) if lines.refused_as_capture() => Err(LoadError::Limit(problem)),
        Line::Fatal(number, problem) => Err(fatal(number, problem)),
        Line::Json(number, value, text) => {
            first_line_json(lines, number, (value, text), name, litellm_out)
        }
        // Too long to be a line of a document worth reading whole: a bad line of a trace.
        overlong @ Line::Bad(..) if lines.last_was_overlong() => {
            lines.push_back(overlong);
            lines_of_unknown_format(lines, None, false, document_error_out, litellm_out)
        }
        Line::Bad(number, _) | Line::Torn(number) => {
            bad_first_line(lines, number, name, document_error_out, litellm_out)
        }
    }
}

/// A first line that is JSON: the whole document when nothing follows it, else the first
/// record of JSON lines (their format told by it).
fn first_line_json(
    mut lines: LineSource,
    number: usize,
    (value, text): (Value, Box<str>),
    name: &str,
    litellm_out: &mut bool,
) -> Result<(TraceFormat, Source), LoadError> {
    let size = lines.bytes_read();
    match lines.read_line() {
        None => document(value, Some(&text), size, name, &format!("line {number}")),
        Some(Line::Fatal(number, problem)) => Err(fatal(number, problem)),
        Some(second) if har::is_har(&value) => Err(LoadError::BadRecord {
            at: format!("line {}", second.number()),
            problem: "more content after the HAR document".into(),
        }),
        Some(second) => {
            if let Some(what) = kind::refusal(&value) {
                return Err(LoadError::Refused(what));
            }
            *litellm_out = kind::is_litellm_payload(&value);
            let format = record::format_of(&value);
            lines.push_back(Line::Json(number, value, text));
            lines.push_back(second);
            Ok((format, Source::Lines(lines)))
        }
    }
}

/// A first line that is not JSON: a YAML cassette, an event stream, a pretty-printed
/// document, or JSON lines whose first line is bad.
fn bad_first_line(
    lines: LineSource,
    number: usize,
    name: &str,
    document_error_out: &mut Option<LoadError>,
    litellm_out: &mut bool,
) -> Result<(TraceFormat, Source), LoadError> {
    // Blank bytes before the first line were skipped: offsets count them back in.
    let skipped = lines.bytes_read() as usize - lines.last_bytes().len();
    let (reader, first, _) = lines.into_parts();
    let trimmed = first.trim_ascii();
    if cassette::looks_like_yaml(trimmed) {
        return yaml_cassette(reader, first);
    }
    if super::httprr::is_httprr(trimmed) {
        let text = read_rest(reader, first, MAX_RECORD_BYTES)?;
        let document = super::httprr::document(&text)?;
        return Ok((
            TraceFormat::Httprr,
            Source::Cassette(CassetteSource::named(document, "record")),
        ));
    }
    if [b"STDIN: ".as_slice(), b"STDOUT: ", b"STDERR: "]
        .iter()
        .any(|p| trimmed.starts_with(p))
    {
        return mcp_replay(reader, first);
    }
    if trimmed.starts_with(b"event:")
        || trimmed.starts_with(b"data:")
        || trimmed.starts_with(b"id:")
    {
        return event_stream(reader, first, name);
    }
    if matches!(first.trim_ascii(), b"{" | b"[") {
        return pretty_document(reader, first, skipped, number, name);
    }
    document_or_lines(
        reader,
        first,
        skipped,
        number,
        name,
        document_error_out,
        litellm_out,
    )
}

/// A VCR cassette in YAML, read whole.
fn yaml_cassette(
    reader: Box<dyn BufRead + Send>,
    first: Vec<u8>,
) -> Result<(TraceFormat, Source), LoadError> {
    let text = read_rest(reader, first, MAX_RECORD_BYTES)?;
    let value = cassette::from_yaml(without_bom(&text))?;
    if !cassette::is_cassette(&value) && !cassette::is_interaction_list(&value) {
        return Err(LoadError::Refused(
            if value
                .get("interactions")
                .or_else(|| value.get("http_interactions"))
                .is_some()
            {
                "a cassette whose interactions are not HTTP requests (no `request`: a \
             recording of another protocol or library call, such as gRPC or a local model)"
                    .to_owned()
            } else {
                format!(
                    "YAML, but not a VCR cassette (no `interactions` list of requests{})",
                    yaml_keys(&value)
                )
            },
        ));
    }
    Ok((
        TraceFormat::Cassette,
        Source::Cassette(CassetteSource::new(value)),
    ))
}

/// "; its top-level keys: a, b" for a YAML mapping whose keys are plain words (others are
/// counted, never shown: they are the file's text), or nothing.
fn yaml_keys(value: &Value) -> String {
    let Some(map) = value.as_object() else {
        return format!("; it is {}", json_kind(value));
    };
    let plain = |k: &&String| {
        k.len() <= 40
            && k.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    let shown: Vec<&str> = map
        .keys()
        .filter(plain)
        .take(6)
        .map(String::as_str)
        .collect();
    let others = map.len() - shown.len();
    match (shown.is_empty(), others) {
        (true, 0) => "; it is an empty mapping".to_owned(),
        (true, n) => format!("; its {n} top-level keys are not plain words"),
        (false, 0) => format!("; its top-level keys: {}", shown.join(", ")),
        (false, n) => format!("; its top-level keys: {} and {n} more", shown.join(", ")),
    }
}

/// A server-sent event stream: an MCP `tools/list` answer in it is the capture.
fn event_stream(
    reader: Box<dyn BufRead + Send>,
    first: Vec<u8>,
    name: &str,
) -> Result<(TraceFormat, Source), LoadError> {
    let text = read_rest(reader, first, MAX_CAPTURE_BYTES)?;
    let text = String::from_utf8_lossy(without_bom(&text)).into_owned();
    let size = text.len() as u64;
    match record::mcp_answer(&Value::String(text)) {
        Some(answer) => document(answer, None, size, name, name),
        None => Err(LoadError::Refused(
            "an event stream (server-sent events) with no MCP tools/list answer in \
             it: a response, not a request"
                .into(),
        )),
    }
}

/// A goose MCP replay: the `STDIN:` / `STDOUT:` lines of an MCP session over stdio. Its
/// `tools/list` answers (every page, in order) are the capture; the rest is the session.
fn mcp_replay(
    reader: Box<dyn BufRead + Send>,
    first: Vec<u8>,
) -> Result<(TraceFormat, Source), LoadError> {
    let text = read_rest(reader, first, MAX_CAPTURE_BYTES)?;
    let text = String::from_utf8_lossy(without_bom(&text)).into_owned();
    let mut asked = Vec::new();
    let mut tools = Vec::new();
    let mut answer_at = None;
    for (number, line) in text.lines().enumerate() {
        let Some((side @ ("STDIN" | "STDOUT"), json)) = line.split_once(": ") else {
            continue;
        };
        let Ok(message) = serde_json::from_str::<Value>(json) else {
            continue;
        };
        let id = message.get("id").cloned();
        if side == "STDIN" && message.get("method").and_then(Value::as_str) == Some("tools/list") {
            asked.extend(id);
        } else if side == "STDOUT"
            && id.is_some_and(|id| asked.contains(&id))
            && let Some(Value::Array(page)) = message.pointer("/result/tools")
        {
            tools.extend(page.iter().cloned());
            answer_at.get_or_insert(number + 1);
        }
    }
    let Some(line) = answer_at else {
        return Err(LoadError::Refused(
            "a goose MCP replay (an MCP session's STDIN/STDOUT lines) with no tools/list \
             answer in it"
                .into(),
        ));
    };
    let answer = serde_json::json!({"jsonrpc": "2.0", "result": {"tools": tools}});
    let at = format!("line {line}");
    Ok((
        TraceFormat::McpReplay,
        Source::One(Some((at, answer, None))),
    ))
}

/// A pretty-printed document whose first line is a bracket: read whole, up to its limit (told
/// by the next bytes: a HAR log's `"log"` key).
fn pretty_document(
    mut reader: Box<dyn BufRead + Send>,
    first: Vec<u8>,
    skipped: usize,
    number: usize,
    name: &str,
) -> Result<(TraceFormat, Source), LoadError> {
    let mut head = first;
    let next = reader.fill_buf().map_err(|e| read_error(&e))?;
    let mut peeked = head.clone();
    peeked.extend_from_slice(&next[..next.len().min(4096)]);
    let limit = document_limit(&peeked);
    bounded::Limited::after(reader, limit, head.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| read_error(&e))?;
    let value = budget::parse_slice(&head)
        .map_err(|e| shifted(document_failure(&head, skipped, &e), number))?;
    // Parsed: valid UTF-8.
    let text = super::text_of(&head);
    document(value, Some(&text), head.len() as u64, name, name)
}

/// Either a document whose first line holds more than a bracket, or JSON lines whose first
/// line is bad. The document is tried first, keeping a copy of what the parser reads so the
/// JSON-lines reader can start over from that line.
fn document_or_lines(
    reader: Box<dyn BufRead + Send>,
    first: Vec<u8>,
    skipped: usize,
    number: usize,
    name: &str,
    document_error_out: &mut Option<LoadError>,
    litellm_out: &mut bool,
) -> Result<(TraceFormat, Source), LoadError> {
    let read = Arc::new(AtomicU64::new(first.len() as u64));
    let limit = document_limit(&first);
    let mut tee = Tee {
        inner: bounded::Limited::after(reader, limit, first.len() as u64),
        copy: Vec::new(),
        read: read.clone(),
        limit_reached: None,
    };
    let parsed = {
        let chained = Cursor::new(&first[..]).chain(&mut tee);
        budget::parse_reader(chained, &|| read.load(Ordering::Relaxed))
    };
    let document_error = match parsed {
        Ok(mut value) => {
            let size = first.len() as u64 + tee.copy.len() as u64;
            let text = [&first[..], &tee.copy[..]].concat();
            crate::capture::keep_number_text(&text, &mut value);
            let text = super::text_of(&text);
            return document(value, Some(&text), size, name, name);
        }
        Err(e) => e,
    };
    let mut head = first;
    head.extend_from_slice(&tee.copy);
    // Past the document limit: read as JSON lines (the copy so far, then the rest).
    let document_error = match tee.limit_reached.take() {
        Some(reached) if document_error.is_io() => reached,
        _ => shifted(document_failure(&head, skipped, &document_error), number),
    };
    let binary = crate::capture::looks_binary(&head);
    let reader = Box::new(Cursor::new(head).chain(tee.inner.into_inner()));
    let lines = LineSource::new_at(reader, number);
    lines_of_unknown_format(
        lines,
        Some(document_error),
        binary,
        document_error_out,
        litellm_out,
    )
}

/// [`detect_content`] for unit tests.
#[cfg(test)]
pub(crate) fn detect_content_for_test(
    reader: Box<dyn BufRead + Send>,
    document_error: &mut Option<LoadError>,
) -> Result<TraceFormat, LoadError> {
    detect_content(reader, "t", document_error, &mut false).map(|(format, _)| format)
}

/// JSON lines whose first line is bad: told by the first good line within
/// [`FORMAT_LOOKAHEAD`].
fn lines_of_unknown_format(
    mut lines: LineSource,
    document_error: Option<LoadError>,
    binary: bool,
    document_error_out: &mut Option<LoadError>,
    litellm_out: &mut bool,
) -> Result<(TraceFormat, Source), LoadError> {
    let first = lines.peek_first_value(FORMAT_LOOKAHEAD);
    if let Some(what) = first.and_then(kind::refusal) {
        return Err(LoadError::Refused(what));
    }
    *litellm_out = first.is_some_and(kind::is_litellm_payload);
    match first.map(record::format_of) {
        Some(format) => Ok((format, Source::Lines(lines))),
        // A torn only line: a trace with no turn yet, and the torn line to report.
        None if lines.ends_torn() => {
            *document_error_out = document_error;
            Ok((TraceFormat::BareJsonl, Source::Lines(lines)))
        }
        None if lines.ends_fatal().is_some() => {
            let (number, problem) = lines.ends_fatal().unwrap_or_default();
            Err(fatal(number, problem))
        }
        // No line is JSON: not JSON lines, so a broken document (or no text at all).
        None if binary => Err(LoadError::Binary),
        None => match document_error {
            Some(error) => Err(error),
            // Only overlong or bad lines: a trace whose lines are all bad, read as such.
            None => Ok((TraceFormat::BareJsonl, Source::Lines(lines))),
        },
    }
}

/// A document that does not parse, named as a single capture names it: bytes that are not UTF-8
/// before a parser position (`head` is a prefix of the input, so its first invalid byte is the
/// input's).
/// A parser position in text that starts at line `first`: counted from the file's top again.
fn shifted(error: LoadError, first: usize) -> LoadError {
    let by = first.saturating_sub(1);
    match error {
        LoadError::InvalidJson {
            line,
            column,
            message,
        } => LoadError::InvalidJson {
            line: line + by,
            column,
            message,
        },
        LoadError::TooDeep { line, column } => LoadError::TooDeep {
            line: line + by,
            column,
        },
        other => other,
    }
}

fn document_failure(head: &[u8], skipped: usize, e: &serde_json::Error) -> LoadError {
    match std::str::from_utf8(without_bom(head)) {
        Err(bad) if bad.error_len().is_some() => LoadError::InvalidUtf8 {
            offset: skipped + bad.valid_up_to(),
        },
        _ => json_error(e),
    }
}

/// A whole JSON document: a HAR log, one record (claude-trace or wrapped), or one request body.
/// A record is named `at` (its line when the document is one line, else the file); a request
/// body is named by the file.
fn document(
    value: Value,
    text: Option<&str>,
    size: u64,
    name: &str,
    at: &str,
) -> Result<(TraceFormat, Source), LoadError> {
    if har::is_har(&value) {
        return Ok((TraceFormat::Har, Source::Har(HarSource::new(value))));
    }
    if cassette::is_cassette(&value) {
        let source = Source::Cassette(CassetteSource::new(value));
        return Ok((TraceFormat::Cassette, source));
    }
    if wiremock::is_mapping(&value) || wiremock::is_mapping_list(&value) {
        let document = wiremock::document(value);
        let source = Source::Cassette(CassetteSource::named(document, "mapping"));
        return Ok((TraceFormat::WireMock, source));
    }
    if testproxy::is_recording(&value) {
        let document = testproxy::document(value)?;
        let source = Source::Cassette(CassetteSource::named(document, "entry"));
        return Ok((TraceFormat::TestProxy, source));
    }
    // Mastra's LLM recorder: `{meta, recordings: [...]}`, the recordings wrapped records.
    let value = match value {
        Value::Object(mut map)
            if map.contains_key("meta")
                && map
                    .get("recordings")
                    .and_then(Value::as_array)
                    .is_some_and(|items| array::format_of(items).is_some()) =>
        {
            map.remove("recordings").unwrap_or_default()
        }
        other => other,
    };
    let value = match value {
        Value::Array(items) => match array::format_of(&items) {
            Some(format) => return Ok((format, Source::Array(ArraySource::new(items, format)))),
            None => {
                // An array of records of a known kind that holds no request: named by its
                // first.
                let first = items.iter().find(|v| v.is_object());
                if let Some(what) = first.and_then(kind::refusal) {
                    return Err(LoadError::Refused(format!(
                        "a JSON array of records: {what}"
                    )));
                }
                Value::Array(items)
            }
        },
        other => other,
    };
    if let Some(what) = kind::refusal(&value) {
        return Err(LoadError::Refused(what));
    }
    if kind::is_litellm_payload(&value) {
        return Ok((
            TraceFormat::BareJsonl,
            Source::One(Some((at.to_owned(), value, text.map(Into::into)))),
        ));
    }
    match record::format_of(&value) {
        TraceFormat::BareJsonl => {}
        format => {
            let one = (at.to_owned(), value, text.map(Into::into));
            return Ok((format, Source::One(Some(one))));
        }
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
    let mut record = TraceRecord::bare(name.to_owned(), body);
    record.body_text = text.map(Into::into);
    Ok((
        TraceFormat::Single,
        Source::Ready(Some(Outcome::Turn(Box::new(record)))),
    ))
}

/// What detection read so far and the rest of the stream, up to `limit` bytes in all.
fn read_rest(
    reader: Box<dyn BufRead + Send>,
    mut head: Vec<u8>,
    limit: u64,
) -> Result<Vec<u8>, LoadError> {
    reader
        .take((limit + 1).saturating_sub(head.len() as u64))
        .read_to_end(&mut head)
        .map_err(|e| LoadError::Unreadable(crate::error::io_reason(&e)))?;
    if head.len() as u64 > limit {
        return Err(LoadError::Refused(format!(
            "larger than {} MiB",
            limit >> 20
        )));
    }
    Ok(head)
}

/// A reader that keeps a copy of every byte read through it, and counts them.
struct Tee<R> {
    inner: R,
    copy: Vec<u8>,
    read: Arc<AtomicU64>,
    /// The limit an error was (serde_json keeps only an I/O error's text).
    limit_reached: Option<LoadError>,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) => {
                self.limit_reached = Some(read_error(&e));
                return Err(e);
            }
        };
        self.copy.extend_from_slice(&buf[..n]);
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod limits {
    use super::*;

    #[test]
    fn only_a_har_log_gets_the_record_limit() {
        // HAR writers put the log's own keys first.
        assert_eq!(
            document_limit(b"{\n  \"log\": {\n    \"version\": \"1.2\",\n"),
            MAX_DOCUMENT_BYTES
        );
        assert_eq!(
            document_limit(br#"{"log":{"creator":{"name":"x"},"entries":["#),
            MAX_DOCUMENT_BYTES
        );
        // A capture whose first key is `log` keeps a capture's 64 MiB.
        assert_eq!(
            document_limit(br#"{"log":"debug","model":"m","tools":["#),
            MAX_CAPTURE_BYTES
        );
        assert_eq!(
            document_limit(br#"{"log":{"level":1},"model":"m","tools":["#),
            MAX_CAPTURE_BYTES
        );
        // The test proxy's recording, `Entries` first.
        assert_eq!(
            document_limit(b"{\n  \"Entries\": [\n    {\n"),
            MAX_DOCUMENT_BYTES
        );
        assert_eq!(
            document_limit(br#"{"Entries":"x","model":"m"}"#),
            MAX_CAPTURE_BYTES
        );
        assert!(!crate::trace::jsonl::names_a_record(
            br#"{"log":"debug","tools":["#
        ));
        assert!(crate::trace::jsonl::names_a_record(
            br#"{"log":{"version":"1.2""#
        ));
    }
}
