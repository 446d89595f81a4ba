//! What the integration tests share: running the binary and reading its output, trace records
//! as a trace reader hands them over, colour stripping, and the tmux harness.

pub mod command;
pub mod cuts;
pub mod records;
pub mod sgr;
pub mod tmux;
pub mod tools;
pub mod upstream;
