//! Claude Code session transcripts (`~/.claude/projects/<folder>/<session>.jsonl`, and its
//! subagents' files wherever its release kept them: `transcript/files.rs`) read as what they
//! are: no request bodies, but every model call's usage. One turn per model call (Claude Code
//! writes an assistant message once per content block, repeating its usage under one message
//! id), the observed cache of each, breaks and their price at the model's rates, the provider's
//! diagnosis where a line carries one, and subagent and compaction calls in threads of their
//! own; whole ([`read`]) or as it grows ([`Following`]). Shape read: Claude Code 1.0.x to 2.1.x
//! (docs/SESSIONS.md, "Claude Code transcripts").

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod files;

pub use files::{folder, sniff};

use serde::Serialize;
use serde_json::{Map, Value};

use super::{CacheFigures, models, price_per_million};
use crate::error::{FileError, LoadError};
use crate::settings::Settings;
use crate::trace::MAX_RECORD_BYTES;
use crate::trace::diagnosis::Diagnosis;
use crate::trace::follow::{FollowedLine, Follower};

/// What a transcript lacks, said in the report and in `--json`'s `note`.
pub const NO_BODIES: &str = "a transcript holds no request bodies: no tool list, so no \
                             projections and no modelled cache (only what the provider billed); \
                             `toolprism record` captures the requests themselves";

/// A break: the turn read less than this share of the thread's previous prompt...
const BREAK_SHARE: f64 = 0.9;
/// ...and at least this many tokens fewer (Claude's shortest cached prefix).
const BREAK_MIN_TOKENS: u64 = 1024;
/// Claude's cache lifetimes, for telling an expired prefix from a re-written one.
const TTL_5M_MS: i64 = 5 * 60 * 1000;
const TTL_1H_MS: i64 = 60 * 60 * 1000;

/// A break's cause, told by the time since the thread's previous call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakCause {
    /// Longer idle than the cache's lifetime: the prefix expired.
    Expired,
    /// Within the lifetime (or no timestamps): the prefix was re-written.
    Rewritten,
}

/// A turn whose cache read fell well below its thread's previous prompt.
#[derive(Debug, Clone, Serialize)]
pub struct TranscriptBreak {
    /// The previous prompt's tokens this turn did not read.
    pub lost: u64,
    /// Of them, the tokens written again (what the break paid for).
    pub rewritten: u64,
    /// Milliseconds since the thread's previous call, where both have timestamps.
    pub idle_ms: Option<i64>,
    /// Expired or re-written.
    pub cause: BreakCause,
    /// What writing `rewritten` cost over reading it, in input tokens (`null`: model unknown).
    pub extra: Option<f64>,
    /// `extra` in US dollars at the model's input price (`null`: no price).
    pub usd: Option<f64>,
}

/// The provider's diagnosis on a turn (`diagnostics`), in its words.
#[derive(Debug, Clone, Serialize)]
pub struct TranscriptDiagnosis {
    /// The `cache_miss_reason` type (`none` for `null`).
    pub reason: &'static str,
    /// `cache_missed_input_tokens`, where given.
    pub missed: Option<u64>,
}

/// One model call.
#[derive(Debug, Clone, Serialize)]
pub struct TranscriptTurn {
    /// 1-based, in the order the calls were first written.
    pub turn: usize,
    /// The file (its name) and line where the call was first written.
    pub file: String,
    /// Its line (1-based).
    pub line: usize,
    /// `main`, `main/after-compaction-N`, `subagent/ID`, `compaction/ID`.
    pub thread: String,
    /// `message.model`.
    pub model: String,
    /// Its `timestamp`.
    pub timestamp: Option<String>,
    /// The observed cache (Anthropic's `input_tokens` is the uncached input).
    pub observed: CacheFigures,
    /// The write's 5-minute and 1-hour parts, where the usage splits it.
    pub write_5m: Option<u64>,
    /// `ephemeral_1h_input_tokens`.
    pub write_1h: Option<u64>,
    /// `output_tokens` (the largest of its lines).
    pub output: u64,
    /// The input side's cost in US dollars (reads and writes at their rates; `null`: no price).
    pub usd: Option<f64>,
    #[serde(rename = "break")]
    /// Its break, if it is one.
    pub break_: Option<TranscriptBreak>,
    /// The provider's diagnosis, where the line carries one.
    pub diagnosis: Option<TranscriptDiagnosis>,
    #[serde(skip)]
    time_ms: Option<i64>,
}

