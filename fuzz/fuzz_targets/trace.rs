//! Opening a trace of any format from a file, compressed ones included: no panic, one-line
//! errors naming the file.
#![no_main]

#[path = "../src/trace_check.rs"]
mod trace_check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| trace_check::trace(data));
