//! Errors a user can cause: a capture that cannot be read or understood.

use thiserror::Error;

/// Why a capture could not be loaded. Every variant renders as one line; the caller prefixes it
/// with the file's name (see [`LoadError::in_file`]).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The file could not be read at all.
    #[error("cannot read: {0}")]
    Unreadable(String),
    /// The file is larger than [`crate::capture::MAX_CAPTURE_BYTES`].
    #[error("too large: {size} bytes (the limit is {limit} bytes)")]
    TooLarge {
        /// The file's size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// Nothing but whitespace (or nothing at all).
    #[error("empty: no JSON in it")]
    Empty,
    /// Binary data: a NUL byte, or bytes that are not UTF-8 where JSON would start.
    #[error("not JSON: binary data")]
    Binary,
    /// The bytes are not UTF-8 (text that looks like JSON, in another encoding).
    #[error("not valid UTF-8: invalid byte at offset {offset}")]
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// The text is not JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    InvalidJson {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's description of the problem.
        message: String,
    },
    /// The JSON is nested deeper than the parser allows.
    #[error("JSON nested too deeply at line {line}, column {column} (the limit is 128 levels)")]
    TooDeep {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// Valid JSON, but not a request body toolprism knows.
    #[error("not a known capture shape: {0}")]
    UnknownShape(String),
    /// `tools` is present but is not an array.
    #[error("`tools` is not an array (found {0})")]
    ToolsNotArray(&'static str),
    /// The turn asked for is not a request of the trace (past the end, a compaction stub, a
    /// trace without model calls).
    #[error("{0}")]
    NoSuchTurn(String),
    /// A limit reached while reading or parsing (a stream past its byte limit, a decompression
    /// past its ratio guard, a parsed form past its memory budget): the problem in words.
    #[error("{0}")]
    Limit(String),
    /// A file toolprism recognises and does not read: what it is, and where tool lists are
    /// found instead (a session transcript, a YAML file that is no cassette).
    #[error("{0}")]
    Refused(String),
    /// One record of a trace (a line, a HAR entry, a folder's file) cannot be used.
    #[error("{at}: {problem}")]
    BadRecord {
        /// Where it is, as people name it: `line 5`, `entry 3`, `002.json`.
        at: String,
        /// What is wrong with it.
        problem: String,
    },
}

/// A [`LoadError`] tied to the file it came from: renders as `FILE: problem`.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{source_name}: {error}")]
pub struct FileError {
    /// The file's name as the user gave it (`-` is shown as `<stdin>`).
    pub source_name: String,
    /// What went wrong.
    pub error: LoadError,
}

impl LoadError {
    /// Attach the file's name.
    pub fn in_file(self, source_name: impl Into<String>) -> FileError {
        FileError {
            source_name: source_name.into(),
            error: self,
        }
    }
}

/// The first words of the parse error a spent budget gives (told apart from a syntax error).
pub(crate) const BUDGET_ERROR: &str = "too many values for its size";

/// Whether a parse error is a spent budget rather than bad JSON.
pub(crate) fn is_budget_error(error: &serde_json::Error) -> bool {
    error.to_string().starts_with(BUDGET_ERROR)
}

/// A serde_json parse error as a [`LoadError`]: the nesting limit is told apart, and the
/// position is kept in fields rather than in the message.
pub fn json_error(e: &serde_json::Error) -> LoadError {
    let message = e.to_string();
    if is_budget_error(e) {
        let message = match message.rfind(" at line ") {
            Some(i) => &message[..i],
            None => &message,
        };
        return LoadError::Limit(message.to_owned());
    }
    if message.starts_with("recursion limit exceeded") {
        return LoadError::TooDeep {
            line: e.line(),
            column: e.column(),
        };
    }
    // serde_json appends " at line L column C"; callers print the position themselves.
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message,
    };
    LoadError::InvalidJson {
        line: e.line(),
        column: e.column(),
        message,
    }
}

/// An I/O error in words a user can act on: the system's message without its `(os error N)`
/// suffix, in lower case, with plainer words for the usual cases.
pub fn io_reason(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let plain = match error.kind() {
        ErrorKind::PermissionDenied => "permission denied",
        ErrorKind::NotFound => "no such file or folder",
        ErrorKind::StorageFull => "no space left on the device",
        ErrorKind::ReadOnlyFilesystem => "read-only file system",
        ErrorKind::BrokenPipe => "the reader closed the pipe",
        ErrorKind::IsADirectory => "is a directory",
        ErrorKind::NotADirectory => "a part of the path is not a folder",
        ErrorKind::InvalidFilename => "the name is too long for the file system",
        _ if error.raw_os_error() == Some(6) => "no reader on the pipe (or no such device)",
        ErrorKind::FileTooLarge => "past the limit on a file's size (`ulimit -f`)",
        _ => "",
    };
    if !plain.is_empty() {
        return plain.to_owned();
    }
    let text = error.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => text.as_str(),
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => "unknown error".to_owned(),
    }
}

/// An error from a file in the temporary folder, said in words that name the folder, where it
/// comes from and what to do: `the temporary folder /x (from $TMPDIR): no such file or folder;
/// set TMPDIR to a folder you can write to, with room`.
pub fn temp_reason(error: &std::io::Error) -> String {
    let dir = std::env::temp_dir();
    let from = if std::env::var_os("TMPDIR").is_some() {
        " (from $TMPDIR)"
    } else {
        ""
    };
    format!(
        "the temporary folder {}{from}: {}; set TMPDIR to a folder you can write to, with room",
        dir.display(),
        io_reason(error)
    )
}

/// A JSON value's kind, for error messages.
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