/// One thread's totals.
#[derive(Debug, Clone, Serialize)]
pub struct ThreadTotals {
    /// The thread.
    pub thread: String,
    /// Model calls.
    pub turns: usize,
    /// Tokens read from the cache.
    pub read: u64,
    /// Tokens written to it.
    pub write: u64,
    /// Breaks.
    pub breaks: usize,
}

/// A transcript read.
#[derive(Debug, Clone, Serialize)]
pub struct Transcript {
    /// `claude-code-transcript`.
    pub kind: &'static str,
    /// Always false: what a transcript lacks.
    pub request_bodies: bool,
    /// [`NO_BODIES`].
    pub note: &'static str,
    /// `sessionId`.
    pub session_id: Option<String>,
    /// The Claude Code releases that wrote it (`version`), in the order first seen.
    pub versions: Vec<String>,
    /// The files read (the session's, then its subagents').
    pub files: Vec<String>,
    /// Non-blank lines read.
    pub lines: usize,
    /// Lines that repeated a call's usage (one per further content block), read once.
    pub repeated: usize,
    /// Assistant lines Claude Code wrote itself (`<synthetic>` model): no model call.
    pub synthetic: usize,
    /// Compactions (`compact_boundary`) in the session's own thread.
    pub compactions: usize,
    /// Bad lines skipped (`--skip-bad`).
    pub skipped: usize,
    /// A last line cut short (the session still being written), left out.
    pub torn_last_line: bool,
    /// The model calls.
    pub turns: Vec<TranscriptTurn>,
    /// Per thread, in order of first call.
    pub threads: Vec<ThreadTotals>,
    /// The input side's cost, and what the same prompts cost with no cache (dollars; `null`
    /// where a turn's model has no price).
    pub usd: Option<f64>,
    /// The same prompts at the input price, uncached.
    pub usd_without_cache: Option<f64>,
    /// Breaks in all threads.
    pub breaks: usize,
    /// What the breaks cost over reading, in dollars.
    pub breaks_usd: Option<f64>,
}

/// Read a transcript (and its subagents' files) into turns, priced with `settings`.
pub fn read(path: &Path, skip_bad: bool, settings: &Settings) -> Result<Transcript, FileError> {
    let mut reader = Reader {
        skip_bad,
        ..Reader::default()
    };
    let mut names = Vec::new();
    let mut read = |reader: &mut Reader, file: &Path| {
        let name = file.to_string_lossy().into_owned();
        reader
            .file(file, &name)
            .map_err(|error| error.in_file(name.clone()))?;
        names.push(name);
        Ok::<(), FileError>(())
    };
    read(&mut reader, path)?;
    // The session's id is known once its own file is read: its agents' files name it.
    let id = reader.session_id.clone();
    for file in files::companions(path, id.as_deref(), &mut HashSet::new()) {
        read(&mut reader, &file)?;
    }
    Ok(reader.finish(names, settings))
}

/// A thread's state while reading: its previous call.
#[derive(Default)]
struct Last {
    prompt: u64,
    time_ms: Option<i64>,
    long: bool,
}

#[derive(Default)]
struct Reader {
    skip_bad: bool,
    turns: Vec<TranscriptTurn>,
    /// A call's key (message id, else request id) to its turn.
    calls: HashMap<String, usize>,
    /// A sidechain line's uuid to its thread, for sidechains without `agentId`.
    sidechains: HashMap<String, String>,
    /// Sidechains without `agentId` begun so far.
    roots: usize,
    session_id: Option<String>,
    versions: Vec<String>,
    lines: usize,
    repeated: usize,
    synthetic: usize,
    compactions: usize,
    skipped: usize,
    torn_last_line: bool,
    /// Each thread's previous call, for judging the next.
    last: HashMap<String, Last>,
    /// Turns priced and judged so far (the first ones).
    judged: usize,
}

