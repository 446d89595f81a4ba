//! A memo of what a long-running user (the TUI, an editor plugin) asks of one capture again and
//! again: each strategy's projection under some settings, its figures under some encoding,
//! and the capture's own tokens under each encoding. Projections are pure functions of the
//! capture and the settings, and figures of those and the encoding, so a result kept under its
//! key is the result: nothing is ever invalidated, and going back to earlier settings costs
//! nothing.
//!
//! Settings are keyed by their value ([`Settings`] is `Hash` and `Eq` over every key, a key that
//! follows a release told apart from the same number set), so two keys are equal exactly when
//! every setting a strategy reads is.

use std::collections::HashMap;
use std::sync::Arc;

use crate::diff::ByteSummary;
use crate::measure::Encoding;
use crate::projection::Projection;
use crate::report::StrategyFigures;
use crate::settings::Settings;
use crate::strategy::Strategy;

/// A projection's key: the strategy and the settings.
pub type ProjKey = (Strategy, Arc<Settings>);

/// Figures' key: the projection's and the encoding.
pub type FigKey = (Strategy, Arc<Settings>, Encoding);

/// A projected request compared with the capture's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestSummary {
    /// The compact `tools` arrays compared byte for byte (what a provider's prompt cache sees:
    /// tools come first in the prompt).
    pub tools: ByteSummary,
    /// Bytes of the capture's compact request body.
    pub body_before: usize,
    /// Bytes of the projected compact request body (a reminder message included).
    pub body_after: usize,
}

/// Projections, figures and capture tokens of one capture, each kept under its key.
#[derive(Debug, Default)]
pub struct Memo {
    projections: HashMap<ProjKey, (Arc<Projection>, RequestSummary)>,
    figures: HashMap<FigKey, Arc<StrategyFigures>>,
    capture_tokens: HashMap<Encoding, usize>,
}

impl Memo {
    /// An empty memo.
    pub fn new() -> Memo {
        Memo::default()
    }

    /// The projection kept under `key`, with its request summary.
    pub fn projection(&self, key: &ProjKey) -> Option<&(Arc<Projection>, RequestSummary)> {
        self.projections.get(key)
    }

    /// Keep a projection and its request summary under `key`.
    pub fn keep_projection(
        &mut self,
        key: ProjKey,
        projection: Arc<Projection>,
        request: RequestSummary,
    ) {
        self.projections.insert(key, (projection, request));
    }

    /// The projection under `key`, made by `make` and kept the first time it is asked for.
    pub fn projection_or_make(
        &mut self,
        key: &ProjKey,
        make: impl FnOnce() -> (Arc<Projection>, RequestSummary),
    ) -> (Arc<Projection>, RequestSummary) {
        self.projections
            .entry(key.clone())
            .or_insert_with(make)
            .clone()
    }

    /// The figures kept under `key`.
    pub fn figures(&self, key: &FigKey) -> Option<&Arc<StrategyFigures>> {
        self.figures.get(key)
    }

    /// Keep figures under `key`.
    pub fn keep_figures(&mut self, key: FigKey, figures: Arc<StrategyFigures>) {
        self.figures.insert(key, figures);
    }

    /// The capture's tokens under `encoding`, when counted.
    pub fn capture_tokens(&self, encoding: Encoding) -> Option<usize> {
        self.capture_tokens.get(&encoding).copied()
    }

    /// Keep the capture's tokens under `encoding`.
    pub fn keep_capture_tokens(&mut self, encoding: Encoding, tokens: usize) {
        self.capture_tokens.insert(encoding, tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Capture;
    use crate::measure::TokenCounter;

    #[test]
    fn results_are_kept_per_strategy_settings_and_encoding() {
        let capture = Capture::from_bytes(
            br#"{"tools":[{"name":"a","description":"one. two.","input_schema":{"type":"object"}}]}"#,
        )
        .unwrap();
        let settings = Settings::default();
        let key: ProjKey = (Strategy::Minimal, Arc::new(settings.clone()));
        let mut memo = Memo::new();
        assert!(memo.projection(&key).is_none());
        let mut made = 0;
        let mut make = || {
            made += 1;
            let projection = Arc::new(crate::project(&capture, Strategy::Minimal, &settings));
            (projection, RequestSummary::default())
        };
        let first = memo.projection_or_make(&key, &mut make);
        let again = memo.projection_or_make(&key, &mut make);
        assert_eq!(made, 1, "made once, then read back");
        assert!(Arc::ptr_eq(&first.0, &again.0));
        let mut minimal = settings.clone();
        minimal.apply("vtcode.minimal=8").unwrap();
        let other: ProjKey = (Strategy::Minimal, Arc::new(minimal));
        assert!(
            memo.projection(&other).is_none(),
            "other settings, other key"
        );

        let counter = TokenCounter::new(Encoding::default());
        let report =
            crate::report::report(&capture, "memo", &[Strategy::Minimal], &settings, &counter);
        let figures = Arc::new(report.strategies[0].clone());
        let fig_key: FigKey = (key.0, key.1.clone(), Encoding::default());
        memo.keep_figures(fig_key.clone(), figures.clone());
        assert_eq!(memo.figures(&fig_key), Some(&figures));
        let other_encoding = Encoding::Cl100kBase;
        assert!(memo.figures(&(key.0, key.1, other_encoding)).is_none());

        assert_eq!(memo.capture_tokens(Encoding::default()), None);
        memo.keep_capture_tokens(Encoding::default(), 42);
        assert_eq!(memo.capture_tokens(Encoding::default()), Some(42));
        assert_eq!(memo.capture_tokens(other_encoding), None);
    }
}
