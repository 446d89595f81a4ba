//! Traces: many captured requests of one session (`SESSIONS.md` section 1).
//!
//! A trace is read as a stream of [`TraceRecord`]s, one per model call, in turn order. Readers
//! keep nothing of a record once it is handed out, so a trace of hundreds of megabytes is read in
//! bounded memory; the session analysis (`crate::session`) keeps only what it needs of each.

use serde_json::Value;

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
    /// Observed usage from the response (JSON body or SSE stream), when there is one.
    pub usage: Option<Usage>,
    /// The `x-claude-code-agent-id` request header, when present (a sub-agent's own thread).
    pub agent_id: Option<String>,
}

impl TraceRecord {
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
