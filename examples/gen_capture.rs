//! Write a deterministic synthetic capture (see `benches/synth`).
//!
//! ```text
//! cargo run --release --example gen_capture -- [OUT] [--tools N] [--seed S]
//! ```
//! Without options: the speed goal's capture (1000 tools, about 3.6 MB). `OUT` defaults to
//! standard output.

use std::io::Write;

#[path = "../benches/synth/mod.rs"]
mod synth;

use synth::{Spec, capture_json};

fn main() {
    let mut spec = Spec::BENCH;
    let mut out: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let number = |value: Option<String>, what: &str| -> u64 {
            match value.as_deref().map(str::parse::<u64>) {
                Some(Ok(n)) => n,
                _ => {
                    eprintln!("gen_capture: {what} needs a number");
                    std::process::exit(2);
                }
            }
        };
        match arg.as_str() {
            "--tools" => spec.tools = number(args.next(), "--tools") as usize,
            "--seed" => spec.seed = number(args.next(), "--seed"),
            "-h" | "--help" => {
                println!("usage: gen_capture [OUT] [--tools N] [--seed S]");
                return;
            }
            _ if out.is_none() => out = Some(arg),
            other => {
                eprintln!("gen_capture: unexpected argument `{other}`");
                std::process::exit(2);
            }
        }
    }
    let json = capture_json(spec);
    let written = match out.as_deref() {
        None | Some("-") => std::io::stdout().write_all(json.as_bytes()),
        Some(path) => std::fs::write(path, json.as_bytes()),
    };
    if let Err(e) = written {
        eprintln!("gen_capture: {e}");
        std::process::exit(2);
    }
}
