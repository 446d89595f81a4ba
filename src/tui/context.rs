//! The context every screen of the inspector reads and none owns: the capture, the settings
//! and encoding in force, the figures the worker measured (the memo), the terminal's size and
//! the theme. Screens draw and answer keys over a `&Context`; only the app's update changes it.

use std::sync::Arc;

use serde_json::Value;

use crate::capture::Capture;
use crate::measure::Encoding;
use crate::memo::Memo;
use crate::projection::{Projection, Status};
use crate::report::{CaptureJson, StrategyFigures};
use crate::settings::Settings;
use crate::strategy::Strategy;
use crate::tool;

use super::theme::Theme;
use super::worker::RequestSummary;

/// What every screen reads.
pub struct Context {
    /// The capture.
    pub capture: Arc<Capture>,
    /// Where it was read from, as given.
    pub path: String,
    /// The current settings.
    pub settings: Settings,
    /// The same settings shared: the memo's key.
    pub(crate) settings_key: Arc<Settings>,
    /// The current encoding.
    pub encoding: Encoding,
    /// Bumped on every settings or encoding change.
    pub generation: u64,
    /// Every projection, figures and capture count the worker has sent, under their keys.
    pub(crate) memo: Memo,
    /// Bytes of the capture's `tools` array as captured (its own layout).
    pub(crate) capture_bytes: usize,
    /// The compact JSON of the capture's `tools` array, in bytes: the text its tokens count.
    pub(crate) capture_compact_bytes: usize,
    /// Background work in progress: done, total, what.
    pub(crate) progress: Option<(usize, usize, &'static str)>,
    /// The settings the inspector started with (`q` asks before dropping changes to them).
    pub(crate) initial_settings: Settings,
    /// The settings (as their key) and encoding in force before the last change: the settings
    /// editor shows its figures as before → after.
    pub(crate) settings_before: Option<(Arc<Settings>, Encoding)>,
    /// The folder a relative export path is written in (shown in the export dialog).
    pub cwd: String,
    /// What `~` stands for in an export path.
    pub home: Option<String>,
    /// What the view reads (the capture, the trace, standard input): never an export target.
    pub inputs: crate::export::Inputs,
    /// The terminal's size.
    pub(crate) size: (u16, u16),
    /// The styles.
    pub(crate) theme: Theme,
    /// Opened from a trace's session view (one turn's request): Esc on the home screen goes
    /// back to it instead of staying.
    pub(crate) nested: bool,
    /// What reaching each MCP server gave, when `toolprism mcp` opened the view (else empty):
    /// the overview lists them and the grouped matrix shows an unlisted one as a group.
    pub servers: Vec<crate::mcp::status::ServerStatus>,
    /// Frames of the spinner so far.
    pub(crate) spinner: usize,
    pub(crate) search_text: Vec<String>,
    pub(crate) names: Vec<String>,
    hidden: Vec<usize>,
}

impl Context {
    /// The context of an inspector on `capture`.
    pub fn new(
        capture: Arc<Capture>,
        path: String,
        settings: Settings,
        encoding: Encoding,
        color: bool,
    ) -> Context {
        let hidden = capture.tools().iter().map(hidden_chars).collect();
        let names = capture
            .tools()
            .iter()
            .map(|t| tool::name(t).unwrap_or("").to_owned())
            .collect();
        // One serialization of the capture's entries serves the search and the byte total.
        let json = CaptureJson::new(&capture);
        let entries: Vec<&str> = json.entries.iter().map(String::as_str).collect();
        let capture_bytes = crate::report::capture_tools_bytes(&capture, &entries);
        let capture_compact_bytes = crate::report::array_bytes(&entries, capture.has_tools_key());
        let search_text = entries.iter().map(|e| e.to_lowercase()).collect();
        let settings_key = Arc::new(settings.clone());
        Context {
            capture,
            path,
            initial_settings: settings.clone(),
            settings_before: None,
            settings,
            settings_key,
            encoding,
            generation: 0,
            memo: Memo::new(),
            capture_bytes,
            capture_compact_bytes,
            progress: None,
            cwd: std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
            home: std::env::var("HOME").ok().filter(|h| !h.is_empty()),
            size: (80, 24),
            theme: Theme::new(color),
            nested: false,
            servers: Vec::new(),
            inputs: crate::export::Inputs::new(),
            spinner: 0,
            search_text,
            names,
            hidden,
        }
    }

    /// A strategy's projection under the current settings, when ready.
    pub fn projection(&self, strategy: Strategy) -> Option<&Arc<Projection>> {
        self.memo
            .projection(&(strategy, self.settings_key.clone()))
            .map(|(p, _)| p)
    }

    /// A strategy's request-level comparison, when ready.
    pub fn request(&self, strategy: Strategy) -> Option<&RequestSummary> {
        self.memo
            .projection(&(strategy, self.settings_key.clone()))
            .map(|(_, r)| r)
    }

