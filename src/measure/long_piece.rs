//! Exact counts of pre-tokenizer pieces too long for tiktoken's merge to hold.
//!
//! tiktoken byte-pair-encodes each piece alone, keeping a few words of state per byte of the
//! piece: a 240 MB run of one letter (a single piece) asks for gigabytes. This module counts such
//! a piece in memory bounded by the longest token, not by the piece, and in time linear in it.
//!
//! How, and why the count is exact: call two tokens *compatible* when byte-pair encoding their
//! bytes side by side gives those two tokens back. The last token of the encoding of any prefix
//! `p` of a piece is the longest token `t` that ends `p` and is compatible with the last token of
//! the encoding of `p` without `t` (the characterization GitHub's `bpe` crate builds its
//! appendable encoder on). So, going through the piece byte by byte, each prefix's count is one
//! more than the count of the prefix its last token starts after, and only the last
//! `longest token` prefixes are ever looked back at: a ring of that many (last token, count)
//! pairs is all the state. Compatibility is decided by tiktoken's own merge on the two tokens'
//! bytes (at most twice the longest token), so the merge order is tiktoken's. Tokens that are not
//! their own encoding can never end an encoding and are left out. `tests/tokenizer.rs` checks the
//! counts against tiktoken-rs piece by piece.

use std::sync::OnceLock;

use rustc_hash::FxHashMap as HashMap;
use tiktoken_rs::Rank;

use super::Encoding;

/// Pieces at least this long are counted here; shorter ones by tiktoken-rs, whose state for a
/// piece of this size is a few megabytes.
pub const LONG: usize = 256 * 1024;

/// No token.
const NONE: Rank = Rank::MAX;

/// Compatibility answers remembered during one piece before the memo starts over (bounds it).
const MEMO_LIMIT: usize = 1 << 20;

/// One encoding's vocabulary, arranged to find every token that ends at a position.
pub struct LongPieces {
    /// tiktoken's ordinary tokens by their bytes (for its merge).
    ranks: HashMap<Vec<u8>, Rank>,
    /// Each rank's bytes (empty for a rank that is not an ordinary token).
    bytes: Vec<Box<[u8]>>,
    /// A trie of the tokens' bytes read backwards: walking it from a position towards the
    /// piece's start meets every token that ends there, shortest first.
    trie: ReversedTrie,
    /// The longest token, in bytes.
    longest: usize,
}

