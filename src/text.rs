//! Text for people, shared by the CLI tables and the TUI: [`safe`] for every string that comes
//! from a capture, number formatting, and measuring, cutting, padding and wrapping by display
//! width; and [`SharedText`], the one allocation many outcomes and figures share for a tool's
//! name or a reason.
//!
//! Widths are measured per grapheme cluster, as ratatui and terminals draw them: `👍🏽` (a
//! thumb and its skin tone) is one 2-cell glyph, `⚠️` (a sign and its emoji selector) is 2
//! cells, `é` written as `e` plus a combining accent is 1; nothing here cuts inside a
//! cluster.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Capture text made safe to draw on one line: control, bidi and zero-width characters become
/// visible tokens (the library's sanitizer, the same the CLI uses).
pub fn safe(text: &str) -> String {
    crate::sanitize::visible(text).into_owned()
}

/// `12345` → `12,345`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Input-token equivalents (a cost), whole, with thousands separators.
pub fn money(x: f64) -> String {
    thousands(x.round().max(0.0) as usize)
}

/// US dollars, to the cent, or to four places under a cent.
pub fn dollars(usd: f64) -> String {
    if usd.abs() >= 0.01 {
        format!("${usd:.2}")
    } else {
        format!("${usd:.4}")
    }
}

/// A signed count with thousands separators.
pub fn signed(n: i64) -> String {
    let magnitude = thousands(n.unsigned_abs() as usize);
    if n < 0 {
        format!("-{magnitude}")
    } else {
        magnitude
    }
}

/// A saving as a percentage of `before` (`None` when `before` is zero).
pub fn saved_pct(before: usize, after: usize) -> Option<f64> {
    (before > 0).then(|| (before as f64 - after as f64) * 100.0 / before as f64)
}

/// `77.50%`, `-3.10%`, or `-` when there is nothing to compare with: two decimals, as the
/// matrix totals and every CLI table write a saving, so one figure reads the same everywhere.
pub fn pct(value: Option<f64>) -> String {
    match value {
        Some(v) if v.abs() < 0.005 => "0.00%".to_owned(),
        Some(v) => format!("{v:.2}%"),
        None => "-".to_owned(),
    }
}

/// Bytes in a short human form: `950 B`, `12.4 KB`, `3.1 MB`.
pub fn bytes(n: usize) -> String {
    if n < 1000 {
        format!("{n} B")
    } else if n < 1_000_000 {
        format!("{:.1} KB", n as f64 / 1000.0)
    } else {
        format!("{:.1} MB", n as f64 / 1_000_000.0)
    }
}

/// The clusters of `text` with the cells each takes.
fn clusters(text: &str) -> impl Iterator<Item = (&str, usize)> {
    text.graphemes(true).map(|g| (g, g.width()))
}

/// Display width of `text` in terminal cells.
pub fn width(text: &str) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    clusters(text).map(|(_, w)| w).sum()
}

/// `text` cut to at most `max` cells, with `…` when cut.
pub fn fit(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for (g, w) in clusters(text) {
        if used + w + 1 > max {
            break;
        }
        used += w;
        out.push_str(g);
    }
    out.push('…');
    out
}

/// `text` with its first `skip` cells removed (horizontal scrolling), never splitting a wide
/// character (a half-skipped one becomes a space).
pub fn skip_cells(text: &str, skip: usize) -> String {
    if skip == 0 {
        return text.to_owned();
    }
    let mut used = 0;
    let mut out = String::new();
    for (g, w) in clusters(text) {
        if used >= skip {
            out.push_str(g);
        } else if used + w > skip {
            out.push(' ');
        }
        used += w;
    }
    out
}

/// The longest start of `text` that fits in `cells` cells, cut between clusters (no `…`).
pub fn take_cells(text: &str, cells: usize) -> &str {
    let mut used = 0;
    for (i, g) in text.grapheme_indices(true) {
        let w = g.width();
        if used + w > cells {
            return &text[..i];
        }
        used += w;
    }
    text
}

