//! Claude's own token count of a tool list, when the user asks for it (`--count-with
//! anthropic`): Anthropic's `/v1/messages/count_tokens` counts the request with every tool,
//! with none, and without each server and each tool, and the differences are what each costs.
//! Every answer is cached on disk by a hash of the model and the exact body, so a second run
//! makes no call. Feature `mcp`. The API key goes in a header and nowhere else.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use super::client::{Limits, post_json};

/// The endpoint's path under the API base.
pub const ENDPOINT: &str = "/v1/messages/count_tokens";

/// The `anthropic-version` header sent.
pub const API_VERSION: &str = "2023-06-01";

/// Where and how to count.
pub struct Counter<'a> {
    /// The API base, `https://api.anthropic.com` or a gateway's.
    pub api_base: &'a str,
    /// The key (`ANTHROPIC_API_KEY`): sent as `x-api-key`, never stored.
    pub key: &'a str,
    /// The model counted for.
    pub model: &'a str,
    /// The cache folder (`None`: no cache).
    pub cache: Option<PathBuf>,
    /// Each call's time limit.
    pub timeout: Duration,
    /// Whether to stop now (Ctrl-C, SIGTERM).
    pub cancelled: &'a (dyn Fn() -> bool + Sync),
}

/// A named part's cost by difference: the request's count minus its count without the part.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct PartCount {
    /// The server or tool name.
    pub name: String,
    /// Claude's tokens for it.
    pub tokens: i64,
}

/// Claude's counts of a request's tools.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ClaudeCount {
    /// The model counted for.
    pub model: String,
    /// The request with every tool.
    pub with_tools: u64,
    /// The same request without tools.
    pub without_tools: u64,
    /// What the tools cost: the difference.
    pub tools: i64,
    /// Per server, by difference.
    pub servers: Vec<PartCount>,
    /// Per tool entry, by difference.
    pub per_tool: Vec<PartCount>,
    /// Calls made to the endpoint.
    pub calls: usize,
    /// Answers taken from the cache.
    pub cached: usize,
}

impl Counter<'_> {
    /// Count `tools` (Anthropic Messages entries) whole, without any, without each group of
    /// `servers` (name → entry indexes) and without each entry.
    pub fn count(
        &self,
        tools: &[Value],
        servers: &[(String, Vec<usize>)],
    ) -> Result<ClaudeCount, String> {
        let mut state = (0usize, 0usize);
        let all: Vec<usize> = (0..tools.len()).collect();
        let with_tools = self.one(tools, &all, &mut state)?;
        let without_tools = self.one(tools, &[], &mut state)?;
        let without = |skip: &[usize], state: &mut (usize, usize)| {
            let kept: Vec<usize> = all.iter().copied().filter(|i| !skip.contains(i)).collect();
            self.one(tools, &kept, state)
                .map(|n| with_tools.cast_signed() - n.cast_signed())
        };
        let mut server_counts = Vec::new();
        for (name, entries) in servers {
            server_counts.push(PartCount {
                name: name.clone(),
                tokens: without(entries, &mut state)?,
            });
        }
        let mut per_tool = Vec::new();
        for (index, tool) in tools.iter().enumerate() {
            per_tool.push(PartCount {
                name: crate::tool::name(tool).unwrap_or_default().to_owned(),
                tokens: without(&[index], &mut state)?,
            });
        }
        Ok(ClaudeCount {
            model: self.model.to_owned(),
            with_tools,
            without_tools,
            tools: with_tools.cast_signed() - without_tools.cast_signed(),
            servers: server_counts,
            per_tool,
            calls: state.0,
            cached: state.1,
        })
    }

    /// The count of the request holding the entries `kept`, from the cache or one call.
    fn one(
        &self,
        tools: &[Value],
        kept: &[usize],
        (calls, cached): &mut (usize, usize),
    ) -> Result<u64, String> {
        let mut body = json!({
            "model": self.model,
            "messages": [{"role": "user", "content": "."}],
        });
        if !kept.is_empty() {
            body["tools"] = Value::Array(kept.iter().map(|&i| tools[i].clone()).collect());
        }
        let text = body.to_string();
        // The API base too: a test gateway's counts are not the endpoint's.
        let key =
            blake3::hash(format!("{}\n{}\n{text}", self.api_base, self.model).as_bytes()).to_hex();
        let file = self
            .cache
            .as_ref()
            .map(|dir| dir.join(format!("{key}.json")));
        if let Some(n) = file.as_deref().and_then(read_cached) {
            *cached += 1;
            return Ok(n);
        }
        if (self.cancelled)() {
            return Err("interrupted".into());
        }
        let limits = Limits {
            deadline: Instant::now() + self.timeout,
            cancelled: self.cancelled,
            budget: super::client::MAX_MESSAGE_BYTES,
        };
        let headers = [
            ("x-api-key".to_owned(), self.key.to_owned()),
            ("anthropic-version".to_owned(), API_VERSION.to_owned()),
        ];
        let url = format!("{}{ENDPOINT}", self.api_base.trim_end_matches('/'));
        *calls += 1;
        // Whatever comes back (a gateway's error may echo the key, an address the URL's
        // credentials) is said without them.
        let mut secrets = super::config::url_secrets(&url);
        secrets.push(self.key.to_owned());
        let hide = |text: String| super::config::mask(&text, &secrets);
        let (status, answer) = post_json(&url, &headers, &text, &limits).map_err(hide)?;
        let Some(n) = answer
            .get("input_tokens")
            .and_then(Value::as_u64)
            .filter(|_| status == 200)
        else {
            let message = answer
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("no `input_tokens` in the answer");
            return Err(hide(format!("HTTP {status} from {ENDPOINT}: {message}")));
        };
        if let Some(file) = &file {
            write_cached(file, n);
        }
        Ok(n)
    }
}

fn read_cached(file: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    serde_json::from_str::<Value>(&text)
        .ok()?
        .get("input_tokens")?
        .as_u64()
}

/// Written to a temporary file first, then renamed: a reader never sees half an answer. A
/// cache that cannot be written only costs a call next time.
fn write_cached(file: &Path, n: u64) {
    let Some(dir) = file.parent() else {
        return;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    if let Ok(mut temp) = tempfile::NamedTempFile::new_in(dir) {
        use std::io::Write;
        if writeln!(temp, "{}", json!({"input_tokens": n})).is_ok() {
            let _ = temp.persist(file);
        }
    }
}
