//! Timestamps as traces write them: ISO 8601 / RFC 3339 text, or epoch seconds or milliseconds.
//!
//! A small exact parser rather than a date crate: traces only carry these two forms, and the
//! conversion to milliseconds is a few lines of calendar arithmetic (no time zones database, no
//! locale, nothing to configure).

use serde_json::Value;

/// Epoch values at or above this magnitude are milliseconds: 1e11 seconds is the year 5138,
/// while 1e11 milliseconds is 1973, so every real trace falls clearly on one side.
const MILLIS_THRESHOLD: f64 = 1e11;

/// A record's timestamp field: the text as written and, when it can be read, milliseconds since
/// the Unix epoch. `None` when the value is neither a string nor a number.
pub(crate) fn from_value(value: &Value) -> Option<(String, Option<i64>)> {
    match value {
        Value::String(text) => Some((text.clone(), parse(text))),
        Value::Number(number) => Some((number.to_string(), number.as_f64().and_then(epoch))),
        _ => None,
    }
}

/// Milliseconds since the Unix epoch for ISO 8601 text or an epoch number written as text.
pub fn parse(text: &str) -> Option<i64> {
    let text = text.trim();
    parse_iso8601(text).or_else(|| text.parse::<f64>().ok().and_then(epoch))
}

/// Epoch seconds (with or without a fraction) or milliseconds, told apart by magnitude.
fn epoch(value: f64) -> Option<i64> {
    if !value.is_finite() || value.abs() > 1e17 {
        return None;
    }
    let millis = if value.abs() >= MILLIS_THRESHOLD {
        value
    } else {
        value * 1000.0
    };
    Some(millis.round() as i64)
}

/// `YYYY-MM-DD[T ]HH:MM[:SS[.fraction]][Z|±HH[:]MM|±HH]`. Without an offset the time is taken
/// as UTC (what proxies and HAR writers mean when they leave it out). Fractions below a
/// millisecond are truncated.
pub fn parse_iso8601(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let digits = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter().try_fold(0i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    let year = digits(0, 4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let month = digits(5, 2)?;
    let day = digits(8, 2)?;
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) || b.get(13) != Some(&b':') {
        return None;
    }
    let hour = digits(11, 2)?;
    let minute = digits(14, 2)?;
    let mut at = 16;
    let mut second = 0;
    let mut millis = 0;
    if b.get(at) == Some(&b':') {
        second = digits(at + 1, 2)?;
        at += 3;
        if matches!(b.get(at), Some(b'.' | b',')) {
            at += 1;
            let start = at;
            while b.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            if at == start {
                return None;
            }
            let kept = (at - start).min(3);
            millis = digits(start, kept)? * 10i64.pow(3 - kept as u32);
        }
    }
    let offset_minutes = match b.get(at) {
        None => 0,
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let hours = digits(at + 1, 2)?;
            let minutes = match &b[at + 3..] {
                [] => 0,
                [b':', ..] if b.len() == at + 6 => digits(at + 4, 2)?,
                _ if b.len() == at + 5 => digits(at + 3, 2)?,
                _ => return None,
            };
            if hours > 23 || minutes > 59 {
                return None;
            }
            let total = hours * 60 + minutes;
            if sign == b'-' { -total } else { total }
        }
        _ => return None,
    };
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1000 + millis)
}

