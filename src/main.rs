//! The `toolprism` binary: command-line parsing and output live in `cli`; the engine is the
//! `toolprism` library.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
