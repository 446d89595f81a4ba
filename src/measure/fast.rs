//! tiktoken-rs's encodings, counted faster: the split into pieces by [`Pieces`] (DFAs instead
//! of fancy-regex's backtracking VM), each piece byte-pair-encoded with tiktoken-rs's own ranks
//! and merge. Every count equals tiktoken-rs's `encode_ordinary(text).len()`.
//!
//! Building one costs more than tiktoken-rs's encoder (its ranks are rebuilt from the decoder,
//! the encoder is not public; docs/SPEED.md has the figure), so [`super::TokenCounter`] builds
//! it only once a session has tokenized enough text to repay that.

use rustc_hash::FxHashMap as HashMap;
use tiktoken_rs::{CoreBPE, Rank};

use super::pieces::Pieces;
use super::{Encoding, Tokenizer, per_part};

/// Pieces at least this long are encoded by tiktoken-rs itself: its merge is `O(n log n)` from
/// this length on, the public one quadratic.
const LONG_PIECE: usize = 100;

/// The fast counter of one encoding.
pub struct FastTiktoken {
    bpe: &'static CoreBPE,
    encoding: Encoding,
    /// Each ordinary token's bytes and rank: tiktoken-rs's encoder, rebuilt.
    ranks: HashMap<Vec<u8>, Rank>,
    pieces: Pieces,
}

impl FastTiktoken {
    /// Build it, after tiktoken-rs's own encoder, which it builds or waits for.
    pub fn new(encoding: Encoding) -> Result<FastTiktoken, String> {
        let bpe = match encoding {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        Ok(FastTiktoken {
            bpe,
            encoding,
            ranks: ranks_of(bpe),
            pieces: Pieces::new(encoding)?,
        })
    }

    /// Ordinary tokens in the vocabulary.
    pub fn vocabulary(&self) -> usize {
        self.ranks.len()
    }

    /// The tokens of `text`, piece by piece, as [`Tokenizer::count`] finds them: equal to
    /// tiktoken-rs's `encode_ordinary(text)`. `None` if the split failed (never expected).
    pub fn tokens(&self, text: &str) -> Option<Vec<Rank>> {
        let mut tokens = Vec::new();
        let mut from = 0;
        let complete = self.pieces.each(text, |end| {
            let piece = &text[from..end];
            from = end;
            let bytes = piece.as_bytes();
            if let Some(&rank) = self.ranks.get(bytes) {
                tokens.push(rank);
            } else if bytes.len() < LONG_PIECE {
                let parts = tiktoken_rs::byte_pair_split(bytes, &self.ranks);
                tokens.extend(parts.into_iter().map(|part| self.ranks[part]));
            } else {
                tokens.extend(self.bpe.encode_ordinary(piece));
            }
        });
        complete.then_some(tokens)
    }

    fn piece_count(&self, piece: &str) -> usize {
        let bytes = piece.as_bytes();
        if self.ranks.contains_key(bytes) {
            1
        } else if bytes.len() < LONG_PIECE {
            tiktoken_rs::byte_pair_split(bytes, &self.ranks).len()
        } else if bytes.len() >= super::long_piece::LONG
            && let Some(n) = super::long_piece::LongPieces::of(self.encoding).count(bytes)
        {
            n
        } else {
            self.bpe.encode_ordinary(piece).len()
        }
    }
}

/// The ordinary tokens of `bpe` by their bytes; special tokens are left out (ordinary encoding
/// never merges into one).
pub(super) fn ranks_of(bpe: &CoreBPE) -> HashMap<Vec<u8>, Rank> {
    let special: std::collections::HashSet<Rank> = bpe
        .special_tokens()
        .into_iter()
        .flat_map(|text| bpe.encode_with_special_tokens(text))
        .collect();
    let mut ranks = HashMap::with_capacity_and_hasher(200_000, Default::default());
    // Ranks are dense up to the vocabulary's size, the special ones just above it.
    let mut rank: Rank = 0;
    let mut misses = 0;
    while misses < 4096 {
        match bpe.decode_bytes(&[rank]) {
            Ok(bytes) if !special.contains(&rank) => {
                ranks.insert(bytes, rank);
                misses = 0;
            }
            Ok(_) => {}
            Err(_) => misses += 1,
        }
        rank += 1;
    }
    ranks
}

impl Tokenizer for FastTiktoken {
    fn count(&self, text: &str) -> usize {
        let mut count = 0;
        let mut from = 0;
        let complete = self.pieces.each(text, |end| {
            count += self.piece_count(&text[from..end]);
            from = end;
        });
        if complete {
            count
        } else {
            self.bpe.encode_ordinary(text).len()
        }
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
                counts[part] += self.piece_count(&text[from..end]);
            }
            from = end;
        });
        if !complete || straddles {
            return per_part(self, text, cuts);
        }
        counts
    }
}
