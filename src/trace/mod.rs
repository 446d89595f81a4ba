//! Traces: many captured requests of one session (`SESSIONS.md` section 1).
//!
//! A trace is read as a stream of [`TraceRecord`]s, one per model call, in turn order. Readers
//! keep nothing of a record once it is handed out, so a trace of hundreds of megabytes is read in
//! bounded memory; the session analysis (`crate::session`) keeps only what it needs of each.

use serde_json::Value;

use std::path::Path;

use crate::capture::display_path;
use crate::error::{FileError, LoadError};

mod array;
mod bounded;
pub(crate) mod budget;
mod cassette;
mod detect;
pub mod diagnosis;
mod folder;
pub mod follow;
mod har;
mod httprr;
mod jsonl;
pub(crate) mod kind;
mod mcp_servers;
mod record;
mod sse;
mod testproxy;
pub mod time;
mod usage;
mod wiremock;
pub mod write;

pub(crate) use detect::{decoded, read_error};
pub use folder::natural_cmp;
pub use mcp_servers::{McpServer, listing as mcp_server_listing};
pub use usage::PrefixAnswer;
pub(crate) use usage::{ciphertext_hash, signature_hash};

/// Largest single record a trace may hold: 256 MiB for one JSON line, one folder file or one
/// decompressed HAR body. Traces as a whole have no limit (they are streamed), but one record is
/// parsed whole, and a line this long is a damaged file rather than a turn.
pub const MAX_RECORD_BYTES: u64 = 256 * 1024 * 1024;

/// The container a trace was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// One request body (a plain capture), taken as a one-turn trace.
    Single,
    /// A folder of request files (`*.json`) in natural name order.
    Folder,
    /// HAR 1.2 (`log.entries`): browser devtools, mitmproxy, Proxyman, Charles.
    Har,
    /// claude-trace or cctrace JSON lines (`request`, `response`, `logged_at`).
    ClaudeTrace,
    /// JSON lines whose `request.body` or `body` holds a request body.
    WrappedJsonl,
    /// JSON lines that are request bodies.
    BareJsonl,
    /// A VCR cassette (vcrpy or go-vcr; YAML, or vcrpy's JSON): `interactions[]`.
    Cassette,
    /// claude-trace or wrapped records saved as one JSON array.
    JsonArray,
    /// nock's recorded calls (`scope`, `method`, `path`, `body`, `status`, `response`), one
    /// JSON array.
    Nock,
    /// Go's httprr trace (`httprr trace v1`): raw HTTP requests and responses, read as a
    /// cassette's interactions.
    Httprr,
    /// The Azure SDK test proxy's recording (`Entries[]` of `RequestUri`, `RequestBody`,
    /// `ResponseBody`, ...), read as a cassette's interactions.
    TestProxy,
    /// WireMock stub mappings (one, or `{"mappings": [...]}`), read as a cassette's
    /// interactions.
    WireMock,
    /// A goose MCP replay: an MCP session's `STDIN:` / `STDOUT:` lines; its `tools/list`
    /// answer is the one turn.
    McpReplay,
}

impl TraceFormat {
    /// The format's id as the CLI and `session --json` print it.
    pub fn id(self) -> &'static str {
        match self {
            TraceFormat::Single => "single",
            TraceFormat::Folder => "folder",
            TraceFormat::Har => "har",
            TraceFormat::ClaudeTrace => "claude-trace",
            TraceFormat::WrappedJsonl => "jsonl-wrapped",
            TraceFormat::BareJsonl => "jsonl",
            TraceFormat::Cassette => "vcr-cassette",
            TraceFormat::JsonArray => "json-array",
            TraceFormat::Nock => "nock",
            TraceFormat::McpReplay => "mcp-replay",
            TraceFormat::Httprr => "httprr",
            TraceFormat::TestProxy => "azure-test-proxy",
            TraceFormat::WireMock => "wiremock",
        }
    }
}

/// A compression container around a trace, detected by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// gzip (`1f 8b`).
    Gzip,
    /// zstd (`28 b5 2f fd`).
    Zstd,
}

