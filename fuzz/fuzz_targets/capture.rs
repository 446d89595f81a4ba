//! Loading a request body: never a panic, errors are one line.
#![no_main]

#[path = "../src/checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = checks::capture(data);
});