/// `text` left-aligned and padded with spaces (or cut) to exactly `cells` cells.
pub fn pad(text: &str, cells: usize) -> String {
    let cut = fit(text, cells);
    let w = width(&cut);
    format!("{cut}{}", " ".repeat(cells.saturating_sub(w)))
}

/// `text` right-aligned in `cells` cells.
pub fn pad_left(text: &str, cells: usize) -> String {
    let cut = fit(text, cells);
    let w = width(&cut);
    format!("{}{cut}", " ".repeat(cells.saturating_sub(w)))
}

/// Ends a line where [`LongWords::Break`] breaks a word: it goes on on the next line.
pub const WRAP_MARK: char = '↪';

/// What [`wrap`] does with a word longer than a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongWords {
    /// Cut it across as many lines as it needs (a screen has no more room), each piece but the
    /// last ending in [`WRAP_MARK`].
    Break,
    /// Keep it whole on its own line (a table into a pager: a name stays searchable).
    Keep,
}

/// `text` wrapped at spaces: the first line at most `first` cells, the others at most `rest`;
/// lines carry no trailing space. The one word-wrap of the project (TUI panes, CLI tables and
/// notes).
pub fn wrap_hanging(text: &str, first: usize, rest: usize, long: LongWords) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    // No word placed on the line yet (leading spaces are words too: `"  x"` keeps its indent).
    let mut fresh = true;
    let room = |lines: &Vec<String>| if lines.is_empty() { first } else { rest }.max(1);
    for word in text.split(' ') {
        let mut word = word;
        let mut w = width(word);
        if !fresh && used + 1 + w > room(&lines) {
            lines.push(std::mem::take(&mut line));
            used = 0;
            fresh = true;
        }
        if long == LongWords::Break {
            // The line is fresh here: a word that does not fit starts a line of its own, and
            // each piece but the last ends in `↪` (a name is never split without a mark),
            // after its last `_ - / . , :` when it has one (between the parts of a name).
            while w > room(&lines) {
                let mut head = take_cells(word, room(&lines) - 1);
                if let Some(at) = head.rfind(['_', '-', '/', '.', ',', ':']) {
                    head = &head[..at + 1];
                }
                if head.is_empty() {
                    // No room for a cluster and the mark: the cluster gets a line of its own.
                    head = word.graphemes(true).next().unwrap_or("");
                    lines.push(head.to_owned());
                } else {
                    lines.push(format!("{head}{WRAP_MARK}"));
                }
                word = &word[head.len()..];
                w = width(word);
            }
        }
        if !fresh {
            line.push(' ');
            used += 1;
        }
        line.push_str(word);
        used += w;
        fresh = false;
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` wrapped at spaces into lines of at most `cells` cells (see [`wrap_hanging`]).
pub fn wrap(text: &str, cells: usize, long: LongWords) -> Vec<String> {
    wrap_hanging(text, cells, cells, long)
}

/// Text that many outcomes and figures hold (a tool's name, a reason): one allocation however
/// many projections name the tool. Reads, compares and serializes like a `str`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct SharedText(Arc<str>);

impl SharedText {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for SharedText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for SharedText {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> SharedText {
        SharedText(Arc::from(text))
    }
}

impl From<String> for SharedText {
    fn from(text: String) -> SharedText {
        SharedText(Arc::from(text))
    }
}

impl PartialEq<str> for SharedText {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for SharedText {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for SharedText {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<SharedText> for str {
    fn eq(&self, other: &SharedText) -> bool {
        *self == *other.0
    }
}

impl PartialEq<SharedText> for &str {
    fn eq(&self, other: &SharedText) -> bool {
        **self == *other.0
    }
}

impl PartialEq<SharedText> for String {
    fn eq(&self, other: &SharedText) -> bool {
        **self == *other.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(signed(-1234), "-1,234");
    }

    #[test]
    fn money_is_whole_and_dollars_keep_what_a_cent_hides() {
        assert_eq!(money(3956.5), "3,957");
        assert_eq!(money(-2.0), "0");
        assert_eq!(dollars(0.011879), "$0.01");
        assert_eq!(dollars(0.004213), "$0.0042");
    }

    #[test]
    fn fit_cuts_by_cells() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 3), "abc");
        assert_eq!(fit("日本語", 4), "日…");
        assert_eq!(fit("abc", 0), "");
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad_left("ab", 4), "  ab");
        assert_eq!(skip_cells("日本", 1), " 本");
    }

    #[test]
    fn widths_are_per_grapheme_cluster() {
        // A sign with its emoji selector draws 2 cells, as ratatui and terminals draw it.
        assert_eq!(width("warn⚠️_tool"), 11);
        // A thumb with a skin tone is one 2-cell glyph, not 4.
        assert_eq!(width("👍🏽"), 2);
        assert_eq!(width("e\u{301}te\u{301}"), 3);
        // Cutting never separates a character from its modifier or accent.
        assert_eq!(fit("👍🏽👍🏽x", 4), "👍🏽…");
        assert_eq!(fit("e\u{301}e\u{301}e\u{301}", 2), "e\u{301}…");
        assert_eq!(take_cells("ab👍🏽c", 3), "ab");
        assert_eq!(take_cells("ab👍🏽c", 4), "ab👍🏽");
        assert_eq!(skip_cells("👍🏽ab", 1), " ab");
        assert_eq!(pad("warn⚠️", 8), "warn⚠️  ");
        // Every cut of these names fits and starts the name.
        for name in [
            "warn⚠️_tool",
            "👍🏽_thumbs_👍🏽",
            "cafe\u{301}_menu",
            "日本語のツール",
        ] {
            for cells in 0..16 {
                let cut = fit(name, cells);
                assert!(width(&cut) <= cells, "{name} in {cells}: {cut}");
                let kept = cut.trim_end_matches('…');
                assert!(name.starts_with(kept), "{name}: {cut}");
            }
        }
    }

    #[test]
    fn one_wrap_for_every_pane_and_table() {
        assert_eq!(
            wrap("the quick brown fox", 9, LongWords::Keep),
            ["the quick", "brown fox"]
        );
        assert_eq!(
            wrap("a mcp__github__create_issue b", 8, LongWords::Keep),
            ["a", "mcp__github__create_issue", "b"]
        );
        assert_eq!(
            wrap("a mcp__github__create b", 8, LongWords::Break),
            ["a", "mcp__↪", "github_↪", "_create", "b"]
        );
        // Without a joint, a piece is cut where the mark still fits.
        assert_eq!(
            wrap("abcdefghij", 4, LongWords::Break),
            ["abc↪", "def↪", "ghij"]
        );
        // No room for a cluster and the mark: the cluster alone.
        assert_eq!(wrap("abc", 1, LongWords::Break), ["a", "b", "c"]);
        assert_eq!(
            wrap_hanging("one two three four", 7, 5, LongWords::Keep),
            ["one two", "three", "four"]
        );
        assert_eq!(wrap("", 5, LongWords::Break), [""]);
        assert_eq!(wrap("  x y", 4, LongWords::Keep), ["  x", "y"]);
        // Clusters stay whole when a long word is broken; no line is wider than asked.
        let lines = wrap("👍🏽👍🏽👍🏽 warn⚠️⚠️⚠️", 5, LongWords::Break);
        assert_eq!(lines, ["👍🏽👍🏽↪", "👍🏽", "warn↪", "⚠️⚠️↪", "⚠️"]);
        for l in &lines {
            assert!(width(l) <= 5, "{l}");
        }
    }

    #[test]
    fn percentages_and_bytes() {
        assert_eq!(pct(saved_pct(200, 50)), "75.00%");
        assert_eq!(pct(saved_pct(100, 103)), "-3.00%");
        assert_eq!(pct(saved_pct(8168, 3571)), "56.28%");
        assert_eq!(pct(saved_pct(0, 5)), "-");
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(12_400), "12.4 KB");
    }
}
