//! One `--set` key, described once: its name, help, kind of value, the strategies whose
//! projections it changes, and how it reads and writes [`Settings`]. Each strategy module
//! declares the keys it owns (`vtcode::SETTINGS`, `a3s::SETTINGS`, …);
//! [`crate::strategies::registry`] composes them into [`Settings::KEYS`].
//!
//! The helpers below parse and print values the way every key writes them, so two keys of one
//! kind accept the same text and refuse it with the same words.

use crate::settings::{Multiplier, Settings};
use crate::strategy::Strategy;

/// What a key's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// Free text.
    Text,
    /// Comma-separated names.
    Names,
    /// A whole number.
    Number,
    /// A cost multiplier, or `auto`.
    Multiplier,
    /// A duration (`300`, `300s`, `5m`, `1h`, `250ms`).
    Duration,
    /// One of a few values, in the order an editor cycles through them.
    Choice(&'static [&'static str]),
}

/// One key of [`Settings`], as `--set KEY=VALUE` names it.
#[derive(Debug, Clone, Copy)]
pub struct SettingKey {
    /// The key, as written in `--set K=V`.
    pub key: &'static str,
    /// What it does and what it accepts.
    pub help: &'static str,
    /// What its value is.
    pub kind: ValueKind,
    /// The strategies whose projections it changes (none for the session cost model's keys).
    pub affects: &'static [Strategy],
    /// The strategies for which it is the setting that matters most: the one a strategy's
    /// banner names and the settings editor opens on.
    pub first_for: &'static [Strategy],
    /// Its value in `settings`, as `set` accepts it; `None` while unset with no value that
    /// reproduces it (`adaptive.prompt`: the conversation is the context).
    pub read: fn(&Settings) -> Option<String>,
    /// Set it from `value`, or say what it accepts.
    pub write: fn(&mut Settings, &str) -> Result<(), &'static str>,
}

impl SettingKey {
    /// Its value in `settings`, as `set` accepts it (empty while unset).
    pub fn value(&self, settings: &Settings) -> String {
        (self.read)(settings).unwrap_or_default()
    }

    /// Its value in [`Settings::default`].
    pub fn default_value(&self) -> String {
        self.value(&Settings::default())
    }

    /// Whether it changes `strategy`'s projections.
    pub fn affects(&self, strategy: Strategy) -> bool {
        self.affects.contains(&strategy)
    }

    /// The values an editor cycles through, for a key of a few values.
    pub fn choices(&self) -> Option<&'static [&'static str]> {
        match self.kind {
            ValueKind::Choice(values) => Some(values),
            _ => None,
        }
    }
}

/// A whole number (surrounding blanks allowed), or `Err(expected)`.
pub fn count(value: &str, expected: &'static str) -> Result<usize, &'static str> {
    value.trim().parse::<usize>().map_err(|_| expected)
}

/// A whole number above 0, or `Err(expected)`.
pub fn positive(value: &str, expected: &'static str) -> Result<usize, &'static str> {
    match value.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(expected),
    }
}

/// Comma-separated names, blanks trimmed, empty ones dropped.
pub fn names(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off`.
pub fn flag(value: &str) -> Result<bool, &'static str> {
    match value.trim() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err("true or false"),
    }
}

/// `auto` (or nothing) for the provider's default, else a multiplier from 0 to 100.
pub fn multiplier(value: &str) -> Result<Option<Multiplier>, &'static str> {
    match value.trim() {
        "auto" | "" => Ok(None),
        number => match number.parse::<f64>() {
            Ok(x) if x.is_finite() && (0.0..=100.0).contains(&x) => Ok(Some(Multiplier::new(x))),
            _ => Err("auto, or a number from 0 to 100"),
        },
    }
}

/// `auto` (or nothing) for "follows the release", else what `parse` reads; `expected` names
/// both.
pub fn auto_or(
    value: &str,
    parse: impl Fn(&str) -> Result<usize, &'static str>,
    expected: &'static str,
) -> Result<Option<usize>, &'static str> {
    match value.trim() {
        "auto" | "" => Ok(None),
        number => parse(number).map(Some).map_err(|_| expected),
    }
}

/// A value as [`auto_or`] reads it.
pub fn auto_text(value: Option<usize>) -> String {
    value.map_or("auto".into(), |n| n.to_string())
}

/// A multiplier as [`multiplier`] reads it.
pub fn multiplier_text(value: Option<Multiplier>) -> String {
    value.map_or("auto".into(), |m| m.to_string())
}

/// A duration as `cache.ttl` is written: `300`, `300s`, `5m`, `1h`, `250ms` (a bare number is
/// seconds), in milliseconds.
pub fn duration_ms(value: &str) -> Result<u64, &'static str> {
    let value = value.trim();
    let (number, scale) = if let Some(n) = value.strip_suffix("ms") {
        (n, 1)
    } else if let Some(n) = value.strip_suffix('s') {
        (n, 1000)
    } else if let Some(n) = value.strip_suffix('m') {
        (n, 60_000)
    } else if let Some(n) = value.strip_suffix('h') {
        (n, 3_600_000)
    } else {
        (value, 1000)
    };
    number
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or("a duration: 300, 300s, 5m, 1h or 250ms")
}

/// A duration in the largest unit that writes it exactly.
pub fn duration_text(ms: u64) -> String {
    match ms {
        0 => "0s".to_owned(),
        ms if ms % 3_600_000 == 0 => format!("{}h", ms / 3_600_000),
        ms if ms % 60_000 == 0 => format!("{}m", ms / 60_000),
        ms if ms % 1000 == 0 => format!("{}s", ms / 1000),
        ms => format!("{ms}ms"),
    }
}
