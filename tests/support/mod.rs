//! What the integration tests share: running the binary and reading its output, trace records
//! as a trace reader hands them over, and colour stripping.

pub mod command;
pub mod records;
pub mod sgr;
