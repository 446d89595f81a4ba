//! The compact JSON of a `tools` array, measured without building it: each original entry's
//! text once per capture ([`CaptureJson`]), the array's bytes ([`array_bytes`]) and the first
//! byte two arrays differ at ([`first_changed_byte`], where a cached prompt prefix breaks).
//! Shared by the report, the diff and the session below all three.

use rayon::prelude::*;

use crate::capture::Capture;
use crate::tool;

/// Compact JSON of every original tool, computed once per capture.
pub struct CaptureJson {
    /// Compact JSON of each original entry.
    pub entries: Vec<String>,
}

impl CaptureJson {
    /// Serialize every original entry (in parallel).
    pub fn new(capture: &Capture) -> CaptureJson {
        CaptureJson {
            // Each at its exact length: the serializer's buffer grows by doubling, and these
            // live as long as the report (100,000 entries kept ~10 MB of slack).
            entries: capture
                .tools()
                .par_iter()
                .map(|entry| String::from(tool::compact(entry).as_str()))
                .collect(),
        }
    }
}

/// Bytes of the compact array `[e0,e1,...]` of the given entries' compact JSON (0 when the
/// request carries no `tools` key), without building it.
pub fn array_bytes(entries: &[&str], present: bool) -> usize {
    if !present {
        return 0;
    }
    2 + entries.iter().map(|e| e.len()).sum::<usize>() + entries.len().saturating_sub(1)
}

/// First differing byte between the compact arrays `[a0,a1,...]` and `[b0,b1,...]`, without
/// building them.
pub fn first_changed_byte(
    a: &[&str],
    a_present: bool,
    b: &[&str],
    b_present: bool,
) -> Option<usize> {
    if a_present != b_present {
        return Some(0);
    }
    if !a_present {
        return None;
    }
    let mut offset = 1; // after '['
    let n = a.len().min(b.len());
    for i in 0..n {
        if i > 0 {
            offset += 1; // the ','
        }
        if a[i] != b[i] {
            let common = a[i]
                .bytes()
                .zip(b[i].bytes())
                .take_while(|(x, y)| x == y)
                .count();
            return Some(offset + common);
        }
        offset += a[i].len();
    }
    (a.len() != b.len()).then_some(offset)
}