impl Reader {
    /// Read one file's lines, each bounded by [`MAX_RECORD_BYTES`] (decompressed, when the
    /// file is gzip or zstd, no more than the ratio guard allows).
    fn file(&mut self, path: &Path, name: &str) -> Result<(), LoadError> {
        let file = File::open(path).map_err(|e| crate::trace::read_error(&e))?;
        let (file, _) =
            crate::trace::decoded(Box::new(file)).map_err(|e| crate::trace::read_error(&e))?;
        let mut reader = BufReader::new(file);
        let mut buf = Vec::new();
        let mut number = 0;
        loop {
            buf.clear();
            let read = (&mut reader)
                .take(MAX_RECORD_BYTES + 1)
                .read_until(b'\n', &mut buf)
                .map_err(|e| crate::trace::read_error(&e))?;
            if read == 0 {
                return Ok(());
            }
            number += 1;
            let bad = |problem: String| LoadError::BadRecord {
                at: format!("line {number}"),
                problem,
            };
            if buf.len() as u64 > MAX_RECORD_BYTES {
                return Err(bad(format!(
                    "too large: more than {MAX_RECORD_BYTES} bytes (the limit is \
                     {MAX_RECORD_BYTES} bytes)"
                )));
            }
            if buf.trim_ascii().is_empty() {
                continue;
            }
            match self.record(&buf, name, number) {
                Ok(()) => {}
                // A last line without its newline: the session is still being written.
                Err(_) if !buf.ends_with(b"\n") => self.torn_last_line = true,
                Err(_) if self.skip_bad => self.skipped += 1,
                Err(problem) => return Err(bad(problem)),
            }
        }
    }

