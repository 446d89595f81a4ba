//! Every input the fuzzer found a problem with (`tests/fixtures/regressions/`), replayed under
//! the same checks the fuzz targets run (`fuzz/src/checks.rs`), plus the bundled samples. A
//! file's name says which target found it and what it was; see `docs/FUZZING.md`.

#[path = "../fuzz/src/checks.rs"]
mod checks;

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
}

#[test]
fn fuzzer_findings_stay_fixed() {
    for path in files("tests/fixtures/regressions") {
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
