//! A folder of request files (`*.json`), read in natural name order, one file at a time.

use std::cmp::Ordering;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Ignored, MAX_RECORD_BYTES, Raw, record};

/// The request files of a folder, in natural name order.
pub(crate) struct FolderSource {
    dir: PathBuf,
    /// Each request file's name as it is (any bytes), and as it is shown (lossy UTF-8).
    files: Vec<(OsString, String)>,
    next: usize,
}

impl FolderSource {
    /// List a folder: `*.json` files (any case) are request files; everything else is ignored
    /// and listed. File times play no part: names give the order.
    pub(crate) fn new(dir: &Path) -> std::io::Result<(FolderSource, Vec<Ignored>)> {
        let mut files = Vec::new();
        let mut ignored = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let file_name = entry.file_name();
            // A name that is not UTF-8 is shown with U+FFFD for its bad bytes (and then
            // through the sanitizer, as every name), and read by its own bytes.
            let name = file_name.to_string_lossy().into_owned();
            let is_file = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file());
            let is_json = name.len() > 5
                && name
                    .get(name.len() - 5..)
                    .is_some_and(|ext| ext.eq_ignore_ascii_case(".json"));
            if is_file && is_json {
                files.push((file_name, name));
            } else {
                let reason = if is_file {
                    "not a request file (*.json)"
                } else {
                    "not a file"
                };
                ignored.push(Ignored {
                    source: name,
                    method: None,
                    url: None,
                    reason: reason.to_owned(),
                });
            }
        }
        files.sort_by(|a, b| natural_cmp(&a.1, &b.1).then_with(|| a.0.cmp(&b.0)));
        ignored.sort_by(|a, b| natural_cmp(&a.source, &b.source));
        let source = FolderSource {
            dir: dir.to_path_buf(),
            files,
            next: 0,
        };
        Ok((source, ignored))
    }

    /// The next file as a trace item, named by its file name.
    pub(crate) fn next_raw(&mut self) -> Option<Raw> {
        let (file_name, name) = self.files.get(self.next)?.clone();
        self.next += 1;
        let outcome = read_file(&self.dir.join(&file_name)).and_then(|(value, text)| {
            if let Some(what) = trace_of_its_own(&value) {
                return Err(format!(
                    "{what}, a trace of its own: read it alone (`toolprism session FILE`)"
                ));
            }
            // A folder of WireMock mappings (its `mappings/`): each file one call.
            if super::wiremock::is_mapping(&value) {
                let interaction = super::wiremock::interaction(value);
                return super::cassette::interaction_outcome(interaction, name.clone());
            }
            record::from_value(value, name.clone(), Some(&text))
        });
        Some(Raw::Read(name, outcome))
    }
}

/// What a folder's file is when it holds many calls itself (a folder is one call a file).
fn trace_of_its_own(value: &Value) -> Option<&'static str> {
    if super::har::is_har(value) {
        Some("a HAR log")
    } else if super::cassette::is_cassette(value) {
        Some("a VCR cassette")
    } else if super::testproxy::is_recording(value) {
        Some("an Azure SDK test-proxy recording")
    } else if super::wiremock::is_mapping_list(value) {
        Some("WireMock's export of many mappings")
    } else {
        None
    }
}

fn read_file(path: &Path) -> Result<(Value, Box<str>), String> {
    let file = std::fs::File::open(path)
        .map_err(|e| format!("cannot read: {}", crate::error::io_reason(&e)))?;
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {}", crate::error::io_reason(&e)))?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(format!("larger than {} MiB", MAX_RECORD_BYTES >> 20));
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let value =
        super::budget::parse_slice(text).map_err(|e| match crate::error::json_error(&e) {
            limit @ crate::error::LoadError::Limit(_) => limit.to_string(),
            other => format!("not JSON ({other})"),
        })?;
    // Parsed: valid UTF-8.
    Ok((value, super::text_of(text).into()))
}

/// Natural order: runs of digits compare by value (`2` before `10`, `002` equal to `2` by value
/// and then told apart by length); everything else compares as text. Ties fall back to the
/// plain byte order, so the order is total.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) if p.is_ascii_digit() && q.is_ascii_digit() => {
                let run = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
                let (m, n) = (run(x), run(y));
                let strip = |s: &'_ [u8]| {
                    let zeros = s.iter().take_while(|&&c| c == b'0').count();
                    s[zeros..].to_vec()
                };
                let (p, q) = (strip(&x[..m]), strip(&y[..n]));
                let by_value = p.len().cmp(&q.len()).then_with(|| p.cmp(&q));
                if by_value != Ordering::Equal {
                    return by_value;
                }
                x = &x[m..];
                y = &y[n..];
            }
            (Some(p), Some(q)) => {
                if p != q {
                    return p.cmp(q);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut names = vec![
            "10.json",
            "2.json",
            "req-1.json",
            "002.json",
            "1.json",
            "b.json",
            "a10.json",
            "a9.json",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            [
                "1.json",
                "002.json",
                "2.json",
                "10.json",
                "a9.json",
                "a10.json",
                "b.json",
                "req-1.json"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_file_whose_name_is_not_utf8_is_read() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let name = std::ffi::OsStr::from_bytes(b"turn-\xff\x1b.json");
        let body = r#"{"model":"m","messages":[],"tools":[]}"#;
        std::fs::write(dir.path().join(name), body).unwrap();
        let (mut source, ignored) = FolderSource::new(dir.path()).unwrap();
        assert!(ignored.is_empty());
        match source.next_raw() {
            Some(Raw::Read(shown, Ok(_))) => assert_eq!(shown, "turn-\u{fffd}\u{1b}.json"),
            Some(Raw::Read(shown, Err(e))) => panic!("{shown}: {e}"),
            _ => panic!("no record"),
        }
        assert_eq!(
            crate::sanitize::visible("turn-\u{fffd}\u{1b}.json"),
            "turn-\u{fffd}␛.json"
        );
    }
}