impl LongPieces {
    /// The counter of `encoding`, built on first use (about a second: every token's own
    /// encoding is checked), then shared.
    pub fn of(encoding: Encoding) -> Option<&'static LongPieces> {
        static O200K: OnceLock<Option<LongPieces>> = OnceLock::new();
        static CL100K: OnceLock<Option<LongPieces>> = OnceLock::new();
        let cell = match encoding {
            Encoding::O200kBase => &O200K,
            Encoding::Cl100kBase => &CL100K,
        };
        cell.get_or_init(|| {
            let fast = super::fast::FastTiktoken::shared(encoding).ok()?;
            Some(LongPieces::new(fast.owned_ranks()))
        })
        .as_ref()
    }

    /// Arrange `ranks` (tiktoken's ordinary tokens).
    pub fn new(ranks: HashMap<Vec<u8>, Rank>) -> LongPieces {
        let size = ranks.values().max().map_or(0, |&r| r as usize + 1);
        let mut bytes: Vec<Box<[u8]>> = vec![Box::default(); size];
        let mut reversed = Vec::with_capacity(ranks.len());
        for (token, &rank) in &ranks {
            bytes[rank as usize] = token.clone().into_boxed_slice();
            // A token its own bytes do not encode to cannot end an encoding.
            if token.len() == 1 || tiktoken_rs::byte_pair_split(token, &ranks).len() == 1 {
                reversed.push((token.iter().rev().copied().collect::<Vec<u8>>(), rank));
            }
        }
        reversed.sort_unstable();
        let longest = reversed.iter().map(|(t, _)| t.len()).max().unwrap_or(1);
        LongPieces {
            trie: ReversedTrie::build(&reversed),
            ranks,
            bytes,
            longest,
        }
    }

    /// The number of tokens tiktoken encodes `piece` to (one pre-tokenizer piece, any length).
    /// `None` if no token ends a prefix (a vocabulary without every single byte: never for
    /// tiktoken's).
    pub fn count(&self, piece: &[u8]) -> Option<usize> {
        let ring = self.longest + 1;
        // Per prefix length modulo `ring`: the last token of its encoding, and its count.
        let mut last = vec![NONE; ring];
        let mut count = vec![0usize; ring];
        let mut memo: HashMap<(Rank, Rank), bool> = HashMap::default();
        let mut ends = Vec::with_capacity(self.longest);
        for end in 1..=piece.len() {
            ends.clear();
            self.trie.tokens_ending(piece, end, self.longest, &mut ends);
            let mut chosen = None;
            // Longest first.
            for &(len, token) in ends.iter().rev() {
                let start = end - len;
                let before = last[start % ring];
                if start == 0 || self.compatible(before, token, &mut memo) {
                    chosen = Some((token, count[start % ring] + 1));
                    break;
                }
            }
            let (token, n) = chosen?;
            last[end % ring] = token;
            count[end % ring] = n;
        }
        Some(count[piece.len() % ring])
    }

    /// Whether tiktoken's merge of `a`'s bytes then `b`'s gives `a`, `b` back.
    fn compatible(&self, a: Rank, b: Rank, memo: &mut HashMap<(Rank, Rank), bool>) -> bool {
        if let Some(&known) = memo.get(&(a, b)) {
            return known;
        }
        let (left, right) = (&self.bytes[a as usize], &self.bytes[b as usize]);
        let mut joined = Vec::with_capacity(left.len() + right.len());
        joined.extend_from_slice(left);
        joined.extend_from_slice(right);
        let parts = tiktoken_rs::byte_pair_split(&joined, &self.ranks);
        let answer = parts.len() == 2 && parts[0].len() == left.len();
        if memo.len() >= MEMO_LIMIT {
            memo.clear();
        }
        memo.insert((a, b), answer);
        answer
    }
}

/// Tokens' bytes read backwards, as a trie in two flat arrays (a few bytes a node: the
/// vocabulary's ~1.3 million prefixes fit in tens of megabytes).
struct ReversedTrie {
    nodes: Vec<Node>,
    /// Every node's children, each node's contiguous and sorted by byte.
    edges: Vec<(u8, u32)>,
}

/// A token's bytes reversed, and its rank.
type Reversed = (Vec<u8>, Rank);

#[derive(Clone, Copy)]
struct Node {
    first_edge: u32,
    edge_count: u16,
    /// The token whose reversed bytes lead here, or [`NONE`].
    token: Rank,
}

impl ReversedTrie {
    /// From reversed tokens sorted by their bytes.
    fn build(sorted: &[Reversed]) -> ReversedTrie {
        let mut trie = ReversedTrie {
            nodes: Vec::with_capacity(sorted.len() * 4),
            edges: Vec::with_capacity(sorted.len() * 4),
        };
        trie.add(sorted, 0);
        trie
    }

    /// The node of the prefix of length `depth` all of `group` share; returns its index.
    fn add(&mut self, group: &[Reversed], depth: usize) -> u32 {
        let index = self.nodes.len() as u32;
        let (token, rest) = match group.first() {
            // Sorted: the token that is exactly this prefix comes first.
            Some((bytes, rank)) if bytes.len() == depth => (*rank, &group[1..]),
            _ => (NONE, group),
        };
        let mut children: Vec<(u8, &[Reversed])> = Vec::new();
        let mut from = 0;
        while from < rest.len() {
            let byte = rest[from].0[depth];
            let to = from + rest[from..].partition_point(|(b, _)| b[depth] == byte);
            children.push((byte, &rest[from..to]));
            from = to;
        }
        let first_edge = self.edges.len() as u32;
        self.nodes.push(Node {
            first_edge,
            edge_count: children.len() as u16,
            token,
        });
        self.edges
            .extend(children.iter().map(|&(byte, _)| (byte, 0)));
        for (k, (_, child)) in children.into_iter().enumerate() {
            let at = self.add(child, depth + 1);
            self.edges[first_edge as usize + k].1 = at;
        }
        index
    }

