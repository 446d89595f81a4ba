//! Every projection measured with the real o200k tokenizer: list totals equal a plain count.
#![no_main]

#[path = "../src/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::tiktoken_exact(data));
