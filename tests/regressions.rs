//! Every input the fuzzer or an attack found a problem with (`tests/fixtures/regressions/`),
//! replayed under the same checks the fuzz targets run (`fuzz/src/checks.rs`), plus the bundled
//! samples. A file's name says who found it (a fuzz target, or `attack`) and what it was; see
//! `docs/FUZZING.md`.

#[path = "../fuzz/src/checks.rs"]
mod checks;
#[path = "../fuzz/src/trace_check.rs"]
mod trace_check;

use std::path::{Path, PathBuf};

fn files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && !p.ends_with("README.md"))
        .collect();
    files.sort();
    files
}

fn replay(path: &Path) {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    checks::sanitize(&data);
    let _ = checks::capture(&data);
    checks::projections(&data);
    checks::tiktoken_exact(&data);
    checks::tokenizer(&data);
    trace_check::trace(&data);
}

#[test]
fn hostile_inputs_stay_fixed() {
    let found = files("tests/fixtures/regressions");
    // An empty folder would make this pass without replaying anything.
    assert!(found.len() >= 7, "{found:?}");
    for path in found {
        replay(&path);
    }
}

#[test]
fn samples_pass_every_fuzz_check() {
    let samples = files("samples");
    assert!(samples.len() >= 5, "{samples:?}");
    for path in samples {
        replay(&path);
    }
}

#[test]
fn sample_traces_pass_the_trace_fuzz_check() {
    let traces = files("samples/traces");
    assert!(traces.len() >= 5, "{traces:?}");
    for path in traces {
        let data = std::fs::read(&path).unwrap();
        trace_check::trace(&data);
        // Compressed, as the fuzzer's seeds are too.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &data).unwrap();
        trace_check::trace(&gz.finish().unwrap());
        trace_check::trace(&zstd::encode_all(&data[..], 1).unwrap());
    }
}
