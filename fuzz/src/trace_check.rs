//! The trace fuzz target's check, apart from `checks.rs` because it writes a file; the normal
//! suite replays it on every finding and sample trace (`tests/regressions.rs`).

use toolprism::Capture;

/// Opening a trace from a file (every format, gzip and zstd told by their magic bytes): no
/// panic; every error is one line naming the file; every record's request loads or fails in
/// one line too; with `skip_bad` the reader goes on to the end.
pub fn trace(data: &[u8]) {
    use toolprism::trace::{TraceOptions, open};
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let path = dir.path().join("trace.jsonl");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let name = path.to_string_lossy().into_owned();
    for skip_bad in [false, true] {
        let reader = match open(&name, &TraceOptions { skip_bad }) {
            Ok(reader) => reader,
            Err(e) => {
                let line = e.to_string();
                assert!(!line.contains('\n'), "error is not one line: {line:?}");
                assert!(
                    line.contains("trace.jsonl"),
                    "error names the file: {line:?}"
                );
                return;
            }
        };
        for record in reader.take(10_000) {
            match record {
                Ok(record) => {
                    if let toolprism::trace::RecordBody::Request(body) = record.body
                        && let Err(e) = Capture::from_value(body)
                    {
                        assert!(!e.to_string().contains('\n'));
                    }
                }
                Err(e) => {
                    let line = e.to_string();
                    assert!(!line.contains('\n'), "error is not one line: {line:?}");
                    assert!(!skip_bad || !line.is_empty());
                    break;
                }
            }
        }
    }
}
