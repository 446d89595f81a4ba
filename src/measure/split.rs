//! Where tiktoken's pre-tokenizer provably cuts a text, whatever surrounds it.
//!
//! tiktoken splits text into pieces with a regex, then byte-pair-encodes each piece on its own,
//! so a text's count is the sum of its pieces' counts. If a position is a piece boundary no
//! matter what comes before or after it (a *forced* boundary), the text can be cut there and the
//! parts counted separately, exactly. This module finds such positions for the two encodings
//! toolprism uses, `o200k_base` and `cl100k_base`, whose patterns are (tiktoken-rs 0.12):
//!
//! ```text
//! o200k:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//!       | [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//!       | \p{N}{1,3} | ?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
//! cl100k: '(?i:[sdmt]|ll|ve|re) | [^\r\n\p{L}\p{N}]?+\p{L}++ | \p{N}{1,3}+ | ?[^\s\p{L}\p{N}]++[\r\n]*+
//!       | \s++$ | \s*[\r\n] | \s+(?!\S) | \s
//! ```
//!
//! Write *A* for an ASCII letter or digit and *P* for ASCII punctuation other than `'` (every
//! such character is outside `\s`, `\p{L}`, `\p{N}` and `\p{M}`). Position `p` is forced when:
//!
//! 1. `text[p-1]` is *A* and `text[p]` is *P* or a space. Only letter pieces (o200k's first two
//!    alternatives, cl100k's letter run or contraction) and digit pieces can hold an *A*; they
//!    stop before any character that is not a letter, mark or digit, and the optional
//!    contraction suffix needs a `'`. So the piece holding `text[p-1]` ends at `p`.
//! 2. `text[p-2]` and `text[p-1]` are *P*, `text[p-2]` is not `/`, and `text[p]` is *A*. A *P*
//!    followed by a *P* can only sit in the punctuation run ` ?[^\s\p{L}\p{N}]+` (a one-character
//!    prefix of a letter piece must be followed by a letter; `'` is excluded, so no
//!    contraction), and that greedy run goes on through `text[p-1]` and stops at the *A*; its
//!    `[\r\n/]*` tail takes nothing from an *A*. (`/` is excluded at `p-2` because o200k's tail
//!    can hold a `/` that follows a newline, ending the piece before `text[p-1]`.)
//!
//! Nothing in either pattern looks behind, and the look-aheads (`(?!\S)`, `$`) only follow
//! whitespace, which never ends a part cut this way (a part ends in *A* or in *P* followed by
//! *A*). So a part between forced boundaries is tokenized alone exactly as it is inside the
//! whole text, and the counts add up. The property tests in `tests/measure.rs` check this
//! against a plain full count for both encodings.

/// ASCII punctuation that tiktoken treats as "other" (not letter, number or space), without
/// the apostrophe that starts contractions.
fn is_punct(b: u8) -> bool {
    b.is_ascii_punctuation() && b != b'\''
}

/// Whether a piece boundary is forced at byte `p` of `text` (see the module docs). Positions
/// 0 and `text.len()` are boundaries of the text itself and are not reported.
pub fn is_forced(text: &[u8], p: usize) -> bool {
    if p == 0 || p >= text.len() {
        return false;
    }
    let (before, at) = (text[p - 1], text[p]);
    if before.is_ascii_alphanumeric() {
        return is_punct(at) || at == b' ';
    }
    at.is_ascii_alphanumeric()
        && p >= 2
        && is_punct(before)
        && is_punct(text[p - 2])
        && text[p - 2] != b'/'
}

/// The first and last forced boundaries of `text`, if it has any: the text's edge parts
/// `text[..first]` and `text[last..]` are the only ones that can merge with neighbours.
pub fn edges(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let first = (1..bytes.len()).find(|&p| is_forced(bytes, p))?;
    let last = (first..bytes.len())
        .rev()
        .find(|&p| is_forced(bytes, p))
        .unwrap_or(first);
    Some((first, last))
}

/// Cut `text` into chunks at forced boundaries: at the first one at least [`MIN_CHUNK`] bytes
/// into each chunk. Chunks are about a word or two, so the same word, key or phrase in
/// different texts (and different places) is one cached chunk, counted once; the cut depends
/// only on nearby bytes, so equal passages realign after a difference within a chunk or two.
///
/// A text longer than [`LARGE`] (a megabyte enum, a 40 MB description) is cut more coarsely,
/// at forced boundaries whose preceding bytes hash to a marker (about one in [`LARGE_SPREAD`]),
/// so a few hundred bytes a chunk: a million word-sized chunks would cost more in cache
/// lookups and tokenizer calls than the text itself. The cut still depends only on nearby
/// bytes, so the original and a projected copy of such a text share their chunks.
pub fn chunks(text: &str) -> Chunks<'_> {
    Chunks {
        text,
        start: 0,
        large: text.len() > LARGE,
    }
}

