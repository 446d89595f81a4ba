//! Writes each encoding's rank table (every ordinary token's bytes, by rank) into `OUT_DIR`, from
//! tiktoken-rs's own encoder, so that `measure::fast` loads it with one pass over a static
//! byte string at run time instead of building tiktoken-rs's encoder (its base64 file, a
//! backtracking regex and three copies of the vocabulary: most of a report's start-up; the
//! figures are in docs/SPEED.md).
//!
//! Format: for each token in rank order, its rank (4 bytes, little-endian), its length (2
//! bytes, little-endian) and its bytes. Special tokens are left out: ordinary encoding never
//! produces one.

#[path = "src/measure/rank_index.rs"]
#[allow(dead_code)]
mod rank_index;

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/measure/rank_index.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (name, bpe) in [
        ("o200k_base", tiktoken_rs::o200k_base()),
        ("cl100k_base", tiktoken_rs::cl100k_base()),
    ] {
        let bpe = bpe.unwrap_or_else(|e| panic!("tiktoken-rs's {name}: {e}"));
        let special: HashSet<u32> = bpe
            .special_tokens()
            .into_iter()
            .flat_map(|text| bpe.encode_with_special_tokens(text))
            .collect();
        let mut table = Vec::with_capacity(2 << 20);
        // Ranks are dense up to the vocabulary's size, the special ones just above it.
        let (mut rank, mut misses) = (0u32, 0);
        while misses < 4096 {
            match bpe.decode_bytes(&[rank]) {
                Ok(bytes) if !special.contains(&rank) => {
                    let len = u16::try_from(bytes.len()).expect("a token under 64 KiB");
                    table.extend_from_slice(&rank.to_le_bytes());
                    table.extend_from_slice(&len.to_le_bytes());
                    table.extend_from_slice(&bytes);
                    misses = 0;
                }
                Ok(_) => {}
                Err(_) => misses += 1,
            }
            rank += 1;
        }
        write(&out.join(format!("{name}.ranks")), &table);
        write(&out.join(format!("{name}.index")), &index(&table));
    }
}

/// The rank index of `table` (`src/measure/rank_index.rs`): its slots, little-endian.
fn index(table: &[u8]) -> Vec<u8> {
    let mut records = Vec::new();
    let mut at = 0;
    while at < table.len() {
        let len = usize::from(u16::from_le_bytes([table[at + 4], table[at + 5]]));
        records.push((at, &table[at + 6..at + 6 + len]));
        at += 6 + len;
    }
    let slots = rank_index::slots_for(records.len());
    let mut index = vec![rank_index::EMPTY; slots];
    for (offset, bytes) in records {
        let hash = rank_index::token_hash(bytes);
        let mut i = rank_index::home(hash, slots);
        while index[i] != rank_index::EMPTY {
            i = (i + 1) & (slots - 1);
        }
        let offset = u32::try_from(offset).expect("a rank table under 4 GiB");
        index[i] = rank_index::slot(offset, hash);
    }
    index.iter().flat_map(|slot| slot.to_le_bytes()).collect()
}

fn write(path: &std::path::Path, bytes: &[u8]) {
    let mut file =
        std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    file.write_all(bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
