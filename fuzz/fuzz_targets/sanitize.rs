//! The terminal sanitizer: nothing unsafe survives, safe text is unchanged.
#![no_main]

#[path = "../src/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::sanitize(data));
