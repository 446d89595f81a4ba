//! `cargo bench --bench tokenizers -- CAPTURE...`: the fast tokenizer (`measure::fast`) against
//! tiktoken-rs on real captures, for exactness and speed. For each capture and both encodings,
//! every tool entry's compact JSON and the whole compact `tools` array are counted by both,
//! without any cache; any difference is reported and makes the run fail. Then each
//! tokenizer's build time (once per process) and its counting time over all the texts
//! (median of `ROUNDS`, 5 by default). Not part of `cargo test`.
//!
//!     cargo bench --bench tokenizers -- ../shared/corpus/*.json

use std::time::{Duration, Instant};

use serde_json::Value;
use toolprism::measure::fast::FastTiktoken;
use toolprism::measure::{Encoding, Tiktoken, Tokenizer};

fn tools_of(body: &Value) -> Vec<Value> {
    let body = match body.get("result") {
        Some(result @ Value::Object(_)) => result,
        _ => body,
    };
    body.get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

fn main() {
    let paths: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let mut texts: Vec<String> = Vec::new();
    let mut lists = 0;
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let body: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let tools = tools_of(&body);
        let entries: Vec<String> = tools
            .iter()
            .map(|t| serde_json::to_string(t).unwrap_or_default())
            .collect();
        texts.push(format!("[{}]", entries.join(",")));
        lists += 1;
        texts.extend(entries);
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    println!(
        "{} captures, {lists} lists and {} entries, {:.2} MB",
        paths.len(),
        texts.len() - lists,
        bytes as f64 / 1e6
    );
    let mut differences = 0;
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let start = Instant::now();
        let reference = Tiktoken::new(encoding);
        let reference_build = start.elapsed();
        let start = Instant::now();
        let fast = FastTiktoken::new(encoding).unwrap_or_else(|e| panic!("{e}"));
        let fast_build = start.elapsed();
        let mut tokens = 0;
        for text in &texts {
            let (expected, got) = (reference.count(text), fast.count(text));
            tokens += expected;
            if expected != got {
                differences += 1;
                println!(
                    "DIFFERENT {}: tiktoken-rs {expected}, fast {got}: {:.80}",
                    encoding.id(),
                    text
                );
            }
        }
        let time = |tokenizer: &dyn Tokenizer| {
            median(
                (0..rounds)
                    .map(|_| {
                        let start = Instant::now();
                        let n: usize = texts.iter().map(|t| tokenizer.count(t)).sum();
                        std::hint::black_box(n);
                        start.elapsed()
                    })
                    .collect(),
            )
        };
        let (slow, quick) = (time(&reference), time(&fast));
        println!(
            "{:<12} {tokens:>9} tokens, all equal: {:<5} build: tiktoken-rs {:>6.1} ms, fast {:>6.1} ms   \
             count (1 thread, median of {rounds}): tiktoken-rs {slow:>7.1} ms ({:.1} MB/s), fast {quick:>7.1} ms ({:.1} MB/s)",
            encoding.id(),
            differences == 0,
            reference_build.as_secs_f64() * 1000.0,
            fast_build.as_secs_f64() * 1000.0,
            bytes as f64 / 1e3 / slow,
            bytes as f64 / 1e3 / quick,
        );
    }
    if differences > 0 {
        eprintln!("{differences} counts differ");
        std::process::exit(1);
    }
}