impl Compression {
    /// The compression's id as `session --json` prints it.
    pub fn id(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

/// What the provider reported it billed for a call's input (a response's `usage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Input tokens as reported (Anthropic `input_tokens`: uncached input only; OpenAI
    /// `prompt_tokens` / `input_tokens`: all input, cached included).
    pub input: u64,
    /// Tokens written to the cache (Anthropic `cache_creation_input_tokens`; 0 for OpenAI).
    pub cache_write: u64,
    /// Tokens read from the cache (Anthropic `cache_read_input_tokens`; OpenAI `cached_tokens`).
    pub cache_read: u64,
    /// The response gave no cache figures (`null`, or missing where its API reports them):
    /// `cache_read` and `cache_write` are unknown, not 0.
    pub cache_unknown: bool,
    /// A server-side tool ran in the call (`web_search`, `code_execution`, …): the provider's
    /// figures include prompts the request does not hold.
    pub server_tool: Option<&'static str>,
    /// Of `cache_write`, the tokens written for an hour (Anthropic
    /// `usage.cache_creation.ephemeral_1h_input_tokens`; `None`: no split reported).
    pub cache_write_1h: Option<u64>,
    /// The provider's diagnosis of its cache (Anthropic `diagnostics`; `None`: not in the
    /// response).
    pub diagnosis: Option<diagnosis::Diagnosis>,
    /// The response's message id, hashed (Anthropic; what a later request's
    /// `diagnostics.previous_message_id` names).
    pub response_id: Option<u64>,
    /// The encrypted reasoning the response wrote (OpenAI Responses: a `reasoning` output item's
    /// `encrypted_content`, hashed by [`ciphertext_hash`]) and its reasoning tokens
    /// (`output_tokens_details.reasoning_tokens`): what a later request that sends the item
    /// back is billed for it. Gemini: the first `thoughtSignature` it wrote (hashed by
    /// [`signature_hash`]) and `thoughtsTokenCount`, billed again to a later request of the same
    /// function-calling cycle that sends the signature back.
    pub reasoning: Option<(u64, u64)>,
}

/// What a record carries in place of a request.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordBody {
    /// A request body, as sent (any shape [`crate::Capture::from_value`] reads).
    Request(Value),
    /// A cctrace compaction stub: a turn whose tools are unknown (never an empty list).
    CompactionStub,
}

/// One model call of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRecord {
    /// Where it is in the trace, as people name it: `line 5`, `entry 3`, `002.json`.
    pub source: String,
    /// The record's timestamp as written in the trace (ISO 8601 or epoch), when it has one.
    pub timestamp: Option<String>,
    /// The same instant in milliseconds since the Unix epoch, when it could be read.
    pub time_ms: Option<i64>,
    /// The HTTP method, when the record has one.
    pub method: Option<String>,
    /// The request URL, when the record has one.
    pub url: Option<String>,
    /// The response's HTTP status, when there is a response.
    pub status: Option<u16>,
    /// The record has a request but no response (a writer killed mid-call, a dropped stream).
    pub orphan: bool,
    /// The request.
    pub body: RecordBody,
    /// The request body's text as sent, when the record holds it (a body string, a HAR
    /// `postData.text`, a single capture's file, a JSON line): `original` is written and
    /// measured as these bytes ([`crate::Capture::from_value_text`]).
    pub body_text: Option<Box<str>>,
    /// Observed usage from the response (JSON body or SSE stream), when there is one.
    pub usage: Option<Usage>,
    /// The `x-claude-code-agent-id` request header, when present (a sub-agent's own thread).
    pub agent_id: Option<String>,
    /// The `anthropic-beta` values the request was sent with, when the record keeps its
    /// Anthropic headers (`None`: the trace holds none, so no beta is judged).
    pub betas: Option<Vec<String>>,
    /// What the response said of the prefix check, when it said anything.
    pub prefix_answer: Option<PrefixAnswer>,
}

