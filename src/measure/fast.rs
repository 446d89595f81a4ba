//! tiktoken's encodings, counted without tiktoken-rs's encoder: the split into pieces by
//! [`Pieces`] (DFAs instead of fancy-regex's backtracking VM), each piece byte-pair-encoded
//! with the encoding's own ranks. Every count equals tiktoken-rs's
//! `encode_ordinary(text).len()`, token for token (`tests/tokenizer.rs`).
//!
//! The ranks are tiktoken-rs's, written by `build.rs` at build time as one byte string per
//! encoding and indexed here in one pass, without a copy of any token: a few milliseconds,
//! where building tiktoken-rs's encoder (its base64 file, its backtracking regex, three
//! copies of the vocabulary) took most of a report's start-up and about 40 MB (docs/SPEED.md).
//! One tokenizer per encoding is built per process ([`FastTiktoken::shared`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

use rustc_hash::FxHashMap as HashMap;
use tiktoken_rs::Rank;

use super::pieces::Pieces;
use super::{Encoding, Tokenizer, per_part};

/// Pieces at least this long are merged with a heap (`O(n log n)`), shorter ones by scanning
/// their pairs (quadratic, faster when short).
const LONG_PIECE: usize = 100;

/// Each encoding's ordinary tokens in rank order: rank (u32 LE), length (u16 LE), bytes.
static O200K_RANKS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.ranks"));
static CL100K_RANKS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.ranks"));

/// The fast counter of one encoding.
pub struct FastTiktoken {
    encoding: Encoding,
    /// Each ordinary token's rank by its bytes.
    ranks: HashMap<&'static [u8], Rank>,
    pieces: Pieces,
}

impl FastTiktoken {
    /// Build one (a few milliseconds: the rank index and the pre-tokenizer's patterns).
    pub fn new(encoding: Encoding) -> Result<FastTiktoken, String> {
        let table = match encoding {
            Encoding::O200kBase => O200K_RANKS,
            Encoding::Cl100kBase => CL100K_RANKS,
        };
        Ok(FastTiktoken {
            encoding,
            ranks: index(table)?,
            pieces: Pieces::new(encoding)?,
        })
    }

    /// The process's tokenizer of `encoding`, built on first use (a call made while another
    /// thread builds it waits for that build).
    pub fn shared(encoding: Encoding) -> Result<&'static FastTiktoken, String> {
        static O200K: OnceLock<Result<FastTiktoken, String>> = OnceLock::new();
        static CL100K: OnceLock<Result<FastTiktoken, String>> = OnceLock::new();
        let cell = match encoding {
            Encoding::O200kBase => &O200K,
            Encoding::Cl100kBase => &CL100K,
        };
        cell.get_or_init(|| FastTiktoken::new(encoding))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Ordinary tokens in the vocabulary.
    pub fn vocabulary(&self) -> usize {
        self.ranks.len()
    }

    /// Every ordinary token's rank by its bytes, owned (what tiktoken-rs's merge takes).
    pub(super) fn owned_ranks(&self) -> HashMap<Vec<u8>, Rank> {
        self.ranks.iter().map(|(&k, &v)| (k.to_vec(), v)).collect()
    }

    /// The rank of the token whose bytes are `bytes`, if one is.
    pub fn rank(&self, bytes: &[u8]) -> Option<Rank> {
        self.ranks.get(bytes).copied()
    }

    /// The tokens of `text`, piece by piece, as [`Tokenizer::count`] finds them: equal to
    /// tiktoken-rs's `encode_ordinary(text)`. `None` if the split failed (never expected).
    pub fn tokens(&self, text: &str) -> Option<Vec<Rank>> {
        let mut tokens = Vec::new();
        let mut from = 0;
        let complete = self.pieces.each(text, |end| {
            let piece = &text.as_bytes()[from..end];
            from = end;
            match self.ranks.get(piece) {
                Some(&rank) => tokens.push(rank),
                None => {
                    let bounds = self.merge(piece);
                    tokens.extend(
                        bounds
                            .windows(2)
                            .filter_map(|w| self.ranks.get(&piece[w[0]..w[1]]).copied()),
                    );
                }
            }
        });
        complete.then_some(tokens)
    }

    fn piece_count(&self, piece: &[u8]) -> usize {
        if self.ranks.contains_key(piece) {
            1
        } else if piece.len() >= super::long_piece::LONG
            && let Some(n) =
                super::long_piece::LongPieces::of(self.encoding).and_then(|p| p.count(piece))
        {
            n
        } else {
            self.merge(piece).len() - 1
        }
    }

