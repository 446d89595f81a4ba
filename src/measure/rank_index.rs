//! The layout of the rank index `build.rs` writes beside each rank table and
//! [`super::fast`] reads in place: an open-addressing table of 8-byte slots, probed linearly
//! from a token's hash. One definition for both sides (`build.rs` includes this file), so
//! the build and the run hash alike. It needs nothing but `core`.

/// A slot that holds no token.
pub const EMPTY: u64 = u64::MAX;

/// Slots for an index of `tokens` tokens: a power of two at least two and a half times as
/// many, so a probe seldom goes past its first slot.
pub fn slots_for(tokens: usize) -> usize {
    (tokens * 5 / 2).next_power_of_two()
}

/// A token's hash: a fixed multiply-xor over its 8-byte words (never a hasher seeded per
/// process: the index is written at build time).
pub fn token_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut hash = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        hash = (hash ^ u64::from_le_bytes(w))
            .wrapping_mul(K)
            .rotate_left(31);
    }
    let mut tail = 0u64;
    for (i, &b) in words.remainder().iter().enumerate() {
        tail |= u64::from(b) << (8 * i);
    }
    hash = (hash ^ tail).wrapping_mul(K);
    hash ^ (hash >> 29)
}

/// The slot of the token whose record starts at `offset` of the rank table: the offset in the
/// low half, the hash's high half as a tag that turns away most other tokens without reading
/// the table. Only `build.rs` writes slots; the library reads them with [`offset`] and
/// [`tag`].
#[allow(dead_code)]
pub fn slot(offset: u32, hash: u64) -> u64 {
    (hash & 0xFFFF_FFFF_0000_0000) | u64::from(offset)
}

/// The first slot to probe for `hash` in an index of `slots` slots (a power of two).
pub fn home(hash: u64, slots: usize) -> usize {
    (hash as usize) & (slots - 1)
}

/// A slot's offset in the rank table.
pub fn offset(slot: u64) -> usize {
    (slot & 0xFFFF_FFFF) as usize
}

/// Whether a slot's tag is that of `hash`.
pub fn tag_matches(slot: u64, hash: u64) -> bool {
    slot >> 32 == hash >> 32
}