impl TraceRecord {
    /// A record that is nothing but a request body (a single capture, a bare JSON line, a
    /// folder's file): no HTTP facts, no response.
    pub fn bare(source: String, body: RecordBody) -> TraceRecord {
        TraceRecord {
            source,
            timestamp: None,
            time_ms: None,
            method: None,
            url: None,
            status: None,
            orphan: false,
            body,
            body_text: None,
            usage: None,
            agent_id: None,
            betas: None,
            prefix_answer: None,
        }
    }

    /// A failed call (status 400 or more) or an orphan: a turn, but outside the cache chain.
    pub fn failed(&self) -> bool {
        self.orphan || self.status.is_some_and(|s| s >= 400)
    }
}

/// A record that is not a model call: counted and listed, never taken for a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// Where it is in the trace (`line 7`, `entry 2`, `notes.txt`).
    pub source: String,
    /// The HTTP method, when known.
    pub method: Option<String>,
    /// The URL, when known.
    pub url: Option<String>,
    /// Why it is not a turn (`count_tokens call`, `GET`, `embeddings`, `not a request file`).
    pub reason: String,
}

/// Ignored records a reader keeps to list (the rest are counted only).
pub const IGNORED_KEPT: usize = 1000;

/// What a trace with no model call holds instead, for the one line that refuses it:
/// ` (3 records ignored: 2× GET, 1× embeddings)`, the three commonest reasons of the records
/// kept, or nothing when none was ignored. `reasons` are the kept records' reasons.
pub fn ignored_summary<'a>(reasons: impl IntoIterator<Item = &'a str>, total: usize) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for reason in reasons {
        match counts.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => counts.push((reason, 1)),
        }
    }
    // The commonest first; among equals, the first seen.
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    let shown: Vec<String> = counts
        .iter()
        .take(3)
        .map(|(reason, n)| format!("{n}× {}", crate::text::safe(reason)))
        .collect();
    let more = if counts.len() > 3 { ", and more" } else { "" };
    match total {
        0 => String::new(),
        1 => format!(" (1 record ignored: {}{more})", shown.join(", ")),
        n => format!(" ({n} records ignored: {}{more})", shown.join(", ")),
    }
}

/// How a trace is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceOptions {
    /// Skip records that cannot be used (a line that is not JSON, a record without a usable
    /// body) and count them, instead of stopping at the first.
    pub skip_bad: bool,
}

/// Open a trace (or a single capture) and tell its format from the content: `-` reads standard
/// input. Errors name the file (`trace.jsonl: …`).
///
/// JSON lines are then read one line at a time, through the decompressor when the file is
/// compressed, holding one record at a time (a line may not exceed [`MAX_RECORD_BYTES`]). A
/// HAR file is one JSON document and is parsed whole here: memory is a few times the file's
/// size, the price of ordering its entries by `startedDateTime`; entries are then handed out
/// one at a time and dropped. A folder is listed here and its files are read one at a time. A
/// single capture keeps the single-capture rules ([`crate::capture::MAX_CAPTURE_BYTES`], the
/// same errors as [`crate::Capture::from_value`]).
pub fn open(path: &str, options: &TraceOptions) -> Result<TraceReader, FileError> {
    open_path(Path::new(path), options)
}

/// [`open`] for a path of any bytes (one that is not UTF-8 is named with U+FFFD for its bad
/// bytes).
pub fn open_path(path: &Path, options: &TraceOptions) -> Result<TraceReader, FileError> {
    let name = display_path(path).into_owned();
    let detected = detect::detect(path, &name).map_err(|e| e.in_file(name.clone()))?;
    Ok(TraceReader {
        name,
        format: detected.format,
        compression: detected.compression,
        source: detected.source,
        ignored_total: detected.ignored.len(),
        ignored: detected.ignored.into_iter().take(IGNORED_KEPT).collect(),
        document_error: detected.document_error,
        notes: detected.notes,
        skipped: 0,
        torn: None,
        skip_bad: options.skip_bad,
        done: false,
        turned: false,
        first_list: None,
        servers: mcp_servers::Servers::default(),
    })
}