    /// One non-blank line's bytes read, or the problem with them.
    fn record(&mut self, bytes: &[u8], name: &str, number: usize) -> Result<(), String> {
        self.lines += 1;
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(line)) => {
                self.line(&line, name, number);
                Ok(())
            }
            Ok(_) => Err("not a JSON object".to_owned()),
            Err(e) => Err(format!("not JSON ({e})")),
        }
    }

    /// One line: a call's usage, a compaction's boundary, or nothing this report reads.
    fn line(&mut self, line: &Map<String, Value>, name: &str, number: usize) {
        let text = |key: &str| line.get(key).and_then(Value::as_str);
        if self.session_id.is_none() {
            self.session_id = text("sessionId").map(str::to_owned);
        }
        if let Some(version) = text("version")
            && !self.versions.iter().any(|v| v == version)
        {
            self.versions.push(version.to_owned());
        }
        let sidechain = line.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let thread = self.thread_of(line, sidechain);
        if text("type") == Some("system") && text("subtype") == Some("compact_boundary") {
            if !sidechain {
                self.compactions += 1;
            }
            return;
        }
        if text("type") != Some("assistant") {
            return;
        }
        let Some(message) = line.get("message").and_then(Value::as_object) else {
            return;
        };
        let Some(usage) = message.get("usage").and_then(Value::as_object) else {
            return;
        };
        let model = message.get("model").and_then(Value::as_str).unwrap_or("?");
        if model == "<synthetic>" {
            self.synthetic += 1;
            return;
        }
        let diagnosis = message
            .get("diagnostics")
            .or_else(|| line.get("diagnostics"))
            .and_then(Diagnosis::read)
            .map(|d| TranscriptDiagnosis {
                reason: d.word(),
                missed: d.missed(),
            });
        let key = message
            .get("id")
            .and_then(Value::as_str)
            .or_else(|| text("requestId"))
            .map(str::to_owned);
        let n = |value: Option<&Value>| value.and_then(Value::as_u64);
        let output = n(usage.get("output_tokens")).unwrap_or(0);
        if let Some(&at) = key.as_ref().and_then(|k| self.calls.get(k)) {
            // The same call's usage again, for another content block: read once.
            self.repeated += 1;
            let turn = &mut self.turns[at];
            turn.output = turn.output.max(output);
            if turn.diagnosis.is_none() {
                turn.diagnosis = diagnosis;
            }
            return;
        }
        let read = n(usage.get("cache_read_input_tokens")).unwrap_or(0);
        let write = n(usage.get("cache_creation_input_tokens")).unwrap_or(0);
        let split = usage.get("cache_creation").and_then(Value::as_object);
        let timestamp = text("timestamp").map(str::to_owned);
        let turn = TranscriptTurn {
            turn: self.turns.len() + 1,
            file: name.to_owned(),
            line: number,
            thread,
            model: model.to_owned(),
            time_ms: timestamp.as_deref().and_then(crate::trace::time::parse),
            timestamp,
            observed: CacheFigures {
                state: super::cache::state(read, write),
                input: n(usage.get("input_tokens")).unwrap_or(0),
                read,
                write,
            },
            write_5m: split.and_then(|s| n(s.get("ephemeral_5m_input_tokens"))),
            write_1h: split.and_then(|s| n(s.get("ephemeral_1h_input_tokens"))),
            output,
            usd: None,
            break_: None,
            diagnosis,
        };
        if let Some(key) = key {
            self.calls.insert(key, self.turns.len());
        }
        self.turns.push(turn);
    }

    /// The thread a line belongs to: the session's own (a new one after each compaction), a
    /// compaction agent's, or a subagent's (by `agentId`, else by its chain of `parentUuid`).
    fn thread_of(&mut self, line: &Map<String, Value>, sidechain: bool) -> String {
        let text = |key: &str| line.get(key).and_then(Value::as_str);
        if !sidechain {
            return match self.compactions {
                0 => "main".to_owned(),
                n => format!("main/after-compaction-{n}"),
            };
        }
        // By `agentId` where the line has one, else its parent's thread, else a new one;
        // kept by uuid so that a child without `agentId` follows its parent.
        let thread = match text("agentId") {
            Some(agent) if agent.starts_with("acompact") => format!("compaction/{agent}"),
            Some(agent) => format!("subagent/{agent}"),
            None => match text("parentUuid").and_then(|p| self.sidechains.get(p)) {
                Some(thread) => thread.clone(),
                None => {
                    self.roots += 1;
                    format!("subagent/{}", self.roots)
                }
            },
        };
        if let Some(uuid) = text("uuid") {
            self.sidechains.insert(uuid.to_owned(), thread.clone());
        }
        thread
    }

    /// Price the turns read since the last call and find their breaks, in order (a turn's
    /// break depends on its thread's calls before it only); the range judged now.
    fn judge_new(&mut self, settings: &Settings) -> std::ops::Range<usize> {
        let from = self.judged;
        for turn in &mut self.turns[from..] {
            let rates = Rates::of(&turn.model, settings);
            turn.usd = rates.usd(turn);
            let now = self.last.entry(turn.thread.clone()).or_default();
            turn.break_ = judge(turn, now, &rates);
            let o = turn.observed;
            *now = Last {
                prompt: o.input + o.read + o.write,
                time_ms: turn.time_ms,
                long: turn.write_1h.is_some_and(|w| w > 0),
            };
        }
        self.judged = self.turns.len();
        from..self.judged
    }

    /// Price each turn, find the breaks, and total the threads.
    fn finish(mut self, files: Vec<String>, settings: &Settings) -> Transcript {
        self.judge_new(settings);
        let threads = thread_totals(&self.turns);
        let sum = |f: &dyn Fn(&TranscriptTurn) -> Option<f64>| -> Option<f64> {
            self.turns.iter().map(f).sum::<Option<f64>>().map(round6)
        };
        let usd = sum(&|t| t.usd);
        let usd_without_cache = sum(&|t| {
            let o = t.observed;
            price_per_million(settings, &t.model)
                .map(|p| (o.input + o.read + o.write) as f64 * p / 1e6)
        });
        let broken: Vec<&TranscriptBreak> = self
            .turns
            .iter()
            .filter_map(|t| t.break_.as_ref())
            .collect();
        let breaks_usd = broken
            .iter()
            .map(|b| b.usd)
            .sum::<Option<f64>>()
            .map(round6);
        Transcript {
            kind: "claude-code-transcript",
            request_bodies: false,
            note: NO_BODIES,
            session_id: self.session_id,
            versions: self.versions,
            files,
            lines: self.lines,
            repeated: self.repeated,
            synthetic: self.synthetic,
            compactions: self.compactions,
            skipped: self.skipped,
            torn_last_line: self.torn_last_line,
            breaks: broken.len(),
            breaks_usd,
            turns: self.turns,
            threads,
            usd,
            usd_without_cache,
        }
    }
}

