//! Every projection under two settings and its measure (byte-counting tokenizer) on whatever
//! loads: deterministic, exports parse, figures add up.
#![no_main]

#[path = "../src/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::projections(data));