/// Where a reader takes its records from.
pub(crate) enum Source {
    Lines(jsonl::LineSource),
    Har(har::HarSource),
    Cassette(cassette::CassetteSource),
    /// Records in one JSON array.
    Array(array::ArraySource),
    Folder(folder::FolderSource),
    /// One record document (claude-trace or wrapped), named by the file.
    One(Option<(String, Value, Option<Box<str>>)>),
    /// A record already read (a single capture).
    Ready(Option<record::Outcome>),
}

/// One item a source produced, before the reader applies `skip_bad`.
pub(crate) enum Raw {
    /// A record read, named by where it is; `Err` holds the problem.
    Read(String, Result<record::Outcome, String>),
    /// The last line was torn.
    Torn(String),
    /// Reading cannot go on.
    Fatal(LoadError),
}

/// A trace being read: an iterator of model calls in turn order.
///
/// Records that are not model calls go to [`TraceReader::ignored`]; a bad record is an error
/// item (the reader can go on after it), or is skipped and counted under
/// [`TraceOptions::skip_bad`]. An I/O or decompression error ends the iteration.
pub struct TraceReader {
    name: String,
    format: TraceFormat,
    compression: Option<Compression>,
    source: Source,
    ignored: Vec<Ignored>,
    ignored_total: usize,
    document_error: Option<LoadError>,
    notes: Vec<String>,
    skipped: usize,
    torn: Option<String>,
    skip_bad: bool,
    done: bool,
    /// Whether a model call was handed out.
    turned: bool,
    /// The first MCP server list met, and where it sits in `ignored`: the trace's one turn if
    /// no model call follows (a recording of an MCP session alone).
    first_list: Option<(Box<TraceRecord>, usize)>,
    /// The MCP servers whose exchanges the trace holds.
    servers: mcp_servers::Servers,
}

impl TraceReader {
    /// The container's format.
    pub fn format(&self) -> TraceFormat {
        self.format
    }

    /// The compression around the trace, when there was one.
    pub fn compression(&self) -> Option<Compression> {
        self.compression
    }

    /// Records that are not model calls, in the order met (a folder's other files first).
    /// Complete once the iterator is exhausted.
    ///
    /// At most the first [`IGNORED_KEPT`]: a trace may hold millions (health checks, `GET`s),
    /// and each kept would cost its URL; [`TraceReader::ignored_total`] counts them all.
    pub fn ignored(&self) -> &[Ignored] {
        &self.ignored
    }

    /// How many records were not model calls, all of them (complete once the iterator is
    /// exhausted).
    pub fn ignored_total(&self) -> usize {
        self.ignored_total
    }

    /// Whether bad records are skipped ([`TraceOptions::skip_bad`]).
    pub fn skips_bad(&self) -> bool {
        self.skip_bad
    }

    /// How many bad records were skipped under [`TraceOptions::skip_bad`].
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Where the torn final line is (`line 12`), when the trace ends in one: a writer killed
    /// mid-line. Reported, not an error. Known once the iterator is exhausted.
    pub fn torn_last_line(&self) -> Option<&str> {
        self.torn.as_deref()
    }

    /// When the input is a single torn line and nothing else (a trace of no turn, or a one-line
    /// capture cut short): the error it gives read as one JSON document, for a command that
    /// wants a request to name it as it names a broken capture.
    pub fn document_error(&self) -> Option<&LoadError> {
        self.document_error.as_ref()
    }

    /// What is to be said about the trace as a whole, beside its turns: that a LiteLLM log's
    /// requests are rebuilt from the log, not the bytes sent.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The trace's name as errors show it (`-` is `<stdin>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The MCP servers whose `initialize` or `tools/list` exchanges the trace holds so far
    /// (all of them once the iterator is exhausted), each named by its `initialize` answer
    /// where there is one, with the tools it listed.
    pub fn mcp_servers(&self) -> &[McpServer] {
        self.servers.all()
    }

    /// Any record that is not a model call: counted, and listed among the first kept.
    fn ignore(&mut self, ignored: Ignored) {
        self.ignored_total += 1;
        if self.ignored.len() < IGNORED_KEPT {
            self.ignored.push(ignored);
        }
    }

