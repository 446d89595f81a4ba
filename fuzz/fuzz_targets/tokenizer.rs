//! The fast tokenizer against tiktoken-rs: the same tokens for any text.
#![no_main]

#[path = "../src/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::tokenizer(data));