    /// A strategy's figures under the current settings and encoding, when measured.
    pub fn figures(&self, strategy: Strategy) -> Option<&Arc<StrategyFigures>> {
        self.memo
            .figures(&(strategy, self.settings_key.clone(), self.encoding))
    }

    /// A strategy's figures under other settings (their key) and encoding, when measured (the
    /// cache keeps every one measured).
    pub fn figures_under(
        &self,
        strategy: Strategy,
        settings_key: &Arc<Settings>,
        encoding: Encoding,
    ) -> Option<&Arc<StrategyFigures>> {
        self.memo
            .figures(&(strategy, settings_key.clone(), encoding))
    }

    /// The capture's tokens under the current encoding, when counted.
    pub fn capture_tokens(&self) -> Option<usize> {
        self.memo.capture_tokens(self.encoding)
    }

    /// A strategy's tokens before and after, each named by its measure: `8,168 → 3,571 tokens
    /// sent (saved 56.28%)`; when the provider defers entries, what the saving is on (in
    /// context) and what is sent, apart: `8,168 → 21 tokens in context (saved 99.74%), 8,079
    /// sent`. A strategy that did not apply saves nothing (`n/a`). `None` until measured.
    pub fn tokens_headline(&self, strategy: Strategy) -> Option<String> {
        let f = self.figures(strategy)?;
        let sent_before = self.capture_tokens()?;
        let (context, sent) = (f.in_context()?, f.total_tokens?);
        let saved = f
            .shown_saving()
            .map_or_else(|| "n/a".to_owned(), |(_, p)| crate::text::pct(Some(p)));
        let context_before = self
            .figures(Strategy::Original)
            .and_then(|o| o.in_context())
            .unwrap_or(sent_before);
        Some(if context == sent && context_before == sent_before {
            format!(
                "{} → {} tokens sent (saved {saved})",
                crate::text::thousands(sent_before),
                crate::text::thousands(sent)
            )
        } else {
            format!(
                "{} → {} tokens in context (saved {saved}), {} sent",
                crate::text::thousands(context_before),
                crate::text::thousands(context),
                crate::text::thousands(sent)
            )
        })
    }

    /// Control, bidi and invisible characters in the original tool at `index` (shown as
    /// escapes, and flagged in the table so they are not missed).
    pub fn hidden_in(&self, index: usize) -> usize {
        self.hidden.get(index).copied().unwrap_or(0)
    }

    /// Whether the worker is busy for the current settings.
    pub fn is_busy(&self) -> bool {
        self.progress.is_some()
    }

    /// How many settings (and the encoding) differ from their defaults.
    pub fn settings_changed_from_default(&self) -> usize {
        let defaults = Settings::default();
        let keys = Settings::KEYS
            .iter()
            .filter(|k| self.settings.get(k.key) != defaults.get(k.key))
            .count();
        keys + usize::from(self.encoding != Encoding::default())
    }

    /// Whether the settings differ from the ones the inspector started with.
    pub fn settings_changed_since_start(&self) -> bool {
        self.settings != self.initial_settings
    }

    /// A strategy's refusal, when the host refuses the capture under it.
    pub fn refusal(&self, strategy: Strategy) -> Option<&str> {
        self.projection(strategy)?.refusal()
    }

    /// What an export of `strategy` writes: what `toolprism show` prints (the projected
    /// request body, or only its `tools` array), laid out as `layout` says.
    pub fn export_bytes(
        &self,
        strategy: Strategy,
        tools_only: bool,
        layout: crate::export::Layout,
    ) -> Option<Vec<u8>> {
        let projection = self.projection(strategy)?;
        Some(crate::export::render(&self.capture, projection, tools_only, layout).into_bytes())
    }

    /// Whether a strategy adds text or tools worth a look.
    pub fn has_added(&self, strategy: Strategy) -> bool {
        self.projection(strategy).is_some_and(|p| {
            p.added_text.is_some()
                || p.outcomes.iter().any(|o| o.status == Status::Added)
                || (strategy == Strategy::Code && p.tool_count() > 0)
        })
    }

    pub(crate) fn outcome_matches(
        &self,
        projection: &Projection,
        outcome: &crate::projection::ToolOutcome,
        needle: &str,
    ) -> bool {
        if outcome.name.to_lowercase().contains(needle) {
            return true;
        }
        if let Some(text) = outcome.original.and_then(|i| self.search_text.get(i)) {
            return text.contains(needle);
        }
        outcome
            .projected
            .and_then(|p| projection.sent.as_ref()?.get(p))
            .is_some_and(|t| {
                tool::compact(t.entry(&self.capture))
                    .to_lowercase()
                    .contains(needle)
            })
    }
}

/// Characters of an entry's keys and strings that must not reach a terminal raw, line breaks
/// and tabs aside (ordinary in descriptions).
fn hidden_chars(value: &Value) -> usize {
    let count = crate::sanitize::hidden_count;
    match value {
        Value::String(s) => count(s),
        Value::Array(items) => items.iter().map(hidden_chars).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| count(k) + hidden_chars(v)).sum(),
        _ => 0,
    }
}
