//! tiktoken's pre-tokenizer without a backtracking regex engine.
//!
//! tiktoken cuts a text into pieces with a pattern (listed in [`super::split`]) and
//! byte-pair-encodes each piece alone. Both encodings' patterns hold one look-ahead, `\s+(?!\S)`,
//! which forces tiktoken-rs onto fancy-regex's backtracking VM: about a third of the time of
//! measuring a large list went there. Without it, each pattern is a plain alternation that the
//! `regex-automata` DFAs run in one forward pass per piece, and the look-ahead's effect is
//! restored by hand:
//!
//! `\s+(?!\S)` comes after every alternative that can start at white space except the final
//! `\s+` (o200k) or `\s` (cl100k). Reached at a run of `n` white-space characters that no
//! earlier alternative takes, it matches the first `n - 1` of them when the run is followed by
//! a non-space character and `n >= 2` (the greedy `\s+` backs off one character so that the
//! next one is a space), the whole run when it ends the text, and nothing when `n == 1`, where
//! the last alternative takes the one character. Replacing both by `\s+` and giving back its
//! last character when the run has two or more and something follows is therefore the same
//! split. The alternatives are compiled as separate patterns of one leftmost-first regex, so
//! the match says which one took the piece.
//!
//! The possessive quantifiers of cl100k's pattern (`?+`, `++`, `*+`) are written as greedy
//! ones: each is followed by a class disjoint from its own (letters after non-letters, `[\r\n]`
//! after non-space), so backtracking into them can never produce another match.
//!
//! Exactness is checked against tiktoken-rs itself, piece by piece and token by token, in
//! `tests/tokenizer.rs` and the `tokenizer` fuzz target.

use regex_automata::meta::{Cache, Regex};
use regex_automata::util::pool::Pool;
use regex_automata::{Anchored, Input};

use super::Encoding;

/// The alternatives of o200k_base's pattern, in order, `\s+(?!\S)` left out.
const O200K: [&str; 6] = [
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"\p{N}{1,3}",
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"\s*[\r\n]+",
    r"\s+",
];

/// The alternatives of cl100k_base's pattern as tiktoken-rs writes it, in order, possessive
/// quantifiers made greedy, `\s+(?!\S)` left out and the final `\s` folded into `\s+`.
const CL100K: [&str; 7] = [
    r"'(?i:[sdmt]|ll|ve|re)",
    r"[^\r\n\p{L}\p{N}]?\p{L}+",
    r"\p{N}{1,3}",
    r" ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"\s+$",
    r"\s*[\r\n]",
    r"\s+",
];

type CachePool = Pool<Cache, Box<dyn Fn() -> Cache + Send + Sync>>;

/// The pre-tokenizer of one encoding.
pub struct Pieces {
    regex: Regex,
    /// Search caches, one per thread that searches at once.
    caches: CachePool,
    /// The pattern index of the final `\s+`.
    spaces: usize,
}

impl Pieces {
    /// Build the pre-tokenizer of `encoding` (a few milliseconds; the DFAs grow lazily).
    pub fn new(encoding: Encoding) -> Result<Pieces, String> {
        let alternatives = Pieces::alternatives(encoding);
        let regex = Regex::new_many(alternatives).map_err(|e| e.to_string())?;
        let for_caches = regex.clone();
        let caches: CachePool = Pool::new(Box::new(move || for_caches.create_cache()));
        Ok(Pieces {
            regex,
            caches,
            spaces: alternatives.len() - 1,
        })
    }

    /// The alternatives of `encoding`'s pattern as compiled, in order.
    pub fn alternatives(encoding: Encoding) -> &'static [&'static str] {
        match encoding {
            Encoding::O200kBase => &O200K,
            Encoding::Cl100kBase => &CL100K,
        }
    }

    /// Call `piece` with the end of each piece of `text`, in order: tiktoken's split. Returns
    /// `false`, having stopped, should the pattern ever fail to match at a position (it matches
    /// any character, so it cannot).
    pub fn each(&self, text: &str, mut piece: impl FnMut(usize)) -> bool {
        let mut cache = self.caches.get();
        let mut at = 0;
        while at < text.len() {
            let input = Input::new(text).range(at..).anchored(Anchored::Yes);
            let Some(found) = self.regex.search_with(&mut cache, &input) else {
                return false;
            };
            let mut end = found.end();
            if end <= at {
                return false;
            }
            if found.pattern().as_usize() == self.spaces && end < text.len() {
                // The look-ahead's back-off: a run of two or more leaves its last character
                // to the next piece.
                if let Some((last, _)) = text[at..end].char_indices().next_back()
                    && last > 0
                {
                    end = at + last;
                }
            }
            piece(end);
            at = end;
        }
        true
    }

    /// The pieces of `text` (for tests and the fuzz target).
    pub fn split<'t>(&self, text: &'t str) -> Option<Vec<&'t str>> {
        let mut pieces = Vec::new();
        let mut from = 0;
        self.each(text, |end| {
            pieces.push(&text[from..end]);
            from = end;
        })
        .then_some(pieces)
    }
}
