//! Text for people, shared by the CLI tables and the TUI: [`safe`] for every string that comes
//! from a capture, number formatting, and cutting and padding by display width.

use unicode_width::UnicodeWidthChar;

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

/// `77.5%`, `-3.1%`, or `-` when there is nothing to compare with.
pub fn pct(value: Option<f64>) -> String {
    match value {
        Some(v) if v.abs() < 0.05 => "0.0%".to_owned(),
        Some(v) => format!("{v:.1}%"),
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

/// Display width of `text` in terminal cells.
pub fn width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
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
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        used += w;
        out.push(c);
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
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used >= skip {
            out.push(c);
        } else if used + w > skip {
            out.push(' ');
        }
        used += w;
    }
    out
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
    fn percentages_and_bytes() {
        assert_eq!(pct(saved_pct(200, 50)), "75.0%");
        assert_eq!(pct(saved_pct(100, 103)), "-3.0%");
        assert_eq!(pct(saved_pct(0, 5)), "-");
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(12_400), "12.4 KB");
    }
}
