//! Readers that stop at a limit while reading, so that no input is read (or held) past what
//! toolprism promises to read: a whole document up to its byte limit, and a decompressed stream
//! no more than [`MAX_RATIO`] times the compressed bytes it came from (beyond a floor).
//!
//! A limit reached is an I/O error carrying an [`Exceeded`], which the readers turn into a
//! one-line refusal (`too large: …`).

use std::io::{self, BufRead, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many times its compressed size a stream may grow when decompressed, once past
/// [`RATIO_FLOOR`]. JSON traces compress 5–20× with gzip (its window is 32 KB, and a trace
/// repeats itself a whole turn apart) and rarely past 100× even with zstd; a decompression
/// bomb is 1000× (gzip) to millions of times (zstd).
pub const MAX_RATIO: u64 = 100;

/// Decompressed bytes always allowed, whatever the ratio: a small compressed file may hold a
/// legitimately repetitive trace.
pub const RATIO_FLOOR: u64 = 64 * 1024 * 1024;

/// A limit reached while reading. Its text is the problem as the user sees it.
#[derive(Debug)]
pub(crate) enum Exceeded {
    /// More bytes than `limit` in a document read whole.
    Bytes(u64),
    /// Decompressed bytes past the ratio guard.
    Ratio { compressed: u64, decompressed: u64 },
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exceeded::Bytes(limit) => write!(
                f,
                "too large: more than {limit} bytes (the limit is {limit} bytes)"
            ),
            Exceeded::Ratio {
                compressed,
                decompressed,
            } => write!(
                f,
                "too large decompressed: {decompressed} bytes from {compressed} compressed, \
                 more than {MAX_RATIO} times (a decompression bomb?); decompress it yourself \
                 to read it anyway"
            ),
        }
    }
}

impl std::error::Error for Exceeded {}

impl Exceeded {
    fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::FileTooLarge, self)
    }

    /// The limit an I/O error reports, when it is one of ours.
    pub(crate) fn of(error: &io::Error) -> Option<&Exceeded> {
        error.get_ref()?.downcast_ref::<Exceeded>()
    }
}

/// An I/O error as the problem to report: a limit reached in its own words, anything else as
/// `cannot read: …`.
pub(crate) fn read_problem(error: &io::Error) -> String {
    match Exceeded::of(error) {
        Some(exceeded) => exceeded.to_string(),
        None => format!("cannot read: {}", crate::error::io_reason(error)),
    }
}

/// A reader that fails (with [`Exceeded::Bytes`]) rather than yield more than `limit` bytes.
/// Nothing past the limit is consumed: [`Limited::into_inner`] goes on from there.
pub(crate) struct Limited<R> {
    inner: R,
    left: u64,
    limit: u64,
}

impl<R: BufRead> Limited<R> {
    #[cfg(test)]
    pub(crate) fn new(inner: R, limit: u64) -> Limited<R> {
        Limited::after(inner, limit, 0)
    }

    /// A reader of the rest of an input whose first `read` bytes were read already: it stops
    /// at `limit` counted from the input's start.
    pub(crate) fn after(inner: R, limit: u64, read: u64) -> Limited<R> {
        Limited {
            inner,
            left: limit.saturating_sub(read),
            limit,
        }
    }

    /// The reader, where reading stopped.
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: BufRead> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // At the limit: one more byte means the input is over it.
            return match self.inner.fill_buf()?.is_empty() {
                true => Ok(0),
                false => Err(Exceeded::Bytes(self.limit).into_io()),
            };
        }
        let max = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// Counts the compressed bytes a decoder reads.
pub(crate) struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The decompressed side of a [`Counting`] reader: fails (with [`Exceeded::Ratio`]) once more
/// than [`RATIO_FLOOR`] bytes came out and more than [`MAX_RATIO`] times what went in.
pub(crate) struct RatioGuard<R> {
    inner: R,
    compressed: Arc<AtomicU64>,
    decompressed: u64,
    floor: u64,
}

impl<R: Read> Read for RatioGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.decompressed += n as u64;
        if self.decompressed > self.floor {
            let compressed = self.compressed.load(Ordering::Relaxed);
            if self.decompressed > compressed.saturating_mul(MAX_RATIO) {
                return Err(Exceeded::Ratio {
                    compressed,
                    decompressed: self.decompressed,
                }
                .into_io());
            }
        }
        Ok(n)
    }
}

/// The two ends of a ratio guard around a decoder: wrap the compressed reader with the first,
/// the decoder with the second.
pub(crate) fn ratio_guard<C: Read, D: Read>(
    compressed: C,
    floor: u64,
) -> (Counting<C>, impl FnOnce(D) -> RatioGuard<D>) {
    let count = Arc::new(AtomicU64::new(0));
    let counting = Counting {
        inner: compressed,
        count: count.clone(),
    };
    let guard = move |decoder: D| RatioGuard {
        inner: decoder,
        compressed: count,
        decompressed: 0,
        floor,
    };
    (counting, guard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limited_reads_up_to_the_limit_and_refuses_one_more() {
        let mut out = Vec::new();
        Limited::new(&b"abcd"[..], 4).read_to_end(&mut out).unwrap();
        assert_eq!(out, b"abcd");
        let mut out = Vec::new();
        let err = Limited::new(&b"abcde"[..], 4)
            .read_to_end(&mut out)
            .unwrap_err();
        assert_eq!(
            read_problem(&err),
            "too large: more than 4 bytes (the limit is 4 bytes)"
        );
        assert_eq!(out, b"abcd");
    }

    #[test]
    fn the_ratio_guard_stops_a_bomb_past_the_floor() {
        let zeros = vec![b'\n'; 4 << 20];
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut gz, &zeros).unwrap();
        let packed = gz.finish().unwrap();
        assert!(packed.len() * 100 < zeros.len());
        let (counting, guard) = ratio_guard(&packed[..], 1 << 20);
        let mut reader = guard(flate2::read::GzDecoder::new(counting));
        let err = std::io::copy(&mut reader, &mut std::io::sink()).unwrap_err();
        assert!(
            read_problem(&err).starts_with("too large decompressed: "),
            "{err}"
        );
        // Under the floor the same stream is read whole.
        let (counting, guard) = ratio_guard(&packed[..], 8 << 20);
        let mut reader = guard(flate2::read::GzDecoder::new(counting));
        assert_eq!(
            std::io::copy(&mut reader, &mut std::io::sink()).unwrap(),
            zeros.len() as u64
        );
    }
}
