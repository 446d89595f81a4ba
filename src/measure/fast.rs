//! tiktoken's encodings, counted without tiktoken-rs's encoder: the split into pieces by
//! [`Pieces`] (DFAs instead of fancy-regex's backtracking VM), each piece byte-pair-encoded
//! with the encoding's own ranks. Every count equals tiktoken-rs's
//! `encode_ordinary(text).len()`, token for token (`tests/tokenizer.rs`).
//!
//! The ranks are tiktoken-rs's, written by `build.rs` at build time as one byte string per
//! encoding with a hash index beside it ([`super::rank_index`]), both read in place: nothing
//! is built at run time but the pre-tokenizer's patterns, where building tiktoken-rs's encoder
//! (its base64 file, its backtracking regex, three copies of the vocabulary) took most of a
//! report's start-up and about 40 MB, and indexing the table in a hash map took 25 ms of a
//! core (docs/SPEED.md).
//! One tokenizer per encoding is built per process ([`FastTiktoken::shared`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

use rustc_hash::FxHashMap as HashMap;
use tiktoken_rs::Rank;

use super::pieces::Pieces;
use super::rank_index;
use super::{Encoding, Tokenizer, per_part};

/// Pieces at least this long are merged with a heap (`O(n log n)`), shorter ones by scanning
/// their pairs (quadratic, faster when short).
const LONG_PIECE: usize = 100;

/// Each encoding's ordinary tokens in rank order: rank (u32 LE), length (u16 LE), bytes.
static O200K_RANKS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.ranks"));
static CL100K_RANKS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.ranks"));

/// Each table's index: 8-byte little-endian slots ([`rank_index`]).
static O200K_INDEX: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.index"));
static CL100K_INDEX: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.index"));

/// The fast counter of one encoding.
pub struct FastTiktoken {
    encoding: Encoding,
    /// Each ordinary token's rank by its bytes.
    ranks: Ranks,
    pieces: Pieces,
}

impl FastTiktoken {
    /// Build one (a few milliseconds: the pre-tokenizer's patterns).
    pub fn new(encoding: Encoding) -> Result<FastTiktoken, String> {
        let (table, index) = match encoding {
            Encoding::O200kBase => (O200K_RANKS, O200K_INDEX),
            Encoding::Cl100kBase => (CL100K_RANKS, CL100K_INDEX),
        };
        Ok(FastTiktoken {
            encoding,
            ranks: Ranks::new(table, index)?,
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
        self.ranks.tokens
    }

    /// Every ordinary token's rank by its bytes, owned (what tiktoken-rs's merge takes).
    pub(super) fn owned_ranks(&self) -> HashMap<Vec<u8>, Rank> {
        self.ranks
            .records()
            .map(|(bytes, rank)| (bytes.to_vec(), rank))
            .collect()
    }

    /// The rank of the token whose bytes are `bytes`, if one is.
    pub fn rank(&self, bytes: &[u8]) -> Option<Rank> {
        self.ranks.get(bytes)
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
                Some(rank) => tokens.push(rank),
                None => {
                    let bounds = self.merge(piece);
                    tokens.extend(
                        bounds
                            .windows(2)
                            .filter_map(|w| self.ranks.get(&piece[w[0]..w[1]])),
                    );
                }
            }
        });
        complete.then_some(tokens)
    }

    fn piece_count(&self, piece: &[u8]) -> usize {
        if self.ranks.get(piece).is_some() {
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

/// A rank table written by `build.rs` and its index, read in place.
struct Ranks {
    /// Records in rank order: rank (u32 LE), length (u16 LE), bytes.
    table: &'static [u8],
    /// [`rank_index`] slots, 8 bytes each, a power of two of them.
    index: &'static [u8],
    slots: usize,
    /// Records in the table.
    tokens: usize,
}

impl Ranks {
    /// Check the table's records and the index's size (one pass, no copy).
    fn new(table: &'static [u8], index: &'static [u8]) -> Result<Ranks, String> {
        let mut tokens = 0;
        let mut at = 0;
        while at < table.len() {
            let len = record_len(table, at).ok_or("a truncated rank table")?;
            if table.len() < at + 6 + len {
                return Err("a truncated rank table".into());
            }
            at += 6 + len;
            tokens += 1;
        }
        let slots = index.len() / 8;
        if !index.len().is_multiple_of(8) || slots != rank_index::slots_for(tokens) {
            return Err("a rank index that does not fit its table".into());
        }
        Ok(Ranks {
            table,
            index,
            slots,
            tokens,
        })
    }

    /// The rank of the token whose bytes are `bytes`, if one is.
    fn get(&self, bytes: &[u8]) -> Option<Rank> {
        let hash = rank_index::token_hash(bytes);
        let mut i = rank_index::home(hash, self.slots);
        loop {
            let slot = u64::from_le_bytes(self.index.get(i * 8..i * 8 + 8)?.try_into().ok()?);
            if slot == rank_index::EMPTY {
                return None;
            }
            if rank_index::tag_matches(slot, hash) {
                let at = rank_index::offset(slot);
                let len = record_len(self.table, at)?;
                if len == bytes.len() && self.table.get(at + 6..at + 6 + len) == Some(bytes) {
                    return record_rank(self.table, at);
                }
            }
            i = (i + 1) & (self.slots - 1);
        }
    }

    /// Every record: its bytes and rank, in rank order.
    fn records(&self) -> impl Iterator<Item = (&'static [u8], Rank)> {
        let table = self.table;
        let mut at = 0;
        std::iter::from_fn(move || {
            let len = record_len(table, at)?;
            let rank = record_rank(table, at)?;
            let bytes = table.get(at + 6..at + 6 + len)?;
            at += 6 + len;
            Some((bytes, rank))
        })
    }
}

fn record_len(table: &[u8], at: usize) -> Option<usize> {
    let len = table.get(at + 4..at + 6)?;
    Some(usize::from(u16::from_le_bytes([len[0], len[1]])))
}

fn record_rank(table: &[u8], at: usize) -> Option<Rank> {
    let rank = table.get(at..at + 4)?;
    Some(Rank::from_le_bytes([rank[0], rank[1], rank[2], rank[3]]))
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