/// A transcript read as it grows (`session --follow`): the session's file and each subagent's
/// file as it appears beside it, each followed as [`Follower`] follows a trace (whole lines
/// only, a half line waited for, each line bounded), with the same rules as [`read`]: a call's
/// usage repeated on later lines (even lines read at another look) is read once.
pub struct Following {
    reader: Reader,
    settings: Settings,
    session: PathBuf,
    /// Followed files: the session's first.
    files: Vec<(PathBuf, String, Follower)>,
    /// Files looked at as the session's subagents' (followed or not theirs).
    examined: HashSet<PathBuf>,
    /// When the folders were last looked in for subagents' files.
    scanned: Option<Instant>,
}

/// How often a followed session's folders are looked in for new subagents' files.
const SCAN_EVERY: Duration = Duration::from_secs(1);

/// What one look at a followed transcript found.
#[derive(Debug, Default)]
pub struct Polled {
    /// The model calls first written since the last look, priced and judged.
    pub turns: Vec<TranscriptTurn>,
    /// Lines that could not be read: the file, where (`line 5`) and why. Following goes on.
    pub bad: Vec<(String, String, String)>,
}

impl Following {
    /// Follow the transcript at `path` from its start.
    pub fn open(path: &Path, settings: &Settings) -> Result<Following, FileError> {
        let follower = Follower::open(path)?;
        let name = follower.name().to_owned();
        Ok(Following {
            reader: Reader::default(),
            settings: settings.clone(),
            session: path.to_path_buf(),
            files: vec![(path.to_path_buf(), name, follower)],
            examined: HashSet::from([path.to_path_buf()]),
            scanned: None,
        })
    }

    /// The session's name as errors show it.
    pub fn name(&self) -> &str {
        &self.files[0].1
    }

    /// Read what every file gained since the last look (never waits), taking up subagents'
    /// files that appeared meanwhile.
    pub fn poll(&mut self) -> Result<Polled, FileError> {
        // A project's folder may hold thousands of files: looked in once a second, not at
        // every look.
        if self.scanned.is_none_or(|at| at.elapsed() >= SCAN_EVERY) {
            self.scanned = Some(Instant::now());
            let id = self.reader.session_id.as_deref();
            for file in files::companions(&self.session, id, &mut self.examined) {
                let follower = Follower::open(&file)?;
                let name = follower.name().to_owned();
                self.files.push((file, name, follower));
            }
        }
        let mut polled = Polled::default();
        let reader = &mut self.reader;
        for (_, name, follower) in &mut self.files {
            follower.poll_lines(|line| {
                let (number, problem) = match line {
                    FollowedLine::Whole(_, bytes) if bytes.trim_ascii().is_empty() => return,
                    FollowedLine::Whole(number, bytes) => {
                        match reader.record(bytes, name, number) {
                            Ok(()) => return,
                            Err(problem) => (number, problem),
                        }
                    }
                    FollowedLine::TooLong(number) => (
                        number,
                        format!("longer than {} MiB", MAX_RECORD_BYTES >> 20),
                    ),
                };
                reader.skipped += 1;
                polled
                    .bad
                    .push((name.clone(), format!("line {number}"), problem));
            })?;
        }
        let new = self.reader.judge_new(&self.settings);
        polled.turns = self.reader.turns[new].to_vec();
        Ok(polled)
    }

