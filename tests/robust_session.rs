//! `session` memory depends on the distinct content kept, not on the number of turns: an
//! analysis that hands each finished turn to a sink holds no row per turn. Measured with a
//! counting allocator (this test binary's own), so the figure is the live heap, exactly.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use toolprism::Settings;
use toolprism::measure::{Encoding, TokenCounter};
use toolprism::session::{Analyzer, StrategyTurn, TraceInfo, TurnFacts, TurnSink};
use toolprism::strategy::Strategy;
use toolprism::trace::{TraceRecord, Usage};

#[path = "support/records.rs"]
mod records;

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The two tests measure the one global heap: run in parallel, each sees the other's peaks.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[allow(
    unsafe_code,
    reason = "a global allocator is an unsafe trait; this one only counts"
)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A tiny request of a two-tool conversation, as a trace of many small turns has.
fn record(line: usize, thread: usize) -> TraceRecord {
    let body = json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 16,
        "metadata": {"user_id": format!("user-{thread}")},
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"name": "a", "description": "Tool A.", "input_schema": {"type": "object"}},
            {"name": "b", "description": "Tool B.", "input_schema": {"type": "object"}},
        ],
    });
    records::record(
        line,
        body,
        // Claude's tool-use prompt (346 tokens) is billed in the input and left out of the
        // calibration: a plausible bill for a tiny two-tool request.
        Some(Usage {
            input: 400,
            cache_write: 0,
            cache_read: 0,
            ..Usage::default()
        }),
    )
}

/// A sink that only counts the turns it is given.
struct Count(usize);

impl TurnSink for Count {
    fn turn(&mut self, _: &TurnFacts, rows: &[StrategyTurn]) {
        assert_eq!(rows.len(), Strategy::ALL.len());
        self.0 += 1;
    }
}

/// The peak live heap while `turns` turns of `threads` conversations are analysed by every
/// strategy, into a sink (`spooled`) or kept in the report, above what was live before.
fn peak_over(turns: usize, threads: usize, counter: &TokenCounter, spooled: bool) -> usize {
    let mut sink = Count(0);
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    {
        let mut analyzer = Analyzer::new(&Strategy::ALL[..], &Settings::default(), counter, None);
        if spooled {
            analyzer = analyzer.with_sink(Box::new(&mut sink));
        }
        for line in 1..=turns {
            analyzer.push(record(line, line % threads)).unwrap();
        }
        assert_eq!(analyzer.kept_turns(), turns);
        let report = analyzer.finish(TraceInfo::default());
        let kept = if spooled { 0 } else { turns };
        assert_eq!(report.turns.len(), kept);
        assert!(report.strategies.iter().all(|s| s.per_turn.len() == kept));
        assert_eq!(report.trace.turns, turns);
        assert_eq!(report.calibration.map(|c| c.turns), Some(turns));
    }
    assert_eq!(sink.0, if spooled { turns } else { 0 });
    PEAK.load(Ordering::Relaxed) - before
}

#[test]
fn session_memory_does_not_grow_with_its_turns() {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let counter = TokenCounter::new(Encoding::O200kBase);
    // Warm the encoder and the count cache: they are built once, whatever the trace.
    let _ = peak_over(50, 1, &counter, true);
    let small = peak_over(1_000, 1, &counter, true);
    let large = peak_over(11_000, 1, &counter, true);
    let per_turn = large.saturating_sub(small) / 10_000;
    assert!(
        per_turn < 16,
        "{per_turn} bytes a turn ({small} bytes at 1,000 turns, {large} at 11,000)"
    );
    // The measure sees growth: rows kept in the report (the TUI's way, and `session`'s before)
    // cost about 6 KB a turn here.
    let small = peak_over(1_000, 1, &counter, false);
    let large = peak_over(11_000, 1, &counter, false);
    let kept = large.saturating_sub(small) / 10_000;
    assert!(kept > 1_000, "rows kept: only {kept} bytes a turn");
}

#[test]
fn session_memory_grows_with_threads_not_with_their_turns() {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let counter = TokenCounter::new(Encoding::O200kBase);
    let _ = peak_over(50, 1, &counter, true);
    let small = peak_over(1_200, 600, &counter, true);
    let large = peak_over(6_000, 600, &counter, true);
    let per_turn = large.saturating_sub(small) / 4_800;
    assert!(
        per_turn < 16,
        "{per_turn} bytes a turn over 600 threads ({small} bytes at 1,200 turns, {large} at 6,000)"
    );
}
