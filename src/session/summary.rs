//! The report of an analysis: each strategy's sums against `original`, the cheapest, the
//! tools and the deferral candidates, the trace's figures (SESSIONS.md section 3).

use serde_json::Value;

use super::replay::Replay;
use super::schema::AssumedProvider;
use super::{
    Analyzer, Deferral, DeferralSaving, JSON_VERSION, SessionReport, StrategySession, StrategyTurn,
    ThreadSummary, ToolUse, TraceInfo, TraceSummary, TurnFacts, UnknownModel, round2,
};
use crate::settings::Settings;
use crate::strategy::Strategy;

impl Analyzer<'_> {
    /// The report, with the reader's figures (format, ignored and skipped records).
    pub fn finish(mut self, trace: TraceInfo) -> SessionReport {
        let turns = std::mem::take(&mut self.turns);
        let per_turn = std::mem::take(&mut self.per_turn);
        self.report(trace, turns, per_turn)
    }

    /// The report of the turns pushed so far, the analysis going on: what [`Analyzer::finish`]
    /// would give now (the live view's picture of a growing trace). Without a sink its turns
    /// are copied, so it is for a trace a person watches, not one of millions of turns.
    pub fn snapshot(&self, trace: TraceInfo) -> SessionReport {
        self.report(trace, self.turns.clone(), self.per_turn.clone())
    }

    /// The trace's part of the report: its format, what was left out, its threads.
    fn trace_summary(&self, trace: TraceInfo) -> TraceSummary {
        TraceSummary {
            path: trace.path,
            format: trace.format,
            compression: trace.compression,
            turns: self.turn_count,
            ignored: trace.ignored,
            ignored_total: trace.ignored_total,
            skipped: trace.skipped,
            torn_last_line: trace.torn_last_line,
            untimed_turns: self.timed.untimed,
            hashed_turns: self.hashed_turns,
            providers_assumed: self
                .assumed
                .iter()
                .map(|((host, provider, by), turns)| AssumedProvider {
                    host: host.clone(),
                    provider,
                    by,
                    turns: *turns,
                })
                .collect(),
            threads: self
                .threads
                .iter()
                .map(|t| ThreadSummary {
                    id: t.id.clone(),
                    key: t.key.clone(),
                    turns: t.turns,
                    first_turn: t.first_turn,
                })
                .collect(),
            mcp_servers: trace.mcp_servers,
        }
    }

    /// The tools never called, and what each deferring strategy withheld of them.
    fn deferral(&self, tools: &[ToolUse]) -> Deferral {
        let candidates: Vec<&ToolUse> = tools.iter().filter(|t| t.never_called).collect();
        Deferral {
            candidates: candidates.iter().map(|t| t.name.clone()).collect(),
            tokens: candidates.iter().map(|t| t.tokens).sum(),
            savings: self
                .strategies
                .iter()
                .zip(&self.replays)
                .filter(|(s, _)| matches!(s, Strategy::Defer | Strategy::DeferCatalog))
                .map(|(s, Replay { withheld, .. })| DeferralSaving {
                    strategy: s.id(),
                    tokens: candidates
                        .iter()
                        .map(|t| withheld.get(t.name.as_str()).copied().unwrap_or(0))
                        .sum(),
                })
                .collect(),
        }
    }

    pub(super) fn report(
        &self,
        trace: TraceInfo,
        turns: Vec<TurnFacts>,
        per_turn: Vec<Vec<StrategyTurn>>,
    ) -> SessionReport {
        let calibration = self.calibration.report(self.agreement.turns > 0);
        let group_factors = self.calibration.group_factors();
        let unseen = self.calibration.unseen_tokens();
        let costed: Vec<bool> = self.replays.iter().map(|r| r.totals.costed).collect();
        let mut strategies: Vec<StrategySession> = self
            .strategies
            .iter()
            .zip(per_turn)
            .zip(&self.replays)
            .map(
                |((strategy, per_turn), Replay { totals, .. })| StrategySession {
                    id: strategy.id(),
                    per_turn,
                    total_tokens: totals.total_tokens,
                    breaks: totals.breaks,
                    prompt_tokens: totals.prompt_tokens,
                    cost: round2(totals.cost),
                    cost_uncached: totals.cost_uncached as f64,
                    cost_provider: totals.provider_cost(group_factors.as_deref(), unseen),
                    applied: totals.applied,
                    versus_original_pct: None,
                },
            )
            .collect();
        let base = strategies
            .iter()
            .find(|s| s.id == "original")
            .map(|s| s.cost)
            .filter(|&c| c > 0.0);
        if let Some(base) = base {
            for strategy in &mut strategies {
                strategy.versus_original_pct = Some(round2((strategy.cost - base) * 100.0 / base));
            }
        }
        // A strategy that never applied sends the host's fallback (a3s `code` without its
        // gateway sends no tools at all): it is shown, never named the cheapest.
        let lowest = |reachable_only: bool| {
            strategies
                .iter()
                .zip(&costed)
                .zip(&self.replays)
                .filter(|((s, _), _)| s.applied || s.id == "original")
                .filter(|((_, costed), _)| **costed)
                .filter(|(_, replay)| !(reachable_only && replay.unreachable))
                .min_by(|a, b| a.0.0.cost.total_cmp(&b.0.0.cost))
                .map(|((s, _), _)| s.id)
        };
        let (cheapest, cheapest_any) = (lowest(true), lowest(false));

        let mut tools = self.tool_tally.report();
        for tool in &mut tools {
            tool.server = crate::trace::mcp_server_listing(&trace.mcp_servers, &tool.name)
                .and_then(|s| s.name.clone());
        }
        let deferral = self.deferral(&tools);

        let settings = settings_map(&self.settings);
        SessionReport {
            version: JSON_VERSION,
            trace: self.trace_summary(trace),
            turns,
            agreement: self.agreement.report(),
            diagnosis: self.diagnoses.report(),
            unknown_models: self
                .unknown_models
                .iter()
                .map(|(model, turns)| UnknownModel {
                    model: model.clone(),
                    turns: *turns,
                })
                .collect(),
            calibration,
            break_cost: self.break_cost.rounded(),
            append: {
                let append = self.append.report();
                let any = append.changes + append.refused_total + append.breaks_avoided;
                let any = any + append.refusals_avoided + append.checks_avoided;
                (any > 0 || append.saved_tokens != 0.0).then_some(append)
            },
            tools,
            deferral,
            strategies,
            cheapest,
            cheapest_any,
            settings,
        }
    }
}

/// Every setting's value, in `settings` order.
fn settings_map(values: &Settings) -> serde_json::Map<String, Value> {
    Settings::KEYS
        .iter()
        .map(|info| {
            let value = values.get(info.key).unwrap_or_default();
            (info.key.to_owned(), Value::String(value))
        })
        .collect()
}