/// A chunk's minimum length: shorter chunks cost more in lookups than they save.
const MIN_CHUNK: usize = 8;

/// Texts longer than this are cut coarsely (see [`chunks`]).
pub const LARGE: usize = 64 * 1024;

/// In a large text, about one forced boundary in this many ends a chunk.
const LARGE_SPREAD: u32 = 32;

/// In a large text, a chunk ends at the first forced boundary past this many bytes even without
/// a marker (a text of uniform boundaries still gets cut).
const LARGE_MAX: usize = 4096;

/// Whether the four bytes before `p` mark a cut in a large text (a fixed multiplicative hash:
/// deterministic, and depending only on those bytes).
fn marked(bytes: &[u8], p: usize) -> bool {
    let window = &bytes[p.saturating_sub(4)..p];
    let h = window
        .iter()
        .fold(0u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    (h >> 16) % LARGE_SPREAD == 0
}

/// Iterator of [`chunks`].
pub struct Chunks<'a> {
    text: &'a str,
    start: usize,
    large: bool,
}

impl<'a> Iterator for Chunks<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        if self.start >= bytes.len() {
            return None;
        }
        let from = self.start;
        // Forced boundaries sit between ASCII bytes, so every cut is a char boundary.
        let end = if self.large {
            (from + MIN_CHUNK..bytes.len())
                .find(|&p| is_forced(bytes, p) && (p - from >= LARGE_MAX || marked(bytes, p)))
        } else {
            (from + MIN_CHUNK..bytes.len()).find(|&p| is_forced(bytes, p))
        }
        .unwrap_or(bytes.len());
        self.start = end;
        Some(&self.text[from..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_entry_edges() {
        let e = r#"{"name":"Bash","input_schema":{"required":["command"]}}"#;
        let (first, last) = edges(e).unwrap_or((0, 0));
        assert_eq!(&e[..first], "{\"");
        assert_eq!(&e[last..], "\"]}}");
    }

    #[test]
    fn apostrophes_slashes_and_unicode_are_not_cut() {
        assert!(!is_forced(b"it's", 2));
        assert!(!is_forced(b"a/'b", 3));
        assert!(!is_forced(b"//b", 2));
        assert!(!is_forced("é,".as_bytes(), 2));
        assert!(is_forced(b"a,", 1));
        assert!(is_forced(b"a b", 1));
        assert!(is_forced(b",\"b", 2));
        assert!(edges("'").is_none());
        assert!(edges("").is_none());
    }

    #[test]
    fn large_texts_are_cut_coarsely_and_realign() {
        let words = [
            "alpha", "beta,", "gamma.", "(delta)", "\"eps\"", "zeta:", "eta;",
        ];
        let body: String = (0..20_000)
            .map(|i| format!("{}{} ", words[i % 7], i * 7919 % 1000))
            .collect();
        assert!(body.len() > LARGE);
        let parts: Vec<&str> = chunks(&body).collect();
        assert_eq!(parts.concat(), body);
        let mean = body.len() / parts.len();
        assert!((64..=LARGE_MAX).contains(&mean), "mean chunk {mean} bytes");
        for part in &parts[1..] {
            let start = part.as_ptr() as usize - body.as_ptr() as usize;
            assert!(is_forced(body.as_bytes(), start));
        }
        // A different head: the copies share all but their first few chunks.
        let other = format!("A changed description, longer than before. {body}");
        let theirs: std::collections::HashSet<&str> = chunks(&other).collect();
        let shared = parts.iter().filter(|p| theirs.contains(*p)).count();
        assert!(shared + 3 >= parts.len(), "{shared} of {}", parts.len());
    }

    #[test]
    fn chunks_cover_the_text() {
        let words = [
            "alpha", "beta,", "gamma.", "(delta)", "\"eps\"", "zeta:", "eta;",
        ];
        let text: String = (0..2000)
            .map(|i| format!("{}{} ", words[i % 7], i * 7919 % 1000))
            .collect();
        let parts: Vec<&str> = chunks(&text).collect();
        assert!(parts.len() > 1);
        assert_eq!(parts.concat(), text);
        for part in &parts[1..] {
            let start = part.as_ptr() as usize - text.as_ptr() as usize;
            assert!(is_forced(text.as_bytes(), start));
        }
    }
}