    /// Every token that ends `text` at `end` and is at most `longest` long, as (length, token),
    /// shortest first.
    fn tokens_ending(&self, text: &[u8], end: usize, longest: usize, out: &mut Vec<(usize, Rank)>) {
        let mut node = self.nodes[0];
        let stop = end.saturating_sub(longest);
        for at in (stop..end).rev() {
            let edges = &self.edges[node.first_edge as usize..][..usize::from(node.edge_count)];
            let Ok(k) = edges.binary_search_by_key(&text[at], |&(b, _)| b) else {
                return;
            };
            node = self.nodes[edges[k].1 as usize];
            if node.token != NONE {
                out.push((end - at, node.token));
            }
        }
    }
}

/// The tokens of `text` (any length) as tiktoken counts them, each pre-tokenizer piece alone:
/// the long ones here, the others by `short` (tiktoken-rs's encoder). `None` if the text could
/// not be split (never expected).
pub fn count_text(encoding: Encoding, text: &str, short: impl Fn(&str) -> usize) -> Option<usize> {
    static O200K: OnceLock<Option<super::pieces::Pieces>> = OnceLock::new();
    static CL100K: OnceLock<Option<super::pieces::Pieces>> = OnceLock::new();
    let cell = match encoding {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    };
    let splitter = cell
        .get_or_init(|| super::pieces::Pieces::new(encoding).ok())
        .as_ref()?;
    let mut total = 0;
    let mut from = 0;
    let mut failed = false;
    let complete = splitter.each(text, |end| {
        let piece = &text[from..end];
        from = end;
        if piece.len() >= LONG {
            match LongPieces::of(encoding).and_then(|p| p.count(piece.as_bytes())) {
                Some(n) => total += n,
                None => failed = true,
            }
        } else {
            total += short(piece);
        }
    });
    (complete && !failed).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tiktoken's merge of the whole piece, the reference.
    fn reference(pieces: &LongPieces, piece: &[u8]) -> usize {
        if piece.len() == 1 {
            return 1;
        }
        tiktoken_rs::byte_pair_split(piece, &pieces.ranks).len()
    }

    /// A small deterministic generator (tests must not depend on a clock or a seed file).
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn counts_equal_tiktokens_merge_on_pieces_of_every_kind() {
        let pieces = LongPieces::of(Encoding::O200kBase).expect("the rank table");
        let alphabets: [&[&str]; 7] = [
            &["a"],
            &["a", "b"],
            &["e", "r", "t", "s", "n"],
            &["é", "e", "ß"],
            &["の", "は", "日本", "語"],
            &["ab", "ba", "abc", "aaa"],
            &["_", "-", "=", "*", "#", "/"],
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15;
        for alphabet in alphabets {
            for length in [1, 2, 3, 7, 31, 64, 129, 400, 1500] {
                let mut piece = String::new();
                while piece.len() < length {
                    let k = next(&mut state) as usize % alphabet.len();
                    piece.push_str(alphabet[k]);
                }
                let bytes = piece.as_bytes();
                assert_eq!(
                    pieces.count(bytes),
                    Some(reference(pieces, bytes)),
                    "{piece:?}"
                );
            }
        }
    }

    #[test]
    fn counts_equal_on_hundreds_of_random_words() {
        let letters: Vec<String> = ('a'..='z').map(String::from).collect();
        let mut state = 0x2545_f491_4f6c_dd1d;
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let pieces = LongPieces::of(encoding).expect("the rank table");
            for _ in 0..400 {
                let length = 2 + next(&mut state) as usize % 300;
                let piece: String = (0..length)
                    .map(|_| letters[next(&mut state) as usize % 26].as_str())
                    .collect();
                let bytes = piece.as_bytes();
                assert_eq!(
                    pieces.count(bytes),
                    Some(reference(pieces, bytes)),
                    "{piece}"
                );
            }
        }
    }

    #[test]
    fn cl100k_counts_equal_tiktokens_merge_too() {
        let pieces = LongPieces::of(Encoding::Cl100kBase).expect("the rank table");
        for piece in [
            "a".repeat(3000),
            "xyzzy".repeat(300),
            "Supercalifragilistic".repeat(50),
            "🙂".repeat(200),
        ] {
            assert_eq!(
                pieces.count(piece.as_bytes()),
                Some(reference(pieces, piece.as_bytes())),
                "{}",
                &piece[..20]
            );
        }
    }
}
