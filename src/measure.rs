//! Token counting: exact tiktoken counts behind a small trait, cached by exact string.
//!
//! PLACEHOLDER implementation (naive, correct): the speed issue replaces the internals; the
//! public API stays.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The tiktoken encodings toolprism counts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// `o200k_base` (GPT-4o and later).
    #[default]
    O200kBase,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100kBase,
}

impl Encoding {
    /// The encoding's name as tiktoken spells it.
    pub fn id(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }
}

impl std::str::FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "o200k_base" => Ok(Encoding::O200kBase),
            "cl100k_base" => Ok(Encoding::Cl100kBase),
            other => Err(format!(
                "unknown encoding `{other}` (o200k_base or cl100k_base)"
            )),
        }
    }
}

/// Something that counts tokens exactly as tiktoken's `encode_ordinary` would.
pub trait Tokenizer: Send + Sync {
    /// Tokens in `text`, special-token text counted as ordinary text.
    fn count(&self, text: &str) -> usize;
}

/// tiktoken-rs's encoder.
pub struct Tiktoken(&'static tiktoken_rs::CoreBPE);

impl Tiktoken {
    /// Build (or reuse) the encoder. The first call for an encoding takes ~100 ms.
    pub fn new(encoding: Encoding) -> Tiktoken {
        Tiktoken(match encoding {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        })
    }
}

impl Tokenizer for Tiktoken {
    fn count(&self, text: &str) -> usize {
        self.0.encode_ordinary(text).len()
    }
}

/// Counts tokens of strings, remembering every count for the session.
pub struct TokenCounter {
    encoding: Encoding,
    tokenizer: Arc<OnceLock<Box<dyn Tokenizer>>>,
    cache: Mutex<HashMap<String, usize>>,
}

impl TokenCounter {
    /// A counter for `encoding` using tiktoken-rs.
    pub fn new(encoding: Encoding) -> TokenCounter {
        let cell = OnceLock::new();
        let _ = cell.set(Box::new(Tiktoken::new(encoding)) as Box<dyn Tokenizer>);
        TokenCounter {
            encoding,
            tokenizer: Arc::new(cell),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The encoding counted with.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Tokens in `text`.
    pub fn count(&self, text: &str) -> usize {
        if let Some(&n) = self.cache.lock().unwrap().get(text) {
            return n;
        }
        let n = self.tokenizer.get().expect("tokenizer set").count(text);
        self.cache.lock().unwrap().insert(text.to_owned(), n);
        n
    }

    /// Tokens of each text.
    pub fn count_many(&self, texts: &[&str]) -> Vec<usize> {
        texts.iter().map(|t| self.count(t)).collect()
    }

    /// Tokens of the JSON array `[e0,e1,...]` whose elements' compact JSON is given.
    pub fn count_array(&self, entries: &[&str]) -> usize {
        let mut joined =
            String::with_capacity(entries.iter().map(|e| e.len() + 1).sum::<usize>() + 2);
        joined.push('[');
        for (i, e) in entries.iter().enumerate() {
            if i > 0 {
                joined.push(',');
            }
            joined.push_str(e);
        }
        joined.push(']');
        self.count(&joined)
    }
}
