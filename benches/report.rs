//! `cargo bench --bench report [-- FILTER]`: the engine's speed on the 1000-tool benchmark capture
//! (`benches/synth::Spec::BENCH`, about 3.6 MB), in-process. A plain `harness =
//! false` target (no extra dependencies): each case runs a warm-up and then N timed rounds and
//! prints min/median/max. The whole-process comparison with Python tiktoken is
//! `benches/whole-process.sh`. Not part of `cargo test`.
//!
//! Cases:
//! - `encoder build`: building the o200k encoder (what `TokenCounter::new` overlaps).
//! - `project ID`: one strategy's projection alone (strategy code, no measuring).
//! - `report cold`: `report::report` over all strategies with a fresh counter (nothing cached;
//!   encoder already built): parse excluded, projections, serialization, counting included.
//! - `report warm`: the same with a counter that has seen the capture (a TUI redraw).
//! - `count_array cold` vs `full count`: a list total from entry counts and join corrections,
//!   against tokenizing the joined array.

use std::time::{Duration, Instant};

#[path = "synth/mod.rs"]
mod synth;

use synth::{Spec, capture_json};
use toolprism::measure::{Encoding, Tiktoken, TokenCounter, Tokenizer};
use toolprism::{Capture, Settings, Strategy, tool};

fn time<T>(name: &str, rounds: usize, mut f: impl FnMut() -> T) {
    std::hint::black_box(f());
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "{name:<28} median {:>8.1} ms   min {:>8.1} ms   max {:>8.1} ms   ({rounds} rounds)",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument picks cases by substring.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);

    // CAPTURE=path measures another capture instead of the generated one.
    let text = match std::env::var("CAPTURE") {
        Ok(path) => std::fs::read_to_string(&path).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }),
        Err(_) => capture_json(Spec::BENCH),
    };
    println!(
        "capture: {:.2} MB, {} threads",
        text.len() as f64 / 1e6,
        rayon::current_num_threads()
    );
    let start = Instant::now();
    let _ = Tiktoken::new(Encoding::O200kBase);
    if wanted("encoder build") {
        println!(
            "{:<28} {:>15.1} ms   (once)",
            "encoder build",
            ms(start.elapsed())
        );
    }
    let capture = match Capture::from_bytes(text.as_bytes()) {
        Ok(capture) => capture,
        Err(e) => {
            eprintln!("bench capture does not load: {e}");
            std::process::exit(1);
        }
    };
    if wanted("parse") {
        time("parse", rounds, || {
            Capture::from_bytes(text.as_bytes()).is_ok()
        });
    }
    let settings = Settings::default();
    if wanted("clone entries") {
        // What a strategy pays to clone every entry before deciding to change it.
        time("clone entries", rounds, || capture.tools().to_vec());
    }
    if wanted("project") {
        for strategy in Strategy::ALL {
            time(&format!("project {strategy}"), rounds, || {
                toolprism::project(&capture, strategy, &settings)
            });
        }
    }
    if wanted("report cold") {
        time("report cold", rounds, || {
            let counter = TokenCounter::new(Encoding::O200kBase);
            toolprism::report::report(&capture, "bench", &Strategy::ALL, &settings, &counter)
        });
    }
    if wanted("report cold") {
        let counter = TokenCounter::new(Encoding::O200kBase);
        toolprism::report::report(&capture, "bench", &Strategy::ALL, &settings, &counter);
        println!(
            "{:<28} {:>8.2} MB tokenized of {:.2} MB capture, {} strings remembered",
            "report cold: work",
            counter.tokenized_bytes() as f64 / 1e6,
            text.len() as f64 / 1e6,
            counter.cached_strings()
        );
    }
    if wanted("report warm") {
        let counter = TokenCounter::new(Encoding::O200kBase);
        time("report warm", rounds, || {
            toolprism::report::report(&capture, "bench", &Strategy::ALL, &settings, &counter)
        });
    }
    let entries: Vec<String> = capture.tools().iter().map(tool::compact).collect();
    let refs: Vec<&str> = entries.iter().map(String::as_str).collect();
    if wanted("count_array cold") {
        time("count_array cold", rounds, || {
            TokenCounter::new(Encoding::O200kBase).count_array(&refs)
        });
    }
    if wanted("full count") {
        let joined = format!("[{}]", refs.join(","));
        let tiktoken = Tiktoken::new(Encoding::O200kBase);
        time("full count (1 thread)", rounds, || tiktoken.count(&joined));
    }
}
