//! The fast tokenizer against tiktoken-rs itself: the same tokens, id for id, for both
//! encodings, on hand-picked edges of the pre-tokenizer patterns, generated text, and every
//! string of every sample; and the counter's switch to it.

use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::Value;
use toolprism::measure::fast::FastTiktoken;
use toolprism::measure::pieces::Pieces;
use toolprism::measure::{Encoding, TokenCounter, Tokenizer};

const ENCODINGS: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

fn fast(encoding: Encoding) -> &'static FastTiktoken {
    static O200K: OnceLock<FastTiktoken> = OnceLock::new();
    static CL100K: OnceLock<FastTiktoken> = OnceLock::new();
    let cell = match encoding {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    };
    cell.get_or_init(|| FastTiktoken::new(encoding).expect("the patterns build"))
}

fn reference(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
    match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    }
}

/// Token for token, count and parts: the fast path is tiktoken-rs.
fn assert_same(encoding: Encoding, text: &str) {
    let expected = reference(encoding).encode_ordinary(text);
    let tokenizer = fast(encoding);
    assert_eq!(
        tokenizer.tokens(text).as_deref(),
        Some(expected.as_slice()),
        "{encoding:?} tokens of {text:?}"
    );
    assert_eq!(
        tokenizer.count(text),
        expected.len(),
        "{encoding:?} {text:?}"
    );
}

/// Edges of both patterns: each look-ahead case, contractions with Unicode case folds (`ſ`
/// folds to `s`, the Kelvin sign to `k`), marks, numbers of every script, white space of every
/// kind before letters, digits, punctuation and the end.
const EDGES: &[&str] = &[
    "",
    " ",
    "  ",
    "   x",
    "  x",
    " x",
    "x  ",
    "x   ",
    "\t\tx",
    "\t\t1",
    "  1",
    "  !",
    "   !x",
    "  \n  x",
    "\n\n  \n x",
    "\r\n\r\n",
    " \r\n",
    "a \n",
    "\u{a0}\u{a0}x",
    "\u{3000}\u{3000}東京",
    "\u{2028}\u{2029}x",
    "\u{85}\u{85}y",
    "x\u{200b}\u{200b}y",
    "don't",
    "DON'T",
    "we'll've",
    "it'ſ",
    "IT'ſ",
    "'ſ",
    "'K",
    "'\u{212a}",
    "'LL",
    "x'Re",
    "''s",
    "e\u{301}\u{301}",
    "\u{301}abc",
    "Ǆemo ǅemo",
    "ᾈᾈᾈ",
    "1234567",
    "١٢٣٤",
    "Ⅻ ⅻ",
    "½¾",
    "x/y//z\n/",
    "!!\n\n//x",
    "a\n/b",
    "{\"a\":[1,2]}",
    "<|endoftext|>",
    "<|endofprompt|> <|fim_prefix|>",
    "🚀👍🏽🇫🇷",
    "\u{202e}evil\u{202d}",
    "\u{1b}[31mred\u{1b}[0m",
    "\0\u{1}\u{7f}",
    "camelCaseWORDSAndMore",
    "ÀÉÎõü ß ẞ",
];

#[test]
fn edges_of_both_patterns_tokenize_like_tiktoken() {
    for encoding in ENCODINGS {
        for edge in EDGES {
            assert_same(encoding, edge);
            assert_same(encoding, &format!("{edge}{edge} {edge}"));
            assert_same(encoding, &format!("x{edge}\n{edge}1"));
        }
    }
}

#[test]
fn long_pieces_use_tiktokens_own_merge() {
    for encoding in ENCODINGS {
        for unit in ["!?", ". ", "ab", "東", " ", "\n", "9", "é"] {
            for n in [49, 50, 51, 99, 100, 101, 400] {
                assert_same(encoding, &unit.repeat(n));
                assert_same(encoding, &format!("x{}y", unit.repeat(n)));
            }
        }
    }
}

/// Pieces past `long_piece::LONG` are counted in bounded memory (tiktoken's merge would hold
/// several words per byte): the same count as tiktoken-rs, through both tokenizers and the
/// counter, a piece alone and among others.
#[test]
fn pieces_too_long_for_tiktokens_merge_count_the_same() {
    use toolprism::measure::{Tiktoken, long_piece::LONG};
    let run = "a".repeat(LONG + 7);
    let words = "xyzzy".repeat(LONG / 5 + 3);
    let among_others = format!("Say {words}, then {words}!");
    for encoding in ENCODINGS {
        for text in [&run, &among_others] {
            let expected = reference(encoding).encode_ordinary(text).len();
            assert_eq!(fast(encoding).count(text), expected, "{encoding:?}");
            assert_eq!(
                Tiktoken::new(encoding).count(text),
                expected,
                "{encoding:?}"
            );
            let counter = TokenCounter::new(encoding);
            assert_eq!(counter.count(text), expected, "{encoding:?}");
        }
    }
}

