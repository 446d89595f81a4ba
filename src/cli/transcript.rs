//! `toolprism session TRANSCRIPT`: a Claude Code transcript's calls, cache and breaks
//! (`toolprism::session::transcript`), printed; `--json` is the report as it is.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use toolprism::sanitize::visible;
use toolprism::session::transcript::{self, BreakCause, Transcript, TranscriptTurn};
use toolprism::settings::Settings;
use toolprism::text::{fit, pad, thousands};

use super::{Failure, Output};

/// How often a transcript with nothing new is looked at again.
const POLL: Duration = Duration::from_millis(100);

/// `session --follow TRANSCRIPT`: one row per model call as its first line is written (the
/// turns' table of `session`), bad lines named on standard error and skipped, until Ctrl-C or
/// SIGTERM; then the totals of what was read.
pub(super) fn follow(
    path: &Path,
    thread: Option<&str>,
    settings: &Settings,
) -> Result<Output, Failure> {
    let failure =
        |e: toolprism::error::FileError| Failure::new(visible(&e.to_string()).into_owned());
    let mut following = transcript::Following::open(path, settings).map_err(failure)?;
    let name = visible(following.name()).into_owned();
    let int = super::interrupt::take_over();
    let term = Arc::new(AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGTERM, term.clone());
    // Whether it was written: a reader gone (`| head`) ends the following.
    let say = |text: String| {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .is_ok()
    };
    // The first look before anything is printed: a file that cannot be followed (gzip) is
    // refused in one line.
    let mut first = Some(following.poll().map_err(failure)?);
    let mut open = say(format!(
        "following {name} (Ctrl-C stops)\n{}\n{}\n",
        transcript::NO_BODIES,
        header()
    ));
    let mut calls = 0;
    while open && !int.load(Ordering::Relaxed) && !term.load(Ordering::Relaxed) {
        let polled = match first.take() {
            Some(polled) => polled,
            None => following.poll().map_err(failure)?,
        };
        for (file, at, why) in &polled.bad {
            eprintln!(
                "toolprism: {}: {at}: {} (skipped)",
                visible(file),
                visible(why)
            );
        }
        let mut text = String::new();
        for turn in polled
            .turns
            .iter()
            .filter(|t| thread.is_none_or(|k| t.thread == k))
        {
            calls += 1;
            text.push_str(&row(turn));
            text.push('\n');
        }
        if text.is_empty() && polled.bad.is_empty() {
            std::thread::sleep(POLL);
        } else {
            open = say(text);
        }
    }
    let mut report = following.report();
    if let Some(thread) = thread {
        report.threads.retain(|t| t.thread == thread);
    }
    let mut output = Output::text(format!("\n{}", totals(&report)));
    output.stderr = format!(
        "toolprism: {name}: followed {}\n",
        count(calls, "model call")
    );
    if term.load(Ordering::Relaxed) {
        output.status = 143;
    }
    Ok(output)
}

/// Read and print a transcript, or each of a folder's (one session a file; `--json`: an
/// array of reports), keeping only `thread`'s turns when one is named.
pub(super) fn run(
    files: &[PathBuf],
    json: bool,
    skip_bad: bool,
    thread: Option<&str>,
    settings: &Settings,
) -> Result<Output, Failure> {
    let mut reports = Vec::new();
    for path in files {
        reports.push(read(path, skip_bad, thread, settings)?);
    }
    if json {
        let value = match reports.as_slice() {
            [one] => serde_json::to_string_pretty(&one.1),
            _ => serde_json::to_string_pretty(&reports.iter().map(|r| &r.1).collect::<Vec<_>>()),
        }
        .map_err(|e| Failure::new(e.to_string()))?;
        return Ok(Output::text(
            toolprism::sanitize::json_for_terminal(&value).into_owned() + "\n",
        ));
    }
    let texts: Vec<String> = reports.iter().map(|(name, r)| text(name, r)).collect();
    Ok(Output::text(texts.join("\n")))
}

/// One transcript read, named as the user gave it.
fn read(
    path: &Path,
    skip_bad: bool,
    thread: Option<&str>,
    settings: &Settings,
) -> Result<(String, Transcript), Failure> {
    let mut report = transcript::read(path, skip_bad, settings)
        .map_err(|e| Failure::new(visible(&e.to_string()).into_owned()))?;
    let name = visible(&path.to_string_lossy()).into_owned();
    if report.turns.is_empty() {
        return Err(Failure::new(format!(
            "{name}: a Claude Code session transcript with no model call in it"
        )));
    }
    if let Some(thread) = thread {
        report.turns.retain(|t| t.thread == thread);
        report.threads.retain(|t| t.thread == thread);
        if report.turns.is_empty() {
            return Err(Failure::new(format!(
                "{name}: no thread `{}` (the threads are listed by `toolprism session {name}`)",
                visible(thread)
            )));
        }
    }
    Ok((name, report))
}