    /// An MCP server's `tools/list` answer met in the trace: listed as ignored, naming what it
    /// is (never a model call) and its server where its `initialize` named it; the first is
    /// kept in case no model call comes.
    fn server_list(&mut self, list: Box<TraceRecord>) {
        let ignored = self.servers.list_ignored(&list);
        if self.first_list.is_none() && !self.turned {
            self.first_list = Some((list, self.ignored.len()));
        }
        self.ignore(ignored);
    }

    /// At the end of a trace of no model call: its first MCP server list is its one turn (what
    /// the recording holds of tools), no longer listed as ignored.
    fn only_a_server_list(&mut self) -> Option<Result<TraceRecord, FileError>> {
        if self.turned {
            return None;
        }
        let (list, at) = self.first_list.take()?;
        if at < self.ignored.len() {
            self.ignored.remove(at);
        }
        self.ignored_total -= 1;
        self.turned = true;
        Some(Ok(*list))
    }

    fn next_raw(&mut self) -> Option<Raw> {
        match &mut self.source {
            Source::Lines(lines) => lines.next_raw(),
            Source::Har(har) => har.next_raw(),
            Source::Cassette(cassette) => cassette.next_raw(),
            Source::Array(array) => array.next_raw(),
            Source::Folder(folder) => folder.next_raw(),
            Source::One(one) => one.take().map(|(source, value, text)| {
                Raw::Read(
                    source.clone(),
                    record::from_value(value, source, text.as_deref()),
                )
            }),
            Source::Ready(ready) => ready
                .take()
                .map(|outcome| Raw::Read(String::new(), Ok(outcome))),
        }
    }
}

impl Iterator for TraceReader {
    type Item = Result<TraceRecord, FileError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let Some(raw) = self.next_raw() else {
                self.done = true;
                return self.only_a_server_list();
            };
            match raw {
                Raw::Read(_, Ok(record::Outcome::Turn(record))) => {
                    self.turned = true;
                    return Some(Ok(*record));
                }
                Raw::Read(_, Ok(record::Outcome::ServerList(list))) => self.server_list(list),
                Raw::Read(_, Ok(record::Outcome::Ignored(ignored))) => self.ignore(ignored),
                Raw::Read(_, Ok(record::Outcome::ServerHello(mut ignored, info))) => {
                    ignored.reason = self.servers.hello(ignored.url.as_deref(), *info);
                    self.ignore(ignored);
                }
                Raw::Read(_, Err(_)) if self.skip_bad => self.skipped += 1,
                Raw::Read(at, Err(problem)) => {
                    // A document that is one record is named by its file alone, once.
                    let error = if at == self.name {
                        LoadError::Refused(problem)
                    } else {
                        LoadError::BadRecord { at, problem }
                    };
                    return Some(Err(error.in_file(self.name.clone())));
                }
                Raw::Torn(at) => {
                    self.torn = Some(at);
                    self.done = true;
                    return self.only_a_server_list();
                }
                Raw::Fatal(error) => {
                    self.done = true;
                    return Some(Err(error.in_file(self.name.clone())));
                }
            }
        }
        None
    }
}

/// A body's bytes as text: borrowed when they are UTF-8 (always, once they parsed as JSON),
/// else with U+FFFD for the bad bytes. Checks in one fast pass before the lossy walk.
pub(crate) fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

#[cfg(test)]
mod summary_tests {
    use super::ignored_summary;

    #[test]
    fn a_refusal_says_what_was_ignored() {
        assert_eq!(ignored_summary([], 0), "");
        assert_eq!(
            ignored_summary(["GET", "embeddings", "GET"], 3),
            " (3 records ignored: 2× GET, 1× embeddings)"
        );
        assert_eq!(
            ignored_summary(["a", "b", "c", "d", "d"], 5),
            " (5 records ignored: 2× d, 1× a, 1× b, and more)"
        );
        // A method read from the file is shown as text, its control characters made visible.
        let shown = ignored_summary(["G\u{1b}[2JET"], 1);
        assert!(!shown.contains('\u{1b}'), "{shown}");
    }
}