#[test]
fn the_pattern_is_tiktoken_rss_own_without_its_look_ahead() {
    let ours = Pieces::alternatives(Encoding::O200kBase).join("|");
    let theirs = tiktoken_rs::O200K_BASE_PAT_STR.replace(r"|\s+(?!\S)", "");
    assert_eq!(ours, theirs);
}

#[test]
fn the_vocabularies_are_whole() {
    assert_eq!(fast(Encoding::O200kBase).vocabulary(), 199_998);
    assert_eq!(fast(Encoding::Cl100kBase).vocabulary(), 100_256);
}

/// Every string in every sample (names, descriptions, keys) and each file whole.
#[test]
fn every_sample_tokenizes_like_tiktoken() {
    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
            Value::Object(map) => {
                for (key, item) in map {
                    out.push(key.clone());
                    strings(item, out);
                }
            }
            _ => {}
        }
    }
    let mut files = 0;
    let mut texts = Vec::new();
    for entry in std::fs::read_dir("samples").unwrap() {
        let path = entry.unwrap().path();
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        files += 1;
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            strings(&value, &mut texts);
        }
        texts.push(text);
    }
    assert!(files >= 8, "{files} sample files");
    for encoding in ENCODINGS {
        for text in &texts {
            assert_same(encoding, text);
        }
    }
}

/// Characters from every class the patterns tell apart.
fn mixed_text() -> impl proptest::strategy::Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "Z",
        "é",
        "E\u{301}",
        "\u{301}",
        "ſ",
        "\u{212a}",
        "ǅ",
        "東",
        "ß",
        "1",
        "٣",
        "Ⅻ",
        "'",
        "'s",
        "'LL",
        " ",
        "  ",
        "\t",
        "\n",
        "\r",
        "\r\n",
        "\u{a0}",
        "\u{3000}",
        "\u{2028}",
        "\u{85}",
        "!",
        "?",
        ".",
        "/",
        "\"",
        "{",
        "}",
        ",",
        ":",
        "🚀",
        "\u{200b}",
        "\u{1b}",
        "\0",
        "<|endoftext|>",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn generated_text_tokenizes_like_tiktoken(text in mixed_text()) {
        for encoding in ENCODINGS {
            assert_same(encoding, &text);
        }
    }

    #[test]
    fn arbitrary_text_tokenizes_like_tiktoken(text in "\\PC{0,60}") {
        for encoding in ENCODINGS {
            assert_same(encoding, &text);
        }
    }
}

/// A counter counts with the fast tokenizer from its first count, the same as tiktoken-rs.
#[test]
fn the_counter_counts_with_the_fast_tokenizer() {
    for encoding in ENCODINGS {
        let counter = TokenCounter::new(encoding);
        assert_eq!(counter.count("a few words"), 3);
        assert!(
            counter.counts_fast(),
            "{encoding:?}: not the fast tokenizer"
        );
        let text: String = (0..5_000).map(|i| format!("other{i}, 'll ")).collect();
        assert_eq!(
            counter.count(&text),
            reference(encoding).encode_ordinary(&text).len()
        );
    }
}

/// The rank table written at build time is tiktoken-rs's vocabulary, token for token: every
/// rank it decodes (special tokens aside) has the same bytes here, and nothing else is here.
#[test]
fn the_rank_table_is_tiktoken_rss_vocabulary() {
    for encoding in ENCODINGS {
        let bpe = reference(encoding);
        let special: std::collections::HashSet<u32> = bpe
            .special_tokens()
            .into_iter()
            .flat_map(|text| bpe.encode_with_special_tokens(text))
            .collect();
        let mut ordinary = 0;
        for rank in 0..300_000u32 {
            let Ok(bytes) = bpe.decode_bytes(&[rank]) else {
                continue;
            };
            if special.contains(&rank) {
                continue;
            }
            ordinary += 1;
            assert_eq!(
                fast(encoding).rank(&bytes),
                Some(rank),
                "{encoding:?} {rank}"
            );
        }
        assert_eq!(fast(encoding).vocabulary(), ordinary, "{encoding:?}");
    }
}

/// Long pieces take the heap merge: runs of punctuation, letters, digits-free words and
/// spaces well over its threshold, merged as tiktoken-rs merges them.
#[test]
fn long_pieces_merge_like_tiktoken() {
    let mut texts: Vec<String> = vec![
        "!".repeat(5000),
        ".-".repeat(777),
        "=".repeat(101),
        "a".repeat(3000),
        "ab".repeat(1000),
        "xyzzy".repeat(400),
        " ".repeat(2000),
        "\n".repeat(600),
        "é".repeat(900),
        "東京".repeat(300),
        "🙂".repeat(200),
        "{\"$ref\":\"#/$defs/".repeat(50),
    ];
    // Pseudo-random letters without spaces: one piece, many merges, many ties.
    let mut state = 7u64;
    let word: String = (0..4000)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            char::from(b'a' + (state >> 59) as u8 % 26)
        })
        .collect();
    texts.push(word);
    for encoding in ENCODINGS {
        for text in &texts {
            assert_same(encoding, text);
        }
    }
}