fn text(name: &str, r: &Transcript) -> String {
    let mut out = String::new();
    let release = match r.versions.as_slice() {
        [] => String::new(),
        [one] => format!(", Claude Code {}", visible(one)),
        many => format!(", Claude Code {}", visible(&many.join(", "))),
    };
    let _ = writeln!(
        out,
        "{name}: Claude Code session transcript{release}: {} in {} from {} ({} read once)",
        count(r.turns.len(), "model call"),
        count(r.threads.len(), "thread"),
        count(r.lines, "line"),
        count(r.repeated, "repeated usage line")
    );
    let _ = writeln!(out, "{}", transcript::NO_BODIES);
    let _ = writeln!(out, "\n{}", header());
    for t in &r.turns {
        let _ = writeln!(out, "{}", row(t));
    }
    out.push('\n');
    out.push_str(&totals(r));
    out
}

/// The turns' table header.
fn header() -> String {
    format!(
        "{:>4}  {:<28}  {:<28}  {:>8}  {:>9}  {:>9}  {:>9}  {:>7}  cache    note",
        "turn", "thread", "model", "input", "read", "write 5m", "write 1h", "output"
    )
}

/// The threads' and the session's totals, and what was not read.
fn totals(r: &Transcript) -> String {
    let mut out = String::new();
    for t in &r.threads {
        let _ = writeln!(
            out,
            "thread {}: {}, read {}, written {}, {}",
            visible(&t.thread),
            count(t.turns, "call"),
            big(t.read),
            big(t.write),
            count(t.breaks, "break")
        );
    }
    let breaks_usd = match r.breaks_usd {
        Some(u) if r.breaks > 0 => format!(", ${u:.4} over reading"),
        _ => String::new(),
    };
    let _ = writeln!(out, "session breaks: {}{breaks_usd}", r.breaks);
    if let (Some(usd), Some(none)) = (r.usd, r.usd_without_cache) {
        let _ = writeln!(
            out,
            "session input cost: ${usd:.4} (without cache: ${none:.4})"
        );
    } else {
        let _ = writeln!(
            out,
            "session input cost: not priced (a model without a price)"
        );
    }
    if r.compactions > 0 {
        let _ = writeln!(out, "compactions: {}", r.compactions);
    }
    if r.synthetic > 0 {
        let _ = writeln!(
            out,
            "{} Claude Code wrote itself (<synthetic>): not calls",
            count(r.synthetic, "line")
        );
    }
    if r.skipped > 0 {
        let _ = writeln!(out, "{} skipped", count(r.skipped, "bad line"));
    }
    if r.torn_last_line {
        let _ = writeln!(
            out,
            "the last line is cut short (still being written?): left out"
        );
    }
    out
}

fn row(t: &TranscriptTurn) -> String {
    let o = t.observed;
    let split = |v: Option<u64>| v.map_or("-".to_owned(), big);
    let mut note = Vec::new();
    if let Some(b) = &t.break_ {
        let cause = match b.cause {
            BreakCause::Expired => "expired",
            BreakCause::Rewritten => "re-written",
        };
        let usd = b.usd.map_or(String::new(), |u| format!(", ${u:.4}"));
        note.push(format!(
            "break ({cause}): {} lost, {} re-written{usd}",
            big(b.lost),
            big(b.rewritten)
        ));
    }
    if let Some(d) = &t.diagnosis {
        let missed = d
            .missed
            .map_or(String::new(), |m| format!(" ({} missed)", big(m)));
        note.push(format!("diagnosis: {}{missed}", d.reason));
    }
    format!(
        "{:>4}  {}  {}  {:>8}  {:>9}  {:>9}  {:>9}  {:>7}  {:<7}  {}",
        t.turn,
        // Names from the file, cut with a mark to their column.
        pad(&fit(&visible(&t.thread), 28), 28),
        pad(&fit(&visible(&t.model), 28), 28),
        big(o.input),
        big(o.read),
        split(t.write_5m),
        split(t.write_1h),
        big(t.output),
        o.state,
        note.join("; ")
    )
    .trim_end()
    .to_owned()
}

/// A token figure with thousands separators, as every other table prints them.
fn big(n: u64) -> String {
    thousands(usize::try_from(n).unwrap_or(usize::MAX))
}

/// `1 call`, `2 calls`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