    /// Byte-pair merge of a piece: its tokens' start offsets, then its length. The pair of
    /// neighbouring parts whose joined bytes have the lowest rank merges first, the leftmost
    /// on a tie, until no joined pair is a token: tiktoken's rule.
    fn merge(&self, piece: &[u8]) -> Vec<usize> {
        if piece.len() >= LONG_PIECE {
            return self.merge_long(piece);
        }
        let rank = |bounds: &[usize], i: usize| -> Rank {
            if i + 2 < bounds.len() {
                self.rank(&piece[bounds[i]..bounds[i + 2]])
                    .unwrap_or(Rank::MAX)
            } else {
                Rank::MAX
            }
        };
        let mut bounds: Vec<usize> = (0..=piece.len()).collect();
        // pairs[i]: the rank of parts i and i + 1 joined (MAX for none, and for the last part).
        let mut pairs: Vec<Rank> = (0..piece.len()).map(|i| rank(&bounds, i)).collect();
        loop {
            let mut best = (Rank::MAX, 0);
            for (i, &r) in pairs.iter().enumerate() {
                if r < best.0 {
                    best = (r, i);
                }
            }
            let (r, i) = best;
            if r == Rank::MAX {
                return bounds;
            }
            bounds.remove(i + 1);
            pairs.remove(i + 1);
            pairs[i] = rank(&bounds, i);
            if i > 0 {
                pairs[i - 1] = rank(&bounds, i - 1);
            }
        }
    }

    /// [`merge`](Self::merge) of a long piece: the candidate pairs in a heap ordered by rank
    /// then position; a pair one of whose parts has since grown is stale and skipped.
    fn merge_long(&self, piece: &[u8]) -> Vec<usize> {
        let n = piece.len();
        // next[i]: where the part starting at i ends; prev[i]: where the part before it
        // starts (usize::MAX for none); live[i]: whether a part starts at i.
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut live = vec![true; n];
        let mut heap: BinaryHeap<Reverse<(Rank, usize, usize)>> = BinaryHeap::new();
        let candidate = |heap: &mut BinaryHeap<Reverse<(Rank, usize, usize)>>, s, e| {
            if let Some(r) = self.rank(&piece[s..e]) {
                heap.push(Reverse((r, s, e)));
            }
        };
        for i in 0..n.saturating_sub(1) {
            candidate(&mut heap, i, i + 2);
        }
        while let Some(Reverse((_, start, end))) = heap.pop() {
            // Current only if both parts are as they were when the pair was pushed: a part
            // only ever grows, so the pair's end says so.
            if !live[start] || next[start] >= n || next[next[start]] != end {
                continue;
            }
            live[next[start]] = false;
            next[start] = end;
            if end < n {
                prev[end] = start;
                candidate(&mut heap, start, next[end]);
            }
            if prev[start] != usize::MAX {
                candidate(&mut heap, prev[start], end);
            }
        }
        let mut bounds = Vec::new();
        let mut at = 0;
        while at < n {
            bounds.push(at);
            at = next[at];
        }
        bounds.push(n);
        bounds
    }

    /// Should the split ever fail: tiktoken-rs itself (its encoder built then).
    fn fallback(&self, text: &str) -> usize {
        super::Tiktoken::new(self.encoding).count(text)
    }
}

/// Index a rank table written by `build.rs`.
fn index(table: &'static [u8]) -> Result<HashMap<&'static [u8], Rank>, String> {
    let mut ranks = HashMap::with_capacity_and_hasher(table.len() / 8, Default::default());
    let mut rest = table;
    while !rest.is_empty() {
        let (Some(rank), Some(len)) = (rest.get(..4), rest.get(4..6)) else {
            return Err("a truncated rank table".into());
        };
        let rank = Rank::from_le_bytes([rank[0], rank[1], rank[2], rank[3]]);
        let len = usize::from(u16::from_le_bytes([len[0], len[1]]));
        let Some(bytes) = rest.get(6..6 + len) else {
            return Err("a truncated rank table".into());
        };
        ranks.insert(bytes, rank);
        rest = &rest[6 + len..];
    }
    Ok(ranks)
}

impl Tokenizer for FastTiktoken {
    fn count(&self, text: &str) -> usize {
        let mut count = 0;
        let mut from = 0;
        let complete = self.pieces.each(text, |end| {
            count += self.piece_count(&text.as_bytes()[from..end]);
            from = end;
        });
        if complete { count } else { self.fallback(text) }
    }

    /// One split of the whole text, each piece's tokens given to the part it falls in: a
    /// forced boundary is a piece boundary, so no piece straddles a cut. Should one ever seem
    /// to, the parts are counted alone instead (exact either way).
    fn count_parts(&self, text: &str, cuts: &[usize]) -> Vec<usize> {
        let mut counts = vec![0; cuts.len() + 1];
        let mut part = 0;
        let mut from = 0;
        let mut straddles = false;
        let complete = self.pieces.each(text, |end| {
            while part < cuts.len() && from >= cuts[part] {
                part += 1;
            }
            if part < cuts.len() && end > cuts[part] {
                straddles = true;
            }
            if !straddles {
                counts[part] += self.piece_count(&text.as_bytes()[from..end]);
            }
            from = end;
        });
        if !complete || straddles {
            return per_part(self, text, cuts);
        }
        counts
    }
}