    /// The report of everything read so far (each call's output the largest of its lines).
    pub fn report(self) -> Transcript {
        let names = self.files.into_iter().map(|(_, name, _)| name).collect();
        self.reader.finish(names, &self.settings)
    }
}

/// A model's rates: input price and Anthropic's multipliers (its row in `models.rs`).
struct Rates {
    usd_per_million: Option<f64>,
    read: Option<f64>,
}

impl Rates {
    fn of(model: &str, settings: &Settings) -> Rates {
        Rates {
            usd_per_million: price_per_million(settings, model),
            read: models::claude_model(model).map(|c| c.read),
        }
    }

    /// What `tokens` written (the hour's part `long`) cost over reading them, in input tokens.
    fn write_over_read(&self, tokens: u64, long: u64) -> Option<f64> {
        let read = self.read?;
        let long = long.min(tokens);
        Some(
            (tokens - long) as f64 * (models::CLAUDE_WRITE - read)
                + long as f64 * (models::CLAUDE_WRITE_1H - read),
        )
    }

    /// The input side of a turn in dollars.
    fn usd(&self, turn: &TranscriptTurn) -> Option<f64> {
        let (price, read) = (self.usd_per_million?, self.read?);
        let o = turn.observed;
        let long = turn.write_1h.unwrap_or(0).min(o.write);
        let tokens = o.input as f64
            + o.read as f64 * read
            + (o.write - long) as f64 * models::CLAUDE_WRITE
            + long as f64 * models::CLAUDE_WRITE_1H;
        Some(round6(tokens * price / 1e6))
    }
}

/// A break where the turn read well below the thread's previous prompt.
fn judge(turn: &TranscriptTurn, last: &Last, rates: &Rates) -> Option<TranscriptBreak> {
    let o = turn.observed;
    let lost = last.prompt.saturating_sub(o.read);
    if last.prompt == 0
        || lost < BREAK_MIN_TOKENS
        || (o.read as f64) >= last.prompt as f64 * BREAK_SHARE
    {
        return None;
    }
    let rewritten = lost.min(o.write);
    let idle_ms = turn.time_ms.zip(last.time_ms).map(|(now, then)| now - then);
    let ttl = if last.long { TTL_1H_MS } else { TTL_5M_MS };
    let cause = match idle_ms {
        Some(idle) if idle > ttl => BreakCause::Expired,
        _ => BreakCause::Rewritten,
    };
    let long = turn.write_1h.unwrap_or(0).min(rewritten);
    let extra = rates.write_over_read(rewritten, long);
    Some(TranscriptBreak {
        lost,
        rewritten,
        idle_ms,
        cause,
        extra: extra.map(|e| (e * 100.0).round() / 100.0),
        usd: extra
            .zip(rates.usd_per_million)
            .map(|(e, p)| round6(e * p / 1e6)),
    })
}

fn thread_totals(turns: &[TranscriptTurn]) -> Vec<ThreadTotals> {
    let mut threads: Vec<ThreadTotals> = Vec::new();
    for turn in turns {
        let at = match threads.iter().position(|t| t.thread == turn.thread) {
            Some(at) => at,
            None => {
                threads.push(ThreadTotals {
                    thread: turn.thread.clone(),
                    turns: 0,
                    read: 0,
                    write: 0,
                    breaks: 0,
                });
                threads.len() - 1
            }
        };
        let t = &mut threads[at];
        t.turns += 1;
        t.read += turn.observed.read;
        t.write += turn.observed.write;
        t.breaks += usize::from(turn.break_.is_some());
    }
    threads
}

/// Dollars to a millionth (an empty sum's `-0.0` written as `0.0`).
fn round6(usd: f64) -> f64 {
    (usd * 1e6).round() / 1e6 + 0.0
}