/// An HTTP `Date` header (RFC 9110's IMF-fixdate, `Tue, 17 Feb 2026 02:09:16 GMT`), in
/// milliseconds since the Unix epoch: what a cassette keeps of when its call was answered.
pub fn parse_http_date(text: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let mut parts = text.split_ascii_whitespace();
    let weekday = parts.next()?;
    if !weekday.ends_with(',') {
        return None;
    }
    let day: i64 = parts.next()?.parse().ok()?;
    let month = parts.next()?;
    let month = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(month))? as i64 + 1;
    let year = parts.next()?;
    let clock = parts.next()?;
    if year.len() != 4 || parts.next() != Some("GMT") || parts.next().is_some() {
        return None;
    }
    parse_iso8601(&format!("{year}-{month:02}-{day:02}T{clock}Z"))
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Milliseconds since the Unix epoch as people read them, in UTC: `2025-06-01 12:30:45`.
pub fn format_utc(millis: i64) -> String {
    let seconds = millis.div_euclid(1000);
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The inverse of [`days_from_civil`]: (year, month, day) of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting_inverts_parsing() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00");
        assert_eq!(format_utc(1_748_781_045_000), "2025-06-01 12:30:45");
        assert_eq!(format_utc(-1_000), "1969-12-31 23:59:59");
        // Days across years 0004 to 9910 (what a four-digit year holds) round-trip through the
        // parser, leap years and century rules included.
        for day in (-718_000i64..2_900_000).step_by(997) {
            let millis = day * 86_400_000 + 45_296_789;
            let text = format_utc(millis);
            let iso = format!("{}T{}Z", &text[..10], &text[11..]);
            assert_eq!(parse_iso8601(&iso), Some(millis - 789), "{text}");
        }
    }

    #[test]
    fn iso_forms() {
        assert_eq!(parse_iso8601("1970-01-01T00:00:00Z"), Some(0));
        // 2025-06-01T12:30:45.123Z: 20240 days after the epoch.
        let expected = (20_240 * 86_400 + 12 * 3_600 + 30 * 60 + 45) * 1000 + 123;
        assert_eq!(parse_iso8601("2025-06-01T12:30:45.123Z"), Some(expected));
        assert_eq!(parse_iso8601("2025-06-01T12:30:45.123456Z"), Some(expected));
        assert_eq!(
            parse_iso8601("2025-06-01T14:30:45.123+02:00"),
            Some(expected)
        );
        assert_eq!(
            parse_iso8601("2025-06-01T07:30:45.123-0500"),
            Some(expected)
        );
        assert_eq!(parse_iso8601("2025-06-01 12:30:45.123"), Some(expected));
        assert_eq!(parse_iso8601("2025-06-01T12:30Z"), Some(expected - 45_123));
        assert_eq!(
            parse_iso8601("2024-02-29T00:00:00Z"),
            Some(19_782 * 86_400_000)
        );
        assert_eq!(parse_iso8601("1969-12-31T23:59:59Z"), Some(-1000));
    }

    #[test]
    fn http_dates() {
        // 2025-06-01T12:30:45Z, as a server's `Date` header writes it.
        let expected = (20_240 * 86_400 + 12 * 3_600 + 30 * 60 + 45) * 1000;
        assert_eq!(
            parse_http_date("Sun, 01 Jun 2025 12:30:45 GMT"),
            Some(expected)
        );
        assert_eq!(
            parse_http_date("Sun, 1 jun 2025 12:30:45 GMT"),
            Some(expected)
        );
        for bad in [
            "",
            "01 Jun 2025 12:30:45 GMT",
            "Sun, 01 Jun 2025 12:30:45 PST",
            "Sun, 31 Jun 2025 12:30:45 GMT",
            "Sun, 01 Jux 2025 12:30:45 GMT",
            "Sun, 01 Jun 25 12:30:45 GMT",
            "Sun, 01 Jun 2025 12:30:45 GMT extra",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn iso_rejects() {
        for bad in [
            "",
            "2025-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2025-06-01",
            "2025-06-01T24:00:00Z",
            "2025-06-01T12:30:45.Z",
            "2025-06-01T12:30:45Zjunk",
            "2025-06-01T12:30:45+2",
            "yesterday",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }

    #[test]
    fn epochs() {
        assert_eq!(parse("1748781045"), Some(1_748_781_045_000));
        assert_eq!(parse("1748781045.5"), Some(1_748_781_045_500));
        assert_eq!(parse("1748781045123"), Some(1_748_781_045_123));
        assert_eq!(
            from_value(&serde_json::json!(1748781045.25)),
            Some(("1748781045.25".to_owned(), Some(1_748_781_045_250)))
        );
        assert_eq!(from_value(&serde_json::json!(null)), None);
        assert_eq!(parse("NaN"), None);
    }
}
